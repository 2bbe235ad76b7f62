/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_report.h: the budget-review document (report.h) of a what-if on a
 * profiler trace: page 1 the question (would the levers asked about, a GPU
 * first, cut this job's step?), the answer with its interval and the
 * breakdown chart of every option; then the what-if table with each
 * verdict's reason, the breakdown of the replayed step, and the
 * assumptions of the replay and of the device model with their sources.
 */
#ifndef DAM_TRACE_REPORT_H
#define DAM_TRACE_REPORT_H

#include "model/catalog.h"
#include "render/chart/chart.h"
#include "render/review/report.h"
#include "solver/trace_whatif.h"

#define DAM_TREVIEW_CELL 480

/* The report and the storage its strings point into (large: allocate). */
typedef struct dam_trace_review {
    dam_report report;
    char title[160], context[400], question[300], answer[700];
    char recommendation[700], would_change[400];
    dam_chart_bar bars[DAM_TWHATIF_MAX];
    dam_chart_breakdown breakdown;
    dam_chart chart;
    char cells[DAM_TWHATIF_MAX * 7 + DAM_TTERM_COUNT * 4][DAM_TREVIEW_CELL];
    const char *table_cells[2][DAM_TWHATIF_MAX * 7];
    dam_report_table tables[2];
    const char *head_cells[8];
    dam_report_table headline;
    dam_report_row key[6];
    dam_report_row assumptions[8];
    char akey[8][80], aval[8][200], asrc[8][DAM_SOURCE_MAX];
} dam_trace_review;

/* Build the review of what-if w on trace t (GPU sources from cat). */
void dam_trace_review_build(dam_trace_review *rv, const dam_ktrace *t,
                            const dam_rgraph *g, const dam_twhatif *w,
                            const dam_catalog *cat, const char *version);

#endif
