/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_des_tandem.c: validation of the engine on the open tandem line of
 * tests/bench/tandem_model.h at lambda = 1 (Poisson arrivals). Jackson
 * network theory, ignoring the finite buffer, gives loader M/M/4 (a = 1):
 * 1 + C(4,1)/3 = 1.006803, transfer M/M/1 0.2/(1-0.2) = 0.25, compute
 * M/M/1 0.8/(1-0.8) = 4.0: 5.256803, which rounds to the published
 * reference 5.2568 (blocking at the buffer of 8 before a server at 20 %
 * load is negligible: the buffer holds 8 with probability about 0.2^9).
 * The simulated mean over 20 replications must hold the Jackson value
 * computed here from the stations' parameters (not the literal) inside
 * its Student interval at level 1 - 1e-4: a false alarm once in 10,000
 * seed bases (the replications' means are independent and near normal);
 * its 95 % half-width must be under 0.1 so the check has power. Seeds go
 * through dam_test_seed (DAM_TEST_SEED_BASE). Same seed, same answer.
 * The hand-written program the benchmark compares the engine with
 * (tests/bench/tandem_hand.h) must hold the same value the same way, so
 * the comparison is between two correct simulations of one model. Run on
 * the engine's event list instead of its own heap (the benchmark's third
 * run), it must give the same jobs in the same order, so the same mean
 * to the last bit: the engine's list runs events in time order as the
 * heap does.
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_errno.h>

#include "../bench/tandem_hand.h"
#include "../bench/tandem_model.h"
#include "check.h"
#include "solver/stats.h"

/* One replication of the tandem line (the model, or the hand-written
 * simulator when hand is set): its mean sojourn; *done gets the jobs
 * completed. */
static double replication(int hand, uint64_t jobs, uint64_t seed,
                          uint64_t warm, uint64_t *done)
{
    double mean;
    struct tandem_hand h;
    struct tandem tm;
    if (hand) {
        tandem_hand_init(&h, jobs, 1.0, seed, warm);
        tandem_hand_run(&h);
        mean = tandem_hand_mean_sojourn(&h);
        *done = h.n_done;
        tandem_hand_free(&h);
    } else {
        tandem_init(&tm, jobs, 1.0, seed, warm);
        tandem_run(&tm);
        mean = tandem_mean_sojourn(&tm);
        *done = tm.n_done;
        tandem_free(&tm);
    }
    return mean;
}

int main(void)
{
    gsl_set_error_handler_off();
    enum { REPS = 20 };
    const uint64_t jobs = 100000, warm = 2000;
    static const char *const who[2] = {"", "hand-written: "};
    dam_stat stat[2];
    double first = 0.0; /* the model's replication 0 */
    for (int hand = 0; hand < 2; hand++) {
        double means[REPS];
        for (int r = 0; r < REPS; r++) {
            uint64_t done = 0;
            means[r] = replication(hand, jobs,
                                   dam_test_seed(1000 + (uint64_t)r), warm,
                                   &done);
            if (r == 0)
                dam_check((long)done == (long)jobs,
                          "%severy job completes: got %ld, want %ld",
                          who[hand], (long)done, (long)jobs);
        }
        if (!hand)
            first = means[0];
        dam_stats_replications(means, REPS, &stat[hand], NULL);
    }
    const dam_stat st = stat[0], hs = stat[1];
    /* Jackson: each station an independent M/M/c at lambda = 1; sojourn
     * C(c, a)/(c mu - lambda) + 1/mu with a = lambda/mu. */
    const double lambda = 1.0, mu[3] = {1.0, 5.0, 1.25};
    const int c[3] = {4, 1, 1};
    double jackson = 0.0;
    for (int i = 0; i < 3; i++)
        jackson += dam_test_erlang_c(c[i], lambda / mu[i]) /
                       (c[i] * mu[i] - lambda) +
                   1.0 / mu[i];
    double half = dam_test_t(1e-4, REPS - 1) * st.sd / sqrt(REPS);
    dam_check(fabs(st.mean - jackson) <= half,
              "tandem lambda=1: mean sojourn %.4f +- %.4f (level 1 - 1e-4; 20 "
              "reps x %llu jobs) holds Jackson's %.6f",
              st.mean, half, (unsigned long long)jobs, jackson);
    double hhalf = dam_test_t(1e-4, REPS - 1) * hs.sd / sqrt(REPS);
    dam_check(fabs(hs.mean - jackson) <= hhalf,
              "hand-written tandem: mean sojourn %.4f +- %.4f holds "
              "Jackson's %.6f", hs.mean, hhalf, jackson);
    dam_check(st.ci95 < 0.1, "the interval is tight enough to mean something "
              "(half-width %.4f)", st.ci95);

    /* The hand-written logic on the engine's event list: the same run. */
    struct tandem_hand h;
    tandem_hand_init(&h, jobs, 1.0, dam_test_seed(1000), warm);
    tandem_hand_run(&h);
    double own = tandem_hand_mean_sojourn(&h);
    uint64_t own_events = h.events;
    tandem_hand_free(&h);
    tandem_hand_init(&h, jobs, 1.0, dam_test_seed(1000), warm);
    tandem_hand_run_on_engine(&h);
    dam_check(tandem_hand_mean_sojourn(&h) == own &&
                  h.events == own_events && h.n_done == jobs,
              "the hand-written line on the engine's event list runs as on "
              "its own heap: mean sojourn %.17g and %.17g, %llu and %llu "
              "events", tandem_hand_mean_sojourn(&h), own,
              (unsigned long long)h.events, (unsigned long long)own_events);
    tandem_hand_free(&h);

    /* Determinism: rerun replication 0. */
    uint64_t done = 0;
    dam_check(replication(0, jobs, dam_test_seed(1000), warm, &done) ==
                  first,
              "same seed gives an identical mean sojourn");
    return dam_check_done();
}
