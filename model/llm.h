/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm.h: what an LLM serving deployment holds in memory and which formats
 * it computes in (MODEL.md section 10), from a serving scenario with an
 * `llm` group (scenario.h dam_llm). Plain arithmetic on the scenario: the
 * simulator (solver/sim_llm.c) and the costs (solver/llm_cost.c) read it.
 *
 * Memory of one GPU of a replica of t GPUs (vLLM's accounting):
 *
 *   usable    = memory_fraction x device memory
 *   weights   = parameters / t x bytes per weight (every matrix sharded,
 *               vocabulary-parallel embedding and head included)
 *   workspace = activations of one iteration at the full token budget:
 *               R (2 d + 3 f / t) x activation bytes (the residual stream,
 *               its normalised copy, the gated MLP's gate/up output and its
 *               product) + min(R, max_seqs) x vocab x 4 (fp32 logits)
 *   KV pool   = usable - weights - workspace
 *   KV/token  = 2 x layers x max(kv_heads / t, 1) x head_dim x kv bytes
 *   blocks    = floor(pool / (block_tokens x KV/token))
 *
 * The deployment fits when the pool holds the longest request (input_max
 * + output_max tokens, in whole blocks). Swap space (preemption by swap)
 * holds floor(swap_bytes / block bytes) blocks.
 *
 * Nothing here allocates, prints or keeps state.
 */
#ifndef DAM_LLM_H
#define DAM_LLM_H

#include <stddef.h>
#include <stdint.h>

#include "model/scenario.h"

/* Memory of one GPU of a replica. Bytes unless a name says otherwise. */
typedef struct dam_llm_memory {
    int tp;                /* GPUs of the replica */
    double capacity;       /* device memory, bytes */
    double usable;         /* memory_fraction x capacity */
    double weights;        /* weights on this GPU */
    double workspace;      /* activation workspace of an iteration */
    double pool;           /* KV-cache pool (may be < 0: does not fit) */
    double kv_token;       /* KV bytes per token on this GPU */
    double kv_token_model; /* KV bytes per token of the whole model */
    double block_bytes;    /* one block on this GPU */
    double blocks;         /* blocks of the replica's pool (>= 0) */
    double tokens;         /* tokens the pool holds (blocks x block) */
    double need_blocks;    /* blocks of the longest request */
    double swap_blocks;    /* blocks host swap space holds */
    int fits;              /* 1 when the pool holds the longest request */
    double shortfall;      /* memory missing for that, per GPU (0 when it
                              fits) */
} dam_llm_memory;

/* The memory of a replica of tp GPUs of scenario s (s->serving.llm must
 * be enabled; tp >= 1). */
void dam_llm_memory_plan(const dam_scenario *s, int tp, dam_llm_memory *out);

/* Precision of the GEMMs: fp8 or int8 for W8A8 weights, else the
 * scenario's compute precision when it is 16-bit (bf16 otherwise). */
dam_precision dam_llm_gemm_precision(const dam_scenario *s);
/* Precision of attention and activations: the 16-bit compute format
 * (bf16 unless the scenario computes in fp16). */
dam_precision dam_llm_act_precision(const dam_scenario *s);
/* Bytes per stored weight element: 2 (native 16-bit), 1 (fp8, int8),
 * 0.5195 (int4 with an fp16 scale and a 4-bit zero per group of 128:
 * 4 + 20/128 bits; AWQ, Lin et al. 2024, arXiv 2306.00978, section 4). */
double dam_llm_weight_bytes(const dam_scenario *s);
/* FP4 GEMMs (nvfp4, mxfp4 weights) run on fp8's fitted efficiency at
 * this multiple of the fp8 peak: Blackwell's dense FP4 tensor rate is twice
 * its FP8 rate (HGX B200: 9 PFLOPS FP4 against 4.5 FP8, dense; NVIDIA HGX
 * B200 specification table, via glennklockwood.com/garden/processors/B200
 * and docs.vultr.com HGX B200 hardware overview "~9.0 PFLOPS (NVFP4)"). */
#define DAM_LLM_FP4_OVER_FP8 2.0

/* W8A8 and W4A4 formats (fp8, int8, nvfp4, mxfp4 weights) quantize each
 * linear layer's input activations per token before its GEMM: a kernel of
 * DAM_LLM_ACT_QUANT_S plus its bytes (2 read, 1 written per element) at the
 * streaming rate. 3.3 us: the mean of vLLM's per-token-group fp8 quant
 * kernel on an H100 at 4 to 256 tokens of hidden 2048 and 4096 (3.01, 3.06,
 * 3.24, 3.60, 2.46, 3.17, 3.38, 4.44 us; pytorch/helion PR #3073, the
 * 2026-07-17 comment's H100 table, "vllm (us)" column); at 1,024 and 2,048
 * tokens the same table's 6.6 to 9.5 us is the bytes' term. The lm_head and
 * an MoE router stay 16-bit (no quantization). */
#define DAM_LLM_ACT_QUANT_S 3.3e-6

/* 1 when weight format w quantizes activations (W8A8, W4A4). */
int dam_llm_act_quant(dam_llm_weights w);

/* The GEMM peak multiplier of the weight format (1 but for FP4). */
double dam_llm_gemm_peak_scale(const dam_scenario *s);

/* 0 when GPU g runs weight format w, else -1 with why filled ("\"fp8\"
 * needs fp8 tensor cores, which X lacks"; fp8 and
 * int8 need those tensor cores; nvfp4 and mxfp4 need Blackwell's FP4 ones
 * and fp8 ones). */
int dam_llm_weights_check(const dam_gpu *g, dam_llm_weights w, char *why,
                          size_t nwhy);

/* Bytes per KV-cache element. */
double dam_llm_kv_bytes(const dam_scenario *s);

/* Prompt tokens of a request of `in` tokens found in the prefix cache:
 * llm.prefix_tokens (a prefix every request shares) or llm.prefix_hit_rate
 * of the prompt, whichever is more, in whole blocks (engines cache full
 * blocks: vLLM automatic prefix caching, SGLang RadixAttention pages), and
 * at least one token left to compute (the one whose logits are sampled). */
double dam_llm_prefix_hit(const dam_llm *q, double in);

/* Tokens a speculative decode step produces on average: (1 - a^(k+1)) /
 * (1 - a) for k draft tokens accepted each with probability a until the
 * first rejection (Leviathan et al. 2023, arXiv 2211.17192, eq. 1); 1
 * without speculation. */
double dam_llm_spec_tokens_per_step(const dam_llm *q);

/* GPUs the deployment uses: replicas x tp, or the two pools'. */
int64_t dam_llm_gpus(const dam_scenario *s);

/* Blocks for `tokens` tokens (ceil(tokens / block_tokens)). */
double dam_llm_blocks_for(const dam_scenario *s, double tokens);

/* One request of an LLM trace. */
typedef struct dam_llm_request {
    double arrive;         /* arrival time, s (nondecreasing) */
    int input;             /* prompt tokens, >= 1 */
    int output;            /* tokens to generate, >= 1 */
} dam_llm_request;

#endif
