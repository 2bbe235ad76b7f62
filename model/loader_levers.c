/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader_levers.c: a scenario file's levers, read through the lever table
 * (lever.h) (loader.c says how the loader reads a file).
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
#include "model/infile.h"
#include "model/lever.h"
#include "model/scaling.h"
#include "model/suggest.h"
#include "model/device.h"
#include "model/graph.h"
#include "model/constants.h"

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


/* The file's levers into out (every one checked; the scenario keeps what
 * they assume about prices and quality). */
void dam_ld_load_levers(ld *L, const config_setting_t *root,
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
        char w[32];
        config_setting_t *e = list_group(L, lv, i, "levers", w, sizeof w);
        if (!e)
            continue;
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
