/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stats.c: streaming statistics over gsl_rstat (see stats.h).
 *
 * The median comes from gsl_rstat's own P-squared estimator; p95 and p99
 * each keep one more gsl_rstat_quantile workspace (five markers each).
 */
#include "solver/stats.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rstat.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "model/alloc.h"

struct dam_stats {
    gsl_rstat_workspace *rs;           /* count, mean, sd, min, max, p50 */
    gsl_rstat_quantile_workspace *q95; /* p95 by P-squared */
    gsl_rstat_quantile_workspace *q99; /* p99 by P-squared */
};

/* GSL returns NULL only when out of memory: the common path. */
static void *must(void *p)
{
    return dam_alloc_check(p, 0);
}

dam_stats *dam_stats_create(void)
{
    dam_stats *s = dam_calloc(1, sizeof *s);
    s->rs = must(gsl_rstat_alloc());
    s->q95 = must(gsl_rstat_quantile_alloc(0.95));
    s->q99 = must(gsl_rstat_quantile_alloc(0.99));
    return s;
}

void dam_stats_free(dam_stats *s)
{
    if (s == NULL)
        return;
    gsl_rstat_free(s->rs);
    gsl_rstat_quantile_free(s->q95);
    gsl_rstat_quantile_free(s->q99);
    dam_free(s);
}

void dam_stats_reset(dam_stats *s)
{
    gsl_rstat_reset(s->rs);
    gsl_rstat_quantile_reset(s->q95);
    gsl_rstat_quantile_reset(s->q99);
}

void dam_stats_add(dam_stats *s, double x)
{
    if (isnan(x))
        return;
    gsl_rstat_add(x, s->rs);
    gsl_rstat_quantile_add(x, s->q95);
    gsl_rstat_quantile_add(x, s->q99);
}

size_t dam_stats_count(const dam_stats *s)
{
    return gsl_rstat_n(s->rs);
}

double dam_stats_mean(const dam_stats *s)
{
    return gsl_rstat_n(s->rs) > 0 ? gsl_rstat_mean(s->rs) : 0.0;
}

void dam_stats_fill(const dam_stats *s, dam_stat *out)
{
    memset(out, 0, sizeof *out);
    size_t n = gsl_rstat_n(s->rs);
    if (n == 0)
        return;
    out->n = (double)n;
    out->mean = gsl_rstat_mean(s->rs);
    out->sd = n > 1 ? gsl_rstat_sd(s->rs) : 0.0;
    out->min = gsl_rstat_min(s->rs);
    out->max = gsl_rstat_max(s->rs);
    out->p50 = gsl_rstat_median(s->rs);
    out->p95 = gsl_rstat_quantile_get(s->q95);
    out->p99 = gsl_rstat_quantile_get(s->q99);
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
