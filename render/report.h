/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report.h: a multi-page PDF for a budget review: a summary page (title,
 * question, answer, key numbers), one page per chart, table pages
 * (paginated, header repeated), and the assumptions with their sources.
 *
 * Design note: pages are A4 landscape. Rows have a fixed height and cells
 * never wrap (a long cell is cut with an ellipsis), so pagination is pure
 * arithmetic on row counts: dam_report_page_count says how many pages a
 * report will have before anything is drawn, and the footer can say "page
 * 3 of 7". Charts are drawn by the same functions that write chart files.
 * All strings are borrowed for the call.
 */
#ifndef DAM_RENDER_REPORT_H
#define DAM_RENDER_REPORT_H

#include <stddef.h>

#include "model/error.h"
#include "render/chart.h"

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
    const dam_report_row *key_numbers;  /* summary rows (source unused) */
    size_t nkey;
    const dam_chart *charts;            /* one page each */
    size_t ncharts;
    const dam_report_table *tables;     /* paginated */
    size_t ntables;
    const dam_report_row *assumptions;  /* key, value, source; paginated */
    size_t nassumptions;
} dam_report;

/* Pages the report will have: 1 + charts + table pages (each table at
 * least one) + assumption pages (none when there are no assumptions). */
size_t dam_report_page_count(const dam_report *r);

/*
 * Write the report to path, which must end in ".pdf". Returns DAM_OK;
 * DAM_EINPUT for another extension, a table with a bad column count, or a
 * chart's bad input (err names it); DAM_ERUNTIME for cairo or I/O failure.
 * On error no file is created or changed at path.
 */
int dam_report_write(const char *path, const dam_report *r, dam_error *err);

#endif
