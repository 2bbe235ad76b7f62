/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stats.c: streaming statistics (see stats.h).
 *
 * Count, mean, sd, min and max are Welford's running moments, in the
 * order of operations of gsl_rstat_add (so the figures are the ones
 * gsl_rstat gave), without gsl_rstat itself: it also feeds a P-squared
 * median on every add, which cost a third of a serving simulation's time
 * and which nothing here reads. Quantiles come from a
 * log-bucketed histogram in the manner of HdrHistogram, not from the
 * P-squared estimator: P-squared moves its markers one step per
 * observation and is biased on autocorrelated streams (a queue's
 * latencies), which gave the M/M/1 p99 50 % too high at some seeds. A
 * histogram is order-independent, so pooling replications is harmless.
 *
 * Buckets. A double's bits are mapped to an unsigned key that sorts as
 * the values do (sign bit set for x >= 0, all bits flipped for x < 0).
 * The top 12 bits of the key (sign and exponent) pick a block, the next
 * MBITS bits of the mantissa a bucket in it, so a bucket spans a relative
 * width of at most 2^-MBITS (0.1 %). Blocks of SUB counts are allocated
 * when first touched: memory grows with the decades the data spans (8 KiB
 * per binade), never with the number of observations; 4,096 blocks bound
 * it. A quantile follows gsl_stats_quantile_from_sorted_data (linear
 * between the order statistics at floor and ceil of (n - 1) p); the k-th
 * order statistic is placed at the (k + 1/2)-th of c equal steps across
 * its bucket and clamped to [min, max], so every reported quantile is
 * within one bucket width of the exact one, and exact when all values in
 * its bucket are equal and at an extreme (a constant stream). The two
 * buckets at +0 and -0 report 0 (runs of zero waits stay exact).
 */
#include "solver/stats.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "model/alloc.h"

enum {
    MBITS = 10,          /* mantissa bits per bucket: relative width 2^-10 */
    SUB = 1 << MBITS,    /* buckets per block */
    NBLK = 1 << 12,      /* blocks: sign bit and 11 exponent bits */
    SHIFT = 52 - MBITS   /* key bits below a bucket */
};

/* One binade's buckets. */
typedef struct block {
    uint64_t n;          /* observations in the block */
    uint64_t c[SUB];     /* observations per bucket */
} block;

struct dam_stats {
    size_t n;                /* observations */
    double mean;             /* running mean */
    double m2;               /* sum of squared deviations from the mean */
    double min, max;         /* extremes (valid when n > 0) */
    block *blk[NBLK];        /* NULL until touched */
};

/* The order-preserving key of x, and back. */
static uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

static double value_of(uint64_t k)
{
    uint64_t u = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

dam_stats *dam_stats_create(void)
{
    dam_stats *s = dam_calloc(1, sizeof *s);
    return s;
}

void dam_stats_free(dam_stats *s)
{
    if (s == NULL)
        return;
    for (int b = 0; b < NBLK; b++)
        dam_free(s->blk[b]);
    dam_free(s);
}

void dam_stats_reset(dam_stats *s)
{
    s->n = 0;
    s->mean = s->m2 = s->min = s->max = 0.0;
    for (int b = 0; b < NBLK; b++)
        if (s->blk[b] != NULL)
            memset(s->blk[b], 0, sizeof *s->blk[b]);
}

void dam_stats_add(dam_stats *s, double x)
{
    if (isnan(x))
        return;
    /* Welford, as gsl_rstat_add orders it */
    double delta = x - s->mean;
    double n = (double)++s->n;
    double delta_n = delta / n;
    s->mean += delta_n;
    s->m2 += delta * delta_n * (n - 1.0);
    if (s->n == 1 || x < s->min)
        s->min = x;
    if (s->n == 1 || x > s->max)
        s->max = x;
    uint64_t k = key_of(x);
    block **b = &s->blk[k >> 52];
    if (*b == NULL)
        *b = dam_calloc(1, sizeof **b);
    (*b)->n++;
    (*b)->c[(k >> SHIFT) & (SUB - 1)]++;
}

void dam_stats_add_n(dam_stats *s, double x, size_t count)
{
    if (isnan(x) || count == 0)
        return;
    if (count == 1) {
        dam_stats_add(s, x);
        return;
    }
    /* Chan et al.'s merge of a block of `count` equal values */
    double n0 = (double)s->n, c = (double)count;
    double n = n0 + c, delta = x - s->mean;
    s->mean += delta * c / n;
    s->m2 += delta * delta * n0 * c / n;
    if (s->n == 0 || x < s->min)
        s->min = x;
    if (s->n == 0 || x > s->max)
        s->max = x;
    s->n += count;
    uint64_t k = key_of(x);
    block **b = &s->blk[k >> 52];
    if (*b == NULL)
        *b = dam_calloc(1, sizeof **b);
    (*b)->n += count;
    (*b)->c[(k >> SHIFT) & (SUB - 1)] += count;
}

size_t dam_stats_count(const dam_stats *s)
{
    return s->n;
}

double dam_stats_mean(const dam_stats *s)
{
    return s->n > 0 ? s->mean : 0.0;
}

/* The i-th smallest observation (0-based, i < n), to within its bucket. */
static double order_stat(const dam_stats *s, uint64_t i)
{
    double lo = s->min, hi = s->max;
    for (uint64_t b = 0; b < NBLK; b++) {
        const block *bl = s->blk[b];
        if (bl == NULL || i >= bl->n) {
            i -= bl != NULL ? bl->n : 0;
            continue;
        }
        for (uint64_t j = 0; j < SUB; j++) {
            if (i >= bl->c[j]) {
                i -= bl->c[j];
                continue;
            }
            uint64_t k = (b << 52) | (j << SHIFT);
            double a = value_of(k);
            double z = value_of(k + (UINT64_C(1) << SHIFT) - 1);
            /* The buckets at +0 and -0 hold zeros (and subnormals). */
            if (a == 0.0 || z == 0.0)
                return 0.0 < lo ? lo : 0.0 > hi ? hi : 0.0;
            double x = a + (z - a) * ((double)i + 0.5) / (double)bl->c[j];
            if (!isfinite(x))
                x = a;
            return x < lo ? lo : x > hi ? hi : x;
        }
    }
    return hi;
}

double dam_stats_quantile(const dam_stats *s, double p)
{
    size_t n = s->n;
    if (n == 0)
        return 0.0;
    if (!(p > 0.0))
        return s->min;
    if (p >= 1.0)
        return s->max;
    double h = (double)(n - 1) * p;
    uint64_t i = (uint64_t)h;
    double f = h - (double)i;
    double x = order_stat(s, i);
    if (f > 0.0 && i + 1 < n)
        x += f * (order_stat(s, i + 1) - x);
    return x;
}

void dam_stats_fill(const dam_stats *s, dam_stat *out)
{
    memset(out, 0, sizeof *out);
    size_t n = s->n;
    if (n == 0)
        return;
    out->n = (double)n;
    out->mean = s->mean;
    out->sd = n > 1 ? sqrt(s->m2 / (double)(n - 1)) : 0.0;
    out->min = s->min;
    out->max = s->max;
    out->p50 = dam_stats_quantile(s, 0.50);
    out->p95 = dam_stats_quantile(s, 0.95);
    out->p99 = dam_stats_quantile(s, 0.99);
}

int dam_stats_replications(const double *x, size_t n, dam_stat *out,
                           dam_error *err)
{
    dam_error tmp;
    memset(out, 0, sizeof *out);
    if (n == 0)
        return dam_error_set(err != NULL ? err : &tmp, "", 0,
                             "no replications to summarise");
    double *sorted = dam_malloc(n * sizeof *sorted);
    memcpy(sorted, x, n * sizeof *sorted);
    gsl_sort(sorted, 1, n);
    out->n = (double)n;
    out->mean = gsl_stats_mean(sorted, 1, n);
    out->sd = n > 1 ? gsl_stats_sd_m(sorted, 1, n, out->mean) : 0.0;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->p50 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.50);
    out->p95 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.95);
    out->p99 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.99);
    if (n > 1)
        out->ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * out->sd /
                    sqrt((double)n);
    dam_free(sorted);
    return DAM_OK;
}

/* ---- batch means ------------------------------------------------------ */

/* One record: a value and how many times it came. */
typedef struct brec {
    double x;
    uint64_t c;
} brec;

struct dam_batches {
    brec *r;         /* the kept records, in order (sorted per batch once
                        cut) */
    size_t n, cap;   /* records kept, allocated */
    uint64_t kept;   /* observations in them */
    uint64_t all;    /* observations added */
    size_t cut[DAM_BATCHES + 1]; /* batch k: records cut[k] .. cut[k+1] */
    uint64_t cnt[DAM_BATCHES];   /* and its observations */
    int sorted;      /* batches cut and sorted */
};

dam_batches *dam_batches_create(void)
{
    return dam_calloc(1, sizeof(dam_batches));
}

void dam_batches_free(dam_batches *b)
{
    if (b == NULL)
        return;
    dam_free(b->r);
    dam_free(b);
}

void dam_batches_add_n(dam_batches *b, double x, size_t count)
{
    if (isnan(x) || count == 0)
        return;
    b->all += count;
    if (b->n == DAM_BATCHES_KEEP)
        return;
    if (b->n == b->cap)
        b->r = dam_grow(b->r, sizeof *b->r, b->n + 1, &b->cap);
    b->r[b->n].x = x;
    b->r[b->n].c = count;
    b->n++;
    b->kept += count;
}

void dam_batches_add(dam_batches *b, double x)
{
    dam_batches_add_n(b, x, 1);
}

static int by_x(const void *a, const void *b)
{
    double u = ((const brec *)a)->x, v = ((const brec *)b)->x;
    return (u > v) - (u < v);
}

/* Cut the records into DAM_BATCHES of (about) equal counts, a record
 * where its first observation falls, and sort each by value. */
static void batches_cut(dam_batches *b)
{
    uint64_t seen = 0;
    size_t i = 0;
    for (int k = 0; k < DAM_BATCHES; k++) {
        uint64_t end = b->kept * (uint64_t)(k + 1) / DAM_BATCHES;
        b->cut[k] = i;
        b->cnt[k] = 0;
        while (i < b->n && (seen < end || k == DAM_BATCHES - 1)) {
            seen += b->r[i].c;
            b->cnt[k] += b->r[i].c;
            i++;
        }
        qsort(b->r + b->cut[k], i - b->cut[k], sizeof *b->r, by_x);
    }
    b->cut[DAM_BATCHES] = b->n;
    b->sorted = 1;
}

/* The i-th smallest observation (0-based) of batch k (sorted). */
static double batch_order(const dam_batches *b, int k, uint64_t i)
{
    for (size_t j = b->cut[k]; j < b->cut[k + 1]; j++) {
        if (i < b->r[j].c)
            return b->r[j].x;
        i -= b->r[j].c;
    }
    return b->r[b->cut[k + 1] - 1].x;
}

double dam_batches_ci95(dam_batches *b, double p)
{
    if (b->kept < DAM_BATCHES)
        return 0.0;
    if (!b->sorted)
        batches_cut(b);
    double v[DAM_BATCHES];
    size_t m = 0;
    for (int k = 0; k < DAM_BATCHES; k++) {
        uint64_t n = b->cnt[k];
        if (n == 0)
            continue;
        if (p < 0.0) {
            double sum = 0.0;
            for (size_t j = b->cut[k]; j < b->cut[k + 1]; j++)
                sum += b->r[j].x * (double)b->r[j].c;
            v[m++] = sum / (double)n;
            continue;
        }
        /* gsl_stats_quantile_from_sorted_data's definition */
        double h = (double)(n - 1) * (p < 1.0 ? p : 1.0);
        uint64_t i = (uint64_t)h;
        double f = h - (double)i, x = batch_order(b, k, i);
        if (f > 0.0 && i + 1 < n)
            x += f * (batch_order(b, k, i + 1) - x);
        v[m++] = x;
    }
    dam_stat c;
    if (m < 2 || dam_stats_replications(v, m, &c, NULL) != DAM_OK)
        return 0.0;
    return c.ci95 * sqrt((double)b->kept / (double)b->all);
}

double dam_batch_means_ci95(const double *x, size_t n)
{
    size_t k = n < DAM_BATCHES ? n : DAM_BATCHES;
    if (k < 2)
        return 0.0;
    size_t size = n / k, skip = n - k * size;
    double v[DAM_BATCHES];
    for (size_t i = 0; i < k; i++) {
        double sum = 0.0;
        for (size_t j = 0; j < size; j++)
            sum += x[skip + i * size + j];
        v[i] = sum / (double)size;
    }
    dam_stat c;
    if (dam_stats_replications(v, k, &c, NULL) != DAM_OK)
        return 0.0;
    return c.ci95;
}
