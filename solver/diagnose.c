/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * diagnose.c: binding axis, evidence, scorecard and lever advice of a
 * training or inference step, built of diagnose_score.c's pieces (see
 * diagnose.h). The thresholds are the reference texts' screening signals:
 * I/O overhead investigate above 10 %, strong below 1 %; MFU investigate
 * below 30 % (large models), strong above 50 %; accelerator utilisation
 * below 80 % suggests starvation. Which levers work comes from the lever
 * table (model/lever.h: the bounds each type relieves, refined by the
 * scenario's state), after "What Works vs. What Is Wasted": a memory-bound
 * step gains nothing from more FLOP/s, a compute-bound one nothing from more
 * bandwidth, a latency-bound one nothing from either, and a data-bound one
 * nothing from the GPU at all.
 */
#include "solver/diagnose.h"

#include "model/lever.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The share of the step the stage behind bound b takes, and its name: the
 * whole stage for a stage that runs on its own (loader, copy stream), the
 * exposed term otherwise. */
static double bound_share(const dam_result *r, dam_bound b, const char **what)
{
    double step = r->step > 0.0 ? r->step : 1.0;
    switch (b) {
    case DAM_BOUND_DATA:
        *what = "the loader's time per batch";
        return (r->t_data > r->terms[DAM_TERM_DATA] ? r->t_data
                                                     : r->terms[DAM_TERM_DATA])
               / step * 100.0;
    case DAM_BOUND_TRANSFER:
        *what = "the host-to-device copy";
        return (r->t_transfer > r->terms[DAM_TERM_TRANSFER]
                    ? r->t_transfer
                    : r->terms[DAM_TERM_TRANSFER]) / step * 100.0;
    case DAM_BOUND_COMM:
        *what = "exposed communication";
        return r->terms[DAM_TERM_COMM] / step * 100.0;
    case DAM_BOUND_LATENCY:
        *what = "overhead";
        return r->terms[DAM_TERM_OVERHEAD] / step * 100.0;
    case DAM_BOUND_PREPROCESS: /* serving: the CPU's part of a request */
        *what = "preprocessing";
        return r->terms[DAM_TERM_DATA] / step * 100.0;
    default:
        *what = "GPU work";
        return r->terms[DAM_TERM_COMPUTE] / step * 100.0;
    }
}

/* Why a lever type works or not, in one line with the numbers: what it
 * moves (the lever table's phrase) against what binds. */
static void reason(const dam_scenario *s, const dam_result *r,
                   dam_lever_kind k, int works, char *buf, size_t n)
{
    const dam_lever_type *t = dam_lever_type_get(k);
    const char *what;
    double share = bound_share(r, r->bound, &what);
    const char *of = s->mode == DAM_MODE_SERVING ? "a request" : "the step";
    if (works)
        snprintf(buf, n, "%s binds (%s %.0f %% of %s): %s",
                 dam_bound_name(r->bound), what, share, of, t->moves);
    else if ((t->relieves & DAM_BOUND_BIT(r->bound)) &&
             (k == DAM_LEVER_QUANTIZE || k == DAM_LEVER_PRECISION))
        /* can_quantize / can_precision: no faster format to move to */
        snprintf(buf, n, "%s binds, but the %s runs no faster format than "
                 "%s for %s", dam_bound_name(r->bound), s->machine.gpu.id,
                 dam_precision_name(s->workload.precision),
                 s->mode == DAM_MODE_TRAINING ? "training" : "this model");
    else if ((t->relieves & DAM_BOUND_BIT(r->bound)) &&
             k == DAM_LEVER_LAYOUT && !s->layout.on)
        snprintf(buf, n, "%s binds, but the scenario has no parallel group "
                 "for a layout to change (give it one to search layouts)",
                 dam_bound_name(r->bound));
    else if (t->relieves & DAM_BOUND_BIT(r->bound))
        snprintf(buf, n, "%s binds, but this scenario already has what %s "
                 "offers there", dam_bound_name(r->bound), t->name);
    else
        snprintf(buf, n, "moves nothing that binds: %s binds (%s %.0f %% of "
                 "%s)", dam_bound_name(r->bound), what, share, of);
}

/* A duration for a sentence: "572 ms", "5.02 s", "3.2 us". */
static void ms(char *buf, size_t n, double s)
{
    if (s >= 1.0)
        snprintf(buf, n, "%.3g s", s);
    else if (s >= 1e-3 || s == 0.0)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else
        snprintf(buf, n, "%.3g us", s * 1e6);
}

/* The headline: what binds, with the numbers that show it. */
static void headline(const dam_scenario *s, const dam_result *r, double step,
                     dam_diagnosis *d)
{
    char a[32], b[32], c[32];
    ms(a, sizeof a, r->step);
    switch (r->bound) {
    case DAM_BOUND_DATA:
        ms(b, sizeof b, r->t_data);
        /* the GPUs' own work: compute, communication, overhead and, in
         * a pipeline, the stages waiting on each other (its bubble) */
        ms(c, sizeof c,
           r->terms[DAM_TERM_COMPUTE] + r->terms[DAM_TERM_OVERHEAD] +
               r->terms[DAM_TERM_COMM] +
               (s->layout.on && s->layout.pp > 1 ? r->terms[DAM_TERM_WAIT]
                                                 : 0.0));
        if (!s->layout.on && s->pipeline.loader_workers == 0 &&
            r->terms[DAM_TERM_WAIT] > 0.0) {
            /* loading in the loop, in lockstep: load, GPU and the wait
             * for the slowest rank add up to the step (it read "needs 17
             * ms per batch, the GPU 5.92 ms; the step is 47 ms") */
            char w[32];
            ms(w, sizeof w, r->terms[DAM_TERM_WAIT]);
            ms(b, sizeof b, r->terms[DAM_TERM_DATA]);
            snprintf(d->headline, sizeof d->headline,
                     "data-bound: the loop loads each batch in %s, in "
                     "series with the GPU's %s, and the ranks wait %s for "
                     "the slowest one; the step is %s",
                     b, c, w, a);
        } else {
            snprintf(d->headline, sizeof d->headline,
                     "data-bound: the input pipeline needs %s per batch, "
                     "the GPU %s; the step is %s",
                     b, c, a);
        }
        break;
    case DAM_BOUND_TRANSFER:
        ms(b, sizeof b, r->t_transfer);
        snprintf(d->headline, sizeof d->headline,
                 "transfer-bound: host-to-device copies take %s of a %s step",
                 b, a);
        break;
    case DAM_BOUND_COMPUTE:
        ms(b, sizeof b, r->t_compute);
        if (dam_diagnose_bubble_binds(s, r)) {
            /* a pipeline layout whose ranks wait more than they compute:
             * the fill and drain scale with each stage's compute, so
             * compute still binds, through the schedule */
            char w[16];
            ms(w, sizeof w, r->terms[DAM_TERM_WAIT]);
            int wait = (int)(r->terms[DAM_TERM_WAIT] / step * 100.0 + 0.5);
            snprintf(d->headline, sizeof d->headline,
                     "compute-bound through the pipeline: arithmetic takes "
                     "%s of a %s step and ranks wait %s (%d %%) in its "
                     "fill and drain",
                     b, a, w, wait);
            break;
        }
        snprintf(d->headline, sizeof d->headline,
                 "compute-bound: GPU arithmetic takes %s of a %s step (MFU "
                 "%.0f %%)",
                 b, a, r->mfu * 100.0);
        break;
    case DAM_BOUND_MEMORY:
        ms(b, sizeof b, r->t_compute);
        snprintf(d->headline, sizeof d->headline,
                 "memory-bound: GPU time %s of a %s step is mostly HBM "
                 "traffic below the ridge point",
                 b, a);
        break;
    case DAM_BOUND_COMM:
        ms(b, sizeof b, r->terms[DAM_TERM_COMM]);
        snprintf(d->headline, sizeof d->headline,
                 "communication-bound: %s of exposed %s in a %s step", b,
                 s->layout.on ? "communication (tensor-parallel collectives, "
                                "all-to-alls, pipeline sends, gradient "
                                "reductions)"
                              : "gradient all-reduce",
                 a);
        break;
    case DAM_BOUND_LATENCY:
        ms(b, sizeof b, r->t_latency);
        snprintf(d->headline, sizeof d->headline,
                 "latency-bound: launches and fixed overhead take %s of a %s "
                 "step",
                 b, a);
        break;
    default:
        snprintf(d->headline, sizeof d->headline, "%s-bound",
                 dam_bound_name(r->bound));
    }
}

/* Evidence: each term of the step, ranks waiting, the iron law and the
 * roofline. */
static void evidence(const dam_scenario *s, const dam_result *r, double step,
                     dam_diagnosis *d)
{
    char a[32], b[32];
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        if (r->terms[t] <= 0.0)
            continue;
        ms(b, sizeof b, r->terms[t]);
        dam_diagnose_add(d->evidence, &d->nevidence, "%s %s (%.1f %% of the %s)",
             dam_term_name((dam_term)t), b, r->terms[t] / step * 100.0,
             s->mode == DAM_MODE_SERVING ? "request" : "step");
    }
    if (r->terms[DAM_TERM_WAIT] > 0.02 * step && s->layout.on) {
        /* a parallel layout: the pipeline's fill and drain first */
        const dam_layout *l = &s->layout;
        double p = l->pp, v = l->vpp, m = l->micro_batches;
        ms(b, sizeof b, r->terms[DAM_TERM_WAIT]);
        dam_diagnose_add(d->evidence, &d->nevidence,
                         "%s per step waiting for other ranks, not "
                         "communication: the pipeline bubble (p - 1) / (v m "
                         "+ p - 1) = %.1f %% of the schedule with p = %d, "
                         "v = %d, m = %d, and slower stages or replicas",
                         b, 100.0 * (p - 1.0) / (v * m + p - 1.0), l->pp,
                         l->vpp, l->micro_batches);
    } else if (r->terms[DAM_TERM_WAIT] > 0.02 * step) {
        ms(b, sizeof b, r->terms[DAM_TERM_WAIT]);
        dam_diagnose_add(d->evidence, &d->nevidence,
                         "%s per step waiting for slower ranks (stragglers), "
                         "not communication: the slowest rank's %s sets "
                         "every rank's pace",
                         b, r->terms[DAM_TERM_DATA] > 0.0 ? "data" :
                                                            "compute");
    }
    const dam_serving_result *sv = &r->serving;
    if (s->mode == DAM_MODE_SERVING && sv->capacity > 0.0) {
        /* a part with no work (no preprocessing, no bytes to copy) sets
         * no limit: "unbounded", never "inf" */
        char part[3][32], batch[80];
        if (sv->capacity_batch < s->serving.max_batch)
            snprintf(batch, sizeof batch,
                     "batches of %d (their best: full batches of %d serve "
                     "fewer)", sv->capacity_batch, s->serving.max_batch);
        else
            snprintf(batch, sizeof batch, "full batches of %d",
                     s->serving.max_batch);
        for (int i = 0; i < 3; i++)
            if (isfinite(sv->capacity_parts[i]))
                snprintf(part[i], sizeof part[i], "%.4g",
                         sv->capacity_parts[i]);
            else
                snprintf(part[i], sizeof part[i], "unbounded");
        dam_diagnose_add(d->evidence, &d->nevidence,
             "capacity %.4g requests/s against %.4g offered (%s): the CPU "
             "pool's %s (%d workers, %.3g ms a request), the replicas' "
             "%s at %s, the PCIe links' %s",
             sv->capacity, s->serving.rate,
             sv->overloaded ? "overloaded: the queue grows without bound"
                            : "a lone request's latency above, no queueing",
             part[0], s->serving.preprocess_workers,
             s->serving.preprocess_s * 1e3, part[1], batch, part[2]);
    }
    if (s->mode != DAM_MODE_SERVING) {
        ms(a, sizeof a, r->t_seq);
        ms(b, sizeof b, r->t_pipe);
        dam_diagnose_add(d->evidence, &d->nevidence,
             "iron law: %s with nothing overlapped, %s with perfect overlap",
             a, b);
    }
    int nmem = 0, ncomp = 0;
    for (int i = 0; i < r->nphases; i++)
        *(r->phases[i].memory_bound ? &nmem : &ncomp) += 1;
    if (r->nphases)
        dam_diagnose_add(d->evidence, &d->nevidence,
             "roofline: %d phase%s compute-bound, %d memory-bound at %s on "
             "%s",
             ncomp, ncomp == 1 ? "" : "s", nmem,
             dam_precision_name(s->workload.precision), s->machine.gpu.id);
}

/* The scorecard: I/O overhead, MFU, launch share and memory. */
static void scorecard(const dam_scenario *s, const dam_result *r, double step,
                      dam_diagnosis *d)
{
    char a[32];
    if (s->mode != DAM_MODE_SERVING) {
        snprintf(a, sizeof a, "%.1f %%", r->io_overhead * 100.0);
        dam_diagnose_score(d, "Data", "I/O overhead", r->io_overhead, a,
              "investigate > 10 %, strong < 1 %",
              r->io_overhead > 0.10   ? DAM_SCORE_INVESTIGATE
              : r->io_overhead < 0.01 ? DAM_SCORE_STRONG
                                      : DAM_SCORE_OK);
    }
    if (s->mode == DAM_MODE_SERVING && s->serving.llm.enabled) {
        /* a request alone: no load to take an MFU of, and the engine's
         * host time is inside its iterations, not a term of its own */
        dam_diagnose_score_memory(d, r);
        return;
    }
    dam_diagnose_score_mfu(d, r);
    double lat_share = r->t_latency / step;
    snprintf(a, sizeof a, "%.1f %%", lat_share * 100.0);
    dam_diagnose_score(d, "Algorithm", "launch/overhead share", lat_share, a,
          "investigate > 10 %, strong < 2 %",
          lat_share > 0.10   ? DAM_SCORE_INVESTIGATE
          : lat_share < 0.02 ? DAM_SCORE_STRONG
                             : DAM_SCORE_OK);
    dam_diagnose_score_memory(d, r);
}

/* The communication stages of a step. */
static const struct {
    const char *stage, *what; /* its stage's name; what it is, and a verb */
} comm_kinds[] = {
    {"sync", "the gradient all-reduce takes"},
    {"gradient sync", "the gradient sync takes"},
    {"tensor parallel", "tensor-parallel collectives take"},
    {"pipeline sends", "pipeline sends take"},
    {"expert all-to-all", "expert all-to-alls take"},
};

/* What shortens communication stage k of s (an overlap already on is not
 * offered again). */
static const char *comm_remedy(const dam_scenario *s, size_t k)
{
    switch (k) {
    case 0:
        return s->pipeline.overlap_sync
                   ? "it already overlaps the backward pass: a faster "
                     "network, or fewer GPUs across nodes"
                   : "overlap it with the backward pass "
                     "(pipeline.overlap_sync)";
    case 1:
        return s->layout.overlap_grad
                   ? "it already overlaps the last backward: a faster "
                     "network, or fewer data-parallel ranks across nodes"
                   : "overlap it with the last backward "
                     "(parallel.overlap_grad_reduce)";
    case 2:
        return s->layout.tp_overlap
                   ? "they already overlap their GEMMs: keep tp within a "
                     "node's fabric, or lower tp"
                   : "overlap them with their GEMMs "
                     "(parallel.tp_comm_overlap), keep tp within a node's "
                     "fabric, or lower tp";
    case 3:
        return "fewer pipeline stages or a faster link between them";
    default:
        return s->layout.overlap_a2a
                   ? "they already overlap another micro-batch: keep the "
                     "experts within a node's fabric"
                   : "overlap them with another micro-batch "
                     "(parallel.overlap_all_to_all), or keep the experts "
                     "within a node's fabric";
    }
}

/* The exposed-communication symptom, naming the communication stage that
 * takes most time a step (the gradient all-reduce, tensor-parallel
 * collectives, pipeline sends, expert all-to-alls) and its remedy: the
 * all-reduce's remedy is no remedy for tensor-parallel collectives. */
static void comm_symptom(const dam_scenario *s, const dam_result *r,
                         double step, dam_diagnosis *d)
{
    size_t best = 0;
    int found = 0;
    double top = 0.0, sum = 0.0;
    for (int i = 0; i < r->nstages; i++)
        for (size_t k = 0; k < sizeof comm_kinds / sizeof comm_kinds[0];
             k++)
            if (strcmp(r->stages[i].name, comm_kinds[k].stage) == 0) {
                double t = r->stages[i].time;
                sum += t;
                if (t > top) {
                    top = t;
                    best = k;
                    found = 1;
                }
            }
    double share = r->terms[DAM_TERM_COMM] / step * 100.0;
    if (!found)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
             "high inter-GPU overhead (%.0f %% of the step in exposed "
             "communication): overlap it with compute", share);
    else
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
             "high inter-GPU overhead (%.0f %% of the step in exposed "
             "communication; %s %.3g s of the %.3g s of communication "
             "a step): %s",
             share, comm_kinds[best].what, top, sum, comm_remedy(s, best));
}

/* The diagnostic matrix: symptoms with their hypotheses. */
static void symptoms(const dam_scenario *s, const dam_result *r, double step,
                     dam_diagnosis *d)
{
    /* the GPUs' busy share as the stage table counts it: not waiting
     * for data, for a copy, nor for other ranks; the larger wait names
     * the cause (a pipeline's bubble is no data starvation) */
    double host = (r->terms[DAM_TERM_DATA] + r->terms[DAM_TERM_TRANSFER]) /
                  step;
    double ranks = r->terms[DAM_TERM_WAIT] / step;
    double busy = 1.0 - host - ranks;
    if (s->mode != DAM_MODE_SERVING && busy < 0.80 && host >= ranks)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
             "low accelerator utilisation (%.0f %% busy): data/host "
             "starvation; prefetch, parallelise, or cut launches",
             busy * 100.0);
    else if (s->mode != DAM_MODE_SERVING && busy < 0.80)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
             "low accelerator utilisation (%.0f %% busy): the GPUs wait "
             "%.0f %% of the step for other ranks (a pipeline's fill and "
             "drain, slower stages, stragglers), not for data",
             busy * 100.0, ranks * 100.0);
    if (r->terms[DAM_TERM_COMM] > 0.10 * step)
        comm_symptom(s, r, step, d);
    if (s->mode == DAM_MODE_TRAINING && r->mfu < 0.30)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
             "high training cost (MFU %.0f %%): reduce the largest loss or "
             "resize",
             r->mfu * 100.0);
    if (!r->memory.fits) {
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
             "out of memory: %.1f GiB needed, %.1f GiB on the GPU (short by "
             "%.1f GiB); checkpoint, shard, quantize or shrink the batch",
             r->memory.total / DAM_GIB, r->memory.capacity / DAM_GIB,
             r->memory.shortfall / DAM_GIB);
    }
    /* an LLM engine batches sequences (llm.max_seqs), not max_batch */
    if (s->mode == DAM_MODE_SERVING && !s->serving.llm.enabled &&
        s->serving.max_batch == 1)
        dam_diagnose_add(d->symptoms, &d->nsymptoms,
             "batch size one: launch overhead and serial depth may bind");
}

/* Levers that work and that are wasted, and the anti-pattern to avoid. */
/* Serving (analytic, within its capacity, not an LLM): a request's latency is the sum
 * of its terms, so a lever that moves a term other than the largest still
 * shortens it; the largest share of a request among the terms t can move
 * (0 outside serving or past the capacity), and that term's name. The
 * GPU lever is left to the trap it names. */
static double serving_moved(const dam_scenario *s, const dam_result *r,
                            const dam_lever_type *t, const char **what)
{
    static const struct {
        dam_bound b;
        dam_term term;
        const char *name;
    } m[] = {{DAM_BOUND_PREPROCESS, DAM_TERM_DATA, "preprocessing"},
             {DAM_BOUND_TRANSFER, DAM_TERM_TRANSFER, "the host-to-device copy"},
             {DAM_BOUND_COMPUTE, DAM_TERM_COMPUTE, "GPU work"},
             {DAM_BOUND_MEMORY, DAM_TERM_COMPUTE, "GPU work"},
             {DAM_BOUND_WEIGHTS, DAM_TERM_COMPUTE, "GPU work"},
             {DAM_BOUND_LATENCY, DAM_TERM_OVERHEAD, "overhead"}};
    if (s->mode != DAM_MODE_SERVING || s->serving.llm.enabled ||
        r->serving.overloaded || !(r->step > 0.0))
        return 0.0;
    double best = 0.0;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        double sh = r->terms[m[i].term] / r->step;
        if (sh > best && dam_lever_can_move(t, s, m[i].b) == 1) {
            best = sh;
            *what = m[i].name;
        }
    }
    return best;
}

static void levers(const dam_scenario *s, const dam_result *r,
                   dam_diagnosis *d)
{
    for (int k = 0; k < DAM_LEVER_KIND_COUNT; k++) {
        const dam_lever_type *t = dam_lever_type_get((dam_lever_kind)k);
        if (t->quality_lever || !(t->modes & DAM_MODE_BIT(s->mode)))
            continue;
        /* the LLM levers apply to an llm group only (lever_llm.c) */
        if (!s->serving.llm.enabled &&
            (k == DAM_LEVER_WEIGHTS || k == DAM_LEVER_KV_CACHE ||
             k == DAM_LEVER_TENSOR_PARALLEL || k == DAM_LEVER_SCHEDULER ||
             k == DAM_LEVER_DISAGGREGATE))
            continue;
        int w = dam_diagnose_lever_works(s, r, (dam_lever_kind)k);
        if (w < 0)
            continue;
        const char *what = NULL;
        double share = 0.0;
        if (w == 0 && k != DAM_LEVER_GPU)
            share = serving_moved(s, r, t, &what);
        dam_advice *adv = w || share >= 0.05 ? &d->works[d->nworks++]
                                             : &d->wasted[d->nwasted++];
        adv->kind = (dam_lever_kind)k;
        if (share >= 0.05)
            snprintf(adv->why, sizeof adv->why,
                     "shortens %s (%.0f %% of a request), though %s binds: "
                     "%s", what, share * 100.0, dam_bound_name(r->bound),
                     t->moves);
        else
            reason(s, r, (dam_lever_kind)k, w, adv->why, sizeof adv->why);
    }
    const char *ap = dam_diagnose_anti_pattern(s, r, DAM_LEVER_GPU);
    if (!ap)
        ap = dam_diagnose_anti_pattern(s, r, DAM_LEVER_PRUNE);
    snprintf(d->anti_pattern, sizeof d->anti_pattern, "%s", ap ? ap : "");
}

size_t dam_plain_numbers(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    if (cap == 0)
        return 0;
    for (size_t i = 0; i < n && o + 1 < cap;) {
        int start = (i == 0 || !(isalnum((unsigned char)s[i - 1]) ||
                                 s[i - 1] == '.' || s[i - 1] == '_')) &&
                    isdigit((unsigned char)s[i]);
        if (start) {
            size_t j = i;
            while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '.'))
                j++;
            if (j + 3 < n && s[j] == 'e' && s[j + 1] == '+' &&
                isdigit((unsigned char)s[j + 2]) &&
                isdigit((unsigned char)s[j + 3]) &&
                (j + 4 >= n || !isalnum((unsigned char)s[j + 4]))) {
                char num[40], *end;
                size_t len = j + 4 - i < sizeof num ? j + 4 - i
                                                     : sizeof num - 1;
                memcpy(num, s + i, len);
                num[len] = '\0';
                double v = strtod(num, &end);
                if (end == num + len && v < 1e10) {
                    int k = snprintf(out + o, cap - o, "%.0f", v);
                    o = k > 0 && (size_t)k < cap - o ? o + (size_t)k
                                                     : cap - 1;
                    i = j + 4;
                    continue;
                }
            }
            while (i < j && o + 1 < cap)
                out[o++] = s[i++];
            continue;
        }
        out[o++] = s[i++];
    }
    out[o] = '\0';
    return o;
}

/* dam_plain_numbers of s in place (cap bytes). */
static void plain_numbers(char *s, size_t cap)
{
    char out[DAM_DIAG_TEXT];
    dam_plain_numbers(s, strlen(s), out, sizeof out);
    snprintf(s, cap, "%s", out);
}

/* plain_numbers on every sentence of d. */
static void plain_diagnosis(dam_diagnosis *d)
{
    plain_numbers(d->headline, sizeof d->headline);
    for (int i = 0; i < d->nevidence; i++)
        plain_numbers(d->evidence[i], sizeof d->evidence[i]);
    for (int i = 0; i < d->nsymptoms; i++)
        plain_numbers(d->symptoms[i], sizeof d->symptoms[i]);
    for (int i = 0; i < d->nworks; i++)
        plain_numbers(d->works[i].why, sizeof d->works[i].why);
    for (int i = 0; i < d->nwasted; i++)
        plain_numbers(d->wasted[i].why, sizeof d->wasted[i].why);
    plain_numbers(d->anti_pattern, sizeof d->anti_pattern);
}

static void diagnose(const dam_scenario *s, const dam_result *r,
                     dam_diagnosis *d);

void dam_diagnose(const dam_scenario *s, const dam_result *r,
                  dam_diagnosis *d)
{
    /* a simulated serving result has its own diagnosis */
    if (s->mode == DAM_MODE_SERVING && r->has_sim &&
        r->serving.llm.enabled)
        dam_diagnose_llm(s, r, d);
    else if (s->mode == DAM_MODE_SERVING && r->has_sim)
        dam_diagnose_serving(s, r, d);
    else
        diagnose(s, r, d);
    plain_diagnosis(d);
}

static void diagnose(const dam_scenario *s, const dam_result *r,
                     dam_diagnosis *d)
{
    memset(d, 0, sizeof *d);
    d->bound = r->bound;
    snprintf(d->axis, sizeof d->axis, "%s", dam_bound_axis(r->bound));
    double step = r->step > 0.0 ? r->step : 1.0;
    headline(s, r, step, d);
    if (s->mode == DAM_MODE_SERVING && r->serving.overloaded) {
        char was[132];
        snprintf(was, sizeof was, "%.131s", d->headline);
        snprintf(d->headline, sizeof d->headline,
                 "overloaded: capacity %.4g of the %.4g requests/s offered; "
                 "%s", r->serving.capacity, s->serving.rate, was);
    }
    evidence(s, r, step, d);
    scorecard(s, r, step, d);
    symptoms(s, r, step, d);
    levers(s, r, d);
    if (!r->memory.fits) {
        /* what cannot run binds on its memory first: the step's terms
         * are what would bind once it fits (a run 53.6 GiB short read
         * "compute-bound" alone) */
        char was[132]; /* the prefix takes the rest of the line */
        snprintf(was, sizeof was, "%.131s", d->headline);
        snprintf(d->headline, sizeof d->headline,
                 "does not fit (%.3g of %.3g GiB per GPU); once it fits, %s",
                 r->memory.total / DAM_GIB, r->memory.capacity / DAM_GIB,
                 was);
        snprintf(d->axis, sizeof d->axis, "Algorithm/Machine");
        d->no_fit = 1;
    }
}
