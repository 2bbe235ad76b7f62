/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_decide.c: the decision layer, table-driven (issue 24, item 4). Each
 * threshold that turns a number into an answer is stated once in the table
 * below, with where it is documented, and checked on both sides: just
 * inside the rule's margin the answer is one thing, just outside it the
 * other. The margins are 10 % of the threshold's own distance from the
 * next candidate a typo or an edit would produce (2 % vs 1 % or 10 %, the
 * 5 % quantile vs the 10 %, 30 % MFU vs 20 %), so every such edit flips at
 * least one row, and no tolerance is taken from the values checked.
 *
 *  - what-if verdict: a lever "works" when the run is at least 2 % shorter
 *    and "hurts" when at least 2 % longer (solver/whatif.c, judge_row;
 *    README "Verdicts"). Judged through dam_whatif_run with a solver whose
 *    run times are set exactly, and no price, so that neither the cost
 *    rule nor the simulation's noise can decide instead.
 *  - interval: the 5 % and 95 % quantiles and the median of the draws
 *    (solver/uncertainty.h, dam_interval), on a sample whose quantiles are
 *    known exactly: 0, 1, ..., 1000.
 *  - MFU scorecard: "investigate < 30 %, strong > 50 %" (solver/diagnose.c).
 *  - serving scorecard (solver/diagnose_serving.c): SLO attainment
 *    "investigate < 99 %, strong >= 99.9 %", replica utilisation
 *    "investigate > 80 % (queueing), strong 40-70 %", CPU pool utilisation
 *    "investigate > 80 %, strong < 60 %"; each judged on the analytic
 *    answer of scenarios/resnet50-serving-l4.cfg with only that number set.
 */
#include <gsl/gsl_errno.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/lever.h"
#include "solver/analytic.h"
#include "solver/diagnose.h"
#include "solver/uncertainty.h"
#include "solver/whatif.h"

/* Each decision threshold, once. */
static const struct {
    const char *name;
    double at;      /* the threshold */
    double margin;  /* how far either side the checks sit */
} thresholds[] = {
    {"verdict: works at >= 2 % shorter", 0.02, 0.002},
    {"verdict: hurts at >= 2 % longer", 0.02, 0.002},
    {"interval: lower end the 5 % quantile", 0.05, 0.005},
    {"interval: upper end the 95 % quantile", 0.95, 0.005},
    {"MFU: investigate below 30 %", 0.30, 0.01},
    {"MFU: strong above 50 %", 0.50, 0.01},
    {"serving: SLO attainment investigate below 99 %", 0.99, 0.0009},
    {"serving: SLO attainment strong from 99.9 %", 0.999, 0.0001},
    {"serving: utilisation investigate above 80 %", 0.80, 0.01},
    {"serving: utilisation strong from 40 %", 0.40, 0.01},
    {"serving: utilisation strong up to 70 %", 0.70, 0.01},
    {"serving: CPU pool investigate above 80 %", 0.80, 0.01},
    {"serving: CPU pool strong below 60 %", 0.60, 0.01},
};
enum { T_WORKS, T_HURTS, T_LO, T_HI, T_MFU_LOW, T_MFU_HIGH, T_SLO_LOW,
       T_SLO_HIGH, T_UTIL_HIGH, T_UTIL_STRONG_LO, T_UTIL_STRONG_HI,
       T_CPU_HIGH, T_CPU_LOW };

/* A what-if solver: the analytic answer, then the run time the test asks
 * for. The baseline's is 1000 s; a scenario with more loader workers than
 * the baseline takes 1000 s x factor. No price, no energy. */
typedef struct fake {
    int base_workers;
    double factor;
} fake;

static int solve_fixed(const dam_scenario *s, void *ctx, dam_result *r,
                       dam_error *err)
{
    (void)err;
    const fake *f = ctx;
    dam_analytic_solve(s, r);
    double t = s->pipeline.loader_workers != f->base_workers ? f->factor
                                                              : 1.0;
    r->step = 0.1 * t;
    r->run_time = 1000.0 * t;
    r->gpu_hours = r->run_time / 3600.0 * s->machine.gpus_per_node;
    r->cost_usd = 0.0;
    r->energy_kwh = 0.0;
    return DAM_OK;
}

static dam_verdict verdict_at(const dam_scenario *s, const dam_catalog *cat,
                              double change, dam_whatif *w)
{
    fake f = {s->pipeline.loader_workers, 1.0 + change};
    dam_whatif_options opt;
    memset(&opt, 0, sizeof opt);
    opt.solve = solve_fixed;
    opt.solve_ctx = &f;
    dam_lever lv;
    dam_error e;
    if (dam_lever_parse_kv("loader_workers=17", &lv, &e) != DAM_OK ||
        dam_whatif_run(s, &lv, 1, cat, &opt, w, &e) != DAM_OK)
        return DAM_VERDICT_FAILED;
    for (int i = 1; i < w->nrows; i++)
        if (strcmp(w->rows[i].name, "loader_workers=17") == 0)
            return w->rows[i].verdict;
    return DAM_VERDICT_FAILED;
}

static dam_score mfu_score(double mfu)
{
    dam_diagnosis *d = dam_malloc(sizeof *d);
    memset(d, 0, sizeof *d);
    dam_result *r = dam_malloc(sizeof *r);
    memset(r, 0, sizeof *r);
    r->mfu = mfu;
    dam_diagnose_score_mfu(d, r);
    dam_score v = d->nscore == 1 ? d->score[0].verdict : (dam_score)-1;
    dam_free(r);
    dam_free(d);
    return v;
}

/* The serving scorecard's verdict on metric (its row's name) when the
 * answer base has that one number set to v. */
static dam_score serving_score(const dam_scenario *s, const dam_result *base,
                               const char *metric, double v)
{
    dam_result *r = dam_malloc(sizeof *r);
    *r = *base;
    if (strcmp(metric, "SLO attainment") == 0)
        r->serving.slo_attainment = v;
    else if (strcmp(metric, "replica utilisation") == 0)
        r->serving.utilization = v;
    else
        r->serving.cpu_utilization = v;
    dam_diagnosis *d = dam_malloc(sizeof *d);
    dam_diagnose_serving(s, r, d);
    dam_score got = (dam_score)-1;
    for (int i = 0; i < d->nscore; i++)
        if (strcmp(d->score[i].metric, metric) == 0)
            got = d->score[i].verdict;
    dam_free(d);
    dam_free(r);
    return got;
}

/* Both sides of threshold t on metric: below it `below`, above it `above`. */
static void serving_sides(const dam_scenario *s, const dam_result *base,
                          const char *metric, int t, dam_score below,
                          dam_score above)
{
    double at = thresholds[t].at, m = thresholds[t].margin;
    dam_check(serving_score(s, base, metric, at - m) == below &&
                  serving_score(s, base, metric, at + m) == above,
              "%s: %.2f %% and %.2f %% on either side", thresholds[t].name,
              100 * (at - m), 100 * (at + m));
}

int main(void)
{
    gsl_set_error_handler_off();
    dam_catalog cat;
    memset(&cat, 0, sizeof cat);
    dam_test_catalog(&cat);
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_whatif *w = dam_malloc(sizeof *w);
    dam_check_int(dam_test_scenario("resnet50-dgx-a100.cfg", &cat, s), DAM_OK,
                  "the flagship loads");

    /* verdicts on both sides of each 2 % rule */
    double g = thresholds[T_WORKS].at, m = thresholds[T_WORKS].margin;
    dam_check(verdict_at(s, &cat, -(g + m), w) == DAM_VERDICT_WORKS,
              "%s: %.1f %% shorter works", thresholds[T_WORKS].name,
              100 * (g + m));
    dam_check(verdict_at(s, &cat, -(g - m), w) == DAM_VERDICT_WASTED,
              "%s: %.1f %% shorter is wasted", thresholds[T_WORKS].name,
              100 * (g - m));
    g = thresholds[T_HURTS].at;
    m = thresholds[T_HURTS].margin;
    dam_check(verdict_at(s, &cat, g + m, w) == DAM_VERDICT_HURTS,
              "%s: %.1f %% longer hurts", thresholds[T_HURTS].name,
              100 * (g + m));
    dam_check(verdict_at(s, &cat, g - m, w) == DAM_VERDICT_WASTED,
              "%s: %.1f %% longer is wasted", thresholds[T_HURTS].name,
              100 * (g - m));
    /* a large gain works whatever the margin (the rule is one-sided) */
    dam_check(verdict_at(s, &cat, -0.5, w) == DAM_VERDICT_WORKS,
              "a 2x shorter run works");

    /* the interval of 0..1000: quantile q is 1000 q exactly */
    enum { N = 1001 };
    double *v = dam_malloc(N * sizeof *v);
    for (int i = 0; i < N; i++)
        v[i] = (double)((i * 379) % N); /* shuffled: the order must not matter */
    dam_interval iv = dam_interval_of(v, N);
    dam_check_rel(iv.lo, 1000.0 * thresholds[T_LO].at, 1e-12,
                  thresholds[T_LO].name);
    dam_check_rel(iv.hi, 1000.0 * thresholds[T_HI].at, 1e-12,
                  thresholds[T_HI].name);
    dam_check_rel(iv.median, 500.0, 1e-12, "interval: the median");
    dam_free(v);

    /* MFU scorecard, both sides of both thresholds */
    double lo = thresholds[T_MFU_LOW].at, hi = thresholds[T_MFU_HIGH].at;
    double ml = thresholds[T_MFU_LOW].margin, mh = thresholds[T_MFU_HIGH].margin;
    dam_check(mfu_score(lo - ml) == DAM_SCORE_INVESTIGATE,
              "%s: %.0f %% is investigate", thresholds[T_MFU_LOW].name,
              100 * (lo - ml));
    dam_check(mfu_score(lo + ml) == DAM_SCORE_OK, "%s: %.0f %% is ok",
              thresholds[T_MFU_LOW].name, 100 * (lo + ml));
    dam_check(mfu_score(hi - mh) == DAM_SCORE_OK, "%s: %.0f %% is ok",
              thresholds[T_MFU_HIGH].name, 100 * (hi - mh));
    dam_check(mfu_score(hi + mh) == DAM_SCORE_STRONG, "%s: %.0f %% is strong",
              thresholds[T_MFU_HIGH].name, 100 * (hi + mh));

    /* the serving scorecard, both sides of each threshold */
    dam_scenario *sv = dam_malloc(sizeof *sv);
    dam_result *base = dam_malloc(sizeof *base);
    dam_check_int(dam_test_scenario("resnet50-serving-l4.cfg", &cat, sv),
                  DAM_OK, "the serving scenario loads");
    dam_analytic_solve(sv, base);
    const dam_score I = DAM_SCORE_INVESTIGATE, O = DAM_SCORE_OK,
                    S = DAM_SCORE_STRONG;
    serving_sides(sv, base, "SLO attainment", T_SLO_LOW, I, O);
    serving_sides(sv, base, "SLO attainment", T_SLO_HIGH, O, S);
    serving_sides(sv, base, "replica utilisation", T_UTIL_HIGH, O, I);
    serving_sides(sv, base, "replica utilisation", T_UTIL_STRONG_LO, O, S);
    serving_sides(sv, base, "replica utilisation", T_UTIL_STRONG_HI, S, O);
    serving_sides(sv, base, "CPU pool utilisation", T_CPU_HIGH, O, I);
    serving_sides(sv, base, "CPU pool utilisation", T_CPU_LOW, S, O);
    /* far from every threshold: an idle replica is not "strong", a
     * saturated one is investigated */
    dam_check(serving_score(sv, base, "replica utilisation", 0.05) == O,
              "serving: a replica 5 %% busy is ok, not strong");
    dam_check(serving_score(sv, base, "replica utilisation", 0.99) == I,
              "serving: a replica 99 %% busy is investigated");
    dam_free(base);
    dam_free(sv);

    dam_free(w);
    dam_free(s);
    dam_catalog_free(&cat);
    return dam_check_done();
}
