/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * buf.h: a growable text buffer. Renderers build their output here and
 * hand it back; cli/ decides whether it goes to the terminal or a file.
 */
#ifndef DAM_BUF_H
#define DAM_BUF_H

#include <stddef.h>

typedef struct dam_buf {
    char *data; /* NUL-terminated text (NULL while empty) */
    size_t len; /* bytes used, without the NUL */
    size_t cap; /* bytes allocated */
} dam_buf;

/* Append formatted text. */
void dam_buf_printf(dam_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append n bytes. */
void dam_buf_append(dam_buf *b, const char *s, size_t n);
/* The text ("" when empty). */
const char *dam_buf_str(const dam_buf *b);
/* Free the storage; the buffer is empty and reusable. */
void dam_buf_free(dam_buf *b);

/* Write text to path atomically (render/out/outfile.h: an exclusive temporary
 * beside it, then rename). Returns DAM_OK, DAM_EINPUT (the target is not a
 * regular file) or DAM_ERUNTIME (I/O), with err filled. */
struct dam_error;
int dam_write_file_atomic(const char *path, const char *data, size_t n,
                          struct dam_error *err);

#endif
