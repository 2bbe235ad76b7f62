/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fit.c: bounded nonlinear least squares with GSL's gsl_multifit_nlinear
 * (see fit.h). The solver works on internal coordinates y of the
 * determined parameters only; `problem` maps y back to every parameter's
 * x before calling the user's residual function.
 */
#include "solver/fit.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"

#define MAX_ITER 200

typedef struct problem {
    dam_fit_param *p;  /* all parameters */
    int np;            /* all of them */
    int *idx;          /* internal coordinate k -> parameter idx[k] */
    int nk;            /* determined parameters */
    double *x;         /* work: every parameter's value */
    double *r;         /* work: the residuals (GSL's vectors may be strided:
                          a Jacobian column) */
    dam_fit_fn f;
    void *ctx;
} problem;

static double to_x(const dam_fit_param *p, double y)
{
    if (isinf(p->hi)) {
        double e = exp(y);
        return p->lo + (e > 0.0 ? e : 1e-300);
    }
    return p->lo + (p->hi - p->lo) / (1.0 + exp(-y));
}

static double to_y(const dam_fit_param *p, double x)
{
    if (isinf(p->hi))
        return log(x - p->lo);
    double t = (x - p->lo) / (p->hi - p->lo);
    return log(t / (1.0 - t));
}

/* dx/dy at x. */
static double slope(const dam_fit_param *p, double x)
{
    if (isinf(p->hi))
        return x - p->lo;
    return (x - p->lo) * (p->hi - x) / (p->hi - p->lo);
}

static int eval(const problem *pb, const gsl_vector *y, gsl_vector *r)
{
    for (int k = 0; k < pb->nk; k++)
        pb->x[pb->idx[k]] = to_x(&pb->p[pb->idx[k]], gsl_vector_get(y, (size_t)k));
    if (pb->f(pb->x, pb->r, pb->ctx) != 0)
        return GSL_EDOM;
    for (size_t i = 0; i < r->size; i++) {
        if (!isfinite(pb->r[i]))
            return GSL_EDOM;
        gsl_vector_set(r, i, pb->r[i]);
    }
    return GSL_SUCCESS;
}

static int gsl_f(const gsl_vector *y, void *params, gsl_vector *r)
{
    return eval(params, y, r);
}

static double sumsq(const double *r, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += r[i] * r[i];
    return s;
}

/*
 * Which parameters the residuals depend on: a central difference in each
 * internal coordinate at the start; a column whose largest entry is below
 * 1e-9 of the largest column's is undetermined.
 */
static int determined(problem *pb, int n, double *r0, double *r1)
{
    double *norm = dam_calloc((size_t)pb->np, sizeof *norm), big = 0.0;
    int rc = 0;
    for (int j = 0; j < pb->np && rc == 0; j++) {
        dam_fit_param *q = &pb->p[j];
        double y = to_y(q, q->value), h = 1e-4 * (fabs(y) > 1.0 ? fabs(y) : 1.0);
        pb->x[j] = to_x(q, y + h);
        rc |= pb->f(pb->x, r0, pb->ctx);
        pb->x[j] = to_x(q, y - h);
        rc |= pb->f(pb->x, r1, pb->ctx);
        pb->x[j] = q->value;
        for (int i = 0; i < n && rc == 0; i++) {
            double d = fabs(r0[i] - r1[i]) / (2.0 * h);
            if (isfinite(d) && d > norm[j])
                norm[j] = d;
        }
        if (norm[j] > big)
            big = norm[j];
    }
    pb->nk = 0;
    for (int j = 0; j < pb->np; j++) {
        pb->p[j].undetermined = !(norm[j] > 1e-9 * big && big > 0.0);
        if (!pb->p[j].undetermined)
            pb->idx[pb->nk++] = j;
    }
    dam_free(norm);
    return rc;
}

int dam_fit_run(dam_fit_param *p, int np, int n, dam_fit_fn f, void *ctx,
                double *r_out, dam_fit_report *rep, dam_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (n < 1 || np < 1)
        return dam_error_set(err, "", 0, "nothing to fit (%d measurements, "
                             "%d constants)", n, np);
    for (int j = 0; j < np; j++) {
        p[j].se = 0.0;
        p[j].undetermined = 0;
        if (!(p[j].value > p[j].lo && p[j].value < p[j].hi))
            return dam_error_set(err, "", 0,
                                 "the start of '%s' (%g) is outside (%g, %g)",
                                 p[j].name, p[j].value, p[j].lo, p[j].hi);
    }
    problem pb = {p, np, dam_calloc((size_t)np, sizeof(int)), 0,
                  dam_calloc((size_t)np, sizeof(double)),
                  dam_calloc((size_t)n, sizeof(double)), f, ctx};
    double *r0 = dam_calloc((size_t)n, sizeof *r0);
    double *r1 = dam_calloc((size_t)n, sizeof *r1);
    int rc = DAM_OK;
    gsl_multifit_nlinear_workspace *w = NULL;
    gsl_matrix *cov = NULL;
    gsl_vector *y0 = NULL;
    for (int j = 0; j < np; j++)
        pb.x[j] = p[j].value;
    if (f(pb.x, r0, ctx) != 0 || !isfinite(sumsq(r0, n))) {
        rc = dam_error_set(err, "", 0,
                           "the model cannot be evaluated at the start");
        goto done;
    }
    rep->chi2_start = sumsq(r0, n);
    if (determined(&pb, n, r0, r1) != 0) {
        rc = dam_error_set(err, "", 0,
                           "the model cannot be evaluated near the start");
        goto done;
    }
    if (pb.nk == 0) {
        rc = dam_error_set(err, "", 0,
                           "no constant affects the measurements: nothing "
                           "to fit");
        goto done;
    }
    if (pb.nk > n) {
        rc = dam_error_set(err, "", 0,
                           "%d constants but only %d measurements: fit "
                           "fewer constants or measure more", pb.nk, n);
        goto done;
    }
    gsl_multifit_nlinear_parameters fp =
        gsl_multifit_nlinear_default_parameters();
    w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp,
                                   (size_t)n, (size_t)pb.nk);
    if (!w) {
        rc = dam_error_set(err, "", 0, "gsl_multifit_nlinear_alloc failed");
        rc = DAM_ERUNTIME;
        goto done;
    }
    y0 = gsl_vector_alloc((size_t)pb.nk);
    for (int k = 0; k < pb.nk; k++)
        gsl_vector_set(y0, (size_t)k, to_y(&p[pb.idx[k]], p[pb.idx[k]].value));
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = gsl_f;
    fdf.df = NULL; /* finite differences */
    fdf.fvv = NULL;
    fdf.n = (size_t)n;
    fdf.p = (size_t)pb.nk;
    fdf.params = &pb;
    int status = gsl_multifit_nlinear_init(y0, &fdf, w);
    int info = 0;
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(MAX_ITER, 1e-10, 1e-10, 0.0, NULL,
                                             NULL, &info, w);
    rep->iterations = (int)gsl_multifit_nlinear_niter(w);
    if (status == GSL_SUCCESS) {
        rep->converged = 1;
        snprintf(rep->stop, sizeof rep->stop, "%s",
                 info == 2 ? "small gradient" : "small step");
    } else if (status == GSL_ENOPROG) {
        rep->converged = 1;
        snprintf(rep->stop, sizeof rep->stop, "no further decrease");
    } else if (status == GSL_EMAXITER) {
        snprintf(rep->stop, sizeof rep->stop, "iteration limit");
    } else {
        rc = dam_error_set(err, "", 0, "the fit failed: %s",
                           gsl_strerror(status));
        rc = DAM_ERUNTIME;
        goto done;
    }
    /* the optimum, its residuals and covariance */
    const gsl_vector *y = gsl_multifit_nlinear_position(w);
    gsl_vector *res = gsl_multifit_nlinear_residual(w);
    for (int k = 0; k < pb.nk; k++) {
        dam_fit_param *q = &p[pb.idx[k]];
        q->value = to_x(q, gsl_vector_get(y, (size_t)k));
    }
    for (int j = 0; j < np; j++)
        pb.x[j] = p[j].value;
    rep->n = n;
    rep->np = pb.nk;
    rep->dof = n - pb.nk;
    rep->chi2 = 0.0;
    gsl_blas_ddot(res, res, &rep->chi2);
    rep->scale = rep->dof > 0 && rep->chi2 / rep->dof > 1.0
                     ? sqrt(rep->chi2 / rep->dof)
                     : 1.0;
    if (r_out)
        for (int i = 0; i < n; i++)
            r_out[i] = gsl_vector_get(res, (size_t)i);
    cov = gsl_matrix_alloc((size_t)pb.nk, (size_t)pb.nk);
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    if (gsl_multifit_nlinear_covar(J, 0.0, cov) != GSL_SUCCESS) {
        rc = dam_error_set(err, "", 0, "the covariance of the fit failed");
        rc = DAM_ERUNTIME;
        goto done;
    }
    for (int k = 0; k < pb.nk; k++) {
        dam_fit_param *q = &p[pb.idx[k]];
        double c = gsl_matrix_get(cov, (size_t)k, (size_t)k);
        q->se = isfinite(c) && c > 0.0
                    ? rep->scale * sqrt(c) * slope(q, q->value)
                    : 0.0;
    }
done:
    gsl_matrix_free(cov);
    gsl_vector_free(y0);
    if (w)
        gsl_multifit_nlinear_free(w);
    dam_free(r1);
    dam_free(r0);
    dam_free(pb.r);
    dam_free(pb.x);
    dam_free(pb.idx);
    return rc;
}
