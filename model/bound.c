/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bound.c: names of bounds and the D·A·M axis of each (see bound.h). */
#include "model/bound.h"

static const char *const bound_names[DAM_BOUND_COUNT] = {
    "data", "transfer", "compute", "memory", "communication", "latency",
    "queueing", "preprocessing", "weight-bandwidth", "KV-cache capacity"};

/* Axis of each bound, after the reference texts: memory-bound execution
 * sits on the Data/Machine boundary, compute-bound couples Algorithm work
 * with Machine throughput, latency-bound is cross-axis overhead. */
static const char *const bound_axes[DAM_BOUND_COUNT] = {
    "Data", "Data/Machine", "Algorithm/Machine", "Data/Machine", "Machine",
    "Algorithm/Machine", "Machine", "Data", "Data/Machine", "Data/Machine"};

const char *dam_bound_name(dam_bound b)
{
    return (unsigned)b < DAM_BOUND_COUNT ? bound_names[b] : "?";
}

const char *dam_bound_axis(dam_bound b)
{
    return (unsigned)b < DAM_BOUND_COUNT ? bound_axes[b] : "?";
}
