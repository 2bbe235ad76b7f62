/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * constants.c: the table of calibrated catalog constants and their keys
 * (see constants.h).
 *
 * Each field has a row in `fields`: its owner, name, whether it is per
 * precision and per GPU, its range and unit, its default relative standard
 * uncertainty, and one accessor that finds the value and sd slots in a catalog
 * entry (creating a per-GPU slot on request). Adding a calibrated field is
 * a row and an accessor; keys, overlays, fits and draws follow.
 */
#include "model/constants.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Where a constant lives in an entry: its value and sd slots. */
typedef struct slot {
    double *value;
    double *sd;
} slot;

/* Find (create == 1: make when missing) the slots of a field in entry
 * (a dam_gpu or dam_model_spec); returns 0 when there is none. */
typedef int (*accessor)(void *entry, int precision, const char *on_gpu,
                        int create, slot *out);

typedef struct field_def {
    dam_const_owner owner;
    const char *name;
    int per_precision;  /* 1: the key names a precision */
    int per_gpu;        /* 1: a model constant that may be specific to a GPU */
    double lo, hi;      /* admissible range */
    const char *unit;   /* "" for a fraction */
    double rel_sd;      /* default relative sd when the catalog gives none */
    accessor get;
} field_def;

/* The model's compute efficiency (catalog.h dam_model_spec.eta and
 * gpu_eta): the share of the precision's peak reached on compute-bound
 * phases. A per-GPU slot is the GPU's entry; without on_gpu, the default. */
static int model_efficiency(void *entry, int p, const char *on_gpu,
                            int create, slot *out)
{
    dam_model_spec *m = entry;
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

/*
 * Default relative uncertainty of an efficiency that carries no sd of its
 * own: 0.10 (1 sd). Provisional: the spread of the catalog's own
 * calibrations of one family on one GPU (data/models.cfg: MPT 1B..70B on
 * A100 fit 0.63 to 0.78, sd 0.06 about 0.70 = 9 %; ResNet-50 fp16 on one
 * and eight A100s fits 0.52 and 0.35 about 0.415), rounded up.
 */
#define EFFICIENCY_REL_SD 0.10

static const field_def fields[] = {
    {DAM_CONST_MODEL, "efficiency", 1, 1, 1e-4, 1.0, "", EFFICIENCY_REL_SD,
     model_efficiency},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *const prec_names[DAM_PREC_COUNT] = {
    "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};

static const field_def *find_field(dam_const_owner owner, const char *name)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (fields[i].owner == owner && strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

void dam_const_key_format(const dam_const_key *k, char *buf, size_t n)
{
    int len = snprintf(buf, n, "%s/%s/%s",
                       k->owner == DAM_CONST_GPU ? "gpu" : "model", k->entry,
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
                             "constant \"%s\" is not gpu/ID/FIELD[/PRECISION] "
                             "or model/ID/FIELD[/PRECISION][@GPU]", s);
    if (strcmp(part[0], "gpu") == 0)
        k->owner = DAM_CONST_GPU;
    else if (strcmp(part[0], "model") == 0)
        k->owner = DAM_CONST_MODEL;
    else
        return dam_error_set(err, "", 0,
                             "constant \"%s\" must start with gpu/ or model/",
                             s);
    if (strlen(part[1]) >= sizeof k->entry || strlen(part[2]) >= sizeof k->field)
        return dam_error_set(err, "", 0, "constant \"%s\": name too long", s);
    snprintf(k->entry, sizeof k->entry, "%s", part[1]);
    snprintf(k->field, sizeof k->field, "%s", part[2]);
    const field_def *f = find_field(k->owner, k->field);
    if (!f)
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
    if (f->per_precision && k->precision < 0)
        return dam_error_set(err, "", 0,
                             "constant \"%s\" needs a precision "
                             "(\".../%s/bf16\")", s, k->field);
    if (!f->per_precision && k->precision >= 0)
        return dam_error_set(err, "", 0,
                             "constant \"%s\": '%s' is not per precision", s,
                             k->field);
    if (k->on_gpu[0] && !f->per_gpu)
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
                         double *hi, const char **unit)
{
    const field_def *f = find_field(owner, field);
    if (!f)
        return 0;
    if (lo)
        *lo = f->lo;
    if (hi)
        *hi = f->hi;
    if (unit)
        *unit = f->unit;
    return 1;
}

double dam_const_default_rel_sd(dam_const_owner owner, const char *field)
{
    const field_def *f = find_field(owner, field);
    return f ? f->rel_sd : 0.0;
}

/* The catalog entry k belongs to, or NULL. */
static void *entry_of(const dam_catalog *c, const dam_const_key *k)
{
    if (k->owner == DAM_CONST_GPU)
        return (void *)dam_catalog_gpu(c, k->entry);
    return (void *)dam_catalog_model(c, k->entry);
}

int dam_catalog_const_get(const dam_catalog *c, const dam_const_key *k,
                          double *value, double *sd, dam_error *err)
{
    const field_def *f = find_field(k->owner, k->field);
    void *e = entry_of(c, k);
    char name[DAM_CONST_KEY_MAX];
    dam_const_key_format(k, name, sizeof name);
    slot sl;
    if (!f || !e)
        return dam_error_set(err, "", 0, "constant \"%s\": no %s \"%s\" in "
                             "the catalog", name,
                             k->owner == DAM_CONST_GPU ? "GPU" : "model",
                             k->entry);
    if (!f->get(e, k->precision < 0 ? 0 : k->precision, k->on_gpu, 0, &sl) ||
        *sl.value <= 0.0)
        return dam_error_set(err, "", 0, "constant \"%s\" has no value in "
                             "the catalog", name);
    *value = *sl.value;
    *sd = *sl.sd;
    return DAM_OK;
}

int dam_catalog_const_set(dam_catalog *c, const dam_const_key *k,
                          double value, double sd, dam_error *err)
{
    const field_def *f = find_field(k->owner, k->field);
    void *e = entry_of(c, k);
    char name[DAM_CONST_KEY_MAX];
    dam_const_key_format(k, name, sizeof name);
    if (!f || !e)
        return dam_error_set(err, "", 0, "constant \"%s\": no %s \"%s\" in "
                             "the catalog", name,
                             k->owner == DAM_CONST_GPU ? "GPU" : "model",
                             k->entry);
    if (k->on_gpu[0] && !dam_catalog_gpu(c, k->on_gpu))
        return dam_error_set(err, "", 0, "constant \"%s\": no GPU \"%s\" in "
                             "the catalog", name, k->on_gpu);
    if (!(value >= f->lo && value <= f->hi))
        return dam_error_set(err, "", 0,
                             "constant \"%s\" must be in [%g, %g], got %g",
                             name, f->lo, f->hi, value);
    if (!(sd >= 0.0) || !isfinite(sd))
        return dam_error_set(err, "", 0,
                             "the sd of constant \"%s\" must be >= 0, got %g",
                             name, sd);
    slot sl;
    if (!f->get(e, k->precision < 0 ? 0 : k->precision, k->on_gpu, 1, &sl))
        return dam_error_set(err, "", 0,
                             "constant \"%s\": no room for another per-GPU "
                             "entry (at most %d)", name, DAM_MAX_GPU_ETA);
    *sl.value = value;
    *sl.sd = sd;
    return DAM_OK;
}

/* ---- constants a scenario uses --------------------------------------- */

/* The efficiency the scenario uses comes from the catalog when it equals
 * the model's calibrated value on its GPU at its precision (the test
 * lever.c applies when the GPU changes). */
static int eta_from_catalog(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    double e = dam_model_eta(&w->model, s->machine.gpu.id, w->precision);
    return e > 0.0 && w->eta == e && !w->eta_carried;
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

int dam_scenario_constants(const dam_scenario *s, dam_const_use *out,
                           int max)
{
    int n = 0;
    const dam_workload *w = &s->workload;
    if (n < max && w->model.id[0] && eta_from_catalog(s)) {
        dam_const_use *u = &out[n++];
        memset(u, 0, sizeof *u);
        u->key.owner = DAM_CONST_MODEL;
        snprintf(u->key.entry, sizeof u->key.entry, "%s", w->model.id);
        snprintf(u->key.field, sizeof u->key.field, "efficiency");
        u->key.precision = (int)w->precision;
        if (eta_on_gpu(s))
            snprintf(u->key.on_gpu, sizeof u->key.on_gpu, "%s",
                     s->machine.gpu.id);
        u->value = w->eta;
        u->sd = dam_model_eta_sd(&w->model, s->machine.gpu.id, w->precision);
        if (u->sd <= 0.0) {
            u->sd = EFFICIENCY_REL_SD * u->value;
            u->default_sd = 1;
        }
        dam_const_field_info(DAM_CONST_MODEL, "efficiency", &u->lo, &u->hi,
                             NULL);
    }
    return n;
}

int dam_scenario_const_set(dam_scenario *s, const dam_const_key *k, double v,
                           double sd)
{
    dam_workload *w = &s->workload;
    if (k->owner != DAM_CONST_MODEL || strcmp(k->field, "efficiency") != 0 ||
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
        *sl.value = v;
        if (sd >= 0.0)
            *sl.sd = sd;
    }
    w->eta = v;
    return 1;
}
