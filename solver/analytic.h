/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analytic.h: the iron-law and roofline solver.
 *
 * For one step on one GPU it evaluates every stage of MODEL.md section 2 as
 * D_vol/BW, O/(R_peak*eta) and L_lat; the sequential sum T_seq and the
 * perfect-overlap bound T_pipe; each compute phase against the ridge point
 * of the GPU at the scenario's precision; MFU, I/O overhead, memory footprint
 * and cost. The "step" it reports is the steady state of the configured
 * pipeline: with loader workers the prefetch queue decouples the loader from
 * the GPU, so the step is the slower of the two; with loader_workers = 0 the
 * main process loads each batch itself and every term adds up.
 * It never changes the scenario and never fails on a loaded scenario.
 */
#ifndef DAM_ANALYTIC_H
#define DAM_ANALYTIC_H

#include "solver/result.h"

/* Solve s analytically into r (r is overwritten). */
void dam_analytic_solve(const dam_scenario *s, dam_result *r);

/*
 * What binds a batch-mode step, from r's terms and phases (the one rule
 * both solvers use; r solved from s). A stage that runs on its own and
 * still leaves the GPU waiting sets the pace, however small its exposed
 * part: with a decoupled loader (loader workers > 0) the loader binds
 * whenever the data wait exceeds floor (s), and with the copy on its own
 * stream (overlap_transfer) the host-to-device link binds whenever exposed
 * transfer exceeds floor. Otherwise the largest term binds; waiting for
 * other ranks stands for what made the slowest rank slow (its data when
 * there is data wait, else its compute); compute becomes memory when
 * memory-bound phases take more than half of r->t_compute.
 */
dam_bound dam_analytic_bound(const dam_scenario *s, const dam_result *r,
                             double floor);

/* Pieces the simulator reuses, so both solvers share one cost model. */

/* Time of one forward pass of phase i on a batch of b samples, s. */
double dam_analytic_phase_time(const dam_scenario *s, int i, double b,
                               dam_phase_result *out);
/* Ring all-reduce time of `bytes` over the scenario's GPUs, s (no alpha). */
double dam_analytic_allreduce(const dam_scenario *s, double bytes);
/* Per-collective latency term (alpha part) of one all-reduce, s. */
double dam_analytic_allreduce_latency(const dam_scenario *s);
/* Gradient bytes per step per GPU. */
double dam_analytic_grad_bytes(const dam_scenario *s);
/* Per-step launch + framework overhead (L_lat on the GPU side), s. */
double dam_analytic_overhead(const dam_scenario *s);
/* Optimizer step time, s. */
double dam_analytic_optimizer(const dam_scenario *s);
/* Effective host-to-device bandwidth of one GPU's copies, bytes/s. */
double dam_analytic_h2d_bw(const dam_scenario *s);
/* Model FLOPs of one step on one GPU (fwd + bwd for training), FLOP. */
double dam_analytic_model_flops(const dam_scenario *s);

#endif
