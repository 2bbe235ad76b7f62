/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader_serving.c: the serving, llm, quality and cost groups from their
 * schema tables (loader.c says how the loader reads a file).
 */
#include "model/loader.h"
#include "model/load.h"

#include <errno.h>
#include <libconfig.h>
#include <stdint.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/infile.h"
#include "model/lever.h"
#include "model/scaling.h"
#include "model/suggest.h"
#include "model/device.h"
#include "model/graph.h"
#include "model/constants.h"
#include "model/engine.h"
#include "model/llm.h"

/* serving: what is required depends on the arrival and on LLM serving;
 * the distributions' defaults follow their spreads. */
static void serving_hook(ld *L, const config_setting_t *v,
                         const dam_key_row *k, void *ctx)
{
    const hook_ctx *c = ctx;
    dam_scenario *s = L->scen;
    dam_serving *sv = &s->serving;
    /* LLM serving has no preprocessing stage of its own (the iteration's
     * host time is llm.iteration_overhead_ms) and judges TTFT and TPOT
     * (llm.slo_*): an end-to-end p99 objective is optional there */
    int llm = config_setting_get_member(c->root, "llm") != NULL;
    int trace = sv->arrival == DAM_ARRIVAL_TRACE;
    int d = 0;
    if (strcmp(k->name, "rate_per_s") == 0) {
        dam_load_key(L, v, "serving", k, !trace, &sv->rate);
    } else if (strcmp(k->name, "trace") == 0) {
        dam_load_key(L, v, "serving", k, trace, sv->trace);
    } else if (strcmp(k->name, "preprocess_ms") == 0) {
        dam_load_key(L, v, "serving", k, !llm, &sv->preprocess_s);
    } else if (strcmp(k->name, "slo_p99_ms") == 0) {
        dam_load_key(L, v, "serving", k, !llm, &sv->slo_p99_s);
    } else if (strcmp(k->name, "preprocess_dist") == 0) {
        if (dam_load_key(L, v, "serving", k, -1, &d))
            sv->preprocess_dist = (dam_dist_kind)d;
        else if (sv->preprocess_cv > 0.0)
            sv->preprocess_dist = DAM_DIST_LOGNORMAL;
    } else if (strcmp(k->name, "compute_dist") == 0) {
        if (dam_load_key(L, v, "serving", k, -1, &d))
            sv->compute_dist = (dam_dist_kind)d;
        else if (s->workload.compute_cv > 0.0)
            sv->compute_dist = DAM_DIST_LOGNORMAL;
    }
}

void dam_ld_load_serving(ld *L, const config_setting_t *root, dam_scenario *s)
{
    int required = s->mode == DAM_MODE_SERVING;
    config_setting_t *v = group(L, root, "serving", "", required);
    if (!v)
        return;
    if (!required) {
        dam_diag_error(L->d, AT(v),
                       "'serving' is only allowed with scenario.mode = "
                       "\"serving\"");
        return;
    }
    s->serving.request_bytes = s->workload.model.input_bytes;
    hook_ctx c = {root, NULL, 0, 0};
    dam_load_group(L, v, TABLE("serving"), serving_hook, &c);
}

/* Tokens per request: PREFIX_tokens (mean), _dist, _cv, _min, _max. */
static void load_llm_tokens(ld *L, const config_setting_t *g,
                            const char *prefix, double max_default,
                            dam_llm_tokens *t)
{
    char k[32];
    snprintf(k, sizeof k, "%s_tokens", prefix);
    dam_load_named(L, g, TABLE("llm"), k, 1, &t->mean);
    snprintf(k, sizeof k, "%s_cv", prefix);
    dam_load_named(L, g, TABLE("llm"), k, 0, &t->cv);
    snprintf(k, sizeof k, "%s_dist", prefix);
    int d = 0;
    if (dam_load_named(L, g, TABLE("llm"), k, 0, &d))
        t->dist = (dam_dist_kind)d;
    else
        t->dist = t->cv > 0.0 ? DAM_DIST_LOGNORMAL : DAM_DIST_DETERMINISTIC;
    t->min = 1.0;
    t->max = max_default > t->mean ? max_default : t->mean;
    snprintf(k, sizeof k, "%s_min", prefix);
    dam_load_named(L, g, TABLE("llm"), k, 0, &t->min);
    snprintf(k, sizeof k, "%s_max", prefix);
    dam_load_named(L, g, TABLE("llm"), k, 0, &t->max);
    if (t->min > t->mean || t->max < t->mean)
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm.%s_tokens' (%g) must lie within %s_min (%g) "
                       "and %s_max (%g)",
                       prefix, t->mean, prefix, t->min, prefix, t->max);
}

/* A row of the llm group (dam_load_named on schema.c's llm table). */
static int llm_row(ld *L, const config_setting_t *g, const char *name,
                   int required, void *out)
{
    return dam_load_named(L, g, TABLE("llm"), name, required, out);
}

/* llm.tp and the formats: weights and KV cache follow the compute
 * precision unless the file asks for narrower ones; paged KV blocks. */
static void llm_formats(ld *L, const config_setting_t *g, dam_scenario *s)
{
    dam_llm *q = &s->serving.llm;
    q->tp = 1;
    llm_row(L, g, "tp", 0, &q->tp);
    if (q->tp > s->machine.gpus_per_node)
        dam_diag_error(L->d, L->file, line_of(member(L, g, "tp", "llm", 0)),
                       "'llm.tp' (%d) must fit in one node "
                       "(machine.gpus_per_node = %d)",
                       q->tp, s->machine.gpus_per_node);
    dam_precision p = s->workload.precision;
    q->weights = p == DAM_FP8    ? DAM_LLM_W_FP8
                 : p == DAM_INT8 ? DAM_LLM_W_INT8
                                 : DAM_LLM_W_NATIVE;
    int w = 0;
    if (llm_row(L, g, "weights", 0, &w))
        q->weights = w >= DAM_LLM_W_COUNT ? DAM_LLM_W_NATIVE
                                          : (dam_llm_weights)w;
    q->kv_precision = p == DAM_FP16 ? DAM_FP16 : DAM_BF16;
    int kv = 0;
    if (llm_row(L, g, "kv_cache", 0, &kv))
        q->kv_precision = kv == 0   ? DAM_BF16
                          : kv == 1 ? DAM_FP16
                          : kv == 2 ? DAM_FP8
                                    : DAM_INT8;
    q->block_tokens = 16;
    llm_row(L, g, "block_tokens", 0, &q->block_tokens);
    q->memory_fraction = 0.9;
    llm_row(L, g, "memory_fraction", 0, &q->memory_fraction);
}

/* llm.engine: the engine profile (data/engines.cfg), the default of every
 * scheduler key; its token budget and sequences for the GPU into budget
 * and seqs (vLLM's 2048 and 256 when it is unknown). */
static void llm_engine(ld *L, const config_setting_t *g, dam_scenario *s,
                       dam_llm_engine *eng, int *budget, int *seqs)
{
    dam_llm *q = &s->serving.llm;
    snprintf(q->engine, sizeof q->engine, "vllm");
    llm_row(L, g, "engine", 0, q->engine);
    char why[200];
    if (dam_llm_engine_get(q->engine, eng, why, sizeof why) != 0) {
        config_setting_t *eg = member(L, g, "engine", "llm", 0);
        dam_diag_error(L->d, L->file, line_of(eg ? eg : g), "'llm.engine': %s",
                       why);
    }
    *budget = 2048;
    *seqs = 256;
    if (eng->id[0])
        dam_llm_engine_limits(eng, &s->machine.gpu, budget, seqs);
}

/* The scheduler: the token budget (without chunked prefill at least the
 * longest prompt), chunks and running sequences within it, preemption,
 * admission, routing and the host's time per iteration; the engine eng
 * gives the defaults (budget and seqs for this GPU). */
static void llm_scheduler(ld *L, const config_setting_t *g, dam_scenario *s,
                          const dam_llm_engine *eng, int budget, int seqs)
{
    dam_llm *q = &s->serving.llm;
    q->chunked_prefill = eng->id[0] ? eng->mixed_prefill : 1;
    llm_row(L, g, "chunked_prefill", 0, &q->chunked_prefill);
    q->token_budget = budget;
    int have_budget = llm_row(L, g, "token_budget", 0, &q->token_budget);
    if (!q->chunked_prefill && !have_budget &&
        q->input.max > q->token_budget)
        q->token_budget = (int)q->input.max;
    q->chunk_tokens = q->token_budget;
    config_setting_t *ck = member(L, g, "chunk_tokens", "llm", 0);
    if (llm_row(L, g, "chunk_tokens", 0, &q->chunk_tokens) &&
        q->chunk_tokens > q->token_budget)
        dam_diag_error(L->d, L->file, line_of(ck),
                       "'llm.chunk_tokens' (%d) must not exceed "
                       "llm.token_budget (%d)",
                       q->chunk_tokens, q->token_budget);
    if (!q->chunked_prefill && q->input.max > q->token_budget)
        dam_diag_error(L->d, L->file, line_of(g),
                       "without chunked prefill a whole prompt must fit in "
                       "one iteration: llm.token_budget (%d) is below "
                       "llm.input_max (%g)",
                       q->token_budget, q->input.max);
    q->max_seqs = seqs;
    config_setting_t *ms = member(L, g, "max_seqs", "llm", 0);
    if (llm_row(L, g, "max_seqs", 0, &q->max_seqs) &&
        q->max_seqs > q->token_budget)
        dam_diag_error(L->d, L->file, line_of(ms),
                       "'llm.max_seqs' (%d) must not exceed llm.token_budget "
                       "(%d): every running sequence takes a token of the "
                       "budget",
                       q->max_seqs, q->token_budget);
    if (!ms && q->max_seqs > q->token_budget)
        q->max_seqs = q->token_budget;
    q->preemption = eng->preemption;
    int pr = 0;
    if (llm_row(L, g, "preemption", 0, &pr))
        q->preemption = (dam_llm_preempt)pr;
    q->capacity = eng->capacity;
    int cp = 0;
    if (llm_row(L, g, "capacity_policy", 0, &cp))
        q->capacity = (dam_llm_capacity)cp;
    q->swap_bytes = 4.0 * GiB;
    llm_row(L, g, "swap_gb", 0, &q->swap_bytes);
    int rt = 0;
    if (llm_row(L, g, "router", 0, &rt))
        q->route = (dam_llm_route)rt;
}

/* The host's time per iteration: llm.iteration_overhead_ms, else the
 * workload's framework overhead when it gives one, else the engine's; per
 * sequence; beside the GPU or after it; CUDA graphs unless the workload
 * says. */
static void llm_host(ld *L, const config_setting_t *g,
                     const config_setting_t *wg, dam_scenario *s,
                     const dam_llm_engine *eng)
{
    dam_llm *q = &s->serving.llm;
    int wl_host = wg && member(L, wg, "framework_overhead_ms", "workload", 0);
    q->iteration_s = wl_host ? s->workload.framework_overhead_s : eng->host_s;
    llm_row(L, g, "iteration_overhead_ms", 0, &q->iteration_s);
    q->iteration_seq_s = eng->host_seq_s;
    llm_row(L, g, "iteration_seq_us", 0, &q->iteration_seq_s);
    q->overlap = eng->overlap;
    llm_row(L, g, "overlap_scheduler", 0, &q->overlap);
}

/* Prefix caching: a share of each prompt, [0, 1), and a prefix every
 * request shares. */
static void llm_prefix(ld *L, const config_setting_t *g, dam_llm *q)
{
    llm_row(L, g, "prefix_hit_rate", 0, &q->prefix_hit_rate);
    llm_row(L, g, "prefix_tokens", 0, &q->prefix_tokens);
}

/* llm.speculative, method "mtp": one block of the target drafts (its
 * embedding and head are the target's, shared: not counted again). */
static void spec_mtp(dam_llm *q, const dam_model_spec *t)
{
    q->spec_draft = *t;
    q->spec_draft.arch.tf.layers = 1;
    q->spec_draft.params =
        t->arch.tf.layers > 0
            ? (dam_graph_arch_params(&t->arch) -
               2.0 * (double)t->arch.tf.vocab * t->arch.tf.hidden) /
                  t->arch.tf.layers
            : 0.0;
}

/*
 * llm.speculative: method "draft" (a catalog model proposes) or "mtp"
 * (multi-token prediction: one extra block of the target proposes, as
 * DeepSeek-V3's MTP module, arXiv 2412.19437 section 2.2), tokens k
 * (1 to 16), acceptance rate per token (0, 1). The draft shares the
 * target's degree, weight format and KV cache format.
 */
static void llm_spec(ld *L, const config_setting_t *g,
                     const dam_catalog *cat, dam_scenario *s)
{
    dam_llm *q = &s->serving.llm;
    config_setting_t *sp = group(L, g, "speculative", "llm", 0);
    if (!sp)
        return;
    const dam_key_group *t = TABLE("llm.speculative");
    dam_load_check(L, sp, t);
    int m = 0;
    dam_load_named(L, sp, t, "method", 1, &m);
    q->spec = m == 0 ? DAM_LLM_SPEC_DRAFT : DAM_LLM_SPEC_MTP;
    q->spec_tokens = 1;
    dam_load_named(L, sp, t, "tokens", 1, &q->spec_tokens);
    config_setting_t *ac = member(L, sp, "acceptance", t->path, 0);
    if (dam_load_named(L, sp, t, "acceptance", 1, &q->spec_acceptance) &&
        !(q->spec_acceptance < 1.0))
        dam_diag_error(L->d, L->file, line_of(ac),
                       "'llm.speculative.acceptance' must be in (0, 1), "
                       "got %g",
                       q->spec_acceptance);
    const dam_model_spec *tm = &s->workload.model;
    char id[DAM_ID_MAX] = "";
    dam_load_named(L, sp, t, "draft_model", q->spec == DAM_LLM_SPEC_DRAFT,
                   id);
    if (q->spec == DAM_LLM_SPEC_MTP) {
        if (id[0])
            dam_diag_error(L->d, L->file, line_of(sp),
                           "'llm.speculative.draft_model' is for method "
                           "\"draft\"; \"mtp\" drafts with one block of "
                           "the target");
        spec_mtp(q, tm);
        return;
    }
    const dam_model_spec *e = id[0] ? dam_catalog_model(cat, id) : NULL;
    if (id[0] && !e) {
        dam_diag_error(L->d, L->file, line_of(sp),
                       "'llm.speculative.draft_model': unknown model \"%s\" "
                       "(see 'damsim catalog models')",
                       id);
        return;
    }
    if (e && (e->arch.kind != DAM_ARCH_TRANSFORMER ||
              e->arch.tf.vocab != tm->arch.tf.vocab))
        dam_diag_error(L->d, L->file, line_of(sp),
                       "'llm.speculative.draft_model' \"%s\" must be a "
                       "transformer with the target's vocabulary (%d "
                       "tokens)",
                       id, tm->arch.tf.vocab);
    if (e)
        q->spec_draft = *e;
}

/* The objectives: TTFT and TPOT at a percentile in [50, 100). */
static void llm_slo(ld *L, const config_setting_t *g, dam_llm *q)
{
    llm_row(L, g, "slo_ttft_ms", 1, &q->slo_ttft_s);
    llm_row(L, g, "slo_tpot_ms", 1, &q->slo_tpot_s);
    double pct = 99.0;
    config_setting_t *ps = member(L, g, "slo_percentile", "llm", 0);
    if (llm_row(L, g, "slo_percentile", 0, &pct) &&
        !(pct >= 50.0 && pct < 100.0))
        dam_diag_error(L->d, L->file, line_of(ps),
                       "'llm.slo_percentile' must be in [50, 100), got %g",
                       pct);
    q->slo_quantile = pct / 100.0;
}

/* llm.disaggregate: prefill and decode pools, each replica inside a node,
 * the KV link between them (default: the node's GPU fabric). */
static void llm_disaggregate(ld *L, const config_setting_t *dg,
                             dam_scenario *s)
{
    const dam_key_group *t = TABLE("llm.disaggregate");
    dam_llm *q = &s->serving.llm;
    dam_load_check(L, dg, t);
    q->disaggregated = 1;
    q->prefill_replicas = q->decode_replicas = 1;
    dam_load_named(L, dg, t, "prefill_replicas", 1, &q->prefill_replicas);
    dam_load_named(L, dg, t, "decode_replicas", 1, &q->decode_replicas);
    dam_load_named(L, dg, t, "prefill_tp", 0, &q->prefill_tp);
    dam_load_named(L, dg, t, "decode_tp", 0, &q->decode_tp);
    q->kv_link_bw = s->machine.gpu.dev.busbw.v > 0.0
                        ? s->machine.gpu.dev.busbw.v
                        : s->machine.pcie_bw;
    dam_load_named(L, dg, t, "kv_link_gbs", 0, &q->kv_link_bw);
    q->kv_link_latency = s->machine.net_latency;
    dam_load_named(L, dg, t, "kv_link_latency_us", 0, &q->kv_link_latency);
    int mx = q->prefill_tp > q->decode_tp ? q->prefill_tp : q->decode_tp;
    if (mx > s->machine.gpus_per_node)
        dam_diag_error(L->d, L->file, line_of(dg),
                       "'llm.disaggregate': a replica of %d GPUs must "
                       "fit in one node (machine.gpus_per_node = %d)",
                       mx, s->machine.gpus_per_node);
}

/* What the deployment needs of the model and the GPU: the model (and a
 * speculative draft) shards over every replica's tensor-parallel degree;
 * the weight format needs its tensor cores. */
static void llm_checks(ld *L, const config_setting_t *g,
                       const dam_scenario *s)
{
    const dam_llm *q = &s->serving.llm;
    const dam_model_spec *m = &s->workload.model;
    int tps[3] = {q->tp, q->disaggregated ? q->prefill_tp : q->tp,
                  q->disaggregated ? q->decode_tp : q->tp};
    for (int i = 0; i < 3 && m->arch.kind == DAM_ARCH_TRANSFORMER; i++) {
        dam_graph gr;
        dam_llm_iter it = {.decode_seqs = 1.0, .tp = tps[i]};
        dam_error e;
        if (dam_graph_llm_iteration(&gr, m, &it, &e) != DAM_OK) {
            dam_diag_error(L->d, L->file, line_of(g), "llm: %s", e.msg);
            break;
        }
        /* and the speculative draft, at the same degrees */
        if (q->spec && q->spec_draft.arch.kind == DAM_ARCH_TRANSFORMER &&
            dam_graph_llm_iteration(&gr, &q->spec_draft, &it, &e) !=
                DAM_OK) {
            dam_diag_error(L->d, L->file, line_of(g),
                           "llm.speculative: the draft: %s", e.msg);
            break;
        }
    }
    char why[200];
    if (dam_llm_weights_check(&s->machine.gpu, q->weights, why,
                              sizeof why) != 0)
        dam_diag_error(L->d, L->file, line_of(g), "'llm.weights' = %s", why);
}

/*
 * The `llm` group: LLM serving on a serving scenario (scenario.h dam_llm).
 * Defaults are vLLM's where it has one (block 16, memory 0.9, 256
 * sequences, swap 4 GiB, chunked prefill) and stated in scenarios/README.
 */
void dam_ld_load_llm(ld *L, const config_setting_t *root,
                     const dam_catalog *cat, dam_scenario *s)
{
    config_setting_t *g = group(L, root, "llm", "", 0);
    if (!g)
        return;
    if (s->mode != DAM_MODE_SERVING) {
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm' is only allowed with scenario.mode = "
                       "\"serving\"");
        return;
    }
    dam_load_check(L, g, TABLE("llm"));
    config_setting_t *wg = member(L, root, "workload", "", 0);
    config_setting_t *we = wg ? member(L, wg, "efficiency", "workload", 0)
                              : NULL;
    if (we)
        dam_diag_error(L->d, L->file, line_of(we),
                       "'workload.efficiency' is not used by LLM serving: "
                       "every kernel is costed on the device model (set "
                       "the GPU's device constants to change it)");
    dam_llm *q = &s->serving.llm;
    const dam_model_spec *m = &s->workload.model;
    memset(q, 0, sizeof *q);
    q->enabled = 1;
    dam_llm_engine eng;
    int eng_budget, eng_seqs;
    llm_engine(L, g, s, &eng, &eng_budget, &eng_seqs);
    if (m->arch.kind != DAM_ARCH_TRANSFORMER)
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm' needs a transformer model (an 'arch' group "
                       "of kind \"transformer\"); model \"%s\" has none",
                       m->id);
    double ctx = m->seq_len > 0.0 ? m->seq_len : 4096.0;
    load_llm_tokens(L, g, "input", ctx, &q->input);
    load_llm_tokens(L, g, "output", ctx, &q->output);
    llm_formats(L, g, s);
    llm_scheduler(L, g, s, &eng, eng_budget, eng_seqs);
    llm_host(L, g, wg, s, &eng);
    llm_prefix(L, g, q);
    llm_spec(L, g, cat, s);
    if (eng.id[0] && !(wg && member(L, wg, "cuda_graphs", "workload", 0)))
        s->workload.cuda_graphs = eng.cuda_graphs;
    /* the engine's GEMM rate against the microbenchmark's, unless the
     * workload's framework group gives one */
    config_setting_t *wf = wg ? member(L, wg, "framework", "workload", 0)
                              : NULL;
    if (eng.id[0] &&
        !(wf && config_setting_is_group(wf) &&
          member(L, wf, "gemm_frac", "workload.framework", 0)))
        s->workload.fw.gemm.v = eng.gemm_frac;
    llm_slo(L, g, q);
    q->prefill_tp = q->decode_tp = q->tp;
    config_setting_t *dg = group(L, g, "disaggregate", "llm", 0);
    if (dg)
        llm_disaggregate(L, dg, s);
    /* rows without code of their own (none yet: a plain row added to
     * schema.c's llm tables is read here, after the defaults above) */
    dam_load_rows(L, g, TABLE("llm"), NULL, NULL);
    if (dg)
        dam_load_rows(L, dg, TABLE("llm.disaggregate"), NULL, NULL);
    llm_checks(L, g, s);
}


void dam_ld_load_quality_cost(ld *L, const config_setting_t *root,
                              dam_scenario *s)
{
    dam_quality *q = &s->quality;
    const dam_model_spec *m = &s->workload.model;
    snprintf(q->metric, sizeof q->metric, "%s", m->metric);
    q->value = m->quality;
    config_setting_t *g = group(L, root, "quality", "", 0);
    if (g) {
        dam_load_group(L, g, TABLE("quality"), NULL, NULL);
        if (q->from_scaling_law) {
            /* the value is the fit's loss unless the file gives one */
            q->higher_is_better = 0;
            if (!member(L, g, "value", "quality", 0))
                q->value = 0.0;
        }
    }
    dam_cost *c = &s->cost;
    c->gpu_hour_usd = s->machine.gpu.price_hour;
    config_setting_t *k = group(L, root, "cost", "", 0);
    if (k) {
        dam_load_group(L, k, TABLE("cost"), NULL, NULL);
    }
    if (!(c->gpu_hour_usd > 0.0)) /* 0: not given, the catalog's */
        c->gpu_hour_usd = s->machine.gpu.price_hour;
    snprintf(c->base_gpu, sizeof c->base_gpu, "%s", s->machine.gpu.id);
    c->base_gpu_hour_usd = c->gpu_hour_usd;
}
