/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_chart_axis.c: the pure axis arithmetic of render/chart/axis.h: nice
 * linear ticks, log decades with 2/5 minors, the data-to-device map, and
 * engineering tick labels without float noise.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/error.h"
#include "render/chart/axis.h"

static void lbl(double v, double step, double ref, dam_axis_unit u,
                const char *name, const char *want)
{
    char buf[DAM_AXIS_LABEL_MAX], what[128];
    dam_axis_format(buf, sizeof buf, v, step, ref, u, name);
    snprintf(what, sizeof what, "label of %g (step %g)", v, step);
    dam_check_str(buf, want, what);
}

int main(void)
{
    double t[DAM_AXIS_MAX_TICKS], mn[DAM_AXIS_MAX_TICKS], step = 0;
    size_t n = 0, nm = 0;

    /* [0, 0.572] in at most 8 ticks: 0, 0.1, ..., 0.6 */
    dam_check_int(dam_axis_ticks(0, 0.572, 8, t, &n, &step), DAM_OK,
                  "ticks [0, 0.572]: ok");
    dam_check_int((long)n, 7, "ticks [0, 0.572]: count");
    dam_check(step == 0.1, "ticks [0, 0.572]: step is exactly 0.1 (%.17g)",
              step);
    dam_check(t[0] == 0.0 && t[6] == 0.6, "ticks [0, 0.572]: ends 0, 0.6");
    dam_check(t[3] == 0.3, "ticks [0, 0.572]: third is the double 0.3, not "
                           "3 * 0.1 (%.17g)", t[3]);
    dam_check(t[1] == 0.1 && t[2] == 0.2 && t[4] == 0.4 && t[5] == 0.5,
              "ticks [0, 0.572]: every tick equals its decimal literal");

    /* fewer ticks allowed: the step grows to 0.2 */
    dam_axis_ticks(0, 0.572, 5, t, &n, &step);
    dam_check(step == 0.2 && n == 4 && t[3] == 0.6,
              "ticks [0, 0.572] max 5: step 0.2, 0..0.6");

    /* negative and large ranges */
    dam_axis_ticks(-37, 112, 8, t, &n, &step);
    dam_check(step == 50 && t[0] == -50 && t[n - 1] == 150,
              "ticks [-37, 112]: step 50 from -50 to 150 (got %g, %g..%g)",
              step, t[0], t[n - 1]);
    dam_axis_ticks(0, 3.3e12, 6, t, &n, &step);
    dam_check(step == 1e12 && n == 5, "ticks [0, 3.3e12]: step 1e12, 5 ticks");
    dam_axis_ticks(0.0042, 0.0091, 6, t, &n, &step);
    dam_check(step == 0.002 && t[0] == 0.004 && t[n - 1] == 0.01,
              "ticks [0.0042, 0.0091] max 6: step 0.002, 0.004..0.01");
    dam_axis_ticks(-0.3, 0.3, 7, t, &n, &step);
    dam_check(n == 7 && t[3] == 0 && !signbit(t[3]),
              "ticks [-0.3, 0.3]: the middle tick is +0, not -0");

    /* degenerate and bad ranges */
    dam_check_int(dam_axis_ticks(5, 5, 6, t, &n, &step), DAM_OK,
                  "lo == hi is widened");
    dam_check(n >= 2 && t[0] < 5 && t[n - 1] > 5, "lo == hi: 5 is inside");
    dam_check_int(dam_axis_ticks(0, 0, 6, t, &n, &step), DAM_OK,
                  "[0, 0] is widened");
    dam_check_int(dam_axis_ticks(NAN, 1, 6, t, &n, &step), DAM_EINPUT,
                  "NaN bound is DAM_EINPUT");
    dam_check_int(dam_axis_ticks(0, INFINITY, 6, t, &n, &step), DAM_EINPUT,
                  "infinite bound is DAM_EINPUT");
    dam_check_int(dam_axis_ticks(2, 1, 6, t, &n, &step), DAM_EINPUT,
                  "reversed range is DAM_EINPUT");
    dam_check_int(dam_axis_ticks(0, 1, 1, t, &n, &step), DAM_EINPUT,
                  "max_ticks 1 is DAM_EINPUT");

    /* log: [3e-3, 2.1e2] -> decades 1e-3 .. 1e3 */
    dam_check_int(dam_axis_log_ticks(3e-3, 2.1e2, 10, t, &n, mn, &nm), DAM_OK,
                  "log ticks [3e-3, 2.1e2]: ok");
    dam_check_int((long)n, 7, "log ticks [3e-3, 2.1e2]: 7 decades");
    dam_check(t[0] == 1e-3 && t[1] == 1e-2 && t[3] == 1 && t[6] == 1e3,
              "log ticks: 1e-3, 1e-2, .., 1, .., 1e3 exactly");
    dam_check_int((long)nm, 12, "log ticks: 2 minors in each of 6 decades");
    dam_check(mn[0] == 2e-3 && mn[1] == 5e-3 && mn[11] == 500,
              "log minors: 0.002, 0.005, .., 500 exactly");
    /* crowded: every other decade */
    dam_axis_log_ticks(1e-3, 1e9, 5, t, &n, mn, &nm);
    dam_check(n <= 5 && t[0] <= 1e-3 && t[n - 1] >= 1e9,
              "log ticks [1e-3, 1e9] max 5: at most 5, covering (n %zu)", n);
    dam_check(nm == 0, "no minors when decades are skipped");
    /* exact powers of ten stay their own decade */
    dam_axis_log_ticks(1e-3, 1e3, 10, t, &n, NULL, NULL);
    dam_check(n == 7 && t[0] == 1e-3 && t[6] == 1e3,
              "log ticks [1e-3, 1e3]: exactly 7 decades");
    dam_check_int(dam_axis_log_ticks(0, 10, 10, t, &n, mn, &nm), DAM_EINPUT,
                  "log of 0 is DAM_EINPUT");
    dam_check_int(dam_axis_log_ticks(-1, 10, 10, t, &n, mn, &nm), DAM_EINPUT,
                  "log of a negative is DAM_EINPUT");

    /* map */
    dam_axis a = {0, 10, 0, 100, 300};
    dam_check_rel(dam_axis_map(&a, 5), 200, 1e-12, "linear map midpoint");
    dam_check_rel(dam_axis_map(&a, 0), 100, 1e-12, "linear map lo");
    dam_axis y = {0, 1, 0, 400, 0};
    dam_check_rel(dam_axis_map(&y, 0.25), 300, 1e-12, "reversed map (y up)");
    dam_axis l = {1e-2, 1e2, 1, 0, 400};
    dam_check_rel(dam_axis_map(&l, 1), 200, 1e-12, "log map: 1 halfway");
    dam_check_rel(dam_axis_map(&l, 10), 300, 1e-12, "log map: 10");

    /* labels: the step sets decimals, the largest tick the prefix */
    lbl(0.1, 0.1, 0.6, DAM_AXIS_PLAIN, NULL, "0.1");
    lbl(0.30000000000000004, 0.1, 0.6, DAM_AXIS_PLAIN, NULL, "0.3");
    lbl(0, 0.1, 0.6, DAM_AXIS_PLAIN, NULL, "0");
    lbl(-0.0, 0.5, 2, DAM_AXIS_PLAIN, NULL, "0");
    lbl(150, 50, 150, DAM_AXIS_PLAIN, NULL, "150");
    lbl(20000, 5000, 20000, DAM_AXIS_PLAIN, NULL, "20k");
    lbl(0.05, 0.05, 0.15, DAM_AXIS_SECONDS, NULL, "50 ms");
    lbl(0.1, 0.05, 0.15, DAM_AXIS_SECONDS, NULL, "100 ms");
    lbl(1.5, 0.5, 2, DAM_AXIS_SECONDS, NULL, "1.5 s");
    lbl(2e-4, 1e-4, 5e-4, DAM_AXIS_SECONDS, NULL, "200 µs");
    lbl(0.0125, 0.0025, 0.02, DAM_AXIS_SECONDS, NULL, "12.5 ms");
    lbl(312e12, 0, 0, DAM_AXIS_SI, "FLOP/s", "312 TFLOP/s");
    lbl(2039e9, 0, 0, DAM_AXIS_SI, "B/s", "2.04 TB/s");
    lbl(1e15, 0, 0, DAM_AXIS_SI, "FLOP/s", "1 PFLOP/s");
    lbl(5e11, 5e11, 2e12, DAM_AXIS_SI, "FLOP/s", "0.5 TFLOP/s");
    lbl(1.25e8, 0, 0, DAM_AXIS_COUNT, NULL, "125M");
    lbl(7e9, 0, 0, DAM_AXIS_COUNT, NULL, "7B");
    lbl(12300, 0, 0, DAM_AXIS_USD, NULL, "$12.3k");
    lbl(-3300, 0, 0, DAM_AXIS_USD, NULL, "-$3.3k");
    lbl(0, 2000, 10000, DAM_AXIS_USD, NULL, "$0");
    lbl(500, 0, 0, DAM_AXIS_USD, NULL, "$500");
    lbl(1.5, 0.5, 3, DAM_AXIS_FACTOR, NULL, "1.5x");
    lbl(1.0, 0.01, 0, DAM_AXIS_FACTOR, NULL, "1.00x");
    lbl(0.002, 0, 0, DAM_AXIS_PLAIN, NULL, "0.002");
    lbl(1000, 0, 0, DAM_AXIS_PLAIN, NULL, "1,000");
    lbl(1600, 200, 1600, DAM_AXIS_PLAIN, NULL, "1,600");
    lbl(-2500, 500, 2500, DAM_AXIS_PLAIN, NULL, "-2,500");
    lbl(NAN, 0, 0, DAM_AXIS_SECONDS, NULL, "n/a");
    lbl(INFINITY, 1, 1, DAM_AXIS_PLAIN, NULL, "n/a");

    char buf[32];
    dam_axis_format_signed(buf, sizeof buf, 0.3);
    dam_check_str(buf, "+0.30", "signed 0.3");
    dam_axis_format_signed(buf, sizeof buf, 12.34);
    dam_check_str(buf, "+12", "signed 12.34");
    dam_axis_format_signed(buf, sizeof buf, -0.0456);
    dam_check_str(buf, "-0.046", "signed -0.0456");
    dam_axis_format_signed(buf, sizeof buf, NAN);
    dam_check_str(buf, "n/a", "signed NaN");

    /* every tick of a range labels without noise */
    dam_axis_ticks(0, 0.0072, 10, t, &n, &step);
    int clean = 1;
    for (size_t i = 0; i < n; i++) {
        char b[DAM_AXIS_LABEL_MAX];
        dam_axis_format(b, sizeof b, t[i], step, t[n - 1], DAM_AXIS_PLAIN,
                        NULL);
        clean &= strlen(b) <= 6;
    }
    dam_check(clean, "ticks of [0, 0.0072] label in at most 6 characters");
    return dam_check_done();
}
