/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan.h: budget planning for training. Given a compute budget (FLOPs,
 * GPU-hours or dollars), the compute-optimal parameters N and tokens D of
 * the Chinchilla fit, the loss it predicts, and for each GPU in the catalog
 * how many are needed to finish by a deadline and what that costs, each
 * option solved by the analytic solver with the model resized to N (so
 * communication, memory and efficiency follow the new size).
 */
#ifndef DAM_PLAN_H
#define DAM_PLAN_H

#include "model/catalog.h"
#include "model/error.h"
#include "model/scaling.h"
#include "solver/result.h"
#include "solver/uncertainty.h"

typedef enum {
    DAM_BUDGET_FLOPS = 0, /* training FLOPs (6 N D) */
    DAM_BUDGET_GPU_HOURS, /* GPU-hours on the scenario's GPU */
    DAM_BUDGET_USD        /* dollars at the scenario's price */
} dam_budget_kind;

/* One GPU kind's way to spend the budget. */
typedef struct dam_plan_option {
    char gpu[DAM_ID_MAX];     /* catalog id */
    int feasible;             /* 1 when it fits in memory, can finish by
                                 the deadline and is not over the budget */
    int over_budget;          /* 1: its cost (a dollar budget) or GPU-hours
                                 (a GPU-hour budget) exceed the budget;
                                 -1: a dollar budget and no price, so not
                                 known; 0: within it (a FLOP budget always) */
    int gpus;                 /* GPUs needed (a multiple of gpus_per_node) */
    double tokens_per_s;      /* throughput with that many GPUs */
    double mfu;               /* model FLOPs utilisation */
    double run_time;          /* s */
    double gpu_hours;
    double price_hour;        /* USD per GPU-hour used (0 = unknown) */
    double cost_usd;          /* 0 when the price is unknown */
    int fits_memory;          /* 1 when weights + states + activations fit one GPU */
    double memory_bytes;      /* per GPU, data parallel, bytes */
    double memory_capacity;   /* the GPU's memory, bytes */
    char note[160];           /* why not feasible, or a caveat */
    /* 90 % intervals over the calibrated constants and uncertain inputs
     * (uncertainty.h; the same named draws for every option): run time,
     * GPU-hours and cost (at price_hour) with this many GPUs, and the share
     * of draws that finish by the deadline. interval.samples = 0: none. */
    dam_answer_interval interval;
    double p_deadline;
} dam_plan_option;

#define DAM_PLAN_MAX DAM_CATALOG_MAX_GPUS /* one option per catalog GPU */

typedef struct dam_plan {
    dam_budget_kind kind;
    double budget;            /* as given, in its unit */
    double flops;             /* the budget as training FLOPs */
    double deadline;          /* s */
    double n_opt;             /* parameters */
    double d_opt;             /* tokens */
    double loss;              /* the fit's loss at (n_opt, d_opt) */
    double tokens_per_param;
    double n_now, d_now, loss_now; /* the scenario's own model and data */
    const dam_scaling_fit *fit;
    int noptions;
    dam_plan_option options[DAM_PLAN_MAX]; /* cheapest feasible first */
} dam_plan;

/* The training compute plan --budget accepts, FLOP: 1e15 is seconds of
 * one GPU, 1e30 ten thousand times the largest published training runs;
 * outside it the scaling laws give sizes below one parameter or beyond any
 * data (a $1e-300 budget: 1.85e-142 parameters). */
#define DAM_PLAN_MIN_FLOPS 1e15
#define DAM_PLAN_MAX_FLOPS 1e30

/*
 * Plan s (a training scenario of a language model) for a budget of kind k
 * and a deadline in seconds. GPU-hours and dollars convert to FLOPs at the
 * scenario's own achieved model FLOP/s per GPU (analytic). Returns DAM_OK or
 * DAM_EINPUT with err filled (wrong mode or family, bad budget).
 */
int dam_plan_budget(const dam_scenario *s, const dam_catalog *cat,
                    dam_budget_kind k, double budget, double deadline,
                    const dam_scaling_fit *fit, dam_plan *p, dam_error *err);

#endif
