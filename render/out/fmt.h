/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fmt.h: every number damsim shows a person, formatted one way: in the
 * terminal tables, CSV-free text, charts, the PDF and the HTML report.
 *
 * Design note. Digits follow the model's uncertainty: the model is
 * calibrated to within about 5 to 20 % (tests/VALIDATION.md), so a bare
 * value gets DAM_FMT_SIG (3) significant digits, and a value shown with its
 * interval gets as many as the interval supports (dam_fmt_sig_for: the
 * last digit shown is the first digit of the interval's half-width). Large
 * numbers take thousands separators ("31,400", never "3.14e+04"); tiny
 * ones in a time column come out as "0". A table column has one unit for
 * every row (dam_fmt_time_pick over the column, then dam_fmt_time_in), so
 * "3.04 h" never sits beside "108 min". GPU memory has one unit: NVIDIA's
 * "80 GB" is 80 x 2^30 bytes, so dam_fmt_memory divides by 2^30 and
 * writes "GiB" (data sizes and bandwidths stay decimal: 1 GB/s is
 * 10^9 bytes/s). A non-finite value is written "n/a", never "nan". Pure
 * functions of their arguments; every buffer is always terminated.
 */
#ifndef DAM_RENDER_FMT_H
#define DAM_RENDER_FMT_H

#include <stddef.h>

#include "model/scenario.h"

#define DAM_FMT_SIG 3 /* significant digits of a value without interval */

/* What a number is (its unit and how it is written). */
typedef enum dam_fmt_kind {
    DAM_FMT_PLAIN = 0, /* a number: "31,400", "0.554" */
    DAM_FMT_TIME,      /* seconds: "572 ms", "3.04 h" */
    DAM_FMT_USD,       /* dollars: "$31,400", "$0.554" */
    DAM_FMT_PERCENT,   /* a fraction shown as percent: 0.123 -> "12.3 %" */
    DAM_FMT_FACTOR,    /* a ratio: "1.32x" */
    DAM_FMT_GPU_HOURS  /* GPU-hours: "17,000 GPU-hours" */
} dam_fmt_kind;

/* Time units of a column. */
typedef enum dam_fmt_time_unit {
    DAM_FMT_US = 0, /* microseconds, "us" */
    DAM_FMT_MS,     /* milliseconds */
    DAM_FMT_S,      /* seconds */
    DAM_FMT_MIN,    /* minutes (below 2 hours) */
    DAM_FMT_H,      /* hours (below 2 days) */
    DAM_FMT_D       /* days */
} dam_fmt_time_unit;

/* "n/a" for a v that is not finite, "0" for zero: 1 when buf got one of
 * them, else 0 (buf untouched). */
int dam_fmt_special(char *buf, size_t n, double v);
/* v with sig significant digits (1..15), thousands separators from 1,000,
 * no exponent from 1e-4 up to 1e15 (outside: "1.2e-06"). */
void dam_fmt_num(char *buf, size_t n, double v, int sig);
/* Decimals that show v with sig significant digits (negative: v is
 * rounded to tens, hundreds, ...). */
int dam_fmt_decimals(double v, int sig);
/* v with dec decimals (dec < 0: rounded to 10^-dec), with separators;
 * used to write a change with the decimals of the value it changes. */
void dam_fmt_fixed(char *buf, size_t n, double v, int dec);
/* An exact whole number with thousands separators: 1024 -> "1,024". */
void dam_fmt_int(char *buf, size_t n, long long v);
/* Dollars with sig significant digits: "$31,400", "-$12.5", "$0.554". */
void dam_fmt_usd(char *buf, size_t n, double usd, int sig);
/* A fraction as a percentage, sig significant digits but at most one
 * decimal below 10 %: 0.6612 -> "66.1 %", 0.004 -> "0.4 %". */
void dam_fmt_pct(char *buf, size_t n, double frac, int sig);
/* A number for a narrow table column: below a million as dam_fmt_num
 * ("999,000"), above with a suffix ("4.89M", "1.2B"), 3 digits; usd: with
 * a dollar sign ("$24.1M"). At most 8 characters for |v| < 1e15. */
void dam_fmt_short(char *buf, size_t n, double v, int usd);
/* A count with a magnitude word: 7e9 -> "7.0 B", 2e11 -> "200 B",
 * 6.6e7 -> "66 M", 1.4e12 -> "1.4 T", 512 -> "512". */
void dam_fmt_count(char *buf, size_t n, double v);

/* The unit a time is best read in ("572 ms", "3.04 h"). */
dam_fmt_time_unit dam_fmt_time_pick(double seconds);
/* One unit for a column of n times: the unit of the largest |value|. */
dam_fmt_time_unit dam_fmt_time_pick_column(const double *seconds, size_t n);
/* Seconds in one unit u. */
double dam_fmt_time_unit_seconds(dam_fmt_time_unit u);
/* The unit's symbol: "us", "ms", "s", "min", "h", "d". */
const char *dam_fmt_time_symbol(dam_fmt_time_unit u);
/* seconds in unit u with sig significant digits (a value below the last
 * digit of the column is "0"): "1.80 h". */
void dam_fmt_time_in(char *buf, size_t n, double seconds,
                     dam_fmt_time_unit u, int sig);
/* seconds in the unit dam_fmt_time_pick chooses, DAM_FMT_SIG digits. */
void dam_fmt_time(char *buf, size_t n, double seconds);

/* A value with an SI prefix and unit, 3 significant digits:
 * (1.5e12, "FLOP/s") -> "1.50 TFLOP/s". */
void dam_fmt_si(char *buf, size_t n, double value, const char *unit);
/* Data bytes, decimal prefixes: "40.0 MB". */
void dam_fmt_bytes(char *buf, size_t n, double bytes);
/* GPU memory in the one memory unit of the output, GiB (2^30 bytes, the
 * datasheets' "GB"): 80 GiB -> "80 GiB", 4.4e10 bytes -> "41.0 GiB";
 * below 1 GiB in "MiB" (2^20). */
void dam_fmt_memory(char *buf, size_t n, double bytes);

/* Significant digits that show v to the precision of its interval
 * [lo, hi]: the last digit is the first of the half-width. 1..4; the
 * default DAM_FMT_SIG when the interval is empty or not finite. */
int dam_fmt_sig_for(double v, double lo, double hi);
/* Decimals that show v and its interval [lo, hi] to the interval's
 * precision: the last digit is at the place of the half-width's first
 * digit (negative: tens, hundreds...), at most four significant digits of
 * v; without an interval, DAM_FMT_SIG digits of v. */
int dam_fmt_interval_decimals(double v, double lo, double hi);
/* v of kind k with sig digits (DAM_FMT_TIME picks its unit); a number,
 * dollars or GPU-hours of a million or more take a suffix ("$24.1M"). */
void dam_fmt_value(char *buf, size_t n, double v, dam_fmt_kind k, int sig);
/* v and its 90 % interval, one unit and the same decimals for all three
 * (dam_fmt_interval_decimals): "3.0 h (2.7 to 3.4 h)", "$31,000
 * ($28,000 to $35,000)", "$24M ($21M to $28M)". An interval
 * that is not finite or not around v gives v alone. */
void dam_fmt_interval(char *buf, size_t n, double v, double lo, double hi,
                      dam_fmt_kind k);

/* An LLM deployment in words: "2 replicas x 4 H100-SXM5-80GB (8 GPUs)",
 * or its prefill and decode pools (disaggregated), into buf. */
void dam_llm_deployment_text(char *buf, size_t n, const dam_scenario *s);

/* What a simulation's 95 % CIs come from, into buf: "3 replications x
 * 304 steps", or with one replication "batch means of 1 replication x 304
 * steps" (unit: "steps", "requests"). */
void dam_fmt_reps(char *buf, size_t n, int reps, double measured,
                   const char *unit);

/* The plural ending of a count: "" for 1, "s" otherwise ("1 GPU",
 * "2 GPUs"). */
#define DAM_PLURAL(x) ((x) == 1.0 ? "" : "s")

/* Every number of b's text from byte from on that has a positive
 * two-digit exponent, as plain digits (dam_plain_numbers): for prose
 * lines, never for tables whose columns the exponents aligned. */
struct dam_buf;
void dam_fmt_plain_tail(struct dam_buf *b, size_t from);
/* The same on the string s (n bytes) in place. */
void dam_fmt_plain_str(char *s, size_t n);

#endif
