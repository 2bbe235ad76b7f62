/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scaling.h: the Chinchilla parametric scaling law for dense autoregressive
 * language models,
 *
 *     L(N, D) = E + A / N^alpha + B / D^beta
 *
 * with N parameters, D training tokens and L the predicted held-out loss
 * (nats per token), and training compute C = 6 N D FLOPs.
 *
 * Design notes. A fit is a const table (dam_scaling_fit), as GSL's rng
 * types are: the one of Hoffmann et al. 2022 (the constants as printed,
 * rounded) and the Epoch AI refit of the same data (Besiroglu et al. 2024).
 * The compute-optimal split minimises L along C = 6 N D; with the power-law
 * form it has a closed form,
 *
 *     N_opt = G (C/6)^(beta/(alpha+beta)),
 *     G     = (alpha A / (beta B))^(1/(alpha+beta)),
 *     D_opt = (C/6) / N_opt,
 *
 * which the unit test checks against a numerical minimisation (gsl_min).
 *
 * What it does not know: the fit holds only inside the regime it was fitted
 * on (dense transformers, one pass over the data, ~7e7..1.6e10 parameters
 * in the paper's runs); repeated epochs, mixture-of-experts, or another
 * tokenizer or data set move E, A and B. The rounded constants put the
 * optimum at Gopher's budget (5.76e23 FLOPs) near 32e9 parameters, where the
 * paper's own Table 3 (approach 1) says 67e9 and its unrounded approach-3 fit
 * about 40e9: use the numbers as a guide, not as a measurement.
 */
#ifndef DAM_SCALING_H
#define DAM_SCALING_H

#include <stddef.h>

#include "model/error.h"

/* The fits damsim knows, indexable (0 is the default). */
typedef enum {
    DAM_SCALING_HOFFMANN2022 = 0, /* Hoffmann et al. 2022, eq. 10 (rounded) */
    DAM_SCALING_EPOCH2024,        /* Besiroglu et al. 2024 refit */
    DAM_SCALING_FIT_COUNT
} dam_scaling_fit_id;

/* One parametric fit L(N, D) = E + A/N^alpha + B/D^beta. */
typedef struct dam_scaling_fit {
    const char *id;     /* short name: "hoffmann2022", "epoch2024" */
    double E;           /* irreducible loss, nats/token */
    double A;           /* parameter term, nats/token * params^alpha */
    double B;           /* data term, nats/token * tokens^beta */
    double alpha;       /* exponent of N, dimensionless */
    double beta;        /* exponent of D, dimensionless */
    const char *source; /* where the constants come from */
} dam_scaling_fit;

/* Hoffmann et al. 2022 (arXiv 2203.15556) eq. 10: E 1.69, A 406.4, B 410.7,
 * alpha 0.34, beta 0.28. */
extern const dam_scaling_fit dam_scaling_hoffmann2022;
/* Besiroglu et al. 2024 (Epoch AI) refit: E 1.817, A 482.01, B 2085.43,
 * alpha 0.3478, beta 0.3658. */
extern const dam_scaling_fit dam_scaling_epoch2024;

/* The fit of an id; NULL when id is out of range. */
const dam_scaling_fit *dam_scaling_fit_get(dam_scaling_fit_id id);
/* Parse a fit name ("hoffmann2022", "hoffmann", "chinchilla", "epoch2024",
 * "epoch"); 0 on success, -1 when unknown. */
int dam_scaling_fit_parse(const char *s, dam_scaling_fit_id *out);

/* Training compute of N parameters on D tokens: 6 N D, FLOPs. */
double dam_scaling_compute(double n, double d);

/* Predicted loss L(N, D), nats/token; NaN when n or d is not > 0. */
double dam_scaling_loss(const dam_scaling_fit *f, double n, double d);

/* Compute-optimal split of a budget c (FLOPs, > 0) under the fit, closed
 * form above: *n parameters, *d tokens (6 *n *d == c). Returns DAM_OK, or
 * DAM_EINPUT with err filled when c is not a positive finite number. */
int dam_scaling_optimal(const dam_scaling_fit *f, double c, double *n,
                        double *d, dam_error *err);

/* Split of a budget c at a fixed ratio r = D/N (tokens per parameter, > 0):
 * N = sqrt(c / (6 r)), D = r N. Returns DAM_OK or DAM_EINPUT. */
int dam_scaling_split(double c, double r, double *n, double *d,
                      dam_error *err);

/* Tokens per parameter D_opt / N_opt at the optimum of budget c (grows
 * with c unless alpha == beta); NaN when c is not > 0. */
double dam_scaling_optimal_ratio(const dam_scaling_fit *f, double c);

/* Iso-FLOP curve for charts: npts (>= 2) points with N log-spaced over
 * [n_lo, n_hi] (0 < n_lo < n_hi), D = c / (6 N), and the loss. The caller
 * supplies n_out and loss_out with npts entries each; d_out may be NULL.
 * Returns DAM_OK or DAM_EINPUT. */
int dam_scaling_isoflop(const dam_scaling_fit *f, double c, double n_lo,
                        double n_hi, size_t npts, double *n_out,
                        double *d_out, double *loss_out, dam_error *err);

#endif
