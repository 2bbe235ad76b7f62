/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_whatif.h: levers on a profiler trace's dependency graph (replay.h)
 * and the what-if table over them.
 *
 * Each lever rewrites the graph, and the replay moves everything that
 * depends on what it changed:
 *   gpu=ID[,from=ID]   every piece of device work scaled by the device
 *                      model for its class: GEMM and attention kernels by
 *                      the achieved GEMM rate at their precision (taken
 *                      from the kernel name; the trace's most common GEMM
 *                      precision when the name does not say) or, where the
 *                      trace records the launching operator's input shapes
 *                      (aten::mm, addmm, bmm, baddbmm; convolutions as
 *                      their implicit GEMM, model/kineto.h), by the device
 *                      model's time of that GEMM on each GPU; elementwise,
 *                      optimizer, fills and device copies by the achieved
 *                      memory bandwidth, host copies by the achieved
 *                      host-to-device rate, collectives by the node
 *                      fabric's all-reduce bus bandwidth (device.h). The
 *                      trace's GPU is found in the catalog from
 *                      deviceProperties, or named with from=.
 *   precision=P        GEMM and attention kernels whose precision is known
 *                      scaled by the GEMM rate at P over their own; other
 *                      work unchanged.
 *   loader_workers=N,from=M
 *                      the host's data-loader wait scaled by M/N (the trace
 *                      does not record the worker count: from= says it).
 *   cuda_graphs=1      launch calls cost nothing and kernels no longer wait
 *                      for their own launch: each waits for the first
 *                      launch of its step on its thread, and the gap after
 *                      its predecessor is at most the GPU's graph_gap.
 *   batch=N,from=M     a batch N / M times the trace's (the trace does not
 *                      record its batch: from= says it). The rule: work
 *                      that grows with the samples scales by r = N / M:
 *                      GEMM and attention kernels (their FLOPs; where the
 *                      operator's shape is known, the device model's time
 *                      of that GEMM with M, the rows of samples x
 *                      positions, times r, over its time at M: small
 *                      GEMMs fill more of the GPU), elementwise kernels
 *                      (activation-sized), host-to-device copies (the
 *                      input batch) and the data-loader wait; fixed costs
 *                      do not: optimizer kernels and collectives
 *                      (parameter-sized), other copies and fills, launch
 *                      calls, host gaps and kernel gaps (per kernel, not
 *                      per sample). Its rows compare samples per second
 *                      (speed-up = baseline step x r / step); the step
 *                      shown is the longer step at batch N. Whether batch
 *                      N fits in memory is not checked.
 *   overlap=1          compute no longer waits for collectives on other
 *                      streams before the step's end (an upper bound on
 *                      what better bucketing or overlap can give).
 *
 * The table holds the baseline (the unchanged replay), each lever alone,
 * and the combination of those that work, with verdicts as for scenarios
 * (whatif.h): works (at least 2 % faster and it moves the binding term),
 * wasted (under 2 %), hurts (slower), failed (cannot apply). Intervals: the
 * 5th and 95th percentiles of the step over draws of the device model's
 * uncertain constants (gemm, mem, busbw, h2d of both GPUs; the same draws
 * for every row); nothing else about the trace is uncertain to the replay.
 */
#ifndef DAM_TRACE_WHATIF_H
#define DAM_TRACE_WHATIF_H

#include "model/catalog.h"
#include "model/error.h"
#include "solver/replay.h"

typedef enum {
    DAM_TLEVER_GPU = 0,
    DAM_TLEVER_PRECISION,
    DAM_TLEVER_LOADER,
    DAM_TLEVER_CUDA_GRAPHS,
    DAM_TLEVER_OVERLAP,
    DAM_TLEVER_BATCH,
    DAM_TLEVER_COUNT
} dam_tlever_kind;

typedef struct dam_tlever {
    int kind;              /* a dam_tlever_kind */
    char text[128];        /* as written */
    char gpu[DAM_ID_MAX];  /* gpu: the target's catalog id */
    char from[DAM_ID_MAX]; /* gpu: the trace's GPU ("" = from the trace) */
    int prec;              /* precision: a dam_precision */
    double workers, from_workers; /* loader_workers; batch: N and from= */
} dam_tlever;

/* Parse "key=value[,key=value]" (the keys above). DAM_OK or DAM_EINPUT
 * (err filled, file "--lever"). */
int dam_tlever_parse(const char *text, dam_tlever *l, dam_error *err);

/* The trace's GPU in the catalog: from= when given, else its
 * deviceProperties name. NULL with a reason in why. */
const dam_gpu *dam_trace_gpu(const dam_ktrace *t, const dam_catalog *cat,
                             const char *from, char *why, size_t n);

#define DAM_TWHATIF_MAX 12

typedef struct dam_trow {
    char name[160];
    int verdict;            /* a dam_verdict (whatif.h) */
    double step_s;          /* replayed step, s: the mean of the steps
                               (their total over their number), so a
                               step that gains what its neighbour loses
                               nets out; the span of the device work
                               without step spans */
    double speedup;         /* baseline step / step (a batch lever:
                               per sample, x its batch ratio) */
    int has_interval;       /* rows with a gpu, precision or cuda_graphs
                               lever: the device constants (and the graph
                               gap) drawn */
    double step_lo, step_hi;       /* 90 % interval of the step, s */
    double speedup_lo, speedup_hi; /* and of the speed-up */
    double p_faster;        /* share of draws at least 2 % faster */
    dam_tbreak br;          /* breakdown of the replay (several ranks:
                               the slowest rank's) */
    int slowest;            /* several ranks: the slowest (index) */
    double rank_step_s[DAM_KINETO_MAX_RANKS]; /* each rank's mean step */
    double rank_wait_s[DAM_KINETO_MAX_RANKS]; /* and its waits for others
                                                 in collectives, per step */
    char why[480];
    char error[480];
} dam_trow;

typedef struct dam_twhatif {
    double measured_s;      /* the trace's median step, s */
    double measured_mean_s; /* the mean of its steps (what the rows
                               compare), s; several ranks: of the
                               slowest rank's common steps */
    int nranks;             /* the trace's ranks (1: one trace) */
    int nsteps;             /* its ProfilerStep spans (0: the whole
                               trace's device work is one "step", idle
                               time between its kernels included) */
    char gpu[DAM_ID_MAX];   /* the trace's GPU in the catalog ("" = none) */
    int default_prec;       /* GEMM precision for kernels that do not say */
    long gemm_unknown;      /* GEMM kernels whose name did not say */
    int draws;              /* draws behind the intervals (0: none) */
    int nrows;
    dam_trow rows[DAM_TWHATIF_MAX]; /* rows[0]: the baseline */
} dam_twhatif;

/*
 * Replay g under each lever alone and under the combination of those that
 * work (two or more). draws: interval draws (0: none); seed: their seed.
 * DAM_OK, or DAM_ERUNTIME when the baseline cannot be replayed.
 */
int dam_trace_whatif(const dam_rgraph *g, const dam_catalog *cat,
                     const dam_tlever *levers, int nlevers, int draws,
                     unsigned long seed, dam_twhatif *w, dam_error *err);

#endif
