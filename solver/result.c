/* SPDX-License-Identifier: GPL-3.0-or-later */
/* result.c: names of terms and bounds, and the D·A·M axis of each bound. */
#include "solver/result.h"

static const char *const term_names[DAM_TERM_COUNT] = {
    "data wait", "exposed transfer", "compute", "exposed communication",
    "overhead"};

const char *dam_term_name(dam_term t)
{
    return (unsigned)t < DAM_TERM_COUNT ? term_names[t] : "?";
}

static const char *const bound_names[DAM_BOUND_COUNT] = {
    "data", "transfer", "compute", "memory", "communication", "latency",
    "queueing", "preprocessing", "weight-bandwidth"};

/* Axis of each bound, after the reference texts: memory-bound execution
 * sits on the Data/Machine boundary, compute-bound couples Algorithm work
 * with Machine throughput, latency-bound is cross-axis overhead. */
static const char *const bound_axes[DAM_BOUND_COUNT] = {
    "Data", "Data/Machine", "Algorithm/Machine", "Data/Machine", "Machine",
    "Algorithm/Machine", "Machine", "Data", "Data/Machine"};

static const char *const sphase_names[DAM_SPHASE_COUNT] = {
    "queue", "batching", "preprocess", "transfer", "compute", "postprocess"};

const char *dam_serving_phase_name(int phase)
{
    return (unsigned)phase < DAM_SPHASE_COUNT ? sphase_names[phase] : "?";
}

const char *dam_bound_name(dam_bound b)
{
    return (unsigned)b < DAM_BOUND_COUNT ? bound_names[b] : "?";
}

const char *dam_bound_axis(dam_bound b)
{
    return (unsigned)b < DAM_BOUND_COUNT ? bound_axes[b] : "?";
}

int dam_serving_slo_met(const dam_serving_result *sv)
{
    return sv->latency.p99 + sv->p99_ci95 <= sv->slo_s * (1.0 + 1e-9);
}
