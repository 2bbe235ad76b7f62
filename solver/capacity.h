/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * capacity.h: capacity planning for serving by simulation.
 *
 * Two questions about a serving scenario and a latency objective (p99 at
 * most slo_s):
 *  1. at arrival rate `rate`, for each GPU of the catalog that runs the
 *     scenario's precision and holds its weights, the fewest replicas that
 *     meet the SLO with headroom, and what they cost per hour and per
 *     1,000 requests (cheapest first);
 *  2. for the scenario's own deployment, the highest arrival rate that
 *     still meets the SLO (bisection on the rate).
 * "Meets with headroom" is dam_capacity_meets: the simulated p99 plus the
 * half-width of its 95 % CI over replications is at most the SLO (so a
 * plan that meets only by luck of the draw is rejected) and, for replica
 * plans, the replicas are at most DAM_CAPACITY_MAX_UTIL busy (a deterministic
 * load at utilisation 1 meets its SLO in simulation and nowhere else).
 * The highest-rate question uses the SLO test alone. Every candidate
 * is a copy of the scenario with the GPU swapped as the gpu lever does
 * (efficiencies kept; price from the catalog unless it is the scenario's
 * own GPU, whose scenario price is kept), the replicas or the rate changed
 * and nothing else: preprocessing workers stay as configured, so a CPU
 * pool that cannot keep up makes every GPU infeasible (and the plan says
 * so). A trace scenario is planned with Poisson arrivals at the rate.
 * Nothing here prints; the caller owns the output.
 */
#ifndef DAM_CAPACITY_H
#define DAM_CAPACITY_H

#include "model/catalog.h"
#include "model/error.h"
#include "solver/sim.h"

#define DAM_CAPACITY_MAX 32   /* GPUs a plan considers */
#define DAM_CAPACITY_MAX_REPLICAS 4096 /* largest replica count searched */

/* One GPU's answer. */
typedef struct dam_capacity_option {
    char gpu[DAM_ID_MAX];   /* catalog id */
    int supported;          /* 0: precision unsupported (skipped) */
    int feasible;           /* 1: replicas meets the SLO */
    int replicas;           /* fewest replicas meeting it (0 when none) */
    double p99;             /* simulated p99 latency at that count, s */
    double p99_ci95;        /* its CI half-width, s */
    double utilization;     /* replica utilisation at that count */
    double throughput;      /* requests/s served */
    double price_hour;      /* USD per GPU-hour (0 = unknown) */
    double cost_hour;       /* USD per hour for all replicas */
    double cost_per_1k;     /* USD per 1,000 requests */
    int fewer_p99_known;    /* 1 when replicas - 1 >= 1 was simulated */
    double fewer_p99;       /* p99 with one replica fewer, s */
    double fewer_util;      /* replica utilisation with one fewer */
    char why[160];          /* the reason when not feasible */
} dam_capacity_option;

/* A whole plan. */
typedef struct dam_capacity_result {
    double slo_s;                     /* p99 objective, s */
    double rate;                      /* arrival rate planned for, 1/s */
    int noptions;
    dam_capacity_option options[DAM_CAPACITY_MAX]; /* feasible by cost per 1k
                                              (unknown prices last), then
                                              infeasible, then unsupported */
    int max_rate_found;               /* 1 when some rate meets the SLO */
    double max_rate;                  /* highest rate meeting it, 1/s */
    double max_rate_p99;              /* p99 at that rate, s */
    double max_rate_upper;            /* the bisection's failing end, 1/s */
    int evaluations;                  /* simulations run */
} dam_capacity_result;

/* Replica utilisation a replica plan may reach (headroom for bursts). */
#define DAM_CAPACITY_MAX_UTIL 0.9

/* 1 when the simulated result r meets slo_s with headroom: p99 + p99_ci95
 * <= slo_s and replica utilisation <= max_util (1 = no utilisation
 * limit), else 0. */
int dam_capacity_meets(const dam_result *r, double slo_s, double max_util);

/*
 * Simulate scenario s (serving) with the arrival rate and replicas
 * replaced (rate <= 0 or replicas <= 0: keep), into r. opt as for
 * dam_sim_serving (its arrivals are ignored: planning uses rates).
 * Returns DAM_OK or an error code with err filled.
 */
int dam_capacity_simulate(const dam_scenario *s, double rate, int replicas,
                          const dam_sim_options *opt, dam_result *r,
                          dam_error *err);

/*
 * Question 1 for every GPU of cat (at most DAM_CAPACITY_MAX) and question 2
 * for s's own deployment, into plan. opt->progress (may be NULL) hears of
 * each GPU kind done and of the top rate: catalog GPUs + 1 units; the
 * simulations inside report nothing. Returns DAM_OK, or DAM_EINPUT when s
 * is not a serving scenario or slo_s / rate are not positive, with err
 * filled.
 */
int dam_capacity_plan(const dam_scenario *s, const dam_catalog *cat,
                      double slo_s, double rate, const dam_sim_options *opt,
                      dam_capacity_result *plan, dam_error *err);

/* Latency against offered load, for the serving chart. */
#define DAM_CAPACITY_CURVE_POINTS 8 /* loads: 0.25, 0.5, ..., 2 x the rate */
typedef struct dam_capacity_curve {
    size_t n;                                  /* loads simulated */
    double rate[DAM_CAPACITY_CURVE_POINTS];    /* offered load, requests/s */
    double p50[DAM_CAPACITY_CURVE_POINTS];     /* latency percentiles, s */
    double p95[DAM_CAPACITY_CURVE_POINTS];
    double p99[DAM_CAPACITY_CURVE_POINTS];
} dam_capacity_curve;
/*
 * Simulate serving scenario s at a quarter, half, ... up to twice its own
 * arrival rate (steps of a quarter) into out, in increasing load; a load
 * whose simulation fails is left out. A trace scenario, or one without a
 * rate, gives no points. Returns DAM_OK (out->n may be 0).
 */
int dam_capacity_load_curve(const dam_scenario *s, const dam_sim_options *opt,
                            dam_capacity_curve *out);
/* Question 2 alone: the highest rate at which s meets slo_s (0 in *rate
 * and *found = 0 when none does), with the p99 there. */
int dam_capacity_max_rate(const dam_scenario *s, double slo_s,
                          const dam_sim_options *opt, double *rate,
                          double *p99, double *upper, int *found,
                          int *evaluations, dam_error *err);

#endif
