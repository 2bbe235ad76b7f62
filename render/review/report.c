/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report.c: the budget-review PDF (see report.h); the HTML form is in
 * html.c.
 *
 * Design note: one canvas, one page after another: the executive summary,
 * the charts, the key numbers, the tables, the assumptions. Every input is
 * checked before the canvas is opened (charts are checked by drawing them,
 * so a chart's bad input discards the canvas and its temporary). A table's
 * column widths are measured over all its rows, not one page's, so columns
 * do not jump between pages; when the natural widths do not fit, the wide
 * columns shrink to an equal share and their cells wrap. Pagination is a
 * pass over measured row heights (layout()), run once to count pages and
 * again to draw, on the same fonts, so the count is exact.
 */
#include "render/review/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "render/out/html.h"

#define M 40.0        /* page margin, points */
#define FOOT 30.0     /* footer band at the bottom, points */
#define HEAD_H 30.0   /* a table page's heading, points */
#define PAD 6.0       /* cell padding left and right, points */
#define VPAD 3.5      /* cell padding above and below, points */
#define CELL_LINES 8  /* most lines of one cell (the rest ellipsized) */
#define GAP 10.0      /* between blocks on the summary page, points */

/* ---- tables: a grid of cells, measured ---------------------------- */

/* A table seen through a cell function, so that the assumptions (rows of
 * key/value/source) and key numbers print through the same code as string
 * tables. */
typedef struct grid {
    const char *title;
    size_t ncols, nrows;
    const char *const *header;
    const int *numeric;
    const dam_report_table *table;  /* a string table, or */
    const dam_report_row *rows;     /* key/value(/source) rows */
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

static grid table_grid(const dam_report_table *t)
{
    grid g = {t->title, t->ncols, t->nrows, t->header, t->numeric, t, NULL};
    return g;
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
     * width and only the wide ones shrink (and wrap), to an equal share of
     * what is left */
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

/* Height of row i of g (header when i is (size_t)-1) with widths cw. */
static double row_height(cairo_t *cr, const grid *g, const double *cw,
                         size_t i)
{
    double h = 0;
    int head = i == (size_t)-1;
    dam_draw_font(cr, head ? DAM_FONT_AXIS_BOLD : DAM_FONT_AXIS);
    for (size_t j = 0; j < g->ncols; j++) {
        const char *s = head ? (g->header && g->header[j] ? g->header[j] : "")
                             : cell(g, i, j);
        double ch;
        dam_font_measure(cr, *s ? s : " ", cw[j] - 2 * PAD, CELL_LINES, NULL,
                         &ch);
        h = fmax(h, ch);
    }
    return h + 2 * VPAD;
}

/* Draw one row (or the header) at y; returns its height. */
static double draw_row(cairo_t *cr, const grid *g, const double *cw,
                       double x0, double y, size_t i, int shade)
{
    int head = i == (size_t)-1;
    double h = row_height(cr, g, cw, i), tw = 0;
    for (size_t j = 0; j < g->ncols; j++)
        tw += cw[j];
    if (head || shade) {
        cairo_rectangle(cr, x0, y, tw, h);
        if (head)
            dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
        else
            cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
        cairo_fill(cr);
    }
    dam_draw_font(cr, head ? DAM_FONT_AXIS_BOLD : DAM_FONT_AXIS);
    if (head)
        cairo_set_source_rgb(cr, 1, 1, 1);
    else
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    double x = x0;
    for (size_t j = 0; j < g->ncols; j++) {
        const char *s = head ? (g->header && g->header[j] ? g->header[j] : "")
                             : cell(g, i, j);
        int right = g->numeric && g->numeric[j];
        dam_font_draw(cr, right ? x + cw[j] - PAD : x + PAD, y + VPAD, s,
                      cw[j] - 2 * PAD, CELL_LINES, right ? 1 : 0, 0);
        x += cw[j];
    }
    return h;
}

/* ---- pagination ----------------------------------------------------- */

/* Height available to rows on a table page under heading and header. */
static double page_room(cairo_t *cr, const grid *g, const double *cw)
{
    return DAM_REPORT_HEIGHT - 2 * M - FOOT - HEAD_H -
           row_height(cr, g, cw, (size_t)-1);
}

/*
 * Page breaks of g: starts[p] is the first row of page p (starts[np] =
 * nrows). Rows fill a page while they fit; a page never holds a single
 * row of a longer table (the previous page gives one up). Returns the
 * number of pages (at least 1); starts must have room for nrows + 2.
 */
static size_t layout(cairo_t *cr, const grid *g, const double *cw,
                     size_t *starts)
{
    double room = page_room(cr, g, cw), used = 0;
    size_t np = 0;
    starts[np++] = 0;
    for (size_t i = 0; i < g->nrows; i++) {
        double h = row_height(cr, g, cw, i);
        if (used > 0 && used + h > room) {
            starts[np++] = i;
            used = 0;
        }
        used += h;
    }
    starts[np] = g->nrows;
    /* no orphan: a last page of one row takes the previous page's last */
    if (np >= 2 && starts[np] - starts[np - 1] == 1 &&
        starts[np - 1] - starts[np - 2] >= 3)
        starts[np - 1]--;
    return np;
}

/* A scratch context for measuring (fonts as on the page). */
static cairo_t *scratch(cairo_surface_t **s)
{
    *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    return cairo_create(*s);
}

/* Pages of grid g on cr. */
static size_t grid_page_count(cairo_t *cr, const grid *g)
{
    double cw[DAM_REPORT_MAX_COLS];
    column_widths(cr, g, DAM_REPORT_WIDTH - 2 * M, cw);
    size_t *starts = dam_malloc((g->nrows + 2) * sizeof *starts);
    size_t np = layout(cr, g, cw, starts);
    dam_free(starts);
    return np;
}

size_t dam_report_table_breaks(const dam_report_table *t, size_t *starts)
{
    cairo_surface_t *s;
    cairo_t *cr = scratch(&s);
    grid g = table_grid(t);
    double cw[DAM_REPORT_MAX_COLS];
    column_widths(cr, &g, DAM_REPORT_WIDTH - 2 * M, cw);
    size_t np = layout(cr, &g, cw, starts);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return np;
}

static const char *const key_head[2] = {"figure", "value"};
static const char *const asm_head[3] = {"assumption", "value", "source"};

static grid key_grid(const dam_report *r)
{
    grid g = {"The numbers behind the answer", 2, r->nkey, key_head, NULL,
              NULL, r->key_numbers};
    return g;
}

static grid asm_grid(const dam_report *r)
{
    grid g = {"Assumptions: every input and where it comes from", 3,
              r->nassumptions, asm_head, NULL, NULL, r->assumptions};
    return g;
}

size_t dam_report_page_count(const dam_report *r)
{
    cairo_surface_t *s;
    cairo_t *cr = scratch(&s);
    size_t n = 1 + r->ncharts;
    if (r->nkey) {
        grid g = key_grid(r);
        n += grid_page_count(cr, &g);
    }
    for (size_t i = 0; i < r->ntables; i++) {
        grid g = table_grid(&r->tables[i]);
        n += grid_page_count(cr, &g);
    }
    if (r->nassumptions) {
        grid g = asm_grid(r);
        n += grid_page_count(cr, &g);
    }
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return n;
}

/* ---- pages ------------------------------------------------------------ */

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
    dam_draw_text_fit(cr, M, y, r->title, DAM_REPORT_WIDTH - 2 * M - 100, 0,
                      0);
    dam_draw_text(cr, DAM_REPORT_WIDTH - M, y, buf, 1, 0);
}

/* A small grey caps label over a block of text; its height. */
static double caption(cairo_t *cr, double x, double y, const char *s)
{
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
    dam_draw_text(cr, x, y, s, 0, 0);
    return dam_draw_text_height(cr) + 3;
}

/* A captioned paragraph in [x, x + w) from y, at most maxlines lines and
 * never below bottom; returns the height used (0 when nothing fits). */
static double block(cairo_t *cr, double x, double y, double w, double bottom,
                    const char *cap, const char *text, dam_font f,
                    int maxlines)
{
    if (!text || !*text)
        return 0;
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    double ch = dam_draw_text_height(cr) + 3;
    dam_draw_font(cr, f);
    double lh = dam_draw_text_height(cr);
    int fit = (int)floor((bottom - y - ch) / (lh * 1.02));
    if (fit < 1)
        return 0;
    if (fit < maxlines)
        maxlines = fit;
    double h = caption(cr, x, y, cap);
    dam_draw_font(cr, f);
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    h += dam_font_draw(cr, x, y + h, text, w, maxlines, 0, 0).h;
    return h + GAP;
}

/* Height of headline(cr, t, ...) with room enough. */
static double headline_height(cairo_t *cr, const dam_report_table *t,
                              double w)
{
    if (!t || t->ncols == 0)
        return 0;
    grid g = table_grid(t);
    double cw[DAM_REPORT_MAX_COLS];
    column_widths(cr, &g, w, cw);
    double need = row_height(cr, &g, cw, (size_t)-1);
    for (size_t i = 0; i < g.nrows; i++)
        need += row_height(cr, &g, cw, i);
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    return dam_draw_text_height(cr) + 3 + need + GAP;
}

/* The headline table in the summary's left column; its height. */
static double headline(cairo_t *cr, const dam_report_table *t, double x,
                       double y, double w, double bottom)
{
    if (!t || t->ncols == 0 || y + headline_height(cr, t, w) - GAP > bottom)
        return 0;
    grid g = table_grid(t);
    double cw[DAM_REPORT_MAX_COLS];
    column_widths(cr, &g, w, cw);
    double h = caption(cr, x, y, t->title ? t->title : "THE NUMBERS");
    h += draw_row(cr, &g, cw, x, y + h, (size_t)-1, 0);
    for (size_t i = 0; i < g.nrows; i++)
        h += draw_row(cr, &g, cw, x, y + h, i, i % 2 == 1);
    return h + GAP;
}

/* Height of block(cr, ..., text, f, maxlines) with room enough. */
static double block_height(cairo_t *cr, double w, const char *text,
                           dam_font f, int maxlines)
{
    if (!text || !*text)
        return 0;
    dam_draw_font(cr, DAM_FONT_NOTE_BOLD);
    double h = dam_draw_text_height(cr) + 3, th = 0;
    dam_draw_font(cr, f);
    dam_font_measure(cr, text, w, maxlines, NULL, &th);
    return h + th + GAP;
}


/* Page 1: the executive summary. */
int dam_report_draw_summary(cairo_t *cr, const dam_report *r,
                            dam_error *err)
{
    double w = DAM_REPORT_WIDTH - 2 * M, y = M;
    double bottom = DAM_REPORT_HEIGHT - M - FOOT;
    int chart = r->summary_chart != NULL;

    dam_draw_font(cr, DAM_FONT_HEADING);
    cairo_set_source_rgb(cr, 0, 0, 0);
    y += dam_draw_wrap(cr, M, y, w, r->title, 1, 1);
    if (r->context && *r->context) {
        dam_draw_font(cr, DAM_FONT_SUBTITLE);
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        y += 2 + dam_draw_wrap(cr, M, y + 2, w, r->context, 1, 1);
    }
    y += 8;
    dam_draw_set_color(cr, DAM_COLOR_BLUE, 1);
    cairo_rectangle(cr, M, y, w, 2);
    cairo_fill(cr);
    y += 10;

    /* left: the words and numbers; right: the chart */
    double lw = chart ? w * 0.44 : w, rx = M + lw + 18;
    /* the most lines each block may take: as many as the column holds,
     * the answer first (a cut answer is a lost one) */
    static const int limits[][5] = {
        {5, 14, 10, 10, DAM_FONT_BODY_BOLD}, {4, 12, 8, 8, DAM_FONT_BODY_BOLD},
        {3, 10, 6, 6, DAM_FONT_BODY_BOLD},   {3, 12, 6, 6, DAM_FONT_AXIS_BOLD},
        {3, 9, 5, 6, DAM_FONT_AXIS_BOLD}};
    size_t nl = sizeof limits / sizeof limits[0], k = 0;
    for (; k + 1 < nl; k++) {
        const int *m = limits[k];
        double need =
            block_height(cr, lw, r->question, DAM_FONT_BODY, m[0]) +
            block_height(cr, lw, r->answer, (dam_font)m[4], m[1]) +
            headline_height(cr, r->headline, lw) +
            block_height(cr, lw, r->recommendation, DAM_FONT_AXIS, m[2]) +
            block_height(cr, lw, r->would_change, DAM_FONT_AXIS, m[3]);
        if (y + need <= bottom)
            break;
    }
    const int *m = limits[k];
    double ly = y;
    ly += block(cr, M, ly, lw, bottom, "QUESTION", r->question,
                DAM_FONT_BODY, m[0]);
    ly += block(cr, M, ly, lw, bottom, "ANSWER", r->answer, (dam_font)m[4],
                m[1]);
    ly += headline(cr, r->headline, M, ly, lw, bottom);
    ly += block(cr, M, ly, lw, bottom, "RECOMMENDATION", r->recommendation,
                DAM_FONT_AXIS, m[2]);
    ly += block(cr, M, ly, lw, bottom, "WHAT WOULD CHANGE IT",
                r->would_change, DAM_FONT_AXIS, m[3]);
    if (chart) {
        dam_rect area = {rx, y, M + w - rx, bottom - y};
        return dam_chart_draw(cr, &area, r->summary_chart, err);
    }
    return DAM_OK;
}

static void table_page(cairo_t *cr, const grid *g, const double *cw,
                       size_t r0, size_t r1, int continued)
{
    char head[1024];
    double y = M;

    dam_draw_font(cr, DAM_FONT_TITLE);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(head, sizeof head, "%s%s", g->title ? g->title : "",
             continued ? " (continued)" : "");
    dam_draw_text_fit(cr, M, y, head, DAM_REPORT_WIDTH - 2 * M, 0, 0);
    y += HEAD_H;
    y += draw_row(cr, g, cw, M, y, (size_t)-1, 0);
    if (r0 == r1) {
        dam_draw_font(cr, DAM_FONT_AXIS);
        cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
        dam_draw_text(cr, M + PAD, y + VPAD, "(no rows)", 0, 0);
        return;
    }
    for (size_t i = r0; i < r1; i++)
        y += draw_row(cr, g, cw, M, y, i, (i - r0) % 2 == 1);
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
    int rc = DAM_OK;

    column_widths(cr, g, DAM_REPORT_WIDTH - 2 * M, cw);
    size_t *starts = dam_malloc((g->nrows + 2) * sizeof *starts);
    size_t np = layout(cr, g, cw, starts);
    for (size_t p = 0; p < np; p++) {
        if ((rc = dam_canvas_new_page(cv, err)) != DAM_OK)
            break;
        table_page(cr, g, cw, starts[p], starts[p + 1], p > 0);
        footer(cr, r, ++*page, pages);
    }
    dam_free(starts);
    return rc;
}

int dam_report_check(const dam_report *r, dam_error *err)
{
    if (!r->title)
        return dam_error_set(err, "", 0, "report: no title");
    for (size_t i = 0; i <= r->ntables; i++) {
        const dam_report_table *t = i < r->ntables ? &r->tables[i]
                                                   : r->headline;
        if (!t)
            continue;
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

/* The PDF. */
static int write_pdf(const char *path, const dam_report *r, dam_error *err)
{
    dam_canvas *cv;
    int rc = dam_canvas_open(&cv, path, DAM_REPORT_WIDTH, DAM_REPORT_HEIGHT,
                             r->title, err);
    if (rc != DAM_OK)
        return rc;
    cairo_t *cr = dam_canvas_cr(cv);
    size_t pages = dam_report_page_count(r), page = 1;

    if ((rc = dam_report_draw_summary(cr, r, err)) != DAM_OK)
        goto fail;
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
    if (r->nkey) {
        grid g = key_grid(r);
        if ((rc = grid_pages(cv, r, &g, &page, pages, err)) != DAM_OK)
            goto fail;
    }
    for (size_t i = 0; i < r->ntables; i++) {
        grid g = table_grid(&r->tables[i]);
        if ((rc = grid_pages(cv, r, &g, &page, pages, err)) != DAM_OK)
            goto fail;
    }
    if (r->nassumptions) {
        grid g = asm_grid(r);
        if ((rc = grid_pages(cv, r, &g, &page, pages, err)) != DAM_OK)
            goto fail;
    }
    return dam_canvas_close(cv, err);

fail:
    dam_canvas_discard(cv);
    return rc;
}

/* The executive summary alone, as one PNG or SVG page (for a slide). */
static int write_summary(const char *path, const dam_report *r,
                         dam_error *err)
{
    dam_canvas *cv;
    int rc = dam_canvas_open(&cv, path, DAM_REPORT_WIDTH, DAM_REPORT_HEIGHT,
                             r->title, err);
    if (rc != DAM_OK)
        return rc;
    if ((rc = dam_report_draw_summary(dam_canvas_cr(cv), r, err)) != DAM_OK) {
        dam_canvas_discard(cv);
        return rc;
    }
    return dam_canvas_close(cv, err);
}

int dam_report_write(const char *path, const dam_report *r, dam_error *err)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    int html = dot && strcmp(dot, ".html") == 0;
    int pdf = dot && strcmp(dot, ".pdf") == 0;
    int page = dot && (strcmp(dot, ".png") == 0 || strcmp(dot, ".svg") == 0);
    int rc;

    if (!html && !pdf && !page)
        return dam_error_set(err, path ? path : "", 0,
                             "a report is a PDF or an HTML file (or its "
                             "summary page as PNG or SVG): expected a name "
                             "ending in \".pdf\", \".html\", \".png\" or "
                             "\".svg\"");
    if ((rc = dam_report_check(r, err)) == DAM_OK)
        rc = html ? dam_html_write_report(path, r, err)
             : pdf ? write_pdf(path, r, err)
                   : write_summary(path, r, err);
    if (rc != DAM_OK && err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    return rc;
}
