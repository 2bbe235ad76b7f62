/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_fmt.c: the one number formatter (render/out/fmt.h): thousands
 * separators, significant digits, one unit per column, the datasheets'
 * memory unit, intervals with matching digits, and never "nan".
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "render/out/fmt.h"

#define EQ(call, want)                                                        \
    do {                                                                      \
        char b_[96];                                                          \
        call;                                                                 \
        dam_check_str(b_, want, #call);                                       \
    } while (0)

int main(void)
{
    /* numbers: separators, no exponent, digits */
    EQ(dam_fmt_num(b_, sizeof b_, 17010.0, 3), "17,000");
    EQ(dam_fmt_num(b_, sizeof b_, 10550.0, 4), "10,550");
    EQ(dam_fmt_num(b_, sizeof b_, 1234567.0, 7), "1,234,567");
    EQ(dam_fmt_num(b_, sizeof b_, -1234567.0, 2), "-1,200,000");
    EQ(dam_fmt_num(b_, sizeof b_, 9.996, 3), "10.0");
    EQ(dam_fmt_num(b_, sizeof b_, 0.000554, 3), "0.000554");
    EQ(dam_fmt_num(b_, sizeof b_, 0.0, 3), "0");
    EQ(dam_fmt_num(b_, sizeof b_, -0.0001, 1), "-0.0001");
    EQ(dam_fmt_num(b_, sizeof b_, NAN, 3), "n/a");
    EQ(dam_fmt_num(b_, sizeof b_, INFINITY, 3), "n/a");
    EQ(dam_fmt_int(b_, sizeof b_, 1024), "1,024");
    EQ(dam_fmt_int(b_, sizeof b_, -999), "-999");
    EQ(dam_fmt_usd(b_, sizeof b_, 31372.0, 3), "$31,400");
    EQ(dam_fmt_usd(b_, sizeof b_, 31372.0, 5), "$31,372");
    EQ(dam_fmt_usd(b_, sizeof b_, -12.46, 3), "-$12.5");
    EQ(dam_fmt_pct(b_, sizeof b_, 0.6612, 3), "66.1 %");
    EQ(dam_fmt_pct(b_, sizeof b_, 0.004, 3), "0.4 %");
    EQ(dam_fmt_pct(b_, sizeof b_, 1.0, 3), "100 %");
    EQ(dam_fmt_short(b_, sizeof b_, 4.89e6, 0), "4.89M");
    EQ(dam_fmt_short(b_, sizeof b_, 2.41e7, 1), "$24.1M");
    EQ(dam_fmt_short(b_, sizeof b_, 999000, 1), "$999,000");
    EQ(dam_fmt_short(b_, sizeof b_, -1.5e9, 0), "-1.50B");
    EQ(dam_fmt_count(b_, sizeof b_, 6.74e9), "6.74 B");
    EQ(dam_fmt_count(b_, sizeof b_, 2e11), "200 B");
    EQ(dam_fmt_count(b_, sizeof b_, 1.4e12), "1.40 T");
    EQ(dam_fmt_count(b_, sizeof b_, 512), "512");

    /* times: a unit per value, or one for a column */
    EQ(dam_fmt_time(b_, sizeof b_, 0.572), "572 ms");
    EQ(dam_fmt_time(b_, sizeof b_, 0.9999), "1.00 s");
    EQ(dam_fmt_time(b_, sizeof b_, 3.04 * 3600), "3.04 h");
    EQ(dam_fmt_time(b_, sizeof b_, 108 * 60), "108 min");
    EQ(dam_fmt_time(b_, sizeof b_, 0.0), "0 ms");
    EQ(dam_fmt_time(b_, sizeof b_, 1.22e-12), "0 us");
    double col[2] = {3.04 * 3600, 108 * 60};
    dam_fmt_time_unit u = dam_fmt_time_pick_column(col, 2);
    dam_check_str(dam_fmt_time_symbol(u), "h", "a column of 3.04 h and "
                                                "108 min is in hours");
    EQ(dam_fmt_time_in(b_, sizeof b_, col[1], u, 3), "1.80 h");
    EQ(dam_fmt_time_in(b_, sizeof b_, 1.22e-12, DAM_FMT_MS, 3), "0 ms");
    EQ(dam_fmt_time_in(b_, sizeof b_, 3 * 86400.0, DAM_FMT_D, 3), "3.00 d");

    /* SI and memory: decimal data, the datasheets' GB for HBM */
    EQ(dam_fmt_si(b_, sizeof b_, 1.5e12, "FLOP/s"), "1.50 TFLOP/s");
    EQ(dam_fmt_si(b_, sizeof b_, 999.96, "B"), "1.00 kB");
    EQ(dam_fmt_bytes(b_, sizeof b_, 4e7), "40.0 MB");
    EQ(dam_fmt_memory(b_, sizeof b_, 80.0 * 1073741824.0), "80 GiB");
    EQ(dam_fmt_memory(b_, sizeof b_, 141.0 * 1073741824.0), "141 GiB");
    EQ(dam_fmt_memory(b_, sizeof b_, 44.0e9), "41.0 GiB");
    EQ(dam_fmt_memory(b_, sizeof b_, 300.0 * 1048576.0), "300 MiB");

    /* intervals: digits to the half-width, one unit */
    dam_check_int(dam_fmt_sig_for(3.04, 2.71, 3.39), 2,
                  "3.04 within +-0.34 shows 2 digits");
    dam_check_int(dam_fmt_sig_for(31372, 28000, 35000), 2,
                  "31,372 within +-3,500 shows 2 digits");
    dam_check_int(dam_fmt_sig_for(5.0, 5.0, 5.0), 3,
                  "no interval: the default digits");
    EQ(dam_fmt_interval(b_, sizeof b_, 3.04 * 3600, 2.71 * 3600, 3.39 * 3600,
                        DAM_FMT_TIME),
       "3.0 h (2.7 to 3.4 h)");
    EQ(dam_fmt_interval(b_, sizeof b_, 31372, 28100, 34900, DAM_FMT_USD),
       "$31,000 ($28,000 to $35,000)");
    EQ(dam_fmt_interval(b_, sizeof b_, 17010, 15200, 19100,
                        DAM_FMT_GPU_HOURS),
       "17,000 GPU-hours (15,000 to 19,000 GPU-hours)");
    EQ(dam_fmt_interval(b_, sizeof b_, 1.32, 1.21, 1.46, DAM_FMT_FACTOR),
       "1.3x (1.2 to 1.5x)");
    EQ(dam_fmt_interval(b_, sizeof b_, 0.62, 0.55, 0.70, DAM_FMT_PERCENT),
       "62 % (55 to 70 %)");
    EQ(dam_fmt_interval(b_, sizeof b_, 24.1e6, 21e6, 28e6, DAM_FMT_USD),
       "$24M ($21M to $28M)");
    EQ(dam_fmt_value(b_, sizeof b_, 4.89e6, DAM_FMT_PLAIN, 3), "4.89M");
    EQ(dam_fmt_interval(b_, sizeof b_, 2.0, NAN, 3.0, DAM_FMT_FACTOR),
       "2.00x");
    return dam_check_done();
}
