/* SPDX-License-Identifier: GPL-3.0-or-later */
/* units.c: engineering formatting (see units.h). Never prints NaN: a
 * non-finite value is shown as "n/a". */
#include "render/units.h"

#include <math.h>
#include <stdio.h>

void dam_fmt_time(char *buf, size_t n, double s)
{
    if (!isfinite(s))
        snprintf(buf, n, "n/a");
    else if (s == 0.0)
        snprintf(buf, n, "0 ms");
    else if (fabs(s) < 1e-3)
        snprintf(buf, n, "%.3g us", s * 1e6);
    else if (fabs(s) < 1.0)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else if (fabs(s) < 120.0)
        snprintf(buf, n, "%.3g s", s);
    else if (fabs(s) < 7200.0)
        snprintf(buf, n, "%.3g min", s / 60.0);
    else if (fabs(s) < 172800.0)
        snprintf(buf, n, "%.3g h", s / 3600.0);
    else
        snprintf(buf, n, "%.3g d", s / 86400.0);
}

void dam_fmt_si(char *buf, size_t n, double v, const char *unit)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    if (!isfinite(v)) {
        snprintf(buf, n, "n/a");
        return;
    }
    int i = 0;
    double a = fabs(v);
    while (a >= 1000.0 && i < 6) {
        a /= 1000.0;
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, "%.3g %s%s", v, pre[i], unit);
}

void dam_fmt_bytes(char *buf, size_t n, double bytes)
{
    dam_fmt_si(buf, n, bytes, "B");
}
