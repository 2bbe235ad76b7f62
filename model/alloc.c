/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * alloc.c: allocation with one failure policy. Every allocation that fails
 * goes to dam_out_of_memory, which the program defines (cli/oom.c for
 * damsim): the libraries report nothing. A program built on libdamsim that
 * defines none gets the weak default below, abort(): the library prints
 * nothing, and a process that is out of memory has no better way out.
 *
 * Fault injection (issue 11; compiled in with DAM_FAULT_INJECTION, as the
 * sanitizer build is): before every allocation, and at every allocation
 * another library made and handed to dam_alloc_check (GSL's, jansson's),
 * dam_alloc_fault decides whether it fails, so a test can fail the Nth
 * allocation of a run and check that the run ends with the out-of-memory
 * message, exit 1, no crash and no leak (as SQLite's and Lua's test
 * allocators do). The counter lives in the program (cli/oom.c), not here;
 * the weak default never fails.
 */
#include "model/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef DAM_FAULT_INJECTION
#define FAULT() dam_alloc_fault()
#else
#define FAULT() 0
#endif

/* The default fault hook: no allocation fails (weak, as above). */
__attribute__((weak)) int dam_alloc_fault(void)
{
    return 0;
}

/* The default out-of-memory hook (a weak symbol: a program's own
 * dam_out_of_memory replaces it at link time). */
__attribute__((weak)) _Noreturn void dam_out_of_memory(size_t n)
{
    (void)n;
    abort();
}

void *dam_alloc_check(void *p, size_t n)
{
    if (!p || FAULT())
        dam_out_of_memory(n);
    return p;
}

void *dam_malloc(size_t n)
{
    void *p = FAULT() ? NULL : malloc(n ? n : 1);
    if (!p)
        dam_out_of_memory(n);
    return p;
}

void *dam_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        dam_out_of_memory(SIZE_MAX);
    void *p = FAULT() ? NULL : calloc(count ? count : 1, size ? size : 1);
    if (!p)
        dam_out_of_memory(count * size);
    return p;
}

void *dam_realloc(void *p, size_t n)
{
    void *q = FAULT() ? NULL : realloc(p, n ? n : 1);
    if (!q)
        dam_out_of_memory(n);
    return q;
}

void *dam_grow(void *p, size_t elem, size_t need, size_t *cap)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            dam_out_of_memory(SIZE_MAX);
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
