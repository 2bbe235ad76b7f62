/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * csv.h: machine-readable tables for spreadsheets: `run`, `compare` and
 * `plan` as CSV (the what-if's CSV is in whatif.c and uses the same
 * helpers).
 *
 * Design note: RFC 4180: one header line, comma-separated, a field quoted
 * (quotes doubled) when it holds a comma, a quote or a line break.
 * Headers are identifiers (lower case, no spaces: "p99_latency_s") and
 * carry their unit as a suffix (_s, _usd, _bytes, _per_s), so a column
 * means one thing in one unit. Numbers are written with nine significant
 * digits (no thousands separators: this is for programs); a number that is
 * not finite is an empty field, never "nan". Serving scenarios have their
 * own columns: latency percentiles, the SLO, its attainment and whether it
 * is met, utilisation and cost per 1,000 requests.
 */
#ifndef DAM_RENDER_CSV_H
#define DAM_RENDER_CSV_H

#include "render/out/buf.h"
#include "solver/capacity.h"
#include "solver/diagnose.h"
#include "solver/plan.h"

/* Append s as one field (quoted when it needs to be). */
void dam_csv_field(dam_buf *b, const char *s);
/* Append v as one field ("%.9g"; empty when not finite). */
void dam_csv_num(dam_buf *b, double v);
/* Append the n numbers as fields, each followed by a comma. */
void dam_csv_nums(dam_buf *b, const double *v, size_t n);
/* name as a header identifier: lower case, anything but a letter or a
 * digit becomes '_' ("data wait" -> "data_wait"). */
void dam_csv_ident(char *out, size_t n, const char *name);

/* The header of dam_csv_result_row for mode (training/inference share
 * one, serving has its own), ending in a newline. */
void dam_csv_result_header(dam_buf *b, dam_mode mode);
/* One row: scenario s solved into r, its columns as the header says. */
void dam_csv_result_row(dam_buf *b, const dam_scenario *s,
                        const dam_result *r);
/* `run`: the header and one row. */
void dam_csv_run(dam_buf *b, const dam_scenario *s, const dam_result *r);
/* `compare`: one row per scenario; the serving header when any scenario
 * serves and the training one otherwise (a mix gives two tables, each
 * with its header, separated by an empty line). */
void dam_csv_compare(dam_buf *b, const dam_scenario *s, const dam_result *r,
                     int n);
/* `plan --budget`: one row per GPU option. */
void dam_csv_plan_budget(dam_buf *b, const dam_plan *p);
/* `plan` (serving): one row per GPU option. */
void dam_csv_plan_capacity(dam_buf *b, const dam_capacity_result *p);

#endif
