/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * outfile.h: the one way damsim creates an output file (text, JSON, CSV,
 * traces, charts, reports), so that a failure or a signal never leaves a
 * half-written file and a hostile path never makes damsim write where it
 * should not.
 *
 * Design note. The target is checked first: a target that exists and is
 * not a regular file (a device, a FIFO, a socket, a folder, or a symbolic
 * link to one of those) is refused as bad input; a symbolic link to a
 * regular file is followed, so the file it names is replaced and the link
 * kept. The bytes go to a temporary created exclusively (O_CREAT | O_EXCL |
 * O_NOFOLLOW, never an existing name, never through a link) in the target's
 * own folder, so the final rename is atomic; its name carries the process
 * id, a per-object address, the time and a retry counter. The program is
 * told of every temporary that exists (dam_outfile_track, provided by the
 * program like dam_out_of_memory), so that its SIGINT/SIGTERM handler can
 * remove them: the library keeps no list of its own (no mutable static
 * state below cli/).
 *
 * An output never replaces a file the same process read: the program is
 * asked (dam_infile_was_read, model/infile.h) about the target's device and
 * inode before the temporary is made, so `calibrate M.csv -o M.csv` is
 * refused instead of destroying the measurements. A replaced file keeps
 * its permission bits (a 0600 file stays 0600); a new one gets 0666 less
 * the umask. Every write, the flush and the close are checked; a failure
 * says "write error" with the system's reason and removes the temporary.
 */
#ifndef DAM_OUTFILE_H
#define DAM_OUTFILE_H

#include <stdio.h>

#include "model/error.h"

/* Told by this module when temporary file tmp starts to exist (live = 1)
 * and when it is gone, renamed or removed (live = 0). Provided by the
 * program (cli/signals.c for damsim); must be cheap and must not fail.
 * libdamsim's default, used when the program defines none, does nothing. */
void dam_outfile_track(const char *tmp, int live);

/* An output file being written. */
typedef struct dam_outfile {
    char *path;  /* the final path (a regular file's, links resolved); owned */
    char *tmp;   /* the temporary beside it; owned; NULL once gone */
    FILE *fp;    /* open on tmp for writing ("wb"), NULL once closed */
} dam_outfile;

/* Check path as a target and create its temporary. DAM_EINPUT when the
 * target exists and is not a regular file (or a link to one), DAM_ERUNTIME
 * when the temporary cannot be created; err filled either way. */
int dam_outfile_open(dam_outfile *o, const char *path, dam_error *err);
/* Flush and close the temporary and rename it to path instead of the
 * target (a name beside it, e.g. the rows an interrupted sweep kept), with
 * the same checks; o is released. */
int dam_outfile_commit_as(dam_outfile *o, const char *path, dam_error *err);
/* Flush and close the temporary and rename it over the target. Whatever
 * happens the temporary is gone afterwards and o is released.
 * DAM_ERUNTIME with err filled on a write or rename failure. */
int dam_outfile_commit(dam_outfile *o, dam_error *err);
/* Close and remove the temporary; o is released. NULL-safe, idempotent. */
void dam_outfile_abort(dam_outfile *o);

/* DAM_OK when path may be written as an output (it does not exist, or it
 * is a regular file or a link to one, not one this process read);
 * DAM_EINPUT with err filled when it exists as anything else. */
int dam_outfile_check_target(const char *path, dam_error *err);

#endif
