/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader.h: scenario and catalog files in, plain data out. This is the only
 * module that knows libconfig. Loading is strict: unknown keys, wrong types,
 * missing required values, out-of-range and inconsistent values are all
 * reported as "file:line: error: message" into a dam_diag (up to
 * DAM_DIAG_MAX), and the load fails as a whole. Every value is converted to
 * SI units here, once.
 */
#ifndef DAM_LOADER_H
#define DAM_LOADER_H

#include "model/catalog.h"
#include "model/error.h"
#include "model/scenario.h"

/*
 * Load GPUs from a catalog file (text == NULL: read path) or from text
 * (path names it in messages). Entries are merged into cat: an id already
 * there is replaced, a new id is appended. Returns DAM_OK or DAM_EINPUT
 * (diagnostics in d; cat unchanged on failure).
 */
int dam_catalog_load_gpus(dam_catalog *cat, const char *path, const char *text,
                          dam_diag *d);
/* The same for models. */
int dam_catalog_load_models(dam_catalog *cat, const char *path,
                            const char *text, dam_diag *d);

/*
 * Load a scenario from path (text == NULL) or from text (path names it).
 * GPU and model ids resolve against cat; a scenario's own "catalogs" group
 * names files (relative to the scenario's folder) merged into cat first.
 * Returns DAM_OK (warnings may be in d) or DAM_EINPUT (errors in d; *s is
 * unspecified).
 */
int dam_scenario_load(dam_scenario *s, const char *path, const char *text,
                      dam_catalog *cat, dam_diag *d);

#endif
