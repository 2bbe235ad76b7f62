/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * recipe.h: training precision recipes and framework profiles as data
 * (issue 23 items 1 and 2). Tables in recipe.c, each value with its
 * source beside it.
 *
 * A precision recipe says which operators run in which format and what is
 * kept at which width. BF16 mixed precision runs everything in BF16 with
 * fp32 master weights and optimizer state. The FP8 recipes are Transformer
 * Engine's: only the linear layers' GEMMs run in FP8; attention, softmax,
 * norms and elementwise kernels stay in BF16; every quantized activation
 * costs a cast kernel (amax and cast, with the transposed copy the
 * backward GEMMs need), the FP8 copy of a linear layer's input is what is
 * saved for its backward, and the FP8 weight copies are cached over the
 * micro-batches of a step. MXFP8 and NVFP4 (Blackwell) add one scale per
 * block of 32 (E8M0) or 16 (E4M3) elements.
 *
 * A framework profile is a training stack's defaults: the width of its
 * gradients (Megatron-Core and NeMo keep fp32 main gradients), the width
 * they are reduced in, the gradient bucket, which overlaps are on (data-
 * parallel reduction under backward, ZeRO-3/FSDP parameter prefetch,
 * tensor-parallel communication overlap), whether FSDP re-shards its
 * parameters after every micro-batch or once per step, and its default
 * FP8 recipe. Scenario keys override any of them.
 *
 * Plain data, no state.
 */
#ifndef DAM_RECIPE_H
#define DAM_RECIPE_H

#include "model/catalog.h"

typedef enum {
    DAM_RECIPE_NONE = 0,   /* no recipe: every operator at the workload's
                            * precision (the model before issue 23) */
    DAM_RECIPE_BF16,       /* BF16 mixed precision */
    DAM_RECIPE_FP8_DELAYED,/* TE DelayedScaling (per-tensor, amax history) */
    DAM_RECIPE_FP8_CURRENT,/* TE Float8CurrentScaling / torchao tensorwise */
    DAM_RECIPE_MXFP8,      /* TE MXFP8BlockScaling (Blackwell) */
    DAM_RECIPE_NVFP4,      /* TE NVFP4BlockScaling (Blackwell) */
    DAM_RECIPE_COUNT
} dam_recipe_id;

typedef struct dam_recipe {
    const char *name;       /* scenario spelling */
    dam_precision linear;   /* format of the linear layers' GEMMs */
    int fp4;                /* 1: linear GEMMs at the GPU's FP4 peak */
    double linear_elem;     /* bytes per quantized element */
    double scale_elem;      /* scale bytes per quantized element */
    dam_precision other;    /* attention, softmax, norms, elementwise */
    double cast_read;       /* bytes read per element of an activation the
                             * quantizing kernels cast (its BF16 copy, and
                             * once more for an amax pass) */
    double cast_write;      /* bytes written per element: the row- and
                             * column-wise quantized copies with scales */
    double saved_linear;    /* bytes per element of a saved linear input */
    double weight_copy;     /* bytes per parameter of the quantized weight
                             * copies kept over a step's micro-batches */
    int block_scaled;       /* 1: needs Blackwell's block-scaled GEMMs */
    const char *source;
} dam_recipe;

/* Recipe id (0 <= id < DAM_RECIPE_COUNT), or NULL. */
const dam_recipe *dam_recipe_get(int id);
/* Id of the recipe named `name`, or -1. */
int dam_recipe_find(const char *name);

typedef enum {
    DAM_PROFILE_NONE = 0,  /* no profile: the layout's own keys */
    DAM_PROFILE_MEGATRON,
    DAM_PROFILE_NEMO,
    DAM_PROFILE_TORCHTITAN,
    DAM_PROFILE_DEEPSPEED,
    DAM_PROFILE_FSDP,      /* PyTorch FSDP (FSDP1) */
    DAM_PROFILE_FSDP2,     /* PyTorch fully_shard (FSDP2) */
    DAM_PROFILE_TORCHTITAN_COMPILE, /* torchtitan with training.compile */
    DAM_PROFILE_COUNT
} dam_profile_id;

typedef struct dam_fw_profile {
    const char *name;
    double grad_bytes;      /* bytes per gradient kept in memory */
    double grad_comm_bytes; /* bytes per gradient element reduced */
    double bucket_bytes;    /* gradient bucket, bytes (0 = per block) */
    int overlap_grad;       /* DP reduction under the last backward */
    int overlap_param;      /* ZeRO-3/FSDP gathers prefetched */
    int tp_overlap;         /* TP collectives pipelined with the GEMMs */
    int reshard_step;       /* 1: ZeRO-3/FSDP gathers once per step (no
                             * re-shard between micro-batches) */
    int fp8_recipe;         /* its FP8 recipe (a dam_recipe_id) */
    unsigned eager_ops;     /* operators its model code runs as chains of
                             * eager PyTorch ops (graph.h DAM_EAGER_*) */
    int sac_ops;            /* 1: recompute = "selective" is op-level
                             * selective checkpointing (graph.h sac_ops);
                             * 0: the attention core only (Megatron) */
    const char *source;
} dam_fw_profile;

const dam_fw_profile *dam_profile_get(int id);
int dam_profile_find(const char *name);

/* The recipe a layout runs at precision p without workload.recipe:
 * FP8 as the profile does it (Transformer Engine's delayed scaling
 * without a profile), BF16 mixed precision for 16 bits, else none. */
int dam_recipe_default(dam_precision p, int profile);

/* NF4 base weights of QLoRA: 4 bits plus double-quantized block scales,
 * bytes per weight (recipe.c). */
double dam_nf4_bytes(void);

#endif
