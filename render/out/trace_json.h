/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_json.h: a recorded timeline (solver/trace.h) as a Chrome trace
 * (the Trace Event Format read by Perfetto and chrome://tracing).
 *
 * One process ("damsim"), one thread per lane (loader worker, PCIe link,
 * GPU, network) named by "M" thread_name metadata and kept in lane order
 * by thread_sort_index; every span a complete event (ph "X"); queue depth
 * samples as counter events (ph "C"). Timestamps and durations are in
 * microseconds, as the format requires. Written through jansson, so
 * escaping and number formatting are the library's.
 */
#ifndef DAM_TRACE_JSON_H
#define DAM_TRACE_JSON_H

#include "render/out/buf.h"
#include "solver/trace.h"

/* Append the Chrome trace of t to b. */
void dam_trace_json(dam_buf *b, const dam_trace *t);

#endif
