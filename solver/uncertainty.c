/* SPDX-License-Identifier: GPL-3.0-or-later */
/* uncertainty.c: Monte Carlo over uncertain inputs and the tornado of their
 * swings (see uncertainty.h). */
#include "solver/uncertainty.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "solver/analytic.h"
#include "solver/rng.h"

/* Stream id of the uncertainty draws: apart from every simulation stream. */
#define UNCERTAINTY_STREAM 0x756e6365ULL

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile_sorted(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)floor(pos);
    if (i >= n - 1)
        return v[n - 1];
    double f = pos - i;
    return v[i] * (1.0 - f) + v[i + 1] * f;
}

dam_interval dam_interval_of(double *v, int n)
{
    dam_interval iv = {0.0, 0.0, 0.0};
    if (n <= 0)
        return iv;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    iv.lo = quantile_sorted(v, n, 0.05);
    iv.median = quantile_sorted(v, n, 0.5);
    iv.hi = quantile_sorted(v, n, 0.95);
    return iv;
}

void dam_uncertainty_apply(const dam_scenario *base, const dam_scenario *s,
                           const double *q, dam_scenario *out)
{
    if (out != s)
        *out = *s;
    for (int i = 0; i < base->nuncertain; i++) {
        const dam_uncertain *u = &base->uncertain[i];
        double vb, vs;
        memcpy(&vb, (const char *)base + u->offset, sizeof vb);
        memcpy(&vs, (const char *)s + u->offset, sizeof vs);
        if (vs != vb)
            continue; /* a lever set it: the lever's value stands */
        out->uncertain[i] = *u;
        dam_uncertain_set(out, i, dam_uncertain_quantile(u, q[i]));
    }
}

int dam_uncertainty_run(const dam_scenario *s, int samples,
                        unsigned long seed, dam_uncertainty *u,
                        dam_error *err)
{
    memset(u, 0, sizeof *u);
    if (s->nuncertain == 0)
        return dam_error_set(err, s->file, 0, "no uncertain inputs");
    if (samples < 10)
        return dam_error_set(err, s->file, 0,
                             "uncertainty needs at least 10 samples");
    dam_scenario *x = dam_malloc(sizeof *x);
    dam_result *r = dam_malloc(sizeof *r);
    double *step = dam_malloc((size_t)samples * sizeof *step);
    double *run = dam_malloc((size_t)samples * sizeof *run);
    double *tp = dam_malloc((size_t)samples * sizeof *tp);
    double *cost = dam_malloc((size_t)samples * sizeof *cost);
    gsl_rng *g = dam_rng_create(seed, UNCERTAINTY_STREAM);
    double q[DAM_MAX_UNCERTAIN];
    u->samples = samples;
    for (int k = 0; k < samples; k++) {
        for (int i = 0; i < s->nuncertain; i++)
            q[i] = gsl_rng_uniform_pos(g);
        dam_uncertainty_apply(s, s, q, x);
        dam_analytic_solve(x, r);
        step[k] = r->step;
        run[k] = r->run_time;
        tp[k] = r->throughput;
        cost[k] = r->cost_usd;
        if ((unsigned)r->bound < DAM_BOUND_COUNT)
            u->p_bound[r->bound] += 1.0 / samples;
    }
    u->step = dam_interval_of(step, samples);
    u->run_time = dam_interval_of(run, samples);
    u->throughput = dam_interval_of(tp, samples);
    u->cost_usd = dam_interval_of(cost, samples);

    /* Tornado: one input at a time, the others at their means. */
    for (int i = 0; i < s->nuncertain; i++) {
        dam_uncertainty_input *in = &u->inputs[u->ninputs++];
        const dam_uncertain *un = &s->uncertain[i];
        snprintf(in->key, sizeof in->key, "%s", un->key);
        in->kind = un->kind;
        in->scale = un->scale > 0.0 ? un->scale : 1.0;
        in->value_lo = dam_uncertain_quantile(un, 0.05);
        in->value_hi = dam_uncertain_quantile(un, 0.95);
        *x = *s;
        dam_uncertain_set(x, i, in->value_lo);
        dam_analytic_solve(x, r);
        in->step_lo = r->step;
        *x = *s;
        dam_uncertain_set(x, i, in->value_hi);
        dam_analytic_solve(x, r);
        in->step_hi = r->step;
        in->swing = fabs(in->step_hi - in->step_lo);
    }
    /* largest swing first (insertion sort: at most 16) */
    for (int i = 1; i < u->ninputs; i++)
        for (int j = i; j > 0 && u->inputs[j].swing > u->inputs[j - 1].swing;
             j--) {
            dam_uncertainty_input t = u->inputs[j];
            u->inputs[j] = u->inputs[j - 1];
            u->inputs[j - 1] = t;
        }
    dam_rng_free(g);
    dam_free(cost);
    dam_free(tp);
    dam_free(run);
    dam_free(step);
    dam_free(r);
    dam_free(x);
    return DAM_OK;
}
