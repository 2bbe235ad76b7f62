/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * roc.c: return on compute over the user's points (see roc.h). The ratios
 * come from model/quality.c (dam_quality_gain, dam_quality_roc,
 * dam_quality_pareto), so a what-if and a points scenario compute RoC the
 * same way.
 */
#include "solver/roc.h"

#include <math.h>
#include <string.h>

int dam_roc_of(const dam_points *p, dam_roc *r, dam_error *err)
{
    memset(r, 0, sizeof *r);
    if (p->n < 2 || p->n > DAM_MAX_POINTS)
        return dam_error_set(err, p->file, 0, "return on compute needs 2 to "
                             "%d points, got %zu", DAM_MAX_POINTS, p->n);
    r->n = p->n;
    for (size_t i = 0; i < p->n; i++) {
        if (!isfinite(p->pts[i].cost) || !isfinite(p->pts[i].quality))
            return dam_error_set(err, p->file, p->line[i], "point \"%s\": "
                                 "quality and cost must be finite",
                                 p->pts[i].label);
        if (p->pts[i].cost < p->pts[r->cheapest].cost)
            r->cheapest = i;
    }
    const dam_quality_point *c = &p->pts[r->cheapest];
    int hib = p->higher_is_better;
    for (size_t i = 0; i < p->n; i++) {
        r->gain[i] = dam_quality_gain(c->quality, p->pts[i].quality, hib);
        r->extra_cost[i] = p->pts[i].cost - c->cost;
        r->roc_defined[i] =
            dam_quality_roc(c->quality, c->cost, p->pts[i].quality,
                            p->pts[i].cost, hib, &r->roc[i], NULL) == DAM_OK;
    }
    r->nfrontier = dam_quality_pareto(p->pts, p->n, hib, r->frontier);
    for (size_t k = 0; k < r->nfrontier; k++) {
        size_t i = r->frontier[k];
        r->on_frontier[i] = 1;
        if (k + 1 < r->nfrontier) {
            const dam_quality_point *a = &p->pts[i];
            const dam_quality_point *b = &p->pts[r->frontier[k + 1]];
            dam_quality_roc(a->quality, a->cost, b->quality, b->cost, hib,
                            &r->marginal[k], NULL);
        }
    }
    r->diminishing = r->nfrontier >= 3;
    for (size_t k = 1; k + 1 < r->nfrontier; k++)
        if (!(r->marginal[k] < r->marginal[k - 1]))
            r->diminishing = 0;
    return DAM_OK;
}
