/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * arrivals.h: a trace of request arrival times for serving scenarios
 * (serving.arrival = "trace"), read from a CSV file into an array the
 * caller owns and hands to the simulator (dam_sim_options.arrivals).
 *
 * Format: one arrival per line, the first comma-separated field is the
 * arrival time in seconds (further fields are ignored); blank lines and
 * lines starting with '#' are skipped, and a first line whose first field
 * is not a number is taken as a header. Times must be finite, >= 0 and
 * nondecreasing. Every bad time is reported as "file:line: error: ..." into
 * a dam_diag (up to DAM_DIAG_MAX); the first line that is not a number
 * ends the reading, its message quoting only the bytes that break the
 * number (a file that is not a trace is never echoed). The load fails as a
 * whole. Only regular files are read (model/infile.h). Reading a file is
 * the only I/O here; the simulator never opens files.
 */
#ifndef DAM_ARRIVALS_H
#define DAM_ARRIVALS_H

#include <stddef.h>

#include "model/error.h"
#include "model/scenario.h"

/* The most arrivals a trace may hold (80 MB of times). */
#define DAM_MAX_ARRIVALS 10000000

/*
 * Read arrival times from path into *times (allocated with dam_malloc; free
 * with dam_free) and their count into *n. Returns DAM_OK, or DAM_EINPUT
 * with the problems in d (*times is NULL and *n 0 then): a missing or
 * unreadable file, a bad number, a negative or decreasing time, or no
 * arrivals at all.
 */
int dam_arrivals_load(const char *path, double **times, size_t *n,
                      dam_diag *d);

/* The trace file of scenario s resolved against the folder of s->file
 * (an absolute serving.trace is kept), into out (n bytes). */
void dam_arrivals_path(char *out, size_t n, const dam_scenario *s);

#endif
