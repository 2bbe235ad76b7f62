/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * axis.c: tick arithmetic and tick labels (see axis.h).
 *
 * Design note: every tick is an integer times an exact power of ten
 * (10^e for 0 <= e <= 22 is exact in a double; 10^-e is obtained by one
 * correctly rounded division), so ticks equal the decimal literals a reader
 * expects. Labels are printed with fixed decimals derived from the step,
 * which hides any remaining binary noise.
 */
#include "render/chart/axis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/error.h"
#include "render/out/fmt.h"

/* 10^e, exact for |e| <= 22. */
static double p10(int e)
{
    double r = 1.0;
    int a = e < 0 ? -e : e;
    if (a > 22)
        return pow(10.0, e);
    for (int i = 0; i < a; i++)
        r *= 10.0;
    return e < 0 ? 1.0 / r : r;
}

/* k * 10^e with the rounding of a decimal literal. */
static double scaled(double k, int e)
{
    return e >= 0 ? k * p10(e) : k / p10(-e);
}

int dam_axis_ticks(double lo, double hi, size_t max_ticks, double *out,
                   size_t *n, double *step)
{
    static const int mant[3] = {1, 2, 5};

    if (!isfinite(lo) || !isfinite(hi) || lo > hi || max_ticks < 2)
        return DAM_EINPUT;
    if (max_ticks > DAM_AXIS_MAX_TICKS)
        max_ticks = DAM_AXIS_MAX_TICKS;
    if (lo == hi) {
        double d = lo == 0.0 ? 1.0 : fabs(lo) * 0.1;
        if (lo == 0.0)
            hi = 1.0;
        else {
            lo -= d;
            hi += d;
        }
    }
    /* Start a decade below the naive step and widen until it fits. */
    int e = (int)floor(log10((hi - lo) / (double)(max_ticks - 1))) - 1;
    for (int tries = 0; tries < 12; tries++, e++) {
        for (int i = 0; i < 3; i++) {
            double st = scaled(mant[i], e);
            double k0 = floor(lo / st + 1e-9), k1 = ceil(hi / st - 1e-9);
            if (k1 <= k0)
                k1 = k0 + 1;
            if (k1 - k0 + 1 > (double)max_ticks)
                continue;
            size_t cnt = 0;
            for (double k = k0; k <= k1; k++)
                out[cnt++] = scaled(k * mant[i], e);
            for (size_t j = 0; j < cnt; j++)
                if (out[j] == 0.0)
                    out[j] = 0.0; /* no -0 */
            *n = cnt;
            if (step)
                *step = st;
            return DAM_OK;
        }
    }
    return DAM_EINPUT; /* unreachable for finite input */
}

int dam_axis_log_ticks(double lo, double hi, size_t max_major, double *major,
                       size_t *nmajor, double *minor, size_t *nminor)
{
    if (!isfinite(lo) || !isfinite(hi) || lo <= 0.0 || hi <= 0.0 || lo > hi ||
        max_major < 2)
        return DAM_EINPUT;
    if (max_major > DAM_AXIS_MAX_TICKS)
        max_major = DAM_AXIS_MAX_TICKS;
    int d0 = (int)floor(log10(lo) + 1e-9);
    int d1 = (int)ceil(log10(hi) - 1e-9);
    if (d1 <= d0)
        d1 = d0 + 1;
    int k = 1;
    while ((d1 - d0 + k - 1) / k + 1 > (int)max_major)
        k++;
    /* Align majors on multiples of k so that labels read 1, 1k, 1M. */
    int a0 = (int)floor((double)d0 / k) * k;
    int a1 = (int)ceil((double)d1 / k) * k;
    size_t nm = 0;
    for (int d = a0; d <= a1 && nm < DAM_AXIS_MAX_TICKS; d += k)
        major[nm++] = p10(d);
    *nmajor = nm;
    if (minor) {
        size_t nn = 0;
        if (k == 1)
            for (int d = a0; d < a1 && nn + 2 <= DAM_AXIS_MAX_TICKS; d++) {
                minor[nn++] = scaled(2, d);
                minor[nn++] = scaled(5, d);
            }
        if (nminor)
            *nminor = nn;
    }
    return DAM_OK;
}

double dam_axis_map(const dam_axis *a, double v)
{
    double t;
    if (a->log) {
        double l0 = log10(a->lo), l1 = log10(a->hi);
        if (!(v > 0.0) || l1 == l0)
            return a->p0;
        t = (log10(v) - l0) / (l1 - l0);
    } else {
        if (a->hi == a->lo)
            return a->p0;
        t = (v - a->lo) / (a->hi - a->lo);
    }
    return a->p0 + t * (a->p1 - a->p0);
}

/* Prefix table from 1e-9 to 1e18 in steps of 1e3, per unit kind. */
static const char *const si_pre[] = {"n", "µ", "m", "", "k",
                                     "M", "G", "T", "P", "E"};
static const char *const time_names[] = {"ns", "µs", "ms", "s"};
static const char *const count_pre[] = {"", "k", "M", "B", "T"};
static const char *const plain_pre[] = {"", "k", "M", "G", "T"};

/* Drop trailing zeros (and a trailing point) of a fixed-point number. */
static void strip_zeros(char *s)
{
    if (!strchr(s, '.'))
        return;
    size_t L = strlen(s);
    while (L > 0 && s[L - 1] == '0')
        s[--L] = '\0';
    if (L > 0 && s[L - 1] == '.')
        s[--L] = '\0';
}

void dam_axis_format(char *buf, size_t n, double v, double step, double ref,
                     dam_axis_unit unit, const char *name)
{
    int emin = 0, emax = 0;
    char num[64];

    if (!n)
        return;
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    switch (unit) {
    case DAM_AXIS_SECONDS: emin = -9; emax = 0; break;
    case DAM_AXIS_SI:      emin = -9; emax = 18; break;
    case DAM_AXIS_COUNT:   emin = 0; emax = 12; break;
    case DAM_AXIS_USD:     emin = 0; emax = 9; break;
    case DAM_AXIS_PLAIN:   emin = 0; emax = 12; break;
    case DAM_AXIS_FACTOR:  emin = 0; emax = 0; break;
    }
    if (!(ref > 0.0) || !isfinite(ref))
        ref = fabs(v);
    int e3 = 0;
    if (ref > 0.0)
        e3 = (int)floor(log10(ref) / 3.0 + 1e-9) * 3;
    if (unit == DAM_AXIS_PLAIN && ref < 1e4)
        e3 = 0;
    if (e3 < emin)
        e3 = emin;
    if (e3 > emax)
        e3 = emax;

    double s = e3 >= 0 ? v / p10(e3) : v * p10(-e3);
    int dec;
    if (step > 0.0 && isfinite(step)) {
        double ss = e3 >= 0 ? step / p10(e3) : step * p10(-e3);
        for (dec = 0; dec < 9; dec++) {
            double t = ss * p10(dec);
            if (fabs(t - nearbyint(t)) <= 1e-6 * t)
                break;
        }
    } else {
        dec = s == 0.0 ? 0 : 2 - (int)floor(log10(fabs(s)) + 1e-9);
        if (dec < 0)
            dec = 0;
        if (dec > 12)
            dec = 12;
    }
    double shown = unit == DAM_AXIS_USD ? fabs(s) : s;
    if (fabs(shown) >= 1000.0) /* "1,600" as in the tables */
        dam_fmt_fixed(num, sizeof num, shown, dec);
    else
        snprintf(num, sizeof num, "%.*f", dec, shown);
    if (!(step > 0.0))
        strip_zeros(num);
    if (num[0] == '-' && strspn(num + 1, "0.") == strlen(num + 1))
        memmove(num, num + 1, strlen(num)); /* "-0.0" -> "0.0" */

    /* a zero needs no prefix where the prefix is glued to the number */
    if (strspn(num, "-0.") == strlen(num) &&
        (unit == DAM_AXIS_COUNT || unit == DAM_AXIS_USD ||
         unit == DAM_AXIS_PLAIN)) {
        snprintf(num, sizeof num, "0");
        e3 = emin > 0 ? emin : 0;
    }
    int pi = (e3 - emin) / 3;
    switch (unit) {
    case DAM_AXIS_SECONDS:
        snprintf(buf, n, "%s %s", num, time_names[pi]);
        break;
    case DAM_AXIS_SI:
        snprintf(buf, n, "%s %s%s", num, si_pre[pi], name ? name : "");
        break;
    case DAM_AXIS_COUNT:
        snprintf(buf, n, "%s%s", num, count_pre[pi]);
        break;
    case DAM_AXIS_USD: {
        int neg = s < 0.0 && strspn(num, "0.") != strlen(num);
        snprintf(buf, n, "%s$%s%s", neg ? "-" : "", num, count_pre[pi]);
        break;
    }
    case DAM_AXIS_FACTOR:
        snprintf(buf, n, "%sx", num);
        break;
    case DAM_AXIS_PLAIN:
    default:
        snprintf(buf, n, "%s%s", num, plain_pre[pi]);
        break;
    }
}

void dam_axis_format_signed(char *buf, size_t n, double v)
{
    if (dam_fmt_special(buf, n, v))
        return;
    int dec = 1 - (int)floor(log10(fabs(v)) + 1e-9);
    if (dec < 0)
        dec = 0;
    if (dec > 12)
        dec = 12;
    snprintf(buf, n, "%+.*f", dec, v);
}
