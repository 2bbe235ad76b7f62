/* SPDX-License-Identifier: GPL-3.0-or-later */
/* uncertainty.c: Monte Carlo over uncertain inputs and the tornado of their
 * swings (see uncertainty.h). */
#include "solver/uncertainty.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/device.h"
#include "solver/analytic.h"
#include "solver/rng.h"

/* Stream id of the uncertainty draws: apart from every simulation stream. */
#define UNCERTAINTY_STREAM 0x756e6365ULL

/* One name's Latin-hypercube column. */
typedef struct column {
    char name[DAM_CONST_KEY_MAX + 8];
    unsigned long long hash; /* name_hash(name): compared first */
    double *u;           /* n probabilities in (0, 1) */
} column;

/* A double of the scenario that the model's error scales in every draw
 * (scale_gpu_time, scale_rest_time): its offset, 1 when divided by the
 * multiplier (a bandwidth), 1 when the rest's multiplier (else the GPU's). */
typedef struct scaled_field {
    size_t off;
    unsigned char div, rest;
} scaled_field;

#define SF(f) offsetof(dam_scenario, f)
/* In the order scale_gpu_time and scale_rest_time apply them. */
static const scaled_field scaled_fields[] = {
    {SF(workload.flops_scale), 0, 0}, {SF(workload.bytes_scale), 0, 0},
    {SF(data.decode_s), 0, 1},        {SF(data.gpu_decode_s), 0, 1},
    {SF(machine.storage_bw), 1, 1},   {SF(machine.storage_latency), 0, 1},
    {SF(machine.fs_bw), 1, 1},        {SF(machine.pcie_bw), 1, 1},
    {SF(machine.intra_busbw), 1, 1},  {SF(machine.inter_busbw), 1, 1},
    {SF(machine.net_latency), 0, 1},
    {SF(workload.framework_overhead_s), 0, 1},
    {SF(workload.launch_s), 0, 1}};
#define NSCALED ((int)(sizeof scaled_fields / sizeof scaled_fields[0]))

/* The GPU's (rest = 0) or the rest's (rest = 1) scaled fields of x: each
 * one's value in from (x itself, or another scenario) scaled by m. */
static void scale_fields(dam_scenario *x, const dam_scenario *from, double m,
                         int rest)
{
    for (int f = 0; f < NSCALED; f++) {
        const scaled_field *sf = &scaled_fields[f];
        if (sf->rest != rest)
            continue;
        double v;
        memcpy(&v, (const char *)from + sf->off, sizeof v);
        v = sf->div ? v / m : v * m;
        memcpy((char *)x + sf->off, &v, sizeof v);
    }
}

/*
 * A draw plan: what dam_draws_apply_all writes into a copy of s in every
 * draw, worked out once for a scenario (the draws' values of each input
 * and constant, their offsets, the two error multipliers), so that a draw
 * is a few stores instead of name look-ups, a copy of the scenario and
 * the inverse normal of every constant. The same doubles as the general
 * path (the same functions of the same probabilities). Kept in dam_draws
 * and reused while the next scenario draws the same quantities (a sweep's
 * points that vary what no constant depends on).
 */
typedef struct draw_plan {
    int ok;              /* 1: built (the key below is valid) */
    /* key: what the values depend on */
    int nin;
    dam_uncertain in[DAM_MAX_UNCERTAIN];  /* inputs drawn (not lever-set) */
    int nuse;
    dam_const_use use[DAM_MAX_CONST_USES];
    char gname[DAM_CONST_KEY_MAX + 8], rname[DAM_CONST_KEY_MAX + 8];
    double err_sd;       /* the scenario's step error */
    /* derived */
    size_t off[DAM_MAX_UNCERTAIN + DAM_MAX_CONST_USES]; /* inputs, then uses */
    unsigned char from_x[NSCALED]; /* 1: an input or constant sets it */
    double sv[NSCALED];  /* the scenario's own value of each (the point's:
                          * set by plan_prepare) */
    double *val;         /* (nin + nuse) x n: each quantity in each draw */
    int lanes_ok;        /* 1: every quantity drawn is one the lanes'
                          * figures cover (dam_analytic_lanes_cover) */
    int lf_src[DAM_LF_COUNT];   /* each lane field's quantity (the last
                                 * one at its offset), -1: none */
    int lf_scaled[DAM_LF_COUNT];/* its scaled_fields entry, -1: none */
    int npad;            /* n rounded up to whole lanes */
    double *lf_col;      /* DAM_LF_COUNT x npad: each lane field in each
                          * draw (past n as in the last) */
    int lf_built[DAM_LF_COUNT]; /* 1: its column is of lf_own (a field no
                                 * quantity sets: the point's value) */
    double lf_own[DAM_LF_COUNT];
    double *gm, *rm;     /* n each: GPU and rest error multipliers */
} draw_plan;

/* Every named quantity gets its own independent column, however many
 * there are (a calibration over 16 GPUs names a few hundred): names that
 * shared one column would move together, and a constant and a step error
 * drawn at the same probability cancel each other, narrowing intervals. */
struct dam_draws {
    int n;               /* draws */
    unsigned long seed;
    int ncol;
    size_t cap;          /* columns allocated */
    column *col;
    draw_plan plan;      /* the latest scenario's (plan_prepare) */
    long plan_builds, plan_reuses; /* counts, for the benchmarks */
    /* dam_draws_memoize: each draw's device cost of the operator graph,
     * kept for the next scenario (n memos), and the scratch scenario the
     * draws are solved in (a memo knows a graph by its address). */
    dam_analytic_memo *memo;
    dam_scenario *xs;
    struct lane_state *ls; /* solve_lanes' (allocated on first use) */
    struct each_state *es; /* solve_each_lanes' (allocated on first use) */
    unsigned long lane_hits; /* draws whose lanes' costs were reused */
    double *share;       /* n + 1: share[m], 1 / n added m times to 0 in
                          * turn (a bound's share of m draws) */
    dam_scenario *sx;    /* dam_uncertainty_intervals' scratch */
    dam_result *sr;
};

/* Draws solved in lanes (solve_lanes): the point's graph when it is not
 * the stored one, its cost plan, the previous point's (kept: 1 when
 * valid) and the lanes of every DAM_COST_LANES draws, which a memoizing
 * dam_draws reuses while the plan and the lanes' rates stay the same
 * bytes. */
typedef struct lane_state {
    dam_graph g;
    dam_cost_plan plan, kept_plan;
    int kept;
    /* the lanes' rates are those of the draws of a scenario whose cost
     * options (less the batch), GPU and framework are these, under the
     * draw plan built plan_builds-th (rates: 1 when valid); own: the draws
     * the cost plan did not cover */
    int rates;
    long plan_builds;
    dam_cost_opts o;
    dam_gpu gpu;
    dam_framework fw;
    unsigned char *own;
    dam_cost_lanes chunk[];
} lane_state;

/* solve_each_lanes' scratch: a point's graph, its cost plan, one chunk
 * of lanes (kept in dam_draws from one scenario to the next, so that a
 * calibration's cases do not allocate them afresh). */
typedef struct each_state {
    dam_graph g;
    dam_cost_plan plan;
    dam_cost_lanes lanes;
} each_state;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile_sorted(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)floor(pos);
    if (i >= n - 1)
        return v[n - 1];
    double f = pos - i;
    return v[i] * (1.0 - f) + v[i + 1] * f;
}

/* Reorder v[lo..hi] so that v[k] is the value a sort would put there,
 * none before it larger and none after it smaller (quickselect, middle
 * pivot). */
static void select_kth(double *v, int lo, int hi, int k)
{
    while (lo < hi) {
        double p = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

/* The q quantile of v (n values, linear between order statistics), v
 * reordered by selection: the same number as on the sorted values. *from:
 * none of v[0 .. *from - 1] is larger than any after (a selection before
 * this one left it so; 0: none known), and gets the same for the next. */
static double quantile_select(double *v, int n, double q, int *from)
{
    double pos = q * (n - 1);
    int i = (int)floor(pos);
    int lo = *from <= i ? *from : 0;
    if (i >= n - 1) {
        select_kth(v, lo, n - 1, n - 1);
        *from = n - 1;
        return v[n - 1];
    }
    select_kth(v, lo, n - 1, i);
    *from = i + 1;
    double next = v[i + 1]; /* the smallest after v[i] */
    for (int j = i + 2; j < n; j++)
        next = v[j] < next ? v[j] : next;
    double f = pos - i;
    return v[i] * (1.0 - f) + next * f;
}

dam_interval dam_interval_of(double *v, int n)
{
    dam_interval iv = {0.0, 0.0, 0.0};
    if (n <= 0)
        return iv;
    for (int k = 0; k < n; k++)
        if (isnan(v[k])) {
            /* no order to select in: the sort's (NaN compares equal) */
            qsort(v, (size_t)n, sizeof *v, cmp_double);
            iv.lo = quantile_sorted(v, n, 0.05);
            iv.median = quantile_sorted(v, n, 0.5);
            iv.hi = quantile_sorted(v, n, 0.95);
            return iv;
        }
    int from = 0; /* each selection goes on above the one before */
    iv.lo = quantile_select(v, n, 0.05, &from);
    iv.median = quantile_select(v, n, 0.5, &from);
    iv.hi = quantile_select(v, n, 0.95, &from);
    return iv;
}

/* The interval of the n values whose k-th smallest is v[ord[k]] (ord:
 * an order of v), or, rev, v[ord[n - 1 - k]]: quantile_sorted's numbers,
 * which are dam_interval_of's. */
static dam_interval interval_ordered(const double *v, const int *ord, int n,
                                     int rev)
{
    double q[3] = {0.05, 0.5, 0.95}, out[3];
    for (int e = 0; e < 3; e++) {
        double pos = q[e] * (n - 1);
        int i = (int)floor(pos);
        int a = rev ? n - 1 - i : i;
        if (i >= n - 1) {
            out[e] = v[ord[rev ? 0 : n - 1]];
            continue;
        }
        int b = rev ? a - 1 : a + 1;
        double f = pos - i;
        out[e] = v[ord[a]] * (1.0 - f) + v[ord[b]] * f;
    }
    return (dam_interval){out[0], out[1], out[2]};
}

/* Insertion sort of key[0 .. n - 1] (and ord with it), ascending; at
 * most limit moves (limit < 0: no limit). Returns 0 when it stopped at
 * the limit (the order then is not whole). */
static int insertion_sort(unsigned long long *key, int *ord, int n,
                          long limit)
{
    long moves = 0;
    for (int i = 1; i < n; i++) {
        unsigned long long k = key[i];
        int o = ord ? ord[i] : 0, j = i;
        for (; j > 0 && key[j - 1] > k; j--) {
            key[j] = key[j - 1];
            if (ord)
                ord[j] = ord[j - 1];
        }
        key[j] = k;
        if (ord)
            ord[j] = o;
        moves += i - j;
        if (limit >= 0 && moves > limit)
            return 0;
    }
    return 1;
}

/* The bits of a double that is positive and finite order it among such
 * doubles as its value does; ok: 0 when x is not one. */
static unsigned long long key_of(double x, int *ok)
{
    unsigned long long k;
    memcpy(&k, &x, sizeof k);
    *ok &= x > 0.0 && x <= DBL_MAX;
    return k;
}

/* ord = the draws in ascending order of v (n values, each positive and
 * finite): an LSD radix sort, a byte at a time, of the sixteen bits
 * below the highest bit where two values differ (the bits above it every
 * value shares), then an insertion sort on all the bits (values equal in
 * those sixteen bits are rare, and left in draw order by the radix
 * passes). */
static void order_positive(const double *v, int n, int *ord)
{
    unsigned long long *key = dam_malloc(2 * (size_t)n * sizeof *key);
    unsigned long long *k2 = key + n;
    int *o2 = dam_malloc((size_t)n * sizeof *o2), *o1 = ord;
    unsigned long long k0, diff = 0;
    memcpy(&k0, &v[0], sizeof k0);
    for (int i = 0; i < n; i++) {
        memcpy(&key[i], &v[i], sizeof key[i]);
        ord[i] = i;
        diff |= key[i] ^ k0;
    }
    int top = 0; /* past the highest differing bit */
    while (top < 64 && (diff >> top) != 0)
        top++;
    int low = top > 16 ? top - 16 : 0;
    for (int sh = low; sh < top; sh += 8) {
        int c[256];
        memset(c, 0, sizeof c);
        for (int i = 0; i < n; i++)
            c[(key[i] >> sh) & 255]++;
        int sum = 0;
        for (int d = 0; d < 256; d++) {
            int t = c[d];
            c[d] = sum;
            sum += t;
        }
        for (int i = 0; i < n; i++) {
            int at = c[(key[i] >> sh) & 255]++;
            k2[at] = key[i];
            o2[at] = o1[i];
        }
        unsigned long long *tk = key;
        key = k2;
        k2 = tk;
        int *to = o1;
        o1 = o2;
        o2 = to;
    }
    insertion_sort(key, o1, n, -1);
    if (o1 != ord) {
        memcpy(ord, o1, (size_t)n * sizeof *ord);
        o2 = o1;
    }
    dam_free(o2);
    dam_free(key < k2 ? key : k2);
}

/* The interval of y (n values) taken in the order ord of another
 * figure: y's values in that order (reversed when it ends lower than it
 * starts), put in order by an insertion sort that stops past 8 n moves.
 * Returns 0 (nothing set) when it stopped, or a value of y is not
 * positive and finite. */
static int interval_nearly_ordered(const double *y, const int *ord, int n,
                                   dam_interval *iv)
{
    unsigned long long *key = dam_malloc((size_t)n * sizeof *key);
    int ok = 1, rev = y[ord[n - 1]] < y[ord[0]];
    for (int k = 0; k < n; k++)
        key[k] = key_of(y[ord[rev ? n - 1 - k : k]], &ok);
    ok = ok && insertion_sort(key, NULL, n, 8L * n);
    if (ok) {
        /* the sorted values: quantile_sorted's numbers */
        double *sv = dam_malloc((size_t)n * sizeof *sv);
        memcpy(sv, key, (size_t)n * sizeof *sv);
        iv->lo = quantile_sorted(sv, n, 0.05);
        iv->median = quantile_sorted(sv, n, 0.5);
        iv->hi = quantile_sorted(sv, n, 0.95);
        dam_free(sv);
    }
    dam_free(key);
    return ok;
}

/*
 * dam_interval_of of each of the m arrays v[0 .. m - 1] (n values each)
 * into iv: v[0] is ordered once, and every array that the same order
 * leaves ascending or descending (a figure that moves with the first:
 * the run, the throughput) takes its quantiles from it; one that it
 * leaves nearly in order (the cost) is put in order from there; the
 * others, and every one when v[0] holds a value that is not positive and
 * finite, are selected on their own. The same numbers (each order
 * statistic is the value a sort puts there).
 */
static void intervals_of_arrays(double *const *v, int m, int n,
                                dam_interval *iv)
{
    int ok = n > 1;
    for (int k = 0; k < n && ok; k++)
        ok = v[0][k] > 0.0 && v[0][k] <= DBL_MAX;
    if (!ok) {
        for (int i = 0; i < m; i++)
            iv[i] = dam_interval_of(v[i], n);
        return;
    }
    int *ord = dam_malloc((size_t)n * sizeof *ord);
    order_positive(v[0], n, ord);
    iv[0] = interval_ordered(v[0], ord, n, 0);
    for (int i = 1; i < m; i++) {
        const double *y = v[i];
        int up = 1, down = 1;
        for (int k = 0; k + 1 < n; k++) {
            double a = y[ord[k]], b = y[ord[k + 1]];
            up &= a <= b;
            down &= a >= b;
        }
        if (up || down)
            iv[i] = interval_ordered(y, ord, n, !up);
        else if (!interval_nearly_ordered(y, ord, n, &iv[i]))
            iv[i] = dam_interval_of(v[i], n);
    }
    dam_free(ord);
}

/* 1 when input u of base has another value in s (a lever set it). */
static int lever_set(const dam_scenario *base, const dam_scenario *s,
                     const dam_uncertain *u)
{
    double vb, vs;
    memcpy(&vb, (const char *)base + u->offset, sizeof vb);
    memcpy(&vs, (const char *)s + u->offset, sizeof vs);
    return vs != vb;
}

void dam_uncertainty_apply(const dam_scenario *base, const dam_scenario *s,
                           const double *q, dam_scenario *out)
{
    if (out != s)
        *out = *s;
    for (int i = 0; i < base->nuncertain; i++) {
        const dam_uncertain *u = &base->uncertain[i];
        if (lever_set(base, s, u))
            continue; /* a lever set it: the lever's value stands */
        out->uncertain[i] = *u;
        dam_uncertain_set(out, i, dam_uncertain_quantile(u, q[i]));
    }
}

dam_draws *dam_draws_create(int n, unsigned long seed)
{
    dam_draws *d = dam_calloc(1, sizeof *d);
    d->n = n < 10 ? 10 : n;
    d->seed = seed;
    return d;
}

void dam_draws_free(dam_draws *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->ncol; i++)
        dam_free(d->col[i].u);
    dam_free(d->col);
    dam_free(d->plan.val);
    dam_free(d->plan.gm);
    dam_free(d->plan.lf_col);
    dam_free(d->memo);
    dam_free(d->xs);
    dam_free(d->share);
    dam_free(d->sx);
    dam_free(d->sr);
    if (d->ls)
        dam_free(d->ls->own);
    dam_free(d->ls);
    dam_free(d->es);
    dam_free(d);
}

int dam_draws_count(const dam_draws *d)
{
    return d->n;
}

/* FNV-1a of a name: the stream of its column. */
static unsigned long long name_hash(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static column *column_of(dam_draws *d, const char *name)
{
    unsigned long long h = name_hash(name);
    for (int i = 0; i < d->ncol; i++)
        if (d->col[i].hash == h && strcmp(d->col[i].name, name) == 0)
            return &d->col[i];
    d->col = dam_grow(d->col, sizeof *d->col, (size_t)d->ncol + 1, &d->cap);
    column *c = &d->col[d->ncol++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->hash = h;
    c->u = dam_malloc((size_t)d->n * sizeof *c->u);
    gsl_rng *g = dam_rng_create(d->seed,
                                UNCERTAINTY_STREAM ^ h);
    for (int k = 0; k < d->n; k++)
        c->u[k] = (k + gsl_rng_uniform_pos(g)) / d->n;
    gsl_ran_shuffle(g, c->u, (size_t)d->n, sizeof *c->u);
    dam_rng_free(g);
    return c;
}

double dam_draws_u(dam_draws *d, const char *name, int k)
{
    return column_of(d, name)->u[k % d->n];
}

/* A constant at probability u: lognormal about its value, relative spread
 * sd / value, inside its range. */
static double constant_at(const dam_const_use *c, double u)
{
    if (c->sd <= 0.0 || c->value <= 0.0)
        return c->value;
    double v = c->value * exp(gsl_cdf_ugaussian_Pinv(u) * c->sd / c->value);
    return v < c->lo ? c->lo : (v > c->hi ? c->hi : v);
}

/* The draw name of a scenario's step error: one per model and GPU, so
 * options on the same GPU share it and a GPU change draws afresh. */
static void step_error_name(const dam_scenario *s, char *buf, size_t n)
{
    snprintf(buf, n, "step_error/%s@%s",
             s->workload.model.id[0] ? s->workload.model.id : "inline",
             s->machine.gpu.id);
}

/* The multiplier of the GPU time at probability u: lognormal, median 1,
 * log-sd the scenario's step error. */
static double step_error_at(const dam_scenario *s, double u)
{
    return exp(gsl_cdf_ugaussian_Pinv(u) * dam_scenario_step_error(s));
}

/* Scale the scenario's GPU work (every phase's FLOPs and bytes) by m, so
 * the solver re-decides what binds. */
static void scale_gpu_time(dam_scenario *s, double m)
{
    scale_fields(s, s, m, 0);
}

/* Each uncertain input and calibrated constant of s at draw k, into x
 * (dam_draws_apply without the model's error). */
static int apply_constants(dam_draws *d, int k, const dam_scenario *base,
                           const dam_scenario *s, dam_scenario *x)
{
    double q[DAM_MAX_UNCERTAIN];
    char name[DAM_CONST_KEY_MAX + 8];
    for (int i = 0; i < base->nuncertain; i++) {
        snprintf(name, sizeof name, "input/%s", base->uncertain[i].key);
        q[i] = dam_draws_u(d, name, k);
    }
    dam_uncertainty_apply(base, s, q, x);
    dam_const_use use[DAM_MAX_CONST_USES];
    int nu = dam_scenario_constants(x, use, DAM_MAX_CONST_USES);
    for (int i = 0; i < nu; i++) {
        dam_const_key_format(&use[i].key, name, sizeof name);
        dam_scenario_const_set(x, &use[i].key,
                               constant_at(&use[i], dam_draws_u(d, name, k)), -1.0);
    }
    return base->nuncertain + nu;
}

/* The model's error multiplier of scenario x's GPU work in draw k. */
static double gpu_error_at(dam_draws *d, int k, const dam_scenario *x)
{
    char name[DAM_CONST_KEY_MAX + 8];
    step_error_name(x, name, sizeof name);
    return step_error_at(x, dam_draws_u(d, name, k));
}

int dam_draws_apply(dam_draws *d, int k, const dam_scenario *base,
                    const dam_scenario *s, dam_scenario *x)
{
    int n = apply_constants(d, k, base, s, x);
    scale_gpu_time(x, gpu_error_at(d, k, x));
    return n + 1;
}

/* Scale everything but the GPU's work by m: the loader's decode, the
 * storage, the host link, the collectives' bandwidth and latency and the
 * host overheads, so the solver and the simulator re-decide what binds. */
static void scale_rest_time(dam_scenario *s, double m)
{
    dam_data *dt = &s->data;
    for (int i = 0; i < dt->ndecode_samples; i++)
        dt->decode_samples[i] *= m;
    scale_fields(s, s, m, 1);
}

int dam_draws_apply_all(dam_draws *d, int k, const dam_scenario *base,
                        const dam_scenario *s, dam_scenario *x)
{
    int n = dam_draws_apply(d, k, base, s, x);
    char name[DAM_CONST_KEY_MAX + 8];
    snprintf(name, sizeof name, "step_error/rest/%s",
             x->workload.model.id[0] ? x->workload.model.id : "inline");
    scale_rest_time(x, step_error_at(x, dam_draws_u(d, name, k)));
    return n + 1;
}

/* 1 when the byte range [off, off + 8) meets [from, from + len). */
static int meets(size_t off, size_t from, size_t len)
{
    return off + sizeof(double) > from && off < from + len;
}

/* 1 when an input at offset off may change the constants s uses or their
 * values (what dam_scenario_constants reads): the plan then does not
 * apply, and each draw takes the general path. */
static int input_moves_constants(size_t off)
{
    return meets(off, offsetof(dam_scenario, machine.gpu), sizeof(dam_gpu)) ||
           meets(off, offsetof(dam_scenario, workload.model),
                 sizeof(dam_model_spec)) ||
           meets(off, offsetof(dam_scenario, workload.fw),
                 sizeof(dam_framework)) ||
           meets(off, SF(workload.eta), sizeof(double)) ||
           meets(off, SF(workload.eta_mem), sizeof(double)) ||
           meets(off, SF(workload.launch_s), sizeof(double)) ||
           meets(off, SF(workload.framework_overhead_s), sizeof(double));
}

/* The plan's key for (base, s) into p (the values are left alone);
 * 0 when s needs the general path. */
static int plan_key(const dam_scenario *base, const dam_scenario *s,
                    draw_plan *p, const dam_const_use *use, int nuse)
{
    if (s->data.ndecode_samples > 0)
        return 0; /* the error scales each measured decode time */
    p->nin = 0;
    for (int i = 0; i < base->nuncertain; i++) {
        const dam_uncertain *u = &base->uncertain[i];
        if (lever_set(base, s, u))
            continue;
        if (input_moves_constants(u->offset))
            return 0;
        p->in[p->nin++] = *u;
    }
    if (nuse >= 0) { /* the caller listed them */
        p->nuse = nuse;
        memcpy(p->use, use, (size_t)nuse * sizeof *use);
    } else {
        p->nuse = dam_scenario_constants(s, p->use, DAM_MAX_CONST_USES);
    }
    for (int i = 0; i < p->nuse; i++)
        if (p->use[i].key.owner == DAM_CONST_MODEL)
            return 0; /* the model's efficiency sits in two places */
    step_error_name(s, p->gname, sizeof p->gname);
    snprintf(p->rname, sizeof p->rname, "step_error/rest/%s",
             s->workload.model.id[0] ? s->workload.model.id : "inline");
    p->err_sd = dam_scenario_step_error(s);
    return 1;
}

static int plan_same_key(const draw_plan *a, const draw_plan *b)
{
    return a->nin == b->nin && a->nuse == b->nuse &&
           a->err_sd == b->err_sd && strcmp(a->gname, b->gname) == 0 &&
           strcmp(a->rname, b->rname) == 0 &&
           memcmp(a->in, b->in, (size_t)a->nin * sizeof a->in[0]) == 0 &&
           memcmp(a->use, b->use, (size_t)a->nuse * sizeof a->use[0]) == 0;
}

/* Each quantity of the plan's key in each draw of d. */
static void plan_values(dam_draws *d, const dam_scenario *s, draw_plan *p)
{
    int n = d->n;
    char name[DAM_CONST_KEY_MAX + 8];
    dam_free(p->val);
    dam_free(p->gm);
    p->val = dam_malloc((size_t)(p->nin + p->nuse) * (size_t)n *
                        sizeof *p->val);
    p->gm = dam_malloc(2 * (size_t)n * sizeof *p->gm);
    p->rm = p->gm + n;
    for (int i = 0; i < p->nin; i++) {
        const dam_uncertain *u = &p->in[i];
        snprintf(name, sizeof name, "input/%s", u->key);
        const double *c = column_of(d, name)->u;
        for (int k = 0; k < n; k++) {
            /* dam_uncertain_set's clamp */
            double v = dam_uncertain_quantile(u, c[k]);
            v = v < u->lo ? u->lo : v;
            p->val[i * n + k] = v > u->hi ? u->hi : v;
        }
        p->off[i] = u->offset;
    }
    for (int i = 0; i < p->nuse; i++) {
        dam_const_key_format(&p->use[i].key, name, sizeof name);
        const double *c = column_of(d, name)->u;
        double *row = p->val + (size_t)(p->nin + i) * n;
        for (int k = 0; k < n; k++)
            row[k] = constant_at(&p->use[i], c[k]);
        double *pv, *psd;
        dam_param_ref(dam_param_find(p->use[i].key.field,
                                     p->use[i].key.precision),
                      (dam_scenario *)s, &pv, &psd);
        p->off[p->nin + i] = (size_t)((const char *)pv - (const char *)s);
    }
    const double *cg = column_of(d, p->gname)->u;
    const double *cr = column_of(d, p->rname)->u;
    for (int k = 0; k < n; k++) {
        p->gm[k] = step_error_at(s, cg[k]);
        p->rm[k] = step_error_at(s, cr[k]);
    }
    for (int f = 0; f < NSCALED; f++) {
        p->from_x[f] = 0;
        for (int i = 0; i < p->nin + p->nuse; i++)
            p->from_x[f] |= p->off[i] == scaled_fields[f].off;
    }
    p->lanes_ok = 1;
    for (int i = 0; i < p->nin + p->nuse; i++)
        p->lanes_ok &= dam_analytic_lanes_cover(p->off[i]);
    for (int f = 0; f < NSCALED; f++)
        p->lanes_ok &= dam_analytic_lanes_cover(scaled_fields[f].off);
    p->npad = (n + DAM_COST_LANES - 1) / DAM_COST_LANES * DAM_COST_LANES;
    dam_free(p->lf_col);
    p->lf_col = dam_malloc((size_t)DAM_LF_COUNT * (size_t)p->npad *
                           sizeof *p->lf_col);
    for (int f = 0; f < DAM_LF_COUNT; f++) {
        size_t off = dam_analytic_lane_field(f);
        p->lf_built[f] = 0;
        p->lf_src[f] = p->lf_scaled[f] = -1;
        for (int i = 0; i < p->nin + p->nuse; i++)
            if (p->off[i] == off)
                p->lf_src[f] = i;
        for (int e = 0; e < NSCALED; e++)
            if (scaled_fields[e].off == off)
                p->lf_scaled[f] = e;
    }
}

/* Lane field f's column for the point s (plan_lanes_prepare). */
static void plan_lane_column(const dam_draws *d, draw_plan *p, int f,
                             double own)
{
    int n = d->n;
    const double *val = p->lf_src[f] >= 0
                            ? p->val + (size_t)p->lf_src[f] * n
                            : NULL;
    int e = p->lf_scaled[f];
    const double *mult = e < 0 ? NULL
                               : (scaled_fields[e].rest ? p->rm : p->gm);
    int div = e >= 0 && scaled_fields[e].div;
    double *col = p->lf_col + (size_t)f * p->npad;
    for (int k = 0; k < n; k++) {
        double x = val ? val[k] : own;
        if (mult)
            x = div ? x / mult[k] : x * mult[k];
        col[k] = x;
    }
    for (int k = n; k < p->npad; k++)
        col[k] = col[n - 1];
    p->lf_built[f] = 1;
    p->lf_own[f] = own;
}

/* Each lane field of s in every draw (plan_fill's value of the field):
 * the columns a drawn quantity sets are built with the plan, the others
 * again when the point's value of the field changes. */
static void plan_lanes_prepare(const dam_draws *d, draw_plan *p,
                               const dam_scenario *s)
{
    for (int f = 0; f < DAM_LF_COUNT; f++) {
        double own;
        memcpy(&own, (const char *)s + dam_analytic_lane_field(f),
               sizeof own);
        if (!p->lf_built[f] ||
            (p->lf_src[f] < 0 && memcmp(&own, &p->lf_own[f], sizeof own)))
            plan_lane_column(d, p, f, own);
    }
}

/*
 * Prepare x for plan_fill: 1 and x = s with base's descriptors of the
 * drawn inputs (as dam_uncertainty_apply leaves them) when the plan
 * applies to (base, s), built or reused; 0 when s needs the general path
 * (dam_draws_apply_all per draw).
 */
static int plan_prepare(dam_draws *d, const dam_scenario *base,
                        const dam_scenario *s, dam_scenario *x,
                        const dam_const_use *use, int nuse)
{
    draw_plan key;
    if (!plan_key(base, s, &key, use, nuse))
        return 0;
    draw_plan *p = &d->plan;
    if (p->ok && plan_same_key(p, &key)) {
        d->plan_reuses++;
    } else {
        double *val = p->val, *gm = p->gm, *col = p->lf_col;
        *p = key;
        p->val = val;
        p->gm = gm;
        p->lf_col = col;
        plan_values(d, s, p);
        p->ok = 1;
        d->plan_builds++;
    }
    for (int f = 0; f < NSCALED; f++)
        memcpy(&p->sv[f], (const char *)s + scaled_fields[f].off,
               sizeof p->sv[f]);
    if (x != s)
        *x = *s;
    for (int i = 0; i < base->nuncertain; i++)
        for (int j = 0; j < p->nin; j++)
            if (base->uncertain[i].offset == p->in[j].offset)
                x->uncertain[i] = base->uncertain[i];
    return 1;
}

/* x (prepared by plan_prepare for s) in draw k: the same bytes as
 * dam_draws_apply_all(d, k, base, s, x) when rest is 1, as
 * dam_draws_apply's when it is 0 (the rest's fields then keep their
 * value: times 1). */
static void plan_fill_as(const dam_draws *d, int k, const dam_scenario *s,
                         dam_scenario *x, int rest)
{
    const draw_plan *p = &d->plan;
    int n = d->n, nv = p->nin + p->nuse;
    for (int i = 0; i < nv; i++)
        memcpy((char *)x + p->off[i], &p->val[(size_t)i * n + k],
               sizeof(double));
    /* the GPU's error and the rest's (scale_fields_from's operations,
     * each field once: the order among them is immaterial) */
    const double m[2] = {p->gm[k], rest ? p->rm[k] : 1.0};
    for (int f = 0; f < NSCALED; f++) {
        const scaled_field *sf = &scaled_fields[f];
        double v = p->sv[f], mf = m[sf->rest];
        if (p->from_x[f])
            memcpy(&v, (const char *)x + sf->off, sizeof v);
        v = sf->div ? v / mf : v * mf;
        memcpy((char *)x + sf->off, &v, sizeof v);
    }
}

static void plan_fill(const dam_draws *d, int k, const dam_scenario *s,
                      dam_scenario *x)
{
    plan_fill_as(d, k, s, x, 1);
}

/* dam_draws_solve_each's draws in lanes of DAM_COST_LANES (x prepared by
 * plan_prepare): the graph and its cost plan worked out once, every
 * lane's graph cost at once, then each draw solved on its lane's cost
 * (dam_analytic_solve_given: dam_analytic_solve's result, the phases'
 * work aside). Returns 0 (nothing done) where the lanes do not apply: a
 * layout, serving, no operator graph, or options the cost plan does not
 * cover. */
static int solve_each_lanes(dam_draws *d, const dam_scenario *s,
                            dam_scenario *x, dam_result *r,
                            dam_draw_solved_fn fn, void *ctx)
{
    enum { L = DAM_COST_LANES };
    if (s->layout.on || s->mode == DAM_MODE_SERVING ||
        x->workload.model.arch.kind == DAM_ARCH_NONE)
        return 0;
    if (!d->es)
        d->es = dam_malloc(sizeof *d->es);
    dam_cost_plan *plan = &d->es->plan;
    dam_cost_lanes *lanes = &d->es->lanes;
    const dam_graph *g = dam_scenario_graph(x, &d->es->g);
    double b = x->workload.batch_size;
    dam_cost_opts o;
    int ok = 0;
    if (g) {
        plan_fill_as(d, 0, s, x, 1);
        dam_cost_opts_scenario(x, b, &o);
        ok = dam_cost_plan_build(g, &o, plan);
    }
    for (int k0 = 0; ok && k0 < d->n; k0 += L) {
        int m = d->n - k0 < L ? d->n - k0 : L;
        unsigned char own[L];
        for (int j = 0; j < m; j++) {
            plan_fill_as(d, k0 + j, s, x, 1);
            dam_cost_opts_scenario(x, b, &o);
            own[j] = !dam_cost_lanes_set(plan, &o, lanes, j);
        }
        lanes->n = m;
        dam_cost_lanes_run(plan, lanes);
        for (int j = 0; j < m; j++) {
            plan_fill_as(d, k0 + j, s, x, 1);
            if (own[j]) {
                dam_analytic_solve(x, r);
            } else {
                dam_graph_cost gc;
                dam_cost_lanes_get(plan, lanes, j, &gc);
                dam_analytic_solve_given(x, r, g, &gc);
            }
            fn(x, r, k0 + j, ctx);
        }
    }
    return ok;
}

void dam_draws_solve_each(dam_draws *d, const dam_scenario *base,
                          const dam_scenario *s, dam_scenario *x,
                          dam_result *r, dam_draw_solved_fn fn, void *ctx)
{
    int planned =
        x != s && x != base && plan_prepare(d, base, s, x, NULL, -1);
    if (planned && solve_each_lanes(d, s, x, r, fn, ctx))
        return;
    for (int k = 0; k < d->n; k++) {
        if (planned)
            plan_fill_as(d, k, s, x, 1);
        else
            dam_draws_apply_all(d, k, base, s, x);
        dam_analytic_solve(x, r);
        fn(x, r, k, ctx);
    }
}

dam_figures dam_figures_of(const dam_result *r)
{
    dam_figures f = {r->step, r->run_time, r->throughput, r->gpu_hours,
                     r->cost_usd};
    return f;
}

/* Solve s in draw k (dam_draws_apply_all; planned: x prepared by
 * plan_prepare, which returned 1). */
static dam_figures solve_draw(dam_draws *d, int k, const dam_scenario *base,
                              const dam_scenario *s, dam_scenario *x,
                              dam_result *r, int planned)
{
    if (planned) {
        plan_fill(d, k, s, x);
    } else {
        dam_draws_apply_all(d, k, base, s, x);
    }
    dam_analytic_solve_memo(x, r, d->memo && x == d->xs ? &d->memo[k]
                                                        : NULL);
    return dam_figures_of(r);
}

/*
 * Every draw of s (x prepared by plan_prepare) in lanes of
 * DAM_COST_LANES: the graph and the cost plan worked out once for the
 * point, each lane's rates from its draw's options, the graph costed
 * for all lanes at once (dam_cost_lanes_run), then each draw solved on
 * its lane's cost: the same figures and bound as solve_draw's, draw by
 * draw. A draw whose options the plan does not cover is solved as
 * solve_draw does. Returns 0 (nothing done) when the plan does not
 * apply: a layout, serving, no operator graph, or options the lanes do
 * not cover (dam_cost_plan_build).
 */
static int solve_lanes(dam_draws *d, const dam_scenario *s, dam_scenario *x,
                       dam_result *r, dam_figures *f, int *bound)
{
    enum { L = DAM_COST_LANES };
    if (s->layout.on || s->mode == DAM_MODE_SERVING ||
        x->workload.model.arch.kind == DAM_ARCH_NONE)
        return 0;
    int nchunk = (d->n + L - 1) / L;
    if (!d->ls) {
        d->ls = dam_calloc(1, sizeof *d->ls +
                                  (size_t)nchunk * sizeof d->ls->chunk[0]);
        d->ls->own = dam_calloc((size_t)d->n, 1);
    }
    lane_state *ls = d->ls;
    const dam_graph *g = dam_scenario_graph(x, &ls->g);
    if (!g)
        return 0;
    double b = x->workload.batch_size;
    dam_cost_opts o;
    plan_fill(d, 0, s, x);
    dam_cost_opts_scenario(x, b, &o);
    if (!dam_cost_plan_build(g, &o, &ls->plan)) {
        ls->kept = 0;
        return 0;
    }
    /* the kept lanes' costs stand while the plan (and below each lane's
     * rates) is the same bytes: a memoizing dam_draws only */
    size_t head = offsetof(dam_cost_plan, step);
    int reuse = d->memo && ls->kept &&
                memcmp(&ls->plan, &ls->kept_plan, head) == 0 &&
                ls->plan.nsteps == ls->kept_plan.nsteps &&
                memcmp(ls->plan.step, ls->kept_plan.step,
                       (size_t)ls->plan.nsteps * sizeof ls->plan.step[0]) ==
                    0;
    if (!reuse) {
        memcpy(&ls->kept_plan, &ls->plan,
               head + (size_t)ls->plan.nsteps * sizeof ls->plan.step[0]);
        ls->kept = 1;
    }
    /* each draw's rates are a function of the draw plan's values and of
     * what s gives the cost options, but for the batch: the kept ones
     * stand while those are the same bytes (a sweep's points that vary
     * the batch or the loader) */
    dam_cost_opts ko;
    dam_cost_opts_scenario(s, 0.0, &ko);
    ko.gpu = NULL;
    ko.fw = NULL;
    int same_rates = ls->rates && ls->plan_builds == d->plan_builds &&
                     memcmp(&ko, &ls->o, sizeof ko) == 0 &&
                     memcmp(&s->machine.gpu, &ls->gpu, sizeof ls->gpu) == 0 &&
                     memcmp(&s->workload.fw, &ls->fw, sizeof ls->fw) == 0;
    if (!same_rates) {
        ls->rates = 1;
        ls->plan_builds = d->plan_builds;
        ls->o = ko;
        ls->gpu = s->machine.gpu;
        ls->fw = s->workload.fw;
    }
    dam_graph_cost gc;
    dam_cost_lanes *lanes = dam_malloc(sizeof *lanes);
    /* the lanes' figures, when the draws move only what they cover */
    int fast = d->plan.lanes_ok;
    const double *v[DAM_LF_COUNT];
    if (fast)
        plan_lanes_prepare(d, &d->plan, s);
    dam_lane_figures *lf = dam_malloc(sizeof *lf);
    size_t rates = offsetof(dam_cost_lanes, acc);
    for (int k0 = 0, c = 0; k0 < d->n; k0 += L, c++) {
        int m = d->n - k0 < L ? d->n - k0 : L;
        dam_cost_lanes *cl = &ls->chunk[c];
        int changed = 0;
        if (!same_rates) {
            memcpy(lanes, cl, rates); /* the lanes past m as kept */
            for (int j = 0; j < m; j++) {
                plan_fill(d, k0 + j, s, x);
                dam_cost_opts_scenario(x, b, &o);
                ls->own[k0 + j] =
                    !dam_cost_lanes_set(&ls->plan, &o, lanes, j);
            }
            lanes->n = m;
            changed = memcmp(lanes, cl, rates) != 0;
            if (changed)
                memcpy(cl, lanes, rates);
        }
        if (reuse && !changed) {
            for (int j = 0; j < m; j++)
                d->lane_hits += !ls->own[k0 + j];
        } else {
            dam_cost_lanes_run(&ls->plan, cl);
        }
        const dam_cost_lanes *kl = cl;
        if (fast) { /* every draw's figures at once */
            for (int q = 0; q < DAM_LF_COUNT; q++)
                v[q] = d->plan.lf_col + (size_t)q * d->plan.npad + k0;
            dam_analytic_figures_lanes(s, g, &ls->plan, kl, v, lf);
        }
        for (int j = 0; j < m; j++) {
            int k = k0 + j;
            if (fast && !ls->own[k]) {
                f[k] = (dam_figures){lf->step[j], lf->run_time[j],
                                     lf->throughput[j], lf->gpu_hours[j],
                                     lf->cost_usd[j]};
                bound[k] = lf->bound[j];
                continue;
            }
            plan_fill(d, k, s, x);
            if (ls->own[k]) {
                dam_analytic_solve_memo(x, r, d->memo && x == d->xs
                                                  ? &d->memo[k]
                                                  : NULL);
            } else {
                dam_cost_lanes_get(&ls->plan, kl, j, &gc);
                dam_analytic_figures_given(x, r, g, &gc);
            }
            f[k] = dam_figures_of(r);
            bound[k] = r->bound;
        }
    }
    dam_free(lf);
    dam_free(lanes);
    return 1;
}

/* Every draw of s into f and bound (solve_draw's figures and r->bound). */
static void solve_all(dam_draws *d, const dam_scenario *base,
                      const dam_scenario *s, dam_scenario *x, dam_result *r,
                      int planned, dam_figures *f, int *bound)
{
    if (planned && solve_lanes(d, s, x, r, f, bound))
        return;
    for (int k = 0; k < d->n; k++) {
        f[k] = solve_draw(d, k, base, s, x, r, planned);
        bound[k] = r->bound;
    }
}

void dam_draws_memoize(dam_draws *d)
{
    if (d->memo)
        return;
    d->memo = dam_calloc((size_t)d->n, sizeof *d->memo);
    d->xs = dam_calloc(1, sizeof *d->xs);
}

/* The scratch scenario to solve s's draws in: d's kept one when it
 * memoizes (its memos forgotten when s's operator graph is not the one
 * they costed: they compare the options, the GPU and the framework, not
 * the graph's bytes), else x. */
static dam_scenario *draw_scratch(dam_draws *d, const dam_scenario *s,
                                  dam_scenario *x)
{
    if (!d->memo)
        return x;
    if (memcmp(&d->xs->workload.graph, &s->workload.graph,
               sizeof s->workload.graph) != 0)
        for (int k = 0; k < d->n; k++)
            d->memo[k].valid = 0;
    return d->xs;
}

unsigned long dam_draws_memo_hits(const dam_draws *d)
{
    unsigned long h = d->lane_hits;
    for (int k = 0; d->memo && k < d->n; k++)
        h += d->memo[k].hits;
    return h;
}

/* dam_uncertainty_sources of s, whose constants are use[0 .. nu - 1]. */
static int sources_of(const dam_scenario *s, const dam_const_use *use,
                      int nu)
{
    int n = 0;
    for (int i = 0; i < nu; i++)
        n += use[i].sd > 0.0;
    return s->nuncertain + n + (dam_scenario_step_error(s) > 0.0);
}

int dam_uncertainty_sources(const dam_scenario *s)
{
    dam_const_use use[DAM_MAX_CONST_USES];
    int nu = dam_scenario_constants(s, use, DAM_MAX_CONST_USES);
    return sources_of(s, use, nu);
}

void dam_uncertainty_answer(dam_draws *d, const dam_scenario *base,
                            const dam_scenario *s, const double *t_base,
                            double *t_out, dam_answer_interval *a)
{
    int n = d->n;
    memset(a, 0, sizeof *a);
    dam_scenario *x = dam_malloc(sizeof *x);
    dam_result *r = dam_malloc(sizeof *r);
    double *v = dam_malloc((size_t)n * 6 * sizeof *v);
    double *step = v, *run = v + n, *tp = v + 2 * n, *gh = v + 3 * n,
           *cost = v + 4 * n, *sp = v + 5 * n;
    int faster = 0, slower = 0;
    int planned = plan_prepare(d, base, s, x, NULL, -1);
    dam_figures *fs = dam_malloc((size_t)n * sizeof *fs);
    int *bound = dam_malloc((size_t)n * sizeof *bound);
    solve_all(d, base, s, x, r, planned, fs, bound);
    for (int k = 0; k < n; k++) {
        dam_figures f = fs[k];
        double t = s->mode == DAM_MODE_SERVING ? f.step : f.run_time;
        step[k] = f.step;
        run[k] = f.run_time;
        tp[k] = f.throughput;
        gh[k] = f.gpu_hours;
        cost[k] = f.cost_usd;
        if (t_out)
            t_out[k] = t;
        if (t_base) {
            sp[k] = t > 0.0 ? t_base[k] / t : 0.0;
            faster += sp[k] >= 1.0 + DAM_FASTER_BY;
            slower += sp[k] > 0.0 && sp[k] <= 1.0 / (1.0 + DAM_FASTER_BY);
        }
    }
    dam_free(bound);
    dam_free(fs);
    dam_analytic_solve(s, r);
    a->nominal = dam_figures_of(r);
    a->samples = n;
    {
        double *const arr[6] = {step, run, tp, gh, cost, sp};
        dam_interval iv[6];
        intervals_of_arrays(arr, t_base ? 6 : 5, n, iv);
        a->step = iv[0];
        a->run_time = iv[1];
        a->throughput = iv[2];
        a->gpu_hours = iv[3];
        a->cost_usd = iv[4];
        if (t_base)
            a->speedup = iv[5];
    }
    if (t_base) {
        a->has_speedup = 1;
        a->p_faster = (double)faster / n;
        a->p_slower = (double)slower / n;
    }
    dam_free(v);
    dam_free(r);
    dam_free(x);
}

/* The intervals of s over the draws of d into u (samples, step, run_time,
 * throughput, cost, GPU-hours, nominal, p_bound); x and r are scratch;
 * use[0 .. nuse - 1]: s's constants (nuse < 0: not listed). */
static int intervals_of(dam_draws *d, const dam_scenario *s, dam_scenario *x,
                        dam_result *r, dam_uncertainty *u, dam_error *err,
                        const dam_const_use *use, int nuse,
                        const dam_result *nominal)
{
    int samples = d->n;
    double *v = dam_malloc((size_t)samples * 5 * sizeof *v);
    double *step = v, *run = v + samples, *tp = v + 2 * samples,
           *cost = v + 3 * samples, *gh = v + 4 * samples;
    u->samples = samples;
    x = draw_scratch(d, s, x);
    int planned = plan_prepare(d, s, s, x, use, nuse);
    dam_figures *fs = dam_malloc((size_t)samples * sizeof *fs);
    int *bound = dam_malloc((size_t)samples * sizeof *bound);
    int nbound[DAM_BOUND_COUNT + 1] = {0};
    solve_all(d, s, s, x, r, planned, fs, bound);
    for (int k = 0; k < samples; k++) {
        dam_figures f = fs[k];
        step[k] = f.step;
        run[k] = f.run_time;
        tp[k] = f.throughput;
        cost[k] = f.cost_usd;
        gh[k] = f.gpu_hours;
        nbound[(unsigned)bound[k] < DAM_BOUND_COUNT ? bound[k]
                                                     : DAM_BOUND_COUNT]++;
    }
    /* each bound's share: 1 / samples added once a draw it binds in, in
     * turn from 0 (the sums, counted) */
    if (!d->share) {
        d->share = dam_malloc(((size_t)samples + 1) * sizeof *d->share);
        d->share[0] = 0.0;
        for (int m = 1; m <= samples; m++)
            d->share[m] = d->share[m - 1] + 1.0 / samples;
    }
    for (int b = 0; b < DAM_BOUND_COUNT; b++)
        u->p_bound[b] = d->share[nbound[b]];
    dam_free(bound);
    dam_free(fs);
    if (!nominal) {
        dam_analytic_solve(s, r);
        nominal = r;
    }
    u->nominal = dam_figures_of(nominal);
    {
        double *const arr[5] = {step, run, tp, cost, gh};
        dam_interval iv[5];
        intervals_of_arrays(arr, 5, samples, iv);
        u->step = iv[0];
        u->run_time = iv[1];
        u->throughput = iv[2];
        u->cost_usd = iv[3];
        u->gpu_hours = iv[4];
    }
    dam_free(v);
    int rc = DAM_OK;
    const dam_interval *iv[5] = {&u->step, &u->run_time, &u->throughput,
                                 &u->cost_usd, &u->gpu_hours};
    static const char *const ivn[5] = {"step", "run time", "throughput",
                                       "cost", "GPU-hours"};
    for (int i = 0; i < 5 && rc == DAM_OK; i++)
        if (!isfinite(iv[i]->lo) || !isfinite(iv[i]->median) ||
            !isfinite(iv[i]->hi) || iv[i]->lo < 0.0)
            rc = dam_error_set(err, s->file, 0,
                               "the %s interval over the uncertain inputs "
                               "is not finite: an input's range reaches "
                               "values beyond any physical range",
                               ivn[i]);
    return rc;
}

int dam_uncertainty_intervals_given(dam_draws *d, const dam_scenario *s,
                                    const dam_result *nominal,
                                    dam_uncertainty *u, dam_error *err)
{
    memset(u, 0, sizeof *u);
    dam_const_use use[DAM_MAX_CONST_USES]; /* listed once a point */
    int nuse = dam_scenario_constants(s, use, DAM_MAX_CONST_USES);
    if (sources_of(s, use, nuse) == 0)
        return dam_error_set(err, s->file, 0,
                             "no uncertain inputs or calibrated constants");
    /* scratch kept from point to point (a memoizing d solves its draws
     * in its own scenario, xs) */
    if (!d->sr)
        d->sr = dam_malloc(sizeof *d->sr);
    if (!d->memo && !d->sx)
        d->sx = dam_malloc(sizeof *d->sx);
    return intervals_of(d, s, d->memo ? d->xs : d->sx, d->sr, u, err, use,
                        nuse, nominal);
}

int dam_uncertainty_intervals(dam_draws *d, const dam_scenario *s,
                              dam_uncertainty *u, dam_error *err)
{
    return dam_uncertainty_intervals_given(d, s, NULL, u, err);
}

void dam_draws_plan_counts(const dam_draws *d, long *builds, long *reuses)
{
    *builds = d->plan_builds;
    *reuses = d->plan_reuses;
}

int dam_uncertainty_run(const dam_scenario *s, int samples,
                        unsigned long seed, dam_uncertainty *u,
                        dam_error *err)
{
    memset(u, 0, sizeof *u);
    if (dam_uncertainty_sources(s) == 0)
        return dam_error_set(err, s->file, 0,
                             "no uncertain inputs or calibrated constants");
    if (samples < 10)
        return dam_error_set(err, s->file, 0,
                             "uncertainty needs at least 10 samples");
    dam_draws *d = dam_draws_create(samples, seed);
    dam_scenario *x = dam_malloc(sizeof *x);
    dam_result *r = dam_malloc(sizeof *r);
    int rc = intervals_of(d, s, x, r, u, err, NULL, -1, NULL);

    /* Tornado: one input at a time, the others at their means. */
    for (int i = 0; i < s->nuncertain; i++) {
        dam_uncertainty_input *in = &u->inputs[u->ninputs++];
        const dam_uncertain *un = &s->uncertain[i];
        snprintf(in->key, sizeof in->key, "%s", un->key);
        in->kind = un->kind;
        in->scale = un->scale > 0.0 ? un->scale : 1.0;
        in->value_lo = dam_uncertain_quantile(un, 0.05);
        in->value_hi = dam_uncertain_quantile(un, 0.95);
        *x = *s;
        dam_uncertain_set(x, i, in->value_lo);
        dam_analytic_solve(x, r);
        in->step_lo = r->step;
        *x = *s;
        dam_uncertain_set(x, i, in->value_hi);
        dam_analytic_solve(x, r);
        in->step_hi = r->step;
        in->swing = fabs(in->step_hi - in->step_lo);
    }
    /* ... and each calibrated constant at its 5th and 95th percentile */
    dam_const_use use[DAM_MAX_CONST_USES];
    int nu = dam_scenario_constants(s, use, DAM_MAX_CONST_USES);
    for (int i = 0; i < nu; i++) {
        if (use[i].sd <= 0.0)
            continue;
        dam_uncertainty_input *in = &u->inputs[u->ninputs++];
        u->nconstants++;
        dam_const_key_format(&use[i].key, in->key, sizeof in->key);
        in->constant = 1;
        in->default_sd = use[i].default_sd;
        in->kind = DAM_UNCERTAIN_LOGNORMAL;
        in->scale = 1.0;
        dam_const_field_info(use[i].key.owner, use[i].key.field, NULL, NULL,
                             NULL, &in->scale);
        in->value_lo = constant_at(&use[i], 0.05);
        in->value_hi = constant_at(&use[i], 0.95);
        *x = *s;
        dam_scenario_const_set(x, &use[i].key, in->value_lo, -1.0);
        dam_analytic_solve(x, r);
        in->step_lo = r->step;
        *x = *s;
        dam_scenario_const_set(x, &use[i].key, in->value_hi, -1.0);
        dam_analytic_solve(x, r);
        in->step_hi = r->step;
        in->swing = fabs(in->step_hi - in->step_lo);
    }
    /* ... and the model's step error: its two multipliers, drawn apart
     * (dam_draws_apply_all), each a row of its own: both at the same
     * percentile swung the 70B service's request wider (2.10 to 3.46 s)
     * than the interval of every input together (2.25 to 3.33 s) */
    for (int rest = 0; rest < 2; rest++) {
        dam_uncertainty_input *in = &u->inputs[u->ninputs++];
        snprintf(in->key, sizeof in->key, "step error of %s on %s, %s",
                 s->workload.model.id[0] ? s->workload.model.id : "the model",
                 s->machine.gpu.id, rest ? "the rest" : "GPU work");
        in->constant = 1;
        in->step_error = 1 + rest;
        in->default_sd = !(s->workload.model.step_error > 0.0);
        in->kind = DAM_UNCERTAIN_LOGNORMAL;
        in->scale = 1.0;
        in->value_lo = step_error_at(s, 0.05);
        in->value_hi = step_error_at(s, 0.95);
        for (int e = 0; e < 2; e++) {
            *x = *s;
            if (rest)
                scale_rest_time(x, e ? in->value_hi : in->value_lo);
            else
                scale_gpu_time(x, e ? in->value_hi : in->value_lo);
            dam_analytic_solve(x, r);
            *(e ? &in->step_hi : &in->step_lo) = r->step;
        }
        in->swing = fabs(in->step_hi - in->step_lo);
    }
    /* largest swing first (insertion sort: a few dozen at most) */
    for (int i = 1; i < u->ninputs; i++)
        for (int j = i; j > 0 && u->inputs[j].swing > u->inputs[j - 1].swing;
             j--) {
            dam_uncertainty_input t = u->inputs[j];
            u->inputs[j] = u->inputs[j - 1];
            u->inputs[j - 1] = t;
        }
    for (int i = 0; i < u->ninputs && rc == DAM_OK; i++)
        if (!isfinite(u->inputs[i].step_lo) || !isfinite(u->inputs[i].step_hi))
            rc = dam_error_set(err, s->file, 0,
                               "the swing of '%s' is not finite",
                               u->inputs[i].key);
    dam_free(r);
    dam_free(x);
    dam_draws_free(d);
    return rc;
}

/* iv scaled by shown / nominal: the draws' relative spread about the
 * figure shown. Unchanged when either is not a positive number. */
static void carry(dam_interval *iv, double nominal, double shown)
{
    if (!(nominal > 0.0) || !(shown > 0.0) || !isfinite(nominal) ||
        !isfinite(shown))
        return;
    double f = shown / nominal;
    iv->lo *= f;
    iv->median *= f;
    iv->hi *= f;
}

static void carry_figures(dam_interval *step, dam_interval *run,
                          dam_interval *tp, dam_interval *gh,
                          dam_interval *cost, const dam_figures *nom,
                          const dam_figures *shown)
{
    carry(step, nom->step, shown->step);
    carry(run, nom->run_time, shown->run_time);
    carry(tp, nom->throughput, shown->throughput);
    carry(gh, nom->gpu_hours, shown->gpu_hours);
    carry(cost, nom->cost_usd, shown->cost_usd);
}

void dam_interval_carry(dam_answer_interval *a, const dam_figures *shown,
                        double speedup_shown, double speedup_nominal,
                        const double *t_base, const double *t, int n)
{
    if (!a->carried)
        a->step_analytic = a->step;
    carry_figures(&a->step, &a->run_time, &a->throughput, &a->gpu_hours,
                  &a->cost_usd, &a->nominal, shown);
    if (a->has_speedup && speedup_shown > 0.0 && speedup_nominal > 0.0) {
        carry(&a->speedup, speedup_nominal, speedup_shown);
        if (t_base && t && n > 0) {
            /* the shares of draws faster and slower, of the same carried
             * speed-ups the interval is of */
            double f = speedup_shown / speedup_nominal;
            int faster = 0, slower = 0;
            for (int k = 0; k < n; k++) {
                double sp = t[k] > 0.0 ? t_base[k] / t[k] * f : 0.0;
                faster += sp >= 1.0 + DAM_FASTER_BY;
                slower += sp > 0.0 && sp <= 1.0 / (1.0 + DAM_FASTER_BY);
            }
            a->p_faster = (double)faster / n;
            a->p_slower = (double)slower / n;
        }
    }
    a->carried = 1;
}

void dam_interval_carry_run(dam_uncertainty *u, const dam_figures *shown)
{
    if (!u->carried)
        u->step_analytic = u->step;
    /* the tornado beside the step's interval is of the same figure: an
     * LLM service's swings were a lone request's (around 2.08 s) under
     * an interval carried to its mean under load (median 2.70 s) */
    double nom = u->nominal.step, sh = shown->step;
    if (nom > 0.0 && sh > 0.0 && isfinite(nom) && isfinite(sh))
        for (int i = 0; i < u->ninputs; i++) {
            dam_uncertainty_input *x = &u->inputs[i];
            x->step_lo *= sh / nom;
            x->step_hi *= sh / nom;
            x->swing *= sh / nom;
        }
    carry_figures(&u->step, &u->run_time, &u->throughput, &u->gpu_hours,
                  &u->cost_usd, &u->nominal, shown);
    u->carried = 1;
}

/* Index of the draw at quantile q of t (n entries): the (q (n - 1))-th
 * smallest, ties by index. */
int dam_draw_at(const double *t, int n, double q)
{
    int want = (int)(q * (n - 1) + 0.5), best = 0;
    for (int k = 0; k < n; k++) {
        int below = 0;
        for (int j = 0; j < n; j++)
            below += t[j] < t[k] || (t[j] == t[k] && j < k);
        if (below == want)
            return k;
        if (below < want)
            best = k;
    }
    return best;
}

/* [lo, hi] of the two ends and the nominal figure x, widened by the CI
 * half-width ci of x: hi + ci above, lo / (1 + ci / x) below. Subtracting
 * ci below took a stable end draw's TTFT of 0.89 s to 0 when the nominal
 * run was overloaded (233 +- 37 s). */
static void span(double *v, double x, double ci)
{
    double lo = v[0] < v[1] ? v[0] : v[1], hi = v[0] < v[1] ? v[1] : v[0];
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    if (x > 0.0 && ci > 0.0)
        lo /= 1.0 + ci / x;
    v[0] = lo > 0.0 ? lo : 0.0;
    v[1] = hi + ci;
}

int dam_load_interval_of(dam_draws *d, const dam_scenario *base,
                         const dam_scenario *s, const dam_result *nominal,
                         const double *t, int n, dam_solve_fn solve,
                         void *ctx, dam_load_interval *out)
{
    memset(out, 0, sizeof *out);
    dam_scenario *x = dam_malloc(sizeof *x);
    dam_result *r = dam_malloc(sizeof *r);
    int rc = DAM_OK;
    for (int e = 0; e < 2 && rc == DAM_OK; e++) {
        dam_draws_apply_all(d, dam_draw_at(t, n, e ? 0.95 : 0.05), base, s, x);
        /* the end draws move the figure by the constants alone: the
         * nominal simulation's replications carry the random error (the
         * CI that widens the envelope), so an end draw runs the first of
         * them only (the same random numbers: replication 0's streams) */
        if (x->serving.replications > DAM_LOAD_DRAW_REPLICATIONS)
            x->serving.replications = DAM_LOAD_DRAW_REPLICATIONS;
        dam_error err;
        memset(&err, 0, sizeof err);
        rc = solve(x, ctx, r, &err);
        if (rc != DAM_OK || !r->has_sim)
            break;
        dam_llm_result *l = &r->serving.llm;
        out->p99[e] = r->serving.latency.p99;
        out->ttft[e] = l->ttft.q;
        out->tpot[e] = l->tpot.q;
        out->throughput[e] = l->enabled ? l->throughput : r->serving.throughput;
        /* judged with the nominal run's CI, as the envelope is widened */
        const dam_serving_result *nv = &nominal->serving;
        l->ttft.q_ci = nv->llm.ttft.q_ci;
        l->tpot.q_ci = nv->llm.tpot.q_ci;
        r->serving.p99_ci95 = nv->p99_ci95;
        out->met[e] = l->enabled ? dam_llm_slo_met(l)
                                 : dam_serving_slo_met(&r->serving);
        out->draw_p99[e] = out->p99[e];
        out->draw_ttft[e] = out->ttft[e];
        out->draw_tpot[e] = out->tpot[e];
        out->draw_step[e] = r->step;
    }
    if (rc == DAM_OK && r->has_sim) {
        const dam_serving_result *sv = &nominal->serving;
        const dam_llm_result *l = &sv->llm;
        span(out->p99, sv->latency.p99, sv->p99_ci95);
        span(out->ttft, l->ttft.q, l->ttft.q_ci);
        span(out->tpot, l->tpot.q, l->tpot.q_ci);
        span(out->throughput, l->enabled ? l->throughput : sv->throughput,
             0.0);
        out->ok = 1;
    }
    dam_free(r);
    dam_free(x);
    return rc;
}

double *dam_draws_times(dam_draws *d, const dam_scenario *s)
{
    int n = dam_draws_count(d);
    double *t = dam_malloc((size_t)n * sizeof *t);
    dam_answer_interval *a = dam_malloc(sizeof *a);
    dam_uncertainty_answer(d, s, s, NULL, t, a);
    dam_free(a);
    return t;
}
