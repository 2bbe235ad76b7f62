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
 * - The loader: a near-miss of every row gets "did you mean" that row (the
 *   allowed keys are the rows), and an integer one past its row's upper
 *   bound is refused with the row's bounds.
 * - The settings dump (dam_scenario_settings, the JSON "settings") of the
 *   scenarios names only keys of the table.
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
            const dam_key_row *k = &g->keys[j];
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
                              const dam_key_row *row)
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
            const dam_key_row *row = dam_schema_key(k->scenario);
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
            const dam_key_row *row = dam_key_find(g, t->keys[j].name);
            if (!row || row->type == DAM_KEY_GROUP ||
                (row->flags & DAM_KEY_CUSTOM && row->offset == DAM_KEY_NOWHERE))
                continue;
            dam_check(t->keys[j].scenario != NULL,
                      "%s.%s names its scenario key %s.%s", t->name,
                      t->keys[j].name, g->path, row->name);
        }
    }
}


/* ---- the documentation ------------------------------------------------- */

static char *slurp(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", DAM_SOURCE_DIR, rel);
    FILE *f = fopen(path, "rb");
    dam_check(f != NULL, "%s opens", rel);
    if (!f)
        return NULL;
    static char buf[2][1 << 17];
    static int which;
    char *text = buf[which++ & 1];
    size_t n = fread(text, 1, sizeof buf[0] - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* Where a group's keys are documented in scenarios/README.md: the section
 * (its "## " heading starts with head) and how a key is spelled there
 * (prefix + name, or "." + name after its first sibling). */
static const struct {
    const char *group, *head, *prefix;
} readme_at[] = {
    {"scenario", "scenario", ""},
    {"catalogs", "catalogs", ""},
    {"machine", "machine", ""},
    {"machine.host", "machine", "host."},
    {"machine.storage", "machine", "storage."},
    {"machine.network", "machine", "network."},
    {"workload", "workload", ""},
    {"workload.lora", "workload", "lora."},
    {"parallel", "parallel", ""},
    {"parallel.straggler", "parallel", "straggler."},
    {"data", "data", ""},
    {"pipeline", "pipeline", ""},
    {"serving", "serving", ""},
    {"llm", "llm", ""},
    {"llm.disaggregate", "llm", "disaggregate."},
    {"llm.speculative", "llm", "speculative."},
    {"quality", "quality and cost", "quality."},
    {"cost", "quality and cost", "cost."},
};

/* The text of the README section whose heading starts with head, up to
 * the next "## " (copied into out). */
static void section(const char *text, const char *head, char *out, size_t n)
{
    out[0] = '\0';
    char h[64];
    snprintf(h, sizeof h, "\n## %s", head);
    const char *a = strstr(text, h);
    if (!a)
        return;
    const char *b = strstr(a + 1, "\n## ");
    size_t len = b ? (size_t)(b - a) : strlen(a);
    snprintf(out, n, "%.*s", (int)len, a);
}

/* The line of sec that documents `word`: a table row whose first cell
 * names it, else any line that names it; NULL when none does. */
static const char *line_naming(const char *sec, const char *word, char *out,
                               size_t n)
{
    char q[100];
    snprintf(q, sizeof q, "`%s`", word);
    const char *any = NULL;
    for (const char *a = sec; a && *a; a = strchr(a, '\n'), a = a ? a + 1 : a) {
        const char *b = strchr(a, '\n');
        size_t len = b ? (size_t)(b - a) : strlen(a);
        char ln[2048];
        snprintf(ln, sizeof ln, "%.*s", (int)len, a);
        char *hit = strstr(ln, q);
        if (!hit)
            continue;
        char *cell_end = ln[0] == '|' ? strchr(ln + 1, '|') : NULL;
        if (cell_end && hit < cell_end) {
            snprintf(out, n, "%s", ln);
            return out;
        }
        if (!any) {
            snprintf(out, n, "%s", ln);
            any = out;
        }
    }
    return any;
}

/* Does line give the number v, as the reference writes numbers ("10000",
 * "0.001", "1e13", "1,048,576" is not used)? */
static int gives_number(const char *line, double v)
{
    char forms[3][48];
    snprintf(forms[0], sizeof forms[0], "%g", v);
    /* 1e+13 -> 1e13 */
    char *e = strchr(forms[0], 'e');
    if (e) {
        char *d = e + 1;
        if (*d == '+')
            memmove(d, d + 1, strlen(d));
        else if (*d == '-')
            d++;
        while (*d == '0' && d[1])
            memmove(d, d + 1, strlen(d));
    }
    snprintf(forms[1], sizeof forms[1], "%.0f", v);
    snprintf(forms[2], sizeof forms[2], "%.6f", v);
    for (char *z = forms[2] + strlen(forms[2]) - 1; *z == '0'; z--)
        *z = '\0';
    for (int i = 0; i < 3; i++) {
        if (i == 1 && v != floor(v))
            continue;
        size_t fl = strlen(forms[i]);
        for (const char *p = strstr(line, forms[i]); p;
             p = strstr(p + 1, forms[i])) {
            int before = p > line && (p[-1] == '.' || (p[-1] >= '0' &&
                                                       p[-1] <= '9'));
            char c = p[fl];
            int after = (c >= '0' && c <= '9') || c == 'e' ||
                        (c == '.' && p[fl + 1] >= '0' && p[fl + 1] <= '9');
            if (!before && !after)
                return 1;
        }
    }
    return 0;
}

static void test_readme(void)
{
    const char *text = slurp("scenarios/README.md");
    if (!text)
        return;
    static char sec[1 << 15];
    for (size_t i = 0; i < sizeof readme_at / sizeof readme_at[0]; i++) {
        const dam_key_group *g = dam_schema_group(readme_at[i].group);
        section(text, readme_at[i].head, sec, sizeof sec);
        dam_check(sec[0] != '\0', "README has a section for %s", g->path);
        for (size_t j = 0; j < g->nkeys; j++) {
            const dam_key_row *k = &g->keys[j];
            char word[96], dotted[100], line[2048];
            /* a group of its own: its keys are checked as its rows */
            snprintf(word, sizeof word, "%s.%s", g->path, k->name);
            if (k->type == DAM_KEY_GROUP && dam_schema_group(word))
                continue;
            snprintf(word, sizeof word, "%s%s", readme_at[i].prefix, k->name);
            snprintf(dotted, sizeof dotted, ".%s", k->name);
            const char *ln = line_naming(sec, word, line, sizeof line);
            if (!ln && readme_at[i].prefix[0])
                ln = line_naming(sec, dotted, line, sizeof line);
            dam_check(ln != NULL, "README documents %s.%s", g->path,
                      k->name);
            if (!ln || (k->type != DAM_KEY_INT &&
                        !(k->flags & DAM_KEY_LIMIT)))
                continue;
            double lo, hi;
            int lo_open, hi_open;
            dam_key_bounds(k, &lo, &hi, &lo_open, &hi_open);
            if (isfinite(hi))
                dam_check(gives_number(ln, hi),
                          "README's line of %s.%s gives its limit %g: %s",
                          g->path, k->name, hi, ln);
        }
    }
}

/* damsim-scenario(5) names every key (groups' keys with their group's
 * nesting below the page's group, as "host.pcie_gbs"). */
static void test_man_page(void)
{
    const char *text = slurp("cli/damsim-scenario.5");
    if (!text)
        return;
    for (int i = 1; dam_schema_group_at(i); i++) {
        const dam_key_group *g = dam_schema_group_at(i);
        const char *dot = strchr(g->path, '.');
        for (size_t j = 0; j < g->nkeys; j++) {
            char word[96];
            snprintf(word, sizeof word, "%s%s%s", dot ? dot + 1 : "",
                     dot ? "." : "", g->keys[j].name);
            /* a whole word of the page */
            int found = 0;
            size_t wl = strlen(word);
            for (const char *p = strstr(text, word); p && !found;
                 p = strstr(p + 1, word)) {
                char c = p[wl], b = p > text ? p[-1] : ' ';
                found = !(c == '_' || (c >= 'a' && c <= 'z')) &&
                        !(b == '_' || (b >= 'a' && b <= 'z'));
            }
            dam_check(found, "damsim-scenario(5) names %s.%s", g->path,
                      g->keys[j].name);
        }
    }
}

/* ---- the loader reads the rows --------------------------------------- */

/* Load scenarios/file with one override; 1 when some diagnostic holds
 * want. */
static int load_says(dam_catalog *cat, const char *file, const char *key,
                     const char *value, const char *want)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR, file);
    dam_setting o = {key, value};
    dam_load_options opt = {0};
    opt.overrides = &o;
    opt.noverrides = 1;
    opt.skip_catalogs = 1;
    dam_scenario *sc = malloc(sizeof *sc);
    dam_diag d;
    dam_diag_init(&d);
    dam_scenario_load_with(sc, path, NULL, cat, &opt, &d);
    int found = 0;
    for (size_t i = 0; i < d.n && !found; i++)
        found = want ? strstr(d.items[i].msg, want) != NULL : 0;
    if (!want)
        found = d.nerr == 0;
    dam_diag_free(&d);
    free(sc);
    return found;
}

/* Which scenario a group is tried on (its mode). */
static const char *base_of(const char *group)
{
    if (strncmp(group, "serving", 7) == 0)
        return "resnet50-serving-l4.cfg";
    if (strncmp(group, "llm", 3) == 0)
        return "llama3-70b-fp8-kv-h100.cfg";
    /* read with a layout's training stack only */
    if (strcmp(group, "workload.lora") == 0)
        return "llama3-70b-qlora-l40s.cfg";
    return "resnet50-dgx-a100.cfg";
}

/* A near-miss of every row is an unknown key whose "did you mean" names
 * the row (the allowed keys are the rows); one step outside an integer
 * row's range is refused with the row's bounds. */
static void test_loader(void)
{
    dam_catalog *cat = calloc(1, sizeof *cat);
    dam_test_catalog(cat);
    for (int i = 0; dam_schema_group_at(i); i++) {
        const dam_key_group *g = dam_schema_group_at(i);
        for (size_t j = 0; j < g->nkeys; j++) {
            const dam_key_row *k = &g->keys[j];
            char key[160], want[320];
            snprintf(key, sizeof key, "%s%s%sx", g->path, *g->path ? "." : "",
                     k->name);
            snprintf(want, sizeof want, "(did you mean '%s'?)", k->name);
            dam_check(load_says(cat, base_of(g->path), key, "1", want),
                      "%s: did you mean '%s'", key, k->name);
            if (k->type != DAM_KEY_INT || (k->flags & DAM_KEY_CUSTOM) ||
                !isfinite(k->hi) || k->hi > 2147483646.0)
                continue;
            char val[32];
            snprintf(key, sizeof key, "%s.%s", g->path, k->name);
            snprintf(val, sizeof val, "%.0f", k->hi + 1);
            snprintf(want, sizeof want, "must be between %.0f and %.0f", k->lo,
                     k->hi);
            dam_check(load_says(cat, base_of(g->path), key, val, want),
                      "%s = %s is refused (%s)", key, val, want);
        }
    }
    dam_catalog_free(cat);
    free(cat);
}

/* The settings a file's JSON dump lists (dam_scenario_settings) are rows,
 * or inside a row that holds a group (an inline GPU or model, a
 * distribution, the framework's constants) or inside the levers. */
static void test_settings(void)
{
    static const char *const files[] = {
        "resnet50-dgx-a100.cfg", "resnet50-serving-l4.cfg",
        "llama3-70b-fp8-kv-h100.cfg", "moe-2048-nvl72.cfg",
        "llama3-405b-16k-h100.cfg", "serving-30ms-slo.cfg"};
    int seen = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR,
                 files[f]);
        dam_setting *set = NULL;
        int n = dam_scenario_settings(path, NULL, &set);
        dam_check(n > 0, "%s: settings read", files[f]);
        for (int i = 0; i < n; i++) {
            if (strncmp(set[i].key, "levers.", 7) == 0)
                continue;
            char p[256];
            snprintf(p, sizeof p, "%s", set[i].key);
            const dam_key_row *row = dam_schema_key(p);
            /* the nearest enclosing row */
            for (char *dot; !row && (dot = strrchr(p, '.')) != NULL;) {
                *dot = '\0';
                row = dam_schema_key(p);
                if (row && row->type != DAM_KEY_NUM &&
                    !(row->flags & DAM_KEY_CUSTOM))
                    row = NULL; /* a plain row holds no members */
            }
            dam_check(row != NULL, "%s: setting '%s' is a key of the schema",
                      files[f], set[i].key);
            seen++;
        }
        dam_settings_free(set, n);
    }
    dam_check(seen > 100, "%d settings checked", seen);
}

/* `damsim catalog keys` prints the table: every row, once per group. */
static void test_doc(void)
{
    size_t n = dam_schema_doc(NULL, 0) + 1;
    char *t = malloc(n);
    dam_check(dam_schema_doc(t, n) + 1 == n, "the reference fits its size");
    for (int i = 1; dam_schema_group_at(i); i++) {
        const dam_key_group *g = dam_schema_group_at(i);
        char h[96];
        snprintf(h, sizeof h, "## %s\n", g->path);
        const char *sec = strstr(t, h);
        dam_check(sec != NULL, "reference has a section for %s", g->path);
        const char *end = sec ? strstr(sec + 1, "\n## ") : NULL;
        for (size_t j = 0; sec && j < g->nkeys; j++) {
            char q[96];
            snprintf(q, sizeof q, "| `%s` |", g->keys[j].name);
            const char *at = strstr(sec, q);
            dam_check(at && (!end || at < end), "reference lists %s.%s",
                      g->path, g->keys[j].name);
        }
    }
    dam_check(strstr(t, "| `pcie_gbs` | number, GB/s, 0.001 to 10000, "
                        "required |") != NULL,
              "a row reads with its unit, range and requiredness");
    free(t);
}

/* Arrays in the settings dump: every element, in order, as written, in
 * brackets (an empty array too). */
static void test_settings_arrays(void)
{
    static const char text[] =
        "a = { ints = [1, 2, 3]; words = [\"x\", \"y\"]; nums = [0.5, 2e9];"
        " one = [7]; none = []; };\n";
    static const char *const want[][2] = {
        {"a.ints", "[1, 2, 3]"}, {"a.words", "[x, y]"},
        {"a.nums", "[0.5, 2e9]"}, {"a.one", "[7]"}, {"a.none", "[]"}};
    dam_setting *set = NULL;
    int n = dam_scenario_settings("arrays.cfg", text, &set);
    dam_check_int(n, 5, "five array settings read");
    for (int i = 0; i < n && i < 5; i++) {
        dam_check_str(set[i].key, want[i][0], "array key in file order");
        dam_check_str(set[i].value, want[i][1], want[i][0]);
    }
    dam_settings_free(set, n);
}

/* A lever without a name is refused at its line (tables head its row
 * with the name); the same lever named loads. */
static void test_lever_name(void)
{
    dam_catalog *cat = calloc(1, sizeof *cat);
    dam_test_catalog(cat);
    static const char head[] =
        "scenario: { name = \"t\"; question = \"q\"; mode = \"training\"; };\n"
        "machine: { gpu = \"A100-SXM4-80GB\"; gpus_per_node = 1; host: { "
        "cpu_cores = 8; pcie_gbs = 25.0; }; storage: { kind = \"local_nvme\";"
        " read_gbs = 5.0; }; };\n"
        "workload: { model = \"resnet50\"; batch_size = 256; precision = "
        "\"bf16\"; };\n"
        "data: { samples = 1000.0; };\n"
        "pipeline: { loader_workers = 1; };\n"
        "levers = (\n";
    static const char *const lever[2] = {
        "  { gpu = \"H100-SXM5-80GB\"; }\n);\n",
        "  { name = \"H100\"; gpu = \"H100-SXM5-80GB\"; }\n);\n"};
    for (int named = 0; named < 2; named++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", head, lever[named]);
        dam_scenario *sc = malloc(sizeof *sc);
        dam_lever_list *lv = calloc(1, sizeof *lv);
        dam_diag d;
        dam_diag_init(&d);
        dam_load_options opt = {0};
        opt.levers = lv;
        int rc = dam_scenario_load_with(sc, "t.cfg", text, cat, &opt, &d);
        int said = 0;
        for (size_t i = 0; i < d.n; i++) {
            said |= d.items[i].line == 7 &&
                    strstr(d.items[i].msg, "missing required key") &&
                    strstr(d.items[i].msg, "name");
            if (named)
                printf("# %s\n", d.items[i].msg);
        }
        if (named)
            dam_check(rc == DAM_OK && d.nerr == 0 && lv->n == 1,
                      "a named lever loads");
        else
            dam_check(rc == DAM_EINPUT && said,
                      "a lever without a name: missing 'name' at line 7");
        dam_diag_free(&d);
        free(lv);
        free(sc);
    }
    dam_catalog_free(cat);
    free(cat);
}

int main(void)
{
    test_rows();
    test_levers();
    test_lever_shadows();
    test_loader();
    test_settings();
    test_settings_arrays();
    test_lever_name();
    test_doc();
    test_readme();
    test_man_page();
    return dam_check_done();
}
