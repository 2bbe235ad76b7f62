/* SPDX-License-Identifier: GPL-3.0-or-later */
/* result.c: names of terms and serving phases (bounds: model/bound.c). */
#include "solver/result.h"

static const char *const term_names[DAM_TERM_COUNT] = {
    "data wait", "exposed transfer", "compute", "exposed communication",
    "overhead", "waiting for ranks"};

const char *dam_term_name(dam_term t)
{
    return (unsigned)t < DAM_TERM_COUNT ? term_names[t] : "?";
}

static const char *const sphase_names[DAM_SPHASE_COUNT] = {
    "queue", "batching", "preprocess", "transfer", "compute", "postprocess"};

const char *dam_serving_phase_name(int phase)
{
    return (unsigned)phase < DAM_SPHASE_COUNT ? sphase_names[phase] : "?";
}

int dam_serving_slo_met(const dam_serving_result *sv)
{
    return sv->latency.p99 + sv->p99_ci95 <= sv->slo_s * (1.0 + 1e-9);
}
