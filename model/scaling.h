/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scaling.h: compute-optimal allocation of training compute for dense
 * autoregressive language models, as Hoffmann et al. 2022 ("Chinchilla",
 * arXiv 2203.15556) published it three ways, and as Besiroglu et al. 2024
 * (Epoch AI, arXiv 2404.10102) refitted it. Training compute is C = 6 N D
 * FLOPs for N parameters and D tokens; loss is held-out nats per token.
 *
 * The fits (dam_scaling_fit, a const table as GSL's rng types are):
 *
 *   approach1  (default) the paper's approach 1, minimum over training
 *              curves: N_opt = n0 (C/c0)^a, the power law fitted by least squares
 *              in log-log (gsl_fit_linear) to the paper's Table 3, which
 *              lists approach 1's projections; a comes out 0.498 (Table 2:
 *              0.50, interval 0.488..0.502). At Gopher's budget, 5.76e23
 *              FLOPs, it gives 67.8e9 parameters and 1.42e12 tokens, the
 *              paper's headline allocation (Chinchilla: 70e9, 1.4e12).
 *   approach2  the paper's approach 2, IsoFLOP profiles: a = 0.49 (Table 2).
 *              The paper prints this approach's constant only in a figure,
 *              so damsim anchors it where the paper measured it: equal to
 *              approach 1 at the geometric middle of its nine IsoFLOP
 *              budgets (6e18 .. 3e21 FLOPs, sec. 3.2), on the paper's word
 *              that approaches 1 and 2 "yield very similar predictions"
 *              (sec. 3.4). A damsim assumption, said wherever it is used.
 *   approach3  the paper's approach 3, the parametric loss
 *                  L(N, D) = E + A / N^alpha + B / D^beta
 *              with E 1.69, A 406.4, B 410.7, alpha 0.34, beta 0.28 as
 *              printed (sec. D.2); its optimum has the closed form
 *                  N_opt = G (C/6)^(beta/(alpha+beta)),
 *                  G = (alpha A / (beta B))^(1/(alpha+beta)), D_opt = C/(6 N)
 *              The printed constants are rounded: they give a = 0.452 and
 *              32e9 parameters at Gopher's budget, where the paper reports
 *              0.46 (Table 2) and 40e9 (Figure 4) from its unrounded fit.
 *   epoch2024  Besiroglu et al.'s refit of approach 3 on 240 points
 *              digitised from the paper's Figure 4: E 1.817, A 482.01,
 *              B 2085.43, alpha 0.3478, beta 0.3658 (a = 0.513); 72e9
 *              parameters at Gopher's budget.
 *
 * Loss. Approaches 1 and 2 give allocations, not losses; their loss comes
 * from the Epoch AI refit, which its authors show agrees with approaches 1
 * and 2 (the fit's loss_fit names it). Approach 3 and the refit use their
 * own constants.
 *
 * What it does not know: the fits hold inside the regime they were fitted
 * on (dense transformers, one pass over the data, ~7e7..1.6e10 parameters
 * in the paper's runs); repeated epochs, mixture-of-experts, or another
 * tokenizer or data set move them. Use the numbers as a guide.
 */
#ifndef DAM_SCALING_H
#define DAM_SCALING_H

#include <stddef.h>

#include "model/error.h"

/* The fits damsim knows, indexable; 0 is the default. */
typedef enum {
    DAM_SCALING_APPROACH1 = 0, /* Hoffmann et al. 2022, approach 1 (Table 3) */
    DAM_SCALING_APPROACH2,     /* Hoffmann et al. 2022, approach 2 (a = 0.49) */
    DAM_SCALING_APPROACH3,     /* Hoffmann et al. 2022, approach 3 (eq. as printed) */
    DAM_SCALING_EPOCH2024,     /* Besiroglu et al. 2024 refit */
    DAM_SCALING_FIT_COUNT
} dam_scaling_fit_id;

#define DAM_SCALING_DEFAULT DAM_SCALING_APPROACH1

/* The fits' names in dam_scaling_fit_id order, NULL-terminated (the lever
 * table's and the loader's choices). */
extern const char *const dam_scaling_fit_names[];

/* One fit. Allocation: a power law N_opt = n0 (C / c0)^a when parametric
 * is 0, the closed-form optimum of the loss below when 1; D_opt = C/(6 N)
 * either way. Loss: L(N, D) = E + A/N^alpha + B/D^beta. */
typedef struct dam_scaling_fit {
    dam_scaling_fit_id id;
    const char *name;       /* "approach1" (dam_scaling_fit_names[id]) */
    const char *title;      /* "Hoffmann et al. 2022, approach 1" */
    int parametric;         /* 1: allocation minimises the loss below */
    double a;               /* N_opt exponent, dimensionless (power law) */
    double c0;              /* anchor budget, FLOPs (power law) */
    double n0;              /* N_opt at c0, parameters (power law) */
    double E;               /* irreducible loss, nats/token */
    double A;               /* parameter term, nats/token * params^alpha */
    double B;               /* data term, nats/token * tokens^beta */
    double alpha;           /* exponent of N, dimensionless */
    double beta;            /* exponent of D, dimensionless */
    const char *loss_fit;   /* whose constants E..beta are (a fit's title) */
    const char *source;     /* where the allocation comes from */
} dam_scaling_fit;

/* The fit of an id; NULL when id is out of range. The power-law constants
 * are literals in scaling.c; tests/unit/test_scaling.c refits them from
 * Table 3 (gsl_fit_linear) and checks they agree. */
const dam_scaling_fit *dam_scaling_fit_get(dam_scaling_fit_id id);
/* Parse a fit name (also "hoffmann2022" and "chinchilla" for approach3,
 * "epoch" for epoch2024), case-insensitive; 0 on success, -1 when unknown. */
int dam_scaling_fit_parse(const char *s, dam_scaling_fit_id *out);

/* Training compute of N parameters on D tokens: 6 N D, FLOPs. */
double dam_scaling_compute(double n, double d);

/* Predicted loss L(N, D), nats/token; NaN when n or d is not > 0. */
double dam_scaling_loss(const dam_scaling_fit *f, double n, double d);

/* Compute-optimal split of a budget c (FLOPs, > 0) under the fit: *n
 * parameters, *d tokens (6 *n *d == c). Returns DAM_OK, or DAM_EINPUT with
 * err filled when c is not a positive finite number. */
int dam_scaling_optimal(const dam_scaling_fit *f, double c, double *n,
                        double *d, dam_error *err);

/* Split of a budget c at a fixed ratio r = D/N (tokens per parameter, > 0):
 * N = sqrt(c / (6 r)), D = r N. Returns DAM_OK or DAM_EINPUT. */
int dam_scaling_split(double c, double r, double *n, double *d,
                      dam_error *err);

/* Tokens per parameter D_opt / N_opt at the optimum of budget c; NaN when
 * c is not > 0. */
double dam_scaling_optimal_ratio(const dam_scaling_fit *f, double c);

/* The exponent a of N_opt ~ C^a (the power law's, or beta/(alpha+beta)). */
double dam_scaling_exponent(const dam_scaling_fit *f);

/* Iso-FLOP curve for charts: npts (>= 2) points with N log-spaced over
 * [n_lo, n_hi] (0 < n_lo < n_hi), D = c / (6 N), and the loss. The caller
 * supplies n_out and loss_out with npts entries each; d_out may be NULL.
 * Returns DAM_OK or DAM_EINPUT. */
int dam_scaling_isoflop(const dam_scaling_fit *f, double c, double n_lo,
                        double n_hi, size_t npts, double *n_out,
                        double *d_out, double *loss_out, dam_error *err);

/* The paper's Table 3 (approach 1 projections): parameters, FLOPs and
 * tokens of row i < dam_scaling_table3_rows; for fits and tests. */
extern const size_t dam_scaling_table3_rows;
void dam_scaling_table3(size_t i, double *n, double *flops, double *tokens);

#endif
