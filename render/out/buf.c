/* SPDX-License-Identifier: GPL-3.0-or-later */
/* buf.c: growable text and atomic file writes (see buf.h). */
#include "render/out/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/error.h"
#include "render/out/outfile.h"

void dam_buf_append(dam_buf *b, const char *s, size_t n)
{
    b->data = dam_grow(b->data, 1, b->len + n + 1, &b->cap);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void dam_buf_printf(dam_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    b->data = dam_grow(b->data, 1, b->len + (size_t)n + 1, &b->cap);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *dam_buf_str(const dam_buf *b)
{
    return b->data ? b->data : "";
}

void dam_buf_free(dam_buf *b)
{
    dam_free(b->data);
    memset(b, 0, sizeof *b);
}

int dam_write_file_atomic(const char *path, const char *data, size_t n,
                          dam_error *err)
{
    dam_outfile o;
    int rc = dam_outfile_open(&o, path, err);
    if (rc != DAM_OK)
        return rc;
    if (fwrite(data, 1, n, o.fp) != n) {
        dam_error_set(err, path, 0, "write error: %s", strerror(errno));
        dam_outfile_abort(&o);
        return DAM_ERUNTIME;
    }
    return dam_outfile_commit(&o, err);
}
