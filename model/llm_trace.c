/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm_trace.c: read a CSV of LLM requests (see llm_trace.h). Lines come
 * from the trace line reader (model/csvline.h: getline); each field goes
 * through strtod and must fill its column up to a comma or the end of the
 * line.
 */
#include "model/llm_trace.h"

#include "model/infile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/csvline.h"

/* Parse up to 4 fields of line into v; returns the count parsed, or -1
 * with *bad pointing at the first field that is not a number and *badk
 * its index (0-based). */
static int fields(const char *line, double *v, const char **bad, int *badk)
{
    int k = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *end;
        errno = 0;
        double x = dam_decimal(p, &end);
        if (end == p || errno == ERANGE) {
            *bad = p;
            *badk = k;
            return -1;
        }
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        if (*end != ',' && *end != '\0') {
            *bad = p;
            *badk = k;
            return -1;
        }
        if (k < 4)
            v[k] = x;
        k++;
        if (*end == '\0')
            return k;
        p = end + 1;
    }
}

/* A token count: a whole number in [1, max]. */
static int tokens_ok(dam_diag *d, const char *path, int line, const char *what,
                     double x, double max, const char *key)
{
    if (!isfinite(x) || x < 1.0 || x != floor(x)) {
        dam_diag_error(d, path, line,
                       "%s tokens must be a whole number >= 1, got %g", what,
                       x);
        return 0;
    }
    if (x > max) {
        dam_diag_error(d, path, line,
                       "%s tokens %g exceed llm.%s (%g), which the KV-cache "
                       "plan is sized for",
                       what, x, key, max);
        return 0;
    }
    return 1;
}

int dam_llm_trace_load(const char *path, const dam_scenario *s,
                       dam_llm_request **out, size_t *n, dam_diag *d)
{
    *out = NULL;
    *n = 0;
    /* a regular file of bounded size only (a FIFO or /dev/zero would
     * hang the reader or grow it without bound), as for arrival traces */
    char why[64];
    FILE *f = dam_infile_open(path, why, sizeof why);
    dam_csvline r;
    if (dam_csvline_open(&r, f, path, "request trace", why, d))
        return DAM_EINPUT;
    const dam_llm *q = &s->serving.llm;
    size_t rcap = 0;
    dam_llm_request *a = NULL;
    const char *p;
    while ((p = dam_csvline_next(&r)) != NULL) {
        double v[4];
        const char *bad = NULL;
        int badk = 0;
        int k = fields(p, v, &bad, &badk);
        if (dam_csvline_header(&r, p, !(k < 0 && bad == p)))
            continue;
        if (k < 0) {
            size_t len = strcspn(bad, ",\r\n");
            static const char *const names[] = {"an arrival time",
                                                "input tokens",
                                                "output tokens"};
            dam_diag_error(d, path, r.lineno, "expected %s, got \"%.*s\"",
                           badk < 3 ? names[badk] : "no more fields",
                           (int)(len > 40 ? 40 : len), bad);
            continue;
        }
        if (k != 3) {
            dam_diag_error(d, path, r.lineno,
                           "expected 3 fields (arrival_s, input_tokens, "
                           "output_tokens), got %d",
                           k);
            continue;
        }
        if (!dam_csvline_time_ok(&r, v[0]))
            continue;
        if (!tokens_ok(d, path, r.lineno, "input", v[1], q->input.max,
                       "input_max") ||
            !tokens_ok(d, path, r.lineno, "output", v[2], q->output.max,
                       "output_max"))
            continue;
        a = dam_grow(a, sizeof *a, *n + 1, &rcap);
        a[*n].arrive = v[0];
        a[*n].input = (int)v[1];
        a[*n].output = (int)v[2];
        (*n)++;
        dam_csvline_accept(&r, v[0]);
        if (d->truncated)
            break;
    }
    if (dam_csvline_close(&r, *n, "requests")) {
        dam_free(a);
        *n = 0;
        return DAM_EINPUT;
    }
    *out = a;
    return DAM_OK;
}
