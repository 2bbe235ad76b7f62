/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rng.c: seeded streams and distribution sampling (see rng.h).
 *
 * Seeding: gsl_rng_set takes an unsigned long, and MT19937 uses 32 bits of
 * it, so two (seed, stream) pairs collide with probability 2^-32 per pair;
 * mixing with splitmix64 makes neighbouring stream ids (0, 1, 2...) land
 * far apart. A seed of 0 would make GSL pick its default seed, so it is
 * mapped to another value.
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

/* ---- MT19937, as GSL's mt.c (Makoto Matsumoto and Takuji Nishimura's
 * generator with their 2002 seeding), on 32-bit words ---------------- */

#define MT_M 397
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu
#define MT_MAGIC(y) (((y) & 0x1u) ? 0x9908b0dfu : 0u)

static void mt_refill(dam_mt_state *s)
{
    uint32_t *mt = s->mt;
    int kk;
    for (kk = 0; kk < DAM_MT_N - MT_M; kk++) {
        uint32_t y = (mt[kk] & MT_UPPER) | (mt[kk + 1] & MT_LOWER);
        mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ MT_MAGIC(y);
    }
    for (; kk < DAM_MT_N - 1; kk++) {
        uint32_t y = (mt[kk] & MT_UPPER) | (mt[kk + 1] & MT_LOWER);
        mt[kk] = mt[kk + (MT_M - DAM_MT_N)] ^ (y >> 1) ^ MT_MAGIC(y);
    }
    uint32_t y = (mt[DAM_MT_N - 1] & MT_UPPER) | (mt[0] & MT_LOWER);
    mt[DAM_MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ MT_MAGIC(y);
    s->mti = 0;
}

static unsigned long mt_get(void *vs)
{
    dam_mt_state *s = vs;
    if (s->mti >= DAM_MT_N)
        mt_refill(s);
    return dam_mt_next(s);
}

static double mt_get_double(void *vs)
{
    return (double)mt_get(vs) / 4294967296.0;
}

static void mt_set(void *vs, unsigned long seed)
{
    dam_mt_state *s = vs;
    if (seed == 0)
        seed = 4357; /* GSL's default seed */
    s->mt[0] = (uint32_t)(seed & 0xffffffffu);
    for (int i = 1; i < DAM_MT_N; i++)
        s->mt[i] = 1812433253u * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) +
                   (uint32_t)i;
    s->mti = DAM_MT_N;
}

static const gsl_rng_type mt_type = {"dam-mt19937", 0xffffffffUL, 0,
                                     sizeof(dam_mt_state), mt_set, mt_get,
                                     mt_get_double};
const gsl_rng_type *const dam_rng_mt19937 = &mt_type;

uint64_t dam_rng_mix(uint64_t seed, uint64_t stream)
{
    return splitmix64(splitmix64(seed) ^ stream);
}

void dam_rng_reseed(gsl_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t m = dam_rng_mix(seed, stream);
    unsigned long s = (unsigned long)((m >> 32) ^ (m & 0xffffffffu));
    gsl_rng_set(r, s != 0 ? s : 0x6a09e667ul);
}

gsl_rng *dam_rng_create(uint64_t seed, uint64_t stream)
{
    /* GSL returns NULL only when out of memory */
    gsl_rng *r = dam_alloc_check(gsl_rng_alloc(dam_rng_mt19937),
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

double dam_dist_sample_rest(const dam_dist *d, gsl_rng *r)
{
    double m = d->mean, s;
    switch (d->kind) {
    case DAM_DIST_DETERMINISTIC:
        return m;
    case DAM_DIST_EXPONENTIAL: /* dam_dist_sample's, out of line */
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
