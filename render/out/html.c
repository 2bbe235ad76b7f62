/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * html.c: self-contained HTML output (see html.h).
 *
 * Design note: the page is built in a dam_buf and written in one atomic
 * step, so a chart that fails leaves nothing behind. The review follows
 * the PDF section by section (report.c): the executive summary with its
 * chart, then every chart, the key numbers, the tables and the
 * assumptions; a table is an HTML table (cells wrap by themselves).
 */
#include "render/out/html.h"

#include <stdio.h>
#include <string.h>

#include "render/chart/canvas.h"
#include "render/review/report.h"

#define CHART_W 720.0 /* an inline chart's size, points (as chart files) */
#define CHART_H 450.0
#define CHART_MARGIN 18.0

static const char style[] =
    "body{font-family:'DejaVu Sans',Verdana,sans-serif;max-width:60em;"
    "margin:2em auto;padding:0 1em;color:#111;line-height:1.4}"
    "h1{font-size:1.6em;margin-bottom:0.2em}"
    "h2{font-size:1.2em;margin-top:2em;border-bottom:2px solid #0072B2}"
    ".context{color:#555;margin-top:0}"
    ".cap{font-size:0.75em;font-weight:bold;color:#777;"
    "letter-spacing:0.05em;margin:1em 0 0.2em}"
    ".answer{font-weight:bold}"
    ".summary{display:flex;flex-wrap:wrap;gap:1.5em}"
    ".summary>div{flex:1 1 24em}"
    "table{border-collapse:collapse;margin:0.5em 0;font-size:0.9em}"
    "th{background:#0072B2;color:#fff;text-align:left;padding:0.25em 0.5em}"
    "td{padding:0.25em 0.5em;vertical-align:top}"
    "tr:nth-child(even) td{background:#f2f2f2}"
    "td.num,th.num{text-align:right}"
    "figure{margin:1em 0}svg{max-width:100%;height:auto}"
    "pre{font-size:0.85em;overflow-x:auto}";

void dam_html_escape(dam_buf *b, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': dam_buf_append(b, "&amp;", 5); break;
        case '<': dam_buf_append(b, "&lt;", 4); break;
        case '>': dam_buf_append(b, "&gt;", 4); break;
        case '"': dam_buf_append(b, "&quot;", 6); break;
        case '\'': dam_buf_append(b, "&#39;", 5); break;
        default: dam_buf_append(b, p, 1);
        }
    }
}

int dam_html_chart_svg(dam_buf *b, const dam_chart *c, double w, double h,
                       const char *idp, dam_error *err)
{
    dam_canvas *cv;
    int rc = dam_canvas_open_svg(&cv, w, h, err);
    if (rc != DAM_OK)
        return rc;
    dam_rect r = {CHART_MARGIN, CHART_MARGIN, w - 2 * CHART_MARGIN,
                  h - 2 * CHART_MARGIN};
    rc = dam_chart_draw(dam_canvas_cr(cv), &r, c, err);
    if (rc != DAM_OK) {
        dam_canvas_discard(cv);
        return rc;
    }
    return dam_canvas_close_svg(cv, idp, b, err);
}

/* <!DOCTYPE html> ... <body>, with the title. */
static void head(dam_buf *b, const char *title)
{
    dam_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                      "<meta charset=\"utf-8\">\n<title>");
    dam_html_escape(b, title);
    dam_buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n",
                   style);
}

static void tail(dam_buf *b)
{
    dam_buf_printf(b, "</body>\n</html>\n");
}

/* <p> with a caption above it. */
static void para(dam_buf *b, const char *cap, const char *text,
                 const char *cls)
{
    if (!text || !*text)
        return;
    dam_buf_printf(b, "<p class=\"cap\">");
    dam_html_escape(b, cap);
    dam_buf_printf(b, "</p>\n<p%s%s%s>", cls ? " class=\"" : "",
                   cls ? cls : "", cls ? "\"" : "");
    dam_html_escape(b, text);
    dam_buf_printf(b, "</p>\n");
}

/* A table of ncols columns: header, then cell(i, j). */
static void table(dam_buf *b, const char *title, size_t ncols,
                  const char *const *header, const int *numeric,
                  size_t nrows, const char *(*cellf)(const void *, size_t,
                                                     size_t),
                  const void *ctx, int level)
{
    if (title && level)
        dam_buf_printf(b, "<h%d>", level);
    else if (title)
        dam_buf_printf(b, "<p class=\"cap\">");
    if (title)
        dam_html_escape(b, title);
    if (title && level)
        dam_buf_printf(b, "</h%d>\n", level);
    else if (title)
        dam_buf_printf(b, "</p>\n");
    dam_buf_printf(b, "<table>\n<thead><tr>");
    for (size_t j = 0; j < ncols; j++) {
        dam_buf_printf(b, "<th%s>",
                       numeric && numeric[j] ? " class=\"num\"" : "");
        dam_html_escape(b, header && header[j] ? header[j] : "");
        dam_buf_printf(b, "</th>");
    }
    dam_buf_printf(b, "</tr></thead>\n<tbody>\n");
    if (nrows == 0)
        dam_buf_printf(b, "<tr><td colspan=\"%zu\">(no rows)</td></tr>\n",
                       ncols);
    for (size_t i = 0; i < nrows; i++) {
        dam_buf_printf(b, "<tr>");
        for (size_t j = 0; j < ncols; j++) {
            dam_buf_printf(b, "<td%s>",
                           numeric && numeric[j] ? " class=\"num\"" : "");
            dam_html_escape(b, cellf(ctx, i, j));
            dam_buf_printf(b, "</td>");
        }
        dam_buf_printf(b, "</tr>\n");
    }
    dam_buf_printf(b, "</tbody>\n</table>\n");
}

static const char *table_cell(const void *ctx, size_t i, size_t j)
{
    const dam_report_table *t = ctx;
    const char *s = t->cells ? t->cells[i * t->ncols + j] : NULL;
    return s ? s : "";
}

static const char *row_cell(const void *ctx, size_t i, size_t j)
{
    const dam_report_row *r = ctx;
    const char *s = j == 0 ? r[i].key : j == 1 ? r[i].value : r[i].source;
    return s ? s : "";
}

/* A chart as a <figure>, with id prefix "c<k>". */
static int figure(dam_buf *b, const dam_chart *c, size_t k, dam_error *err)
{
    char idp[32];
    snprintf(idp, sizeof idp, "c%zu", k);
    dam_buf_printf(b, "<figure>\n");
    int rc = dam_html_chart_svg(b, c, CHART_W, CHART_H, idp, err);
    dam_buf_printf(b, "</figure>\n");
    return rc;
}

static int write_buf(const char *path, const dam_buf *b, dam_error *err)
{
    return dam_write_file_atomic(path, dam_buf_str(b), b->len, err);
}

int dam_html_write_report(const char *path, const dam_report *r,
                          dam_error *err)
{
    dam_buf b = {0};
    int rc = DAM_OK;
    size_t fig = 0;
    static const char *const key_head[2] = {"figure", "value"};
    static const char *const asm_head[3] = {"assumption", "value", "source"};

    head(&b, r->title);
    dam_buf_printf(&b, "<h1>");
    dam_html_escape(&b, r->title);
    dam_buf_printf(&b, "</h1>\n");
    if (r->context) {
        dam_buf_printf(&b, "<p class=\"context\">");
        dam_html_escape(&b, r->context);
        dam_buf_printf(&b, "</p>\n");
    }

    /* the executive summary */
    dam_buf_printf(&b, "<section class=\"summary\">\n<div>\n");
    para(&b, "QUESTION", r->question, NULL);
    para(&b, "ANSWER", r->answer, "answer");
    if (r->headline)
        table(&b, r->headline->title ? r->headline->title : "THE NUMBERS",
              r->headline->ncols, r->headline->header, r->headline->numeric,
              r->headline->nrows, table_cell, r->headline, 0);
    para(&b, "RECOMMENDATION", r->recommendation, NULL);
    para(&b, "WHAT WOULD CHANGE IT", r->would_change, NULL);
    dam_buf_printf(&b, "</div>\n");
    if (r->summary_chart) {
        dam_buf_printf(&b, "<div>\n");
        rc = figure(&b, r->summary_chart, fig++, err);
        dam_buf_printf(&b, "</div>\n");
    }
    dam_buf_printf(&b, "</section>\n");

    if (r->ncharts && rc == DAM_OK)
        dam_buf_printf(&b, "<h2>Charts</h2>\n");
    for (size_t i = 0; i < r->ncharts && rc == DAM_OK; i++)
        rc = figure(&b, &r->charts[i], fig++, err);
    if (rc == DAM_OK && r->nkey)
        table(&b, "The numbers behind the answer", 2, key_head, NULL,
              r->nkey, row_cell, r->key_numbers, 2);
    for (size_t i = 0; rc == DAM_OK && i < r->ntables; i++) {
        const dam_report_table *t = &r->tables[i];
        table(&b, t->title, t->ncols, t->header, t->numeric, t->nrows,
              table_cell, t, 2);
    }
    if (rc == DAM_OK && r->nassumptions)
        table(&b, "Assumptions: every input and where it comes from", 3,
              asm_head, NULL, r->nassumptions, row_cell, r->assumptions, 2);
    tail(&b);
    if (rc == DAM_OK)
        rc = write_buf(path, &b, err);
    dam_buf_free(&b);
    return rc;
}

int dam_html_write_page(const char *path, const char *title,
                        const char *text, const dam_chart *charts,
                        size_t ncharts, dam_error *err)
{
    dam_buf b = {0};
    int rc = DAM_OK;
    head(&b, title ? title : "damsim");
    dam_buf_printf(&b, "<h1>");
    dam_html_escape(&b, title ? title : "damsim");
    dam_buf_printf(&b, "</h1>\n");
    if (text && *text) {
        dam_buf_printf(&b, "<pre>");
        dam_html_escape(&b, text);
        dam_buf_printf(&b, "</pre>\n");
    }
    for (size_t i = 0; i < ncharts && rc == DAM_OK; i++)
        rc = figure(&b, &charts[i], i, err);
    tail(&b);
    if (rc == DAM_OK)
        rc = write_buf(path, &b, err);
    dam_buf_free(&b);
    if (rc != DAM_OK && err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    return rc;
}
