/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rng.h: random streams and service-time distributions.
 *
 * One gsl_rng (MT19937: dam_rng_mt19937) per simulated entity, seeded from
 * the scenario seed and the entity's stream id through splitmix64, so
 * streams are independent of each other and of the order they are created
 * in: changing one entity (more draws, a different distribution) leaves
 * every other stream's draws unchanged (common random numbers across
 * what-if variants).
 *
 * dam_dist is a plain value (kind from model/scenario.h, mean, cv, optional
 * sample array the caller owns); dam_dist_sample never fails, so check a
 * distribution once with dam_dist_check before a run.
 */
#ifndef DAM_RNG_H
#define DAM_RNG_H

#include <math.h>
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

/*
 * The streams' generator: MT19937 as GSL's gsl_rng_mt19937 (the same
 * seeding and the same 32-bit outputs, so the same draws), with its state
 * laid out here so that a uniform draw is inline (dam_rng_uniform): GSL
 * reaches its generator through two calls by pointer. Every gsl_ran_
 * function takes these streams as any gsl_rng.
 */
#define DAM_MT_N 624
typedef struct dam_mt_state {
    uint32_t mt[DAM_MT_N];
    int mti; /* next word; DAM_MT_N: the block is used up */
} dam_mt_state;
extern const gsl_rng_type *const dam_rng_mt19937;

/* The next 32-bit output of an MT19937 stream whose block is not used up
 * (GSL's mt_get: the tempering). */
static inline uint32_t dam_mt_next(dam_mt_state *s)
{
    uint32_t k = s->mt[s->mti++];
    k ^= k >> 11;
    k ^= (k << 7) & 0x9d2c5680u;
    k ^= (k << 15) & 0xefc60000u;
    k ^= k >> 18;
    return k;
}

/* gsl_rng_uniform (r), inline for the streams of dam_rng_create: the same
 * double in [0, 1). */
static inline double dam_rng_uniform(gsl_rng *r)
{
    if (r->type == dam_rng_mt19937) {
        dam_mt_state *s = (dam_mt_state *)r->state;
        if (s->mti < DAM_MT_N)
            return dam_mt_next(s) / 4294967296.0;
    }
    return gsl_rng_uniform(r);
}

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
 * gives mean for lognormal, uniform and normal without drawing. The
 * exponential and deterministic kinds are inline, the others in
 * dam_dist_sample_rest. */
double dam_dist_sample_rest(const dam_dist *d, gsl_rng *r);
static inline double dam_dist_sample(const dam_dist *d, gsl_rng *r)
{
    /* the two kinds a pipeline's stages use most, inline; 1 - u is exact
     * for u in [0, 1) from a 32-bit generator, and log is several times
     * cheaper than log1p in glibc */
    if (d->kind == DAM_DIST_EXPONENTIAL)
        return -d->mean * log(1.0 - dam_rng_uniform(r));
    if (d->kind == DAM_DIST_DETERMINISTIC)
        return d->mean;
    return dam_dist_sample_rest(d, r);
}
/* The distribution's true mean (differs from d->mean only for the
 * truncated normal and empirical). */
double dam_dist_mean(const dam_dist *d);

#endif
