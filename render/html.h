/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * html.h: damsim's output as one self-contained HTML file: the budget
 * review (the same content as the PDF: executive summary, charts, key
 * numbers, tables, assumptions with sources) and a plain page for the
 * other commands (their text output and their charts).
 *
 * Design note: everything is inside the file: charts are inline SVG (ids
 * prefixed per chart so they never collide), the style is one <style>
 * element, and there is no script, image or link to anything else, so the
 * file reads the same from a wiki, a mail attachment or a disk without a
 * network. The markup is HTML5 with every element closed, escaped with
 * dam_html_escape. Written atomically (render/outfile.h).
 *
 * The explorer (report --explore KEY=V1,V2,...) is the one exception to
 * "no script": the sweep of the explored keys, every point solved by
 * damsim, rides in the page as JSON, and about forty lines of plain
 * JavaScript swap the answer, the numbers and the main chart when a
 * selector moves. Without JavaScript the page is the review as without
 * the explorer, plus a table of every point; the selectors stay hidden.
 * A URL fragment "#xp=I,J,..." (each key's value index, -1: as
 * configured) selects a point on load (bookmarks, tests).
 */
#ifndef DAM_RENDER_HTML_H
#define DAM_RENDER_HTML_H

#include "render/buf.h"
#include "render/chart.h"
#include "solver/sweep.h"

struct dam_report;

/* The explorer of a review: the sweep of the explored keys (a grid, every
 * point solved analytically) and the scenario as configured, solved the
 * same way, to compare each point with. All borrowed for the call. */
typedef struct dam_html_explore {
    const dam_sweep *sw;                   /* keys and values (a grid) */
    const dam_sweep_row *rows;             /* sw->npoints rows, in point
                                              order, every one ok */
    const double (*terms)[DAM_TERM_COUNT]; /* each point's exposed terms
                                              per step, s */
    const dam_sweep_row *base;             /* the scenario as configured */
    const double *base_terms;              /* its terms, DAM_TERM_COUNT */
    int serving;                           /* 1: step is a request's time */
} dam_html_explore;

/* Append s to b with &, <, >, " and ' escaped. */
void dam_html_escape(dam_buf *b, const char *s);
/* Append chart c drawn at w x h points as an inline <svg> element whose
 * ids start with idp. DAM_OK, or the chart's error (nothing appended). */
int dam_html_chart_svg(dam_buf *b, const dam_chart *c, double w, double h,
                       const char *idp, dam_error *err);
/* Write the review r to path as one HTML file. DAM_OK, DAM_EINPUT (a
 * chart's bad input) or DAM_ERUNTIME (I/O); on error nothing is written. */
int dam_html_write_report(const char *path, const struct dam_report *r,
                          dam_error *err);
/* The same with the explorer x (NULL: none, as dam_html_write_report). */
int dam_html_write_review(const char *path, const struct dam_report *r,
                          const dam_html_explore *x, dam_error *err);
/* Write a page to path: title, text (the command's terminal output, shown
 * preformatted; may be NULL) and the charts. Same returns. */
int dam_html_write_page(const char *path, const char *title,
                        const char *text, const dam_chart *charts,
                        size_t ncharts, dam_error *err);

#endif
