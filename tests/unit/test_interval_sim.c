/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_interval_sim.c: the interval printed beside a simulated figure is
 * of that figure (issue 21). damsim solves its draws analytically and
 * carries the interval to the simulated point (dam_interval_carry: each
 * draw scaled by simulated / analytic of the nominal scenario). Here the
 * draws themselves are simulated (dam_draws_apply_all: constants, inputs
 * and the model's errors at their draw), and the 5th and 95th percentiles
 * of those simulated steps are compared with the carried interval.
 *
 * Tolerance, from the sample sizes and not from the rows: a 5th or 95th
 * percentile estimated from n draws has a standard error of about
 * sd sqrt(0.05 x 0.95 / n) / phi(1.645) in the log (sd: the log-spread of
 * the draws; phi(1.645) = 0.103); the carried and the reference interval
 * each have one, so their ends may differ by 4 sqrt(2) of it, and by 2 %
 * more for the simulation noise of one draw. The point itself must lie
 * inside the carried interval, which must have a non-zero width.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "model/alloc.h"
#include "sim_util.h"
#include "solver/uncertainty.h"

#define NREF 400

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void one(const char *name, int steps)
{
    dam_scenario *s = dam_malloc(sizeof *s), *x = dam_malloc(sizeof *x);
    dam_result *r = dam_malloc(sizeof *r), *rx = dam_malloc(sizeof *rx);
    if (sim_load(name, s) != DAM_OK) {
        dam_check(0, "%s loads", name);
        goto out;
    }
    dam_sim_options o = dam_test_options(-1, steps, 2, 0);
    if (dam_test_simulate(s, &o, r) != DAM_OK) {
        dam_check(0, "%s simulates", name);
        goto out;
    }
    /* the carried interval, as `run` and `whatif` print it */
    dam_draws *d = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, s->seed);
    dam_answer_interval a;
    dam_uncertainty_answer(d, s, s, NULL, NULL, &a);
    dam_figures shown = dam_figures_of(r);
    dam_interval_carry(&a, &shown, 0.0, 0.0, NULL, NULL, 0);
    dam_draws_free(d);
    dam_check(a.step.lo < r->step && r->step < a.step.hi,
              "%s: simulated step %.4g s inside its interval %.4g to %.4g",
              name, r->step, a.step.lo, a.step.hi);
    dam_check(a.step.hi > a.step.lo * 1.01, "%s: the interval has a width",
              name);
    /* the reference: simulate each of NREF draws */
    static double v[NREF];
    dam_draws *dr = dam_draws_create(NREF, s->seed ^ 0x5eedULL);
    for (int k = 0; k < NREF; k++) {
        dam_draws_apply_all(dr, k, s, s, x);
        if (dam_test_simulate(x, &o, rx) != DAM_OK) {
            dam_check(0, "%s: draw %d simulates", name, k);
            dam_draws_free(dr);
            goto out;
        }
        v[k] = rx->step;
    }
    dam_draws_free(dr);
    qsort(v, NREF, sizeof *v, cmp);
    dam_interval ref = dam_interval_of(v, NREF);
    printf("  %s: point %.4g s; carried %.4g to %.4g; simulated draws %.4g "
           "to %.4g\n",
           name, r->step, a.step.lo, a.step.hi, ref.lo, ref.hi);
    double m = 0.0, ss = 0.0;
    for (int k = 0; k < NREF; k++)
        m += log(v[k]) / NREF;
    for (int k = 0; k < NREF; k++)
        ss += (log(v[k]) - m) * (log(v[k]) - m) / (NREF - 1);
    double tol = 4.0 * sqrt(2.0) * sqrt(ss) * sqrt(0.05 * 0.95 / NREF) /
                     0.1031 + 0.02;
    printf("  %s: tolerance %.1f %% of each end\n", name, tol * 100.0);
    dam_check(fabs(log(a.step.lo / ref.lo)) <= tol,
              "%s: 5th percentile carried %.4g against simulated %.4g", name,
              a.step.lo, ref.lo);
    dam_check(fabs(log(a.step.hi / ref.hi)) <= tol,
              "%s: 95th percentile carried %.4g against simulated %.4g",
              name, a.step.hi, ref.hi);
out:
    dam_free(rx);
    dam_free(r);
    dam_free(x);
    dam_free(s);
}

int main(void)
{
    dam_test_start(&sim_cat);
    one("resnet50-dgx-a100.cfg", 200);   /* flagship: loader and GPU near */
    one("iron-law-data-bound.cfg", 200); /* the loader binds */
    one("iron-law-compute-bound.cfg", 200);
    one("llama2-7b-pretrain.cfg", 20);   /* 64 GPUs, data parallel */
    return dam_check_done();
}
