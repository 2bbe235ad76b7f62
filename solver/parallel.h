/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * parallel.h: what a parallel layout's training step costs (MODEL.md
 * section 9; issue 12): the work of each pipeline stage per micro-batch,
 * costed on the device model from the operator graph (model/graph.h,
 * model/device.h), the collectives of every group on the network
 * (model/network.h), the pipeline schedule, and the step they add up to.
 *
 * Three levels, from expensive to cheap, so that a layout search costs
 * the graph once per shape and every candidate in microseconds:
 *
 *  1. dam_parallel_layers: one transformer block, the embedding and the
 *     head at a (tp, sp, cp, ep, micro-batch, recomputation): forward and
 *     backward GPU time, FLOPs, and the tensor-parallel collectives they
 *     call. Three graph builds and costings; a block of a chunk of n
 *     blocks costs exactly n times one (the graph merges identical
 *     operators into counts and the device model is linear in counts).
 *  2. dam_parallel_assemble: a layout on the network: each chunk's
 *     forward and backward per micro-batch as GPU time, exposed tensor-
 *     and context-parallel communication, expert all-to-all (in series),
 *     ZeRO traffic under the compute, pipeline sends, and per stage the
 *     gradient reduction, parameter gather and optimizer step.
 *  3. dam_parallel_step: the step of the schedule with every term named,
 *     the analytic counterpart of the pipeline simulation (sim.h).
 *
 * The analytic step. With F_s and B_s the forward and backward of stage s
 * per micro-batch (chunks of an interleaved stage summed), c the
 * pipeline send, m micro-batches and p stages:
 *
 *   1F1B, GPipe:  T = sum_s (F_s + B_s) + (m - 1) max_s (F_s + B_s)
 *                     + 2 (p - 1) c
 *   interleaved:  T = m max_s (F_s + B_s) + (p - 1) max_s (F_s + B_s) / v
 *                     + 2 (p v - 1) c
 *
 * so uniform stages without sends give the bubble (p - 1) / (m + p - 1)
 * of 1F1B and (p - 1) / (v m + p - 1) interleaved. Stage s ends its last
 * backward s (B + c) before the first stage; its gradient reduction then
 * runs (overlapped with that backward bucket by bucket when asked), every
 * stage waits for the slowest (the global gradient norm is a barrier),
 * and the optimizer and the parameter gather of ZeRO-1/2 follow.
 *
 * Nothing here allocates, prints or keeps state.
 */
#ifndef DAM_PARALLEL_H
#define DAM_PARALLEL_H

#include "model/device.h"
#include "model/error.h"
#include "model/scenario.h"
#include "solver/result.h"

/* One block (and the embedding and head extras) at one shape. */
typedef struct dam_parallel_layers {
    double fwd;          /* GPU time of one block's forward, one
                          * micro-batch, s (kernels + gaps) */
    double bwd;          /* its backward with recomputation, s */
    double attn_fwd;     /* of fwd, the attention kernels, s */
    double attn_bwd;     /* of bwd, the attention kernels, s */
    double dense_fwd;    /* of fwd, the linear layers' GEMMs (and their
                          * casts), s: what TP overlap hides comm under */
    double dense_bwd;    /* of bwd, the same, s */
    double fwd_flops;    /* FLOP executed in fwd (one GPU) */
    double bwd_flops;    /* FLOP executed in bwd */
    double host;         /* host launch time of fwd + bwd not hidden, s */
    double embed_fwd, embed_bwd; /* the embedding's extra, s */
    double head_fwd, head_bwd;   /* final norm, LM head and loss, s */
    double embed_flops, head_flops; /* their FLOP, fwd + bwd */
    double tp_calls[2][3];  /* tensor-parallel collectives per block,
                             * [fwd, bwd][all-reduce, all-gather,
                             * reduce-scatter] (recomputation in bwd) */
    double tp_bytes;        /* bytes of each of them (full buffer) */
    double a2a_calls[2];    /* expert all-to-alls per MoE block, fwd/bwd */
    double a2a_bytes;       /* bytes each GPU sends in each, B */
    double kv_bytes;        /* context parallel: K and V of the sequence
                             * one GPU gathers per block in forward, B */
    double tokens;          /* tokens of a micro-batch on one GPU */
    int nphases;            /* roofline phases of the block's graph */
    char phase[DAM_MAX_PHASES][DAM_GRAPH_PHASE_NAME]; /* their names */
    dam_phase_kind phase_kind[DAM_MAX_PHASES];
    dam_phase_cost phase_cost[DAM_MAX_PHASES]; /* one block, fwd + bwd */
} dam_parallel_layers;

/* Cost the block, embedding and head of scenario s's model at one shape.
 * Returns DAM_OK, or DAM_EINPUT with e filled when the model has no
 * transformer architecture or the shape does not fit it. */
int dam_parallel_layers_cost(const dam_scenario *s, int tp, int sp, int cp,
                             int ep, int micro_batch, int recompute,
                             dam_parallel_layers *out, dam_error *e);

/* A transfer that runs over the NICs: what the simulation turns into a
 * flow (the fixed part is a delay around it). */
typedef struct dam_parallel_xfer {
    double time;        /* uncontended, s */
    double fixed;       /* latency and NVLink part (no NIC), s */
    double nic_bytes;   /* bytes through the GPU's NIC share */
    double nic_rate;    /* their uncontended rate, B/s (0 = none) */
} dam_parallel_xfer;

/* One chunk's forward or backward of one micro-batch on one GPU. */
typedef struct dam_parallel_op {
    double compute;     /* GPU work, s */
    double comm;        /* exposed tensor/context-parallel communication
                         * inside it (NVLink), s */
    dam_parallel_xfer a2a;  /* expert all-to-alls, in series with it (or
                             * under it when a2a_overlap) */
    int a2a_overlap;        /* 1: a2a runs under compute */
    dam_parallel_xfer zero; /* ZeRO gathers / reduce-scatters, under it
                             * when overlapped */
    int zero_overlap;   /* 1: zero runs under compute */
    double flops;       /* FLOP executed */
} dam_parallel_op;

/* Chunk kinds (which chunks hold the embedding and the head). */
enum {
    DAM_CHUNK_MID = 0,
    DAM_CHUNK_FIRST,  /* the embedding */
    DAM_CHUNK_LAST,   /* the head */
    DAM_CHUNK_ONLY,   /* both (one chunk in all) */
    DAM_CHUNK_KINDS
};

/* Per stage kind: the step-end work. Stage kinds as chunk kinds (the
 * first stage holds chunk 0, the last the last chunk). */
typedef struct dam_parallel_stage {
    dam_parallel_xfer grad;  /* gradient reduction at the step's end */
    double buckets;          /* gradient buckets (>= 1) */
    dam_parallel_xfer gather;/* parameter all-gather after the optimizer
                              * (ZeRO-1/2) */
    double optimizer;        /* optimizer step, s */
    double params;           /* parameters on one GPU (before sharding) */
    double grad_bytes;       /* gradient bytes reduced per step, one GPU */
} dam_parallel_stage;

/* A layout on its network: everything the schedule needs. */
typedef struct dam_parallel_cost {
    dam_layout l;                    /* the layout */
    int chunks;                      /* pp x vpp */
    int blocks[DAM_CHUNK_KINDS];     /* transformer blocks per chunk kind */
    dam_parallel_op fwd[DAM_CHUNK_KINDS], bwd[DAM_CHUNK_KINDS];
    dam_parallel_stage stage[DAM_CHUNK_KINDS];
    dam_parallel_xfer p2p;           /* activation send between chunks */
    int p2p_domain;                  /* 1: sends stay in the NVLink domain */
    double overhead;                 /* host overhead per step, s */
    double tp_comm;                  /* tensor-parallel comm per step, one
                                      * GPU (uncontended), s */
    double dp_traffic;               /* data-parallel bytes one GPU sends
                                      * per step (gradients, ZeRO) */
    double a2a_traffic;              /* expert all-to-all bytes per step */
    double model_flops;              /* model FLOPs per step, all GPUs */
    double hw_flops;                 /* FLOP executed per step, all GPUs */
    double tokens;                   /* tokens per step, all GPUs */
    double data_read;                /* one replica's storage read of a
                                      * step's data (its first stage
                                      * prefetches it during the step
                                      * before), latency included, s */
} dam_parallel_cost;

/* Kind of chunk v (0 <= v < chunks) and of stage s. */
int dam_parallel_chunk_kind(const dam_parallel_cost *c, int v);
int dam_parallel_stage_kind(const dam_parallel_cost *c, int s);

/* Assemble layout l of scenario s from block costs lc (computed at l's
 * shape). Never fails on a checked layout. */
void dam_parallel_assemble(const dam_scenario *s, const dam_layout *l,
                           const dam_parallel_layers *lc,
                           dam_parallel_cost *out);

/* The analytic step and its terms (mean over the GPUs). */
typedef struct dam_parallel_step {
    double step;        /* s */
    double pipeline;    /* end of the last backward (schedule), s */
    double bubble;      /* idle fraction of the schedule for the slowest
                         * stage: 1 - its busy / pipeline */
    double terms[DAM_TERM_COUNT]; /* per GPU, mean over stages, s */
    int bottleneck;     /* the stage with most work */
} dam_parallel_step;

void dam_parallel_step_analytic(const dam_parallel_cost *c,
                                dam_parallel_step *out);

/* The part of stage s's parameter gather (ZeRO-1/2, after the optimizer)
 * the next step waits for, s: all of it, or with overlap_param (prefetched
 * bucket by bucket under the next step's forwards) its first bucket and
 * whatever is longer than the forward compute it can hide under. The
 * analytic step and the simulator both use it. */
double dam_parallel_gather_exposed(const dam_parallel_cost *c, int s);

/* Time of op (one chunk pass) alone on an idle network, s. */
double dam_parallel_op_time(const dam_parallel_op *op);

/* Memory per GPU of scenario s's layout (dam_layout_memory with the
 * scenario's precision, state bytes and buckets). */
void dam_parallel_memory(const dam_scenario *s, const dam_layout *l,
                         dam_layout_mem *out);

/* Solve a layout scenario analytically into r (the analytic solver calls
 * it when s->layout.on): step, terms, stages, phases, memory, MFU, run
 * time and cost. */
void dam_parallel_solve(const dam_scenario *s, dam_result *r);

/* From r's step, terms and phases: throughput, tokens/s (tokens per
 * step), MFU, epoch and run time, GPU-hours and cost, and what binds: the
 * data when its wait passes data_floor (s; the analytic solve 0, a
 * simulation a share of the step, for its jitter), else the largest
 * term. */
void dam_parallel_derive(const dam_scenario *s, double tokens,
                         double data_floor, dam_result *r);

#endif
