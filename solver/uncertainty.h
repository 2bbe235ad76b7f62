/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * uncertainty.h: what uncertain inputs do to the answer.
 *
 * A scenario may give inputs as distributions (SCENARIO.md: efficiency
 * { dist = "uniform"; min = 0.35; max = 0.55; }). This module samples them
 * (Monte Carlo, one stream from the scenario's seed, so the same seed gives
 * the same intervals), solves each sample with the analytic solver, and
 * reports 90 % intervals (5th to 95th percentile) of the step, the run and
 * its cost, how often each term binds, and a tornado: the step with each
 * input at its 5th and 95th percentile and the others at their means,
 * sorted by swing, which says which assumption matters most. The analytic
 * solver is used because it is deterministic and cheap enough for hundreds
 * of samples; the simulated figures sit beside it in the report.
 */
#ifndef DAM_UNCERTAINTY_H
#define DAM_UNCERTAINTY_H

#include "model/error.h"
#include "solver/result.h"

/* A 90 % interval and the median of a quantity over the samples. */
typedef struct dam_interval {
    double lo;      /* 5th percentile */
    double median;  /* 50th percentile */
    double hi;      /* 95th percentile */
} dam_interval;

/* One input's swing. */
typedef struct dam_uncertainty_input {
    char key[64];           /* scenario key */
    dam_uncertain_kind kind;
    double scale;           /* SI per unit of the key, for display */
    double value_lo;        /* the input at its 5th percentile (SI) */
    double value_hi;        /* at its 95th percentile */
    double step_lo;         /* step with the input at value_lo, others at their means, s */
    double step_hi;         /* step with the input at value_hi, s */
    double swing;           /* |step_hi - step_lo|, s */
} dam_uncertainty_input;

typedef struct dam_uncertainty {
    int samples;                    /* Monte Carlo samples */
    dam_interval step;              /* s */
    dam_interval run_time;          /* s */
    dam_interval throughput;        /* samples/s */
    dam_interval cost_usd;          /* USD */
    double p_bound[DAM_BOUND_COUNT];/* share of samples in which each bound binds */
    int ninputs;
    dam_uncertainty_input inputs[DAM_MAX_UNCERTAIN]; /* largest swing first */
} dam_uncertainty;

/* Default number of Monte Carlo samples. */
#define DAM_UNCERTAINTY_SAMPLES 400

/* A copy of s with every uncertain input set to its q[i] quantile, except
 * inputs whose value in s differs from base's (a lever set them). */
void dam_uncertainty_apply(const dam_scenario *base, const dam_scenario *s,
                           const double *q, dam_scenario *out);

/*
 * Sample the uncertain inputs of s `samples` times (seeded from seed) and
 * fill u. Returns DAM_OK, or DAM_EINPUT when s has no uncertain input or
 * samples < 10.
 */
int dam_uncertainty_run(const dam_scenario *s, int samples,
                        unsigned long seed, dam_uncertainty *u,
                        dam_error *err);

/* Interval of n values (sorted in place). */
dam_interval dam_interval_of(double *v, int n);

#endif
