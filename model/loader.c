/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader.c: libconfig files -> dam_scenario / dam_catalog.
 *
 * Design. A scenario group's keys are rows of model/schema.c; the walker
 * of model/load.c (load.h) reads a group from its table: it checks the
 * type, the range and converts to SI with the row's scale, and reports a
 * problem as "file:line: error: ..." into the dam_diag, then goes on, so
 * one run shows every problem of a file (up to DAM_DIAG_MAX). Anything not
 * a row is an unknown key with a "did you mean" suggestion. What stays
 * here is what a table cannot say: the hooks of custom rows (a key whose
 * requiredness or default follows another, a file it names), checks across
 * keys (the GPU supports the precision, workers against cores) with the
 * line of the key that is inconsistent, catalog-or-inline entries
 * (machine.gpu, workload.model) and the catalogs' own keys.
 *
 * Key names carry their unit (`_gbs` GB/s decimal, `_gib` GiB, `_ms`
 * milliseconds, `_us` microseconds, `_mb` MB decimal); the struct fields are
 * SI. Strings are copied out before config_destroy.
 *
 * The files, along the loader's sections:
 *   loader.c          dam_scenario_load_with: the steps in order, overrides
 *                     (sweep points), checks across groups;
 *   loader_groups.c   catalogs, machine, workload, data, pipeline, parallel;
 *   loader_serving.c  serving, llm, quality, cost;
 *   loader_levers.c   the file's levers (lever.h's table);
 *   loader_catalog.c  catalog files: GPU and model entries, architectures,
 *                     calibration overlays, reading a file (@include);
 *   loader_points.c   points files and a file's settings as written;
 *   load.c, schema.c  the value readers and the walker; the key tables.
 */
#include "model/loader.h"
#include "model/load.h"

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
#define text_bool dam_key_parse_bool

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
static void load_deadline(ld *L, const config_setting_t *sc,
                          const dam_key_row *k, dam_scenario *s)
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
    if (dam_load_key(L, sc, "scenario", k, 0, &s->deadline) &&
        s->mode != DAM_MODE_TRAINING) {
        dam_diag_error(L->d, AT(dl), "'scenario.deadline_days' is for "
                                     "training scenarios (the time the run "
                                     "must finish in)");
        s->deadline = 0.0;
    }
}

/* scenario.seed (an unsigned long) and scenario.deadline_days. */
static void scenario_hook(ld *L, const config_setting_t *sc,
                          const dam_key_row *k, void *ctx)
{
    if (strcmp(k->name, "seed") == 0) {
        int seed = 1;
        if (dam_load_key(L, sc, "scenario", k, -1, &seed))
            L->scen->seed = (unsigned long)seed;
    } else if (strcmp(k->name, "deadline_days") == 0) {
        load_deadline(L, sc, k, L->scen);
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

/* The scenario of the parsed tree (root of cfg, L begun on it, the
 * overrides applied) into s, whose defaults are set; cfg is only read. */
static int load_tree(dam_scenario *s, ld *L, const config_setting_t *root,
                     dam_catalog *cat, const dam_load_options *opt,
                     dam_diag *d)
{
    const char *path = L->file;
    dam_load_check(L, root, TABLE(""));

    config_setting_t *sc = group(L, root, "scenario", "", 1);
    if (sc)
        dam_load_group(L, sc, TABLE("scenario"), scenario_hook, NULL);
    if (opt && opt->skip_catalogs) {
        config_setting_t *c = group(L, root, "catalogs", "", 0);
        if (c)
            dam_load_check(L, c, TABLE("catalogs"));
    } else {
        load_catalogs(L, root, cat);
    }
    load_machine(L, root, cat, s);
    load_workload(L, root, cat, s);
    int batchy = s->mode != DAM_MODE_SERVING;
    load_data(L, root, s, batchy);
    load_pipeline(L, root, s, batchy);
    if (!batchy) {
        const char *const only_batch[] = {"data", "pipeline"};
        for (int i = 0; i < 2; i++) {
            config_setting_t *x = member(L, root, only_batch[i], "", 0);
            if (x)
                dam_diag_error(d, path, line_of(x),
                               "'%s' is not used in serving mode (the "
                               "'serving' group describes requests)",
                               only_batch[i]);
        }
    }
    load_parallel(L, root, s);
    load_serving(L, root, s);
    load_llm(L, root, cat, s);
    load_quality_cost(L, root, s);
    dam_lever_list *lv = opt && opt->levers ? opt->levers
                                            : dam_malloc(sizeof *lv);
    lv->n = 0;
    load_levers(L, root, cat, s, lv);
    check_about(L, sc, s, lv);
    cross_checks(L, root, s);
    if (!(opt && opt->levers))
        dam_free(lv);
    return d->nerr > L->before ? DAM_EINPUT : DAM_OK;
}

/* What every load does first: s's defaults and file, no levers yet. */
static void load_start(dam_scenario *s, const char *path,
                       const dam_load_options *opt)
{
    defaults(s);
    snprintf(s->file, sizeof s->file, "%s", path);
    if (opt && opt->levers)
        opt->levers->n = 0;
}

int dam_scenario_load_with(dam_scenario *s, const char *path,
                           const char *text, dam_catalog *cat,
                           const dam_load_options *opt, dam_diag *d)
{
    config_t cfg;
    load_start(s, path, opt);
    ld L;
    const config_setting_t *root = dam_ld_begin(&L, &cfg, path, text, d, s);
    if (!root)
        return DAM_EINPUT;
    for (int i = 0; opt && i < opt->noverrides; i++)
        apply_override(&cfg, path, &opt->overrides[i], d);
    int rc = load_tree(s, &L, root, cat, opt, d);
    config_destroy(&cfg);
    return rc;
}

/* ---- one key's values over one parse (sweeps) ----------------------------- */

struct dam_key_loads {
    char *path, *text;
    char *key;
    int parsed;            /* 1: cfg holds the file's tree */
    config_t cfg;
    ld L;                  /* begun on cfg (its folder for @include) */
    config_setting_t *set; /* key's scalar setting in cfg, or NULL (every
                            * value then takes a whole load) */
    int type;              /* its type in the file */
};

dam_key_loads *dam_key_loads_open(const char *path, const char *text,
                                const char *key)
{
    dam_key_loads *k = dam_calloc(1, sizeof *k);
    k->path = dam_strdup(path);
    k->text = text ? dam_strdup(text) : NULL;
    k->key = dam_strdup(key);
    dam_diag d;
    dam_diag_init(&d);
    if (dam_ld_begin(&k->L, &k->cfg, path, text, &d, NULL)) {
        k->parsed = 1;
        /* the setting apply_override would set in place: a scalar at
         * the end of groups named by the key's dotted parts (a key of
         * other characters takes whole loads) */
        int plain = key[0] != '\0' && strlen(key) < 256;
        for (const char *c = key; *c && plain; c++)
            plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '_' ||
                    (*c == '.' && c != key && c[1] && c[1] != '.');
        config_setting_t *st = plain ? config_lookup(&k->cfg, key) : NULL;
        for (config_setting_t *p = st ? st->parent : NULL; p && st;
             p = p->parent)
            if (!config_setting_is_group(p))
                st = NULL;
        if (st && config_setting_is_scalar(st)) {
            k->set = st;
            k->type = config_setting_type(st);
        }
    }
    dam_diag_free(&d);
    return k;
}

int dam_key_loads_value(dam_key_loads *k, dam_scenario *s, const char *value,
                       dam_catalog *cat, const dam_load_options *opt,
                       dam_diag *d)
{
    /* in place when the value reads as the file's type (apply_override
     * then sets it in place too: the same tree); else a whole load */
    if (k->set && config_setting_type(k->set) == k->type &&
        set_scalar(k->set, k->type, value)) {
        load_start(s, k->path, opt);
        k->L.d = d;
        k->L.file = k->path;
        k->L.scen = s;
        k->L.before = d->nerr;
        return load_tree(s, &k->L, config_root_setting(&k->cfg), cat, opt,
                         d);
    }
    dam_setting ov = {k->key, value};
    dam_load_options o = {&ov, 1, opt ? opt->skip_catalogs : 0,
                          opt ? opt->levers : NULL};
    return dam_scenario_load_with(s, k->path, k->text, cat, &o, d);
}

void dam_key_loads_close(dam_key_loads *k)
{
    if (!k)
        return;
    if (k->parsed)
        config_destroy(&k->cfg);
    dam_free(k->path);
    dam_free(k->text);
    dam_free(k->key);
    dam_free(k);
}

int dam_scenario_key_range(const char *key, double *lo, double *hi)
{
    const dam_key_row *k = dam_schema_key(key);
    if (!k || !(k->flags & DAM_KEY_LIMIT))
        return -1;
    int lo_open, hi_open;
    dam_key_bounds(k, lo, hi, &lo_open, &hi_open);
    return 0;
}
