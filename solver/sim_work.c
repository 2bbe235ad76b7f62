/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_work.c: what a simulation will cost before it starts (issue 11:
 * bounded work and memory). The simulator dispatch (sim.c) checks it
 * before every simulation (dam_sim_llm again, for its direct callers) and
 * refuses, with the estimate and the option that lifts the limit, a run
 * beyond opt->max_events or opt->max_bytes; `damsim check` reports the
 * same refusal, so check rejects what run would. The windows a simulation
 * runs (warm-up and measured steps or requests) are here too, below the
 * simulators that use them.
 *
 * Work, in events. Training: about 7 events per GPU-step (the loader
 * worker's latency, read and decode ends, the copy end, the ends of
 * backward and of the optimizer, and a share of the network's one per
 * step); the gradient sync registers every bucket of every rank each step
 * and schedules every bucket once (bucket updates: about 1/20 of an event
 * each, measured); empirical decode draws one value per sample (1/20 of an
 * event each). Serving: about 8 events per request (arrival, preprocess
 * start and end, batching, dispatch, copy, compute and postprocess ends).
 * LLM serving (sim_llm.c) estimates its own: an iteration per output
 * token and prompt chunk of a mean request, as if none were batched.
 * A parallel layout (sim_parallel.c) simulates one entity per pipeline
 * stage of one replica (all dp replicas with compute jitter): about 8
 * events per forward or backward of a micro-batch and chunk.
 * Every replication repeats it all. Measured on the flagship: 6.4 events
 * per GPU-step; a bucket update costs 5 ns where an event costs 100 to
 * 300 ns.
 *
 * Memory, in bytes: a loader worker or a GPU holds its own MT19937 stream
 * (about 5 KB) and its state (6 KB each, measured: 2,048 GPUs with 16,384
 * workers peak at 105 MB); a prefetch queue 16 bytes a slot; buckets 24
 * bytes; serving keeps every request in flight (48 bytes), which in an
 * overloaded system is all of them. A base of 32 MB covers the program.
 */
#include "solver/sim.h"

#include <math.h>
#include <stdio.h>

#include "solver/analytic.h"

#define EVENTS_PER_GPU_STEP 7.0
#define EVENT_PER_UPDATE (1.0 / 20.0)
#define EVENTS_PER_REQUEST 8.0
#define BYTES_PER_ENTITY 6144.0
#define BYTES_BASE (32.0 * 1024 * 1024)

void dam_sim_work(const dam_scenario *s, const dam_sim_options *opt,
                  dam_sim_cost *w)
{
    static const dam_sim_options none = {.warmup = -1};
    if (!opt)
        opt = &none;
    const dam_machine *m = &s->machine;
    w->events = 0.0;
    w->bytes = BYTES_BASE;
    if (s->mode == DAM_MODE_SERVING && s->serving.llm.enabled) {
        /* sim_llm.c: its own estimate (iterations as if none were
         * batched); every request may be in flight (a slot of about 100
         * bytes), each replica holds its running lists, and ten latency
         * histograms grow by 8 KiB per binade they span */
        const dam_serving *v = &s->serving;
        const dam_llm *q = &v->llm;
        double nreq = opt->steps > 0 ? opt->steps : v->requests;
        if (v->arrival == DAM_ARRIVAL_TRACE && opt->requests &&
            (opt->steps <= 0 || nreq > (double)opt->nrequests))
            nreq = (double)opt->nrequests;
        double reps = q->disaggregated
                          ? q->prefill_replicas + q->decode_replicas
                          : v->replicas;
        w->events = dam_sim_llm_events(s, opt);
        w->bytes += nreq * 104.0 + reps * (160.0 + 12.0 * q->max_seqs) +
                    10.0 * 16.0 * 8192.0;
        return;
    }
    if (s->mode == DAM_MODE_SERVING) {
        const dam_serving *v = &s->serving;
        double reps = opt->replications > 0 ? opt->replications
                                            : v->replications;
        double nreq = opt->steps > 0 ? opt->steps : v->requests;
        if (v->arrival == DAM_ARRIVAL_TRACE && opt->arrivals &&
            (opt->steps <= 0 || nreq > (double)opt->narrivals))
            nreq = (double)opt->narrivals;
        w->events = reps * nreq * EVENTS_PER_REQUEST;
        w->bytes += nreq * 48.0 + (double)v->replicas *
                    (256.0 + 8.0 * v->max_batch) +
                    16.0 * v->preprocess_workers + 8.0 * v->max_batch;
        return;
    }
    if (s->layout.on) {
        /* sim_parallel.c: one entity per pipeline stage of each simulated
         * replica (one, two with a straggler, all dp with compute jitter),
         * a forward and a backward of every micro-batch and chunk per
         * step, each a handful of events with its flows */
        const dam_layout *l = &s->layout;
        double reps = opt->replications > 0 ? opt->replications
                                            : s->pipeline.replications;
        double warm = opt->warmup >= 0 ? opt->warmup
                                       : s->pipeline.warmup_steps;
        double steps = opt->steps > 0 ? opt->steps : s->pipeline.steps;
        double sim_dp = s->workload.compute_cv > 0.0 ? l->dp
                        : opt->slow_decode > 0.0     ? 2.0
                                                     : 1.0;
        double ops = 2.0 * l->micro_batches * (l->vpp > 0 ? l->vpp : 1);
        w->events = reps * (warm + steps) * sim_dp * l->pp * ops * 8.0;
        w->bytes += sim_dp * l->pp * (BYTES_PER_ENTITY + 64.0 * ops);
        return;
    }
    double G = (double)dam_scenario_gpus(s);
    int W = s->pipeline.loader_workers;
    int warm, steps;
    dam_sim_window(W, opt->warmup >= 0 ? opt->warmup
                                       : s->pipeline.warmup_steps,
                   opt->steps > 0 ? opt->steps : s->pipeline.steps, &warm,
                   &steps);
    double reps = opt->replications > 0 ? opt->replications
                                        : s->pipeline.replications;
    double gsteps = reps * G * ((double)warm + steps);
    double nb = 0.0;
    if (s->mode == DAM_MODE_TRAINING && G > 1.0 &&
        s->pipeline.bucket_bytes > 0.0)
        nb = fmax(1.0, ceil(dam_analytic_grad_bytes(s) /
                            s->pipeline.bucket_bytes));
    double per_step = EVENTS_PER_GPU_STEP + nb * EVENT_PER_UPDATE;
    if (s->data.decode_dist == DAM_DIST_EMPIRICAL && !s->data.decode_on_gpu)
        per_step += s->workload.batch_size * EVENT_PER_UPDATE;
    w->events = gsteps * per_step + reps * ((double)warm + steps) * nb *
                EVENT_PER_UPDATE;
    double workers = G * (W > 0 ? W : 1);
    double queue = W > 0 ? (double)s->pipeline.prefetch_factor * W : 0.0;
    w->bytes += BYTES_PER_ENTITY * (workers + G) + 16.0 * G * queue +
                64.0 * G + 24.0 * nb + 512.0 * m->nodes;
}

int dam_sim_work_check(const dam_scenario *s, const dam_sim_options *opt,
                       dam_error *err)
{
    if (!opt || (opt->max_events <= 0.0 && opt->max_bytes <= 0.0))
        return DAM_OK;
    dam_sim_cost w;
    dam_sim_work(s, opt, &w);
    int over_e = opt->max_events > 0.0 && w.events > opt->max_events;
    int over_b = opt->max_bytes > 0.0 && w.bytes > opt->max_bytes;
    if (!over_e && !over_b)
        return DAM_OK;
    char lim[160];
    if (over_e && over_b)
        snprintf(lim, sizeof lim, "beyond both limits, %.2g events "
                 "(--max-events N) and %.3g GB (--max-memory GB)",
                 opt->max_events, opt->max_bytes / 1e9);
    else if (over_e)
        snprintf(lim, sizeof lim, "beyond the limit of %.2g events (raise "
                 "it with --max-events N)", opt->max_events);
    else
        snprintf(lim, sizeof lim, "beyond the limit of %.3g GB (raise it "
                 "with --max-memory GB)", opt->max_bytes / 1e9);
    return dam_error_set(err, s->file, 0,
                         "this simulation would take about %.2g events "
                         "(roughly %.0f s at 5 million events/s) and %.3g GB "
                         "of memory, %s; or shorten it (fewer %s or "
                         "replications, fewer nodes%s), or use --analytic",
                         w.events, w.events / 5e6, w.bytes / 1e9, lim,
                         s->mode == DAM_MODE_SERVING ? "requests" : "steps",
                         s->mode == DAM_MODE_SERVING
                             ? ""
                             : ", loader workers or gradient buckets");
}

/* ---- the windows a simulation runs, and the LLM estimate ------------- */

/* Round the warm-up and the measured steps up to whole bursts of W loader
 * workers (the measured window, in the design note). */
void dam_sim_window(int W, int warm, int steps, int *warm_eff,
                    int *steps_eff)
{
    if (W >= 1) {
        /* the first burst fills the pipeline: never measured */
        warm = warm < W ? W : (warm + W - 1) / W * W;
        steps = (steps + W - 1) / W * W;
    }
    *warm_eff = warm;
    *steps_eff = steps;
}

int dam_sim_serving_window(const dam_scenario *s, const dam_sim_options *opt,
                           size_t ntrace, const char *what, long *nreq,
                           long *warm, dam_error *err)
{
    const dam_serving *v = &s->serving;
    long n = opt->steps > 0 ? opt->steps : (long)v->requests;
    if (v->arrival == DAM_ARRIVAL_TRACE) {
        if (ntrace == 0)
            return dam_error_set(err, s->file, 0,
                                 "serving.arrival = \"trace\" but no %s "
                                 "were loaded from \"%s\"",
                                 what, v->trace);
        if (opt->steps <= 0 || (size_t)n > ntrace)
            n = (long)ntrace;
    } else if (!(v->rate > 0.0)) {
        return dam_error_set(err, s->file, 0,
                             "serving.rate_per_s must be > 0, got %g",
                             v->rate);
    }
    if (n < 1)
        n = 1;
    long w = opt->warmup > 0 ? opt->warmup : n / 10;
    if (w >= n)
        w = n - 1;
    *nreq = n;
    *warm = w;
    return DAM_OK;
}

double dam_sim_llm_events(const dam_scenario *s, const dam_sim_options *opt)
{
    static const dam_sim_options none;
    if (!opt)
        opt = &none;
    const dam_llm *q = &s->serving.llm;
    double n = opt->steps > 0 ? opt->steps : s->serving.requests;
    if (s->serving.arrival == DAM_ARRIVAL_TRACE && opt->nrequests > 0 &&
        (opt->steps <= 0 || (double)opt->nrequests < n))
        n = (double)opt->nrequests;
    int reps = opt->replications > 0 ? opt->replications
                                     : s->serving.replications;
    double chunk = q->chunked_prefill ? q->chunk_tokens : q->token_budget;
    /* an arrival, a transfer, and at worst (no batching at all) one
     * iteration per output token and per prompt chunk of a mean request */
    double per = 2.0 + q->output.mean + ceil(q->input.mean / chunk);
    /* and the offline run beside it (one replication) */
    double runs = (reps > 0 ? reps : 1) + (opt->llm_offline ? 1 : 0);
    return runs * n * per;
}
