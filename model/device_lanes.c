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

/* x86-64 with GCC: a second copy of the loops for AVX2 (four doubles a
 * vector instead of SSE2's two), picked at load time; the same operations
 * in the same order either way (no FMA: no contraction), so the same
 * doubles. */
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
/* gemm_lanes in AVX2 vectors written out: GCC's own vectorisation of
 * l2_factor's clamp merges its two selects into one of three compares
 * and a blend; here they are a max and a min. The same IEEE operations
 * in the same order, lane by lane: vmaxpd (a, b) is a > b ? a : b (NaN:
 * b) and vminpd (a, b) a < b ? a : b, as fmax_nan0 and fmin_nan0; the
 * compares are ordered (false on NaN) as C's; no FMA. */
__attribute__((target("avx2"))) static void
gemm_lanes_avx2(const double *c, const double *restrict un,
                const double *restrict ir, const double *restrict im,
                const double *restrict il2, const double *restrict l2s,
                const double *restrict fs, double *restrict a0,
                double *restrict a1)
{
    const __m256d A = _mm256_set1_pd(c[0]), B = _mm256_set1_pd(c[1]),
                  P = _mm256_set1_pd(c[2]), f0 = _mm256_set1_pd(c[3]),
                  by = _mm256_set1_pd(c[4]), cnt = _mm256_set1_pd(c[5]),
                  t0 = _mm256_set1_pd(c[6]);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0),
                  two = _mm256_set1_pd(2.0);
    for (int j = 0; j < DAM_COST_LANES; j += 4) {
        __m256d unit = _mm256_mul_pd(_mm256_loadu_pd(un + j), P);
        __m256d tc = _mm256_mul_pd(_mm256_mul_pd(A, unit), B);
        __m256d tfl = _mm256_mul_pd(f0, _mm256_loadu_pd(ir + j));
        tc = _mm256_max_pd(tc, tfl);
        __m256d h = _mm256_sub_pd(two, _mm256_mul_pd(by,
                                                     _mm256_loadu_pd(il2 + j)));
        h = _mm256_min_pd(_mm256_max_pd(h, zero), one);
        __m256d l2f = _mm256_sub_pd(
            one, _mm256_mul_pd(h, _mm256_loadu_pd(l2s + j)));
        __m256d tm = _mm256_mul_pd(_mm256_mul_pd(by, l2f),
                                   _mm256_loadu_pd(im + j));
        tc = _mm256_add_pd(tc, t0);
        __m256d ge = _mm256_cmp_pd(tc, tm, _CMP_GE_OQ);
        __m256d v = _mm256_mul_pd(
            cnt, _mm256_mul_pd(_mm256_blendv_pd(tm, tc, ge),
                               _mm256_loadu_pd(fs + j)));
        _mm256_storeu_pd(a0 + j, _mm256_add_pd(_mm256_loadu_pd(a0 + j),
                                               _mm256_and_pd(ge, v)));
        _mm256_storeu_pd(a1 + j, _mm256_add_pd(_mm256_loadu_pd(a1 + j),
                                               _mm256_andnot_pd(ge, v)));
    }
}

/* mem_lanes in AVX2 vectors written out, as gemm_lanes_avx2. */
__attribute__((target("avx2"))) static void
mem_lanes_avx2(const double *c, const double *restrict imk,
               const double *restrict il2, const double *restrict l2s,
               const double *restrict bs, double *restrict a1)
{
    const double kern = c[4];
    const __m256d E = _mm256_set1_pd(c[0]), W = _mm256_set1_pd(c[1]),
                  F = _mm256_set1_pd(c[2]), keep = _mm256_set1_pd(c[3]),
                  ik = _mm256_set1_pd(kern > 0.0 ? kern : 1.0);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0),
                  two = _mm256_set1_pd(2.0);
    for (int j = 0; j < DAM_COST_LANES; j += 4) {
        __m256d by = _mm256_mul_pd(
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(
                                            E, _mm256_loadu_pd(bs + j)),
                                        W),
                          F),
            keep);
        __m256d w = _mm256_div_pd(by, ik);
        __m256d h = _mm256_sub_pd(two,
                                  _mm256_mul_pd(w, _mm256_loadu_pd(il2 + j)));
        h = _mm256_min_pd(_mm256_max_pd(h, zero), one);
        __m256d l2f = _mm256_sub_pd(
            one, _mm256_mul_pd(h, _mm256_loadu_pd(l2s + j)));
        __m256d t = _mm256_mul_pd(
            _mm256_mul_pd(by, _mm256_loadu_pd(imk + j)), l2f);
        _mm256_storeu_pd(a1 + j, _mm256_add_pd(_mm256_loadu_pd(a1 + j), t));
    }
}

/* gemm_lanes in AVX-512 vectors written out, as gemm_lanes_avx2: the
 * selects are masks, and a lane's sums gain v or 0.0 as C's do. */
__attribute__((target("avx512f"))) static void
gemm_lanes_avx512(const double *c, const double *restrict un,
                  const double *restrict ir, const double *restrict im,
                  const double *restrict il2, const double *restrict l2s,
                  const double *restrict fs, double *restrict a0,
                  double *restrict a1)
{
    const __m512d A = _mm512_set1_pd(c[0]), B = _mm512_set1_pd(c[1]),
                  P = _mm512_set1_pd(c[2]), f0 = _mm512_set1_pd(c[3]),
                  by = _mm512_set1_pd(c[4]), cnt = _mm512_set1_pd(c[5]),
                  t0 = _mm512_set1_pd(c[6]);
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0),
                  two = _mm512_set1_pd(2.0);
    for (int j = 0; j < DAM_COST_LANES; j += 8) {
        __m512d unit = _mm512_mul_pd(_mm512_loadu_pd(un + j), P);
        __m512d tc = _mm512_mul_pd(_mm512_mul_pd(A, unit), B);
        __m512d tfl = _mm512_mul_pd(f0, _mm512_loadu_pd(ir + j));
        tc = _mm512_max_pd(tc, tfl);
        __m512d h = _mm512_sub_pd(
            two, _mm512_mul_pd(by, _mm512_loadu_pd(il2 + j)));
        h = _mm512_min_pd(_mm512_max_pd(h, zero), one);
        __m512d l2f = _mm512_sub_pd(
            one, _mm512_mul_pd(h, _mm512_loadu_pd(l2s + j)));
        __m512d tm = _mm512_mul_pd(_mm512_mul_pd(by, l2f),
                                   _mm512_loadu_pd(im + j));
        tc = _mm512_add_pd(tc, t0);
        __mmask8 ge = _mm512_cmp_pd_mask(tc, tm, _CMP_GE_OQ);
        __m512d v = _mm512_mul_pd(
            cnt, _mm512_mul_pd(_mm512_mask_blend_pd(ge, tm, tc),
                               _mm512_loadu_pd(fs + j)));
        _mm512_storeu_pd(a0 + j, _mm512_add_pd(_mm512_loadu_pd(a0 + j),
                                               _mm512_maskz_mov_pd(ge, v)));
        _mm512_storeu_pd(a1 + j,
                         _mm512_add_pd(_mm512_loadu_pd(a1 + j),
                                       _mm512_maskz_mov_pd((__mmask8)~ge,
                                                           v)));
    }
}

/* mem_lanes in AVX-512 vectors written out, as mem_lanes_avx2. */
__attribute__((target("avx512f"))) static void
mem_lanes_avx512(const double *c, const double *restrict imk,
                 const double *restrict il2, const double *restrict l2s,
                 const double *restrict bs, double *restrict a1)
{
    const double kern = c[4];
    const __m512d E = _mm512_set1_pd(c[0]), W = _mm512_set1_pd(c[1]),
                  F = _mm512_set1_pd(c[2]), keep = _mm512_set1_pd(c[3]),
                  ik = _mm512_set1_pd(kern > 0.0 ? kern : 1.0);
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0),
                  two = _mm512_set1_pd(2.0);
    for (int j = 0; j < DAM_COST_LANES; j += 8) {
        __m512d by = _mm512_mul_pd(
            _mm512_add_pd(
                _mm512_add_pd(_mm512_mul_pd(E, _mm512_loadu_pd(bs + j)), W),
                F),
            keep);
        __m512d w = _mm512_div_pd(by, ik);
        __m512d h = _mm512_sub_pd(
            two, _mm512_mul_pd(w, _mm512_loadu_pd(il2 + j)));
        h = _mm512_min_pd(_mm512_max_pd(h, zero), one);
        __m512d l2f = _mm512_sub_pd(
            one, _mm512_mul_pd(h, _mm512_loadu_pd(l2s + j)));
        __m512d t = _mm512_mul_pd(
            _mm512_mul_pd(by, _mm512_loadu_pd(imk + j)), l2f);
        _mm512_storeu_pd(a1 + j, _mm512_add_pd(_mm512_loadu_pd(a1 + j), t));
    }
}
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
