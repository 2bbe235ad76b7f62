/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_pareto.c: the time-cost chart of a sweep: every point, the Pareto
 * front joined and highlighted, the front's points named.
 *
 * Design note: the front comes computed (solver/sweep_summary.h); this file
 * draws what it is given. Dominated points are small hollow grey circles
 * drawn first, points that do not fit in memory hollow vermillion
 * triangles, the front a blue line through filled blue markers on top. A
 * front of a sweep can hold dozens of points close together, so their
 * names do not go beside the points (they would pile up) but in a column
 * right of the plot, in the front's order (fastest at the top: on a front
 * the faster point is the dearer one, so the order of the names is the
 * order of the points from top to bottom and the leaders never cross).
 * Each name sits at its point's height where it can, pushed down or up
 * just enough to clear its neighbours; when the column cannot hold them
 * all, an even selection keeps both ends and a note says how many are
 * named. Names are ellipsized to the column.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "render/chart/chart.h"

#define LABEL_GAP 4.0    /* between the plot and the name column, points */
#define LABEL_SHARE 0.36 /* most of the chart's width the names take */

static int check(const dam_chart_pareto *c, dam_error *err)
{
    if (!c->points || c->npoints == 0)
        return dam_error_set(err, "", 0, "time-cost chart: no points");
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_pareto_point *p = &c->points[i];
        if (!isfinite(p->time) || !isfinite(p->cost) ||
            (c->x_log && p->time <= 0) || (c->y_log && p->cost <= 0))
            return dam_error_set(err, "", 0,
                                 "time-cost chart: point %zu: time and cost "
                                 "must be finite (> 0 on a log axis), got "
                                 "%g, %g",
                                 i + 1, p->time, p->cost);
        if ((unsigned)p->kind > DAM_CHART_PARETO_NOFIT)
            return dam_error_set(err, "", 0,
                                 "time-cost chart: point %zu: unknown kind "
                                 "%d",
                                 i + 1, (int)p->kind);
    }
    return DAM_OK;
}

/* Front points in increasing time (ties: cost, then input order). */
typedef struct fpt {
    double t, c;
    size_t i;
} fpt;

static int by_time(const void *a, const void *b)
{
    const fpt *p = a, *q = b;
    if (p->t != q->t)
        return p->t < q->t ? -1 : 1;
    if (p->c != q->c)
        return p->c < q->c ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* The axis range of the points' times (x) or costs with a margin: on a log
 * axis a few per cent of the ratio (1.5x around a lone value), on a linear
 * one at least a fifth of the larger end tall. */
static void range_of(const dam_chart_pareto *c, int x, double *lo,
                     double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < c->npoints; i++) {
        double v = x ? c->points[i].time : c->points[i].cost;
        a = fmin(a, v);
        b = fmax(b, v);
    }
    if (x ? c->x_log : c->y_log) {
        double f = b > a ? pow(b / a, 0.06) : 1.5;
        a /= f;
        b *= f;
    } else {
        /* at least a material change tall (a fifth of the larger end: the
         * model is good to about 10 %), so that a 1 % difference in cost
         * does not look like a cliff */
        double need = 0.2 * fmax(fabs(a), fabs(b));
        if (b - a < need) {
            double mid = (a + b) / 2;
            int nonneg = a >= 0;
            a = mid - need / 2;
            b = mid + need / 2;
            if (nonneg && a < 0) {
                b -= a;
                a = 0;
            }
        }
        double d = b > a ? (b - a) * 0.06 : fmax(fabs(a) * 0.1, 1e-9);
        a = a - d < 0 && a >= 0 ? 0 : a - d;
        b += d;
    }
    *lo = a;
    *hi = b;
}

/* 1 when b lies inside the placer's bounds and overlaps nothing in it. */
static int free_box(const dam_draw_placer *p, const dam_rect *b)
{
    const dam_rect *o = &p->bounds;
    if (b->x < o->x || b->y < o->y || b->x + b->w > o->x + o->w ||
        b->y + b->h > o->y + o->h)
        return 0;
    for (size_t i = 0; i < p->n; i++) {
        const dam_rect *u = &p->used[i];
        if (b->x < u->x + u->w && u->x < b->x + b->w && b->y < u->y + u->h &&
            u->y < b->y + b->h)
            return 0;
    }
    return 1;
}

/* A free spot for s (current font) beside (x, y), gap points away, among
 * eight around it; 1 with *box set, or 0 when all are taken. */
static int spot(cairo_t *cr, const dam_draw_placer *p, double x, double y,
                double gap, const char *s, dam_rect *box)
{
    double w = dam_draw_text_width(cr, s), h = dam_draw_text_height(cr);
    double d = gap * 0.85; /* diagonals clear the marker's box */
    const double at[8][2] = {{x + gap, y - h / 2},     {x - gap - w, y - h / 2},
                             {x - w / 2, y - gap - h}, {x - w / 2, y + gap},
                             {x + d, y - d - h},       {x + d, y + d},
                             {x - d - w, y - d - h},   {x - d - w, y + d}};
    for (int i = 0; i < 8; i++) {
        dam_rect b = {at[i][0], at[i][1], w, h};
        if (free_box(p, &b)) {
            *box = b;
            return 1;
        }
    }
    return 0;
}

/* The marker's box (to keep labels off it). */
static dam_rect marker_box(double x, double y, double r)
{
    dam_rect b = {x - r - 1, y - r - 1, 2 * r + 2, 2 * r + 2};
    return b;
}

#define R_FRONT 4.2 /* marker radii, points */
#define R_OTHER 2.8
#define R_NOFIT 3.5
#define BESIDE_MAX 12 /* most front names tried beside their points */

/* Start pl over plot with every marker and the front's line (f, nf: the
 * front in increasing time) blocked, so that no label covers them. */
static void start_placer(dam_draw_placer *pl, const dam_rect *plot,
                         const dam_chart_pareto *c, const fpt *f, size_t nf,
                         const dam_draw_axis *xa, const dam_draw_axis *ya)
{
    dam_draw_placer_init(pl, plot);
    for (size_t i = 0; i < c->npoints; i++) {
        double rad =
            c->points[i].kind == DAM_CHART_PARETO_FRONT ? R_FRONT : R_OTHER;
        dam_rect mb = marker_box(dam_axis_map(&xa->map, c->points[i].time),
                                 dam_axis_map(&ya->map, c->points[i].cost),
                                 rad);
        dam_draw_placer_block(pl, &mb);
    }
    for (size_t j = 1; j < nf; j++) {
        const dam_chart_pareto_point *a = &c->points[f[j - 1].i];
        const dam_chart_pareto_point *b = &c->points[f[j].i];
        dam_draw_placer_block_line(pl, dam_axis_map(&xa->map, a->time),
                                   dam_axis_map(&ya->map, a->cost),
                                   dam_axis_map(&xa->map, b->time),
                                   dam_axis_map(&ya->map, b->cost));
    }
}

/* The front's names in a column right of the plot, in the front's order,
 * each near its point's height and joined to it by a thin line; thinned
 * evenly, with a note, when the column has no room for all. */
static void label_column(cairo_t *cr, const dam_chart_pareto *c,
                         const fpt *f, size_t nf, size_t nlab,
                         const dam_rect *plot, const dam_draw_axis *xa,
                         const dam_draw_axis *ya, double colw)
{
#define PX(i) dam_axis_map(&xa->map, c->points[i].time)
#define PY(i) dam_axis_map(&ya->map, c->points[i].cost)
    double lh = dam_draw_text_height(cr) + 1.5;
    double top = plot->y, bot = plot->y + plot->h;
    size_t room = (size_t)((bot - top) / lh);
    if (room < 3)
        room = 3;
    size_t *pick = dam_malloc(nlab * sizeof *pick);
    size_t np = 0;
    for (size_t j = 0; j < nf; j++) {
        const char *s = c->points[f[j].i].label;
        if (s && *s)
            pick[np++] = j;
    }
    size_t shown = np;
    int thinned = np > room;
    if (thinned) {
        shown = room - 1; /* one line for the note */
        for (size_t q = 0; q < shown; q++)
            pick[q] = pick[(size_t)llround((double)q * (np - 1) /
                                           (double)(shown - 1))];
    }
    double *ly = dam_malloc(shown * sizeof *ly);
    double first = top + lh / 2;
    double last = bot - lh / 2 - (thinned ? lh : 0);
    for (size_t q = 0; q < shown; q++) {
        double want = PY(f[pick[q]].i);
        ly[q] = fmax(want, q ? ly[q - 1] + lh : first);
    }
    for (size_t q = shown; q-- > 0;)
        ly[q] = fmin(ly[q], q + 1 < shown ? ly[q + 1] - lh : last);
    double cx = plot->x + plot->w + LABEL_GAP;
    for (size_t q = 0; q < shown; q++) {
        size_t i = f[pick[q]].i;
        cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        cairo_set_line_width(cr, 0.6);
        cairo_move_to(cr, PX(i) + R_FRONT + 0.5, PY(i));
        cairo_line_to(cr, cx - 1, ly[q]);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.05, 0.2, 0.4);
        dam_draw_text_fit(cr, cx, ly[q], c->points[i].label, colw, 0,
                          0.5);
    }
    if (thinned) {
        char note[96];
        snprintf(note, sizeof note, "%zu of %zu front points named",
                 shown, np);
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        dam_draw_text_fit(cr, cx, bot - lh / 2, note, colw, 0, 0.5);
    }
    dam_free(ly);
    dam_free(pick);
#undef PX
#undef PY
}

/* The points, clipped near the plot: dominated ones and those that do
 * not fit hollow, the front joined in time order and filled on top. */
static void draw_points(cairo_t *cr, const dam_chart_pareto *c,
                        const fpt *f, size_t nf, const dam_rect *plot,
                        const dam_draw_axis *xa, const dam_draw_axis *ya)
{
#define PX(i) dam_axis_map(&xa->map, c->points[i].time)
#define PY(i) dam_axis_map(&ya->map, c->points[i].cost)
    cairo_save(cr);
    cairo_rectangle(cr, plot->x - 6, plot->y - 6, plot->w + 12, plot->h + 12);
    cairo_clip(cr);
    for (size_t i = 0; i < c->npoints; i++)
        if (c->points[i].kind == DAM_CHART_PARETO_DOMINATED)
            dam_draw_marker(cr, DAM_MARK_CIRCLE, PX(i), PY(i), R_OTHER,
                            DAM_COLOR_GREY, 0);
    for (size_t i = 0; i < c->npoints; i++)
        if (c->points[i].kind == DAM_CHART_PARETO_NOFIT)
            dam_draw_marker(cr, DAM_MARK_TRIANGLE, PX(i), PY(i), R_NOFIT,
                            DAM_COLOR_VERMILLION, 0);
    if (nf > 1) {
        dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
        cairo_set_line_width(cr, 1.8);
        cairo_move_to(cr, PX(f[0].i), PY(f[0].i));
        for (size_t j = 1; j < nf; j++)
            cairo_line_to(cr, PX(f[j].i), PY(f[j].i));
        cairo_stroke(cr);
    }
    for (size_t j = 0; j < nf; j++)
        dam_draw_marker(cr, DAM_MARK_CIRCLE, PX(f[j].i), PY(f[j].i), R_FRONT,
                        DAM_COLOR_BLUE, 1);
    cairo_restore(cr);
#undef PX
#undef PY
}

int dam_chart_pareto_draw(cairo_t *cr, const dam_rect *r,
                          const dam_chart_pareto *c, dam_error *err)
{
    int rc;
    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    /* the front, in increasing time */
    size_t nf = 0;
    int dom = 0, nofit = 0;
    for (size_t i = 0; i < c->npoints; i++) {
        nf += c->points[i].kind == DAM_CHART_PARETO_FRONT;
        dom |= c->points[i].kind == DAM_CHART_PARETO_DOMINATED;
        nofit |= c->points[i].kind == DAM_CHART_PARETO_NOFIT;
    }
    fpt *f = dam_malloc((nf ? nf : 1) * sizeof *f);
    size_t k = 0, nlab = 0;
    for (size_t i = 0; i < c->npoints; i++)
        if (c->points[i].kind == DAM_CHART_PARETO_FRONT) {
            f[k].t = c->points[i].time;
            f[k].c = c->points[i].cost;
            f[k++].i = i;
            nlab += c->points[i].label && *c->points[i].label;
        }
    qsort(f, nf, sizeof *f, by_time);

    dam_legend_item items[3];
    size_t ni = 0;
    char front_item[96];
    if (nf) {
        snprintf(front_item, sizeof front_item,
                 "time-cost front (%zu point%s: nothing is both faster and "
                 "cheaper)",
                 nf, nf == 1 ? "" : "s");
        items[ni++] = (dam_legend_item){front_item, DAM_COLOR_BLUE,
                                        DAM_KEY_MARKER, DAM_MARK_CIRCLE};
    }
    if (dom) {
        items[ni++] = (dam_legend_item){"dominated", DAM_COLOR_GREY,
                                        DAM_KEY_HOLLOW, DAM_MARK_CIRCLE};
    }
    if (nofit) {
        items[ni++] = (dam_legend_item){"does not fit in GPU memory",
                                        DAM_COLOR_VERMILLION, DAM_KEY_HOLLOW,
                                        DAM_MARK_TRIANGLE};
    }
    y += dam_draw_legend(cr, r, y, items, ni);

    double xlo, xhi, ylo, yhi;
    range_of(c, 1, &xlo, &xhi);
    range_of(c, 0, &ylo, &yhi);
    dam_draw_axis xa, ya;
    dam_rect plot;
    /* a log axis ends where the points do (whole decades could triple
     * its length); a linear one at its next ticks */
    dam_draw_axis_spec xs = {xlo, xhi, c->x_log, c->x_log, c->x_unit,
                             c->x_unit_name, c->x_title};
    dam_draw_axis_spec ys = {ylo, yhi, c->y_log, c->y_log, c->y_unit,
                             c->y_unit_name, c->y_title};
    dam_rect area = {r->x, y, r->w, r->y + r->h - y};
    dam_draw_placer pl;
    memset(&pl, 0, sizeof pl);
    dam_rect *boxes = dam_calloc(nf ? nf : 1, sizeof *boxes);

#define PX(i) dam_axis_map(&xa.map, c->points[i].time)
#define PY(i) dam_axis_map(&ya.map, c->points[i].cost)
    /* the front's names beside their points when every one finds a free
     * spot, else in a column at the right */
    int beside = nlab > 0 && nlab <= BESIDE_MAX;
    if ((rc = dam_draw_xy_layout(cr, &area, &xs, &ys, &plot, &xa, &ya,
                                 err)))
        goto out;
    if (beside) {
        start_placer(&pl, &plot, c, f, nf, &xa, &ya);
        dam_draw_font(cr, DAM_FONT_NOTE);
        for (size_t j = 0; j < nf && beside; j++) {
            const char *s = c->points[f[j].i].label;
            if (!s || !*s)
                continue;
            if (spot(cr, &pl, PX(f[j].i), PY(f[j].i), R_FRONT + 3, s,
                     &boxes[j]))
                dam_draw_placer_block(&pl, &boxes[j]);
            else
                beside = 0;
        }
        if (!beside)
            dam_draw_placer_free(&pl);
    }
    double colw = 0;
    if (!beside && nlab > 0) {
        dam_draw_font(cr, DAM_FONT_NOTE);
        for (size_t j = 0; j < nf; j++) {
            const char *s = c->points[f[j].i].label;
            if (s && *s)
                colw = fmax(colw, dam_draw_text_width(cr, s));
        }
        colw = fmin(colw + 2, r->w * LABEL_SHARE);
        area.w = r->w - colw - LABEL_GAP;
        if ((rc = dam_draw_xy_layout(cr, &area, &xs, &ys, &plot, &xa,
                                     &ya, err)))
            goto out;
        start_placer(&pl, &plot, c, f, nf, &xa, &ya);
    }
    if (!pl.bounds.w)
        dam_draw_placer_init(&pl, &plot);
    dam_draw_axis_grid(cr, &xa, &plot);
    dam_draw_axis_grid(cr, &ya, &plot);
    dam_draw_axis_draw(cr, &xa, &plot, 1);
    dam_draw_axis_draw(cr, &ya, &plot, 1);

    draw_points(cr, c, f, nf, &plot, &xa, &ya);

    dam_draw_font(cr, DAM_FONT_NOTE);
    if (beside) {
        cairo_set_source_rgb(cr, 0.05, 0.2, 0.4);
        for (size_t j = 0; j < nf; j++) {
            const char *s = c->points[f[j].i].label;
            if (s && *s)
                dam_draw_text(cr, boxes[j].x, boxes[j].y, s, 0, 0);
        }
    } else if (nlab > 0) {
        label_column(cr, c, f, nf, nlab, &plot, &xa, &ya, colw);
    }
    /* counts of markers that stand for several points ("x 7"), where a
     * free spot is near */
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    for (size_t i = 0; i < c->npoints; i++) {
        const char *s = c->points[i].label;
        dam_rect b;
        if (c->points[i].kind == DAM_CHART_PARETO_FRONT || !s || !*s)
            continue;
        if (spot(cr, &pl, PX(i), PY(i), R_OTHER + 2.5, s, &b)) {
            dam_draw_placer_block(&pl, &b);
            dam_draw_text(cr, b.x, b.y, s, 0, 0);
        }
    }
#undef PX
#undef PY
out:
    dam_draw_placer_free(&pl);
    dam_free(boxes);
    dam_free(f);
    return rc;
}
