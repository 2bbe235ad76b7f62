/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_sim_training.c: validation of the training/inference simulation
 * against the analytic model it shares its costs with (MODEL.md sections
 * 1-3):
 *  - deterministic service times with nothing overlapped (no loader
 *    workers, no copy overlap, no sync overlap): the simulated step is the
 *    analytic T_seq to 1e-9, on the worked examples and on multi-GPU,
 *    multi-node training with gradient sync;
 *  - deterministic with overlap: T_pipe <= simulated step <= T_seq on the
 *    flagship and variants;
 *  - loader-bound scenarios run at the loader's rate computed by hand
 *    (cores, storage, workers) within 2 %;
 *  - the simulated terms sum to the simulated step.
 * Steps are multiples of the worker count, so that lockstep deterministic
 * loaders (every worker finishing together) are measured over whole cycles.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "sim_util.h"

static dam_scenario s, base;
static dam_result r;

static double term_sum(const dam_result *res)
{
    double sum = 0.0;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        sum += res->terms[t];
    return sum;
}

/* Simulated step equals T_seq (nothing overlaps, deterministic). This is a
 * consistency check: the simulator draws its service times from the same
 * cost functions as the analytic solver, so it checks the event logic
 * (nothing lost, nothing counted twice), not the costs; the hand-worked
 * figures after some calls check the costs. */
static void check_tseq(const char *what)
{
    dam_sim_options o = dam_test_options(2, 6, 2, 0);
    if (dam_test_simulate(&s, &o, &r) != DAM_OK) {
        dam_check(0, "%s: simulates", what);
        return;
    }
    dam_check_rel(r.step, r.t_seq, 1e-9, what);
    dam_check_rel(term_sum(&r), r.step, 1e-9, "  terms sum to the step");
    dam_check(r.sim_step.sd <= 1e-9 * r.step, "  every step the same (sd "
              "%.3g s)", r.sim_step.sd);
}

/* T_pipe <= simulated step <= T_seq (deterministic, with overlap). */
static void check_bounds(const char *what, int steps)
{
    dam_sim_options o = dam_test_options(16, steps, 1, 0);
    if (dam_test_simulate(&s, &o, &r) != DAM_OK) {
        dam_check(0, "%s: simulates", what);
        return;
    }
    dam_check(r.t_pipe <= r.step * (1 + 1e-9) &&
                  r.step <= r.t_seq * (1 + 1e-9),
              "%s: T_pipe %.6g <= simulated %.6g <= T_seq %.6g (analytic "
              "step %.6g)", what, r.t_pipe, r.step, r.t_seq,
              r.analytic_step);
    dam_check_rel(term_sum(&r), r.step, 1e-9, "  terms sum to the step");
}

/* Loader-bound: throughput equals the hand-computed rate within 2 %. */
static void check_rate(const char *what, double step_by_hand)
{
    int W = s.pipeline.loader_workers;
    dam_sim_options o = dam_test_options(2 * W, 12 * W, 1, 0);
    if (dam_test_simulate(&s, &o, &r) != DAM_OK) {
        dam_check(0, "%s: simulates", what);
        return;
    }
    double want = dam_scenario_global_batch(&s) / step_by_hand;
    dam_check_rel(r.throughput, want, 0.02, what);
    printf("  %s: %.1f samples/s simulated, %.1f by hand\n", what,
           r.throughput, want);
    dam_check_str(dam_bound_name(r.bound), "data", "  bound by data");
}

/* The measured window (solver/sim.h, dam_sim_window): with W >= 1 loader
 * workers, warm-up and steps are the least multiples of W at or above what
 * was asked (the warm-up at least W); with none, as asked. */
static void check_window(void)
{
    static const int ws[] = {0, 1, 3, 4, 8}, asks[] = {0, 1, 5, 7, 8, 9, 100};
    int bad = 0, n = 0;
    for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
        for (size_t a = 0; a < sizeof asks / sizeof asks[0]; a++)
            for (size_t b = 1; b < sizeof asks / sizeof asks[0]; b++) {
                int W = ws[i], warm = asks[a], steps = asks[b], we, se;
                dam_sim_window(W, warm, steps, &we, &se);
                int wmin = W >= 1 && warm < W ? W : warm;
                int ok = W < 1 ? we == warm && se == steps
                               : we % W == 0 && we >= wmin && we < wmin + W &&
                                     se % W == 0 && se >= steps &&
                                     se < steps + W;
                if (!ok)
                    printf("#   W %d warm %d steps %d -> %d, %d\n", W, warm,
                           steps, we, se);
                bad += !ok;
                n++;
            }
    dam_check(bad == 0, "measured window: %d of %d (workers, warm-up, "
              "steps) rounded up to the least multiples of the workers",
              n - bad, n);
}

int main(void)
{
    dam_test_start(&sim_cat);
    check_window();

    /* ---- nothing overlaps: T_seq exactly ------------------------------ */
    dam_check_int(sim_load("iron-law-data-bound.cfg", &s), DAM_OK,
                  "data-bound example loads");
    check_tseq("data-bound example: simulated step == T_seq");
    dam_check_rel(r.step, 0.4 + 2.0 / 12.0 + 0.005, 1e-9,
                  "  by hand: 40 MB at 100 MB/s + 2 GFLOP at 20 GFLOP/s x "
                  "0.6 + 5 ms = 571.67 ms");
    dam_check_str(dam_bound_name(r.bound), "data", "  and data binds");

    dam_check_int(sim_load("iron-law-compute-bound.cfg", &s), DAM_OK,
                  "compute-bound example loads");
    check_tseq("compute-bound example: simulated step == T_seq");
    dam_check_rel(r.step, 0.17 + 0.64 + 0.05, 1e-9,
                  "  by hand: 0.17 + 0.64 + 0.05 = 0.86 s");
    dam_check_str(dam_bound_name(r.bound), "compute", "  compute binds");

    dam_check_int(sim_load("resnet50-dgx-a100.cfg", &base), DAM_OK,
                  "flagship loads");
    sim_deterministic(&base);

    s = base;
    s.pipeline.loader_workers = 0;
    s.pipeline.overlap_transfer = 0;
    s.pipeline.overlap_sync = 0;
    check_tseq("8 GPUs, sync, no overlap: simulated step == T_seq");
    /* By hand: bf16 gradients of 25.557e6 parameters, 51.114 MB, in
     * ceil(51.114 / 25) = 3 buckets of the ring over 8 GPUs: bandwidth
     * 2 x 7/8 x 51.114e6 B / 230 GB/s = 0.38891 ms, latency 3 buckets x
     * 2 x 7 hops x 10 us = 0.42 ms; all exposed (no overlap). */
    dam_check_rel(r.sim_exposed_comm,
                  2.0 * 7.0 / 8.0 * 2.0 * 25.557e6 / 230e9 +
                      3.0 * 2.0 * 7.0 * 10e-6,
                  1e-9, "  by hand: the exposed all-reduce is 0.389 + "
                        "0.420 ms");

    s.machine.nodes = 4;
    s.pipeline.pin_memory = 0;
    s.pipeline.bucket_bytes = 7e6;
    check_tseq("4 nodes x 8 GPUs, pageable, 8 buckets: step == T_seq");

    s = base;
    s.pipeline.loader_workers = 0;
    s.pipeline.overlap_transfer = 0;
    s.pipeline.overlap_sync = 0;
    s.workload.activation_recompute = 1;
    s.data.sharded = 1;
    s.machine.gpus_per_pcie_link = 4;
    check_tseq("recompute, shards, 4 GPUs per PCIe link: step == T_seq");

    s.data.decode_on_gpu = 1;
    s.data.gpu_decode_s = 5e-5;
    check_tseq("GPU decode: step == T_seq");

    s = base;
    s.mode = DAM_MODE_INFERENCE;
    s.pipeline.loader_workers = 0;
    s.pipeline.overlap_transfer = 0;
    check_tseq("offline inference, 8 GPUs: step == T_seq");

    /* ---- overlap: between the bounds ----------------------------------- */
    s = base;
    check_bounds("flagship (deterministic)", 96);
    dam_check_str(dam_bound_name(r.bound), "data", "  data binds");
    s.pipeline.overlap_transfer = 1;
    check_bounds("flagship + overlap_transfer", 96);
    s.pipeline.loader_workers = 16;
    s.pipeline.prefetch_factor = 4;
    check_bounds("flagship + 16 workers, prefetch 4", 96);
    s.pipeline.pin_memory = 0;
    check_bounds("  + pageable copies", 96);
    s = base;
    s.machine.gpu = *dam_catalog_gpu(&sim_cat, "H100-SXM5-80GB");
    check_bounds("flagship on H100", 96);
    s = base;
    s.data.decode_on_gpu = 1;
    s.data.gpu_decode_s = 5e-5;
    check_bounds("flagship + GPU decode", 48);
    dam_check(r.bound != DAM_BOUND_DATA, "  no longer data-bound (%s)",
              dam_bound_name(r.bound));
    s.machine.nodes = 4;
    s.pipeline.overlap_sync = 0;
    check_bounds("  + 4 nodes, sync after backward", 48);
    s.pipeline.overlap_sync = 1;
    check_bounds("  + 4 nodes, sync overlapped", 48);

    /* ---- the copy overlap switch (by construction) ---------------------- */
    /* One GPU, a loader fast enough never to bind: without overlap the
     * GPU copies, then computes, so the step is transfer + compute +
     * overheads; with overlap the copy hides behind the previous batch's
     * compute. (Mutation testing found the switch honoured nowhere else
     * once loader workers run.) */
    s = base;
    s.machine.gpus_per_node = 1;
    s.machine.gpus_per_pcie_link = 1;
    s.pipeline.loader_workers = 32;
    s.pipeline.prefetch_factor = 4;
    for (int ov = 0; ov < 2; ov++) {
        s.pipeline.overlap_transfer = ov;
        dam_sim_options o = dam_test_options(64, 256, 1, 0);
        if (dam_test_simulate(&s, &o, &r) != DAM_OK) {
            dam_check(0, "overlap %d: simulates", ov);
            continue;
        }
        double want = (ov ? 0.0 : r.t_transfer) + r.t_compute + r.t_latency;
        dam_check_rel(r.step, want, 1e-9,
                      ov ? "copy overlapped: step = compute + overheads"
                         : "copy not overlapped: step = transfer + compute "
                           "+ overheads");
    }

    /* ---- loader-bound rates by hand ------------------------------------ */
    /* Tiny compute, offline inference: only the loader binds. */
    base.mode = DAM_MODE_INFERENCE;
    base.workload.flops_scale = 1e-6;
    base.workload.bytes_scale = 1e-6;
    base.machine.storage_latency = 0.0;
    double b = base.workload.batch_size, raw = base.data.raw_bytes;

    /* Cores: 32 workers on 16 cores, each decode 256 x 6 ms: the node
     * makes 16 / 1.536 batches/s for 8 GPUs. */
    s = base;
    s.machine.cpu_cores = 16;
    s.pipeline.loader_workers = 4;
    s.machine.storage_bw = 1e12;
    check_rate("cores bind: 8 x 256 / (8 x 1.536 / 16)",
               8.0 * b * s.data.decode_s / 16.0);

    /* Storage: 0.5 GB/s for 8 GPUs' 28.16 MB batches; decode negligible. */
    s = base;
    s.machine.storage_bw = 0.5e9;
    s.data.decode_s = 1e-5;
    s.pipeline.loader_workers = 4;
    check_rate("storage binds: 8 x 28.16 MB / 0.5 GB/s per step",
               8.0 * b * raw / s.machine.storage_bw);

    /* Workers: 2 per GPU, 1 GPU, plenty of cores; the two read together
     * (half the storage each), then decode on a core each. */
    s = base;
    s.machine.gpus_per_node = 1;
    s.machine.gpus_per_pcie_link = 1;
    s.machine.storage_latency = 1e-4;
    s.machine.storage_bw = 10e9;
    s.pipeline.loader_workers = 2;
    double cycle = b * 1e-4 + b * raw / (s.machine.storage_bw / 2.0) +
                   b * s.data.decode_s;
    check_rate("workers bind: 2 workers / (latency + read + decode)",
               cycle / 2.0);

    /* Stochastic decode: same rate on average (cores bind). */
    s = base;
    s.machine.cpu_cores = 16;
    s.pipeline.loader_workers = 4;
    s.machine.storage_bw = 1e12;
    s.data.decode_cv = 0.5;
    check_rate("cores bind with decode cv 0.5",
               8.0 * b * s.data.decode_s / 16.0);

    dam_catalog_free(&sim_cat);
    return dam_check_done();
}
