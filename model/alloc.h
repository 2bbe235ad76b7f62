/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * alloc.h: the one choke point for memory (as Lua's lua_Alloc, Redis's
 * zmalloc). Every allocation in damsim goes through these; out of memory
 * is not an error a caller can handle sensibly in a simulator, so the
 * choke point hands it to dam_out_of_memory, which the program provides:
 * cli/ reports it and exits with the runtime-failure code; test and
 * benchmark programs provide their own. The libraries never exit.
 */
#ifndef DAM_ALLOC_H
#define DAM_ALLOC_H

#include <stddef.h>

/* What the program does when memory runs out (n: the bytes asked for);
 * must not return. A program may define it (damsim reports and exits 1);
 * libdamsim's default, used when the program defines none, calls abort()
 * (SIGABRT, no message). */
_Noreturn void dam_out_of_memory(size_t n);

/* Fault injection (builds with DAM_FAULT_INJECTION): 1 when the allocation
 * about to be made must fail. A program may provide it (cli/oom.c fails
 * the Nth allocation of a run, N from DAM_FAULT_AT); the library's weak
 * default fails none. */
int dam_alloc_fault(void);

/* p, or the out-of-memory path when p is NULL: for allocations made by
 * other libraries (GSL), so that every failure ends the same way. */
void *dam_alloc_check(void *p, size_t n);

/* malloc that never returns NULL (n == 0 gives a unique pointer). */
void *dam_malloc(size_t n);
/* calloc that never returns NULL; count * size is checked for overflow. */
void *dam_calloc(size_t count, size_t size);
/* realloc that never returns NULL; the old pointer is no longer valid. */
void *dam_realloc(void *p, size_t n);
/* Grow an array of elem-sized items to hold at least need; *cap updated. */
void *dam_grow(void *p, size_t elem, size_t need, size_t *cap);
/* strdup that never returns NULL; NULL in gives NULL out. */
char *dam_strdup(const char *s);
/* free; NULL is a no-op. */
void dam_free(void *p);

#endif
