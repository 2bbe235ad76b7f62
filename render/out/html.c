/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * html.c: self-contained HTML output (see html.h).
 *
 * Design note: the page is built in a dam_buf and written in one atomic
 * step, so a chart that fails leaves nothing behind. The review follows
 * the PDF section by section (report.c): the executive summary with its
 * chart, then every chart, the key numbers, the tables and the
 * assumptions; a table is an HTML table (cells wrap by themselves).
 * The summary's chart sits below the summary's text at the page's width
 * (beside it, it was drawn at half size and its labels were unreadable).
 * What does not apply is left out: a table without rows, and a column
 * whose every cell is empty, "-" or a zero (a serving scenario's
 * quality).
 */
#include "render/out/html.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/bound.h"
#include "render/chart/canvas.h"
#include "render/chart/draw.h"
#include "render/out/fmt.h"
#include "render/review/report.h"

#define DAM_XSTR(x) #x
#define DAM_STR(x) DAM_XSTR(x)

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
    ".summary figure{margin:1.5em 0 0}"
    ".xp{background:#f2f7fb;border:1px solid #0072B2;padding:0.5em 1em;"
    "margin:1em 0}"
    ".xp label{margin-right:1.5em;white-space:nowrap}"
    ".xp select{font:inherit;margin-left:0.4em}"
    "[hidden]{display:none!important}"
    "table{border-collapse:collapse;margin:0.5em 0;font-size:0.9em}"
    "th{background:#0072B2;color:#fff;text-align:left;padding:0.25em 0.5em}"
    "td{padding:0.25em 0.5em;vertical-align:top}"
    "tr:nth-child(even) td{background:#f2f2f2}"
    "td.num,th.num{text-align:right}td.num{white-space:nowrap}"
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

/* 1 when a cell says nothing: empty, "-", or a zero ("0", "0?",
 * "0 %"). */
static int blank(const char *s)
{
    if (!s || !*s || strcmp(s, "-") == 0)
        return 1;
    return strcmp(s, "0") == 0 || strcmp(s, "0?") == 0 ||
           strcmp(s, "0 %") == 0;
}

/* A table of ncols columns: header, then cell(i, j). Nothing without
 * rows; a column other than the first whose every cell is blank() is left
 * out. */
static void table(dam_buf *b, const char *title, size_t ncols,
                  const char *const *header, const int *numeric,
                  size_t nrows, const char *(*cellf)(const void *, size_t,
                                                     size_t),
                  const void *ctx, int level)
{
    if (nrows == 0)
        return;
    int shown[DAM_REPORT_MAX_COLS + 1];
    for (size_t j = 0; j < ncols && j <= DAM_REPORT_MAX_COLS; j++) {
        shown[j] = j == 0;
        for (size_t i = 0; i < nrows && !shown[j]; i++)
            shown[j] = !blank(cellf(ctx, i, j));
    }
    if (ncols > DAM_REPORT_MAX_COLS + 1)
        ncols = DAM_REPORT_MAX_COLS + 1;
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
        if (!shown[j])
            continue;
        dam_buf_printf(b, "<th%s>",
                       numeric && numeric[j] ? " class=\"num\"" : "");
        dam_html_escape(b, header && header[j] ? header[j] : "");
        dam_buf_printf(b, "</th>");
    }
    dam_buf_printf(b, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < nrows; i++) {
        dam_buf_printf(b, "<tr>");
        for (size_t j = 0; j < ncols; j++) {
            if (!shown[j])
                continue;
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

/* ---- the explorer --------------------------------------------------- */

/* s as a JSON string; <, > and & as \u escapes so that no "</script>"
 * can end the element early. */
static void json_str(dam_buf *b, const char *s)
{
    dam_buf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
         p++) {
        if (*p == '"' || *p == '\\')
            dam_buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
            dam_buf_printf(b, "\\u%04x", *p);
        else
            dam_buf_append(b, (const char *)p, 1);
    }
    dam_buf_append(b, "\"", 1);
}

/* Rows of the explorer's numbers table: training, then serving. */
enum { XN_STEP, XN_RUN, XN_COST, XN_GPUH, XN_BINDS, XN_FITS, XN_COUNT };
static const char *const xn_train[XN_COUNT] = {
    "step time", "time to train", "cost of the run", "GPU-hours",
    "what binds", "fits in GPU memory"};
static const char *const xn_serve[XN_COUNT] = {
    "time of a lone request", "throughput", NULL, NULL, "what binds",
    "fits in GPU memory"};

/* How the points were solved, for the labels. */
static const char *xp_how(const dam_html_explore *x)
{
    return x->sw->simulate ? "simulated" : "analytic";
}

/* The name of row r of the numbers table. */
static const char *xp_row_name(const dam_html_explore *x, int r)
{
    if (x->serving && r == XN_STEP && x->sw->simulate)
        return "mean time of a request";
    return (x->serving ? xn_serve : xn_train)[r];
}

/* 1 when row r of the numbers table applies: it has a name, and a
 * serving scenario's throughput is known (an LLM service's analytic
 * solve is of a lone request: no rate). */
static int xp_applies(const dam_html_explore *x, const char *const *names,
                      int r)
{
    return names[r] && !(x->serving && r == XN_RUN &&
                         !(x->base->throughput > 0.0));
}

/* The speed-up of row p over the base: run time where both have one,
 * else the step (a request's time). 0 when it cannot be said. */
static double xp_speedup(const dam_sweep_row *base, const dam_sweep_row *p)
{
    if (base->run_time > 0.0 && p->run_time > 0.0)
        return base->run_time / p->run_time;
    if (base->step > 0.0 && p->step > 0.0)
        return base->step / p->step;
    return 0.0;
}

/* Cell r of the numbers table for row p (with its interval where the
 * row has one) into buf; "" when the row does not apply. */
static void xp_cell(char *buf, size_t n, const dam_sweep_row *p, int r,
                    int serving)
{
    buf[0] = '\0';
    switch (r) {
    case XN_STEP:
        if (p->has_interval && !serving)
            dam_fmt_interval(buf, n, p->step, p->step_i.lo, p->step_i.hi,
                             DAM_FMT_TIME);
        else
            dam_fmt_time(buf, n, p->step);
        break;
    case XN_RUN:
        if (serving) {
            char v[48];
            dam_fmt_num(v, sizeof v, p->throughput, DAM_FMT_SIG);
            snprintf(buf, n, "%s requests/s", v);
        } else if (p->has_interval) {
            dam_fmt_interval(buf, n, p->run_time, p->run_time_i.lo,
                             p->run_time_i.hi, DAM_FMT_TIME);
        } else {
            dam_fmt_time(buf, n, p->run_time);
        }
        break;
    case XN_COST:
        if (!p->priced)
            snprintf(buf, n, "n/a (no price)");
        else if (p->has_interval)
            dam_fmt_interval(buf, n, p->cost_usd, p->cost_i.lo, p->cost_i.hi,
                             DAM_FMT_USD);
        else
            dam_fmt_usd(buf, n, p->cost_usd, DAM_FMT_SIG);
        break;
    case XN_GPUH:
        dam_fmt_num(buf, n, p->gpu_hours, DAM_FMT_SIG);
        break;
    case XN_BINDS:
        snprintf(buf, n, "%s", dam_bound_name(p->bound));
        break;
    default:
        snprintf(buf, n, "%s", p->fits ? "yes" : "NO");
    }
}

/* The point's name: its values, "key = value, ...". */
static void xp_name(char *buf, size_t n, const dam_sweep *sw,
                    const dam_sweep_row *p)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < sw->nkeys && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s = %s",
                                k ? ", " : "", sw->keys[k].key,
                                p->values[k]);
}

/* s with its first letter in upper case, into buf. */
static const char *cap(char *buf, size_t n, const char *s)
{
    snprintf(buf, n, "%s", s);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
    return buf;
}

/* The answer at point p, one or two sentences. */
static void xp_answer(char *buf, size_t n, const dam_html_explore *x,
                      const dam_sweep_row *p)
{
    char name[600], a[96], b[96], c[96], sp[96], bn[48];
    xp_name(name, sizeof name, x->sw, p);
    double f = xp_speedup(x->base, p);
    char v[48];
    if (f >= 1.005 || (f > 0.0 && f <= 0.995)) {
        double g = f >= 1.0 ? f : 1.0 / f;
        dam_fmt_fixed(v, sizeof v, g, g >= 10.0 ? 1 : 2);
        snprintf(sp, sizeof sp, "%sx %s", v, f >= 1.0 ? "faster" : "slower");
    } else {
        snprintf(sp, sizeof sp, "no faster");
    }
    xp_cell(b, sizeof b, x->base, x->serving ? XN_STEP : XN_RUN,
            x->serving);
    if (x->serving) {
        xp_cell(a, sizeof a, p, XN_STEP, 1);
        /* past its capacity the queue grows without bound: that comes
         * first, as on the run page */
        char over[256] = "";
        if (p->overloaded > 0) {
            dam_fmt_value(c, sizeof c, p->throughput, DAM_FMT_PLAIN,
                          DAM_FMT_SIG);
            snprintf(over, sizeof over, "OVERLOADED: it serves at most %s "
                     "requests/s, so its queue grows without bound; ", c);
        }
        snprintf(buf, n, "At %s: %s%s takes %s; %s than as "
                         "configured, %s. %s binds%s.",
                 name, over,
                 x->sw->simulate ? "a request under load" : "a lone request",
                 a, sp, b, cap(bn, sizeof bn, dam_bound_name(p->bound)),
                 p->fits ? "" : "; it does NOT fit in GPU memory");
        return;
    }
    xp_cell(a, sizeof a, p, XN_RUN, 0);
    xp_cell(c, sizeof c, p, XN_COST, 0);
    snprintf(buf, n, "At %s: a run of %s costing %s; %s than as "
                     "configured, %s. %s binds%s.",
             name, a, c, sp, b, cap(bn, sizeof bn, dam_bound_name(p->bound)),
             p->fits ? "" : "; it does NOT fit in GPU memory and cannot run");
}

#define XP_W 720.0 /* the explorer chart's view box, px */
#define XP_H 200.0
#define XP_X0 150.0 /* where the bars start */
#define XP_X1 560.0 /* the longest bar's end */

/* The explorer's chart: where a step's time goes, as configured and at
 * the point chosen (two stacked bars, the binding term outlined), with
 * its legend. The script sets the bars' widths and the labels. */
static void xp_chart(dam_buf *b, const dam_html_explore *x)
{
    static const char *const bars[2] = {"as configured", "this point"};
    dam_buf_printf(b, "<figure class=\"xp-on\" hidden>\n<svg id=\"xp-chart\" "
                      "xmlns=\"http://www.w3.org/2000/svg\" "
                      "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
                      "height=\"%.0f\" font-family=\"DejaVu Sans, Verdana, "
                      "sans-serif\" font-size=\"14\">\n",
                   XP_W, XP_H, XP_W, XP_H);
    dam_buf_printf(b, "<text x=\"0\" y=\"18\" font-weight=\"bold\" "
                      "font-size=\"16\">Where the time of a %s goes "
                      "(%s)</text>\n",
                   x->serving ? "request" : "step", xp_how(x));
    for (int k = 0; k < 2; k++) {
        double y = 40.0 + 50.0 * k;
        dam_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">"
                          "%s</text>\n",
                       XP_X0 - 8.0, y + 20.0, bars[k]);
        for (int t = 0; t < DAM_TERM_COUNT; t++) {
            dam_rgb c = dam_draw_rgb(dam_chart_term_color((dam_term)t));
            dam_buf_printf(b, "<rect id=\"xp-r%d-%d\" x=\"%.0f\" y=\"%.0f\" "
                              "width=\"0\" height=\"30\" "
                              "fill=\"#%02x%02x%02x\" stroke=\"#000\" "
                              "stroke-width=\"0\"/>\n",
                           k, t, XP_X0, y, (int)lround(c.r * 255),
                           (int)lround(c.g * 255), (int)lround(c.b * 255));
        }
        dam_buf_printf(b, "<text id=\"xp-l%d\" x=\"%.0f\" y=\"%.0f\"></text>"
                          "\n",
                       k, XP_X0, y + 20.0);
    }
    /* the legend: every term, then the outline, in rows that fit (DejaVu
     * Sans at 12 px: under 7.5 px a character) */
    double lx = 0.0, ly = 152.0;
    for (int t = 0; t <= DAM_TERM_COUNT; t++) {
        const char *name = t < DAM_TERM_COUNT ? dam_term_name((dam_term)t)
                                              : "binding term";
        double wd = 18.0 + 7.5 * (double)strlen(name);
        if (lx > 0.0 && lx + wd > XP_W) {
            lx = 0.0;
            ly += 22.0;
        }
        if (t < DAM_TERM_COUNT) {
            dam_rgb c = dam_draw_rgb(dam_chart_term_color((dam_term)t));
            dam_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" "
                              "height=\"14\" fill=\"#%02x%02x%02x\"/>",
                           lx, ly, (int)lround(c.r * 255),
                           (int)lround(c.g * 255), (int)lround(c.b * 255));
        } else {
            dam_buf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" "
                              "height=\"12\" fill=\"none\" stroke=\"#000\" "
                              "stroke-width=\"2\"/>",
                           lx + 1.0, ly + 1.0);
        }
        dam_buf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">",
                       lx + 18.0, ly + 12.0);
        dam_html_escape(b, name);
        dam_buf_printf(b, "</text>\n");
        lx += wd + 14.0;
    }
    dam_buf_printf(b, "</svg>\n</figure>\n");
}

/* The selectors, the point's answer and its numbers (hidden until the
 * script shows them). */
static void xp_controls(dam_buf *b, const dam_html_explore *x)
{
    const dam_sweep *sw = x->sw;
    dam_buf_printf(b, "<form id=\"xp-form\" class=\"xp\" hidden>\n"
                      "<p class=\"cap\">EXPLORE: CHOOSE A VALUE OF EACH KEY "
                      "(%llu POINTS, EACH %s BY DAMSIM)</p>\n",
                   (unsigned long long)sw->npoints,
                   sw->simulate ? "SIMULATED" : "SOLVED ANALYTICALLY");
    for (int k = 0; k < sw->nkeys; k++) {
        dam_buf_printf(b, "<label>");
        dam_html_escape(b, sw->keys[k].key);
        dam_buf_printf(b, "<select id=\"xp-k%d\">"
                          "<option value=\"-1\">as configured</option>",
                       k);
        for (int v = 0; v < sw->keys[k].nvalues; v++) {
            dam_buf_printf(b, "<option value=\"%d\">", v);
            dam_html_escape(b, sw->keys[k].values[v]);
            dam_buf_printf(b, "</option>");
        }
        dam_buf_printf(b, "</select></label>\n");
    }
    dam_buf_printf(b, "</form>\n");
}

static void xp_answer_and_numbers(dam_buf *b, const dam_html_explore *x)
{
    const char *const *names = x->serving ? xn_serve : xn_train;
    char v[160];
    dam_buf_printf(b, "<div class=\"xp-on\" hidden>\n<p class=\"cap\">ANSWER "
                      "AT THE POINT CHOSEN</p>\n<p class=\"answer\" "
                      "id=\"xp-answer\"></p>\n<p class=\"cap\">THE NUMBERS "
                      "AT THE POINT CHOSEN%s</p>\n<table id=\"xp-numbers\">\n"
                      "<thead><tr><th></th><th>as configured (%s)</th>"
                      "<th>at the point</th></tr></thead>\n<tbody>\n",
                   x->base->has_interval ? " (90 % INTERVAL)" : "",
                   xp_how(x));
    for (int r = 0; r < XN_COUNT; r++) {
        if (!xp_applies(x, names, r))
            continue;
        xp_cell(v, sizeof v, x->base, r, x->serving);
        dam_buf_printf(b, "<tr><td>%s</td><td>", xp_row_name(x, r));
        dam_html_escape(b, v);
        dam_buf_printf(b, "</td><td id=\"xp-n%d\"></td></tr>\n", r);
    }
    dam_buf_printf(b, "</tbody>\n</table>\n</div>\n");
}

/* Every point as a table: what a reader without JavaScript gets. */
static void xp_table(dam_buf *b, const dam_html_explore *x)
{
    const dam_sweep *sw = x->sw;
    size_t np = (size_t)sw->npoints;
    double *st = dam_malloc((np + 1) * sizeof *st);
    double *rt = dam_malloc((np + 1) * sizeof *rt);
    for (size_t i = 0; i < np; i++) {
        st[i] = x->rows[i].step;
        rt[i] = x->rows[i].run_time;
    }
    dam_fmt_time_unit us = dam_fmt_time_pick_column(st, np);
    dam_fmt_time_unit ur = dam_fmt_time_pick_column(rt, np);
    dam_free(st);
    dam_free(rt);
    dam_buf_printf(b, "<h2>Explore: every point of the sweep</h2>\n"
                      "<p>Each point is the scenario with the values shown, "
                      "%s (as <code>damsim sweep%s</code> does); the "
                      "speed-up is against the scenario as configured, "
                      "solved the same way.</p>\n"
                      "<table id=\"xp-all\">\n<thead><tr>",
                   sw->simulate ? "simulated" : "solved by the analytic solver",
                   sw->simulate ? " --simulate" : "");
    for (int k = 0; k < sw->nkeys; k++) {
        dam_buf_printf(b, "<th>");
        dam_html_escape(b, sw->keys[k].key);
        dam_buf_printf(b, "</th>");
    }
    if (x->serving)
        dam_buf_printf(b, "<th class=\"num\">%s</th>"
                          "<th class=\"num\">speed-up</th>",
                       sw->simulate ? "a request" : "lone request");
    else
        dam_buf_printf(b, "<th class=\"num\">step</th><th class=\"num\">"
                          "time to train</th><th class=\"num\">cost</th>"
                          "<th class=\"num\">GPU-hours</th>"
                          "<th class=\"num\">speed-up</th>");
    dam_buf_printf(b, "<th>binds</th><th>fits</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < np; i++) {
        const dam_sweep_row *p = &x->rows[i];
        char v[96];
        dam_buf_printf(b, "<tr>");
        for (int k = 0; k < sw->nkeys; k++) {
            dam_buf_printf(b, "<td>");
            dam_html_escape(b, p->values[k]);
            dam_buf_printf(b, "</td>");
        }
        dam_fmt_time_in(v, sizeof v, p->step, us, DAM_FMT_SIG);
        dam_buf_printf(b, "<td class=\"num\">%s</td>", v);
        if (!x->serving) {
            dam_fmt_time_in(v, sizeof v, p->run_time, ur, DAM_FMT_SIG);
            dam_buf_printf(b, "<td class=\"num\">%s</td>", v);
            if (p->priced)
                dam_fmt_usd(v, sizeof v, p->cost_usd, DAM_FMT_SIG);
            else
                snprintf(v, sizeof v, "n/a");
            dam_buf_printf(b, "<td class=\"num\">%s</td>", v);
            dam_fmt_num(v, sizeof v, p->gpu_hours, DAM_FMT_SIG);
            dam_buf_printf(b, "<td class=\"num\">%s</td>", v);
        }
        double f = xp_speedup(x->base, p);
        dam_fmt_fixed(v, sizeof v, f, f >= 10.0 ? 1 : 2);
        dam_buf_printf(b, "<td class=\"num\">%sx</td><td>%s</td><td>%s</td>"
                          "</tr>\n",
                       v, dam_bound_name(p->bound), p->fits ? "yes" : "NO");
    }
    dam_buf_printf(b, "</tbody>\n</table>\n");
}

/* A bar's terms and label as JSON: {"t":[...],"b":k,"l":"..."} */
static void xp_bar_json(dam_buf *b, const double *terms, dam_bound bound,
                        double step)
{
    char v[48];
    dam_buf_printf(b, "{\"t\":[");
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        dam_buf_printf(b, "%s%.6g", t ? "," : "",
                       isfinite(terms[t]) && terms[t] > 0.0 ? terms[t] : 0.0);
    dam_fmt_time(v, sizeof v, step);
    dam_buf_printf(b, "],\"b\":%d,\"l\":", dam_chart_bound_term(bound));
    json_str(b, v);
    dam_buf_printf(b, "}");
}

/* The sweep as JSON: each key's number of values, the base's bar, and per
 * point its answer, its numbers and its bar. */
static void xp_data(dam_buf *b, const dam_html_explore *x)
{
    const dam_sweep *sw = x->sw;
    char v[1024];
    dam_buf_printf(b, "<script type=\"application/json\" id=\"xp-data\">"
                      "{\"n\":[");
    for (int k = 0; k < sw->nkeys; k++)
        dam_buf_printf(b, "%s%d", k ? "," : "", sw->keys[k].nvalues);
    dam_buf_printf(b, "],\"base\":");
    xp_bar_json(b, x->base_terms, x->base->bound, x->base->step);
    dam_buf_printf(b, ",\"p\":[\n");
    const char *const *names = x->serving ? xn_serve : xn_train;
    for (uint64_t i = 0; i < sw->npoints; i++) {
        const dam_sweep_row *p = &x->rows[i];
        xp_answer(v, sizeof v, x, p);
        dam_buf_printf(b, "%s{\"a\":", i ? ",\n" : "");
        json_str(b, v);
        dam_buf_printf(b, ",\"c\":{");
        int first = 1;
        for (int r = 0; r < XN_COUNT; r++) {
            if (!xp_applies(x, names, r))
                continue;
            xp_cell(v, sizeof v, p, r, x->serving);
            dam_buf_printf(b, "%s\"%d\":", first ? "" : ",", r);
            json_str(b, v);
            first = 0;
        }
        dam_buf_printf(b, "},\"g\":");
        xp_bar_json(b, x->terms[i], p->bound, p->step);
        dam_buf_printf(b, "}");
    }
    dam_buf_printf(b, "]}</script>\n");
}

/* The script: reads the selectors, finds the point (the first key varies
 * slowest), fills the answer, the numbers and the chart, and swaps the
 * review's own (class xp-off) for them (class xp-on). A fragment #xp=I,J
 * sets the selectors and fires a change event, as moving one does. */
static const char xp_script[] =
    "<script>\n"
    "(function(){\n"
    "var D=JSON.parse(document.getElementById('xp-data').textContent);\n"
    "var S=[],k;for(k=0;k<D.n.length;k++)"
    "S.push(document.getElementById('xp-k'+k));\n"
    "function all(c,h){var e=document.querySelectorAll('.'+c);"
    "for(var i=0;i<e.length;i++)e[i].hidden=h;}\n"
    "function bar(k,g,w){var x=" DAM_STR(XP_X0) ",t;"
    "for(t=0;t<g.t.length;t++){var r=document.getElementById('xp-r'+k+'-'+t);"
    "var d=g.t[t]*w;r.setAttribute('x',x);r.setAttribute('width',d);"
    "r.setAttribute('stroke-width',t==g.b&&d>0?2:0);x+=d;}"
    "var l=document.getElementById('xp-l'+k);l.setAttribute('x',x+6);"
    "l.textContent=g.l;}\n"
    "function sum(g){var s=0;for(var t=0;t<g.t.length;t++)s+=g.t[t];"
    "return s;}\n"
    "function show(moved){var i,p=0,on=0;\n"
    " for(i=0;i<S.length;i++)on|=S[i].value!='-1';\n"
    " if(moved>=0&&S[moved].value=='-1')on=0;\n"
    " for(i=0;i<S.length;i++){if(!on)S[i].value='-1';"
    "else if(S[i].value=='-1')S[i].value='0';"
    "p=p*D.n[i]+(on?+S[i].value:0);}\n"
    " all('xp-on',!on);all('xp-off',!!on);"
    "document.getElementById('xp-form').setAttribute('data-point',on?p:-1);"
    "if(!on)return;\n"
    " var P=D.p[p];document.getElementById('xp-answer').textContent=P.a;\n"
    " for(var r in P.c)document.getElementById('xp-n'+r).textContent=P.c[r];\n"
    " var w=(" DAM_STR(XP_X1) "-" DAM_STR(XP_X0) ")/"
    "Math.max(sum(D.base),sum(P.g),1e-30);bar(0,D.base,w);bar(1,P.g,w);}\n"
    "for(k=0;k<S.length;k++)S[k].onchange=(function(m){"
    "return function(){show(m);};})(k);\n"
    "document.getElementById('xp-form').hidden=false;\n"
    "var m=/^#xp=(-?[0-9]+(,-?[0-9]+)*)$/.exec(location.hash);\n"
    "if(m){var v=m[1].split(','),j=-1;"
    "for(k=0;k<S.length&&k<v.length;k++)"
    "if(+v[k]>=-1&&+v[k]<D.n[k]){S[k].value=v[k];j=k;}\n"
    " if(j>=0)S[j].dispatchEvent(new Event('change'));}\n"
    "})();\n"
    "</script>\n";

int dam_html_write_report(const char *path, const dam_report *r,
                          dam_error *err)
{
    return dam_html_write_review(path, r, NULL, err);
}

int dam_html_write_review(const char *path, const dam_report *r,
                          const dam_html_explore *x, dam_error *err)
{
    dam_buf b = {0};
    int rc = DAM_OK;
    size_t fig = 0;
    static const char *const key_head[2] = {"figure", "value"};
    static const char *const asm_head[3] = {"assumption", "value", "source"};
    const char *off = x ? " class=\"xp-off\"" : NULL;

    head(&b, r->title);
    dam_buf_printf(&b, "<h1>");
    dam_html_escape(&b, r->title);
    dam_buf_printf(&b, "</h1>\n");
    if (r->context) {
        dam_buf_printf(&b, "<p class=\"context\">");
        dam_html_escape(&b, r->context);
        dam_buf_printf(&b, "</p>\n");
    }

    /* the executive summary: the text, then its chart at full width */
    dam_buf_printf(&b, "<section class=\"summary\">\n");
    para(&b, "QUESTION", r->question, NULL);
    if (x)
        xp_controls(&b, x);
    dam_buf_printf(&b, "<div%s>\n", off ? off : "");
    para(&b, "ANSWER", r->answer, "answer");
    if (r->headline)
        table(&b, r->headline->title ? r->headline->title : "THE NUMBERS",
              r->headline->ncols, r->headline->header, r->headline->numeric,
              r->headline->nrows, table_cell, r->headline, 0);
    dam_buf_printf(&b, "</div>\n");
    if (x)
        xp_answer_and_numbers(&b, x);
    para(&b, "RECOMMENDATION", r->recommendation, NULL);
    para(&b, "WHAT WOULD CHANGE IT", r->would_change, NULL);
    if (r->summary_chart) {
        dam_buf_printf(&b, "<div%s>\n", off ? off : "");
        rc = figure(&b, r->summary_chart, fig++, err);
        dam_buf_printf(&b, "</div>\n");
    }
    if (x)
        xp_chart(&b, x);
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
    if (rc == DAM_OK && x)
        xp_table(&b, x);
    if (rc == DAM_OK && r->nassumptions)
        table(&b, "Assumptions: every input and where it comes from", 3,
              asm_head, NULL, r->nassumptions, row_cell, r->assumptions, 2);
    if (rc == DAM_OK && x) {
        xp_data(&b, x);
        dam_buf_printf(&b, "%s", xp_script);
    }
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
