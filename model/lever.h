/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever.h: levers, the what-if moves. A lever is a pure function from a
 * scenario to a new scenario: the input is never changed, the output is a
 * copy with the lever's ops applied in order and the lever's name appended
 * to out->applied. Levers compose by applying one after another, and order
 * can matter (quantize to fp8 on an A100 fails; swap to an H100 first and
 * it works).
 *
 * Design notes. Each op moves named terms of the iron law
 *     T = D_vol/BW + O/(R_peak * eta) + L_lat
 * through fields of dam_scenario, so solvers need no knowledge of levers.
 * Work is changed either through the workload's scale fields (flops_scale,
 * bytes_scale, weight_scale, matmul_peak_scale) or, where only some phases
 * change, in the scenario's own copy of the model's phases. The precision
 * of weights and activations is implied by workload.precision: the solver
 * multiplies phase act_bytes (given at 2 bytes per element) by
 * dam_precision_bytes(precision) / 2; the bytes of the weights are
 * dam_lever_weight_bytes() below (params * bytes per element * weight_scale).
 *
 * Per op kind (moves: the iron-law variables; mem: memory footprint;
 * quality: quality.value, in the scenario's metric):
 *
 * gpu          machine.gpu := catalog entry (R_peak, HBM BW, memory, TDP);
 *              cost.gpu_hour_usd := the op's gpu_hour_usd, else the new
 *              entry's price_hour (kept when that is 0: unknown);
 *              intra-node busbw scales with the NVLink ratio of new
 *              to old GPU; gpus_per_node / nodes / gpus scale out or in (BW
 *              of the all-reduce, number of replicas). eta, eta_mem and every
 *              loader, storage, PCIe and inter-node field are kept. A 2:4-
 *              sparse workload keeps its speed-up only where the new GPU has
 *              sparse tensor cores (else matmul_peak_scale drops to 1).
 *              Errors: unknown id (with "did you mean"), precision with zero
 *              peak on the new GPU, gpus not a multiple of gpus_per_node.
 * quantize     precision := fp16 | bf16 | fp8 | int8, never wider than the
 *              current format. Moves R_peak (the new precision's peak, an
 *              error where it is 0: never a silent speed-up) and D_vol
 *              (activations scale with bytes per element). mem: weights are
 *              stored in the new format in inference and serving
 *              (master_bytes := bytes of the new precision: fp16 -> int8
 *              halves them); in training master_bytes follows only when it
 *              equalled the old format's bytes (quantization-aware training
 *              keeps wider master weights otherwise). quality += delta;
 *              without one: fp16/bf16 0 (Micikevicius et al. 2018, Mixed
 *              Precision Training, ICLR: matches fp32), fp8 0 (Micikevicius
 *              et al. 2022, FP8 Formats for Deep Learning, arXiv 2209.05433:
 *              matches 16-bit within run-to-run noise), int8 -0.5 points for
 *              an accuracy metric in % (Wu et al. 2020, arXiv 2004.09602:
 *              8-bit post-training workflow within 1 % of float on every
 *              network studied; -0.5 is half that bound, a damsim choice),
 *              int8 on any other metric: unknown (quality.delta_unknown++).
 * precision    the compute format (mixed precision), any of fp32 .. int8:
 *              same mechanics as quantize (R_peak, D_vol, master_bytes when
 *              it equalled the old format), widening allowed; quality +=
 *              delta when given; without one floating formats count as 0
 *              (same sources as above) and int8 as unknown.
 * prune        structured s in (0,1): O and D_vol shrink: flops_scale and
 *              bytes_scale *= (1-s); params *= (1-s), so weights, gradients
 *              and optimizer state follow (weight_scale untouched: it would
 *              count the shrink twice); act_mem_bytes *= (1-s).
 *              unstructured s in (0,1): O and R_peak unchanged (dense
 *              hardware gets no speed-up); weight bytes shrink only when a
 *              sparse format pays: kept values plus a 2-byte index each cost
 *              (1-s)(b+2) per element against b dense, so weight_scale *=
 *              min(1, (1-s)(b+2)/b) with b the weight bytes per element: it
 *              pays above 50 % sparsity for fp16 and 67 % for int8.
 *              2:4 (s = 0.5 exactly): matmul_peak_scale := 2 (R_peak of
 *              matmul phases) where gpu.sparsity_2to4, an ERROR on a GPU
 *              without sparse tensor cores (the lever would buy nothing);
 *              weight_scale *= 0.5 + 0.125/b (half the values plus a 2-bit
 *              index per kept value). quality += delta; default 0 for 2:4
 *              (Mishra et al. 2021, Accelerating Sparse Deep Neural
 *              Networks, arXiv 2104.08378: accuracy kept after fine-tuning),
 *              unknown for structured and unstructured.
 * prefetch     overlap of Data with Machine: loader_workers (>= 1),
 *              prefetch_factor (>= 1), pin_memory, overlap_transfer,
 *              overlap_sync (0/1), bucket_bytes (> 0); only the set ones.
 *              Moves exposed data wait and transfer/comm overlap, not the
 *              terms themselves. No quality change.
 * chinchilla   training only. At fixed C = 6 N D (N = model.params, D =
 *              dam_quality_tokens()), move to the fit's compute-optimal
 *              point (tokens_per_param <= 0) or to D = r N. Moves O (model
 *              FLOPs per token), weights, gradients and optimizer state via
 *              params, and the number of steps via data.samples (epochs
 *              kept; quality.tokens := D' when it was set). Shape rule:
 *              width and depth grow together (d_model ~ n_layer ~ N^(1/3)),
 *              so matmul FLOPs scale by k = N'/N, attention, elementwise and
 *              embedding FLOPs and all activation bytes by k^(2/3), layers
 *              and kernels per step by k^(1/3). quality: a loss metric moves
 *              by L(N',D') - L(N,D) (set to L(N',D') when it comes from the
 *              fit and was unset); an accuracy metric is unknown. Errors:
 *              serving/inference mode, a non-language model family, N or D
 *              not > 0.
 * fuse         fuse_fraction f in [0,1]: elementwise phases' act_bytes *=
 *              (1-f) (D_vol on HBM) and kernels_per_step *= (1-f) (L_lat).
 * cuda_graphs  workload.cuda_graphs := 0/1: launch cost ~0 (L_lat).
 * data_format  training/inference: sharded (0/1; shard_bytes, default 1e9
 *              bytes: WebDataset-style shards "often ~1 GB", Hugging Face Hub
 *              WebDataset docs) moves storage latency (one per shard);
 *              decode_on_gpu (0/1) with gpu_decode_s (required when the
 *              scenario has none) moves decode from CPU cores to the GPU.
 * batch_size   per-GPU batch (>= 1), training/inference: O and D_vol per
 *              step, steps per epoch, activation memory; large-batch effects
 *              on quality are not modelled.
 * distill      student_params in (0, params): a shallower student (as
 *              DistilBERT halves the layers): params, every phase's FLOPs and
 *              act_bytes, act_mem_bytes, layers and kernels scale by
 *              k = student/teacher. quality += delta, else unknown. In
 *              training the teacher's forward passes for soft targets are
 *              not counted.
 * serving      serving mode only: replicas, max_batch (>= 1),
 *              batch_timeout_s (>= 0), preprocess_workers (>= 1).
 *
 * Errors are DAM_EINPUT with a message "lever 'NAME': ..." (with the
 * scenario file and the lever's line when it came from a file). An op that
 * sets nothing is an error too (a lever that does nothing is a typo).
 *
 * What it does not know: time. A lever changes what the system is; the
 * solvers say what that does to the step.
 */
#ifndef DAM_LEVER_H
#define DAM_LEVER_H

#include "model/catalog.h"
#include "model/error.h"
#include "model/scenario.h"

/* Default shard size when a data_format lever turns sharding on and
 * neither the lever nor the scenario gives one, bytes. */
#define DAM_LEVER_DEFAULT_SHARD_BYTES 1e9

/* Apply lever's ops in order to a copy of in, written to out (out may be
 * in). cat resolves gpu ids (may be NULL when no op swaps a GPU). Returns
 * DAM_OK, or DAM_EINPUT with err filled; on error *out is not touched. */
int dam_lever_apply(const dam_scenario *in, const dam_lever *lever,
                    const dam_catalog *cat, dam_scenario *out,
                    dam_error *err);

/* Apply n levers in order (levers[0] first). Same contract as
 * dam_lever_apply; the error names the lever that failed. */
int dam_levers_apply_all(const dam_scenario *in, const dam_lever *levers,
                         int n, const dam_catalog *cat, dam_scenario *out,
                         dam_error *err);

/* Parse one command-line lever "key=value[,option=value...]" into a lever
 * of one op, named after the string. Keys and values:
 *
 *   gpu=ID[,gpu_hour_usd=X]     swap the GPU (checked at apply time)
 *   gpus=N  gpus_per_node=N  nodes=N     scale out / in
 *   quantize=P[,delta=X]        P in fp16 bf16 fp8 int8
 *   precision=P[,delta=X]       P in fp32 tf32 fp16 bf16 fp8 int8
 *   prune=KIND:S[,delta=X]      KIND structured | unstructured, S in (0,1);
 *   prune=S:KIND                  also accepted; 2:4 is prune=2:4 or
 *                                 prune=0.5:2:4
 *   loader_workers=N  prefetch_factor=N  pin_memory=B  overlap_transfer=B
 *   overlap_sync=B  bucket_mb=X (decimal MB)
 *   chinchilla=optimal|R[,fit=hoffmann2022|epoch2024]  R tokens per param
 *   fuse=F                      fraction in [0,1]
 *   cuda_graphs=B
 *   sharded=B[,shard_mb=X]      decode_on_gpu=B[,gpu_decode_ms=X]
 *   batch_size=N
 *   distill=N[,delta=X]         student parameters, e.g. 66e6
 *   replicas=N  max_batch=N  batch_timeout_ms=X  preprocess_workers=N
 *
 * B is 1/0, true/false, yes/no or on/off. Numbers are C numbers (1e9).
 * Returns DAM_OK, or DAM_EINPUT with a message naming the key and value
 * (and "did you mean" for a near-miss key or value). */
int dam_lever_parse_kv(const char *kv, dam_lever *lever, dam_error *err);

/* Bytes of the weights held on one GPU: params * element bytes *
 * weight_scale, the element bytes being workload.master_bytes when > 0, else
 * the compute precision's. */
double dam_lever_weight_bytes(const dam_scenario *s);

/* HBM activation bytes per sample of one forward pass: the phases'
 * act_bytes * bytes(precision) / 2 * bytes_scale. */
double dam_lever_act_bytes(const dam_scenario *s);

/* Default quality change of moving to precision p when no accuracy_delta is
 * given (quantize semantics above): returns 1 and sets *delta (metric units)
 * and *source (a static string) when damsim has a sourced default for the
 * scenario's metric, 0 when the change is unknown. */
int dam_lever_quantize_default(const dam_scenario *s, dam_precision p,
                               double *delta, const char **source);

#endif
