/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever_llm.c: the LLM serving levers: weights, kv_cache, tensor_parallel,
 * scheduler and disaggregate, and the checks of the scenario they leave
 * (lever.h says what each op moves; lever.c holds the table).
 */
#include "model/lever_impl.h"

#include "model/llm.h"

/* ---- LLM serving ----------------------------------------------------------- */

static int need_llm(const ctx *c, const dam_scenario *s)
{
    if (s->serving.llm.enabled)
        return DAM_OK;
    return dam_lever_fail(
        c, "applies to LLM serving scenarios (an 'llm' group), and "
           "this serving scenario has none");
}

static int weights(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    dam_llm_weights w = (dam_llm_weights)op->llm_weights;
    char why[160];
    if (dam_llm_weights_check(&s->machine.gpu, w, why, sizeof why) != 0)
        return dam_lever_fail(c, "weights %s", why);
    s->serving.llm.weights = w;
    dam_lever_add_delta(s, op, w == DAM_LLM_W_NATIVE, 0.0);
    return DAM_OK;
}

static int kv_cache(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    dam_precision p = (dam_precision)op->kv_precision;
    if (p != DAM_BF16 && p != DAM_FP16 && p != DAM_FP8 && p != DAM_INT8)
        return dam_lever_fail(
            c, "format must be bf16, fp16, fp8 or int8 (got '%s')",
            dam_precision_name(p));
    s->serving.llm.kv_precision = p;
    dam_lever_add_delta(s, op, p != DAM_FP8 && p != DAM_INT8, 0.0);
    return DAM_OK;
}

static int tensor_parallel(const ctx *c, const dam_lever_op *op,
                           dam_scenario *s)
{
    dam_llm *q = &s->serving.llm;
    if (q->disaggregated)
        return dam_lever_fail(
            c, "the scenario serves from disaggregated pools: set "
               "their degrees with disaggregate = { prefill_tp; "
               "decode_tp; }");
    q->tp = q->prefill_tp = q->decode_tp = op->tp;
    return DAM_OK;
}

static int scheduler(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    dam_llm *q = &s->serving.llm;
    int any = 0;
    if (op->token_budget >= 0) {
        /* a chunk never exceeds the budget: a budget cut takes it along */
        if (q->chunk_tokens > op->token_budget || q->chunk_tokens ==
                                                      q->token_budget)
            q->chunk_tokens = op->token_budget;
        q->token_budget = op->token_budget, any = 1;
    }
    if (op->chunk_tokens >= 0)
        q->chunk_tokens = op->chunk_tokens, any = 1;
    if (op->chunked_prefill >= 0)
        q->chunked_prefill = op->chunked_prefill, any = 1;
    if (op->max_seqs >= 0)
        q->max_seqs = op->max_seqs, any = 1;
    if (op->preemption >= 0)
        q->preemption = (dam_llm_preempt)op->preemption, any = 1;
    if (op->capacity >= 0)
        q->capacity = (dam_llm_capacity)op->capacity, any = 1;
    if (op->prefix_hit_rate >= 0.0)
        q->prefix_hit_rate = op->prefix_hit_rate, any = 1;
    if (op->prefix_tokens >= 0.0)
        q->prefix_tokens = op->prefix_tokens, any = 1;
    return any ? DAM_OK : dam_lever_fail(c, "scheduler op sets nothing");
}

static int disaggregate(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    dam_llm *q = &s->serving.llm;
    if (!q->disaggregated) {
        /* from one pool: both pools start at its degree, one replica each,
         * KV over the node's GPU fabric */
        q->disaggregated = 1;
        q->prefill_replicas = q->decode_replicas = 1;
        q->prefill_tp = q->decode_tp = q->tp;
        q->kv_link_bw = s->machine.gpu.dev.busbw.v > 0.0
                            ? s->machine.gpu.dev.busbw.v
                            : s->machine.pcie_bw;
        q->kv_link_latency = s->machine.net_latency;
    }
    if (op->prefill_replicas >= 0)
        q->prefill_replicas = op->prefill_replicas;
    if (op->decode_replicas >= 0)
        q->decode_replicas = op->decode_replicas;
    if (op->prefill_tp >= 0)
        q->prefill_tp = op->prefill_tp;
    if (op->decode_tp >= 0)
        q->decode_tp = op->decode_tp;
    if (op->kv_link_bw > 0.0)
        q->kv_link_bw = op->kv_link_bw;
    return DAM_OK;
}

/* The apply function of every LLM type: the scenario must serve an LLM,
 * then the type's own op. */
static int op_llm(const ctx *c, const dam_lever_op *op,
                  const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    if (need_llm(c, s) != DAM_OK)
        return DAM_EINPUT;
    switch (op->kind) {
    case DAM_LEVER_WEIGHTS: return weights(c, op, s);
    case DAM_LEVER_KV_CACHE: return kv_cache(c, op, s);
    case DAM_LEVER_TENSOR_PARALLEL: return tensor_parallel(c, op, s);
    case DAM_LEVER_SCHEDULER: return scheduler(c, op, s);
    case DAM_LEVER_DISAGGREGATE: return disaggregate(c, op, s);
    default: return dam_lever_fail(c, "not an LLM serving lever");
    }
}

/* After any lever on an LLM scenario: what the loader checks still holds. */
int dam_lever_llm_check(const ctx *c, dam_scenario *s)
{
    dam_llm *q = &s->serving.llm;
    if (!q->enabled)
        return DAM_OK;
    int gpn = s->machine.gpus_per_node;
    int tps[3] = {q->tp, q->prefill_tp, q->decode_tp};
    for (int i = 0; i < 3; i++) {
        if (tps[i] > gpn)
            return dam_lever_fail(
                c,
                "a replica of %d GPUs does not fit in a node of "
                "%d (tensor parallelism stays inside a node)",
                tps[i], gpn);
        dam_graph g;
        dam_llm_iter it = {.decode_seqs = 1.0, .tp = tps[i]};
        dam_error e;
        if (dam_graph_llm_iteration(&g, &s->workload.model, &it, &e) !=
            DAM_OK)
            return dam_lever_fail(c, "%s", e.msg);
    }
    if (q->chunk_tokens > q->token_budget)
        return dam_lever_fail(c, "chunk_tokens (%d) exceeds token_budget (%d)",
                              q->chunk_tokens, q->token_budget);
    if (q->max_seqs > q->token_budget)
        return dam_lever_fail(c,
                              "max_seqs (%d) exceeds token_budget (%d): every "
                              "running sequence takes a token of the budget",
                              q->max_seqs, q->token_budget);
    if (!q->chunked_prefill && q->input.max > q->token_budget)
        return dam_lever_fail(
            c,
            "without chunked prefill a whole prompt must fit in "
            "one iteration: token_budget (%d) is below input_max "
            "(%g)",
            q->token_budget, q->input.max);
    char why[160];
    if (dam_llm_weights_check(&s->machine.gpu, q->weights, why,
                              sizeof why) != 0)
        return dam_lever_fail(c, "weights %s", why);
    return DAM_OK;
}

static const char *const llm_weight_names[] = {"native", "fp8",   "int8",
                                               "int4",   "nvfp4", "mxfp4",
                                               NULL};
static const char *const llm_kv_names[] = {"fp32", "tf32", "fp16", "bf16",
                                           "fp8",  "int8", NULL};
static const char *const llm_preempt_names[] = {"recompute", "swap", NULL};
static const char *const llm_capacity_names[] = {"max_utilization",
                                                 "guaranteed_no_evict",
                                                 NULL};
static const dam_lever_key weights_keys[] = {
    KCHOICE("format", llm_weights, llm_weight_names,
            "native (16-bit), fp8 or int8 (W8A8), int4 (W4A16), nvfp4 or "
            "mxfp4 (W4A4, Blackwell)"),
    KDELTA,
};
static const dam_lever_key kv_cache_keys[] = {
    KCHOICE("format", kv_precision, llm_kv_names,
            "bf16, fp16, fp8 or int8 key/value entries"),
    KDELTA,
};
static const dam_lever_key tp_keys[] = {
    SINT("degree", tp, "llm.tp", "GPUs per replica (inside one node)"),
};
static const dam_lever_key scheduler_keys[] = {
    SINT("token_budget", token_budget, "llm.token_budget",
         "new tokens per iteration"),
    SINT("chunk_tokens", chunk_tokens, "llm.chunk_tokens",
         "prompt tokens of one sequence per iteration"),
    SBOOL("chunked_prefill", chunked_prefill, "llm.chunked_prefill",
          "prompts in chunks beside decodes (else prefill-only iterations)"),
    SINT("max_seqs", max_seqs, "llm.max_seqs",
         "sequences running at once per replica"),
    SCHOICE("preemption", preemption, llm_preempt_names, "llm.preemption",
            "recompute or swap when KV blocks run out"),
    SCHOICE("capacity_policy", capacity, llm_capacity_names,
            "llm.capacity_policy",
            "admission: max_utilization or guaranteed_no_evict"),
    SNUM("prefix_hit_rate", prefix_hit_rate, "fraction", 1.0,
         "llm.prefix_hit_rate",
         "share of each prompt found in the prefix cache"),
    SNUM("prefix_tokens", prefix_tokens, "tokens", 1.0, "llm.prefix_tokens",
         "a prefix every request shares, kept cached"),
};
static const dam_lever_key disagg_keys[] = {
    SINT("prefill_replicas", prefill_replicas,
         "llm.disaggregate.prefill_replicas", "replicas that prefill"),
    SINT("decode_replicas", decode_replicas,
         "llm.disaggregate.decode_replicas", "replicas that decode"),
    SINT("prefill_tp", prefill_tp, "llm.disaggregate.prefill_tp",
         "GPUs per prefill replica"),
    SINT("decode_tp", decode_tp, "llm.disaggregate.decode_tp",
         "GPUs per decode replica"),
    SNUM("kv_link_gbs", kv_link_bw, "GB/s", 1e9,
         "llm.disaggregate.kv_link_gbs",
         "KV-cache transfer bandwidth per prefill replica"),
};

const dam_lever_type dam_lever_weights_type = {
    DAM_LEVER_WEIGHTS, "weights", "LLM weight format (fp8, int8, int4)",
    KEYS(weights_keys), 0, NULL, M(SERVING),
    "LLM serving; fp8 and int8 need those tensor cores, nvfp4 and "
    "mxfp4 Blackwell's FP4 ones", op_llm,
    B(WEIGHTS) | B(KV_CACHE) | B(QUEUEING), B(COMPUTE), NULL,
    "narrower weights are read faster and leave memory to the KV cache",
    0, "unknown unless accuracy_delta is given (depends on the model "
    "and the quantization method)",
    "weights=fp8"};

const dam_lever_type dam_lever_kv_cache_type = {
    DAM_LEVER_KV_CACHE, "kv_cache", "LLM key/value-cache format (fp8)",
    KEYS(kv_cache_keys), 0, NULL, M(SERVING), "LLM serving",
    op_llm, B(KV_CACHE), B(WEIGHTS) | B(QUEUEING), NULL,
    "narrower cache entries hold more sequences and are read faster", 0,
    "unknown unless accuracy_delta is given", "kv_cache=fp8"};

const dam_lever_type dam_lever_tensor_parallel_type = {
    DAM_LEVER_TENSOR_PARALLEL, "tensor_parallel",
    "LLM serving: GPUs per replica", KEYS(tp_keys), 0, NULL, M(SERVING),
    "LLM serving; the degree must divide the heads and fit in a node",
    op_llm,
    B(WEIGHTS) | B(COMPUTE) | B(KV_CACHE) | B(QUEUEING), B(COMM), NULL,
    "each GPU reads a share of the weights and holds a share of the "
    "cache, at the cost of all-reduces", 0, "none",
    "tensor_parallel=4"};

const dam_lever_type dam_lever_scheduler_type = {
    DAM_LEVER_SCHEDULER, "scheduler",
    "LLM serving: token budget, chunked prefill, running sequences",
    KEYS(scheduler_keys), -1, NULL, M(SERVING), "LLM serving",
    op_llm, B(LATENCY) | B(QUEUEING),
    B(KV_CACHE) | B(COMPUTE) | B(WEIGHTS), NULL,
    "the budget trades time to first token against time per token", 0,
    "none", "token_budget=4096,chunk_tokens=512"};

const dam_lever_type dam_lever_disaggregate_type = {
    DAM_LEVER_DISAGGREGATE, "disaggregate",
    "LLM serving: separate prefill and decode pools",
    KEYS(disagg_keys), -1, NULL, M(SERVING), "LLM serving",
    op_llm, B(LATENCY) | B(QUEUEING), B(COMPUTE) | B(WEIGHTS),
    NULL, "prompts stop interrupting decodes; the cache moves once", 0,
    "none", "prefill_replicas=1,decode_replicas=2"};
