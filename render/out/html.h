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
 * dam_html_escape. Written atomically (render/out/outfile.h).
 */
#ifndef DAM_RENDER_HTML_H
#define DAM_RENDER_HTML_H

#include "render/out/buf.h"
#include "render/chart/chart.h"

struct dam_report;

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
/* Write a page to path: title, text (the command's terminal output, shown
 * preformatted; may be NULL) and the charts. Same returns. */
int dam_html_write_page(const char *path, const char *title,
                        const char *text, const dam_chart *charts,
                        size_t ncharts, dam_error *err);

#endif
