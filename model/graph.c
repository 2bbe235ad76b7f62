/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * graph.c: operator graphs from architecture numbers (see graph.h).
 *
 * Conventions of the counts (each a modelling choice, stated once here):
 *  - A GEMM reads A and B and writes C once (the tiles' re-reads hit L2).
 *    Biases, scaling and activation epilogues fused into a GEMM cost
 *    nothing extra; dropout, residual adds and norms are kernels of their
 *    own (PyTorch eager, apex/Megatron fused norms: one kernel each).
 *  - Backward of C = A B: dA = dC B^T (m x k x n) and dB = A^T dC
 *    (k x n x m). For a layer, dA is the activation gradient ("dgrad") and
 *    dB the weight gradient ("wgrad"); the first layer of a network has no
 *    dgrad (its input needs no gradient).
 *  - Memory-bound kernels, in activation elements read + written per
 *    element of their tensor: norm 2 forward, 4 backward (two kernels);
 *    element-wise activation 2 / 3 (gated: 3 / 5); residual add 3 / 3;
 *    dropout 2.5 / 2.5 (1-byte mask = half an element); softmax 2 / 3;
 *    batch-norm in training 3 / 5 (statistics pass, then normalise; the
 *    backward reads x and dy twice); ReLU 2 / 3. In inference BN folds into
 *    the convolution and ReLU and the residual add run in its epilogue
 *    (the add reads the residual once).
 *  - Fused attention (FlashAttention-2 class): forward executes
 *    4 q k' h_d FLOPs per head (k' = k, or (k+1)/2 averaged under a causal
 *    mask), backward 2.5 times that (five products against two); it reads
 *    Q, K, V and writes O forward, reads Q, K, V, O, dO and writes dQ, dK,
 *    dV backward. Eager attention materialises the scores: two batched
 *    GEMMs, then scale/mask, softmax and dropout kernels over h q k
 *    elements each.
 *  - Model FLOPs (graph.model_flops) follow the catalog convention: 2 x
 *    linear weights x tokens + 4 x layers x s^2 x d for attention (full
 *    square), no recomputation.
 */
#include "model/graph.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- building blocks ------------------------------------------------ */

/* The phase named name (created on first use); -1 when full. */
static int phase_of(dam_graph *g, const char *name, dam_phase_kind kind)
{
    for (int i = 0; i < g->nphases; i++)
        if (strcmp(g->phase[i], name) == 0)
            return i;
    if (g->nphases >= DAM_MAX_PHASES) {
        g->truncated = 1;
        return -1;
    }
    int i = g->nphases++;
    snprintf(g->phase[i], sizeof g->phase[i], "%s", name);
    g->phase_kind[i] = kind;
    return i;
}

/* A new op slot, or an existing identical one (same shape) to add to. */
/* The bytes from kind to ranks, which an identical op shares, as one
 * word (the scan compares them at once). */
#define OP_HEAD offsetof(dam_op, kind)
_Static_assert(offsetof(dam_op, ranks) + sizeof(unsigned short) ==
                   OP_HEAD + sizeof(uint64_t),
               "kind .. ranks are 8 contiguous bytes");
static uint64_t op_head(const dam_op *o)
{
    uint64_t h;
    memcpy(&h, (const char *)o + OP_HEAD, sizeof h);
    return h;
}

static dam_op *slot(dam_graph *g, const dam_op *proto)
{
    const uint64_t head = op_head(proto);
    for (int i = 0; i < g->nops; i++) {
        dam_op *o = &g->ops[i];
        if (op_head(o) != head)
            continue;
        if (proto->kind == DAM_OP_MEM) {
            /* linear in its work: one entry per pass, phase and size
             * class (the L2 model needs each kernel's footprint) */
            if (o->wbin == proto->wbin)
                return o;
            continue;
        }
        if (o->m == proto->m && o->n == proto->n && o->k == proto->k &&
            o->groups == proto->groups && o->flops == proto->flops &&
            o->elems == proto->elems && o->kernels == proto->kernels)
            return o;
    }
    if (g->nops >= DAM_MAX_OPS) {
        g->truncated = 1;
        return NULL;
    }
    dam_op *o = &g->ops[g->nops++];
    *o = *proto;
    o->count = 0.0;
    if (proto->kind == DAM_OP_MEM) {
        o->elems = o->weight_elems = o->fixed_bytes = o->flops = 0.0;
        o->kernels = 0.0;
        o->count = 1.0;
    }
    return o;
}

/* Size class of a memory-bound kernel: floor(log2) of the elements one
 * of its kernels moves per sample (the device model's L2 residency needs
 * each kernel's footprint, which merging would lose; a factor of two is
 * finer than the L2 model's resolution). */
static unsigned char size_bin(const dam_op *o)
{
    double per = o->elems + o->weight_elems + o->fixed_bytes;
    if (o->kernels > 0.0)
        per /= o->kernels;
    unsigned char bin = 0;
    while (per >= 2.0 && bin < 255) {
        per *= 0.5;
        bin++;
    }
    return bin;
}

static void add(dam_graph *g, const dam_op *proto, double count)
{
    if (!(count > 0.0))
        return;
    dam_op binned;
    if (proto->kind == DAM_OP_MEM) {
        binned = *proto;
        binned.wbin = size_bin(proto);
        proto = &binned;
    }
    dam_op *o = slot(g, proto);
    if (!o)
        return;
    if (proto->kind == DAM_OP_MEM) {
        /* merged memory-bound kernels: totals per step, count 1 */
        o->elems += count * proto->elems;
        o->weight_elems += count * proto->weight_elems;
        o->fixed_bytes += count * proto->fixed_bytes;
        o->flops += count * proto->flops;
        o->kernels += count * proto->kernels;
    } else {
        o->count += count;
    }
}

static void init_op(dam_op *o, const char *name, dam_op_kind kind, int pass,
                    int phase, dam_scale scale)
{
    memset(o, 0, sizeof *o);
    /* the name, cut to fit (as "%.*s" would; graphs are built in the
     * serving simulation's cost tables, where snprintf was a tenth of a
     * row's cost) */
    size_t len = strnlen(name, DAM_OP_NAME - 1);
    memcpy(o->name, name, len);
    o->kind = (unsigned char)kind;
    o->pass = (unsigned char)pass;
    o->phase = (unsigned char)(phase < 0 ? 0 : phase);
    o->scale = (unsigned char)scale;
    o->groups = 1.0;
    o->kernels = 1.0;
}

static void gemm1(dam_graph *g, const char *name, int pass, int phase,
                  dam_scale scale, unsigned flags, double m, double n,
                  double k, double groups, double act, double count)
{
    dam_op o;
    init_op(&o, name, DAM_OP_GEMM, pass, phase, scale);
    o.flags = (unsigned char)flags;
    o.m = m;
    o.n = n;
    o.k = k;
    o.groups = groups;
    o.flops = 2.0 * m * n * k * groups;
    /* operand elements (A, B, C once each): the part that grows with the
     * batch in elems, the rest in weight_elems, so the device model's
     * bytes are elem x (elems x b + weight_elems) */
    double a = m * k * groups, bb = k * n * groups, c = m * n * groups;
    switch (scale) {
    case DAM_SCALE_M: o.elems = act > 0.0 ? act : a + c; o.weight_elems = bb; break;
    case DAM_SCALE_K: o.elems = act > 0.0 ? act : a + bb; o.weight_elems = c; break;
    case DAM_SCALE_GROUPS: o.elems = a + bb + c; break;
    default: o.weight_elems = a + bb + c; break;
    }
    add(g, &o, count);
}

/* Memory-bound kernel(s): elems scale with the batch, wel do not. */
static void mem1(dam_graph *g, const char *name, int pass, int phase,
                 unsigned flags, double elems, double wel, double fixed,
                 double kernels, double count)
{
    dam_op o;
    init_op(&o, name, DAM_OP_MEM, pass, phase, DAM_SCALE_M);
    o.flags = (unsigned char)flags;
    o.elems = elems;
    o.weight_elems = wel;
    o.fixed_bytes = fixed;
    o.kernels = kernels;
    add(g, &o, count);
}

/* A build in progress: where ops go and which passes to emit. */
typedef struct bld {
    dam_graph *g;
    int train;      /* emit backward */
    int recompute;  /* emit the forward again in backward */
    dam_scale rows; /* how activation rows scale (M, or NONE when folded) */
    int eager;      /* inference without an engine's fusions */
    int nchw;       /* CNN activations channels-first (see the conv case) */
    int frozen;     /* base weights frozen: no weight gradients (LoRA) */
    double nf4;     /* > 0: base weights in NF4, bytes per weight */
    int lora_r;     /* LoRA rank (0 = none) */
    int lora_t;     /* its targets (graph.h lora_targets) */
    unsigned eager_ops; /* DAM_EAGER_* (training) */
    int sac;        /* op-level selective checkpointing (graph.h) */
} bld;

/*
 * A GEMM and, in training, its backward. weight: B is a weight (dgrad
 * scales like the forward, wgrad over K); otherwise both operands are
 * activations (batched products scaled by group count). dgrad = 0 skips
 * the gradient of A (a network's first layer). act > 0: the activation
 * elements per sample each of the forward, dgrad and wgrad kernels reads
 * and writes, when they differ from the GEMM's operand matrices (an
 * implicit-GEMM convolution reads its input tensor once, not the k x k
 * times larger im2col matrix its GEMM shape implies; the halo reuse
 * happens on chip).
 */
/* snprintf(nm, DAM_OP_NAME + 8, "%.*s.%s", DAM_OP_NAME - 7, name, suffix)
 * without the format interpreter (suffix: at most 7 characters). */
static void suffixed(char *nm, const char *name, const char *suffix)
{
    size_t a = strnlen(name, DAM_OP_NAME - 7), b = strlen(suffix);
    memcpy(nm, name, a);
    nm[a] = '.';
    memcpy(nm + a + 1, suffix, b + 1);
}

static void gemm_x(bld *B, const char *name, int phase, double m, double n,
                   double k, double groups, unsigned flags, int weight,
                   int dgrad, double act, double count)
{
    char nm[DAM_OP_NAME + 8];
    dam_scale sf = weight ? B->rows : (B->rows == DAM_SCALE_NONE
                                           ? DAM_SCALE_NONE
                                           : DAM_SCALE_GROUPS);
    unsigned wf = weight ? DAM_OPF_WEIGHT : 0u;
    if (weight && !(flags & DAM_OPF_CONV))
        flags |= DAM_OPF_LINEAR;
    /* QLoRA: the NF4 weight is dequantized to 16 bits before each GEMM
     * that reads it (read 4.13 bits, write 16) */
    double dq = weight && B->nf4 > 0.0 ? k * n * groups * (B->nf4 + 2.0)
                                       : 0.0;
    int dqk = dq > 0.0;
    gemm1(B->g, name, DAM_PASS_FWD, phase, sf, flags | wf, m, n, k, groups,
          act, count);
    if (dqk)
        mem1(B->g, "nf4_dequant", DAM_PASS_FWD, phase, 0u, 0.0, 0.0, dq, 1.0,
             count);
    if (!B->train)
        return;
    if (B->recompute) {
        gemm1(B->g, name, DAM_PASS_RECOMPUTE, phase, sf, flags | wf, m, n, k,
              groups, act, count);
        if (dqk)
            mem1(B->g, "nf4_dequant", DAM_PASS_RECOMPUTE, phase, 0u, 0.0, 0.0,
                 dq, 1.0, count);
    }
    if (dgrad) {
        suffixed(nm, name, "dgrad");
        gemm1(B->g, nm, DAM_PASS_BWD, phase, sf, flags | wf, m, k, n, groups,
              act, count);
        if (dqk)
            mem1(B->g, "nf4_dequant", DAM_PASS_BWD, phase, 0u, 0.0, 0.0, dq,
                 1.0, count);
    }
    if (weight && B->frozen)
        return; /* a frozen weight has no gradient */
    suffixed(nm, name, weight ? "wgrad" : "dgradB");
    dam_scale sw = weight ? (B->rows == DAM_SCALE_NONE ? DAM_SCALE_NONE
                                                       : DAM_SCALE_K)
                          : sf;
    gemm1(B->g, nm, DAM_PASS_BWD, phase, sw, flags, k, n, m, groups, act,
          count);
}

/* A GEMM whose operands are the shape's own matrices (see gemm_x). */
static void gemm(bld *B, const char *name, int phase, double m, double n,
                 double k, double groups, unsigned flags, int weight,
                 int dgrad, double count)
{
    gemm_x(B, name, phase, m, n, k, groups, flags, weight, dgrad, 0.0, count);
}

/* A memory-bound kernel with its backward (bwd elements and kernels),
 * with op flags (DAM_OPF_LOWP: only below 32-bit precision). */
static void mem_f(bld *B, const char *name, int phase, unsigned flags,
                  double fe, double fk, double be, double bk, double count)
{
    mem1(B->g, name, DAM_PASS_FWD, phase, flags, fe, 0.0, 0.0, fk, count);
    if (!B->train)
        return;
    if (B->recompute)
        mem1(B->g, name, DAM_PASS_RECOMPUTE, phase, flags, fe, 0.0, 0.0, fk,
             count);
    mem1(B->g, name, DAM_PASS_BWD, phase, flags, be, 0.0, 0.0, bk, count);
}

static void mem(bld *B, const char *name, int phase, double fe, double fk,
                double be, double bk, double count)
{
    mem_f(B, name, phase, 0u, fe, fk, be, bk, count);
}

/*
 * LoRA adapters beside the projections of one input: n modules (PEFT
 * adapts each of q, k, v, or gate and up, on its own) reading din per
 * row, dout columns in all, rank r, as PEFT runs them: x A_i (T x r), then
 * B_i, scaled and added to the base output. GEMMs r wide do about r FLOPs
 * per byte, far below any tensor core's ridge, so they are costed by
 * their traffic: forward reads x and writes and reads T r per module,
 * writes T dout, scales it and adds it (3 + 2 passes over T dout);
 * backward scales the gradient, runs each B's dgrad and wgrad and each
 * A's dgrad and wgrad (reading x again) and adds each A's dgrad into x's
 * gradient. Adapter weights and their gradients: once per pass.
 */
static void lora(bld *B, int phase, double T, double din, double dout,
                 double n, double count)
{
    double r = B->lora_r, w = r * (n * din + dout);
    double fe = T * (n * din + 2.0 * n * r + 6.0 * dout);
    mem1(B->g, "lora", DAM_PASS_FWD, phase, 0u, fe, w, 0.0, 4.0 * n, count);
    if (!B->train)
        return;
    if (B->recompute)
        mem1(B->g, "lora", DAM_PASS_RECOMPUTE, phase, 0u, fe, w, 0.0,
             4.0 * n, count);
    mem1(B->g, "lora", DAM_PASS_BWD, phase, 0u,
         T * (4.0 * n * din + 5.0 * n * r + 4.0 * dout), 2.0 * w, 0.0,
         6.0 * n, count);
}

static void comm(bld *B, const char *name, int pass, int phase,
                 dam_comm_kind kind, double elems, int ranks, double count)
{
    dam_op o;
    init_op(&o, name, DAM_OP_COMM, pass, phase, B->rows);
    o.comm = (unsigned char)kind;
    o.ranks = (unsigned short)(ranks > 65535 ? 65535 : ranks);
    o.elems = elems;
    add(B->g, &o, count);
}

/* ---- transformers --------------------------------------------------- */

/* Attention work of one layer, one rank (see the file comment). */
typedef struct attn_part {
    double seqs; /* sequences */
    double q;    /* query tokens per sequence */
    double past; /* cached tokens before them */
    int causal;
} attn_part;

typedef struct tf_geom {
    double rows;      /* GEMM rows (tokens) per sample or in all */
    int nparts;
    attn_part part[2];
    int l0, nl;       /* blocks built */
    int tp, sp;
    int embed, head;
    int kv_write;     /* serving: append K and V to the cache */
} tf_geom;

static int head_dim(const dam_transformer *t)
{
    return t->head_dim > 0 ? t->head_dim : t->hidden / t->heads;
}

/* Heads per rank: query heads split; KV heads split or replicated. */
static void heads_per_rank(const dam_transformer *t, int tp, double *hq,
                           double *hkv)
{
    *hq = (double)t->heads / tp;
    *hkv = t->kv_heads >= tp ? (double)t->kv_heads / tp : 1.0;
}

void dam_graph_llm_attention(const dam_transformer *t, int tp, double seqs,
                             double q, double past, int causal,
                             double *flops, double *elems, double *kv_elems)
{
    double hd = head_dim(t), hq, hkv;
    heads_per_rank(t, tp > 1 ? tp : 1, &hq, &hkv);
    double kfull = past + q;
    double qe = seqs * q * hq * hd;
    double kve = seqs * kfull * hkv * hd;
    /* causal: the i-th new token sees past + i keys, (q + 1) / 2 on
     * average */
    double keff = causal ? past + (q + 1.0) / 2.0 : kfull;
    *flops = 4.0 * seqs * hq * hd * q * keff;
    *elems = 2.0 * qe + 2.0 * kve;
    *kv_elems = 2.0 * kve;
}

static void attention(bld *B, const dam_transformer *t, const tf_geom *G,
                      int ph, int phs, double count)
{
    double hd = head_dim(t), hq, hkv;
    heads_per_rank(t, G->tp, &hq, &hkv);
    for (int i = 0; i < G->nparts; i++) {
        const attn_part *a = &G->part[i];
        if (!(a->seqs > 0.0) || !(a->q > 0.0))
            continue;
        double kfull = a->past + a->q;
        double qe = a->seqs * a->q * hq * hd;
        double kve = a->seqs * kfull * hkv * hd;
        if (t->attn == DAM_ATTN_FLASH) {
            double f, el, kv;
            dam_graph_llm_attention(t, G->tp, a->seqs, a->q, a->past,
                                    a->causal, &f, &el, &kv);
            dam_op o;
            init_op(&o, "flash_attn", DAM_OP_ATTN, DAM_PASS_FWD, ph, B->rows);
            o.flops = f;
            o.elems = el;
            /* serving reads keys and values from the cache */
            o.kv_elems = G->kv_write ? kv : 0.0;
            add(B->g, &o, count);
            if (B->train) {
                o.kv_elems = 0.0;
                if (B->recompute) {
                    o.pass = DAM_PASS_RECOMPUTE;
                    add(B->g, &o, count);
                }
                init_op(&o, "flash_attn.bwd", DAM_OP_ATTN, DAM_PASS_BWD, ph,
                        B->rows);
                o.flops = 2.5 * f;
                o.elems = 4.0 * qe + 4.0 * kve;
                o.kernels = 3.0; /* preprocess, main, dq convert */
                add(B->g, &o, count);
            }
        } else {
            /* materialised scores: h q k per sequence */
            double groups = a->seqs * hq;
            double sc = groups * a->q * kfull;
            gemm(B, "scores", ph, a->q, kfull, hd, groups, 0u, 0, 1, count);
            double drop = B->train && t->dropout;
            mem(B, "softmax", phs, sc * (4.0 + (drop ? 2.5 : 0.0)),
                drop ? 3.0 : 2.0, sc * (5.0 + (drop ? 2.5 : 0.0)),
                drop ? 3.0 : 2.0, count);
            gemm(B, "context", ph, a->q, hd, kfull, groups, 0u, 0, 1, count);
        }
    }
    /* serving: append this iteration's K and V to the cache */
    if (G->kv_write) {
        double newtok = 0.0;
        for (int i = 0; i < G->nparts; i++)
            newtok += G->part[i].seqs * G->part[i].q;
        /* its own entry (flag): cache entries may be narrower */
        mem1(B->g, "kv_append", DAM_PASS_FWD, phs, DAM_OPF_KV,
             4.0 * newtok * hkv * hd, 0.0, 0.0, 1.0, count);
    }
}

/*
 * An RMSNorm or LayerNorm over `el` elements: one fused kernel each way
 * (2 elements forward, 4 backward in two kernels), or, with
 * DAM_EAGER_NORM set in `eager`, torchtitan's eager RMSNorm (models/
 * norms.py: x.float(), pow, mean, + eps, rsqrt, product, type_as, times
 * the weight), each op one kernel reading its inputs and writing its
 * output once, fp32 tensors counted as two 16-bit elements: forward
 * 3 + 4 + 2 + 4 + 3 + 2 = 18 elements in 8 kernels; autograd's backward
 * of the chain (weight product and its weight gradient 6, cast 3, the
 * rstd product both ways 12, mean's expanded gradient 2, pow's 2 x 14,
 * the two gradients of x summed 6, cast back 3) 46 elements in 15.
 */
static void norm_op(bld *B, int phase, unsigned eager, double el,
                    double count)
{
    if (eager & DAM_EAGER_NORM)
        mem(B, "norm", phase, 18.0 * el, 8.0, 46.0 * el, 15.0, count);
    else
        mem(B, "norm", phase, 2.0 * el, 1.0, 4.0 * el, 2.0, count);
}

/* One block, `count` times: norms, attention, MLP (dense or MoE), adds.
 *
 * Op-level selective checkpointing (B->sac; torchtitan's policy in
 * parallelize_llama.py: save the outputs of matmuls and of the attention
 * kernel, except every second matmul of the block, and recompute the
 * rest): in torchtitan's order wq, wk, wv, wo, w1, w3, w2 the second,
 * fourth and sixth are recomputed (keys, output projection, the gate's
 * w3), with every memory-bound kernel; attention is not. */
static void block(bld *B, const dam_transformer *t, const tf_geom *G,
                  double count)
{
    dam_graph *g = B->g;
    int pd = phase_of(g, "dense", DAM_PHASE_MATMUL);
    int pa = phase_of(g, "attention", DAM_PHASE_ATTENTION);
    int pe = phase_of(g, "elementwise", DAM_PHASE_ELEMENTWISE);
    double T = G->rows, d = t->hidden, hd = head_dim(t), hq, hkv;
    heads_per_rank(t, G->tp, &hq, &hkv);
    double f = (double)t->ffn / G->tp;
    double shard = G->sp && G->tp > 1 ? 1.0 / G->tp : 1.0;
    int drop = B->train && t->dropout;
    double dr_e = drop ? 2.5 : 0.0, dr_k = drop ? 1.0 : 0.0;
    unsigned ea = B->eager_ops;
    /* under op-level checkpointing: the operators whose outputs are saved
     * (no recomputation), and the recomputed matmuls */
    bld S = *B;
    if (B->sac)
        S.recompute = 0;
    unsigned lin = DAM_OPF_LINEAR | DAM_OPF_WEIGHT;

    /* attention half */
    norm_op(B, pe, ea, T * d * shard, count);
    gemm(&S, "qkv", pd, T, (hq + 2.0 * hkv) * hd, d, 1.0, 0u, 1, 1, count);
    if (B->sac)
        gemm1(g, "wk", DAM_PASS_RECOMPUTE, pd, B->rows, lin, T, hkv * hd, d,
              1.0, 0.0, count);
    int la = B->lora_r > 0 && (B->lora_t & 1), lm = B->lora_r > 0 &&
                                                     (B->lora_t & 2);
    if (la)
        lora(B, pd, T, d, (hq + 2.0 * hkv) * hd, 3.0, count);
    /* rotary embedding of queries and keys: fused, 2 elements each way;
     * eager (torchtitan's apply_rotary_emb): per tensor .float() 3,
     * complex product 4, type_as 3 elements in three kernels, and the
     * same three backward */
    double re = ea & DAM_EAGER_ROPE ? 10.0 : 2.0;
    double rk = ea & DAM_EAGER_ROPE ? 6.0 : 1.0;
    if (t->rotary)
        mem(B, "rope", pe, re * T * (hq + hkv) * hd, rk,
            re * T * (hq + hkv) * hd, rk, count);
    /* torchtitan's repeat_kv: expand + reshape copies K and V to every
     * query head (reads hkv, writes hq heads each); backward sums them
     * back */
    if ((ea & DAM_EAGER_GQA) && hq > hkv)
        mem(B, "repeat_kv", pe, 2.0 * T * (hq + hkv) * hd, 2.0,
            2.0 * T * (hq + hkv) * hd, 2.0, count);
    attention(&S, t, G, pa, pa, count);
    gemm(B, "o_proj", pd, T, d, hq * hd, 1.0, 0u, 1, 1, count);
    if (la)
        lora(B, pd, T, hq * hd, d, 1.0, count);
    mem(B, "residual", pe, (3.0 + dr_e) * T * d * shard, 1.0 + dr_k,
        (3.0 + dr_e) * T * d * shard, 1.0 + dr_k, count);
    /* MLP half */
    norm_op(B, pe, ea, T * d * shard, count);
    double up = t->gated ? 2.0 * f : f;
    double ae = t->gated ? 3.0 : 2.0, abe = t->gated ? 5.0 : 3.0;
    double ak = 1.0, abk = 1.0;
    if (t->gated && (ea & DAM_EAGER_SWIGLU)) {
        /* F.silu(w1(x)) * w3(x) eagerly: SiLU 2 and the product 3
         * elements forward; backward the product's two gradients 3 + 3
         * and SiLU's 3 */
        ae = 5.0, abe = 9.0, ak = 2.0, abk = 3.0;
    }
    if (t->experts > 1) {
        double E = t->experts, K = t->top_k > 0 ? t->top_k : 1;
        gemm(&S, "router", pd, T, E, d, 1.0, 0u, 1, 0, count);
        mem(B, "moe_dispatch", pe, T * (3.0 * E + 4.0 * K * d), 3.0,
            T * 4.0 * K * d, 2.0, count);
        /* one grouped GEMM over the experts: T K / E rows each */
        double rows = T * K / E;
        gemm(&S, "expert_up", pd, rows, up, d, E, 0u, 1, 1, count);
        mem(B, "act", pe, ae * T * K * f, ak, abe * T * K * f, abk, count);
        gemm(&S, "expert_down", pd, rows, d, f, E, 0u, 1, 1, count);
        mem(B, "moe_combine", pe, T * (2.0 * K + 1.0) * d, 1.0,
            T * (2.0 * K + 1.0) * d, 1.0, count);
    } else {
        gemm(&S, "mlp_up", pd, T, up, d, 1.0, 0u, 1, 1, count);
        if (B->sac && t->gated)
            gemm1(g, "w3", DAM_PASS_RECOMPUTE, pd, B->rows, lin, T, f, d,
                  1.0, 0.0, count);
        if (lm)
            lora(B, pd, T, d, up, t->gated ? 2.0 : 1.0, count);
        mem(B, "act", pe, ae * T * f, ak, abe * T * f, abk, count);
        gemm(&S, "mlp_down", pd, T, d, f, 1.0, 0u, 1, 1, count);
        if (lm)
            lora(B, pd, T, f, d, 1.0, count);
    }
    mem(B, "residual", pe, (3.0 + dr_e) * T * d * shard, 1.0 + dr_k,
        (3.0 + dr_e) * T * d * shard, 1.0 + dr_k, count);
    /* tensor parallelism: the two reductions of each half, Megatron-style */
    if (G->tp > 1) {
        int pc = phase_of(g, "tp_comm", DAM_PHASE_ELEMENTWISE);
        double el = T * d;
        int np = B->train ? (B->recompute ? 3 : 2) : 1;
        for (int p = 0; p < np; p++) {
            int pass = p == 0 ? DAM_PASS_FWD
                              : p == 1 ? DAM_PASS_BWD : DAM_PASS_RECOMPUTE;
            if (G->sp) {
                comm(B, "tp_allgather", pass, pc, DAM_COMM_ALLGATHER, el,
                     G->tp, 2.0 * count);
                comm(B, "tp_reducescatter", pass, pc, DAM_COMM_REDUCESCATTER,
                     el, G->tp, 2.0 * count);
            } else {
                comm(B, "tp_allreduce", pass, pc, DAM_COMM_ALLREDUCE, el,
                     G->tp, 2.0 * count);
            }
        }
    }
}

/* Linear weights of one block (for parameters and model FLOPs). */
static void block_weights(const dam_transformer *t, double *linear_active,
                          double *linear_all, double *other)
{
    double d = t->hidden, hd = head_dim(t);
    double attn = d * (t->heads + 2.0 * t->kv_heads) * hd + t->heads * hd * d;
    double mlp1 = (t->gated ? 3.0 : 2.0) * d * t->ffn;
    double E = t->experts > 1 ? t->experts : 1.0;
    double K = t->experts > 1 ? (t->top_k > 0 ? t->top_k : 1) : 1.0;
    double router = t->experts > 1 ? d * E : 0.0;
    *linear_active = attn + K * mlp1 + router;
    *linear_all = attn + E * mlp1 + router;
    double bias = 0.0;
    if (t->bias)
        bias = (t->heads + 2.0 * t->kv_heads) * hd + d +
               E * ((t->gated ? 2.0 : 1.0) * t->ffn + d);
    *other = bias + (t->rmsnorm ? 2.0 * d : 4.0 * d);
}

double dam_graph_arch_params(const dam_arch *a)
{
    if (a->kind == DAM_ARCH_TRANSFORMER) {
        const dam_transformer *t = &a->tf;
        double la, lall, oth;
        block_weights(t, &la, &lall, &oth);
        double d = t->hidden;
        double p = t->layers * (lall + oth);
        p += (double)t->vocab * d;               /* input embedding */
        p += (double)t->max_pos * d;             /* learned positions */
        p += t->rmsnorm ? d : 2.0 * d;           /* final norm */
        if (t->lm_head && !t->tied)
            p += (double)t->vocab * d;
        return p;
    }
    if (a->kind == DAM_ARCH_LAYERS) {
        double p = 0.0;
        for (int i = 0; i < a->nlayers; i++) {
            const dam_layer *l = &a->layer[i];
            double w = 0.0;
            switch (l->kind) {
            case DAM_LAYER_CONV:
                w = (double)l->in / (l->groups > 0 ? l->groups : 1) * l->out *
                        l->kernel * l->kernel +
                    (l->bn ? 2.0 * l->out : 0.0);
                break;
            case DAM_LAYER_LINEAR:
                w = (double)l->in * l->out + l->out;
                break;
            case DAM_LAYER_EMBEDDING:
                w = l->rows * l->in;
                break;
            default:
                break;
            }
            p += w * l->count;
        }
        return p;
    }
    return 0.0;
}

double dam_graph_kv_bytes_per_token(const dam_transformer *t, double elem)
{
    return 2.0 * t->layers * t->kv_heads * head_dim(t) * elem;
}

static int check_tf(const dam_model_spec *m, int tp, dam_error *e)
{
    const dam_transformer *t = &m->arch.tf;
    if (t->layers < 1 || t->hidden < 1 || t->heads < 1 || t->ffn < 1 ||
        t->vocab < 1 || t->kv_heads < 1 || t->kv_heads > t->heads)
        return dam_error_set(e, NULL, m->line,
                             "model \"%s\": incomplete transformer config",
                             m->id);
    if (tp > 1 && (t->heads % tp != 0 || t->ffn % tp != 0))
        return dam_error_set(e, NULL, m->line,
                             "model \"%s\": tensor-parallel degree %d does "
                             "not divide its %d heads and FFN size %d",
                             m->id, tp, t->heads, t->ffn);
    if (tp > 1 && t->kv_heads < tp && tp % t->kv_heads != 0)
        return dam_error_set(e, NULL, m->line,
                             "model \"%s\": tensor-parallel degree %d and "
                             "%d KV heads do not fit",
                             m->id, tp, t->kv_heads);
    return DAM_OK;
}

/* Embedding, blocks, head of a transformer for geometry G. */
static void transformer(bld *B, const dam_transformer *t, const tf_geom *G,
                        double model_tokens)
{
    dam_graph *g = B->g;
    double T = G->rows, d = t->hidden;
    int pe = phase_of(g, "elementwise", DAM_PHASE_ELEMENTWISE);
    if (G->embed) {
        /* gather rows (+ learned positions), written once */
        double fe = (t->max_pos > 0 ? 5.0 : 2.0) * T * d;
        mem1(g, "embed", DAM_PASS_FWD, pe, 0u, fe, 0.0, 0.0,
             t->max_pos > 0 ? 2.0 : 1.0, 1.0);
        if (B->train)
            /* zero the table's gradient, scatter-add the rows */
            mem1(g, "embed.bwd", DAM_PASS_BWD, pe, 0u, 3.0 * T * d,
                 (double)t->vocab * d / G->tp, 0.0, 2.0, 1.0);
    }
    block(B, t, G, G->nl);
    if (G->head) {
        /* recomputation covers the blocks, not the head */
        bld H = *B;
        H.recompute = 0;
        unsigned eh = B->eager_ops & DAM_EAGER_HEAD ? DAM_EAGER_NORM : 0u;
        norm_op(&H, pe, eh, T * d, 1.0);
        if (t->lm_head) {
            int ph = phase_of(g, "lm_head", DAM_PHASE_MATMUL);
            double v = (double)t->vocab / G->tp;
            /* serving samples from the last token of each sequence only */
            double hr = T;
            if (G->kv_write) {
                hr = 0.0;
                for (int i = 0; i < G->nparts; i++)
                    hr += G->part[i].seqs;
            }
            gemm(&H, "lm_head", ph, hr, v, d, 1.0, 0u, 1, 1, 1.0);
            /* cross-entropy over the logits (fp32 upcast) or sampling */
            if (B->train && eh)
                /* torchtitan: cross_entropy(pred.float()): the cast 3,
                 * log-softmax 8 (max and sum passes, then read and write)
                 * forward in three kernels; backward the zero-filled NLL
                 * gradient 2, log-softmax backward 8 (a sum pass, then
                 * read gradient and output, write), the cast back 3, in
                 * four (fp32 as two 16-bit elements) */
                mem(&H, "loss", ph, 11.0 * hr * v, 3.0, 13.0 * hr * v, 4.0,
                    1.0);
            else if (B->train)
                mem(&H, "loss", ph, 4.0 * hr * v, 2.0, 4.0 * hr * v, 2.0, 1.0);
            else
                mem1(g, "sample", DAM_PASS_FWD, ph, 0u, 2.0 * hr * v, 0.0, 0.0,
                     2.0, 1.0);
        }
    }
    /* model FLOPs per sample (this rank's share) */
    double la, lall, oth;
    block_weights(t, &la, &lall, &oth);
    double mf = 2.0 * la / G->tp * model_tokens * G->nl;
    for (int i = 0; i < G->nparts; i++) {
        const attn_part *a = &G->part[i];
        mf += 4.0 * G->nl * a->seqs * a->q * (a->past + a->q) *
              (double)t->heads * head_dim(t) / G->tp;
    }
    if (G->head && t->lm_head)
        mf += 2.0 * (double)t->vocab * d * model_tokens / G->tp;
    g->model_flops = mf;
    double params = (lall + oth) / G->tp * G->nl;
    if (G->embed)
        params += ((double)t->vocab / G->tp + t->max_pos) * d;
    if (G->head && t->lm_head && (!t->tied || !G->embed))
        params += (double)t->vocab * d / G->tp;
    g->params = params;
}

static int stage(const dam_model_spec *m, int first, int count, int *l0,
                 int *nl, dam_error *e)
{
    int L = m->arch.tf.layers;
    if (first < 0 || first >= L || count < 0 || first + count > L)
        return dam_error_set(e, NULL, m->line,
                             "model \"%s\": layers %d..%d are outside its "
                             "%d blocks",
                             m->id, first, first + count - 1, L);
    *l0 = first;
    *nl = count > 0 ? count : L - first;
    return DAM_OK;
}

/* ---- layer tables ---------------------------------------------------- */

static const char *const layer_phase_default[DAM_LAYER_KIND_COUNT] = {
    "conv", "dense", "elementwise", "elementwise", "embedding", "bmm",
    "elementwise"};

static void layers(bld *B, const dam_model_spec *m)
{
    dam_graph *g = B->g;
    const dam_arch *a = &m->arch;
    double mf = 0.0, params = 0.0;
    for (int i = 0; i < a->nlayers; i++) {
        const dam_layer *l = &a->layer[i];
        double c = l->count;
        double hw2 = (double)l->hw * l->hw;
        const char *pn = layer_phase_default[l->kind];
        char nm[DAM_OP_NAME];
        switch (l->kind) {
        case DAM_LAYER_CONV: {
            int gr = l->groups > 0 ? l->groups : 1;
            double n = (double)l->out / gr;
            double k = (double)l->in / gr * l->kernel * l->kernel;
            double e_out = (double)l->out * hw2;
            double hin = (double)l->hw * (l->stride > 0 ? l->stride : 1);
            double e_in = (double)l->in * hin * hin;
            int pc = phase_of(g, pn, DAM_PHASE_MATMUL);
            snprintf(nm, sizeof nm, "conv%dx%d_%d", l->kernel, l->kernel,
                     l->out);
            gemm_x(B, nm, pc, hw2, n, k, gr, DAM_OPF_CONV, 1, i > 0,
                   e_in + e_out, c);
            mf += 2.0 * hw2 * n * k * gr * c;
            if (B->nchw) {
                /* channels-first activations: the 16-bit (and narrower)
                 * tensor-core kernels are channels-last, so cuDNN
                 * transposes each convolution's input and output before
                 * and after it (read + write each), in the forward and
                 * in each of dgrad and wgrad (MosaicML Composer "Channels
                 * Last" method card; data/README.md) */
                int pt = phase_of(g, "transpose", DAM_PHASE_ELEMENTWISE);
                mem_f(B, "nchw_transpose", pt, DAM_OPF_LOWP,
                      2.0 * (e_in + e_out), 2.0, 4.0 * (e_in + e_out), 4.0,
                      c);
            }
            int pb = -1;
            int kernels = B->train || B->eager;
            if (kernels && (l->bn || l->relu))
                pb = phase_of(g, "bn_relu", DAM_PHASE_ELEMENTWISE);
            /* inference batch-norm: one pass (read, scale, write) */
            if (kernels && l->bn)
                mem(B, "batchnorm", pb, (B->train ? 3.0 : 2.0) * e_out, 1.0,
                    5.0 * e_out, 1.0, c);
            if (kernels && l->relu)
                mem(B, "relu", pb, 2.0 * e_out, 1.0, 3.0 * e_out, 1.0, c);
            break;
        }
        case DAM_LAYER_LINEAR: {
            int pl = phase_of(g, pn, DAM_PHASE_MATMUL);
            snprintf(nm, sizeof nm, "linear_%d", l->out);
            gemm(B, nm, pl, hw2, l->out, l->in, 1.0, 0u, 1, i > 0, c);
            mf += 2.0 * hw2 * l->out * l->in * c;
            if ((B->train || B->eager) && l->relu) {
                int pb = phase_of(g, "elementwise", DAM_PHASE_ELEMENTWISE);
                mem(B, "relu", pb, 2.0 * l->out * hw2, 1.0,
                    3.0 * l->out * hw2, 1.0, c);
            }
            break;
        }
        case DAM_LAYER_POOL: {
            int pp = phase_of(g, B->train || B->eager ? "bn_relu"
                                                      : "elementwise",
                              DAM_PHASE_ELEMENTWISE);
            double in = (double)l->out * l->hw * l->stride * l->hw *
                        l->stride;
            double out = (double)l->out * hw2;
            mem(B, "pool", pp, in + out, 1.0, 2.0 * in + out, 1.0, c);
            break;
        }
        case DAM_LAYER_ADD: {
            double e = (double)l->out * hw2;
            if (B->train || B->eager) {
                int pp = phase_of(g, "bn_relu", DAM_PHASE_ELEMENTWISE);
                mem(B, "add", pp, 3.0 * e, 1.0, 3.0 * e, 1.0, c);
                if (l->relu)
                    mem(B, "relu", pp, 2.0 * e, 1.0, 3.0 * e, 1.0, c);
            } else {
                /* fused into the convolution's epilogue: reads the residual */
                int pp = phase_of(g, "elementwise", DAM_PHASE_ELEMENTWISE);
                mem1(g, "add", DAM_PASS_FWD, pp, 0u, e, 0.0, 0.0, 0.0, c);
            }
            break;
        }
        case DAM_LAYER_EMBEDDING: {
            int pe = phase_of(g, pn, DAM_PHASE_EMBEDDING);
            double el = l->lookups * l->in;
            mem1(g, "gather", DAM_PASS_FWD, pe, 0u, 2.0 * el, 0.0, 0.0, 1.0, c);
            if (B->train) {
                double dense = l->sparse ? 0.0 : l->rows * l->in;
                mem1(g, "scatter", DAM_PASS_BWD, pe, 0u, 3.0 * el, dense, 0.0,
                     1.0, c);
                if (l->sparse) /* sparse update of the touched rows (SGD) */
                    mem1(g, "sparse_update", DAM_PASS_OPT, pe, 0u, 0.0, 0.0, 0.0,
                         1.0, c);
            }
            break;
        }
        case DAM_LAYER_BMM: {
            int pb = phase_of(g, pn, DAM_PHASE_MATMUL);
            gemm(B, "bmm", pb, l->m, l->n, l->k, 1.0, 0u, 0, 1, c);
            mf += 2.0 * l->m * l->n * l->k * c;
            break;
        }
        case DAM_LAYER_ELEMENTWISE: {
            int pp = phase_of(g, pn, DAM_PHASE_ELEMENTWISE);
            mem(B, "elementwise", pp, l->elems, 1.0, 1.5 * l->elems, 1.0, c);
            break;
        }
        case DAM_LAYER_KIND_COUNT:
            break;
        }
    }
    params = dam_graph_arch_params(a);
    g->model_flops = mf;
    g->params = params;
}

/* Sparse embedding rows touched per sample (their update is per batch). */
static double sparse_rows_elems(const dam_arch *a)
{
    double e = 0.0;
    for (int i = 0; i < a->nlayers; i++)
        if (a->layer[i].kind == DAM_LAYER_EMBEDDING && a->layer[i].sparse)
            e += a->layer[i].lookups * a->layer[i].in * a->layer[i].count;
    return e;
}

static double sparse_params(const dam_arch *a)
{
    double p = 0.0;
    for (int i = 0; i < a->nlayers; i++)
        if (a->layer[i].kind == DAM_LAYER_EMBEDDING && a->layer[i].sparse)
            p += a->layer[i].rows * a->layer[i].in * a->layer[i].count;
    return p;
}

/* ---- public builders ------------------------------------------------ */

static void graph_clear(dam_graph *g)
{
    memset(g, 0, offsetof(dam_graph, ops));
}

/* Halvings of a tile of width t for n columns: the library picks a
 * narrower tile (down to 16) while n fits in half of it. */
static unsigned char narrow_shift(double n, double t)
{
    unsigned char s = 0;
    while (t > 16.0 && n <= 0.5 * t) {
        t *= 0.5;
        s++;
    }
    return s;
}

static int finish(dam_graph *g, const dam_model_spec *m, dam_error *e)
{
    if (g->truncated)
        return dam_error_set(e, NULL, m->line,
                             "model \"%s\": its graph needs more than %d "
                             "operators or %d phases",
                             m->id, DAM_MAX_OPS, DAM_MAX_PHASES);
    /* what the costing would otherwise recompute on every evaluation */
    for (int i = 0; i < g->nops; i++) {
        dam_op *o = &g->ops[i];
        o->nshift[0] = narrow_shift(o->n, 128.0);
        o->nshift[1] = narrow_shift(o->n, 256.0);
        o->ntiles[0] = ceil(o->n / ldexp(128.0, -o->nshift[0]));
        o->ntiles[1] = ceil(o->n / ldexp(256.0, -o->nshift[1]));
    }
    return DAM_OK;
}

/* The optimizer step over this graph's dense parameters, plus the
 * updates of sparse embedding rows (their elements scale with the batch). */
static void optimizer(bld *B, const dam_model_spec *m,
                      const dam_graph_opts *o)
{
    dam_graph *g = B->g;
    int po = phase_of(g, "optimizer", DAM_PHASE_ELEMENTWISE);
    double ob = o->optimizer_bytes > 0.0 ? o->optimizer_bytes : 8.0;
    double mb = o->master_bytes > 0.0 ? o->master_bytes : 4.0;
    double gb = o->grad_bytes > 0.0 ? o->grad_bytes : 2.0;
    double dense = g->params - sparse_params(&m->arch);
    if (dense < 0.0)
        dense = 0.0;
    /* read + write master weights and state, read the gradient, zero it;
     * the 16-bit weight copy is written only below 32-bit precision */
    dam_op op;
    init_op(&op, "optimizer", DAM_OP_MEM, DAM_PASS_OPT, po, DAM_SCALE_M);
    op.fixed_bytes = dense * (2.0 * (mb + ob) + 2.0 * gb);
    op.kernels = 12.0 + dense / 5e7; /* multi-tensor apply launches */
    add(g, &op, 1.0);
    init_op(&op, "weight_cast", DAM_OP_MEM, DAM_PASS_OPT, po, DAM_SCALE_M);
    op.flags = DAM_OPF_LOWP;
    op.weight_elems = dense;
    op.kernels = 2.0;
    add(g, &op, 1.0);
    double sp = sparse_rows_elems(&m->arch);
    if (sp > 0.0)
        mem1(g, "sparse_update", DAM_PASS_OPT, po, 0u, 3.0 * sp, 0.0, 0.0, 1.0,
             1.0);
    if (o->amp) {
        /* autocast: fp32 weights read and cast to 16 bit every forward */
        init_op(&op, "autocast", DAM_OP_MEM, DAM_PASS_FWD, po, DAM_SCALE_M);
        op.flags = DAM_OPF_LOWP;
        op.fixed_bytes = 4.0 * dense;
        op.weight_elems = dense;
        op.kernels = m->layers > 0 ? 2.0 * m->layers : 2.0;
        add(g, &op, 1.0);
    }
}

int dam_graph_build(dam_graph *g, const dam_model_spec *m,
                    const dam_graph_opts *o, dam_error *e)
{
    graph_clear(g);
    bld B = {g, o->mode == DAM_GRAPH_TRAIN,
             o->mode == DAM_GRAPH_TRAIN && o->recompute, DAM_SCALE_M,
             o->mode == DAM_GRAPH_INFER && o->eager, o->channels_first,
             o->lora_rank > 0, o->lora_rank > 0 ? o->nf4_bytes : 0.0,
             o->lora_rank, o->lora_targets,
             o->mode == DAM_GRAPH_TRAIN ? (unsigned)o->eager_ops : 0u,
             o->mode == DAM_GRAPH_TRAIN && o->recompute && o->sac_ops};
    if (m->arch.kind == DAM_ARCH_TRANSFORMER) {
        int tp = o->tp > 1 ? o->tp : 1;
        if (check_tf(m, tp, e) != DAM_OK)
            return DAM_EINPUT;
        tf_geom G;
        memset(&G, 0, sizeof G);
        if (stage(m, o->layer_first, o->layer_count, &G.l0, &G.nl, e) !=
            DAM_OK)
            return DAM_EINPUT;
        double s = o->seq_len > 0.0 ? o->seq_len : m->seq_len;
        if (!(s >= 1.0))
            s = 1.0;
        G.rows = s;
        G.nparts = 1;
        G.part[0].seqs = 1.0;
        G.part[0].q = s;
        G.part[0].causal = m->arch.tf.causal;
        G.tp = tp;
        G.sp = o->sequence_parallel;
        G.embed = !o->no_embed && G.l0 == 0;
        G.head = !o->no_head && G.l0 + G.nl == m->arch.tf.layers;
        transformer(&B, &m->arch.tf, &G, s);
    } else if (m->arch.kind == DAM_ARCH_LAYERS) {
        if (m->arch.nlayers < 1)
            return dam_error_set(e, NULL, m->line,
                                 "model \"%s\": empty layer table", m->id);
        layers(&B, m);
    } else {
        return dam_error_set(e, NULL, m->line,
                             "model \"%s\" has no architecture (give "
                             "'arch' in its catalog entry)",
                             m->id);
    }
    if (B.train && !o->no_optimizer)
        optimizer(&B, m, o);
    return finish(g, m, e);
}

int dam_graph_llm_iteration(dam_graph *g, const dam_model_spec *m,
                            const dam_llm_iter *it, dam_error *e)
{
    graph_clear(g);
    if (m->arch.kind != DAM_ARCH_TRANSFORMER)
        return dam_error_set(e, NULL, m->line,
                             "model \"%s\" is not a transformer", m->id);
    int tp = it->tp > 1 ? it->tp : 1;
    if (check_tf(m, tp, e) != DAM_OK)
        return DAM_EINPUT;
    if (!(it->prefill_seqs >= 0.0 && it->prefill_tokens >= 0.0 &&
          it->prefill_past >= 0.0 && it->decode_seqs >= 0.0 &&
          it->decode_ctx >= 0.0) ||
        !(it->prefill_seqs * it->prefill_tokens + it->decode_seqs > 0.0))
        return dam_error_set(e, NULL, m->line,
                             "an LLM iteration needs tokens (prefill %g x %g, "
                             "decode %g)",
                             it->prefill_seqs, it->prefill_tokens,
                             it->decode_seqs);
    tf_geom G;
    memset(&G, 0, sizeof G);
    if (stage(m, it->layer_first, it->layer_count, &G.l0, &G.nl, e) != DAM_OK)
        return DAM_EINPUT;
    G.rows = it->prefill_seqs * it->prefill_tokens + it->decode_seqs;
    G.nparts = 2;
    G.part[0] = (attn_part){it->prefill_seqs, it->prefill_tokens,
                            it->prefill_past, m->arch.tf.causal};
    G.part[1] = (attn_part){it->decode_seqs, 1.0, it->decode_ctx, 0};
    G.tp = tp;
    G.embed = !it->no_embed && G.l0 == 0;
    G.head = !it->no_head && G.l0 + G.nl == m->arch.tf.layers;
    G.kv_write = 1;
    bld B = {g, 0, 0, DAM_SCALE_NONE, 0, 0, 0, 0.0, 0, 0, 0u, 0};
    transformer(&B, &m->arch.tf, &G, G.rows);
    return finish(g, m, e);
}

int dam_graph_derive_phases(dam_model_spec *m, double seq_len, dam_error *e)
{
    if (m->arch.kind == DAM_ARCH_NONE)
        return DAM_OK;
    if (seq_len > 0.0)
        m->seq_len = seq_len;
    dam_graph_opts o;
    memset(&o, 0, sizeof o);
    o.seq_len = m->seq_len;
    /* the catalog's roofline phases are training-shaped forwards */
    o.mode = DAM_GRAPH_TRAIN;
    o.no_optimizer = 1;
    dam_graph g;
    if (dam_graph_build(&g, m, &o, e) != DAM_OK)
        return DAM_EINPUT;
    double params = m->params > 0.0 ? m->params : g.params;
    m->nphases = g.nphases < DAM_MAX_PHASES ? g.nphases : DAM_MAX_PHASES;
    for (int i = 0; i < m->nphases; i++) {
        dam_phase *p = &m->phases[i];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", g.phase[i]);
        p->kind = g.phase_kind[i];
    }
    for (int i = 0; i < g.nops; i++) {
        const dam_op *op = &g.ops[i];
        if (op->pass != DAM_PASS_FWD || op->phase >= m->nphases)
            continue;
        dam_phase *p = &m->phases[op->phase];
        double c = op->count;
        switch (op->kind) {
        case DAM_OP_GEMM: {
            p->flops += c * op->flops;
            double a = op->m * op->k * op->groups, cc = op->m * op->n *
                                                        op->groups;
            if (op->flags & DAM_OPF_WEIGHT) {
                p->act_bytes += 2.0 * c * (a + cc);
                p->weight_frac += c * op->k * op->n * op->groups / params;
            } else {
                p->act_bytes += 2.0 * c * (a + cc + op->k * op->n *
                                                        op->groups);
            }
            break;
        }
        case DAM_OP_ATTN:
            p->flops += c * op->flops;
            p->act_bytes += 2.0 * c * op->elems;
            break;
        case DAM_OP_MEM:
            if (op->flags & DAM_OPF_LOWP)
                break;
            p->act_bytes += 2.0 * op->elems;
            break;
        default:
            break;
        }
    }
    m->flops_per_sample = g.model_flops;
    return DAM_OK;
}

double dam_graph_kernels(const dam_graph *g, int pass)
{
    double k = 0.0;
    for (int i = 0; i < g->nops; i++) {
        const dam_op *o = &g->ops[i];
        if (pass >= 0 && o->pass != pass)
            continue;
        k += o->kind == DAM_OP_MEM ? o->kernels : o->count * o->kernels;
    }
    return k;
}

const char *dam_pass_name(dam_pass p)
{
    static const char *const n[DAM_PASS_COUNT] = {"forward", "backward",
                                                  "recompute", "optimizer"};
    return (unsigned)p < DAM_PASS_COUNT ? n[p] : "?";
}

const char *dam_op_kind_name(dam_op_kind k)
{
    static const char *const n[DAM_OP_KIND_COUNT] = {"gemm", "attention",
                                                     "memory", "collective"};
    return (unsigned)k < DAM_OP_KIND_COUNT ? n[k] : "?";
}
