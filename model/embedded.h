/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * embedded.h: the catalogs and the flagship scenario, compiled into the
 * binary at build time (cmake/embed.cmake turns data/ and scenarios/ files
 * into C strings), so damsim works from any folder. Read-only data.
 */
#ifndef DAM_EMBEDDED_H
#define DAM_EMBEDDED_H

#include <stddef.h>
#include <string.h>

typedef struct dam_embedded_file {
    const char *name; /* file name, e.g. "gpus.cfg" */
    const char *text; /* contents, NUL-terminated */
    size_t size;      /* bytes, without the NUL */
} dam_embedded_file;

/* The table, ended by an entry whose name is NULL (defined by the build). */
extern const dam_embedded_file dam_embedded_files[];

/* The embedded file of that name, or NULL. */
static inline const dam_embedded_file *dam_embedded_find(const char *name)
{
    for (const dam_embedded_file *f = dam_embedded_files; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

#endif
