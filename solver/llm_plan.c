/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm_plan.c: capacity plans for LLM serving (see llm_plan.h).
 *
 * Replicas for one GPU and degree. Before any simulation two analytic
 * floors rule a candidate out: a lone prompt of the mean length that
 * prefills slower than the TTFT objective, or a lone decode step slower
 * than the TPOT objective, cannot be saved by more replicas. Otherwise the
 * count doubles from one until both objectives hold at the rate with
 * headroom, then bisects down to the fewest (more replicas never hurt: the
 * router spreads the same arrivals thinner). At most
 * DAM_LLM_PLAN_MAX_REPLICAS replicas are tried.
 */
#include "solver/llm_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "model/alloc.h"
#include "model/graph.h"
#include "model/lever.h"
#include "model/llm.h"
#include "model/quality.h"
#include "solver/analytic.h"
#include "solver/llm_cost.h"
#include "solver/uncertainty.h"

int dam_llm_plan_meets(const dam_scenario *s, const dam_sim_options *opt,
                       dam_result *r, dam_error *err)
{
    dam_analytic_solve(s, r);
    if (!r->memory.fits)
        return 0;
    if (dam_sim_llm(s, opt, r, NULL, err) != DAM_OK)
        return -1;
    return dam_serving_slo_met(&r->serving);
}

/* A dam_solve_fn: the LLM simulation with the options ctx points to. */
static int plan_solve(const dam_scenario *s, void *ctx, dam_result *r,
                      dam_error *err)
{
    dam_analytic_solve(s, r);
    return dam_sim_llm(s, (const dam_sim_options *)ctx, r, NULL, err);
}

/* The plan's 90 % intervals of the best option c (planned at its rate):
 * TTFT, TPOT and the cost per million output tokens under load. */
static void best_interval(const dam_scenario *c, const dam_sim_options *o,
                          const dam_llm_plan_option *op, dam_llm_plan *p)
{
    if (dam_uncertainty_sources(c) == 0)
        return;
    dam_draws *d = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, c->seed);
    int n = dam_draws_count(d);
    double *t = dam_draws_times(d, c);
    dam_result *r = dam_malloc(sizeof *r);
    dam_load_interval li;
    dam_error err;
    if (plan_solve(c, (void *)o, r, &err) == DAM_OK &&
        dam_load_interval_of(d, c, c, r, t, n, plan_solve, (void *)o,
                             &li) == DAM_OK &&
        li.ok) {
        p->has_interval = 1;
        p->ttft_iv[0] = li.ttft[0] < op->ttft ? li.ttft[0] : op->ttft;
        p->ttft_iv[1] = li.ttft[1] > op->ttft ? li.ttft[1] : op->ttft;
        p->tpot_iv[0] = li.tpot[0] < op->tpot ? li.tpot[0] : op->tpot;
        p->tpot_iv[1] = li.tpot[1] > op->tpot ? li.tpot[1] : op->tpot;
        /* the hour's price is known; the tokens it buys are not */
        double tp = r->serving.llm.throughput;
        for (int e = 0; e < 2; e++)
            p->cost_mtok_iv[e] =
                li.throughput[1 - e] > 0.0
                    ? op->cost_per_mtok * tp / li.throughput[1 - e]
                    : op->cost_per_mtok;
        if (p->cost_mtok_iv[0] > op->cost_per_mtok)
            p->cost_mtok_iv[0] = op->cost_per_mtok;
        if (p->cost_mtok_iv[1] < op->cost_per_mtok)
            p->cost_mtok_iv[1] = op->cost_per_mtok;
    }
    dam_free(r);
    dam_free(t);
    dam_draws_free(d);
}

/* Simulate c with `replicas` at c's rate; fill o's figures; 1/0/-1.
 * *early (may be NULL): 1 when the miss was settled early (llm_settle;
 * o's figures are then partial). */
static int eval_early(dam_scenario *c, int replicas,
                      const dam_sim_options *opt, dam_llm_plan_option *o,
                      int *evals, int *early, dam_error *err)
{
    c->serving.replicas = replicas;
    dam_result *r = dam_malloc(sizeof *r);
    int m = dam_llm_plan_meets(c, opt, r, err);
    (*evals)++;
    if (early)
        *early = m == 0 && r->serving.llm.missed_early;
    if (m >= 0) {
        const dam_llm_result *l = &r->serving.llm;
        o->ttft = l->ttft.q;
        o->ttft_ci = l->ttft.q_ci;
        o->tpot = l->tpot.q;
        o->tpot_ci = l->tpot.q_ci;
        o->goodput_fraction = l->goodput_fraction;
        o->gpu_busy = l->gpu_busy;
        o->tokens_per_s_gpu = l->tokens_per_s_gpu;
    }
    dam_free(r);
    return m;
}

static int eval(dam_scenario *c, int replicas, const dam_sim_options *opt,
                dam_llm_plan_option *o, int *evals, dam_error *err)
{
    return eval_early(c, replicas, opt, o, evals, NULL, err);
}

/* The size at quantile p of a request-size distribution (kept in its
 * [min, max]). */
static double tokens_at(const dam_llm_tokens *t, double p)
{
    double m = t->mean, sd = t->cv * t->mean, x = m;
    switch (t->dist) {
    case DAM_DIST_EXPONENTIAL: x = -m * log1p(-p); break;
    case DAM_DIST_LOGNORMAL:
        if (t->cv > 0.0) {
            double s2 = log1p(t->cv * t->cv);
            x = gsl_cdf_lognormal_Pinv(p, log(m) - 0.5 * s2, sqrt(s2));
        }
        break;
    case DAM_DIST_UNIFORM: x = m + sqrt(3.0) * sd * (2.0 * p - 1.0); break;
    case DAM_DIST_NORMAL: x = m + sd * gsl_cdf_ugaussian_Pinv(p); break;
    default: break;
    }
    return x < t->min ? t->min : x > t->max ? t->max : x;
}

/* Step of plan_one: the analytic floors of candidate c; 0 when they rule
 * it out (o->why says why), 1 to search from *need replicas (the requests
 * in the system over what a replica holds), -1 on error. */
static int plan_floor(dam_scenario *c, dam_llm_plan_option *o, int cap,
                      double *need, dam_error *err)
{
    const dam_llm *q = &c->serving.llm;
    dam_llm_cost *cost = dam_llm_cost_create(c, q->tp, err);
    if (!cost)
        return -1;
    /* floors no replica count lowers: the prompt at the objectives'
     * quantile prefilled alone, and a decode step alone at its context */
    double chunk = q->chunked_prefill ? q->chunk_tokens : 0.0;
    double qin = tokens_at(&q->input, q->slo_quantile);
    double tpre = dam_llm_cost_prefill(cost, qin, chunk);
    double tdec = dam_llm_cost_decode1(cost, qin);
    double tmean = dam_llm_cost_prefill(cost, q->input.mean, chunk) +
                   (q->output.mean - 1.0) *
                       dam_llm_cost_decode1(cost, q->input.mean +
                                                      q->output.mean / 2.0);
    dam_llm_cost_free(cost);
    if (tpre > q->slo_ttft_s) {
        snprintf(o->why, sizeof o->why,
                 "a lone %.0f-token prompt (p%.0f) prefills in %.4g ms, over "
                 "the TTFT objective",
                 qin, q->slo_quantile * 100.0, tpre * 1e3);
        return 0;
    }
    if (tdec > q->slo_tpot_s) {
        snprintf(o->why, sizeof o->why,
                 "a lone decode step takes %.4g ms, over the TPOT objective",
                 tdec * 1e3);
        return 0;
    }
    /* a start below the answer: the requests in the system (Little's law
     * with a lone request's time) over what one replica's cache holds */
    dam_llm_memory mem;
    dam_llm_memory_plan(c, q->tp, &mem);
    double per = dam_llm_blocks_for(c, q->input.mean + q->output.mean);
    double hold = per > 0.0 ? floor(mem.blocks / per) : 1.0;
    if (hold > q->max_seqs)
        hold = q->max_seqs;
    *need = c->serving.rate * tmean / (hold > 1.0 ? hold : 1.0);
    if (cap > 0 && ceil(*need) * q->tp > cap) {
        snprintf(o->why, sizeof o->why,
                 "needs about %.0f GPUs or more (a replica's cache holds "
                 "%.0f requests), over twice another degree's",
                 ceil(*need) * q->tp, hold);
        return 0;
    }
    return 1;
}

/* Step of plan_one: o becomes best, feasible with hi replicas, priced
 * (an hour of the GPUs, electricity too, and per million tokens). */
static void plan_price(const dam_scenario *c, dam_llm_plan_option *o,
                       const dam_llm_plan_option *best, int hi)
{
    *o = *best;
    o->feasible = 1;
    o->replicas = hi;
    o->gpus = hi * c->serving.llm.tp;
    dam_quality_cost hour;
    o->cost_hour = o->price_hour > 0.0 &&
                           dam_quality_scenario_cost(c, o->gpus, 3600.0,
                                                     o->gpu_busy, &hour,
                                                     NULL) == DAM_OK
                       ? hour.usd
                       : 0.0;
    double toks = o->tokens_per_s_gpu * o->gpus;
    o->cost_per_mtok = toks > 0.0 && o->price_hour > 0.0
                           ? o->cost_hour / 3600.0 / toks * 1e6
                           : 0.0;
    o->why[0] = '\0';
}

/* The fewest replicas of candidate c (GPU and degree set) for o; when
 * its floor (below) needs more than `cap` GPUs it is not searched (0 = no
 * cap). */
static int plan_one(dam_scenario *c, const dam_sim_options *opt,
                    dam_llm_plan_option *o, int cap, int *evals,
                    dam_error *err)
{
    const dam_llm *q = &c->serving.llm;
    double need = 0.0;
    int f = plan_floor(c, o, cap, &need, err);
    if (f <= 0)
        return f < 0 ? DAM_EINPUT : DAM_OK;
    int n0 = 1;
    while (2 * n0 <= need && 2 * n0 <= DAM_LLM_PLAN_MAX_REPLICAS)
        n0 *= 2;
    dam_llm_plan_option best = *o;
    /* a miss may stop early (llm_settle): its figures are kept only
     * for the why and the stall while doubling, where a miss settled
     * early is compared with nothing and the last is run whole */
    dam_sim_options settled = *opt;
    settled.llm_settle = 1;
    int lo = 0, hi = 0, stalled = 0;
    double prev = INFINITY;
    if (n0 > 1) {
        /* the start may already meet: then find a failing count below */
        dam_llm_plan_option t = *o;
        int m = eval(c, n0, opt, &t, evals, err);
        if (m < 0)
            return DAM_EINPUT;
        if (m) {
            hi = n0;
            best = t;
            for (int n = n0 / 2; n >= 1 && !lo; n /= 2) {
                t = *o;
                m = eval(c, n, &settled, &t, evals, err);
                if (m < 0)
                    return DAM_EINPUT;
                if (m) {
                    hi = n;
                    best = t;
                } else {
                    lo = n;
                }
            }
        } else {
            lo = n0;
            *o = t;
            prev = fmax(t.ttft / q->slo_ttft_s, t.tpot / q->slo_tpot_s);
            n0 *= 2;
        }
    }
    int capped = 0, early = 0;
    for (int n = n0; !hi && n <= DAM_LLM_PLAN_MAX_REPLICAS; n *= 2) {
        if (cap > 0 && n * q->tp > cap) {
            capped = 1;
            break;
        }
        dam_llm_plan_option t = *o;
        int m = eval_early(c, n, &settled, &t, evals, &early, err);
        if (m < 0)
            return DAM_EINPUT;
        if (m) {
            hi = n;
            best = t;
            break;
        }
        lo = n;
        *o = t; /* the last failing figures, for the why */
        if (early) {
            /* a miss settled early has no figures to compare: the next
             * full one starts the comparison again */
            prev = INFINITY;
            continue;
        }
        /* the worse objective, as a share of its target: once doubling
         * the replicas no longer moves it, the queue is not the reason */
        double x = fmax(t.ttft / q->slo_ttft_s, t.tpot / q->slo_tpot_s);
        if (x > 0.98 * prev) {
            stalled = 1;
            break;
        }
        prev = x;
    }
    if (!hi && capped) {
        snprintf(o->why, sizeof o->why,
                 "misses with %d replicas (%d GPUs), and more would be over "
                 "twice another degree's GPUs",
                 lo, lo * q->tp);
        return DAM_OK;
    }
    if (!hi && early) {
        /* the why's figures: the last miss run whole */
        dam_llm_plan_option t = *o;
        if (eval(c, lo, opt, &t, evals, err) < 0)
            return DAM_EINPUT;
        *o = t;
    }
    if (!hi) {
        snprintf(o->why, sizeof o->why,
                 "misses with %d replicas%s (p%.0f TTFT %.4g ms, TPOT %.4g "
                 "ms)",
                 lo, stalled ? ", and more do not help" : "",
                 c->serving.llm.slo_quantile * 100.0, o->ttft * 1e3,
                 o->tpot * 1e3);
        return DAM_OK;
    }
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        dam_llm_plan_option t = *o;
        int m = eval(c, mid, &settled, &t, evals, err);
        if (m < 0)
            return DAM_EINPUT;
        if (m) {
            hi = mid;
            best = t;
        } else {
            lo = mid;
        }
    }
    plan_price(c, o, &best, hi);
    return DAM_OK;
}

/* Sort order: feasible priced by cost (then GPUs), feasible unpriced by
 * GPUs, infeasible, unusable. */
static int rank(const dam_llm_plan_option *o)
{
    if (!o->usable)
        return 3;
    if (!o->feasible)
        return 2;
    return o->price_hour > 0.0 ? 0 : 1;
}

static int before(const dam_llm_plan_option *a, const dam_llm_plan_option *b)
{
    int ra = rank(a), rb = rank(b);
    if (ra != rb)
        return ra < rb;
    if (ra == 0 && a->cost_hour != b->cost_hour)
        return a->cost_hour < b->cost_hour;
    if (ra <= 1 && a->gpus != b->gpus)
        return a->gpus < b->gpus;
    return 0;
}

/* Why candidate (g, tp) cannot run c, or "" when it can. */
static void unusable(const dam_scenario *c, const dam_gpu *g, int tp,
                     char *why, size_t n)
{
    const dam_llm *q = &c->serving.llm;
    why[0] = '\0';
    dam_precision act = dam_llm_act_precision(c);
    dam_precision gp = dam_llm_gemm_precision(c);
    if (!(g->peak[act] > 0.0) || !(g->peak[gp] > 0.0)) {
        snprintf(why, n, "no %s support",
                 dam_precision_name(g->peak[act] > 0.0 ? gp : act));
        return;
    }
    dam_graph *gr = dam_malloc(sizeof *gr);
    dam_llm_iter it = {.decode_seqs = 1.0, .tp = tp};
    dam_error e;
    int ok = dam_graph_llm_iteration(gr, &c->workload.model, &it, &e);
    dam_free(gr);
    if (ok != DAM_OK) {
        snprintf(why, n, "the model does not shard %d ways", tp);
        return;
    }
    dam_llm_memory m;
    dam_llm_memory_plan(c, tp, &m);
    if (!m.fits)
        snprintf(why, n,
                 "does not fit: %.4g GiB of weights per GPU leave room for "
                 "%.0f tokens, the longest request needs %.0f",
                 m.weights / DAM_GIB, m.tokens, q->input.max + q->output.max);
}

/* Simulate c at `rate`: 1 meets (p's max-rate figures updated), 0 not,
 * -1 error. */
static int bisect(dam_scenario *c, const dam_sim_options *opt, dam_result *r,
                  dam_llm_plan *p, double start, double step,
                  dam_error *err);
static void max_rate_interval(const dam_scenario *s,
                              const dam_sim_options *opt, dam_llm_plan *p,
                              dam_error *err);

static int probe(dam_scenario *c, double rate, const dam_sim_options *opt,
                 dam_result *r, dam_llm_plan *p, dam_error *err)
{
    /* a rate over the same deployment's offline (saturated) throughput
     * is not sustained: its queue grows without bound, and only a finite
     * run's end could make it look met (test_llm_offline) */
    if (p->offline_found && rate > p->offline_rate)
        return 0;
    /* a miss's figures are not kept: it may stop early */
    dam_sim_options o = *opt;
    o.llm_settle = 1;
    c->serving.rate = rate;
    int m = dam_llm_plan_meets(c, &o, r, err);
    p->evaluations++;
    if (m > 0) {
        p->max_rate = rate;
        p->max_rate_ttft = r->serving.llm.ttft.q;
        p->max_rate_tpot = r->serving.llm.tpot.q;
        p->max_rate_found = 1;
    }
    return m;
}

int dam_llm_plan_max_rate(const dam_scenario *s,
                          const dam_sim_options *opt, dam_llm_plan *p,
                          dam_error *err)
{
    dam_scenario *c = dam_malloc(sizeof *c);
    dam_result *r = dam_malloc(sizeof *r);
    *c = *s;
    if (c->serving.arrival == DAM_ARRIVAL_TRACE)
        c->serving.arrival = DAM_ARRIVAL_POISSON;
    /* the ceiling beside it: the same requests all queued at time 0 */
    dam_result *off = dam_calloc(1, sizeof *off);
    dam_analytic_solve(c, off);
    if (dam_sim_llm_offline(c, opt, off, err) != DAM_OK) {
        dam_free(off);
        dam_free(r);
        dam_free(c);
        return DAM_EINPUT;
    }
    p->offline_found = off->serving.llm.has_offline;
    p->offline_rate = off->serving.llm.offline_saturated_throughput;
    p->offline_tokens_per_s = off->serving.llm.offline_saturated_tokens_per_s;
    dam_free(off);
    int m = bisect(c, opt, r, p, p->rate, 2.0, err);
    if (m >= 0 && p->max_rate_found)
        max_rate_interval(s, opt, p, err);
    dam_free(r);
    dam_free(c);
    return m < 0 ? DAM_EINPUT : DAM_OK;
}

/* The highest rate of c meeting both objectives, within
 * DAM_LLM_RATE_BRACKET: from `start` up by `step` while it meets (at
 * most 12 times) or down by `step` while it misses (to 1/256 of it), then
 * halving the gap (at most 8 times): p->max_rate and its figures; 1 met
 * at every rate tried, 0 found, -1 error. */
static int bisect(dam_scenario *c, const dam_sim_options *opt, dam_result *r,
                  dam_llm_plan *p, double start, double step,
                  dam_error *err)
{
    double lo = 0.0, hi = start;
    int m = 1, i;
    for (i = 0; i < 12 && m > 0; i++) {
        m = probe(c, hi, opt, r, p, err);
        if (m > 0) {
            lo = hi;
            hi *= step;
        }
    }
    p->max_rate_upper = m > 0 ? 0.0 : hi; /* 0: met at every rate tried */
    int downs = (int)ceil(log(256.0) / log(step) - 1e-9), halves = 0;
    while (m == 0) {
        double mid;
        if (lo > 0.0) {
            if (hi - lo <= DAM_LLM_RATE_BRACKET * lo || halves++ >= 8)
                break;
            mid = 0.5 * (lo + hi);
        } else {
            if (downs-- <= 0)
                break;
            mid = hi / step;
        }
        int k = probe(c, mid, opt, r, p, err);
        if (k < 0)
            m = -1;
        else if (k)
            lo = mid;
        else
            hi = mid;
    }
    if (m == 0)
        p->max_rate_upper = hi;
    return m;
}

/* The highest rate's 90 % interval: the same search in the draws of the
 * constants at a lone request's 5th and 95th percentile (quantile mapping,
 * as dam_load_interval_of), enveloped with the nominal search. */
static void max_rate_interval(const dam_scenario *s,
                              const dam_sim_options *opt, dam_llm_plan *p,
                              dam_error *err)
{
    if (dam_uncertainty_sources(s) == 0)
        return;
    dam_draws *d = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, s->seed);
    int n = dam_draws_count(d);
    double *t = dam_draws_times(d, s);
    dam_scenario *x = dam_malloc(sizeof *x);
    dam_result *r = dam_malloc(sizeof *r);
    dam_llm_plan *q = dam_malloc(sizeof *q);
    double lo = p->max_rate, hi = p->max_rate;
    int ok = 1;
    for (int e = 0; e < 2 && ok; e++) {
        dam_draws_apply_all(d, dam_draw_at(t, n, e ? 0.95 : 0.05), s, s, x);
        if (x->serving.arrival == DAM_ARRIVAL_TRACE)
            x->serving.arrival = DAM_ARRIVAL_POISSON;
        *q = *p;
        q->max_rate_found = 0;
        q->max_rate = 0.0;
        q->offline_found = 0; /* the draw's own is not known */
        /* from the nominal answer, by smaller steps: a draw moves it by
         * a fraction, and the same random numbers (the seed) serve each
         * rate, so the draws' searches differ by the constants alone */
        ok = bisect(x, opt, r, q, p->max_rate, DAM_LLM_RATE_DRAW_STEP,
                    err) >= 0;
        p->evaluations = q->evaluations;
        double v = q->max_rate_found ? q->max_rate : 0.0;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (ok) {
        p->has_max_rate_interval = 1;
        p->max_rate_iv[0] = lo;
        p->max_rate_iv[1] = hi;
    }
    dam_free(q);
    dam_free(r);
    dam_free(x);
    dam_free(t);
    dam_draws_free(d);
}

/* Step of dam_llm_plan_run: the first feasible of the sorted options
 * that holds when re-simulated becomes p->best, with its intervals. */
static int plan_confirm(const dam_scenario *s, const dam_catalog *cat,
                        const dam_scenario *base, dam_scenario *c,
                        double rate, const dam_sim_options *opt,
                        dam_llm_plan *p, dam_error *err)
{
    const dam_sim_options o = *opt;
    /* re-simulate the cheapest with other random numbers and twice the
     * replications; the next one is tried if it does not hold */
    dam_sim_options o2 = o;
    o2.have_seed = 1;
    o2.seed = (o.have_seed ? o.seed : s->seed) + 7919u;
    o2.replications = 2 * (o.replications > 0 ? o.replications
                                               : s->serving.replications);
    o2.llm_settle = 1; /* a miss passes on to the next */
    for (int i = 0; i < p->noptions && i < 3 && p->best < 0; i++) {
        dam_llm_plan_option *op = &p->options[i];
        if (!op->feasible)
            break;
        *c = *base;
        for (size_t k = 0; k < cat->ngpus; k++)
            if (strcmp(cat->gpus[k].id, op->gpu) == 0)
                c->machine.gpu = cat->gpus[k];
        c->serving.rate = rate * (1.0 + DAM_LLM_PLAN_HEADROOM);
        c->serving.replicas = op->replicas;
        c->serving.llm.disaggregated = 0;
        c->serving.llm.tp = c->serving.llm.prefill_tp =
            c->serving.llm.decode_tp = op->tp;
        dam_result *r = dam_malloc(sizeof *r);
        int m = dam_llm_plan_meets(c, &o2, r, err);
        p->evaluations++;
        if (m > 0) {
            p->best = i;
            p->confirmed = 1;
            p->confirm_ttft = r->serving.llm.ttft.q;
            p->confirm_rate = c->serving.rate;
            p->confirm_tpot = r->serving.llm.tpot.q;
            best_interval(c, &o, op, p);
        }
        dam_free(r);
        if (m < 0)
            return DAM_EINPUT;
    }
    return DAM_OK;
}

int dam_llm_plan_run(const dam_scenario *s, const dam_catalog *cat,
                     double slo_ttft, double slo_tpot, double rate,
                     const dam_sim_options *opt, dam_llm_plan *p,
                     dam_error *err)
{
    memset(p, 0, sizeof *p);
    p->best = -1;
    if (s->mode != DAM_MODE_SERVING || !s->serving.llm.enabled)
        return dam_error_set(err, s->file, 0,
                             "an LLM capacity plan needs a serving scenario "
                             "with an llm group");
    if (!(slo_ttft > 0.0) || !(slo_tpot > 0.0) || !(rate > 0.0) ||
        !isfinite(slo_ttft) || !isfinite(slo_tpot) || !isfinite(rate))
        return dam_error_set(err, "", 0,
                             "the objectives and the rate must be positive, "
                             "got %g s, %g s and %g/s",
                             slo_ttft, slo_tpot, rate);
    p->slo_ttft_s = slo_ttft;
    p->slo_tpot_s = slo_tpot;
    p->quantile = s->serving.llm.slo_quantile;
    p->rate = rate;
    p->headroom = DAM_LLM_PLAN_HEADROOM;
    dam_sim_options o = *opt;
    /* progress: one unit per GPU kind, one for the confirmation and one
     * for the top rate; the simulations inside report nothing */
    const dam_progress *progress = opt->progress;
    double units = (double)cat->ngpus + 2.0;
    o.progress = NULL;
    dam_progress_report(progress, 0.0, units);
    o.requests = NULL;
    o.nrequests = 0;
    o.arrivals = NULL;
    o.narrivals = 0;

    dam_scenario *base = dam_malloc(sizeof *base);
    dam_scenario *c = dam_malloc(sizeof *c);
    *base = *s;
    base->serving.llm.slo_ttft_s = slo_ttft;
    base->serving.llm.slo_tpot_s = slo_tpot;
    if (base->serving.arrival == DAM_ARRIVAL_TRACE)
        base->serving.arrival = DAM_ARRIVAL_POISSON;
    int rc = DAM_OK;
    /* widest first: it needs the fewest replicas, and a narrower degree
     * whose floor needs over twice its GPUs is not searched */
    static const int degrees[] = {8, 4, 2, 1};
    for (size_t i = 0; i < cat->ngpus;
         dam_progress_report(progress, (double)++i, units)) {
        const dam_gpu *g = &cat->gpus[i];
        int fewest = 0;
        for (size_t k = 0; k < sizeof degrees / sizeof degrees[0]; k++) {
            int tp = degrees[k];
            if (tp > s->machine.gpus_per_node ||
                p->noptions >= DAM_LLM_PLAN_MAX)
                continue;
            dam_llm_plan_option *op = &p->options[p->noptions];
            memset(op, 0, sizeof *op);
            snprintf(op->gpu, sizeof op->gpu, "%s", g->id);
            op->tp = tp;
            *c = *base;
            c->machine.gpu = *g;
            c->serving.rate = rate * (1.0 + DAM_LLM_PLAN_HEADROOM);
            dam_llm *q = &c->serving.llm;
            q->disaggregated = 0;
            q->tp = q->prefill_tp = q->decode_tp = tp;
            c->cost.gpu_hour_usd = dam_gpu_price(base, g);
            op->price_hour = c->cost.gpu_hour_usd;
            unusable(c, g, tp, op->why, sizeof op->why);
            if (op->why[0]) {
                /* list an unusable GPU once, at its smallest degree */
                int dup = 0;
                for (int j = 0; j < p->noptions; j++)
                    dup |= strcmp(p->options[j].gpu, g->id) == 0 &&
                           !p->options[j].usable;
                if (!dup)
                    p->noptions++;
                continue;
            }
            op->usable = 1;
            p->noptions++;
            if ((rc = plan_one(c, &o, op, 2 * fewest, &p->evaluations,
                               err)) != DAM_OK)
                goto done;
            if (op->feasible && (!fewest || op->gpus < fewest))
                fewest = op->gpus;
        }
    }
    /* an unusable entry is dropped once the GPU has a usable degree */
    int n = 0;
    for (int i = 0; i < p->noptions; i++) {
        int drop = 0;
        if (!p->options[i].usable)
            for (int j = 0; j < p->noptions; j++)
                drop |= p->options[j].usable &&
                        strcmp(p->options[j].gpu, p->options[i].gpu) == 0;
        if (!drop)
            p->options[n++] = p->options[i];
    }
    p->noptions = n;
    for (int i = 1; i < p->noptions; i++) {
        dam_llm_plan_option t = p->options[i];
        int j = i - 1;
        while (j >= 0 && before(&t, &p->options[j])) {
            p->options[j + 1] = p->options[j];
            j--;
        }
        p->options[j + 1] = t;
    }
    if ((rc = plan_confirm(s, cat, base, c, rate, &o, p, err)) != DAM_OK)
        goto done;
    dam_progress_report(progress, units - 1.0, units);
    rc = dam_llm_plan_max_rate(base, &o, p, err);
    dam_progress_report(progress, units, units);
done:
    dam_free(c);
    dam_free(base);
    return rc;
}

void dam_llm_plan_curves(const dam_scenario *s, const dam_sim_options *opt,
                         dam_llm_curves *w)
{
    static const double mult[DAM_LLM_CURVE_LOADS] = {0.25, 0.5, 0.75, 1.0,
                                                     1.25, 1.5, 1.75, 2.0};
    static const int budgets[DAM_LLM_CURVE_BUDGETS] = {256,  512,  1024,
                                                       2048, 4096, 8192};
    memset(w, 0, sizeof *w);
    if (!s->serving.llm.enabled || s->serving.arrival == DAM_ARRIVAL_TRACE ||
        !(s->serving.rate > 0.0))
        return;
    dam_scenario *x = dam_malloc(sizeof *x);
    dam_result *r = dam_malloc(sizeof *r);
    dam_sim_options o = *opt;
    o.requests = NULL;
    o.nrequests = 0;
    dam_error e;
    for (size_t i = 0; i < DAM_LLM_CURVE_LOADS; i++) {
        *x = *s;
        x->serving.rate = s->serving.rate * mult[i];
        dam_analytic_solve(x, r);
        if (!r->memory.fits || dam_sim_llm(x, &o, r, NULL, &e) != DAM_OK)
            continue;
        const dam_llm_result *l = &r->serving.llm;
        w->rate[w->n] = x->serving.rate;
        w->ttft[0][w->n] = l->ttft.p50;
        w->ttft[1][w->n] = l->ttft.p90;
        w->ttft[2][w->n] = l->ttft.p99;
        w->tpot[0][w->n] = l->tpot.p50;
        w->tpot[1][w->n] = l->tpot.p90;
        w->tpot[2][w->n] = l->tpot.p99;
        w->n++;
    }
    double req = s->serving.requests / 5.0;
    o.steps = req > 200.0 ? (int)req : 200;
    o.replications = 1;
    for (size_t i = 0; i < DAM_LLM_CURVE_BUDGETS; i++) {
        *x = *s;
        dam_llm *q = &x->serving.llm;
        if (budgets[i] < q->max_seqs ||
            (!q->chunked_prefill && budgets[i] < q->input.max))
            continue;
        q->token_budget = q->chunk_tokens = budgets[i];
        x->serving.rate = 4.0 * s->serving.rate;
        dam_analytic_solve(x, r);
        if (!r->memory.fits || dam_sim_llm(x, &o, r, NULL, &e) != DAM_OK)
            continue;
        w->budget[w->nb] = budgets[i];
        w->tokens[w->nb] = r->serving.llm.tokens_per_s_gpu;
        w->btpot[w->nb] = r->serving.llm.tpot.p99;
        w->nb++;
    }
    dam_free(r);
    dam_free(x);
}
