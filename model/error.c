/* SPDX-License-Identifier: GPL-3.0-or-later */
/* error.c: diagnostics as data (see error.h). */
#include "model/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"

static void fill(dam_error *e, const char *file, int line, dam_severity sev,
                 const char *fmt, va_list ap)
{
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    e->sev = sev;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

int dam_error_set(dam_error *e, const char *file, int line, const char *fmt,
                  ...)
{
    va_list ap;
    if (!e)
        return DAM_EINPUT;
    va_start(ap, fmt);
    fill(e, file, line, DAM_SEV_ERROR, fmt, ap);
    va_end(ap);
    return DAM_EINPUT;
}

void dam_error_format(const dam_error *e, char *buf, size_t n)
{
    const char *kind = e->sev == DAM_SEV_WARNING ? "warning" : "error";
    if (e->file[0] && e->line > 0)
        snprintf(buf, n, "%s:%d: %s: %s", e->file, e->line, kind, e->msg);
    else if (e->file[0])
        snprintf(buf, n, "%s: %s: %s", e->file, kind, e->msg);
    else
        snprintf(buf, n, "%s: %s", kind, e->msg);
}

const char *dam_error_quote(const char *s, size_t max, char *out, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, k = 0;
    if (n == 0)
        return out;
    for (; s && s[k] && k < max; k++) {
        unsigned char c = (unsigned char)s[k];
        char tmp[4];
        size_t w = 0;
        if (c == '"' || c == '\\') {
            tmp[w++] = '\\';
            tmp[w++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            tmp[w++] = (char)c;
        } else {
            tmp[w++] = '\\';
            tmp[w++] = 'x';
            tmp[w++] = hex[c >> 4];
            tmp[w++] = hex[c & 15];
        }
        if (o + w + 4 > n)
            break;
        memcpy(out + o, tmp, w);
        o += w;
    }
    if (s && s[k] && o + 4 <= n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

void dam_diag_init(dam_diag *d)
{
    memset(d, 0, sizeof *d);
}

void dam_diag_free(dam_diag *d)
{
    dam_free(d->items);
    dam_diag_init(d);
}

static dam_error *slot(dam_diag *d)
{
    d->items = dam_grow(d->items, sizeof *d->items, d->n + 1, &d->cap);
    return &d->items[d->n++];
}

void dam_diag_error(dam_diag *d, const char *file, int line, const char *fmt,
                    ...)
{
    va_list ap;
    if (d->nerr >= DAM_DIAG_MAX) {
        d->truncated = 1;
        return;
    }
    va_start(ap, fmt);
    fill(slot(d), file, line, DAM_SEV_ERROR, fmt, ap);
    va_end(ap);
    d->nerr++;
}

void dam_diag_warn(dam_diag *d, const char *file, int line, const char *fmt,
                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(slot(d), file, line, DAM_SEV_WARNING, fmt, ap);
    va_end(ap);
    d->nwarn++;
}

void dam_diag_add(dam_diag *d, const dam_error *e)
{
    if (e->sev == DAM_SEV_ERROR) {
        if (d->nerr >= DAM_DIAG_MAX) {
            d->truncated = 1;
            return;
        }
        d->nerr++;
    } else {
        d->nwarn++;
    }
    *slot(d) = *e;
}
