/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_des_queue.c: bounded queues (solver/queue.h): blocking put and get,
 * first-come-first-served waiters, direct hand-over, non-blocking tries,
 * and the blocked, starved and depth-time integrals.
 */
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_errno.h>

#include "check.h"
#include "solver/des.h"
#include "solver/queue.h"

struct log {
    uint64_t who[64];  /* resumed party */
    uint64_t item[64]; /* item it was resumed with */
    double t[64];
    size_t n;
};

struct party {
    struct log *lg;
    uint64_t id;
};

static void resumed(dam_des *des, void *ctx, dam_des_arg item)
{
    struct party *p = ctx;
    struct log *lg = p->lg;
    lg->who[lg->n] = p->id;
    lg->item[lg->n] = item.u;
    lg->t[lg->n++] = dam_des_now(des);
}

struct op {
    dam_queue *q;
    int get;          /* 1 get, 0 put */
    uint64_t item;
    struct party *p;
};

static void do_op(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct op *o = ctx;
    dam_des_arg it;
    if (o->get) {
        if (dam_queue_get(o->q, &it, resumed, o->p))
            resumed(des, o->p, it);
    } else if (dam_queue_put(o->q, dam_des_u(o->item), resumed, o->p)) {
        resumed(des, o->p, dam_des_u(o->item));
    }
}

int main(void)
{
    gsl_set_error_handler_off();
    dam_des *des = dam_des_create();
    dam_queue *q = dam_queue_create(des, 2);
    struct log lg = {.n = 0};
    struct party p[6];
    for (int i = 0; i < 6; i++)
        p[i] = (struct party){&lg, (uint64_t)i};

    /* t=0: putters 0,1,2,3 put items 10..13 into capacity 2: 0 and 1 go in,
     * 2 and 3 block. t=1: getter 4 takes 10, admitting 12 (putter 2
     * resumes). t=2: getter 5 takes 11, admitting 13 (putter 3). */
    struct op ops[4];
    for (int i = 0; i < 4; i++) {
        ops[i] = (struct op){q, 0, 10 + (uint64_t)i, &p[i]};
        dam_des_at(des, 0.0, do_op, &ops[i], dam_des_u(0));
    }
    struct op g1 = {q, 1, 0, &p[4]}, g2 = {q, 1, 0, &p[5]};
    dam_des_at(des, 1.0, do_op, &g1, dam_des_u(0));
    dam_des_at(des, 2.0, do_op, &g2, dam_des_u(0));
    dam_des_run_until(des, 0.0);
    dam_check_int((long)dam_queue_length(q), 2, "capacity 2 holds 2 items");
    dam_check_int((long)dam_queue_blocked(q), 2, "two putters block");
    dam_check_int(dam_queue_put(q, dam_des_u(99), NULL, NULL), 0,
                  "a try on a full queue fails");
    dam_check_int((long)dam_queue_blocked(q), 2, "a failed try holds nothing");
    dam_des_run(des);
    /* Log: p0 (0), p1 (0), p2 (1, via get), g4 got 10 (1), p3 (2), g5 11. */
    int ok = lg.n == 6 && lg.who[2] == 2 && lg.t[2] == 1.0 &&
             lg.who[3] == 4 && lg.item[3] == 10 && lg.who[4] == 3 &&
             lg.t[4] == 2.0 && lg.who[5] == 5 && lg.item[5] == 11;
    dam_check(ok, "blocked putters resume in FIFO order as space frees");
    dam_queue_stats st;
    dam_queue_stats_get(q, &st);
    /* Putter 2 blocked 0-1, putter 3 blocked 0-2: 3 putter-s. Depth 2
     * over 0-2: 4 item-s. */
    dam_check_rel(st.blocked_time, 3.0, 1e-12, "blocked time integral");
    dam_check_rel(st.depth_area, 4.0, 1e-12, "depth-time integral");
    dam_check_int((long)st.max_depth, 2, "max depth");

    /* Getters wait on an empty queue and receive items directly, FIFO. */
    dam_des_reset(des);
    dam_queue_reset(q);
    lg.n = 0;
    struct op w1 = {q, 1, 0, &p[0]}, w2 = {q, 1, 0, &p[1]};
    struct op x1 = {q, 0, 7, &p[2]}, x2 = {q, 0, 8, &p[3]};
    dam_des_at(des, 0.0, do_op, &w1, dam_des_u(0));
    dam_des_at(des, 0.0, do_op, &w2, dam_des_u(0));
    dam_des_at(des, 3.0, do_op, &x1, dam_des_u(0));
    dam_des_at(des, 5.0, do_op, &x2, dam_des_u(0));
    dam_des_run(des);
    ok = lg.n == 4 && lg.who[0] == 0 && lg.item[0] == 7 && lg.t[0] == 3.0 &&
         lg.who[2] == 1 && lg.item[2] == 8 && lg.t[2] == 5.0;
    dam_check(ok, "waiting getters receive items first come first served");
    dam_queue_stats_get(q, &st);
    dam_check_rel(st.starved_time, 3.0 + 5.0, 1e-12, "starved time integral");
    dam_check_rel(st.depth_area, 0.0, 0, "hand-over leaves depth at zero");
    dam_check_int((long)st.gets, 2, "gets counted");
    dam_des_arg it;
    dam_check_int(dam_queue_get(q, &it, NULL, NULL), 0,
                  "a try on an empty queue fails");
    dam_check_int((long)dam_queue_starved(q), 0, "a failed try waits nowhere");

    /* Unbounded queue grows past its initial ring. */
    dam_queue *u = dam_queue_create(des, 0);
    for (uint64_t i = 0; i < 1000; i++)
        dam_queue_put(u, dam_des_u(i), NULL, NULL);
    ok = 1;
    for (uint64_t i = 0; i < 1000; i++)
        ok = ok && dam_queue_get(u, &it, NULL, NULL) && it.u == i;
    dam_check(ok, "unbounded queue keeps FIFO order over 1000 items");
    dam_queue_free(u);
    dam_queue_free(q);
    dam_queue_free(NULL);
    dam_des_free(des);
    return dam_check_done();
}
