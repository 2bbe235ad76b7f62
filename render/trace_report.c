/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_report.c: the review document of a trace what-if (see
 * trace_report.h).
 */
#include "render/trace_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "solver/whatif.h"

/* The chart term of a part of the trace's step. */
static dam_term chart_term(dam_tterm k)
{
    switch (k) {
    case DAM_TTERM_COPY:
        return DAM_TERM_TRANSFER;
    case DAM_TTERM_COMM:
        return DAM_TERM_COMM;
    case DAM_TTERM_DATA:
        return DAM_TERM_DATA;
    case DAM_TTERM_LAUNCH:
    case DAM_TTERM_HOST:
    case DAM_TTERM_IDLE:
        return DAM_TERM_OVERHEAD;
    default:
        return DAM_TERM_COMPUTE;
    }
}

static const char *cell(dam_trace_review *rv, int *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static const char *cell(dam_trace_review *rv, int *n, const char *fmt, ...)
{
    char *c = rv->cells[(*n)++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c, DAM_TREVIEW_CELL, fmt, ap);
    va_end(ap);
    return c;
}

static const char *text_cell(dam_trace_review *rv, int *n, const char *s)
{
    char *c = rv->cells[(*n)++];
    snprintf(c, DAM_TREVIEW_CELL, "%s", s);
    return c;
}

/* The best option that works (-1: none). */
static int best_row(const dam_twhatif *w)
{
    int best = -1;
    for (int i = 1; i < w->nrows; i++)
        if (w->rows[i].verdict == DAM_VERDICT_WORKS &&
            (best < 0 || w->rows[i].speedup > w->rows[best].speedup))
            best = i;
    return best;
}

static void assumption(dam_trace_review *rv, int i, const char *key,
                       const char *val, const char *src)
{
    snprintf(rv->akey[i], sizeof rv->akey[i], "%s", key);
    snprintf(rv->aval[i], sizeof rv->aval[i], "%s", val);
    snprintf(rv->asrc[i], sizeof rv->asrc[i], "%s", src);
    rv->assumptions[i] = (dam_report_row){rv->akey[i], rv->aval[i],
                                          rv->asrc[i]};
}

/* The GPU asked about (the first gpu= row alone), else NULL; its row in
 * *asked (-1: none). */
static const char *asked_gpu(const dam_twhatif *w, int *asked)
{
    *asked = -1;
    for (int i = 1; i < w->nrows; i++)
        if (!strncmp(w->rows[i].name, "gpu=", 4) &&
            !strchr(w->rows[i].name, '+')) {
            *asked = i;
            return w->rows[i].name + 4;
        }
    return NULL;
}

/* The question, the answer, the recommendation and what would change it. */
static void review_answer(dam_trace_review *rv, const dam_twhatif *w,
                          const char *gpu, int asked)
{
    const dam_trow *base = &w->rows[0];
    if (gpu)
        snprintf(rv->question, sizeof rv->question,
                 "Would %.*s cut this job's step time?",
                 (int)strcspn(gpu, ","), gpu);
    else
        snprintf(rv->question, sizeof rv->question,
                 "Which of these levers would cut this job's step time?");
    int best = best_row(w);
    if (asked < 0)
        asked = best;
    if (asked > 0 && w->rows[asked].verdict != DAM_VERDICT_FAILED) {
        const dam_trow *x = &w->rows[asked];
        int yes = x->verdict == DAM_VERDICT_WORKS;
        int n = snprintf(rv->answer, sizeof rv->answer,
                         "%s: with %s the replayed step is %.3g ms instead "
                         "of %.3g ms (%.2fx", yes ? "Yes" : "No", x->name,
                         x->step_s * 1e3, base->step_s * 1e3, x->speedup);
        if (n > 0 && (size_t)n < sizeof rv->answer)
            snprintf(rv->answer + n, sizeof rv->answer - (size_t)n,
                     x->has_interval ? ", 90 %% interval %.2fx to %.2fx)."
                                     : ").",
                     x->speedup_lo, x->speedup_hi);
    } else if (asked > 0) {
        snprintf(rv->answer, sizeof rv->answer, "Cannot say: %s",
                 w->rows[asked].why);
    } else {
        snprintf(rv->answer, sizeof rv->answer,
                 "No: no lever asked about shortens the replayed step by "
                 "2 %% or more; %s binds (%.0f %% of the step).",
                 dam_bound_name(base->br.bound),
                 100.0 * base->br.bound_share);
    }
    if (best > 0)
        snprintf(rv->recommendation, sizeof rv->recommendation,
                 "Best option asked about: %s: %s", w->rows[best].name,
                 w->rows[best].why);
    else
        snprintf(rv->recommendation, sizeof rv->recommendation,
                 "Relieve what binds first: %s (%s).",
                 dam_bound_name(base->br.bound),
                 dam_bound_axis(base->br.bound));
    snprintf(rv->would_change, sizeof rv->would_change,
             "A different binding term: the replay keeps the trace's host "
             "gaps, so a job whose host work changes with the GPU (larger "
             "batches, another input pipeline) needs a new trace.");
}

/* The chart: one bar per option. */
static void review_chart(dam_trace_review *rv, const dam_twhatif *w,
                         const char *file)
{
    int nb = 0;
    for (int i = 0; i < w->nrows; i++) {
        const dam_trow *x = &w->rows[i];
        if (x->verdict == DAM_VERDICT_FAILED)
            continue;
        dam_chart_bar *bar = &rv->bars[nb++];
        bar->label = x->name;
        for (int k = 0; k < DAM_TTERM_COUNT; k++)
            bar->terms[chart_term((dam_tterm)k)] += x->br.part[k];
        bar->bound = x->br.bound;
    }
    rv->breakdown.title = "Where the replayed step goes, by option";
    rv->breakdown.subtitle = file;
    rv->breakdown.bars = rv->bars;
    rv->breakdown.nbars = (size_t)nb;
    rv->chart.kind = DAM_CHART_BREAKDOWN;
    rv->chart.u.breakdown = &rv->breakdown;
}

/* The option table and the baseline's breakdown table (cells from *nc). */
static void review_tables(dam_trace_review *rv, const dam_twhatif *w,
                          int *nc)
{
    const dam_trow *base = &w->rows[0];
    static const char *const wh[] = {"option", "step (mean)", "speed-up",
                                     "90 % interval", "P(>= 2 %)",
                                     "verdict", "why"};
    static const int wnum[] = {0, 1, 1, 1, 1, 0, 0};
    static const char *const bh[] = {"part", "ms per step", "share",
                                     "term"};
    static const int bnum[] = {0, 1, 1, 0};
    int k = 0;
    for (int i = 0; i < w->nrows; i++) {
        const dam_trow *x = &w->rows[i];
        int failed = x->verdict == DAM_VERDICT_FAILED;
        rv->table_cells[0][k++] = x->name;
        rv->table_cells[0][k++] = failed ? "-" : cell(rv, nc, "%.3f ms",
                                                      x->step_s * 1e3);
        rv->table_cells[0][k++] = failed ? "-" : cell(rv, nc, "%.2fx",
                                                      x->speedup);
        rv->table_cells[0][k++] = x->has_interval
            ? cell(rv, nc, "%.2fx to %.2fx", x->speedup_lo, x->speedup_hi)
            : NULL;
        rv->table_cells[0][k++] = x->has_interval
            ? cell(rv, nc, "%.0f %%", 100.0 * x->p_faster) : NULL;
        rv->table_cells[0][k++] =
            dam_verdict_name((dam_verdict)x->verdict);
        rv->table_cells[0][k++] = i ? text_cell(rv, nc, x->why) : NULL;
    }
    rv->tables[0] = (dam_report_table){"What each option does to the "
                                       "replayed step", 7, wh,
                                       rv->table_cells[0], (size_t)w->nrows,
                                       wnum};
    int nrows = 0;
    k = 0;
    double step = base->br.steps > 0 ? base->br.window_s / base->br.steps
                                     : 0.0;
    for (int p = 0; p < DAM_TTERM_COUNT; p++) {
        if (base->br.part[p] <= 0.0)
            continue;
        rv->table_cells[1][k++] = dam_tterm_name((dam_tterm)p);
        rv->table_cells[1][k++] = cell(rv, nc, "%.3f",
                                       base->br.part[p] * 1e3);
        rv->table_cells[1][k++] = cell(rv, nc, "%.1f %%",
                                       step > 0 ? 100.0 * base->br.part[p] /
                                                      step : 0.0);
        rv->table_cells[1][k++] =
            dam_bound_name(dam_tterm_bound((dam_tterm)p));
        nrows++;
    }
    rv->tables[1] = (dam_report_table){"Where the replayed step goes "
                                       "(baseline)", 4, bh,
                                       rv->table_cells[1], (size_t)nrows,
                                       bnum};
}

/* Key numbers and the headline (after the tables: it points into them). */
static void review_key(dam_trace_review *rv, const dam_rgraph *g,
                       const dam_twhatif *w, int *nc)
{
    const dam_trow *base = &w->rows[0];
    int best = best_row(w);
    rv->key[0] = (dam_report_row){"measured step (median)",
                                  cell(rv, nc, "%.3f ms",
                                       w->measured_s * 1e3), NULL};
    rv->key[1] = (dam_report_row){"replayed step",
                                  cell(rv, nc, "%.3f ms (error %+.2f %%)",
                                       base->step_s * 1e3,
                                       w->measured_s > 0
                                           ? 100.0 * (dam_replay_step(g, 1) -
                                                      w->measured_s) /
                                                 w->measured_s
                                           : 0.0), NULL};
    rv->key[2] = (dam_report_row){"binding term",
                                  cell(rv, nc, "%.0f %% of the step",
                                       100.0 * base->br.bound_share),
                                  NULL};
    rv->key[2].key = dam_bound_name(base->br.bound);
    rv->key[3] = (dam_report_row){"exposed collectives",
                                  cell(rv, nc, "%.3f ms of %.3f ms",
                                       base->br.part[DAM_TTERM_COMM] * 1e3,
                                       base->br.comm_total * 1e3), NULL};
    rv->head_cells[0] = "measured step (median)";
    rv->head_cells[1] = rv->key[0].value;
    rv->head_cells[2] = "replayed step (mean)";
    rv->head_cells[3] = rv->table_cells[0][1];
    rv->head_cells[4] = best > 0 ? w->rows[best].name : "best option";
    rv->head_cells[5] = best > 0 ? rv->table_cells[0][best * 7 + 1] : "none";
    static const char *const hh[] = {"", "value"};
    static const int hnum[] = {0, 1};
    rv->headline = (dam_report_table){"The numbers", 2, hh, rv->head_cells,
                                      3, hnum};
}

/* The assumptions; their number. */
static int review_assumptions(dam_trace_review *rv, const dam_twhatif *w,
                              const dam_catalog *cat, const char *gpu)
{
    int na = 0;
    assumption(rv, na++, "replay", "each node keeps its measured slack; "
               "edges: lane order, launches, host syncs and polling, "
               "cross-stream (10 us) and cross-thread (2 ms) wake-ups "
               "inferred from the times", "Daydream, Zhu et al., ATC'20");
    assumption(rv, na++, "GEMM precision",
               w->gemm_unknown > 0 ? "from kernel names; the rest as the "
                                     "most common named one"
                                   : "from kernel names",
               "cuBLAS/CUTLASS kernel naming");
    const dam_gpu *src = w->gpu[0] ? dam_catalog_gpu(cat, w->gpu) : NULL;
    if (src)
        assumption(rv, na++, src->id, "the trace's GPU (deviceProperties)",
                   src->source);
    if (gpu) {
        char id[DAM_ID_MAX];
        snprintf(id, sizeof id, "%.*s", (int)strcspn(gpu, ","), gpu);
        const dam_gpu *dst = dam_catalog_gpu(cat, id);
        if (dst)
            assumption(rv, na++, dst->id, "the GPU asked about",
                       dst->source);
    }
    return na;
}

void dam_trace_review_build(dam_trace_review *rv, const dam_ktrace *t,
                            const dam_rgraph *g, const dam_twhatif *w,
                            const dam_catalog *cat, const char *version)
{
    memset(rv, 0, sizeof *rv);
    dam_report *r = &rv->report;
    const char *file = strrchr(t->file, '/') ? strrchr(t->file, '/') + 1
                                             : t->file;
    snprintf(rv->title, sizeof rv->title, "What-if from a profiler trace");
    snprintf(rv->context, sizeof rv->context,
             "damsim %s, trace %.200s (%s%s, %d step spans)", version, file,
             t->device[0] ? t->device : "GPU not named",
             w->gpu[0] ? "" : ", not in the catalog", g->nsteps);
    int asked, nc = 0;
    const char *gpu = asked_gpu(w, &asked);
    review_answer(rv, w, gpu, asked);
    review_chart(rv, w, file);
    review_tables(rv, w, &nc);
    review_key(rv, g, w, &nc);
    int na = review_assumptions(rv, w, cat, gpu);
    r->title = rv->title;
    r->context = rv->context;
    r->question = rv->question;
    r->answer = rv->answer;
    r->key_numbers = rv->key;
    r->nkey = 4;
    r->charts = &rv->chart;
    r->ncharts = 1;
    r->tables = rv->tables;
    r->ntables = 2;
    r->assumptions = rv->assumptions;
    r->nassumptions = (size_t)na;
    r->headline = &rv->headline;
    r->summary_chart = &rv->chart;
    r->recommendation = rv->recommendation;
    r->would_change = rv->would_change;
}
