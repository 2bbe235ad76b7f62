/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_serving.c: the serving pipeline of MODEL.md section 4 on the
 * discrete-event engine (des.h for events, link.h for PCIe, rng.h for
 * streams and distributions, stats.h for streaming statistics).
 *
 * Entities. An arrival process (Poisson at serving.rate, deterministic at
 * 1/rate from t = 0, or the caller's trace of timestamps); a pool of
 * preprocess_workers CPU workers fed FIFO, each request's service drawn
 * from preprocess_dist (mean preprocess_s, cv preprocess_cv); one batch
 * queue in front of `replicas` GPUs; per replica a host-to-device copy over
 * its PCIe link (links shared by gpus_per_pcie_link replicas, max-min fair),
 * then the batch's compute; then postprocessing.
 *
 * Batching rule (the usual dynamic batcher). Requests join the batch queue
 * when preprocessed. While a replica is free and the queue is not empty,
 * the oldest min(queue, max_batch) requests are dispatched as one batch as
 * soon as either the queue holds max_batch requests or batch_timeout_s has
 * passed since the oldest one joined. With max_batch 1 every request is a
 * full batch: no batching wait. A batch becomes "ready" at
 *     R = min(join(first) + timeout, join(max_batch-th member))
 * (the second term only for a full batch). A member's wait from joining to
 * dispatch splits into batching wait max(0, min(R, dispatch) - join) and
 * queue wait (the rest: the ready batch waited for a replica). The queue
 * phase also holds the wait for a CPU worker (reported separately too).
 *
 * Service. A replica is held from dispatch through copy and compute. The
 * copy moves b * request_bytes over the replica's link at pcie_bw (pinned)
 * or pcie_bw * pageable_fraction. Compute of a batch of b is
 *     T(b) = dam_analytic_compute(s, b): forward + launches, + dam_analytic_overhead(s)
 * (weights read once per batch), times a factor drawn from compute_dist
 * with mean 1 and cv workload.compute_cv (deterministic: exactly T(b);
 * exponential: an exponential service of mean T(b)). Postprocessing is a
 * fixed postprocess_s per request that does not hold the GPU and does not
 * contend (host threads outside the model).
 *
 * Statistics. Requests with index < warm-up (first 10 % by default) are
 * simulated but not measured. The measured window runs from the arrival of
 * the first measured request (t0) to the last completion; throughput is
 * the completions in it over its length, utilisation the replicas' held
 * time in it (copy + compute) over replicas x length, gpu_busy the compute
 * part alone. Latency and phases are pooled over replications in
 * histogram accumulators (stats.h: quantiles within 0.1 % of the exact
 * sample quantile of every measured request, whatever their order; memory
 * independent of the request count; only requests in flight are held).
 * The reported p99 is the pooled sample's; its CI is Student's interval
 * over the replications' own p99s, as the mean's is over their means
 * (dam_stats_replications). Pooled P-squared markers, used before, drift
 * on a queue's autocorrelated latencies: the M/M/1 p99 came out 16 to
 * 68 % high at some seeds.
 *
 * Terms for breakdown charts (they sum to the mean latency, r->step):
 *   DATA      = preprocess + queue + batching (the request is not yet on
 *               the GPU: host work and every wait),
 *   TRANSFER  = host-to-device copy,
 *   COMPUTE   = the roofline part of the batch's compute,
 *   COMM      = 0,
 *   OVERHEAD  = launches + framework of the batch + postprocess.
 *
 * Random streams per replication k: 8k + 0 arrivals, 8k + 1 preprocess
 * service (drawn in FIFO start order, so request n gets the same draw
 * whatever the pool size), 8k + 2 compute factor (one per batch).
 */
#include "solver/sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/lever.h"
#include "solver/analytic.h"
#include "solver/des.h"
#include "solver/link.h"
#include "solver/rng.h"
#include "solver/slotq.h"
#include "solver/stats.h"

/* One request in flight. */
typedef struct req {
    long idx;          /* arrival number, 0-based */
    double arrive;     /* s */
    double pre_start;  /* a worker took it, s */
    double pre_end;    /* preprocessed and joined the batch queue, s */
    int worker;        /* worker that preprocessed it */
} req;

/* One GPU replica and the batch it holds. */
typedef struct replica {
    int busy;          /* 1 from dispatch to compute end */
    int link;          /* its PCIe link */
    int *members;      /* request slots of the batch */
    size_t nmem, cap;
    double disp;       /* dispatch time, s */
    double ready;      /* batch ready time R, s */
    double xfer_end;   /* copy done, s */
    double roof, ovh;  /* compute split of this batch, s */
    long batch_no;     /* batches dispatched before it (trace) */
    int gpu_lane, pcie_lane;
} replica;

/* Accumulators pooled over replications. */
typedef struct pool_stats {
    dam_stats *lat, *phase[DAM_SPHASE_COUNT], *preq, *data;
    dam_batches *bat; /* the latencies in batches: one replication's CI
                         (NULL with several) */
} pool_stats;

/* The whole simulated system for one replication. */
typedef struct sys {
    const dam_scenario *s;
    dam_des *des;
    dam_link_net *net;
    gsl_rng *arr_rng, *pre_rng, *comp_rng;
    dam_dist pre_dist, comp_dist;
    const double *arrivals;    /* trace or NULL */
    long nreq, warmup;         /* requests, of which not measured */
    long arrived;
    double interval;           /* deterministic inter-arrival, s */

    req *reqs;                 /* slots */
    size_t nslots, cap_slots;
    dam_slotq free_slots, preq, bq;
    int *free_workers;         /* stack of idle worker ids */
    int nfree_workers;
    replica *reps;
    int nreps, nfree_reps;
    dam_des_id timer;          /* batch timeout event, 0 = none */
    double timer_t;
    double slo;

    /* Per-request compute pieces for batch sizes (cached by b). */
    double *roof_cache;        /* [max_batch + 1], < 0 = not computed */
    double overhead;           /* launches + framework, s */
    double xfer_bw;            /* PCIe capacity per link, bytes/s */

    /* Window accounting (from t0). */
    int measuring;
    double t0, t_last;         /* window start, last completion, s */
    double area_held, area_comp, area_cpu;  /* busy integrals from t0 */
    double last_change;
    int held, computing, cpu_busy;
    long completed_in_window, measured, within_slo;
    long batches_in_window, nbatches;
    double batch_sum;          /* requests in the window's batches */
    double sum_roof, sum_ovh;  /* over measured requests, s */

    pool_stats *ps;            /* pooled accumulators */
    dam_stats *rep_lat;        /* this replication's latency */
    dam_trace *trace;
    int trace_steps;
    int *worker_lane;
    int nlanes_workers;
    const dam_progress *progress; /* NULL: none */
    double done_before, total; /* requests of earlier replications; all */
    long finished;             /* requests this replication finished */
} sys;

/* Advance the busy integrals to now. */
static void account(sys *y)
{
    double now = dam_des_now(y->des);
    if (y->measuring) {
        double dt = now - y->last_change;
        y->area_held += y->held * dt;
        y->area_comp += y->computing * dt;
        y->area_cpu += y->cpu_busy * dt;
    }
    y->last_change = now;
}

static int new_slot(sys *y)
{
    if (y->free_slots.len > 0)
        return dam_slotq_pop(&y->free_slots);
    y->reqs = dam_grow(y->reqs, sizeof *y->reqs, y->nslots + 1,
                       &y->cap_slots);
    return (int)y->nslots++;
}

/* Roofline time of a batch of b (weights read once), s. */
static double roof_time(sys *y, int b)
{
    if (y->roof_cache[b] >= 0.0)
        return y->roof_cache[b];
    dam_compute cp;
    dam_analytic_compute(y->s, (double)b, &cp, NULL, NULL);
    double t = cp.fwd + cp.launch;
    y->roof_cache[b] = t;
    return t;
}

static void try_dispatch(sys *y);
static void start_preprocess(sys *y, int slot, int worker);

static void on_timer(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    y->timer = 0;
    try_dispatch(y);
}

static void on_pre_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    int slot = (int)arg.u;
    req *q = &y->reqs[slot];
    account(y);
    y->cpu_busy--;
    q->pre_end = dam_des_now(des);
    if (y->trace && q->idx < y->trace_steps && q->worker < y->nlanes_workers)
        dam_trace_span_add(y->trace, y->worker_lane[q->worker],
                           DAM_SPAN_PREPROCESS, q->pre_start, q->pre_end,
                           (int)q->idx);
    int w = q->worker;
    if (y->preq.len > 0)
        start_preprocess(y, dam_slotq_pop(&y->preq), w);
    else
        y->free_workers[y->nfree_workers++] = w;
    dam_slotq_push_back(&y->bq, slot);
    try_dispatch(y);
}

static void start_preprocess(sys *y, int slot, int worker)
{
    req *q = &y->reqs[slot];
    account(y);
    y->cpu_busy++;
    q->pre_start = dam_des_now(y->des);
    q->worker = worker;
    double t = dam_dist_sample(&y->pre_dist, y->pre_rng);
    dam_des_after(y->des, t, on_pre_done, y, dam_des_u((uint64_t)slot));
}

static void on_arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    double now = dam_des_now(des);
    long k = y->arrived++;
    if (k == y->warmup) { /* the measured window opens */
        account(y);
        y->measuring = 1;
        y->t0 = now;
        y->last_change = now;
    }
    int slot = new_slot(y);
    req *q = &y->reqs[slot];
    q->idx = k;
    q->arrive = now;
    if (y->nfree_workers > 0)
        start_preprocess(y, slot, y->free_workers[--y->nfree_workers]);
    else
        dam_slotq_push_back(&y->preq, slot);
    if (y->arrived < y->nreq) {
        double next;
        if (y->arrivals)
            next = y->arrivals[y->arrived];
        else if (y->s->serving.arrival == DAM_ARRIVAL_DETERMINISTIC)
            next = (double)y->arrived * y->interval;
        else
            next = now - log1p(-dam_rng_uniform(y->arr_rng)) /
                             y->s->serving.rate;
        dam_des_at(des, next, on_arrive, y, dam_des_u(0));
    }
}

/* Record one finished request of replica p. */
static void finish(sys *y, replica *p, int slot, double comp_end)
{
    req *q = &y->reqs[slot];
    const dam_serving *v = &y->s->serving;
    double done = comp_end + v->postprocess_s;
    if (done > y->t_last)
        y->t_last = done;
    if (y->measuring && done >= y->t0)
        y->completed_in_window++;
    if ((++y->finished & 1023) == 0)
        dam_progress_report(y->progress, y->done_before + y->finished,
                            y->total);
    if (q->idx >= y->warmup) {
        double join = q->pre_end;
        double r = p->ready < p->disp ? p->ready : p->disp;
        double batching = r - join > 0.0 ? r - join : 0.0;
        double gpu_q = p->disp - join - batching;
        if (gpu_q < 0.0)
            gpu_q = 0.0;
        double preq = q->pre_start - q->arrive;
        double ph[DAM_SPHASE_COUNT];
        ph[DAM_SPHASE_QUEUE] = preq + gpu_q;
        ph[DAM_SPHASE_BATCHING] = batching;
        ph[DAM_SPHASE_PREPROCESS] = q->pre_end - q->pre_start;
        ph[DAM_SPHASE_TRANSFER] = p->xfer_end - p->disp;
        ph[DAM_SPHASE_COMPUTE] = comp_end - p->xfer_end;
        ph[DAM_SPHASE_POSTPROCESS] = v->postprocess_s;
        double lat = done - q->arrive;
        for (int i = 0; i < DAM_SPHASE_COUNT; i++)
            dam_stats_add(y->ps->phase[i], ph[i]);
        dam_stats_add(y->ps->preq, preq);
        dam_stats_add(y->ps->data, ph[DAM_SPHASE_QUEUE] +
                                       ph[DAM_SPHASE_BATCHING] +
                                       ph[DAM_SPHASE_PREPROCESS]);
        dam_stats_add(y->ps->lat, lat);
        dam_stats_add(y->rep_lat, lat);
        if (y->ps->bat)
            dam_batches_add(y->ps->bat, lat);
        y->sum_roof += p->roof;
        y->sum_ovh += p->ovh;
        y->measured++;
        if (lat <= y->slo * (1.0 + 1e-9))
            y->within_slo++;
    }
    dam_slotq_push_back(&y->free_slots, slot);
}

static void on_compute_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    replica *p = &y->reps[arg.u];
    double now = dam_des_now(des);
    account(y);
    y->held--;
    y->computing--;
    if (y->trace && p->batch_no < y->trace_steps)
        dam_trace_span_add(y->trace, p->gpu_lane, DAM_SPAN_FORWARD,
                           p->xfer_end, now, (int)p->batch_no);
    for (size_t i = 0; i < p->nmem; i++)
        finish(y, p, p->members[i], now);
    p->nmem = 0;
    p->busy = 0;
    y->nfree_reps++;
    try_dispatch(y);
}

static void on_copy_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    sys *y = ctx;
    replica *p = &y->reps[arg.u];
    double now = dam_des_now(des);
    account(y);
    y->computing++;
    p->xfer_end = now;
    if (y->trace && p->batch_no < y->trace_steps)
        dam_trace_span_add(y->trace, p->pcie_lane, DAM_SPAN_COPY, p->disp,
                           now, (int)p->batch_no);
    int b = (int)p->nmem;
    double f = dam_dist_sample(&y->comp_dist, y->comp_rng);
    p->roof = roof_time(y, b) * f;
    p->ovh = y->overhead * f;
    dam_des_after(des, p->roof + p->ovh, on_compute_done, y, arg);
}

/* Start batches while a replica is free and a batch is ready. */
static void try_dispatch(sys *y)
{
    const dam_serving *v = &y->s->serving;
    double now = dam_des_now(y->des);
    while (y->bq.len > 0 && y->nfree_reps > 0) {
        double first = y->reqs[dam_slotq_at(&y->bq, 0)].pre_end;
        size_t mb = (size_t)v->max_batch;
        int full = y->bq.len >= mb;
        if (!full && now < first + v->batch_timeout_s)
            break;
        size_t b = full ? mb : y->bq.len;
        int ri = 0;
        while (y->reps[ri].busy)
            ri++;
        replica *p = &y->reps[ri];
        p->members = dam_grow(p->members, sizeof *p->members, b, &p->cap);
        p->nmem = b;
        for (size_t i = 0; i < b; i++)
            p->members[i] = dam_slotq_pop(&y->bq);
        p->ready = first + v->batch_timeout_s;
        if (full) {
            double jb = y->reqs[p->members[b - 1]].pre_end;
            if (jb < p->ready)
                p->ready = jb;
        }
        p->disp = now;
        p->busy = 1;
        p->batch_no = y->nbatches++;
        y->nfree_reps--;
        account(y);
        y->held++;
        if (y->measuring) {
            y->batches_in_window++;
            y->batch_sum += (double)b;
        }
        double bytes = (double)b * v->request_bytes;
        int links[1] = {p->link};
        dam_link_flow_start(y->net, links, 1, bytes, 0.0, on_copy_done, y,
                            dam_des_u((uint64_t)ri), NULL, NULL);
    }
    /* A forming batch that is not full waits for its timeout. */
    if (y->bq.len > 0 && y->bq.len < (size_t)v->max_batch &&
        y->nfree_reps > 0) {
        double t = y->reqs[dam_slotq_at(&y->bq, 0)].pre_end + v->batch_timeout_s;
        if (y->timer && y->timer_t != t) {
            dam_des_cancel(y->des, y->timer);
            y->timer = 0;
        }
        if (!y->timer) {
            y->timer = dam_des_at(y->des, t, on_timer, y, dam_des_u(0));
            y->timer_t = t;
        }
    }
}

/* Per-replication results. */
typedef struct rep_out {
    double mean, p99, throughput, held, comp, cpu, attain, batch;
    double roof, ovh, events;
} rep_out;

static void setup_trace(sys *y, dam_trace *trace)
{
    const dam_serving *v = &y->s->serving;
    char name[48];
    y->nlanes_workers = v->preprocess_workers < 64 ? v->preprocess_workers : 64;
    y->worker_lane = dam_malloc(sizeof(int) * (size_t)(y->nlanes_workers + 1));
    for (int w = 0; w < y->nlanes_workers; w++) {
        snprintf(name, sizeof name, "host/preprocess%d", w);
        y->worker_lane[w] = dam_trace_lane_add(trace, name, DAM_TRACE_CPU);
    }
    for (int i = 0; i < y->nreps; i++) {
        snprintf(name, sizeof name, "replica%d/pcie", i);
        y->reps[i].pcie_lane = dam_trace_lane_add(trace, name,
                                                  DAM_TRACE_PCIE);
        snprintf(name, sizeof name, "replica%d/gpu", i);
        y->reps[i].gpu_lane = dam_trace_lane_add(trace, name, DAM_TRACE_GPU);
    }
}

/* Replications a serving simulation runs. */
static int opt_reps(const dam_scenario *s, const dam_sim_options *opt)
{
    int reps = opt->replications > 0 ? opt->replications
                                     : s->serving.replications;
    return reps < 1 ? 1 : reps;
}

static void replicate(const dam_scenario *s, const dam_sim_options *opt,
                      uint64_t seed, int k, long nreq, long warmup,
                      pool_stats *ps, dam_stats *rep_lat, dam_trace *trace,
                      rep_out *out)
{
    const dam_serving *v = &s->serving;
    const dam_machine *m = &s->machine;
    sys y;
    memset(&y, 0, sizeof y);
    y.s = s;
    y.des = dam_des_create();
    y.net = dam_link_net_create(y.des);
    y.arr_rng = dam_rng_create(seed, 8u * (uint64_t)k);
    y.pre_rng = dam_rng_create(seed, 8u * (uint64_t)k + 1);
    y.comp_rng = dam_rng_create(seed, 8u * (uint64_t)k + 2);
    y.pre_dist = (dam_dist){v->preprocess_dist, v->preprocess_s,
                            v->preprocess_cv, NULL, 0};
    y.comp_dist = (dam_dist){v->compute_dist, 1.0, s->workload.compute_cv,
                             NULL, 0};
    y.arrivals = v->arrival == DAM_ARRIVAL_TRACE ? opt->arrivals : NULL;
    y.nreq = nreq;
    y.warmup = warmup;
    y.progress = opt->progress;
    y.done_before = (double)k * nreq;
    y.total = (double)opt_reps(s, opt) * nreq;
    y.interval = v->rate > 0.0 ? 1.0 / v->rate : 0.0;
    y.slo = v->slo_p99_s;
    y.ps = ps;
    y.rep_lat = rep_lat;
    y.overhead = dam_analytic_overhead(s);
    y.roof_cache = dam_malloc(sizeof(double) * (size_t)(v->max_batch + 1));
    for (int b = 0; b <= v->max_batch; b++)
        y.roof_cache[b] = -1.0;

    /* Preprocessing pool. */
    y.free_workers = dam_malloc(sizeof(int) * (size_t)v->preprocess_workers);
    for (int w = v->preprocess_workers - 1; w >= 0; w--)
        y.free_workers[y.nfree_workers++] = w;

    /* Replicas and their PCIe links. */
    int share = m->gpus_per_pcie_link > 0 ? m->gpus_per_pcie_link : 1;
    y.xfer_bw = m->pcie_bw * (s->pipeline.pin_memory ? 1.0
                                                      : m->pageable_fraction);
    y.nreps = v->replicas;
    y.nfree_reps = v->replicas;
    y.reps = dam_calloc((size_t)v->replicas, sizeof *y.reps);
    int nlinks = (v->replicas + share - 1) / share;
    for (int l = 0; l < nlinks; l++)
        dam_link_add(y.net, y.xfer_bw, NULL);
    for (int i = 0; i < v->replicas; i++)
        y.reps[i].link = i / share;
    if (trace && opt->trace_steps > 0 && k == 0) {
        y.trace = trace;
        y.trace_steps = opt->trace_steps;
        setup_trace(&y, trace);
    }

    double first = y.arrivals ? y.arrivals[0] : 0.0;
    dam_des_at(y.des, first, on_arrive, &y, dam_des_u(0));
    dam_des_run(y.des);
    account(&y);

    double win = y.t_last - y.t0;
    out->mean = dam_stats_mean(rep_lat);
    dam_stat st;
    dam_stats_fill(rep_lat, &st);
    out->p99 = st.p99;
    out->throughput = win > 0.0 ? (double)y.completed_in_window / win : 0.0;
    double cap = win > 0.0 ? win : 1.0;
    out->held = y.area_held / (cap * v->replicas);
    out->comp = y.area_comp / (cap * v->replicas);
    out->cpu = y.area_cpu / (cap * v->preprocess_workers);
    out->attain = y.measured > 0 ? (double)y.within_slo / (double)y.measured
                                 : 0.0;
    out->batch = y.batches_in_window > 0
                     ? y.batch_sum / (double)y.batches_in_window
                     : 0.0;
    out->roof = y.measured > 0 ? y.sum_roof / (double)y.measured : 0.0;
    out->ovh = y.measured > 0 ? y.sum_ovh / (double)y.measured : 0.0;
    out->events = (double)dam_des_events(y.des);

    for (int i = 0; i < v->replicas; i++)
        dam_free(y.reps[i].members);
    dam_free(y.reps);
    dam_free(y.free_workers);
    dam_free(y.worker_lane);
    dam_free(y.roof_cache);
    dam_free(y.reqs);
    dam_free(y.free_slots.v);
    dam_free(y.preq.v);
    dam_free(y.bq.v);
    dam_rng_free(y.arr_rng);
    dam_rng_free(y.pre_rng);
    dam_rng_free(y.comp_rng);
    dam_link_net_free(y.net);
    dam_des_free(y.des);
}

/* Rounding in differences of event times leaves waits of order 1e-18 s
 * where there was none; below a picosecond a time is zero. */
static void clean(dam_stat *st)
{
    double *f[5] = {&st->p50, &st->p95, &st->p99, &st->min, &st->mean};
    for (int i = 0; i < 5; i++)
        if (fabs(*f[i]) < 1e-12)
            *f[i] = 0.0;
}

/* Weight-read and FLOP time of a batch of b: the two sides of the
 * roofline summed over phases (the weights part alone for the first). */
static void batch_sides(const dam_scenario *s, double b, double *wt,
                        double *ft)
{
    const dam_workload *w = &s->workload;
    double elem = dam_precision_bytes(w->precision);
    *wt = w->model.params * w->weight_scale * elem /
          (s->machine.gpu.mem_bw * dam_scenario_mem_frac(s));
    *ft = 0.0;
    dam_phase_result ph[DAM_MAX_PHASES];
    int n = 0;
    dam_compute cp;
    dam_analytic_compute(s, b, &cp, ph, &n);
    for (int i = 0; i < n; i++)
        *ft += ph[i].t_compute;
}

int dam_sim_serving_batches(const dam_scenario *s,
                            const dam_sim_options *opt, dam_result *r,
                            dam_trace *trace, dam_error *err)
{
    const dam_serving *v = &s->serving;
    long nreq, warmup;
    if (dam_sim_serving_window(s, opt, opt->arrivals ? opt->narrivals : 0,
                               "arrival times", &nreq, &warmup,
                               err) != DAM_OK)
        return DAM_EINPUT;
    dam_dist pd = {v->preprocess_dist, v->preprocess_s, v->preprocess_cv,
                   NULL, 0};
    dam_dist cd = {v->compute_dist, 1.0, s->workload.compute_cv, NULL, 0};
    if (dam_dist_check(&pd, err) != DAM_OK ||
        dam_dist_check(&cd, err) != DAM_OK)
        return DAM_EINPUT;
    int reps = opt_reps(s, opt);
    uint64_t seed = opt->have_seed ? opt->seed : s->seed;

    pool_stats ps;
    ps.lat = dam_stats_create();
    ps.preq = dam_stats_create();
    ps.data = dam_stats_create();
    for (int i = 0; i < DAM_SPHASE_COUNT; i++)
        ps.phase[i] = dam_stats_create();
    /* one replication: its CI from batches of its own requests */
    ps.bat = reps == 1 ? dam_batches_create() : NULL;
    dam_stats *rep_lat = dam_stats_create();
    rep_out *o = dam_calloc((size_t)reps, sizeof *o);
    double *x = dam_calloc((size_t)reps, sizeof *x);
    for (int k = 0; k < reps; k++) {
        dam_stats_reset(rep_lat);
        replicate(s, opt, seed, k, nreq, warmup, &ps, rep_lat, trace, &o[k]);
        dam_progress_report(opt->progress, (double)(k + 1) * nreq,
                            (double)reps * nreq);
    }

    /* Averages over replications. */
    rep_out avg;
    memset(&avg, 0, sizeof avg);
    for (int k = 0; k < reps; k++) {
        avg.throughput += o[k].throughput / reps;
        avg.held += o[k].held / reps;
        avg.comp += o[k].comp / reps;
        avg.cpu += o[k].cpu / reps;
        avg.attain += o[k].attain / reps;
        avg.batch += o[k].batch / reps;
        avg.roof += o[k].roof / reps;
        avg.ovh += o[k].ovh / reps;
        avg.events += o[k].events;
    }

    dam_serving_result *sv = &r->serving;
    dam_stats_fill(ps.lat, &sv->latency);
    for (int k = 0; k < reps; k++)
        x[k] = o[k].mean;
    dam_stat ci;
    dam_stats_replications(x, (size_t)reps, &ci, NULL);
    sv->latency.ci95 = ps.bat ? dam_batches_ci95(ps.bat, -1.0) : ci.ci95;
    for (int k = 0; k < reps; k++)
        x[k] = o[k].p99;
    dam_stats_replications(x, (size_t)reps, &ci, NULL);
    sv->p99_ci95 = ps.bat ? dam_batches_ci95(ps.bat, 0.99) : ci.ci95;
    for (int i = 0; i < DAM_SPHASE_COUNT; i++) {
        dam_stats_fill(ps.phase[i], &sv->phase[i]);
        clean(&sv->phase[i]);
    }
    dam_stats_fill(ps.preq, &sv->preprocess_queue);
    clean(&sv->preprocess_queue);
    sv->throughput = avg.throughput;
    sv->utilization = avg.held;
    sv->gpu_busy = avg.comp;
    sv->cpu_utilization = avg.cpu;
    sv->slo_attainment = avg.attain;
    sv->slo_s = v->slo_p99_s;
    sv->mean_batch = avg.batch;
    sv->compute_roof = avg.roof;
    sv->compute_overhead = avg.ovh;
    dam_serving_cost_per_1k(s, v->replicas, avg.throughput, avg.comp, sv);
    double b = avg.batch >= 1.0 ? avg.batch : 1.0;
    batch_sides(s, b, &sv->batch_weight_time, &sv->batch_flop_time);

    /* The dam_result's general fields. */
    r->has_sim = 1;
    r->replications = reps;
    r->sim_steps = (double)(nreq - warmup);
    r->sim_step = sv->latency;
    dam_stats_fill(ps.data, &r->sim_data_wait);
    r->sim_exposed_transfer = sv->phase[DAM_SPHASE_TRANSFER].mean;
    r->sim_exposed_comm = 0.0;
    r->events = avg.events;
    r->step = sv->latency.mean;
    r->terms[DAM_TERM_DATA] = sv->phase[DAM_SPHASE_QUEUE].mean +
                              sv->phase[DAM_SPHASE_BATCHING].mean +
                              sv->phase[DAM_SPHASE_PREPROCESS].mean;
    r->terms[DAM_TERM_TRANSFER] = sv->phase[DAM_SPHASE_TRANSFER].mean;
    /* The compute phase splits as the batches' roofline and overhead did;
     * the sums of the split equal the measured compute phase. */
    double cmp = sv->phase[DAM_SPHASE_COMPUTE].mean;
    double split = avg.roof + avg.ovh > 0.0 ? avg.roof / (avg.roof + avg.ovh)
                                            : 1.0;
    r->terms[DAM_TERM_COMPUTE] = cmp * split;
    r->terms[DAM_TERM_COMM] = 0.0;
    r->terms[DAM_TERM_WAIT] = 0.0; /* replicas serve one queue: nobody waits for a peer */
    r->terms[DAM_TERM_OVERHEAD] = cmp * (1.0 - split) +
                                  sv->phase[DAM_SPHASE_POSTPROCESS].mean;
    r->throughput = sv->throughput;
    r->tokens_per_s = sv->throughput * s->workload.model.seq_len;
    double peak = dam_scenario_peak(s);
    double fl = s->workload.model.flops_per_sample * s->workload.flops_scale;
    r->mfu = peak > 0.0 ? sv->throughput * fl / (v->replicas * peak) : 0.0;
    r->io_overhead = r->step > 0.0 ? r->terms[DAM_TERM_DATA] / r->step : 0.0;

    /* Accounting over the measured window, averaged over replications. */
    r->nstage_times = 0;
    double win = avg.throughput > 0.0 ? r->sim_steps / avg.throughput : 0.0;
    struct {
        const char *name;
        double busy;
        int n;
    } acc[3] = {{"preprocess", avg.cpu, v->preprocess_workers},
                {"replica (copy+compute)", avg.held, v->replicas},
                {"gpu compute", avg.comp, v->replicas}};
    for (int i = 0; i < 3; i++) {
        dam_stage_time *st = &r->stage_times[r->nstage_times++];
        memset(st, 0, sizeof *st);
        snprintf(st->name, sizeof st->name, "%s", acc[i].name);
        st->entities = acc[i].n;
        st->busy = acc[i].busy * win * acc[i].n;
        st->idle = (1.0 - acc[i].busy) * win * acc[i].n;
    }

    dam_free(x);
    dam_free(o);
    dam_stats_free(rep_lat);
    dam_batches_free(ps.bat);
    dam_stats_free(ps.lat);
    dam_stats_free(ps.preq);
    dam_stats_free(ps.data);
    for (int i = 0; i < DAM_SPHASE_COUNT; i++)
        dam_stats_free(ps.phase[i]);
    return DAM_OK;
}
