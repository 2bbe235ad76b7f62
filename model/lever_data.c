/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever_data.c: the data-path levers: prefetch (loader workers, prefetch,
 * pinning, overlap) and data_format (sequential shards, GPU decode)
 * (lever.h says what each op moves; lever.c holds the table).
 */
#include "model/lever_impl.h"

static int op_prefetch(const ctx *c, const dam_lever_op *op,
                       const dam_catalog *cat, dam_scenario *s)
{
    dam_pipeline *p = &s->pipeline;
    int any = 0;

    if (op->loader_workers >= 0)
        p->loader_workers = op->loader_workers, any = 1;
    if (op->prefetch_factor >= 0)
        p->prefetch_factor = op->prefetch_factor, any = 1;
    if (op->pin_memory >= 0)
        p->pin_memory = op->pin_memory, any = 1;
    if (op->overlap_transfer >= 0)
        p->overlap_transfer = op->overlap_transfer, any = 1;
    if (op->overlap_sync >= 0)
        p->overlap_sync = op->overlap_sync, any = 1;
    if (op->bucket_bytes > 0.0)
        p->bucket_bytes = op->bucket_bytes, any = 1;
    return any ? DAM_OK : dam_lever_fail(c, "prefetch op sets nothing");
}

static int op_data_format(const ctx *c, const dam_lever_op *op,
                          const dam_catalog *cat, dam_scenario *s)
{
    dam_data *d = &s->data;
    int any = 0;

    if (op->shard_bytes > 0.0)
        d->shard_bytes = op->shard_bytes, any = 1;
    if (op->sharded >= 0) {
        d->sharded = op->sharded;
        if (d->sharded && !(d->shard_bytes > 0.0))
            d->shard_bytes = DAM_LEVER_DEFAULT_SHARD_BYTES;
        any = 1;
    }
    if (op->gpu_decode_s >= 0.0)
        d->gpu_decode_s = op->gpu_decode_s, any = 1;
    if (op->decode_on_gpu >= 0)
        d->decode_on_gpu = op->decode_on_gpu, any = 1;
    if (d->decode_on_gpu && !(d->gpu_decode_s > 0.0))
        return dam_lever_fail(
            c, "decode_on_gpu needs gpu_decode_ms, the GPU time per "
               "sample (the scenario has none)");
    return any ? DAM_OK : dam_lever_fail(c, "data_format op sets nothing");
}

static int can_prefetch(const dam_scenario *s, dam_bound b)
{
    const dam_pipeline *p = &s->pipeline;
    switch (b) {
    case DAM_BOUND_DATA:
        return p->loader_workers * s->machine.gpus_per_node <
               s->machine.cpu_cores;
    case DAM_BOUND_TRANSFER:
        return !p->pin_memory || !p->overlap_transfer;
    case DAM_BOUND_COMM:
        return !p->overlap_sync;
    default:
        return 1;
    }
}

static int can_data_format(const dam_scenario *s, dam_bound b)
{
    const dam_data *d = &s->data;
    if (b == DAM_BOUND_TRANSFER)
        return !d->decode_on_gpu && d->raw_bytes < d->input_bytes;
    return !d->sharded || !d->decode_on_gpu;
}
static const dam_lever_key prefetch_keys[] = {
    SINT("loader_workers", loader_workers, "pipeline.loader_workers",
         "loader processes per GPU"),
    SINT("prefetch_factor", prefetch_factor, "pipeline.prefetch_factor",
         "batches queued per worker"),
    SBOOL("pin_memory", pin_memory, "pipeline.pin_memory",
          "pinned host buffers"),
    SBOOL("overlap_transfer", overlap_transfer, "pipeline.overlap_transfer",
          "copy batch k+1 while batch k computes"),
    SBOOL("overlap_sync", overlap_sync, "pipeline.overlap_sync",
          "all-reduce overlaps backward"),
    SNUM("bucket_mb", bucket_bytes, "MB", 1e6, "pipeline.bucket_mb",
         "gradient bucket size"),
};
static const dam_lever_key format_keys[] = {
    SBOOL("sharded", sharded, "data.sharded",
          "sequential shards, one latency per shard"),
    SNUM("shard_mb", shard_bytes, "MB", 1e6, "data.shard_mb",
         "bytes per shard"),
    SBOOL("decode_on_gpu", decode_on_gpu, "data.decode_on_gpu",
          "decode on the GPU (DALI, nvJPEG): the copy carries encoded bytes"),
    SNUM("gpu_decode_ms", gpu_decode_s, "ms", 1e-3, "data.gpu_decode_ms",
         "GPU time to decode one sample"),
};

const dam_lever_type dam_lever_prefetch_type = {
    DAM_LEVER_PREFETCH, "prefetch",
    "loader workers, prefetch, pinning and overlap",
    KEYS(prefetch_keys), -1, NULL, BATCH_MODES, NULL, op_prefetch,
    B(DATA) | B(TRANSFER) | B(COMM), 0, can_prefetch,
    "more workers and prefetch hide the loader; pinning and overlap "
    "hide copies and all-reduce", 0, "none",
    "loader_workers=16,prefetch_factor=4"};

const dam_lever_type dam_lever_data_format_type = {
    DAM_LEVER_DATA_FORMAT, "data_format", "sequential shards, GPU decode",
    KEYS(format_keys), -1, NULL, BATCH_MODES, NULL, op_data_format,
    B(DATA) | B(TRANSFER), 0, can_data_format,
    "shards cut storage latency; GPU decode frees the CPU and copies "
    "encoded bytes", 0, "none",
    "decode_on_gpu=1,gpu_decode_ms=0.05"};
