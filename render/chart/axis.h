/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * axis.h: the arithmetic of chart axes, as pure functions (no cairo, no
 * state), so that tests can check it number by number.
 *
 * Linear axes take "nice" steps of 1, 2 or 5 times a power of ten and
 * extend the range outwards to whole steps. Tick values are computed as an
 * integer times the step's mantissa, scaled by an exact power of ten, so
 * 3 * 0.1 comes out as the double nearest 0.3, never 0.30000000000000004.
 * Log axes put majors on decades (every k-th decade when crowded) and
 * minors on 2 and 5 times each decade.
 *
 * Labels are engineering notation: one SI prefix for a whole linear axis
 * (chosen by its largest tick), as many decimals as the step needs, and the
 * unit on every label ("50 ms", "1.5 s", "312 TFLOP/s", "$12.3k", "2x").
 */
#ifndef DAM_RENDER_AXIS_H
#define DAM_RENDER_AXIS_H

#include <stddef.h>

#define DAM_AXIS_MAX_TICKS 64  /* most ticks any axis function returns */
#define DAM_AXIS_LABEL_MAX 40  /* bytes of one formatted tick label */

/* How tick values are written. */
typedef enum dam_axis_unit {
    DAM_AXIS_PLAIN = 0, /* a number: "0.25", "150", "20k" (prefix from 1e4) */
    DAM_AXIS_SECONDS,   /* time: "200 µs", "50 ms", "1.5 s" */
    DAM_AXIS_SI,        /* SI prefix before a unit name: "312 TFLOP/s" */
    DAM_AXIS_COUNT,     /* counts: "125M", "7B", "1.4T" (parameters, tokens) */
    DAM_AXIS_USD,       /* money: "$500", "$12.3k", "$1.2M" */
    DAM_AXIS_FACTOR     /* ratios: "1.5x" */
} dam_axis_unit;

/* One axis's mapping from data to device coordinates. */
typedef struct dam_axis {
    double lo, hi; /* data values at the two ends (lo < hi; > 0 if log) */
    int log;       /* 1 for a log10 scale, 0 for linear */
    double p0, p1; /* device coordinates of lo and hi, points (any order) */
} dam_axis;

/*
 * Nice linear ticks covering [lo, hi] with at most max_ticks ticks.
 * out:   OUT: at least max_ticks slots (and no more than DAM_AXIS_MAX_TICKS
 *        are ever written); the ticks in increasing order, the first <= lo
 *        and the last >= hi.
 * n:     OUT: number of ticks written (>= 2).
 * step:  OUT: the step between ticks (may be NULL).
 * A degenerate range (lo == hi) is widened around the value. Returns DAM_OK,
 * or DAM_EINPUT when lo or hi is not finite, lo > hi, or max_ticks < 2.
 */
int dam_axis_ticks(double lo, double hi, size_t max_ticks, double *out,
                   size_t *n, double *step);

/*
 * Log ticks covering [lo, hi] (0 < lo <= hi): majors on powers of ten from
 * the decade at or below lo to the one at or above hi, every k-th decade
 * so that there are at most max_major; minors at 2 and 5 times each decade
 * inside the major range (only when every decade is a major).
 * major, minor: OUT: at least DAM_AXIS_MAX_TICKS slots each (minor may be
 *               NULL when not wanted).
 * nmajor, nminor: OUT: counts (nminor may be NULL with minor).
 * Returns DAM_OK, or DAM_EINPUT when a bound is not finite or not > 0,
 * lo > hi, or max_major < 2.
 */
int dam_axis_log_ticks(double lo, double hi, size_t max_major, double *major,
                       size_t *nmajor, double *minor, size_t *nminor);

/* Device coordinate of data value v on axis a (log axes: v > 0; a value
 * <= 0 maps to the lo end). Pure; values outside [lo, hi] extrapolate. */
double dam_axis_map(const dam_axis *a, double v);

/*
 * Format one tick label into buf (always terminated).
 * v:     the value.
 * step:  the tick step of a linear axis (sets the decimals), or 0 for a
 *        free-standing value (log ticks, annotations): up to 3 significant
 *        digits, trailing zeros dropped.
 * ref:   the magnitude that picks the SI prefix, normally the largest |tick|
 *        of the axis (0: use |v|).
 * unit:  how to write it; name: the unit after the prefix for DAM_AXIS_SI
 *        ("FLOP/s", "B/s"), ignored otherwise (may be NULL).
 * A non-finite v is written "n/a"; -0 is written "0".
 */
void dam_axis_format(char *buf, size_t n, double v, double step, double ref,
                     dam_axis_unit unit, const char *name);

/* A number with two significant digits and its sign, for annotations:
 * 0.3 -> "+0.30", 12.34 -> "+12", -0.0456 -> "-0.046". */
void dam_axis_format_signed(char *buf, size_t n, double v);

#endif
