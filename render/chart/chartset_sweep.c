/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chartset_sweep.c: the charts of a sweep (`damsim sweep --pareto,
 * --heatmap, -o DIR`): which points, their names, the axes' units and the
 * titles, picked from the points' figures (see chartset.h).
 *
 * Design note: the arithmetic (the front, the cells) is solver/
 * sweep_summary's; this file chooses how a reader sees it. Times go in the
 * one unit that suits the largest (days for a training run, milliseconds
 * for a request), money in dollars, axes turn logarithmic when the points
 * span more than a factor of 30. A point is named by its varied values, a
 * number with the last part of its key ("loader_workers 24") and a catalog
 * id alone ("H100-SXM5-80GB"). A sweep of millions of points would draw
 * millions of markers that the eye cannot tell apart: above 20,000 points,
 * points off the front that land within 1/2000 of the plot of one already
 * drawn are drawn once (the front is always drawn whole). The titles say
 * the answer: how many points are on the front and the two ends of it;
 * which cell of the heat map is best and by how much.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "render/chart/chartset.h"
#include "render/out/fmt.h"

#define NAME_MAX_LEN 160   /* a point's name */
#define THIN_ABOVE 20000   /* points above which close markers merge */
#define THIN_GRID 2000.0   /* cells a side of the merging grid */
#define NAME_OTHERS_MAX 12 /* markers up to which all are named */

struct dam_chartset_sweep {
    dam_chart_pareto pareto;
    dam_chart_pareto_point *pts;   /* owned */
    char (*names)[NAME_MAX_LEN];   /* front points' names (owned) */
    char p_title[512], p_sub[1024], p_x[64];
    dam_sweep_heat hm;
    dam_chart_heatmap heat;
    const char **rows, **cols, **notes; /* owned arrays */
    dam_chart_cell *cells;         /* owned */
    double *values;                /* owned */
    char h_title[512], h_sub[1024], h_value[64];
};

void dam_chartset_sweep_release(dam_chartset *cs)
{
    struct dam_chartset_sweep *d = cs->sweep;
    if (!d)
        return;
    dam_free(d->pts);
    dam_free(d->names);
    dam_sweep_heat_free(&d->hm);
    dam_free(d->rows);
    dam_free(d->cols);
    dam_free(d->notes);
    dam_free(d->cells);
    dam_free(d->values);
    dam_free(d);
    cs->sweep = NULL;
}

/* 1 when s is a number and nothing else, or a bin "A-B" of numbers. */
static int numeric(const char *s)
{
    char *end;
    strtod(s, &end);
    if (*s && *end == '-' && end > s) {
        const char *b = end + 1;
        strtod(b, &end);
        return *b && !*end;
    }
    return *s && !*end;
}

/* The last part of a key: "pipeline.loader_workers" -> "loader_workers". */
static const char *short_key(const char *key)
{
    const char *d = strrchr(key, '.');
    return d ? d + 1 : key;
}

/* "value" for an id, "key value" for a number. */
static size_t value_name(char *out, size_t n, const char *key,
                         const char *value)
{
    int len = numeric(value)
                  ? snprintf(out, n, "%s %s", short_key(key), value)
                  : snprintf(out, n, "%s", value);
    return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

/* A point's name from its varied values. */
static void point_name(const dam_sweep *sw, uint64_t i, char *out, size_t n)
{
    char values[DAM_SWEEP_MAX_KEYS][DAM_SWEEP_VALUE_MAX];
    dam_sweep_point(sw, i, values);
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < sw->nkeys && used + 3 < n; k++) {
        if (k) {
            memcpy(out + used, ", ", 3);
            used += 2;
        }
        used += value_name(out + used, n - used, sw->keys[k].key, values[k]);
    }
}

/* Words for a time unit, for axis titles. */
static const char *unit_words(dam_fmt_time_unit u)
{
    switch (u) {
    case DAM_FMT_US: return "µs";
    case DAM_FMT_MS: return "ms";
    case DAM_FMT_S: return "s";
    case DAM_FMT_MIN: return "minutes";
    case DAM_FMT_H: return "hours";
    default: return "days";
    }
}

static int serving(const dam_sweep *sw)
{
    return sw->base && sw->base->mode == DAM_MODE_SERVING;
}

/* ---- the time-cost front -------------------------------------------- */

/* Keep a marker unless one of the same kind was drawn within a grid cell
 * (huge sweeps only). seen: open-addressed set of cell keys (+1; 0 is
 * empty) of cap slots, a power of two. */
static int first_in_cell(uint64_t *seen, size_t cap, uint64_t key)
{
    key += 1;
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
    while (seen[h]) {
        if (seen[h] == key)
            return 0;
        h = (h + 1) & (cap - 1);
    }
    seen[h] = key;
    return 1;
}

/* Where v lies between lo and hi, 0..1 (log when lg). */
static double frac(double v, double lo, double hi, int lg)
{
    if (!(hi > lo))
        return 0.0;
    return lg ? (log(v) - log(lo)) / (log(hi) - log(lo))
              : (v - lo) / (hi - lo);
}

/* A drawn point, for grouping identical ones. */
typedef struct drawn {
    double x, y;  /* time (s), cost (USD) */
    int kind;     /* dam_chart_pareto_kind */
    size_t i;     /* point number */
} drawn;

static int by_place(const void *a, const void *b)
{
    const drawn *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    if (p->kind != q->kind)
        return p->kind < q->kind ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* The markers' names: a few off the front (when there are few markers;
 * the chart writes a name where there is room, else only their counts),
 * and every front point's, with the points tied with it. src: each
 * marker's point; rank: a point's place on the front + 1, else 0. */
static void name_markers(struct dam_chartset_sweep *d, const dam_sweep *sw,
                         size_t m, const size_t *src, const size_t *rank,
                         const size_t *front, const size_t *ties)
{
    /* a few markers off the front are named too (the chart writes a name
     * where there is room), else only their counts */
    if (m <= NAME_OTHERS_MAX)
        for (size_t q = 0; q < m; q++) {
            dam_chart_pareto_point *p = &d->pts[q];
            if (p->kind == DAM_CHART_PARETO_FRONT)
                continue;
            size_t cnt = 1;
            if (p->label) /* "×N" */
                cnt = (size_t)strtoul(p->label + 2, NULL, 10);
            char *sname = d->names[q];
            point_name(sw, src[q], sname, NAME_MAX_LEN);
            if (cnt > 1) {
                size_t L = strlen(sname);
                snprintf(sname + L, NAME_MAX_LEN - L, " (+%zu tied)",
                         cnt - 1);
            }
            p->label = sname;
        }
    /* names of the front's points */
    for (size_t q = 0; q < m; q++) {
        dam_chart_pareto_point *p = &d->pts[q];
        if (p->kind != DAM_CHART_PARETO_FRONT)
            continue;
        size_t j = rank[src[q]] - 1;
        char *sname = d->names[q];
        point_name(sw, front[j], sname, NAME_MAX_LEN);
        if (ties[j]) {
            size_t L = strlen(sname);
            snprintf(sname + L, NAME_MAX_LEN - L, " (+%zu tied)", ties[j]);
        }
        p->label = sname;
    }
}

/* The front's title and subtitle: the answer (how many are worth it),
 * the front's two ends in the axis's time unit u, and the points that
 * fail, do not fit or have no price. */
static void pareto_titles(struct dam_chartset_sweep *d, const dam_sweep *sw,
                          const dam_sweep_fig *figs, const double *x,
                          const double *y, const size_t *front, size_t nf,
                          dam_fmt_time_unit u, size_t failed, size_t nofit,
                          size_t noprice)
{
    size_t n = (size_t)sw->npoints, over = 0;
    for (size_t i = 0; i < n; i++)
        over += figs[i].ok && figs[i].fits && figs[i].overloaded;
    if (nf == 0 && over > 0) {
        snprintf(d->p_title, sizeof d->p_title,
                 "Which configuration is worth it? None: %zu of %zu are past "
                 "their capacity (overloaded), the rest do not fit or fail",
                 over, n);
        snprintf(d->p_sub, sizeof d->p_sub, "%s.", sw->base->name);
        return;
    }
    if (nf == 0) {
        /* no point fits: no front, the markers are all "does not fit" */
        snprintf(d->p_title, sizeof d->p_title,
                 "Which configuration is worth it? None: no point of %zu "
                 "fits in GPU memory",
                 n);
        snprintf(d->p_sub, sizeof d->p_sub,
                 "%zu do%s not fit; %zu fail%s (the rows say why). %s.",
                 nofit, nofit == 1 ? "es" : "", failed,
                 failed == 1 ? "s" : "", sw->base->name);
        return;
    }
    double us = dam_fmt_time_unit_seconds(u);
    /* the answer: how many are worth it, and the front's two ends, in the
     * axis's time unit */
    char n0[NAME_MAX_LEN], n1[NAME_MAX_LEN];
    point_name(sw, front[0], n0, sizeof n0);
    point_name(sw, front[nf - 1], n1, sizeof n1);
    char t0[32], c0[32], t1[32], c1[32];
    const char *sym = dam_fmt_time_symbol(u);
    dam_fmt_num(t0, sizeof t0, x[front[0]] / us, DAM_FMT_SIG);
    dam_fmt_usd(c0, sizeof c0, y[front[0]], DAM_FMT_SIG);
    dam_fmt_num(t1, sizeof t1, x[front[nf - 1]] / us, DAM_FMT_SIG);
    dam_fmt_usd(c1, sizeof c1, y[front[nf - 1]], DAM_FMT_SIG);
    unsigned long long total = (unsigned long long)n;
    if (nf == 1)
        snprintf(d->p_title, sizeof d->p_title,
                 "Which configuration is worth it? One is both the fastest "
                 "and the cheapest of %llu",
                 total);
    else
        snprintf(d->p_title, sizeof d->p_title,
                 "Which configurations are worth it? %zu of %llu are on the "
                 "time-cost front",
                 nf, total);
    size_t L;
    if (nf == 1)
        L = (size_t)snprintf(d->p_sub, sizeof d->p_sub, "%s: %s %s, %s. %s.",
                             n0, t0, sym, c0, sw->base->name);
    else
        L = (size_t)snprintf(d->p_sub, sizeof d->p_sub,
                             "Fastest: %s, %s %s, %s. Cheapest: %s, %s %s, "
                             "%s. %s.",
                             n0, t0, sym, c0, n1, t1, sym, c1,
                             sw->base->name);
    if (L < sizeof d->p_sub && failed)
        L += (size_t)snprintf(d->p_sub + L, sizeof d->p_sub - L,
                              " %zu point%s fail%s (the rows say why).",
                              failed, failed == 1 ? "" : "s",
                              failed == 1 ? "s" : "");
    if (L < sizeof d->p_sub && nofit)
        L += (size_t)snprintf(d->p_sub + L, sizeof d->p_sub - L,
                              " %zu do%s not fit in GPU memory.", nofit,
                              nofit == 1 ? "es" : "");
    if (L < sizeof d->p_sub && over)
        L += (size_t)snprintf(d->p_sub + L, sizeof d->p_sub - L,
                              " %zu past %s capacity (overloaded) left out.",
                              over, over == 1 ? "its" : "their");
    if (L < sizeof d->p_sub && noprice) {
        /* which, when few */
        char which[3 * NAME_MAX_LEN + 8] = "";
        size_t w = 0;
        for (size_t i = 0; i < n && noprice <= 3; i++)
            if (figs[i].ok && !isfinite(y[i])) {
                char nm[NAME_MAX_LEN];
                point_name(sw, i, nm, sizeof nm);
                w += (size_t)snprintf(which + w, sizeof which - w, "%s%s",
                                      w ? "; " : ": ", nm);
            }
        snprintf(d->p_sub + L, sizeof d->p_sub - L,
                 " %zu ha%s no price per GPU-hour%s (not shown).", noprice,
                 noprice == 1 ? "s" : "ve", which);
    }
}

static int build_pareto(dam_chartset *cs, struct dam_chartset_sweep *d,
                        const dam_sweep *sw, const dam_sweep_fig *figs,
                        dam_error *err)
{
    size_t n = (size_t)sw->npoints;
    double *x = dam_malloc((n ? n : 1) * sizeof *x);
    double *y = dam_malloc((n ? n : 1) * sizeof *y);
    unsigned char *use = dam_calloc(n ? n : 1, 1);
    size_t *front = dam_malloc((n ? n : 1) * sizeof *front);
    size_t *rank = dam_calloc(n ? n : 1, sizeof *rank); /* j + 1 on the
                                                           front, else 0 */
    drawn *dr = dam_malloc((n ? n : 1) * sizeof *dr);
    size_t failed = 0, nofit = 0, shown = 0, noprice = 0;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY,
           ymax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        x[i] = dam_sweep_fig_time(sw, &figs[i]);
        y[i] = figs[i].cost;
        failed += !figs[i].ok;
        noprice += figs[i].ok && !isfinite(y[i]);
        if (!figs[i].ok || !isfinite(x[i]) || !isfinite(y[i]))
            continue;
        /* past its capacity a point's latency is a lone request's and its
         * queue grows without bound: left out (the subtitle counts it) */
        if (figs[i].fits && figs[i].overloaded)
            continue;
        use[i] = figs[i].fits != 0;
        nofit += !figs[i].fits;
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        ymin = fmin(ymin, y[i]);
        ymax = fmax(ymax, y[i]);
        dr[shown].x = x[i];
        dr[shown].y = y[i];
        dr[shown].i = i;
        shown++;
    }
    size_t nf = dam_pareto_front(x, y, use, n, front, NULL);
    int rc = DAM_OK;
    if (shown == 0) {
        rc = failed == n ? dam_error_set(err, "", 0,
                                         "no point of the sweep solved (their "
                                         "rows say why): no time-cost chart")
                         : dam_error_set(err, "", 0,
                                         "no point of the sweep has both a "
                                         "time and a cost (%zu have no price "
                                         "per GPU-hour, %zu fail): no "
                                         "time-cost chart",
                                         noprice, failed);
        goto out;
    }
    for (size_t j = 0; j < nf; j++)
        rank[front[j]] = j + 1;
    for (size_t k = 0; k < shown; k++) {
        size_t i = dr[k].i;
        dr[k].kind = rank[i] ? DAM_CHART_PARETO_FRONT
                     : figs[i].fits ? DAM_CHART_PARETO_DOMINATED
                                    : DAM_CHART_PARETO_NOFIT;
    }
    /* points at one place are one marker: a front point names how many
     * tie with it; other markers say "x N" */
    qsort(dr, shown, sizeof *dr, by_place);

    dam_fmt_time_unit u = dam_fmt_time_pick(xmax);
    double us = dam_fmt_time_unit_seconds(u);
    int xlog = xmin > 0 && xmax / xmin > 30;
    int ylog = ymin > 0 && ymax / ymin > 30;
    int thin = shown > THIN_ABOVE;
    size_t cap = 1;
    while (thin && cap < 2 * shown)
        cap <<= 1;
    uint64_t *seen = thin ? dam_calloc(cap, sizeof *seen) : NULL;
    d->pts = dam_malloc(shown * sizeof *d->pts);
    d->names = dam_calloc(shown, sizeof *d->names);
    size_t m = 0, *ties = dam_calloc(nf ? nf : 1, sizeof *ties);
    size_t *src = dam_malloc(shown * sizeof *src); /* each marker's point */
    for (size_t g = 0; g < shown;) {
        size_t e = g;
        while (e < shown && dr[e].x == dr[g].x && dr[e].y == dr[g].y)
            e++;
        /* the group [g, e): its front point (first: kinds sort FRONT
         * first), else one marker per kind */
        if (dr[g].kind == DAM_CHART_PARETO_FRONT)
            ties[rank[dr[g].i] - 1] = e - g - 1;
        for (size_t k = g; k < e;) {
            size_t q = k;
            while (q < e && dr[q].kind == dr[k].kind)
                q++;
            int keep = 1;
            if (dr[g].kind == DAM_CHART_PARETO_FRONT && k > g)
                keep = 0; /* under the front point, counted in its name */
            if (keep && thin && dr[k].kind != DAM_CHART_PARETO_FRONT) {
                uint64_t bx = (uint64_t)(frac(dr[k].x, xmin, xmax, xlog) *
                                         THIN_GRID);
                uint64_t by = (uint64_t)(frac(dr[k].y, ymin, ymax, ylog) *
                                         THIN_GRID);
                keep = first_in_cell(seen, cap,
                                     (bx * 4096 + by) * 4 +
                                         (uint64_t)dr[k].kind);
            }
            if (keep) {
                dam_chart_pareto_point *p = &d->pts[m];
                src[m] = dr[k].i;
                p->time = dr[k].x / us;
                p->cost = dr[k].y;
                p->kind = (dam_chart_pareto_kind)dr[k].kind;
                p->label = NULL;
                if (dr[k].kind != DAM_CHART_PARETO_FRONT && q - k > 1 &&
                    !thin) {
                    snprintf(d->names[m], NAME_MAX_LEN, "\u00d7%zu", q - k);
                    p->label = d->names[m];
                }
                m++;
            }
            k = q;
        }
        g = e;
    }
    dam_free(seen);
    name_markers(d, sw, m, src, rank, front, ties);
    d->pareto.points = d->pts;
    d->pareto.npoints = m;
    snprintf(d->p_x, sizeof d->p_x, "%s (%s)",
             serving(sw) ? "time per request" : "time to train",
             unit_words(u));
    d->pareto.x_title = d->p_x;
    d->pareto.x_unit = DAM_AXIS_PLAIN;
    d->pareto.y_title = "cost of the run";
    d->pareto.y_unit = DAM_AXIS_USD;
    d->pareto.x_log = xlog;
    d->pareto.y_log = ylog;

    pareto_titles(d, sw, figs, x, y, front, nf, u, failed, nofit, noprice);
    d->pareto.title = d->p_title;
    d->pareto.subtitle = d->p_sub;
    dam_chartset_add(cs, DAM_CHART_PARETO, "pareto")->u.pareto = &d->pareto;
    dam_free(ties);
    dam_free(src);
out:
    dam_free(x);
    dam_free(y);
    dam_free(use);
    dam_free(front);
    dam_free(rank);
    dam_free(dr);
    return rc;
}

/* ---- the heat map --------------------------------------------------- */

/* How the metric is shown: its name, unit and scale, over the values. */
static void metric_view(const dam_sweep *sw, dam_sweep_metric m,
                        const double *v, const dam_chart_cell *cells,
                        size_t n, struct dam_chartset_sweep *d, double *scale,
                        dam_axis_unit *unit)
{
    double big = 0;
    for (size_t i = 0; i < n; i++)
        if (cells[i] == DAM_CHART_CELL_VALUE)
            big = fmax(big, fabs(v[i]));
    *scale = 1.0;
    *unit = DAM_AXIS_PLAIN;
    dam_fmt_time_unit u = dam_fmt_time_pick(big);
    switch (m) {
    case DAM_SWEEP_METRIC_STEP:
        *scale = dam_fmt_time_unit_seconds(u);
        snprintf(d->h_value, sizeof d->h_value, "%s (%s)",
                 serving(sw) ? "time per request" : "time per step",
                 unit_words(u));
        break;
    case DAM_SWEEP_METRIC_RUN_TIME:
        *scale = dam_fmt_time_unit_seconds(u);
        snprintf(d->h_value, sizeof d->h_value, "run time (%s)",
                 unit_words(u));
        break;
    case DAM_SWEEP_METRIC_THROUGHPUT:
        snprintf(d->h_value, sizeof d->h_value, "throughput (%s/s)",
                 serving(sw) ? "requests" : "samples");
        break;
    case DAM_SWEEP_METRIC_ENERGY:
        snprintf(d->h_value, sizeof d->h_value, "energy (kWh)");
        break;
    case DAM_SWEEP_METRIC_COST:
    default:
        *unit = DAM_AXIS_USD;
        snprintf(d->h_value, sizeof d->h_value, "cost of the run");
        break;
    }
}

/* The metric's value in words for a title ("$7,800", "2.04 d"). */
static void metric_text(char *buf, size_t n, const dam_sweep *sw,
                        dam_sweep_metric m, double v)
{
    char t[40];
    switch (m) {
    case DAM_SWEEP_METRIC_STEP:
    case DAM_SWEEP_METRIC_RUN_TIME:
        dam_fmt_time(buf, n, v);
        break;
    case DAM_SWEEP_METRIC_THROUGHPUT:
        dam_fmt_num(t, sizeof t, v, DAM_FMT_SIG);
        snprintf(buf, n, "%s %s/s", t, serving(sw) ? "requests" : "samples");
        break;
    case DAM_SWEEP_METRIC_ENERGY:
        dam_fmt_num(t, sizeof t, v, DAM_FMT_SIG);
        snprintf(buf, n, "%s kWh", t);
        break;
    case DAM_SWEEP_METRIC_COST:
    default:
        dam_fmt_usd(buf, n, v, DAM_FMT_SIG);
        break;
    }
}

static int build_heatmap(dam_chartset *cs, struct dam_chartset_sweep *d,
                         const dam_sweep *sw, const dam_sweep_fig *figs,
                         dam_sweep_metric metric, dam_error *err)
{
    dam_sweep_heat *h = &d->hm;
    int rc = dam_sweep_heat_build(sw, figs, 0, 1, metric, h, err);
    if (rc != DAM_OK)
        return rc;
    size_t nr = (size_t)h->nrows, nc = (size_t)h->ncols, n = nr * nc;
    d->rows = dam_calloc(nr, sizeof *d->rows);
    d->cols = dam_calloc(nc, sizeof *d->cols);
    d->notes = dam_calloc(n, sizeof *d->notes);
    d->cells = dam_calloc(n, sizeof *d->cells);
    d->values = dam_calloc(n, sizeof *d->values);
    for (size_t i = 0; i < nr; i++)
        d->rows[i] = h->row_labels[i];
    for (size_t j = 0; j < nc; j++)
        d->cols[j] = h->col_labels[j];
    int higher = dam_sweep_metric_higher_is_better(metric);
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        if (h->fit[i]) {
            d->cells[i] = DAM_CHART_CELL_VALUE;
            d->values[i] = h->value[i];
            d->notes[i] = dam_bound_name(figs[h->best[i]].bound);
            if (best < 0 || (higher ? h->value[i] > h->value[best]
                                    : h->value[i] < h->value[best]))
                best = (long)i;
        } else if (h->count[i] == 0) {
            d->cells[i] = DAM_CHART_CELL_EMPTY;
        } else if (h->unknown[i] > 0) {
            d->cells[i] = DAM_CHART_CELL_NA;
        } else if (h->overloaded[i] > 0) {
            d->cells[i] = DAM_CHART_CELL_OVERLOADED;
        } else if (h->failed[i] == h->count[i]) {
            d->cells[i] = DAM_CHART_CELL_FAILED;
        } else {
            d->cells[i] = DAM_CHART_CELL_NOFIT;
        }
    }
    double scale;
    dam_axis_unit unit;
    metric_view(sw, metric, d->values, d->cells, n, d, &scale, &unit);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (d->cells[i] == DAM_CHART_CELL_VALUE) {
            d->values[i] /= scale;
            lo = fmin(lo, d->values[i]);
            hi = fmax(hi, d->values[i]);
        }
    dam_chart_heatmap *c = &d->heat;
    c->nrows = nr;
    c->ncols = nc;
    c->row_labels = d->rows;
    c->col_labels = d->cols;
    c->row_title = sw->keys[h->row_key].key;
    c->col_title = sw->keys[h->col_key].key;
    c->cells = d->cells;
    c->values = d->values;
    c->notes = d->notes;
    c->value_title = d->h_value;
    c->unit = unit;
    c->log = lo > 0 && hi / lo > 30;
    c->best = best;

    /* the answer: the best cell and its value */
    const char *what = d->h_value;
    char bestname[2 * NAME_MAX_LEN], val[64];
    if (best >= 0) {
        size_t L = value_name(bestname, sizeof bestname,
                              sw->keys[h->row_key].key,
                              h->row_labels[best / (long)nc]);
        snprintf(bestname + L, sizeof bestname - L, " with ");
        L += 6;
        value_name(bestname + L, sizeof bestname - L,
                   sw->keys[h->col_key].key, h->col_labels[best % (long)nc]);
        metric_text(val, sizeof val, sw, metric, h->value[best]);
        size_t ties = 0;
        for (size_t i = 0; i < n; i++)
            ties += (long)i != best && d->cells[i] == DAM_CHART_CELL_VALUE &&
                    h->value[i] == h->value[best];
        char tie[64] = "";
        if (ties)
            snprintf(tie, sizeof tie, " (%zu more cell%s tie%s)", ties,
                     ties == 1 ? "" : "s", ties == 1 ? "s" : "");
        snprintf(d->h_title, sizeof d->h_title,
                 "Where is the %.*s %s? %s: %s%s",
                 (int)(strchr(what, '(') ? strchr(what, '(') - what - 1
                                         : (long)strlen(what)),
                 what, higher ? "highest" : "lowest", bestname, val, tie);
    } else {
        snprintf(d->h_title, sizeof d->h_title,
                 "No cell has a point that solves and fits in memory");
    }
    size_t L = (size_t)snprintf(d->h_sub, sizeof d->h_sub, "%s.",
                                sw->base->name);
    if (h->per_cell > 1 && L < sizeof d->h_sub) {
        char others[256] = "";
        size_t o = 0;
        for (int k = 0; k < sw->nkeys && o + 2 < sizeof others; k++)
            if (k != h->row_key && k != h->col_key)
                o += (size_t)snprintf(others + o, sizeof others - o, "%s%s",
                                      o ? ", " : "", sw->keys[k].key);
        L += (size_t)snprintf(d->h_sub + L, sizeof d->h_sub - L,
                              " Each cell: the %s of its points%s%s "
                              "(up to %llu a cell).",
                              higher ? "highest" : "lowest",
                              o ? " over " : "", others,
                              (unsigned long long)h->per_cell);
    }
    if (L < sizeof d->h_sub)
        snprintf(d->h_sub + L, sizeof d->h_sub - L,
                 " Under each value: what binds.");
    c->title = d->h_title;
    c->subtitle = d->h_sub;
    dam_chartset_add(cs, DAM_CHART_HEATMAP, "heatmap")->u.heatmap = c;
    return DAM_OK;
}

int dam_chartset_sweep(dam_chartset *cs, const dam_sweep *sw,
                       const dam_sweep_fig *figs, int pareto, int heatmap,
                       dam_sweep_metric metric, dam_error *err)
{
    memset(cs, 0, sizeof *cs);
    cs->sweep = dam_calloc(1, sizeof *cs->sweep);
    int rc = DAM_OK;
    if (pareto)
        rc = build_pareto(cs, cs->sweep, sw, figs, err);
    if (rc == DAM_OK && heatmap)
        rc = build_heatmap(cs, cs->sweep, sw, figs, metric, err);
    if (cs->ncharts > 0) {
        snprintf(cs->titles[0], sizeof cs->titles[0], "%s",
                 pareto ? cs->sweep->p_title : cs->sweep->h_title);
        cs->ntitles = 1;
    }
    return rc;
}
