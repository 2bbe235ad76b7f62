/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * slotq.h: a double-ended queue of int slots for the simulators (request
 * and sequence slots waiting for a worker, a batch or a replica). A ring
 * that doubles when full (64 at first) and never shrinks, so it holds the
 * peak length; zero-initialised it is empty; dam_free(q.v) releases it.
 */
#ifndef DAM_SLOTQ_H
#define DAM_SLOTQ_H

#include <stddef.h>

#include "model/alloc.h"

typedef struct dam_slotq {
    int *v;
    size_t cap, head, len;
} dam_slotq;

/* Twice the room, the queue's order kept from index 0. */
static inline void dam_slotq_grow(dam_slotq *q)
{
    size_t ncap = q->cap ? 2 * q->cap : 64;
    int *nv = dam_malloc(ncap * sizeof *nv);
    for (size_t i = 0; i < q->len; i++)
        nv[i] = q->v[(q->head + i) % q->cap];
    dam_free(q->v);
    q->v = nv;
    q->cap = ncap;
    q->head = 0;
}

static inline void dam_slotq_push_back(dam_slotq *q, int x)
{
    if (q->len == q->cap)
        dam_slotq_grow(q);
    q->v[(q->head + q->len) % q->cap] = x;
    q->len++;
}

static inline void dam_slotq_push_front(dam_slotq *q, int x)
{
    if (q->len == q->cap)
        dam_slotq_grow(q);
    q->head = (q->head + q->cap - 1) % q->cap;
    q->v[q->head] = x;
    q->len++;
}

/* The i-th from the front (i < len). */
static inline int dam_slotq_at(const dam_slotq *q, size_t i)
{
    return q->v[(q->head + i) % q->cap];
}

/* Take the front (len > 0). */
static inline int dam_slotq_pop(dam_slotq *q)
{
    int x = q->v[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    return x;
}

#endif
