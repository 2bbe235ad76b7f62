/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever_fixture.h: scenarios and a small GPU catalog built in code, for the
 * lever, scaling and quality tests (no files, no loader). Header-only with
 * static inline functions so each test program takes what it uses.
 *
 * GPU numbers are dense datasheet peaks (NVIDIA A100, H100 SXM5 and V100
 * SXM2 datasheets; the 2:4-sparse figures NVIDIA quotes are twice these):
 * A100 bf16 312e12, fp8 0, int8 624e12 OP/s, HBM 2039e9 B/s; H100 bf16
 * 989.4e12, fp8 1978.9e12, HBM 3350e9 B/s; V100 fp16 125e12, no bf16, no
 * sparse tensor cores, HBM 900e9 B/s.
 */
#ifndef DAM_LEVER_FIXTURE_H
#define DAM_LEVER_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/catalog.h"
#include "model/scenario.h"

static inline void fixture_gpu(dam_gpu *g, const char *id, double fp32,
                               double tf32, double fp16, double bf16,
                               double fp8, double int8, double bw,
                               double link, double tdp, int sparse)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "%s", id);
    snprintf(g->name, sizeof g->name, "%s", id);
    g->peak[DAM_FP32] = fp32;
    g->peak[DAM_TF32] = tf32;
    g->peak[DAM_FP16] = fp16;
    g->peak[DAM_BF16] = bf16;
    g->peak[DAM_FP8] = fp8;
    g->peak[DAM_INT8] = int8;
    g->sparsity_2to4 = sparse;
    g->mem_bw = bw;
    g->link_bw = link;
    g->tdp_w = tdp;
    snprintf(g->source, sizeof g->source, "test fixture (datasheet)");
}

/* A catalog of three GPUs; free with dam_catalog_free. */
static inline void fixture_catalog(dam_catalog *cat)
{
    memset(cat, 0, sizeof *cat);
    cat->ngpus = 3;
    cat->gpus = dam_calloc(cat->ngpus, sizeof *cat->gpus);
    fixture_gpu(&cat->gpus[0], "A100-SXM4-80GB", 19.5e12, 156e12, 312e12,
                312e12, 0.0, 624e12, 2039e9, 600e9, 400.0, 1);
    cat->gpus[0].mem_bytes = 80.0 * 1073741824.0;
    cat->gpus[0].price_hour = 2.0;
    fixture_gpu(&cat->gpus[1], "H100-SXM5-80GB", 67e12, 494.7e12, 989.4e12,
                989.4e12, 1978.9e12, 1978.9e12, 3350e9, 900e9, 700.0, 1);
    cat->gpus[1].mem_bytes = 80.0 * 1073741824.0;
    cat->gpus[1].price_hour = 3.0; /* fixture prices, not quotes */
    fixture_gpu(&cat->gpus[2], "V100-SXM2-32GB", 15.7e12, 0.0, 125e12, 0.0,
                0.0, 0.0, 900e9, 300e9, 300.0, 0);
    cat->gpus[2].mem_bytes = 32.0 * 1073741824.0;
    snprintf(cat->gpu_file, sizeof cat->gpu_file, "<fixture>");
}

static inline void fixture_phase(dam_phase *p, const char *name,
                                 dam_phase_kind kind, double flops,
                                 double act_bytes, double weight_frac)
{
    snprintf(p->name, sizeof p->name, "%s", name);
    p->kind = kind;
    p->flops = flops;
    p->act_bytes = act_bytes;
    p->weight_frac = weight_frac;
}

/* ResNet-50 training on one DGX A100 (8 GPUs), bf16, ImageNet: the shape
 * of scenarios/resnet50-dgx-a100.cfg. */
static inline void fixture_resnet(dam_scenario *s, const dam_catalog *cat)
{
    memset(s, 0, sizeof *s);
    snprintf(s->file, sizeof s->file, "fixture.cfg");
    snprintf(s->name, sizeof s->name, "ResNet-50 on a DGX A100");
    s->mode = DAM_MODE_TRAINING;
    s->seed = 42;

    dam_machine *m = &s->machine;
    m->gpu = *dam_catalog_gpu(cat, "A100-SXM4-80GB");
    m->gpus_per_node = 8;
    m->nodes = 1;
    m->cpu_cores = 128;
    m->pcie_bw = 25e9;
    m->gpus_per_pcie_link = 2;
    m->pageable_fraction = 0.5;
    m->storage_kind = DAM_STORAGE_LOCAL_NVME;
    m->storage_bw = 20e9;
    m->storage_latency = 1e-4;
    m->intra_busbw = 230e9;
    m->inter_busbw = 90e9;
    m->net_latency = 10e-6;

    dam_workload *w = &s->workload;
    dam_model_spec *md = &w->model;
    snprintf(md->id, sizeof md->id, "resnet50");
    snprintf(md->family, sizeof md->family, "vision");
    md->params = 25.6e6;
    md->seq_len = 1.0;
    md->nphases = 2;
    fixture_phase(&md->phases[0], "conv", DAM_PHASE_MATMUL, 3.9e9, 60e6, 1.0);
    fixture_phase(&md->phases[1], "bn_relu", DAM_PHASE_ELEMENTWISE, 0.2e9,
                  90e6, 0.0);
    md->flops_per_sample = 4.1e9;
    md->input_bytes = 150528;
    md->raw_bytes = 110000;
    md->act_mem_bytes = 100e6;
    md->layers = 50;
    md->kernels_per_step = 320;
    md->quality = 76.1;
    w->precision = DAM_BF16;
    w->batch_size = 256;
    w->eta = 0.45;
    w->eta_mem = 0.8;
    w->kernels_per_step = 320;
    w->launch_s = 4e-6;
    w->framework_overhead_s = 1e-3;
    w->grad_bytes = 4;
    w->optimizer_bytes = 12;
    w->master_bytes = 2;
    w->flops_scale = w->bytes_scale = w->weight_scale = 1.0;
    w->matmul_peak_scale = 1.0;

    dam_data *d = &s->data;
    d->samples = 1281167;
    d->raw_bytes = 110000;
    d->input_bytes = 150528;
    d->decode_s = 6e-3;
    d->decode_dist = DAM_DIST_LOGNORMAL;
    d->decode_cv = 0.3;
    d->epochs = 90;

    dam_pipeline *p = &s->pipeline;
    p->loader_workers = 8;
    p->prefetch_factor = 2;
    p->pin_memory = 1;
    p->overlap_transfer = 0;
    p->bucket_bytes = 25e6;
    p->overlap_sync = 1;
    p->warmup_steps = 5;
    p->steps = 50;
    p->replications = 3;

    s->serving.replicas = 1;
    s->serving.max_batch = 1;
    s->serving.preprocess_workers = 1;

    snprintf(s->quality.metric, sizeof s->quality.metric, "top-1 %%");
    s->quality.value = 76.1;
    s->quality.higher_is_better = 1;
    s->cost.gpu_hour_usd = 2.0;
    s->cost.pue = 1.2;
    s->cost.kwh_usd = 0.1;
}

/* A 1.3e9-parameter decoder-only language model trained on 26e9 tokens
 * (20 tokens per parameter) on 8 H100s, quality from the scaling law. */
static inline void fixture_lm(dam_scenario *s, const dam_catalog *cat)
{
    fixture_resnet(s, cat);
    snprintf(s->name, sizeof s->name, "1.3B LM on a DGX H100");
    s->machine.gpu = *dam_catalog_gpu(cat, "H100-SXM5-80GB");
    dam_workload *w = &s->workload;
    dam_model_spec *md = &w->model;
    memset(md, 0, sizeof *md);
    snprintf(md->id, sizeof md->id, "lm-1.3b");
    snprintf(md->family, sizeof md->family, "language");
    md->params = 1.3e9;
    md->seq_len = 2048;
    md->nphases = 3;
    /* Forward FLOPs per sample: 2 N per token for the matmuls, attention
     * 2 * n_layer * ctx * d_model per token (24 layers, d_model 2048). */
    fixture_phase(&md->phases[0], "matmul", DAM_PHASE_MATMUL,
                  2.0 * 1.3e9 * 2048, 2.0e9, 1.0);
    fixture_phase(&md->phases[1], "attention", DAM_PHASE_ATTENTION,
                  2.0 * 24 * 2048.0 * 2048 * 2048, 1.0e9, 0.0);
    fixture_phase(&md->phases[2], "norm_act", DAM_PHASE_ELEMENTWISE,
                  1e10, 3.0e9, 0.0);
    md->flops_per_sample = md->phases[0].flops + md->phases[1].flops
                           + md->phases[2].flops;
    md->act_mem_bytes = 4e9;
    md->layers = 24;
    md->kernels_per_step = 600;
    w->kernels_per_step = 600;
    w->batch_size = 8;
    s->data.samples = 26e9 / 2048;
    s->data.epochs = 1;
    s->data.raw_bytes = 4096;
    s->data.input_bytes = 8192;
    s->data.decode_s = 0.0;
    snprintf(s->quality.metric, sizeof s->quality.metric, "loss");
    s->quality.higher_is_better = 0;
    s->quality.from_scaling_law = 1;
    s->quality.value = 0.0; /* unset: quality.c computes it */
    s->quality.tokens = 0.0;
}

/* Serving ResNet-50 in fp16 on one A100. */
static inline void fixture_serving(dam_scenario *s, const dam_catalog *cat)
{
    fixture_resnet(s, cat);
    s->mode = DAM_MODE_SERVING;
    s->workload.precision = DAM_FP16;
    s->workload.batch_size = 1;
    s->machine.gpus_per_node = 1;
    s->serving.arrival = DAM_ARRIVAL_POISSON;
    s->serving.rate = 400;
    s->serving.preprocess_s = 12e-3;
    s->serving.preprocess_workers = 16;
    s->serving.max_batch = 16;
    s->serving.batch_timeout_s = 2e-3;
    s->serving.replicas = 2;
    s->serving.slo_p99_s = 30e-3;
}

/* A lever of one op of a kind, named, with every field unset. */
static inline dam_lever_op *fixture_lever(dam_lever *l, const char *name,
                                          dam_lever_kind kind)
{
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->nops = 1;
    dam_lever_op_init(&l->ops[0], kind);
    return &l->ops[0];
}

#endif
