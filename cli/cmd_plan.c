/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_plan.c: `damsim plan`, capacity and budget planning. One entry,
 * dam_cmd_plan, picks the question from the scenario and the options:
 * a serving scenario plans replicas for an SLO at a rate (solver/
 * capacity.h); a training scenario plans against --budget (Chinchilla:
 * cli/plan_budget.c parses that one). The tables and JSON are laid out by
 * render/page/plan_report.c. Only cli/ prints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/alloc.h"
#include "model/csvline.h"
#include "model/loader.h"
#include "render/out/csv.h"
#include "render/chart/chartset.h"
#include "render/page/llm.h"
#include "render/page/plan_report.h"
#include "solver/capacity.h"

static const char plan_help[] =
    "usage: damsim plan SCENARIO.cfg [--slo-p99-ms X] [--rate R] [--json]\n"
    "       damsim plan LLM.cfg [--slo-ttft-ms X] [--slo-tpot-ms Y] [--rate R]\n"
    "                  [--seed N] [--replications N] [--steps N]\n"
    "       damsim plan SCENARIO.cfg --budget B [--deadline T]   (training)\n"
    "       damsim plan SCENARIO.cfg --search [--gpu-kinds A,B,...|all]\n"
    "                  [--count N | --deadline T | --budget $X|Hgpu-h]\n"
    "                  [--lever KEY=VALUE ...] [--json | --csv]\n"
    "                                                      (parallel layouts)\n"
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
    "LLM serving scenarios (an llm group): for every catalog GPU and\n"
    "tensor-parallel degree (1, 2, 4, 8 within a node) that holds the\n"
    "weights and the longest request, the fewest replicas whose simulated\n"
    "TTFT and TPOT at the scenario's SLO percentile stay within X and Y ms\n"
    "at 10 % above R requests/s, with their 95 % intervals; the cheapest\n"
    "is re-simulated with other random numbers before it is named; then\n"
    "the highest rate the scenario's own deployment sustains. X, Y and R\n"
    "default to llm.slo_ttft_ms, llm.slo_tpot_ms and rate_per_s.\n"
    "\n"
    "Training scenarios (language models): --budget B in training FLOPs\n"
    "(1e23), GPU-hours on the scenario's GPU (5e4gpu-h) or dollars ($2e6).\n"
    "The compute-optimal parameters and tokens of the Chinchilla fit for\n"
    "that budget, the loss it predicts, and for every GPU in the catalog the\n"
    "number needed to finish by --deadline T (30d, 720h, 90min; default\n"
    "30 days) and what that costs, each solved with the model resized.\n"
    "\n"
    "Layout search (--search; a training scenario with a transformer model):\n"
    "every tensor x context x pipeline x data x expert parallel split of the\n"
    "GPUs, with micro-batch, interleaving, recomputation and ZeRO stage,\n"
    "costed analytically; those whose worst stage does not fit in the GPU's\n"
    "memory are never ranked. Per GPU kind (--gpu-kinds, default the\n"
    "scenario's; 'all' for every catalog GPU with the precision) the fastest\n"
    "and the cheapest that fit, the scenario's own layout, and the term the\n"
    "winner saves. At --count GPUs (default the scenario's; with the\n"
    "scenario's deadline_days, whether the fastest makes it); with --deadline\n"
    "the fewest GPUs that finish the run in time; with --budget ($ or gpu-h)\n"
    "only runs that cost at most it. --json and --csv list every candidate,\n"
    "fitting or not, with the memory it needs. --lever KEY=VALUE searches\n"
    "the scenario with a lever applied (as whatif takes it; repeat for\n"
    "several, in order), e.g. --lever nvlink_domain=72.\n"
    "\n"
    "-o FILE.png|.svg|.pdf draws the plan's chart (the text still goes to\n"
    "the terminal), -o DIR writes it as DIR/plan.png (--format), -o\n"
    "FILE.html a page with both: the layout search as time against cost\n"
    "per GPU kind (fitting or not, the fastest starred), the serving plans\n"
    "as GPUs against rate with the deployment's limit, the budget plan as\n"
    "the compute-optimal frontier with the budget and the chosen model.\n"
    "\n"
    "exit codes: 0 plan made, 1 runtime failure, 2 bad usage or input.\n";

/* Parse the value of an option that stands for scenario key key: a
 * decimal number within the key's documented range (model/loader.h), so
 * the option and the file accept the same values; -1 when not one, after
 * saying the range. */
static double in_range(const char *opt, const char *s, const char *key,
                       const char *unit)
{
    char *end;
    double v = dam_decimal(s, &end), lo = 1e-300, hi = 1e300;
    dam_scenario_key_range(key, &lo, &hi);
    if (*s && !*end && v >= lo && v <= hi)
        return v;
    fprintf(stderr, "damsim: %s needs %s from %g to %g (the range of %s), "
                    "got '%.40s'\n(see 'damsim plan --help')\n",
            opt, unit, lo, hi, key, s);
    return -1.0;
}

static int usage_error(const char *msg, const char *arg)
{
    return dam_cli_usage_error("plan", msg, arg);
}

/* Simulation options for a plan, with progress shown per GPU kind through
 * pr and hook (the caller's; they must live while the plan runs). A plan
 * simulates rates, not the scenario's trace: the trace is read (so that
 * its errors are reported), then dropped. Returns 0, or the exit code 2
 * (bad trace, reported; no progress started). */
static int plan_options(dam_cli *c, const dam_scenario *s,
                        dam_sim_options *opt, dam_cli_progress *pr,
                        dam_progress *hook)
{
    void *arr = NULL;
    int rc = dam_cli_serving_options(c, s, opt, &arr);
    dam_free(arr);
    opt->arrivals = NULL;
    opt->narrivals = 0;
    opt->requests = NULL;
    opt->nrequests = 0;
    if (rc != 0)
        return rc;
    dam_cli_progress_start(pr, "GPU kinds", 0.0, c->quiet);
    dam_cli_progress_hook(pr, hook);
    opt->progress = hook;
    return 0;
}

/* End a plan's progress line and report e when the plan's status st is
 * not DAM_OK. Returns 0, or the exit code (2 bad input, 1 otherwise). */
static int plan_done(dam_cli_progress *pr, int st, const dam_error *e)
{
    dam_cli_progress_end(pr);
    if (st == DAM_OK)
        return 0;
    dam_cli_error(e);
    return st == DAM_EINPUT ? 2 : 1;
}

/* Write b, the plan's report, as the output (stdout or -o), then the
 * plan's chart when -o asks for one (chart: its builder, for plan p of
 * s), then free b and p. Returns 0, 1 or 2 (as dam_cli_emit). */
typedef int (*plan_chart_fn)(dam_chartset *, const dam_scenario *,
                             const void *, dam_error *);
static int plan_emit(dam_cli *c, dam_buf *b, const dam_scenario *s, void *p,
                     plan_chart_fn chart)
{
    int rc = dam_cli_emit(c, b);
    if (rc == 0 && chart && dam_cli_plan_wants_chart(c)) {
        dam_chartset *cs = dam_malloc(sizeof *cs);
        dam_error e;
        memset(&e, 0, sizeof e);
        rc = dam_cli_plan_chart(c, cs, chart(cs, s, p, &e), &e);
    }
    dam_buf_free(b);
    dam_free(p);
    return rc;
}

static int capacity_chart(dam_chartset *cs, const dam_scenario *s,
                          const void *p, dam_error *e)
{
    return dam_chartset_capacity(cs, s, p, e);
}

static int llm_chart(dam_chartset *cs, const dam_scenario *s, const void *p,
                     dam_error *e)
{
    return dam_chartset_llm_plan(cs, s, p, e);
}

/* Serving: replicas per GPU for the SLO at the rate, and the top rate. */
static int plan_serving(dam_cli *c, const dam_scenario *s)
{
    double slo = s->serving.slo_p99_s, rate = s->serving.rate;
    if (c->slo) {
        double x = in_range("--slo-p99-ms", c->slo, "serving.slo_p99_ms",
                            "milliseconds");
        if (x < 0.0)
            return 2;
        slo = x * 1e-3;
    }
    if (c->rate) {
        double x = in_range("--rate", c->rate, "serving.rate_per_s",
                            "requests per second");
        if (x < 0.0)
            return 2;
        rate = x;
    }
    if (!(rate > 0.0))
        return usage_error("a trace scenario needs --rate", NULL);
    dam_sim_options opt;
    dam_cli_progress pr;
    dam_progress hook;
    int rc = plan_options(c, s, &opt, &pr, &hook);
    if (rc != 0)
        return rc;
    dam_capacity_result *p = dam_malloc(sizeof *p);
    dam_error e;
    int st = dam_capacity_plan(s, &c->cat, slo, rate, &opt, p, &e);
    if ((rc = plan_done(&pr, st, &e)) != 0) {
        dam_free(p);
        return rc;
    }
    dam_buf b = {0};
    if (c->json)
        dam_json_dump(&b, dam_plan_report_capacity_json(s, p));
    else if (c->csv)
        dam_csv_plan_capacity(&b, p);
    else
        dam_plan_report_capacity_text(&b, s, p);
    return plan_emit(c, &b, s, p, capacity_chart);
}

/* LLM serving: GPU x count x degree for the two objectives at the rate,
 * and the highest rate of the scenario's deployment. */
static int plan_llm(dam_cli *c, const dam_scenario *s)
{
    const dam_llm *q = &s->serving.llm;
    double ttft = q->slo_ttft_s, tpot = q->slo_tpot_s;
    double rate = s->serving.rate;
    if (c->slo)
        return usage_error("an LLM scenario plans for --slo-ttft-ms and "
                           "--slo-tpot-ms, not", "--slo-p99-ms");
    const char *args[3] = {c->slo_ttft, c->slo_tpot, c->rate};
    double *vals[3] = {&ttft, &tpot, &rate};
    static const char *const opts[3][3] = {
        {"--slo-ttft-ms", "llm.slo_ttft_ms", "milliseconds"},
        {"--slo-tpot-ms", "llm.slo_tpot_ms", "milliseconds"},
        {"--rate", "serving.rate_per_s", "requests per second"}};
    for (int i = 0; i < 3; i++) {
        if (!args[i])
            continue;
        double x = in_range(opts[i][0], args[i], opts[i][1], opts[i][2]);
        if (x < 0.0)
            return 2;
        *vals[i] = i < 2 ? x * 1e-3 : x;
    }
    if (!(rate > 0.0))
        return usage_error("a trace scenario needs --rate", NULL);
    dam_sim_options opt;
    dam_cli_progress pr;
    dam_progress hook;
    int rc = plan_options(c, s, &opt, &pr, &hook);
    if (rc != 0)
        return rc;
    dam_llm_plan *p = dam_malloc(sizeof *p);
    dam_error e;
    int st = dam_llm_plan_run(s, &c->cat, ttft, tpot, rate, &opt, p, &e);
    if ((rc = plan_done(&pr, st, &e)) != 0) {
        dam_free(p);
        return rc;
    }
    dam_buf b = {0};
    if (c->json)
        dam_json_dump(&b, dam_llm_plan_json(s, p));
    else
        dam_llm_plan_text(&b, s, p);
    return plan_emit(c, &b, s, p, llm_chart);
}

/* Training: the budget plan (Chinchilla; cli/plan_budget.c). */
static int plan_training(dam_cli *c, const dam_scenario *s)
{
    if (c->search)
        return dam_cli_plan_search(c, s);
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
    if (c->help)
        return dam_cli_help(plan_help);
    if (c->nargs != 1)
        return usage_error("plan needs one scenario file", NULL);
    dam_scenario *s = dam_malloc(sizeof *s);
    int rc = dam_cli_load_scenario(c, c->args[0], s);
    if (rc == 0 && c->nlever_args > 0 && !c->search) {
        fprintf(stderr, "damsim: plan takes --lever with --search only\n");
        rc = 2;
    }
    if (rc == 0)
        rc = dam_cli_apply_lever_args(c, s);
    if (rc == 0) {
        if (c->have_seed)
            s->seed = (unsigned long)c->seed;
        if (s->mode == DAM_MODE_SERVING && s->serving.llm.enabled)
            rc = plan_llm(c, s);
        else if (c->slo_ttft || c->slo_tpot)
            rc = usage_error("--slo-ttft-ms and --slo-tpot-ms plan LLM "
                             "serving scenarios (an llm group)", NULL);
        else
            rc = s->mode == DAM_MODE_SERVING ? plan_serving(c, s)
                                             : plan_training(c, s);
    }
    dam_free(s);
    return rc;
}
