/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_levers.c: what each lever buys: one horizontal bar per lever,
 * coloured by verdict, with its 90 % interval as a whisker where the
 * results carry one, and the cost with the lever and its change in a
 * column at the right.
 *
 * Design note: in speed-up mode bars start at 1.0x rather than 0 so that a
 * slow-down points left and a gain right; in latency mode (serving) bars
 * are p99 latencies from 0 against the dashed SLO, because there the
 * question is the SLO, not a speed-up. The value is written at the bar's
 * (or whisker's) outer end, in a gutter reserved on that side of the plot,
 * so it can never run into the lever names or the cost column. Every
 * column is measured before the plot is laid out.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "render/chart/chart.h"
#include "render/out/fmt.h"

static const char *const verdict_names[DAM_CHART_VERDICT_COUNT] = {
    "works", "wasted", "no change", "hurts", "faster, SLO still missed"};
static const dam_color verdict_colors[DAM_CHART_VERDICT_COUNT] = {
    DAM_COLOR_GREEN, DAM_COLOR_ORANGE, DAM_COLOR_GREY, DAM_COLOR_VERMILLION,
    DAM_COLOR_SKY};

static int check(const dam_chart_levers *c, dam_error *err)
{
    if (!c->levers || c->nlevers == 0)
        return dam_error_set(err, "", 0, "levers chart: no levers");
    if (!isfinite(c->slo) || c->slo < 0 || !isfinite(c->baseline) ||
        c->baseline < 0)
        return dam_error_set(err, "", 0,
                             "levers chart: SLO and baseline must be "
                             "finite and >= 0");
    for (size_t i = 0; i < c->nlevers; i++) {
        const dam_chart_lever *l = &c->levers[i];
        if (!isfinite(l->speedup) || l->speedup <= 0)
            return dam_error_set(err, "", 0,
                                 "levers chart: lever \"%s\": %s must "
                                 "be finite and > 0, got %g",
                                 l->name ? l->name : "",
                                 c->slo > 0 ? "p99" : "speed-up", l->speedup);
        if ((unsigned)l->verdict >= DAM_CHART_VERDICT_COUNT)
            return dam_error_set(err, "", 0,
                                 "levers chart: lever \"%s\": unknown "
                                 "verdict %d",
                                 l->name ? l->name : "", (int)l->verdict);
    }
    return DAM_OK;
}

/* 1 when lever l has an interval to draw. */
static int has_interval(const dam_chart_lever *l)
{
    return isfinite(l->lo) && isfinite(l->hi) && l->lo > 0 && l->hi > l->lo;
}

/* "$12,300 (+$2,800)": the change with the cost's own decimals, "(same)"
 * when it rounds to nothing there; a non-finite cost is "n/a", a
 * non-finite change is left out. */
static void cost_text(char *buf, size_t n, const dam_chart_lever *l)
{
    char a[64], d[64];
    if (!isfinite(l->cost_usd)) {
        snprintf(buf, n, "n/a");
        return;
    }
    dam_fmt_usd(a, sizeof a, l->cost_usd, DAM_FMT_SIG);
    if (!isfinite(l->cost_delta_usd)) {
        snprintf(buf, n, "%s", a);
        return;
    }
    /* the change with the cost's decimals: nothing there is "same" */
    int dec = dam_fmt_decimals(l->cost_usd, DAM_FMT_SIG);
    dam_fmt_fixed(d, sizeof d, fabs(l->cost_delta_usd), dec);
    if (strspn(d, "0.,") == strlen(d)) {
        snprintf(buf, n, "%s (same)", a);
        return;
    }
    snprintf(buf, n, "%s (%s$%s)", a, l->cost_delta_usd > 0 ? "+" : "-", d);
}

/* The value label of a bar. */
static void value_text(char *buf, size_t n, const dam_chart_levers *c,
                       double v)
{
    if (c->slo > 0)
        dam_fmt_time(buf, n, v);
    else
        dam_fmt_value(buf, n, v, DAM_FMT_FACTOR, DAM_FMT_SIG);
}

/* Legend: the verdicts in use, and the reference lines. */
static double legend(cairo_t *cr, const dam_chart_levers *c, double y,
                     const dam_rect *r)
{
    dam_legend_item items[DAM_CHART_VERDICT_COUNT + 3];
    size_t ni = 0;
    for (int v = 0; v < DAM_CHART_VERDICT_COUNT; v++) {
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
    int any_iv = 0;
    for (size_t i = 0; i < c->nlevers; i++)
        any_iv |= has_interval(&c->levers[i]);
    if (any_iv) {
        items[ni].label = "90 % interval";
        items[ni].color = DAM_COLOR_BLACK;
        items[ni].key = DAM_KEY_LINE;
        items[ni++].marker = DAM_MARK_CIRCLE;
    }
    char slo[64], base[64], t[48];
    if (c->slo > 0) {
        dam_fmt_time(t, sizeof t, c->slo);
        snprintf(slo, sizeof slo, "SLO: p99 <= %s", t);
        items[ni].label = slo;
        items[ni].color = DAM_COLOR_VERMILLION;
        items[ni].key = DAM_KEY_DASH;
        items[ni++].marker = DAM_MARK_CIRCLE;
        if (c->baseline > 0) {
            dam_fmt_time(t, sizeof t, c->baseline);
            snprintf(base, sizeof base, "baseline p99 %s", t);
            items[ni].label = base;
            items[ni].color = DAM_COLOR_BLACK;
            items[ni].key = DAM_KEY_DASH;
            items[ni++].marker = DAM_MARK_CIRCLE;
        }
    }
    dam_rect lr = {r->x, y, r->w, r->h};
    return dam_draw_legend(cr, &lr, items, ni);
}

int dam_chart_levers_draw(cairo_t *cr, const dam_rect *r,
                          const dam_chart_levers *c, dam_error *err)
{
    int rc;
    char buf[256];
    int latency = c->slo > 0;

    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);
    y += legend(cr, c, y, r);

    /* the data range, whiskers and reference lines included */
    double lo = latency ? 0 : 1, hi = latency ? c->slo : 1;
    if (latency && c->baseline > 0)
        hi = fmax(hi, c->baseline);
    for (size_t i = 0; i < c->nlevers; i++) {
        const dam_chart_lever *l = &c->levers[i];
        lo = fmin(lo, l->speedup);
        hi = fmax(hi, l->speedup);
        if (has_interval(l)) {
            lo = fmin(lo, l->lo);
            hi = fmax(hi, l->hi);
        }
    }

    /* columns: names | left gutter | plot | right gutter | cost */
    const char *cost_title = c->cost_title ? c->cost_title
                                           : "cost of the run";
    double namew = 0, costw = 0, spw = 0;
    dam_draw_font(cr, DAM_FONT_AXIS);
    for (size_t i = 0; i < c->nlevers; i++) {
        namew = fmax(namew, dam_draw_text_width(cr, c->levers[i].name));
        cost_text(buf, sizeof buf, &c->levers[i]);
        costw = fmax(costw, dam_draw_text_width(cr, buf));
    }
    costw = fmax(costw, dam_draw_text_width(cr, cost_title));
    namew = fmin(namew, r->w * 0.28);
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    int any_left = 0;
    for (size_t i = 0; i < c->nlevers; i++) {
        value_text(buf, sizeof buf, c, c->levers[i].speedup);
        spw = fmax(spw, dam_draw_text_width(cr, buf));
        any_left |= !latency && c->levers[i].speedup < 1;
    }
    double gut_l = any_left ? spw + 8 : 0, gut_r = spw + 8;

    dam_draw_axis xa;
    const char *axis_title =
        c->axis_title ? c->axis_title
        : latency     ? "p99 latency of a request"
                      : "speed-up of the run (1.0x = baseline)";
    dam_draw_axis_spec xs = {lo, hi, 0, 0,
                             latency ? DAM_AXIS_SECONDS : DAM_AXIS_FACTOR,
                             NULL, axis_title};
    /* narrow areas: names ellipsized to a fifth, then no cost column */
    int show_cost = 1;
    double pw = r->w - namew - 10 - gut_l - gut_r - costw - 12;
    if (pw < 120) {
        namew = fmin(namew, r->w * 0.2);
        pw = r->w - namew - 10 - gut_l - gut_r - costw - 12;
    }
    if (pw < 120) {
        show_cost = 0;
        costw = 0;
        pw = r->w - namew - 10 - gut_l - gut_r;
    }
    if (pw < 60)
        return dam_error_set(err, "", 0,
                             "levers chart: area too small for the names "
                             "and costs");
    if ((rc = dam_draw_axis_prepare(cr, &xa, &xs, pw, 0, err)))
        return rc;
    dam_draw_font(cr, DAM_FONT_AXIS);
    double headh = dam_draw_text_height(cr) + 4;
    dam_rect plot = {r->x + namew + 10 + gut_l, y + headh, pw,
                     r->y + r->h - y - headh - dam_draw_axis_margin(cr, &xa)};
    if (plot.h < 12 * (double)c->nlevers)
        return dam_error_set(err, "", 0,
                             "levers chart: area too small for %zu levers",
                             c->nlevers);
    double costx = r->x + r->w; /* right edge of the cost column */
    dam_draw_axis_place(cr, &xa, plot.x, plot.x + plot.w);
    dam_draw_axis_grid(cr, &xa, &plot);

    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    if (show_cost)
        dam_draw_text(cr, costx, y, cost_title, 1, 0);

    dam_rect *labels = dam_calloc(c->nlevers, sizeof *labels);
    double band = plot.h / (double)c->nlevers;
    double th = fmin(band * 0.62, 30);
    double zero = dam_axis_map(&xa.map, latency ? 0.0 : 1.0);
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
        dam_draw_row_label(cr, r->x + namew, cy, l->name, namew, band);
        if (show_cost) {
            cost_text(buf, sizeof buf, l);
            dam_draw_text(cr, costx, cy, buf, 1, 0.5);
        }

        double x0 = fmin(zero, xe), x1 = fmax(zero, xe);
        if (x1 - x0 < 1.5) { /* no change: a visible sliver */
            x0 = zero - 2.5;
            x1 = zero + 2.5;
        }
        cairo_rectangle(cr, x0, cy - th / 2, x1 - x0, th);
        dam_draw_set_color(cr, verdict_colors[l->verdict], 1);
        cairo_fill(cr);

        /* the whisker, and the label beyond whichever ends further out */
        double outer_r = x1, outer_l = x0;
        if (has_interval(l)) {
            double wl = dam_axis_map(&xa.map, l->lo);
            double wh = dam_axis_map(&xa.map, l->hi);
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            cairo_set_line_width(cr, 1.2);
            cairo_move_to(cr, wl, cy);
            cairo_line_to(cr, wh, cy);
            cairo_move_to(cr, wl, cy - th / 4);
            cairo_line_to(cr, wl, cy + th / 4);
            cairo_move_to(cr, wh, cy - th / 4);
            cairo_line_to(cr, wh, cy + th / 4);
            cairo_stroke(cr);
            outer_r = fmax(outer_r, wh);
            outer_l = fmin(outer_l, wl);
        }
        value_text(buf, sizeof buf, c, l->speedup);
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        if (latency || l->speedup >= 1)
            labels[i] = dam_draw_text_box(cr, outer_r + 4, cy, buf, 0, 0.5);
        else
            labels[i] = dam_draw_text_box(cr, outer_l - 4, cy, buf, 1, 0.5);
    }
    /* reference lines over the bars */
    cairo_save(cr);
    if (latency) {
        double d[2] = {5, 3};
        cairo_set_dash(cr, d, 2, 0);
        cairo_set_line_width(cr, 1.5);
        dam_draw_set_color(cr, DAM_COLOR_VERMILLION, 1);
        double xs_ = dam_axis_map(&xa.map, c->slo);
        cairo_move_to(cr, xs_, plot.y - 2);
        cairo_line_to(cr, xs_, plot.y + plot.h);
        cairo_stroke(cr);
        if (c->baseline > 0) {
            double d2[2] = {1.5, 2.5};
            cairo_set_dash(cr, d2, 2, 0);
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            double xb = dam_axis_map(&xa.map, c->baseline);
            cairo_move_to(cr, xb, plot.y - 2);
            cairo_line_to(cr, xb, plot.y + plot.h);
            cairo_stroke(cr);
        }
    } else {
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cairo_set_line_width(cr, 1.5);
        cairo_move_to(cr, zero, plot.y - 2);
        cairo_line_to(cr, zero, plot.y + plot.h);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    /* value labels over the reference lines, on a white patch */
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    for (size_t i = 0; i < c->nlevers; i++) {
        value_text(buf, sizeof buf, c, c->levers[i].speedup);
        dam_draw_text_halo(cr, labels[i].x, labels[i].y, buf, 0, 0);
    }
    dam_free(labels);
    dam_draw_axis_draw(cr, &xa, &plot, 1);
    return DAM_OK;
}
