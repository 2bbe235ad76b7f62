/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * csvline.h: the line reader shared by the trace files (arrival times,
 * model/arrivals.c; LLM requests, model/llm_trace.c): one data line at a
 * time with its number, for "file:line: error: ..." messages.
 *
 * Design note: lines are read whole with getline, so there is no limit on
 * their length; the caller opens the file, through model/infile.h, which
 * takes regular files of bounded size only. Blank lines and lines starting with '#' are skipped; a
 * first line whose first field is not a number, and does not start like
 * one, is the header. Both traces open with an arrival time in seconds,
 * so the reader also keeps the last accepted time and checks the next
 * one against it (finite, >= 0, nondecreasing). Parsing the fields stays
 * with each reader. Errors go into the caller's dam_diag; nothing here
 * prints or exits.
 */
#ifndef DAM_CSVLINE_H
#define DAM_CSVLINE_H

#include <stddef.h>
#include <stdio.h>

#include "model/error.h"

/* A trace file being read. Open with dam_csvline_open, close with
 * dam_csvline_close. */
typedef struct dam_csvline {
    FILE *f;          /* the file, closed by dam_csvline_close */
    const char *path; /* its name, for the messages */
    const char *what; /* what it holds, for the messages ("request trace") */
    dam_diag *d;      /* where errors go */
    int before;       /* d->nerr when the reading began */
    char *buf;        /* the current line (getline's buffer) */
    size_t cap;       /* bytes allocated for buf */
    int lineno;       /* 1-based number of the current line */
    int seen;         /* 1 once a data line or the header has been read */
    int have_last;    /* 1 once a time has been accepted */
    double last;      /* the last accepted arrival time, seconds */
    int last_line;    /* the line it stood on */
} dam_csvline;

/* Start reading f, the file named path (what names it in messages, as
 * "request trace"), errors into d. When f is NULL (it could not be
 * opened), add "cannot read the WHAT: WHY" at line 0 and return
 * DAM_EINPUT (r then holds nothing to close); else DAM_OK. */
int dam_csvline_open(dam_csvline *r, FILE *f, const char *path,
                     const char *what, const char *why, dam_diag *d);
/* The next line that is neither blank nor a '#' comment, from its first
 * non-space byte (r->lineno its number); NULL at the end of the file. */
const char *dam_csvline_next(dam_csvline *r);
/* Call once for each line p that dam_csvline_next returned, with
 * first_is_number 1 when its first field parsed as a number: 1 when p is
 * the header (no line before it, a first field that is not a number and
 * does not start with a digit, '.', '-' or '+'), which the caller skips. */
int dam_csvline_header(dam_csvline *r, const char *p, int first_is_number);
/* strtod for the numbers people write: decimal only. "0x1p3", "inf",
 * "nan" and the like are not numbers here (*end = s, 0 returned), so a
 * trace field or a command-line value means what it reads as. Leading
 * blanks and a sign are accepted as strtod accepts them. */
double dam_decimal(const char *s, char **end);

/* The latest arrival time a trace may hold, seconds (1e7 s, 116 days:
 * a double there still resolves 2e-9 s, so no latency is absorbed into
 * the arrival time; at 1e300 every latency rounds to 0). */
#define DAM_MAX_ARRIVAL_S 1e7

/* Check the arrival time t (seconds) of the current line: in
 * [0, DAM_MAX_ARRIVAL_S]
 * and not before the last accepted one. 1 when good; else 0, with the
 * error added at this line. */
int dam_csvline_time_ok(dam_csvline *r, double t);
/* Record t (seconds) as the current line's accepted arrival time. */
void dam_csvline_accept(dam_csvline *r, double t);
/* Close the file and free the line. When no error was added since the
 * open and n (the items read) is 0, add "the WHAT holds no ITEMS" at line
 * 0. Returns DAM_OK when no error was added since the open, else
 * DAM_EINPUT. */
int dam_csvline_close(dam_csvline *r, size_t n, const char *items);

#endif
