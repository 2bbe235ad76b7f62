/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fit.h: weighted nonlinear least squares over named, bounded parameters,
 * with standard errors: the numerical core of `damsim calibrate`.
 *
 * The caller lists parameters (a name, a start value, an open range
 * (lo, hi)) and a residual function r(x) of n residuals, already divided
 * by each measurement's standard error. The fit minimises sum r_i^2 with
 * GSL's trust-region solver (gsl_multifit_nlinear, Levenberg-Marquardt
 * with geodesic acceleration off, finite-difference Jacobian) over
 * unbounded internal coordinates: y = log(x - lo) when hi is infinite,
 * y = logit((x - lo) / (hi - lo)) otherwise, so every trial point is
 * admissible and the solver needs no constraints.
 *
 * Standard errors: the covariance of the internal coordinates is
 * (J^T J)^-1 (gsl_multifit_nlinear_covar), scaled by the residual
 * variance s^2 = chi^2 / dof when dof > 0, as GSL's own examples scale it
 * with max(1, chi^2/dof): a fit whose residuals are smaller than the stated
 * measurement errors is not allowed to claim more precision than those
 * errors give (then the scale is 1). The delta method carries it to x:
 * se(x_j) = |dx_j/dy_j| * sqrt(C_jj). A parameter whose Jacobian column is
 * (numerically) zero is not determined by the data: it keeps its start
 * value, is marked undetermined, and is left out of the fit.
 *
 * No state outside the caller's structs; nothing printed.
 */
#ifndef DAM_FIT_H
#define DAM_FIT_H

#include "model/error.h"

/* One parameter. */
typedef struct dam_fit_param {
    char name[160];     /* for messages */
    double value;       /* in: the start; out: the fitted value */
    double lo, hi;      /* open range; hi = HUGE_VAL for none above */
    double se;          /* out: standard error (0 when undetermined) */
    int undetermined;   /* out: 1 when no residual depends on it */
} dam_fit_param;

/*
 * Residuals at parameter values x[0..np-1] into r[0..n-1]: (predicted -
 * measured) / sigma, or a relative form of it. Returns 0, or nonzero when
 * the model cannot be evaluated at x (the solver then shrinks its step).
 */
typedef int (*dam_fit_fn)(const double *x, double *r, void *ctx);

/* The outcome beside the parameters. */
typedef struct dam_fit_report {
    int n;              /* residuals */
    int np;             /* parameters fitted (determined ones) */
    int dof;            /* n - np */
    double chi2;        /* sum of squared residuals at the optimum */
    double chi2_start;  /* at the start */
    double scale;       /* the se scale: sqrt(max(1, chi2/dof)), 1 if dof = 0 */
    int iterations;     /* solver iterations */
    int converged;      /* 1: a convergence test was met; 0: the iteration
                           limit was reached (values are the last iterate) */
    char stop[64];      /* why it stopped: "small step", "small gradient",
                           "iteration limit" */
} dam_fit_report;

/*
 * Fit the np parameters to n residuals of f. r_out (may be NULL) receives
 * the residuals at the optimum. Returns DAM_OK, or DAM_EINPUT (err filled)
 * when n < 1, np < 1, a start value lies outside its range, every
 * parameter is undetermined, or f fails at the start; DAM_ERUNTIME when
 * GSL fails.
 */
int dam_fit_run(dam_fit_param *p, int np, int n, dam_fit_fn f, void *ctx,
                double *r_out, dam_fit_report *rep, dam_error *err);

#endif
