/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * catalog.c: lookups in the GPU and model catalogs, precision names, and
 * the edit distance behind "did you mean". Parsing lives in loader.c.
 */
#include "model/catalog.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"

static const char *const prec_names[DAM_PREC_COUNT] = {
    "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
static const double prec_bytes[DAM_PREC_COUNT] = {4, 4, 2, 2, 1, 1};

const char *dam_precision_name(dam_precision p)
{
    return (unsigned)p < DAM_PREC_COUNT ? prec_names[p] : "?";
}

double dam_precision_bytes(dam_precision p)
{
    return (unsigned)p < DAM_PREC_COUNT ? prec_bytes[p] : 0.0;
}

int dam_precision_parse(const char *s, dam_precision *out)
{
    for (int i = 0; i < DAM_PREC_COUNT; i++)
        if (strcasecmp(s, prec_names[i]) == 0) {
            *out = (dam_precision)i;
            return 0;
        }
    return -1;
}

static const char *const phase_names[DAM_PHASE_KIND_COUNT] = {
    "matmul", "attention", "elementwise", "embedding"};

const char *dam_phase_kind_name(dam_phase_kind k)
{
    return (unsigned)k < DAM_PHASE_KIND_COUNT ? phase_names[k] : "?";
}

int dam_phase_kind_parse(const char *s, dam_phase_kind *out)
{
    for (int i = 0; i < DAM_PHASE_KIND_COUNT; i++)
        if (strcasecmp(s, phase_names[i]) == 0) {
            *out = (dam_phase_kind)i;
            return 0;
        }
    return -1;
}

void dam_catalog_free(dam_catalog *c)
{
    if (!c)
        return;
    dam_free(c->gpus);
    dam_free(c->models);
    memset(c, 0, sizeof *c);
}

const dam_gpu *dam_catalog_gpu(const dam_catalog *c, const char *id)
{
    for (size_t i = 0; i < c->ngpus; i++)
        if (strcasecmp(c->gpus[i].id, id) == 0)
            return &c->gpus[i];
    return NULL;
}

const dam_model_spec *dam_catalog_model(const dam_catalog *c, const char *id)
{
    for (size_t i = 0; i < c->nmodels; i++)
        if (strcasecmp(c->models[i].id, id) == 0)
            return &c->models[i];
    return NULL;
}

static const char *gpu_key(const void *arr, size_t i)
{
    return ((const dam_gpu *)arr)[i].id;
}

static const char *model_key(const void *arr, size_t i)
{
    return ((const dam_model_spec *)arr)[i].id;
}

const char *dam_catalog_suggest_gpu(const dam_catalog *c, const char *id)
{
    return dam_suggest(id, gpu_key, c->gpus, c->ngpus);
}

const char *dam_catalog_suggest_model(const dam_catalog *c, const char *id)
{
    return dam_suggest(id, model_key, c->models, c->nmodels);
}

static const char *const gen_names[DAM_GEN_COUNT] = {
    "unknown", "volta", "turing", "ampere", "ada", "hopper", "blackwell",
    "cdna3", "gaudi"};

const char *dam_gpu_gen_name(dam_gpu_gen g)
{
    return (unsigned)g < DAM_GEN_COUNT ? gen_names[g] : "?";
}

int dam_gpu_gen_parse(const char *s, dam_gpu_gen *out)
{
    for (int i = 0; i < DAM_GEN_COUNT; i++)
        if (strcasecmp(s, gen_names[i]) == 0) {
            *out = (dam_gpu_gen)i;
            return 0;
        }
    return -1;
}

static const char *const layer_kind_names[DAM_LAYER_KIND_COUNT] = {
    "conv", "linear", "pool", "add", "embedding", "bmm", "elementwise"};

const char *dam_layer_kind_name(dam_layer_kind k)
{
    return (unsigned)k < DAM_LAYER_KIND_COUNT ? layer_kind_names[k] : "?";
}

double dam_gpu_ridge(const dam_gpu *g, dam_precision p)
{
    if ((unsigned)p >= DAM_PREC_COUNT || g->mem_bw <= 0.0)
        return 0.0;
    return g->peak[p] / g->mem_bw;
}

double dam_model_phase_flops(const dam_model_spec *m)
{
    double f = 0.0;
    for (int i = 0; i < m->nphases; i++)
        f += m->phases[i].flops;
    return f;
}

/* The per-GPU efficiency entry of m for gpu with a value at p, or -1. */
static int gpu_eta_entry(const dam_model_spec *m, const char *gpu,
                         dam_precision p)
{
    for (int i = 0; i < m->ngpu_eta; i++)
        if (strcasecmp(m->gpu_eta[i].gpu, gpu) == 0 &&
            m->gpu_eta[i].eta[p] > 0.0)
            return i;
    return -1;
}

double dam_model_eta(const dam_model_spec *m, const char *gpu,
                     dam_precision p)
{
    if ((unsigned)p >= DAM_PREC_COUNT)
        return 0.0;
    int i = gpu_eta_entry(m, gpu, p);
    return i >= 0 ? m->gpu_eta[i].eta[p] : m->eta[p];
}

double dam_model_eta_sd(const dam_model_spec *m, const char *gpu,
                        dam_precision p)
{
    if ((unsigned)p >= DAM_PREC_COUNT)
        return 0.0;
    int i = gpu_eta_entry(m, gpu, p);
    return i >= 0 ? m->gpu_eta[i].eta_sd[p] : m->eta_sd[p];
}
