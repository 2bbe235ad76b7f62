/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * arrivals.c: read a CSV of arrival timestamps (see arrivals.h). Lines come
 * from the trace line reader (model/csvline.h: getline, no limit on line
 * length); numbers go through strtod and must fill the first field up to a
 * comma or the end.
 */
#include "model/arrivals.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/csvline.h"
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
    *v = dam_decimal(line, &end);
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
    dam_csvline r;
    if (dam_csvline_open(&r, f, path, "arrival trace", why, d))
        return DAM_EINPUT;
    size_t acap = 0;
    double *a = NULL;
    const char *p;
    while ((p = dam_csvline_next(&r)) != NULL) {
        double v;
        int ok = first_field(p, &v);
        if (dam_csvline_header(&r, p, ok))
            continue;
        if (!ok) {
            /* quote the number-like prefix and the byte that breaks it,
             * and stop: a file that is not a trace is never echoed */
            char tok[24], q[48];
            size_t len = strspn(p, "0123456789.eE+-");
            if (p[len] && !strchr(",\r\n", p[len]))
                len++;
            snprintf(tok, sizeof tok, "%.*s", (int)(len > 16 ? 16 : len), p);
            dam_diag_error(d, path, r.lineno,
                           "expected an arrival time in seconds, got \"%s\"; "
                           "not an arrival trace?",
                           dam_error_quote(tok, 16, q, sizeof q));
            break;
        }
        if (!dam_csvline_time_ok(&r, v))
            continue;
        if (*n >= DAM_MAX_ARRIVALS) {
            dam_diag_error(d, path, r.lineno, "more than %d arrivals",
                           DAM_MAX_ARRIVALS);
            break;
        }
        a = dam_grow(a, sizeof *a, *n + 1, &acap);
        a[(*n)++] = v;
        dam_csvline_accept(&r, v);
        if (d->truncated)
            break;
    }
    if (dam_csvline_close(&r, *n, "arrivals")) {
        dam_free(a);
        *n = 0;
        return DAM_EINPUT;
    }
    *times = a;
    return DAM_OK;
}
