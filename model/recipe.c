/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recipe.c: precision recipes and framework profiles (see recipe.h). */
#include "model/recipe.h"

#include "model/graph.h"

#include <string.h>

/*
 * Sources of the recipes:
 * [TE-FP8]  Transformer Engine user guide, "Using FP8 with Transformer
 *           Engine": fp8_autocast runs the GEMMs of TE's linear modules
 *           (Linear, LayerNormLinear, LayerNormMLP) in FP8; other
 *           operators (DotProductAttention unless fp8_dpa, softmax, norms,
 *           activations) keep their higher-precision input type.
 * [TE-API]  Transformer Engine "Common API" (docs.nvidia.com,
 *           transformer-engine release 2.x, common.html): DelayedScaling
 *           (scale from the amax history of earlier iterations),
 *           Float8CurrentScaling (scale from the tensor's own amax),
 *           MXFP8BlockScaling (E4M3), NVFP4BlockScaling (E2M1).
 * [MX]      OCP Microscaling Formats (MX) Specification v1.0, section 5:
 *           MXFP8 shares one 8-bit E8M0 scale per block of 32 elements.
 * [NVFP4]   NVIDIA technical blog "Introducing NVFP4 for efficient and
 *           accurate low-precision inference" (2025): E2M1 values, one
 *           E4M3 scale per 16-element micro-block plus one fp32 scale per
 *           tensor (negligible here).
 * [MP]      Micikevicius et al. 2018, "Mixed Precision Training", and
 *           Rajbhandari et al. 2020 (ZeRO) section 3.1: 16-bit weights and
 *           gradients, fp32 master weights and Adam moments (2+2+12 bytes).
 * Derived (this file): the cast traffic. TE quantizes an activation in one
 * fused cast(-transpose) kernel that reads its BF16 copy (2 bytes) and
 * writes the row-wise copy for the forward/dgrad GEMM and the column-wise
 * (transposed) copy the wgrad GEMM needs (Hopper's FP8 GEMMs take only the
 * TN layout; block scales run along the reduction dimension, so MX and NV
 * formats need both copies too); current scaling first reads the tensor
 * once more for its amax. The weights' quantized copies (row- and
 * column-wise) are made on a step's first micro-batch and reused
 * (TE's is_first_microbatch, which Megatron-Core passes).
 */
static const dam_recipe recipes[DAM_RECIPE_COUNT] = {
    {"none", DAM_BF16, 0, 0.0, 0.0, DAM_BF16, 0.0, 0.0, 0.0, 0.0, 0,
     "every operator at workload.precision (no recipe)"},
    {"bf16", DAM_BF16, 0, 2.0, 0.0, DAM_BF16, 0.0, 0.0, 2.0, 0.0, 0,
     "[MP]: everything in BF16, fp32 master weights and optimizer state"},
    {"fp8_delayed", DAM_FP8, 0, 1.0, 0.0, DAM_BF16, 2.0, 2.0, 1.0, 2.0, 0,
     "[TE-FP8], [TE-API] DelayedScaling: linear GEMMs in FP8 with "
     "per-tensor scales from the amax history; FP8 input saved"},
    {"fp8_current", DAM_FP8, 0, 1.0, 0.0, DAM_BF16, 4.0, 2.0, 1.0, 2.0, 0,
     "[TE-API] Float8CurrentScaling (torchao 'tensorwise'): as delayed, "
     "plus an amax pass over each tensor before its cast"},
    {"mxfp8", DAM_FP8, 0, 1.0, 1.0 / 32.0, DAM_BF16, 2.0,
     2.0 * (1.0 + 1.0 / 32.0), 1.0 + 1.0 / 32.0, 2.0 * (1.0 + 1.0 / 32.0),
     1,
     "[TE-API] MXFP8BlockScaling, [MX]: E4M3 with an E8M0 scale per 32 "
     "elements, row- and column-wise copies"},
    {"nvfp4", DAM_FP8, 1, 0.5, 1.0 / 16.0, DAM_BF16, 2.0,
     2.0 * (0.5 + 1.0 / 16.0), 0.5 + 1.0 / 16.0, 2.0 * (0.5 + 1.0 / 16.0),
     1,
     "[TE-API] NVFP4BlockScaling, [NVFP4]: E2M1 with an E4M3 scale per 16 "
     "elements, GEMMs at the FP4 peak"},
};

const dam_recipe *dam_recipe_get(int id)
{
    return id >= 0 && id < DAM_RECIPE_COUNT ? &recipes[id] : NULL;
}

int dam_recipe_find(const char *name)
{
    for (int i = 1; i < DAM_RECIPE_COUNT; i++)
        if (strcmp(recipes[i].name, name) == 0)
            return i;
    return -1;
}

/*
 * Sources of the profiles:
 * [MLM-ARGS] Megatron-LM megatron/training/arguments.py: with --bf16,
 *            accumulate_allreduce_grads_in_fp32 is forced on (fp32
 *            main_grad buffers, reduced in fp32); --overlap-grad-reduce,
 *            --overlap-param-gather and --tp-comm-overlap default off;
 *            --fp8-recipe defaults to "delayed".
 * [MLM-DDP]  Megatron-LM megatron/training/training.py: ddp_bucket_size
 *            None -> max(40000000, 1000000 x data-parallel size)
 *            parameters per bucket (40 M at the data-parallel sizes here:
 *            160 MB of fp32 gradients).
 * [NEMO]     NeMo 2.0 nemo/collections/llm/recipes (llama3_8b.py, ...):
 *            DistributedDataParallelConfig(grad_reduce_in_fp32=True,
 *            overlap_grad_reduce=True, overlap_param_gather=True);
 *            performance recipes add MegatronCommOverlapCallback with
 *            tp_comm_overlap=True for tensor-parallel layouts;
 *            MegatronMixedPrecision fp8_recipe "delayed" by default.
 * [TT]       torchtitan torchtitan/config (job_config): FSDP2 with
 *            mixed_precision_param = bfloat16, mixed_precision_reduce =
 *            float32; enable_async_tensor_parallel = false;
 *            reshard_after_forward "default" (re-shard, except the last
 *            block); Float8 via torchao, recipe "tensorwise" (current
 *            scaling).
 * [DS]       DeepSpeed configuration JSON docs: reduce_bucket_size and
 *            allgather_bucket_size 5e8 elements, overlap_comm false (ZeRO
 *            stages 1-2), stage3_prefetch_bucket_size 5e7 (prefetch on),
 *            communication_data_type defaults to the model's dtype; the
 *            ZeRO paper's 2 bytes per gradient [MP].
 * [FSDP]     PyTorch docs, torch.distributed.fsdp: MixedPrecision
 *            reduce_dtype defaults to param_dtype; sharded gradients take
 *            the (fp32) parameters' dtype; FULL_SHARD re-shards after
 *            forward; backward_prefetch BACKWARD_PRE. FSDP2 fully_shard:
 *            MixedPrecisionPolicy(reduce_dtype=None -> param_dtype),
 *            reshard_after_forward=True, implicit prefetching.
 * [TT-AC]    torchtitan torchtitan/parallelisms/parallelize_llama.py
 *            (2024, as at the benchmarks' commit 9dec370): with
 *            activation_checkpoint.mode "selective" and option "op" (the
 *            default of train_configs/llama3_8b.toml) a block saves the
 *            outputs of aten.mm and of the SDPA kernels except every
 *            second mm and recomputes everything else. Memory follows
 *            it too: a block keeps its input and those outputs
 *            (layout.c sac_per_token).
 * [TT-OPS]   torchtitan torchtitan/models/norms.py (RMSNorm: the
 *            default norm_type "rmsnorm" runs x.float(), pow, mean,
 *            rsqrt, a product, type_as and the weight product as eager
 *            ops), torchtitan/models/llama/model.py (apply_rotary_emb in
 *            fp32 complex arithmetic; repeat_kv copies grouped K and V to
 *            every query head; F.silu(w1(x)) * w3(x)), train.py (loss =
 *            cross_entropy(pred.flatten(0, 1).float(), labels), the
 *            logits deleted before backward: 12 B per logit at the loss's
 *            backward peak, solver/parallel.c state_bytes). With
 *            training.compile, apply_compile compiles each
 *            TransformerBlock alone: Inductor fuses a block's pointwise
 *            chains, the repeated K and V are still written for the
 *            attention kernel, the final norm, output and loss stay
 *            eager.
 * A bucket of 0 is one per transformer block (FSDP units).
 */
#define TT_EAGER (DAM_EAGER_NORM | DAM_EAGER_ROPE | DAM_EAGER_SWIGLU | \
                  DAM_EAGER_GQA | DAM_EAGER_HEAD)
static const dam_fw_profile profiles[DAM_PROFILE_COUNT] = {
    {"none", 0.0, 0.0, 0.0, 1, 1, 0, 0, DAM_RECIPE_NONE, 0u, 0,
     "the layout's own keys"},
    {"megatron-core", 4.0, 4.0, 160e6, 0, 0, 0, 0, DAM_RECIPE_FP8_DELAYED,
     0u, 0, "[MLM-ARGS], [MLM-DDP]"},
    {"nemo", 4.0, 4.0, 160e6, 1, 1, 1, 0, DAM_RECIPE_FP8_DELAYED, 0u, 0,
     "[NEMO], bucket [MLM-DDP]"},
    {"torchtitan", 4.0, 4.0, 0.0, 1, 1, 0, 0, DAM_RECIPE_FP8_CURRENT,
     TT_EAGER, 1, "[TT], [FSDP], [TT-AC], [TT-OPS]"},
    {"deepspeed", 2.0, 2.0, 1e9, 0, 1, 0, 0, DAM_RECIPE_FP8_DELAYED, 0u, 0,
     "[DS]: 5e8 elements x 2 bytes per bucket"},
    {"fsdp", 4.0, 2.0, 0.0, 1, 1, 0, 0, DAM_RECIPE_FP8_CURRENT, 0u, 0,
     "[FSDP]"},
    {"fsdp2", 4.0, 2.0, 0.0, 1, 1, 0, 0, DAM_RECIPE_FP8_CURRENT, 0u, 0,
     "[FSDP]"},
    {"torchtitan-compile", 4.0, 4.0, 0.0, 1, 1, 0, 0, DAM_RECIPE_FP8_CURRENT,
     DAM_EAGER_GQA | DAM_EAGER_HEAD, 1,
     "[TT], [FSDP], [TT-AC], [TT-OPS] with training.compile"},
};

const dam_fw_profile *dam_profile_get(int id)
{
    return id >= 0 && id < DAM_PROFILE_COUNT ? &profiles[id] : NULL;
}

int dam_profile_find(const char *name)
{
    for (int i = 1; i < DAM_PROFILE_COUNT; i++)
        if (strcmp(profiles[i].name, name) == 0)
            return i;
    return -1;
}

int dam_recipe_default(dam_precision p, int profile)
{
    if (p == DAM_FP8)
        return profile > 0 && profile < DAM_PROFILE_COUNT
                   ? profiles[profile].fp8_recipe
                   : DAM_RECIPE_FP8_DELAYED;
    return p == DAM_BF16 || p == DAM_FP16 ? DAM_RECIPE_BF16 : DAM_RECIPE_NONE;
}

/* Dettmers et al. 2023 (QLoRA) section 3, "Double Quantization": 4-bit
 * NF4 values with block size 64 and 8-bit block scales quantized again
 * in blocks of 256: 4 + 8/64 + 32/(64 x 256) = 4.127 bits a weight. */
double dam_nf4_bytes(void)
{
    return (4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0;
}
