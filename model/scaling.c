/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scaling.c: the Chinchilla parametric fit and its compute-optimal split
 * (see scaling.h for the formulas and their limits). Pure arithmetic on
 * const tables: no state, no allocation.
 */
#include "model/scaling.h"

#include <math.h>
#include <strings.h>

const dam_scaling_fit dam_scaling_hoffmann2022 = {
    "hoffmann2022", 1.69, 406.4, 410.7, 0.34, 0.28,
    "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models "
    "(arXiv 2203.15556), sec. D.2 eq. 10, constants as printed (rounded)"};

const dam_scaling_fit dam_scaling_epoch2024 = {
    "epoch2024", 1.817, 482.01, 2085.43, 0.3478, 0.3658,
    "Besiroglu et al. 2024 (Epoch AI), Chinchilla Scaling: A replication "
    "attempt; refit of approach 3 on 240 points digitised from Fig. 4"};

static const dam_scaling_fit *const fits[DAM_SCALING_FIT_COUNT] = {
    &dam_scaling_hoffmann2022, &dam_scaling_epoch2024};

const dam_scaling_fit *dam_scaling_fit_get(dam_scaling_fit_id id)
{
    return (unsigned)id < DAM_SCALING_FIT_COUNT ? fits[id] : NULL;
}

int dam_scaling_fit_parse(const char *s, dam_scaling_fit_id *out)
{
    static const struct {
        const char *name;
        dam_scaling_fit_id id;
    } names[] = {
        {"hoffmann2022", DAM_SCALING_HOFFMANN2022},
        {"hoffmann", DAM_SCALING_HOFFMANN2022},
        {"chinchilla", DAM_SCALING_HOFFMANN2022},
        {"epoch2024", DAM_SCALING_EPOCH2024},
        {"epoch", DAM_SCALING_EPOCH2024},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].id;
            return 0;
        }
    return -1;
}

double dam_scaling_compute(double n, double d)
{
    return 6.0 * n * d;
}

double dam_scaling_loss(const dam_scaling_fit *f, double n, double d)
{
    if (!(n > 0.0) || !(d > 0.0))
        return NAN;
    return f->E + f->A / pow(n, f->alpha) + f->B / pow(d, f->beta);
}

static int bad_budget(double c, dam_error *err)
{
    return dam_error_set(err, "", 0,
                         "scaling: compute budget must be a positive number "
                         "of FLOPs (got %g)", c);
}

int dam_scaling_optimal(const dam_scaling_fit *f, double c, double *n,
                        double *d, dam_error *err)
{
    if (!(c > 0.0) || !isfinite(c))
        return bad_budget(c, err);
    double s = f->alpha + f->beta;
    double g = pow(f->alpha * f->A / (f->beta * f->B), 1.0 / s);
    double half = c / 6.0; /* N * D */
    *n = g * pow(half, f->beta / s);
    *d = half / *n;
    return DAM_OK;
}

int dam_scaling_split(double c, double r, double *n, double *d,
                      dam_error *err)
{
    if (!(c > 0.0) || !isfinite(c))
        return bad_budget(c, err);
    if (!(r > 0.0) || !isfinite(r))
        return dam_error_set(err, "", 0,
                             "scaling: tokens per parameter must be > 0 "
                             "(got %g)", r);
    *n = sqrt(c / (6.0 * r));
    *d = r * *n;
    return DAM_OK;
}

double dam_scaling_optimal_ratio(const dam_scaling_fit *f, double c)
{
    double n = 0.0, d = 0.0;
    if (dam_scaling_optimal(f, c, &n, &d, NULL) != DAM_OK)
        return NAN;
    return d / n;
}

int dam_scaling_isoflop(const dam_scaling_fit *f, double c, double n_lo,
                        double n_hi, size_t npts, double *n_out,
                        double *d_out, double *loss_out, dam_error *err)
{
    if (!(c > 0.0) || !isfinite(c))
        return bad_budget(c, err);
    if (!(n_lo > 0.0) || !(n_hi > n_lo) || !isfinite(n_hi))
        return dam_error_set(err, "", 0,
                             "scaling: iso-FLOP range needs 0 < n_lo < n_hi "
                             "(got %g, %g)", n_lo, n_hi);
    if (npts < 2)
        return dam_error_set(err, "", 0,
                             "scaling: iso-FLOP curve needs at least 2 points "
                             "(got %zu)", npts);
    double l0 = log(n_lo), step = (log(n_hi) - l0) / (double)(npts - 1);
    for (size_t i = 0; i < npts; i++) {
        /* The last point is n_hi exactly, not exp(log(n_hi)). */
        double n = i + 1 == npts ? n_hi : exp(l0 + step * (double)i);
        double d = c / (6.0 * n);
        n_out[i] = n;
        if (d_out)
            d_out[i] = d;
        loss_out[i] = dam_scaling_loss(f, n, d);
    }
    return DAM_OK;
}
