/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * error.h: the one funnel for diagnostics. Every failure below cli/ is a
 * dam_error (file, line, message) handed back to the caller; loaders collect
 * several into a dam_diag (as SQLite's Parse.nErr) up to DAM_DIAG_MAX, so a
 * user sees all the problems of a file at once. Messages follow one format:
 * "file:line: error: message", lower-case start, names in quotes, expected
 * against got. Nothing here prints: cli/ decides where diagnostics go.
 */
#ifndef DAM_ERROR_H
#define DAM_ERROR_H

#include <stddef.h>

#define DAM_DIAG_MAX 50 /* errors collected before a loader gives up */

/* Return codes of every fallible function. */
enum {
    DAM_OK = 0,      /* success */
    DAM_EINPUT = 2,  /* bad input: a scenario, catalog or option is wrong */
    DAM_ERUNTIME = 1 /* failure while running: I/O, numerical, cairo */
};

typedef enum { DAM_SEV_ERROR, DAM_SEV_WARNING } dam_severity;

/* One diagnostic. file may be empty (then no "file:line: " prefix). */
typedef struct dam_error {
    char file[256];   /* source file, or "" */
    int line;         /* 1-based line, 0 when unknown */
    dam_severity sev; /* error or warning */
    char msg[512];    /* the message, without prefix */
} dam_error;

/* A list of diagnostics, filled by loaders and validators. Owns entries. */
typedef struct dam_diag {
    dam_error *items; /* entries in the order found */
    size_t n;         /* number of entries */
    size_t cap;       /* allocated entries */
    int nerr;         /* errors among them */
    int nwarn;        /* warnings among them */
    int truncated;    /* 1 when more than DAM_DIAG_MAX errors were dropped */
} dam_diag;

/* Fill e with a message (printf format); returns DAM_EINPUT for chaining. */
int dam_error_set(dam_error *e, const char *file, int line, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));
/* Format e as "file:line: error: msg" into buf (always terminated). */
void dam_error_format(const dam_error *e, char *buf, size_t n);

/* A short, printable rendering of text from a file, for a message: at most
 * max bytes of s, then "..."; quotes and backslashes escaped, control and
 * non-ASCII bytes as \xHH; always terminated in out[n]. Returns out. A
 * message quotes at most one such token, so a scenario that names another
 * file can never make damsim print that file. */
const char *dam_error_quote(const char *s, size_t max, char *out, size_t n);

/* Initialise an empty list. */
void dam_diag_init(dam_diag *d);
/* Free the entries; the list is empty and reusable afterwards. */
void dam_diag_free(dam_diag *d);
/* Append an error; beyond DAM_DIAG_MAX errors it only counts truncation. */
void dam_diag_error(dam_diag *d, const char *file, int line, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
/* Append a warning. */
void dam_diag_warn(dam_diag *d, const char *file, int line, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));
/* Append a copy of e. */
void dam_diag_add(dam_diag *d, const dam_error *e);

#endif
