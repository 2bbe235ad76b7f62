/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_summary.c: the Pareto front and heat map of a sweep's points (see
 * sweep_summary.h).
 *
 * Design. The front sorts the points by (time, cost, index) and keeps each
 * point whose cost is below every cost before it: a point before it in the
 * order is no slower, so the point is dominated exactly when one of them is
 * no dearer. Ties in both figures go to the lowest index, so the front does
 * not depend on the order the points were solved in. The heat map walks the
 * points once, placing each by its two keys' value indices (or its bin in a
 * sampled range) and keeping the best metric per cell.
 */
#include "solver/sweep_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"

void dam_sweep_fig_of(const dam_sweep_row *row, dam_sweep_fig *f)
{
    f->ok = row->ok;
    f->fits = row->fits;
    f->overloaded = row->overloaded > 0;
    f->step = row->step;
    /* unknown (an LLM service solved analytically): NaN, never a best */
    f->throughput = row->run_known ? row->throughput : (double)NAN;
    f->run_time = row->run_known ? row->run_time : (double)NAN;
    f->cost = row->priced ? row->cost_usd : (double)NAN;
    f->energy = row->run_known ? row->energy_kwh : (double)NAN;
    f->bound = row->bound;
}

static const char *const metric_names[DAM_SWEEP_METRIC_COUNT] = {
    "step", "throughput", "run_time", "cost", "energy"};

int dam_sweep_metric_parse(const char *name, dam_sweep_metric *m,
                           dam_error *err)
{
    for (int i = 0; i < DAM_SWEEP_METRIC_COUNT; i++)
        if (strcmp(name, metric_names[i]) == 0) {
            *m = (dam_sweep_metric)i;
            return DAM_OK;
        }
    return dam_error_set(err, "", 0,
                         "unknown metric '%s' (step, throughput, run_time, "
                         "cost or energy)",
                         name);
}

const char *dam_sweep_metric_name(dam_sweep_metric m)
{
    return (unsigned)m < DAM_SWEEP_METRIC_COUNT ? metric_names[m] : "?";
}

int dam_sweep_metric_higher_is_better(dam_sweep_metric m)
{
    return m == DAM_SWEEP_METRIC_THROUGHPUT;
}

double dam_sweep_metric_of(const dam_sweep_fig *f, dam_sweep_metric m)
{
    switch (m) {
    case DAM_SWEEP_METRIC_STEP: return f->step;
    case DAM_SWEEP_METRIC_THROUGHPUT: return f->throughput;
    case DAM_SWEEP_METRIC_RUN_TIME: return f->run_time;
    case DAM_SWEEP_METRIC_COST: return f->cost;
    case DAM_SWEEP_METRIC_ENERGY: return f->energy;
    default: return NAN;
    }
}

double dam_sweep_fig_time(const dam_sweep *sw, const dam_sweep_fig *f)
{
    return sw->base && sw->base->mode == DAM_MODE_SERVING ? f->step
                                                          : f->run_time;
}

/* ---- the front --------------------------------------------------------- */

typedef struct pt {
    double x, y;
    size_t i;
} pt;

static int by_x_y_index(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

size_t dam_pareto_front(const double *x, const double *y,
                        const unsigned char *use, size_t n, size_t *front,
                        size_t *alike)
{
    pt *p = dam_malloc((n ? n : 1) * sizeof *p);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((!use || use[i]) && isfinite(x[i]) && isfinite(y[i])) {
            p[m].x = x[i];
            p[m].y = y[i];
            p[m++].i = i;
        }
    qsort(p, m, sizeof *p, by_x_y_index);
    size_t k = 0;
    double lowest = INFINITY;
    for (size_t j = 0; j < m; j++) {
        if (p[j].y < lowest) {
            lowest = p[j].y;
            front[k] = p[j].i;
            if (alike)
                alike[k] = 0;
            k++;
        } else if (alike && k > 0 && p[j].x == x[front[k - 1]] &&
                   p[j].y == y[front[k - 1]]) {
            alike[k - 1]++;
        }
    }
    dam_free(p);
    return k;
}

/* ---- the heat map ------------------------------------------------------- */

/* 1 when key k of sw is drawn from a range (sampled points): binned. */
static int binned(const dam_sweep *sw, int k)
{
    return sw->method != DAM_SWEEP_GRID && sw->keys[k].range;
}

/* Categories of key k and their labels (allocated into *labels). */
static int categories(const dam_sweep *sw, int k,
                      char (**labels)[DAM_SWEEP_LABEL_MAX])
{
    const dam_sweep_key *key = &sw->keys[k];
    if (!binned(sw, k)) {
        *labels = dam_calloc((size_t)key->nvalues, sizeof **labels);
        for (int v = 0; v < key->nvalues; v++)
            snprintf((*labels)[v], DAM_SWEEP_LABEL_MAX, "%s", key->values[v]);
        return key->nvalues;
    }
    int nb = key->n < DAM_SWEEP_HEAT_BINS ? key->n : DAM_SWEEP_HEAT_BINS;
    if (nb < 1)
        nb = 1;
    *labels = dam_calloc((size_t)nb, sizeof **labels);
    for (int b = 0; b < nb; b++) {
        char lo[DAM_SWEEP_VALUE_MAX], hi[DAM_SWEEP_VALUE_MAX];
        dam_sweep_range_value(key, (double)b / nb, lo);
        dam_sweep_range_value(key, (double)(b + 1) / nb, hi);
        snprintf((*labels)[b], DAM_SWEEP_LABEL_MAX, "%s-%s", lo, hi);
    }
    return nb;
}

/* The category of point i on key k (idx, u from dam_sweep_point_index). */
static int category(const dam_sweep *sw, int k, int n, const int *idx,
                    const double *u)
{
    if (idx[k] >= 0)
        return idx[k];
    int c = (int)(u[k] * n);
    return c < 0 ? 0 : c >= n ? n - 1 : c;
}

int dam_sweep_heat_build(const dam_sweep *sw, const dam_sweep_fig *figs,
                         int row_key, int col_key, dam_sweep_metric metric,
                         dam_sweep_heat *h, dam_error *err)
{
    memset(h, 0, sizeof *h);
    if (row_key < 0 || col_key < 0 || row_key >= sw->nkeys ||
        col_key >= sw->nkeys || row_key == col_key)
        return dam_error_set(err, "", 0,
                             "a heat map needs two varied keys (the sweep "
                             "varies %d)",
                             sw->nkeys);
    const int keys[2] = {row_key, col_key};
    for (int j = 0; j < 2; j++) {
        const dam_sweep_key *key = &sw->keys[keys[j]];
        if (!binned(sw, keys[j]) && key->nvalues > DAM_SWEEP_HEAT_MAX)
            return dam_error_set(err, "", 0,
                                 "'%s' has %d values; a heat map shows at "
                                 "most %d a side",
                                 key->key, key->nvalues, DAM_SWEEP_HEAT_MAX);
    }
    h->row_key = row_key;
    h->col_key = col_key;
    h->metric = metric;
    h->row_bins = binned(sw, row_key);
    h->col_bins = binned(sw, col_key);
    h->nrows = categories(sw, row_key, &h->row_labels);
    h->ncols = categories(sw, col_key, &h->col_labels);
    size_t cells = (size_t)h->nrows * (size_t)h->ncols;
    h->value = dam_calloc(cells, sizeof *h->value);
    h->best = dam_malloc(cells * sizeof *h->best);
    h->count = dam_calloc(cells, sizeof *h->count);
    h->fit = dam_calloc(cells, sizeof *h->fit);
    h->failed = dam_calloc(cells, sizeof *h->failed);
    h->unknown = dam_calloc(cells, sizeof *h->unknown);
    h->overloaded = dam_calloc(cells, sizeof *h->overloaded);
    for (size_t c = 0; c < cells; c++)
        h->best[c] = -1;
    int higher = dam_sweep_metric_higher_is_better(metric);
    int idx[DAM_SWEEP_MAX_KEYS];
    double u[DAM_SWEEP_MAX_KEYS];
    for (uint64_t i = 0; i < sw->npoints; i++) {
        dam_sweep_point_index(sw, i, idx, u);
        int r = category(sw, row_key, h->nrows, idx, u);
        int c = category(sw, col_key, h->ncols, idx, u);
        size_t cell = (size_t)r * (size_t)h->ncols + (size_t)c;
        const dam_sweep_fig *f = &figs[i];
        h->count[cell]++;
        if (!f->ok) {
            h->failed[cell]++;
            continue;
        }
        double v = dam_sweep_metric_of(f, metric);
        if (!f->fits)
            continue;
        if (f->overloaded) {
            h->overloaded[cell]++;
            continue;
        }
        if (!isfinite(v)) {
            h->unknown[cell]++;
            continue;
        }
        /* strictly better replaces: ties keep the lower point number */
        if (h->fit[cell] == 0 || (higher ? v > h->value[cell]
                                         : v < h->value[cell])) {
            h->value[cell] = v;
            h->best[cell] = (int64_t)i;
        }
        h->fit[cell]++;
    }
    for (size_t c = 0; c < cells; c++)
        if (h->count[c] > h->per_cell)
            h->per_cell = h->count[c];
    return DAM_OK;
}

void dam_sweep_heat_free(dam_sweep_heat *h)
{
    dam_free(h->row_labels);
    dam_free(h->col_labels);
    dam_free(h->value);
    dam_free(h->best);
    dam_free(h->count);
    dam_free(h->fit);
    dam_free(h->failed);
    dam_free(h->unknown);
    dam_free(h->overloaded);
    memset(h, 0, sizeof *h);
}
