/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * calibrate.h (render): the fit of `damsim calibrate` as text and JSON,
 * the catalog overlay it writes, and the cross-validation table. Draws
 * what solver/calibrate.h computed; computes nothing.
 *
 * The overlay is a catalog file (libconfig syntax) holding one group,
 * `calibration`, that the catalog loader understands (model/loader.h):
 *
 *   calibration = {
 *     measurements = "...";           # the file it was fitted to
 *     fit = { residuals = N; constants = N; dof = N; chi2 = X;
 *             residual_sd = X; rms_error = X; converged = true;
 *             stop = "..."; iterations = N; };
 *     constants = ( { key = "model/ID/efficiency/bf16"; value = X;
 *                     se = X; sd = X; start = X; rows = N; }, ... );
 *     residuals = ( { id = "..."; line = N; quantity = "..."; gpu = "...";
 *                     measured = X; predicted = X; error = X;
 *                     p05 = X; p95 = X; held_out = false; }, ... );
 *   };
 *
 * Loading it (--gpus FILE, --models FILE, or a scenario's catalogs group)
 * sets each constant's value and sd in the catalog; fit and residuals are
 * the record of how they were obtained. Undetermined constants are not
 * written (the catalog's values stand).
 */
#ifndef DAM_RENDER_CALIBRATE_H
#define DAM_RENDER_CALIBRATE_H

#include "render/out/buf.h"
#include "solver/calibrate.h"

/* The fit as a report: constants before and after with their uncertainty,
 * every residual with its interval, and what each trace held. */
void dam_text_calibration(dam_buf *b, const dam_calibration *c);

/* The same as a JSON object (new reference). */
struct json_t *dam_json_calibration(const dam_calibration *c);

/* The overlay file (see above); version names the damsim that wrote it. */
void dam_calibration_overlay(dam_buf *b, const dam_calibration *c,
                             const char *version);

/* Leave-one-GPU-out: the figures per held-out GPU and overall. */
void dam_text_crossval(dam_buf *b, const dam_crossval *x);

/* The same as a JSON object (new reference). */
struct json_t *dam_json_crossval(const dam_crossval *x);

#endif
