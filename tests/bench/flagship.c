/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flagship.c: benchmark of the training simulation on the flagship
 * scenario (ResNet-50, 8 loader workers per GPU, stochastic decode) at 1
 * GPU, 8 GPUs (one DGX A100) and 1,024 GPUs (128 nodes x 8). Usage:
 * flagship [steps] [replications].
 *
 * What is timed: only dam_sim_training (loading the catalogs and the
 * scenario and the analytic solve are outside the clock), in CPU seconds
 * of the process (CLOCK_PROCESS_CPUTIME_ID), so that other work on a
 * shared machine does not inflate it. That call still
 * builds its entities (one random stream per loader worker and GPU: 8,192
 * workers at 1,024 GPUs) before the first event, so each case runs at
 * `steps` and at 10 x `steps`, and the simulation's own cost per step is
 * the difference over the extra steps, (t(10s) - t(s)) / 9s; the setup is
 * what remains, t(s) - s x that. Events per second likewise.
 *
 * What is claimed, and printed as a ratio with its verdict: the
 * simulation keeps nothing per step (streaming statistics), so peak
 * resident memory (getrusage ru_maxrss, each run in a child process of
 * its own) at 10x the steps over peak memory at 1x is 1 (claim: it grows
 * by at most 5 % or 1 MiB, whichever is more: a few pages and histogram
 * blocks of 8 KiB may be touched late).
 * Exit status 0, or 1 when a run fails, 3 when the memory claim fails.
 */
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

#include "bench_util.h"

/* What one run measured (sent from the child through a pipe). */
struct meas {
    int ok;        /* 1 when the simulation ran */
    double cpu;    /* CPU seconds in dam_sim_training */
    double events; /* events simulated */
    double step;   /* simulated step, s */
    double ci95;   /* its 95 % half-width, s */
    double rss;    /* peak resident memory of the process, MiB */
};

/* One run, in this process. */
static struct meas one(int gpn, int nodes, int steps, int reps)
{
    static dam_catalog cat;
    static dam_scenario s;
    static dam_result r;
    struct meas m = {0, 0, 0, 0, 0, 0};
    dam_diag d;
    dam_diag_init(&d);
    bench_load_catalogs(&cat, &d);
    int rc = dam_scenario_load(&s, "resnet50-dgx-a100.cfg",
                               dam_embedded_find("resnet50-dgx-a100.cfg")
                                   ->text,
                               &cat, &d);
    dam_diag_free(&d);
    if (rc != DAM_OK) {
        fprintf(stderr, "flagship: the scenario does not load\n");
        return m;
    }
    s.machine.gpus_per_node = gpn;
    s.machine.nodes = nodes;
    if (s.machine.gpus_per_pcie_link > gpn)
        s.machine.gpus_per_pcie_link = gpn;
    if (bench_simulate("flagship", &s, steps, reps, &r, &m.cpu) != DAM_OK)
        return m;
    m.ok = 1;
    m.events = r.events;
    m.step = r.step;
    m.ci95 = r.sim_step.ci95;
    m.rss = bench_peak_rss_mib();
    dam_catalog_free(&cat);
    return m;
}

/* The arguments of one run, for a child process. */
struct args {
    int gpn, nodes, steps, reps;
};

static void run_one(const void *arg, void *out)
{
    const struct args *a = arg;
    *(struct meas *)out = one(a->gpn, a->nodes, a->steps, a->reps);
}

/* One run in a child process, so that its peak memory is its own. */
static struct meas child(int gpn, int nodes, int steps, int reps)
{
    struct meas m = {0, 0, 0, 0, 0, 0};
    struct args a = {gpn, nodes, steps, reps};
    if (!bench_in_child(run_one, &a, &m, sizeof m))
        m.ok = 0;
    return m;
}

/* One case at steps and 10 x steps; prints two lines; 0, 1 or 3. */
static int bench(int gpn, int nodes, int steps, int reps)
{
    struct meas a = child(gpn, nodes, steps, reps);
    struct meas b = child(gpn, nodes, 10 * steps, reps);
    if (!a.ok || !b.ok) {
        printf("%5d GPUs: a run failed\n", gpn * nodes);
        return 1;
    }
    double extra = 9.0 * steps * reps;
    double dt = b.cpu - a.cpu;
    char ci[64];
    if (reps > 1)
        snprintf(ci, sizeof ci, "+- %.4f s (95 %%)", b.ci95);
    else
        snprintf(ci, sizeof ci, "(one replication: no interval)");
    double mem = b.rss / a.rss;
    int holds = b.rss - a.rss <= (0.05 * a.rss > 1.0 ? 0.05 * a.rss : 1.0);
    if (dt < 0.05) {
        /* the difference drowns in timer and scheduling noise */
        printf("%5d GPUs: %d and %d steps x %d reps took %.3f and %.3f s: "
               "too short to separate the simulation from its setup (give "
               "more steps); %.0f and %.0f events; step %.4f s %s\n",
               gpn * nodes, steps, 10 * steps, reps, a.cpu, b.cpu, a.events,
               b.events, b.step, ci);
    } else {
        double per_step = dt / extra;
        printf("%5d GPUs: %.3f ms per simulated step (from %d to %d steps "
               "x %d reps: %.3f -> %.3f s), %.2f M events/s, setup %.3f s; "
               "step %.4f s %s\n",
               gpn * nodes, per_step * 1e3, steps, 10 * steps, reps, a.cpu,
               b.cpu, (b.events - a.events) / dt / 1e6,
               a.cpu - per_step * steps * reps, b.step, ci);
    }
    printf("       peak RSS %.1f -> %.1f MiB: ratio %.3f at 10x the steps "
           "(claim: grows by at most 5 %% or 1 MiB: %s)\n",
           a.rss, b.rss, mem, holds ? "holds" : "FAILS");
    return holds ? 0 : 3;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    int steps = argc > 1 ? atoi(argv[1]) : 100;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    if (steps < 1 || reps < 1) {
        fprintf(stderr, "usage: flagship [steps] [replications]\n");
        return 2;
    }
    printf("flagship (ResNet-50, 8 loader workers per GPU, decode cv 0.3); "
           "only dam_sim_training is timed, in CPU seconds\n");
    int bad = 0;
    bad |= bench(1, 1, steps, reps);
    bad |= bench(8, 1, steps, reps);
    bad |= bench(8, 128, steps, reps);
    return bad & 1 ? 1 : bad;
}
