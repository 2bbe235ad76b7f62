/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_heatmap.c: a figure over two varied keys of a sweep, one coloured
 * cell per pair of values.
 *
 * Design note: colour is viridis (perceptually uniform, readable in grey
 * and by colour-blind readers): dark purple for the lowest value, yellow
 * for the highest, on a linear or log scale given by the caller. A colour
 * bar with ticks in the value's unit sits under the title, so a cell's
 * colour can be read without its text. Each cell writes its value (and a
 * second line, the binding term, when the caller gives one) only where the
 * text fits inside the cell; otherwise the colour alone carries it. Cells
 * with nothing to colour say why: hatched vermillion for "does not fit in
 * memory", hatched grey for "fails", pale grey for "no point" (a sampled
 * sweep drew none there) and for "n/a" (a cost where the GPU has no
 * price). The best cell has
 * a thick black outline. Row names (the first key) are right-aligned at
 * the left and ellipsized to a share of the width; column names go under
 * the grid, on one line when they fit a column, else thinned to every
 * k-th. Axis titles name the keys.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/chart.h"

#define ROW_SHARE 0.30 /* most of the width the row names take */
#define BAR_MAX 300.0  /* colour bar length, points */

/* viridis at nine even stops (matplotlib's table, every 32nd entry) */
static const double viridis[9][3] = {
    {0.267, 0.005, 0.329}, {0.278, 0.175, 0.483}, {0.231, 0.322, 0.546},
    {0.172, 0.448, 0.558}, {0.128, 0.567, 0.551}, {0.153, 0.681, 0.502},
    {0.369, 0.789, 0.383}, {0.678, 0.864, 0.190}, {0.993, 0.906, 0.144}};

dam_rgb dam_chart_scale_rgb(double t)
{
    if (!(t > 0.0))
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    double x = t * 8.0;
    int i = (int)x;
    if (i > 7)
        i = 7;
    double u = x - i;
    dam_rgb c = {viridis[i][0] + u * (viridis[i + 1][0] - viridis[i][0]),
                 viridis[i][1] + u * (viridis[i + 1][1] - viridis[i][1]),
                 viridis[i][2] + u * (viridis[i + 1][2] - viridis[i][2])};
    return c;
}

static int check(const dam_chart_heatmap *c, dam_error *err)
{
    if (c->nrows < 1 || c->ncols < 1 || !c->row_labels || !c->col_labels ||
        !c->cells || !c->values)
        return dam_error_set(err, "", 0, "heat map: no cells");
    size_t n = c->nrows * c->ncols;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned)c->cells[i] > DAM_CHART_CELL_OVERLOADED)
            return dam_error_set(err, "", 0,
                                 "heat map: cell %zu: unknown state %d", i,
                                 (int)c->cells[i]);
        if (c->cells[i] == DAM_CHART_CELL_VALUE &&
            (!isfinite(c->values[i]) || (c->log && c->values[i] <= 0)))
            return dam_error_set(err, "", 0,
                                 "heat map: cell (%s, %s): the value must be "
                                 "finite%s, got %g",
                                 c->row_labels[i / c->ncols],
                                 c->col_labels[i % c->ncols],
                                 c->log ? " and > 0 on a log scale" : "",
                                 c->values[i]);
    }
    if (c->best >= (long)n)
        return dam_error_set(err, "", 0, "heat map: best cell %ld of %zu",
                             c->best, n);
    return DAM_OK;
}

/* Position of v in [lo, hi] on the scale, 0..1. */
static double scale_t(const dam_chart_heatmap *c, double lo, double hi,
                      double v)
{
    if (!(hi > lo))
        return 0.5;
    if (c->log)
        return (log(v) - log(lo)) / (log(hi) - log(lo));
    return (v - lo) / (hi - lo);
}

/* Black or white, whichever reads better on rgb. */
static void set_ink(cairo_t *cr, dam_rgb k)
{
    double lum = 0.299 * k.r + 0.587 * k.g + 0.114 * k.b;
    if (lum > 0.45)
        cairo_set_source_rgb(cr, 0, 0, 0);
    else
        cairo_set_source_rgb(cr, 1, 1, 1);
}

/* The colour bar and its ticks across the top of r; the height used. */
static int colour_bar(cairo_t *cr, const dam_rect *r,
                      const dam_chart_heatmap *c, double lo, double hi,
                      double *used, dam_error *err)
{
    dam_draw_font(cr, DAM_FONT_AXIS);
    const char *title = c->value_title ? c->value_title : "value";
    double tw = fmin(dam_draw_text_width(cr, title), r->w * 0.4);
    double th = dam_draw_text_height(cr);
    double bw = fmin(BAR_MAX, r->w - tw - 40);
    if (bw < 60)
        bw = fmin(60, r->w * 0.5);
    double bh = 10;
    dam_rect bar = {r->x + tw + 12, r->y + 2, bw, bh};
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    dam_draw_text_fit(cr, r->x, bar.y + bh / 2, title, tw, 0, 0.5);
    for (int i = 0; i < 64; i++) {
        dam_rgb k = dam_chart_scale_rgb((i + 0.5) / 64.0);
        cairo_set_source_rgb(cr, k.r, k.g, k.b);
        cairo_rectangle(cr, bar.x + bw * i / 64.0, bar.y, bw / 64.0 + 0.3,
                        bh);
        cairo_fill(cr);
    }
    /* ticks of the value's axis along the bar */
    double a = lo, b = hi;
    if (!(b > a)) {
        a = c->log ? lo / 1.1 : lo - fmax(fabs(lo) * 0.1, 1e-9);
        b = c->log ? hi * 1.1 : hi + fmax(fabs(hi) * 0.1, 1e-9);
    }
    dam_draw_axis ax;
    dam_draw_axis_spec spec = {a, b, c->log, 1, c->unit, c->unit_name, NULL};
    int rc = dam_draw_axis_prepare(cr, &ax, &spec, bw, 0, err);
    if (rc != DAM_OK)
        return rc;
    dam_draw_axis_place(cr, &ax, bar.x, bar.x + bw);
    /* no label may poke out past the bar's end into the title or the
     * chart's edge */
    dam_draw_font(cr, DAM_FONT_TICK);
    for (size_t i = 0; i < ax.nticks; i++) {
        double p = dam_axis_map(&ax.map, ax.ticks[i]);
        if (p - ax.widths[i] / 2 < r->x + tw + 4 ||
            p + ax.widths[i] / 2 > r->x + r->w)
            ax.shown[i] = 0;
    }
    dam_draw_axis_draw(cr, &ax, &bar, 1);
    (void)th;
    *used = bh + 2 + 6 + ax.label_h + 8;
    return DAM_OK;
}

/* The colour scale's ends over the cells with a value (lo > hi when
 * none), and whether any cell does not fit or failed. */
static void value_range(const dam_chart_heatmap *c, double *lo, double *hi,
                        int *nofit, int *failed)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    *nofit = 0;
    *failed = 0;
    for (size_t i = 0; i < c->nrows * c->ncols; i++) {
        if (c->cells[i] == DAM_CHART_CELL_VALUE) {
            *lo = fmin(*lo, c->values[i]);
            *hi = fmax(*hi, c->values[i]);
        }
        /* bit 0: a cell that does not fit, bit 1: an overloaded one */
        *nofit |= c->cells[i] == DAM_CHART_CELL_NOFIT;
        *nofit |= (c->cells[i] == DAM_CHART_CELL_OVERLOADED) << 1;
        *failed |= c->cells[i] == DAM_CHART_CELL_FAILED;
    }
    /* a linear scale spans at least a material change (a fifth of the
     * larger end: the model is good to about 10 %), so that cells a per
     * cent apart do not look worlds apart */
    if (*lo <= *hi && !c->log) {
        double need = 0.2 * fmax(fabs(*lo), fabs(*hi));
        if (*hi - *lo < need) {
            double mid = (*lo + *hi) / 2;
            int nonneg = *lo >= 0;
            *lo = mid - need / 2;
            *hi = mid + need / 2;
            if (nonneg && *lo < 0) {
                *hi -= *lo;
                *lo = 0;
            }
        }
    }
}

/* Cell i: its colour (a hatch when it does not fit or fails), a thin
 * white border, and its value (and note) where they fit. */
static void draw_cell(cairo_t *cr, const dam_chart_heatmap *c, size_t i,
                      const dam_rect *cell, double lo, double hi, double nh)
{
    double cw = cell->w, ch = cell->h;
    char buf[DAM_AXIS_LABEL_MAX];
    const char *line1 = NULL, *line2 = NULL;
    dam_rgb ink = {1, 1, 1};
    switch (c->cells[i]) {
    case DAM_CHART_CELL_VALUE: {
        ink = dam_chart_scale_rgb(scale_t(c, lo, hi, c->values[i]));
        cairo_set_source_rgb(cr, ink.r, ink.g, ink.b);
        cairo_rectangle(cr, cell->x, cell->y, cell->w, cell->h);
        cairo_fill(cr);
        dam_axis_format(buf, sizeof buf, c->values[i], 0, 0, c->unit,
                        c->unit_name);
        line1 = buf;
        line2 = c->notes ? c->notes[i] : NULL;
        break;
    }
    case DAM_CHART_CELL_NOFIT:
        dam_draw_hatch(cr, cell, DAM_COLOR_VERMILLION);
        ink = (dam_rgb){1, 1, 1};
        line1 = "no fit";
        break;
    case DAM_CHART_CELL_OVERLOADED:
        dam_draw_hatch(cr, cell, DAM_COLOR_ORANGE);
        ink = (dam_rgb){1, 1, 1};
        line1 = "overloaded";
        break;
    case DAM_CHART_CELL_FAILED:
        dam_draw_hatch(cr, cell, DAM_COLOR_GREY);
        ink = (dam_rgb){1, 1, 1};
        line1 = "fails";
        break;
    case DAM_CHART_CELL_EMPTY:
    case DAM_CHART_CELL_NA:
    default:
        cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
        cairo_rectangle(cr, cell->x, cell->y, cell->w, cell->h);
        cairo_fill(cr);
        line1 = c->cells[i] == DAM_CHART_CELL_NA ? "n/a" : "no point";
        break;
    }
    /* thin white lines between cells */
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, fmin(1.0, fmin(cw, ch) * 0.08));
    cairo_rectangle(cr, cell->x, cell->y, cell->w, cell->h);
    cairo_stroke(cr);
    if (!line1)
        return;
    dam_draw_font(cr, DAM_FONT_NOTE);
    double w1 = dam_draw_text_width(cr, line1);
    if (w1 > cw - 4 || nh > ch - 2)
        return;
    int two = line2 && *line2 && 2 * nh <= ch - 3 &&
              dam_draw_text_width(cr, line2) <= cw - 4;
    double cy = cell->y + ch / 2;
    if (c->cells[i] == DAM_CHART_CELL_VALUE)
        set_ink(cr, ink);
    else
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    if (c->cells[i] == DAM_CHART_CELL_EMPTY ||
        c->cells[i] == DAM_CHART_CELL_NA) {
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        dam_draw_text(cr, cell->x + cw / 2, cy, line1, 0.5, 0.5);
        return;
    }
    if (c->cells[i] != DAM_CHART_CELL_VALUE) {
        /* on a hatch: a white patch behind the word */
        dam_draw_text_halo(cr, cell->x + cw / 2, cy, line1, 0.5, 0.5);
        return;
    }
    if (two) {
        dam_draw_text(cr, cell->x + cw / 2, cy - 0.5, line1, 0.5, 1);
        dam_draw_text(cr, cell->x + cw / 2, cy + 0.5, line2, 0.5, 0);
    } else {
        dam_draw_text(cr, cell->x + cw / 2, cy, line1, 0.5, 0.5);
    }
}

/* The best cell and any that tie with it: black outside, white inside,
 * so the outline shows on dark and light colours. */
static void draw_best(cairo_t *cr, const dam_chart_heatmap *c,
                      const dam_rect *grid, double cw, double ch)
{
    size_t n = c->nrows * c->ncols;
    for (size_t i = 0; c->best >= 0 && i < n; i++) {
        if (c->cells[i] != DAM_CHART_CELL_VALUE ||
            c->values[i] != c->values[c->best])
            continue;
        size_t row = i / c->ncols, col = i % c->ncols;
        double lw = fmin(2.5, fmin(cw, ch) * 0.15);
        double x0 = grid->x + col * cw, y0 = grid->y + row * ch;
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_line_width(cr, lw);
        cairo_rectangle(cr, x0 + lw / 2, y0 + lw / 2, cw - lw, ch - lw);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, lw / 2);
        cairo_rectangle(cr, x0 + lw * 1.25, y0 + lw * 1.25, cw - 2.5 * lw,
                        ch - 2.5 * lw);
        cairo_stroke(cr);
    }
}

int dam_chart_heatmap_draw(cairo_t *cr, const dam_rect *r,
                           const dam_chart_heatmap *c, dam_error *err)
{
    int rc;
    if ((rc = check(c, err)) != DAM_OK)
        return rc;
    size_t n = c->nrows * c->ncols;
    double lo, hi;
    int nofit, failed;
    value_range(c, &lo, &hi, &nofit, &failed);
    double y = r->y + dam_draw_title(cr, r, c->title, c->subtitle);
    if (lo <= hi) {
        double used;
        dam_rect br = {r->x, y, r->w, r->h};
        if ((rc = colour_bar(cr, &br, c, lo, hi, &used, err)) != DAM_OK)
            return rc;
        y += used;
    }
    dam_legend_item items[4];
    size_t ni = 0;
    if (c->best >= 0) {
        items[ni++] = (dam_legend_item){"best (and ties)", DAM_COLOR_BLACK,
                                        DAM_KEY_OUTLINE, DAM_MARK_SQUARE};
    }
    if (nofit & 1) {
        items[ni++] = (dam_legend_item){"does not fit in GPU memory",
                                        DAM_COLOR_VERMILLION, DAM_KEY_HATCH,
                                        DAM_MARK_SQUARE};
    }
    if (nofit & 2) {
        items[ni++] = (dam_legend_item){"overloaded: the rate is past its "
                                        "capacity", DAM_COLOR_ORANGE,
                                        DAM_KEY_HATCH, DAM_MARK_SQUARE};
    }
    if (failed) {
        items[ni++] = (dam_legend_item){"fails (see the rows' errors)",
                                        DAM_COLOR_GREY, DAM_KEY_HATCH,
                                        DAM_MARK_SQUARE};
    }
    y += dam_draw_legend(cr, r, y, items, ni);

    /* margins: row names and the rows' title at the left, column names
     * and the columns' title below */
    dam_draw_font(cr, DAM_FONT_AXIS);
    double ath = dam_draw_text_height(cr);
    double left_title = c->row_title && *c->row_title ? ath + 6 : 0;
    double bottom_title = c->col_title && *c->col_title ? ath + 6 : 0;
    dam_draw_font(cr, DAM_FONT_TICK);
    double lh = dam_draw_text_height(cr);
    double roww = 0;
    for (size_t i = 0; i < c->nrows; i++)
        roww = fmax(roww, dam_draw_text_width(cr, c->row_labels[i]));
    roww = fmin(roww, r->w * ROW_SHARE);
    dam_rect grid = {r->x + left_title + roww + 6, y, 0, 0};
    grid.w = r->x + r->w - grid.x - 2;
    double cw = grid.w / c->ncols;
    /* column names: one line each when they fit a column; else on two
     * lines where columns are wide enough (ids break at their hyphens);
     * else every k-th name at the width of k columns */
    double colw_max = 0;
    for (size_t j = 0; j < c->ncols; j++)
        colw_max = fmax(colw_max, dam_draw_text_width(cr, c->col_labels[j]));
    size_t ck = 1;
    int col_lines = 1;
    double fitw = cw - 4;
    if (colw_max > fitw) {
        if (cw >= 40) {
            col_lines = 2;
        } else {
            ck = (size_t)ceil((colw_max + 6) / cw);
            fitw = ck * cw - 6;
        }
    }
    grid.h = r->y + r->h - y - (col_lines * lh + 6) - bottom_title;
    if (grid.w < 40 || grid.h < 20)
        return dam_error_set(err, "", 0,
                             "heat map: area %.0f x %.0f pt is too small to "
                             "draw",
                             r->w, r->h);
    double ch = grid.h / c->nrows;
    /* square-ish cells at most 3x as tall as wide: a grid of few rows
     * does not stretch to the bottom */
    if (ch > cw * 1.2 && ch > 60) {
        ch = fmax(cw * 1.2, 60);
        grid.h = ch * c->nrows;
    }

    /* cells */
    dam_draw_font(cr, DAM_FONT_NOTE);
    double nh = dam_draw_text_height(cr);
    for (size_t i = 0; i < n; i++) {
        size_t row = i / c->ncols, col = i % c->ncols;
        dam_rect cell = {grid.x + col * cw, grid.y + row * ch, cw, ch};
        draw_cell(cr, c, i, &cell, lo, hi, nh);
    }
    /* the best cell and any that tie with it */
    draw_best(cr, c, &grid, cw, ch);

    /* row names, every k-th when the rows are thinner than a line */
    dam_draw_font(cr, DAM_FONT_TICK);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    size_t rk = (size_t)ceil((lh + 1) / ch);
    for (size_t i = 0; i < c->nrows; i += rk)
        dam_draw_text_fit(cr, grid.x - 4, grid.y + (i + 0.5) * ch,
                          c->row_labels[i], roww, 1, 0.5);
    double ly = grid.y + grid.h + 4;
    for (size_t j = 0; j < c->ncols; j += ck)
        dam_font_draw(cr, grid.x + (j + 0.5) * cw, ly, c->col_labels[j],
                      fitw, col_lines, 0.5, 0);

    /* titles: the keys */
    dam_draw_font(cr, DAM_FONT_AXIS);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    if (bottom_title > 0)
        dam_draw_text_fit(cr, grid.x + grid.w / 2, ly + col_lines * lh + 4,
                          c->col_title, grid.w, 0.5, 0);
    if (left_title > 0)
        dam_font_draw_up(cr, r->x + ath / 2, grid.y + grid.h / 2,
                         c->row_title, grid.h);
    return DAM_OK;
}
