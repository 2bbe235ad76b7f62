/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * link.c: max-min fair links (see link.h for the three modes).
 *
 * Storage: flows live in one pool (indices, never pointers, across calls
 * that may grow it; a free list; a generation per slot so stale ids are
 * harmless). In general mode each link keeps an unordered array of its
 * flows' slots (fl; removal swaps with the last entry) and each flow keeps,
 * per link it crosses, its index in that array (pos). The fast modes keep
 * heaps whose entries carry their ordering key and start sequence beside
 * the slot, so ordering reads only the contiguous heap arrays and never
 * the (large, scattered) flow structs. Finishing values (finishing V, or
 * finishing time) sit in radix heaps (struct fheap): they never fall
 * below the last one taken out but for flows that start short, so a flow
 * costs a few sequential copies between buckets instead of a sift through
 * log2 n scattered levels of a binary heap. The equal-cap mode has one,
 * lfin, by (finishing virtual time, seq); its flows' records are not
 * written at all (struct fhot). The mixed-cap mode has four heaps: the
 * level set by (finishing V, seq) and by (cap, seq) least first, the
 * capped set by (finishing time, seq) and by (cap, seq) most first (key
 * -cap, seq complemented, so every heap is least first). All four delete
 * lazily: a flow leaving its set bumps its slot's tag (net->ctag, a
 * compact array), which leaves its two entries there stale; stale entries
 * are dropped when they come to a root, and a heap more than half stale
 * is rebuilt from its live entries (O(n) after n departures). No
 * positions are kept, and a departure costs no sift. The boundary between
 * the sets is a cut in the order (cap, seq).
 *
 * Invariants: an equal-cap fast link holds only single-link flows of cap
 * link->capf; a mixed link only single-link flows, every capped cap <= L
 * <= every level cap (to rounding), with L = (C - sum of capped caps) /
 * (level flows); a flow is in general mode exactly when its links are; a
 * general flow's `work` is its remaining work at t_last, an equal-cap or
 * level flow's `work` is its finishing virtual time, a capped flow's its
 * finishing time; a fast flow's heap entries copy its work, cap and seq,
 * which do not change while it sits in a heap. A link's accounting
 * integrals are brought up to now before its rate changes (account()).
 * The sum of capped caps is kept compensated (Neumaier) and reset to 0
 * when the capped set empties, so it does not drift over millions of
 * events.
 *
 * Determinism: component order follows link and flow-array order, heaps
 * break ties by start sequence, the tightest-link tournament by component
 * order (the first link with the least level, as a scan would find it),
 * and rescheduling happens in that order. Coalescing (one recompute per
 * instant) keeps that order within the flush. Links whose flows share one
 * cap take exactly the path they took before the mixed mode existed.
 */
#include "solver/link.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"

#define NONE UINT32_MAX

/* What a flow's start and completion on an equal-cap link need, apart
 * from the rest of the flow (40 bytes): with many flows a completion's
 * flow is seldom in cache, and this compact array (net->hot) is all the
 * flow memory an equal-cap start or completion touches. Such a flow's
 * struct flow is not written at all while its link stays in the
 * equal-cap mode (its cap is the link's, its work and seq are in its
 * heap entry, it crosses one link): materialize() writes it when the link
 * leaves that mode. */
struct fhot {
    dam_des_fn done;    /* completion callback; NULL when the slot is free */
    void *ctx;          /* its context */
    dam_des_arg arg;    /* its payload */
    double key;         /* equal-cap link: finishing V, units */
    uint32_t gen;       /* slot generation */
    union {
        uint32_t next_free; /* free: free list link */
        int32_t link;       /* running: its (first) link */
    } u;
};

struct flow {
    /* first: what a start and a mixed-mode move touch */
    double work;        /* fast, and mixed level set: finishing V, units;
                         * mixed capped set: finishing time, s;
                         * general: remaining at t_last, units */
    double cap;         /* rate cap, units/s (HUGE_VAL = none) */
    uint64_t seq;       /* start order, tie-break */
    int nlinks;         /* links crossed */
    int capped;         /* mixed: 1 in the capped set, 0 in the level set */
    /* the rest: general mode and progressive filling */
    double rate;        /* general: current rate, units/s */
    double t_last;      /* general: when work was last brought up to date */
    double newrate;     /* progressive filling scratch */
    dam_des_id ev;      /* general: completion event, 0 none */
    uint32_t mark;      /* component search stamp */
    int fixed;          /* progressive filling scratch */
    int link[DAM_LINK_MAXPATH];      /* their indices */
    uint32_t pos[DAM_LINK_MAXPATH];  /* general: index in each link's
                                      * flow array */
};

/* A heap entry: the flow's ordering key beside its slot, so comparisons
 * stay in the heap array. Ordered by (key, seq), least first. */
struct hent {
    double key;         /* finishing V (units) or time (s), or cap
                         * (units/s; negated in a most-first heap) */
    uint64_t seq;       /* start sequence (complemented in a most-first
                         * heap) */
    uint32_t slot;      /* flow slot */
    uint32_t tag;       /* cap heaps: the slot's tag when pushed */
};

/* A binary heap of entries. */
struct heap {
    struct hent *a;     /* entries, heap-ordered */
    size_t n;           /* entries */
    size_t cap;         /* allocated entries of a */
};

/* A heap by (key, seq) for keys that, like finishing times and finishing
 * virtual times, never fall below the last least key taken out (a radix
 * heap): entries with key <= last sit in a binary heap, the front, which
 * holds the least entries; an entry with key > last sits in bucket i, i
 * the highest bit in which key and last differ. Keys are >= 0, so their
 * bit patterns order as their values. When the front empties, the least
 * bucket's least key becomes last and that bucket's entries move to the
 * front (those equal to it) or to lower buckets; an entry moves down at
 * most 64 times over its life, each move a sequential copy, where a
 * binary heap of n entries would sift through log2 n scattered levels at
 * every removal. A key below last (a flow that finishes before the one
 * last taken out) just joins the front, a plain heap. Which entry comes
 * out first is the (key, seq) order, the same as a binary heap's. In a
 * mixed set's heap, entries go stale (see the top of this file): n counts
 * the live ones, held all. */
struct fbucket {
    struct hent *a;
    size_t n, cap;
};

struct fheap {
    struct heap front;      /* entries with key <= last */
    struct fbucket *bk;     /* 64 buckets of entries with key > last, by
                             * highest bit differing from last (NULL
                             * until one is needed: most links never
                             * hold two flows at once) */
    uint64_t mask;          /* bit i set: bk[i] is not empty */
    double last;            /* >= 0; no bucket key is <= last */
    uint64_t lastbits;      /* its bit pattern */
    size_t n;               /* live entries */
    size_t held;            /* entries, live or stale */
    int radix;              /* 0: every entry is in the front (a few) */
};

/* Entries past which a finishing heap takes buckets. Below it a binary
 * heap runs as fast and in fewer instructions (a few levels, in cache):
 * the 1,024-GPU flagship's CPU pools hold 64 to 255 flows, and with
 * buckets from 64 on its run took 1.6 % more instructions (cachegrind),
 * from 256 on none more than with none. */
#define FH_RADIX 256

struct link {
    double C;           /* capacity, units/s */
    int fast;           /* 1: virtual-time mode (equal or mixed caps) */
    int mixed;          /* fast with caps that differ: the two-set mode */
    uint32_t *fl;       /* general: flow slots on the link, unordered */
    size_t n;           /* flows on the link */
    size_t fl_cap;      /* allocated entries of fl */
    double capf;        /* fast: the common cap of its flows */
    double V;           /* fast: service per flow so far, units */
    double tV;          /* fast: time V refers to, s */
    double r;           /* fast: rate of each (mixed: each level) flow,
                         * units/s */
    dam_des_id ev;      /* fast: next completion event, 0 none */
    int evk;            /* mixed: 1 when ev completes a capped flow */
    struct fheap lfin;  /* equal caps: all flows, mixed: level flows, by
                         * (finishing V, seq) */
    struct heap lcap;   /* mixed: level flows by (cap, seq), least first */
    struct fheap kfin;  /* mixed: capped flows by (finishing time, seq) */
    struct heap kcap;   /* mixed: capped flows by (cap, seq), most first */
    double ks, kc;      /* mixed: sum of the capped flows' caps, units/s,
                         * as a Neumaier sum and its compensation */
    double used;        /* units/s in use now */
    double t_acc;       /* integrals are up to this time, s */
    double busy;        /* integral of used/C, s */
    double active;      /* time with n > 0, s */
    double delivered;   /* integral of used, units */
    int pending;        /* 1: in net->pend */
    uint32_t ch;        /* progressive filling: index in the component
                         * arrays (net->cR, cnu, clev) */
    uint32_t mark;      /* component search stamp */
};

struct dam_link_net {
    dam_des *des;
    struct link *links;
    int nlinks;
    size_t links_cap;
    struct flow *flows;     /* flow pool */
    struct fhot *hot;       /* each slot's callback and generation */
    size_t nflows, flows_cap;
    uint32_t *ctag;         /* mixed: each slot's tag, bumped when its
                             * flow leaves its set (its entries there are
                             * then stale) */
    uint32_t free_head;     /* first free flow slot */
    uint64_t seq;           /* next start sequence */
    uint32_t stamp;         /* component search stamp */
    int fast_enabled;       /* 0: general path only */
    int coalesce;           /* 1: one recompute per instant (flush) */
    dam_des_id flush_ev;    /* the pending flush event, 0 none */
    int *pend;              /* links whose component awaits the flush */
    size_t npend, pend_cap;
    int *cl;                /* scratch: component links */
    size_t cl_cap;
    uint32_t *cf;           /* scratch: component flows */
    size_t cf_cap;
    /* progressive filling scratch, per component link (index ch): the
     * capacity left, the unfixed flows and their fair level (R / nu,
     * HUGE_VAL when none is left, and past the component's links), and a
     * tournament tree over the levels: ctree[1] is the index of the least
     * level, the first in component order among equals; node i's children
     * are 2i and 2i + 1, leaf h is node cleaves + h */
    double *cR;
    size_t *cnu;
    double *clev;
    uint32_t *ctree;
    size_t cleaves;
    uint32_t *cdirty;   /* leaves whose level changed since the tree was
                         * last brought up to date */
    size_t ndirty;
    unsigned char *cflag; /* 1: leaf is in cdirty */
    size_t cc_cap;
    struct heap keys;       /* scratch: component flows by (cap, seq) */
    struct hent *flat;      /* scratch: a finishing heap's entries */
    size_t flat_cap;
};

static void fast_done(dam_des *des, void *ctx, dam_des_arg arg);
static void gen_done(dam_des *des, void *ctx, dam_des_arg arg);
static void mixed_done(dam_des *des, dam_link_net *net, int li);

/* ---- accounting ---------------------------------------------------- */

static void account(dam_link_net *net, struct link *l)
{
    double now = dam_des_now(net->des), dt = now - l->t_acc;
    if (dt > 0.0) {
        if (l->C > 0.0)
            l->busy += l->used / l->C * dt;
        l->delivered += l->used * dt;
        if (l->n > 0)
            l->active += dt;
        l->t_acc = now;
    }
}

/* ---- flow pool ------------------------------------------------------ */

static uint32_t flow_take(dam_link_net *net)
{
    uint32_t k = net->free_head;
    if (k != NONE) {
        net->free_head = net->hot[k].u.next_free;
        return k;
    }
    if (net->nflows == net->flows_cap) {
        net->flows = dam_grow(net->flows, sizeof *net->flows,
                              net->nflows + 1, &net->flows_cap);
        net->hot = dam_realloc(net->hot, net->flows_cap * sizeof *net->hot);
        net->ctag = dam_realloc(net->ctag,
                                net->flows_cap * sizeof *net->ctag);
    }
    k = (uint32_t)net->nflows++;
    net->hot[k].gen = 1;
    net->flows[k].mark = 0;
    net->ctag[k] = 0;
    return k;
}

static void flow_release(dam_link_net *net, uint32_t k)
{
    struct fhot *f = &net->hot[k];
    f->done = NULL;
    if (++f->gen == 0)
        f->gen = 1;
    f->u.next_free = net->free_head;
    net->free_head = k;
}

static const struct flow *flow_lookup(const dam_link_net *net,
                                      dam_link_flow id)
{
    uint32_t k = (uint32_t)(id & 0xffffffffu);
    if (id == 0 || k >= net->nflows)
        return NULL;
    const struct fhot *h = &net->hot[k];
    if (h->done == NULL || h->gen != (uint32_t)(id >> 32))
        return NULL;
    return &net->flows[k];
}

static void fl_push(struct link *l, uint32_t k)
{
    if (l->n == l->fl_cap)
        l->fl = dam_grow(l->fl, sizeof *l->fl, l->n + 1, &l->fl_cap);
    l->fl[l->n++] = k;
}

/* ---- heaps of entries by (key, seq), least first ---------------------- */

static inline int hless(const struct hent *a, const struct hent *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

/* Entries of flow k: by finishing value (work), by cap least first, by
 * cap most first. */
static inline struct hent fin_ent(const struct flow *f, uint32_t k,
                                  uint32_t tag)
{
    return (struct hent){f->work, f->seq, k, tag};
}

static inline struct hent cmin_ent(const struct flow *f, uint32_t k,
                                   uint32_t tag)
{
    return (struct hent){f->cap, f->seq, k, tag};
}

static inline struct hent cmax_ent(const struct flow *f, uint32_t k,
                                   uint32_t tag)
{
    return (struct hent){-f->cap, ~f->seq, k, tag};
}

static inline void heap_up(struct heap *h, size_t i, struct hent e)
{
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (!hless(&e, &h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = e;
}

static inline void heap_down(struct heap *h, size_t i, struct hent e)
{
    size_t n = h->n;
    struct hent *a = h->a;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        /* the grandchildren (4 entries, 96 bytes) load while this level
         * compares: below the cached top levels of a large heap every
         * level is a cache miss */
        if (4 * i + 3 < n) {
            __builtin_prefetch(&a[4 * i + 3]);
            __builtin_prefetch(&a[4 * i + 6]);
        }
        if (c + 1 < n && hless(&a[c + 1], &a[c]))
            c++;
        if (!hless(&a[c], &e))
            break;
        a[i] = a[c];
        i = c;
    }
    a[i] = e;
}

static inline void heap_push(struct heap *h, struct hent e)
{
    if (h->n == h->cap)
        h->a = dam_grow(h->a, sizeof *h->a, h->n + 1, &h->cap);
    h->n++;
    heap_up(h, h->n - 1, e);
}

/* Remove the entry at index i. */
static inline void heap_remove(struct heap *h, size_t i)
{
    struct hent last = h->a[--h->n];
    if (i == h->n)
        return;
    if (i > 0 && hless(&last, &h->a[(i - 1) >> 1]))
        heap_up(h, i, last);
    else
        heap_down(h, i, last);
}

/* Order h->a[0..n-1] into a heap, O(n). */
static void heapify(struct heap *h)
{
    for (size_t i = h->n / 2; i-- > 0;)
        heap_down(h, i, h->a[i]);
}

static void heap_reserve(struct heap *h, size_t need)
{
    if (h->cap < need)
        h->a = dam_grow(h->a, sizeof *h->a, need, &h->cap);
}

/* ---- cap heaps: lazy deletion ---------------------------------------- */

/* 1 while e is its flow's entry: every way out of a cap heap bumps the
 * slot's tag, and a flow enters with its slot's tag as it stands, so a
 * later flow in the slot never revives an old entry. */
static inline int cap_live(const dam_link_net *net, const struct hent *e)
{
    return net->ctag[e->slot] == e->tag;
}

/* Drop stale entries at the root of a cap heap. */
static inline void cap_clean(const dam_link_net *net, struct heap *h)
{
    while (h->n > 0 && !cap_live(net, &h->a[0]))
        heap_remove(h, 0);
}

/* The flow in slot k leaves its cap heap h (live: the flows left in its
 * set): its entry goes stale; past half stale the heap is rebuilt. */
static void cap_leave(dam_link_net *net, struct heap *h, uint32_t k,
                      size_t live)
{
    net->ctag[k]++;
    if (h->n <= 2 * live + 64)
        return;
    size_t j = 0;
    for (size_t i = 0; i < h->n; i++)
        if (cap_live(net, &h->a[i]))
            h->a[j++] = h->a[i];
    h->n = j;
    heapify(h);
}

/* ---- finishing heaps: a front heap and radix buckets ------------------ */

static inline uint64_t fh_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline void fh_setlast(struct fheap *h, double last)
{
    h->last = last;
    h->lastbits = fh_bits(last);
}

/* Place e: the front when its key is <= last, else bucket i, i the highest
 * bit in which key and last differ (both >= +0, so their bit patterns
 * order as their values). */
static inline void fh_place(struct fheap *h, struct hent e)
{
    if (!h->radix || !(e.key > h->last)) {
        heap_push(&h->front, e);
        return;
    }
    int i = 63 - __builtin_clzll(fh_bits(e.key) ^ h->lastbits);
    if (h->bk == NULL)
        h->bk = dam_calloc(64, sizeof *h->bk);
    struct fbucket *b = &h->bk[i];
    if (b->n == b->cap)
        b->a = dam_grow(b->a, sizeof *b->a, b->n + 1, &b->cap);
    b->a[b->n++] = e;
    h->mask |= (uint64_t)1 << i;
}

static void fh_clear(struct fheap *h)
{
    h->front.n = 0;
    for (uint64_t m = h->mask; m != 0; m &= m - 1)
        h->bk[__builtin_ctzll(m)].n = 0;
    h->mask = 0;
    h->n = h->held = 0;
    h->radix = 0;
    fh_setlast(h, 0.0);
}

/* The front holds FH_RADIX entries: take buckets. The least key becomes
 * last and every other entry moves to its bucket. */
static void fh_take_buckets(struct fheap *h)
{
    struct heap all = h->front;
    double least = all.a[0].key;
    h->front = (struct heap){NULL, 0, 0};
    h->radix = 1;
    fh_setlast(h, least > 0.0 ? least : 0.0);
    for (size_t i = 0; i < all.n; i++)
        fh_place(h, all.a[i]);
    dam_free(all.a);
}

static inline void fh_push(struct fheap *h, struct hent e)
{
    h->n++;
    h->held++;
    fh_place(h, e);
    if (!h->radix && h->held >= FH_RADIX)
        fh_take_buckets(h);
}

/* The front is empty: move the least bucket's least key up to last and
 * share that bucket's entries out: the ones at last to the front, the
 * rest to lower buckets (every key in the bucket agrees with the new last
 * above the bucket's bit, and no other bucket changes). */
static void fh_redistribute(struct fheap *h)
{
    int i = __builtin_ctzll(h->mask);
    struct fbucket *b = &h->bk[i];
    size_t m = 0;
    for (size_t j = 1; j < b->n; j++)
        if (hless(&b->a[j], &b->a[m]))
            m = j;
    fh_setlast(h, b->a[m].key);
    size_t n = b->n;
    b->n = 0;
    h->mask &= ~((uint64_t)1 << i);
    for (size_t j = 0; j < n; j++)
        fh_place(h, b->a[j]);
}

static inline void fh_settle(struct fheap *h)
{
    if (h->front.n == 0 && h->mask != 0)
        fh_redistribute(h);
}

/* The least entry by (key, seq) of a heap without stale entries (the
 * equal-cap mode's); the heap is not empty. */
static inline const struct hent *fh_top(struct fheap *h)
{
    fh_settle(h);
    return &h->front.a[0];
}

/* The least live entry of a mixed set's heap (n > 0): stale entries that
 * come to the top are dropped. */
static inline const struct hent *fh_top_live(const dam_link_net *net,
                                             struct fheap *h)
{
    for (;;) {
        fh_settle(h);
        if (cap_live(net, &h->front.a[0]))
            return &h->front.a[0];
        heap_remove(&h->front, 0);
        h->held--;
    }
}

/* Remove the top entry (live: fh_top or fh_top_live just returned it). */
static inline void fh_pop(struct fheap *h)
{
    heap_remove(&h->front, 0);
    h->held--;
    if (--h->n == 0) /* what is left is stale */
        fh_clear(h);
}

/* The heap's live entries (all when net is NULL) in storage order (the
 * front, then the buckets from the least) into net->flat; returns how
 * many. */
static size_t fh_flatten(dam_link_net *net, const struct fheap *h, int live)
{
    if (net->flat_cap < h->held)
        net->flat = dam_grow(net->flat, sizeof *net->flat, h->held,
                             &net->flat_cap);
    size_t j = 0;
    for (size_t i = 0; i < h->front.n; i++)
        if (!live || cap_live(net, &h->front.a[i]))
            net->flat[j++] = h->front.a[i];
    for (uint64_t m = h->mask; m != 0; m &= m - 1) {
        const struct fbucket *b = &h->bk[__builtin_ctzll(m)];
        for (size_t i = 0; i < b->n; i++)
            if (!live || cap_live(net, &b->a[i]))
                net->flat[j++] = b->a[i];
    }
    return j;
}

/* The live flow in slot k leaves its mixed set, whose finishing heap is
 * h: its entry there (and in the set's cap heap) goes stale with the
 * slot's tag; past half stale, h keeps only its live entries. */
static void fh_leave(dam_link_net *net, struct fheap *h, uint32_t k)
{
    net->ctag[k]++;
    if (--h->n == 0) {
        fh_clear(h);
        return;
    }
    if (h->held <= 2 * h->n + 64)
        return;
    size_t n = fh_flatten(net, h, 1);
    fh_clear(h);
    for (size_t i = 0; i < n; i++)
        fh_push(h, net->flat[i]);
}

/* The entries of an equal-cap heap join a mixed set: each takes its
 * slot's tag. */
static void fh_retag(const dam_link_net *net, struct fheap *h)
{
    for (size_t i = 0; i < h->front.n; i++)
        h->front.a[i].tag = net->ctag[h->front.a[i].slot];
    for (uint64_t m = h->mask; m != 0; m &= m - 1) {
        struct fbucket *b = &h->bk[__builtin_ctzll(m)];
        for (size_t i = 0; i < b->n; i++)
            b->a[i].tag = net->ctag[b->a[i].slot];
    }
}

static void fh_free(struct fheap *h)
{
    dam_free(h->front.a);
    if (h->bk != NULL)
        for (int i = 0; i < 64; i++)
            dam_free(h->bk[i].a);
    dam_free(h->bk);
}

/* ---- fast mode, equal caps: lfin by (finishing V, seq), no positions -- */

/* Bring V up to now. */
static inline void fast_advance(dam_link_net *net, struct link *l)
{
    double now = dam_des_now(net->des);
    if (l->n > 0)
        l->V += l->r * (now - l->tV);
    l->tV = now;
}

/* Per-flow rate and total use after n changed. */
static inline void fast_rate(struct link *l)
{
    if (l->n == 0) {
        l->r = 0.0;
        l->used = 0.0;
        l->V = 0.0; /* rebase: keeps V small, so precision stays relative */
        return;
    }
    double share = l->C / (double)l->n;
    l->r = l->capf < share ? l->capf : share;
    l->used = l->r * (double)l->n;
}

/* The flow that completes next (slot k): its record, and in the mixed
 * mode its index in its cap heap, are fetched when its completion is
 * scheduled, not when it runs (with many flows they are rarely in cache
 * by then). */
static inline void prefetch_flow(const dam_link_net *net, uint32_t k)
{
    __builtin_prefetch(&net->hot[k], 1);
    __builtin_prefetch((const char *)&net->hot[k] + sizeof net->hot[k] - 1,
                       1);
}

/* What a mixed completion of flow k reads (its hot record, its cap and
 * set, its tag, which it bumps) and the start that takes the slot writes
 * (the first line of its record). */
static inline void prefetch_mixed(const dam_link_net *net, uint32_t k)
{
    prefetch_flow(net, k);
    __builtin_prefetch(&net->flows[k], 1);
    __builtin_prefetch(&net->ctag[k], 1);
}

/* The least bucket of a finishing heap holds the flows that finish next
 * after its root: the first few are fetched too, a completion or more
 * before they are needed (bench/links: the growth from 1,000 to 100,000
 * flows fell from about 2.0x to 1.75x with this for mixed caps). */
static inline void prefetch_next(const dam_link_net *net,
                                 const struct fheap *h, int mixed)
{
    if (h->mask == 0)
        return;
    const struct fbucket *b = &h->bk[__builtin_ctzll(h->mask)];
    for (size_t j = 0; j < b->n && j < (mixed ? 2u : 4u); j++) {
        if (mixed)
            prefetch_mixed(net, b->a[j].slot);
        else
            prefetch_flow(net, b->a[j].slot);
    }
}

/* (Re)schedule the link's completion event for the heap's root. */
static void fast_schedule(dam_link_net *net, struct link *l, int li)
{
    if (l->n == 0 || !(l->r > 0.0)) {
        if (l->ev != 0)
            dam_des_cancel(net->des, l->ev);
        l->ev = 0;
        return;
    }
    const struct hent *top = fh_top(&l->lfin);
    double dv = top->key - l->V;
    double t = dam_des_now(net->des) + (dv > 0.0 ? dv / l->r : 0.0);
    prefetch_flow(net, top->slot);
    prefetch_next(net, &l->lfin, 0);
    if (l->ev == 0 || !dam_des_reschedule(net->des, l->ev, t))
        l->ev = dam_des_at(net->des, t, fast_done, net, dam_des_u((uint64_t)li));
}

static void fast_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    dam_link_net *net = ctx;
    int li = (int)arg.u;
    struct link *l = &net->links[li];
    if (l->mixed) {
        mixed_done(des, net, li);
        return;
    }
    l->ev = 0;
    account(net, l);
    fast_advance(net, l);
    uint32_t k = fh_top(&l->lfin)->slot;
    fh_pop(&l->lfin);
    l->n--;
    fast_rate(l);
    fast_schedule(net, l, li);
    struct fhot h = net->hot[k];
    flow_release(net, k);
    h.done(des, h.ctx, h.arg);
}

/* ---- mixed mode: single-link flows with caps that differ -------------- */

/* Add x to the capped caps' sum (Neumaier: the compensation keeps the sum
 * exact to rounding after millions of additions and removals). */
static void ksum_add(struct link *l, double x)
{
    double t = l->ks + x;
    if (fabs(l->ks) >= fabs(x))
        l->kc += (l->ks - t) + x;
    else
        l->kc += (x - t) + l->ks;
    l->ks = t;
}

static inline double ksum(const struct link *l)
{
    return l->ks + l->kc;
}

/* The fair level L = (C - sum of capped caps) / (level flows); with no
 * level flow, +inf when the capped flows fit and -inf when they do not. */
static double mixed_level(const struct link *l)
{
    double s = ksum(l);
    if (l->lfin.n == 0)
        return s <= l->C ? HUGE_VAL : -HUGE_VAL;
    return (l->C - s) / (double)l->lfin.n;
}

/* Bring the level clock V up to now. */
static inline void mixed_advance(dam_link_net *net, struct link *l)
{
    double now = dam_des_now(net->des);
    if (l->lfin.n > 0)
        l->V += l->r * (now - l->tV);
    l->tV = now;
}

/* The least-cap level flow joins the capped set (V is up to date). */
static void move_down(dam_link_net *net, struct link *l, double now)
{
    uint32_t k = l->lcap.a[0].slot; /* live: mixed_balance cleaned it */
    struct flow *f = &net->flows[k];
    heap_remove(&l->lcap, 0);
    fh_leave(net, &l->lfin, k);
    double rem = f->work - l->V;
    f->work = now + (rem > 0.0 ? rem : 0.0) / f->cap;
    f->capped = 1;
    fh_push(&l->kfin, fin_ent(f, k, net->ctag[k]));
    heap_push(&l->kcap, cmax_ent(f, k, net->ctag[k]));
    ksum_add(l, f->cap);
}

/* The greatest-cap capped flow joins the level set (V is up to date). */
static void move_up(dam_link_net *net, struct link *l, double now)
{
    uint32_t k = l->kcap.a[0].slot; /* live: mixed_balance cleaned it */
    struct flow *f = &net->flows[k];
    heap_remove(&l->kcap, 0);
    fh_leave(net, &l->kfin, k);
    ksum_add(l, -f->cap);
    if (l->kfin.n == 0)
        l->ks = l->kc = 0.0;
    if (l->lfin.n == 0)
        l->V = 0.0; /* rebase while no flow reads V */
    double rem = (f->work - now) * f->cap;
    f->work = l->V + (rem > 0.0 ? rem : 0.0);
    f->capped = 0;
    fh_push(&l->lfin, fin_ent(f, k, net->ctag[k]));
    heap_push(&l->lcap, cmin_ent(f, k, net->ctag[k]));
}

/* Move flows across the boundary until every capped cap is <= L <= every
 * level cap, then set the level rate and the link's use. Each move raises
 * L, and L never passes the true level (sum min(c_i, L) = C); after one
 * arrival only moves up are needed, after one departure (or from all
 * flows in the level set) only moves down, so the first direction taken
 * is kept: that also stops any cycle that rounding near c == L could
 * cause. The cap heaps' roots hold the caps (negated in kcap). */
static void mixed_balance(dam_link_net *net, struct link *l)
{
    double now = dam_des_now(net->des);
    int dir = 0;
    for (;;) {
        double L = mixed_level(l);
        cap_clean(net, &l->lcap);
        cap_clean(net, &l->kcap);
        if (dir <= 0 && l->lcap.n > 0 && l->lcap.a[0].key < L) {
            move_down(net, l, now);
            dir = -1;
        } else if (dir >= 0 && l->kcap.n > 0 && -l->kcap.a[0].key > L) {
            move_up(net, l, now);
            dir = 1;
        } else {
            break;
        }
    }
    double s = ksum(l);
    if (l->lfin.n == 0) {
        l->r = 0.0;
        l->V = 0.0;
        l->used = s;
        return;
    }
    double L = (l->C - s) / (double)l->lfin.n;
    l->r = L > 0.0 ? L : 0.0;
    l->used = L > 0.0 ? l->C : s;
}

/* (Re)schedule the link's one completion event: the earlier of the first
 * level flow to reach its finishing V and the first capped flow's
 * finishing time (a capped flow first on a tie). */
static void mixed_schedule(dam_link_net *net, struct link *l, int li)
{
    double now = dam_des_now(net->des), t = HUGE_VAL;
    int evk = 0;
    uint32_t k = NONE;
    if (l->lfin.n > 0 && l->r > 0.0) {
        const struct hent *top = fh_top_live(net, &l->lfin);
        double dv = top->key - l->V;
        t = now + (dv > 0.0 ? dv / l->r : 0.0);
        k = top->slot;
    }
    if (l->kfin.n > 0) {
        const struct hent *top = fh_top_live(net, &l->kfin);
        if (top->key <= t) {
            t = top->key;
            evk = 1;
            k = top->slot;
        }
    }
    if (t == HUGE_VAL) {
        if (l->ev != 0)
            dam_des_cancel(net->des, l->ev);
        l->ev = 0;
        return;
    }
    l->evk = evk;
    prefetch_mixed(net, k);
    prefetch_next(net, evk ? &l->kfin : &l->lfin, 1);
    if (l->ev == 0 || !dam_des_reschedule(net->des, l->ev, t))
        l->ev = dam_des_at(net->des, t, fast_done, net,
                           dam_des_u((uint64_t)li));
}

/* Empty mixed state; the link keeps its heaps' memory. */
static void mixed_clear(struct link *l)
{
    l->mixed = 0;
    fh_clear(&l->lfin);
    fh_clear(&l->kfin);
    l->lcap.n = l->kcap.n = 0;
    l->ks = l->kc = 0.0;
}

/* A flow of the link's completion event is done: returns its slot. */
static uint32_t mixed_pop(dam_link_net *net, struct link *l)
{
    uint32_t k;
    if (l->evk) {
        k = fh_top_live(net, &l->kfin)->slot;
        fh_pop(&l->kfin);
        cap_leave(net, &l->kcap, k, l->kfin.n);
        ksum_add(l, -net->flows[k].cap);
        if (l->kfin.n == 0)
            l->ks = l->kc = 0.0;
    } else {
        k = fh_top_live(net, &l->lfin)->slot;
        fh_pop(&l->lfin);
        cap_leave(net, &l->lcap, k, l->lfin.n);
    }
    l->n--;
    return k;
}

/* Add single-link flow k with work units to mixed link li, now. */
static void mixed_start(dam_link_net *net, int li, uint32_t k, double work)
{
    struct link *l = &net->links[li];
    struct flow *f = &net->flows[k];
    double now = dam_des_now(net->des);
    account(net, l);
    mixed_advance(net, l);
    if (f->cap < HUGE_VAL && f->cap <= mixed_level(l)) {
        f->capped = 1;
        f->work = now + work / f->cap;
        fh_push(&l->kfin, fin_ent(f, k, net->ctag[k]));
        heap_push(&l->kcap, cmax_ent(f, k, net->ctag[k]));
        ksum_add(l, f->cap);
    } else {
        if (l->lfin.n == 0)
            l->V = 0.0;
        f->capped = 0;
        f->work = l->V + work;
        fh_push(&l->lfin, fin_ent(f, k, net->ctag[k]));
        heap_push(&l->lcap, cmin_ent(f, k, net->ctag[k]));
    }
    l->n++;
    mixed_balance(net, l);
    mixed_schedule(net, l, li);
}

/* An equal-cap link leaves that mode: its flows' records are written from
 * their heap entries and the link (see struct fhot). */
static void materialize(dam_link_net *net, struct link *l)
{
    int li = (int)(l - net->links);
    size_t n = fh_flatten(net, &l->lfin, 0);
    for (size_t i = 0; i < n; i++) {
        struct flow *f = &net->flows[net->flat[i].slot];
        f->work = net->flat[i].key;
        f->seq = net->flat[i].seq;
        f->cap = l->capf;
        f->ev = 0;
        f->nlinks = 1;
        f->link[0] = li;
        f->capped = 0;
    }
}

/* Equal-cap fast link -> mixed: its heap by finishing V becomes the level
 * set as it stands (V kept; positions noted now), the cap heap is built
 * from it, then the boundary settles. O(n + moves). */
static void to_mixed(dam_link_net *net, struct link *l, int li)
{
    struct flow *fs = net->flows;
    account(net, l);
    fast_advance(net, l);
    materialize(net, l);
    fh_clear(&l->kfin);
    l->lcap.n = l->kcap.n = 0;
    l->ks = l->kc = 0.0;
    heap_reserve(&l->lcap, l->n);
    size_t n = fh_flatten(net, &l->lfin, 0);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = net->flat[i].slot;
        fs[k].capped = 0;
        l->lcap.a[i] = cmin_ent(&fs[k], k, net->ctag[k]);
    }
    l->lcap.n = n;
    fh_retag(net, &l->lfin);
    heapify(&l->lcap);
    l->mixed = 1;
    mixed_balance(net, l);
    mixed_schedule(net, l, li);
}

static void mixed_done(dam_des *des, dam_link_net *net, int li)
{
    struct link *l = &net->links[li];
    l->ev = 0;
    account(net, l);
    mixed_advance(net, l);
    uint32_t k = mixed_pop(net, l);
    if (l->n == 0) {
        mixed_clear(l); /* back to the equal-cap mode */
        l->r = l->used = l->V = 0.0;
    } else {
        mixed_balance(net, l);
        mixed_schedule(net, l, li);
    }
    struct fhot h = net->hot[k];
    flow_release(net, k);
    h.done(des, h.ctx, h.arg);
}

/* ---- general mode: progressive filling over a component --------------- */

/* Mixed link -> general: every flow's remaining work and rate now, in
 * the link's unordered array. */
static void mixed_to_general(dam_link_net *net, struct link *l)
{
    double now = dam_des_now(net->des);
    size_t i = 0;
    mixed_advance(net, l);
    if (l->fl_cap < l->n)
        l->fl = dam_grow(l->fl, sizeof *l->fl, l->n, &l->fl_cap);
    size_t n = fh_flatten(net, &l->lfin, 1);
    for (size_t j = 0; j < n; j++, i++) {
        struct flow *f = &net->flows[net->flat[j].slot];
        double rem = f->work - l->V;
        f->work = rem > 0.0 ? rem : 0.0;
        f->rate = l->r;
        l->fl[i] = net->flat[j].slot;
    }
    n = fh_flatten(net, &l->kfin, 1);
    for (size_t j = 0; j < n; j++, i++) {
        struct flow *f = &net->flows[net->flat[j].slot];
        double rem = (f->work - now) * f->cap;
        f->work = rem > 0.0 ? rem : 0.0;
        f->rate = f->cap;
        l->fl[i] = net->flat[j].slot;
    }
    for (i = 0; i < l->n; i++) {
        struct flow *f = &net->flows[l->fl[i]];
        f->t_last = now;
        f->ev = 0;
        f->pos[0] = (uint32_t)i;
    }
    mixed_clear(l);
    l->V = 0.0;
}

static void to_general(dam_link_net *net, struct link *l)
{
    double now = dam_des_now(net->des);
    account(net, l);
    if (l->mixed) {
        mixed_to_general(net, l);
        if (l->ev != 0)
            dam_des_cancel(net->des, l->ev);
        l->ev = 0;
        l->fast = 0;
        return;
    }
    fast_advance(net, l);
    if (l->fl_cap < l->n)
        l->fl = dam_grow(l->fl, sizeof *l->fl, l->n, &l->fl_cap);
    materialize(net, l); /* leaves the entries in net->flat */
    for (size_t i = 0; i < l->n; i++) {
        uint32_t k = net->flat[i].slot;
        struct flow *f = &net->flows[k];
        double rem = f->work - l->V;
        f->work = rem > 0.0 ? rem : 0.0;
        f->rate = l->r;
        f->t_last = now;
        f->ev = 0;
        f->pos[0] = (uint32_t)i;
        l->fl[i] = k;
    }
    fh_clear(&l->lfin);
    if (l->ev != 0)
        dam_des_cancel(net->des, l->ev);
    l->ev = 0;
    l->fast = 0;
}

/* General -> mixed: every flow joins the level set with V = 0, then the
 * boundary settles. */
static void general_to_mixed(dam_link_net *net, struct link *l, int li)
{
    struct flow *fs = net->flows;
    double now = dam_des_now(net->des);
    account(net, l);
    mixed_clear(l);
    l->fast = 1;
    l->mixed = 1;
    l->V = 0.0;
    l->tV = now;
    heap_reserve(&l->lcap, l->n);
    for (size_t i = 0; i < l->n; i++) {
        uint32_t k = l->fl[i];
        struct flow *f = &fs[k];
        double rem = f->work - f->rate * (now - f->t_last);
        f->work = rem > 0.0 ? rem : 0.0; /* finishing V, with V = 0 now */
        if (f->ev != 0)
            dam_des_cancel(net->des, f->ev);
        f->ev = 0;
        f->capped = 0;
        fh_push(&l->lfin, fin_ent(f, k, net->ctag[k]));
        l->lcap.a[i] = cmin_ent(f, k, net->ctag[k]);
    }
    l->lcap.n = l->n;
    heapify(&l->lcap);
    mixed_balance(net, l);
    mixed_schedule(net, l, li);
}

/* Back to a fast mode when every flow is single-link: the equal-cap mode
 * when they share one cap, the mixed mode otherwise. */
static void maybe_fast(dam_link_net *net, struct link *l, int li)
{
    if (!net->fast_enabled || l->fast)
        return;
    double capf = l->n > 0 ? net->flows[l->fl[0]].cap : HUGE_VAL;
    int equal = 1;
    for (size_t i = 0; i < l->n; i++) {
        const struct flow *f = &net->flows[l->fl[i]];
        if (f->nlinks != 1)
            return;
        equal = equal && f->cap == capf;
    }
    if (!equal) {
        general_to_mixed(net, l, li);
        return;
    }
    double now = dam_des_now(net->des);
    account(net, l);
    l->fast = 1;
    l->capf = capf;
    l->V = 0.0;
    l->tV = now;
    fh_clear(&l->lfin);
    for (size_t i = 0; i < l->n; i++) {
        uint32_t k = l->fl[i];
        struct flow *f = &net->flows[k];
        double rem = f->work - f->rate * (now - f->t_last);
        f->work = rem > 0.0 ? rem : 0.0; /* finishing V, with V = 0 now */
        if (f->ev != 0)
            dam_des_cancel(net->des, f->ev);
        f->ev = 0;
        net->hot[k].key = f->work;
        fh_push(&l->lfin, fin_ent(f, k, 0));
    }
    fast_rate(l);
    fast_schedule(net, l, li);
}

/* A component link's fair level: what each unfixed flow would get. */
static inline double level(double R, size_t nu)
{
    return nu > 0 ? (R > 0.0 ? R : 0.0) / (double)nu : HUGE_VAL;
}

/* The tournament's winner of two indices: the lesser level, the left
 * (earlier) one among equals. */
static inline uint32_t tpick(const double *lev, uint32_t a, uint32_t b)
{
    return lev[b] < lev[a] ? b : a;
}

/* Replay the matches above every leaf whose level changed, up to the
 * root. */
static void tree_update(dam_link_net *net)
{
    uint32_t *t = net->ctree;
    const double *lev = net->clev;
    for (size_t d = 0; d < net->ndirty; d++) {
        uint32_t h = net->cdirty[d];
        net->cflag[h] = 0;
        for (size_t i = (net->cleaves + h) >> 1; i >= 1; i >>= 1)
            t[i] = tpick(lev, t[2 * i], t[2 * i + 1]);
    }
    net->ndirty = 0;
}

static void fix_flow(dam_link_net *net, struct flow *f, double x)
{
    f->newrate = x;
    f->fixed = 1;
    for (int j = 0; j < f->nlinks; j++) {
        uint32_t h = net->links[f->link[j]].ch;
        net->cR[h] -= x;
        net->cnu[h]--;
        net->clev[h] = level(net->cR[h], net->cnu[h]);
        if (!net->cflag[h]) {
            net->cflag[h] = 1;
            net->cdirty[net->ndirty++] = h;
        }
    }
}

/* Recompute rates on the component(s) holding seed links, bring flows'
 * remaining work up to now and move completion events whose rate changed. */
static void recompute(dam_link_net *net, const int *seeds, int nseeds)
{
    double now = dam_des_now(net->des);
    uint32_t stamp = ++net->stamp;
    size_t ncl = 0, ncf = 0;

    /* Component search: links through flows, breadth first. */
    for (int i = 0; i < nseeds; i++) {
        struct link *l = &net->links[seeds[i]];
        if (l->mark == stamp)
            continue;
        l->mark = stamp;
        if (ncl == net->cl_cap)
            net->cl = dam_grow(net->cl, sizeof *net->cl, ncl + 1,
                               &net->cl_cap);
        net->cl[ncl++] = seeds[i];
    }
    for (size_t h = 0; h < ncl; h++) {
        struct link *l = &net->links[net->cl[h]];
        for (size_t i = 0; i < l->n; i++) {
            uint32_t k = l->fl[i];
            struct flow *f = &net->flows[k];
            if (f->mark == stamp)
                continue;
            f->mark = stamp;
            if (ncf == net->cf_cap)
                net->cf = dam_grow(net->cf, sizeof *net->cf, ncf + 1,
                                   &net->cf_cap);
            net->cf[ncf++] = k;
            for (int j = 0; j < f->nlinks; j++) {
                struct link *m = &net->links[f->link[j]];
                if (m->mark == stamp)
                    continue;
                m->mark = stamp;
                if (ncl == net->cl_cap)
                    net->cl = dam_grow(net->cl, sizeof *net->cl, ncl + 1,
                                       &net->cl_cap);
                net->cl[ncl++] = f->link[j];
            }
        }
    }

    size_t P = 1;
    while (P < ncl)
        P <<= 1;
    if (P > net->cc_cap) {
        net->cR = dam_realloc(net->cR, P * sizeof *net->cR);
        net->cnu = dam_realloc(net->cnu, P * sizeof *net->cnu);
        net->clev = dam_realloc(net->clev, P * sizeof *net->clev);
        net->ctree = dam_realloc(net->ctree, 2 * P * sizeof *net->ctree);
        net->cdirty = dam_realloc(net->cdirty, P * sizeof *net->cdirty);
        net->cflag = dam_realloc(net->cflag, P * sizeof *net->cflag);
        net->cc_cap = P;
    }
    net->cleaves = P;
    for (size_t h = 0; h < ncl; h++) {
        struct link *l = &net->links[net->cl[h]];
        account(net, l);
        l->ch = (uint32_t)h;
        net->cR[h] = l->C;
        net->cnu[h] = l->n;
        net->clev[h] = level(l->C, l->n);
    }
    for (size_t h = ncl; h < P; h++)
        net->clev[h] = HUGE_VAL;
    memset(net->cflag, 0, P);
    net->ndirty = 0;
    uint32_t *tree = net->ctree;
    for (size_t h = 0; h < P; h++)
        tree[P + h] = (uint32_t)h;
    for (size_t i = P; i-- > 1;)
        tree[i] = tpick(net->clev, tree[2 * i], tree[2 * i + 1]);
    struct heap *keys = &net->keys;
    heap_reserve(keys, ncf);
    for (size_t i = 0; i < ncf; i++) {
        struct flow *f = &net->flows[net->cf[i]];
        double rem = f->work - f->rate * (now - f->t_last);
        f->work = rem > 0.0 ? rem : 0.0;
        f->t_last = now;
        f->fixed = 0;
        keys->a[i] = cmin_ent(f, net->cf[i], 0);
    }
    keys->n = ncf;
    heapify(keys);

    /* Progressive filling: all unfixed flows rise together; the next to
     * stop is either the lowest cap or the tightest link's fair level.
     * Capped flows are taken in (cap, seq) order from a heap popped only
     * as far as the filling needs (fixed flows leave it lazily); the
     * tightest link is the first in component order with the least
     * level, the tournament's winner. */
    size_t left = ncf;
    while (left > 0) {
        tree_update(net);
        size_t best = tree[1];
        double lmin = net->clev[best];
        while (keys->n > 0 && net->flows[keys->a[0].slot].fixed)
            heap_remove(keys, 0);
        if (keys->n > 0 && keys->a[0].key <= lmin) {
            struct flow *f = &net->flows[keys->a[0].slot];
            heap_remove(keys, 0);
            fix_flow(net, f, f->cap);
            left--;
            continue;
        }
        struct link *b = &net->links[net->cl[best]];
        for (size_t i = 0; i < b->n; i++) {
            struct flow *f = &net->flows[b->fl[i]];
            if (!f->fixed) {
                fix_flow(net, f, lmin);
                left--;
            }
        }
    }

    for (size_t h = 0; h < ncl; h++)
        net->links[net->cl[h]].used = 0.0;
    for (size_t i = 0; i < ncf; i++) {
        uint32_t k = net->cf[i];
        struct flow *f = &net->flows[k];
        for (int j = 0; j < f->nlinks; j++)
            net->links[f->link[j]].used += f->newrate;
        if (f->newrate == f->rate && f->ev != 0)
            continue; /* same rate: its completion time stands */
        f->rate = f->newrate;
        if (!(f->rate > 0.0)) {
            if (f->ev != 0)
                dam_des_cancel(net->des, f->ev);
            f->ev = 0;
            continue;
        }
        double t = now + f->work / f->rate;
        if (f->ev == 0 || !dam_des_reschedule(net->des, f->ev, t))
            f->ev = dam_des_at(net->des, t, gen_done, net,
                               dam_des_u((uint64_t)k));
    }
}

/* Remove flow k from link li's unordered array. */
static void gen_unlink(dam_link_net *net, uint32_t k, int j)
{
    struct flow *f = &net->flows[k];
    struct link *l = &net->links[f->link[j]];
    uint32_t i = f->pos[j];
    uint32_t m = l->fl[--l->n];
    if (i != l->n) {
        l->fl[i] = m;
        struct flow *g = &net->flows[m];
        for (int q = 0; q < g->nlinks; q++)
            if (g->link[q] == f->link[j])
                g->pos[q] = i;
    }
}

/* The pending links' components recomputed at once (the instant's last
 * change is in), then each pending link back to a fast mode where it
 * can be. */
static void flush(dam_des *des, void *ctx, dam_des_arg arg)
{
    dam_link_net *net = ctx;
    (void)des;
    (void)arg;
    net->flush_ev = 0;
    recompute(net, net->pend, (int)net->npend);
    for (size_t i = 0; i < net->npend; i++) {
        int li = net->pend[i];
        net->links[li].pending = 0;
        maybe_fast(net, &net->links[li], li);
    }
    net->npend = 0;
}

/* A flow started (ended: 0) or ended (1) on the general links seeds:
 * recompute their component now, or, coalescing, at the instant's flush
 * (scheduled by the first change). A link that ended a flow may go back
 * to a fast mode (the flush tries every link it recomputes from). */
static void changed(dam_link_net *net, const int *seeds, int nseeds,
                    int ended)
{
    if (!net->coalesce) {
        recompute(net, seeds, nseeds);
        for (int j = 0; j < nseeds && ended; j++)
            maybe_fast(net, &net->links[seeds[j]], seeds[j]);
        return;
    }
    for (int j = 0; j < nseeds; j++) {
        struct link *l = &net->links[seeds[j]];
        if (l->pending)
            continue;
        l->pending = 1;
        if (net->npend == net->pend_cap)
            net->pend = dam_grow(net->pend, sizeof *net->pend,
                                 net->npend + 1, &net->pend_cap);
        net->pend[net->npend++] = seeds[j];
    }
    if (net->flush_ev == 0)
        net->flush_ev = dam_des_after(net->des, 0.0, flush, net,
                                      dam_des_u(0));
}

static void gen_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    dam_link_net *net = ctx;
    uint32_t k = (uint32_t)arg.u;
    struct flow *f = &net->flows[k];
    int seeds[DAM_LINK_MAXPATH] = {0};
    int ns = f->nlinks;
    f->ev = 0;
    for (int j = 0; j < ns; j++) {
        seeds[j] = f->link[j];
        account(net, &net->links[seeds[j]]);
    }
    for (int j = 0; j < ns; j++)
        gen_unlink(net, k, j);
    f->rate = 0.0;
    struct fhot h = net->hot[k];
    flow_release(net, k);
    changed(net, seeds, ns, 1);
    h.done(des, h.ctx, h.arg);
}

/* ---- public ---------------------------------------------------------- */

dam_link_net *dam_link_net_create(dam_des *des)
{
    dam_link_net *net = dam_calloc(1, sizeof *net);
    net->des = des;
    net->free_head = NONE;
    net->fast_enabled = 1;
    return net;
}

void dam_link_net_free(dam_link_net *net)
{
    if (net == NULL)
        return;
    if (net->flush_ev != 0)
        dam_des_cancel(net->des, net->flush_ev);
    for (int i = 0; i < net->nlinks; i++) {
        struct link *l = &net->links[i];
        dam_free(l->fl);
        fh_free(&l->lfin);
        dam_free(l->lcap.a);
        fh_free(&l->kfin);
        dam_free(l->kcap.a);
    }
    dam_free(net->links);
    dam_free(net->flows);
    dam_free(net->hot);
    dam_free(net->ctag);
    dam_free(net->flat);
    dam_free(net->cl);
    dam_free(net->pend);
    dam_free(net->cf);
    dam_free(net->cR);
    dam_free(net->cnu);
    dam_free(net->clev);
    dam_free(net->ctree);
    dam_free(net->cdirty);
    dam_free(net->cflag);
    dam_free(net->keys.a);
    dam_free(net);
}

void dam_link_net_reset(dam_link_net *net)
{
    double now = dam_des_now(net->des);
    if (net->flush_ev != 0)
        dam_des_cancel(net->des, net->flush_ev);
    net->flush_ev = 0;
    net->npend = 0;
    for (size_t k = 0; k < net->nflows; k++) {
        struct flow *f = &net->flows[k];
        if (net->hot[k].done == NULL)
            continue;
        /* only a general-mode flow has an event of its own (an equal-cap
         * flow's record is not even written) */
        if (!net->links[net->hot[k].u.link].fast && f->ev != 0)
            dam_des_cancel(net->des, f->ev);
        flow_release(net, (uint32_t)k);
    }
    for (int i = 0; i < net->nlinks; i++) {
        struct link *l = &net->links[i];
        if (l->ev != 0)
            dam_des_cancel(net->des, l->ev);
        l->ev = 0;
        l->n = 0;
        l->pending = 0;
        l->fast = 1;
        mixed_clear(l);
        l->V = l->r = l->used = 0.0;
        l->busy = l->active = l->delivered = 0.0;
        l->tV = l->t_acc = now;
    }
}

void dam_link_net_set_fast(dam_link_net *net, int on)
{
    net->fast_enabled = on != 0;
}

void dam_link_net_set_coalesce(dam_link_net *net, int on)
{
    net->coalesce = on != 0;
}

int dam_link_add(dam_link_net *net, double capacity, dam_error *err)
{
    dam_error tmp;
    if (!(capacity >= 0.0) || !isfinite(capacity)) {
        dam_error_set(err ? err : &tmp, "", 0,
                      "link capacity is %g; expected a finite value >= 0",
                      capacity);
        return -1;
    }
    if ((size_t)net->nlinks == net->links_cap)
        net->links = dam_grow(net->links, sizeof *net->links,
                              (size_t)net->nlinks + 1, &net->links_cap);
    struct link *l = &net->links[net->nlinks];
    *l = (struct link){0};
    l->C = capacity;
    l->fast = 1;
    l->capf = HUGE_VAL;
    l->tV = l->t_acc = dam_des_now(net->des);
    return net->nlinks++;
}

int dam_link_flow_start(dam_link_net *net, const int *links, int nlinks,
                        double work, double cap, dam_des_fn done, void *ctx,
                        dam_des_arg arg, dam_link_flow *id, dam_error *err)
{
    dam_error tmp;
    if (err == NULL)
        err = &tmp;
    if (id != NULL)
        *id = 0;
    if (nlinks < 1 || nlinks > DAM_LINK_MAXPATH)
        return dam_error_set(err, "", 0,
                             "flow crosses %d links; expected 1 to %d",
                             nlinks, DAM_LINK_MAXPATH);
    for (int j = 0; j < nlinks; j++) {
        if (links[j] < 0 || links[j] >= net->nlinks)
            return dam_error_set(err, "", 0,
                                 "flow link %d does not exist (%d links)",
                                 links[j], net->nlinks);
        for (int q = 0; q < j; q++)
            if (links[q] == links[j])
                return dam_error_set(err, "", 0,
                                     "flow crosses link %d twice", links[j]);
    }
    if (!(work >= 0.0) || !isfinite(work))
        return dam_error_set(err, "", 0,
                             "flow work is %g; expected a finite value >= 0",
                             work);
    if (!(cap >= 0.0))
        return dam_error_set(err, "", 0,
                             "flow rate cap is %g; expected >= 0", cap);
    if (done == NULL)
        return dam_error_set(err, "", 0, "flow has no completion callback");
    if (cap == 0.0)
        cap = HUGE_VAL;
    if (work == 0.0) {
        dam_des_after(net->des, 0.0, done, ctx, arg);
        return DAM_OK;
    }

    uint32_t k = flow_take(net);
    struct fhot *h = &net->hot[k];
    h->done = done;
    h->ctx = ctx;
    h->arg = arg;
    h->u.link = links[0];
    if (id != NULL)
        *id = ((uint64_t)h->gen << 32) | k;
    uint64_t seq = net->seq++;

    struct link *l = &net->links[links[0]];
    if (nlinks == 1 && l->fast && net->fast_enabled && !l->mixed &&
        (l->n == 0 || l->capf == cap)) {
        /* equal caps: the heap entry and the hot record are the flow */
        account(net, l);
        fast_advance(net, l);
        if (l->n == 0)
            l->capf = cap;
        h->key = l->V + work;
        fh_push(&l->lfin, (struct hent){h->key, seq, k, 0});
        l->n++;
        fast_rate(l);
        fast_schedule(net, l, links[0]);
        return DAM_OK;
    }

    struct flow *f = &net->flows[k];
    f->cap = cap;
    f->seq = seq;
    f->ev = 0;
    f->nlinks = nlinks;
    for (int j = 0; j < nlinks; j++)
        f->link[j] = links[j];
    if (nlinks == 1 && l->fast && net->fast_enabled &&
        (l->mixed || (l->n > 0 && l->capf != cap))) {
        if (!l->mixed)
            to_mixed(net, l, links[0]);
        mixed_start(net, links[0], k, work);
        return DAM_OK;
    }

    for (int j = 0; j < nlinks; j++) {
        struct link *m = &net->links[links[j]];
        if (m->fast)
            to_general(net, m);
        account(net, m);
        f = &net->flows[k];
        f->pos[j] = (uint32_t)m->n;
        fl_push(m, k);
    }
    f = &net->flows[k];
    f->work = work;
    f->rate = 0.0;
    f->t_last = dam_des_now(net->des);
    changed(net, links, nlinks, 0);
    return DAM_OK;
}

double dam_link_flow_rate(const dam_link_net *net, dam_link_flow id)
{
    const struct flow *f = flow_lookup(net, id);
    if (f == NULL)
        return 0.0;
    const struct link *l = &net->links[net->hot[f - net->flows].u.link];
    if (l->mixed && f->capped)
        return f->cap;
    return l->fast ? l->r : f->rate;
}

double dam_link_flow_remaining(const dam_link_net *net, dam_link_flow id)
{
    const struct flow *f = flow_lookup(net, id);
    if (f == NULL)
        return 0.0;
    double now = dam_des_now(net->des), rem;
    const struct fhot *h = &net->hot[f - net->flows];
    const struct link *l = &net->links[h->u.link];
    if (l->mixed && f->capped)
        rem = (f->work - now) * f->cap;
    else if (l->mixed)
        rem = f->work - (l->V + l->r * (now - l->tV));
    else if (l->fast) /* the record is not written: the entry's key */
        rem = h->key - (l->V + l->r * (now - l->tV));
    else
        rem = f->work - f->rate * (now - f->t_last);
    return rem > 0.0 ? rem : 0.0;
}

int dam_link_count(const dam_link_net *net)
{
    return net->nlinks;
}

double dam_link_capacity(const dam_link_net *net, int link)
{
    return net->links[link].C;
}

size_t dam_link_flows(const dam_link_net *net, int link)
{
    return net->links[link].n;
}

double dam_link_used(const dam_link_net *net, int link)
{
    return net->links[link].used;
}

double dam_link_busy(const dam_link_net *net, int link)
{
    const struct link *l = &net->links[link];
    double dt = dam_des_now(net->des) - l->t_acc;
    return l->busy + (l->C > 0.0 && dt > 0.0 ? l->used / l->C * dt : 0.0);
}

double dam_link_active(const dam_link_net *net, int link)
{
    const struct link *l = &net->links[link];
    double dt = dam_des_now(net->des) - l->t_acc;
    return l->active + (l->n > 0 && dt > 0.0 ? dt : 0.0);
}

double dam_link_delivered(const dam_link_net *net, int link)
{
    const struct link *l = &net->links[link];
    double dt = dam_des_now(net->des) - l->t_acc;
    return l->delivered + (dt > 0.0 ? l->used * dt : 0.0);
}

int dam_link_is_fast(const dam_link_net *net, int link)
{
    return net->links[link].fast;
}
