/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * graph.h: a model as a graph of operators, built from its architecture
 * numbers (catalog.h dam_arch; MODEL.md section 8).
 *
 * Design. A dam_graph is a flat list of operators, each a kernel kind the
 * device model (device.h) knows how to cost: a GEMM of shape M x N x K
 * (dense layers, implicit-GEMM convolutions, batched score products), a
 * fused attention kernel, a memory-bound kernel (norms, activations,
 * residual adds, softmax, gathers, the optimizer), or a collective. The
 * order of a layer's operators is not kept: the analytic costs only need
 * the multiset, so identical operators are merged into one entry with a
 * multiplicity (`count`: 32 identical transformer blocks are one entry per
 * operator, counted 32 times). A ResNet-50 training step is about 80
 * entries, a transformer's about 40, whatever its depth.
 *
 * Batch. Shapes are stored per sample: exactly one dimension of each
 * operator grows with the batch (`scale`: the GEMM rows M, the inner K of a
 * weight gradient, the group count of a batched product, or the elements of
 * a memory-bound kernel). The device model multiplies that dimension by the
 * batch b it is asked about, so one graph serves every batch size; graphs
 * for LLM serving iterations are built with their sizes folded in and
 * costed at b = 1.
 *
 * Passes. Every operator belongs to a pass: forward, backward (the
 * activation gradient "dgrad" and weight gradient "wgrad" GEMMs of every
 * forward GEMM, and the backward of every memory-bound kernel),
 * recomputation (the forward again, when activations are recomputed) or
 * the optimizer. And to a phase: a named group for the roofline table
 * ("dense", "attention", "elementwise", "lm_head", "conv", "bn_relu",
 * "optimizer", ...), at most DAM_MAX_PHASES per graph.
 *
 * Elements, not bytes. Activations and weights are counted in elements, so
 * the graph does not depend on the precision: the device model multiplies
 * by the element size of the run. Only bytes whose width does not follow
 * the compute precision (fp32 optimizer state and master weights) are
 * stored as bytes.
 *
 * Builds are cheap (a few microseconds, no allocation) and deterministic.
 * A graph is plain data (no pointers): it copies by assignment. Nothing
 * here knows a GPU.
 */
#ifndef DAM_GRAPH_H
#define DAM_GRAPH_H

#include "model/catalog.h"
#include "model/error.h"

/* Which device path costs an operator. */
typedef enum {
    DAM_OP_GEMM = 0, /* dense matmul or implicit-GEMM convolution */
    DAM_OP_ATTN,     /* fused attention kernel (FlashAttention-class) */
    DAM_OP_MEM,      /* memory-bound kernel */
    DAM_OP_COMM,     /* collective over `ranks` GPUs */
    DAM_OP_KIND_COUNT
} dam_op_kind;

/* Which part of a step an operator belongs to. */
typedef enum {
    DAM_PASS_FWD = 0,   /* forward */
    DAM_PASS_BWD,       /* backward: dgrad + wgrad + memory-bound backward */
    DAM_PASS_RECOMPUTE, /* forward again inside backward (recomputation) */
    DAM_PASS_OPT,       /* optimizer step (and AMP bookkeeping) */
    DAM_PASS_COUNT
} dam_pass;

/* Which dimension grows with the batch (see the file comment). */
typedef enum {
    DAM_SCALE_NONE = 0, /* fixed size (weights only, LLM iterations) */
    DAM_SCALE_M,        /* GEMM rows; MEM/ATTN/COMM: elements, FLOPs, bytes */
    DAM_SCALE_K,        /* GEMM inner dimension (weight gradients) */
    DAM_SCALE_GROUPS    /* GEMM group count (batched products per sample) */
} dam_scale;

/* Collectives (DAM_OP_COMM). */
typedef enum {
    DAM_COMM_ALLREDUCE = 0,
    DAM_COMM_ALLGATHER,
    DAM_COMM_REDUCESCATTER,
    DAM_COMM_ALLTOALL
} dam_comm_kind;

/* GEMM flavours the device costs differently. */
#define DAM_OPF_CONV 1u   /* implicit-GEMM convolution (framework conv factor) */
#define DAM_OPF_WEIGHT 2u /* B operand is a weight (read once per kernel) */
#define DAM_OPF_LOWP 4u   /* MEM: happens only below 32-bit precision
                           * (16-bit weight copies) */
#define DAM_OPF_KV 8u     /* MEM: the elements are key/value-cache entries
                           * (costed at the cost options' kv_elem) */
#define DAM_OPF_LINEAR 16u /* GEMM: forward, dgrad or wgrad of a layer with
                            * a weight (not a convolution): what a precision
                            * recipe runs in its linear format (recipe.h) */

/* Eager operator chains (dam_graph_opts.eager_ops). */
#define DAM_EAGER_NORM 1u   /* RMSNorm as composite ops on an fp32 upcast */
#define DAM_EAGER_ROPE 2u   /* rotary embedding as an fp32 complex product */
#define DAM_EAGER_SWIGLU 4u /* SiLU and the gate product as two kernels */
#define DAM_EAGER_GQA 8u    /* grouped keys and values copied to every
                             * query head before attention (repeat_kv) */
#define DAM_EAGER_HEAD 16u  /* the final norm as DAM_EAGER_NORM and the
                             * loss over logits cast to fp32 */

#define DAM_OP_NAME 20

/* One operator, `count` times. Units per instance, per sample on the
 * scaled dimension. */
typedef struct dam_op {
    char name[DAM_OP_NAME]; /* "qkv", "fc1.wgrad", "conv3x3.dgrad", ... */
    unsigned char kind;     /* a dam_op_kind */
    unsigned char pass;     /* a dam_pass */
    unsigned char phase;    /* index into the graph's phase names */
    unsigned char scale;    /* a dam_scale */
    unsigned char flags;    /* DAM_OPF_* */
    unsigned char comm;     /* DAM_OP_COMM: a dam_comm_kind */
    unsigned short ranks;   /* DAM_OP_COMM: GPUs in the group */
    unsigned char wbin;     /* DAM_OP_MEM: size class, floor(log2) of the
                             * elements one kernel moves per sample (merged
                             * kernels keep their class apart) */
    unsigned char nshift[2];/* GEMM: halvings of a 128- and a 256-wide
                             * library tile for a narrow N (down to 16),
                             * set when the build finishes (the costing
                             * would otherwise redo it every evaluation) */
    double count;           /* identical instances per step */
    double m, n, k;         /* GEMM: C[m x n] = A[m x k] B[k x n] */
    double groups;          /* GEMM: independent products in one kernel */
    double flops;           /* ATTN/MEM: FLOP executed (GEMM: 2 m n k groups) */
    double elems;           /* MEM/ATTN: activation elements read + written;
                             * COMM: elements sent per rank; GEMM: operand
                             * elements that grow with the batch */
    double weight_elems;    /* elements read that do not grow with the batch
                             * (weights; GEMM: operands of fixed size) */
    double fixed_bytes;     /* MEM: bytes independent of precision and batch
                             * (fp32 optimizer state, master weights) */
    double kv_elems;        /* ATTN in serving: the part of elems that is
                             * key/value-cache reads (costed at kv_elem) */
    double kernels;         /* kernel launches per instance */
    double ntiles[2];       /* GEMM: tiles along N for a 128- and a 256-wide
                             * library tile (after nshift), set when the
                             * build finishes */
} dam_op;

#define DAM_MAX_OPS 160
#define DAM_GRAPH_PHASE_NAME 16

/* A model step (or a part of one) as operators. Plain data. */
typedef struct dam_graph {
    int nops;                         /* entries used in ops */
    int nphases;                      /* names used in phase */
    char phase[DAM_MAX_PHASES][DAM_GRAPH_PHASE_NAME];
    dam_phase_kind phase_kind[DAM_MAX_PHASES]; /* roofline kind per phase */
    double model_flops;               /* model FLOPs per sample of the
                                       * forward (the catalog convention:
                                       * full score matrices, no
                                       * recomputation), FLOP */
    double params;                    /* parameters the graph's layers hold
                                       * (this rank's share under tensor
                                       * parallelism) */
    int truncated;                    /* 1: ran out of op slots (an error
                                       * for the builders) */
    dam_op ops[DAM_MAX_OPS];
} dam_graph;

/* What to build. Zero-initialise, then set what differs from the default. */
typedef enum { DAM_GRAPH_TRAIN = 0, DAM_GRAPH_INFER } dam_graph_mode;

typedef struct dam_graph_opts {
    dam_graph_mode mode;   /* training step or inference forward */
    double seq_len;        /* tokens per sample (transformers; 0 = model's) */
    int recompute;         /* training: 1 = full activation recomputation */
    int tp;                /* tensor-parallel degree (0 or 1 = none): the
                            * layer's GEMMs are sharded Megatron-style and
                            * two all-reduces per layer and pass appear */
    int sequence_parallel; /* with tp > 1: norms/dropout sharded over tp,
                            * all-reduce = reduce-scatter + all-gather */
    int layer_first;       /* a pipeline stage: first block (0-based) */
    int layer_count;       /* blocks in this stage (0 = all from layer_first) */
    int no_embed;          /* 1: leave out the input embedding (later stages) */
    int no_head;           /* 1: leave out the final norm, head and loss */
    int no_optimizer;      /* 1: leave out the optimizer step */
    double optimizer_bytes;/* optimizer state bytes per parameter (Adam
                            * fp32 m and v: 8; 0 = 8) */
    double master_bytes;   /* master-weight bytes per parameter (0 = 4) */
    double grad_bytes;     /* gradient bytes per parameter (0 = 2) */
    int amp;               /* 1: eager mixed precision casts fp32 weights to
                            * 16 bit every forward (autocast) */
    int channels_first;    /* CNNs: 1 = activations channels-first (NCHW,
                            * PyTorch's default memory format): below 32-bit
                            * precision each convolution transposes its input
                            * and output to and from the channels-last layout
                            * of the tensor-core kernels; 0 = channels-last
                            * (NHWC), no transposes */
    int lora_rank;         /* training: > 0 = LoRA adapters of this rank
                            * on the targeted projections, base weights
                            * frozen (no weight-gradient GEMMs) */
    int lora_targets;      /* bit 0: attention projections (q, k, v, o);
                            * bit 1: MLP projections */
    double nf4_bytes;      /* > 0: QLoRA, base linear weights stored at this
                            * many bytes and dequantized to 16 bits before
                            * every use */
    int eager_ops;         /* training: DAM_EAGER_* bits, operators a
                            * stack runs as chains of PyTorch eager ops
                            * instead of one fused kernel (16-bit
                            * activations; graph.c counts each) */
    int sac_ops;           /* training, with recompute: 1 = op-level
                            * selective checkpointing as torchtitan's
                            * policy does it: matmul outputs and attention
                            * saved except every second matmul of a block,
                            * everything else recomputed; 0 = the whole
                            * forward again */
    int eager;             /* inference: 1 = a framework's eager forward
                            * (batch-norm, ReLU and residual adds as kernels
                            * of their own), 0 = an inference engine's graph
                            * (batch-norm folded, ReLU and adds fused into
                            * the convolutions' epilogues) */
} dam_graph_opts;

/*
 * Build the training step or inference forward of model m into g. A
 * transformer follows m->arch.tf, a layer table m->arch.layer (stage
 * options apply to transformers only). Returns DAM_OK, or DAM_EINPUT with
 * e filled when m has no architecture, the options do not fit it (tp not
 * dividing the heads, a stage outside the model) or the graph is too big.
 */
int dam_graph_build(dam_graph *g, const dam_model_spec *m,
                    const dam_graph_opts *o, dam_error *e);

/*
 * One iteration of LLM serving on one rank (MODEL.md section 10):
 * prefill chunks and decode steps batched together, as continuous batching
 * runs them. The GEMMs see every new token of the iteration at once
 * (rows = prefill_seqs x prefill_tokens + decode_seqs); attention is per
 * sequence: a prefill chunk attends to its past and itself, a decode step
 * reads its whole KV cache. Sizes are folded in: cost it at batch 1.
 */
typedef struct dam_llm_iter {
    double prefill_seqs;   /* sequences prefilling a chunk this iteration */
    double prefill_tokens; /* new tokens per prefilling sequence */
    double prefill_past;   /* tokens already cached per prefilling sequence */
    double decode_seqs;    /* sequences producing one token each */
    double decode_ctx;     /* mean context (cached tokens) of a decoding
                            * sequence */
    int tp;                /* tensor-parallel degree (0 or 1 = none) */
    int layer_first;       /* pipeline stage, as in dam_graph_opts */
    int layer_count;
    int no_embed;
    int no_head;           /* also: no sampling over the vocabulary */
} dam_llm_iter;

int dam_graph_llm_iteration(dam_graph *g, const dam_model_spec *m,
                            const dam_llm_iter *it, dam_error *e);

/*
 * The fused-attention work of one layer on one rank of an LLM serving
 * iteration, for `seqs` sequences that each bring q new tokens after
 * `past` cached ones (causal: each new token sees the tokens before it):
 * the FLOPs, the elements moved (queries and outputs, and keys and values
 * read from the cache) and the cache's share of them. It is what
 * dam_graph_llm_iteration puts in a part's "flash_attn" operator, so a
 * caller summing several parts (prefill chunks of different lengths in
 * one varlen kernel) costs the same operator the builder would.
 */
void dam_graph_llm_attention(const dam_transformer *t, int tp, double seqs,
                             double q, double past, int causal,
                             double *flops, double *elems,
                             double *kv_elems);

/* Parameters of a transformer config (embeddings, blocks, head), or of a
 * layer table; 0 for a model without architecture. */
double dam_graph_arch_params(const dam_arch *a);

/* Key/value cache bytes per token of a transformer at `elem` bytes per
 * element: 2 x layers x kv_heads x head_dim x elem (MODEL.md section 10). */
double dam_graph_kv_bytes_per_token(const dam_transformer *t, double elem);

/*
 * Fill m's derived fields from its architecture at seq_len tokens per
 * sample (0 = keep m->seq_len): seq_len, flops_per_sample and the phases
 * (per-sample forward FLOPs, activation bytes at 2 bytes per element,
 * weight share), so that code reading phases sees the graph's numbers.
 * No-op without architecture. Returns DAM_OK or DAM_EINPUT.
 */
int dam_graph_derive_phases(dam_model_spec *m, double seq_len, dam_error *e);

/* Sum of count x kernels over the ops of a pass (-1 = all passes). */
double dam_graph_kernels(const dam_graph *g, int pass);

/* Name of a pass, an op kind. */
const char *dam_pass_name(dam_pass p);
const char *dam_op_kind_name(dam_op_kind k);

#endif
