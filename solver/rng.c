/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rng.c: seeded streams and distribution sampling (see rng.h).
 *
 * The generator is xoshiro256+ (Blackman and Vigna, 2018) wrapped as a
 * gsl_rng_type, so GSL's samplers (gsl_ran_lognormal, the ziggurat
 * Gaussian, gsl_rng_uniform_int) draw from it unchanged: doubles are the
 * top 53 bits of an output (gsl_rng_uniform, and the inline
 * dam_rng_uniform of rng.h, which reads the state directly); gsl_rng_get
 * is the top 32 bits, a 32-bit generator to GSL (its low bits are the
 * weak ones of xoshiro256+, and GSL's integer samplers assume nothing
 * wider). Its 32-byte state, against MT19937's 2.5 kB, stays in cache
 * when a simulation holds thousands of streams.
 *
 * Seeding: dam_rng_mix(seed, stream), 64 bits, runs splitmix64 to fill
 * the four state words, so neighbouring (seed, stream) pairs (0, 1, 2...)
 * land far apart and no pair gives the all-zero state xoshiro cannot
 * leave (splitmix64 is a bijection: four outputs in a row are never all
 * 0). Seed 0 is a seed like any other. Other gsl_rng types passed to
 * dam_rng_reseed (sim_parallel's Tausworthe streams) get gsl_rng_set with
 * the mix folded to 32 bits, never 0 (GSL's default seed).
 */
#include "solver/rng.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>

#include "model/alloc.h"

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t dam_rng_mix(uint64_t seed, uint64_t stream)
{
    return splitmix64(splitmix64(seed) ^ stream);
}

/* Fill a xoshiro256+ state from a 64-bit seed: splitmix64 as a counter
 * from it (the seeding its authors recommend). */
static void xoshiro_seed(uint64_t *s, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        s[i] = splitmix64(seed);
        seed += 0x9e3779b97f4a7c15ull;
    }
}

static void xoshiro_set(void *state, unsigned long int seed)
{
    xoshiro_seed(state, (uint64_t)seed);
}

static unsigned long int xoshiro_get(void *state)
{
    return (unsigned long int)(dam_rng_next(state) >> 32);
}

static double xoshiro_get_double(void *state)
{
    return (double)(dam_rng_next(state) >> 11) * 0x1.0p-53;
}

const gsl_rng_type dam_rng_xoshiro256p = {
    "xoshiro256+",               /* name */
    0xffffffffUL,                /* RAND_MAX: gsl_rng_get gives 32 bits */
    0,                           /* RAND_MIN */
    4 * sizeof(uint64_t),        /* size of state */
    xoshiro_set, xoshiro_get, xoshiro_get_double};

void dam_rng_reseed(gsl_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t m = dam_rng_mix(seed, stream);
    if (r->type == &dam_rng_xoshiro256p) {
        xoshiro_seed(r->state, m);
        return;
    }
    unsigned long s = (unsigned long)((m >> 32) ^ (m & 0xffffffffu));
    gsl_rng_set(r, s != 0 ? s : 0x6a09e667ul);
}

gsl_rng *dam_rng_create(uint64_t seed, uint64_t stream)
{
    /* GSL returns NULL only when out of memory */
    gsl_rng *r = dam_alloc_check(gsl_rng_alloc(&dam_rng_xoshiro256p),
                                 sizeof(gsl_rng));
    dam_rng_reseed(r, seed, stream);
    return r;
}

void dam_rng_free(gsl_rng *r)
{
    if (r != NULL)
        gsl_rng_free(r);
}

int dam_dist_check(const dam_dist *d, dam_error *err)
{
    dam_error tmp;
    if (err == NULL)
        err = &tmp;
    if (d->kind == DAM_DIST_EMPIRICAL) {
        if (d->values == NULL || d->n == 0)
            return dam_error_set(err, "", 0,
                                 "empirical distribution has no values");
        for (size_t i = 0; i < d->n; i++)
            if (!(d->values[i] >= 0.0) || !isfinite(d->values[i]))
                return dam_error_set(err, "", 0,
                                     "empirical value %zu is %g; expected "
                                     "a finite value >= 0", i, d->values[i]);
        return DAM_OK;
    }
    if ((unsigned)d->kind > DAM_DIST_EMPIRICAL)
        return dam_error_set(err, "", 0, "unknown distribution kind %d",
                             (int)d->kind);
    if (!(d->mean >= 0.0) || !isfinite(d->mean))
        return dam_error_set(err, "", 0,
                             "distribution mean is %g; expected >= 0",
                             d->mean);
    if (!(d->cv >= 0.0) || !isfinite(d->cv))
        return dam_error_set(err, "", 0,
                             "coefficient of variation is %g; expected >= 0",
                             d->cv);
    if (d->kind == DAM_DIST_UNIFORM && d->cv > 1.0 / sqrt(3.0) + 1e-12)
        return dam_error_set(err, "", 0,
                             "uniform coefficient of variation is %g; "
                             "expected <= 0.577 (values would go negative)",
                             d->cv);
    return DAM_OK;
}

double dam_dist_sample(const dam_dist *d, gsl_rng *r)
{
    double m = d->mean, s;
    switch (d->kind) {
    case DAM_DIST_DETERMINISTIC:
        return m;
    case DAM_DIST_EXPONENTIAL:
        /* 1 - u is exact for u in [0, 1) of 53 bits (u = k 2^-53), and
         * log is several times cheaper than log1p in glibc. */
        return -m * log(1.0 - dam_rng_uniform(r));
    case DAM_DIST_LOGNORMAL:
        if (d->cv == 0.0 || m == 0.0)
            return m;
        s = sqrt(log1p(d->cv * d->cv));
        return gsl_ran_lognormal(r, log(m) - 0.5 * s * s, s);
    case DAM_DIST_UNIFORM:
        if (d->cv == 0.0)
            return m;
        s = sqrt(3.0) * d->cv * m;
        return m - s + 2.0 * s * dam_rng_uniform(r);
    case DAM_DIST_NORMAL: {
        if (d->cv == 0.0 || m == 0.0)
            return m;
        double x;
        do
            x = m + gsl_ran_gaussian_ziggurat(r, d->cv * m);
        while (x <= 0.0);
        return x;
    }
    case DAM_DIST_EMPIRICAL:
        return d->values[gsl_rng_uniform_int(r, d->n)];
    }
    return m;
}

double dam_dist_mean(const dam_dist *d)
{
    if (d->kind == DAM_DIST_EMPIRICAL) {
        double sum = 0.0;
        for (size_t i = 0; i < d->n; i++)
            sum += d->values[i];
        return d->n > 0 ? sum / (double)d->n : 0.0;
    }
    if (d->kind == DAM_DIST_NORMAL && d->cv > 0.0 && d->mean > 0.0) {
        /* Mean of N(m, s^2) truncated to (0, inf): m + s*phi(a)/(1-Phi(a))
         * with a = -m/s. */
        double sd = d->cv * d->mean, a = -d->mean / sd;
        double phi = exp(-0.5 * a * a) / sqrt(2.0 * M_PI);
        return d->mean + sd * phi / gsl_cdf_ugaussian_Q(a);
    }
    return d->mean;
}
