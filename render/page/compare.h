/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compare.h: scenarios side by side, from their solved results: every
 * input that differs, every output with its change from the first
 * scenario, and the step per iron-law term; or all of it as JSON.
 */
#ifndef DAM_RENDER_COMPARE_H
#define DAM_RENDER_COMPARE_H

#include "model/loader.h"
#include "render/out/buf.h"
#include "solver/diagnose.h"
#include "solver/uncertainty.h"

#define DAM_COMPARE_MAX 8 /* most scenarios side by side */

/* The comparison of n (2 .. DAM_COMPARE_MAX) scenarios s[i] with results
 * r[i] and diagnoses d[i], as a table (as_json 0) or JSON (1), into b.
 * iv (may be NULL): each scenario's 90 % intervals over paired draws
 * (uncertainty.h), the speed-up against the first; entries with samples
 * 0 have none. settings (may be NULL): each scenario file's own settings
 * (dam_scenario_settings, nsettings[i] of them): the inputs that differ
 * are shown as the files write them, in their units; NULL compares the
 * loaded scenarios' values (SI units). Scenarios are numbered [1], [2]
 * ... with their names and files in full, so columns are never told
 * apart by a cut name. */
void dam_compare_write(dam_buf *b, const dam_scenario *s, const dam_result *r,
                       const dam_diagnosis *d, const dam_answer_interval *iv,
                       const dam_setting *const *settings,
                       const int *nsettings, int n, int as_json);

#endif
