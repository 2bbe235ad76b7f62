/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm_trace.h: a trace of LLM requests for serving scenarios with an llm
 * group and serving.arrival = "trace", read from a CSV file into an array
 * the caller owns and hands to the simulator (dam_sim_options.requests).
 *
 * Format: one request per line, three comma-separated fields: arrival time
 * in seconds, prompt (input) tokens, tokens to generate (output). Blank
 * lines and lines starting with '#' are skipped; a first line whose first
 * field is not a number is a header. Times must be finite, >= 0 and
 * nondecreasing; token counts whole numbers >= 1 and within the
 * scenario's llm.input_max and llm.output_max (the memory plan is sized
 * for them). Every bad line is reported as "file:line: error: ..." into a
 * dam_diag (up to DAM_DIAG_MAX), and the load fails as a whole.
 */
#ifndef DAM_LLM_TRACE_H
#define DAM_LLM_TRACE_H

#include <stddef.h>

#include "model/error.h"
#include "model/llm.h"
#include "model/scenario.h"

/*
 * Read the requests of path into *out (dam_malloc; free with dam_free) and
 * their count into *n, checked against s's llm limits. Returns DAM_OK, or
 * DAM_EINPUT with the problems in d (*out NULL, *n 0): a missing or
 * unreadable file, a bad or missing field, an extra field, a negative or
 * decreasing time, a token count out of range, or no requests at all.
 */
int dam_llm_trace_load(const char *path, const dam_scenario *s,
                       dam_llm_request **out, size_t *n, dam_diag *d);

#endif
