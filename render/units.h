/* SPDX-License-Identifier: GPL-3.0-or-later */
/* units.h: engineering formatting of SI values for tables and charts. */
#ifndef DAM_RENDER_UNITS_H
#define DAM_RENDER_UNITS_H

#include <stddef.h>

/* Format seconds as "572 ms", "1.2 s", "3.4 h", "12 d" into buf. */
void dam_fmt_time(char *buf, size_t n, double seconds);
/* Format a value with an SI prefix and unit: 1.5e12, "FLOP/s" -> "1.50 TFLOP/s". */
void dam_fmt_si(char *buf, size_t n, double value, const char *unit);
/* Format bytes with decimal prefixes: "40.0 MB". */
void dam_fmt_bytes(char *buf, size_t n, double bytes);

#endif
