/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tandem.c: benchmark of the engine on the open tandem line of
 * tandem_model.h. Usage: tandem N [lambda] [seed]. Prints wall-clock jobs
 * and events per second, the mean sojourn and the simulated throughput.
 * No pass/fail: the target is >= 5 million jobs/s on one core.
 */
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "bench_util.h"
#include "tandem_model.h"

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc < 2) {
        fprintf(stderr, "usage: tandem N [lambda] [seed]\n");
        return 2;
    }
    uint64_t n = strtoull(argv[1], NULL, 10);
    double lambda = argc > 2 ? strtod(argv[2], NULL) : 1.0;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    struct tandem tm;
    tandem_init(&tm, n, lambda, seed, 0);
    double t0 = bench_wall();
    tandem_run(&tm);
    double dt = bench_wall() - t0;
    uint64_t ev = dam_des_events(tm.des);
    printf("tandem: jobs %llu, lambda %g, seed %llu\n", (unsigned long long)n,
           lambda, (unsigned long long)seed);
    printf("wall %.3f s, %.3f M jobs/s, %.3f M events/s (%.2f events/job)\n",
           dt, (double)tm.n_done / dt / 1e6, (double)ev / dt / 1e6,
           (double)ev / (double)tm.n_done);
    printf("mean sojourn %.4f s, simulated throughput %.4f jobs/s "
           "(%llu done by t = %.1f s)\n",
           tandem_mean_sojourn(&tm), (double)tm.n_done / tm.t_end,
           (unsigned long long)tm.n_done, tm.t_end);
    tandem_free(&tm);
    return 0;
}
