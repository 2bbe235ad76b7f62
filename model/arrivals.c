/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * arrivals.c: read a CSV of arrival timestamps (see arrivals.h). Lines are
 * read whole with getline, so there is no limit on line length; numbers go
 * through strtod and must fill the first field up to a comma or the end.
 */
#include "model/arrivals.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/infile.h"

void dam_arrivals_path(char *out, size_t n, const dam_scenario *s)
{
    const char *p = s->serving.trace;
    const char *slash = strrchr(s->file, '/');
    if (p[0] == '/' || !slash)
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - s->file), s->file, p);
}

/* Parse the first field of line as a number; 1 on success. */
static int first_field(const char *line, double *v)
{
    while (*line == ' ' || *line == '\t')
        line++;
    char *end;
    errno = 0;
    *v = strtod(line, &end);
    if (end == line || errno == ERANGE)
        return 0;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    return *end == ',' || *end == '\0';
}

int dam_arrivals_load(const char *path, double **times, size_t *n,
                      dam_diag *d)
{
    *times = NULL;
    *n = 0;
    char why[64];
    FILE *f = dam_infile_open(path, why, sizeof why);
    if (!f) {
        dam_diag_error(d, path, 0, "cannot read the arrival trace: %s", why);
        return DAM_EINPUT;
    }
    int before = d->nerr;
    char *line = NULL;
    size_t cap = 0, acap = 0;
    double *a = NULL, last = 0.0;
    int lineno = 0, seen = 0, last_line = 0;
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        const char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        double v;
        if (!first_field(p, &v)) {
            if (!seen && !isdigit((unsigned char)*p) && *p != '.' &&
                *p != '-' && *p != '+') {
                seen = 1; /* a header line */
                continue;
            }
            /* quote the number-like prefix and the byte that breaks it,
             * and stop: a file that is not a trace is never echoed */
            char tok[24], q[48];
            size_t len = strspn(p, "0123456789.eE+-");
            if (p[len] && !strchr(",\r\n", p[len]))
                len++;
            snprintf(tok, sizeof tok, "%.*s", (int)(len > 16 ? 16 : len), p);
            dam_diag_error(d, path, lineno,
                           "expected an arrival time in seconds, got \"%s\"; "
                           "not an arrival trace?",
                           dam_error_quote(tok, 16, q, sizeof q));
            break;
        }
        seen = 1;
        if (!isfinite(v) || v < 0.0) {
            dam_diag_error(d, path, lineno,
                           "arrival time must be finite and >= 0, got %g", v);
            continue;
        }
        if (*n > 0 && v < last) {
            dam_diag_error(d, path, lineno,
                           "arrival times must not decrease: %g after %g "
                           "(line %d)",
                           v, last, last_line);
            continue;
        }
        if (*n >= DAM_MAX_ARRIVALS) {
            dam_diag_error(d, path, lineno, "more than %d arrivals",
                           DAM_MAX_ARRIVALS);
            break;
        }
        a = dam_grow(a, sizeof *a, *n + 1, &acap);
        a[(*n)++] = v;
        last = v;
        last_line = lineno;
        if (d->truncated)
            break;
    }
    free(line);
    fclose(f);
    if (d->nerr == before && *n == 0)
        dam_diag_error(d, path, 0, "the arrival trace holds no arrivals");
    if (d->nerr > before) {
        dam_free(a);
        *n = 0;
        return DAM_EINPUT;
    }
    *times = a;
    return DAM_OK;
}
