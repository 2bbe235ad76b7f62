/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever.c: the lever table, its parsers' common half, and the levers as
 * pure functions on scenarios (see lever.h for what each op moves, its
 * defaults and their sources).
 *
 * Design notes. The table (types[] near the end) is the only place a lever
 * type or key is spelled: each key carries its field's offset in
 * dam_lever_op, its value type, unit and range, so one setter serves the
 * scenario loader (typed values) and the command line (text), and ranges
 * are checked once. dam_lever_apply copies the input into a heap scratch
 * scenario, applies the ops there, and copies the scratch to out only on
 * success, so a failing lever leaves out as it was and in is never written
 * (out may alias in). Each op is one static apply function; they share a
 * context that formats "lever 'NAME': ..." errors. Nothing here prints.
 */
#include "model/lever.h"

#include "model/csvline.h"
#include "model/graph.h"
#include "model/llm.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/device.h"
#include "model/graph.h"
#include "model/quality.h"
#include "model/recipe.h"
#include "model/scaling.h"
#include "model/schema.h"
#include "model/suggest.h"

typedef dam_lever_ctx ctx;

static int fail(const ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(const ctx *c, const char *fmt, ...)
{
    char msg[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dam_error_set(c->err, c->file, c->line, "lever '%s': %s",
                         c->lever->name, msg);
}

/* ---- shared helpers ---------------------------------------------------- */

static int refit_layout(const ctx *c, dam_scenario *s, double global,
                        int dp_given);

/* Bytes per weight element as stored. */
static double weight_elem_bytes(const dam_workload *w)
{
    return w->master_bytes > 0.0 ? w->master_bytes
                                 : dam_precision_bytes(w->precision);
}

double dam_lever_weight_bytes(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    return w->model.params * weight_elem_bytes(w) * w->weight_scale;
}

double dam_lever_act_bytes(const dam_scenario *s)
{
    const dam_workload *w = &s->workload;
    double sum = 0.0;
    for (int i = 0; i < w->model.nphases; i++)
        sum += w->model.phases[i].act_bytes;
    return sum * dam_precision_bytes(w->precision) / 2.0 * w->bytes_scale;
}

/* "fp32, tf32, fp16, bf16, int8": the precisions g has a peak for. */
static void supported_list(const dam_gpu *g, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int p = 0; p < DAM_PREC_COUNT; p++) {
        if (!(g->peak[p] > 0.0))
            continue;
        int k = snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                         dam_precision_name((dam_precision)p));
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
    }
    if (!used)
        snprintf(buf, n, "none");
}

static int unsupported(const ctx *c, dam_precision p, const dam_gpu *g)
{
    char list[96];
    supported_list(g, list, sizeof list);
    return fail(c, "precision '%s' is not supported by '%s' (supported: %s)",
                dam_precision_name(p), g->id, list);
}

/* 1 when the metric reads as a percentage (accuracy, top-1 %...). */
static int metric_is_percent(const dam_quality *q)
{
    return q->higher_is_better && strchr(q->metric, '%') != NULL;
}

int dam_lever_quantize_default(const dam_scenario *s, dam_precision p,
                               double *delta, const char **source)
{
    switch (p) {
    case DAM_FP32:
    case DAM_TF32:
    case DAM_FP16:
    case DAM_BF16:
        *delta = 0.0;
        *source = "Micikevicius et al. 2018, Mixed Precision Training "
                  "(ICLR): 16-bit formats match fp32 accuracy";
        return 1;
    case DAM_FP8:
        *delta = 0.0;
        *source = "Micikevicius et al. 2022, FP8 Formats for Deep Learning "
                  "(arXiv 2209.05433): fp8 matches 16-bit within run-to-run "
                  "variation";
        return 1;
    case DAM_INT8:
        if (!metric_is_percent(&s->quality))
            return 0;
        *delta = -0.5;
        *source = "Wu et al. 2020, Integer Quantization for Deep Learning "
                  "Inference (arXiv 2004.09602): within 1 % of float on "
                  "every network studied; -0.5 points is half that bound";
        return 1;
    case DAM_PREC_COUNT:
        break;
    }
    return 0;
}

/* The assumed delta entry i of a states the change op makes (same kind
 * and target)? */
static int same_change(const dam_assumptions *a, int i, const dam_lever_op *op)
{
    if (a->delta[i].kind != op->kind)
        return 0;
    switch (op->kind) {
    case DAM_LEVER_QUANTIZE:
    case DAM_LEVER_PRECISION:
        return a->delta[i].precision == op->precision;
    case DAM_LEVER_PRUNE:
        return a->delta[i].sparsity_kind == op->sparsity_kind &&
               (op->sparsity_kind == DAM_SPARSITY_2TO4 ||
                a->delta[i].sparsity == op->sparsity);
    case DAM_LEVER_DISTILL:
        return a->delta[i].student_params == op->student_params;
    default:
        return 0;
    }
}

void dam_assumptions_add(dam_assumptions *a, const dam_lever *lv)
{
    for (int j = 0; j < lv->nops; j++) {
        const dam_lever_op *o = &lv->ops[j];
        if (o->kind == DAM_LEVER_GPU && o->gpu[0] && o->gpu_hour_usd > 0.0 &&
            a->nprice < DAM_MAX_ASSUMED) {
            snprintf(a->price[a->nprice].gpu, sizeof a->price[0].gpu, "%s",
                     o->gpu);
            a->price[a->nprice++].usd_hour = o->gpu_hour_usd;
        }
        if (o->has_accuracy_delta && a->ndelta < DAM_MAX_ASSUMED &&
            (o->kind == DAM_LEVER_QUANTIZE || o->kind == DAM_LEVER_PRECISION ||
             o->kind == DAM_LEVER_PRUNE || o->kind == DAM_LEVER_DISTILL)) {
            int i = a->ndelta++;
            a->delta[i].kind = o->kind;
            a->delta[i].precision = o->precision;
            a->delta[i].sparsity_kind = o->sparsity_kind;
            a->delta[i].sparsity = o->sparsity;
            a->delta[i].student_params = o->student_params;
            a->delta[i].delta = o->accuracy_delta;
        }
    }
}

/* quality += the op's delta when given; else the scenario's own delta for
 * the same change (one of its levers states it); else the sourced default;
 * else mark it unknown. */
static void add_delta(dam_scenario *s, const dam_lever_op *op,
                      int have_default, double def)
{
    const dam_assumptions *a = &s->assume;
    if (op->has_accuracy_delta) {
        s->quality.value += op->accuracy_delta;
        return;
    }
    for (int i = 0; i < a->ndelta; i++)
        if (same_change(a, i, op)) {
            s->quality.value += a->delta[i].delta;
            return;
        }
    if (have_default)
        s->quality.value += def;
    else
        s->quality.delta_unknown++;
}

/*
 * Scale an architecture by about k in parameters. A transformer: width and
 * depth by k^(1/3) each (heads grow, head size stays; KV heads keep their
 * share; FFN follows the width), or depth alone. A layer table: every
 * row's count by k (fractional multiplicities are fine). params becomes the
 * new architecture's count and the phases follow it.
 */
static void scale_arch(dam_model_spec *m, double k, int width_depth)
{
    dam_arch *a = &m->arch;
    if (a->kind == DAM_ARCH_TRANSFORMER) {
        dam_transformer *t = &a->tf;
        double depth = width_depth ? cbrt(k) : k;
        double width = width_depth ? cbrt(k) : 1.0;
        int hd = t->head_dim > 0 ? t->head_dim : t->hidden / t->heads;
        long L = lround(t->layers * depth);
        long h = lround(t->heads * width);
        t->layers = L < 1 ? 1 : (int)L;
        h = h < 1 ? 1 : h;
        if (h != t->heads) {
            long kv = lround((double)t->kv_heads * (double)h / t->heads);
            kv = kv < 1 ? 1 : kv > h ? h : kv;
            while (h % kv != 0)
                kv++;
            t->ffn = (int)lround((double)t->ffn * (double)h / t->heads);
            t->heads = (int)h;
            t->kv_heads = (int)kv;
            t->head_dim = hd;
            t->hidden = (int)(h * hd);
        }
    } else if (a->kind == DAM_ARCH_LAYERS) {
        for (int i = 0; i < a->nlayers; i++)
            a->layer[i].count *= k;
    }
    m->params = dam_graph_arch_params(a);
    dam_error e;
    dam_graph_derive_phases(m, 0.0, &e);
}

/* Scale a model's size by k. width_depth: width and depth grow together
 * (matmul FLOPs ~ k, the rest and activations ~ k^(2/3), layers ~ k^(1/3));
 * otherwise depth only (everything ~ k). A model with an architecture
 * scales its architecture (scale_arch) and re-derives its work. */
static void scale_model(dam_workload *w, double k, int width_depth)
{
    dam_model_spec *m = &w->model;
    if (m->arch.kind != DAM_ARCH_NONE) {
        double act = width_depth ? pow(k, 2.0 / 3.0) : k;
        double p0 = m->params;
        int l0 = m->layers;
        scale_arch(m, k, width_depth);
        /* the lever's size stays exact (quality and 6ND follow it); the
         * graph's architecture is the nearest whole-number one */
        m->params = p0 * k;
        m->act_mem_bytes *= act;
        long l = m->arch.kind == DAM_ARCH_TRANSFORMER
                     ? m->arch.tf.layers
                     : lround(l0 * (width_depth ? cbrt(k) : k));
        m->layers = l < 1 ? 1 : (int)l;
        if (w->kernels_per_step > 0) {
            long kk = lround(w->kernels_per_step * k);
            w->kernels_per_step = kk < 1 ? 1 : (int)kk;
        }
        return;
    }
    double act = width_depth ? pow(k, 2.0 / 3.0) : k;
    double depth = width_depth ? cbrt(k) : k;
    double sum = 0.0;

    m->params *= k;
    for (int i = 0; i < m->nphases; i++) {
        dam_phase *p = &m->phases[i];
        p->flops *= p->kind == DAM_PHASE_MATMUL ? k : act;
        p->act_bytes *= act;
        sum += p->flops;
    }
    m->flops_per_sample = m->nphases > 0 ? sum : m->flops_per_sample * k;
    m->act_mem_bytes *= act;
    if (m->layers > 0) {
        long l = lround(m->layers * depth);
        m->layers = l < 1 ? 1 : (int)l;
    }
    if (w->kernels_per_step > 0) {
        long kk = lround(w->kernels_per_step * depth);
        w->kernels_per_step = kk < 1 ? 1 : (int)kk;
    }
    if (m->kernels_per_step > 0) {
        long kk = lround(m->kernels_per_step * depth);
        m->kernels_per_step = kk < 1 ? 1 : (int)kk;
    }
}

/* A training run made longer by a named method (dense training before a
 * 2:4 pruning, quantization-aware training): both must be given. */
static int train_method(const ctx *c, const dam_lever_op *op,
                        dam_scenario *s, const char *what)
{
    if (!op->train_method[0] || !(op->train_cost >= 0.0))
        return fail(c, "%s is an inference format; in training name the "
                    "method that makes it trainable and its cost: "
                    "train_method = \"...\" and train_cost = extra training "
                    "as a fraction of the run (e.g. 1.0 to train dense, "
                    "prune and retrain as long again)", what);
    s->workload.retrain_fraction += op->train_cost;
    return DAM_OK;
}

/* ---- ops ----------------------------------------------------------------- */

static int op_gpu(const ctx *c, const dam_lever_op *op,
                  const dam_catalog *cat, dam_scenario *s)
{
    dam_machine *m = &s->machine;
    int any = 0;
    int64_t gpus0 = dam_scenario_gpus(s);
    double global0 = dam_scenario_global_batch(s);

    if (op->gpu[0]) {
        const dam_gpu *g = cat ? dam_catalog_gpu(cat, op->gpu) : NULL;
        if (!cat)
            return fail(c, "no GPU catalog to look up '%s' in", op->gpu);
        if (!g) {
            const char *near = dam_catalog_suggest_gpu(cat, op->gpu);
            if (near)
                return fail(c, "unknown gpu '%s' (did you mean '%s'?)",
                            op->gpu, near);
            return fail(c, "unknown gpu '%s' (not in the catalog)", op->gpu);
        }
        if (!(g->peak[s->workload.precision] > 0.0))
            return unsupported(c, s->workload.precision, g);
        const dam_recipe *rc = dam_recipe_get(s->workload.recipe);
        if (rc && rc->block_scaled && g->gen != DAM_GEN_BLACKWELL)
            return fail(c, "recipe \"%s\" needs Blackwell's block-scaled "
                        "tensor cores ('%s' is not Blackwell)", rc->name,
                        g->id);
        if (rc && rc->fp4 && !(g->peak_fp4 > 0.0))
            return fail(c, "recipe \"%s\" needs an FP4 peak ('%s' has "
                        "none)", rc->name, g->id);
        double old_link = dam_device_fabric_busbw(&m->gpu, m->pcie_bw);
        m->gpu = *g;
        /* the price: the op's, else the scenario's own for this GPU, else
         * the catalog's; none of them: unknown (0), never the old GPU's */
        if (op->gpu_hour_usd <= 0.0)
            s->cost.gpu_hour_usd = dam_lever_gpu_price(s, g->id, g);
        /* the new GPU brings its own node fabric (NVLink, or PCIe) */
        double new_link = dam_device_fabric_busbw(g, m->pcie_bw);
        if (old_link > 0.0 && new_link > 0.0) {
            m->intra_busbw *= new_link / old_link;
            m->net.domain_bw *= new_link / old_link;
        }
        if (s->workload.sparsity_kind == DAM_SPARSITY_2TO4)
            s->workload.matmul_peak_scale = g->sparsity_2to4 ? 2.0 : 1.0;
        any = 1;
    }
    if (op->gpu_hour_usd > 0.0) /* alone: re-prices the GPU in use */
        s->cost.gpu_hour_usd = op->gpu_hour_usd, any = 1;
    if (op->gpus_per_node >= 0) {
        m->gpus_per_node = op->gpus_per_node;
        any = 1;
    }
    if (op->nodes >= 0) {
        m->nodes = op->nodes;
        any = 1;
    }
    if (op->gpus > 0) {
        if (op->nodes >= 0)
            return fail(c, "give gpus or nodes, not both (gpus = %d, "
                        "nodes = %d)", op->gpus, op->nodes);
        if (op->gpus < m->gpus_per_node && op->gpus_per_node < 0) {
            m->gpus_per_node = op->gpus; /* fewer than one node */
            m->nodes = 1;
        } else if (op->gpus % m->gpus_per_node != 0) {
            return fail(c, "gpus = %d is not a multiple of gpus_per_node = "
                        "%d", op->gpus, m->gpus_per_node);
        } else {
            m->nodes = op->gpus / m->gpus_per_node;
        }
        any = 1;
    }
    if (dam_scenario_gpus(s) > DAM_MAX_GPUS)
        return fail(c, "%d GPUs per node x %d nodes = %lld GPUs; damsim "
                    "models at most %d", m->gpus_per_node, m->nodes,
                    (long long)dam_scenario_gpus(s), DAM_MAX_GPUS);
    if (!any)
        return fail(c, "gpu op sets nothing (give gpu, gpus, "
                    "gpus_per_node, nodes or gpu_hour_usd)");
    if (s->layout.on && dam_scenario_gpus(s) != gpus0) {
        /* a layout scales out over data parallelism, same global batch */
        m->net.gpus_per_node = m->gpus_per_node;
        return refit_layout(c, s, global0, 0);
    }
    return DAM_OK;
}

/* Shared by quantize and precision: switch the compute format to p. */
static int set_precision(const ctx *c, dam_scenario *s, int p, int quantize)
{
    dam_workload *w = &s->workload;
    if (p < 0 || p >= DAM_PREC_COUNT)
        return fail(c, "%s needs a precision (got %d)",
                    quantize ? "quantize" : "precision", p);
    dam_precision np = (dam_precision)p;
    if (quantize && (np == DAM_FP32 || np == DAM_TF32))
        return fail(c, "quantize targets fp16, bf16, fp8 or int8 (got '%s'; "
                    "use the precision lever to widen)",
                    dam_precision_name(np));
    double ob = dam_precision_bytes(w->precision);
    double nb = dam_precision_bytes(np);
    if (quantize && nb > ob)
        return fail(c, "quantize narrows the format, but '%s' is wider than "
                    "the current '%s' (use the precision lever to widen)",
                    dam_precision_name(np), dam_precision_name(w->precision));
    if (!(s->machine.gpu.peak[np] > 0.0))
        return unsupported(c, np, &s->machine.gpu);
    int stored = quantize && s->mode != DAM_MODE_TRAINING;
    if (stored || !(w->master_bytes > 0.0) || w->master_bytes == ob)
        w->master_bytes = nb;
    w->precision = np;
    /* a layout's recipe follows its precision (recipe.h) */
    if (s->layout.on)
        w->recipe = dam_recipe_default(np, s->layout.profile);
    return DAM_OK;
}

static int op_quantize(const ctx *c, const dam_lever_op *op,
                       const dam_catalog *cat, dam_scenario *s)
{
    double def = 0.0;
    const char *src = NULL;
    if (s->mode == DAM_MODE_TRAINING && op->precision == DAM_INT8) {
        /* quantization-aware training: the run computes at its own
         * precision and grows by the method's cost */
        int rc = train_method(c, op, s, "INT8");
        if (rc != DAM_OK)
            return rc;
        int have = dam_lever_quantize_default(s, DAM_INT8, &def, &src);
        add_delta(s, op, have, def);
        return DAM_OK;
    }
    int rc = set_precision(c, s, op->precision, 1);
    if (rc != DAM_OK)
        return rc;
    int have = dam_lever_quantize_default(s, s->workload.precision, &def,
                                          &src);
    add_delta(s, op, have, def);
    return DAM_OK;
}

static int op_precision(const ctx *c, const dam_lever_op *op,
                        const dam_catalog *cat, dam_scenario *s)
{
    if (s->mode == DAM_MODE_TRAINING && op->precision == DAM_INT8)
        return fail(c, "int8 is not a training format (for a model served "
                    "in INT8 use quantize = \"int8\" with train_method and "
                    "train_cost)");
    int rc = set_precision(c, s, op->precision, 0);
    if (rc != DAM_OK)
        return rc;
    /* Floating formats count as neutral; integer compute is quantization. */
    add_delta(s, op, s->workload.precision != DAM_INT8, 0.0);
    return DAM_OK;
}

static int op_prune(const ctx *c, const dam_lever_op *op,
                    const dam_catalog *cat, dam_scenario *s)
{
    dam_workload *w = &s->workload;
    double sp = op->sparsity, b = weight_elem_bytes(w);

    switch (op->sparsity_kind) {
    case DAM_SPARSITY_STRUCTURED:
    case DAM_SPARSITY_UNSTRUCTURED:
        if (!(sp > 0.0 && sp < 1.0))
            return fail(c, "%s sparsity must be in (0, 1) (got %g)",
                        dam_sparsity_name(op->sparsity_kind), sp);
        if (op->sparsity_kind == DAM_SPARSITY_STRUCTURED) {
            w->flops_scale *= 1.0 - sp;
            w->bytes_scale *= 1.0 - sp;
            w->model.params *= 1.0 - sp;
            w->model.act_mem_bytes *= 1.0 - sp;
        } else {
            double sparse = (1.0 - sp) * (b + 2.0) / b;
            if (sparse < 1.0)
                w->weight_scale *= sparse;
        }
        add_delta(s, op, 0, 0.0);
        break;
    case DAM_SPARSITY_2TO4:
        if (sp >= 0.0 && sp != 0.5)
            return fail(c, "2:4 sparsity removes exactly half the weights "
                        "(got sparsity %g)", sp);
        if (w->sparsity_kind == DAM_SPARSITY_2TO4)
            return fail(c, "the workload is already 2:4 sparse");
        if (!s->machine.gpu.sparsity_2to4)
            return fail(c, "2:4 sparsity needs sparse tensor cores, which "
                        "'%s' lacks (no speed-up on dense hardware; prune "
                        "structured or unstructured instead)",
                        s->machine.gpu.id);
        sp = 0.5;
        if (s->mode == DAM_MODE_TRAINING) {
            /* trained dense with masks: no training speed-up */
            int rc = train_method(c, op, s, "2:4 sparsity");
            if (rc != DAM_OK)
                return rc;
        } else {
            /* the sparse tensor cores read the weights at the compute
             * precision (the solver's weight bytes), not as a master copy
             * is stored: 2 of 4 values plus two 2-bit indices per group */
            double e = dam_precision_bytes(w->precision);
            w->matmul_peak_scale = 2.0;
            w->weight_scale *= 0.5 + 0.125 / e;
        }
        add_delta(s, op, 1, 0.0);
        break;
    default:
        return fail(c, "prune needs a kind: structured, unstructured or 2:4");
    }
    w->sparsity = 1.0 - (1.0 - (w->sparsity > 0.0 ? w->sparsity : 0.0))
                            * (1.0 - sp);
    w->sparsity_kind = (dam_sparsity_kind)op->sparsity_kind;
    return DAM_OK;
}

static int op_prefetch(const ctx *c, const dam_lever_op *op,
                       const dam_catalog *cat, dam_scenario *s)
{
    dam_pipeline *p = &s->pipeline;
    int any = 0;

    if (op->loader_workers >= 0)
        p->loader_workers = op->loader_workers, any = 1;
    if (op->prefetch_factor >= 0)
        p->prefetch_factor = op->prefetch_factor, any = 1;
    if (op->pin_memory >= 0)
        p->pin_memory = op->pin_memory, any = 1;
    if (op->overlap_transfer >= 0)
        p->overlap_transfer = op->overlap_transfer, any = 1;
    if (op->overlap_sync >= 0)
        p->overlap_sync = op->overlap_sync, any = 1;
    if (op->bucket_bytes > 0.0)
        p->bucket_bytes = op->bucket_bytes, any = 1;
    return any ? DAM_OK : fail(c, "prefetch op sets nothing");
}

static int op_chinchilla(const ctx *c, const dam_lever_op *op,
                         const dam_catalog *cat, dam_scenario *s)
{
    dam_workload *w = &s->workload;
    const dam_scaling_fit *f =
        dam_scaling_fit_get((dam_scaling_fit_id)(op->fit >= 0 ? op->fit
                                                             : s->quality.fit));
    if (!f)
        return fail(c, "unknown scaling-law fit %d", op->fit);
    if (w->model.family[0] && strcmp(w->model.family, "language") != 0
        && strcmp(w->model.family, "custom") != 0)
        return fail(c, "the Chinchilla fit is for language models, but "
                    "'%s' is a '%s' model", w->model.id, w->model.family);
    double n = w->model.params, d = dam_quality_tokens(s);
    if (!(n > 0.0) || !(d > 0.0))
        return fail(c, "needs parameters and training tokens > 0 (got N = "
                    "%g, D = %g; set quality.tokens or data samples, "
                    "seq_len and epochs)", n, d);
    double cbudget = dam_scaling_compute(n, d), n2, d2;
    int rc = op->tokens_per_param > 0.0
                 ? dam_scaling_split(cbudget, op->tokens_per_param, &n2, &d2,
                                     NULL)
                 : dam_scaling_optimal(f, cbudget, &n2, &d2, NULL);
    if (rc != DAM_OK)
        return fail(c, "cannot split a budget of %g FLOPs", cbudget);

    const dam_scaling_fit *lf = dam_scaling_fit_get(
        (dam_scaling_fit_id)s->quality.fit);
    if (!lf)
        lf = f;
    double l0 = dam_scaling_loss(lf, n, d), l1 = dam_scaling_loss(lf, n2, d2);
    scale_model(w, n2 / n, 1);
    s->data.samples *= d2 / d;
    if (s->quality.tokens > 0.0)
        s->quality.tokens = d2;
    if (s->quality.higher_is_better)
        s->quality.delta_unknown++; /* the fit predicts loss, not accuracy */
    else if (s->quality.from_scaling_law && !(s->quality.value > 0.0))
        s->quality.value = l1;
    else
        s->quality.value += l1 - l0;
    return DAM_OK;
}

static int op_fuse(const ctx *c, const dam_lever_op *op,
                   const dam_catalog *cat, dam_scenario *s)
{
    double f = op->fuse_fraction;
    dam_workload *w = &s->workload;
    if (!(f >= 0.0 && f <= 1.0))
        return fail(c, "fuse needs a fraction in [0, 1] (got %g)", f);
    for (int i = 0; i < w->model.nphases; i++)
        if (w->model.phases[i].kind == DAM_PHASE_ELEMENTWISE)
            w->model.phases[i].act_bytes *= 1.0 - f;
    if (w->kernels_per_step > 0) {
        long k = lround(w->kernels_per_step * (1.0 - f));
        w->kernels_per_step = k < 1 ? 1 : (int)k;
    }
    /* a model with a graph: its memory-bound kernels (device.h) */
    w->fused = 1.0 - (1.0 - w->fused) * (1.0 - f);
    return DAM_OK;
}

static int op_cuda_graphs(const ctx *c, const dam_lever_op *op,
                          const dam_catalog *cat, dam_scenario *s)
{
    if (op->cuda_graphs < 0)
        return fail(c, "cuda_graphs needs true or false");
    s->workload.cuda_graphs = op->cuda_graphs;
    return DAM_OK;
}

static int op_data_format(const ctx *c, const dam_lever_op *op,
                          const dam_catalog *cat, dam_scenario *s)
{
    dam_data *d = &s->data;
    int any = 0;

    if (op->shard_bytes > 0.0)
        d->shard_bytes = op->shard_bytes, any = 1;
    if (op->sharded >= 0) {
        d->sharded = op->sharded;
        if (d->sharded && !(d->shard_bytes > 0.0))
            d->shard_bytes = DAM_LEVER_DEFAULT_SHARD_BYTES;
        any = 1;
    }
    if (op->gpu_decode_s >= 0.0)
        d->gpu_decode_s = op->gpu_decode_s, any = 1;
    if (op->decode_on_gpu >= 0)
        d->decode_on_gpu = op->decode_on_gpu, any = 1;
    if (d->decode_on_gpu && !(d->gpu_decode_s > 0.0))
        return fail(c, "decode_on_gpu needs gpu_decode_ms, the GPU time per "
                    "sample (the scenario has none)");
    return any ? DAM_OK : fail(c, "data_format op sets nothing");
}

static int op_batch_size(const ctx *c, const dam_lever_op *op,
                         const dam_catalog *cat, dam_scenario *s)
{
    if (op->batch_size < 1)
        return fail(c, "batch_size needs a value");
    if (s->layout.on)
        return fail(c, "with a parallel layout the batch is the layout's "
                    "(use the layout lever's micro_batch)");
    s->workload.batch_size = op->batch_size;
    return DAM_OK;
}

static int op_distill(const ctx *c, const dam_lever_op *op,
                      const dam_catalog *cat, dam_scenario *s)
{
    double n = s->workload.model.params, st = op->student_params;
    if (!(st > 0.0) || !(st < n))
        return fail(c, "params (the student's parameter count) must be in "
                    "(0, %g), the teacher's parameters (got %g)", n, st);
    scale_model(&s->workload, st / n, 0);
    add_delta(s, op, 0, 0.0);
    return DAM_OK;
}

/*
 * Fit a layout to the scenario's GPUs and global batch after a lever
 * changed either: dp follows the GPUs (unless the op set it), the
 * micro-batches follow the batch; then the layout's rules.
 */
static int refit_layout(const ctx *c, dam_scenario *s, double global,
                        int dp_given)
{
    dam_layout *l = &s->layout;
    int64_t gpus = dam_scenario_gpus(s);
    int64_t mp = (int64_t)l->tp * l->cp * l->pp;
    if (!dp_given) {
        if (gpus % mp != 0)
            return fail(c, "tp x cp x pp = %d x %d x %d = %lld does not "
                        "divide the %lld GPUs",
                        l->tp, l->cp, l->pp, (long long)mp, (long long)gpus);
        l->dp = (int)(gpus / mp);
    }
    double per = (double)l->dp * l->micro_batch;
    double m = global / per;
    if (m < 1.0 || m != floor(m))
        return fail(c, "the global batch of %.0f sequences is not a "
                    "multiple of dp x micro_batch = %d x %d",
                    global, l->dp, l->micro_batch);
    l->micro_batches = (int)m;
    s->workload.batch_size = l->micro_batch;
    dam_error e;
    if (dam_layout_check(l, &s->workload.model, gpus, s->workload.seq_len,
                         NULL, &e) != DAM_OK)
        return fail(c, "%s", e.msg);
    return DAM_OK;
}

static int op_layout(const ctx *c, const dam_lever_op *op,
                     const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    dam_layout *l = &s->layout;
    if (!l->on)
        return fail(c, "the scenario has no 'parallel' layout to change");
    double global = dam_scenario_global_batch(s);
    int any = 0;
#define SET(f, v)           if ((v) >= 0) {             l->f = (v);             any = 1;            }
    SET(tp, op->tp);
    SET(pp, op->pp);
    SET(dp, op->dp);
    SET(cp, op->cp);
    SET(ep, op->ep);
    SET(vpp, op->vpp);
    SET(micro_batch, op->micro_batch);
    SET(zero, op->zero);
    SET(recompute, op->recompute);
    SET(schedule, op->schedule);
    SET(sp, op->sequence_parallel);
    SET(overlap_a2a, op->overlap_a2a);
#undef SET
    if (!any)
        return fail(c, "layout op sets nothing (give tp, pp, dp, cp, ep, "
                    "vpp, micro_batch, zero, recompute, schedule, "
                    "sequence_parallel or overlap_all_to_all)");
    if (op->vpp > 1 && op->schedule < 0)
        l->schedule = DAM_SCHED_INTERLEAVED;
    if (op->vpp == 1 && op->schedule < 0 &&
        l->schedule == DAM_SCHED_INTERLEAVED)
        l->schedule = DAM_SCHED_1F1B;
    if (op->zero >= 0)
        l->fsdp = 0;
    if (op->pp >= 0 || op->vpp >= 0)
        l->first_layers = l->last_layers = 0; /* an even split again */
    return refit_layout(c, s, global, op->dp >= 0);
}

static int op_network(const ctx *c, const dam_lever_op *op,
                      const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    dam_network *n = &s->machine.net;
    int any = 0;
    if (op->nvlink_domain > 0) {
        int g = s->machine.gpus_per_node;
        if (op->nvlink_domain % g != 0 && g % op->nvlink_domain != 0)
            return fail(c, "nvlink_domain = %d must be a multiple or a "
                        "divisor of the %d GPUs per node",
                        op->nvlink_domain, g);
        n->domain = op->nvlink_domain, any = 1;
    }
    if (op->nics_per_node > 0)
        n->nics = op->nics_per_node, any = 1;
    if (op->nic_bw > 0.0)
        n->nic_bw = op->nic_bw, any = 1;
    if (op->rail_optimized >= 0)
        n->rail_optimized = op->rail_optimized, any = 1;
    if (op->oversub >= 1.0)
        n->oversub = op->oversub, any = 1;
    if (op->algorithm >= 0)
        n->algo = (dam_net_algo)op->algorithm, any = 1;
    return any ? DAM_OK
               : fail(c, "network op sets nothing (give nvlink_domain, "
                      "nics_per_node, nic_gbs, rail_optimized, "
                      "oversubscription or algorithm)");
}

static int can_batch_size(const dam_scenario *s, dam_bound b)
{
    (void)b;
    return !s->layout.on; /* a layout's batch is the layout lever's */
}

static int can_layout(const dam_scenario *s, dam_bound b)
{
    (void)b;
    return s->layout.on;
}

static int op_serving(const ctx *c, const dam_lever_op *op,
                      const dam_catalog *cat, dam_scenario *s)
{
    dam_serving *v = &s->serving;
    int any = 0;
    if (op->replicas >= 0)
        v->replicas = op->replicas, any = 1;
    if (op->max_batch >= 0)
        v->max_batch = op->max_batch, any = 1;
    if (op->batch_timeout_s >= 0.0)
        v->batch_timeout_s = op->batch_timeout_s, any = 1;
    if (op->preprocess_workers >= 0)
        v->preprocess_workers = op->preprocess_workers, any = 1;
    return any ? DAM_OK : fail(c, "serving op sets nothing");
}

/* ---- LLM serving ----------------------------------------------------------- */

static int need_llm(const ctx *c, const dam_scenario *s)
{
    if (s->serving.llm.enabled)
        return DAM_OK;
    return fail(c, "applies to LLM serving scenarios (an 'llm' group), and "
                "this serving scenario has none");
}

static int op_weights(const ctx *c, const dam_lever_op *op,
                      const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    if (need_llm(c, s) != DAM_OK)
        return DAM_EINPUT;
    dam_llm_weights w = (dam_llm_weights)op->llm_weights;
    char why[160];
    if (dam_llm_weights_check(&s->machine.gpu, w, why, sizeof why) != 0)
        return fail(c, "weights %s", why);
    s->serving.llm.weights = w;
    add_delta(s, op, w == DAM_LLM_W_NATIVE, 0.0);
    return DAM_OK;
}

static int op_kv_cache(const ctx *c, const dam_lever_op *op,
                       const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    if (need_llm(c, s) != DAM_OK)
        return DAM_EINPUT;
    dam_precision p = (dam_precision)op->kv_precision;
    if (p != DAM_BF16 && p != DAM_FP16 && p != DAM_FP8 && p != DAM_INT8)
        return fail(c, "format must be bf16, fp16, fp8 or int8 (got '%s')",
                    dam_precision_name(p));
    s->serving.llm.kv_precision = p;
    add_delta(s, op, p != DAM_FP8 && p != DAM_INT8, 0.0);
    return DAM_OK;
}

static int op_tensor_parallel(const ctx *c, const dam_lever_op *op,
                              const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    if (need_llm(c, s) != DAM_OK)
        return DAM_EINPUT;
    dam_llm *q = &s->serving.llm;
    if (q->disaggregated)
        return fail(c, "the scenario serves from disaggregated pools: set "
                    "their degrees with disaggregate = { prefill_tp; "
                    "decode_tp; }");
    q->tp = q->prefill_tp = q->decode_tp = op->tp;
    return DAM_OK;
}

static int op_scheduler(const ctx *c, const dam_lever_op *op,
                        const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    if (need_llm(c, s) != DAM_OK)
        return DAM_EINPUT;
    dam_llm *q = &s->serving.llm;
    int any = 0;
    if (op->token_budget >= 0) {
        /* a chunk never exceeds the budget: a budget cut takes it along */
        if (q->chunk_tokens > op->token_budget || q->chunk_tokens ==
                                                      q->token_budget)
            q->chunk_tokens = op->token_budget;
        q->token_budget = op->token_budget, any = 1;
    }
    if (op->chunk_tokens >= 0)
        q->chunk_tokens = op->chunk_tokens, any = 1;
    if (op->chunked_prefill >= 0)
        q->chunked_prefill = op->chunked_prefill, any = 1;
    if (op->max_seqs >= 0)
        q->max_seqs = op->max_seqs, any = 1;
    if (op->preemption >= 0)
        q->preemption = (dam_llm_preempt)op->preemption, any = 1;
    if (op->capacity >= 0)
        q->capacity = (dam_llm_capacity)op->capacity, any = 1;
    if (op->prefix_hit_rate >= 0.0)
        q->prefix_hit_rate = op->prefix_hit_rate, any = 1;
    if (op->prefix_tokens >= 0.0)
        q->prefix_tokens = op->prefix_tokens, any = 1;
    return any ? DAM_OK : fail(c, "scheduler op sets nothing");
}

static int op_disaggregate(const ctx *c, const dam_lever_op *op,
                           const dam_catalog *cat, dam_scenario *s)
{
    (void)cat;
    if (need_llm(c, s) != DAM_OK)
        return DAM_EINPUT;
    dam_llm *q = &s->serving.llm;
    if (!q->disaggregated) {
        /* from one pool: both pools start at its degree, one replica each,
         * KV over the node's GPU fabric */
        q->disaggregated = 1;
        q->prefill_replicas = q->decode_replicas = 1;
        q->prefill_tp = q->decode_tp = q->tp;
        q->kv_link_bw = s->machine.gpu.dev.busbw.v > 0.0
                            ? s->machine.gpu.dev.busbw.v
                            : s->machine.pcie_bw;
        q->kv_link_latency = s->machine.net_latency;
    }
    if (op->prefill_replicas >= 0)
        q->prefill_replicas = op->prefill_replicas;
    if (op->decode_replicas >= 0)
        q->decode_replicas = op->decode_replicas;
    if (op->prefill_tp >= 0)
        q->prefill_tp = op->prefill_tp;
    if (op->decode_tp >= 0)
        q->decode_tp = op->decode_tp;
    if (op->kv_link_bw > 0.0)
        q->kv_link_bw = op->kv_link_bw;
    return DAM_OK;
}

/* After any lever on an LLM scenario: what the loader checks still holds. */
static int llm_check(const ctx *c, dam_scenario *s)
{
    dam_llm *q = &s->serving.llm;
    if (!q->enabled)
        return DAM_OK;
    int gpn = s->machine.gpus_per_node;
    int tps[3] = {q->tp, q->prefill_tp, q->decode_tp};
    for (int i = 0; i < 3; i++) {
        if (tps[i] > gpn)
            return fail(c, "a replica of %d GPUs does not fit in a node of "
                        "%d (tensor parallelism stays inside a node)",
                        tps[i], gpn);
        dam_graph g;
        dam_llm_iter it = {.decode_seqs = 1.0, .tp = tps[i]};
        dam_error e;
        if (dam_graph_llm_iteration(&g, &s->workload.model, &it, &e) !=
            DAM_OK)
            return fail(c, "%s", e.msg);
    }
    if (q->chunk_tokens > q->token_budget)
        return fail(c, "chunk_tokens (%d) exceeds token_budget (%d)",
                    q->chunk_tokens, q->token_budget);
    if (q->max_seqs > q->token_budget)
        return fail(c, "max_seqs (%d) exceeds token_budget (%d): every "
                    "running sequence takes a token of the budget",
                    q->max_seqs, q->token_budget);
    if (!q->chunked_prefill && q->input.max > q->token_budget)
        return fail(c, "without chunked prefill a whole prompt must fit in "
                    "one iteration: token_budget (%d) is below input_max "
                    "(%g)",
                    q->token_budget, q->input.max);
    char why[160];
    if (dam_llm_weights_check(&s->machine.gpu, q->weights, why,
                              sizeof why) != 0)
        return fail(c, "weights %s", why);
    return DAM_OK;
}

/* ---- where each type can move a bound (the table's "can") -------------- */

/* Is there a precision other than the current one that this GPU runs
 * faster, valid in the scenario's mode (narrower only when narrow)? */
static int faster_precision(const dam_scenario *s, int narrow)
{
    const dam_gpu *g = &s->machine.gpu;
    dam_precision p0 = s->workload.precision;
    for (int p = 0; p < DAM_PREC_COUNT; p++) {
        if (p == (int)p0 || !(g->peak[p] > g->peak[p0]))
            continue;
        if (p == DAM_INT8 && s->mode == DAM_MODE_TRAINING)
            continue; /* an inference format */
        if (narrow && dam_precision_bytes((dam_precision)p) >
                          dam_precision_bytes(p0))
            continue;
        return 1;
    }
    return 0;
}

static int can_quantize(const dam_scenario *s, dam_bound b)
{
    return faster_precision(s, 1) ||
           (b != DAM_BOUND_COMPUTE && s->mode != DAM_MODE_TRAINING);
}

static int can_precision(const dam_scenario *s, dam_bound b)
{
    return faster_precision(s, 0);
}

static int can_prune(const dam_scenario *s, dam_bound b)
{
    /* in training, 2:4 trains dense; structured pruning still shrinks */
    return 1;
}

static int can_prefetch(const dam_scenario *s, dam_bound b)
{
    const dam_pipeline *p = &s->pipeline;
    switch (b) {
    case DAM_BOUND_DATA:
        return p->loader_workers * s->machine.gpus_per_node <
               s->machine.cpu_cores;
    case DAM_BOUND_TRANSFER:
        return !p->pin_memory || !p->overlap_transfer;
    case DAM_BOUND_COMM:
        return !p->overlap_sync;
    default:
        return 1;
    }
}

static int can_data_format(const dam_scenario *s, dam_bound b)
{
    const dam_data *d = &s->data;
    if (b == DAM_BOUND_TRANSFER)
        return !d->decode_on_gpu && d->raw_bytes < d->input_bytes;
    return !d->sharded || !d->decode_on_gpu;
}

static int can_cuda_graphs(const dam_scenario *s, dam_bound b)
{
    return !s->workload.cuda_graphs;
}

static int can_fuse(const dam_scenario *s, dam_bound b)
{
    if (b != DAM_BOUND_MEMORY)
        return 1;
    for (int i = 0; i < s->workload.model.nphases; i++)
        if (s->workload.model.phases[i].kind == DAM_PHASE_ELEMENTWISE)
            return 1;
    return 0;
}

/* ---- main-value syntaxes -------------------------------------------------- */

/* Parse a whole string as a finite double. */
static int parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = dam_decimal(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A boolean word (schema.h); 0 on success, -1 when it is none. */
static int parse_bool(const char *s, int *out)
{
    return dam_key_parse_bool(s, out) ? 0 : -1;
}

static const char *const sparsity_kinds[] = {"none", "structured",
                                             "unstructured", "2:4", NULL};

/* Mark key `name` of the op's type as given. */
static void mark(dam_lever_op *op, const char *name)
{
    const dam_lever_type *t = dam_lever_type_get(op->kind);
    const dam_lever_key *k = dam_lever_key_find(t, name);
    if (k)
        op->set |= 1u << (unsigned)(k - t->keys);
}

/* prune: "KIND:S", "S:KIND", "2:4" or "S:2:4". */
static int main_prune(const char *v, dam_lever_op *op, char *why, size_t n)
{
    char buf[64];
    static const char expect[] = "prune expects structured:S, "
                                 "unstructured:S or 2:4, with S in (0, 1)";
    if (strlen(v) >= sizeof buf)
        return snprintf(why, n, "%s", expect), -1;
    if (strcmp(v, "2:4") == 0) {
        op->sparsity_kind = DAM_SPARSITY_2TO4;
        op->sparsity = 0.5;
        mark(op, "kind");
        mark(op, "sparsity");
        return 0;
    }
    strcpy(buf, v);
    char *colon = strchr(buf, ':');
    if (!colon)
        return snprintf(why, n, "%s", expect), -1;
    *colon = '\0';
    const char *a = buf, *b = colon + 1;
    double s;
    if (parse_num(a, &s) == 0) { /* S:KIND */
        const char *t = a;
        a = b;
        b = t;
    } else if (parse_num(b, &s) != 0) {
        return snprintf(why, n, "%s", expect), -1;
    }
    int kind = -1;
    for (int i = 1; sparsity_kinds[i]; i++)
        if (strcasecmp(a, sparsity_kinds[i]) == 0)
            kind = i;
    if (kind < 0 || !(s > 0.0 && s < 1.0))
        return snprintf(why, n, "%s", expect), -1;
    op->sparsity_kind = kind;
    op->sparsity = s;
    mark(op, "kind");
    mark(op, "sparsity");
    return 0;
}

/* chinchilla: "optimal" or tokens per parameter. */
static int main_chinchilla(const char *v, dam_lever_op *op, char *why,
                           size_t n)
{
    double x;
    if (strcasecmp(v, "optimal") == 0)
        op->tokens_per_param = 0.0;
    else if (parse_num(v, &x) == 0 && x > 0.0)
        op->tokens_per_param = x;
    else
        return snprintf(why, n, "chinchilla expects 'optimal' or tokens per "
                        "parameter > 0"), -1;
    mark(op, "tokens_per_param");
    return 0;
}

/* ---- the table ------------------------------------------------------------ */

static const char *const precision_names[] = {"fp32", "tf32", "fp16", "bf16",
                                              "fp8",  "int8", NULL};

#define OFF(f) offsetof(dam_lever_op, f)
#define INF HUGE_VAL
/* name, alias, type, unit, scale, lo, hi, lo_open, hi_open, offset, size,
 * choices, help, scenario */
#define KINT(name, f, lo, help) \
    {name, NULL, DAM_LKEY_INT, "", 1.0, lo, INF, 0, 1, OFF(f), 0, NULL, help, \
     NULL}
/* A count with the upper bound of its scenario key (scenario.h, issue 11). */
#define KINTR(name, f, lo, hi, help) \
    {name, NULL, DAM_LKEY_INT, "", 1.0, lo, hi, 0, 0, OFF(f), 0, NULL, help, \
     NULL}
#define KNUM(name, f, unit, scale, lo, hi, lo_open, hi_open, help) \
    {name, NULL, DAM_LKEY_NUM, unit, scale, lo, hi, lo_open, hi_open, OFF(f), \
     0, NULL, help, NULL}
#define KBOOL(name, f, help) \
    {name, NULL, DAM_LKEY_BOOL, "", 1.0, 0, 1, 0, 0, OFF(f), 0, NULL, help, \
     NULL}
#define KCHOICE(name, f, choices, help) \
    {name, NULL, DAM_LKEY_CHOICE, "", 1.0, 0, 0, 0, 0, OFF(f), 0, choices, help, \
     NULL}
#define KTEXT(name, f, help) \
    {name, NULL, DAM_LKEY_TEXT, "", 1.0, 0, 0, 0, 0, OFF(f), \
     sizeof(((dam_lever_op *)0)->f), NULL, help, NULL}
/* A key that sets a scenario key: its range is that key's row in
 * model/schema.c (dam_lever_key_bounds), so a lever, a sweep and a file
 * accept the same values; tests/unit/test_schema.c checks the unit, the
 * scale, the type and the choices against the row. */
#define SINT(name, f, path, help) \
    {name, NULL, DAM_LKEY_INT, "", 1.0, 0, 0, 0, 0, OFF(f), 0, NULL, help, \
     path}
#define SNUM(name, f, unit, scale, path, help) \
    {name, NULL, DAM_LKEY_NUM, unit, scale, 0, 0, 0, 0, OFF(f), 0, NULL, help, \
     path}
#define SBOOL(name, f, path, help) \
    {name, NULL, DAM_LKEY_BOOL, "", 1.0, 0, 1, 0, 0, OFF(f), 0, NULL, help, \
     path}
#define SCHOICE(name, f, choices, path, help) \
    {name, NULL, DAM_LKEY_CHOICE, "", 1.0, 0, 0, 0, 0, OFF(f), 0, choices, \
     help, path}
#define KDELTA \
    {"accuracy_delta", "delta", DAM_LKEY_NUM, "metric units", 1.0, -INF, INF, \
     1, 1, OFF(accuracy_delta), 0, NULL, \
     "quality change it causes (else the scenario's own, else the default)", \
     NULL}
#define KMETHOD \
    KTEXT("train_method", train_method, \
          "training: the method that makes the format trainable")
#define KCOST \
    KNUM("train_cost", train_cost, "fraction of the run", 1.0, 0, INF, 0, 1, \
         "training: the extra training the method costs")

static const dam_lever_key gpu_keys[] = {
    KTEXT("gpu", gpu, "catalog id of the GPU to run on"),
    KINTR("gpus", gpus, 1, DAM_MAX_GPUS, "total GPUs (nodes follow)"),
    SINT("gpus_per_node", gpus_per_node, "machine.gpus_per_node",
         "GPUs per node"),
    SINT("nodes", nodes, "machine.nodes", "nodes"),
    SNUM("gpu_hour_usd", gpu_hour_usd, "USD per GPU-hour", 1.0,
         "cost.gpu_hour_usd",
         "price of the GPU (alone: re-prices the GPU in use)"),
};
static const dam_lever_key quantize_keys[] = {
    SCHOICE("precision", precision, precision_names, "workload.precision",
            "fp16, bf16, fp8 or int8"),
    KDELTA, KMETHOD, KCOST,
};
static const dam_lever_key precision_keys[] = {
    SCHOICE("precision", precision, precision_names, "workload.precision",
            "the compute format"),
    KDELTA,
};
static const dam_lever_key prune_keys[] = {
    KCHOICE("kind", sparsity_kind, sparsity_kinds,
            "structured, unstructured or 2:4"),
    KNUM("sparsity", sparsity, "fraction", 1.0, 0, 1, 1, 1,
         "share of the weights removed"),
    KDELTA, KMETHOD, KCOST,
};
static const dam_lever_key prefetch_keys[] = {
    SINT("loader_workers", loader_workers, "pipeline.loader_workers",
         "loader processes per GPU"),
    SINT("prefetch_factor", prefetch_factor, "pipeline.prefetch_factor",
         "batches queued per worker"),
    SBOOL("pin_memory", pin_memory, "pipeline.pin_memory",
          "pinned host buffers"),
    SBOOL("overlap_transfer", overlap_transfer, "pipeline.overlap_transfer",
          "copy batch k+1 while batch k computes"),
    SBOOL("overlap_sync", overlap_sync, "pipeline.overlap_sync",
          "all-reduce overlaps backward"),
    SNUM("bucket_mb", bucket_bytes, "MB", 1e6, "pipeline.bucket_mb",
         "gradient bucket size"),
};
static const dam_lever_key chinchilla_keys[] = {
    KNUM("tokens_per_param", tokens_per_param, "tokens per parameter", 1.0, 0,
         INF, 0, 1, "D = r N; 0: the fit's compute-optimal point"),
    KCHOICE("fit", fit, dam_scaling_fit_names,
            "the scaling-law fit (default: the scenario's quality.fit)"),
};
static const dam_lever_key fuse_keys[] = {
    KNUM("fraction", fuse_fraction, "fraction", 1.0, 0, 1, 0, 0,
         "share of elementwise traffic and launches fused away"),
};
static const dam_lever_key graphs_keys[] = {
    SBOOL("cuda_graphs", cuda_graphs, "workload.cuda_graphs",
          "launches captured in a graph"),
};
static const dam_lever_key format_keys[] = {
    SBOOL("sharded", sharded, "data.sharded",
          "sequential shards, one latency per shard"),
    SNUM("shard_mb", shard_bytes, "MB", 1e6, "data.shard_mb",
         "bytes per shard"),
    SBOOL("decode_on_gpu", decode_on_gpu, "data.decode_on_gpu",
          "decode on the GPU (DALI, nvJPEG): the copy carries encoded bytes"),
    SNUM("gpu_decode_ms", gpu_decode_s, "ms", 1e-3, "data.gpu_decode_ms",
         "GPU time to decode one sample"),
};
static const dam_lever_key batch_keys[] = {
    SINT("batch_size", batch_size, "workload.batch_size",
         "samples per GPU per step"),
};
static const dam_lever_key distill_keys[] = {
    KNUM("params", student_params, "parameters", 1.0, 0, INF, 1, 1,
         "the student's parameter count"),
    KDELTA,
};
static const dam_lever_key serving_keys[] = {
    SINT("replicas", replicas, "serving.replicas", "GPUs serving one queue"),
    SINT("max_batch", max_batch, "serving.max_batch", "dynamic batcher limit"),
    SNUM("batch_timeout_ms", batch_timeout_s, "ms", 1e-3,
         "serving.batch_timeout_ms",
         "wait from a forming batch's first request"),
    SINT("preprocess_workers", preprocess_workers,
         "serving.preprocess_workers", "CPU workers"),
};

static const char *const recompute_names[] = {"none", "selective", "full",
                                              NULL};
static const char *const schedule_names[] = {"1f1b", "gpipe", "interleaved",
                                             NULL};
static const char *const algorithm_names[] = {"auto", "ring", "tree",
                                              "hierarchical", NULL};
static const dam_lever_key layout_keys[] = {
    SINT("tp", tp, "parallel.tp", "tensor-parallel degree"),
    SINT("pp", pp, "parallel.pp", "pipeline stages"),
    SINT("dp", dp, "parallel.dp",
         "data-parallel degree (default: the GPUs left)"),
    SINT("cp", cp, "parallel.cp", "context-parallel degree"),
    SINT("ep", ep, "parallel.ep", "expert-parallel degree (MoE)"),
    SINT("vpp", vpp, "parallel.vpp",
         "model chunks per stage (interleaved schedule)"),
    SINT("micro_batch", micro_batch, "parallel.micro_batch",
         "sequences per micro-batch"),
    SINT("zero", zero, "parallel.zero",
         "ZeRO stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights"),
    SCHOICE("recompute", recompute, recompute_names, "parallel.recompute",
            "activation recomputation: none, selective or full"),
    SCHOICE("schedule", schedule, schedule_names, "parallel.schedule",
            "pipeline schedule: 1f1b, gpipe or interleaved"),
    SBOOL("sequence_parallel", sequence_parallel,
          "parallel.sequence_parallel", "shard norms and dropout over tp"),
    SBOOL("overlap_all_to_all", overlap_a2a, "parallel.overlap_all_to_all",
          "expert all-to-alls under another micro-batch's compute"),
};
static const dam_lever_key network_keys[] = {
    SINT("nvlink_domain", nvlink_domain, "machine.network.nvlink_domain",
         "GPUs per NVLink domain (72: NVL72 racks)"),
    SINT("nics_per_node", nics_per_node, "machine.network.nics_per_node",
         "scale-out NICs per node"),
    SNUM("nic_gbs", nic_bw, "GB/s", 1e9, "machine.network.nic_gbs",
         "line rate of one NIC, one direction"),
    SBOOL("rail_optimized", rail_optimized, "machine.network.rail_optimized",
          "rail-optimised fabric"),
    SNUM("oversubscription", oversub, "ratio", 1.0,
         "machine.network.oversubscription", "spine oversubscription"),
    SCHOICE("algorithm", algorithm, algorithm_names,
            "machine.network.algorithm",
            "all-reduce algorithm: auto, ring, tree or hierarchical"),
};

static const char *const llm_weight_names[] = {"native", "fp8",   "int8",
                                               "int4",   "nvfp4", "mxfp4",
                                               NULL};
static const char *const llm_kv_names[] = {"fp32", "tf32", "fp16", "bf16",
                                           "fp8",  "int8", NULL};
static const char *const llm_preempt_names[] = {"recompute", "swap", NULL};
static const char *const llm_capacity_names[] = {"max_utilization",
                                                 "guaranteed_no_evict",
                                                 NULL};
static const dam_lever_key weights_keys[] = {
    KCHOICE("format", llm_weights, llm_weight_names,
            "native (16-bit), fp8 or int8 (W8A8), int4 (W4A16), nvfp4 or "
            "mxfp4 (W4A4, Blackwell)"),
    KDELTA,
};
static const dam_lever_key kv_cache_keys[] = {
    KCHOICE("format", kv_precision, llm_kv_names,
            "bf16, fp16, fp8 or int8 key/value entries"),
    KDELTA,
};
static const dam_lever_key tp_keys[] = {
    SINT("degree", tp, "llm.tp", "GPUs per replica (inside one node)"),
};
static const dam_lever_key scheduler_keys[] = {
    SINT("token_budget", token_budget, "llm.token_budget",
         "new tokens per iteration"),
    SINT("chunk_tokens", chunk_tokens, "llm.chunk_tokens",
         "prompt tokens of one sequence per iteration"),
    SBOOL("chunked_prefill", chunked_prefill, "llm.chunked_prefill",
          "prompts in chunks beside decodes (else prefill-only iterations)"),
    SINT("max_seqs", max_seqs, "llm.max_seqs",
         "sequences running at once per replica"),
    SCHOICE("preemption", preemption, llm_preempt_names, "llm.preemption",
            "recompute or swap when KV blocks run out"),
    SCHOICE("capacity_policy", capacity, llm_capacity_names,
            "llm.capacity_policy",
            "admission: max_utilization or guaranteed_no_evict"),
    SNUM("prefix_hit_rate", prefix_hit_rate, "fraction", 1.0,
         "llm.prefix_hit_rate",
         "share of each prompt found in the prefix cache"),
    SNUM("prefix_tokens", prefix_tokens, "tokens", 1.0, "llm.prefix_tokens",
         "a prefix every request shares, kept cached"),
};
static const dam_lever_key disagg_keys[] = {
    SINT("prefill_replicas", prefill_replicas,
         "llm.disaggregate.prefill_replicas", "replicas that prefill"),
    SINT("decode_replicas", decode_replicas,
         "llm.disaggregate.decode_replicas", "replicas that decode"),
    SINT("prefill_tp", prefill_tp, "llm.disaggregate.prefill_tp",
         "GPUs per prefill replica"),
    SINT("decode_tp", decode_tp, "llm.disaggregate.decode_tp",
         "GPUs per decode replica"),
    SNUM("kv_link_gbs", kv_link_bw, "GB/s", 1e9,
         "llm.disaggregate.kv_link_gbs",
         "KV-cache transfer bandwidth per prefill replica"),
};

#define KEYS(a) a, sizeof a / sizeof a[0]
#define B(x) DAM_BOUND_BIT(DAM_BOUND_##x)
#define M(x) DAM_MODE_BIT(DAM_MODE_##x)
#define BATCH_MODES (M(TRAINING) | M(INFERENCE))
#define QUALITY_FLOAT                                                      \
    "fp16/bf16 0 (Micikevicius et al. 2018), fp8 0 (Micikevicius et al. "  \
    "2022), int8 -0.5 points on a % metric (half the 1 % bound of Wu et "   \
    "al. 2020), else unknown"

static const dam_lever_type types[DAM_LEVER_KIND_COUNT] = {
    [DAM_LEVER_GPU] = {
        DAM_LEVER_GPU, "gpu", "swap the GPU, scale out or in, or re-price",
        KEYS(gpu_keys), 0, NULL, DAM_MODES_ALL,
        "the GPU must run the scenario's precision",
        op_gpu, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING),
        B(COMM), NULL, "a faster GPU shortens the GPU's own work", 0,
        "none: the same model", "gpu=H100-SXM5-80GB"},
    [DAM_LEVER_QUANTIZE] = {
        DAM_LEVER_QUANTIZE, "quantize",
        "weights and activations to a narrower format",
        KEYS(quantize_keys), 0, NULL, DAM_MODES_ALL,
        "the GPU must have the format's peak; int8 in training needs "
        "train_method and train_cost",
        op_quantize, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING), 0,
        can_quantize, "narrower operations run faster and move fewer bytes",
        0, QUALITY_FLOAT, "quantize=int8"},
    [DAM_LEVER_PRUNE] = {
        DAM_LEVER_PRUNE, "prune", "remove weights (structured, unstructured, "
        "2:4)", KEYS(prune_keys), -1, main_prune, DAM_MODES_ALL,
        "2:4 needs sparse tensor cores; in training it needs train_method "
        "and train_cost",
        op_prune, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING), 0,
        can_prune, "fewer operations and bytes", 0,
        "2:4: 0 after fine-tuning (Mishra et al. 2021, arXiv 2104.08378); "
        "structured, unstructured: unknown",
        "prune=2:4"},
    [DAM_LEVER_PREFETCH] = {
        DAM_LEVER_PREFETCH, "prefetch",
        "loader workers, prefetch, pinning and overlap",
        KEYS(prefetch_keys), -1, NULL, BATCH_MODES, NULL, op_prefetch,
        B(DATA) | B(TRANSFER) | B(COMM), 0, can_prefetch,
        "more workers and prefetch hide the loader; pinning and overlap "
        "hide copies and all-reduce", 0, "none",
        "loader_workers=16,prefetch_factor=4"},
    [DAM_LEVER_CHINCHILLA] = {
        DAM_LEVER_CHINCHILLA, "chinchilla",
        "rebalance parameters and tokens at fixed compute",
        KEYS(chinchilla_keys), -1, main_chinchilla, M(TRAINING),
        "language models", op_chinchilla, 0, 0, NULL,
        "a lower loss for the same compute", 1,
        "the fit's loss L(N', D') - L(N, D) (model/scaling.h)",
        "chinchilla=optimal"},
    [DAM_LEVER_PRECISION] = {
        DAM_LEVER_PRECISION, "precision", "the compute format (mixed "
        "precision)", KEYS(precision_keys), 0, NULL, DAM_MODES_ALL,
        "the GPU must have the format's peak; int8 not in training",
        op_precision, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING), 0,
        can_precision, "a format with a higher peak", 0, QUALITY_FLOAT,
        "precision=bf16"},
    [DAM_LEVER_FUSE] = {
        DAM_LEVER_FUSE, "fuse", "kernel fusion: fewer launches, less "
        "elementwise traffic", KEYS(fuse_keys), 0, NULL, DAM_MODES_ALL, NULL,
        op_fuse, B(MEMORY) | B(LATENCY), 0, can_fuse,
        "fused kernels skip round trips to HBM and launches", 0, "none",
        "fuse=0.5"},
    [DAM_LEVER_CUDA_GRAPHS] = {
        DAM_LEVER_CUDA_GRAPHS, "cuda_graphs", "launches captured once",
        KEYS(graphs_keys), 0, NULL, DAM_MODES_ALL, NULL, op_cuda_graphs,
        B(LATENCY), 0, can_cuda_graphs, "one launch per step", 0, "none",
        "cuda_graphs=1"},
    [DAM_LEVER_DATA_FORMAT] = {
        DAM_LEVER_DATA_FORMAT, "data_format", "sequential shards, GPU decode",
        KEYS(format_keys), -1, NULL, BATCH_MODES, NULL, op_data_format,
        B(DATA) | B(TRANSFER), 0, can_data_format,
        "shards cut storage latency; GPU decode frees the CPU and copies "
        "encoded bytes", 0, "none",
        "decode_on_gpu=1,gpu_decode_ms=0.05"},
    [DAM_LEVER_BATCH_SIZE] = {
        DAM_LEVER_BATCH_SIZE, "batch_size", "per-GPU batch",
        KEYS(batch_keys), 0, NULL, BATCH_MODES,
        "activations must fit in memory", op_batch_size,
        B(LATENCY) | B(COMM), B(MEMORY) | B(COMPUTE), can_batch_size,
        "larger batches amortise fixed overhead and sync", 0,
        "not modelled (large-batch effects)", "batch_size=512"},
    [DAM_LEVER_DISTILL] = {
        DAM_LEVER_DISTILL, "distill", "a smaller student model",
        KEYS(distill_keys), 0, NULL, DAM_MODES_ALL, NULL, op_distill,
        B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(COMM) | B(QUEUEING), 0, NULL,
        "a smaller model does less work", 0,
        "accuracy_delta when given, else unknown", "distill=66e6"},
    [DAM_LEVER_SERVING] = {
        DAM_LEVER_SERVING, "serving", "replicas, batching and preprocessing",
        KEYS(serving_keys), -1, NULL, M(SERVING), NULL, op_serving,
        B(QUEUEING) | B(LATENCY) | B(PREPROCESS) | B(WEIGHTS), 0, NULL,
        "more replicas, batching or CPU workers", 0, "none",
        "replicas=4"},
    [DAM_LEVER_LAYOUT] = {
        DAM_LEVER_LAYOUT, "layout", "the parallel layout: degrees, "
        "micro-batch, ZeRO, recomputation, schedule",
        KEYS(layout_keys), -1, NULL, M(TRAINING),
        "scenarios with a 'parallel' layout; the layout's rules hold "
        "(degrees multiply to the GPUs, divide heads, blocks, experts)",
        op_layout, B(COMPUTE) | B(MEMORY) | B(COMM) | B(LATENCY), 0,
        can_layout, "another split moves work between compute, "
        "communication, the pipeline bubble and memory", 0,
        "none: the same model and batch", "tp=8,pp=4,micro_batch=2"},
    [DAM_LEVER_NETWORK] = {
        DAM_LEVER_NETWORK, "network", "the GPU network: NVLink domain, "
        "NICs, rails, spine, collective algorithm",
        KEYS(network_keys), -1, NULL, M(TRAINING),
        "used by 'parallel' layouts", op_network, B(COMM), 0, can_layout,
        "wider NVLink domains and faster NICs shorten collectives", 0,
        "none", "nvlink_domain=72"},
    [DAM_LEVER_WEIGHTS] = {
        DAM_LEVER_WEIGHTS, "weights", "LLM weight format (fp8, int8, int4)",
        KEYS(weights_keys), 0, NULL, M(SERVING),
        "LLM serving; fp8 and int8 need those tensor cores, nvfp4 and "
        "mxfp4 Blackwell's FP4 ones", op_weights,
        B(WEIGHTS) | B(KV_CACHE) | B(QUEUEING), B(COMPUTE), NULL,
        "narrower weights are read faster and leave memory to the KV cache",
        0, "unknown unless accuracy_delta is given (depends on the model "
        "and the quantization method)",
        "weights=fp8"},
    [DAM_LEVER_KV_CACHE] = {
        DAM_LEVER_KV_CACHE, "kv_cache", "LLM key/value-cache format (fp8)",
        KEYS(kv_cache_keys), 0, NULL, M(SERVING), "LLM serving",
        op_kv_cache, B(KV_CACHE), B(WEIGHTS) | B(QUEUEING), NULL,
        "narrower cache entries hold more sequences and are read faster", 0,
        "unknown unless accuracy_delta is given", "kv_cache=fp8"},
    [DAM_LEVER_TENSOR_PARALLEL] = {
        DAM_LEVER_TENSOR_PARALLEL, "tensor_parallel",
        "LLM serving: GPUs per replica", KEYS(tp_keys), 0, NULL, M(SERVING),
        "LLM serving; the degree must divide the heads and fit in a node",
        op_tensor_parallel,
        B(WEIGHTS) | B(COMPUTE) | B(KV_CACHE) | B(QUEUEING), B(COMM), NULL,
        "each GPU reads a share of the weights and holds a share of the "
        "cache, at the cost of all-reduces", 0, "none",
        "tensor_parallel=4"},
    [DAM_LEVER_SCHEDULER] = {
        DAM_LEVER_SCHEDULER, "scheduler",
        "LLM serving: token budget, chunked prefill, running sequences",
        KEYS(scheduler_keys), -1, NULL, M(SERVING), "LLM serving",
        op_scheduler, B(LATENCY) | B(QUEUEING),
        B(KV_CACHE) | B(COMPUTE) | B(WEIGHTS), NULL,
        "the budget trades time to first token against time per token", 0,
        "none", "token_budget=4096,chunk_tokens=512"},
    [DAM_LEVER_DISAGGREGATE] = {
        DAM_LEVER_DISAGGREGATE, "disaggregate",
        "LLM serving: separate prefill and decode pools",
        KEYS(disagg_keys), -1, NULL, M(SERVING), "LLM serving",
        op_disaggregate, B(LATENCY) | B(QUEUEING), B(COMPUTE) | B(WEIGHTS),
        NULL, "prompts stop interrupting decodes; the cache moves once", 0,
        "none", "prefill_replicas=1,decode_replicas=2"},
};

const dam_lever_type *dam_lever_type_get(dam_lever_kind k)
{
    return (unsigned)k < DAM_LEVER_KIND_COUNT ? &types[k] : NULL;
}

const char *dam_lever_kind_name(dam_lever_kind k)
{
    const dam_lever_type *t = dam_lever_type_get(k);
    return t ? t->name : "?";
}

const dam_lever_type *dam_lever_type_find(const char *name)
{
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++)
        if (strcmp(types[i].name, name) == 0)
            return &types[i];
    return NULL;
}

const dam_lever_key *dam_lever_key_find(const dam_lever_type *t,
                                        const char *name)
{
    if (!t)
        return NULL;
    for (size_t i = 0; i < t->nkeys; i++)
        if (strcmp(t->keys[i].name, name) == 0 ||
            (t->keys[i].alias && strcmp(t->keys[i].alias, name) == 0))
            return &t->keys[i];
    return NULL;
}

int dam_lever_key_owners(const char *name, const dam_lever_type **out,
                         int max)
{
    int n = 0;
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++)
        if (dam_lever_key_find(&types[i], name)) {
            if (n < max)
                out[n] = &types[i];
            n++;
        }
    return n;
}

/* The i-th name of types and keys together (types first). */
static const char *member_name(const void *ctx_, size_t i)
{
    if (i < DAM_LEVER_KIND_COUNT)
        return types[i].name;
    i -= DAM_LEVER_KIND_COUNT;
    for (int t = 0; t < DAM_LEVER_KIND_COUNT; t++) {
        if (i < types[t].nkeys)
            return types[t].keys[i].name;
        i -= types[t].nkeys;
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
        n += types[t].nkeys;
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
        if (parse_num(text, &x) != 0) {
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
            return fail(&c, "unknown gpu '%s' (did you mean '%s'?)", op->gpu,
                        near);
        return fail(&c, "unknown gpu '%s' (not in the catalog; 'damsim "
                    "catalog gpus' lists the ids)", op->gpu);
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
        return fail(c, "unknown lever kind %d", (int)op->kind);
    if (!dam_lever_valid_mode(t, s, why, sizeof why) ||
        check_keys(t, op, why, sizeof why) != 0)
        return fail(c, "%s", why);
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
            return fail(c, "%s", e.msg);
    }
    if (rc == DAM_OK)
        rc = llm_check(c, s);
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
        return fail(&c, "has %d ops (expected 1 to %d)", lever->nops,
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
        const dam_lever_type *t = &types[i];
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
