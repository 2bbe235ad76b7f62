/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scenario.c: names of the scenario's enumerations and derived sizes. */
#include "model/scenario.h"

#include <math.h>
#include <string.h>

const char *dam_mode_name(dam_mode m)
{
    switch (m) {
    case DAM_MODE_TRAINING: return "training";
    case DAM_MODE_INFERENCE: return "inference";
    case DAM_MODE_SERVING: return "serving";
    }
    return "?";
}

const char *dam_storage_name(dam_storage_kind k)
{
    switch (k) {
    case DAM_STORAGE_LOCAL_NVME: return "local_nvme";
    case DAM_STORAGE_NETWORK_FS: return "network_fs";
    case DAM_STORAGE_PAGE_CACHE: return "page_cache";
    case DAM_STORAGE_HDD: return "hdd";
    case DAM_STORAGE_OBJECT_STORE: return "object_store";
    }
    return "?";
}

const char *dam_sparsity_name(dam_sparsity_kind k)
{
    switch (k) {
    case DAM_SPARSITY_NONE: return "none";
    case DAM_SPARSITY_STRUCTURED: return "structured";
    case DAM_SPARSITY_UNSTRUCTURED: return "unstructured";
    case DAM_SPARSITY_2TO4: return "2:4";
    }
    return "?";
}

static const char *const lever_names[DAM_LEVER_KIND_COUNT] = {
    "gpu", "quantize", "prune", "prefetch", "chinchilla", "precision", "fuse",
    "cuda_graphs", "data_format", "batch_size", "distill", "serving"};

const char *dam_lever_kind_name(dam_lever_kind k)
{
    return (unsigned)k < DAM_LEVER_KIND_COUNT ? lever_names[k] : "?";
}

void dam_lever_op_init(dam_lever_op *op, dam_lever_kind kind)
{
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->gpus_per_node = op->nodes = -1;
    op->precision = -1;
    op->sparsity = -1.0;
    op->loader_workers = op->prefetch_factor = op->pin_memory = -1;
    op->overlap_transfer = op->overlap_sync = -1;
    op->bucket_bytes = -1.0;
    op->tokens_per_param = -1.0;
    op->fuse_fraction = -1.0;
    op->cuda_graphs = -1;
    op->sharded = op->decode_on_gpu = -1;
    op->gpu_decode_s = -1.0;
    op->batch_size = -1;
    op->student_params = -1.0;
    op->replicas = op->max_batch = op->preprocess_workers = -1;
    op->batch_timeout_s = -1.0;
}

int dam_scenario_gpus(const dam_scenario *s)
{
    return s->machine.gpus_per_node * s->machine.nodes;
}

double dam_scenario_global_batch(const dam_scenario *s)
{
    return (double)s->workload.batch_size * dam_scenario_gpus(s);
}

double dam_scenario_steps_per_epoch(const dam_scenario *s)
{
    double gb = dam_scenario_global_batch(s);
    return gb > 0.0 ? ceil(s->data.samples / gb) : 0.0;
}

double dam_scenario_peak(const dam_scenario *s)
{
    return s->machine.gpu.peak[s->workload.precision];
}
