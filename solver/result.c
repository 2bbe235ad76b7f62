/* SPDX-License-Identifier: GPL-3.0-or-later */
/* result.c: names of terms and serving phases (bounds: model/bound.c),
 * and the last guard before output (dam_result_check). */
#include "solver/result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/error.h"
#include "model/quality.h"

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

void dam_memory_judge(dam_memory *m)
{
    m->fits = m->total <= m->capacity;
    m->tight = m->fits && m->total > (1.0 - DAM_MEMORY_HEADROOM) * m->capacity;
    m->shortfall = m->fits ? 0.0 : m->total - m->capacity;
}

int dam_llm_slo_met(const dam_llm_result *l)
{
    double tol = 1.0 + 1e-9;
    /* a deployment that serves nothing meets nothing */
    if (!l->memory.fits || !(l->ttft.n > 0.0) || !(l->requests > 0.0) ||
        l->missed_early)
        return 0;
    return l->ttft.q + l->ttft.q_ci <= l->slo_ttft_s * tol &&
           l->tpot.q + l->tpot.q_ci <= l->slo_tpot_s * tol;
}

void dam_serving_cost_per_1k(const dam_scenario *s, double gpus,
                             double throughput, double busy,
                             dam_serving_result *sv)
{
    dam_quality_cost c;
    sv->cost_per_1k = 0.0;
    sv->kwh_per_1k = 0.0;
    if (!(throughput > 0.0) || !(gpus >= 1.0) ||
        dam_quality_scenario_cost(s, (int64_t)gpus, 1000.0 / throughput, busy,
                                  &c, NULL) != DAM_OK)
        return;
    sv->cost_per_1k = c.usd;
    sv->kwh_per_1k = c.kwh;
}

int dam_phase_off_roofline(const dam_phase_result *p, double ridge,
                           double mem_bw)
{
    return (p->flops > 0.0 && p->bytes > 0.0 &&
            (p->intensity < ridge) != (p->memory_bound != 0)) ||
           (p->bytes > 0.0 && mem_bw > 0.0 &&
            p->time < 0.99 * p->bytes / mem_bw);
}

const char *dam_serving_capacity_part(dam_bound by)
{
    switch (by) {
    case DAM_BOUND_PREPROCESS: return "its CPU preprocessing pool";
    case DAM_BOUND_TRANSFER: return "its PCIe links";
    default: return "its replicas";
    }
}

double dam_serving_lone_floor(const dam_result *r)
{
    double t = r->step;
    for (int i = 0; i < r->nstages; i++)
        if (strcmp(r->stages[i].name, "batching") == 0)
            t -= r->stages[i].time;
    return t;
}

int dam_serving_slo_met(const dam_serving_result *sv)
{
    /* LLM serving: both token objectives; the end-to-end p99 objective
     * too when one is given */
    if (sv->llm.enabled)
        return dam_llm_slo_met(&sv->llm) &&
               (!(sv->slo_s > 0.0) ||
                sv->latency.p99 + sv->p99_ci95 <= sv->slo_s * (1.0 + 1e-9));
    if (!(sv->latency.n > 0.0) || !(sv->throughput > 0.0))
        return 0; /* nothing served */
    return sv->latency.p99 + sv->p99_ci95 <= sv->slo_s * (1.0 + 1e-9);
}

/* One figure: finite, and >= 0 unless signed. */
static int bad(double v, int signed_ok)
{
    return !isfinite(v) || (!signed_ok && v < 0.0);
}

#define FIG(v, name)                                                        \
    do {                                                                    \
        if (bad((v), 0))                                                    \
            return fail(err, file, name, (v));                              \
    } while (0)

static int fail(dam_error *err, const char *file, const char *name, double v)
{
    return dam_error_set(err, file, 0,
                         "the result is not a finite, meaningful number "
                         "(%s = %g): an input is beyond any physical range "
                         "for this model; check the scenario's values",
                         name, v);
}

static int stat_check(const dam_stat *st, const char *file, const char *what,
                      dam_error *err)
{
    const double q[5] = {st->min, st->p50, st->p95, st->p99, st->max};
    static const char *const qn[5] = {"min", "p50", "p95", "p99", "max"};
    char name[64];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "%s %s", what, qn[i]);
        FIG(q[i], name);
        /* quantiles come from a histogram good to 0.1 % (stats.h) */
        if (i > 0 && q[i] < q[i - 1] * (1.0 - 2e-3))
            return dam_error_set(err, file, 0,
                                 "%s quantiles out of order (%s %g < %s %g)",
                                 what, qn[i], q[i], qn[i - 1], q[i - 1]);
    }
    snprintf(name, sizeof name, "%s mean", what);
    FIG(st->mean, name);
    snprintf(name, sizeof name, "%s sd", what);
    FIG(st->sd, name);
    snprintf(name, sizeof name, "%s ci95", what);
    FIG(st->ci95, name);
    return DAM_OK;
}

int dam_result_check(const dam_result *r, const char *file, dam_error *err)
{
    FIG(r->step, "step");
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        FIG(r->terms[t], dam_term_name((dam_term)t));
    FIG(r->throughput, "throughput");
    FIG(r->tokens_per_s, "tokens per second");
    FIG(r->steps_per_epoch, "steps per epoch");
    FIG(r->epoch_time, "epoch time");
    FIG(r->run_time, "run time");
    FIG(r->mfu, "MFU");
    FIG(r->io_overhead, "I/O overhead");
    FIG(r->model_flops_step, "model FLOPs per step");
    FIG(r->gpu_hours, "GPU-hours");
    FIG(r->cost_usd, "cost");
    FIG(r->energy_kwh, "energy");
    FIG(r->t_seq, "T_seq");
    FIG(r->t_pipe, "T_pipe");
    FIG(r->global_batch, "global batch");
    if (bad(r->quality, 1))
        return fail(err, file, "quality", r->quality);
    FIG(r->memory.total, "memory");
    for (int i = 0; i < r->nstages && i < DAM_MAX_STAGES; i++)
        FIG(r->stages[i].time, r->stages[i].name);
    for (int i = 0; i < r->nphases && i < DAM_MAX_PHASES + 1; i++)
        FIG(r->phases[i].time, r->phases[i].name);
    if (r->has_sim) {
        int rc = stat_check(&r->sim_step, file, "simulated step", err);
        if (rc == DAM_OK && r->mode == DAM_MODE_SERVING)
            rc = stat_check(&r->serving.latency, file, "latency", err);
        if (rc != DAM_OK)
            return rc;
        FIG(r->analytic_step, "analytic step");
        if (r->mode == DAM_MODE_SERVING) {
            FIG(r->serving.throughput, "serving throughput");
            FIG(r->serving.cost_per_1k, "cost per 1,000 requests");
            FIG(r->serving.p99_ci95, "p99 interval");
        }
    }
    return DAM_OK;
}
