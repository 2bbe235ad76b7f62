/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * constants.c: the calibrated catalog constants by key (see constants.h).
 *
 * Fields come from two tables: the device model's (device.h dam_param_*:
 * a GPU's device constants and the framework's), and `model_fields` below
 * (the legacy per-model efficiency overrides). A field resolves to a
 * `fdesc` (owner, range, unit, per-precision, per-GPU) and its slots are
 * reached through the owning table's accessor, so adding a constant to
 * either table is enough for keys, overlays, fits and draws to follow.
 *
 * The framework constants have one home in a catalog (dam_catalog.fw: the
 * framework's name and the device model's index with a value and sd), set
 * by overlays and copied into each scenario of that framework loaded after
 * them (loader.c) through dam_param_ref, so this file knows nothing of
 * dam_framework's layout.
 */
#include "model/constants.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/device.h"

/* Where a constant lives: its value and sd slots (sd NULL: none). */
typedef struct slot {
    double *value;
    double *sd;
} slot;

/* A resolved field. */
typedef struct fdesc {
    dam_const_owner owner;
    const char *name;
    int per_precision;  /* 1: the key names a precision */
    int per_gpu;        /* 1: a model constant that may be specific to a GPU */
    double lo, hi;      /* admissible range, SI */
    const char *unit;   /* display unit ("" for a fraction) */
    double scale;       /* SI per display unit */
    double rel_sd;      /* default relative sd when the catalog gives none */
} fdesc;

/*
 * Default relative uncertainty of a constant that carries no sd of its
 * own: 0.10 (1 sd). Provisional: the spread of the catalog's own legacy
 * calibrations of one family on one GPU (data/models.cfg: MPT 1B..70B on
 * A100 fit 0.63 to 0.78, sd 0.06 about 0.70 = 9 %), rounded up. The device
 * model's constants all carry their own (device.c, data/README.md).
 */
#define DEFAULT_REL_SD 0.10

static const char *const prec_names[DAM_PREC_COUNT] = {
    "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};

static const char *const owner_names[] = {"gpu", "model", "framework"};

/* ---- fields ----------------------------------------------------------- */

/* The model's compute efficiency (catalog.h dam_model_spec.eta and
 * gpu_eta): the share of the precision's peak reached on compute-bound
 * work when set. A per-GPU slot is the GPU's entry; without on_gpu, the
 * default. */
static int model_efficiency(dam_model_spec *m, int p, const char *on_gpu,
                            int create, slot *out)
{
    if (!on_gpu[0]) {
        out->value = &m->eta[p];
        out->sd = &m->eta_sd[p];
        return 1;
    }
    for (int i = 0; i < m->ngpu_eta; i++)
        if (strcasecmp(m->gpu_eta[i].gpu, on_gpu) == 0) {
            out->value = &m->gpu_eta[i].eta[p];
            out->sd = &m->gpu_eta[i].eta_sd[p];
            return 1;
        }
    if (!create || m->ngpu_eta >= DAM_MAX_GPU_ETA)
        return 0;
    int k = m->ngpu_eta++;
    memset(&m->gpu_eta[k], 0, sizeof m->gpu_eta[k]);
    snprintf(m->gpu_eta[k].gpu, sizeof m->gpu_eta[k].gpu, "%s", on_gpu);
    out->value = &m->gpu_eta[k].eta[p];
    out->sd = &m->gpu_eta[k].eta_sd[p];
    return 1;
}

/* Resolve owner + field name (and a precision, for the device table's
 * per-precision rows) into d. Returns 0 when unknown. */
static int find_field(dam_const_owner owner, const char *name, fdesc *d)
{
    memset(d, 0, sizeof *d);
    d->owner = owner;
    d->scale = 1.0;
    d->unit = "";
    d->rel_sd = DEFAULT_REL_SD;
    if (owner == DAM_CONST_MODEL) {
        if (strcmp(name, "efficiency") == 0) {
            d->name = "efficiency";
            d->per_precision = 1;
            d->per_gpu = 1;
            d->lo = 1e-4;
            d->hi = 1.0;
            return 1;
        }
        if (strcmp(name, "step_error") == 0) {
            /* a spread itself: its value is the relative sd, no sd of its
             * own */
            d->name = "step_error";
            d->lo = 0.0;
            d->hi = 1.0;
            d->rel_sd = 0.0;
            return 1;
        }
        return 0;
    }
    dam_param_scope want = owner == DAM_CONST_GPU ? DAM_PARAM_DEVICE
                                                  : DAM_PARAM_FRAMEWORK;
    for (int i = 0; i < dam_param_count(); i++) {
        const dam_param_info *pi = dam_param_get(i);
        if (pi->scope != want || strcmp(pi->field, name) != 0)
            continue;
        d->name = pi->field;
        d->per_precision = pi->prec >= 0;
        d->lo = pi->lo;
        d->hi = pi->hi;
        d->unit = pi->unit;
        d->scale = pi->scale > 0.0 ? pi->scale : 1.0;
        return 1;
    }
    return 0;
}

/* The device model's index of a device or framework key, or -1. */
static int param_index(const dam_const_key *k)
{
    return dam_param_find(k->field, k->precision);
}

/* A catalog's slot for a framework constant (the device model's index
 * param): its entry in c->fw, made when create and missing. */
static int framework_slot(dam_catalog *c, const char *name, int param,
                          int create, slot *out)
{
    int i = 0;
    while (i < c->nfw && (c->fw[i].param != param ||
                          strcmp(c->fw[i].name, name) != 0))
        i++;
    if (i == c->nfw) {
        if (!create || c->nfw >= DAM_MAX_FW_CONSTS)
            return 0;
        c->nfw++;
        snprintf(c->fw[i].name, sizeof c->fw[i].name, "%s", name);
        c->fw[i].param = param;
        c->fw[i].value = 0.0;
        c->fw[i].sd = 0.0;
    }
    out->value = &c->fw[i].value;
    out->sd = &c->fw[i].sd;
    return 1;
}

/* ---- keys ------------------------------------------------------------- */

void dam_const_key_format(const dam_const_key *k, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s/%s/%s", owner_names[k->owner], k->entry,
                       k->field);
    if (len < 0 || (size_t)len >= n)
        return;
    if (k->precision >= 0 && k->precision < DAM_PREC_COUNT)
        len += snprintf(buf + len, n - (size_t)len, "/%s",
                        prec_names[k->precision]);
    if (len >= 0 && (size_t)len < n && k->on_gpu[0])
        snprintf(buf + len, n - (size_t)len, "@%s", k->on_gpu);
}

int dam_const_key_parse(const char *s, dam_const_key *k, dam_error *err)
{
    memset(k, 0, sizeof *k);
    k->precision = -1;
    char buf[DAM_CONST_KEY_MAX + 16];
    if (strlen(s) >= sizeof buf)
        return dam_error_set(err, "", 0, "constant key too long: \"%.40s...\"",
                             s);
    snprintf(buf, sizeof buf, "%s", s);
    char *at = strchr(buf, '@');
    if (at) {
        *at++ = '\0';
        if (!*at || strlen(at) >= sizeof k->on_gpu)
            return dam_error_set(err, "", 0,
                                 "bad GPU after '@' in constant \"%s\"", s);
        snprintf(k->on_gpu, sizeof k->on_gpu, "%s", at);
    }
    char *part[5];
    int np = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, "/", &save); t && np < 5;
         t = strtok_r(NULL, "/", &save))
        part[np++] = t;
    if (np < 3 || np > 4)
        return dam_error_set(err, "", 0,
                             "constant \"%s\" is not gpu/ID/FIELD[/PRECISION],"
                             " framework/NAME/FIELD[/PRECISION] or model/ID/FIELD"
                             "[/PRECISION][@GPU]", s);
    int o = 0;
    while (o < 3 && strcmp(part[0], owner_names[o]) != 0)
        o++;
    if (o == 3)
        return dam_error_set(err, "", 0,
                             "constant \"%s\" must start with gpu/, model/ "
                             "or framework/", s);
    k->owner = (dam_const_owner)o;
    if (strlen(part[1]) >= sizeof k->entry || strlen(part[2]) >= sizeof k->field)
        return dam_error_set(err, "", 0, "constant \"%s\": name too long", s);
    snprintf(k->entry, sizeof k->entry, "%s", part[1]);
    snprintf(k->field, sizeof k->field, "%s", part[2]);
    fdesc f;
    if (!find_field(k->owner, k->field, &f))
        return dam_error_set(err, "", 0,
                             "constant \"%s\": no calibrated field \"%s\" of "
                             "a %s", s, k->field, part[0]);
    if (np == 4) {
        int p = 0;
        while (p < DAM_PREC_COUNT && strcmp(prec_names[p], part[3]) != 0)
            p++;
        if (p == DAM_PREC_COUNT)
            return dam_error_set(err, "", 0,
                                 "constant \"%s\": unknown precision \"%s\"",
                                 s, part[3]);
        k->precision = p;
    }
    if (f.per_precision && k->precision < 0)
        return dam_error_set(err, "", 0,
                             "constant \"%s\" needs a precision "
                             "(\".../%s/bf16\")", s, k->field);
    if (!f.per_precision && k->precision >= 0)
        return dam_error_set(err, "", 0,
                             "constant \"%s\": '%s' is not per precision", s,
                             k->field);
    if (k->owner != DAM_CONST_MODEL && param_index(k) < 0)
        return dam_error_set(err, "", 0,
                             "constant \"%s\": no '%s' at that precision", s,
                             k->field);
    if (k->on_gpu[0] && !f.per_gpu)
        return dam_error_set(err, "", 0,
                             "constant \"%s\": '%s' is not per GPU", s,
                             k->field);
    return DAM_OK;
}

int dam_const_key_equal(const dam_const_key *a, const dam_const_key *b)
{
    return a->owner == b->owner && a->precision == b->precision &&
           strcasecmp(a->entry, b->entry) == 0 &&
           strcmp(a->field, b->field) == 0 &&
           strcasecmp(a->on_gpu, b->on_gpu) == 0;
}

int dam_const_field_info(dam_const_owner owner, const char *field, double *lo,
                         double *hi, const char **unit, double *scale)
{
    fdesc f;
    if (!find_field(owner, field, &f))
        return 0;
    if (lo)
        *lo = f.lo;
    if (hi)
        *hi = f.hi;
    if (unit)
        *unit = f.unit;
    if (scale)
        *scale = f.scale;
    return 1;
}

double dam_const_default_rel_sd(dam_const_owner owner, const char *field)
{
    fdesc f;
    return find_field(owner, field, &f) ? f.rel_sd : 0.0;
}

/* ---- in a catalog ------------------------------------------------------ */

/* The slots of k in catalog c (create: make a model's per-GPU entry).
 * Returns 0 with err's message when there is none. */
static int catalog_slot(dam_catalog *c, const dam_const_key *k, int create,
                        slot *sl, dam_error *err)
{
    char name[DAM_CONST_KEY_MAX];
    dam_const_key_format(k, name, sizeof name);
    if (k->owner == DAM_CONST_FRAMEWORK) {
        if (!framework_slot(c, k->entry, param_index(k), create, sl)) {
            dam_error_set(err, "", 0,
                          create ? "constant \"%s\": no room for another "
                                   "framework constant"
                                 : "constant \"%s\" has no value in the "
                                   "catalog", name);
            return 0;
        }
        return 1;
    }
    if (k->owner == DAM_CONST_GPU) {
        dam_gpu *g = (dam_gpu *)dam_catalog_gpu(c, k->entry);
        if (!g || dam_param_ref_gpu(param_index(k), g, &sl->value,
                                    &sl->sd) != 0) {
            dam_error_set(err, "", 0, "constant \"%s\": no GPU \"%s\" in "
                          "the catalog", name, k->entry);
            return 0;
        }
        return 1;
    }
    dam_model_spec *m = (dam_model_spec *)dam_catalog_model(c, k->entry);
    if (!m) {
        dam_error_set(err, "", 0, "constant \"%s\": no model \"%s\" in the "
                      "catalog", name, k->entry);
        return 0;
    }
    if (strcmp(k->field, "step_error") == 0) {
        sl->value = &m->step_error;
        sl->sd = NULL; /* a spread has no sd of its own */
        return 1;
    }
    if (!model_efficiency(m, k->precision, k->on_gpu, create, sl)) {
        dam_error_set(err, "", 0,
                      create ? "constant \"%s\": no room for another per-GPU "
                               "entry (at most %d)"
                             : "constant \"%s\" has no value in the catalog",
                      name, DAM_MAX_GPU_ETA);
        return 0;
    }
    return 1;
}

int dam_catalog_const_get(const dam_catalog *c, const dam_const_key *k,
                          double *value, double *sd, dam_error *err)
{
    slot sl;
    char name[DAM_CONST_KEY_MAX];
    dam_const_key_format(k, name, sizeof name);
    if (!catalog_slot((dam_catalog *)c, k, 0, &sl, err))
        return DAM_EINPUT;
    if (!(*sl.value > 0.0))
        return dam_error_set(err, "", 0, "constant \"%s\" has no value in "
                             "the catalog", name);
    *value = *sl.value;
    *sd = sl.sd ? *sl.sd : 0.0;
    return DAM_OK;
}

int dam_catalog_const_set(dam_catalog *c, const dam_const_key *k,
                          double value, double sd, dam_error *err)
{
    fdesc f;
    char name[DAM_CONST_KEY_MAX];
    dam_const_key_format(k, name, sizeof name);
    if (!find_field(k->owner, k->field, &f))
        return dam_error_set(err, "", 0, "constant \"%s\": unknown field",
                             name);
    if (k->on_gpu[0] && !dam_catalog_gpu(c, k->on_gpu))
        return dam_error_set(err, "", 0, "constant \"%s\": no GPU \"%s\" in "
                             "the catalog", name, k->on_gpu);
    if (!(value >= f.lo && value <= f.hi))
        return dam_error_set(err, "", 0,
                             "constant \"%s\" must be in [%g, %g]%s%s, got "
                             "%g", name, f.lo / f.scale, f.hi / f.scale,
                             f.unit[0] ? " " : "", f.unit, value / f.scale);
    if (!(sd >= 0.0) || !isfinite(sd))
        return dam_error_set(err, "", 0,
                             "the sd of constant \"%s\" must be >= 0, got %g",
                             name, sd / f.scale);
    slot sl;
    if (!catalog_slot(c, k, 1, &sl, err))
        return DAM_EINPUT;
    *sl.value = value;
    if (sl.sd)
        *sl.sd = sd;
    return DAM_OK;
}

double dam_scenario_step_error(const dam_scenario *s)
{
    double e = s->workload.model.step_error;
    return e > 0.0 ? e : DAM_DEFAULT_STEP_ERROR;
}

void dam_catalog_framework_apply(const dam_catalog *c, dam_scenario *s)
{
    for (int i = 0; i < c->nfw; i++) {
        double *v, *sd;
        if (strcmp(c->fw[i].name, s->workload.framework_name) == 0 &&
            dam_param_ref(c->fw[i].param, s, &v, &sd) == 0) {
            *v = c->fw[i].value;
            *sd = c->fw[i].sd;
        }
    }
}

/* ---- constants a scenario uses --------------------------------------- */

/* The legacy efficiency the scenario uses comes from the catalog when it is
 * applied (eta_given) and equals the model's calibrated value on its GPU
 * at its precision (the test lever.c applies when the GPU changes). */
static int eta_from_catalog(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    double e = dam_model_eta(&w->model, s->machine.gpu.id, w->precision);
    return w->eta_given && e > 0.0 && w->eta == e && !w->eta_carried;
}

/* 1 when the model has a per-GPU efficiency for the scenario's GPU at its
 * precision (then that entry, not the default, is the constant). */
static int eta_on_gpu(const dam_scenario *s)
{
    const dam_model_spec *m = &s->workload.model;
    for (int i = 0; i < m->ngpu_eta; i++)
        if (strcasecmp(m->gpu_eta[i].gpu, s->machine.gpu.id) == 0 &&
            m->gpu_eta[i].eta[s->workload.precision] > 0.0)
            return 1;
    return 0;
}

/* Fill a use from its key, value and sd (the field's default sd when sd
 * is 0). */
/* snprintf(dst, n, "%s", src) without the format interpreter (n > 0):
 * the same bytes (interval draws list a scenario's constants per point). */
static void copy_str(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    dst[l] = '\0';
}

static void fill_use_in(dam_const_use *u, const dam_const_key *k, double v,
                        double sd, double lo, double hi, double rel_sd)
{
    memset(u, 0, sizeof *u);
    u->key = *k;
    u->value = v;
    u->lo = lo;
    u->hi = hi;
    u->sd = sd;
    if (!(u->sd > 0.0)) {
        u->sd = rel_sd * fabs(v);
        u->default_sd = 1;
    }
}

static void fill_use(dam_const_use *u, const dam_const_key *k, double v,
                     double sd)
{
    fdesc f;
    find_field(k->owner, k->field, &f);
    fill_use_in(u, k, v, sd, f.lo, f.hi, f.rel_sd);
}

int dam_scenario_constants(const dam_scenario *s, dam_const_use *out,
                           int max)
{
    int n = 0;
    const dam_workload *w = &s->workload;
    int legacy = w->eta_given;
    if (n < max && w->model.id[0] && eta_from_catalog(s)) {
        dam_const_key k;
        memset(&k, 0, sizeof k);
        k.owner = DAM_CONST_MODEL;
        copy_str(k.entry, sizeof k.entry, w->model.id);
        copy_str(k.field, sizeof k.field, "efficiency");
        k.precision = (int)w->precision;
        if (eta_on_gpu(s))
            copy_str(k.on_gpu, sizeof k.on_gpu, s->machine.gpu.id);
        fill_use(&out[n++], &k, w->eta,
                 dam_model_eta_sd(&w->model, s->machine.gpu.id,
                                  w->precision));
    }
    /* the device model's constants of the scenario's GPU at its precision,
     * and the framework's; a GEMM fraction an efficiency overrides is not
     * used, nor a memory fraction memory_efficiency overrides */
    for (int i = 0; i < dam_param_count() && n < max; i++) {
        const dam_param_info *pi = dam_param_get(i);
        if (pi->prec >= 0 && pi->prec != (int)w->precision)
            continue;
        if (legacy && strcmp(pi->field, "gemm_frac") == 0)
            continue;
        if (w->eta_mem_given && strcmp(pi->field, "mem_frac") == 0)
            continue;
        double *v, *sd;
        if (dam_param_ref(i, (dam_scenario *)s, &v, &sd) != 0 || !(*v > 0.0))
            continue;
        dam_const_key k;
        memset(&k, 0, sizeof k);
        k.owner = pi->scope == DAM_PARAM_DEVICE ? DAM_CONST_GPU
                                                : DAM_CONST_FRAMEWORK;
        copy_str(k.entry, sizeof k.entry,
                 k.owner == DAM_CONST_GPU ? s->machine.gpu.id
                 : w->framework_name[0] ? w->framework_name : "default");
        copy_str(k.field, sizeof k.field, pi->field);
        k.precision = pi->prec;
        /* find_field's range for the field is pi's (the rows of one
         * field share it; test_constants checks) and the default sd */
        fill_use_in(&out[n++], &k, *v, *sd, pi->lo, pi->hi, DEFAULT_REL_SD);
    }
    return n;
}

/* Byte offset of p inside s. */
static size_t offset_in(const dam_scenario *s, const double *p)
{
    return (size_t)((const char *)p - (const char *)s);
}

int dam_scenario_const_place(const dam_scenario *s, const dam_const_key *k,
                             dam_const_place *pl)
{
    /* the lookups below take the scenario's own fields; nothing is
     * written */
    dam_scenario *m = (dam_scenario *)s;
    dam_workload *w = &m->workload;
    memset(pl, 0, sizeof *pl);
    if (k->owner != DAM_CONST_MODEL) {
        if (k->owner == DAM_CONST_GPU &&
            strcasecmp(k->entry, s->machine.gpu.id) != 0)
            return 0;
        if (k->owner == DAM_CONST_FRAMEWORK &&
            strcmp(k->entry, w->framework_name[0] ? w->framework_name
                                                  : "default") != 0)
            return 0;
        if (k->precision >= 0 && k->precision != (int)w->precision)
            return 0;
        double *pv, *psd;
        if (dam_param_ref(param_index(k), m, &pv, &psd) != 0)
            return 0;
        pl->value[pl->nvalue++] = offset_in(s, pv);
        pl->sd[pl->nsd++] = offset_in(s, psd);
        return 1;
    }
    if (strcmp(k->field, "efficiency") != 0 ||
        strcasecmp(k->entry, w->model.id) != 0 ||
        k->precision != (int)w->precision)
        return 0;
    int on_gpu = eta_on_gpu(s);
    if (k->on_gpu[0] ? (!on_gpu || strcasecmp(k->on_gpu,
                                              s->machine.gpu.id) != 0)
                     : on_gpu)
        return 0;
    if (!eta_from_catalog(s))
        return 0;
    slot sl;
    if (model_efficiency(&w->model, k->precision, k->on_gpu, 0, &sl)) {
        pl->value[pl->nvalue++] = offset_in(s, sl.value);
        pl->sd[pl->nsd++] = offset_in(s, sl.sd);
    }
    pl->value[pl->nvalue++] = offset_in(s, &w->eta);
    return 1;
}

void dam_const_place_write(dam_scenario *s, const dam_const_place *pl,
                           double v, double sd)
{
    char *b = (char *)s;
    for (int i = 0; i < pl->nvalue; i++)
        memcpy(b + pl->value[i], &v, sizeof v);
    if (sd >= 0.0)
        for (int i = 0; i < pl->nsd; i++)
            memcpy(b + pl->sd[i], &sd, sizeof sd);
}

int dam_scenario_const_set(dam_scenario *s, const dam_const_key *k, double v,
                           double sd)
{
    dam_const_place pl;
    if (!dam_scenario_const_place(s, k, &pl))
        return 0;
    dam_const_place_write(s, &pl, v, sd);
    return 1;
}
