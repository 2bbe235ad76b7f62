/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm.h: LLM serving pages: the text of `damsim run` for a scenario with
 * an llm group (objectives, latencies with intervals, throughput, cost,
 * iteration and memory, diagnosis) and the "llm" object of its JSON.
 */
#ifndef DAM_RENDER_LLM_H
#define DAM_RENDER_LLM_H

#include <jansson.h>

#include "model/scenario.h"
#include "render/out/buf.h"
#include "solver/diagnose.h"
#include "solver/result.h"
#include "solver/uncertainty.h"
#include "solver/llm_plan.h"
#include "solver/whatif.h"

/* The run page of LLM scenario s solved into r, diagnosed into d, with
 * the 90 % interval of a lone request from u (NULL: none). */
void dam_llm_text(dam_buf *b, const dam_scenario *s, const dam_result *r,
                  const dam_diagnosis *d, const dam_uncertainty *u);
/* The "llm" JSON object (new reference). */
json_t *dam_llm_json(const dam_scenario *s, const dam_result *r);
/* The weight format as shown ("bf16", "fp8 (W8A8)", "int4 (W4A16)"). */
const char *dam_llm_weights_text(const dam_scenario *s);

/* What-if for LLM serving: the answer line (the first lever's verdict and
 * the cheapest option meeting both objectives) and the table (GPUs,
 * objectives, goodput, throughput per GPU, cost per million tokens,
 * cache, concurrency, verdicts with their reasons; whatif.c). */
void dam_llm_whatif_answer(char *buf, size_t n, const dam_whatif *w);
/* The option the answer names last: the cheapest meeting both objectives
 * (unpriced ones after every priced one; fewer GPUs among equals), or
 * NULL. Page 1's figure and the review's recommendation are of it. */
const dam_whatif_row *dam_llm_whatif_cheapest(const dam_whatif *w);
void dam_llm_whatif_text(dam_buf *b, const dam_whatif *w);

/* The capacity plan (solver/llm_plan.h) as text and JSON. */
void dam_llm_plan_text(dam_buf *b, const dam_scenario *s,
                       const dam_llm_plan *p);
json_t *dam_llm_plan_json(const dam_scenario *s, const dam_llm_plan *p);

#endif
