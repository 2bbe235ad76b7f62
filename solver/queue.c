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

#include <string.h>

#include "model/alloc.h"

/* A blocked putter or a waiting getter. */
struct waiter {
    dam_des_fn fn;    /* continuation */
    void *ctx;        /* its context */
    dam_des_arg item; /* putter: the held item */
};

/* Ring buffer of elements of size esz; cap is a power of two or 0. */
struct ring {
    unsigned char *buf;
    size_t esz, cap, head, n;
};

struct dam_queue {
    dam_des *des;
    size_t capacity;       /* 0 = unbounded */
    struct ring items;     /* dam_des_arg */
    struct ring putters;   /* struct waiter, blocked putters */
    struct ring getters;   /* struct waiter, waiting getters */
    double t_last;         /* integrals are up to this time, s */
    dam_queue_stats st;    /* accounting (elapsed filled on read) */
    double t_start;        /* creation or reset time, s */
};

static void ring_grow(struct ring *r)
{
    size_t ncap = r->cap ? 2 * r->cap : 8;
    unsigned char *nb = dam_malloc(ncap * r->esz);
    for (size_t i = 0; i < r->n; i++)
        memcpy(nb + i * r->esz,
               r->buf + ((r->head + i) & (r->cap - 1)) * r->esz, r->esz);
    dam_free(r->buf);
    r->buf = nb;
    r->cap = ncap;
    r->head = 0;
}

static inline void ring_push(struct ring *r, const void *e)
{
    if (r->n == r->cap)
        ring_grow(r);
    memcpy(r->buf + ((r->head + r->n) & (r->cap - 1)) * r->esz, e, r->esz);
    r->n++;
}

static inline void ring_pop(struct ring *r, void *e)
{
    memcpy(e, r->buf + r->head * r->esz, r->esz);
    r->head = (r->head + 1) & (r->cap - 1);
    r->n--;
}

/* Bring the integrals up to now. */
static inline void account(dam_queue *q)
{
    double now = dam_des_now(q->des), dt = now - q->t_last;
    if (dt > 0.0) {
        q->st.depth_area += (double)q->items.n * dt;
        q->st.blocked_time += (double)q->putters.n * dt;
        q->st.starved_time += (double)q->getters.n * dt;
        q->t_last = now;
    }
}

dam_queue *dam_queue_create(dam_des *des, size_t capacity)
{
    dam_queue *q = dam_calloc(1, sizeof *q);
    q->des = des;
    q->capacity = capacity;
    q->items.esz = sizeof(dam_des_arg);
    q->putters.esz = sizeof(struct waiter);
    q->getters.esz = sizeof(struct waiter);
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
        struct waiter w;
        ring_pop(&q->getters, &w);
        q->st.puts++;
        q->st.gets++;
        w.fn(q->des, w.ctx, item);
        return 1;
    }
    if (q->capacity == 0 || q->items.n < q->capacity) {
        ring_push(&q->items, &item);
        q->st.puts++;
        if (q->items.n > q->st.max_depth)
            q->st.max_depth = q->items.n;
        return 1;
    }
    if (resume != NULL) {
        struct waiter w = {resume, ctx, item};
        ring_push(&q->putters, &w);
    }
    return 0;
}

int dam_queue_get(dam_queue *q, dam_des_arg *out, dam_des_fn resume,
                  void *ctx)
{
    account(q);
    if (q->items.n > 0) {
        ring_pop(&q->items, out);
        q->st.gets++;
        if (q->putters.n > 0) { /* space freed: admit the first putter */
            struct waiter w;
            ring_pop(&q->putters, &w);
            ring_push(&q->items, &w.item);
            q->st.puts++;
            w.fn(q->des, w.ctx, w.item);
        }
        return 1;
    }
    if (resume != NULL) {
        struct waiter w = {resume, ctx, {0}};
        ring_push(&q->getters, &w);
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
