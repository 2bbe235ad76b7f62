/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tandem_hand.h: the open tandem line of tandem_model.h written by hand as
 * a single-purpose program, the yardstick the engine is measured against
 * (tests/bench/tandem.c runs both in one process) and checked against the
 * same Jackson value as the engine (tests/unit/test_des_tandem.c).
 *
 * The same model for lambda > 0: Poisson arrivals at lambda into an
 * unbounded queue before 4 loader servers (exponential, mean 1.0); a
 * buffer of 8 before 1 transfer server (mean 0.2), a loader finishing
 * into a full buffer holding its job until a place frees (blocking after
 * service, first blocked first admitted); an unbounded buffer before 1
 * compute server (mean 0.8). Sojourn: arrival to the end of compute.
 *
 * No generality, as one would write it for this model alone: a binary
 * min-heap of 16-byte events (time, who) ordered by time only (ties have
 * probability 0 with continuous draws), per-server job slots instead of
 * payloads, fixed-size rings, xoshiro256+ streams seeded by splitmix64
 * (one per station and one for arrivals, as in the engine's model),
 * exponential draws as -mean log(1 - u) with u of 53 bits.
 *
 * The same logic can also run on the engine's event list instead of its
 * own heap (tandem_hand_run_on_engine: each event a dam_des event with
 * the server in its payload), which splits the engine's cost over the
 * hand-written program into its event list's share and the rest (queues,
 * continuations, stations).
 */
#ifndef DAM_TANDEM_HAND_H
#define DAM_TANDEM_HAND_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solver/des.h"

/* xoshiro256+ (Blackman and Vigna), seeded through splitmix64. */
struct th_rng {
    uint64_t s[4];
};

static inline uint64_t th_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static void th_seed(struct th_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}

static inline double th_uniform(struct th_rng *r)
{
    uint64_t *s = r->s, res = s[0] + s[3], t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = th_rotl(s[3], 45);
    return (double)(res >> 11) * 0x1.0p-53;
}

static inline double th_exp(struct th_rng *r, double mean)
{
    return -mean * log(1.0 - th_uniform(r));
}

/* Who an event is for: the arrival process, or a server. */
enum { TH_ARRIVE = 0, TH_LOADER = 1, TH_TRANSFER = 5, TH_COMPUTE = 6,
       TH_WHO = 7 };

struct th_event {
    double t;
    uint32_t who;
};

/* A power-of-two ring of job arrival times, doubling when full. */
struct th_ring {
    double *a;
    size_t cap, head, n;
};

static inline void th_push(struct th_ring *q, double v)
{
    if (q->n == q->cap) {
        size_t nc = q->cap ? 2 * q->cap : 64;
        double *na = malloc(nc * sizeof *na);
        if (!na)
            abort();
        for (size_t i = 0; i < q->n; i++)
            na[i] = q->a[(q->head + i) & (q->cap - 1)];
        free(q->a);
        q->a = na;
        q->cap = nc;
        q->head = 0;
    }
    q->a[(q->head + q->n++) & (q->cap - 1)] = v;
}

static inline double th_pop(struct th_ring *q)
{
    double v = q->a[q->head];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return v;
}

struct tandem_hand {
    struct th_event heap[TH_WHO + 1]; /* at most one event per who */
    int n;
    double now;
    struct th_rng arr, st[3];
    struct th_ring q[3];      /* before loader, transfer, compute */
    double job[TH_WHO];       /* arrival time of each server's job */
    int busy[TH_WHO];         /* server holds a job (serving or blocked) */
    int blocked[4], nblocked; /* loaders holding a job, FIFO */
    dam_des *des;             /* the engine's event list, or NULL: the
                                 heap above */
    double lambda;
    uint64_t n_jobs, n_arrived, n_done, warmup, events;
    double sum_sojourn, t_end;
};

static void th_on_engine(dam_des *des, void *ctx, dam_des_arg who);

static inline void th_schedule(struct tandem_hand *h, double t, uint32_t who)
{
    if (h->des) {
        dam_des_at(h->des, t, th_on_engine, h, dam_des_u(who));
        return;
    }
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) >> 1;
        if (h->heap[p].t <= t)
            break;
        h->heap[i] = h->heap[p];
        i = p;
    }
    h->heap[i].t = t;
    h->heap[i].who = who;
}

static inline struct th_event th_next(struct tandem_hand *h)
{
    struct th_event top = h->heap[0], last = h->heap[--h->n];
    int i = 0, n = h->n;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h->heap[c + 1].t < h->heap[c].t)
            c++;
        if (h->heap[c].t >= last.t)
            break;
        h->heap[i] = h->heap[c];
        i = c;
    }
    h->heap[i] = last;
    return top;
}

/* Server who (of station s, service mean m) takes job from its queue if
 * one waits. */
static inline void th_fetch(struct tandem_hand *h, uint32_t who, int s,
                            double m)
{
    if (h->q[s].n == 0) {
        h->busy[who] = 0;
        return;
    }
    h->job[who] = th_pop(&h->q[s]);
    h->busy[who] = 1;
    th_schedule(h, h->now + th_exp(&h->st[s], m), who);
}

/* A job enters queue s; an idle server of that station takes it. */
static inline void th_enter(struct tandem_hand *h, int s, double job)
{
    th_push(&h->q[s], job);
    if (s == 0) {
        for (uint32_t k = TH_LOADER; k < TH_LOADER + 4; k++)
            if (!h->busy[k]) {
                th_fetch(h, k, 0, 1.0);
                return;
            }
    } else if (s == 1) {
        if (!h->busy[TH_TRANSFER])
            th_fetch(h, TH_TRANSFER, 1, 0.2);
    } else if (!h->busy[TH_COMPUTE]) {
        th_fetch(h, TH_COMPUTE, 2, 0.8);
    }
}

static void tandem_hand_init(struct tandem_hand *h, uint64_t n,
                             double lambda, uint64_t seed, uint64_t warmup)
{
    memset(h, 0, sizeof *h);
    h->lambda = lambda;
    h->n_jobs = n;
    h->warmup = warmup;
    th_seed(&h->arr, seed * 4);
    for (int i = 0; i < 3; i++)
        th_seed(&h->st[i], seed * 4 + 1 + (uint64_t)i);
}

/* What event who does at now. */
static inline void th_event(struct tandem_hand *h, uint32_t w)
{
    h->events++;
    if (w == TH_ARRIVE) {
        th_enter(h, 0, h->now);
        if (++h->n_arrived < h->n_jobs)
            th_schedule(h, h->now + th_exp(&h->arr, 1.0 / h->lambda),
                        TH_ARRIVE);
    } else if (w < TH_TRANSFER) { /* a loader finished */
        if (h->q[1].n == 8) { /* full: hold the job */
            h->blocked[h->nblocked++] = (int)w;
            return;
        }
        th_enter(h, 1, h->job[w]);
        th_fetch(h, w, 0, 1.0);
    } else if (w == TH_TRANSFER) {
        th_enter(h, 2, h->job[w]);
        th_fetch(h, w, 1, 0.2);
        if (h->nblocked > 0 && h->q[1].n < 8) { /* admit the first */
            uint32_t b = (uint32_t)h->blocked[0];
            memmove(h->blocked, h->blocked + 1,
                    (size_t)--h->nblocked * sizeof h->blocked[0]);
            th_enter(h, 1, h->job[b]);
            th_fetch(h, b, 0, 1.0);
        }
    } else { /* compute finished: the job leaves */
        if (h->n_done++ >= h->warmup)
            h->sum_sojourn += h->now - h->job[w];
        h->t_end = h->now;
        th_fetch(h, w, 2, 0.8);
    }
}

/* Run to the last completion (lambda > 0). */
static void tandem_hand_run(struct tandem_hand *h)
{
    th_schedule(h, 0.0, TH_ARRIVE);
    while (h->n > 0) {
        struct th_event e = th_next(h);
        h->now = e.t;
        th_event(h, e.who);
    }
}

static void th_on_engine(dam_des *des, void *ctx, dam_des_arg who)
{
    struct tandem_hand *h = ctx;
    h->now = dam_des_now(des);
    th_event(h, (uint32_t)who.u);
}

/* The same run with the engine's event list in place of the heap. */
static void tandem_hand_run_on_engine(struct tandem_hand *h)
{
    h->des = dam_des_create();
    th_schedule(h, 0.0, TH_ARRIVE);
    dam_des_run(h->des);
    dam_des_free(h->des);
    h->des = NULL;
}

static double tandem_hand_mean_sojourn(const struct tandem_hand *h)
{
    uint64_t n = h->n_done > h->warmup ? h->n_done - h->warmup : 0;
    return n > 0 ? h->sum_sojourn / (double)n : 0.0;
}

static void tandem_hand_free(struct tandem_hand *h)
{
    for (int i = 0; i < 3; i++)
        free(h->q[i].a);
}

#endif
