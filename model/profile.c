/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * profile.c: torch.profiler Chrome traces into GPU time per operator class
 * (see profile.h). The GPU events are collected into one array, classified
 * once, then summed; the busy union and the exposed NCCL time come from the
 * intervals sorted by start.
 */
#include "model/profile.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/infile.h"

const char *dam_kernel_class_name(dam_kernel_class k)
{
    static const char *const names[DAM_KCLASS_COUNT] = {
        "gemm", "attention", "elementwise", "optimizer", "copy", "nccl"};
    return (unsigned)k < DAM_KCLASS_COUNT ? names[k] : "?";
}

/* Case-insensitive substring test. */
static int has(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] &&
               tolower((unsigned char)s[i]) == (unsigned char)needle[i])
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

static int has_any(const char *s, const char *const *needles)
{
    for (; *needles; needles++)
        if (has(s, *needles))
            return 1;
    return 0;
}

/* The name rules, lower-case needles. The "884"/"16816" tags are the
 * tensor-core instruction shapes in cuBLAS kernel names (volta_h884gemm,
 * ampere_bf16_s16816gemm); nvjet is Hopper cuBLAS's kernel family. */
static const char *const nccl_names[] = {"nccl", NULL};
static const char *const attention_names[] = {
    "flash", "fmha", "attention", "attn", "mha_", "sdpa", NULL};
static const char *const optimizer_names[] = {
    "multi_tensor_apply", "adam", "sgd_", "lamb_stage", "lambstage",
    "adagrad", "optimizer",
    NULL};
static const char *const gemm_names[] = {
    "gemm", "gemv", "cutlass", "xmma", "cublas", "nvjet", "s16816",
    "h16816", "884", "dgrad", "wgrad", "fprop", "convolve", "conv2d",
    "winograd", "splitkreduce", NULL};

/* 1 when the name matches a rule; used to count unclassified kernels. */
static int named(const char *name)
{
    return has_any(name, nccl_names) || has_any(name, attention_names) ||
           has_any(name, optimizer_names) || has_any(name, gemm_names) ||
           has_any(name, (const char *const[]){
               "elementwise", "reduce", "norm", "softmax", "dropout", "gelu",
               "relu", "silu", "act", "add", "mul", "cast", "copy", "index",
               "embedding", "loss", "cat", "pool", "fill", NULL});
}

dam_kernel_class dam_kernel_classify(const char *cat, const char *name)
{
    if (has(cat, "memcpy") || has(cat, "memset"))
        return DAM_KCLASS_COPY;
    if (has_any(name, nccl_names))
        return DAM_KCLASS_NCCL;
    if (has_any(name, attention_names))
        return DAM_KCLASS_ATTENTION;
    if (has_any(name, optimizer_names))
        return DAM_KCLASS_OPTIMIZER;
    if (has_any(name, gemm_names))
        return DAM_KCLASS_GEMM;
    return DAM_KCLASS_ELEMENTWISE;
}

/* One GPU event, s. */
typedef struct span {
    double t0, t1;
    int cls;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Merge sorted spans (by start) of the selected classes into disjoint
 * intervals, written to out; returns their count. */
static size_t merge(const span *v, size_t n, int nccl, span *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if ((v[i].cls == DAM_KCLASS_NCCL) != nccl)
            continue;
        if (m > 0 && v[i].t0 <= out[m - 1].t1) {
            if (v[i].t1 > out[m - 1].t1)
                out[m - 1].t1 = v[i].t1;
        } else {
            out[m++] = v[i];
        }
    }
    return m;
}

static int is_gpu_cat(const char *cat)
{
    return strcmp(cat, "kernel") == 0 || strcmp(cat, "Kernel") == 0 ||
           strcmp(cat, "gpu_memcpy") == 0 || strcmp(cat, "Memcpy") == 0 ||
           strcmp(cat, "gpu_memset") == 0 || strcmp(cat, "Memset") == 0;
}

static int is_step(const char *cat, const char *name, int device)
{
    if (strncmp(name, "ProfilerStep#", 13) != 0)
        return 0;
    if (device)
        return strcmp(cat, "gpu_user_annotation") == 0;
    return strcmp(cat, "user_annotation") == 0 || strcmp(cat, "cpu_op") == 0;
}

/* The ranges a trace event's numbers must lie in. ts: microseconds from
 * the trace's epoch (torch.profiler writes Unix-epoch microseconds, about
 * 1.7e15 in 2024; 1e17 leaves three millennia); dur: one event of at most
 * 1e12 us (11.6 days, far beyond any kernel or step); bytes: one copy of
 * at most 1e15 bytes (1 PB, beyond any host's memory). Inside them every
 * sum damsim forms over a trace of at most DAM_MAX_INPUT_BYTES stays
 * finite. */
#define DAM_PROFILE_MAX_TS_US 1e17
#define DAM_PROFILE_MAX_DUR_US 1e12
#define DAM_PROFILE_MAX_BYTES 1e15

/* A number member of an event, or -1 when absent or not a number. */
static int num(const json_t *ev, const char *key, double *v)
{
    const json_t *x = json_object_get(ev, key);
    if (!json_is_number(x))
        return -1;
    *v = json_number_value(x);
    return isfinite(*v) ? 0 : -1;
}

/* The trace's JSON: text, or path's content when text is NULL; NULL after
 * an error into d. */
static json_t *load_json(const char *path, const char *text, dam_diag *d)
{
    json_error_t je;
    char *owned = NULL;
    if (!text) {
        char why[64];
        size_t n = 0;
        owned = dam_infile_read(path, &n, why, sizeof why);
        if (!owned) {
            dam_diag_error(d, path, 0, "cannot read the trace: %s", why);
            return NULL;
        }
    }
    json_t *root = json_loads(text ? text : owned, 0, &je);
    dam_free(owned);
    if (!root)
        dam_diag_error(d, path, je.line > 0 ? je.line : 0,
                       "not a JSON trace: %s", je.text);
    return root;
}

/* Busy time: the union of every GPU event of v (ns, sorted by start; u
 * has room for ns), s; *t_last: the last end. */
static double busy_union(const span *v, size_t ns, span *u, double *t_last)
{
    double busy = 0.0;
    size_t m = 0;
    *t_last = v[0].t1;
    for (size_t i = 0; i < ns; i++) {
        if (v[i].t1 > *t_last)
            *t_last = v[i].t1;
        if (m > 0 && v[i].t0 <= u[m - 1].t1) {
            if (v[i].t1 > u[m - 1].t1)
                u[m - 1].t1 = v[i].t1;
        } else {
            u[m++] = v[i];
        }
    }
    for (size_t i = 0; i < m; i++)
        busy += u[i].t1 - u[i].t0;
    return busy;
}

/* Exposed NCCL: NCCL intervals minus the union of everything else (u and
 * c have room for ns each), s. */
static double exposed_nccl(const span *v, size_t ns, span *u, span *c)
{
    size_t nc = merge(v, ns, 0, c), nn = merge(v, ns, 1, u);
    double exposed = 0.0;
    size_t j = 0;
    for (size_t i = 0; i < nn; i++) {
        double covered = 0.0;
        while (j < nc && c[j].t1 <= u[i].t0)
            j++;
        for (size_t k = j; k < nc && c[k].t0 < u[i].t1; k++) {
            double a = c[k].t0 > u[i].t0 ? c[k].t0 : u[i].t0;
            double b = c[k].t1 < u[i].t1 ? c[k].t1 : u[i].t1;
            if (b > a)
                covered += b - a;
        }
        exposed += (u[i].t1 - u[i].t0) - covered;
    }
    return exposed;
}

int dam_profile_load(dam_profile *p, const char *path, const char *text,
                     dam_diag *d)
{
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "%s", path);
    json_t *root = load_json(path, text, d);
    if (!root)
        return DAM_EINPUT;
    int before = d->nerr;
    const json_t *evs = json_object_get(root, "traceEvents");
    if (!json_is_array(evs)) {
        dam_diag_error(d, path, 0,
                       "no \"traceEvents\" array: not a torch.profiler "
                       "(Chrome) trace");
        json_decref(root);
        return DAM_EINPUT;
    }
    const json_t *props = json_object_get(root, "deviceProperties");
    if (json_is_array(props) && json_array_size(props) > 0) {
        const char *dn =
            json_string_value(json_object_get(json_array_get(props, 0), "name"));
        if (dn)
            snprintf(p->device, sizeof p->device, "%s", dn);
    }
    size_t n = json_array_size(evs), ns = 0;
    span *v = dam_malloc((n ? n : 1) * sizeof *v);
    double host_steps = 0.0, dev_steps = 0.0;
    int nhost = 0, ndev = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *ev = json_array_get(evs, i);
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        const char *name = json_string_value(json_object_get(ev, "name"));
        if (!ph || strcmp(ph, "X") != 0 || !cat || !name)
            continue;
        int gpu = is_gpu_cat(cat);
        int hstep = is_step(cat, name, 0), dstep = is_step(cat, name, 1);
        if (!gpu && !hstep && !dstep)
            continue;
        double ts, dur;
        if (num(ev, "ts", &ts) < 0 || num(ev, "dur", &dur) < 0 ||
            !(ts >= 0.0 && ts <= DAM_PROFILE_MAX_TS_US) ||
            !(dur >= 0.0 && dur <= DAM_PROFILE_MAX_DUR_US)) {
            if (d->nerr - before < 10)
                dam_diag_error(d, path, 0,
                               "event %zu (\"%.60s\"): 'ts' must be a number "
                               "in [0, %g] us and 'dur' in [0, %g] us", i,
                               name, DAM_PROFILE_MAX_TS_US,
                               DAM_PROFILE_MAX_DUR_US);
            continue;
        }
        if (hstep) {
            host_steps += dur * 1e-6;
            nhost++;
            continue;
        }
        if (dstep) {
            dev_steps += dur * 1e-6;
            ndev++;
            continue;
        }
        int cls = (int)dam_kernel_classify(cat, name);
        p->events++;
        if (cls == DAM_KCLASS_ELEMENTWISE && !named(name))
            p->unclassified++;
        v[ns].t0 = ts * 1e-6;
        v[ns].t1 = (ts + dur) * 1e-6;
        v[ns].cls = cls;
        ns++;
        p->time_s[cls] += dur * 1e-6;
        p->kernels[cls] += 1.0;
        if (cls == DAM_KCLASS_COPY && has(name, "htod")) {
            double bytes;
            const json_t *args = json_object_get(ev, "args");
            if (num(args, "bytes", &bytes) == 0 &&
                !(bytes >= 0.0 && bytes <= DAM_PROFILE_MAX_BYTES)) {
                if (d->nerr - before < 10)
                    dam_diag_error(d, path, 0,
                                   "event %zu (\"%.60s\"): 'bytes' must be in "
                                   "[0, %g], got %g", i, name,
                                   DAM_PROFILE_MAX_BYTES, bytes);
                continue;
            }
            if (num(args, "bytes", &bytes) == 0 && bytes > 0.0)
                p->h2d_bytes += bytes;
        }
    }
    if (d->nerr == before && ns == 0)
        dam_diag_error(d, path, 0,
                       "no GPU kernels in the trace (record it with "
                       "ProfilerActivity.CUDA)");
    if (d->nerr > before) {
        dam_free(v);
        json_decref(root);
        return DAM_EINPUT;
    }
    qsort(v, ns, sizeof *v, by_start);
    span *u = dam_malloc(ns * sizeof *u), *c = dam_malloc(ns * sizeof *c);
    double t_first = v[0].t0, t_last;
    double busy = busy_union(v, ns, u, &t_last);
    double exposed = exposed_nccl(v, ns, u, c);
    int steps = nhost > 0 ? nhost : (ndev > 0 ? ndev : 1);
    p->steps = steps;
    if (nhost > 0)
        p->step_s = host_steps / nhost;
    else if (ndev > 0)
        p->step_s = dev_steps / ndev;
    else
        p->step_s = t_last - t_first;
    for (int k = 0; k < DAM_KCLASS_COUNT; k++) {
        p->time_s[k] /= steps;
        p->kernels[k] /= steps;
    }
    p->busy_s = busy / steps;
    p->nccl_exposed_s = exposed / steps;
    p->h2d_bytes /= steps;
    dam_free(c);
    dam_free(u);
    dam_free(v);
    json_decref(root);
    return DAM_OK;
}
