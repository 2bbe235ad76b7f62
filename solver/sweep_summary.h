/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_summary.h: what a sweep's charts show, computed from its points'
 * figures: the time-cost Pareto front and the heat map of two varied keys
 * (`damsim sweep --pareto / --heatmap`).
 *
 * Design. A sweep keeps one dam_sweep_fig per point (the row less its
 * text, about 64 bytes) when charts are asked for; everything here is a
 * function of those figures and of the sweep's keys, so it is the same
 * whichever threads or MPI ranks solved the points. The front is found in
 * O(n log n) (sort by time, then one scan keeping the lowest cost), so a
 * sweep of millions of points has its front at once. A heat map cell holds
 * every point whose two keys fall in it; with more than two keys varied,
 * or with sampled points, the cell shows the best of its points that
 * solved and fit in memory (lowest time, cost or energy; highest
 * throughput). Sampled points on a range key fall into bins of the range
 * (log-spaced for :log ranges). Nothing here prints or draws.
 */
#ifndef DAM_SWEEP_SUMMARY_H
#define DAM_SWEEP_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "model/error.h"
#include "solver/sweep.h"

#define DAM_SWEEP_HEAT_MAX 256  /* rows or columns of a heat map */
#define DAM_SWEEP_HEAT_BINS 16  /* most bins of a sampled range key */
#define DAM_SWEEP_LABEL_MAX 136 /* bytes of a row or column label */

/* A point's figures, kept for charts (the row less its text). */
typedef struct dam_sweep_fig {
    int ok;               /* 1: the point solved */
    int fits;             /* 1: it fits in GPU memory */
    int overloaded;       /* serving: 1 past its capacity (a lone
                           * request's step, never a best nor on a front) */
    double step;          /* s per step (per request when serving) */
    double throughput;    /* samples/s (requests/s serving), all GPUs */
    double run_time;      /* s, all epochs */
    double cost;          /* USD of the run; NaN: the GPU has no price */
    double energy;        /* kWh of the run */
    dam_bound bound;      /* what binds */
} dam_sweep_fig;

/* The figure a heat map colours. */
typedef enum dam_sweep_metric {
    DAM_SWEEP_METRIC_STEP = 0,   /* step time, s (lower is better) */
    DAM_SWEEP_METRIC_THROUGHPUT, /* samples/s (higher is better) */
    DAM_SWEEP_METRIC_RUN_TIME,   /* run time, s (lower is better) */
    DAM_SWEEP_METRIC_COST,       /* USD of the run (lower is better) */
    DAM_SWEEP_METRIC_ENERGY,     /* kWh of the run (lower is better) */
    DAM_SWEEP_METRIC_COUNT
} dam_sweep_metric;

/* The figures of row into f. */
void dam_sweep_fig_of(const dam_sweep_row *row, dam_sweep_fig *f);

/* The metric named name ("step", "throughput", "run_time", "cost",
 * "energy") into *m; DAM_OK, or DAM_EINPUT with err naming the choices. */
int dam_sweep_metric_parse(const char *name, dam_sweep_metric *m,
                           dam_error *err);
/* The metric's name as --metric takes it. */
const char *dam_sweep_metric_name(dam_sweep_metric m);
/* 1 when a higher value of m is better (throughput), else 0. */
int dam_sweep_metric_higher_is_better(dam_sweep_metric m);
/* The value of m in f (its unit: see dam_sweep_metric). */
double dam_sweep_metric_of(const dam_sweep_fig *f, dam_sweep_metric m);

/*
 * The Pareto front of n points (x[i], y[i]), lower being better on both:
 * the points that no other point dominates (x and y both <=, one <). Only
 * points with use[i] != 0 and finite x and y take part (use may be NULL:
 * all). front: OUT: the front's point indices in increasing x (room for
 * n); of points with identical (x, y) only the first index is on the front
 * and alike (OUT, may be NULL, room for n) counts the others for each
 * front entry. Returns the number of front points. O(n log n).
 */
size_t dam_pareto_front(const double *x, const double *y,
                        const unsigned char *use, size_t n, size_t *front,
                        size_t *alike);

/* The time a sweep's time-cost front is drawn against: run time for
 * training, the time per request when serving (s). */
double dam_sweep_fig_time(const dam_sweep *sw, const dam_sweep_fig *f);

/* A heat map of two varied keys. */
typedef struct dam_sweep_heat {
    int row_key, col_key;     /* indices into sw->keys: rows, columns */
    int nrows, ncols;         /* categories of each (values or bins) */
    int row_bins, col_bins;   /* 1: the key's sampled range in bins */
    char (*row_labels)[DAM_SWEEP_LABEL_MAX]; /* nrows, owned */
    char (*col_labels)[DAM_SWEEP_LABEL_MAX]; /* ncols, owned */
    dam_sweep_metric metric;  /* what value holds */
    /* per cell, row-major (cell = row * ncols + col); all owned: */
    double *value;            /* best metric of the points that solved and
                                 fit (unset where fit[cell] == 0) */
    int64_t *best;            /* point that gave it; -1 when none */
    uint64_t *count;          /* points in the cell */
    uint64_t *fit;            /* of them, solved and fitting in memory */
    uint64_t *failed;         /* of them, failed to solve */
    uint64_t *unknown;        /* of them, fit but the metric is not known
                                 (cost without a price) */
    uint64_t *overloaded;     /* of them, fit but past their capacity */
    uint64_t per_cell;        /* most points in a cell (1: one each) */
} dam_sweep_heat;

/*
 * Build the heat map of sw's keys row_key (rows) and col_key (columns)
 * from figs (sw->npoints of them). Returns DAM_OK, or DAM_EINPUT with err
 * filled when the keys are not two different varied keys or a key has
 * more than DAM_SWEEP_HEAT_MAX values. Free with dam_sweep_heat_free.
 */
int dam_sweep_heat_build(const dam_sweep *sw, const dam_sweep_fig *figs,
                         int row_key, int col_key, dam_sweep_metric metric,
                         dam_sweep_heat *h, dam_error *err);
/* Free what h owns. */
void dam_sweep_heat_free(dam_sweep_heat *h);

#endif
