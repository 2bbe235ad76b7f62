/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * parallel.c: the training step of a parallel layout, analytically (see
 * parallel.h for the three levels and the step's formulas).
 *
 * What the operator graph does not hold is added here, on the graph's own
 * operators, before costing: expert parallelism regroups the expert GEMMs
 * (E / ep experts per GPU, each with ep times the rows), context
 * parallelism splits the tokens (the graph is built at seq / cp) while
 * each GPU's queries still attend to the whole sequence (attention work
 * times cp), and selective recomputation keeps only the recomputed
 * attention core (the eager score products and softmax; fused attention
 * already recomputes its scores inside its backward). Collectives are
 * costed on the network model (model/network.h), not at one bus bandwidth.
 */
#include "solver/parallel.h"

#include "model/quality.h"
#include "model/recipe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- one block ------------------------------------------------------- */

static int phase_index(const dam_graph *g, const char *name)
{
    for (int i = 0; i < g->nphases; i++)
        if (strcmp(g->phase[i], name) == 0)
            return i;
    return -1;
}

/* Rewrite g for what the graph does not model (file comment). */
static void adjust(dam_graph *g, int ep, int cp, int recompute)
{
    int pa = phase_index(g, "attention");
    int n = 0;
    for (int i = 0; i < g->nops; i++) {
        dam_op o = g->ops[i];
        if (o.pass == DAM_PASS_RECOMPUTE &&
            recompute == DAM_RECOMPUTE_SELECTIVE &&
            !(o.phase == pa && (o.kind == DAM_OP_GEMM || o.kind == DAM_OP_MEM)))
            continue; /* selective: only the eager attention core */
        if (ep > 1 && o.kind == DAM_OP_GEMM &&
            strncmp(o.name, "expert_", 7) == 0) {
            o.groups /= ep;
            if (strstr(o.name, ".wgrad"))
                o.k *= ep;
            else
                o.m *= ep;
        }
        if (cp > 1 && o.kind == DAM_OP_ATTN) {
            o.flops *= cp;
            o.elems *= cp;
        }
        g->ops[n++] = o;
    }
    g->nops = n;
}

static int build(const dam_model_spec *m, const dam_graph_opts *o, int ep,
                 int cp, int recompute, dam_graph *g, dam_error *e)
{
    if (dam_graph_build(g, m, o, e) != DAM_OK)
        return DAM_EINPUT;
    adjust(g, ep, cp, recompute);
    return DAM_OK;
}

/* GPU time of passes `mask` of g. */
static double cost_pass(const dam_graph *g, const dam_cost_opts *co0,
                        int mask, dam_graph_cost *c)
{
    dam_cost_opts co = *co0;
    co.pass_mask = mask;
    return dam_device_cost(g, &co, c);
}

/* The quantizing recipe a layout runs (NULL: every operator at the
 * workload's precision, which is what BF16 mixed precision is: with fp16
 * the same recipe in fp16). */
static const dam_recipe *recipe_of(const dam_scenario *s)
{
    const dam_recipe *r = dam_recipe_get(s->workload.recipe);
    return r && r->linear_elem > 0.0 && r->linear_elem < 2.0 ? r : NULL;
}

/* Bytes per activation element: the recipe's higher format, else the
 * precision's. */
static double act_bytes(const dam_scenario *s)
{
    const dam_recipe *r = recipe_of(s);
    return dam_precision_bytes(r ? r->other : s->workload.precision);
}

#define FWD_MASK (1 << DAM_PASS_FWD)
#define BWD_MASK ((1 << DAM_PASS_BWD) | (1 << DAM_PASS_RECOMPUTE))

int dam_parallel_layers_cost(const dam_scenario *s, int tp, int sp, int cp,
                             int ep, int micro_batch, int recompute,
                             dam_parallel_layers *out, dam_error *e)
{
    const dam_model_spec *m = &s->workload.model;
    memset(out, 0, sizeof *out);
    if (m->arch.kind != DAM_ARCH_TRANSFORMER)
        return dam_error_set(e, NULL, 0,
                             "model \"%s\" has no transformer architecture",
                             m->id);
    const dam_transformer *t = &m->arch.tf;
    double seq = s->workload.seq_len > 0.0 ? s->workload.seq_len : m->seq_len;
    double elem = act_bytes(s);
    dam_graph_opts go;
    memset(&go, 0, sizeof go);
    go.lora_rank = s->workload.lora_rank;
    go.lora_targets = s->workload.lora_targets;
    go.nf4_bytes = s->workload.lora_nf4 ? dam_nf4_bytes() : 0.0;
    go.mode = DAM_GRAPH_TRAIN;
    go.seq_len = seq / cp;
    go.recompute = recompute != DAM_RECOMPUTE_NONE;
    /* the profile's eager operator chains (16-bit activations) and its
     * selective checkpointing (recipe.h); the graph then holds exactly
     * what is recomputed */
    const dam_fw_profile *pf = dam_profile_get(s->layout.profile);
    if (pf && elem == 2.0)
        go.eager_ops = (int)pf->eager_ops;
    go.sac_ops = pf && pf->sac_ops && recompute == DAM_RECOMPUTE_SELECTIVE;
    int grc = go.sac_ops ? DAM_RECOMPUTE_FULL : recompute;
    go.tp = tp;
    go.sequence_parallel = sp;
    go.no_optimizer = 1;
    go.layer_first = 0;
    go.layer_count = 1;
    go.no_embed = 1;
    go.no_head = 1;

    dam_cost_opts co;
    dam_cost_opts_scenario(s, micro_batch, &co);
    co.comm_busbw = 0.0;
    co.recipe = recipe_of(s);
    if (co.recipe)
        co.prec = co.recipe->other;

    dam_graph g;
    dam_graph_cost c;
    if (build(m, &go, ep, cp, grc, &g, e) != DAM_OK)
        return DAM_EINPUT;
    out->fwd = cost_pass(&g, &co, FWD_MASK, &c);
    out->fwd_flops = c.flops;
    int pa = phase_index(&g, "attention");
    int pd = phase_index(&g, "dense");
    if (pa >= 0)
        out->attn_fwd = c.phase[pa].time;
    if (pd >= 0)
        out->dense_fwd = c.phase[pd].time;
    out->bwd = cost_pass(&g, &co, BWD_MASK, &c);
    out->bwd_flops = c.flops;
    if (pa >= 0)
        out->attn_bwd = c.phase[pa].time;
    if (pd >= 0)
        out->dense_bwd = c.phase[pd].time;
    cost_pass(&g, &co, 0, &c);
    out->host = c.host_excess;
    out->nphases = g.nphases;
    for (int i = 0; i < g.nphases && i < DAM_MAX_PHASES; i++) {
        memcpy(out->phase[i], g.phase[i], sizeof out->phase[i]);
        out->phase_kind[i] = g.phase_kind[i];
        out->phase_cost[i] = c.phase[i];
    }
    /* the tensor-parallel collectives the block calls */
    for (int i = 0; i < g.nops; i++) {
        const dam_op *o = &g.ops[i];
        if (o->kind != DAM_OP_COMM)
            continue;
        int p = o->pass == DAM_PASS_FWD ? 0 : 1;
        int k = o->comm == DAM_COMM_ALLREDUCE   ? 0
                : o->comm == DAM_COMM_ALLGATHER ? 1
                                                : 2;
        if (o->comm == DAM_COMM_ALLTOALL)
            continue;
        out->tp_calls[p][k] += o->count;
        out->tp_bytes = o->elems * (o->scale == DAM_SCALE_NONE ? 1.0
                                                               : micro_batch) *
                        elem;
    }
    out->tokens = micro_batch * seq / cp;
    if (t->experts > 1 && ep > 1) {
        double K = t->top_k > 0 ? t->top_k : 1.0;
        out->a2a_calls[0] = 2.0; /* dispatch, combine */
        out->a2a_calls[1] = recompute == DAM_RECOMPUTE_FULL ? 4.0 : 2.0;
        out->a2a_bytes = out->tokens * K * t->hidden * elem / tp;
    }
    if (cp > 1) {
        double hd = t->head_dim > 0 ? t->head_dim
                                    : (double)t->hidden / t->heads;
        double hkv = t->kv_heads >= tp ? (double)t->kv_heads / tp : 1.0;
        out->kv_bytes = 2.0 * micro_batch * seq * hkv * hd * elem;
    }

    /* the embedding's and the head's extras over a plain block */
    dam_graph_opts ge = go;
    ge.no_embed = 0;
    if (build(m, &ge, ep, cp, grc, &g, e) != DAM_OK)
        return DAM_EINPUT;
    out->embed_fwd = cost_pass(&g, &co, FWD_MASK, &c) - out->fwd;
    double f1 = c.flops;
    out->embed_bwd = cost_pass(&g, &co, BWD_MASK, &c) - out->bwd;
    out->embed_flops = f1 + c.flops - out->fwd_flops - out->bwd_flops;
    dam_graph_opts gh = go;
    gh.layer_first = t->layers - 1;
    gh.no_head = 0;
    if (build(m, &gh, ep, cp, grc, &g, e) != DAM_OK)
        return DAM_EINPUT;
    out->head_fwd = cost_pass(&g, &co, FWD_MASK, &c) - out->fwd;
    f1 = c.flops;
    out->head_bwd = cost_pass(&g, &co, BWD_MASK, &c) - out->bwd;
    out->head_flops = f1 + c.flops - out->fwd_flops - out->bwd_flops;
    if (out->embed_fwd < 0.0) out->embed_fwd = 0.0;
    if (out->embed_bwd < 0.0) out->embed_bwd = 0.0;
    if (out->head_fwd < 0.0) out->head_fwd = 0.0;
    if (out->head_bwd < 0.0) out->head_bwd = 0.0;
    return DAM_OK;
}

/* ---- a layout on the network ----------------------------------------- */

int dam_parallel_chunk_kind(const dam_parallel_cost *c, int v)
{
    int first = v == 0, last = v == c->chunks - 1;
    return first && last ? DAM_CHUNK_ONLY
           : first       ? DAM_CHUNK_FIRST
           : last        ? DAM_CHUNK_LAST
                         : DAM_CHUNK_MID;
}

int dam_parallel_stage_kind(const dam_parallel_cost *c, int s)
{
    int p = c->l.pp;
    int first = s == 0, last = s == p - 1;
    return first && last ? DAM_CHUNK_ONLY
           : first       ? DAM_CHUNK_FIRST
           : last        ? DAM_CHUNK_LAST
                         : DAM_CHUNK_MID;
}

/* Add `count` calls of cost nc to transfer x (fixed part + NIC part). */
static void xfer_add(dam_parallel_xfer *x, const dam_net_cost *nc,
                     double count)
{
    if (!(count > 0.0) || !(nc->time > 0.0))
        return;
    double fab = nc->nic_rate > 0.0 ? nc->nic_bytes / nc->nic_rate : 0.0;
    x->time += count * nc->time;
    x->fixed += count * (nc->time - fab);
    x->nic_bytes += count * nc->nic_bytes;
    if (nc->nic_rate > 0.0)
        x->nic_rate = nc->nic_rate;
}

static void collective(const dam_network *net, dam_comm_kind kind,
                       double bytes, const dam_net_group *g, double count,
                       dam_parallel_xfer *x, double *traffic)
{
    dam_net_cost nc;
    if (g->n < 2 || !(bytes > 0.0))
        return;
    dam_net_collective(net, kind, bytes, g, &nc);
    xfer_add(x, &nc, count);
    if (traffic) {
        double n = g->n;
        double f = kind == DAM_COMM_ALLREDUCE ? 2.0 * (n - 1.0) / n
                                              : (n - 1.0) / n;
        *traffic += count * f * bytes;
    }
}

/* Share of the parameters LoRA trains (1 without LoRA): rank r adapters,
 * r (d_in + d_out) each, on the targeted modules of every block as PEFT
 * splits them (q, k, v, o; gate, up, down), dense MLPs only (expert
 * weights stay frozen). Llama 3 70B at rank 16 on all: 207 M. */
static double trainable_share(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    if (w->lora_rank <= 0)
        return 1.0;
    const dam_transformer *t = &w->model.arch.tf;
    dam_layout_params P;
    dam_layout_param_split(t, &P);
    double d = t->hidden, r = w->lora_rank;
    double hd = t->head_dim > 0 ? t->head_dim : d / t->heads;
    double q = t->heads * hd, kv = (t->kv_heads > 0 ? t->kv_heads : t->heads) * hd;
    double up = (t->gated ? 2.0 : 1.0) * t->ffn, a = 0.0;
    if (w->lora_targets & 1)
        a += r * (3.0 * d + q + 2.0 * kv) + r * (q + d);
    if ((w->lora_targets & 2) && t->experts <= 1)
        a += r * ((t->gated ? 2.0 : 1.0) * d + up) + r * (t->ffn + d);
    double f = P.total > 0.0 ? a * t->layers / P.total : 0.0;
    return f < 1.0 ? f : 1.0;
}

/* Bytes per parameter of the state, from the workload and its recipe. */
static void state_bytes(const dam_scenario *s, dam_state_bytes *sb)
{
    const dam_workload *w = &s->workload;
    const dam_recipe *r = recipe_of(s);
    double elem = act_bytes(s);
    double f = trainable_share(s);
    memset(sb, 0, sizeof *sb);
    sb->weight = elem;
    if (w->lora_nf4) {
        /* NF4 blocks, 16-bit embedding and head (Dettmers et al. 2023) */
        dam_layout_params P;
        dam_layout_param_split(&w->model.arch.tf, &P);
        double blk = P.total - P.embed - P.head;
        sb->weight = P.total > 0.0
                         ? (blk * dam_nf4_bytes() + (P.embed + P.head) * elem) /
                               P.total
                         : elem;
    }
    if (r)
        sb->weight += r->weight_copy; /* quantized copies over a step */
    sb->weight = (sb->weight + f * (w->lora_rank > 0 ? elem : 0.0)) *
                 w->weight_scale;
    sb->grad = f * w->grad_bytes * w->weight_scale;
    sb->optimizer = f *
                    (w->optimizer_bytes + (elem < 4.0 ? w->master_bytes : 0.0)) *
                    w->weight_scale;
    sb->act_linear = r ? r->saved_linear : 0.0;
    const dam_fw_profile *pf = dam_profile_get(s->layout.profile);
    sb->sac_ops = pf && pf->sac_ops;
    /* an eager fp32 loss (graph.h DAM_EAGER_HEAD, recipe.c [TT-OPS]):
     * log-softmax output, its incoming gradient and its result, fp32 */
    if (pf && (pf->eager_ops & DAM_EAGER_HEAD) && elem == 2.0)
        sb->logit_bytes = 12.0;
}

/* Host-to-device bandwidth one GPU gets for offload traffic: its share
 * of the host link (host.pcie_gbs over the GPUs sharing it), at most the
 * GPU's achieved pinned copy rate. */
static double host_link(const dam_scenario *s)
{
    const dam_machine *mc = &s->machine;
    double bw = mc->pcie_bw / (mc->gpus_per_pcie_link > 0
                                   ? mc->gpus_per_pcie_link : 1);
    double dev = mc->gpu.dev.h2d.v;
    return dev > 0.0 && dev < bw ? dev : bw;
}

/* Bytes per parameter reduced over data parallel (the profile's width,
 * else the kept width). */
static double grad_comm(const dam_scenario *s, const dam_state_bytes *sb)
{
    const dam_workload *w = &s->workload;
    if (!(w->grad_comm_bytes > 0.0) || !(w->grad_bytes > 0.0))
        return sb->grad;
    return sb->grad * w->grad_comm_bytes / w->grad_bytes;
}

/* Parameters of a stage of kind k on one GPU: dense and expert. */
static void stage_params(const dam_transformer *t, const dam_layout *l,
                         int kind, double *dense, double *expert)
{
    dam_layout_params P;
    dam_layout_param_split(t, &P);
    /* a stage of this kind: the first (stage 0), last or a middle one */
    int s = kind == DAM_CHUNK_FIRST || kind == DAM_CHUNK_ONLY ? 0
            : kind == DAM_CHUNK_LAST                          ? l->pp - 1
                                                              : (l->pp > 2 ? 1 : 0);
    double blocks = dam_layout_stage_blocks(l, t->layers, s);
    double d = blocks * P.dense_layer;
    if (kind == DAM_CHUNK_FIRST || kind == DAM_CHUNK_ONLY)
        d += P.embed;
    if (kind == DAM_CHUNK_LAST || kind == DAM_CHUNK_ONLY) {
        d += P.head;
        if (t->lm_head && t->tied && l->pp > 1)
            d += (double)t->vocab * t->hidden;
    }
    *dense = d / l->tp;
    *expert = blocks * P.expert_layer / ((double)l->tp * l->ep);
}

/* What the steps of dam_parallel_assemble share. */
typedef struct assembly {
    const dam_scenario *s;
    const dam_layout *l;
    const dam_parallel_layers *lc;
    const dam_transformer *t;
    const dam_network *net;
    const dam_workload *w;
    const dam_recipe *rc;
    double elem;                       /* activation bytes per element */
    double m;                          /* micro-batches per step */
    dam_net_group gtp, gcp, gdp, gep, gedp;
    dam_state_bytes sb;
    double gcb; /* gradient bytes reduced per parameter */
    double wg;  /* weight bytes gathered per parameter */
    int z3mb;   /* ZeRO-3 gathers every micro-batch */
} assembly;

/* Tensor- and context-parallel communication per block, exposed, forward
 * [0] and backward [1], and the cost of one expert all-to-all. */
static void block_comm(const assembly *x, double tpc[2], double cpc[2],
                       dam_net_cost *a2a)
{
    static const dam_comm_kind kinds[3] = {
        DAM_COMM_ALLREDUCE, DAM_COMM_ALLGATHER, DAM_COMM_REDUCESCATTER};
    tpc[0] = tpc[1] = 0.0;
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 3; k++)
            if (x->lc->tp_calls[p][k] > 0.0)
                tpc[p] += x->lc->tp_calls[p][k] *
                          dam_net_collective(x->net, kinds[k], x->lc->tp_bytes,
                                             &x->gtp, NULL);
    if (x->l->tp_overlap && x->l->tp > 1) {
        /* TP communication overlap (TE userbuffers): each collective is
         * split into tp chunks pipelined with the GEMM beside it; the
         * first chunk shows, the rest only where it outlasts its GEMM */
        double dg[2] = {x->lc->dense_fwd, x->lc->dense_bwd};
        double q = (x->l->tp - 1.0) / x->l->tp;
        for (int p = 0; p < 2; p++) {
            double rest = (tpc[p] - dg[p]) * q;
            tpc[p] = tpc[p] / x->l->tp + (rest > 0.0 ? rest : 0.0);
        }
    }
    cpc[0] = cpc[1] = 0.0;
    if (x->l->cp > 1) {
        double ag = dam_net_collective(x->net, DAM_COMM_ALLGATHER,
                                       x->lc->kv_bytes, &x->gcp, NULL);
        double rs = dam_net_collective(x->net, DAM_COMM_REDUCESCATTER,
                                       x->lc->kv_bytes, &x->gcp, NULL);
        /* ring attention overlaps each K/V step with the attention on
         * the previous one: only what the attention cannot hide shows */
        cpc[0] = ag > x->lc->attn_fwd ? ag - x->lc->attn_fwd : 0.0;
        double b = ag + rs;
        cpc[1] = b > x->lc->attn_bwd ? b - x->lc->attn_bwd : 0.0;
    }
    memset(a2a, 0, sizeof *a2a);
    if (x->lc->a2a_bytes > 0.0)
        dam_net_collective(x->net, DAM_COMM_ALLTOALL, x->lc->a2a_bytes, &x->gep,
                           a2a);
}

/* The forward and backward of a chunk of each kind: compute, FLOPs,
 * tensor- and context-parallel communication, all-to-alls and the ZeRO
 * traffic of every micro-batch. */
static void chunk_ops(const assembly *x, const double tpc[2],
                      const double cpc[2], const dam_net_cost *a2a,
                      dam_parallel_cost *out)
{
    for (int k = 0; k < DAM_CHUNK_KINDS; k++) {
        int emb = k == DAM_CHUNK_FIRST || k == DAM_CHUNK_ONLY;
        int head = k == DAM_CHUNK_LAST || k == DAM_CHUNK_ONLY;
        dam_parallel_op *f = &out->fwd[k], *b = &out->bwd[k];
        double nb = out->blocks[k];
        f->compute = nb * x->lc->fwd + (emb ? x->lc->embed_fwd : 0.0) +
                     (head ? x->lc->head_fwd : 0.0);
        b->compute = nb * x->lc->bwd + (emb ? x->lc->embed_bwd : 0.0) +
                     (head ? x->lc->head_bwd : 0.0);
        f->flops = nb * x->lc->fwd_flops;
        b->flops = nb * x->lc->bwd_flops + (emb ? x->lc->embed_flops : 0.0) +
                   (head ? x->lc->head_flops : 0.0);
        f->comm = nb * (tpc[0] + cpc[0]);
        b->comm = nb * (tpc[1] + cpc[1]);
        xfer_add(&f->a2a, a2a, nb * x->lc->a2a_calls[0]);
        xfer_add(&b->a2a, a2a, nb * x->lc->a2a_calls[1]);
        /* ZeRO traffic of every micro-batch */
        double dense, expert;
        stage_params(x->t, x->l, k, &dense, &expert);
        dense /= x->l->vpp;
        expert /= x->l->vpp;
        if (x->z3mb) {
            collective(x->net, DAM_COMM_ALLGATHER, dense * x->wg, &x->gdp, 1.0,
                       &f->zero, NULL);
            collective(x->net, DAM_COMM_ALLGATHER, expert * x->wg, &x->gedp,
                       1.0, &f->zero, NULL);
            collective(x->net, DAM_COMM_ALLGATHER, dense * x->wg, &x->gdp, 1.0,
                       &b->zero, NULL);
            collective(x->net, DAM_COMM_ALLGATHER, expert * x->wg, &x->gedp,
                       1.0, &b->zero, NULL);
        }
        if (x->l->zero >= 2) {
            collective(x->net, DAM_COMM_REDUCESCATTER, dense * x->gcb, &x->gdp,
                       1.0, &b->zero, NULL);
            collective(x->net, DAM_COMM_REDUCESCATTER, expert * x->gcb,
                       &x->gedp, 1.0, &b->zero, NULL);
        }
        f->zero_overlap = x->l->overlap_param;
        f->a2a_overlap = b->a2a_overlap = x->l->overlap_a2a;
        b->zero_overlap =
            x->l->zero >= 3 ? x->l->overlap_param : x->l->overlap_grad;
    }
}

/* Per stage: gradients at the step's end, gathers, the optimizer (on
 * the host with ZeRO-Offload); the data-parallel traffic of stage 0. */
static void stage_costs(const assembly *x, dam_parallel_cost *out)
{
    double mem_rate = x->s->machine.gpu.mem_bw *
                      (x->w->eta_mem_given ? x->w->eta_mem
                       : x->s->machine.gpu.dev.mem.v > 0.0
                           ? x->s->machine.gpu.dev.mem.v
                           : 0.78) *
                      (x->w->fw.mem.v > 0.0 ? x->w->fw.mem.v : 1.0);
    /* the optimizer reads and writes master weights and moments, reads
     * the gradients, writes the 16-bit weights (trainable parameters
     * only); a recipe then re-quantizes every weight once per step */
    double per_param_opt =
        (2.0 * (x->w->master_bytes + x->w->optimizer_bytes) + x->w->grad_bytes +
         (x->elem < 4.0 ? x->elem : 0.0)) *
            trainable_share(x->s) +
        (x->rc && x->rc->weight_copy > 0.0 ? x->elem + x->rc->weight_copy
                                           : 0.0);
    double dpc = (double)x->l->dp * x->l->cp, edp = dpc / x->l->ep;
    for (int k = 0; k < DAM_CHUNK_KINDS; k++) {
        dam_parallel_stage *st = &out->stage[k];
        double dense, expert;
        stage_params(x->t, x->l, k, &dense, &expert);
        st->params = dense + expert;
        st->grad_bytes = (dense + expert) * x->sb.grad;
        double traffic = 0.0;
        if (x->l->zero == 0) {
            collective(x->net, DAM_COMM_ALLREDUCE, dense * x->gcb, &x->gdp, 1.0,
                       &st->grad, &traffic);
            collective(x->net, DAM_COMM_ALLREDUCE, expert * x->gcb, &x->gedp,
                       1.0, &st->grad, &traffic);
        } else if (x->l->zero == 1) {
            collective(x->net, DAM_COMM_REDUCESCATTER, dense * x->gcb, &x->gdp,
                       1.0, &st->grad, &traffic);
            collective(x->net, DAM_COMM_REDUCESCATTER, expert * x->gcb,
                       &x->gedp, 1.0, &st->grad, &traffic);
        } else {
            /* reduce-scattered every micro-batch (counted in the ops) */
            dam_parallel_xfer dummy;
            memset(&dummy, 0, sizeof dummy);
            collective(x->net, DAM_COMM_REDUCESCATTER, dense * x->gcb, &x->gdp,
                       x->m, &dummy, &traffic);
            collective(x->net, DAM_COMM_REDUCESCATTER, expert * x->gcb,
                       &x->gedp, x->m, &dummy, &traffic);
        }
        if (x->l->zero == 1 || x->l->zero == 2 ||
            (x->l->zero == 3 && !x->z3mb)) {
            /* once per step (ZeRO-3 re-sharded per step: gathered for
             * the step's first forward and kept) */
            collective(x->net, DAM_COMM_ALLGATHER, dense * x->wg, &x->gdp, 1.0,
                       &st->gather, &traffic);
            collective(x->net, DAM_COMM_ALLGATHER, expert * x->wg, &x->gedp,
                       1.0, &st->gather, &traffic);
        } else if (x->z3mb) {
            dam_parallel_xfer dummy;
            memset(&dummy, 0, sizeof dummy);
            /* forward and backward gathers of every micro-batch */
            collective(x->net, DAM_COMM_ALLGATHER, dense * x->wg, &x->gdp,
                       2.0 * x->m, &dummy, &traffic);
            collective(x->net, DAM_COMM_ALLGATHER, expert * x->wg, &x->gedp,
                       2.0 * x->m, &dummy, &traffic);
        }
        double bb = x->s->pipeline.bucket_bytes > 0.0
                        ? x->s->pipeline.bucket_bytes
                        : 25e6;
        st->buckets = x->l->bucket_per_block
                          ? dam_layout_stage_blocks(x->l, x->t->layers, 0)
                          : ceil(st->grad_bytes / bb);
        if (st->buckets < 1.0)
            st->buckets = 1.0;
        double zd = x->l->zero >= 1 ? dpc : 1.0,
               ze = x->l->zero >= 1 ? edp : 1.0;
        double shard = (dense / zd + expert / ze) * x->w->weight_scale;
        st->optimizer = shard * per_param_opt / mem_rate;
        if (x->l->offload) {
            /* ZeRO-Offload (Ren et al. 2021): the shard's gradients go to
             * the host, the optimizer steps there (the same bytes per
             * parameter, at the node's DRAM bandwidth shared by its GPUs)
             * and the 16-bit weights come back; in series after the
             * backward. With weights offloaded too (ZeRO-3), the gathers
             * of every micro-batch also cross the host link. */
            double link = host_link(x->s);
            double host =
                x->s->machine.host_mem_bw / x->s->machine.gpus_per_node;
            st->optimizer = (dense / zd + expert / ze) * x->sb.grad / link +
                            shard * per_param_opt / host +
                            shard * x->elem / link;
            if (x->l->offload >= 2)
                st->optimizer += 2.0 * x->m * shard * x->elem / link;
        }
        if (k == dam_parallel_stage_kind(out, 0))
            out->dp_traffic = traffic;
    }
}

/* One replica's storage read of a step's data, as the simulation makes it
 * (sim_parallel.c start_reads, build_links): a replica's samples from the
 * cluster's file system at its 1/dp share, through its share of the
 * node's NICs, or from the node's own storage shared by the node's
 * replicas; the read's latency once. */
static double data_read(const dam_scenario *s, const dam_layout *l)
{
    const dam_machine *mc = &s->machine;
    double bytes = (double)l->micro_batches * l->micro_batch *
                   s->data.raw_bytes;
    if (!(bytes > 0.0))
        return 0.0;
    double G = mc->gpus_per_node, per = (double)l->tp * l->cp;
    double u = per >= G ? per / G : 1.0; /* nodes per replica's stage */
    double c = per >= G ? 1.0 : G / per; /* stages per node */
    double rate;
    if (mc->fs_bw > 0.0) {
        const dam_network *nw = &mc->net;
        double nic = nw->nics * nw->nic_bw * nw->nic_eff * u / c;
        rate = mc->fs_bw / l->dp;
        if (nic > 0.0 && nic < rate)
            rate = nic;
    } else {
        rate = mc->storage_bw * u / c;
    }
    return rate > 0.0 ? mc->storage_latency + bytes / rate : 0.0;
}

void dam_parallel_assemble(const dam_scenario *s, const dam_layout *l,
                           const dam_parallel_layers *lc,
                           dam_parallel_cost *out)
{
    memset(out, 0, sizeof *out);
    out->l = *l;
    const dam_transformer *t = &s->workload.model.arch.tf;
    const dam_network *net = &s->machine.net;
    const dam_workload *w = &s->workload;
    double elem = act_bytes(s);
    const dam_recipe *rc = recipe_of(s);
    int D = net->domain;
    out->chunks = l->pp * l->vpp;
    {
        int f, n;
        dam_layout_chunk_layers(l, t->layers, 0, &f, &n);
        out->blocks[DAM_CHUNK_FIRST] = n;
        dam_layout_chunk_layers(l, t->layers, out->chunks - 1, &f, &n);
        out->blocks[DAM_CHUNK_LAST] = n;
        dam_layout_chunk_layers(l, t->layers, out->chunks > 2 ? 1 : 0, &f,
                                &n);
        out->blocks[DAM_CHUNK_MID] = n;
        out->blocks[DAM_CHUNK_ONLY] = t->layers;
    }
    double m = l->micro_batches;
    /* the groups, state bytes and widths the steps below share */
    assembly x = {.s = s, .l = l, .lc = lc, .t = t, .net = net, .w = w,
                  .rc = rc, .elem = elem, .m = m};
    dam_layout_group(l, DAM_GROUP_TP, D, &x.gtp);
    dam_layout_group(l, DAM_GROUP_CP, D, &x.gcp);
    dam_layout_group(l, DAM_GROUP_DP, D, &x.gdp);
    dam_layout_group(l, DAM_GROUP_EP, D, &x.gep);
    dam_layout_group(l, DAM_GROUP_EDP, D, &x.gedp);
    state_bytes(s, &x.sb);
    /* reduced gradients and gathered weights travel at their own widths
     * (not the quantized weight copies) */
    x.gcb = grad_comm(s, &x.sb);
    x.wg = x.sb.weight - (rc ? rc->weight_copy * w->weight_scale : 0.0);
    x.z3mb = l->zero >= 3 && !l->reshard_step; /* gathers per micro-batch */

    double tpc[2], cpc[2];
    dam_net_cost a2a;
    block_comm(&x, tpc, cpc, &a2a);
    chunk_ops(&x, tpc, cpc, &a2a, out);
    double sb0 = dam_layout_stage_blocks(l, t->layers, 0);
    out->tp_comm = m * sb0 * (tpc[0] + tpc[1]);
    out->a2a_traffic = m * sb0 *
                       (lc->a2a_calls[0] + lc->a2a_calls[1]) * lc->a2a_bytes;

    /* pipeline sends: each tensor-parallel rank sends its 1/tp of the
     * activations (Narayanan et al. 2021's scatter/gather) */
    if (l->pp > 1) {
        out->p2p_domain = dam_layout_pp_same_domain(l, D);
        double bytes = lc->tokens * t->hidden * elem / l->tp;
        dam_net_cost nc;
        dam_net_p2p(net, bytes, out->p2p_domain, 0, &nc);
        xfer_add(&out->p2p, &nc, 1.0);
    }

    stage_costs(&x, out);

    /* host: launch time not hidden behind the GPU, and per-step overhead */
    out->overhead = w->framework_overhead_s +
                    m * sb0 * lc->host;
    double global = (double)l->dp * l->micro_batch * l->micro_batches;
    out->tokens = global * lc->tokens * l->cp / l->micro_batch;
    /* forward + backward (2 x forward); a frozen base (LoRA) has no
     * weight-gradient GEMMs, so its model FLOPs are forward + activation
     * gradients (4 N per token instead of 6 N) */
    out->model_flops = (w->lora_rank > 0 ? 2.0 : 3.0) *
                       w->model.flops_per_sample * w->flops_scale * global;
    double hw = 0.0;
    for (int v = 0; v < out->chunks; v++) {
        int k = dam_parallel_chunk_kind(out, v);
        hw += out->fwd[k].flops + out->bwd[k].flops;
    }
    out->hw_flops = hw * m * (double)l->tp * l->cp * l->dp;
    out->data_read = data_read(s, l);
}

/* ---- the step ---------------------------------------------------------- */

/* 1: transfer x crosses the NICs (the simulation's flow beside the op). */
static int on_nics(const dam_parallel_xfer *x)
{
    return x->nic_bytes > 0.0 && x->nic_rate > 0.0;
}

double dam_parallel_op_time(const dam_parallel_op *op)
{
    /* what runs beside the compute shows only where it is longer; a
     * transfer through the NICs runs beside the tensor-parallel
     * collectives too (they stay inside the node's fabric), as the
     * simulation's flow does (solver/sim_parallel.c: "on the NICs: beside
     * everything"); one inside the fabric only beside the compute */
    double z = op->zero.time, a = op->a2a.time, c = op->compute;
    double m = op->comm;
    if (op->a2a_overlap && op->zero_overlap) {
        double o = z + a; /* both through the same NICs */
        double w = on_nics(&op->zero) && on_nics(&op->a2a) ? c + m : c;
        return c + m + (o > w ? o - w : 0.0);
    }
    if (op->zero_overlap) {
        double w = on_nics(&op->zero) ? c + m : c;
        z = z > w ? z - w : 0.0;
    }
    if (op->a2a_overlap) {
        double w = on_nics(&op->a2a) ? c + m : c;
        a = a > w ? a - w : 0.0;
    }
    return c + m + a + z;
}

/* An op's time with its compute slowed by f (a straggler). */
static double op_time_slow(const dam_parallel_op *op, double f)
{
    dam_parallel_op o = *op;
    o.compute *= f;
    return dam_parallel_op_time(&o);
}

/* Forward and backward of stage s per micro-batch (its chunks summed);
 * the straggler's stage runs slower, and all replicas wait for it. */
static void stage_fb(const dam_parallel_cost *c, int s, double *F, double *B,
                     double *lastb)
{
    const dam_layout *l = &c->l;
    double f = 1.0;
    if (l->slow_rank >= 0 && l->slow_factor > 1.0 &&
        l->slow_rank / (l->tp * l->cp * l->dp) == s)
        f = l->slow_factor;
    *F = *B = 0.0;
    for (int j = 0; j < l->vpp; j++) {
        int v = j * l->pp + s;
        int k = dam_parallel_chunk_kind(c, v);
        *F += op_time_slow(&c->fwd[k], f);
        *B += op_time_slow(&c->bwd[k], f);
        if (j == 0)
            *lastb = op_time_slow(&c->bwd[k], f);
    }
}

double dam_parallel_gather_exposed(const dam_parallel_cost *c, int s)
{
    const dam_layout *l = &c->l;
    const dam_parallel_stage *st = &c->stage[dam_parallel_stage_kind(c, s)];
    double g = st->gather.time;
    if (!l->overlap_param || !(g > 0.0))
        return g;
    double fwd = 0.0; /* the stage's forward compute over a step */
    for (int j = 0; j < l->vpp; j++)
        fwd += c->fwd[dam_parallel_chunk_kind(c, j * l->pp + s)].compute;
    fwd *= l->micro_batches;
    double first = g / st->buckets, rest = g - fwd;
    return rest > first ? rest : first;
}

void dam_parallel_step_analytic(const dam_parallel_cost *c,
                                dam_parallel_step *out)
{
    const dam_layout *l = &c->l;
    int p = l->pp, v = l->vpp;
    double m = l->micro_batches;
    double cs = p > 1 ? c->p2p.time : 0.0;
    double sum = 0.0, mx = 0.0;
    int bott = 0;
    memset(out, 0, sizeof *out);
    for (int s = 0; s < p; s++) {
        double F, B, lb;
        stage_fb(c, s, &F, &B, &lb);
        sum += F + B;
        if (F + B > mx) {
            mx = F + B;
            bott = s;
        }
    }
    double pipe;
    if (v > 1)
        pipe = m * mx + (p - 1.0) * mx / v + 2.0 * (p * v - 1.0) * cs;
    else
        pipe = sum + (m - 1.0) * mx + 2.0 * (p - 1.0) * cs;

    /* each stage's last backward, its gradient reduction, the barrier */
    double barrier = 0.0, opt = 0.0, gather = 0.0;
    double sync_sum = 0.0, before = 0.0;
    double end = pipe;
    for (int s = 0; s < p; s++) {
        double F, B, lb;
        stage_fb(c, s, &F, &B, &lb);
        const dam_parallel_stage *st = &c->stage[dam_parallel_stage_kind(c, s)];
        double T = st->grad.time, nbk = st->buckets, se;
        if (s > 0)
            end -= before + cs;
        before = v > 1 ? B / v : B;
        if (T <= 0.0)
            se = end;
        else if (l->overlap_grad) {
            double start = end - lb + lb / nbk;
            se = start + T;
            if (end + T / nbk > se)
                se = end + T / nbk;
        } else {
            se = end + T;
        }
        sync_sum += se - end;
        if (se > barrier)
            barrier = se;
        if (st->optimizer > opt)
            opt = st->optimizer;
        double g = dam_parallel_gather_exposed(c, s);
        if (g > gather)
            gather = g;
    }
    out->step = barrier + opt + gather + c->overhead;
    /* the first stage reads the next step's data during this one: a read
     * longer than the step holds every stage of the replica back */
    double data_wait = c->data_read > out->step ? c->data_read - out->step
                                                : 0.0;
    out->step += data_wait;
    out->pipeline = pipe;
    out->bottleneck = bott;
    out->bubble = pipe > 0.0 ? 1.0 - mx * m / pipe : 0.0;

    /* terms: per stage, then their mean */
    double tc = 0.0, tm = 0.0;
    for (int s = 0; s < p; s++) {
        double comp = 0.0, comm = 0.0;
        for (int j = 0; j < v; j++) {
            int k = dam_parallel_chunk_kind(c, j * p + s);
            const dam_parallel_op *f = &c->fwd[k], *b = &c->bwd[k];
            comp += f->compute + b->compute;
            comm += dam_parallel_op_time(f) - f->compute +
                    dam_parallel_op_time(b) - b->compute;
        }
        comp *= m;
        comm *= m;
        const dam_parallel_stage *st = &c->stage[dam_parallel_stage_kind(c, s)];
        comp += st->optimizer;
        comm += 2.0 * (p - 1.0) * cs + gather;
        tc += comp;
        tm += comm;
    }
    tc /= p;
    tm /= p;
    tm += sync_sum / p;
    out->terms[DAM_TERM_COMPUTE] = tc;
    out->terms[DAM_TERM_COMM] = tm;
    out->terms[DAM_TERM_OVERHEAD] = c->overhead;
    out->terms[DAM_TERM_DATA] = data_wait;
    /* what is left of the step; a rounding residue (1e-16 s of a 5 s
     * step printed "waiting for ranks 1.16e-10 us") is none */
    double wait = out->step - tc - tm - c->overhead - data_wait;
    out->terms[DAM_TERM_WAIT] = wait > 1e-9 * out->step ? wait : 0.0;
}

/* ---- a scenario ------------------------------------------------------- */

void dam_parallel_memory(const dam_scenario *s, const dam_layout *l,
                         dam_layout_mem *out)
{
    dam_state_bytes sb;
    state_bytes(s, &sb);
    double bucket = s->pipeline.bucket_bytes > 0.0 ? s->pipeline.bucket_bytes
                                                   : 25e6;
    dam_layout_memory(l, &s->workload.model, s->workload.seq_len,
                      act_bytes(s), &sb, bucket, out);
}

/* Add n transfers x, of which the step cannot hide less than a share
 * `unhidden` (0..1), to the chain of transfers through the NICs (each
 * with its fixed part, latency and the in-node phase of a hierarchical
 * collective, in series with its NIC part) or to the node fabric (NVLink
 * or PCIe inside a node, where the tensor-parallel collectives run). */
static void carry(const dam_parallel_xfer *x, double n, double unhidden,
                  double *fabric, double *nic)
{
    if (x->nic_bytes > 0.0 && x->nic_rate > 0.0)
        *nic += n * unhidden * x->time;
    else
        *fabric += n * unhidden * x->time;
}

/* The perfect-overlap bound T_pipe of a layout's step: the longest a
 * resource is busy, given the first stage's chunk kind k0, its per_stage
 * micro-batch chunks, its ZeRO traffic zt, the step's busy time outside
 * communication and the compute. */
static double pipe_bound(const dam_parallel_cost *c, int k0,
                         double per_stage, double zt, double busy,
                         double t_compute)
{
    const dam_parallel_stage *s0 = &c->stage[dam_parallel_stage_kind(c, 0)];
    /* Perfect overlap: each resource busy all the step and no longer. The
     * GPUs compute; the node fabric carries the tensor-parallel
     * collectives and whatever stays inside a node; the NICs the rest.
     * Fabric and NICs are different wires, so the bound is the longest of
     * the three, not compute against all communication (which a step
     * whose gradient traffic crosses the NICs under NVLink collectives
     * beats). */
    /* What the first stage's GPU cannot hide: its ZeRO traffic (beside
     * its compute, never beside its tensor-parallel collectives inside
     * the node), the gradient reduction beyond its last backward, the
     * parameter gather beyond the next forwards, the pipeline sends on
     * the critical path. Expert all-to-alls may run under compute, but
     * not in less than their own time on the wire: each op takes at least
     * its all-to-all (dam_parallel_op_time), and a stage's all-to-alls
     * share its NICs (or fabric) with the rest (left out, T_pipe read
     * 3.55 s beside 15.1 s of all-to-alls a step, moe-2048-nvl72). */
    double fabric = c->tp_comm, nic = 0.0;
    carry(&c->fwd[k0].zero, per_stage, 1.0, &fabric, &nic);
    carry(&c->bwd[k0].zero, per_stage, 1.0, &fabric, &nic);
    carry(&c->fwd[k0].a2a, per_stage, 1.0, &fabric, &nic);
    carry(&c->bwd[k0].a2a, per_stage, 1.0, &fabric, &nic);
    if (c->l.pp > 1)
        carry(&c->p2p, 2.0 * (c->l.pp - 1.0), 1.0, &fabric, &nic);
    double T = s0->grad.time;
    if (T > 0.0) {
        double lb = dam_parallel_op_time(&c->bwd[k0]), left = T;
        if (c->l.overlap_grad)
            left = T - lb > T / s0->buckets ? T - lb : T / s0->buckets;
        carry(&s0->grad, 1.0, left / T, &fabric, &nic);
    }
    if (s0->gather.time > 0.0)
        carry(&s0->gather, 1.0,
              dam_parallel_gather_exposed(c, 0) / s0->gather.time, &fabric,
              &nic);
    /* The data-parallel traffic (gradient reduction, parameter gathers,
     * ZeRO's per-op traffic, all in the same group) may hide under the
     * compute, but not in less than its own time on its wire (T_pipe
     * 7.72 s beside 8.14 s of gradient sync and gathers: property test,
     * tests/property/answers.py). */
    double dpw = s0->grad.time + s0->gather.time + zt;
    /* A stage's own sends, each way on its link: m v activations forward,
     * m v gradients back (the iron-law row holds both, 2 m v); one way
     * is a wire busy that long (a layout whose stage sent 123 ms each way
     * had a T_pipe of 129 ms only by chance) */
    double own = c->l.pp > 1 ? per_stage * c->p2p.time : 0.0;
    double t = t_compute;
    if (t < own)
        t = own;
    if (t < busy)
        t = busy;
    if (t < fabric)
        t = fabric;
    if (t < nic)
        t = nic;
    if (t < dpw)
        t = dpw;
    return t;
}

static dam_stage *add_stage(dam_result *r, const char *name, double time)
{
    if (r->nstages >= DAM_MAX_STAGES)
        return NULL;
    dam_stage *st = &r->stages[r->nstages++];
    memset(st, 0, sizeof *st);
    snprintf(st->name, sizeof st->name, "%s", name);
    st->time = time;
    return st;
}

/* Nothing overlapped: the reads, then the schedule with every collective
 * exposed, its fill and drain included (without them T_seq read 9.00 s
 * under a 9.92 s step of the 70B example). The schedule's communication
 * term holds the sends of the fill and drain's critical path, 2 (p v - 1)
 * of them, where a stage's own are 2 m v: with few micro-batches the term
 * is the larger (4 stages, 1 micro-batch: 63 ms against 30), and T_seq
 * read 363 ms under a 396 ms step. */
static double seq_time(const dam_result *r, const dam_parallel_step *st)
{
    double comm = r->t_comm > st->terms[DAM_TERM_COMM]
                      ? r->t_comm
                      : st->terms[DAM_TERM_COMM];
    return r->t_data + r->t_compute + comm + r->t_latency +
           st->terms[DAM_TERM_WAIT];
}

/* The iron-law table of a layout's step (r->stages) and r->t_comm, the
 * first stage's collectives in series; *zt_out: its ZeRO gathers. Returns
 * r->t_comm. */
static double iron_law_rows(const dam_parallel_cost *c,
                            const dam_parallel_step *st, dam_result *r,
                            double *zt_out)
{
    const dam_layout *l = &c->l;
    double m = l->micro_batches;
    int k0 = dam_parallel_chunk_kind(c, 0);
    double per_stage = m * l->vpp;
    /* The iron-law rows add up to T_seq: the compute rows are the mean
     * over the pipeline stages (the step's compute term; the first
     * stage's alone left the 405B example's rows 0.5 s short of it), the
     * wait for other ranks (fill and drain, slower stages) has a row. */
    double fw_t = 0.0, fw_o = 0.0, bw_t = 0.0, bw_o = 0.0, opt = 0.0;
    for (int ps = 0; ps < l->pp; ps++) {
        for (int j = 0; j < l->vpp; j++) {
            int k = dam_parallel_chunk_kind(c, j * l->pp + ps);
            fw_t += c->fwd[k].compute;
            fw_o += c->fwd[k].flops;
            bw_t += c->bwd[k].compute;
            bw_o += c->bwd[k].flops;
        }
        opt += c->stage[dam_parallel_stage_kind(c, ps)].optimizer;
    }
    fw_t *= m / l->pp;
    fw_o *= m / l->pp;
    bw_t *= m / l->pp;
    bw_o *= m / l->pp;
    opt /= l->pp;
    dam_stage *x;
    if (c->data_read > 0.0 && (x = add_stage(r, "data read", c->data_read)))
        x->t_data = c->data_read;
    x = add_stage(r, "forward", fw_t);
    if (x) {
        x->ops = fw_o;
        x->rate = x->time > 0.0 ? x->ops / x->time : 0.0;
        x->t_ops = x->time;
    }
    x = add_stage(r, "backward", bw_t);
    if (x) {
        x->ops = bw_o;
        x->rate = x->time > 0.0 ? x->ops / x->time : 0.0;
        x->t_ops = x->time;
    }
    x = add_stage(r, "tensor parallel", c->tp_comm);
    if (x)
        x->t_data = c->tp_comm;
    if (l->pp > 1 && (x = add_stage(r, "pipeline sends",
                                    2.0 * per_stage * c->p2p.time)))
        x->t_data = x->time;
    if (c->a2a_traffic > 0.0 &&
        (x = add_stage(r, "expert all-to-all",
                       per_stage * (c->fwd[k0].a2a.time + c->bwd[k0].a2a.time)))) {
        x->bytes = c->a2a_traffic;
        x->t_data = x->time;
        if (x->time > 0.0)
            x->bw = x->bytes / x->time; /* effective: D/BW is its time */
    }
    const dam_parallel_stage *s0 = &c->stage[dam_parallel_stage_kind(c, 0)];
    double zt = *zt_out = per_stage * (c->fwd[k0].zero.time + c->bwd[k0].zero.time);
    r->t_comm = c->tp_comm + 2.0 * per_stage * c->p2p.time +
                s0->grad.time + s0->gather.time + zt +
                per_stage * (c->fwd[k0].a2a.time + c->bwd[k0].a2a.time);
    /* The schedule's communication term can exceed the first stage's
     * collectives in series: it holds the sends on the fill and drain's
     * critical path, 2 (p - 1) of them, where a stage's own are 2 m v
     * (4 stages, 1 micro-batch: 63 ms against 30), so T_seq takes the
     * larger (seq_time), and a row of its own carries the difference, as
     * a latency: a chain through the stages, no one link's busy time
     * (in the sends' row it stood above T_pipe); r->t_comm stays the
     * first stage's own (a trace's NCCL time in calibrate.c). */
    double comm_rows = r->t_comm;
    double extra = st->terms[DAM_TERM_COMM] - comm_rows;
    x = add_stage(r, "gradient sync", s0->grad.time + s0->gather.time + zt);
    if (x) {
        x->bytes = c->dp_traffic;
        x->t_data = x->time;
        if (x->bytes > 0.0 && x->time > 0.0)
            x->bw = x->bytes / x->time; /* effective, as above */
    }
    x = add_stage(r, "optimizer", opt);
    if (x)
        x->t_data = opt;
    x = add_stage(r, "overhead", c->overhead);
    if (x)
        x->t_lat = c->overhead;
    if (extra > 1e-9 * st->step &&
        (x = add_stage(r, l->pp > 1 ? "fill and drain sends"
                                    : "critical-path comm",
                       extra)))
        x->t_lat = extra;
    if (st->terms[DAM_TERM_WAIT] > 0.0 &&
        (x = add_stage(r, "waiting for ranks", st->terms[DAM_TERM_WAIT])))
        x->t_lat = x->time;

    return comm_rows;
}

void dam_parallel_solve(const dam_scenario *s, dam_result *r)
{
    const dam_layout *l = &s->layout;
    dam_parallel_layers lc;
    dam_parallel_cost c;
    dam_parallel_step st;
    dam_error e;
    memset(r, 0, sizeof *r);
    r->mode = s->mode;
    r->gpus = dam_scenario_gpus(s);
    r->global_batch = dam_scenario_global_batch(s);
    r->quality = dam_quality_after(s);
    if (dam_parallel_layers_cost(s, l->tp, l->sp, l->cp, l->ep,
                                 l->micro_batch, l->recompute, &lc,
                                 &e) != DAM_OK)
        return; /* a loaded layout always builds (dam_layout_check) */
    dam_parallel_assemble(s, l, &lc, &c);
    dam_parallel_step_analytic(&c, &st);

    double m = l->micro_batches;
    int k0 = dam_parallel_chunk_kind(&c, 0);
    double per_stage = m * l->vpp, zt;
    double comm_rows = iron_law_rows(&c, &st, r, &zt);

    /* roofline phases of the first stage's blocks, per step */
    double blocks = m * dam_layout_stage_blocks(l, s->workload.model.arch.tf.layers, 0);
    r->nphases = 0;
    for (int i = 0; i < lc.nphases && r->nphases < DAM_MAX_PHASES; i++) {
        const dam_phase_cost *pc = &lc.phase_cost[i];
        if (!(pc->time > 0.0))
            continue;
        dam_phase_result *ph = &r->phases[r->nphases++];
        memset(ph, 0, sizeof *ph);
        snprintf(ph->name, sizeof ph->name, "%s", lc.phase[i]);
        ph->kind = lc.phase_kind[i];
        ph->flops = blocks * pc->flops;
        ph->bytes = blocks * pc->bytes;
        ph->intensity = ph->bytes > 0.0 ? ph->flops / ph->bytes : 0.0;
        ph->peak = dam_scenario_peak(s);
        ph->ridge = ph->peak / s->machine.gpu.mem_bw;
        ph->t_compute = blocks * pc->t_compute;
        ph->t_memory = blocks * pc->t_memory;
        ph->time = blocks * pc->time;
        ph->memory_bound = ph->t_memory > ph->t_compute;
    }

    r->t_compute = st.terms[DAM_TERM_COMPUTE];
    r->t_latency = c.overhead;
    r->t_data = c.data_read;
    r->t_seq = seq_time(r, &st);
    double busy = st.terms[DAM_TERM_COMPUTE] + st.terms[DAM_TERM_COMM] +
                  c.overhead;
    r->t_pipe = pipe_bound(&c, k0, per_stage, zt, busy - comm_rows,
                           r->t_compute);
    r->step = st.step;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        r->terms[t] = st.terms[t];

    r->model_flops_step = c.model_flops / (double)r->gpus;
    r->steps_per_epoch = dam_scenario_steps_per_epoch(s);
    dam_layout_mem lm;
    dam_parallel_memory(s, l, &lm);
    dam_memory *mm = &r->memory;
    mm->weights = lm.weights;
    mm->gradients = lm.gradients;
    mm->optimizer = lm.optimizer;
    mm->activations = lm.activations;
    mm->buffers = lm.buffers + lm.reserve;
    mm->total = lm.total;
    mm->capacity = s->machine.gpu.mem_bytes;
    dam_memory_judge(mm);

    dam_parallel_derive(s, c.tokens, 0.0, r);
}

void dam_parallel_derive(const dam_scenario *s, double tokens,
                         double data_floor, dam_result *r)
{
    double step = r->step;
    r->throughput = step > 0.0 ? r->global_batch / step : 0.0;
    r->tokens_per_s = step > 0.0 ? tokens / step : 0.0;
    double peak = dam_scenario_peak(s);
    r->mfu = peak > 0.0 && step > 0.0 ? r->model_flops_step / (step * peak)
                                      : 0.0;
    r->io_overhead = step > 0.0 ? r->terms[DAM_TERM_DATA] / step : 0.0;
    r->epoch_time = r->steps_per_epoch * step;
    r->run_time = r->epoch_time * dam_scenario_run_epochs(s);
    dam_quality_cost qc;
    if (dam_quality_scenario_cost(s, r->gpus, r->run_time,
                                  step > 0.0 ? r->terms[DAM_TERM_COMPUTE] / step
                                             : 0.0,
                                  &qc, NULL) == DAM_OK) {
        r->gpu_hours = qc.gpu_hours;
        r->cost_usd = qc.usd;
        r->energy_kwh = qc.kwh;
    }
    /* what binds: the largest term; compute that is mostly memory-bound
     * phases is memory */
    int best = DAM_TERM_COMPUTE;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        if (r->terms[t] > r->terms[best])
            best = t;
    if (r->terms[DAM_TERM_DATA] > data_floor)
        best = DAM_TERM_DATA; /* the read sets the step: nothing else pays */
    r->bound = best == DAM_TERM_COMM       ? DAM_BOUND_COMM
               : best == DAM_TERM_DATA     ? DAM_BOUND_DATA
               : best == DAM_TERM_OVERHEAD ? DAM_BOUND_LATENCY
                                           : DAM_BOUND_COMPUTE;
    if (r->bound == DAM_BOUND_COMPUTE) {
        double mem = 0.0, all = 0.0;
        for (int i = 0; i < r->nphases; i++) {
            all += r->phases[i].time;
            if (r->phases[i].memory_bound)
                mem += r->phases[i].time;
        }
        if (mem > 0.5 * all)
            r->bound = DAM_BOUND_MEMORY;
    }
}
