/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * device_lanes.c: one graph costed for DAM_COST_LANES draws at once (see
 * device.h, dam_cost_lanes_run): each operator's time in every lane, the
 * lanes side by side in loops the compiler vectorises, each lane's sums
 * in dam_device_cost's order (device.c), so each lane's doubles are the
 * ones dam_device_cost gives for its draw.
 *
 * Built with -fno-trapping-math (CMakeLists.txt): no FP exception traps,
 * which nothing in damsim enables, so GCC may compute both sides of a
 * select (the compute- or memory-bound sums) and vectorise the loops; the
 * operations and their results are the same IEEE doubles (no
 * reassociation, no contraction). Nothing allocates.
 */
#include "model/device.h"

#include <string.h>

/* device.c's l2_factor across the lanes (the same operations). */
#define L2F(w, j) \
    (1.0 - fmin_nan0(fmax_nan0(2.0 - (w) * il2[j])) * l2s[j])
static inline double fmax_nan0(double h)
{
    return h > 0.0 ? h : 0.0;
}
static inline double fmin_nan0(double h)
{
    return h < 1.0 ? h : 1.0;
}

/* x86-64 with GCC: copies of the loops for AVX-512 and AVX2 (eight or
 * four doubles a vector instead of SSE2's two), picked at load time; the
 * same operations in the same order either way (no FMA: no contraction),
 * so the same doubles. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__)
#define LANES_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#define LANES_AVX2 1
#include <immintrin.h>
#else
#define LANES_CLONES
#endif

/* A GEMM's time in every lane (gemm_waves, gemm_join, cost_ordered): the
 * waves (a x unit x 2^-s) x b against f0 / rate, plus the tile
 * pipeline's t0, against the DRAM time; restrict: the sums are apart
 * from the rates. */
static inline void gemm_lanes(const double *c, const double *restrict un,
                              const double *restrict ir,
                              const double *restrict im,
                              const double *restrict il2,
                              const double *restrict l2s,
                              const double *restrict fs, double *restrict a0,
                              double *restrict a1)
{
    const double A = c[0], B = c[1], P = c[2], f0 = c[3], by = c[4],
                 cnt = c[5], t0 = c[6];
    for (int j = 0; j < DAM_COST_LANES; j++) {
        double unit = un[j] * P;
        double tc = A * unit * B, tfl = f0 * ir[j];
        tc = tc > tfl ? tc : tfl;
        double tm = by * L2F(by, j) * im[j];
        tc += t0;
        double v = cnt * ((tc >= tm ? tc : tm) * fs[j]);
        a0[j] += tc >= tm ? v : 0.0;
        a1[j] += tc >= tm ? 0.0 : v;
    }
}

#ifdef LANES_AVX2
/*
 * gemm_lanes and mem_lanes in vectors written out, once for AVX2 (V4:
 * four doubles) and once for AVX-512 (V8: eight). GCC's own vectorisation
 * of l2_factor's clamp merges its two selects into one of three compares
 * and a blend; here they are a max and a min. The same IEEE operations in
 * the same order, lane by lane: vmaxpd (a, b) is a > b ? a : b (NaN: b)
 * and vminpd (a, b) a < b ? a : b, as fmax_nan0 and fmin_nan0; the
 * compares are ordered (false on NaN) as C's; a lane's sums gain v or
 * +0.0 as C's do (AVX2: and with the compare's all-ones lanes; AVX-512:
 * a zeroing move under its mask); no FMA.
 */
#define V4_W 4
#define V4_T __m256d
#define V4_LD(p) _mm256_loadu_pd(p)
#define V4_ST(p, v) _mm256_storeu_pd(p, v)
#define V4_SET1(x) _mm256_set1_pd(x)
#define V4_ZERO() _mm256_setzero_pd()
#define V4_MUL(a, b) _mm256_mul_pd(a, b)
#define V4_ADD(a, b) _mm256_add_pd(a, b)
#define V4_SUB(a, b) _mm256_sub_pd(a, b)
#define V4_DIV(a, b) _mm256_div_pd(a, b)
#define V4_MAX(a, b) _mm256_max_pd(a, b)
#define V4_MIN(a, b) _mm256_min_pd(a, b)
#define V4_GE(a, b) _mm256_cmp_pd(a, b, _CMP_GE_OQ)
#define V4_SEL(m, a, b) _mm256_blendv_pd(b, a, m) /* m ? a : b */
#define V4_IF(m, v) _mm256_and_pd(m, v)           /* m ? v : +0.0 */
#define V4_IFNOT(m, v) _mm256_andnot_pd(m, v)     /* m ? +0.0 : v */

#define V8_W 8
#define V8_T __m512d
#define V8_LD(p) _mm512_loadu_pd(p)
#define V8_ST(p, v) _mm512_storeu_pd(p, v)
#define V8_SET1(x) _mm512_set1_pd(x)
#define V8_ZERO() _mm512_setzero_pd()
#define V8_MUL(a, b) _mm512_mul_pd(a, b)
#define V8_ADD(a, b) _mm512_add_pd(a, b)
#define V8_SUB(a, b) _mm512_sub_pd(a, b)
#define V8_DIV(a, b) _mm512_div_pd(a, b)
#define V8_MAX(a, b) _mm512_max_pd(a, b)
#define V8_MIN(a, b) _mm512_min_pd(a, b)
#define V8_GE(a, b) _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ)
#define V8_SEL(m, a, b) _mm512_mask_blend_pd(m, b, a)
#define V8_IF(m, v) _mm512_maskz_mov_pd(m, v)
#define V8_IFNOT(m, v) _mm512_maskz_mov_pd((__mmask8)~(m), v)

/* l2_factor of w bytes across the lanes at j: 1 - clamp(2 - w / L2) x
 * save. */
#define V_L2F(V, w, j)                                                      \
    V##_SUB(one, V##_MUL(V##_MIN(V##_MAX(V##_SUB(two,                       \
                                                 V##_MUL(w, V##_LD(il2 +   \
                                                                   (j)))),  \
                                         zero),                             \
                                 one),                                      \
                         V##_LD(l2s + (j))))

#define GEMM_LANES_BODY(V)                                                  \
    {                                                                       \
        const V##_T A = V##_SET1(c[0]), B = V##_SET1(c[1]),                 \
                    P = V##_SET1(c[2]), f0 = V##_SET1(c[3]),                \
                    by = V##_SET1(c[4]), cnt = V##_SET1(c[5]),              \
                    t0 = V##_SET1(c[6]);                                    \
        const V##_T zero = V##_ZERO(), one = V##_SET1(1.0),                 \
                    two = V##_SET1(2.0);                                    \
        for (int j = 0; j < DAM_COST_LANES; j += V##_W) {                   \
            V##_T unit = V##_MUL(V##_LD(un + j), P);                        \
            V##_T tc = V##_MUL(V##_MUL(A, unit), B);                        \
            tc = V##_MAX(tc, V##_MUL(f0, V##_LD(ir + j)));                  \
            V##_T tm = V##_MUL(V##_MUL(by, V_L2F(V, by, j)),                \
                               V##_LD(im + j));                             \
            tc = V##_ADD(tc, t0);                                           \
            __typeof__(V##_GE(tc, tm)) ge = V##_GE(tc, tm);                 \
            V##_T v = V##_MUL(cnt, V##_MUL(V##_SEL(ge, tc, tm),             \
                                           V##_LD(fs + j)));                \
            V##_ST(a0 + j, V##_ADD(V##_LD(a0 + j), V##_IF(ge, v)));         \
            V##_ST(a1 + j, V##_ADD(V##_LD(a1 + j), V##_IFNOT(ge, v)));      \
        }                                                                   \
    }

#define MEM_LANES_BODY(V)                                                   \
    {                                                                       \
        const double kern = c[4];                                           \
        const V##_T E = V##_SET1(c[0]), W = V##_SET1(c[1]),                 \
                    F = V##_SET1(c[2]), keep = V##_SET1(c[3]),              \
                    ik = V##_SET1(kern > 0.0 ? kern : 1.0);                 \
        const V##_T zero = V##_ZERO(), one = V##_SET1(1.0),                 \
                    two = V##_SET1(2.0);                                    \
        for (int j = 0; j < DAM_COST_LANES; j += V##_W) {                   \
            V##_T by = V##_MUL(                                             \
                V##_ADD(V##_ADD(V##_MUL(E, V##_LD(bs + j)), W), F), keep);  \
            V##_T w = V##_DIV(by, ik);                                      \
            V##_T t = V##_MUL(V##_MUL(by, V##_LD(imk + j)),                 \
                              V_L2F(V, w, j));                              \
            V##_ST(a1 + j, V##_ADD(V##_LD(a1 + j), t));                     \
        }                                                                   \
    }

#define GEMM_LANES_ARGS                                                     \
    const double *c, const double *restrict un, const double *restrict ir, \
        const double *restrict im, const double *restrict il2,             \
        const double *restrict l2s, const double *restrict fs,             \
        double *restrict a0, double *restrict a1
#define MEM_LANES_ARGS                                                      \
    const double *c, const double *restrict imk,                           \
        const double *restrict il2, const double *restrict l2s,            \
        const double *restrict bs, double *restrict a1

__attribute__((target("avx2"))) static void
gemm_lanes_avx2(GEMM_LANES_ARGS) GEMM_LANES_BODY(V4)
__attribute__((target("avx2"))) static void
mem_lanes_avx2(MEM_LANES_ARGS) MEM_LANES_BODY(V4)
__attribute__((target("avx512f"))) static void
gemm_lanes_avx512(GEMM_LANES_ARGS) GEMM_LANES_BODY(V8)
__attribute__((target("avx512f"))) static void
mem_lanes_avx512(MEM_LANES_ARGS) MEM_LANES_BODY(V8)
#endif

/* Fused attention in every lane (cost_attn without streamed cache
 * reads; ia: the pass's 1 / rate). */
static inline void attn_lanes(const double *c, const dam_cost_lanes *l,
                              const double *ia, double *a0, double *a1)
{
    const double *restrict im = l->inv_mem, *restrict il2 = l->inv_l2c;
    const double *restrict l2s = l->l2_save, *restrict fs = l->fs;
    const double *restrict bs = l->bs;
    const double F = c[0], KV = c[1], AE = c[2], cnt = c[3];
    for (int j = 0; j < DAM_COST_LANES; j++) {
        double fl = F * fs[j];
        double by = AE * bs[j] + KV * bs[j];
        double tc = fl * ia[j];
        double tmm = by * L2F(by, j) * im[j];
        double v = cnt * (tc >= tmm ? tc : tmm);
        a0[j] += tc >= tmm ? v : 0.0;
        a1[j] += tc >= tmm ? 0.0 : v;
    }
}

/* Merged memory-bound kernels in every lane (cost_ordered; the working
 * set one kernel's bytes). */
static inline void mem_lanes(const double *c, const double *restrict imk,
                             const double *restrict il2,
                             const double *restrict l2s,
                             const double *restrict bs, double *restrict a1)
{
    const double E = c[0], W = c[1], F = c[2], keep = c[3], kern = c[4];
    const double ik = kern > 0.0 ? kern : 1.0;
    for (int j = 0; j < DAM_COST_LANES; j++) {
        double by = (E * bs[j] + W + F) * keep;
        a1[j] += by * imk[j] * L2F(by / ik, j);
    }
}

LANES_CLONES
void dam_cost_lanes_run(const dam_cost_plan *p, dam_cost_lanes *l)
{
    enum { L = DAM_COST_LANES };
    memset(l->acc, 0, (size_t)p->nph * DAM_PASS_COUNT * sizeof l->acc[0]);
#ifdef LANES_AVX2
    int avx2 = __builtin_cpu_supports("avx2");
    int avx512 = __builtin_cpu_supports("avx512f");
#endif
    for (int i = 0; i < p->nsteps; i++) {
        const dam_cost_step *st = &p->step[i];
        double *a0 = l->acc[st->acc][0], *a1 = l->acc[st->acc][1];
#ifdef LANES_AVX2
        if (st->kind == DAM_OP_GEMM && avx512)
            gemm_lanes_avx512(st->c, l->unit[st->ci], l->inv_rate[st->ci],
                              l->inv_mem, l->inv_l2c, l->l2_save, l->fs, a0,
                              a1);
        else if (st->kind == DAM_OP_GEMM && avx2)
            gemm_lanes_avx2(st->c, l->unit[st->ci], l->inv_rate[st->ci],
                            l->inv_mem, l->inv_l2c, l->l2_save, l->fs, a0,
                            a1);
        else
#endif
        if (st->kind == DAM_OP_GEMM)
            gemm_lanes(st->c, l->unit[st->ci], l->inv_rate[st->ci],
                       l->inv_mem, l->inv_l2c, l->l2_save, l->fs, a0, a1);
        else if (st->kind == DAM_OP_ATTN)
            attn_lanes(st->c, l, st->ci ? l->inv_ab : l->inv_af, a0, a1);
#ifdef LANES_AVX2
        else if (avx512)
            mem_lanes_avx512(st->c, l->inv_mem_k, l->inv_l2c, l->l2_save,
                             l->bs, a1);
        else if (avx2)
            mem_lanes_avx2(st->c, l->inv_mem_k, l->inv_l2c, l->l2_save,
                           l->bs, a1);
#endif
        else
            mem_lanes(st->c, l->inv_mem_k, l->inv_l2c, l->l2_save, l->bs,
                      a1);
    }
    /* cost_fold, lane by lane (the launches' sums are the plan's): each
     * sum's first term added to 0.0 where it starts (no zeroing pass:
     * GCC makes those memsets of 128 bytes each); the phases past nph
     * are left as they were (dam_cost_lanes_get reads none of them) */
    const double *restrict gap = l->gap;
    double *restrict kt = l->kernel_time;
    for (int ph = 0; ph < p->nph; ph++) {
        double *restrict tc = l->ph_tc[ph], *restrict tm = l->ph_tm[ph];
        double *restrict tt_ = l->ph_time[ph];
        for (int ps_ = 0; ps_ < DAM_PASS_COUNT; ps_++) {
            const double *restrict a0 = l->acc[ph * DAM_PASS_COUNT + ps_][0];
            const double *restrict a1 = l->acc[ph * DAM_PASS_COUNT + ps_][1];
            double *restrict pt = l->pass_time[ps_];
            double *restrict pk = l->pass_kt[ps_];
            const double a4 = p->kern[ph][ps_];
            /* tc, tm, tt_ start at the phase's first pass, pt and pk at
             * the first phase */
            double fph = ps_ == 0 ? 0.0 : 1.0, fps = ph == 0 ? 0.0 : 1.0;
            for (int j = 0; j < L; j++) {
                double tt = a0[j] + a1[j];
                tc[j] = (fph == 0.0 ? 0.0 : tc[j]) + a0[j];
                tm[j] = (fph == 0.0 ? 0.0 : tm[j]) + a1[j];
                tt_[j] = (fph == 0.0 ? 0.0 : tt_[j]) + tt;
                pt[j] = (fps == 0.0 ? 0.0 : pt[j]) + (tt + a4 * gap[j]);
                pk[j] = (fps == 0.0 ? 0.0 : pk[j]) + tt;
            }
        }
        for (int j = 0; j < L; j++)
            kt[j] = (ph == 0 ? 0.0 : kt[j]) + tt_[j];
    }
    if (p->nph == 0) {
        memset(l->pass_time, 0, sizeof l->pass_time);
        memset(l->pass_kt, 0, sizeof l->pass_kt);
        memset(l->kernel_time, 0, sizeof l->kernel_time);
    }
    const double kernels = p->kernels;
    const double *restrict ls = l->launch_s;
    const int graphs = p->cuda_graphs;
    for (int j = 0; j < L; j++) {
        double gt = kernels * gap[j];
        double t = l->kernel_time[j] + gt + 0.0; /* no collectives */
        double ht = graphs ? ls[j] : kernels * ls[j];
        l->gap_time[j] = gt;
        l->time[j] = t;
        l->host_time[j] = ht;
        l->host_excess[j] = ht > t - 0.0 ? ht - (t - 0.0) : 0.0;
    }
}
