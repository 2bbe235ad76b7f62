/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_timeline.c: a Gantt chart of the first simulated steps, one lane
 * per worker or link, with a counter (the prefetch queue's depth) as a step
 * curve in a panel beneath on the same time axis.
 *
 * Design note: stalls are hatched vermillion so a reader finds them at a
 * glance, in colour or in grey print. Intervals narrower than half a point
 * are widened to half a point so that short copies stay visible. Both
 * panels share the left margin (the wider of lane names and counter
 * labels) so that their time axes line up.
 */
#include <math.h>
#include <stdio.h>

#include "render/chart/chart.h"

static const char *const kind_names[DAM_CHART_SPAN_KIND_COUNT] = {
    "loading", "H2D copy", "compute", "all-reduce", "overhead",
    "blocked (queue full)", "stall (waiting for data)",
    "waiting for other ranks"};

static int check(const dam_chart_timeline *c, dam_error *err)
{
    if (!c->lanes || c->nlanes == 0)
        return dam_error_set(err, "", 0, "timeline chart: no lanes");
    for (size_t i = 0; i < c->nlanes; i++)
        for (size_t j = 0; j < c->lanes[i].nspans; j++) {
            const dam_chart_span *s = &c->lanes[i].spans[j];
            if (!isfinite(s->start) || !isfinite(s->end) || s->end < s->start)
                return dam_error_set(
                    err, "", 0,
                    "timeline chart: lane \"%s\" interval %zu: expected "
                    "finite start <= end, got [%g, %g]",
                    c->lanes[i].name ? c->lanes[i].name : "", j + 1, s->start,
                    s->end);
            if ((unsigned)s->kind >= DAM_CHART_SPAN_KIND_COUNT)
                return dam_error_set(err, "", 0,
                                     "timeline chart: lane \"%s\" interval "
                                     "%zu: unknown kind %d",
                                     c->lanes[i].name ? c->lanes[i].name : "",
                                     j + 1, (int)s->kind);
        }
    for (size_t i = 0; i < c->nsamples; i++) {
        const dam_chart_sample *s = &c->samples[i];
        if (!isfinite(s->t) || !isfinite(s->value) ||
            (i > 0 && s->t < c->samples[i - 1].t))
            return dam_error_set(err, "", 0,
                                 "timeline chart: counter sample %zu: "
                                 "expected finite values in time order, got "
                                 "(%g, %g)",
                                 i + 1, s->t, s->value);
    }
    if (!isfinite(c->counter_capacity) || !isfinite(c->t0) ||
        !isfinite(c->t1))
        return dam_error_set(err, "", 0,
                             "timeline chart: window and capacity must be "
                             "finite");
    return DAM_OK;
}

/* The window: the chart's own, else every span and sample. */
static void window(const dam_chart_timeline *c, double *t0, double *t1)
{
    *t0 = c->t0;
    *t1 = c->t1;
    if (*t1 <= *t0) {
        *t0 = INFINITY;
        *t1 = -INFINITY;
        for (size_t i = 0; i < c->nlanes; i++)
            for (size_t j = 0; j < c->lanes[i].nspans; j++) {
                *t0 = fmin(*t0, c->lanes[i].spans[j].start);
                *t1 = fmax(*t1, c->lanes[i].spans[j].end);
            }
        for (size_t i = 0; i < c->nsamples; i++) {
            *t0 = fmin(*t0, c->samples[i].t);
            *t1 = fmax(*t1, c->samples[i].t);
        }
        if (!isfinite(*t0)) {
            *t0 = 0;
            *t1 = 1;
        }
        if (*t1 <= *t0)
            *t1 = *t0 + 1e-3;
    }
}

/* One span of a lane centred at cy, th high: a box (hatched for a stall,
 * a block or a wait) and its label where it fits. */
static void draw_span(cairo_t *cr, const dam_chart_span *s,
                      const dam_draw_axis *xa, const dam_rect *lanes,
                      double cy, double th)
{
    double x0 = dam_axis_map(&xa->map, s->start);
    double x1 = dam_axis_map(&xa->map, s->end);
    if (x1 - x0 < 0.5)
        x1 = x0 + 0.5;
    dam_rect box = {x0, cy - th / 2, x1 - x0, th};
    dam_color col = dam_chart_span_color(s->kind);
    if (s->kind == DAM_CHART_SPAN_STALL || s->kind == DAM_CHART_SPAN_BLOCKED ||
        s->kind == DAM_CHART_SPAN_WAIT) {
        dam_draw_hatch(cr, &box, col);
    } else {
        cairo_rectangle(cr, box.x, box.y, box.w, box.h);
        dam_draw_set_color(cr, col, 1);
        cairo_fill(cr);
        if (box.w > 2) {
            cairo_rectangle(cr, box.x, box.y, box.w, box.h);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_set_line_width(cr, 0.6);
            cairo_stroke(cr);
        }
    }
    if (s->label && *s->label) {
        /* clip the label's room to what is visible */
        double vx0 = fmax(x0, lanes->x), vx1 = fmin(x1, lanes->x +
                                                           lanes->w);
        if (dam_draw_text_width(cr, s->label) + 6 < vx1 - vx0 &&
            dam_draw_text_height(cr) < th) {
            if (s->kind == DAM_CHART_SPAN_STALL ||
                s->kind == DAM_CHART_SPAN_BLOCKED ||
                s->kind == DAM_CHART_SPAN_WAIT) {
                /* a white plate under text on hatching */
                dam_rect tb = dam_draw_text_box(
                    cr, (vx0 + vx1) / 2, cy, s->label, 0.5, 0.5);
                cairo_rectangle(cr, tb.x - 2, tb.y, tb.w + 4, tb.h);
                cairo_set_source_rgb(cr, 1, 1, 1);
                cairo_fill(cr);
                cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            } else {
                dam_draw_set_ink(cr, col);
            }
            dam_draw_text(cr, (vx0 + vx1) / 2, cy, s->label, 0.5,
                          0.5);
        }
    }
}

/* The counter's step curve on the lower panel, its title above it and
 * its capacity dashed. */
static void draw_counter(cairo_t *cr, const dam_rect *r,
                         const dam_chart_timeline *c, dam_draw_axis *xa,
                         dam_draw_axis *ya, const dam_rect *lower,
                         double left)
{
    char buf[256];
    if (c->counter_title && *c->counter_title) {
        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        double tx = fmax(r->x, lower->x - left);
        dam_draw_text_fit(cr, tx, lower->y - 4 - ya->label_h / 2,
                          c->counter_title, r->w - 20, 0, 1);
    }
    dam_draw_axis_place(cr, ya, lower->y + lower->h, lower->y);
    dam_draw_axis_grid(cr, xa, lower);
    dam_draw_axis_grid(cr, ya, lower);
    cairo_save(cr);
    cairo_rectangle(cr, lower->x, lower->y, lower->w, lower->h);
    cairo_clip(cr);
    double base = dam_axis_map(&ya->map, fmax(0, ya->map.lo));
    cairo_move_to(cr, dam_axis_map(&xa->map, c->samples[0].t), base);
    for (size_t i = 0; i < c->nsamples; i++) {
        double x = dam_axis_map(&xa->map, c->samples[i].t);
        double v = dam_axis_map(&ya->map, c->samples[i].value);
        double xn = i + 1 < c->nsamples
                        ? dam_axis_map(&xa->map, c->samples[i + 1].t)
                        : fmax(x, lower->x + lower->w);
        cairo_line_to(cr, x, v);
        cairo_line_to(cr, xn, v);
    }
    cairo_path_t *path = cairo_copy_path(cr);
    cairo_line_to(cr, lower->x + lower->w, base);
    cairo_close_path(cr);
    dam_draw_set_color(cr, DAM_COLOR_BLUE, 0.15);
    cairo_fill(cr);
    cairo_new_path(cr);
    cairo_append_path(cr, path);
    cairo_path_destroy(path);
    dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
    if (c->counter_capacity > 0) {
        double cy = dam_axis_map(&ya->map, c->counter_capacity);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        dam_draw_dashed(cr, lower->x, cy, lower->x + lower->w, cy, 4, 3, 1.0);
        char v[DAM_AXIS_LABEL_MAX];
        dam_axis_format(v, sizeof v, c->counter_capacity, 0, 0,
                        DAM_AXIS_PLAIN, NULL);
        snprintf(buf, sizeof buf, "capacity %s", v);
        dam_draw_font(cr, DAM_FONT_NOTE);
        dam_draw_text(cr, lower->x + lower->w - 4, cy + 2, buf, 1, 0);
    }
    cairo_restore(cr);
    dam_draw_axis_draw(cr, xa, lower, 1);
    dam_draw_axis_draw(cr, ya, lower, 1);
}

int dam_chart_timeline_draw(cairo_t *cr, const dam_rect *r,
                            const dam_chart_timeline *c, dam_error *err)
{
    int rc;

    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    int has_counter = c->samples && c->nsamples > 0;

    /* the window */
    double t0, t1;
    window(c, &t0, &t1);

    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    /* legend: kinds that appear */
    dam_legend_item items[DAM_CHART_SPAN_KIND_COUNT];
    size_t ni = 0;
    for (int k = 0; k < DAM_CHART_SPAN_KIND_COUNT; k++) {
        int used = 0;
        for (size_t i = 0; i < c->nlanes; i++)
            for (size_t j = 0; j < c->lanes[i].nspans; j++)
                used |= (int)c->lanes[i].spans[j].kind == k;
        if (!used)
            continue;
        items[ni++] = (dam_legend_item){
            kind_names[k], dam_chart_span_color((dam_chart_span_kind)k),
            k == DAM_CHART_SPAN_STALL || k == DAM_CHART_SPAN_BLOCKED ||
                    k == DAM_CHART_SPAN_WAIT
                ? DAM_KEY_HATCH
                : DAM_KEY_BOX,
            DAM_MARK_CIRCLE};
    }
    y += dam_draw_legend(cr, r, y, items, ni);

    /* axes: time shared; counter on the lower panel */
    dam_draw_axis xa, ya;
    dam_draw_axis_spec xs = {t0, t1, 0, 1, DAM_AXIS_SECONDS, NULL, "time"};
    if ((rc = dam_draw_axis_prepare(cr, &xa, &xs, r->w * 0.8, 0, err)))
        return rc;
    double cmax = c->counter_capacity;
    for (size_t i = 0; i < c->nsamples; i++)
        cmax = fmax(cmax, c->samples[i].value);
    double cmin = 0;
    for (size_t i = 0; i < c->nsamples; i++)
        cmin = fmin(cmin, c->samples[i].value);
    if (cmax <= cmin)
        cmax = cmin + 1;
    double avail = r->y + r->h - y - dam_draw_axis_margin(cr, &xa);
    double ch = has_counter ? fmax(60, avail * 0.26) : 0;
    /* the counter's title sits above its panel, horizontal: a rotated
     * title would not fit the panel's short height */
    dam_draw_font(cr, DAM_FONT_AXIS);
    double gap = has_counter ? dam_draw_text_height(cr) + 12 : 0;
    dam_draw_axis_spec ys = {cmin, cmax, 0, 0, DAM_AXIS_PLAIN, NULL, NULL};
    double left = 0;
    if (has_counter) {
        if ((rc = dam_draw_axis_prepare(cr, &ya, &ys, ch, 1, err)))
            return rc;
        left = dam_draw_axis_margin(cr, &ya);
    }
    dam_draw_font(cr, DAM_FONT_AXIS);
    double namew = 0;
    for (size_t i = 0; i < c->nlanes; i++)
        namew = fmax(namew, dam_draw_text_width(cr, c->lanes[i].name));
    namew = fmin(namew, r->w * 0.28);
    left = fmax(left, namew + 10);

    dam_rect lanes = {r->x + left, y, r->w - left - 12, avail - ch - gap};
    dam_rect lower = {lanes.x, lanes.y + lanes.h + gap, lanes.w, ch};
    if (lanes.w < 60 || lanes.h < 8 * (double)c->nlanes)
        return dam_error_set(err, "", 0,
                             "timeline chart: area too small for %zu lanes",
                             c->nlanes);
    dam_draw_axis_place(cr, &xa, lanes.x, lanes.x + lanes.w);

    /* lanes */
    dam_rect upper_grid = lanes;
    dam_draw_axis_grid(cr, &xa, &upper_grid);
    double band = lanes.h / (double)c->nlanes;
    double th = fmin(band * 0.7, 26);
    for (size_t i = 0; i < c->nlanes; i++) {
        const dam_chart_lane *ln = &c->lanes[i];
        double cy = lanes.y + band * (i + 0.5);
        if (i % 2 == 0) {
            cairo_rectangle(cr, lanes.x, lanes.y + band * i, lanes.w, band);
            cairo_set_source_rgba(cr, 0, 0, 0, 0.025);
            cairo_fill(cr);
        }
        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        dam_draw_text_fit(cr, lanes.x - 8, cy, ln->name, namew, 1, 0.5);

        cairo_save(cr);
        cairo_rectangle(cr, lanes.x, lanes.y, lanes.w, lanes.h);
        cairo_clip(cr);
        dam_draw_font(cr, DAM_FONT_NOTE);
        for (size_t j = 0; j < ln->nspans; j++)
            draw_span(cr, &ln->spans[j], &xa, &lanes, cy, th);
        cairo_restore(cr);
    }
    dam_draw_axis_draw(cr, &xa, &lanes, !has_counter);
    dam_draw_category_axis(cr, &lanes);
    if (!has_counter)
        return DAM_OK;

    /* the counter's step curve */
    draw_counter(cr, r, c, &xa, &ya, &lower, left);
    return DAM_OK;
}
