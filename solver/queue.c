/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * queue.c: blocking FIFO queues (see queue.h).
 *
 * Items and the two waiter lists are power-of-two ring buffers that double
 * when full, so steady state allocates nothing. Invariants: getters wait
 * only while the queue is empty; putters block only while it is full (so
 * never both at once); the integrals are brought up to now before any
 * count changes.
 */
#include "solver/queue.h"

#include <math.h>
#include <string.h>

#include "model/alloc.h"

/* A blocked putter or a waiting getter. */
struct waiter {
    dam_des_fn fn;    /* continuation */
    void *ctx;        /* its context */
    dam_des_arg item; /* putter: the held item */
};

/* A power-of-two ring buffer of T, doubling when full. The element type is
 * fixed per ring so copies are plain assignments (no memcpy calls). */
#define RING(name, T)                                                       \
    struct name {                                                           \
        T *buf;                                                             \
        size_t cap, head, n;                                                \
    };                                                                      \
    static void name##_grow(struct name *r)                                 \
    {                                                                       \
        size_t ncap = r->cap ? 2 * r->cap : 8;                              \
        T *nb = dam_malloc(ncap * sizeof *nb);                              \
        for (size_t i = 0; i < r->n; i++)                                   \
            nb[i] = r->buf[(r->head + i) & (r->cap - 1)];                   \
        dam_free(r->buf);                                                   \
        r->buf = nb;                                                        \
        r->cap = ncap;                                                      \
        r->head = 0;                                                        \
    }                                                                       \
    static inline void name##_push(struct name *r, T e)                     \
    {                                                                       \
        if (r->n == r->cap)                                                 \
            name##_grow(r);                                                 \
        r->buf[(r->head + r->n) & (r->cap - 1)] = e;                        \
        r->n++;                                                             \
    }                                                                       \
    static inline T name##_pop(struct name *r)                              \
    {                                                                       \
        T e = r->buf[r->head];                                              \
        r->head = (r->head + 1) & (r->cap - 1);                             \
        r->n--;                                                             \
        return e;                                                           \
    }

RING(iring, dam_des_arg)
RING(wring, struct waiter)

struct dam_queue {
    dam_des *des;
    size_t capacity;       /* 0 = unbounded */
    struct iring items;    /* items held */
    struct wring putters;  /* blocked putters */
    struct wring getters;  /* waiting getters */
    double t_last;         /* integrals are up to this time, s */
    dam_queue_stats st;    /* accounting (elapsed filled on read) */
    double t_start;        /* creation or reset time, s */
};

/* Bring the integrals up to now. A count of 0 adds 0 * dt = +0 to an
 * integral that is never -0, which leaves it as it is, so the term is
 * skipped (most ops see two or three zero counts); only an infinite dt
 * (an event at +infinity) makes 0 * dt a NaN, and then every term is
 * added as before. */
static inline void account(dam_queue *q)
{
    double now = dam_des_now(q->des), dt = now - q->t_last;
    if (dt > 0.0) {
        int all = !(dt < HUGE_VAL);
        if (q->items.n > 0 || all)
            q->st.depth_area += (double)q->items.n * dt;
        if (q->putters.n > 0 || all)
            q->st.blocked_time += (double)q->putters.n * dt;
        if (q->getters.n > 0 || all)
            q->st.starved_time += (double)q->getters.n * dt;
        q->t_last = now;
    }
}

dam_queue *dam_queue_create(dam_des *des, size_t capacity)
{
    dam_queue *q = dam_calloc(1, sizeof *q);
    q->des = des;
    q->capacity = capacity;
    q->t_last = q->t_start = dam_des_now(des);
    return q;
}

void dam_queue_free(dam_queue *q)
{
    if (q == NULL)
        return;
    dam_free(q->items.buf);
    dam_free(q->putters.buf);
    dam_free(q->getters.buf);
    dam_free(q);
}

void dam_queue_reset(dam_queue *q)
{
    q->items.n = q->items.head = 0;
    q->putters.n = q->putters.head = 0;
    q->getters.n = q->getters.head = 0;
    memset(&q->st, 0, sizeof q->st);
    q->t_last = q->t_start = dam_des_now(q->des);
}

int dam_queue_put(dam_queue *q, dam_des_arg item, dam_des_fn resume,
                  void *ctx)
{
    account(q);
    if (q->getters.n > 0) { /* the queue is empty: hand over directly */
        struct waiter w = wring_pop(&q->getters);
        q->st.puts++;
        q->st.gets++;
        w.fn(q->des, w.ctx, item);
        return 1;
    }
    if (q->capacity == 0 || q->items.n < q->capacity) {
        iring_push(&q->items, item);
        q->st.puts++;
        if (q->items.n > q->st.max_depth)
            q->st.max_depth = q->items.n;
        return 1;
    }
    if (resume != NULL) {
        struct waiter w = {resume, ctx, item};
        wring_push(&q->putters, w);
    }
    return 0;
}

int dam_queue_get(dam_queue *q, dam_des_arg *out, dam_des_fn resume,
                  void *ctx)
{
    account(q);
    if (q->items.n > 0) {
        *out = iring_pop(&q->items);
        q->st.gets++;
        if (q->putters.n > 0) { /* space freed: admit the first putter */
            struct waiter w = wring_pop(&q->putters);
            iring_push(&q->items, w.item);
            q->st.puts++;
            w.fn(q->des, w.ctx, w.item);
        }
        return 1;
    }
    if (resume != NULL) {
        struct waiter w = {resume, ctx, {0}};
        wring_push(&q->getters, w);
    }
    return 0;
}

size_t dam_queue_length(const dam_queue *q)
{
    return q->items.n;
}

size_t dam_queue_capacity(const dam_queue *q)
{
    return q->capacity;
}

size_t dam_queue_blocked(const dam_queue *q)
{
    return q->putters.n;
}

size_t dam_queue_starved(const dam_queue *q)
{
    return q->getters.n;
}

void dam_queue_stats_get(const dam_queue *q, dam_queue_stats *out)
{
    double now = dam_des_now(q->des), dt = now - q->t_last;
    *out = q->st;
    if (dt > 0.0) {
        out->depth_area += (double)q->items.n * dt;
        out->blocked_time += (double)q->putters.n * dt;
        out->starved_time += (double)q->getters.n * dt;
    }
    out->elapsed = now - q->t_start;
}
