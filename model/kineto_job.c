/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kineto_job.c: the traces of one job's ranks, read from a folder and
 * merged into one trace with aligned clocks (see kineto.h,
 * dam_ktrace_load_dir).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/kineto.h"

/* Correlation ids of rank i are offset by i << CORR_SHIFT (Kineto's ids
 * count launches from 0 and stay far below 2^40). */
#define CORR_SHIFT 40

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The trace files of dir, sorted, into *out; their number (d filled when
 * there are none or too many). */
static int list_dir(const char *dir, char ***out, dam_diag *d)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        dam_diag_error(d, dir, 0, "cannot read the folder: %s",
                       strerror(errno));
        return -1;
    }
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.' || (!ends_with(de->d_name, ".json") &&
                                     !ends_with(de->d_name, ".json.gz")))
            continue;
        if (n == DAM_KINETO_MAX_RANKS) {
            n++;
            break;
        }
        v = dam_grow(v, sizeof *v, n + 1, &cap);
        v[n++] = dam_strdup(de->d_name);
    }
    closedir(dp);
    *out = v;
    if (n > DAM_KINETO_MAX_RANKS) {
        dam_diag_error(d, dir, 0, "more than %d traces in the folder",
                       DAM_KINETO_MAX_RANKS);
        return (int)n - 1;
    }
    if (n == 0)
        dam_diag_error(d, dir, 0, "no traces (*.json, *.json.gz) in the "
                       "folder");
    if (n > 1)
        qsort(v, n, sizeof *v, by_name);
    return (int)n;
}

static int by_rank(const void *a, const void *b)
{
    const dam_ktrace *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* One rank's traces agree with the others': distributedInfo, world size,
 * distinct ranks, one GPU model. 0, or -1 (d filled). */
static int check_ranks(const dam_ktrace *r, int n, dam_diag *d)
{
    for (int i = 0; i < n; i++) {
        if (r[i].world_size <= 0 || r[i].rank < 0) {
            dam_diag_error(d, r[i].file, 0, "no distributedInfo rank and "
                           "world_size: each trace of a folder must say "
                           "which rank it is");
            return -1;
        }
        if (r[i].world_size != r[0].world_size || r[i].rank >= r[i].world_size) {
            dam_diag_error(d, r[i].file, 0, "rank %d of world size %d does "
                           "not belong with %s (world size %d)", r[i].rank,
                           r[i].world_size, r[0].file, r[0].world_size);
            return -1;
        }
        if (strcmp(r[i].device, r[0].device) != 0) {
            dam_diag_error(d, r[i].file, 0, "GPU '%.60s' differs from %s's "
                           "'%.60s': one job's ranks on one GPU model",
                           r[i].device, r[0].file, r[0].device);
            return -1;
        }
        if (i > 0 && r[i].rank == r[i - 1].rank) {
            dam_diag_error(d, r[i].file, 0, "rank %d again (also %s)",
                           r[i].rank, r[i - 1].file);
            return -1;
        }
    }
    return 0;
}

/* A collective of one rank: its step, its place in the step, its event. */
typedef struct coll {
    int step, k;
    size_t ev;
} coll;

static int by_step_k(const void *a, const void *b)
{
    const coll *x = a, *y = b;
    if (x->step != y->step)
        return (x->step > y->step) - (x->step < y->step);
    return (x->k > y->k) - (x->k < y->k);
}

typedef struct timed {
    double ts;
    size_t ev;
} timed;

static int by_time(const void *a, const void *b)
{
    const timed *x = a, *y = b;
    if (x->ts != y->ts)
        return (x->ts > y->ts) - (x->ts < y->ts);
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The NCCL kernels of r, each with its ProfilerStep number (-1 outside
 * every step span of the step thread) and place in that step by start;
 * sorted by step and place. */
static coll *collectives(const dam_ktrace *r, size_t *n)
{
    coll *c = dam_malloc(((size_t)r->nnccl + 1) * sizeof *c);
    double *ts = dam_malloc(((size_t)r->nnccl + 1) * sizeof *ts);
    size_t m = 0;
    int step_lane = -1;
    for (size_t i = 0; i < r->nev; i++) {
        const dam_kev *e = &r->ev[i];
        if (e->kind == DAM_KEV_STEP && !r->lanes[e->lane].gpu &&
            step_lane < 0)
            step_lane = e->lane;
        if (e->kind == DAM_KEV_KERNEL && e->kclass == DAM_KCLASS_NCCL &&
            m < (size_t)r->nnccl)
            c[m++] = (coll){-1, 0, i};
    }
    /* by start */
    timed *tk = dam_malloc((m + 1) * sizeof *tk);
    for (size_t i = 0; i < m; i++)
        tk[i] = (timed){r->ev[c[i].ev].ts, c[i].ev};
    qsort(tk, m, sizeof *tk, by_time);
    for (size_t i = 0; i < m; i++) {
        c[i].ev = tk[i].ev;
        ts[i] = tk[i].ts;
    }
    dam_free(tk);
    for (size_t i = 0; i < r->nev; i++) {
        const dam_kev *e = &r->ev[i];
        if (e->kind != DAM_KEV_STEP || e->lane != step_lane)
            continue;
        for (size_t j = 0; j < m; j++)
            if (ts[j] >= e->ts && ts[j] < e->ts + e->dur)
                c[j].step = e->step;
    }
    int *seen = NULL; /* per step number: collectives so far */
    size_t cap = 0;
    for (size_t j = 0; j < m; j++) {
        size_t s = (size_t)(c[j].step + 1);
        if (s >= cap) {
            size_t old = cap;
            seen = dam_grow(seen, sizeof *seen, s + 1, &cap);
            memset(seen + old, 0, (cap - old) * sizeof *seen);
        }
        c[j].k = seen[s]++;
    }
    dam_free(seen);
    qsort(c, m, sizeof *c, by_step_k);
    dam_free(ts);
    *n = m;
    return c;
}

/* The entry of c[0..n) (sorted by step and place) for (step, k), or
 * NULL. */
static const coll *find_coll(const coll *c, size_t n, int step, int k)
{
    coll key = {step, k, 0};
    return bsearch(&key, c, n, sizeof *c, by_step_k);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * Match collectives across the ranks r[0..n): the (step, k) of rank 0
 * found on every rank with the same kernel name gets one id (written into
 * ids[i][event]); each rank's shift is the median of rank 0's end minus its
 * own. Returns the number matched.
 */
static int match(dam_ktrace *r, int n, int **ids, double *shift)
{
    coll **c = dam_malloc((size_t)n * sizeof *c);
    size_t *nc = dam_malloc((size_t)n * sizeof *nc);
    for (int i = 0; i < n; i++)
        c[i] = collectives(&r[i], &nc[i]);
    const coll **hit = dam_malloc((size_t)n * sizeof *hit);
    double **diff = dam_malloc((size_t)n * sizeof *diff);
    for (int i = 0; i < n; i++)
        diff[i] = dam_malloc((nc[0] + 1) * sizeof **diff);
    int ncoll = 0;
    for (size_t j = 0; j < nc[0]; j++) {
        const dam_kev *e0 = &r[0].ev[c[0][j].ev];
        int all = 1;
        for (int i = 0; i < n && all; i++) {
            hit[i] = find_coll(c[i], nc[i], c[0][j].step, c[0][j].k);
            all = hit[i] &&
                  !strcmp(dam_ktrace_name(&r[i], &r[i].ev[hit[i]->ev]),
                          dam_ktrace_name(&r[0], e0));
        }
        if (!all)
            continue;
        for (int i = 0; i < n; i++) {
            const dam_kev *e = &r[i].ev[hit[i]->ev];
            ids[i][hit[i]->ev] = ncoll;
            diff[i][ncoll] = (e0->ts + e0->dur) - (e->ts + e->dur);
        }
        ncoll++;
    }
    for (int i = 0; i < n; i++) {
        if (ncoll > 0) {
            qsort(diff[i], (size_t)ncoll, sizeof *diff[i], by_double);
            shift[i] = ncoll % 2 ? diff[i][ncoll / 2]
                                 : 0.5 * (diff[i][ncoll / 2 - 1] +
                                          diff[i][ncoll / 2]);
        } else { /* the traces' own clocks */
            shift[i] = (r[i].origin_us - r[0].origin_us) * 1e-6;
        }
        dam_free(diff[i]);
        dam_free(c[i]);
    }
    dam_free(diff);
    dam_free(hit);
    dam_free(nc);
    dam_free(c);
    return ncoll;
}

static long long offset_id(long long id, int i)
{
    return id >= 0 ? id + ((long long)i << CORR_SHIFT) : id;
}

/* Merge r[0..n) into t with the shifts (their minimum is made 0). */
static void merge(dam_ktrace *t, dam_ktrace *r, int n, int *const *ids,
                  const double *shift)
{
    double lo = INFINITY;
    for (int i = 0; i < n; i++)
        lo = shift[i] < lo ? shift[i] : lo;
    size_t nev = 0, nsyncs = 0;
    int nlanes = 0, nnames = 0;
    for (int i = 0; i < n; i++) {
        nev += r[i].nev;
        nsyncs += r[i].nsyncs;
        nlanes += r[i].nlanes;
        nnames += r[i].nnames;
    }
    t->ev = dam_malloc((nev + 1) * sizeof *t->ev);
    t->syncs = dam_malloc((nsyncs + 1) * sizeof *t->syncs);
    t->lanes = dam_malloc(((size_t)nlanes + 1) * sizeof *t->lanes);
    t->names = dam_malloc(((size_t)nnames + 1) * sizeof *t->names);
    t->ranks = dam_calloc((size_t)n, sizeof *t->ranks);
    int lane0 = 0, name0 = 0;
    for (int i = 0; i < n; i++) {
        const dam_ktrace *x = &r[i];
        double sh = shift[i] - lo;
        dam_krank *k = &t->ranks[i];
        snprintf(k->file, sizeof k->file, "%s", x->file);
        k->rank = x->rank;
        k->shift_s = sh;
        k->nev = (long)x->nev;
        k->span_s = x->span_s;
        k->origin_us = x->origin_us;
        for (int l = 0; l < x->nlanes; l++) {
            t->lanes[lane0 + l] = x->lanes[l];
            t->lanes[lane0 + l].rank = i;
        }
        for (int m = 0; m < x->nnames; m++)
            t->names[name0 + m] = dam_strdup(x->names[m]);
        for (size_t j = 0; j < x->nev; j++) {
            dam_kev e = x->ev[j];
            e.ts += sh;
            e.lane += lane0;
            e.name += name0;
            e.corr = offset_id(e.corr, i);
            e.ext = offset_id(e.ext, i);
            e.coll = ids[i][j];
            t->ev[t->nev++] = e;
        }
        for (size_t j = 0; j < x->nsyncs; j++) {
            dam_ksync s = x->syncs[j];
            s.corr = offset_id(s.corr, i);
            s.wait_corr = offset_id(s.wait_corr, i);
            s.lane += lane0;
            t->syncs[t->nsyncs++] = s;
        }
        for (int kk = 0; kk < DAM_KEV_KIND_COUNT; kk++)
            t->nkind[kk] += x->nkind[kk];
        t->nevents += x->nevents;
        t->nnccl += x->nnccl;
        t->linked += x->linked;
        t->flows_used += x->flows_used;
        if (sh + x->span_s > t->span_s)
            t->span_s = sh + x->span_s;
        lane0 += x->nlanes;
        name0 += x->nnames;
    }
    t->nlanes = lane0;
    t->nnames = name0;
}

int dam_ktrace_load_dir(dam_ktrace *t, const char *dir, dam_diag *d)
{
    memset(t, 0, sizeof *t);
    t->rank = -1;
    t->nranks = 1;
    snprintf(t->file, sizeof t->file, "%s", dir);
    char **files = NULL;
    int before = d->nerr;
    int n = list_dir(dir, &files, d);
    if (n <= 0 || d->nerr > before) {
        for (int i = 0; i < (n > 0 ? n : 0); i++)
            dam_free(files[i]);
        dam_free(files);
        return DAM_EINPUT;
    }
    dam_ktrace *r = dam_calloc((size_t)n, sizeof *r);
    int rc = DAM_OK;
    for (int i = 0; i < n; i++) {
        char path[1024];
        size_t dl = strlen(dir);
        snprintf(path, sizeof path, "%s%s%s", dir,
                 dl > 0 && dir[dl - 1] == '/' ? "" : "/", files[i]);
        if (rc == DAM_OK)
            rc = dam_ktrace_load(&r[i], path, NULL, 0, d);
        dam_free(files[i]);
    }
    dam_free(files);
    if (rc == DAM_OK && n == 1) { /* one trace: itself */
        *t = r[0];
        dam_free(r);
        return DAM_OK;
    }
    if (rc == DAM_OK) {
        qsort(r, (size_t)n, sizeof *r, by_rank);
        rc = check_ranks(r, n, d) == 0 ? DAM_OK : DAM_EINPUT;
    }
    if (rc == DAM_OK) {
        int **ids = dam_malloc((size_t)n * sizeof *ids);
        double *shift = dam_malloc((size_t)n * sizeof *shift);
        for (int i = 0; i < n; i++) {
            ids[i] = dam_malloc((r[i].nev + 1) * sizeof **ids);
            for (size_t j = 0; j < r[i].nev; j++)
                ids[i][j] = -1;
        }
        t->ncoll = match(r, n, ids, shift);
        merge(t, r, n, ids, shift);
        for (int i = 0; i < n; i++)
            dam_free(ids[i]);
        dam_free(ids);
        dam_free(shift);
        t->nranks = n;
        snprintf(t->device, sizeof t->device, "%s", r[0].device);
        t->ndevices = r[0].ndevices;
        t->device_mem = r[0].device_mem;
        t->sms = r[0].sms;
        t->cc_major = r[0].cc_major;
        t->cc_minor = r[0].cc_minor;
        snprintf(t->backend, sizeof t->backend, "%s", r[0].backend);
        t->world_size = r[0].world_size;
        t->origin_us = r[0].origin_us;
        if (t->ncoll > 0)
            snprintf(t->align, sizeof t->align, "clocks aligned on the ends "
                     "of %d collectives matched on every rank (median)",
                     t->ncoll);
        else
            snprintf(t->align, sizeof t->align, "no collective matched on "
                     "every rank: the traces' own clocks, not aligned");
    }
    for (int i = 0; i < n; i++)
        dam_ktrace_free(&r[i]);
    dam_free(r);
    return rc;
}
