/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_lever.c: each lever moves the iron-law variables it claims to, and
 * nothing else; the input is never changed; errors carry the lever's name
 * and the offending value; levers compose in order.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lever_fixture.h"
#include "model/lever.h"

/* Apply l to in, checking in is byte-for-byte unchanged afterwards. */
static int apply(const dam_scenario *in, const dam_lever *l,
                 const dam_catalog *cat, dam_scenario *out, dam_error *err)
{
    dam_scenario *copy = dam_malloc(sizeof *copy);
    memcpy(copy, in, sizeof *copy);
    memset(err, 0, sizeof *err);
    int rc = dam_lever_apply(in, l, cat, out, err);
    dam_check(memcmp(copy, in, sizeof *copy) == 0,
              "lever '%s': input scenario unchanged", l->name);
    dam_free(copy);
    return rc;
}

static int has(const char *msg, const char *part)
{
    return strstr(msg, part) != NULL;
}

static void test_gpu(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;
    fixture_resnet(in, cat);

    dam_lever_op *op = fixture_lever(&l, "H100", DAM_LEVER_GPU);
    snprintf(op->gpu, sizeof op->gpu, "H100-SXM5-80GB");
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "gpu H100: ok");
    dam_check_rel(dam_scenario_peak(out), 989.4e12, 1e-12,
                  "gpu H100: R_peak bf16");
    dam_check_rel(out->machine.gpu.mem_bw, 3350e9, 1e-12,
                  "gpu H100: HBM bandwidth");
    dam_check_rel(out->machine.intra_busbw, 230e9 * 1.5, 1e-12,
                  "gpu H100: intra-node busbw scales with the fabric "
                  "(no measured busbw: NVLink 900/600)");
    dam_check_rel(out->workload.eta, in->workload.eta, 0.0, "gpu: eta kept");
    dam_check(memcmp(&out->pipeline, &in->pipeline, sizeof in->pipeline) == 0,
              "gpu: pipeline (loader) fields untouched");
    dam_check(memcmp(&out->data, &in->data, sizeof in->data) == 0,
              "gpu: data fields untouched");
    dam_check_rel(out->machine.pcie_bw, in->machine.pcie_bw, 0.0,
                  "gpu: PCIe kept");
    dam_check_rel(out->machine.storage_bw, in->machine.storage_bw, 0.0,
                  "gpu: storage kept");
    dam_check_str(out->applied, "H100", "gpu: applied names the lever");
    dam_check_rel(out->cost.gpu_hour_usd, 3.0, 0.0,
                  "gpu H100: price follows the catalog entry");
    dam_check_rel(out->machine.gpu.tdp_w, 700.0, 0.0, "gpu H100: TDP");
    op->gpu_hour_usd = 4.5;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "gpu H100 $4.5");
    dam_check_rel(out->cost.gpu_hour_usd, 4.5, 0.0,
                  "gpu H100: the lever's price wins");

    /* Unknown id: did you mean. */
    snprintf(op->gpu, sizeof op->gpu, "H100-SXM5-80G");
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "gpu typo: DAM_EINPUT");
    dam_check(has(err.msg, "lever 'H100': unknown gpu 'H100-SXM5-80G' "
                           "(did you mean 'H100-SXM5-80GB'?)"),
              "gpu typo message: %s", err.msg);
    dam_check_str(err.file, "", "command-line lever (line 0): no file");

    /* bf16 on a V100: unsupported precision. */
    snprintf(op->gpu, sizeof op->gpu, "V100-SXM2-32GB");
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "gpu V100 at bf16: DAM_EINPUT");
    dam_check(has(err.msg, "precision 'bf16' is not supported by "
                           "'V100-SXM2-32GB' (supported: fp32, fp16)"),
              "gpu V100 message: %s", err.msg);

    /* No catalog. */
    dam_check_int(apply(in, &l, NULL, out, &err), DAM_EINPUT,
                  "gpu without catalog: DAM_EINPUT");

    /* Scale out. */
    op = fixture_lever(&l, "16 GPUs", DAM_LEVER_GPU);
    op->gpus = 16;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "gpus=16: ok");
    dam_check_int(out->machine.nodes, 2, "gpus=16: 2 nodes of 8");
    dam_check_int(dam_scenario_gpus(out), 16, "gpus=16: 16 GPUs");
    op->gpus = 12;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "gpus=12 with 8 per node: DAM_EINPUT");
    dam_check(has(err.msg, "not a multiple"), "gpus=12 message: %s",
              err.msg);
    op->gpus = 4;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "gpus=4: ok");
    dam_check_int(out->machine.gpus_per_node * 10 + out->machine.nodes, 41,
                  "gpus=4: 4 per node, 1 node");
    op = fixture_lever(&l, "2 nodes", DAM_LEVER_GPU);
    op->nodes = 2;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "nodes=2: ok");
    dam_check_int(dam_scenario_gpus(out), 16, "nodes=2: 16 GPUs");
    op->nodes = 0;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "nodes=0: DAM_EINPUT");
    fixture_lever(&l, "nothing", DAM_LEVER_GPU);
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "gpu op that sets nothing: DAM_EINPUT");
    dam_free(in);
    dam_free(out);
}

static void test_quantize(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;

    /* The reference text's example: 1e9 values, FP16 2 GB -> INT8 1 GB. */
    fixture_serving(in, cat);
    in->workload.model.params = 1e9;
    in->workload.master_bytes = 2;
    dam_check_rel(dam_lever_weight_bytes(in), 2e9, 1e-12,
                  "fp16 weights of 1e9 values: 2 GB");
    dam_lever_op *op = fixture_lever(&l, "INT8", DAM_LEVER_QUANTIZE);
    op->precision = DAM_INT8;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "quantize int8: ok");
    dam_check_rel(dam_lever_weight_bytes(out), 1e9, 1e-12,
                  "int8 weights of 1e9 values: 1 GB");
    dam_check_rel(dam_scenario_peak(out), 624e12, 1e-12,
                  "int8 on A100: R_peak 624e12");
    dam_check_rel(dam_lever_act_bytes(out), dam_lever_act_bytes(in) / 2,
                  1e-12, "int8: activation bytes halved from fp16");
    dam_check_rel(out->quality.value, 76.1 - 0.5, 1e-12,
                  "int8 default delta on top-1 %: -0.5 (Wu et al. 2020)");
    dam_check_int(out->quality.delta_unknown, 0, "int8: delta known");
    dam_check_rel(out->workload.eta, in->workload.eta, 0.0, "int8: eta kept");

    op->accuracy_delta = -0.4;
    op->has_accuracy_delta = 1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "quantize int8 with delta: ok");
    dam_check_rel(out->quality.value, 76.1 - 0.4, 1e-12,
                  "int8: given delta -0.4 wins over the default");

    /* fp8 on an A100: peak 0, an error, never a silent speed-up. */
    op = fixture_lever(&l, "FP8", DAM_LEVER_QUANTIZE);
    op->precision = DAM_FP8;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "quantize fp8 on A100: DAM_EINPUT");
    dam_check_str(err.msg, "lever 'FP8': precision 'fp8' is not supported by "
                  "'A100-SXM4-80GB' (supported: fp32, tf32, fp16, bf16, "
                  "int8)", "fp8 on A100 message");

    /* Widening is not quantization. */
    op->precision = DAM_FP32;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "quantize to fp32: DAM_EINPUT");
    in->workload.precision = DAM_INT8;
    op->precision = DAM_BF16;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "quantize int8 -> bf16 (wider): DAM_EINPUT");
    dam_check(has(err.msg, "wider"), "widening message: %s", err.msg);

    /* INT8 in training: an inference format, unless the lever names the
     * method that makes it trainable and its cost; then the run computes
     * at its own precision and grows by the cost. */
    fixture_resnet(in, cat);
    snprintf(in->quality.metric, sizeof in->quality.metric, "loss");
    in->quality.higher_is_better = 0;
    in->quality.value = 2.0;
    op = fixture_lever(&l, "INT8", DAM_LEVER_QUANTIZE);
    op->precision = DAM_INT8;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "quantize int8 in training without a method: DAM_EINPUT");
    dam_check(has(err.msg, "inference format") && has(err.msg, "train_cost"),
              "int8 training message: %s", err.msg);
    snprintf(op->train_method, sizeof op->train_method, "QAT");
    op->train_cost = 0.1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "quantize int8 in training with QAT and its cost: ok");
    dam_check_int(out->workload.precision, DAM_BF16,
                  "QAT: training computes at its own precision");
    dam_check_rel(dam_scenario_run_epochs(out), in->data.epochs * 1.1, 1e-12,
                  "QAT: the run grows by train_cost");
    dam_check_int(out->quality.delta_unknown, 1,
                  "int8 on a loss metric: quality change unknown");
    dam_check_rel(out->quality.value, 2.0, 0.0, "loss unchanged");

    /* FP8 training on an H100: weights held in the compute format follow
     * it; fp32 master weights stay. */
    fixture_resnet(in, cat);
    in->machine.gpu = *dam_catalog_gpu(cat, "H100-SXM5-80GB");
    op = fixture_lever(&l, "FP8", DAM_LEVER_QUANTIZE);
    op->precision = DAM_FP8;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "quantize fp8 (training, H100): ok");
    dam_check_rel(out->workload.master_bytes, 1.0, 0.0,
                  "training: weights held in the compute format follow it");
    in->workload.master_bytes = 4;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "quantize fp8 (fp32 master): ok");
    dam_check_rel(out->workload.master_bytes, 4.0, 0.0,
                  "training: fp32 master weights kept");

    /* fp16 from fp32: 0 by default. */
    fixture_resnet(in, cat);
    in->workload.precision = DAM_FP32;
    in->workload.master_bytes = 0; /* follows the compute format */
    op->precision = DAM_FP16;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "quantize fp16: ok");
    dam_check_rel(out->quality.value, 76.1, 0.0, "fp16: default delta 0");
    dam_check_rel(dam_lever_weight_bytes(out),
                  dam_lever_weight_bytes(in) / 2, 1e-12,
                  "fp32 -> fp16 halves weight bytes");
    dam_check_rel(dam_scenario_peak(out) / dam_scenario_peak(in),
                  312e12 / 19.5e12, 1e-12, "fp32 -> fp16: R_peak 16x");
    dam_free(in);
    dam_free(out);
}

static void test_precision(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;
    fixture_resnet(in, cat);
    in->workload.precision = DAM_FP32;
    in->workload.master_bytes = 4;

    dam_lever_op *op = fixture_lever(&l, "AMP", DAM_LEVER_PRECISION);
    op->precision = DAM_BF16;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "precision bf16: ok");
    dam_check_rel(dam_scenario_peak(out), 312e12, 1e-12,
                  "precision bf16: R_peak");
    dam_check_rel(dam_lever_act_bytes(out), dam_lever_act_bytes(in) / 2,
                  1e-12, "precision bf16: activations halve from fp32");
    dam_check_rel(out->quality.value, 76.1, 0.0, "precision: no delta");
    dam_check_int(out->quality.delta_unknown, 0, "precision bf16: known");

    /* Widening back is allowed for precision. */
    dam_scenario *back = dam_malloc(sizeof *back);
    op->precision = DAM_TF32;
    dam_check_int(apply(out, &l, cat, back, &err), DAM_OK,
                  "precision tf32 (widen): ok");
    dam_check_rel(dam_scenario_peak(back), 156e12, 1e-12,
                  "precision tf32: R_peak");
    op->precision = DAM_FP8;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "precision fp8 on A100: DAM_EINPUT");
    op->precision = -1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "precision unset: DAM_EINPUT");
    dam_free(back);
    dam_free(in);
    dam_free(out);
}

static void test_prune(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;
    fixture_resnet(in, cat);

    dam_lever_op *op = fixture_lever(&l, "prune30", DAM_LEVER_PRUNE);
    op->sparsity_kind = DAM_SPARSITY_STRUCTURED;
    op->sparsity = 0.3;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "prune structured 0.3: ok");
    dam_check_rel(out->workload.flops_scale, 0.7, 1e-12,
                  "structured 0.3: flops_scale 0.7 (O)");
    dam_check_rel(out->workload.bytes_scale, 0.7, 1e-12,
                  "structured 0.3: bytes_scale 0.7 (D_vol)");
    dam_check_rel(out->workload.model.params, 25.6e6 * 0.7, 1e-12,
                  "structured 0.3: params 0.7x");
    dam_check_rel(dam_lever_weight_bytes(out),
                  dam_lever_weight_bytes(in) * 0.7, 1e-12,
                  "structured 0.3: weight bytes 0.7x (counted once)");
    dam_check_rel(out->workload.matmul_peak_scale, 1.0, 0.0,
                  "structured: R_peak unchanged");
    dam_check_int(out->quality.delta_unknown, 1,
                  "structured without delta: quality unknown");
    dam_check_int(out->workload.sparsity_kind, DAM_SPARSITY_STRUCTURED,
                  "structured: kind recorded");

    /* Unstructured: no dense speed-up; sparse storage pays above 50 %
     * for 16-bit weights. */
    op->sparsity_kind = DAM_SPARSITY_UNSTRUCTURED;
    op->sparsity = 0.3;
    op->accuracy_delta = -0.2;
    op->has_accuracy_delta = 1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "prune unstructured 0.3: ok");
    dam_check_rel(out->workload.flops_scale, 1.0, 0.0,
                  "unstructured: FLOPs unchanged on dense hardware");
    dam_check_rel(out->workload.weight_scale, 1.0, 0.0,
                  "unstructured 0.3 (bf16): dense storage is smaller");
    dam_check_rel(out->quality.value, 76.1 - 0.2, 1e-12,
                  "unstructured: given delta applied");
    op->sparsity = 0.8;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "prune unstructured 0.8: ok");
    dam_check_rel(out->workload.weight_scale, 0.2 * 4 / 2, 1e-12,
                  "unstructured 0.8 (bf16): weight_scale 0.2*(2+2)/2");
    op->sparsity = 1.0;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "unstructured 1.0: DAM_EINPUT");

    /* 2:4 in training: an inference format unless a method is named;
     * with one, training runs dense (masked) for 1 + train_cost. */
    op = fixture_lever(&l, "2:4", DAM_LEVER_PRUNE);
    op->sparsity_kind = DAM_SPARSITY_2TO4;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "prune 2:4 in training without a method: DAM_EINPUT");
    snprintf(op->train_method, sizeof op->train_method, "dense, prune, "
             "retrain");
    op->train_cost = 1.0;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "prune 2:4 in training with a method: ok");
    dam_check_rel(out->workload.matmul_peak_scale, 1.0, 0.0,
                  "2:4 in training: no training speed-up");
    dam_check_rel(dam_scenario_run_epochs(out), 2.0 * in->data.epochs, 1e-12,
                  "2:4 in training: the run doubles (train_cost 1)");
    op->train_method[0] = '\0';
    op->train_cost = -1.0;

    /* 2:4 on an A100 in inference: sparse tensor cores double matmul
     * peak. */
    in->mode = DAM_MODE_INFERENCE;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "prune 2:4: ok");
    dam_check_rel(out->workload.matmul_peak_scale, 2.0, 0.0,
                  "2:4 on A100: matmul_peak_scale 2");
    dam_check_rel(out->workload.weight_scale, 0.5 + 0.125 / 2, 1e-12,
                  "2:4 (bf16): half the values + 2-bit index");
    dam_check_rel(out->workload.sparsity, 0.5, 0.0, "2:4: sparsity 0.5");
    dam_check_int(out->quality.delta_unknown, 0,
                  "2:4: default delta 0 (Mishra et al. 2021)");
    dam_check_rel(out->workload.flops_scale, 1.0, 0.0, "2:4: O unchanged");
    /* Twice is an error. */
    dam_scenario *twice = dam_malloc(sizeof *twice);
    dam_check_int(apply(out, &l, cat, twice, &err), DAM_EINPUT,
                  "2:4 twice: DAM_EINPUT");
    /* Swapping to a GPU without sparse tensor cores drops the speed-up. */
    dam_lever g;
    dam_lever_op *gop = fixture_lever(&g, "V100", DAM_LEVER_GPU);
    snprintf(gop->gpu, sizeof gop->gpu, "V100-SXM2-32GB");
    out->workload.precision = DAM_FP16;
    dam_check_int(apply(out, &g, cat, twice, &err), DAM_OK,
                  "2:4 workload to V100: ok");
    dam_check_rel(twice->workload.matmul_peak_scale, 1.0, 0.0,
                  "2:4 on V100: no speed-up (matmul_peak_scale 1)");
    dam_free(twice);

    op->sparsity = 0.6;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "2:4 with sparsity 0.6: DAM_EINPUT");
    /* 2:4 on a V100: an error, not a silent no-op. */
    in->machine.gpu = *dam_catalog_gpu(cat, "V100-SXM2-32GB");
    in->workload.precision = DAM_FP16;
    op->sparsity = 0.5;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "2:4 on V100: DAM_EINPUT");
    dam_check(has(err.msg, "sparse tensor cores"), "2:4 on V100 message: %s",
              err.msg);
    op->sparsity_kind = DAM_SPARSITY_NONE;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "prune without kind: DAM_EINPUT");
    dam_free(in);
    dam_free(out);
}

static void test_pipeline_levers(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;
    fixture_resnet(in, cat);

    dam_lever_op *op = fixture_lever(&l, "more workers", DAM_LEVER_PREFETCH);
    op->loader_workers = 16;
    op->prefetch_factor = 4;
    op->overlap_transfer = 1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "prefetch: ok");
    dam_check_int(out->pipeline.loader_workers, 16, "prefetch: workers 16");
    dam_check_int(out->pipeline.prefetch_factor, 4, "prefetch: factor 4");
    dam_check_int(out->pipeline.overlap_transfer, 1, "prefetch: overlap on");
    dam_check_int(out->pipeline.pin_memory, 1, "prefetch: pin_memory kept");
    dam_check_rel(out->pipeline.bucket_bytes, 25e6, 0.0,
                  "prefetch: bucket kept");
    dam_check(memcmp(&out->workload, &in->workload, sizeof in->workload) == 0,
              "prefetch: workload untouched");
    /* the range is pipeline.loader_workers' (model/schema.c): 0 (the
     * training loop loads) to 256, as in a file */
    op->loader_workers = 0;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "prefetch workers 0: ok, as in a file");
    dam_check_int(out->pipeline.loader_workers, 0, "prefetch: workers 0");
    op->loader_workers = 257;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "prefetch workers 257: DAM_EINPUT");
    dam_check(has(err.msg, "loader_workers (loader processes per GPU) must "
                  "be a whole number in [0, 256] (got 257)"),
              "workers 257 message: %s", err.msg);
    op = fixture_lever(&l, "flags", DAM_LEVER_PREFETCH);
    op->pin_memory = 2;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "prefetch pin_memory 2: DAM_EINPUT");
    fixture_lever(&l, "empty", DAM_LEVER_PREFETCH);
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "prefetch sets nothing: DAM_EINPUT");

    /* Fusion: elementwise traffic and launches. */
    op = fixture_lever(&l, "fuse", DAM_LEVER_FUSE);
    op->fuse_fraction = 0.5;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "fuse 0.5: ok");
    dam_check_rel(out->workload.model.phases[1].act_bytes, 45e6, 1e-12,
                  "fuse 0.5: elementwise HBM bytes halved");
    dam_check_rel(out->workload.model.phases[0].act_bytes, 60e6, 0.0,
                  "fuse: matmul bytes unchanged");
    dam_check_int(out->workload.kernels_per_step, 160,
                  "fuse 0.5: launches 320 -> 160 (L_lat)");
    op->fuse_fraction = 1.5;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "fuse 1.5: DAM_EINPUT");

    op = fixture_lever(&l, "graphs", DAM_LEVER_CUDA_GRAPHS);
    op->cuda_graphs = 1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "cuda_graphs: ok");
    dam_check_int(out->workload.cuda_graphs, 1, "cuda_graphs: on");

    /* Data format. */
    op = fixture_lever(&l, "shards", DAM_LEVER_DATA_FORMAT);
    op->sharded = 1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "sharded: ok");
    dam_check_int(out->data.sharded, 1, "sharded: on");
    dam_check_rel(out->data.shard_bytes, DAM_LEVER_DEFAULT_SHARD_BYTES, 0.0,
                  "sharded: default shard size 1e9 bytes");
    op = fixture_lever(&l, "GPU decode", DAM_LEVER_DATA_FORMAT);
    op->decode_on_gpu = 1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "decode_on_gpu without gpu_decode_s: DAM_EINPUT");
    dam_check(has(err.msg, "gpu_decode_ms"), "decode message: %s", err.msg);
    op->gpu_decode_s = 0.2e-3;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "decode_on_gpu with gpu_decode_s: ok");
    dam_check_int(out->data.decode_on_gpu, 1, "decode_on_gpu: on");
    dam_check_rel(out->data.gpu_decode_s, 0.2e-3, 0.0,
                  "decode_on_gpu: GPU seconds per sample");
    dam_check_rel(out->data.decode_s, in->data.decode_s, 0.0,
                  "decode_on_gpu: CPU decode cost kept for the solver");

    op = fixture_lever(&l, "bs512", DAM_LEVER_BATCH_SIZE);
    op->batch_size = 512;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "batch 512: ok");
    dam_check_int(out->workload.batch_size, 512, "batch 512: set");
    dam_check_rel(dam_scenario_steps_per_epoch(out),
                  ceil(1281167.0 / 4096), 0.0, "batch 512: steps per epoch");
    op->batch_size = 0;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "batch 0: DAM_EINPUT");

    /* Serving levers need a serving scenario. */
    op = fixture_lever(&l, "replicas", DAM_LEVER_SERVING);
    op->replicas = 4;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "serving lever on training: DAM_EINPUT");
    fixture_serving(in, cat);
    op->max_batch = 32;
    op->batch_timeout_s = 1e-3;
    op->preprocess_workers = 32;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "serving: ok");
    dam_check_int(out->serving.replicas, 4, "serving: replicas 4");
    dam_check_int(out->serving.max_batch, 32, "serving: max_batch 32");
    dam_check_rel(out->serving.batch_timeout_s, 1e-3, 0.0,
                  "serving: timeout 1 ms");
    dam_check_int(out->serving.preprocess_workers, 32, "serving: workers");
    dam_check_rel(out->serving.rate, in->serving.rate, 0.0,
                  "serving: arrival rate kept");
    dam_free(in);
    dam_free(out);
}

static void test_distill(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;
    fixture_serving(in, cat);
    in->workload.model.params = 110e6; /* BERT-base-like teacher */

    dam_lever_op *op = fixture_lever(&l, "distil", DAM_LEVER_DISTILL);
    op->student_params = 66e6;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK, "distill: ok");
    double k = 66.0 / 110.0;
    dam_check_rel(out->workload.model.params, 66e6, 1e-12,
                  "distill: params = student");
    dam_check_rel(out->workload.model.phases[0].flops,
                  in->workload.model.phases[0].flops * k, 1e-12,
                  "distill: matmul FLOPs x student/teacher");
    dam_check_rel(out->workload.model.flops_per_sample,
                  in->workload.model.flops_per_sample * k, 1e-12,
                  "distill: FLOPs per sample x student/teacher");
    dam_check_rel(dam_lever_act_bytes(out), dam_lever_act_bytes(in) * k,
                  1e-12, "distill: activation bytes x student/teacher");
    dam_check_int(out->workload.model.layers, 30, "distill: 50 -> 30 layers");
    dam_check_int(out->quality.delta_unknown, 1,
                  "distill without delta: unknown");
    op->accuracy_delta = -1.5;
    op->has_accuracy_delta = 1;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_OK,
                  "distill with delta: ok");
    dam_check_rel(out->quality.value, 76.1 - 1.5, 1e-12,
                  "distill: delta applied");
    op->student_params = 200e6;
    dam_check_int(apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "distill to a bigger student: DAM_EINPUT");
    dam_free(in);
    dam_free(out);
}

static void test_compose(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever lv[2];
    dam_error err;
    fixture_serving(in, cat);

    dam_lever_op *q = fixture_lever(&lv[0], "FP8", DAM_LEVER_QUANTIZE);
    q->precision = DAM_FP8;
    dam_lever_op *g = fixture_lever(&lv[1], "H100", DAM_LEVER_GPU);
    snprintf(g->gpu, sizeof g->gpu, "H100-SXM5-80GB");

    /* quantize fp8, then H100: fails on the A100 first. */
    memset(out, 0x5a, sizeof *out);
    dam_scenario *poison = dam_malloc(sizeof *poison);
    memcpy(poison, out, sizeof *out);
    dam_check_int(dam_levers_apply_all(in, lv, 2, cat, out, &err),
                  DAM_EINPUT, "FP8 then H100: DAM_EINPUT");
    dam_check(has(err.msg, "lever 'FP8': precision 'fp8' is not supported "
                           "by 'A100-SXM4-80GB'"),
              "FP8 then H100 message: %s", err.msg);
    dam_check(memcmp(poison, out, sizeof *out) == 0,
              "failed composition leaves out untouched");
    dam_free(poison);

    /* H100, then fp8: works. */
    dam_lever rev[2] = {lv[1], lv[0]};
    dam_check_int(dam_levers_apply_all(in, rev, 2, cat, out, &err), DAM_OK,
                  "H100 then FP8: ok");
    dam_check_rel(dam_scenario_peak(out), 1978.9e12, 1e-12,
                  "H100 then FP8: R_peak 1978.9e12");
    dam_check_str(out->applied, "H100 + FP8", "applied lists both in order");

    /* In place (out == in) works too. */
    dam_scenario *same = dam_malloc(sizeof *same);
    memcpy(same, in, sizeof *same);
    dam_check_int(dam_levers_apply_all(same, rev, 2, cat, same, &err), DAM_OK,
                  "apply in place: ok");
    dam_check_rel(dam_scenario_peak(same), 1978.9e12, 1e-12,
                  "apply in place: result");
    dam_free(same);

    /* Order that matters without errors: 2:4 prune computes its weight
     * metadata at the precision in force (bf16 vs int8). */
    fixture_resnet(in, cat);
    in->mode = DAM_MODE_INFERENCE;
    dam_lever pq[2];
    dam_lever_op *p = fixture_lever(&pq[0], "2:4", DAM_LEVER_PRUNE);
    p->sparsity_kind = DAM_SPARSITY_2TO4;
    q = fixture_lever(&pq[1], "INT8", DAM_LEVER_QUANTIZE);
    q->precision = DAM_INT8;
    dam_check_int(dam_levers_apply_all(in, pq, 2, cat, out, &err), DAM_OK,
                  "2:4 then int8: ok");
    double a = out->workload.weight_scale;
    dam_lever qp[2] = {pq[1], pq[0]};
    dam_check_int(dam_levers_apply_all(in, qp, 2, cat, out, &err), DAM_OK,
                  "int8 then 2:4: ok");
    dam_check(a != out->workload.weight_scale,
              "order matters: 2:4 metadata share differs (%g vs %g)", a,
              out->workload.weight_scale);

    /* A lever with several ops applies them in order. */
    dam_lever multi;
    g = fixture_lever(&multi, "H100 x16", DAM_LEVER_GPU);
    snprintf(g->gpu, sizeof g->gpu, "H100-SXM5-80GB");
    dam_lever_op_init(&multi.ops[1], DAM_LEVER_GPU);
    multi.ops[1].gpus = 16;
    multi.nops = 2;
    dam_check_int(dam_lever_apply(in, &multi, cat, out, &err), DAM_OK,
                  "two-op lever: ok");
    dam_check_int(dam_scenario_gpus(out), 16, "two-op lever: 16 GPUs");
    dam_check_rel(out->machine.gpu.mem_bw, 3350e9, 0.0,
                  "two-op lever: H100");
    multi.nops = 0;
    dam_check_int(dam_lever_apply(in, &multi, cat, out, &err), DAM_EINPUT,
                  "lever with no ops: DAM_EINPUT");

    /* Line numbers from a scenario file travel into the error. */
    lv[0].line = 37;
    dam_check_int(dam_lever_apply(in, &lv[0], cat, out, &err), DAM_EINPUT,
                  "fp8 from a file: DAM_EINPUT");
    dam_check_int(err.line, 37, "error carries the lever's line");
    dam_check_str(err.file, "fixture.cfg", "and the scenario's file");
    dam_free(in);
    dam_free(out);
}

int main(void)
{
    dam_catalog cat;
    gsl_set_error_handler_off();
    fixture_catalog(&cat);
    test_gpu(&cat);
    test_quantize(&cat);
    test_precision(&cat);
    test_prune(&cat);
    test_pipeline_levers(&cat);
    test_distill(&cat);
    test_compose(&cat);
    dam_catalog_free(&cat);
    return dam_check_done();
}
