/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever.c: levers as pure functions on scenarios (see lever.h for what
 * each op moves, its defaults and their sources).
 *
 * Design notes. dam_lever_apply copies the input into a heap scratch
 * scenario, applies the ops there, and copies the scratch to out only on
 * success, so a failing lever leaves out as it was and in is never written
 * (out may alias in). Each op is one static function; they share a small
 * context that formats "lever 'NAME': ..." errors. Nothing here prints.
 * The command-line parser maps "key=value[,opt=value]" to one op.
 */
#include "model/lever.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/quality.h"
#include "model/scaling.h"

/* Where errors of the lever being applied point. */
typedef struct ctx {
    const dam_lever *lever; /* the lever (for its name) */
    const char *file;       /* scenario file, "" for command-line levers */
    int line;               /* lever's line, 0 when unknown */
    dam_error *err;         /* caller's error, may be NULL */
} ctx;

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

/* quality += delta when given; else the default, or mark it unknown. */
static void add_delta(dam_scenario *s, const dam_lever_op *op, int have_default,
                      double def)
{
    if (op->has_accuracy_delta)
        s->quality.value += op->accuracy_delta;
    else if (have_default)
        s->quality.value += def;
    else
        s->quality.delta_unknown++;
}

/* Scale a model's size by k. width_depth: width and depth grow together
 * (matmul FLOPs ~ k, the rest and activations ~ k^(2/3), layers ~ k^(1/3));
 * otherwise depth only (everything ~ k). */
static void scale_model(dam_workload *w, double k, int width_depth)
{
    dam_model_spec *m = &w->model;
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

/* Is a 0/1 flag set (>= 0), and valid? */
static int flag_set(const ctx *c, int v, const char *what, int *err)
{
    if (v < 0)
        return 0;
    if (v > 1) {
        *err = fail(c, "%s must be 0 or 1 (got %d)", what, v);
        return 0;
    }
    return 1;
}

/* A "did you mean" for a GPU id: the catalog's edit-distance suggestion,
 * else the first id that contains the typed one (a shortened name such as
 * "H100-SXM5"), case-insensitively. NULL when nothing is close. */
static const char *near_gpu(const dam_catalog *cat, const char *id)
{
    const char *near = dam_catalog_suggest_gpu(cat, id);
    size_t n = strlen(id);
    if (near || n < 3)
        return near;
    for (size_t i = 0; i < cat->ngpus; i++) {
        const char *k = cat->gpus[i].id;
        for (; *k; k++)
            if (strncasecmp(k, id, n) == 0)
                return cat->gpus[i].id;
    }
    return NULL;
}

/* ---- ops ----------------------------------------------------------------- */

static int op_gpu(const ctx *c, const dam_lever_op *op,
                  const dam_catalog *cat, dam_scenario *s)
{
    dam_machine *m = &s->machine;
    int any = 0;

    if (op->gpu[0]) {
        const dam_gpu *g = cat ? dam_catalog_gpu(cat, op->gpu) : NULL;
        if (!cat)
            return fail(c, "no GPU catalog to look up '%s' in", op->gpu);
        if (!g) {
            const char *near = near_gpu(cat, op->gpu);
            if (near)
                return fail(c, "unknown gpu '%s' (did you mean '%s'?)",
                            op->gpu, near);
            return fail(c, "unknown gpu '%s' (not in the catalog)", op->gpu);
        }
        if (!(g->peak[s->workload.precision] > 0.0))
            return unsupported(c, s->workload.precision, g);
        double old_link = m->gpu.link_bw;
        m->gpu = *g;
        /* The price follows the GPU: the lever's, else the catalog's; an
         * unknown price (0) keeps the old one. */
        if (op->gpu_hour_usd > 0.0)
            s->cost.gpu_hour_usd = op->gpu_hour_usd;
        else if (g->price_hour > 0.0)
            s->cost.gpu_hour_usd = g->price_hour;
        if (old_link > 0.0 && g->link_bw > 0.0)
            m->intra_busbw *= g->link_bw / old_link;
        if (s->workload.sparsity_kind == DAM_SPARSITY_2TO4)
            s->workload.matmul_peak_scale = g->sparsity_2to4 ? 2.0 : 1.0;
        any = 1;
    }
    if (op->gpus_per_node >= 0) {
        if (op->gpus_per_node < 1)
            return fail(c, "gpus_per_node must be >= 1 (got %d)",
                        op->gpus_per_node);
        m->gpus_per_node = op->gpus_per_node;
        any = 1;
    }
    if (op->nodes >= 0) {
        if (op->nodes < 1)
            return fail(c, "nodes must be >= 1 (got %d)", op->nodes);
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
    return any ? DAM_OK : fail(c, "gpu op sets nothing (give gpu, gpus, "
                               "gpus_per_node or nodes)");
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
    return DAM_OK;
}

static int op_quantize(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    int rc = set_precision(c, s, op->precision, 1);
    if (rc != DAM_OK)
        return rc;
    double def = 0.0;
    const char *src = NULL;
    int have = dam_lever_quantize_default(s, s->workload.precision, &def,
                                          &src);
    add_delta(s, op, have, def);
    return DAM_OK;
}

static int op_precision(const ctx *c, const dam_lever_op *op,
                        dam_scenario *s)
{
    int rc = set_precision(c, s, op->precision, 0);
    if (rc != DAM_OK)
        return rc;
    /* Floating formats count as neutral; integer compute is quantization. */
    add_delta(s, op, s->workload.precision != DAM_INT8, 0.0);
    return DAM_OK;
}

static int op_prune(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    dam_workload *w = &s->workload;
    double sp = op->sparsity, b = weight_elem_bytes(w);

    switch (op->sparsity_kind) {
    case DAM_SPARSITY_NONE:
        return fail(c, "prune needs a kind: structured, unstructured or 2:4");
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
        w->matmul_peak_scale = 2.0;
        w->weight_scale *= 0.5 + 0.125 / b;
        add_delta(s, op, 1, 0.0);
        break;
    default:
        return fail(c, "unknown sparsity kind %d", (int)op->sparsity_kind);
    }
    w->sparsity = 1.0 - (1.0 - (w->sparsity > 0.0 ? w->sparsity : 0.0))
                            * (1.0 - sp);
    w->sparsity_kind = op->sparsity_kind;
    return DAM_OK;
}

static int op_prefetch(const ctx *c, const dam_lever_op *op,
                       dam_scenario *s)
{
    dam_pipeline *p = &s->pipeline;
    int any = 0, rc = DAM_OK;

    if (op->loader_workers >= 0) {
        if (op->loader_workers < 1)
            return fail(c, "loader_workers must be >= 1 (got %d)",
                        op->loader_workers);
        p->loader_workers = op->loader_workers;
        any = 1;
    }
    if (op->prefetch_factor >= 0) {
        if (op->prefetch_factor < 1)
            return fail(c, "prefetch_factor must be >= 1 (got %d)",
                        op->prefetch_factor);
        p->prefetch_factor = op->prefetch_factor;
        any = 1;
    }
    if (flag_set(c, op->pin_memory, "pin_memory", &rc))
        p->pin_memory = op->pin_memory, any = 1;
    if (flag_set(c, op->overlap_transfer, "overlap_transfer", &rc))
        p->overlap_transfer = op->overlap_transfer, any = 1;
    if (flag_set(c, op->overlap_sync, "overlap_sync", &rc))
        p->overlap_sync = op->overlap_sync, any = 1;
    if (rc != DAM_OK)
        return rc;
    if (op->bucket_bytes >= 0.0) {
        if (!(op->bucket_bytes > 0.0))
            return fail(c, "bucket_bytes must be > 0 (got %g)",
                        op->bucket_bytes);
        p->bucket_bytes = op->bucket_bytes;
        any = 1;
    }
    return any ? DAM_OK : fail(c, "prefetch op sets nothing");
}

static int op_chinchilla(const ctx *c, const dam_lever_op *op,
                         dam_scenario *s)
{
    dam_workload *w = &s->workload;
    const dam_scaling_fit *f = dam_scaling_fit_get((dam_scaling_fit_id)op->fit);

    if (s->mode != DAM_MODE_TRAINING)
        return fail(c, "chinchilla rebalances training compute, but the "
                    "scenario's mode is '%s'", dam_mode_name(s->mode));
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

    double l0 = dam_scaling_loss(f, n, d), l1 = dam_scaling_loss(f, n2, d2);
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

static int op_fuse(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    double f = op->fuse_fraction;
    dam_workload *w = &s->workload;
    if (!(f >= 0.0 && f <= 1.0))
        return fail(c, "fuse_fraction must be in [0, 1] (got %g)", f);
    for (int i = 0; i < w->model.nphases; i++)
        if (w->model.phases[i].kind == DAM_PHASE_ELEMENTWISE)
            w->model.phases[i].act_bytes *= 1.0 - f;
    if (w->kernels_per_step > 0) {
        long k = lround(w->kernels_per_step * (1.0 - f));
        w->kernels_per_step = k < 1 ? 1 : (int)k;
    }
    return DAM_OK;
}

static int op_cuda_graphs(const ctx *c, const dam_lever_op *op,
                          dam_scenario *s)
{
    int rc = DAM_OK;
    if (!flag_set(c, op->cuda_graphs, "cuda_graphs", &rc))
        return rc != DAM_OK ? rc : fail(c, "cuda_graphs must be 0 or 1");
    s->workload.cuda_graphs = op->cuda_graphs;
    return DAM_OK;
}

static int op_data_format(const ctx *c, const dam_lever_op *op,
                          dam_scenario *s)
{
    dam_data *d = &s->data;
    int any = 0, rc = DAM_OK;

    if (s->mode == DAM_MODE_SERVING)
        return fail(c, "data_format applies to training and inference; in "
                    "serving, preprocessing is serving.preprocess_s");
    if (op->shard_bytes > 0.0)
        d->shard_bytes = op->shard_bytes, any = 1;
    if (flag_set(c, op->sharded, "sharded", &rc)) {
        d->sharded = op->sharded;
        if (d->sharded && !(d->shard_bytes > 0.0))
            d->shard_bytes = DAM_LEVER_DEFAULT_SHARD_BYTES;
        any = 1;
    }
    if (op->gpu_decode_s >= 0.0)
        d->gpu_decode_s = op->gpu_decode_s, any = 1;
    if (flag_set(c, op->decode_on_gpu, "decode_on_gpu", &rc)) {
        d->decode_on_gpu = op->decode_on_gpu;
        any = 1;
    }
    if (rc != DAM_OK)
        return rc;
    if (d->decode_on_gpu && !(d->gpu_decode_s > 0.0))
        return fail(c, "decode_on_gpu needs gpu_decode_s, the GPU seconds "
                    "per sample (the scenario has none)");
    return any ? DAM_OK : fail(c, "data_format op sets nothing");
}

static int op_batch_size(const ctx *c, const dam_lever_op *op,
                         dam_scenario *s)
{
    if (s->mode == DAM_MODE_SERVING)
        return fail(c, "batch_size applies to training and inference; in "
                    "serving use max_batch");
    if (op->batch_size < 1)
        return fail(c, "batch_size must be >= 1 (got %d)", op->batch_size);
    s->workload.batch_size = op->batch_size;
    return DAM_OK;
}

static int op_distill(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    double n = s->workload.model.params, st = op->student_params;
    if (!(st > 0.0) || !(st < n))
        return fail(c, "student_params must be in (0, %g), the teacher's "
                    "parameters (got %g)", n, st);
    scale_model(&s->workload, st / n, 0);
    add_delta(s, op, 0, 0.0);
    return DAM_OK;
}

static int op_serving(const ctx *c, const dam_lever_op *op, dam_scenario *s)
{
    dam_serving *v = &s->serving;
    int any = 0;
    if (s->mode != DAM_MODE_SERVING)
        return fail(c, "serving levers apply to serving scenarios, but the "
                    "mode is '%s'", dam_mode_name(s->mode));
    if (op->replicas >= 0) {
        if (op->replicas < 1)
            return fail(c, "replicas must be >= 1 (got %d)", op->replicas);
        v->replicas = op->replicas, any = 1;
    }
    if (op->max_batch >= 0) {
        if (op->max_batch < 1)
            return fail(c, "max_batch must be >= 1 (got %d)", op->max_batch);
        v->max_batch = op->max_batch, any = 1;
    }
    if (op->batch_timeout_s >= 0.0)
        v->batch_timeout_s = op->batch_timeout_s, any = 1;
    if (op->preprocess_workers >= 0) {
        if (op->preprocess_workers < 1)
            return fail(c, "preprocess_workers must be >= 1 (got %d)",
                        op->preprocess_workers);
        v->preprocess_workers = op->preprocess_workers, any = 1;
    }
    return any ? DAM_OK : fail(c, "serving op sets nothing");
}

static int apply_op_kind(const ctx *c, const dam_lever_op *op,
                         const dam_catalog *cat, dam_scenario *s);

/*
 * Apply one op. The efficiency follows the catalog across GPU and
 * precision changes: when the scenario's eta is the calibrated value of
 * its model on its GPU at its precision, it becomes the calibrated value
 * on the new GPU or precision (data/models.cfg `efficiency`,
 * `gpu_efficiency`); when there is none there, the old value is kept and
 * workload.eta_carried says so. An eta the scenario set itself is kept.
 */
static int apply_op(const ctx *c, const dam_lever_op *op,
                    const dam_catalog *cat, dam_scenario *s)
{
    dam_workload *w = &s->workload;
    double before = dam_model_eta(&w->model, s->machine.gpu.id, w->precision);
    int from_catalog = before > 0.0 && w->eta == before;
    char gpu[DAM_ID_MAX];
    snprintf(gpu, sizeof gpu, "%s", s->machine.gpu.id);
    dam_precision prec = w->precision;
    int rc = apply_op_kind(c, op, cat, s);
    if (rc != DAM_OK)
        return rc;
    if (strcmp(gpu, s->machine.gpu.id) == 0 && prec == w->precision)
        return DAM_OK;
    double after = dam_model_eta(&w->model, s->machine.gpu.id, w->precision);
    if (from_catalog && after > 0.0)
        w->eta = after;
    else if (after <= 0.0)
        w->eta_carried = 1;
    return DAM_OK;
}

static int apply_op_kind(const ctx *c, const dam_lever_op *op,
                         const dam_catalog *cat, dam_scenario *s)
{
    switch (op->kind) {
    case DAM_LEVER_GPU: return op_gpu(c, op, cat, s);
    case DAM_LEVER_QUANTIZE: return op_quantize(c, op, s);
    case DAM_LEVER_PRUNE: return op_prune(c, op, s);
    case DAM_LEVER_PREFETCH: return op_prefetch(c, op, s);
    case DAM_LEVER_CHINCHILLA: return op_chinchilla(c, op, s);
    case DAM_LEVER_PRECISION: return op_precision(c, op, s);
    case DAM_LEVER_FUSE: return op_fuse(c, op, s);
    case DAM_LEVER_CUDA_GRAPHS: return op_cuda_graphs(c, op, s);
    case DAM_LEVER_DATA_FORMAT: return op_data_format(c, op, s);
    case DAM_LEVER_BATCH_SIZE: return op_batch_size(c, op, s);
    case DAM_LEVER_DISTILL: return op_distill(c, op, s);
    case DAM_LEVER_SERVING: return op_serving(c, op, s);
    case DAM_LEVER_KIND_COUNT: break;
    }
    return fail(c, "unknown lever kind %d", (int)op->kind);
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

/* ---- command-line parsing ------------------------------------------------ */

/* The keys of "key=value", the op kind each makes, and what options it
 * takes after a comma. */
typedef enum {
    OPT_NONE = 0, OPT_DELTA, OPT_FIT, OPT_SHARD, OPT_DECODE, OPT_PRICE
} opt_kind;

static const struct {
    const char *key;
    dam_lever_kind kind;
    opt_kind opt;
} keys[] = {
    {"gpu", DAM_LEVER_GPU, OPT_PRICE},
    {"gpus", DAM_LEVER_GPU, OPT_NONE},
    {"gpus_per_node", DAM_LEVER_GPU, OPT_NONE},
    {"nodes", DAM_LEVER_GPU, OPT_NONE},
    {"quantize", DAM_LEVER_QUANTIZE, OPT_DELTA},
    {"precision", DAM_LEVER_PRECISION, OPT_DELTA},
    {"prune", DAM_LEVER_PRUNE, OPT_DELTA},
    {"loader_workers", DAM_LEVER_PREFETCH, OPT_NONE},
    {"prefetch_factor", DAM_LEVER_PREFETCH, OPT_NONE},
    {"pin_memory", DAM_LEVER_PREFETCH, OPT_NONE},
    {"overlap_transfer", DAM_LEVER_PREFETCH, OPT_NONE},
    {"overlap_sync", DAM_LEVER_PREFETCH, OPT_NONE},
    {"bucket_mb", DAM_LEVER_PREFETCH, OPT_NONE},
    {"chinchilla", DAM_LEVER_CHINCHILLA, OPT_FIT},
    {"fuse", DAM_LEVER_FUSE, OPT_NONE},
    {"cuda_graphs", DAM_LEVER_CUDA_GRAPHS, OPT_NONE},
    {"sharded", DAM_LEVER_DATA_FORMAT, OPT_SHARD},
    {"decode_on_gpu", DAM_LEVER_DATA_FORMAT, OPT_DECODE},
    {"batch_size", DAM_LEVER_BATCH_SIZE, OPT_NONE},
    {"distill", DAM_LEVER_DISTILL, OPT_DELTA},
    {"replicas", DAM_LEVER_SERVING, OPT_NONE},
    {"max_batch", DAM_LEVER_SERVING, OPT_NONE},
    {"batch_timeout_ms", DAM_LEVER_SERVING, OPT_NONE},
    {"preprocess_workers", DAM_LEVER_SERVING, OPT_NONE},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const opt_names[] = {"", "delta", "fit", "shard_mb",
                                        "gpu_decode_ms", "gpu_hour_usd"};

/* Closest of n words to w, or NULL when none is close (as catalog.c). */
static const char *closest(const char *w, const char *const *words, size_t n)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = dam_edit_distance(w, words[i]);
        if (d < bestd)
            bestd = d, best = words[i];
    }
    if (!best)
        return NULL;
    size_t la = strlen(w), lb = strlen(best);
    size_t lim = (la > lb ? la : lb) / 3;
    return bestd <= (lim < 2 ? 2 : lim) ? best : NULL;
}

/* Parse a whole string as a finite double. */
static int parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Parse a whole string as an int (also "1e3" style when integral). */
static int parse_int(const char *s, int *out)
{
    double v;
    if (parse_num(s, &v) != 0 || v != floor(v) || v < -2147483647.0
        || v > 2147483647.0)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return *out = 1, 0;
        if (strcasecmp(s, no[i]) == 0)
            return *out = 0, 0;
    }
    return -1;
}

/* Parse "KIND:S", "S:KIND", "2:4" or "S:2:4" into op. */
static int parse_prune(const char *v, dam_lever_op *op)
{
    char buf[64];
    if (strlen(v) >= sizeof buf)
        return -1;
    if (strcmp(v, "2:4") == 0) {
        op->sparsity_kind = DAM_SPARSITY_2TO4;
        op->sparsity = 0.5;
        return 0;
    }
    strcpy(buf, v);
    char *colon = strchr(buf, ':');
    if (!colon)
        return -1;
    *colon = '\0';
    const char *a = buf, *b = colon + 1;
    double s;
    if (parse_num(a, &s) == 0) { /* S:KIND */
        const char *t = a;
        a = b;
        b = t;
    } else if (parse_num(b, &s) != 0) {
        return -1;
    }
    /* a is the kind now, s the sparsity. */
    if (strcasecmp(a, "structured") == 0)
        op->sparsity_kind = DAM_SPARSITY_STRUCTURED;
    else if (strcasecmp(a, "unstructured") == 0)
        op->sparsity_kind = DAM_SPARSITY_UNSTRUCTURED;
    else if (strcmp(a, "2:4") == 0)
        op->sparsity_kind = DAM_SPARSITY_2TO4;
    else
        return -1;
    op->sparsity = s;
    return 0;
}

/* Set the main value of key k on op. Returns DAM_OK or an error. */
static int parse_value(const char *kv, const char *key, const char *v,
                       dam_lever_op *op, dam_error *err)
{
    int i = 0, b = 0;
    double x = 0.0;
#define BAD(what) \
    dam_error_set(err, "", 0, "lever '%s': %s (got '%s')", kv, what, v)

    if (strcmp(key, "gpu") == 0) {
        if (!v[0] || strlen(v) >= sizeof op->gpu)
            return BAD("gpu needs a catalog id");
        snprintf(op->gpu, sizeof op->gpu, "%s", v);
    } else if (strcmp(key, "quantize") == 0 || strcmp(key, "precision") == 0) {
        dam_precision p;
        if (dam_precision_parse(v, &p) != 0) {
            const char *names[DAM_PREC_COUNT];
            for (int k = 0; k < DAM_PREC_COUNT; k++)
                names[k] = dam_precision_name((dam_precision)k);
            const char *near = closest(v, names, DAM_PREC_COUNT);
            if (near)
                return dam_error_set(err, "", 0,
                                     "lever '%s': unknown precision '%s' "
                                     "(did you mean '%s'?)", kv, v, near);
            return BAD("unknown precision (expected fp32, tf32, fp16, bf16, "
                       "fp8 or int8)");
        }
        op->precision = (int)p;
    } else if (strcmp(key, "prune") == 0) {
        if (parse_prune(v, op) != 0)
            return BAD("prune expects structured:S, unstructured:S or 2:4 "
                       "with S in (0, 1)");
    } else if (strcmp(key, "chinchilla") == 0) {
        if (strcasecmp(v, "optimal") == 0)
            op->tokens_per_param = 0.0;
        else if (parse_num(v, &x) == 0 && x > 0.0)
            op->tokens_per_param = x;
        else
            return BAD("chinchilla expects 'optimal' or tokens per parameter "
                       "> 0");
    } else if (strcmp(key, "fuse") == 0) {
        if (parse_num(v, &x) != 0 || x < 0.0 || x > 1.0)
            return BAD("fuse expects a fraction in [0, 1]");
        op->fuse_fraction = x;
    } else if (strcmp(key, "bucket_mb") == 0) {
        if (parse_num(v, &x) != 0 || !(x > 0.0))
            return BAD("bucket_mb expects megabytes > 0");
        op->bucket_bytes = x * 1e6;
    } else if (strcmp(key, "batch_timeout_ms") == 0) {
        if (parse_num(v, &x) != 0 || x < 0.0)
            return BAD("batch_timeout_ms expects milliseconds >= 0");
        op->batch_timeout_s = x * 1e-3;
    } else if (strcmp(key, "distill") == 0) {
        if (parse_num(v, &x) != 0 || !(x > 0.0))
            return BAD("distill expects the student's parameter count > 0");
        op->student_params = x;
    } else if (strcmp(key, "pin_memory") == 0
               || strcmp(key, "overlap_transfer") == 0
               || strcmp(key, "overlap_sync") == 0
               || strcmp(key, "cuda_graphs") == 0
               || strcmp(key, "sharded") == 0
               || strcmp(key, "decode_on_gpu") == 0) {
        if (parse_bool(v, &b) != 0)
            return BAD("expected 1/0, true/false, yes/no or on/off");
        if (strcmp(key, "pin_memory") == 0)
            op->pin_memory = b;
        else if (strcmp(key, "overlap_transfer") == 0)
            op->overlap_transfer = b;
        else if (strcmp(key, "overlap_sync") == 0)
            op->overlap_sync = b;
        else if (strcmp(key, "cuda_graphs") == 0)
            op->cuda_graphs = b;
        else if (strcmp(key, "sharded") == 0)
            op->sharded = b;
        else
            op->decode_on_gpu = b;
    } else { /* the integer counts */
        if (parse_int(v, &i) != 0 || i < 1)
            return BAD("expected a whole number >= 1");
        if (strcmp(key, "gpus") == 0)
            op->gpus = i;
        else if (strcmp(key, "gpus_per_node") == 0)
            op->gpus_per_node = i;
        else if (strcmp(key, "nodes") == 0)
            op->nodes = i;
        else if (strcmp(key, "loader_workers") == 0)
            op->loader_workers = i;
        else if (strcmp(key, "prefetch_factor") == 0)
            op->prefetch_factor = i;
        else if (strcmp(key, "batch_size") == 0)
            op->batch_size = i;
        else if (strcmp(key, "replicas") == 0)
            op->replicas = i;
        else if (strcmp(key, "max_batch") == 0)
            op->max_batch = i;
        else
            op->preprocess_workers = i;
    }
#undef BAD
    return DAM_OK;
}

/* Parse one ",option=value" of a key taking option kind ok. */
static int parse_option(const char *kv, opt_kind ok, char *opt,
                        dam_lever_op *op, dam_error *err)
{
    char *eq = strchr(opt, '=');
    double x;
    if (!eq)
        return dam_error_set(err, "", 0, "lever '%s': option '%s' needs "
                             "name=value", kv, opt);
    *eq = '\0';
    const char *name = opt, *v = eq + 1;
    if (ok == OPT_NONE || strcmp(name, opt_names[ok]) != 0) {
        if (ok == OPT_NONE)
            return dam_error_set(err, "", 0, "lever '%s': this key takes no "
                                 "options (got '%s')", kv, name);
        return dam_error_set(err, "", 0, "lever '%s': unknown option '%s' "
                             "(expected '%s')", kv, name, opt_names[ok]);
    }
    switch (ok) {
    case OPT_DELTA:
        if (parse_num(v, &x) != 0)
            break;
        op->accuracy_delta = x;
        op->has_accuracy_delta = 1;
        return DAM_OK;
    case OPT_FIT: {
        dam_scaling_fit_id id;
        if (dam_scaling_fit_parse(v, &id) != 0)
            return dam_error_set(err, "", 0, "lever '%s': unknown fit '%s' "
                                 "(expected hoffmann2022 or epoch2024)",
                                 kv, v);
        op->fit = (int)id;
        return DAM_OK;
    }
    case OPT_SHARD:
        if (parse_num(v, &x) != 0 || !(x > 0.0))
            break;
        op->shard_bytes = x * 1e6;
        return DAM_OK;
    case OPT_DECODE:
        if (parse_num(v, &x) != 0 || !(x > 0.0))
            break;
        op->gpu_decode_s = x * 1e-3;
        return DAM_OK;
    case OPT_PRICE:
        if (parse_num(v, &x) != 0 || !(x > 0.0))
            break;
        op->gpu_hour_usd = x;
        return DAM_OK;
    case OPT_NONE:
        break;
    }
    return dam_error_set(err, "", 0, "lever '%s': bad value '%s' for '%s'",
                         kv, v, name);
}

int dam_lever_parse_kv(const char *kv, dam_lever *lever, dam_error *err)
{
    char buf[256];
    const char *names[NKEYS];
    size_t k;

    memset(lever, 0, sizeof *lever);
    if (!kv || !kv[0])
        return dam_error_set(err, "", 0, "lever: empty (expected key=value)");
    if (strlen(kv) >= sizeof buf)
        return dam_error_set(err, "", 0, "lever: '%.40s...' is too long "
                             "(at most %zu characters)", kv, sizeof buf - 1);
    strcpy(buf, kv);
    char *eq = strchr(buf, '=');
    if (!eq)
        return dam_error_set(err, "", 0, "lever '%s': expected key=value",
                             kv);
    *eq = '\0';
    const char *key = buf;
    char *val = eq + 1;

    for (k = 0; k < NKEYS; k++)
        if (strcmp(key, keys[k].key) == 0)
            break;
    if (k == NKEYS) {
        for (size_t j = 0; j < NKEYS; j++)
            names[j] = keys[j].key;
        const char *near = closest(key, names, NKEYS);
        if (near)
            return dam_error_set(err, "", 0, "lever '%s': unknown key '%s' "
                                 "(did you mean '%s'?)", kv, key, near);
        return dam_error_set(err, "", 0, "lever '%s': unknown key '%s'", kv,
                             key);
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
    dam_lever_op_init(op, keys[k].kind);

    char *opts = strchr(val, ',');
    if (opts)
        *opts++ = '\0';
    if (!val[0])
        return dam_error_set(err, "", 0, "lever '%s': '%s' needs a value",
                             kv, key);
    int rc = parse_value(kv, key, val, op, err);
    while (rc == DAM_OK && opts) {
        char *next = strchr(opts, ',');
        if (next)
            *next++ = '\0';
        rc = parse_option(kv, keys[k].opt, opts, op, err);
        opts = next;
    }
    return rc;
}
