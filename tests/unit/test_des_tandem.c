/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_des_tandem.c: validation of the engine on the open tandem line of
 * tests/bench/tandem_model.h at lambda = 1 (Poisson arrivals). Jackson
 * network theory, ignoring the finite buffer, gives loader M/M/4 (a = 1):
 * 1 + C(4,1)/3 = 1.006803, transfer M/M/1 0.2/(1-0.2) = 0.25, compute
 * M/M/1 0.8/(1-0.8) = 4.0: 5.256803, which rounds to the published
 * reference 5.2568 (blocking at the buffer of 8 before a server at 20 %
 * load is negligible). The simulated mean over replications must hold
 * 5.2568 inside its 95 % confidence interval. Same seed, same answer.
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_errno.h>

#include "../bench/tandem_model.h"
#include "check.h"
#include "solver/stats.h"

/* Erlang C: probability of waiting in M/M/c with offered load a. */
static double erlang_c(int c, double a)
{
    double term = 1.0, sum = 0.0;
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);
    return top / (sum + top);
}

int main(void)
{
    gsl_set_error_handler_off();
    enum { REPS = 20 };
    const uint64_t jobs = 100000, warm = 2000;
    double means[REPS];
    struct tandem tm;
    for (int r = 0; r < REPS; r++) {
        tandem_init(&tm, jobs, 1.0, 1000 + (uint64_t)r, warm);
        tandem_run(&tm);
        means[r] = tandem_mean_sojourn(&tm);
        if (r == 0)
            dam_check_int((long)tm.n_done, (long)jobs, "every job completes");
        tandem_free(&tm);
    }
    dam_stat st;
    dam_stats_replications(means, REPS, &st, NULL);
    double jackson = 1.0 + erlang_c(4, 1.0) / 3.0 + 0.25 + 4.0;
    dam_check_rel(jackson, 5.2568, 1e-4, "Jackson sum matches the reference");
    dam_check(fabs(st.mean - 5.2568) <= st.ci95,
              "tandem lambda=1: mean sojourn %.4f +- %.4f (20 reps x %llu "
              "jobs) holds the reference 5.2568",
              st.mean, st.ci95, (unsigned long long)jobs);
    dam_check(st.ci95 < 0.1, "the interval is tight enough to mean something "
              "(half-width %.4f)", st.ci95);

    /* Determinism: rerun replication 0. */
    tandem_init(&tm, jobs, 1.0, 1000, warm);
    tandem_run(&tm);
    dam_check(tandem_mean_sojourn(&tm) == means[0],
              "same seed gives an identical mean sojourn");
    tandem_free(&tm);
    return dam_check_done();
}
