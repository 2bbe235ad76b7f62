/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever.c: the lever table and what reads it: the lookups, setting keys
 * (the loader's typed values and the command line's text), applying
 * levers, and the help text (see lever.h for what each op moves, its
 * defaults and their sources).
 *
 * Design notes. The types are defined by family, each with its keys, its
 * apply function and its "can" refinement: lever_data.c, lever_algorithm.c,
 * lever_machine.c and lever_llm.c, over the helpers they share
 * (lever_common.c, lever_impl.h); the table below lists them, as GSL's
 * rng types are each defined in their own file and listed in one table.
 * A type's row is the only place it or its keys are spelled: each key
 * carries its field's offset in dam_lever_op, its value type, unit and
 * range, so one setter serves the scenario loader (typed values) and the
 * command line (text), and ranges are checked once. dam_lever_apply copies
 * the input into a heap scratch scenario, applies the ops there, and
 * copies the scratch to out only on success, so a failing lever leaves out
 * as it was and in is never written (out may alias in). Each op is one
 * static apply function; they share a context that formats "lever 'NAME':
 * ..." errors (dam_lever_fail). Nothing here prints.
 */
#include "model/lever_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/schema.h"

/* A boolean word (schema.h); 0 on success, -1 when it is none. */
static int parse_bool(const char *s, int *out)
{
    return dam_key_parse_bool(s, out) ? 0 : -1;
}

/* ---- the table ------------------------------------------------------------ */

/* The types by kind, each defined in its family's file. */
static const dam_lever_type *const types[DAM_LEVER_KIND_COUNT] = {
    [DAM_LEVER_GPU] = &dam_lever_gpu_type,
    [DAM_LEVER_QUANTIZE] = &dam_lever_quantize_type,
    [DAM_LEVER_PRUNE] = &dam_lever_prune_type,
    [DAM_LEVER_PREFETCH] = &dam_lever_prefetch_type,
    [DAM_LEVER_CHINCHILLA] = &dam_lever_chinchilla_type,
    [DAM_LEVER_PRECISION] = &dam_lever_precision_type,
    [DAM_LEVER_FUSE] = &dam_lever_fuse_type,
    [DAM_LEVER_CUDA_GRAPHS] = &dam_lever_cuda_graphs_type,
    [DAM_LEVER_DATA_FORMAT] = &dam_lever_data_format_type,
    [DAM_LEVER_BATCH_SIZE] = &dam_lever_batch_size_type,
    [DAM_LEVER_DISTILL] = &dam_lever_distill_type,
    [DAM_LEVER_SERVING] = &dam_lever_serving_type,
    [DAM_LEVER_LAYOUT] = &dam_lever_layout_type,
    [DAM_LEVER_NETWORK] = &dam_lever_network_type,
    [DAM_LEVER_WEIGHTS] = &dam_lever_weights_type,
    [DAM_LEVER_KV_CACHE] = &dam_lever_kv_cache_type,
    [DAM_LEVER_TENSOR_PARALLEL] = &dam_lever_tensor_parallel_type,
    [DAM_LEVER_SCHEDULER] = &dam_lever_scheduler_type,
    [DAM_LEVER_DISAGGREGATE] = &dam_lever_disaggregate_type,
};

const dam_lever_type *dam_lever_type_get(dam_lever_kind k)
{
    return (unsigned)k < DAM_LEVER_KIND_COUNT ? types[k] : NULL;
}

const char *dam_lever_kind_name(dam_lever_kind k)
{
    const dam_lever_type *t = dam_lever_type_get(k);
    return t ? t->name : "?";
}

const dam_lever_type *dam_lever_type_find(const char *name)
{
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++)
        if (strcmp(types[i]->name, name) == 0)
            return types[i];
    return NULL;
}

int dam_lever_key_owners(const char *name, const dam_lever_type **out,
                         int max)
{
    int n = 0;
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++)
        if (dam_lever_key_find(types[i], name)) {
            if (n < max)
                out[n] = types[i];
            n++;
        }
    return n;
}

/* The i-th name of types and keys together (types first). */
static const char *member_name(const void *ctx_, size_t i)
{
    if (i < DAM_LEVER_KIND_COUNT)
        return types[i]->name;
    i -= DAM_LEVER_KIND_COUNT;
    for (int t = 0; t < DAM_LEVER_KIND_COUNT; t++) {
        if (i < types[t]->nkeys)
            return types[t]->keys[i].name;
        i -= types[t]->nkeys;
    }
    return NULL;
}

static const char *key_name(const void *t, size_t i)
{
    return ((const dam_lever_type *)t)->keys[i].name;
}

const char *dam_lever_suggest_key(const dam_lever_type *t, const char *name)
{
    return dam_suggest(name, key_name, t, t->nkeys);
}

const char *dam_lever_suggest(const char *name)
{
    size_t n = DAM_LEVER_KIND_COUNT;
    for (int t = 0; t < DAM_LEVER_KIND_COUNT; t++)
        n += types[t]->nkeys;
    return dam_suggest(name, member_name, NULL, n);
}

/* "training and inference" from a mode set. */
static void modes_text(unsigned modes, char *buf, size_t n)
{
    const char *names[3];
    int k = 0;
    for (int m = 0; m < 3; m++)
        if (modes & DAM_MODE_BIT(m))
            names[k++] = dam_mode_name((dam_mode)m);
    if (k == 3)
        snprintf(buf, n, "every mode");
    else if (k == 2)
        snprintf(buf, n, "%s and %s", names[0], names[1]);
    else if (k == 1)
        snprintf(buf, n, "%s", names[0]);
    else
        snprintf(buf, n, "no mode");
}

int dam_lever_valid_mode(const dam_lever_type *t, const dam_scenario *s,
                         char *why, size_t n)
{
    if (t->modes & DAM_MODE_BIT(s->mode))
        return 1;
    char m[48];
    modes_text(t->modes, m, sizeof m);
    snprintf(why, n, "%s applies to %s scenarios, but the mode is '%s'",
             t->name, m, dam_mode_name(s->mode));
    return 0;
}

int dam_lever_can_move(const dam_lever_type *t, const dam_scenario *s,
                       dam_bound b)
{
    if (!(t->modes & DAM_MODE_BIT(s->mode)))
        return 0;
    if (t->relieves & DAM_BOUND_BIT(b))
        return t->can ? t->can(s, b) : 1;
    if (t->depends & DAM_BOUND_BIT(b))
        return -1;
    return 0;
}

/* ---- setting keys ----------------------------------------------------------- */

void dam_lever_op_start(dam_lever_op *op, const dam_lever_type *t)
{
    dam_lever_op_init(op, t->kind);
}

void dam_lever_key_bounds(const dam_lever_key *k, double *lo, double *hi,
                          int *lo_open, int *hi_open)
{
    const dam_key_row *row = k->scenario ? dam_schema_key(k->scenario) : NULL;
    if (row) {
        dam_key_bounds(row, lo, hi, lo_open, hi_open);
        return;
    }
    *lo = k->lo;
    *hi = k->hi;
    *lo_open = k->lo_open;
    *hi_open = k->hi_open;
}

/* "must be a whole number >= 1", "must be in (0, 1)". */
static void range_text(const dam_lever_key *k, char *buf, size_t n)
{
    const char *what = k->type == DAM_LKEY_INT ? "a whole number " : "";
    double l, h;
    int lo_open, hi_open;
    dam_lever_key_bounds(k, &l, &h, &lo_open, &hi_open);
    int lo = isfinite(l), hi = isfinite(h);
    if (lo && hi && k->type == DAM_LKEY_INT)
        snprintf(buf, n, "%sin [%.0f, %.0f]", what, l, h);
    else if (lo && hi)
        snprintf(buf, n, "%sin %c%g, %g%c", what, lo_open ? '(' : '[', l, h,
                 hi_open ? ')' : ']');
    else if (lo)
        snprintf(buf, n, "%s%s %g", what, lo_open ? ">" : ">=", l);
    else if (hi)
        snprintf(buf, n, "%s%s %g", what, hi_open ? "<" : "<=", h);
    else
        snprintf(buf, n, "%sany number", what);
}

static int in_range(const dam_lever_key *k, double v)
{
    double lo, hi;
    int lo_open, hi_open;
    dam_lever_key_bounds(k, &lo, &hi, &lo_open, &hi_open);
    if (!isfinite(v))
        return 0;
    if (isfinite(lo) && (lo_open ? !(v > lo) : !(v >= lo)))
        return 0;
    if (isfinite(hi) && (hi_open ? !(v < hi) : !(v <= hi)))
        return 0;
    return 1;
}

/* Store v into k's field and mark it given. */
static void store(dam_lever_op *op, const dam_lever_type *t,
                  const dam_lever_key *k, double num, int ival,
                  const char *text)
{
    char *base = (char *)op;
    switch (k->type) {
    case DAM_LKEY_NUM:
        *(double *)(void *)(base + k->offset) = num * k->scale;
        break;
    case DAM_LKEY_INT:
    case DAM_LKEY_BOOL:
    case DAM_LKEY_CHOICE:
        *(int *)(void *)(base + k->offset) = ival;
        break;
    case DAM_LKEY_TEXT:
        snprintf(base + k->offset, k->size, "%s", text ? text : "");
        break;
    }
    op->set |= 1u << (unsigned)(k - t->keys);
    if (k->offset == offsetof(dam_lever_op, accuracy_delta))
        op->has_accuracy_delta = 1;
}

/* A number for k: range-checked and stored. */
static int set_number(dam_lever_op *op, const dam_lever_type *t,
                      const dam_lever_key *k, double v, int integral,
                      const char *shown, char *why, size_t n)
{
    char r[64];
    range_text(k, r, sizeof r);
    if ((k->type == DAM_LKEY_INT && (!integral || v != floor(v) ||
                                     fabs(v) > 2147483647.0)) ||
        !in_range(k, v)) {
        snprintf(why, n, "%s (%s) must be %s (got %s)", k->name, k->help, r,
                 shown);
        return -1;
    }
    store(op, t, k, v, k->type == DAM_LKEY_INT ? (int)v : 0, NULL);
    return 0;
}

/* A choice by name, with "did you mean". */
static int set_choice(dam_lever_op *op, const dam_lever_type *t,
                      const dam_lever_key *k, const char *text, char *why,
                      size_t n)
{
    for (int i = 0; k->choices[i]; i++)
        if (strcasecmp(k->choices[i], text) == 0) {
            store(op, t, k, 0.0, i, NULL);
            return 0;
        }
    char list[160] = "";
    size_t used = 0;
    for (int i = 0; k->choices[i] && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 i ? ", " : "", k->choices[i]);
    const char *near = dam_suggest_list(text, k->choices);
    if (near)
        snprintf(why, n, "unknown %s '%s' (did you mean '%s'?)", k->name,
                 text, near);
    else
        snprintf(why, n, "unknown %s '%s' (expected %s)", k->name, text,
                 list);
    return -1;
}

int dam_lever_set_value(dam_lever_op *op, const dam_lever_type *t,
                        const dam_lever_key *k, const dam_lever_value *v,
                        char *why, size_t n)
{
    char shown[64];
    switch (k->type) {
    case DAM_LKEY_INT:
    case DAM_LKEY_NUM:
        if (v->is != DAM_LVAL_NUM) {
            snprintf(why, n, "%s expects a number (%s)", k->name, k->help);
            return -1;
        }
        snprintf(shown, sizeof shown, "%g", v->num);
        return set_number(op, t, k, v->num,
                          v->integral || k->type == DAM_LKEY_NUM, shown, why,
                          n);
    case DAM_LKEY_BOOL:
        if (v->is != DAM_LVAL_BOOL) {
            snprintf(why, n, "%s expects true or false", k->name);
            return -1;
        }
        store(op, t, k, 0.0, v->boolean ? 1 : 0, NULL);
        return 0;
    case DAM_LKEY_CHOICE:
    case DAM_LKEY_TEXT:
        if (v->is != DAM_LVAL_TEXT) {
            snprintf(why, n, "%s expects a string (%s)", k->name, k->help);
            return -1;
        }
        return dam_lever_set_text(op, t, k, v->text, why, n);
    }
    return -1;
}

int dam_lever_set_text(dam_lever_op *op, const dam_lever_type *t,
                       const dam_lever_key *k, const char *text, char *why,
                       size_t n)
{
    double x;
    int b;
    char shown[80];
    if (!text[0]) {
        snprintf(why, n, "'%s' needs a value", k->name);
        return -1;
    }
    switch (k->type) {
    case DAM_LKEY_INT:
    case DAM_LKEY_NUM:
        snprintf(shown, sizeof shown, "'%.64s'", text);
        if (dam_lever_parse_num(text, &x) != 0) {
            snprintf(why, n, "bad value %s for '%s' (expected a number: %s)",
                     shown, k->name, k->help);
            return -1;
        }
        return set_number(op, t, k, x, 1, shown, why, n);
    case DAM_LKEY_BOOL:
        if (parse_bool(text, &b) != 0) {
            snprintf(why, n, "%s expected 1/0, true/false, yes/no or on/off "
                     "(got '%.64s')", k->name, text);
            return -1;
        }
        store(op, t, k, 0.0, b, NULL);
        return 0;
    case DAM_LKEY_CHOICE:
        return set_choice(op, t, k, text, why, n);
    case DAM_LKEY_TEXT:
        if (strlen(text) >= k->size) {
            snprintf(why, n, "%s '%.40s...' is too long (at most %zu "
                     "characters)", k->name, text, k->size - 1);
            return -1;
        }
        store(op, t, k, 0.0, 0, text);
        return 0;
    }
    return -1;
}

int dam_lever_set_main(dam_lever_op *op, const dam_lever_type *t,
                       const char *text, char *why, size_t n)
{
    if (t->parse_main)
        return t->parse_main(text, op, why, n);
    if (t->main_key < 0) {
        char keys[200] = "";
        size_t used = 0;
        for (size_t i = 0; i < t->nkeys && used < sizeof keys; i++)
            used += (size_t)snprintf(keys + used, sizeof keys - used, "%s%s",
                                     i ? ", " : "", t->keys[i].name);
        snprintf(why, n, "%s has no value of its own: give its keys (%s)",
                 t->name, keys);
        return -1;
    }
    return dam_lever_set_text(op, t, &t->keys[t->main_key], text, why, n);
}

int dam_lever_key_is_set(const dam_lever_op *op, const dam_lever_type *t,
                         const dam_lever_key *k)
{
    return (op->set >> (unsigned)(k - t->keys)) & 1u;
}

/* Was key k given on op (its field off its unset value)? Then *v is the
 * value in written units (NUM, INT, BOOL, CHOICE). */
static int key_given(const dam_lever_key *k, const dam_lever_op *op,
                     double *v)
{
    const char *base = (const char *)op;
    switch (k->type) {
    case DAM_LKEY_NUM:
        *v = *(const double *)(const void *)(base + k->offset) / k->scale;
        if (k->offset == offsetof(dam_lever_op, accuracy_delta))
            return op->has_accuracy_delta;
        return !(*v < 0.0);
    case DAM_LKEY_INT:
    case DAM_LKEY_BOOL:
    case DAM_LKEY_CHOICE:
        *v = *(const int *)(const void *)(base + k->offset);
        return !(*v < 0.0);
    case DAM_LKEY_TEXT:
        *v = 0.0;
        return base[k->offset] != '\0';
    }
    return 0;
}

/* Every given key of op in its range (ops may be built in code, not only
 * by the parsers): 0, or -1 with why. */
static int check_keys(const dam_lever_type *t, const dam_lever_op *op,
                      char *why, size_t n)
{
    for (size_t i = 0; i < t->nkeys; i++) {
        const dam_lever_key *k = &t->keys[i];
        double v;
        if (!key_given(k, op, &v))
            continue;
        int ok = 1;
        if (k->type == DAM_LKEY_BOOL)
            ok = v == 0.0 || v == 1.0;
        else if (k->type == DAM_LKEY_CHOICE) {
            int m = 0;
            while (k->choices[m])
                m++;
            ok = v < m;
        } else if (k->type != DAM_LKEY_TEXT)
            ok = in_range(k, v);
        if (!ok) {
            char r[64];
            if (k->type == DAM_LKEY_BOOL)
                snprintf(r, sizeof r, "0 or 1");
            else if (k->type == DAM_LKEY_CHOICE)
                snprintf(r, sizeof r, "one of its choices");
            else
                range_text(k, r, sizeof r);
            snprintf(why, n, "%s (%s) must be %s (got %g)", k->name, k->help,
                     r, v);
            return -1;
        }
    }
    return 0;
}

/* ---- applying ----------------------------------------------------------------- */

int dam_lever_check(const dam_lever *lever, const char *file,
                    const dam_catalog *cat, dam_error *err)
{
    ctx c = {lever, lever->line > 0 ? file : "", lever->line, err};
    for (int i = 0; i < lever->nops; i++) {
        const dam_lever_op *op = &lever->ops[i];
        if (op->kind != DAM_LEVER_GPU || !op->gpu[0] || !cat)
            continue;
        if (dam_catalog_gpu(cat, op->gpu))
            continue;
        const char *near = dam_catalog_suggest_gpu(cat, op->gpu);
        if (near)
            return dam_lever_fail(&c, "unknown gpu '%s' (did you mean '%s'?)",
                                  op->gpu, near);
        return dam_lever_fail(&c,
                              "unknown gpu '%s' (not in the catalog; 'damsim "
                              "catalog gpus' lists the ids)",
                              op->gpu);
    }
    return DAM_OK;
}

/*
 * The efficiency follows the catalog across GPU and precision changes:
 * when the scenario's eta is the calibrated value of its model on its GPU
 * at its precision, it becomes the calibrated value on the new GPU or
 * precision (data/models.cfg `efficiency`, `gpu_efficiency`); when there
 * is none there, the old value is kept and workload.eta_carried says so.
 * An eta the scenario set itself is kept.
 */
static void follow_eta(dam_scenario *s, double before, const char *gpu,
                       dam_precision prec)
{
    dam_workload *w = &s->workload;
    int from_catalog = before > 0.0 && w->eta == before;
    if (strcmp(gpu, s->machine.gpu.id) == 0 && prec == w->precision)
        return;
    /* the device model follows the GPU and precision by itself */
    if (!w->eta_given)
        return;
    double after = dam_model_eta(&w->model, s->machine.gpu.id, w->precision);
    if (from_catalog && after > 0.0) {
        w->eta = after;
    } else if (from_catalog && w->model.arch.kind != DAM_ARCH_NONE) {
        /* no catalog eta there: the device model takes over */
        w->eta_given = 0;
        w->eta = 0.0;
    } else if (after <= 0.0) {
        w->eta_carried = 1;
    }
}

/* Apply one op: its type's mode check, its apply function, then eta. */
static int apply_op(const ctx *c, const dam_lever_op *op,
                    const dam_catalog *cat, dam_scenario *s)
{
    const dam_lever_type *t = dam_lever_type_get(op->kind);
    char why[160];
    if (!t)
        return dam_lever_fail(c, "unknown lever kind %d", (int)op->kind);
    if (!dam_lever_valid_mode(t, s, why, sizeof why) ||
        check_keys(t, op, why, sizeof why) != 0)
        return dam_lever_fail(c, "%s", why);
    dam_workload *w = &s->workload;
    double before = dam_model_eta(&w->model, s->machine.gpu.id, w->precision);
    char gpu[DAM_ID_MAX];
    snprintf(gpu, sizeof gpu, "%s", s->machine.gpu.id);
    dam_precision prec = w->precision;
    int rc = t->apply(c, op, cat, s);
    if (rc == DAM_OK)
        follow_eta(s, before, gpu, prec);
    /* a changed model or recomputation: the graph follows */
    if (rc == DAM_OK && w->model.arch.kind != DAM_ARCH_NONE &&
        dam_scenario_graph_stale(s)) {
        dam_error e;
        if (dam_scenario_build_graph(s, &e) != DAM_OK)
            return dam_lever_fail(c, "%s", e.msg);
    }
    if (rc == DAM_OK)
        rc = dam_lever_llm_check(c, s);
    return rc;
}

/* Append name to applied as "a + b", truncating if it must. */
static void append_applied(char *applied, size_t n, const char *name)
{
    size_t used = strlen(applied);
    if (used >= n - 1)
        return;
    snprintf(applied + used, n - used, "%s%s", used ? " + " : "", name);
}

/* Apply one lever to s in place (s is scratch owned by the caller). */
static int apply_in_place(dam_scenario *s, const dam_lever *lever,
                          const dam_catalog *cat, dam_error *err)
{
    ctx c = {lever, lever->line > 0 ? s->file : "", lever->line, err};
    if (lever->nops < 1 || lever->nops > DAM_LEVER_MAX_OPS)
        return dam_lever_fail(&c, "has %d ops (expected 1 to %d)", lever->nops,
                              DAM_LEVER_MAX_OPS);
    for (int i = 0; i < lever->nops; i++) {
        int rc = apply_op(&c, &lever->ops[i], cat, s);
        if (rc != DAM_OK)
            return rc;
    }
    const char *name = lever->name[0] ? lever->name
                                      : dam_lever_kind_name(lever->ops[0].kind);
    append_applied(s->applied, sizeof s->applied, name);
    return DAM_OK;
}

int dam_levers_apply_all(const dam_scenario *in, const dam_lever *levers,
                         int n, const dam_catalog *cat, dam_scenario *out,
                         dam_error *err)
{
    dam_scenario *tmp = dam_malloc(sizeof *tmp);
    int rc = DAM_OK;
    *tmp = *in;
    for (int i = 0; i < n && rc == DAM_OK; i++)
        rc = apply_in_place(tmp, &levers[i], cat, err);
    if (rc == DAM_OK)
        *out = *tmp;
    dam_free(tmp);
    return rc;
}

int dam_lever_apply(const dam_scenario *in, const dam_lever *lever,
                    const dam_catalog *cat, dam_scenario *out,
                    dam_error *err)
{
    return dam_levers_apply_all(in, lever, 1, cat, out, err);
}

/* ---- the command line --------------------------------------------------------- */

/* "quantize, precision, prune or distill" */
static void owners_text(const dam_lever_type *const *o, int n, char *buf,
                        size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : i + 1 == n ? " or " : ", ",
                                 o[i]->name);
}

int dam_lever_parse_kv(const char *kv, dam_lever *lever, dam_error *err)
{
    char buf[256], why[400];

    memset(lever, 0, sizeof *lever);
    if (!kv || !kv[0])
        return dam_error_set(err, "", 0, "lever: empty (expected key=value)");
    if (strlen(kv) >= sizeof buf)
        return dam_error_set(err, "", 0, "lever: '%.40s...' is too long "
                             "(at most %zu characters)", kv, sizeof buf - 1);
    strcpy(buf, kv);
    char *opts = strchr(buf, ',');
    if (opts)
        *opts++ = '\0';
    char *eq = strchr(buf, '=');
    if (!eq)
        return dam_error_set(err, "", 0, "lever '%s': expected key=value",
                             kv);
    *eq = '\0';
    const char *key = buf, *val = eq + 1;

    const dam_lever_type *t = dam_lever_type_find(key);
    const dam_lever_key *k = NULL;
    if (!t) {
        const dam_lever_type *o[DAM_LEVER_KIND_COUNT];
        int no = dam_lever_key_owners(key, o, DAM_LEVER_KIND_COUNT);
        if (no == 0) {
            const char *near = dam_lever_suggest(key);
            if (near)
                return dam_error_set(err, "", 0, "lever '%s': unknown key "
                                     "'%s' (did you mean '%s'?)", kv, key,
                                     near);
            return dam_error_set(err, "", 0, "lever '%s': unknown key '%s' "
                                 "(see 'damsim whatif --help')", kv, key);
        }
        if (no > 1) {
            owners_text(o, no, why, sizeof why);
            return dam_error_set(err, "", 0, "lever '%s': '%s' is a key of "
                                 "%s: name the lever first (e.g. %s=...,%s=%s)",
                                 kv, key, why, o[0]->name, key, val);
        }
        t = o[0];
        k = dam_lever_key_find(t, key);
    }

    /* The name is the string itself, cut to fit. */
    size_t nl = strlen(kv);
    if (nl >= sizeof lever->name)
        nl = sizeof lever->name - 1;
    memcpy(lever->name, kv, nl);
    lever->name[nl] = '\0';
    lever->nops = 1;
    lever->line = 0;
    dam_lever_op *op = &lever->ops[0];
    dam_lever_op_start(op, t);

    if (!val[0])
        return dam_error_set(err, "", 0, "lever '%s': '%s' needs a value",
                             kv, key);
    int rc = k ? dam_lever_set_text(op, t, k, val, why, sizeof why)
               : dam_lever_set_main(op, t, val, why, sizeof why);
    if (rc != 0)
        return dam_error_set(err, "", 0, "lever '%s': %s", kv, why);
    while (opts) {
        char *next = strchr(opts, ',');
        if (next)
            *next++ = '\0';
        char *oeq = strchr(opts, '=');
        if (!oeq)
            return dam_error_set(err, "", 0, "lever '%s': option '%s' needs "
                                 "name=value", kv, opts);
        *oeq = '\0';
        const dam_lever_key *ok = dam_lever_key_find(t, opts);
        if (!ok) {
            const char *near = dam_lever_suggest_key(t, opts);
            if (near)
                return dam_error_set(err, "", 0, "lever '%s': unknown option "
                                     "'%s' for %s (did you mean '%s'?)", kv,
                                     opts, t->name, near);
            return dam_error_set(err, "", 0, "lever '%s': unknown option "
                                 "'%s' for %s (its keys: see 'damsim whatif "
                                 "--help')", kv, opts, t->name);
        }
        if (dam_lever_set_text(op, t, ok, oeq + 1, why, sizeof why) != 0)
            return dam_error_set(err, "", 0, "lever '%s': %s", kv, why);
        opts = next;
    }
    return DAM_OK;
}

void dam_lever_error_at(dam_error *e, const char *option, const char *kv)
{
    char loc[sizeof e->file];
    snprintf(loc, sizeof loc, "%s %s", option, kv);
    /* "lever 'KV': why" -> "why": the location names the lever */
    if (strncmp(e->msg, "lever '", 7) == 0) {
        const char *q = strstr(e->msg + 7, "': ");
        if (q)
            memmove(e->msg, q + 3, strlen(q + 3) + 1);
    }
    memcpy(e->file, loc, sizeof loc);
    e->line = 0;
}

/* ---- help ----------------------------------------------------------------------- */

/* Appends to a buffer, counting what it would need. */
typedef struct out {
    char *buf;
    size_t n, used;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->used < o->n ? o->n - o->used : 0;
    int k = vsnprintf(room ? o->buf + o->used : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->used += (size_t)k;
}

/* One key as "loader_workers (whole number >= 1)". */
static void key_text(out *o, const dam_lever_key *k)
{
    char r[64];
    switch (k->type) {
    case DAM_LKEY_INT:
    case DAM_LKEY_NUM:
        range_text(k, r, sizeof r);
        put(o, "%s (%s%s%s)", k->name, k->unit, k->unit[0] ? ", " : "", r);
        break;
    case DAM_LKEY_BOOL:
        put(o, "%s (true/false)", k->name);
        break;
    case DAM_LKEY_CHOICE:
        put(o, "%s (one of ", k->name);
        for (int i = 0; k->choices[i]; i++)
            put(o, "%s%s", i ? ", " : "", k->choices[i]);
        put(o, ")");
        break;
    case DAM_LKEY_TEXT:
        put(o, "%s (text)", k->name);
        break;
    }
}

size_t dam_lever_help(char *buf, size_t n, int markdown)
{
    out o = {buf, n, 0};
    if (n)
        buf[0] = '\0';
    if (markdown)
        put(&o, "| lever | keys (units, ranges) | valid | quality effect "
                "| example |\n|---|---|---|---|---|\n");
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++) {
        const dam_lever_type *t = types[i];
        char m[48];
        modes_text(t->modes, m, sizeof m);
        if (markdown)
            put(&o, "| `%s` | ", t->name);
        else
            put(&o, "  %s: %s\n    keys: ", t->name, t->summary);
        for (size_t j = 0; j < t->nkeys; j++) {
            if (j)
                put(&o, ", ");
            if ((int)j == t->main_key || (t->parse_main && j == 0))
                put(&o, "%s", markdown ? "**" : "*");
            key_text(&o, &t->keys[j]);
            if ((int)j == t->main_key || (t->parse_main && j == 0))
                put(&o, "%s", markdown ? "**" : "*");
        }
        if (markdown)
            put(&o, " | %s%s%s | %s | `%s` |\n", m, t->valid ? "; " : "",
                t->valid ? t->valid : "", t->quality, t->example);
        else
            put(&o, "\n    valid: %s%s%s\n    quality: %s\n    e.g. --lever "
                    "%s\n", m, t->valid ? "; " : "", t->valid ? t->valid : "",
                t->quality, t->example);
    }
    if (markdown)
        put(&o, "\nBold: the key `lever = value` sets (`prune = \"2:4\"`, "
                "`chinchilla = \"optimal\"` have a syntax of their own).\n");
    else
        put(&o, "  *: the key KEY=VALUE sets when KEY is the lever's name "
                "(prune=2:4, prune=structured:0.3 and chinchilla=optimal|R "
                "have a syntax of their own)\n");
    return o.used;
}
