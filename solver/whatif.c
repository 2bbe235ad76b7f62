/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * whatif.c: options solved and compared (see whatif.h).
 *
 * Verdict rule. Let T be the time to train (run time), T0 the baseline's.
 * A lever "works" when T <= 0.98 T0 (at least 2 % faster) or, at no more
 * than 2 % extra cost, it improves quality (a Chinchilla rebalance buys a
 * lower loss for the same compute). It "hurts" when T >= 1.02 T0 and buys
 * no quality. Otherwise it is "wasted": whatever it changed did not bind,
 * and the anti-pattern for spending on that kind of lever while the
 * baseline binds where it does is named. The 2 % threshold is below the
 * calibration error of the catalog (10 %) on purpose: it separates "moves
 * nothing" from "moves something", not "moves enough to buy".
 */
#include "solver/whatif.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/lever.h"
#include "solver/analytic.h"
#include "solver/rng.h"
#include "solver/uncertainty.h"


static const char *const verdict_names[] = {"baseline", "works", "wasted",
                                            "hurts", "failed", "short",
                                            "no fit"};

const char *dam_verdict_name(dam_verdict v)
{
    return (unsigned)v <= DAM_VERDICT_NOFIT ? verdict_names[v] : "?";
}

static int solve(const dam_scenario *s, const dam_whatif_options *opt,
                 dam_result *r, dam_error *err)
{
    if (opt->solve)
        return opt->solve(s, opt->solve_ctx, r, err);
    dam_analytic_solve(s, r);
    return DAM_OK;
}

/* The binding term of a result, as a term index. */
static int binding_term(const dam_result *r)
{
    switch (r->bound) {
    case DAM_BOUND_DATA:
    case DAM_BOUND_PREPROCESS:
    case DAM_BOUND_QUEUEING: return DAM_TERM_DATA;
    case DAM_BOUND_TRANSFER: return DAM_TERM_TRANSFER;
    case DAM_BOUND_COMM: return DAM_TERM_COMM;
    case DAM_BOUND_LATENCY: return DAM_TERM_OVERHEAD;
    default: return DAM_TERM_COMPUTE;
    }
}

/* Time the option takes: the run for batch modes, a request for serving. */
static double horizon(const dam_result *r)
{
    return r->mode == DAM_MODE_SERVING ? r->step : r->run_time;
}

/* Cost of an option: the whole run, or 1,000 requests when serving. */
static void cost_of(const dam_scenario *s, const dam_result *r,
                    dam_quality_cost *c)
{
    memset(c, 0, sizeof *c);
    /* an LLM service solved analytically is a lone request: what it
     * serves, and so what 1,000 requests cost, is unknown (it read 0.222
     * GPU-hours at $0) */
    if (s->serving.llm.enabled && !r->has_sim)
        return;
    if (s->mode == DAM_MODE_SERVING) {
        double tp = r->serving.throughput > 0.0 ? r->serving.throughput
                                                : s->serving.rate;
        /* LLM serving: the deployment's GPUs (replicas x tp, or pools) */
        double gpus = s->serving.llm.enabled ? (double)dam_llm_gpus(s)
                                             : s->serving.replicas;
        if (tp > 0.0)
            c->gpu_hours = 1000.0 / tp * gpus / 3600.0;
        c->usd = r->serving.cost_per_1k;
        c->kwh = r->serving.kwh_per_1k;
    } else {
        c->gpu_hours = r->gpu_hours;
        c->usd = r->cost_usd;
        c->kwh = r->energy_kwh;
    }
    c->gpu_usd = c->usd;
}

/* Attribution sentence: "-22 % step time, none of it from the data term". */
static void attribution(const dam_whatif_row *base, dam_whatif_row *row,
                        char *buf, size_t n)
{
    double total = 0.0;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        total += row->saved[t];
    int bt = binding_term(&base->result);
    double from_bind = row->saved[bt];
    int best = 0;
    for (int t = 1; t < DAM_TERM_COUNT; t++)
        if (fabs(row->saved[t]) > fabs(row->saved[best]))
            best = t;
    double pct = row->step_change * 100.0;
    /* a service's "step" is a request's time in it: simulated, its mean;
     * analytic, one request's alone (no queueing, no batching) */
    const char *what = base->scenario.mode != DAM_MODE_SERVING
                           ? "step time"
                       : base->result.has_sim ? "mean latency"
                                              : "a lone request's latency";
    if (fabs(total) < 1e-12 || fabs(pct) < 0.5) {
        snprintf(buf, n, "%s unchanged (within 0.5 %%)", what);
        return;
    }
    if (total > 0.0 && from_bind / total < 0.05)
        snprintf(buf, n, "%+.0f %% %s, none of it from the %s term "
                         "(it binds)",
                 pct, what, dam_term_name((dam_term)bt));
    else
        snprintf(buf, n, "%+.0f %% %s, %.0f %% of the change from "
                         "the %s term",
                 pct, what,
                 total != 0.0 ? row->saved[best] / total * 100.0 : 0.0,
                 dam_term_name((dam_term)best));
}

static void judge_row(const dam_whatif_row *base, dam_whatif_row *row,
                      dam_quality_measure measure);

/* Analytic serving past its capacity (result.h): a lone request's latency
 * says nothing of a queue that grows without bound, so an option is
 * judged on whether it serves the rate offered. Returns 1 when it judged
 * the row (the baseline or the option is overloaded). */
static int overload_judged(const dam_whatif_row *base, dam_whatif_row *row)
{
    const dam_serving_result *v0 = &base->result.serving,
                             *v = &row->result.serving;
    if (row->scenario.mode != DAM_MODE_SERVING || row->result.has_sim ||
        v->llm.enabled || !(v0->overloaded || v->overloaded))
        return 0;
    double rate = row->scenario.serving.rate;
    row->anti_pattern[0] = '\0';
    if (!v->overloaded) {
        row->verdict = DAM_VERDICT_WORKS;
        snprintf(row->why, sizeof row->why,
                 "serves the %.4g requests/s offered: capacity %.4g (was "
                 "%.4g, overloaded)", rate, v->capacity, v0->capacity);
    } else if (!v0->overloaded) {
        row->verdict = DAM_VERDICT_HURTS;
        snprintf(row->why, sizeof row->why,
                 "overloads it: capacity %.4g requests/s (was %.4g) against "
                 "%.4g offered, set by %s", v->capacity, v0->capacity, rate,
                 dam_serving_capacity_part(v->capacity_by));
    } else {
        int more = v->capacity > 1.02 * v0->capacity;
        int less = v->capacity < v0->capacity / 1.02;
        row->verdict = more   ? DAM_VERDICT_SHORT
                       : less ? DAM_VERDICT_HURTS
                              : DAM_VERDICT_WASTED;
        snprintf(row->why, sizeof row->why,
                 "still overloaded: capacity %.4g requests/s (was %.4g) "
                 "against %.4g offered, set by %s", v->capacity,
                 v0->capacity, rate,
                 dam_serving_capacity_part(v->capacity_by));
    }
    return 1;
}

/* Judge a row, then add the caveat of a carried-over efficiency. */
static void judge(const dam_whatif_row *base, dam_whatif_row *row,
                  dam_quality_measure measure)
{
    judge_row(base, row, measure);
    const dam_memory *m = &row->result.memory;
    if (!m->fits && m->capacity > 0.0) {
        /* an option that does not fit is no option, however fast */
        row->verdict = DAM_VERDICT_NOFIT;
        row->anti_pattern[0] = '\0';
        int n = snprintf(row->why, sizeof row->why,
                         "does not fit: needs %.3g GiB per GPU, %s holds "
                         "%.3g GiB (misses by %.3g GiB)",
                         m->total / DAM_GIB, row->scenario.machine.gpu.id,
                         m->capacity / DAM_GIB, m->shortfall / DAM_GIB);
        if (base->result.memory.fits && n > 0 && (size_t)n < sizeof row->why)
            snprintf(row->why + n, sizeof row->why - (size_t)n,
                     "; if it fitted: %.2fx", row->speedup);
        return;
    }
    if (overload_judged(base, row))
        return;
    const dam_memory *m0 = &base->result.memory;
    if (!m0->fits && m0->capacity > 0.0) {
        /* the baseline cannot run: no speed-up over it means anything;
         * an option that fits makes the job possible */
        row->verdict = DAM_VERDICT_WORKS;
        row->anti_pattern[0] = '\0';
        snprintf(row->why, sizeof row->why,
                 "fits where the baseline does not: needs %.3g GiB per GPU of "
                 "%.3g GiB%s",
                 m->total / DAM_GIB, m->capacity / DAM_GIB,
                 m->tight ? " (tight: under 10 % to spare)" : "");
        return;
    }
    const dam_workload *w = &row->scenario.workload;
    /* LLM serving costs every kernel on the device model: no eta */
    if (w->eta_carried && !base->scenario.workload.eta_carried &&
        !row->scenario.serving.llm.enabled) {
        char note[160], gpu[DAM_ID_MAX];
        snprintf(gpu, sizeof gpu, "%s", row->scenario.machine.gpu.id);
        snprintf(note, sizeof note,
                 " [eta %.2f carried over: no calibrated efficiency for %s "
                 "on %s, so this is optimistic]",
                 w->eta, dam_precision_name(w->precision), gpu);
        size_t n = strlen(row->why);
        snprintf(row->why + n, sizeof row->why - n, "%s", note);
    }
}

/*
 * LLM serving: an option is judged on the two objectives first (meeting
 * them where the baseline misses works; still missing them is short when
 * the worse objective moved 2 % closer, hurts when it moved 2 % away),
 * then, when both meet, on what the deployment costs per million output
 * tokens at the same load (2 % either way). An option whose longest
 * request does not fit in memory is never works.
 */
/* Milliseconds for a sentence, 3 digits and no exponent: "1162", "49.3",
 * "2.83" (v in seconds). */
static void ms_text(char *buf, size_t n, double v)
{
    double ms = v * 1e3;
    snprintf(buf, n, "%.*f", fabs(ms) >= 100 ? 0 : fabs(ms) >= 10 ? 1 : 2,
             ms);
}

/* A count for a sentence without an exponent: "1.02M", "508k", "84". */
static void count_text(char *buf, size_t n, double v)
{
    if (fabs(v) >= 1e6)
        snprintf(buf, n, "%.3gM", v / 1e6);
    else if (fabs(v) >= 1e4)
        snprintf(buf, n, "%.3gk", v / 1e3);
    else
        snprintf(buf, n, "%.3g", v);
}

static void judge_llm(const dam_whatif_row *base, dam_whatif_row *row)
{
    const dam_llm_result *l0 = &base->result.serving.llm;
    const dam_llm_result *l = &row->result.serving.llm;
    int pct = (int)lround(l->slo_quantile * 100.0);
    if (!row->result.memory.fits) {
        row->verdict = DAM_VERDICT_HURTS;
        snprintf(row->why, sizeof row->why,
                 "does not fit: the KV pool per GPU is %.3g GiB short of the "
                 "longest request",
                 row->result.memory.shortfall / DAM_GIB);
        return;
    }
    int met0 = dam_serving_slo_met(&base->result.serving);
    int met = dam_serving_slo_met(&row->result.serving);
    double x0 = fmax(l0->ttft.q / l0->slo_ttft_s, l0->tpot.q / l0->slo_tpot_s);
    double x = fmax(l->ttft.q / l->slo_ttft_s, l->tpot.q / l->slo_tpot_s);
    char objs[320], t1[32], t2[32], t3[32], t4[32];
    ms_text(t1, sizeof t1, l->ttft.q);
    ms_text(t2, sizeof t2, l->ttft.q_ci);
    ms_text(t3, sizeof t3, l->tpot.q);
    ms_text(t4, sizeof t4, l->tpot.q_ci);
    int n = snprintf(objs, sizeof objs,
                     "p%d TTFT %s +- %s ms, TPOT %s +- %s ms on %.0f GPU%s",
                     pct, t1, t2, t3, t4, l->gpus, l->gpus == 1.0 ? "" : "s");
    /* a changed format: what the cache holds and what ran at once */
    const dam_llm *q0 = &base->scenario.serving.llm;
    const dam_llm *q1 = &row->scenario.serving.llm;
    if ((q0->kv_precision != q1->kv_precision ||
         q0->weights != q1->weights) &&
        n > 0 && (size_t)n < sizeof objs)
    {
        count_text(t1, sizeof t1, l->memory.tokens);
        count_text(t2, sizeof t2, l0->memory.tokens);
        /* what the cache can hold (capacity) and what ran (demand; a
         * backlogged baseline runs as many as it holds) */
        snprintf(objs + n, sizeof objs - (size_t)n,
                 ", a cache of %s tokens per replica (was %s): room for "
                 "%.3g sequences of mean length (was %.3g), %.3g running on "
                 "average (was %.3g)",
                 t1, t2, l->max_concurrency, l0->max_concurrency,
                 l->running_mean, l0->running_mean);
    }
    if (met && !met0) {
        row->verdict = DAM_VERDICT_WORKS;
        snprintf(row->why, sizeof row->why,
                 "meets both SLOs: %s, $%.3g per million output tokens",
                 objs, l->cost_per_mtok);
        return;
    }
    if (!met) {
        row->verdict = x <= 0.98 * x0   ? DAM_VERDICT_SHORT
                       : x >= 1.02 * x0 ? DAM_VERDICT_HURTS
                                        : DAM_VERDICT_WASTED;
        snprintf(row->why, sizeof row->why,
                 "%s the SLOs (%.4g / %.4g ms): %s; %s binds", met0
                                                            ? "breaks"
                                                            : "still misses",
                 l->slo_ttft_s * 1e3, l->slo_tpot_s * 1e3, objs,
                 dam_bound_name(row->result.bound));
        return;
    }
    double c0 = l0->cost_per_mtok, c = l->cost_per_mtok;
    double g0 = l0->gpus, g = l->gpus;
    int cheaper = c0 > 0.0 ? c <= 0.98 * c0 : g < g0;
    int dearer = c0 > 0.0 ? c >= 1.02 * c0 : g > g0;
    row->verdict = cheaper  ? DAM_VERDICT_WORKS
                   : dearer ? DAM_VERDICT_HURTS
                            : DAM_VERDICT_WASTED;
    snprintf(row->why, sizeof row->why,
             "both SLOs hold (%s, was %.0f): $%.3g per million output tokens "
             "against $%.3g",
             objs, g0, c, c0);
}

static void judge_generic(const dam_whatif_row *base, dam_whatif_row *row,
                          const char *attr);

/* The verdict of an option that still misses a serving SLO: short of it
 * when 2 % faster, hurts when 2 % slower, else wasted (with the trap it
 * falls into). */
static void miss_verdict(const dam_whatif_row *base, dam_whatif_row *row)
{
    row->verdict = row->run_change <= -0.02 ? DAM_VERDICT_SHORT
                   : row->run_change >= 0.02 ? DAM_VERDICT_HURTS
                                             : DAM_VERDICT_WASTED;
    if (row->verdict == DAM_VERDICT_WASTED) {
        const char *ap = dam_diagnose_anti_pattern(&base->scenario,
                                                   &base->result, row->kind);
        snprintf(row->anti_pattern, sizeof row->anti_pattern, "%s",
                 ap ? ap : "optimising a phase that does not bind");
    }
}

static void judge_row(const dam_whatif_row *base, dam_whatif_row *row,
                      dam_quality_measure measure)
{
    const dam_result *r0 = &base->result, *r = &row->result;
    double t0 = horizon(r0), t = horizon(r);
    row->speedup = t > 0.0 ? t0 / t : 0.0;
    row->step_change = r0->step > 0.0 ? (r->step - r0->step) / r0->step : 0.0;
    row->run_change = t0 > 0.0 ? (t - t0) / t0 : 0.0;
    for (int k = 0; k < DAM_TERM_COUNT; k++)
        row->saved[k] = r0->terms[k] - r->terms[k];
    int hib = base->scenario.quality.higher_is_better;
    row->quality_gain = dam_quality_gain(base->quality, row->quality, hib);
    double c0 = dam_quality_cost_in(&base->cost, measure);
    double c1 = dam_quality_cost_in(&row->cost, measure);
    row->roc_defined = 0;
    /* RoC only where the cost moved by more than 1 %: below that it is
     * the simulation's noise divided into the quality change; and only
     * where both costs are known (an option on a GPU without a price
     * costs "n/a", not less: it read "cheaper") */
    if (c0 > 0.0 && c1 > 0.0 && fabs(c1 - c0) > 0.01 * fabs(c0) &&
        dam_quality_roc(base->quality, c0, row->quality, c1, hib, &row->roc,
                        NULL) == DAM_OK)
        row->roc_defined = 1;

    if (r->serving.llm.enabled && r->has_sim && r0->has_sim &&
        r0->serving.llm.enabled) {
        judge_llm(base, row);
        return;
    }
    char attr[120];
    attribution(base, row, attr, sizeof attr);
    if (r->mode == DAM_MODE_SERVING && r->has_sim && r0->has_sim &&
        r->serving.slo_s > 0.0) {
        int met0 = dam_serving_slo_met(&r0->serving);
        int met = dam_serving_slo_met(&r->serving);
        double p99 = r->serving.latency.p99 * 1e3;
        double slo = r->serving.slo_s * 1e3;
        if (met && !met0) {
            row->verdict = DAM_VERDICT_WORKS;
            snprintf(row->why, sizeof row->why,
                     "meets the SLO: p99 %.3g ms <= %.3g ms (%s)", p99, slo,
                     attr);
            return;
        }
        if (!met) {
            miss_verdict(base, row);
            snprintf(row->why, sizeof row->why,
                     "p99 %.3g ms still misses the %.3g ms SLO; %s binds "
                     "(%s)",
                     p99, slo, dam_bound_name(r->bound), attr);
            return;
        }
        /* Both meet it: what the deployment costs per request decides
         * (as an LLM service's cost per token does), then latency at the
         * same cost. A faster GPU at 15x the price per request read
         * "works" and made the best option. */
        double k0 = base->cost.usd, k = row->cost.usd;
        if (met0 && k0 > 0.0 && k > 0.0 &&
            (k >= 1.02 * k0 || k <= 0.98 * k0)) {
            row->verdict = k <= 0.98 * k0 ? DAM_VERDICT_WORKS
                                          : DAM_VERDICT_HURTS;
            snprintf(row->why, sizeof row->why,
                     "the SLO holds either way (p99 %.3g ms, was %.3g): "
                     "$%.3g per million requests against $%.3g (%s)",
                     p99, r0->serving.latency.p99 * 1e3, k * 1e3, k0 * 1e3,
                     attr);
            return;
        }
    }
    /* Analytic serving with an SLO: a lone request's latency without its
     * batching wait (a full batch leaves sooner) is a floor of every
     * request's under load, so an option over the SLO there misses it at
     * any load; "yes, 1.08x faster" answered "would a faster GPU get us
     * under 30 ms?" with a lone request at 37 ms. */
    if (r->mode == DAM_MODE_SERVING && !r->has_sim &&
        !r->serving.llm.enabled && row->scenario.serving.slo_p99_s > 0.0 &&
        !r->serving.overloaded) {
        double floor = dam_serving_lone_floor(r), slo = row->scenario.serving.slo_p99_s;
        if (floor > slo) {
            miss_verdict(base, row);
            snprintf(row->why, sizeof row->why,
                     "a lone request still takes %.3g ms without waiting "
                     "for a batch, over the %.3g ms SLO at any load (%s)",
                     floor * 1e3, slo * 1e3, attr);
            return;
        }
        judge_generic(base, row, attr);
        size_t n = strlen(row->why);
        if (n < sizeof row->why)
            snprintf(row->why + n, sizeof row->why - n,
                     r->step > slo
                         ? "; a lone request takes %.3g ms, over the %.3g ms "
                           "SLO unless its batch fills at once: the p99 "
                           "needs the simulation"
                         : "; a lone request takes %.3g ms, under the %.3g "
                           "ms SLO: the p99 under load needs the simulation",
                     r->step * 1e3, slo * 1e3);
        return;
    }
    judge_generic(base, row, attr);
}

/* The verdict of an option on its time (or run), quality and cost. */
static void judge_generic(const dam_whatif_row *base, dam_whatif_row *row,
                          const char *attr)
{
    const dam_result *r0 = &base->result;
    int hib = base->scenario.quality.higher_is_better;
    double cost_ratio = base->cost.gpu_hours > 0.0
                            ? row->cost.gpu_hours / base->cost.gpu_hours
                            : 1.0;
    /* a material gain: 0.01 nats of loss, or 0.1 of an accuracy point */
    double material = hib ? 0.1 : 0.01;
    int better_quality = row->quality_gain > material &&
                         !row->quality_unknown;
    if (row->run_change <= -0.02 || (better_quality && cost_ratio <= 1.02)) {
        row->verdict = DAM_VERDICT_WORKS;
        if (row->run_change <= -0.02)
            snprintf(row->why, sizeof row->why, "%.2fx faster: %s",
                     row->speedup, attr);
        else
            snprintf(row->why, sizeof row->why,
                     "%s %.5g -> %.5g (better) at %.0f %% of the GPU-hours: "
                     "%s",
                     base->scenario.quality.metric, base->quality,
                     row->quality, cost_ratio * 100.0, attr);
    } else if (row->run_change < 0.02 && base->cost.usd > 0.0 &&
               row->cost.usd > 0.0 && row->cost.usd <= 0.98 * base->cost.usd &&
               !row->quality_unknown && row->quality_gain >= 0.0) {
        /* the same run for less: a price lever, a cheaper GPU as fast */
        row->verdict = DAM_VERDICT_WORKS;
        snprintf(row->why, sizeof row->why,
                 "the same run at %.0f %% of the cost ($%.4g -> $%.4g): %s",
                 row->cost.usd / base->cost.usd * 100.0, base->cost.usd,
                 row->cost.usd, attr);
    } else if (row->kind == DAM_LEVER_CHINCHILLA) {
        /* judged on quality at the same compute, not on time */
        row->verdict = DAM_VERDICT_WASTED;
        snprintf(row->why, sizeof row->why,
                 "already near the compute-optimal point: %s %.5g -> %.5g "
                 "(%s by %.2g) at %.0f %% of the GPU-hours",
                 base->scenario.quality.metric, base->quality, row->quality,
                 row->quality_gain >= 0.0 ? "better" : "worse",
                 fabs(row->quality_gain), cost_ratio * 100.0);
    } else if (row->run_change >= 0.02 && !better_quality) {
        row->verdict = DAM_VERDICT_HURTS;
        snprintf(row->why, sizeof row->why, "%.2fx (slower): %s",
                 row->speedup, attr);
    } else {
        row->verdict = DAM_VERDICT_WASTED;
        snprintf(row->why, sizeof row->why, "%.2fx: %s; %s binds",
                 row->speedup, attr, dam_bound_name(r0->bound));
        const char *ap = dam_diagnose_anti_pattern(&base->scenario, r0, row->kind);
        snprintf(row->anti_pattern, sizeof row->anti_pattern, "%s",
                 ap ? ap : "optimising a term that does not bind");
    }
}

/* Solve row->scenario and fill the row's numbers. */
static int fill(dam_whatif_row *row, const dam_whatif_options *opt,
                dam_error *err)
{
    int rc = solve(&row->scenario, opt, &row->result, err);
    if (rc != DAM_OK)
        return rc;
    dam_diagnose(&row->scenario, &row->result, &row->diagnosis);
    cost_of(&row->scenario, &row->result, &row->cost);
    row->quality = row->result.quality;
    row->quality_unknown = row->scenario.quality.delta_unknown > 0;
    return DAM_OK;
}

/* A serving option whose simulated SLO is missed: it does not deliver
 * the service, whatever it costs. */
static int misses_slo(const dam_whatif_row *r)
{
    const dam_result *x = &r->result;
    return x->mode == DAM_MODE_SERVING && x->has_sim &&
           (x->serving.slo_s > 0.0 || x->serving.llm.enabled) &&
           !dam_serving_slo_met(&x->serving);
}

/* The cost-quality frontier of the options whose quality effect is known
 * and that deliver the service, and the marginal return on compute along
 * it (model/quality.c). Costs are compared as printed (3 significant
 * figures): options whose costs print the same are a tie, which the
 * fastest takes (the points go in fastest first; dam_quality_pareto keeps
 * the first of equals). Compared exactly, an option 17 % slower on a
 * serving example took the frontier alone by an energy saving of 0.01 %,
 * its verdict "hurts". */
static void frontier(dam_whatif *w, int hib)
{
    dam_quality_point pts[DAM_WHATIF_MAX];
    double cost[DAM_WHATIF_MAX];
    int map[DAM_WHATIF_MAX], order[DAM_WHATIF_MAX];
    int m = 0;
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        double c = dam_quality_cost_in(&r->cost, w->measure);
        if (r->verdict == DAM_VERDICT_FAILED ||
            r->verdict == DAM_VERDICT_NOFIT || r->quality_unknown ||
            !(c > 0.0) || !isfinite(r->quality) || misses_slo(r))
            continue;
        /* insertion by speed-up, fastest first, stable */
        int at = m++;
        while (at > 0 && w->rows[order[at - 1]].speedup < r->speedup) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    size_t n = 0;
    for (int k = 0; k < m; k++) {
        const dam_whatif_row *r = &w->rows[order[k]];
        char printed[32];
        cost[n] = dam_quality_cost_in(&r->cost, w->measure);
        snprintf(printed, sizeof printed, "%.3g", cost[n]);
        snprintf(pts[n].label, sizeof pts[n].label, "%.63s", r->name);
        pts[n].cost = strtod(printed, NULL);
        pts[n].quality = r->quality;
        map[n++] = order[k];
    }
    size_t idx[DAM_WHATIF_MAX];
    size_t nf = n ? dam_quality_pareto(pts, n, hib, idx) : 0;
    w->nfrontier = (int)nf;
    for (size_t k = 0; k < nf; k++) {
        w->frontier[k] = map[idx[k]];
        w->marginal[k] = 0.0;
        if (k + 1 < nf)
            dam_quality_roc(pts[idx[k]].quality, cost[idx[k]],
                            pts[idx[k + 1]].quality, cost[idx[k + 1]],
                            hib, &w->marginal[k], NULL);
    }
}

/* A simulated service at the fast and slow ends of the constants (see
 * dam_whatif_row.has_load): t holds the row's lone-request time in each
 * draw of d. */
static void load_ends(dam_whatif_row *row, dam_draws *d,
                      const dam_scenario *base, const double *t, int n,
                      const dam_whatif_options *opt)
{
    if (!row->result.has_sim || row->scenario.mode != DAM_MODE_SERVING ||
        !opt->solve || n < 2)
        return;
    dam_load_interval li;
    if (dam_load_interval_of(d, base, &row->scenario, &row->result, t, n,
                             opt->solve, opt->solve_ctx, &li) != DAM_OK ||
        !li.ok)
        return;
    row->load = li;
    row->has_load = 1;
}

/* LLM serving: the speed-up a row shows is of the mean latency under
 * load, which the lone request's analytic ratio (nearly constant across
 * the constants: 4.770x to 4.771x where the baseline's end draws ran
 * 0.9 s and 203 s to first token) does not bound. Its interval is then
 * the envelope of the speed-ups in the two end draws and the row's own. */
static void load_speedup(dam_whatif_row *row, const dam_whatif_row *base)
{
    if (!row->has_load || !base->has_load ||
        !row->result.serving.llm.enabled || !(row->speedup > 0.0))
        return;
    double lo = row->speedup, hi = row->speedup;
    for (int e = 0; e < 2; e++) {
        if (!(row->load.draw_step[e] > 0.0) ||
            !(base->load.draw_step[e] > 0.0))
            return;
        double x = base->load.draw_step[e] / row->load.draw_step[e];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    row->speedup_lo = lo;
    row->speedup_hi = hi;
    row->speedup_under_load = 1;
}

/* Append what load_ends found to the row's verdict sentence. */
static int same_ends(const double *v)
{
    return fabs(v[1] - v[0]) <= 0.005 * fabs(v[0]);
}

static void load_note(dam_whatif_row *row)
{
    if (!row->has_load)
        return;
    int llm = row->result.serving.llm.enabled;
    /* nothing to say when the constants do not move it */
    if (llm ? same_ends(row->load.ttft) && same_ends(row->load.tpot)
            : same_ends(row->load.p99))
        return;
    char note[320];
    const char *end = row->load.met[0] && row->load.met[1]
                          ? "met in both end draws"
                      : !row->load.met[0] && !row->load.met[1]
                          ? "missed in both end draws"
                      : row->load.met[0] ? "missed in the slow one"
                                         : "missed in the fast one";
    /* the figures: "TTFT x and y ms, TPOT x and y ms" or "p99 x and y ms" */
    char figs[160] = "", a[32], b[32];
    const double *v[2] = {llm ? row->load.ttft : row->load.p99,
                          llm ? row->load.tpot : NULL};
    const char *lab[2] = {llm ? "TTFT" : "p99", "TPOT"};
    for (int k = 0; k < 2 && v[k]; k++) {
        ms_text(a, sizeof a, v[k][0]);
        ms_text(b, sizeof b, v[k][1]);
        size_t n = strlen(figs);
        snprintf(figs + n, sizeof figs - n, "%s%s %s to %s ms",
                 k ? ", " : "", lab[k], a, b);
    }
    snprintf(note, sizeof note,
             " [under load, 90 %% (simulated in the draws of the constants "
             "at a lone request's 5th and 95th percentile, with the CI): %s; "
             "SLO%s %s]",
             figs, llm ? "s" : "", end);
    size_t len = strlen(row->why);
    snprintf(row->why + len, sizeof row->why - len, "%s", note);
}

/* The time a speed-up compares: a request's latency when serving, else
 * the run. */
static double horizon_of(const dam_figures *f, dam_mode mode)
{
    return mode == DAM_MODE_SERVING ? f->step : f->run_time;
}

/* Intervals over the uncertain inputs and calibrated constants: every
 * option is solved (analytically) on the same named draws, so the
 * comparison is paired; the verdict then says in how many draws the option
 * is faster. */
static void intervals(dam_whatif *w, const dam_scenario *base, int n,
                      const dam_whatif_options *opt)
{
    dam_draws *d = dam_draws_create(n, base->seed);
    n = dam_draws_count(d);
    double *t0 = dam_malloc((size_t)n * 2 * sizeof *t0), *tj = t0 + n;
    dam_whatif_row *b = &w->rows[0];
    dam_uncertainty_answer(d, base, &b->scenario, NULL, t0, &b->interval);
    dam_figures shown = dam_figures_of(&b->result);
    if (b->result.has_sim)
        dam_interval_carry(&b->interval, &shown, 0.0, 0.0, NULL, NULL, 0);
    b->has_interval = 1;
    load_ends(b, d, base, t0, n, opt);
    for (int j = 1; j < w->nrows; j++) {
        dam_whatif_row *row = &w->rows[j];
        if (row->verdict == DAM_VERDICT_FAILED)
            continue;
        dam_uncertainty_answer(d, base, &row->scenario, t0, tj,
                               &row->interval);
        if (row->result.has_sim || b->result.has_sim) {
            /* the intervals of the simulated figures the row shows */
            shown = dam_figures_of(&row->result);
            double hb = horizon_of(&b->interval.nominal, base->mode),
                   hr = horizon_of(&row->interval.nominal, base->mode);
            dam_interval_carry(&row->interval, &shown, row->speedup,
                               hr > 0.0 ? hb / hr : 0.0, t0, tj, n);
        }
        load_ends(row, d, base, tj, n, opt);
        row->has_interval = 1;
        row->speedup_lo = row->interval.speedup.lo;
        row->speedup_hi = row->interval.speedup.hi;
        row->p_faster = row->interval.p_faster;
        load_speedup(row, b);
        load_note(row);
        /* LLM serving is judged on its objectives; the analytic interval
         * (one request alone) is shown apart; no speed-up is quoted
         * against a baseline that does not fit, nor for an option that
         * does not */
        if (row->result.serving.llm.enabled || !b->result.memory.fits ||
            row->verdict == DAM_VERDICT_NOFIT ||
            (!row->result.has_sim && (b->result.serving.overloaded ||
                                      row->result.serving.overloaded)))
            continue;
        char note[128];
        /* the interval is of the speed-up shown (carried to the
         * simulation where the rows are simulated) */
        const char *pre = row->interval.carried || !row->result.has_sim
                              ? "90 %"
                              : "a lone request, 90 %";
        if (row->interval.p_slower > 0.5)
            snprintf(note, sizeof note,
                     " [%s: %.2fx to %.2fx; slower in %.0f %% of draws]", pre,
                     row->speedup_lo, row->speedup_hi,
                     row->interval.p_slower * 100.0);
        else
            snprintf(note, sizeof note,
                     " [%s: %.2fx to %.2fx; faster in %.0f %% of draws]", pre,
                     row->speedup_lo, row->speedup_hi, row->p_faster * 100.0);
        size_t len = strlen(row->why);
        snprintf(row->why + len, sizeof row->why - len, "%s", note);
    }
    dam_free(t0);
    dam_draws_free(d);
}

static void name_of(dam_whatif_row *row, const dam_lever *lv)
{
    snprintf(row->name, sizeof row->name, "%s", lv->name);
    row->kind = lv->nops > 0 ? lv->ops[0].kind : DAM_LEVER_GPU;
}

int dam_whatif_run(const dam_scenario *base, const dam_lever *extra,
                   int nextra, const dam_catalog *cat,
                   const dam_whatif_options *opt, dam_whatif *w,
                   dam_error *err)
{
    memset(w, 0, sizeof *w);
    w->measure = opt->measure;
    /* All the levers, once: the scenario's, then the command line's. */
    dam_lever *all = w->levers.v;
    int n = 0;
    for (int i = 0; opt->levers && i < opt->levers->n; i++)
        all[n++] = opt->levers->v[i];
    for (int i = 0; i < nextra && n < DAM_MAX_LEVERS; i++)
        all[n++] = extra[i];
    w->levers.n = n;

    dam_whatif_row *b = &w->rows[w->nrows++];
    snprintf(b->name, sizeof b->name, "baseline");
    b->scenario = *base;
    b->verdict = DAM_VERDICT_BASELINE;
    int rc = fill(b, opt, err);
    if (rc != DAM_OK)
        return rc;
    b->speedup = 1.0;

    for (int i = 0; i < n && w->nrows < DAM_WHATIF_MAX - 1; i++) {
        dam_whatif_row *row = &w->rows[w->nrows++];
        name_of(row, &all[i]);
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_lever_apply(base, &all[i], cat, &row->scenario, &e) !=
                DAM_OK ||
            fill(row, opt, &e) != DAM_OK) {
            row->verdict = DAM_VERDICT_FAILED;
            dam_error_format(&e, row->error, sizeof row->error);
            snprintf(row->why, sizeof row->why, "cannot apply: %.290s", e.msg);
            continue;
        }
        judge(b, row, opt->measure);
    }

    /* The combination: named, or every lever that works. */
    int pick[DAM_MAX_LEVERS * 2], np = 0;
    if (opt->ncombine > 0) {
        for (int c = 0; c < opt->ncombine; c++) {
            int found = -1;
            for (int i = 0; i < n; i++)
                if (strcmp(all[i].name, opt->combine[c]) == 0)
                    found = i;
            if (found < 0) {
                return dam_error_set(err, base->file, 0,
                                     "--combine: no lever named \"%s\"",
                                     opt->combine[c]);
            }
            pick[np++] = found;
        }
    } else {
        /* Greedy: the fastest working levers first, each only if it moves
         * none of the kinds already chosen (so "H100" and "H100 + FP8" do
         * not stack). */
        int used[DAM_LEVER_KIND_COUNT] = {0};
        for (;;) {
            int best = -1;
            for (int i = 0; i < n; i++) {
                const dam_whatif_row *row = &w->rows[i + 1];
                int clash = 0, taken = 0;
                for (int k = 0; k < np; k++)
                    taken |= pick[k] == i;
                for (int o = 0; o < all[i].nops; o++)
                    clash |= used[all[i].ops[o].kind];
                if (taken || clash || (row->verdict != DAM_VERDICT_WORKS &&
                                       row->verdict != DAM_VERDICT_SHORT))
                    continue;
                if (best < 0 || row->speedup > w->rows[best + 1].speedup)
                    best = i;
            }
            if (best < 0)
                break;
            pick[np++] = best;
            for (int o = 0; o < all[best].nops; o++)
                used[all[best].ops[o].kind] = 1;
        }
    }
    if (np >= 2) {
        dam_whatif_row *row = &w->rows[w->nrows++];
        row->is_combination = 1;
        row->kind = all[pick[0]].nops ? all[pick[0]].ops[0].kind
                                      : DAM_LEVER_GPU;
        dam_scenario *cur = dam_malloc(sizeof *cur);
        *cur = *base;
        dam_error e;
        memset(&e, 0, sizeof e);
        int ok = 1;
        row->name[0] = '\0';
        for (int k = 0; k < np && ok; k++) {
            size_t len = strlen(row->name);
            snprintf(row->name + len, sizeof row->name - len, "%s%s",
                     k ? " + " : "", all[pick[k]].name);
            ok = dam_lever_apply(cur, &all[pick[k]], cat, cur, &e) == DAM_OK;
        }
        row->scenario = *cur;
        dam_free(cur);
        if (!ok || fill(row, opt, &e) != DAM_OK) {
            row->verdict = DAM_VERDICT_FAILED;
            dam_error_format(&e, row->error, sizeof row->error);
            snprintf(row->why, sizeof row->why, "cannot apply: %.290s", e.msg);
        } else {
            judge(b, row, opt->measure);
        }
    }
    frontier(w, base->quality.higher_is_better);
    int uncertain = 0;
    for (int j = 0; j < w->nrows; j++)
        uncertain |= w->rows[j].verdict != DAM_VERDICT_FAILED &&
                     dam_uncertainty_sources(&w->rows[j].scenario) > 0;
    if (uncertain && opt->uncertainty_samples >= 10)
        intervals(w, base, opt->uncertainty_samples, opt);
    return DAM_OK;
}

/* ---- the recommendation rule ------------------------------------------ */

/* The fastest option that works (so it fits in memory) whose quality
 * effect is known (unknown = 0) or unknown (1). */
static const dam_whatif_row *fastest_working(const dam_whatif *w,
                                             int unknown)
{
    const dam_whatif_row *best = NULL;
    for (int i = 1; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        if (r->verdict != DAM_VERDICT_WORKS || !r->quality_unknown != !unknown)
            continue;
        if (!best || r->speedup > best->speedup)
            best = r;
    }
    return best;
}

const dam_whatif_row *dam_whatif_best(const dam_whatif *w)
{
    return fastest_working(w, 0);
}

const dam_whatif_row *dam_whatif_best_unproven(const dam_whatif *w)
{
    return fastest_working(w, 1);
}
