/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_training.c: the discrete-event simulation of a training (or offline
 * inference) step pipeline, MODEL.md section 2, on the engine (des.h,
 * link.h, queue.h, rng.h, stats.h). See sim.h for the contract.
 *
 * Entities, per node (every node and every GPU is simulated: data-parallel
 * ranks are symmetric but not identical once decode times are random):
 *  - links: one storage link (machine.storage_bw bytes/s; with a shared
 *    file system, machine.fs_bw, one link every node reads from), one core pool
 *    (capacity cpu_cores, every flow capped at 1 core), and one PCIe link
 *    per group of gpus_per_pcie_link GPUs (pcie_bw, times
 *    pageable_fraction without pinned memory: the convention of
 *    dam_analytic_h2d_bw);
 *  - loader workers, W per GPU: loop { storage latency per file (or
 *    shard), read batch*raw_bytes on the storage link, decode the sum of
 *    batch per-sample draws on one core, put into the GPU's prefetch queue
 *    (capacity prefetch_factor*W; a full queue blocks the worker) };
 *  - GPUs: loop { take a batch (data wait), copy it (exposed transfer),
 *    L_lat, forward (+GPU decode), backward, wait for the last all-reduce
 *    (exposed communication), optimizer }. With overlap_transfer a copy
 *    stream per GPU fills two device buffers ahead of the compute (double
 *    buffering). With W = 0 the GPU's own process loads each batch in
 *    series before the step (the analytic T_seq case).
 *  - the network: one collective at a time for the whole job. Gradient
 *    bytes split into buckets of bucket_bytes; bucket i is ready on a rank
 *    when backward has covered its share of the bytes (evenly through
 *    backward, in reverse layer order), or at the end of backward without
 *    overlap_sync. A bucket's all-reduce starts when every rank has it
 *    ready and the previous collective is done; it takes
 *    dam_analytic_allreduce(bytes) + dam_analytic_allreduce_latency. The
 *    schedule is computed when the last rank enters backward (all ready
 *    times are known then) and one event marks the end of the last one.
 *
 * Events per GPU-step, roughly: storage latency, read end and decode end
 * of the worker that built the batch (3), copy end (1), end of backward
 * (1), end of optimizer (1), plus one per step for the network.
 *
 * Cost model: every service time comes from analytic.c's pieces, so the
 * two solvers share one model; with deterministic service times and
 * nothing overlapped the simulated step equals the analytic T_seq.
 *
 * Time accounting: each GPU step is cut into contiguous pieces (data wait,
 * exposed transfer, overhead, compute, exposed communication) that sum to
 * the step, so the simulated terms sum to the simulated mean step. Steps
 * are measured per rank after warm-up; the 95 % interval comes from the
 * per-replication means. With gradient sync every rank keeps the same
 * pace, and the steps are pooled over ranks. Without it (inference, or
 * one GPU) ranks run independently and, with equal shards of the data,
 * the job ends when its slowest rank does: the step and its terms are the
 * slowest rank's (ranks differ when a PCIe link carries fewer GPUs than
 * the others, e.g. 9 GPUs at 6 per link; pooling them reported the mean
 * rank, 15 % below the busiest link's transfer bound).
 *
 * The measured window (issue 11). W loader workers per GPU start together
 * and, sharing the node's storage and cores fairly, stay in step: batches
 * arrive in bursts of W, one burst per loader period. When the loader
 * binds, a window of n steps holds n / W periods only if n is a multiple
 * of W; a shorter or misaligned window can fall inside one burst, whose
 * steps run at GPU speed (a window of 8 steps among bursts of 28 reported
 * a step 42x below the loader's bound). So with W > 1 the warm-up and the
 * measured steps are rounded up to whole multiples of W: windows then
 * start and end on burst boundaries and measure whole loader periods
 * (exactly, with deterministic service times). The first burst fills
 * an empty pipeline (its first step waits a whole loader period), so the
 * warm-up is at least one burst: a measured window never includes the
 * start-up. r->sim_steps reports the steps measured.
 *
 * Stage accounting (r->stage_times, summed over entities, mean of
 * replications): workers, cores, storage, PCIe and network over the
 * measured window (from the last rank's end of warm-up to the last rank's
 * last measured step); GPUs over their own measured steps (busy = overhead
 * + compute, starved = data wait + exposed transfer, blocked = exposed
 * communication).
 *
 * Binding term: analytic.c's rule on the simulated terms, except that a
 * data wait under 2 % of the step counts as queueing noise, not as a
 * binding loader.
 *
 * Common random numbers: one MT19937 stream per worker and per GPU, seeded
 * from (seed of the replication, stable entity index), so a lever that
 * changes only the GPU leaves every loader draw unchanged.
 *
 * Invariants: no static mutable state (one call per thread is safe);
 * memory depends on the machine's size, not on steps (streaming
 * statistics; the trace stops at a horizon). Nothing prints or exits.
 */
#include "solver/sim.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "model/alloc.h"
#include "model/quality.h"
#include "solver/analytic.h"
#include "solver/des.h"
#include "solver/link.h"
#include "solver/queue.h"
#include "solver/rng.h"
#include "solver/stats.h"

/* Stream-id namespaces: entity kind in the high bits, index below. */
#define STREAM_WORKER (1ULL << 40)
#define STREAM_GPU (2ULL << 40)

/* Double buffering: device input buffers per GPU with overlap_transfer. */
#define NBUF 2

enum wstate { W_IDLE = 0, W_BUSY, W_BLOCKED };
enum gstate { G_RUN = 0, G_WAIT_INPUT, G_WAIT_SYNC };

struct sim;
struct gpu;

/* A loader worker (or, with W = 0, the GPU's own loading process). */
struct worker {
    struct sim *sm;
    struct gpu *g;        /* the GPU it feeds */
    gsl_rng *rng;         /* its own stream */
    long index;           /* global worker index = stream id */
    int inline_load;      /* 1: W = 0, hands the batch to the GPU directly */
    int state;            /* enum wstate */
    double t0;            /* start of the current state, s */
    double t_dec;         /* decode start, s */
    double busy, blocked; /* accumulated, s */
    int seq;              /* batch number of its GPU it is building */
    int lane;             /* trace lane, -1 = not traced */
};

/* A GPU (one data-parallel rank) and its copy stream. */
struct gpu {
    struct sim *sm;
    int rank, node;
    int storage, cpu, pcie; /* link indices */
    dam_queue *q;           /* prefetch queue (W > 0) */
    gsl_rng *rng;           /* compute jitter */
    int step;               /* current step, from 0 */
    int state;              /* enum gstate */
    int made;               /* batches started by its workers */
    double t_prev;          /* end of the previous step, s */
    double t_wait;          /* start of the current wait, s */
    double t_copy;          /* start of the copy in progress, s */
    double t_bwd_end;       /* end of backward this step, s */
    double peer;            /* this step's wait for slower ranks, s */
    double dur_opt;         /* optimizer time this step, s */
    double p[DAM_TERM_COUNT]; /* pieces of the current step, s */
    /* copy stream (overlap_transfer) */
    int free_bufs, nready, copying, getting;
    int ncopy;              /* copies started (= step they feed) */
    double ready_c0[NBUF];  /* copy start of ready buffers, FIFO */
    int lane, lane_pcie;    /* trace lanes, -1 = not traced */
    char qname[32];         /* trace counter name */
};

/* Accounting snapshot of the shared stages. */
struct acc {
    double wbusy, wblocked;  /* worker-seconds */
    double cpu;              /* core-seconds busy */
    double storage, pcie;    /* link-seconds of utilisation */
    double net;              /* seconds of collectives */
};

struct sim {
    const dam_scenario *s;
    const dam_sim_options *opt;
    dam_trace *trace;
    int rep;                 /* replication number */
    int reps;                /* replications */
    uint64_t seed;           /* this replication's seed */
    dam_des *des;
    dam_link_net *net;

    int G, gn, nodes, W, npcie, nworkers;
    struct gpu *gpus;
    struct worker *workers;
    int traced;              /* 1 when this replication records */

    /* service times and sizes */
    double b;                /* batch per GPU, samples */
    double read_bytes;       /* per batch, bytes */
    double read_lat;         /* per batch, s */
    double copy_bytes;       /* per batch, bytes */
    double ovh;              /* L_lat per step, s */
    double gdec, fwd, bwd, opt_t; /* GPU times per step, s */
    dam_dist decode;         /* per-sample CPU decode, s */
    int decode_fixed;        /* 1: decode draws are all the mean */
    int cpu_decode;          /* 1: decode runs on the CPU */
    dam_dist jitter;         /* compute multiplier, mean 1 */
    int overlap;             /* copy stream in use */

    /* gradient sync */
    int sync;                /* 1: training on more than one GPU */
    int nb;                  /* buckets */
    double *bdur;            /* all-reduce time of each bucket, s */
    double *bfrac;           /* share of backward done when bucket is ready */
    double *ready_max;       /* latest ready time of each bucket, s */
    int registered;          /* ranks registered this step */
    double bwd_end_max;      /* latest end of backward among registered ranks, s */
    double step_bwd_end_max; /* that of the step whose schedule is made, s */
    double sum_peer;         /* exposed communication spent waiting for
                              * slower ranks, summed over observations, s */
    double net_free;         /* end of the last scheduled collective, s */
    double net_busy;         /* collective seconds scheduled */
    int sync_done_step;      /* last step whose collectives ended */
    int lane_net;

    /* measurement */
    int warm, steps, nwarm, nmeas, trace_steps;
    int trace_first, trace_rank0; /* first traced step; the rank whose
                                     steps bound the trace window */
    double trace_from;       /* trace recording starts, s */
    double horizon;          /* trace recording stops after, s */
    double t_meas0, t_end;
    struct acc a0, a1;
    dam_stats *st_step, *st_wait; /* pooled over ranks and replications */
    double *k_step, *k_wait; /* one replication: each measured step's step
                                time and data wait summed over ranks, s,
                                for its CI by batch means (else NULL) */
    double sum_step, sum_p[DAM_TERM_COUNT], nobs; /* this replication */
    double *rank_sum;        /* per rank: measured step time (G), s */
    double *rank_p;          /* per rank: pieces (G x DAM_TERM_COUNT), s */
    double gpu_busy, gpu_starved, gpu_blocked;    /* this replication */
};

/* ---- trace ----------------------------------------------------------- */

static void span(struct sim *sm, int lane, dam_span_kind k, double a,
                 double b, int step)
{
    if (lane < 0 || !sm->traced || a > sm->horizon || b < sm->trace_from)
        return;
    dam_trace_span_add(sm->trace, lane, k, a, b, step);
}

static void depth(struct sim *sm, struct gpu *g)
{
    if (g->lane < 0 || !sm->traced || sm->W == 0)
        return;
    double now = dam_des_now(sm->des);
    if (now > sm->horizon || now < sm->trace_from)
        return;
    dam_trace_counter_add(sm->trace, g->qname, now,
                          (double)dam_queue_length(g->q));
}

/* ---- loader workers --------------------------------------------------- */

static void gpu_loaded(struct gpu *g);
static void gpu_got(dam_des *des, void *ctx, dam_des_arg item);

/* Total CPU decode time of one batch, core-seconds. */
static double draw_decode(struct worker *w)
{
    struct sim *sm = w->sm;
    if (!sm->cpu_decode)
        return 0.0;
    double t;
    if (sm->decode_fixed) {
        t = sm->b * sm->decode.mean;
    } else if (sm->decode.kind == DAM_DIST_EMPIRICAL) {
        /* measured samples: resampled one by one */
        t = 0.0;
        for (int i = 0; i < (int)sm->b; i++)
            t += dam_dist_sample(&sm->decode, w->rng);
    } else if (sm->decode.kind == DAM_DIST_EXPONENTIAL) {
        /* the sum of b exponentials of mean m is exactly Gamma(b, m) */
        t = gsl_ran_gamma(w->rng, sm->b, sm->decode.mean);
    } else {
        /* One draw per batch with the exact mean and variance of the sum
         * of b independent draws (b m, cv / sqrt(b)): normal for normal,
         * lognormal (Fenton-Wilkinson) for lognormal and uniform. At a
         * batch of 256 the sum is all but normal, and one draw instead of
         * 256 makes large jobs 10x cheaper to simulate. */
        dam_dist bd = sm->decode;
        if (bd.kind == DAM_DIST_UNIFORM)
            bd.kind = DAM_DIST_LOGNORMAL;
        bd.mean = sm->b * sm->decode.mean;
        bd.cv = sm->decode.cv / sqrt(sm->b);
        t = dam_dist_sample(&bd, w->rng);
    }
    const dam_sim_options *o = sm->opt;
    if (o->slow_decode > 0.0 && w->g->rank == o->slow_rank)
        t *= o->slow_decode;
    if (o->observer && o->observer->decode)
        o->observer->decode(o->observer->ctx, sm->rep, w->index, t);
    return t;
}

static void worker_begin(struct worker *w);

static void worker_put_done(dam_des *des, void *ctx, dam_des_arg item)
{
    struct worker *w = ctx;
    double now = dam_des_now(des);
    w->blocked += now - w->t0;
    span(w->sm, w->lane, DAM_SPAN_BLOCKED, w->t0, now, w->seq);
    depth(w->sm, w->g);
    worker_begin(w);
}

static void worker_decoded(dam_des *des, void *ctx, dam_des_arg item)
{
    struct worker *w = ctx;
    double now = dam_des_now(des);
    span(w->sm, w->lane, DAM_SPAN_DECODE, w->t_dec, now, w->seq);
    w->busy += now - w->t0;
    w->t0 = now;
    if (w->inline_load) {
        w->state = W_IDLE;
        gpu_loaded(w->g);
        return;
    }
    w->state = W_BLOCKED;
    if (dam_queue_put(w->g->q, item, worker_put_done, w)) {
        depth(w->sm, w->g);
        worker_begin(w);
    }
}

static void worker_read(dam_des *des, void *ctx, dam_des_arg item)
{
    struct worker *w = ctx;
    struct sim *sm = w->sm;
    double now = dam_des_now(des);
    span(sm, w->lane, DAM_SPAN_READ, w->t0, now, w->seq);
    w->t_dec = now;
    double work = draw_decode(w);
    if (work > 0.0)
        dam_link_flow_start(sm->net, &w->g->cpu, 1, work, 1.0,
                            worker_decoded, w, item, NULL, NULL);
    else
        worker_decoded(des, w, item);
}

static void worker_latency(dam_des *des, void *ctx, dam_des_arg item)
{
    struct worker *w = ctx;
    struct sim *sm = w->sm;
    if (sm->read_bytes > 0.0)
        dam_link_flow_start(sm->net, &w->g->storage, 1, sm->read_bytes, 0.0,
                            worker_read, w, item, NULL, NULL);
    else
        worker_read(des, w, item);
}

/* Start building the next batch: latency, read, decode, put. */
static void worker_begin(struct worker *w)
{
    struct sim *sm = w->sm;
    w->state = W_BUSY;
    w->t0 = dam_des_now(sm->des);
    w->seq = w->g->made++;
    dam_des_arg item = dam_des_u((uint64_t)w->seq);
    if (sm->read_lat > 0.0)
        dam_des_after(sm->des, sm->read_lat, worker_latency, w, item);
    else
        worker_latency(sm->des, w, item);
}

/* ---- gradient sync ---------------------------------------------------- */

static void gpu_optimizer(struct gpu *g);

/* The last collective of step `arg` has ended: release waiting ranks. */
static void sync_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct sim *sm = ctx;
    int k = (int)arg.u;
    sm->sync_done_step = k;
    for (int r = 0; r < sm->G; r++) {
        struct gpu *g = &sm->gpus[r];
        if (g->state == G_WAIT_SYNC && g->step == k)
            gpu_optimizer(g);
    }
}

/* Rank g enters backward at t_b0 for bwd seconds: register its buckets;
 * once every rank has, schedule the step's collectives in order. */
static void sync_register(struct sim *sm, struct gpu *g, double t_b0,
                          double bwd)
{
    double t_end = t_b0 + bwd;
    if (t_end > sm->bwd_end_max)
        sm->bwd_end_max = t_end;
    for (int i = 0; i < sm->nb; i++) {
        double t = sm->s->pipeline.overlap_sync && i < sm->nb - 1
                       ? t_b0 + bwd * sm->bfrac[i]
                       : t_end;
        if (t > sm->ready_max[i])
            sm->ready_max[i] = t;
    }
    if (++sm->registered < sm->G)
        return;
    double t = sm->net_free;
    for (int i = 0; i < sm->nb; i++) {
        double start = sm->ready_max[i] > t ? sm->ready_max[i] : t;
        t = start + sm->bdur[i];
        span(sm, sm->lane_net, DAM_SPAN_ALLREDUCE, start, t, g->step);
        sm->net_busy += sm->bdur[i];
        sm->ready_max[i] = -HUGE_VAL;
    }
    sm->net_free = t;
    sm->registered = 0;
    sm->step_bwd_end_max = sm->bwd_end_max;
    sm->bwd_end_max = -HUGE_VAL;
    dam_des_at(sm->des, t, sync_done, sm, dam_des_u((uint64_t)g->step));
}

/* ---- GPUs ------------------------------------------------------------- */

static void gpu_begin(struct gpu *g);
static void copy_pump(struct gpu *g);
static void snapshot(struct sim *sm, struct acc *a);

/* Record a finished step of rank g. */
static void record(struct sim *sm, struct gpu *g, int k, double step)
{
    double now = dam_des_now(sm->des);
    const dam_sim_options *o = sm->opt;
    if (o->observer && o->observer->step)
        o->observer->step(o->observer->ctx, sm->rep, g->rank, k, step, now);
    /* the window is the traced steps of the first traced rank */
    if (sm->traced && g->rank == sm->trace_rank0 &&
        k == sm->trace_first - 1)
        sm->trace_from = now;
    if (sm->traced && g->rank == sm->trace_rank0 &&
        k == sm->trace_first + sm->trace_steps - 1)
        sm->horizon = now;
    if (g->rank == 0) /* rank 0's steps stand for the run's */
        dam_progress_report(o->progress,
                            (double)sm->rep * (sm->warm + sm->steps) + k + 1,
                            (double)sm->reps * (sm->warm + sm->steps));
    if (k == sm->warm - 1 && ++sm->nwarm == sm->G) {
        sm->t_meas0 = now;
        snapshot(sm, &sm->a0);
    }
    if (k < sm->warm || k >= sm->warm + sm->steps)
        return;
    dam_stats_add(sm->st_step, step);
    dam_stats_add(sm->st_wait, g->p[DAM_TERM_DATA]);
    if (sm->k_step) {
        sm->k_step[k - sm->warm] += step;
        sm->k_wait[k - sm->warm] += g->p[DAM_TERM_DATA];
    }
    sm->rank_sum[g->rank] += step;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        sm->rank_p[(size_t)g->rank * DAM_TERM_COUNT + t] += g->p[t];
    sm->sum_step += step;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        sm->sum_p[t] += g->p[t];
    sm->sum_peer += g->peer;
    sm->nobs += 1.0;
    sm->gpu_busy += g->p[DAM_TERM_COMPUTE] + g->p[DAM_TERM_OVERHEAD];
    sm->gpu_starved += g->p[DAM_TERM_DATA] + g->p[DAM_TERM_TRANSFER];
    sm->gpu_blocked += g->p[DAM_TERM_COMM] + g->p[DAM_TERM_WAIT];
    if (k == sm->warm + sm->steps - 1 && ++sm->nmeas == sm->G) {
        sm->t_end = now;
        dam_des_stop(sm->des);
    }
}

static void gpu_step_end(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct gpu *g = ctx;
    struct sim *sm = g->sm;
    double now = dam_des_now(des);
    record(sm, g, g->step, now - g->t_prev);
    g->t_prev = now;
    g->step++;
    if (sm->overlap) {
        g->free_bufs++;
        copy_pump(g);
    }
    gpu_begin(g);
}

/* Backward is over and the collectives too: the optimizer step. */
static void gpu_optimizer(struct gpu *g)
{
    struct sim *sm = g->sm;
    double now = dam_des_now(sm->des);
    g->state = G_RUN;
    g->p[DAM_TERM_COMM] = now - g->t_bwd_end;
    /* the part of it spent waiting for slower ranks to finish backward */
    double peer = sm->step_bwd_end_max - g->t_bwd_end;
    g->peer = peer > 0.0 ? (peer < g->p[DAM_TERM_COMM] ? peer
                                                       : g->p[DAM_TERM_COMM])
                         : 0.0;
    /* waiting is its own term, not communication */
    g->p[DAM_TERM_COMM] -= g->peer;
    g->p[DAM_TERM_WAIT] = g->peer;
    if (g->dur_opt > 0.0) {
        span(sm, g->lane, DAM_SPAN_OPTIMIZER, now, now + g->dur_opt,
             g->step);
        dam_des_after(sm->des, g->dur_opt, gpu_step_end, g, dam_des_u(0));
    } else {
        gpu_step_end(sm->des, g, dam_des_u(0));
    }
}

static void gpu_bwd_end(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct gpu *g = ctx;
    struct sim *sm = g->sm;
    g->t_bwd_end = dam_des_now(des);
    if (sm->sync && sm->sync_done_step < g->step) {
        g->state = G_WAIT_SYNC;
        return;
    }
    gpu_optimizer(g);
}

/* The batch is on the device: L_lat, forward, backward. */
static void gpu_compute(struct gpu *g)
{
    struct sim *sm = g->sm;
    double now = dam_des_now(sm->des);
    double j = dam_dist_sample(&sm->jitter, g->rng);
    double fwd = (sm->gdec + sm->fwd) * j, bwd = sm->bwd * j;
    g->dur_opt = sm->opt_t * j;
    g->state = G_RUN;
    g->p[DAM_TERM_OVERHEAD] = sm->ovh;
    g->p[DAM_TERM_COMPUTE] = fwd + bwd + g->dur_opt;
    double t_f = now + sm->ovh, t_b = t_f + fwd, t_e = t_b + bwd;
    span(sm, g->lane, DAM_SPAN_OVERHEAD, now, t_f, g->step);
    span(sm, g->lane, DAM_SPAN_FORWARD, t_f, t_b, g->step);
    if (bwd > 0.0)
        span(sm, g->lane, DAM_SPAN_BACKWARD, t_b, t_e, g->step);
    if (sm->sync)
        sync_register(sm, g, t_b, bwd);
    dam_des_at(sm->des, t_e, gpu_bwd_end, g, dam_des_u(0));
}

static void gpu_copied(dam_des *des, void *ctx, dam_des_arg item)
{
    struct gpu *g = ctx;
    double now = dam_des_now(des);
    g->p[DAM_TERM_TRANSFER] = now - g->t_copy;
    if (now > g->t_copy)
        span(g->sm, g->lane_pcie, DAM_SPAN_COPY, g->t_copy, now, g->step);
    gpu_compute(g);
}

/* In-line copy (no overlap): the batch is in host memory now. */
static void gpu_input(struct gpu *g)
{
    struct sim *sm = g->sm;
    double now = dam_des_now(sm->des);
    g->p[DAM_TERM_DATA] = now - g->t_wait;
    if (now > g->t_wait)
        span(sm, g->lane, DAM_SPAN_STALL, g->t_wait, now, g->step);
    g->t_copy = now;
    if (sm->copy_bytes > 0.0)
        dam_link_flow_start(sm->net, &g->pcie, 1, sm->copy_bytes, 0.0,
                            gpu_copied, g, dam_des_u(0), NULL, NULL);
    else
        gpu_copied(sm->des, g, dam_des_u(0));
}

static void gpu_loaded(struct gpu *g)
{
    gpu_input(g);
}

static void gpu_got(dam_des *des, void *ctx, dam_des_arg item)
{
    struct gpu *g = ctx;
    depth(g->sm, g);
    gpu_input(g);
}

/* Take the oldest ready device buffer: the wait since t_wait splits into
 * data wait (before its copy started) and exposed transfer (after). */
static void take_ready(struct gpu *g)
{
    struct sim *sm = g->sm;
    double now = dam_des_now(sm->des);
    double c0 = g->ready_c0[0];
    for (int i = 1; i < g->nready; i++)
        g->ready_c0[i - 1] = g->ready_c0[i];
    g->nready--;
    double split = c0 > g->t_wait ? (c0 < now ? c0 : now) : g->t_wait;
    g->p[DAM_TERM_DATA] = split - g->t_wait;
    g->p[DAM_TERM_TRANSFER] = now - split;
    if (split > g->t_wait)
        span(sm, g->lane, DAM_SPAN_STALL, g->t_wait, split, g->step);
    gpu_compute(g);
}

static void copy_done(dam_des *des, void *ctx, dam_des_arg item)
{
    struct gpu *g = ctx;
    double now = dam_des_now(des);
    g->copying = 0;
    if (now > g->t_copy)
        span(g->sm, g->lane_pcie, DAM_SPAN_COPY, g->t_copy, now,
             (int)item.u);
    g->ready_c0[g->nready++] = g->t_copy;
    if (g->state == G_WAIT_INPUT)
        take_ready(g);
    copy_pump(g);
}

static void copy_got(dam_des *des, void *ctx, dam_des_arg item)
{
    struct gpu *g = ctx;
    struct sim *sm = g->sm;
    depth(sm, g);
    g->getting = 0;
    g->free_bufs--;
    g->copying = 1;
    g->t_copy = dam_des_now(des);
    dam_des_arg step = dam_des_u((uint64_t)g->ncopy++);
    if (sm->copy_bytes > 0.0)
        dam_link_flow_start(sm->net, &g->pcie, 1, sm->copy_bytes, 0.0,
                            copy_done, g, step, NULL, NULL);
    else
        copy_done(des, g, step);
}

/* The copy stream: fetch and copy the next batch while a buffer is free. */
static void copy_pump(struct gpu *g)
{
    if (g->copying || g->getting || g->free_bufs == 0)
        return;
    g->getting = 1;
    dam_des_arg item;
    if (dam_queue_get(g->q, &item, copy_got, g))
        copy_got(g->sm->des, g, item);
}

/* Start a step: wait for input. */
static void gpu_begin(struct gpu *g)
{
    struct sim *sm = g->sm;
    memset(g->p, 0, sizeof g->p);
    g->t_wait = dam_des_now(sm->des);
    if (sm->W == 0) {
        worker_begin(&sm->workers[g->rank]);
        return;
    }
    if (sm->overlap) {
        g->state = G_WAIT_INPUT;
        if (g->nready > 0)
            take_ready(g);
        return;
    }
    dam_des_arg item;
    g->state = G_WAIT_INPUT;
    if (dam_queue_get(g->q, &item, gpu_got, g))
        gpu_got(sm->des, g, item);
}

/* ---- setup ------------------------------------------------------------ */

static void snapshot(struct sim *sm, struct acc *a)
{
    double now = dam_des_now(sm->des);
    memset(a, 0, sizeof *a);
    for (int i = 0; i < sm->nworkers; i++) {
        const struct worker *w = &sm->workers[i];
        a->wbusy += w->busy + (w->state == W_BUSY ? now - w->t0 : 0.0);
        a->wblocked += w->blocked +
                       (w->state == W_BLOCKED ? now - w->t0 : 0.0);
    }
    for (int n = 0; n < sm->nodes; n++) {
        const struct gpu *g = &sm->gpus[n * sm->gn];
        a->cpu += dam_link_busy(sm->net, g->cpu) *
                  dam_link_capacity(sm->net, g->cpu);
        a->storage += dam_link_busy(sm->net, g->storage);
        for (int k = 0; k < sm->npcie; k++)
            a->pcie += dam_link_busy(sm->net, g->pcie + k);
    }
    a->net = sm->net_busy;
}

/* Build the engine objects of one replication and run it. */
static int run_replication(struct sim *sm, dam_error *err)
{
    const dam_scenario *s = sm->s;
    const dam_machine *m = &s->machine;
    sm->des = dam_des_create();
    sm->net = dam_link_net_create(sm->des);
    int rc = DAM_OK;
    double pcie_cap = m->pcie_bw * (s->pipeline.pin_memory
                                        ? 1.0
                                        : m->pageable_fraction);
    /* one cluster-wide file system shared by every node, or each node's */
    int shared = m->fs_bw > 0.0 ? dam_link_add(sm->net, m->fs_bw, err) : -1;
    for (int n = 0; n < sm->nodes && rc == DAM_OK; n++) {
        int st = shared >= 0 ? shared
                             : dam_link_add(sm->net, m->storage_bw, err);
        int cpu = dam_link_add(sm->net, (double)m->cpu_cores, err);
        int pc = -1;
        for (int k = 0; k < sm->npcie; k++) {
            int l = dam_link_add(sm->net, pcie_cap, err);
            if (k == 0)
                pc = l;
            if (l < 0)
                pc = -1;
        }
        if (st < 0 || cpu < 0 || pc < 0) {
            rc = DAM_EINPUT;
            break;
        }
        for (int i = 0; i < sm->gn; i++) {
            struct gpu *g = &sm->gpus[n * sm->gn + i];
            g->storage = st;
            g->cpu = cpu;
            g->pcie = pc + i / m->gpus_per_pcie_link;
        }
    }
    sm->horizon = HUGE_VAL;
    sm->registered = 0;
    sm->bwd_end_max = sm->step_bwd_end_max = -HUGE_VAL;
    sm->sum_peer = 0.0;
    sm->net_free = 0.0;
    sm->net_busy = 0.0;
    sm->sync_done_step = -1;
    sm->nwarm = sm->nmeas = 0;
    sm->t_meas0 = sm->t_end = 0.0;
    sm->sum_step = sm->nobs = 0.0;
    memset(sm->sum_p, 0, sizeof sm->sum_p);
    memset(sm->rank_sum, 0, (size_t)sm->G * sizeof *sm->rank_sum);
    memset(sm->rank_p, 0,
           (size_t)sm->G * DAM_TERM_COUNT * sizeof *sm->rank_p);
    sm->gpu_busy = sm->gpu_starved = sm->gpu_blocked = 0.0;
    for (int i = 0; i < sm->nb; i++)
        sm->ready_max[i] = -HUGE_VAL;
    for (int r = 0; r < sm->G && rc == DAM_OK; r++) {
        struct gpu *g = &sm->gpus[r];
        g->q = sm->W > 0 ? dam_queue_create(
                               sm->des, (size_t)s->pipeline.prefetch_factor *
                                            (size_t)sm->W)
                         : NULL;
        dam_rng_reseed(g->rng, sm->seed, STREAM_GPU + (uint64_t)r);
        g->step = g->made = g->nready = g->copying = g->getting = 0;
        g->ncopy = 0;
        g->state = G_RUN;
        g->free_bufs = NBUF;
        g->t_prev = g->t_wait = g->t_copy = g->t_bwd_end = 0.0;
    }
    for (int i = 0; i < sm->nworkers && rc == DAM_OK; i++) {
        struct worker *w = &sm->workers[i];
        dam_rng_reseed(w->rng, sm->seed, STREAM_WORKER + (uint64_t)i);
        w->state = W_IDLE;
        w->t0 = w->t_dec = w->busy = w->blocked = 0.0;
        w->seq = 0;
    }
    if (rc == DAM_OK) {
        if (sm->warm == 0)
            sm->a0 = (struct acc){0};
        for (int i = 0; i < sm->nworkers && sm->W > 0; i++)
            worker_begin(&sm->workers[i]);
        for (int r = 0; r < sm->G; r++) {
            if (sm->overlap)
                copy_pump(&sm->gpus[r]);
            gpu_begin(&sm->gpus[r]);
        }
        dam_des_run(sm->des);
        if (sm->nmeas < sm->G)
            rc = dam_error_set(err, "", 0, "simulation stalled at %.6g s "
                               "before every rank finished its steps",
                               dam_des_now(sm->des));
        else
            snapshot(sm, &sm->a1);
    }
    return rc;
}

static void free_replication(struct sim *sm)
{
    for (int r = 0; r < sm->G; r++) {
        dam_queue_free(sm->gpus[r].q);
        sm->gpus[r].q = NULL;
    }
    dam_link_net_free(sm->net);
    dam_des_free(sm->des);
    sm->net = NULL;
    sm->des = NULL;
}

/* 1 when rank r's lanes are recorded. */
static int rank_traced(const struct sim *sm, int r)
{
    const dam_sim_options *o = sm->opt;
    if (!o->trace_ranks)
        return r < sm->gn;
    for (int i = 0; i < o->ntrace_ranks; i++)
        if (o->trace_ranks[i] == r)
            return 1;
    return 0;
}

static void lanes(struct sim *sm)
{
    char name[48];
    int gn = sm->gn, W = sm->W, ppl = sm->s->machine.gpus_per_pcie_link;
    int last_link = -1, link_lane = -1;
    for (int r = 0; r < sm->G; r++) {
        if (!rank_traced(sm, r))
            continue;
        int n = r / gn, i = r % gn;
        for (int k = 0; k < (W > 0 ? W : 1); k++) {
            struct worker *w = &sm->workers[r * (W > 0 ? W : 1) + k];
            if (W > 0)
                snprintf(name, sizeof name, "node%d/gpu%d/worker%d", n, i, k);
            else
                snprintf(name, sizeof name, "node%d/gpu%d/loader", n, i);
            w->lane = dam_trace_lane_add(sm->trace, name, DAM_TRACE_LOADER);
        }
        /* the host link this GPU copies over (one lane per link) */
        int link = n * sm->npcie + i / ppl;
        if (link != last_link) {
            snprintf(name, sizeof name, "node%d/pcie%d", n, i / ppl);
            link_lane = dam_trace_lane_add(sm->trace, name, DAM_TRACE_PCIE);
            last_link = link;
        }
        struct gpu *g = &sm->gpus[r];
        snprintf(name, sizeof name, "node%d/gpu%d", n, i);
        g->lane = dam_trace_lane_add(sm->trace, name, DAM_TRACE_GPU);
        g->lane_pcie = link_lane;
        snprintf(g->qname, sizeof g->qname, "queue depth gpu%d", r);
    }
    if (sm->sync)
        sm->lane_net = dam_trace_lane_add(sm->trace, "network",
                                          DAM_TRACE_NET);
}

/* The trace's description of its subset: steps and ranks as ranges. */
static void trace_subset(struct sim *sm, dam_trace *t)
{
    t->first_step = sm->trace_first;
    t->nsteps = sm->trace_steps;
    t->total_ranks = sm->G;
    size_t used = 0;
    t->ranks[0] = '\0';
    for (int r = 0; r < sm->G; r++) {
        if (!rank_traced(sm, r) || (r > 0 && rank_traced(sm, r - 1)))
            continue;
        int e = r;
        while (e + 1 < sm->G && rank_traced(sm, e + 1))
            e++;
        int n = e > r ? snprintf(t->ranks + used, sizeof t->ranks - used,
                                 "%s%d-%d", used ? "," : "", r, e)
                      : snprintf(t->ranks + used, sizeof t->ranks - used,
                                 "%s%d", used ? "," : "", r);
        if (n < 0 || (size_t)n >= sizeof t->ranks - used) {
            snprintf(t->ranks + (used < sizeof t->ranks - 4
                                     ? used : sizeof t->ranks - 4),
                     4, "...");
            break;
        }
        used += (size_t)n;
    }
}

/* Fill the simulator's constants from the scenario (analytic pieces). */
static int constants(struct sim *sm, dam_error *err)
{
    const dam_scenario *s = sm->s;
    const dam_data *d = &s->data;
    const dam_workload *w = &s->workload;
    sm->b = w->batch_size;
    sm->read_bytes = sm->b * d->raw_bytes;
    double reads = d->sharded && d->shard_bytes > 0.0
                       ? ceil(sm->read_bytes / d->shard_bytes)
                       : sm->b;
    sm->read_lat = reads * s->machine.storage_latency;
    sm->copy_bytes = sm->b * dam_scenario_copy_bytes(s);
    dam_compute cp;
    dam_analytic_compute(s, sm->b, &cp, NULL, NULL);
    sm->ovh = dam_analytic_overhead(s) + cp.launch;
    sm->gdec = d->decode_on_gpu ? sm->b * d->gpu_decode_s : 0.0;
    sm->fwd = cp.fwd;
    sm->bwd = s->mode == DAM_MODE_TRAINING ? cp.bwd : 0.0;
    sm->opt_t = dam_analytic_optimizer(s);
    sm->cpu_decode = !d->decode_on_gpu && d->decode_s > 0.0;
    /* empirical: the measured samples of the scenario, resampled */
    int emp = d->decode_dist == DAM_DIST_EMPIRICAL;
    sm->decode = (dam_dist){d->decode_dist, d->decode_s, d->decode_cv,
                            emp ? d->decode_samples : NULL,
                            emp ? (size_t)d->ndecode_samples : 0};
    int rc = dam_dist_check(&sm->decode, err);
    if (rc != DAM_OK)
        return rc;
    sm->decode_fixed = d->decode_dist == DAM_DIST_DETERMINISTIC ||
                       (d->decode_cv == 0.0 &&
                        d->decode_dist != DAM_DIST_EXPONENTIAL);
    sm->jitter = (dam_dist){DAM_DIST_LOGNORMAL, 1.0, w->compute_cv, NULL, 0};
    rc = dam_dist_check(&sm->jitter, err);
    if (rc != DAM_OK)
        return rc;
    sm->overlap = s->pipeline.overlap_transfer && sm->W > 0;
    sm->sync = s->mode == DAM_MODE_TRAINING && sm->G > 1;
    sm->nb = 0;
    if (sm->sync) {
        double gbytes = dam_analytic_grad_bytes(s);
        double bucket = s->pipeline.bucket_bytes;
        double nb = bucket > 0.0 ? ceil(gbytes / bucket) : 1.0;
        if (nb < 1.0)
            nb = 1.0;
        if (nb > DAM_MAX_BUCKETS)
            return dam_error_set(err, s->file, 0, "%.0f gradient buckets "
                                 "are too many to simulate; raise "
                                 "'pipeline.bucket_mb'", nb);
        sm->nb = (int)nb;
        sm->bdur = dam_calloc((size_t)sm->nb, sizeof *sm->bdur);
        sm->bfrac = dam_calloc((size_t)sm->nb, sizeof *sm->bfrac);
        sm->ready_max = dam_calloc((size_t)sm->nb, sizeof *sm->ready_max);
        double alpha = dam_analytic_allreduce_latency(s), done = 0.0;
        for (int i = 0; i < sm->nb; i++) {
            double bytes = i < sm->nb - 1 ? bucket : gbytes - done;
            if (sm->nb == 1)
                bytes = gbytes;
            done += bytes;
            sm->bdur[i] = dam_analytic_allreduce(s, bytes) + alpha;
            sm->bfrac[i] = gbytes > 0.0 ? done / gbytes : 1.0;
        }
    }
    return DAM_OK;
}

/* Without gradient sync, ranks are independent and the job (equal shards)
 * ends with the slowest: this replication's step and pieces become that
 * rank's (sums over its measured steps; peer wait is zero without sync). */
static void slowest_rank(struct sim *sm)
{
    int worst = 0;
    for (int r = 1; r < sm->G; r++)
        if (sm->rank_sum[r] > sm->rank_sum[worst])
            worst = r;
    sm->sum_step = sm->rank_sum[worst];
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        sm->sum_p[t] = sm->rank_p[(size_t)worst * DAM_TERM_COUNT + t];
    sm->nobs = sm->steps;
    sm->sum_peer = 0.0;
}

/* Name one accounting row. */
static dam_stage_time *row(dam_result *r, const char *name, int entities)
{
    dam_stage_time *t = &r->stage_times[r->nstage_times++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->entities = entities;
    return t;
}

static double nonneg(double x)
{
    return x > 0.0 ? x : 0.0;
}

/* Add this replication's accounting into r's rows (summed; averaged by
 * the caller). */
static void account(struct sim *sm, dam_result *r, int first)
{
    double el = sm->t_end - sm->t_meas0;
    struct acc d;
    d.wbusy = sm->a1.wbusy - sm->a0.wbusy;
    d.wblocked = sm->a1.wblocked - sm->a0.wblocked;
    d.cpu = sm->a1.cpu - sm->a0.cpu;
    d.storage = sm->a1.storage - sm->a0.storage;
    d.pcie = sm->a1.pcie - sm->a0.pcie;
    d.net = sm->a1.net - sm->a0.net;
    const dam_machine *m = &sm->s->machine;
    if (first) {
        r->nstage_times = 0;
        row(r, sm->W > 0 ? "loader workers" : "loader (in loop)",
            sm->nworkers);
        row(r, "cpu cores", sm->nodes * m->cpu_cores);
        row(r, "storage", sm->nodes);
        row(r, "pcie", sm->nodes * sm->npcie);
        row(r, "gpu", sm->G);
        if (sm->sync)
            row(r, "network", 1);
    }
    double busy[6] = {d.wbusy, d.cpu, d.storage, d.pcie, sm->gpu_busy,
                      d.net};
    for (int i = 0; i < r->nstage_times; i++) {
        dam_stage_time *t = &r->stage_times[i];
        t->busy += busy[i];
        if (i == 0)
            t->blocked += d.wblocked;
        if (i == 4) {
            t->starved += sm->gpu_starved;
            t->blocked += sm->gpu_blocked;
            continue;
        }
        t->idle += nonneg(t->entities * el - busy[i] -
                          (i == 0 ? d.wblocked : 0.0));
    }
}

int dam_sim_trace_check(const dam_scenario *s, const dam_sim_options *opt,
                        int *which, dam_error *err)
{
    int64_t G = dam_scenario_gpus(s);
    int warm, steps; /* the window the simulation runs */
    dam_sim_window(s->pipeline.loader_workers,
                   opt->warmup >= 0 ? opt->warmup : s->pipeline.warmup_steps,
                   opt->steps > 0 ? opt->steps : s->pipeline.steps, &warm,
                   &steps);
    *which = DAM_SIM_TRACE_RANKS;
    for (int i = 0; opt->trace_ranks && i < opt->ntrace_ranks; i++) {
        int rk = opt->trace_ranks[i];
        if (rk < 0 || rk >= G)
            return dam_error_set(err, "", 0, "traced rank %d is not one of "
                                 "the %lld GPUs (0 to %lld)", rk,
                                 (long long)G, (long long)G - 1);
    }
    if (opt->trace_ranks && opt->ntrace_ranks < 1)
        return dam_error_set(err, "", 0, "no rank to trace");
    *which = DAM_SIM_TRACE_STEPS;
    if (opt->trace_steps > 0 && opt->trace_first >= steps + warm)
        return dam_error_set(err, "", 0, "traced step %d is past the %d "
                             "simulated steps", opt->trace_first,
                             steps + warm);
    *which = 0;
    return DAM_OK;
}

/* The GPUs and loader workers, each with its random stream, and the
 * statistics the replications fill. */
static void create_entities(struct sim *sm, uint64_t seed)
{
    sm->gpus = dam_calloc((size_t)sm->G, sizeof *sm->gpus);
    sm->workers = dam_calloc((size_t)sm->nworkers, sizeof *sm->workers);
    for (int i = 0; i < sm->G; i++) {
        struct gpu *g = &sm->gpus[i];
        g->sm = sm;
        g->rank = i;
        g->node = i / sm->gn;
        g->rng = dam_rng_create(seed, STREAM_GPU + (uint64_t)i);
        g->lane = g->lane_pcie = -1;
    }
    int per = sm->W > 0 ? sm->W : 1;
    for (int i = 0; i < sm->nworkers; i++) {
        struct worker *w = &sm->workers[i];
        w->sm = sm;
        w->g = &sm->gpus[i / per];
        w->index = i;
        w->inline_load = sm->W == 0;
        w->rng = dam_rng_create(seed, STREAM_WORKER + (uint64_t)i);
        w->lane = -1;
    }
    sm->st_step = dam_stats_create();
    sm->st_wait = dam_stats_create();
    sm->rank_sum = dam_calloc((size_t)sm->G, sizeof *sm->rank_sum);
    sm->rank_p = dam_calloc((size_t)sm->G * DAM_TERM_COUNT,
                            sizeof *sm->rank_p);
}

/* The figures the analytic solver derived from its step, from the
 * simulated step, and what binds. */
static void derive(const dam_scenario *s, double step, dam_result *r)
{
    r->step = step;
    r->throughput = step > 0.0 ? r->global_batch / step : 0.0;
    r->tokens_per_s = r->throughput * s->workload.model.seq_len;
    double peak = dam_scenario_peak(s);
    r->mfu = peak > 0.0 && step > 0.0
                 ? r->model_flops_step / (step * peak)
                 : 0.0;
    r->io_overhead = step > 0.0 ? r->terms[DAM_TERM_DATA] / step : 0.0;
    r->epoch_time = r->steps_per_epoch * step;
    r->run_time = r->epoch_time * dam_scenario_run_epochs(s);
    /* the run's cost and energy as every path costs them: busy is the
     * simulated share of the step the GPUs compute */
    dam_quality_cost qc;
    if (dam_quality_scenario_cost(
            s, r->gpus, r->run_time,
            step > 0.0 ? r->terms[DAM_TERM_COMPUTE] / step : 0.0, &qc,
            NULL) != DAM_OK)
        memset(&qc, 0, sizeof qc);
    r->gpu_hours = qc.gpu_hours;
    r->cost_usd = qc.usd;
    r->energy_kwh = qc.kwh;

    /* What binds, by analytic.c's rule on the simulated terms; a data
     * wait under 2 % of the step is queueing noise of a loader that
     * keeps up on average, not a binding loader. */
    r->bound = dam_analytic_bound(s, r, 0.02 * step);
}

/* Free what create_entities and constants made. */
static void free_sim(struct sim *sm)
{
    if (sm->gpus)
        for (int i = 0; i < sm->G; i++)
            dam_rng_free(sm->gpus[i].rng);
    if (sm->workers)
        for (int i = 0; i < sm->nworkers; i++)
            dam_rng_free(sm->workers[i].rng);
    dam_free(sm->gpus);
    dam_free(sm->workers);
    dam_free(sm->bdur);
    dam_free(sm->bfrac);
    dam_free(sm->ready_max);
    dam_stats_free(sm->st_step);
    dam_stats_free(sm->st_wait);
    dam_free(sm->rank_sum);
    dam_free(sm->rank_p);
}

int dam_sim_training_gpus(const dam_scenario *s, const dam_sim_options *opt,
                          dam_result *r, dam_trace *trace, dam_error *err)
{
    const dam_machine *m = &s->machine;
    struct sim *sm = dam_calloc(1, sizeof *sm);
    sm->s = s;
    sm->opt = opt;
    sm->gn = m->gpus_per_node;
    sm->nodes = m->nodes;
    sm->G = sm->gn * sm->nodes;
    sm->W = s->pipeline.loader_workers;
    int ppl = m->gpus_per_pcie_link > 0 ? m->gpus_per_pcie_link : 1;
    sm->npcie = (sm->gn + ppl - 1) / ppl;
    sm->nworkers = sm->G * (sm->W > 0 ? sm->W : 1);
    dam_sim_window(sm->W,
                   opt->warmup >= 0 ? opt->warmup : s->pipeline.warmup_steps,
                   opt->steps > 0 ? opt->steps : s->pipeline.steps, &sm->warm,
                   &sm->steps);
    int reps = opt->replications > 0 ? opt->replications
                                     : s->pipeline.replications;
    uint64_t seed = opt->have_seed ? opt->seed : s->seed;
    sm->trace_steps = opt->trace_steps;
    sm->trace_first = opt->trace_first > 0 ? opt->trace_first : 0;
    sm->lane_net = -1;
    int rc = DAM_OK;
    if (sm->G < 1 || sm->steps < 1 || reps < 1)
        rc = dam_error_set(err, s->file, 0, "nothing to simulate (%d GPUs, "
                           "%d steps, %d replications)", sm->G, sm->steps,
                           reps);
    /* traced ranks: valid, and the first of them bounds the window */
    sm->trace_rank0 = 0;
    int which;
    if (rc == DAM_OK)
        rc = dam_sim_trace_check(s, opt, &which, err);
    for (int i = 0; rc == DAM_OK && opt->trace_ranks &&
                    i < opt->ntrace_ranks; i++) {
        int rk = opt->trace_ranks[i];
        if (i == 0 || rk < sm->trace_rank0)
            sm->trace_rank0 = rk;
    }
    if (rc == DAM_OK)
        rc = constants(sm, err);
    double *rep_step = NULL, *rep_wait = NULL;
    if (rc == DAM_OK) {
        create_entities(sm, seed);
        rep_step = dam_calloc((size_t)reps, sizeof *rep_step);
        rep_wait = dam_calloc((size_t)reps, sizeof *rep_wait);
        if (reps == 1 && sm->steps > 0) {
            sm->k_step = dam_calloc((size_t)sm->steps, sizeof *sm->k_step);
            sm->k_wait = dam_calloc((size_t)sm->steps, sizeof *sm->k_wait);
        }
    }
    double sum_p[DAM_TERM_COUNT] = {0}, nobs = 0.0, events = 0.0;
    double sum_peer = 0.0;
    sm->reps = reps;
    for (int k = 0; k < reps && rc == DAM_OK; k++) {
        sm->rep = k;
        sm->seed = dam_rng_mix(seed, (uint64_t)k);
        sm->trace = trace;
        sm->traced = trace != NULL && k == 0 && sm->trace_steps > 0;
        sm->trace_from = sm->trace_first > 0 ? HUGE_VAL : 0.0;
        if (sm->traced) {
            lanes(sm);
            trace_subset(sm, trace);
        }
        rc = run_replication(sm, err);
        if (rc == DAM_OK && !sm->sync && sm->G > 1)
            slowest_rank(sm);
        if (rc == DAM_OK) {
            rep_step[k] = sm->sum_step / sm->nobs;
            rep_wait[k] = sm->sum_p[DAM_TERM_DATA] / sm->nobs;
            for (int t = 0; t < DAM_TERM_COUNT; t++)
                sum_p[t] += sm->sum_p[t];
            sum_peer += sm->sum_peer;
            nobs += sm->nobs;
            events += (double)dam_des_events(sm->des);
            account(sm, r, k == 0);
            if (sm->traced) {
                trace->horizon = sm->horizon;
                trace->from = isfinite(sm->trace_from) ? sm->trace_from
                                                       : 0.0;
            }
        }
        free_replication(sm);
        for (int i = 0; i < sm->nworkers && sm->traced; i++)
            sm->workers[i].lane = -1;
        for (int i = 0; i < sm->G && sm->traced; i++)
            sm->gpus[i].lane = sm->gpus[i].lane_pcie = -1;
        sm->lane_net = -1;
    }
    if (rc == DAM_OK) {
        /* Keep the analytic answer beside the simulated one. */
        r->analytic_step = r->step;
        memcpy(r->analytic_terms, r->terms, sizeof r->terms);
        r->analytic_bound = r->bound;

        r->has_sim = 1;
        r->replications = reps;
        r->sim_steps = sm->steps;
        r->events = events;
        dam_stats_fill(sm->st_step, &r->sim_step);
        dam_stats_fill(sm->st_wait, &r->sim_data_wait);
        dam_stat ci;
        dam_stats_replications(rep_step, (size_t)reps, &ci, NULL);
        r->sim_step.ci95 = ci.ci95;
        dam_stats_replications(rep_wait, (size_t)reps, &ci, NULL);
        r->sim_data_wait.ci95 = ci.ci95;
        if (sm->k_step) { /* the ranks' sums: G times the steps' means */
            r->sim_step.ci95 =
                dam_batch_means_ci95(sm->k_step, (size_t)sm->steps) / sm->G;
            r->sim_data_wait.ci95 =
                dam_batch_means_ci95(sm->k_wait, (size_t)sm->steps) / sm->G;
        }
        double step = 0.0;
        for (int t = 0; t < DAM_TERM_COUNT; t++) {
            r->terms[t] = sum_p[t] / nobs;
            step += r->terms[t];
        }
        r->sim_step.mean = step;
        r->sim_data_wait.mean = r->terms[DAM_TERM_DATA];
        r->sim_exposed_transfer = r->terms[DAM_TERM_TRANSFER];
        r->sim_exposed_comm = r->terms[DAM_TERM_COMM];
        r->sim_peer_wait = sum_peer / nobs;
        for (int i = 0; i < r->nstage_times; i++) {
            dam_stage_time *t = &r->stage_times[i];
            t->busy /= reps;
            t->idle /= reps;
            t->blocked /= reps;
            t->starved /= reps;
        }

        derive(s, step, r);
    }
    free_sim(sm);
    dam_free(rep_step);
    dam_free(rep_wait);
    dam_free(sm->k_step);
    dam_free(sm->k_wait);
    dam_free(sm);
    return rc;
}
