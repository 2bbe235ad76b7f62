/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_hand_counts.c: the analytic solver's byte counts against numbers
 * counted by hand or published, never against the formula that computes
 * them (mutation testing, tests/mutate/, found these formulas unguarded:
 * halving the optimizer's traffic passed every other test).
 *
 *  - Optimizer step traffic per parameter. Adam in mixed precision (bf16
 *    weights and gradients, fp32 master copy and moments), element by
 *    element: read and write the fp32 master weight (4 + 4 B), read and
 *    write the first moment m (4 + 4) and the second moment v (4 + 4),
 *    read the bf16 gradient (2), write the bf16 working copy of the
 *    weight (2): 28 B. Adam in fp32: master 4 + 4, m 4 + 4, v 4 + 4,
 *    gradient 4, no copy: 28 B. SGD with momentum in bf16: weight 4 + 4,
 *    momentum 4 + 4, gradient 2, copy 2: 20 B. On 1e9 parameters and
 *    1 TB/s of effective bandwidth (2,000 GB/s x memory_efficiency 0.5)
 *    the step takes 28 ms, 28 ms and 20 ms; inference has none.
 *  - Model-state memory, ZeRO (Rajbhandari et al. 2020, section 3.1 and
 *    Figure 1): mixed-precision Adam keeps 2 + 2 + 12 = 16 B per parameter
 *    (fp16 weights, fp16 gradients; fp32 master, momentum, variance). For
 *    7.5e9 parameters on 64 data-parallel GPUs: 120 GB without ZeRO;
 *    stage 1 shards the 12: 2 + 2 + 12/64 = 4.1875 B, 31.4 GB; stage 2 the
 *    gradients too: 2 + 14/64, 16.6 GB; stage 3 everything: 16/64, 1.9 GB
 *    (the paper's figures, to its rounding).
 *  - Gradient sync, same model and GPUs (8 nodes x 8, 200 GB/s inside a
 *    node, 50 GB/s across, 5 us per hop, PyTorch DDP's default 25 MB
 *    buckets). Without ZeRO the ring all-reduce moves the fp16 gradients,
 *    15e9 B: 2 x 7/8 x 15e9 / 200e9 = 0.13125 s inside the nodes plus
 *    2 x 7/8 x 15e9 / 50e9 = 0.525 s across them, and 600 buckets x
 *    (14 + 14) hops x 5 us = 0.084 s of latency: 0.74025 s. ZeRO stage 3
 *    moves 3 Psi instead of 2 Psi (all-gather of the parameters in forward
 *    and again in backward, reduce-scatter of the gradients; section
 *    7.2.2): 22.5e9 B, 0.984375 s of bandwidth and 900 x 28 x 5 us =
 *    0.126 s of latency. Stages 1 and 2 move what the all-reduce does
 *    (a reduce-scatter and an all-gather: 2 Psi; section 7.2.1).
 *  - Work per step: forward only in inference, forward plus a backward of
 *    twice its work in training (gradients with respect to activations
 *    and to weights), one more forward with activation recomputation: the
 *    compute phases of a batch of 8 carry 8 x 1e12 FLOPs x 1, 3 and 4.
 *  - 2:4 structured sparsity in inference: the matmul phase runs at twice
 *    the peak (40 -> 20 ms for 8 x 1e12 FLOPs at 400 TFLOP/s x 0.5), an
 *    elementwise phase does not, and fp16 weights take 36 of every 64
 *    bits (2 of 4 values plus two 2-bit indices).
 *  - A grouped convolution from a layer table (64 -> 128 channels, 3x3,
 *    32 groups, 28x28 output): each output channel sees 64/32 = 2 input
 *    channels, so 128 x 2 x 9 = 2,304 weights and 28 x 28 x 2,304 =
 *    1,806,336 multiply-adds, 3,612,672 FLOPs per sample.
 *  - Calibration inverted by hand. The compute-bound worked example
 *    (0.17 s data + 0.64 s compute + 0.05 s overhead, 7.68 GFLOP at
 *    20 GFLOP/s x eta 0.6): the eta that makes the step 1.5 s leaves
 *    1.28 s for compute, 7.68e9 / (1.28 x 20e9) = 0.3. The kernel-class
 *    split of the two-phase model of the 2:4 check: GEMM 40 ms (its
 *    matmul phase), elementwise 0.8 ms (8 x 1e8 B at 1 TB/s, above its
 *    0.4 ms of FLOPs), attention 0.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/lever.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/calibrate.h"

static dam_catalog cat;

/* A training scenario on a made-up GPU with round numbers. */
static int load_phases(dam_scenario *s, double params, const char *prec,
                       const char *opt, int nodes, int zero,
                       const char *mode, const char *phases)
{
    char text[2048];
    snprintf(text, sizeof text,
             "scenario: { name = \"counts\"; question = \"q\"; mode = "
             "\"%s\"; };\n"
             "machine: { gpu = { id = \"round\"; name = \"round\"; "
             "peak_tflops = { fp32 = 100.0; bf16 = 400.0; fp16 = 400.0; }; "
             "hbm_gib = 1000.0; hbm_gbs = 2000.0; }; gpus_per_node = 8; "
             "nodes = %d;\n"
             "  host: { cpu_cores = 64; pcie_gbs = 16.0; };\n"
             "  storage: { kind = \"page_cache\"; read_gbs = 100.0; };\n"
             "  network: { intra_busbw_gbs = 200.0; inter_busbw_gbs = 50.0; "
             "latency_us = 5.0; }; };\n"
             "workload: { model = { id = \"m\"; params = %.10e; "
             "flops_per_sample = 1.0e12; input_bytes = 1000.0; raw_bytes = "
             "1000.0; activation_bytes = 1.0e6; layers = 10; %s };\n"
             "  precision = \"%s\"; batch_size = 8; efficiency = 0.5; "
             "memory_efficiency = 0.5; optimizer = \"%s\"; zero_stage = "
             "%d; };\n"
             "data: { samples = 1.0e6; decode_ms = 0.0; };\n"
             "pipeline: { loader_workers = 8; };\n",
             mode, nodes, params, phases, prec, opt, zero);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_scenario_load(s, "counts.cfg", text, &cat, &d);
    for (size_t i = 0; i < d.n; i++)
        printf("  %d: %s\n", d.items[i].line, d.items[i].msg);
    dam_diag_free(&d);
    return rc;
}

/* The same with the loader's default phase (one matmul, all weights). */
static int load(dam_scenario *s, double params, const char *prec,
                const char *opt, int nodes, int zero, const char *mode)
{
    return load_phases(s, params, prec, opt, nodes, zero, mode, "");
}

/* Optimizer traffic of one setup: time and the stage's bytes. */
static void optimizer(const char *what, const char *prec, const char *opt,
                      double bytes_per_param)
{
    static dam_scenario s;
    static dam_result r;
    if (load(&s, 1e9, prec, opt, 1, 0, "training") != DAM_OK) {
        dam_check(0, "%s: scenario loads", what);
        return;
    }
    dam_analytic_solve(&s, &r);
    /* 1e9 parameters at 2e12 B/s x 0.5 */
    dam_check_rel(dam_analytic_optimizer(&s), 1e9 * bytes_per_param / 1e12,
                  1e-12, what);
    double stage = -1.0;
    for (int i = 0; i < r.nstages; i++)
        if (strcmp(r.stages[i].name, "optimizer") == 0)
            stage = r.stages[i].bytes;
    dam_check_rel(stage, 1e9 * bytes_per_param, 1e-12,
                  "  the optimizer stage reports those bytes");
}

/* Model-state memory (weights + gradients + optimizer) under ZeRO. */
static void zero(int stage, double want_gb)
{
    static dam_scenario s;
    static dam_result r;
    char what[96];
    snprintf(what, sizeof what, "ZeRO stage %d, 7.5e9 parameters, 64 GPUs: "
             "model states %.6g GB", stage, want_gb);
    if (load(&s, 7.5e9, "fp16", "adam", 8, stage, "training") != DAM_OK) {
        dam_check(0, "%s: scenario loads", what);
        return;
    }
    dam_analytic_solve(&s, &r);
    double got = r.memory.weights + r.memory.gradients + r.memory.optimizer;
    dam_check_rel(got / 1e9, want_gb, 1e-12, what);
}

/* Time and bytes of the "sync" stage under ZeRO stage `zero`. */
static void sync_stage(int zero, double want_bytes, double want_s)
{
    static dam_scenario s;
    static dam_result r;
    char what[96];
    snprintf(what, sizeof what, "ZeRO stage %d: gradient sync %.6g s for "
             "%.4g B", zero, want_s, want_bytes);
    if (load(&s, 7.5e9, "fp16", "adam", 8, zero, "training") != DAM_OK) {
        dam_check(0, "%s: scenario loads", what);
        return;
    }
    s.pipeline.overlap_sync = 0;
    dam_analytic_solve(&s, &r);
    const dam_stage *st = NULL;
    for (int i = 0; i < r.nstages; i++)
        if (strcmp(r.stages[i].name, "sync") == 0)
            st = &r.stages[i];
    dam_check(st != NULL && fabs(st->time / want_s - 1.0) <= 1e-9 &&
                  fabs(st->bytes / want_bytes - 1.0) <= 1e-12,
              "%s (got %.6g s, %.4g B)", what, st ? st->time : -1.0,
              st ? st->bytes : -1.0);
}

/* 2:4 structured sparsity in inference, through the prune lever:
 * sparse tensor cores double the matmul peak only, and the weights are
 * stored as 2 of every 4 values plus a 2-bit index per kept value. */
static void sparse24(void)
{
    static dam_scenario s, t;
    static dam_result dense, sparse;
    if (load_phases(&s, 1e9, "fp16", "adam", 1, 0, "inference",
                    "phases = ({ name = \"mm\"; kind = \"matmul\"; flops = "
                    "1.0e12; act_bytes = 0.0; weight_frac = 1.0; }, { name "
                    "= \"ew\"; kind = \"elementwise\"; flops = 1.0e10; "
                    "act_bytes = 1.0e8; weight_frac = 0.0; });") != DAM_OK) {
        dam_check(0, "2:4: scenario loads");
        return;
    }
    s.machine.gpu.sparsity_2to4 = 1;
    dam_analytic_solve(&s, &dense);
    dam_lever lv;
    dam_error e;
    if (dam_lever_parse_kv("prune=2:4", &lv, &e) != DAM_OK ||
        dam_lever_apply(&s, &lv, &cat, &t, &e) != DAM_OK) {
        dam_check(0, "2:4: the prune lever applies: %s", e.msg);
        return;
    }
    dam_analytic_solve(&t, &sparse);
    double cls[DAM_KCLASS_COUNT];
    dam_calibrate_class_times(&s, &dense, cls);
    dam_check(fabs(cls[DAM_KCLASS_GEMM] / 0.040 - 1.0) < 1e-12 &&
                  fabs(cls[DAM_KCLASS_ELEMENTWISE] / 0.0008 - 1.0) < 1e-12 &&
                  cls[DAM_KCLASS_ATTENTION] == 0.0,
              "kernel classes: GEMM 40 ms, elementwise 0.8 ms, attention 0 "
              "(got %.6g, %.6g, %.6g s)", cls[DAM_KCLASS_GEMM],
              cls[DAM_KCLASS_ELEMENTWISE], cls[DAM_KCLASS_ATTENTION]);
    /* batch 8 x 1e12 FLOP at 400 TFLOP/s x 0.5: 40 ms dense, 20 ms on
     * sparse tensor cores; the elementwise phase stays 8 x 1e10 / 2e14 */
    dam_check_rel(dense.phases[0].t_compute, 0.040, 1e-12,
                  "matmul phase, dense: 8 x 1e12 / (400e12 x 0.5) = 40 ms");
    dam_check_rel(sparse.phases[0].t_compute, 0.020, 1e-12,
                  "matmul phase, 2:4 sparse: 20 ms");
    dam_check_rel(sparse.phases[1].t_compute, 0.0004, 1e-12,
                  "elementwise phase unchanged by 2:4: 0.4 ms");
    /* 1e9 fp16 weights: 2e9 B dense; 2:4 keeps 2 of 4 values (16 bits
     * each) and 2 x 2 bits of index per group of 4: (32 + 4) / 64 */
    dam_check_rel(dense.phases[0].bytes, 2e9, 1e-12,
                  "dense weights read: 1e9 x 2 B");
    dam_check_rel(sparse.phases[0].bytes, 2e9 * 36.0 / 64.0, 1e-12,
                  "2:4 weights read: 36 of every 64 bits, 1.125e9 B");
    /* a phase without weights (weight_frac 0) reads its activations
     * only: 8 x 1e8 B at fp16 (mutation testing: the weights' share
     * divided instead of multiplied went unnoticed) */
    dam_check_rel(dense.phases[1].bytes, 8.0 * 1e8, 1e-12,
                  "elementwise phase reads 8 x 1e8 B of activations, no "
                  "weights");
    /* act_bytes are of 16-bit elements: at fp32 the phase reads twice
     * them (mutation testing: dividing by the width ratio instead went
     * unnoticed, as every phase check ran at 16 bits) */
    static dam_scenario s32;
    static dam_result r32;
    if (load_phases(&s32, 1e9, "fp32", "adam", 1, 0, "inference",
                    "phases = ({ name = \"ew\"; kind = \"elementwise\"; "
                    "flops = 1.0e12; act_bytes = 1.0e8; weight_frac = 0.0; "
                    "});") != DAM_OK) {
        dam_check(0, "fp32 phases: scenario loads");
        return;
    }
    dam_analytic_solve(&s32, &r32);
    dam_check_rel(r32.phases[0].bytes, 8.0 * 1e8 * 2.0, 1e-12,
                  "fp32: 8 x 1e8 16-bit activation bytes x 2");
}

/* Parameters and FLOPs of a grouped convolution, counted by hand. */
static void grouped_conv(void)
{
    static dam_scenario s;
    static const char text[] =
        "scenario: { name = \"g\"; question = \"q\"; mode = \"inference\"; "
        "};\n"
        "machine: { gpu = \"A100-SXM4-80GB\"; gpus_per_node = 1;\n"
        "  host: { cpu_cores = 8; pcie_gbs = 25.0; };\n"
        "  storage: { kind = \"page_cache\"; read_gbs = 100.0; }; };\n"
        "workload: { model = { id = \"gc\"; input_bytes = 1000.0; "
        "raw_bytes = 1000.0; arch = { kind = \"layers\"; table = ({ kind = "
        "\"conv\"; in = 64; out = 128; kernel = 3; groups = 32; hw = 28; "
        "}); }; };\n"
        "  precision = \"fp16\"; batch_size = 8; efficiency = 0.5; };\n"
        "data: { samples = 1.0e6; decode_ms = 0.0; };\n"
        "pipeline: { loader_workers = 8; };\n";
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_scenario_load(&s, "gc.cfg", text, &cat, &d);
    for (size_t i = 0; i < d.n; i++)
        printf("  %d: %s\n", d.items[i].line, d.items[i].msg);
    dam_diag_free(&d);
    if (rc != DAM_OK) {
        dam_check(0, "grouped convolution: scenario loads");
        return;
    }
    dam_check(s.workload.model.params == 2304.0 &&
                  s.workload.model.flops_per_sample == 3612672.0,
              "grouped convolution 64 -> 128, 3x3, 32 groups, 28x28: 2,304 "
              "weights, 3,612,672 FLOPs (got %.0f, %.0f)",
              s.workload.model.params, s.workload.model.flops_per_sample);
}

/* The eta that makes the compute-bound example's step 1.5 s. */
static void calibrate_by_hand(void)
{
    static dam_scenario s;
    if (dam_test_scenario("iron-law-compute-bound.cfg", &cat, &s) !=
        DAM_OK) {
        dam_check(0, "compute-bound example loads");
        return;
    }
    double eta = 0.0;
    dam_error e;
    int rc = dam_calibrate_eta(&s, 1.0 / 1.5, &eta, &e);
    dam_check(rc == DAM_OK && fabs(eta / 0.3 - 1.0) < 1e-6,
              "calibration: a 1.5 s step on the compute-bound example needs "
              "eta 7.68e9 / (1.28 x 20e9) = 0.3 (got %.9g)", eta);
}

/* FLOPs the compute phases carry in one step of a batch of 8. */
static void passes(const char *mode, int recompute, double want)
{
    static dam_scenario s;
    static dam_result r;
    char what[96];
    snprintf(what, sizeof what, "%s%s: compute phases carry %.4g FLOPs",
             mode, recompute ? " with recomputation" : "", want);
    if (load(&s, 1e9, "bf16", "adam", 1, 0, mode) != DAM_OK) {
        dam_check(0, "%s: scenario loads", what);
        return;
    }
    s.workload.activation_recompute = recompute;
    dam_analytic_solve(&s, &r);
    double flops = 0.0;
    for (int i = 0; i < r.nphases; i++)
        if (strcmp(r.phases[i].name, "optimizer") != 0)
            flops += r.phases[i].flops;
    dam_check_rel(flops, want, 1e-9, what);
}

int main(void)
{
    dam_test_start(&cat);
    optimizer("Adam, bf16 mixed precision: 28 B per parameter, 28 ms",
              "bf16", "adam", 28.0);
    optimizer("Adam, fp32: 28 B per parameter, 28 ms", "fp32", "adam", 28.0);
    optimizer("SGD with momentum, bf16: 20 B per parameter, 20 ms", "bf16",
              "sgd", 20.0);
    static dam_scenario s;
    if (load(&s, 1e9, "bf16", "adam", 1, 0, "inference") == DAM_OK)
        dam_check(dam_analytic_optimizer(&s) == 0.0,
                  "inference has no optimizer step");
    zero(0, 7.5 * 16.0);
    zero(1, 7.5 * (2.0 + 2.0 + 12.0 / 64.0));
    zero(2, 7.5 * (2.0 + 14.0 / 64.0));
    zero(3, 7.5 * 16.0 / 64.0);
    sync_stage(0, 15e9, 0.13125 + 0.525 + 0.084);
    sync_stage(1, 15e9, 0.13125 + 0.525 + 0.084);
    sync_stage(2, 15e9, 0.13125 + 0.525 + 0.084);
    sync_stage(3, 22.5e9, 1.5 * (0.13125 + 0.525) + 0.126);
    sparse24();
    grouped_conv();
    calibrate_by_hand();
    passes("inference", 0, 8 * 1e12);
    passes("training", 0, 3 * 8 * 1e12);
    passes("training", 1, 4 * 8 * 1e12);
    dam_catalog_free(&cat);
    return dam_check_done();
}
