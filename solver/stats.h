/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stats.h: streaming statistics of one simulated quantity, and confidence
 * intervals over replications.
 *
 * A dam_stats keeps count, mean, sd, min and max (Welford) and a
 * log-bucketed histogram of the observations, so its memory does not grow
 * with their number (it grows with the binades they span, 8 KiB each).
 * Any quantile is within 0.1 % (relative) of the exact sample quantile,
 * whatever the order of the observations: accumulators may pool
 * replications or autocorrelated streams.
 */
#ifndef DAM_STATS_H
#define DAM_STATS_H

#include <stddef.h>

#include "model/error.h"
#include "solver/result.h"

/* Streaming accumulator (opaque). */
typedef struct dam_stats dam_stats;

/* A new, empty accumulator. Never NULL. */
dam_stats *dam_stats_create(void);
/* Free; NULL is a no-op. */
void dam_stats_free(dam_stats *s);
/* Forget every observation. */
void dam_stats_reset(dam_stats *s);
/* Add one observation (NaN is ignored). */
void dam_stats_add(dam_stats *s, double x);
/* Add `count` observations equal to x at once (a token stream: every
 * sequence of an iteration sees the same gap); the same as count calls of
 * dam_stats_add except for rounding in the moments. */
void dam_stats_add_n(dam_stats *s, double x, size_t count);
/* Observations added. */
size_t dam_stats_count(const dam_stats *s);
/* Mean of the observations (0 when none). */
double dam_stats_mean(const dam_stats *s);
/* The p-quantile (0 <= p <= 1) of the observations, as
 * gsl_stats_quantile_from_sorted_data would give on them sorted, to within
 * 0.1 % relative; min at p = 0, max at p = 1, 0 when none. */
double dam_stats_quantile(const dam_stats *s, double p);
/* Fill out from the observations: mean, sd, min, max, p50, p95, p99, n;
 * ci95 is set to 0 (one run has no replication interval). With no
 * observations every field is 0. */
void dam_stats_fill(const dam_stats *s, dam_stat *out);

/* Summarise per-replication values x[0..n-1] (e.g. each replication's
 * mean): out->mean is their mean, sd their sample sd, min/max/p50/p95/p99
 * over them, n = n, and ci95 the half-width t(0.975, n-1) * sd / sqrt(n)
 * of Student's interval (0 when n < 2). Returns DAM_OK, or DAM_EINPUT with
 * err filled (err may be NULL) when n == 0. */
int dam_stats_replications(const double *x, size_t n, dam_stat *out,
                           dam_error *err);

/* Batch means over one replication (Law and Kelton, "Simulation Modeling
 * and Analysis", batch means; for quantiles, sectioning): the
 * observations are kept in the order they came (a value and its count:
 * a token stream adds many equal ones at once), then cut into
 * DAM_BATCHES contiguous batches of equal counts; the interval comes from
 * the spread of the batches' means or quantiles. What one replication
 * can say of its own precision; several replications say it better. At
 * most DAM_BATCHES_KEEP records are kept: past them the interval is the
 * kept prefix's, narrowed by sqrt(kept / all) as a mean's would be. */
enum { DAM_BATCHES = 10, DAM_BATCHES_KEEP = 1 << 20 };
typedef struct dam_batches dam_batches;

/* A new, empty record. Never NULL. */
dam_batches *dam_batches_create(void);
/* Free; NULL is a no-op. */
void dam_batches_free(dam_batches *b);
/* Add one observation (NaN is ignored), or count equal ones. */
void dam_batches_add(dam_batches *b, double x);
void dam_batches_add_n(dam_batches *b, double x, size_t count);
/* The 95 % half-width of the mean (p < 0) or of the p-quantile of the
 * observations: t(0.975, m - 1) * sd / sqrt(m) over the m = DAM_BATCHES
 * batches' means or p-quantiles; 0 with fewer observations than batches.
 * The first call sorts each batch in place: call it after the last add. */
double dam_batches_ci95(dam_batches *b, double p);
/* The same for the mean of n values x[0..n-1] in the order they came (a
 * run's step times): min(n, DAM_BATCHES) contiguous batches of
 * equal size, the first n mod batches values left out; 0 when n < 2. */
double dam_batch_means_ci95(const double *x, size_t n);

#endif
