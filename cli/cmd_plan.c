/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_plan.c: `damsim plan`, capacity and budget planning. One entry,
 * dam_cmd_plan, picks the question from the scenario and the options:
 * a serving scenario plans replicas for an SLO at a rate (solver/
 * capacity.h); a training scenario plans against --budget (Chinchilla:
 * cli/plan_budget.c prints that one). Only cli/ prints.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "solver/capacity.h"

static const char plan_help[] =
    "usage: damsim plan SCENARIO.cfg [--slo-p99-ms X] [--rate R] [--json]\n"
    "                  [--seed N] [--replications N] [--steps N]\n"
    "       damsim plan SCENARIO.cfg --budget B [--deadline T]   (training)\n"
    "\n"
    "Serving scenarios: for every GPU in the catalog that runs the\n"
    "scenario's precision and holds its weights, the fewest replicas whose\n"
    "simulated p99 latency at R requests/s stays within X ms with headroom\n"
    "(p99 plus the half-width of its 95 % confidence interval over\n"
    "replications, and replicas at most 90 % busy), and what they cost\n"
    "per hour and per 1,000 requests,\n"
    "cheapest first; then, for the scenario's own deployment, the highest\n"
    "rate that still meets the SLO (bisection on the rate, by simulation).\n"
    "X and R default to the scenario's serving.slo_p99_ms and rate_per_s.\n"
    "Preprocessing workers, batching and efficiencies stay as configured;\n"
    "a trace scenario is planned with Poisson arrivals at R.\n"
    "--steps sets the simulated requests and --replications the\n"
    "replications of every simulation (fewer: faster, wider intervals).\n"
    "\n"
    "Training scenarios (language models): --budget B in training FLOPs\n"
    "(1e23), GPU-hours on the scenario's GPU (5e4gpu-h) or dollars ($2e6).\n"
    "The compute-optimal parameters and tokens of the Chinchilla fit for\n"
    "that budget, the loss it predicts, and for every GPU in the catalog the\n"
    "number needed to finish by --deadline T (30d, 720h, 90min; default\n"
    "30 days) and what that costs, each solved with the model resized.\n"
    "\n"
    "exit codes: 0 plan made, 1 runtime failure, 2 bad usage or input.\n";

/* Parse a positive finite number; -1 when not one. */
static double positive(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return (*s && !*end && isfinite(v) && v > 0.0) ? v : -1.0;
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "damsim: %s", msg);
    if (arg)
        fprintf(stderr, " '%s'", arg);
    fprintf(stderr, "\n(see 'damsim plan --help')\n");
    return 2;
}

static void plan_text(dam_buf *b, const dam_scenario *s, const dam_capacity_result *p)
{
    const dam_serving *v = &s->serving;
    dam_buf_printf(b, "Capacity plan: %s\n", s->name);
    dam_buf_printf(b, "  SLO p99 <= %.4g ms at %.4g requests/s (%s arrivals); "
                      "max batch %d, timeout %.3g ms, %d preprocess "
                      "workers\n",
                   p->slo_s * 1e3, p->rate,
                   v->arrival == DAM_ARRIVAL_DETERMINISTIC ? "deterministic"
                                                           : "Poisson",
                   v->max_batch, v->batch_timeout_s * 1e3,
                   v->preprocess_workers);
    dam_buf_printf(b, "  headroom: simulated p99 + its 95 %% CI half-width "
                      "<= SLO, replicas <= %.0f %% busy\n\n",
                   DAM_CAPACITY_MAX_UTIL * 100.0);
    dam_buf_printf(b, "  %-18s %8s %10s %6s %17s %10s %10s\n", "gpu",
                   "replicas", "p99", "util", "one fewer: p99", "$/hour",
                   "$/1k req");
    int first = 1;
    for (int i = 0; i < p->noptions; i++) {
        const dam_capacity_option *o = &p->options[i];
        if (!o->feasible)
            continue;
        char fewer[40] = "-", ph[24] = "n/a", pk[24] = "n/a";
        if (o->fewer_p99_known)
            snprintf(fewer, sizeof fewer, "%.4g ms, %.0f%%",
                     o->fewer_p99 * 1e3, o->fewer_util * 100.0);
        if (o->price_hour > 0.0) {
            snprintf(ph, sizeof ph, "%.2f", o->cost_hour);
            snprintf(pk, sizeof pk, "%.3g", o->cost_per_1k);
        }
        dam_buf_printf(b, "  %-18s %8d %7.4g ms %5.0f%% %17s %10s %10s%s\n",
                       o->gpu, o->replicas, o->p99 * 1e3,
                       o->utilization * 100.0, fewer, ph, pk,
                       first && o->price_hour > 0.0 ? "  <- cheapest" : "");
        if (o->price_hour > 0.0)
            first = 0;
    }
    int ninf = 0;
    for (int i = 0; i < p->noptions; i++)
        if (p->options[i].supported && !p->options[i].feasible) {
            if (!ninf++)
                dam_buf_printf(b, "\n  Cannot meet the SLO:\n");
            dam_buf_printf(b, "    %-18s %s\n", p->options[i].gpu,
                           p->options[i].why);
        }
    int nun = 0;
    for (int i = 0; i < p->noptions; i++)
        if (!p->options[i].supported) {
            dam_buf_printf(b, "%s%s", nun++ ? ", " : "\n  Skipped (no "
                                                     "support for the "
                                                     "precision): ",
                           p->options[i].gpu);
        }
    if (nun)
        dam_buf_printf(b, "\n");
    dam_buf_printf(b, "\nThis deployment (%d x %s): ", v->replicas,
                   s->machine.gpu.id);
    if (p->max_rate_found)
        dam_buf_printf(b, "meets the SLO up to about %.4g requests/s (p99 "
                          "%.4g ms there; misses at %.4g/s)\n",
                       p->max_rate, p->max_rate_p99 * 1e3,
                       p->max_rate_upper);
    else
        dam_buf_printf(b, "no arrival rate meets the SLO (stable up to "
                          "%.4g requests/s); the latency floor is not the "
                          "load\n",
                       p->max_rate_upper);
    dam_buf_printf(b, "(%d simulations)\n", p->evaluations);
}

static json_t *plan_json(const dam_scenario *s, const dam_capacity_result *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "scenario", json_string(s->name));
    json_object_set_new(o, "file", json_string(s->file));
    json_object_set_new(o, "slo_p99_s", dam_json_num(p->slo_s));
    json_object_set_new(o, "rate_per_s", dam_json_num(p->rate));
    json_object_set_new(o, "headroom",
                        json_string("p99 + ci95 half-width <= slo and "
                                    "replica utilization <= 0.9"));
    json_t *a = json_array();
    for (int i = 0; i < p->noptions; i++) {
        const dam_capacity_option *x = &p->options[i];
        json_t *e = json_object();
        json_object_set_new(e, "gpu", json_string(x->gpu));
        json_object_set_new(e, "supported", json_boolean(x->supported));
        json_object_set_new(e, "feasible", json_boolean(x->feasible));
        if (x->feasible) {
            json_object_set_new(e, "replicas", json_integer(x->replicas));
            json_object_set_new(e, "p99_s", dam_json_num(x->p99));
            json_object_set_new(e, "p99_ci95_s", dam_json_num(x->p99_ci95));
            json_object_set_new(e, "utilization",
                                dam_json_num(x->utilization));
            json_object_set_new(e, "throughput_per_s",
                                dam_json_num(x->throughput));
            json_object_set_new(e, "price_usd_hour",
                                x->price_hour > 0.0
                                    ? dam_json_num(x->price_hour)
                                    : json_null());
            json_object_set_new(e, "cost_usd_hour",
                                x->price_hour > 0.0
                                    ? dam_json_num(x->cost_hour)
                                    : json_null());
            json_object_set_new(e, "cost_per_1k_usd",
                                x->price_hour > 0.0
                                    ? dam_json_num(x->cost_per_1k)
                                    : json_null());
            json_object_set_new(e, "one_fewer_p99_s",
                                x->fewer_p99_known
                                    ? dam_json_num(x->fewer_p99)
                                    : json_null());
            json_object_set_new(e, "one_fewer_utilization",
                                x->fewer_p99_known
                                    ? dam_json_num(x->fewer_util)
                                    : json_null());
        } else {
            json_object_set_new(e, "why", json_string(x->why));
        }
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "options", a);
    json_t *m = json_object();
    json_object_set_new(m, "gpu", json_string(s->machine.gpu.id));
    json_object_set_new(m, "replicas", json_integer(s->serving.replicas));
    json_object_set_new(m, "found", json_boolean(p->max_rate_found));
    json_object_set_new(m, "max_rate_per_s",
                        p->max_rate_found ? dam_json_num(p->max_rate)
                                          : json_null());
    json_object_set_new(m, "p99_s", p->max_rate_found
                                        ? dam_json_num(p->max_rate_p99)
                                        : json_null());
    json_object_set_new(m, "misses_at_per_s",
                        dam_json_num(p->max_rate_upper));
    json_object_set_new(o, "this_deployment", m);
    json_object_set_new(o, "simulations", json_integer(p->evaluations));
    return o;
}

/* Serving: replicas per GPU for the SLO at the rate, and the top rate. */
static int plan_serving(dam_cli *c, const dam_scenario *s)
{
    double slo = s->serving.slo_p99_s, rate = s->serving.rate;
    if (c->slo) {
        double x = positive(c->slo);
        if (x < 0.0)
            return usage_error("--slo-p99-ms needs a positive number of "
                               "milliseconds, got",
                               c->slo);
        slo = x * 1e-3;
    }
    if (c->rate) {
        double x = positive(c->rate);
        if (x < 0.0)
            return usage_error("--rate needs a positive number of requests "
                               "per second, got",
                               c->rate);
        rate = x;
    }
    if (!(rate > 0.0))
        return usage_error("a trace scenario needs --rate", NULL);
    dam_sim_options opt;
    double *arr = NULL;
    int rc = dam_cli_serving_options(c, s, &opt, &arr);
    dam_free(arr); /* planning simulates rates, not the trace */
    opt.arrivals = NULL;
    opt.narrivals = 0;
    if (rc != 0)
        return rc;
    dam_capacity_result *p = dam_malloc(sizeof *p);
    dam_error e;
    int st = dam_capacity_plan(s, &c->cat, slo, rate, &opt, p, &e);
    if (st != DAM_OK) {
        dam_cli_error(&e);
        dam_free(p);
        return st == DAM_EINPUT ? 2 : 1;
    }
    dam_buf b = {0};
    if (c->json)
        dam_json_dump(&b, plan_json(s, p));
    else
        plan_text(&b, s, p);
    rc = dam_cli_emit(c, &b);
    dam_buf_free(&b);
    dam_free(p);
    return rc;
}

/* Training: the budget plan (Chinchilla; cli/plan_budget.c). */
static int plan_training(dam_cli *c, const dam_scenario *s)
{
    if (!c->budget) {
        fprintf(stderr,
                "damsim: %s: plan needs a serving scenario (for "
                "--slo-p99-ms/--rate), or --budget for this %s scenario\n"
                "(see 'damsim plan --help')\n",
                s->file, dam_mode_name(s->mode));
        return 2;
    }
    return dam_cli_plan_budget(c, s);
}

int dam_cmd_plan(dam_cli *c)
{
    if (c->help) {
        fputs(plan_help, stdout);
        return 0;
    }
    if (c->nargs != 1)
        return usage_error("plan needs one scenario file", NULL);
    dam_scenario *s = dam_malloc(sizeof *s);
    int rc = dam_cli_load_scenario(c, c->args[0], s);
    if (rc == 0) {
        if (c->have_seed)
            s->seed = (unsigned long)c->seed;
        rc = s->mode == DAM_MODE_SERVING ? plan_serving(c, s)
                                         : plan_training(c, s);
    }
    dam_free(s);
    return rc;
}
