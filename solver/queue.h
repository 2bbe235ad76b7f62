/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * queue.h: bounded FIFO queues with blocking put and get, for the
 * discrete-event engine (des.h).
 *
 * There are no coroutines: a process that cannot proceed leaves a
 * continuation (callback, context) and is resumed later. dam_queue_put
 * either stores the item now (returns 1) or blocks the putter (returns 0)
 * and, once space frees, moves the item in and calls resume(des, ctx,
 * item). dam_queue_get either hands out an item now (returns 1) or blocks
 * the getter and calls resume(des, ctx, item) when one arrives. Waiters are
 * served first come, first served; an item put while getters wait goes
 * straight to the first getter. Resumes run synchronously inside the put
 * or get that frees them, after the queue's state is consistent, so they
 * may use the queue again; nothing is scheduled on the event list.
 *
 * Accounting (integrals over simulated time since creation or reset):
 * depth (item-seconds, for the mean depth), blocked putters
 * (putter-seconds) and starved getters (getter-seconds).
 */
#ifndef DAM_QUEUE_H
#define DAM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "solver/des.h"

/* A queue bound to one simulation (opaque). */
typedef struct dam_queue dam_queue;

/* Time integrals and counters of a queue, up to the clock's now. */
typedef struct dam_queue_stats {
    double elapsed;      /* simulated time covered, s */
    double depth_area;   /* integral of items held, item-s (mean = /elapsed) */
    double blocked_time; /* integral of blocked putters, putter-s */
    double starved_time; /* integral of waiting getters, getter-s */
    uint64_t puts;       /* items that entered (at once or after blocking) */
    uint64_t gets;       /* items that left */
    size_t max_depth;    /* most items held at once */
} dam_queue_stats;

/* A new queue on des holding at most capacity items (0 = unbounded).
 * Never NULL. The queue must not outlive des. */
dam_queue *dam_queue_create(dam_des *des, size_t capacity);
/* Free the queue, its items and waiters (no resumes are called); NULL is
 * a no-op. */
void dam_queue_free(dam_queue *q);
/* Drop items and waiters and zero the accounting, starting at now. */
void dam_queue_reset(dam_queue *q);

/* Put item. Returns 1 when it entered the queue (or went to a waiting
 * getter) now. Otherwise the queue is full: with resume non-NULL the
 * putter blocks, the item is held, and resume(des, ctx, item) runs when it
 * enters; with resume NULL nothing is held (a non-blocking try). Returns 0
 * in both cases. */
int dam_queue_put(dam_queue *q, dam_des_arg item, dam_des_fn resume,
                  void *ctx);
/* Get the oldest item into *out and return 1. When the queue is empty:
 * with resume non-NULL the getter waits and resume(des, ctx, item) runs
 * when an item arrives; with resume NULL nothing waits. Returns 0 then. */
int dam_queue_get(dam_queue *q, dam_des_arg *out, dam_des_fn resume,
                  void *ctx);

/* Items held now. */
size_t dam_queue_length(const dam_queue *q);
/* Capacity (0 = unbounded). */
size_t dam_queue_capacity(const dam_queue *q);
/* Putters blocked now. */
size_t dam_queue_blocked(const dam_queue *q);
/* Getters waiting now. */
size_t dam_queue_starved(const dam_queue *q);
/* Accounting up to now into out. */
void dam_queue_stats_get(const dam_queue *q, dam_queue_stats *out);

#endif
