/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * load.c: reading one value of a libconfig file, and the walker over a
 * group's table (load.h, schema.h). Numbers: an int or a float, in the
 * key's range class and within its documented limits, or in a scenario a
 * distribution whose support lies inside them; the value times the key's
 * scale (SI) is stored.
 */
#include "model/load.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/suggest.h"

int dam_ld_line(const config_setting_t *s)
{
    return s ? (int)config_setting_source_line(s) : 0;
}

/* The file setting s was read from: an @include'd file's own name, else
 * the file being loaded. */
const char *dam_ld_file(const ld *L, const config_setting_t *s)
{
    const char *f = s ? config_setting_source_file(s) : NULL;
    return f && *f ? f : L->file;
}

const char *dam_ld_type_name(const config_setting_t *s)
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
void dam_ld_path_join(char *buf, size_t n, const char *where, const char *key)
{
    if (where && where[0])
        snprintf(buf, n, "%s.%s", where, key);
    else
        snprintf(buf, n, "%s", key);
}

/* Report keys of group g not in allowed (NULL-terminated), with the one
 * "did you mean" rule (model/suggest.h). */
void dam_ld_check_keys(ld *L, const config_setting_t *g,
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
        dam_ld_path_join(full, sizeof full, where, name);
        const char *best = dam_suggest_list(name, allowed);
        if (best)
            dam_diag_error(L->d, AT(c),
                           "unknown key '%s' (did you mean '%s'?)", full, best);
        else
            dam_diag_error(L->d, AT(c), "unknown key '%s'", full);
    }
}

/* The member key of g; reports a missing required key at g's line. */
config_setting_t *dam_ld_member(ld *L, const config_setting_t *g,
                                const char *key, const char *where,
                                int required)
{
    config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
    if (!s && required) {
        char full[160];
        dam_ld_path_join(full, sizeof full, where, key);
        dam_diag_error(L->d, AT(g), "missing required key '%s'",
                       full);
    }
    return s;
}

/* A group member (or NULL); reports a wrong type. */
config_setting_t *dam_ld_group(ld *L, const config_setting_t *g,
                               const char *key, const char *where,
                               int required)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (s && !config_setting_is_group(s)) {
        char full[160];
        dam_ld_path_join(full, sizeof full, where, key);
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

/* The documented limits of key (a full path), or NULL when it has none. */
static const dam_key_row *limit_of(const char *key)
{
    const dam_key_row *k = dam_schema_key(key);
    return k && (k->flags & DAM_KEY_LIMIT) ? k : NULL;
}

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
    const dam_key_row *lim = limit_of(full);
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
int dam_ld_num(ld *L, const config_setting_t *g, const char *key,
               const char *where, int required, range r, double scale,
               double *out)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    char full[160];
    dam_ld_path_join(full, sizeof full, where, key);
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
    const dam_key_row *lim = limit_of(full);
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
int dam_ld_int(ld *L, const config_setting_t *g, const char *key,
               const char *where, int required, long lo, long hi, int *out)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    char full[160];
    dam_ld_path_join(full, sizeof full, where, key);
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

int dam_ld_bool(ld *L, const config_setting_t *g, const char *key,
                const char *where, int required, int *out)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
        char full[160];
        dam_ld_path_join(full, sizeof full, where, key);
        dam_diag_error(L->d, AT(s),
                       "'%s' must be true or false, got %s", full,
                       type_name(s));
        return 0;
    }
    *out = config_setting_get_bool(s);
    return 1;
}

int dam_ld_str(ld *L, const config_setting_t *g, const char *key,
               const char *where, int required, char *out, size_t n)
{
    config_setting_t *s = member(L, g, key, where, required);
    if (!s)
        return 0;
    char full[160];
    dam_ld_path_join(full, sizeof full, where, key);
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
int dam_ld_choice(ld *L, const config_setting_t *g, const char *key,
                  const char *where, int required, const char *const *names,
                  int *out)
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
    dam_ld_path_join(full, sizeof full, where, key);
    for (int i = 0; names[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    dam_diag_error(L->d, AT(member(L, g, key, where, 0)),
                   "'%s' must be one of %s, got \"%s\"", full, list,
                   dam_error_quote(v, 32, q, sizeof q));
    return 0;
}
config_setting_t *dam_ld_list_group(ld *L, const config_setting_t *list,
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

config_setting_t *dam_ld_subgroup(ld *L, const config_setting_t *g,
                                  const char *key, const char *where,
                                  char *path, size_t n)
{
    config_setting_t *s = group(L, g, key, where, 0);
    if (s)
        path_join(path, n, where, key);
    return s;
}

const config_setting_t *dam_ld_begin(ld *L, config_t *cfg, const char *path,
                                     const char *text, dam_diag *d,
                                     dam_scenario *scen)
{
    if (read_config(cfg, path, text, L->dir, sizeof L->dir, d) != DAM_OK)
        return NULL;
    L->d = d;
    L->file = path;
    L->scen = scen;
    L->before = d->nerr;
    return config_root_setting(cfg);
}

/* ---- the walker over a group's table ------------------------------------ */

int dam_load_key(ld *L, const config_setting_t *g, const char *where,
                 const dam_key_row *k, int required, void *out)
{
    int req = required >= 0 ? required : (k->flags & DAM_KEY_REQUIRED) != 0;
    double scale = k->scale > 0.0 ? k->scale : 1.0;
    switch (k->type) {
    case DAM_KEY_INT:
        return get_int(L, g, k->name, where, req, (long)k->lo, (long)k->hi,
                       out);
    case DAM_KEY_NUM:
        return get_num(L, g, k->name, where, req, k->cls, scale, out);
    case DAM_KEY_BOOL:
        return get_bool(L, g, k->name, where, req, out);
    case DAM_KEY_CHOICE:
        return get_choice(L, g, k->name, where, req, k->choices, out);
    case DAM_KEY_TEXT:
        return get_str(L, g, k->name, where, req, out, k->size);
    case DAM_KEY_GROUP:
        return group(L, g, k->name, where, req) != NULL;
    }
    return 0;
}

void dam_load_check(ld *L, const config_setting_t *g, const dam_key_group *t)
{
    /* the allowed keys are the rows, in their order (ties of "did you
     * mean" go to the earlier row) */
    const char *allowed[65];
    size_t n = t->nkeys < 64 ? t->nkeys : 64;
    for (size_t i = 0; i < n; i++)
        allowed[i] = t->keys[i].name;
    allowed[n] = NULL;
    check_keys(L, g, allowed, t->path);
}

uint64_t dam_load_rows(ld *L, const config_setting_t *g,
                       const dam_key_group *t, dam_load_hook hook, void *ctx)
{
    uint64_t got = 0;
    for (size_t i = 0; i < t->nkeys && i < 64; i++) {
        const dam_key_row *k = &t->keys[i];
        int ok;
        if (k->flags & DAM_KEY_CUSTOM) {
            if (hook)
                hook(L, g, k, ctx);
            ok = config_setting_get_member(g, k->name) != NULL;
        } else {
            ok = dam_load_key(L, g, t->path, k, -1,
                              (char *)L->scen + k->offset);
        }
        if (ok)
            got |= (uint64_t)1 << i;
    }
    return got;
}

uint64_t dam_load_group(ld *L, const config_setting_t *g,
                        const dam_key_group *t, dam_load_hook hook, void *ctx)
{
    dam_load_check(L, g, t);
    return dam_load_rows(L, g, t, hook, ctx);
}

int dam_load_named(ld *L, const config_setting_t *g, const dam_key_group *t,
                   const char *name, int required, void *out)
{
    const dam_key_row *k = dam_key_find(t, name);
    return k ? dam_load_key(L, g, t->path, k, required, out) : 0;
}

uint64_t dam_load_bit(const dam_key_group *t, const char *name)
{
    for (size_t i = 0; i < t->nkeys && i < 64; i++)
        if (strcmp(t->keys[i].name, name) == 0)
            return (uint64_t)1 << i;
    return 0;
}
