/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * solve.c: the questions of libdamsim's interface (damsim.h): solve,
 * what-if and plan, each answered as the damsim command answers it
 * (cli/cmd_run.c, cmd_whatif.c, cmd_plan.c and plan_budget.c), with the
 * command's defaults for everything the interface does not take (work
 * limits, replications and steps from the scenario), and the same JSON
 * (render/). The test api_cli_parity compares the two byte for byte;
 * a change to what the command computes belongs in both places until the
 * command is built on this interface.
 */
#include "api/api.h"

#include <jansson.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "model/alloc.h"
#include "model/arrivals.h"
#include "model/lever.h"
#include "model/llm_trace.h"
#include "render/out/json.h"
#include "render/page/llm.h"
#include "render/page/plan_report.h"
#include "render/page/whatif_page.h"
#include "solver/analytic.h"
#include "solver/capacity.h"
#include "solver/diagnose.h"
#include "solver/llm_plan.h"
#include "solver/plan.h"
#include "solver/sim.h"
#include "solver/uncertainty.h"
#include "solver/whatif.h"

/* How one question is solved: the method, the seed, and the serving
 * trace read for it. */
typedef struct how {
    int simulate;       /* DAMSIM_SIMULATE */
    long seed;          /* >= 0, or DAMSIM_SEED_SCENARIO */
    void *trace;        /* arrival times or LLM requests (owned) */
    size_t ntrace;
    int llm;            /* the trace holds LLM requests */
    int offline;        /* LLM serving: the offline run beside (run) */
} how;

/* The simulation options of h: its seed, the scenario's replications and
 * steps, the command's default work limits (3e8 events, half this
 * machine's memory: cli/main.c dam_cli_sim_limits). */
static dam_sim_options sim_options(const how *h)
{
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.have_seed = h->seed >= 0;
    o.seed = h->seed >= 0 ? (unsigned long)h->seed : 0;
    o.warmup = -1;
    o.max_events = 3e8;
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    o.max_bytes = pages > 0 && size > 0 ? 0.5 * (double)pages * size : 4e9;
    if (h->llm) {
        o.requests = h->trace;
        o.nrequests = h->ntrace;
    } else {
        o.arrivals = h->trace;
        o.narrivals = h->ntrace;
    }
    return o;
}

/* Read the arrival trace of serving scenario s into h (as cli/serving.c);
 * problems into d. */
static int read_trace(const dam_scenario *s, how *h, dam_diag *d)
{
    if (s->mode != DAM_MODE_SERVING ||
        s->serving.arrival != DAM_ARRIVAL_TRACE)
        return DAM_OK;
    char path[512];
    dam_arrivals_path(path, sizeof path, s);
    if (s->serving.llm.enabled) {
        dam_llm_request *q = NULL;
        int rc = dam_llm_trace_load(path, s, &q, &h->ntrace, d);
        h->trace = q;
        h->llm = 1;
        return rc;
    }
    double *a = NULL;
    int rc = dam_arrivals_load(path, &a, &h->ntrace, d);
    h->trace = a;
    return rc;
}

/* The what-if and uncertainty callback: the analytic solver, then the
 * simulation h asks for (serving or training), then the result's check
 * (cmd_run.c's solve). */
static int solve_one(const dam_scenario *s, void *ctx, dam_result *r,
                     dam_error *err)
{
    const how *h = ctx;
    dam_analytic_solve(s, r);
    int rc = DAM_OK;
    if (h->simulate) {
        dam_sim_options o = sim_options(h);
        o.llm_offline = h->offline;
        if (s->mode == DAM_MODE_SERVING)
            rc = dam_sim_serving(s, &o, r, NULL, err);
        else
            rc = dam_sim_training(s, &o, r, NULL, err);
    }
    return rc == DAM_OK ? dam_result_check(r, s->file, err) : rc;
}

/* A status from an internal code, with e recorded on sc. */
static int failed(damsim_scenario *sc, int code, const dam_error *e)
{
    dam_api_diag_add(&sc->diag, e);
    return code == DAM_EINPUT ? DAMSIM_EINPUT : DAMSIM_ERUNTIME;
}

/* Start a question on sc: check the arguments, copy the scenario in
 * effect into *s (with the seed as its own when reseed), read its trace
 * into h. */
static int begin(damsim_scenario *sc, int method, long seed, int reseed,
                 void *out, dam_scenario **s, how *h)
{
    int rc = out ? dam_api_scenario_begin(sc) : DAMSIM_EMISUSE;
    if (rc != DAMSIM_OK)
        return rc;
    if (method != DAMSIM_ANALYTIC && method != DAMSIM_SIMULATE)
        return dam_api_fail(&sc->diag, DAMSIM_EMISUSE,
                            "method must be DAMSIM_ANALYTIC or "
                            "DAMSIM_SIMULATE, got %d",
                            method);
    if (seed < DAMSIM_SEED_SCENARIO || seed > 2147483647L)
        return dam_api_fail(&sc->diag, DAMSIM_EMISUSE,
                            "seed must be 0 to 2147483647 or "
                            "DAMSIM_SEED_SCENARIO, got %ld",
                            seed);
    memset(h, 0, sizeof *h);
    h->simulate = method == DAMSIM_SIMULATE;
    h->seed = seed;
    *s = dam_malloc(sizeof **s);
    **s = *sc->s;
    if (seed >= 0 && reseed)
        (*s)->seed = (unsigned long)seed;
    if (h->simulate) /* the analytic solvers read no trace */
        rc = read_trace(*s, h, &sc->diag.d);
    dam_api_diag_done(&sc->diag);
    if (rc != DAM_OK || sc->diag.d.nerr) {
        dam_free(h->trace);
        dam_free(*s);
        *s = NULL;
        return DAMSIM_EINPUT;
    }
    return DAMSIM_OK;
}

/* The intervals of s's uncertain inputs around r, as `damsim run` gives
 * them; NULL when s has none. */
static int intervals(const dam_scenario *s, const dam_result *r, how *h,
                     dam_uncertainty **out, dam_error *e)
{
    *out = NULL;
    if (dam_uncertainty_sources(s) == 0)
        return DAM_OK;
    dam_uncertainty *u = dam_malloc(sizeof *u);
    int st = dam_uncertainty_run(s, DAM_UNCERTAINTY_SAMPLES, s->seed, u, e);
    if (st == DAM_OK && r->has_sim) {
        dam_figures shown = dam_figures_of(r);
        dam_interval_carry_run(u, &shown);
    }
    if (st == DAM_OK && r->has_sim && s->mode == DAM_MODE_SERVING &&
        r->memory.fits) {
        dam_draws *d = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, s->seed);
        int n = dam_draws_count(d);
        double *t = dam_draws_times(d, s);
        if (dam_load_interval_of(d, s, s, r, t, n, solve_one, h, &u->load) !=
            DAM_OK)
            u->load.ok = 0;
        dam_free(t);
        dam_draws_free(d);
    }
    if (st != DAM_OK) {
        dam_free(u);
        return st;
    }
    *out = u;
    return DAM_OK;
}

int damsim_solve(damsim_scenario *sc, int method, long seed,
                 damsim_result **out)
{
    if (out)
        *out = NULL;
    dam_scenario *s = NULL;
    how h;
    int rc = begin(sc, method, seed, 1, out, &s, &h);
    if (rc != DAMSIM_OK)
        return rc;
    dam_result *r = dam_malloc(sizeof *r);
    dam_error e;
    memset(&e, 0, sizeof e);
    h.offline = 1; /* `damsim run`: LLM serving's offline run beside */
    int st = solve_one(s, &h, r, &e);
    h.offline = 0; /* not in the intervals' draws (as cli/serving.c) */
    dam_uncertainty *u = NULL;
    if (st == DAM_OK)
        st = intervals(s, r, &h, &u, &e);
    if (st == DAM_OK) {
        dam_diagnosis *d = dam_malloc(sizeof *d);
        dam_diagnose(s, r, d);
        json_t *o = json_object();
        json_object_set_new(o, "scenario", dam_json_scenario(s));
        json_object_set_new(o, "result", dam_json_result(s, r, d));
        if (u)
            json_object_set_new(o, "uncertainty", dam_json_uncertainty(s, u));
        *out = dam_api_result_new(o);
        dam_free(d);
    } else {
        rc = failed(sc, st, &e);
    }
    dam_free(u);
    dam_free(r);
    dam_free(h.trace);
    dam_free(s);
    return rc;
}

int damsim_whatif_run(damsim_scenario *sc, const char *const *levers,
                      int nlevers, int method, long seed, damsim_whatif **out)
{
    if (out)
        *out = NULL;
    if (nlevers < 0 || nlevers > DAM_MAX_LEVERS || (nlevers && !levers))
        return sc ? dam_api_fail(&sc->diag, DAMSIM_EMISUSE,
                                 "0 to %d levers, got %d", DAM_MAX_LEVERS,
                                 nlevers)
                  : DAMSIM_EMISUSE;
    dam_scenario *s = NULL;
    how h;
    /* as `damsim whatif --seed N`: the seed is the scenario's, so the
     * simulations and the draws of its uncertain inputs both take it */
    int rc = begin(sc, method, seed, 1, out, &s, &h);
    if (rc != DAMSIM_OK)
        return rc;
    dam_lever *extra = dam_calloc(DAM_MAX_LEVERS, sizeof *extra);
    for (int i = 0; i < nlevers && rc == DAMSIM_OK; i++) {
        dam_error e;
        memset(&e, 0, sizeof e);
        if (!levers[i]) {
            rc = dam_api_fail(&sc->diag, DAMSIM_EMISUSE, "lever %d is NULL",
                              i);
        } else if (dam_lever_parse_kv(levers[i], &extra[i], &e) != DAM_OK ||
                   dam_lever_check(&extra[i], "", &sc->cat, &e) != DAM_OK) {
            dam_lever_error_at(&e, "lever", levers[i]);
            rc = failed(sc, DAM_EINPUT, &e);
        }
    }
    if (rc == DAMSIM_OK) {
        dam_whatif_options opt;
        memset(&opt, 0, sizeof opt);
        opt.levers = sc->file_levers;
        opt.solve = solve_one;
        opt.solve_ctx = &h;
        opt.measure = DAM_QUALITY_USD;
        opt.uncertainty_samples = DAM_UNCERTAINTY_SAMPLES;
        dam_whatif *w = dam_malloc(sizeof *w);
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_whatif_run(s, extra, nlevers, &sc->cat, &opt, w, &e) ==
            DAM_OK) {
            json_t *o = dam_page_whatif_json(w);
            damsim_whatif *x = dam_calloc(1, sizeof *x);
            struct damsim_result *r = dam_api_result_new(o);
            x->r = *r;
            dam_free(r);
            x->nrows = (int)json_array_size(json_object_get(x->r.root,
                                                            "options"));
            *out = x;
        } else {
            rc = failed(sc, DAM_EINPUT, &e);
        }
        dam_free(w);
    }
    dam_free(extra);
    dam_free(h.trace);
    dam_free(s);
    return rc;
}

/* Finish a plan: its JSON into *out, or the error. */
static int plan_done(damsim_scenario *sc, int st, const dam_error *e,
                     json_t *o, damsim_result **out)
{
    if (st != DAM_OK)
        return failed(sc, st, e);
    *out = dam_api_result_new(o);
    return DAMSIM_OK;
}

int damsim_plan(damsim_scenario *sc, long seed, damsim_result **out)
{
    if (out)
        *out = NULL;
    dam_scenario *s = NULL;
    how h;
    int rc = begin(sc, DAMSIM_SIMULATE, seed, 1, out, &s, &h);
    if (rc != DAMSIM_OK)
        return rc;
    /* a plan simulates rates, not the trace: it was read (its errors
     * count), then dropped, as `damsim plan` does */
    dam_free(h.trace);
    h.trace = NULL;
    h.ntrace = 0;
    dam_sim_options o = sim_options(&h);
    dam_error e;
    memset(&e, 0, sizeof e);
    double rate = s->serving.rate;
    if (s->mode != DAM_MODE_SERVING) {
        rc = dam_api_fail(&sc->diag, DAMSIM_EINPUT,
                          "%s: a %s scenario is planned for a budget "
                          "(damsim_plan_budget)",
                          s->file, dam_mode_name(s->mode));
    } else if (!(rate > 0.0)) {
        rc = dam_api_fail(&sc->diag, DAMSIM_EINPUT,
                          "%s: a trace scenario needs a rate to plan for "
                          "(set serving.rate_per_s)",
                          s->file);
    } else if (s->serving.llm.enabled) {
        dam_llm_plan *p = dam_malloc(sizeof *p);
        int st = dam_llm_plan_run(s, &sc->cat, s->serving.llm.slo_ttft_s,
                                  s->serving.llm.slo_tpot_s, rate, &o, p, &e);
        rc = plan_done(sc, st, &e, st == DAM_OK ? dam_llm_plan_json(s, p)
                                                : NULL, out);
        dam_free(p);
    } else {
        dam_capacity_result *p = dam_malloc(sizeof *p);
        int st = dam_capacity_plan(s, &sc->cat, s->serving.slo_p99_s, rate,
                                   &o, p, &e);
        rc = plan_done(sc, st, &e,
                       st == DAM_OK ? dam_plan_report_capacity_json(s, p)
                                    : NULL,
                       out);
        dam_free(p);
    }
    dam_free(s);
    return rc;
}

int damsim_plan_budget(damsim_scenario *sc, int unit, double budget,
                       double deadline_s, damsim_result **out)
{
    if (out)
        *out = NULL;
    dam_scenario *s = NULL;
    how h;
    int rc = begin(sc, DAMSIM_ANALYTIC, DAMSIM_SEED_SCENARIO, 1, out, &s,
               &h);
    if (rc != DAMSIM_OK)
        return rc;
    dam_free(h.trace);
    static const dam_budget_kind kinds[] = {
        DAM_BUDGET_FLOPS, DAM_BUDGET_GPU_HOURS, DAM_BUDGET_USD};
    /* the deadline's range is scenario.deadline_days' (as --deadline) */
    double lo = 1e-6, hi = 1e6;
    dam_scenario_key_range("scenario.deadline_days", &lo, &hi);
    if (deadline_s == 0.0)
        deadline_s = 30.0 * 86400.0;
    if (unit < 0 || unit > 2) {
        rc = dam_api_fail(&sc->diag, DAMSIM_EMISUSE,
                          "budget unit must be DAMSIM_BUDGET_FLOPS, _GPU_HOURS "
                          "or _USD, got %d",
                          unit);
    } else if (!isfinite(budget) || !(budget > 0.0)) {
        rc = dam_api_fail(&sc->diag, DAMSIM_EINPUT,
                          "the budget must be a number greater than 0, got "
                          "%g",
                          budget);
    } else if (!isfinite(deadline_s) || deadline_s < lo * 86400.0 ||
               deadline_s > hi * 86400.0) {
        rc = dam_api_fail(&sc->diag, DAMSIM_EINPUT,
                          "the deadline must be %g to %g days, got %g s", lo,
                          hi, deadline_s);
    } else {
        dam_plan *p = dam_malloc(sizeof *p);
        dam_error e;
        memset(&e, 0, sizeof e);
        int st = dam_plan_budget(s, &sc->cat, kinds[unit], budget,
                                 deadline_s, NULL, p, &e);
        rc = plan_done(sc, st, &e,
                       st == DAM_OK ? dam_plan_report_budget_json(s, p)
                                    : NULL,
                       out);
        dam_free(p);
    }
    dam_free(s);
    return rc;
}
