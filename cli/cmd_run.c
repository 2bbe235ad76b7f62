/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_run.c: `damsim run` and the flagship default. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chartset.h"
#include "solver/llm_plan.h"
#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/loader.h"
#include "model/alloc.h"
#include "render/out/csv.h"
#include "render/out/trace_json.h"
#include "solver/capacity.h"
#include "solver/sim.h"

static const char run_help[] =
    "usage: damsim run SCENARIO.cfg [--json] [-o FILE] [--seed N]\n"
    "                  [--replications N] [--steps N] [--analytic]\n"
    "                  [--trace FILE.json] [--lever KEY=VALUE ...]\n"
    "\n"
    "Simulates the scenario (discrete-event: every loader worker, link, GPU\n"
    "and collective) and shows the analytic iron-law bounds beside it: the\n"
    "step time and where it goes (data wait, exposed transfer, compute,\n"
    "exposed communication, overhead), the iron law per stage with its\n"
    "sequential sum and overlapped bound, the roofline of each compute\n"
    "phase, memory footprint, cost, the D.A.M diagnosis (binding axis,\n"
    "levers that work and that would be wasted) and the scorecard.\n"
    "\n"
    "  --analytic          the analytic solver alone (no simulation)\n"
    "  --seed N            random seed (default: the scenario's)\n"
    "  --replications N    independent replications for the 95 % interval\n"
    "  --steps N           measured steps per replication\n"
    "  --trace FILE.json   the first steps' timeline as a Chrome trace\n"
    "                      (open in Perfetto or chrome://tracing)\n"
    "  --trace-steps A:B   the steps it holds: A to B (from 0), or N for\n"
    "                      the first N (default 5)\n"
    "  --trace-ranks LIST  the ranks (GPUs) whose lanes it holds: all, or\n"
    "                      0,3,8:15 (default: the GPUs of node 0); its\n"
    "                      metadata (otherData) names the subset\n"
    "  --lever KEY=VALUE   run the scenario with a lever applied (as\n"
    "                      whatif takes it; repeat for several, in order)\n"
    "  --json              every number, machine-readable\n"
    "\n"
    "Serving scenarios are solved analytically here.\n"
    "\n"
    "damsim run --trace PROFILE.json[.gz] (no scenario, the file exists)\n"
    "replays a torch.profiler trace instead: measured and replayed step,\n"
    "the D.A.M breakdown of the trace and what binds.\n";

/* Steps of the timeline written by --trace. */
#define TRACE_STEPS 5

/* Print "OPTION ARG: error: why" (the option is the location); 2. */
static int option_error(const char *option, const char *arg,
                        const char *why)
{
    dam_error e;
    dam_error_set(&e, "", 0, "%s", why);
    snprintf(e.file, sizeof e.file, "%s %.200s", option, arg ? arg : "");
    dam_cli_error(&e);
    return 2;
}

/* --trace-steps (A:B or N) and --trace-ranks (all, or a list of ranks
 * and A:B ranges) into o (ranks: room for max); 0, or 2 after a message. */
static int trace_subset(const dam_cli *c, dam_sim_options *o, int *ranks,
                        int max)
{
    o->trace_first = 0;
    o->trace_steps = TRACE_STEPS;
    if (c->trace_steps) {
        long a, z;
        char tail;
        if (sscanf(c->trace_steps, "%ld:%ld%c", &a, &z, &tail) == 2 &&
            a >= 0 && z >= a && z - a < 100000) {
            o->trace_first = (int)a;
            o->trace_steps = (int)(z - a + 1);
        } else if (sscanf(c->trace_steps, "%ld%c", &a, &tail) == 1 &&
                   a >= 1 && a <= 100000) {
            o->trace_steps = (int)a;
        } else {
            return option_error("--trace-steps", c->trace_steps,
                                "expected N (the first N steps) or A:B "
                                "(steps A to B, from 0)");
        }
    }
    if (!c->trace_ranks)
        return 0;
    if (strcmp(c->trace_ranks, "all") == 0) {
        o->trace_ranks = NULL;
        o->ntrace_ranks = 0;
        /* every rank: listed in full below the cap */
        for (int i = 0; i < max; i++)
            ranks[i] = i;
        o->trace_ranks = ranks;
        o->ntrace_ranks = -1; /* fixed below once the GPUs are known */
        return 0;
    }
    int n = 0;
    const char *p = c->trace_ranks;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), z = a;
        if (end == p || a < 0)
            break;
        if (*end == ':') {
            const char *q = end + 1;
            z = strtol(q, &end, 10);
            if (end == q || z < a)
                break;
        }
        for (long r = a; r <= z && n < max; r++)
            if (n == 0 || r > ranks[n - 1])
                ranks[n++] = (int)r;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            break;
    }
    if (*p || n == 0) {
        return option_error("--trace-ranks", c->trace_ranks,
                            "expected all, or increasing ranks and ranges "
                            "(0,3,8:15)");
    }
    o->trace_ranks = ranks;
    o->ntrace_ranks = n;
    return 0;
}

/* 1 when -o asks for charts. */
static int want_charts(const dam_cli *c)
{
    return c->out_kind == DAM_OUT_CHART || c->out_kind == DAM_OUT_DIR ||
           c->out_kind == DAM_OUT_HTML;
}

/* Simulate s into r (which holds its analytic solution) unless --analytic
 * or serving; write --trace; keep the trace in *keep for the timeline
 * chart when charts are asked for (caller frees). Returns an exit code. */
static int simulate(dam_cli *c, const dam_scenario *s, dam_result *r,
                    dam_trace *keep)
{
    if (c->analytic || s->mode == DAM_MODE_SERVING) {
        if (c->trace_file)
            fprintf(stderr, "damsim: warning: --trace needs the training or "
                            "inference simulation; no trace written\n");
        return 0;
    }
    dam_sim_options o = dam_cli_sim_options(c);
    int record = c->trace_file || want_charts(c);
    int ranks[4096];
    if (trace_subset(c, &o, ranks, 4096) != 0)
        return 2;
    if (!record)
        o.trace_steps = 0;
    /* a chart shows the steady state: steps after the warm-up, two
     * rounds of the loader workers (a data-bound pipeline repeats with
     * that period); a --trace file keeps its own steps */
    if (record && !c->trace_steps && !c->trace_file) {
        int n = 2 * s->pipeline.loader_workers;
        o.trace_first = s->pipeline.warmup_steps;
        o.trace_steps = n < TRACE_STEPS ? TRACE_STEPS : n > 32 ? 32 : n;
    }
    dam_trace tr;
    dam_trace_init(&tr);
    if (o.ntrace_ranks < 0) { /* --trace-ranks all */
        int g = dam_scenario_gpus(s);
        o.ntrace_ranks = g < 4096 ? g : 4096;
    }
    dam_error e;
    int which;
    if (dam_sim_trace_check(s, &o, &which, &e) != DAM_OK) {
        /* located at the option that asked for it */
        int rk = which == DAM_SIM_TRACE_RANKS;
        return option_error(rk ? "--trace-ranks" : "--trace-steps",
                            rk ? c->trace_ranks : c->trace_steps, e.msg);
    }
    dam_cli_progress pr;
    dam_progress hook;
    dam_cli_progress_start(&pr, "steps", 0.0, c->quiet);
    dam_cli_progress_hook(&pr, &hook);
    o.progress = &hook;
    int rc = dam_sim_training(s, &o, r, record ? &tr : NULL, &e);
    dam_cli_progress_end(&pr);
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        dam_trace_free(&tr);
        return rc == DAM_EINPUT ? 2 : 1;
    }
    if (c->trace_file) {
        dam_buf b = {0};
        dam_trace_json(&b, &tr);
        int w = dam_write_file_atomic(c->trace_file, dam_buf_str(&b), b.len,
                                      &e);
        if (w != DAM_OK) {
            dam_cli_error(&e);
            rc = w == DAM_EINPUT ? 2 : 1;
        }
        dam_buf_free(&b);
    }
    if (keep && rc == 0) {
        *keep = tr;
        return rc;
    }
    dam_trace_free(&tr);
    return rc;
}

/* A simulated service's figures under load, each with its interval
 * (solver/uncertainty.h, dam_load_interval_of). */
/* Without one (a draw's simulation failed) the page shows none. */
static void load_interval(dam_cli *c, const dam_scenario *s,
                          const dam_result *r, dam_uncertainty *u)
{
    dam_draws *d = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, s->seed);
    int n = dam_draws_count(d);
    double *t = dam_draws_times(d, s);
    if (dam_load_interval_of(d, s, s, r, t, n, dam_cli_serving_solve, c,
                             &u->load) != DAM_OK)
        u->load.ok = 0;
    dam_free(t);
    dam_draws_free(d);
}

static int run_one(dam_cli *c, const char *path)
{
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_result *r = dam_malloc(sizeof *r);
    dam_diagnosis *d = dam_malloc(sizeof *d);
    dam_trace trace;
    dam_trace_init(&trace);
    int rc = dam_cli_load_scenario(c, path, s);
    if (rc == 0)
        rc = dam_cli_apply_lever_args(c, s);
    if (rc == 0) {
        if (c->have_seed)
            s->seed = (unsigned long)c->seed;
        dam_analytic_solve(s, r);
        if (s->mode == DAM_MODE_SERVING && !c->analytic)
            rc = dam_cli_serving_sim(c, s, r);
        else
            rc = simulate(c, s, r, &trace);
    }
    dam_uncertainty *u = NULL;
    if (rc == 0) {
        dam_error e;
        int st = dam_result_check(r, s->file, &e);
        if (st == DAM_OK && dam_uncertainty_sources(s) > 0) {
            u = dam_malloc(sizeof *u);
            st = dam_uncertainty_run(s, DAM_UNCERTAINTY_SAMPLES, s->seed, u,
                                     &e);
            if (st == DAM_OK && r->has_sim) {
                /* the interval of the simulated figures shown */
                dam_figures shown = dam_figures_of(r);
                dam_interval_carry_run(u, &shown);
            }
            if (st == DAM_OK && r->has_sim && s->mode == DAM_MODE_SERVING &&
                r->memory.fits)
                load_interval(c, s, r, u);
        }
        if (st != DAM_OK) {
            dam_cli_error(&e);
            rc = st == DAM_EINPUT ? 2 : 1;
        }
    }
    if (rc == 0) {
        dam_diagnose(s, r, d);
        dam_buf b = {0};
        if (c->json) {
            json_t *o = json_object();
            json_object_set_new(o, "scenario", dam_json_scenario(s));
            json_object_set_new(o, "result", dam_json_result(s, r, d));
            if (u)
                json_object_set_new(o, "uncertainty",
                                    dam_json_uncertainty(s, u));
            dam_json_dump(&b, o);
        } else if (c->csv) {
            dam_csv_run(&b, s, r);
        } else {
            dam_text_run(&b, s, r, d, u);
            if (u)
                dam_text_uncertainty(&b, s, u);
        }
        rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
        if (rc == 0 && want_charts(c)) {
            dam_chartset *cs = dam_malloc(sizeof *cs);
            dam_chartset_run(cs, s, r, &trace);
            dam_capacity_curve *lc = dam_calloc(1, sizeof *lc);
            if (s->serving.llm.enabled && !c->analytic) {
                /* TTFT and TPOT against load, throughput by budget */
                dam_sim_options o = dam_cli_seed_options(c);
                dam_llm_curves *lw = dam_malloc(sizeof *lw);
                dam_llm_plan_curves(s, &o, lw);
                const double *t1[3] = {lw->ttft[0], lw->ttft[1],
                                       lw->ttft[2]};
                const double *t2[3] = {lw->tpot[0], lw->tpot[1],
                                       lw->tpot[2]};
                dam_chartset_llm_load(cs, lw->rate, t1, t2, lw->n,
                                      s->serving.llm.slo_ttft_s,
                                      s->serving.llm.slo_tpot_s,
                                      cs->titles[0]);
                dam_chartset_llm_budget(cs, lw->budget, lw->tokens,
                                        lw->btpot, lw->nb, cs->titles[0]);
                /* the chart set points into lw until it is written */
                rc = dam_cli_charts(c, cs);
                dam_free(lw);
                dam_chartset_free(cs);
                dam_free(cs);
                dam_free(lc);
                goto done;
            }
            if (s->mode == DAM_MODE_SERVING && !c->analytic) {
                /* latency at a quarter to twice the rate (the chart) */
                dam_sim_options o = dam_cli_seed_options(c);
                dam_capacity_load_curve(s, &o, lc);
            }
            if (lc->n > 0) {
                const double *cp[3] = {lc->p50, lc->p95, lc->p99};
                dam_chartset_serving_load(cs, lc->rate, cp, lc->n,
                                          s->serving.slo_p99_s,
                                          cs->titles[0]);
            }
            rc = dam_cli_charts(c, cs);
            dam_chartset_free(cs);
            dam_free(cs);
            dam_free(lc);
        }
    }
done:
    dam_free(u);
    dam_trace_free(&trace);
    dam_free(d);
    dam_free(r);
    dam_free(s);
    return rc;
}

int dam_cmd_run(dam_cli *c)
{
    if (c->help)
        return dam_cli_help(run_help);
    if (c->nargs != 1)
        return dam_cli_usage_error("run", "run needs one scenario file", NULL);
    if (strcmp(c->args[0], "-") != 0 && dam_points_probe(c->args[0], NULL))
        return dam_cli_points(c, c->args[0]);
    return run_one(c, c->args[0]);
}

int dam_cmd_flagship(dam_cli *c)
{
    if (c->nargs != 0) {
        fprintf(stderr, "damsim: unknown command '%s'\n(see 'damsim "
                        "--help')\n",
                c->args[0]);
        return 2;
    }
    return dam_cli_whatif(c, NULL);
}
