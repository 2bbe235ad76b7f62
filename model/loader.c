/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader.c: libconfig files -> dam_scenario / dam_catalog.
 *
 * Design. One small schema walker (the "ld" context and its get_* helpers)
 * reads every value: it checks the type, the range and converts to SI with a
 * scale factor, and reports a problem as "file:line: error: ..." into the
 * dam_diag, then goes on, so one run shows every problem of a file (up to
 * DAM_DIAG_MAX). Each group lists its allowed keys; anything else is an
 * unknown key with a "did you mean" suggestion. Cross-field checks (the GPU
 * supports the precision, workers against cores) run after the fields, with
 * the line of the key that is inconsistent.
 *
 * Key names carry their unit (`_gbs` GB/s decimal, `_gib` GiB, `_ms`
 * milliseconds, `_us` microseconds, `_mb` MB decimal); the struct fields are
 * SI. Strings are copied out before config_destroy.
 */
#include "model/loader.h"

#include <errno.h>
#include <libconfig.h>
#include <stdint.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/csvline.h"
#include "model/infile.h"
#include "model/lever.h"
#include "model/scaling.h"
#include "model/suggest.h"
#include "model/device.h"
#include "model/graph.h"
#include "model/constants.h"

#define GB 1e9
#define GiB 1073741824.0
#define GIB 1073741824.0
#define MB 1e6
#define MS 1e-3
#define US 1e-6
#define TFLOPS 1e12

/* Range classes for numbers. */
typedef enum {
    R_ANY,     /* any finite value */
    R_POS,     /* > 0 */
    R_NONNEG,  /* >= 0 */
    R_UNIT,    /* (0, 1] */
    R_FRAC,    /* [0, 1) */
    R_GE1      /* >= 1 */
} range;

typedef struct ld {
    dam_diag *d;      /* where problems go */
    const char *file; /* file name for messages */
    dam_scenario *scen; /* the scenario being read (NULL for catalogs): its
                         * doubles may be given as distributions */
} ld;

static int line_of(const config_setting_t *s)
{
    return s ? (int)config_setting_source_line(s) : 0;
}

/* The file setting s was read from: an @include'd file's own name, else
 * the file being loaded. */
static const char *file_of(const ld *L, const config_setting_t *s)
{
    const char *f = s ? config_setting_source_file(s) : NULL;
    return f && *f ? f : L->file;
}

/* "file, line" of setting s, for dam_diag_error and dam_diag_warn. */
#define AT(s) file_of(L, (s)), line_of(s)

static const char *type_name(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a number";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_GROUP: return "a group";
    case CONFIG_TYPE_ARRAY: return "an array";
    case CONFIG_TYPE_LIST: return "a list";
    default: return "nothing";
    }
}

/* "machine.host" + "." + "pcie_gbs" */
static void path_join(char *buf, size_t n, const char *where, const char *key)
{
    if (where && where[0])
        snprintf(buf, n, "%s.%s", where, key);
    else
        snprintf(buf, n, "%s", key);
}

/* Report keys of group g not in allowed (NULL-terminated), with the one
 * "did you mean" rule (model/suggest.h). */
static void check_keys(ld *L, const config_setting_t *g,
                       const char *const *allowed, const char *where)
{
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *c = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(c);
        if (!name)
            continue;
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, name) == 0;
        if (ok)
            continue;
        char full[160];
        path_join(full, sizeof full, where, name);
        const char *best = dam_suggest_list(name, allowed);
        if (best)
            dam_diag_error(L->d, AT(c),
                           "unknown key '%s' (did you mean '%s'?)", full, best);
        else
            dam_diag_error(L->d, AT(c), "unknown key '%s'", full);
    }
}

/* The member key of g; reports a missing required key at g's line. */
static config_setting_t *member(ld *L, const config_setting_t *g,
                                const char *key, const char *where,
                                int required)
{
    config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
    if (!s && required) {
        char full[160];
        path_join(full, sizeof full, where, key);
        dam_diag_error(L->d, AT(g), "missing required key '%s'",
                       full);
    }
    return s;
}

/* A group member (or NULL); reports a wrong type. */
static config_setting_t *group(ld *L, const config_setting_t *g,
                               const char *key, const char *where,
                               int required)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (s && !config_setting_is_group(s)) {
        char full[160];
        path_join(full, sizeof full, where, key);
        dam_diag_error(L->d, AT(s),
                       "'%s' must be a group { ... }, got %s", full,
                       type_name(s));
        return NULL;
    }
    return s;
}

static const char *range_text(range r)
{
    switch (r) {
    case R_POS: return "greater than 0";
    case R_NONNEG: return "0 or more";
    case R_UNIT: return "in (0, 1]";
    case R_FRAC: return "in [0, 1)";
    case R_GE1: return "1 or more";
    default: return "finite";
    }
}

static int in_range(double v, range r)
{
    if (!isfinite(v))
        return 0;
    switch (r) {
    case R_POS: return v > 0.0;
    case R_NONNEG: return v >= 0.0;
    case R_UNIT: return v > 0.0 && v <= 1.0;
    case R_FRAC: return v >= 0.0 && v < 1.0;
    case R_GE1: return v >= 1.0;
    default: return 1;
    }
}

/*
 * The documented range of each scenario number (scenarios/README.md), in
 * the key's own unit, beyond its range class: an upper bound for all of
 * them, and a floor where "greater than 0" would let a result overflow (a
 * bandwidth of 1e-300 GB/s makes every time infinite). Inside these ranges
 * every figure damsim computes stays finite. A distribution's support must
 * lie inside its key's range too.
 */
typedef struct limit {
    const char *key; /* full path */
    double lo, hi;   /* inclusive, in the key's unit */
} limit;

static const limit limits[] = {
    {"machine.host.pcie_gbs", 1e-3, 1e4},
    {"machine.storage.read_gbs", 1e-4, 1e5},
    {"machine.storage.latency_ms", 0.0, 1e5},
    {"machine.network.intra_busbw_gbs", 1e-3, 1e5},
    {"machine.network.inter_busbw_gbs", 1e-4, 1e5},
    {"machine.network.latency_us", 0.0, 1e6},
    {"workload.efficiency", 1e-4, 1.0},
    {"workload.memory_efficiency", 1e-4, 1.0},
    {"workload.launch_us", 0.0, 1e5},
    {"workload.framework_overhead_ms", 0.0, 1e6},
    {"workload.compute_cv", 0.0, 2.0},
    {"data.samples", 0.0, 1e13},
    {"data.raw_bytes_per_sample", 0.0, 1e11},
    {"data.input_bytes_per_sample", 0.0, 1e11},
    {"data.decode_ms", 0.0, 1e5},
    {"data.decode_cv", 0.0, 2.0},
    {"data.epochs", 0.0, 1e6},
    {"data.gpu_decode_ms", 0.0, 1e5},
    {"data.shard_mb", 1e-3, 1e7},
    {"data.tokens", 0.0, 1e16},
    {"pipeline.bucket_mb", 1e-3, 1e7},
    {"scenario.deadline_days", 1e-6, 1e6},
    {"serving.rate_per_s", 1e-6, 1e7},
    {"serving.preprocess_ms", 0.0, 1e6},
    {"serving.preprocess_cv", 0.0, 2.0},
    {"serving.postprocess_ms", 0.0, 1e6},
    {"serving.batch_timeout_ms", 0.0, 1e6},
    {"serving.slo_p99_ms", 1e-6, 1e8},
    {"llm.slo_ttft_ms", 1e-6, 1e8},
    {"llm.slo_tpot_ms", 1e-6, 1e8},
    {"serving.request_bytes", 0.0, 1e11},
    {"serving.requests", 1.0, DAM_MAX_REQUESTS},
    {"cost.gpu_hour_usd", 0.0, 1e4},
    {"cost.pue", 1.0, 10.0},
    {"cost.kwh_usd", 0.0, 1e3},
    {"quality.value", -1e9, 1e9},
    {"quality.tokens", 0.0, 1e16},
    {NULL, 0.0, 0.0}};

/* The documented range of key (a full path), or NULL when it has none. */
static const limit *limit_of(const char *key)
{
    for (const limit *l = limits; l->key; l++)
        if (strcmp(l->key, key) == 0)
            return l;
    return NULL;
}

int dam_scenario_key_range(const char *key, double *lo, double *hi)
{
    const limit *l = limit_of(key);
    if (!l)
        return -1;
    *lo = l->lo;
    *hi = l->hi;
    return 0;
}

static int get_num(ld *L, const config_setting_t *g, const char *key,
                   const char *where, int required, range r, double scale,
                   double *out);
static int get_choice(ld *L, const config_setting_t *g, const char *key,
                      const char *where, int required,
                      const char *const *names, int *out);

/* Bounds of a range class, for keeping samples inside it. */
static void range_bounds(range r, double *lo, double *hi)
{
    *lo = -HUGE_VAL;
    *hi = HUGE_VAL;
    switch (r) {
    case R_POS: *lo = 1e-300; break;
    case R_NONNEG: *lo = 0.0; break;
    case R_UNIT: *lo = 1e-6; *hi = 1.0; break;
    case R_FRAC: *lo = 0.0; *hi = 1.0 - 1e-9; break;
    case R_GE1: *lo = 1.0; break;
    default: break;
    }
}

static const char *const unc_keys[] = {"dist", "min", "max", "mode", "mean",
                                       "sd", "cv", NULL};
static const char *const unc_kinds[] = {"uniform", "normal", "lognormal",
                                        "triangular", NULL};

/*
 * A number given as a distribution: { dist = "uniform"; min = ..; max = ..; }
 * (or normal mean/sd, lognormal mean/cv, triangular min/mode/max). The
 * scenario field gets the mean; the input is recorded so that run and
 * whatif can sample it. Only scenario doubles may be uncertain.
 */
static int get_uncertain(ld *L, config_setting_t *s, const char *full,
                         range r, double scale, double *out)
{
    int line = line_of(s);
    dam_scenario *sc = L->scen;
    if (!sc || (char *)out < (char *)sc ||
        (char *)out >= (char *)(sc + 1)) {
        dam_diag_error(L->d, file_of(L, s), line,
                       "'%s' must be a number (distributions are allowed "
                       "only for scenario inputs)",
                       full);
        return 0;
    }
    if (sc->nuncertain >= DAM_MAX_UNCERTAIN) {
        dam_diag_error(L->d, file_of(L, s), line,
                       "at most %d inputs may be distributions",
                       DAM_MAX_UNCERTAIN);
        return 0;
    }
    check_keys(L, s, unc_keys, full);
    int k = 0;
    if (!get_choice(L, s, "dist", full, 1, unc_kinds, &k))
        return 0;
    dam_uncertain u;
    memset(&u, 0, sizeof u);
    snprintf(u.key, sizeof u.key, "%.*s", (int)sizeof u.key - 1, full);
    u.offset = (size_t)((char *)out - (char *)sc);
    u.kind = (dam_uncertain_kind)k;
    u.line = line;
    u.scale = scale;
    range_bounds(r, &u.lo, &u.hi);
    int ok = 1;
    switch (u.kind) {
    case DAM_UNCERTAIN_UNIFORM:
        ok &= get_num(L, s, "min", full, 1, r, scale, &u.a);
        ok &= get_num(L, s, "max", full, 1, r, scale, &u.b);
        if (ok && !(u.b > u.a)) {
            dam_diag_error(L->d, file_of(L, s), line,
                           "'%s': max must be greater than min", full);
            return 0;
        }
        break;
    case DAM_UNCERTAIN_TRIANGULAR:
        ok &= get_num(L, s, "min", full, 1, r, scale, &u.a);
        ok &= get_num(L, s, "mode", full, 1, r, scale, &u.b);
        ok &= get_num(L, s, "max", full, 1, r, scale, &u.c);
        if (ok && !(u.a <= u.b && u.b <= u.c && u.c > u.a)) {
            dam_diag_error(L->d, file_of(L, s), line,
                           "'%s': need min <= mode <= max and min < max",
                           full);
            return 0;
        }
        break;
    case DAM_UNCERTAIN_NORMAL:
        ok &= get_num(L, s, "mean", full, 1, r, scale, &u.a);
        ok &= get_num(L, s, "sd", full, 1, R_POS, scale, &u.b);
        break;
    case DAM_UNCERTAIN_LOGNORMAL:
        ok &= get_num(L, s, "mean", full, 1, R_POS, scale, &u.a);
        ok &= get_num(L, s, "cv", full, 1, R_POS, 1.0, &u.b);
        break;
    }
    if (!ok)
        return 0;
    const limit *lim = limit_of(full);
    if (lim) {
        if (lim->lo * scale > u.lo)
            u.lo = lim->lo * scale;
        if (lim->hi * scale < u.hi)
            u.hi = lim->hi * scale;
    }
    /* Normal and lognormal inputs have unbounded tails: refuse one that
     * puts more than 0.1 % of its mass outside the key's range (a positive
     * quantity sampled below zero, an efficiency above one); the rest is
     * truncated to the range when sampled (dam_uncertain_quantile). */
    if (u.kind == DAM_UNCERTAIN_NORMAL || u.kind == DAM_UNCERTAIN_LOGNORMAL) {
        double below = dam_uncertain_cdf(&u, u.lo);
        double above = 1.0 - dam_uncertain_cdf(&u, u.hi);
        if (below > 1e-3 || above > 1e-3) {
            dam_diag_error(L->d, file_of(L, s), line,
                           "'%s': this %s distribution puts %.3g %% of its "
                           "mass %s the key's range [%g, %g]; give a "
                           "narrower one, or a uniform or triangular range",
                           full, unc_kinds[u.kind],
                           100.0 * (below > above ? below : above),
                           below > above ? "below" : "above", u.lo / scale,
                           u.hi / scale);
            return 0;
        }
    }
    *out = dam_uncertain_mean(&u);
    if (!in_range(*out / scale, r)) {
        dam_diag_error(L->d, file_of(L, s), line,
                       "'%s': the mean %g is not %s", full, *out / scale,
                       range_text(r));
        return 0;
    }
    sc->uncertain[sc->nuncertain++] = u;
    return 1;
}

/*
 * A number: int or float accepted, or (in a scenario) a distribution. On
 * success *out = value * scale and 1 is returned; 0 when absent (error if
 * required) or wrong.
 */
static int get_num(ld *L, const config_setting_t *g, const char *key,
                   const char *where, int required, range r, double scale,
                   double *out)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    char full[160];
    path_join(full, sizeof full, where, key);
    double v;
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        v = (double)config_setting_get_int64(s);
        break;
    case CONFIG_TYPE_FLOAT:
        v = config_setting_get_float(s);
        break;
    case CONFIG_TYPE_GROUP:
        return get_uncertain(L, s, full, r, scale, out);
    default:
        dam_diag_error(L->d, AT(s),
                       "'%s' must be a number, got %s", full, type_name(s));
        return 0;
    }
    if (!in_range(v, r)) {
        dam_diag_error(L->d, AT(s),
                       "'%s' must be %s, got %g", full, range_text(r), v);
        return 0;
    }
    /* a distribution's min, mode, max and mean are values of the key */
    char parent[160];
    snprintf(parent, sizeof parent, "%s", full);
    char *dot = strrchr(parent, '.');
    const limit *lim = limit_of(full);
    if (!lim && dot && (!strcmp(dot, ".min") || !strcmp(dot, ".max") ||
                        !strcmp(dot, ".mode") || !strcmp(dot, ".mean"))) {
        *dot = '\0';
        lim = limit_of(parent);
    }
    if (lim && (v < lim->lo || v > lim->hi)) {
        dam_diag_error(L->d, AT(s),
                       "'%s' must be between %g and %g, got %g", full,
                       lim->lo, lim->hi, v);
        return 0;
    }
    *out = v * scale;
    return 1;
}

/* An integer within [lo, hi]. */
static int get_int(ld *L, const config_setting_t *g, const char *key,
                   const char *where, int required, long lo, long hi, int *out)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    char full[160];
    path_join(full, sizeof full, where, key);
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) {
        dam_diag_error(L->d, AT(s),
                       "'%s' must be an integer, got %s", full, type_name(s));
        return 0;
    }
    long long v = config_setting_get_int64(s);
    if (v < lo || v > hi) {
        dam_diag_error(L->d, AT(s),
                       "'%s' must be between %ld and %ld, got %lld", full, lo,
                       hi, v);
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int get_bool(ld *L, const config_setting_t *g, const char *key,
                    const char *where, int required, int *out)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
        char full[160];
        path_join(full, sizeof full, where, key);
        dam_diag_error(L->d, AT(s),
                       "'%s' must be true or false, got %s", full,
                       type_name(s));
        return 0;
    }
    *out = config_setting_get_bool(s);
    return 1;
}

static int get_str(ld *L, const config_setting_t *g, const char *key,
                   const char *where, int required, char *out, size_t n)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    char full[160];
    path_join(full, sizeof full, where, key);
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        dam_diag_error(L->d, AT(s),
                       "'%s' must be a string, got %s", full, type_name(s));
        return 0;
    }
    const char *v = config_setting_get_string(s);
    if (strlen(v) >= n) {
        dam_diag_error(L->d, AT(s),
                       "'%s' is too long (%zu characters, at most %zu)", full,
                       strlen(v), n - 1);
        return 0;
    }
    snprintf(out, n, "%s", v);
    return 1;
}

/* A string that must be one of names (NULL-terminated); *out = its index. */
static int get_choice(ld *L, const config_setting_t *g, const char *key,
                      const char *where, int required,
                      const char *const *names, int *out)
{
    char v[64];
    if (!get_str(L, g, key, where, required, v, sizeof v))
        return 0;
    for (int i = 0; names[i]; i++)
        if (strcasecmp(v, names[i]) == 0) {
            *out = i;
            return 1;
        }
    char full[160], list[256] = "", q[64];
    path_join(full, sizeof full, where, key);
    for (int i = 0; names[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    dam_diag_error(L->d, AT(member(L, g, key, where, 0)),
                   "'%s' must be one of %s, got \"%s\"", full, list,
                   dam_error_quote(v, 32, q, sizeof q));
    return 0;
}

static const char *const prec_names[] = {"fp32", "tf32", "fp16", "bf16",
                                         "fp8",  "int8", NULL};

/* ---- catalog entries ------------------------------------------------- */

static const char *const gpu_keys[] = {
    "id", "name", "base", "peak_tflops", "sparsity_2to4", "hbm_gib", "hbm_gbs",
    "nvlink_gbs", "pcie_gbs", "tdp_w", "price_usd_hour", "generation", "sms",
    "boost_mhz", "sustained_mhz", "l2_mib", "device", "source", NULL};
static const char *const gen_choices[] = {"unknown", "volta", "turing",
                                          "ampere", "ada", "hopper",
                                          "blackwell", "cdna3", NULL};

/*
 * A GPU's device-model constants (device.h): every device-scope constant
 * of the table, each with its uncertainty "<key>_sd"; per-precision ones
 * as a group (gemm_frac = { bf16 = 0.87; bf16_sd = 0.02; }). Values are in
 * the constant's display unit. Missing ones are filled from the
 * generation's defaults afterwards (dam_device_complete).
 */
static void device_value(ld *L, const config_setting_t *g, const char *key,
                         const char *w, const dam_param_info *pi, double *v,
                         double *sd)
{
    double x;
    if (get_num(L, g, key, w, 0, R_NONNEG, pi->scale, &x)) {
        if (x < pi->lo || x > pi->hi)
            dam_diag_error(L->d, AT(member(L, g, key, "", 0)),
                           "'%s.%s' must be between %g and %g, got %g", w,
                           key, pi->lo / pi->scale, pi->hi / pi->scale,
                           x / pi->scale);
        else
            *v = x;
    }
    char k[48];
    snprintf(k, sizeof k, "%s_sd", key);
    get_num(L, g, k, w, 0, R_NONNEG, pi->scale, sd);
}

/* Constant pi in group g: a number (with "<field>_sd"), or for a
 * per-precision constant the group "<field> = { bf16 = ..; bf16_sd = ..; }". */
static void param_value(ld *L, const config_setting_t *g, const char *w,
                        const dam_param_info *pi, double *v, double *sd)
{
    static const char *const prec_sd[] = {"fp32", "fp32_sd", "tf32",
                                          "tf32_sd", "fp16", "fp16_sd",
                                          "bf16", "bf16_sd", "fp8",
                                          "fp8_sd", "int8", "int8_sd", NULL};
    if (pi->prec < 0) {
        device_value(L, g, pi->field, w, pi, v, sd);
        return;
    }
    char gw[112];
    path_join(gw, sizeof gw, w, pi->field);
    config_setting_t *pg = group(L, g, pi->field, w, 0);
    if (!pg)
        return;
    if (pi->prec == 0)
        check_keys(L, pg, prec_sd, gw);
    device_value(L, pg, prec_names[pi->prec], gw, pi, v, sd);
}

static void parse_device(ld *L, const config_setting_t *gs, dam_gpu *g,
                         const char *where)
{
    config_setting_t *dv = group(L, gs, "device", where, 0);
    if (!dv)
        return;
    char w[96];
    path_join(w, sizeof w, where, "device");
    const char *allowed[64];
    char sdk[24][48];
    int na = 0, ns = 0;
    for (int i = 0; i < dam_param_count() && na < 60 && ns < 24; i++) {
        const dam_param_info *pi = dam_param_get(i);
        if (pi->scope != DAM_PARAM_DEVICE)
            continue;
        int dup = 0;
        for (int j = 0; j < na; j++)
            dup |= strcmp(allowed[j], pi->field) == 0;
        if (dup)
            continue;
        allowed[na++] = pi->field;
        if (pi->prec < 0) {
            snprintf(sdk[ns], sizeof sdk[ns], "%s_sd", pi->field);
            allowed[na++] = sdk[ns++];
        }
    }
    allowed[na++] = "tile_m";
    allowed[na++] = "tile_n";
    allowed[na] = NULL;
    check_keys(L, dv, allowed, w);
    for (int i = 0; i < dam_param_count(); i++) {
        const dam_param_info *pi = dam_param_get(i);
        double *v, *sd;
        if (pi->scope == DAM_PARAM_DEVICE &&
            dam_param_ref_gpu(i, g, &v, &sd) == 0)
            param_value(L, dv, w, pi, v, sd);
    }
    double t;
    if (get_num(L, dv, "tile_m", w, 0, R_GE1, 1.0, &t))
        g->dev.tile_m = t;
    if (get_num(L, dv, "tile_n", w, 0, R_GE1, 1.0, &t))
        g->dev.tile_n = t;
}

/*
 * Parse one GPU group into g. In a catalog (catalog = 1) the datasheet keys
 * are required; inline in a scenario, g may start from a catalog entry
 * ("base") and only the keys given change.
 */
static void parse_gpu(ld *L, const config_setting_t *gs, dam_gpu *g,
                      const char *where, int catalog, int have_base)
{
    int req = catalog || !have_base;
    check_keys(L, gs, gpu_keys, where);
    get_str(L, gs, "id", where, catalog, g->id, sizeof g->id);
    get_str(L, gs, "name", where, catalog, g->name, sizeof g->name);
    config_setting_t *pk = group(L, gs, "peak_tflops", where, req);
    if (pk) {
        char w[96];
        path_join(w, sizeof w, where, "peak_tflops");
        check_keys(L, pk, prec_names, w);
        int any = 0;
        for (int p = 0; p < DAM_PREC_COUNT; p++) {
            double v;
            if (get_num(L, pk, prec_names[p], w, 0, R_POS, TFLOPS, &v)) {
                g->peak[p] = v;
                any = 1;
            } else if (!have_base) {
                g->peak[p] = 0.0;
            }
        }
        if (!any && !have_base)
            dam_diag_error(L->d, AT(pk),
                           "'%s' needs at least one precision", w);
    }
    get_bool(L, gs, "sparsity_2to4", where, catalog, &g->sparsity_2to4);
    get_num(L, gs, "hbm_gib", where, req, R_POS, GIB, &g->mem_bytes);
    get_num(L, gs, "hbm_gbs", where, req, R_POS, GB, &g->mem_bw);
    get_num(L, gs, "nvlink_gbs", where, 0, R_NONNEG, GB, &g->link_bw);
    get_num(L, gs, "pcie_gbs", where, catalog, R_POS, GB, &g->pcie_bw);
    get_num(L, gs, "tdp_w", where, catalog, R_POS, 1.0, &g->tdp_w);
    get_num(L, gs, "price_usd_hour", where, 0, R_POS, 1.0, &g->price_hour);
    int gen = 0;
    if (get_choice(L, gs, "generation", where, 0, gen_choices, &gen))
        g->gen = (dam_gpu_gen)gen;
    get_int(L, gs, "sms", where, 0, 1, 100000, &g->sms);
    get_num(L, gs, "boost_mhz", where, 0, R_POS, 1e6, &g->boost_hz);
    get_num(L, gs, "sustained_mhz", where, 0, R_POS, 1e6, &g->sustained_hz);
    get_num(L, gs, "l2_mib", where, 0, R_POS, 1048576.0, &g->l2_bytes);
    parse_device(L, gs, g, where);
    dam_device_complete(g);
    get_str(L, gs, "source", where, catalog, g->source, sizeof g->source);
    g->line = line_of(gs);
}

static const char *const model_keys[] = {
    "id", "name", "base", "family", "params", "seq_len", "flops_per_sample",
    "input_bytes", "raw_bytes", "activation_bytes", "layers",
    "kernels_per_step", "phases", "efficiency", "gpu_efficiency", "quality",
    "arch", "source", "efficiency_source", NULL};

/* ---- architectures (graph.h builds from them) ------------------------ */

static const char *const arch_kinds[] = {"none", "transformer", "layers",
                                         NULL};
static const char *const tf_keys[] = {
    "kind", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
    "vocab", "max_positions", "experts", "top_k", "gated_mlp", "causal",
    "attention", "rotary", "bias", "tied_embeddings", "lm_head", "dropout",
    "norm", NULL};
static const char *const attn_impls[] = {"flash", "eager", NULL};
static const char *const norms[] = {"layernorm", "rmsnorm", NULL};
static const char *const layers_keys[] = {"kind", "table", NULL};
static const char *const layer_keys[] = {
    "kind", "in", "out", "kernel", "stride", "groups", "hw", "bn", "relu",
    "sparse", "rows", "lookups", "m", "n", "k", "elems", "count", NULL};
static const char *const layer_kinds[] = {"conv", "linear", "pool", "add",
                                          "embedding", "bmm", "elementwise",
                                          NULL};

/* Element i of a list, which must be a group; its name "where[i]" goes to
 * name. NULL (reported) when it is not a group. */
static config_setting_t *list_group(ld *L, const config_setting_t *list,
                                    int i, const char *where, char *name,
                                    size_t n)
{
    config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
    snprintf(name, n, "%s[%d]", where, i);
    if (!config_setting_is_group(e)) {
        dam_diag_error(L->d, AT(e),
                       "'%s' must be a group, got %s", name, type_name(e));
        return NULL;
    }
    return e;
}

static void parse_transformer(ld *L, const config_setting_t *a,
                              dam_transformer *t, const char *w)
{
    check_keys(L, a, tf_keys, w);
    memset(t, 0, sizeof *t);
    get_int(L, a, "layers", w, 1, 1, 100000, &t->layers);
    get_int(L, a, "hidden", w, 1, 1, 10000000, &t->hidden);
    get_int(L, a, "heads", w, 1, 1, 100000, &t->heads);
    if (!get_int(L, a, "kv_heads", w, 0, 1, 100000, &t->kv_heads))
        t->kv_heads = t->heads;
    get_int(L, a, "head_dim", w, 0, 1, 100000, &t->head_dim);
    get_int(L, a, "ffn", w, 1, 1, 100000000, &t->ffn);
    get_int(L, a, "vocab", w, 1, 1, 100000000, &t->vocab);
    get_int(L, a, "max_positions", w, 0, 0, 100000000, &t->max_pos);
    get_int(L, a, "experts", w, 0, 0, 100000, &t->experts);
    get_int(L, a, "top_k", w, 0, 0, 100000, &t->top_k);
    get_bool(L, a, "gated_mlp", w, 0, &t->gated);
    t->causal = 1;
    get_bool(L, a, "causal", w, 0, &t->causal);
    int k = 0;
    if (get_choice(L, a, "attention", w, 0, attn_impls, &k))
        t->attn = k;
    get_bool(L, a, "rotary", w, 0, &t->rotary);
    get_bool(L, a, "bias", w, 0, &t->bias);
    get_bool(L, a, "tied_embeddings", w, 0, &t->tied);
    t->lm_head = 1;
    get_bool(L, a, "lm_head", w, 0, &t->lm_head);
    get_bool(L, a, "dropout", w, 0, &t->dropout);
    k = 0;
    if (get_choice(L, a, "norm", w, 0, norms, &k))
        t->rmsnorm = k;
    int line = line_of(a);
    if (t->heads > 0 && t->kv_heads > 0 &&
        (t->kv_heads > t->heads || t->heads % t->kv_heads != 0))
        dam_diag_error(L->d, L->file, line,
                       "'%s': kv_heads (%d) must divide heads (%d)", w,
                       t->kv_heads, t->heads);
    if (!t->head_dim && t->heads > 0 && t->hidden % t->heads != 0)
        dam_diag_error(L->d, L->file, line,
                       "'%s': heads (%d) do not divide hidden (%d); give "
                       "head_dim",
                       w, t->heads, t->hidden);
    if (t->experts > 1 && (t->top_k < 1 || t->top_k > t->experts))
        dam_diag_error(L->d, L->file, line,
                       "'%s': top_k must be between 1 and experts (%d), got "
                       "%d",
                       w, t->experts, t->top_k);
}

static void parse_layer(ld *L, const config_setting_t *r, dam_layer *l,
                        const char *w)
{
    check_keys(L, r, layer_keys, w);
    memset(l, 0, sizeof *l);
    int k = 0;
    if (!get_choice(L, r, "kind", w, 1, layer_kinds, &k))
        return;
    l->kind = (dam_layer_kind)k;
    l->stride = 1;
    l->groups = 1;
    l->hw = 1;
    l->kernel = 1;
    l->count = 1.0;
    int conv = k == DAM_LAYER_CONV, lin = k == DAM_LAYER_LINEAR;
    int spatial = conv || k == DAM_LAYER_POOL || k == DAM_LAYER_ADD;
    get_int(L, r, "in", w, conv || lin || k == DAM_LAYER_EMBEDDING, 1,
            100000000, &l->in);
    get_int(L, r, "out", w, k != DAM_LAYER_EMBEDDING && k != DAM_LAYER_BMM &&
                                k != DAM_LAYER_ELEMENTWISE,
            1, 100000000, &l->out);
    get_int(L, r, "kernel", w, 0, 1, 1024, &l->kernel);
    get_int(L, r, "stride", w, 0, 1, 1024, &l->stride);
    get_int(L, r, "groups", w, 0, 1, 100000000, &l->groups);
    get_int(L, r, "hw", w, spatial, 1, 1000000, &l->hw);
    get_bool(L, r, "bn", w, 0, &l->bn);
    get_bool(L, r, "relu", w, 0, &l->relu);
    get_bool(L, r, "sparse", w, 0, &l->sparse);
    int emb = k == DAM_LAYER_EMBEDDING, bmm = k == DAM_LAYER_BMM;
    get_num(L, r, "rows", w, emb, R_POS, 1.0, &l->rows);
    get_num(L, r, "lookups", w, emb, R_POS, 1.0, &l->lookups);
    get_num(L, r, "m", w, bmm, R_POS, 1.0, &l->m);
    get_num(L, r, "n", w, bmm, R_POS, 1.0, &l->n);
    get_num(L, r, "k", w, bmm, R_POS, 1.0, &l->k);
    get_num(L, r, "elems", w, k == DAM_LAYER_ELEMENTWISE, R_POS, 1.0,
            &l->elems);
    get_num(L, r, "count", w, 0, R_POS, 1.0, &l->count);
    if (conv && l->groups > 0 &&
        (l->in % l->groups != 0 || l->out % l->groups != 0))
        dam_diag_error(L->d, AT(r),
                       "'%s': groups (%d) must divide in (%d) and out (%d)",
                       w, l->groups, l->in, l->out);
}

/* arch = { kind = "transformer"; ... } or { kind = "layers"; table = (...) }. */
static void parse_arch(ld *L, const config_setting_t *ms, dam_arch *a,
                       const char *where)
{
    config_setting_t *as = group(L, ms, "arch", where, 0);
    if (!as)
        return;
    char w[96];
    path_join(w, sizeof w, where, "arch");
    int k = 0;
    if (!get_choice(L, as, "kind", w, 1, arch_kinds, &k))
        return;
    memset(a, 0, sizeof *a);
    a->kind = (dam_arch_kind)k;
    if (k == DAM_ARCH_TRANSFORMER) {
        parse_transformer(L, as, &a->tf, w);
    } else if (k == DAM_ARCH_LAYERS) {
        check_keys(L, as, layers_keys, w);
        config_setting_t *tb = member(L, as, "table", w, 1);
        if (!tb)
            return;
        char tw[112];
        path_join(tw, sizeof tw, w, "table");
        int n = config_setting_is_list(tb) ? config_setting_length(tb) : -1;
        if (n < 1 || n > DAM_MAX_LAYERS) {
            dam_diag_error(L->d, AT(tb),
                           "'%s' must be a list of 1 to %d layer groups", tw,
                           DAM_MAX_LAYERS);
            return;
        }
        for (int i = 0; i < n; i++) {
            char rw[128];
            config_setting_t *r = list_group(L, tb, i, tw, rw, sizeof rw);
            if (r)
                parse_layer(L, r, &a->layer[a->nlayers++], rw);
        }
    } else {
        check_keys(L, as, layers_keys, w);
    }
}
static const char *const phase_keys[] = {"name", "kind", "flops", "act_bytes",
                                         "weight_frac", NULL};
static const char *const phase_kinds[] = {"matmul", "attention", "elementwise",
                                          "embedding", NULL};
static const char *const families[] = {"vision", "language", "recommender",
                                       "custom", NULL};
static const char *const mquality_keys[] = {"metric", "value", NULL};

/* Keys of an efficiency group: a value per precision and its standard
 * uncertainty "<precision>_sd" (constants.h). */
static const char *const eff_keys[] = {
    "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp32_sd", "tf32_sd",
    "fp16_sd", "bf16_sd", "fp8_sd", "int8_sd", NULL};
static const char *const ge_eff_keys[] = {
    "gpu", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp32_sd",
    "tf32_sd", "fp16_sd", "bf16_sd", "fp8_sd", "int8_sd", NULL};

/* One precision of an efficiency group: the value in (0, 1] and its
 * uncertainty >= 0, which needs the value beside it. */
static void get_eff(ld *L, const config_setting_t *g, const char *where,
                    int p, double *eta, double *sd)
{
    char sk[16];
    snprintf(sk, sizeof sk, "%s_sd", prec_names[p]);
    int have = get_num(L, g, prec_names[p], where, 0, R_UNIT, 1.0, eta);
    if (get_num(L, g, sk, where, 0, R_NONNEG, 1.0, sd) && !have) {
        char full[160];
        path_join(full, sizeof full, where, sk);
        dam_diag_error(L->d, AT(member(L, g, sk, where, 0)),
                       "'%s' needs '%s' beside it", full, prec_names[p]);
    }
}

static void parse_model(ld *L, const config_setting_t *ms, dam_model_spec *m,
                        const char *where, int catalog, int have_base)
{
    int req = catalog || !have_base;
    int errs0 = L->d->nerr;
    int arch_key = member(L, ms, "arch", where, 0) != NULL;
    check_keys(L, ms, model_keys, where);
    get_str(L, ms, "id", where, catalog, m->id, sizeof m->id);
    get_str(L, ms, "name", where, catalog, m->name, sizeof m->name);
    int fam;
    if (get_choice(L, ms, "family", where, catalog, families, &fam))
        snprintf(m->family, sizeof m->family, "%s", families[fam]);
    else if (!have_base && !m->family[0])
        snprintf(m->family, sizeof m->family, "custom");
    int have_params = get_num(L, ms, "params", where, req && !arch_key,
                              R_POS, 1.0, &m->params);
    if (!get_num(L, ms, "seq_len", where, 0, R_GE1, 1.0, &m->seq_len) &&
        !have_base)
        m->seq_len = 1.0;
    get_num(L, ms, "input_bytes", where, catalog, R_NONNEG, 1.0,
            &m->input_bytes);
    get_num(L, ms, "raw_bytes", where, catalog, R_NONNEG, 1.0, &m->raw_bytes);
    get_num(L, ms, "activation_bytes", where, catalog, R_NONNEG, 1.0,
            &m->act_mem_bytes);
    get_int(L, ms, "layers", where, catalog, 1, 100000, &m->layers);
    if (!m->layers)
        m->layers = 1;
    get_int(L, ms, "kernels_per_step", where, 0, 0, DAM_MAX_KERNELS,
            &m->kernels_per_step);

    double fps = 0.0;
    int have_fps =
        get_num(L, ms, "flops_per_sample", where, 0, R_POS, 1.0, &fps);
    config_setting_t *ph = member(L, ms, "phases", where, 0);
    char w[96];
    path_join(w, sizeof w, where, "phases");
    if (ph) {
        if (!config_setting_is_list(ph)) {
            dam_diag_error(L->d, AT(ph),
                           "'%s' must be a list ( {...}, ... ), got %s", w,
                           type_name(ph));
        } else {
            int n = config_setting_length(ph);
            if (n < 1 || n > DAM_MAX_PHASES) {
                dam_diag_error(L->d, AT(ph),
                               "'%s' must hold 1 to %d phases, got %d", w,
                               DAM_MAX_PHASES, n);
                n = n > DAM_MAX_PHASES ? DAM_MAX_PHASES : n;
            }
            m->nphases = 0;
            for (int i = 0; i < n; i++) {
                char pw[112];
                config_setting_t *p = list_group(L, ph, i, w, pw, sizeof pw);
                if (!p)
                    continue;
                dam_phase *q = &m->phases[m->nphases++];
                memset(q, 0, sizeof *q);
                check_keys(L, p, phase_keys, pw);
                get_str(L, p, "name", pw, 1, q->name, sizeof q->name);
                int k = 0;
                get_choice(L, p, "kind", pw, 1, phase_kinds, &k);
                q->kind = (dam_phase_kind)k;
                get_num(L, p, "flops", pw, 1, R_NONNEG, 1.0, &q->flops);
                get_num(L, p, "act_bytes", pw, 1, R_NONNEG, 1.0,
                        &q->act_bytes);
                get_num(L, p, "weight_frac", pw, 1, R_NONNEG, 1.0,
                        &q->weight_frac);
            }
        }
    } else if (have_fps) {
        /* No phases given: one compute-bound matmul phase. */
        m->nphases = 1;
        memset(&m->phases[0], 0, sizeof m->phases[0]);
        snprintf(m->phases[0].name, sizeof m->phases[0].name, "compute");
        m->phases[0].kind = DAM_PHASE_MATMUL;
        m->phases[0].flops = fps;
        m->phases[0].weight_frac = 1.0;
    } else if (req && !arch_key) {
        dam_diag_error(L->d, AT(ms),
                       "'%s' needs 'arch', 'phases' or 'flops_per_sample'",
                       where);
    }
    double sum = dam_model_phase_flops(m);
    if (have_fps && ph && sum > 0.0 && fabs(sum - fps) > 0.01 * fps)
        dam_diag_error(L->d, AT(member(L, ms, "flops_per_sample",
                                                     where, 0)),
                       "'%s.flops_per_sample' is %g but its phases sum to %g "
                       "(more than 1 %% apart)",
                       where, fps, sum);
    m->flops_per_sample = sum > 0.0 ? sum : fps;

    config_setting_t *ef = group(L, ms, "efficiency", where, 0);
    if (ef) {
        char ew[96];
        path_join(ew, sizeof ew, where, "efficiency");
        check_keys(L, ef, eff_keys, ew);
        for (int p = 0; p < DAM_PREC_COUNT; p++)
            get_eff(L, ef, ew, p, &m->eta[p], &m->eta_sd[p]);
    }
    config_setting_t *ge = member(L, ms, "gpu_efficiency", where, 0);
    if (ge) {
        char gw[96];
        path_join(gw, sizeof gw, where, "gpu_efficiency");
        int n = config_setting_is_list(ge) ? config_setting_length(ge) : -1;
        if (n < 0 || n > DAM_MAX_GPU_ETA) {
            dam_diag_error(L->d, AT(ge),
                           "'%s' must be a list of at most %d groups { gpu = "
                           "\"...\"; bf16 = ...; }",
                           gw, DAM_MAX_GPU_ETA);
            n = 0;
        }
        m->ngpu_eta = 0;
        for (int i = 0; i < n; i++) {
            config_setting_t *e = config_setting_get_elem(ge, (unsigned)i);
            char ew[112];
            snprintf(ew, sizeof ew, "%s[%d]", gw, i);
            if (!config_setting_is_group(e)) {
                dam_diag_error(L->d, AT(e),
                               "'%s' must be a group, got %s", ew,
                               type_name(e));
                continue;
            }
            check_keys(L, e, ge_eff_keys, ew);
            int k = m->ngpu_eta++;
            memset(&m->gpu_eta[k], 0, sizeof m->gpu_eta[k]);
            get_str(L, e, "gpu", ew, 1, m->gpu_eta[k].gpu,
                    sizeof m->gpu_eta[k].gpu);
            for (int p = 0; p < DAM_PREC_COUNT; p++)
                get_eff(L, e, ew, p, &m->gpu_eta[k].eta[p],
                        &m->gpu_eta[k].eta_sd[p]);
        }
    }
    /* Architecture: phases and FLOPs follow from it. An inline model that
     * gives its own work (phases or flops_per_sample) on top of a base
     * with an architecture keeps its numbers and drops the architecture
     * (the efficiency path). */
    int had_arch = m->arch.kind != DAM_ARCH_NONE;
    parse_arch(L, ms, &m->arch, where);
    int own_arch = arch_key;
    if (own_arch && m->arch.kind != DAM_ARCH_NONE && (ph || have_fps))
        dam_diag_error(L->d, AT(ph ? ph : ms),
                       "'%s' gives 'arch' and '%s': the work follows from "
                       "the architecture, remove one",
                       where, ph ? "phases" : "flops_per_sample");
    else if (had_arch && !own_arch && (ph || have_fps))
        m->arch.kind = DAM_ARCH_NONE;
    if (m->arch.kind != DAM_ARCH_NONE && L->d->nerr == errs0) {
        dam_error e;
        if (!(m->params > 0.0) || (own_arch && !have_params))
            m->params = dam_graph_arch_params(&m->arch);
        if (dam_graph_derive_phases(m, 0.0, &e) != DAM_OK)
            dam_diag_error(L->d, AT(ms), "%s", e.msg);
    }
    config_setting_t *qs = group(L, ms, "quality", where, 0);
    if (qs) {
        char qw[96];
        path_join(qw, sizeof qw, where, "quality");
        check_keys(L, qs, mquality_keys, qw);
        get_str(L, qs, "metric", qw, 1, m->metric, sizeof m->metric);
        get_num(L, qs, "value", qw, 1, R_ANY, 1.0, &m->quality);
    }
    get_str(L, ms, "source", where, catalog, m->source, sizeof m->source);
    get_str(L, ms, "efficiency_source", where, 0, m->eta_source,
            sizeof m->eta_source);
    m->line = line_of(ms);
}

/* ---- reading a file -------------------------------------------------- */

/* The deepest @include chain libconfig 1.5 follows. */
#define DAM_INCLUDE_DEPTH 10

/* Check every file text @includes (resolved as libconfig 1.5 does: dir,
 * when set, then "/" then the name), and theirs, through the one input
 * path (model/infile.h): a FIFO or a device named by an @include is
 * refused before libconfig would block on it. file names text in
 * messages. */
static int includes_ok(const char *text, const char *file, const char *dir,
                       int depth, dam_diag *d)
{
    int line = 1, ok = 1;
    for (const char *p = text; *p && ok; line++) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        const char *eol = strchr(p, '\n');
        if (strncmp(q, "@include", 8) == 0 && (q[8] == ' ' || q[8] == '\t')) {
            q += 8;
            while (*q == ' ' || *q == '\t')
                q++;
            const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
            if (end && (!eol || end < eol)) {
                char name[1024], full[2048], why[64];
                snprintf(name, sizeof name, "%.*s", (int)(end - q - 1), q + 1);
                if (dir && dir[0])
                    snprintf(full, sizeof full, "%s/%s", dir, name);
                else
                    snprintf(full, sizeof full, "%s", name);
                char *inc = depth < DAM_INCLUDE_DEPTH
                                ? dam_infile_read(full, NULL, why, sizeof why)
                                : NULL;
                if (depth >= DAM_INCLUDE_DEPTH)
                    snprintf(why, sizeof why, "more than %d nested @includes",
                             DAM_INCLUDE_DEPTH);
                if (!inc) {
                    char qn[128];
                    dam_diag_error(d, file, line, "cannot read the @include'd "
                                   "file \"%s\": %s",
                                   dam_error_quote(full, 96, qn, sizeof qn),
                                   why);
                    return 0;
                }
                ok = includes_ok(inc, full, dir, depth + 1, d);
                dam_free(inc);
            }
        }
        p = eol ? eol + 1 : p + strlen(p);
    }
    return ok;
}

/* Read a config from text or path; a syntax error goes into d, with the
 * name of the file it is in (an @include'd one has its own). @include
 * paths resolve against the folder of the file being read (dir, owned by
 * the caller, must outlive cfg). The file and every file it @includes are
 * read through the one input path (model/infile.h): regular files only,
 * size-capped; libconfig then parses the text. libconfig 1.5 leaks a
 * string token's text when a syntax error follows it (its grammar has no
 * %destructor for TOK_STRING; tests/lsan.supp names that frame);
 * everything damsim allocates is freed on this path. */
static int read_config(config_t *cfg, const char *path, const char *text,
                       char *dir, size_t ndir, dam_diag *d)
{
    config_init(cfg);
    dir[0] = '\0';
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!text && slash && (size_t)(slash - path) < ndir) {
        snprintf(dir, ndir, "%.*s", (int)(slash - path), path);
        if (!dir[0])
            snprintf(dir, ndir, "/");
        config_set_include_dir(cfg, dir);
    }
    char *owned = NULL;
    if (!text) {
        char why[64];
        owned = dam_infile_read(path, NULL, why, sizeof why);
        if (!owned) {
            dam_diag_error(d, path, 0, "cannot read the file: %s", why);
            config_destroy(cfg);
            return DAM_EINPUT;
        }
    }
    const char *src = text ? text : owned;
    int ok = includes_ok(src, path, dir, 0, d) ? config_read_string(cfg, src)
                                               : -1;
    dam_free(owned);
    if (ok == CONFIG_TRUE)
        return DAM_OK;
    if (ok == -1) {
        config_destroy(cfg);
        return DAM_EINPUT;
    }
    const char *where = config_error_file(cfg);
    if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
        dam_diag_error(d, path, 0, "cannot read the file");
    else
        dam_diag_error(d, where && *where ? where : path,
                       config_error_line(cfg), "%s", config_error_text(cfg));
    config_destroy(cfg);
    return DAM_EINPUT;
}

/* read_config for a caller that reports nothing itself: 1 when read. */
static int read_config_quietly(config_t *cfg, const char *path,
                               const char *text, char *dir, size_t ndir)
{
    dam_diag d;
    dam_diag_init(&d);
    int ok = read_config(cfg, path, text, dir, ndir, &d) == DAM_OK;
    dam_diag_free(&d);
    return ok;
}

typedef void (*entry_parser)(ld *, const config_setting_t *, void *,
                             const char *);

static void gpu_entry(ld *L, const config_setting_t *s, void *out,
                      const char *where)
{
    memset(out, 0, sizeof(dam_gpu));
    parse_gpu(L, s, out, where, 1, 0);
}

static void model_entry(ld *L, const config_setting_t *s, void *out,
                        const char *where)
{
    memset(out, 0, sizeof(dam_model_spec));
    parse_model(L, s, out, where, 1, 0);
}

/* One constant of a calibration overlay (see load_calibration). */
typedef struct overlay_const {
    dam_const_key key;
    double value, sd;
    int line;
} overlay_const;

static const char *const calib_keys[] = {"measurements", "fit", "constants",
                                         "residuals", NULL};
static const char *const calib_fit_keys[] = {
    "residuals", "constants", "dof", "chi2", "residual_sd", "rms_error",
    "converged", "stop", "iterations", NULL};
static const char *const calib_const_keys[] = {"key",   "value", "unit",
                                               "se",    "sd",    "start",
                                               "rows",  NULL};
static const char *const calib_res_keys[] = {
    "id", "line", "quantity", "gpu", "measured", "predicted", "error", "p05",
    "p95", "held_out", NULL};

/* Check that the members of g named in keys that are present are numbers
 * (or, for the names in strs and bools, strings and booleans). */
static void check_record(ld *L, const config_setting_t *g, const char *where,
                         const char *const *keys, const char *const *strs,
                         const char *const *bools)
{
    check_keys(L, g, keys, where);
    for (const char *const *k = keys; *k; k++) {
        int is_str = 0, is_bool = 0;
        for (const char *const *x = strs; *x; x++)
            is_str |= strcmp(*x, *k) == 0;
        for (const char *const *x = bools; *x; x++)
            is_bool |= strcmp(*x, *k) == 0;
        if (!config_setting_get_member(g, *k))
            continue;
        char buf[256];
        double v;
        int b;
        if (is_str)
            get_str(L, g, *k, where, 0, buf, sizeof buf);
        else if (is_bool)
            get_bool(L, g, *k, where, 0, &b);
        else
            get_num(L, g, *k, where, 0, R_ANY, 1.0, &v);
    }
}

/*
 * The `calibration` group of a catalog overlay (written by `damsim
 * calibrate`, render/calibrate.h): its constants into *out (allocated,
 * *n of them). fit and residuals are a record: their keys and types are
 * checked, their values not used.
 */
static void load_calibration(ld *L, const config_setting_t *cg,
                             overlay_const **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    check_keys(L, cg, calib_keys, "calibration");
    char buf[256];
    get_str(L, cg, "measurements", "calibration", 0, buf, sizeof buf);
    const char *const none[] = {NULL};
    config_setting_t *f = group(L, cg, "fit", "calibration", 0);
    if (f)
        check_record(L, f, "calibration.fit", calib_fit_keys,
                     (const char *const[]){"stop", NULL},
                     (const char *const[]){"converged", NULL});
    config_setting_t *rs = member(L, cg, "residuals", "calibration", 0);
    if (rs && !config_setting_is_list(rs))
        dam_diag_error(L->d, AT(rs),
                       "'calibration.residuals' must be a list, got %s",
                       type_name(rs));
    else if (rs)
        for (int i = 0; i < config_setting_length(rs); i++) {
            config_setting_t *e = config_setting_get_elem(rs, (unsigned)i);
            char w[64];
            snprintf(w, sizeof w, "calibration.residuals[%d]", i);
            if (!config_setting_is_group(e))
                dam_diag_error(L->d, AT(e),
                               "'%s' must be a group, got %s", w,
                               type_name(e));
            else
                check_record(L, e, w, calib_res_keys,
                             (const char *const[]){"id", "quantity", "gpu",
                                                   NULL},
                             (const char *const[]){"held_out", NULL});
        }
    config_setting_t *ks = member(L, cg, "constants", "calibration", 1);
    if (!ks)
        return;
    if (!config_setting_is_list(ks)) {
        dam_diag_error(L->d, AT(ks),
                       "'calibration.constants' must be a list ( {...}, ... "
                       "), got %s", type_name(ks));
        return;
    }
    int len = config_setting_length(ks);
    *out = dam_calloc((size_t)len + 1, sizeof **out);
    for (int i = 0; i < len; i++) {
        config_setting_t *e = config_setting_get_elem(ks, (unsigned)i);
        char w[64];
        snprintf(w, sizeof w, "calibration.constants[%d]", i);
        if (!config_setting_is_group(e)) {
            dam_diag_error(L->d, AT(e),
                           "'%s' must be a group, got %s", w, type_name(e));
            continue;
        }
        check_record(L, e, w, calib_const_keys,
                     (const char *const[]){"key", "unit", NULL}, none);
        overlay_const *oc = &(*out)[*n];
        memset(oc, 0, sizeof *oc);
        oc->line = line_of(e);
        int ok = get_str(L, e, "key", w, 1, buf, sizeof buf);
        ok &= get_num(L, e, "value", w, 1, R_ANY, 1.0, &oc->value);
        ok &= get_num(L, e, "sd", w, 1, R_NONNEG, 1.0, &oc->sd);
        dam_error err;
        if (ok && dam_const_key_parse(buf, &oc->key, &err) != DAM_OK) {
            dam_diag_error(L->d, AT(member(L, e, "key", w, 0)),
                           "'%s.key': %s", w, err.msg);
            ok = 0;
        }
        /* values are in the field's display unit (us, GB/s, ...) */
        const char *unit = "";
        double scale = 1.0;
        if (ok) {
            dam_const_field_info(oc->key.owner, oc->key.field, NULL, NULL,
                                 &unit, &scale);
            oc->value *= scale;
            oc->sd *= scale;
        }
        char ubuf[16];
        if (ok && get_str(L, e, "unit", w, 0, ubuf, sizeof ubuf) &&
            strcmp(ubuf, unit) != 0) {
            dam_diag_error(L->d, AT(member(L, e, "unit", w, 0)),
                           "'%s.unit' of \"%s\" is \"%s\", got \"%s\"", w,
                           buf, unit, ubuf);
            ok = 0;
        }
        for (size_t j = 0; ok && j < *n; j++)
            if (dam_const_key_equal(&(*out)[j].key, &oc->key)) {
                dam_diag_error(L->d, L->file, oc->line,
                               "constant \"%s\" given twice (first at line "
                               "%d)", buf, (*out)[j].line);
                ok = 0;
            }
        if (ok)
            (*n)++;
    }
}

/*
 * Load the list `key` of a catalog file into a fresh array of elem-sized
 * entries whose id (a char array at offset 0) is unique, and the
 * constants of its `calibration` group (an overlay may hold only that).
 */
static int load_list(const char *path, const char *text, const char *key,
                     size_t elem, size_t line_off, entry_parser parse,
                     void **items, size_t *count, overlay_const **consts,
                     size_t *nconsts, dam_diag *d)
{
    config_t cfg;
    *consts = NULL;
    *nconsts = 0;
    char dir[4096];
    if (read_config(&cfg, path, text, dir, sizeof dir, d) != DAM_OK)
        return DAM_EINPUT;
    ld L = {d, path, NULL};
    int before = d->nerr;
    const config_setting_t *root = config_root_setting(&cfg);
    const char *const top[] = {key, "calibration", NULL};
    check_keys(&L, root, top, "");
    config_setting_t *cg = group(&L, root, "calibration", "", 0);
    config_setting_t *list = member(&L, root, key, "", cg == NULL);
    char *arr = NULL;
    size_t n = 0;
    if (cg)
        load_calibration(&L, cg, consts, nconsts);
    if (list && !config_setting_is_list(list)) {
        dam_diag_error(d, path, line_of(list),
                       "'%s' must be a list ( {...}, ... ), got %s", key,
                       type_name(list));
    } else if (list) {
        int len = config_setting_length(list);
        arr = dam_calloc((size_t)len + 1, elem);
        for (int i = 0; i < len; i++) {
            config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
            char where[64];
            snprintf(where, sizeof where, "%s[%d]", key, i);
            if (!config_setting_is_group(e)) {
                dam_diag_error(d, path, line_of(e),
                               "'%s' must be a group, got %s", where,
                               type_name(e));
                continue;
            }
            char *slot = arr + n * elem;
            parse(&L, e, slot, where);
            for (size_t j = 0; j < n; j++)
                if (strcasecmp(arr + j * elem, slot) == 0)
                    dam_diag_error(d, path, line_of(e),
                                   "duplicate id \"%s\" (first defined at "
                                   "line %d)",
                                   slot, *(const int *)(arr + j * elem +
                                                        line_off));
            n++;
        }
    }
    config_destroy(&cfg);
    if (d->nerr > before) {
        dam_free(arr);
        dam_free(*consts);
        *consts = NULL;
        *nconsts = 0;
        return DAM_EINPUT;
    }
    *items = arr;
    *count = n;
    return DAM_OK;
}

/* Merge src entries into dst by id (string at offset 0). */
static void merge(void **dst, size_t *ndst, const void *src, size_t nsrc,
                  size_t elem)
{
    char *d = *dst;
    size_t n = *ndst;
    d = dam_realloc(d, (n + nsrc + 1) * elem);
    for (size_t i = 0; i < nsrc; i++) {
        const char *e = (const char *)src + i * elem;
        size_t j;
        for (j = 0; j < n; j++)
            if (strcasecmp(d + j * elem, e) == 0)
                break;
        memcpy(d + j * elem, e, elem);
        if (j == n)
            n++;
    }
    *dst = d;
    *ndst = n;
}

/*
 * Merge a file's entries (gpus or models) into a copy of cat, set its
 * overlay constants there, and replace cat by the copy only when every
 * constant applies, so that cat is unchanged on failure.
 */
static int commit(dam_catalog *cat, int models, const void *items, size_t n,
                  const overlay_const *consts, size_t nconsts,
                  const char *path, dam_diag *d)
{
    dam_catalog t = *cat;
    t.gpus = dam_malloc((cat->ngpus + 1) * sizeof *t.gpus);
    if (cat->ngpus)
        memcpy(t.gpus, cat->gpus, cat->ngpus * sizeof *t.gpus);
    t.models = dam_malloc((cat->nmodels + 1) * sizeof *t.models);
    if (cat->nmodels)
        memcpy(t.models, cat->models, cat->nmodels * sizeof *t.models);
    void *arr = models ? (void *)t.models : (void *)t.gpus;
    if (models)
        merge(&arr, &t.nmodels, items, n, sizeof(dam_model_spec));
    else
        merge(&arr, &t.ngpus, items, n, sizeof(dam_gpu));
    if (models)
        t.models = arr;
    else
        t.gpus = arr;
    int before = d->nerr;
    if (t.ngpus > DAM_CATALOG_MAX_GPUS)
        dam_diag_error(d, path, 0, "the GPU catalog would hold %zu GPUs, at "
                       "most %d", t.ngpus, DAM_CATALOG_MAX_GPUS);
    for (size_t i = 0; i < nconsts && d->nerr == before; i++) {
        dam_error e;
        if (dam_catalog_const_set(&t, &consts[i].key, consts[i].value,
                                  consts[i].sd, &e) != DAM_OK)
            dam_diag_error(d, path, consts[i].line, "%s", e.msg);
    }
    if (d->nerr > before) {
        dam_free(t.gpus);
        dam_free(t.models);
        return DAM_EINPUT;
    }
    dam_free(cat->gpus);
    dam_free(cat->models);
    *cat = t;
    if (models)
        snprintf(cat->model_file, sizeof cat->model_file, "%s", path);
    else
        snprintf(cat->gpu_file, sizeof cat->gpu_file, "%s", path);
    return DAM_OK;
}

int dam_catalog_load_gpus(dam_catalog *cat, const char *path, const char *text,
                          dam_diag *d)
{
    void *items = NULL;
    size_t n = 0, nc = 0;
    overlay_const *oc = NULL;
    if (load_list(path, text, "gpus", sizeof(dam_gpu),
                  offsetof(dam_gpu, line), gpu_entry, &items, &n, &oc, &nc,
                  d) != DAM_OK)
        return DAM_EINPUT;
    int rc = commit(cat, 0, items, n, oc, nc, path, d);
    dam_free(oc);
    dam_free(items);
    return rc;
}

int dam_catalog_load_models(dam_catalog *cat, const char *path,
                            const char *text, dam_diag *d)
{
    void *items = NULL;
    size_t n = 0, nc = 0;
    overlay_const *oc = NULL;
    if (load_list(path, text, "models", sizeof(dam_model_spec),
                  offsetof(dam_model_spec, line), model_entry, &items, &n,
                  &oc, &nc, d) != DAM_OK)
        return DAM_EINPUT;
    int rc = commit(cat, 1, items, n, oc, nc, path, d);
    dam_free(oc);
    dam_free(items);
    return rc;
}

/* ---- scenario -------------------------------------------------------- */

static const char *const top_keys[] = {"scenario", "catalogs", "machine",
                                       "workload", "data",     "pipeline",
                                       "serving",  "quality",  "cost",
                                       "levers",   "parallel", "llm",
                                       NULL};
static const char *const scen_keys[] = {"name",  "question", "mode",
                                        "seed",  "about",    "deadline_days",
                                        NULL};
static const char *const modes[] = {"training", "inference", "serving", NULL};
static const char *const cat_keys[] = {"gpus", "models", NULL};
static const char *const machine_keys[] = {"gpu",  "gpus_per_node", "nodes",
                                           "host", "storage", "network", NULL};
static const char *const host_keys[] = {"cpu_cores", "pcie_gbs",
                                        "gpus_per_pcie_link",
                                        "pageable_fraction", NULL};
static const char *const storage_keys[] = {"kind", "read_gbs", "latency_ms",
                                           "shared", NULL};
static const char *const storage_kinds[] = {"local_nvme", "network_fs",
                                            "page_cache", "hdd",
                                            "object_store", NULL};
static const char *const network_keys[] = {
    "intra_busbw_gbs", "inter_busbw_gbs", "latency_us", "nvlink_domain",
    "nics_per_node", "nic_gbs", "nic_efficiency", "rail_optimized",
    "oversubscription", "algorithm", "nvlink_latency_us",
    "base_latency_us", NULL};
static const char *const algo_names[] = {"auto", "ring", "tree",
                                         "hierarchical", NULL};
static const char *const parallel_keys[] = {
    "tp", "pp", "dp", "cp", "ep", "vpp", "first_layers", "last_layers",
    "schedule", "sequence_parallel",
    "micro_batch", "global_batch", "zero", "fsdp", "recompute",
    "overlap_grad_reduce", "overlap_param_gather", "overlap_all_to_all",
    "reserved_gib",
    "straggler", NULL};
static const char *const sched_names[] = {"1f1b", "gpipe", "interleaved",
                                          NULL};
static const char *const recompute_names[] = {"none", "selective", "full",
                                              NULL};
static const char *const straggler_keys[] = {"rank", "slowdown", NULL};
static const char *const workload_keys[] = {
    "model", "precision", "batch_size", "efficiency", "memory_efficiency",
    "kernels_per_step", "launch_us", "framework_overhead_ms", "cuda_graphs",
    "activation_recompute", "optimizer", "compute_cv", "zero_stage",
    "seq_len", "framework", "inference_engine", "memory_format", NULL};
static const char *const engines[] = {"fused", "eager", NULL};
static const char *const memory_formats[] = {"channels_last",
                                             "channels_first", NULL};
static const char *const optimizers[] = {"adam", "sgd", NULL};
static const char *const data_keys[] = {
    "samples", "raw_bytes_per_sample", "input_bytes_per_sample", "decode_ms",
    "decode_cv", "decode_dist", "epochs", "decode_on_gpu", "gpu_decode_ms",
    "sharded", "shard_mb", "tokens", "decode_samples_file", NULL};
static const char *const dists[] = {"deterministic", "exponential",
                                    "lognormal", "uniform", "normal", NULL};
static const char *const pipeline_keys[] = {
    "loader_workers", "prefetch_factor", "pin_memory", "overlap_transfer",
    "bucket_mb", "overlap_sync", "warmup_steps", "steps", "replications",
    NULL};
static const char *const serving_keys[] = {
    "arrival", "rate_per_s", "trace", "preprocess_ms", "preprocess_cv",
    "preprocess_dist", "preprocess_workers", "postprocess_ms", "max_batch",
    "batch_timeout_ms", "replicas", "slo_p99_ms", "request_bytes",
    "requests", "replications", "compute_dist", NULL};
static const char *const arrivals[] = {"poisson", "deterministic", "trace",
                                       NULL};
static const char *const quality_keys[] = {"metric", "value",
                                           "higher_is_better",
                                           "from_scaling_law", "tokens", "fit",
                                           NULL};
static const char *const cost_keys[] = {"gpu_hour_usd", "pue", "kwh_usd",
                                        NULL};

/* Resolve a catalog path relative to the scenario's folder. */
static void relative_to(char *out, size_t n, const char *scenario,
                        const char *p)
{
    const char *slash = strrchr(scenario, '/');
    if (p[0] == '/' || !slash)
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - scenario), scenario, p);
}

static void load_catalogs(ld *L, const config_setting_t *root,
                          dam_catalog *cat)
{
    config_setting_t *c = group(L, root, "catalogs", "", 0);
    if (!c)
        return;
    check_keys(L, c, cat_keys, "catalogs");
    static const char *const kinds[2] = {"gpus", "models"};
    for (int k = 0; k < 2; k++) {
        char p[256], full[512];
        if (!get_str(L, c, kinds[k], "catalogs", 0, p, sizeof p))
            continue;
        const config_setting_t *at = member(L, c, kinds[k], "", 0);
        relative_to(full, sizeof full, file_of(L, at), p);
        char why[64];
        FILE *f = dam_infile_open(full, why, sizeof why);
        if (!f) {
            char q[128];
            dam_diag_error(L->d, AT(at), "cannot read the %s catalog \"%s\": "
                           "%s", kinds[k],
                           dam_error_quote(full, 96, q, sizeof q), why);
            continue;
        }
        fclose(f);
        if (k == 0)
            dam_catalog_load_gpus(cat, full, NULL, L->d);
        else
            dam_catalog_load_models(cat, full, NULL, L->d);
    }
}

/* machine.gpu: an id string or an inline group (optionally "base" = id). */
static void load_gpu(ld *L, const config_setting_t *m, const dam_catalog *cat,
                     dam_gpu *g)
{
    config_setting_t *s = member(L, m, "gpu", "machine", 1);
    if (!s)
        return;
    char id[DAM_ID_MAX] = "";
    int inline_group = config_setting_is_group(s);
    if (inline_group) {
        get_str(L, s, "base", "machine.gpu", 0, id, sizeof id);
    } else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        snprintf(id, sizeof id, "%s", config_setting_get_string(s));
    } else {
        dam_diag_error(L->d, AT(s),
                       "'machine.gpu' must be a catalog id or a group, got %s",
                       type_name(s));
        return;
    }
    if (id[0]) {
        const dam_gpu *e = dam_catalog_gpu(cat, id);
        char q[64];
        if (!e) {
            const char *sug = dam_catalog_suggest_gpu(cat, id);
            if (sug)
                dam_diag_error(L->d, AT(s),
                               "unknown GPU \"%s\" (did you mean \"%s\"?)", dam_error_quote(id, 32, q, sizeof q),
                               sug);
            else
                dam_diag_error(L->d, AT(s),
                               "unknown GPU \"%s\" (see 'damsim catalog "
                               "gpus')",
                               dam_error_quote(id, 32, q, sizeof q));
            return;
        }
        *g = *e;
    }
    if (inline_group) {
        parse_gpu(L, s, g, "machine.gpu", 0, id[0] != 0);
        if (!g->id[0])
            snprintf(g->id, sizeof g->id, "custom");
        if (!g->name[0])
            snprintf(g->name, sizeof g->name, "%s (inline)", g->id);
        g->line = line_of(s);
    }
}

static void load_model(ld *L, const config_setting_t *w,
                       const dam_catalog *cat, dam_model_spec *m)
{
    config_setting_t *s = member(L, w, "model", "workload", 1);
    if (!s)
        return;
    char id[DAM_ID_MAX] = "";
    int inline_group = config_setting_is_group(s);
    if (inline_group) {
        get_str(L, s, "base", "workload.model", 0, id, sizeof id);
    } else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        snprintf(id, sizeof id, "%s", config_setting_get_string(s));
    } else {
        dam_diag_error(L->d, AT(s),
                       "'workload.model' must be a catalog id or a group, got "
                       "%s",
                       type_name(s));
        return;
    }
    if (id[0]) {
        const dam_model_spec *e = dam_catalog_model(cat, id);
        char q[64];
        if (!e) {
            const char *sug = dam_catalog_suggest_model(cat, id);
            if (sug)
                dam_diag_error(L->d, AT(s),
                               "unknown model \"%s\" (did you mean \"%s\"?)",
                               dam_error_quote(id, 32, q, sizeof q), sug);
            else
                dam_diag_error(L->d, AT(s),
                               "unknown model \"%s\" (see 'damsim catalog "
                               "models')",
                               dam_error_quote(id, 32, q, sizeof q));
            return;
        }
        *m = *e;
    }
    if (inline_group) {
        parse_model(L, s, m, "workload.model", 0, id[0] != 0);
        if (!m->id[0])
            snprintf(m->id, sizeof m->id, "custom");
        if (!m->name[0])
            snprintf(m->name, sizeof m->name, "%s (inline)", m->id);
        m->line = line_of(s);
    }
}

/* Defaults before reading: what a scenario gets when it says nothing. */
static void defaults(dam_scenario *s)
{
    memset(s, 0, sizeof *s);
    s->seed = 1;
    s->machine.nodes = 1;
    s->machine.gpus_per_pcie_link = 1;
    s->machine.pageable_fraction = 0.5;
    s->workload.eta_mem = 0.85;
    s->workload.launch_s = 4.0 * US;
    s->workload.optimizer_bytes = 8.0; /* Adam: m and v in fp32 */
    s->workload.master_bytes = 4.0;    /* fp32 weights or master copy */
    s->workload.flops_scale = 1.0;
    s->workload.bytes_scale = 1.0;
    s->workload.weight_scale = 1.0;
    s->workload.matmul_peak_scale = 1.0;
    s->data.epochs = 1.0;
    s->data.shard_bytes = 128.0 * MB;
    s->data.decode_dist = DAM_DIST_LOGNORMAL;
    s->pipeline.prefetch_factor = 2;
    s->pipeline.pin_memory = 1;
    s->pipeline.bucket_bytes = 25.0 * MB;
    s->pipeline.overlap_sync = 1;
    /* Loader workers start together and stay nearly in step (a batch sums
     * hundreds of decode draws), so batches arrive in bursts of W; a
     * window of n steps measures the rate to about W * step / n. 300
     * steps keep that near 0.5 % at W = 8 (the flagship: under a second
     * for its six what-if variants x 5 replications). */
    s->pipeline.warmup_steps = 10;
    s->pipeline.steps = 300;
    s->pipeline.replications = 5;
    s->serving.preprocess_workers = 1;
    s->serving.max_batch = 1;
    s->serving.replicas = 1;
    s->serving.requests = 20000;
    s->serving.preprocess_dist = DAM_DIST_DETERMINISTIC;
    s->serving.replications = 5;
    s->serving.compute_dist = DAM_DIST_DETERMINISTIC;
    s->quality.higher_is_better = 1;
    s->cost.pue = 1.0;
}

/* ---- levers ---------------------------------------------------------- */

/*
 * Levers are read through the lever table (lever.h): a member of a lever
 * group is a lever type (with its main value or a group of its keys) or a
 * key of a type (joining the lever's latest op of a type that has it). The
 * table spells every name, unit and range; this reader only converts
 * libconfig settings into typed values and reports where they are wrong.
 */

/* A libconfig scalar as a lever value; 0 when it is not a scalar. */
static int lever_value(const config_setting_t *c, dam_lever_value *v)
{
    memset(v, 0, sizeof *v);
    switch (config_setting_type(c)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        v->is = DAM_LVAL_NUM;
        v->num = (double)config_setting_get_int64(c);
        v->integral = 1;
        return 1;
    case CONFIG_TYPE_FLOAT:
        v->is = DAM_LVAL_NUM;
        v->num = config_setting_get_float(c);
        return 1;
    case CONFIG_TYPE_BOOL:
        v->is = DAM_LVAL_BOOL;
        v->boolean = config_setting_get_bool(c);
        return 1;
    case CONFIG_TYPE_STRING:
        v->is = DAM_LVAL_TEXT;
        v->text = config_setting_get_string(c);
        return 1;
    default:
        return 0;
    }
}

static dam_lever_op *new_op(ld *L, dam_lever *lv, const dam_lever_type *t,
                            int line)
{
    if (lv->nops >= DAM_LEVER_MAX_OPS) {
        dam_diag_error(L->d, L->file, line, "lever '%s' has more than %d parts",
                       lv->name, DAM_LEVER_MAX_OPS);
        return NULL;
    }
    dam_lever_op *op = &lv->ops[lv->nops++];
    dam_lever_op_start(op, t);
    return op;
}

/* Set key k of t on op from setting c (its path is kw). */
static void lever_key(ld *L, dam_lever_op *op, const dam_lever_type *t,
                      const dam_lever_key *k, const config_setting_t *c,
                      const char *kw)
{
    dam_lever_value v;
    char why[400];
    if (!lever_value(c, &v)) {
        dam_diag_error(L->d, AT(c), "'%s' must be a value, "
                       "got %s", kw, type_name(c));
        return;
    }
    if (dam_lever_set_value(op, t, k, &v, why, sizeof why) != 0)
        dam_diag_error(L->d, AT(c), "'%s': %s", kw, why);
}

/* "lever = value": t's main value from a scalar. */
static void lever_main(ld *L, dam_lever_op *op, const dam_lever_type *t,
                       const config_setting_t *c, const char *kw)
{
    dam_lever_value v;
    char why[400], num[40];
    if (!lever_value(c, &v)) {
        dam_diag_error(L->d, AT(c), "'%s' must be a value or "
                       "a group of its keys, got %s", kw, type_name(c));
        return;
    }
    int rc;
    if (t->main_key >= 0)
        rc = dam_lever_set_value(op, t, &t->keys[t->main_key], &v, why,
                                 sizeof why);
    else if (v.is == DAM_LVAL_NUM) { /* "chinchilla = 20" */
        snprintf(num, sizeof num, "%.17g", v.num);
        rc = dam_lever_set_main(op, t, num, why, sizeof why);
    } else if (v.is == DAM_LVAL_TEXT)
        rc = dam_lever_set_main(op, t, v.text, why, sizeof why);
    else
        rc = dam_lever_set_main(op, t, "", why, sizeof why);
    if (rc != 0)
        dam_diag_error(L->d, AT(c), "'%s': %s", kw, why);
}

static void load_lever(ld *L, const config_setting_t *e, dam_lever *lv,
                       const char *w, const dam_catalog *cat)
{
    memset(lv, 0, sizeof *lv);
    lv->line = line_of(e);
    get_str(L, e, "name", w, 1, lv->name, sizeof lv->name);
    int n = config_setting_length(e);
    for (int i = 0; i < n; i++) {
        const config_setting_t *c = config_setting_get_elem(e, (unsigned)i);
        const char *k = config_setting_name(c);
        int line = line_of(c);
        char kw[128];
        path_join(kw, sizeof kw, w, k);
        if (strcmp(k, "name") == 0)
            continue;
        const dam_lever_type *t = dam_lever_type_find(k);
        dam_lever_op *op;
        if (t) {
            if (!(op = new_op(L, lv, t, line)))
                continue;
            if (!config_setting_is_group(c)) {
                lever_main(L, op, t, c, kw);
                continue;
            }
            int m = config_setting_length(c);
            for (int j = 0; j < m; j++) {
                const config_setting_t *kc =
                    config_setting_get_elem(c, (unsigned)j);
                const char *kn = config_setting_name(kc);
                const dam_lever_key *key = dam_lever_key_find(t, kn);
                char kkw[160];
                path_join(kkw, sizeof kkw, kw, kn);
                if (!key) {
                    const char *near = dam_lever_suggest_key(t, kn);
                    if (near)
                        dam_diag_error(L->d, AT(kc),
                                       "unknown key '%s' (did you mean "
                                       "'%s'?)", kkw, near);
                    else
                        dam_diag_error(L->d, AT(kc),
                                       "unknown key '%s' (%s takes: see "
                                       "scenarios/README.md)", kkw, t->name);
                    continue;
                }
                lever_key(L, op, t, key, kc, kkw);
            }
            continue;
        }
        /* A key alone: it joins the latest op of a type that has it. */
        const dam_lever_type *own[DAM_LEVER_KIND_COUNT];
        int no = dam_lever_key_owners(k, own, DAM_LEVER_KIND_COUNT);
        if (no == 0) {
            const char *near = dam_lever_suggest(k);
            if (near)
                dam_diag_error(L->d, L->file, line, "unknown key '%s' (did "
                               "you mean '%s'?)", kw, near);
            else
                dam_diag_error(L->d, L->file, line, "unknown key '%s'", kw);
            continue;
        }
        op = NULL;
        for (int j = lv->nops - 1; j >= 0 && !op; j--)
            for (int q = 0; q < no; q++)
                if (lv->ops[j].kind == own[q]->kind)
                    op = &lv->ops[j];
        if (!op && no > 1) {
            dam_diag_error(L->d, L->file, line, "'%s' belongs to a lever "
                           "(%s, %s, ...): write it after one, or inside its "
                           "group", kw, own[0]->name, own[1]->name);
            continue;
        }
        t = op ? dam_lever_type_get(op->kind) : own[0];
        if (!op && !(op = new_op(L, lv, t, line)))
            continue;
        lever_key(L, op, t, dam_lever_key_find(t, k), c, kw);
    }
    if (lv->nops == 0)
        dam_diag_error(L->d, L->file, lv->line,
                       "lever '%s' changes nothing (give e.g. gpu, quantize, "
                       "prune, prefetch, chinchilla: see scenarios/README.md)",
                       lv->name);
    dam_error err;
    memset(&err, 0, sizeof err);
    if (dam_lever_check(lv, L->file, cat, &err) != DAM_OK)
        dam_diag_error(L->d, L->file, err.line ? err.line : lv->line, "%s",
                       err.msg);
}

/* ---- the scenario, group by group ------------------------------------ */

static void load_machine(ld *L, const config_setting_t *root,
                         const dam_catalog *cat, dam_scenario *s)
{
    config_setting_t *m = group(L, root, "machine", "", 1);
    if (!m)
        return;
    dam_machine *mc = &s->machine;
    check_keys(L, m, machine_keys, "machine");
    load_gpu(L, m, cat, &mc->gpu);
    get_int(L, m, "gpus_per_node", "machine", 1, 1, 4096, &mc->gpus_per_node);
    get_int(L, m, "nodes", "machine", 0, 1, 1000000, &mc->nodes);
    if (dam_scenario_gpus(s) > DAM_MAX_GPUS) {
        config_setting_t *at = member(L, m, "nodes", "", 0);
        dam_diag_error(L->d, AT(at ? at : member(L, m, "gpus_per_node", "", 0)),
                       "%d GPUs per node x %d nodes = %lld GPUs; damsim "
                       "models at most %d",
                       mc->gpus_per_node, mc->nodes,
                       (long long)dam_scenario_gpus(s), DAM_MAX_GPUS);
    }
    config_setting_t *h = group(L, m, "host", "machine", 1);
    if (h) {
        check_keys(L, h, host_keys, "machine.host");
        get_int(L, h, "cpu_cores", "machine.host", 1, 1, DAM_MAX_CORES,
                &mc->cpu_cores);
        get_num(L, h, "pcie_gbs", "machine.host", 1, R_POS, GB, &mc->pcie_bw);
        if (get_int(L, h, "gpus_per_pcie_link", "machine.host", 0, 1, 4096,
                    &mc->gpus_per_pcie_link) &&
            mc->gpus_per_node > 0 && mc->gpus_per_pcie_link > mc->gpus_per_node)
            dam_diag_error(L->d, AT(member(L, h, "gpus_per_pcie_link", "", 0)),
                           "'machine.host.gpus_per_pcie_link' (%d) exceeds "
                           "'machine.gpus_per_node' (%d)",
                           mc->gpus_per_pcie_link, mc->gpus_per_node);
        get_num(L, h, "pageable_fraction", "machine.host", 0, R_UNIT, 1.0,
                &mc->pageable_fraction);
    }
    config_setting_t *st = group(L, m, "storage", "machine", 1);
    if (st) {
        check_keys(L, st, storage_keys, "machine.storage");
        int k = 0;
        if (get_choice(L, st, "kind", "machine.storage", 0, storage_kinds, &k))
            mc->storage_kind = (dam_storage_kind)k;
        get_num(L, st, "read_gbs", "machine.storage", 1, R_POS, GB,
                &mc->storage_bw);
        get_num(L, st, "latency_ms", "machine.storage", 0, R_NONNEG, MS,
                &mc->storage_latency);
        int shared = 0;
        get_bool(L, st, "shared", "machine.storage", 0, &shared);
        if (shared) /* one cluster-wide file system: read_gbs is its total */
            mc->fs_bw = mc->storage_bw;
    }
    int multi_node = mc->nodes > 1;
    config_setting_t *nw = group(L, m, "network", "machine", multi_node);
    dam_network *net = &mc->net;
    if (nw) {
        check_keys(L, nw, network_keys, "machine.network");
        const char *w = "machine.network";
        int have_nic = get_num(L, nw, "nic_gbs", w, 0, R_POS, GB,
                               &net->nic_bw);
        get_num(L, nw, "intra_busbw_gbs", w, 0, R_POS, GB,
                &mc->intra_busbw);
        get_num(L, nw, "inter_busbw_gbs", w, multi_node && !have_nic, R_POS,
                GB, &mc->inter_busbw);
        get_num(L, nw, "latency_us", w, 0, R_NONNEG, US, &mc->net_latency);
        get_int(L, nw, "nvlink_domain", w, 0, 1, DAM_MAX_GPUS,
                &net->domain);
        get_int(L, nw, "nics_per_node", w, 0, 1, 1024, &net->nics);
        get_num(L, nw, "nic_efficiency", w, 0, R_UNIT, 1.0, &net->nic_eff);
        net->rail_optimized = 1;
        get_bool(L, nw, "rail_optimized", w, 0, &net->rail_optimized);
        get_num(L, nw, "oversubscription", w, 0, R_GE1, 1.0, &net->oversub);
        int a = 0;
        if (get_choice(L, nw, "algorithm", w, 0, algo_names, &a))
            net->algo = (dam_net_algo)a;
        get_num(L, nw, "nvlink_latency_us", w, 0, R_POS, US, &net->lat_in);
        get_num(L, nw, "base_latency_us", w, 0, R_POS, US, &net->base_lat);
        int g = mc->gpus_per_node;
        if (net->domain > 0 && g > 0 && net->domain % g != 0 &&
            g % net->domain != 0)
            dam_diag_error(L->d, AT(member(L, nw, "nvlink_domain", "", 0)),
                           "'machine.network.nvlink_domain' (%d GPUs) must "
                           "be a multiple or a divisor of "
                           "'machine.gpus_per_node' (%d)",
                           net->domain, g);
    } else {
        net->rail_optimized = 1;
    }
    /* not given: the GPU's own node fabric (its measured NVLink
     * all-reduce, or the PCIe ring), so that a scenario moved to more
     * GPUs, or to another GPU, by a lever has one */
    if (!(mc->intra_busbw > 0.0))
        mc->intra_busbw = dam_device_fabric_busbw(&mc->gpu, mc->pcie_bw);
    dam_net_defaults(net, mc->gpus_per_node, mc->intra_busbw,
                     mc->inter_busbw, mc->gpu.dev.busbw.v, mc->net_latency);
    /* a machine that says nothing of a fabric: its GPUs leave the node
     * (and reach each other without NVLink) through the host's PCIe */
    if (!(net->domain_bw > 0.0))
        net->domain_bw = mc->pcie_bw;
    if (!(net->nic_bw > 0.0))
        net->nic_bw = mc->pcie_bw / net->nic_eff;
}

/*
 * workload.framework = { conv_frac = ..; conv_frac_sd = ..; ... }: the
 * software stack's constants (device.h, framework scope), each with its
 * uncertainty. launch_us and framework_overhead_ms stay workload keys.
 */
/*
 * workload.framework.name: the software stack's name ("default" when not
 * given). A calibration overlay's framework constants are keyed by it
 * (constants.h framework/<name>/...), so the stack a scenario names picks
 * up the constants fitted for it before its own values apply.
 */
static void framework_name(ld *L, const config_setting_t *w, dam_workload *wl)
{
    snprintf(wl->framework_name, sizeof wl->framework_name, "default");
    config_setting_t *f = config_setting_get_member(w, "framework");
    if (f && config_setting_is_group(f))
        get_str(L, f, "name", "workload.framework", 0, wl->framework_name,
                sizeof wl->framework_name);
    for (const char *c = wl->framework_name; *c; c++)
        if (*c == '/' || *c == '@' || *c == ' ') {
            dam_diag_error(L->d, L->file,
                           line_of(config_setting_get_member(f, "name")),
                           "'workload.framework.name' may not hold '/', '@' "
                           "or spaces, got \"%s\"", wl->framework_name);
            break;
        }
}

static void load_framework(ld *L, const config_setting_t *w, dam_scenario *s)
{
    config_setting_t *f = group(L, w, "framework", "workload", 0);
    if (!f)
        return;
    const char *where = "workload.framework";
    const char *allowed[18];
    char sdk[8][48];
    int na = 0, ns = 0;
    allowed[na++] = "name"; /* read by framework_name() */
    for (int i = 0; i < dam_param_count() && na < 16 && ns < 8; i++) {
        const dam_param_info *pi = dam_param_get(i);
        double *v, *sd;
        if (pi->scope != DAM_PARAM_FRAMEWORK || pi->prec > 0 ||
            dam_param_ref(i, s, &v, &sd) != 0 ||
            v == &s->workload.launch_s ||
            v == &s->workload.framework_overhead_s)
            continue;
        allowed[na++] = pi->field;
        if (pi->prec < 0) {
            snprintf(sdk[ns], sizeof sdk[ns], "%s_sd", pi->field);
            allowed[na++] = sdk[ns++];
        }
    }
    allowed[na] = NULL;
    check_keys(L, f, allowed, where);
    for (int i = 0; i < dam_param_count(); i++) {
        const dam_param_info *pi = dam_param_get(i);
        double *v, *sd;
        if (pi->scope != DAM_PARAM_FRAMEWORK ||
            dam_param_ref(i, s, &v, &sd) != 0 ||
            v == &s->workload.launch_s ||
            v == &s->workload.framework_overhead_s)
            continue;
        param_value(L, f, where, pi, v, sd);
    }
}

/* The model m (its catalog entry, at seq0 tokens) run at seq tokens per
 * sample: its activation memory per sample (act_mem_bytes, what every
 * memory figure without a parallel layout starts from) follows the
 * per-token activations of one block at each length (layout.c's count:
 * linear in seq, plus the score matrix where attention is not fused), and
 * a display name that states a length (", seq 2048") states the one
 * solved. The phases and FLOPs are rebuilt by dam_graph_derive_phases. */
static void resequence(dam_model_spec *m, double seq0, double seq)
{
    dam_layout one;
    memset(&one, 0, sizeof one);
    one.tp = one.pp = one.dp = one.cp = one.ep = one.vpp = 1;
    one.micro_batch = 1;
    one.recompute = DAM_RECOMPUTE_NONE;
    double a0 = dam_layout_act_layer(&one, &m->arch.tf, seq0, 2.0, 1);
    double a1 = dam_layout_act_layer(&one, &m->arch.tf, seq, 2.0, 1);
    if (a0 > 0.0 && a1 > 0.0)
        m->act_mem_bytes *= a1 / a0;
    char *at = strstr(m->name, ", seq ");
    if (at && strspn(at + 6, "0123456789.") == strlen(at + 6))
        snprintf(at, sizeof m->name - (size_t)(at - m->name), ", seq %.0f",
                 seq);
}

static void load_workload(ld *L, const config_setting_t *root,
                          const dam_catalog *cat, dam_scenario *s)
{
    config_setting_t *w = group(L, root, "workload", "", 1);
    if (!w)
        return;
    dam_workload *wl = &s->workload;
    check_keys(L, w, workload_keys, "workload");
    load_model(L, w, cat, &wl->model);
    int p = DAM_BF16;
    int have_p = get_choice(L, w, "precision", "workload", 1, prec_names, &p);
    wl->precision = (dam_precision)p;
    /* a parallel layout gives the batch as micro-batches (load_parallel) */
    int layout = member(L, root, "parallel", "", 0) != NULL;
    if (layout) {
        const char *const not_with[] = {"batch_size", "zero_stage",
                                        "activation_recompute"};
        const char *const use[] = {"micro_batch' and 'parallel.global_batch",
                                   "zero", "recompute"};
        for (int i = 0; i < 3; i++) {
            config_setting_t *x = member(L, w, not_with[i], "", 0);
            if (x)
                dam_diag_error(L->d, AT(x),
                               "'workload.%s' does not apply with a "
                               "'parallel' layout: give 'parallel.%s'",
                               not_with[i], use[i]);
        }
    } else {
        get_int(L, w, "batch_size", "workload", 1, 1, DAM_MAX_BATCH,
                &wl->batch_size);
    }
    double seq = 0.0;
    if (get_num(L, w, "seq_len", "workload", 0, R_GE1, 1.0, &seq)) {
        dam_error e;
        double seq0 = wl->model.seq_len;
        if (wl->model.arch.kind != DAM_ARCH_TRANSFORMER)
            dam_diag_error(L->d, AT(member(L, w, "seq_len", "", 0)),
                           "'workload.seq_len' needs a model with a "
                           "transformer architecture (\"%s\" has none)",
                           wl->model.id);
        else if (dam_graph_derive_phases(&wl->model, seq, &e) != DAM_OK)
            dam_diag_error(L->d, AT(member(L, w, "seq_len", "", 0)), "%s",
                           e.msg);
        else if (seq != seq0)
            resequence(&wl->model, seq0, seq);
    }
    wl->seq_len = wl->model.seq_len;
    dam_framework_default(&wl->fw);
    framework_name(L, w, wl);
    dam_catalog_framework_apply(cat, s);
    load_framework(L, w, s);
    int eng = 0;
    if (get_choice(L, w, "inference_engine", "workload", 0, engines, &eng))
        wl->inference_eager = eng == 1;
    int mfmt = 0;
    if (get_choice(L, w, "memory_format", "workload", 0, memory_formats,
                   &mfmt))
        wl->channels_first = mfmt == 1;
    int have_eta = get_num(L, w, "efficiency", "workload", 0, R_UNIT, 1.0,
                           &wl->eta);
    wl->eta_given = have_eta;
    wl->eta_mem_given = get_num(L, w, "memory_efficiency", "workload", 0,
                                R_UNIT, 1.0, &wl->eta_mem);
    if (!get_int(L, w, "kernels_per_step", "workload", 0, 0, DAM_MAX_KERNELS,
                 &wl->kernels_per_step))
        wl->kernels_per_step = wl->model.kernels_per_step;
    get_num(L, w, "launch_us", "workload", 0, R_NONNEG, US, &wl->launch_s);
    get_num(L, w, "framework_overhead_ms", "workload", 0, R_NONNEG, MS,
            &wl->framework_overhead_s);
    get_bool(L, w, "cuda_graphs", "workload", 0, &wl->cuda_graphs);
    get_bool(L, w, "activation_recompute", "workload", 0,
             &wl->activation_recompute);
    int opt = 0;
    if (get_choice(L, w, "optimizer", "workload", 0, optimizers, &opt))
        wl->optimizer_bytes = opt == 0 ? 8.0 : 4.0; /* Adam m+v; SGD momentum */
    get_num(L, w, "compute_cv", "workload", 0, R_NONNEG, 1.0, &wl->compute_cv);
    get_int(L, w, "zero_stage", "workload", 0, 0, 3, &wl->zero_stage);
    wl->grad_bytes = dam_precision_bytes(wl->precision) >= 4.0 ? 4.0 : 2.0;

    /* Cross-checks against the GPU and the model. */
    const dam_gpu *g = &s->machine.gpu;
    int gline = line_of(member(L, w, "precision", "", 0));
    int gpu_known = 0;
    for (int i = 0; i < DAM_PREC_COUNT; i++)
        gpu_known |= g->peak[i] > 0.0;
    if (have_p && gpu_known && g->peak[p] <= 0.0) {
        char list[128] = "";
        for (int i = 0; i < DAM_PREC_COUNT; i++)
            if (g->peak[i] > 0.0) {
                strncat(list, list[0] ? ", " : "",
                        sizeof list - strlen(list) - 1);
                strncat(list, dam_precision_name((dam_precision)i),
                        sizeof list - strlen(list) - 1);
            }
        dam_diag_error(L->d, L->file, gline,
                       "precision \"%s\" is not supported by GPU \"%s\" "
                       "(supported: %s)",
                       prec_names[p], g->id, list);
    }
    /* The efficiency: a catalog value or the scenario's overrides the
     * device model; a model without architecture must have one. Layouts
     * cost the operator graph on the device model: a catalog efficiency
     * is not applied to them (a scenario's own is, as an override). */
    if (!have_eta && wl->model.id[0] && have_p && !layout) {
        double e = dam_model_eta(&wl->model, g->id, (dam_precision)p);
        if (e > 0.0) {
            wl->eta = e;
            wl->eta_given = 1;
        } else if (wl->model.arch.kind == DAM_ARCH_NONE) {
            dam_diag_error(L->d, AT(w),
                           "model \"%s\" has no architecture and no "
                           "calibrated efficiency at \"%s\"; give "
                           "'workload.efficiency' (or an 'arch')",
                           wl->model.id, prec_names[p]);
        }
    }
    if (L->d->nerr == 0) {
        dam_error e;
        if (dam_scenario_build_graph(s, &e) != DAM_OK)
            dam_diag_error(L->d, AT(w), "%s", e.msg);
    }
}

/*
 * Measured decode times, one per line in milliseconds ('#' starts a
 * comment), for the empirical distribution: the simulator resamples them.
 * Errors name the samples file and its line.
 */
static void load_decode_samples(ld *L, const config_setting_t *at,
                                const char *name, dam_scenario *s)
{
    char path[512], q[96];
    relative_to(path, sizeof path, file_of(L, at), name);
    char why[64];
    FILE *fp = dam_infile_open(path, why, sizeof why);
    if (!fp) {
        dam_diag_error(L->d, AT(at), "cannot read the decode samples \"%s\": "
                       "%s", dam_error_quote(path, 64, q, sizeof q), why);
        return;
    }
    dam_data *d = &s->data;
    char buf[256];
    int line = 0, errs = 0;
    d->ndecode_samples = 0;
    /* The first line that is not a number ends the reading, and the
     * message quotes at most its first 16 bytes (escaped): a scenario that
     * names some other file cannot make damsim print that file. */
    while (!errs && fgets(buf, sizeof buf, fp)) {
        line++;
        size_t len = strlen(buf);
        if (len + 1 == sizeof buf && buf[len - 1] != '\n' && !feof(fp)) {
            dam_diag_error(L->d, path, line, "a line longer than %zu "
                           "characters; not a file of decode times?",
                           sizeof buf - 2);
            errs = 1;
            break;
        }
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '\n' || *p == '\r')
            continue;
        char *end;
        double v = dam_decimal(p, &end);
        while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
            end++;
        if (end == p || *end || !isfinite(v) || v < 0.0 || v > 1e8) {
            /* the number-like prefix and the first byte that breaks it */
            size_t tok = strspn(p, "0123456789.eE+-");
            if (p[tok] && !strchr(" \t\r\n", p[tok]))
                tok++;
            p[tok] = '\0';
            dam_diag_error(L->d, path, line,
                           "expected a decode time in ms (0 to 1e8), got "
                           "\"%s\"; not a file of decode times?",
                           dam_error_quote(p, 24, q, sizeof q));
            errs = 1;
            break;
        }
        if (d->ndecode_samples >= DAM_MAX_DECODE_SAMPLES) {
            dam_diag_error(L->d, path, line,
                           "more than %d decode samples", DAM_MAX_DECODE_SAMPLES);
            break;
        }
        d->decode_samples[d->ndecode_samples++] = v * MS;
    }
    fclose(fp);
    if (errs || d->ndecode_samples == 0) {
        if (!errs)
            dam_diag_error(L->d, path, 0, "no decode samples in the file");
        return;
    }
    double sum = 0.0, sq = 0.0;
    for (int i = 0; i < d->ndecode_samples; i++)
        sum += d->decode_samples[i];
    double mean = sum / d->ndecode_samples;
    for (int i = 0; i < d->ndecode_samples; i++)
        sq += (d->decode_samples[i] - mean) * (d->decode_samples[i] - mean);
    d->decode_dist = DAM_DIST_EMPIRICAL;
    d->decode_s = mean;
    d->decode_cv = mean > 0.0 ? sqrt(sq / d->ndecode_samples) / mean : 0.0;
}

static void load_data(ld *L, const config_setting_t *root, dam_scenario *s,
                      int required)
{
    config_setting_t *d = group(L, root, "data", "", required);
    dam_data *dt = &s->data;
    const dam_model_spec *m = &s->workload.model;
    dt->raw_bytes = m->raw_bytes;
    dt->input_bytes = m->input_bytes;
    if (!d)
        return;
    check_keys(L, d, data_keys, "data");
    get_num(L, d, "samples", "data", 1, R_POS, 1.0, &dt->samples);
    get_num(L, d, "raw_bytes_per_sample", "data", 0, R_NONNEG, 1.0,
            &dt->raw_bytes);
    get_num(L, d, "input_bytes_per_sample", "data", 0, R_NONNEG, 1.0,
            &dt->input_bytes);
    get_num(L, d, "decode_ms", "data", 0, R_NONNEG, MS, &dt->decode_s);
    get_num(L, d, "decode_cv", "data", 0, R_NONNEG, 1.0, &dt->decode_cv);
    int k = 0;
    if (get_choice(L, d, "decode_dist", "data", 0, dists, &k))
        dt->decode_dist = (dam_dist_kind)k;
    get_num(L, d, "epochs", "data", 0, R_POS, 1.0, &dt->epochs);
    get_bool(L, d, "decode_on_gpu", "data", 0, &dt->decode_on_gpu);
    get_num(L, d, "gpu_decode_ms", "data", 0, R_NONNEG, MS,
            &dt->gpu_decode_s);
    get_bool(L, d, "sharded", "data", 0, &dt->sharded);
    get_num(L, d, "shard_mb", "data", 0, R_POS, MB, &dt->shard_bytes);
    get_num(L, d, "tokens", "data", 0, R_POS, 1.0, &s->quality.tokens);
    char f[256];
    if (get_str(L, d, "decode_samples_file", "data", 0, f, sizeof f))
        load_decode_samples(L, member(L, d, "decode_samples_file", "", 0), f,
                            s);
}

static void load_pipeline(ld *L, const config_setting_t *root,
                          dam_scenario *s, int required)
{
    config_setting_t *p = group(L, root, "pipeline", "", required);
    if (!p)
        return;
    dam_pipeline *pl = &s->pipeline;
    check_keys(L, p, pipeline_keys, "pipeline");
    if (get_int(L, p, "loader_workers", "pipeline", 1, 0, DAM_MAX_WORKERS,
                &pl->loader_workers) &&
        s->machine.cpu_cores > 0 &&
        pl->loader_workers * s->machine.gpus_per_node > s->machine.cpu_cores)
        dam_diag_warn(L->d, AT(member(L, p, "loader_workers", "", 0)),
                      "%d loader workers per GPU x %d GPUs = %d workers on %d "
                      "cores: they will share cores",
                      pl->loader_workers, s->machine.gpus_per_node,
                      pl->loader_workers * s->machine.gpus_per_node,
                      s->machine.cpu_cores);
    get_int(L, p, "prefetch_factor", "pipeline", 0, 1, DAM_MAX_PREFETCH,
            &pl->prefetch_factor);
    get_bool(L, p, "pin_memory", "pipeline", 0, &pl->pin_memory);
    get_bool(L, p, "overlap_transfer", "pipeline", 0, &pl->overlap_transfer);
    get_num(L, p, "bucket_mb", "pipeline", 0, R_POS, MB, &pl->bucket_bytes);
    get_bool(L, p, "overlap_sync", "pipeline", 0, &pl->overlap_sync);
    get_int(L, p, "warmup_steps", "pipeline", 0, 0, DAM_MAX_WARMUP,
            &pl->warmup_steps);
    get_int(L, p, "steps", "pipeline", 0, 1, DAM_MAX_STEPS, &pl->steps);
    get_int(L, p, "replications", "pipeline", 0, 1, DAM_MAX_REPLICATIONS,
            &pl->replications);
}

/*
 * The parallel layout (layout.h): degrees, schedule, batch as
 * micro-batches, sharding, recomputation, overlap, a straggler. dp may be
 * left out (the GPUs it leaves). The rules of dam_layout_check are
 * reported at the key they concern.
 */
static void load_parallel(ld *L, const config_setting_t *root,
                          dam_scenario *s)
{
    config_setting_t *p = group(L, root, "parallel", "", 0);
    if (!p)
        return;
    const char *w = "parallel";
    dam_layout *l = &s->layout;
    dam_layout_init(l);
    l->on = 1;
    check_keys(L, p, parallel_keys, w);
    if (s->mode != DAM_MODE_TRAINING) {
        dam_diag_error(L->d, AT(p),
                       "'parallel' layouts are for training (scenario.mode "
                       "is \"%s\")",
                       dam_mode_name(s->mode));
        return;
    }
    int errs = L->d->nerr;
    const long maxg = DAM_MAX_GPUS;
    get_int(L, p, "tp", w, 0, 1, 4096, &l->tp);
    get_int(L, p, "pp", w, 0, 1, 4096, &l->pp);
    get_int(L, p, "cp", w, 0, 1, 4096, &l->cp);
    get_int(L, p, "ep", w, 0, 1, 65536, &l->ep);
    get_int(L, p, "vpp", w, 0, 1, 1024, &l->vpp);
    get_int(L, p, "first_layers", w, 0, 1, 100000, &l->first_layers);
    get_int(L, p, "last_layers", w, 0, 1, 100000, &l->last_layers);
    int have_dp = get_int(L, p, "dp", w, 0, 1, maxg, &l->dp);
    int k = 0;
    if (get_choice(L, p, "schedule", w, 0, sched_names, &k))
        l->schedule = k;
    else if (l->vpp > 1)
        l->schedule = DAM_SCHED_INTERLEAVED;
    get_bool(L, p, "sequence_parallel", w, 0, &l->sp);
    get_int(L, p, "micro_batch", w, 0, 1, 1000000, &l->micro_batch);
    int gb = 0;
    get_int(L, p, "global_batch", w, 1, 1, 1000000000, &gb);
    get_int(L, p, "zero", w, 0, 0, 3, &l->zero);
    if (get_bool(L, p, "fsdp", w, 0, &l->fsdp) && l->fsdp &&
        !member(L, p, "zero", "", 0))
        l->zero = 3;
    if (get_choice(L, p, "recompute", w, 0, recompute_names, &k))
        l->recompute = k;
    get_bool(L, p, "overlap_grad_reduce", w, 0, &l->overlap_grad);
    get_bool(L, p, "overlap_param_gather", w, 0, &l->overlap_param);
    get_bool(L, p, "overlap_all_to_all", w, 0, &l->overlap_a2a);
    double gib = 0.0;
    if (get_num(L, p, "reserved_gib", w, 0, R_NONNEG, GIB, &gib))
        l->reserve = gib;
    config_setting_t *sg = group(L, p, "straggler", w, 0);
    if (sg) {
        check_keys(L, sg, straggler_keys, "parallel.straggler");
        get_int(L, sg, "rank", "parallel.straggler", 1, 0, maxg - 1,
                &l->slow_rank);
        get_num(L, sg, "slowdown", "parallel.straggler", 1, R_GE1, 1.0,
                &l->slow_factor);
    }
    if (L->d->nerr > errs)
        return;

    int64_t gpus = dam_scenario_gpus(s);
    int64_t mp = (int64_t)l->tp * l->cp * l->pp;
    if (!have_dp) {
        if (mp <= 0 || gpus < mp || gpus % mp != 0) {
            dam_diag_error(L->d, AT(p),
                           "tp x cp x pp = %d x %d x %d = %lld does not "
                           "divide the %lld GPUs (give 'parallel.dp' or "
                           "change the degrees)",
                           l->tp, l->cp, l->pp, (long long)mp,
                           (long long)gpus);
            return;
        }
        l->dp = (int)(gpus / mp);
    }
    int line_gb = line_of(member(L, p, "global_batch", "", 0));
    int64_t per = (int64_t)l->dp * l->micro_batch;
    if (per <= 0 || gb % per != 0) {
        dam_diag_error(L->d, L->file, line_gb,
                       "'parallel.global_batch' (%d sequences) is not a "
                       "multiple of dp x micro_batch = %d x %d = %lld",
                       gb, l->dp, l->micro_batch, (long long)per);
        return;
    }
    l->micro_batches = (int)(gb / per);
    s->workload.batch_size = l->micro_batch;

    dam_error e;
    dam_layout_rule rule;
    if (dam_layout_check(l, &s->workload.model, gpus, s->workload.seq_len,
                         &rule, &e) != DAM_OK) {
        static const char *const key_of[] = {
            [DAM_LAYOUT_PRODUCT] = "dp", [DAM_LAYOUT_TP] = "tp",
            [DAM_LAYOUT_PP] = "pp",      [DAM_LAYOUT_VPP] = "vpp",
            [DAM_LAYOUT_CP] = "cp",      [DAM_LAYOUT_EP] = "ep",
            [DAM_LAYOUT_BATCH] = "global_batch",
            [DAM_LAYOUT_ZERO] = "fsdp",  [DAM_LAYOUT_MODEL] = "",
            [DAM_LAYOUT_SLOW] = "straggler"};
        const char *key = key_of[rule] ? key_of[rule] : "";
        config_setting_t *at = key[0] ? member(L, p, key, "", 0) : NULL;
        if (!at && rule == DAM_LAYOUT_VPP)
            at = member(L, p, "schedule", "", 0);
        if (!at && rule == DAM_LAYOUT_PRODUCT)
            at = member(L, root, "machine", "", 0);
        dam_diag_error(L->d, AT(at ? at : p), "%s", e.msg);
    }
    /* A deterministic pipeline reaches its steady state in one step: a
     * few steps and replications do, unless the scenario says otherwise. */
    config_setting_t *pl = member(L, root, "pipeline", "", 0);
    if (!pl || !member(L, pl, "steps", "", 0))
        s->pipeline.steps = 4;
    if (!pl || !member(L, pl, "warmup_steps", "", 0))
        s->pipeline.warmup_steps = 1;
    if (!pl || !member(L, pl, "replications", "", 0))
        s->pipeline.replications = 2;
}

static void load_serving(ld *L, const config_setting_t *root, dam_scenario *s)
{
    int required = s->mode == DAM_MODE_SERVING;
    config_setting_t *v = group(L, root, "serving", "", required);
    if (!v)
        return;
    if (!required) {
        dam_diag_error(L->d, AT(v),
                       "'serving' is only allowed with scenario.mode = "
                       "\"serving\"");
        return;
    }
    dam_serving *sv = &s->serving;
    check_keys(L, v, serving_keys, "serving");
    int a = 0;
    get_choice(L, v, "arrival", "serving", 1, arrivals, &a);
    sv->arrival = (dam_arrival_kind)a;
    get_num(L, v, "rate_per_s", "serving", a != DAM_ARRIVAL_TRACE, R_POS, 1.0,
            &sv->rate);
    get_str(L, v, "trace", "serving", a == DAM_ARRIVAL_TRACE, sv->trace,
            sizeof sv->trace);
    /* LLM serving has no preprocessing stage of its own (the iteration's
     * host time is llm.iteration_overhead_ms) */
    int llm = config_setting_get_member(root, "llm") != NULL;
    get_num(L, v, "preprocess_ms", "serving", !llm, R_NONNEG, MS,
            &sv->preprocess_s);
    get_num(L, v, "preprocess_cv", "serving", 0, R_NONNEG, 1.0,
            &sv->preprocess_cv);
    int k = 0;
    if (get_choice(L, v, "preprocess_dist", "serving", 0, dists, &k))
        sv->preprocess_dist = (dam_dist_kind)k;
    else if (sv->preprocess_cv > 0.0)
        sv->preprocess_dist = DAM_DIST_LOGNORMAL;
    get_int(L, v, "preprocess_workers", "serving", 0, 1, DAM_MAX_SERVING_WORKERS,
            &sv->preprocess_workers);
    get_num(L, v, "postprocess_ms", "serving", 0, R_NONNEG, MS,
            &sv->postprocess_s);
    get_int(L, v, "max_batch", "serving", 0, 1, DAM_MAX_SERVING_BATCH,
            &sv->max_batch);
    get_num(L, v, "batch_timeout_ms", "serving", 0, R_NONNEG, MS,
            &sv->batch_timeout_s);
    get_int(L, v, "replicas", "serving", 0, 1, DAM_MAX_GPUS, &sv->replicas);
    /* LLM serving judges TTFT and TPOT (llm.slo_*); an end-to-end p99
     * objective is optional there */
    get_num(L, v, "slo_p99_ms", "serving", !llm, R_POS, MS, &sv->slo_p99_s);
    sv->request_bytes = s->workload.model.input_bytes;
    get_num(L, v, "request_bytes", "serving", 0, R_NONNEG, 1.0,
            &sv->request_bytes);
    get_num(L, v, "requests", "serving", 0, R_GE1, 1.0, &sv->requests);
    get_int(L, v, "replications", "serving", 0, 1, DAM_MAX_REPLICATIONS,
            &sv->replications);
    if (get_choice(L, v, "compute_dist", "serving", 0, dists, &k))
        sv->compute_dist = (dam_dist_kind)k;
    else if (s->workload.compute_cv > 0.0)
        sv->compute_dist = DAM_DIST_LOGNORMAL;
}

static const char *const llm_keys[] = {
    "input_tokens", "input_dist", "input_cv", "input_min", "input_max",
    "output_tokens", "output_dist", "output_cv", "output_min", "output_max",
    "tp", "weights", "kv_cache", "block_tokens", "memory_fraction",
    "token_budget", "chunked_prefill", "chunk_tokens", "max_seqs",
    "preemption", "swap_gb", "router", "iteration_overhead_ms",
    "slo_ttft_ms", "slo_tpot_ms", "slo_percentile", "disaggregate", NULL};
static const char *const llm_disagg_keys[] = {
    "prefill_replicas", "decode_replicas", "prefill_tp", "decode_tp",
    "kv_link_gbs", "kv_link_latency_us", NULL};
static const char *const llm_weights[] = {"native", "fp8", "int8", "int4",
                                          "bf16", "fp16", NULL};
static const char *const llm_kv[] = {"bf16", "fp16", "fp8", NULL};
static const char *const llm_preempt[] = {"recompute", "swap", NULL};
static const char *const llm_routes[] = {"least_loaded", "round_robin",
                                         NULL};

/* Tokens per request: PREFIX_tokens (mean), _dist, _cv, _min, _max. */
static void load_llm_tokens(ld *L, const config_setting_t *g,
                            const char *prefix, double max_default,
                            dam_llm_tokens *t)
{
    char k[32];
    snprintf(k, sizeof k, "%s_tokens", prefix);
    get_num(L, g, k, "llm", 1, R_GE1, 1.0, &t->mean);
    snprintf(k, sizeof k, "%s_cv", prefix);
    get_num(L, g, k, "llm", 0, R_NONNEG, 1.0, &t->cv);
    snprintf(k, sizeof k, "%s_dist", prefix);
    int d = 0;
    if (get_choice(L, g, k, "llm", 0, dists, &d))
        t->dist = (dam_dist_kind)d;
    else
        t->dist = t->cv > 0.0 ? DAM_DIST_LOGNORMAL : DAM_DIST_DETERMINISTIC;
    t->min = 1.0;
    t->max = max_default > t->mean ? max_default : t->mean;
    snprintf(k, sizeof k, "%s_min", prefix);
    get_num(L, g, k, "llm", 0, R_GE1, 1.0, &t->min);
    snprintf(k, sizeof k, "%s_max", prefix);
    get_num(L, g, k, "llm", 0, R_GE1, 1.0, &t->max);
    if (t->min > t->mean || t->max < t->mean)
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm.%s_tokens' (%g) must lie within %s_min (%g) "
                       "and %s_max (%g)",
                       prefix, t->mean, prefix, t->min, prefix, t->max);
}

/*
 * The `llm` group: LLM serving on a serving scenario (scenario.h dam_llm).
 * Defaults are vLLM's where it has one (block 16, memory 0.9, 256
 * sequences, swap 4 GiB, chunked prefill) and stated in scenarios/README.
 */
static void load_llm(ld *L, const config_setting_t *root, dam_scenario *s)
{
    config_setting_t *g = group(L, root, "llm", "", 0);
    if (!g)
        return;
    if (s->mode != DAM_MODE_SERVING) {
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm' is only allowed with scenario.mode = "
                       "\"serving\"");
        return;
    }
    check_keys(L, g, llm_keys, "llm");
    config_setting_t *wg = member(L, root, "workload", "", 0);
    config_setting_t *we = wg ? member(L, wg, "efficiency", "workload", 0)
                              : NULL;
    if (we)
        dam_diag_error(L->d, L->file, line_of(we),
                       "'workload.efficiency' is not used by LLM serving: "
                       "every kernel is costed on the device model (set "
                       "the GPU's device constants to change it)");
    dam_llm *q = &s->serving.llm;
    const dam_model_spec *m = &s->workload.model;
    memset(q, 0, sizeof *q);
    q->enabled = 1;
    if (m->arch.kind != DAM_ARCH_TRANSFORMER)
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm' needs a transformer model (an 'arch' group "
                       "of kind \"transformer\"); model \"%s\" has none",
                       m->id);
    double ctx = m->seq_len > 0.0 ? m->seq_len : 4096.0;
    load_llm_tokens(L, g, "input", ctx, &q->input);
    load_llm_tokens(L, g, "output", ctx, &q->output);
    q->tp = 1;
    get_int(L, g, "tp", "llm", 0, 1, 64, &q->tp);
    if (q->tp > s->machine.gpus_per_node)
        dam_diag_error(L->d, L->file, line_of(member(L, g, "tp", "llm", 0)),
                       "'llm.tp' (%d) must fit in one node "
                       "(machine.gpus_per_node = %d)",
                       q->tp, s->machine.gpus_per_node);
    /* weights: the compute precision unless narrower weights are asked */
    dam_precision p = s->workload.precision;
    q->weights = p == DAM_FP8    ? DAM_LLM_W_FP8
                 : p == DAM_INT8 ? DAM_LLM_W_INT8
                                 : DAM_LLM_W_NATIVE;
    int w = 0;
    if (get_choice(L, g, "weights", "llm", 0, llm_weights, &w))
        q->weights = w >= DAM_LLM_W_COUNT ? DAM_LLM_W_NATIVE
                                          : (dam_llm_weights)w;
    q->kv_precision = p == DAM_FP16 ? DAM_FP16 : DAM_BF16;
    int kv = 0;
    if (get_choice(L, g, "kv_cache", "llm", 0, llm_kv, &kv))
        q->kv_precision = kv == 0 ? DAM_BF16 : kv == 1 ? DAM_FP16 : DAM_FP8;
    q->block_tokens = 16;
    get_int(L, g, "block_tokens", "llm", 0, 1, 4096, &q->block_tokens);
    q->memory_fraction = 0.9;
    get_num(L, g, "memory_fraction", "llm", 0, R_UNIT, 1.0,
            &q->memory_fraction);
    q->chunked_prefill = 1;
    get_bool(L, g, "chunked_prefill", "llm", 0, &q->chunked_prefill);
    q->token_budget = 2048;
    int have_budget = get_int(L, g, "token_budget", "llm", 0, 1, 1 << 20,
                              &q->token_budget);
    if (!q->chunked_prefill && !have_budget &&
        q->input.max > q->token_budget)
        q->token_budget = (int)q->input.max;
    q->chunk_tokens = q->token_budget;
    config_setting_t *ck = member(L, g, "chunk_tokens", "llm", 0);
    if (get_int(L, g, "chunk_tokens", "llm", 0, 1, 1 << 20, &q->chunk_tokens)
        && q->chunk_tokens > q->token_budget)
        dam_diag_error(L->d, L->file, line_of(ck),
                       "'llm.chunk_tokens' (%d) must not exceed "
                       "llm.token_budget (%d)",
                       q->chunk_tokens, q->token_budget);
    if (!q->chunked_prefill && q->input.max > q->token_budget)
        dam_diag_error(L->d, L->file, line_of(g),
                       "without chunked prefill a whole prompt must fit in "
                       "one iteration: llm.token_budget (%d) is below "
                       "llm.input_max (%g)",
                       q->token_budget, q->input.max);
    q->max_seqs = 256;
    config_setting_t *ms = member(L, g, "max_seqs", "llm", 0);
    if (get_int(L, g, "max_seqs", "llm", 0, 1, 1 << 20, &q->max_seqs) &&
        q->max_seqs > q->token_budget)
        dam_diag_error(L->d, L->file, line_of(ms),
                       "'llm.max_seqs' (%d) must not exceed llm.token_budget "
                       "(%d): every running sequence takes a token of the "
                       "budget",
                       q->max_seqs, q->token_budget);
    if (!ms && q->max_seqs > q->token_budget)
        q->max_seqs = q->token_budget;
    int pr = 0;
    if (get_choice(L, g, "preemption", "llm", 0, llm_preempt, &pr))
        q->preemption = (dam_llm_preempt)pr;
    q->swap_bytes = 4.0 * GiB;
    get_num(L, g, "swap_gb", "llm", 0, R_NONNEG, GiB, &q->swap_bytes);
    int rt = 0;
    if (get_choice(L, g, "router", "llm", 0, llm_routes, &rt))
        q->route = (dam_llm_route)rt;
    q->iteration_s = s->workload.framework_overhead_s;
    get_num(L, g, "iteration_overhead_ms", "llm", 0, R_NONNEG, MS,
            &q->iteration_s);
    get_num(L, g, "slo_ttft_ms", "llm", 1, R_POS, MS, &q->slo_ttft_s);
    get_num(L, g, "slo_tpot_ms", "llm", 1, R_POS, MS, &q->slo_tpot_s);
    double pct = 99.0;
    config_setting_t *ps = member(L, g, "slo_percentile", "llm", 0);
    if (get_num(L, g, "slo_percentile", "llm", 0, R_POS, 1.0, &pct) &&
        !(pct >= 50.0 && pct < 100.0))
        dam_diag_error(L->d, L->file, line_of(ps),
                       "'llm.slo_percentile' must be in [50, 100), got %g",
                       pct);
    q->slo_quantile = pct / 100.0;
    q->prefill_tp = q->decode_tp = q->tp;
    config_setting_t *dg = group(L, g, "disaggregate", "llm", 0);
    if (dg) {
        check_keys(L, dg, llm_disagg_keys, "llm.disaggregate");
        q->disaggregated = 1;
        q->prefill_replicas = q->decode_replicas = 1;
        get_int(L, dg, "prefill_replicas", "llm.disaggregate", 1, 1, 1 << 16,
                &q->prefill_replicas);
        get_int(L, dg, "decode_replicas", "llm.disaggregate", 1, 1, 1 << 16,
                &q->decode_replicas);
        get_int(L, dg, "prefill_tp", "llm.disaggregate", 0, 1, 64,
                &q->prefill_tp);
        get_int(L, dg, "decode_tp", "llm.disaggregate", 0, 1, 64,
                &q->decode_tp);
        /* default: the node's GPU fabric (same-node pools) */
        q->kv_link_bw = s->machine.gpu.dev.busbw.v > 0.0
                            ? s->machine.gpu.dev.busbw.v
                            : s->machine.pcie_bw;
        get_num(L, dg, "kv_link_gbs", "llm.disaggregate", 0, R_POS, GB,
                &q->kv_link_bw);
        q->kv_link_latency = s->machine.net_latency;
        get_num(L, dg, "kv_link_latency_us", "llm.disaggregate", 0,
                R_NONNEG, 1e-6, &q->kv_link_latency);
        int mx = q->prefill_tp > q->decode_tp ? q->prefill_tp : q->decode_tp;
        if (mx > s->machine.gpus_per_node)
            dam_diag_error(L->d, L->file, line_of(dg),
                           "'llm.disaggregate': a replica of %d GPUs must "
                           "fit in one node (machine.gpus_per_node = %d)",
                           mx, s->machine.gpus_per_node);
    }
    /* the model must shard over every replica's tensor-parallel degree */
    int tps[3] = {q->tp, q->disaggregated ? q->prefill_tp : q->tp,
                  q->disaggregated ? q->decode_tp : q->tp};
    for (int i = 0; i < 3 && m->arch.kind == DAM_ARCH_TRANSFORMER; i++) {
        dam_graph gr;
        dam_llm_iter it = {.decode_seqs = 1.0, .tp = tps[i]};
        dam_error e;
        if (dam_graph_llm_iteration(&gr, m, &it, &e) != DAM_OK) {
            dam_diag_error(L->d, L->file, line_of(g), "llm: %s", e.msg);
            break;
        }
    }
    if (q->weights == DAM_LLM_W_FP8 && !(s->machine.gpu.peak[DAM_FP8] > 0.0))
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm.weights' = \"fp8\" needs fp8 tensor cores, "
                       "which %s lacks",
                       s->machine.gpu.id);
    if (q->weights == DAM_LLM_W_INT8 &&
        !(s->machine.gpu.peak[DAM_INT8] > 0.0))
        dam_diag_error(L->d, L->file, line_of(g),
                       "'llm.weights' = \"int8\" needs int8 tensor cores, "
                       "which %s lacks",
                       s->machine.gpu.id);
}

static void load_quality_cost(ld *L, const config_setting_t *root,
                              dam_scenario *s)
{
    dam_quality *q = &s->quality;
    const dam_model_spec *m = &s->workload.model;
    snprintf(q->metric, sizeof q->metric, "%s", m->metric);
    q->value = m->quality;
    config_setting_t *g = group(L, root, "quality", "", 0);
    if (g) {
        check_keys(L, g, quality_keys, "quality");
        get_str(L, g, "metric", "quality", 1, q->metric, sizeof q->metric);
        get_num(L, g, "value", "quality", 0, R_ANY, 1.0, &q->value);
        get_bool(L, g, "higher_is_better", "quality", 0, &q->higher_is_better);
        get_bool(L, g, "from_scaling_law", "quality", 0, &q->from_scaling_law);
        get_num(L, g, "tokens", "quality", 0, R_POS, 1.0, &q->tokens);
        int fit = DAM_SCALING_DEFAULT;
        if (get_choice(L, g, "fit", "quality", 0, dam_scaling_fit_names, &fit))
            q->fit = fit;
        if (q->from_scaling_law) {
            /* the value is the fit's loss unless the file gives one */
            q->higher_is_better = 0;
            if (!member(L, g, "value", "quality", 0))
                q->value = 0.0;
        }
    }
    dam_cost *c = &s->cost;
    c->gpu_hour_usd = s->machine.gpu.price_hour;
    config_setting_t *k = group(L, root, "cost", "", 0);
    if (k) {
        check_keys(L, k, cost_keys, "cost");
        get_num(L, k, "gpu_hour_usd", "cost", 0, R_NONNEG, 1.0,
                &c->gpu_hour_usd);
        get_num(L, k, "pue", "cost", 0, R_GE1, 1.0, &c->pue);
        get_num(L, k, "kwh_usd", "cost", 0, R_NONNEG, 1.0, &c->kwh_usd);
    }
    if (!(c->gpu_hour_usd > 0.0)) /* 0: not given, the catalog's */
        c->gpu_hour_usd = s->machine.gpu.price_hour;
    snprintf(c->base_gpu, sizeof c->base_gpu, "%s", s->machine.gpu.id);
    c->base_gpu_hour_usd = c->gpu_hour_usd;
}

/* The file's levers into out (every one checked; the scenario keeps what
 * they assume about prices and quality). */
static void load_levers(ld *L, const config_setting_t *root,
                        const dam_catalog *cat, dam_scenario *s,
                        dam_lever_list *out)
{
    config_setting_t *lv = member(L, root, "levers", "", 0);
    if (!lv)
        return;
    if (!config_setting_is_list(lv)) {
        dam_diag_error(L->d, AT(lv),
                       "'levers' must be a list ( {...}, ... ), got %s",
                       type_name(lv));
        return;
    }
    int n = config_setting_length(lv);
    if (n > DAM_MAX_LEVERS) {
        dam_diag_error(L->d, AT(lv),
                       "'levers' holds %d levers, at most %d", n,
                       DAM_MAX_LEVERS);
        n = DAM_MAX_LEVERS;
    }
    for (int i = 0; i < n; i++) {
        config_setting_t *e = config_setting_get_elem(lv, (unsigned)i);
        char w[32];
        snprintf(w, sizeof w, "levers[%d]", i);
        if (!config_setting_is_group(e)) {
            dam_diag_error(L->d, AT(e),
                           "'%s' must be a group, got %s", w, type_name(e));
            continue;
        }
        dam_lever *l = &out->v[out->n++];
        load_lever(L, e, l, w, cat);
        dam_assumptions_add(&s->assume, l);
        for (int j = 0; j < out->n - 1; j++)
            if (l->name[0] && strcmp(out->v[j].name, l->name) == 0)
                dam_diag_error(L->d, L->file, l->line,
                               "duplicate lever name \"%s\" (first defined at "
                               "line %d)",
                               l->name, out->v[j].line);
    }
}

/* ---- overrides (sweep points) ------------------------------------------ */

/* Parse v as a whole number (C syntax, no trailing text); 1 on success. */
static int text_int(const char *v, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno)
        return 0;
    *out = x;
    return 1;
}

/* Parse v as a finite number; 1 on success. */
static int text_num(const char *v, double *out)
{
    char *end;
    double x = dam_decimal(v, &end);
    if (!*v || *end || !isfinite(x))
        return 0;
    *out = x;
    return 1;
}

/* Parse v as a boolean word; 1 on success. */
static int text_bool(const char *v, int *out)
{
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = 1, 1;
        if (strcasecmp(v, no[i]) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* The libconfig type v reads as on its own. */
static int type_of_text(const char *v)
{
    long long i;
    double x;
    int b;
    if (text_int(v, &i))
        return (i >= INT32_MIN && i <= INT32_MAX) ? CONFIG_TYPE_INT
                                                  : CONFIG_TYPE_INT64;
    if (text_num(v, &x))
        return CONFIG_TYPE_FLOAT;
    if (text_bool(v, &b))
        return CONFIG_TYPE_BOOL;
    return CONFIG_TYPE_STRING;
}

/* Store v into scalar setting s of type t; 0 when v does not read as t. */
static int set_scalar(config_setting_t *s, int t, const char *v)
{
    long long i;
    double x;
    int b;
    switch (t) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        return text_int(v, &i) && config_setting_set_int64(s, i);
    case CONFIG_TYPE_FLOAT:
        return text_num(v, &x) && config_setting_set_float(s, x);
    case CONFIG_TYPE_BOOL:
        return text_bool(v, &b) && config_setting_set_bool(s, b);
    default:
        return config_setting_set_string(s, v) == CONFIG_TRUE;
    }
}

/*
 * Apply one override to the tree. The file's type wins where the value
 * reads as it (so "8" stays an integer and "2.5" for an integer key is
 * reported by the schema as a float); otherwise the setting is replaced by
 * one of the value's own type and the schema reports what it expected.
 */
static void apply_override(config_t *cfg, const char *path,
                           const dam_setting *o, dam_diag *d)
{
    char key[256];
    if (!o->key || !o->key[0] || strlen(o->key) >= sizeof key) {
        dam_diag_error(d, path, 0, "cannot set an empty or over-long key");
        return;
    }
    snprintf(key, sizeof key, "%s", o->key);
    config_setting_t *g = config_root_setting(cfg);
    char *name = key;
    for (char *dot; (dot = strchr(name, '.')) != NULL; name = dot + 1) {
        *dot = '\0';
        config_setting_t *c = config_setting_get_member(g, name);
        if (!c)
            c = config_setting_add(g, name, CONFIG_TYPE_GROUP);
        if (!c || config_setting_type(c) != CONFIG_TYPE_GROUP) {
            dam_diag_error(d, path, line_of(c),
                           "cannot set '%s': '%s' is not a group", o->key,
                           name);
            return;
        }
        g = c;
    }
    config_setting_t *s = config_setting_get_member(g, name);
    if (s && config_setting_is_scalar(s) &&
        set_scalar(s, config_setting_type(s), o->value))
        return;
    int line = line_of(s);
    if (s)
        config_setting_remove(g, name);
    int t = type_of_text(o->value);
    s = config_setting_add(g, name, t);
    if (!s || !set_scalar(s, t, o->value)) {
        dam_diag_error(d, path, line, "cannot set '%s' to \"%s\"", o->key,
                       o->value);
        return;
    }
    /* keep the replaced value's line for messages */
    s->line = (unsigned int)line;
}

/* scenario.deadline_days: the run time a training question asks to meet.
 * A goal, not an input: one number, never a distribution. */
static void load_deadline(ld *L, const config_setting_t *sc, dam_scenario *s)
{
    config_setting_t *dl = member(L, sc, "deadline_days", "scenario", 0);
    if (!dl)
        return;
    if (config_setting_type(dl) == CONFIG_TYPE_GROUP) {
        dam_diag_error(L->d, AT(dl), "'scenario.deadline_days' must be a "
                                     "number (a goal, not an uncertain "
                                     "input)");
        return;
    }
    if (get_num(L, sc, "deadline_days", "scenario", 0, R_POS, 86400.0,
                &s->deadline) &&
        s->mode != DAM_MODE_TRAINING) {
        dam_diag_error(L->d, AT(dl), "'scenario.deadline_days' is for "
                                     "training scenarios (the time the run "
                                     "must finish in)");
        s->deadline = 0.0;
    }
}

/* scenario.about names "baseline" or one of the scenario's levers. */
static void check_about(ld *L, const config_setting_t *sc,
                        const dam_scenario *s, const dam_lever_list *lv)
{
    if (!s->about[0] || strcmp(s->about, "baseline") == 0)
        return;
    const char *names[DAM_MAX_LEVERS + 2];
    int n = 0;
    names[n++] = "baseline";
    for (int i = 0; i < lv->n; i++) {
        if (strcmp(lv->v[i].name, s->about) == 0)
            return;
        names[n++] = lv->v[i].name;
    }
    names[n] = NULL;
    const char *near = dam_suggest_list(s->about, names);
    dam_diag_error(L->d, AT(member(L, sc, "about", "scenario", 0)),
                   "'scenario.about' names \"%s\", which is neither "
                   "\"baseline\" nor one of the levers%s%s%s", s->about,
                   near ? " (did you mean '" : "", near ? near : "",
                   near ? "'?)" : "");
}

/* A uniform distribution of mean m and coefficient of variation cv spans
 * m (1 +- sqrt(3) cv): above 1/sqrt(3) it would go below zero. */
static void uniform_cv(ld *L, const config_setting_t *g, const char *where,
                       dam_dist_kind kind, double cv, const char *cv_key)
{
    if (kind != DAM_DIST_UNIFORM || !(cv > 1.0 / sqrt(3.0) + 1e-12))
        return;
    dam_diag_error(L->d, AT(member(L, g, cv_key, "", 0)),
                   "'%s.%s' is %g, but a uniform distribution allows at most "
                   "0.577 (1/sqrt(3)): its values would go below zero",
                   where, cv_key, cv);
}
/*
 * What the solvers would refuse, found here so that `damsim check` refuses
 * it too, with the key's file and line (every check the simulators make
 * on their input has its twin here).
 */
static void cross_checks(ld *L, const config_setting_t *root,
                         const dam_scenario *s)
{
    const config_setting_t *d = config_setting_get_member(root, "data");
    const config_setting_t *w = config_setting_get_member(root, "workload");
    const config_setting_t *v = config_setting_get_member(root, "serving");
    const config_setting_t *p = config_setting_get_member(root, "pipeline");
    if (d)
        uniform_cv(L, d, "data", s->data.decode_dist, s->data.decode_cv,
                   "decode_cv");
    if (v) {
        uniform_cv(L, v, "serving", s->serving.preprocess_dist,
                   s->serving.preprocess_cv, "preprocess_cv");
        if (w)
            uniform_cv(L, w, "workload", s->serving.compute_dist,
                       s->workload.compute_cv, "compute_cv");
    }
    if (s->mode == DAM_MODE_TRAINING && dam_scenario_gpus(s) > 1 &&
        s->pipeline.bucket_bytes > 0.0) {
        double nb = ceil(dam_scenario_grad_bytes(s) / s->pipeline.bucket_bytes);
        if (nb > DAM_MAX_BUCKETS) {
            const config_setting_t *at =
                p ? config_setting_get_member(p, "bucket_mb") : NULL;
            dam_diag_error(L->d, AT(at ? at : p),
                           "%.3g gradient buckets per step (%.3g bytes of "
                           "gradients in buckets of %.3g MB); damsim "
                           "simulates at most %d: raise 'pipeline.bucket_mb'",
                           nb, dam_scenario_grad_bytes(s),
                           s->pipeline.bucket_bytes / MB, DAM_MAX_BUCKETS);
        }
    }
}

int dam_scenario_load(dam_scenario *s, const char *path, const char *text,
                      dam_catalog *cat, dam_diag *d)
{
    return dam_scenario_load_with(s, path, text, cat, NULL, d);
}

int dam_scenario_load_with(dam_scenario *s, const char *path,
                           const char *text, dam_catalog *cat,
                           const dam_load_options *opt, dam_diag *d)
{
    config_t cfg;
    defaults(s);
    snprintf(s->file, sizeof s->file, "%s", path);
    if (opt && opt->levers)
        opt->levers->n = 0;
    char dir[4096];
    if (read_config(&cfg, path, text, dir, sizeof dir, d) != DAM_OK)
        return DAM_EINPUT;
    ld L = {d, path, s};
    int before = d->nerr;
    for (int i = 0; opt && i < opt->noverrides; i++)
        apply_override(&cfg, path, &opt->overrides[i], d);
    const config_setting_t *root = config_root_setting(&cfg);
    check_keys(&L, root, top_keys, "");

    config_setting_t *sc = group(&L, root, "scenario", "", 1);
    if (sc) {
        check_keys(&L, sc, scen_keys, "scenario");
        get_str(&L, sc, "name", "scenario", 1, s->name, sizeof s->name);
        get_str(&L, sc, "question", "scenario", 1, s->question,
                sizeof s->question);
        int m = 0;
        get_choice(&L, sc, "mode", "scenario", 1, modes, &m);
        s->mode = (dam_mode)m;
        int seed = 1;
        if (get_int(&L, sc, "seed", "scenario", 0, 0, 2147483647L, &seed))
            s->seed = (unsigned long)seed;
        get_str(&L, sc, "about", "scenario", 0, s->about, sizeof s->about);
        load_deadline(&L, sc, s);
    }
    if (opt && opt->skip_catalogs) {
        config_setting_t *c = group(&L, root, "catalogs", "", 0);
        if (c)
            check_keys(&L, c, cat_keys, "catalogs");
    } else {
        load_catalogs(&L, root, cat);
    }
    load_machine(&L, root, cat, s);
    load_workload(&L, root, cat, s);
    int batchy = s->mode != DAM_MODE_SERVING;
    load_data(&L, root, s, batchy);
    load_pipeline(&L, root, s, batchy);
    if (!batchy) {
        const char *const only_batch[] = {"data", "pipeline"};
        for (int i = 0; i < 2; i++) {
            config_setting_t *x = member(&L, root, only_batch[i], "", 0);
            if (x)
                dam_diag_error(d, path, line_of(x),
                               "'%s' is not used in serving mode (the "
                               "'serving' group describes requests)",
                               only_batch[i]);
        }
    }
    load_parallel(&L, root, s);
    load_serving(&L, root, s);
    load_llm(&L, root, s);
    load_quality_cost(&L, root, s);
    dam_lever_list *lv = opt && opt->levers ? opt->levers
                                            : dam_malloc(sizeof *lv);
    lv->n = 0;
    load_levers(&L, root, cat, s, lv);
    check_about(&L, sc, s, lv);
    cross_checks(&L, root, s);
    if (!(opt && opt->levers))
        dam_free(lv);
    config_destroy(&cfg);
    return d->nerr > before ? DAM_EINPUT : DAM_OK;
}

/* ---- points (mode "points") -------------------------------------------- */

int dam_points_probe(const char *path, const char *text)
{
    config_t cfg;
    char dir[4096];
    if (!read_config_quietly(&cfg, path, text, dir, sizeof dir))
        return 0;
    const char *mode = NULL;
    int is =
             config_lookup_string(&cfg, "scenario.mode", &mode) ==
                 CONFIG_TRUE &&
             strcmp(mode, "points") == 0;
    config_destroy(&cfg);
    return is;
}

static const char *const points_top[] = {"scenario", "quality", "cost",
                                         "points", NULL};
static const char *const points_scen[] = {"name", "question", "mode", NULL};
static const char *const points_quality[] = {"metric", "higher_is_better",
                                             NULL};
static const char *const points_cost[] = {"unit", NULL};
static const char *const point_keys[] = {"name", "quality", "cost", NULL};

int dam_points_load(dam_points *p, const char *path, const char *text,
                    dam_diag *d)
{
    config_t cfg;
    memset(p, 0, sizeof *p);
    snprintf(p->file, sizeof p->file, "%s", path);
    p->higher_is_better = 1;
    snprintf(p->cost_unit, sizeof p->cost_unit, "units");
    char dir[4096];
    if (read_config(&cfg, path, text, dir, sizeof dir, d) != DAM_OK)
        return DAM_EINPUT;
    ld L = {d, path, NULL};
    int before = d->nerr;
    const config_setting_t *root = config_root_setting(&cfg);
    check_keys(&L, root, points_top, "");
    config_setting_t *sc = group(&L, root, "scenario", "", 1);
    if (sc) {
        check_keys(&L, sc, points_scen, "scenario");
        get_str(&L, sc, "name", "scenario", 1, p->name, sizeof p->name);
        get_str(&L, sc, "question", "scenario", 1, p->question,
                sizeof p->question);
    }
    config_setting_t *q = group(&L, root, "quality", "", 1);
    if (q) {
        check_keys(&L, q, points_quality, "quality");
        get_str(&L, q, "metric", "quality", 1, p->metric, sizeof p->metric);
        get_bool(&L, q, "higher_is_better", "quality", 0,
                 &p->higher_is_better);
    }
    config_setting_t *c = group(&L, root, "cost", "", 0);
    if (c) {
        check_keys(&L, c, points_cost, "cost");
        get_str(&L, c, "unit", "cost", 0, p->cost_unit, sizeof p->cost_unit);
    }
    config_setting_t *lst = member(&L, root, "points", "", 1);
    if (lst && !config_setting_is_list(lst)) {
        dam_diag_error(d, path, line_of(lst),
                       "'points' must be a list ( {...}, ... ), got %s",
                       type_name(lst));
        lst = NULL;
    }
    int n = lst ? config_setting_length(lst) : 0;
    if (lst && (n < 2 || n > DAM_MAX_POINTS))
        dam_diag_error(d, path, line_of(lst),
                       "'points' holds %d points; return on compute needs 2 "
                       "to %d", n, DAM_MAX_POINTS);
    for (int i = 0; lst && i < n && i < DAM_MAX_POINTS; i++) {
        config_setting_t *e = config_setting_get_elem(lst, (unsigned)i);
        char w[32];
        snprintf(w, sizeof w, "points[%d]", i);
        if (!config_setting_is_group(e)) {
            dam_diag_error(d, path, line_of(e), "'%s' must be a group { "
                           "name; quality; cost; }, got %s", w, type_name(e));
            continue;
        }
        dam_quality_point *pt = &p->pts[p->n];
        check_keys(&L, e, point_keys, w);
        get_str(&L, e, "name", w, 1, pt->label, sizeof pt->label);
        get_num(&L, e, "quality", w, 1, R_ANY, 1.0, &pt->quality);
        get_num(&L, e, "cost", w, 1, R_NONNEG, 1.0, &pt->cost);
        p->line[p->n] = line_of(e);
        for (size_t j = 0; j < p->n; j++)
            if (pt->label[0] && strcmp(p->pts[j].label, pt->label) == 0)
                dam_diag_error(d, path, line_of(e),
                               "duplicate point name \"%s\" (first defined "
                               "at line %d)", pt->label, p->line[j]);
        p->n++;
    }
    config_destroy(&cfg);
    return d->nerr > before ? DAM_EINPUT : DAM_OK;
}

/* ---- a file's settings, as written ------------------------------------ */

/* A number as a person writes it in a scenario: "20", "0.005", "2e9"
 * (printf's "2e+09" without the plus and the leading zero). */
static void float_text(char *buf, size_t n, double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.6g", v);
    char *e = strchr(t, 'e');
    if (e) {
        char *p = e + 1, *q = p;
        if (*q == '+')
            q++;
        else if (*q == '-')
            *p++ = *q++;
        while (*q == '0' && q[1])
            q++;
        memmove(p, q, strlen(q) + 1);
    }
    snprintf(buf, n, "%s", t);
}

/* Append "key = value" for setting st (and, for groups and lists, its
 * children) to the list. */
static void flatten_setting(config_setting_t *st, const char *prefix,
                            dam_setting **out, int *n, size_t *cap)
{
    char key[256], val[256];
    const char *name = config_setting_name(st);
    if (name)
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", name);
    else
        snprintf(key, sizeof key, "%s.%d", prefix, config_setting_index(st));
    int type = config_setting_type(st);
    if (type == CONFIG_TYPE_GROUP || type == CONFIG_TYPE_LIST) {
        for (int i = 0; i < config_setting_length(st); i++)
            flatten_setting(config_setting_get_elem(st, (unsigned)i), key, out,
                            n, cap);
        return;
    }
    switch (type) {
    case CONFIG_TYPE_INT:
        snprintf(val, sizeof val, "%d", config_setting_get_int(st));
        break;
    case CONFIG_TYPE_INT64:
        snprintf(val, sizeof val, "%lld", config_setting_get_int64(st));
        break;
    case CONFIG_TYPE_FLOAT:
        float_text(val, sizeof val, config_setting_get_float(st));
        break;
    case CONFIG_TYPE_BOOL:
        snprintf(val, sizeof val, "%s",
                 config_setting_get_bool(st) ? "true" : "false");
        break;
    case CONFIG_TYPE_STRING:
        snprintf(val, sizeof val, "%s", config_setting_get_string(st));
        break;
    case CONFIG_TYPE_ARRAY: {
        size_t len = 0;
        val[0] = '\0';
        for (int i = 0; i < config_setting_length(st) && len < sizeof val;
             i++) {
            config_setting_t *e = config_setting_get_elem(st, (unsigned)i);
            char one[64];
            if (config_setting_type(e) == CONFIG_TYPE_STRING)
                snprintf(one, sizeof one, "%s", config_setting_get_string(e));
            else if (config_setting_type(e) == CONFIG_TYPE_FLOAT)
                float_text(one, sizeof one, config_setting_get_float(e));
            else
                snprintf(one, sizeof one, "%lld",
                         config_setting_get_int64(e));
            len += (size_t)snprintf(val + len, sizeof val - len, "%s%s",
                                    i ? ", " : "[", one);
        }
        if (len < sizeof val)
            snprintf(val + len, sizeof val - len, "]");
        break;
    }
    default:
        val[0] = '\0';
    }
    *out = dam_grow(*out, sizeof **out, (size_t)*n + 1, cap);
    (*out)[*n].key = dam_strdup(key);
    (*out)[*n].value = dam_strdup(val);
    (*n)++;
}

int dam_scenario_settings(const char *path, const char *text,
                          dam_setting **out)
{
    config_t cfg;
    char dir[4096];
    *out = NULL;
    if (!read_config_quietly(&cfg, path, text, dir, sizeof dir))
        return -1;
    int n = 0;
    size_t cap = 0;
    config_setting_t *root = config_root_setting(&cfg);
    for (int i = 0; i < config_setting_length(root); i++)
        flatten_setting(config_setting_get_elem(root, (unsigned)i), "", out,
                        &n, &cap);
    config_destroy(&cfg);
    return n;
}

void dam_settings_free(dam_setting *s, int n)
{
    for (int i = 0; i < n; i++) {
        dam_free((void *)s[i].key);
        dam_free((void *)s[i].value);
    }
    dam_free(s);
}
