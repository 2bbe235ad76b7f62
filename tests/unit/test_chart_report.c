/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_chart_report.c: the budget-review PDF: the page count predicted by
 * dam_report_page_count is the number of page objects in the file (a table
 * longer than a page paginates), the same report gives the same bytes,
 * and bad input or a bad extension leaves no file behind. The report stays
 * in the test's folder (build/tests/chart_report.pdf) to look at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart_fixtures.h"
#include "check.h"
#include "model/alloc.h"
#include "render/review/report.h"

/* Page objects: "/Type /Page" not followed by "s" (that is /Pages). */
static long count_pages(const unsigned char *b, size_t n)
{
    static const char key[] = "/Type /Page";
    const size_t kl = sizeof key - 1;
    long pages = 0;
    for (size_t i = 0; i + kl < n; i++)
        if (memcmp(b + i, key, kl) == 0 && b[i + kl] != 's')
            pages++;
    return pages;
}

#define NROWS 60

int main(void)
{
    fx_chinchilla ch;
    fx_chinchilla_fill(&ch);
    dam_chart charts[7];
    fx_all_charts(charts, &ch);

    /* a 60-row table of replications: three pages */
    static char text[NROWS][4][32];
    static const char *cells[NROWS * 4];
    for (int i = 0; i < NROWS; i++) {
        snprintf(text[i][0], 32, "replication %d", i + 1);
        snprintf(text[i][1], 32, "%d", 1000 + 17 * i);
        snprintf(text[i][2], 32, "%.1f ms", 104.0 + (i % 7) * 0.3);
        snprintf(text[i][3], 32, "%.1f ms", 60.0 + (i % 5) * 0.2);
        for (int j = 0; j < 4; j++)
            cells[i * 4 + j] = text[i][j];
    }
    static const char *const head[4] = {"run", "seed", "step time",
                                        "data wait"};
    static const int numeric[4] = {0, 1, 1, 1};
    static const char *const lhead[3] = {"lever", "speed-up", "verdict"};
    dam_report_table tables[2] = {
        {"Replications of the baseline", 4, head, cells, NROWS, numeric},
        {"Levers not tried", 3, lhead, NULL, 0, NULL}};
    static const dam_report_row key[] = {
        {"step time (8x A100)", "104 ms", NULL},
        {"data wait share", "58 %", NULL},
        {"best lever", "GPU decode: 2.23x", NULL},
        {"cost of the run", "$12.3k", NULL},
        {"cost with the best lever", "$9.0k", NULL}};
    static const char *const hl_head[3] = {"", "as configured",
                                           "with GPU decode"};
    static const char *const hl_cells[9] = {
        "time to train", "3.0 h (2.7 to 3.4 h)", "1.4 h",
        "cost of the run", "$12,300 ($11,000 to $14,000)", "$9,000",
        "GPU-hours", "24.0 (22 to 27)", "11"};
    static const dam_report_table headline = {
        "THE NUMBERS THAT MATTER (90 % INTERVAL)", 3, hl_head, hl_cells, 3,
        NULL};
    static const dam_report_row assume[] = {
        {"A100 bf16 peak", "312 TFLOP/s", "NVIDIA A100 datasheet (2020)"},
        {"A100 HBM bandwidth", "2039 GB/s", "NVIDIA A100 80GB datasheet"},
        {"JPEG decode per image", "3.1 ms/core",
         "measured, PIL-SIMD on Xeon 8380, see data/models.cfg for the "
         "procedure and the spread across 10,000 images of the validation "
         "set"},
        {"GPU price", "$1.80 per GPU-hour", "cloud list price, 2024"}};
    dam_report rep = {
        "Budget review: ResNet-50 training on 8x A100",
        "damsim 0.1.0, scenario resnet50-dgx-a100.cfg, seed 1, 5 replications",
        "Should we buy H100s to train ResNet-50 faster?",
        "No. The step is data-bound: the GPUs wait 60 ms of every 104 ms. "
        "GPU decoding makes it 2.2x faster for $3.3k less; an H100 alone "
        "buys 3 % for $18k more.",
        key, sizeof key / sizeof key[0],
        charts, 7,
        tables, 2,
        assume, sizeof assume / sizeof assume[0],
        &headline, &charts[0],
        "Decode on the GPU: 2.2x faster and $3.3k cheaper per run.",
        "The answer holds while data binds (58 % of the step)."};

    size_t want = 1 + 7 + 1 + 3 + 1 + 1;
    dam_check_int((long)dam_report_page_count(&rep), (long)want,
                  "page count: summary, 7 charts, key numbers, 3 + 1 table "
                  "pages, assumptions");

    /* pagination: no page holds a single row of a longer table */
    size_t starts[NROWS + 2];
    for (size_t nr = 2; nr <= NROWS; nr++) {
        dam_report_table t = tables[0];
        t.nrows = nr;
        size_t np = dam_report_table_breaks(&t, starts);
        size_t lonely = 0;
        for (size_t p = 0; p < np; p++)
            lonely += starts[p + 1] - starts[p] == 1;
        if (lonely)
            dam_check(0, "%zu rows: a page with a single row", nr);
    }
    dam_check(1, "2 to %d rows: never a page with one row", NROWS);
    /* a long source wraps onto more lines rather than being cut */
    {
        static const char *const wide_cells[4] = {
            "x", "a source long enough to need several lines in a column "
                 "that the water-fill has to shrink: data/models.cfg, the "
                 "procedure and its spread across 10,000 images, and more "
                 "words so that it cannot fit on one line of a page",
            "y", "short"};
        static const char *const wh[2] = {"key", "source"};
        dam_report_table t = {"wrap", 2, wh, wide_cells, 2, NULL};
        dam_check_int((long)dam_report_table_breaks(&t, starts), 1,
                      "a wrapped long cell stays on one page");
    }

    dam_error err;
    memset(&err, 0, sizeof err);
    int rc = dam_report_write("chart_report.pdf", &rep, &err);
    dam_check(rc == DAM_OK, "report renders (%s)", rc ? err.msg : "ok");
    rc = dam_report_write("chart_report.again.pdf", &rep, &err);
    dam_check(rc == DAM_OK, "report renders a second time");
    size_t n1 = 0, n2 = 0;
    unsigned char *b1 = dam_test_slurp("chart_report.pdf", &n1);
    unsigned char *b2 = dam_test_slurp("chart_report.again.pdf", &n2);
    dam_check(b1 && n1 > 5 && memcmp(b1, "%PDF-", 5) == 0,
              "report starts %%PDF-");
    dam_check_int(b1 ? count_pages(b1, n1) : -1, (long)want,
                  "page objects in the PDF");
    dam_check(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0,
              "report: same bytes on a second render");
    dam_free(b1);
    dam_free(b2);
    remove("chart_report.again.pdf");

    /* a short report: summary only */
    dam_report small = {"Summary only", NULL, "q?", "a.", NULL, 0, NULL, 0,
                        NULL, 0, NULL, 0, NULL, NULL, NULL, NULL};
    dam_check_int((long)dam_report_page_count(&small), 1,
                  "summary-only report: 1 page");
    rc = dam_report_write("chart_report_small.pdf", &small, &err);
    b1 = dam_test_slurp("chart_report_small.pdf", &n1);
    dam_check(rc == DAM_OK && b1 && count_pages(b1, n1) == 1,
              "summary-only report has one page object");
    dam_free(b1);
    remove("chart_report_small.pdf");

    /* the summary page alone as PNG; HTML with every chart inline */
    rc = dam_report_write("chart_report_page.png", &rep, &err);
    b1 = dam_test_slurp("chart_report_page.png", &n1);
    dam_check(rc == DAM_OK && b1 && n1 > 8 && memcmp(b1, "\x89PNG", 4) == 0,
              "the summary page as PNG (%s)", rc ? err.msg : "ok");
    dam_free(b1);
    remove("chart_report_page.png");
    rc = dam_report_write("chart_report.html", &rep, &err);
    b1 = dam_test_slurp("chart_report.html", &n1);
    long svgs = 0;
    for (size_t i = 0; b1 && i + 4 < n1; i++)
        svgs += memcmp(b1 + i, "<svg", 4) == 0;
    dam_check(rc == DAM_OK && b1 && memcmp(b1, "<!DOCTYPE html>", 15) == 0,
              "the review as HTML (%s)", rc ? err.msg : "ok");
    dam_check_int(svgs, 1 + 7, "HTML: the summary chart and all 7 charts "
                               "inline");
    dam_check(b1 && !strstr((char *)b1, "<script") &&
                  !strstr((char *)b1, "<img") &&
                  !strstr((char *)b1, "<link") &&
                  !strstr((char *)b1, "href=\"http"),
              "HTML: no script, image or link to anything outside");
    dam_free(b1);
    remove("chart_report.html");

    /* a report is a PDF or HTML (or its summary page) */
    rc = dam_report_write("chart_report_bad.xlsx", &rep, &err);
    dam_check_int(rc, DAM_EINPUT, "a .xlsx report is DAM_EINPUT");
    rc = dam_report_write("chart_report_bad.docx", &rep, &err);
    dam_check_int(rc, DAM_EINPUT, "a .docx report is DAM_EINPUT");
    dam_check_int(dam_test_leftovers("chart_report_bad"), 0,
                  "no chart_report_bad* files left");

    /* a chart with bad input fails the whole report, leaving nothing */
    dam_chart_lever bad = fx_levers_in[0];
    bad.speedup = NAN;
    dam_chart_levers lv = fx_levers;
    lv.levers = &bad;
    lv.nlevers = 1;
    dam_chart badc[1];
    badc[0].kind = DAM_CHART_LEVERS;
    badc[0].u.levers = &lv;
    dam_report broken = rep;
    broken.charts = badc;
    broken.ncharts = 1;
    memset(&err, 0, sizeof err);
    rc = dam_report_write("chart_report_nan.pdf", &broken, &err);
    dam_check_int(rc, DAM_EINPUT, "a NaN speed-up in a chart is DAM_EINPUT");
    dam_check(strstr(err.msg, "speed-up") != NULL,
              "the message names the field: %s", err.msg);
    dam_check_int(dam_test_leftovers("chart_report_nan"), 0,
                  "no chart_report_nan* files left");

    /* a table with too many columns */
    dam_report_table wide = tables[0];
    wide.ncols = DAM_REPORT_MAX_COLS + 1;
    broken = rep;
    broken.tables = &wide;
    broken.ntables = 1;
    rc = dam_report_write("chart_report_wide.pdf", &broken, &err);
    dam_check_int(rc, DAM_EINPUT, "13 columns is DAM_EINPUT");
    dam_check_int(dam_test_leftovers("chart_report_wide"), 0,
                  "no chart_report_wide* files left");
    return dam_check_done();
}
