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
#include "render/sweep.h"

#include <jansson.h>
#include <math.h>
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

size_t dam_sweep_fmt_g6(double x, char *out)
{
    if (!isfinite(x) || x == 0.0)
        return slow_g6(x, out);
    double a = fabs(x);
    int e = (int)floor(log10(a));
    double m = 0.0;
    for (int tries = 0; tries < 2; tries++) {
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
    double f = m - floor(m);
    if (fabs(f - 0.5) < m * 0x1.0p-48)
        return slow_g6(x, out); /* near a tie: let printf decide */
    long r = (long)floor(m + 0.5);
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

/* Append s as one CSV field: quoted when it holds a comma, quote or line
 * break, quotes doubled. */
static void csv_field(dam_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        dam_buf_append(b, s, strlen(s));
        return;
    }
    dam_buf_append(b, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            dam_buf_append(b, "\"", 1);
        dam_buf_append(b, *p == '\n' || *p == '\r' ? " " : p, 1);
    }
    dam_buf_append(b, "\"", 1);
}

static void csv_num(dam_buf *b, double x)
{
    char t[32];
    size_t n = dam_sweep_fmt_g6(x, t);
    dam_buf_append(b, ",", 1);
    dam_buf_append(b, t, n);
}

void dam_sweep_csv_header(dam_buf *b, const dam_sweep *sw)
{
    for (int k = 0; k < sw->nkeys; k++) {
        if (k)
            dam_buf_append(b, ",", 1);
        csv_field(b, sw->keys[k].key);
    }
    for (size_t i = 0; i < sizeof figure_cols / sizeof *figure_cols; i++)
        dam_buf_printf(b, ",%s", figure_cols[i]);
    dam_buf_printf(b, ",bound,fits_memory");
    if (sw->uncertain)
        for (size_t i = 0; i < sizeof interval_cols / sizeof *interval_cols;
             i++)
            dam_buf_printf(b, ",%s", interval_cols[i]);
    dam_buf_printf(b, ",error\n");
}

void dam_sweep_csv_row(dam_buf *b, const dam_sweep *sw,
                       const dam_sweep_row *row)
{
    for (int k = 0; k < sw->nkeys; k++) {
        if (k)
            dam_buf_append(b, ",", 1);
        csv_field(b, row->values[k]);
    }
    if (row->ok) {
        csv_num(b, row->step);
        csv_num(b, row->throughput);
        csv_num(b, row->run_time);
        csv_num(b, row->gpu_hours);
        csv_num(b, row->cost_usd);
        csv_num(b, row->energy_kwh);
        const char *bn = dam_bound_name(row->bound);
        dam_buf_append(b, ",", 1);
        dam_buf_append(b, bn, strlen(bn));
        dam_buf_append(b, row->fits ? ",1" : ",0", 2);
    } else {
        dam_buf_append(b, ",,,,,,,,", 8);
    }
    if (sw->uncertain) {
        if (row->ok && row->has_interval) {
            csv_num(b, row->step_i.lo);
            csv_num(b, row->step_i.hi);
            csv_num(b, row->run_time_i.lo);
            csv_num(b, row->run_time_i.hi);
            csv_num(b, row->cost_i.lo);
            csv_num(b, row->cost_i.hi);
        } else {
            dam_buf_append(b, ",,,,,,", 6);
        }
    }
    dam_buf_append(b, ",", 1);
    if (!row->ok)
        csv_field(b, row->error);
    dam_buf_append(b, "\n", 1);
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
                            row->ok ? num6(fig[i]) : json_null());
    json_object_set_new(o, "bound",
                        row->ok ? json_string(dam_bound_name(row->bound))
                                : json_null());
    json_object_set_new(o, "fits_memory",
                        row->ok ? json_boolean(row->fits) : json_null());
    if (sw->uncertain) {
        int have = row->ok && row->has_interval;
        double iv[6] = {row->step_i.lo,     row->step_i.hi,
                        row->run_time_i.lo, row->run_time_i.hi,
                        row->cost_i.lo,     row->cost_i.hi};
        for (int i = 0; i < 6; i++)
            json_object_set_new(o, interval_cols[i],
                                have ? num6(iv[i]) : json_null());
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
