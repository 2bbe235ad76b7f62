/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * alloc.c: allocation with one failure policy. On out-of-memory a short
 * message goes to file descriptor 2 and the process aborts: the simulator
 * cannot continue without memory, and this is the only place that knows it.
 */
#include "model/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void out_of_memory(size_t n)
{
    static const char msg[] = "damsim: fatal: out of memory\n";
    (void)n;
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nothing more can be done */
    }
    abort();
}

void *dam_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *dam_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        out_of_memory(SIZE_MAX);
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

void *dam_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

void *dam_grow(void *p, size_t elem, size_t need, size_t *cap)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            out_of_memory(SIZE_MAX);
        c *= 2;
    }
    *cap = c;
    return dam_realloc(p, c * elem);
}

char *dam_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = dam_malloc(n);
    memcpy(d, s, n);
    return d;
}

void dam_free(void *p)
{
    free(p);
}
