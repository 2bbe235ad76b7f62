/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tandem.c: benchmark of the engine on the open tandem line of
 * tandem_model.h, against the same line written by hand for this model
 * alone (tandem_hand.h), run in the same process. Usage: tandem N [lambda]
 * [seed] [rounds]. Prints CPU-time jobs and events per second of each, the
 * mean sojourn and simulated throughput of each, and the ratio engine /
 * hand-written against the goal (>= 1.0x, issue 26). A third run, the
 * hand-written logic on the engine's event list, splits the engine's
 * extra time per job into its event list's share and the rest (queues,
 * continuations, generic stations); the draws' share is timed apart, and
 * the ratio of the two hand-written runs bounds what the engine can reach
 * on its event list.
 * Each side runs rounds times (default 3), alternating, and the best
 * round of each counts, so a burst of load on a shared machine hits
 * neither side alone. No pass/fail.
 */
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "bench_util.h"
#include "tandem_hand.h"
#include "tandem_model.h"

/* Where the difference goes: the cost of one job's four exponential
 * draws on each side (the engine's MT19937 streams through dam_dist,
 * which every simulation's outputs depend on, against xoshiro256+), timed
 * here over as many draws as the runs made. */
static void draw_costs(uint64_t ne, double te, uint64_t nh, double th,
                       double tl)
{
    uint64_t n = 4 * ne;
    gsl_rng *r = dam_rng_create(1, 1);
    dam_dist d = {DAM_DIST_EXPONENTIAL, 1.0, 1.0, NULL, 0};
    struct th_rng x;
    th_seed(&x, 1);
    double sink = 0.0, t0 = bench_cpu();
    for (uint64_t i = 0; i < n; i++)
        sink += dam_dist_sample(&d, r);
    double tm = bench_cpu() - t0;
    t0 = bench_cpu();
    for (uint64_t i = 0; i < n; i++)
        sink += th_exp(&x, 1.0);
    double tx = bench_cpu() - t0;
    dam_rng_free(r);
    volatile double keep = sink; /* the loops are not optimised away */
    (void)keep;
    double je = 1e9 * te / (double)ne, jh = 1e9 * th / (double)nh;
    double jl = 1e9 * tl / (double)nh;
    double dm = 1e9 * tm / (double)ne, dx = 1e9 * tx / (double)ne;
    printf("  per job: engine %.0f ns, of which its 4 draws (MT19937) "
           "%.0f ns; hand-written %.0f ns, of which its 4 draws "
           "(xoshiro256+) %.0f ns\n", je, dm, jh, dx);
    printf("  the engine's extra %.0f ns a job: draws %.0f, event list "
           "%.0f (the hand-written logic on it: %.0f ns), queues, "
           "continuations and stations %.0f\n", je - jh, dm - dx, jl - jh,
           jl, je - jl - (dm - dx));
    /* The engine's time per job is the hand-written logic's on its event
     * list plus what its queues, continuations and stations add plus its
     * draws' excess over xoshiro256+: with both 0 it would run at
     * the speed of the hand-written logic on its event list, so that
     * ratio bounds the engine's from above unless the event list gets
     * faster. */
    printf("  ceiling on this event list: %.2fx (engine / hand-written "
           "with its queues, continuations and stations free and its "
           "draws as cheap as xoshiro256+)\n", jh / jl);
}

/* One round of the hand-written line, on its own heap or (on_engine) on
 * the engine's event list: its CPU time into *best when less; returns
 * its mean sojourn. */
static double hand_round(struct tandem_hand *h, uint64_t n, double lambda,
                         uint64_t seed, int on_engine, double *best)
{
    tandem_hand_init(h, n, lambda, seed, 0);
    double t0 = bench_cpu();
    if (on_engine)
        tandem_hand_run_on_engine(h);
    else
        tandem_hand_run(h);
    double dt = bench_cpu() - t0;
    if (dt < *best)
        *best = dt;
    return tandem_hand_mean_sojourn(h);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc < 2) {
        fprintf(stderr, "usage: tandem N [lambda] [seed] [rounds]\n");
        return 2;
    }
    uint64_t n = strtoull(argv[1], NULL, 10);
    double lambda = argc > 2 ? strtod(argv[2], NULL) : 1.0;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    int rounds = argc > 4 ? atoi(argv[4]) : 3;
    if (rounds < 1)
        rounds = 1;
    printf("tandem: jobs %llu, lambda %g, seed %llu, best of %d rounds "
           "(CPU time)\n", (unsigned long long)n, lambda,
           (unsigned long long)seed, rounds);
    double best_e = HUGE_VAL, best_h = HUGE_VAL, best_l = HUGE_VAL;
    double sojourn_l = 0.0;
    struct tandem tm;
    struct tandem_hand *h = malloc(sizeof *h);
    for (int r = 0; r < rounds; r++) {
        tandem_init(&tm, n, lambda, seed, 0);
        double t0 = bench_cpu();
        tandem_run(&tm);
        double dt = bench_cpu() - t0;
        if (dt < best_e)
            best_e = dt;
        if (r + 1 < rounds)
            tandem_free(&tm);
        if (lambda > 0.0) {
            sojourn_l = hand_round(h, n, lambda, seed, 1, &best_l);
            tandem_hand_free(h);
            hand_round(h, n, lambda, seed, 0, &best_h);
            if (r + 1 < rounds)
                tandem_hand_free(h);
        }
    }
    uint64_t ev = dam_des_events(tm.des);
    printf("engine:       %.3f s, %.3f M jobs/s, %.3f M events/s "
           "(%.2f events/job)\n", best_e, (double)tm.n_done / best_e / 1e6,
           (double)ev / best_e / 1e6, (double)ev / (double)tm.n_done);
    printf("  mean sojourn %.4f s, simulated throughput %.4f jobs/s "
           "(%llu done by t = %.1f s)\n",
           tandem_mean_sojourn(&tm), (double)tm.n_done / tm.t_end,
           (unsigned long long)tm.n_done, tm.t_end);
    if (lambda > 0.0) {
        printf("hand-written: %.3f s, %.3f M jobs/s, %.3f M events/s "
               "(%.2f events/job)\n", best_h,
               (double)h->n_done / best_h / 1e6,
               (double)h->events / best_h / 1e6,
               (double)h->events / (double)h->n_done);
        printf("  mean sojourn %.4f s, simulated throughput %.4f jobs/s "
               "(%llu done by t = %.1f s)\n",
               tandem_hand_mean_sojourn(h), (double)h->n_done / h->t_end,
               (unsigned long long)h->n_done, h->t_end);
        double ratio = ((double)tm.n_done / best_e) /
                       ((double)h->n_done / best_h);
        printf("engine / hand-written jobs/s: %.2fx (goal >= 1.00x): %s\n",
               ratio, ratio >= 1.0 ? "met" : "NOT met");
        printf("hand-written on the engine's event list: %.3f s, %.3f M "
               "jobs/s (mean sojourn %s)\n", best_l,
               (double)h->n_done / best_l / 1e6,
               sojourn_l == tandem_hand_mean_sojourn(h) ? "the same"
                                                        : "DIFFERS");
        draw_costs(tm.n_done, best_e, h->n_done, best_h, best_l);
        tandem_hand_free(h);
    } else {
        printf("hand-written: runs lambda > 0 only\n");
    }
    free(h);
    tandem_free(&tm);
    return 0;
}
