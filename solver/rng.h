/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rng.h: random streams and service-time distributions.
 *
 * One gsl_rng (xoshiro256+, a gsl_rng_type of rng.c) per simulated entity,
 * seeded from the scenario seed and the entity's stream id through
 * splitmix64, so streams are independent of each other and of the order
 * they are created in: changing one entity (more draws, a different
 * distribution) leaves every other stream's draws unchanged (common random
 * numbers across what-if variants). Any seed, 0 included, is valid.
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
/* The generator of dam_rng_create's streams: xoshiro256+ (Blackman and
 * Vigna) as a GSL type, so every gsl_ran_* sampler works on it. Doubles
 * are an output's top 53 bits; gsl_rng_get gives its top 32 bits. */
extern const gsl_rng_type dam_rng_xoshiro256p;

/* Advance a xoshiro256+ state (4 words) and return its 64-bit output. */
static inline uint64_t dam_rng_next(uint64_t *s)
{
    uint64_t res = s[0] + s[3], t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return res;
}

/* A uniform double in [0, 1): the same value as gsl_rng_uniform(r), read
 * inline when r is a stream of dam_rng_create (the hot path of every
 * simulation's draws), through GSL otherwise. */
static inline double dam_rng_uniform(gsl_rng *r)
{
    if (r->type == &dam_rng_xoshiro256p)
        return (double)(dam_rng_next(r->state) >> 11) * 0x1.0p-53;
    return gsl_rng_uniform(r);
}

/* A new xoshiro256+ stream for (seed, stream). Never NULL (allocation
 * failure aborts, as in model/alloc.h). Free with dam_rng_free. */
gsl_rng *dam_rng_create(uint64_t seed, uint64_t stream);
/* Reseed an existing stream as dam_rng_create would (a stream of another
 * gsl_rng type gets gsl_rng_set with the mix folded to a nonzero 32-bit
 * seed). */
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
