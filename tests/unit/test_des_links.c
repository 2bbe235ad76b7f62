/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_des_links.c: max-min fair sharing on links (solver/link.h). Every
 * expected completion time is worked out by hand in the comment beside it
 * and checked to 1e-9 relative; random flows check the virtual-time path
 * against the general (progressive filling) path.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#include "check.h"
#include "solver/des.h"
#include "solver/link.h"

#define TOL 1e-9

/* Completion time of each flow, by tag. */
struct done {
    double t[512];
};

static void on_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct done *d = ctx;
    d->t[arg.u] = dam_des_now(des);
}

static void start(dam_link_net *net, int link, double work, double cap,
                  struct done *d, uint64_t tag)
{
    int links[1] = {link};
    int rc = dam_link_flow_start(net, links, 1, work, cap, on_done, d,
                                 dam_des_u(tag), NULL, NULL);
    if (rc != 0)
        dam_check(0, "flow %llu did not start", (unsigned long long)tag);
}

/* A deferred start: (link, work, cap, tag) packed in a struct. */
struct later {
    dam_link_net *net;
    struct done *d;
    int link;
    double work, cap;
    uint64_t tag;
};

static void start_later(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct later *l = ctx;
    start(l->net, l->link, l->work, l->cap, l->d, l->tag);
}

static void test_equal(int fast)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    struct done d = {{0}};
    int l = dam_link_add(net, 1.0, NULL);
    /* Works 1, 2, 3 on capacity 1: rate 1/3 until t = 3 (flow 0 done),
     * then 1/2 each: flow 1 has 1 left, done at 5; flow 2 then has 1 left
     * at rate 1: done at 6. */
    start(net, l, 1.0, 0, &d, 0);
    start(net, l, 2.0, 0, &d, 1);
    start(net, l, 3.0, 0, &d, 2);
    dam_check_rel(dam_link_used(net, l), 1.0, TOL, "three flows fill the link");
    dam_des_run(des);
    const char *m = fast ? "fast" : "general";
    char what[96];
    snprintf(what, sizeof what, "%s: 3 equal flows, first done at 3", m);
    dam_check_rel(d.t[0], 3.0, TOL, what);
    snprintf(what, sizeof what, "%s: second done at 5", m);
    dam_check_rel(d.t[1], 5.0, TOL, what);
    snprintf(what, sizeof what, "%s: third done at 6", m);
    dam_check_rel(d.t[2], 6.0, TOL, what);
    snprintf(what, sizeof what, "%s: busy time 6 s at full use", m);
    dam_check_rel(dam_link_busy(net, l), 6.0, TOL, what);
    snprintf(what, sizeof what, "%s: delivered 6 units", m);
    dam_check_rel(dam_link_delivered(net, l), 6.0, TOL, what);

    /* n equal flows of work 1 on capacity 2: each at 2/n, all done at n/2. */
    dam_des_reset(des);
    dam_link_net_reset(net);
    for (uint64_t i = 0; i < 100; i++)
        start(net, l, 1.0, 0, &d, i);
    dam_des_run(des);
    int ok = 1;
    for (int i = 0; i < 100; i++)
        ok = ok && fabs(d.t[i] - 100.0) <= TOL * 100.0;
    snprintf(what, sizeof what, "%s: 100 flows of 1 on capacity 1 end at 100",
             m);
    dam_check(ok, "%s", what);
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_cores(void)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    struct done d = {{0}};
    int pool = dam_link_add(net, 4.0, NULL);
    /* 4 cores, each flow capped at 1 core. Two flows of 1 core-second each
     * run at 1 core: done at 1; busy = 2 cores * 1 s / 4 = 0.5. */
    start(net, pool, 1.0, 1.0, &d, 0);
    start(net, pool, 1.0, 1.0, &d, 1);
    dam_check(dam_link_is_fast(net, pool), "equal caps keep the fast path");
    dam_des_run(des);
    dam_check_rel(d.t[0], 1.0, TOL, "2 flows on 4 cores run at 1 core");
    dam_check_rel(dam_link_busy(net, pool), 0.5, TOL,
                  "busy time is the utilisation integral");
    dam_check_rel(dam_link_active(net, pool), 1.0, TOL, "active time");
    /* Six flows on 4 cores: 2/3 core each, done at 1.5 (from t = 1). */
    for (uint64_t i = 0; i < 6; i++)
        start(net, pool, 1.0, 1.0, &d, 10 + i);
    dam_des_run(des);
    dam_check_rel(d.t[15], 2.5, TOL, "6 flows on 4 cores share 4/6 each");
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_capped(int fast)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    struct done d = {{0}};
    int l = dam_link_add(net, 1.0, NULL);
    /* A capped at 0.2, B and C uncapped, each work 1, capacity 1: A at
     * 0.2, B and C at 0.4, done at 2.5; A has 0.5 done, the rest at its
     * cap 0.2 takes 2.5 more: done at 5. */
    dam_link_flow id;
    int links[1] = {l};
    dam_link_flow_start(net, links, 1, 1.0, 0.2, on_done, &d, dam_des_u(0),
                        &id, NULL);
    start(net, l, 1.0, 0, &d, 1);
    start(net, l, 1.0, 0, &d, 2);
    dam_check_rel(dam_link_flow_rate(net, id), 0.2, TOL,
                  "a capped flow runs at its cap");
    dam_des_run(des);
    dam_check_rel(d.t[1], 2.5, TOL, "uncapped flows share what the cap leaves");
    dam_check_rel(d.t[2], 2.5, TOL, "both uncapped flows done at 2.5");
    dam_check_rel(d.t[0], 5.0, TOL, "the capped flow stays at its cap alone");
    dam_check_rel(dam_link_busy(net, l), 2.5 + 2.5 * 0.2, TOL,
                  "busy time with a capped flow alone at 20 %");
    if (fast)
        dam_check(dam_link_is_fast(net, l),
                  "an empty link returns to fast mode");

    /* Caps above the fair share do not bind: caps 0.6 and 0.9 with one
     * uncapped flow on capacity 1: all at 1/3, works 1 each: done at 3. */
    dam_des_reset(des);
    dam_link_net_reset(net);
    start(net, l, 1.0, 0.6, &d, 0);
    start(net, l, 1.0, 0.9, &d, 1);
    start(net, l, 1.0, 0, &d, 2);
    dam_des_run(des);
    dam_check(fabs(d.t[0] - 3.0) < TOL * 3 && fabs(d.t[1] - 3.0) < TOL * 3 &&
                  fabs(d.t[2] - 3.0) < TOL * 3,
              "caps above the fair share do not bind (all done at 3)");
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_two_links(void)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    struct done d = {{0}};
    int l1 = dam_link_add(net, 1.0, NULL);
    int l2 = dam_link_add(net, 3.0, NULL);
    /* X crosses L1 (cap 1) and L2 (cap 3); Y on L1; Z0..Z2 on L2.
     * L1 alone would give X 1/2, L2 alone 3/4: X gets the smaller, 1/2,
     * Y 1/2, each Z (3 - 1/2)/3 = 5/6. X (work 1) done at 2. Then Y has 1
     * left at rate 1: done at 3. Z (work 10) have 5/3 done at t = 2, then
     * rate 1: done at 2 + 25/3. */
    int both[2] = {l1, l2};
    dam_link_flow x;
    dam_link_flow_start(net, both, 2, 1.0, 0, on_done, &d, dam_des_u(0), &x,
                        NULL);
    start(net, l1, 2.0, 0, &d, 1);
    for (uint64_t i = 0; i < 3; i++)
        start(net, l2, 10.0, 0, &d, 2 + i);
    dam_check_rel(dam_link_flow_rate(net, x), 0.5, TOL,
                  "a flow over two links gets the smaller fair share");
    dam_check_rel(dam_link_used(net, l2), 3.0, TOL,
                  "the other link's flows take up the slack");
    dam_des_run(des);
    dam_check_rel(d.t[0], 2.0, TOL, "two-link flow done at 2");
    dam_check_rel(d.t[1], 3.0, TOL, "its neighbour on link 1 done at 3");
    dam_check_rel(d.t[2], 2.0 + 25.0 / 3.0, TOL, "link-2 flows done at 31/3");
    dam_check(dam_link_is_fast(net, l2) && dam_link_is_fast(net, l1),
              "links return to fast mode after the crossing flow ends");

    /* A crossing flow capped below both fair shares: X capped at 0.1 on
     * L1 (cap 1) and L2 (cap 3) with Y on L1 and Z on L2: X 0.1, Y 0.9,
     * Z 2.9. Works X 1 (done 10), Y 0.9 (done 1), Z 2.9 (done 1). */
    dam_des_reset(des);
    dam_link_net_reset(net);
    dam_link_flow_start(net, both, 2, 1.0, 0.1, on_done, &d, dam_des_u(0),
                        NULL, NULL);
    start(net, l1, 0.9, 0, &d, 1);
    start(net, l2, 2.9, 0, &d, 2);
    dam_des_run(des);
    dam_check_rel(d.t[0], 10.0, TOL, "capped crossing flow runs at its cap");
    dam_check_rel(d.t[1], 1.0, TOL, "link 1 neighbour gets the rest (0.9)");
    dam_check_rel(d.t[2], 1.0, TOL, "link 2 neighbour gets the rest (2.9)");
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_midway(int fast)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    struct done d = {{0}};
    int l = dam_link_add(net, 1.0, NULL);
    /* A (work 2) from 0; B (work 0.5) from 1; C (work 0.25) from 1.5.
     * 0-1: A alone, 1 done. 1-1.5: A, B at 1/2: A 1.25 done, B 0.25.
     * 1.5-: three at 1/3: C needs 0.25 -> 0.75 s, B 0.25 -> also 0.75 s:
     * B and C done at 2.25, A then has 2 - 1.25 - 0.25 = 0.5 left alone:
     * done at 2.75. */
    start(net, l, 2.0, 0, &d, 0);
    struct later b = {net, &d, l, 0.5, 0, 1};
    struct later c = {net, &d, l, 0.25, 0, 2};
    dam_des_at(des, 1.0, start_later, &b, dam_des_u(0));
    dam_des_at(des, 1.5, start_later, &c, dam_des_u(0));
    dam_des_run(des);
    char what[96];
    const char *m = fast ? "fast" : "general";
    snprintf(what, sizeof what, "%s: late flow B done at 2.25", m);
    dam_check_rel(d.t[1], 2.25, TOL, what);
    snprintf(what, sizeof what, "%s: late flow C done at 2.25", m);
    dam_check_rel(d.t[2], 2.25, TOL, what);
    snprintf(what, sizeof what, "%s: first flow A done at 2.75", m);
    dam_check_rel(d.t[0], 2.75, TOL, what);
    dam_link_net_free(net);
    dam_des_free(des);
}

/* Random arrivals of flows on one link (equal caps): the virtual-time path
 * and the general path must agree on every completion time. */
struct rnd {
    dam_link_net *net;
    struct done *d;
    gsl_rng *r;
    int link;
    uint64_t next, n;
    double cap;
};

static void rnd_arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct rnd *s = ctx;
    double work = 0.1 + gsl_rng_uniform(s->r);
    start(s->net, s->link, work, s->cap, s->d, s->next);
    if (++s->next < s->n)
        dam_des_after(des, 0.05 * gsl_rng_uniform(s->r), rnd_arrive, s,
                      dam_des_u(0));
}

static void run_random(int fast, double cap, struct done *d)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 777);
    struct rnd s = {net, d, r, dam_link_add(net, 4.0, NULL), 0, 400, cap};
    dam_des_at(des, 0.0, rnd_arrive, &s, dam_des_u(0));
    dam_des_run(des);
    gsl_rng_free(r);
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_fast_vs_general(void)
{
    static struct done a, b;
    double caps[2] = {0.0, 1.0};
    for (int c = 0; c < 2; c++) {
        run_random(1, caps[c], &a);
        run_random(0, caps[c], &b);
        double worst = 0.0;
        for (int i = 0; i < 400; i++) {
            double e = fabs(a.t[i] - b.t[i]) / b.t[i];
            if (e > worst)
                worst = e;
        }
        dam_check(worst < 1e-9,
                  "400 random flows (cap %g): fast and general paths agree "
                  "(worst rel diff %.2e)", caps[c], worst);
    }
}

static void test_errors(void)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_error e;
    dam_check_int(dam_link_add(net, -1.0, &e), -1, "negative capacity refused");
    int l = dam_link_add(net, 1.0, NULL);
    int bad[2] = {l, l};
    struct done d;
    dam_check(dam_link_flow_start(net, bad, 2, 1.0, 0, on_done, &d,
                                  dam_des_u(0), NULL, &e) == DAM_EINPUT,
              "a flow crossing a link twice is refused: %s", e.msg);
    int nolink[1] = {7};
    dam_check(dam_link_flow_start(net, nolink, 1, 1.0, 0, on_done, &d,
                                  dam_des_u(0), NULL, &e) == DAM_EINPUT,
              "an unknown link is refused: %s", e.msg);
    dam_link_net_free(net);
    dam_link_net_free(NULL);
    dam_des_free(des);
}

int main(void)
{
    gsl_set_error_handler_off();
    test_equal(1);
    test_equal(0);
    test_cores();
    test_capped(1);
    test_capped(0);
    test_two_links();
    test_midway(1);
    test_midway(0);
    test_fast_vs_general();
    test_errors();
    return dam_check_done();
}
