/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analytic.h: the iron-law and roofline solver.
 *
 * For one step on one GPU it evaluates every stage of MODEL.md section 2 as
 * D_vol/BW, compute and L_lat (compute: the model's operator graph on the
 * device model, MODEL.md section 8, or O/(R_peak*eta) for a model given by
 * its phases only); the sequential sum T_seq and the
 * perfect-overlap bound T_pipe; each compute phase against the ridge point
 * of the GPU at the scenario's precision; MFU, I/O overhead, memory footprint
 * and cost. The "step" it reports is the steady state of the configured
 * pipeline: with loader workers the prefetch queue decouples the loader from
 * the GPU, so the step is the slower of the two; with loader_workers = 0 the
 * main process loads each batch itself and every term adds up.
 * It never changes the scenario and never fails on a loaded scenario.
 */
#ifndef DAM_ANALYTIC_H
#define DAM_ANALYTIC_H

#include "model/device.h"
#include "solver/result.h"

/* Solve s analytically into r (r is overwritten). */
void dam_analytic_solve(const dam_scenario *s, dam_result *r);

/*
 * The last device cost of a scenario's stored graph, for callers that
 * solve many scenarios differing in a few keys (sweeps): a solve whose
 * cost inputs (the cost options, the GPU and the framework, byte for
 * byte, and the same stored graph) equal the memo's reuses its cost,
 * which is what recomputing gives, bit for bit. Zero-initialise; one
 * thread's. The memo knows the graph by its address: the caller resets
 * it (valid = 0) whenever the graph at that address may have changed
 * (another scenario loaded there).
 */
struct dam_memo_entry;
typedef struct dam_analytic_memo {
    int valid;              /* 0: empty */
    const dam_graph *g;     /* the stored graph costed */
    dam_cost_opts o;        /* its options, gpu and fw pointers cleared */
    dam_gpu gpu;            /* the GPU it was costed on */
    dam_framework fw;       /* the framework it was costed with */
    dam_graph_cost cost;    /* the cost */
    unsigned long hits;     /* solves that reused the cost */
    unsigned long misses;   /* solves that costed the graph */
    /* dam_analytic_memo_table: the costs of many options (batch sizes,
     * rate scales) of the same graph, GPU and framework; NULL: one */
    struct dam_memo_entry *tab;
    int cap, used;
    unsigned gen;           /* the table's entries of this generation are
                             * full (a clear bumps it) */
} dam_analytic_memo;

/* Let memo keep the costs of its graph, GPU and framework under up to
 * 3/4 of cap sets of options (cap rounded up to a power of two; a sweep
 * whose outer keys leave the graph's cost alone, as the loader or the
 * price, meets each inner batch size again): about 0.75 kB an entry; a
 * table that fills starts again empty. */
void dam_analytic_memo_table(dam_analytic_memo *memo, int cap);
/* Free memo's table (memo itself is the caller's). */
void dam_analytic_memo_release(dam_analytic_memo *memo);

/* dam_analytic_solve with a memo of the device cost (NULL: none). */
void dam_analytic_solve_memo(const dam_scenario *s, dam_result *r,
                             dam_analytic_memo *memo);

/*
 * dam_analytic_solve of a training or inference (not serving) scenario
 * without a layout whose graph's device cost the caller already has: g,
 * dam_scenario_graph(s), and gc, its cost at the batch size under
 * dam_cost_opts_scenario(s) (dam_cost_lanes_get gives it for interval
 * draws). The figures, stages and bound are dam_analytic_solve's; the
 * phases' work (flops, bytes) is gc's.
 */
void dam_analytic_solve_given(const dam_scenario *s, dam_result *r,
                              const dam_graph *g, const dam_graph_cost *gc);
/* The same for the figures alone (dam_figures_of(r)) and r->bound: the
 * same doubles, less the work (r is not cleared; nothing else of it is
 * meant to be read). Interval draws. */
void dam_analytic_figures_given(const dam_scenario *s, dam_result *r,
                                const dam_graph *g, const dam_graph_cost *gc);

/* What a sweep's row reads of dam_analytic_solve_memo(s, r, memo): the
 * figures, energy, the bound and the memory footprint (r->memory), the
 * same doubles; the rest of r is not meant to be read (the breakdown's
 * rates, MFU, the phases' detail and the quality are left out) when s is
 * training or inference without a layout, else r is the whole solve. */
void dam_analytic_row_memo(const dam_scenario *s, dam_result *r,
                           dam_analytic_memo *memo);

/*
 * The figures of DAM_COST_LANES interval draws at once (the lanes
 * dam_cost_lanes_run costed): dam_analytic_figures_given's step, run
 * time, throughput, GPU-hours, cost and bound for each lane, the same
 * doubles, computed across the lanes (loops the compiler vectorises).
 * Each draw moves some doubles of the scenario: those the figures read
 * come in lanes (v[DAM_LF_...], the draw's value of the field at
 * dam_analytic_lane_field's offset); every other double is the point's
 * (s). dam_analytic_lanes_cover says whether a moved double is one of
 * these fields or one the figures do not read (the device's and the
 * framework's constants and the work's scales, which reach the figures
 * through the lanes' costs): when a draw moves any other, the lanes'
 * figures do not apply (solve each draw). s: training or inference
 * without a layout, on the operator graph g the lanes costed.
 */
enum {
    DAM_LF_DECODE_S, DAM_LF_GPU_DECODE_S, DAM_LF_STORAGE_BW,
    DAM_LF_STORAGE_LATENCY, DAM_LF_FS_BW, DAM_LF_PCIE_BW, DAM_LF_PAGEABLE,
    DAM_LF_INTRA_BUSBW, DAM_LF_INTER_BUSBW, DAM_LF_NET_LATENCY,
    DAM_LF_FRAMEWORK_OVERHEAD, DAM_LF_LAUNCH_S, DAM_LF_MEM_BW,
    DAM_LF_DEV_MEM, DAM_LF_FW_MEM, DAM_LF_ETA_MEM, DAM_LF_COUNT
};
/* The offset in dam_scenario of lane field f. */
size_t dam_analytic_lane_field(int f);
/* 1 when a draw may move the double at offset off and the lanes' figures
 * still apply. */
int dam_analytic_lanes_cover(size_t off);

typedef struct dam_lane_figures {
    double step[DAM_COST_LANES], run_time[DAM_COST_LANES];
    double throughput[DAM_COST_LANES], gpu_hours[DAM_COST_LANES];
    double cost_usd[DAM_COST_LANES];
    int bound[DAM_COST_LANES];
} dam_lane_figures;

void dam_analytic_figures_lanes(const dam_scenario *s, const dam_graph *g,
                                const dam_cost_plan *p,
                                const dam_cost_lanes *l,
                                const double *const *v,
                                dam_lane_figures *out);

/*
 * What binds a batch-mode step, from r's terms and phases (the one rule
 * both solvers use; r solved from s). A stage that runs on its own and
 * still leaves the GPU waiting sets the pace, however small its exposed
 * part: with a decoupled loader (loader workers > 0) the loader binds
 * whenever the data wait exceeds floor (s), and with the copy on its own
 * stream (overlap_transfer) the host-to-device link binds whenever exposed
 * transfer exceeds floor. Otherwise the largest term binds; waiting for
 * other ranks stands for what made the slowest rank slow (its data when
 * there is data wait, else its compute); compute becomes memory when
 * memory-bound phases take more than half of r->t_compute.
 */
dam_bound dam_analytic_bound(const dam_scenario *s, const dam_result *r,
                             double floor);

/* Pieces the simulator reuses, so both solvers share one cost model. */

/* The GPU work of one step (training) or one batch (inference) at batch b. */
typedef struct dam_compute {
    double fwd;      /* forward kernels, s */
    double bwd;      /* backward and recomputation kernels, s (training) */
    double launch;   /* launch costs that depend on the batch: kernel gaps and
                      * host launch time not hidden behind the GPU, s (graph
                      * models; 0 on the legacy path, whose launches are in
                      * dam_analytic_overhead) */
    double kernels;  /* launches (graph models) */
    double flops;    /* FLOP executed */
    double bytes;    /* HBM bytes moved */
    int graph;       /* 1: costed from the operator graph on the device
                      * model; 0: phases at peak x eta (no architecture) */
} dam_compute;

/*
 * Cost s's compute at batch b: the model's operator graph on the device
 * model (model/device.h), or, for a model without architecture, its phases
 * at peak x eta with backward = 2 x forward. phases (DAM_MAX_PHASES
 * entries, may be NULL) get the per-phase roofline of the whole step and
 * *nphases their count. Allocation-free.
 */
void dam_analytic_compute(const dam_scenario *s, double b, dam_compute *c,
                          dam_phase_result *phases, int *nphases);

/* Time of one forward pass of phase i on a batch of b samples, s. */
double dam_analytic_phase_time(const dam_scenario *s, int i, double b,
                               dam_phase_result *out);
/* Ring all-reduce time of `bytes` over the scenario's GPUs, s (no alpha). */
double dam_analytic_allreduce(const dam_scenario *s, double bytes);
/* Per-collective latency term (alpha part) of one all-reduce, s. */
double dam_analytic_allreduce_latency(const dam_scenario *s);
/* Gradient bytes per step per GPU. */
double dam_analytic_grad_bytes(const dam_scenario *s);
/* Requests/s one serving replica serves at its best batch (1 to
 * max_batch: its copy, then its compute, with t_full the compute of a full
 * batch); *best (may be NULL) that batch. A batch's time per request is
 * not monotonic in its size, so the best is not always the full one. */
double dam_analytic_replica_rate(const dam_scenario *s, double t_full,
                                 int *best);
/* The ranks' lockstep of a training step that loads in its loop on more
 * than one GPU (a collective each step): returns the mean of the largest
 * of G standard normals (0 where no rank waits for another) and sets
 * *cv_decode, one sample's decode time's coefficient of variation. */
double dam_analytic_rank_spread(const dam_scenario *s, double *cv_decode);
/* The step's wait for its slowest rank then: e sd, sd of one rank's
 * load (batch_size samples of decode_s) and compute (compute_cv). */
double dam_analytic_rank_wait(const dam_scenario *s, double e, double cv_decode,
                              double decode_s, double t_compute);
/* Per-step launch + framework overhead that does not depend on the batch
 * (L_lat on the GPU side), s: kernels x launch_s + framework overhead on
 * the legacy path or with an explicit kernels_per_step; the framework
 * overhead alone for a graph model (its launches: dam_compute.launch). */
double dam_analytic_overhead(const dam_scenario *s);
/* Storage reads of one GPU's batch that each pay the storage latency:
 * one a sample, or one a shard when the data is sharded. */
double dam_analytic_batch_reads(const dam_scenario *s);
/* Optimizer step time, s. */
double dam_analytic_optimizer(const dam_scenario *s);
/* Effective host-to-device bandwidth of one GPU's copies, bytes/s. */
double dam_analytic_h2d_bw(const dam_scenario *s);
/* GPUs whose copies share one host link (>= 1). */
int dam_analytic_pcie_share(const dam_machine *m);
/* Mean time a copy spends on a link shared by k GPUs, each copying for t1
 * alone and then away for z (its own work): exact mean value analysis of
 * the closed network (the link a processor-sharing station). */
double dam_analytic_link_residence(int k, double t1, double z);
/* GPUs out of lockstep (no sync) with two shared resources: a link of k
 * GPUs (a copy tl alone) and the node's storage of n GPUs (a read ts
 * alone), each GPU away for z besides: the copy's mean residence, *rs the
 * read's (two closed networks, each with the other's residence in its
 * think time, to their fixed point). */
double dam_analytic_unsynced(int k, double tl, int n, double ts, double z,
                             double *rs);
/* Model FLOPs of one step on one GPU (fwd + bwd for training), FLOP. */
double dam_analytic_model_flops(const dam_scenario *s);

#endif
