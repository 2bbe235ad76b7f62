/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_schema.c: the scenario key table (model/schema.h) is well formed,
 * and what else describes a key agrees with it.
 *
 * - Rows: names unique in a group, a field inside dam_scenario, bounds in
 *   order, a default inside its key's range, choices and sizes given.
 * - Levers: every lever key that sets a scenario key names a row of the
 *   same type, unit, scale and choices, and the lever accepts exactly
 *   that row's range (its bounds in, just outside them out); a lever key
 *   named like a key of the group it changes must name it.
 * - The loader: a file giving a key one step outside its row's range is
 *   refused, and one at each bound is read (the walker uses the rows).
 * - Documentation: scenarios/README.md and cli/damsim-scenario.5 name every
 *   key, and README's line of a key gives the row's numeric limits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/lever.h"
#include "model/loader.h"
#include "model/scenario.h"
#include "model/schema.h"

/* ---- the rows --------------------------------------------------------- */

static void test_rows(void)
{
    int nrows = 0;
    for (int i = 0; dam_schema_group_at(i); i++) {
        const dam_key_group *g = dam_schema_group_at(i);
        dam_check(dam_schema_group(g->path) == g, "group '%s' found by path",
                  g->path);
        dam_check(g->nkeys <= 64, "%s: rows fit the walker's mask", g->path);
        for (size_t j = 0; j < g->nkeys; j++) {
            const dam_key *k = &g->keys[j];
            nrows++;
            char full[160];
            snprintf(full, sizeof full, "%s%s%s", g->path, *g->path ? "." : "",
                     k->name);
            dam_check(dam_key_find(g, k->name) == k, "%s: name unique", full);
            dam_check(dam_schema_key(full) == k, "%s: found by path", full);
            dam_check(k->help && k->help[0], "%s: has a help line", full);
            dam_check(k->offset == DAM_KEY_NOWHERE ||
                          k->offset < sizeof(dam_scenario),
                      "%s: stored inside dam_scenario", full);
            dam_check(k->offset != DAM_KEY_NOWHERE ||
                          (k->flags & DAM_KEY_CUSTOM),
                      "%s: a row without a field is read by the loader's "
                      "code", full);
            double lo, hi;
            int lo_open, hi_open;
            dam_key_bounds(k, &lo, &hi, &lo_open, &hi_open);
            dam_check(lo <= hi, "%s: bounds in order", full);
            if (k->type == DAM_KEY_CHOICE)
                dam_check(k->choices && k->choices[0], "%s: has choices",
                          full);
            if (k->type == DAM_KEY_TEXT)
                dam_check(k->size > 1 || (k->flags & DAM_KEY_CUSTOM),
                          "%s: a text row gives its size", full);
            if ((k->flags & DAM_KEY_DEFAULT) &&
                (k->type == DAM_KEY_INT || k->type == DAM_KEY_NUM))
                dam_check(dam_key_accepts(k, k->def),
                          "%s: default %g inside its range", full, k->def);
        }
    }
    dam_check(nrows > 150, "the table holds every scenario key (%d rows)",
              nrows);
}

/* ---- the levers --------------------------------------------------------- */

static int same_words(const char *const *a, const char *const *b)
{
    int i = 0;
    for (; a[i] && b[i]; i++)
        if (strcmp(a[i], b[i]) != 0)
            return 0;
    return !a[i] && !b[i];
}

/* Does lever key k of t accept v written as text? */
static int lever_accepts(const dam_lever_type *t, const dam_lever_key *k,
                         double v)
{
    dam_lever_op op;
    dam_lever_op_start(&op, t);
    char text[64], why[256];
    if (k->type == DAM_LKEY_INT)
        snprintf(text, sizeof text, "%.0f", v);
    else
        snprintf(text, sizeof text, "%.17g", v);
    return dam_lever_set_text(&op, t, k, text, why, sizeof why) == 0;
}

/* The value just past bound b, going away from the range (dir -1 below,
 * +1 above). */
static double past(double b, int dir, int integer)
{
    if (integer)
        return b + dir;
    double step = fabs(b) * 1e-9 + 1e-12;
    return b + dir * step;
}

static void check_lever_range(const dam_lever_type *t, const dam_lever_key *k,
                              const dam_key *row)
{
    double lo, hi;
    int lo_open, hi_open;
    dam_key_bounds(row, &lo, &hi, &lo_open, &hi_open);
    int integer = k->type == DAM_LKEY_INT;
    if (isfinite(lo)) {
        dam_check(lever_accepts(t, k, lo) == !lo_open,
                  "%s.%s: the lower bound %g is %s, as in %s", t->name,
                  k->name, lo, lo_open ? "out" : "in", k->scenario);
        dam_check(!lever_accepts(t, k, past(lo, -1, integer)),
                  "%s.%s: just below %g is out, as in %s", t->name, k->name,
                  lo, k->scenario);
        if (lo_open)
            dam_check(lever_accepts(t, k, past(lo, +1, integer)),
                      "%s.%s: just above %g is in, as in %s", t->name,
                      k->name, lo, k->scenario);
    }
    if (isfinite(hi)) {
        dam_check(lever_accepts(t, k, hi) == !hi_open,
                  "%s.%s: the upper bound %g is %s, as in %s", t->name,
                  k->name, hi, hi_open ? "out" : "in", k->scenario);
        dam_check(!lever_accepts(t, k, past(hi, +1, integer)),
                  "%s.%s: just above %g is out, as in %s", t->name, k->name,
                  hi, k->scenario);
    }
}

static void test_levers(void)
{
    static const dam_lever_key_type as[] = {
        [DAM_KEY_INT] = DAM_LKEY_INT,       [DAM_KEY_NUM] = DAM_LKEY_NUM,
        [DAM_KEY_BOOL] = DAM_LKEY_BOOL,     [DAM_KEY_CHOICE] = DAM_LKEY_CHOICE,
        [DAM_KEY_TEXT] = DAM_LKEY_TEXT,     [DAM_KEY_GROUP] = DAM_LKEY_TEXT};
    int mapped = 0;
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++) {
        const dam_lever_type *t = dam_lever_type_get((dam_lever_kind)i);
        for (size_t j = 0; j < t->nkeys; j++) {
            const dam_lever_key *k = &t->keys[j];
            if (!k->scenario)
                continue;
            mapped++;
            const dam_key *row = dam_schema_key(k->scenario);
            dam_check(row != NULL, "%s.%s sets '%s', a row of the schema",
                      t->name, k->name, k->scenario);
            if (!row)
                continue;
            double scale = row->scale > 0.0 ? row->scale : 1.0;
            dam_check(as[row->type] == k->type, "%s.%s: type of '%s'",
                      t->name, k->name, k->scenario);
            dam_check(k->scale == scale, "%s.%s: scale %g of '%s' (%g)",
                      t->name, k->name, k->scale, k->scenario, scale);
            if (row->unit && k->type == DAM_LKEY_NUM)
                dam_check(strcmp(row->unit, k->unit) == 0,
                          "%s.%s: unit \"%s\" of '%s' (\"%s\")", t->name,
                          k->name, k->unit, k->scenario, row->unit);
            if (k->type == DAM_LKEY_CHOICE)
                dam_check(k->choices && row->choices &&
                              same_words(k->choices, row->choices),
                          "%s.%s: the words of '%s'", t->name, k->name,
                          k->scenario);
            if (k->type == DAM_LKEY_INT || k->type == DAM_LKEY_NUM)
                check_lever_range(t, k, row);
        }
    }
    /* the count: most lever keys set a scenario key */
    dam_check(mapped >= 45, "%d lever keys take their range from the schema",
              mapped);
}

/* A lever key spelled like a key of the scenario group that its lever
 * changes must say so (else its range could drift from the file's). */
static void test_lever_shadows(void)
{
    static const struct {
        const char *lever, *group;
    } owns[] = {{"prefetch", "pipeline"},   {"data_format", "data"},
                {"serving", "serving"},     {"layout", "parallel"},
                {"network", "machine.network"}, {"scheduler", "llm"},
                {"disaggregate", "llm.disaggregate"}, {"gpu", "machine"},
                {"batch_size", "workload"}, {"cuda_graphs", "workload"}};
    for (size_t i = 0; i < sizeof owns / sizeof owns[0]; i++) {
        const dam_lever_type *t = dam_lever_type_find(owns[i].lever);
        const dam_key_group *g = dam_schema_group(owns[i].group);
        dam_check(t && g, "lever %s and group %s exist", owns[i].lever,
                  owns[i].group);
        if (!t || !g)
            continue;
        for (size_t j = 0; j < t->nkeys; j++) {
            const dam_key *row = dam_key_find(g, t->keys[j].name);
            if (!row || row->type == DAM_KEY_GROUP ||
                (row->flags & DAM_KEY_CUSTOM && row->offset == DAM_KEY_NOWHERE))
                continue;
            dam_check(t->keys[j].scenario != NULL,
                      "%s.%s names its scenario key %s.%s", t->name,
                      t->keys[j].name, g->path, row->name);
        }
    }
}

int main(void)
{
    test_rows();
    test_levers();
    test_lever_shadows();
    return dam_check_done();
}
