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
#include "model/quality.h"
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

/* One scenario key set over a file's own value ("pipeline.loader_workers",
 * "8"): what `damsim sweep --vary` changes per point. */
typedef struct dam_setting {
    const char *key;   /* dotted path from the file's root */
    const char *value; /* as written on a command line */
} dam_setting;

/* How dam_scenario_load_with reads a file (all zero: as dam_scenario_load). */
typedef struct dam_load_options {
    const dam_setting *overrides; /* set before the schema is read, in order */
    int noverrides;
    int skip_catalogs; /* 1: the "catalogs" group is checked but its files
                        * are not merged (cat already holds them), so cat is
                        * only read: loads may then run on several threads
                        * sharing one catalog */
    dam_lever_list *levers; /* not NULL: the file's levers are written here
                             * (the scenario keeps only what they assume;
                             * NULL: they are checked and dropped) */
} dam_load_options;

/*
 * dam_scenario_load with options. An override replaces the file's value of
 * its key (or adds the key, creating its groups), taking the type of the
 * value it replaces: a number for a number (an integer where the file has
 * an integer), true/false (also 1/0, yes/no, on/off) for a boolean, the
 * text as is for a string; a new key or a distribution replaced by a value
 * takes the type the value's text has. The scenario is then read and
 * checked exactly as a file that says so, with every message naming the
 * file and the line of the value replaced (0 for an added key). An
 * override that cannot be applied (a path through a non-group, an empty
 * key) is an error in d. Same return contract as dam_scenario_load.
 */
int dam_scenario_load_with(dam_scenario *s, const char *path,
                           const char *text, dam_catalog *cat,
                           const dam_load_options *opt, dam_diag *d);

/*
 * Many loads of one file, each with one key set to a value (a sweep's
 * values of a key): the file is parsed once, and a value that reads as
 * the type the file gives the key is set in that tree and the scenario
 * read from it; any other value (or a key the file does not give as a
 * scalar) is a whole dam_scenario_load_with with the override. Either
 * way s and d are what dam_scenario_load_with(s, path, text, cat,
 * {key = value} with opt's catalogs and levers, d) gives. opt's
 * overrides must be empty. One thread's.
 */
typedef struct dam_key_loads dam_key_loads;
dam_key_loads *dam_key_loads_open(const char *path, const char *text,
                                const char *key);
int dam_key_loads_value(dam_key_loads *k, dam_scenario *s, const char *value,
                       dam_catalog *cat, const dam_load_options *opt,
                       dam_diag *d);
void dam_key_loads_close(dam_key_loads *k);

/* The documented range [lo, hi] of a scenario number key (a full dotted
 * path, in the file's units: "serving.rate_per_s", "scenario.deadline_days")
 * for the command line's options that stand for one; -1 when it has none. */
int dam_scenario_key_range(const char *key, double *lo, double *hi);

/*
 * Is the scenario file (path, or text when not NULL) a set of points
 * (scenario.mode = "points")? 1 yes, 0 no or unreadable (the ordinary
 * loader then reports what is wrong).
 */
int dam_points_probe(const char *path, const char *text);

/*
 * Load a points scenario: scenario { name; question; mode = "points"; },
 * quality { metric; higher_is_better; }, cost { unit; } and points = ( {
 * name; quality; cost; }, ... ) with 2 to DAM_MAX_POINTS points, unique
 * names, finite quality and cost >= 0. Problems go to d as file:line
 * errors; returns DAM_OK or DAM_EINPUT.
 */
int dam_points_load(dam_points *p, const char *path, const char *text,
                    dam_diag *d);

/*
 * The settings a scenario file writes, flattened in file order: key
 * "machine.storage.read_gbs", value "20", numbers in the file's own units
 * (as written, not converted), strings unquoted, list elements numbered
 * ("levers.0.name"). *out is owned by the caller (dam_settings_free).
 * Returns the number of settings, or -1 when the file cannot be read or
 * parsed (the loader's messages say why). For `compare`.
 */
int dam_scenario_settings(const char *path, const char *text,
                          dam_setting **out);
/* Free what dam_scenario_settings returned; NULL is a no-op. */
void dam_settings_free(dam_setting *s, int n);

#endif
