/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tandem_model.h: an open tandem line built on the engine (des + queue +
 * rng), shared by the benchmark tests/bench/tandem.c and the validation
 * test tests/unit/test_des_tandem.c.
 *
 * Jobs arrive (Poisson at lambda, or all N at time 0 when lambda = 0) into
 * an unbounded queue before "loader" (4 servers, exponential mean 1.0); a
 * buffer of 8 before "transfer" (1 server, exponential mean 0.2), where a
 * loader that finishes while the buffer is full holds its job (blocking
 * after service); an unbounded buffer (capacity 1 when lambda = 0) before
 * "compute" (1 server, exponential mean 0.8). A job's sojourn is from its
 * arrival to the end of its compute.
 *
 * Each station is generic: servers loop get -> serve -> put, written as
 * continuations as a pipeline stage would be. One random stream per
 * station and one for arrivals (common random numbers). Header-only so
 * both programs build it without a library of test models.
 */
#ifndef DAM_TANDEM_MODEL_H
#define DAM_TANDEM_MODEL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "solver/des.h"
#include "solver/queue.h"
#include "solver/rng.h"

#define TANDEM_MAX_SERVERS 8

struct tandem;

/* A station's server; ctx of its continuations. */
struct tandem_server {
    struct tandem_station *st;
};

/* A stage: servers taking jobs from in, putting them to out (NULL: the
 * job leaves the system). */
struct tandem_station {
    struct tandem *tm;
    dam_queue *in, *out;
    dam_dist dist;            /* service time, s */
    gsl_rng *rng;             /* this station's stream */
    int nservers;
    struct tandem_server servers[TANDEM_MAX_SERVERS];
};

struct tandem {
    dam_des *des;
    dam_queue *q[3];          /* before loader, transfer, compute */
    struct tandem_station st[3];
    gsl_rng *arr_rng;         /* arrivals stream */
    double lambda;            /* arrival rate, 1/s (0: all at time 0) */
    uint64_t n_jobs;          /* jobs to run */
    uint64_t n_arrived;
    uint64_t n_done;
    uint64_t warmup;          /* first jobs left out of the sojourn mean */
    double sum_sojourn;       /* over jobs after warmup, s */
    double t_end;             /* last completion, s */
};

static void tandem_fetch(struct tandem_server *sv);

static void tandem_put_done(dam_des *des, void *ctx, dam_des_arg job)
{
    tandem_fetch(ctx);
}

static void tandem_served(dam_des *des, void *ctx, dam_des_arg job)
{
    struct tandem_server *sv = ctx;
    struct tandem_station *st = sv->st;
    if (st->out == NULL) {
        struct tandem *tm = st->tm;
        double now = dam_des_now(des);
        if (tm->n_done++ >= tm->warmup)
            tm->sum_sojourn += now - job.d;
        tm->t_end = now;
        tandem_fetch(sv);
        return;
    }
    /* Blocked after service: if the buffer is full the server holds the
     * job; tandem_put_done resumes it once the job is in. */
    if (dam_queue_put(st->out, job, tandem_put_done, sv))
        tandem_fetch(sv);
}

static void tandem_start(struct tandem_server *sv, dam_des_arg job)
{
    struct tandem_station *st = sv->st;
    dam_des_after(st->tm->des, dam_dist_sample(&st->dist, st->rng),
                  tandem_served, sv, job);
}

static void tandem_got(dam_des *des, void *ctx, dam_des_arg job)
{
    tandem_start(ctx, job);
}

static void tandem_fetch(struct tandem_server *sv)
{
    dam_des_arg job;
    if (dam_queue_get(sv->st->in, &job, tandem_got, sv))
        tandem_start(sv, job);
}

static void tandem_arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct tandem *tm = ctx;
    dam_queue_put(tm->q[0], dam_des_d(dam_des_now(des)), NULL, NULL);
    if (++tm->n_arrived < tm->n_jobs)
        dam_des_after(des, -log(1.0 - dam_rng_uniform(tm->arr_rng)) / tm->lambda,
                      tandem_arrive, tm, dam_des_u(0));
}

/* Set up a line for n jobs at rate lambda with streams from seed; the
 * first warmup completions are left out of the sojourn mean. */
static void tandem_init(struct tandem *tm, uint64_t n, double lambda,
                        uint64_t seed, uint64_t warmup)
{
    static const int servers[3] = {4, 1, 1};
    static const double means[3] = {1.0, 0.2, 0.8};
    memset(tm, 0, sizeof *tm);
    tm->des = dam_des_create();
    tm->lambda = lambda;
    tm->n_jobs = n;
    tm->warmup = warmup;
    tm->q[0] = dam_queue_create(tm->des, 0);
    tm->q[1] = dam_queue_create(tm->des, 8);
    tm->q[2] = dam_queue_create(tm->des, lambda > 0.0 ? 0 : 1);
    tm->arr_rng = dam_rng_create(seed, 0);
    for (int i = 0; i < 3; i++) {
        struct tandem_station *st = &tm->st[i];
        st->tm = tm;
        st->in = tm->q[i];
        st->out = i < 2 ? tm->q[i + 1] : NULL;
        st->dist = (dam_dist){DAM_DIST_EXPONENTIAL, means[i], 1.0, NULL, 0};
        st->rng = dam_rng_create(seed, (uint64_t)i + 1);
        st->nservers = servers[i];
        for (int k = 0; k < st->nservers; k++)
            st->servers[k].st = st;
    }
}

/* Run to the last completion. */
static void tandem_run(struct tandem *tm)
{
    if (tm->lambda > 0.0) {
        dam_des_at(tm->des, 0.0, tandem_arrive, tm, dam_des_u(0));
    } else {
        for (uint64_t j = 0; j < tm->n_jobs; j++)
            dam_queue_put(tm->q[0], dam_des_d(0.0), NULL, NULL);
        tm->n_arrived = tm->n_jobs;
    }
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < tm->st[i].nservers; k++)
            tandem_fetch(&tm->st[i].servers[k]);
    dam_des_run(tm->des);
}

/* Mean sojourn of the jobs after warm-up, s. */
static double tandem_mean_sojourn(const struct tandem *tm)
{
    uint64_t n = tm->n_done > tm->warmup ? tm->n_done - tm->warmup : 0;
    return n > 0 ? tm->sum_sojourn / (double)n : 0.0;
}

static void tandem_free(struct tandem *tm)
{
    for (int i = 0; i < 3; i++) {
        dam_queue_free(tm->q[i]);
        dam_rng_free(tm->st[i].rng);
    }
    dam_rng_free(tm->arr_rng);
    dam_des_free(tm->des);
}

#endif
