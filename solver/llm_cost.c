/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm_cost.c: iteration times of LLM serving from the operator graph and
 * the device model (see llm_cost.h for the split and why it is exact up
 * to the final norm).
 *
 * The caches hold device costs, not guesses: an entry is the cost of a
 * graph the builder made for exactly that row or sequence count. They are
 * filled on first use, so a simulation that only ever sees a few batch
 * shapes costs only those. NaN marks an empty entry.
 */
#include "solver/llm_cost.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/graph.h"
#include "model/lever.h"
#include "model/llm.h"
#include "model/quality.h"

enum { DAM_LLM_ROW_BLOCK = 256 };

/* A row of lin(R) or head(S): time, kernels, comm (the head's 0); t NaN:
 * not filled yet. */
struct cost_row {
    double t, k, c;
};

struct dam_llm_cost {
    dam_model_spec m;     /* the model, attention fused (serving kernels) */
    dam_gpu gpu;          /* copies: the context outlives its scenario */
    dam_framework fw;
    int tp;
    int layers;
    dam_cost_opts lin;    /* GEMMs and the rest of the layer */
    dam_cost_opts att;    /* fused attention */
    dam_attn_prep attp;   /* its rates, derived once */
    double iteration_s;   /* host overhead per iteration, s */
    double seq_s;         /* and per sequence of the iteration, s */
    int overlap;          /* host work hidden behind the GPU's */
    double swap_bw;       /* pinned host copies, bytes/s */
    double gpu_scale;     /* multiplies the GPU's kernel time (not the
                             tensor-parallel collectives): the workload's
                             flops_scale, which the uncertainty draws move
                             by the model's step error and structured
                             pruning by the share of weights kept (both
                             move bytes_scale with it) */
    int cap;              /* cache entries: rows 0..cap-1 */
    /* lin(R) and head(S), filled on first use in blocks of
     * DAM_LLM_ROW_BLOCK rows allocated as they are first touched: a
     * simulation visits a few hundred of the token budget's rows, and
     * filling the whole table at every create cost more page faults than
     * the simulation's work (a what-if creates thousands) */
    int nblk;
    struct cost_row **linb;
    struct cost_row **headb;
    double weight_bytes;  /* weights read per iteration on one GPU */
    int act_quant;        /* W8A8/W4A4: activations quantized per GEMM */
    double quant_inv_bw;  /* s per byte of that kernel */
    dam_llm_cost *draft;  /* speculative decoding's draft (NULL: none) */
    int spec_k;           /* its tokens per step */
    dam_graph g;          /* scratch for builds */
    dam_op att_ops[2];    /* an iteration's fused attention, per layer:
                             its prefill chunks, its decodes (made once;
                             each iteration sets their work) */
};

/* Drop the attention operators of g (the split costs them itself). */
static void drop_attention(dam_graph *g)
{
    int n = 0;
    for (int i = 0; i < g->nops; i++)
        if (g->ops[i].kind != DAM_OP_ATTN)
            g->ops[n++] = g->ops[i];
    g->nops = n;
}

/* Per-token activation quantization before every quantized linear GEMM
 * (not the lm_head nor a router): DAM_LLM_ACT_QUANT_S each, plus 2 bytes
 * read and 1 written per input element (model/llm.h). */
static double act_quant_time(const dam_llm_cost *c, const dam_graph *g)
{
    if (!c->act_quant)
        return 0.0;
    double t = 0.0;
    for (int i = 0; i < g->nops; i++) {
        const dam_op *op = &g->ops[i];
        if (op->kind != DAM_OP_GEMM || !(op->flags & DAM_OPF_WEIGHT) ||
            strcmp(op->name, "lm_head") == 0 ||
            strcmp(op->name, "router") == 0)
            continue;
        t += op->count * (DAM_LLM_ACT_QUANT_S +
                          3.0 * op->m * op->groups * op->k * c->quant_inv_bw);
    }
    return t;
}

/* Cost of the non-attention part of iteration `it`: time, kernels, comm. */
static void cost_part(dam_llm_cost *c, const dam_llm_iter *it, double *t,
                      double *k, double *comm)
{
    dam_error e;
    dam_graph_cost gc;
    *t = *k = *comm = 0.0;
    if (dam_graph_llm_iteration(&c->g, &c->m, it, &e) != DAM_OK)
        return; /* checked at create: cannot happen for a valid shape */
    drop_attention(&c->g);
    dam_device_cost(&c->g, &c->lin, &gc);
    *t = gc.time + act_quant_time(c, &c->g);
    *k = gc.kernels;
    *comm = gc.comm_time;
}

static void fill_lin(dam_llm_cost *c, int r, struct cost_row *l)
{
    dam_llm_iter it = {.prefill_seqs = 1.0, .prefill_tokens = r, .tp = c->tp,
                       .no_head = 1};
    cost_part(c, &it, &l->t, &l->k, &l->c);
}

static void fill_head(dam_llm_cost *c, int s, struct cost_row *h)
{
    dam_llm_iter it = {.decode_seqs = s, .tp = c->tp};
    double t1, k1, c1, t0, k0, c0;
    cost_part(c, &it, &t1, &k1, &c1);
    it.no_head = 1;
    cost_part(c, &it, &t0, &k0, &c0);
    h->t = t1 - t0 > 0.0 ? t1 - t0 : 0.0;
    h->k = k1 - k0 > 0.0 ? k1 - k0 : 0.0;
    h->c = 0.0;
}

/* Row i of a table in blocks, its block allocated (rows not filled) on
 * first touch. */
static struct cost_row *row_at(struct cost_row **blocks, int i)
{
    struct cost_row **b = &blocks[i / DAM_LLM_ROW_BLOCK];
    if (!*b) {
        *b = dam_malloc(DAM_LLM_ROW_BLOCK * sizeof **b);
        for (int j = 0; j < DAM_LLM_ROW_BLOCK; j++)
            (*b)[j].t = NAN;
    }
    return &(*b)[i % DAM_LLM_ROW_BLOCK];
}

/* A fused-attention operator, per layer, its work left 0 (each
 * iteration sets it). */
static void att_op(dam_op *o, int layers)
{
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "flash_attn");
    o->kind = DAM_OP_ATTN;
    o->pass = DAM_PASS_FWD;
    o->scale = DAM_SCALE_NONE;
    o->count = layers;
    o->groups = 1.0;
    o->kernels = 1.0;
}

dam_llm_cost *dam_llm_cost_create(const dam_scenario *s, int tp,
                                  dam_error *e)
{
    const dam_llm *q = &s->serving.llm;
    if (s->workload.model.arch.kind != DAM_ARCH_TRANSFORMER) {
        dam_error_set(e, s->file, 0, "LLM serving needs a transformer model");
        return NULL;
    }
    /* zeroed but for the scratch graph's operators (35 KB a create: the
     * builders write each operator they add, and nothing reads past
     * nops) */
    dam_llm_cost *c = dam_malloc(sizeof *c);
    memset(c, 0, offsetof(dam_llm_cost, g.ops));
    memset(c->att_ops, 0, sizeof c->att_ops);
    c->m = s->workload.model;
    /* serving engines run fused (paged) attention whatever the training
     * code used */
    c->m.arch.tf.attn = DAM_ATTN_FLASH;
    c->gpu = s->machine.gpu;
    c->fw = s->workload.fw;
    c->tp = tp > 1 ? tp : 1;
    c->layers = c->m.arch.tf.layers;
    dam_llm_iter probe = {.decode_seqs = 1.0, .tp = c->tp};
    if (dam_graph_llm_iteration(&c->g, &c->m, &probe, e) != DAM_OK) {
        dam_free(c);
        return NULL;
    }
    /* weights a step reads: all but the input embedding, of which it
     * gathers a row per token (the head reads a tied table anyway) */
    const dam_transformer *tf = &c->m.arch.tf;
    double embed = tf->tied ? 0.0 : (double)tf->vocab / c->tp * tf->hidden;
    c->weight_bytes = (c->g.params - embed) * dam_llm_weight_bytes(s);
    c->act_quant = dam_llm_act_quant(q->weights);
    {
        double mf = s->workload.eta_mem_given ? s->workload.eta_mem
                                              : c->gpu.dev.mem.v;
        double bw = c->gpu.mem_bw * mf;
        c->quant_inv_bw = bw > 0.0 ? 1.0 / bw : 0.0;
    }

    dam_cost_opts *o = &c->lin;
    o->gpu = &c->gpu;
    o->fw = &c->fw;
    o->prec = dam_llm_gemm_precision(s);
    o->b = 1.0;
    o->act_elem = dam_precision_bytes(dam_llm_act_precision(s));
    o->weight_elem = dam_llm_weight_bytes(s);
    o->matmul_peak_scale = dam_llm_gemm_peak_scale(s);
    o->kv_elem = dam_llm_kv_bytes(s);
    /* weights beyond twice the usable L2 leave nothing of themselves in
     * it for the next step (device.c's footprint rule), nor do caches */
    o->weights_stream = c->weight_bytes > 2.0 * c->gpu.l2_bytes *
                                              c->gpu.dev.l2_frac.v;
    o->mem_frac = s->workload.eta_mem_given ? s->workload.eta_mem : 0.0;
    o->launch_s = s->workload.launch_s;
    o->cuda_graphs = s->workload.cuda_graphs;
    /* tensor parallelism inside the node: its GPU fabric */
    o->comm_busbw = c->gpu.dev.busbw.v > 0.0 ? c->gpu.dev.busbw.v
                                             : s->machine.intra_busbw;
    o->comm_alpha = s->machine.net_latency;
    c->att = *o;
    c->att.prec = dam_llm_act_precision(s);
    c->att.weight_elem = 0.0;
    dam_device_attn_prepare(&c->att, &c->attp);

    c->gpu_scale = s->workload.flops_scale > 0.0 ? s->workload.flops_scale
                                                 : 1.0;
    c->iteration_s = q->iteration_s;
    c->seq_s = q->iteration_seq_s;
    c->overlap = q->overlap;
    c->swap_bw = 0.0;
    {
        /* pinned copies; the scenario's host link when the GPU has none */
        double bw = c->gpu.dev.h2d.v > 0.0 ? c->gpu.dev.h2d.v
                                           : s->machine.pcie_bw;
        c->swap_bw = bw > 0.0 ? bw : 1e9;
    }
    if (q->spec) {
        /* the draft: the same scenario with the draft's model, no
         * speculation, costed the same way */
        dam_scenario *ds = dam_malloc(sizeof *ds);
        *ds = *s;
        ds->workload.model = q->spec_draft;
        ds->workload.model.params = 0.0; /* from its architecture */
        ds->serving.llm.spec = DAM_LLM_SPEC_NONE;
        ds->serving.llm.iteration_s = ds->serving.llm.iteration_seq_s = 0.0;
        c->draft = dam_llm_cost_create(ds, c->tp, e);
        dam_free(ds);
        if (!c->draft) {
            dam_free(c);
            return NULL;
        }
        c->spec_k = q->spec_tokens;
    }
    c->cap = (q->token_budget > 0 ? q->token_budget : 1) + 1;
    c->nblk = (c->cap + DAM_LLM_ROW_BLOCK - 1) / DAM_LLM_ROW_BLOCK;
    c->linb = dam_calloc((size_t)c->nblk, sizeof *c->linb);
    c->headb = dam_calloc((size_t)c->nblk, sizeof *c->headb);
    att_op(&c->att_ops[0], c->layers);
    att_op(&c->att_ops[1], c->layers);
    return c;
}

void dam_llm_cost_free(dam_llm_cost *c)
{
    if (!c)
        return;
    dam_llm_cost_free(c->draft);
    for (int i = 0; i < c->nblk; i++) {
        dam_free(c->linb[i]);
        dam_free(c->headb[i]);
    }
    dam_free(c->linb);
    dam_free(c->headb);
    dam_free(c);
}

void dam_llm_batch_clear(dam_llm_batch *b)
{
    memset(b, 0, sizeof *b);
}

void dam_llm_batch_prefill(const dam_llm_cost *c, dam_llm_batch *b,
                           double q, double past)
{
    double f, el, kv;
    dam_graph_llm_attention(&c->m.arch.tf, c->tp, 1.0, q, past,
                            c->m.arch.tf.causal, &f, &el, &kv);
    b->prefill_tokens += q;
    b->prefill_seqs += 1.0;
    b->prefill_flops += f;
    b->prefill_elems += el;
    b->prefill_kv += kv;
}

/* An iteration's duration from its device path (GPU, launches not
 * hidden, swaps) and its S sequences: the engine's host work (fixed + per
 * sequence) after it, or beside it with an overlapping scheduler. */
static double with_host(const dam_llm_cost *c, double device, double S)
{
    double host = c->iteration_s + c->seq_s * S;
    if (c->overlap)
        return device > host ? device : host;
    return device + host;
}

/* The cache row of a row or sequence count: v rounded, in 1..cap-1.
 * The simulator's counts are whole (sums of whole tokens), so most need
 * no llround. */
static int cache_row(const dam_llm_cost *c, double v)
{
    if (v >= 1.0 && v < (double)c->cap) {
        int i = (int)v;
        if ((double)i == v)
            return i;
    }
    long long i = llround(v);
    if (i >= c->cap)
        i = c->cap - 1;
    if (i < 1)
        i = 1;
    return (int)i;
}

double dam_llm_cost_iteration(dam_llm_cost *c, const dam_llm_batch *b,
                              dam_llm_iter_time *split)
{
    double dq = b->decode_q > 0.0 ? b->decode_q : 1.0;
    /* every verified token is a row of the GEMMs and of the head */
    double R = b->prefill_tokens + b->decode_seqs * dq;
    double S = b->prefill_seqs + b->decode_seqs * dq;
    int r = cache_row(c, R), sq = cache_row(c, S);
    struct cost_row *lr = row_at(c->linb, r);
    if (isnan(lr->t))
        fill_lin(c, r, lr);
    struct cost_row *hr = row_at(c->headb, sq);
    if (isnan(hr->t))
        fill_head(c, sq, hr);

    /* the operators in the graph's order: prefill, then decode */
    dam_op *ops = c->att_ops;
    int nops = 0;
    if (b->prefill_seqs > 0.0) {
        ops[0].flops = b->prefill_flops;
        ops[0].elems = b->prefill_elems;
        ops[0].kv_elems = b->prefill_kv;
        nops = 1;
    } else {
        ops++;
    }
    if (b->decode_seqs > 0.0) {
        dam_op *o = &c->att_ops[1];
        /* linear in the sequences and their contexts: the mean is exact */
        dam_graph_llm_attention(&c->m.arch.tf, c->tp, b->decode_seqs, dq,
                                b->decode_ctx / b->decode_seqs,
                                dq > 1.0 ? c->m.arch.tf.causal : 0,
                                &o->flops, &o->elems, &o->kv_elems);
        nops++;
    }
    /* the same double as dam_device_cost of a one-phase graph of these
     * operators under c->att, without deriving the rates again */
    double ka = 0.0;
    double ta = nops ? dam_device_attn_cost(&c->attp, ops, nops, &ka) : 0.0;

    double draft = 0.0;
    if (c->draft && b->decode_seqs > 0.0) {
        /* k proposal steps of the draft over the decoding sequences */
        dam_llm_batch db;
        dam_llm_batch_clear(&db);
        db.decode_seqs = b->decode_seqs;
        db.decode_ctx = b->decode_ctx;
        dam_llm_iter_time dt;
        dam_llm_cost_iteration(c->draft, &db, &dt);
        /* GPU time and launches not hidden (the draft has no host
         * overhead of its own: the target's iteration pays it) */
        draft = c->spec_k * dt.total;
    }
    double comm = lr->c, g = c->gpu_scale;
    /* the draft's own create scaled its time */
    double gpu = (lr->t - comm + hr->t + ta) * g + comm + draft;
    double kern = lr->k + hr->k + ka;
    double host = c->lin.cuda_graphs ? c->lin.launch_s
                                     : kern * c->lin.launch_s;
    double excess = host > gpu - comm ? host - (gpu - comm) : 0.0;
    double swap = b->swap_bytes > 0.0 ? b->swap_bytes / c->swap_bw : 0.0;
    double total = with_host(c, gpu + excess + swap, S);
    if (split) {
        split->total = total;
        split->gpu = gpu;
        split->linear = (lr->t - comm) * g + draft;
        split->comm = comm;
        split->head = hr->t * g;
        split->attn = ta * g;
        split->host = total - gpu - swap;
        split->swap = swap;
    }
    return total;
}

double dam_llm_cost_iteration_graph(const dam_llm_cost *c,
                                    const dam_llm_batch *b, double chunk_q,
                                    double chunk_past)
{
    dam_llm_iter it = {.prefill_seqs = b->prefill_seqs,
                       .prefill_tokens = chunk_q,
                       .prefill_past = chunk_past,
                       .decode_seqs = b->decode_seqs,
                       .decode_ctx = b->decode_seqs > 0.0
                                         ? b->decode_ctx / b->decode_seqs
                                         : 0.0,
                       .tp = c->tp};
    dam_graph *g = dam_malloc(sizeof *g);
    dam_error e;
    double t = NAN;
    if (dam_graph_llm_iteration(g, &c->m, &it, &e) == DAM_OK) {
        dam_graph_cost gc;
        dam_device_cost(g, &c->lin, &gc);
        t = with_host(c, gc.time + gc.host_excess,
                      b->prefill_seqs + b->decode_seqs);
    }
    dam_free(g);
    return t;
}

double dam_llm_cost_weight_bytes(const dam_llm_cost *c)
{
    return c->weight_bytes;
}

const dam_cost_opts *dam_llm_cost_opts(const dam_llm_cost *c)
{
    return &c->lin;
}

double dam_llm_cost_prefill(dam_llm_cost *c, double in, double chunk)
{
    return dam_llm_cost_prefill_from(c, 0.0, in, chunk);
}

double dam_llm_cost_prefill_from(dam_llm_cost *c, double cached, double in,
                                 double chunk)
{
    double t = 0.0, done = cached;
    double step = chunk > 0.0 ? chunk : in;
    while (done < in) {
        double qn = in - done < step ? in - done : step;
        dam_llm_batch b;
        dam_llm_batch_clear(&b);
        dam_llm_batch_prefill(c, &b, qn, done);
        t += dam_llm_cost_iteration(c, &b, NULL);
        done += qn;
    }
    return t;
}

double dam_llm_cost_decode1(dam_llm_cost *c, double ctx)
{
    dam_llm_batch b;
    dam_llm_batch_clear(&b);
    b.decode_seqs = 1.0;
    b.decode_ctx = ctx;
    return dam_llm_cost_iteration(c, &b, NULL);
}

void dam_llm_solve_static(const dam_scenario *s, dam_result *r)
{
    const dam_llm *q = &s->serving.llm;
    dam_llm_result *l = &r->serving.llm;
    l->enabled = 1;
    l->slo_ttft_s = q->slo_ttft_s;
    l->slo_tpot_s = q->slo_tpot_s;
    l->slo_quantile = q->slo_quantile;
    r->gpus = dam_llm_gpus(s);
    l->gpus = (double)r->gpus;
    /* an hour of the deployment at full load until a simulation gives the
     * replicas' busy share (sim_llm.c recosts it) */
    dam_quality_cost hour;
    l->cost_hour = dam_quality_scenario_cost(s, r->gpus, 3600.0, 1.0, &hour,
                                             NULL) == DAM_OK
                       ? hour.usd
                       : 0.0;
    int ptp = q->disaggregated ? q->prefill_tp : q->tp;
    int dtp = q->disaggregated ? q->decode_tp : q->tp;
    dam_llm_memory_plan(s, dtp, &l->memory);
    dam_llm_memory_plan(s, ptp, &l->prefill_memory);
    const dam_llm_memory *m = &l->memory;
    double per_req = dam_llm_blocks_for(s, q->input.mean + q->output.mean);
    double conc = per_req > 0.0 ? floor(m->blocks / per_req) : 0.0;
    l->max_concurrency = conc < q->max_seqs ? conc : q->max_seqs;

    dam_memory *mm = &r->memory;
    mm->weights = m->weights;
    mm->activations = m->workspace;
    mm->kv_cache = m->pool > 0.0 ? m->pool : 0.0;
    mm->capacity = m->capacity;
    int fits = m->fits && l->prefill_memory.fits;
    mm->total = fits ? m->weights + m->workspace + mm->kv_cache
                     : m->capacity + (m->shortfall > l->prefill_memory.shortfall
                                          ? m->shortfall
                                          : l->prefill_memory.shortfall);
    mm->fits = fits;
    mm->shortfall = fits ? 0.0 : mm->total - mm->capacity;

    dam_error e;
    dam_llm_cost *pc = dam_llm_cost_create(s, ptp, &e);
    dam_llm_cost *dc = dam_llm_cost_create(s, dtp, &e);
    if (pc && dc) {
        double chunk = q->chunked_prefill ? q->chunk_tokens : 0.0;
        /* the mean prompt, less its prefix-cache hit */
        l->t_prefill = dam_llm_cost_prefill_from(
            pc, dam_llm_prefix_hit(q, q->input.mean), q->input.mean, chunk);
        double mid = q->input.mean + (q->output.mean - 2.0) / 2.0;
        l->t_decode1 = dam_llm_cost_decode1(dc, mid > q->input.mean
                                                    ? mid
                                                    : q->input.mean);
        const dam_gpu *g = &s->machine.gpu;
        double mf = s->workload.eta_mem_given ? s->workload.eta_mem
                    : g->dev.mem.v > 0.0      ? g->dev.mem.v
                                              : 0.78;
        l->weight_floor = dam_llm_cost_weight_bytes(dc) / (g->mem_bw * mf);
        double tr = q->disaggregated
                        ? q->input.mean * m->kv_token_model / q->kv_link_bw +
                              q->kv_link_latency
                        : 0.0;
        /* a speculative step (its draft included) yields tokens_per_step
         * tokens on average */
        r->step = l->t_prefill + tr +
                  (q->output.mean - 1.0) * l->t_decode1 /
                      dam_llm_spec_tokens_per_step(q);
        r->terms[DAM_TERM_COMPUTE] = r->step - tr;
        r->terms[DAM_TERM_TRANSFER] = tr;
        r->t_compute = r->terms[DAM_TERM_COMPUTE];
        r->t_seq = r->t_pipe = r->step;
    }
    dam_llm_cost_free(pc);
    dam_llm_cost_free(dc);
    r->bound = !fits ? DAM_BOUND_KV_CACHE : DAM_BOUND_WEIGHTS;
}
