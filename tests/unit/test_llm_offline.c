/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_llm_offline.c: server mode never beats offline (issues 21 and 29).
 *
 * For several deployments (models, GPUs, degrees, schedulers, capacity
 * policies), the highest arrival rate that `plan` finds meeting the TTFT
 * and TPOT objectives (dam_llm_plan_max_rate: Poisson arrivals, doubling
 * then bisection) must not exceed the offline throughput of the same
 * deployment (the same requests all queued at time 0, while saturated:
 * from the first completion to the moment a replica's queue runs dry, or
 * to the last completion where that is more). Measured engines sit at 0.88-0.93 of offline (issue 29);
 * a simulator whose server mode beats its own saturated run is wrong about
 * one of them. Loose objectives (5 s TTFT, 200 ms TPOT) put the highest
 * rate near saturation, where the property binds.
 *
 * Also: guaranteed-no-evict admission never preempts where
 * max-utilisation does, offline and in server mode.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/llm_plan.h"
#include "solver/sim.h"

static dam_catalog cat;

/* A serving scenario of `model` on `gpu` with llm keys `llm`. */
static int load(dam_scenario *s, const char *gpu, const char *model,
                const char *llm)
{
    char cfg[3000];
    snprintf(cfg, sizeof cfg,
             "scenario: { name = \"t\"; question = \"q\"; mode = "
             "\"serving\"; seed = 3; };\n"
             "machine: { gpu = \"%s\"; gpus_per_node = 8;\n"
             "  host: { cpu_cores = 8; pcie_gbs = 55.0; };\n"
             "  storage: { kind = \"local_nvme\"; read_gbs = 1.0; "
             "latency_ms = 0.0; };\n"
             "  network: { intra_busbw_gbs = 300.0; inter_busbw_gbs = 50.0; "
             "latency_us = 1.0; }; };\n"
             "workload: { model = \"%s\"; precision = \"bf16\"; "
             "batch_size = 1; cuda_graphs = true; launch_us = 5.0; "
             "framework_overhead_ms = 0.5; };\n"
             "serving: { arrival = \"poisson\"; rate_per_s = 1.0; };\n"
             "llm: { slo_ttft_ms = 5000.0; slo_tpot_ms = 200.0; %s };\n",
             gpu, model, llm);
    return dam_test_scenario_text(cfg, &cat, s);
}

static void check_ordered(const char *what, const char *gpu,
                          const char *model, const char *llm,
                          int preempts)
{
    static dam_scenario s;
    static dam_llm_plan p;
    int ok = load(&s, gpu, model, llm) == DAM_OK;
    dam_check(ok, "%s loads", what);
    if (!ok)
        return;
    dam_sim_options o = dam_test_options(0, 800, 2, 0);
    memset(&p, 0, sizeof p);
    p.rate = 0.5;
    dam_error e;
    int rc = dam_llm_plan_max_rate(&s, &o, &p, &e);
    ok = rc == DAM_OK && p.offline_found && p.max_rate_found;
    dam_check(ok, "%s: a highest rate and an offline run (%s)", what,
              rc == DAM_OK ? "ok" : e.msg);
    if (!ok)
        return;
    printf("  %s: highest SLO rate %.4g/s, offline %.4g/s (%.2f)\n", what,
           p.max_rate, p.offline_rate, p.max_rate / p.offline_rate);
    dam_check(p.max_rate <= p.offline_rate,
              "%s: the highest rate (%.4g/s) does not exceed the offline "
              "throughput (%.4g/s)",
              what, p.max_rate, p.offline_rate);
    /* the search brackets the highest rate: it met at max_rate and missed
     * at max_rate_upper, within the bracket (eight halvings of the last
     * doubling leave 1/256 of it, inside the bracket too) */
    dam_check(p.max_rate_upper > p.max_rate &&
                  p.max_rate_upper - p.max_rate <=
                      DAM_LLM_RATE_BRACKET * p.max_rate * (1.0 + 1e-12),
              "%s: the search brackets the highest rate (%.4g to %.4g/s)",
              what, p.max_rate, p.max_rate_upper);
    /* and, where nothing is preempted, it is not far below: with loose
     * objectives only saturation stops it. Under max-utilisation with a
     * small cache, Poisson bursts over-admit and preempt (recomputing the
     * evicted prefixes), so the server's capacity can sit well below the
     * offline run of the same requests (0.35-0.6 of it on seeds 0-7):
     * there only the ordering above binds. */
    if (!preempts)
        dam_check(p.max_rate > 0.5 * p.offline_rate,
                  "%s: loose objectives put the highest rate near "
                  "saturation (%.4g of %.4g/s)",
                  what, p.max_rate, p.offline_rate);
}

static void check_no_evict(void)
{
    static dam_scenario s;
    static dam_result r;
    /* a small cache (memory_fraction 0.215 of an H100: ~18,000 tokens)
     * and long answers */
    const char *keys = "input_tokens = 1500; output_tokens = 600; "
                       "output_cv = 0.5; output_max = 2000; "
                       "input_max = 1500; memory_fraction = 0.215; "
                       "token_budget = 2048;";
    char k2[512];
    dam_sim_options o = dam_test_options(0, 600, 2, 0);
    o.llm_offline = 1;
    dam_error e;
    for (int pol = 0; pol < 2; pol++) {
        snprintf(k2, sizeof k2, "%s capacity_policy = \"%s\";", keys,
                 pol ? "guaranteed_no_evict" : "max_utilization");
        load(&s, "H100-SXM5-80GB", "llama3-8b", k2);
        s.serving.rate = 6.0;
        dam_analytic_solve(&s, &r);
        int rc = dam_sim_llm(&s, &o, &r, NULL, &e);
        const dam_llm_result *l = &r.serving.llm;
        dam_check(rc == DAM_OK && l->has_offline, "policy %d runs", pol);
        if (rc != DAM_OK || !l->has_offline)
            continue;
        printf("  %s: preemptions %.3g per request (offline %.3g), "
               "running peak %.0f, offline %.4g/s\n",
               pol ? "no-evict" : "max-util", l->preemptions,
               l->offline_preemptions, l->running_peak,
               l->offline_throughput);
        if (pol) {
            dam_check(l->preemptions == 0.0 &&
                          l->offline_preemptions == 0.0,
                      "guaranteed no evict never preempts");
            /* every running request holds its whole reservation */
            double per = ceil((1500.0 + 600.0) / 16.0);
            dam_check(l->running_peak <= ceil(l->memory.blocks / per) + 1,
                      "no-evict admits at most what fits (%.0f, pool of "
                      "%.0f blocks)",
                      l->running_peak, l->memory.blocks);
        } else {
            dam_check(l->offline_preemptions > 0.0,
                      "max-utilisation preempts offline (%.3g)",
                      l->offline_preemptions);
        }
        dam_check(l->kv_use_peak <= 1.0 + 1e-12, "cache never over-full");
    }
}

/* Simulate s over `requests` requests (one replication) with its offline
 * run: 1 when both ran. */
static int run_with_offline(const dam_scenario *s, int requests,
                            dam_result *r, const char *what)
{
    dam_error e;
    dam_sim_options o = dam_test_options(0, requests, 1, 0);
    o.llm_offline = 1;
    dam_analytic_solve(s, r);
    int ok = dam_sim_llm(s, &o, r, NULL, &e) == DAM_OK &&
             r->serving.llm.has_offline;
    dam_check(ok, "%s runs", what);
    return ok;
}

/* A batch whose last long requests drain in a part-filled batch: the
 * makespan rate holds that drain, the saturated rate does not, and the
 * service under overload reaches the saturated rate, not beyond it (the
 * property test's seed-5 case: the service read 136 % of the makespan
 * rate it was said to be capped by). */
static void check_drain(void)
{
    static dam_scenario s;
    static dam_result r;
    int ok = load(&s, "B300-HGX-288GB", "llama2-70b",
                  "tp = 8; input_tokens = 16; input_cv = 0.25; "
                  "input_max = 64; output_tokens = 318; output_cv = 0.68; "
                  "output_max = 1272; max_seqs = 45;") == DAM_OK;
    dam_check(ok, "the drain scenario loads");
    if (!ok)
        return;
    s.serving.rate = 30.0; /* over the ~20/s it serves */
    if (!run_with_offline(&s, 492, &r, "the drain scenario"))
        return;
    const dam_llm_result *l = &r.serving.llm;
    printf("  drain: served %.6g output tokens/s; offline saturated %.6g "
           "(%.4g to %.4g s), to the last completion %.4g (%.4g s)\n",
           l->tokens_per_s, l->offline_saturated_tokens_per_s,
           l->offline_saturated_from_s, l->offline_saturated_s,
           l->offline_tokens_per_s, l->offline_makespan_s);
    dam_check(l->offline_saturated_s > l->offline_saturated_from_s &&
                  l->offline_saturated_s < l->offline_makespan_s,
              "a saturated window inside the run");
    /* the margins hold on every seed base 0-20 (tests/seeds/run.sh):
     * the drain costs the makespan rate 9 to 19 % of the saturated */
    dam_check(l->offline_saturated_tokens_per_s >
                  1.05 * l->offline_tokens_per_s,
              "the drain holds the makespan rate back (saturated %.4g, "
              "makespan %.4g)",
              l->offline_saturated_tokens_per_s, l->offline_tokens_per_s);
    dam_check(l->tokens_per_s <= 1.05 * l->offline_saturated_tokens_per_s,
              "the service (%.4g) within 5 %% of the saturated rate (%.4g)",
              l->tokens_per_s, l->offline_saturated_tokens_per_s);
    dam_check(l->tokens_per_s > 1.05 * l->offline_tokens_per_s,
              "and over the makespan rate (%.4g), which it was said to be "
              "capped by",
              l->offline_tokens_per_s);
}

/* A batch of a few slots' worth: too small to saturate the deployment
 * for a request's service time, so its saturated rate comes from a batch
 * of 4 x its slots (the property test's seed-8 case: 228 requests on 3 x
 * 47 slots; the service read 108 % of the makespan rate). */
static void check_small_batch(void)
{
    static dam_scenario s;
    static dam_result r;
    if (load(&s, "H100-SXM5-80GB", "llama3-8b",
             "input_tokens = 192; input_cv = 0.01; input_max = 768; "
             "output_tokens = 440; output_cv = 0.37; output_max = 1760; "
             "max_seqs = 47;") != DAM_OK)
        return;
    s.serving.replicas = 3;
    s.serving.rate = 60.0;
    if (!run_with_offline(&s, 228, &r, "the small batch"))
        return;
    const dam_llm_result *l = &r.serving.llm;
    printf("  small batch: served %.6g output tokens/s; saturated %.6g on "
           "%.0f requests; the 228 to the last completion %.6g\n",
           l->tokens_per_s, l->offline_saturated_tokens_per_s,
           l->offline_saturated_requests, l->offline_tokens_per_s);
    dam_check(l->offline_saturated_requests == 4.0 * 47 * 3,
              "measured on 4 x 3 x 47 requests (%.0f)",
              l->offline_saturated_requests);
    dam_check(l->tokens_per_s <= 1.05 * l->offline_saturated_tokens_per_s,
              "the service within 5 %% of the saturated rate");
    /* the service of 228 requests at twice the capacity reads 0.9 to
     * 1.5 x the small batch's makespan rate, seed by seed (bases 0-20):
     * that ratio is no check; the saturated rate's margin over the
     * makespan rate is (1.55 x or more on every base) */
    dam_check(l->offline_saturated_tokens_per_s >
                  1.3 * l->offline_tokens_per_s,
              "the small batch's makespan rate (%.4g) well under the "
              "deployment's saturated rate (why it is not the ceiling)",
              l->offline_tokens_per_s);
}

int main(void)
{
    dam_test_start(&cat);
    check_ordered("8B on H100, chunked", "H100-SXM5-80GB", "llama3-8b",
                  "input_tokens = 1000; input_cv = 0.5; input_max = 4000; "
                  "output_tokens = 200; output_cv = 0.5; "
                  "output_max = 1000;", 0);
    check_ordered("8B on A100 80GB, whole prompts", "A100-SXM4-80GB",
                  "llama3-8b",
                  "input_tokens = 500; input_cv = 0.5; input_max = 4096; "
                  "output_tokens = 300; output_max = 2000; "
                  "chunked_prefill = false; token_budget = 4096;", 0);
    check_ordered("70B on 4 H200, no-evict", "H200-SXM-141GB", "llama3-70b",
                  "tp = 4; input_tokens = 2000; output_tokens = 500; "
                  "capacity_policy = \"guaranteed_no_evict\";", 0);
    check_ordered("8B on H100, small cache, max-utilisation",
                  "H100-SXM5-80GB", "llama3-8b",
                  "input_tokens = 1500; input_max = 1500; "
                  "output_tokens = 600; output_cv = 0.5; output_max = 2000; "
                  "memory_fraction = 0.215; token_budget = 2048;", 1);
    check_no_evict();
    check_drain();
    check_small_batch();
    return dam_check_done();
}
