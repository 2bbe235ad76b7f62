/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * infile.h: opening a file that a scenario or the command line names for
 * reading (scenarios, catalogs, decode samples, arrival traces).
 *
 * Design note: only regular files are read. A FIFO would block damsim
 * until some writer came, and a device such as /dev/zero or /dev/urandom
 * would feed the readers without end (a line reader then grows until
 * memory runs out). The file is opened non-blocking, checked with fstat on
 * the open descriptor (no race with a rename in between), and handed back
 * as a blocking stdio stream. Its size is capped so that every reader's
 * memory and time are bounded before it starts.
 */
#ifndef DAM_INFILE_H
#define DAM_INFILE_H

#include <stdio.h>

/* The largest input file damsim reads, bytes (64 MiB: ten million arrival
 * times in text). */
#define DAM_MAX_INPUT_BYTES (64L * 1024 * 1024)

/* Open path for reading ("r"). NULL when it cannot be opened or is not a
 * regular file of at most DAM_MAX_INPUT_BYTES; why (n bytes) then says
 * which, in a few words ("no such file", "a FIFO, not a regular file"). */
FILE *dam_infile_open(const char *path, char *why, size_t n);
/* The same with another cap, bytes (profiler traces: kineto.h). */
FILE *dam_infile_open_max(const char *path, long max, char *why, size_t n);

#endif
