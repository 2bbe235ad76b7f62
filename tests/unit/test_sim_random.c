/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_sim_random.c: the simulation's random side (MODEL.md section 3):
 *  - the same seed gives byte-identical JSON, another seed different
 *    numbers, and the JSON holds no NaN or infinity;
 *  - common random numbers: swapping the GPU (a lever that touches only
 *    the GPU) leaves every draw of loader worker 0 unchanged;
 *  - stragglers: with gradient sync, one rank with a slow loader holds
 *    every rank back to its pace; without sync (offline inference) only
 *    that rank slows;
 *  - replications give a 95 % interval, and the trace records lanes,
 *    spans and queue depth up to its horizon, then renders as JSON.
 */
#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/out/json.h"
#include "render/out/trace_json.h"
#include "sim_util.h"
#include "solver/diagnose.h"

static dam_scenario s, base;
static dam_result r;
static dam_diagnosis dg;

/* Render r as the CLI's --json does; caller frees. */
static char *json_text(const dam_scenario *sc, const dam_result *res)
{
    dam_diagnose(sc, res, &dg);
    json_t *o = json_object();
    json_object_set_new(o, "scenario", dam_json_scenario(sc));
    json_object_set_new(o, "result", dam_json_result(sc, res, &dg));
    dam_buf b = {0};
    dam_json_dump(&b, o);
    return b.data;
}

/* Decode draws of worker 0 in replication 0. */
#define MAXDRAWS 64
struct draws {
    double v[MAXDRAWS];
    int n;
};

static void on_decode(void *ctx, int rep, long worker, double core_s)
{
    struct draws *d = ctx;
    if (rep == 0 && worker == 0 && d->n < MAXDRAWS)
        d->v[d->n++] = core_s;
}

/* Per-rank sums of measured step times. */
#define MAXRANKS 16
struct ranks {
    double sum[MAXRANKS];
    int n[MAXRANKS];
    int warm;
};

static void on_step(void *ctx, int rep, int rank, int step, double seconds,
                    double end)
{
    struct ranks *k = ctx;
    if (rank < MAXRANKS && step >= k->warm) {
        k->sum[rank] += seconds;
        k->n[rank]++;
    }
}

static double rank_mean(const struct ranks *k, int rank)
{
    return k->n[rank] ? k->sum[rank] / k->n[rank] : 0.0;
}

/* Rank `rank`'s step end times, replication 0. */
struct ends {
    int rank;
    double end[128];
};

static void on_end(void *ctx, int rep, int rank, int step, double seconds,
                   double end)
{
    struct ends *x = ctx;
    (void)seconds;
    if (rep == 0 && rank == x->rank && step >= 0 && step < 128)
        x->end[step] = end;
}

int main(void)
{
    dam_test_start(&sim_cat);
    dam_check_int(sim_load("resnet50-dgx-a100.cfg", &base), DAM_OK,
                  "flagship loads");

    /* ---- determinism ---------------------------------------------------- */
    dam_sim_options o = dam_test_options(5, 60, 3, 0);
    s = base;
    dam_test_simulate(&s, &o, &r);
    char *a = json_text(&s, &r);
    dam_test_simulate(&s, &o, &r);
    char *b = json_text(&s, &r);
    dam_check(a && b && strcmp(a, b) == 0,
              "same seed: byte-identical JSON (%zu bytes)",
              a ? strlen(a) : 0);
    dam_check(strstr(a, "NaN") == NULL && strstr(a, "nan") == NULL &&
                  strstr(a, "inf") == NULL,
              "no NaN or infinity in the JSON");
    dam_check(strstr(a, "\"step_source\": \"simulated\"") != NULL,
              "the JSON says the step is simulated");
    double step1 = r.step;
    dam_check(r.sim_step.ci95 > 0.0 && r.sim_step.ci95 < 0.05 * r.step,
              "3 replications give a 95 %% interval (+- %.3g s of %.3g s)",
              r.sim_step.ci95, r.step);
    dam_check(r.sim_step.p50 <= r.sim_step.p99 &&
                  r.sim_step.min <= r.sim_step.mean &&
                  r.sim_step.mean <= r.sim_step.max,
              "step statistics are ordered (min %.3g p50 %.3g mean %.3g "
              "p99 %.3g max %.3g)", r.sim_step.min, r.sim_step.p50,
              r.sim_step.mean, r.sim_step.p99, r.sim_step.max);
    dam_check(r.nstage_times >= 5, "accounting has %d stages",
              r.nstage_times);
    o = dam_test_options(5, 60, 3, 7);
    dam_test_simulate(&s, &o, &r);
    dam_check(r.step != step1, "another seed, another step (%.9g vs %.9g)",
              r.step, step1);
    free(a);
    free(b);

    /* ---- common random numbers ----------------------------------------- */
    struct draws d1 = {{0}, 0}, d2 = {{0}, 0};
    dam_sim_observer ob = {on_decode, NULL, &d1};
    o = dam_test_options(2, 60, 1, 0);
    o.observer = &ob;
    s = base;
    dam_test_simulate(&s, &o, &r);
    double step_a100 = r.step;
    ob.ctx = &d2;
    s.machine.gpu = *dam_catalog_gpu(&sim_cat, "H100-SXM5-80GB");
    s.data.decode_cv = 0.3;
    dam_test_simulate(&s, &o, &r);
    int n = d1.n < d2.n ? d1.n : d2.n, same = n > 0;
    for (int i = 0; i < n; i++)
        same = same && d1.v[i] == d2.v[i];
    dam_check(same && n >= 2,
              "H100 instead of A100: worker 0's first %d decode draws are "
              "identical (%.6g, %.6g, ...)", n, d1.v[0], d1.v[1]);
    dam_check(d1.v[0] != d1.v[1], "  and they are random draws");
    printf("  step on A100 %.6g s, on H100 %.6g s\n", step_a100, r.step);

    /* ---- stragglers ----------------------------------------------------- */
    /* Rank 3's loader decodes 1.5x slower; every GPU has enough compute
     * headroom that the others would keep up alone. */
    struct ranks k1, k2;
    memset(&k1, 0, sizeof k1);
    memset(&k2, 0, sizeof k2);
    k1.warm = k2.warm = 8;
    dam_sim_observer os = {NULL, on_step, &k1};
    o = dam_test_options(8, 96, 1, 0);
    o.observer = &os;
    o.slow_rank = 3;
    o.slow_decode = 1.5;
    s = base;
    s.pipeline.loader_workers = 16; /* fast ranks: ~100 ms of loader */
    s.pipeline.prefetch_factor = 4;
    s.mode = DAM_MODE_INFERENCE;    /* no sync: ranks independent */
    dam_test_simulate(&s, &o, &r);
    double slow_alone = rank_mean(&k1, 3), fast_alone = rank_mean(&k1, 0);
    dam_check(slow_alone > 1.3 * fast_alone,
              "without sync only the slow rank slows (rank 3 %.4g s, rank "
              "0 %.4g s)", slow_alone, fast_alone);
    os.ctx = &k2;
    s.mode = DAM_MODE_TRAINING;
    dam_test_simulate(&s, &o, &r);
    int all = 1;
    double lo = HUGE_VAL;
    for (int i = 0; i < 8; i++) {
        double m = rank_mean(&k2, i);
        all = all && m >= 0.99 * slow_alone;
        lo = m < lo ? m : lo;
    }
    dam_check(all, "with sync every rank runs at the straggler's pace: "
              "slowest-rank loader %.4g s, every rank >= %.4g s",
              slow_alone, lo);
    dam_check(r.terms[DAM_TERM_WAIT] > 0.1 * r.step &&
                  r.terms[DAM_TERM_WAIT] == r.sim_peer_wait,
              "  and the fast ranks' wait shows as waiting for ranks "
              "(%.3g of %.3g s)", r.terms[DAM_TERM_WAIT], r.step);
    dam_check(r.sim_exposed_comm < 0.25 * r.terms[DAM_TERM_WAIT],
              "  not as communication (exposed all-reduce %.3g s against "
              "%.3g s of waiting)", r.sim_exposed_comm,
              r.terms[DAM_TERM_WAIT]);

    /* ---- trace -------------------------------------------------------- */
    dam_trace tr;
    dam_trace_init(&tr);
    o = dam_test_options(5, 40, 2, 0);
    o.trace_steps = 3;
    s = base;
    dam_error e;
    dam_analytic_solve(&s, &r);
    dam_check_int(dam_sim_training(&s, &o, &r, &tr, &e), DAM_OK,
                  "simulates with a trace");
    /* 64 workers, 4 PCIe links, 8 GPUs, the network */
    dam_check_int((long)tr.nlanes, 64 + 4 + 8 + 1, "trace lanes");
    int kinds[DAM_SPAN_KIND_COUNT] = {0}, late = 0;
    for (size_t i = 0; i < tr.nspans; i++) {
        kinds[tr.spans[i].kind]++;
        late += tr.spans[i].start > tr.horizon;
    }
    dam_check(kinds[DAM_SPAN_READ] && kinds[DAM_SPAN_DECODE] &&
                  kinds[DAM_SPAN_COPY] && kinds[DAM_SPAN_FORWARD] &&
                  kinds[DAM_SPAN_BACKWARD] && kinds[DAM_SPAN_OPTIMIZER] &&
                  kinds[DAM_SPAN_ALLREDUCE] && kinds[DAM_SPAN_STALL],
              "every kind of span is recorded (%zu spans)", tr.nspans);
    dam_check(late == 0 && tr.horizon > 0.0,
              "nothing starts after the horizon (%.3g s)", tr.horizon);
    dam_check(tr.ncounters > 0, "queue depth sampled (%zu)", tr.ncounters);
    dam_buf tb = {0};
    dam_trace_json(&tb, &tr);
    json_error_t je;
    json_t *tj = json_loads(dam_buf_str(&tb), 0, &je);
    json_t *ev = tj ? json_object_get(tj, "traceEvents") : NULL;
    dam_check(ev && json_array_size(ev) ==
                        1 + 2 * tr.nlanes + tr.nspans + tr.ncounters,
              "the Chrome trace parses with every event (%zu)",
              ev ? json_array_size(ev) : 0);
    json_decref(tj);
    dam_buf_free(&tb);
    dam_trace_free(&tr);

    /* the window is the traced steps of the first traced rank (solver/
     * sim.h): rank 3 asked alone, from an array whose next entry (not part
     * of the list) is rank 0; offline inference, so that no all-reduce
     * makes the ranks' steps end together */
    static const int ranks[2] = {3, 0};
    struct ends x3 = {3, {0.0}};
    dam_sim_observer ob3 = {NULL, on_end, &x3};
    dam_trace_init(&tr);
    o = dam_test_options(5, 40, 1, 0);
    o.trace_first = 12;
    o.trace_steps = 3;
    o.trace_ranks = ranks;
    o.ntrace_ranks = 1;
    o.observer = &ob3;
    s = base;
    s.mode = DAM_MODE_INFERENCE;
    dam_analytic_solve(&s, &r);
    int rc3 = dam_sim_training(&s, &o, &r, &tr, &e);
    int f = tr.first_step, l = tr.first_step + tr.nsteps - 1;
    dam_check(rc3 == DAM_OK && f >= 1 && l < 128 && tr.nsteps == 3 &&
                  tr.from == x3.end[f - 1] && tr.horizon == x3.end[l],
              "trace of rank 3 alone: window from its step %d's end to its "
              "step %d's (%.6g to %.6g s; the trace's %.6g to %.6g s)",
              f - 1, l, f >= 1 ? x3.end[f - 1] : 0.0, l < 128 ? x3.end[l] : 0.0,
              tr.from, tr.horizon);
    dam_trace_free(&tr);

    /* ---- errors --------------------------------------------------------- */
    s = base;
    s.mode = DAM_MODE_SERVING;
    dam_check_int(dam_sim_training(&s, NULL, &r, NULL, &e), DAM_EINPUT,
                  "serving is refused with an error");
    s = base;
    s.data.decode_cv = -1.0;
    dam_analytic_solve(&s, &r);
    dam_check_int(dam_sim_training(&s, NULL, &r, NULL, &e), DAM_EINPUT,
                  "a negative cv is refused");

    dam_catalog_free(&sim_cat);
    return dam_check_done();
}
