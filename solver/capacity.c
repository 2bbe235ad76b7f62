/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * capacity.c: serving capacity plans by simulation (see capacity.h).
 *
 * Replicas for one GPU. The copy and compute of a full batch bound what
 * one replica can serve, mu = max_batch / (copy(max_batch) + T(max_batch));
 * fewer than rate/mu replicas are unstable, so the search starts at
 * n0 = ceil(rate/mu) (at least 1), doubles until the SLO is met, then
 * bisects between the last count that missed and the first that met.
 * Before simulating, two floors are checked: a lone request (preprocess +
 * copy + T(1) + postprocess) slower than the SLO, and a CPU pool whose
 * capacity workers/preprocess_s is at or below the rate; both make the
 * GPU infeasible whatever the replicas. While doubling, a p99 that stops
 * falling (within 2 %) with the replicas under half busy also ends the
 * search as infeasible: the latency floor is elsewhere.
 *
 * Highest rate. Between a rate that meets (5 % of the stability bound,
 * else 50 %) and the stability bound min(replicas * mu, CPU capacity),
 * bisection to 1 % of the rate (at most 14 simulations). It assumes the
 * p99 grows with the load, which a batcher's timeout can contradict at
 * low load (batches fill faster as the rate grows); the answer is then
 * one rate that meets next to one that misses.
 */
#include "solver/capacity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/lever.h"
#include "model/quality.h"
#include "solver/analytic.h"

int dam_capacity_meets(const dam_result *r, double slo_s, double max_util)
{
    return r->has_sim &&
           r->serving.latency.p99 + r->serving.p99_ci95 <=
               slo_s * (1.0 + 1e-9) &&
           r->serving.utilization <= max_util;
}

int dam_capacity_simulate(const dam_scenario *s, double rate, int replicas,
                          const dam_sim_options *opt, dam_result *r,
                          dam_error *err)
{
    dam_scenario *c = dam_malloc(sizeof *c);
    *c = *s;
    if (rate > 0.0) {
        c->serving.rate = rate;
        if (c->serving.arrival == DAM_ARRIVAL_TRACE)
            c->serving.arrival = DAM_ARRIVAL_POISSON;
    }
    if (replicas > 0)
        c->serving.replicas = replicas;
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    if (opt)
        o = *opt;
    if (c->serving.arrival != DAM_ARRIVAL_TRACE) {
        o.arrivals = NULL;
        o.narrivals = 0;
    }
    dam_analytic_solve(c, r);
    int rc = dam_sim_serving(c, &o, r, NULL, err);
    dam_free(c);
    return rc;
}

int dam_capacity_load_curve(const dam_scenario *s, const dam_sim_options *opt,
                            dam_capacity_curve *out)
{
    memset(out, 0, sizeof *out);
    if (s->serving.arrival == DAM_ARRIVAL_TRACE || !(s->serving.rate > 0.0))
        return DAM_OK;
    dam_result *r = dam_malloc(sizeof *r);
    for (int i = 1; i <= DAM_CAPACITY_CURVE_POINTS; i++) {
        double rate = s->serving.rate * 0.25 * i;
        dam_error e;
        if (dam_capacity_simulate(s, rate, 0, opt, r, &e) != DAM_OK)
            continue;
        out->rate[out->n] = rate;
        out->p50[out->n] = r->serving.latency.p50;
        out->p95[out->n] = r->serving.latency.p95;
        out->p99[out->n] = r->serving.latency.p99;
        out->n++;
    }
    dam_free(r);
    return DAM_OK;
}

/* Compute time of a batch of b on s's GPU, s. */
static double batch_time(const dam_scenario *s, int b)
{
    dam_compute cp;
    dam_analytic_compute(s, (double)b, &cp, NULL, NULL);
    return dam_analytic_overhead(s) + cp.fwd + cp.launch;
}

/* Copy time of a batch of b, s. */
static double copy_time(const dam_scenario *s, int b)
{
    const dam_machine *m = &s->machine;
    double bw = m->pcie_bw * (s->pipeline.pin_memory ? 1.0
                                                      : m->pageable_fraction);
    return bw > 0.0 ? b * s->serving.request_bytes / bw : 0.0;
}

/* Requests/s one replica serves at full batches. */
static double replica_capacity(const dam_scenario *s)
{
    int mb = s->serving.max_batch;
    double t = copy_time(s, mb) + batch_time(s, mb);
    return t > 0.0 ? mb / t : (double)INFINITY;
}

/* Requests/s the CPU pool preprocesses. */
static double cpu_capacity(const dam_scenario *s)
{
    const dam_serving *v = &s->serving;
    return v->preprocess_s > 0.0 ? v->preprocess_workers / v->preprocess_s
                                 : (double)INFINITY;
}

/* The fewest replicas of s (GPU already swapped) meeting slo at rate. */
static int plan_gpu(const dam_scenario *s, double slo, double rate,
                    const dam_sim_options *opt, dam_capacity_option *o,
                    int *evals, dam_error *err)
{
    const dam_serving *v = &s->serving;
    double alone = v->preprocess_s + copy_time(s, 1) + batch_time(s, 1) +
                   v->postprocess_s;
    if (alone > slo) {
        snprintf(o->why, sizeof o->why,
                 "a lone request takes %.3g ms (preprocess, copy, compute, "
                 "postprocess), over the %.3g ms SLO",
                 alone * 1e3, slo * 1e3);
        return DAM_OK;
    }
    double cpu = cpu_capacity(s);
    if (cpu <= rate) {
        snprintf(o->why, sizeof o->why,
                 "the CPU pool (%d workers x %.3g ms) serves at most %.4g "
                 "requests/s",
                 v->preprocess_workers, v->preprocess_s * 1e3, cpu);
        return DAM_OK;
    }
    double mu = replica_capacity(s);
    double n0d = ceil(rate / mu);
    if (!(n0d <= DAM_CAPACITY_MAX_REPLICAS)) {
        snprintf(o->why, sizeof o->why,
                 "needs more than %d replicas (%.4g requests/s each)",
                 DAM_CAPACITY_MAX_REPLICAS, mu);
        return DAM_OK;
    }
    int n = n0d < 1.0 ? 1 : (int)n0d;
    dam_result *r = dam_malloc(sizeof *r);
    int fail_n = n - 1, meet_n = 0, rc = DAM_OK;
    double fail_p99 = -1.0, fail_util = 0.0, prev = INFINITY;
    for (;;) {
        if ((rc = dam_capacity_simulate(s, rate, n, opt, r, err)) != DAM_OK)
            goto done;
        (*evals)++;
        if (dam_capacity_meets(r, slo, DAM_CAPACITY_MAX_UTIL)) {
            meet_n = n;
            break;
        }
        fail_n = n;
        fail_p99 = r->serving.latency.p99;
        fail_util = r->serving.utilization;
        if (r->serving.latency.p99 >= 0.98 * prev &&
            r->serving.utilization < 0.5) {
            snprintf(o->why, sizeof o->why,
                     "p99 stays at %.3g ms with %d replicas %.0f %% busy: "
                     "the latency floor is not the GPU count",
                     r->serving.latency.p99 * 1e3, n,
                     r->serving.utilization * 100.0);
            goto done;
        }
        prev = r->serving.latency.p99;
        if (n >= DAM_CAPACITY_MAX_REPLICAS) {
            snprintf(o->why, sizeof o->why,
                     "misses the SLO even with %d replicas (p99 %.3g ms)", n,
                     r->serving.latency.p99 * 1e3);
            goto done;
        }
        n = 2 * n < DAM_CAPACITY_MAX_REPLICAS ? 2 * n : DAM_CAPACITY_MAX_REPLICAS;
    }
    /* Record the meeting count, then bisect below it. */
    o->p99 = r->serving.latency.p99;
    o->p99_ci95 = r->serving.p99_ci95;
    o->utilization = r->serving.utilization;
    o->throughput = r->serving.throughput;
    while (meet_n - fail_n > 1) {
        int mid = fail_n + (meet_n - fail_n) / 2;
        if ((rc = dam_capacity_simulate(s, rate, mid, opt, r, err)) != DAM_OK)
            goto done;
        (*evals)++;
        if (dam_capacity_meets(r, slo, DAM_CAPACITY_MAX_UTIL)) {
            meet_n = mid;
            o->p99 = r->serving.latency.p99;
            o->p99_ci95 = r->serving.p99_ci95;
            o->utilization = r->serving.utilization;
            o->throughput = r->serving.throughput;
        } else {
            fail_n = mid;
            fail_p99 = r->serving.latency.p99;
            fail_util = r->serving.utilization;
        }
    }
    if (fail_n >= 1 && fail_p99 < 0.0) {
        /* Below the stability bound: simulate it for the evidence. */
        if ((rc = dam_capacity_simulate(s, rate, fail_n, opt, r, err)) !=
            DAM_OK)
            goto done;
        (*evals)++;
        fail_p99 = r->serving.latency.p99;
        fail_util = r->serving.utilization;
    }
    o->feasible = 1;
    o->replicas = meet_n;
    if (fail_n >= 1) {
        o->fewer_p99_known = 1;
        o->fewer_p99 = fail_p99;
        o->fewer_util = fail_util;
    }
    dam_quality_cost hour; /* an hour of the replicas, electricity too */
    o->cost_hour = o->price_hour > 0.0 &&
                           dam_quality_scenario_cost(s, meet_n, 3600.0,
                                                     o->utilization, &hour,
                                                     NULL) == DAM_OK
                       ? hour.usd
                       : 0.0;
    o->cost_per_1k = o->throughput > 0.0
                         ? o->cost_hour * 1000.0 / (o->throughput * 3600.0)
                         : 0.0;
done:
    dam_free(r);
    return rc;
}

/* Order: feasible by cost per 1k (unknown price last), then infeasible,
 * then unsupported; ties by replicas then id. */
static int rank(const dam_capacity_option *o)
{
    if (!o->supported)
        return 3;
    if (!o->feasible)
        return 2;
    return o->price_hour > 0.0 ? 0 : 1;
}

static int before(const dam_capacity_option *a, const dam_capacity_option *b)
{
    int ra = rank(a), rb = rank(b);
    if (ra != rb)
        return ra < rb;
    if (ra == 0 && a->cost_per_1k != b->cost_per_1k)
        return a->cost_per_1k < b->cost_per_1k;
    if (a->replicas != b->replicas)
        return a->replicas < b->replicas;
    return strcmp(a->gpu, b->gpu) < 0;
}

int dam_capacity_max_rate(const dam_scenario *s, double slo_s,
                          const dam_sim_options *opt, double *rate,
                          double *p99, double *upper, int *found,
                          int *evaluations, dam_error *err)
{
    *rate = 0.0;
    *p99 = 0.0;
    *found = 0;
    double hi = s->serving.replicas * replica_capacity(s);
    double cpu = cpu_capacity(s);
    if (cpu < hi)
        hi = cpu;
    *upper = hi;
    if (!isfinite(hi) || hi <= 0.0)
        return dam_error_set(err, s->file, 0,
                             "no finite service capacity to plan against "
                             "(zero work per request)");
    dam_result *r = dam_malloc(sizeof *r);
    int rc = DAM_OK;
    double lo = 0.0;
    const double tries[2] = {0.05, 0.5};
    for (int i = 0; i < 2 && !*found; i++) {
        if ((rc = dam_capacity_simulate(s, tries[i] * hi, 0, opt, r, err)) !=
            DAM_OK)
            goto done;
        (*evaluations)++;
        if (dam_capacity_meets(r, slo_s, 1.0)) {
            lo = tries[i] * hi;
            *found = 1;
            *p99 = r->serving.latency.p99;
        }
    }
    if (!*found)
        goto done;
    /* the GPUs' analytic capacity assumes full batches: when the
     * simulated replicas still meet the SLO there, widen the bracket until
     * a rate misses it. The CPU pool's capacity is a hard end: a queue
     * with nothing to spare is unstable, whatever a finite run shows. */
    for (int grow = 0; grow < 8 && hi < cpu; grow++) {
        if ((rc = dam_capacity_simulate(s, hi, 0, opt, r, err)) != DAM_OK)
            goto done;
        (*evaluations)++;
        if (!dam_capacity_meets(r, slo_s, 1.0))
            break;
        lo = hi;
        *p99 = r->serving.latency.p99;
        hi = 2.0 * hi < cpu ? 2.0 * hi : cpu;
    }
    for (int it = 0; it < 14 && hi - lo > 0.01 * lo; it++) {
        double mid = 0.5 * (lo + hi);
        if ((rc = dam_capacity_simulate(s, mid, 0, opt, r, err)) != DAM_OK)
            goto done;
        (*evaluations)++;
        if (dam_capacity_meets(r, slo_s, 1.0)) {
            lo = mid;
            *p99 = r->serving.latency.p99;
        } else {
            hi = mid;
        }
    }
    *rate = lo;
    *upper = hi;
done:
    dam_free(r);
    return rc;
}

int dam_capacity_plan(const dam_scenario *s, const dam_catalog *cat,
                      double slo_s, double rate, const dam_sim_options *opt,
                      dam_capacity_result *plan, dam_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (s->mode != DAM_MODE_SERVING)
        return dam_error_set(err, s->file, 0,
                             "capacity planning for an SLO needs a serving "
                             "scenario, got mode \"%s\"",
                             dam_mode_name(s->mode));
    if (!(slo_s > 0.0) || !isfinite(slo_s) || !(rate > 0.0) ||
        !isfinite(rate))
        return dam_error_set(err, "", 0,
                             "the SLO and the rate must be positive, got "
                             "%g s and %g/s",
                             slo_s, rate);
    plan->slo_s = slo_s;
    plan->rate = rate;
    /* progress: one unit per GPU kind and one for the top rate; the
     * simulations inside report nothing of their own */
    dam_sim_options inner;
    const dam_progress *progress = NULL;
    if (opt) {
        inner = *opt;
        inner.progress = NULL;
        progress = opt->progress;
        opt = &inner;
    }
    double units = (double)cat->ngpus + 1.0;
    dam_progress_report(progress, 0.0, units);
    dam_scenario *c = dam_malloc(sizeof *c);
    int rc = DAM_OK;
    for (size_t i = 0; i < cat->ngpus && plan->noptions < DAM_CAPACITY_MAX;
         dam_progress_report(progress, (double)++i, units)) {
        const dam_gpu *g = &cat->gpus[i];
        dam_capacity_option *o = &plan->options[plan->noptions++];
        memset(o, 0, sizeof *o);
        snprintf(o->gpu, sizeof o->gpu, "%s", g->id);
        if (g->peak[s->workload.precision] <= 0.0) {
            snprintf(o->why, sizeof o->why, "no %s support",
                     dam_precision_name(s->workload.precision));
            continue;
        }
        o->supported = 1;
        *c = *s;
        c->machine.gpu = *g;
        c->cost.gpu_hour_usd = dam_gpu_price(s, g);
        o->price_hour = c->cost.gpu_hour_usd;
        dam_result *r = dam_malloc(sizeof *r);
        dam_analytic_solve(c, r);
        int fits = r->memory.fits;
        double need = r->memory.total;
        dam_free(r);
        if (!fits) {
            snprintf(o->why, sizeof o->why,
                     "does not fit: %.3g GiB needed, %.3g GiB on the GPU",
                     need / DAM_GIB, g->mem_bytes / DAM_GIB);
            continue;
        }
        if ((rc = plan_gpu(c, slo_s, rate, opt, o, &plan->evaluations,
                           err)) != DAM_OK)
            goto done;
    }
    /* Insertion sort: a few dozen entries. */
    for (int i = 1; i < plan->noptions; i++) {
        dam_capacity_option t = plan->options[i];
        int j = i - 1;
        while (j >= 0 && before(&t, &plan->options[j])) {
            plan->options[j + 1] = plan->options[j];
            j--;
        }
        plan->options[j + 1] = t;
    }
    rc = dam_capacity_max_rate(s, slo_s, opt, &plan->max_rate,
                               &plan->max_rate_p99, &plan->max_rate_upper,
                               &plan->max_rate_found, &plan->evaluations,
                               err);
    dam_progress_report(progress, units, units);
done:
    dam_free(c);
    return rc;
}
