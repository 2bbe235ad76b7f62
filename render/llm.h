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
#include "render/buf.h"
#include "solver/diagnose.h"
#include "solver/result.h"

/* The run page of LLM scenario s solved into r, diagnosed into d. */
void dam_llm_text(dam_buf *b, const dam_scenario *s, const dam_result *r,
                  const dam_diagnosis *d);
/* The "llm" JSON object (new reference). */
json_t *dam_llm_json(const dam_scenario *s, const dam_result *r);
/* "2 replicas x 4 H100-SXM5-80GB (8 GPUs)" into buf. */
void dam_llm_deployment_text(char *buf, size_t n, const dam_scenario *s);
/* The weight format as shown ("bf16", "fp8 (W8A8)", "int4 (W4A16)"). */
const char *dam_llm_weights_text(const dam_scenario *s);

#endif
