/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_scaling.c: each Chinchilla fit against what its authors published,
 * the parametric ones against a numerical minimisation, and the default
 * against the paper's headline allocation.
 *
 * Which numbers and why (see shared/validation/README.md, including its
 * warning about the paper's inconsistencies):
 * - approach1: its constants are a least-squares power law through the
 *   paper's Table 3 (approach 1's own projections): the test refits them
 *   with gsl_fit_linear (by construction), checks the Table 3 rows against
 *   the law (a FIT RESIDUAL: the data it was fitted on; the 67B row prints
 *   1.5e12 tokens for 5.76e23 FLOPs where 6ND gives 6.03e23, so its tokens
 *   miss by 5 %), and checks the exponent against Table 2's 0.50 interval
 *   (0.488, 0.502), which the paper reports for the same approach from its
 *   bootstrap (a consistency check, not an independent one).
 * - The default reproduces the paper's headline allocation: Chinchilla,
 *   70e9 parameters on 1.4e12 tokens at Gopher's budget 5.76e23 (sec. 4),
 *   within 5 % each (out of sample: the headline is not in Table 3).
 * - approach2: exponent 0.49 (Table 2, by construction); its constant is
 *   damsim's anchor at approach 1 in the middle of the IsoFLOP budgets (by
 *   construction); the paper says approaches 1 and 2 "yield very similar
 *   predictions" (sec. 3.4): within 5 % of approach 1 over the IsoFLOP
 *   budgets 6e18 .. 3e21, and at Gopher's budget inside the paper's "between
 *   40 and 70 billion" (sec. 4).
 * - approach3: E 1.69, A 406.4, B 410.7, alpha 0.34, beta 0.28 as printed
 *   (sec. D.2). They give a = 0.452 where Table 2 says 0.46 and 32.2e9
 *   parameters at 5.76e23 where Figure 4's caption says 40e9: the rounding
 *   bias Besiroglu et al. 2024 describe. The test pins what the printed
 *   constants give (computed by hand, double precision, Python: 3.219e10,
 *   2.982e12) and checks they are within the rounding's reach of the
 *   paper's figures (a within 0.01, N within 25 % below 40e9).
 * - epoch2024: Besiroglu et al.'s constants (public-cases.csv epoch_fit_*);
 *   their paper reports the refit compatible with approaches 1 and 2: its
 *   exponent (0.513) inside approach 2's Table 2 interval (0.462, 0.534)
 *   and its N at Gopher's budget (7.22e10, by hand) within 10 % of
 *   approach 1's.
 * - Gopher (280e9 params, 300e9 tokens) and Chinchilla (70e9, 1.4e12)
 *   were trained on one budget, 5.76e23 FLOPs as the Chinchilla paper
 *   counts them with attention and embeddings (public-cases.csv
 *   gopher_chinchilla_flops): damsim's 6ND, which leaves those out, must
 *   come within 15 % of it for both (5.04e23 and 5.88e23: -12.5 % and
 *   +2.1 %; 5ND or 7ND would not). The 15 % was chosen knowing those two
 *   ratios, so it guards the FLOP rule rather than predicting blind. Every
 *   loss must give Chinchilla the lower loss.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_min.h>
#include <math.h>

#include "check.h"
#include <string.h>

#include "model/scaling.h"

/* Loss along the iso-FLOP line, as a function of x = ln N. */
typedef struct iso {
    const dam_scaling_fit *f;
    double c;
} iso;

static double iso_loss(double x, void *p)
{
    const iso *q = p;
    double n = exp(x);
    return dam_scaling_loss(q->f, n, q->c / (6.0 * n));
}

/* Minimise the loss over ln N in [ln 1e8, ln 1e13] with Brent's method. */
static int gsl_optimum(const dam_scaling_fit *f, double c, double guess,
                       double *n_out)
{
    iso q = {f, c};
    gsl_function fn = {iso_loss, &q};
    gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    int status = gsl_min_fminimizer_set(m, &fn, log(guess), log(1e8),
                                        log(1e13));
    for (int i = 0; status == GSL_SUCCESS && i < 200; i++) {
        status = gsl_min_fminimizer_iterate(m);
        if (status != GSL_SUCCESS)
            break;
        double lo = gsl_min_fminimizer_x_lower(m);
        double hi = gsl_min_fminimizer_x_upper(m);
        status = gsl_min_test_interval(lo, hi, 1e-10, 0.0);
        if (status == GSL_SUCCESS)
            break;
        if (status != GSL_CONTINUE)
            break;
        status = GSL_SUCCESS;
    }
    *n_out = exp(gsl_min_fminimizer_x_minimum(m));
    gsl_min_fminimizer_free(m);
    return status;
}

#define FIT(id) dam_scaling_fit_get(DAM_SCALING_##id)

static void test_gopher_chinchilla(void)
{
    double cg = dam_scaling_compute(280e9, 300e9);
    double cc = dam_scaling_compute(70e9, 1.4e12);
    /* the published budget of both runs, an independent count */
    const double published = 5.76e23;
    dam_check(fabs(cg / published - 1.0) <= 0.15,
              "Gopher: 6ND = %.3g within 15 %% of the paper's count %.3g",
              cg, published);
    dam_check(fabs(cc / published - 1.0) <= 0.15,
              "Chinchilla: 6ND = %.3g within 15 %% of the paper's count %.3g",
              cc, published);
    for (int i = 0; i < DAM_SCALING_FIT_COUNT; i++) {
        const dam_scaling_fit *f = dam_scaling_fit_get((dam_scaling_fit_id)i);
        double lg = dam_scaling_loss(f, 280e9, 300e9);
        double lc = dam_scaling_loss(f, 70e9, 1.4e12);
        dam_check(lc < lg, "%s: Chinchilla loss %.4f < Gopher loss %.4f",
                  f->name, lc, lg);
    }
    dam_check_rel(dam_scaling_loss(FIT(APPROACH3), 280e9, 300e9), 1.99326,
                  1e-4, "approach3: Gopher loss");
    dam_check_rel(dam_scaling_loss(FIT(APPROACH3), 70e9, 1.4e12), 1.93665,
                  1e-4, "approach3: Chinchilla loss");
    dam_check(isnan(dam_scaling_loss(FIT(APPROACH3), 0.0, 1e9)),
              "loss of N = 0 is NaN");
}

static void test_approach1(void)
{
    const dam_scaling_fit *f = FIT(APPROACH1);
    size_t m = dam_scaling_table3_rows;
    double x[16], y[16], c0, c1, cov00, cov01, cov11, ss;
    dam_check_int((long)m, 9, "Table 3 has nine rows");
    for (size_t i = 0; i < m; i++) {
        double n, fl, t;
        dam_scaling_table3(i, &n, &fl, &t);
        x[i] = log(fl);
        y[i] = log(n);
    }
    gsl_fit_linear(x, 1, y, 1, m, &c0, &c1, &cov00, &cov01, &cov11, &ss);
    dam_check_rel(f->a, c1, 1e-9, "approach1: a is the Table 3 fit's slope");
    dam_check_rel(f->n0, exp(c0 + c1 * log(f->c0)), 1e-9,
                  "approach1: n0 is the Table 3 fit at c0");
    dam_check(f->a > 0.488 && f->a < 0.502,
              "approach1: a %.4f inside Table 2's (0.488, 0.502)", f->a);
    for (size_t i = 0; i < m; i++) {
        double n, fl, t, nf, df;
        dam_scaling_table3(i, &n, &fl, &t);
        dam_scaling_optimal(f, fl, &nf, &df, NULL);
        dam_check(fabs(nf / n - 1.0) < 0.02,
                  "approach1 fit residual, Table 3 row %.3g: N %.4g (2 %%)",
                  n, nf);
        double tol = n == 67e9 ? 0.06 : 0.02; /* the row's 6ND != FLOPs */
        dam_check(fabs(df / t - 1.0) < tol,
                  "approach1 fit residual, Table 3 row %.3g: D %.4g vs %.4g",
                  n, df, t);
    }
    dam_check(dam_scaling_fit_get(DAM_SCALING_DEFAULT) == f,
              "approach1 is the default");
    double n, d;
    dam_scaling_optimal(f, 5.76e23, &n, &d, NULL);
    dam_check(fabs(n / 70e9 - 1.0) < 0.05,
              "default at Gopher's budget: N %.4g within 5 %% of "
              "Chinchilla's 70e9", n);
    dam_check(fabs(d / 1.4e12 - 1.0) < 0.05,
              "default at Gopher's budget: D %.4g within 5 %% of "
              "Chinchilla's 1.4e12", d);
    dam_check_rel(6.0 * n * d, 5.76e23, 1e-12, "default: 6 N D = C");
}

static void test_approach2(void)
{
    const dam_scaling_fit *f = FIT(APPROACH2), *a1 = FIT(APPROACH1);
    double n, d, n1, d1;
    dam_check_rel(dam_scaling_exponent(f), 0.49, 0.0,
                  "approach2: a = 0.49 (Table 2)");
    dam_scaling_optimal(f, sqrt(6e18 * 3e21), &n, &d, NULL);
    dam_scaling_optimal(a1, sqrt(6e18 * 3e21), &n1, &d1, NULL);
    dam_check_rel(n, n1, 1e-9, "approach2 anchored at approach 1 in the "
                  "middle of its IsoFLOP budgets (by construction)");
    for (double c = 6e18; c <= 3e21 * 1.0001; c *= 3.0) {
        dam_scaling_optimal(f, c, &n, &d, NULL);
        dam_scaling_optimal(a1, c, &n1, &d1, NULL);
        dam_check(fabs(n / n1 - 1.0) < 0.05,
                  "approach2 within 5 %% of approach1 at %.3g FLOPs", c);
    }
    dam_scaling_optimal(f, 5.76e23, &n, &d, NULL);
    dam_check(n >= 40e9 && n <= 70e9,
              "approach2 at Gopher's budget: %.4g in the paper's 40e9 .. "
              "70e9", n);
}

static void test_approach3(void)
{
    const dam_scaling_fit *f = FIT(APPROACH3);
    const double c = 5.76e23;
    double n, d, ng;
    dam_error err;
    dam_check(f->parametric && f->A == 406.4 && f->B == 410.7 &&
                  f->E == 1.69 && f->alpha == 0.34 && f->beta == 0.28,
              "approach3: the constants of eq. 10 as printed");
    dam_check(fabs(dam_scaling_exponent(f) - 0.46) < 0.01,
              "approach3: a %.4f within rounding of Table 2's 0.46",
              dam_scaling_exponent(f));
    dam_check_int(dam_scaling_optimal(f, c, &n, &d, &err), DAM_OK,
                  "optimal: ok");
    dam_check_rel(dam_scaling_compute(n, d), c, 1e-12,
                  "optimal: 6 N D equals the budget");
    dam_check_rel(n, 3.2189859e10, 1e-3,
                  "approach3 as printed: N_opt at 5.76e23 is 32.2e9");
    dam_check_rel(d, 2.9823057e12, 1e-3, "approach3: D_opt 2.98e12");
    dam_check(n < 40e9 && n > 0.75 * 40e9,
              "approach3: %.3g below Figure 4's 40e9 by the rounding (< 25 "
              "%%)", n);
    dam_check_rel(dam_scaling_optimal_ratio(f, c), 92.647, 1e-3,
                  "approach3: 92.6 tokens per parameter");
    dam_check_int(gsl_optimum(f, c, 1e10, &ng), GSL_SUCCESS,
                  "gsl_min converged (approach3)");
    dam_check_rel(ng, n, 1e-6, "gsl_min optimum == closed form (approach3)");
    const double budgets[] = {1.92e19, 1.21e20, 1.23e22, 3.85e24, 1.27e26};
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        dam_scaling_optimal(f, budgets[i], &n, &d, NULL);
        int st = gsl_optimum(f, budgets[i], n * 3.0, &ng);
        dam_check(st == GSL_SUCCESS && fabs(ng / n - 1.0) < 1e-6,
                  "C = %.3g: gsl_min %.6g vs closed form %.6g", budgets[i],
                  ng, n);
    }
    dam_check_int(dam_scaling_optimal(f, 0.0, &n, &d, &err), DAM_EINPUT,
                  "optimal of C = 0: DAM_EINPUT");
    dam_check_int(dam_scaling_optimal(f, NAN, &n, &d, &err), DAM_EINPUT,
                  "optimal of C = NaN: DAM_EINPUT");
}

static void test_epoch(void)
{
    const dam_scaling_fit *f = FIT(EPOCH2024);
    const double c = 5.76e23;
    double n, d, ng, n1, d1;
    dam_check(f->E == 1.817 && f->A == 482.01 && f->B == 2085.43 &&
                  f->alpha == 0.3478 && f->beta == 0.3658,
              "epoch2024: Besiroglu et al.'s constants (public-cases.csv)");
    double a = dam_scaling_exponent(f);
    dam_check(a > 0.462 && a < 0.534,
              "epoch2024: a %.4f inside approach 2's (0.462, 0.534)", a);
    dam_scaling_optimal(f, c, &n, &d, NULL);
    dam_check_rel(n, 7.22487e10, 1e-3, "epoch2024: N_opt 72.2e9");
    dam_check_rel(d, 1.328744e12, 1e-3, "epoch2024: D_opt 1.33e12");
    dam_check_int(gsl_optimum(f, c, 1e10, &ng), GSL_SUCCESS,
                  "gsl_min converged (epoch2024)");
    dam_check_rel(ng, n, 1e-6, "gsl_min optimum == closed form (epoch2024)");
    dam_scaling_optimal(FIT(APPROACH1), c, &n1, &d1, NULL);
    dam_check(fabs(n / n1 - 1.0) < 0.10,
              "epoch2024 within 10 %% of approach1 at Gopher's budget "
              "(%.3g vs %.3g)", n, n1);
}

static void test_split_and_iso(void)
{
    const dam_scaling_fit *f = FIT(APPROACH3);
    const double c = 5.76e23;
    double n, d, nopt, dopt;
    dam_error err;

    dam_check_int(dam_scaling_split(c, 20.0, &n, &d, &err), DAM_OK,
                  "split 20: ok");
    dam_check_rel(d / n, 20.0, 1e-12, "split 20: D/N = 20");
    dam_check_rel(dam_scaling_compute(n, d), c, 1e-12, "split 20: 6ND = C");
    dam_check_rel(n, sqrt(c / 120.0), 1e-12, "split 20: N = sqrt(C/120)");
    dam_check_int(dam_scaling_split(c, -1.0, &n, &d, &err), DAM_EINPUT,
                  "split -1: DAM_EINPUT");

    /* Iso-FLOP curve: its smallest sample sits next to the optimum and the
     * curve falls then rises. */
    double ns[61], ds[61], ls[61];
    dam_check_int(dam_scaling_isoflop(f, c, 1e9, 1e12, 61, ns, ds, ls, &err),
                  DAM_OK, "isoflop: ok");
    dam_scaling_optimal(f, c, &nopt, &dopt, NULL);
    size_t best = 0;
    for (size_t i = 1; i < 61; i++)
        if (ls[i] < ls[best])
            best = i;
    double step = pow(1e3, 1.0 / 60.0);
    dam_check(ns[best] / nopt < step && nopt / ns[best] < step,
              "isoflop: best sample %.3g within one step of N_opt %.3g",
              ns[best], nopt);
    int shape = 1;
    for (size_t i = 1; i < 61; i++)
        if ((i <= best && !(ls[i] < ls[i - 1]))
            || (i > best && !(ls[i] > ls[i - 1])))
            shape = 0;
    dam_check(shape, "isoflop: loss falls to the optimum, then rises");
    dam_check_rel(ns[0], 1e9, 1e-12, "isoflop: first N = n_lo");
    dam_check_rel(ns[60], 1e12, 0.0, "isoflop: last N = n_hi exactly");
    dam_check_rel(6.0 * ns[30] * ds[30], c, 1e-12, "isoflop: on the budget");
    dam_check_int(dam_scaling_isoflop(f, c, 1e9, 1e12, 1, ns, ds, ls, &err),
                  DAM_EINPUT, "isoflop with 1 point: DAM_EINPUT");
    dam_check_int(dam_scaling_isoflop(f, c, 1e12, 1e9, 10, ns, NULL, ls,
                                      &err),
                  DAM_EINPUT, "isoflop with n_lo > n_hi: DAM_EINPUT");
}

static void test_table(void)
{
    dam_scaling_fit_id id;
    for (int i = 0; i < DAM_SCALING_FIT_COUNT; i++) {
        const dam_scaling_fit *f = dam_scaling_fit_get((dam_scaling_fit_id)i);
        dam_check(f && (int)f->id == i &&
                      !strcmp(f->name, dam_scaling_fit_names[i]),
                  "fit table entry %d is %s", i, dam_scaling_fit_names[i]);
    }
    dam_check(dam_scaling_fit_get(DAM_SCALING_FIT_COUNT) == NULL,
              "fit table: out of range is NULL");
    dam_check(dam_scaling_fit_parse("epoch", &id) == 0
                  && id == DAM_SCALING_EPOCH2024, "parse 'epoch'");
    dam_check(dam_scaling_fit_parse("Approach2", &id) == 0
                  && id == DAM_SCALING_APPROACH2, "parse 'Approach2'");
    dam_check(dam_scaling_fit_parse("hoffmann2022", &id) == 0
                  && id == DAM_SCALING_APPROACH3, "parse 'hoffmann2022'");
    dam_check(dam_scaling_fit_parse("kaplan", &id) == -1, "parse 'kaplan'");
}

int main(void)
{
    gsl_set_error_handler_off();
    test_gopher_chinchilla();
    test_approach1();
    test_approach2();
    test_approach3();
    test_epoch();
    test_split_and_iso();
    test_table();
    return dam_check_done();
}
