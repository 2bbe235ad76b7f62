/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm.c: the LLM serving page of `damsim run` (text) and its JSON object
 * (render/page/llm.h). Numbers come from dam_result (solver/sim_llm.c and
 * llm_cost.c); nothing is computed here beyond unit conversion.
 */
#include "render/out/json.h"
#include "render/page/llm.h"

#include "model/llm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/out/fmt.h"
#include "render/page/text.h"
#include "render/page/whatif_page.h"

static void rule(dam_buf *b)
{
    dam_buf_printf(b, "%s\n",
                   "------------------------------------------------------"
                   "------------------------");
}

static const char *dist_name(dam_dist_kind k)
{
    switch (k) {
    case DAM_DIST_DETERMINISTIC: return "fixed";
    case DAM_DIST_EXPONENTIAL: return "exponential";
    case DAM_DIST_LOGNORMAL: return "lognormal";
    case DAM_DIST_UNIFORM: return "uniform";
    case DAM_DIST_NORMAL: return "normal";
    default: return "sampled";
    }
}

static void tokens_text(char *buf, size_t n, const dam_llm_tokens *t)
{
    if (t->dist == DAM_DIST_DETERMINISTIC || t->cv == 0.0)
        snprintf(buf, n, "%.0f", t->mean);
    else
        snprintf(buf, n, "%.0f mean (%s, cv %.2g, %.0f to %.0f)", t->mean,
                 dist_name(t->dist), t->cv, t->min, t->max);
}

const char *dam_llm_weights_text(const dam_scenario *s)
{
    switch (s->serving.llm.weights) {
    case DAM_LLM_W_FP8: return "fp8 (W8A8)";
    case DAM_LLM_W_INT8: return "int8 (W8A8)";
    case DAM_LLM_W_INT4: return "int4 (W4A16)";
    default: return dam_precision_name(s->workload.precision);
    }
}

/* One latency row: mean, p50, p90, p99 (ms) and the p99's CI. */
static void lat_row(dam_buf *b, const char *name, const dam_llm_stat *st)
{
    dam_buf_printf(b, "  %-22s %9.4g %9.4g %9.4g %9.4g  +- %.3g\n", name,
                   st->mean * 1e3, st->p50 * 1e3, st->p90 * 1e3,
                   st->p99 * 1e3, st->p99_ci * 1e3);
}

static const char *verdict(double v, double ci, double slo)
{
    if (v + ci <= slo * (1.0 + 1e-9))
        return "MET";
    return v <= slo ? "MET without headroom" : "MISSED";
}

/* The engine: batching, chunking, KV blocks and admission, prefix
 * cache, speculative decoding and host time. */
static void llm_engine(dam_buf *b, const dam_llm *q)
{
    dam_buf_printf(b, "Engine    %s: continuous batching, %s, token "
                      "budget %d",
                   q->engine,
                   q->chunked_prefill ? "chunked prefill"
                                      : "prefill-only iterations",
                   q->token_budget);
    if (q->chunked_prefill)
        dam_buf_printf(b, " (chunks up to %d)", q->chunk_tokens);
    if (q->capacity == DAM_LLM_CAP_NO_EVICT)
        dam_buf_printf(b, ", at most %d sequences, KV blocks of %d tokens, "
                          "admission reserving each whole request "
                          "(guaranteed no evict: no preemption)",
                       q->max_seqs, q->block_tokens);
    else
        dam_buf_printf(b, ", at most %d sequences, KV blocks of %d tokens, "
                          "preemption by %s",
                       q->max_seqs, q->block_tokens,
                       q->preemption == DAM_LLM_PREEMPT_SWAP ? "swap"
                                                             : "recompute");
    if (q->prefix_hit_rate > 0.0)
        dam_buf_printf(b, "; prefix cache: %.0f %% of each prompt found "
                          "cached",
                       q->prefix_hit_rate * 100.0);
    if (q->prefix_tokens > 0.0)
        dam_buf_printf(b, "; prefix cache: a %.0f-token prefix every "
                          "request shares",
                       q->prefix_tokens);
    if (q->spec)
        dam_buf_printf(b, "; speculative decoding: %s proposes %d tokens, "
                          "each accepted at %.3g (%.3g tokens per step)",
                       q->spec == DAM_LLM_SPEC_MTP ? "an MTP block"
                                                   : q->spec_draft.id,
                       q->spec_tokens, q->spec_acceptance,
                       dam_llm_spec_tokens_per_step(q));
    dam_buf_printf(b, "; host %.3g ms + %.3g us per sequence an iteration, "
                      "%s\n",
                   q->iteration_s * 1e3, q->iteration_seq_s * 1e6,
                   q->overlap ? "overlapped with the GPU"
                              : "in series with the GPU");
}

/* Under load (simulated, when the model fits): latency percentiles with
 * the objectives, the interval under load, goodput, throughput, offline,
 * cost, the average iteration and the replicas' occupancy. */
static void llm_load(dam_buf *b, const dam_scenario *s, const dam_result *r,
                     const dam_uncertainty *u)
{
    const dam_llm *q = &s->serving.llm;
    const dam_llm_result *l = &r->serving.llm;
    int pct = (int)lround(q->slo_quantile * 100.0);
    dam_buf_printf(b, "\nLatency, ms %19s %9s %9s %9s  (p99 95 %% CI)\n",
                   "mean", "p50", "p90", "p99");
    lat_row(b, "time to first token", &l->ttft);
    lat_row(b, "time per output token", &l->tpot);
    lat_row(b, "inter-token latency", &l->itl);
    lat_row(b, "end to end", &l->e2e);
    lat_row(b, "queue (to first run)", &l->queue);
    size_t prose = b->len;
    dam_buf_printf(b, "  SLOs at p%d: TTFT %.4g ms +- %.3g <= %.4g -> "
                      "%s; TPOT %.4g ms +- %.3g <= %.4g -> %s\n",
                   pct, l->ttft.q * 1e3, l->ttft.q_ci * 1e3,
                   l->slo_ttft_s * 1e3,
                   verdict(l->ttft.q, l->ttft.q_ci, l->slo_ttft_s),
                   l->tpot.q * 1e3, l->tpot.q_ci * 1e3,
                   l->slo_tpot_s * 1e3,
                   verdict(l->tpot.q, l->tpot.q_ci, l->slo_tpot_s));
    if (u && u->load.ok)
        dam_buf_printf(b, "  90 %% interval under load: p%d TTFT %.4g to "
                          "%.4g ms, TPOT %.4g to %.4g ms, throughput "
                          "%.4g to %.4g requests/s (simulated in the "
                          "draws of the constants at a lone request's "
                          "5th and 95th percentile, with the CI)\n",
                       pct, u->load.ttft[0] * 1e3, u->load.ttft[1] * 1e3,
                       u->load.tpot[0] * 1e3, u->load.tpot[1] * 1e3,
                       u->load.throughput[0], u->load.throughput[1]);
    dam_buf_printf(b, "  goodput %.4g requests/s: %.2f %% of requests "
                      "meet both\n",
                   l->goodput, l->goodput_fraction * 100.0);
    dam_fmt_plain_tail(b, prose);
    char rp[96];
    dam_fmt_reps(rp, sizeof rp, r->replications, r->sim_steps, "requests");
    dam_buf_printf(b, "  (%s after warm-up)\n", rp);
    dam_buf_printf(b, "\nThroughput  %.4g requests/s, %.4g output "
                      "tokens/s (%.4g per GPU), %.4g prompt tokens/s\n",
                   l->throughput, l->tokens_per_s, l->tokens_per_s_gpu,
                   l->prefill_tokens_per_s);
    if (l->has_offline) {
        /* served against the saturated rate, in output tokens: a short
         * overloaded run finishes the short requests first, so its
         * requests/s overstate it (104 % of offline in requests, 102 % in
         * tokens) */
        double sat = l->offline_saturated_tokens_per_s;
        double of = sat > 0.0 ? 100.0 * l->tokens_per_s / sat : 0.0;
        if (l->offline_saturated_s > 0.0)
            dam_buf_printf(b, "Offline     %.4g requests/s, %.4g output "
                              "tokens/s while saturated (%.4g to %.4g s of "
                              "%.0f requests queued at time 0: from the "
                              "first completion while every replica had "
                              "requests waiting); the scenario's %.0f "
                              "requests all queued at time 0: to "
                              "the last completion (%.4g s, the drain "
                              "included) %.4g requests/s, %.4g output "
                              "tokens/s; served at %.0f %% of the "
                              "saturated rate, %.3g preemptions per "
                              "request\n",
                           l->offline_saturated_throughput, sat,
                           l->offline_saturated_from_s,
                           l->offline_saturated_s,
                           l->offline_saturated_requests,
                           l->offline_requests,
                           l->offline_makespan_s, l->offline_throughput,
                           l->offline_tokens_per_s, of,
                           l->offline_preemptions);
        else
            dam_buf_printf(b, "Offline     %.4g requests/s, %.4g output "
                              "tokens/s: the same %.0f requests all queued "
                              "at time 0, to the last completion (%.4g s; "
                              "served at %.0f %% of it), %.3g preemptions "
                              "per request\n",
                           l->offline_throughput, l->offline_tokens_per_s,
                           l->offline_requests, l->offline_makespan_s, of,
                           l->offline_preemptions);
    }
    /* the cost is in the short block at the top (dam_text_short) */
    dam_buf_printf(b, "Iteration   %.4g ms on average, %.3g decodes + "
                      "%.4g new tokens; GEMMs and elementwise %.0f %%, "
                      "attention %.0f %%, all-reduce %.0f %%, head %.0f "
                      "%%, host %.0f %%, swap %.0f %%\n",
                   l->iteration_mean * 1e3, l->decode_seqs_mean,
                   l->batch_tokens_mean, l->share_linear * 100.0,
                   l->share_attn * 100.0, l->share_comm * 100.0,
                   l->share_head * 100.0, l->share_host * 100.0,
                   l->share_swap * 100.0);
    dam_buf_printf(b, "Replicas    busy %.0f %%; %.3g sequences running "
                      "on average (peak %.0f); %.3g preemptions per "
                      "request",
                   l->gpu_busy * 100.0, l->running_mean, l->running_peak,
                   l->preemptions);
    if (q->disaggregated)
        dam_buf_printf(b, "; KV transfer %.4g ms per request",
                       l->kv_transfer_s * 1e3);
    dam_buf_printf(b, "\n");
}

/* One request alone (analytic), with its interval. */
static void llm_alone(dam_buf *b, const dam_scenario *s, const dam_result *r,
                      const dam_uncertainty *u)
{
    const dam_llm *q = &s->serving.llm;
    const dam_llm_result *l = &r->serving.llm;
    dam_buf_printf(b, "\nOne request alone  prefill of %.0f tokens %.4g ms, "
                      "decode step %.4g ms (weight floor %.4g ms), %.4g s "
                      "end to end\n",
                   q->input.mean, l->t_prefill * 1e3, l->t_decode1 * 1e3,
                   l->weight_floor * 1e3, r->analytic_step > 0.0
                                               ? r->analytic_step
                                               : r->step);
    /* of the lone request's time, not of the loaded mean the step
     * interval was carried to (3.975 s beside "10.3 to 11.76 s") */
    const dam_interval *iv = u && u->carried ? &u->step_analytic
                                             : u ? &u->step : NULL;
    if (u && u->samples > 0)
        dam_buf_printf(b, "  90 %% interval of its end-to-end time: %.4g to "
                          "%.4g s (analytic, %d draws over %d calibrated "
                          "constants and the model's step error)\n",
                       iv->lo, iv->hi, u->samples, u->nconstants);

}

/* Memory per GPU: weights, workspace, the KV pool and what it holds. */
static void llm_memory(dam_buf *b, const dam_scenario *s, const dam_result *r)
{
    const dam_llm *q = &s->serving.llm;
    const dam_llm_result *l = &r->serving.llm;
    char t1[96];
    const dam_llm_memory *m = &l->memory;
    dam_fmt_memory(t1, sizeof t1, m->capacity);
    dam_buf_printf(b, "\nMemory per GPU (replica of %d): %s x %.2g = %.4g "
                      "GiB: weights %.4g GiB, workspace %.3g GiB, KV pool "
                      "%.4g GiB: %s\n",
                   m->tp, t1, q->memory_fraction, m->usable / DAM_GIB,
                   m->weights / DAM_GIB, m->workspace / DAM_GIB,
                   (m->pool > 0.0 ? m->pool : 0.0) / DAM_GIB,
                   r->memory.fits ? "fits" : "DOES NOT FIT");
    dam_buf_printf(b, "  KV %.0f bytes per token per GPU (%.0f for the "
                      "model); %.0f blocks of %d = %.0f tokens per replica: "
                      "%.0f sequences of %.0f + %.0f tokens (max_seqs %d)\n",
                   m->kv_token, m->kv_token_model, m->blocks, q->block_tokens,
                   m->tokens, l->max_concurrency, q->input.mean,
                   q->output.mean, q->max_seqs);
    if (!r->memory.fits)
        dam_buf_printf(b, "  short by %.4g GiB per GPU for the longest "
                          "request (%.0f tokens)\n",
                       r->memory.shortfall / DAM_GIB,
                       q->input.max + q->output.max);
    if (r->has_sim && r->memory.fits)
        dam_buf_printf(b, "  in use: %.0f %% on average, %.0f %% at peak\n",
                       l->kv_use_mean * 100.0, l->kv_use_peak * 100.0);

}

/* Where a request's time goes, in the terms LLM serving fills
 * (sim_llm.c). */
static void llm_terms(dam_buf *b, const dam_result *r)
{
    dam_buf_printf(b, "\nWhere a request's time goes (mean %.4g ms)\n",
                   r->step * 1e3);
    /* the terms as LLM serving fills them (sim_llm.c) */
    const char *names[DAM_TERM_COUNT];
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        names[t] = dam_term_name((dam_term)t);
    names[DAM_TERM_DATA] = "queue";
    names[DAM_TERM_TRANSFER] = "swap and KV transfer";
    names[DAM_TERM_COMPUTE] = "GPU compute";
    names[DAM_TERM_COMM] = "tensor-parallel all-reduce";
    names[DAM_TERM_OVERHEAD] = "host";
    double step = r->step > 0.0 ? r->step : 1.0;
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        int bar = (int)lround(r->terms[t] / step * 30.0);
        char bars[32];
        if (bar > 30)
            bar = 30;
        if (bar < 0)
            bar = 0;
        memset(bars, '#', (size_t)bar);
        bars[bar] = '\0';
        dam_buf_printf(b, "  %-28s %9.4g ms %6.1f %%  %s\n", names[t],
                       r->terms[t] * 1e3, r->terms[t] / step * 100.0,
                       bars);
    }
}

void dam_llm_text(dam_buf *b, const dam_scenario *s, const dam_result *r,
                  const dam_diagnosis *d, const dam_uncertainty *u)
{
    const dam_llm *q = &s->serving.llm;
    const dam_serving *v = &s->serving;
    char dep[160], t1[96], t2[96];

    dam_llm_deployment_text(dep, sizeof dep, s);
    dam_buf_printf(b, "%s\n", s->name);
    dam_buf_printf(b, "  %s on %s; weights %s, KV cache %s\n",
                   s->workload.model.name, dep, dam_llm_weights_text(s),
                   dam_precision_name(q->kv_precision));
    rule(b);
    dam_buf_printf(b, "Question  %s\n", s->question);
    char answer[1024];
    dam_text_answer(answer, sizeof answer, s, r, d);
    size_t prose = b->len;
    dam_buf_printf(b, "Answer    %s\n", answer);
    dam_buf_printf(b, "Binding   %s  [axis: %s]\n", dam_bound_name(r->bound),
                   d->axis);
    dam_text_short(b, s, r, u);
    dam_fmt_plain_tail(b, prose);
    rule(b);

    tokens_text(t1, sizeof t1, &q->input);
    tokens_text(t2, sizeof t2, &q->output);
    if (v->arrival == DAM_ARRIVAL_TRACE)
        dam_buf_printf(b, "Requests  from the trace %s\n", v->trace);
    else
        dam_buf_printf(b, "Requests  %s arrivals at %.4g/s; prompts %s "
                          "tokens, outputs %s\n",
                       v->arrival == DAM_ARRIVAL_POISSON ? "Poisson"
                                                         : "deterministic",
                       v->rate, t1, t2);
    llm_engine(b, q);
    if (r->has_sim && r->memory.fits)
        llm_load(b, s, r, u);
    llm_alone(b, s, r, u);
    llm_memory(b, s, r);
    if (r->has_sim && r->memory.fits)
        llm_terms(b, r);
    dam_text_diagnosis(b, d);
}

/* A number member (dam_json_num: null for non-finite). */
#define NUM(o, key, v) json_object_set_new(o, key, dam_json_num(v))

static json_t *stat_json(const dam_llm_stat *st)
{
    json_t *o = json_object();
    NUM(o, "mean", st->mean);
    NUM(o, "p50", st->p50);
    NUM(o, "p90", st->p90);
    NUM(o, "p99", st->p99);
    NUM(o, "max", st->max);
    NUM(o, "mean_ci95", st->mean_ci);
    NUM(o, "p50_ci95", st->p50_ci);
    NUM(o, "p90_ci95", st->p90_ci);
    NUM(o, "p99_ci95", st->p99_ci);
    NUM(o, "at_slo_quantile", st->q);
    NUM(o, "at_slo_quantile_ci95", st->q_ci);
    NUM(o, "n", st->n);
    return o;
}

static json_t *memory_json(const dam_llm_memory *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "tp", json_integer(m->tp));
    NUM(o, "capacity_bytes", m->capacity);
    NUM(o, "usable_bytes", m->usable);
    NUM(o, "weights_bytes", m->weights);
    NUM(o, "workspace_bytes", m->workspace);
    /* a pool that does not fit is empty; the shortfall says by how much */
    NUM(o, "kv_pool_bytes", m->pool > 0.0 ? m->pool : 0.0);
    NUM(o, "kv_bytes_per_token", m->kv_token);
    NUM(o, "kv_bytes_per_token_model", m->kv_token_model);
    NUM(o, "blocks", m->blocks);
    NUM(o, "tokens", m->tokens);
    json_object_set_new(o, "fits", json_boolean(m->fits));
    return o;
}

/* What a simulation of the service measured: its requests' figures, load,
 * cache use and cost per token (none from an analytic solve). */
static void llm_sim_json(json_t *o, const dam_llm_result *l)
{
    json_object_set_new(o, "slo_met", json_boolean(l->met));
    json_object_set_new(o, "ttft_s", stat_json(&l->ttft));
    json_object_set_new(o, "tpot_s", stat_json(&l->tpot));
    json_object_set_new(o, "itl_s", stat_json(&l->itl));
    json_object_set_new(o, "e2e_s", stat_json(&l->e2e));
    json_object_set_new(o, "queue_s", stat_json(&l->queue));
    NUM(o, "goodput_per_s", l->goodput);
    NUM(o, "goodput_fraction", l->goodput_fraction);
    NUM(o, "requests_per_s", l->throughput);
    NUM(o, "output_tokens_per_s", l->tokens_per_s);
    NUM(o, "output_tokens_per_s_per_gpu", l->tokens_per_s_gpu);
    NUM(o, "prompt_tokens_per_s", l->prefill_tokens_per_s);
    NUM(o, "cost_per_million_output_tokens_usd", l->cost_per_mtok);
    NUM(o, "kv_use_mean", l->kv_use_mean);
    NUM(o, "kv_use_peak", l->kv_use_peak);
    NUM(o, "running_mean", l->running_mean);
    NUM(o, "running_peak", l->running_peak);
    NUM(o, "iteration_mean_s", l->iteration_mean);
    NUM(o, "iteration_new_tokens_mean", l->batch_tokens_mean);
    NUM(o, "iteration_decodes_mean", l->decode_seqs_mean);
    NUM(o, "preemptions_per_request", l->preemptions);
    if (l->has_offline) {
        json_t *off = json_object();
        NUM(off, "requests", l->offline_requests);
        NUM(off, "requests_per_s", l->offline_throughput);
        NUM(off, "output_tokens_per_s", l->offline_tokens_per_s);
        NUM(off, "preemptions_per_request", l->offline_preemptions);
        NUM(off, "makespan_s", l->offline_makespan_s);
        NUM(off, "saturated_requests", l->offline_saturated_requests);
        NUM(off, "saturated_from_s", l->offline_saturated_from_s);
        NUM(off, "saturated_to_s", l->offline_saturated_s);
        NUM(off, "saturated_requests_per_s", l->offline_saturated_throughput);
        NUM(off, "saturated_output_tokens_per_s",
            l->offline_saturated_tokens_per_s);
        json_object_set_new(o, "offline", off);
    }
}

json_t *dam_llm_json(const dam_scenario *s, const dam_result *r)
{
    const dam_llm *q = &s->serving.llm;
    const dam_llm_result *l = &r->serving.llm;
    json_t *o = json_object();
    char dep[160];
    dam_llm_deployment_text(dep, sizeof dep, s);
    json_object_set_new(o, "deployment", json_string(dep));
    NUM(o, "gpus", l->gpus);
    json_object_set_new(o, "tp", json_integer(q->tp));
    json_object_set_new(o, "weights",
                        json_string(dam_llm_weights_name(q->weights)));
    json_object_set_new(o, "kv_cache",
                        json_string(dam_precision_name(q->kv_precision)));
    NUM(o, "slo_ttft_s", l->slo_ttft_s);
    NUM(o, "slo_tpot_s", l->slo_tpot_s);
    NUM(o, "slo_quantile", l->slo_quantile);
    if (r->has_sim) /* an analytic solve serves no request */
        llm_sim_json(o, l);
    NUM(o, "cost_per_hour_usd", l->cost_hour);
    /* sequences the cache holds at the mean length (the memory model) */
    NUM(o, "max_concurrency", l->max_concurrency);
    json_object_set_new(o, "engine", json_string(q->engine));
    NUM(o, "host_per_iteration_s", q->iteration_s);
    NUM(o, "host_per_sequence_s", q->iteration_seq_s);
    json_object_set_new(o, "overlap_scheduler", json_boolean(q->overlap));
    NUM(o, "prefix_hit_rate", q->prefix_hit_rate);
    NUM(o, "prefix_tokens", q->prefix_tokens);
    if (q->spec) {
        json_t *sp = json_object();
        json_object_set_new(sp, "method",
                            json_string(q->spec == DAM_LLM_SPEC_MTP
                                            ? "mtp"
                                            : "draft"));
        if (q->spec == DAM_LLM_SPEC_DRAFT)
            json_object_set_new(sp, "draft_model",
                                json_string(q->spec_draft.id));
        json_object_set_new(sp, "tokens", json_integer(q->spec_tokens));
        NUM(sp, "acceptance", q->spec_acceptance);
        NUM(sp, "tokens_per_step", dam_llm_spec_tokens_per_step(q));
        json_object_set_new(o, "speculative", sp);
    }
    json_object_set_new(o, "capacity_policy",
                        json_string(q->capacity == DAM_LLM_CAP_NO_EVICT
                                        ? "guaranteed_no_evict"
                                        : "max_utilization"));
    if (r->has_sim) {
        NUM(o, "replica_busy", l->gpu_busy);
        NUM(o, "kv_transfer_s", l->kv_transfer_s);
        json_t *sh = json_object();
        NUM(sh, "gemm_elementwise", l->share_linear);
        NUM(sh, "attention", l->share_attn);
        NUM(sh, "allreduce", l->share_comm);
        NUM(sh, "head", l->share_head);
        NUM(sh, "host", l->share_host);
        NUM(sh, "swap", l->share_swap);
        json_object_set_new(o, "iteration_shares", sh);
    }
    NUM(o, "lone_prefill_s", l->t_prefill);
    NUM(o, "lone_decode_step_s", l->t_decode1);
    NUM(o, "weight_floor_s", l->weight_floor);
    json_object_set_new(o, "memory_per_gpu", memory_json(&l->memory));
    if (q->disaggregated)
        json_object_set_new(o, "prefill_memory_per_gpu",
                            memory_json(&l->prefill_memory));
    if (r->has_sim)
        NUM(o, "requests_measured", l->requests);
    return o;
}

/* ---- what-if ------------------------------------------------------------ */

/* The cheapest option (per million output tokens) that meets both SLOs. */
static const dam_whatif_row *cheapest_met(const dam_whatif *w)
{
    const dam_whatif_row *best = NULL;
    double bc = 0.0;
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        if (r->verdict == DAM_VERDICT_FAILED || !r->result.memory.fits ||
            !dam_llm_slo_met(&r->result.serving.llm))
            continue;
        /* an option without a price is not the cheapest at $0: it ranks
         * after every priced one */
        double c = r->result.serving.llm.cost_per_mtok;
        if (!(c > 0.0))
            c = HUGE_VAL;
        if (!best || c < bc ||
            (c == bc &&
             r->result.serving.llm.gpus < best->result.serving.llm.gpus)) {
            best = r;
            bc = c;
        }
    }
    return best;
}

const dam_whatif_row *dam_llm_whatif_cheapest(const dam_whatif *w)
{
    return cheapest_met(w);
}

/* The option meeting both SLOs on the fewest GPUs (cheapest among equals),
 * of those with fewer than max GPUs; NULL when none. */
static const dam_whatif_row *fewest_met(const dam_whatif *w, double max)
{
    const dam_whatif_row *best = NULL;
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        const dam_llm_result *l = &r->result.serving.llm;
        if (r->verdict == DAM_VERDICT_FAILED || !r->result.memory.fits ||
            !dam_llm_slo_met(l) || !(l->gpus < max))
            continue;
        const dam_llm_result *b = best ? &best->result.serving.llm : NULL;
        if (!b || l->gpus < b->gpus ||
            (l->gpus == b->gpus && l->cost_per_mtok < b->cost_per_mtok))
            best = r;
    }
    return best;
}

/* 1 when the question asks for fewer GPUs ("... on fewer GPUs?"). */
static int asks_fewer(const char *q)
{
    for (; *q; q++)
        if (strncasecmp(q, "fewer", 5) == 0)
            return 1;
    return 0;
}

/* What an option meeting both SLOs risks: its slow end draw of the
 * constants (whatif.c load_ends) missing them. */
static const char *slow_risk(const dam_whatif_row *r)
{
    return r->has_load && r->load.met[0] && !r->load.met[1]
               ? " (with the constants at their slow end it misses them: "
                 "measure before buying)"
               : "";
}

void dam_llm_whatif_answer(char *buf, size_t n, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_llm_result *l0 = &base->result.serving.llm;
    size_t len = 0;
    if (!base->result.has_sim) {
        /* analytic: one request alone says nothing of SLOs under load,
         * goodput or a cost per token (it said "No option here meets both
         * SLOs" of options it never simulated) */
        const dam_whatif_row *f = w->nrows >= 2 ? &w->rows[1] : NULL;
        if (!f)
            len = (size_t)snprintf(buf, n, "a lone request takes %.4g s end "
                                           "to end", base->result.step);
        else if (f->verdict == DAM_VERDICT_FAILED)
            len = (size_t)snprintf(buf, n, "%s cannot apply (%s)", f->name,
                                   f->error);
        else
            len = (size_t)snprintf(buf, n, "%s: %s", f->name, f->why);
        if (len < n)
            snprintf(buf + len, n - len,
                     ". The SLOs, goodput and cost per token need the "
                     "simulation (drop --analytic)");
        return;
    }
    int fewer = asks_fewer(base->scenario.question);
    if (w->nrows >= 2 && fewer && w->rows[1].verdict != DAM_VERDICT_FAILED &&
        dam_llm_slo_met(&w->rows[1].result.serving.llm) &&
        !(w->rows[1].result.serving.llm.gpus < l0->gpus)) {
        /* the question is about fewer GPUs: the same count is not an
         * answer to it */
        const dam_whatif_row *f = &w->rows[1];
        len = (size_t)snprintf(
            buf, n, "%s: no, it meets both SLOs but on %.0f GPU%s, not fewer "
                    "than the baseline's %.0f",
            f->name, f->result.serving.llm.gpus,
            DAM_PLURAL(f->result.serving.llm.gpus), l0->gpus);
    } else if (w->nrows >= 2) {
        const dam_whatif_row *f = &w->rows[1];
        if (f->verdict == DAM_VERDICT_FAILED)
            len = (size_t)snprintf(buf, n, "%s cannot apply (%s)", f->name,
                                   f->error);
        else
            len = (size_t)snprintf(
                buf, n, "%s: %s, %s", f->name,
                f->verdict == DAM_VERDICT_WORKS   ? "yes"
                : f->verdict == DAM_VERDICT_HURTS ? "no, it is worse"
                : f->verdict == DAM_VERDICT_SHORT ? "not enough"
                                                  : "no",
                f->why);
    } else {
        len = (size_t)snprintf(buf, n, "the baseline %s both SLOs",
                               l0->met ? "meets" : "misses");
    }
    const dam_whatif_row *c = cheapest_met(w);
    if (len >= n)
        return;
    const dam_whatif_row *fw = NULL;
    if (fewer) {
        fw = fewest_met(w, l0->gpus);
        if (fw)
            len += (size_t)snprintf(buf + len, n - len,
                                    ". Fewest GPUs that meet both SLOs: %s, "
                                    "%.0f GPU%s (baseline %.0f)%s",
                                    fw->name, fw->result.serving.llm.gpus,
                                    DAM_PLURAL(fw->result.serving.llm.gpus),
                                    l0->gpus, slow_risk(fw));
        else
            len += (size_t)snprintf(buf + len, n - len,
                                    ". No option here meets both SLOs on "
                                    "fewer than the baseline's %.0f GPUs",
                                    l0->gpus);
        if (len >= n)
            return;
    }
    if (c && c == fw && c->result.serving.llm.cost_per_mtok > 0.0)
        snprintf(buf + len, n - len,
                 ". It is also the cheapest that meets them: $%.3g per "
                 "million output tokens", c->result.serving.llm.cost_per_mtok);
    else if (c && c->result.serving.llm.cost_per_mtok > 0.0)
        snprintf(buf + len, n - len,
                 ". Cheapest option that meets both SLOs: %s, %.0f GPU%s at "
                 "$%.3g per million output tokens%s",
                 c->name, c->result.serving.llm.gpus,
                 DAM_PLURAL(c->result.serving.llm.gpus),
                 c->result.serving.llm.cost_per_mtok, slow_risk(c));
    else if (c)
        snprintf(buf + len, n - len,
                 ". Option that meets both SLOs: %s, %.0f GPU%s (no price "
                 "per GPU-hour to compare costs)%s",
                 c->name, c->result.serving.llm.gpus,
                 DAM_PLURAL(c->result.serving.llm.gpus), slow_risk(c));
    else
        snprintf(buf + len, n - len, ". No option here meets both SLOs");
}

/* ---- capacity plan ------------------------------------------------------ */

/* A simulated latency v (s) with its 95 % confidence half-width ci, in ms:
 * "373.2 +- 9.1" (the half-width left out when the simulation gave none). */
static void ms_ci(char *buf, size_t n, double v, double ci)
{
    if (ci > 0.0 && isfinite(ci))
        snprintf(buf, n, "%.4g +- %.3g", v * 1e3, ci * 1e3);
    else
        snprintf(buf, n, "%.4g", v * 1e3);
}

void dam_llm_plan_text(dam_buf *b, const dam_scenario *s,
                       const dam_llm_plan *p)
{
    int pct = (int)lround(p->quantile * 100.0);
    char dep[160];
    dam_buf_printf(b, "%s\n", s->name);
    dam_buf_printf(b, "  %s, prompts %.0f and outputs %.0f tokens on "
                      "average; weights %s, KV cache %s\n",
                   s->workload.model.name, s->serving.llm.input.mean,
                   s->serving.llm.output.mean, dam_llm_weights_text(s),
                   dam_precision_name(s->serving.llm.kv_precision));
    dam_buf_printf(b, "Plan for %.4g requests/s with p%d TTFT <= %.4g ms "
                      "and TPOT <= %.4g ms (simulated at %.4g/s, %.0f %% "
                      "headroom; each simulated p%d with its 95 %% "
                      "confidence interval, +-)\n\n",
                   p->rate, pct, p->slo_ttft_s * 1e3, p->slo_tpot_s * 1e3,
                   p->rate * (1.0 + p->headroom), p->headroom * 100.0, pct);
    char tt[40], tp[40];
    if (p->best >= 0) {
        const dam_llm_plan_option *o = &p->options[p->best];
        ms_ci(tt, sizeof tt, o->ttft, o->ttft_ci);
        ms_ci(tp, sizeof tp, o->tpot, o->tpot_ci);
        dam_buf_printf(b, "Answer    %d x %s (%d replica%s of TP%d): p%d "
                          "TTFT %s ms, TPOT %s ms",
                       o->gpus, o->gpu, o->replicas,
                       o->replicas == 1 ? "" : "s", o->tp, pct, tt, tp);
        if (o->price_hour > 0.0)
            dam_buf_printf(b, ", $%.4g per hour, $%.3g per million output "
                              "tokens",
                           o->cost_hour, o->cost_per_mtok);
        dam_buf_printf(b, "; re-simulated with other random numbers: TTFT "
                          "%.4g ms, TPOT %.4g ms, holds\n",
                       p->confirm_ttft * 1e3, p->confirm_tpot * 1e3);
        if (p->has_interval) {
            dam_buf_printf(b, "          90 %% intervals under load: TTFT "
                              "%.4g to %.4g ms, TPOT %.4g to %.4g ms",
                           p->ttft_iv[0] * 1e3, p->ttft_iv[1] * 1e3,
                           p->tpot_iv[0] * 1e3, p->tpot_iv[1] * 1e3);
            if (o->price_hour > 0.0)
                dam_buf_printf(b, ", $%.3g to $%.3g per million output "
                                  "tokens",
                               p->cost_mtok_iv[0], p->cost_mtok_iv[1]);
            dam_buf_printf(b, " (simulated in the draws of the constants "
                              "at a lone request's 5th and 95th "
                              "percentile, with the CI)\n");
        }
    } else {
        dam_buf_printf(b, "Answer    no catalog GPU meets both objectives "
                          "at this rate%s\n",
                       p->noptions > 0 && p->options[0].feasible
                           ? " when re-simulated"
                           : "");
    }
    /* fewest GPUs per kind: the "fewer GPUs" question */
    dam_buf_printf(b, "\nFewest GPUs per kind that meet both:\n");
    for (int i = 0; i < p->noptions; i++) {
        const dam_llm_plan_option *o = &p->options[i];
        if (!o->feasible)
            continue;
        int first = 1;
        for (int j = 0; j < p->noptions && first; j++)
            if (j != i && p->options[j].feasible &&
                strcmp(p->options[j].gpu, o->gpu) == 0 &&
                (p->options[j].gpus < o->gpus ||
                 (p->options[j].gpus == o->gpus && j < i)))
                first = 0;
        if (first)
            dam_buf_printf(b, "  %-19s %3d GPUs (%d x TP%d)\n", o->gpu,
                           o->gpus, o->replicas, o->tp);
    }
    dam_buf_printf(b, "\n%-19s %4s %8s %5s %15s %15s %8s %9s %9s %9s  %s\n",
                   "GPU", "TP", "replicas", "GPUs", "TTFT ms", "TPOT ms",
                   "goodput", "tok/s/GPU", "$/hour", "$/Mtok", "note");
    for (int i = 0; i < p->noptions; i++) {
        const dam_llm_plan_option *o = &p->options[i];
        if (!o->usable) {
            dam_buf_printf(b, "%-19s %4s %8s %5s %15s %15s %8s %9s %9s %9s  "
                              "%s\n",
                           o->gpu, "-", "-", "-", "-", "-", "-", "-", "-",
                           "-", o->why);
            continue;
        }
        if (!o->feasible) {
            dam_buf_printf(b, "%-19s %4d %8s %5s %15s %15s %8s %9s %9s %9s  "
                              "%s\n",
                           o->gpu, o->tp, "-", "-", "-", "-", "-", "-", "-",
                           "-", o->why);
            continue;
        }
        char ph[24], pm[24], gp[16];
        if (o->price_hour > 0.0) {
            snprintf(ph, sizeof ph, "$%.4g", o->cost_hour);
            snprintf(pm, sizeof pm, "$%.3g", o->cost_per_mtok);
        } else {
            snprintf(ph, sizeof ph, "n/a");
            snprintf(pm, sizeof pm, "n/a");
        }
        snprintf(gp, sizeof gp, "%.1f%%", o->goodput_fraction * 100.0);
        ms_ci(tt, sizeof tt, o->ttft, o->ttft_ci);
        ms_ci(tp, sizeof tp, o->tpot, o->tpot_ci);
        dam_buf_printf(b, "%-19s %4d %8d %5d %15s %15s %8s %9.4g %9s %9s  "
                          "%s\n",
                       o->gpu, o->tp, o->replicas, o->gpus, tt, tp, gp,
                       o->tokens_per_s_gpu, ph, pm,
                       i == p->best ? "<- plan" : "");
    }
    dam_llm_deployment_text(dep, sizeof dep, s);
    dam_buf_printf(b, "\nHighest rate the scenario's deployment (%s) "
                      "sustains: ",
                   dep);
    if (!p->max_rate_found)
        dam_buf_printf(b, "none below %.4g/s\n", p->max_rate_upper);
    else if (p->max_rate_upper > 0.0)
        dam_buf_printf(b, "%.4g requests/s (p%d TTFT %.4g ms, TPOT %.4g ms; "
                          "misses at %.4g/s)\n",
                       p->max_rate, pct, p->max_rate_ttft * 1e3,
                       p->max_rate_tpot * 1e3, p->max_rate_upper);
    else
        dam_buf_printf(b, "at least %.4g requests/s (the highest tried)\n",
                       p->max_rate);
    if (p->has_max_rate_interval)
        dam_buf_printf(b, "  90 %% interval: %.4g to %.4g requests/s (the "
                          "same search in the draws of the constants at a "
                          "lone request's 5th and 95th percentile)\n",
                       p->max_rate_iv[0], p->max_rate_iv[1]);
    if (p->offline_found)
        dam_buf_printf(b, "Offline (saturated) throughput of the same "
                          "deployment: %.4g requests/s, %.4g output "
                          "tokens/s (every request queued at time 0, "
                          "while every replica had requests waiting)\n",
                       p->offline_rate, p->offline_tokens_per_s);
    dam_buf_printf(b, "(%d simulations)\n", p->evaluations);
}

json_t *dam_llm_plan_json(const dam_scenario *s, const dam_llm_plan *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "scenario", json_string(s->name));
    NUM(o, "rate_per_s", p->rate);
    NUM(o, "slo_ttft_s", p->slo_ttft_s);
    NUM(o, "slo_tpot_s", p->slo_tpot_s);
    NUM(o, "slo_quantile", p->quantile);
    NUM(o, "headroom", p->headroom);
    json_t *a = json_array();
    for (int i = 0; i < p->noptions; i++) {
        const dam_llm_plan_option *x = &p->options[i];
        json_t *e = json_object();
        json_object_set_new(e, "gpu", json_string(x->gpu));
        json_object_set_new(e, "tp", json_integer(x->tp));
        json_object_set_new(e, "usable", json_boolean(x->usable));
        json_object_set_new(e, "feasible", json_boolean(x->feasible));
        if (x->feasible) {
            json_object_set_new(e, "replicas", json_integer(x->replicas));
            json_object_set_new(e, "gpus", json_integer(x->gpus));
            NUM(e, "ttft_s", x->ttft);
            NUM(e, "ttft_ci95_s", x->ttft_ci);
            NUM(e, "tpot_s", x->tpot);
            NUM(e, "tpot_ci95_s", x->tpot_ci);
            NUM(e, "goodput_fraction", x->goodput_fraction);
            NUM(e, "output_tokens_per_s_per_gpu", x->tokens_per_s_gpu);
            NUM(e, "price_per_gpu_hour_usd", x->price_hour);
            NUM(e, "cost_per_hour_usd", x->cost_hour);
            NUM(e, "cost_per_million_output_tokens_usd", x->cost_per_mtok);
        } else {
            json_object_set_new(e, "why", json_string(x->why));
        }
        json_object_set_new(e, "plan", json_boolean(i == p->best));
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "options", a);
    json_object_set_new(o, "confirmed", json_boolean(p->confirmed));
    if (p->confirmed) { /* the re-simulation's own figures */
        NUM(o, "confirmed_ttft_s", p->confirm_ttft);
        NUM(o, "confirmed_tpot_s", p->confirm_tpot);
        NUM(o, "confirmed_at_rate_per_s", p->confirm_rate);
    }
    if (p->has_interval) {
        /* the plan's 90 % intervals under load (dam_load_interval_of) */
        json_t *iv = json_object();
        const double *v[3] = {p->ttft_iv, p->tpot_iv, p->cost_mtok_iv};
        static const char *const nm[3] = {"ttft_s", "tpot_s",
                                          "cost_per_million_output_tokens_usd"};
        for (int i = 0; i < 3; i++) {
            json_t *x = json_object();
            json_object_set_new(x, "p05", dam_json_num(v[i][0]));
            json_object_set_new(x, "p95", dam_json_num(v[i][1]));
            json_object_set_new(iv, nm[i], x);
        }
        json_object_set_new(o, "best_intervals_90", iv);
    }
    json_object_set_new(o, "max_rate_found", json_boolean(p->max_rate_found));
    NUM(o, "max_rate_per_s", p->max_rate);
    NUM(o, "max_rate_upper_per_s", p->max_rate_upper);
    if (p->has_max_rate_interval) {
        json_t *iv = json_object();
        NUM(iv, "p05", p->max_rate_iv[0]);
        NUM(iv, "p95", p->max_rate_iv[1]);
        json_object_set_new(o, "max_rate_interval_90", iv);
    }
    if (p->offline_found) {
        NUM(o, "offline_requests_per_s", p->offline_rate);
        NUM(o, "offline_output_tokens_per_s", p->offline_tokens_per_s);
    }
    json_object_set_new(o, "evaluations", json_integer(p->evaluations));
    return o;
}
