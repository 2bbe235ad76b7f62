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
 *
 * Every file damsim reads comes through here: scenarios and the files they
 * @include, catalogs, decode samples, arrival and request traces, the
 * calibration measurements and the profiler traces they name. The program
 * is told of each file opened (dam_infile_note, like render/out/outfile.h's
 * dam_outfile_track: provided by the program, a no-op by default), so the
 * output layer can refuse to replace a file the run read. A read
 * interrupted by a signal is retried only after the program's handler has
 * run (damsim's handlers end the process or set the flag its loops poll).
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

/* The whole of path as a NUL-terminated string (dam_malloc'd, the caller
 * dam_frees it; *len its length when len is not NULL), through
 * dam_infile_open. NULL with why filled when it cannot be opened or read. */
char *dam_infile_read(const char *path, size_t *len, char *why, size_t n);

/* Told of every file dam_infile_open opened (its device and inode).
 * Provided by the program (cli/signals.c for damsim); must not fail.
 * libdamsim's default does nothing. */
void dam_infile_note(unsigned long long dev, unsigned long long ino);
/* 1 when the program read the file (device, inode) through
 * dam_infile_open; libdamsim's default: 0. */
int dam_infile_was_read(unsigned long long dev, unsigned long long ino);

#endif
