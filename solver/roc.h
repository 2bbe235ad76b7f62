/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * roc.h: return on compute over the user's own options: (name, quality,
 * cost) points from a scenario of mode "points" (model/quality.h
 * dam_points), as the reference texts' table of models A, B and C.
 *
 *     RoC          = (quality - quality of the cheapest) / (cost - its cost)
 *     marginal RoC = quality gained per unit of cost from one option on the
 *                    cost-quality frontier to the next
 *
 * with the gain signed so that + is better whichever way the metric points
 * (a loss that falls is a gain). Options no other option beats on both
 * cost and quality form the frontier (model/quality.c dam_quality_pareto);
 * returns diminish when each step along it buys less per unit than the
 * one before.
 *
 * What it does not know: where the numbers come from. They are the user's;
 * damsim computes only the ratios.
 */
#ifndef DAM_SOLVER_ROC_H
#define DAM_SOLVER_ROC_H

#include "model/error.h"
#include "model/quality.h"

typedef struct dam_roc {
    size_t n;                           /* points */
    size_t cheapest;                    /* index of the reference option */
    double gain[DAM_MAX_POINTS];        /* quality gain over the cheapest,
                                           + better, metric units */
    double extra_cost[DAM_MAX_POINTS];  /* cost over the cheapest, units */
    double roc[DAM_MAX_POINTS];         /* gain / extra_cost */
    int roc_defined[DAM_MAX_POINTS];    /* 0 where the cost is the same */
    int on_frontier[DAM_MAX_POINTS];    /* 1: on the frontier */
    size_t nfrontier;
    size_t frontier[DAM_MAX_POINTS];    /* indices, increasing cost */
    double marginal[DAM_MAX_POINTS];    /* marginal[k]: frontier k -> k+1,
                                           gain per unit of cost */
    int diminishing;                    /* 1: every step buys less per unit
                                           than the one before (>= 2 steps) */
} dam_roc;

/* Return on compute of p into r. DAM_OK, or DAM_EINPUT (err filled) when
 * p has fewer than 2 points or a non-finite number. */
int dam_roc_of(const dam_points *p, dam_roc *r, dam_error *err);

#endif
