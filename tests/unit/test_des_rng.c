/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_des_rng.c: random streams and distributions (solver/rng.h) and
 * streaming statistics (solver/stats.h): determinism, independence of
 * streams (common random numbers), sample moments of each distribution,
 * quantiles, and Student's interval over replications.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "check.h"
#include "solver/rng.h"
#include "solver/stats.h"

static void test_streams(void)
{
    gsl_rng *a = dam_rng_create(42, 7), *b = dam_rng_create(42, 7);
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same = same && gsl_rng_get(a) == gsl_rng_get(b);
    dam_check(same, "same seed and stream give the same sequence");

    gsl_rng *c = dam_rng_create(42, 8), *d = dam_rng_create(43, 7);
    dam_rng_reseed(a, 42, 7);
    int diff_stream = 0, diff_seed = 0;
    for (int i = 0; i < 100; i++) {
        unsigned long x = gsl_rng_get(a);
        diff_stream += x != gsl_rng_get(c);
        diff_seed += x != gsl_rng_get(d);
    }
    dam_check(diff_stream > 95, "another stream id gives another sequence");
    dam_check(diff_seed > 95, "another seed gives another sequence");

    /* Common random numbers: stream B's draws do not depend on how many
     * draws stream A made, nor on the order the streams were created. */
    gsl_rng *a1 = dam_rng_create(5, 1), *b1 = dam_rng_create(5, 2);
    gsl_rng *b2 = dam_rng_create(5, 2), *a2 = dam_rng_create(5, 1);
    for (int i = 0; i < 500; i++)
        gsl_rng_get(a1); /* A draws a lot in run 1 only */
    same = 1;
    for (int i = 0; i < 1000; i++)
        same = same && gsl_rng_get(b1) == gsl_rng_get(b2);
    dam_check(same, "drawing from stream A leaves stream B unchanged");
    dam_check(dam_rng_mix(5, 1) != dam_rng_mix(5, 2) &&
                  dam_rng_mix(5, 1) != dam_rng_mix(6, 1),
              "seed mixing separates neighbouring streams");
    dam_rng_free(a);
    dam_rng_free(b);
    dam_rng_free(c);
    dam_rng_free(d);
    dam_rng_free(a1);
    dam_rng_free(a2);
    dam_rng_free(b1);
    dam_rng_free(b2);
    dam_rng_free(NULL);
}

/* Sample moments of n draws, with the standard errors of the sample
 * mean and cv (delta method on the sample's own second to fourth central
 * moments; asymptotically normal). */
struct mom {
    double mean, cv, lo; /* sample mean, coefficient of variation, minimum */
    double se_mean;      /* standard error of mean */
    double se_cv;        /* standard error of cv */
};

static struct mom moments(const dam_dist *dist, gsl_rng *r, int n)
{
    static double x[200000];
    struct mom o = {0, 0, HUGE_VAL, 0, 0};
    for (int i = 0; i < n; i++) {
        x[i] = dam_dist_sample(dist, r);
        o.mean += x[i] / n;
        o.lo = x[i] < o.lo ? x[i] : o.lo;
    }
    double m2 = 0, m3 = 0, m4 = 0;
    for (int i = 0; i < n; i++) {
        double d = x[i] - o.mean;
        m2 += d * d / n;
        m3 += d * d * d / n;
        m4 += d * d * d * d / n;
    }
    double sd = sqrt(m2);
    o.cv = sd / o.mean;
    o.se_mean = sd / sqrt(n);
    double dm = -sd / (o.mean * o.mean), dv = 1.0 / (2.0 * sd * o.mean);
    o.se_cv = sqrt((dm * dm * m2 + dv * dv * (m4 - m2 * m2) +
                    2.0 * dm * dv * m3) / n);
    return o;
}

/* The sample's mean and cv hold want_mean and want_cv within Z standard
 * errors, Z = 3.89 (two-sided 1e-4: a false alarm once in 10,000 seed
 * bases per check), and those errors are under 1 % of the values (power). */
static void check_moments(const char *name, const struct mom *o,
                          double want_mean, double want_cv)
{
    const double z = gsl_cdf_ugaussian_Qinv(0.5e-4);
    dam_check(fabs(o->mean - want_mean) <= z * o->se_mean &&
                  o->se_mean < 0.01 * want_mean,
              "%s: mean %.5f holds %.5f (+- %.5f at 1 - 1e-4)", name,
              o->mean, want_mean, z * o->se_mean);
    if (want_cv >= 0.0)
        dam_check(fabs(o->cv - want_cv) <= z * o->se_cv &&
                      o->se_cv < 0.01 * want_cv,
                  "%s: cv %.5f holds %.5f (+- %.5f at 1 - 1e-4)", name,
                  o->cv, want_cv, z * o->se_cv);
}

static void test_dists(void)
{
    gsl_rng *r = dam_rng_create(dam_test_seed(2024), 0);
    const int n = 200000;
    struct mom o;
    dam_dist det = {DAM_DIST_DETERMINISTIC, 2.5, 0.3, NULL, 0};
    dam_check_rel(dam_dist_sample(&det, r), 2.5, 0, "deterministic gives mean");
    dam_dist ex = {DAM_DIST_EXPONENTIAL, 2.0, 0, NULL, 0};
    o = moments(&ex, r, n);
    check_moments("exponential (cv 1)", &o, 2.0, 1.0);
    dam_dist ln = {DAM_DIST_LOGNORMAL, 3.0, 0.5, NULL, 0};
    o = moments(&ln, r, n);
    check_moments("lognormal from (mean, cv)", &o, 3.0, 0.5);
    dam_dist un = {DAM_DIST_UNIFORM, 1.0, 0.2, NULL, 0};
    o = moments(&un, r, n);
    check_moments("uniform (half-width sqrt(3) cv mean)", &o, 1.0, 0.2);
    dam_check(o.lo >= 1.0 - sqrt(3.0) * 0.2, "uniform stays in its range");
    dam_dist nm = {DAM_DIST_NORMAL, 1.0, 0.1, NULL, 0};
    o = moments(&nm, r, n);
    /* truncation at zero removes 10 sd: P = 7.6e-24, no visible effect */
    check_moments("normal", &o, 1.0, 0.1);
    dam_dist nw = {DAM_DIST_NORMAL, 1.0, 1.0, NULL, 0};
    o = moments(&nw, r, n);
    dam_check(o.lo > 0.0, "normal truncated at zero never draws <= 0");
    /* truncated at zero, mean mu + sigma phi(1)/Phi(1) = 1.28760 */
    check_moments("truncated normal", &o, dam_dist_mean(&nw), -1.0);
    dam_check_rel(dam_dist_mean(&nw), 1.0 + gsl_ran_ugaussian_pdf(1.0) /
                                                gsl_cdf_ugaussian_P(1.0),
                  1e-9, "truncated normal mean: mu + sigma phi(1)/Phi(1)");
    double vals[3] = {1.0, 2.0, 6.0};
    dam_dist em = {DAM_DIST_EMPIRICAL, 0, 0, vals, 3};
    int only = 1;
    for (int i = 0; i < 1000; i++) {
        double x = dam_dist_sample(&em, r);
        only = only && (x == 1.0 || x == 2.0 || x == 6.0);
    }
    dam_check(only, "empirical draws only the given values");
    o = moments(&em, r, n);
    /* values 1, 2, 6: mean 3, sd sqrt(14/3) */
    check_moments("empirical", &o, 3.0, sqrt(14.0 / 3.0) / 3.0);
    dam_check_rel(dam_dist_mean(&em), 3.0, 1e-12, "empirical dam_dist_mean");
    dam_dist lz = {DAM_DIST_LOGNORMAL, 3.0, 0.0, NULL, 0};
    dam_check_rel(dam_dist_sample(&lz, r), 3.0, 0, "cv 0 is deterministic");

    dam_error e;
    dam_dist bad = {DAM_DIST_UNIFORM, 1.0, 0.9, NULL, 0};
    dam_check(dam_dist_check(&bad, &e) == DAM_EINPUT,
              "uniform with cv > 1/sqrt(3) refused: %s", e.msg);
    dam_dist none = {DAM_DIST_EMPIRICAL, 0, 0, NULL, 0};
    dam_check(dam_dist_check(&none, &e) == DAM_EINPUT,
              "empirical without values refused: %s", e.msg);
    dam_check(dam_dist_check(&ln, &e) == DAM_OK, "lognormal accepted");
    dam_rng_free(r);
}

static void test_stats(void)
{
    dam_stats *s = dam_stats_create();
    dam_stat st;
    /* 1..10000: mean 5000.5, sd sqrt(n(n+1)/12) = 2886.896, p50 ~ 5000. */
    for (int i = 1; i <= 10000; i++)
        dam_stats_add(s, (double)((i * 7919) % 10000 + 1));
    dam_stats_fill(s, &st);
    dam_check_rel(st.mean, 5000.5, 1e-12, "streaming mean");
    dam_check_rel(st.sd, sqrt(10000.0 * 10001.0 / 12.0), 1e-9, "streaming sd");
    dam_check(st.min == 1.0 && st.max == 10000.0, "streaming min and max");
    /* Sorted 1..10000, quantile at h = 9999 p (linear between order
     * statistics): p50 5000.5, p95 9500.05, p99 9900.01. */
    dam_check_rel(st.p50, 5000.5, 1e-3, "median of 1..10000");
    dam_check_rel(st.p95, 9500.05, 1e-3, "p95 of 1..10000");
    dam_check_rel(st.p99, 9900.01, 1e-3, "p99 of 1..10000");
    dam_check_int((long)st.n, 10000, "count");
    dam_stats_reset(s);
    dam_stats_fill(s, &st);
    dam_check(st.n == 0 && st.mean == 0, "reset empties");
    dam_stats_free(s);
    dam_stats_free(NULL);

    /* 20 replications 1..20: mean 10.5, sd sqrt(35), t(0.975, 19) =
     * 2.093024, half-width 2.093024 * 5.91608 / sqrt(20) = 2.768845. */
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = (double)(20 - i);
    dam_stats_replications(x, 20, &st, NULL);
    dam_check_rel(st.mean, 10.5, 1e-12, "replication mean");
    dam_check_rel(st.sd, sqrt(35.0), 1e-12, "replication sd");
    dam_check_rel(st.ci95, 2.093024 * sqrt(35.0) / sqrt(20.0), 1e-6,
                  "95 % CI half-width by Student's t");
    dam_check_rel(st.p50, 10.5, 1e-12, "replication median");
    dam_error e;
    dam_check(dam_stats_replications(x, 0, &st, &e) == DAM_EINPUT,
              "no replications refused: %s", e.msg);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Streaming quantiles against the exact ones of the sorted sample (a
 * second method: gsl_stats_quantile_from_sorted_data's definition, worked
 * here by hand on a sorted copy). The stream is an M/M/1 queue's waits by
 * Lindley's recursion W' = max(0, W + S - A), rho 0.9: long runs of
 * correlated values and many exact zeros, the stream on which P-squared
 * markers drift (it reported the serving p99 50 % high at some seeds).
 * Then the same with a sign flip and a shift (negatives, values across
 * zero), and a constant stream (exact). The bound is the histogram's
 * bucket width, 2^-10 relative, so the check is deterministic. */
static void test_quantiles(void)
{
    enum { N = 200000 };
    static double x[N];
    static const double ps[] = {0.0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99,
                                0.999, 1.0};
    gsl_rng *r = dam_rng_create(11, 0);
    dam_stats *s = dam_stats_create();
    double w = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        dam_stats_reset(s);
        for (int i = 0; i < N; i++) {
            double a = -log1p(-gsl_rng_uniform(r)) / 0.9;
            double b = -log1p(-gsl_rng_uniform(r));
            w = fmax(0.0, w + b - a);
            x[i] = pass == 0 ? w : 3.0 - w;
            dam_stats_add(s, x[i]);
        }
        qsort(x, N, sizeof x[0], cmp_double);
        int bad = 0;
        double worst = 0.0;
        for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
            double h = (N - 1) * ps[k];
            size_t i = (size_t)h;
            double want = i + 1 < N ? x[i] + (h - (double)i) *
                                               (x[i + 1] - x[i])
                                    : x[i];
            double got = dam_stats_quantile(s, ps[k]);
            double err = fabs(got - want);
            double tol = 1e-3 * fmax(fabs(x[i]), fabs(x[i + 1 < N ? i + 1
                                                           : i]));
            if (err > tol) {
                bad++;
                printf("  p %g: got %.10g, want %.10g\n", ps[k], got, want);
            }
            if (err > worst)
                worst = err;
        }
        dam_check(bad == 0, "%s: streaming quantiles p0..p100 within 0.1 %% "
                  "of the sorted sample's (worst absolute error %.3g)",
                  pass == 0 ? "M/M/1 waits" : "3 - waits (crosses zero)",
                  worst);
    }
    dam_stat st;
    dam_stats_fill(s, &st);
    dam_check(st.p99 == dam_stats_quantile(s, 0.99) && st.n == N,
              "fill reports the histogram's p99");
    dam_stats_reset(s);
    for (int i = 0; i < 1000; i++)
        dam_stats_add(s, 0.0125);
    dam_stats_fill(s, &st);
    dam_check(st.p50 == 0.0125 && st.p99 == 0.0125,
              "a constant stream's quantiles are exact");
    dam_stats_reset(s);
    dam_check(dam_stats_quantile(s, 0.5) == 0.0, "no observations: 0");
    dam_stats_free(s);
    dam_rng_free(r);
}

/* The streams' MT19937 (dam_rng_mt19937, its uniform inline) draws what
 * GSL's gsl_rng_mt19937 draws: every 32-bit output and every uniform,
 * through several refills of the 624-word block, for seeds 0 (GSL's
 * default), 1, 2^32 - 1 and a few more; interleaving the inline and the
 * GSL paths on one stream keeps its sequence. */
static void test_mt_as_gsl(void)
{
    static const unsigned long seeds[] = {0, 1, 4357, 0xffffffffUL,
                                          0x6a09e667UL, 123456789UL};
    int same = 1, n = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng *m = gsl_rng_alloc(dam_rng_mt19937);
        gsl_rng_set(g, seeds[i]);
        gsl_rng_set(m, seeds[i]);
        for (int k = 0; k < 5000; k++, n++) {
            if (k % 3 == 0)
                same = same && gsl_rng_get(g) == gsl_rng_get(m);
            else if (k % 3 == 1)
                same = same && gsl_rng_uniform(g) == dam_rng_uniform(m);
            else
                same = same && gsl_rng_uniform(g) == gsl_rng_uniform(m);
        }
        gsl_rng_free(g);
        gsl_rng_free(m);
    }
    dam_check(same, "dam_rng_mt19937 gives GSL's MT19937 outputs (%d draws "
              "over 6 seeds)", n);
    gsl_rng *r = dam_rng_create(9, 3);
    dam_check(r->type == dam_rng_mt19937 &&
                  gsl_rng_max(r) == 0xffffffffUL && gsl_rng_min(r) == 0,
              "dam_rng_create's streams are dam_rng_mt19937 on [0, 2^32)");
    dam_rng_free(r);
}

/* Batch means (one replication's CI). Deterministic: the batches of a
 * known sequence, and a merged batch's quantile against a single
 * accumulator's. Stochastic (any seed): coverage of the mean of AR(1)
 * streams, phi 0.9, whose neighbours are correlated as a queue's waits
 * are: the interval by batch means holds the true mean 0 about 95 % of
 * the time, where the naive one of the n values as if independent holds
 * it far less often (its half-width is sqrt((1 - phi) / (1 + phi)) = 0.23
 * of what it needs). */
static void test_batches(void)
{
    /* 1..100 in 10 batches of 10: batch means 5.5, 15.5, ..., 95.5, sd
     * sqrt(var of 10 k) = 30.2765, half-width t(0.975, 9) sd / sqrt 10 */
    double x[103];
    for (int i = 0; i < 103; i++)
        x[i] = i < 3 ? 1e9 : (double)(i - 2);
    double want = dam_test_t(0.05, 9) * 10.0 * sqrt(110.0 / 12.0) / sqrt(10.0);
    dam_check_rel(dam_batch_means_ci95(x + 3, 100), want, 1e-9,
                  "batch means of 1..100");
    dam_check_rel(dam_batch_means_ci95(x, 103), want, 1e-9,
                  "the first n mod 10 values are left out");
    dam_check(dam_batch_means_ci95(x + 3, 1) == 0.0,
              "one value: no interval");
    /* the same 1..100 as records: 10 batches of 10, each sorted, so the
     * median of batch k is 10 k + 5.5 and the interval the means' */
    dam_batches *b = dam_batches_create();
    for (int i = 1; i <= 100; i++)
        dam_batches_add(b, (double)i);
    dam_check_rel(dam_batches_ci95(b, -1.0), want, 1e-9,
                  "records: the batch means' interval");
    dam_check_rel(dam_batches_ci95(b, 0.5), want, 1e-9,
                  "records: the batch medians' interval (sectioning)");
    dam_batches_free(b);
    /* counts: 100 records of 10 equal values each are 10 batches of
     * 100 observations, 10 records each, the same means as above */
    b = dam_batches_create();
    for (int i = 1; i <= 100; i++)
        dam_batches_add_n(b, (double)i, 10);
    dam_check_rel(dam_batches_ci95(b, -1.0), want, 1e-9,
                  "records with counts: the same interval");
    dam_batches_free(b);
    /* past DAM_BATCHES_KEEP records: the kept prefix's interval,
     * narrowed by sqrt(kept / all) */
    dam_batches *p1 = dam_batches_create(), *p2 = dam_batches_create();
    for (int i = 0; i < DAM_BATCHES_KEEP; i++) {
        double v = (double)(((uint64_t)i * 7919u) % 1000u);
        dam_batches_add(p1, v);
        dam_batches_add(p2, v);
    }
    for (int i = 0; i < 3 * DAM_BATCHES_KEEP; i++)
        dam_batches_add(p2, 1.0);
    dam_check_rel(dam_batches_ci95(p2, 0.9), 0.5 * dam_batches_ci95(p1, 0.9),
                  1e-12, "past the records kept: the prefix's interval x "
                  "sqrt(1/4)");
    dam_batches_free(p1);
    dam_batches_free(p2);
    dam_batches_free(NULL);

    gsl_rng *r = dam_rng_create(dam_test_seed(2026), 3);
    const int runs = 400, n = 2000;
    const double phi = 0.9;
    int cover = 0, naive = 0;
    for (int k = 0; k < runs; k++) {
        dam_batches *bb = dam_batches_create();
        double y = gsl_ran_gaussian(r, 1.0) / sqrt(1.0 - phi * phi);
        double sum = 0.0, sum2 = 0.0;
        for (int i = 0; i < n; i++) {
            y = phi * y + gsl_ran_gaussian(r, 1.0);
            dam_batches_add(bb, y);
            sum += y;
            sum2 += y * y;
        }
        double mean = sum / n, sd = sqrt((sum2 - n * mean * mean) / (n - 1));
        cover += fabs(mean) <= dam_batches_ci95(bb, -1.0);
        naive += fabs(mean) <= 1.96 * sd / sqrt((double)n);
        dam_batches_free(bb);
    }
    double rate;
    int need = dam_test_min_cover(runs, 0.95, 1e-6, &rate);
    dam_check(cover >= need && cover <= runs - 2,
              "batch means hold the mean of AR(1) streams in %d of %d runs "
              "(at least %d)", cover, runs, need);
    dam_check(naive < need, "where the independent-values interval holds it "
              "in %d", naive);
    dam_rng_free(r);
}

int main(void)
{
    gsl_set_error_handler_off();
    test_streams();
    test_mt_as_gsl();
    test_dists();
    test_stats();
    test_quantiles();
    test_batches();
    return dam_check_done();
}
