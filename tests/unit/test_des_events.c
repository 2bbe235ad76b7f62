/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_des_events.c: the event list and clock (solver/des.h): order by
 * time, ties by insertion order, cancellation and rescheduling with stale
 * ids, run_until and stop, and the heap against a reference sort under
 * random schedule/cancel/reschedule operations.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#include "check.h"
#include "solver/des.h"

/* A log of (time, tag) pairs of the events run. */
struct log {
    double t[4096];
    uint64_t tag[4096];
    size_t n;
};

static void record(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct log *lg = ctx;
    if (lg->n < 4096) {
        lg->t[lg->n] = dam_des_now(des);
        lg->tag[lg->n++] = arg.u;
    }
}

static void stopper(dam_des *des, void *ctx, dam_des_arg arg)
{
    record(des, ctx, arg);
    dam_des_stop(des);
}

/* Schedules one more event at the same time from inside a handler. */
static void chain(dam_des *des, void *ctx, dam_des_arg arg)
{
    record(des, ctx, arg);
    if (arg.u < 3)
        dam_des_after(des, 0.0, chain, ctx, dam_des_u(arg.u + 1));
}

static void test_order(void)
{
    dam_des *des = dam_des_create();
    struct log lg = {.n = 0};
    dam_des_at(des, 2.0, record, &lg, dam_des_u(20));
    dam_des_at(des, 1.0, record, &lg, dam_des_u(10));
    for (uint64_t i = 0; i < 5; i++)
        dam_des_at(des, 1.5, record, &lg, dam_des_u(100 + i));
    dam_des_at(des, 0.5, record, &lg, dam_des_u(5));
    dam_des_run(des);
    uint64_t want[] = {5, 10, 100, 101, 102, 103, 104, 20};
    int ok = lg.n == 8;
    for (size_t i = 0; ok && i < 8; i++)
        ok = lg.tag[i] == want[i];
    dam_check(ok, "events run by time, ties in insertion order");
    dam_check_rel(dam_des_now(des), 2.0, 0, "clock at the last event");
    dam_check_int((long)dam_des_events(des), 8, "events counted");
    dam_check_int((long)dam_des_size(des), 0, "nothing pending after run");

    /* Zero-delay events scheduled from a handler run after those already
     * pending at that time. */
    dam_des_reset(des);
    lg.n = 0;
    dam_des_at(des, 1.0, chain, &lg, dam_des_u(0));
    dam_des_at(des, 1.0, record, &lg, dam_des_u(50));
    dam_des_run(des);
    uint64_t want2[] = {0, 50, 1, 2, 3};
    ok = lg.n == 5;
    for (size_t i = 0; ok && i < 5; i++)
        ok = lg.tag[i] == want2[i];
    dam_check(ok, "zero-delay events from a handler queue behind peers");

    /* Scheduling in the past runs at now. */
    dam_des_reset(des);
    lg.n = 0;
    dam_des_run_until(des, 5.0);
    dam_des_at(des, 1.0, record, &lg, dam_des_u(1));
    dam_des_run(des);
    dam_check(lg.n == 1 && lg.t[0] == 5.0, "an event in the past runs now");
    dam_des_free(des);
    dam_des_free(NULL);
    dam_check(1, "dam_des_free(NULL) is a no-op");
}

static void test_cancel(void)
{
    dam_des *des = dam_des_create();
    struct log lg = {.n = 0};
    dam_des_id a = dam_des_at(des, 1.0, record, &lg, dam_des_u(1));
    dam_des_id b = dam_des_at(des, 2.0, record, &lg, dam_des_u(2));
    dam_des_id c = dam_des_at(des, 3.0, record, &lg, dam_des_u(3));
    dam_check(a != 0 && b != 0 && c != 0, "ids are nonzero");
    dam_check_int(dam_des_cancel(des, b), 1, "cancel a pending event");
    dam_check_int(dam_des_cancel(des, b), 0, "cancel it twice fails");
    dam_check_int(dam_des_pending(des, b), 0, "a cancelled event is not pending");
    /* The freed slot is reused: the old id must not name the new event. */
    dam_des_id d = dam_des_at(des, 2.5, record, &lg, dam_des_u(4));
    dam_check(d != b, "a reused slot gets a new id");
    dam_check_int(dam_des_cancel(des, b), 0, "a stale id cancels nothing");
    dam_check_int(dam_des_reschedule(des, c, 0.5), 1, "reschedule earlier");
    dam_check_int(dam_des_cancel(des, 0), 0, "id 0 names nothing");
    dam_des_run(des);
    uint64_t want[] = {3, 1, 4};
    int ok = lg.n == 3;
    for (size_t i = 0; ok && i < 3; i++)
        ok = lg.tag[i] == want[i];
    dam_check(ok, "cancelled event skipped, moved event runs at new time");
    dam_check_int(dam_des_cancel(des, a), 0, "an event that ran can't cancel");
    dam_check_int(dam_des_reschedule(des, a, 9.0), 0,
                  "an event that ran can't move");

    /* Reschedule later, and the same time (sorts as newly inserted). */
    dam_des_reset(des);
    lg.n = 0;
    dam_des_id x = dam_des_at(des, 1.0, record, &lg, dam_des_u(1));
    dam_des_at(des, 1.0, record, &lg, dam_des_u(2));
    dam_des_at(des, 2.0, record, &lg, dam_des_u(3));
    dam_des_reschedule(des, x, 1.0);
    dam_des_run(des);
    ok = lg.n == 3 && lg.tag[0] == 2 && lg.tag[1] == 1 && lg.tag[2] == 3;
    dam_check(ok, "rescheduled to the same time sorts after peers");
    dam_des_free(des);
}

static void test_until_stop(void)
{
    dam_des *des = dam_des_create();
    struct log lg = {.n = 0};
    for (int i = 1; i <= 10; i++)
        dam_des_at(des, (double)i, record, &lg, dam_des_u((uint64_t)i));
    uint64_t ran = dam_des_run_until(des, 4.5);
    dam_check_int((long)ran, 4, "run_until runs events up to t");
    dam_check_rel(dam_des_now(des), 4.5, 0, "run_until leaves the clock at t");
    dam_check_rel(dam_des_next_time(des), 5.0, 0, "next pending time");
    dam_des_run_until(des, 5.0);
    dam_check_int((long)lg.n, 5, "an event exactly at t runs");
    dam_des_at(des, 6.5, stopper, &lg, dam_des_u(99));
    ran = dam_des_run(des);
    dam_check(ran == 2 && lg.tag[lg.n - 1] == 99 && dam_des_now(des) == 6.5,
              "stop returns after the current event");
    ran = dam_des_run(des);
    dam_check_int((long)ran, 4, "run resumes after a stop");
    dam_check_int((long)dam_des_events(des), 11, "events counted over runs");
    dam_des_free(des);
}

/* Random schedule/cancel/reschedule against a reference: every live event
 * is kept in an array with (time, seq); at the end the run order must be
 * the array sorted by (time, seq). */
struct ref {
    double t;
    uint64_t seq;
    uint64_t tag;
    dam_des_id id;
    int live;
};

static int ref_cmp(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void test_random(void)
{
    enum { N = 3000 };
    static struct ref refs[N];
    static struct log lg;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12345);
    dam_des *des = dam_des_create();
    size_t n = 0;
    uint64_t seq = 0;
    lg.n = 0;
    for (int op = 0; op < 6000; op++) {
        double u = gsl_rng_uniform(r);
        if (u < 0.6 && n < N) {
            /* Coarse times make ties common. */
            double t = (double)gsl_rng_uniform_int(r, 200);
            refs[n] = (struct ref){t, seq++, n, 0, 1};
            refs[n].id = dam_des_at(des, t, record, &lg, dam_des_u(n));
            n++;
        } else if (u < 0.8 && n > 0) {
            size_t k = gsl_rng_uniform_int(r, n);
            int got = dam_des_cancel(des, refs[k].id);
            if (got != refs[k].live)
                dam_check(0, "cancel of event %zu returned %d", k, got);
            refs[k].live = 0;
        } else if (n > 0) {
            size_t k = gsl_rng_uniform_int(r, n);
            double t = (double)gsl_rng_uniform_int(r, 200);
            int got = dam_des_reschedule(des, refs[k].id, t);
            if (got != refs[k].live)
                dam_check(0, "reschedule of %zu returned %d", k, got);
            if (refs[k].live) {
                refs[k].t = t;
                refs[k].seq = seq++;
            }
        }
    }
    size_t live = 0;
    for (size_t i = 0; i < n; i++)
        live += (size_t)refs[i].live;
    dam_check_int((long)dam_des_size(des), (long)live,
                  "pending count matches the reference");
    struct ref *sorted = malloc(n * sizeof *sorted);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (refs[i].live)
            sorted[m++] = refs[i];
    qsort(sorted, m, sizeof *sorted, ref_cmp);
    dam_des_run(des);
    int ok = lg.n == m;
    for (size_t i = 0; ok && i < m; i++)
        ok = lg.tag[i] == sorted[i].tag && lg.t[i] == sorted[i].t;
    dam_check(ok, "random ops: run order equals reference sort (%zu events)",
              m);
    free(sorted);
    dam_des_free(des);
    gsl_rng_free(r);
}

int main(void)
{
    gsl_set_error_handler_off();
    test_order();
    test_cancel();
    test_until_stop();
    test_random();
    return dam_check_done();
}
