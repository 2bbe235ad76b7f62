/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_roofline.c: the roofline, log-log: attainable FLOP/s against
 * arithmetic intensity (FLOP/byte), one roof per GPU, each ridge point
 * marked, and the workload's phases as points.
 *
 * Design note: a roof is min(peak, bw * I); drawing it needs only the two
 * given numbers and the ends of the x axis, and the ridge is where the two
 * pieces meet (peak / bw), a point on the drawing rather than a model
 * figure. Labels go through the placer: roof labels first (they are
 * fixed), then ridge labels, then one label per point, each avoiding every
 * marker and every label already placed.
 */
#include <math.h>
#include <stdio.h>

#include "render/chart/chart.h"

static int check(const dam_chart_roofline *c, dam_error *err)
{
    if (!c->ceilings || c->nceilings == 0)
        return dam_error_set(err, "", 0, "roofline chart: no ceilings");
    for (size_t i = 0; i < c->nceilings; i++) {
        const dam_chart_ceiling *k = &c->ceilings[i];
        if (!isfinite(k->peak) || !isfinite(k->bw) || k->peak <= 0 ||
            k->bw <= 0)
            return dam_error_set(err, "", 0,
                                 "roofline chart: ceiling \"%s\": peak and "
                                 "bandwidth must be finite and > 0, got %g "
                                 "FLOP/s, %g B/s",
                                 k->label ? k->label : "", k->peak, k->bw);
    }
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_roofpoint *p = &c->points[i];
        if (p->ceiling >= c->nceilings)
            return dam_error_set(err, "", 0,
                                 "roofline chart: point \"%s\": ceiling %zu, "
                                 "but there are %zu",
                                 p->label ? p->label : "", p->ceiling,
                                 c->nceilings);
        if (!isfinite(p->intensity) || !isfinite(p->flops) ||
            p->intensity <= 0 || p->flops <= 0)
            return dam_error_set(err, "", 0,
                                 "roofline chart: point \"%s\": intensity "
                                 "and FLOP/s must be finite and > 0, got "
                                 "%g, %g",
                                 p->label ? p->label : "", p->intensity,
                                 p->flops);
    }
    return DAM_OK;
}

/* Dash pattern of roof i: solid, then longer and shorter dashes, so two
 * roofs on one slope show both colours. */
static void roof_dash(cairo_t *cr, size_t i)
{
    static const double pat[4][2] = {{0, 0}, {9, 4}, {4, 3}, {2, 2}};
    size_t k = i % 4;
    if (k == 0)
        cairo_set_dash(cr, NULL, 0, 0);
    else
        cairo_set_dash(cr, pat[k], 2, 0);
}

/* The roofs, the first (as configured) drawn last so it is on top; the
 * others dashed, so a roof under another still shows. Labels placed later
 * keep off them (pl). */
static void draw_roofs(cairo_t *cr, const dam_chart_roofline *c,
                       const dam_draw_axis *xa, const dam_draw_axis *ya,
                       dam_draw_placer *pl)
{
    for (size_t j = c->nceilings; j-- > 0;) {
        size_t i = j;
        const dam_chart_ceiling *k = &c->ceilings[i];
        double ridge = k->peak / k->bw;
        double x0 = xa->map.lo, x1 = xa->map.hi;
        dam_draw_set_color(cr, dam_draw_series_color(i), 1);
        cairo_set_line_width(cr, 2.2);
        roof_dash(cr, i);
        cairo_move_to(cr, dam_axis_map(&xa->map, x0),
                      dam_axis_map(&ya->map, k->bw * x0));
        if (ridge > x0 && ridge < x1)
            cairo_line_to(cr, dam_axis_map(&xa->map, ridge),
                          dam_axis_map(&ya->map, k->peak));
        cairo_line_to(cr, dam_axis_map(&xa->map, x1),
                      dam_axis_map(&ya->map, fmin(k->peak, k->bw * x1)));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        /* labels keep off the roof */
        double rx = fmin(fmax(ridge, x0), x1);
        dam_draw_placer_block_line(pl, dam_axis_map(&xa->map, x0),
                                   dam_axis_map(&ya->map, k->bw * x0),
                                   dam_axis_map(&xa->map, rx),
                                   dam_axis_map(&ya->map, k->bw * rx));
        dam_draw_placer_block_line(pl, dam_axis_map(&xa->map, rx),
                                   dam_axis_map(&ya->map, k->bw * rx),
                                   dam_axis_map(&xa->map, x1),
                                   dam_axis_map(&ya->map,
                                                fmin(k->peak, k->bw * x1)));
    }
}

int dam_chart_roofline_draw(cairo_t *cr, const dam_rect *r,
                            const dam_chart_roofline *c, dam_error *err)
{
    int rc;
    char buf[256], a[DAM_AXIS_LABEL_MAX], b[DAM_AXIS_LABEL_MAX];

    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    /* legend: roofs, then the groups present */
    dam_legend_item items[16];
    char roof[12][128];
    size_t ni = 0;
    for (size_t i = 0; i < c->nceilings && ni < 12; i++) {
        dam_axis_format(a, sizeof a, c->ceilings[i].peak, 0, 0, DAM_AXIS_SI,
                        "FLOP/s");
        dam_axis_format(b, sizeof b, c->ceilings[i].bw, 0, 0, DAM_AXIS_SI,
                        "B/s");
        snprintf(roof[i], sizeof roof[i], "%s (%s, %s)",
                 c->ceilings[i].label ? c->ceilings[i].label : "", a, b);
        items[ni++] = (dam_legend_item){roof[i], dam_draw_series_color(i),
                                        i % 4 ? DAM_KEY_DASH : DAM_KEY_LINE,
                                        DAM_MARK_CIRCLE};
    }
    int groups = 0;
    for (size_t i = 0; i < c->npoints; i++)
        groups |= 1 << (c->points[i].group == DAM_GROUP_AFTER);
    /* the groups by shape, in black: colour says which roof */
    if (groups & 1) {
        items[ni++] = (dam_legend_item){
            c->before_label ? c->before_label : "as configured",
            DAM_COLOR_BLACK, DAM_KEY_HOLLOW, DAM_MARK_CIRCLE};
    }
    if (groups & 2) {
        items[ni++] = (dam_legend_item){
            c->after_label ? c->after_label : "with the lever", DAM_COLOR_BLACK,
            DAM_KEY_MARKER, DAM_MARK_DIAMOND};
    }
    y += dam_draw_legend(cr, r, y, items, ni);

    /* ranges: every point and ridge, with room around */
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (size_t i = 0; i < c->nceilings; i++) {
        double ridge = c->ceilings[i].peak / c->ceilings[i].bw;
        xlo = fmin(xlo, ridge);
        xhi = fmax(xhi, ridge);
        yhi = fmax(yhi, c->ceilings[i].peak);
    }
    for (size_t i = 0; i < c->npoints; i++) {
        xlo = fmin(xlo, c->points[i].intensity);
        xhi = fmax(xhi, c->points[i].intensity);
        ylo = fmin(ylo, c->points[i].flops);
        yhi = fmax(yhi, c->points[i].flops);
    }
    xlo /= 3;
    xhi *= 3;
    /* the slopes should be visible at the left edge */
    for (size_t i = 0; i < c->nceilings; i++)
        ylo = fmin(ylo, c->ceilings[i].bw * xlo);
    ylo /= 2;
    yhi *= 2.5;

    dam_draw_axis xa, ya;
    dam_rect plot, area = {r->x, y, r->w, r->y + r->h - y};
    dam_draw_axis_spec xs = {xlo, xhi, 1, 1, DAM_AXIS_PLAIN, NULL,
                             "arithmetic intensity (FLOP/byte)"};
    dam_draw_axis_spec ys = {ylo, yhi, 1, 1, DAM_AXIS_SI, "FLOP/s",
                             "attainable performance"};
    dam_draw_placer pl;
    if ((rc = dam_draw_xy_begin(cr, &area, &xs, &ys, 0, &plot, &xa, &ya, &pl,
                                err)))
        return rc;

    /* roofs, the first (as configured) on top */
    draw_roofs(cr, c, &xa, &ya, &pl);
    /* ridge points: a dotted drop to the axis and a label */
    for (size_t i = 0; i < c->nceilings; i++) {
        const dam_chart_ceiling *k = &c->ceilings[i];
        double ridge = k->peak / k->bw;
        double px = dam_axis_map(&xa.map, ridge);
        double py = dam_axis_map(&ya.map, k->peak);
        dam_draw_set_color(cr, dam_draw_series_color(i), 0.8);
        dam_draw_dashed(cr, px, py, px, plot.y + plot.h, 1.5, 2.5, 1.0);
        dam_draw_marker(cr, DAM_MARK_SQUARE, px, py, 3.5,
                        dam_draw_series_color(i), 1);
        dam_rect mb = {px - 4, py - 4, 8, 8};
        dam_draw_placer_block(&pl, &mb);
    }
    /* every point's marker blocks its spot before any label is placed */
    for (size_t i = 0; i < c->npoints; i++) {
        double px = dam_axis_map(&xa.map, c->points[i].intensity);
        double py = dam_axis_map(&ya.map, c->points[i].flops);
        dam_rect mb = {px - 5, py - 5, 10, 10};
        dam_draw_placer_block(&pl, &mb);
    }
    for (size_t i = 0; i < c->nceilings; i++) {
        const dam_chart_ceiling *k = &c->ceilings[i];
        double ridge = k->peak / k->bw;
        dam_axis_format(a, sizeof a, ridge, 0, 0, DAM_AXIS_PLAIN, NULL);
        snprintf(buf, sizeof buf, "ridge %s FLOP/B", a);
        dam_draw_font(cr, DAM_FONT_NOTE);
        dam_draw_set_color(cr, dam_draw_series_color(i), 1);
        dam_draw_placer_label(cr, &pl, dam_axis_map(&xa.map, ridge),
                              dam_axis_map(&ya.map, k->peak), 6, buf);
    }
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_roofpoint *p = &c->points[i];
        int after = p->group == DAM_GROUP_AFTER;
        dam_draw_marker(cr, after ? DAM_MARK_DIAMOND : DAM_MARK_CIRCLE,
                        dam_axis_map(&xa.map, p->intensity),
                        dam_axis_map(&ya.map, p->flops), 4.5,
                        dam_draw_series_color(p->ceiling), after);
    }
    dam_draw_font(cr, DAM_FONT_NOTE);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_roofpoint *p = &c->points[i];
        dam_draw_placer_label(cr, &pl, dam_axis_map(&xa.map, p->intensity),
                              dam_axis_map(&ya.map, p->flops), 7, p->label);
    }
    cairo_restore(cr);
    dam_draw_placer_free(&pl);
    return DAM_OK;
}
