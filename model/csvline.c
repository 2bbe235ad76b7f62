/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * csvline.c: the trace files' line reader (see csvline.h): getline, blank
 * and comment lines skipped, the header recognised, arrival times checked
 * in order.
 */
#include "model/csvline.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

int dam_csvline_open(dam_csvline *r, FILE *f, const char *path,
                     const char *what, const char *why, dam_diag *d)
{
    *r = (dam_csvline){.f = f, .path = path, .what = what, .d = d,
                       .before = d->nerr};
    if (f)
        return DAM_OK;
    dam_diag_error(d, path, 0, "cannot read the %s: %s", what, why);
    return DAM_EINPUT;
}

const char *dam_csvline_next(dam_csvline *r)
{
    while (getline(&r->buf, &r->cap, r->f) != -1) {
        r->lineno++;
        const char *p = r->buf;
        while (isspace((unsigned char)*p))
            p++;
        if (*p != '\0' && *p != '#')
            return p;
    }
    return NULL;
}

int dam_csvline_header(dam_csvline *r, const char *p, int first_is_number)
{
    int header = !r->seen && !first_is_number &&
                 !isdigit((unsigned char)*p) && *p != '.' && *p != '-' &&
                 *p != '+';
    r->seen = 1;
    return header;
}

double dam_decimal(const char *s, char **end)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '+' || *p == '-')
        p++;
    if (!(isdigit((unsigned char)*p) ||
          (*p == '.' && isdigit((unsigned char)p[1]))) ||
        (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
        *end = (char *)s;
        return 0.0;
    }
    return strtod(s, end);
}

int dam_csvline_time_ok(dam_csvline *r, double t)
{
    if (!(t >= 0.0 && t <= DAM_MAX_ARRIVAL_S)) {
        dam_diag_error(r->d, r->path, r->lineno,
                       "arrival time must be in [0, %g] s, got %g",
                       DAM_MAX_ARRIVAL_S, t);
        return 0;
    }
    if (r->have_last && t < r->last) {
        dam_diag_error(r->d, r->path, r->lineno,
                       "arrival times must not decrease: %g after %g "
                       "(line %d)",
                       t, r->last, r->last_line);
        return 0;
    }
    return 1;
}

void dam_csvline_accept(dam_csvline *r, double t)
{
    r->have_last = 1;
    r->last = t;
    r->last_line = r->lineno;
}

int dam_csvline_close(dam_csvline *r, size_t n, const char *items)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
    fclose(r->f);
    r->f = NULL;
    if (r->d->nerr == r->before && n == 0)
        dam_diag_error(r->d, r->path, 0, "the %s holds no %s", r->what,
                       items);
    return r->d->nerr > r->before ? DAM_EINPUT : DAM_OK;
}
