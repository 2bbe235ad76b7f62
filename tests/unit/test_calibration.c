/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_calibration.c: the device and operator model (model/device.h,
 * model/graph.h) against the published measurements of
 * shared/validation/public-cases.csv.
 *
 * In sample: FIT RESIDUALS, not validation. The framework constants
 * (model/device.c dam_framework_default) were fitted here: conv_frac per
 * precision and elementwise_frac on the four single-GPU ResNet-50 rows of
 * NVIDIA's PyTorch DeepLearningExamples (A100 AMP and TF32, V100 AMP and
 * FP32), gemm_frac on the five MPT rows of llm-foundry on A100. Each is
 * bounded by its own residual, rounded up to the next per cent (table
 * `fitted`). The GPU constants come from microbenchmarks
 * (public-devices.csv), never from these rows.
 *
 * Out of sample: every other row. The 8-GPU ResNet-50 runs (data
 * parallel over NVLink), Megatron's 145.6B (hardware FLOP/s per GPU with
 * recomputation), PaLM's MFU borrowed for a llama2-70b-sized model, and
 * NVIDIA's ResNet-50 inference rows: none was used to set a constant. Each
 * is bounded at 25 %, except two whose measurements include overheads the
 * scenario does not model (table `upper`): there the model must be an
 * upper bound. The printed ratios are the record (tests/VALIDATION.md).
 *
 * Each case is a scenario written the way the measurement was taken: the
 * GPU, the GPU count, the precision and batch, and an input pipeline fast
 * enough not to bind (NVIDIA's ResNet-50 numbers use DALI; llm-foundry's
 * use pre-tokenised streaming data).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"

static dam_catalog cat;

typedef struct meas {
    const char *id;        /* public-cases.csv case_id */
    const char *gpu;
    const char *model;
    const char *precision;
    int batch;             /* per GPU */
    int gpus_per_node;
    int nodes;
    int recompute;         /* activation checkpointing */
    double value;          /* measured */
    int per_gpu;           /* 1: value is per GPU */
    int tokens;            /* 1: value is tokens/s */
    int hw_tflops;         /* 1: value is achieved hardware TFLOP/s per GPU */
    int mfu;               /* 1: value is MFU in % */
} meas;

/*
 * The measurements. Batch sizes: NVIDIA's ResNet-50 README trains at 256 per
 * GPU with AMP and TF32 (112/256 on V100 FP32 is close enough here: the step
 * is compute-bound); llm-foundry's benchmark table runs MPT at micro-batches
 * that fill the GPU (8 sequences of 2048 here; the step is compute-bound, so
 * the choice moves the figure by well under 1 %). The Megatron row is one
 * GPU's share of a tensor- and pipeline-parallel job: its measured figure is
 * per-GPU hardware FLOP/s with recomputation, so the case is a single GPU
 * with activation recomputation and no data-parallel sync.
 */
static const meas cases[] = {
    {"dle_rn50_a100_1gpu_amp", "A100-SXM4-80GB", "resnet50", "fp16", 256, 1, 1, 0, 2470, 0, 0, 0, 0},
    {"dle_rn50_a100_8gpu_amp", "A100-SXM4-80GB", "resnet50", "fp16", 256, 8, 1, 0, 16621, 0, 0, 0, 0},
    {"dle_rn50_v100_1gpu_amp", "V100-SXM2-32GB", "resnet50", "fp16", 256, 1, 1, 0, 1200, 0, 0, 0, 0},
    {"dle_rn50_v100_8gpu_amp", "V100-SXM2-32GB", "resnet50", "fp16", 256, 8, 1, 0, 8322, 0, 0, 0, 0},
    {"dle_rn50_a100_1gpu_tf32", "A100-SXM4-80GB", "resnet50", "tf32", 256, 1, 1, 0, 938, 0, 0, 0, 0},
    {"dle_rn50_a100_8gpu_tf32", "A100-SXM4-80GB", "resnet50", "tf32", 256, 8, 1, 0, 7248, 0, 0, 0, 0},
    {"dle_rn50_v100_1gpu_fp32", "V100-SXM2-32GB", "resnet50", "fp32", 256, 1, 1, 0, 367, 0, 0, 0, 0},
    {"dle_rn50_v100_8gpu_fp32", "V100-SXM2-32GB", "resnet50", "fp32", 256, 8, 1, 0, 2855, 0, 0, 0, 0},
    {"llmf_MPT-1B_2048_8_a100", "A100-SXM4-80GB", "mpt-1b", "bf16", 8, 8, 1, 0, 20513, 1, 1, 0, 0},
    {"llmf_MPT-7B_2048_8_a100", "A100-SXM4-80GB", "mpt-7b", "bf16", 8, 8, 1, 0, 4641, 1, 1, 0, 0},
    {"llmf_MPT-13B_2048_8_a100", "A100-SXM4-80GB", "mpt-13b", "bf16", 8, 8, 1, 0, 2262, 1, 1, 0, 0},
    {"llmf_MPT-30B_2048_8_a100", "A100-SXM4-80GB", "mpt-30b", "bf16", 8, 8, 1, 1, 916, 1, 1, 0, 0},
    {"llmf_MPT-70B_2048_64_a100", "A100-SXM4-80GB", "mpt-70b", "bf16", 8, 8, 8, 1, 410, 1, 1, 0, 0},
    {"megatron21_145.6B_tflops", "A100-SXM4-80GB", "gpt-145.6b", "fp16", 8, 1, 1, 1, 148, 1, 0, 1, 0},
    /* PaLM's MFU, borrowed as the large-model default of llama2-70b: one
     * GPU's share with rematerialisation, as PaLM trained */
    {"palm_540b_mfu", "A100-SXM4-80GB", "llama2-70b", "bf16", 8, 1, 1, 1, 46.2, 1, 0, 0, 1},
};

/* The fitted cases: |model / measured - 1| at the time of the fit,
 * rounded up to the next per cent (in-sample residuals; see above). */
static const struct {
    const char *id;
    double tol;        /* bound on |model / measured - 1| */
} fitted[] = {
    {"dle_rn50_a100_1gpu_amp", 0.09},
    {"dle_rn50_a100_1gpu_tf32", 0.01},
    {"dle_rn50_v100_1gpu_amp", 0.07},
    {"dle_rn50_v100_1gpu_fp32", 0.01},
    {"llmf_MPT-1B_2048_8_a100", 0.07},
    {"llmf_MPT-7B_2048_8_a100", 0.02},
    {"llmf_MPT-13B_2048_8_a100", 0.11},
    {"llmf_MPT-30B_2048_8_a100", 0.10},
    {"llmf_MPT-70B_2048_64_a100", 0.06},
};

/* Bound of an out-of-sample case. */
#define OUT_OF_SAMPLE 0.25

/* Out-of-sample cases whose measurement includes overheads the scenario
 * does not model: the model must be an upper bound (at least 95 % of the
 * measurement) and no more above it than the overhead it leaves out can
 * explain (ceiling, from an argument independent of the model's figure),
 * so the check is two-sided; the printed ratio says where it lies. */
static const struct {
    const char *id;
    const char *why;
    double ceiling; /* the highest model / measured ratio accepted */
} upper[] = {
    /* perfect scaling over the run's own: 8 / 6.7, times the 25 % bound
     * of every out-of-sample row */
    {"dle_rn50_a100_8gpu_amp",
     "8 GPUs reach 6.7x one GPU in this run: the host-side data pipeline "
     "the README does not report",
     8.0 / 6.7 * (1.0 + OUT_OF_SAMPLE)},
    /* the A100's dense bf16 peak (312 TFLOP/s) over the 148 measured: no
     * model of one GPU can claim more (a weak ceiling: the left-out bubble
     * and collectives have no published size for this run) */
    {"megatron21_145.6B_tflops",
     "one GPU's share of a tensor- and pipeline-parallel job without its "
     "pipeline bubble and tensor-parallel collectives (issue 12 models "
     "layouts)",
     312.0 / 148.0},
};

static int upper_of(const char *id)
{
    for (size_t i = 0; i < sizeof upper / sizeof upper[0]; i++)
        if (strcmp(upper[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* The fitted row of case id, or -1 (out of sample). */
static int fitted_of(const char *id)
{
    for (size_t i = 0; i < sizeof fitted / sizeof fitted[0]; i++)
        if (strcmp(fitted[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* A scenario for one measurement, as text. */
static void scenario_text(const meas *m, char *buf, size_t n)
{
    snprintf(buf, n,
             "scenario: { name = \"%s\"; question = \"calibration\"; mode = "
             "\"training\"; };\n"
             "machine: { gpu = \"%s\"; gpus_per_node = %d; nodes = %d;\n"
             "  host: { cpu_cores = 256; pcie_gbs = 25.0; };\n"
             "  storage: { kind = \"page_cache\"; read_gbs = 1000.0; };\n"
             /* 8x A100 NVSwitch all-reduce 230 GB/s (nccl_a100_allreduce_busbw);
              * V100 DGX-1 NVLink2 hybrid cube mesh: 130 GB/s assumed;
              * llm-foundry's nodes: RoCE 1600 Gb/s = 200 GB/s per node */
             "  network: { intra_busbw_gbs = %s; inter_busbw_gbs = 200.0; "
             "latency_us = 10.0; };\n};\n"
             "workload: { model = \"%s\"; precision = \"%s\"; batch_size = "
             "%d; activation_recompute = %s; };\n"
             "data: { samples = 1.0e6; decode_ms = 0.0; decode_on_gpu = "
             "false; };\n"
             "pipeline: { loader_workers = 8; overlap_transfer = true; };\n",
             m->id, m->gpu, m->gpus_per_node, m->nodes,
             strncmp(m->gpu, "V100", 4) == 0 ? "130.0" : "230.0", m->model,
             m->precision, m->batch, m->recompute ? "true" : "false");
}

int main(void)
{
    dam_test_start(&cat);
    dam_diag d;

    static dam_scenario s;
    static dam_result r;
    char text[2048];
    printf("%-28s %10s %10s %8s\n", "case", "measured", "model", "ratio");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const meas *m = &cases[i];
        scenario_text(m, text, sizeof text);
        dam_diag_init(&d);
        int rc = dam_scenario_load(&s, m->id, text, &cat, &d);
        for (size_t k = 0; k < d.n; k++)
            printf("  %s:%d: %s\n", d.items[k].file, d.items[k].line,
                   d.items[k].msg);
        dam_diag_free(&d);
        if (rc != DAM_OK) {
            dam_check(0, "%s: scenario loads", m->id);
            continue;
        }
        dam_analytic_solve(&s, &r);
        double got;
        if (m->mfu)
            got = r.mfu * 100.0;
        else if (m->hw_tflops)
            got = r.mfu * dam_scenario_peak(&s) *
                  (s.workload.activation_recompute ? 4.0 / 3.0 : 1.0) / 1e12;
        else if (m->tokens)
            got = r.tokens_per_s / r.gpus;
        else
            got = m->per_gpu ? r.throughput / r.gpus : r.throughput;
        printf("%-28s %10.4g %10.4g %8.3f\n", m->id, m->value, got,
               got / m->value);
        int k = fitted_of(m->id), u = upper_of(m->id);
        if (u >= 0) {
            dam_check(got >= 0.95 * m->value &&
                          got <= upper[u].ceiling * m->value,
                      "%s: out of sample, an upper bound (%s) and at most "
                      "%.2fx: model %.4g against measured %.4g",
                      m->id, upper[u].why, upper[u].ceiling, got, m->value);
            continue;
        }
        double tol = k >= 0 ? fitted[k].tol : OUT_OF_SAMPLE;
        dam_check(fabs(got / m->value - 1.0) <= tol,
                  "%s: %s: model %.4g within %.0f %% of measured %.4g",
                  m->id,
                  k >= 0 ? "fit residual (in sample: framework constants "
                           "fitted here)"
                         : "out of sample",
                  got, tol * 100.0, m->value);
    }
    /* Out of sample: NVIDIA's ResNet-50 inference figures (batch 256,
     * public-cases.csv dle_rn50_inf_*), run in the framework (PyTorch
     * eager: batch-norm and ReLU as kernels of their own). */
    static const struct {
        const char *id, *gpu, *prec;
        double img_s;
    } inf[] = {
        {"dle_rn50_inf_v100_amp_bs256", "V100-SXM2-32GB", "fp16", 3382},
        {"dle_rn50_inf_v100_fp32_bs256", "V100-SXM2-32GB", "fp32", 1261},
        {"dle_rn50_inf_t4_amp_bs256", "T4", "fp16", 1198},
        {"dle_rn50_inf_t4_fp32_bs256", "T4", "fp32", 415},
    };
    for (size_t i = 0; i < sizeof inf / sizeof inf[0]; i++) {
        snprintf(text, sizeof text,
                 "scenario: { name = \"%s\"; question = \"q\"; mode = "
                 "\"inference\"; };\n"
                 "machine: { gpu = \"%s\"; gpus_per_node = 1;\n"
                 "  host: { cpu_cores = 64; pcie_gbs = 12.0; };\n"
                 "  storage: { kind = \"page_cache\"; read_gbs = 100.0; }; };\n"
                 "workload: { model = \"resnet50\"; precision = \"%s\"; "
                 "batch_size = 256; inference_engine = \"eager\"; };\n"
                 "data: { samples = 50000.0; decode_ms = 0.0; };\n"
                 "pipeline: { loader_workers = 8; overlap_transfer = true; };\n",
                 inf[i].id, inf[i].gpu, inf[i].prec);
        dam_diag_init(&d);
        int rc = dam_scenario_load(&s, inf[i].id, text, &cat, &d);
        dam_diag_free(&d);
        if (rc != DAM_OK) {
            dam_check(0, "%s: scenario loads", inf[i].id);
            continue;
        }
        dam_analytic_solve(&s, &r);
        printf("%-28s %10.4g %10.4g %8.3f  (out of sample)\n", inf[i].id,
               inf[i].img_s, r.throughput, r.throughput / inf[i].img_s);
        dam_check(fabs(r.throughput / inf[i].img_s - 1.0) <= OUT_OF_SAMPLE,
                  "%s: out of sample: inference %.4g img/s within 25 %% of "
                  "measured %.4g",
                  inf[i].id, r.throughput, inf[i].img_s);
    }
    dam_catalog_free(&cat);
    return dam_check_done();
}
