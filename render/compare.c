/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compare.c: `damsim compare` output (see compare.h). Inputs are compared
 * key by key on the scenarios flattened to "group.key = value" (from their
 * JSON form, so every input the JSON writer knows is compared); outputs
 * are shown with their change from the first scenario.
 */
#include "render/compare.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "render/json.h"
#include "render/fmt.h"

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
 * 2 percent). */
typedef struct out_row {
    const char *name;
    double v[MAX_CMP];
    int kind;
} out_row;

static void cell(char *buf, size_t n, double v, int kind)
{
    if (kind == 0)
        dam_fmt_time(buf, n, v);
    else if (kind == 2)
        snprintf(buf, n, "%.1f %%", v * 100.0);
    else
        snprintf(buf, n, "%.4g", v);
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

/* The intervals of the scenarios, one line per quantity. */
static void interval_rows(dam_buf *b, const dam_scenario *s,
                          const dam_answer_interval *iv, int n)
{
    int any = 0, batch = 0;
    for (int i = 0; i < n; i++) {
        any |= iv[i].samples > 0;
        batch |= s[i].mode != DAM_MODE_SERVING;
    }
    if (!any)
        return;
    dam_buf_printf(b, "\n90 %% intervals (analytic; %d draws of the "
                      "uncertain inputs and calibrated constants, paired "
                      "by name across scenarios)\n",
                   iv[0].samples);
    static const char *const names[] = {"step", "speed-up vs the first",
                                        "faster in (share of draws)",
                                        "GPU-hours", "cost"};
    for (int q = 0; q < 5; q++) {
        if (!batch && q >= 3)
            continue;
        dam_buf_printf(b, "  %-26s", names[q]);
        for (int i = 0; i < n; i++) {
            const dam_answer_interval *a = &iv[i];
            char c[64], x[24], y[24];
            if (a->samples == 0 || (i == 0 && (q == 1 || q == 2))) {
                snprintf(c, sizeof c, "-");
            } else if (q == 0) {
                dam_fmt_time(x, sizeof x, a->step.lo);
                dam_fmt_time(y, sizeof y, a->step.hi);
                snprintf(c, sizeof c, "%s .. %s", x, y);
            } else if (q == 1) {
                snprintf(c, sizeof c, "%.2fx .. %.2fx", a->speedup.lo,
                         a->speedup.hi);
            } else if (q == 2) {
                snprintf(c, sizeof c, "%.0f %%", a->p_faster * 100.0);
            } else {
                const dam_interval *v = q == 3 ? &a->gpu_hours : &a->cost_usd;
                dam_fmt_si(x, sizeof x, v->lo, "");
                dam_fmt_si(y, sizeof y, v->hi, "");
                for (char *t = x + strlen(x); t > x && t[-1] == ' ';)
                    *--t = '\0';
                for (char *t = y + strlen(y); t > y && t[-1] == ' ';)
                    *--t = '\0';
                snprintf(c, sizeof c, "%s%s .. %s%s", q == 4 ? "$" : "", x,
                         q == 4 ? "$" : "", y);
            }
            dam_buf_printf(b, " %-22.22s", c);
        }
        dam_buf_printf(b, "\n");
    }
}

void dam_compare_write(dam_buf *b, const dam_scenario *s, const dam_result *r,
                       const dam_diagnosis *d, const dam_answer_interval *iv,
                       int n, int as_json)
{
    flat *fl = flatten_all(s, n);
    /* Outputs: the batch figures, the serving figures, or both when the
     * scenarios mix modes. */
    int any_batch = 0, any_serving = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].mode == DAM_MODE_SERVING)
            any_serving = 1;
        else
            any_batch = 1;
    }
    out_row rows[24];
    size_t nrows = 0;
#define ROW(label, unit, expr)                                                \
    do {                                                                      \
        rows[nrows].name = label;                                             \
        rows[nrows].kind = unit;                                              \
        for (int i = 0; i < n; i++)                                           \
            rows[nrows].v[i] = (expr);                                        \
        nrows++;                                                              \
    } while (0)
    ROW(any_serving && !any_batch ? "mean latency" : "step", 0, r[i].step);
    ROW("throughput (per s)", 1, s[i].mode == DAM_MODE_SERVING
                                     ? r[i].serving.throughput
                                     : r[i].throughput);
    ROW("MFU", 2, r[i].mfu);
    if (any_batch) {
        ROW("epoch", 0, r[i].epoch_time);
        ROW("run", 0, r[i].run_time);
        ROW("I/O overhead", 2, r[i].io_overhead);
        ROW("GPU-hours", 1, r[i].gpu_hours);
        ROW("cost (USD)", 1, r[i].cost_usd);
        ROW("energy (kWh)", 1, r[i].energy_kwh);
        ROW("T_seq", 0, r[i].t_seq);
        ROW("T_pipe", 0, r[i].t_pipe);
    }
    if (any_serving) {
        ROW("p50 latency", 0, r[i].serving.latency.p50);
        ROW("p99 latency", 0, r[i].serving.latency.p99);
        ROW("SLO p99", 0, s[i].serving.slo_p99_s);
        ROW("SLO attainment", 2, r[i].serving.slo_attainment);
        ROW("GPU utilisation", 2, r[i].serving.utilization);
        ROW("USD per 1,000 requests", 1, r[i].serving.cost_per_1k);
    }
#undef ROW

    if (as_json) {
        json_t *o = json_object();
        json_t *sc = json_array();
        for (int i = 0; i < n; i++) {
            json_t *e = json_object();
            json_object_set_new(e, "scenario", dam_json_scenario(&s[i]));
            json_object_set_new(e, "result",
                                dam_json_result(&s[i], &r[i], &d[i]));
            if (iv && iv[i].samples > 0)
                json_object_set_new(e, "intervals_90",
                                    dam_json_answer_interval(&iv[i]));
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
    } else {
        dam_buf_printf(b, "%-28s", "");
        for (int i = 0; i < n; i++)
            dam_buf_printf(b, " %-22.22s", s[i].name);
        dam_buf_printf(b, "\n\nInputs that differ\n");
        int ndiff = 0;
        /* keys of every scenario, in first-seen order */
        flat all = {0};
        for (int i = 0; i < n; i++)
            for (size_t k = 0; k < fl[i].n; k++)
                if (strcmp(flat_get(&all, fl[i].keys[k]), "-") == 0)
                    flat_add(&all, fl[i].keys[k], "");
        for (size_t k = 0; k < all.n; k++) {
            const char *key = all.keys[k];
            int differs = 0;
            for (int i = 1; i < n; i++)
                differs |= strcmp(flat_get(&fl[i], key),
                                  flat_get(&fl[0], key)) != 0;
            if (!differs)
                continue;
            ndiff++;
            dam_buf_printf(b, "  %-26.26s", key);
            for (int i = 0; i < n; i++)
                dam_buf_printf(b, " %-22.22s", flat_get(&fl[i], key));
            dam_buf_printf(b, "\n");
        }
        flat_free(&all);
        if (!ndiff)
            dam_buf_printf(b, "  (none)\n");
        dam_buf_printf(b, "\nOutputs (change from the first)\n");
        for (size_t k = 0; k < nrows; k++) {
            dam_buf_printf(b, "  %-26s", rows[k].name);
            for (int i = 0; i < n; i++) {
                char v[32], cellbuf[80];
                cell(v, sizeof v, rows[k].v[i], rows[k].kind);
                if (i > 0 && rows[k].v[0] != 0.0 && isfinite(rows[k].v[i]))
                    snprintf(cellbuf, sizeof cellbuf, "%s (%+.0f %%)", v,
                             (rows[k].v[i] / rows[k].v[0] - 1.0) * 100.0);
                else
                    snprintf(cellbuf, sizeof cellbuf, "%s", v);
                dam_buf_printf(b, " %-22.22s", cellbuf);
            }
            dam_buf_printf(b, "\n");
        }
        dam_buf_printf(b, "  %-26s", "binding");
        for (int i = 0; i < n; i++)
            dam_buf_printf(b, " %-22.22s", dam_bound_name(r[i].bound));
        dam_buf_printf(b, "\n");
        if (iv)
            interval_rows(b, s, iv, n);
        dam_buf_printf(b, "\nStep per iron-law term\n");
        for (int t = 0; t < DAM_TERM_COUNT; t++) {
            dam_buf_printf(b, "  %-26s", dam_term_name((dam_term)t));
            for (int i = 0; i < n; i++) {
                char v[32], cellbuf[80];
                dam_fmt_time(v, sizeof v, r[i].terms[t]);
                double dlt = r[i].terms[t] - r[0].terms[t];
                char dv[32];
                dam_fmt_time(dv, sizeof dv, fabs(dlt));
                if (i > 0 && fabs(dlt) > 1e-12)
                    snprintf(cellbuf, sizeof cellbuf, "%s (%c%s)", v,
                             dlt > 0 ? '+' : '-', dv);
                else
                    snprintf(cellbuf, sizeof cellbuf, "%s", v);
                dam_buf_printf(b, " %-22.22s", cellbuf);
            }
            dam_buf_printf(b, "\n");
        }
    }
    for (int i = 0; i < n; i++)
        flat_free(&fl[i]);
    dam_free(fl);
}
