/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * layout.c: parallel layouts: their rules, their groups on the network and
 * the memory each GPU needs (see layout.h).
 *
 * Activation memory is counted tensor by tensor from a block's shapes, as
 * Korthikanti et al. 2022 (section 4.1) count it for GPT: for a block of
 * T tokens, width d, a heads and an FFN of 4d the block keeps 34 T d
 * bytes plus 5 a T s for the materialised attention scores at 16 bits with
 * dropout. Counting the tensors instead of using that sum lets the same
 * code hold gated MLPs, grouped-query attention, fused (flash) attention,
 * MoE blocks, context parallelism and the three recomputation choices.
 */
#include "model/layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Device memory a CUDA process holds before the model: PyTorch issue
 * 34323 reports 781 MB at start (CUDA context, cuBLAS/cuDNN kernels); with
 * NCCL's channel buffers (NCCL_BUFFSIZE 4 MiB per channel and peer) and
 * cuBLAS workspaces about 1 GiB. */
#define RESERVE_DEFAULT 1073741824.0

const char *dam_pp_schedule_name(int s)
{
    switch (s) {
    case DAM_SCHED_1F1B: return "1f1b";
    case DAM_SCHED_GPIPE: return "gpipe";
    case DAM_SCHED_INTERLEAVED: return "interleaved";
    default: return "?";
    }
}

const char *dam_recompute_name(int r)
{
    switch (r) {
    case DAM_RECOMPUTE_NONE: return "none";
    case DAM_RECOMPUTE_SELECTIVE: return "selective";
    case DAM_RECOMPUTE_FULL: return "full";
    default: return "?";
    }
}

void dam_layout_init(dam_layout *l)
{
    memset(l, 0, sizeof *l);
    l->tp = l->pp = l->dp = l->cp = l->ep = l->vpp = 1;
    l->schedule = DAM_SCHED_1F1B;
    l->micro_batch = 1;
    l->micro_batches = 1;
    l->overlap_grad = 1;
    l->overlap_param = 1;
    l->reserve = RESERVE_DEFAULT;
    l->slow_rank = -1;
    l->slow_factor = 1.0;
}

static int fail(dam_layout_rule *rule, dam_layout_rule r, dam_error *e,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(dam_layout_rule *rule, dam_layout_rule r, dam_error *e,
                const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (rule)
        *rule = r;
    return dam_error_set(e, NULL, 0, "%s", msg);
}

int dam_layout_check(const dam_layout *l, const dam_model_spec *m,
                     int64_t gpus, double seq_len, dam_layout_rule *rule,
                     dam_error *e)
{
    if (rule)
        *rule = DAM_LAYOUT_OK;
    int64_t prod = (int64_t)l->tp * l->cp * l->pp * l->dp;
    if (prod != gpus)
        return fail(rule, DAM_LAYOUT_PRODUCT, e,
                    "the layout needs tp x cp x pp x dp = %d x %d x %d x %d "
                    "= %lld GPUs, the machine has %lld",
                    l->tp, l->cp, l->pp, l->dp, (long long)prod,
                    (long long)gpus);
    if (m->arch.kind != DAM_ARCH_TRANSFORMER)
        return fail(rule, DAM_LAYOUT_MODEL, e,
                    "parallel layouts need a transformer architecture; "
                    "model \"%s\" has none",
                    m->id);
    const dam_transformer *t = &m->arch.tf;
    if (t->heads % l->tp != 0)
        return fail(rule, DAM_LAYOUT_TP, e,
                    "tp = %d does not divide the %d attention heads of "
                    "\"%s\"",
                    l->tp, t->heads, m->id);
    if (t->kv_heads % l->tp != 0 && l->tp % t->kv_heads != 0)
        return fail(rule, DAM_LAYOUT_TP, e,
                    "tp = %d and the %d KV heads of \"%s\": one must "
                    "divide the other",
                    l->tp, t->kv_heads, m->id);
    if (t->ffn % l->tp != 0)
        return fail(rule, DAM_LAYOUT_TP, e,
                    "tp = %d does not divide the FFN width %d of \"%s\"",
                    l->tp, t->ffn, m->id);
    if (l->vpp > 1 && l->schedule != DAM_SCHED_INTERLEAVED)
        return fail(rule, DAM_LAYOUT_VPP, e,
                    "vpp = %d model chunks per stage need schedule "
                    "\"interleaved\" (got \"%s\")",
                    l->vpp, dam_pp_schedule_name(l->schedule));
    if (l->schedule == DAM_SCHED_INTERLEAVED && l->pp < 2)
        return fail(rule, DAM_LAYOUT_VPP, e,
                    "the interleaved schedule needs pp >= 2 (got pp = %d)",
                    l->pp);
    int chunks = l->pp * l->vpp;
    int fl = l->first_layers, ll = l->last_layers;
    if ((fl > 0 || ll > 0) && chunks < 2)
        return fail(rule, DAM_LAYOUT_PP, e,
                    "first_layers / last_layers need more than one "
                    "pipeline chunk (pp x vpp = %d)",
                    chunks);
    if (fl > 0 || ll > 0) {
        int n = chunks - (fl > 0) - (ll > 0);
        int rest = t->layers - fl - ll;
        if (rest < 0 || (n == 0 && rest != 0) || (n > 0 && (rest < n ||
                                                           rest % n != 0)))
            return fail(rule, DAM_LAYOUT_PP, e,
                        "%d blocks of \"%s\" less first_layers %d and "
                        "last_layers %d leave %d for the other %d chunks: "
                        "not an even split",
                        t->layers, m->id, fl, ll, rest, n);
    } else if (t->layers % chunks != 0) {
        return fail(rule, DAM_LAYOUT_PP, e,
                    "pp x vpp = %d x %d = %d chunks do not divide the %d "
                    "blocks of \"%s\" (first_layers / last_layers can "
                    "take the remainder)",
                    l->pp, l->vpp, chunks, t->layers, m->id);
    }
    if (l->schedule == DAM_SCHED_INTERLEAVED &&
        l->micro_batches % l->pp != 0)
        return fail(rule, DAM_LAYOUT_VPP, e,
                    "the interleaved schedule needs the micro-batches (%d) "
                    "to be a multiple of pp = %d",
                    l->micro_batches, l->pp);
    if (l->cp > 1 && fmod(seq_len, 2.0 * l->cp) != 0.0)
        return fail(rule, DAM_LAYOUT_CP, e,
                    "cp = %d needs the sequence (%.0f tokens) to split into "
                    "2 x cp = %d equal chunks (causal load balance)",
                    l->cp, seq_len, 2 * l->cp);
    int experts = t->experts > 1 ? t->experts : 1;
    if (l->ep > 1 && experts == 1)
        return fail(rule, DAM_LAYOUT_EP, e,
                    "ep = %d needs a mixture-of-experts model; \"%s\" is "
                    "dense",
                    l->ep, m->id);
    if (experts % l->ep != 0)
        return fail(rule, DAM_LAYOUT_EP, e,
                    "ep = %d does not divide the %d experts of \"%s\"",
                    l->ep, experts, m->id);
    if ((l->dp * l->cp) % l->ep != 0)
        return fail(rule, DAM_LAYOUT_EP, e,
                    "ep = %d must divide dp x cp = %d x %d = %d (expert "
                    "parallelism is carved out of data parallelism)",
                    l->ep, l->dp, l->cp, l->dp * l->cp);
    if (l->fsdp && l->zero != 3)
        return fail(rule, DAM_LAYOUT_ZERO, e,
                    "fsdp shards weights, gradients and optimizer state "
                    "(ZeRO stage 3); zero = %d contradicts it",
                    l->zero);
    if (l->slow_rank >= 0 && l->slow_rank >= gpus)
        return fail(rule, DAM_LAYOUT_SLOW, e,
                    "straggler rank %d is beyond the %lld GPUs",
                    l->slow_rank, (long long)gpus);
    return DAM_OK;
}

/* Blocks of the chunks in the middle (all of them when the split is
 * even); the first and last take first_layers / last_layers. */
static int mid_blocks(const dam_layout *l, int layers)
{
    int chunks = l->pp * l->vpp;
    int f = l->first_layers > 0, la = l->last_layers > 0;
    if (chunks == 1)
        return layers;
    int n = chunks - f - la;
    int rest = layers - (f ? l->first_layers : 0) - (la ? l->last_layers : 0);
    return n > 0 ? rest / n : 0;
}

static int chunk_blocks(const dam_layout *l, int layers, int v)
{
    int chunks = l->pp * l->vpp;
    if (chunks == 1)
        return layers;
    if (v == 0 && l->first_layers > 0)
        return l->first_layers;
    if (v == chunks - 1 && l->last_layers > 0)
        return l->last_layers;
    return mid_blocks(l, layers);
}

void dam_layout_chunk_layers(const dam_layout *l, int layers, int v,
                             int *first, int *count)
{
    int b = 0;
    for (int i = 0; i < v; i++)
        b += chunk_blocks(l, layers, i);
    *first = b;
    *count = chunk_blocks(l, layers, v);
}

int dam_layout_stage_blocks(const dam_layout *l, int layers, int s)
{
    int b = 0;
    for (int j = 0; j < l->vpp; j++)
        b += chunk_blocks(l, layers, j * l->pp + s);
    return b;
}

/* Members of a group of n ranks with stride st in one domain of D GPUs. */
static int per_domain(int n, int st, int domain)
{
    int k = st >= domain ? 1 : domain / st;
    if (k > n)
        k = n;
    if (k < 1)
        k = 1;
    while (n % k != 0)
        k--;
    return k;
}

void dam_layout_group(const dam_layout *l, dam_group_kind kind, int domain,
                      dam_net_group *g)
{
    int n = 1, st = 1;
    switch (kind) {
    case DAM_GROUP_TP: n = l->tp; st = 1; break;
    case DAM_GROUP_CP: n = l->cp; st = l->tp; break;
    case DAM_GROUP_DP: n = l->dp * l->cp; st = l->tp; break;
    case DAM_GROUP_EP: n = l->ep; st = l->tp; break;
    case DAM_GROUP_EDP: n = l->dp * l->cp / l->ep; st = l->tp * l->ep; break;
    case DAM_GROUP_PP: n = 2; st = l->tp * l->cp * l->dp; break;
    default: break;
    }
    if (n < 1)
        n = 1;
    g->n = n;
    g->k = per_domain(n, st, domain > 0 ? domain : 1);
}

int dam_layout_pp_same_domain(const dam_layout *l, int domain)
{
    dam_net_group g;
    dam_layout_group(l, DAM_GROUP_PP, domain, &g);
    return g.k == 2;
}

static double head_dim(const dam_transformer *t)
{
    return t->head_dim > 0 ? t->head_dim : (double)t->hidden / t->heads;
}

void dam_layout_param_split(const dam_transformer *t, dam_layout_params *p)
{
    double d = t->hidden, hd = head_dim(t), f = t->ffn;
    double attn = d * (t->heads + 2.0 * t->kv_heads) * hd + t->heads * hd * d;
    double mlp = (t->gated ? 3.0 : 2.0) * d * f;
    double E = t->experts > 1 ? t->experts : 1.0;
    double norms = t->rmsnorm ? 2.0 * d : 4.0 * d;
    double battn = 0.0, bmlp = 0.0;
    if (t->bias) {
        battn = (t->heads + 2.0 * t->kv_heads) * hd + d;
        bmlp = (t->gated ? 2.0 : 1.0) * f + d;
    }
    memset(p, 0, sizeof *p);
    if (t->experts > 1) {
        p->dense_layer = attn + battn + norms + d * E; /* router */
        p->expert_layer = E * (mlp + bmlp);
    } else {
        p->dense_layer = attn + battn + norms + mlp + bmlp;
    }
    p->embed = ((double)t->vocab + t->max_pos) * d;
    p->head = (t->rmsnorm ? d : 2.0 * d) +
              (t->lm_head && !t->tied ? (double)t->vocab * d : 0.0);
    p->total = t->layers * (p->dense_layer + p->expert_layer) + p->embed +
               p->head;
}

/*
 * Bytes one dense block keeps per token under torchtitan's op-level
 * selective checkpointing (recipe.c [TT-AC]): the checkpointed block's
 * input, and the outputs of the ops its policy saves: aten.mm except
 * every second one, counted in the order the block runs them (wq, wk,
 * wv, wo, w1, w3, w2: wq, wv, w1 and w2 are kept; without a gate w1 and
 * not w2), the SDPA kernel's output and fp32 log-sum-exp, and under
 * sequence parallelism the reduce-scatters' outputs (in its save list).
 * Everything else, norms, RoPE and SwiGLU included, is recomputed from
 * these in backward. An mm output is the layer's output at 16 bits, also
 * under Float8 linears (their outputs are high precision). A row-parallel
 * mm (wo, w2) writes the full width before its reduction.
 */
static double sac_per_token(const dam_layout *l, const dam_transformer *t,
                            double elem)
{
    double tp = l->tp, d = t->hidden, hd = head_dim(t);
    double sp = l->sp && l->tp > 1 ? tp : 1.0;
    double hq = t->heads / tp;
    double hkv = t->kv_heads >= l->tp ? t->kv_heads / tp : 1.0;
    double mm[7];
    int n = 0;
    mm[n++] = hq * hd;          /* wq */
    mm[n++] = hkv * hd;         /* wk */
    mm[n++] = hkv * hd;         /* wv */
    mm[n++] = d;                /* wo */
    mm[n++] = t->ffn / tp;      /* w1 */
    if (t->gated)
        mm[n++] = t->ffn / tp;  /* w3 */
    mm[n++] = d;                /* w2 */
    double e = d / sp;          /* the block's input */
    for (int i = 0; i < n; i += 2)
        e += mm[i];             /* the 1st, 3rd, ... mm of the block */
    e += hq * hd + 2.0 * hq;    /* SDPA output, log-sum-exp (fp32) */
    if (sp > 1.0)
        e += 2.0 * d / sp;      /* reduce-scatters after wo and w2 */
    return e * elem;
}

/*
 * Elements (and mask bytes) one block keeps per token of a micro-batch on
 * one GPU. `full`: everything the backward reads, no recomputation. `sac`:
 * selective is torchtitan's op-level policy (dense blocks; MoE blocks keep
 * Megatron's count, torchtitan's Llama has none).
 */
static double act_per_token(const dam_layout *l, const dam_transformer *t,
                            double seq_len, double elem, double lin,
                            int dropout, int recompute, int sac)
{
    double tp = l->tp, d = t->hidden, hd = head_dim(t);
    double sp = l->sp && l->tp > 1 ? tp : 1.0;
    if (recompute == DAM_RECOMPUTE_FULL)
        return elem * d / sp; /* the block's input only */
    if (recompute == DAM_RECOMPUTE_SELECTIVE && sac && t->experts <= 1)
        return sac_per_token(l, t, elem);
    double hq = t->heads / tp;
    double hkv = t->kv_heads >= l->tp ? t->kv_heads / tp : 1.0;
    /* e: elements kept at the activation width; li: linear-layer inputs,
     * kept at lin (a recipe's quantized copy) */
    double e = 0.0, li = 0.0, mask = 0.0;
    e += d / sp;                    /* input of the first norm */
    li += d / sp;                   /* input of the QKV projection */
    e += (hq + 2.0 * hkv) * hd;     /* Q, K, V */
    li += hq * hd;                  /* attention output = o_proj input */
    if (t->attn == DAM_ATTN_FLASH) {
        e += 2.0 * hq;              /* log-sum-exp, fp32 */
    } else if (recompute != DAM_RECOMPUTE_SELECTIVE) {
        double keys = seq_len;      /* scores of each query over all keys */
        e += hq * keys;             /* softmax output */
        if (dropout) {
            mask += hq * keys;      /* dropout mask, 1 byte */
            e += hq * keys;         /* dropout output */
        }
    }
    if (dropout)
        mask += d / sp;             /* after the attention projection */
    e += d / sp;                    /* input of the second norm */
    li += d / sp;                   /* input of the MLP */
    double up = t->gated ? 2.0 : 1.0;
    if (t->experts > 1) {
        double K = t->top_k > 0 ? t->top_k : 1.0;
        e += 2.0 * t->experts;      /* router logits, fp32 */
        li += K * d;                /* tokens dispatched to their experts */
        e += K * up * t->ffn / tp;  /* activation input */
        li += K * t->ffn / tp;      /* down-projection input */
    } else {
        e += up * t->ffn / tp;      /* activation input */
        li += t->ffn / tp;          /* down-projection input */
    }
    if (dropout)
        mask += d / sp;
    return e * elem + li * (lin > 0.0 ? lin : elem) + mask;
}

double dam_layout_act_layer(const dam_layout *l, const dam_transformer *t,
                            double seq_len, double elem, int train_dropout)
{
    double tokens = l->micro_batch * seq_len / l->cp;
    return tokens * act_per_token(l, t, seq_len, elem, 0.0,
                                  train_dropout && t->dropout, l->recompute,
                                  0);
}

/* Chunk-activations (each of layers / (pp vpp) blocks) stage s keeps. */
static double in_flight(const dam_layout *l, int s)
{
    double m = l->micro_batches;
    switch (l->schedule) {
    case DAM_SCHED_GPIPE:
        return m;
    case DAM_SCHED_INTERLEAVED: {
        /* Megatron's warm-up: 2 (pp - s - 1) + (vpp - 1) pp chunk
         * forwards, then one more in the steady state */
        double w = 2.0 * (l->pp - s - 1) + (l->vpp - 1.0) * l->pp + 1.0;
        double all = m * l->vpp;
        return w < all ? w : all;
    }
    default: {
        double w = l->pp - s;
        return w < m ? w : m;
    }
    }
}

void dam_layout_memory(const dam_layout *l, const dam_model_spec *m,
                       double seq_len, double elem, const dam_state_bytes *sb,
                       double bucket, dam_layout_mem *out)
{
    memset(out, 0, sizeof *out);
    if (m->arch.kind != DAM_ARCH_TRANSFORMER)
        return;
    const dam_transformer *t = &m->arch.tf;
    dam_layout_params P;
    dam_layout_param_split(t, &P);
    double tp = l->tp, ep = l->ep;
    double dpc = (double)l->dp * l->cp, edp = dpc / ep;
    double tokens = l->micro_batch * seq_len / l->cp;
    double a_layer = tokens * act_per_token(l, t, seq_len, elem,
                                            sb->act_linear, t->dropout,
                                            l->recompute, sb->sac_ops);
    double a_full = tokens * act_per_token(l, t, seq_len, elem,
                                           sb->act_linear, t->dropout,
                                           DAM_RECOMPUTE_NONE, 0);
    double K = t->experts > 1 ? (t->top_k > 0 ? t->top_k : 1) : 0.0;
    double best = -1.0;
    for (int s = 0; s < l->pp; s++) {
        dam_layout_mem r;
        memset(&r, 0, sizeof r);
        double blocks = dam_layout_stage_blocks(l, t->layers, s);
        double per_chunk = blocks / l->vpp;
        double dense = blocks * P.dense_layer;
        if (s == 0)
            dense += P.embed;
        if (s == l->pp - 1) {
            dense += P.head;
            /* tied head on its own stage keeps a copy of the embedding */
            if (t->lm_head && t->tied && l->pp > 1)
                dense += (double)t->vocab * t->hidden;
        }
        dense /= tp;
        double expert = blocks * P.expert_layer / (tp * ep);
        double zd = l->zero >= 1 ? dpc : 1.0, ze = l->zero >= 1 ? edp : 1.0;
        /* ZeRO-Offload: optimizer state (and weights) in host memory */
        r.optimizer = l->offload ? 0.0
                                 : sb->optimizer * (dense / zd + expert / ze);
        zd = l->zero >= 2 ? dpc : 1.0;
        ze = l->zero >= 2 ? edp : 1.0;
        r.gradients = sb->grad * (dense / zd + expert / ze);
        /* ZeRO-3 re-sharding once per step keeps the gathered weights
         * over the step's micro-batches */
        int z3 = l->zero >= 3 && !l->reshard_step;
        zd = z3 ? dpc : 1.0;
        ze = z3 ? edp : 1.0;
        r.weights = l->offload >= 2 ? 0.0
                                    : sb->weight * (dense / zd + expert / ze);
        r.in_flight = in_flight(l, s) / l->vpp;
        r.act_layer = a_layer;
        r.activations = in_flight(l, s) * per_chunk * a_layer;

        /* buffers: what exists at the peak besides the above */
        double buf = 0.0;
        double sp = l->sp && l->tp > 1 ? tp : 1.0;
        if (l->tp > 1 && l->sp)
            buf += tokens * t->hidden * elem;        /* gathered input */
        if (l->pp > 1)
            buf += 2.0 * tokens * t->hidden * elem / sp; /* send + receive */
        if (dpc > 1.0 && l->zero < 2)
            buf += bucket;                           /* reduction bucket */
        if (z3)                                      /* gathered blocks */
            buf += 2.0 * (P.dense_layer + P.expert_layer / ep) / tp *
                   sb->weight;
        if (K > 0.0)                                 /* all-to-all in+out */
            buf += 2.0 * tokens * K * t->hidden * elem;
        if (l->recompute == DAM_RECOMPUTE_FULL)      /* the block recomputed */
            buf += a_full;
        else if (l->recompute == DAM_RECOMPUTE_SELECTIVE && sb->sac_ops &&
                 a_full > a_layer)                   /* the rest of it */
            buf += a_full - a_layer;
        if (s == l->pp - 1 && t->lm_head)            /* logits + fp32 loss */
            buf += tokens * t->vocab / tp *
                   (sb->logit_bytes > 0.0 ? sb->logit_bytes : elem + 4.0);
        r.buffers = buf;
        r.reserve = l->reserve;
        r.total = r.weights + r.gradients + r.optimizer + r.activations +
                  r.buffers + r.reserve;
        r.stage = s;
        if (r.total > best) {
            best = r.total;
            *out = r;
        }
    }
}
