/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * diagnose_score.c: the pieces every diagnosis is built of (training in
 * diagnose.c, serving in diagnose_serving.c, LLM serving in
 * diagnose_llm.c): evidence lines, scorecard rows and lever advice, and
 * the rules they share (which lever type works on what binds, the
 * anti-pattern of one that does not, whether a pipeline bubble binds).
 * The thresholds are diagnose.c's.
 */
#include "solver/diagnose.h"

#include "model/lever.h"

#include <stdarg.h>
#include <stdio.h>

const char *dam_score_name(dam_score s)
{
    switch (s) {
    case DAM_SCORE_STRONG: return "strong";
    case DAM_SCORE_OK: return "ok";
    case DAM_SCORE_INVESTIGATE: return "investigate";
    }
    return "?";
}

void dam_diagnose_add(char (*arr)[DAM_DIAG_TEXT], int *n, const char *fmt,
                      ...)
{
    if (*n >= DAM_DIAG_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(arr[*n], DAM_DIAG_TEXT, fmt, ap);
    va_end(ap);
    (*n)++;
}

int dam_diagnose_lever_works(const dam_scenario *s, const dam_result *r,
                             dam_lever_kind k)
{
    const dam_lever_type *t = dam_lever_type_get(k);
    if (!t || (unsigned)r->bound >= DAM_BOUND_COUNT)
        return -1;
    return dam_lever_can_move(t, s, r->bound);
}

const char *dam_diagnose_anti_pattern(const dam_scenario *s,
                                      const dam_result *r, dam_lever_kind k)
{
    if (dam_diagnose_lever_works(s, r, k) != 0)
        return NULL;
    int machine = k == DAM_LEVER_GPU;
    int algorithm = k == DAM_LEVER_PRUNE || k == DAM_LEVER_DISTILL ||
                    k == DAM_LEVER_QUANTIZE || k == DAM_LEVER_PRECISION;
    switch (r->bound) {
    case DAM_BOUND_DATA:
    case DAM_BOUND_TRANSFER:
    case DAM_BOUND_PREPROCESS:
        if (machine)
            return "the hardware crutch: a faster accelerator behind a slow "
                   "loader just idles faster";
        if (algorithm)
            return "the model twiddle: changing the model while the input "
                   "pipeline binds";
        return "optimising a term that does not bind";
    case DAM_BOUND_COMM:
        /* not "changing the model": a smaller model (distill) sends
         * fewer gradient bytes and is listed as working beside this */
        if (algorithm)
            return "the model twiddle: trimming the model's arithmetic "
                   "(pruning, quantization, precision) while the network "
                   "binds";
        return "optimising a term that does not bind";
    case DAM_BOUND_COMPUTE:
        if (k == DAM_LEVER_FUSE || k == DAM_LEVER_CUDA_GRAPHS)
            return "the premature optimiser: kernel work before the "
                   "operation count is settled";
        return "more bandwidth for a compute-bound step";
    case DAM_BOUND_MEMORY:
    case DAM_BOUND_WEIGHTS:
        return "more FLOP/s for a memory-bound step";
    case DAM_BOUND_LATENCY:
        return "more compute or bandwidth for a latency-bound step";
    default:
        return "optimising a term that does not bind";
    }
}

void dam_diagnose_score(dam_diagnosis *d, const char *axis,
                        const char *metric, double v, const char *shown,
                        const char *rule, dam_score s)
{
    if (d->nscore >= (int)(sizeof d->score / sizeof d->score[0]))
        return;
    dam_score_row *row = &d->score[d->nscore++];
    snprintf(row->axis, sizeof row->axis, "%s", axis);
    snprintf(row->metric, sizeof row->metric, "%s", metric);
    row->value = v;
    snprintf(row->shown, sizeof row->shown, "%s", shown);
    snprintf(row->rule, sizeof row->rule, "%s", rule);
    row->verdict = s;
}

void dam_diagnose_score_mfu(dam_diagnosis *d, const dam_result *r)
{
    char a[32];
    snprintf(a, sizeof a, "%.1f %%", r->mfu * 100.0);
    dam_diagnose_score(d, "Machine", "MFU", r->mfu, a, "investigate < 30 %, strong > 50 %",
          r->mfu < 0.30   ? DAM_SCORE_INVESTIGATE
          : r->mfu > 0.50 ? DAM_SCORE_STRONG
                          : DAM_SCORE_OK);
}

void dam_diagnose_advise(dam_diagnosis *d, dam_lever_kind k, int works,
                         const char *fmt, ...)
{
    dam_advice *a = works ? &d->works[d->nworks++] : &d->wasted[d->nwasted++];
    a->kind = k;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->why, sizeof a->why, fmt, ap);
    va_end(ap);
}

void dam_diagnose_score_memory(dam_diagnosis *d, const dam_result *r)
{
    char a[32];
    double memfrac = r->memory.capacity > 0.0
                         ? r->memory.total / r->memory.capacity
                         : 0.0;
    snprintf(a, sizeof a, "%.0f %% of HBM", memfrac * 100.0);
    /* investigate where the memory line says "tight" (under
     * DAM_MEMORY_HEADROOM to spare: "it may not run"), not only past
     * 100 %: a 95 % footprint read "ok" beside "it may not run" */
    dam_diagnose_score(d, "Machine", "memory footprint", memfrac, a,
          "investigate > 90 %, strong < 80 %",
          r->memory.tight || memfrac > 1.0 ? DAM_SCORE_INVESTIGATE
          : memfrac < 0.8                  ? DAM_SCORE_STRONG
                                           : DAM_SCORE_OK);
}

int dam_diagnose_bubble_binds(const dam_scenario *s, const dam_result *r)
{
    return s->mode == DAM_MODE_TRAINING && s->layout.on && s->layout.pp > 1 &&
           r->bound == DAM_BOUND_COMPUTE &&
           r->terms[DAM_TERM_WAIT] > r->terms[DAM_TERM_COMPUTE];
}
