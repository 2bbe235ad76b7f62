/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analytic.c: the iron law and the roofline, stage by stage (see
 * analytic.h and MODEL.md sections 1 and 2).
 *
 * Compute. A model with an architecture is costed on the device model
 * (model/device.h): its operator graph (model/graph.h, kept in the
 * scenario and rebuilt only when the model changes) is priced on every
 * evaluation at the evaluation's batch, GPU and constants, so a changed
 * constant never leaves a stale figure (dam_analytic_compute). A model
 * with phases only takes the legacy path: phase act_bytes at 2 bytes per
 * element, scaled to the precision's element size; weights read once per
 * pass; backward twice the forward FLOPs and bytes, recomputation one
 * more forward, all at peak x eta. Either way the optimizer is a
 * memory-bound update over fp32 master weights and optimizer state.
 *
 * A caller solving many scenarios (a sweep) may pass a dam_analytic_memo:
 * the graph's device cost is then reused while its inputs stay the same
 * bytes, which leaves every figure as recomputing would.
 */
#include "solver/analytic.h"
#include "model/alloc.h"
#include "solver/llm_cost.h"

#include "model/device.h"
#include "model/lever.h"
#include "model/quality.h"
#include "solver/parallel.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

/* Phase names are copied with memcpy on every evaluation: the sizes this
 * relies on. */
_Static_assert(sizeof(((dam_phase *)0)->name) ==
                   sizeof(((dam_phase_result *)0)->name),
               "phase name buffers differ");
_Static_assert(DAM_GRAPH_PHASE_NAME <= sizeof(((dam_phase_result *)0)->name),
               "graph phase names do not fit a phase result");

/* Copies overlap the GPU's work only on a copy stream fed by loader
 * workers (as the simulation runs them: with no workers the main process
 * loads the batch, then copies it in line). */
static int copy_overlaps(const dam_scenario *s)
{
    return s->pipeline.overlap_transfer && s->pipeline.loader_workers > 0;
}

/* Passes over the forward work in one step: fwd + 2x bwd (+ recompute). */
static double pass_factor(const dam_scenario *s)
{
    if (s->mode != DAM_MODE_TRAINING)
        return 1.0;
    return s->workload.activation_recompute ? 4.0 : 3.0;
}

/* snprintf(dst, n, "%s", src) without the format interpreter (n > 0). */
static inline void copy_name(char *dst, size_t n, const char *src)
{
    /* inlined with a literal, strlen folds and the copy is a few moves */
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    dst[l] = '\0';
}

double dam_analytic_phase_time(const dam_scenario *s, int i, double b,
                               dam_phase_result *out)
{
    const dam_workload *w = &s->workload;
    const dam_phase *p = &w->model.phases[i];
    const dam_gpu *g = &s->machine.gpu;
    double elem = dam_precision_bytes(w->precision);
    double flops = b * p->flops * w->flops_scale;
    double bytes = b * p->act_bytes * (elem / 2.0) * w->bytes_scale +
                   w->model.params * p->weight_frac * elem * w->weight_scale;
    double peak = g->peak[w->precision];
    if (p->kind == DAM_PHASE_MATMUL)
        peak *= w->matmul_peak_scale;
    double tc = peak > 0.0 ? flops / (peak * w->eta) : 0.0;
    double tm = bytes / (g->mem_bw * w->eta_mem);
    if (out) {
        memset(out, 0, sizeof *out);
        /* both are char[32] (a bounded copy, not snprintf: this runs on
         * every evaluation) */
        memcpy(out->name, p->name, sizeof out->name);
        out->name[sizeof out->name - 1] = '\0';
        out->kind = p->kind;
        out->flops = flops;
        out->bytes = bytes;
        out->intensity = bytes > 0.0 ? flops / bytes : 0.0;
        out->peak = peak;
        out->ridge = peak / g->mem_bw;
        out->t_compute = tc;
        out->t_memory = tm;
        out->time = tc > tm ? tc : tm;
        out->memory_bound = tm > tc;
    }
    return tc > tm ? tc : tm;
}

/*
 * The graph path (MODEL.md section 8): cost the scenario's operator graph
 * on its GPU at batch b. Phase results cover every pass of the step (a
 * phase's t_compute is the time of its compute-bound kernels, t_memory of
 * its memory-bound ones, time their sum).
 */
/* A cost in a memo's table: its options' bytes and their hash, full
 * while gen is the memo's. */
struct dam_memo_entry {
    unsigned gen;           /* full when the memo's */
    uint64_t hash;
    dam_cost_opts o;        /* the options, gpu and fw pointers cleared */
    dam_graph_cost cost;
};

void dam_analytic_memo_table(dam_analytic_memo *memo, int cap)
{
    int n = 1; /* a power of two (the probe masks with n - 1) */
    while (n < cap && n < (1 << 24))
        n *= 2;
    dam_free(memo->tab);
    memo->tab = cap > 0 ? dam_calloc((size_t)n, sizeof *memo->tab) : NULL;
    memo->cap = cap > 0 ? n : 0;
    memo->used = 0;
    memo->gen = 1;
    memo->valid = 0;
}

void dam_analytic_memo_release(dam_analytic_memo *memo)
{
    if (!memo)
        return;
    dam_free(memo->tab);
    memo->tab = NULL;
    memo->cap = 0;
}

/* A 64-bit hash of the options' bytes. */
static uint64_t opts_hash(const dam_cost_opts *o)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    const unsigned char *b = (const unsigned char *)o;
    size_t i = 0;
    for (; i + 8 <= sizeof *o; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, sizeof w);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    for (; i < sizeof *o; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

/* memo_cost with a table: the entry of key (of g on o's GPU and
 * framework, memo's generation), costed when it is not there. */
static const dam_graph_cost *memo_table_cost(const dam_graph *g,
                                             const dam_cost_opts *o,
                                             const dam_cost_opts *key,
                                             dam_analytic_memo *memo)
{
    if (!memo->valid || memo->g != g ||
        memcmp(&memo->gpu, o->gpu, sizeof memo->gpu) != 0 ||
        memcmp(&memo->fw, o->fw, sizeof memo->fw) != 0) {
        memo->g = g; /* another generation: every entry stale */
        memcpy(&memo->gpu, o->gpu, sizeof memo->gpu);
        memcpy(&memo->fw, o->fw, sizeof memo->fw);
        memo->valid = 1;
        memo->gen++;
        memo->used = 0;
    }
    uint64_t h = opts_hash(key);
    int mask = memo->cap - 1; /* cap: a power of two */
    int i = (int)(h & (uint64_t)mask);
    for (;; i = (i + 1) & mask) {
        struct dam_memo_entry *e = &memo->tab[i];
        if (e->gen != memo->gen)
            break;
        if (e->hash == h && memcmp(&e->o, key, sizeof *key) == 0) {
            memo->hits++;
            return &e->cost;
        }
    }
    if (memo->used >= memo->cap / 4 * 3) { /* full: start again */
        memo->gen++;
        memo->used = 0;
        i = (int)(h & (uint64_t)mask);
    }
    struct dam_memo_entry *e = &memo->tab[i];
    dam_device_cost(g, o, &e->cost);
    e->gen = memo->gen;
    e->hash = h;
    memcpy(&e->o, key, sizeof *key);
    memo->used++;
    memo->misses++;
    return &e->cost;
}

/* dam_device_cost of g under o, from memo when its inputs are the
 * memo's (g the scenario's stored graph), byte for byte. */
static const dam_graph_cost *memo_cost(const dam_scenario *s,
                                       const dam_graph *g,
                                       const dam_cost_opts *o,
                                       dam_analytic_memo *memo,
                                       dam_graph_cost *gc)
{
    if (!memo || g != &s->workload.graph || !o->gpu || !o->fw) {
        dam_device_cost(g, o, gc);
        return gc;
    }
    dam_cost_opts key; /* bytes, padding included (o was zeroed) */
    memcpy(&key, o, sizeof key);
    key.gpu = NULL;
    key.fw = NULL;
    if (memo->tab)
        return memo_table_cost(g, o, &key, memo);
    if (memo->valid && memo->g == g &&
        memcmp(&memo->o, &key, sizeof key) == 0 &&
        memcmp(&memo->gpu, o->gpu, sizeof memo->gpu) == 0 &&
        memcmp(&memo->fw, o->fw, sizeof memo->fw) == 0) {
        memo->hits++;
        return &memo->cost;
    }
    dam_device_cost(g, o, &memo->cost);
    memo->misses++;
    memo->g = g;
    memcpy(&memo->o, &key, sizeof key);
    memcpy(&memo->gpu, o->gpu, sizeof memo->gpu);
    memcpy(&memo->fw, o->fw, sizeof memo->fw);
    memo->valid = 1;
    return &memo->cost;
}

static void graph_compute(const dam_scenario *s, const dam_graph *g, double b,
                          dam_compute *c, dam_phase_result *ph, int *nph,
                          dam_analytic_memo *memo,
                          const dam_graph_cost *given, int figures)
{
    const dam_workload *w = &s->workload;
    dam_cost_opts o;
    dam_graph_cost scratch;
    const dam_graph_cost *gcp = given;
    if (!gcp) {
        dam_cost_opts_scenario(s, b, &o);
        gcp = memo_cost(s, g, &o, memo, &scratch);
    }
    c->graph = 1;
    c->fwd = gcp->pass_kernel_time[DAM_PASS_FWD];
    c->bwd = gcp->pass_kernel_time[DAM_PASS_BWD] +
             gcp->pass_kernel_time[DAM_PASS_RECOMPUTE];
    c->kernels = gcp->kernels;
    c->flops = gcp->flops;
    c->bytes = gcp->bytes;
    /* launches: an explicit kernels_per_step keeps the additive formula of
     * dam_analytic_overhead; otherwise the GPU-side gaps and the host time
     * not hidden behind the GPU */
    c->launch = w->kernels_per_step > 0 ? 0.0
                                        : gcp->gap_time + gcp->host_excess;
    if (!ph)
        return;
    const dam_gpu *gpu = &s->machine.gpu;
    double mfrac = dam_scenario_mem_frac(s);
    int n = g->nphases < DAM_MAX_PHASES ? g->nphases : DAM_MAX_PHASES;
    *nph = n;
    if (figures) { /* what dam_analytic_bound reads */
        for (int i = 0; i < n; i++) {
            ph[i].time = gcp->phase[i].time;
            ph[i].memory_bound =
                gcp->phase[i].t_memory > gcp->phase[i].t_compute;
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        dam_phase_result *p = &ph[i];
        const dam_phase_cost *q = &gcp->phase[i];
        memset(p, 0, sizeof *p);
        memcpy(p->name, g->phase[i], sizeof g->phase[i]); /* 16 of 32 */
        p->name[sizeof g->phase[i] - 1] = '\0';
        p->kind = g->phase_kind[i];
        p->flops = q->flops;
        p->bytes = q->bytes;
        p->intensity = q->bytes > 0.0 ? q->flops / q->bytes : 0.0;
        p->peak = gpu->peak[w->precision] *
                  (p->kind == DAM_PHASE_MATMUL ? w->matmul_peak_scale : 1.0);
        p->ridge = p->peak / (gpu->mem_bw * mfrac);
        p->t_compute = q->t_compute;
        p->t_memory = q->t_memory;
        p->time = q->time;
        p->memory_bound = q->t_memory > q->t_compute;
    }
}

static void compute(const dam_scenario *s, double b, dam_compute *c,
                    dam_phase_result *phases, int *nphases,
                    dam_analytic_memo *memo, const dam_graph *gg,
                    const dam_graph_cost *given, int figures)
{
    memset(c, 0, sizeof *c);
    if (given) { /* the caller costed the scenario's graph gg */
        graph_compute(s, gg, b, c, phases, nphases, NULL, given, figures);
        return;
    }
    dam_graph scratch;
    const dam_graph *g = dam_scenario_graph(s, &scratch);
    if (g) {
        graph_compute(s, g, b, c, phases, nphases, memo, NULL, figures);
        return;
    }
    /* legacy: the phases' roofline at peak x eta, backward = 2 x forward */
    const dam_workload *w = &s->workload;
    double pf = pass_factor(s);
    for (int i = 0; i < w->model.nphases; i++) {
        dam_phase_result *ph = phases ? &phases[i] : NULL;
        double t = dam_analytic_phase_time(s, i, b, ph);
        c->fwd += t;
        if (ph) {
            ph->flops *= pf;
            ph->bytes *= pf;
            ph->t_compute *= pf;
            ph->t_memory *= pf;
            ph->time *= pf;
            c->flops += ph->flops;
            c->bytes += ph->bytes;
        }
    }
    c->bwd = c->fwd * (pf - 1.0);
    if (nphases)
        *nphases = w->model.nphases;
}

void dam_analytic_compute(const dam_scenario *s, double b, dam_compute *c,
                          dam_phase_result *phases, int *nphases)
{
    compute(s, b, c, phases, nphases, NULL, NULL, NULL, 0);
}

double dam_analytic_grad_bytes(const dam_scenario *s)
{
    return dam_scenario_grad_bytes(s);
}

double dam_analytic_allreduce(const dam_scenario *s, double bytes)
{
    const dam_machine *m = &s->machine;
    double t = 0.0;
    int gn = m->gpus_per_node, nn = m->nodes;
    /* Hierarchical ring: intra-node over NVLink, then across nodes; nccl
     * bus bandwidth convention: time = bytes * 2(n-1)/n / busbw. */
    if (gn > 1 && m->intra_busbw > 0.0)
        t += bytes * 2.0 * (gn - 1) / gn / m->intra_busbw;
    if (nn > 1 && m->inter_busbw > 0.0)
        t += bytes * 2.0 * (nn - 1) / nn / m->inter_busbw;
    return t;
}

double dam_analytic_allreduce_latency(const dam_scenario *s)
{
    const dam_machine *m = &s->machine;
    int hops = 0;
    if (m->gpus_per_node > 1)
        hops += 2 * (m->gpus_per_node - 1);
    if (m->nodes > 1)
        hops += 2 * (m->nodes - 1);
    return hops * m->net_latency;
}

double dam_analytic_overhead(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    /* a graph model without an explicit launch count: its launch costs
     * depend on the batch (dam_compute.launch) */
    if (w->model.arch.kind != DAM_ARCH_NONE && w->kernels_per_step <= 0)
        return w->framework_overhead_s;
    double launches = w->cuda_graphs ? 1.0 : (double)w->kernels_per_step;
    return launches * w->launch_s + w->framework_overhead_s;
}

double dam_analytic_optimizer(const dam_scenario *s)
{
    if (s->mode != DAM_MODE_TRAINING)
        return 0.0;
    const dam_workload *w = &s->workload;
    double elem = dam_precision_bytes(w->precision);
    /* read + write master weights and optimizer state, read the gradient,
     * write the low-precision copy of the weights when there is one */
    double per_param = 2.0 * (w->master_bytes + w->optimizer_bytes) +
                       w->grad_bytes + (elem < 4.0 ? elem : 0.0);
    /* a framework kernel: at the framework's share of the device rate */
    double fw = w->model.arch.kind != DAM_ARCH_NONE && !w->eta_mem_given &&
                        w->fw.mem.v > 0.0
                    ? w->fw.mem.v
                    : 1.0;
    /* ZeRO (any stage) shards the optimizer state and its step over the
     * data-parallel ranks: each updates its 1/N of the parameters
     * (Rajbhandari et al. 2020 section 5.1) */
    double shard = w->zero_stage >= 1 ? (double)dam_scenario_gpus(s) : 1.0;
    return w->model.params * w->weight_scale * per_param /
           (s->machine.gpu.mem_bw * dam_scenario_mem_frac(s) * fw) / shard;
}

int dam_analytic_pcie_share(const dam_machine *m)
{
    int share = m->gpus_per_pcie_link < m->gpus_per_node
                    ? m->gpus_per_pcie_link
                    : m->gpus_per_node;
    return share > 0 ? share : 1;
}

double dam_analytic_h2d_bw(const dam_scenario *s)
{
    const dam_machine *m = &s->machine;
    double bw = m->pcie_bw * (s->pipeline.pin_memory ? 1.0
                                                     : m->pageable_fraction);
    return bw / dam_analytic_pcie_share(m);
}

/* The link shares its rate among the copies under way, a
 * processor-sharing station, whose means do not depend on the copy time's
 * distribution (Reiser and Lavenberg 1980). At least t1 and at least
 * k t1 - z: the link carries k copies a cycle. */
double dam_analytic_link_residence(int k, double t1, double z)
{
    double q = 0.0, r = t1;
    for (int n = 1; n <= k; n++) {
        r = t1 * (1.0 + q);
        q = r + z > 0.0 ? n * r / (r + z) : 0.0;
    }
    return r;
}

double dam_analytic_unsynced(int k, double tl, int n, double ts, double z,
                             double *rs)
{
    /* each station's residence with the other's in its think time, to
     * their fixed point (each alone: its own analysis, exactly) */
    double rl = dam_analytic_link_residence(k, tl, z);
    double r = dam_analytic_link_residence(n, ts, z + rl);
    for (int i = 0; i < 200; i++) {
        double l2 = dam_analytic_link_residence(k, tl, z + r);
        double r2 = dam_analytic_link_residence(n, ts, z + l2);
        int done = l2 == rl && r2 == r;
        rl = l2;
        r = r2;
        if (done)
            break;
    }
    *rs = r;
    return rl;
}

double dam_analytic_model_flops(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    double f = s->workload.batch_size * w->model.flops_per_sample *
               w->flops_scale;
    return s->mode == DAM_MODE_TRAINING ? 3.0 * f : f;
}

static inline dam_stage *stage(dam_result *r, const char *name)
{
    dam_stage *st = &r->stages[r->nstages++];
    memset(st, 0, sizeof *st);
    copy_name(st->name, sizeof st->name, name);
    return st;
}

double dam_analytic_batch_reads(const dam_scenario *s)
{
    const dam_data *d = &s->data;
    double b = s->workload.batch_size;
    return d->sharded && d->shard_bytes > 0.0
               ? ceil(b * d->raw_bytes / d->shard_bytes)
               : b;
}

/* Loader: storage read and CPU decode for one GPU's batch; *lower: a
 * lower bound of it for T_pipe; *seq: the read and the decode one after
 * the other (T_seq's share). */
static double loader(const dam_scenario *s, dam_result *r, double *lower,
                     double *alone, double *rest, double *seq)
{
    const dam_machine *m = &s->machine;
    const dam_data *d = &s->data;
    double b = s->workload.batch_size;
    int gn = m->gpus_per_node;
    int wk = s->pipeline.loader_workers;
    double lat_reads = dam_analytic_batch_reads(s);

    dam_stage *st = stage(r, "storage");
    st->bytes = b * d->raw_bytes;
    /* every GPU's loader reads at once: from the node's storage, or its
     * share of the one file system the whole cluster shares */
    double node_bw = m->fs_bw > 0.0 ? m->fs_bw / m->nodes : m->storage_bw;
    st->bw = node_bw / gn;
    st->t_data = st->bytes / st->bw;
    st->t_lat = lat_reads * m->storage_latency / (wk > 0 ? wk : 1);
    st->time = st->t_data + st->t_lat;

    dam_stage *dc = stage(r, "decode");
    double cores = wk > 0 ? wk : 1;
    double per_gpu_cores = (double)m->cpu_cores / gn;
    if (cores > per_gpu_cores)
        cores = per_gpu_cores;
    dc->ops = d->decode_on_gpu ? 0.0 : b * d->decode_s; /* core-seconds */
    dc->rate = cores;
    dc->t_ops = dc->ops / cores;
    dc->time = dc->t_ops;
    *seq = st->time + dc->time;

    if (wk == 0) {
        /* the training loop loads: read then decode, in series, every GPU
         * reading at once in lockstep. Random decode times spread the
         * GPUs' reads apart, so the lower bound is the longer of one GPU's
         * chain at the node's whole bandwidth and the node's storage
         * carrying every GPU's bytes (the lockstep figure as a bound put
         * T_pipe 18 % above a simulated step: property test, issue 21) */
        double chain = st->t_lat + st->bytes / node_bw + dc->time;
        *lower = chain > st->t_data ? chain : st->t_data;
        /* a read alone at the node's bandwidth, and what the GPU's loop
         * adds to it (for GPUs out of lockstep: solve's step) */
        *alone = st->bytes / node_bw;
        *rest = st->t_lat + dc->time;
        return st->time + dc->time;
    }
    /* W workers each build whole batches; the node's cores and storage cap
     * the rate. One worker's batch costs its file latencies, its read (at
     * best the node's whole storage bandwidth) and its decode on one core,
     * in series; W of them run at once. The slowest of that chain, the
     * node's storage and the node's cores is a lower bound on the loader's
     * time per batch per GPU (what T_pipe needs; the simulation adds the
     * contention on top). Charging every read at storage_bw / (W * gpus)
     * instead, as if all workers read all the time, overstated the loader
     * of the flagship by 5 % above the simulated step. */
    double per_worker = (lat_reads * m->storage_latency +
                         st->bytes / node_bw + dc->ops) / wk;
    double t = per_worker;
    if (dc->t_ops > t)
        t = dc->t_ops;
    if (st->t_data > t)
        t = st->t_data;
    *lower = t;
    return t;
}

/* Fill the memory footprint. */
static void memory(const dam_scenario *s, dam_result *r)
{
    const dam_workload *w = &s->workload;
    dam_memory *m = &r->memory;
    double elem = dam_precision_bytes(w->precision);
    double n = w->model.params * w->weight_scale;
    m->weights = n * elem;
    if (s->mode == DAM_MODE_TRAINING) {
        /* ZeRO shards states over the data-parallel ranks */
        double ranks = dam_scenario_gpus(s);
        int z = w->zero_stage;
        m->gradients = n * w->grad_bytes / (z >= 2 ? ranks : 1.0);
        m->optimizer = n * (w->optimizer_bytes +
                            (elem < 4.0 ? w->master_bytes : 0.0)) /
                       (z >= 1 ? ranks : 1.0);
        if (z >= 3)
            m->weights /= ranks;
        double act = w->batch_size * w->model.act_mem_bytes * (elem / 2.0);
        /* checkpointing keeps about sqrt(layers) of them (Chen et al. 2016) */
        if (w->activation_recompute)
            act /= sqrt((double)w->model.layers);
        m->activations = act;
    } else {
        double b = s->mode == DAM_MODE_SERVING ? s->serving.max_batch
                                               : w->batch_size;
        /* inference keeps about one layer's activations live (in + out) */
        m->activations = 2.0 * b * w->model.act_mem_bytes * (elem / 2.0) /
                         w->model.layers;
    }
    m->total = m->weights + m->gradients + m->optimizer + m->activations;
    m->capacity = s->machine.gpu.mem_bytes;
    dam_memory_judge(m);
}

/* The step's exposed copy (tr: the copy at its share of the link) beside
 * the GPU's own work gpu; loading in the loop, *data_wait (the loop's load,
 * t_load on entry) too. read_alone and load_rest: loader()'s. */
static double exposed_copy(const dam_scenario *s, double tr, double gpu,
                           double read_alone, double load_rest,
                           double *data_wait)
{
    int k = dam_analytic_pcie_share(&s->machine);
    int gn = s->machine.gpus_per_node;
    if (copy_overlaps(s))
        return tr > gpu ? tr - gpu : 0.0;
    if (s->mode == DAM_MODE_TRAINING)
        return tr; /* in lockstep: every copy shares the link at once */
    if (s->pipeline.loader_workers == 0 && gn > 1) {
        /* without a gradient sync the GPUs of a node do not read nor copy
         * together: each cycles through its read (the node's storage
         * shared), its copy (its link shared) and its own work, and each
         * shared resource serves those under way (closed networks, by
         * mean value analysis) */
        double rs;
        double x = dam_analytic_unsynced(k, tr / k, gn, read_alone,
                                         gpu + load_rest, &rs);
        *data_wait = load_rest + rs;
        return x;
    }
    /* the copies alone are shared (the workers read apart) */
    return k > 1 ? dam_analytic_link_residence(k, tr / k, gpu) : tr;
}

/* Cost of running the result's GPUs for seconds, busy the share of it
 * they run kernels (model/quality.c). */
static void cost(const dam_scenario *s, dam_result *r, double seconds,
                 double busy)
{
    dam_quality_cost c;
    if (dam_quality_scenario_cost(s, r->gpus, seconds, busy, &c, NULL) !=
        DAM_OK)
        memset(&c, 0, sizeof c);
    r->gpu_hours = c.gpu_hours;
    r->cost_usd = c.usd;
    r->energy_kwh = c.kwh;
}

/* Serving: the model's capacity (result.h) from t_batch_max, set first:
 * the least of the CPU pool's, the replicas' at their best batch (each
 * holds its link for the batch's copy, then computes) and the links' (as
 * sim_serving.c lays them out: gpus_per_pcie_link replicas on each). */
double dam_analytic_replica_rate(const dam_scenario *s, double t_full,
                                 int *best)
{
    const dam_serving *v = &s->serving;
    const dam_machine *m = &s->machine;
    double bw = m->pcie_bw * (s->pipeline.pin_memory ? 1.0
                                                     : m->pageable_fraction);
    double per = bw > 0.0 ? v->request_bytes / bw : 0.0; /* copy a request */
    int mb = v->max_batch > 0 ? v->max_batch : 1;
    double t = mb * per + t_full;
    double top = t > 0.0 ? mb / t : HUGE_VAL;
    int bb = mb;
    double ovh = dam_analytic_overhead(s);
    /* every batch below the full one (past 256, 2 % apart): a batch's
     * time per request is not monotonic in it (a GEMM's tiles fill whole
     * waves at some sizes), and a batcher takes what is queued */
    for (int b = 1; b < mb && isfinite(top); b = b < 256 ? b + 1
                                                        : (int)ceil(b * 1.02)) {
        dam_compute cp;
        dam_analytic_compute(s, (double)b, &cp, NULL, NULL);
        double tb = b * per + ovh + cp.fwd + cp.launch;
        if (tb > 0.0 && b / tb > top * (1.0 + 1e-12)) {
            top = b / tb;
            bb = b;
        }
    }
    if (best)
        *best = bb;
    return top;
}

static void serving_capacity(const dam_scenario *s, dam_serving_result *sv)
{
    const dam_serving *v = &s->serving;
    const dam_machine *m = &s->machine;
    double bw = m->pcie_bw * (s->pipeline.pin_memory ? 1.0
                                                     : m->pageable_fraction);
    int share = m->gpus_per_pcie_link > 0 ? m->gpus_per_pcie_link : 1;
    int nlinks = (v->replicas + share - 1) / share;
    int bb;
    double per_replica = dam_analytic_replica_rate(s, sv->t_batch_max, &bb);
    sv->capacity_batch = bb;
    double cap[3] = {
        v->preprocess_s > 0.0 ? v->preprocess_workers / v->preprocess_s
                              : HUGE_VAL,
        v->replicas * per_replica,
        v->request_bytes > 0.0 ? nlinks * bw / v->request_bytes : HUGE_VAL};
    static const dam_bound by[3] = {DAM_BOUND_PREPROCESS, DAM_BOUND_QUEUEING,
                                    DAM_BOUND_TRANSFER};
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (cap[i] < cap[k])
            k = i;
    for (int i = 0; i < 3; i++)
        sv->capacity_parts[i] = cap[i];
    sv->capacity = cap[k];
    sv->capacity_by = by[k];
    sv->overloaded = v->rate >= cap[k];
}

/* Serving: one request's phases at a batch of one (queueing is the DES's). */
static void solve_serving(const dam_scenario *s, dam_result *r)
{
    const dam_serving *v = &s->serving;
    dam_stage *pre = stage(r, "preprocess");
    pre->ops = v->preprocess_s;
    pre->rate = 1.0;
    pre->t_ops = v->preprocess_s;
    pre->time = pre->t_ops;

    /* A lone request's batch never fills: it leaves when the timeout runs
     * out (sim_serving.c try_dispatch), unless a batch is one request.
     * Left out, the 30 ms example's lone request read 32 ms against a
     * simulated 40 ms, and no batching wait "wasted". */
    dam_stage *bt = stage(r, "batching");
    bt->t_lat = v->max_batch > 1 ? v->batch_timeout_s : 0.0;
    bt->time = bt->t_lat;

    dam_stage *tr = stage(r, "transfer");
    tr->bytes = v->request_bytes;
    tr->bw = dam_analytic_h2d_bw(s);
    tr->t_data = tr->bytes / tr->bw;
    tr->time = tr->t_data;

    dam_stage *fw = stage(r, "forward");
    dam_compute cp;
    dam_analytic_compute(s, 1.0, &cp, r->phases, &r->nphases);
    double t = cp.fwd;
    for (int i = 0; i < r->nphases; i++) {
        fw->ops += r->phases[i].flops;
        fw->bytes += r->phases[i].bytes;
    }
    fw->t_ops = t;
    fw->rate = fw->ops / (t > 0.0 ? t : 1.0);
    fw->bw = s->machine.gpu.mem_bw;
    fw->t_data = fw->bytes / fw->bw; /* its bytes at HBM's datasheet rate */
    fw->t_lat = dam_analytic_overhead(s) + cp.launch;
    fw->time = t + fw->t_lat;

    dam_stage *post = stage(r, "postprocess");
    post->t_ops = v->postprocess_s;
    post->time = v->postprocess_s;

    r->t_data = pre->time + bt->time;
    r->t_transfer = tr->time;
    r->t_compute = t;
    r->t_latency = fw->t_lat + post->time;
    r->t_seq = pre->time + bt->time + tr->time + fw->time + post->time;
    double mx = pre->time > tr->time ? pre->time : tr->time;
    r->t_pipe = (mx > t ? mx : t) + r->t_latency + bt->time;
    r->step = r->t_seq;
    /* as the simulation splits a request: the batching wait is data wait */
    r->terms[DAM_TERM_DATA] = pre->time + bt->time;
    r->terms[DAM_TERM_TRANSFER] = tr->time;
    r->terms[DAM_TERM_COMPUTE] = t;
    r->terms[DAM_TERM_OVERHEAD] = r->t_latency;
    r->serving.t_batch1 = fw->time;
    r->model_flops_step = dam_analytic_model_flops(s) / s->workload.batch_size;
    double peak = dam_scenario_peak(s);
    r->mfu = peak > 0.0 ? r->model_flops_step / (r->step * peak) : 0.0;
    /* A full batch, for the weight-bandwidth versus compute story. */
    dam_analytic_compute(s, v->max_batch, &cp, NULL, NULL);
    r->serving.t_batch_max = cp.fwd + dam_analytic_overhead(s) + cp.launch;
    serving_capacity(s, &r->serving);
    r->throughput = r->serving.overloaded ? r->serving.capacity : v->rate;
    r->serving.throughput = r->throughput;
    memory(s, r);
    /* served at the rate, or past the capacity at the capacity */
    double x = r->throughput;
    double horizon = x > 0.0 ? v->requests / x : 0.0;
    /* busy: each request computes t on one of the replicas */
    double busy = x * t / (s->serving.replicas > 0 ? s->serving.replicas
                                                   : 1);
    busy = busy < 1.0 ? busy : 1.0;
    cost(s, r, horizon, busy);
    dam_serving_cost_per_1k(s, s->serving.replicas, x, busy, &r->serving);
}

void dam_analytic_solve(const dam_scenario *s, dam_result *r)
{
    dam_analytic_solve_memo(s, r, NULL);
}

/* The optimizer's stage and its roofline phase (training): it reads and
 * writes master weights and moments, reads the gradients and writes the
 * 16-bit weights of this GPU's shard in opt seconds. */
static void optimizer_stage(const dam_scenario *s, dam_result *r, double opt)
{
    const dam_workload *w = &s->workload;
    dam_stage *os = stage(r, "optimizer");
    double elem = dam_precision_bytes(w->precision);
    os->bytes = w->model.params * w->weight_scale *
                (2.0 * (w->master_bytes + w->optimizer_bytes) +
                 w->grad_bytes + (elem < 4.0 ? elem : 0.0)) /
                (w->zero_stage >= 1 ? (double)r->gpus : 1.0);
    os->bw = os->bytes / (opt > 0.0 ? opt : 1.0);
    os->t_data = opt;
    os->time = opt;
    dam_phase_result *ph = &r->phases[r->nphases++];
    memset(ph, 0, sizeof *ph);
    copy_name(ph->name, sizeof ph->name, "optimizer");
    ph->kind = DAM_PHASE_ELEMENTWISE;
    ph->bytes = os->bytes;
    ph->flops = 10.0 * w->model.params * w->weight_scale;
    ph->intensity = ph->flops / ph->bytes;
    ph->peak = dam_scenario_peak(s);
    ph->ridge = ph->peak / s->machine.gpu.mem_bw;
    ph->t_memory = opt;
    ph->t_compute = ph->peak > 0.0 && w->eta > 0.0
                        ? ph->flops / (ph->peak * w->eta)
                        : 0.0;
    ph->time = opt;
    ph->memory_bound = 1;
}

/* The gradient all-reduce's stage (training on more than one GPU): its
 * time, and in *exposed what the backward does not hide (with
 * overlap_sync: the last bucket, or what outlasts the backward). */
static double grad_sync(const dam_scenario *s, dam_result *r, double bwd,
                        double *exposed)
{
    dam_stage *sy = stage(r, "sync");
    double gbytes = dam_analytic_grad_bytes(s);
    double nb = ceil(gbytes / s->pipeline.bucket_bytes);
    if (nb < 1.0)
        nb = 1.0;
    sy->bytes = gbytes;
    double bw_time = dam_analytic_allreduce(s, gbytes);
    sy->bw = bw_time > 0.0 ? gbytes / bw_time : 0.0;
    sy->t_data = bw_time;
    sy->t_lat = nb * dam_analytic_allreduce_latency(s);
    double t_comm = sy->t_data + sy->t_lat;
    sy->time = t_comm;
    if (s->pipeline.overlap_sync) {
        double last = t_comm / nb;
        double rest = t_comm - bwd * (nb - 1.0) / nb;
        *exposed = last > rest ? last : rest;
    } else {
        *exposed = t_comm;
    }
    return t_comm;
}

double dam_analytic_rank_spread(const dam_scenario *s, double *cv_decode)
{
    *cv_decode = 0.0;
    if (s->mode != DAM_MODE_TRAINING || s->pipeline.loader_workers > 0 ||
        s->layout.on)
        return 0.0;
    int g = dam_scenario_gpus(s);
    if (g < 2)
        return 0.0;
    const dam_data *d = &s->data;
    if (!d->decode_on_gpu) {
        switch (d->decode_dist) {
        case DAM_DIST_EXPONENTIAL:
            *cv_decode = 1.0;
            break;
        case DAM_DIST_LOGNORMAL:
        case DAM_DIST_UNIFORM:
        case DAM_DIST_NORMAL:
            *cv_decode = d->decode_cv;
            break;
        case DAM_DIST_EMPIRICAL: {
            double m = 0.0, v = 0.0;
            for (int i = 0; i < d->ndecode_samples; i++)
                m += d->decode_samples[i];
            m /= d->ndecode_samples > 0 ? d->ndecode_samples : 1;
            for (int i = 0; i < d->ndecode_samples; i++)
                v += (d->decode_samples[i] - m) * (d->decode_samples[i] - m);
            v /= d->ndecode_samples > 1 ? d->ndecode_samples - 1 : 1;
            *cv_decode = m > 0.0 ? sqrt(v) / m : 0.0;
            break;
        }
        default:
            break;
        }
    }
    /* Blom's approximation of the mean of the largest of g standard
     * normals: 1.43 for 8 ranks (1.42 exactly) */
    return gsl_cdf_ugaussian_Pinv((g - 0.375) / (g + 0.25));
}

double dam_analytic_rank_wait(const dam_scenario *s, double e, double cv_decode,
                              double decode_s, double t_compute)
{
    double sl = cv_decode * decode_s, sc = s->workload.compute_cv * t_compute;
    return e * sqrt(s->workload.batch_size * sl * sl + sc * sc);
}

/* Loading in the loop with the ranks in lockstep (a collective every
 * step), a step waits for the slowest rank's load and compute: the mean of
 * the largest of G, into the step, its waiting term, T_seq and a row of
 * the iron law (left out, 8 GPUs each decoding one sample of an
 * exponential 16.8 ms read 22.9 ms against a simulated 50.3). */
static void rank_wait(const dam_scenario *s, dam_result *r, double t_compute)
{
    double cv_dec, e = dam_analytic_rank_spread(s, &cv_dec);
    if (!(e > 0.0))
        return;
    double w = dam_analytic_rank_wait(s, e, cv_dec, s->data.decode_s,
                                      t_compute);
    if (!(w > 0.0))
        return;
    r->terms[DAM_TERM_WAIT] = w;
    r->step += w;
    r->t_seq += w;
    dam_stage *x = stage(r, "waiting for ranks");
    x->t_lat = w;
    x->time = w;
}

static dam_bound serving_bound(const dam_result *r);

static void solve(const dam_scenario *s, dam_result *r,
                  dam_analytic_memo *memo, const dam_graph *g,
                  const dam_graph_cost *given, int figures);

void dam_analytic_solve_memo(const dam_scenario *s, dam_result *r,
                             dam_analytic_memo *memo)
{
    solve(s, r, memo, NULL, NULL, 0);
}

void dam_analytic_solve_given(const dam_scenario *s, dam_result *r,
                              const dam_graph *g, const dam_graph_cost *gc)
{
    solve(s, r, NULL, g, gc, 0);
}

void dam_analytic_figures_given(const dam_scenario *s, dam_result *r,
                                const dam_graph *g, const dam_graph_cost *gc)
{
    solve(s, r, NULL, g, gc, !s->layout.on && s->mode != DAM_MODE_SERVING);
}

void dam_analytic_row_memo(const dam_scenario *s, dam_result *r,
                           dam_analytic_memo *memo)
{
    solve(s, r, memo, NULL, NULL,
          !s->layout.on && s->mode != DAM_MODE_SERVING ? 2 : 0);
}

/* The solve; figures: 1 for the figures and the bound alone (training or
 * inference without a layout): the same operations on the way to them,
 * none of the rest (r is not cleared; the breakdown's rates, MFU, the
 * memory footprint and the quality are left out); 2: those and the
 * memory footprint (a sweep's row). */
static void solve(const dam_scenario *s, dam_result *r,
                  dam_analytic_memo *memo, const dam_graph *g,
                  const dam_graph_cost *given, int figures)
{
    if (s->layout.on) { /* a parallel layout: its own step (parallel.h) */
        dam_parallel_solve(s, r);
        return;
    }
    if (figures) { /* what the figures' path reads before writing */
        r->nstages = 0;
        r->nphases = 0;
        memset(r->terms, 0, sizeof r->terms);
    } else {
        memset(r, 0, sizeof *r);
    }
    r->mode = s->mode;
    r->gpus = dam_scenario_gpus(s);
    r->global_batch = dam_scenario_global_batch(s);
    if (!figures)
        r->quality = dam_quality_after(s);
    if (s->mode == DAM_MODE_SERVING && s->serving.llm.enabled) {
        dam_llm_solve_static(s, r);
        return;
    }
    if (s->mode == DAM_MODE_SERVING) {
        r->gpus = s->serving.replicas;
        solve_serving(s, r);
        r->bound = serving_bound(r);
        return;
    }
    const dam_workload *w = &s->workload;
    double b = w->batch_size;

    double t_load_lower, read_alone = 0.0, load_rest = 0.0, load_seq;
    double t_load = loader(s, r, &t_load_lower, &read_alone, &load_rest,
                           &load_seq);

    dam_stage *tr = stage(r, "transfer");
    tr->bytes = b * dam_scenario_copy_bytes(s);
    tr->bw = dam_analytic_h2d_bw(s);
    tr->t_data = tr->bytes / tr->bw;
    tr->time = tr->t_data;

    /* Compute: the graph's passes on the device (or the phases' roofline,
     * backward = twice the forward, for a model without architecture). */
    dam_compute cp;
    compute(s, b, &cp, r->phases, &r->nphases, memo, g, given, figures);
    double fwd = cp.fwd;
    double pf = pass_factor(s);
    dam_stage *fs = stage(r, "forward");
    dam_stage *bs = NULL;
    fs->t_ops = fwd;
    double gpu_decode = s->data.decode_on_gpu ? b * s->data.gpu_decode_s : 0.0;
    fs->time = fwd + gpu_decode;
    double bwd = 0.0;
    if (s->mode == DAM_MODE_TRAINING) {
        bs = stage(r, "backward");
        bwd = cp.bwd;
        bs->t_ops = bwd;
        bs->time = bwd;
    }
    double opt = dam_analytic_optimizer(s);
    if (s->mode == DAM_MODE_TRAINING)
        optimizer_stage(s, r, opt);
    /* Annotate rates of the compute stages for the breakdown table. */
    for (int i = 0; i < (figures ? 0 : r->nstages); i++) {
        dam_stage *st = &r->stages[i];
        if (st == fs || st == bs) {
            double share = st == fs ? 1.0 : pf - 1.0;
            st->ops = dam_analytic_model_flops(s) / (s->mode ==
                      DAM_MODE_TRAINING ? 3.0 : 1.0) * share;
            /* achieved model FLOP/s (graph), or the legacy peak x eta */
            st->rate = cp.graph ? (st->t_ops > 0.0 ? st->ops / st->t_ops
                                                   : 0.0)
                                : dam_scenario_peak(s) * w->eta;
        }
    }
    double t_compute = fwd + bwd + opt + gpu_decode;

    /* Gradient sync. */
    double t_comm = 0.0, exposed_comm = 0.0;
    if (s->mode == DAM_MODE_TRAINING && r->gpus > 1)
        t_comm = grad_sync(s, r, bwd, &exposed_comm);

    double lat = dam_analytic_overhead(s) + cp.launch;
    dam_stage *ov = stage(r, "overhead");
    ov->t_lat = lat;
    ov->time = lat;

    r->t_data = t_load;
    r->t_transfer = tr->time;
    r->t_compute = t_compute;
    r->t_comm = t_comm;
    r->t_latency = lat;
    /* nothing overlapped: the iron-law table's rows one after another
     * (the loader's read, then its decode on the cores it has), which
     * is at least the loader's time per batch with its workers reading
     * while others decode */
    if (load_seq < t_load)
        load_seq = t_load;
    r->t_seq = load_seq + tr->time + t_compute + t_comm + lat;
    /* Perfect overlap: every resource busy at once. L_lat (launches and
     * framework dispatch) is serial with the GPU's own work, so it joins the
     * compute term; loader workers, copies and the network overlap it. */
    double mx = t_load_lower;
    if (tr->time > mx)
        mx = tr->time;
    if (t_compute + lat > mx)
        mx = t_compute + lat;
    if (t_comm > mx)
        mx = t_comm;
    r->t_pipe = mx;

    /* The configured pipeline's steady state. */
    double gpu = t_compute + lat + exposed_comm;
    double data_wait = t_load;
    double xfer = exposed_copy(s, tr->time, gpu, read_alone, load_rest,
                               &data_wait);
    gpu += xfer;
    if (s->pipeline.loader_workers > 0)
        data_wait = t_load > gpu ? t_load - gpu : 0.0;
    else /* the loop's load, out of lockstep when nothing syncs */
        r->t_data = data_wait;
    r->terms[DAM_TERM_DATA] = data_wait;
    r->terms[DAM_TERM_TRANSFER] = xfer;
    r->terms[DAM_TERM_COMPUTE] = t_compute;
    r->terms[DAM_TERM_COMM] = exposed_comm;
    r->terms[DAM_TERM_OVERHEAD] = lat;
    r->step = data_wait + gpu;
    rank_wait(s, r, t_compute);


    r->bound = dam_analytic_bound(s, r, 0.0);
    r->throughput = r->global_batch / r->step;
    if (!figures) {
        r->model_flops_step = dam_analytic_model_flops(s);
        r->tokens_per_s = r->throughput * w->model.seq_len;
        double peak = dam_scenario_peak(s);
        r->mfu = peak > 0.0 ? r->model_flops_step / (r->step * peak) : 0.0;
        r->io_overhead = data_wait / r->step;
    }
    r->steps_per_epoch = dam_scenario_steps_per_epoch(s);
    r->epoch_time = r->steps_per_epoch * r->step;
    r->run_time = r->epoch_time * dam_scenario_run_epochs(s);
    if (figures == 2)
        memset(&r->memory, 0, sizeof r->memory);
    if (figures != 1)
        memory(s, r);
    cost(s, r, r->run_time, r->step > 0.0 ? t_compute / r->step : 0.0);
}

/* Compute binds as memory when its memory-bound phases take more than
 * half of it. */
static dam_bound compute_or_memory(const dam_result *r)
{
    double mem = 0.0;
    for (int i = 0; i < r->nphases; i++)
        if (r->phases[i].memory_bound)
            mem += r->phases[i].time;
    return mem > 0.5 * r->t_compute ? DAM_BOUND_MEMORY : DAM_BOUND_COMPUTE;
}

/* What binds a request's latency, analytically: its largest term (it was
 * "fixed latency" whatever they were: the L4 example's 2.08 ms of launches
 * marked as binding beside 4.00 ms of preprocessing, which its simulation
 * named). */
static dam_bound serving_bound(const dam_result *r)
{
    /* past its capacity the queue binds, whatever a lone request's terms:
     * the part that sets the capacity */
    if (r->serving.overloaded)
        return r->serving.capacity_by;
    int best = DAM_TERM_DATA;
    for (int t = 1; t < DAM_TERM_COUNT; t++)
        if (r->terms[t] > r->terms[best] * (1.0 + 1e-9))
            best = t;
    switch (best) {
    case DAM_TERM_DATA:
        /* a batching wait longer than the preprocessing binds as the
         * simulation's does (diagnose_serving.c): latency */
        for (int i = 0; i < r->nstages; i++)
            if (strcmp(r->stages[i].name, "batching") == 0 &&
                r->stages[i].time > 0.5 * r->terms[DAM_TERM_DATA])
                return DAM_BOUND_LATENCY;
        return DAM_BOUND_PREPROCESS;
    case DAM_TERM_TRANSFER:
        return DAM_BOUND_TRANSFER;
    case DAM_TERM_COMPUTE:
        return compute_or_memory(r);
    default:
        return DAM_BOUND_LATENCY;
    }
}

dam_bound dam_analytic_bound(const dam_scenario *s, const dam_result *r,
                             double floor)
{
    if (s->pipeline.loader_workers > 0 && r->terms[DAM_TERM_DATA] > floor)
        return DAM_BOUND_DATA;
    if (copy_overlaps(s) && r->terms[DAM_TERM_TRANSFER] > floor)
        return DAM_BOUND_TRANSFER;
    int best = DAM_TERM_DATA;
    for (int t = 1; t < DAM_TERM_COUNT; t++)
        if (r->terms[t] > r->terms[best])
            best = t;
    static const dam_bound map[DAM_TERM_COUNT] = {
        DAM_BOUND_DATA, DAM_BOUND_TRANSFER, DAM_BOUND_COMPUTE, DAM_BOUND_COMM,
        DAM_BOUND_LATENCY, DAM_BOUND_COMPUTE};
    dam_bound b = map[best];
    if (best == DAM_TERM_WAIT && r->terms[DAM_TERM_DATA] > 0.0)
        b = DAM_BOUND_DATA;
    return b == DAM_BOUND_COMPUTE ? compute_or_memory(r) : b;
}
