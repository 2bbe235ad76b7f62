/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_util.h: what the benchmarks in tests/bench share: clocks, peak
 * resident memory, the built-in catalogs, and one case run in a child
 * process of its own.
 *
 * Design note: header-only (static inline functions), since each benchmark
 * is one executable built from one .c file (tests/CMakeLists.txt makes
 * one of each .c file in tests/bench). These helpers only measure and
 * load; each benchmark prints its own figures and verdicts.
 */
#ifndef DAM_BENCH_UTIL_H
#define DAM_BENCH_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

/* Seconds on clock id (CLOCK_MONOTONIC: wall time; CLOCK_PROCESS_CPUTIME_ID:
 * this process's CPU time), from an arbitrary origin. */
static inline double bench_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wall-clock seconds (monotonic), from an arbitrary origin. */
static inline double bench_wall(void)
{
    return bench_clock(CLOCK_MONOTONIC);
}

/* The count given as argv[i] (dflt when absent); below 1 it is floor. */
static inline long bench_count(int argc, char **argv, int i, long dflt,
                               long floor)
{
    long v = argc > i ? atol(argv[i]) : dflt;
    return v < 1 ? floor : v;
}

/* CPU seconds of this process: for single-threaded work on an idle
 * machine its wall time; on a shared one it leaves out the time other
 * processes held the CPU. */
static inline double bench_cpu(void)
{
    return bench_clock(CLOCK_PROCESS_CPUTIME_ID);
}

/* Solve s analytically, then simulate it for steps measured steps x
 * reps replications (0: the scenario's) after the default warm-up, into
 * r; *cpu gets the simulation's CPU seconds. An error is printed after
 * who. Returns the simulator's code. */
static inline int bench_simulate(const char *who, const dam_scenario *s,
                                 int steps, int reps, dam_result *r,
                                 double *cpu)
{
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.warmup = -1;
    o.steps = steps;
    o.replications = reps;
    dam_error e;
    dam_analytic_solve(s, r);
    double t0 = bench_cpu();
    int rc = dam_sim_training(s, &o, r, NULL, &e);
    *cpu = bench_cpu() - t0;
    if (rc != DAM_OK)
        fprintf(stderr, "%s: %s\n", who, e.msg);
    return rc;
}

/* Peak resident memory of this process so far, MiB (getrusage ru_maxrss,
 * which Linux gives in KiB). */
static inline double bench_peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* Load the built-in GPU and model catalogs (embedded gpus.cfg and
 * models.cfg) into cat; problems go into d. */
static inline void bench_load_catalogs(dam_catalog *cat, dam_diag *d)
{
    dam_catalog_load_gpus(cat, "gpus.cfg",
                          dam_embedded_find("gpus.cfg")->text, d);
    dam_catalog_load_models(cat, "models.cfg",
                            dam_embedded_find("models.cfg")->text, d);
}

/* Run fn(arg, out) in a child process, so that its peak memory and CPU
 * time are its own, and copy the size bytes it writes to out back into
 * out. stdout is flushed first (the child would print it again). Returns
 * 1 when the child sent the whole result and exited 0; else 0 (out may
 * then hold part of a result, or what it held before). */
static inline int bench_in_child(void (*fn)(const void *arg, void *out),
                                 const void *arg, void *out, size_t size)
{
    int fd[2];
    fflush(stdout);
    if (pipe(fd) != 0)
        return 0;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return 0;
    }
    if (pid == 0) {
        close(fd[0]);
        fn(arg, out);
        ssize_t n = write(fd[1], out, size);
        _exit(n == (ssize_t)size ? 0 : 1);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], out, size);
    close(fd[0]);
    int st = 0;
    return waitpid(pid, &st, 0) >= 0 && n == (ssize_t)size &&
           WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

#endif
