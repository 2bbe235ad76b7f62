/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_roc.c: return on compute: quality against cost for each
 * configuration, the Pareto frontier drawn through the points the caller
 * marks, each frontier segment annotated with its marginal return
 * ("+0.52 pt/$1k").
 *
 * Design note: the frontier and the marginals come computed (cli/ from
 * solver/); this file only joins the given points. Frontier points are
 * filled, dominated ones hollow and grey, so the eye follows the frontier.
 * Segment notes are placed first (they carry the answer), then point
 * labels, all through the placer with the lines blocked.
 */
#include <math.h>
#include <stdio.h>

#include "render/chart/chart.h"
#include "render/out/fmt.h"

static int check(const dam_chart_roc *c, dam_error *err)
{
    if (!c->points || c->npoints == 0)
        return dam_error_set(err, "", 0, "return-on-compute chart: no points");
    for (size_t i = 0; i < c->npoints; i++) {
        const dam_chart_roc_point *p = &c->points[i];
        if (!isfinite(p->cost) || !isfinite(p->quality) ||
            (c->x_log && p->cost <= 0))
            return dam_error_set(err, "", 0,
                                 "return-on-compute chart: point \"%s\": "
                                 "cost and quality must be finite%s, got "
                                 "%g, %g",
                                 p->label ? p->label : "",
                                 c->x_log ? " (cost > 0 on a log axis)" : "",
                                 p->cost, p->quality);
    }
    for (size_t i = 0; i < c->nsegments; i++) {
        const dam_chart_roc_segment *s = &c->segments[i];
        if (s->from >= c->npoints || s->to >= c->npoints)
            return dam_error_set(err, "", 0,
                                 "return-on-compute chart: segment %zu joins "
                                 "points %zu and %zu, but there are %zu",
                                 i + 1, s->from, s->to, c->npoints);
        if (!isfinite(s->marginal))
            return dam_error_set(err, "", 0,
                                 "return-on-compute chart: segment %zu: "
                                 "marginal return is not finite",
                                 i + 1);
    }
    return DAM_OK;
}

/* A segment's label. In dollars (no marginal unit given): the gain along
 * it and what it costs, "+0.00073 for +$12,400", which a reader can weigh
 * (a rate per dollar of a tiny gain reads "+59 per $1B" and invites
 * multiplying it out to a scale nobody spends); otherwise the marginal
 * return in the given unit. */
static void marginal_text(char *buf, size_t n, const dam_chart_roc *c,
                          const dam_chart_roc_segment *s)
{
    char v[DAM_AXIS_LABEL_MAX];
    if (c->marginal_unit || c->x_unit != DAM_AXIS_USD) {
        dam_axis_format_signed(v, sizeof v, s->marginal);
        snprintf(buf, n, "%s%s%s", v, c->marginal_unit ? " " : "",
                 c->marginal_unit ? c->marginal_unit : "");
        return;
    }
    double dc = c->points[s->to].cost - c->points[s->from].cost;
    char usd[48];
    dam_fmt_usd(usd, sizeof usd, fabs(dc), DAM_FMT_SIG);
    dam_axis_format_signed(v, sizeof v, s->marginal * dc);
    snprintf(buf, n, "%s for %s%s", v, dc < 0 ? "-" : "+", usd);
}

int dam_chart_roc_draw(cairo_t *cr, const dam_rect *r, const dam_chart_roc *c,
                       dam_error *err)
{
    int rc;
    char buf[256];

    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    int front = 0, other = 0;
    for (size_t i = 0; i < c->npoints; i++) {
        front |= c->points[i].on_frontier != 0;
        other |= c->points[i].on_frontier == 0;
    }
    dam_legend_item items[3];
    size_t ni = 0;
    if (c->nsegments) {
        items[ni++] =
            (dam_legend_item){c->marginal_unit || c->x_unit != DAM_AXIS_USD
                                  ? "Pareto frontier (marginal return on each "
                                    "segment)"
                                  : "Pareto frontier (each segment: the gain "
                                    "and what it costs)",
                              DAM_COLOR_BLUE, DAM_KEY_LINE, DAM_MARK_CIRCLE};
    }
    if (front) {
        items[ni++] = (dam_legend_item){
            c->front_label ? c->front_label : "on the frontier", DAM_COLOR_BLUE,
            DAM_KEY_MARKER, DAM_MARK_CIRCLE};
    }
    if (other) {
        items[ni++] =
            (dam_legend_item){c->other_label ? c->other_label : "dominated",
                              DAM_COLOR_GREY, DAM_KEY_HOLLOW, DAM_MARK_CIRCLE};
    }
    y += dam_draw_legend(cr, r, y, items, ni);

    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < c->npoints; i++) {
        xlo = fmin(xlo, c->points[i].cost);
        xhi = fmax(xhi, c->points[i].cost);
        ylo = fmin(ylo, c->points[i].quality);
        yhi = fmax(yhi, c->points[i].quality);
    }
    if (!(xhi - xlo > 1e-9 * fabs(xhi))) {
        /* every point at one cost (8 GPUs each): half to one and a half
         * times it, so the ticks are round, not 7.2 to 8.8 */
        double v = xhi;
        xlo = v > 0 ? v * (c->x_log ? 0.5 : 0.5) : v - 1;
        xhi = v > 0 ? v * (c->x_log ? 2.0 : 1.5) : v + 1;
    } else if (c->x_log) {
        xlo /= 1.3;
        xhi *= 1.3;
    } else {
        double d = (xhi - xlo) * 0.06;
        xlo = xlo - d < 0 && xlo >= 0 ? 0 : xlo - d;
        xhi += d;
    }
    /* at least y_min_span tall, centred on the data: a change smaller
     * than what matters must look small */
    if (c->y_min_span > 0 && yhi - ylo < c->y_min_span) {
        double mid = (yhi + ylo) / 2;
        ylo = mid - c->y_min_span / 2;
        yhi = mid + c->y_min_span / 2;
    }
    double dy = (yhi - ylo) * 0.08;
    ylo -= dy;
    yhi += dy;

    dam_draw_axis xa, ya;
    dam_rect plot, area = {r->x, y, r->w, r->y + r->h - y};
    dam_draw_axis_spec xs = {xlo, xhi, c->x_log, 0, c->x_unit,
                             c->x_unit_name, c->x_title};
    dam_draw_axis_spec ys = {ylo, yhi, 0, 0, c->y_unit, c->y_unit_name,
                             c->y_title};
    dam_draw_placer pl;
    if ((rc = dam_draw_xy_begin(cr, &area, &xs, &ys, 0, &plot, &xa, &ya, &pl,
                                err)))
        return rc;

#define PX(i) dam_axis_map(&xa.map, c->points[i].cost)
#define PY(i) dam_axis_map(&ya.map, c->points[i].quality)
    dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
    cairo_set_line_width(cr, 2.0);
    for (size_t i = 0; i < c->nsegments; i++) {
        const dam_chart_roc_segment *s = &c->segments[i];
        cairo_move_to(cr, PX(s->from), PY(s->from));
        cairo_line_to(cr, PX(s->to), PY(s->to));
        dam_draw_placer_block_line(&pl, PX(s->from), PY(s->from), PX(s->to),
                                   PY(s->to));
    }
    cairo_stroke(cr);
    for (size_t i = 0; i < c->npoints; i++) {
        dam_rect mb = {PX(i) - 5, PY(i) - 5, 10, 10};
        dam_draw_placer_block(&pl, &mb);
    }
    /* marginal returns at each segment's middle */
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
    for (size_t i = 0; i < c->nsegments; i++) {
        const dam_chart_roc_segment *s = &c->segments[i];
        marginal_text(buf, sizeof buf, c, s);
        dam_draw_placer_label(cr, &pl, (PX(s->from) + PX(s->to)) / 2,
                              (PY(s->from) + PY(s->to)) / 2, 5, buf);
    }
    for (size_t i = 0; i < c->npoints; i++) {
        int f = c->points[i].on_frontier != 0;
        dam_draw_marker(cr, DAM_MARK_CIRCLE, PX(i), PY(i), 4.5,
                        f ? DAM_COLOR_BLUE : DAM_COLOR_GREY, f);
    }
    dam_draw_font(cr, DAM_FONT_NOTE);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    for (size_t i = 0; i < c->npoints; i++)
        dam_draw_placer_label(cr, &pl, PX(i), PY(i), 7, c->points[i].label);
#undef PX
#undef PY
    cairo_restore(cr);
    dam_draw_placer_free(&pl);
    return DAM_OK;
}
