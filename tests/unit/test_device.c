/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_device.c: the device model (model/device.h).
 *
 * Labels. "by construction": a property of the formulas (rooflines, wave
 * counts, monotonicity, the constants table). "fit residual (in sample)":
 * a catalog constant was fitted on that measurement, so agreement is
 * expected. "out of sample": a public measurement no constant was fitted
 * on (public-devices.csv rows named in each check), predicted within
 * three standard deviations of the constant it uses.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/device.h"
#include "model/graph.h"
#include "model/lever.h"
#include "model/loader.h"

static const dam_gpu *gpu(const dam_catalog *c, const char *id)
{
    const dam_gpu *g = dam_catalog_gpu(c, id);
    dam_check(g != NULL, "catalog has GPU %s", id);
    return g;
}

/* Achieved TFLOP/s of an M x N x K GEMM. */
static double tflops(const dam_gpu *g, dam_precision p, double m, double n,
                     double k)
{
    double t = dam_device_gemm_time(g, p, m, n, k, 1.0,
                                    dam_precision_bytes(p), NULL);
    return 2.0 * m * n * k / t / 1e12;
}

static void complete(const dam_catalog *cat)
{
    for (size_t i = 0; i < cat->ngpus; i++) {
        const dam_gpu *g = &cat->gpus[i];
        const dam_device *d = &g->dev;
        int ok = g->sms > 0 && d->tile_m > 0 && d->tile_n > 0 &&
                 d->mem.v > 0 && d->mem.v <= 1 && d->attn_fwd.v > 0 &&
                 d->attn_bwd.v > 0 && d->kernel_gap.v > 0 &&
                 d->graph_gap.v > 0 && d->h2d.v > 0 && d->pageable.v > 0;
        for (int p = 0; p < DAM_PREC_COUNT; p++)
            ok &= d->gemm[p].v > 0.0 && d->gemm[p].v <= 1.2 &&
                  d->gemm[p].sd >= 0.0;
        dam_check(ok, "%s: every device constant set (by construction of "
                      "dam_device_complete)",
                  g->id);
        dam_check(g->gen != DAM_GEN_UNKNOWN, "%s: generation given", g->id);
    }
}

/* GEMM rows of public-devices.csv the catalog's gemm_frac came from. */
static void fit_residuals(const dam_catalog *cat)
{
    static const struct {
        const char *gpu, *row;
        dam_precision p;
        double m, n, k, tf;
    } rows[] = {
        {"A100-SXM4-80GB", "gemm_A100-SXM4_bf16_mamf", DAM_BF16, 1024, 10240,
         5120, 271.2},
        {"A100-PCIE-80GB", "gemm_A100-PCIe_bf16_mamf", DAM_BF16, 2048, 5120,
         6144, 252.9},
        {"H100-SXM5-80GB", "gemm_H100-SXM5_bf16_mamf", DAM_BF16, 2048, 2048,
         13312, 794.5},
        {"H100-SXM5-80GB", "gemm_H100-SXM5_fp8_mamf", DAM_FP8, 1024, 9216,
         14336, 1402.6},
        {"H200-SXM-141GB", "gemm_H200_fp8_mamf", DAM_FP8, 1280, 4096, 12032,
         1453.4},
        {"B200-HGX-180GB", "gemm_B200_bf16_mamf", DAM_BF16, 1792, 16128, 3072,
         1745.0},
        {"B200-HGX-180GB", "gemm_B200_fp8_mamf", DAM_FP8, 15360, 4096, 3072,
         3432.5},
        {"L4", "gemm_L4_bf16_8192", DAM_BF16, 8192, 8192, 8192, 59.4},
        {"L4", "gemm_L4_fp16_8192", DAM_FP16, 8192, 8192, 8192, 53.8},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const dam_gpu *g = gpu(cat, rows[i].gpu);
        if (!g)
            continue;
        double got = tflops(g, rows[i].p, rows[i].m, rows[i].n, rows[i].k);
        double sd = g->dev.gemm[rows[i].p].sd * g->peak[rows[i].p] / 1e12;
        dam_check(fabs(got - rows[i].tf) <= sd + 0.01 * rows[i].tf,
                  "fit residual (in sample) %s: model %.1f TFLOP/s, "
                  "measured %.1f (sd %.1f)",
                  rows[i].row, got, rows[i].tf, sd);
    }
}

/*
 * Rows no constant was fitted on. The tolerance comes from the model's own
 * claim, not from these rows: a constant's sd is its 1-sigma uncertainty,
 * so a row the model should transfer to lies within 2 sd (the two-sided
 * 95 % band), either way. Rows with a known cause of a miss must miss in
 * that cause's direction and by no more than 3 sd: B200's square shapes
 * run slower than the best-shape search its constant was fitted on (the
 * model above the row); L4 at 2048^3 runs before the 72 W limit throttles
 * it, its constant was fitted at 8192^3 under the limit (the model below).
 */
static void out_of_sample(const dam_catalog *cat)
{
    static const struct {
        const char *gpu, *row;
        dam_precision p;
        double n, tf;
        int miss; /* 0: transfers; +1 / -1: the model above / below */
    } rows[] = {
        {"B200-HGX-180GB", "gemm_B200_bf16_4096", DAM_BF16, 4096, 1410.0, 1},
        {"B200-HGX-180GB", "gemm_B200_bf16_8192", DAM_BF16, 8192, 1420.0, 1},
        {"L4", "gemm_L4_bf16_2048", DAM_BF16, 2048, 70.89, -1},
        {"L4", "gemm_L4_fp16_2048", DAM_FP16, 2048, 68.83, -1},
        /* H200 bf16 is taken as H100's (same die, same limit) */
        {"H200-SXM-141GB", "gemm_H200_bf16_zz", DAM_BF16, 8192, 790.29, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const dam_gpu *g = gpu(cat, rows[i].gpu);
        if (!g)
            continue;
        double n = rows[i].n;
        double got = tflops(g, rows[i].p, n, n, n);
        double sd = g->dev.gemm[rows[i].p].sd * g->peak[rows[i].p] / 1e12;
        double z = (got - rows[i].tf) / sd;
        int ok = rows[i].miss == 0 ? fabs(z) <= 2.0
                                   : z * rows[i].miss > 0.0 && fabs(z) <= 3.0;
        dam_check(ok, "out of sample %s: model %.1f TFLOP/s, measured %.1f "
                  "(%+.0f %%, z %+.2f: %s; sd %.1f)",
                  rows[i].row, got, rows[i].tf,
                  100.0 * (got / rows[i].tf - 1.0), z,
                  rows[i].miss == 0 ? "within 2 either way"
                  : rows[i].miss > 0 ? "above it, within 3"
                                     : "below it, within 3", sd);
    }
}

static void gemm_model(const dam_catalog *cat)
{
    const dam_gpu *a = gpu(cat, "A100-SXM4-80GB");
    const dam_gpu *h = gpu(cat, "H100-SXM5-80GB");
    if (!a || !h)
        return;
    /* a large full-wave GEMM runs at c x peak */
    double big = 128.0 * 108 * 4;
    dam_check_rel(tflops(a, DAM_BF16, big, 1024, 8192) * 1e12,
                  dam_device_gemm_rate(a, DAM_BF16), 0.01,
                  "A100: 4 full waves run at c x peak (by construction)");
    /* one tile more than the SMs: a second wave (or half tiles) */
    double t1 = dam_device_gemm_time(a, DAM_BF16, 128 * 54, 256, 8192, 1, 2,
                                     NULL);
    double t2 = dam_device_gemm_time(a, DAM_BF16, 128 * 55, 256, 8192, 1, 2,
                                     NULL);
    dam_check(t2 / t1 > 1.4 && t2 / t1 < 2.05,
              "A100: 110 tiles on 108 SMs cost %.2f x 108 tiles (a second "
              "wave or narrower tiles; by construction)",
              t2 / t1);
    t1 = dam_device_gemm_time(h, DAM_BF16, 128 * 132, 256, 8192, 1, 2, NULL);
    t2 = dam_device_gemm_time(h, DAM_BF16, 128 * 133, 256, 8192, 1, 2, NULL);
    dam_check(t2 / t1 < 1.02,
              "H100 (stream-K): 133 tiles cost %.3f x 132 tiles", t2 / t1);
    /* Ada has no stream-K (the table gives it to Hopper and later): on the
     * RTX 4090's 128 SMs, 33 x 4 = 132 tiles of 128 x 128 take ceil(132 /
     * 128) = 2 waves where 32 x 4 = 128 take 1 (K = 8192, N = 512: compute
     * bound, ~450 FLOP/B against a ridge under 330). Survived mutation. */
    const dam_gpu *ada = gpu(cat, "RTX-4090");
    if (ada) {
        t1 = dam_device_gemm_time(ada, DAM_BF16, 128 * 32, 512, 8192, 1, 2,
                                  NULL);
        t2 = dam_device_gemm_time(ada, DAM_BF16, 128 * 33, 512, 8192, 1, 2,
                                  NULL);
        dam_check(t2 / t1 > 1.9 && t2 / t1 < 2.05,
                  "RTX 4090 (Ada, no stream-K): 132 tiles on 128 SMs cost "
                  "%.3f x 128 tiles (2 waves against 1; by construction)",
                  t2 / t1);
    }
    /* a decode GEMM (one row) is bound by reading the weights */
    double w = 2.0 * 8192 * 8192;
    double td = dam_device_gemm_time(h, DAM_BF16, 1, 8192, 8192, 1, 2, NULL);
    dam_check_rel(td, w / (h->mem_bw * h->dev.mem.v), 0.01,
                  "H100: 1-row GEMM time = weight bytes / achieved bandwidth");
    /* rooflines and monotonicity over a sweep */
    int roof = 1, mono = 1;
    double prev = 0.0;
    for (double m = 1; m <= 65536; m *= 2) {
        int cb;
        double t = dam_device_gemm_time(a, DAM_FP16, m, 4096, 4096, 1, 2,
                                        &cb);
        double fl = 2.0 * m * 4096 * 4096;
        double by = 2.0 * (m * 4096 * 2 + 4096.0 * 4096);
        roof &= t >= fl / a->peak[DAM_FP16] && t >= by / a->mem_bw;
        mono &= t >= prev;
        prev = t;
    }
    dam_check(roof, "GEMM time above both rooflines (by construction)");
    dam_check(mono, "GEMM time grows with M (by construction)");
}

/*
 * GEMM time by shape (fit residual, in sample): the fixed 2 us per GEMM of
 * model/device.c (GEMM_T0) was fitted on these public cuBLAS bf16 rows of
 * one B200 host (torch.mm under triton do_bench): pytorch/ao PR #2427
 * (squares) and vllm-project/vllm PR #18778 (N = 6144, K = 4096, M = 1 to
 * 1024), at the rows' own plateau (1420 TFLOP/s at 4096^3 to 8192^3, the
 * level the catalog's B200 constant does not reach: gemm_B200_bf16_4096 and
 * _8192 above). Each row's time is the GEMM's plus one eager kernel gap
 * (the loop times back-to-back launches). Before the fixed time the small
 * squares came out 85 % (1024^3) and 29 % (1536^3) too fast.
 */
static void gemm_shape(const dam_catalog *cat)
{
    static const struct {
        double m, n, k, tflops;
        const char *src;
    } rows[] = {
        {1024, 1024, 1024, 423.0, "ao#2427"},
        {1536, 1536, 1536, 921.0, "ao#2427"},
        {2048, 2048, 2048, 1130.0, "ao#2427"},
        {3072, 3072, 3072, 1510.0, "ao#2427"},
        {8192, 8192, 8192, 1420.0, "ao#2427"},
        {1, 6144, 4096, 5.910, "vllm#18778"},
        {128, 6144, 4096, 727.3, "vllm#18778"},
        {256, 6144, 4096, 1111.9, "vllm#18778"},
        {512, 6144, 4096, 1337.8, "vllm#18778"},
        {1024, 6144, 4096, 1433.0, "vllm#18778"},
    };
    const dam_gpu *g0 = gpu(cat, "B200-HGX-180GB");
    if (!g0)
        return;
    dam_gpu b = *g0;
    b.dev.gemm[DAM_BF16].v = 1420.0 / b.peak[DAM_BF16] * 1e12;
    double worst = 0.0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double m = rows[i].m, n = rows[i].n, k = rows[i].k;
        double t = dam_device_gemm_time(&b, DAM_BF16, m, n, k, 1.0, 2.0,
                                        NULL) + b.dev.kernel_gap.v;
        double meas = 2.0 * m * n * k / (rows[i].tflops * 1e12);
        double e = meas / t - 1.0;
        printf("  B200 bf16 %5.0f x %5.0f x %5.0f (%s): model %7.2f us, "
               "measured %7.2f us: %+5.1f %% too fast\n",
               m, n, k, rows[i].src, t * 1e6, meas * 1e6, 100.0 * e);
        if (fabs(e) > worst)
            worst = fabs(e);
    }
    dam_check(worst < 0.15, "B200 GEMM time by shape within 15 %% of the "
              "public rows it was fitted on (worst %.1f %%; fit residual)",
              100.0 * worst);
    /* the fixed time is what a tiny GEMM costs on the compute side, and a
     * memory-bound GEMM hides it (by construction) */
    double tiny = dam_device_gemm_time(&b, DAM_BF16, 16, 16, 16, 1.0, 2.0,
                                       NULL);
    dam_check(fabs(tiny - 2.0e-6) < 0.1e-6, "a 16^3 GEMM costs the fixed "
              "2 us (%.3f us)", tiny * 1e6);
    int cb = 1;
    double gemv = dam_device_gemm_time(&b, DAM_BF16, 1, 8192, 8192, 1.0, 2.0,
                                       &cb);
    double stream = 2.0 * 8192.0 * 8193.0 / (b.mem_bw * b.dev.mem.v);
    dam_check(!cb && fabs(gemv / stream - 1.0) < 1e-3, "a GEMV streams its "
              "weights without the fixed time (%.2f us)", gemv * 1e6);
}

/* A graph of one forward operator of kind k (a dam_op_kind) in phase ph,
 * its count and kernels 1; the caller fills in the rest. */
static dam_op *one_op(dam_graph *gr, const char *ph, int k)
{
    memset(gr, 0, sizeof *gr);
    gr->nops = gr->nphases = 1;
    snprintf(gr->phase[0], sizeof gr->phase[0], "%s", ph);
    dam_op *o = &gr->ops[0];
    snprintf(o->name, sizeof o->name, "%s", ph);
    o->kind = (unsigned char)k;
    o->pass = DAM_PASS_FWD;
    o->scale = DAM_SCALE_NONE;
    o->count = o->kernels = 1.0;
    return o;
}

/* One weight GEMM (M x 8192 x 8192) of a serving step, streamed weights
 * at we bytes (0: the compute format's), s. */
static double weight_gemm(const dam_gpu *g, double m, double we)
{
    static dam_graph gr;
    dam_op *o = one_op(&gr, "dense", DAM_OP_GEMM);
    o->flags = DAM_OPF_WEIGHT;
    o->m = m;
    o->n = o->k = 8192.0;
    o->groups = 1.0;
    o->flops = 2.0 * m * 8192.0 * 8192.0;
    o->weight_elems = 8192.0 * 8192.0 + 2.0 * m * 8192.0;
    dam_cost_opts co;
    memset(&co, 0, sizeof co);
    co.gpu = g;
    co.prec = DAM_BF16;
    co.b = 1.0;
    co.weight_elem = we;
    co.weights_stream = 1;
    dam_graph_cost c;
    return dam_device_cost(&gr, &co, &c);
}

/*
 * W4A16 dequantisation (device.c DEQ_WPC; issue 29 item 5). Fit
 * residuals: inclusionAI/humming PR #2, H100 SXM, N = K = 8192, Marlin
 * W4A16 5.81, 11.63, 23.14, 46.36 TFLOP/s at M = 1, 2, 4, 8 (torch
 * W16A16 2.68 at M = 1; the table of jinzhen-lin's comment of
 * 2026-03-30). Out of sample: Marlin W8A16 in the same table, 4.29, 8.55,
 * 17.22, 34.1 TFLOP/s; tile-ai/TileOPs PR #2159, the Marlin W4 baseline
 * at (1, 8192, 8192) on an H200, 23.84 us / 1.094.
 */
/* Worst relative error of the model over the M = 1, 2, 4, 8 rows of one
 * kernel (TFLOP/s at N = K = 8192), weights at we bytes. */
static double weight_rows(const dam_gpu *g, const char *name, double we,
                          const double tf[4], const char *tag)
{
    static const double ms[] = {1, 2, 4, 8};
    double worst = 0.0;
    for (int i = 0; i < 4; i++) {
        double t = weight_gemm(g, ms[i], we);
        double meas = 2.0 * ms[i] * 8192.0 * 8192.0 / (tf[i] * 1e12);
        double e = t / meas - 1.0;
        printf("  H100 %s M = %.0f: model %.2f us, measured %.2f us "
               "(%+.1f %%, %s)\n", name, ms[i], t * 1e6, meas * 1e6,
               100.0 * e, tag);
        worst = fabs(e) > worst ? fabs(e) : worst;
    }
    return worst;
}

static void w4a16(const dam_catalog *cat)
{
    const dam_gpu *h100 = gpu(cat, "H100-SXM5-80GB");
    const dam_gpu *h200 = gpu(cat, "H200-SXM-141GB");
    if (!h100 || !h200)
        return;
    static const double tf[] = {5.81, 11.63, 23.14, 46.36};
    double worst = weight_rows(h100, "W4A16", 0.52, tf, "fit residual");
    dam_check(worst < 0.08, "H100 W4A16 at M = 1..8 within 8 %% (fit "
              "residual; worst %.1f %%)", 100.0 * worst);
    /* out of sample: Marlin W8A16 on the same shape and GPU (weights at
     * 1.02 bytes: the same scale per 128 as the W4A16 rows) */
    static const double tf8[] = {4.29, 8.55, 17.22, 34.1};
    worst = weight_rows(h100, "W8A16", 1.02, tf8, "out of sample");
    dam_check(worst < 0.08, "H100 W8A16 at M = 1..8 within 8 %% (out of "
              "sample; worst %.1f %%)", 100.0 * worst);
    double r = weight_gemm(h100, 1, 0.0) / weight_gemm(h100, 1, 0.52);
    dam_check(fabs(r / (5.81 / 2.68) - 1.0) < 0.05, "W4A16 %.2f x the "
              "16-bit speed at M = 1 (measured 2.17; the byte ratio "
              "alone gives 3.6; fit residual)", r);
    double t2 = weight_gemm(h200, 1, 0.52), m2 = 23.84e-6 / 1.094;
    dam_check(fabs(t2 / m2 - 1.0) < 0.10, "H200 W4 at M = 1: %.2f us "
              "against %.2f us measured, out of sample", t2 * 1e6, m2 * 1e6);
    /* by construction: weights at the compute width pay no dequantisation */
    dam_check(weight_gemm(h100, 1, 2.0) == weight_gemm(h100, 1, 0.0),
              "16-bit weights: no dequantisation");
}

/* Costing options: g at bf16 and batch b under the framework fw. */
static void bf16_opts(dam_cost_opts *co, const dam_gpu *g,
                      const dam_framework *fw, double b)
{
    memset(co, 0, sizeof *co);
    co->gpu = g;
    co->fw = fw;
    co->prec = DAM_BF16;
    co->b = b;
}

/* One memory-bound kernel of 1e9 elements (2 GB at bf16), costed alone. */
static double mem_kernel(const dam_gpu *g)
{
    static dam_graph gr;
    one_op(&gr, "elementwise", DAM_OP_MEM)->elems = 1e9;
    dam_framework fw;
    dam_framework_default(&fw);
    dam_cost_opts co;
    bf16_opts(&co, g, &fw, 1.0);
    dam_graph_cost c;
    dam_device_cost(&gr, &co, &c);
    return c.kernel_time;
}

/*
 * Generation "gaudi" (Intel Gaudi 3: matrix engines and vector cores, no
 * SMs) turns off the device model's per-SM limits (by construction;
 * model/device.c no_sm). The GAUDI3 entry given 256 "SMs" at 1.6 GHz: its
 * GEMMs pay no wave quantization (288 tiles of 128 x 128 run at the rate
 * of 256), and its memory-bound kernels no bytes-per-SM-clock cap (one
 * "SM" at 1 MHz would cap them at 10 MB/s). The same entry relabelled as
 * Ada (no stream-K) pays both: the checks can tell the two apart.
 */
static void no_sm_limits(const dam_catalog *cat)
{
    const dam_gpu *g3 = gpu(cat, "GAUDI3");
    if (!g3)
        return;
    dam_check(!dam_device_per_sm(g3), "GAUDI3: no per-SM limits");
    dam_gpu g = *g3, ada;
    g.sms = 256;
    g.boost_hz = 1.6e9;
    ada = g;
    ada.gen = DAM_GEN_ADA;
    /* compute-bound (about 820 FLOP/B against a ridge of 450) */
    double r1 = tflops(&g, DAM_BF16, 1024, 4096, 16384);
    double r2 = tflops(&g, DAM_BF16, 1152, 4096, 16384);
    dam_check(fabs(r2 / r1 - 1.0) < 0.02,
              "Gaudi: 288 tiles run at the rate of 256 (%.3f x; no waves "
              "over SMs)", r2 / r1);
    double a1 = tflops(&ada, DAM_BF16, 1024, 4096, 16384);
    double a2 = tflops(&ada, DAM_BF16, 1152, 4096, 16384);
    dam_check(a2 / a1 < 0.7,
              "the same entry as Ada: 288 tiles on 256 SMs at %.3f x the "
              "rate of 256 (two waves against one)", a2 / a1);
    double rate = g.mem_bw * g.dev.mem.v;
    g.sms = ada.sms = 1;
    g.boost_hz = ada.boost_hz = 1e6;
    dam_framework fw;
    dam_framework_default(&fw);
    double want = 2e9 / (rate * fw.mem.v);
    dam_check_rel(mem_kernel(&g), want, 1e-9,
                  "Gaudi: a memory-bound kernel streams at m x bandwidth x "
                  "the framework's factor whatever its SM count and clock");
    dam_check(mem_kernel(&ada) > 100.0 * want,
              "the same entry as Ada with one SM at 1 MHz: capped by bytes "
              "per SM clock (%.3g s against %.3g s)", mem_kernel(&ada),
              want);
}

static void graph_cost(const dam_catalog *cat)
{
    static dam_graph g;
    const dam_model_spec *m = dam_catalog_model(cat, "resnet50");
    const dam_gpu *a = gpu(cat, "A100-SXM4-80GB");
    if (!m || !a)
        return;
    dam_graph_opts o;
    memset(&o, 0, sizeof o);
    dam_error e;
    dam_check_int(dam_graph_build(&g, m, &o, &e), DAM_OK, "ResNet-50 builds");
    dam_framework fw;
    dam_framework_default(&fw);
    dam_cost_opts co;
    bf16_opts(&co, a, &fw, 256);
    co.launch_s = 4e-6;
    dam_graph_cost c;
    double t = dam_device_cost(&g, &co, &c);
    double sum = 0.0, ph = 0.0;
    for (int p = 0; p < DAM_PASS_COUNT; p++)
        sum += c.pass_time[p];
    for (int i = 0; i < g.nphases; i++)
        ph += c.phase[i].time;
    dam_check(t > 0.0 && isfinite(t), "cost is positive: %.4g s", t);
    dam_check_rel(sum, t, 1e-9, "pass times add up to the GPU time");
    dam_check_rel(ph + c.gap_time, t, 1e-9,
                  "phase times + kernel gaps = GPU time");
    dam_check_rel(c.kernels, dam_graph_kernels(&g, -1), 1e-12,
                  "launches = the graph's kernels");
    dam_check_rel(c.gap_time, c.kernels * a->dev.kernel_gap.v, 1e-12,
                  "gaps = launches x kernel_gap");
    dam_check(c.host_excess == 0.0,
              "batch 256: launches hide behind GPU work");
    /* batch 1: the GPU is faster than the host issues kernels */
    co.b = 1;
    dam_device_cost(&g, &co, &c);
    dam_check(c.host_excess > 0.0,
              "batch 1: host launches exceed GPU work by %.3g s",
              c.host_excess);
    /* the legacy override: compute at peak x eta */
    co.b = 256;
    co.eta = 0.5;
    dam_device_cost(&g, &co, &c);
    double comp = 0.0;
    for (int i = 0; i < g.nphases; i++)
        comp += c.phase[i].t_compute;
    dam_check(comp > 0.0 && comp <= c.flops / (a->peak[DAM_BF16] * 0.5) *
                                         (1.0 + 1e-9),
              "eta override: compute time <= FLOPs / (peak x eta)");
    /* only the forward pass */
    co.eta = 0.0;
    co.pass_mask = 1 << DAM_PASS_FWD;
    dam_graph_cost f;
    dam_device_cost(&g, &co, &f);
    dam_check(f.time > 0.0 && f.pass_time[DAM_PASS_BWD] == 0.0,
              "pass mask costs the forward only");
}

static void params(const dam_catalog *cat)
{
    int n = dam_param_count();
    dam_check(n >= 15, "%d constants in the table", n);
    int gi = dam_param_find("gemm_frac", DAM_BF16);
    int mi = dam_param_find("mem_frac", -1);
    dam_check(gi >= 0 && mi >= 0 && dam_param_find("nope", -1) < 0,
              "constants found by key and precision");
    const dam_gpu *a0 = gpu(cat, "A100-SXM4-80GB");
    if (!a0 || gi < 0 || mi < 0)
        return;
    dam_gpu a = *a0;
    double *v, *sd;
    dam_check_int(dam_param_ref_gpu(gi, &a, &v, &sd), 0, "ref gemm_frac");
    dam_check_rel(*v, a0->dev.gemm[DAM_BF16].v, 0, "ref reads the value");
    double r0 = dam_device_gemm_rate(&a, DAM_BF16);
    *v *= 0.5;
    dam_check_rel(dam_device_gemm_rate(&a, DAM_BF16), 0.5 * r0, 1e-12,
                  "setting gemm_frac through its ref halves the rate");
    dam_check_int(dam_param_ref_gpu(mi, &a, &v, &sd), 0, "ref mem_frac");
    double tm = dam_device_mem_time(&a, 1e9);
    *v *= 2.0;
    dam_check_rel(dam_device_mem_time(&a, 1e9), 0.5 * tm, 1e-12,
                  "doubling mem_frac halves a memory-bound kernel");
    int fi = dam_param_find("conv_frac", DAM_BF16);
    dam_check(fi >= 0 && dam_param_get(fi)->scope == DAM_PARAM_FRAMEWORK &&
                  dam_param_ref_gpu(fi, &a, &v, &sd) == -1,
              "framework constants are not per GPU");
    /* collectives: nccl-tests bus-bandwidth convention */
    dam_check_rel(dam_device_collective_time(DAM_COMM_ALLREDUCE, 1e9, 8,
                                             200e9, 0.0),
                  1e9 * 2.0 * 7.0 / 8.0 / 200e9, 1e-12,
                  "all-reduce time = 2 (n-1)/n bytes / busbw");
    dam_check(dam_device_h2d_time(&a, 1e9, 0) >
                  dam_device_h2d_time(&a, 1e9, 1),
              "pageable copies are slower than pinned");
}

/* A GPU brings its own node fabric: a scenario without an intra-node figure
 * takes its GPU's, a gpu= lever moves it to the new GPU's (NVLink measured
 * by nccl-tests, or PCIe for a card without NVLink). */
static void lever_to(const dam_scenario *in, const char *kv,
                     const dam_catalog *cat, dam_scenario *out)
{
    dam_lever lv;
    dam_error e;
    *out = *in;
    int ok = dam_lever_parse_kv(kv, &lv, &e) == DAM_OK &&
             dam_lever_apply(in, &lv, cat, out, &e) == DAM_OK;
    dam_check(ok, "lever %s applies", kv);
}

static void fabric(dam_catalog *cat)
{
    const dam_gpu *a100 = dam_catalog_gpu(cat, "A100-SXM4-80GB");
    const dam_gpu *v100 = dam_catalog_gpu(cat, "V100-SXM2-16GB");
    const dam_gpu *t4 = dam_catalog_gpu(cat, "T4");
    dam_check_rel(dam_device_fabric_busbw(a100, 25e9), 234e9, 1e-12,
                  "A100 SXM4: its measured NVSwitch all-reduce busbw");
    dam_check_rel(dam_device_fabric_busbw(v100, 0.0), 0.78 * 150e9, 1e-12,
                  "V100 SXM2 (no measurement): 0.78 of NVLink per direction");
    dam_check_rel(dam_device_fabric_busbw(t4, 0.0), t4->dev.h2d.v, 1e-12,
                  "T4: the PCIe ring at its pinned copy rate");
    dam_check_rel(dam_device_fabric_busbw(t4, 5e9), 5e9, 1e-12,
                  "T4: at most the host's PCIe link");

    dam_scenario *s = dam_malloc(sizeof *s), *x = dam_malloc(sizeof *x);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_scenario_load(
        s, DAM_SOURCE_DIR "/tests/data/validation/resnet50-amp.cfg", NULL, cat,
        &d);
    dam_check_int(rc, DAM_OK, "one-GPU scenario without intra_busbw loads");
    dam_diag_free(&d);
    if (rc == DAM_OK) {
        dam_check_rel(s->machine.intra_busbw, 234e9, 1e-12,
                      "no intra_busbw_gbs: the A100's own fabric");
        lever_to(s, "gpus=8", cat, x);
        dam_check_rel(x->machine.intra_busbw, 234e9, 1e-12,
                      "moved to 8 GPUs by a lever: it has a fabric");
        lever_to(s, "gpu=H100-PCIE-80GB", cat, x);
        dam_check_rel(x->machine.intra_busbw, s->machine.pcie_bw, 1e-12,
                      "gpu=H100 PCIe: PCIe (the host link), not NVSwitch");
        lever_to(s, "gpu=H100-SXM5-80GB", cat, x);
        dam_check_rel(x->machine.intra_busbw, 365.6e9, 1e-12,
                      "gpu=H100 SXM5: its own NVSwitch figure");
    }
    dam_free(x);
    dam_free(s);
}

/* The L2 bandwidth a GPU without an l2_gbs entry gets: 0.69 (Jia et al.
 * 2018, 2156 of 3133 GB/s on V100) of the peak read bandwidth the
 * whitepapers give: A100 7219 GB/s (5120 B/clk at 1410 MHz), V100
 * 3133 GB/s (2048 B/clk at 1530 MHz). (Mutation testing: the per-SM rate
 * divided by the clock instead went unnoticed.) */
static void l2_derived(dam_catalog *cat)
{
    const dam_gpu *a100 = dam_catalog_gpu(cat, "A100-SXM4-80GB");
    const dam_gpu *v100 = dam_catalog_gpu(cat, "V100-SXM2-16GB");
    dam_check_rel(a100->dev.l2_bw.v, 0.69 * 7219e9, 0.005,
                  "A100 L2: 0.69 of the whitepaper's 7219 GB/s");
    dam_check_rel(v100->dev.l2_bw.v, 0.69 * 3133e9, 0.005,
                  "V100 L2: 0.69 of 3133 GB/s (Jia et al. measured 2156)");
    /* the A100's L2 is two partitions, each caching what its SMs read
     * (shared data held twice: half usable); a GA102 Ampere part such as
     * the A10 (6 MiB) has one (mutation testing: every Ampere part split
     * went unnoticed) */
    const dam_gpu *a10 = dam_catalog_gpu(cat, "A10");
    dam_check(a100->dev.l2_frac.v < a10->dev.l2_frac.v,
              "A100's split L2 keeps a smaller usable share than the A10's "
              "monolithic one (%.2f < %.2f)", a100->dev.l2_frac.v,
              a10->dev.l2_frac.v);
}

int main(void)
{
    dam_catalog cat = {0};
    dam_test_start(&cat);
    complete(&cat);
    fit_residuals(&cat);
    out_of_sample(&cat);
    gemm_model(&cat);
    gemm_shape(&cat);
    w4a16(&cat);
    no_sm_limits(&cat);
    graph_cost(&cat);
    params(&cat);
    fabric(&cat);
    l2_derived(&cat);
    dam_catalog_free(&cat);
    return dam_check_done();
}
