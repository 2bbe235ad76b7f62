/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_des_queueing.c: classic queues built on the engine (des + queue +
 * rng, and a link as the server pool) against theory. Poisson arrivals go
 * into an unbounded dam_queue; c server processes take customers in FIFO
 * order and serve them. The mean wait in queue Wq (arrival to start of
 * service) over 20 replications of 50,000 customers (2,000 warm-up) must
 * hold the theoretical value inside its Student interval at level
 * 1 - 1e-4 (a false alarm once in 10,000 seed bases: the replications'
 * means are independent and near normal), and its 95 % half-width must be
 * under 5 % of theory so the check has power. Seeds go through
 * dam_test_seed (DAM_TEST_SEED_BASE):
 *   M/M/1  lambda 0.75, mu 1:   Wq = rho/(mu - lambda) = 3.0
 *   M/M/3  lambda 2.25, mu 1:   Wq = C(3, 2.25)/(3 mu - lambda) (Erlang C)
 *   M/D/1  lambda 0.75, D = 1:  Wq = rho D / (2 (1 - rho)) = 1.5
 * M/M/3 serves on a link of capacity 3 with every flow capped at 1 (a CPU
 * pool): at most 3 flows run at once, so each runs at rate 1.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_errno.h>

#include "check.h"
#include "solver/des.h"
#include "solver/link.h"
#include "solver/queue.h"
#include "solver/rng.h"
#include "solver/stats.h"

struct model {
    dam_des *des;
    dam_queue *q;
    dam_link_net *net;      /* NULL: service is a plain delay */
    int pool;               /* link index of the server pool */
    gsl_rng *arr, *svc;     /* arrival and service streams */
    dam_dist service;
    double lambda;
    uint64_t n, arrived, started, warmup;
    double sum_wait;        /* over customers after warm-up, s */
};

static void fetch(struct model *m);

static void served(dam_des *des, void *ctx, dam_des_arg arg)
{
    fetch(ctx);
}

static void serve(struct model *m, dam_des_arg cust)
{
    double now = dam_des_now(m->des);
    if (m->started++ >= m->warmup)
        m->sum_wait += now - cust.d;
    double s = dam_dist_sample(&m->service, m->svc);
    if (m->net != NULL) {
        int links[1] = {m->pool};
        dam_link_flow_start(m->net, links, 1, s, 1.0, served, m,
                            dam_des_u(0), NULL, NULL);
    } else {
        dam_des_after(m->des, s, served, m, dam_des_u(0));
    }
}

static void got(dam_des *des, void *ctx, dam_des_arg cust)
{
    serve(ctx, cust);
}

/* One server asks for its next customer. */
static void fetch(struct model *m)
{
    dam_des_arg cust;
    if (dam_queue_get(m->q, &cust, got, m))
        serve(m, cust);
}

static void arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct model *m = ctx;
    dam_queue_put(m->q, dam_des_d(dam_des_now(des)), NULL, NULL);
    if (++m->arrived < m->n)
        dam_des_after(des, -log1p(-gsl_rng_uniform(m->arr)) / m->lambda,
                      arrive, m, dam_des_u(0));
}

/* Mean wait in queue of one replication. */
static double replicate(int c, double lambda, dam_dist service, int link,
                        uint64_t seed)
{
    struct model m = {0};
    m.des = dam_des_create();
    m.q = dam_queue_create(m.des, 0);
    if (link) {
        m.net = dam_link_net_create(m.des);
        m.pool = dam_link_add(m.net, (double)c, NULL);
    }
    m.arr = dam_rng_create(seed, 0);
    m.svc = dam_rng_create(seed, 1);
    m.service = service;
    m.lambda = lambda;
    m.n = 50000;
    m.warmup = 2000;
    dam_des_at(m.des, 0.0, arrive, &m, dam_des_u(0));
    for (int k = 0; k < c; k++)
        fetch(&m);
    dam_des_run(m.des);
    double w = m.sum_wait / (double)(m.started - m.warmup);
    if (m.started != m.n)
        dam_check(0, "replication %llu served %llu of %llu",
                  (unsigned long long)seed, (unsigned long long)m.started,
                  (unsigned long long)m.n);
    dam_link_net_free(m.net);
    dam_rng_free(m.arr);
    dam_rng_free(m.svc);
    dam_queue_free(m.q);
    dam_des_free(m.des);
    return w;
}

static void check_model(const char *name, int c, double lambda,
                        dam_dist service, int link, double want)
{
    enum { REPS = 20 };
    double w[REPS];
    for (int r = 0; r < REPS; r++)
        w[r] = replicate(c, lambda, service, link,
                         dam_test_seed(100 + (uint64_t)r));
    dam_stat st;
    dam_stats_replications(w, REPS, &st, NULL);
    double half = dam_test_t(1e-4, REPS - 1) * st.sd / sqrt(REPS);
    dam_check(fabs(st.mean - want) <= half,
              "%s: Wq %.4f +- %.4f (level 1 - 1e-4) holds theory %.4f", name,
              st.mean, half, want);
    dam_check(st.ci95 < 0.05 * want, "%s: CI half-width %.4f under 5 %% of "
              "Wq", name, st.ci95);
}

int main(void)
{
    gsl_set_error_handler_off();
    dam_dist ex1 = {DAM_DIST_EXPONENTIAL, 1.0, 1.0, NULL, 0};
    dam_dist d1 = {DAM_DIST_DETERMINISTIC, 1.0, 0.0, NULL, 0};
    check_model("M/M/1 rho 0.75", 1, 0.75, ex1, 0, 0.75 / (1.0 - 0.75));
    check_model("M/M/3 rho 0.75 (link pool)", 3, 2.25, ex1, 1,
                dam_test_erlang_c(3, 2.25) / (3.0 - 2.25));
    check_model("M/D/1 rho 0.75", 1, 0.75, d1, 0,
                0.75 * 1.0 / (2.0 * (1.0 - 0.75)));
    /* The same replication twice gives the same number. */
    dam_check(replicate(3, 2.25, ex1, 1, 7) == replicate(3, 2.25, ex1, 1, 7),
              "same seed gives an identical replication");
    return dam_check_done();
}
