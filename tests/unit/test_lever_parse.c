/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_lever_parse.c: command-line levers "key=value[,option=value]" parse
 * to the op the header documents, and bad ones are DAM_EINPUT with the key,
 * the value and a "did you mean" where one is close.
 */
#include <gsl/gsl_errno.h>
#include <string.h>

#include "check.h"
#include "lever_fixture.h"
#include "model/lever.h"
#include "model/scaling.h"

static dam_lever lv;
static dam_error err;

static const dam_lever_op *ok(const char *kv)
{
    memset(&err, 0, sizeof err);
    int rc = dam_lever_parse_kv(kv, &lv, &err);
    dam_check(rc == DAM_OK && lv.nops == 1, "parse '%s': ok %s", kv, err.msg);
    return &lv.ops[0];
}

static void bad(const char *kv, const char *part)
{
    memset(&err, 0, sizeof err);
    int rc = dam_lever_parse_kv(kv, &lv, &err);
    dam_check(rc == DAM_EINPUT && strstr(err.msg, part) != NULL,
              "parse '%s': DAM_EINPUT with \"%s\" (got \"%s\")", kv, part,
              err.msg);
}

static void test_good(void)
{
    const dam_lever_op *op;
    op = ok("gpu=H100-SXM5-80GB");
    dam_check(op->kind == DAM_LEVER_GPU && !strcmp(op->gpu, "H100-SXM5-80GB"),
              "gpu id");
    dam_check_str(lv.name, "gpu=H100-SXM5-80GB", "name is the string");
    dam_check_int(lv.line, 0, "command-line lever: line 0");
    op = ok("gpu=H100-SXM5-80GB,gpu_hour_usd=4.5");
    dam_check_rel(op->gpu_hour_usd, 4.5, 0.0, "gpu with a price");
    op = ok("gpus=16");
    dam_check_int(op->gpus, 16, "gpus 16");
    dam_check_int(op->nodes, -1, "gpus: nodes unset");
    op = ok("nodes=2");
    dam_check_int(op->nodes, 2, "nodes 2");
    op = ok("gpus_per_node=4");
    dam_check_int(op->gpus_per_node, 4, "gpus_per_node 4");
    op = ok("quantize=int8");
    dam_check(op->kind == DAM_LEVER_QUANTIZE && op->precision == DAM_INT8
                  && !op->has_accuracy_delta, "quantize int8");
    op = ok("quantize=INT8,delta=-0.4");
    dam_check(op->has_accuracy_delta && op->accuracy_delta == -0.4,
              "quantize delta -0.4");
    op = ok("precision=bf16");
    dam_check(op->kind == DAM_LEVER_PRECISION && op->precision == DAM_BF16,
              "precision bf16");
    op = ok("prune=0.5:2:4");
    dam_check(op->sparsity_kind == DAM_SPARSITY_2TO4 && op->sparsity == 0.5,
              "prune 0.5:2:4");
    op = ok("prune=2:4");
    dam_check(op->sparsity_kind == DAM_SPARSITY_2TO4, "prune 2:4");
    op = ok("prune=structured:0.3");
    dam_check(op->sparsity_kind == DAM_SPARSITY_STRUCTURED
                  && op->sparsity == 0.3, "prune structured:0.3");
    op = ok("prune=0.8:unstructured,delta=-1");
    dam_check(op->sparsity_kind == DAM_SPARSITY_UNSTRUCTURED
                  && op->sparsity == 0.8 && op->accuracy_delta == -1.0,
              "prune 0.8:unstructured with delta");
    op = ok("loader_workers=16");
    dam_check(op->kind == DAM_LEVER_PREFETCH && op->loader_workers == 16
                  && op->prefetch_factor == -1, "loader_workers 16 only");
    op = ok("prefetch_factor=4");
    dam_check_int(op->prefetch_factor, 4, "prefetch_factor 4");
    op = ok("overlap_transfer=1");
    dam_check_int(op->overlap_transfer, 1, "overlap_transfer 1");
    op = ok("pin_memory=false");
    dam_check_int(op->pin_memory, 0, "pin_memory false");
    op = ok("overlap_sync=on");
    dam_check_int(op->overlap_sync, 1, "overlap_sync on");
    op = ok("bucket_mb=50");
    dam_check_rel(op->bucket_bytes, 50e6, 0.0, "bucket_mb 50 -> bytes");
    op = ok("chinchilla=optimal");
    dam_check(op->kind == DAM_LEVER_CHINCHILLA && op->tokens_per_param == 0.0
                  && op->fit == -1,
              "chinchilla optimal, the scenario's fit");
    op = ok("chinchilla=20,fit=epoch2024");
    dam_check(op->tokens_per_param == 20.0
                  && op->fit == DAM_SCALING_EPOCH2024,
              "chinchilla 20, Epoch fit");
    op = ok("chinchilla=optimal,fit=approach2");
    dam_check_int(op->fit, DAM_SCALING_APPROACH2, "chinchilla, approach 2");
    op = ok("fuse=0.5");
    dam_check_rel(op->fuse_fraction, 0.5, 0.0, "fuse 0.5");
    op = ok("cuda_graphs=1");
    dam_check(op->kind == DAM_LEVER_CUDA_GRAPHS && op->cuda_graphs == 1,
              "cuda_graphs 1");
    op = ok("sharded=1,shard_mb=256");
    dam_check(op->sharded == 1 && op->shard_bytes == 256e6, "sharded 256 MB");
    op = ok("decode_on_gpu=1,gpu_decode_ms=0.25");
    dam_check(op->decode_on_gpu == 1 && op->gpu_decode_s == 0.25e-3,
              "decode_on_gpu with 0.25 ms");
    op = ok("batch_size=512");
    dam_check_int(op->batch_size, 512, "batch_size 512");
    op = ok("distill=66e6");
    dam_check_rel(op->student_params, 66e6, 0.0, "distill 66e6");
    op = ok("replicas=4");
    dam_check(op->kind == DAM_LEVER_SERVING && op->replicas == 4
                  && op->max_batch == -1, "replicas 4 only");
    op = ok("max_batch=32");
    dam_check_int(op->max_batch, 32, "max_batch 32");
    op = ok("batch_timeout_ms=2");
    dam_check_rel(op->batch_timeout_s, 2e-3, 0.0, "batch_timeout 2 ms");
    op = ok("preprocess_workers=16");
    dam_check_int(op->preprocess_workers, 16, "preprocess_workers 16");
}

static void test_bad(void)
{
    bad("", "empty");
    bad("quantize", "expected key=value");
    bad("quantise=int8", "unknown key 'quantise' (did you mean 'quantize'?)");
    bad("frobnicate=1", "unknown key 'frobnicate'");
    bad("quantize=int4", "unknown precision 'int4' (did you mean 'int8'?)");
    bad("quantize=", "needs a value");
    bad("quantize=int8,delta=abc", "bad value 'abc' for 'accuracy_delta'");
    bad("quantize=int8,fit=epoch", "unknown option 'fit'");
    bad("loader_workers=16,delta=1", "unknown option 'delta' for prefetch");
    bad("loader_workers=16,prefetch_fact=2",
        "unknown option 'prefetch_fact' for prefetch (did you mean "
        "'prefetch_factor'?)");
    bad("accuracy_delta=-1", "'accuracy_delta' is a key of quantize, prune, "
        "precision, distill, weights or kv_cache");
    bad("prefetch=1", "prefetch has no value of its own");
    bad("loader_workers=257", "whole number in [0, 256]");
    bad("loader_workers=2.5", "whole number in [0, 256]");
    bad("prune=0.3", "prune expects");
    bad("prune=sideways:0.3", "prune expects");
    bad("cuda_graphs=maybe", "expected 1/0");
    bad("fuse=2", "fraction (share of elementwise traffic and launches "
        "fused away) must be in [0, 1] (got '2')");
    bad("chinchilla=huge", "'optimal' or tokens per parameter");
    bad("chinchilla=optimal,fit=kaplan", "unknown fit 'kaplan'");
    bad("distill=-5", "student's parameter count");
    bad("batch_timeout_ms=-1", "batch_timeout_ms (wait from a forming "
        "batch's first request) must be in [0, 1e+06] (got '-1')");
}

/* Parse, then apply: the whole command-line path. */
static void test_apply(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    fixture_resnet(in, cat);
    ok("gpu=H100-SXM5-80GB");
    dam_check_int(dam_lever_apply(in, &lv, cat, out, &err), DAM_OK,
                  "apply gpu=H100-SXM5-80GB");
    dam_check_str(out->applied, "gpu=H100-SXM5-80GB", "applied name");
    ok("gpu=H100-SXM5");
    dam_check_int(dam_lever_apply(in, &lv, cat, out, &err), DAM_EINPUT,
                  "apply gpu=H100-SXM5: unknown");
    dam_check(strstr(err.msg, "did you mean 'H100-SXM5-80GB'") != NULL,
              "did you mean at apply: %s", err.msg);
    ok("quantize=fp8");
    dam_check_int(dam_lever_apply(in, &lv, cat, out, &err), DAM_EINPUT,
                  "apply quantize=fp8 on A100");
    dam_check_str(err.msg, "lever 'quantize=fp8': precision 'fp8' is not "
                  "supported by 'A100-SXM4-80GB' (supported: fp32, tf32, "
                  "fp16, bf16, int8)", "fp8 message from the command line");
    ok("prune=0.5:2:4");
    dam_check_int(dam_lever_apply(in, &lv, cat, out, &err), DAM_EINPUT,
                  "apply prune=0.5:2:4 in training: DAM_EINPUT (no method)");
    ok("prune=2:4,train_method=asp,train_cost=1");
    dam_check_int(dam_lever_apply(in, &lv, cat, out, &err), DAM_OK,
                  "apply prune=2:4 in training with a method and its cost");
    dam_check_rel(dam_scenario_run_epochs(out), 2.0 * in->data.epochs, 1e-12,
                  "training 2:4 with train_cost 1: twice the run");
    in->mode = DAM_MODE_INFERENCE;
    ok("prune=0.5:2:4");
    dam_check_int(dam_lever_apply(in, &lv, cat, out, &err), DAM_OK,
                  "apply prune=0.5:2:4 (inference)");
    dam_check_rel(out->workload.matmul_peak_scale, 2.0, 0.0,
                  "prune=0.5:2:4 doubles matmul peak on A100");
    dam_free(in);
    dam_free(out);
}

int main(void)
{
    dam_catalog cat;
    gsl_set_error_handler_off();
    fixture_catalog(&cat);
    test_good();
    test_bad();
    test_apply(&cat);
    dam_catalog_free(&cat);
    return dam_check_done();
}
