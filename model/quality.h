/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * quality.h: what a run costs, what quality it buys, and the return on
 * compute (RoC) of moving from one option to another.
 *
 *     RoC = delta quality / delta compute cost
 *
 * with the cost measured in GPU-hours, US dollars or kWh (the caller picks),
 * and quality in the scenario's metric: accuracy points where higher is
 * better, or loss where lower is better (then RoC uses -delta loss, so a
 * positive RoC always means "better per unit spent").
 *
 * Design notes. Cost is a closed form of (GPUs, run time, price, power):
 *   GPU-hours = G * t / 3600
 *   kWh       = G * TDP * t * PUE / 3.6e6   (board power at TDP: an upper
 *               bound on the GPUs' draw; host CPUs, NICs and storage are not
 *               counted beyond what the PUE factor carries)
 *   dollars   = GPU-hours * price per GPU-hour + kWh * price per kWh
 * Cloud prices per GPU-hour already include power: give kwh_usd = 0 then.
 * Marginal RoC takes options in the caller's order (usually increasing
 * cost) and reports each step's RoC; the Pareto frontier keeps the options
 * that no other option beats on both cost and quality.
 *
 * What it does not know: the run time (the solver computes it), the value of
 * a quality point to a business, and engineering cost.
 */
#ifndef DAM_QUALITY_H
#define DAM_QUALITY_H

#include <stddef.h>

#include "model/error.h"
#include "model/scaling.h"
#include "model/scenario.h"

/* Which cost RoC divides by. */
typedef enum {
    DAM_QUALITY_GPU_HOURS = 0, /* GPU-hours */
    DAM_QUALITY_USD,           /* US dollars */
    DAM_QUALITY_KWH,           /* kilowatt-hours at the wall */
    DAM_QUALITY_MEASURE_COUNT
} dam_quality_measure;

/* Name of a measure ("gpu_hours", "usd", "kwh"). */
const char *dam_quality_measure_name(dam_quality_measure m);
/* Parse a measure name (also "gpu-hours", "dollars", "energy"); 0 on
 * success, -1 when unknown. */
int dam_quality_measure_parse(const char *s, dam_quality_measure *out);

/* The cost of one run. */
typedef struct dam_quality_cost {
    double gpu_hours;  /* GPU-hours */
    double kwh;        /* energy at the wall, kWh */
    double gpu_usd;    /* GPU rental: gpu_hours * price per GPU-hour, USD */
    double energy_usd; /* electricity: kwh * price per kWh, USD */
    double usd;        /* gpu_usd + energy_usd, USD */
} dam_quality_cost;

/* Cost of a run of gpus (>= 1) GPUs for run_time_s seconds (>= 0) at
 * gpu_hour_usd per GPU-hour (>= 0), power_w average watts per GPU (>= 0),
 * pue (>= 1) and kwh_usd per kWh (>= 0): the identities
 *     kwh = gpus x power_w x run_time x pue,
 *     usd = gpu_hours x gpu_hour_usd + kwh x kwh_usd.
 * Returns DAM_OK, or DAM_EINPUT with err filled when an argument is out of
 * range. */
int dam_quality_run_cost(int64_t gpus, double run_time_s, double gpu_hour_usd,
                         double power_w, double pue, double kwh_usd,
                         dam_quality_cost *out, dam_error *err);

/* Idle power of a GPU as a share of its TDP, when the catalog gives none:
 * a GPU holding a CUDA context but running no kernel. Source: bare idle of
 * a 700 W H200 about 74 W by nvidia-smi (ConserveMode case study, RunPod,
 * 31 regions, 1 s sampling), and a CUDA context adds 26-50 W on HBM GPUs
 * (Vadari 2026, "The Model Parking Tax", arXiv 2605.23918, abstract):
 * 100-124 W, 14-18 % of TDP; 0.15 taken. Busy power is the TDP (an upper
 * bound: sustained training draws less). */
#define DAM_IDLE_POWER_FRACTION 0.15

/* Average electrical power of one GPU g, W, when it runs kernels a share
 * busy (clamped to 0..1) of the time and idles the rest:
 * idle + (tdp - idle) x busy, idle = DAM_IDLE_POWER_FRACTION x tdp. */
double dam_quality_gpu_power(const dam_gpu *g, double busy);

/* Cost of gpus (>= 1) of scenario s's GPUs for run_time_s seconds, busy
 * the share of that time they run kernels: the price by the one rule
 * (dam_gpu_price), power dam_quality_gpu_power, s's PUE (0 counts as 1)
 * and electricity price. Every path that costs a run or a serving hour
 * calls it, so cost = GPU-hours x price + kWh x kwh_usd everywhere. */
int dam_quality_scenario_cost(const dam_scenario *s, int64_t gpus,
                              double run_time_s, double busy,
                              dam_quality_cost *out, dam_error *err);

/* One cost figure of c in measure m. */
double dam_quality_cost_in(const dam_quality_cost *c, dam_quality_measure m);

/* Training tokens D of a scenario: quality.tokens when > 0, else
 * data.samples * model.seq_len * data.epochs. */
double dam_quality_tokens(const dam_scenario *s);

/* Loss the fit f predicts for the scenario's (model.params, tokens);
 * NaN when either is not > 0. */
double dam_quality_fit_loss(const dam_scenario *s, const dam_scaling_fit *f);

/* Quality of a scenario after its levers: quality.value, which levers have
 * already moved; when the value comes from the scaling law and was left
 * unset (<= 0), the loss of (params, tokens) under quality.fit. */
double dam_quality_after(const dam_scenario *s);

/* Quality gain from q0 to q1: q1 - q0 when higher is better, q0 - q1 for a
 * loss. Positive means better. */
double dam_quality_gain(double q0, double q1, int higher_is_better);

/* RoC of moving from (q0, cost0) to (q1, cost1): gain / (cost1 - cost0),
 * metric units per cost unit. A negative cost change (a cheaper option)
 * gives RoC < 0 for a gain, > 0 for a loss of quality: "quality given up per
 * unit saved" reads as its negation. Returns DAM_EINPUT when the costs are
 * equal (RoC undefined) or not finite. */
int dam_quality_roc(double q0, double cost0, double q1, double cost1,
                    int higher_is_better, double *roc, dam_error *err);

/* One option on a cost/quality chart. */
typedef struct dam_quality_point {
    char label[64];   /* option name, e.g. a lever or model */
    double cost;      /* in the measure the caller chose */
    double quality;   /* in the scenario's metric */
} dam_quality_point;

#define DAM_MAX_POINTS 32 /* options a points scenario may list */

/* Options measured or estimated by the user, as (name, quality, cost)
 * points: a scenario of mode "points" (loader.h dam_points_load), for
 * return on compute without simulating anything. */
typedef struct dam_points {
    char file[256];           /* where it was loaded from */
    char name[128];           /* scenario.name */
    char question[256];       /* scenario.question */
    char metric[32];          /* quality.metric */
    int higher_is_better;     /* quality.higher_is_better */
    char cost_unit[32];       /* cost.unit: what the cost numbers count */
    size_t n;                 /* points, >= 2 */
    dam_quality_point pts[DAM_MAX_POINTS]; /* in the file's order */
    int line[DAM_MAX_POINTS]; /* each point's line in the file */
} dam_points;

/* Marginal RoC along pts[0..n-1] in the given order: roc[i] is the RoC of
 * going from pts[i] to pts[i+1], so the caller supplies n - 1 entries.
 * Returns DAM_EINPUT (naming the two labels) when two successive costs are
 * equal, or when n < 2. */
int dam_quality_marginal(const dam_quality_point *pts, size_t n,
                         int higher_is_better, double *roc, dam_error *err);

/* Pareto frontier of pts: the indices of the options no other option
 * dominates (cost <= and quality at least as good, one strictly), written
 * to idx (caller supplies n entries) in increasing cost. Of exact
 * duplicates the first is kept. Returns how many indices were written. */
size_t dam_quality_pareto(const dam_quality_point *pts, size_t n,
                          int higher_is_better, size_t *idx);

#endif
