/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm_cost.h: the time of one continuous-batching iteration of an LLM
 * serving replica, from the operator graph (model/graph.h,
 * dam_graph_llm_iteration) costed on the device model (model/device.h).
 *
 * An iteration is R new tokens (prefill chunks and one token per decoding
 * sequence) of S sequences: prefill chunk i brings q_i tokens after p_i
 * cached ones, and D decoding sequences read C cached tokens in all. Its
 * graph splits into three parts whose device costs add up (the device
 * model costs operators one by one):
 *
 *   lin(R)   every operator but attention and the head: the GEMMs over R
 *            rows (weights read once), norms, activations, the KV append,
 *            the embedding and the tensor-parallel all-reduces. Costed
 *            from the graph of one R-token prefill with its attention
 *            removed; cached by R (at most token_budget + 1 entries, each
 *            filled the first time it is asked for).
 *   head(S)  final norm, LM head and sampling over the S sequences that
 *            produce a token: the graph of S one-token decodes with the
 *            head minus the same without; cached by S.
 *   attn     the fused attention: a prefill operator (every chunk's work
 *            summed, one varlen kernel per layer) and a decode operator
 *            (linear in D and C, so exact with the mean context), each
 *            dam_graph_llm_attention's numbers, costed per iteration as a
 *            graph of two operators (a few tens of ns).
 *
 * GPU time = lin + head + attn (kernels, gaps, collectives). The host
 * issues every kernel (eager: kernels x launch; CUDA graphs: one launch)
 * and the part of it not hidden behind GPU work is added, then the
 * engine's host work (llm.iteration_s + llm.iteration_seq_s per sequence:
 * scheduler, input preparation, output processing): after the GPU's, or
 * beside it when the engine's scheduler overlaps (llm.overlap: the
 * iteration takes the longer of the two).
 * Against the whole graph of the iteration this differs only in the final
 * norm, which the split costs over S rows instead of R (tests/unit/
 * test_llm_cost.c measures the difference: below 0.1 %).
 *
 * Precisions: GEMMs at dam_llm_gemm_precision with weights at
 * dam_llm_weight_bytes, attention and activations at the 16-bit format,
 * the KV cache at dam_llm_kv_bytes. Tensor-parallel all-reduces at the
 * GPU's fabric bus bandwidth (catalog allreduce_busbw) with the scenario's
 * per-hop latency (machine.network.latency_us).
 *
 * A dam_llm_cost is used by one simulation at a time (its caches fill as
 * it runs); nothing is shared between them.
 */
#ifndef DAM_LLM_COST_H
#define DAM_LLM_COST_H

#include "model/device.h"
#include "model/error.h"
#include "model/scenario.h"
#include "solver/result.h"

/* Cost context of one replica kind (opaque). */
typedef struct dam_llm_cost dam_llm_cost;

/* What runs in one iteration. Fill with dam_llm_batch_clear, then
 * dam_llm_batch_prefill for each chunk and set decode_seqs/decode_ctx. */
typedef struct dam_llm_batch {
    double prefill_tokens;  /* new prompt tokens, all chunks */
    double prefill_seqs;    /* chunks (sequences prefilling) */
    double prefill_flops;   /* attention work of the chunks, per layer */
    double prefill_elems;
    double prefill_kv;
    double decode_seqs;     /* sequences producing one token each */
    double decode_ctx;      /* cached tokens they read, in all */
    double decode_q;        /* tokens each decoding sequence computes: 1,
                               or speculative decoding's k + 1 verified
                               (0 = 1); with a draft, its k proposal steps
                               run in the same iteration */
    double swap_bytes;      /* KV bytes swapped in or out this iteration,
                               per GPU (PCIe, in series) */
} dam_llm_batch;

/* The split of an iteration's time (s). */
typedef struct dam_llm_iter_time {
    double total;           /* everything: the iteration's duration */
    double gpu;             /* GPU time: lin + head + attn */
    double linear;          /* GEMMs, elementwise, KV append (and a
                               speculative draft's steps) */
    double comm;            /* of gpu: tensor-parallel all-reduces */
    double head;            /* final norm, LM head, sampling */
    double attn;            /* fused attention */
    double host;            /* host launch time not hidden + overhead */
    double swap;            /* KV swap copies */
} dam_llm_iter_time;

/*
 * A cost context for replicas of tp GPUs of scenario s (serving with an
 * llm group). Returns NULL with e filled when the model cannot be built
 * at that degree. Free with dam_llm_cost_free.
 */
dam_llm_cost *dam_llm_cost_create(const dam_scenario *s, int tp,
                                  dam_error *e);
/* Free; NULL is a no-op. */
void dam_llm_cost_free(dam_llm_cost *c);

/* Empty batch. */
void dam_llm_batch_clear(dam_llm_batch *b);
/* Add a prefill chunk of q tokens after past cached ones. */
void dam_llm_batch_prefill(const dam_llm_cost *c, dam_llm_batch *b,
                           double q, double past);

/* Duration of an iteration running b, s (split may be NULL). b must hold
 * at least one token and at most the token budget of new tokens. */
double dam_llm_cost_iteration(dam_llm_cost *c, const dam_llm_batch *b,
                              dam_llm_iter_time *split);

/*
 * The same iteration costed as one whole graph (dam_graph_llm_iteration
 * with the chunks merged into one part of their mean length and past):
 * the reference the split is checked against. Exact for one chunk.
 */
double dam_llm_cost_iteration_graph(const dam_llm_cost *c,
                                    const dam_llm_batch *b, double chunk_q,
                                    double chunk_past);

/* Weight bytes a GPU of this replica reads per iteration (the decode
 * floor: weights / achieved bandwidth). */
double dam_llm_cost_weight_bytes(const dam_llm_cost *c);

/* The cost options used for the GEMMs (GPU, precisions, fabric). */
const dam_cost_opts *dam_llm_cost_opts(const dam_llm_cost *c);

/* A lone request of in prompt tokens on c: its prefill (in chunks of
 * chunk tokens when chunk > 0, else whole), s. */
double dam_llm_cost_prefill(dam_llm_cost *c, double in, double chunk);
/* The same with its first `cached` tokens already cached (a prefix-cache
 * hit): the chunks cover the rest, reading the cached ones. */
double dam_llm_cost_prefill_from(dam_llm_cost *c, double cached, double in,
                                 double chunk);
/* One decode step of a lone sequence with ctx cached tokens, s. */
double dam_llm_cost_decode1(dam_llm_cost *c, double ctx);

/*
 * The analytic part of an LLM serving scenario (no queueing; the
 * simulator adds that): memory per GPU, a lone mean request's prefill and
 * decode step, the weight floor, GPUs, cost per hour; r->step is a lone
 * request's end-to-end time, r->memory the decode replica's GPU.
 * dam_analytic_solve calls it for LLM scenarios (r zeroed, mode set).
 */
void dam_llm_solve_static(const dam_scenario *s, dam_result *r);

#endif
