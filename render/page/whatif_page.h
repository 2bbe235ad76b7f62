/* SPDX-License-Identifier: GPL-3.0-or-later */
/* whatif.h: the what-if comparison as text, CSV and JSON (from results). */
#ifndef DAM_RENDER_WHATIF_H
#define DAM_RENDER_WHATIF_H

#include "render/out/buf.h"
#include "render/out/fmt.h"
#include "solver/whatif.h"

/* The two time columns of the options table: each option's step and its
 * run time (serving: its p99 latency), each column in one unit. */
typedef struct dam_page_whatif_times {
    double step[DAM_WHATIF_MAX], run[DAM_WHATIF_MAX];
    dam_fmt_time_unit step_unit, run_unit;
} dam_page_whatif_times;
void dam_page_whatif_times_of(const dam_whatif *w, dam_page_whatif_times *t);

/* One sentence answering the scenario's question from the options. */
void dam_page_whatif_answer(char *buf, size_t n, const dam_whatif *w);
/* The table, then one line per option saying why. */
void dam_page_whatif_text(dam_buf *b, const dam_whatif *w);
/* One CSV row per option, every number. */
void dam_page_whatif_csv(dam_buf *b, const dam_whatif *w);
/* Everything as JSON (new reference). */
struct json_t *dam_page_whatif_json(const dam_whatif *w);

#endif
