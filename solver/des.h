/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * des.h: the discrete-event engine's event list and clock.
 *
 * A dam_des holds pending events ordered by (time, insertion sequence), so
 * two events at the same time run in the order they were scheduled and a
 * run is deterministic. An event is a callback, a context pointer and an
 * 8-byte payload; scheduling returns an id that can cancel or move the
 * event while it is pending. The engine knows nothing about what the
 * callbacks model (ML, queues, links): links, queues and pipelines are
 * built on top of it.
 *
 * Invariants: time never goes backwards (an event asked for before now runs
 * at now); an id names at most one event and is never reused for another
 * (a 32-bit generation counter per slot); 0 is never a valid id. Nothing
 * is allocated per event once the arrays have grown to the peak number of
 * pending events. No static state: one dam_des per thread is safe.
 */
#ifndef DAM_DES_H
#define DAM_DES_H

#include <stddef.h>
#include <stdint.h>

/* The simulation: event list, clock and counters (opaque). */
typedef struct dam_des dam_des;

/* Names a scheduled event; 0 names none. */
typedef uint64_t dam_des_id;

/* The payload an event carries: the caller picks which member it means. */
typedef union dam_des_arg {
    void *p;    /* a pointer */
    uint64_t u; /* an index or count */
    int64_t i;  /* a signed value */
    double d;   /* a time or amount */
} dam_des_arg;

/* An event handler: des is the simulation (its clock reads the event's
 * time), ctx and arg are what the event was scheduled with. It may
 * schedule, cancel and stop freely. */
typedef void (*dam_des_fn)(dam_des *des, void *ctx, dam_des_arg arg);

/* Convenience constructors for payloads. */
static inline dam_des_arg dam_des_u(uint64_t u)
{
    dam_des_arg a;
    a.u = u;
    return a;
}
static inline dam_des_arg dam_des_p(void *p)
{
    dam_des_arg a;
    a.u = 0;
    a.p = p;
    return a;
}
static inline dam_des_arg dam_des_d(double d)
{
    dam_des_arg a;
    a.d = d;
    return a;
}

/* A new, empty simulation at time 0. Never NULL (allocation aborts). */
dam_des *dam_des_create(void);
/* Free the simulation and its pending events; NULL is a no-op. */
void dam_des_free(dam_des *des);
/* Drop every pending event, set the clock and counters to 0 and clear the
 * stop flag; memory is kept for reuse (replications). Old ids stay dead. */
void dam_des_reset(dam_des *des);

/* Schedule fn(des, ctx, arg) at absolute time t (seconds); t earlier than
 * now, or NaN, means now. Returns the event's id (never 0). */
dam_des_id dam_des_at(dam_des *des, double t, dam_des_fn fn, void *ctx,
                      dam_des_arg arg);
/* Schedule after delay seconds from now (delay < 0 or NaN means 0). */
dam_des_id dam_des_after(dam_des *des, double delay, dam_des_fn fn,
                         void *ctx, dam_des_arg arg);
/* Cancel a pending event. Returns 1 if it was pending, 0 otherwise (already
 * run, already cancelled, or 0). O(log n). */
int dam_des_cancel(dam_des *des, dam_des_id id);
/* Move a pending event to absolute time t (clamped to now), keeping its id;
 * it sorts as if scheduled now (a new insertion sequence). Returns 1 if it
 * was pending, 0 otherwise (nothing is scheduled then). O(log n). */
int dam_des_reschedule(dam_des *des, dam_des_id id, double t);
/* 1 while the event is pending, 0 otherwise. */
int dam_des_pending(const dam_des *des, dam_des_id id);

/* Run events in order while the earliest is at time <= t and no stop was
 * asked; then, unless stopped, set the clock to t (when t is finite and
 * later than now). Returns the number of events run by this call. */
uint64_t dam_des_run_until(dam_des *des, double t);
/* Run until no event is pending or a handler calls dam_des_stop. Returns
 * the number of events run by this call. */
uint64_t dam_des_run(dam_des *des);
/* Ask the running loop to return after the current event. The flag is
 * cleared when a run call returns. */
void dam_des_stop(dam_des *des);

/* The clock, seconds. Inline, read on every queue operation: the clock
 * is the first member of struct dam_des (des.c), a double. */
static inline double dam_des_now(const dam_des *des)
{
    return *(const double *)(const void *)des;
}
/* Events run since creation or the last reset. */
uint64_t dam_des_events(const dam_des *des);
/* Number of pending events. */
size_t dam_des_size(const dam_des *des);
/* Time of the earliest pending event, or +infinity when none. */
double dam_des_next_time(const dam_des *des);

#endif
