/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * device.h: the device model. Costs operators (graph.h) on one GPU at one
 * precision from the GPU's datasheet and its fitted constants (catalog.h
 * dam_device; MODEL.md section 8). Replaces "FLOPs / (peak x eta)" with one
 * eta per model.
 *
 *   GEMM M x N x K, g groups:
 *     tiles  = ceil(M / tm) ceil(N / tn) g           library tile tm x tn
 *     waves  = ceil(tiles / SMs)                     quantization over SMs
 *     T_c    = waves SMs 2 tm tn K / (peak_p c_g,p)  (c: conv kernels x conv)
 *              few tiles: split-K over the idle SMs instead of waves
 *              no SMs (Gaudi's matrix engines): T_c = 2 M N K g / rate
 *     T_m    = elem (M K + K N + M N) g / (BW m_g)
 *     T      = max(T_c, T_m)
 *   fused attention:  T = max(F / (peak_p a_g), bytes / (BW m_g)),
 *                     a_g forward and backward per GPU generation
 *   memory-bound:     T = bytes / (BW m_g x framework mem factor)
 *   per kernel:       + kernel_gap (GPU side; graph_gap in a CUDA graph)
 *   host:             eager launches cost launch_s each on the host and run
 *                     ahead of the GPU: a step's host-bound excess is
 *                     max(0, kernels x launch_s - GPU time)
 *   collective:       ring algorithm at the fabric's nccl-tests busbw,
 *                     + 2 (ranks - 1) x alpha
 *
 * Costing a graph is a loop over its operators with no allocation (about
 * 5 ns per GEMM entry), so the analytic solver costs the whole graph on
 * every evaluation instead of caching: a changed constant, batch or GPU
 * can never leave a stale figure behind.
 *
 * Constants and their uncertainty. Every fitted constant is a dam_est
 * (value, standard deviation) in the GPU's dam_device or the workload's
 * dam_framework. dam_device_param_* enumerate them by key (the catalog
 * key, e.g. "gemm_frac_bf16"), so a fit (damsim calibrate) or a Monte
 * Carlo can read and set them without knowing the structs.
 *
 * Nothing here allocates, prints or keeps state.
 */
#ifndef DAM_DEVICE_H
#define DAM_DEVICE_H

#include "model/catalog.h"
#include "model/graph.h"
#include "model/scenario.h"

/* What a graph costs on a device. Times in s, work in FLOP and bytes. */
typedef struct dam_phase_cost {
    double flops;     /* FLOP executed */
    double bytes;     /* HBM bytes moved */
    double time;      /* GPU time of its kernels (without kernel gaps) */
    double t_compute; /* part of time in compute-bound kernels */
    double t_memory;  /* part of time in memory-bound kernels */
    double kernels;   /* launches */
} dam_phase_cost;

typedef struct dam_graph_cost {
    double time;                  /* GPU time: kernels + gaps (+ collectives
                                   * when a fabric was given), s */
    double pass_time[DAM_PASS_COUNT]; /* the same per pass, s */
    double pass_kernel_time[DAM_PASS_COUNT]; /* kernels only, per pass, s */
    double pass_kernels[DAM_PASS_COUNT];     /* launches per pass */
    double kernel_time;           /* sum of kernel times, s */
    double gap_time;              /* GPU-side per-kernel gaps, s */
    double host_time;             /* host launch time (eager: kernels x
                                   * launch_s; CUDA graph: one launch), s */
    double host_excess;           /* host time not hidden behind GPU work:
                                   * max(0, host_time - time), s */
    double comm_time;             /* collectives (0 without a fabric), s */
    double comm_bytes;            /* bytes each rank sends in collectives */
    double flops;                 /* FLOP executed (hardware FLOPs) */
    double bytes;                 /* HBM bytes */
    double kernels;               /* launches */
    dam_phase_cost phase[DAM_MAX_PHASES]; /* per graph phase */
} dam_graph_cost;

/* How to cost. Zero-initialise, set gpu, prec and b, then what differs. */
typedef struct dam_cost_opts {
    const dam_gpu *gpu;       /* the device (constants complete) */
    const dam_framework *fw;  /* software stack (NULL = defaults) */
    dam_precision prec;       /* compute precision of GEMMs and attention */
    double b;                 /* batch multiplier of scaled dims (0 = 1) */
    double act_elem;          /* bytes per activation element (0 = the
                               * precision's; fp8/int8 GEMM inputs still
                               * take the precision's width) */
    double eta;               /* > 0: legacy override: every compute-bound
                               * kernel at peak x eta, no wave model */
    double mem_frac;          /* > 0: override of m_g (memory_efficiency) */
    double mem_fused;         /* share of memory-bound traffic and launches
                               * outside the optimizer removed by kernel
                               * fusion (the fuse lever; 0 = none) */
    double launch_s;          /* host cost per eager launch, s */
    int cuda_graphs;          /* 1: launches replayed from a CUDA graph */
    double flops_scale;       /* levers: multiplies GEMM/attention work
                               * (0 = 1) */
    double bytes_scale;       /* levers: multiplies activation traffic (0 = 1) */
    double weight_scale;      /* levers: multiplies weight bytes (0 = 1) */
    double matmul_peak_scale; /* levers: multiplies the GEMM peak (2:4
                               * sparsity; 0 = 1) */
    double weight_elem;       /* bytes per weight element of GEMMs whose B
                               * operand is a weight (weight-only
                               * quantization: about 0.52 for int4 with
                               * group scales); 0 = the precision's */
    double kv_elem;           /* bytes per key/value-cache element (an fp8
                               * cache: 1); 0 = act_elem */
    int weights_stream;       /* 1: the B operand of weight GEMMs and the
                               * cache reads of attention come from DRAM
                               * (no L2 residency): a serving step reads
                               * weights beyond twice the L2 once each, so
                               * none survive to their next use; 0 = the
                               * kernel-footprint rule for all bytes */
    const struct dam_recipe *recipe; /* training layouts: a precision
                               * recipe (recipe.h): GEMMs flagged
                               * DAM_OPF_LINEAR run in its linear format,
                               * each quantized activation costs its cast
                               * kernel; prec is then the recipe's other
                               * format. NULL: every operator at prec */
    int pass_mask;            /* passes to cost: bit (1 << pass); 0 = all */
    double comm_busbw;        /* > 0: cost collectives at this busbw, B/s */
    double comm_alpha;        /* per-hop latency of collectives, s */
} dam_cost_opts;

/*
 * Cost graph g. out is overwritten (phase entries follow g's phases).
 * Returns the GPU time (out->time). Never fails on a complete device; a
 * precision the GPU lacks costs its compute at the fp32 rate.
 */
double dam_device_cost(const dam_graph *g, const dam_cost_opts *o,
                       dam_graph_cost *out);

/*
 * One graph under many draws of its constants (interval draws): the same
 * graph at the same batch costed again and again with only the rates
 * changed (the constants' draws, and the model's error on the FLOPs and
 * bytes scales). dam_cost_plan_build works out once, from one draw's
 * options, what each operator's time needs that those do not change
 * (shapes, tiles, wave counts, bytes, launches); dam_cost_lanes_set
 * takes another draw's options into a lane (its rates: 0 when they
 * differ from the plan's in anything else, then cost that draw with
 * dam_device_cost); dam_cost_lanes_run costs every lane at once,
 * operator by operator across the lanes (a loop the compiler
 * vectorises), each lane's sums in dam_device_cost's order, and
 * dam_cost_lanes_get gives a lane's cost: every time, launch and
 * per-phase time the same double dam_device_cost gives for that draw's
 * options; flops and bytes (work, not time) are left 0.
 * dam_cost_plan_build returns 0 for what it does not cover (a precision
 * recipe, weight-only quantization or streamed weights, collectives
 * costed on a fabric): dam_device_cost then. Nothing allocates.
 */
#define DAM_COST_LANES 16

typedef struct dam_cost_step {
    unsigned char kind;  /* DAM_OP_GEMM, DAM_OP_ATTN, DAM_OP_MEM */
    unsigned char ci;    /* GEMM: 0 GEMM rate, 1 convolution rate;
                          * ATTN: 1 backward */
    unsigned short acc;  /* phase x DAM_PASS_COUNT + pass */
    double c[7];         /* the operator's draw-independent factors */
} dam_cost_step;

typedef struct dam_cost_plan {
    int nph, nsteps;
    int cuda_graphs, pass_mask;
    const struct dam_recipe *recipe;
    double comm_busbw;
    double ref[112];     /* the derived options the plan was built on
                          * (device.c), less the rates */
    double kern[DAM_MAX_PHASES][DAM_PASS_COUNT]; /* launches */
    double ph_kern[DAM_MAX_PHASES], pass_kern[DAM_PASS_COUNT], kernels;
    dam_cost_step step[DAM_MAX_OPS];
} dam_cost_plan;

typedef struct dam_cost_lanes {
    int n;               /* lanes set (0 .. n - 1) */
    /* each lane's rates */
    double fs[DAM_COST_LANES], bs[DAM_COST_LANES];
    double inv_mem_k[DAM_COST_LANES], inv_mem[DAM_COST_LANES];
    double inv_l2c[DAM_COST_LANES], l2_save[DAM_COST_LANES];
    double unit[2][DAM_COST_LANES], inv_rate[2][DAM_COST_LANES];
    double inv_af[DAM_COST_LANES], inv_ab[DAM_COST_LANES];
    double gap[DAM_COST_LANES], launch_s[DAM_COST_LANES];
    /* compute- and memory-bound time per phase and pass */
    double acc[DAM_MAX_PHASES * DAM_PASS_COUNT][2][DAM_COST_LANES];
    /* their sums as dam_graph_cost's (cost_fold's, lane by lane) */
    double ph_tc[DAM_MAX_PHASES][DAM_COST_LANES];
    double ph_tm[DAM_MAX_PHASES][DAM_COST_LANES];
    double ph_time[DAM_MAX_PHASES][DAM_COST_LANES];
    double pass_time[DAM_PASS_COUNT][DAM_COST_LANES];
    double pass_kt[DAM_PASS_COUNT][DAM_COST_LANES];
    double kernel_time[DAM_COST_LANES], gap_time[DAM_COST_LANES];
    double time[DAM_COST_LANES], host_time[DAM_COST_LANES];
    double host_excess[DAM_COST_LANES];
} dam_cost_lanes;

int dam_cost_plan_build(const dam_graph *g, const dam_cost_opts *o,
                        dam_cost_plan *p);
int dam_cost_lanes_set(const dam_cost_plan *p, const dam_cost_opts *o,
                       dam_cost_lanes *l, int lane);
void dam_cost_lanes_run(const dam_cost_plan *p, dam_cost_lanes *l);
void dam_cost_lanes_get(const dam_cost_plan *p, const dam_cost_lanes *l,
                        int lane, dam_graph_cost *out);

/*
 * Fused-attention operators alone, costed many times under one set of
 * options (serving: the attention of every iteration): the options'
 * rates derived once by dam_device_attn_prepare, then
 * dam_device_attn_cost gives the same double dam_device_cost gives for a
 * one-phase graph of those n operators (DAM_OP_ATTN, any pass; no
 * collectives), and *kernels its launches.
 */
typedef struct dam_attn_prep {
    double b, fs, bs, act, kv_el, inv_af, inv_ab, inv_l2c, l2_save,
        inv_mem, gap;
    int weights_stream, pass_mask;
} dam_attn_prep;
void dam_device_attn_prepare(const dam_cost_opts *o, dam_attn_prep *p);
double dam_device_attn_cost(const dam_attn_prep *p, const dam_op *ops,
                            int n, double *kernels);

/* One GEMM (M x N x K, groups products) in s, without launch costs;
 * *compute_bound says which term won (may be NULL). */
double dam_device_gemm_time(const dam_gpu *gpu, dam_precision p, double m,
                            double n, double k, double groups, double elem,
                            int *compute_bound);

/* A memory-bound kernel moving `bytes`, s (no launch cost). */
double dam_device_mem_time(const dam_gpu *gpu, double bytes);

/* Achieved GEMM rate of gpu at p on a large, full-wave GEMM, FLOP/s. */
double dam_device_gemm_rate(const dam_gpu *gpu, dam_precision p);

/* 1 when gpu's generation has SMs and the model applies its per-SM limits
 * (waves of tiles, bytes per SM clock, dequantisation per SM); 0 for one
 * without (Gaudi), whose SM count and clock mean nothing. */
int dam_device_per_sm(const dam_gpu *gpu);

/*
 * A collective of `bytes` per rank over `ranks` GPUs at bus bandwidth
 * busbw (nccl-tests convention) with per-hop latency alpha, s. Ring
 * algorithms: all-reduce moves 2 (n-1)/n of the bytes, all-gather and
 * reduce-scatter (n-1)/n, all-to-all (n-1)/n.
 */
double dam_device_collective_time(dam_comm_kind kind, double bytes, int ranks,
                                  double busbw, double alpha);

/* Host-to-device copy of `bytes` on gpu, pinned or pageable, s. */
double dam_device_h2d_time(const dam_gpu *gpu, double bytes, int pinned);

/*
 * The all-reduce bus bandwidth of the node fabric this GPU kind comes in
 * (nccl-tests convention), bytes/s: its measured one-node figure
 * (dev.busbw: NVLink/NVSwitch, xGMI), else, for a card without NVLink,
 * the PCIe ring, at most its achieved pinned copy rate per direction
 * (dev.h2d) and at most host_pcie_bw (the scenario's host link, 0 = no
 * limit). 0 when nothing is known. A gpu= lever scales a scenario's
 * intra-node bandwidth by the ratio of the two GPUs' figures, so a GPU
 * brings its own fabric.
 */
double dam_device_fabric_busbw(const dam_gpu *gpu, double host_pcie_bw);

/*
 * Fill every constant of gpu->dev that is not given (v == 0) from its
 * generation's defaults (device.c, each with its source), and tiles.
 * Called by the loader; idempotent.
 */
void dam_device_complete(dam_gpu *gpu);

/* The framework defaults (PyTorch eager with cuDNN/cuBLAS; device.c). */
void dam_framework_default(dam_framework *fw);

/* ---- the constants, by key ------------------------------------------- */

/* Where a constant lives. */
typedef enum {
    DAM_PARAM_DEVICE = 0, /* in a dam_gpu's dam_device: one value per GPU */
    DAM_PARAM_FRAMEWORK   /* in the workload: one value for every GPU */
} dam_param_scope;

typedef struct dam_param_info {
    const char *field;      /* catalog key: "gemm_frac", "mem_frac", ... in
                             * a GPU's device group ("conv_frac",
                             * "launch_us", ... for framework constants) */
    int prec;               /* a dam_precision for per-precision constants
                             * (gemm_frac = { bf16 = ..; bf16_sd = ..; }),
                             * -1 otherwise (mem_frac = ..; mem_frac_sd) */
    const char *what;       /* one line: what it is */
    dam_param_scope scope;
    double lo, hi;          /* valid range of the value, SI */
    double scale;           /* SI per display unit (1e-6 for us, 1e9 GB/s) */
    const char *unit;       /* display unit ("", "us", "GB/s") */
} dam_param_info;

/* Number of constants. */
int dam_param_count(void);
/* Constant i (0 <= i < count), or NULL. */
const dam_param_info *dam_param_get(int i);
/* Index of the constant field (at precision prec, or -1), or -1. */
int dam_param_find(const char *field, int prec);
/*
 * Pointers to constant i's value and standard deviation (SI) inside s:
 * device constants in s->machine.gpu.dev, framework constants in
 * s->workload. Returns 0, or -1 when i is out of range.
 */
int dam_param_ref(int i, dam_scenario *s, double **value, double **sd);
/* The same inside one GPU entry (device scope only; -1 for framework
 * constants), e.g. to write a catalog overlay. */
int dam_param_ref_gpu(int i, dam_gpu *gpu, double **value, double **sd);

/* The cost options scenario s implies at batch b: its GPU, precision,
 * framework, overrides (efficiency, memory_efficiency), launches, CUDA
 * graphs and lever scales. */
void dam_cost_opts_scenario(const dam_scenario *s, double b,
                            dam_cost_opts *o);

#endif
