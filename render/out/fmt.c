/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fmt.c: number formatting (see fmt.h).
 *
 * Design note: everything goes through fixed(), which writes a value with
 * a given number of decimals (negative: rounded to tens, hundreds, ...)
 * and thousands separators. Significant digits are turned into decimals
 * from the exponent of the value *after* rounding (printf's %e does the
 * rounding), so 9.996 at three digits is "10.0", not "9.100".
 */
#include "render/out/fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/catalog.h"
#include "model/llm.h"
#include "render/out/buf.h"
#include "solver/diagnose.h"

/* Decimal exponent of v rounded to sig significant digits (v != 0). */
static int exponent(double v, int sig)
{
    char t[64];
    snprintf(t, sizeof t, "%.*e", sig - 1, v);
    const char *e = strchr(t, 'e');
    return e ? atoi(e + 1) : 0;
}

/* Insert thousands separators into the integer digits of s (in place,
 * within n bytes). */
static void group(char *s, size_t n)
{
    char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    size_t digits = strspn(p, "0123456789");
    if (digits <= 3)
        return;
    size_t commas = (digits - 1) / 3, len = strlen(s);
    if (len + commas + 1 > n)
        return;
    /* shift from the end, dropping a comma every three digits */
    char *src = s + len, *dst = s + len + commas;
    char *int_end = p + digits;
    while (src >= int_end)
        *dst-- = *src--;
    int k = 0;
    while (src >= p) {
        *dst-- = *src--;
        if (++k % 3 == 0 && src >= p)
            *dst-- = ',';
    }
}

/* v with dec decimals (dec < 0: rounded to 10^-dec), separators; "-0" is
 * written "0". */
static void fixed(char *buf, size_t n, double v, int dec)
{
    if (dec >= 0) {
        if (dec > 12)
            dec = 12;
        snprintf(buf, n, "%.*f", dec, v);
    } else {
        double q = pow(10.0, -dec);
        snprintf(buf, n, "%.0f", round(v / q) * q);
    }
    /* "-0", "-0.00": no sign on a zero */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));
    group(buf, n);
}

/* Decimals that show v with sig significant digits. */
static int decimals(double v, int sig)
{
    if (v == 0.0)
        return sig - 1;
    return sig - 1 - exponent(v, sig);
}

int dam_fmt_decimals(double v, int sig)
{
    return isfinite(v) ? decimals(v, sig < 1 ? 1 : sig) : 0;
}

void dam_fmt_fixed(char *buf, size_t n, double v, int dec)
{
    if (!isfinite(v))
        snprintf(buf, n, "n/a");
    else
        fixed(buf, n, v, dec);
}

static int clamp_sig(int sig)
{
    return sig < 1 ? 1 : sig > 15 ? 15 : sig;
}

int dam_fmt_special(char *buf, size_t n, double v)
{
    if (isfinite(v) && v != 0.0)
        return 0;
    snprintf(buf, n, "%s", isfinite(v) ? "0" : "n/a");
    return 1;
}

void dam_fmt_num(char *buf, size_t n, double v, int sig)
{
    sig = clamp_sig(sig);
    if (dam_fmt_special(buf, n, v))
        return;
    double a = fabs(v);
    if (a < 1e-4 || a >= 1e15) {
        snprintf(buf, n, "%.*g", sig, v);
        return;
    }
    fixed(buf, n, v, decimals(v, sig));
}

void dam_fmt_int(char *buf, size_t n, long long v)
{
    snprintf(buf, n, "%lld", v);
    group(buf, n);
}

void dam_fmt_usd(char *buf, size_t n, double usd, int sig)
{
    char t[64];
    if (!isfinite(usd)) {
        snprintf(buf, n, "n/a");
        return;
    }
    dam_fmt_num(t, sizeof t, fabs(usd), sig);
    snprintf(buf, n, "%s$%s", usd < 0 && strcmp(t, "0") ? "-" : "", t);
}

void dam_fmt_pct(char *buf, size_t n, double frac, int sig)
{
    char t[64];
    if (!isfinite(frac)) {
        snprintf(buf, n, "n/a");
        return;
    }
    double p = frac * 100.0;
    int d = p == 0.0 ? 0 : decimals(p, clamp_sig(sig));
    fixed(t, sizeof t, p, d > 1 ? 1 : d);
    snprintf(buf, n, "%s %%", t);
}

void dam_fmt_short(char *buf, size_t n, double v, int usd)
{
    static const struct {
        double scale;
        const char *suffix;
    } mag[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}};
    char t[64];
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    const char *sign = v < 0 ? "-" : "";
    double a = fabs(v);
    for (size_t i = 0; i < sizeof mag / sizeof mag[0]; i++)
        if (a >= mag[i].scale * 0.9995) {
            dam_fmt_num(t, sizeof t, a / mag[i].scale, DAM_FMT_SIG);
            snprintf(buf, n, "%s%s%s%s", sign, usd ? "$" : "", t,
                     mag[i].suffix);
            return;
        }
    dam_fmt_num(t, sizeof t, a, DAM_FMT_SIG);
    snprintf(buf, n, "%s%s%s", strcmp(t, "0") ? sign : "", usd ? "$" : "",
             t);
}

void dam_fmt_count(char *buf, size_t n, double v)
{
    static const struct {
        double scale;
        const char *word;
    } mag[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}};
    char t[64];
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    for (size_t i = 0; i < sizeof mag / sizeof mag[0]; i++)
        if (fabs(v) >= mag[i].scale * 0.9995) {
            dam_fmt_num(t, sizeof t, v / mag[i].scale, DAM_FMT_SIG);
            snprintf(buf, n, "%s %s", t, mag[i].word);
            return;
        }
    dam_fmt_num(buf, n, v, DAM_FMT_SIG);
}

/* ---- time ------------------------------------------------------------ */

static const double unit_s[] = {1e-6, 1e-3, 1.0, 60.0, 3600.0, 86400.0};
static const char *const unit_sym[] = {"us", "ms", "s", "min", "h", "d"};

dam_fmt_time_unit dam_fmt_time_pick(double s)
{
    double a = fabs(s);
    if (!isfinite(a) || a == 0.0)
        return DAM_FMT_MS;
    /* the thresholds at 3 significant digits, so 0.9996 s is "1.00 s" */
    if (a < 0.9995e-3)
        return DAM_FMT_US;
    if (a < 0.9995)
        return DAM_FMT_MS;
    if (a < 119.95)
        return DAM_FMT_S;
    if (a < 7199.5)
        return DAM_FMT_MIN;
    if (a < 172795.0)
        return DAM_FMT_H;
    return DAM_FMT_D;
}

dam_fmt_time_unit dam_fmt_time_pick_column(const double *s, size_t n)
{
    double big = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(s[i]) && fabs(s[i]) > big)
            big = fabs(s[i]);
    return dam_fmt_time_pick(big);
}

double dam_fmt_time_unit_seconds(dam_fmt_time_unit u)
{
    return (unsigned)u <= DAM_FMT_D ? unit_s[u] : 1.0;
}

const char *dam_fmt_time_symbol(dam_fmt_time_unit u)
{
    return (unsigned)u <= DAM_FMT_D ? unit_sym[u] : "s";
}

void dam_fmt_time_in(char *buf, size_t n, double s, dam_fmt_time_unit u,
                     int sig)
{
    char t[64];
    if (!isfinite(s)) {
        snprintf(buf, n, "n/a");
        return;
    }
    if ((unsigned)u > DAM_FMT_D)
        u = DAM_FMT_S;
    double v = s / unit_s[u];
    int d = v == 0.0 ? 0 : decimals(v, clamp_sig(sig));
    /* a column shows at most three decimals: smaller is "0" */
    if (d > 3)
        d = 3;
    fixed(t, sizeof t, v, d);
    if (strspn(t, "0.-") == strlen(t))
        snprintf(t, sizeof t, "0");
    snprintf(buf, n, "%s %s", t, unit_sym[u]);
}

void dam_fmt_time(char *buf, size_t n, double s)
{
    dam_fmt_time_in(buf, n, s, dam_fmt_time_pick(s), DAM_FMT_SIG);
}

/* ---- SI, bytes, memory ------------------------------------------------ */

void dam_fmt_si(char *buf, size_t n, double v, const char *unit)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    char t[64];
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    int i = 0;
    /* prefix from the value rounded to 3 digits (999.96 -> 1.00 k) */
    while (i < 6 && fabs(v) > 0.0 && exponent(v, DAM_FMT_SIG) >= 3) {
        v /= 1000.0;
        i++;
    }
    dam_fmt_num(t, sizeof t, v, DAM_FMT_SIG);
    snprintf(buf, n, "%s %s%s", t, pre[i], unit ? unit : "");
}

void dam_fmt_bytes(char *buf, size_t n, double bytes)
{
    dam_fmt_si(buf, n, bytes, "B");
}

void dam_fmt_memory(char *buf, size_t n, double bytes)
{
    char t[64];
    if (!isfinite(bytes)) {
        snprintf(buf, n, "n/a");
        return;
    }
    double g = bytes / DAM_GIB;
    const char *u = "GiB";
    if (fabs(g) < 0.9995) {
        g = bytes / 1048576.0;
        u = "MiB";
    }
    /* a whole number of GiB (a datasheet's capacity) is written whole */
    if (fabs(g - round(g)) < 1e-9 * fmax(1.0, fabs(g)))
        fixed(t, sizeof t, round(g), 0);
    else
        dam_fmt_num(t, sizeof t, g, DAM_FMT_SIG);
    snprintf(buf, n, "%s %s", t, u);
}

/* ---- values with intervals -------------------------------------------- */

int dam_fmt_sig_for(double v, double lo, double hi)
{
    double hw = (hi - lo) / 2.0;
    if (!isfinite(v) || !isfinite(hw) || !(hw > 0.0) || v == 0.0)
        return DAM_FMT_SIG;
    int sig = (int)floor(log10(fabs(v))) - (int)floor(log10(hw)) + 1;
    return sig < 1 ? 1 : sig > 4 ? 4 : sig;
}

void dam_fmt_value(char *buf, size_t n, double v, dam_fmt_kind k, int sig)
{
    char t[64];
    switch (k) {
    case DAM_FMT_TIME:
        dam_fmt_time_in(buf, n, v, dam_fmt_time_pick(v), sig);
        return;
    case DAM_FMT_USD:
        if (fabs(v) >= 0.9995e6 && sig <= DAM_FMT_SIG)
            dam_fmt_short(buf, n, v, 1);
        else
            dam_fmt_usd(buf, n, v, sig);
        return;
    case DAM_FMT_PERCENT:
        dam_fmt_pct(buf, n, v, sig);
        return;
    case DAM_FMT_FACTOR:
        dam_fmt_num(t, sizeof t, v, sig);
        snprintf(buf, n, "%sx", t);
        return;
    case DAM_FMT_GPU_HOURS:
        if (fabs(v) >= 0.9995e6 && sig <= DAM_FMT_SIG)
            dam_fmt_short(t, sizeof t, v, 0);
        else
            dam_fmt_num(t, sizeof t, v, sig);
        snprintf(buf, n, "%s GPU-hours", t);
        return;
    case DAM_FMT_PLAIN:
    default:
        if (fabs(v) >= 0.9995e6 && sig <= DAM_FMT_SIG)
            dam_fmt_short(buf, n, v, 0);
        else
            dam_fmt_num(buf, n, v, sig);
        return;
    }
}

int dam_fmt_interval_decimals(double v, double lo, double hi)
{
    double hw = (hi - lo) / 2.0;
    if (!isfinite(v) || !isfinite(hw) || !(hw > 0.0))
        return decimals(v, DAM_FMT_SIG);
    int d = -(int)floor(log10(hw));
    /* never more than four significant digits of the value */
    int most = v != 0.0 ? decimals(v, 4) : d;
    return d > most ? most : d;
}

void dam_fmt_interval(char *buf, size_t n, double v, double lo, double hi,
                      dam_fmt_kind k)
{
    char a[64], b[64], c[64];
    if (!isfinite(lo) || !isfinite(hi) || !(lo <= hi) || !isfinite(v) ||
        v == 0.0 || !(hi > lo)) {
        dam_fmt_value(buf, n, v, k, DAM_FMT_SIG);
        return;
    }
    /* the bounds with the value's decimals, in the value's unit */
    double scale = 1.0;
    const char *pre = "", *post = "";
    switch (k) {
    case DAM_FMT_TIME: {
        dam_fmt_time_unit u = dam_fmt_time_pick(v);
        scale = unit_s[u];
        post = unit_sym[u];
        break;
    }
    case DAM_FMT_USD: pre = "$"; break;
    case DAM_FMT_PERCENT: scale = 0.01; post = "%"; break;
    case DAM_FMT_FACTOR: post = "x"; break;
    case DAM_FMT_GPU_HOURS: post = "GPU-hours"; break;
    default: break;
    }
    /* millions and more with a suffix: "$24M ($21M to $28M)" */
    const char *mag = "";
    if ((k == DAM_FMT_PLAIN || k == DAM_FMT_USD || k == DAM_FMT_GPU_HOURS) &&
        fabs(v) >= 0.9995e6) {
        static const struct {
            double s;
            const char *m;
        } big[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}};
        for (size_t i = 0; i < 3; i++)
            if (fabs(v) >= big[i].s * 0.9995) {
                scale = big[i].s;
                mag = big[i].m;
                break;
            }
    }
    int d = dam_fmt_interval_decimals(v / scale, lo / scale, hi / scale);
    if (k == DAM_FMT_PERCENT && d > 1)
        d = 1;
    fixed(a, sizeof a, v / scale, d);
    fixed(b, sizeof b, lo / scale, d);
    fixed(c, sizeof c, hi / scale, d);
    strcat(a, mag);
    strcat(b, mag);
    strcat(c, mag);
    const char *sp = *post && k != DAM_FMT_FACTOR ? " " : "";
    if (k == DAM_FMT_USD)
        snprintf(buf, n, "%s%s (%s%s to %s%s)", pre, a, pre, b, pre, c);
    else
        snprintf(buf, n, "%s%s%s (%s to %s%s%s)", a, sp, post, b, c, sp,
                 post);
}

void dam_llm_deployment_text(char *buf, size_t n, const dam_scenario *s)
{
    const dam_llm *q = &s->serving.llm;
    if (q->disaggregated)
        snprintf(buf, n,
                 "%d prefill x %d + %d decode x %d %s (disaggregated, %lld "
                 "GPUs)",
                 q->prefill_replicas, q->prefill_tp, q->decode_replicas,
                 q->decode_tp, s->machine.gpu.id,
                 (long long)dam_llm_gpus(s));
    else
        snprintf(buf, n, "%d replica%s x %d %s (%lld GPU%s)",
                 s->serving.replicas, s->serving.replicas == 1 ? "" : "s",
                 q->tp, s->machine.gpu.id, (long long)dam_llm_gpus(s),
                 dam_llm_gpus(s) == 1 ? "" : "s");
}

void dam_fmt_reps(char *buf, size_t n, int reps, double measured,
                   const char *unit)
{
    if (reps == 1)
        snprintf(buf, n, "batch means of 1 replication x %.0f %s", measured,
                 unit);
    else
        snprintf(buf, n, "%d replications x %.0f %s", reps, measured, unit);
}

void dam_fmt_plain_tail(dam_buf *b, size_t from)
{
    if (!b->data || from >= b->len)
        return;
    size_t n = b->len - from, cap = 2 * n + 1;
    char *out = dam_malloc(cap);
    size_t m = dam_plain_numbers(b->data + from, n, out, cap);
    b->len = from;
    b->data[from] = '\0';
    dam_buf_append(b, out, m);
    dam_free(out);
}

void dam_fmt_plain_str(char *s, size_t n)
{
    size_t len = strlen(s), cap = 2 * len + 1;
    char *out = dam_malloc(cap);
    dam_plain_numbers(s, len, out, cap);
    snprintf(s, n, "%s", out);
    dam_free(out);
}
