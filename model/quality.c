/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * quality.c: run cost, quality after levers, return on compute and the
 * Pareto frontier (see quality.h). Closed forms; no state, no allocation.
 */
#include "model/quality.h"

#include "model/lever.h"

#include <math.h>
#include <strings.h>

static const char *const measure_names[DAM_QUALITY_MEASURE_COUNT] = {
    "gpu_hours", "usd", "kwh"};

const char *dam_quality_measure_name(dam_quality_measure m)
{
    return (unsigned)m < DAM_QUALITY_MEASURE_COUNT ? measure_names[m] : "?";
}

int dam_quality_measure_parse(const char *s, dam_quality_measure *out)
{
    static const struct {
        const char *name;
        dam_quality_measure m;
    } names[] = {
        {"gpu_hours", DAM_QUALITY_GPU_HOURS},
        {"gpu-hours", DAM_QUALITY_GPU_HOURS},
        {"usd", DAM_QUALITY_USD},
        {"dollars", DAM_QUALITY_USD},
        {"kwh", DAM_QUALITY_KWH},
        {"energy", DAM_QUALITY_KWH},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].m;
            return 0;
        }
    return -1;
}

int dam_quality_run_cost(int64_t gpus, double run_time_s, double gpu_hour_usd,
                         double power_w, double pue, double kwh_usd,
                         dam_quality_cost *out, dam_error *err)
{
    if (gpus < 1)
        return dam_error_set(err, "", 0, "cost: GPU count must be >= 1 "
                             "(got %lld)", (long long)gpus);
    if (!(run_time_s >= 0.0) || !isfinite(run_time_s))
        return dam_error_set(err, "", 0, "cost: run time must be >= 0 s "
                             "(got %g)", run_time_s);
    if (!(gpu_hour_usd >= 0.0) || !(power_w >= 0.0) || !(kwh_usd >= 0.0))
        return dam_error_set(err, "", 0,
                             "cost: prices and power must be >= 0 (got "
                             "gpu_hour_usd %g, power %g W, kwh_usd %g)",
                             gpu_hour_usd, power_w, kwh_usd);
    if (!(pue >= 1.0))
        return dam_error_set(err, "", 0, "cost: pue must be >= 1 (got %g)",
                             pue);
    out->gpu_hours = gpus * run_time_s / 3600.0;
    out->kwh = gpus * power_w * run_time_s * pue / 3.6e6;
    out->gpu_usd = out->gpu_hours * gpu_hour_usd;
    out->energy_usd = out->kwh * kwh_usd;
    out->usd = out->gpu_usd + out->energy_usd;
    return DAM_OK;
}

double dam_quality_gpu_power(const dam_gpu *g, double busy)
{
    double b = busy > 0.0 ? (busy < 1.0 ? busy : 1.0) : 0.0;
    double idle = DAM_IDLE_POWER_FRACTION * g->tdp_w;
    return idle + (g->tdp_w - idle) * b;
}

int dam_quality_scenario_cost(const dam_scenario *s, int64_t gpus,
                              double run_time_s, double busy,
                              dam_quality_cost *out, dam_error *err)
{
    double price = dam_gpu_price(s, &s->machine.gpu);
    double pue = s->cost.pue > 0.0 ? s->cost.pue : 1.0;
    return dam_quality_run_cost(gpus, run_time_s, price,
                                dam_quality_gpu_power(&s->machine.gpu, busy),
                                pue, s->cost.kwh_usd, out, err);
}

double dam_quality_cost_in(const dam_quality_cost *c, dam_quality_measure m)
{
    switch (m) {
    case DAM_QUALITY_GPU_HOURS: return c->gpu_hours;
    case DAM_QUALITY_USD: return c->usd;
    case DAM_QUALITY_KWH: return c->kwh;
    case DAM_QUALITY_MEASURE_COUNT: break;
    }
    return NAN;
}

double dam_quality_tokens(const dam_scenario *s)
{
    if (s->quality.tokens > 0.0)
        return s->quality.tokens;
    return s->data.samples * s->workload.model.seq_len * s->data.epochs;
}

double dam_quality_fit_loss(const dam_scenario *s, const dam_scaling_fit *f)
{
    return dam_scaling_loss(f, s->workload.model.params,
                            dam_quality_tokens(s));
}

double dam_quality_after(const dam_scenario *s)
{
    if (s->quality.from_scaling_law && !(s->quality.value > 0.0))
        return dam_quality_fit_loss(
            s, dam_scaling_fit_get((dam_scaling_fit_id)s->quality.fit));
    return s->quality.value;
}

double dam_quality_gain(double q0, double q1, int higher_is_better)
{
    return higher_is_better ? q1 - q0 : q0 - q1;
}

int dam_quality_roc(double q0, double cost0, double q1, double cost1,
                    int higher_is_better, double *roc, dam_error *err)
{
    double dc = cost1 - cost0;
    if (!isfinite(dc) || !isfinite(q0) || !isfinite(q1))
        return dam_error_set(err, "", 0,
                             "roc: costs and qualities must be finite "
                             "(got cost %g -> %g, quality %g -> %g)",
                             cost0, cost1, q0, q1);
    if (dc == 0.0)
        return dam_error_set(err, "", 0,
                             "roc: undefined when the cost does not change "
                             "(both %g)", cost0);
    *roc = dam_quality_gain(q0, q1, higher_is_better) / dc;
    return DAM_OK;
}

int dam_quality_marginal(const dam_quality_point *pts, size_t n,
                         int higher_is_better, double *roc, dam_error *err)
{
    if (n < 2)
        return dam_error_set(err, "", 0,
                             "roc: marginal return needs at least 2 options "
                             "(got %zu)", n);
    for (size_t i = 0; i + 1 < n; i++) {
        const dam_quality_point *a = &pts[i], *b = &pts[i + 1];
        if (dam_quality_roc(a->quality, a->cost, b->quality, b->cost,
                            higher_is_better, &roc[i], NULL) != DAM_OK)
            return dam_error_set(err, "", 0,
                                 "roc: no marginal return from '%s' to '%s': "
                                 "cost %g -> %g, quality %g -> %g",
                                 a->label, b->label, a->cost, b->cost,
                                 a->quality, b->quality);
    }
    return DAM_OK;
}

/* 1 when quality a is at least as good as b. */
static int as_good(double a, double b, int higher_is_better)
{
    return higher_is_better ? a >= b : a <= b;
}

/* 1 when p[j] dominates p[i], or duplicates it and comes first. */
static int beaten(const dam_quality_point *pts, size_t i, size_t j, int hib)
{
    const dam_quality_point *a = &pts[j], *b = &pts[i];
    if (!(a->cost <= b->cost) || !as_good(a->quality, b->quality, hib))
        return 0;
    if (a->cost < b->cost || a->quality != b->quality)
        return 1;
    return j < i; /* exact duplicate: keep the first */
}

size_t dam_quality_pareto(const dam_quality_point *pts, size_t n,
                          int higher_is_better, size_t *idx)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(pts[i].cost) || !isfinite(pts[i].quality))
            continue;
        int keep = 1;
        for (size_t j = 0; j < n && keep; j++)
            if (j != i && isfinite(pts[j].cost) && isfinite(pts[j].quality)
                && beaten(pts, i, j, higher_is_better))
                keep = 0;
        if (!keep)
            continue;
        /* Insert in increasing cost (stable for equal costs). */
        size_t at = k;
        while (at > 0 && pts[idx[at - 1]].cost > pts[i].cost) {
            idx[at] = idx[at - 1];
            at--;
        }
        idx[at] = i;
        k++;
    }
    return k;
}
