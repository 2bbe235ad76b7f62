/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.c: sweep rows as CSV and JSON Lines (see sweep.h).
 *
 * Design. A CSV row is built by hand with a 6-digit formatter, because
 * snprintf's "%.6g" costs about as much as the analytic solve of the point
 * it prints. The formatter scales the number by one exact power of ten
 * (one rounding) and rounds to 6 digits; where the scaled value lies within
 * a few units in the last place of a rounding tie, the one rounding could
 * have gone either way, so it asks snprintf instead. JSON rows go through
 * jansson (escaping), with the same number text.
 */
#include "render/page/sweep_page.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"

static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static size_t slow_g6(double x, char *out)
{
    return (size_t)snprintf(out, 32, "%.6g", x);
}

/* Strip trailing zeros (and a bare point) from p[0..n); new length. */
static size_t strip_zeros(char *p, size_t n)
{
    while (n > 0 && p[n - 1] == '0')
        n--;
    if (n > 0 && p[n - 1] == '.')
        n--;
    return n;
}

/* floor(log10(a)) for a normal a > 0, or one less: from the binary
 * exponent (log10(2) ~ 78913 / 2^18), without calling log10. */
static int exp10_estimate(double a)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int be = (int)((bits >> 52) & 0x7ff) - 1023; /* a in [2^be, 2^(be+1)) */
    return (be * 78913) >> 18;                   /* floor(be log10 2) */
}

size_t dam_sweep_fmt_g6(double x, char *out)
{
    if (!isfinite(x) || x == 0.0 || fabs(x) < 0x1.0p-1000)
        return slow_g6(x, out);
    double a = fabs(x);
    int e = exp10_estimate(a);
    double m = 0.0;
    for (int tries = 0; tries < 3; tries++) {
        int k = 5 - e;
        if (k < -22 || k > 22)
            return slow_g6(x, out);
        m = k >= 0 ? a * pow10_exact[k] : a / pow10_exact[-k];
        if (m < 100000.0)
            e--;
        else if (m >= 1000000.0)
            e++;
        else
            break;
    }
    if (!(m >= 100000.0 && m < 1000000.0))
        return slow_g6(x, out);
    long t = (long)m; /* m > 0: truncation is floor */
    double f = m - (double)t;
    if (fabs(f - 0.5) < m * 0x1.0p-48)
        return slow_g6(x, out); /* near a tie: let printf decide */
    long r = f >= 0.5 ? t + 1 : t;
    if (r >= 1000000) {
        r = 100000;
        e++;
    }
    char d[6];
    for (int i = 5; i >= 0; i--) {
        d[i] = (char)('0' + r % 10);
        r /= 10;
    }
    char *p = out;
    if (x < 0)
        *p++ = '-';
    size_t n;
    if (e < -4 || e >= 6) {
        p[0] = d[0];
        p[1] = '.';
        memcpy(p + 2, d + 1, 5);
        n = strip_zeros(p, 7);
        p += n;
        *p++ = 'e';
        *p++ = e < 0 ? '-' : '+';
        int ae = e < 0 ? -e : e;
        if (ae >= 100)
            *p++ = (char)('0' + ae / 100);
        *p++ = (char)('0' + ae / 10 % 10);
        *p++ = (char)('0' + ae % 10);
    } else if (e >= 0) {
        memcpy(p, d, (size_t)e + 1);
        p[e + 1] = '.';
        memcpy(p + e + 2, d + e + 1, (size_t)(5 - e));
        p += strip_zeros(p, 7);
    } else {
        p[0] = '0';
        p[1] = '.';
        for (int i = 0; i < -e - 1; i++)
            p[2 + i] = '0';
        memcpy(p + 1 - e, d, 6);
        p += strip_zeros(p, (size_t)(7 - e));
    }
    *p = '\0';
    return (size_t)(p - out);
}

/* ---- CSV ----------------------------------------------------------------- */

static const char *const figure_cols[] = {
    "step_s", "throughput_per_s", "run_time_s", "gpu_hours", "cost_usd",
    "energy_kwh"};
static const char *const interval_cols[] = {
    "step_s_lo", "step_s_hi", "run_time_s_lo", "run_time_s_hi",
    "cost_usd_lo", "cost_usd_hi"};

/* A CSV row is written into a stack buffer of this size (row.values,
 * twelve numbers and the error, each quoted with its quotes doubled, fit
 * well inside) and appended to the output in one piece. */
#define ROW_MAX 4096

/* Write s as one CSV field at p: quoted when it holds a comma, quote or
 * line break (a line break becomes a space), quotes doubled. Returns the
 * end. At most 2 strlen(s) + 2 bytes. */
static char *csv_field(char *p, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        size_t n = strlen(s);
        memcpy(p, s, n);
        return p + n;
    }
    *p++ = '"';
    for (const char *q = s; *q; q++) {
        if (*q == '"')
            *p++ = '"';
        *p++ = *q == '\n' || *q == '\r' ? ' ' : *q;
    }
    *p++ = '"';
    return p;
}

/* ",x" at p; returns the end. */
static char *csv_num(char *p, double x)
{
    *p++ = ',';
    return p + dam_sweep_fmt_g6(x, p);
}

/* ",lo,hi" of iv at p, or ",," when it is not known; returns the end. */
static char *csv_pair(char *p, int known, const dam_interval *iv)
{
    if (!known) {
        memcpy(p, ",,", 2);
        return p + 2;
    }
    p = csv_num(p, iv->lo);
    return csv_num(p, iv->hi);
}

void dam_page_sweep_csv_header(dam_buf *b, const dam_sweep *sw)
{
    char line[ROW_MAX], *p = line;
    for (int k = 0; k < sw->nkeys; k++) {
        if (k)
            *p++ = ',';
        p = csv_field(p, sw->keys[k].key);
    }
    dam_buf_append(b, line, (size_t)(p - line));
    for (size_t i = 0; i < sizeof figure_cols / sizeof *figure_cols; i++)
        dam_buf_printf(b, ",%s", figure_cols[i]);
    dam_buf_printf(b, ",bound,fits_memory");
    if (dam_sweep_has_overload(sw))
        dam_buf_printf(b, ",overloaded");
    if (sw->uncertain)
        for (size_t i = 0; i < sizeof interval_cols / sizeof *interval_cols;
             i++)
            dam_buf_printf(b, ",%s", interval_cols[i]);
    dam_buf_printf(b, ",error\n");
}

void dam_page_sweep_csv_row(dam_buf *b, const dam_sweep *sw,
                       const dam_sweep_row *row)
{
    _Static_assert(DAM_SWEEP_MAX_KEYS * (2 * DAM_SWEEP_VALUE_MAX + 1) +
                           12 * 32 + 2 * sizeof row->error + 64 <
                       ROW_MAX,
                   "a CSV row fits its buffer");
    char line[ROW_MAX], *p = line;
    for (int k = 0; k < sw->nkeys; k++) {
        if (k)
            *p++ = ',';
        p = csv_field(p, row->values[k]);
    }
    if (row->ok) {
        p = csv_num(p, row->step);
        if (row->run_known) {
            p = csv_num(p, row->throughput);
            p = csv_num(p, row->run_time);
            p = csv_num(p, row->gpu_hours);
        } else {
            memcpy(p, ",,,", 3); /* a lone LLM request: unknown */
            p += 3;
        }
        if (row->priced) {
            p = csv_num(p, row->cost_usd);
        } else {
            *p++ = ','; /* no price: n/a */
        }
        if (row->run_known) {
            p = csv_num(p, row->energy_kwh);
        } else {
            *p++ = ',';
        }
        const char *bn = dam_bound_name(row->bound);
        size_t n = strlen(bn);
        *p++ = ',';
        memcpy(p, bn, n);
        p += n;
        memcpy(p, row->fits ? ",1" : ",0", 2);
        p += 2;
    } else {
        memcpy(p, ",,,,,,,,", 8);
        p += 8;
    }
    if (dam_sweep_has_overload(sw)) {
        *p++ = ',';
        if (row->ok && row->overloaded >= 0)
            *p++ = row->overloaded ? '1' : '0';
    }
    if (sw->uncertain) {
        if (row->ok && row->has_interval) {
            p = csv_num(p, row->step_i.lo);
            p = csv_num(p, row->step_i.hi);
            p = csv_pair(p, row->run_known, &row->run_time_i);
            p = csv_pair(p, row->priced, &row->cost_i);
        } else {
            memcpy(p, ",,,,,,", 6);
            p += 6;
        }
    }
    *p++ = ',';
    if (!row->ok)
        p = csv_field(p, row->error);
    *p++ = '\n';
    dam_buf_append(b, line, (size_t)(p - line));
}

/* ---- JSON Lines ---------------------------------------------------------- */

/* A number as a JSON real with the CSV's 6 digits (jansson would print 17;
 * the text is parsed back so both outputs agree). */
static json_t *num6(double x)
{
    char t[32];
    dam_sweep_fmt_g6(x, t);
    return json_real(strtod(t, NULL));
}

/* A key's value: a JSON number where the text is one, else a string. */
static json_t *value_json(const char *v)
{
    char *end;
    long long i = strtoll(v, &end, 10);
    if (*v && !*end)
        return json_integer((json_int_t)i);
    double x = strtod(v, &end);
    if (*v && !*end && isfinite(x))
        return json_real(x);
    return json_string(v);
}

void dam_sweep_jsonl_row(dam_buf *b, const dam_sweep *sw,
                         const dam_sweep_row *row)
{
    json_t *o = json_object();
    json_object_set_new(o, "point", json_integer((json_int_t)row->index));
    for (int k = 0; k < sw->nkeys; k++)
        json_object_set_new(o, sw->keys[k].key, value_json(row->values[k]));
    double fig[6] = {row->step,      row->throughput, row->run_time,
                     row->gpu_hours, row->cost_usd,   row->energy_kwh};
    for (int i = 0; i < 6; i++)
        json_object_set_new(o, figure_cols[i],
                            row->ok && (i != 4 || row->priced) &&
                                    (i == 0 || row->run_known)
                                ? num6(fig[i])
                                : json_null());
    json_object_set_new(o, "bound",
                        row->ok ? json_string(dam_bound_name(row->bound))
                                : json_null());
    json_object_set_new(o, "fits_memory",
                        row->ok ? json_boolean(row->fits) : json_null());
    if (dam_sweep_has_overload(sw))
        json_object_set_new(o, "overloaded",
                            row->ok && row->overloaded >= 0
                                ? json_boolean(row->overloaded)
                                : json_null());
    if (sw->uncertain) {
        int have = row->ok && row->has_interval;
        double iv[6] = {row->step_i.lo,     row->step_i.hi,
                        row->run_time_i.lo, row->run_time_i.hi,
                        row->cost_i.lo,     row->cost_i.hi};
        for (int i = 0; i < 6; i++)
            json_object_set_new(o, interval_cols[i],
                                have && (i < 4 || row->priced) &&
                                        (i < 2 || row->run_known)
                                    ? num6(iv[i])
                                    : json_null());
    }
    json_object_set_new(o, "error",
                        row->ok ? json_null() : json_string(row->error));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                JSON_REAL_PRECISION(6));
    dam_alloc_check(s, 1);
    dam_buf_append(b, s, strlen(s));
    dam_buf_append(b, "\n", 1);
    free(s);
    json_decref(o);
}
