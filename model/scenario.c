/* SPDX-License-Identifier: GPL-3.0-or-later */
/* scenario.c: names of the scenario's enumerations and derived sizes. */
#include "model/scenario.h"

#include <gsl/gsl_cdf.h>
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

const char *dam_llm_weights_name(dam_llm_weights w)
{
    switch (w) {
    case DAM_LLM_W_NATIVE: return "native";
    case DAM_LLM_W_FP8: return "fp8";
    case DAM_LLM_W_INT8: return "int8";
    case DAM_LLM_W_INT4: return "int4";
    case DAM_LLM_W_NVFP4: return "nvfp4";
    case DAM_LLM_W_MXFP4: return "mxfp4";
    default: break;
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
    op->train_cost = -1.0;
    op->gpus = -1;
    op->gpu_hour_usd = -1.0;
    op->shard_bytes = -1.0;
    op->fit = -1; /* the scenario's quality.fit */
    op->tp = op->pp = op->dp = op->cp = op->ep = op->vpp = -1;
    op->micro_batch = op->zero = op->recompute = op->schedule = -1;
    op->sequence_parallel = op->overlap_a2a = -1;
    op->nvlink_domain = op->nics_per_node = op->rail_optimized = -1;
    op->nic_bw = op->oversub = -1.0;
    op->algorithm = -1;
    op->llm_weights = op->kv_precision = -1;
    op->token_budget = op->chunk_tokens = op->chunked_prefill = -1;
    op->max_seqs = op->preemption = op->capacity = -1;
    op->prefix_hit_rate = op->prefix_tokens = -1.0;
    op->prefill_replicas = op->decode_replicas = -1;
    op->prefill_tp = op->decode_tp = -1;
    op->kv_link_bw = -1.0;
}

int64_t dam_scenario_gpus(const dam_scenario *s)
{
    return (int64_t)s->machine.gpus_per_node * (int64_t)s->machine.nodes;
}

double dam_scenario_global_batch(const dam_scenario *s)
{
    const dam_layout *l = &s->layout;
    if (l->on) /* every data-parallel replica runs its micro-batches */
        return (double)l->dp * l->micro_batch * l->micro_batches;
    return (double)s->workload.batch_size * dam_scenario_gpus(s);
}

double dam_scenario_steps_per_epoch(const dam_scenario *s)
{
    double gb = dam_scenario_global_batch(s);
    return gb > 0.0 ? ceil(s->data.samples / gb) : 0.0;
}

double dam_scenario_grad_bytes(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    /* ZeRO-3 gathers the parameters in forward and backward and
     * reduce-scatters the gradients: 1.5x the all-reduce volume
     * (Rajbhandari et al. 2020, section 7.2.2) */
    double zero = w->zero_stage >= 3 ? 1.5 : 1.0;
    return w->model.params * w->weight_scale * w->grad_bytes * zero;
}

double dam_scenario_peak(const dam_scenario *s)
{
    return s->machine.gpu.peak[s->workload.precision];
}

const char *dam_uncertain_kind_name(dam_uncertain_kind k)
{
    switch (k) {
    case DAM_UNCERTAIN_UNIFORM: return "uniform";
    case DAM_UNCERTAIN_NORMAL: return "normal";
    case DAM_UNCERTAIN_LOGNORMAL: return "lognormal";
    case DAM_UNCERTAIN_TRIANGULAR: return "triangular";
    }
    return "?";
}

double dam_uncertain_mean(const dam_uncertain *u)
{
    switch (u->kind) {
    case DAM_UNCERTAIN_UNIFORM: return 0.5 * (u->a + u->b);
    case DAM_UNCERTAIN_TRIANGULAR: return (u->a + u->b + u->c) / 3.0;
    default: return u->a;
    }
}

double dam_uncertain_cdf(const dam_uncertain *u, double x)
{
    switch (u->kind) {
    case DAM_UNCERTAIN_UNIFORM:
        return x <= u->a ? 0.0 : x >= u->b ? 1.0 : (x - u->a) / (u->b - u->a);
    case DAM_UNCERTAIN_NORMAL:
        return gsl_cdf_gaussian_P(x - u->a, u->b);
    case DAM_UNCERTAIN_LOGNORMAL: {
        if (x <= 0.0)
            return 0.0;
        double s2 = log1p(u->b * u->b);
        return gsl_cdf_lognormal_P(x, log(u->a) - 0.5 * s2, sqrt(s2));
    }
    case DAM_UNCERTAIN_TRIANGULAR: {
        double a = u->a, m = u->b, b = u->c;
        if (x <= a)
            return 0.0;
        if (x >= b)
            return 1.0;
        return x <= m ? (x - a) * (x - a) / ((b - a) * (m - a))
                      : 1.0 - (b - x) * (b - x) / ((b - a) * (b - m));
    }
    }
    return 0.0;
}

double dam_uncertain_quantile(const dam_uncertain *u, double q)
{
    double v;
    /* Normal and lognormal tails are truncated to the key's range [lo, hi]
     * (the loader refuses those with more than 0.1 % outside it): q maps
     * into [F(lo), F(hi)], so no sample ever leaves the range. */
    if ((u->kind == DAM_UNCERTAIN_NORMAL ||
         u->kind == DAM_UNCERTAIN_LOGNORMAL) && u->hi > u->lo) {
        double flo = dam_uncertain_cdf(u, u->lo);
        double fhi = dam_uncertain_cdf(u, u->hi);
        if (fhi > flo)
            q = flo + q * (fhi - flo);
        if (q <= 0.0)
            q = 1e-300;
        if (q >= 1.0)
            q = 1.0 - 1e-16;
    }
    switch (u->kind) {
    case DAM_UNCERTAIN_UNIFORM:
        v = u->a + (u->b - u->a) * q;
        break;
    case DAM_UNCERTAIN_NORMAL:
        v = u->a + u->b * gsl_cdf_ugaussian_Pinv(q);
        break;
    case DAM_UNCERTAIN_LOGNORMAL: {
        /* mean m and cv: sigma^2 = ln(1 + cv^2), mu = ln m - sigma^2 / 2 */
        double s2 = log1p(u->b * u->b);
        v = exp(log(u->a) - 0.5 * s2 + sqrt(s2) * gsl_cdf_ugaussian_Pinv(q));
        break;
    }
    case DAM_UNCERTAIN_TRIANGULAR: {
        double a = u->a, m = u->b, b = u->c;
        double f = (m - a) / (b - a);
        v = q < f ? a + sqrt(q * (b - a) * (m - a))
                  : b - sqrt((1.0 - q) * (b - a) * (b - m));
        break;
    }
    default:
        v = u->a;
    }
    return v;
}

void dam_uncertain_set(dam_scenario *s, int i, double v)
{
    const dam_uncertain *u = &s->uncertain[i];
    if (v < u->lo)
        v = u->lo;
    if (v > u->hi)
        v = u->hi;
    memcpy((char *)s + u->offset, &v, sizeof v);
}

double dam_scenario_run_epochs(const dam_scenario *s)
{
    double r = s->workload.retrain_fraction;
    return s->data.epochs * (1.0 + (r > 0.0 ? r : 0.0));
}

double dam_scenario_copy_bytes(const dam_scenario *s)
{
    return s->data.decode_on_gpu ? s->data.raw_bytes : s->data.input_bytes;
}

void dam_scenario_graph_opts(const dam_scenario *s, dam_graph_opts *o)
{
    const dam_workload *w = &s->workload;
    memset(o, 0, sizeof *o);
    o->mode = s->mode == DAM_MODE_TRAINING ? DAM_GRAPH_TRAIN : DAM_GRAPH_INFER;
    o->seq_len = w->model.arch.kind == DAM_ARCH_TRANSFORMER
                     ? w->model.seq_len
                     : 0.0;
    o->recompute = s->mode == DAM_MODE_TRAINING && w->activation_recompute;
    o->eager = s->mode != DAM_MODE_TRAINING && w->inference_eager;
    o->channels_first = w->channels_first;
    o->no_optimizer = 1;
}

int dam_scenario_build_graph(dam_scenario *s, dam_error *e)
{
    dam_workload *w = &s->workload;
    dam_scenario_graph_opts(s, &w->graph_opts);
    w->graph_params = w->model.params;
    w->graph.nops = 0;
    w->graph.nphases = 0;
    if (w->model.arch.kind == DAM_ARCH_NONE)
        return DAM_OK;
    return dam_graph_build(&w->graph, &w->model, &w->graph_opts, e);
}

int dam_scenario_graph_stale(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    dam_graph_opts o;
    dam_scenario_graph_opts(s, &o);
    const dam_graph_opts *b = &w->graph_opts;
    return !(w->graph.nops > 0 && w->graph_params == w->model.params &&
             o.mode == b->mode && o.seq_len == b->seq_len &&
             o.recompute == b->recompute && o.tp == b->tp &&
             o.sequence_parallel == b->sequence_parallel &&
             o.layer_first == b->layer_first &&
             o.layer_count == b->layer_count && o.no_embed == b->no_embed &&
             o.no_head == b->no_head && o.no_optimizer == b->no_optimizer &&
             o.amp == b->amp && o.eager == b->eager &&
             o.channels_first == b->channels_first);
}

const dam_graph *dam_scenario_graph(const dam_scenario *s, dam_graph *scratch)
{
    const dam_workload *w = &s->workload;
    if (w->model.arch.kind == DAM_ARCH_NONE)
        return NULL;
    if (!dam_scenario_graph_stale(s))
        return &w->graph;
    dam_graph_opts o;
    dam_scenario_graph_opts(s, &o);
    dam_error e;
    return dam_graph_build(scratch, &w->model, &o, &e) == DAM_OK ? scratch
                                                                 : NULL;
}

double dam_scenario_mem_frac(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    if (w->eta_mem_given || s->workload.model.arch.kind == DAM_ARCH_NONE)
        return w->eta_mem;
    double m = s->machine.gpu.dev.mem.v;
    return m > 0.0 ? m : w->eta_mem;
}
