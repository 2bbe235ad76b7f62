/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * review.h: the budget-review document of a what-if: the executive summary
 * (question, answer with its interval, the chart that shows why, time,
 * cost and GPU-hours with their intervals, the recommendation and what
 * would change it), the what-if's charts, the key numbers, the lever
 * table, the iron law per stage, the roofline phases, the diagnosis, and
 * every input with its source, laid out as a dam_report that
 * render/report.c writes as PDF or HTML.
 *
 * Design note: this is where the review's content is chosen and formatted;
 * report.c only lays pages out. The review owns every string, table and
 * chart it builds and borrows the what-if (whose scenario strings it points
 * at): the what-if must outlive the review.
 */
#ifndef DAM_RENDER_REVIEW_H
#define DAM_RENDER_REVIEW_H

#include "render/chartset.h"
#include "render/report.h"
#include "solver/uncertainty.h"
#include "solver/whatif.h"

#define DAM_REVIEW_TABLES 4 /* lever table, iron law, roofline, diagnosis */

/* Storage behind a review (private to review.c). */
typedef struct dam_review_store dam_review_store;

/* A built review. */
typedef struct dam_review {
    dam_report report;                         /* the document; points into
                                                  what follows */
    dam_report_table tables[DAM_REVIEW_TABLES];/* report.tables */
    dam_chartset *charts;                      /* report.charts; owned */
    dam_chartset *plan;                        /* the planning chart's data
                                                  (its chart is copied into
                                                  charts); owned, may be
                                                  NULL */
    dam_review_store *store;                   /* strings and cells; owned */
} dam_review;

/* Build the review of what-if w into rv; every figure whose row carries a
 * 90 % interval (dam_whatif_row.interval) shows it. u: the baseline's
 * uncertainty run (dam_uncertainty_run), for the input that moves the
 * answer most; NULL when there is none.
 * version is the program's version for the context line (copied). Free
 * with dam_review_free. */
void dam_review_build(dam_review *rv, const dam_whatif *w,
                      const dam_uncertainty *u, const char *version);
/* Release what rv owns; rv is zeroed (a zeroed review is a no-op). */
void dam_review_free(dam_review *rv);

#endif
