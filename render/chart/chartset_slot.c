/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chartset_slot.c: the next chart slot of a chart set (chartset.h), in a
 * file of its own: chartset.c and the chart-set files it releases
 * (chartset_sweep.c, chartset_plan.c) all take slots, and none of them
 * calls back into another for one.
 */
#include "render/chart/chartset.h"

#include <stdio.h>

dam_chart *dam_chartset_add(dam_chartset *cs, dam_chart_kind k,
                            const char *name)
{
    if (cs->ncharts >= DAM_CHARTSET_MAX)
        return NULL;
    dam_chart *c = &cs->charts[cs->ncharts];
    snprintf(cs->names[cs->ncharts], sizeof cs->names[0], "%s", name);
    cs->ncharts++;
    c->kind = k;
    return c;
}
