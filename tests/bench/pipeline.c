/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pipeline.c: benchmark of the parallel-layout simulation (issue 12):
 * a default run (the scenario's steps and replications) of
 * scenarios/llama3-405b-16k-h100.cfg (Llama 3 405B, 16,384 H100s, tp 8 x
 * pp 16 x dp 128; deterministic compute, so one replica stands for the
 * 128), the same model and micro-batches on 8 GPUs (tp 2 x pp 2 x dp 2),
 * and, for information, both with 1 % compute jitter per micro-batch
 * (every data-parallel replica simulated: 2,048 stage-replicas at 16,384
 * GPUs) and the 1,024-GPU case (tp 8 x pp 16 x dp 8). Usage: pipeline.
 *
 * What is timed: loading the scenario, the analytic solve and the
 * simulation, as `damsim run` does them (the report's text is not), each
 * case in a child process of its own so that its peak resident memory
 * (getrusage ru_maxrss) and CPU time are its own. Events per CPU second:
 * the simulation's events over the CPU time of dam_sim_training alone,
 * the smaller machines run for more steps (8 GPUs: 1,000, 1,024 GPUs: 40)
 * so that setup does not dominate.
 *
 * What is claimed, printed with its verdict: at 16,384 GPUs the default
 * run takes at most 10 s of CPU on one core and at most 1 GB of peak
 * memory, and its events per second are within 2x of the 8-GPU case's
 * (the work per event does not grow with the machine: links stay in their
 * fast modes, no per-GPU state beyond the stage-replicas simulated). With
 * jitter the same three figures are printed, not claimed: thousands of
 * entities make the event list deeper and colder, which costs per event.
 * Exit status 0, 1 when a run fails, 3 when a claim fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

#include "bench_util.h"

struct meas {
    int ok;
    double wall, cpu; /* s */
    double events;
    double step;      /* simulated step, s */
    double sim_cpu;   /* CPU of dam_sim_training alone, s */
    double rss;       /* MiB */
    int entities;
};

/* A case: the 16k scenario, or it resized (nodes, tp, pp, dp, batch). */
static struct meas one(int nodes, int tp, int pp, int dp, int global,
                       int steps, double cv)
{
    static dam_catalog cat;
    static dam_scenario s;
    static dam_result r;
    struct meas m;
    memset(&m, 0, sizeof m);
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/llama3-405b-16k-h100.cfg",
             DAM_SOURCE_DIR);
    double t0 = bench_wall(), c0 = bench_cpu();
    dam_diag d;
    dam_diag_init(&d);
    bench_load_catalogs(&cat, &d);
    int rc = dam_scenario_load(&s, path, NULL, &cat, &d);
    dam_diag_free(&d);
    if (rc != DAM_OK) {
        fprintf(stderr, "pipeline: %s does not load\n", path);
        return m;
    }
    s.workload.compute_cv = cv;
    if (nodes > 0) {
        dam_layout *l = &s.layout;
        s.machine.nodes = nodes;
        l->tp = tp;
        l->pp = pp;
        l->dp = dp;
        l->first_layers = pp == 2 ? 63 : 7;
        l->last_layers = pp == 2 ? 63 : 7;
        l->micro_batches = global / (dp * l->micro_batch);
        s.machine.net.domain = s.machine.gpus_per_node;
    }
    rc = bench_simulate("pipeline", &s, steps, 0, &r, &m.sim_cpu);
    m.wall = bench_wall() - t0;
    m.cpu = bench_cpu() - c0;
    if (rc != DAM_OK)
        return m;
    m.ok = 1;
    m.events = r.events;
    m.step = r.step;
    m.rss = bench_peak_rss_mib();
    dam_catalog_free(&cat);
    return m;
}

/* The arguments of one case, for a child process. */
struct args {
    int nodes, tp, pp, dp, global, steps;
    double cv;
};

static void run_one(const void *arg, void *out)
{
    const struct args *a = arg;
    *(struct meas *)out =
        one(a->nodes, a->tp, a->pp, a->dp, a->global, a->steps, a->cv);
}

/* One case in a child process, so that its memory and CPU are its own. */
static struct meas child(int nodes, int tp, int pp, int dp, int global,
                         int steps, double cv)
{
    struct meas m;
    memset(&m, 0, sizeof m);
    struct args a = {nodes, tp, pp, dp, global, steps, cv};
    if (!bench_in_child(run_one, &a, &m, sizeof m))
        m.ok = 0;
    return m;
}

static void show(int gpus, const struct meas *m)
{
    printf("%6d GPUs: %.3f s CPU (%.3f s wall), peak RSS %.1f MiB, %.0f "
           "events, %.2f M events per CPU second of simulation; step %.4f "
           "s\n",
           gpus, m->cpu, m->wall, m->rss, m->events,
           m->events / m->sim_cpu / 1e6, m->step);
}

int main(void)
{
    gsl_set_error_handler_off();
    printf("pipeline simulation, Llama 3 405B, 16 micro-batches per "
           "pipeline, a default run (load + analytic + simulation)\n");
    /* the default runs (the scenario's steps; 8 GPUs: more, so that the
     * simulation and not its setup is timed) */
    struct meas big = child(0, 0, 0, 0, 0, 0, 0.0);
    /* events per second: long enough runs at both sizes */
    struct meas bigl = child(0, 0, 0, 0, 0, 2000, 0.0);
    struct meas small = child(1, 2, 2, 2, 32, 5000, 0.0);
    /* with jitter: every replica simulated */
    struct meas bigj = child(0, 0, 0, 0, 0, 0, 0.01);
    struct meas midj = child(128, 8, 16, 8, 128, 40, 0.01);
    struct meas smallj = child(1, 2, 2, 2, 32, 2000, 0.01);
    if (!big.ok || !bigl.ok || !small.ok || !bigj.ok || !midj.ok ||
        !smallj.ok) {
        printf("a run failed\n");
        return 1;
    }
    printf("deterministic compute (one replica for all):\n");
    show(16384, &big);
    printf("  (2,000 steps)");
    show(16384, &bigl);
    printf("  (5,000 steps)");
    show(8, &small);
    printf("1 %% compute jitter (every replica simulated), not claimed:\n");
    show(16384, &bigj);
    show(1024, &midj);
    show(8, &smallj);
    printf("       events/s at 16,384 over 8 GPUs with jitter: %.2f\n",
           (bigj.events / bigj.sim_cpu) / (smallj.events / smallj.sim_cpu));
    double r16 = bigl.events / bigl.sim_cpu,
           r8 = small.events / small.sim_cpu;
    int t_ok = big.cpu <= 10.0, m_ok = big.rss <= 1024.0;
    int e_ok = r16 >= 0.5 * r8;
    printf("claim: 16,384 GPUs in <= 10 s of CPU: %.2f s: %s\n", big.cpu,
           t_ok ? "holds" : "FAILS");
    printf("claim: peak RSS <= 1 GB: %.1f MiB: %s\n", big.rss,
           m_ok ? "holds" : "FAILS");
    printf("claim: events/s at 16,384 GPUs within 2x of 8 GPUs: ratio %.2f: "
           "%s\n",
           r16 / r8, e_ok ? "holds" : "FAILS");
    return t_ok && m_ok && e_ok ? 0 : 3;
}
