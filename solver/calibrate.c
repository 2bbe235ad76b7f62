/* SPDX-License-Identifier: GPL-3.0-or-later */
/* calibrate.c: eta from a measured throughput by root finding (see
 * calibrate.h). Throughput is non-decreasing in eta, so the bracket
 * [1e-4, 1] holds the root whenever one exists. */
#include "solver/calibrate.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "model/alloc.h"
#include "solver/analytic.h"

typedef struct fit {
    dam_scenario s;   /* working copy; eta varies */
    dam_result r;     /* scratch */
    double target;    /* samples/s */
} fit;

static double gap(double eta, void *p)
{
    fit *f = p;
    f->s.workload.eta = eta;
    dam_analytic_solve(&f->s, &f->r);
    return f->r.throughput / f->target - 1.0;
}

int dam_calibrate_eta(const dam_scenario *s, double throughput, double *eta,
                      dam_error *err)
{
    if (!(throughput > 0.0))
        return dam_error_set(err, s->file, 0,
                             "measured throughput must be > 0, got %g",
                             throughput);
    fit *f = dam_malloc(sizeof *f);
    f->s = *s;
    f->target = throughput;
    gsl_function fn = {gap, f};
    double lo = 1e-4, hi = 1.0;
    double glo = gap(lo, f), ghi = gap(hi, f);
    int rc = DAM_OK;
    if (glo > 0.0 || ghi < 0.0) {
        rc = dam_error_set(err, s->file, 0,
                           "no efficiency in [%g, 1] gives %g samples/s "
                           "(the model gives %g to %g)",
                           lo, throughput, (glo + 1.0) * throughput,
                           (ghi + 1.0) * throughput);
        dam_free(f);
        return rc;
    }
    gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_root_fsolver_set(solver, &fn, lo, hi);
    int status = GSL_CONTINUE;
    for (int i = 0; i < 200 && status == GSL_CONTINUE; i++) {
        if (gsl_root_fsolver_iterate(solver) != GSL_SUCCESS)
            break;
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(solver),
                                        gsl_root_fsolver_x_upper(solver), 0.0,
                                        1e-9);
    }
    if (status != GSL_SUCCESS)
        rc = dam_error_set(err, s->file, 0,
                           "efficiency fit did not converge (%s)",
                           gsl_strerror(status));
    else
        *eta = gsl_root_fsolver_root(solver);
    gsl_root_fsolver_free(solver);
    dam_free(f);
    return rc;
}
