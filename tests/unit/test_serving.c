/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_serving.c: the serving simulator and its diagnosis on the reference
 * text's 30 ms service (scenarios/serving-30ms-slo.cfg): deterministic
 * times give 12 + 8 + 10 + 10 = 40 ms per request (to 1e-6); a GPU that
 * cuts inference to 7 ms gives 37 ms and still misses the 30 ms SLO, and
 * the diagnosis names preprocessing as what binds and the GPU as wasted;
 * an H200 (4.8 vs 3.35 TB/s) gives the reference's ~7 ms. Then a batcher
 * that meets its SLO at max_batch 1 and misses it at 16 at low load
 * (batching wait), the reverse as the load grows (queue wait), with the
 * phase that changed named; determinism; and arrival traces (file:line
 * errors, and a trace reproducing the deterministic run).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/arrivals.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/diagnose.h"
#include "solver/sim.h"

static dam_catalog cat;

static int load_file(const char *name, dam_scenario *s)
{
    return dam_test_scenario(name, &cat, s);
}

static int contains(const dam_diagnosis *d, const char *what)
{
    if (strstr(d->headline, what))
        return 1;
    for (int i = 0; i < d->nevidence; i++)
        if (strstr(d->evidence[i], what))
            return 1;
    return 0;
}

static const dam_advice *find(const dam_advice *a, int n, dam_lever_kind k)
{
    for (int i = 0; i < n; i++)
        if (a[i].kind == k)
            return &a[i];
    return NULL;
}

static void check_phases(const dam_result *r, const double want[6],
                         const char *what)
{
    for (int i = 0; i < DAM_SPHASE_COUNT; i++) {
        const dam_stat *st = &r->serving.phase[i];
        char buf[128];
        snprintf(buf, sizeof buf, "%s: %s mean %.6g ms", what,
                 dam_serving_phase_name(i), want[i] * 1e3);
        if (want[i] == 0.0)
            dam_check(fabs(st->mean) < 1e-12 && fabs(st->p99) < 1e-12,
                      "%s (got %g, p99 %g)", buf, st->mean, st->p99);
        else
            dam_check(fabs(st->mean - want[i]) <= 1e-6 * want[i] &&
                          fabs(st->p99 - want[i]) <= 1e-6 * want[i],
                      "%s (got %.9g, p99 %.9g)", buf, st->mean * 1e3,
                      st->p99 * 1e3);
    }
}

/* A toy serving system: compute T(b) = max(b * 0.2 ms, 4 ms) (weights read
 * once per batch: 1e9 fp32 parameters at 1 TB/s), no copy, no pre/post. */
static const char batching_cfg[] =
    "scenario: { name = \"batcher\"; question = \"q\"; mode = \"serving\";"
    " seed = 5; };\n"
    "machine: { gpu = { id = \"toy\"; name = \"toy\"; peak_tflops = { fp32 ="
    " 1.0; }; hbm_gib = 16.0; hbm_gbs = 1000.0; }; gpus_per_node = 1;\n"
    "  host: { cpu_cores = 8; pcie_gbs = 16.0; };\n"
    "  storage: { kind = \"local_nvme\"; read_gbs = 1.0; latency_ms = 0.0; };"
    " };\n"
    "workload: { model = { id = \"w\"; params = 1.0e9; flops_per_sample ="
    " 2.0e8; input_bytes = 0.0; raw_bytes = 0.0; activation_bytes = 0.0;"
    " layers = 1; };\n"
    "  precision = \"fp32\"; batch_size = 1; efficiency = 1.0;"
    " memory_efficiency = 1.0; kernels_per_step = 0; launch_us = 0.0;"
    " framework_overhead_ms = 0.0; };\n"
    "serving: { arrival = \"poisson\"; rate_per_s = 50.0; preprocess_ms ="
    " 0.0; max_batch = 1; batch_timeout_ms = 20.0; replicas = 1;"
    " slo_p99_ms = 20.0; request_bytes = 0.0; requests = 20000;"
    " replications = 5; };\n";

/* A batch's compute is its roofline time plus the launches and framework
 * on top: the means the simulation reports split the compute phase's mean
 * exactly so (one replication: the same requests), however few requests
 * are measured (one included), and the overhead of a real GPU's kernels
 * is not zero. */
static void compute_split(void)
{
    static dam_scenario s;
    static dam_result r;
    if (load_file("resnet50-serving-l4.cfg", &s) != DAM_OK)
        return;
    static const long counts[] = {1, 2, 500};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        dam_sim_options opt;
        memset(&opt, 0, sizeof opt);
        opt.warmup = 0;
        opt.steps = counts[i];
        opt.replications = 1;
        int rc = dam_test_simulate(&s, &opt, &r);
        const dam_serving_result *sv = &r.serving;
        double comp = sv->phase[DAM_SPHASE_COMPUTE].mean;
        dam_check(rc == DAM_OK && sv->compute_overhead > 0.0 &&
                      fabs(sv->compute_roof + sv->compute_overhead - comp) <=
                          1e-9 * comp,
                  "%ld measured: compute %.4g ms = roofline %.4g + overhead "
                  "%.4g ms", counts[i], comp * 1e3, sv->compute_roof * 1e3,
                  sv->compute_overhead * 1e3);
    }
}

int main(void)
{
    dam_test_start(&cat);

    static dam_scenario s, s2;
    static dam_result r, r2;
    static dam_diagnosis dg;
    dam_sim_options opt;
    memset(&opt, 0, sizeof opt);

    /* ---- the reference's 40 ms service ------------------------------- */
    dam_check_int(load_file("serving-30ms-slo.cfg", &s), DAM_OK,
                  "serving-30ms-slo.cfg loads");
    dam_check_int(dam_test_simulate(&s, &opt, &r), DAM_OK, "40 ms service simulates");
    const double base[6] = {0.0, 8e-3, 12e-3, 10e-3, 10e-3, 0.0};
    check_phases(&r, base, "40 ms service");
    dam_check(fabs(r.serving.latency.mean - 40e-3) <= 40e-9 &&
                  fabs(r.serving.latency.p99 - 40e-3) <= 40e-9,
              "end to end 12 + 8 + 10 + 10 = 40 ms (mean %.9g, p99 %.9g ms)",
              r.serving.latency.mean * 1e3, r.serving.latency.p99 * 1e3);
    dam_check_rel(r.step, 40e-3, 1e-6, "step = mean latency 40 ms");
    double tsum = 0.0;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        tsum += r.terms[t];
    dam_check_rel(tsum, r.step, 1e-9, "terms sum to the mean latency");
    dam_check_rel(r.terms[DAM_TERM_DATA], 20e-3, 1e-6,
                  "data term = preprocess 12 + batching 8 ms");
    dam_check(r.serving.slo_attainment == 0.0,
              "no request within 30 ms (attainment %g)",
              r.serving.slo_attainment);
    dam_check_rel(r.serving.throughput, 20.0, 1e-3, "throughput 20/s");
    dam_check_rel(r.serving.utilization, 0.4, 1e-3,
                  "replica held 20 ms of every 50 ms");
    dam_check_rel(r.serving.mean_batch, 1.0, 1e-12,
                  "every batch leaves at the timeout holding one request");
    dam_check_rel(r.serving.cost_per_1k, 1000.0 / 20.0 * 12.29 / 3600.0,
                  1e-3, "cost per 1k = 50 s of one $12.29/h GPU");
    dam_check_str(dam_bound_name(r.bound), "preprocessing",
                  "what binds: preprocessing (the largest phase, 12 ms)");
    /* pageable copies run at pageable_fraction of the link: 10 ms pinned,
     * 10 / 0.5 = 20 ms pageable (mutation testing: the link divided by
     * the fraction, 5 ms, went unnoticed) */
    s2 = s;
    s2.pipeline.pin_memory = 0;
    s2.machine.pageable_fraction = 0.5;
    dam_check_int(dam_test_simulate(&s2, &opt, &r2), DAM_OK,
                  "pageable copies simulate");
    dam_check_rel(r2.serving.phase[DAM_SPHASE_TRANSFER].mean, 20e-3, 1e-6,
                  "pageable: the 10 ms copy at half the link takes 20 ms");
    dam_diagnose(&s, &r, &dg);
    dam_check(strstr(dg.headline, "preprocessing") != NULL &&
                  strstr(dg.headline, "misses") != NULL,
              "headline: %s", dg.headline);
    const dam_advice *gpu = find(dg.wasted, dg.nwasted, DAM_LEVER_GPU);
    dam_check(gpu != NULL, "a faster GPU is listed as wasted");
    if (gpu)
        dam_check(strstr(gpu->why, "~37 ms") != NULL &&
                      strstr(gpu->why, "30 ms remain") != NULL,
                  "and why: %s", gpu->why);
    dam_check(contains(&dg, "still take 30 ms (not under the 30 ms SLO)"),
              "evidence: without inference 30 ms remain, not under 30 ms");
    dam_check(find(dg.works, dg.nworks, DAM_LEVER_SERVING) != NULL,
              "the batching timeout (serving lever) works");
    dam_check(strstr(dg.anti_pattern, "hardware crutch") != NULL,
              "anti-pattern: %s", dg.anti_pattern);

    /* A recorded timeline of the first requests. */
    dam_trace tr;
    dam_trace_init(&tr);
    dam_sim_options topt = opt;
    topt.trace_steps = 5;
    dam_error te;
    dam_check_int(dam_sim_serving(&s, &topt, &r2, &tr, &te), DAM_OK,
                  "simulation with a trace");
    int npre = 0, ncopy = 0, nfwd = 0;
    for (size_t i = 0; i < tr.nspans; i++) {
        npre += tr.spans[i].kind == DAM_SPAN_PREPROCESS;
        ncopy += tr.spans[i].kind == DAM_SPAN_COPY;
        nfwd += tr.spans[i].kind == DAM_SPAN_FORWARD;
    }
    dam_check(npre == 5 && ncopy == 5 && nfwd == 5 && tr.nlanes == 6,
              "trace: 5 preprocess, copy and forward spans on 6 lanes "
              "(got %d, %d, %d on %zu)",
              npre, ncopy, nfwd, tr.nlanes);
    dam_check(tr.nspans > 0 && fabs(tr.spans[0].end - tr.spans[0].start -
                                    12e-3) < 1e-12,
              "the first span is a 12 ms preprocess");
    dam_trace_free(&tr);

    /* Same seed, same numbers. */
    dam_check_int(dam_test_simulate(&s, &opt, &r2), DAM_OK, "second run");
    dam_check(memcmp(&r.serving, &r2.serving, sizeof r.serving) == 0,
              "same scenario and seed: identical serving figures");

    /* ---- the faster GPU: inference 10 -> 7 ms --------------------------- */
    s2 = s;
    s2.machine.gpu.mem_bw *= 10.0 / 7.0;
    dam_check_int(dam_test_simulate(&s2, &opt, &r2), DAM_OK, "faster GPU simulates");
    const double fast[6] = {0.0, 8e-3, 12e-3, 10e-3, 7e-3, 0.0};
    check_phases(&r2, fast, "faster GPU");
    dam_check_rel(r2.serving.latency.p99, 37e-3, 1e-6,
                  "12 + 8 + 10 + 7 = 37 ms");
    dam_check(r2.serving.latency.p99 > s2.serving.slo_p99_s &&
                  r2.serving.slo_attainment == 0.0,
              "37 ms still misses the 30 ms SLO");
    dam_check_str(dam_bound_name(r2.bound), "preprocessing",
                  "preprocessing still binds after the GPU upgrade");
    dam_diagnose(&s2, &r2, &dg);
    gpu = find(dg.wasted, dg.nwasted, DAM_LEVER_GPU);
    dam_check(gpu != NULL && strstr(gpu->why, "preprocessing") != NULL,
              "the diagnosis names what binds instead: %s",
              gpu ? gpu->why : "(none)");
    const dam_gpu *h200 = dam_catalog_gpu(&cat, "H200-SXM-141GB");
    s2 = s;
    s2.machine.gpu = *h200;
    dam_test_simulate(&s2, &opt, &r2);
    dam_check(fabs(r2.serving.phase[DAM_SPHASE_COMPUTE].mean - 7e-3) < 0.05e-3,
              "H200 (4.8 vs 3.35 TB/s): inference %.4g ms, the reference's 7",
              r2.serving.phase[DAM_SPHASE_COMPUTE].mean * 1e3);

    /* Cutting the batching timeout: 32 ms, still over (12 + 10 + 10). */
    s2 = s;
    s2.serving.batch_timeout_s = 0.0;
    dam_test_simulate(&s2, &opt, &r2);
    dam_check_rel(r2.serving.latency.p99, 32e-3, 1e-6,
                  "no batching wait: 32 ms");

    /* ---- batch 1 meets, batch 16 misses at low load -------------------- */
    dam_check_int(dam_test_scenario_text(batching_cfg, &cat, &s), DAM_OK, "toy batcher loads");
    dam_test_simulate(&s, &opt, &r);
    s2 = s;
    s2.serving.max_batch = 16;
    dam_test_simulate(&s2, &opt, &r2);
    printf("  batch 1: p99 %.3g ms; batch 16: p99 %.3g ms\n",
           r.serving.latency.p99 * 1e3, r2.serving.latency.p99 * 1e3);
    dam_check(r.serving.latency.p99 + r.serving.p99_ci95 <= 20e-3,
              "50/s: max_batch 1 meets the 20 ms SLO (p99 %.3g ms)",
              r.serving.latency.p99 * 1e3);
    dam_check(r2.serving.latency.p99 > 20e-3,
              "50/s: max_batch 16 with a 20 ms timeout misses (p99 %.3g ms)",
              r2.serving.latency.p99 * 1e3);
    char why[256];
    int ph = dam_diagnose_serving_change(&r, &r2, why, sizeof why);
    printf("  %s\n", why);
    dam_check_str(dam_serving_phase_name(ph), "batching",
                  "the phase that changed: batching wait");
    dam_diagnose(&s2, &r2, &dg);
    dam_check(strstr(dg.headline, "batching wait") != NULL &&
                  r2.bound == DAM_BOUND_LATENCY,
              "diagnosis at 16: %s", dg.headline);
    dam_check(find(dg.works, dg.nworks, DAM_LEVER_SERVING) != NULL &&
                  find(dg.wasted, dg.nwasted, DAM_LEVER_GPU) != NULL,
              "batcher settings work, a faster GPU is wasted");

    /* ---- the reverse as the load grows: 400/s ------------------------- */
    s.serving.rate = 400.0;
    s.serving.batch_timeout_s = 2e-3;
    dam_test_simulate(&s, &opt, &r);
    s2 = s;
    s2.serving.max_batch = 16;
    dam_test_simulate(&s2, &opt, &r2);
    dam_check(r.serving.latency.p99 > 20e-3 && r.serving.utilization > 0.95,
              "400/s: max_batch 1 saturates (4 ms each, 250/s): p99 %.3g "
              "ms, %.0f %% busy",
              r.serving.latency.p99 * 1e3, r.serving.utilization * 100.0);
    dam_check(r2.serving.latency.p99 + r2.serving.p99_ci95 <= 20e-3,
              "400/s: max_batch 16 meets (p99 %.3g ms, mean batch %.2g)",
              r2.serving.latency.p99 * 1e3, r2.serving.mean_batch);
    ph = dam_diagnose_serving_change(&r, &r2, why, sizeof why);
    printf("  %s\n", why);
    dam_check_str(dam_serving_phase_name(ph), "queue",
                  "the phase that changed: queue wait");
    dam_diagnose(&s, &r, &dg);
    dam_check(r.bound == DAM_BOUND_QUEUEING &&
                  find(dg.works, dg.nworks, DAM_LEVER_SERVING) != NULL,
              "diagnosis at batch 1: %s", dg.headline);
    dam_diagnose(&s2, &r2, &dg);
    dam_check(r2.bound == DAM_BOUND_WEIGHTS,
              "at batch 16 the weight reads bind: %s", dg.headline);

    /* ---- arrival traces ------------------------------------------------ */
    const char *good = "serving_trace_good.csv";
    FILE *f = fopen(good, "w");
    fprintf(f, "timestamp_s,request\n# every 50 ms\n");
    for (int i = 0; i < 400; i++)
        fprintf(f, "%.17g,%d\n", i * 0.05, i);
    fclose(f);
    double *times = NULL;
    size_t n = 0;
    dam_diag d;
    dam_diag_init(&d);
    dam_check_int(dam_arrivals_load(good, &times, &n, &d), DAM_OK,
                  "a trace with a header and a comment loads");
    dam_check_int((long)n, 400, "400 arrivals");
    dam_diag_free(&d);
    load_file("serving-30ms-slo.cfg", &s);
    s.serving.arrival = DAM_ARRIVAL_TRACE;
    dam_sim_options to = opt;
    dam_error e;
    dam_analytic_solve(&s, &r);
    dam_check_int(dam_sim_serving(&s, &to, &r, NULL, &e), DAM_EINPUT,
                  "trace arrival without arrivals is an input error");
    to.arrivals = times;
    to.narrivals = n;
    dam_check_int(dam_test_simulate(&s, &to, &r), DAM_OK, "trace simulates");
    dam_check_rel(r.serving.latency.p99, 40e-3, 1e-6,
                  "a 50 ms trace reproduces the 40 ms service");
    dam_check_rel(r.sim_steps, 360.0, 0.0, "360 requests after warm-up");
    dam_free(times);

    const char *bad = "serving_trace_bad.csv";
    f = fopen(bad, "w");
    fprintf(f, "0.0\n0.5\n0.25\n-1\nabc\n7\n");
    fclose(f);
    dam_diag_init(&d);
    dam_check_int(dam_arrivals_load(bad, &times, &n, &d), DAM_EINPUT,
                  "a bad trace fails");
    /* bad times are each reported; the first line that is not a number
     * ends the reading (a file that is not a trace is never echoed) */
    dam_check_int(d.nerr, 3, "three bad lines reported");
    if (d.nerr == 3) {
        dam_check(d.items[0].line == 3 &&
                      strstr(d.items[0].msg, "must not decrease") != NULL,
                  "line 3: %s", d.items[0].msg);
        dam_check(d.items[1].line == 4, "line 4: %s", d.items[1].msg);
        dam_check(d.items[2].line == 5 &&
                      strstr(d.items[2].msg, "\"a\"") != NULL,
                  "line 5 quotes only the byte that breaks the number: %s",
                  d.items[2].msg);
    }
    dam_diag_free(&d);
    dam_diag_init(&d);
    dam_check_int(dam_arrivals_load("no-such-trace.csv", &times, &n, &d),
                  DAM_EINPUT, "a missing trace fails");
    dam_diag_free(&d);
    remove(good);
    remove(bad);

    compute_split();
    dam_catalog_free(&cat);
    return dam_check_done();
}
