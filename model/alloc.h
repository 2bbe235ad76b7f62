/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * alloc.h: the one choke point for memory (as Lua's lua_Alloc, Redis's
 * zmalloc). Every allocation in damsim goes through these; out of memory
 * is not an error a caller can handle sensibly in a simulator, so it stops
 * the process here, the single documented exception to "nothing below cli/
 * exits".
 */
#ifndef DAM_ALLOC_H
#define DAM_ALLOC_H

#include <stddef.h>

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
