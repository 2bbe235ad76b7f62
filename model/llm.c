/* SPDX-License-Identifier: GPL-3.0-or-later */
/* llm.c: memory and formats of an LLM serving deployment (see llm.h). */
#include "model/llm.h"

#include <math.h>
#include <stdio.h>

#include "model/graph.h"

dam_precision dam_llm_act_precision(const dam_scenario *s)
{
    return s->workload.precision == DAM_FP16 ? DAM_FP16 : DAM_BF16;
}

dam_precision dam_llm_gemm_precision(const dam_scenario *s)
{
    switch (s->serving.llm.weights) {
    case DAM_LLM_W_FP8:
    case DAM_LLM_W_NVFP4: /* at the fp8 rate x DAM_LLM_FP4_OVER_FP8 */
    case DAM_LLM_W_MXFP4: return DAM_FP8;
    case DAM_LLM_W_INT8: return DAM_INT8;
    default: return dam_llm_act_precision(s);
    }
}

double dam_llm_weight_bytes(const dam_scenario *s)
{
    switch (s->serving.llm.weights) {
    case DAM_LLM_W_FP8:
    case DAM_LLM_W_INT8: return 1.0;
    case DAM_LLM_W_INT4: return (4.0 + 20.0 / 128.0) / 8.0;
    /* NVFP4: 4-bit e2m1 values and an 8-bit e4m3 scale per 16 (NVIDIA
     * blog "Introducing NVFP4 for Efficient and Accurate Low-Precision
     * Inference", 2025; the per-tensor fp32 scale is negligible) */
    case DAM_LLM_W_NVFP4: return (4.0 + 8.0 / 16.0) / 8.0;
    /* MXFP4: 4-bit e2m1 values and an 8-bit e8m0 scale per 32 (OCP
     * Microscaling Formats (MX) Specification v1.0, 2023, section 5) */
    case DAM_LLM_W_MXFP4: return (4.0 + 8.0 / 32.0) / 8.0;
    default: return 2.0;
    }
}

int dam_llm_act_quant(dam_llm_weights w)
{
    return w == DAM_LLM_W_FP8 || w == DAM_LLM_W_INT8 ||
           w == DAM_LLM_W_NVFP4 || w == DAM_LLM_W_MXFP4;
}

double dam_llm_gemm_peak_scale(const dam_scenario *s)
{
    dam_llm_weights w = s->serving.llm.weights;
    return w == DAM_LLM_W_NVFP4 || w == DAM_LLM_W_MXFP4
               ? DAM_LLM_FP4_OVER_FP8
               : 1.0;
}

int dam_llm_weights_check(const dam_gpu *g, dam_llm_weights w, char *why,
                          size_t nwhy)
{
    const char *lack = NULL;
    if (w == DAM_LLM_W_FP8 && !(g->peak[DAM_FP8] > 0.0))
        lack = "fp8 tensor cores";
    else if (w == DAM_LLM_W_INT8 && !(g->peak[DAM_INT8] > 0.0))
        lack = "int8 tensor cores";
    else if ((w == DAM_LLM_W_NVFP4 || w == DAM_LLM_W_MXFP4) &&
             (g->gen != DAM_GEN_BLACKWELL || !(g->peak[DAM_FP8] > 0.0)))
        lack = "FP4 tensor cores (Blackwell)";
    if (!lack)
        return 0;
    snprintf(why, nwhy, "\"%s\" needs %s, which %s lacks",
             dam_llm_weights_name(w), lack, g->id);
    return -1;
}

double dam_llm_kv_bytes(const dam_scenario *s)
{
    return dam_precision_bytes(s->serving.llm.kv_precision);
}

double dam_llm_prefix_hit(const dam_llm *q, double in)
{
    double bt = q->block_tokens > 0 ? q->block_tokens : 16.0;
    double a = floor(q->prefix_hit_rate * in / bt) * bt;
    double b = floor((q->prefix_tokens < in ? q->prefix_tokens : in) / bt) *
               bt;
    double h = a > b ? a : b;
    while (h > 0.0 && h >= in)
        h -= bt;
    return h;
}

double dam_llm_spec_tokens_per_step(const dam_llm *q)
{
    if (!q->spec)
        return 1.0;
    double a = q->spec_acceptance;
    return (1.0 - pow(a, q->spec_tokens + 1.0)) / (1.0 - a);
}

int64_t dam_llm_gpus(const dam_scenario *s)
{
    const dam_llm *q = &s->serving.llm;
    if (q->disaggregated)
        return (int64_t)q->prefill_replicas * q->prefill_tp +
               (int64_t)q->decode_replicas * q->decode_tp;
    return (int64_t)s->serving.replicas * (q->tp > 0 ? q->tp : 1);
}

double dam_llm_blocks_for(const dam_scenario *s, double tokens)
{
    double b = s->serving.llm.block_tokens > 0 ? s->serving.llm.block_tokens
                                                : 16.0;
    return ceil(tokens / b);
}

void dam_llm_memory_plan(const dam_scenario *s, int tp, dam_llm_memory *out)
{
    const dam_llm *q = &s->serving.llm;
    const dam_transformer *t = &s->workload.model.arch.tf;
    double T = tp > 1 ? tp : 1;
    dam_llm_memory m = {0};
    m.tp = (int)T;
    m.capacity = s->machine.gpu.mem_bytes;
    m.usable = q->memory_fraction * m.capacity;
    double params = s->workload.model.params > 0.0
                        ? s->workload.model.params
                        : dam_graph_arch_params(&s->workload.model.arch);
    m.weights = params / T * dam_llm_weight_bytes(s);
    /* a speculative draft's weights, in the same format and split */
    if (q->spec)
        m.weights += q->spec_draft.params / T * dam_llm_weight_bytes(s);
    double act = dam_precision_bytes(dam_llm_act_precision(s));
    double R = q->token_budget > 0 ? q->token_budget : 1;
    double seqs = q->max_seqs < R ? q->max_seqs : R;
    m.workspace = R * (2.0 * t->hidden + 3.0 * t->ffn / T) * act +
                  seqs * (double)t->vocab * 4.0;
    m.pool = m.usable - m.weights - m.workspace;
    m.kv_token_model = dam_graph_kv_bytes_per_token(t, dam_llm_kv_bytes(s));
    /* KV heads split over the ranks, or replicated when fewer than tp */
    double kvh = t->kv_heads >= T ? t->kv_heads / T : 1.0;
    m.kv_token = m.kv_token_model * kvh / (t->kv_heads > 0 ? t->kv_heads : 1);
    if (q->spec) {
        /* the draft keeps its own cache of every token, in the same
         * blocks (vLLM allocates both per block) */
        const dam_transformer *d = &q->spec_draft.arch.tf;
        double dk = dam_graph_kv_bytes_per_token(d, dam_llm_kv_bytes(s));
        double dh = d->kv_heads >= T ? d->kv_heads / T : 1.0;
        m.kv_token_model += dk;
        m.kv_token += dk * dh / (d->kv_heads > 0 ? d->kv_heads : 1);
    }
    double bt = q->block_tokens > 0 ? q->block_tokens : 16;
    m.block_bytes = bt * m.kv_token;
    m.blocks = m.pool > 0.0 ? floor(m.pool / m.block_bytes) : 0.0;
    m.tokens = m.blocks * bt;
    m.need_blocks = dam_llm_blocks_for(s, q->input.max + q->output.max);
    m.swap_blocks = floor(q->swap_bytes / m.block_bytes);
    m.fits = m.blocks >= m.need_blocks;
    m.shortfall = m.fits ? 0.0 : m.need_blocks * m.block_bytes - m.pool;
    *out = m;
}
