/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever_machine.c: the levers on the machine and the layout: gpu,
 * batch_size, serving, layout and network (lever.h says what each op moves;
 * lever.c holds the table).
 */
#include "model/lever_impl.h"

#include "model/device.h"
#include "model/recipe.h"

static int refit_layout(const ctx *c, dam_scenario *s, double global,
                        int dp_given);

/* ---- ops ----------------------------------------------------------------- */

static int op_gpu(const ctx *c, const dam_lever_op *op,
                  const dam_catalog *cat, dam_scenario *s)
{
    dam_machine *m = &s->machine;
    int any = 0;
    int64_t gpus0 = dam_scenario_gpus(s);
    double global0 = dam_scenario_global_batch(s);

    if (op->gpu[0]) {
        const dam_gpu *g = cat ? dam_catalog_gpu(cat, op->gpu) : NULL;
        if (!cat)
            return dam_lever_fail(c, "no GPU catalog to look up '%s' in",
                                  op->gpu);
        if (!g) {
            const char *near = dam_catalog_suggest_gpu(cat, op->gpu);
            if (near)
                return dam_lever_fail(
                    c, "unknown gpu '%s' (did you mean '%s'?)", op->gpu, near);
            return dam_lever_fail(c, "unknown gpu '%s' (not in the catalog)",
                                  op->gpu);
        }
        if (!(g->peak[s->workload.precision] > 0.0))
            return dam_lever_unsupported(c, s->workload.precision, g);
        const dam_recipe *rc = dam_recipe_get(s->workload.recipe);
        if (rc && rc->block_scaled && g->gen != DAM_GEN_BLACKWELL)
            return dam_lever_fail(
                c,
                "recipe \"%s\" needs Blackwell's block-scaled "
                "tensor cores ('%s' is not Blackwell)",
                rc->name, g->id);
        if (rc && rc->fp4 && !(g->peak_fp4 > 0.0))
            return dam_lever_fail(c,
                                  "recipe \"%s\" needs an FP4 peak ('%s' has "
                                  "none)",
                                  rc->name, g->id);
        double old_link = dam_device_fabric_busbw(&m->gpu, m->pcie_bw);
        m->gpu = *g;
        /* the price: the op's, else the scenario's own for this GPU, else
         * the catalog's; none of them: unknown (0), never the old GPU's */
        if (op->gpu_hour_usd <= 0.0)
            s->cost.gpu_hour_usd = dam_lever_gpu_price(s, g->id, g);
        /* the new GPU brings its own node fabric (NVLink, or PCIe) */
        double new_link = dam_device_fabric_busbw(g, m->pcie_bw);
        if (old_link > 0.0 && new_link > 0.0) {
            m->intra_busbw *= new_link / old_link;
            m->net.domain_bw *= new_link / old_link;
        }
        if (s->workload.sparsity_kind == DAM_SPARSITY_2TO4)
            s->workload.matmul_peak_scale = g->sparsity_2to4 ? 2.0 : 1.0;
        any = 1;
    }
    if (op->gpu_hour_usd > 0.0) /* alone: re-prices the GPU in use */
        s->cost.gpu_hour_usd = op->gpu_hour_usd, any = 1;
    if (op->gpus_per_node >= 0) {
        m->gpus_per_node = op->gpus_per_node;
        any = 1;
    }
    if (op->nodes >= 0) {
        m->nodes = op->nodes;
        any = 1;
    }
    if (op->gpus > 0) {
        if (op->nodes >= 0)
            return dam_lever_fail(c,
                                  "give gpus or nodes, not both (gpus = %d, "
                                  "nodes = %d)",
                                  op->gpus, op->nodes);
        if (op->gpus < m->gpus_per_node && op->gpus_per_node < 0) {
            m->gpus_per_node = op->gpus; /* fewer than one node */
            m->nodes = 1;
        } else if (op->gpus % m->gpus_per_node != 0) {
            return dam_lever_fail(
                c,
                "gpus = %d is not a multiple of gpus_per_node = "
                "%d",
                op->gpus, m->gpus_per_node);
        } else {
            m->nodes = op->gpus / m->gpus_per_node;
        }
        any = 1;
    }
    if (dam_scenario_gpus(s) > DAM_MAX_GPUS)
        return dam_lever_fail(c,
                              "%d GPUs per node x %d nodes = %lld GPUs; damsim "
                              "models at most %d",
                              m->gpus_per_node, m->nodes,
                              (long long)dam_scenario_gpus(s), DAM_MAX_GPUS);
    if (!any)
        return dam_lever_fail(c, "gpu op sets nothing (give gpu, gpus, "
                                 "gpus_per_node, nodes or gpu_hour_usd)");
    if (s->layout.on && dam_scenario_gpus(s) != gpus0) {
        /* a layout scales out over data parallelism, same global batch */
        m->net.gpus_per_node = m->gpus_per_node;
        return refit_layout(c, s, global0, 0);
    }
    return DAM_OK;
}

static int op_batch_size(const ctx *c, const dam_lever_op *op,
                         const dam_catalog *cat, dam_scenario *s)
{
    if (op->batch_size < 1)
        return dam_lever_fail(c, "batch_size needs a value");
    if (s->layout.on)
        return dam_lever_fail(
            c, "with a parallel layout the batch is the layout's "
               "(use the layout lever's micro_batch)");
    s->workload.batch_size = op->batch_size;
    return DAM_OK;
}

/*
 * Fit a layout to the scenario's GPUs and global batch after a lever
 * changed either: dp follows the GPUs (unless the op set it), the
 * micro-batches follow the batch; then the layout's rules.
 */
static int refit_layout(const ctx *c, dam_scenario *s, double global,
                        int dp_given)
{
    dam_layout *l = &s->layout;
    int64_t gpus = dam_scenario_gpus(s);
    int64_t mp = (int64_t)l->tp * l->cp * l->pp;
    if (!dp_given) {
        if (gpus % mp != 0)
            return dam_lever_fail(c,
                                  "tp x cp x pp = %d x %d x %d = %lld does not "
                                  "divide the %lld GPUs",
                                  l->tp, l->cp, l->pp, (long long)mp,
                                  (long long)gpus);
        l->dp = (int)(gpus / mp);
    }
    double per = (double)l->dp * l->micro_batch;
    double m = global / per;
    if (m < 1.0 || m != floor(m))
        return dam_lever_fail(c,
                              "the global batch of %.0f sequences is not a "
                              "multiple of dp x micro_batch = %d x %d",
                              global, l->dp, l->micro_batch);
    l->micro_batches = (int)m;
    s->workload.batch_size = l->micro_batch;
    dam_error e;
    if (dam_layout_check(l, &s->workload.model, gpus, s->workload.seq_len,
                         NULL, &e) != DAM_OK)
        return dam_lever_fail(c, "%s", e.msg);
    return DAM_OK;
}

static int op_layout(const ctx *c, const dam_lever_op *op,
                     const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    dam_layout *l = &s->layout;
    if (!l->on)
        return dam_lever_fail(
            c, "the scenario has no 'parallel' layout to change");
    double global = dam_scenario_global_batch(s);
    int any = 0;
#define SET(f, v)           if ((v) >= 0) {             l->f = (v);             any = 1;            }
    SET(tp, op->tp);
    SET(pp, op->pp);
    SET(dp, op->dp);
    SET(cp, op->cp);
    SET(ep, op->ep);
    SET(vpp, op->vpp);
    SET(micro_batch, op->micro_batch);
    SET(zero, op->zero);
    SET(recompute, op->recompute);
    SET(schedule, op->schedule);
    SET(sp, op->sequence_parallel);
    SET(overlap_a2a, op->overlap_a2a);
#undef SET
    if (!any)
        return dam_lever_fail(
            c, "layout op sets nothing (give tp, pp, dp, cp, ep, "
               "vpp, micro_batch, zero, recompute, schedule, "
               "sequence_parallel or overlap_all_to_all)");
    if (op->vpp > 1 && op->schedule < 0)
        l->schedule = DAM_SCHED_INTERLEAVED;
    if (op->vpp == 1 && op->schedule < 0 &&
        l->schedule == DAM_SCHED_INTERLEAVED)
        l->schedule = DAM_SCHED_1F1B;
    if (op->zero >= 0)
        l->fsdp = 0;
    if (op->pp >= 0 || op->vpp >= 0)
        l->first_layers = l->last_layers = 0; /* an even split again */
    return refit_layout(c, s, global, op->dp >= 0);
}

static int op_network(const ctx *c, const dam_lever_op *op,
                      const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    dam_network *n = &s->machine.net;
    int any = 0;
    if (op->nvlink_domain > 0) {
        int g = s->machine.gpus_per_node;
        if (op->nvlink_domain % g != 0 && g % op->nvlink_domain != 0)
            return dam_lever_fail(c,
                                  "nvlink_domain = %d must be a multiple or a "
                                  "divisor of the %d GPUs per node",
                                  op->nvlink_domain, g);
        n->domain = op->nvlink_domain, any = 1;
    }
    if (op->nics_per_node > 0)
        n->nics = op->nics_per_node, any = 1;
    if (op->nic_bw > 0.0)
        n->nic_bw = op->nic_bw, any = 1;
    if (op->rail_optimized >= 0)
        n->rail_optimized = op->rail_optimized, any = 1;
    if (op->oversub >= 1.0)
        n->oversub = op->oversub, any = 1;
    if (op->algorithm >= 0)
        n->algo = (dam_net_algo)op->algorithm, any = 1;
    return any ? DAM_OK
               : dam_lever_fail(c,
                                "network op sets nothing (give nvlink_domain, "
                                "nics_per_node, nic_gbs, rail_optimized, "
                                "oversubscription or algorithm)");
}

static int can_batch_size(const dam_scenario *s, dam_bound b)
{
    (void)b;
    return !s->layout.on; /* a layout's batch is the layout lever's */
}

static int can_layout(const dam_scenario *s, dam_bound b)
{
    (void)b;
    return s->layout.on;
}

static int op_serving(const ctx *c, const dam_lever_op *op,
                      const dam_catalog *cat, dam_scenario *s)
{
    dam_serving *v = &s->serving;
    int any = 0;
    if (op->replicas >= 0)
        v->replicas = op->replicas, any = 1;
    if (op->max_batch >= 0)
        v->max_batch = op->max_batch, any = 1;
    if (op->batch_timeout_s >= 0.0)
        v->batch_timeout_s = op->batch_timeout_s, any = 1;
    if (op->preprocess_workers >= 0)
        v->preprocess_workers = op->preprocess_workers, any = 1;
    return any ? DAM_OK : dam_lever_fail(c, "serving op sets nothing");
}

static const dam_lever_key gpu_keys[] = {
    KTEXT("gpu", gpu, "catalog id of the GPU to run on"),
    KINTR("gpus", gpus, 1, DAM_MAX_GPUS, "total GPUs (nodes follow)"),
    SINT("gpus_per_node", gpus_per_node, "machine.gpus_per_node",
         "GPUs per node"),
    SINT("nodes", nodes, "machine.nodes", "nodes"),
    SNUM("gpu_hour_usd", gpu_hour_usd, "USD per GPU-hour", 1.0,
         "cost.gpu_hour_usd",
         "price of the GPU (alone: re-prices the GPU in use)"),
};
static const dam_lever_key batch_keys[] = {
    SINT("batch_size", batch_size, "workload.batch_size",
         "samples per GPU per step"),
};
static const dam_lever_key serving_keys[] = {
    SINT("replicas", replicas, "serving.replicas", "GPUs serving one queue"),
    SINT("max_batch", max_batch, "serving.max_batch", "dynamic batcher limit"),
    SNUM("batch_timeout_ms", batch_timeout_s, "ms", 1e-3,
         "serving.batch_timeout_ms",
         "wait from a forming batch's first request"),
    SINT("preprocess_workers", preprocess_workers,
         "serving.preprocess_workers", "CPU workers"),
};

static const char *const recompute_names[] = {"none", "selective", "full",
                                              NULL};
static const char *const schedule_names[] = {"1f1b", "gpipe", "interleaved",
                                             NULL};
static const char *const algorithm_names[] = {"auto", "ring", "tree",
                                              "hierarchical", NULL};
static const dam_lever_key layout_keys[] = {
    SINT("tp", tp, "parallel.tp", "tensor-parallel degree"),
    SINT("pp", pp, "parallel.pp", "pipeline stages"),
    SINT("dp", dp, "parallel.dp",
         "data-parallel degree (default: the GPUs left)"),
    SINT("cp", cp, "parallel.cp", "context-parallel degree"),
    SINT("ep", ep, "parallel.ep", "expert-parallel degree (MoE)"),
    SINT("vpp", vpp, "parallel.vpp",
         "model chunks per stage (interleaved schedule)"),
    SINT("micro_batch", micro_batch, "parallel.micro_batch",
         "sequences per micro-batch"),
    SINT("zero", zero, "parallel.zero",
         "ZeRO stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights"),
    SCHOICE("recompute", recompute, recompute_names, "parallel.recompute",
            "activation recomputation: none, selective or full"),
    SCHOICE("schedule", schedule, schedule_names, "parallel.schedule",
            "pipeline schedule: 1f1b, gpipe or interleaved"),
    SBOOL("sequence_parallel", sequence_parallel,
          "parallel.sequence_parallel", "shard norms and dropout over tp"),
    SBOOL("overlap_all_to_all", overlap_a2a, "parallel.overlap_all_to_all",
          "expert all-to-alls under another micro-batch's compute"),
};
static const dam_lever_key network_keys[] = {
    SINT("nvlink_domain", nvlink_domain, "machine.network.nvlink_domain",
         "GPUs per NVLink domain (72: NVL72 racks)"),
    SINT("nics_per_node", nics_per_node, "machine.network.nics_per_node",
         "scale-out NICs per node"),
    SNUM("nic_gbs", nic_bw, "GB/s", 1e9, "machine.network.nic_gbs",
         "line rate of one NIC, one direction"),
    SBOOL("rail_optimized", rail_optimized, "machine.network.rail_optimized",
          "rail-optimised fabric"),
    SNUM("oversubscription", oversub, "ratio", 1.0,
         "machine.network.oversubscription", "spine oversubscription"),
    SCHOICE("algorithm", algorithm, algorithm_names,
            "machine.network.algorithm",
            "all-reduce algorithm: auto, ring, tree or hierarchical"),
};

const dam_lever_type dam_lever_gpu_type = {
    DAM_LEVER_GPU, "gpu", "swap the GPU, scale out or in, or re-price",
    KEYS(gpu_keys), 0, NULL, DAM_MODES_ALL,
    "the GPU must run the scenario's precision",
    op_gpu, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING),
    B(COMM), NULL, "a faster GPU shortens the GPU's own work", 0,
    "none: the same model", "gpu=H100-SXM5-80GB"};

const dam_lever_type dam_lever_batch_size_type = {
    DAM_LEVER_BATCH_SIZE, "batch_size", "per-GPU batch",
    KEYS(batch_keys), 0, NULL, BATCH_MODES,
    "activations must fit in memory", op_batch_size,
    B(LATENCY) | B(COMM), B(MEMORY) | B(COMPUTE), can_batch_size,
    "larger batches amortise fixed overhead and sync", 0,
    "not modelled (large-batch effects)", "batch_size=512"};

const dam_lever_type dam_lever_serving_type = {
    DAM_LEVER_SERVING, "serving", "replicas, batching and preprocessing",
    KEYS(serving_keys), -1, NULL, M(SERVING), NULL, op_serving,
    B(QUEUEING) | B(LATENCY) | B(PREPROCESS) | B(WEIGHTS), 0, NULL,
    "more replicas, batching or CPU workers", 0, "none",
    "replicas=4"};

const dam_lever_type dam_lever_layout_type = {
    DAM_LEVER_LAYOUT, "layout", "the parallel layout: degrees, "
    "micro-batch, ZeRO, recomputation, schedule",
    KEYS(layout_keys), -1, NULL, M(TRAINING),
    "scenarios with a 'parallel' layout; the layout's rules hold "
    "(degrees multiply to the GPUs, divide heads, blocks, experts)",
    op_layout, B(COMPUTE) | B(MEMORY) | B(COMM) | B(LATENCY), 0,
    can_layout, "another split moves work between compute, "
    "communication, the pipeline bubble and memory", 0,
    "none: the same model and batch", "tp=8,pp=4,micro_batch=2"};

const dam_lever_type dam_lever_network_type = {
    DAM_LEVER_NETWORK, "network", "the GPU network: NVLink domain, "
    "NICs, rails, spine, collective algorithm",
    KEYS(network_keys), -1, NULL, M(TRAINING),
    "used by 'parallel' layouts", op_network, B(COMM), 0, can_layout,
    "wider NVLink domains and faster NICs shorten collectives", 0,
    "none", "nvlink_domain=72"};
