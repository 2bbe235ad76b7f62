/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * calibrate.h: find the efficiency (eta) at which the analytic solver
 * reproduces a measured throughput. This is how the catalog's default
 * efficiencies are derived from published measurements (data/README.md),
 * and how a user can fit eta to their own measurement.
 */
#ifndef DAM_CALIBRATE_H
#define DAM_CALIBRATE_H

#include "model/error.h"
#include "model/scenario.h"

/*
 * The eta in [1e-4, 1] for which dam_analytic_solve(s with that eta) gives
 * `throughput` samples/s (all GPUs). Brent's method (gsl_root_fsolver_brent)
 * to a relative tolerance of 1e-9. Returns DAM_OK, or DAM_EINPUT when no eta
 * in the range reaches the throughput (the measurement is faster than the
 * model allows at eta = 1, or the step does not depend on eta).
 */
int dam_calibrate_eta(const dam_scenario *s, double throughput, double *eta,
                      dam_error *err);

#endif
