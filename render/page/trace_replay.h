/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_replay.h: the text and JSON of a profiler trace's replay (damsim
 * run --trace, check --trace) and of its what-if table (whatif --trace).
 */
#ifndef DAM_TRACE_REPLAY_H
#define DAM_TRACE_REPLAY_H

#include "render/out/buf.h"
#include "solver/replay.h"
#include "solver/trace_whatif.h"

struct json_t;

/* What the trace holds (check --trace): events by kind, links, steps. */
void dam_text_trace_check(dam_buf *b, const dam_ktrace *t,
                          const dam_rgraph *g);
/* The replay: measured and replayed step, error, breakdown, binding term. */
void dam_text_trace_run(dam_buf *b, const dam_ktrace *t, const dam_rgraph *g,
                        const dam_tbreak *br);
struct json_t *dam_json_trace_run(const dam_ktrace *t, const dam_rgraph *g,
                                  const dam_tbreak *br);
/* The what-if table. */
void dam_text_trace_whatif(dam_buf *b, const dam_ktrace *t,
                           const dam_twhatif *w);
struct json_t *dam_json_trace_whatif(const dam_ktrace *t,
                                     const dam_twhatif *w);

#endif
