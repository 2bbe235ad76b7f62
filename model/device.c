/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * device.c: costing operators on a GPU (see device.h for the formulas),
 * generation defaults of the device constants, and the table of constants
 * by key.
 *
 * Hot path. dam_device_cost runs once per analytic evaluation, over every
 * operator of a model's graph, so it avoids divisions where a reciprocal
 * can be hoisted and ceil() from libm (a call without SSE4.1): ceil_pos
 * below is two instructions for the positive, moderate values it sees.
 * The GEMMs' tiles, DRAM times and waves are worked out side by side in
 * branch-free loops the compiler vectorises (gemm_shapes_all,
 * gemm_waves_all): in a vector a division costs less than a mispredicted
 * branch, and the operations are the one-GEMM functions' own.
 */
#include "model/device.h"

#include "model/recipe.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#define US 1e-6
#define GB 1e9

/* Share of the per-direction NVLink bandwidth a one-node nccl-tests
 * all-reduce reaches, and of the per-direction PCIe bandwidth a pinned
 * host copy reaches (dam_device_complete says from which measurements). */
#define NVLINK_ALLREDUCE_SHARE 0.78
#define PINNED_COPY_SHARE 0.8

/* Prior of the framework's bytes per SM clock on memory-bound kernels
 * (dam_framework.sm_bpc), B/cycle/SM: streaming copies saturate the DRAM
 * of A100 and H100 at 10.3 per SM clock (DEV membw_A100*, membw_H100*:
 * m_g x bandwidth over SMs x boost clock), which is the most a kernel must
 * keep in flight there; a framework's norms and activations keep less, by
 * how much the fit says (sd 3: a third of it either way). */
#define SM_BPC_PRIOR 10.0
#define SM_BPC_PRIOR_SD 3.0

/* ceil and floor for x >= 0 (tile and wave counts) without libm calls
 * (ceil() is a call without SSE4.1) and without a round trip through the
 * integer unit: adding 2^52 leaves no fraction bits, so (x + 2^52) - 2^52
 * is x rounded to the nearest integer under the default rounding mode,
 * exact for 0 <= x < 2^52 (from 2^52 on, where every double is an
 * integer, it may be one unit in the last place off: a relative 2^-52 on
 * counts that large). This needs arithmetic at double precision
 * (FLT_EVAL_METHOD 0: SSE2, AArch64, ...); x87's excess precision would
 * keep the fraction, so there the library's nearbyint() is used. */
static inline double round_pos(double x)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    return (x + 0x1p52) - 0x1p52;
#else
    return nearbyint(x);
#endif
}

static inline double ceil_pos(double x)
{
    double t = round_pos(x);
    return t < x ? t + 1.0 : t;
}

static inline double floor_pos(double x)
{
    double t = round_pos(x);
    return t > x ? t - 1.0 : t;
}

/* ---- generation defaults -------------------------------------------- */

/*
 * Defaults for constants a GPU entry does not give (data/README.md "Device
 * model" has the derivations). Where a generation has no measurement the
 * value is the across-GPU mean with a wide standard deviation, so that
 * intervals show the ignorance.
 *  - gemm: mean of the fitted c_g,p of the measured GPUs (gpus.cfg), sd
 *    their spread widened to 0.08.
 *  - mem: public-devices.csv membw_*_fluidx3d rows, mean 0.78 of the
 *    datasheet bandwidth (0.66 to 0.85), sd 0.05.
 *  - attention: public-devices.csv fa2_A100_kernel_eff ("50-73 % of peak
 *    on A100", FlashAttention-2 forward and backward: forward 0.65,
 *    backward 0.5); Hopper through PyTorch SDPA runs FlashAttention-2
 *    kernels at fa_H100_FA2_fp16_* 309-370 of 989 TFLOP/s (0.35; backward
 *    taken as 0.8 x forward, as on A100); other generations: no row,
 *    Ampere's value with sd 0.15.
 *  - kernel gaps: launch_B200_direct_total (a 24 us kernel took 28.3 us
 *    launched directly, 25.8 us replayed from a CUDA graph) bounds the
 *    GPU-side cost per kernel at 4.3 and 1.8 us including the launch
 *    itself; back-to-back queued kernels pay only the GPU part: 1.0 +- 0.5
 *    us eager, 0.5 +- 0.3 us in a graph.
 *  - host copies: h2d_V100_gen3_bam 12 of 16 GB/s, h2d_A100_gen4_nvbw 25.1
 *    of 32, h2d_H200_gen5_nvbw 55.4 of 64: pinned copies reach 0.8 of the
 *    link per direction (sd 0.05); pageable: 0.5 +- 0.2 of pinned (no row;
 *    the scenario key machine.host.pageable_fraction overrides).
 */
typedef struct gen_defaults {
    double tile_m, tile_n;
    int stream_k; /* cuBLASLt's stream-K / persistent kernels (Hopper and
                   * later) hide wave quantization */
    double attn_fwd, attn_fwd_sd, attn_bwd, attn_bwd_sd;
    double l2_bpc;  /* peak L2 read bytes per clock per SM */
    double l2_sd;   /* relative sd of the achieved L2 bandwidth */
    int l2_split;   /* 1: the L2 is two partitions that each cache what
                     * their SMs read (shared data held twice) */
    int no_sm;      /* 1: no SMs (Gaudi's matrix engines and vector
                     * cores): the per-SM limits are off (gemm_setup,
                     * cost_mem_setup) */
} gen_defaults;

/*
 * L2 (see data/README.md "L2 residency"). Peak L2 read bandwidth per clock:
 * V100 2048 B/clk (3133 GB/s at 1530 MHz) and A100 5120 B/clk (7219 GB/s
 * at 1410 MHz; A100 whitepaper: "2.3x the L2 cache read bandwidth of
 * V100"), H100 5120 B/clk (8986 GB/s at 1755 MHz): Table 3 of PMC10448217
 * (hardware features of Volta, Ampere, Hopper), per SM 2048 / 80, 5120 /
 * 108, 5120 / 132. Turing takes Volta's per-SM figure, Ada Ampere's,
 * Blackwell Hopper's (no public figure: sd 0.3). Achieved: 0.69 of the
 * peak, Jia et al. 2018 ("Dissecting the NVIDIA Volta GPU architecture via
 * microbenchmarking") measured 2156 GB/s on V100 (the fraction is applied
 * in dam_device_complete). MI300X: AMD CDNA 3 whitepaper, Infinity Cache
 * peak 17.2 TB/s over 304 CUs at 2100 MHz = 26.9 B/clk per CU.
 * Split L2: GA100, GH100 and GB100 (A100 whitepaper: "each L2 partition
 * localizes and caches data for memory accesses from SMs in the GPCs
 * directly connected to the partition").
 */
static const gen_defaults gen_table[DAM_GEN_COUNT] = {
    /* tiles: 128 x 128 CTA tiles of cuBLAS/CUTLASS 2.x kernels; Hopper and
     * Blackwell warp-specialized kernels use 128 x 256 (CUTLASS 3.x
     * examples/48_hopper_warp_specialized_gemm) */
    [DAM_GEN_UNKNOWN] = {128, 128, 0, 0.55, 0.15, 0.45, 0.15, 25.6, 0.4, 0},
    [DAM_GEN_VOLTA] = {128, 128, 0, 0.45, 0.15, 0.35, 0.15, 25.6, 0.1, 0},
    [DAM_GEN_TURING] = {128, 128, 0, 0.45, 0.15, 0.35, 0.15, 25.6, 0.3, 0},
    [DAM_GEN_AMPERE] = {128, 128, 0, 0.65, 0.08, 0.50, 0.08, 47.4, 0.2, 1},
    [DAM_GEN_ADA] = {128, 128, 0, 0.60, 0.15, 0.45, 0.15, 47.4, 0.3, 0},
    [DAM_GEN_HOPPER] = {128, 256, 1, 0.35, 0.05, 0.28, 0.05, 38.8, 0.2, 1},
    [DAM_GEN_BLACKWELL] = {128, 256, 1, 0.45, 0.15, 0.36, 0.15, 38.8, 0.3, 1},
    [DAM_GEN_CDNA3] = {128, 128, 0, 0.40, 0.15, 0.32, 0.15, 26.9, 0.3, 0},
    /* Gaudi: no tiles over SMs (the graph compiler spreads a GEMM over the
     * 8 matrix engines, Kaplan, Hot Chips 2024, "Intel Gaudi 3 AI
     * Accelerator" slide 4); fused attention without a measurement: the
     * other non-NVIDIA part's assumption (CDNA3's); no per-SM L2 figure
     * (an entry gives l2_gbs) */
    [DAM_GEN_GAUDI] = {128, 128, 0, 0.40, 0.15, 0.32, 0.15, 0.0, 0.3, 0, 1},
};

/* Achieved share of the peak L2 bandwidth (Jia et al. 2018, V100: 2155.88
 * of 3133 GB/s). */
#define L2_ACHIEVED 0.69

/*
 * Fixed GPU time of one GEMM kernel beyond its waves and the kernel gap
 * (gemm_join): 2.0 us, fitted (grid of 0 to 3.5 us by 0.5) on public
 * cuBLAS bf16 timings by shape on B200 (torch.mm, triton do_bench): the
 * square 1024^3 to 8192^3 rows of pytorch/ao PR #2427 (bench_matmul.py)
 * and the M = 1 to 1024, N = 6144, K = 4096 rows of vllm-project/vllm PR
 * #18778 (bench_fp8_gemm.py, torch-bf16 column), with the B200's level
 * taken as those rows' plateau (1420 TFLOP/s at 4096^3 to 8192^3), plus
 * the H100 rows of vllm PR #49363 (gemma-4-31B shapes, M = 1 to 256).
 * Fit residuals, log of measured over modelled speed with the kernel gap:
 * rms 0.065 on the 14 B200 rows and the one H100 row near the ridge
 * (1024^3 +7 %, 1536^3 -3 %, 2048^3 +1 %; before: +85, +29, +17 %). A
 * near-ridge term (neither side hiding the other) did not improve the fit
 * and is not modelled. No per-shape rows were found for other
 * generations: every generation takes the Blackwell figure (the fill is
 * one DRAM round trip and the epilogue one store of a tile, which do not
 * scale with the peak).
 */
#ifndef GEMM_T0
#define GEMM_T0 2.0e-6
#endif

/*
 * Dequantisation in weight-only quantized GEMMs (weights stored narrower
 * than a 16-bit compute format: the cost option weight_elem, a W4A16 or
 * W8A16 decode; not W4A4 or FP8 formats the tensor cores take): the
 * kernel unpacks and scales every weight on the SMs, DEQ_WPC weights per
 * SM per clock, and that time overlaps the GEMM's own (its compute or its
 * weight streaming, whichever binds) only in part: the two are joined by
 * a 2-norm, sqrt(t_gemm^2 + t_dq^2). 14.4, fitted on one shape on one
 * GPU: N = K = 8192 on an H100 SXM, Marlin W4A16 at M = 1, 2, 4 and 8
 * (inclusionAI/humming PR #2, the table of the 2026-03-30 comment: 5.81,
 * 11.63, 23.14 and 46.36 TFLOP/s, 23.1 to 23.2 us each, where its weight
 * bytes take 12 us), with the kernel gap and GEMM_T0; weights at 0.52
 * bytes. Fit residuals -0.5 to +0.0 % (test_device w4a16). Out of sample:
 * Marlin W8A16 in the same table (4.29 to 34.1 TFLOP/s, 31.2 to 31.5 us;
 * weights at 1.02 bytes): +2.2 to +3.2 % (the earlier sum on the compute
 * side, 12.9 per clock, left it bytes-bound at 26.1 us, -15 %); the
 * Marlin W4 baseline of tile-ai/TileOPs PR #2159 at (1, 8192, 8192) on
 * an H200 (the same SMs and clock, 1.4 times the bandwidth): 21.8 us
 * measured, 21.4 modelled. On one shape a cost per weight and a fixed
 * cost per kernel cannot be told apart; per weight is assumed.
 */
#ifndef DEQ_WPC
#define DEQ_WPC 14.4
#endif

static void fill(dam_est *e, double v, double sd)
{
    if (!(e->v > 0.0)) {
        e->v = v;
        e->sd = sd;
    }
}

void dam_device_complete(dam_gpu *g)
{
    dam_device *d = &g->dev;
    unsigned gi = (unsigned)g->gen < DAM_GEN_COUNT ? (unsigned)g->gen : 0u;
    const gen_defaults *t = &gen_table[gi];
    if (!(d->tile_m > 0.0))
        d->tile_m = t->tile_m;
    if (!(d->tile_n > 0.0))
        d->tile_n = t->tile_n;
    /* GEMM: a precision without its own fit takes the mean of the
     * tensor-core fits of this GPU, else the catalog-wide prior */
    double sum = 0.0;
    int n = 0;
    for (int p = DAM_TF32; p < DAM_PREC_COUNT; p++)
        if (d->gemm[p].v > 0.0) {
            sum += d->gemm[p].v;
            n++;
        }
    double own = n > 0 ? sum / n : 0.0;
    for (int p = 0; p < DAM_PREC_COUNT; p++) {
        if (p == DAM_FP32)
            fill(&d->gemm[p], 0.85, 0.08);
        else if (own > 0.0)
            fill(&d->gemm[p], own, 0.08);
        else
            fill(&d->gemm[p], 0.75, 0.10);
    }
    fill(&d->mem, 0.78, 0.05);
    fill(&d->attn_fwd, t->attn_fwd, t->attn_fwd_sd);
    fill(&d->attn_bwd, t->attn_bwd, t->attn_bwd_sd);
    fill(&d->kernel_gap, 1.0 * US, 0.5 * US);
    fill(&d->graph_gap, 0.5 * US, 0.3 * US);
    if (g->pcie_bw > 0.0)
        fill(&d->h2d, PINNED_COPY_SHARE * g->pcie_bw / 2.0,
             0.05 * g->pcie_bw / 2.0);
    /* one-node all-reduce without a measurement: NVLink parts reach 0.78
     * of their per-direction link bandwidth (nccl_A100_8gpu_allreduce
     * 234 of 300, nccl_H200_8gpu_allreduce_ring 365.6 of 450,
     * nccl_B200_8gpu_allreduce_ring 682.2 of 900: 0.78, 0.81, 0.76);
     * PCIe cards ring over their host link at about their pinned copy
     * rate per direction (no public nccl-tests figure: a wide sd) */
    if (g->link_bw > 0.0)
        fill(&d->busbw, NVLINK_ALLREDUCE_SHARE * g->link_bw / 2.0,
             0.03 * g->link_bw / 2.0);
    else if (d->h2d.v > 0.0)
        fill(&d->busbw, d->h2d.v, 0.3 * d->h2d.v);
    fill(&d->pageable, 0.5, 0.2);
    if (!(g->sms > 0))
        g->sms = 1;
    /* L2: peak bytes per clock x SMs x boost clock x achieved share; the
     * split L2 of the big data-centre dies holds shared data twice (a
     * GA102 Ampere part has a monolithic L2: under 20 MiB means GA10x) */
    if (g->boost_hz > 0.0) {
        double bw = L2_ACHIEVED * t->l2_bpc * g->sms * g->boost_hz;
        fill(&d->l2_bw, bw, t->l2_sd * bw);
    }
    int split = t->l2_split &&
                !(g->gen == DAM_GEN_AMPERE && g->l2_bytes < 20.0 * 1048576.0);
    fill(&d->l2_frac, split ? 0.5 : 0.75, split ? 0.1 : 0.15);
}

/*
 * Framework defaults (PyTorch eager with cuDNN/cuBLAS), fitted on NVIDIA's
 * own ResNet-50 training rows of public-cases.csv (DeepLearningExamples
 * PyTorch, pytorch-21.03, batch 256): dle_rn50_a100_1gpu_amp 2470,
 * dle_rn50_a100_1gpu_tf32 938, dle_rn50_v100_1gpu_amp 1200 and
 * dle_rn50_v100_1gpu_fp32 367 images/s, by least squares in log space
 * with tests/validation/fit_framework.py (data/README.md "Framework
 * constants": residuals +2.5, 0, -2, 0 %, with the memory-bound kernels'
 * bytes per SM clock at its prior, SM_BPC_PRIOR; AMP in channels-last,
 * TF32 and FP32 in channels-first, as NVIDIA's configs.yml runs them). The
 * fp16 rows are mostly memory-bound, so the fp16 factor is poorly
 * determined: sd 0.15. TF32 convolutions reach 0.43 of the GEMM rate on
 * A100 (cuDNN's TF32 kernels). bf16 takes fp16's value (same tensor path); fp8 and int8 have
 * no row (1 +- 0.15). The sd of the others is their fit's spread.
 * gemm (GEMMs other than convolutions): 0.788 +- 0.08 (fit se 0.032,
 * residual sd 0.080), fitted on the five llm-foundry MPT rows on A100
 * (llmf_MPT-*_a100, 1B to 70B; residuals +6, +2, +10, -9, -6 %): a
 * training step's GEMMs run at 79 % of the microbenchmark rate (smaller
 * and skinnier shapes, epilogues).
 */
void dam_framework_default(dam_framework *fw)
{
    for (int p = 0; p < DAM_PREC_COUNT; p++)
        fw->conv[p] = (dam_est){1.0, 0.15};
    fw->conv[DAM_FP16] = (dam_est){0.969, 0.15};
    fw->conv[DAM_BF16] = (dam_est){0.969, 0.15};
    fw->conv[DAM_TF32] = (dam_est){0.428, 0.03};
    fw->conv[DAM_FP32] = (dam_est){1.074, 0.08};
    fw->mem = (dam_est){0.998, 0.07};
    fw->sm_bpc = (dam_est){SM_BPC_PRIOR, SM_BPC_PRIOR_SD};
    fw->gemm = (dam_est){0.788, 0.08};
    fw->launch_sd = 2.0 * US;
    fw->step_sd = 0.0;
}

/* ---- costing -------------------------------------------------------- */

/* Everything a GEMM needs that is fixed for one costing run. */
typedef struct gemm_ctx {
    double rate;     /* achieved FLOP/s of a full wave (peak x c) */
    double inv_rate; /* 1 / rate */
    double sms;      /* SMs */
    double inv_sms;
    double tm, tn;   /* tile */
    double itm, itn; /* 1 / tile */
    double unit;     /* SMs x 2 tm tn / rate: s per wave per unit of k */
    double inv_bw;   /* s per byte at the achieved memory rate */
    double elem;     /* bytes per GEMM operand element */
    double legacy;   /* 1: no wave model (eta override) */
    double t0;       /* fixed GPU time of one GEMM kernel's tile pipeline
                      * (fill and epilogue), s; 0 under eta */
    int stream_k;    /* 1: the library balances partial waves (Hopper+) */
    int no_waves;    /* 1: no waves of tiles over SMs (Gaudi): a GEMM's
                      * compute time is its FLOPs at the rate */
    int ncfg;        /* dam_op.nshift index for tile width tn (0: 128,
                      * 1: 256), -1: narrow N tiles on the fly */
} gemm_ctx;

/* 2^-s for the tile halvings of dam_op.nshift (at most 4: 256 -> 16). */
static const double pow2_neg[8] = {1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125,
                                   0.015625, 0.0078125};

/*
 * The compute time of one GEMM of m x n x k in `groups` products, in two
 * steps (the costing runs each over all of a graph's GEMMs in turn, which
 * keeps few values live). Its tiles of the library's size (tm x tn,
 * narrower down to 16 for a small M or N) are counted over the SMs:
 * unit = SMs x 2 tm tn / rate is the time of one wave per unit of k.
 *
 * gemm_tiles: the tile count; *unit gets the unit of the tiles chosen.
 * ntp, nsh: the op's precomputed N-tile counts and halvings for the two
 * library tile widths (dam_op.ntiles, nshift), or NULL to derive them.
 */
static inline double gemm_tiles(const gemm_ctx *c, double m, double n,
                                double groups, const double *ntp,
                                const unsigned char *nsh, double *unit_out)
{
    double tm = c->tm, itm = c->itm, unit = c->unit, ntl;
    if (m <= 0.5 * tm)
        while (tm > 16.0 && m <= 0.5 * tm) {
            tm *= 0.5;
            itm *= 2.0;
            unit *= 0.5;
        }
    if (ntp && c->ncfg >= 0) {
        ntl = ntp[c->ncfg];
        unit *= pow2_neg[nsh[c->ncfg] & 7u];
    } else {
        double tn = c->tn, itn = c->itn;
        while (tn > 16.0 && n <= 0.5 * tn) {
            tn *= 0.5;
            itn *= 2.0;
            unit *= 0.5;
        }
        ntl = ceil_pos(n * itn);
    }
    *unit_out = unit;
    return ceil_pos(m * itm) * ntl * groups;
}

/* gemm_waves: the time of `tiles` tiles over k (tfl: the GEMM's FLOPs at
 * the full-wave rate, its floor), s. */
/* The waves' time is (a x unit) x b: a and b depend on the tiles and k
 * only, not on the rate (wave_factors), so that interval draws, which
 * change the rate and nothing else, work them out once. */
static inline void wave_factors(const gemm_ctx *c, double tiles, double k,
                                double *a, double *b)
{
    if (c->stream_k) {
        /* stream-K / persistent kernels spread the work evenly over the
         * SMs; a GEMM too small to split (K chunks of 256) cannot use
         * them all */
        double kc = floor_pos(k * (1.0 / 256.0));
        double chunks = tiles * (kc > 1.0 ? kc : 1.0);
        *a = chunks < c->sms ? tiles / chunks : tiles * c->inv_sms;
        *b = k;
    } else if (tiles >= c->sms) {
        /* whole waves; from four waves on, the library's choice among its
         * tile shapes fills the tail wave (about as well as a fractional
         * wave), so quantization is charged only below */
        double w = tiles * c->inv_sms;
        *a = w < 4.0 ? ceil_pos(w - 1e-9) : w;
        *b = k;
    } else {
        /* split-K over the idle SMs, chunks of at least 256 (a = 1: one
         * wave of unit, exactly) */
        double split = floor_pos(c->sms / (tiles > 1.0 ? tiles : 1.0));
        double maxs = floor_pos(k * (1.0 / 256.0));
        if (split > maxs)
            split = maxs;
        if (split < 1.0)
            split = 1.0;
        *a = 1.0;
        *b = ceil_pos(k / split);
    }
}

static inline double gemm_waves(const gemm_ctx *c, double tiles, double unit,
                                double k, double tfl)
{
    if (c->legacy || c->no_waves)
        return tfl;
    double a, b;
    wave_factors(c, tiles, k, &a, &b);
    double tc = a * unit * b;
    return tc > tfl ? tc : tfl;
}

/*
 * gemm_join: one GEMM's time from its waves' time tc and its DRAM time tm,
 * the longer of the two. The tile pipeline adds a fixed t0 to the compute
 * side (the first tiles' loads before any math, the last tiles' epilogue
 * after it), which a memory-bound GEMM hides under its streaming. *cb: 1
 * when the compute side is the longer.
 */
static inline double gemm_join(const gemm_ctx *c, double tc, double tm,
                               int *cb)
{
    tc += c->t0;
    *cb = tc >= tm;
    return tc >= tm ? tc : tm;
}

/* Time of one GEMM and whether compute bound. */
static inline double gemm_t(const gemm_ctx *c, double m, double n, double k,
                            double groups, int *cb)
{
    double unit, tiles = gemm_tiles(c, m, n, groups, NULL, NULL, &unit);
    double tc = gemm_waves(c, tiles, unit, k,
                           2.0 * m * n * k * groups * c->inv_rate);
    double tm_ = c->elem * (m * k + k * n + m * n) * groups * c->inv_bw;
    int b;
    double t = gemm_join(c, tc, tm_, &b);
    if (cb)
        *cb = b;
    return t;
}

static double gemm_peak(const dam_gpu *g, dam_precision p)
{
    double pk = (unsigned)p < DAM_PREC_COUNT ? g->peak[p] : 0.0;
    return pk > 0.0 ? pk : g->peak[DAM_FP32];
}

static void gemm_setup(gemm_ctx *c, const dam_gpu *g, dam_precision p,
                       double elem, double mem_frac)
{
    double c_g = g->dev.gemm[(unsigned)p < DAM_PREC_COUNT ? p : 0].v;
    c->rate = gemm_peak(g, p) * (c_g > 0.0 ? c_g : 0.75);
    c->inv_rate = 1.0 / c->rate;
    c->sms = g->sms > 0 ? g->sms : 1;
    c->inv_sms = 1.0 / c->sms;
    c->tm = g->dev.tile_m > 0.0 ? g->dev.tile_m : 128.0;
    c->tn = g->dev.tile_n > 0.0 ? g->dev.tile_n : 128.0;
    c->itm = 1.0 / c->tm;
    c->itn = 1.0 / c->tn;
    c->unit = c->sms * 2.0 * c->tm * c->tn * c->inv_rate;
    c->inv_bw = 1.0 / (g->mem_bw * mem_frac);
    c->elem = elem;
    c->legacy = 0.0;
    unsigned gi = (unsigned)g->gen < DAM_GEN_COUNT ? (unsigned)g->gen : 0u;
    c->stream_k = gen_table[gi].stream_k;
    c->no_waves = gen_table[gi].no_sm;
    c->t0 = GEMM_T0;
    c->ncfg = c->tn == 128.0 ? 0 : c->tn == 256.0 ? 1 : -1;
}

double dam_device_gemm_time(const dam_gpu *gpu, dam_precision p, double m,
                            double n, double k, double groups, double elem,
                            int *compute_bound)
{
    gemm_ctx c;
    double mf = gpu->dev.mem.v > 0.0 ? gpu->dev.mem.v : 0.78;
    gemm_setup(&c, gpu, p, elem, mf);
    return gemm_t(&c, m, n, k, groups > 0.0 ? groups : 1.0, compute_bound);
}

int dam_device_per_sm(const dam_gpu *gpu)
{
    unsigned gi = (unsigned)gpu->gen < DAM_GEN_COUNT ? (unsigned)gpu->gen
                                                      : 0u;
    return !gen_table[gi].no_sm;
}

double dam_device_gemm_rate(const dam_gpu *gpu, dam_precision p)
{
    double c_g = gpu->dev.gemm[(unsigned)p < DAM_PREC_COUNT ? p : 0].v;
    return gemm_peak(gpu, p) * (c_g > 0.0 ? c_g : 0.75);
}

double dam_device_mem_time(const dam_gpu *gpu, double bytes)
{
    double mf = gpu->dev.mem.v > 0.0 ? gpu->dev.mem.v : 0.78;
    return bytes / (gpu->mem_bw * mf);
}

double dam_device_collective_time(dam_comm_kind kind, double bytes, int ranks,
                                  double busbw, double alpha)
{
    if (ranks < 2 || !(busbw > 0.0))
        return 0.0;
    double n = ranks;
    double f = kind == DAM_COMM_ALLREDUCE ? 2.0 * (n - 1.0) / n
                                          : (n - 1.0) / n;
    double hops = kind == DAM_COMM_ALLREDUCE ? 2.0 * (n - 1.0) : n - 1.0;
    return bytes * f / busbw + hops * alpha;
}

double dam_device_fabric_busbw(const dam_gpu *gpu, double host_pcie_bw)
{
    const dam_device *d = &gpu->dev;
    if (gpu->link_bw > 0.0)
        return d->busbw.v > 0.0 ? d->busbw.v
                                : NVLINK_ALLREDUCE_SHARE * gpu->link_bw / 2.0;
    double bw = d->busbw.v > 0.0 ? d->busbw.v
                : d->h2d.v > 0.0 ? d->h2d.v
                                 : PINNED_COPY_SHARE * gpu->pcie_bw / 2.0;
    if (host_pcie_bw > 0.0 && (!(bw > 0.0) || host_pcie_bw < bw))
        bw = host_pcie_bw;
    return bw > 0.0 ? bw : 0.0;
}

double dam_device_h2d_time(const dam_gpu *gpu, double bytes, int pinned)
{
    double bw = gpu->dev.h2d.v > 0.0 ? gpu->dev.h2d.v : 0.4 * gpu->pcie_bw;
    if (!pinned)
        bw *= gpu->dev.pageable.v > 0.0 ? gpu->dev.pageable.v : 0.5;
    return bw > 0.0 ? bytes / bw : 0.0;
}

static double or1(double v)
{
    return v > 0.0 ? v : 1.0;
}

/* DRAM-time factor of a kernel moving w bytes (its working set): 1 -
 * h x save, h = clamp(2 - w / C) the share served from L2 (inv_c = 1 / C,
 * 0 when the GPU has no usable L2 figure). */
static inline double l2_factor(double w, double inv_c, double save)
{
    double h = 2.0 - w * inv_c;
    /* clamped to [0, 1] in the form of maxsd/minsd (NaN gives 0) */
    h = h > 0.0 ? h : 0.0;
    h = h < 1.0 ? h : 1.0;
    return 1.0 - h * save;
}

/* What one costing run derives from its options before it visits the
 * operators: rates, widths and the GEMM contexts (gc: GEMMs, cc:
 * convolutions, lc: a recipe's linear layers). */
typedef struct cost_ctx {
    double b, pelem, act, fs, bs, ws, ps, mfrac;
    double inv_mem_k; /* s per byte of a framework memory-bound kernel */
    double inv_mem;   /* s per byte at the achieved DRAM rate */
    double lowp;      /* 1: a precision below 4 bytes */
    double kv_el, w_extra, welem, mem_keep;
    int wspecial;     /* 1: weight operands at their own width or streamed */
    int weights_stream;
    double inv_l2c, l2_save;
    gemm_ctx gc, cc, lc;
    const gemm_ctx *lcp; /* &lc with a recipe on the wave model, else &gc */
    const dam_recipe *rc;
    double lelem, cast_b;
    double inv_af, inv_ab, gap;
    double inv_dq;  /* s per weight dequantized (DEQ_WPC); 0: none */
} cost_ctx;

/* Step 1: memory rates (the framework's kernels, DRAM, L2 residency) and
 * the operand widths of serving layouts. */
static void cost_mem_setup(cost_ctx *x, const dam_cost_opts *o,
                           const dam_framework *fw)
{
    const dam_gpu *gpu = o->gpu;
    x->b = or1(o->b);
    x->pelem = dam_precision_bytes(o->prec);
    x->act = o->act_elem > 0.0 ? o->act_elem : x->pelem;
    x->fs = or1(o->flops_scale);
    x->bs = or1(o->bytes_scale);
    x->ws = or1(o->weight_scale);
    x->ps = or1(o->matmul_peak_scale);
    x->mfrac = o->mem_frac > 0.0 ? o->mem_frac
               : gpu->dev.mem.v > 0.0 ? gpu->dev.mem.v : 0.78;
    double mem_rate = gpu->mem_bw * x->mfrac;
    double fw_mem = fw->mem.v > 0.0 ? fw->mem.v : 1.0;
    double inv_mem_k = 1.0 / (mem_rate * (o->eta > 0.0 ? 1.0 : fw_mem));
    /* the framework's kernels move at most sm_bpc bytes per SM clock: the
     * slower of the two limits, joined smoothly (a 4-norm of the two
     * times, so either limit always has some say and a fit can move it);
     * a generation without SMs has no such limit */
    int per_sm = dam_device_per_sm(gpu);
    double sm_rate = per_sm ? fw->sm_bpc.v * gpu->sms * gpu->boost_hz : 0.0;
    if (!(o->eta > 0.0) && sm_rate > 0.0) {
        double a = inv_mem_k * inv_mem_k, c = 1.0 / (sm_rate * sm_rate);
        inv_mem_k = sqrt(sqrt(a * a + c * c));
    }
    x->inv_mem_k = inv_mem_k;
    x->inv_mem = 1.0 / mem_rate;
    x->lowp = x->pelem < 4.0;
    /* serving: weights and the KV cache may be narrower than the compute */
    x->kv_el = o->kv_elem > 0.0 ? o->kv_elem : x->act;
    x->w_extra = o->weight_elem > 0.0 ? o->weight_elem - x->pelem : 0.0;
    x->mem_keep = 1.0 - (o->mem_fused > 0.0 ? o->mem_fused : 0.0);
    x->weights_stream = o->weights_stream;
    x->wspecial = x->w_extra != 0.0 || o->weights_stream;
    x->welem = o->weight_elem > 0.0 ? o->weight_elem : x->pelem;
    /* 16-bit compute only: FP4 and FP8 weights under an FP8 (or FP4)
     * compute format go into the tensor cores as they are; a rate per SM
     * clock, so none on a generation without SMs */
    x->inv_dq = x->w_extra < 0.0 && x->pelem >= 2.0 && !(o->eta > 0.0) &&
                        per_sm && gpu->sms > 0 && gpu->boost_hz > 0.0
                    ? 1.0 / (DEQ_WPC * gpu->sms * gpu->boost_hz)
                    : 0.0;
    /* L2 residency: a kernel whose working set W fits the usable L2 C is
     * served from L2; above 2 C nothing survives between producer and
     * consumer (streaming reuse under LRU); linear in between. A hit
     * saves l2_save of the DRAM time of its bytes. */
    double l2c = gpu->l2_bytes * (gpu->dev.l2_frac.v > 0.0
                                      ? gpu->dev.l2_frac.v : 0.0);
    x->inv_l2c = l2c > 0.0 ? 0.5 / l2c : 0.0;
    x->l2_save = gpu->dev.l2_bw.v > mem_rate && x->inv_l2c > 0.0
                     ? 1.0 - mem_rate / gpu->dev.l2_bw.v
                     : 0.0;
}

/* Step 2: the GEMM and convolution contexts at the framework's share of
 * the microbenchmark rate (or the legacy eta override), and a recipe's
 * linear-layer context with its cast traffic. */
static void cost_gemm_setup(cost_ctx *x, const dam_cost_opts *o,
                            const dam_framework *fw)
{
    const dam_gpu *gpu = o->gpu;
    gemm_ctx *gc = &x->gc, *cc = &x->cc;
    double ps = x->ps;
    gemm_setup(gc, gpu, o->prec, x->pelem, x->mfrac);
    gc->rate *= ps;
    if (o->eta > 0.0) {
        gc->rate = gemm_peak(gpu, o->prec) * ps * o->eta;
        gc->legacy = 1.0;
        gc->t0 = 0.0;
    }
    *cc = *gc;
    if (!gc->legacy) {
        /* the framework's share of the microbenchmark rate: GEMMs, and
         * convolutions (cuDNN) per precision */
        unsigned pi = (unsigned)o->prec < DAM_PREC_COUNT ? (unsigned)o->prec
                                                          : 0u;
        double fg = fw->gemm.v > 0.0 ? fw->gemm.v : 1.0;
        double cf = fw->conv[pi].v > 0.0 ? fw->conv[pi].v : 1.0;
        double base = gc->rate;
        gc->rate = base * fg;
        cc->rate = base * cf;
        /* tf32 on a GPU whose tf32 tensor rate is no better than its fp32
         * cores (GeForce): the libraries pick the faster fp32 kernels */
        if (o->prec == DAM_TF32) {
            double r32 = dam_device_gemm_rate(gpu, DAM_FP32) * ps;
            double c32 = fw->conv[DAM_FP32].v > 0.0 ? fw->conv[DAM_FP32].v
                                                    : 1.0;
            if (r32 * fg > gc->rate)
                gc->rate = r32 * fg;
            if (r32 * c32 > cc->rate)
                cc->rate = r32 * c32;
        }
    }
    gc->inv_rate = 1.0 / gc->rate;
    cc->inv_rate = 1.0 / cc->rate;
    gc->unit = gc->sms * 2.0 * gc->tm * gc->tn * gc->inv_rate;
    cc->unit = cc->sms * 2.0 * cc->tm * cc->tn * cc->inv_rate;
    /* a recipe's linear layers: their own format's rate and width (the
     * same tiles), and the cast traffic per quantized activation element */
    const dam_recipe *rc = o->recipe && o->recipe->linear_elem > 0.0
                               ? o->recipe : NULL;
    x->rc = rc;
    x->lcp = gc;
    x->lelem = x->pelem;
    x->cast_b = 0.0;
    if (rc && !gc->legacy) {
        gemm_ctx *lc = &x->lc;
        *lc = *gc;
        x->lcp = lc;
        double fg = fw->gemm.v > 0.0 ? fw->gemm.v : 1.0;
        gemm_setup(lc, gpu, rc->linear, rc->linear_elem, x->mfrac);
        lc->rate *= ps * fg;
        if (rc->fp4 && gpu->peak[DAM_FP8] > 0.0 && gpu->peak_fp4 > 0.0)
            lc->rate *= gpu->peak_fp4 / gpu->peak[DAM_FP8];
        lc->inv_rate = 1.0 / lc->rate;
        lc->unit = lc->sms * 2.0 * lc->tm * lc->tn * lc->inv_rate;
    }
    if (rc) {
        x->lelem = rc->linear_elem + rc->scale_elem;
        x->cast_b = rc->cast_read + rc->cast_write;
    }
}

/* Step 3: fused attention's forward and backward rates and the GPU time
 * per kernel boundary. */
static void cost_attn_setup(cost_ctx *x, const dam_cost_opts *o)
{
    const dam_gpu *gpu = o->gpu;
    double attn_peak = gemm_peak(gpu, o->prec);
    double af = o->eta > 0.0 ? o->eta : gpu->dev.attn_fwd.v;
    double ab = o->eta > 0.0 ? o->eta : gpu->dev.attn_bwd.v;
    x->inv_af = 1.0 / (attn_peak * (af > 0.0 ? af : 0.5));
    x->inv_ab = 1.0 / (attn_peak * (ab > 0.0 ? ab : 0.4));
    x->gap = o->cuda_graphs ? gpu->dev.graph_gap.v : gpu->dev.kernel_gap.v;
}

/* Per phase and pass: compute- and memory-bound time, FLOPs, bytes,
 * launches. */
typedef double cost_acc[DAM_PASS_COUNT][5];

/* The GEMMs' results waiting for the ordered fold (gt, gcb: by GEMM, in
 * graph order; gfl, gby, gacc: by op), and the shapes between the two
 * GEMM loops. */
typedef struct gemm_scratch {
    double gt[DAM_MAX_OPS], gfl[DAM_MAX_OPS], gby[DAM_MAX_OPS];
    long long gcb[DAM_MAX_OPS]; /* as wide as a double: the wave loop's
                                 * vectors hold both */
    double *gacc[DAM_MAX_OPS];
    double sk_[DAM_MAX_OPS], stfl[DAM_MAX_OPS], stiles[DAM_MAX_OPS],
        sunit[DAM_MAX_OPS], stmm[DAM_MAX_OPS], sdq[DAM_MAX_OPS];
    /* for gemm_shapes_all: m / tile_m (-1: stiles is given), the N tiles
     * and groups that multiply its ceiling, the bytes and streamed bytes */
    double sq[DAM_MAX_OPS], sntl[DAM_MAX_OPS], sgr[DAM_MAX_OPS],
        sby[DAM_MAX_OPS], swb[DAM_MAX_OPS];
} gemm_scratch;

/* x86-64 with GCC: copies of the wave loop for AVX-512 and AVX2 (eight
 * or four doubles a vector instead of SSE2's two), picked at load time;
 * the same operations in the same order either way (no FMA: no
 * contraction), so the same doubles (as device_lanes.c's loops). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__)
#define WAVES_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define WAVES_CLONES
#endif

/* The end of gemm_waves and gemm_join for one of gemm_waves_all's GEMMs
 * (the waves' factors a and b): its time times fs into *gt and the acc
 * index into *cb (0: compute-bound). */
static inline void waves_join(double a, double b, double unit, double tfl,
                              double tm, double t0, int flat, double fs,
                              double *gt, long long *cb)
{
    double tc = a * unit * b;
    tc = tc > tfl ? tc : tfl;
    tc = flat ? tfl : tc;
    tc += t0;
    *gt = (tc >= tm ? tc : tm) * fs;
    *cb = tc < tm;
}

/* Step 4a: the tiles of each of ng GEMMs whose m is above a half tile
 * (q >= 0: gemm_tiles' full-height tiles, ceil(q) x N tiles x groups) and
 * each one's DRAM time with its L2 residency, the GEMMs side by side (a
 * loop the compiler vectorises, as gemm_waves_all): the operations of
 * cost_gemms' one-GEMM form, in its order. */
WAVES_CLONES
static void gemm_shapes_all(int ng, double inv_l2c, double l2_save,
                            double inv_mem, const double *restrict q,
                            const double *restrict ntl,
                            const double *restrict gr,
                            const double *restrict by,
                            const double *restrict wb, double *restrict tl,
                            double *restrict tm)
{
    for (int j = 0; j < ng; j++) {
        double t = ceil_pos(q[j]) * ntl[j] * gr[j];
        tl[j] = q[j] >= 0.0 ? t : tl[j];
        tm[j] = ((by[j] - wb[j]) * l2_factor(by[j], inv_l2c, l2_save) +
                 wb[j]) * inv_mem;
    }
}

/*
 * Step 4b: the time of each of ng GEMMs as gemm_waves and gemm_join give
 * it, into gt (times fs) and gcb, the GEMMs side by side: the branches of
 * wave_factors are worked out for every GEMM and the one gemm_waves takes
 * is selected, so that the loop has no branches and the compiler
 * vectorises it (device.c is built without FP traps, CMakeLists.txt: the
 * split-K divisions run where their result is not kept). Stream-K has a
 * loop of its own, so that neither pays for the other's divisions. The
 * same operations on the same doubles as the one-GEMM functions, which
 * the dequantising path still uses. Selects, never || or a nested ?: in
 * the loops (control flow the vectoriser does not if-convert).
 */
WAVES_CLONES
static void gemm_waves_all(const gemm_ctx *c, int ng, double fs,
                           const double *restrict tl,
                           const double *restrict un,
                           const double *restrict kk,
                           const double *restrict fl,
                           const double *restrict mm, double *restrict gt,
                           long long *restrict gcb)
{
    const double sms = c->sms, inv_sms = c->inv_sms, t0 = c->t0;
    const int flat = c->legacy != 0.0 || c->no_waves;
    if (c->stream_k) {
        for (int j = 0; j < ng; j++) {
            double tiles = tl[j], k = kk[j];
            double kc = floor_pos(k * (1.0 / 256.0));
            double chunks = tiles * (kc > 1.0 ? kc : 1.0);
            double a = chunks < sms ? tiles / chunks : tiles * inv_sms;
            waves_join(a, k, un[j], fl[j], mm[j], t0, flat, fs, &gt[j],
                       &gcb[j]);
        }
        return;
    }
    for (int j = 0; j < ng; j++) {
        double tiles = tl[j], k = kk[j];
        /* whole waves */
        double w = tiles * inv_sms;
        double a_w = w < 4.0 ? ceil_pos(w - 1e-9) : w;
        /* split-K */
        double split = floor_pos(sms / (tiles > 1.0 ? tiles : 1.0));
        double maxs = floor_pos(k * (1.0 / 256.0));
        split = split > maxs ? maxs : split;
        split = split < 1.0 ? 1.0 : split;
        double b_s = ceil_pos(k / split);
        int whole = tiles >= sms;
        waves_join(whole ? a_w : 1.0, whole ? k : b_s, un[j], fl[j], mm[j],
                   t0, flat, fs, &gt[j], &gcb[j]);
    }
}

/* Step 4: every GEMM's shape, tiles and memory time (first loop), then
 * its waves (second loop): each keeps few values live and its iterations
 * independent, so they overlap. Results go to s for the ordered fold. */
static void cost_gemms(const cost_ctx *x, const dam_graph *g,
                       int pass_mask, int nph, cost_acc *acc,
                       gemm_scratch *s)
{
    const double b = x->b, pelem = x->pelem, fs = x->fs;
    const double inv_mem = x->inv_mem, inv_l2c = x->inv_l2c,
                 l2_save = x->l2_save;
    const double w_extra = x->w_extra, welem = x->welem, lelem = x->lelem;
    const int wspecial = x->wspecial, wstream = x->weights_stream;
    const gemm_ctx *gc = &x->gc;
    /* batch factors per dam_scale (none, M, K, groups) and the two GEMM
     * contexts (GEMM, convolution) */
    const double sm[4] = {1.0, b, 1.0, 1.0}, sk[4] = {1.0, 1.0, b, 1.0};
    const double sg[4] = {1.0, 1.0, 1.0, b}, se[4] = {1.0, b, b, b};
    const gemm_ctx *ctx[2] = {gc, &x->cc};
    int nops = g->nops < DAM_MAX_OPS ? g->nops : DAM_MAX_OPS;
    int ng = 0;
    /* what the two contexts share (one GPU's tiles), and what differs */
    const int ncfg = gc->ncfg;
    const double itm0 = gc->itm;
    /* above mthr rows the library's full-height tile is used (no narrow
     * tiles along M); with no precomputed N-tile counts for this tile
     * width, every GEMM goes through gemm_tiles */
    const double mthr = ncfg >= 0 ? 0.5 * gc->tm : HUGE_VAL;
    const double units[3] = {gc->unit, x->cc.unit, x->lcp->unit};
    const double irates[3] = {gc->inv_rate, x->cc.inv_rate,
                              x->lcp->inv_rate};
    const unsigned lin = x->rc ? DAM_OPF_LINEAR : 0u;
    for (int i = 0; i < nops; i++) {
        const dam_op *op = &g->ops[i];
        if (op->kind != DAM_OP_GEMM ||
            (pass_mask && !(pass_mask & (1 << op->pass))))
            continue;
        /* the scaled dimension by table (dam_scale order: none, M, K,
         * groups), no branches */
        unsigned sx = op->scale & 3u;
        double m = op->m * sm[sx], k = op->k * sk[sx];
        double gr = op->groups * sg[sx], sc = se[sx];
        unsigned ci = (op->flags & DAM_OPF_CONV) != 0;
        double el = pelem;
        if (__builtin_expect((op->flags & lin) != 0, 0)) {
            ci = 2u; /* a recipe's linear layer */
            el = lelem;
        }
        double f0 = op->flops * sc, dq = 0.0;
        double by = el * (op->elems * sc + op->weight_elems), wb = 0.0;
        if (wspecial && (op->flags & DAM_OPF_WEIGHT) &&
            op->scale != DAM_SCALE_K) {
            /* a weight operand (B, k x n, never batch-scaled) stored at
             * its own width (weight-only quantization), narrower ones
             * dequantized on the SMs (DEQ_WPC) */
            if (w_extra != 0.0)
                by += w_extra * op->k * op->n * op->groups;
            dq = op->k * op->n * op->groups * x->inv_dq;
            /* streamed weights: their bytes miss the L2 */
            if (wstream)
                wb = welem * op->k * op->n * op->groups;
        }
        double unit = units[ci];
        if (m > mthr) { /* the tiles: gemm_shapes_all */
            unit *= pow2_neg[op->nshift[ncfg] & 7u];
            s->sq[ng] = m * itm0;
            s->sntl[ng] = op->ntiles[ncfg];
            s->sgr[ng] = gr;
        } else {
            s->stiles[ng] = gemm_tiles(ctx[ci & 1u], m, op->n, gr,
                                       op->ntiles, op->nshift, &unit);
            s->sq[ng] = -1.0;
            s->sntl[ng] = s->sgr[ng] = 0.0;
        }
        s->sunit[ng] = unit;
        s->sk_[ng] = k;
        s->stfl[ng] = f0 * irates[ci];
        s->sdq[ng] = dq;
        s->sby[ng] = by;
        s->swb[ng] = wb;
        s->gfl[i] = f0 * fs;
        s->gby[i] = by;
        s->gacc[i] = acc[op->phase < (unsigned)nph ? op->phase : 0u][op->pass];
        ng++;
    }
    gemm_shapes_all(ng, inv_l2c, l2_save, inv_mem, s->sq, s->sntl, s->sgr,
                    s->sby, s->swb, s->stiles, s->stmm);
    /* the wave model reads only what the two contexts share */
    if (!(x->inv_dq > 0.0)) {
        gemm_waves_all(gc, ng, fs, s->stiles, s->sunit, s->sk_, s->stfl,
                       s->stmm, s->gt, s->gcb);
        return;
    }
    for (int j = 0; j < ng; j++) {
        double tc = gemm_waves(gc, s->stiles[j], s->sunit[j], s->sk_[j],
                               s->stfl[j]);
        int cbj;
        double t = gemm_join(gc, tc, s->stmm[j], &cbj);
        /* dequantisation overlaps the GEMM's own time only in part: a
         * 2-norm of the two (DEQ_WPC) */
        if (s->sdq[j] > 0.0)
            t = sqrt(t * t + s->sdq[j] * s->sdq[j]);
        s->gt[j] = t * fs;
        s->gcb[j] = !cbj; /* acc index: 0 compute-bound */
    }
}

/* Step 5: attention's compute or memory time (the cache bytes of a
 * serving step stream past the L2); *by gets its bytes, returns 1 when
 * compute-bound. */
static inline int cost_attn(const cost_ctx *x, const dam_op *op, double *t,
                            double *fl, double *by, int weights_stream)
{
    double sc = op->scale == DAM_SCALE_NONE ? 1.0 : x->b;
    *fl = op->flops * sc * x->fs;
    double kvb = op->kv_elems * x->kv_el * sc * x->bs;
    *by = (op->elems - op->kv_elems) * x->act * sc * x->bs + kvb;
    if (!weights_stream)
        kvb = 0.0; /* streamed cache reads miss the L2 */
    double tc = *fl * (op->pass == DAM_PASS_BWD ? x->inv_ab : x->inv_af);
    double tmm = ((*by - kvb) * l2_factor(*by, x->inv_l2c, x->l2_save) +
                  kvb) * x->inv_mem;
    int cb = tc >= tmm;
    *t = cb ? tc : tmm;
    return cb;
}

/* Step 6: every operator's time in graph order (GEMMs from s; attention,
 * memory-bound kernels, collectives here) into acc, so that the sums are
 * added in one fixed order. */
static void cost_ordered(const cost_ctx *x, const dam_graph *g,
                         const dam_cost_opts *o, int nph, cost_acc *acc,
                         const gemm_scratch *s, dam_graph_cost *out)
{
    const double b = x->b, act = x->act, kv_el = x->kv_el, bs = x->bs,
                 ws = x->ws, lowp = x->lowp, mem_keep = x->mem_keep;
    const int pass_mask = o->pass_mask;
    int nops = g->nops < DAM_MAX_OPS ? g->nops : DAM_MAX_OPS;
    int j = 0; /* the GEMMs in cost_gemms' order */
    for (int i = 0; i < nops; i++) {
        const dam_op *op = &g->ops[i];
        if (pass_mask && !(pass_mask & (1 << op->pass)))
            continue;
        if (op->kind == DAM_OP_GEMM) {
            double cnt = op->count, *a = s->gacc[i];
            a[s->gcb[j]] += cnt * s->gt[j];
            j++;
            a[2] += cnt * s->gfl[i];
            a[3] += cnt * s->gby[i];
            a[4] += cnt * op->kernels;
            continue;
        }
        double t, fl, by, kern, cnt;
        int cb = 0;
        switch (op->kind) {
        case DAM_OP_ATTN:
            cb = cost_attn(x, op, &t, &fl, &by, o->weights_stream);
            cnt = op->count;
            kern = op->kernels;
            break;
        case DAM_OP_MEM: {
            if ((op->flags & DAM_OPF_LOWP) && !lowp)
                continue;
            /* merged memory-bound kernels (totals), less what fusion
             * removes outside the optimizer */
            double sc = op->scale == DAM_SCALE_NONE ? 1.0 : b;
            double keep = op->pass == DAM_PASS_OPT ? 1.0 : mem_keep;
            by = (op->elems * sc * (op->flags & DAM_OPF_KV ? kv_el : act) *
                      bs +
                  op->weight_elems * act * ws + op->fixed_bytes * ws) * keep;
            fl = op->flops * sc;
            kern = op->kernels * keep;
            t = by * x->inv_mem_k *
                l2_factor(kern > 0.0 ? by / kern : by, x->inv_l2c,
                          x->l2_save);
            cnt = 1.0; /* merged: totals */
            break;
        }
        case DAM_OP_COMM: {
            double sc = op->scale == DAM_SCALE_NONE ? 1.0 : b;
            double bytes = op->elems * sc * act;
            out->comm_bytes += op->count * bytes;
            if (o->comm_busbw > 0.0) {
                double tcm = op->count *
                             dam_device_collective_time(
                                 (dam_comm_kind)op->comm, bytes, op->ranks,
                                 o->comm_busbw, o->comm_alpha);
                out->comm_time += tcm;
                out->pass_time[op->pass] += tcm;
            }
            continue;
        }
        default:
            continue;
        }
        unsigned ph = op->phase < (unsigned)nph ? op->phase : 0u;
        double *a = acc[ph][op->pass];
        a[cb ? 0 : 1] += cnt * t;
        a[2] += cnt * fl;
        a[3] += cnt * by;
        a[4] += cnt * kern;
    }
}

/* Step 7: a recipe's cast of each linear layer's A operand (the forward
 * input, dgrad's output gradient; wgrad reuses the column-wise copies):
 * one fused amax + cast(-transpose) kernel each, memory-bound, in the
 * GEMM's phase and pass. */
static void cost_casts(const cost_ctx *x, const dam_graph *g, int pass_mask,
                       const gemm_scratch *s)
{
    const double b = x->b, cast_b = x->cast_b;
    const double sm[4] = {1.0, b, 1.0, 1.0}, sk[4] = {1.0, 1.0, b, 1.0};
    const double sg[4] = {1.0, 1.0, 1.0, b};
    int nops = g->nops < DAM_MAX_OPS ? g->nops : DAM_MAX_OPS;
    for (int i = 0; cast_b > 0.0 && i < nops; i++) {
        const dam_op *op = &g->ops[i];
        if (op->kind != DAM_OP_GEMM ||
            (op->flags & (DAM_OPF_LINEAR | DAM_OPF_WEIGHT)) !=
                (DAM_OPF_LINEAR | DAM_OPF_WEIGHT) ||
            (pass_mask && !(pass_mask & (1 << op->pass))))
            continue;
        unsigned sx = op->scale & 3u;
        double cb = cast_b * op->m * sm[sx] * op->k * sk[sx] * op->groups *
                    sg[sx];
        double *a = s->gacc[i];
        a[1] += op->count * cb * x->inv_mem_k *
                l2_factor(cb, x->inv_l2c, x->l2_save);
        a[3] += op->count * cb;
        a[4] += op->count;
    }
}

/* Step 8: fold the per-phase, per-pass sums into out, with the kernel
 * boundaries' GPU time and the host's launch time. */
static void cost_fold(double gap, int cuda_graphs, double launch_s, int nph,
                      cost_acc *acc, dam_graph_cost *out)
{
    for (int ph = 0; ph < nph; ph++) {
        dam_phase_cost *p = &out->phase[ph];
        for (int ps_ = 0; ps_ < DAM_PASS_COUNT; ps_++) {
            const double *a = acc[ph][ps_];
            double tt = a[0] + a[1];
            p->t_compute += a[0];
            p->t_memory += a[1];
            p->time += tt;
            p->flops += a[2];
            p->bytes += a[3];
            p->kernels += a[4];
            out->pass_time[ps_] += tt + a[4] * gap;
            out->pass_kernel_time[ps_] += tt;
            out->pass_kernels[ps_] += a[4];
        }
        out->kernel_time += p->time;
        out->flops += p->flops;
        out->bytes += p->bytes;
        out->kernels += p->kernels;
    }
    out->gap_time = out->kernels * gap;
    out->time = out->kernel_time + out->gap_time + out->comm_time;
    out->host_time = cuda_graphs ? launch_s : out->kernels * launch_s;
    out->host_excess = out->host_time > out->time - out->comm_time
                           ? out->host_time - (out->time - out->comm_time)
                           : 0.0;
}

static void cost_setup(const dam_cost_opts *o, cost_ctx *x, int clear);

double dam_device_cost(const dam_graph *g, const dam_cost_opts *o,
                       dam_graph_cost *out)
{
    memset(out, 0, sizeof *out);
    cost_ctx x;
    cost_setup(o, &x, 0);
    int nph = g->nphases > 0 && g->nphases <= DAM_MAX_PHASES ? g->nphases
                                                              : 1;
    cost_acc acc[DAM_MAX_PHASES];
    memset(acc, 0, (size_t)nph * sizeof acc[0]);
    gemm_scratch s;
    cost_gemms(&x, g, o->pass_mask, nph, acc, &s);
    cost_ordered(&x, g, o, nph, acc, &s, out);
    cost_casts(&x, g, o->pass_mask, &s);
    cost_fold(x.gap, o->cuda_graphs, o->launch_s, nph, acc, out);
    return out->time;
}

/* ---- one graph under many draws ------------------------------------ */

_Static_assert(sizeof(cost_ctx) <= sizeof(((dam_cost_plan *)0)->ref),
               "dam_cost_plan.ref cannot hold a cost_ctx");

/* The derived options of o (clear: first zero x, padding and the fields
 * a costing leaves unset included, so that two compare by their bytes). */
static void cost_setup(const dam_cost_opts *o, cost_ctx *x, int clear)
{
    dam_framework fwd;
    const dam_framework *fw = o->fw;
    if (!fw) {
        dam_framework_default(&fwd);
        fw = &fwd;
    }
    if (clear)
        memset(x, 0, sizeof *x);
    cost_mem_setup(x, o, fw);
    cost_gemm_setup(x, o, fw);
    cost_attn_setup(x, o);
}

/* Clear what draws change in x (the rates dam_cost_lanes holds, and the
 * ones the graph's costing does not read), and the pointer into x. */
static void cost_ctx_neutral(cost_ctx *x)
{
    x->fs = x->bs = x->mfrac = x->inv_mem_k = x->inv_mem = 0.0;
    x->inv_l2c = x->l2_save = x->inv_af = x->inv_ab = x->gap = 0.0;
    gemm_ctx *c[3] = {&x->gc, &x->cc, &x->lc};
    for (int i = 0; i < 3; i++)
        c[i]->rate = c[i]->inv_rate = c[i]->unit = c[i]->inv_bw = 0.0;
    x->lcp = NULL;
}

int dam_cost_plan_build(const dam_graph *g, const dam_cost_opts *o,
                        dam_cost_plan *p)
{
    if (o->recipe || o->comm_busbw > 0.0)
        return 0;
    cost_ctx x;
    cost_setup(o, &x, 1);
    if (x.wspecial || x.rc || x.cast_b > 0.0)
        return 0;
    int nph = g->nphases > 0 && g->nphases <= DAM_MAX_PHASES ? g->nphases
                                                              : 1;
    memset(p, 0, offsetof(dam_cost_plan, step)); /* compared by bytes */
    /* the shapes and launches as dam_device_cost works them out */
    cost_acc acc[DAM_MAX_PHASES];
    memset(acc, 0, (size_t)nph * sizeof acc[0]);
    gemm_scratch s;
    dam_graph_cost scratch;
    memset(&scratch, 0, sizeof scratch);
    cost_gemms(&x, g, o->pass_mask, nph, acc, &s);
    cost_ordered(&x, g, o, nph, acc, &s, &scratch);
    p->nph = nph;
    p->cuda_graphs = o->cuda_graphs;
    p->pass_mask = o->pass_mask;
    p->recipe = o->recipe;
    p->comm_busbw = o->comm_busbw;
    for (int ph = 0; ph < nph; ph++)
        for (int ps_ = 0; ps_ < DAM_PASS_COUNT; ps_++)
            p->kern[ph][ps_] = acc[ph][ps_][4];
    /* the launches' sums (cost_fold's, the same in every lane) */
    dam_graph_cost *kf = &scratch;
    memset(kf, 0, sizeof *kf);
    cost_fold(0.0, 0, 0.0, nph, acc, kf);
    for (int ph = 0; ph < nph; ph++)
        p->ph_kern[ph] = kf->phase[ph].kernels;
    for (int ps_ = 0; ps_ < DAM_PASS_COUNT; ps_++)
        p->pass_kern[ps_] = kf->pass_kernels[ps_];
    p->kernels = kf->kernels;
    int nops = g->nops < DAM_MAX_OPS ? g->nops : DAM_MAX_OPS;
    int gj[DAM_MAX_OPS];
    int ng = 0;
    for (int i = 0; i < nops; i++) {
        const dam_op *op = &g->ops[i];
        gj[i] = op->kind == DAM_OP_GEMM &&
                        !(o->pass_mask && !(o->pass_mask & (1 << op->pass)))
                    ? ng++
                    : -1;
    }
    const double b = x.b;
    const double se[4] = {1.0, b, b, b};
    const double units[2] = {x.gc.unit, x.cc.unit};
    int n = 0;
    for (int i = 0; i < nops; i++) {
        const dam_op *op = &g->ops[i];
        if (o->pass_mask && !(o->pass_mask & (1 << op->pass)))
            continue;
        dam_cost_step *st = &p->step[n];
        memset(st, 0, sizeof *st);
        unsigned ph = op->phase < (unsigned)nph ? op->phase : 0u;
        st->acc = (unsigned short)(ph * DAM_PASS_COUNT + op->pass);
        st->kind = op->kind;
        double sc = op->scale == DAM_SCALE_NONE ? 1.0 : b;
        if (op->kind == DAM_OP_GEMM) {
            /* (a x unit x 2^-s) x b against f0 / rate (cost_gemms) */
            int j = gj[i];
            st->ci = (op->flags & DAM_OPF_CONV) != 0;
            if (x.gc.legacy || x.gc.no_waves) {
                st->c[0] = st->c[1] = 0.0; /* the waves: 0, FLOPs win */
            } else {
                wave_factors(&x.gc, s.stiles[j], s.sk_[j], &st->c[0],
                             &st->c[1]);
            }
            st->c[2] = s.sunit[j] / units[st->ci]; /* 2^-s, exact */
            st->c[3] = op->flops * se[op->scale & 3u];
            st->c[4] = s.gby[i];
            st->c[5] = op->count;
            st->c[6] = x.gc.t0;
        } else if (op->kind == DAM_OP_ATTN) {
            st->ci = op->pass == DAM_PASS_BWD;
            st->c[0] = op->flops * sc;
            st->c[1] = op->kv_elems * x.kv_el * sc;
            st->c[2] = (op->elems - op->kv_elems) * x.act * sc;
            st->c[3] = op->count;
        } else if (op->kind == DAM_OP_MEM) {
            if ((op->flags & DAM_OPF_LOWP) && !x.lowp)
                continue;
            double keep = op->pass == DAM_PASS_OPT ? 1.0 : x.mem_keep;
            st->c[0] = op->elems * sc *
                       (op->flags & DAM_OPF_KV ? x.kv_el : x.act);
            st->c[1] = op->weight_elems * x.act * x.ws;
            st->c[2] = op->fixed_bytes * x.ws;
            st->c[3] = keep;
            st->c[4] = op->kernels * keep;
        } else {
            continue; /* collectives: no time without a fabric */
        }
        n++;
    }
    p->nsteps = n;
    cost_ctx_neutral(&x);
    memcpy(p->ref, &x, sizeof x);
    return 1;
}

int dam_cost_lanes_set(const dam_cost_plan *p, const dam_cost_opts *o,
                       dam_cost_lanes *l, int lane)
{
    if (o->cuda_graphs != p->cuda_graphs || o->pass_mask != p->pass_mask ||
        o->recipe != p->recipe || o->comm_busbw != p->comm_busbw)
        return 0;
    cost_ctx x;
    cost_setup(o, &x, 1);
    l->fs[lane] = x.fs;
    l->bs[lane] = x.bs;
    l->inv_mem_k[lane] = x.inv_mem_k;
    l->inv_mem[lane] = x.inv_mem;
    l->inv_l2c[lane] = x.inv_l2c;
    l->l2_save[lane] = x.l2_save;
    l->unit[0][lane] = x.gc.unit;
    l->unit[1][lane] = x.cc.unit;
    l->inv_rate[0][lane] = x.gc.inv_rate;
    l->inv_rate[1][lane] = x.cc.inv_rate;
    l->inv_af[lane] = x.inv_af;
    l->inv_ab[lane] = x.inv_ab;
    l->gap[lane] = x.gap;
    l->launch_s[lane] = o->launch_s;
    cost_ctx_neutral(&x);
    return memcmp(&x, p->ref, sizeof x) == 0;
}

void dam_cost_lanes_get(const dam_cost_plan *p, const dam_cost_lanes *l,
                        int lane, dam_graph_cost *out)
{
    /* every field written (the phases past nph as dam_device_cost leaves
     * them: 0) */
    for (int ph = 0; ph < DAM_MAX_PHASES; ph++) {
        dam_phase_cost *q = &out->phase[ph];
        int in = ph < p->nph;
        q->flops = q->bytes = 0.0;
        q->t_compute = in ? l->ph_tc[ph][lane] : 0.0;
        q->t_memory = in ? l->ph_tm[ph][lane] : 0.0;
        q->time = in ? l->ph_time[ph][lane] : 0.0;
        q->kernels = in ? p->ph_kern[ph] : 0.0;
    }
    out->comm_time = out->comm_bytes = out->flops = out->bytes = 0.0;
    for (int ps_ = 0; ps_ < DAM_PASS_COUNT; ps_++) {
        out->pass_time[ps_] = l->pass_time[ps_][lane];
        out->pass_kernel_time[ps_] = l->pass_kt[ps_][lane];
        out->pass_kernels[ps_] = p->pass_kern[ps_];
    }
    out->kernel_time = l->kernel_time[lane];
    out->kernels = p->kernels;
    out->gap_time = l->gap_time[lane];
    out->time = l->time[lane];
    out->host_time = l->host_time[lane];
    out->host_excess = l->host_excess[lane];
}

void dam_device_attn_prepare(const dam_cost_opts *o, dam_attn_prep *p)
{
    dam_framework fwd;
    const dam_framework *fw = o->fw;
    if (!fw) {
        dam_framework_default(&fwd);
        fw = &fwd;
    }
    cost_ctx x;
    cost_mem_setup(&x, o, fw);
    cost_attn_setup(&x, o);
    *p = (dam_attn_prep){.b = x.b, .fs = x.fs, .bs = x.bs, .act = x.act,
                         .kv_el = x.kv_el, .inv_af = x.inv_af,
                         .inv_ab = x.inv_ab, .inv_l2c = x.inv_l2c,
                         .l2_save = x.l2_save, .inv_mem = x.inv_mem,
                         .gap = x.gap, .weights_stream = o->weights_stream,
                         .pass_mask = o->pass_mask};
}

double dam_device_attn_cost(const dam_attn_prep *p, const dam_op *ops,
                            int n, double *kernels)
{
    cost_ctx x; /* only the fields cost_attn reads */
    x.b = p->b;
    x.fs = p->fs;
    x.bs = p->bs;
    x.act = p->act;
    x.kv_el = p->kv_el;
    x.inv_af = p->inv_af;
    x.inv_ab = p->inv_ab;
    x.inv_l2c = p->inv_l2c;
    x.l2_save = p->l2_save;
    x.inv_mem = p->inv_mem;
    /* operators of one pass (a serving step's, the usual call): its two
     * sums alone; the other passes' zeros would add nothing (x + 0.0 is
     * x), so this is the general path's double */
    int one = 1;
    for (int i = 1; i < n; i++)
        one &= ops[i].pass == ops[0].pass;
    if (one) {
        double a0 = 0.0, a1 = 0.0, kern = 0.0;
        for (int i = 0; i < n; i++) {
            const dam_op *op = &ops[i];
            if (p->pass_mask && !(p->pass_mask & (1 << op->pass)))
                continue;
            double t, fl, by;
            if (cost_attn(&x, op, &t, &fl, &by, p->weights_stream))
                a0 += op->count * t;
            else
                a1 += op->count * t;
            kern += op->count * op->kernels;
        }
        *kernels = kern;
        return a0 + a1 + kern * p->gap + 0.0;
    }
    /* cost_ordered's sums for one phase, then cost_fold's (the passes'
     * zeros add nothing) */
    double acc[DAM_PASS_COUNT][5] = {{0.0}};
    for (int i = 0; i < n; i++) {
        const dam_op *op = &ops[i];
        if (p->pass_mask && !(p->pass_mask & (1 << op->pass)))
            continue;
        double t, fl, by;
        int cb = cost_attn(&x, op, &t, &fl, &by, p->weights_stream);
        double *a = acc[op->pass];
        a[cb ? 0 : 1] += op->count * t;
        a[4] += op->count * op->kernels;
    }
    double time = 0.0, kern = 0.0;
    for (int ps_ = 0; ps_ < DAM_PASS_COUNT; ps_++) {
        time += acc[ps_][0] + acc[ps_][1];
        kern += acc[ps_][4];
    }
    *kernels = kern;
    return time + kern * p->gap + 0.0;
}

/* ---- constants by key ----------------------------------------------- */

#define DEV(f) offsetof(dam_device, f)
#define FWK(f) offsetof(dam_framework, f)

typedef struct param_row {
    dam_param_info info;
    size_t off;   /* offset of the dam_est (device/framework) */
    int special;  /* 1: workload.launch_s, 2: workload.framework_overhead_s */
} param_row;

static const param_row params[] = {
#define GEMM(P, N)                                                          \
    {{"gemm_frac", P, "achieved fraction of the " N " peak on a full-wave " \
      "GEMM (above 1 where the sustained clock exceeds the rated boost the " \
      "peak is quoted at)", DAM_PARAM_DEVICE, 0.05, 1.3, 1.0, ""},          \
     DEV(gemm[P]), 0}
    GEMM(DAM_FP32, "fp32 (non-tensor)"),
    GEMM(DAM_TF32, "tf32"),
    GEMM(DAM_FP16, "fp16"),
    GEMM(DAM_BF16, "bf16"),
    GEMM(DAM_FP8, "fp8"),
    GEMM(DAM_INT8, "int8"),
#undef GEMM
    {{"mem_frac", -1, "achieved fraction of the memory bandwidth, streaming kernels", DAM_PARAM_DEVICE, 0.1, 1.0, 1.0, ""}, DEV(mem), 0},
    {{"attn_fwd_frac", -1, "fused attention forward, fraction of the peak", DAM_PARAM_DEVICE, 0.05, 1.0, 1.0, ""}, DEV(attn_fwd), 0},
    {{"attn_bwd_frac", -1, "fused attention backward, fraction of the peak", DAM_PARAM_DEVICE, 0.05, 1.0, 1.0, ""}, DEV(attn_bwd), 0},
    {{"kernel_gap_us", -1, "GPU time per kernel boundary, eager stream", DAM_PARAM_DEVICE, 0.0, 100e-6, US, "us"}, DEV(kernel_gap), 0},
    {{"graph_gap_us", -1, "GPU time per kernel boundary inside a CUDA graph", DAM_PARAM_DEVICE, 0.0, 100e-6, US, "us"}, DEV(graph_gap), 0},
    {{"h2d_gbs", -1, "achieved pinned host-to-device copy bandwidth", DAM_PARAM_DEVICE, 0.1e9, 1e12, GB, "GB/s"}, DEV(h2d), 0},
    {{"pageable_frac", -1, "pageable copies as a fraction of pinned", DAM_PARAM_DEVICE, 0.01, 1.0, 1.0, ""}, DEV(pageable), 0},
    {{"allreduce_busbw_gbs", -1, "nccl-tests all-reduce bus bandwidth in one node", DAM_PARAM_DEVICE, 0.0, 1e13, GB, "GB/s"}, DEV(busbw), 0},
    {{"l2_gbs", -1, "achieved L2 read bandwidth", DAM_PARAM_DEVICE, 1e9, 1e14, GB, "GB/s"}, DEV(l2_bw), 0},
    {{"l2_usable_frac", -1, "share of the L2 one kernel's working set can hold", DAM_PARAM_DEVICE, 0.05, 1.0, 1.0, ""}, DEV(l2_frac), 0},
    {{"gemm_frac", -1, "GEMMs in a step relative to the device's microbenchmark rate", DAM_PARAM_FRAMEWORK, 0.05, 2.0, 1.0, ""}, FWK(gemm), 0},
#define CONV(P, N)                                                          \
    {{"conv_frac", P, "convolution (cuDNN implicit GEMM) rate relative to " \
      "a GEMM of its shape, " N, DAM_PARAM_FRAMEWORK, 0.05, 2.0, 1.0, ""},  \
     FWK(conv[P]), 0}
    CONV(DAM_FP32, "fp32"),
    CONV(DAM_TF32, "tf32"),
    CONV(DAM_FP16, "fp16"),
    CONV(DAM_BF16, "bf16"),
    CONV(DAM_FP8, "fp8"),
    CONV(DAM_INT8, "int8"),
#undef CONV
    {{"elementwise_frac", -1, "framework memory-bound kernels (norms, activations, optimizer) relative to the device's streaming rate", DAM_PARAM_FRAMEWORK, 0.05, 2.0, 1.0, ""}, FWK(mem), 0},
    {{"elementwise_sm_bpc", -1, "framework memory-bound kernels: bytes per SM clock at most (requests in flight per SM over the memory latency)", DAM_PARAM_FRAMEWORK, 1.0, 256.0, 1.0, "B/clk/SM"}, FWK(sm_bpc), 0},
    {{"launch_us", -1, "host time per eager kernel launch", DAM_PARAM_FRAMEWORK, 0.0, 1e-3, US, "us"}, 0, 1},
    {{"framework_overhead_ms", -1, "host time per step outside kernels", DAM_PARAM_FRAMEWORK, 0.0, 10.0, 1e-3, "ms"}, 0, 2},
};

#define NPARAMS ((int)(sizeof params / sizeof params[0]))

int dam_param_count(void)
{
    return NPARAMS;
}

const dam_param_info *dam_param_get(int i)
{
    return i >= 0 && i < NPARAMS ? &params[i].info : NULL;
}

int dam_param_find(const char *field, int prec)
{
    for (int i = 0; i < NPARAMS; i++)
        if (strcmp(params[i].info.field, field) == 0 &&
            params[i].info.prec == prec)
            return i;
    return -1;
}

int dam_param_ref_gpu(int i, dam_gpu *gpu, double **value, double **sd)
{
    if (i < 0 || i >= NPARAMS || params[i].info.scope != DAM_PARAM_DEVICE)
        return -1;
    dam_est *e = (dam_est *)((char *)&gpu->dev + params[i].off);
    *value = &e->v;
    *sd = &e->sd;
    return 0;
}

int dam_param_ref(int i, dam_scenario *s, double **value, double **sd)
{
    if (i < 0 || i >= NPARAMS)
        return -1;
    if (params[i].info.scope == DAM_PARAM_DEVICE)
        return dam_param_ref_gpu(i, &s->machine.gpu, value, sd);
    dam_workload *w = &s->workload;
    switch (params[i].special) {
    case 1:
        *value = &w->launch_s;
        *sd = &w->fw.launch_sd;
        return 0;
    case 2:
        *value = &w->framework_overhead_s;
        *sd = &w->fw.step_sd;
        return 0;
    default: {
        dam_est *e = (dam_est *)((char *)&w->fw + params[i].off);
        *value = &e->v;
        *sd = &e->sd;
        return 0;
    }
    }
}

void dam_cost_opts_scenario(const dam_scenario *s, double b,
                            dam_cost_opts *o)
{
    const dam_workload *w = &s->workload;
    memset(o, 0, sizeof *o);
    o->gpu = &s->machine.gpu;
    o->fw = &w->fw;
    o->prec = w->precision;
    o->b = b;
    o->eta = w->eta_given ? w->eta : 0.0;
    o->mem_frac = w->eta_mem_given ? w->eta_mem : 0.0;
    o->launch_s = w->launch_s;
    o->cuda_graphs = w->cuda_graphs;
    o->flops_scale = w->flops_scale;
    o->bytes_scale = w->bytes_scale;
    o->weight_scale = w->weight_scale;
    o->matmul_peak_scale = w->matmul_peak_scale;
    o->mem_fused = w->fused;
}
