/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader_catalog.c: catalog files: GPU and model entries, their
 * architectures and calibration overlays (loader.c says how the loader
 * reads a file; config_read.c reads one).
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

/* ---- catalog entries ------------------------------------------------- */

static const char *const gpu_keys[] = {
    "id", "name", "base", "peak_tflops", "sparsity_2to4", "hbm_gib", "hbm_gbs",
    "nvlink_gbs", "pcie_gbs", "tdp_w", "price_usd_hour", "generation", "sms",
    "boost_mhz", "sustained_mhz", "l2_mib", "device", "source", NULL};
static const char *const gen_choices[] = {"unknown", "volta", "turing",
                                          "ampere", "ada", "hopper",
                                          "blackwell", "cdna3", "gaudi",
                                          NULL};

/*
 * A GPU's device-model constants (device.h): every device-scope constant
 * of the table, each with its uncertainty "<key>_sd"; per-precision ones
 * as a group (gemm_frac = { bf16 = 0.87; bf16_sd = 0.02; }). Values are in
 * the constant's display unit. Missing ones are filled from the
 * generation's defaults afterwards (dam_device_complete).
 */
static void device_value(ld *L, const config_setting_t *g, const char *key,
                         const char *w, const dam_param_info *pi, double *v,
                         double *sd)
{
    double x;
    if (get_num(L, g, key, w, 0, R_NONNEG, pi->scale, &x)) {
        if (x < pi->lo || x > pi->hi)
            dam_diag_error(L->d, AT(member(L, g, key, "", 0)),
                           "'%s.%s' must be between %g and %g, got %g", w,
                           key, pi->lo / pi->scale, pi->hi / pi->scale,
                           x / pi->scale);
        else
            *v = x;
    }
    char k[48];
    snprintf(k, sizeof k, "%s_sd", key);
    get_num(L, g, k, w, 0, R_NONNEG, pi->scale, sd);
}

/* Constant pi in group g: a number (with "<field>_sd"), or for a
 * per-precision constant the group "<field> = { bf16 = ..; bf16_sd = ..; }". */
void dam_ld_param_value(ld *L, const config_setting_t *g, const char *w,
                        const dam_param_info *pi, double *v, double *sd)
{
    static const char *const prec_sd[] = {"fp32", "fp32_sd", "tf32",
                                          "tf32_sd", "fp16", "fp16_sd",
                                          "bf16", "bf16_sd", "fp8",
                                          "fp8_sd", "int8", "int8_sd", NULL};
    if (pi->prec < 0) {
        device_value(L, g, pi->field, w, pi, v, sd);
        return;
    }
    char gw[112];
    path_join(gw, sizeof gw, w, pi->field);
    config_setting_t *pg = group(L, g, pi->field, w, 0);
    if (!pg)
        return;
    if (pi->prec == 0)
        check_keys(L, pg, prec_sd, gw);
    device_value(L, pg, prec_names[pi->prec], gw, pi, v, sd);
}

static void parse_device(ld *L, const config_setting_t *gs, dam_gpu *g,
                         const char *where)
{
    char w[96];
    config_setting_t *dv = subgroup(L, gs, "device", where, w, sizeof w);
    if (!dv)
        return;
    const char *allowed[64];
    char sdk[24][48];
    int na = 0, ns = 0;
    for (int i = 0; i < dam_param_count() && na < 60 && ns < 24; i++) {
        const dam_param_info *pi = dam_param_get(i);
        if (pi->scope != DAM_PARAM_DEVICE)
            continue;
        int dup = 0;
        for (int j = 0; j < na; j++)
            dup |= strcmp(allowed[j], pi->field) == 0;
        if (dup)
            continue;
        allowed[na++] = pi->field;
        if (pi->prec < 0) {
            snprintf(sdk[ns], sizeof sdk[ns], "%s_sd", pi->field);
            allowed[na++] = sdk[ns++];
        }
    }
    allowed[na++] = "tile_m";
    allowed[na++] = "tile_n";
    allowed[na] = NULL;
    check_keys(L, dv, allowed, w);
    for (int i = 0; i < dam_param_count(); i++) {
        const dam_param_info *pi = dam_param_get(i);
        double *v, *sd;
        if (pi->scope == DAM_PARAM_DEVICE &&
            dam_param_ref_gpu(i, g, &v, &sd) == 0)
            param_value(L, dv, w, pi, v, sd);
    }
    double t;
    if (get_num(L, dv, "tile_m", w, 0, R_GE1, 1.0, &t))
        g->dev.tile_m = t;
    if (get_num(L, dv, "tile_n", w, 0, R_GE1, 1.0, &t))
        g->dev.tile_n = t;
}

/*
 * Parse one GPU group into g. In a catalog (catalog = 1) the datasheet keys
 * are required; inline in a scenario, g may start from a catalog entry
 * ("base") and only the keys given change.
 */
void dam_ld_parse_gpu(ld *L, const config_setting_t *gs, dam_gpu *g,
                      const char *where, int catalog, int have_base)
{
    int req = catalog || !have_base;
    check_keys(L, gs, gpu_keys, where);
    get_str(L, gs, "id", where, catalog, g->id, sizeof g->id);
    get_str(L, gs, "name", where, catalog, g->name, sizeof g->name);
    config_setting_t *pk = group(L, gs, "peak_tflops", where, req);
    if (pk) {
        char w[96];
        path_join(w, sizeof w, where, "peak_tflops");
        static const char *const peak_names[] = {
            "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4", NULL};
        check_keys(L, pk, peak_names, w);
        int any = 0;
        if (get_num(L, pk, "fp4", w, 0, R_POS, TFLOPS, &g->peak_fp4))
            any = 1;
        else if (!have_base)
            g->peak_fp4 = 0.0;
        for (int p = 0; p < DAM_PREC_COUNT; p++) {
            double v;
            if (get_num(L, pk, prec_names[p], w, 0, R_POS, TFLOPS, &v)) {
                g->peak[p] = v;
                any = 1;
            } else if (!have_base) {
                g->peak[p] = 0.0;
            }
        }
        if (!any && !have_base)
            dam_diag_error(L->d, AT(pk),
                           "'%s' needs at least one precision", w);
    }
    get_bool(L, gs, "sparsity_2to4", where, catalog, &g->sparsity_2to4);
    get_num(L, gs, "hbm_gib", where, req, R_POS, GIB, &g->mem_bytes);
    get_num(L, gs, "hbm_gbs", where, req, R_POS, GB, &g->mem_bw);
    get_num(L, gs, "nvlink_gbs", where, 0, R_NONNEG, GB, &g->link_bw);
    get_num(L, gs, "pcie_gbs", where, catalog, R_POS, GB, &g->pcie_bw);
    get_num(L, gs, "tdp_w", where, catalog, R_POS, 1.0, &g->tdp_w);
    get_num(L, gs, "price_usd_hour", where, 0, R_POS, 1.0, &g->price_hour);
    int gen = 0;
    if (get_choice(L, gs, "generation", where, 0, gen_choices, &gen))
        g->gen = (dam_gpu_gen)gen;
    get_int(L, gs, "sms", where, 0, 1, 100000, &g->sms);
    get_num(L, gs, "boost_mhz", where, 0, R_POS, 1e6, &g->boost_hz);
    get_num(L, gs, "sustained_mhz", where, 0, R_POS, 1e6, &g->sustained_hz);
    get_num(L, gs, "l2_mib", where, 0, R_POS, 1048576.0, &g->l2_bytes);
    parse_device(L, gs, g, where);
    dam_device_complete(g);
    get_str(L, gs, "source", where, catalog, g->source, sizeof g->source);
    g->line = line_of(gs);
}

static const char *const model_keys[] = {
    "id", "name", "base", "family", "params", "seq_len", "flops_per_sample",
    "input_bytes", "raw_bytes", "activation_bytes", "layers",
    "kernels_per_step", "phases", "efficiency", "gpu_efficiency", "quality",
    "arch", "source", "efficiency_source", NULL};

/* ---- architectures (graph.h builds from them) ------------------------ */

static const char *const arch_kinds[] = {"none", "transformer", "layers",
                                         NULL};
static const char *const tf_keys[] = {
    "kind", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
    "vocab", "max_positions", "experts", "top_k", "gated_mlp", "causal",
    "attention", "rotary", "bias", "tied_embeddings", "lm_head", "dropout",
    "norm", NULL};
static const char *const attn_impls[] = {"flash", "eager", NULL};
static const char *const norms[] = {"layernorm", "rmsnorm", NULL};
static const char *const layers_keys[] = {"kind", "table", NULL};
static const char *const layer_keys[] = {
    "kind", "in", "out", "kernel", "stride", "groups", "hw", "bn", "relu",
    "sparse", "rows", "lookups", "m", "n", "k", "elems", "count", NULL};
static const char *const layer_kinds[] = {"conv", "linear", "pool", "add",
                                          "embedding", "bmm", "elementwise",
                                          NULL};


static void parse_transformer(ld *L, const config_setting_t *a,
                              dam_transformer *t, const char *w)
{
    check_keys(L, a, tf_keys, w);
    memset(t, 0, sizeof *t);
    get_int(L, a, "layers", w, 1, 1, 100000, &t->layers);
    get_int(L, a, "hidden", w, 1, 1, 10000000, &t->hidden);
    get_int(L, a, "heads", w, 1, 1, 100000, &t->heads);
    if (!get_int(L, a, "kv_heads", w, 0, 1, 100000, &t->kv_heads))
        t->kv_heads = t->heads;
    get_int(L, a, "head_dim", w, 0, 1, 100000, &t->head_dim);
    get_int(L, a, "ffn", w, 1, 1, 100000000, &t->ffn);
    get_int(L, a, "vocab", w, 1, 1, 100000000, &t->vocab);
    get_int(L, a, "max_positions", w, 0, 0, 100000000, &t->max_pos);
    get_int(L, a, "experts", w, 0, 0, 100000, &t->experts);
    get_int(L, a, "top_k", w, 0, 0, 100000, &t->top_k);
    get_bool(L, a, "gated_mlp", w, 0, &t->gated);
    t->causal = 1;
    get_bool(L, a, "causal", w, 0, &t->causal);
    int k = 0;
    if (get_choice(L, a, "attention", w, 0, attn_impls, &k))
        t->attn = k;
    get_bool(L, a, "rotary", w, 0, &t->rotary);
    get_bool(L, a, "bias", w, 0, &t->bias);
    get_bool(L, a, "tied_embeddings", w, 0, &t->tied);
    t->lm_head = 1;
    get_bool(L, a, "lm_head", w, 0, &t->lm_head);
    get_bool(L, a, "dropout", w, 0, &t->dropout);
    k = 0;
    if (get_choice(L, a, "norm", w, 0, norms, &k))
        t->rmsnorm = k;
    int line = line_of(a);
    if (t->heads > 0 && t->kv_heads > 0 &&
        (t->kv_heads > t->heads || t->heads % t->kv_heads != 0))
        dam_diag_error(L->d, L->file, line,
                       "'%s': kv_heads (%d) must divide heads (%d)", w,
                       t->kv_heads, t->heads);
    if (!t->head_dim && t->heads > 0 && t->hidden % t->heads != 0)
        dam_diag_error(L->d, L->file, line,
                       "'%s': heads (%d) do not divide hidden (%d); give "
                       "head_dim",
                       w, t->heads, t->hidden);
    if (t->experts > 1 && (t->top_k < 1 || t->top_k > t->experts))
        dam_diag_error(L->d, L->file, line,
                       "'%s': top_k must be between 1 and experts (%d), got "
                       "%d",
                       w, t->experts, t->top_k);
}

static void parse_layer(ld *L, const config_setting_t *r, dam_layer *l,
                        const char *w)
{
    check_keys(L, r, layer_keys, w);
    memset(l, 0, sizeof *l);
    int k = 0;
    if (!get_choice(L, r, "kind", w, 1, layer_kinds, &k))
        return;
    l->kind = (dam_layer_kind)k;
    l->stride = 1;
    l->groups = 1;
    l->hw = 1;
    l->kernel = 1;
    l->count = 1.0;
    int conv = k == DAM_LAYER_CONV, lin = k == DAM_LAYER_LINEAR;
    int spatial = conv || k == DAM_LAYER_POOL || k == DAM_LAYER_ADD;
    get_int(L, r, "in", w, conv || lin || k == DAM_LAYER_EMBEDDING, 1,
            100000000, &l->in);
    get_int(L, r, "out", w, k != DAM_LAYER_EMBEDDING && k != DAM_LAYER_BMM &&
                                k != DAM_LAYER_ELEMENTWISE,
            1, 100000000, &l->out);
    get_int(L, r, "kernel", w, 0, 1, 1024, &l->kernel);
    get_int(L, r, "stride", w, 0, 1, 1024, &l->stride);
    get_int(L, r, "groups", w, 0, 1, 100000000, &l->groups);
    get_int(L, r, "hw", w, spatial, 1, 1000000, &l->hw);
    get_bool(L, r, "bn", w, 0, &l->bn);
    get_bool(L, r, "relu", w, 0, &l->relu);
    get_bool(L, r, "sparse", w, 0, &l->sparse);
    int emb = k == DAM_LAYER_EMBEDDING, bmm = k == DAM_LAYER_BMM;
    get_num(L, r, "rows", w, emb, R_POS, 1.0, &l->rows);
    get_num(L, r, "lookups", w, emb, R_POS, 1.0, &l->lookups);
    get_num(L, r, "m", w, bmm, R_POS, 1.0, &l->m);
    get_num(L, r, "n", w, bmm, R_POS, 1.0, &l->n);
    get_num(L, r, "k", w, bmm, R_POS, 1.0, &l->k);
    get_num(L, r, "elems", w, k == DAM_LAYER_ELEMENTWISE, R_POS, 1.0,
            &l->elems);
    get_num(L, r, "count", w, 0, R_POS, 1.0, &l->count);
    if (conv && l->groups > 0 &&
        (l->in % l->groups != 0 || l->out % l->groups != 0))
        dam_diag_error(L->d, AT(r),
                       "'%s': groups (%d) must divide in (%d) and out (%d)",
                       w, l->groups, l->in, l->out);
}

/* arch = { kind = "transformer"; ... } or
 * { kind = "layers"; table = (...) }. */
static void parse_arch(ld *L, const config_setting_t *as, dam_arch *a,
                       const char *w)
{
    int k = 0;
    if (!get_choice(L, as, "kind", w, 1, arch_kinds, &k))
        return;
    memset(a, 0, sizeof *a);
    a->kind = (dam_arch_kind)k;
    if (k == DAM_ARCH_TRANSFORMER) {
        parse_transformer(L, as, &a->tf, w);
    } else if (k == DAM_ARCH_LAYERS) {
        check_keys(L, as, layers_keys, w);
        config_setting_t *tb = member(L, as, "table", w, 1);
        if (!tb)
            return;
        char tw[112];
        path_join(tw, sizeof tw, w, "table");
        int n = config_setting_is_list(tb) ? config_setting_length(tb) : -1;
        if (n < 1 || n > DAM_MAX_LAYERS) {
            dam_diag_error(L->d, AT(tb),
                           "'%s' must be a list of 1 to %d layer groups", tw,
                           DAM_MAX_LAYERS);
            return;
        }
        for (int i = 0; i < n; i++) {
            char rw[128];
            config_setting_t *r = list_group(L, tb, i, tw, rw, sizeof rw);
            if (r)
                parse_layer(L, r, &a->layer[a->nlayers++], rw);
        }
    } else {
        check_keys(L, as, layers_keys, w);
    }
}
static const char *const phase_keys[] = {"name", "kind", "flops", "act_bytes",
                                         "weight_frac", NULL};
static const char *const phase_kinds[] = {"matmul", "attention", "elementwise",
                                          "embedding", NULL};
static const char *const families[] = {"vision", "language", "recommender",
                                       "custom", NULL};
static const char *const mquality_keys[] = {"metric", "value", NULL};

/* Keys of an efficiency group: a value per precision and its standard
 * uncertainty "<precision>_sd" (constants.h). */
static const char *const eff_keys[] = {
    "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp32_sd", "tf32_sd",
    "fp16_sd", "bf16_sd", "fp8_sd", "int8_sd", NULL};
static const char *const ge_eff_keys[] = {
    "gpu", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp32_sd",
    "tf32_sd", "fp16_sd", "bf16_sd", "fp8_sd", "int8_sd", NULL};

/* One precision of an efficiency group: the value in (0, 1] and its
 * uncertainty >= 0, which needs the value beside it. */
static void get_eff(ld *L, const config_setting_t *g, const char *where,
                    int p, double *eta, double *sd)
{
    char sk[16];
    snprintf(sk, sizeof sk, "%s_sd", prec_names[p]);
    int have = get_num(L, g, prec_names[p], where, 0, R_UNIT, 1.0, eta);
    if (get_num(L, g, sk, where, 0, R_NONNEG, 1.0, sd) && !have) {
        char full[160];
        path_join(full, sizeof full, where, sk);
        dam_diag_error(L->d, AT(member(L, g, sk, where, 0)),
                       "'%s' needs '%s' beside it", full, prec_names[p]);
    }
}

/* The model's phases: a list of groups { name; kind; flops; act_bytes;
 * weight_frac; }, else one compute-bound matmul phase of flops_per_sample
 * (fps >= 0 when given); need: one of them (or arch) is required. */
static void model_phases(ld *L, const config_setting_t *ms,
                         dam_model_spec *m, const char *where,
                         const config_setting_t *ph, double fps, int need)
{
    int have_fps = fps >= 0.0;
    char w[96];
    path_join(w, sizeof w, where, "phases");
    if (ph) {
        if (!config_setting_is_list(ph)) {
            dam_diag_error(L->d, AT(ph),
                           "'%s' must be a list ( {...}, ... ), got %s", w,
                           type_name(ph));
        } else {
            int n = config_setting_length(ph);
            if (n < 1 || n > DAM_MAX_PHASES) {
                dam_diag_error(L->d, AT(ph),
                               "'%s' must hold 1 to %d phases, got %d", w,
                               DAM_MAX_PHASES, n);
                n = n > DAM_MAX_PHASES ? DAM_MAX_PHASES : n;
            }
            m->nphases = 0;
            for (int i = 0; i < n; i++) {
                char pw[112];
                config_setting_t *p = list_group(L, ph, i, w, pw, sizeof pw);
                if (!p)
                    continue;
                dam_phase *q = &m->phases[m->nphases++];
                memset(q, 0, sizeof *q);
                check_keys(L, p, phase_keys, pw);
                get_str(L, p, "name", pw, 1, q->name, sizeof q->name);
                int k = 0;
                get_choice(L, p, "kind", pw, 1, phase_kinds, &k);
                q->kind = (dam_phase_kind)k;
                get_num(L, p, "flops", pw, 1, R_NONNEG, 1.0, &q->flops);
                get_num(L, p, "act_bytes", pw, 1, R_NONNEG, 1.0,
                        &q->act_bytes);
                get_num(L, p, "weight_frac", pw, 1, R_NONNEG, 1.0,
                        &q->weight_frac);
            }
        }
    } else if (have_fps) {
        /* No phases given: one compute-bound matmul phase. */
        m->nphases = 1;
        memset(&m->phases[0], 0, sizeof m->phases[0]);
        snprintf(m->phases[0].name, sizeof m->phases[0].name, "compute");
        m->phases[0].kind = DAM_PHASE_MATMUL;
        m->phases[0].flops = fps;
        m->phases[0].weight_frac = 1.0;
    } else if (need) {
        dam_diag_error(L->d, AT(ms),
                       "'%s' needs 'arch', 'phases' or 'flops_per_sample'",
                       where);
    }
}

/* Calibrated efficiencies: per precision, and per GPU
 * (gpu_efficiency = ( { gpu = "..."; bf16 = ..; }, ... )). */
static void model_efficiency(ld *L, const config_setting_t *ms,
                             dam_model_spec *m, const char *where)
{
    config_setting_t *ef = group(L, ms, "efficiency", where, 0);
    if (ef) {
        char ew[96];
        path_join(ew, sizeof ew, where, "efficiency");
        check_keys(L, ef, eff_keys, ew);
        for (int p = 0; p < DAM_PREC_COUNT; p++)
            get_eff(L, ef, ew, p, &m->eta[p], &m->eta_sd[p]);
    }
    config_setting_t *ge = member(L, ms, "gpu_efficiency", where, 0);
    if (ge) {
        char gw[96];
        path_join(gw, sizeof gw, where, "gpu_efficiency");
        int n = config_setting_is_list(ge) ? config_setting_length(ge) : -1;
        if (n < 0 || n > DAM_MAX_GPU_ETA) {
            dam_diag_error(L->d, AT(ge),
                           "'%s' must be a list of at most %d groups { gpu = "
                           "\"...\"; bf16 = ...; }",
                           gw, DAM_MAX_GPU_ETA);
            n = 0;
        }
        char ew[112]; /* "...gpu_efficiency[i]" */
        m->ngpu_eta = 0;
        for (int i = 0; i < n; i++) {
            config_setting_t *e = list_group(L, ge, i, gw, ew, sizeof ew);
            if (!e)
                continue;
            check_keys(L, e, ge_eff_keys, ew);
            int k = m->ngpu_eta++;
            memset(&m->gpu_eta[k], 0, sizeof m->gpu_eta[k]);
            get_str(L, e, "gpu", ew, 1, m->gpu_eta[k].gpu,
                    sizeof m->gpu_eta[k].gpu);
            for (int p = 0; p < DAM_PREC_COUNT; p++)
                get_eff(L, e, ew, p, &m->gpu_eta[k].eta[p],
                        &m->gpu_eta[k].eta_sd[p]);
        }
    }
}

/* The architecture, from which phases and FLOPs follow. An inline model
 * that gives its own work (phases or flops_per_sample) on top of a base
 * with an architecture keeps its numbers and drops the architecture (the
 * efficiency path). */
static void model_arch(ld *L, const config_setting_t *ms, dam_model_spec *m,
                       const char *where, int arch_key,
                       const config_setting_t *ph, int have_fps,
                       int have_params, int errs0)
{
    int had_arch = m->arch.kind != DAM_ARCH_NONE;
    char aw[96];
    config_setting_t *as = subgroup(L, ms, "arch", where, aw, sizeof aw);
    if (as)
        parse_arch(L, as, &m->arch, aw);
    int own_arch = arch_key;
    if (own_arch && m->arch.kind != DAM_ARCH_NONE && (ph || have_fps))
        dam_diag_error(L->d, AT(ph ? ph : ms),
                       "'%s' gives 'arch' and '%s': the work follows from "
                       "the architecture, remove one",
                       where, ph ? "phases" : "flops_per_sample");
    else if (had_arch && !own_arch && (ph || have_fps))
        m->arch.kind = DAM_ARCH_NONE;
    if (m->arch.kind != DAM_ARCH_NONE && L->d->nerr == errs0) {
        dam_error e;
        if (!(m->params > 0.0) || (own_arch && !have_params))
            m->params = dam_graph_arch_params(&m->arch);
        if (dam_graph_derive_phases(m, 0.0, &e) != DAM_OK)
            dam_diag_error(L->d, AT(ms), "%s", e.msg);
    }
}

void dam_ld_parse_model(ld *L, const config_setting_t *ms, dam_model_spec *m,
                        const char *where, int catalog, int have_base)
{
    int req = catalog || !have_base;
    int errs0 = L->d->nerr;
    int arch_key = member(L, ms, "arch", where, 0) != NULL;
    check_keys(L, ms, model_keys, where);
    get_str(L, ms, "id", where, catalog, m->id, sizeof m->id);
    get_str(L, ms, "name", where, catalog, m->name, sizeof m->name);
    int fam;
    if (get_choice(L, ms, "family", where, catalog, families, &fam))
        snprintf(m->family, sizeof m->family, "%s", families[fam]);
    else if (!have_base && !m->family[0])
        snprintf(m->family, sizeof m->family, "custom");
    int have_params = get_num(L, ms, "params", where, req && !arch_key,
                              R_POS, 1.0, &m->params);
    if (!get_num(L, ms, "seq_len", where, 0, R_GE1, 1.0, &m->seq_len) &&
        !have_base)
        m->seq_len = 1.0;
    get_num(L, ms, "input_bytes", where, catalog, R_NONNEG, 1.0,
            &m->input_bytes);
    get_num(L, ms, "raw_bytes", where, catalog, R_NONNEG, 1.0, &m->raw_bytes);
    get_num(L, ms, "activation_bytes", where, catalog, R_NONNEG, 1.0,
            &m->act_mem_bytes);
    get_int(L, ms, "layers", where, catalog, 1, 100000, &m->layers);
    if (!m->layers)
        m->layers = 1;
    get_int(L, ms, "kernels_per_step", where, 0, 0, DAM_MAX_KERNELS,
            &m->kernels_per_step);

    double fps = 0.0;
    int have_fps =
        get_num(L, ms, "flops_per_sample", where, 0, R_POS, 1.0, &fps);
    config_setting_t *ph = member(L, ms, "phases", where, 0);
    model_phases(L, ms, m, where, ph, have_fps ? fps : -1.0,
                 req && !arch_key);
    double sum = dam_model_phase_flops(m);
    if (have_fps && ph && sum > 0.0 && fabs(sum - fps) > 0.01 * fps)
        dam_diag_error(L->d, AT(member(L, ms, "flops_per_sample",
                                                     where, 0)),
                       "'%s.flops_per_sample' is %g but its phases sum to %g "
                       "(more than 1 %% apart)",
                       where, fps, sum);
    m->flops_per_sample = sum > 0.0 ? sum : fps;

    model_efficiency(L, ms, m, where);
    model_arch(L, ms, m, where, arch_key, ph, have_fps, have_params, errs0);
    config_setting_t *qs = group(L, ms, "quality", where, 0);
    if (qs) {
        char qw[96];
        path_join(qw, sizeof qw, where, "quality");
        check_keys(L, qs, mquality_keys, qw);
        get_str(L, qs, "metric", qw, 1, m->metric, sizeof m->metric);
        get_num(L, qs, "value", qw, 1, R_ANY, 1.0, &m->quality);
    }
    get_str(L, ms, "source", where, catalog, m->source, sizeof m->source);
    get_str(L, ms, "efficiency_source", where, 0, m->eta_source,
            sizeof m->eta_source);
    m->line = line_of(ms);
}

typedef void (*entry_parser)(ld *, const config_setting_t *, void *,
                             const char *);

static void gpu_entry(ld *L, const config_setting_t *s, void *out,
                      const char *where)
{
    memset(out, 0, sizeof(dam_gpu));
    parse_gpu(L, s, out, where, 1, 0);
}

static void model_entry(ld *L, const config_setting_t *s, void *out,
                        const char *where)
{
    memset(out, 0, sizeof(dam_model_spec));
    parse_model(L, s, out, where, 1, 0);
}

/* One constant of a calibration overlay (see load_calibration). */
typedef struct overlay_const {
    dam_const_key key;
    double value, sd;
    int line;
} overlay_const;

static const char *const calib_keys[] = {"measurements", "fit", "constants",
                                         "residuals", NULL};
static const char *const calib_fit_keys[] = {
    "residuals", "constants", "dof", "chi2", "residual_sd", "rms_error",
    "converged", "stop", "iterations", NULL};
static const char *const calib_const_keys[] = {"key",   "value", "unit",
                                               "se",    "sd",    "start",
                                               "rows",  NULL};
static const char *const calib_res_keys[] = {
    "id", "line", "quantity", "gpu", "measured", "predicted", "error", "p05",
    "p95", "held_out", NULL};

/* Check that the members of g named in keys that are present are numbers
 * (or, for the names in strs and bools, strings and booleans). */
static void check_record(ld *L, const config_setting_t *g, const char *where,
                         const char *const *keys, const char *const *strs,
                         const char *const *bools)
{
    check_keys(L, g, keys, where);
    for (const char *const *k = keys; *k; k++) {
        int is_str = 0, is_bool = 0;
        for (const char *const *x = strs; *x; x++)
            is_str |= strcmp(*x, *k) == 0;
        for (const char *const *x = bools; *x; x++)
            is_bool |= strcmp(*x, *k) == 0;
        if (!config_setting_get_member(g, *k))
            continue;
        char buf[256];
        double v;
        int b;
        if (is_str)
            get_str(L, g, *k, where, 0, buf, sizeof buf);
        else if (is_bool)
            get_bool(L, g, *k, where, 0, &b);
        else
            get_num(L, g, *k, where, 0, R_ANY, 1.0, &v);
    }
}

/*
 * The `calibration` group of a catalog overlay (written by `damsim
 * calibrate`, render/page/calibrate_page.h): its constants into *out (allocated,
 * *n of them). fit and residuals are a record: their keys and types are
 * checked, their values not used.
 */
static void load_calibration(ld *L, const config_setting_t *cg,
                             overlay_const **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    check_keys(L, cg, calib_keys, "calibration");
    char buf[256];
    get_str(L, cg, "measurements", "calibration", 0, buf, sizeof buf);
    const char *const none[] = {NULL};
    config_setting_t *f = group(L, cg, "fit", "calibration", 0);
    if (f)
        check_record(L, f, "calibration.fit", calib_fit_keys,
                     (const char *const[]){"stop", NULL},
                     (const char *const[]){"converged", NULL});
    config_setting_t *rs = member(L, cg, "residuals", "calibration", 0);
    if (rs && !config_setting_is_list(rs))
        dam_diag_error(L->d, AT(rs),
                       "'calibration.residuals' must be a list, got %s",
                       type_name(rs));
    else if (rs)
        for (int i = 0; i < config_setting_length(rs); i++) {
            config_setting_t *e = config_setting_get_elem(rs, (unsigned)i);
            char w[64];
            snprintf(w, sizeof w, "calibration.residuals[%d]", i);
            if (!config_setting_is_group(e))
                dam_diag_error(L->d, AT(e),
                               "'%s' must be a group, got %s", w,
                               type_name(e));
            else
                check_record(L, e, w, calib_res_keys,
                             (const char *const[]){"id", "quantity", "gpu",
                                                   NULL},
                             (const char *const[]){"held_out", NULL});
        }
    config_setting_t *ks = member(L, cg, "constants", "calibration", 1);
    if (!ks)
        return;
    if (!config_setting_is_list(ks)) {
        dam_diag_error(L->d, AT(ks),
                       "'calibration.constants' must be a list ( {...}, ... "
                       "), got %s", type_name(ks));
        return;
    }
    int len = config_setting_length(ks);
    *out = dam_calloc((size_t)len + 1, sizeof **out);
    for (int i = 0; i < len; i++) {
        char w[64];
        config_setting_t *e = list_group(L, ks, i, "calibration.constants", w,
                                         sizeof w);
        if (!e)
            continue;
        check_record(L, e, w, calib_const_keys,
                     (const char *const[]){"key", "unit", NULL}, none);
        overlay_const *oc = &(*out)[*n];
        memset(oc, 0, sizeof *oc);
        oc->line = line_of(e);
        int ok = get_str(L, e, "key", w, 1, buf, sizeof buf);
        ok &= get_num(L, e, "value", w, 1, R_ANY, 1.0, &oc->value);
        ok &= get_num(L, e, "sd", w, 1, R_NONNEG, 1.0, &oc->sd);
        dam_error err;
        if (ok && dam_const_key_parse(buf, &oc->key, &err) != DAM_OK) {
            dam_diag_error(L->d, AT(member(L, e, "key", w, 0)),
                           "'%s.key': %s", w, err.msg);
            ok = 0;
        }
        /* values are in the field's display unit (us, GB/s, ...) */
        const char *unit = "";
        double scale = 1.0;
        if (ok) {
            dam_const_field_info(oc->key.owner, oc->key.field, NULL, NULL,
                                 &unit, &scale);
            oc->value *= scale;
            oc->sd *= scale;
        }
        char ubuf[16];
        if (ok && get_str(L, e, "unit", w, 0, ubuf, sizeof ubuf) &&
            strcmp(ubuf, unit) != 0) {
            dam_diag_error(L->d, AT(member(L, e, "unit", w, 0)),
                           "'%s.unit' of \"%s\" is \"%s\", got \"%s\"", w,
                           buf, unit, ubuf);
            ok = 0;
        }
        for (size_t j = 0; ok && j < *n; j++)
            if (dam_const_key_equal(&(*out)[j].key, &oc->key)) {
                dam_diag_error(L->d, L->file, oc->line,
                               "constant \"%s\" given twice (first at line "
                               "%d)", buf, (*out)[j].line);
                ok = 0;
            }
        if (ok)
            (*n)++;
    }
}

/*
 * Load the list `key` of a catalog file into a fresh array of elem-sized
 * entries whose id (a char array at offset 0) is unique, and the
 * constants of its `calibration` group (an overlay may hold only that).
 */
static int load_list(const char *path, const char *text, const char *key,
                     size_t elem, size_t line_off, entry_parser parse,
                     void **items, size_t *count, overlay_const **consts,
                     size_t *nconsts, dam_diag *d)
{
    config_t cfg;
    *consts = NULL;
    *nconsts = 0;
    ld L;
    const config_setting_t *root = dam_ld_begin(&L, &cfg, path, text, d, NULL);
    if (!root)
        return DAM_EINPUT;
    const char *const top[] = {key, "calibration", NULL};
    check_keys(&L, root, top, "");
    config_setting_t *cg = group(&L, root, "calibration", "", 0);
    config_setting_t *list = member(&L, root, key, "", cg == NULL);
    char *arr = NULL;
    size_t n = 0;
    if (cg)
        load_calibration(&L, cg, consts, nconsts);
    if (list && !config_setting_is_list(list)) {
        dam_diag_error(d, path, line_of(list),
                       "'%s' must be a list ( {...}, ... ), got %s", key,
                       type_name(list));
    } else if (list) {
        int len = config_setting_length(list);
        arr = dam_calloc((size_t)len + 1, elem);
        for (int i = 0; i < len; i++) {
            config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
            char where[64];
            snprintf(where, sizeof where, "%s[%d]", key, i);
            if (!config_setting_is_group(e)) {
                dam_diag_error(d, path, line_of(e),
                               "'%s' must be a group, got %s", where,
                               type_name(e));
                continue;
            }
            char *slot = arr + n * elem;
            parse(&L, e, slot, where);
            for (size_t j = 0; j < n; j++)
                if (strcasecmp(arr + j * elem, slot) == 0)
                    dam_diag_error(d, path, line_of(e),
                                   "duplicate id \"%s\" (first defined at "
                                   "line %d)",
                                   slot, *(const int *)(arr + j * elem +
                                                        line_off));
            n++;
        }
    }
    config_destroy(&cfg);
    if (d->nerr > L.before) {
        dam_free(arr);
        dam_free(*consts);
        *consts = NULL;
        *nconsts = 0;
        return DAM_EINPUT;
    }
    *items = arr;
    *count = n;
    return DAM_OK;
}

/* Merge src entries into dst by id (string at offset 0). */
static void merge(void **dst, size_t *ndst, const void *src, size_t nsrc,
                  size_t elem)
{
    char *d = *dst;
    size_t n = *ndst;
    d = dam_realloc(d, (n + nsrc + 1) * elem);
    for (size_t i = 0; i < nsrc; i++) {
        const char *e = (const char *)src + i * elem;
        size_t j;
        for (j = 0; j < n; j++)
            if (strcasecmp(d + j * elem, e) == 0)
                break;
        memcpy(d + j * elem, e, elem);
        if (j == n)
            n++;
    }
    *dst = d;
    *ndst = n;
}

/*
 * Merge a file's entries (gpus or models) into a copy of cat, set its
 * overlay constants there, and replace cat by the copy only when every
 * constant applies, so that cat is unchanged on failure.
 */
static int commit(dam_catalog *cat, int models, const void *items, size_t n,
                  const overlay_const *consts, size_t nconsts,
                  const char *path, dam_diag *d)
{
    dam_catalog t = *cat;
    t.gpus = dam_malloc((cat->ngpus + 1) * sizeof *t.gpus);
    if (cat->ngpus)
        memcpy(t.gpus, cat->gpus, cat->ngpus * sizeof *t.gpus);
    t.models = dam_malloc((cat->nmodels + 1) * sizeof *t.models);
    if (cat->nmodels)
        memcpy(t.models, cat->models, cat->nmodels * sizeof *t.models);
    void *arr = models ? (void *)t.models : (void *)t.gpus;
    if (models)
        merge(&arr, &t.nmodels, items, n, sizeof(dam_model_spec));
    else
        merge(&arr, &t.ngpus, items, n, sizeof(dam_gpu));
    if (models)
        t.models = arr;
    else
        t.gpus = arr;
    int before = d->nerr;
    if (t.ngpus > DAM_CATALOG_MAX_GPUS)
        dam_diag_error(d, path, 0, "the GPU catalog would hold %zu GPUs, at "
                       "most %d", t.ngpus, DAM_CATALOG_MAX_GPUS);
    for (size_t i = 0; i < nconsts && d->nerr == before; i++) {
        dam_error e;
        if (dam_catalog_const_set(&t, &consts[i].key, consts[i].value,
                                  consts[i].sd, &e) != DAM_OK)
            dam_diag_error(d, path, consts[i].line, "%s", e.msg);
    }
    if (d->nerr > before) {
        dam_free(t.gpus);
        dam_free(t.models);
        return DAM_EINPUT;
    }
    dam_free(cat->gpus);
    dam_free(cat->models);
    *cat = t;
    if (models)
        snprintf(cat->model_file, sizeof cat->model_file, "%s", path);
    else
        snprintf(cat->gpu_file, sizeof cat->gpu_file, "%s", path);
    return DAM_OK;
}

int dam_catalog_load_gpus(dam_catalog *cat, const char *path, const char *text,
                          dam_diag *d)
{
    void *items = NULL;
    size_t n = 0, nc = 0;
    overlay_const *oc = NULL;
    if (load_list(path, text, "gpus", sizeof(dam_gpu),
                  offsetof(dam_gpu, line), gpu_entry, &items, &n, &oc, &nc,
                  d) != DAM_OK)
        return DAM_EINPUT;
    int rc = commit(cat, 0, items, n, oc, nc, path, d);
    dam_free(oc);
    dam_free(items);
    return rc;
}

int dam_catalog_load_models(dam_catalog *cat, const char *path,
                            const char *text, dam_diag *d)
{
    void *items = NULL;
    size_t n = 0, nc = 0;
    overlay_const *oc = NULL;
    if (load_list(path, text, "models", sizeof(dam_model_spec),
                  offsetof(dam_model_spec, line), model_entry, &items, &n,
                  &oc, &nc, d) != DAM_OK)
        return DAM_EINPUT;
    int rc = commit(cat, 1, items, n, oc, nc, path, d);
    dam_free(oc);
    dam_free(items);
    return rc;
}
