/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * intervals.c: interval draws and distinct points per CPU second on the
 * flagship (resnet50-dgx-a100.cfg: decode_ms uncertain, the A100's and
 * the framework's calibrated constants, the model's two errors), each
 * beside its goal (issue 26).
 *
 * What is timed (CPU seconds of this process, one thread): the 90 %
 * intervals of P points (dam_uncertainty_intervals, 400 draws each, each
 * draw an analytic solve), the points being the scenario at another batch
 * size and loader size, as a sweep's would be:
 *  - distinct: the batch size changes from every point to the next, so no
 *    point reuses any draw's graph cost: every draw is a whole solve;
 *  - a grid with the batch size varying slowest (the sweep): the
 *    points at one batch size reuse each draw's graph cost (counted and
 *    printed apart as cache hits, not as solves);
 *  - intervals off: one analytic solve per distinct point.
 * Reused set-up is printed too: the draw plan (each drawn quantity's value
 * in every draw) is built once and reused by every point. Each figure is
 * the best of ROUNDS rounds (3; the rounds alternate between the three),
 * so a burst of another tenant's load on a shared machine does not set
 * it (as tandem.c).
 *
 * usage: build/bench/intervals [POINTS]   (default 2000)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/uncertainty.h"

#include "bench_util.h"

#define DRAWS DAM_UNCERTAINTY_SAMPLES
#define ROUNDS 3

/* Point i into s (a copy of the base): distinct (batch fastest) or a
 * grid (batch slowest, 50 loader sizes a batch size); the two keys are
 * written in place, as a sweep patches them. */
static void point(dam_scenario *s, long i, int grid)
{
    long b = grid ? 1 + i / 50 : 1 + i % 256;
    long lw = grid ? 1 + i % 50 : 1 + i / 256;
    s->workload.batch_size = (int)b;
    s->pipeline.loader_workers = (int)lw;
}

/* Intervals of P points on kept, memoized draws; returns CPU seconds. */
static double run_intervals(const dam_scenario *base, dam_scenario *s,
                            long npts, int grid, unsigned long *hits,
                            long *builds, long *reuses, double *check)
{
    dam_draws *d = dam_draws_create(DRAWS, (unsigned long)base->seed);
    *s = *base;
    dam_draws_memoize(d);
    dam_uncertainty *u = malloc(sizeof *u);
    dam_error e;
    *check = 0.0;
    double t0 = bench_cpu();
    for (long i = 0; i < npts; i++) {
        point(s, i, grid);
        if (dam_uncertainty_intervals(d, s, u, &e) == DAM_OK)
            *check += u->step.hi - u->step.lo;
    }
    double cpu = bench_cpu() - t0;
    *hits = dam_draws_memo_hits(d);
    dam_draws_plan_counts(d, builds, reuses);
    free(u);
    dam_draws_free(d);
    return cpu;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    long npts = bench_count(argc, argv, 1, 2000, 2000);
    static dam_catalog cat;
    dam_scenario *base = malloc(sizeof *base), *s = malloc(sizeof *s);
    dam_diag dg;
    dam_diag_init(&dg);
    bench_load_catalogs(&cat, &dg);
    int rc = dam_scenario_load(base, "resnet50-dgx-a100.cfg",
                               dam_embedded_find("resnet50-dgx-a100.cfg")
                                   ->text,
                               &cat, &dg);
    dam_diag_free(&dg);
    if (rc != DAM_OK) {
        fprintf(stderr, "intervals: the flagship does not load\n");
        return 1;
    }
    unsigned long hits = 0, ghits = 0;
    long builds = 0, reuses = 0, gb, gr;
    double chk, cpu = HUGE_VAL, gcpu = HUGE_VAL, ocpu = HUGE_VAL;
    long noff = npts * 100;
    dam_result *r = malloc(sizeof *r);
    double sum = 0.0;
    for (int round = 0; round < ROUNDS; round++) {
        double c = run_intervals(base, s, npts, 0, &hits, &builds, &reuses,
                                 &chk);
        cpu = c < cpu ? c : cpu;
        c = run_intervals(base, s, npts, 1, &ghits, &gb, &gr, &chk);
        gcpu = c < gcpu ? c : gcpu;
        *s = *base;
        double t0 = bench_cpu();
        for (long i = 0; i < noff; i++) {
            point(s, i, 0);
            dam_analytic_solve(s, r);
            sum += r->step;
        }
        c = bench_cpu() - t0;
        ocpu = c < ocpu ? c : ocpu;
    }
    /* the counts: each round's (a round starts afresh) */
    printf("distinct points with intervals: %.0f per CPU second (goal >= "
           "25000); %ld points, %.3f CPU-s (best of %d rounds), graph-cost "
           "cache hits %lu, draw plan built %ld and reused %ld times\n",
           npts / cpu, npts, cpu, ROUNDS, hits, builds, reuses);
    printf("interval draws (each a whole analytic solve): %.0f per CPU "
           "second (goal >= 10000000)\n",
           (double)npts * DRAWS / cpu);
    printf("grid, batch size slowest (50 loader sizes each): %.0f points "
           "per CPU second with intervals; %ld points, %.3f CPU-s; graph-"
           "cost cache hits %lu of %ld draws (apart: not solves)\n",
           npts / gcpu, npts, gcpu, ghits, npts * DRAWS);
    printf("distinct points, intervals off: %.0f per CPU second (goal >= "
           "1000000); %ld points, %.3f CPU-s, no cache\n",
           noff / ocpu, noff, ocpu);
    /* the sums keep the work from being optimised away */
    if (!(sum > 0.0) || !(chk >= 0.0))
        printf("(unexpected figures: %g %g)\n", sum, chk);
    free(r);
    free(s);
    free(base);
    dam_catalog_free(&cat);
    return 0;
}
