/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay.c: the dependency graph of a profiler trace and its replay (see
 * replay.h). Building: nodes per lane in time order, edges with their
 * natural lags, then each node's slack = measured start - the latest time
 * its edges allow. Replaying: a node is scheduled on the event engine once
 * every edge into its start is resolved; its end waits for its sync edges.
 */
#include "solver/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "solver/des.h"

/* ---- building --------------------------------------------------------------- */

typedef struct builder {
    dam_rgraph *g;
    size_t cap_nodes, cap_edges;
} builder;

static int add_node(builder *b, const dam_rnode *n)
{
    dam_rgraph *g = b->g;
    g->nodes = dam_grow(g->nodes, sizeof *g->nodes, (size_t)g->nnodes + 1,
                        &b->cap_nodes);
    g->nodes[g->nnodes] = *n;
    return g->nnodes++;
}

static void add_edge(builder *b, int from, int to, int kind, double lag)
{
    dam_rgraph *g = b->g;
    g->edges = dam_grow(g->edges, sizeof *g->edges, (size_t)g->nedges + 1,
                        &b->cap_edges);
    g->edges[g->nedges++] = (dam_redge){from, to, kind, lag};
}

/* A sort key: lane, start, rank (a step's end mark, then its start mark,
 * then the rest at one instant), then the node's index. */
typedef struct key {
    int lane;
    int rank;
    double t;
    int node;
} key;

static int by_key(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->lane != y->lane)
        return (x->lane > y->lane) - (x->lane < y->lane);
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return (x->node > y->node) - (x->node < y->node);
}

/* Device work by measured end (for the searches below). */
typedef struct endkey {
    double t;
    int node;
} endkey;

static int by_end(const void *a, const void *b)
{
    const endkey *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->node > y->node) - (x->node < y->node);
}

/* Correlation id -> call node. */
typedef struct corrkey {
    long long corr;
    int node;
} corrkey;

static int by_corr(const void *a, const void *b)
{
    const corrkey *x = a, *y = b;
    if (x->corr != y->corr)
        return (x->corr > y->corr) - (x->corr < y->corr);
    return (x->node > y->node) - (x->node < y->node);
}

/* Case-sensitive substring. */
static int has(const char *s, const char *needle)
{
    return strstr(s, needle) != NULL;
}

/* The precision of GEMM-class work from its kernel name (cuBLAS, CUTLASS
 * and cuDNN spell the input type), -1 when the name does not say. */
static int prec_of(const char *name)
{
    if (has(name, "bf16"))
        return DAM_BF16;
    if (has(name, "fp8") || has(name, "e4m3") || has(name, "e5m2"))
        return DAM_FP8;
    if (has(name, "i8816") || has(name, "imma") || has(name, "int8"))
        return DAM_INT8;
    if (has(name, "f16") || has(name, "h16816") || has(name, "h884") ||
        has(name, "h1688") || has(name, "hgemm") || has(name, "half"))
        return DAM_FP16;
    if (has(name, "tf32") || has(name, "s1688") || has(name, "s16816") ||
        has(name, "tensorop_s"))
        return DAM_TF32;
    if (has(name, "sgemm") || has(name, "fp32") || has(name, "scudnn"))
        return DAM_FP32;
    return -1;
}

/* Lanes a and b on one device (pid) of one rank. */
static int same_device(const dam_ktrace *t, int a, int b)
{
    return t->lanes[a].rank == t->lanes[b].rank &&
           strcmp(t->lanes[a].pid, t->lanes[b].pid) == 0;
}

static int is_sync_call(const char *name)
{
    return has(name, "Synchronize");
}

static int is_query(const char *name)
{
    return strcmp(name, "cudaEventQuery") == 0 ||
           strcmp(name, "hipEventQuery") == 0 ||
           strcmp(name, "cudaStreamQuery") == 0 ||
           strcmp(name, "hipStreamQuery") == 0;
}

static int is_loader(const char *name)
{
    return has(name, "DataLoader");
}

/* The measured time an edge allows its target to start (or end). */
static double edge_time(const dam_rgraph *g, const dam_redge *e)
{
    const dam_rnode *f = &g->nodes[e->from];
    return (e->kind == DAM_REDGE_START_START ? f->m_start : f->m_end) +
           e->lag;
}

/* Lane order: each node after the latest-ending earlier node of its lane,
 * or after the start of the one it began inside; the last query of a
 * polling run after the start of the first (poll[n] >= 0). */
static void lane_edges(builder *b, const key *k, int nk, const int *poll)
{
    dam_rgraph *g = b->g;
    int last = -1, prev = -1;
    for (int i = 0; i < nk; i++) {
        if (i > 0 && k[i].lane != k[i - 1].lane)
            last = prev = -1;
        int n = k[i].node;
        if (poll[n] >= 0) {
            add_edge(b, poll[n], n, DAM_REDGE_START_START, 0.0);
        } else if (last >= 0) {
            if (g->nodes[n].m_start >= g->nodes[last].m_end)
                add_edge(b, last, n, DAM_REDGE_END_START, 0.0);
            else
                add_edge(b, prev, n, DAM_REDGE_START_START, 0.0);
        }
        if (last < 0 || g->nodes[n].m_end > g->nodes[last].m_end)
            last = n;
        prev = n;
    }
}

/* Data-loader time of lane `lane` inside [a, b]: spans sorted by lane and
 * start, merged per lane. */
typedef struct span {
    int lane;
    double a, b;
    long ev; /* shaped operators: the event */
} span;

static int by_span(const void *x, const void *y)
{
    const span *p = x, *q = y;
    if (p->lane != q->lane)
        return (p->lane > q->lane) - (p->lane < q->lane);
    return (p->a > q->a) - (p->a < q->a);
}

static double loader_overlap(const span *s, int ns, int lane, double a,
                             double b)
{
    double sum = 0.0;
    int lo = 0, hi = ns;
    while (lo < hi) { /* first span of the lane ending after a */
        int mid = (lo + hi) / 2;
        if (s[mid].lane < lane || (s[mid].lane == lane && s[mid].b <= a))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < ns && s[i].lane == lane && s[i].a < b; i++) {
        double x = s[i].a > a ? s[i].a : a, y = s[i].b < b ? s[i].b : b;
        if (y > x)
            sum += y - x;
    }
    return sum;
}

/* Merge overlapping spans of one lane (nested operators). */
static int merge_spans(span *s, int n)
{
    qsort(s, (size_t)n, sizeof *s, by_span);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && s[m - 1].lane == s[i].lane && s[i].a <= s[m - 1].b) {
            if (s[i].b > s[m - 1].b)
                s[m - 1].b = s[i].b;
        } else {
            s[m++] = s[i];
        }
    }
    return m;
}

/* The latest-ending device work on the same device (pid) as node n but
 * another stream, ending in (after, before]; -1 when none. */
static int latest_other(const dam_rgraph *g, const endkey *ek, int nek,
                        int n, double after, double before, int any_lane)
{
    const dam_ktrace *t = g->trace;
    int lo = 0, hi = nek;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ek[mid].t <= before)
            lo = mid + 1;
        else
            hi = mid;
    }
    const dam_rnode *x = &g->nodes[n];
    for (int i = lo - 1, tries = 0; i >= 0 && tries < 256; i--, tries++) {
        if (ek[i].t <= after)
            break;
        const dam_rnode *c = &g->nodes[ek[i].node];
        if (any_lane)
            return ek[i].node;
        if (c->lane != x->lane && same_device(t, c->lane, x->lane))
            return ek[i].node;
    }
    return -1;
}

static int by_edge_to(const void *a, const void *b)
{
    const dam_redge *x = a, *y = b;
    if (x->to != y->to)
        return (x->to > y->to) - (x->to < y->to);
    return (x->from > y->from) - (x->from < y->from);
}

/* Index edges: in_first by target, out lists by source. */
static void index_edges(dam_rgraph *g)
{
    if (g->nedges > 0)
        qsort(g->edges, (size_t)g->nedges, sizeof *g->edges, by_edge_to);
    g->in_first = dam_calloc((size_t)g->nnodes + 1, sizeof *g->in_first);
    g->out_first = dam_calloc((size_t)g->nnodes + 1, sizeof *g->out_first);
    g->out = dam_malloc(((size_t)g->nedges + 1) * sizeof *g->out);
    for (int i = 0; i < g->nedges; i++) {
        g->in_first[g->edges[i].to + 1]++;
        g->out_first[g->edges[i].from + 1]++;
    }
    for (int i = 0; i < g->nnodes; i++) {
        g->in_first[i + 1] += g->in_first[i];
        g->out_first[i + 1] += g->out_first[i];
    }
    int *fill = dam_malloc(((size_t)g->nnodes + 1) * sizeof *fill);
    memcpy(fill, g->out_first, (size_t)g->nnodes * sizeof *fill);
    for (int i = 0; i < g->nedges; i++)
        g->out[fill[g->edges[i].from]++] = i;
    dam_free(fill);
}

/* Each node's slack behind its latest start edge, and what bound it. */
static void slacks(dam_rgraph *g, const span *ld, int nld)
{
    for (int i = 0; i < g->nnodes; i++) {
        dam_rnode *n = &g->nodes[i];
        double bt = 0.0;
        n->binding = -1;
        for (int j = g->in_first[i]; j < g->in_first[i + 1]; j++) {
            const dam_redge *e = &g->edges[j];
            if (e->kind == DAM_REDGE_END_END)
                continue;
            double t = edge_time(g, e);
            if (n->binding < 0 || t > bt) {
                bt = t;
                n->binding = e->kind;
                n->bind_launch = n->kind == DAM_RNODE_GPU &&
                                 e->from == n->launch;
            }
        }
        n->delay = n->m_start - bt;
        if (n->delay < 0.0) {
            n->delay = 0.0;
            g->n_late++;
        }
        if (n->kind != DAM_RNODE_GPU && n->binding >= 0 && nld > 0)
            n->data_wait = loader_overlap(ld, nld, n->lane,
                                          n->m_start - n->delay, n->m_start);
    }
}

/* A kernel name of convolution work (cuDNN's implicit GEMM, Winograd and
 * FFT algorithms and their helpers), for kernels the class rules leave
 * elementwise. */
static int conv_kernel(const char *name)
{
    static const char *const needles[] = {
        "conv", "fprop", "dgrad", "wgrad", "implicit", "winograd", "fft",
        "scudnn", "gemm", "xmma", NULL};
    for (int i = 0; needles[i]; i++)
        if (has(name, needles[i]))
            return 1;
    return 0;
}

/* GEMM work takes the shape of the innermost shaped operator around its
 * launch (s: shaped operators sorted by lane and start); inside a
 * convolution operator, so does convolution work the class rules left
 * elementwise, which becomes GEMM work. */
static void shape_of(dam_rgraph *g, const span *s, int ns, int i)
{
    dam_rnode *n = &g->nodes[i];
    const dam_ktrace *t = g->trace;
    if (n->kind != DAM_RNODE_GPU || n->launch < 0 ||
        (n->kclass != DAM_KCLASS_GEMM && n->kclass != DAM_KCLASS_ATTENTION &&
         n->kclass != DAM_KCLASS_ELEMENTWISE))
        return;
    const dam_rnode *l = &g->nodes[n->launch];
    int lo = 0, hi = ns;
    while (lo < hi) { /* first span after (lane, start) */
        int mid = (lo + hi) / 2;
        if (s[mid].lane < l->lane ||
            (s[mid].lane == l->lane && s[mid].a <= l->m_start))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int j = lo - 1, tries = 0; j >= 0 && s[j].lane == l->lane &&
                                    tries < 16; j--, tries++)
        if (s[j].b >= l->m_start) {
            const dam_kev *op = &t->ev[s[j].ev];
            if (n->kclass == DAM_KCLASS_ELEMENTWISE) {
                const char *name = dam_ktrace_name(t, &t->ev[n->ev]);
                if (!op->conv || !conv_kernel(name))
                    return;
                n->kclass = DAM_KCLASS_GEMM;
                n->prec = prec_of(name);
                g->n_conv++;
            }
            memcpy(n->gemm, op->gemm, sizeof n->gemm);
            g->n_shaped++;
            return;
        }
}

/* The merged span of lane `lane` holding time x, or the last one ending
 * before it (*inside = 0); -1 when none. */
static int span_at(const span *s, int ns, int lane, double x, int *inside)
{
    int lo = 0, hi = ns;
    while (lo < hi) { /* first span of the lane starting after x */
        int mid = (lo + hi) / 2;
        if (s[mid].lane < lane || (s[mid].lane == lane && s[mid].a <= x))
            lo = mid + 1;
        else
            hi = mid;
    }
    int i = lo - 1;
    if (i < 0 || s[i].lane != lane)
        return -1;
    *inside = x <= s[i].b;
    return i;
}

/*
 * Cross-thread waits: a host thread that was idle (no operator, no call)
 * for at least DAM_REPLAY_XTHREAD_IDLE_S and woke within
 * DAM_REPLAY_XTHREAD_S of another launching thread's activity ending waits
 * for that thread: the autograd engine's thread runs backward after the
 * main thread calls it, and the main thread resumes when it is done. The
 * edge leaves the other thread's last call before that end, with the rest
 * of its activity as the lag.
 */
static void cross_thread(builder *b, const key *k, int nk, const span *act,
                         int nact)
{
    dam_rgraph *g = b->g;
    const dam_ktrace *t = g->trace;
    unsigned char *active = dam_calloc((size_t)t->nlanes + 1, 1);
    for (int i = 0; i < g->nnodes; i++) {
        const dam_rnode *n = &g->nodes[i];
        if (n->kind == DAM_RNODE_GPU && n->launch >= 0)
            active[g->nodes[n->launch].lane] = 1;
        if (n->kind == DAM_RNODE_MARK)
            active[n->lane] = 1;
    }
    /* first key of each lane */
    int *first = dam_malloc(((size_t)t->nlanes + 1) * sizeof *first);
    for (int i = 0; i <= t->nlanes; i++)
        first[i] = -1;
    for (int i = nk - 1; i >= 0; i--)
        first[k[i].lane] = i;
    int last_target = -1;
    for (int sp = 1; sp < nact; sp++) {
        int lane = act[sp].lane;
        if (!active[lane] || act[sp - 1].lane != lane ||
            act[sp].a - act[sp - 1].b < DAM_REPLAY_XTHREAD_IDLE_S)
            continue;
        double w = act[sp].a;
        if (first[lane] < 0)
            continue;
        /* the first node of the lane from the wake-up on */
        int lo = first[lane], hi = lo;
        while (hi < nk && k[hi].lane == lane)
            hi++;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (g->nodes[k[mid].node].m_start < w)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo >= nk || k[lo].lane != lane || k[lo].node == last_target)
            continue;
        int i = lo;
        /* the other thread whose activity ended last before w */
        int best = -1;
        for (int l = 0; l < t->nlanes; l++) {
            if (l == lane || !active[l] || t->lanes[l].gpu ||
                t->lanes[l].rank != t->lanes[lane].rank)
                continue;
            int in2 = 0, s2 = span_at(act, nact, l, w, &in2);
            if (s2 < 0)
                continue;
            if (in2)
                s2--; /* still busy at w: its previous span */
            if (s2 < 0 || act[s2].lane != l || act[s2].b > w ||
                w - act[s2].b > DAM_REPLAY_XTHREAD_S)
                continue;
            if (best < 0 || act[s2].b > act[best].b)
                best = s2;
        }
        if (best < 0)
            continue;
        /* its last node ending by then */
        int from = -1, l = act[best].lane;
        lo = first[l];
        hi = lo;
        while (lo >= 0 && hi < nk && k[hi].lane == l)
            hi++;
        while (lo < hi) { /* first node of l starting after that end */
            int mid = (lo + hi) / 2;
            if (g->nodes[k[mid].node].m_start <= act[best].b)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int j = lo - 1, tries = 0; j >= 0 && k[j].lane == l &&
                                        tries < 64; j--, tries++)
            if (g->nodes[k[j].node].m_end <= act[best].b) {
                from = k[j].node;
                break;
            }
        if (from < 0)
            continue;
        add_edge(b, from, k[i].node, DAM_REDGE_END_START,
                 act[best].b - g->nodes[from].m_end);
        last_target = k[i].node;
        g->n_xthread++;
    }
    dam_free(first);
    dam_free(active);
}

/* Scratch of one build: the spans and indexes its steps share. */
typedef struct scratch {
    span *ld, *act, *shaped;  /* data-loader, host activity, shaped ops */
    int nld, nact, nshaped;
    key *k;                   /* nodes by lane and start */
    int *poll;                /* last query of a run -> its first, else -1 */
    endkey *ek;               /* device work by measured end */
    int nek;
    corrkey *ck;              /* calls by correlation id */
    int nck;
    int *rec;                 /* call node -> its cuda_sync record, -1 */
    int *lane_first;          /* lane l's keys: [lane_first[l], [l + 1]) */
    int *step_lane;           /* per rank: the thread of its step spans */
    size_t cap_steps;
} scratch;

/* A ProfilerStep span of its rank's step thread: its two marks. */
static void add_step(builder *b, scratch *x, const dam_kev *e, dam_rnode *n)
{
    dam_rgraph *g = b->g;
    int rank = g->trace->lanes[e->lane].rank;
    if (g->step_lane < 0)
        g->step_lane = e->lane;
    if (x->step_lane[rank] < 0)
        x->step_lane[rank] = e->lane;
    if (e->lane != x->step_lane[rank])
        return; /* steps of one thread per rank only */
    g->steps = dam_grow(g->steps, sizeof *g->steps, (size_t)g->nsteps + 1,
                        &x->cap_steps);
    dam_rstep *s = &g->steps[g->nsteps];
    s->number = e->step;
    s->rank = rank;
    s->measured_s = e->dur;
    n->kind = DAM_RNODE_MARK;
    n->dur = 0.0;
    n->step = g->nsteps;
    n->m_end = n->m_start;
    s->mark[0] = add_node(b, n);
    n->m_start = n->m_end = e->ts + e->dur;
    n->step_end = 1;
    s->mark[1] = add_node(b, n);
    g->nsteps++;
}

/* Nodes of the trace's events, and the spans beside them. */
static void collect(builder *b, scratch *x)
{
    const dam_ktrace *t = b->g->trace;
    x->ld = dam_malloc((t->nev + 1) * sizeof *x->ld);
    x->act = dam_malloc((t->nev + 1) * sizeof *x->act);
    x->shaped = dam_malloc((t->nev + 1) * sizeof *x->shaped);
    x->step_lane = dam_malloc((size_t)(t->nranks > 0 ? t->nranks : 1) *
                              sizeof *x->step_lane);
    for (int r = 0; r < (t->nranks > 0 ? t->nranks : 1); r++)
        x->step_lane[r] = -1;
    for (size_t i = 0; i < t->nev; i++) {
        const dam_kev *e = &t->ev[i];
        dam_rnode n;
        memset(&n, 0, sizeof n);
        n.ev = (long)i;
        n.lane = e->lane;
        n.m_start = e->ts;
        n.m_end = e->ts + e->dur;
        n.dur = e->dur;
        n.kclass = -1;
        n.prec = -1;
        n.launch = -1;
        n.step = -1;
        n.coll = -1;
        const char *name = dam_ktrace_name(t, e);
        span sp = {e->lane, e->ts, e->ts + e->dur, -1};
        if (e->kind == DAM_KEV_CPU_OP && is_loader(name))
            x->ld[x->nld++] = sp;
        if (e->kind == DAM_KEV_CPU_OP && e->gemm[0] > 0.0f)
            x->shaped[x->nshaped++] = (span){e->lane, e->ts, e->ts + e->dur,
                                             (long)i};
        if ((e->kind == DAM_KEV_CPU_OP || e->kind == DAM_KEV_RUNTIME) &&
            !t->lanes[e->lane].gpu)
            x->act[x->nact++] = sp;
        if (e->kind == DAM_KEV_RUNTIME && !t->lanes[e->lane].gpu) {
            n.kind = DAM_RNODE_CALL;
            n.sync = is_sync_call(name);
            add_node(b, &n);
        } else if (dam_kev_is_gpu_work(e->kind)) {
            n.kind = DAM_RNODE_GPU;
            n.kclass = e->kclass;
            if (e->kclass == DAM_KCLASS_GEMM ||
                e->kclass == DAM_KCLASS_ATTENTION)
                n.prec = prec_of(name);
            add_node(b, &n);
        } else if (e->kind == DAM_KEV_STEP && !t->lanes[e->lane].gpu) {
            add_step(b, x, e, &n);
        }
    }
    x->nld = merge_spans(x->ld, x->nld);
    x->nact = merge_spans(x->act, x->nact);
}

/* Runs of two or more queries on a thread: the last one polls. */
static void find_polls(dam_rgraph *g, scratch *x)
{
    const dam_ktrace *t = g->trace;
    int nn = g->nnodes;
    const key *k = x->k;
    x->poll = dam_malloc(((size_t)nn + 1) * sizeof *x->poll);
    for (int i = 0; i < nn; i++)
        x->poll[i] = -1;
    for (int i = 0; i < nn;) {
        int j = i;
        while (j < nn && k[j].lane == k[i].lane &&
               g->nodes[k[j].node].kind == DAM_RNODE_CALL &&
               is_query(dam_ktrace_name(t, &t->ev[g->nodes[k[j].node].ev])))
            j++;
        if (j - i >= 2) {
            x->poll[k[j - 1].node] = k[i].node;
            g->nodes[k[j - 1].node].sync = 3;
        }
        i = j > i ? j : i + 1;
    }
}

/* The call with correlation id corr (NULL: none). */
static const corrkey *call_of(const scratch *x, long long corr)
{
    if (corr < 0)
        return NULL;
    int lo = 0, hi = x->nck;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x->ck[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->nck && x->ck[lo].corr == corr ? &x->ck[lo] : NULL;
}

/* Launch edges by correlation id; a call whose own work ends before it
 * returns blocks on it. Fills the device work by end. */
static void launches(builder *b, scratch *x, int ngpu)
{
    dam_rgraph *g = b->g;
    const dam_ktrace *t = g->trace;
    int nn = g->nnodes;
    x->ck = dam_malloc(((size_t)nn + 1) * sizeof *x->ck);
    for (int i = 0; i < nn; i++) {
        long long c = t->ev[g->nodes[i].ev].corr;
        if (g->nodes[i].kind == DAM_RNODE_CALL && c >= 0)
            x->ck[x->nck++] = (corrkey){c, i};
    }
    qsort(x->ck, (size_t)x->nck, sizeof *x->ck, by_corr);
    x->ek = dam_malloc(((size_t)ngpu + 1) * sizeof *x->ek);
    for (int i = 0; i < nn; i++) {
        dam_rnode *n = &g->nodes[i];
        if (n->kind != DAM_RNODE_GPU)
            continue;
        x->ek[x->nek++] = (endkey){n->m_end, i};
        const corrkey *hit = call_of(x, t->ev[n->ev].corr);
        if (!hit) {
            g->n_unlaunched++;
            continue;
        }
        n->launch = hit->node;
        add_edge(b, hit->node, i, DAM_REDGE_START_START, 0.0);
        g->n_launch++;
        dam_rnode *c = &g->nodes[hit->node];
        if (!c->sync && n->m_end <= c->m_end && n->m_end >= c->m_start) {
            c->sync = 2;
            double lag = c->m_end - n->m_end;
            add_edge(b, i, hit->node, DAM_REDGE_END_END, lag);
            c->dur = lag;
            g->n_sync++;
        }
    }
    qsort(x->ek, (size_t)x->nek, sizeof *x->ek, by_end);
}

/* The lane of stream `stream` on the device of lane `on` (-1: none). */
static int stream_lane(const dam_ktrace *t, int on, long long stream)
{
    char tid[32];
    if (stream < 0)
        return -1;
    snprintf(tid, sizeof tid, "%lld", stream);
    for (int l = 0; l < t->nlanes; l++)
        if (t->lanes[l].gpu && !strcmp(t->lanes[l].tid, tid) &&
            same_device(t, l, on))
            return l;
    return -1;
}

/* The keys of lane `lane` in x->k: [*lo, *hi) (empty: none). */
static void lane_slice(const scratch *x, int lane, int *lo, int *hi)
{
    *lo = x->lane_first[lane];
    *hi = x->lane_first[lane + 1];
}

/* The first key of [lo, hi) (device work of one stream, in launch order)
 * launched after time tl (hi: none). */
static int launched_after(const dam_rgraph *g, const scratch *x, int lo,
                          int hi, double tl)
{
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const dam_rnode *n = &g->nodes[x->k[mid].node];
        double at = n->launch >= 0 ? g->nodes[n->launch].m_start
                                   : n->m_start;
        if (at <= tl)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Stream waits from cuda_sync records; each record of a host sync is kept
 * in x->rec for host_syncs. */
static void sync_records(builder *b, scratch *x)
{
    dam_rgraph *g = b->g;
    const dam_ktrace *t = g->trace;
    int nn = g->nnodes;
    x->rec = dam_malloc(((size_t)nn + 1) * sizeof *x->rec);
    for (int i = 0; i < nn; i++)
        x->rec[i] = -1;
    x->lane_first = dam_calloc((size_t)t->nlanes + 1,
                               sizeof *x->lane_first);
    for (int i = 0; i < nn; i++)
        x->lane_first[x->k[i].lane + 1]++;
    for (int l = 0; l < t->nlanes; l++)
        x->lane_first[l + 1] += x->lane_first[l];
    for (size_t r = 0; r < t->nsyncs; r++) {
        const dam_ksync *s = &t->syncs[r];
        const corrkey *call = call_of(x, s->corr);
        if (!call)
            continue;
        if (s->kind != DAM_KSYNC_WAIT) {
            x->rec[call->node] = (int)r;
            continue;
        }
        const corrkey *record = call_of(x, s->wait_corr);
        double rt = record ? g->nodes[record->node].m_start
                           : g->nodes[call->node].m_start;
        int ws = stream_lane(t, s->lane, s->wait_stream);
        int ss = stream_lane(t, s->lane, s->stream);
        if (ws < 0 || ss < 0 || ws == ss)
            continue;
        int wlo, whi, slo, shi;
        lane_slice(x, ws, &wlo, &whi);
        lane_slice(x, ss, &slo, &shi);
        int from = launched_after(g, x, wlo, whi, rt) - 1;
        int to = launched_after(g, x, slo, shi,
                                g->nodes[call->node].m_start);
        if (from < wlo || to >= shi)
            continue;
        add_edge(b, x->k[from].node, x->k[to].node, DAM_REDGE_END_START, 0.0);
        g->n_cuda_sync++;
    }
}

/* Host syncs and polls: the latest device work launched before the call
 * (of the stream, event or device its cuda_sync record names). */
static void host_syncs(builder *b, const scratch *x)
{
    dam_rgraph *g = b->g;
    const dam_ktrace *t = g->trace;
    const endkey *ek = x->ek;
    for (int i = 0; i < g->nnodes; i++) {
        dam_rnode *c = &g->nodes[i];
        if (c->kind != DAM_RNODE_CALL || (c->sync != 1 && c->sync != 3))
            continue;
        /* a poll waits from its run's first query */
        double since = c->sync == 3 ? g->nodes[x->poll[i]].m_start
                                    : c->m_start;
        const dam_ksync *r = c->sync == 1 && x->rec[i] >= 0
                                 ? &t->syncs[x->rec[i]] : NULL;
        int only = -1;
        if (r && r->kind == DAM_KSYNC_STREAM)
            only = stream_lane(t, r->lane, r->stream);
        if (r && r->kind == DAM_KSYNC_EVENT) {
            only = stream_lane(t, r->lane, r->wait_stream);
            const corrkey *record = call_of(x, r->wait_corr);
            if (record)
                since = g->nodes[record->node].m_start;
        }
        if (r && (r->kind == DAM_KSYNC_STREAM || r->kind == DAM_KSYNC_EVENT)
            && only < 0)
            continue; /* a stream without work: nothing to wait for */
        int lo = 0, hi = x->nek;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (ek[mid].t <= c->m_end)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int j = lo - 1, tries = 0; j >= 0 && tries < 4096; j--, tries++) {
            const dam_rnode *w = &g->nodes[ek[j].node];
            if (w->launch >= 0 && g->nodes[w->launch].m_start >= since)
                continue;
            if ((only >= 0 && w->lane != only) ||
                (r && !same_device(t, w->lane, r->lane)) ||
                t->lanes[w->lane].rank != t->lanes[c->lane].rank)
                continue;
            if (c->sync == 3 && w->m_end < since)
                break; /* nothing ended while it polled */
            double from = w->m_end > c->m_start ? w->m_end : c->m_start;
            if (c->sync == 3)
                from = w->m_end;
            double lag = c->m_end - from;
            if (lag < 0.0)
                lag = 0.0;
            add_edge(b, ek[j].node, i, DAM_REDGE_END_END, lag);
            if (c->sync != 3)
                c->dur = lag;
            c->poll_wait = c->sync == 3;
            g->n_sync++;
            g->n_cuda_sync += r != NULL;
            break;
        }
    }
}

/* Cross-stream waits, inferred from what bound each start (edges indexed). */
static void cross_stream(builder *b, const scratch *x)
{
    dam_rgraph *g = b->g;
    int nbase = g->nedges;
    for (int i = 0; i < g->nnodes; i++) {
        dam_rnode *n = &g->nodes[i];
        if (n->kind != DAM_RNODE_GPU)
            continue;
        double bt = -INFINITY;
        for (int j = g->in_first[i]; j < g->in_first[i + 1]; j++)
            if (g->edges[j].kind != DAM_REDGE_END_END &&
                edge_time(g, &g->edges[j]) > bt)
                bt = edge_time(g, &g->edges[j]);
        if (n->m_start - bt <= 1e-6)
            continue;
        int o = latest_other(g, x->ek, x->nek, i, bt, n->m_start, 0);
        if (o >= 0 && n->m_start - g->nodes[o].m_end <= DAM_REPLAY_XSTREAM_S) {
            add_edge(b, o, i, DAM_REDGE_END_START, 0.0);
            g->n_xstream++;
        }
    }
    if (g->nedges != nbase)
        dam_rgraph_reindex(g);
}

/* Steps whose number every rank has. */
static void common_steps(dam_rgraph *g)
{
    for (int i = 0; i < g->nsteps; i++) {
        unsigned char *seen = dam_calloc((size_t)g->nranks + 1, 1);
        int n = 0;
        for (int j = 0; j < g->nsteps; j++)
            if (g->steps[j].number == g->steps[i].number &&
                !seen[g->steps[j].rank]) {
                seen[g->steps[j].rank] = 1;
                n++;
            }
        g->steps[i].common = n == g->nranks;
        dam_free(seen);
    }
}

/* Several ranks: a barrier per collective matched on every rank (see
 * replay.h). After the slacks: an arrival keeps its collective's. */
static void barriers(builder *b)
{
    dam_rgraph *g = b->g;
    const dam_ktrace *t = g->trace;
    if (g->nranks < 2 || t->ncoll <= 0)
        return;
    int nc = t->ncoll, nn = g->nnodes;
    int *count = dam_calloc((size_t)nc, sizeof *count);
    int *first = dam_malloc((size_t)nc * sizeof *first);
    for (int i = 0; i < nn; i++)
        if (g->nodes[i].kind == DAM_RNODE_GPU && t->ev[g->nodes[i].ev].coll >= 0)
            count[t->ev[g->nodes[i].ev].coll]++;
    int *arrive = dam_malloc(((size_t)nn + 1) * sizeof *arrive);
    for (int i = 0; i < nn; i++)
        arrive[i] = -1;
    double *own = dam_malloc((size_t)nc * sizeof *own);
    double *last = dam_malloc((size_t)nc * sizeof *last);
    for (int c = 0; c < nc; c++) {
        first[c] = -1;
        own[c] = INFINITY;
        last[c] = -INFINITY;
    }
    for (int i = 0; i < nn; i++) {
        const dam_rnode *n = &g->nodes[i];
        int c = n->kind == DAM_RNODE_GPU ? t->ev[n->ev].coll : -1;
        if (c < 0 || count[c] != g->nranks)
            continue;
        if (first[c] < 0)
            first[c] = i;
        own[c] = n->dur < own[c] ? n->dur : own[c];
        last[c] = n->m_start > last[c] ? n->m_start : last[c];
    }
    for (int c = 0; c < nc; c++) {
        if (first[c] < 0)
            continue;
        dam_rnode bar = g->nodes[first[c]];
        bar.kind = DAM_RNODE_BARRIER;
        bar.m_start = bar.m_end = last[c];
        bar.dur = bar.delay = bar.data_wait = 0.0;
        bar.kclass = -1;
        bar.launch = bar.coll = -1;
        first[c] = add_node(b, &bar); /* now: the barrier */
        g->nbarriers++;
    }
    for (int i = 0; i < nn; i++) {
        int c = g->nodes[i].kind == DAM_RNODE_GPU ? t->ev[g->nodes[i].ev].coll
                                                  : -1;
        if (c < 0 || count[c] != g->nranks)
            continue;
        dam_rnode a = g->nodes[i];
        a.kind = DAM_RNODE_ARRIVE;
        a.m_end = a.m_start;
        a.dur = 0.0;
        a.kclass = -1;
        a.launch = -1;
        a.coll = i;
        arrive[i] = add_node(b, &a);
        dam_rnode *n = &g->nodes[i];
        n->coll = arrive[i];
        n->delay = 0.0;
        n->dur = own[c];
        add_edge(b, arrive[i], first[c], DAM_REDGE_END_START, 0.0);
        add_edge(b, first[c], i, DAM_REDGE_END_START, 0.0);
    }
    /* what bound a collective's start now binds its arrival */
    int ne = g->nedges - 2 * (g->nnodes - nn - g->nbarriers);
    for (int j = 0; j < ne; j++)
        if (g->edges[j].to < nn && arrive[g->edges[j].to] >= 0)
            g->edges[j].to = arrive[g->edges[j].to];
    dam_free(own);
    dam_free(last);
    dam_free(arrive);
    dam_free(first);
    dam_free(count);
    dam_rgraph_reindex(g);
}

static void scratch_free(scratch *x)
{
    dam_free(x->ld);
    dam_free(x->act);
    dam_free(x->shaped);
    dam_free(x->k);
    dam_free(x->poll);
    dam_free(x->ek);
    dam_free(x->ck);
    dam_free(x->rec);
    dam_free(x->lane_first);
    dam_free(x->step_lane);
}

int dam_rgraph_build(dam_rgraph *g, const dam_ktrace *t, dam_error *err)
{
    memset(g, 0, sizeof *g);
    g->trace = t;
    g->step_lane = -1;
    builder b = {g, 0, 0};
    scratch x;
    memset(&x, 0, sizeof x);
    g->nranks = t->nranks > 0 ? t->nranks : 1;
    collect(&b, &x);
    common_steps(g);
    int nn = g->nnodes, ngpu = 0;
    /* lane order */
    x.k = dam_malloc(((size_t)nn + 1) * sizeof *x.k);
    for (int i = 0; i < nn; i++) {
        const dam_rnode *n = &g->nodes[i];
        int rank = n->kind == DAM_RNODE_MARK ? (n->step_end ? 0 : 1) : 2;
        x.k[i] = (key){n->lane, rank, n->m_start, i};
        ngpu += n->kind == DAM_RNODE_GPU;
    }
    if (ngpu == 0) {
        scratch_free(&x);
        return dam_error_set(err, t->file, 0,
                             "no device work to replay in the trace");
    }
    qsort(x.k, (size_t)nn, sizeof *x.k, by_key);
    find_polls(g, &x);
    lane_edges(&b, x.k, nn, x.poll);
    launches(&b, &x, ngpu);
    qsort(x.shaped, (size_t)x.nshaped, sizeof *x.shaped, by_span);
    for (int i = 0; i < nn; i++)
        shape_of(g, x.shaped, x.nshaped, i);
    sync_records(&b, &x);
    host_syncs(&b, &x);
    cross_thread(&b, x.k, nn, x.act, x.nact);
    index_edges(g);
    cross_stream(&b, &x);
    slacks(g, x.ld, x.nld);
    /* a poll that found its work done: no slack, it ends when the work
     * does (plus the measured latency) */
    for (int i = 0; i < nn; i++)
        if (g->nodes[i].poll_wait)
            g->nodes[i].delay = 0.0;
    barriers(&b);
    scratch_free(&x);
    return DAM_OK;
}

void dam_rgraph_reindex(dam_rgraph *g)
{
    dam_free(g->in_first);
    dam_free(g->out_first);
    dam_free(g->out);
    index_edges(g);
}

void dam_rgraph_free(dam_rgraph *g)
{
    if (!g)
        return;
    dam_free(g->nodes);
    dam_free(g->edges);
    dam_free(g->in_first);
    dam_free(g->out_first);
    dam_free(g->out);
    dam_free(g->steps);
    memset(g, 0, sizeof *g);
}

/* A copy of n bytes of p (NULL or empty: a fresh one-byte block). */
static void *dup(const void *p, size_t n)
{
    void *q = dam_malloc(n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

void dam_rgraph_copy(dam_rgraph *dst, const dam_rgraph *src)
{
    *dst = *src;
    size_t nn = (size_t)src->nnodes, ne = (size_t)src->nedges;
    dst->nodes = dup(src->nodes, nn * sizeof *dst->nodes);
    dst->edges = dup(src->edges, ne * sizeof *dst->edges);
    dst->in_first = dup(src->in_first, (nn + 1) * sizeof *dst->in_first);
    dst->out_first = dup(src->out_first, (nn + 1) * sizeof *dst->out_first);
    dst->out = dup(src->out, ne * sizeof *dst->out);
    dst->steps = dup(src->steps, (size_t)src->nsteps * sizeof *dst->steps);
}

/* ---- replay ----------------------------------------------------------------- */

typedef struct state {
    dam_rgraph *g;
    int *pend_start, *pend_end;
    double *ready, *wait;
    unsigned char *started;
} state;

static void on_event(dam_des *des, void *ctx, dam_des_arg arg);

static void schedule_end(dam_des *des, state *s, int i)
{
    dam_rnode *n = &s->g->nodes[i];
    double t = n->start + n->dur;
    if (s->wait[i] > t)
        t = s->wait[i];
    dam_des_at(des, t, on_event, s, dam_des_u(((uint64_t)i << 1) | 1u));
}

static void resolve_start(dam_des *des, state *s, int i, double t)
{
    if (t > s->ready[i])
        s->ready[i] = t;
    if (--s->pend_start[i] == 0)
        dam_des_at(des, s->ready[i] + s->g->nodes[i].delay, on_event, s,
                   dam_des_u((uint64_t)i << 1));
}

static void on_event(dam_des *des, void *ctx, dam_des_arg arg)
{
    state *s = ctx;
    dam_rgraph *g = s->g;
    int i = (int)(arg.u >> 1), end = (int)(arg.u & 1u);
    double now = dam_des_now(des);
    dam_rnode *n = &g->nodes[i];
    if (!end) {
        n->start = now;
        s->started[i] = 1;
        for (int j = g->out_first[i]; j < g->out_first[i + 1]; j++) {
            const dam_redge *e = &g->edges[g->out[j]];
            if (e->kind == DAM_REDGE_START_START)
                resolve_start(des, s, e->to, now + e->lag);
        }
        if (s->pend_end[i] == 0)
            schedule_end(des, s, i);
        return;
    }
    n->end = now;
    s->started[i] = 2;
    for (int j = g->out_first[i]; j < g->out_first[i + 1]; j++) {
        const dam_redge *e = &g->edges[g->out[j]];
        if (e->kind == DAM_REDGE_END_START) {
            resolve_start(des, s, e->to, now + e->lag);
        } else if (e->kind == DAM_REDGE_END_END) {
            if (now + e->lag > s->wait[e->to])
                s->wait[e->to] = now + e->lag;
            if (--s->pend_end[e->to] == 0 && s->started[e->to] == 1)
                schedule_end(des, s, e->to);
        }
    }
}

int dam_replay_run(dam_rgraph *g, dam_error *err)
{
    size_t nn = (size_t)g->nnodes + 1;
    state s = {g, dam_calloc(nn, sizeof(int)), dam_calloc(nn, sizeof(int)),
               dam_calloc(nn, sizeof(double)), dam_calloc(nn, sizeof(double)),
               dam_calloc(nn, 1)};
    for (int i = 0; i < g->nedges; i++) {
        if (g->edges[i].kind == DAM_REDGE_END_END)
            s.pend_end[g->edges[i].to]++;
        else
            s.pend_start[g->edges[i].to]++;
    }
    dam_des *des = dam_des_create();
    for (int i = 0; i < g->nnodes; i++) {
        g->nodes[i].start = g->nodes[i].end = NAN;
        if (s.pend_start[i] == 0)
            dam_des_at(des, g->nodes[i].delay, on_event, &s,
                       dam_des_u((uint64_t)i << 1));
    }
    dam_des_run(des);
    dam_des_free(des);
    int rc = DAM_OK;
    for (int i = 0; i < g->nnodes && rc == DAM_OK; i++)
        if (s.started[i] != 2)
            rc = dam_error_set(err, g->trace->file, 0,
                               "event %ld never becomes ready: its "
                               "dependencies form a cycle",
                               g->trace->ev[g->nodes[i].ev].index);
    dam_free(s.pend_start);
    dam_free(s.pend_end);
    dam_free(s.ready);
    dam_free(s.wait);
    dam_free(s.started);
    if (rc != DAM_OK)
        return DAM_ERUNTIME;
    for (int i = 0; i < g->nsteps; i++)
        g->steps[i].replayed_s = g->nodes[g->steps[i].mark[1]].end -
                                 g->nodes[g->steps[i].mark[0]].start;
    return DAM_OK;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Lane l's rank. */
static int rank_of(const dam_rgraph *g, int lane)
{
    return g->trace->lanes[lane].rank;
}

/* Step i counts for rank `rank` (-1: any rank's step). */
static int step_of(const dam_rgraph *g, int i, int rank)
{
    return rank < 0 || (g->steps[i].rank == rank && g->steps[i].common);
}

void dam_replay_rank(const dam_rgraph *g, int rank, dam_rrank *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < g->nsteps; i++) {
        if (!step_of(g, i, rank))
            continue;
        r->steps++;
        r->measured_s += g->steps[i].measured_s;
        r->step_s += g->steps[i].replayed_s;
    }
    for (int i = 0; i < g->nnodes; i++) {
        const dam_rnode *a = &g->nodes[i];
        if (a->kind != DAM_RNODE_ARRIVE || rank_of(g, a->lane) != rank)
            continue;
        const dam_rnode *c = &g->nodes[a->coll];
        int in = 0;
        for (int s = 0; s < g->nsteps && !in; s++)
            in = step_of(g, s, rank) &&
                 a->end >= g->nodes[g->steps[s].mark[0]].start &&
                 a->end <= g->nodes[g->steps[s].mark[1]].end;
        if (in || r->steps == 0)
            r->wait_s += c->start - a->end;
        r->last += c->start - a->end <= 1e-9; /* ties within 1 ns: both */
    }
    if (r->steps > 0) {
        r->measured_s /= r->steps;
        r->step_s /= r->steps;
        r->wait_s /= r->steps;
    }
}

int dam_replay_slowest(const dam_rgraph *g, int replayed)
{
    if (g->nranks < 2)
        return 0;
    int best = 0;
    dam_rrank b, x;
    dam_replay_rank(g, 0, &b);
    for (int r = 1; r < g->nranks; r++) {
        dam_replay_rank(g, r, &x);
        double d = replayed ? x.step_s - b.step_s
                            : x.measured_s - b.measured_s;
        if (d > 1e-6 || (d >= -1e-6 && x.wait_s < b.wait_s)) {
            best = r;
            b = x;
        }
    }
    return best;
}

double dam_replay_step(const dam_rgraph *g, int replayed)
{
    int rank = g->nranks > 1 ? dam_replay_slowest(g, replayed) : -1;
    int ns = 0;
    for (int i = 0; i < g->nsteps; i++)
        ns += step_of(g, i, rank);
    if (ns == 0) {
        double a = INFINITY, z = -INFINITY;
        for (int i = 0; i < g->nnodes; i++) {
            const dam_rnode *n = &g->nodes[i];
            if (n->kind != DAM_RNODE_GPU)
                continue;
            double s = replayed ? n->start : n->m_start;
            double e = replayed ? n->end : n->m_end;
            if (s < a)
                a = s;
            if (e > z)
                z = e;
        }
        return z > a ? z - a : 0.0;
    }
    double *v = dam_malloc((size_t)ns * sizeof *v);
    ns = 0;
    for (int i = 0; i < g->nsteps; i++)
        if (step_of(g, i, rank))
            v[ns++] = replayed ? g->steps[i].replayed_s
                               : g->steps[i].measured_s;
    qsort(v, (size_t)ns, sizeof *v, by_double);
    int m = ns / 2;
    double r = ns % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    dam_free(v);
    return r;
}

/* ---- breakdown ---------------------------------------------------------------- */

const char *dam_tterm_name(dam_tterm k)
{
    static const char *const names[DAM_TTERM_COUNT] = {
        "GEMM", "attention", "elementwise", "optimizer", "copies",
        "exposed comm", "data wait", "launch", "host overhead", "idle"};
    return (unsigned)k < DAM_TTERM_COUNT ? names[k] : "?";
}

dam_bound dam_tterm_bound(dam_tterm k)
{
    switch (k) {
    case DAM_TTERM_GEMM:
    case DAM_TTERM_ATTENTION:
        return DAM_BOUND_COMPUTE;
    case DAM_TTERM_ELEMENTWISE:
    case DAM_TTERM_OPTIMIZER:
        return DAM_BOUND_MEMORY;
    case DAM_TTERM_COPY:
        return DAM_BOUND_TRANSFER;
    case DAM_TTERM_COMM:
        return DAM_BOUND_COMM;
    case DAM_TTERM_DATA:
        return DAM_BOUND_DATA;
    default:
        return DAM_BOUND_LATENCY;
    }
}

typedef struct point {
    double t;
    int term;  /* a dam_tterm */
    int delta; /* +1 opens, -1 closes */
} point;

static int by_point(const void *a, const void *b)
{
    const point *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    if (x->delta != y->delta)
        return x->delta - y->delta;
    return x->term - y->term;
}

/* The term of device work of class c. */
static int term_of_class(int c)
{
    static const int map[DAM_KCLASS_COUNT] = {
        DAM_TTERM_GEMM, DAM_TTERM_ATTENTION, DAM_TTERM_ELEMENTWISE,
        DAM_TTERM_OPTIMIZER, DAM_TTERM_COPY, DAM_TTERM_COMM};
    return c >= 0 && c < DAM_KCLASS_COUNT ? map[c] : DAM_TTERM_ELEMENTWISE;
}

/* Priority at one instant: device work first (GEMM over attention over
 * optimizer over elementwise over copies), collectives alone, then what
 * the host does while the device idles. */
static const int priority[DAM_TTERM_COUNT] = {
    DAM_TTERM_GEMM, DAM_TTERM_ATTENTION, DAM_TTERM_OPTIMIZER,
    DAM_TTERM_ELEMENTWISE, DAM_TTERM_COPY, DAM_TTERM_COMM, DAM_TTERM_DATA,
    DAM_TTERM_LAUNCH, DAM_TTERM_IDLE, DAM_TTERM_HOST};

/* Length of [a, b] inside the windows w[0..nw) (sorted, disjoint). */
static double in_windows(const double (*w)[2], int nw, double a, double b)
{
    double sum = 0.0;
    for (int i = 0; i < nw; i++) {
        double x = a > w[i][0] ? a : w[i][0], y = b < w[i][1] ? b : w[i][1];
        if (y > x)
            sum += y - x;
    }
    return sum;
}

static int by_window(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

void dam_replay_breakdown(const dam_rgraph *g, dam_tbreak *br)
{
    dam_replay_breakdown_rank(g, g->nranks > 1 ? dam_replay_slowest(g, 1)
                                               : -1, br);
}

void dam_replay_breakdown_rank(const dam_rgraph *g, int rank,
                               dam_tbreak *br)
{
    memset(br, 0, sizeof *br);
    int nw = 0;
    for (int i = 0; i < g->nsteps; i++)
        nw += step_of(g, i, rank);
    int steps = nw;
    nw = nw > 0 ? nw : 1;
    double (*w)[2] = dam_malloc((size_t)nw * sizeof *w);
    if (steps > 0) {
        for (int i = 0, k = 0; i < g->nsteps; i++) {
            if (!step_of(g, i, rank))
                continue;
            w[k][0] = g->nodes[g->steps[i].mark[0]].start;
            w[k++][1] = g->nodes[g->steps[i].mark[1]].end;
        }
        qsort(w, (size_t)nw, sizeof *w, by_window);
    } else {
        w[0][0] = INFINITY;
        w[0][1] = -INFINITY;
        for (int i = 0; i < g->nnodes; i++) {
            const dam_rnode *n = &g->nodes[i];
            if (n->kind != DAM_RNODE_GPU ||
                (rank >= 0 && rank_of(g, n->lane) != rank))
                continue;
            if (n->start < w[0][0])
                w[0][0] = n->start;
            if (n->end > w[0][1])
                w[0][1] = n->end;
        }
    }
    unsigned char *launches = dam_calloc((size_t)g->nnodes + 1, 1);
    for (int i = 0; i < g->nnodes; i++)
        if (g->nodes[i].kind == DAM_RNODE_GPU && g->nodes[i].launch >= 0)
            launches[g->nodes[i].launch] = 1;
    point *p = dam_malloc(((size_t)g->nnodes * 4 + 2) * sizeof *p);
    size_t np = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const dam_rnode *n = &g->nodes[i];
        int term = -1;
        if (rank >= 0 && rank_of(g, n->lane) != rank)
            continue;
        if (n->kind == DAM_RNODE_ARRIVE &&
            g->nodes[n->coll].start > n->end) { /* waiting for the others */
            p[np++] = (point){n->end, DAM_TTERM_COMM, 1};
            p[np++] = (point){g->nodes[n->coll].start, DAM_TTERM_COMM, -1};
        }
        if (n->kind == DAM_RNODE_GPU) {
            term = term_of_class(n->kclass);
            double d = in_windows((const double(*)[2])w, nw, n->start, n->end);
            br->gpu_time[n->kclass >= 0 ? n->kclass : 0] += d;
        } else if (n->kind == DAM_RNODE_CALL && n->sync) {
            term = DAM_TTERM_IDLE;
        } else if (n->kind == DAM_RNODE_CALL && launches[i]) {
            term = DAM_TTERM_LAUNCH;
        }
        if (term >= 0 && n->end > n->start) {
            p[np++] = (point){n->start, term, 1};
            p[np++] = (point){n->end, term, -1};
        }
        if (n->data_wait > 0.0 && n->kind != DAM_RNODE_GPU) {
            p[np++] = (point){n->start - n->data_wait, DAM_TTERM_DATA, 1};
            p[np++] = (point){n->start, DAM_TTERM_DATA, -1};
        }
    }
    if (np > 0)
        qsort(p, np, sizeof *p, by_point);
    int open[DAM_TTERM_COUNT] = {0};
    double t = np > 0 ? p[0].t : 0.0;
    for (size_t i = 0; i < np; i++) {
        if (p[i].t > t) {
            int term = DAM_TTERM_HOST;
            for (int k = 0; k < DAM_TTERM_COUNT; k++)
                if (open[priority[k]] > 0) {
                    term = priority[k];
                    break;
                }
            br->part[term] += in_windows((const double(*)[2])w, nw, t, p[i].t);
            t = p[i].t;
        }
        open[p[i].term] += p[i].delta;
    }
    /* window time outside every point: host */
    double total = 0.0, covered = 0.0;
    for (int i = 0; i < nw; i++)
        total += w[i][1] > w[i][0] ? w[i][1] - w[i][0] : 0.0;
    for (int k = 0; k < DAM_TTERM_COUNT; k++)
        covered += br->part[k];
    if (total > covered)
        br->part[DAM_TTERM_HOST] += total - covered;
    br->window_s = total;
    br->steps = nw;
    br->comm_total = br->gpu_time[DAM_KCLASS_NCCL] / nw;
    for (int k = 0; k < DAM_KCLASS_COUNT; k++)
        br->gpu_time[k] /= nw;
    double by_bound[DAM_BOUND_COUNT] = {0};
    for (int k = 0; k < DAM_TTERM_COUNT; k++) {
        br->part[k] /= nw;
        by_bound[dam_tterm_bound((dam_tterm)k)] += br->part[k];
    }
    int best = 0;
    for (int k = 1; k < DAM_BOUND_COUNT; k++)
        if (by_bound[k] > by_bound[best])
            best = k;
    br->bound = (dam_bound)best;
    br->bound_share = total > 0.0 ? by_bound[best] * nw / total : 0.0;
    dam_free(p);
    dam_free(launches);
    dam_free(w);
}
