/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * review.c: the budget-review document of a what-if (see review.h).
 *
 * Design note: page 1 is an executive summary: the question, the answer
 * with the 90 % interval of the speed-up it rests on (where the rows carry
 * one), the chart that shows why (where the time goes; for serving, p99
 * against the SLO), the numbers that matter (time, cost, GPU-hours, as
 * configured and with the recommended option, each with its 90 % interval
 * where the results carry one), the recommendation and what would change
 * it. Then the charts, the key numbers, the lever table, the iron law per
 * stage, the roofline phases, the diagnosis and every input with its
 * source. Every string is formatted once (render/fmt) into a pool that
 * lives as long as the review; every number comes from the what-if's
 * results, the uncertainty run or the model's cost function.
 */
#include "render/review/review.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/scaling.h"
#include "render/out/fmt.h"
#include "render/page/llm.h"
#include "render/page/whatif_page.h"

/* ---- storage ---------------------------------------------------------- */

/* A pool of strings that live as long as the review. */
typedef struct pool {
    char **s;
    size_t n, cap;
} pool;

static const char *keep(pool *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *keep(pool *p, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    p->s = dam_grow(p->s, sizeof *p->s, p->n + 1, &p->cap);
    p->s[p->n] = dam_strdup(buf);
    return p->s[p->n++];
}

static void pool_free(pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        dam_free(p->s[i]);
    dam_free(p->s);
}

/* Growable row-major cell list. */
typedef struct cells {
    const char **c;
    size_t n, cap;
} cells;

static void put(cells *t, const char *v)
{
    t->c = (const char **)dam_grow((void *)t->c, sizeof *t->c, t->n + 1,
                                   &t->cap);
    t->c[t->n++] = v;
}

typedef struct rows {
    dam_report_row *r;
    size_t n, cap;
} rows;

static void row(rows *t, const char *k, const char *v, const char *src)
{
    t->r = dam_grow(t->r, sizeof *t->r, t->n + 1, &t->cap);
    t->r[t->n].key = k;
    t->r[t->n].value = v;
    t->r[t->n].source = src;
    t->n++;
}

/* Everything a review owns besides its chartset. */
struct dam_review_store {
    pool pool;                      /* formatted strings */
    rows key;                       /* key numbers */
    rows assumptions;               /* inputs with their sources */
    cells cells[DAM_REVIEW_TABLES]; /* table cells, row-major */
    cells head;                     /* the headline table's cells */
    const char *head_hdr[3];        /* its header */
    dam_report_table headline;      /* the numbers that matter */
    dam_chart why;                  /* the summary's chart, short title */
    dam_chart_breakdown why_bd;     /* its input, when a breakdown */
    dam_chart_levers why_lv;        /* its input, when levers */
    const char *lev_hdr[9];         /* the lever table's header and */
    int lev_num[9];                 /* alignment, blank columns left out */
};

/* What a review section needs. */
typedef struct ctx {
    const dam_whatif *w;
    const dam_whatif_row *base, *best;
    const dam_scenario *s;
    const dam_result *r;
    const dam_uncertainty *u; /* may be NULL */
    int serving;              /* judged on p99 against an SLO */
    pool *P;
} ctx;

/* ---- formatting helpers ------------------------------------------------ */

static const char *fmt_time(pool *P, double s)
{
    char b[48];
    dam_fmt_time(b, sizeof b, s);
    return keep(P, "%s", b);
}

/* A time in a given column unit. */
static const char *fmt_time_in(pool *P, double s, dam_fmt_time_unit u)
{
    char b[48];
    dam_fmt_time_in(b, sizeof b, s, u, DAM_FMT_SIG);
    return keep(P, "%s", b);
}

/* v of kind k with its interval when iv is a real one. */
static const char *fmt_iv(pool *P, double v, const dam_interval *iv,
                          dam_fmt_kind k)
{
    char b[128];
    if (iv && iv->hi > iv->lo)
        dam_fmt_interval(b, sizeof b, v, iv->lo, iv->hi, k);
    else
        dam_fmt_value(b, sizeof b, v, k, DAM_FMT_SIG);
    return keep(P, "%s", b);
}

/* A time in unit tu, with its interval when iv is a real one. */
static const char *fmt_time_iv(pool *P, double v, const dam_interval *iv,
                               dam_fmt_time_unit tu)
{
    char a[48], lo[48], hi[48];
    if (!iv || !(iv->hi > iv->lo))
        return fmt_time_in(P, v, tu);
    /* decimals from the interval, in the row's unit */
    double u = dam_fmt_time_unit_seconds(tu);
    int d = dam_fmt_interval_decimals(v / u, iv->lo / u, iv->hi / u);
    dam_fmt_fixed(a, sizeof a, v / u, d);
    dam_fmt_fixed(lo, sizeof lo, iv->lo / u, d);
    dam_fmt_fixed(hi, sizeof hi, iv->hi / u, d);
    return keep(P, "%s %s (%s to %s %s)", a, dam_fmt_time_symbol(tu), lo,
                hi, dam_fmt_time_symbol(tu));
}

/* The speed-up of row x, with its interval when the row has one. */
static const char *fmt_speedup(pool *P, const dam_whatif_row *x)
{
    dam_interval iv = {x->speedup_lo, x->speedup, x->speedup_hi};
    return fmt_iv(P, x->speedup, x->has_interval ? &iv : NULL,
                  DAM_FMT_FACTOR);
}

/* An option's speed-up cell in a table: none over a baseline that cannot
 * run (the what-if text's rule). */
static const char *speedup_cell(pool *P, const dam_whatif *w,
                                const dam_whatif_row *x)
{
    if (x != &w->rows[0] && !w->rows[0].result.memory.fits)
        return "-";
    return fmt_speedup(P, x);
}

/* ---- page 1 ------------------------------------------------------------ */

/* The answer, and the 90 % intervals of the speed-ups it names. */
static const char *answer_text(const ctx *c, const char *answer)
{
    char extra[512] = "";
    size_t len = 0;
    const dam_whatif_row *named[2] = {c->w->nrows > 1 ? &c->w->rows[1] : NULL,
                                      c->best};
    /* none over a baseline that cannot run (the what-if's rule: "no
     * speed-up is quoted against it" read beside "B200 5x (4 to 7x)") */
    for (int k = 0; k < 2 && c->w->rows[0].result.memory.fits; k++) {
        const dam_whatif_row *x = named[k];
        /* none for an option that does not fit: it has no speed-up */
        if (!x || (k == 1 && x == named[0]) || !x->has_interval ||
            x->verdict == DAM_VERDICT_FAILED || !x->result.memory.fits ||
            len >= sizeof extra)
            continue;
        char iv[96];
        if (x->speedup_hi > x->speedup_lo) {
            dam_fmt_interval(iv, sizeof iv, x->speedup, x->speedup_lo,
                             x->speedup_hi, DAM_FMT_FACTOR);
        } else {
            char v[48];
            dam_fmt_fixed(v, sizeof v, x->speedup, 2);
            snprintf(iv, sizeof iv, "%sx in every draw", v);
        }
        len += (size_t)snprintf(extra + len, sizeof extra - len,
                                "%s%s %s", len ? "; " : "", x->name, iv);
    }
    if (!len || strstr(answer, "90 %"))
        return keep(c->P, "%s.", answer);
    return keep(c->P, "%s. Speed-up, 90 %% interval: %s.", answer, extra);
}

/* The interval of a row's figure, or NULL when the row carries none. */
#define IV(x, field) ((x)->has_interval ? &(x)->interval.field : NULL)

/* The numbers that matter: time, cost, GPU-hours, as configured and with
 * the recommended option, each with its 90 % interval where the row
 * carries one. */
static void headline(dam_review_store *st, const ctx *c)
{
    cells *t = &st->head;
    const dam_whatif_row *b = c->base, *x = c->best;
    int ncols = x ? 3 : 2;
    st->head_hdr[0] = "";
    st->head_hdr[1] = "as configured";
    st->head_hdr[2] = x ? keep(c->P, "with %s", x->name) : NULL;
    if (c->s->serving.llm.enabled) {
        /* the objectives at their quantile and the cost per output token,
         * as the answer quotes them */
        const dam_whatif_row *opt[2] = {b, x};
        const char *what[4] = {"TTFT", "TPOT", "cost per million output "
                                               "tokens", "GPUs"};
        for (int k = 0; k < 4; k++) {
            put(t, k < 2 ? keep(c->P, "p%.0f %s",
                                b->result.serving.llm.slo_quantile * 100.0,
                                what[k])
                         : what[k]);
            for (int j = 0; j < ncols - 1; j++) {
                const dam_llm_result *l = &opt[j]->result.serving.llm;
                int ok = opt[j]->result.has_sim &&
                         opt[j]->result.memory.fits;
                put(t, !ok     ? "-"
                       : k == 0 ? fmt_time(c->P, l->ttft.q)
                       : k == 1 ? fmt_time(c->P, l->tpot.q)
                       : k == 2 ? (l->cost_per_mtok > 0.0
                                       ? fmt_iv(c->P, l->cost_per_mtok, NULL,
                                                DAM_FMT_USD)
                                       : "n/a (no price)")
                                : keep(c->P, "%.0f", l->gpus));
            }
        }
    } else if (c->s->mode != DAM_MODE_SERVING && !b->result.memory.fits) {
        /* what does not fit has no time nor cost: the best option's */
        static const char *const what[3] = {"time to train",
                                            "cost of the run", "GPU-hours"};
        for (int k = 0; k < 3; k++) {
            put(t, what[k]);
            put(t, "does not fit");
            if (x)
                put(t, k == 0   ? fmt_iv(c->P, x->result.run_time,
                                         IV(x, run_time), DAM_FMT_TIME)
                       : k == 1 ? (x->cost.usd > 0.0
                                       ? fmt_iv(c->P, x->cost.usd,
                                                IV(x, cost_usd), DAM_FMT_USD)
                                       : "n/a")
                                : fmt_iv(c->P, x->cost.gpu_hours,
                                         IV(x, gpu_hours), DAM_FMT_PLAIN));
        }
    } else if (c->s->mode == DAM_MODE_SERVING) {
        /* per million requests: the rows' costs are per 1,000, from the
         * simulated throughput; the draws' cost interval is of the
         * simulated window's run ("$457.3 ($832.7 to $832.8)"): none */
        int bf = b->result.memory.fits;
        put(t, "p99 latency");
        put(t, bf ? fmt_time(c->P, b->result.serving.latency.p99)
                  : "does not fit");
        if (x)
            put(t, fmt_time(c->P, x->result.serving.latency.p99));
        put(t, "cost per million requests");
        put(t, bf ? fmt_iv(c->P, b->cost.usd * 1000.0, NULL, DAM_FMT_USD)
                  : "does not fit");
        if (x)
            put(t, fmt_iv(c->P, x->cost.usd * 1000.0, NULL, DAM_FMT_USD));
        put(t, "GPU-hours per million requests");
        put(t, bf ? fmt_iv(c->P, b->cost.gpu_hours * 1000.0, NULL,
                           DAM_FMT_PLAIN)
                  : "does not fit");
        if (x)
            put(t, fmt_iv(c->P, x->cost.gpu_hours * 1000.0, NULL,
                          DAM_FMT_PLAIN));
    } else {
        /* one time unit across the row */
        double tt[2] = {b->result.run_time, x ? x->result.run_time : 0};
        dam_fmt_time_unit tu = dam_fmt_time_pick_column(tt, 2);
        put(t, "time to train");
        put(t, fmt_time_iv(c->P, b->result.run_time, IV(b, run_time), tu));
        if (x)
            put(t, fmt_time_iv(c->P, x->result.run_time, IV(x, run_time),
                               tu));
        put(t, "cost of the run");
        put(t, b->cost.usd > 0.0 ? fmt_iv(c->P, b->cost.usd, IV(b, cost_usd),
                                          DAM_FMT_USD)
                                 : "n/a (no price)");
        if (x)
            put(t, x->cost.usd > 0.0 ? fmt_iv(c->P, x->cost.usd,
                                              IV(x, cost_usd), DAM_FMT_USD)
                                     : "n/a");
        put(t, "GPU-hours");
        put(t, fmt_iv(c->P, b->cost.gpu_hours, IV(b, gpu_hours),
                      DAM_FMT_PLAIN));
        if (x)
            put(t, fmt_iv(c->P, x->cost.gpu_hours, IV(x, gpu_hours),
                          DAM_FMT_PLAIN));
    }
    /* the caption promises intervals only where a cell shows one */
    int any = 0;
    for (size_t i = 0; i < t->n; i++)
        any |= t->c[i] && strstr(t->c[i], " to ") != NULL;
    dam_report_table h = {
        any ? "THE NUMBERS THAT MATTER (90 % INTERVAL)"
            : "THE NUMBERS THAT MATTER",
        (size_t)ncols, st->head_hdr, t->c, t->n / (size_t)ncols, NULL};
    st->headline = h;
}

/* A time in unit tu to the precision of its interval iv (may be NULL). */
static void value_at(char *buf, size_t n, double v, const dam_interval *iv,
                     dam_fmt_time_unit tu)
{
    if (!iv || !(iv->hi > iv->lo)) {
        dam_fmt_time_in(buf, n, v, tu, DAM_FMT_SIG);
        return;
    }
    double u = dam_fmt_time_unit_seconds(tu);
    char a[48];
    dam_fmt_fixed(a, sizeof a, v / u,
                  dam_fmt_interval_decimals(v / u, iv->lo / u, iv->hi / u));
    snprintf(buf, n, "%s %s", a, dam_fmt_time_symbol(tu));
}

/* Dollars to the precision of the interval iv (may be NULL). */
static void usd_at(char *buf, size_t n, double v, const dam_interval *iv)
{
    if (!iv || !(iv->hi > iv->lo)) {
        dam_fmt_usd(buf, n, v, DAM_FMT_SIG);
        return;
    }
    char a[48];
    double k = fabs(v) >= 0.9995e9 ? 1e9 : fabs(v) >= 0.9995e6 ? 1e6 : 1.0;
    dam_fmt_fixed(a, sizeof a, v / k,
                  dam_fmt_interval_decimals(v / k, iv->lo / k, iv->hi / k));
    snprintf(buf, n, "$%s%s", a, k == 1e9 ? "B" : k == 1e6 ? "M" : "");
}

/* A caveat for an option faster at its point estimate but in under 80 %
 * of the interval's draws: the model cannot tell it from the baseline. */
static const char *coin_flip(const dam_whatif_row *x)
{
    if (!x->has_interval || x->p_faster >= 0.8 || x->p_faster <= 0.0)
        return "";
    return " It is faster in too few of the draws to be sure: measure both "
           "before buying.";
}

/* What to do. */
static const char *recommendation(const ctx *c)
{
    const dam_whatif_row *b = c->base, *x = c->best;
    char t0[64], t1[64], c0[64], c1[64];
    if (!x && (x = dam_whatif_best_unproven(c->w)) != NULL) {
        if (c->serving) {
            dam_fmt_time(t1, sizeof t1, x->result.serving.latency.p99);
            return keep(c->P,
                        "No option with a known effect on quality brings p99 "
                        "within the SLO. %s does (p99 %s), at an unknown cost "
                        "in quality: measure that before taking it.",
                        x->name, t1);
        }
        return keep(c->P,
                    "No option with a known effect on quality shortens the "
                    "run by 2 %% or more. %s does, %.2fx, at an unknown cost "
                    "in quality: measure that before taking it.",
                    x->name, x->speedup);
    }
    if (!x) {
        if (c->serving)
            return keep(c->P,
                        "No option here brings p99 within the SLO; %s binds "
                        "(%s). Look for a lever on %s first.",
                        dam_bound_name(b->result.bound),
                        b->diagnosis.headline,
                        dam_bound_name(b->result.bound));
        return keep(c->P,
                    "Keep the configuration as it is: no option shortens "
                    "the run by 2 %% or more. %s binds (%s).",
                    dam_bound_name(b->result.bound), b->diagnosis.headline);
    }
    if (x->result.serving.llm.enabled) {
        /* LLM serving: the objectives and the price of a token */
        return keep(c->P, "Take %s: %s.%s", x->name, x->why,
                    x->quality_unknown
                        ? " Its effect on quality is unknown: measure it "
                          "before taking it."
                        : "");
    }
    if (!b->result.memory.fits) {
        dam_fmt_time(t1, sizeof t1, x->result.run_time);
        return keep(c->P, "Take %s: the configuration as given does not "
                          "fit in memory and cannot run; %s %s, a run of "
                          "%s.",
                    x->name, x->name, x->why, t1);
    }
    if (c->serving) {
        dam_fmt_time(t1, sizeof t1, x->result.serving.latency.p99);
        dam_fmt_time(t0, sizeof t0, x->result.serving.slo_s);
        dam_fmt_usd(c1, sizeof c1, x->cost.usd * 1000.0, DAM_FMT_SIG);
        return keep(c->P,
                    "Take %s: p99 %s within the %s SLO, at %s per million "
                    "requests. %s.",
                    x->name, t1, t0, c1, x->why);
    }
    /* one unit for both times; the baseline's digits as in the table */
    double tt[2] = {b->result.run_time, x->result.run_time};
    dam_fmt_time_unit tu = dam_fmt_time_pick_column(tt, 2);
    /* to the precision of each option's interval, as in the table */
    value_at(t0, sizeof t0, b->result.run_time, IV(b, run_time), tu);
    value_at(t1, sizeof t1, x->result.run_time, IV(x, run_time), tu);
    if (strcmp(t0, t1) == 0) {
        /* "from 30 h to 30 h": a change inside the intervals' precision,
         * said to three digits (34.7 h to 33.4 h) */
        dam_fmt_time_in(t0, sizeof t0, b->result.run_time, tu, DAM_FMT_SIG);
        dam_fmt_time_in(t1, sizeof t1, x->result.run_time, tu, DAM_FMT_SIG);
    }
    if (b->cost.usd > 0.0 && x->cost.usd > 0.0) {
        usd_at(c0, sizeof c0, b->cost.usd, IV(b, cost_usd));
        usd_at(c1, sizeof c1, x->cost.usd, IV(x, cost_usd));
        if (strcmp(c0, c1) == 0) {
            dam_fmt_usd(c0, sizeof c0, b->cost.usd, DAM_FMT_SIG);
            dam_fmt_usd(c1, sizeof c1, x->cost.usd, DAM_FMT_SIG);
        }
        return keep(c->P,
                    "Take %s: the run from %s to %s and its cost from %s to "
                    "%s. %s.%s",
                    x->name, t0, t1, c0, c1, x->why, coin_flip(x));
    }
    return keep(c->P, "Take %s: the run from %s to %s. %s.%s", x->name, t0,
                t1, x->why, coin_flip(x));
}

/* What would change the answer: the binding term's share and the term
 * that would set the pace without it, the uncertain input that moves the
 * step most, and when the first lever would start to pay. */
static const char *would_change(const ctx *c)
{
    const dam_result *r = c->r;
    double total = 0;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        total += r->terms[t];
    int bt = dam_chart_bound_term(r->bound), next = -1;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        if (t != bt && r->terms[t] > 0 &&
            (next < 0 || r->terms[t] > r->terms[next]))
            next = t;
    char out[1024], a[48], b[48], ta[48];
    size_t len = 0;
    /* a service's terms share a request's mean time; its inputs' swing is
     * of a lone request's (an LLM service read "82 % of the step" and
     * "the step goes from 3.01 s to 5.26 s" of a 10.9 s request) */
    int serving = c->s->mode == DAM_MODE_SERVING;
    const char *whole = serving ? "a request's mean time" : "the step";
    if (!r->memory.fits) {
        /* what cannot run is judged on its memory, not on its step */
        dam_fmt_memory(a, sizeof a, r->memory.total);
        dam_fmt_memory(b, sizeof b, r->memory.capacity);
        snprintf(out, sizeof out,
                 "The answer rests on memory: as configured it needs %s per "
                 "GPU of %s, so it cannot run. Sharding the state (ZeRO, "
                 "tensor or pipeline parallelism), recomputing activations, "
                 "a smaller batch or a GPU with more memory change it; once "
                 "it fits, %s would bind.",
                 a, b, dam_bound_name(r->bound));
        return keep(c->P, "%s", out);
    }
    if (total > 0 && bt >= 0 && r->terms[bt] > 0) {
        dam_fmt_pct(a, sizeof a, r->terms[bt] / total, 2);
        dam_fmt_time(ta, sizeof ta, r->terms[bt]);
        len += (size_t)snprintf(out + len, sizeof out - len,
                                "The answer rests on %s binding: %s, %s of "
                                "%s, is what the levers are judged on.",
                                dam_bound_name(r->bound), ta, a, whole);
        if (next >= 0) {
            dam_fmt_pct(b, sizeof b, r->terms[next] / total, 2);
            len += (size_t)snprintf(
                out + len, sizeof out - len,
                " Were it gone, %s (%s of %s) would set the pace, and a "
                "lever on %s would be the one that pays.",
                dam_term_name((dam_term)next), b, whole,
                dam_term_name((dam_term)next));
        }
    } else {
        len += (size_t)snprintf(out + len, sizeof out - len,
                                "The answer rests on %s binding (%s).",
                                dam_bound_name(r->bound),
                                c->base->diagnosis.headline);
    }
    if (c->u && c->u->ninputs > 0 && len < sizeof out) {
        const dam_uncertainty_input *in = &c->u->inputs[0];
        dam_fmt_time(a, sizeof a, fmin(in->step_lo, in->step_hi));
        dam_fmt_time(b, sizeof b, fmax(in->step_lo, in->step_hi));
        /* an input that moves nothing visibly is not worth a sentence */
        if (strcmp(a, b) != 0)
            len += (size_t)snprintf(
                out + len, sizeof out - len,
                " Of the uncertain inputs, %s matters most: across its "
                "90 %% range %s goes from %s to %s.",
                in->key,
                !serving        ? "the step"
                : c->u->carried ? "the mean latency (simulated)"
                                : "a lone request's time",
                a, b);
    }
    if (len < sizeof out && c->w->nrows > 1 &&
        c->w->rows[1].verdict == DAM_VERDICT_WASTED)
        len += (size_t)snprintf(out + len, sizeof out - len,
                                " %s would start to pay only once %s no "
                                "longer binds.",
                                c->w->rows[1].name, dam_bound_name(r->bound));
    (void)len;
    return keep(c->P, "%s", out);
}

/* ---- the numbers behind the answer -------------------------------------- */

static void key_numbers(rows *key, const ctx *c)
{
    const dam_scenario *s = c->s;
    const dam_result *r = c->r;
    const dam_whatif_row *bw = c->base;
    pool *P = c->P;
    char m1[48], m2[48];
    int fits = r->memory.fits;
    if (fits)
        row(key, "binding term", keep(P, "%s [%s]", dam_bound_name(r->bound),
                                      c->base->diagnosis.axis), NULL);
    else
        row(key, "binding term",
            keep(P, "memory capacity: it does not fit (once it fits, %s) "
                    "[%s]",
                 dam_bound_name(r->bound), c->base->diagnosis.axis), NULL);
    row(key, s->mode == DAM_MODE_SERVING ? "mean latency" : "step time",
        keep(P, "%s (%s)",
             fmt_iv(P, r->step, c->serving ? NULL : IV(bw, step),
                    DAM_FMT_TIME),
             !fits        ? "as if it fitted: not an answer"
             : r->has_sim ? "simulated"
                          : "analytic"), NULL);
    row(key, "throughput",
        keep(P, "%s %s/s",
             fmt_iv(P, r->throughput, c->serving ? NULL : IV(bw, throughput),
                    DAM_FMT_PLAIN),
             s->mode == DAM_MODE_SERVING ? "requests" : "samples"), NULL);
    if (s->mode != DAM_MODE_SERVING && !fits) {
        row(key, "time to train", "does not fit", NULL);
        row(key, "GPU-hours", "does not fit", NULL);
        row(key, "cost", "does not fit", NULL);
    } else if (s->mode != DAM_MODE_SERVING) {
        char ep[48];
        dam_fmt_num(ep, sizeof ep, s->data.epochs, DAM_FMT_SIG);
        row(key, "time to train",
            keep(P, "%s (%s epochs)",
                 fmt_iv(P, r->run_time, IV(bw, run_time), DAM_FMT_TIME),
                 ep), NULL);
        row(key, "GPU-hours",
            fmt_iv(P, r->gpu_hours, IV(bw, gpu_hours), DAM_FMT_PLAIN), NULL);
        row(key, "cost", r->cost_usd > 0.0
                             ? fmt_iv(P, r->cost_usd, IV(bw, cost_usd),
                                      DAM_FMT_USD)
                             : "n/a (no price)", NULL);
        row(key, "energy",
            keep(P, "%s kWh", fmt_iv(P, r->energy_kwh, NULL, DAM_FMT_PLAIN)),
            NULL);
        row(key, "I/O overhead", fmt_iv(P, r->io_overhead, NULL,
                                        DAM_FMT_PERCENT), NULL);
    }
    if (s->mode != DAM_MODE_SERVING || r->mfu > 0.0)
        row(key, "MFU", fmt_iv(P, r->mfu, NULL, DAM_FMT_PERCENT), NULL);
    dam_fmt_memory(m1, sizeof m1, r->memory.total);
    dam_fmt_memory(m2, sizeof m2, r->memory.capacity);
    /* the run page's words: tight under 10 % to spare, as its scorecard
     * says "investigate" */
    row(key, "memory per GPU",
        keep(P, "%s of %s (%s)", m1, m2,
             !r->memory.fits   ? "DOES NOT FIT"
             : r->memory.tight ? "fits, TIGHT: under 10 % to spare for "
                                 "fragmentation; it may not run"
                               : "fits"),
        NULL);
}

/* ---- tables ---------------------------------------------------------- */

static const char *const lev_head[] = {"option", "step", "time to train",
                                       "speed-up (90 %)", "GPU-hours",
                                       "cost", "quality", "binds after",
                                       "verdict"};
static const char *const lev_head_sv[] = {"option", "mean latency", "p99",
                                          "speed-up", "GPU-h per 1M req",
                                          "cost per 1M req", "quality",
                                          "binds after", "verdict"};
/* an LLM service's speed-up is of its mean latency under load; its
 * interval spans the two end draws simulated under load (solver/whatif.c
 * load_speedup) */
static const char *const lev_head_llm[] = {"option", "TTFT", "TPOT",
                                           "speed-up (90 %: end draws "
                                           "under load)", "GPUs",
                                           "cost per 1M output tokens",
                                           "quality", "binds after",
                                           "verdict"};
static const int lev_num[] = {0, 1, 1, 1, 1, 1, 1, 0, 0};

/* An LLM option's cells: TTFT and TPOT at the objectives' quantile, its
 * GPUs and its cost per million output tokens (the answer's unit). */
static void lever_cells_llm(cells *t, const ctx *c, const dam_whatif_row *x)
{
    const dam_llm_result *l = &x->result.serving.llm;
    int ok = x->result.has_sim && x->result.memory.fits;
    put(t, ok ? fmt_time(c->P, l->ttft.q) : "-");
    put(t, ok ? fmt_time(c->P, l->tpot.q) : "-");
    put(t, speedup_cell(c->P, c->w, x));
    put(t, keep(c->P, "%.0f", l->gpus));
    put(t, ok && l->cost_per_mtok > 0.0
               ? fmt_iv(c->P, l->cost_per_mtok, NULL, DAM_FMT_USD)
               : "n/a");
}

static void lever_table(cells *t, const ctx *c)
{
    const dam_whatif *w = c->w;
    int sv = c->s->mode == DAM_MODE_SERVING;
    dam_page_whatif_times tc; /* one unit per column */
    dam_page_whatif_times_of(w, &tc);
    double k = sv ? 1000.0 : 1.0; /* serving costs per million requests */
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *x = &w->rows[i];
        put(t, x->name);
        if (x->verdict == DAM_VERDICT_FAILED || !x->result.memory.fits) {
            /* no figures for what cannot run (the what-if text's rule) */
            for (int j = 0; j < 6; j++)
                put(t, "-");
            put(t, x->verdict == DAM_VERDICT_FAILED ? "-" : "does not fit");
        } else if (c->s->serving.llm.enabled) {
            lever_cells_llm(t, c, x);
            put(t, "-"); /* no quality metric for a deployment */
            put(t, dam_bound_name(x->result.bound));
        } else {
            put(t, fmt_time_in(c->P, tc.step[i], tc.step_unit));
            put(t, fmt_time_in(c->P, tc.run[i], tc.run_unit));
            put(t, speedup_cell(c->P, w, x));
            put(t, fmt_iv(c->P, x->cost.gpu_hours * k, NULL, DAM_FMT_PLAIN));
            put(t, x->cost.usd > 0 ? fmt_iv(c->P, x->cost.usd * k, NULL,
                                            DAM_FMT_USD)
                                   : "n/a");
            char q[48];
            dam_fmt_num(q, sizeof q, x->quality, 4);
            /* no metric (serving): nothing to show, not a 0 */
            put(t, !c->s->quality.metric[0]
                       ? "-"
                       : keep(c->P, "%s%s", q, x->quality_unknown ? "?" : ""));
            put(t, dam_bound_name(x->result.bound));
        }
        put(t, dam_verdict_name(x->verdict));
    }
}

/* Leave out the columns of t (ncols wide, header head, alignment num)
 * where no row has a figure (every cell "-" or "n/a": a quality with no
 * metric, a cost with no price), the first and the last kept; the
 * header and alignment kept go to hdr and hnum. The columns kept. */
static size_t drop_blank_columns(cells *t, size_t ncols,
                                 const char *const *head, const int *num,
                                 const char **hdr, int *hnum)
{
    size_t nrows = t->n / ncols, kept = 0, k = 0;
    int keep[16];
    for (size_t j = 0; j < ncols && j < 16; j++) {
        int blank = nrows > 0 && j > 0 && j + 1 < ncols;
        for (size_t i = 0; i < nrows && blank; i++) {
            const char *v = t->c[i * ncols + j];
            blank = v && (strcmp(v, "-") == 0 || strcmp(v, "n/a") == 0);
        }
        keep[j] = !blank;
        if (keep[j]) {
            hdr[kept] = head[j];
            hnum[kept++] = num[j];
        }
    }
    for (size_t i = 0; i < nrows; i++)
        for (size_t j = 0; j < ncols; j++)
            if (keep[j])
                t->c[k++] = t->c[i * ncols + j];
    t->n = k;
    return kept;
}

static const char *const stg_head[] = {"stage", "D_vol", "BW", "D/BW", "O",
                                       "R*eta", "O/(R*eta)", "L_lat", "time"};
static const int stg_num[] = {0, 1, 1, 1, 1, 1, 1, 1, 1};

static void stage_table(cells *t, const ctx *c)
{
    const dam_result *r = c->r;
    pool *P = c->P;
    for (int i = 0; i < r->nstages; i++) {
        const dam_stage *st = &r->stages[i];
        char b1[32], b2[32], b3[32], b4[32];
        int decode = strcmp(st->name, "decode") == 0 ||
                     strcmp(st->name, "preprocess") == 0;
        dam_fmt_bytes(b1, sizeof b1, st->bytes);
        dam_fmt_si(b2, sizeof b2, st->bw, "B/s");
        dam_fmt_si(b3, sizeof b3, st->ops, decode ? "core-s" : "FLOP");
        dam_fmt_si(b4, sizeof b4, st->rate, decode ? "cores" : "FLOP/s");
        put(t, st->name);
        put(t, st->bytes > 0 ? keep(P, "%s", b1) : "-");
        put(t, st->bw > 0 ? keep(P, "%s", b2) : "-");
        put(t, st->t_data > 0 ? fmt_time(P, st->t_data) : "-");
        put(t, st->ops > 0 ? keep(P, "%s", b3) : "-");
        put(t, st->rate > 0 ? keep(P, "%s", b4) : "-");
        put(t, st->t_ops > 0 ? fmt_time(P, st->t_ops) : "-");
        put(t, st->t_lat > 0 ? fmt_time(P, st->t_lat) : "-");
        put(t, fmt_time(P, st->time));
    }
    const char *totals[3] = {"T_seq (nothing overlapped)",
                             "T_pipe (perfect overlap)",
                             "step (as configured)"};
    double tv[3] = {r->t_seq, r->t_pipe, r->step};
    int nt = 3;
    if (c->s->mode == DAM_MODE_SERVING) {
        /* a request's phases run one after another (the run page shows no
         * T_pipe either): a lone request's sum, and the queue's mean */
        totals[0] = "a lone request (T_seq)";
        totals[1] = "mean latency (simulated)";
        tv[1] = r->step;
        nt = r->has_sim ? 2 : 1;
    }
    for (int k = 0; k < nt; k++) {
        put(t, totals[k]);
        for (int j = 0; j < 7; j++)
            put(t, "");
        put(t, fmt_time(P, tv[k]));
    }
}

static const char *const ph_head[] = {"phase", "FLOP", "bytes", "FLOP/byte",
                                      "ridge", "bound", "time"};
static const int ph_num[] = {0, 1, 1, 1, 1, 0, 1};

static void phase_table(cells *t, const ctx *c)
{
    const dam_result *r = c->r;
    /* the run page's ridge (datasheet peak over HBM bandwidth), so both
     * pages give one; a row its kernels, not that ridge, explain is
     * marked as there */
    const dam_gpu *g = &c->s->machine.gpu;
    double ridge = dam_gpu_ridge(g, c->s->workload.precision);
    for (int i = 0; i < r->nphases; i++) {
        const dam_phase_result *p = &r->phases[i];
        char b1[32], b2[32], b3[32], b4[32];
        dam_fmt_si(b1, sizeof b1, p->flops, "FLOP");
        dam_fmt_bytes(b2, sizeof b2, p->bytes);
        dam_fmt_num(b3, sizeof b3, p->intensity, DAM_FMT_SIG);
        dam_fmt_num(b4, sizeof b4, ridge, DAM_FMT_SIG);
        put(t, p->name);
        put(t, keep(c->P, "%s", b1));
        put(t, keep(c->P, "%s", b2));
        put(t, keep(c->P, "%s", b3));
        put(t, keep(c->P, "%s", b4));
        put(t, dam_phase_off_roofline(p, ridge, g->mem_bw)
                   ? (p->memory_bound ? "memory (its kernels: tiles, L2)"
                                      : "compute (its kernels: tiles, L2)")
                   : (p->memory_bound ? "memory" : "compute"));
        put(t, fmt_time(c->P, p->time));
    }
}

static const char *const dia_head[] = {"kind", "what"};

static void diagnosis_table(cells *t, const ctx *c)
{
    const dam_diagnosis *d = &c->base->diagnosis;
    for (int i = 0; i < d->nevidence; i++) {
        put(t, "evidence");
        put(t, d->evidence[i]);
    }
    for (int i = 0; i < d->nsymptoms; i++) {
        put(t, "symptom");
        put(t, d->symptoms[i]);
    }
    for (int i = 0; i < d->nworks; i++) {
        put(t, keep(c->P, "works: %s", dam_lever_kind_name(d->works[i].kind)));
        put(t, d->works[i].why);
    }
    for (int i = 0; i < d->nwasted; i++) {
        put(t, keep(c->P, "wasted: %s",
                    dam_lever_kind_name(d->wasted[i].kind)));
        put(t, d->wasted[i].why);
    }
    for (int i = 0; i < d->nscore; i++) {
        put(t, keep(c->P, "scorecard: %s", d->score[i].metric));
        put(t, keep(c->P, "%s: %s (%s)", d->score[i].shown,
                    dam_score_name(d->score[i].verdict), d->score[i].rule));
    }
}

/* ---- assumptions ------------------------------------------------------ */

/* "2.04 TB/s" and friends, kept. */
static const char *si(pool *P, double v, const char *unit)
{
    char b[48];
    dam_fmt_si(b, sizeof b, v, unit);
    return keep(P, "%s", b);
}

static const char *num(pool *P, double v)
{
    char b[48];
    dam_fmt_num(b, sizeof b, v, DAM_FMT_SIG);
    return keep(P, "%s", b);
}

static void assumptions(rows *a, const ctx *c)
{
    const dam_scenario *s = c->s;
    pool *P = c->P;
    char mem[48];
    const char *file = keep(P, "scenario %s", s->file);
    const char *gsrc = keep(P, "data/gpus.cfg: %s", s->machine.gpu.source);
    const char *msrc = keep(P, "data/models.cfg: %s",
                            s->workload.model.source);
    const char *esrc = keep(P, "data/models.cfg: %s",
                            s->workload.model.eta_source);
    row(a, "GPU", s->machine.gpu.id, gsrc);
    row(a, "GPU peak at the precision",
        keep(P, "%s (%s)", si(P, dam_scenario_peak(s), "FLOP/s"),
             dam_precision_name(s->workload.precision)), gsrc);
    row(a, "GPU memory bandwidth", si(P, s->machine.gpu.mem_bw, "B/s"), gsrc);
    dam_fmt_memory(mem, sizeof mem, s->machine.gpu.mem_bytes);
    row(a, "GPU memory", keep(P, "%s", mem), gsrc);
    row(a, "GPUs", keep(P, "%d per node x %d node%s", s->machine.gpus_per_node,
                        s->machine.nodes,
                        DAM_PLURAL((double)s->machine.nodes)), file);
    row(a, "host cores per node", keep(P, "%d", s->machine.cpu_cores), file);
    row(a, "PCIe host-to-device",
        keep(P, "%s per link, %d GPU%s per link",
             si(P, s->machine.pcie_bw, "B/s"), s->machine.gpus_per_pcie_link,
             DAM_PLURAL((double)s->machine.gpus_per_pcie_link)), file);
    row(a, "storage", keep(P, "%s, %s, %s latency",
                           dam_storage_name(s->machine.storage_kind),
                           si(P, s->machine.storage_bw, "B/s"),
                           fmt_time(P, s->machine.storage_latency)), file);
    row(a, "all-reduce bus bandwidth",
        keep(P, "intra-node %s, inter-node %s, latency %s",
             si(P, s->machine.intra_busbw, "B/s"),
             si(P, s->machine.inter_busbw, "B/s"),
             fmt_time(P, s->machine.net_latency)), file);
    row(a, "model", s->workload.model.name, msrc);
    char cnt[48];
    dam_fmt_count(cnt, sizeof cnt, s->workload.model.params);
    row(a, "parameters", keep(P, "%s", cnt), msrc);
    row(a, "forward FLOPs per sample",
        si(P, s->workload.model.flops_per_sample, "FLOP"), msrc);
    if (s->workload.eta > 0.0)
        row(a, "efficiency (eta)", num(P, s->workload.eta),
            s->workload.model.eta_source[0] ? esrc : file);
    else
        row(a, "compute efficiency", "per operator (device model)",
            "GEMM tiles and waves at each GPU's measured rates, fitted "
            "across GPUs (data/README.md); the result's MFU is the "
            "achieved share of peak");
    /* the device model streams at the GPU's calibrated share unless the
     * scenario sets one (device.c cost_mem_setup); it read "0.850, default
     * 0.85" beside a 70B service costed at H100's calibrated 0.80 */
    const dam_device *dv = &s->machine.gpu.dev;
    if (s->workload.eta > 0.0 || s->workload.eta_mem_given)
        row(a, "memory efficiency", num(P, s->workload.eta_mem),
            s->workload.eta_mem_given
                ? file
                : "default 0.85 unless the scenario sets memory_efficiency: "
                  "the share of HBM bandwidth streaming kernels reach "
                  "(assumption)");
    else
        row(a, "memory efficiency",
            num(P, dv->mem.v > 0.0 ? dv->mem.v : 0.78),
            dv->mem.v > 0.0
                ? "the GPU's calibrated share of HBM bandwidth streaming "
                  "kernels reach (data/gpus.cfg mem_frac; the scenario's "
                  "memory_efficiency would replace it)"
                : "default 0.78 (no calibrated share for this GPU): the "
                  "share of HBM bandwidth streaming kernels reach "
                  "(assumption)");
    row(a, "precision, batch",
        keep(P, "%s, %d per GPU", dam_precision_name(s->workload.precision),
             s->workload.batch_size), file);
    row(a, "launches, launch cost, framework overhead",
        keep(P, "%d, %s, %s", s->workload.kernels_per_step,
             fmt_time(P, s->workload.launch_s),
             fmt_time(P, s->workload.framework_overhead_s)),
        "scenario, else data/models.cfg (launch 4 us default)");
    if (s->mode != DAM_MODE_SERVING) {
        row(a, "samples, epochs",
            keep(P, "%s, %s", num(P, s->data.samples),
                 num(P, s->data.epochs)), file);
        row(a, "bytes per sample (in storage, to the GPU)",
            keep(P, "%s, %s", si(P, s->data.raw_bytes, "B"),
                 si(P, s->data.input_bytes, "B")), file);
        row(a, "decode per sample",
            keep(P, "%s on one core, cv %s", fmt_time(P, s->data.decode_s),
                 num(P, s->data.decode_cv)), file);
        row(a, "loader",
            keep(P, "%d workers per GPU, prefetch %d, pinned %s, copy "
                    "overlap %s, sync overlap %s, buckets %s",
                 s->pipeline.loader_workers, s->pipeline.prefetch_factor,
                 s->pipeline.pin_memory ? "yes" : "no",
                 s->pipeline.overlap_transfer ? "yes" : "no",
                 s->pipeline.overlap_sync ? "yes" : "no",
                 si(P, s->pipeline.bucket_bytes, "B")), file);
    }
    char price[48];
    dam_fmt_usd(price, sizeof price, s->cost.gpu_hour_usd, 4);
    row(a, "price", s->cost.gpu_hour_usd > 0.0
                        ? keep(P, "%s per GPU-hour, PUE %s", price,
                               num(P, s->cost.pue))
                        : "none", file);
    char q[48];
    dam_fmt_num(q, sizeof q, dam_quality_after(s), 4);
    const dam_scaling_fit *fit =
        dam_scaling_fit_get((dam_scaling_fit_id)s->quality.fit);
    if (s->quality.metric[0] || s->quality.from_scaling_law)
        row(a, "quality", keep(P, "%s %s", s->quality.metric, q),
            s->quality.from_scaling_law && fit
                ? keep(P, "scaling-law loss: %s (%s)", fit->loss_fit,
                       fit->name)
                : file);
    for (int i = 0; i < c->w->levers.n; i++) {
        const dam_lever *l = &c->w->levers.v[i];
        row(a, keep(P, "lever \"%s\"", l->name),
            keep(P, "%d change%s", l->nops, l->nops == 1 ? "" : "s"),
            l->line > 0 ? keep(P, "%s line %d", s->file, l->line)
                        : "command line");
    }
}

/* ---- the document ---------------------------------------------------- */

/* Index of the chart named name in cs, or -1. */
static long chart_index(const dam_chartset *cs, const char *name)
{
    for (size_t i = 0; i < cs->ncharts; i++)
        if (strcmp(cs->names[i], name) == 0)
            return (long)i;
    return -1;
}

/* The planning page of a training scenario with a transformer model: the
 * layout search over the scenario's GPU kind and count (analytic, every
 * candidate drawn), its chart appended to cs. Nothing for other
 * scenarios or when the search finds nothing to draw. */
static void planning_chart(dam_review *rv, dam_chartset *cs,
                           const dam_scenario *s)
{
    if (s->mode != DAM_MODE_TRAINING ||
        s->workload.model.arch.kind != DAM_ARCH_TRANSFORMER ||
        !(s->data.samples > 0.0) || cs->ncharts >= DAM_CHARTSET_MAX)
        return;
    dam_search_opts o;
    memset(&o, 0, sizeof o);
    o.keep_all = 1;
    dam_search_result *r = dam_malloc(sizeof *r);
    dam_chartset *pc = dam_malloc(sizeof *pc);
    memset(pc, 0, sizeof *pc);
    if (dam_search_run(s, NULL, &o, r, NULL) == DAM_OK &&
        dam_chartset_search(pc, s, &o, r, NULL) == DAM_OK) {
        cs->charts[cs->ncharts] = pc->charts[0];
        snprintf(cs->names[cs->ncharts], sizeof cs->names[0], "plan");
        cs->ncharts++;
        rv->plan = pc;
    } else {
        dam_chartset_free(pc);
        dam_free(pc);
    }
    dam_search_free(r);
    dam_free(r);
}

void dam_review_build(dam_review *rv, const dam_whatif *w,
                      const dam_uncertainty *u, const char *version)
{
    memset(rv, 0, sizeof *rv);
    dam_review_store *st = dam_calloc(1, sizeof *st);
    rv->store = st;
    ctx c = {w, &w->rows[0], dam_whatif_best(w), &w->rows[0].scenario,
             &w->rows[0].result, u, 0, &st->pool};
    /* LLM serving: the option the answer names, the cheapest meeting both
     * objectives (the review said "Take H100 TP8", 8 GPUs at $7.56, under
     * an answer naming B200 TP2, 2 GPUs at $3.78) */
    if (c.s->serving.llm.enabled) {
        const dam_whatif_row *ch = dam_llm_whatif_cheapest(w);
        if (ch && ch != &w->rows[0])
            c.best = ch;
    }
    c.serving = c.s->mode == DAM_MODE_SERVING && c.r->has_sim &&
                c.r->serving.slo_s > 0.0;
    char answer[1024];
    dam_page_whatif_answer(answer, sizeof answer, w);
    dam_chartset *cs = dam_malloc(sizeof *cs);
    dam_chartset_whatif(cs, w, answer);
    rv->charts = cs;
    planning_chart(rv, cs, c.s);

    headline(st, &c);
    key_numbers(&st->key, &c);
    lever_table(&st->cells[0], &c);
    size_t lev_cols = drop_blank_columns(
        &st->cells[0], 9,
        c.s->serving.llm.enabled       ? lev_head_llm
        : c.s->mode == DAM_MODE_SERVING ? lev_head_sv
                                        : lev_head,
        lev_num, st->lev_hdr, st->lev_num);
    stage_table(&st->cells[1], &c);
    phase_table(&st->cells[2], &c);
    diagnosis_table(&st->cells[3], &c);
    assumptions(&st->assumptions, &c);

    dam_report_table tables[DAM_REVIEW_TABLES] = {
        {"Each lever alone and combined", lev_cols, st->lev_hdr,
         st->cells[0].c, st->cells[0].n / lev_cols, st->lev_num},
        {c.s->mode == DAM_MODE_SERVING
             ? "The iron law per stage (one GPU, one request)"
             : "The iron law per stage (one GPU, one step)",
         9, stg_head,
         st->cells[1].c, st->cells[1].n / 9, stg_num},
        {"Roofline of each compute phase", 7, ph_head, st->cells[2].c,
         st->cells[2].n / 7, ph_num},
        {"Diagnosis: a hypothesis with its evidence", 2, dia_head,
         st->cells[3].c, st->cells[3].n / 2, NULL},
    };
    /* tables that do not apply are left out: the iron law of a deployment
     * without stages, a roofline without phases */
    size_t ntab = 0;
    for (int i = 0; i < DAM_REVIEW_TABLES; i++) {
        if ((i == 1 && c.r->nstages == 0) || (i == 2 && tables[i].nrows == 0))
            continue;
        rv->tables[ntab++] = tables[i];
    }
    long why = chart_index(cs, c.serving ? "levers" : "breakdown");
    if (why >= 0) {
        /* the same chart, titled for the page it sits on */
        st->why = cs->charts[why];
        if (st->why.kind == DAM_CHART_BREAKDOWN) {
            st->why_bd = *st->why.u.breakdown;
            st->why_bd.title = c.s->mode == DAM_MODE_SERVING
                                   ? "Why: where the time of a request "
                                     "goes, option by option"
                                   : "Why: where the time of a step goes, "
                                     "option by option";
            st->why_bd.subtitle = NULL;
            st->why.u.breakdown = &st->why_bd;
        } else if (st->why.kind == DAM_CHART_LEVERS) {
            st->why_lv = *st->why.u.levers;
            st->why_lv.title = "Why: p99 latency of each option against the "
                               "SLO";
            st->why_lv.subtitle = NULL;
            st->why.u.levers = &st->why_lv;
        }
    }
    dam_report rep = {
        .title = c.s->name,
        .context = keep(c.P, "damsim %s, scenario %s, %s%s", version,
                        c.s->file, c.r->has_sim ? "simulated" : "analytic",
                        c.base->has_interval
                            ? keep(c.P, ", 90 %% intervals over %d draws",
                                   c.base->interval.samples)
                            : ""),
        .question = c.s->question,
        .answer = answer_text(&c, answer),
        .key_numbers = st->key.r,
        .nkey = st->key.n,
        .charts = cs->charts,
        .ncharts = cs->ncharts,
        .tables = rv->tables,
        .ntables = ntab,
        .assumptions = st->assumptions.r,
        .nassumptions = st->assumptions.n,
        .headline = &st->headline,
        .summary_chart = why >= 0 ? &st->why : NULL,
        .recommendation = recommendation(&c),
        .would_change = would_change(&c),
    };
    rv->report = rep;
}

void dam_review_free(dam_review *rv)
{
    if (rv->charts) {
        dam_chartset_free(rv->charts);
        dam_free(rv->charts);
    }
    if (rv->plan) {
        dam_chartset_free(rv->plan);
        dam_free(rv->plan);
    }
    dam_review_store *st = rv->store;
    if (st) {
        for (int i = 0; i < DAM_REVIEW_TABLES; i++)
            dam_free((void *)st->cells[i].c);
        dam_free((void *)st->head.c);
        dam_free(st->key.r);
        dam_free(st->assumptions.r);
        pool_free(&st->pool);
        dam_free(st);
    }
    memset(rv, 0, sizeof *rv);
}
