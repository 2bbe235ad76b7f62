/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm_trace.c: read a CSV of LLM requests (see llm_trace.h). Lines are
 * read whole with getline; each field goes through strtod and must fill
 * its column up to a comma or the end of the line.
 */
#include "model/llm_trace.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"

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
        double x = strtod(p, &end);
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
    FILE *f = fopen(path, "r");
    if (!f) {
        dam_diag_error(d, path, 0, "cannot read the request trace: %s",
                       strerror(errno));
        return DAM_EINPUT;
    }
    const dam_llm *q = &s->serving.llm;
    int before = d->nerr;
    char *line = NULL;
    size_t cap = 0, rcap = 0;
    dam_llm_request *a = NULL;
    double last = 0.0;
    int lineno = 0, seen = 0, last_line = 0;
    while (getline(&line, &cap, f) != -1) {
        lineno++;
        const char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        double v[4];
        const char *bad = NULL;
        int badk = 0;
        int k = fields(p, v, &bad, &badk);
        if (k < 0 && !seen && bad == p && !isdigit((unsigned char)*p) &&
            *p != '.' && *p != '-' && *p != '+') {
            seen = 1; /* a header line */
            continue;
        }
        seen = 1;
        if (k < 0) {
            size_t len = strcspn(bad, ",\r\n");
            static const char *const names[] = {"an arrival time",
                                                "input tokens",
                                                "output tokens"};
            dam_diag_error(d, path, lineno, "expected %s, got \"%.*s\"",
                           badk < 3 ? names[badk] : "no more fields",
                           (int)(len > 40 ? 40 : len), bad);
            continue;
        }
        if (k != 3) {
            dam_diag_error(d, path, lineno,
                           "expected 3 fields (arrival_s, input_tokens, "
                           "output_tokens), got %d",
                           k);
            continue;
        }
        if (!isfinite(v[0]) || v[0] < 0.0) {
            dam_diag_error(d, path, lineno,
                           "arrival time must be finite and >= 0, got %g",
                           v[0]);
            continue;
        }
        if (*n > 0 && v[0] < last) {
            dam_diag_error(d, path, lineno,
                           "arrival times must not decrease: %g after %g "
                           "(line %d)",
                           v[0], last, last_line);
            continue;
        }
        if (!tokens_ok(d, path, lineno, "input", v[1], q->input.max,
                       "input_max") ||
            !tokens_ok(d, path, lineno, "output", v[2], q->output.max,
                       "output_max"))
            continue;
        a = dam_grow(a, sizeof *a, *n + 1, &rcap);
        a[*n].arrive = v[0];
        a[*n].input = (int)v[1];
        a[*n].output = (int)v[2];
        (*n)++;
        last = v[0];
        last_line = lineno;
        if (d->truncated)
            break;
    }
    free(line);
    fclose(f);
    if (d->nerr == before && *n == 0)
        dam_diag_error(d, path, 0, "the request trace holds no requests");
    if (d->nerr > before) {
        dam_free(a);
        *n = 0;
        return DAM_EINPUT;
    }
    *out = a;
    return DAM_OK;
}
