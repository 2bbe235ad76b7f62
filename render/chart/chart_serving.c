/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_serving.c: serving latency percentiles against offered load, with
 * the latency objective (SLO) as a horizontal line.
 *
 * Design note: each series is a line with markers at the measured loads;
 * the SLO line is dashed vermillion and labelled at its right end, above
 * the line, so that where each percentile crosses it reads at a glance.
 * On a linear axis the range starts at 0 so that latencies are compared
 * by height; on a log axis it hugs the data.
 */
#include <math.h>
#include <stdio.h>

#include "render/chart/chart.h"

static const dam_marker marks[] = {DAM_MARK_CIRCLE, DAM_MARK_SQUARE,
                                   DAM_MARK_TRIANGLE, DAM_MARK_DIAMOND};

static int check(const dam_chart_serving *c, dam_error *err)
{
    if (!c->series || c->nseries == 0)
        return dam_error_set(err, "", 0, "serving chart: no series");
    for (size_t i = 0; i < c->nseries; i++) {
        const dam_chart_series *s = &c->series[i];
        const char *lab = s->label ? s->label : "";
        if (!s->x || !s->y || s->n == 0)
            return dam_error_set(err, "", 0,
                                 "serving chart: series \"%s\" is empty",
                                 lab);
        for (size_t j = 0; j < s->n; j++)
            if (!isfinite(s->x[j]) || !isfinite(s->y[j]) || s->x[j] < 0 ||
                s->y[j] < 0 || (c->y_log && s->y[j] <= 0))
                return dam_error_set(err, "", 0,
                                     "serving chart: series \"%s\" point "
                                     "%zu: load and latency must be finite "
                                     "and >= 0%s, got %g, %g",
                                     lab, j + 1,
                                     c->y_log ? " (latency > 0 on a log "
                                                "axis)"
                                              : "",
                                     s->x[j], s->y[j]);
    }
    if (!isfinite(c->slo) || c->slo < 0)
        return dam_error_set(err, "", 0,
                             "serving chart: SLO must be finite and >= 0, "
                             "got %g",
                             c->slo);
    return DAM_OK;
}

int dam_chart_serving_draw(cairo_t *cr, const dam_rect *r,
                           const dam_chart_serving *c, dam_error *err)
{
    int rc;
    char buf[256];

    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    dam_legend_item items[16];
    size_t ni = 0;
    for (size_t i = 0; i < c->nseries && ni < 12; i++) {
        items[ni++] = (dam_legend_item){
            c->series[i].label ? c->series[i].label : "",
            dam_draw_series_color(i), DAM_KEY_MARKER, marks[i % 4]};
    }
    if (c->slo > 0) {
        items[ni++] = (dam_legend_item){c->slo_label ? c->slo_label : "SLO",
                                        DAM_COLOR_VERMILLION, DAM_KEY_DASH,
                                        DAM_MARK_CIRCLE};
    }
    y += dam_draw_legend(cr, r, y, items, ni);

    double xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < c->nseries; i++)
        for (size_t j = 0; j < c->series[i].n; j++) {
            xhi = fmax(xhi, c->series[i].x[j]);
            ylo = fmin(ylo, c->series[i].y[j]);
            yhi = fmax(yhi, c->series[i].y[j]);
        }
    if (c->slo > 0) {
        ylo = fmin(ylo, c->slo);
        yhi = fmax(yhi, c->slo * 1.1);
    }
    dam_draw_axis xa, ya;
    dam_rect plot, area = {r->x, y, r->w, r->y + r->h - y};
    dam_draw_axis_spec xs = {0, xhi > 0 ? xhi : 1, 0, 0, DAM_AXIS_PLAIN,
                             NULL, "offered load (requests/s)"};
    dam_draw_axis_spec ys = {c->y_log ? ylo / 1.3 : 0,
                             c->y_log ? yhi * 1.3 : (yhi > 0 ? yhi : 1),
                             c->y_log, c->y_log, DAM_AXIS_SECONDS, NULL,
                             "latency of a request"};
    if ((rc = dam_draw_xy_begin(cr, &area, &xs, &ys, 0, &plot, &xa, &ya, NULL,
                                err)))
        return rc;
    if (c->slo > 0) {
        double sy = dam_axis_map(&ya.map, c->slo);
        dam_draw_set_color(cr, DAM_COLOR_VERMILLION, 1);
        dam_draw_dashed(cr, plot.x, sy, plot.x + plot.w, sy, 6, 3, 1.5);
        char v[DAM_AXIS_LABEL_MAX];
        dam_axis_format(v, sizeof v, c->slo, 0, 0, DAM_AXIS_SECONDS, NULL);
        snprintf(buf, sizeof buf, "%s", c->slo_label ? c->slo_label : v);
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        /* at the left end: the curves rise at the right */
        dam_draw_text(cr, plot.x + 6, sy - 3, buf, 0, 1);
    }
    if (c->rate_now > 0 && isfinite(c->rate_now) && c->rate_now <= xhi) {
        double rx = dam_axis_map(&xa.map, c->rate_now);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        dam_draw_dashed(cr, rx, plot.y, rx, plot.y + plot.h, 1.5, 2.5, 1.0);
        char v[DAM_AXIS_LABEL_MAX];
        dam_axis_format(v, sizeof v, c->rate_now, 0, 0, DAM_AXIS_PLAIN,
                        NULL);
        snprintf(buf, sizeof buf, "this deployment: %s/s", v);
        dam_draw_font(cr, DAM_FONT_NOTE);
        /* at the bottom, beside the line: the curves are low there */
        dam_draw_text_halo(cr, rx + 4, plot.y + plot.h - 4, buf, 0, 1);
    }
    for (size_t i = 0; i < c->nseries; i++) {
        const dam_chart_series *s = &c->series[i];
        dam_color col = dam_draw_series_color(i);
        dam_draw_set_color(cr, col, 1);
        cairo_set_line_width(cr, 2.0);
        dam_draw_polyline(cr, &xa, &ya, s->x, s->y, s->n, NULL);
        cairo_stroke(cr);
        for (size_t j = 0; j < s->n; j++)
            dam_draw_marker(cr, marks[i % 4], dam_axis_map(&xa.map, s->x[j]),
                            dam_axis_map(&ya.map, s->y[j]), 3.2, col, 1);
    }
    cairo_restore(cr);
    return DAM_OK;
}
