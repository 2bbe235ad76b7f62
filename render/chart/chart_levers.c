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
    "works", "wasted", "no change", "hurts", "faster, SLO still missed",
    NULL /* does not fit: said on its row, no bar to key */};
static const dam_color verdict_colors[DAM_CHART_VERDICT_COUNT] = {
    DAM_COLOR_GREEN, DAM_COLOR_ORANGE, DAM_COLOR_GREY, DAM_COLOR_VERMILLION,
    DAM_COLOR_SKY, DAM_COLOR_VERMILLION};

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

/* 1 when lever l has an interval to draw: one of the plotted value (it
 * holds the value, so the whisker sits on its bar's end), of a lever that
 * runs. */
static int has_interval(const dam_chart_lever *l)
{
    double tol = 1e-9 * fabs(l->speedup);
    return l->verdict != DAM_CHART_VERDICT_NOFIT && isfinite(l->lo) &&
           isfinite(l->hi) && l->lo > 0 && l->hi > l->lo &&
           l->lo <= l->speedup + tol && l->hi >= l->speedup - tol;
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

/* The value label of a bar; "does not fit" for a lever that cannot
 * run. */
static void value_text(char *buf, size_t n, const dam_chart_levers *c,
                       const dam_chart_lever *l)
{
    if (l->verdict == DAM_CHART_VERDICT_NOFIT)
        snprintf(buf, n, "does not fit");
    else if (c->slo > 0)
        dam_fmt_time(buf, n, l->speedup);
    else
        dam_fmt_value(buf, n, l->speedup, DAM_FMT_FACTOR, DAM_FMT_SIG);
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
        if (!used || !verdict_names[v])
            continue;
        items[ni++] = (dam_legend_item){verdict_names[v], verdict_colors[v],
                                        DAM_KEY_BOX, DAM_MARK_CIRCLE};
    }
    int any_iv = 0;
    for (size_t i = 0; i < c->nlevers; i++)
        any_iv |= has_interval(&c->levers[i]);
    if (any_iv) {
        items[ni++] = (dam_legend_item){"90 % interval", DAM_COLOR_BLACK,
                                        DAM_KEY_LINE, DAM_MARK_CIRCLE};
    }
    char slo[64], base[64], t[48];
    if (c->slo > 0) {
        dam_fmt_time(t, sizeof t, c->slo);
        snprintf(slo, sizeof slo, "SLO: p99 <= %s", t);
        items[ni++] = (dam_legend_item){slo, DAM_COLOR_VERMILLION, DAM_KEY_DASH,
                                        DAM_MARK_CIRCLE};
        if (c->baseline > 0) {
            dam_fmt_time(t, sizeof t, c->baseline);
            snprintf(base, sizeof base, "baseline p99 %s", t);
            items[ni++] = (dam_legend_item){base, DAM_COLOR_BLACK, DAM_KEY_DASH,
                                            DAM_MARK_CIRCLE};
        }
    }
    return dam_draw_legend(cr, r, y, items, ni);
}

/* The columns and rows of a levers chart, measured before anything is
 * drawn: names | left gutter | plot | right gutter | cost. */
typedef struct lever_layout {
    int latency;            /* 1: p99 latency mode */
    int show_cost;          /* 0: the area is too narrow for the column */
    const char *cost_title;
    double namew, costw;    /* column widths, points */
    double y;               /* top of the cost header */
    dam_draw_axis xa;
    dam_rect plot;
    double band, th, zero;  /* row height, bar thickness, the bars' base */
    double costx;           /* right edge of the cost column */
} lever_layout;

/* The data range, whiskers and reference lines included; levers that do
 * not fit draw no bar and take no part. */
static void lever_range(const dam_chart_levers *c, double *lo, double *hi)
{
    int latency = c->slo > 0;
    *lo = latency ? 0 : 1;
    *hi = latency ? c->slo : 1;
    if (latency && c->baseline > 0)
        *hi = fmax(*hi, c->baseline);
    for (size_t i = 0; i < c->nlevers; i++) {
        const dam_chart_lever *l = &c->levers[i];
        if (l->verdict == DAM_CHART_VERDICT_NOFIT)
            continue;
        *lo = fmin(*lo, l->speedup);
        *hi = fmax(*hi, l->speedup);
        if (has_interval(l)) {
            *lo = fmin(*lo, l->lo);
            *hi = fmax(*hi, l->hi);
        }
    }
}

/* Measure the columns and lay the plot out below y (DAM_OK, or an area
 * too small for the names, costs or rows). */
static int lever_measure(cairo_t *cr, const dam_rect *r,
                         const dam_chart_levers *c, double y,
                         lever_layout *L, dam_error *err)
{
    char buf[256];
    int rc;
    L->latency = c->slo > 0;
    L->cost_title = c->cost_title ? c->cost_title : "cost of the run";
    double lo, hi, spw = 0;
    lever_range(c, &lo, &hi);
    dam_draw_font(cr, DAM_FONT_AXIS);
    L->namew = L->costw = 0;
    for (size_t i = 0; i < c->nlevers; i++) {
        L->namew = fmax(L->namew, dam_draw_text_width(cr, c->levers[i].name));
        cost_text(buf, sizeof buf, &c->levers[i]);
        L->costw = fmax(L->costw, dam_draw_text_width(cr, buf));
    }
    L->costw = fmax(L->costw, dam_draw_text_width(cr, L->cost_title));
    L->namew = fmin(L->namew, r->w * 0.28);
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    int any_left = 0;
    for (size_t i = 0; i < c->nlevers; i++) {
        if (c->levers[i].verdict == DAM_CHART_VERDICT_NOFIT)
            continue; /* written inside the plot, on its own row */
        value_text(buf, sizeof buf, c, &c->levers[i]);
        spw = fmax(spw, dam_draw_text_width(cr, buf));
        any_left |= !L->latency && c->levers[i].speedup < 1 &&
                    c->levers[i].verdict != DAM_CHART_VERDICT_NOFIT;
    }
    double gut_l = any_left ? spw + 8 : 0, gut_r = spw + 8;
    const char *axis_title =
        c->axis_title ? c->axis_title
        : L->latency  ? "p99 latency of a request"
                      : "speed-up of the run (1.0x = baseline)";
    dam_draw_axis_spec xs = {lo, hi, 0, 0,
                             L->latency ? DAM_AXIS_SECONDS : DAM_AXIS_FACTOR,
                             NULL, axis_title};
    /* no lever with a cost (no price): no cost column of "n/a" */
    int any_cost = 0;
    for (size_t i = 0; i < c->nlevers; i++)
        any_cost |= isfinite(c->levers[i].cost_usd);
    if (!any_cost)
        L->costw = 0;
    /* narrow areas: names ellipsized to a fifth, then no cost column */
    L->show_cost = any_cost;
    double colw = L->show_cost ? L->costw + 12 : 0.0;
    double pw = r->w - L->namew - 10 - gut_l - gut_r - colw;
    if (pw < 120) {
        L->namew = fmin(L->namew, r->w * 0.2);
        pw = r->w - L->namew - 10 - gut_l - gut_r - colw;
    }
    if (pw < 120 && L->show_cost) {
        L->show_cost = 0;
        L->costw = 0;
        pw = r->w - L->namew - 10 - gut_l - gut_r;
    }
    if (pw < 60)
        return dam_error_set(err, "", 0,
                             "levers chart: area too small for the names "
                             "and costs");
    if ((rc = dam_draw_axis_prepare(cr, &L->xa, &xs, pw, 0, err)))
        return rc;
    dam_draw_font(cr, DAM_FONT_AXIS);
    double headh = dam_draw_text_height(cr) + 4;
    L->y = y;
    L->plot = (dam_rect){r->x + L->namew + 10 + gut_l, y + headh, pw,
                         r->y + r->h - y - headh -
                             dam_draw_axis_margin(cr, &L->xa)};
    if (L->plot.h < 12 * (double)c->nlevers)
        return dam_error_set(err, "", 0,
                             "levers chart: area too small for %zu levers",
                             c->nlevers);
    L->costx = r->x + r->w;
    dam_draw_axis_place(cr, &L->xa, L->plot.x, L->plot.x + L->plot.w);
    L->band = L->plot.h / (double)c->nlevers;
    L->th = fmin(L->band * 0.62, 30);
    L->zero = dam_axis_map(&L->xa.map, L->latency ? 0.0 : 1.0);
    return DAM_OK;
}

/* A whisker from lo to hi at height cy, th the bar's thickness. */
static void whisker(cairo_t *cr, double wl, double wh, double cy, double th)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_line_width(cr, 1.2);
    cairo_move_to(cr, wl, cy);
    cairo_line_to(cr, wh, cy);
    cairo_move_to(cr, wl, cy - th / 4);
    cairo_line_to(cr, wl, cy + th / 4);
    cairo_move_to(cr, wh, cy - th / 4);
    cairo_line_to(cr, wh, cy + th / 4);
    cairo_stroke(cr);
}

/* Row i: its band, name and cost, its bar and whisker (or, when it does
 * not fit, the words, no bar); returns the box of its value label, drawn
 * later over the reference lines. */
static dam_rect lever_row(cairo_t *cr, const dam_rect *r,
                          const dam_chart_levers *c, const lever_layout *L,
                          size_t i)
{
    char buf[256];
    const dam_chart_lever *l = &c->levers[i];
    const dam_rect *plot = &L->plot;
    double cy = plot->y + L->band * (i + 0.5);
    if (i % 2 == 0) {
        cairo_rectangle(cr, r->x, plot->y + L->band * i, r->w, L->band);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.025);
        cairo_fill(cr);
    }
    dam_draw_font(cr, DAM_FONT_AXIS);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    dam_draw_row_label(cr, r->x + L->namew, cy, l->name, L->namew, L->band);
    if (L->show_cost) {
        cost_text(buf, sizeof buf, l);
        dam_draw_text(cr, L->costx, cy, buf, 1, 0.5);
    }
    if (l->verdict == DAM_CHART_VERDICT_NOFIT) {
        /* the words alone, on the wider side of the base line: no bar
         * for an option that cannot run */
        value_text(buf, sizeof buf, c, l);
        dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
        int left = L->zero - plot->x > plot->x + plot->w - L->zero;
        return dam_draw_text_box(cr, left ? L->zero - 4 : L->zero + 4, cy,
                                 buf, left ? 1 : 0, 0.5);
    }
    double xe = dam_axis_map(&L->xa.map, l->speedup);
    double x0 = fmin(L->zero, xe), x1 = fmax(L->zero, xe);
    if (x1 - x0 < 1.5) { /* no change: a visible sliver */
        x0 = L->zero - 2.5;
        x1 = L->zero + 2.5;
    }
    cairo_rectangle(cr, x0, cy - L->th / 2, x1 - x0, L->th);
    dam_draw_set_color(cr, verdict_colors[l->verdict], 1);
    cairo_fill(cr);

    /* the whisker, and the label beyond whichever ends further out */
    double outer_r = x1, outer_l = x0;
    if (has_interval(l)) {
        double wl = dam_axis_map(&L->xa.map, l->lo);
        double wh = dam_axis_map(&L->xa.map, l->hi);
        whisker(cr, wl, wh, cy, L->th);
        outer_r = fmax(outer_r, wh);
        outer_l = fmin(outer_l, wl);
    }
    value_text(buf, sizeof buf, c, l);
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    if (L->latency || l->speedup >= 1)
        return dam_draw_text_box(cr, outer_r + 4, cy, buf, 0, 0.5);
    return dam_draw_text_box(cr, outer_l - 4, cy, buf, 1, 0.5);
}

/* The reference lines over the bars: the SLO (dashed) and the baseline's
 * p99 (dotted) in latency mode, else the 1.0x line. */
static void lever_refs(cairo_t *cr, const dam_chart_levers *c,
                       const lever_layout *L)
{
    const dam_rect *plot = &L->plot;
    cairo_save(cr);
    if (L->latency) {
        double d[2] = {5, 3};
        cairo_set_dash(cr, d, 2, 0);
        cairo_set_line_width(cr, 1.5);
        dam_draw_set_color(cr, DAM_COLOR_VERMILLION, 1);
        double xs_ = dam_axis_map(&L->xa.map, c->slo);
        cairo_move_to(cr, xs_, plot->y - 2);
        cairo_line_to(cr, xs_, plot->y + plot->h);
        cairo_stroke(cr);
        if (c->baseline > 0) {
            double d2[2] = {1.5, 2.5};
            cairo_set_dash(cr, d2, 2, 0);
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            double xb = dam_axis_map(&L->xa.map, c->baseline);
            cairo_move_to(cr, xb, plot->y - 2);
            cairo_line_to(cr, xb, plot->y + plot->h);
            cairo_stroke(cr);
        }
    } else {
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cairo_set_line_width(cr, 1.5);
        cairo_move_to(cr, L->zero, plot->y - 2);
        cairo_line_to(cr, L->zero, plot->y + plot->h);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

int dam_chart_levers_draw(cairo_t *cr, const dam_rect *r,
                          const dam_chart_levers *c, dam_error *err)
{
    int rc;
    char buf[256];
    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);
    y += legend(cr, c, y, r);
    lever_layout L;
    memset(&L, 0, sizeof L);
    if ((rc = lever_measure(cr, r, c, y, &L, err)) != DAM_OK)
        return rc;
    dam_draw_axis_grid(cr, &L.xa, &L.plot);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    if (L.show_cost)
        dam_draw_text(cr, L.costx, L.y, L.cost_title, 1, 0);

    dam_rect *labels = dam_calloc(c->nlevers, sizeof *labels);
    for (size_t i = 0; i < c->nlevers; i++)
        labels[i] = lever_row(cr, r, c, &L, i);
    lever_refs(cr, c, &L);
    /* value labels over the reference lines, on a white patch */
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    for (size_t i = 0; i < c->nlevers; i++) {
        value_text(buf, sizeof buf, c, &c->levers[i]);
        if (c->levers[i].verdict == DAM_CHART_VERDICT_NOFIT)
            dam_draw_set_color(cr, DAM_COLOR_VERMILLION, 1);
        else
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        dam_draw_text_halo(cr, labels[i].x, labels[i].y, buf, 0, 0);
    }
    dam_free(labels);
    dam_draw_axis_draw(cr, &L.xa, &L.plot, 1);
    return DAM_OK;
}
