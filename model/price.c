/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * price.c: the price of a GPU-hour (lever.h declares it): the scenario's
 * own for its GPU, else the price its levers gave that GPU, else the
 * catalog's; what the gpu lever, the cost figures (quality.c) and the plans
 * all charge. Below both the levers and the cost model.
 */
#include "model/lever.h"

#include <strings.h>

/* The scenario's own price for GPU id: its base GPU's, or the price one of
 * its levers gives that GPU; 0 when it names none. */
static double scenario_price(const dam_scenario *s, const char *id)
{
    if (s->cost.base_gpu[0] && strcasecmp(s->cost.base_gpu, id) == 0)
        return s->cost.base_gpu_hour_usd;
    for (int i = 0; i < s->assume.nprice; i++)
        if (strcasecmp(s->assume.price[i].gpu, id) == 0)
            return s->assume.price[i].usd_hour;
    return 0.0;
}

double dam_lever_gpu_price(const dam_scenario *s, const char *id,
                           const dam_gpu *gpu)
{
    double own = scenario_price(s, id);
    if (own > 0.0)
        return own;
    return gpu && gpu->price_hour > 0.0 ? gpu->price_hour : 0.0;
}

double dam_gpu_price(const dam_scenario *s, const dam_gpu *g)
{
    if ((g == &s->machine.gpu ||
         strcasecmp(g->id, s->machine.gpu.id) == 0) &&
        s->cost.gpu_hour_usd > 0.0)
        return s->cost.gpu_hour_usd;
    return dam_lever_gpu_price(s, g->id, g);
}
