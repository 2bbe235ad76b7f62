/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report.h: the budget-review document, as a multi-page PDF or as one
 * self-contained HTML file with the same content. Page 1 is an executive
 * summary: the question, the answer (with its 90 % interval where the
 * results carry one), the one chart that shows why, the numbers that
 * matter (time, cost, GPU-hours, each with its interval), the
 * recommendation and what would change it. Then one page per chart, the
 * key numbers, the tables (paginated, header repeated) and the
 * assumptions with their sources.
 *
 * Design note: pages are A4 landscape. Table cells wrap (a long source
 * wraps onto more lines, it is not cut), so row heights are measured
 * before anything is drawn: dam_report_page_count lays the report out on a
 * scratch surface and says how many pages it will have, and the footer can
 * say "page 3 of 7". A table never leaves a single row alone on a page
 * (the row before it moves over). Charts are drawn by the same functions
 * that write chart files; in HTML they are inline SVG, so the file needs
 * nothing else (no images, styles or scripts from elsewhere). All strings
 * are borrowed for the call.
 */
#ifndef DAM_RENDER_REPORT_H
#define DAM_RENDER_REPORT_H

#include <stddef.h>

#include "model/error.h"
#include "render/chart/chart.h"

#define DAM_REPORT_WIDTH 842.0  /* A4 landscape, points */
#define DAM_REPORT_HEIGHT 595.0 /* points */
#define DAM_REPORT_MAX_COLS 12  /* most columns in a table */

/* A labelled value, with where it comes from. */
typedef struct dam_report_row {
    const char *key;    /* e.g. "step time" or "decode time per image" */
    const char *value;  /* e.g. "104 ms" (already formatted) */
    const char *source; /* e.g. "data/gpus.cfg: NVIDIA datasheet"; may be
                           NULL (summary rows do not show it) */
} dam_report_row;

/* A table of strings. */
typedef struct dam_report_table {
    const char *title;         /* heading over the table */
    size_t ncols;              /* columns, 1 .. DAM_REPORT_MAX_COLS */
    const char *const *header; /* ncols column titles */
    const char *const *cells;  /* nrows * ncols cells, row-major; a NULL
                                  cell is empty */
    size_t nrows;              /* rows (0 gives a page saying so) */
    const int *numeric;        /* per column, 1: right-align (numbers);
                                  may be NULL */
} dam_report_table;

/* Everything in a review document. */
typedef struct dam_report {
    const char *title;                  /* page 1 heading, PDF title */
    const char *context;                /* e.g. "damsim 0.1.0, scenario
                                           resnet50-dgx-a100.cfg"; may be
                                           NULL */
    const char *question;               /* what the review asks */
    const char *answer;                 /* the answer, a sentence or two */
    const dam_report_row *key_numbers;  /* the numbers behind the answer,
                                           a table of their own (source
                                           unused) */
    size_t nkey;
    const dam_chart *charts;            /* one page each */
    size_t ncharts;
    const dam_report_table *tables;     /* paginated */
    size_t ntables;
    const dam_report_row *assumptions;  /* key, value, source; paginated */
    size_t nassumptions;
    /* the executive summary, page 1 */
    const dam_report_table *headline;   /* the numbers that matter (time,
                                           cost, GPU-hours; values with
                                           their intervals); may be NULL */
    const dam_chart *summary_chart;     /* the chart that shows why, drawn
                                           on page 1 (give it a short
                                           title); NULL: none */
    const char *recommendation;         /* what to do; may be NULL */
    const char *would_change;           /* what would change the answer;
                                           may be NULL */
} dam_report;

/* Pages the PDF will have: 1 + charts + the key numbers (when there
 * are any) + table pages (each table at least one) + assumption pages
 * (none when there are no assumptions); rows are measured as drawn. */
size_t dam_report_page_count(const dam_report *r);

/*
 * Write the report to path: a PDF when it ends in ".pdf", one HTML file
 * when it ends in ".html" (render/out/html.c), the executive summary page
 * alone when it ends in ".png" or ".svg". Returns DAM_OK; DAM_EINPUT for
 * another extension, a table with a bad column count, or a chart's bad
 * input (err names it); DAM_ERUNTIME for cairo or I/O failure. On error no
 * file is created or changed at path.
 */
int dam_report_write(const char *path, const dam_report *r, dam_error *err);
/* Where table t breaks into pages in the PDF: starts[p] is the first row
 * of page p, starts[pages] = t->nrows; starts needs t->nrows + 2 slots.
 * Returns the number of pages (>= 1). For tests of the pagination. */
size_t dam_report_table_breaks(const dam_report_table *t, size_t *starts);
/* Draw the executive summary (page 1) of r on cr, an A4-landscape page
 * (DAM_REPORT_WIDTH x DAM_REPORT_HEIGHT points, footer excluded). DAM_OK
 * or the summary chart's error. */
int dam_report_draw_summary(cairo_t *cr, const dam_report *r,
                            dam_error *err);
/* Check r before writing it in any format: DAM_OK or DAM_EINPUT. */
int dam_report_check(const dam_report *r, dam_error *err);

#endif
