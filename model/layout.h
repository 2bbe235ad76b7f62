/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * layout.h: how a large model is split over the GPUs of a training run
 * (MODEL.md section 9; issue 12 items 1 and 3): tensor, pipeline, data,
 * context and expert parallelism, ZeRO/FSDP sharding, activation
 * recomputation, micro-batches, and what each GPU then holds in memory.
 *
 * Degrees and placement. GPUs = tp x cp x pp x dp. Ranks are numbered as
 * Megatron-LM numbers them (order "tp-cp-ep-dp-pp"): the tensor-parallel
 * rank varies fastest, then context, then data, then pipeline, so a
 * tensor-parallel group is tp consecutive GPUs (inside one NVLink domain
 * when tp divides the domain) and a data-parallel group strides over
 * tp x cp. Expert parallelism is carved out of data parallelism (as in
 * Megatron-Core and DeepSpeed-MoE): the experts of a layer are split over
 * ep of the dp x cp ranks that share it, so ep divides dp x cp, expert
 * weights are replicated dp x cp / ep times and dense weights dp x cp
 * times. The pipeline splits the transformer blocks evenly: pp x vpp
 * chunks (vpp model chunks per rank with the interleaved schedule), the
 * embedding on the first, the head on the last.
 *
 * Validation (dam_layout_check) gives every broken rule with its numbers:
 * the product of the degrees against the GPU count, heads, KV heads and
 * the FFN width against tp, blocks against pp x vpp, experts against ep,
 * the sequence against cp, the global batch against dp x micro-batch.
 *
 * Memory (dam_layout_memory): weights, gradients and optimizer state of
 * the rank's share of its stage (ZeRO stage 1 shards the optimizer state
 * and master weights over the data-parallel group, 2 also the gradients,
 * 3 and FSDP also the weights, Rajbhandari et al. 2020), activations of
 * the micro-batches in flight for the schedule (counted tensor by tensor
 * from the block's shapes, the accounting of Korthikanti et al. 2022,
 * section 4: with recomputation only what it keeps), communication buffers
 * and the runtime's reserve. The worst stage is what must fit.
 *
 * Plain data, no allocation, nothing printed.
 */
#ifndef DAM_LAYOUT_H
#define DAM_LAYOUT_H

#include <stdint.h>

#include "model/catalog.h"
#include "model/error.h"
#include "model/network.h"

/* Pipeline schedules. */
typedef enum {
    DAM_SCHED_1F1B = 0,    /* one forward, one backward (PipeDream-Flush) */
    DAM_SCHED_GPIPE,       /* all forwards, then all backwards */
    DAM_SCHED_INTERLEAVED, /* 1F1B over vpp model chunks per rank */
    DAM_SCHED_COUNT
} dam_pp_schedule;

/* Activation recomputation. */
typedef enum {
    DAM_RECOMPUTE_NONE = 0,
    DAM_RECOMPUTE_SELECTIVE, /* the attention core (scores, softmax) only */
    DAM_RECOMPUTE_FULL,      /* every block from its input */
    DAM_RECOMPUTE_COUNT
} dam_recompute;

const char *dam_pp_schedule_name(int s);
const char *dam_recompute_name(int r);

/* A parallel layout. Degrees are >= 1. */
typedef struct dam_layout {
    int on;            /* 1: the scenario gives a layout (parallel group):
                        * the layout solver and simulation run it */
    int tp;            /* tensor-parallel degree */
    int pp;            /* pipeline-parallel degree (stages) */
    int dp;            /* data-parallel degree */
    int cp;            /* context-parallel degree (sequence split) */
    int ep;            /* expert-parallel degree (divides dp x cp) */
    int vpp;           /* model chunks per pipeline rank (interleaved) */
    int first_layers;  /* blocks of the first pipeline chunk, 0 = an even
                        * split (Llama 3 405B ran 126 blocks on 16 stages
                        * with one fewer on the first and last) */
    int last_layers;   /* blocks of the last chunk, 0 = even */
    int schedule;      /* a dam_pp_schedule */
    int sp;            /* 1: sequence parallelism with tp (Megatron) */
    int micro_batch;   /* sequences per micro-batch */
    int micro_batches; /* micro-batches per step per pipeline (gradient
                        * accumulation); global batch = dp x micro_batch
                        * x micro_batches sequences */
    int zero;          /* sharding over data parallel: 0 none, 1 optimizer
                        * state, 2 + gradients, 3 + weights */
    int fsdp;          /* 1: PyTorch FSDP full sharding (zero 3) */
    int recompute;     /* a dam_recompute */
    int overlap_grad;  /* 1: bucketed gradient reductions overlap the
                        * last micro-batch's backward */
    int overlap_param; /* 1: parameter all-gathers (ZeRO) are prefetched
                        * under the forward and backward */
    int overlap_a2a;   /* 1: expert all-to-alls run under another
                        * micro-batch's compute (DeepSeek-V3's DualPipe);
                        * 0: in series with the block's compute */
    int tp_overlap;    /* 1: tensor-parallel collectives pipelined with
                        * the block's GEMMs (TE userbuffers, async TP) */
    int reshard_step;  /* 1: ZeRO-3/FSDP weights gathered once per step
                        * and kept over its micro-batches; 0: gathered
                        * for every micro-batch's forward and backward */
    int offload;       /* ZeRO-Offload: 0 none, 1 optimizer state and
                        * master weights in host memory (the optimizer
                        * steps on the CPU), 2 also the weights (ZeRO-3:
                        * gathered from host memory) */
    int profile;       /* a dam_profile_id (recipe.h) */
    int bucket_per_block; /* 1: one gradient bucket per transformer block
                        * (FSDP units) instead of pipeline.bucket_mb */
    double reserve;    /* device memory the runtime holds outside the
                        * model (CUDA context, library workspaces,
                        * allocator), bytes */
    int slow_rank;     /* a straggler: its GPU rank, -1 = none */
    double slow_factor;/* its compute time multiplier, >= 1 */
} dam_layout;

/* Default layout values: everything 1, 1F1B, no recomputation, overlap on,
 * no straggler; `on` stays 0. */
void dam_layout_init(dam_layout *l);

/* Which rule a check failed, so a loader can point at its key. */
typedef enum {
    DAM_LAYOUT_OK = 0,
    DAM_LAYOUT_PRODUCT,   /* tp x cp x pp x dp != GPUs */
    DAM_LAYOUT_TP,        /* heads / KV heads / FFN / domain against tp */
    DAM_LAYOUT_PP,        /* blocks against pp x vpp */
    DAM_LAYOUT_VPP,       /* vpp without the interleaved schedule, or the
                           * interleaved schedule's micro-batch rule */
    DAM_LAYOUT_CP,        /* sequence against cp */
    DAM_LAYOUT_EP,        /* experts / dp x cp against ep */
    DAM_LAYOUT_BATCH,     /* global batch against dp x micro-batch */
    DAM_LAYOUT_ZERO,      /* fsdp with a ZeRO stage other than 3 */
    DAM_LAYOUT_MODEL,     /* the model has no transformer architecture */
    DAM_LAYOUT_SLOW       /* straggler rank beyond the GPUs */
} dam_layout_rule;

/*
 * Check layout l for model m on `gpus` GPUs with sequences of seq_len
 * tokens. Returns DAM_OK, or DAM_EINPUT with e's message (no file or
 * line: the caller adds them) and *rule naming the broken rule (rule may
 * be NULL). The first broken rule is reported.
 */
int dam_layout_check(const dam_layout *l, const dam_model_spec *m,
                     int64_t gpus, double seq_len, dam_layout_rule *rule,
                     dam_error *e);

/* Blocks of pipeline chunk v (0 <= v < pp x vpp; chunk v sits on stage
 * v mod pp): first block and count. The first and last chunks hold
 * first_layers and last_layers when given, the others an even share. */
void dam_layout_chunk_layers(const dam_layout *l, int layers, int v,
                             int *first, int *count);
/* Blocks of stage s (its chunks summed). */
int dam_layout_stage_blocks(const dam_layout *l, int layers, int s);

/* Communication groups of the layout as the network sees them. */
typedef enum {
    DAM_GROUP_TP = 0,  /* tensor parallel */
    DAM_GROUP_CP,      /* context parallel */
    DAM_GROUP_DP,      /* data parallel of dense weights (dp x cp ranks) */
    DAM_GROUP_EP,      /* expert parallel (all-to-all) */
    DAM_GROUP_EDP,     /* data parallel of expert weights (dp x cp / ep) */
    DAM_GROUP_PP,      /* pipeline neighbours (a pair) */
    DAM_GROUP_COUNT
} dam_group_kind;

/* Shape of group `kind` on a network whose NVLink domains hold `domain`
 * GPUs: ranks n and ranks per domain k. */
void dam_layout_group(const dam_layout *l, dam_group_kind kind, int domain,
                      dam_net_group *g);

/* 1 when pipeline neighbours (stage s and s+1) share an NVLink domain. */
int dam_layout_pp_same_domain(const dam_layout *l, int domain);

/* Parameters of a transformer split the way layouts shard them. */
typedef struct dam_layout_params {
    double dense_layer;  /* per block, outside the experts (attention,
                          * norms, dense MLP, router) */
    double expert_layer; /* per block, all experts together (0 = dense) */
    double embed;        /* input embedding (+ learned positions) */
    double head;         /* final norm + LM head when not tied */
    double total;        /* the whole model */
} dam_layout_params;

void dam_layout_param_split(const dam_transformer *t, dam_layout_params *p);

/* Bytes per parameter of the model states (mixed-precision Adam is 2 + 2
 * + 12 = 16, Rajbhandari et al. 2020 section 3.1). */
typedef struct dam_state_bytes {
    double weight;    /* working weights, bytes per parameter */
    double grad;      /* gradients */
    double optimizer; /* optimizer state and master weights */
    double act_linear;/* bytes per saved linear-layer input element (a
                       * recipe's quantized copy; 0 = the activation
                       * width) */
    int sac_ops;      /* 1: recompute "selective" is torchtitan's op-level
                       * policy (recipe.h sac_ops): a block keeps what
                       * that policy saves, not Megatron's selection */
    double logit_bytes;/* bytes per logit held at the loss's peak (0 = the
                       * activation width + an fp32 copy) */
} dam_state_bytes;

/* Memory on one GPU of a layout (the worst stage), bytes. */
typedef struct dam_layout_mem {
    double weights;     /* working weights (ZeRO-3: the shard) */
    double gradients;
    double optimizer;   /* optimizer state + master weights */
    double activations; /* kept for backward, micro-batches in flight */
    double buffers;     /* communication buffers, gathered weights (ZeRO-3),
                         * logits of the loss */
    double reserve;     /* the runtime's reserve */
    double total;
    int stage;          /* the stage this is (the worst) */
    double in_flight;   /* micro-batches (chunk-activations / vpp) it keeps */
    double act_layer;   /* activation bytes of one block, one micro-batch */
} dam_layout_mem;

/*
 * Memory per GPU of layout l for transformer m at seq_len tokens per
 * sequence and `elem` bytes per activation element, with state bytes sb
 * and a gradient bucket of bucket bytes. Fills out for the stage that
 * needs most. Stages differ by the embedding, the head and the
 * micro-batches in flight.
 */
void dam_layout_memory(const dam_layout *l, const dam_model_spec *m,
                       double seq_len, double elem, const dam_state_bytes *sb,
                       double bucket, dam_layout_mem *out);

/* Activation bytes one block keeps for backward for one micro-batch of
 * layout l (per GPU), given the recomputation. */
double dam_layout_act_layer(const dam_layout *l, const dam_transformer *t,
                            double seq_len, double elem, int train_dropout);

#endif
