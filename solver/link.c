/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * link.c: max-min fair links (see link.h for the two modes).
 *
 * Storage: flows live in one pool (indices, never pointers, across calls
 * that may grow it; a free list; a generation per slot so stale ids are
 * harmless). Each link keeps an array of its flows' slots; each flow keeps,
 * per link it crosses, its index in that array. In fast mode the array is
 * a binary heap ordered by (finishing virtual time, start sequence); in
 * general mode it is unordered and removal swaps with the last entry.
 *
 * Invariants: a fast link holds only single-link flows of cap link->capf;
 * a flow is in general mode exactly when its links are; a general flow's
 * `work` is its remaining work at t_last, a fast flow's `work` is its
 * finishing virtual time. A link's accounting integrals are brought up to
 * now before its rate changes (account()).
 *
 * Determinism: component order follows link and flow-array order, sorts
 * break ties by start sequence, and rescheduling happens in that order.
 */
#include "solver/link.h"

#include <math.h>
#include <stdlib.h>

#include "model/alloc.h"

#define NONE UINT32_MAX

struct flow {
    double work;        /* fast: finishing V; general: remaining at t_last */
    double rate;        /* general: current rate, units/s */
    double t_last;      /* general: when work was last brought up to date */
    double cap;         /* rate cap, units/s (HUGE_VAL = none) */
    double newrate;     /* progressive filling scratch */
    uint64_t seq;       /* start order, tie-break */
    dam_des_fn done;    /* completion callback; NULL when the slot is free */
    void *ctx;          /* its context */
    dam_des_arg arg;    /* its payload */
    dam_des_id ev;      /* general: completion event, 0 none */
    uint32_t gen;       /* slot generation */
    uint32_t mark;      /* component search stamp */
    uint32_t next_free; /* free list link */
    int fixed;          /* progressive filling scratch */
    int nlinks;         /* links crossed */
    int link[DAM_LINK_MAXPATH];      /* their indices */
    uint32_t pos[DAM_LINK_MAXPATH];  /* index in each link's flow array */
};

struct link {
    double C;           /* capacity, units/s */
    int fast;           /* 1: virtual-time mode */
    uint32_t *fl;       /* flow slots on the link (a heap when fast) */
    size_t n;           /* flows on the link */
    size_t fl_cap;      /* allocated entries of fl */
    double capf;        /* fast: the common cap of its flows */
    double V;           /* fast: service per flow so far, units */
    double tV;          /* fast: time V refers to, s */
    double r;           /* fast: rate of each flow, units/s */
    dam_des_id ev;      /* fast: next completion event, 0 none */
    double used;        /* units/s in use now */
    double t_acc;       /* integrals are up to this time, s */
    double busy;        /* integral of used/C, s */
    double active;      /* time with n > 0, s */
    double delivered;   /* integral of used, units */
    double R;           /* progressive filling: capacity left */
    size_t nu;          /* progressive filling: unfixed flows */
    uint32_t mark;      /* component search stamp */
};

struct dam_link_net {
    dam_des *des;
    struct link *links;
    int nlinks;
    size_t links_cap;
    struct flow *flows;     /* flow pool */
    size_t nflows, flows_cap;
    uint32_t free_head;     /* first free flow slot */
    uint64_t seq;           /* next start sequence */
    uint32_t stamp;         /* component search stamp */
    int fast_enabled;       /* 0: general path only */
    int *cl;                /* scratch: component links */
    size_t cl_cap;
    uint32_t *cf;           /* scratch: component flows */
    size_t cf_cap;
    struct capkey *keys;    /* scratch: sort keys of component flows */
    size_t keys_cap;
};

/* Order in which capped flows are fixed: cap, then start sequence. qsort
 * has no context argument in C11, so the keys carry what the comparison
 * needs and no static state is used. */
struct capkey {
    double cap;    /* the flow's cap, units/s */
    uint64_t seq;  /* its start sequence */
    uint32_t slot; /* its pool slot */
};

static void fast_done(dam_des *des, void *ctx, dam_des_arg arg);
static void gen_done(dam_des *des, void *ctx, dam_des_arg arg);

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
        net->free_head = net->flows[k].next_free;
        return k;
    }
    if (net->nflows == net->flows_cap)
        net->flows = dam_grow(net->flows, sizeof *net->flows,
                              net->nflows + 1, &net->flows_cap);
    k = (uint32_t)net->nflows++;
    net->flows[k].gen = 1;
    net->flows[k].mark = 0;
    return k;
}

static void flow_release(dam_link_net *net, uint32_t k)
{
    struct flow *f = &net->flows[k];
    f->done = NULL;
    if (++f->gen == 0)
        f->gen = 1;
    f->next_free = net->free_head;
    net->free_head = k;
}

static const struct flow *flow_lookup(const dam_link_net *net,
                                      dam_link_flow id)
{
    uint32_t k = (uint32_t)(id & 0xffffffffu);
    if (id == 0 || k >= net->nflows)
        return NULL;
    const struct flow *f = &net->flows[k];
    if (f->done == NULL || f->gen != (uint32_t)(id >> 32))
        return NULL;
    return f;
}

static void fl_push(struct link *l, uint32_t k)
{
    if (l->n == l->fl_cap)
        l->fl = dam_grow(l->fl, sizeof *l->fl, l->n + 1, &l->fl_cap);
    l->fl[l->n++] = k;
}

/* ---- fast mode: heap of flows by (finishing V, seq) ------------------ */

static inline int fbefore(const struct flow *a, const struct flow *b)
{
    return a->work < b->work || (a->work == b->work && a->seq < b->seq);
}

static void fheap_up(dam_link_net *net, struct link *l, size_t i, uint32_t k)
{
    struct flow *fs = net->flows;
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (!fbefore(&fs[k], &fs[l->fl[p]]))
            break;
        l->fl[i] = l->fl[p];
        fs[l->fl[i]].pos[0] = (uint32_t)i;
        i = p;
    }
    l->fl[i] = k;
    fs[k].pos[0] = (uint32_t)i;
}

static void fheap_down(dam_link_net *net, struct link *l, size_t i,
                       uint32_t k)
{
    struct flow *fs = net->flows;
    size_t n = l->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && fbefore(&fs[l->fl[c + 1]], &fs[l->fl[c]]))
            c++;
        if (!fbefore(&fs[l->fl[c]], &fs[k]))
            break;
        l->fl[i] = l->fl[c];
        fs[l->fl[i]].pos[0] = (uint32_t)i;
        i = c;
    }
    l->fl[i] = k;
    fs[k].pos[0] = (uint32_t)i;
}

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

/* (Re)schedule the link's completion event for the heap's root. */
static void fast_schedule(dam_link_net *net, struct link *l, int li)
{
    if (l->n == 0 || !(l->r > 0.0)) {
        if (l->ev != 0)
            dam_des_cancel(net->des, l->ev);
        l->ev = 0;
        return;
    }
    double dv = net->flows[l->fl[0]].work - l->V;
    double t = dam_des_now(net->des) + (dv > 0.0 ? dv / l->r : 0.0);
    if (l->ev == 0 || !dam_des_reschedule(net->des, l->ev, t))
        l->ev = dam_des_at(net->des, t, fast_done, net, dam_des_u((uint64_t)li));
}

static void fast_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    dam_link_net *net = ctx;
    int li = (int)arg.u;
    struct link *l = &net->links[li];
    l->ev = 0;
    account(net, l);
    fast_advance(net, l);
    uint32_t k = l->fl[0];
    uint32_t last = l->fl[--l->n];
    if (l->n > 0)
        fheap_down(net, l, 0, last);
    fast_rate(l);
    fast_schedule(net, l, li);
    struct flow *f = &net->flows[k];
    dam_des_fn done = f->done;
    void *dctx = f->ctx;
    dam_des_arg darg = f->arg;
    flow_release(net, k);
    done(des, dctx, darg);
}

/* ---- general mode: progressive filling over a component --------------- */

static void to_general(dam_link_net *net, struct link *l)
{
    double now = dam_des_now(net->des);
    account(net, l);
    fast_advance(net, l);
    for (size_t i = 0; i < l->n; i++) {
        struct flow *f = &net->flows[l->fl[i]];
        double rem = f->work - l->V;
        f->work = rem > 0.0 ? rem : 0.0;
        f->rate = l->r;
        f->t_last = now;
        f->ev = 0;
        f->pos[0] = (uint32_t)i;
    }
    if (l->ev != 0)
        dam_des_cancel(net->des, l->ev);
    l->ev = 0;
    l->fast = 0;
}

/* Back to fast mode when every flow is single-link with one cap. */
static void maybe_fast(dam_link_net *net, struct link *l, int li)
{
    if (!net->fast_enabled || l->fast)
        return;
    double capf = l->n > 0 ? net->flows[l->fl[0]].cap : HUGE_VAL;
    for (size_t i = 0; i < l->n; i++) {
        const struct flow *f = &net->flows[l->fl[i]];
        if (f->nlinks != 1 || f->cap != capf)
            return;
    }
    double now = dam_des_now(net->des);
    account(net, l);
    l->fast = 1;
    l->capf = capf;
    l->V = 0.0;
    l->tV = now;
    size_t n = l->n;
    l->n = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = l->fl[i];
        struct flow *f = &net->flows[k];
        double rem = f->work - f->rate * (now - f->t_last);
        f->work = rem > 0.0 ? rem : 0.0; /* finishing V, with V = 0 now */
        if (f->ev != 0)
            dam_des_cancel(net->des, f->ev);
        f->ev = 0;
        l->n++;
        fheap_up(net, l, l->n - 1, k);
    }
    fast_rate(l);
    fast_schedule(net, l, li);
}


static int capkey_cmp(const void *a, const void *b)
{
    const struct capkey *x = a, *y = b;
    if (x->cap != y->cap)
        return x->cap < y->cap ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void fix_flow(dam_link_net *net, struct flow *f, double x)
{
    f->newrate = x;
    f->fixed = 1;
    for (int j = 0; j < f->nlinks; j++) {
        struct link *l = &net->links[f->link[j]];
        l->R -= x;
        l->nu--;
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

    for (size_t h = 0; h < ncl; h++) {
        struct link *l = &net->links[net->cl[h]];
        account(net, l);
        l->R = l->C;
        l->nu = l->n;
    }
    if (ncf > net->keys_cap)
        net->keys = dam_grow(net->keys, sizeof *net->keys, ncf,
                             &net->keys_cap);
    struct capkey *keys = net->keys;
    for (size_t i = 0; i < ncf; i++) {
        struct flow *f = &net->flows[net->cf[i]];
        double rem = f->work - f->rate * (now - f->t_last);
        f->work = rem > 0.0 ? rem : 0.0;
        f->t_last = now;
        f->fixed = 0;
        keys[i].cap = f->cap;
        keys[i].seq = f->seq;
        keys[i].slot = net->cf[i];
    }
    qsort(keys, ncf, sizeof *keys, capkey_cmp);

    /* Progressive filling: all unfixed flows rise together; the next to
     * stop is either the lowest cap or the tightest link's fair level. */
    size_t left = ncf, ci = 0;
    while (left > 0) {
        double lmin = HUGE_VAL;
        int best = -1;
        for (size_t h = 0; h < ncl; h++) {
            struct link *l = &net->links[net->cl[h]];
            if (l->nu == 0)
                continue;
            double lev = (l->R > 0.0 ? l->R : 0.0) / (double)l->nu;
            if (lev < lmin) {
                lmin = lev;
                best = net->cl[h];
            }
        }
        while (ci < ncf && net->flows[keys[ci].slot].fixed)
            ci++;
        if (ci < ncf && keys[ci].cap <= lmin) {
            fix_flow(net, &net->flows[keys[ci].slot], keys[ci].cap);
            left--;
            continue;
        }
        struct link *b = &net->links[best];
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
    dam_des_fn done = f->done;
    void *dctx = f->ctx;
    dam_des_arg darg = f->arg;
    flow_release(net, k);
    recompute(net, seeds, ns);
    for (int j = 0; j < ns; j++)
        maybe_fast(net, &net->links[seeds[j]], seeds[j]);
    done(des, dctx, darg);
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
    for (int i = 0; i < net->nlinks; i++)
        dam_free(net->links[i].fl);
    dam_free(net->links);
    dam_free(net->flows);
    dam_free(net->cl);
    dam_free(net->cf);
    dam_free(net->keys);
    dam_free(net);
}

void dam_link_net_reset(dam_link_net *net)
{
    double now = dam_des_now(net->des);
    for (size_t k = 0; k < net->nflows; k++) {
        struct flow *f = &net->flows[k];
        if (f->done == NULL)
            continue;
        if (f->ev != 0)
            dam_des_cancel(net->des, f->ev);
        f->ev = 0;
        flow_release(net, (uint32_t)k);
    }
    for (int i = 0; i < net->nlinks; i++) {
        struct link *l = &net->links[i];
        if (l->ev != 0)
            dam_des_cancel(net->des, l->ev);
        l->ev = 0;
        l->n = 0;
        l->fast = 1;
        l->V = l->r = l->used = 0.0;
        l->busy = l->active = l->delivered = 0.0;
        l->tV = l->t_acc = now;
    }
}

void dam_link_net_set_fast(dam_link_net *net, int on)
{
    net->fast_enabled = on != 0;
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
    struct flow *f = &net->flows[k];
    f->cap = cap;
    f->seq = net->seq++;
    f->done = done;
    f->ctx = ctx;
    f->arg = arg;
    f->ev = 0;
    f->nlinks = nlinks;
    for (int j = 0; j < nlinks; j++)
        f->link[j] = links[j];
    if (id != NULL)
        *id = ((uint64_t)f->gen << 32) | k;

    struct link *l = &net->links[links[0]];
    if (nlinks == 1 && l->fast && net->fast_enabled &&
        (l->n == 0 || l->capf == cap)) {
        account(net, l);
        fast_advance(net, l);
        if (l->n == 0)
            l->capf = cap;
        f->work = l->V + work;
        fl_push(l, k);
        fheap_up(net, l, l->n - 1, k);
        fast_rate(l);
        fast_schedule(net, l, links[0]);
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
    recompute(net, links, nlinks);
    return DAM_OK;
}

double dam_link_flow_rate(const dam_link_net *net, dam_link_flow id)
{
    const struct flow *f = flow_lookup(net, id);
    if (f == NULL)
        return 0.0;
    const struct link *l = &net->links[f->link[0]];
    return l->fast ? l->r : f->rate;
}

double dam_link_flow_remaining(const dam_link_net *net, dam_link_flow id)
{
    const struct flow *f = flow_lookup(net, id);
    if (f == NULL)
        return 0.0;
    double now = dam_des_now(net->des), rem;
    const struct link *l = &net->links[f->link[0]];
    if (l->fast)
        rem = f->work - (l->V + l->r * (now - l->tV));
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
