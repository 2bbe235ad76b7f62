/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flagship.c: benchmark of the training simulation on the flagship
 * scenario (ResNet-50, 8 loader workers per GPU, stochastic decode) at 1
 * GPU, 8 GPUs (one DGX A100) and 1,024 GPUs (128 nodes x 8). Usage:
 * flagship [steps] [replications]. Each case runs in a child process so
 * that its peak resident memory (getrusage ru_maxrss) is its own; the
 * 1,024-GPU case runs again with 10x the steps, and its peak memory must
 * not grow (streaming statistics; nothing is kept per step). Prints
 * wall-clock time, events, events per second, simulated step and peak
 * RSS. No pass/fail beyond the exit status of the children.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One case, in this process: prints one line; returns 0 or 1. */
static int one(int gpn, int nodes, int steps, int reps)
{
    static dam_catalog cat;
    static dam_scenario s;
    static dam_result r;
    dam_diag d;
    dam_diag_init(&d);
    dam_catalog_load_gpus(&cat, "gpus.cfg",
                          dam_embedded_find("gpus.cfg")->text, &d);
    dam_catalog_load_models(&cat, "models.cfg",
                            dam_embedded_find("models.cfg")->text, &d);
    int rc = dam_scenario_load(&s, "resnet50-dgx-a100.cfg",
                               dam_embedded_find("resnet50-dgx-a100.cfg")
                                   ->text,
                               &cat, &d);
    dam_diag_free(&d);
    if (rc != DAM_OK) {
        fprintf(stderr, "flagship: the scenario does not load\n");
        return 1;
    }
    s.machine.gpus_per_node = gpn;
    s.machine.nodes = nodes;
    if (s.machine.gpus_per_pcie_link > gpn)
        s.machine.gpus_per_pcie_link = gpn;
    dam_sim_options o = {0};
    o.warmup = -1;
    o.steps = steps;
    o.replications = reps;
    dam_error e;
    dam_analytic_solve(&s, &r);
    double t0 = wall();
    rc = dam_sim_training(&s, &o, &r, NULL, &e);
    double dt = wall() - t0;
    if (rc != DAM_OK) {
        fprintf(stderr, "flagship: %s\n", e.msg);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%5d GPUs %4d steps x %d reps: wall %7.3f s, %10.0f events, "
           "%6.2f M events/s, step %.4f s +- %.4f, peak RSS %7.1f MiB\n",
           gpn * nodes, steps, reps, dt, r.events, r.events / dt / 1e6,
           r.step, r.sim_step.ci95, (double)ru.ru_maxrss / 1024.0);
    fflush(stdout);
    dam_catalog_free(&cat);
    return 0;
}

/* Run one case in a child process. */
static int child(int gpn, int nodes, int steps, int reps)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        _exit(one(gpn, nodes, steps, reps));
    int st = 0;
    if (waitpid(pid, &st, 0) < 0)
        return 1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
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
    printf("flagship (ResNet-50, 8 loader workers per GPU, decode cv 0.3)\n");
    int bad = 0;
    bad |= child(1, 1, steps, reps);
    bad |= child(8, 1, steps, reps);
    bad |= child(8, 128, steps, reps);
    printf("memory against steps (1,024 GPUs, 10x the steps):\n");
    bad |= child(8, 128, 10 * steps, reps);
    return bad;
}
