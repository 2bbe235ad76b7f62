/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * diagnose_llm.c: the diagnosis of a simulated LLM serving result (see
 * diagnose.h). What binds comes from the simulation (sim_llm.c sets
 * r->bound): KV-cache capacity when requests wait for blocks or are
 * preempted, queueing when the queue makes most of the time to first
 * token on busy replicas, tensor-parallel communication or host time when
 * they are large shares of an iteration, else the decode step's weight
 * reads (an iteration within twice the weight floor) or its arithmetic.
 * The evidence is the two objectives with their split (queue and prefill
 * for TTFT; iteration time and the decode batch for TPOT), the iteration's
 * time by part and the cache's use; each LLM lever is judged by whether it
 * moves what binds (the lever table's "relieves") and by the objective
 * that misses.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/lever.h"
#include "solver/diagnose.h"


static double ms(double s)
{
    return s * 1e3;
}

/* Does lever kind k relieve the binding bound of r (table-driven)? */
static int relieves(const dam_scenario *s, const dam_result *r,
                    dam_lever_kind k)
{
    const dam_lever_type *t = dam_lever_type_get(k);
    return t && dam_lever_can_move(t, s, r->bound) != 0;
}

/* What the steps of the LLM diagnosis share: the quantile, whether any
 * request was served, and whether each objective holds. */
typedef struct view {
    int pct;         /* the SLO quantile, in percent */
    int served;      /* memory fits and requests were measured */
    int ttft_ok;     /* TTFT's quantile (with its interval) within its SLO */
    int tpot_ok;     /* the same for TPOT */
    double prefill;  /* mean TTFT less the queue, s */
} view;

/* The headline: memory that serves nothing, or what binds, with the
 * quantiles against their objectives. */
static void headline(const dam_scenario *s, const dam_result *r,
                     const view *x, dam_diagnosis *d)
{
    const dam_llm_result *l = &r->serving.llm;
    const dam_llm *q = &s->serving.llm;
    if (!r->memory.fits) {
        snprintf(d->headline, sizeof d->headline,
                 "memory binds: weights (%.4g GiB) and workspace (%.4g GiB) "
                 "per GPU leave room for %.0f tokens of KV cache per "
                 "replica, below the %.0f of the longest request; nothing "
                 "is served",
                 l->memory.weights / DAM_GIB, l->memory.workspace / DAM_GIB,
                 l->memory.tokens, q->input.max + q->output.max);
    } else {
        const char *what;
        switch (r->bound) {
        case DAM_BOUND_KV_CACHE:
            what = "KV-cache capacity binds: requests wait for blocks or are "
                   "preempted";
            break;
        case DAM_BOUND_QUEUEING:
            what = "queueing binds: the replicas are busy and requests wait "
                   "to start";
            break;
        case DAM_BOUND_COMM:
            what = "tensor-parallel all-reduces bind";
            break;
        case DAM_BOUND_LATENCY:
            what = "host time per iteration binds";
            break;
        case DAM_BOUND_WEIGHTS:
            what = "weight reads bind the decode step";
            break;
        default:
            what = "GPU arithmetic binds the iterations";
        }
        snprintf(d->headline, sizeof d->headline,
                 "%s; p%d TTFT %.4g ms (SLO %.4g), p%d TPOT %.4g ms (SLO "
                 "%.4g), goodput %.1f %% of requests",
                 what, x->pct, ms(l->ttft.q), ms(l->slo_ttft_s), x->pct,
                 ms(l->tpot.q), ms(l->slo_tpot_s),
                 l->goodput_fraction * 100.0);
    }
}

/* Evidence: TTFT and TPOT with their parts, the iteration, the KV cache
 * and the load. */
static void evidence(const dam_scenario *s, const dam_result *r,
                     const view *x, dam_diagnosis *d)
{
    const dam_llm_result *l = &r->serving.llm;
    const dam_llm *q = &s->serving.llm;
    if (!x->served)
        dam_diagnose_add(d->evidence, &d->nevidence,
                         "no request was served, so no latency is measured: "
                         "the KV pool per GPU is %.4g GiB short of the "
                         "longest request",
                         l->memory.shortfall / DAM_GIB);
    else
    dam_diagnose_add(d->evidence, &d->nevidence,
                     "TTFT: mean %.4g ms = queue %.4g + prefill and chunking "
                     "%.4g; p50 %.4g, p99 %.4g ms; a lone prompt prefills in "
                     "%.4g ms",
                     ms(l->ttft.mean), ms(l->queue.mean), ms(x->prefill),
                     ms(l->ttft.p50), ms(l->ttft.p99), ms(l->t_prefill));
    if (x->served)
    dam_diagnose_add(d->evidence, &d->nevidence,
                     "TPOT: mean %.4g ms, p99 %.4g ms; iterations of %.4g ms "
                     "with %.3g decodes and %.4g new tokens; a lone decode "
                     "step %.4g ms (weight floor %.4g ms)",
                     ms(l->tpot.mean), ms(l->tpot.p99),
                     ms(l->iteration_mean), l->decode_seqs_mean,
                     l->batch_tokens_mean, ms(l->t_decode1),
                     ms(l->weight_floor));
    if (x->served)
    dam_diagnose_add(d->evidence, &d->nevidence,
                     "iteration time: GEMMs and elementwise %.0f %%, "
                     "attention %.0f %%, all-reduce %.0f %%, head %.0f %%, "
                     "host %.0f %%, swap %.0f %%",
                     l->share_linear * 100.0, l->share_attn * 100.0,
                     l->share_comm * 100.0, l->share_head * 100.0,
                     l->share_host * 100.0, l->share_swap * 100.0);
    dam_diagnose_add(d->evidence, &d->nevidence,
                     "KV cache: %.0f blocks of %d tokens per replica (%.4g "
                     "GiB per GPU), %.0f %% in use on average, %.0f %% at "
                     "peak; %.3g sequences running (peak %.0f, limit %d); "
                     "%.3g preemptions per request",
                     l->memory.blocks, q->block_tokens,
                     (l->memory.pool > 0.0 ? l->memory.pool : 0.0) / DAM_GIB,
                     l->kv_use_mean * 100.0, l->kv_use_peak * 100.0,
                     l->running_mean, l->running_peak, q->max_seqs,
                     l->preemptions);
    dam_diagnose_add(d->evidence, &d->nevidence,
                     "load: %.4g requests/s, %.4g output tokens/s (%.4g per "
                     "GPU), replicas busy %.0f %%",
                     l->throughput, l->tokens_per_s, l->tokens_per_s_gpu,
                     l->gpu_busy * 100.0);
}

/* Symptoms: interference, queueing, the max_seqs cap, preemptions. */
static void symptoms(const dam_scenario *s, const dam_result *r,
                     const view *x, dam_diagnosis *d)
{
    const dam_llm_result *l = &r->serving.llm;
    const dam_llm *q = &s->serving.llm;
    if (!x->tpot_ok && l->batch_tokens_mean > 2.0 * l->decode_seqs_mean &&
        !q->disaggregated)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
                         "prompt chunks share iterations with decodes (%.4g "
                         "new tokens for %.3g decodes): they stretch every "
                         "token; a smaller token budget or separate prefill "
                         "replicas shorten TPOT",
                         l->batch_tokens_mean, l->decode_seqs_mean);
    if (!x->ttft_ok && l->queue.mean > 0.5 * l->ttft.mean)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
                         "the queue is %.0f %% of TTFT: the replicas cannot "
                         "keep up with the arrivals",
                         l->queue.mean / (l->ttft.mean > 0 ? l->ttft.mean : 1)
                             * 100.0);
    if (l->running_peak >= q->max_seqs && l->kv_use_peak < 0.9)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
                         "max_seqs (%d) caps the batch while the cache "
                         "peaks at %.0f %%: more sequences fit",
                         q->max_seqs, l->kv_use_peak * 100.0);
    if (l->preemptions > 0.01)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
                         "%.3g preemptions per request: each %s",
                         l->preemptions,
                         q->preemption == DAM_LLM_PREEMPT_SWAP
                             ? "copies its cache to the host and back"
                             : "recomputes its prompt and output so far");
}

/* The scorecard: goodput, KV cache at peak, decode at its weight floor,
 * memory. */
static void scorecard(const dam_scenario *s, const dam_result *r,
                      const view *x, dam_diagnosis *d)
{
    (void)x;
    (void)s;
    const dam_llm_result *l = &r->serving.llm;
    char a[32];
    snprintf(a, sizeof a, "%.1f %%", l->goodput_fraction * 100.0);
    dam_diagnose_score(d, "Machine", "goodput", l->goodput_fraction, a,
                       "investigate < 90 %, strong >= 99 %",
                       l->goodput_fraction < 0.90    ? DAM_SCORE_INVESTIGATE
                       : l->goodput_fraction >= 0.99 ? DAM_SCORE_STRONG
                                                     : DAM_SCORE_OK);
    snprintf(a, sizeof a, "%.0f %%", l->kv_use_peak * 100.0);
    dam_diagnose_score(d, "Data", "KV cache at peak", l->kv_use_peak, a,
                       "investigate > 95 %, strong < 80 %",
                       l->kv_use_peak > 0.95  ? DAM_SCORE_INVESTIGATE
                       : l->kv_use_peak < 0.8 ? DAM_SCORE_STRONG
                                              : DAM_SCORE_OK);
    double floor_ratio = l->t_decode1 > 0.0 ? l->weight_floor / l->t_decode1
                                            : 0.0;
    snprintf(a, sizeof a, "%.0f %%", floor_ratio * 100.0);
    dam_diagnose_score(d, "Algorithm", "decode at weight floor", floor_ratio,
                       a, "investigate < 50 %, strong >= 80 %",
                       floor_ratio < 0.5    ? DAM_SCORE_INVESTIGATE
                       : floor_ratio >= 0.8 ? DAM_SCORE_STRONG
                                            : DAM_SCORE_OK);
    dam_diagnose_score_memory(d, r);
}

/* Levers judged by what binds, and the anti-pattern. */
static void levers(const dam_scenario *s, const dam_result *r,
                   const view *x, dam_diagnosis *d)
{
    const dam_llm_result *l = &r->serving.llm;
    const dam_llm *q = &s->serving.llm;
    int kv = relieves(s, r, DAM_LEVER_KV_CACHE);
    dam_diagnose_advise(d, DAM_LEVER_KV_CACHE, kv && q->kv_precision != DAM_FP8,
           q->kv_precision == DAM_FP8
               ? "the cache is already fp8"
           : kv ? "an fp8 cache holds twice the tokens (%.0f now) and halves "
                  "its reads"
                : "the cache (%.0f tokens, %.0f %% at peak) does not bind",
           l->memory.tokens, l->kv_use_peak * 100.0);
    int w = relieves(s, r, DAM_LEVER_WEIGHTS);
    dam_diagnose_advise(d, DAM_LEVER_WEIGHTS, w && q->weights != DAM_LLM_W_INT4,
           w ? "narrower weights cut the %.4g ms weight floor of every step "
               "and free memory for the cache"
             : "weight reads (%.4g ms a step) are not what binds",
           ms(l->weight_floor));
    int tp = relieves(s, r, DAM_LEVER_TENSOR_PARALLEL);
    dam_diagnose_advise(d, DAM_LEVER_TENSOR_PARALLEL, tp,
           tp ? "more GPUs per replica split the weight reads and the cache "
                "(all-reduce is %.0f %% of an iteration now)"
              : "splitting the replica adds all-reduces (%.0f %% of an "
                "iteration now) to what does not bind",
           l->share_comm * 100.0);
    int more = !x->ttft_ok && l->queue.mean > 0.3 * l->ttft.mean;
    dam_diagnose_advise(d, DAM_LEVER_SERVING, more || r->bound == DAM_BOUND_QUEUEING,
           more ? "more replicas cut the %.4g ms queue in TTFT"
                : "the queue (%.4g ms of TTFT) is not what misses",
           ms(l->queue.mean));
    int sched = x->served && (!x->tpot_ok || (!x->ttft_ok && !more));
    if (sched)
        dam_diagnose_advise(d, DAM_LEVER_SCHEDULER, 1,
               "the token budget trades TTFT (%.4g ms at p%d) against TPOT "
               "(%.4g ms)",
               ms(l->ttft.q), x->pct, ms(l->tpot.q));
    else if (!x->served)
        dam_diagnose_advise(d, DAM_LEVER_SCHEDULER, 0,
               "nothing is served: memory binds, not the token budget%s", "");
    else
        dam_diagnose_advise(d, DAM_LEVER_SCHEDULER, 0,
               "both objectives hold at p%d (TTFT %.4g ms, TPOT %.4g ms): "
               "the budget is not what binds",
               x->pct, ms(l->ttft.q), ms(l->tpot.q));
    int dis = !x->tpot_ok && !q->disaggregated &&
              l->batch_tokens_mean > 2.0 * l->decode_seqs_mean;
    dam_diagnose_advise(d, DAM_LEVER_DISAGGREGATE, dis,
           dis ? "decodes share iterations with prompt chunks; separate "
                 "pools keep TPOT near the decode step (%.4g ms)"
               : "prefill interference is not what misses (TPOT p99 %.4g "
                 "ms)",
           ms(dis ? l->t_decode1 : l->tpot.p99));
    int gpu = r->bound == DAM_BOUND_WEIGHTS || r->bound == DAM_BOUND_COMPUTE
              || r->bound == DAM_BOUND_KV_CACHE;
    dam_diagnose_advise(d, DAM_LEVER_GPU, gpu,
           gpu ? "a GPU with more HBM bandwidth and memory moves the %s "
                 "bound"
               : "%s binds, which a faster GPU only partly moves",
           dam_bound_name(r->bound));
    if (!gpu)
        snprintf(d->anti_pattern, sizeof d->anti_pattern,
                 "buying faster GPUs when %s binds",
                 dam_bound_name(r->bound));
}

void dam_diagnose_llm(const dam_scenario *s, const dam_result *r,
                      dam_diagnosis *d)
{
    memset(d, 0, sizeof *d);
    const dam_llm_result *l = &r->serving.llm;
    d->bound = r->bound;
    snprintf(d->axis, sizeof d->axis, "%s", dam_bound_axis(r->bound));
    view x;
    x.pct = (int)lround(s->serving.llm.slo_quantile * 100.0);
    /* nothing served meets nothing */
    x.served = r->memory.fits && l->requests > 0.0 && l->ttft.n > 0.0;
    x.ttft_ok = x.served &&
                l->ttft.q + l->ttft.q_ci <= l->slo_ttft_s * (1.0 + 1e-9);
    x.tpot_ok = x.served &&
                l->tpot.q + l->tpot.q_ci <= l->slo_tpot_s * (1.0 + 1e-9);
    x.prefill = l->ttft.mean - l->queue.mean;
    headline(s, r, &x, d);
    evidence(s, r, &x, d);
    symptoms(s, r, &x, d);
    scorecard(s, r, &x, d);
    levers(s, r, &x, d);
}
