/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * result.h: what the solvers compute, as plain data for render/ and cli/.
 *
 * The analytic solver (analytic.h) fills the iron-law terms, bounds and
 * roofline; the discrete-event simulator (sim.h) fills the simulated
 * figures and marks has_sim; diagnosis (diagnose.h) reads either. All times
 * are seconds per step (training, inference) or per request (serving) unless
 * a name says otherwise. Renderers draw these numbers and compute none.
 */
#ifndef DAM_RESULT_H
#define DAM_RESULT_H

#include "model/bound.h"
#include "model/llm.h"
#include "model/scenario.h"

/* The terms a step decomposes into (breakdown charts use this order). */
typedef enum {
    DAM_TERM_DATA = 0,     /* data wait: loader (storage + decode) not hidden */
    DAM_TERM_TRANSFER,     /* exposed host-to-device copy */
    DAM_TERM_COMPUTE,      /* forward + backward + optimizer on the GPU */
    DAM_TERM_COMM,         /* exposed gradient all-reduce */
    DAM_TERM_OVERHEAD,     /* launches + framework overhead (L_lat) */
    DAM_TERM_WAIT,         /* waiting for other ranks at a collective: the
                            * slowest rank (its data, its compute) sets the
                            * pace; never counted as communication */
    DAM_TERM_COUNT
} dam_term;

const char *dam_term_name(dam_term t);

/* Roofline of one compute phase (forward + backward together). */
typedef struct dam_phase_result {
    char name[32];
    dam_phase_kind kind;
    double flops;          /* FLOPs per step on one GPU */
    double bytes;          /* HBM bytes per step on one GPU */
    double intensity;      /* flops / bytes, FLOP/byte */
    double ridge;          /* GPU ridge point at the phase's peak, FLOP/byte */
    double peak;           /* FLOP/s ceiling used (with sparsity speed-up) */
    double t_compute;      /* flops / (peak * eta), s */
    double t_memory;       /* bytes / (mem_bw * eta_mem), s */
    double time;           /* max of the two, s */
    int memory_bound;      /* 1 when intensity < ridge */
} dam_phase_result;

/* One iron-law stage: D_vol/BW, O/(R_peak*eta), L_lat. */
typedef struct dam_stage {
    char name[24];         /* "storage", "decode", "transfer", "forward", ... */
    double bytes;          /* D_vol moved per step, bytes */
    double bw;             /* BW it moves at, bytes/s (0 = none) */
    double t_data;         /* D_vol / BW, s */
    double ops;            /* O, FLOP (or CPU-seconds of decode as core-s) */
    double rate;           /* R_peak * eta, FLOP/s */
    double t_ops;          /* O / (R_peak * eta), s */
    double t_lat;          /* L_lat, s */
    double time;           /* this stage's time per step, s */
} dam_stage;

#define DAM_MAX_STAGES 12

/* Memory footprint on one GPU. */
typedef struct dam_memory {
    double weights;        /* bytes */
    double gradients;      /* bytes */
    double optimizer;      /* bytes */
    double activations;    /* bytes */
    double buffers;        /* communication buffers, gathered weights,
                            * logits and the runtime's reserve (parallel
                            * layouts), bytes */
    double kv_cache;       /* LLM serving: the KV-cache pool, bytes */
    double total;          /* bytes */
    double capacity;       /* device memory, bytes */
    int fits;              /* 1 when total <= capacity */
    int tight;             /* 1 when it fits with less than
                            * DAM_MEMORY_HEADROOM of the capacity to spare */
    double shortfall;      /* total - capacity when it does not fit, bytes */
} dam_memory;

/* The headroom below which a fit is "tight": allocator fragmentation and
 * what the runtime takes beyond the counted reserve. vLLM leaves 10 % of
 * device memory by default (gpu_memory_utilization = 0.9, vLLM engine
 * arguments); Rajbhandari et al. 2020 (ZeRO, SC'20, section 3.2) report
 * out-of-memory from fragmentation with far more than that still free.
 * A tight fit may well not run; the answers say so. */
#define DAM_MEMORY_HEADROOM 0.10

/* Set m->fits, m->tight and m->shortfall from m->total and m->capacity. */
void dam_memory_judge(dam_memory *m);

/* Streaming statistics of one quantity over simulated steps. */
typedef struct dam_stat {
    double mean, sd, p50, p95, p99, min, max;
    double ci95;           /* half-width of the 95 % CI of the mean over replications */
    double n;              /* observations */
} dam_stat;

/* Per-stage accounting from the simulator: fractions of simulated time. */
typedef struct dam_stage_time {
    char name[24];
    double busy, idle, blocked, starved; /* seconds summed over entities */
    int entities;                        /* workers, links, GPUs it sums */
} dam_stage_time;

#define DAM_MAX_STAGE_TIMES 12

/* Serving figures (per request). phase[] order: */
enum {
    DAM_SPHASE_QUEUE = 0,  /* waits for a CPU worker and for a free replica */
    DAM_SPHASE_BATCHING,   /* wait for the batch to fill or time out */
    DAM_SPHASE_PREPROCESS, /* CPU preprocessing */
    DAM_SPHASE_TRANSFER,   /* host-to-device copy of the batch */
    DAM_SPHASE_COMPUTE,    /* the batch's forward pass incl. launches */
    DAM_SPHASE_POSTPROCESS,/* after compute */
    DAM_SPHASE_COUNT
};

/* Name of a serving phase ("queue", "batching", ...). */
const char *dam_serving_phase_name(int phase);

/* One latency of LLM serving over the measured requests: pooled over
 * replications, with the half-width of each figure's 95 % CI over the
 * replications' own values (Student). Seconds. */
typedef struct dam_llm_stat {
    double mean, p50, p90, p99, max;
    double mean_ci, p50_ci, p90_ci, p99_ci;
    double q;               /* at the SLO quantile (llm.slo_quantile) */
    double q_ci;            /* its CI half-width */
    double n;               /* observations */
} dam_llm_stat;

/* LLM serving figures (solver/sim_llm.c; enabled = 0 otherwise). */
typedef struct dam_llm_result {
    int enabled;
    dam_llm_stat ttft;      /* time to first token */
    dam_llm_stat tpot;      /* time per output token after the first,
                               per request: (end - first) / (out - 1) */
    dam_llm_stat itl;       /* inter-token latency: every gap between two
                               tokens of a sequence */
    dam_llm_stat e2e;       /* arrival to last token */
    dam_llm_stat queue;     /* arrival to first scheduled (incl. the
                               router and waiting for KV blocks) */
    double slo_ttft_s, slo_tpot_s; /* objectives, s */
    double slo_quantile;    /* judged at this quantile */
    int met;                /* both quantiles + their CIs within the SLOs */
    int missed_early;       /* 1: the simulation stopped once an objective
                               was missed whatever the rest of the run
                               brought (dam_sim_options.llm_settle); its
                               figures are partial, its verdict "missed" */
    double goodput;         /* requests/s meeting both SLOs */
    double goodput_fraction;/* share of requests meeting both */
    double throughput;      /* requests/s completed */
    double tokens_per_s;    /* output tokens/s, the whole deployment */
    double tokens_per_s_gpu;/* the same per GPU */
    double prefill_tokens_per_s; /* prompt tokens/s computed (recomputed
                               ones included) */
    double cost_per_mtok;   /* USD per million output tokens */
    double cost_hour;       /* USD per hour, the deployment */
    double gpus;            /* GPUs of the deployment */
    double kv_use_mean;     /* time-averaged share of KV blocks in use */
    double kv_use_peak;     /* highest share seen */
    double running_mean;    /* sequences running per replica, time-average */
    double running_peak;    /* most running at once on one replica */
    double iteration_mean;  /* s per iteration */
    double batch_tokens_mean; /* new tokens per iteration */
    double decode_seqs_mean;/* decoding sequences per iteration */
    double preemptions;     /* per request */
    double gpu_busy;        /* share of replica time in iterations */
    double kv_wait;         /* share of scheduler decisions that found a
                               request waiting for KV blocks */
    double requests;        /* measured requests, all replications */
    /* Shares of iteration time (sum 1): GEMMs and elementwise, attention,
     * tensor-parallel communication, head, host, swap; and the time of
     * KV transfers (disaggregated) per request, s. */
    double share_linear, share_attn, share_comm, share_head, share_host,
        share_swap;
    double kv_transfer_s;
    /* One request alone (the scenario's mean sizes), from the costs. */
    double t_prefill;       /* prefill of a mean prompt, s */
    double t_decode1;       /* one decode step, batch 1, at the mean
                               context, s */
    double weight_floor;    /* weight bytes / achieved HBM bandwidth, the
                               floor of a decode step, s */
    dam_llm_memory memory;  /* one GPU of a (decode) replica */
    dam_llm_memory prefill_memory; /* one GPU of a prefill replica
                                      (disaggregated) */
    double max_concurrency; /* sequences of mean length (input + output)
                               the KV pool holds, capped by max_seqs */
    /* Offline (saturated) run of the same deployment: the same requests,
     * every one queued at time 0, measured from 0 to the last completion
     * (MLPerf's offline scenario); 0 when not run. */
    int has_offline;
    double offline_requests;     /* requests of the offline run */
    double offline_throughput;   /* requests/s */
    double offline_tokens_per_s; /* output tokens/s, the whole deployment */
    double offline_preemptions;  /* per request */
    double offline_makespan_s;   /* time to the last completion, s */
    /* its rates while saturated, from the first completion (before it,
     * the start-up burst) to the moment a replica's queue first ran dry
     * (after it, the drain of the batch's last requests): the
     * deployment's capacity, which server mode cannot exceed (the
     * makespan's rates above hold the start-up and the drain).
     * offline_saturated_s 0: the batch never saturated it for a request's
     * mean service time (too few requests): the rates are the makespan's */
    double offline_saturated_requests; /* the batch they come from: the
                                          scenario's, or a larger one
                                          where it is too small to
                                          saturate (its first requests
                                          the same) */
    double offline_saturated_from_s;
    double offline_saturated_s;
    double offline_saturated_throughput;   /* requests/s */
    double offline_saturated_tokens_per_s; /* output tokens/s */
} dam_llm_result;

/* 1 when both objectives hold with the headroom of their intervals: the
 * SLO quantile plus its CI half-width at most the SLO (to 1e-9). */
int dam_llm_slo_met(const dam_llm_result *l);

typedef struct dam_serving_result {
    dam_stat latency;           /* end to end, s */
    dam_stat phase[DAM_SPHASE_COUNT]; /* queue, batching, preprocess, transfer, compute, postprocess */
    double throughput;          /* requests/s */
    double utilization;         /* GPU busy fraction */
    double slo_attainment;      /* fraction of requests within slo */
    double cost_per_1k;         /* USD per 1,000 requests: GPU time x price
                                   + its electricity (kwh_per_1k x price) */
    double kwh_per_1k;          /* energy at the wall per 1,000 requests */
    double mean_batch;          /* mean formed batch */
    double t_batch1;            /* compute time of a batch of one, s */
    double t_batch_max;         /* compute time of a full batch, s */
    /* The model's capacity (analytic, in every solve): the most requests/s
     * the deployment serves, the least of its CPU pool (workers over the
     * mean preprocessing time), its replicas at their best batch (b over
     * the batch's copy and compute, b up to max_batch:
     * dam_analytic_replica_rate) and its PCIe links (their bytes
     * per second over a request's); capacity_by names that part
     * (DAM_BOUND_PREPROCESS, DAM_BOUND_QUEUEING: the replicas,
     * DAM_BOUND_TRANSFER). At an arrival rate at or above it the queue
     * grows without bound: overloaded. */
    double capacity;            /* requests/s (0: not serving) */
    double capacity_parts[3];   /* CPU pool, replicas, links (inf: none) */
    int capacity_batch;         /* the batch the replicas' part is at */
    dam_bound capacity_by;      /* the part that sets it */
    int overloaded;             /* rate >= capacity */
    /* Added with the serving simulator (sim_serving.c). */
    double p99_ci95;            /* half-width of the 95 % CI of the p99
                                   latency over replications, s */
    dam_stat preprocess_queue;  /* wait for a CPU worker (part of phase[0]), s */
    double gpu_busy;            /* fraction of replica time computing (the
                                   copy excluded; utilization includes it) */
    double cpu_utilization;     /* preprocessing pool busy fraction */
    double compute_roof;        /* mean roofline part of a request's compute
                                   phase (weights + FLOPs), s */
    double compute_overhead;    /* mean launch + framework part of it, s */
    double batch_weight_time;   /* weight reads of the mean batch: weight
                                   bytes / (BW * eta_mem), s */
    double batch_flop_time;     /* FLOP time of the mean batch, s */
    double slo_s;               /* the SLO the attainment is against, s */
    dam_llm_result llm;         /* LLM serving (llm.enabled) */
} dam_serving_result;

/* 1 when a roofline row's label or time is not what the classic roofline
 * gives (its average intensity against ridge, its bytes at mem_bw): set
 * by its kernels (whole tiles, L2 residency; device.h). */
int dam_phase_off_roofline(const dam_phase_result *p, double ridge,
                           double mem_bw);

/* What sets a serving capacity (capacity_by), as a noun phrase: "its CPU
 * preprocessing pool", "its replicas at full batches", "its PCIe links". */
const char *dam_serving_capacity_part(dam_bound by);

/* 1 when a simulated serving result meets its SLO with the headroom of
 * its interval: p99 + p99_ci95 <= slo_s (to a relative 1e-9, so that a
 * deterministic p99 equal to the SLO meets it). */
int dam_serving_slo_met(const dam_serving_result *sv);

/* Set sv's cost_per_1k and kwh_per_1k: the time gpus GPUs take to serve
 * 1,000 requests at throughput requests/s, busy the share of it they
 * compute, costed by dam_quality_scenario_cost (0 when throughput <= 0). */
void dam_serving_cost_per_1k(const dam_scenario *s, double gpus,
                             double throughput, double busy,
                             dam_serving_result *sv);

/* Everything known about one scenario after solving. */
typedef struct dam_result {
    dam_mode mode;
    int64_t gpus;               /* total GPUs (64-bit: products of counts) */
    double global_batch;        /* samples per step, all GPUs */

    /* Iron law, per step on one GPU. */
    int nstages;
    dam_stage stages[DAM_MAX_STAGES];
    double t_data;              /* data term: loader delivery time per batch, s */
    double t_transfer;          /* H2D copy time per batch, s */
    double t_compute;           /* fwd + bwd + optimizer time, s */
    double t_comm;              /* gradient all-reduce total, s */
    double t_latency;           /* L_lat: launches + framework, s */
    double t_seq;               /* everything in series, s */
    double t_pipe;              /* perfect-overlap lower bound, s */

    /* The step as configured (analytic estimate or simulated mean). */
    double step;                /* s */
    double terms[DAM_TERM_COUNT];  /* exposed time of each term, sums to step */
    double throughput;          /* samples/s, all GPUs */
    double tokens_per_s;        /* tokens/s, all GPUs (language models) */
    double steps_per_epoch;
    double epoch_time;          /* s */
    double run_time;            /* s, all epochs */
    double mfu;                 /* model FLOPs utilisation, [0, 1] */
    double io_overhead;         /* data wait / step */
    double model_flops_step;    /* model FLOPs per step per GPU (fwd + bwd, no recompute) */

    int nphases;
    dam_phase_result phases[DAM_MAX_PHASES + 1]; /* + optimizer */
    dam_memory memory;

    /* Cost of the whole run. */
    double gpu_hours;
    double cost_usd;
    double energy_kwh;

    /* Quality after the run (scenario value, or fit loss). */
    double quality;

    /* Discrete-event simulation (has_sim = 1 when it ran). */
    int has_sim;
    int replications;
    double sim_steps;           /* measured steps per replication */
    dam_stat sim_step;          /* step time, s */
    dam_stat sim_data_wait;     /* data wait per step, s */
    double sim_exposed_transfer;/* mean per step, s */
    double sim_exposed_comm;    /* mean per step, s (waiting excluded) */
    double sim_peer_wait;       /* waiting for slower ranks to finish
                                 * backward (stragglers), mean per step, s:
                                 * terms[DAM_TERM_WAIT] */
    int nstage_times;
    dam_stage_time stage_times[DAM_MAX_STAGE_TIMES];
    double events;              /* events processed, all replications */
    double analytic_step;       /* the analytic solver's step, kept when
                                   the simulation replaces step, s */
    double analytic_terms[DAM_TERM_COUNT]; /* its terms, s */
    dam_bound analytic_bound;   /* what bound analytically */

    dam_serving_result serving; /* serving mode only */

    dam_bound bound;            /* what binds */
} dam_result;

/* An analytic serving result's lone request less its batching wait, s: a
 * floor of every request's latency at any load (a full batch leaves
 * before the timeout; nothing else gets shorter under load). */
double dam_serving_lone_floor(const dam_result *r);

/* DAM_OK when every figure of r that reaches an output is a finite number
 * (times, rates, costs, energies, memory >= 0) and its quantiles are in
 * order (min <= p50 <= p95 <= p99 <= max); else DAM_EINPUT with err naming
 * the first figure that is not (file = the scenario's): no NaN or infinity
 * ever reaches an output, the answer is an error instead (issue 11). */
struct dam_error;
int dam_result_check(const dam_result *r, const char *file,
                     struct dam_error *err);

#endif
