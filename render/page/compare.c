/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compare.c: `damsim compare` output (see compare.h). Inputs are compared
 * key by key on the scenarios flattened to "group.key = value" (from their
 * JSON form, so every input the JSON writer knows is compared); outputs
 * are shown with their change from the first scenario.
 */
#include "render/page/compare.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "render/out/json.h"
#include "render/out/fmt.h"

#define MAX_CMP DAM_COMPARE_MAX

/* Flatten a JSON object into "a.b.c" -> compact value strings. */
typedef struct flat {
    char **keys, **vals;
    size_t n, cap;
} flat;

static void flat_add(flat *f, const char *k, const char *v)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 64;
        f->keys = dam_realloc(f->keys, f->cap * sizeof *f->keys);
        f->vals = dam_realloc(f->vals, f->cap * sizeof *f->vals);
    }
    f->keys[f->n] = dam_strdup(k);
    f->vals[f->n] = dam_strdup(v);
    f->n++;
}

static void flatten(flat *f, const char *prefix, json_t *v)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            char p[256];
            snprintf(p, sizeof p, "%s%s%s", prefix, prefix[0] ? "." : "", k);
            flatten(f, p, x);
        }
        return;
    }
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT |
                                JSON_REAL_PRECISION(6));
    flat_add(f, prefix, s ? s : "null");
    free(s);
}

static const char *flat_get(const flat *f, const char *k)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->keys[i], k) == 0)
            return f->vals[i];
    return "-";
}

static void flat_free(flat *f)
{
    for (size_t i = 0; i < f->n; i++) {
        dam_free(f->keys[i]);
        dam_free(f->vals[i]);
    }
    dam_free(f->keys);
    dam_free(f->vals);
}

/* One output row: name, value per scenario, unit kind (0 time, 1 number,
 * 2 percent); unknown_zero: a value of 0 means not known (a cost without
 * a price, energy without a power figure), printed "n/a"; sim_only: a simulated figure (a request's quantiles,
 * the SLO's attainment, the load), "-" beside an analytic solve. */
typedef struct out_row {
    const char *name;
    double v[MAX_CMP];
    int kind;
    int unknown_zero;
    int sim_only;
    int llm;       /* 1: an LLM service's figure (n/a for the others);
                    * 2: simulated only for an LLM service */
} out_row;

/* A value of an output row; times in the row's unit tu. */
static void cell(char *buf, size_t n, double v, int kind,
                 dam_fmt_time_unit tu)
{
    if (kind == 0)
        dam_fmt_time_in(buf, n, v, tu, DAM_FMT_SIG);
    else if (kind == 2)
        dam_fmt_pct(buf, n, v, DAM_FMT_SIG);
    else
        dam_fmt_num(buf, n, v, DAM_FMT_SIG);
}

/* ---- the text table: cells first, widths from them, then printed ---- */

#define CELL 160     /* bytes of one cell (a heading takes one) */
#define WIDE 34      /* widest column, characters (longer cells cut) */

typedef struct table {
    char (*c)[MAX_CMP + 1][CELL]; /* rows of a key and n values; a row
                                     whose key starts with '#' is a
                                     section heading */
    int nrows, cap;
} table;

/* A new row; returns its index (cells empty). */
static int trow(table *t, const char *key)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->c = dam_realloc(t->c, (size_t)t->cap * sizeof *t->c);
    }
    memset(t->c[t->nrows], 0, sizeof t->c[0]);
    snprintf(t->c[t->nrows][0], CELL, "%s", key);
    return t->nrows++;
}

/* Characters (not bytes) in UTF-8 text s. */
static size_t chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Append s padded to w characters, cut with "..." past w. */
static void pad(dam_buf *b, const char *s, size_t w)
{
    size_t n = chars(s);
    if (n > w && w > 3) {
        size_t k = 0, c = 0;
        while (s[k] && c < w - 3) {
            k++;
            while (((unsigned char)s[k] & 0xC0) == 0x80)
                k++;
            c++;
        }
        dam_buf_append(b, s, k);
        dam_buf_printf(b, "...");
        return;
    }
    dam_buf_printf(b, "%s%*s", s, (int)(w - n), "");
}

static void tprint(dam_buf *b, const table *t, int n)
{
    size_t kw = 0, vw = 4;
    for (int r = 0; r < t->nrows; r++) {
        if (t->c[r][0][0] == '#')
            continue;
        kw = chars(t->c[r][0]) > kw ? chars(t->c[r][0]) : kw;
        for (int i = 1; i <= n; i++)
            vw = chars(t->c[r][i]) > vw ? chars(t->c[r][i]) : vw;
    }
    kw = kw > 40 ? 40 : kw;
    vw = vw > WIDE ? WIDE : vw;
    for (int r = 0; r < t->nrows; r++) {
        if (t->c[r][0][0] == '#') {
            dam_buf_printf(b, "\n%s\n", t->c[r][0] + 1);
            continue;
        }
        dam_buf_printf(b, "  ");
        pad(b, t->c[r][0], kw);
        for (int i = 1; i <= n; i++) {
            dam_buf_printf(b, "  ");
            if (i < n)
                pad(b, t->c[r][i], vw);
            else if (chars(t->c[r][i]) > vw)
                pad(b, t->c[r][i], vw);
            else
                dam_buf_printf(b, "%s", t->c[r][i]);
        }
        /* no trailing blanks */
        while (b->len && b->data[b->len - 1] == ' ')
            b->data[--b->len] = '\0';
        dam_buf_printf(b, "\n");
    }
}


/* The flattened inputs of each scenario (caller frees with flat_free). */
static flat *flatten_all(const dam_scenario *s, int n)
{
    flat *fl = dam_calloc((size_t)n, sizeof *fl);
    for (int i = 0; i < n; i++) {
        json_t *j = dam_json_scenario(&s[i]);
        json_object_del(j, "file");
        flatten(&fl[i], "", j);
        json_decref(j);
    }
    return fl;
}

/* The intervals of the scenarios, one row per quantity, into t. */
static void interval_rows(table *t, const dam_scenario *s,
                          const dam_result *r, const dam_answer_interval *iv,
                          int n)
{
    int any = 0, batch = 0, carried = 0;
    for (int i = 0; i < n; i++) {
        any |= iv[i].samples > 0;
        batch |= s[i].mode != DAM_MODE_SERVING;
        carried |= iv[i].carried;
    }
    if (!any)
        return;
    char head[CELL];
    snprintf(head, sizeof head,
             "#90 %% intervals (%s; %d draws of the uncertain inputs "
             "and calibrated constants, paired by name across scenarios)",
             carried ? "of the simulated figures" : "analytic",
             iv[0].samples);
    trow(t, head);
    /* a batch run's speed-up is of its run time (the 405B example's
     * step is 5 % longer than the 70B's, its run 1.83x shorter); a
     * service's of its latency */
    static const char *const names[] = {"step", "speed-up vs the first",
                                        "faster in (share of draws)",
                                        "GPU-hours", "cost"};
    for (int q = 0; q < 5; q++) {
        if (!batch && q >= 3)
            continue;
        int row = trow(t, q == 1 && batch ? "run speed-up vs the first"
                          : q == 2 && batch ? "run faster in (share of draws)"
                                            : names[q]);
        for (int i = 0; i < n; i++) {
            const dam_answer_interval *a = &iv[i];
            char *c = t->c[row][i + 1], x[40], y[40];
            /* none for what cannot run, nor a speed-up over it */
            if (!r[i].memory.fits) {
                snprintf(c, CELL, "does not fit");
                continue;
            }
            if (!r[0].memory.fits && (q == 1 || q == 2)) {
                snprintf(c, CELL, "-");
                continue;
            }
            if (a->samples == 0 || (i == 0 && (q == 1 || q == 2)) ||
                (q == 4 && !(a->cost_usd.hi > 0.0))) {
                snprintf(c, CELL, q == 4 && a->samples ? "n/a" : "-");
            } else if (q == 0) {
                dam_fmt_time(x, sizeof x, a->step.lo);
                dam_fmt_time(y, sizeof y, a->step.hi);
                snprintf(c, CELL, "%s .. %s", x, y);
            } else if (q == 1) {
                snprintf(c, CELL, "%.2fx .. %.2fx", a->speedup.lo,
                         a->speedup.hi);
            } else if (q == 2) {
                dam_fmt_pct(c, CELL, a->p_faster, 2);
            } else {
                const dam_interval *v = q == 3 ? &a->gpu_hours : &a->cost_usd;
                int d = dam_fmt_interval_decimals(v->median, v->lo, v->hi);
                dam_fmt_fixed(x, sizeof x, v->lo, d);
                dam_fmt_fixed(y, sizeof y, v->hi, d);
                snprintf(c, CELL, "%s%s .. %s%s", q == 4 ? "$" : "", x,
                         q == 4 ? "$" : "", y);
            }
        }
    }
}

/* The output rows: the batch figures, the serving figures, or both when
 * the scenarios mix modes; their number. */
static size_t output_rows(out_row *rows, const dam_scenario *s,
                          const dam_result *r, int n)
{
    int any_batch = 0, any_serving = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].mode == DAM_MODE_SERVING)
            any_serving = 1;
        else
            any_batch = 1;
    }
    size_t nrows = 0;
#define ROW(label, unit, expr)                                                \
    do {                                                                      \
        rows[nrows].name = label;                                             \
        rows[nrows].kind = unit;                                              \
        rows[nrows].unknown_zero = 0;                                         \
        rows[nrows].sim_only = 0;                                             \
        rows[nrows].llm = 0;                                                  \
        for (int i = 0; i < n; i++)                                           \
            rows[nrows].v[i] = (expr);                                        \
        nrows++;                                                              \
    } while (0)
    int any_sim = 0, any_llm = 0, any_capacity = 0;
    for (int i = 0; i < n; i++) {
        any_sim |= r[i].has_sim;
        any_llm |= s[i].serving.llm.enabled;
        any_capacity |= r[i].serving.capacity > 0.0;
    }
    ROW(any_serving && !any_batch
            ? (any_sim ? "mean latency" : "latency of a lone request")
            : "step",
        0, r[i].step);
    ROW("throughput (per s)", 1, s[i].mode == DAM_MODE_SERVING
                                     ? r[i].serving.throughput
                                     : r[i].throughput);
    rows[nrows - 1].llm = 2; /* an analytic LLM solve serves no load */
    ROW("MFU", 2, r[i].mfu);
    rows[nrows - 1].unknown_zero = 1; /* an LLM service takes none */
    if (any_batch) {
        ROW("epoch", 0, r[i].epoch_time);
        ROW("run", 0, r[i].run_time);
        ROW("I/O overhead", 2, r[i].io_overhead);
        ROW("GPU-hours", 1, r[i].gpu_hours);
        ROW("cost (USD)", 1, r[i].cost_usd);
        rows[nrows - 1].unknown_zero = 1;
        ROW("energy (kWh)", 1, r[i].energy_kwh);
        rows[nrows - 1].unknown_zero = 1;
        ROW("T_seq", 0, r[i].t_seq);
        ROW("T_pipe", 0, r[i].t_pipe);
    }
    if (any_serving) {
        ROW("p50 latency", 0, r[i].serving.latency.p50);
        rows[nrows - 1].sim_only = 1;
        ROW("p99 latency", 0, r[i].serving.latency.p99);
        rows[nrows - 1].sim_only = 1;
        ROW("SLO p99", 0, s[i].serving.slo_p99_s);
        rows[nrows - 1].unknown_zero = 1; /* none set (an LLM service) */
        ROW("SLO attainment", 2, r[i].serving.slo_attainment);
        rows[nrows - 1].sim_only = 1;
        ROW("GPU utilisation", 2, r[i].serving.utilization);
        rows[nrows - 1].sim_only = 1;
        if (any_capacity) {
            ROW("capacity (per s)", 1, r[i].serving.capacity);
            rows[nrows - 1].unknown_zero = 1;
        }
        ROW("USD per 1,000 requests", 1, r[i].serving.cost_per_1k);
        rows[nrows - 1].unknown_zero = 1;
        rows[nrows - 1].llm = 2;
    }
    if (any_llm) {
        /* an LLM service's objectives, at its SLO quantile (flags: its
         * simulated figures; 0 means not known) */
#define LLM_ROW(label, kind, expr, sim, unknown)                              \
    do {                                                                      \
        ROW(label, kind, expr);                                               \
        rows[nrows - 1].llm = 1;                                              \
        rows[nrows - 1].sim_only = sim;                                       \
        rows[nrows - 1].unknown_zero = unknown;                               \
    } while (0)
        LLM_ROW("TTFT at the SLO quantile", 0, r[i].serving.llm.ttft.q, 1, 1);
        LLM_ROW("SLO TTFT", 0, r[i].serving.llm.slo_ttft_s, 0, 1);
        LLM_ROW("TPOT at the SLO quantile", 0, r[i].serving.llm.tpot.q, 1, 1);
        LLM_ROW("SLO TPOT", 0, r[i].serving.llm.slo_tpot_s, 0, 1);
        LLM_ROW("goodput (both SLOs)", 2, r[i].serving.llm.goodput_fraction,
                1, 0);
        LLM_ROW("USD per million output tokens", 1,
                r[i].serving.llm.cost_per_mtok, 1, 1);
#undef LLM_ROW
    }
#undef ROW
    return nrows;
}

/* The comparison as JSON: each scenario with its result (and intervals),
 * and the input keys that differ. */
static void compare_json(dam_buf *b, const dam_scenario *s,
                         const dam_result *r, const dam_diagnosis *d,
                         const dam_answer_interval *iv, const flat *fl,
                         int n)
{
    json_t *o = json_object();
    json_t *sc = json_array();
    for (int i = 0; i < n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "scenario", dam_json_scenario(&s[i]));
        json_object_set_new(e, "result",
                            dam_json_result(&s[i], &r[i], &d[i]));
        if (iv && iv[i].samples > 0)
            json_object_set_new(e, "intervals_90",
                                dam_json_answer_interval(
                                    &iv[i], s[i].mode != DAM_MODE_SERVING));
        json_array_append_new(sc, e);
    }
    json_object_set_new(o, "scenarios", sc);
    json_t *diff = json_array();
    for (size_t k = 0; k < fl[0].n; k++) {
        const char *key = fl[0].keys[k];
        int differs = 0;
        for (int i = 1; i < n; i++)
            differs |= strcmp(flat_get(&fl[i], key), fl[0].vals[k]) != 0;
        if (differs)
            json_array_append_new(diff, json_string(key));
    }
    json_object_set_new(o, "inputs_that_differ", diff);
    dam_json_dump(b, o);
}

/* The inputs that differ: the files' own settings, in their units, where
 * given (else the flattened scenarios fl), keys in first-seen order. */
static void input_rows(table *t, const flat *fl,
                       const dam_setting *const *settings,
                       const int *nsettings, int n)
{
    trow(t, settings ? "#Inputs that differ (as the files write them)"
                     : "#Inputs that differ");
    const flat *src = fl;
    flat *own = NULL;
    if (settings) {
        own = dam_calloc((size_t)n, sizeof *own);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < nsettings[i]; k++)
                flat_add(&own[i], settings[i][k].key, settings[i][k].value);
        src = own;
    }
    int ndiff = 0;
    flat all = {0};
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < src[i].n; k++)
            if (strcmp(flat_get(&all, src[i].keys[k]), "-") == 0)
                flat_add(&all, src[i].keys[k], "");
    for (size_t k = 0; k < all.n; k++) {
        const char *key = all.keys[k];
        int differs = 0;
        for (int i = 1; i < n; i++)
            differs |= strcmp(flat_get(&src[i], key),
                              flat_get(&src[0], key)) != 0;
        if (!differs)
            continue;
        ndiff++;
        int row = trow(t, key);
        for (int i = 0; i < n; i++)
            snprintf(t->c[row][i + 1], CELL, "%s", flat_get(&src[i], key));
    }
    flat_free(&all);
    if (own) {
        for (int i = 0; i < n; i++)
            flat_free(&own[i]);
        dam_free(own);
    }
    if (!ndiff)
        trow(t, "(none)");
}

/* The outputs, each with its change from the first scenario. */
static void output_table_rows(table *t, const out_row *rows, size_t nrows,
                              const dam_scenario *s,
                              const dam_result *r, int n)
{
    trow(t, "#Outputs (change from the first)");
    for (size_t k = 0; k < nrows; k++) {
        int row = trow(t, rows[k].name);
        dam_fmt_time_unit tu = dam_fmt_time_pick_column(rows[k].v, (size_t)n);
        for (int i = 0; i < n; i++) {
            char v[48];
            /* what does not fit has no figures to compare, nor is a
             * change from it one (a fine-tune 53.6 GiB short was priced
             * at $1,390, the next scenario "+1787571 %") */
            if (!r[i].memory.fits) {
                snprintf(t->c[row][i + 1], CELL, "does not fit");
                continue;
            }
            if (rows[k].llm == 1 && !s[i].serving.llm.enabled) {
                snprintf(t->c[row][i + 1], CELL, "n/a");
                continue;
            }
            if ((rows[k].sim_only ||
                 (rows[k].llm == 2 && s[i].serving.llm.enabled)) &&
                !r[i].has_sim) {
                snprintf(t->c[row][i + 1], CELL, "- (analytic)");
                continue;
            }
            /* not known is not 0 (the interval rows say n/a too) */
            if (rows[k].unknown_zero && !(rows[k].v[i] > 0.0)) {
                snprintf(t->c[row][i + 1], CELL, "n/a");
                continue;
            }
            cell(v, sizeof v, rows[k].v[i], rows[k].kind, tu);
            if (i > 0 && r[0].memory.fits && rows[k].v[0] != 0.0 &&
                isfinite(rows[k].v[i]))
                snprintf(t->c[row][i + 1], CELL, "%s (%+.0f %%)", v,
                         (rows[k].v[i] / rows[k].v[0] - 1.0) * 100.0);
            else
                snprintf(t->c[row][i + 1], CELL, "%s", v);
        }
    }
}

/* The step per iron-law term, each with its change from the first. */
static void term_rows(table *t, const dam_result *r, int n)
{
    trow(t, "#Step per iron-law term");
    for (int term = 0; term < DAM_TERM_COUNT; term++) {
        int tr = trow(t, dam_term_name((dam_term)term));
        double v[MAX_CMP];
        for (int i = 0; i < n; i++)
            v[i] = r[i].terms[term];
        dam_fmt_time_unit tu = dam_fmt_time_pick_column(v, (size_t)n);
        for (int i = 0; i < n; i++) {
            char a[40], dv[40];
            dam_fmt_time_in(a, sizeof a, v[i], tu, DAM_FMT_SIG);
            double dlt = v[i] - v[0];
            dam_fmt_time_in(dv, sizeof dv, fabs(dlt), tu, DAM_FMT_SIG);
            if (i > 0 && fabs(dlt) > 1e-12 && strcmp(dv, "0") != 0 &&
                strncmp(dv, "0 ", 2) != 0)
                snprintf(t->c[tr][i + 1], CELL, "%s (%c%s)", a,
                         dlt > 0 ? '+' : '-', dv);
            else
                snprintf(t->c[tr][i + 1], CELL, "%s", a);
        }
    }
}

void dam_compare_write(dam_buf *b, const dam_scenario *s, const dam_result *r,
                       const dam_diagnosis *d, const dam_answer_interval *iv,
                       const dam_setting *const *settings,
                       const int *nsettings, int n, int as_json)
{
    flat *fl = flatten_all(s, n);
    out_row rows[32]; /* 3 + 10 batch + 7 serving + 6 LLM rows at most */
    size_t nrows = output_rows(rows, s, r, n);
    if (as_json) {
        compare_json(b, s, r, d, iv, fl, n);
    } else {
        /* the scenarios by number, names and files in full */
        dam_buf_printf(b, "Scenarios\n");
        for (int i = 0; i < n; i++)
            dam_buf_printf(b, "  [%d] %s (%s)\n", i + 1, s[i].name,
                           s[i].file);
        table t = {0};
        int h = trow(&t, "");
        for (int i = 0; i < n; i++)
            snprintf(t.c[h][i + 1], CELL, "[%d]", i + 1);
        input_rows(&t, fl, settings, nsettings, n);
        output_table_rows(&t, rows, nrows, s, r, n);
        int row = trow(&t, "binding");
        for (int i = 0; i < n; i++)
            snprintf(t.c[row][i + 1], CELL, "%s",
                     r[i].memory.fits ? dam_bound_name(r[i].bound)
                                      : "memory capacity");
        if (iv)
            interval_rows(&t, s, r, iv, n);
        term_rows(&t, r, n);
        tprint(b, &t, n);
        dam_free(t.c);
    }
    for (int i = 0; i < n; i++)
        flat_free(&fl[i]);
    dam_free(fl);
}
