/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_whatif.c: levers on a trace's dependency graph and the what-if
 * table (see trace_whatif.h).
 */
#include "solver/trace_whatif.h"

#include <ctype.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/device.h"
#include "solver/rng.h"
#include "solver/whatif.h"

/* ---- parsing ---------------------------------------------------------------- */

static int lever_err(dam_error *err, const char *text, const char *what)
{
    return dam_error_set(err, "--lever", 0, "'%.100s': %s", text, what);
}

/* A whole number in [lo, hi] written in v. */
static int whole(const char *v, double lo, double hi, double *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi)
        return -1;
    *out = (double)x;
    return 0;
}

static int boolean(const char *v)
{
    if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes"))
        return 1;
    if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no"))
        return 0;
    return -1;
}

int dam_tlever_parse(const char *text, dam_tlever *l, dam_error *err)
{
    memset(l, 0, sizeof *l);
    l->kind = -1;
    snprintf(l->text, sizeof l->text, "%s", text);
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return lever_err(err, text, "too long");
    snprintf(buf, sizeof buf, "%s", text);
    int first = 1;
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv;
         kv = strtok_r(NULL, ",", &save), first = 0) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv || !eq[1])
            return lever_err(err, text, "expected KEY=VALUE");
        *eq = '\0';
        const char *k = kv, *v = eq + 1;
        if (first) {
            if (!strcmp(k, "gpu")) {
                if (strlen(v) >= sizeof l->gpu)
                    return lever_err(err, text, "GPU id too long");
                l->kind = DAM_TLEVER_GPU;
                snprintf(l->gpu, sizeof l->gpu, "%s", v);
            } else if (!strcmp(k, "precision")) {
                dam_precision p;
                if (dam_precision_parse(v, &p) != 0)
                    return lever_err(err, text, "precision: expected one of "
                                     "fp32, tf32, fp16, bf16, fp8, int8");
                l->kind = DAM_TLEVER_PRECISION;
                l->prec = (int)p;
            } else if (!strcmp(k, "loader_workers")) {
                if (whole(v, 1, 256, &l->workers) != 0)
                    return lever_err(err, text, "loader_workers: expected a "
                                     "whole number in [1, 256]");
                l->kind = DAM_TLEVER_LOADER;
            } else if (!strcmp(k, "batch")) {
                if (whole(v, 1, 65536, &l->workers) != 0)
                    return lever_err(err, text, "batch: expected a whole "
                                     "number in [1, 65536]");
                l->kind = DAM_TLEVER_BATCH;
            } else if (!strcmp(k, "cuda_graphs") || !strcmp(k, "overlap")) {
                if (boolean(v) != 1)
                    return lever_err(err, text, "expected 1 (true): the "
                                     "trace already runs without it");
                l->kind = k[0] == 'c' ? DAM_TLEVER_CUDA_GRAPHS
                                      : DAM_TLEVER_OVERLAP;
            } else {
                return lever_err(err, text, "unknown trace lever: expected "
                                 "gpu, precision, loader_workers, batch, "
                                 "cuda_graphs or overlap");
            }
            continue;
        }
        if (!strcmp(k, "from") && l->kind == DAM_TLEVER_GPU) {
            if (strlen(v) >= sizeof l->from)
                return lever_err(err, text, "from: GPU id too long");
            snprintf(l->from, sizeof l->from, "%s", v);
        } else if (!strcmp(k, "from") && (l->kind == DAM_TLEVER_LOADER ||
                                          l->kind == DAM_TLEVER_BATCH)) {
            double hi = l->kind == DAM_TLEVER_BATCH ? 65536 : 256;
            if (whole(v, 1, hi, &l->from_workers) != 0)
                return lever_err(err, text, l->kind == DAM_TLEVER_BATCH
                                 ? "from: expected a whole number in "
                                   "[1, 65536]"
                                 : "from: expected a whole number in "
                                   "[1, 256]");
        } else {
            return lever_err(err, text, "unknown key for this lever");
        }
    }
    if (l->kind == DAM_TLEVER_LOADER && l->from_workers <= 0.0)
        return lever_err(err, text, "the trace does not record how many "
                         "loader workers it ran: say it with from=N");
    if (l->kind == DAM_TLEVER_BATCH && l->from_workers <= 0.0)
        return lever_err(err, text, "the trace does not record its batch "
                         "size: say it with from=N");
    return DAM_OK;
}

/* ---- the trace's GPU ------------------------------------------------------------ */

const dam_gpu *dam_trace_gpu(const dam_ktrace *t, const dam_catalog *cat,
                             const char *from, char *why, size_t n)
{
    if (from && *from) {
        const dam_gpu *g = dam_catalog_gpu(cat, from);
        if (!g)
            snprintf(why, n, "from=%.60s is not in the GPU catalog", from);
        return g;
    }
    if (!t->device[0]) {
        snprintf(why, n, "the trace has no deviceProperties: name its GPU "
                 "with --lever gpu=ID,from=ID");
        return NULL;
    }
    /* "NVIDIA A100-SXM4-80GB" -> "A100-SXM4-80GB" */
    char id[DAM_NAME_MAX];
    const char *s = t->device;
    if (!strncmp(s, "NVIDIA ", 7))
        s += 7;
    size_t k = 0;
    for (; *s && k + 1 < sizeof id; s++)
        id[k++] = *s == ' ' ? '-' : *s;
    id[k] = '\0';
    const dam_gpu *g = dam_catalog_gpu(cat, id);
    if (g)
        return g;
    /* A100 boards by form factor and memory (the PG509-200 is an SXM4
     * board: traces/README.md) */
    if (strstr(id, "A100")) {
        char alt[DAM_ID_MAX];
        snprintf(alt, sizeof alt, "A100-%s-%dGB",
                 strstr(id, "PCIE") || strstr(id, "PCIe") ? "PCIE" : "SXM4",
                 t->device_mem > 48e9 ? 80 : 40);
        if ((g = dam_catalog_gpu(cat, alt)) != NULL)
            return g;
    }
    snprintf(why, n, "the trace's GPU '%.60s' is not in the catalog: name "
             "it with --lever gpu=ID,from=ID", t->device);
    return NULL;
}

/* ---- scaling ---------------------------------------------------------------------- */

static double rate(const dam_gpu *g, int p)
{
    double r = g->peak[p] > 0.0 ? dam_device_gemm_rate(g, (dam_precision)p)
                                : 0.0;
    return r > 0.0 ? r : dam_device_gemm_rate(g, DAM_FP32);
}

static double mem_rate(const dam_gpu *g)
{
    return g->mem_bw * (g->dev.mem.v > 0.0 ? g->dev.mem.v : 0.78);
}

static double h2d_rate(const dam_gpu *g)
{
    return g->dev.h2d.v > 0.0 ? g->dev.h2d.v : 0.4 * g->pcie_bw;
}

static double ratio(double a, double b)
{
    return a > 0.0 && b > 0.0 ? a / b : 1.0;
}

/* The device model's time of node n's GEMM (its operator's shape) on g at
 * precision p (the fp32 rate where g lacks p), s. */
static double shape_time(const dam_gpu *g, int p, const dam_rnode *n)
{
    dam_precision q = g->peak[p] > 0.0 ? (dam_precision)p : DAM_FP32;
    return dam_device_gemm_time(g, q, n->gemm[0], n->gemm[1], n->gemm[2],
                                n->gemm[3], dam_precision_bytes(q), NULL);
}

/* Time on b over time on a of node n. */
static double gpu_scale(const dam_ktrace *t, const dam_rnode *n,
                        const dam_gpu *a, const dam_gpu *b, int defprec)
{
    const char *name = t->names[t->ev[n->ev].name];
    switch (n->kclass) {
    case DAM_KCLASS_GEMM:
    case DAM_KCLASS_ATTENTION: {
        int p = n->prec >= 0 ? n->prec : defprec;
        if (n->gemm[0] > 0.0f) /* its shape: the device model's GEMM */
            return ratio(shape_time(b, p, n), shape_time(a, p, n));
        return ratio(rate(a, p), rate(b, p));
    }
    case DAM_KCLASS_COPY:
        if (strstr(name, "HtoD") || strstr(name, "DtoH"))
            return ratio(h2d_rate(a), h2d_rate(b));
        return ratio(mem_rate(a), mem_rate(b));
    case DAM_KCLASS_NCCL:
        return ratio(dam_device_fabric_busbw(a, 0.0),
                     dam_device_fabric_busbw(b, 0.0));
    default:
        return ratio(mem_rate(a), mem_rate(b));
    }
}

/* One draw of a GPU's uncertain constants (z: four standard normals). */
static void perturb(dam_gpu *g, const double *z)
{
    dam_est *e[4] = {NULL, &g->dev.mem, &g->dev.busbw, &g->dev.h2d};
    for (int p = 0; p < DAM_PREC_COUNT; p++) {
        dam_est *x = &g->dev.gemm[p];
        double v = x->v + z[0] * x->sd;
        x->v = v > 0.2 * x->v ? v : 0.2 * x->v;
    }
    for (int i = 1; i < 4; i++) {
        double v = e[i]->v + z[i] * e[i]->sd;
        e[i]->v = v > 0.2 * e[i]->v ? v : 0.2 * e[i]->v;
    }
}

/* ---- levers ------------------------------------------------------------------------ */

typedef struct ctx {
    const dam_ktrace *t;
    const dam_catalog *cat;
    const dam_gpu *src;       /* the trace's GPU (NULL: unknown) */
    char src_why[200];        /* why it is unknown */
    dam_gpu cur;              /* the GPU after the levers so far */
    int have_cur;
    const double *z;          /* this draw's normals (NULL: central) */
    const double *zg;         /* its normal for the graph gap (NULL:
                                 central) */
    int defprec;
} ctx;

static int fail(char *msg, size_t n, const char *a, const char *b)
{
    snprintf(msg, n, "%s%s", a, b);
    return -1;
}

/* The step index of rank `rank` holding host time t (-1 before the
 * first). */
static int step_at(const dam_rgraph *g, int rank, double t)
{
    int s = -1;
    for (int i = 0; i < g->nsteps; i++)
        if (g->steps[i].rank == rank &&
            g->nodes[g->steps[i].mark[0]].m_start <= t)
            s = i;
    return s;
}

/* CUDA graphs: see trace_whatif.h. gap: the GPU's graph_gap, s. */
static void cuda_graphs(dam_rgraph *h, double gap)
{
    const dam_ktrace *t = h->trace;
    int nn = h->nnodes, ns = h->nsteps + 1, nl = t->nlanes;
    int *first = dam_malloc((size_t)nl * (size_t)ns * sizeof *first);
    for (int i = 0; i < nl * ns; i++)
        first[i] = -1;
    int *group = dam_malloc(((size_t)nn + 1) * sizeof *group);
    for (int i = 0; i < nn; i++) {
        dam_rnode *n = &h->nodes[i];
        group[i] = -1;
        if (n->kind != DAM_RNODE_GPU || n->launch < 0 ||
            t->ev[n->ev].kind != DAM_KEV_KERNEL)
            continue;
        const dam_rnode *l = &h->nodes[n->launch];
        int gi = l->lane * ns +
                 step_at(h, t->lanes[l->lane].rank, l->m_start) + 1;
        group[i] = gi;
        if (first[gi] < 0 || h->nodes[first[gi]].m_start > l->m_start)
            first[gi] = n->launch;
    }
    for (int i = 0; i < nn; i++) {
        if (group[i] < 0)
            continue;
        dam_rnode *n = &h->nodes[i];
        int f = first[group[i]];
        if (n->launch != f)
            h->nodes[n->launch].dur = 0.0;
        /* a collective of several ranks: its arrival holds its edges */
        int a = n->coll >= 0 ? n->coll : i;
        for (int j = h->in_first[a]; j < h->in_first[a + 1]; j++)
            if (h->edges[j].from == n->launch &&
                h->edges[j].kind == DAM_REDGE_START_START)
                h->edges[j].from = f;
        dam_rnode *x = &h->nodes[a];
        x->delay = n->bind_launch || x->delay > gap ? gap : x->delay;
    }
    dam_free(group);
    dam_free(first);
    dam_rgraph_reindex(h);
}

/* Overlap: compute stops waiting for collectives on other streams (the
 * edges go: an edge only known late would still hold its target back). */
static void overlap(dam_rgraph *h)
{
    int m = 0;
    for (int j = 0; j < h->nedges; j++) {
        const dam_redge *e = &h->edges[j];
        const dam_rnode *a = &h->nodes[e->from], *b = &h->nodes[e->to];
        if (a->kind == DAM_RNODE_GPU && b->kind == DAM_RNODE_GPU &&
            a->lane != b->lane && a->kclass == DAM_KCLASS_NCCL &&
            b->kclass != DAM_KCLASS_NCCL)
            continue;
        h->edges[m++] = *e;
    }
    h->nedges = m;
    dam_rgraph_reindex(h);
}

/* A batch r times the trace's: see trace_whatif.h. */
static void batch(const ctx *c, dam_rgraph *h, double r)
{
    const dam_ktrace *t = c->t;
    for (int i = 0; i < h->nnodes; i++) {
        dam_rnode *x = &h->nodes[i];
        if (x->data_wait > 0.0) {
            x->delay += x->data_wait * (r - 1.0);
            x->data_wait *= r;
        }
        if (x->kind != DAM_RNODE_GPU)
            continue;
        const char *name = t->names[t->ev[x->ev].name];
        switch (x->kclass) {
        case DAM_KCLASS_GEMM:
        case DAM_KCLASS_ATTENTION:
            if (x->gemm[0] > 0.0f && c->have_cur) {
                int p = x->prec >= 0 ? x->prec : c->defprec;
                dam_rnode y = *x;
                y.gemm[0] = (float)((double)x->gemm[0] * r);
                x->dur *= ratio(shape_time(&c->cur, p, &y),
                                shape_time(&c->cur, p, x));
            } else {
                x->dur *= r;
            }
            break;
        case DAM_KCLASS_ELEMENTWISE:
            x->dur *= r;
            break;
        case DAM_KCLASS_COPY:
            if (strstr(name, "HtoD"))
                x->dur *= r;
            break;
        default: /* optimizer, collectives: parameter-sized */
            break;
        }
    }
}

/* Apply lever l to h; 0, or -1 with a message (the lever cannot apply). */
static int apply(ctx *c, const dam_tlever *l, dam_rgraph *h, char *msg,
                 size_t n)
{
    const dam_ktrace *t = c->t;
    switch (l->kind) {
    case DAM_TLEVER_GPU: {
        char why[200];
        const dam_gpu *from = l->from[0]
            ? dam_trace_gpu(t, c->cat, l->from, why, sizeof why)
            : (c->have_cur ? &c->cur : NULL);
        if (!from)
            return fail(msg, n, l->from[0] ? why : c->src_why, "");
        const dam_gpu *to = dam_catalog_gpu(c->cat, l->gpu);
        if (!to)
            return fail(msg, n, l->gpu, " is not in the GPU catalog");
        dam_gpu a = *from, b = *to;
        if (c->z) {
            perturb(&a, c->z);
            perturb(&b, c->z + 4);
        }
        for (int i = 0; i < h->nnodes; i++)
            if (h->nodes[i].kind == DAM_RNODE_GPU)
                h->nodes[i].dur *= gpu_scale(t, &h->nodes[i], &a, &b,
                                             c->defprec);
        c->cur = *to;
        c->have_cur = 1;
        return 0;
    }
    case DAM_TLEVER_PRECISION: {
        if (!c->have_cur)
            return fail(msg, n, "the trace's GPU is not in the catalog: "
                        "add gpu=ID,from=ID before it", "");
        dam_gpu a = c->cur;
        if (c->z)
            perturb(&a, c->z + 4);
        if (!(a.peak[l->prec] > 0.0))
            return fail(msg, n, dam_precision_name((dam_precision)l->prec),
                        ": the GPU has no peak at this precision");
        for (int i = 0; i < h->nnodes; i++) {
            dam_rnode *x = &h->nodes[i];
            if (x->kind != DAM_RNODE_GPU || x->prec < 0)
                continue;
            if (x->gemm[0] > 0.0f)
                x->dur *= ratio(shape_time(&a, l->prec, x),
                                shape_time(&a, x->prec, x));
            else
                x->dur *= ratio(rate(&a, x->prec), rate(&a, l->prec));
        }
        return 0;
    }
    case DAM_TLEVER_LOADER: {
        double f = l->from_workers / l->workers;
        for (int i = 0; i < h->nnodes; i++) {
            dam_rnode *x = &h->nodes[i];
            if (x->data_wait > 0.0) {
                x->delay -= x->data_wait * (1.0 - f);
                if (x->delay < 0.0)
                    x->delay = 0.0;
                x->data_wait *= f;
            }
        }
        return 0;
    }
    case DAM_TLEVER_BATCH:
        batch(c, h, l->workers / l->from_workers);
        return 0;
    case DAM_TLEVER_CUDA_GRAPHS:
        if (!c->have_cur)
            return fail(msg, n, "the trace's GPU is not in the catalog "
                        "(its graph_gap is needed): add gpu=ID,from=ID", "");
        {
            const dam_est *gg = &c->cur.dev.graph_gap;
            double gap = gg->v;
            if (c->zg) {
                gap = gg->v + *c->zg * gg->sd;
                if (gap < 0.2 * gg->v)
                    gap = 0.2 * gg->v;
            }
            cuda_graphs(h, gap);
        }
        return 0;
    case DAM_TLEVER_OVERLAP:
        overlap(h);
        return 0;
    default:
        return fail(msg, n, "unknown lever", "");
    }
}

/* Replay base under levers l[0..nl) (draw z or central); the median step,
 * or -1 with msg. */
static double solve(const dam_rgraph *base, ctx *c0, const dam_tlever *l,
                    int nl, const double *z, const double *zg,
                    dam_tbreak *br, dam_trow *row, char *msg, size_t n)
{
    ctx c = *c0;
    c.z = z;
    c.zg = zg;
    dam_rgraph h;
    dam_rgraph_copy(&h, base);
    double step = -1.0;
    int ok = 1;
    for (int i = 0; i < nl && ok; i++)
        ok = apply(&c, &l[i], &h, msg, n) == 0;
    dam_error e;
    if (ok && dam_replay_run(&h, &e) == DAM_OK) {
        dam_tbreak own;
        if (!br)
            br = &own;
        dam_replay_breakdown(&h, br);
        step = br->steps > 0 ? br->window_s / br->steps : 0.0;
        for (int r = 0; row && r < h.nranks && h.nranks > 1; r++) {
            dam_rrank x;
            dam_replay_rank(&h, r, &x);
            row->rank_step_s[r] = x.step_s;
            row->rank_wait_s[r] = x.wait_s;
        }
        if (row)
            row->slowest = dam_replay_slowest(&h, 1);
    } else if (ok) {
        snprintf(msg, n, "%.400s", e.msg);
    }
    dam_rgraph_free(&h);
    return step;
}

/* ---- the table ------------------------------------------------------------------------ */

/* Bounds a lever can move. */
static unsigned relieves(int kind)
{
    switch (kind) {
    case DAM_TLEVER_GPU:
        return DAM_BOUND_BIT(DAM_BOUND_COMPUTE) |
               DAM_BOUND_BIT(DAM_BOUND_MEMORY) |
               DAM_BOUND_BIT(DAM_BOUND_COMM) |
               DAM_BOUND_BIT(DAM_BOUND_TRANSFER);
    case DAM_TLEVER_PRECISION:
        return DAM_BOUND_BIT(DAM_BOUND_COMPUTE);
    case DAM_TLEVER_LOADER:
        return DAM_BOUND_BIT(DAM_BOUND_DATA);
    case DAM_TLEVER_CUDA_GRAPHS:
        return DAM_BOUND_BIT(DAM_BOUND_LATENCY);
    case DAM_TLEVER_BATCH: /* fixed costs shrink per sample */
        return DAM_BOUND_BIT(DAM_BOUND_LATENCY) |
               DAM_BOUND_BIT(DAM_BOUND_COMM);
    default:
        return DAM_BOUND_BIT(DAM_BOUND_COMM);
    }
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n) (linear between order statistics). */
static double quantile(const double *v, int n, double q)
{
    double k = q * (n - 1);
    int i = (int)k;
    return i + 1 < n ? v[i] + (k - i) * (v[i + 1] - v[i]) : v[n - 1];
}

static void fill_row(dam_trow *r, const dam_rgraph *g, ctx *c,
                     const dam_tlever *l, int nl, const double *z,
                     const double *zg, int draws, const dam_trow *base)
{
    r->step_s = solve(g, c, l, nl, NULL, NULL, &r->br, r, r->error,
                      sizeof r->error);
    if (r->step_s < 0.0) {
        char e[sizeof r->error];
        memcpy(e, r->error, sizeof e);
        r->verdict = DAM_VERDICT_FAILED;
        snprintf(r->why, sizeof r->why, "cannot apply: %.440s", e);
        return;
    }
    double rb = 1.0; /* batch ratio: speed-ups per sample */
    for (int i = 0; i < nl; i++)
        if (l[i].kind == DAM_TLEVER_BATCH)
            rb *= l[i].workers / l[i].from_workers;
    r->speedup = r->step_s > 0.0 ? base->step_s * rb / r->step_s : 1.0;
    int device = 0;
    for (int i = 0; i < nl; i++)
        device |= l[i].kind == DAM_TLEVER_GPU ||
                  l[i].kind == DAM_TLEVER_PRECISION ||
                  l[i].kind == DAM_TLEVER_CUDA_GRAPHS;
    if (device && draws > 1) {
        double *v = dam_malloc((size_t)draws * sizeof *v);
        int m = 0, faster = 0;
        char msg[200];
        for (int d = 0; d < draws; d++) {
            double s = solve(g, c, l, nl, z + 8 * d, zg + d, NULL, NULL, msg,
                             sizeof msg);
            if (s > 0.0) {
                v[m++] = s;
                faster += base->step_s * rb / s >= 1.02;
            }
        }
        if (m > 1) {
            qsort(v, (size_t)m, sizeof *v, by_double);
            r->has_interval = 1;
            r->step_lo = quantile(v, m, 0.05);
            r->step_hi = quantile(v, m, 0.95);
            r->speedup_lo = base->step_s * rb / r->step_hi;
            r->speedup_hi = base->step_s * rb / r->step_lo;
            r->p_faster = (double)faster / m;
        }
        dam_free(v);
    }
    unsigned moves = 0;
    for (int i = 0; i < nl; i++)
        moves |= relieves(l[i].kind);
    dam_bound b = base->br.bound;
    double before = 0.0, after = 0.0;
    for (int k = 0; k < DAM_TTERM_COUNT; k++)
        if (dam_tterm_bound((dam_tterm)k) == b) {
            before += base->br.part[k];
            after += r->br.part[k];
        }
    if (r->speedup >= 1.02 && rb != 1.0) {
        r->verdict = DAM_VERDICT_WORKS;
        snprintf(r->why, sizeof r->why,
                 "%.3g ms a step at %.3gx the batch instead of %.3g ms: "
                 "%.2fx the samples per second; the binding term, %s, goes "
                 "from %.3g to %.3g ms a sample-equivalent step",
                 r->step_s * 1e3, rb, base->step_s * 1e3, r->speedup,
                 dam_bound_name(b), before * 1e3, after / rb * 1e3);
    } else if (r->speedup >= 1.02) {
        r->verdict = DAM_VERDICT_WORKS;
        snprintf(r->why, sizeof r->why,
                 "%.3g ms -> %.3g ms a step (%.2fx); the binding term, %s, "
                 "goes from %.3g to %.3g ms",
                 base->step_s * 1e3, r->step_s * 1e3, r->speedup,
                 dam_bound_name(b), before * 1e3, after * 1e3);
    } else if (r->speedup > 1.0 / 1.02) {
        r->verdict = DAM_VERDICT_WASTED;
        snprintf(r->why, sizeof r->why,
                 "%.2fx: %s binds (%.0f %% of the step)%s", r->speedup,
                 dam_bound_name(b), 100.0 * base->br.bound_share,
                 moves & DAM_BOUND_BIT(b)
                     ? ", and this lever barely moves it"
                     : ", a term this lever does not move");
    } else {
        r->verdict = DAM_VERDICT_HURTS;
        snprintf(r->why, sizeof r->why,
                 "%.3g ms -> %.3g ms a step: slower (%.2fx)",
                 base->step_s * 1e3, r->step_s * 1e3, r->speedup);
    }
}

int dam_trace_whatif(const dam_rgraph *g, const dam_catalog *cat,
                     const dam_tlever *levers, int nlevers, int draws,
                     unsigned long seed, dam_twhatif *w, dam_error *err)
{
    memset(w, 0, sizeof *w);
    const dam_ktrace *t = g->trace;
    ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.cat = cat;
    c.src = dam_trace_gpu(t, cat, NULL, c.src_why, sizeof c.src_why);
    if (c.src) {
        c.cur = *c.src;
        c.have_cur = 1;
        snprintf(w->gpu, sizeof w->gpu, "%s", c.src->id);
    }
    /* the GEMM precision of kernels whose name does not say: the most
     * common one among those that do (fp32 when none says) */
    long count[DAM_PREC_COUNT] = {0};
    for (int i = 0; i < g->nnodes; i++) {
        const dam_rnode *n = &g->nodes[i];
        if (n->kind != DAM_RNODE_GPU || (n->kclass != DAM_KCLASS_GEMM &&
                                         n->kclass != DAM_KCLASS_ATTENTION))
            continue;
        if (n->prec >= 0)
            count[n->prec]++;
        else
            w->gemm_unknown++;
    }
    c.defprec = DAM_FP32;
    for (int p = 0; p < DAM_PREC_COUNT; p++)
        if (count[p] > count[c.defprec])
            c.defprec = p;
    w->default_prec = c.defprec;
    w->measured_s = dam_replay_step(g, 0);
    w->measured_mean_s = w->measured_s;
    w->nranks = g->nranks;
    w->nsteps = g->nsteps;
    if (g->nranks > 1) {
        dam_rrank x;
        dam_replay_rank(g, dam_replay_slowest(g, 0), &x);
        if (x.steps > 0)
            w->measured_mean_s = x.measured_s;
    } else if (g->nsteps > 0) {
        double sum = 0.0;
        for (int i = 0; i < g->nsteps; i++)
            sum += g->steps[i].measured_s;
        w->measured_mean_s = sum / g->nsteps;
    }
    /* paired draws: eight normals each (four constants of two GPUs) */
    if (draws > 1000)
        draws = 1000;
    double *z = dam_malloc(((size_t)draws * 8 + 1) * sizeof *z);
    gsl_rng *rng = dam_rng_create(seed, 25);
    for (int i = 0; i < draws * 8; i++)
        z[i] = gsl_ran_gaussian(rng, 1.0);
    gsl_rng_free(rng);
    /* and one for the GPU's graph gap (CUDA graphs), from its own stream
     * so the eight above stay as they were */
    double *zg = dam_malloc(((size_t)draws + 1) * sizeof *zg);
    rng = dam_rng_create(seed, 26);
    for (int i = 0; i < draws; i++)
        zg[i] = gsl_ran_gaussian(rng, 1.0);
    gsl_rng_free(rng);
    w->draws = draws > 1 ? draws : 0;
    dam_trow *base = &w->rows[0];
    snprintf(base->name, sizeof base->name, "baseline (replay)");
    base->step_s = solve(g, &c, NULL, 0, NULL, NULL, &base->br, base,
                         base->error,
                         sizeof base->error);
    if (base->step_s < 0.0) {
        dam_free(z);
        dam_free(zg);
        return dam_error_set(err, t->file, 0, "%s", base->error);
    }
    base->speedup = 1.0;
    base->verdict = DAM_VERDICT_BASELINE;
    w->nrows = 1;
    dam_tlever works[DAM_TWHATIF_MAX];
    int nworks = 0;
    for (int i = 0; i < nlevers && w->nrows < DAM_TWHATIF_MAX - 1; i++) {
        dam_trow *r = &w->rows[w->nrows++];
        snprintf(r->name, sizeof r->name, "%s", levers[i].text);
        fill_row(r, g, &c, &levers[i], 1, z, zg, draws, base);
        if (r->verdict == DAM_VERDICT_WORKS)
            works[nworks++] = levers[i];
    }
    if (nworks >= 2) {
        dam_trow *r = &w->rows[w->nrows++];
        size_t k = 0;
        for (int i = 0; i < nworks; i++)
            k += (size_t)snprintf(r->name + k, k < sizeof r->name
                                  ? sizeof r->name - k : 0, "%s%s",
                                  i ? " + " : "", works[i].text);
        fill_row(r, g, &c, works, nworks, z, zg, draws, base);
    }
    dam_free(z);
    dam_free(zg);
    return DAM_OK;
}
