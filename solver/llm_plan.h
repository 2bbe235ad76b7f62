/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm_plan.h: capacity plans for LLM serving by simulation (sim_llm.c).
 *
 * Two questions about an LLM serving scenario and two objectives (TTFT
 * and TPOT at the scenario's SLO quantile):
 *  1. at arrival rate `rate`, for every GPU of the catalog and every
 *     tensor-parallel degree (1, 2, 4, 8 up to the node's GPUs, dividing
 *     the model's heads) that holds the weights and the longest request,
 *     the fewest replicas that meet both objectives with headroom, and
 *     what that costs per hour and per million output tokens; the
 *     cheapest (by cost, then GPUs) is re-simulated with other random
 *     numbers and twice the replications before it is named;
 *  2. for the scenario's own deployment, the highest arrival rate that
 *     still meets both (bisection on the rate).
 * "With headroom": the replicas are simulated at the rate x (1 +
 * DAM_LLM_PLAN_HEADROOM) and must meet both objectives there with their
 * 95 % intervals (dam_llm_slo_met), so a plan does not pass by the luck
 * of the draw or sit at the edge of its capacity. The highest-rate
 * question uses the objectives alone.
 *
 * Every candidate is the scenario with the GPU swapped as the gpu lever
 * does (the scenario's price for its own GPU, the catalog's for others;
 * a GPU without one is planned and listed last), the degree and replicas
 * changed, and nothing else (formats, scheduler and requests as
 * configured). Disaggregated scenarios are planned as they are given
 * (pools scaled together) only in question 2. A trace scenario is
 * planned with Poisson arrivals at the rate. Nothing here prints.
 */
#ifndef DAM_LLM_PLAN_H
#define DAM_LLM_PLAN_H

#include "model/catalog.h"
#include "model/error.h"
#include "solver/sim.h"

#define DAM_LLM_PLAN_MAX 160        /* GPU x degree candidates */
#define DAM_LLM_PLAN_HEADROOM 0.10  /* planned at 10 % above the rate */
#define DAM_LLM_PLAN_MAX_REPLICAS 64 /* most replicas of one candidate */
#define DAM_LLM_RATE_BRACKET 0.02   /* the highest rate's search stops once
                                       its bracket is within 2 % */
#define DAM_LLM_RATE_DRAW_STEP 1.25 /* the draws' searches step from the
                                       nominal answer by this factor */

/* One GPU at one tensor-parallel degree. */
typedef struct dam_llm_plan_option {
    char gpu[DAM_ID_MAX];   /* catalog id */
    int tp;                 /* GPUs per replica */
    int usable;             /* 0: format unsupported or does not fit */
    int feasible;           /* 1: some replica count meets both */
    int replicas;           /* fewest that meet both (0 when none) */
    int gpus;               /* replicas x tp */
    double ttft, ttft_ci;   /* at the SLO quantile, s, with its CI */
    double tpot, tpot_ci;
    double goodput_fraction;/* requests meeting both */
    double gpu_busy;        /* share of replica time in iterations */
    double tokens_per_s_gpu;/* output tokens/s per GPU */
    double price_hour;      /* USD per GPU-hour (0 = unknown) */
    double cost_hour;       /* USD per hour, all GPUs */
    double cost_per_mtok;   /* USD per million output tokens */
    char why[160];          /* why not usable or not feasible */
} dam_llm_plan_option;

/* A whole plan. */
typedef struct dam_llm_plan {
    double slo_ttft_s, slo_tpot_s; /* the objectives, s */
    double quantile;               /* judged at this quantile */
    double rate;                   /* arrival rate planned for, 1/s */
    double headroom;               /* DAM_LLM_PLAN_HEADROOM */
    int noptions;
    dam_llm_plan_option options[DAM_LLM_PLAN_MAX]; /* feasible by cost
                                      (unknown prices last, then by GPUs),
                                      then infeasible, then unusable */
    int best;                      /* index of the plan named (-1: none) */
    int confirmed;                 /* 1: the best met both again when
                                      re-simulated */
    double confirm_ttft, confirm_tpot; /* the re-simulation's figures, s */
    double confirm_rate;           /* the rate it ran at, requests/s (the
                                      plan's, with its headroom) */
    int has_interval;              /* 1: the best's 90 % intervals below
                                      (solver/uncertainty.h,
                                      dam_load_interval_of) */
    double ttft_iv[2], tpot_iv[2]; /* s */
    double cost_mtok_iv[2];        /* USD per million output tokens */
    int max_rate_found;            /* 1 when some rate meets both */
    double max_rate;               /* highest rate meeting both, 1/s */
    double max_rate_upper;         /* the bisection's failing end, 1/s */
    double max_rate_ttft, max_rate_tpot; /* at max_rate, s */
    int has_max_rate_interval;     /* 1: max_rate_iv is set */
    double max_rate_iv[2];         /* its 90 % interval, 1/s: the search
                                      in the draws at a lone request's 5th
                                      and 95th percentile, with it */
    int offline_found;             /* 1: the offline run below was made */
    double offline_rate;           /* the same deployment's offline
                                      (saturated) throughput, requests/s:
                                      every request queued at time 0
                                      (dam_sim_llm_offline), while every
                                      replica had requests waiting (the
                                      batch's drain left out); max_rate never
                                      exceeds it (tests/property) */
    double offline_tokens_per_s;   /* its output tokens/s */
    int evaluations;               /* simulations run */
} dam_llm_plan;

/*
 * Plan for LLM serving scenario s against catalog cat: objectives slo_ttft
 * and slo_tpot (s) at `rate` requests/s. opt carries the simulation's
 * seed, requests and replications (its trace fields are ignored).
 * Returns DAM_OK, or DAM_EINPUT with err filled when s is not an LLM
 * serving scenario or an objective or the rate is not positive.
 */
int dam_llm_plan_run(const dam_scenario *s, const dam_catalog *cat,
                     double slo_ttft, double slo_tpot, double rate,
                     const dam_sim_options *opt, dam_llm_plan *out,
                     dam_error *err);

/* The curves of LLM serving charts (render/chart/chartset.h): TTFT and TPOT
 * percentiles at a quarter to twice the scenario's rate, and output
 * tokens/s per GPU and p99 TPOT as the token budget varies (256 to 8,192,
 * at least max_seqs; each at four times the rate, above most deployments'
 * capacity, with a fifth of the requests and one replication). */
#define DAM_LLM_CURVE_LOADS 8
#define DAM_LLM_CURVE_BUDGETS 6
typedef struct dam_llm_curves {
    size_t n;                                   /* load points */
    double rate[DAM_LLM_CURVE_LOADS];           /* requests/s */
    double ttft[3][DAM_LLM_CURVE_LOADS];        /* p50, p90, p99, s */
    double tpot[3][DAM_LLM_CURVE_LOADS];        /* p50, p90, p99, s */
    size_t nb;                                  /* budget points */
    int budget[DAM_LLM_CURVE_BUDGETS];          /* tokens per iteration */
    double tokens[DAM_LLM_CURVE_BUDGETS];       /* output tokens/s per GPU */
    double btpot[DAM_LLM_CURVE_BUDGETS];        /* p99 TPOT, s */
} dam_llm_curves;

/* Fill out for LLM scenario s (opt: seed; empty for a trace scenario).
 * Points whose simulation fails or does not fit are left out. */
void dam_llm_plan_curves(const dam_scenario *s, const dam_sim_options *opt,
                         dam_llm_curves *out);

/* Does s (rate, replicas as set) meet both objectives by simulation?
 * *r gets the result. Returns 1 yes, 0 no, -1 on error (err filled). */
int dam_llm_plan_meets(const dam_scenario *s, const dam_sim_options *opt,
                       dam_result *r, dam_error *err);

/*
 * Question 2 alone: the highest rate s's own deployment sustains within
 * s's objectives (llm.slo_*), doubling from p->rate while it meets (at
 * most 12 times), then bisecting until the bracket is within
 * DAM_LLM_RATE_BRACKET (at most 8 times); and the offline throughput of
 * the same deployment beside it, which caps it (a rate over it is a miss,
 * not simulated: its queue grows without bound). Fills p's max_rate_* and
 * offline_* fields (p->rate set by the caller, > 0).
 */
int dam_llm_plan_max_rate(const dam_scenario *s, const dam_sim_options *opt,
                          dam_llm_plan *p, dam_error *err);

#endif
