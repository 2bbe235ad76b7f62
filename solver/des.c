/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * des.c: event list and clock of the discrete-event engine.
 *
 * Data layout. Events live in a slot table (callback, context, payload,
 * heap position, generation) that grows but never shrinks; free slots form
 * a singly linked list threaded through the position field. The pending
 * set is a binary min-heap of small POD entries (time, sequence, slot: 24
 * bytes) ordered by (time, sequence); the sequence is a 64-bit counter
 * bumped at every schedule, so ties run in insertion order.
 *
 * Cancellation: an indexed heap (each slot knows its heap position), not
 * lazy deletion. Links cancel and move their completion events at every
 * flow start and end; with lazy deletion the dead entries would pile up in
 * the heap (memory and log n both grow with the reschedule rate), and a
 * cancelled event would keep its callback context alive. The price is one
 * extra store per heap move, which for the small heaps of pipelines stays
 * in L1. An id is (generation << 32 | slot); the generation bumps when the
 * slot is freed, so a stale id never cancels a later event in that slot.
 *
 * Hot path (dam_des_run): pop the root and leave the root vacant, free
 * the slot, set the clock, call the handler. A handler usually schedules
 * the next event of its process: that event goes straight into the vacant
 * root and sifts down, one sift where a pop and a push would take two.
 * Any other operation first fills the vacancy with the last entry (what a
 * plain pop would have done). Keys (time, sequence) are unique, so the
 * order events run in does not depend on the heap's shape: the vacancy
 * changes no run. No allocation once the arrays have grown to the peak
 * pending count.
 */
#include "solver/des.h"

#include <math.h>

#include "model/alloc.h"

/* One heap entry: what ordering needs, nothing more. */
struct entry {
    double t;      /* event time, s */
    uint64_t seq;  /* insertion sequence, tie-break */
    uint32_t slot; /* index into the slot table */
};

/* One event's payload and bookkeeping. */
struct slot {
    dam_des_fn fn;   /* handler; NULL when the slot is free */
    void *ctx;       /* handler context */
    dam_des_arg arg; /* handler payload */
    uint32_t pos;    /* heap index when pending; next free slot when free */
    uint32_t gen;    /* generation, bumped when the slot is freed */
};

#define NONE UINT32_MAX

struct dam_des {
    double now;          /* the clock, s; first member (des.h reads it) */
    struct entry *heap;  /* pending events, heap-ordered */
    size_t n;            /* pending events */
    int vacant;          /* heap[0] is empty, the n events are at 1..n */
    size_t heap_cap;     /* allocated heap entries */
    struct slot *slots;  /* slot table */
    size_t nslots;       /* slots in use or on the free list */
    size_t slots_cap;    /* allocated slots */
    uint32_t free_head;  /* first free slot, NONE when empty */
    uint64_t seq;        /* next insertion sequence */
    uint64_t events;     /* events run */
    int stop;            /* set by dam_des_stop */
};

static inline int before(const struct entry *a, const struct entry *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Place e at hole i moving parents down until the heap property holds. */
static inline void sift_up(dam_des *des, size_t i, struct entry e)
{
    struct entry *h = des->heap;
    struct slot *s = des->slots;
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (!before(&e, &h[p]))
            break;
        h[i] = h[p];
        s[h[i].slot].pos = (uint32_t)i;
        i = p;
    }
    h[i] = e;
    s[e.slot].pos = (uint32_t)i;
}

/* Place e at hole i of a heap of n entries moving smaller children up. */
static inline void sift_down(dam_des *des, size_t i, struct entry e,
                             size_t n)
{
    struct entry *h = des->heap;
    struct slot *s = des->slots;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&h[c + 1], &h[c]))
            c++;
        if (!before(&h[c], &e))
            break;
        h[i] = h[c];
        s[h[i].slot].pos = (uint32_t)i;
        i = c;
    }
    h[i] = e;
    s[e.slot].pos = (uint32_t)i;
}

/* Fill a vacant root with the last entry, as a plain pop would have. */
static inline void settle(dam_des *des)
{
    if (des->vacant) {
        des->vacant = 0;
        if (des->n > 0)
            sift_down(des, 0, des->heap[des->n], des->n);
    }
}

/* Remove the entry at heap index i (n > i, no vacancy). */
static void heap_remove(dam_des *des, size_t i)
{
    struct entry last = des->heap[--des->n];
    if (i == des->n)
        return;
    if (i > 0 && before(&last, &des->heap[(i - 1) >> 1]))
        sift_up(des, i, last);
    else
        sift_down(des, i, last, des->n);
}

static inline void slot_release(dam_des *des, uint32_t k)
{
    struct slot *s = &des->slots[k];
    s->fn = NULL;
    s->gen++;
    if (s->gen == 0) /* keep ids nonzero after wrap-around */
        s->gen = 1;
    s->pos = des->free_head;
    des->free_head = k;
}

static uint32_t slot_take(dam_des *des)
{
    uint32_t k = des->free_head;
    if (k != NONE) {
        des->free_head = des->slots[k].pos;
        return k;
    }
    if (des->nslots == des->slots_cap)
        des->slots = dam_grow(des->slots, sizeof *des->slots,
                              des->nslots + 1, &des->slots_cap);
    k = (uint32_t)des->nslots++;
    des->slots[k].gen = 1;
    return k;
}

/* Slot of a pending event named by id, or NONE. */
static uint32_t lookup(const dam_des *des, dam_des_id id)
{
    uint32_t k = (uint32_t)(id & 0xffffffffu);
    uint32_t gen = (uint32_t)(id >> 32);
    if (id == 0 || k >= des->nslots)
        return NONE;
    const struct slot *s = &des->slots[k];
    if (s->fn == NULL || s->gen != gen)
        return NONE;
    return k;
}

dam_des *dam_des_create(void)
{
    dam_des *des = dam_calloc(1, sizeof *des);
    des->free_head = NONE;
    return des;
}

void dam_des_free(dam_des *des)
{
    if (des == NULL)
        return;
    dam_free(des->heap);
    dam_free(des->slots);
    dam_free(des);
}

void dam_des_reset(dam_des *des)
{
    settle(des);
    while (des->n > 0)
        slot_release(des, des->heap[--des->n].slot);
    des->now = 0.0;
    des->seq = 0;
    des->events = 0;
    des->stop = 0;
}

/* dam_des_at for t >= now. */
static inline dam_des_id schedule(dam_des *des, double t, dam_des_fn fn,
                                  void *ctx, dam_des_arg arg)
{
    uint32_t k = slot_take(des);
    struct slot *s = &des->slots[k];
    s->fn = fn;
    s->ctx = ctx;
    s->arg = arg;
    struct entry e = {t, des->seq++, k};
    if (des->vacant) { /* the array already has room for n + 1 */
        des->vacant = 0;
        sift_down(des, 0, e, ++des->n);
    } else {
        if (des->n == des->heap_cap)
            des->heap = dam_grow(des->heap, sizeof *des->heap, des->n + 1,
                                 &des->heap_cap);
        sift_up(des, des->n++, e);
    }
    return ((uint64_t)s->gen << 32) | k;
}

dam_des_id dam_des_at(dam_des *des, double t, dam_des_fn fn, void *ctx,
                      dam_des_arg arg)
{
    if (!(t >= des->now))
        t = des->now;
    return schedule(des, t, fn, ctx, arg);
}

dam_des_id dam_des_after(dam_des *des, double delay, dam_des_fn fn,
                         void *ctx, dam_des_arg arg)
{
    if (!(delay > 0.0))
        delay = 0.0;
    /* dam_des_at's clamp, kept though a delay >= 0 on a clock >= 0
     * never sums to less than now */
    double t = des->now + delay;
    if (!(t >= des->now))
        t = des->now;
    return schedule(des, t, fn, ctx, arg);
}

int dam_des_cancel(dam_des *des, dam_des_id id)
{
    uint32_t k = lookup(des, id);
    if (k == NONE)
        return 0;
    settle(des);
    heap_remove(des, des->slots[k].pos);
    slot_release(des, k);
    return 1;
}

int dam_des_reschedule(dam_des *des, dam_des_id id, double t)
{
    uint32_t k = lookup(des, id);
    if (k == NONE)
        return 0;
    if (!(t >= des->now))
        t = des->now;
    settle(des);
    size_t i = des->slots[k].pos;
    struct entry e = {t, des->seq++, k};
    /* The new key may sort either way: the sequence grew, time may not. */
    if (i > 0 && before(&e, &des->heap[(i - 1) >> 1]))
        sift_up(des, i, e);
    else
        sift_down(des, i, e, des->n);
    return 1;
}

int dam_des_pending(const dam_des *des, dam_des_id id)
{
    return lookup(des, id) != NONE;
}

uint64_t dam_des_run_until(dam_des *des, double t)
{
    uint64_t ran = 0;
    while (!des->stop) {
        settle(des);
        if (des->n == 0)
            break;
        struct entry top = des->heap[0];
        if (top.t > t)
            break;
        struct slot *s = &des->slots[top.slot];
        dam_des_fn fn = s->fn;
        void *ctx = s->ctx;
        dam_des_arg arg = s->arg;
        /* the last entry stays where it is: a handler's next event takes
         * the root, or settle moves the last entry there */
        des->n--;
        des->vacant = 1;
        slot_release(des, top.slot);
        des->now = top.t;
        ran++;
        des->events++;
        fn(des, ctx, arg);
    }
    settle(des);
    if (!des->stop && isfinite(t) && t > des->now)
        des->now = t;
    des->stop = 0;
    return ran;
}

uint64_t dam_des_run(dam_des *des)
{
    return dam_des_run_until(des, HUGE_VAL);
}

void dam_des_stop(dam_des *des)
{
    des->stop = 1;
}

uint64_t dam_des_events(const dam_des *des)
{
    return des->events;
}

size_t dam_des_size(const dam_des *des)
{
    return des->n;
}

double dam_des_next_time(const dam_des *des)
{
    if (des->n == 0)
        return HUGE_VAL;
    if (!des->vacant)
        return des->heap[0].t;
    /* the earliest is one of the vacant root's children (1 and 2 of the
     * n + 1 places) */
    const struct entry *h = des->heap;
    return des->n >= 2 && before(&h[2], &h[1]) ? h[2].t : h[1].t;
}
