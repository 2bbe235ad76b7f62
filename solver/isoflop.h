/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * isoflop.h: the iso-FLOP view of a language-model training scenario: at
 * a tenth, one and ten times the scenario's training compute (6 N D), the
 * predicted loss of every model size that spends exactly that compute,
 * the size that minimises it, and where the scenario's own model sits.
 *
 * Design note: pure arithmetic on model/scaling (the scenario's
 * quality.fit); it reads the scenario and fills a caller's struct, so the charts
 * (render/) only draw what is computed here. Sizes span a factor of 30 on
 * either side of each budget's optimum, log-spaced.
 */
#ifndef DAM_SOLVER_ISOFLOP_H
#define DAM_SOLVER_ISOFLOP_H

#include <stddef.h>

#include "model/error.h"
#include "model/scenario.h"

#define DAM_ISOFLOP_CURVES 3  /* budgets: 0.1x, 1x and 10x the scenario's */
#define DAM_ISOFLOP_POINTS 48 /* model sizes per curve */

/* One budget's curve. */
typedef struct dam_isoflop_curve {
    double compute;                     /* training compute, FLOP */
    double params[DAM_ISOFLOP_POINTS];  /* model sizes, parameters,
                                           increasing */
    double loss[DAM_ISOFLOP_POINTS];    /* predicted loss, nats/token */
    size_t n;                           /* points filled */
    size_t optimum;                     /* index of the lowest loss */
} dam_isoflop_curve;

/* The curves and the scenario's model on them. */
typedef struct dam_isoflop {
    dam_isoflop_curve curves[DAM_ISOFLOP_CURVES]; /* lowest budget first */
    size_t ncurves;                               /* curves filled */
    double model_params; /* the scenario's parameters (after levers) */
    double model_loss;   /* its predicted loss on its tokens, nats/token */
} dam_isoflop;

/*
 * The iso-FLOP curves of scenario s into out. Returns DAM_OK (out->ncurves
 * >= 1), or DAM_EINPUT with err filled (err may be NULL) when the model has
 * no parameters or no tokens, or no curve can be computed.
 */
int dam_isoflop_of(const dam_scenario *s, dam_isoflop *out, dam_error *err);

#endif
