/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli.h: what the damsim subcommands share: the parsed command line, the
 * catalog, and the helpers that load, report and write. Only cli/ prints.
 */
#ifndef DAM_CLI_H
#define DAM_CLI_H

#include <stdio.h>

#include "model/catalog.h"
#include "model/error.h"
#include "model/scenario.h"
#include "render/out/buf.h"
#include "render/out/json.h"
#include "render/page/text.h"
#include "solver/analytic.h"
#include "solver/diagnose.h"
#include "solver/plan.h"
#include "solver/sim.h"

/* What -o names, by its extension. */
typedef enum {
    DAM_OUT_STDOUT = 0, /* no -o: the terminal */
    DAM_OUT_TXT,        /* .txt: the text output */
    DAM_OUT_JSON,       /* .json: the JSON output */
    DAM_OUT_CSV,        /* .csv: the CSV output */
    DAM_OUT_CHART,      /* .png, .svg, .pdf: one chart (report: the PDF) */
    DAM_OUT_HTML,       /* .html: one self-contained page */
    DAM_OUT_DIR,        /* a folder (existing, or a path without
                           extension): every chart */
    DAM_OUT_UNKNOWN     /* any other extension: refused (exit 2) */
} dam_output_kind;

/* The parsed command line and the loaded catalog. */
typedef struct dam_cli {
    int json, csv, quiet, help, version, analytic;
    const char *gpus_file, *models_file; /* catalog overrides */
    const char *out_file;                /* -o */
    const char *format;                  /* --format for chart folders */
    const char *trace_file;              /* --trace */
    long seed;
    int have_seed;
    int replications;                    /* 0 = scenario's */
    double max_events;                   /* --max-events (0 = default) */
    double max_memory_gb;                /* --max-memory, GB (0 = default) */
    double max_work;                     /* --max-work (0 = default) */
    int steps;                           /* 0 = scenario's */
    const char *lever_args[16];          /* --lever k=v */
    int nlever_args;
    const char *combine;                 /* --combine a,b */
    const char *budget, *deadline, *slo, *rate, *cost_measure;
    int search;                          /* plan --search */
    const char *gpu_kinds;               /* plan --search --gpu-kinds A,B */
    long count;                          /* plan --search --count N */
    const char *slo_ttft, *slo_tpot; /* plan, LLM serving: objectives, ms */
    const char *vary[8];                 /* sweep --vary KEY=... */
    int nvary;
    const char *explore[8];              /* report --explore KEY=... */
    int nexplore;
    const struct dam_html_explore *explorer; /* report: the explorer the
                                                review's HTML carries */
    unsigned long long samples;          /* sweep --samples (0 = grid) */
    const char *method;                  /* sweep --method */
    const char *intervals;               /* sweep --intervals on|off */
    int stats;                           /* sweep --stats */
    int simulate;                        /* sweep --simulate */
    int jobs;                            /* -j N threads (0 = the cores) */
    const char *pareto, *heatmap;        /* sweep chart files */
    const char *metric;                  /* sweep --metric of the heat map */
    const char *trace_steps;             /* --trace-steps A:B or N */
    const char *trace_ranks;             /* --trace-ranks list or all */
    const char *fit;            /* --fit: a scaling-law fit name, or NULL */
    const char *fit_args[16];            /* calibrate --fit-constant KEY */
    int nfit_args;
    const char *hold_out;                /* calibrate --hold-out GPU */
    int cross_validate;                  /* calibrate --cross-validate */
    dam_output_kind out_kind;            /* what -o names */
    dam_buf html_text;                   /* -o .html: the text output so
                                            far, for the page */
    int html_done;                       /* 1 once the page is written */
    char **args;                         /* positional arguments */
    int nargs;
    dam_catalog cat;
} dam_cli;

void dam_cli_usage(FILE *f);
/* SIGINT/SIGTERM/SIGHUP/SIGPIPE: remove temporary output files, say so,
 * exit 128 + the signal (signals.c). */
void dam_cli_signals_install(void);
/* What that handler does (async-signal-safe): remove the temporaries,
 * say so, _exit(128 + sig). */
void dam_cli_exit_on_signal(int sig);
/* Remove every temporary output file still open (out of memory, signals);
 * async-signal-safe. */
void dam_cli_remove_temporaries(void);
/* Set the work and memory limits of a simulation (--max-events,
 * --max-memory; defaults: 3e8 events, half this machine's memory). */
void dam_cli_sim_limits(const dam_cli *c, dam_sim_options *o);
/* The simulation options the command line asks for: --seed,
 * --replications, --steps and the limits above (cli.c); the seed and the
 * limits alone (replications and steps the scenario's), for curves. */
dam_sim_options dam_cli_sim_options(const dam_cli *c);
dam_sim_options dam_cli_seed_options(const dam_cli *c);
/* Work estimates (work.c): the --max-work limit in model evaluations;
 * 0 when units is within it, else an error naming what, the estimate and
 * how it was counted, and 2. */
double dam_cli_max_work(const dam_cli *c);
int dam_cli_work_check(const dam_cli *c, const char *what, double units,
                       const char *how);
/* The same for a sweep (prepared: its scenario is loaded, so interval
 * draws count), a measurements file before it is parsed, and a profiler
 * (requests 0) or request/arrival (1) trace before it is parsed. */
struct dam_sweep;
int dam_cli_sweep_work(const dam_cli *c, const struct dam_sweep *sw,
                       int prepared);
int dam_cli_calibrate_work(const dam_cli *c, const char *path);
int dam_cli_trace_work(const dam_cli *c, const char *path, int requests);
/* The trace's refusal into e (DAM_EINPUT), or DAM_OK; nothing printed. */
int dam_cli_trace_work_error(const dam_cli *c, const char *path,
                             int requests, dam_error *e);
/* Print one error as "file:line: error: message" on stderr. */
void dam_cli_error(const dam_error *e);
/* A command's usage error on stderr: "damsim: MSG" (then " 'ARG'" where
 * arg is not NULL) and where CMD's help is; returns the exit code 2. */
int dam_cli_usage_error(const char *cmd, const char *msg, const char *arg);
/* --help: text on stdout; returns the exit code 0. */
int dam_cli_help(const char *text);
/* Print diagnostics as file:line: messages; 2 if any error, else 0. */
int dam_cli_report_diag(const dam_diag *d, int quiet);
/* Built-in catalogs, then --gpus/--models over them; 0 or 2. */
int dam_cli_load_catalog(dam_cli *c);
/* Load path (NULL: the embedded flagship) into s, applying --seed etc.; 0 or 2. */
int dam_cli_load_scenario(dam_cli *c, const char *path, dam_scenario *s);
/* Apply the --lever KEY=VALUE options to s in the order given (run, plan
 * --search); 0, or 2 after printing the first error, located at its
 * --lever. */
int dam_cli_apply_lever_args(dam_cli *c, dam_scenario *s);
/* Same, writing the file's levers to levers (for whatif and report). */
int dam_cli_load_scenario_levers(dam_cli *c, const char *path,
                                  dam_scenario *s, dam_lever_list *levers);
/* Write b to -o when it names a .txt, .json or .csv file (atomically),
 * else to stdout (and keep it for an HTML page); 0, 1 or 2. */
int dam_cli_emit(dam_cli *c, const dam_buf *b);
/* Extension of path ("png"), or "" when none. */
const char *dam_cli_extension(const char *path);

/* Serving (serving.c): simulation options from the command line, with the
 * trace read when serving.arrival = "trace" (arrival times, or LLM requests
 * for an llm scenario; *owned is the caller's: dam_free it); 0 or 2 (bad
 * trace, reported). */
int dam_cli_serving_options(dam_cli *c, const dam_scenario *s,
                            dam_sim_options *opt, void **owned);
/* Simulate serving scenario s into r (r holds its analytic solution);
 * errors reported; 0, 1 or 2. */
int dam_cli_serving_sim(dam_cli *c, const dam_scenario *s, dam_result *r);
/* The same as a what-if solver callback (ctx is the dam_cli): analytic
 * then simulated, errors into err (nothing printed). */
int dam_cli_serving_solve(const dam_scenario *s, void *ctx, dam_result *r,
                          dam_error *err);

/* The solver the options ask for (analytic, or simulated by default once
 * the simulator is in), as a what-if solver callback (solve.c). */
#include "solver/whatif.h"
void dam_cli_solver(dam_cli *c, dam_whatif_solver *fn, void **ctx);
/* The what-if of path (NULL: the embedded flagship), printed. */
int dam_cli_whatif(dam_cli *c, const char *path);
/* A points scenario (mode "points"): return on compute over the user's
 * options, table and frontier chart. Exit code. */
int dam_cli_points(dam_cli *c, const char *path);
/* Load path, parse --lever/--combine/--cost and run the what-if into w;
 * the exit code (0, 1 or 2). */
int dam_cli_whatif_solve(dam_cli *c, const char *path, dam_whatif *w);

/* The budget review of w (render/review/review.c; cli.c) to path (.pdf or
 * .html), with the baseline's intervals; the exit code. */
int dam_cli_write_review(dam_cli *c, const dam_whatif *w, const char *path);

/* `plan --budget`: the compute-optimal model and the GPUs to train it. */
int dam_cli_plan_budget(dam_cli *c, const dam_scenario *s);
/* `plan --search`: parallel layouts that fit, ranked (cli/plan_search.c). */
int dam_cli_plan_search(dam_cli *c, const dam_scenario *s);
/* 1 when -o asks for a plan's chart (a chart file, a folder or a page). */
int dam_cli_plan_wants_chart(const dam_cli *c);
/* Write the plan chart built into cs (build: the chartset_plan.c call's
 * status, e its error) to -o, then free cs; the exit code (0, 1 or 2). */
struct dam_chartset;
int dam_cli_plan_chart(dam_cli *c, struct dam_chartset *cs, int build,
                       const dam_error *e);
/* Parse a budget "1e23", "5e4gpu-h", "$2e6", "2e6usd" (0 on success). */
int dam_cli_parse_budget(const char *arg, dam_budget_kind *k, double *v);
/* Parse a deadline "30d", "720h", "90min", "3600s", "2w" (the unit is
 * required) within scenario.deadline_days' range; 0 on success. */
int dam_cli_parse_deadline(const char *arg, double *seconds);

/* Flush standard output and check that everything written to it so far
 * arrived; 0, or 1 after "damsim: standard output: write error: ..."
 * (said once). */
int dam_cli_stdout_check(void);
/* Say "damsim: standard output: write error: " and strerror(e) (EIO when
 * 0), once per run; returns 1. */
int dam_cli_stdout_error(int e);

/* The kind of output path names (NULL: DAM_OUT_STDOUT). */
dam_output_kind dam_output_of(const char *path);

/* Write the charts of a set when -o names a chart, a folder or an HTML
 * page (with the text emitted so far); 0, 1 or 2. */
struct dam_chartset;
int dam_cli_charts(dam_cli *c, const struct dam_chartset *cs);

/* Subcommands: each returns the exit code. */
int dam_cmd_run(dam_cli *c);
int dam_cmd_whatif(dam_cli *c);
int dam_cmd_compare(dam_cli *c);
int dam_cmd_report(dam_cli *c);
int dam_cmd_plan(dam_cli *c);
int dam_cmd_calibrate(dam_cli *c);
int dam_cmd_flagship(dam_cli *c);
int dam_cmd_sweep(dam_cli *c);
/* cmd_trace.c: 1 when --trace names a profiler trace to read for cmd
 * (whatif, check; run without a scenario when the file exists). */
int dam_cli_trace_input(const dam_cli *c, const char *cmd);
/* run, whatif or check (cmd) on the profiler trace --trace names. */
int dam_cmd_trace(dam_cli *c, const char *cmd);

#endif
