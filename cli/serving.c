/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * serving.c: the command-line side of serving scenarios, shared by `run`
 * and `plan`: reads the arrival trace (the simulator opens no files),
 * turns --seed, --replications and --steps into dam_sim_options, runs the
 * serving simulation and reports its errors.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/alloc.h"
#include "model/arrivals.h"
#include "model/llm_trace.h"

/* Read the trace of s (arrival times, or LLM requests) into opt; the
 * memory is *owned (dam_free it). Problems into d. */
static int load_trace(const dam_scenario *s, dam_sim_options *opt,
                      void **owned, dam_diag *d)
{
    char path[512];
    dam_arrivals_path(path, sizeof path, s);
    size_t n = 0;
    if (s->serving.llm.enabled) {
        dam_llm_request *q = NULL;
        int rc = dam_llm_trace_load(path, s, &q, &n, d);
        *owned = q;
        opt->requests = q;
        opt->nrequests = n;
        return rc;
    }
    double *a = NULL;
    int rc = dam_arrivals_load(path, &a, &n, d);
    *owned = a;
    opt->arrivals = a;
    opt->narrivals = n;
    return rc;
}

int dam_cli_serving_options(dam_cli *c, const dam_scenario *s,
                            dam_sim_options *opt, void **owned)
{
    memset(opt, 0, sizeof *opt);
    *owned = NULL;
    if (c->have_seed) {
        opt->seed = (unsigned long)c->seed;
        opt->have_seed = 1;
    }
    opt->replications = c->replications;
    opt->steps = c->steps;
    dam_cli_sim_limits(c, opt);
    if (s->serving.arrival != DAM_ARRIVAL_TRACE)
        return 0;
    char path[512];
    dam_arrivals_path(path, sizeof path, s);
    if (dam_cli_trace_work(c, path, 1) != 0)
        return 2;
    dam_diag d;
    dam_diag_init(&d);
    int rc = load_trace(s, opt, owned, &d);
    int code = dam_cli_report_diag(&d, c->quiet);
    dam_diag_free(&d);
    if (rc != DAM_OK || code)
        return 2;
    return 0;
}

int dam_cli_serving_sim(dam_cli *c, const dam_scenario *s, dam_result *r)
{
    dam_sim_options opt;
    void *owned = NULL;
    int rc = dam_cli_serving_options(c, s, &opt, &owned);
    if (rc == 0) {
        dam_error e;
        dam_cli_progress pr;
        dam_progress hook;
        dam_cli_progress_start(&pr, "requests", 0.0, c->quiet);
        dam_cli_progress_hook(&pr, &hook);
        opt.progress = &hook;
        opt.llm_offline = 1; /* `run`: LLM serving's offline run beside */
        int st = dam_sim_serving(s, &opt, r, NULL, &e);
        dam_cli_progress_end(&pr);
        if (st != DAM_OK) {
            dam_cli_error(&e);
            rc = st == DAM_EINPUT ? 2 : 1;
        }
    }
    dam_free(owned);
    return rc;
}

int dam_cli_serving_solve(const dam_scenario *s, void *ctx, dam_result *r,
                          dam_error *err)
{
    dam_cli *c = ctx;
    dam_sim_options opt;
    memset(&opt, 0, sizeof opt);
    if (c->have_seed) {
        opt.seed = (unsigned long)c->seed;
        opt.have_seed = 1;
    }
    opt.replications = c->replications;
    opt.steps = c->steps;
    dam_cli_sim_limits(c, &opt);
    void *owned = NULL;
    if (s->serving.arrival == DAM_ARRIVAL_TRACE) {
        char path[512];
        dam_arrivals_path(path, sizeof path, s);
        if (dam_cli_trace_work_error(c, path, 1, err) != DAM_OK)
            return DAM_EINPUT;
        dam_diag d;
        dam_diag_init(&d);
        int rc = load_trace(s, &opt, &owned, &d);
        if (rc != DAM_OK && d.n > 0)
            *err = d.items[0];
        dam_diag_free(&d);
        if (rc != DAM_OK)
            return rc;
    }
    dam_analytic_solve(s, r);
    int rc = dam_sim_serving(s, &opt, r, NULL, err);
    dam_free(owned);
    return rc;
}
