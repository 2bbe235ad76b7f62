/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_calibration.c: the catalog's default efficiencies against the
 * published measurements of shared/validation/public-cases.csv.
 *
 * In sample: FIT RESIDUALS, not validation. Every training case below is a
 * measurement a default eta was fitted on (data/models.cfg names each), so
 * its check only says the fit still holds. Each is bounded by its own
 * residual, rounded up to the next per cent (table `residual`): a change
 * to the model that moves a fitted case shows. Seven cases have an eta of
 * their own (the five MPT rows, Megatron 145.6B, PaLM's MFU): their
 * residual is eta's rounding to two digits, so they pass by construction.
 * The ResNet-50 rows share one eta between the 1- and 8-GPU runs of a
 * precision (V100 and A100 apart): their residuals measure how well one
 * eta fits both GPU counts.
 *
 * Out of sample: the inference cases at the end (no eta was fitted on
 * inference), bound 20 %.
 *
 * Each case is a scenario written the way the measurement was taken: the
 * GPU, the GPU count, the precision and batch, and an input pipeline fast
 * enough not to bind (NVIDIA's ResNet-50 numbers use DALI; llm-foundry's
 * use pre-tokenised streaming data), so the measurement pins eta. For each
 * case the test prints the eta that would reproduce it exactly (found with
 * dam_calibrate_eta) beside the catalog default, then checks the solver's
 * throughput with the default.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/calibrate.h"

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

/* Bound of each fitted case: |model / measured - 1| at the time of the
 * fit, rounded up to the next per cent (in-sample residuals; see above). */
static const struct {
    const char *id;
    double tol;        /* bound on |model / measured - 1| */
    const char *fit;   /* how the case relates to the fit */
} residual[] = {
    {"dle_rn50_a100_1gpu_amp", 0.09, "fp16 eta shared with 8 GPUs"},
    {"dle_rn50_a100_8gpu_amp", 0.09, "fp16 eta shared with 1 GPU"},
    {"dle_rn50_v100_1gpu_amp", 0.08, "V100 fp16 eta shared with 8 GPUs"},
    {"dle_rn50_v100_8gpu_amp", 0.07, "V100 fp16 eta shared with 1 GPU"},
    {"dle_rn50_a100_1gpu_tf32", 0.02, "tf32 eta shared with 8 GPUs"},
    {"dle_rn50_a100_8gpu_tf32", 0.03, "tf32 eta shared with 1 GPU"},
    {"dle_rn50_v100_1gpu_fp32", 0.05, "fp32 eta shared with 8 GPUs"},
    {"dle_rn50_v100_8gpu_fp32", 0.02, "fp32 eta shared with 1 GPU"},
    {"llmf_MPT-1B_2048_8_a100", 0.01, "own eta: by construction"},
    {"llmf_MPT-7B_2048_8_a100", 0.01, "own eta: by construction"},
    {"llmf_MPT-13B_2048_8_a100", 0.01, "own eta: by construction"},
    {"llmf_MPT-30B_2048_8_a100", 0.01, "own eta: by construction"},
    {"llmf_MPT-70B_2048_64_a100", 0.01, "own eta: by construction"},
    {"megatron21_145.6B_tflops", 0.01, "own eta: by construction"},
    {"palm_540b_mfu", 0.01, "own eta: by construction"},
};

/* The residual row of case id (NULL when the case has none). */
static int residual_of(const char *id)
{
    for (size_t i = 0; i < sizeof residual / sizeof residual[0]; i++)
        if (strcmp(residual[i].id, id) == 0)
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
    gsl_set_error_handler_off();
    dam_test_catalog(&cat);
    dam_diag d;

    static dam_scenario s;
    static dam_result r;
    char text[2048];
    printf("%-28s %10s %10s %8s %8s %8s\n", "case", "measured", "model",
           "ratio", "eta", "eta fit");
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
        double want_tp = m->value;
        if (m->hw_tflops || m->mfu)
            want_tp = r.throughput * m->value / got;
        else if (m->tokens)
            want_tp = m->value * r.gpus / s.workload.model.seq_len;
        else if (m->per_gpu)
            want_tp = m->value * r.gpus;
        double fit = 0.0;
        dam_error e;
        if (dam_calibrate_eta(&s, want_tp, &fit, &e) != DAM_OK)
            printf("  %s\n", e.msg);
        printf("%-28s %10.4g %10.4g %8.3f %8.3f %8.3f\n", m->id, m->value,
               got, got / m->value, s.workload.eta, fit);
        int k = residual_of(m->id);
        double tol = k >= 0 ? residual[k].tol : 0.0;
        dam_check(k >= 0 && fabs(got / m->value - 1.0) <= tol,
                  "%s: fit residual (in sample; %s): model %.4g within "
                  "%.0f %% of measured %.4g", m->id,
                  k >= 0 ? residual[k].fit : "no residual bound", got,
                  tol * 100.0, m->value);
    }
    /* Out of sample: inference throughput, which no eta was fitted on.
     * The training-calibrated defaults must predict NVIDIA's ResNet-50
     * inference figures (batch 256, public-cases.csv dle_rn50_inf_*) within
     * 20 %: a looser bound than the fitted cases, since forward-only kernels
     * (and cuDNN's fp32 algorithms) differ from training's. Added in one
     * commit with its figures (0.83 to 1.11); the record does not show
     * whether 20 % was fixed before they were seen. */
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
                 "batch_size = 256; };\n"
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
        printf("%-28s %10.4g %10.4g %8.3f %8.3f  (out of sample)\n",
               inf[i].id, inf[i].img_s, r.throughput,
               r.throughput / inf[i].img_s, s.workload.eta);
        dam_check(fabs(r.throughput / inf[i].img_s - 1.0) <= 0.20,
                  "%s: out of sample: inference %.4g img/s within 20 %% of "
                  "measured %.4g (eta fitted on training)",
                  inf[i].id, r.throughput, inf[i].img_s);
    }
    dam_catalog_free(&cat);
    return dam_check_done();
}
