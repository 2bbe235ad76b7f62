/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm.c: the LLM serving page of `damsim run` (text) and its JSON object
 * (render/llm.h). Numbers come from dam_result (solver/sim_llm.c and
 * llm_cost.c); nothing is computed here beyond unit conversion.
 */
#include "render/json.h"
#include "render/llm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/units.h"

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

void dam_llm_deployment_text(char *buf, size_t n, const dam_scenario *s)
{
    const dam_llm *q = &s->serving.llm;
    if (q->disaggregated)
        snprintf(buf, n,
                 "%d prefill x %d + %d decode x %d %s (disaggregated, %lld "
                 "GPUs)",
                 q->prefill_replicas, q->prefill_tp, q->decode_replicas,
                 q->decode_tp, s->machine.gpu.id,
                 (long long)dam_llm_gpus(s));
    else
        snprintf(buf, n, "%d replica%s x %d %s (%lld GPU%s)",
                 s->serving.replicas, s->serving.replicas == 1 ? "" : "s",
                 q->tp, s->machine.gpu.id, (long long)dam_llm_gpus(s),
                 dam_llm_gpus(s) == 1 ? "" : "s");
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

void dam_llm_text(dam_buf *b, const dam_scenario *s, const dam_result *r,
                  const dam_diagnosis *d)
{
    const dam_llm *q = &s->serving.llm;
    const dam_llm_result *l = &r->serving.llm;
    const dam_serving *v = &s->serving;
    char dep[160], t1[96], t2[96];
    int pct = (int)lround(q->slo_quantile * 100.0);

    dam_llm_deployment_text(dep, sizeof dep, s);
    dam_buf_printf(b, "%s\n", s->name);
    dam_buf_printf(b, "  %s on %s; weights %s, KV cache %s\n",
                   s->workload.model.name, dep, dam_llm_weights_text(s),
                   dam_precision_name(q->kv_precision));
    rule(b);
    dam_buf_printf(b, "Question  %s\n", s->question);
    if (r->has_sim)
        dam_buf_printf(b, "Answer    %s at p%d: %s\n",
                       l->met ? "both SLOs are met" : "the SLOs are missed",
                       pct, d->headline);
    else
        dam_buf_printf(b, "Answer    (analytic only) %s\n", d->headline);
    dam_buf_printf(b, "Binding   %s  [axis: %s]\n", dam_bound_name(r->bound),
                   d->axis);
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
    dam_buf_printf(b, "Engine    continuous batching, %s, token budget %d",
                   q->chunked_prefill ? "chunked prefill"
                                      : "prefill-only iterations",
                   q->token_budget);
    if (q->chunked_prefill)
        dam_buf_printf(b, " (chunks up to %d)", q->chunk_tokens);
    dam_buf_printf(b, ", at most %d sequences, KV blocks of %d tokens, "
                      "preemption by %s\n",
                   q->max_seqs, q->block_tokens,
                   q->preemption == DAM_LLM_PREEMPT_SWAP ? "swap"
                                                         : "recompute");

    if (r->has_sim && r->memory.fits) {
        dam_buf_printf(b, "\nLatency, ms %19s %9s %9s %9s  (p99 95 %% CI)\n",
                       "mean", "p50", "p90", "p99");
        lat_row(b, "time to first token", &l->ttft);
        lat_row(b, "time per output token", &l->tpot);
        lat_row(b, "inter-token latency", &l->itl);
        lat_row(b, "end to end", &l->e2e);
        lat_row(b, "queue (to first run)", &l->queue);
        dam_buf_printf(b, "  SLOs at p%d: TTFT %.4g ms +- %.3g <= %.4g -> "
                          "%s; TPOT %.4g ms +- %.3g <= %.4g -> %s\n",
                       pct, l->ttft.q * 1e3, l->ttft.q_ci * 1e3,
                       l->slo_ttft_s * 1e3,
                       verdict(l->ttft.q, l->ttft.q_ci, l->slo_ttft_s),
                       l->tpot.q * 1e3, l->tpot.q_ci * 1e3,
                       l->slo_tpot_s * 1e3,
                       verdict(l->tpot.q, l->tpot.q_ci, l->slo_tpot_s));
        dam_buf_printf(b, "  goodput %.4g requests/s: %.2f %% of requests "
                          "meet both\n",
                       l->goodput, l->goodput_fraction * 100.0);
        dam_buf_printf(b, "  (%d replications x %.0f requests after "
                          "warm-up)\n",
                       r->replications, r->sim_steps);
        dam_buf_printf(b, "\nThroughput  %.4g requests/s, %.4g output "
                          "tokens/s (%.4g per GPU), %.4g prompt tokens/s\n",
                       l->throughput, l->tokens_per_s, l->tokens_per_s_gpu,
                       l->prefill_tokens_per_s);
        if (s->cost.gpu_hour_usd > 0.0)
            dam_buf_printf(b, "Cost        $%.4g per hour for %.0f GPUs, "
                              "$%.4g per million output tokens\n",
                           l->cost_hour, l->gpus, l->cost_per_mtok);
        else
            dam_buf_printf(b, "Cost        n/a (no price per GPU-hour)\n");
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
    dam_buf_printf(b, "\nOne request alone  prefill of %.0f tokens %.4g ms, "
                      "decode step %.4g ms (weight floor %.4g ms), %.4g s "
                      "end to end\n",
                   q->input.mean, l->t_prefill * 1e3, l->t_decode1 * 1e3,
                   l->weight_floor * 1e3, r->analytic_step > 0.0
                                               ? r->analytic_step
                                               : r->step);

    const dam_llm_memory *m = &l->memory;
    dam_fmt_bytes(t1, sizeof t1, m->capacity);
    dam_buf_printf(b, "\nMemory per GPU (replica of %d): %s x %.2g = %.4g "
                      "GB: weights %.4g GB, workspace %.3g GB, KV pool %.4g "
                      "GB: %s\n",
                   m->tp, t1, q->memory_fraction, m->usable / 1e9,
                   m->weights / 1e9, m->workspace / 1e9,
                   (m->pool > 0.0 ? m->pool : 0.0) / 1e9,
                   r->memory.fits ? "fits" : "DOES NOT FIT");
    dam_buf_printf(b, "  KV %.0f bytes per token per GPU (%.0f for the "
                      "model); %.0f blocks of %d = %.0f tokens per replica: "
                      "%.0f sequences of %.0f + %.0f tokens (max_seqs %d)\n",
                   m->kv_token, m->kv_token_model, m->blocks, q->block_tokens,
                   m->tokens, l->max_concurrency, q->input.mean,
                   q->output.mean, q->max_seqs);
    if (!r->memory.fits)
        dam_buf_printf(b, "  short by %.4g GB per GPU for the longest "
                          "request (%.0f tokens)\n",
                       r->memory.shortfall / 1e9,
                       q->input.max + q->output.max);
    if (r->has_sim && r->memory.fits)
        dam_buf_printf(b, "  in use: %.0f %% on average, %.0f %% at peak\n",
                       l->kv_use_mean * 100.0, l->kv_use_peak * 100.0);

    if (r->has_sim && r->memory.fits) {
        dam_buf_printf(b, "\nWhere a request's time goes (mean %.4g ms)\n",
                       r->step * 1e3);
        static const char *const names[DAM_TERM_COUNT] = {
            "queue", "swap and KV transfer", "GPU compute",
            "tensor-parallel all-reduce", "host"};
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

    dam_buf_printf(b, "\nDiagnosis (a hypothesis with its evidence)\n");
    dam_buf_printf(b, "  %s\n", d->headline);
    for (int i = 0; i < d->nevidence; i++)
        dam_buf_printf(b, "  - %s\n", d->evidence[i]);
    for (int i = 0; i < d->nsymptoms; i++)
        dam_buf_printf(b, "  ! %s\n", d->symptoms[i]);
    dam_buf_printf(b, "  Works:\n");
    for (int i = 0; i < d->nworks; i++)
        dam_buf_printf(b, "    + %-15s %s\n",
                       dam_lever_kind_name(d->works[i].kind),
                       d->works[i].why);
    dam_buf_printf(b, "  Wasted:\n");
    for (int i = 0; i < d->nwasted; i++)
        dam_buf_printf(b, "    - %-15s %s\n",
                       dam_lever_kind_name(d->wasted[i].kind),
                       d->wasted[i].why);
    if (d->anti_pattern[0])
        dam_buf_printf(b, "  Trap to avoid: %s\n", d->anti_pattern);
    dam_buf_printf(b, "\nScorecard\n");
    for (int i = 0; i < d->nscore; i++) {
        const dam_score_row *row = &d->score[i];
        dam_buf_printf(b, "  %-10s %-22s %14s  %-11s (%s)\n", row->axis,
                       row->metric, row->shown, dam_score_name(row->verdict),
                       row->rule);
    }
}

static json_t *stat_json(const dam_llm_stat *st)
{
    json_t *o = json_object();
    json_object_set_new(o, "mean", dam_json_num(st->mean));
    json_object_set_new(o, "p50", dam_json_num(st->p50));
    json_object_set_new(o, "p90", dam_json_num(st->p90));
    json_object_set_new(o, "p99", dam_json_num(st->p99));
    json_object_set_new(o, "max", dam_json_num(st->max));
    json_object_set_new(o, "mean_ci95", dam_json_num(st->mean_ci));
    json_object_set_new(o, "p50_ci95", dam_json_num(st->p50_ci));
    json_object_set_new(o, "p90_ci95", dam_json_num(st->p90_ci));
    json_object_set_new(o, "p99_ci95", dam_json_num(st->p99_ci));
    json_object_set_new(o, "at_slo_quantile", dam_json_num(st->q));
    json_object_set_new(o, "at_slo_quantile_ci95", dam_json_num(st->q_ci));
    json_object_set_new(o, "n", dam_json_num(st->n));
    return o;
}

static json_t *memory_json(const dam_llm_memory *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "tp", json_integer(m->tp));
    json_object_set_new(o, "capacity_bytes", dam_json_num(m->capacity));
    json_object_set_new(o, "usable_bytes", dam_json_num(m->usable));
    json_object_set_new(o, "weights_bytes", dam_json_num(m->weights));
    json_object_set_new(o, "workspace_bytes", dam_json_num(m->workspace));
    json_object_set_new(o, "kv_pool_bytes", dam_json_num(m->pool));
    json_object_set_new(o, "kv_bytes_per_token", dam_json_num(m->kv_token));
    json_object_set_new(o, "kv_bytes_per_token_model",
                        dam_json_num(m->kv_token_model));
    json_object_set_new(o, "blocks", dam_json_num(m->blocks));
    json_object_set_new(o, "tokens", dam_json_num(m->tokens));
    json_object_set_new(o, "fits", json_boolean(m->fits));
    return o;
}

json_t *dam_llm_json(const dam_scenario *s, const dam_result *r)
{
    const dam_llm *q = &s->serving.llm;
    const dam_llm_result *l = &r->serving.llm;
    json_t *o = json_object();
    char dep[160];
    dam_llm_deployment_text(dep, sizeof dep, s);
    json_object_set_new(o, "deployment", json_string(dep));
    json_object_set_new(o, "gpus", dam_json_num(l->gpus));
    json_object_set_new(o, "tp", json_integer(q->tp));
    json_object_set_new(o, "weights",
                        json_string(dam_llm_weights_name(q->weights)));
    json_object_set_new(o, "kv_cache",
                        json_string(dam_precision_name(q->kv_precision)));
    json_object_set_new(o, "slo_ttft_s", dam_json_num(l->slo_ttft_s));
    json_object_set_new(o, "slo_tpot_s", dam_json_num(l->slo_tpot_s));
    json_object_set_new(o, "slo_quantile", dam_json_num(l->slo_quantile));
    json_object_set_new(o, "slo_met", json_boolean(l->met));
    json_object_set_new(o, "ttft_s", stat_json(&l->ttft));
    json_object_set_new(o, "tpot_s", stat_json(&l->tpot));
    json_object_set_new(o, "itl_s", stat_json(&l->itl));
    json_object_set_new(o, "e2e_s", stat_json(&l->e2e));
    json_object_set_new(o, "queue_s", stat_json(&l->queue));
    json_object_set_new(o, "goodput_per_s", dam_json_num(l->goodput));
    json_object_set_new(o, "goodput_fraction",
                        dam_json_num(l->goodput_fraction));
    json_object_set_new(o, "requests_per_s", dam_json_num(l->throughput));
    json_object_set_new(o, "output_tokens_per_s",
                        dam_json_num(l->tokens_per_s));
    json_object_set_new(o, "output_tokens_per_s_per_gpu",
                        dam_json_num(l->tokens_per_s_gpu));
    json_object_set_new(o, "prompt_tokens_per_s",
                        dam_json_num(l->prefill_tokens_per_s));
    json_object_set_new(o, "cost_per_hour_usd", dam_json_num(l->cost_hour));
    json_object_set_new(o, "cost_per_million_output_tokens_usd",
                        dam_json_num(l->cost_per_mtok));
    json_object_set_new(o, "kv_use_mean", dam_json_num(l->kv_use_mean));
    json_object_set_new(o, "kv_use_peak", dam_json_num(l->kv_use_peak));
    json_object_set_new(o, "running_mean", dam_json_num(l->running_mean));
    json_object_set_new(o, "running_peak", dam_json_num(l->running_peak));
    json_object_set_new(o, "max_concurrency",
                        dam_json_num(l->max_concurrency));
    json_object_set_new(o, "iteration_mean_s",
                        dam_json_num(l->iteration_mean));
    json_object_set_new(o, "iteration_new_tokens_mean",
                        dam_json_num(l->batch_tokens_mean));
    json_object_set_new(o, "iteration_decodes_mean",
                        dam_json_num(l->decode_seqs_mean));
    json_object_set_new(o, "preemptions_per_request",
                        dam_json_num(l->preemptions));
    json_object_set_new(o, "replica_busy", dam_json_num(l->gpu_busy));
    json_object_set_new(o, "kv_transfer_s", dam_json_num(l->kv_transfer_s));
    json_t *sh = json_object();
    json_object_set_new(sh, "gemm_elementwise", dam_json_num(l->share_linear));
    json_object_set_new(sh, "attention", dam_json_num(l->share_attn));
    json_object_set_new(sh, "allreduce", dam_json_num(l->share_comm));
    json_object_set_new(sh, "head", dam_json_num(l->share_head));
    json_object_set_new(sh, "host", dam_json_num(l->share_host));
    json_object_set_new(sh, "swap", dam_json_num(l->share_swap));
    json_object_set_new(o, "iteration_shares", sh);
    json_object_set_new(o, "lone_prefill_s", dam_json_num(l->t_prefill));
    json_object_set_new(o, "lone_decode_step_s", dam_json_num(l->t_decode1));
    json_object_set_new(o, "weight_floor_s", dam_json_num(l->weight_floor));
    json_object_set_new(o, "memory_per_gpu", memory_json(&l->memory));
    if (q->disaggregated)
        json_object_set_new(o, "prefill_memory_per_gpu",
                            memory_json(&l->prefill_memory));
    json_object_set_new(o, "requests_measured", dam_json_num(l->requests));
    return o;
}
