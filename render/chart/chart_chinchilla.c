/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_chinchilla.c: compute-optimal model size: loss against parameters
 * (log x) along iso-FLOP curves, one per budget, each curve's optimum
 * marked and labelled with its size, and the scenario's model marked.
 *
 * Design note: the curves and their optima come from model/'s scaling law
 * (via cli/); this file draws them. A dashed line joins the optima in the
 * order given, which shows the compute-optimal frontier when the caller
 * passes budgets in increasing order. The y range covers the data; a
 * curve's far ends may rise steeply, so the range is capped at the curves'
 * loss at their optima plus three times the spread of those optima (or
 * the data, whichever is tighter), with the curves clipped.
 */
#include <math.h>
#include <stdio.h>

#include "render/chart/chart.h"

static int check(const dam_chart_chinchilla *c, dam_error *err)
{
    if (!c->curves || c->ncurves == 0)
        return dam_error_set(err, "", 0, "chinchilla chart: no curves");
    for (size_t i = 0; i < c->ncurves; i++) {
        const dam_chart_curve *k = &c->curves[i];
        const char *lab = k->label ? k->label : "";
        if (!k->params || !k->loss || k->n < 2 || k->optimum >= k->n)
            return dam_error_set(err, "", 0,
                                 "chinchilla chart: curve \"%s\": needs at "
                                 "least 2 points and an optimum among them",
                                 lab);
        for (size_t j = 0; j < k->n; j++)
            if (!isfinite(k->params[j]) || !isfinite(k->loss[j]) ||
                k->params[j] <= 0)
                return dam_error_set(err, "", 0,
                                     "chinchilla chart: curve \"%s\" point "
                                     "%zu: parameters must be finite and > "
                                     "0 and loss finite, got %g, %g",
                                     lab, j + 1, k->params[j], k->loss[j]);
    }
    if (c->model.label && (!isfinite(c->model.params) ||
                           !isfinite(c->model.loss) || c->model.params <= 0))
        return dam_error_set(err, "", 0,
                             "chinchilla chart: model \"%s\": parameters "
                             "must be finite and > 0 and loss finite",
                             c->model.label);
    return DAM_OK;
}

int dam_chart_chinchilla_draw(cairo_t *cr, const dam_rect *r,
                              const dam_chart_chinchilla *c, dam_error *err)
{
    int rc;
    char buf[256];

    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    dam_legend_item items[16];
    size_t ni = 0;
    for (size_t i = 0; i < c->ncurves && ni < 12; i++) {
        items[ni++] = (dam_legend_item){
            c->curves[i].label ? c->curves[i].label : "",
            dam_draw_series_color(i), DAM_KEY_LINE, DAM_MARK_CIRCLE};
    }
    items[ni++] = (dam_legend_item){"optimum of each budget", DAM_COLOR_BLACK,
                                    DAM_KEY_MARKER, DAM_MARK_CIRCLE};
    if (c->model.label) {
        items[ni++] = (dam_legend_item){c->model.label, DAM_COLOR_VERMILLION,
                                        DAM_KEY_MARKER, DAM_MARK_STAR};
    }
    y += dam_draw_legend(cr, r, y, items, ni);

    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = -INFINITY;
    double omin = INFINITY, omax = -INFINITY;
    for (size_t i = 0; i < c->ncurves; i++) {
        const dam_chart_curve *k = &c->curves[i];
        for (size_t j = 0; j < k->n; j++) {
            xlo = fmin(xlo, k->params[j]);
            xhi = fmax(xhi, k->params[j]);
            ylo = fmin(ylo, k->loss[j]);
            yhi = fmax(yhi, k->loss[j]);
        }
        omin = fmin(omin, k->loss[k->optimum]);
        omax = fmax(omax, k->loss[k->optimum]);
    }
    if (c->model.label) {
        xlo = fmin(xlo, c->model.params);
        xhi = fmax(xhi, c->model.params);
        ylo = fmin(ylo, c->model.loss);
        omax = fmax(omax, c->model.loss);
    }
    double spread = fmax(omax - omin, 0.05 * fabs(omax) + 1e-9);
    yhi = fmin(yhi, omax + 3 * spread);
    double dy = (yhi - ylo) * 0.06;

    dam_draw_axis xa, ya;
    dam_rect plot, area = {r->x, y, r->w, r->y + r->h - y};
    dam_draw_axis_spec xs = {xlo, xhi, 1, 1, DAM_AXIS_COUNT, NULL,
                             "parameters"};
    dam_draw_axis_spec ys = {ylo - dy, yhi + dy, 0, 1, DAM_AXIS_PLAIN, NULL,
                             "predicted loss (nats/token)"};
    dam_draw_placer pl;
    if ((rc = dam_draw_xy_begin(cr, &area, &xs, &ys, 0, &plot, &xa, &ya, &pl,
                                err)))
        return rc;
    for (size_t i = 0; i < c->ncurves; i++) {
        const dam_chart_curve *k = &c->curves[i];
        dam_draw_set_color(cr, dam_draw_series_color(i), 1);
        cairo_set_line_width(cr, 2.0);
        dam_draw_polyline(cr, &xa, &ya, k->params, k->loss, k->n, &pl);
        cairo_stroke(cr);
    }
    /* the optima, joined in the order given */
    double d[2] = {4, 3};
    cairo_set_dash(cr, d, 2, 0);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1.0);
    for (size_t i = 0; i < c->ncurves; i++) {
        const dam_chart_curve *k = &c->curves[i];
        double px = dam_axis_map(&xa.map, k->params[k->optimum]);
        double py = dam_axis_map(&ya.map, k->loss[k->optimum]);
        if (i == 0) {
            cairo_move_to(cr, px, py);
        } else {
            cairo_line_to(cr, px, py);
            const dam_chart_curve *p = &c->curves[i - 1];
            dam_draw_placer_block_line(
                &pl, dam_axis_map(&xa.map, p->params[p->optimum]),
                dam_axis_map(&ya.map, p->loss[p->optimum]), px, py);
        }
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    for (size_t i = 0; i < c->ncurves; i++) {
        const dam_chart_curve *k = &c->curves[i];
        double px = dam_axis_map(&xa.map, k->params[k->optimum]);
        double py = dam_axis_map(&ya.map, k->loss[k->optimum]);
        dam_draw_marker(cr, DAM_MARK_CIRCLE, px, py, 4.5,
                        dam_draw_series_color(i), 1);
        dam_rect mb = {px - 5, py - 5, 10, 10};
        dam_draw_placer_block(&pl, &mb);
    }
    double mx = 0, my = 0;
    if (c->model.label) {
        mx = dam_axis_map(&xa.map, c->model.params);
        my = dam_axis_map(&ya.map, c->model.loss);
        dam_draw_marker(cr, DAM_MARK_STAR, mx, my, 6, DAM_COLOR_VERMILLION,
                        1);
        dam_rect mb = {mx - 7, my - 7, 14, 14};
        dam_draw_placer_block(&pl, &mb);
    }
    /* optimum sizes, then the model's label */
    dam_draw_font(cr, DAM_FONT_NOTE);
    for (size_t i = 0; i < c->ncurves; i++) {
        const dam_chart_curve *k = &c->curves[i];
        char n[DAM_AXIS_LABEL_MAX];
        dam_axis_format(n, sizeof n, k->params[k->optimum], 0, 0,
                        DAM_AXIS_COUNT, NULL);
        snprintf(buf, sizeof buf, "%s", n);
        dam_draw_set_color(cr, dam_draw_series_color(i), 1);
        dam_draw_placer_label(cr, &pl,
                              dam_axis_map(&xa.map, k->params[k->optimum]),
                              dam_axis_map(&ya.map, k->loss[k->optimum]), 6,
                              buf);
    }
    if (c->model.label) {
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        dam_draw_set_color(cr, DAM_COLOR_VERMILLION, 1);
        dam_draw_placer_label(cr, &pl, mx, my, 8, c->model.label);
    }
    cairo_restore(cr);
    dam_draw_placer_free(&pl);
    return DAM_OK;
}
