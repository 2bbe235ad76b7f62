/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan_frontier.h: the compute-optimal frontier around a budget plan: the
 * loss the plan's scaling fit predicts for the compute-optimal model at
 * each compute from a hundredth to a hundred times the plan's budget
 * (log-spaced), so a chart can show where the budget sits on it.
 *
 * Design note: pure arithmetic on model/scaling, filling a caller's
 * arrays; render/ draws what is computed here.
 */
#ifndef DAM_SOLVER_PLAN_FRONTIER_H
#define DAM_SOLVER_PLAN_FRONTIER_H

#include <stddef.h>

#include "solver/plan.h"

#define DAM_PLAN_FRONTIER_POINTS 41 /* points of the frontier */

/* Fill compute[i] (FLOP), params[i] and loss[i] (nats/token) of the
 * compute-optimal frontier around p->flops; returns the points filled (0
 * when the fit gives none: the plan has no fit or no budget). */
size_t dam_plan_frontier(const dam_plan *p, double *compute, double *params,
                         double *loss);

#endif
