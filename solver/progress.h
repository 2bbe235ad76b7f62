/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * progress.h: how a long computation says how far it has got, to whoever
 * asked (the command line draws a progress line on a terminal).
 *
 * Design. A plain function pointer and a context, handed down in the
 * computation's options (dam_sim_options.progress, ...): nothing below
 * cli/ prints, keeps a clock or knows about terminals; the callback does
 * all of that. The computation calls dam_progress_report(p, done, total)
 * after each unit of work worth a few microseconds or more (a simulated
 * step of every rank, a batch of requests, an option of a plan), with done
 * rising from 0 to total in units of its choosing, the same units for the
 * whole computation. p may be NULL (no one asked), so the call costs a
 * branch. A computation made of others (a plan simulating many options)
 * reports its own units and does not pass its progress to the parts, so
 * one line never jumps between two totals.
 *
 * The callback must be cheap (it may be called tens of thousands of times
 * a second: the command line's reads a clock and redraws at most five
 * times a second), must not call back into the computation, and returns
 * nothing: stopping (Ctrl-C) is the program's business (cli/signals.c).
 * Reports come from the thread that runs the computation.
 */
#ifndef DAM_SOLVER_PROGRESS_H
#define DAM_SOLVER_PROGRESS_H

/* Called with the work done so far and the work in all (same units). */
typedef void (*dam_progress_fn)(void *ctx, double done, double total);

/* Where progress goes: fn(ctx, done, total); fn NULL: nowhere. */
typedef struct dam_progress {
    dam_progress_fn fn; /* the callback, or NULL */
    void *ctx;          /* handed back to it */
} dam_progress;

/* Report done of total to p (p or p->fn NULL: nothing). */
static inline void dam_progress_report(const dam_progress *p, double done,
                                       double total)
{
    if (p && p->fn)
        p->fn(p->ctx, done, total);
}

#endif
