/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_serving_plan.c: the capacity planner (solver/capacity.h) on
 * scenarios/resnet50-serving-l4.cfg against three GPUs of the catalog (L4,
 * A100 40 GB, H100 SXM). Every answer, re-simulated, meets the SLO with
 * the planner's headroom and one GPU fewer does not (the answer's evidence
 * for one fewer is that run's, and a single replica shows none); options
 * are sorted by cost per 1,000 requests; the highest rate found for the
 * scenario's own deployment meets the SLO and the rate where the
 * bisection stopped misses it. A training scenario is refused.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "solver/capacity.h"

int main(void)
{
    static dam_catalog cat, three;
    dam_test_start(&cat);
    static dam_scenario s;
    dam_check_int(dam_test_scenario("resnet50-serving-l4.cfg", &cat, &s),
                  DAM_OK, "resnet50-serving-l4.cfg loads");

    const char *ids[3] = {"H100-SXM5-80GB", "A100-SXM4-40GB", "L4"};
    three.gpus = dam_calloc(3, sizeof *three.gpus);
    for (int i = 0; i < 3; i++)
        three.gpus[three.ngpus++] = *dam_catalog_gpu(&cat, ids[i]);

    dam_sim_options opt;
    memset(&opt, 0, sizeof opt);
    opt.steps = 5000;
    opt.replications = 3;
    static dam_capacity_result p;
    static dam_result r;
    dam_error e;
    double slo = 30e-3, rate = 1500.0;
    dam_check_int(dam_capacity_plan(&s, &three, slo, rate, &opt, &p, &e),
                  DAM_OK, "plan for 1,500 requests/s within 30 ms");
    int feasible = 0;
    for (int i = 0; i < p.noptions; i++) {
        const dam_capacity_option *o = &p.options[i];
        printf("  %-16s feasible %d replicas %d p99 %.3g ms util %.2f "
               "$%.4f/1k %s\n",
               o->gpu, o->feasible, o->replicas, o->p99 * 1e3,
               o->utilization, o->cost_per_1k, o->why);
        if (!o->feasible)
            continue;
        feasible++;
        const dam_gpu *g = dam_catalog_gpu(&cat, o->gpu);
        static dam_scenario c;
        c = s;
        c.machine.gpu = *g;
        dam_capacity_simulate(&c, rate, o->replicas, &opt, &r, &e);
        dam_check(dam_capacity_meets(&r, slo, DAM_CAPACITY_MAX_UTIL),
                  "%s x %d re-simulated meets the SLO (p99 %.3g +- %.2g ms, "
                  "%.0f %% busy)",
                  o->gpu, o->replicas, r.serving.latency.p99 * 1e3,
                  r.serving.p99_ci95 * 1e3, r.serving.utilization * 100.0);
        if (o->replicas > 1) {
            dam_capacity_simulate(&c, rate, o->replicas - 1, &opt, &r, &e);
            dam_check(!dam_capacity_meets(&r, slo, DAM_CAPACITY_MAX_UTIL),
                      "%s x %d (one fewer) does not (p99 %.3g ms, %.0f %% "
                      "busy)",
                      o->gpu, o->replicas - 1, r.serving.latency.p99 * 1e3,
                      r.serving.utilization * 100.0);
            /* the evidence the answer shows for one fewer is that run's
             * (the same inputs and seed: the same numbers) */
            dam_check(o->fewer_p99_known &&
                          fabs(o->fewer_p99 - r.serving.latency.p99) <=
                              1e-9 * r.serving.latency.p99 &&
                          fabs(o->fewer_util - r.serving.utilization) <=
                              1e-9 * r.serving.utilization,
                      "%s: the answer's evidence for %d replicas (p99 %.3g "
                      "ms, %.0f %% busy) is that run's",
                      o->gpu, o->replicas - 1, o->fewer_p99 * 1e3,
                      o->fewer_util * 100.0);
        } else {
            dam_check(!o->fewer_p99_known,
                      "%s x 1: no evidence for zero replicas", o->gpu);
        }
        if (i > 0 && p.options[i - 1].feasible &&
            o->price_hour > 0.0 && p.options[i - 1].price_hour > 0.0)
            dam_check(p.options[i - 1].cost_per_1k <= o->cost_per_1k,
                      "sorted: %s ($%.4f) before %s ($%.4f)",
                      p.options[i - 1].gpu, p.options[i - 1].cost_per_1k,
                      o->gpu, o->cost_per_1k);
    }
    dam_check(feasible >= 2, "at least two GPUs can serve the rate (%d)",
              feasible);
    /* a rate one replica of each GPU serves: one replica, and no "one
     * fewer" to show */
    static dam_capacity_result q;
    dam_check_int(dam_capacity_plan(&s, &three, slo, 50.0, &opt, &q, &e),
                  DAM_OK, "plan for 50 requests/s within 30 ms");
    for (int i = 0; i < q.noptions; i++) {
        const dam_capacity_option *o = &q.options[i];
        dam_check(o->feasible && o->replicas == 1 && !o->fewer_p99_known,
                  "%s at 50/s: 1 replica (%d), no evidence for 0 (%d)",
                  o->gpu, o->replicas, o->fewer_p99_known);
    }
    dam_check(p.options[0].feasible && strcmp(p.options[0].gpu, "L4") == 0,
              "cheapest first: %s", p.options[0].gpu);

    dam_check(p.max_rate_found && p.max_rate > 0.0,
              "2 x L4: highest rate meeting the SLO %.4g/s (fails at %.4g)",
              p.max_rate, p.max_rate_upper);
    dam_capacity_simulate(&s, p.max_rate, 0, &opt, &r, &e);
    dam_check(dam_capacity_meets(&r, slo, 1.0),
              "at %.4g/s the SLO is met (p99 %.3g ms)", p.max_rate,
              r.serving.latency.p99 * 1e3);
    /* the upper end is a simulated miss, or the CPU pool's capacity (a
     * queue with nothing to spare is unstable; a finite run may not show
     * it) */
    double cpu_cap = s.serving.preprocess_s > 0.0
                         ? s.serving.preprocess_workers / s.serving.preprocess_s
                         : (double)INFINITY;
    dam_capacity_simulate(&s, p.max_rate_upper, 0, &opt, &r, &e);
    dam_check(!dam_capacity_meets(&r, slo, 1.0) ||
                  p.max_rate_upper >= cpu_cap * (1.0 - 1e-9),
              "at %.4g/s it is missed (p99 %.3g ms) or the CPU pool (%.4g/s) "
              "is saturated",
              p.max_rate_upper, r.serving.latency.p99 * 1e3, cpu_cap);
    dam_check(p.max_rate_upper - p.max_rate <= 0.011 * p.max_rate,
              "bisection to 1 %%");

    s.mode = DAM_MODE_TRAINING;
    dam_check_int(dam_capacity_plan(&s, &three, slo, rate, &opt, &p, &e),
                  DAM_EINPUT, "a training scenario is refused");
    dam_catalog_free(&three);
    dam_catalog_free(&cat);
    return dam_check_done();
}
