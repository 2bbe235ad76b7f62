/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan_frontier.c: the compute-optimal frontier of a budget plan (see
 * plan_frontier.h).
 */
#include "solver/plan_frontier.h"

#include <math.h>

#include "model/error.h"
#include "model/scaling.h"

size_t dam_plan_frontier(const dam_plan *p, double *compute, double *params,
                         double *loss)
{
    const dam_scaling_fit *f = p->fit;
    if (!f)
        f = dam_scaling_fit_get(DAM_SCALING_DEFAULT);
    if (!f || !(p->flops > 0.0) || !isfinite(p->flops))
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < DAM_PLAN_FRONTIER_POINTS; i++) {
        /* four decades, from budget / 100 to budget x 100 */
        double c = p->flops *
                   pow(10.0, -2.0 + 4.0 * (double)i /
                                    (double)(DAM_PLAN_FRONTIER_POINTS - 1));
        double nopt = 0.0, dopt = 0.0;
        if (dam_scaling_optimal(f, c, &nopt, &dopt, NULL) != DAM_OK)
            continue;
        double l = dam_scaling_loss(f, nopt, dopt);
        if (!isfinite(l) || !(nopt > 0.0))
            continue;
        compute[n] = c;
        params[n] = nopt;
        loss[n] = l;
        n++;
    }
    return n;
}
