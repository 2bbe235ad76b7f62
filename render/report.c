/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report.c: the budget-review PDF (see report.h).
 *
 * Design note: one canvas, one page after another: summary, charts,
 * tables, assumptions. Every input is checked before the canvas is opened
 * (charts are checked by drawing them, so a chart's bad input discards the
 * canvas and its temporary). A table's column widths are measured over all
 * its rows, not one page's, so columns do not jump between pages; when the
 * natural widths do not fit they shrink in proportion and cells are cut
 * with an ellipsis.
 */
#include "render/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define M 40.0        /* page margin, points */
#define FOOT 30.0     /* footer band at the bottom, points */
#define HEAD_H 30.0   /* a table page's heading, points */
#define ROW_H 17.0    /* a table row, points */
#define PAD 6.0       /* cell padding left and right, points */

/* Rows that fit on one table page under the heading and header row. */
static size_t rows_per_page(void)
{
    double content = DAM_REPORT_HEIGHT - 2 * M - FOOT;
    return (size_t)floor((content - HEAD_H - ROW_H) / ROW_H);
}

static size_t pages_for(size_t rows)
{
    size_t rpp = rows_per_page();
    return rows == 0 ? 1 : (rows + rpp - 1) / rpp;
}

size_t dam_report_page_count(const dam_report *r)
{
    size_t n = 1 + r->ncharts;
    for (size_t i = 0; i < r->ntables; i++)
        n += pages_for(r->tables[i].nrows);
    if (r->nassumptions)
        n += pages_for(r->nassumptions);
    return n;
}

/* A table seen through a cell function, so that the assumptions (rows of
 * key/value/source) print through the same code as string tables. */
typedef struct grid {
    const char *title;
    size_t ncols, nrows;
    const char *const *header;
    const int *numeric;
    const dam_report_table *table;  /* a string table, or */
    const dam_report_row *rows;     /* assumption rows */
} grid;

static const char *cell(const grid *g, size_t row, size_t col)
{
    const char *s;
    if (g->table)
        s = g->table->cells ? g->table->cells[row * g->ncols + col] : NULL;
    else if (col == 0)
        s = g->rows[row].key;
    else if (col == 1)
        s = g->rows[row].value;
    else
        s = g->rows[row].source;
    return s ? s : "";
}

static void footer(cairo_t *cr, const dam_report *r, size_t page,
                   size_t pages)
{
    char buf[64];
    double y = DAM_REPORT_HEIGHT - M / 2 - FOOT / 2;
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_set_line_width(cr, 0.5);
    cairo_move_to(cr, M, y - 6);
    cairo_line_to(cr, DAM_REPORT_WIDTH - M, y - 6);
    cairo_stroke(cr);
    dam_draw_font(cr, DAM_FONT_NOTE);
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    snprintf(buf, sizeof buf, "page %zu of %zu", page, pages);
    dam_draw_text_fit(cr, M, y, r->title, DAM_REPORT_WIDTH - 2 * M - 100, 0, 0);
    dam_draw_text(cr, DAM_REPORT_WIDTH - M, y, buf, 1, 0);
}

/* A small grey caps label over a block of text. */
static double caption(cairo_t *cr, double y, const char *s)
{
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
    dam_draw_text(cr, M, y, s, 0, 0);
    return dam_draw_text_height(cr) + 4;
}

static void summary_page(cairo_t *cr, const dam_report *r)
{
    double w = DAM_REPORT_WIDTH - 2 * M, y = M;
    double bottom = DAM_REPORT_HEIGHT - M - FOOT;

    dam_draw_font(cr, DAM_FONT_HEADING);
    cairo_set_source_rgb(cr, 0, 0, 0);
    y += dam_draw_wrap(cr, M, y, w, r->title, 3, 1);
    if (r->context && *r->context) {
        dam_draw_font(cr, DAM_FONT_SUBTITLE);
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        y += 2 + dam_draw_wrap(cr, M, y + 2, w, r->context, 2, 1);
    }
    y += 16;
    dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
    cairo_rectangle(cr, M, y, w, 2);
    cairo_fill(cr);
    y += 14;
    if (r->question && *r->question) {
        y += caption(cr, y, "QUESTION");
        dam_draw_font(cr, DAM_FONT_BODY);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        y += dam_draw_wrap(cr, M, y, w, r->question, 4, 1) + 12;
    }
    if (r->answer && *r->answer) {
        y += caption(cr, y, "ANSWER");
        dam_draw_font(cr, DAM_FONT_BODY_BOLD);
        cairo_set_source_rgb(cr, 0, 0, 0);
        y += dam_draw_wrap(cr, M, y, w, r->answer, 5, 1) + 16;
    }
    if (!r->nkey)
        return;
    y += caption(cr, y, "KEY NUMBERS");
    double kw = 0;
    dam_draw_font(cr, DAM_FONT_BODY);
    for (size_t i = 0; i < r->nkey; i++)
        kw = fmax(kw, dam_draw_text_width(cr, r->key_numbers[i].key));
    kw = fmin(kw, w * 0.5);
    double vx = M + kw + 24 + 140; /* values right-aligned here */
    double rh = 20;
    for (size_t i = 0; i < r->nkey; i++) {
        char buf[512];
        if (y + rh > bottom) {
            dam_draw_font(cr, DAM_FONT_NOTE);
            cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
            snprintf(buf, sizeof buf, "... and %zu more", r->nkey - i);
            dam_draw_text(cr, M, y + 4, buf, 0, 0);
            break;
        }
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_set_line_width(cr, 0.5);
        cairo_move_to(cr, M, y + rh);
        cairo_line_to(cr, vx, y + rh);
        cairo_stroke(cr);
        dam_draw_font(cr, DAM_FONT_BODY);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        dam_draw_text_fit(cr, M, y + rh / 2, r->key_numbers[i].key, kw, 0, 0.5);
        dam_draw_font(cr, DAM_FONT_BODY_BOLD);
        cairo_set_source_rgb(cr, 0, 0, 0);
        dam_draw_text_fit(cr, vx, y + rh / 2, r->key_numbers[i].value, 160, 1, 0.5);
        y += rh;
    }
}

/* Column widths for g: natural widths over all rows, fitted to w. */
static void column_widths(cairo_t *cr, const grid *g, double w, double *cw)
{
    double sum = 0;
    for (size_t j = 0; j < g->ncols; j++) {
        dam_draw_font(cr, DAM_FONT_AXIS_BOLD);
        cw[j] = dam_draw_text_width(cr, g->header && g->header[j]
                                            ? g->header[j]
                                            : "");
        dam_draw_font(cr, DAM_FONT_AXIS);
        for (size_t i = 0; i < g->nrows; i++)
            cw[j] = fmax(cw[j], dam_draw_text_width(cr, cell(g, i, j)));
        cw[j] += 2 * PAD;
        sum += cw[j];
    }
    if (sum <= w) {
        /* share out the spare room in proportion */
        for (size_t j = 0; j < g->ncols; j++)
            cw[j] *= w / sum;
        return;
    }
    /* too wide: water-fill, so that narrow columns keep their natural
     * width and only the wide ones are cut, to an equal share of what is
     * left */
    int capped[DAM_REPORT_MAX_COLS] = {0};
    for (;;) {
        double left = w;
        size_t ncap = 0;
        for (size_t j = 0; j < g->ncols; j++) {
            if (capped[j])
                ncap++;
            else
                left -= cw[j];
        }
        if (ncap == 0) {
            for (size_t j = 0; j < g->ncols; j++)
                if (cw[j] > w / g->ncols)
                    capped[j] = 1;
            continue;
        }
        double share = left / (double)ncap;
        int changed = 0;
        for (size_t j = 0; j < g->ncols; j++)
            if (!capped[j] && cw[j] > share) {
                capped[j] = 1;
                changed = 1;
            }
        if (!changed) {
            for (size_t j = 0; j < g->ncols; j++)
                if (capped[j])
                    cw[j] = share;
            return;
        }
    }
}

static void table_page(cairo_t *cr, const grid *g, const double *cw,
                       size_t r0, size_t r1, int continued)
{
    char head[1024];
    double y = M, x;

    dam_draw_font(cr, DAM_FONT_TITLE);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(head, sizeof head, "%s%s", g->title ? g->title : "",
             continued ? " (continued)" : "");
    dam_draw_text_fit(cr, M, y, head, DAM_REPORT_WIDTH - 2 * M, 0, 0);
    y += HEAD_H;

    /* header row */
    cairo_rectangle(cr, M, y, DAM_REPORT_WIDTH - 2 * M, ROW_H);
    dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
    cairo_fill(cr);
    dam_draw_font(cr, DAM_FONT_AXIS_BOLD);
    cairo_set_source_rgb(cr, 1, 1, 1);
    x = M;
    for (size_t j = 0; j < g->ncols; j++) {
        int right = g->numeric && g->numeric[j];
        dam_draw_text_fit(cr, right ? x + cw[j] - PAD : x + PAD,
                          y + ROW_H / 2,
                          g->header && g->header[j] ? g->header[j] : "",
                          cw[j] - 2 * PAD, right ? 1 : 0, 0.5);
        x += cw[j];
    }
    y += ROW_H;
    if (r0 == r1) {
        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
        dam_draw_text(cr, M + PAD, y + ROW_H / 2, "(no rows)", 0, 0.5);
        return;
    }
    dam_draw_font(cr, DAM_FONT_AXIS);
    for (size_t i = r0; i < r1; i++, y += ROW_H) {
        if ((i - r0) % 2 == 1) {
            cairo_rectangle(cr, M, y, DAM_REPORT_WIDTH - 2 * M, ROW_H);
            cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        x = M;
        for (size_t j = 0; j < g->ncols; j++) {
            int right = g->numeric && g->numeric[j];
            dam_draw_text_fit(cr, right ? x + cw[j] - PAD : x + PAD,
                              y + ROW_H / 2, cell(g, i, j), cw[j] - 2 * PAD,
                              right ? 1 : 0, 0.5);
            x += cw[j];
        }
    }
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 0.8);
    cairo_move_to(cr, M, y);
    cairo_line_to(cr, DAM_REPORT_WIDTH - M, y);
    cairo_stroke(cr);
}

/* Draw every page of g; *page counts pages drawn so far. */
static int grid_pages(dam_canvas *cv, const dam_report *r, const grid *g,
                      size_t *page, size_t pages, dam_error *err)
{
    cairo_t *cr = dam_canvas_cr(cv);
    double cw[DAM_REPORT_MAX_COLS];
    size_t rpp = rows_per_page(), np = pages_for(g->nrows);
    int rc;

    column_widths(cr, g, DAM_REPORT_WIDTH - 2 * M, cw);
    for (size_t p = 0; p < np; p++) {
        if ((rc = dam_canvas_new_page(cv, err)) != DAM_OK)
            return rc;
        size_t r0 = p * rpp, r1 = r0 + rpp < g->nrows ? r0 + rpp : g->nrows;
        table_page(cr, g, cw, r0, r1, p > 0);
        footer(cr, r, ++*page, pages);
    }
    return DAM_OK;
}

static int check(const dam_report *r, dam_error *err)
{
    if (!r->title)
        return dam_error_set(err, "", 0, "report: no title");
    for (size_t i = 0; i < r->ntables; i++) {
        const dam_report_table *t = &r->tables[i];
        if (t->ncols == 0 || t->ncols > DAM_REPORT_MAX_COLS)
            return dam_error_set(err, "", 0,
                                 "report: table \"%s\": expected 1 to %d "
                                 "columns, got %zu",
                                 t->title ? t->title : "",
                                 DAM_REPORT_MAX_COLS, t->ncols);
        if (t->nrows && !t->cells)
            return dam_error_set(err, "", 0,
                                 "report: table \"%s\": %zu rows but no cells",
                                 t->title ? t->title : "", t->nrows);
    }
    if ((r->nkey && !r->key_numbers) || (r->ncharts && !r->charts) ||
        (r->ntables && !r->tables) || (r->nassumptions && !r->assumptions))
        return dam_error_set(err, "", 0, "report: a count without its array");
    return DAM_OK;
}

int dam_report_write(const char *path, const dam_report *r, dam_error *err)
{
    dam_canvas_format fmt;
    dam_canvas *cv;
    int rc;

    if ((rc = dam_canvas_format_of(path, &fmt, err)) != DAM_OK)
        return rc;
    if (fmt != DAM_CANVAS_PDF)
        return dam_error_set(err, path, 0,
                             "a report is a PDF: expected a name ending in "
                             "\".pdf\"");
    if ((rc = check(r, err)) != DAM_OK) {
        if (err)
            snprintf(err->file, sizeof err->file, "%s", path);
        return rc;
    }
    rc = dam_canvas_open(&cv, path, DAM_REPORT_WIDTH, DAM_REPORT_HEIGHT,
                         r->title, err);
    if (rc != DAM_OK)
        return rc;
    cairo_t *cr = dam_canvas_cr(cv);
    size_t pages = dam_report_page_count(r), page = 1;

    summary_page(cr, r);
    footer(cr, r, page, pages);
    for (size_t i = 0; i < r->ncharts; i++) {
        if ((rc = dam_canvas_new_page(cv, err)) != DAM_OK)
            goto fail;
        dam_rect area = {M, M, DAM_REPORT_WIDTH - 2 * M,
                         DAM_REPORT_HEIGHT - 2 * M - FOOT};
        if ((rc = dam_chart_draw(cr, &area, &r->charts[i], err)) != DAM_OK)
            goto fail;
        footer(cr, r, ++page, pages);
    }
    for (size_t i = 0; i < r->ntables; i++) {
        const dam_report_table *t = &r->tables[i];
        grid g = {t->title, t->ncols, t->nrows, t->header, t->numeric, t,
                  NULL};
        if ((rc = grid_pages(cv, r, &g, &page, pages, err)) != DAM_OK)
            goto fail;
    }
    if (r->nassumptions) {
        static const char *const head[3] = {"assumption", "value", "source"};
        grid g = {"Assumptions", 3, r->nassumptions, head, NULL, NULL,
                  r->assumptions};
        if ((rc = grid_pages(cv, r, &g, &page, pages, err)) != DAM_OK)
            goto fail;
    }
    return dam_canvas_close(cv, err);

fail:
    dam_canvas_discard(cv);
    if (err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    return rc;
}
