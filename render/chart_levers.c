/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_levers.c: what each lever buys: one horizontal bar per lever from
 * the 1.0x line (no change) to its speed-up, coloured by verdict, with the
 * run's cost and its change in a column at the right.
 *
 * Design note: bars start at 1.0x rather than 0 so that a slow-down points
 * left and a gain right; the speed-up is written at the bar's end, outside
 * it, so it never depends on the bar's length. The cost column has its own
 * header and is measured before the plot is laid out.
 */
#include <math.h>
#include <stdio.h>

#include "render/chart.h"

static const char *const verdict_names[3] = {"works", "wasted", "neutral"};
static const dam_color verdict_colors[3] = {
    DAM_COLOR_GREEN, DAM_COLOR_VERMILLION, DAM_COLOR_GREY};

static int check(const dam_chart_levers *c, dam_error *err)
{
    if (!c->levers || c->nlevers == 0)
        return dam_error_set(err, "", 0, "levers chart: no levers");
    for (size_t i = 0; i < c->nlevers; i++) {
        const dam_chart_lever *l = &c->levers[i];
        if (!isfinite(l->speedup) || l->speedup <= 0)
            return dam_error_set(err, "", 0,
                                 "levers chart: lever \"%s\": speed-up must "
                                 "be finite and > 0, got %g",
                                 l->name ? l->name : "", l->speedup);
        if ((unsigned)l->verdict > DAM_CHART_VERDICT_NEUTRAL)
            return dam_error_set(err, "", 0,
                                 "levers chart: lever \"%s\": unknown "
                                 "verdict %d",
                                 l->name ? l->name : "", (int)l->verdict);
    }
    return DAM_OK;
}

/* "$12.3k (+$2.8k)"; a non-finite cost is "n/a", a non-finite change is
 * left out. */
static void cost_text(char *buf, size_t n, const dam_chart_lever *l)
{
    char a[DAM_AXIS_LABEL_MAX], d[DAM_AXIS_LABEL_MAX];
    dam_axis_format(a, sizeof a, l->cost_usd, 0, 0, DAM_AXIS_USD, NULL);
    if (!isfinite(l->cost_delta_usd)) {
        snprintf(buf, n, "%s", a);
        return;
    }
    if (l->cost_delta_usd == 0) {
        snprintf(buf, n, "%s (same)", a);
        return;
    }
    dam_axis_format(d, sizeof d, l->cost_delta_usd, 0, 0, DAM_AXIS_USD,
                    NULL);
    snprintf(buf, n, "%s (%s%s)", a, l->cost_delta_usd > 0 ? "+" : "", d);
}

int dam_chart_levers_draw(cairo_t *cr, const dam_rect *r,
                          const dam_chart_levers *c, dam_error *err)
{
    int rc;
    char buf[256];

    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);

    dam_legend_item items[3];
    size_t ni = 0;
    for (int v = 0; v < 3; v++) {
        int used = 0;
        for (size_t i = 0; i < c->nlevers; i++)
            used |= (int)c->levers[i].verdict == v;
        if (!used)
            continue;
        items[ni].label = verdict_names[v];
        items[ni].color = verdict_colors[v];
        items[ni].key = DAM_KEY_BOX;
        items[ni++].marker = DAM_MARK_CIRCLE;
    }
    dam_rect lr = {r->x, y, r->w, r->h};
    y += dam_draw_legend(cr, &lr, items, ni);

    /* columns: names | plot | speed-up labels | cost */
    double namew = 0, costw = 0, spw = 0, lo = 1, hi = 1;
    dam_draw_font(cr, DAM_FONT_AXIS);
    for (size_t i = 0; i < c->nlevers; i++) {
        namew = fmax(namew, dam_draw_text_width(cr, c->levers[i].name));
        cost_text(buf, sizeof buf, &c->levers[i]);
        costw = fmax(costw, dam_draw_text_width(cr, buf));
        lo = fmin(lo, c->levers[i].speedup);
        hi = fmax(hi, c->levers[i].speedup);
    }
    costw = fmax(costw, dam_draw_text_width(cr, "cost of the run"));
    namew = fmin(namew, r->w * 0.28);
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    for (size_t i = 0; i < c->nlevers; i++) {
        dam_axis_format(buf, sizeof buf, c->levers[i].speedup, 0.01, 0,
                        DAM_AXIS_FACTOR, NULL);
        spw = fmax(spw, dam_draw_text_width(cr, buf));
    }

    dam_draw_axis xa;
    dam_draw_axis_spec xs = {lo, hi, 0, 0, DAM_AXIS_FACTOR, NULL,
                             "speed-up of the step (1.0x = baseline)"};
    double pw = r->w - namew - 10 - spw - 8 - costw - 16;
    if ((rc = dam_draw_axis_prepare(cr, &xa, &xs, pw, 0, err)))
        return rc;
    dam_draw_font(cr, DAM_FONT_AXIS);
    double headh = dam_draw_text_height(cr) + 4;
    dam_rect plot = {r->x + namew + 10, y + headh, pw,
                     r->y + r->h - y - headh - dam_draw_axis_margin(cr, &xa)};
    if (plot.w < 60 || plot.h < 12 * (double)c->nlevers)
        return dam_error_set(err, "", 0,
                             "levers chart: area too small for %zu levers",
                             c->nlevers);
    double costx = r->x + r->w; /* right edge of the cost column */
    dam_draw_axis_place(cr, &xa, plot.x, plot.x + plot.w);
    dam_draw_axis_grid(cr, &xa, &plot);

    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    dam_draw_text(cr, costx, y, "cost of the run", 1, 0);

    double band = plot.h / (double)c->nlevers;
    double th = fmin(band * 0.62, 30);
    double one = dam_axis_map(&xa.map, 1.0);
    for (size_t i = 0; i < c->nlevers; i++) {
        const dam_chart_lever *l = &c->levers[i];
        double cy = plot.y + band * (i + 0.5);
        double xe = dam_axis_map(&xa.map, l->speedup);
        if (i % 2 == 0) {
            cairo_rectangle(cr, r->x, plot.y + band * i, r->w, band);
            cairo_set_source_rgba(cr, 0, 0, 0, 0.025);
            cairo_fill(cr);
        }
        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        dam_draw_text_fit(cr, plot.x - 10, cy, l->name, namew, 1, 0.5);
        cost_text(buf, sizeof buf, l);
        dam_draw_text(cr, costx, cy, buf, 1, 0.5);

        double x0 = fmin(one, xe), x1 = fmax(one, xe);
        if (x1 - x0 < 1.5) { /* no change: a visible sliver */
            x0 = one - 2.5;
            x1 = one + 2.5;
        }
        cairo_rectangle(cr, x0, cy - th / 2, x1 - x0, th);
        dam_draw_set_color(cr, verdict_colors[l->verdict], 1);
        cairo_fill(cr);

        dam_axis_format(buf, sizeof buf, l->speedup, 0.01, 0,
                        DAM_AXIS_FACTOR, NULL);
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        if (l->speedup >= 1)
            dam_draw_text(cr, x1 + 4, cy, buf, 0, 0.5);
        else
            dam_draw_text(cr, x0 - 4, cy, buf, 1, 0.5);
    }
    /* the 1.0x line over the bars */
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_line_width(cr, 1.5);
    cairo_move_to(cr, one, plot.y - 2);
    cairo_line_to(cr, one, plot.y + plot.h);
    cairo_stroke(cr);
    dam_draw_axis_draw(cr, &xa, &plot, 1);
    return DAM_OK;
}
