/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kineto.c: torch.profiler Chrome traces, event by event (see kineto.h).
 * The text is read whole (inflated when it is a gzip); the top-level
 * object is walked by a small scanner that finds the end of each value
 * (strings with escapes, nested brackets), and every value it keeps is
 * parsed with jansson on its own: one event at a time.
 */
#include "model/kineto.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "model/alloc.h"
#include "model/infile.h"

const char *dam_kev_kind_name(dam_kev_kind k)
{
    static const char *const names[DAM_KEV_KIND_COUNT] = {
        "cpu_op", "runtime", "annotation", "step", "python",
        "kernel", "memcpy", "memset", "gpu_annotation", "sync"};
    return (unsigned)k < DAM_KEV_KIND_COUNT ? names[k] : "?";
}

int dam_kev_is_gpu_work(dam_kev_kind k)
{
    return k == DAM_KEV_KERNEL || k == DAM_KEV_MEMCPY || k == DAM_KEV_MEMSET;
}

const char *dam_ktrace_name(const dam_ktrace *t, const dam_kev *e)
{
    return e->name >= 0 && e->name < t->nnames ? t->names[e->name] : "";
}

void dam_ktrace_free(dam_ktrace *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nnames; i++)
        dam_free(t->names[i]);
    dam_free(t->names);
    dam_free(t->ev);
    dam_free(t->lanes);
    dam_free(t->flows);
    dam_free(t->syncs);
    dam_free(t->ranks);
    memset(t, 0, sizeof *t);
}

/* ---- interning: names and lanes ------------------------------------------ */

/* Open addressing over indices (+1; 0 = empty), grown at half load. */
typedef struct intern {
    int *slot;
    size_t cap;
    size_t n;
} intern;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* The key of entry i (names, or lanes as "pid\ttid"). */
typedef const char *(*key_fn)(const dam_ktrace *t, int i, char *buf,
                              size_t n);

static const char *name_key(const dam_ktrace *t, int i, char *buf, size_t n)
{
    (void)buf;
    (void)n;
    return t->names[i];
}

static const char *lane_key(const dam_ktrace *t, int i, char *buf, size_t n)
{
    snprintf(buf, n, "%s\t%s", t->lanes[i].pid, t->lanes[i].tid);
    return buf;
}

static void intern_grow(intern *h, const dam_ktrace *t, key_fn key)
{
    size_t cap = h->cap ? h->cap * 2 : 1024;
    int *slot = dam_calloc(cap, sizeof *slot);
    char buf[80];
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->slot[i])
            continue;
        size_t j = hash_str(key(t, h->slot[i] - 1, buf, sizeof buf)) &
                   (cap - 1);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        slot[j] = h->slot[i];
    }
    dam_free(h->slot);
    h->slot = slot;
    h->cap = cap;
}

/* The slot holding s, or the empty one where it would go. */
static size_t intern_find(const intern *h, const dam_ktrace *t, key_fn key,
                          const char *s)
{
    char buf[80];
    size_t j = hash_str(s) & (h->cap - 1);
    while (h->slot[j] && strcmp(key(t, h->slot[j] - 1, buf, sizeof buf), s))
        j = (j + 1) & (h->cap - 1);
    return j;
}

static int name_id(dam_ktrace *t, intern *h, const char *s)
{
    if (2 * (h->n + 1) > h->cap)
        intern_grow(h, t, name_key);
    size_t j = intern_find(h, t, name_key, s);
    if (h->slot[j])
        return h->slot[j] - 1;
    size_t cap = (size_t)t->nnames;
    if ((t->nnames & (t->nnames - 1)) == 0)
        t->names = dam_realloc(t->names,
                               sizeof *t->names * (cap ? 2 * cap : 1));
    t->names[t->nnames] = dam_strdup(s);
    h->slot[j] = ++t->nnames;
    h->n++;
    return t->nnames - 1;
}

/* pid or tid as text: a string as written, a number printed. */
static int id_text(const json_t *v, char *out, size_t n)
{
    if (json_is_string(v)) {
        snprintf(out, n, "%s", json_string_value(v));
        return 0;
    }
    if (json_is_integer(v)) {
        snprintf(out, n, "%lld", (long long)json_integer_value(v));
        return 0;
    }
    if (json_is_real(v) && isfinite(json_real_value(v))) {
        snprintf(out, n, "%.17g", json_real_value(v));
        return 0;
    }
    return -1;
}

static int lane_id(dam_ktrace *t, intern *h, const char *pid,
                   const char *tid)
{
    char key[80];
    snprintf(key, sizeof key, "%s\t%s", pid, tid);
    if (2 * (h->n + 1) > h->cap)
        intern_grow(h, t, lane_key);
    size_t j = intern_find(h, t, lane_key, key);
    if (h->slot[j])
        return h->slot[j] - 1;
    if ((t->nlanes & (t->nlanes - 1)) == 0)
        t->lanes = dam_realloc(t->lanes, sizeof *t->lanes *
                               (t->nlanes ? 2 * (size_t)t->nlanes : 1));
    dam_klane *l = &t->lanes[t->nlanes];
    memset(l, 0, sizeof *l);
    snprintf(l->pid, sizeof l->pid, "%s", pid);
    snprintf(l->tid, sizeof l->tid, "%s", tid);
    h->slot[j] = ++t->nlanes;
    h->n++;
    return t->nlanes - 1;
}

/* ---- the text: read, inflate ----------------------------------------------- */

static int read_all(const char *path, char **out, size_t *len, dam_diag *d)
{
    char why[128];
    FILE *f = dam_infile_open_max(path, DAM_KINETO_MAX_BYTES, why, sizeof why);
    if (!f) {
        dam_diag_error(d, path, 0, "cannot read the trace: %s", why);
        return DAM_EINPUT;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = dam_malloc(cap);
    for (;;) {
        if (n == cap)
            b = dam_realloc(b, cap *= 2);
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        dam_free(b);
        dam_diag_error(d, path, 0, "cannot read the trace: read error");
        return DAM_EINPUT;
    }
    *out = b;
    *len = n;
    return DAM_OK;
}

/* Inflate a gzip (one or more members) into *out; DAM_OK or DAM_EINPUT. */
static int inflate_gz(const char *path, const unsigned char *in, size_t n,
                      char **out, size_t *len, dam_diag *d)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        dam_diag_error(d, path, 0, "cannot start zlib");
        return DAM_EINPUT;
    }
    size_t cap = n * 4 + 1024, m = 0;
    char *b = dam_malloc(cap);
    size_t used = 0;
    int rc = Z_OK;
    while (used < n) {
        size_t chunk = n - used > (1u << 30) ? (1u << 30) : n - used;
        z.next_in = (unsigned char *)(uintptr_t)(in + used);
        z.avail_in = (uInt)chunk;
        do {
            if (m == cap) {
                if (cap >= (size_t)DAM_KINETO_MAX_BYTES) {
                    rc = Z_MEM_ERROR;
                    break;
                }
                cap *= 2;
                if (cap > (size_t)DAM_KINETO_MAX_BYTES)
                    cap = (size_t)DAM_KINETO_MAX_BYTES;
                b = dam_realloc(b, cap);
            }
            z.next_out = (unsigned char *)b + m;
            z.avail_out = (uInt)(cap - m);
            rc = inflate(&z, Z_NO_FLUSH);
            m = cap - z.avail_out;
        } while (rc == Z_OK && (z.avail_in > 0 || z.avail_out == 0));
        used += chunk - z.avail_in;
        if (rc == Z_STREAM_END) {
            /* another member may follow (concatenated gzip) */
            if (used < n && inflateReset(&z) == Z_OK)
                continue;
            break;
        }
        if (rc != Z_OK)
            break;
        if (z.avail_in == 0 && used >= n)
            break;
    }
    inflateEnd(&z);
    if (rc == Z_MEM_ERROR) {
        dam_free(b);
        dam_diag_error(d, path, 0,
                       "the trace inflates to more than %ld MiB",
                       DAM_KINETO_MAX_BYTES >> 20);
        return DAM_EINPUT;
    }
    if (rc != Z_STREAM_END) {
        dam_free(b);
        dam_diag_error(d, path, 0, "not a complete gzip file (%s at "
                       "compressed byte %zu)",
                       rc == Z_OK || rc == Z_BUF_ERROR ? "cut short"
                                                       : "corrupt data",
                       used);
        return DAM_EINPUT;
    }
    *out = b;
    *len = m;
    return DAM_OK;
}

/* ---- the scanner ---------------------------------------------------------- */

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
                     s[i] == '\r'))
        i++;
    return i;
}

/* The end (one past) of the JSON value starting at i, or 0 when the text
 * ends first. Validation is jansson's; this only finds the bounds. */
static size_t value_end(const char *s, size_t i, size_t n)
{
    if (i >= n)
        return 0;
    if (s[i] == '"') {
        for (i++; i < n; i++) {
            if (s[i] == '\\')
                i++;
            else if (s[i] == '"')
                return i + 1;
        }
        return 0;
    }
    if (s[i] == '{' || s[i] == '[') {
        long depth = 0;
        for (; i < n; i++) {
            char c = s[i];
            if (c == '"') {
                size_t e = value_end(s, i, n);
                if (!e)
                    return 0;
                i = e - 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return 0;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' &&
           s[i] != ' ' && s[i] != '\n' && s[i] != '\r' && s[i] != '\t')
        i++;
    return i;
}

/* ---- one event ------------------------------------------------------------ */

/* Classify by category: the kind, or -1 (not used). */
static int kind_of(const char *cat, const char *name)
{
    static const struct {
        const char *cat;
        int kind;
    } map[] = {{"cpu_op", DAM_KEV_CPU_OP},
               {"operator", DAM_KEV_CPU_OP},
               {"cuda_runtime", DAM_KEV_RUNTIME},
               {"cuda_driver", DAM_KEV_RUNTIME},
               {"runtime", DAM_KEV_RUNTIME},
               {"user_annotation", DAM_KEV_ANNOTATION},
               {"python_function", DAM_KEV_PYTHON},
               {"kernel", DAM_KEV_KERNEL},
               {"gpu_memcpy", DAM_KEV_MEMCPY},
               {"memcpy", DAM_KEV_MEMCPY},
               {"gpu_memset", DAM_KEV_MEMSET},
               {"memset", DAM_KEV_MEMSET},
               {"gpu_user_annotation", DAM_KEV_GPU_ANNOTATION},
               {"cuda_sync", DAM_KEV_SYNC}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        const char *a = map[i].cat, *b = cat;
        while (*a && tolower((unsigned char)*b) == *a)
            a++, b++;
        if (!*a && !*b) {
            if (map[i].kind == DAM_KEV_ANNOTATION &&
                strncmp(name, "ProfilerStep#", 13) == 0)
                return DAM_KEV_STEP;
            return map[i].kind;
        }
    }
    return -1;
}

static long long int_arg(const json_t *args, const char *key)
{
    const json_t *v = json_object_get(args, key);
    if (json_is_integer(v))
        return (long long)json_integer_value(v);
    if (json_is_real(v) && isfinite(json_real_value(v)))
        return (long long)json_real_value(v);
    return -1;
}

typedef struct reader {
    dam_ktrace *t;
    intern names, lanes;
    signed char *kcls;   /* per name: its kernel class (-1: not yet) */
    size_t cap_kcls;
    size_t cap_ev, cap_flows, cap_syncs;
    const char *path;
    dam_diag *d;
    double t0;
} reader;

/* An event error, at most 10 of them. */
#define EV_ERR(r, idx, off, ...)                                               \
    do {                                                                      \
        char m_[400];                                                         \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                 \
        dam_diag_error((r)->d, (r)->path, 0, "event %ld (byte %zu): %s",      \
                       (long)(idx), (size_t)(off), m_);                       \
    } while (0)

static int num_of(const json_t *v, double *out)
{
    if (!json_is_number(v))
        return -1;
    *out = json_number_value(v);
    return isfinite(*out) ? 0 : -1;
}

static void flow_event(reader *r, const json_t *ev, const char *ph,
                       const char *cat, long idx, size_t off)
{
    int fwdbwd = cat && strcmp(cat, "fwdbwd") == 0;
    if (!cat || (!fwdbwd && strcmp(cat, "ac2g") != 0 &&
                 strcmp(cat, "async_cpu_to_gpu") != 0))
        return;
    double ts;
    char pid[32], tid[32];
    const json_t *idv = json_object_get(ev, "id");
    if (num_of(json_object_get(ev, "ts"), &ts) < 0 ||
        fabs(ts) > DAM_KINETO_MAX_TS ||
        id_text(json_object_get(ev, "pid"), pid, sizeof pid) < 0 ||
        id_text(json_object_get(ev, "tid"), tid, sizeof tid) < 0 ||
        !json_is_integer(idv)) {
        EV_ERR(r, idx, off, "flow event needs a numeric 'ts' and 'id' and "
               "a 'pid' and 'tid'");
        return;
    }
    dam_ktrace *t = r->t;
    t->flows = dam_grow(t->flows, sizeof *t->flows, t->nflows + 1,
                        &r->cap_flows);
    dam_kflow *f = &t->flows[t->nflows++];
    f->id = (long long)json_integer_value(idv);
    f->fwdbwd = fwdbwd;
    int lane = lane_id(t, &r->lanes, pid, tid);
    if (ph[0] == 's') {
        f->s_lane = lane;
        f->s_ts = ts;
        f->f_lane = -1;
    } else {
        f->f_lane = lane;
        f->f_ts = ts;
        f->s_lane = -1;
    }
}

static void gemm_shape(dam_kev *e, const char *name, const json_t *args);
static void conv_shape(dam_kev *e, const char *op, const json_t *args);

/* A cuda_sync record's args: what waits on what. */
static void sync_record(reader *r, const dam_kev *e, const json_t *args)
{
    static const char *const kinds[] = {"", "Stream Sync", "Context Sync",
                                        "Event Sync", "Stream Wait Event"};
    dam_ktrace *t = r->t;
    t->syncs = dam_grow(t->syncs, sizeof *t->syncs, t->nsyncs + 1,
                        &r->cap_syncs);
    dam_ksync *s = &t->syncs[t->nsyncs++];
    const char *k = json_string_value(json_object_get(args,
                                                      "cuda_sync_kind"));
    s->kind = DAM_KSYNC_OTHER;
    for (int i = 1; k && i < (int)(sizeof kinds / sizeof *kinds); i++)
        if (!strcmp(k, kinds[i]))
            s->kind = i;
    s->corr = e->corr;
    s->lane = e->lane;
    s->stream = int_arg(args, "stream");
    s->wait_stream = int_arg(args, "wait_on_stream");
    s->wait_corr = int_arg(args, "wait_on_cuda_event_record_corr_id");
}

static void one_event(reader *r, const json_t *ev, long idx, size_t off)
{
    if (!json_is_object(ev)) {
        EV_ERR(r, idx, off, "not an object");
        return;
    }
    const json_t *phv = json_object_get(ev, "ph");
    const char *ph = json_string_value(phv);
    if (!ph) {
        EV_ERR(r, idx, off, "no \"ph\" string");
        return;
    }
    const char *cat = json_string_value(json_object_get(ev, "cat"));
    if ((ph[0] == 's' || ph[0] == 'f') && !ph[1]) {
        flow_event(r, ev, ph, cat, idx, off);
        return;
    }
    if (strcmp(ph, "X") != 0 || !cat)
        return; /* metadata, instants, counters: not used */
    const char *name = json_string_value(json_object_get(ev, "name"));
    int kind = kind_of(cat, name ? name : "");
    if (kind < 0)
        return;
    double ts, dur;
    char pid[32], tid[32];
    if (!name) {
        EV_ERR(r, idx, off, "a \"%.40s\" event without a 'name' string", cat);
        return;
    }
    if (num_of(json_object_get(ev, "ts"), &ts) < 0 ||
        num_of(json_object_get(ev, "dur"), &dur) < 0 || dur < 0.0 ||
        fabs(ts) > DAM_KINETO_MAX_TS || dur > DAM_KINETO_MAX_DUR) {
        char q[80];
        EV_ERR(r, idx, off, "\"%s\": 'ts' and 'dur' must be finite numbers "
               "(microseconds) with 0 <= dur <= 1e12 and |ts| <= 1e17",
               dam_error_quote(name, 40, q, sizeof q));
        return;
    }
    if (id_text(json_object_get(ev, "pid"), pid, sizeof pid) < 0 ||
        id_text(json_object_get(ev, "tid"), tid, sizeof tid) < 0) {
        EV_ERR(r, idx, off, "'pid' and 'tid' must be numbers or strings");
        return;
    }
    const json_t *args = json_object_get(ev, "args");
    if (args && !json_is_object(args)) {
        EV_ERR(r, idx, off, "'args' must be an object");
        return;
    }
    dam_ktrace *t = r->t;
    t->ev = dam_grow(t->ev, sizeof *t->ev, t->nev + 1, &r->cap_ev);
    dam_kev *e = &t->ev[t->nev++];
    memset(e, 0, sizeof *e);
    e->ts = ts;
    e->dur = dur * 1e-6;
    e->index = idx;
    e->kind = kind;
    e->lane = lane_id(t, &r->lanes, pid, tid);
    e->name = name_id(t, &r->names, name);
    e->corr = int_arg(args, "correlation");
    e->ext = int_arg(args, "External id");
    e->kclass = -1;
    e->step = -1;
    e->coll = -1;
    if (kind == DAM_KEV_STEP)
        e->step = atoi(name + 13);
    if (kind == DAM_KEV_CPU_OP && !strncmp(name, "aten::", 6) &&
        (!strcmp(name + 6, "mm") || !strcmp(name + 6, "addmm") ||
         !strcmp(name + 6, "bmm") || !strcmp(name + 6, "baddbmm")))
        gemm_shape(e, name, args);
    if (kind == DAM_KEV_CPU_OP && !strncmp(name, "aten::", 6))
        conv_shape(e, name + 6, args);
    if (dam_kev_is_gpu_work(kind)) {
        t->lanes[e->lane].gpu = 1;
        if (kind != DAM_KEV_KERNEL) {
            e->kclass = DAM_KCLASS_COPY;
        } else { /* classified once per name */
            size_t need = (size_t)t->nnames;
            if (need > r->cap_kcls) {
                size_t old = r->cap_kcls;
                r->kcls = dam_grow(r->kcls, 1, need, &r->cap_kcls);
                memset(r->kcls + old, -1, r->cap_kcls - old);
            }
            if (r->kcls[e->name] < 0)
                r->kcls[e->name] = (signed char)dam_kernel_classify(cat, name);
            e->kclass = r->kcls[e->name];
        }
        if (e->kclass == DAM_KCLASS_NCCL)
            t->nnccl++;
        double b;
        if (num_of(json_object_get(args, "bytes"), &b) == 0 && b > 0.0)
            e->bytes = b;
    }
    if (kind == DAM_KEV_GPU_ANNOTATION || kind == DAM_KEV_SYNC)
        t->lanes[e->lane].gpu = 1;
    if (kind == DAM_KEV_SYNC && e->corr >= 0)
        sync_record(r, e, args);
    t->nkind[kind]++;
    if (ts < r->t0)
        r->t0 = ts;
}

/* Dimension j of input i of an "Input Dims" list, or -1. */
static double dim(const json_t *dims, size_t i, size_t j)
{
    const json_t *v = json_array_get(json_array_get(dims, i), j);
    return json_is_integer(v) && json_integer_value(v) > 0
               ? (double)json_integer_value(v) : -1.0;
}

/* M, N, K and batch of a GEMM operator from its input shapes, when they
 * are consistent (else left 0): mm and addmm multiply two matrices (addmm
 * after its bias), bmm and baddbmm two batches of them. */
static void gemm_shape(dam_kev *e, const char *name, const json_t *args)
{
    const json_t *dims = json_object_get(args, "Input Dims");
    if (!json_is_array(dims))
        return;
    int batched = !strcmp(name, "aten::bmm") || !strcmp(name, "aten::baddbmm");
    size_t a = !strcmp(name, "aten::addmm") || !strcmp(name, "aten::baddbmm");
    size_t o = batched ? 1 : 0; /* the batch is dimension 0 */
    double m = dim(dims, a, o), k = dim(dims, a, o + 1);
    double k2 = dim(dims, a + 1, o), n = dim(dims, a + 1, o + 1);
    double b = batched ? dim(dims, a, 0) : 1.0;
    if (m > 0 && n > 0 && k > 0 && k == k2 && b > 0 &&
        (!batched || dim(dims, a + 1, 0) == b)) {
        e->gemm[0] = (float)m;
        e->gemm[1] = (float)n;
        e->gemm[2] = (float)k;
        e->gemm[3] = (float)b;
    }
}

/* The whole numbers of a "Concrete Inputs" entry ("[2, 2]" or "2") into
 * v[0..n); how many, 0 when it is not such a list. */
static int int_list(const json_t *ci, size_t i, long *v, int n)
{
    const char *s = json_string_value(json_array_get(ci, i));
    int k = 0;
    for (; s && *s && k < n;) {
        char *end;
        if (*s == '[' || *s == ',' || *s == ' ' || *s == ']') {
            s++;
            continue;
        }
        long x = strtol(s, &end, 10);
        if (end == s || x < 0 || x > 1000000)
            return 0;
        v[k++] = x;
        s = end;
    }
    return k;
}

/*
 * A convolution operator's implicit GEMM (see kineto.h). Forward ops take
 * the input [N, C, spatial...] and the weight [K, C/g, taps...]; stride,
 * padding and dilation sit at an op's own places in "Concrete Inputs"
 * (conv1d/2d/3d: 3, 4, 5; convolution, _convolution: 3, 4, 5;
 * cudnn_convolution: stride 3, padding 2, dilation 4). The backward op
 * takes the output's gradient first, which gives the output size.
 */
static void conv_shape(dam_kev *e, const char *op, const json_t *args)
{
    int back = !strcmp(op, "convolution_backward") ||
               !strcmp(op, "cudnn_convolution_backward");
    int st = 3, pad = 4, dil = 5;
    if (!strcmp(op, "cudnn_convolution")) {
        pad = 2;
        st = 3;
        dil = 4;
    } else if (!back && strcmp(op, "conv1d") && strcmp(op, "conv2d") &&
               strcmp(op, "conv3d") && strcmp(op, "convolution") &&
               strcmp(op, "_convolution")) {
        return;
    }
    const json_t *dims = json_object_get(args, "Input Dims");
    const json_t *x = json_array_get(dims, back ? 1 : 0);
    const json_t *w = json_array_get(dims, back ? 2 : 1);
    const json_t *go = back ? json_array_get(dims, 0) : NULL;
    size_t nd = json_array_size(x);
    if (nd < 3 || nd > 5 || json_array_size(w) != nd ||
        (go && json_array_size(go) != nd))
        return;
    size_t xi = back ? 1 : 0, wi = back ? 2 : 1;
    double m = dim(dims, xi, 0), n = dim(dims, wi, 0), k = dim(dims, wi, 1);
    const json_t *ci = json_object_get(args, "Concrete Inputs");
    long sv[3], pv[3], dv[3];
    int ns = 0, np = 0, nl = 0;
    if (!back && json_is_array(ci)) {
        ns = int_list(ci, (size_t)st, sv, 3);
        np = int_list(ci, (size_t)pad, pv, 3);
        nl = int_list(ci, (size_t)dil, dv, 3);
    }
    int have = ns > 0 && np > 0 && nl > 0;
    for (size_t j = 2; j < nd; j++) {
        size_t q = j - 2;
        double in = dim(dims, xi, j), r = dim(dims, wi, j), out = in;
        if (back) {
            out = dim(dims, 0, j);
        } else if (have) {
            double a = (double)sv[q < (size_t)ns ? q : 0];
            double p = (double)pv[q < (size_t)np ? q : 0];
            double dl = (double)dv[q < (size_t)nl ? q : 0];
            out = a > 0.0 ? floor((in + 2.0 * p - dl * (r - 1.0) - 1.0) / a)
                                + 1.0
                          : -1.0;
        }
        if (!(in > 0.0 && r > 0.0 && out > 0.0))
            return;
        m *= out;
        k *= r;
    }
    if (m > 0.0 && n > 0.0 && k > 0.0 && m < 3e38 && k < 3e38) {
        e->gemm[0] = (float)m;
        e->gemm[1] = (float)n;
        e->gemm[2] = (float)k;
        e->gemm[3] = 1.0f;
        e->conv = 1;
    }
}

static void header(reader *r, const char *key, const json_t *v)
{
    dam_ktrace *t = r->t;
    if (strcmp(key, "deviceProperties") == 0 && json_is_array(v)) {
        t->ndevices = (int)json_array_size(v);
        const json_t *p = json_array_get(v, 0);
        const char *dn = json_string_value(json_object_get(p, "name"));
        if (dn)
            snprintf(t->device, sizeof t->device, "%s", dn);
        double x;
        if (num_of(json_object_get(p, "totalGlobalMem"), &x) == 0)
            t->device_mem = x;
        t->sms = (int)int_arg(p, "numSms");
        t->cc_major = (int)int_arg(p, "computeMajor");
        t->cc_minor = (int)int_arg(p, "computeMinor");
        if (t->sms < 0)
            t->sms = 0;
    } else if (strcmp(key, "distributedInfo") == 0 && json_is_object(v)) {
        const char *b = json_string_value(json_object_get(v, "backend"));
        if (b)
            snprintf(t->backend, sizeof t->backend, "%s", b);
        long long rk = int_arg(v, "rank"), ws = int_arg(v, "world_size");
        t->rank = rk >= 0 && rk < 1000000 ? (int)rk : -1;
        t->world_size = ws > 0 && ws < 1000000 ? (int)ws : 0;
    }
}

/* A string key at s[i..e); jansson decodes it (escapes). */
static int key_at(const char *s, size_t i, size_t e, char *out, size_t n)
{
    json_error_t je;
    json_t *k = json_loadb(s + i, e - i, JSON_DECODE_ANY, &je);
    int ok = json_is_string(k);
    if (ok)
        snprintf(out, n, "%s", json_string_value(k));
    json_decref(k);
    return ok ? 0 : -1;
}

static int syntax(reader *r, size_t off, const char *what)
{
    dam_diag_error(r->d, r->path, 0, "not a JSON trace: %s at byte %zu",
                   what, off);
    return DAM_EINPUT;
}

/* The traceEvents array at s[i]; returns the offset after it, 0 on a
 * syntax error (reported). */
static size_t events(reader *r, const char *s, size_t i, size_t n)
{
    if (i >= n || s[i] != '[') {
        syntax(r, i, "\"traceEvents\" is not an array");
        return 0;
    }
    long idx = 0;
    i = skip_ws(s, i + 1, n);
    if (i < n && s[i] == ']')
        return i + 1;
    for (;;) {
        size_t e = value_end(s, i, n);
        if (!e) {
            syntax(r, i, "the text ends inside traceEvents");
            return 0;
        }
        json_error_t je;
        json_t *ev = json_loadb(s + i, e - i, JSON_DECODE_ANY, &je);
        if (!ev) {
            char m[200];
            snprintf(m, sizeof m, "event %ld: %s", idx, je.text);
            syntax(r, i + (size_t)(je.position > 0 ? je.position : 0), m);
            return 0;
        }
        int before = r->d->nerr;
        one_event(r, ev, idx, i);
        json_decref(ev);
        if (r->d->nerr > before && r->d->nerr >= 10)
            return 0; /* enough to show what is wrong */
        idx++;
        i = skip_ws(s, e, n);
        if (i < n && s[i] == ',') {
            i = skip_ws(s, i + 1, n);
            continue;
        }
        if (i < n && s[i] == ']') {
            r->t->nevents = idx;
            return i + 1;
        }
        syntax(r, i, "expected ',' or ']' in traceEvents");
        return 0;
    }
}

static int scan(reader *r, const char *s, size_t n)
{
    size_t i = skip_ws(s, 0, n);
    if (i >= n || s[i] != '{')
        return syntax(r, i, "expected a '{' (a Chrome trace object)");
    int have_events = 0;
    i = skip_ws(s, i + 1, n);
    if (i < n && s[i] == '}')
        i++;
    else
        for (;;) {
            size_t e = value_end(s, i, n);
            char key[64];
            if (i >= n || s[i] != '"' || !e ||
                key_at(s, i, e, key, sizeof key) < 0)
                return syntax(r, i, "expected a key string");
            i = skip_ws(s, e, n);
            if (i >= n || s[i] != ':')
                return syntax(r, i, "expected ':'");
            i = skip_ws(s, i + 1, n);
            if (strcmp(key, "traceEvents") == 0) {
                int before = r->d->nerr;
                e = events(r, s, i, n);
                if (!e || r->d->nerr > before)
                    return DAM_EINPUT;
                have_events = 1;
            } else {
                e = value_end(s, i, n);
                if (!e)
                    return syntax(r, i, "the text ends inside a value");
                json_error_t je;
                json_t *v = json_loadb(s + i, e - i, JSON_DECODE_ANY, &je);
                if (!v)
                    return syntax(r, i + (size_t)(je.position > 0
                                                      ? je.position : 0),
                                  je.text);
                header(r, key, v);
                json_decref(v);
            }
            i = skip_ws(s, e, n);
            if (i < n && s[i] == ',') {
                i = skip_ws(s, i + 1, n);
                continue;
            }
            if (i < n && s[i] == '}') {
                i++;
                break;
            }
            return syntax(r, i, "expected ',' or '}'");
        }
    if (skip_ws(s, i, n) != n)
        return syntax(r, skip_ws(s, i, n), "text after the trace object");
    if (!have_events) {
        dam_diag_error(r->d, r->path, 0,
                       "no \"traceEvents\" array: not a torch.profiler "
                       "(Chrome) trace");
        return DAM_EINPUT;
    }
    return DAM_OK;
}

/* ---- after reading: times, flows, links ---------------------------------- */

static int by_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Count the device work whose correlation id a runtime call carries. */
static void count_linked(dam_ktrace *t)
{
    long long *c = dam_malloc((t->nev ? t->nev : 1) * sizeof *c);
    size_t n = 0;
    for (size_t i = 0; i < t->nev; i++)
        if (t->ev[i].kind == DAM_KEV_RUNTIME && t->ev[i].corr >= 0)
            c[n++] = t->ev[i].corr;
    qsort(c, n, sizeof *c, by_ll);
    for (size_t i = 0; i < t->nev; i++)
        if (dam_kev_is_gpu_work(t->ev[i].kind) && t->ev[i].corr >= 0 &&
            bsearch(&t->ev[i].corr, c, n, sizeof *c, by_ll))
            t->linked++;
    dam_free(c);
}

static int by_flow(const void *a, const void *b)
{
    const dam_kflow *x = a, *y = b;
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    if (x->fwdbwd != y->fwdbwd)
        return x->fwdbwd - y->fwdbwd;
    return (x->s_lane < 0) - (y->s_lane < 0); /* starts first */
}

/* Pair each flow's start and finish into one entry. */
static void pair_flows(dam_ktrace *t)
{
    if (t->nflows == 0)
        return;
    qsort(t->flows, t->nflows, sizeof *t->flows, by_flow);
    size_t m = 0;
    for (size_t i = 0; i < t->nflows; i++) {
        dam_kflow f = t->flows[i];
        if (f.s_lane >= 0 && i + 1 < t->nflows &&
            t->flows[i + 1].id == f.id &&
            t->flows[i + 1].fwdbwd == f.fwdbwd &&
            t->flows[i + 1].f_lane >= 0) {
            f.f_lane = t->flows[i + 1].f_lane;
            f.f_ts = t->flows[i + 1].f_ts;
            i++;
        }
        if (f.s_lane >= 0 && f.f_lane >= 0)
            t->flows[m++] = f;
    }
    t->nflows = m;
}

typedef struct at_key {
    int lane;
    double ts;
    size_t ev;
} at_key;

static int by_lane_ts(const void *a, const void *b)
{
    const at_key *x = a, *y = b;
    if (x->lane != y->lane)
        return x->lane - y->lane;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The event of keys[] at (lane, ts) exactly, or -1. */
static long find_at(const at_key *k, size_t n, int lane, double ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (k[mid].lane < lane || (k[mid].lane == lane && k[mid].ts < ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && k[lo].lane == lane && k[lo].ts == ts ? (long)k[lo].ev
                                                          : -1;
}

/* Device work without a correlation id gets its launch's through the flow
 * pair (start at the runtime call, finish at the work). */
static void link_flows(dam_ktrace *t)
{
    at_key *k = dam_malloc((t->nev ? t->nev : 1) * sizeof *k);
    size_t nk = 0;
    for (size_t i = 0; i < t->nev; i++)
        if (t->ev[i].kind == DAM_KEV_RUNTIME ||
            dam_kev_is_gpu_work(t->ev[i].kind))
            k[nk++] = (at_key){t->ev[i].lane, t->ev[i].ts, i};
    qsort(k, nk, sizeof *k, by_lane_ts);
    for (size_t i = 0; i < t->nflows; i++) {
        const dam_kflow *f = &t->flows[i];
        if (f->fwdbwd)
            continue;
        long a = find_at(k, nk, f->s_lane, f->s_ts);
        long b = find_at(k, nk, f->f_lane, f->f_ts);
        if (a < 0 || b < 0 || t->ev[a].kind != DAM_KEV_RUNTIME ||
            !dam_kev_is_gpu_work(t->ev[b].kind))
            continue;
        if (t->ev[a].corr < 0 && t->ev[b].corr < 0) {
            t->ev[a].corr = t->ev[b].corr = f->id;
            t->flows_used++;
        }
    }
    dam_free(k);
}

int dam_ktrace_load(dam_ktrace *t, const char *path, const char *text,
                    size_t len, dam_diag *d)
{
    memset(t, 0, sizeof *t);
    t->rank = -1;
    t->nranks = 1;
    snprintf(t->file, sizeof t->file, "%s", path);
    char *own = NULL, *inflated = NULL;
    if (!text) {
        if (read_all(path, &own, &len, d) != DAM_OK)
            return DAM_EINPUT;
        text = own;
    }
    if (len >= 2 && (unsigned char)text[0] == 0x1f &&
        (unsigned char)text[1] == 0x8b) {
        int rc = inflate_gz(path, (const unsigned char *)text, len,
                            &inflated, &len, d);
        dam_free(own);
        own = NULL;
        if (rc != DAM_OK)
            return DAM_EINPUT;
        text = inflated;
    }
    reader r;
    memset(&r, 0, sizeof r);
    r.t = t;
    r.path = path;
    r.d = d;
    r.t0 = INFINITY;
    int before = d->nerr;
    int rc = scan(&r, text, len);
    dam_free(r.names.slot);
    dam_free(r.lanes.slot);
    dam_free(r.kcls);
    dam_free(own);
    dam_free(inflated);
    if (rc == DAM_OK && d->nerr == before &&
        t->nkind[DAM_KEV_KERNEL] + t->nkind[DAM_KEV_MEMCPY] +
                t->nkind[DAM_KEV_MEMSET] == 0)
        dam_diag_error(d, path, 0,
                       "no GPU kernels in the trace (record it with "
                       "ProfilerActivity.CUDA)");
    if (rc != DAM_OK || d->nerr > before)
        return DAM_EINPUT;
    /* seconds from the first event */
    double t1 = 0.0;
    for (size_t i = 0; i < t->nev; i++) {
        t->ev[i].ts = (t->ev[i].ts - r.t0) * 1e-6;
        if (t->ev[i].ts + t->ev[i].dur > t1)
            t1 = t->ev[i].ts + t->ev[i].dur;
    }
    t->span_s = t1;
    t->origin_us = r.t0;
    for (size_t i = 0; i < t->nflows; i++) {
        t->flows[i].s_ts = (t->flows[i].s_ts - r.t0) * 1e-6;
        t->flows[i].f_ts = (t->flows[i].f_ts - r.t0) * 1e-6;
    }
    pair_flows(t);
    link_flows(t);
    count_linked(t);
    return DAM_OK;
}
