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

/* Mixed caps on one link, all flows from t = 0, capacity 1: A capped at
 * 0.1 (work 1), B at 0.3 (work 0.9), C and D uncapped (works 1.5, 0.6).
 * 0.1 + 0.3 + 2L = 1: L = 0.3, all but A at 0.3 (B's cap ties L). D done
 * at 2; then A 0.8, B 0.3, C 0.9 left; 0.1 + 0.3 + L = 1: C at 0.6, B at
 * its cap: B done at 3, C has 0.3 left, A 0.7. Then A 0.1, C 0.9: C done
 * at 3 + 1/3; A has 0.7 - 1/30 = 2/3 left at 0.1: done at 10. Busy =
 * delivered = 4 (the link is full until 10/3, then 0.1 used). */
static void test_mixed_caps(int fast)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    struct done d = {{0}};
    int l = dam_link_add(net, 1.0, NULL);
    const char *m = fast ? "fast" : "general";
    char what[128];
    dam_link_flow a, b, c;
    int links[1] = {l};
    dam_link_flow_start(net, links, 1, 1.0, 0.1, on_done, &d, dam_des_u(0),
                        &a, NULL);
    dam_link_flow_start(net, links, 1, 0.9, 0.3, on_done, &d, dam_des_u(1),
                        &b, NULL);
    dam_link_flow_start(net, links, 1, 1.5, 0, on_done, &d, dam_des_u(2),
                        &c, NULL);
    start(net, l, 0.6, 0, &d, 3);
    snprintf(what, sizeof what, "%s: caps 0.1, 0.3, none, none: %s", m,
             fast ? "one link with mixed caps stays fast" : "general mode");
    dam_check(dam_link_is_fast(net, l) == fast, "%s", what);
    snprintf(what, sizeof what, "%s: flow capped at 0.1 runs at 0.1", m);
    dam_check_rel(dam_link_flow_rate(net, a), 0.1, TOL, what);
    snprintf(what, sizeof what, "%s: uncapped flows at the level 0.3", m);
    dam_check_rel(dam_link_flow_rate(net, c), 0.3, TOL, what);
    snprintf(what, sizeof what, "%s: the link is full (used 1)", m);
    dam_check_rel(dam_link_used(net, l), 1.0, TOL, what);
    dam_des_run_until(des, 2.5);
    snprintf(what, sizeof what, "%s: at 2.5 the uncapped flow runs at 0.6",
             m);
    dam_check_rel(dam_link_flow_rate(net, c), 0.6, TOL, what);
    snprintf(what, sizeof what, "%s: at 2.5 B has 0.15 left at its cap", m);
    dam_check_rel(dam_link_flow_remaining(net, b), 0.15, TOL, what);
    snprintf(what, sizeof what, "%s: at 2.5 A has 0.75 left", m);
    dam_check_rel(dam_link_flow_remaining(net, a), 0.75, TOL, what);
    dam_des_run(des);
    snprintf(what, sizeof what, "%s: uncapped D (0.6) done at 2", m);
    dam_check_rel(d.t[3], 2.0, TOL, what);
    snprintf(what, sizeof what, "%s: B capped at 0.3 done at 3", m);
    dam_check_rel(d.t[1], 3.0, TOL, what);
    snprintf(what, sizeof what, "%s: uncapped C (1.5) done at 10/3", m);
    dam_check_rel(d.t[2], 10.0 / 3.0, TOL, what);
    snprintf(what, sizeof what, "%s: A capped at 0.1 done at 10", m);
    dam_check_rel(d.t[0], 10.0, TOL, what);
    snprintf(what, sizeof what, "%s: delivered 4 units", m);
    dam_check_rel(dam_link_delivered(net, l), 4.0, TOL, what);
    snprintf(what, sizeof what, "%s: busy 4 s (full to 10/3, then 10 %%)", m);
    dam_check_rel(dam_link_busy(net, l), 4.0, TOL, what);
    snprintf(what, sizeof what, "%s: active 10 s", m);
    dam_check_rel(dam_link_active(net, l), 10.0, TOL, what);

    /* All capped and the caps fit: caps 0.1 and 0.3 on capacity 1, works
     * 1 and 0.3: done at 10 and 1, the link never full: busy 0.4 * 1 +
     * 0.1 * 9 = 1.3. */
    dam_des_reset(des);
    dam_link_net_reset(net);
    start(net, l, 1.0, 0.1, &d, 0);
    start(net, l, 0.3, 0.3, &d, 1);
    snprintf(what, sizeof what, "%s: caps that fit: used 0.4", m);
    dam_check_rel(dam_link_used(net, l), 0.4, TOL, what);
    dam_des_run(des);
    snprintf(what, sizeof what, "%s: caps that fit: 0.3 at 0.3 done at 1", m);
    dam_check_rel(d.t[1], 1.0, TOL, what);
    snprintf(what, sizeof what, "%s: caps that fit: 1 at 0.1 done at 10", m);
    dam_check_rel(d.t[0], 10.0, TOL, what);
    snprintf(what, sizeof what, "%s: caps that fit: busy 1.3 s", m);
    dam_check_rel(dam_link_busy(net, l), 1.3, TOL, what);
    if (fast)
        dam_check(dam_link_is_fast(net, l),
                  "fast: an emptied mixed link is fast again");
    dam_link_net_free(net);
    dam_des_free(des);
}

/* Starts and ends mid-way, a flow crossing the boundary both ways;
 * capacity 1, caps A 0.1, B 0.25, C, D, E none.
 * 0-1: B (work 1.2) at its cap 0.25, C (work 4) at 0.75.
 * At 1: B 0.95 left, C 3.25. A (work 1), D (0.45), E (0.675) start:
 * 0.1 + 4L = 1, L = 0.225 < 0.25: B now runs at the level, with C, D, E.
 * D done at 1 + 0.45 / 0.225 = 3. At 3: A 0.8, B 0.5, C 2.8, E 0.225
 * left; 0.1 + 0.25 + 2L = 1: L = 0.325 rises above B's cap, B is capped
 * again. E done at 3 + 0.225 / 0.325 = 3 + 9/13. Then A 0.1, B 0.25, C
 * 0.65: B (4.25/13 left) done at 3 + 9/13 + 17/13 = 5; C has 1.725 left,
 * A 0.6. Then C at 0.9: done at 5 + 23/12; A 0.6 - 2.3/12 = 0.408333 left
 * at 0.1: done at 11. Delivered 7.325 units, busy 7.325 s, active 11 s. */
static void test_mixed_midway(int fast)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    struct done d = {{0}};
    int l = dam_link_add(net, 1.0, NULL);
    const char *m = fast ? "fast" : "general";
    char what[128];
    dam_link_flow b;
    int links[1] = {l};
    dam_link_flow_start(net, links, 1, 1.2, 0.25, on_done, &d, dam_des_u(1),
                        &b, NULL);
    start(net, l, 4.0, 0, &d, 2);
    struct later la = {net, &d, l, 1.0, 0.1, 0};
    struct later ld = {net, &d, l, 0.45, 0, 3};
    struct later le = {net, &d, l, 0.675, 0, 4};
    dam_des_at(des, 1.0, start_later, &la, dam_des_u(0));
    dam_des_at(des, 1.0, start_later, &ld, dam_des_u(0));
    dam_des_at(des, 1.0, start_later, &le, dam_des_u(0));
    dam_des_run_until(des, 0.5);
    snprintf(what, sizeof what, "%s: B below the level runs at its cap", m);
    dam_check_rel(dam_link_flow_rate(net, b), 0.25, TOL, what);
    dam_des_run_until(des, 2.0);
    snprintf(what, sizeof what, "%s: level 0.225 falls below B's cap 0.25",
             m);
    dam_check_rel(dam_link_flow_rate(net, b), 0.225, TOL, what);
    snprintf(what, sizeof what, "%s: B has 0.725 left at 2", m);
    dam_check_rel(dam_link_flow_remaining(net, b), 0.725, TOL, what);
    dam_des_run_until(des, 3.5);
    snprintf(what, sizeof what, "%s: level 0.325 rises above B's cap", m);
    dam_check_rel(dam_link_flow_rate(net, b), 0.25, TOL, what);
    dam_des_run(des);
    snprintf(what, sizeof what, "%s: D done at 3", m);
    dam_check_rel(d.t[3], 3.0, TOL, what);
    snprintf(what, sizeof what, "%s: E done at 3 + 9/13", m);
    dam_check_rel(d.t[4], 3.0 + 9.0 / 13.0, TOL, what);
    snprintf(what, sizeof what, "%s: B done at 5", m);
    dam_check_rel(d.t[1], 5.0, TOL, what);
    snprintf(what, sizeof what, "%s: C done at 5 + 23/12", m);
    dam_check_rel(d.t[2], 5.0 + 23.0 / 12.0, TOL, what);
    snprintf(what, sizeof what, "%s: A done at 11", m);
    dam_check_rel(d.t[0], 11.0, TOL, what);
    snprintf(what, sizeof what, "%s: delivered 7.325 units", m);
    dam_check_rel(dam_link_delivered(net, l), 7.325, TOL, what);
    snprintf(what, sizeof what, "%s: busy 7.325 s", m);
    dam_check_rel(dam_link_busy(net, l), 7.325, TOL, what);
    snprintf(what, sizeof what, "%s: active 11 s", m);
    dam_check_rel(dam_link_active(net, l), 11.0, TOL, what);
    dam_link_net_free(net);
    dam_des_free(des);
}

/* Equal caps, then a different cap joins (equal-cap mode -> mixed), on
 * capacity 1: X and Y capped at 0.4 (works 0.8, 2), both at 0.4. At 1,
 * X has 0.4 left, Y 1.6, and Z uncapped (work 0.4) starts: 3L = 1 gives
 * L = 1/3 < 0.4, all at 1/3. Z done at 2.2, X at 2.2 too (0.4 at 1/3 is
 * 1.2 s). Y then has 1.6 - 0.4 = 1.2 left at its cap 0.4: done at 5.2. */
static void test_equal_to_mixed(int fast)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    struct done d = {{0}};
    int l = dam_link_add(net, 1.0, NULL);
    const char *m = fast ? "fast" : "general";
    char what[128];
    start(net, l, 0.8, 0.4, &d, 0);
    start(net, l, 2.0, 0.4, &d, 1);
    struct later lz = {net, &d, l, 0.4, 0, 2};
    dam_des_at(des, 1.0, start_later, &lz, dam_des_u(0));
    dam_des_run(des);
    snprintf(what, sizeof what, "%s: equal caps then one uncapped: Z at 2.2",
             m);
    dam_check_rel(d.t[2], 2.2, TOL, what);
    snprintf(what, sizeof what, "%s: X (cap 0.4) done at 2.2", m);
    dam_check_rel(d.t[0], 2.2, TOL, what);
    snprintf(what, sizeof what, "%s: Y (cap 0.4) done at 5.2", m);
    dam_check_rel(d.t[1], 5.2, TOL, what);
    snprintf(what, sizeof what, "%s: delivered 3.2 units", m);
    dam_check_rel(dam_link_delivered(net, l), 3.2, TOL, what);
    dam_link_net_free(net);
    dam_des_free(des);
}

/* Random arrivals of flows on one link (equal caps): the virtual-time path
 * and the general path must agree on every completion time. With random
 * caps (cap < 0), caps are log-uniform over 0.005-2 or none (one in four),
 * so the boundary between capped and level flows moves both ways; with
 * two links (cross), flows go to either link and one in ten (short and
 * uncapped) crosses both, switching the links between the mixed and the
 * general mode. */
struct rnd {
    dam_link_net *net;
    struct done *d;
    gsl_rng *r;
    int link;
    uint64_t next, n;
    double cap;
    int cross;      /* 1: a second link (index link + 1) and crossing flows */
    double gap;     /* mean gap between arrivals is gap / 2, s */
    int mixed_fast; /* times a fast link was seen with mixed caps running */
};

static void rnd_arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct rnd *s = ctx;
    double work = 0.1 + gsl_rng_uniform(s->r);
    double cap = s->cap;
    if (cap < 0.0) {
        double u = gsl_rng_uniform(s->r);
        cap = u < 0.25 ? 0.0 : 0.005 * exp(gsl_rng_uniform(s->r) * log(400));
    }
    if (!s->cross) {
        start(s->net, s->link, work, cap, s->d, s->next);
    } else {
        double u = gsl_rng_uniform(s->r);
        int links[2] = {s->link, s->link + 1};
        int nl = u < 0.1 ? 2 : 1;
        if (u >= 0.55)
            links[0] = s->link + 1;
        if (nl == 2) { /* short and uncapped: the links switch often */
            cap = 0.0;
            work *= 0.1;
        }
        int rc = dam_link_flow_start(s->net, links, nl, work, cap, on_done,
                                     s->d, dam_des_u(s->next), NULL, NULL);
        if (rc != 0)
            dam_check(0, "flow %llu did not start",
                      (unsigned long long)s->next);
    }
    if (s->cap < 0.0 && dam_link_is_fast(s->net, s->link) &&
        dam_link_flows(s->net, s->link) > 2)
        s->mixed_fast++;
    if (++s->next < s->n)
        dam_des_after(des, s->gap * gsl_rng_uniform(s->r), rnd_arrive, s,
                      dam_des_u(0));
}

/* Run 400 random flows; returns how often the first link was seen fast
 * with more than two flows (random caps only). */
static int run_random(int fast, double cap, int cross, struct done *d)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, cross ? 4242 : 777);
    struct rnd s = {net, d, r, dam_link_add(net, 4.0, NULL), 0, 400, cap,
                    cross, cross ? 0.3 : cap < 0.0 ? 0.15 : 0.05, 0};
    if (cross)
        dam_link_add(net, 3.0, NULL);
    dam_des_at(des, 0.0, rnd_arrive, &s, dam_des_u(0));
    dam_des_run(des);
    if (fast)
        dam_check(dam_link_is_fast(net, s.link) &&
                      (!cross || dam_link_is_fast(net, s.link + 1)),
                  "random flows (cap %g%s): links end in fast mode", cap,
                  cross ? ", two links" : "");
    gsl_rng_free(r);
    dam_link_net_free(net);
    dam_des_free(des);
    return s.mixed_fast;
}

/* The worst relative difference of the first n completion times of a
 * and b; *all: 1 when every one of them completed in both. */
static double worst_rel(const struct done *a, const struct done *b, int n,
                        int *all)
{
    double worst = 0.0;
    *all = 1;
    for (int i = 0; i < n; i++) {
        *all = *all && a->t[i] > 0.0 && b->t[i] > 0.0;
        double e = fabs(a->t[i] - b->t[i]) / b->t[i];
        if (e > worst)
            worst = e;
    }
    return worst;
}

static void test_fast_vs_general(void)
{
    static struct done a, b;
    double caps[4] = {0.0, 1.0, -1.0, -1.0};
    int cross[4] = {0, 0, 0, 1};
    for (int c = 0; c < 4; c++) {
        a = b = (struct done){{0}};
        int seen = run_random(1, caps[c], cross[c], &a);
        run_random(0, caps[c], cross[c], &b);
        int all;
        double worst = worst_rel(&a, &b, 400, &all);
        const char *kind = caps[c] >= 0.0 ? "equal caps"
                           : cross[c]     ? "random caps, two links"
                                          : "random caps";
        dam_check(all, "400 random flows (%s, cap %g): all complete", kind,
                  caps[c]);
        dam_check(worst < 1e-9,
                  "400 random flows (%s, cap %g): fast and general paths "
                  "agree (worst rel diff %.2e)", kind, caps[c], worst);
        if (caps[c] < 0.0)
            dam_check(seen > (cross[c] ? 20 : 200),
                      "400 random flows (%s): the link ran mixed caps on "
                      "the fast path (%d arrivals seen)", kind, seen);
    }
}

/* 500 flows with caps that differ start on one link (300 together), so the
 * mixed mode's cap heaps fill with entries of flows gone (completions come
 * in finishing order, which the works make apart from the caps' order)
 * and are rebuilt several times: every
 * completion time agrees with the general path's. cfrac: the link's
 * capacity over the sum of the caps (>= 1: every flow capped; 0.4: the
 * level binds, and flows cross between the sets as others finish). */
static void run_many(int fast, double cfrac, struct done *d)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 9001);
    double cap[500], work[500], sum = 0.0;
    for (int i = 0; i < 500; i++) {
        cap[i] = 0.01 * exp(gsl_rng_uniform(r) * log(100.0));
        /* alone, a flow would finish at a time apart from its cap */
        work[i] = cap[i] * (0.1 + gsl_rng_uniform(r));
        sum += cap[i];
    }
    int link = dam_link_add(net, cfrac * sum, NULL);
    /* 300 at once, then one every 0.005 s: arrivals lower the level,
     * so capped flows move back up (the capped set's cap heap) */
    static struct later lt[500];
    for (int i = 0; i < 500; i++) {
        lt[i] = (struct later){net, d, link, work[i], cap[i], (uint64_t)i};
        dam_des_at(des, i < 300 ? 0.0 : 0.005 * (i - 299), start_later,
                   &lt[i], dam_des_u(0));
    }
    dam_des_run(des);
    gsl_rng_free(r);
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_many_caps(void)
{
    static struct done a, b;
    static const double cfrac[3] = {1.5, 0.4, 0.15};
    for (int c = 0; c < 3; c++) {
        a = b = (struct done){{0}};
        run_many(1, cfrac[c], &a);
        run_many(0, cfrac[c], &b);
        double worst = 0.0;
        int all = 1;
        for (int i = 0; i < 500; i++) {
            all = all && a.t[i] > 0.0 && b.t[i] > 0.0;
            double e = fabs(a.t[i] - b.t[i]) / b.t[i];
            worst = e > worst ? e : worst;
        }
        dam_check(all && worst < 1e-9,
                  "500 flows of differing caps (capacity %.2f x their "
                  "sum): fast and general paths agree (worst rel "
                  "diff %.2e)", cfrac[c], worst);
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

/* A burst: 300 flows of random work start at t = 0 and 100 more at
 * t = 0.5 (each from its own event at that instant), a third crossing
 * both links, a third capped; the symmetric ones end together. With
 * coalescing (one recompute per instant) every completion time is the
 * one-recompute-per-change path's; with coalescing and the hand-worked
 * two-link case of test_two_links the times are the same. */
static void run_burst(int coalesce, struct done *d, struct later *lt)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_coalesce(net, coalesce);
    int l1 = dam_link_add(net, 4.0, NULL);
    int l2 = dam_link_add(net, 3.0, NULL);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 99);
    for (uint64_t i = 0; i < 400; i++) {
        /* every fourth flow's work repeats the one before: ends together */
        double work = i % 4 == 3 ? 0.5 : 0.1 + gsl_rng_uniform(r);
        double cap = i % 3 == 1 ? 0.02 + 0.2 * gsl_rng_uniform(r) : 0.0;
        int both[2] = {l1, l2};
        if (i < 300 && i % 3 == 0) {
            int rc = dam_link_flow_start(net, both, 2, work, cap, on_done, d,
                                         dam_des_u(i), NULL, NULL);
            dam_check(rc == 0, "burst flow %llu starts", (unsigned long long)i);
        } else if (i < 300) {
            start(net, i % 2 ? l1 : l2, work, cap, d, i);
        } else {
            lt[i - 300] = (struct later){net, d, i % 2 ? l1 : l2, work, cap,
                                         i};
            dam_des_at(des, 0.5, start_later, &lt[i - 300], dam_des_u(0));
        }
    }
    dam_des_run(des);
    dam_check(dam_link_is_fast(net, l1) && dam_link_is_fast(net, l2),
              "burst (coalesce %d): links end in fast mode", coalesce);
    gsl_rng_free(r);
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_coalesce(void)
{
    static struct done a, b;
    static struct later lt[100];
    run_burst(0, &a, lt);
    run_burst(1, &b, lt);
    int all;
    double worst = worst_rel(&a, &b, 400, &all);
    dam_check(all, "burst of 400 flows: all complete, coalescing or not");
    dam_check(worst < 1e-9,
              "burst of 400 flows: one recompute per instant gives every "
              "completion time of one per change (worst rel diff %.2e)",
              worst);

    /* test_two_links's first case, coalescing: X done at 2, Y at 3, the
     * link-2 flows at 31/3 */
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_coalesce(net, 1);
    struct done d = {{0}};
    int l1 = dam_link_add(net, 1.0, NULL);
    int l2 = dam_link_add(net, 3.0, NULL);
    int both[2] = {l1, l2};
    dam_link_flow_start(net, both, 2, 1.0, 0, on_done, &d, dam_des_u(0), NULL,
                        NULL);
    start(net, l1, 2.0, 0, &d, 1);
    for (uint64_t i = 0; i < 3; i++)
        start(net, l2, 10.0, 0, &d, 2 + i);
    dam_des_run(des);
    dam_check_rel(d.t[0], 2.0, TOL, "coalescing: two-link flow done at 2");
    dam_check_rel(d.t[1], 3.0, TOL, "coalescing: its neighbour done at 3");
    dam_check_rel(d.t[2], 2.0 + 25.0 / 3.0, TOL,
                  "coalescing: link-2 flows done at 31/3");
    /* a net freed with its flush pending (a simulation stopped mid-instant)
     * cancels it: the engine never calls into freed memory */
    dam_link_flow_start(net, both, 2, 1.0, 0, on_done, &d, dam_des_u(0), NULL,
                        NULL);
    dam_link_net_free(net);
    dam_check(dam_des_run(des) == 0, "a freed net's pending flush is cancelled");
    dam_des_free(des);
}

/* 200 long flows of caps 0.01 to 2.00 share a link of half their caps'
 * sum (the level binds), and every second a burst of 30 short uncapped
 * flows lowers the level for a while: each burst moves many capped flows
 * up to the level set and its end moves them back, so both of the mixed
 * mode's finishing heaps fill with stale entries and are rebuilt from
 * their live ones many times. Every completion time agrees with the
 * general path's. */
static void run_swing(int fast, struct done *d)
{
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    dam_link_net_set_fast(net, fast);
    double sum = 0.0;
    for (int i = 0; i < 200; i++)
        sum += 0.01 * (i + 1);
    int link = dam_link_add(net, 0.5 * sum, NULL);
    static struct later lt[500];
    for (int i = 0; i < 200; i++) {
        double cap = 0.01 * (i + 1);
        lt[i] = (struct later){net, d, link, cap * (8.0 + 0.01 * i), cap,
                               (uint64_t)i};
        start_later(des, &lt[i], dam_des_u(0));
    }
    for (int i = 200; i < 500; i++) { /* 10 bursts of 30 */
        int burst = (i - 200) / 30;
        lt[i] = (struct later){net, d, link, 0.05 * sum * (1.0 + 0.001 * i),
                               0.0, (uint64_t)i};
        dam_des_at(des, 1.0 + burst, start_later, &lt[i], dam_des_u(0));
    }
    dam_des_run(des);
    dam_link_net_free(net);
    dam_des_free(des);
}

static void test_swing(void)
{
    static struct done a, b;
    run_swing(1, &a);
    run_swing(0, &b);
    int all;
    double worst = worst_rel(&a, &b, 500, &all);
    dam_check(all && worst < 1e-9,
              "500 flows, the level swinging with bursts: fast and general "
              "paths agree (worst rel diff %.2e)", worst);
}

/* A crowd: 4,000 flows on two links (capacities 4 and 3) arriving in
 * bursts of 300 at once between stretches of single arrivals, a third
 * uncapped, the rest capped alike or apart, 3 % crossing both links
 * (short, so the links leave and re-enter the fast modes often). The
 * finishing heaps take their radix buckets, hold stale entries, rebuild
 * from their live ones and are listed out to the general mode with
 * stale entries among them (counted in a copy of link.c when this test
 * was written: buckets taken 3 times, 3,659 redistributions, 2 rebuilds,
 * 370 stale roots dropped). Every completion time agrees with the general
 * path's. */
enum { CROWD = 4000 };

struct crowd {
    dam_link_net *net;
    gsl_rng *r;
    int next;
    double t[CROWD];
};

static void crowd_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct crowd *c = ctx;
    c->t[arg.u] = dam_des_now(des);
}

static void crowd_arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct crowd *c = ctx;
    gsl_rng *r = c->r;
    double u = gsl_rng_uniform(r), work = 0.5 + gsl_rng_uniform(r);
    double cap = u < 0.3 ? 0.0 : u < 0.6 ? 0.01
                                         : 0.001 + 0.02 * gsl_rng_uniform(r);
    int links[2] = {0, 1}, nl = gsl_rng_uniform(r) < 0.03 ? 2 : 1;
    if (nl == 1 && gsl_rng_uniform(r) < 0.3)
        links[0] = 1;
    if (nl == 2) {
        cap = 0.0;
        work *= 0.05;
    }
    if (dam_link_flow_start(c->net, links, nl, work, cap, crowd_done, c,
                            dam_des_u((uint64_t)c->next), NULL, NULL) != 0)
        dam_check(0, "crowd flow %d did not start", c->next);
    int in_burst = c->next % 1000 != 0 && c->next % 1000 < 300;
    if (++c->next < CROWD)
        dam_des_after(des, in_burst ? 0.0 : 0.002 * gsl_rng_uniform(r),
                      crowd_arrive, c, dam_des_u(0));
}

static void run_crowd(int fast, struct crowd *c)
{
    dam_des *des = dam_des_create();
    c->net = dam_link_net_create(des);
    dam_link_net_set_fast(c->net, fast);
    dam_link_add(c->net, 4.0, NULL);
    dam_link_add(c->net, 3.0, NULL);
    c->r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(c->r, 31337);
    c->next = 0;
    for (int i = 0; i < CROWD; i++)
        c->t[i] = -1.0;
    dam_des_at(des, 0.0, crowd_arrive, c, dam_des_u(0));
    dam_des_run(des);
    gsl_rng_free(c->r);
    dam_link_net_free(c->net);
    dam_des_free(des);
}

static void test_crowd(void)
{
    static struct crowd a, b;
    run_crowd(1, &a);
    run_crowd(0, &b);
    int all = 1;
    double worst = 0.0;
    for (int i = 0; i < CROWD; i++) {
        all = all && a.t[i] > 0.0 && b.t[i] > 0.0;
        double e = fabs(a.t[i] - b.t[i]) / b.t[i];
        worst = e > worst ? e : worst;
    }
    dam_check(all && worst < 1e-9,
              "4000 flows in bursts on two links: fast and general paths "
              "agree (worst rel diff %.2e)", worst);
}

/* Completion order: tags in the order their flows completed. */
struct order {
    int tag[512];
    double t[512];
    int n;
};

static void on_order(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct order *o = ctx;
    o->tag[o->n] = (int)arg.u;
    o->t[o->n++] = dam_des_now(des);
}

/* Flows of one equal-cap link (capacity 1, no caps) in the order the
 * finishing values come out: ties (flows started together with the same
 * work) complete together in start order, and flows started after some
 * have finished with less work than any left (keys below the last one
 * taken out) come first. 400 at once, so the finishing heap takes its
 * radix buckets. Expected: an exact processor-sharing run worked out
 * here, flows with equal remaining work finishing together in start
 * order. */
static void test_finish_order(void)
{
    enum { NA = 400, NB = 11, N = NA + NB, G = NA / 4 };
    double st[N], work[N];
    for (int i = 0; i < NA; i++) { /* four groups of G, interleaved */
        st[i] = 0.0;
        work[i] = 1.0 + (double)(i % 4);
    }
    for (int i = NA; i < N; i++) { /* after the first group: 8 short ones
                                    * tied, 3 tied */
        st[i] = NA + 1.0;
        work[i] = i < NA + 8 ? 0.01 : 0.5;
    }
    dam_des *des = dam_des_create();
    dam_link_net *net = dam_link_net_create(des);
    int link = dam_link_add(net, 1.0, NULL);
    struct order got = {{0}, {0}, 0};
    int links[1] = {link};
    for (int i = 0; i < NA; i++)
        dam_link_flow_start(net, links, 1, work[i], 0.0, on_order, &got,
                            dam_des_u((uint64_t)i), NULL, NULL);
    dam_des_run_until(des, NA + 1.0);
    for (int i = NA; i < N; i++)
        dam_link_flow_start(net, links, 1, work[i], 0.0, on_order, &got,
                            dam_des_u((uint64_t)i), NULL, NULL);
    dam_des_run(des);
    dam_link_net_free(net);
    dam_des_free(des);

    /* the reference: share 1 among the running flows between events */
    struct order want = {{0}, {0}, 0};
    double rem[N], t = 0.0;
    int on[N] = {0}, next = 0;
    for (int i = 0; i < N; i++)
        rem[i] = work[i];
    while (want.n < N) {
        while (next < N && st[next] <= t)
            on[next++] = 1;
        int n = 0;
        double least = HUGE_VAL;
        for (int i = 0; i < N; i++)
            if (on[i]) {
                n++;
                least = rem[i] < least ? rem[i] : least;
            }
        double ts = next < N ? st[next] : HUGE_VAL;
        if (n == 0 || t + least * n > ts) { /* the next start comes first */
            for (int i = 0; i < N; i++)
                if (on[i])
                    rem[i] -= (ts - t) / n;
            t = ts;
            continue;
        }
        t += least * n;
        for (int i = 0; i < N; i++)
            if (on[i] && rem[i] == least) { /* in start order */
                on[i] = 0;
                want.tag[want.n] = i;
                want.t[want.n++] = t;
            }
        for (int i = 0; i < N; i++)
            if (on[i])
                rem[i] -= least;
    }
    int same = got.n == N, at = -1;
    double worst = 0.0;
    for (int j = 0; j < N && same; j++) {
        if (got.tag[j] != want.tag[j] && at < 0)
            at = j;
        double e = fabs(got.t[j] - want.t[j]) / want.t[j];
        worst = e > worst ? e : worst;
    }
    dam_check(same && at < 0,
              "%d flows with ties and late short ones complete in the "
              "order (finishing value, start) (%d completed; first "
              "difference at %d: flow %d, expected %d)", N, got.n, at,
              at >= 0 ? got.tag[at] : -1, at >= 0 ? want.tag[at] : -1);
    dam_check(worst < TOL, "the same flows complete at the expected "
              "times (worst rel diff %.2e)", worst);
    /* and the late short ones were first after the first group */
    dam_check(want.tag[G] == NA && want.tag[G + 7] == NA + 7,
              "the reference puts the late short flows right after the "
              "first group (%d, %d)", want.tag[G], want.tag[G + 7]);
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
    test_mixed_caps(1);
    test_mixed_caps(0);
    test_mixed_midway(1);
    test_mixed_midway(0);
    test_equal_to_mixed(1);
    test_equal_to_mixed(0);
    test_fast_vs_general();
    test_many_caps();
    test_finish_order();
    test_swing();
    test_crowd();
    test_coalesce();
    test_errors();
    return dam_check_done();
}
