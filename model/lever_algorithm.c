/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever_algorithm.c: the levers on the model and its kernels: quantize,
 * precision, prune, distill, chinchilla, fuse and cuda_graphs, with the
 * quality defaults and their sources (lever.h says what each op moves;
 * lever.c holds the table).
 */
#include "model/lever_impl.h"

#include <string.h>
#include <strings.h>

#include "model/csvline.h"
#include "model/quality.h"
#include "model/recipe.h"

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
        return dam_lever_fail(
            c,
            "%s is an inference format; in training name the "
            "method that makes it trainable and its cost: "
            "train_method = \"...\" and train_cost = extra training "
            "as a fraction of the run (e.g. 1.0 to train dense, "
            "prune and retrain as long again)",
            what);
    s->workload.retrain_fraction += op->train_cost;
    return DAM_OK;
}

/* Shared by quantize and precision: switch the compute format to p. */
static int set_precision(const ctx *c, dam_scenario *s, int p, int quantize)
{
    dam_workload *w = &s->workload;
    if (p < 0 || p >= DAM_PREC_COUNT)
        return dam_lever_fail(c, "%s needs a precision (got %d)",
                              quantize ? "quantize" : "precision", p);
    dam_precision np = (dam_precision)p;
    if (quantize && (np == DAM_FP32 || np == DAM_TF32))
        return dam_lever_fail(
            c,
            "quantize targets fp16, bf16, fp8 or int8 (got '%s'; "
            "use the precision lever to widen)",
            dam_precision_name(np));
    double ob = dam_precision_bytes(w->precision);
    double nb = dam_precision_bytes(np);
    if (quantize && nb > ob)
        return dam_lever_fail(
            c,
            "quantize narrows the format, but '%s' is wider than "
            "the current '%s' (use the precision lever to widen)",
            dam_precision_name(np), dam_precision_name(w->precision));
    if (!(s->machine.gpu.peak[np] > 0.0))
        return dam_lever_unsupported(c, np, &s->machine.gpu);
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
        dam_lever_add_delta(s, op, have, def);
        return DAM_OK;
    }
    int rc = set_precision(c, s, op->precision, 1);
    if (rc != DAM_OK)
        return rc;
    int have = dam_lever_quantize_default(s, s->workload.precision, &def,
                                          &src);
    dam_lever_add_delta(s, op, have, def);
    return DAM_OK;
}

static int op_precision(const ctx *c, const dam_lever_op *op,
                        const dam_catalog *cat, dam_scenario *s)
{
    if (s->mode == DAM_MODE_TRAINING && op->precision == DAM_INT8)
        return dam_lever_fail(
            c, "int8 is not a training format (for a model served "
               "in INT8 use quantize = \"int8\" with train_method and "
               "train_cost)");
    int rc = set_precision(c, s, op->precision, 0);
    if (rc != DAM_OK)
        return rc;
    /* Floating formats count as neutral; integer compute is quantization. */
    dam_lever_add_delta(s, op, s->workload.precision != DAM_INT8, 0.0);
    return DAM_OK;
}

static int op_prune(const ctx *c, const dam_lever_op *op,
                    const dam_catalog *cat, dam_scenario *s)
{
    dam_workload *w = &s->workload;
    double sp = op->sparsity, b = dam_lever_weight_elem_bytes(w);

    switch (op->sparsity_kind) {
    case DAM_SPARSITY_STRUCTURED:
    case DAM_SPARSITY_UNSTRUCTURED:
        if (!(sp > 0.0 && sp < 1.0))
            return dam_lever_fail(c, "%s sparsity must be in (0, 1) (got %g)",
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
        dam_lever_add_delta(s, op, 0, 0.0);
        break;
    case DAM_SPARSITY_2TO4:
        if (sp >= 0.0 && sp != 0.5)
            return dam_lever_fail(
                c,
                "2:4 sparsity removes exactly half the weights "
                "(got sparsity %g)",
                sp);
        if (w->sparsity_kind == DAM_SPARSITY_2TO4)
            return dam_lever_fail(c, "the workload is already 2:4 sparse");
        if (!s->machine.gpu.sparsity_2to4)
            return dam_lever_fail(
                c,
                "2:4 sparsity needs sparse tensor cores, which "
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
        dam_lever_add_delta(s, op, 1, 0.0);
        break;
    default:
        return dam_lever_fail(
            c, "prune needs a kind: structured, unstructured or 2:4");
    }
    w->sparsity = 1.0 - (1.0 - (w->sparsity > 0.0 ? w->sparsity : 0.0))
                            * (1.0 - sp);
    w->sparsity_kind = (dam_sparsity_kind)op->sparsity_kind;
    return DAM_OK;
}

static int op_chinchilla(const ctx *c, const dam_lever_op *op,
                         const dam_catalog *cat, dam_scenario *s)
{
    dam_workload *w = &s->workload;
    const dam_scaling_fit *f =
        dam_scaling_fit_get((dam_scaling_fit_id)(op->fit >= 0 ? op->fit
                                                             : s->quality.fit));
    if (!f)
        return dam_lever_fail(c, "unknown scaling-law fit %d", op->fit);
    if (w->model.family[0] && strcmp(w->model.family, "language") != 0
        && strcmp(w->model.family, "custom") != 0)
        return dam_lever_fail(c,
                              "the Chinchilla fit is for language models, but "
                              "'%s' is a '%s' model",
                              w->model.id, w->model.family);
    double n = w->model.params, d = dam_quality_tokens(s);
    if (!(n > 0.0) || !(d > 0.0))
        return dam_lever_fail(
            c,
            "needs parameters and training tokens > 0 (got N = "
            "%g, D = %g; set quality.tokens or data samples, "
            "seq_len and epochs)",
            n, d);
    double cbudget = dam_scaling_compute(n, d), n2, d2;
    int rc = op->tokens_per_param > 0.0
                 ? dam_scaling_split(cbudget, op->tokens_per_param, &n2, &d2,
                                     NULL)
                 : dam_scaling_optimal(f, cbudget, &n2, &d2, NULL);
    if (rc != DAM_OK)
        return dam_lever_fail(c, "cannot split a budget of %g FLOPs", cbudget);

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
        return dam_lever_fail(c, "fuse needs a fraction in [0, 1] (got %g)", f);
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
        return dam_lever_fail(c, "cuda_graphs needs true or false");
    s->workload.cuda_graphs = op->cuda_graphs;
    return DAM_OK;
}

static int op_distill(const ctx *c, const dam_lever_op *op,
                      const dam_catalog *cat, dam_scenario *s)
{
    double n = s->workload.model.params, st = op->student_params;
    if (!(st > 0.0) || !(st < n))
        return dam_lever_fail(
            c,
            "params (the student's parameter count) must be in "
            "(0, %g), the teacher's parameters (got %g)",
            n, st);
    scale_model(&s->workload, st / n, 0);
    dam_lever_add_delta(s, op, 0, 0.0);
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

static const char *const sparsity_kinds[] = {"none", "structured",
                                             "unstructured", "2:4", NULL};

/* Mark key `name` of type t as given in op (the type's own row: the
 * table is above the families). */
static void mark(dam_lever_op *op, const dam_lever_type *t,
                 const char *name)
{
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
        mark(op, &dam_lever_prune_type, "kind");
        mark(op, &dam_lever_prune_type, "sparsity");
        return 0;
    }
    strcpy(buf, v);
    char *colon = strchr(buf, ':');
    if (!colon)
        return snprintf(why, n, "%s", expect), -1;
    *colon = '\0';
    const char *a = buf, *b = colon + 1;
    double s;
    if (dam_lever_parse_num(a, &s) == 0) { /* S:KIND */
        const char *t = a;
        a = b;
        b = t;
    } else if (dam_lever_parse_num(b, &s) != 0) {
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
    mark(op, &dam_lever_prune_type, "kind");
    mark(op, &dam_lever_prune_type, "sparsity");
    return 0;
}

/* chinchilla: "optimal" or tokens per parameter. */
static int main_chinchilla(const char *v, dam_lever_op *op, char *why,
                           size_t n)
{
    double x;
    if (strcasecmp(v, "optimal") == 0)
        op->tokens_per_param = 0.0;
    else if (dam_lever_parse_num(v, &x) == 0 && x > 0.0)
        op->tokens_per_param = x;
    else
        return snprintf(why, n, "chinchilla expects 'optimal' or tokens per "
                        "parameter > 0"), -1;
    mark(op, &dam_lever_chinchilla_type, "tokens_per_param");
    return 0;
}

/* ---- the table ------------------------------------------------------------ */

static const char *const precision_names[] = {"fp32", "tf32", "fp16", "bf16",
                                              "fp8",  "int8", NULL};
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
static const dam_lever_key distill_keys[] = {
    KNUM("params", student_params, "parameters", 1.0, 0, INF, 1, 1,
         "the student's parameter count"),
    KDELTA,
};

const dam_lever_type dam_lever_quantize_type = {
    DAM_LEVER_QUANTIZE, "quantize",
    "weights and activations to a narrower format",
    KEYS(quantize_keys), 0, NULL, DAM_MODES_ALL,
    "the GPU must have the format's peak; int8 in training needs "
    "train_method and train_cost",
    op_quantize, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING), 0,
    can_quantize, "narrower operations run faster and move fewer bytes",
    0, QUALITY_FLOAT, "quantize=int8"};

const dam_lever_type dam_lever_precision_type = {
    DAM_LEVER_PRECISION, "precision", "the compute format (mixed "
    "precision)", KEYS(precision_keys), 0, NULL, DAM_MODES_ALL,
    "the GPU must have the format's peak; int8 not in training",
    op_precision, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING), 0,
    can_precision, "a format with a higher peak", 0, QUALITY_FLOAT,
    "precision=bf16"};

const dam_lever_type dam_lever_prune_type = {
    DAM_LEVER_PRUNE, "prune", "remove weights (structured, unstructured, "
    "2:4)", KEYS(prune_keys), -1, main_prune, DAM_MODES_ALL,
    "2:4 needs sparse tensor cores; in training it needs train_method "
    "and train_cost",
    op_prune, B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(QUEUEING), 0,
    can_prune, "fewer operations and bytes", 0,
    "2:4: 0 after fine-tuning (Mishra et al. 2021, arXiv 2104.08378); "
    "structured, unstructured: unknown",
    "prune=2:4"};

const dam_lever_type dam_lever_chinchilla_type = {
    DAM_LEVER_CHINCHILLA, "chinchilla",
    "rebalance parameters and tokens at fixed compute",
    KEYS(chinchilla_keys), -1, main_chinchilla, M(TRAINING),
    "language models", op_chinchilla, 0, 0, NULL,
    "a lower loss for the same compute", 1,
    "the fit's loss L(N', D') - L(N, D) (model/scaling.h)",
    "chinchilla=optimal"};

const dam_lever_type dam_lever_fuse_type = {
    DAM_LEVER_FUSE, "fuse", "kernel fusion: fewer launches, less "
    "elementwise traffic", KEYS(fuse_keys), 0, NULL, DAM_MODES_ALL, NULL,
    op_fuse, B(MEMORY) | B(LATENCY), 0, can_fuse,
    "fused kernels skip round trips to HBM and launches", 0, "none",
    "fuse=0.5"};

const dam_lever_type dam_lever_cuda_graphs_type = {
    DAM_LEVER_CUDA_GRAPHS, "cuda_graphs", "launches captured once",
    KEYS(graphs_keys), 0, NULL, DAM_MODES_ALL, NULL, op_cuda_graphs,
    B(LATENCY), 0, can_cuda_graphs, "one launch per step", 0, "none",
    "cuda_graphs=1"};

const dam_lever_type dam_lever_distill_type = {
    DAM_LEVER_DISTILL, "distill", "a smaller student model",
    KEYS(distill_keys), 0, NULL, DAM_MODES_ALL, NULL, op_distill,
    B(COMPUTE) | B(MEMORY) | B(WEIGHTS) | B(COMM) | B(QUEUEING), 0, NULL,
    "a smaller model does less work and sends fewer bytes", 0,
    "accuracy_delta when given, else unknown", "distill=66e6"};
