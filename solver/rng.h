/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rng.h: random streams and service-time distributions.
 *
 * One gsl_rng (MT19937) per simulated entity, seeded from the scenario seed
 * and the entity's stream id through splitmix64, so streams are independent
 * of each other and of the order they are created in: changing one entity
 * (more draws, a different distribution) leaves every other stream's draws
 * unchanged (common random numbers across what-if variants).
 *
 * dam_dist is a plain value (kind from model/scenario.h, mean, cv, optional
 * sample array the caller owns); dam_dist_sample never fails, so check a
 * distribution once with dam_dist_check before a run.
 */
#ifndef DAM_RNG_H
#define DAM_RNG_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "model/error.h"
#include "model/scenario.h"

/* A distribution of nonnegative values (service times, sizes). */
typedef struct dam_dist {
    dam_dist_kind kind;   /* which family */
    double mean;          /* mean, in the caller's unit (s, bytes) */
    double cv;            /* coefficient of variation sd/mean (lognormal,
                             uniform, normal; ignored by deterministic,
                             exponential and empirical) */
    const double *values; /* empirical: samples to resample; caller-owned */
    size_t n;             /* empirical: number of values */
} dam_dist;

/* Mix (seed, stream) into a 64-bit seed (splitmix64 finaliser, twice). */
uint64_t dam_rng_mix(uint64_t seed, uint64_t stream);
/* A new MT19937 stream for (seed, stream). Never NULL (allocation failure
 * aborts, as in model/alloc.h). Free with dam_rng_free. */
gsl_rng *dam_rng_create(uint64_t seed, uint64_t stream);
/* Reseed an existing stream as dam_rng_create would. */
void dam_rng_reseed(gsl_rng *r, uint64_t seed, uint64_t stream);
/* Free a stream; NULL is a no-op. */
void dam_rng_free(gsl_rng *r);

/* Check parameters: mean >= 0 and finite, cv >= 0, uniform cv <=
 * 1/sqrt(3) (else the lower bound is negative), empirical n > 0 with
 * values. Returns DAM_OK, or DAM_EINPUT with err filled (err may be NULL). */
int dam_dist_check(const dam_dist *d, dam_error *err);
/* One draw from d using r. Deterministic gives mean; exponential mean;
 * lognormal with the given mean and cv; uniform on mean +- sqrt(3)*cv*mean;
 * normal(mean, cv*mean) redrawn until positive (so its mean is above
 * `mean` when cv is large); empirical a uniformly chosen value. cv = 0
 * gives mean for lognormal, uniform and normal without drawing. */
double dam_dist_sample(const dam_dist *d, gsl_rng *r);
/* The distribution's true mean (differs from d->mean only for the
 * truncated normal and empirical). */
double dam_dist_mean(const dam_dist *d);

#endif
