/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * diagnose_serving.c: the D·A·M diagnosis of a simulated serving scenario
 * (diagnose.h). The diagnostic matrix's row "High Latency (P99): confirm
 * with phase p99 and queue depth, optimise the dominant phase" is the
 * method: the largest mean phase of a request names what binds, and every
 * lever is judged by the phase it moves against the SLO.
 *
 * Four serving regimes are named, each with its numbers:
 *  - latency-bound: a batch of one (or a small one) whose compute is
 *    mostly launches and framework overhead, or a batching wait that the
 *    load never fills (the timeout binds);
 *  - queueing: the wait for a free replica dominates (utilisation near 1);
 *  - preprocessing-bound: the CPU side (preprocess service plus the wait
 *    for a worker) is the largest phase, the pool saturated or not;
 *  - weight-bandwidth-bound: compute dominates and at the mean batch the
 *    weight reads (weights / BW) take longer than the FLOPs.
 * A faster GPU only moves the compute phase: the report says what the
 * other phases leave even with inference at zero and what a GPU 30 %
 * faster at inference would give (the reference's 10 ms -> 7 ms).
 * Nothing here prints; the numbers come from the result.
 */
#include "solver/diagnose.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/lever.h"

/* Milliseconds, 3 significant digits. */
static double ms(double s)
{
    return s * 1e3;
}

/* A duration for a headline, 3 digits and no exponent: "8.28 ms",
 * "1.15 s", "2070 s". */
static const char *dur(char *buf, size_t n, double s)
{
    if (s >= 1.0)
        snprintf(buf, n, s >= 1000.0 ? "%.0f s" : "%.3g s", s);
    else
        snprintf(buf, n, "%.3g ms", s * 1e3);
    return buf;
}

/* The split of a request's mean latency into the contributions a bound
 * is chosen from. */
typedef struct parts {
    double cpu;      /* preprocess + wait for a worker */
    double gpuq;     /* wait for a replica */
    double batching; /* wait for the batch to fill or time out */
    double transfer; /* host-to-device copy */
    double compute;  /* the batch's compute */
    double post;     /* postprocess */
    double lat;      /* mean latency */
} parts;

static void split(const dam_result *r, parts *p)
{
    const dam_serving_result *sv = &r->serving;
    double preq = sv->preprocess_queue.mean;
    p->cpu = sv->phase[DAM_SPHASE_PREPROCESS].mean + preq;
    p->gpuq = sv->phase[DAM_SPHASE_QUEUE].mean - preq;
    if (p->gpuq < 0.0)
        p->gpuq = 0.0;
    p->batching = sv->phase[DAM_SPHASE_BATCHING].mean;
    p->transfer = sv->phase[DAM_SPHASE_TRANSFER].mean;
    p->compute = sv->phase[DAM_SPHASE_COMPUTE].mean;
    p->post = sv->phase[DAM_SPHASE_POSTPROCESS].mean;
    p->lat = sv->latency.mean;
}

/* Which contribution is largest: 0 cpu, 1 gpuq, 2 batching, 3 transfer,
 * 4 compute, 5 post (ties go to the earlier one). */
static int largest(const parts *p)
{
    double v[6] = {p->cpu, p->gpuq, p->batching, p->transfer, p->compute,
                   p->post};
    int best = 0;
    for (int i = 1; i < 6; i++)
        if (v[i] > v[best] * (1.0 + 1e-9))
            best = i;
    return best;
}

dam_bound dam_diagnose_serving_bound(const dam_scenario *s,
                                     const dam_result *r)
{
    const dam_serving_result *sv = &r->serving;
    parts p;
    split(r, &p);
    switch (largest(&p)) {
    case 0: return DAM_BOUND_PREPROCESS;
    case 1: return DAM_BOUND_QUEUEING;
    case 2: return DAM_BOUND_LATENCY;
    case 3: return DAM_BOUND_TRANSFER;
    case 5: return DAM_BOUND_LATENCY;
    default: break;
    }
    double c = sv->compute_roof + sv->compute_overhead;
    if (c > 0.0 && sv->compute_overhead >= 0.5 * c)
        return DAM_BOUND_LATENCY;
    if (sv->batch_weight_time > sv->batch_flop_time)
        return DAM_BOUND_WEIGHTS;
    int mem = 0;
    for (int i = 0; i < r->nphases; i++)
        mem += r->phases[i].memory_bound;
    return r->nphases > 0 && 2 * mem > r->nphases ? DAM_BOUND_MEMORY
                                                    : DAM_BOUND_COMPUTE;
}


static const char *const part_names[6] = {
    "preprocessing (CPU)", "queue wait for a replica", "batching wait",
    "host-to-device transfer", "inference (compute)", "postprocessing"};

/* Drop advice on levers the lever table says are not valid in s's mode
 * (a lever listed as working must be one a what-if can apply). */
static void keep_valid(dam_advice *a, int *n, const dam_scenario *s)
{
    int k = 0;
    for (int i = 0; i < *n; i++) {
        const dam_lever_type *t = dam_lever_type_get(a[i].kind);
        if (t && (t->modes & DAM_MODE_BIT(s->mode)))
            a[k++] = a[i];
    }
    *n = k;
}

/* What every step of the serving diagnosis reads: the mean request's
 * phases, the largest, and the figures the sentences compare. */
typedef struct view {
    parts p;
    int big;        /* the largest phase (part_names) */
    double pv[6];   /* the phases in part_names' order, s */
    double lat;     /* mean latency (1 when none), s */
    double slo;     /* the p99 objective, s */
    double p99;     /* measured p99, s */
    int meets;      /* the SLO is met */
    double rest;    /* the latency without inference, s */
    double faster;  /* with inference 30 % faster, s */
    double c;       /* compute of the mean batch, s */
} view;

/* The headline: what binds, by how much, against the SLO. */
static void headline(const dam_scenario *s, const dam_result *r,
                     const view *x, dam_diagnosis *d)
{
    (void)s;
    const char *regime;
    switch (r->bound) {
    case DAM_BOUND_PREPROCESS: regime = "preprocessing-bound"; break;
    case DAM_BOUND_QUEUEING: regime = "queueing"; break;
    case DAM_BOUND_WEIGHTS: regime = "weight-bandwidth-bound"; break;
    case DAM_BOUND_LATENCY: regime = "latency-bound"; break;
    case DAM_BOUND_TRANSFER: regime = "transfer-bound"; break;
    case DAM_BOUND_MEMORY: regime = "memory-bound"; break;
    default: regime = "compute-bound"; break;
    }
    char a[32], b[32], c[32], e[32];
    snprintf(d->headline, sizeof d->headline,
             "%s: %s is the largest phase, %s of %s (%.0f %%); p99 %s %s "
             "the %s SLO",
             regime, part_names[x->big], dur(a, sizeof a, x->pv[x->big]),
             dur(b, sizeof b, x->p.lat), x->pv[x->big] / x->lat * 100.0,
             dur(c, sizeof c, x->p99),
             x->meets                ? "meets"
             : x->p99 <= x->slo ? "is too close to"
                                : "misses",
             dur(e, sizeof e, x->slo));
}

/* Evidence: the phases of the mean request, the latency against the
 * SLO, the load and the batch's compute. */
static void evidence(const dam_scenario *s, const dam_result *r,
                     const view *x, dam_diagnosis *d)
{
    const dam_serving_result *sv = &r->serving;
    const dam_serving *v = &s->serving;
    dam_diagnose_add(d->evidence, &d->nevidence,
        "mean per request: queue %.3g ms (CPU worker %.3g, replica %.3g), "
        "batching %.3g, preprocess %.3g, transfer %.3g, compute %.3g, "
        "postprocess %.3g ms",
        ms(sv->phase[DAM_SPHASE_QUEUE].mean), ms(sv->preprocess_queue.mean),
        ms(x->p.gpuq), ms(x->p.batching),
        ms(sv->phase[DAM_SPHASE_PREPROCESS].mean),
        ms(x->p.transfer), ms(x->p.compute), ms(x->p.post));
    dam_diagnose_add(d->evidence, &d->nevidence,
        "end to end: mean %.3g ms, p50 %.3g, p95 %.3g, p99 %.3g +- %.2g ms; "
        "%.1f %% of requests within %.3g ms",
        ms(x->p.lat), ms(sv->latency.p50), ms(sv->latency.p95), ms(x->p99),
        ms(sv->p99_ci95), sv->slo_attainment * 100.0, ms(x->slo));
    dam_diagnose_add(d->evidence, &d->nevidence,
        "a GPU 30 %% faster at inference (%.3g -> %.3g ms) gives about %.3g "
        "ms; with inference at zero the other phases still take %.3g ms "
        "(%s the %.3g ms SLO)",
        ms(x->p.compute), ms(0.7 * x->p.compute), ms(x->faster), ms(x->rest),
        x->rest >= x->slo ? "not under" : "under", ms(x->slo));
    dam_diagnose_add(d->evidence, &d->nevidence,
        "load: %.4g requests/s; replicas held %.0f %% (computing %.0f %%), "
        "CPU pool %.0f %% busy (%d workers); mean batch %.2g of %d",
        sv->throughput, sv->utilization * 100.0, sv->gpu_busy * 100.0,
        sv->cpu_utilization * 100.0, v->preprocess_workers, sv->mean_batch,
        v->max_batch);
    dam_diagnose_add(d->evidence, &d->nevidence,
        "compute of the mean batch: weight reads %.3g ms, FLOPs %.3g ms, "
        "launch + framework %.3g ms; a batch of one takes %.3g ms, of %d "
        "%.3g ms",
        ms(sv->batch_weight_time), ms(sv->batch_flop_time),
        ms(sv->compute_overhead), ms(sv->t_batch1), v->max_batch,
        ms(sv->t_batch_max));
    if (r->memory.capacity > 0.0)
        dam_diagnose_add(d->evidence, &d->nevidence,
            "memory per replica %.3g GiB of %.3g GiB (%s)",
            r->memory.total / DAM_GIB, r->memory.capacity / DAM_GIB,
            r->memory.fits ? "fits" : "does not fit");
}

/* Symptoms (the diagnostic matrix). */
static void symptoms(const dam_scenario *s, const dam_result *r,
                     const view *x, dam_diagnosis *d)
{
    const dam_serving_result *sv = &r->serving;
    const dam_serving *v = &s->serving;
    if (!x->meets)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
            "high latency (P99 %.3g ms vs SLO %.3g ms): optimise the dominant "
            "phase, %s (%.3g ms)",
            ms(x->p99), ms(x->slo), part_names[x->big], ms(x->pv[x->big]));
    if (sv->cpu_utilization > 0.9)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
            "CPU preprocessing pool saturated (%.0f %% busy): requests wait "
            "%.3g ms for a worker",
            sv->cpu_utilization * 100.0, ms(sv->preprocess_queue.mean));
    if (sv->utilization > 0.8)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
            "replicas %.0f %% busy: queue wait grows as 1/(1 - utilisation)",
            sv->utilization * 100.0);
    if (v->max_batch == 1 && x->c > 0.0 && sv->compute_overhead > 0.3 * x->c)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
            "batch size one: launches and framework are %.0f %% of compute",
            sv->compute_overhead / x->c * 100.0);
    if (x->p.batching > 0.1 * x->lat && sv->mean_batch < 0.5 * v->max_batch)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
            "batches leave at the %.3g ms timeout holding %.2g of %d "
            "requests: the load does not fill them",
            ms(v->batch_timeout_s), sv->mean_batch, v->max_batch);
    if (!r->memory.fits)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
            "out of memory: %.1f GiB needed, %.1f GiB on the GPU",
            r->memory.total / DAM_GIB, r->memory.capacity / DAM_GIB);
}

/* The scorecard: SLO attainment, utilisations, MFU, launches, memory. */
static void scorecard(const dam_scenario *s, const dam_result *r,
                      const view *x, dam_diagnosis *d)
{
    (void)s;
    const dam_serving_result *sv = &r->serving;
    char a[32];
    snprintf(a, sizeof a, "%.2f %%", sv->slo_attainment * 100.0);
    dam_diagnose_score(d, "Machine", "SLO attainment", sv->slo_attainment, a,
          "investigate < 99 %, strong >= 99.9 %",
          sv->slo_attainment < 0.99     ? DAM_SCORE_INVESTIGATE
          : sv->slo_attainment >= 0.999 ? DAM_SCORE_STRONG
                                        : DAM_SCORE_OK);
    snprintf(a, sizeof a, "%.1f %%", sv->utilization * 100.0);
    dam_diagnose_score(d, "Machine", "replica utilisation", sv->utilization, a,
          "investigate > 80 % (queueing), strong 40-70 %",
          sv->utilization > 0.80 ? DAM_SCORE_INVESTIGATE
          : sv->utilization >= 0.40 && sv->utilization <= 0.70
              ? DAM_SCORE_STRONG
              : DAM_SCORE_OK);
    snprintf(a, sizeof a, "%.1f %%", sv->cpu_utilization * 100.0);
    dam_diagnose_score(d, "Data", "CPU pool utilisation", sv->cpu_utilization, a,
          "investigate > 80 %, strong < 60 %",
          sv->cpu_utilization > 0.80   ? DAM_SCORE_INVESTIGATE
          : sv->cpu_utilization < 0.60 ? DAM_SCORE_STRONG
                                       : DAM_SCORE_OK);
    dam_diagnose_score_mfu(d, r);
    double ls = x->c > 0.0 ? sv->compute_overhead / x->c : 0.0;
    snprintf(a, sizeof a, "%.1f %%", ls * 100.0);
    dam_diagnose_score(d, "Algorithm", "launch share of compute", ls, a,
          "investigate > 30 %, strong < 5 %",
          ls > 0.30   ? DAM_SCORE_INVESTIGATE
          : ls < 0.05 ? DAM_SCORE_STRONG
                      : DAM_SCORE_OK);
    dam_diagnose_score_memory(d, r);
}

/* Levers, each judged by the phase it moves; the anti-pattern; advice
 * only on levers valid in the mode. */
static void levers(const dam_scenario *s, const dam_result *r,
                   const view *x, dam_diagnosis *d)
{
    const dam_serving_result *sv = &r->serving;
    const dam_serving *v = &s->serving;
    int compute_binds = x->big == 4;
    int weights = r->bound == DAM_BOUND_WEIGHTS;
    if (compute_binds && x->rest < x->slo)
        dam_diagnose_advise(d, DAM_LEVER_GPU, 1,
               "inference is the largest phase (%.3g of %.3g ms); the rest "
               "leaves %.3g ms under the SLO%s",
               ms(x->p.compute), ms(x->p.lat), ms(x->slo - x->rest),
               weights ? "; pick a GPU with more HBM bandwidth, not FLOP/s"
                       : "");
    else if (compute_binds)
        dam_diagnose_advise(d, DAM_LEVER_GPU, 0,
               "inference binds, but the other phases alone take %.3g ms, "
               "not under the %.3g ms SLO",
               ms(x->rest), ms(x->slo));
    else
        dam_diagnose_advise(d, DAM_LEVER_GPU, 0,
               "inference is %.3g of %.3g ms (%.0f %%): a 30 %% faster GPU "
               "gives ~%.3g ms; %s binds, and without inference %.3g ms "
               "remain",
               ms(x->p.compute), ms(x->p.lat), x->p.compute / x->lat * 100.0,
               ms(x->faster),
               part_names[x->big], ms(x->rest));
    /* A request's latency is the sum of its phases: a lever works where
     * what it removes is a material part of a request (5 %), binding or
     * not (the what-if judges its options the same way: 2 % faster
     * works); the largest phase is said beside it. */
    double roof = sv->compute_roof, ovh = sv->compute_overhead;
    int algo = roof >= 0.05 * x->lat;
    char where[96] = "";
    if (!compute_binds)
        snprintf(where, sizeof where, ", though %s is the largest phase",
                 part_names[x->big]);
    if (algo) {
        dam_diagnose_advise(d, DAM_LEVER_QUANTIZE, 1,
               "narrower weights shorten inference's own work (%.3g of "
               "%.3g ms per request, of which weight reads %.3g ms)%s",
               ms(roof), ms(x->p.lat), ms(sv->batch_weight_time), where);
        dam_diagnose_advise(d, DAM_LEVER_PRUNE, 1,
               "fewer weights and FLOPs shorten inference's own work (%.3g "
               "of %.3g ms per request)%s", ms(roof), ms(x->p.lat), where);
        dam_diagnose_advise(d, DAM_LEVER_DISTILL, 1,
               "a smaller student shortens inference's own work (%.3g of "
               "%.3g ms per request)%s", ms(roof), ms(x->p.lat), where);
    } else {
        for (int k = 0; k < 3; k++)
            dam_diagnose_advise(d, k == 0   ? DAM_LEVER_QUANTIZE
                                   : k == 1 ? DAM_LEVER_PRUNE
                                            : DAM_LEVER_DISTILL, 0,
                   "inference's own work (%.3g ms, weight reads and FLOPs) "
                   "is %.1f %% of %.3g ms per request: too little to pay",
                   ms(roof), roof / x->lat * 100.0, ms(x->p.lat));
    }
    int launches = x->c > 0.0 && ovh >= 0.3 * x->c && ovh >= 0.05 * x->lat;
    double lshare = x->c > 0.0 ? ovh / x->c * 100.0 : 0.0;
    if (launches) {
        dam_diagnose_advise(d, DAM_LEVER_CUDA_GRAPHS, 1,
               "launches and framework are %.0f %% of compute (%.3g of "
               "%.3g ms per request): one graph launch per batch%s",
               lshare, ms(ovh), ms(x->p.lat), where);
        dam_diagnose_advise(d, DAM_LEVER_FUSE, 1,
               "fusion removes launches (%.0f %% of compute, %.3g of %.3g "
               "ms per request)%s", lshare, ms(ovh), ms(x->p.lat), where);
    } else {
        for (int k = 0; k < 2; k++)
            dam_diagnose_advise(d, k ? DAM_LEVER_FUSE : DAM_LEVER_CUDA_GRAPHS,
                   0, "launches and framework are %.0f %% of compute, %.1f "
                      "%% of %.3g ms per request: too little to pay",
                   lshare, ovh / x->lat * 100.0, ms(x->p.lat));
    }
    /* The serving lever: replicas, preprocess workers, batching. */
    if (x->big == 1 || sv->utilization > 0.8)
        dam_diagnose_advise(d, DAM_LEVER_SERVING, 1,
               "replicas: %.0f %% busy, requests wait %.3g ms for one",
               sv->utilization * 100.0, ms(x->p.gpuq));
    else if (x->big == 0 && sv->cpu_utilization > 0.8)
        dam_diagnose_advise(d, DAM_LEVER_SERVING, 1,
               "preprocess workers: the pool is %.0f %% busy and requests "
               "wait %.3g ms for a worker",
               sv->cpu_utilization * 100.0, ms(sv->preprocess_queue.mean));
    else if (x->p.batching > 0.1 * x->lat)
        dam_diagnose_advise(d, DAM_LEVER_SERVING, 1,
               "batching: the timeout of %.3g ms adds %.3g ms per request at "
               "a mean batch of %.2g; cut batch_timeout or max_batch",
               ms(v->batch_timeout_s), ms(x->p.batching), sv->mean_batch);
    else if (weights && v->max_batch < 2)
        dam_diagnose_advise(d, DAM_LEVER_SERVING, 1,
               "batching: weights are read once per batch (%.3g ms); a "
               "larger max_batch amortises them across requests",
               ms(sv->batch_weight_time));
    else
        dam_diagnose_advise(d, DAM_LEVER_SERVING, 0,
               "no queue (%.3g ms), batching wait (%.3g ms) or saturated "
               "pool (%.0f %%) to relieve",
               ms(x->p.gpuq), ms(x->p.batching), sv->cpu_utilization * 100.0);
    dam_diagnose_advise(d, DAM_LEVER_DATA_FORMAT, x->big == 0,
           x->big == 0 ? "preprocessing binds (%.3g ms): move decode to "
                         "the GPU or make it cheaper" :
                      "preprocessing (%.3g ms) does not bind",
           ms(x->p.cpu));

    const char *ap = NULL;
    if (!compute_binds)
        ap = x->big == 0 ? "the hardware crutch: a faster GPU behind slow "
                        "preprocessing just idles faster"
                      : "a faster GPU for a phase that is not inference";
    else if (weights)
        ap = "more FLOP/s for a weight-bandwidth-bound batch";
    else if (r->bound == DAM_BOUND_LATENCY)
        ap = "more compute or bandwidth for a latency-bound batch";
    snprintf(d->anti_pattern, sizeof d->anti_pattern, "%s", ap ? ap : "");
    keep_valid(d->works, &d->nworks, s);
    keep_valid(d->wasted, &d->nwasted, s);
}

void dam_diagnose_serving(const dam_scenario *s, const dam_result *r,
                          dam_diagnosis *d)
{
    memset(d, 0, sizeof *d);
    const dam_serving_result *sv = &r->serving;
    view x;
    split(r, &x.p);
    x.big = largest(&x.p);
    double pv[6] = {x.p.cpu, x.p.gpuq, x.p.batching, x.p.transfer,
                    x.p.compute, x.p.post};
    memcpy(x.pv, pv, sizeof pv);
    x.lat = x.p.lat > 0.0 ? x.p.lat : 1.0;
    x.slo = s->serving.slo_p99_s;
    x.p99 = sv->latency.p99;
    x.meets = dam_serving_slo_met(sv);
    x.rest = x.p.lat - x.p.compute;
    x.faster = x.p.lat - 0.3 * x.p.compute;
    x.c = sv->compute_roof + sv->compute_overhead;
    d->bound = r->bound;
    snprintf(d->axis, sizeof d->axis, "%s", dam_bound_axis(r->bound));
    headline(s, r, &x, d);
    evidence(s, r, &x, d);
    symptoms(s, r, &x, d);
    scorecard(s, r, &x, d);
    levers(s, r, &x, d);
}

int dam_diagnose_serving_change(const dam_result *a, const dam_result *b,
                                char *buf, size_t n)
{
    const dam_serving_result *x = &a->serving, *y = &b->serving;
    int best = 0;
    double most = -1.0;
    for (int i = 0; i < DAM_SPHASE_COUNT; i++) {
        double dlt = y->phase[i].mean - x->phase[i].mean;
        if (dlt < 0.0)
            dlt = -dlt;
        if (dlt > most) {
            most = dlt;
            best = i;
        }
    }
    double slo = y->slo_s;
    int ma = x->latency.p99 + x->p99_ci95 <= slo * (1.0 + 1e-9);
    int mb = dam_serving_slo_met(y);
    snprintf(buf, n,
             "p99 %.3g ms -> %.3g ms against a %.3g ms SLO (%s -> %s): the "
             "%s phase changed most, mean %.3g ms -> %.3g ms",
             ms(x->latency.p99), ms(y->latency.p99), ms(slo),
             ma ? "meets" : "misses", mb ? "meets" : "misses",
             dam_serving_phase_name(best), ms(x->phase[best].mean),
             ms(y->phase[best].mean));
    return best;
}
