/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * damsim.c: the handles of libdamsim's public interface (damsim.h): the
 * context (catalogs), the scenario (its source, the keys set and the
 * levers applied since, and the scenario they give), diagnostics, and the
 * reading of results by name. Solving is api/solve.c.
 *
 * A scenario handle is replayed, never patched: damsim_scenario_set adds
 * the key to its list of overrides and reads the file again through the
 * loader (dam_scenario_load_with, the schema table's checks and messages,
 * as `damsim sweep --vary` does), then applies the levers again in order.
 * The result replaces the scenario in effect only when every step passed,
 * so a handle always holds a scenario the loader accepted. Each handle
 * copies the catalogs it was loaded with, so loads never write to a shared
 * context.
 */
#include "api/api.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/embedded.h"
#include "model/lever.h"
#include "model/schema.h"
#include "render/out/json.h"

/* ---- library ------------------------------------------------------------ */

const char *damsim_libversion(void)
{
    return DAMSIM_VERSION;
}

int damsim_libversion_number(void)
{
    return DAMSIM_VERSION_NUMBER;
}

const char *damsim_errstr(int status)
{
    switch (status) {
    case DAMSIM_OK: return "success";
    case DAMSIM_ERUNTIME: return "runtime failure";
    case DAMSIM_EINPUT: return "bad input";
    case DAMSIM_EMISUSE: return "misuse of the interface";
    case DAMSIM_ENOTFOUND: return "not found";
    default: return "unknown status";
    }
}

/* The program may define its own (damsim.h); this one ends the process
 * the only way a library that prints nothing can. */
__attribute__((weak)) void damsim_out_of_memory(size_t n)
{
    (void)n;
    abort();
}

/* model/alloc.h's hook, inside libdamsim: the public one. It must not
 * return, whatever the program's does. */
_Noreturn void dam_out_of_memory(size_t n)
{
    damsim_out_of_memory(n);
    abort();
}

/* ---- diagnostics -------------------------------------------------------- */

void dam_api_diag_clear(struct damsim_diag *g)
{
    for (size_t i = 0; g->lines && i < g->d.n; i++)
        dam_free(g->lines[i]);
    dam_free(g->lines);
    g->lines = NULL;
    dam_diag_free(&g->d);
}

void dam_api_diag_done(struct damsim_diag *g)
{
    if (g->lines) {
        for (size_t i = 0; i < g->d.n; i++)
            dam_free(g->lines[i]);
        dam_free(g->lines);
    }
    g->lines = dam_calloc(g->d.n ? g->d.n : 1, sizeof *g->lines);
    for (size_t i = 0; i < g->d.n; i++) {
        char line[1024];
        dam_error_format(&g->d.items[i], line, sizeof line);
        g->lines[i] = dam_strdup(line);
    }
}

void dam_api_diag_add(struct damsim_diag *g, const dam_error *e)
{
    dam_error copy = *e;
    if (copy.sev != DAM_SEV_WARNING)
        copy.sev = DAM_SEV_ERROR;
    dam_diag_add(&g->d, &copy);
    dam_api_diag_done(g);
}

int dam_api_fail(struct damsim_diag *g, int status, const char *fmt, ...)
{
    dam_error e;
    memset(&e, 0, sizeof e);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof e.msg, fmt, ap);
    va_end(ap);
    dam_api_diag_add(g, &e);
    return status;
}

const damsim_diag *damsim_context_diag(const damsim_context *c)
{
    return c ? &c->diag : NULL;
}

const damsim_diag *damsim_scenario_diag(const damsim_scenario *s)
{
    return s ? &s->diag : NULL;
}

size_t damsim_diag_count(const damsim_diag *d)
{
    return d ? d->d.n : 0;
}

size_t damsim_diag_errors(const damsim_diag *d)
{
    return d ? (size_t)d->d.nerr : 0;
}

/* Item i of d, or NULL. */
static const dam_error *diag_item(const damsim_diag *d, size_t i)
{
    return d && i < d->d.n ? &d->d.items[i] : NULL;
}

const char *damsim_diag_message(const damsim_diag *d, size_t i)
{
    return diag_item(d, i) && d->lines ? d->lines[i] : NULL;
}

const char *damsim_diag_file(const damsim_diag *d, size_t i)
{
    const dam_error *e = diag_item(d, i);
    return e ? e->file : NULL;
}

int damsim_diag_line(const damsim_diag *d, size_t i)
{
    const dam_error *e = diag_item(d, i);
    return e ? e->line : 0;
}

const char *damsim_diag_text(const damsim_diag *d, size_t i)
{
    const dam_error *e = diag_item(d, i);
    return e ? e->msg : NULL;
}

int damsim_diag_is_error(const damsim_diag *d, size_t i)
{
    const dam_error *e = diag_item(d, i);
    return e && e->sev == DAM_SEV_ERROR;
}

/* ---- context ------------------------------------------------------------ */

/* Copy the catalogs of from into to (to empty). */
static void catalog_copy(dam_catalog *to, const dam_catalog *from)
{
    *to = *from;
    to->gpus = NULL;
    to->models = NULL;
    if (from->ngpus) {
        to->gpus = dam_malloc(from->ngpus * sizeof *to->gpus);
        memcpy(to->gpus, from->gpus, from->ngpus * sizeof *to->gpus);
    }
    if (from->nmodels) {
        to->models = dam_malloc(from->nmodels * sizeof *to->models);
        memcpy(to->models, from->models, from->nmodels * sizeof *to->models);
    }
}

damsim_context *damsim_context_create(void)
{
    damsim_context *c = dam_calloc(1, sizeof *c);
    dam_diag_init(&c->diag.d);
    /* the catalogs the damsim command starts from (cli/main.c), under the
     * same names in messages */
    const dam_embedded_file *g = dam_embedded_find("gpus.cfg");
    const dam_embedded_file *m = dam_embedded_find("models.cfg");
    if (g && m) {
        dam_catalog_load_gpus(&c->cat, "<built-in>/data/gpus.cfg", g->text,
                              &c->diag.d);
        dam_catalog_load_models(&c->cat, "<built-in>/data/models.cfg",
                                m->text, &c->diag.d);
    }
    dam_api_diag_done(&c->diag);
    return c;
}

int damsim_context_load_catalog(damsim_context *c, const char *kind,
                                const char *path, const char *text)
{
    if (!c)
        return DAMSIM_EMISUSE;
    dam_api_diag_clear(&c->diag);
    if (!kind || (!path && !text))
        return dam_api_fail(&c->diag, DAMSIM_EMISUSE,
                            "a catalog needs its kind and a file or text");
    const char *name = path ? path : "<string>";
    int rc;
    if (strcmp(kind, "gpus") == 0)
        rc = dam_catalog_load_gpus(&c->cat, name, text, &c->diag.d);
    else if (strcmp(kind, "models") == 0)
        rc = dam_catalog_load_models(&c->cat, name, text, &c->diag.d);
    else
        return dam_api_fail(&c->diag, DAMSIM_EMISUSE,
                            "catalog kind must be 'gpus' or 'models', got "
                            "'%.100s'",
                            kind);
    dam_api_diag_done(&c->diag);
    return rc == DAM_OK ? DAMSIM_OK : DAMSIM_EINPUT;
}

void damsim_context_free(damsim_context *c)
{
    if (!c)
        return;
    dam_api_diag_clear(&c->diag);
    dam_catalog_free(&c->cat);
    dam_free(c);
}

/* ---- scenario ----------------------------------------------------------- */

/*
 * Read sc's source with nset overrides into *out (a new scenario) and apply
 * nlev levers after it; file levers into list (may be NULL). Messages into
 * sc's diagnostics. first: the first load of the handle (the scenario's
 * own catalog files are merged into sc->cat then, and only checked later).
 */
static int replay(damsim_scenario *sc, const dam_setting *set, int nset,
                  char *const *lev, int nlev, int first, dam_scenario **out,
                  dam_lever_list *list)
{
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_load_options o;
    memset(&o, 0, sizeof o);
    o.overrides = set;
    o.noverrides = nset;
    o.skip_catalogs = !first;
    o.levers = list;
    int rc = dam_scenario_load_with(s, sc->path, sc->text, &sc->cat, &o,
                                    &sc->diag.d) == DAM_OK &&
                     sc->diag.d.nerr == 0
                 ? DAMSIM_OK
                 : DAMSIM_EINPUT;
    for (int i = 0; rc == DAMSIM_OK && i < nlev; i++) {
        dam_lever lv;
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_lever_parse_kv(lev[i], &lv, &e) != DAM_OK ||
            dam_lever_check(&lv, "", &sc->cat, &e) != DAM_OK ||
            dam_lever_apply(s, &lv, &sc->cat, s, &e) != DAM_OK) {
            dam_lever_error_at(&e, "lever", lev[i]);
            dam_diag_add(&sc->diag.d, &e);
            rc = DAMSIM_EINPUT;
        }
    }
    dam_api_diag_done(&sc->diag);
    if (rc != DAMSIM_OK) {
        dam_free(s);
        return rc;
    }
    *out = s;
    return DAMSIM_OK;
}

/* A new handle on a copy of c's catalogs, read from path or text. */
static int scenario_open(damsim_context *c, const char *path,
                         const char *text, damsim_scenario **out)
{
    if (!out)
        return DAMSIM_EMISUSE;
    *out = NULL;
    if (!c || !path)
        return DAMSIM_EMISUSE;
    damsim_scenario *sc = dam_calloc(1, sizeof *sc);
    dam_diag_init(&sc->diag.d);
    catalog_copy(&sc->cat, &c->cat);
    sc->path = dam_strdup(path);
    sc->text = dam_strdup(text);
    sc->file_levers = dam_calloc(1, sizeof *sc->file_levers);
    *out = sc;
    if (dam_points_probe(path, text)) /* read by `damsim run` alone */
        return dam_api_fail(&sc->diag, DAMSIM_EINPUT,
                            "%.200s: a set of points (scenario.mode = "
                            "\"points\") is not a scenario this interface "
                            "solves ('damsim run' reads it)",
                            path);
    return replay(sc, NULL, 0, NULL, 0, 1, &sc->s, sc->file_levers);
}

int damsim_scenario_load(damsim_context *c, const char *path,
                         damsim_scenario **out)
{
    return scenario_open(c, path, NULL, out);
}

int damsim_scenario_from_string(damsim_context *c, const char *text,
                                const char *name, damsim_scenario **out)
{
    if (!text) {
        if (out)
            *out = NULL;
        return DAMSIM_EMISUSE;
    }
    return scenario_open(c, name ? name : "<string>", text, out);
}

/* A copy of n settings (strings owned). */
static dam_setting *settings_copy(const dam_setting *from, int n, int room)
{
    dam_setting *to = dam_calloc((size_t)(n + room), sizeof *to);
    for (int i = 0; i < n; i++) {
        to[i].key = dam_strdup(from[i].key);
        to[i].value = dam_strdup(from[i].value);
    }
    return to;
}

static void settings_free(dam_setting *set, int n)
{
    for (int i = 0; set && i < n; i++) {
        dam_free((char *)set[i].key);
        dam_free((char *)set[i].value);
    }
    dam_free(set);
}

static char **strings_copy(char *const *from, int n, int room)
{
    char **to = dam_calloc((size_t)(n + room), sizeof *to);
    for (int i = 0; i < n; i++)
        to[i] = dam_strdup(from[i]);
    return to;
}

static void strings_free(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        dam_free(v[i]);
    dam_free(v);
}

damsim_scenario *damsim_scenario_clone(const damsim_scenario *s)
{
    if (!s || !s->s)
        return NULL;
    damsim_scenario *c = dam_calloc(1, sizeof *c);
    dam_diag_init(&c->diag.d);
    catalog_copy(&c->cat, &s->cat);
    c->path = dam_strdup(s->path);
    c->text = dam_strdup(s->text);
    c->set = settings_copy(s->set, s->nset, 0);
    c->nset = s->nset;
    c->levers = strings_copy(s->levers, s->nlevers, 0);
    c->nlevers = s->nlevers;
    c->s = dam_malloc(sizeof *c->s);
    *c->s = *s->s;
    c->file_levers = dam_malloc(sizeof *c->file_levers);
    *c->file_levers = *s->file_levers;
    return c;
}

void damsim_scenario_free(damsim_scenario *s)
{
    if (!s)
        return;
    dam_api_diag_clear(&s->diag);
    dam_catalog_free(&s->cat);
    dam_free(s->path);
    dam_free(s->text);
    settings_free(s->set, s->nset);
    strings_free(s->levers, s->nlevers);
    dam_free(s->s);
    dam_free(s->file_levers);
    dam_free(s->json);
    dam_free(s);
}

int dam_api_scenario_begin(damsim_scenario *sc)
{
    if (!sc)
        return DAMSIM_EMISUSE;
    dam_api_diag_clear(&sc->diag);
    if (!sc->s)
        return dam_api_fail(&sc->diag, DAMSIM_EMISUSE,
                            "'%.200s' holds no scenario (it did not load)",
                            sc->path);
    return DAMSIM_OK;
}

/* Make (set, lev) the handle's state with scenario s, freeing the old. */
static void scenario_adopt(damsim_scenario *sc, dam_setting *set, int nset,
                           char **lev, int nlev, dam_scenario *s)
{
    settings_free(sc->set, sc->nset);
    strings_free(sc->levers, sc->nlevers);
    dam_free(sc->s);
    dam_free(sc->json);
    sc->json = NULL;
    sc->set = set;
    sc->nset = nset;
    sc->levers = lev;
    sc->nlevers = nlev;
    sc->s = s;
}

int damsim_scenario_set(damsim_scenario *sc, const char *key,
                        const char *value)
{
    int rc = dam_api_scenario_begin(sc);
    if (rc != DAMSIM_OK)
        return rc;
    if (!key || !value)
        return dam_api_fail(&sc->diag, DAMSIM_EMISUSE,
                            "a key and a value are needed");
    /* the new list: the key's earlier value replaced, or the key added */
    dam_setting *set = settings_copy(sc->set, sc->nset, 1);
    int n = sc->nset, at = n;
    for (int i = 0; i < n; i++)
        if (strcmp(set[i].key, key) == 0)
            at = i;
    if (at == n) {
        set[at].key = dam_strdup(key);
        n++;
    } else {
        dam_free((char *)set[at].value);
    }
    set[at].value = dam_strdup(value);
    dam_scenario *s = NULL;
    rc = replay(sc, set, n, sc->levers, sc->nlevers, 0, &s, NULL);
    if (rc != DAMSIM_OK) {
        settings_free(set, n);
        return rc;
    }
    scenario_adopt(sc, set, n, strings_copy(sc->levers, sc->nlevers, 0),
                   sc->nlevers, s);
    return DAMSIM_OK;
}

int damsim_scenario_apply_lever(damsim_scenario *sc, const char *lever)
{
    int rc = dam_api_scenario_begin(sc);
    if (rc != DAMSIM_OK)
        return rc;
    if (!lever)
        return dam_api_fail(&sc->diag, DAMSIM_EMISUSE, "no lever given");
    dam_lever lv;
    dam_error e;
    memset(&e, 0, sizeof e);
    dam_scenario *s = dam_malloc(sizeof *s);
    if (dam_lever_parse_kv(lever, &lv, &e) != DAM_OK ||
        dam_lever_check(&lv, "", &sc->cat, &e) != DAM_OK ||
        dam_lever_apply(sc->s, &lv, &sc->cat, s, &e) != DAM_OK) {
        dam_lever_error_at(&e, "lever", lever);
        dam_free(s);
        dam_api_diag_add(&sc->diag, &e);
        return DAMSIM_EINPUT;
    }
    char **lev = strings_copy(sc->levers, sc->nlevers, 1);
    lev[sc->nlevers] = dam_strdup(lever);
    scenario_adopt(sc, settings_copy(sc->set, sc->nset, 0), sc->nset, lev,
                   sc->nlevers + 1, s);
    return DAMSIM_OK;
}

/* The value of a stored row k of s as written, into buf. */
static void row_value(const dam_key_row *k, const dam_scenario *s, char *buf,
                      size_t n)
{
    const char *at = (const char *)s + k->offset;
    int i;
    double v;
    switch (k->type) {
    case DAM_KEY_INT:
        memcpy(&i, at, sizeof i);
        snprintf(buf, n, "%d", i);
        break;
    case DAM_KEY_BOOL:
        memcpy(&i, at, sizeof i);
        snprintf(buf, n, "%s", i ? "true" : "false");
        break;
    case DAM_KEY_CHOICE:
        memcpy(&i, at, sizeof i);
        snprintf(buf, n, "%s", i >= 0 ? k->choices[i] : "");
        break;
    case DAM_KEY_NUM:
        memcpy(&v, at, sizeof v);
        snprintf(buf, n, "%.17g", v / (k->scale != 0.0 ? k->scale : 1.0));
        break;
    default: /* DAM_KEY_TEXT */
        snprintf(buf, n, "%.*s", (int)k->size, at);
        break;
    }
}

/* A key the schema does not store in a field: the catalog entries in
 * effect, else the value set or written. 1 when found. */
static int unstored_value(const damsim_scenario *sc, const char *key,
                          char *buf, size_t n)
{
    if (strcmp(key, "machine.gpu") == 0) {
        snprintf(buf, n, "%s", sc->s->machine.gpu.id);
        return 1;
    }
    if (strcmp(key, "workload.model") == 0) {
        snprintf(buf, n, "%s", sc->s->workload.model.id);
        return 1;
    }
    for (int i = sc->nset - 1; i >= 0; i--)
        if (strcmp(sc->set[i].key, key) == 0) {
            snprintf(buf, n, "%s", sc->set[i].value);
            return 1;
        }
    dam_setting *w = NULL;
    int nw = dam_scenario_settings(sc->path, sc->text, &w);
    int found = 0;
    for (int i = 0; i < nw && !found; i++)
        if (strcmp(w[i].key, key) == 0) {
            snprintf(buf, n, "%s", w[i].value);
            found = 1;
        }
    dam_settings_free(w, nw < 0 ? 0 : nw);
    return found;
}

/* The row of key, or NULL after a message. */
static const dam_key_row *key_row(damsim_scenario *sc, const char *key)
{
    const dam_key_row *k = key ? dam_schema_key(key) : NULL;
    if (!k || k->type == DAM_KEY_GROUP)
        dam_api_fail(&sc->diag, DAMSIM_ENOTFOUND,
                     "unknown key '%.200s' (the keys: damsim catalog keys)",
                     key ? key : "");
    return k && k->type != DAM_KEY_GROUP ? k : NULL;
}

int damsim_scenario_get(damsim_scenario *sc, const char *key, char *buf,
                        size_t n)
{
    int rc = dam_api_scenario_begin(sc);
    if (rc != DAMSIM_OK)
        return rc;
    if (!buf || n == 0)
        return dam_api_fail(&sc->diag, DAMSIM_EMISUSE, "no buffer given");
    buf[0] = '\0';
    const dam_key_row *k = key_row(sc, key);
    if (!k)
        return DAMSIM_ENOTFOUND;
    if (k->offset != DAM_KEY_NOWHERE) {
        row_value(k, sc->s, buf, n);
        return DAMSIM_OK;
    }
    if (unstored_value(sc, key, buf, n))
        return DAMSIM_OK;
    return dam_api_fail(&sc->diag, DAMSIM_ENOTFOUND,
                        "'%.200s' is not given by this scenario", key);
}

int damsim_scenario_get_number(damsim_scenario *sc, const char *key,
                               double *out)
{
    int rc = dam_api_scenario_begin(sc);
    if (rc != DAMSIM_OK)
        return rc;
    if (!out)
        return dam_api_fail(&sc->diag, DAMSIM_EMISUSE, "no output given");
    const dam_key_row *k = key_row(sc, key);
    if (!k)
        return DAMSIM_ENOTFOUND;
    if (k->offset == DAM_KEY_NOWHERE ||
        (k->type != DAM_KEY_INT && k->type != DAM_KEY_NUM &&
         k->type != DAM_KEY_BOOL))
        return dam_api_fail(&sc->diag, DAMSIM_ENOTFOUND,
                            "'%.200s' is not a number the scenario stores "
                            "(damsim_scenario_get reads it as text)",
                            key);
    const char *at = (const char *)sc->s + k->offset;
    if (k->type == DAM_KEY_NUM) {
        double v;
        memcpy(&v, at, sizeof v);
        *out = v / (k->scale != 0.0 ? k->scale : 1.0);
    } else {
        int i;
        memcpy(&i, at, sizeof i);
        *out = i;
    }
    return DAMSIM_OK;
}

const char *damsim_scenario_json(damsim_scenario *sc)
{
    if (!sc || !sc->s)
        return NULL;
    if (!sc->json) {
        dam_buf b = {0};
        dam_json_dump(&b, dam_json_scenario(sc->s));
        sc->json = dam_strdup(dam_buf_str(&b));
        dam_buf_free(&b);
    }
    return sc->json;
}

/* ---- results ------------------------------------------------------------ */

struct damsim_result *dam_api_result_new(json_t *v)
{
    struct damsim_result *r = dam_calloc(1, sizeof *r);
    dam_buf b = {0};
    json_incref(v);
    dam_json_dump(&b, v); /* releases one reference */
    r->root = v;
    r->text = dam_strdup(dam_buf_str(&b));
    dam_buf_free(&b);
    return r;
}

json_t *dam_api_json_at(json_t *v, const char *path)
{
    if (!v || !path)
        return NULL;
    char part[256];
    const char *p = path;
    while (v && *p) {
        size_t len = strcspn(p, ".");
        if (len == 0 || len >= sizeof part)
            return NULL;
        memcpy(part, p, len);
        part[len] = '\0';
        p += len;
        if (*p == '.' && !*++p)
            return NULL; /* a trailing dot */
        if (json_is_array(v)) {
            char *end;
            unsigned long i = strtoul(part, &end, 10);
            v = *end || part[0] == '-' ? NULL : json_array_get(v, i);
        } else {
            v = json_object_get(v, part);
        }
    }
    return v;
}

int dam_api_json_number(json_t *v, const char *path, double *out)
{
    json_t *x = dam_api_json_at(v, path);
    if (json_is_boolean(x)) {
        *out = json_is_true(x) ? 1.0 : 0.0;
        return DAMSIM_OK;
    }
    if (!json_is_number(x))
        return DAMSIM_ENOTFOUND;
    *out = json_number_value(x);
    return DAMSIM_OK;
}

const char *damsim_result_json(const damsim_result *r)
{
    return r ? r->text : NULL;
}

int damsim_result_number(const damsim_result *r, const char *path,
                         double *out)
{
    if (!r || !path || !out)
        return DAMSIM_EMISUSE;
    return dam_api_json_number(r->root, path, out);
}

const char *damsim_result_string(const damsim_result *r, const char *path)
{
    return r ? json_string_value(dam_api_json_at(r->root, path)) : NULL;
}

void damsim_result_free(damsim_result *r)
{
    if (!r)
        return;
    json_decref(r->root);
    dam_free(r->text);
    dam_free(r);
}

const char *damsim_whatif_json(const damsim_whatif *w)
{
    return w ? w->r.text : NULL;
}

int damsim_whatif_count(const damsim_whatif *w)
{
    return w ? w->nrows : 0;
}

/* Row i's JSON object, or NULL. */
static json_t *whatif_row(const damsim_whatif *w, int i)
{
    if (!w || i < 0 || i >= w->nrows)
        return NULL;
    return json_array_get(json_object_get(w->r.root, "options"), (size_t)i);
}

const char *damsim_whatif_name(const damsim_whatif *w, int i)
{
    return json_string_value(json_object_get(whatif_row(w, i), "option"));
}

int damsim_whatif_number(const damsim_whatif *w, int i, const char *path,
                         double *out)
{
    if (!w || !path || !out)
        return DAMSIM_EMISUSE;
    json_t *row = whatif_row(w, i);
    return row ? dam_api_json_number(row, path, out) : DAMSIM_ENOTFOUND;
}

void damsim_whatif_free(damsim_whatif *w)
{
    if (!w)
        return;
    json_decref(w->r.root);
    dam_free(w->r.text);
    dam_free(w);
}
