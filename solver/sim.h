/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim.h: the discrete-event simulations of a scenario, built on the engine
 * (des.h, link.h, queue.h, rng.h, stats.h). Training and offline inference
 * run the pipeline of MODEL.md section 2 (sim_training.c); serving runs the
 * request pipeline of section 4 (sim_serving.c, sim_llm.c for LLMs); one
 * table in sim.c picks the simulator for a scenario. All fill the simulated
 * fields of a dam_result that the analytic solver filled first, so the
 * report shows bounds and simulation side by side, and the diagnosis runs on
 * simulated numbers.
 */
#ifndef DAM_SIM_H
#define DAM_SIM_H

#include <stddef.h>

#include "model/error.h"
#include "model/llm.h"
#include "solver/result.h"
#include "solver/progress.h"
#include "solver/trace.h"

/*
 * Observers and fault hooks for tests (all optional; NULL / 0 = none).
 * Callbacks run inside the simulation, in simulated-time order, on the
 * calling thread; they must not call back into the simulator.
 */
typedef struct dam_sim_observer {
    /* Each batch's total CPU decode time drawn by a loader worker (core-s);
     * worker is the global worker index (node, GPU, worker in that order),
     * rep the replication. */
    void (*decode)(void *ctx, int rep, long worker, double core_s);
    /* Each completed step of each rank (warm-up included): step index from
     * 0, its duration (s) and end time (s). */
    void (*step)(void *ctx, int rep, int rank, int step, double seconds,
                 double end);
    void *ctx;            /* passed to every callback */
} dam_sim_observer;

/* How to simulate. Zero fields take the scenario's values, except warmup
 * (set it to -1 for the scenario's). A NULL options pointer means all
 * scenario values. */
typedef struct dam_sim_options {
    unsigned long seed;   /* base seed; 0 = scenario's */
    int have_seed;        /* 1 when seed overrides the scenario's */
    int replications;     /* independent replications (0 = scenario's) */
    int steps;            /* measured steps (training) or requests (serving); 0 = scenario's */
    int warmup;           /* steps excluded (-1 = scenario's) */
    int trace_steps;      /* steps to record into the trace (0 = none) */
    const dam_sim_observer *observer; /* tests: draws and steps (NULL = none) */
    int slow_rank;        /* tests: the rank whose loader decode is slowed */
    double slow_decode;   /* tests: decode-time multiplier of slow_rank's
                             workers (0 = no straggler) */
    /* Serving with serving.arrival = "trace": the arrival times, s,
     * nondecreasing, owned by the caller (cli/ reads them with
     * dam_arrivals_load, model/arrivals.h; the simulator opens no files).
     * Ignored for other arrival kinds. */
    const double *arrivals;
    size_t narrivals;     /* entries in arrivals */
    int trace_first;      /* first step recorded (0 = from the start) */
    const int *trace_ranks; /* global GPU ranks whose lanes are recorded,
                               increasing (NULL = every GPU of node 0) */
    int ntrace_ranks;     /* entries in trace_ranks */
    /* Limits (issue 11): a simulation whose estimate (dam_sim_work) is
     * beyond them is refused before it starts, DAM_EINPUT. 0 = no limit. */
    double max_events;    /* events (dam_sim_cost.events) */
    double max_bytes;     /* memory, bytes */
    /* Progress (solver/progress.h; NULL: none): training reports simulated
     * steps (every rank's step k of replication r done: r x (warm-up +
     * steps) + k + 1 of replications x (warm-up + steps)), serving
     * finished requests over the replications. */
    const dam_progress *progress;
    /* LLM serving with serving.arrival = "trace": the requests (arrival,
     * input and output tokens), owned by the caller (cli/ reads them with
     * dam_llm_trace_load, model/llm_trace.h). */
    const dam_llm_request *requests;
    size_t nrequests;     /* entries in requests */
    /* LLM serving: 1 also runs the deployment offline beside the
     * server-mode simulation (dam_sim_llm_offline; `damsim run` asks for
     * it; searches and what-ifs that need only server figures do not). */
    int llm_offline;
    /* LLM serving: 1 lets the simulation stop as soon as the pooled TTFT
     * or TPOT quantile of all its replications is sure to exceed its
     * objective (more of the measured requests are already over it than
     * the quantile leaves room for): the result is then "missed"
     * (dam_llm_result.missed_early) with partial figures. Searches that
     * need only the verdict of a miss set it; a verdict of "met" is never
     * reached early. */
    int llm_settle;
} dam_sim_options;

/* What a simulation will cost, estimated before it runs (sim_work.c). */
typedef struct dam_sim_cost {
    double events;        /* events of every replication together */
    double bytes;         /* peak memory, bytes */
} dam_sim_cost;

/* Estimate the events and memory of simulating s with opt (NULL = the
 * scenario's values); training, inference or serving. */
void dam_sim_work(const dam_scenario *s, const dam_sim_options *opt,
                  dam_sim_cost *w);
/* DAM_OK, or DAM_EINPUT with err saying the estimate, the limit and the
 * option that lifts it when the estimate exceeds opt->max_events or
 * opt->max_bytes. The simulators call it first. */
int dam_sim_work_check(const dam_scenario *s, const dam_sim_options *opt,
                       dam_error *err);

/* What a traced subset got wrong (dam_sim_trace_check). */
enum {
    DAM_SIM_TRACE_RANKS = 1, /* a traced rank is not one of the GPUs */
    DAM_SIM_TRACE_STEPS = 2  /* the first traced step is past the run */
};

/*
 * Check opt's traced subset against training scenario s: every traced
 * rank one of its GPUs, and the first traced step (trace_first, when
 * trace_steps > 0) within the simulated steps (warm-up included).
 * dam_sim_training makes the same check when it records a trace; callers
 * use this one to locate the error at their own option. Returns DAM_OK
 * (*which = 0), or DAM_EINPUT with err filled (file "") and *which set to
 * DAM_SIM_TRACE_RANKS or DAM_SIM_TRACE_STEPS.
 */
int dam_sim_trace_check(const dam_scenario *s, const dam_sim_options *opt,
                        int *which, dam_error *err);

/*
 * Simulate a training or inference scenario. r must hold the analytic
 * solution of s (dam_analytic_solve); the simulated fields are added and
 * r->step, r->terms, r->bound and the derived figures are replaced by the
 * simulated ones. trace may be NULL. Returns DAM_OK or an error code with
 * err filled.
 */
int dam_sim_training(const dam_scenario *s, const dam_sim_options *opt,
                     dam_result *r, dam_trace *trace, dam_error *err);

/* The simulators behind dam_sim_training and dam_sim_serving (sim.c's
 * table picks one and checks the work first; call those doors, not
 * these): a training scenario without a layout, one GPU and its loader
 * workers at a time (sim_training.c; opt and err not NULL), and serving
 * with a dynamic batcher (sim_serving.c; r->bound is left to the door,
 * which classifies it after the solve). */
int dam_sim_training_gpus(const dam_scenario *s, const dam_sim_options *opt,
                          dam_result *r, dam_trace *trace, dam_error *err);
int dam_sim_serving_batches(const dam_scenario *s,
                            const dam_sim_options *opt, dam_result *r,
                            dam_trace *trace, dam_error *err);

/* The warm-up and measured steps a training simulation runs for warm and
 * steps asked with W loader workers per GPU: with W >= 1 both rounded up
 * to whole multiples of W and the warm-up at least W, so that the measured
 * window holds whole loader bursts after the pipeline has filled
 * (sim_training.c's design note; sim_work.c). */
void dam_sim_window(int W, int warm, int steps, int *warm_eff,
                    int *steps_eff);

/*
 * Simulate a serving scenario (same contract; sim_serving.c). Requests
 * arrive (Poisson, deterministic or opt->arrivals), are preprocessed on a
 * pool of serving.preprocess_workers CPU workers, wait for a dynamic
 * batcher, are copied to one of serving.replicas GPUs over its PCIe link,
 * computed as a batch and postprocessed. opt->steps is the number of
 * requests (0 = serving.requests; a trace gives at most its length),
 * opt->warmup the requests excluded from statistics (<= 0: the first 10 %),
 * opt->replications the replications (0 = serving.replications). Fills
 * r->serving, r->sim_step (end-to-end latency), r->step (its mean),
 * r->terms (see sim_serving.c for the mapping), r->throughput, r->bound
 * and has_sim. Returns DAM_EINPUT when arrival = "trace" and no arrivals
 * were given, or a distribution's parameters are invalid.
 */
int dam_sim_serving(const dam_scenario *s, const dam_sim_options *opt,
                    dam_result *r, dam_trace *trace, dam_error *err);

/* What the pipeline simulation of a parallel layout measured. */
struct dam_parallel_cost;
typedef struct dam_sim_parallel_out {
    double step;                  /* mean step, s */
    double terms[DAM_TERM_COUNT]; /* mean per GPU, s (sum to step) */
    dam_stat step_stat;           /* step statistics (ci95 over replications) */
    double events;                /* events run, all replications */
    int entities;                 /* simulated stage-replicas */
    int replicas;                 /* simulated data-parallel replicas */
    int replications, steps;      /* as run */
} dam_sim_parallel_out;

/*
 * Simulate a parallel layout (sim_parallel.c: what is simulated rank by
 * rank and what is aggregated). dam_sim_training calls it for scenarios
 * with a layout; same contract. dam_sim_parallel_cost runs the schedule of
 * a given cost (a test can set the stage times by hand); s gives the
 * machine, the layout's straggler, seeds and steps.
 */
int dam_sim_parallel(const dam_scenario *s, const dam_sim_options *opt,
                     dam_result *r, dam_trace *trace, dam_error *err);
int dam_sim_parallel_cost(const dam_scenario *s,
                          const struct dam_parallel_cost *c,
                          const dam_sim_options *opt,
                          dam_sim_parallel_out *out, dam_trace *trace,
                          dam_error *err);

/*
 * Simulate an LLM serving scenario (serving with an llm group;
 * sim_llm.c): requests of input and output tokens arrive (Poisson,
 * deterministic or opt->requests), a router sends each to a replica, and
 * each replica runs iteration-level continuous batching over a paged KV
 * cache (or the prefill and decode pools hand requests over). opt->steps
 * is the number of requests (0 = serving.requests; a trace gives at most
 * its length), opt->warmup the requests excluded (<= 0: the first 10 %),
 * opt->replications the replications (0 = serving.replications). r must
 * hold dam_analytic_solve's result; fills r->serving (llm figures, and
 * the generic latency = end to end), r->step, r->terms, r->bound and
 * has_sim. dam_sim_serving calls it for such scenarios. Returns DAM_OK,
 * or DAM_EINPUT when the model cannot be built at the degree asked, a
 * trace was not loaded or a distribution is invalid.
 */
int dam_sim_llm(const dam_scenario *s, const dam_sim_options *opt,
                dam_result *r, dam_trace *trace, dam_error *err);

/*
 * The offline (saturated) figures of an LLM serving scenario's deployment:
 * the requests of its first replication (opt->steps, else
 * serving.requests; a trace's sizes), all queued at time 0, run to the
 * last completion; fills r->serving.llm's offline_* fields (has_offline).
 * dam_sim_llm runs it beside the server-mode simulation unless
 * opt->llm_offline. DAM_EINPUT with err when the deployment cannot be
 * built; a deployment that does not fit leaves has_offline 0.
 */
int dam_sim_llm_offline(const dam_scenario *s, const dam_sim_options *opt,
                        dam_result *r, dam_error *err);

/* The requests a serving simulation of s runs (opt->steps, else
 * serving.requests; a trace of ntrace entries gives at most its length)
 * and the warm-up excluded (opt->warmup, else the first 10 %, at most all
 * but one). DAM_EINPUT with err when a trace scenario has no entries
 * (`what` names them) or the rate is not positive (sim_work.c). */
int dam_sim_serving_window(const dam_scenario *s, const dam_sim_options *opt,
                           size_t ntrace, const char *what, long *nreq,
                           long *warm, dam_error *err);

/* Events an LLM simulation of s with opt will run, estimated before it
 * runs: the mean request's arrival, transfer and iterations as if none
 * were batched with another (batching only lowers it). For refusing work
 * beyond a limit before it starts (issue 11; sim_work.c). */
double dam_sim_llm_events(const dam_scenario *s, const dam_sim_options *opt);

#endif
