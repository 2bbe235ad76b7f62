/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * whatif.c: the what-if table as text, CSV and JSON.
 *
 * The answer line answers the scenario's question first: about the option
 * scenario.about names, else the first lever when the question names it
 * ("Would H100s ..."), else the baseline in serving (does it meet the SLO?),
 * else the first lever; yes or no, with the figure and its interval. Then
 * the best option: the fastest that works, whose quality effect is known
 * and which fits in memory. Quality: the "quality" column is the metric's
 * value, the "gain" column its improvement, + is better everywhere (gain,
 * RoC, JSON quality_gain); the legend says whether higher or lower is
 * better. Everything shown comes from the rows.
 */
#include "render/page/whatif_page.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/out/csv.h"
#include "render/out/json.h"
#include "render/out/fmt.h"
#include "render/page/llm.h"
#include "render/page/text.h"

/* Does hay contain needle, case-insensitively? */
static int mentions(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 0;
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

/* The option the question is about; NULL for the baseline. */
static const dam_whatif_row *subject(const dam_whatif *w)
{
    const dam_scenario *s = &w->rows[0].scenario;
    if (s->about[0]) {
        if (strcmp(s->about, "baseline") == 0)
            return NULL;
        for (int i = 1; i < w->nrows; i++)
            if (!w->rows[i].is_combination &&
                strcmp(w->rows[i].name, s->about) == 0)
                return &w->rows[i];
    }
    if (w->nrows < 2)
        return NULL;
    if (mentions(s->question, w->rows[1].name))
        return &w->rows[1];
    if (s->mode == DAM_MODE_SERVING)
        return NULL;
    return &w->rows[1];
}

/* The baseline's answer: does it meet the SLO (serving), else what binds. */
static size_t answer_baseline(char *buf, size_t n, const dam_whatif_row *b)
{
    const dam_result *r = &b->result;
    const dam_serving_result *sv = &r->serving;
    if (b->scenario.mode == DAM_MODE_SERVING && r->has_sim &&
        sv->slo_s > 0.0) {
        char p99[48], ci[48], slo[48];
        dam_text_ms(p99, sizeof p99, sv->latency.p99, 3);
        dam_text_ms(ci, sizeof ci, sv->p99_ci95, 2);
        dam_text_ms(slo, sizeof slo, sv->slo_s, 3);
        return (size_t)snprintf(
            buf, n, "%s: p99 %s (95 %% CI +-%s) %s the %s SLO at %.4g "
                    "requests/s; %s binds",
            dam_serving_slo_met(sv) ? "yes" : "no", p99, ci,
            dam_serving_slo_met(sv) ? "is within" : "misses", slo,
            b->scenario.serving.rate, dam_bound_name(r->bound));
    }
    if (b->scenario.mode == DAM_MODE_SERVING && !r->has_sim &&
        sv->overloaded)
        return (size_t)snprintf(
            buf, n, "no: overloaded: capacity %.4g of the %.4g requests/s "
                    "offered, set by %s; %s binds",
            sv->capacity, b->scenario.serving.rate,
            dam_serving_capacity_part(sv->capacity_by),
            dam_bound_name(r->bound));
    if (b->scenario.mode == DAM_MODE_TRAINING && b->scenario.deadline > 0.0 &&
        r->run_time > 0.0) {
        char run[48], dl[48];
        dam_text_deadline(run, sizeof run, dl, sizeof dl, &b->scenario,
                          r->run_time);
        return (size_t)snprintf(
            buf, n, "%s: the run takes %s, %s the %s deadline; %s binds: %s",
            r->run_time <= b->scenario.deadline ? "yes" : "no", run,
            r->run_time <= b->scenario.deadline ? "within" : "past", dl,
            dam_bound_name(r->bound), b->diagnosis.headline);
    }
    return (size_t)snprintf(buf, n, "%s binds: %s",
                            dam_bound_name(r->bound), b->diagnosis.headline);
}

/* ", 35.8 d: within the 60 d deadline" for a training option when the
 * scenario names a deadline, else nothing. */
static size_t deadline_note(char *buf, size_t n, const dam_whatif_row *o)
{
    const dam_scenario *s = &o->scenario;
    if (n == 0 || s->mode != DAM_MODE_TRAINING || !(s->deadline > 0.0) ||
        !(o->result.run_time > 0.0)) {
        if (n > 0)
            buf[0] = '\0';
        return 0;
    }
    char run[48], dl[48];
    dam_text_deadline(run, sizeof run, dl, sizeof dl, s, o->result.run_time);
    return (size_t)snprintf(buf, n, " (%s: %s the %s deadline)", run,
                            o->result.run_time <= s->deadline ? "within"
                                                              : "past",
                            dl);
}

/* An option's answer: yes or no, the figure and its interval. */
static size_t answer_option(char *buf, size_t n, const dam_whatif_row *o)
{
    if (o->verdict == DAM_VERDICT_FAILED)
        return (size_t)snprintf(buf, n, "%s: no, it cannot apply (%s)",
                                o->name, o->error);
    const char *word = o->verdict == DAM_VERDICT_WORKS   ? "yes"
                       : o->verdict == DAM_VERDICT_HURTS ? "no, it is slower"
                       : o->verdict == DAM_VERDICT_SHORT ? "not enough"
                                                         : "no";
    char note[160], ci[48], st[48];
    deadline_note(note, sizeof note, o);
    size_t len = (size_t)snprintf(buf, n, "%s: %s%s, %s", o->name, word, note,
                                  o->why);
    if (strstr(o->why, "90 %") != NULL)
        ; /* the verdict already carries its interval */
    else if (len < n && o->has_interval)
        len += (size_t)snprintf(buf + len, n - len,
                                " (speed-up %.2fx to %.2fx over the uncertain "
                                "inputs, 90 %%)",
                                o->speedup_lo, o->speedup_hi);
    else if (len < n && o->result.has_sim &&
             o->result.mode == DAM_MODE_SERVING &&
             o->result.serving.p99_ci95 > 0.0) {
        dam_text_ms(ci, sizeof ci, o->result.serving.p99_ci95, 2);
        len += (size_t)snprintf(buf + len, n - len, " (p99 95 %% CI +-%s)",
                                ci);
    } else if (len < n && o->result.has_sim &&
               o->result.mode != DAM_MODE_SERVING &&
               o->result.sim_step.ci95 > 0.0 && o->result.step > 0.0) {
        dam_text_ms(st, sizeof st, o->result.step, 4);
        dam_text_ms(ci, sizeof ci, o->result.sim_step.ci95, 2);
        len += (size_t)snprintf(buf + len, n - len,
                                " (step %s +-%s, 95 %% CI)", st, ci);
    }
    return len < n ? len : n;
}

/* The answer when the baseline does not fit: say so first, then compare
 * the options that fit with each other (fastest first). */
static void answer_nofit(char *buf, size_t n, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_memory *m = &base->result.memory;
    char need[32], cap[32], miss[32];
    dam_fmt_memory(need, sizeof need, m->total);
    dam_fmt_memory(cap, sizeof cap, m->capacity);
    dam_fmt_memory(miss, sizeof miss, m->shortfall);
    size_t len = (size_t)snprintf(
        buf, n, "the baseline does not fit: it needs %s per GPU, the %s "
                "holds %s (short by %s), so it cannot run and no speed-up is "
                "quoted against it",
        need, base->scenario.machine.gpu.id, cap, miss);
    const dam_whatif_row *sj = subject(w);
    if (sj && len < n) {
        if (sj->verdict == DAM_VERDICT_NOFIT ||
            sj->verdict == DAM_VERDICT_FAILED)
            len += (size_t)snprintf(buf + len, n - len, ". %s: no, %s",
                                    sj->name,
                                    sj->verdict == DAM_VERDICT_FAILED
                                        ? sj->error
                                        : sj->why);
        else
            len += (size_t)snprintf(buf + len, n - len, ". %s: yes, it fits",
                                    sj->name);
    }
    /* the options that fit, fastest first (at most four named) */
    int order[DAM_WHATIF_MAX], k = 0;
    for (int i = 1; i < w->nrows; i++)
        if (w->rows[i].verdict == DAM_VERDICT_WORKS)
            order[k++] = i;
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && w->rows[order[j]].speedup >
                                     w->rows[order[j - 1]].speedup;
             j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    if (len >= n)
        return;
    if (k == 0) {
        snprintf(buf + len, n - len, w->nrows < 2
                                         ? ". No levers to compare"
                                         : ". No option here fits either");
        return;
    }
    len += (size_t)snprintf(buf + len, n - len, ". Options that fit, fastest "
                                                "first:");
    for (int i = 0; i < k && i < 4 && len < n; i++) {
        const dam_whatif_row *r = &w->rows[order[i]];
        char t[32], c[32];
        dam_fmt_time(t, sizeof t, r->scenario.mode == DAM_MODE_SERVING
                                      ? r->result.step
                                      : r->result.run_time);
        if (r->cost.usd > 0.0)
            dam_fmt_short(c, sizeof c, r->cost.usd, 1);
        else
            snprintf(c, sizeof c, "cost n/a");
        len += (size_t)snprintf(buf + len, n - len, "%s %s (%s, %s)",
                                i ? "," : "", r->name, t, c);
    }
}

static void answer_options(char *buf, size_t n, const dam_whatif *w);

static void whatif_answer(char *buf, size_t n, const dam_whatif *w);

void dam_page_whatif_answer(char *buf, size_t n, const dam_whatif *w)
{
    whatif_answer(buf, n, w);
    dam_fmt_plain_str(buf, n); /* no "2.333e+05 ms" in a sentence */
}

static void whatif_answer(char *buf, size_t n, const dam_whatif *w)
{
    if (!w->rows[0].result.memory.fits &&
        w->rows[0].result.memory.capacity > 0.0) {
        answer_nofit(buf, n, w);
        return;
    }
    if (w->rows[0].result.serving.llm.enabled) {
        dam_llm_whatif_answer(buf, n, w);
        return;
    }
    const dam_whatif_row *base = &w->rows[0];
    answer_options(buf, n, w);
    /* as run's answer says: a footprint under 10 % from the GPU's memory
     * may not run (the options are judged as if it does) */
    const dam_memory *m = &base->result.memory;
    size_t len = strlen(buf);
    if (m->fits && m->tight && len < n) {
        char need[32], cap[32];
        dam_fmt_memory(need, sizeof need, m->total);
        dam_fmt_memory(cap, sizeof cap, m->capacity);
        snprintf(buf + len, n - len,
                 "%s Memory is tight as configured: %s of %s, under 10 %% to "
                 "spare for fragmentation; it may not run",
                 len > 0 && buf[len - 1] == '.' ? "" : ".", need, cap);
    }
}

/* The answer's sentences about the baseline and the options. */
static void answer_options(char *buf, size_t n, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_whatif_row *subj = subject(w);
    const dam_whatif_row *best = dam_whatif_best(w);
    size_t len = subj ? answer_option(buf, n, subj)
                      : answer_baseline(buf, n, base);
    if (len >= n)
        return;
    if (w->nrows < 2)
        snprintf(buf + len, n - len, "; no levers to compare");
    else if (best && best != subj) {
        char note[160];
        deadline_note(note, sizeof note, best);
        len += (size_t)snprintf(buf + len, n - len,
                                ". Best option: %s, %.2fx faster%s%s",
                                best->name, best->speedup,
                                /* the analytic solve has no p99 */
                                base->scenario.mode == DAM_MODE_SERVING &&
                                        dam_serving_slo_met(
                                            &best->result.serving)
                                    ? " and within the SLO"
                                    : "",
                                note);
        const dam_quality *q = &base->scenario.quality;
        if (len < n && fabs(best->quality_gain) > 0.0)
            snprintf(buf + len, n - len, ", %s %.4g -> %.4g (%s)",
                     q->metric[0] ? q->metric : "quality", base->quality,
                     best->quality, best->quality_gain > 0.0 ? "better"
                                                              : "worse");
    }
    else if (!best) {
        int serving = base->scenario.mode == DAM_MODE_SERVING;
        const dam_whatif_row *u = dam_whatif_best_unproven(w);
        if (u && u != subj)
            snprintf(buf + len, n - len,
                     ". Only %s %s (%.2fx), at an unknown cost in quality",
                     u->name, serving ? "meets the SLO" : "shortens the run",
                     u->speedup);
        else if (!u)
            snprintf(buf + len, n - len, ". No option here %s",
                     !serving                   ? "shortens the run"
                     : base->result.has_sim     ? "meets the SLO"
                     : base->result.serving.overloaded
                         ? "serves the rate offered"
                         : "shortens a request");
    }
}

/* A count for a table: "17,000", "5,550", "4.89M" (render/fmt). */
static void compact(char *buf, size_t n, double v)
{
    dam_fmt_short(buf, n, v, 0);
}

/* Dollars for a table: "$30,400", "$0.554", "$24.1M"; "n/a" without a
 * price. */
static void money(char *buf, size_t n, double usd)
{
    if (!(usd > 0.0))
        snprintf(buf, n, "n/a");
    else
        dam_fmt_short(buf, n, usd, 1);
}

/* A marginal return per a power of a thousand units that makes it
 * readable: "+0.046 per 1,000,000 usd". */
static void marginal(char *buf, size_t n, double m, const char *unit)
{
    static const double k[] = {1, 1e3, 1e6, 1e9};
    static const char *const per[] = {"", "1,000 ", "1,000,000 ",
                                      "1,000,000,000 "};
    size_t i = 0;
    while (i + 1 < sizeof k / sizeof k[0] && m != 0.0 &&
           fabs(m * k[i]) < 0.01)
        i++;
    char v[48];
    dam_fmt_num(v, sizeof v, fabs(m * k[i]), 2);
    snprintf(buf, n, "%s%s per %s%s", m < 0 ? "-" : "+", v, per[i], unit);
}

/* The table's row of an option that cannot run: no time, cost or
 * speed-up. */
static void table_row_norun(dam_buf *b, const dam_whatif_row *r)
{
    dam_buf_printf(b, "%-26.26s %9s %9s %8s %9s %8s %7s %9s %9s %9s "
                      "%-22s %s\n",
                   r->name, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                   r->verdict == DAM_VERDICT_FAILED ? "-" : "does not fit",
                   r->verdict == DAM_VERDICT_FAILED ||
                           r->verdict == DAM_VERDICT_NOFIT
                       ? dam_verdict_name(r->verdict)
                       : "baseline (no fit)");
}

/* The RoC cell of row r: where the option costs more; a cheaper option
 * that is no worse dominates (a ratio would read negative for a gain). */
static void roc_cell(char *roc, size_t n, const dam_whatif *w,
                     const dam_whatif_row *r)
{
    const dam_whatif_row *base = &w->rows[0];
    double dc = dam_quality_cost_in(&r->cost, w->measure) -
                dam_quality_cost_in(&base->cost, w->measure);
    int has_q = base->scenario.quality.metric[0] != '\0';
    if (!base->result.memory.fits)
        snprintf(roc, n, "-");
    else if (has_q && r->roc_defined && !r->quality_unknown && dc > 0.0)
        snprintf(roc, n, "%.3g", r->roc == 0.0 ? 0.0 : r->roc);
    else if (r->roc_defined && !r->quality_unknown && dc < 0.0 &&
             r->quality_gain >= 0.0)
        snprintf(roc, n, "cheaper");
    else
        snprintf(roc, n, "-");
}

/* The options table: one time unit per column, a row per option. */
/* The head's question, the answer to it and what binds the baseline. */
static void question_answer(dam_buf *b, const dam_scenario *s,
                            const char *answer, const dam_whatif_row *base)
{
    dam_buf_printf(b, "Question  %s\n", s->question);
    size_t prose = b->len;
    dam_buf_printf(b, "Answer    %s.\n", answer);
    dam_buf_printf(b, "Binding   %s [%s]: %s\n",
                   base->result.memory.fits
                       ? dam_bound_name(base->result.bound)
                       : "memory capacity",
                   base->diagnosis.axis, base->diagnosis.headline);
    dam_fmt_plain_tail(b, prose);
}

void dam_page_whatif_times_of(const dam_whatif *w, dam_page_whatif_times *t)
{
    int serving = w->rows[0].scenario.mode == DAM_MODE_SERVING;
    for (int i = 0; i < w->nrows; i++) {
        t->step[i] = w->rows[i].result.step;
        t->run[i] = serving ? w->rows[i].result.serving.latency.p99
                            : w->rows[i].result.run_time;
    }
    t->step_unit = dam_fmt_time_pick_column(t->step, (size_t)w->nrows);
    t->run_unit = dam_fmt_time_pick_column(t->run, (size_t)w->nrows);
}

static void whatif_table(dam_buf *b, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    int serving = base->scenario.mode == DAM_MODE_SERVING;
    dam_page_whatif_times tc;
    dam_page_whatif_times_of(w, &tc);
    dam_buf_printf(b, "%-26s %9s %9s %8s %9s %8s %7s %9s %9s %9s %-22s "
                      "%s\n",
                   "option",
                   !serving               ? "step"
                   : base->result.has_sim ? "mean"
                                          : "request", /* a lone one */
                   serving ? "p99" : "run", "speedup", "GPU-h",
                   serving ? "$/1k req" : "cost", "kWh",
                   "quality", "gain", "RoC", "binds (before -> after)",
                   "verdict");
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        char step[24], run[24], cost[24], q[24], gain[24], roc[24];
        char binds[48];
        if (r->verdict == DAM_VERDICT_FAILED || !r->result.memory.fits) {
            table_row_norun(b, r);
            continue;
        }
        dam_fmt_time_in(step, sizeof step, tc.step[i], tc.step_unit,
                        DAM_FMT_SIG);
        dam_fmt_time_in(run, sizeof run, tc.run[i], tc.run_unit, DAM_FMT_SIG);
        if (serving && !r->result.has_sim) /* no p99 without a simulation */
            snprintf(run, sizeof run, "-");
        money(cost, sizeof cost, r->cost.usd);
        snprintf(q, sizeof q, r->quality_unknown ? "%.4g?" : "%.4g",
                 r->quality);
        /* no metric: nothing to show, not a 0 (as the review) */
        int has_q = base->scenario.quality.metric[0] != '\0';
        if (!has_q)
            snprintf(q, sizeof q, "-");
        if (i == 0 || !has_q)
            snprintf(gain, sizeof gain, "-");
        else if (r->quality_unknown)
            snprintf(gain, sizeof gain, "?");
        else
            snprintf(gain, sizeof gain, "%+.3g",
                     r->quality_gain == 0.0 ? 0.0 : r->quality_gain);
        roc_cell(roc, sizeof roc, w, r);
        if (i == 0)
            snprintf(binds, sizeof binds, "%s",
                     dam_bound_name(r->result.bound));
        else
            snprintf(binds, sizeof binds, "%s -> %s",
                     dam_bound_name(base->result.bound),
                     dam_bound_name(r->result.bound));
        char sp[16], gh[16], kwh[16];
        /* no speed-up over a baseline that cannot run */
        if (base->result.memory.fits || i == 0)
            snprintf(sp, sizeof sp, "%.2fx", r->speedup);
        else
            snprintf(sp, sizeof sp, "-");
        compact(gh, sizeof gh, r->cost.gpu_hours);
        compact(kwh, sizeof kwh, r->cost.kwh);
        dam_buf_printf(b, "%-26.26s %9s %9s %8s %9s %8s %7s %9s %9s %9s "
                          "%-22s %s\n",
                       r->name, step, run, sp, gh, cost, kwh, q, gain, roc,
                       binds, dam_verdict_name(r->verdict));
    }
}

/* The legend under the table: the SLO's words, what quality, gain and
 * RoC mean. */
static void whatif_legend(dam_buf *b, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_scenario *s = &base->scenario;
    /* the analytic solve sets no slo_s (no simulation judged it): the
     * scenario's objective */
    double slo_s = base->result.has_sim ? base->result.serving.slo_s
                                        : s->serving.slo_p99_s;
    if (s->mode == DAM_MODE_SERVING && !s->serving.llm.enabled &&
        slo_s > 0.0) {
        char slo[48];
        dam_text_ms(slo, sizeof slo, slo_s, 3);
        if (base->result.has_sim)
            dam_buf_printf(b, "\nSLO: p99 <= %s; \"short\": faster, but "
                              "p99 still misses it; GPU-h and cost per 1,000 "
                              "requests\n",
                           slo);
        else
            dam_buf_printf(b, "\nSLO: p99 <= %s; the analytic solve gives "
                              "no p99 (simulate for it); request: a lone "
                              "request's latency, no queueing; GPU-h and "
                              "cost per 1,000 requests\n",
                           slo);
    }
    if (!s->quality.metric[0]) {
        dam_buf_printf(b, "\nquality, gain, RoC: the scenario gives no "
                          "quality metric (a quality group), so no option's "
                          "quality is weighed against its cost (\"cheaper\": "
                          "costs less, and no lever it takes changes the "
                          "model's quality)\n");
        return;
    }
    dam_buf_printf(b, "\nquality: %s, %s is better (\"?\": a lever's effect on "
                      "it is unknown); gain: the improvement on the baseline, "
                      "+ is better (%s); RoC: gain per %s of extra cost, + is "
                      "better (\"cheaper\": costs less, no worse)\n",
                   s->quality.metric[0] ? s->quality.metric : "quality",
                   s->quality.higher_is_better ? "higher" : "lower",
                   s->quality.higher_is_better ? "a higher value"
                                               : "a lower value",
                   dam_quality_measure_name(w->measure));
}

/* Return on compute along the cost frontier, with each next step's gain. */
static void whatif_frontier(dam_buf *b, const dam_whatif *w)
{
    const dam_scenario *s = &w->rows[0].scenario;
    /* without a quality metric there is no return to chart */
    if (w->nfrontier <= 0 || !s->quality.metric[0])
        return;
    dam_buf_printf(b, "\nReturn on compute along the cost frontier (%s "
                      "per %s):\n",
                   s->quality.metric[0] ? s->quality.metric : "quality",
                   dam_quality_measure_name(w->measure));
    for (int k = 0; k < w->nfrontier; k++) {
        const dam_whatif_row *r = &w->rows[w->frontier[k]];
        char cv[48], qv[48], mv[96];
        double cost = dam_quality_cost_in(&r->cost, w->measure);
        if (w->measure == DAM_QUALITY_USD)
            dam_fmt_usd(cv, sizeof cv, cost, DAM_FMT_SIG);
        else
            dam_fmt_num(cv, sizeof cv, cost, DAM_FMT_SIG);
        dam_fmt_num(qv, sizeof qv, r->quality, 4);
        dam_buf_printf(b, "  %-28.28s %10s%s%s, quality %s", r->name, cv,
                       w->measure == DAM_QUALITY_USD ? "" : " ",
                       w->measure == DAM_QUALITY_USD
                           ? ""
                           : dam_quality_measure_name(w->measure),
                       qv);
        if (k + 1 < w->nfrontier) {
            marginal(mv, sizeof mv, w->marginal[k],
                     dam_quality_measure_name(w->measure));
            dam_buf_printf(b, "   -> next: gain %s\n", mv);
        }
        else
            dam_buf_printf(b, "\n");
    }
}

/* One option's 90 % interval row: step, speed-up, share faster,
 * GPU-hours and cost, each bound to the interval's own precision. */
static void interval_row(dam_buf *b, const dam_whatif *w, int i)
{
    const dam_whatif_row *base = &w->rows[0], *r = &w->rows[i];
    const dam_scenario *s = &base->scenario;
    const dam_answer_interval *a = &r->interval;
    char t1[24], t2[24], st[56], sp[32], fa[16], g1[16], g2[16], gh[40],
        c1[16], c2[16];
    dam_fmt_time(t1, sizeof t1, a->step.lo);
    dam_fmt_time(t2, sizeof t2, a->step.hi);
    snprintf(st, sizeof st, "%s .. %s", t1, t2);
    if (i == 0 || !base->result.memory.fits) {
        snprintf(sp, sizeof sp, "-");
        snprintf(fa, sizeof fa, "-");
    } else {
        snprintf(sp, sizeof sp, "%.2fx .. %.2fx", a->speedup.lo,
                 a->speedup.hi);
        snprintf(fa, sizeof fa, "%.0f %%", a->p_faster * 100.0);
    }
    int dg = dam_fmt_interval_decimals(a->gpu_hours.median, a->gpu_hours.lo,
                                       a->gpu_hours.hi);
    dam_fmt_fixed(g1, sizeof g1, a->gpu_hours.lo, dg);
    dam_fmt_fixed(g2, sizeof g2, a->gpu_hours.hi, dg);
    snprintf(gh, sizeof gh, "%s .. %s", g1, g2);
    int dc = dam_fmt_interval_decimals(a->cost_usd.median, a->cost_usd.lo,
                                       a->cost_usd.hi);
    char u1[14], u2[14];
    dam_fmt_fixed(u1, sizeof u1, a->cost_usd.lo, dc);
    dam_fmt_fixed(u2, sizeof u2, a->cost_usd.hi, dc);
    snprintf(c1, sizeof c1, "$%s", u1);
    snprintf(c2, sizeof c2, "$%s", u2);
    if (s->mode == DAM_MODE_SERVING) { /* a lone request's cost is not
                                          the service's */
        snprintf(c1, sizeof c1, "-");
        c2[0] = '\0';
    } else if (!(a->cost_usd.hi > 0.0)) { /* no price */
        snprintf(c1, sizeof c1, "n/a");
        c2[0] = '\0';
    }
    dam_buf_printf(b, "  %-28.28s %-19s %-15s %6s  %-17s %s%s%s\n", r->name,
                   st, sp, fa, s->mode == DAM_MODE_SERVING ? "-" : gh, c1,
                   c2[0] ? " .. " : "", c2);
}

/* The 90 % intervals of every option that runs, over the same draws. */
static void whatif_intervals(dam_buf *b, const dam_whatif *w)
{
    const dam_scenario *s = &w->rows[0].scenario;
    if (!w->rows[0].has_interval)
        return;
    int nconst = dam_uncertainty_sources(s) - s->nuncertain - 1;
    dam_buf_printf(b, "\n90 %% intervals (%s; %d paired draws over "
                      "%d uncertain input%s, %d calibrated constant%s "
                      "and the model's step error, the same draws for "
                      "every option):\n",
                   w->rows[0].interval.carried
                       ? "of the simulated figures: the analytic draws' "
                         "spread about each"
                       : "analytic",
                   w->rows[0].interval.samples, s->nuncertain,
                   s->nuncertain == 1 ? "" : "s", nconst,
                   nconst == 1 ? "" : "s");
    if (s->mode == DAM_MODE_SERVING && !w->rows[0].interval.carried)
        dam_buf_printf(b, "  (of a lone request's time, without "
                          "queueing)\n");
    dam_buf_printf(b, "  %-28s %-19s %-15s %6s  %-17s %s\n", "option",
                   s->mode != DAM_MODE_SERVING ? "step"
                   : w->rows[0].interval.carried ? "mean latency"
                                                 : "lone request",
                   "speed-up", "faster", "GPU-hours", "cost");
    for (int i = 0; i < w->nrows; i++)
        if (w->rows[i].has_interval && w->rows[i].result.memory.fits)
            interval_row(b, w, i);
    dam_buf_printf(b, "  faster: share of draws in which the option is "
                      "at least 2 %% faster than the baseline\n");
}

/* Why each option got its verdict (and the trap a wasted one hides). */
static void whatif_why(dam_buf *b, const dam_whatif *w)
{
    if (w->nrows < 2) /* no option: no heading over nothing */
        return;
    dam_buf_printf(b, "\nWhy\n");
    for (int i = 1; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        dam_buf_printf(b, "  %-28.28s %-7s %s\n", r->name,
                       dam_verdict_name(r->verdict),
                       r->verdict == DAM_VERDICT_FAILED ? r->error : r->why);
        if (r->verdict == DAM_VERDICT_WASTED && r->anti_pattern[0])
            dam_buf_printf(b, "  %-28s %-7s trap: %s\n", "", "",
                           r->anti_pattern);
    }
}

/* The short block's lines after the answer: the figure that decides it
 * for the option the answer is about (else the best, else the baseline)
 * with its interval, and what that option costs against the baseline. */
static void whatif_short(dam_buf *b, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_whatif_row *o = subject(w);
    if (!o || o->verdict == DAM_VERDICT_FAILED)
        o = dam_whatif_best(w);
    if (!o)
        o = base;
    int serving = base->scenario.mode == DAM_MODE_SERVING;
    char t1[48], t2[48], t3[48];
    if (o->verdict == DAM_VERDICT_NOFIT || !o->result.memory.fits) {
        dam_fmt_memory(t1, sizeof t1, o->result.memory.total);
        dam_fmt_memory(t2, sizeof t2, o->result.memory.capacity);
        dam_buf_printf(b, "Figure    %s: needs %s per GPU of %s: it does "
                          "not fit\n",
                       o->name, t1, t2);
        return;
    }
    if (serving && o->result.has_sim && o->result.serving.slo_s > 0.0) {
        dam_fmt_time(t1, sizeof t1, o->result.serving.latency.p99);
        dam_fmt_time(t2, sizeof t2, o->result.serving.p99_ci95);
        dam_fmt_time(t3, sizeof t3, o->result.serving.slo_s);
        dam_buf_printf(b, "Figure    %s: p99 %s +- %s (95 %% CI) against the "
                          "%s SLO\n",
                       o->name, t1, t2, t3);
    } else if (serving && !o->result.has_sim &&
               (o->result.serving.overloaded ||
                base->result.serving.overloaded)) {
        /* past the capacity no latency is the answer: the capacity is */
        dam_buf_printf(b, "Figure    %s: capacity %.4g requests/s against "
                          "%.4g offered%s\n",
                       o->name, o->result.serving.capacity,
                       o->scenario.serving.rate,
                       o->result.serving.overloaded ? ": overloaded" : "");
    } else if (o != base && base->result.memory.fits) {
        dam_buf_printf(b, "Figure    %s: %.2fx", o->name, o->speedup);
        if (o->has_interval && o->speedup_hi > o->speedup_lo)
            dam_buf_printf(b, " (90 %%: %.2fx to %.2fx)", o->speedup_lo,
                           o->speedup_hi);
        dam_fmt_time(t1, sizeof t1, serving ? o->result.step
                                            : o->result.run_time);
        dam_buf_printf(b, ", %s %s\n", serving ? "a request" : "the run",
                       t1);
    } else {
        dam_fmt_time(t1, sizeof t1, serving ? o->result.step
                                            : o->result.run_time);
        dam_buf_printf(b, "Figure    %s: %s %s\n", o->name,
                       serving ? "a request" : "the run", t1);
    }
    if (!(o->cost.usd > 0.0))
        return;
    /* serving costs come per 1,000 requests: said per million */
    double k = serving ? 1000.0 : 1.0;
    dam_fmt_usd(t1, sizeof t1, o->cost.usd * k, DAM_FMT_SIG);
    dam_buf_printf(b, "Cost      %s: %s %s", o->name, t1,
                   serving ? "per million requests" : "the run");
    if (o != base && base->cost.usd > 0.0 && base->result.memory.fits) {
        dam_fmt_usd(t2, sizeof t2, base->cost.usd * k, DAM_FMT_SIG);
        dam_buf_printf(b, ", against %s as configured", t2);
    }
    dam_buf_printf(b, "\n");
}

void dam_page_whatif_text(dam_buf *b, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    if (base->result.serving.llm.enabled) {
        dam_llm_whatif_text(b, w);
        return;
    }
    const dam_scenario *s = &base->scenario;
    char answer[1024];
    dam_page_whatif_answer(answer, sizeof answer, w);
    dam_buf_printf(b, "%s\n", s->name);
    char g[32];
    dam_fmt_int(g, sizeof g, (long long)dam_scenario_gpus(s));
    dam_buf_printf(b, "  %s, %s x %s, %s, batch %d per GPU (%s)\n",
                   s->workload.model.name, g, s->machine.gpu.id, dam_precision_name(s->workload.precision),
                   s->workload.batch_size,
                   base->result.has_sim ? "simulated" : "analytic");
    question_answer(b, s, answer, base);
    whatif_short(b, w);
    dam_buf_printf(b, "\n");
    whatif_table(b, w);
    whatif_legend(b, w);
    whatif_frontier(b, w);
    whatif_intervals(b, w);
    whatif_why(b, w);
}

void dam_page_whatif_csv(dam_buf *b, const dam_whatif *w)
{
    int serving = w->rows[0].scenario.mode == DAM_MODE_SERVING;
    dam_buf_printf(b, "option,verdict,step_s,epoch_s,run_s,speedup,"
                      "speedup_p05,speedup_p95,gpu_hours,cost_usd,"
                      "energy_kwh,quality,quality_gain,quality_unknown,roc,"
                      "bound_before,bound_after");
    if (serving)
        dam_buf_printf(b, ",p50_latency_s,p95_latency_s,p99_latency_s,"
                          "slo_p99_s,slo_attainment,slo_met,"
                          "cost_per_1k_requests_usd");
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        char id[48];
        dam_csv_ident(id, sizeof id, dam_term_name((dam_term)t));
        dam_buf_printf(b, ",saved_%s_s", id);
    }
    dam_buf_printf(b, "\n");
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        const dam_result *x = &r->result;
        int failed = r->verdict == DAM_VERDICT_FAILED;
        double nan = (double)NAN;
        /* names are user text: quoted when they need to be */
        dam_csv_field(b, r->name);
        dam_buf_printf(b, ",%s", dam_verdict_name(r->verdict));
        /* a service has no epoch or run: empty, not 0 */
        double v[] = {x->step, serving ? nan : x->epoch_time,
                      serving ? nan : x->run_time, r->speedup,
                      /* the baseline's speed-up is 1 by definition */
                      i > 0 && r->has_interval ? r->speedup_lo : nan,
                      i > 0 && r->has_interval ? r->speedup_hi : nan,
                      r->cost.gpu_hours, r->cost.usd > 0 ? r->cost.usd : nan,
                      r->cost.kwh, r->quality, r->quality_gain};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
            dam_buf_printf(b, ",");
            if (!failed)
                dam_csv_num(b, v[k]);
        }
        dam_buf_printf(b, ",");
        if (!failed)
            dam_buf_printf(b, "%d", r->quality_unknown);
        dam_buf_printf(b, ",");
        if (!failed && r->roc_defined)
            dam_csv_num(b, r->roc);
        dam_buf_printf(b, ",%s,%s", dam_bound_name(w->rows[0].result.bound),
                       failed ? "" : dam_bound_name(x->bound));
        if (serving) {
            double sv[] = {x->serving.latency.p50, x->serving.latency.p95,
                           x->serving.latency.p99, x->serving.slo_s,
                           x->serving.slo_attainment,
                           (double)dam_serving_slo_met(&x->serving),
                           x->serving.cost_per_1k};
            for (size_t k = 0; k < sizeof sv / sizeof sv[0]; k++) {
                dam_buf_printf(b, ",");
                if (!failed && x->has_sim)
                    dam_csv_num(b, sv[k]);
            }
        }
        for (int t = 0; t < DAM_TERM_COUNT; t++) {
            dam_buf_printf(b, ",");
            if (!failed)
                dam_csv_num(b, r->saved[t]);
        }
        dam_buf_printf(b, "\n");
    }
}

/* A service simulated under load in the draws at a lone request's 5th
 * and 95th percentile (dam_whatif_row.has_load), as JSON: each draw's own
 * figures, with the CI half-widths (the row's) its SLO verdict adds to
 * them, then the 90 % interval they span. */
static json_t *load_json(const dam_whatif_row *r)
{
    const dam_serving_result *sv = &r->result.serving;
    int llm = sv->llm.enabled;
    json_t *u = json_object();
    const char *end[2] = {"fast_draw", "slow_draw"};
    for (int k = 0; k < 2; k++) {
        json_t *x = json_object();
        if (llm) {
            json_object_set_new(x, "ttft_s",
                                dam_json_num(r->load.draw_ttft[k]));
            json_object_set_new(x, "tpot_s",
                                dam_json_num(r->load.draw_tpot[k]));
            json_object_set_new(x, "ttft_ci95_s",
                                dam_json_num(sv->llm.ttft.q_ci));
            json_object_set_new(x, "tpot_ci95_s",
                                dam_json_num(sv->llm.tpot.q_ci));
        }
        if (!llm || sv->slo_s > 0.0) {
            json_object_set_new(x, "p99_s",
                                dam_json_num(r->load.draw_p99[k]));
            json_object_set_new(x, "p99_ci95_s",
                                dam_json_num(sv->p99_ci95));
        }
        json_object_set_new(x, "mean_latency_s",
                            dam_json_num(r->load.draw_step[k]));
        json_object_set_new(x, "slo_met",
                            json_boolean(r->load.met[k]));
        json_object_set_new(u, end[k], x);
    }
    json_t *iv = json_object();
    const double *v[3] = {r->load.ttft, r->load.tpot, r->load.p99};
    static const char *const nm[3] = {"ttft_q_s", "tpot_q_s", "p99_s"};
    for (int f = llm ? 0 : 2; f < 3; f++) {
        if (f == 2 && llm && !(sv->slo_s > 0.0))
            continue;
        json_t *y = json_object();
        json_object_set_new(y, "p05", dam_json_num(v[f][0]));
        json_object_set_new(y, "p95", dam_json_num(v[f][1]));
        json_object_set_new(iv, nm[f], y);
    }
    json_object_set_new(u, "interval_90", iv);
    return u;
}

struct json_t *dam_page_whatif_json(const dam_whatif *w)
{
    json_t *o = json_object();
    char answer[1024];
    dam_page_whatif_answer(answer, sizeof answer, w);
    const dam_whatif_row *base = &w->rows[0];
    json_object_set_new(o, "scenario", dam_json_scenario(&base->scenario));
    json_object_set_new(o, "question", json_string(base->scenario.question));
    json_object_set_new(o, "answer", json_string(answer));
    json_object_set_new(o, "quality_metric",
                        json_string(base->scenario.quality.metric));
    json_object_set_new(o, "quality_higher_is_better",
                        json_boolean(base->scenario.quality.higher_is_better));
    json_object_set_new(o, "roc_cost_measure",
                        json_string(dam_quality_measure_name(w->measure)));
    json_t *rows = json_array();
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        json_t *e = json_object();
        json_object_set_new(e, "option", json_string(r->name));
        json_object_set_new(e, "combination", json_boolean(r->is_combination));
        json_object_set_new(e, "verdict",
                            json_string(dam_verdict_name(r->verdict)));
        json_object_set_new(e, "why", json_string(r->why));
        if (r->anti_pattern[0])
            json_object_set_new(e, "anti_pattern",
                                json_string(r->anti_pattern));
        if (r->verdict == DAM_VERDICT_FAILED) {
            json_object_set_new(e, "error", json_string(r->error));
            json_array_append_new(rows, e);
            continue;
        }
        json_object_set_new(e, "levers_applied",
                            json_string(r->scenario.applied));
        json_object_set_new(e, "fits", json_boolean(r->result.memory.fits));
        /* no speed-up over a baseline that cannot run, nor of an option
         * that cannot */
        int quote = base->result.memory.fits && r->result.memory.fits;
        if (quote)
            json_object_set_new(e, "speedup", dam_json_num(r->speedup));
        if (r->has_interval) {
            /* the baseline's speed-up is 1 by definition: no interval */
            if (i > 0 && quote) {
                json_t *iv = json_object();
                json_object_set_new(iv, "p05", dam_json_num(r->speedup_lo));
                json_object_set_new(iv, "p95", dam_json_num(r->speedup_hi));
                /* under load (LLM serving) the two end draws give the
                 * interval: no share of draws is known */
                if (r->speedup_under_load)
                    json_object_set_new(iv, "under_load_end_draws",
                                        json_true());
                else
                    json_object_set_new(iv, "share_of_draws_faster",
                                        dam_json_num(r->p_faster));
                json_object_set_new(e, "speedup_over_uncertain_inputs", iv);
            }
            json_object_set_new(e, "intervals_90",
                                dam_json_answer_interval(
                                    &r->interval, r->scenario.mode !=
                                                      DAM_MODE_SERVING));
        }
        if (r->has_load)
            json_object_set_new(e, "under_load_at_interval_ends",
                                load_json(r));
        json_object_set_new(e, "step_change", dam_json_num(r->step_change));
        json_object_set_new(e, "run_change", dam_json_num(r->run_change));
        json_t *c = json_object();
        json_object_set_new(c, "gpu_hours", dam_json_num(r->cost.gpu_hours));
        json_object_set_new(c, "usd", dam_json_num(r->cost.usd));
        json_object_set_new(c, "kwh", dam_json_num(r->cost.kwh));
        json_object_set_new(e, "cost", c);
        json_object_set_new(e, "quality", dam_json_num(r->quality));
        json_object_set_new(e, "quality_change",
                            dam_json_num(r->quality - base->quality));
        json_object_set_new(e, "quality_gain", dam_json_num(r->quality_gain));
        json_object_set_new(e, "quality_unknown",
                            json_boolean(r->quality_unknown));
        json_object_set_new(e, "roc", r->roc_defined
                                          ? dam_json_num(r->roc)
                                          : json_null());
        json_object_set_new(e, "bound_before",
                            json_string(dam_bound_name(base->result.bound)));
        json_object_set_new(e, "bound_after",
                            json_string(dam_bound_name(r->result.bound)));
        json_t *sv = json_object();
        for (int t = 0; t < DAM_TERM_COUNT; t++)
            json_object_set_new(sv, dam_term_name((dam_term)t),
                                dam_json_num(r->saved[t]));
        json_object_set_new(e, "saved_per_step_s", sv);
        json_object_set_new(e, "result",
                            dam_json_result(&r->scenario, &r->result,
                                            &r->diagnosis));
        json_array_append_new(rows, e);
    }
    json_object_set_new(o, "options", rows);
    json_t *fr = json_array();
    for (int k = 0; k < w->nfrontier; k++) {
        const dam_whatif_row *r = &w->rows[w->frontier[k]];
        json_t *e = json_object();
        json_object_set_new(e, "option", json_string(r->name));
        json_object_set_new(e, "cost", dam_json_num(dam_quality_cost_in(
                                           &r->cost, w->measure)));
        json_object_set_new(e, "quality", dam_json_num(r->quality));
        json_object_set_new(e, "marginal_roc_to_next",
                            k + 1 < w->nfrontier ? dam_json_num(w->marginal[k])
                                                 : json_null());
        json_array_append_new(fr, e);
    }
    json_object_set_new(o, "frontier", fr);
    return o;
}

/* ---- LLM serving ------------------------------------------------------ */

/* (Here, not in llm.c: it opens with dam_page_whatif_answer, no-fit first.) */
/* The short block after the answer: the objectives at their quantile for
 * the best option that meets them (else the baseline), and its cost per
 * million output tokens against the baseline's. */
static void llm_whatif_short(dam_buf *b, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    /* the option the answer names (a figure of the fastest beside an
     * answer naming the cheapest read as two recommendations) */
    const dam_whatif_row *o = dam_llm_whatif_cheapest(w);
    if (!o)
        o = dam_whatif_best(w);
    if (!o)
        o = base;
    const dam_llm_result *l = &o->result.serving.llm;
    if (!o->result.has_sim || !o->result.memory.fits)
        return;
    dam_buf_printf(b, "Figure    %s: p%.0f TTFT %.4g ms +- %.3g (95 %% CI) "
                      "against %.4g ms, TPOT %.4g ms +- %.3g against %.4g "
                      "ms, on %.0f GPU%s\n",
                   o->name, l->slo_quantile * 100.0, l->ttft.q * 1e3,
                   l->ttft.q_ci * 1e3, l->slo_ttft_s * 1e3, l->tpot.q * 1e3,
                   l->tpot.q_ci * 1e3, l->slo_tpot_s * 1e3, l->gpus,
                   DAM_PLURAL(l->gpus));
    if (!(l->cost_per_mtok > 0.0))
        return;
    dam_buf_printf(b, "Cost      %s: $%.3g per million output tokens", o->name,
                   l->cost_per_mtok);
    const dam_llm_result *bl = &base->result.serving.llm;
    if (o != base && bl->cost_per_mtok > 0.0 && base->result.memory.fits)
        dam_buf_printf(b, ", against $%.3g as configured", bl->cost_per_mtok);
    dam_buf_printf(b, "\n");
}

/* Each option's 90 % interval of one request alone, end to end. */
static void llm_whatif_intervals(dam_buf *b, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    if (!base->has_interval)
        return;
    dam_buf_printf(b, "\n90 %% intervals of one request alone, end to "
                      "end (analytic, %d paired draws over the "
                      "calibrated constants and the model's step "
                      "error):\n",
                   base->interval.samples);
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        if (!r->has_interval)
            continue;
        const dam_interval *iv = r->interval.carried
                                     ? &r->interval.step_analytic
                                     : &r->interval.step;
        dam_buf_printf(b, "  %-24.24s %.4g to %.4g s\n", r->name, iv->lo,
                       iv->hi);
    }
}

/* Why each option got its verdict, then the intervals. */
static void llm_whatif_why(dam_buf *b, const dam_whatif *w)
{
    if (w->nrows > 1)
        dam_buf_printf(b, "\nWhy:\n");
    for (int i = 1; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        dam_buf_printf(b, "  %-24.24s %s\n", r->name,
                       r->verdict == DAM_VERDICT_FAILED ? r->error : r->why);
    }
    llm_whatif_intervals(b, w);
}

/* The analytic what-if of an LLM service: each option's one request of
 * mean sizes alone (its prefill, a decode step, end to end), no queueing
 * nor batching, so no SLO under load, goodput nor cost per token. */
static void llm_whatif_alone(dam_buf *b, const dam_whatif *w)
{
    dam_buf_printf(b, "%-24s %5s %9s %9s %11s %9s %-18s %s\n", "option",
                   "GPUs", "TTFT ms", "TPOT ms", "request s", "KV tokens",
                   "binds", "verdict");
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        const dam_llm_result *l = &r->result.serving.llm;
        if (r->verdict == DAM_VERDICT_FAILED)
            dam_buf_printf(b, "%-24.24s %5s %9s %9s %11s %9s %-18s %s\n",
                           r->name, "-", "-", "-", "-", "-", "-",
                           dam_verdict_name(r->verdict));
        else if (!r->result.memory.fits)
            dam_buf_printf(b, "%-24.24s %5.0f %9s %9s %11s %9.3g %-18s %s\n",
                           r->name, l->gpus, "-", "-", "-", l->memory.tokens,
                           "does not fit", dam_verdict_name(r->verdict));
        else
            dam_buf_printf(b, "%-24.24s %5.0f %9.4g %9.4g %11.4g %9.3g "
                              "%-18s %s\n",
                           r->name, l->gpus, l->t_prefill * 1e3,
                           l->t_decode1 * 1e3, r->result.step,
                           l->memory.tokens,
                           dam_bound_name(r->result.bound),
                           dam_verdict_name(r->verdict));
    }
    dam_buf_printf(b, "\nOne request of mean sizes alone, no queueing nor "
                      "batching: TTFT its prefill, TPOT a decode step at its "
                      "mean context, request its end to end; KV tokens: the "
                      "cache of one replica. The SLOs, goodput and cost per "
                      "token need the simulation (drop --analytic).\n");
    llm_whatif_why(b, w);
}

void dam_llm_whatif_text(dam_buf *b, const dam_whatif *w)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_scenario *s = &base->scenario;
    const dam_llm *q = &s->serving.llm;
    char answer[1024], dep[160];
    int pct = (int)lround(q->slo_quantile * 100.0);
    dam_page_whatif_answer(answer, sizeof answer, w); /* no-fit first */
    dam_llm_deployment_text(dep, sizeof dep, s);
    dam_buf_printf(b, "%s\n", s->name);
    dam_buf_printf(b, "  %s on %s at %.4g requests/s (%s)\n",
                   s->workload.model.name, dep, s->serving.rate,
                   base->result.has_sim ? "simulated"
                                        : "analytic: one request alone");
    question_answer(b, s, answer, base);
    llm_whatif_short(b, w);
    dam_buf_printf(b, "\n");
    if (!base->result.has_sim) {
        llm_whatif_alone(b, w);
        return;
    }
    dam_buf_printf(b, "%-24s %5s %9s %9s %8s %9s %8s %9s %9s %-18s %s\n",
                   "option", "GPUs", "TTFT ms", "TPOT ms", "goodput",
                   "tok/s/GPU", "$/Mtok", "KV tokens", "running", "binds",
                   "verdict");
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        const dam_llm_result *l = &r->result.serving.llm;
        if (r->verdict == DAM_VERDICT_FAILED) {
            dam_buf_printf(b, "%-24.24s %5s %9s %9s %8s %9s %8s %9s %9s "
                              "%-18s %s\n",
                           r->name, "-", "-", "-", "-", "-", "-", "-", "-",
                           "-", dam_verdict_name(r->verdict));
            continue;
        }
        char gp[16], cost[16], run[16];
        snprintf(gp, sizeof gp, "%.1f%%", l->goodput_fraction * 100.0);
        if (l->cost_per_mtok > 0.0)
            snprintf(cost, sizeof cost, "$%.3g", l->cost_per_mtok);
        else
            snprintf(cost, sizeof cost, "n/a");
        snprintf(run, sizeof run, "%.3g", l->running_mean);
        if (!r->result.memory.fits)
            dam_buf_printf(b, "%-24.24s %5.0f %9s %9s %8s %9s %8s %9.3g %9s "
                              "%-18s %s\n",
                           r->name, l->gpus, "-", "-", "-", "-", "-",
                           l->memory.tokens, "-", "does not fit",
                           dam_verdict_name(r->verdict));
        else
            dam_buf_printf(b, "%-24.24s %5.0f %9.4g %9.4g %8s %9.4g %8s "
                              "%9.3g %9s %-18s %s\n",
                           r->name, l->gpus, l->ttft.q * 1e3,
                           l->tpot.q * 1e3, gp, l->tokens_per_s_gpu, cost,
                           l->memory.tokens, run,
                           dam_bound_name(r->result.bound),
                           dam_verdict_name(r->verdict));
    }
    dam_buf_printf(b, "\nTTFT and TPOT at p%d (SLOs %.4g and %.4g ms, met "
                      "with the headroom of their 95 %% intervals); goodput: "
                      "requests meeting both; KV tokens: the cache of one "
                      "replica; running: sequences at once, mean\n",
                   pct, q->slo_ttft_s * 1e3, q->slo_tpot_s * 1e3);
    llm_whatif_why(b, w);
}
