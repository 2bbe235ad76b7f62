/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c: the damsim command. Parses the command line (getopt_long), picks
 * the command (cmd_*.c, which call down into cli.c's shared helpers to
 * load, solve and write), and owns the terminal and exit codes: 0
 * success, 1 runtime failure, 2 bad usage or bad input (with
 * "file:line: error: message").
 * This is the only layer that prints or exits.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <gsl/gsl_errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/alloc.h"
#include "model/csvline.h"
#include "model/lever.h"
#include "model/loader.h"
#include "model/schema.h"
#include "render/out/outfile.h"

static const char usage_text[] =
    "usage: damsim [COMMAND] [OPTIONS] [SCENARIO.cfg ...]\n"
    "\n"
    "A what-if simulator and capacity planner for ML systems: where a step's\n"
    "time goes (Data, Algorithm, Machine), what binds, and which levers pay.\n"
    "\n"
    "commands:\n"
    "  (none)                 the flagship what-if on the embedded default\n"
    "                         scenario (ResNet-50 on a DGX A100: would H100s "
    "help?)\n"
    "  run SCENARIO           breakdown, D.A.M diagnosis and scorecard\n"
    "  whatif SCENARIO        each lever alone and combined\n"
    "  compare A B ...        scenarios side by side\n"
    "  plan SCENARIO          capacity planning: replicas per GPU for a\n"
    "                         latency SLO at a rate (--slo-p99-ms, --rate;\n"
    "                         LLMs: --slo-ttft-ms, --slo-tpot-ms),\n"
    "                         or the model and GPUs for a --budget\n"
    "  report SCENARIO -o F   a budget review: F.pdf or F.html\n"
    "                         (--explore KEY=V1,V2,...: a sweep to explore\n"
    "                         inside the HTML)\n"
    "  sweep SCENARIO --vary KEY=V1,V2,...\n"
    "                         many points (a grid or a sample), one row\n"
    "                         each, on -j N threads or under mpirun\n"
    "  catalog [gpus|models|levers|keys]  what the catalogs hold\n"
    "  check SCENARIO         validate only\n"
    "  calibrate MEAS.csv     fit catalog constants to measured step times,\n"
    "                         throughputs and profiler traces (-o FILE.cfg\n"
    "                         writes them as a catalog overlay)\n"
    "\n"
    "common options:\n"
    "  --json                 machine-readable output\n"
    "  -o FILE|DIR            the format follows the extension: .txt, .json,\n"
    "                         .csv (the output), .png|.svg|.pdf (one chart),\n"
    "                         .html (one self-contained page; for whatif and\n"
    "                         report the budget review), or every chart into\n"
    "                         DIR (--format png|svg|pdf); any other extension\n"
    "                         is refused (exit 2)\n"
    "  --analytic             the analytic solver alone (no simulation)\n"
    "  --seed N               random seed of the simulation\n"
    "  --replications N       independent replications (95 % interval)\n"
    "  --steps N              measured steps per replication\n"
    "  --trace FILE.json      simulated timeline as a Chrome trace\n"
    "  --max-events N         refuse simulations estimated above N events\n"
    "                         (default 3e8: about a minute)\n"
    "  --max-memory GB        refuse simulations estimated above GB of\n"
    "                         memory (default: half this machine's)\n"
    "  --max-work N           refuse a sweep, calibration or trace whose\n"
    "                         work is estimated above N model evaluations\n"
    "                         (default 1e8: a few minutes)\n"
    "  --gpus FILE            GPU catalog merged over the built-in one\n"
    "  --models FILE          model catalog merged over the built-in one\n"
    "  -q, --quiet            no warnings\n"
    "  -h, --help             this help (damsim COMMAND --help for one "
    "command)\n"
    "  --version              the version\n"
    "\n"
    "exit codes: 0 success, 1 runtime failure, 2 bad usage or input.\n";

void dam_cli_usage(FILE *f)
{
    fputs(usage_text, f);
}

/* ---- option parsing ---------------------------------------------------- */

enum {
    OPT_JSON = 256,
    OPT_CSV,
    OPT_GPUS,
    OPT_MODELS,
    OPT_SEED,
    OPT_REPS,
    OPT_STEPS,
    OPT_ANALYTIC,
    OPT_TRACE,
    OPT_LEVER,
    OPT_COMBINE,
    OPT_BUDGET,
    OPT_DEADLINE,
    OPT_SEARCH,
    OPT_GPU_KINDS,
    OPT_COUNT,
    OPT_SLO,
    OPT_RATE,
    OPT_VERSION,
    OPT_COST,
    OPT_FORMAT,
    OPT_VARY,
    OPT_EXPLORE,
    OPT_SAMPLES,
    OPT_METHOD,
    OPT_INTERVALS,
    OPT_STATS,
    OPT_SIMULATE,
    OPT_PARETO,
    OPT_HEATMAP,
    OPT_METRIC,
    OPT_TRACE_STEPS,
    OPT_TRACE_RANKS,
    OPT_FIT,
    OPT_FIT_CONSTANT,
    OPT_HOLD_OUT,
    OPT_CROSSVAL,
    OPT_MAX_EVENTS,
    OPT_MAX_MEMORY,
    OPT_MAX_WORK,
    OPT_SLO_TTFT,
    OPT_SLO_TPOT
};

static const struct option long_opts[] = {
    {"json", no_argument, 0, OPT_JSON},
    {"csv", no_argument, 0, OPT_CSV},
    {"gpus", required_argument, 0, OPT_GPUS},
    {"models", required_argument, 0, OPT_MODELS},
    {"seed", required_argument, 0, OPT_SEED},
    {"replications", required_argument, 0, OPT_REPS},
    {"steps", required_argument, 0, OPT_STEPS},
    {"analytic", no_argument, 0, OPT_ANALYTIC},
    {"trace", required_argument, 0, OPT_TRACE},
    {"lever", required_argument, 0, OPT_LEVER},
    {"combine", required_argument, 0, OPT_COMBINE},
    {"budget", required_argument, 0, OPT_BUDGET},
    {"deadline", required_argument, 0, OPT_DEADLINE},
    {"search", no_argument, 0, OPT_SEARCH},
    {"gpu-kinds", required_argument, 0, OPT_GPU_KINDS},
    {"count", required_argument, 0, OPT_COUNT},
    {"slo-p99-ms", required_argument, 0, OPT_SLO},
    {"slo-ttft-ms", required_argument, 0, OPT_SLO_TTFT},
    {"slo-tpot-ms", required_argument, 0, OPT_SLO_TPOT},
    {"rate", required_argument, 0, OPT_RATE},
    {"cost", required_argument, 0, OPT_COST},
    {"format", required_argument, 0, OPT_FORMAT},
    {"vary", required_argument, 0, OPT_VARY},
    {"explore", required_argument, 0, OPT_EXPLORE},
    {"samples", required_argument, 0, OPT_SAMPLES},
    {"method", required_argument, 0, OPT_METHOD},
    {"intervals", required_argument, 0, OPT_INTERVALS},
    {"stats", no_argument, 0, OPT_STATS},
    {"simulate", no_argument, 0, OPT_SIMULATE},
    {"pareto", required_argument, 0, OPT_PARETO},
    {"heatmap", required_argument, 0, OPT_HEATMAP},
    {"metric", required_argument, 0, OPT_METRIC},
    {"trace-steps", required_argument, 0, OPT_TRACE_STEPS},
    {"trace-ranks", required_argument, 0, OPT_TRACE_RANKS},
    {"jobs", required_argument, 0, 'j'},
    {"fit", required_argument, 0, OPT_FIT},
    {"fit-constant", required_argument, 0, OPT_FIT_CONSTANT},
    {"hold-out", required_argument, 0, OPT_HOLD_OUT},
    {"cross-validate", no_argument, 0, OPT_CROSSVAL},
    {"max-events", required_argument, 0, OPT_MAX_EVENTS},
    {"max-memory", required_argument, 0, OPT_MAX_MEMORY},
    {"max-work", required_argument, 0, OPT_MAX_WORK},
    {"output", required_argument, 0, 'o'},
    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, OPT_VERSION},
    {0, 0, 0, 0}};

/* Parse a whole non-negative number; -1 if not one (or beyond LONG_MAX:
 * strtol's ERANGE, never silently clamped). */
static long parse_count(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    return (*s && !*end && v >= 0) ? v : -1;
}

static int bad_usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "damsim: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'damsim --help')\n");
    return 2;
}

static int parse_options(dam_cli *c, int argc, char **argv)
{
    int opt;
    optind = 1;
    opterr = 0;
    /* ':' first: a missing value is reported apart from an unknown option */
    while ((opt = getopt_long(argc, argv, ":o:qhj:", long_opts, NULL)) != -1) {
        long v;
        switch (opt) {
        case OPT_JSON: c->json = 1; break;
        case OPT_CSV: c->csv = 1; break;
        case OPT_GPUS: c->gpus_file = optarg; break;
        case OPT_MODELS: c->models_file = optarg; break;
        case OPT_SEED:
            if ((v = parse_count(optarg)) < 0)
                return bad_usage("--seed needs a whole number from 0 to %ld, "
                                 "got '%.40s'", LONG_MAX, optarg);
            c->seed = v;
            c->have_seed = 1;
            break;
        case OPT_REPS:
            if ((v = parse_count(optarg)) < 1 || v > DAM_MAX_REPLICATIONS)
                return bad_usage("--replications needs 1 to %d, got '%.40s'",
                                 DAM_MAX_REPLICATIONS, optarg);
            c->replications = (int)v;
            break;
        case OPT_STEPS:
            if ((v = parse_count(optarg)) < 1 || v > DAM_MAX_STEPS)
                return bad_usage("--steps needs 1 to %d, got '%.40s'",
                                 DAM_MAX_STEPS, optarg);
            c->steps = (int)v;
            break;
        case OPT_ANALYTIC: c->analytic = 1; break;
        case OPT_TRACE: c->trace_file = optarg; break;
        case OPT_LEVER:
            if (c->nlever_args >= DAM_MAX_LEVERS)
                return bad_usage("at most 16 --lever options");
            c->lever_args[c->nlever_args++] = optarg;
            break;
        case OPT_COMBINE: c->combine = optarg; break;
        case OPT_BUDGET: c->budget = optarg; break;
        case OPT_DEADLINE: c->deadline = optarg; break;
        case OPT_SEARCH: c->search = 1; break;
        case OPT_GPU_KINDS: c->gpu_kinds = optarg; break;
        case OPT_COUNT:
            if ((v = parse_count(optarg)) < 1 || v > DAM_MAX_GPUS)
                return bad_usage("--count needs a whole number of GPUs from "
                                 "1 to %d, got '%.40s'", DAM_MAX_GPUS, optarg);
            c->count = v;
            break;
        case OPT_SLO: c->slo = optarg; break;
        case OPT_SLO_TTFT: c->slo_ttft = optarg; break;
        case OPT_SLO_TPOT: c->slo_tpot = optarg; break;
        case OPT_RATE: c->rate = optarg; break;
        case OPT_COST: c->cost_measure = optarg; break;
        case OPT_FIT: c->fit = optarg; break;
        case OPT_FORMAT:
            if (strcmp(optarg, "png") && strcmp(optarg, "svg") &&
                strcmp(optarg, "pdf"))
                return bad_usage("--format takes png, svg or pdf, got '%s'",
                                 optarg);
            c->format = optarg;
            break;
        case OPT_VARY:
            if (c->nvary >= 8)
                return bad_usage("at most 8 --vary options");
            c->vary[c->nvary++] = optarg;
            break;
        case OPT_EXPLORE:
            if (c->nexplore >= 8)
                return bad_usage("at most 8 --explore options");
            c->explore[c->nexplore++] = optarg;
            break;
        case OPT_SAMPLES:
            if ((v = parse_count(optarg)) < 1)
                return bad_usage("--samples needs a whole number >= 1, got "
                                 "'%s'", optarg);
            c->samples = (unsigned long long)v;
            break;
        case OPT_METHOD: c->method = optarg; break;
        case OPT_INTERVALS: c->intervals = optarg; break;
        case OPT_STATS: c->stats = 1; break;
        case OPT_SIMULATE: c->simulate = 1; break;
        case OPT_PARETO: c->pareto = optarg; break;
        case OPT_HEATMAP: c->heatmap = optarg; break;
        case OPT_METRIC: c->metric = optarg; break;
        case OPT_TRACE_STEPS: c->trace_steps = optarg; break;
        case OPT_TRACE_RANKS: c->trace_ranks = optarg; break;
        case 'j':
            if ((v = parse_count(optarg)) < 1 || v > 1024)
                return bad_usage("-j needs 1 to 1024 threads, got '%s'",
                                 optarg);
            c->jobs = (int)v;
            break;
        case OPT_FIT_CONSTANT:
            if (c->nfit_args >= 16)
                return bad_usage("at most 16 --fit-constant options");
            c->fit_args[c->nfit_args++] = optarg;
            break;
        case OPT_HOLD_OUT: c->hold_out = optarg; break;
        case OPT_CROSSVAL: c->cross_validate = 1; break;
        case OPT_MAX_EVENTS:
        case OPT_MAX_MEMORY:
        case OPT_MAX_WORK: {
            char *end;
            double x = dam_decimal(optarg, &end);
            if (end == optarg || *end || !(x > 0.0) || !(x <= 1e15))
                return bad_usage("%s needs a number in (0, 1e15], got '%.40s'",
                                 opt == OPT_MAX_EVENTS   ? "--max-events"
                                 : opt == OPT_MAX_MEMORY ? "--max-memory"
                                                         : "--max-work",
                                 optarg);
            if (opt == OPT_MAX_EVENTS)
                c->max_events = x;
            else if (opt == OPT_MAX_MEMORY)
                c->max_memory_gb = x;
            else
                c->max_work = x;
            break;
        }
        case 'o': c->out_file = optarg; break;
        case 'q': c->quiet = 1; break;
        case 'h': c->help = 1; break;
        case OPT_VERSION: c->version = 1; break;
        case ':':
            return bad_usage("missing value for option '%.40s'",
                             argv[optind - 1]);
        default:
            return bad_usage("unknown option '%.40s'", argv[optind - 1]);
        }
    }
    if (c->json && c->csv)
        return bad_usage("--json and --csv exclude each other: choose one");
    c->args = argv + optind;
    c->nargs = argc - optind;
    return 0;
}

/* 1 when a and b name the same existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* 2 after a message when the folder that would hold path (a file, or a
 * folder to create) does not exist or cannot be written into. */
static int check_folder(const char *opt, const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "%s: error: %s names a folder that does not exist "
                        "('%s'); create it first\n", path, opt, dir);
        return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: error: %s: '%s' is not a folder\n", path, opt,
                dir);
        return 2;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "%s: error: %s: cannot write into the folder '%s': "
                        "%s\n", path, opt, dir, strerror(errno));
        return 2;
    }
    return 0;
}

/* Refuse, before any work is done, output targets that are not regular
 * files, sit in a folder that does not exist or cannot be written, or are
 * one of the command's input files (all checked again when written: the
 * output layer also refuses any file the run read). */
static int check_targets(const dam_cli *c)
{
    dam_error e;
    const char *t[2] = {c->trace_file, c->out_file};
    const char *opt[2] = {"--trace", "-o"};
    const char *in[3] = {c->gpus_file, c->models_file, NULL};
    for (int i = 0; i < 2; i++) {
        if (!t[i])
            continue;
        int dir = i == 1 && c->out_kind == DAM_OUT_DIR;
        if (!dir && dam_outfile_check_target(t[i], &e) != DAM_OK) {
            dam_cli_error(&e);
            return 2;
        }
        struct stat st;
        int exists_dir = stat(t[i], &st) == 0 && S_ISDIR(st.st_mode);
        if (!exists_dir && check_folder(opt[i], t[i]) != 0)
            return 2;
        for (int k = 0; k < c->nargs + 3; k++) {
            const char *f = k < 3 ? in[k] : c->args[k - 3];
            if (f && strcmp(f, "-") != 0 && same_file(t[i], f)) {
                fprintf(stderr, "%s: error: %s would replace an input file "
                                "of this command; choose another name\n",
                        t[i], opt[i]);
                return 2;
            }
        }
    }
    return 0;
}

/* ---- catalog and check --------------------------------------------------- */

static const char catalog_help[] =
    "usage: damsim catalog [gpus|models|levers|keys] [--json] [--gpus FILE] "
    "[--models FILE]\n"
    "\n"
    "Lists the GPU catalog (dense peaks per precision, 2:4 sparsity, HBM,\n"
    "bandwidth, TDP and the bf16 ridge point) or the model catalog (size,\n"
    "forward FLOPs, phases, calibrated efficiencies). Without a word, both.\n"
    "'levers' lists the lever types, their keys, units and ranges; 'keys'\n"
    "the scenario file's keys (types, units, ranges, defaults) as Markdown.\n";

static int cmd_catalog(dam_cli *c)
{
    if (c->help) {
        fputs(catalog_help, stdout);
        return 0;
    }
    const char *what = c->nargs > 0 ? c->args[0] : "all";
    if (strcmp(what, "levers") == 0 && c->nargs == 1) {
        dam_buf b = {0};
        if (c->json) {
            dam_json_dump(&b, dam_json_levers());
        } else {
            size_t n = dam_lever_help(NULL, 0, 0) + 1;
            char *t = dam_malloc(n);
            dam_lever_help(t, n, 0);
            dam_buf_printf(&b, "%s", t);
            dam_free(t);
        }
        int rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
        return rc;
    }
    if (strcmp(what, "keys") == 0 && c->nargs == 1) {
        /* the key reference, from the schema table (model/schema.h) */
        size_t n = dam_schema_doc(NULL, 0) + 1;
        char *t = dam_malloc(n);
        dam_schema_doc(t, n);
        dam_buf b = {0};
        dam_buf_printf(&b, "%s", t);
        dam_free(t);
        int rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
        return rc;
    }
    int gpus = strcmp(what, "gpus") == 0 || strcmp(what, "all") == 0;
    int models = strcmp(what, "models") == 0 || strcmp(what, "all") == 0;
    if ((!gpus && !models) || c->nargs > 1)
        return bad_usage("catalog takes 'gpus', 'models', 'levers' or 'keys', "
                         "got '%s'", what);
    dam_buf b = {0};
    if (c->json) {
        dam_json_dump(&b, dam_json_catalog(&c->cat, gpus, models));
    } else {
        if (gpus)
            dam_text_catalog_gpus(&b, &c->cat);
        if (gpus && models)
            dam_buf_printf(&b, "\n");
        if (models)
            dam_text_catalog_models(&b, &c->cat);
    }
    int rc = dam_cli_emit(c, &b);
    dam_buf_free(&b);
    return rc;
}

static const char check_help[] =
    "usage: damsim check SCENARIO.cfg ...\n"
    "\n"
    "Validates scenario files without solving them: every problem is shown as\n"
    "'file:line: error: message' (warnings too, unless --quiet). It refuses\n"
    "everything run would: a serving trace that cannot be read, and a\n"
    "simulation estimated beyond --max-events or --max-memory (unless\n"
    "--analytic). Exit code 0 when all are valid, 2 otherwise.\n"
    "damsim check --trace PROFILE.json[.gz] validates a torch.profiler trace\n"
    "(and that its dependency graph replays).\n";

/* What `run` would refuse after loading, refused by `check` too: the
 * arrival trace of a serving scenario, and a simulation beyond the work
 * and memory limits (unless --analytic). 0 or 2, reported. */
static int preflight(dam_cli *c, const dam_scenario *s)
{
    dam_sim_options o;
    void *arr = NULL;
    if (s->mode == DAM_MODE_SERVING) {
        if (dam_cli_serving_options(c, s, &o, &arr) != 0)
            return 2;
    } else {
        memset(&o, 0, sizeof o);
        o.warmup = -1;
        o.steps = c->steps;
        o.replications = c->replications;
        dam_cli_sim_limits(c, &o);
    }
    dam_error e;
    int rc = c->analytic ? DAM_OK : dam_sim_work_check(s, &o, &e);
    dam_free(arr);
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        return 2;
    }
    return 0;
}

static int cmd_check(dam_cli *c)
{
    if (c->help) {
        fputs(check_help, stdout);
        return 0;
    }
    if (c->nargs < 1)
        return bad_usage("check needs a scenario file");
    int rc = 0;
    for (int i = 0; i < c->nargs; i++) {
        if (strcmp(c->args[i], "-") != 0 &&
            dam_points_probe(c->args[i], NULL)) {
            dam_points *p = dam_malloc(sizeof *p);
            dam_diag d;
            dam_diag_init(&d);
            int bad = dam_points_load(p, c->args[i], NULL, &d) != DAM_OK;
            bad |= dam_cli_report_diag(&d, c->quiet) != 0;
            dam_diag_free(&d);
            dam_free(p);
            if (bad)
                rc = 2;
            else if (!c->quiet)
                printf("%s: ok\n", c->args[i]);
            continue;
        }
        dam_scenario *s = dam_malloc(sizeof *s);
        int bad = dam_cli_load_scenario(c, c->args[i], s) != 0 ||
                  preflight(c, s) != 0;
        if (bad)
            rc = 2;
        else if (!c->quiet)
            printf("%s: ok\n", c->args[i]);
        dam_free(s);
    }
    return rc;
}

/* ---- dispatch ------------------------------------------------------------ */

/* Output kinds a command writes (bit k: dam_output_kind k). */
#define OUT(k) (1u << (k))
#define OUT_ALL                                                               \
    (OUT(DAM_OUT_STDOUT) | OUT(DAM_OUT_TXT) | OUT(DAM_OUT_JSON) |             \
     OUT(DAM_OUT_CSV) | OUT(DAM_OUT_CHART) | OUT(DAM_OUT_HTML) |              \
     OUT(DAM_OUT_DIR))
#define OUT_OWN 0u /* the command reads -o itself (sweep: .csv, .jsonl) */

typedef struct command {
    const char *name;
    int (*run)(dam_cli *);
    unsigned outputs; /* what -o may name */
    const char *what; /* the same, for the message */
} command;

static const command commands[] = {
    {"run", dam_cmd_run, OUT_ALL, NULL},
    {"whatif", dam_cmd_whatif, OUT_ALL, NULL},
    {"compare", dam_cmd_compare, OUT_ALL, NULL},
    {"plan", dam_cmd_plan, OUT_ALL, NULL},
    {"report", dam_cmd_report,
     OUT(DAM_OUT_STDOUT) | OUT(DAM_OUT_CHART) | OUT(DAM_OUT_HTML),
     ".pdf or .html (or its summary page as .png or .svg)"},
    {"sweep", dam_cmd_sweep, OUT_OWN, NULL},
    {"catalog", cmd_catalog,
     OUT(DAM_OUT_STDOUT) | OUT(DAM_OUT_TXT) | OUT(DAM_OUT_JSON) |
         OUT(DAM_OUT_HTML),
     ".txt, .json or .html"},
    {"check", cmd_check, OUT(DAM_OUT_STDOUT), NULL},
    {"calibrate", dam_cmd_calibrate,
     OUT(DAM_OUT_STDOUT) | OUT(DAM_OUT_TXT) | OUT(DAM_OUT_JSON),
     ".cfg (the fit as a catalog overlay), .txt or .json (the report)"},
    {NULL, NULL, 0, NULL}};

/* The flagship (no command) is a what-if. */
static const command flagship = {"", NULL, OUT_ALL, NULL};

/* Classify -o for cmd and make --json/--csv follow it: 0, or 2 (refused,
 * nothing written). */
static int resolve_output(dam_cli *c, const command *cmd)
{
    c->out_kind = dam_output_of(c->out_file);
    if (cmd->outputs == OUT_OWN)
        return 0;
    /* calibrate -o FILE.cfg: the catalog overlay (cmd_calibrate.c) */
    if (cmd->run == dam_cmd_calibrate && c->out_kind == DAM_OUT_UNKNOWN &&
        strcmp(dam_cli_extension(c->out_file), "cfg") == 0)
        return 0;
    if (c->out_kind == DAM_OUT_UNKNOWN)
        return bad_usage("-o '%.200s': unknown extension: damsim writes "
                         ".txt, .json, .csv, .png, .svg, .pdf, .html, or "
                         "every chart into a folder",
                         c->out_file);
    if (!(cmd->outputs & OUT(c->out_kind))) {
        if (!cmd->what)
            return bad_usage("%s takes no -o", cmd->name);
        return bad_usage("%s -o '%.200s': it writes %s", cmd->name,
                         c->out_file, cmd->what);
    }
    if ((c->out_kind == DAM_OUT_JSON && c->csv) ||
        (c->out_kind == DAM_OUT_CSV && c->json) ||
        (c->out_kind == DAM_OUT_HTML && (c->json || c->csv)))
        return bad_usage("-o '%.200s' and %s ask for two formats: the "
                         "extension chooses, drop the option",
                         c->out_file, c->json ? "--json" : "--csv");
    if (c->out_kind == DAM_OUT_JSON)
        c->json = 1;
    if (c->out_kind == DAM_OUT_CSV)
        c->csv = 1;
    return 0;
}

static void *json_alloc(size_t n)
{
    return dam_malloc(n);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    /* jansson allocates through the choke point too: one out-of-memory
     * policy, and fault injection reaches the JSON writers */
    json_set_alloc_funcs(json_alloc, dam_free);
    dam_cli_signals_install();
    dam_cli c;
    memset(&c, 0, sizeof c);
    const command *cmd = NULL;
    int first = 1;
    if (argc > 1 && argv[1][0] != '-') {
        for (const command *k = commands; k->name; k++)
            if (strcmp(argv[1], k->name) == 0)
                cmd = k;
        if (!cmd) {
            fprintf(stderr, "damsim: unknown command '%s'\n", argv[1]);
            dam_cli_usage(stderr);
            return 2;
        }
        first = 2;
    }
    /* getopt sees argv[0] then the options of this command. */
    int sub_argc = argc - first + 1;
    char **sub_argv = dam_malloc(sizeof(char *) * (size_t)(sub_argc + 1));
    sub_argv[0] = argv[0];
    for (int i = first; i < argc; i++)
        sub_argv[i - first + 1] = argv[i];
    sub_argv[sub_argc] = NULL;
    int rc = parse_options(&c, sub_argc, sub_argv);
    if (rc == 0 && !c.help)
        rc = resolve_output(&c, cmd ? cmd : &flagship);
    if (rc == 0 && c.nexplore && (!cmd || cmd->run != dam_cmd_report))
        rc = bad_usage("--explore is report's: damsim report S.cfg -o "
                       "review.html --explore KEY=V1,V2,...");
    int trace_in = rc == 0 && cmd && dam_cli_trace_input(&c, cmd->name);
    if (trace_in && c.nexplore)
        rc = bad_usage("--explore sweeps a scenario's keys; a review of a "
                       "profiler trace has none");
    if (rc == 0 && !trace_in)
        rc = check_targets(&c);
    if (rc == 0 && c.version) {
        printf("damsim %s\n", DAM_VERSION);
    } else if (rc == 0 && c.help && !cmd) {
        dam_cli_usage(stdout);
    } else if (rc == 0) {
        rc = dam_cli_load_catalog(&c);
        if (rc == 0) {
            if (trace_in)
                rc = dam_cmd_trace(&c, cmd->name);
            else if (cmd)
                rc = cmd->run(&c);
            else
                rc = dam_cmd_flagship(&c);
        }
        /* a command without charts: its page holds its text */
        if (rc == 0 && c.out_kind == DAM_OUT_HTML && !c.html_done)
            rc = dam_cli_charts(&c, NULL);
    }
    /* every byte on standard output reached it, or the run failed */
    if (dam_cli_stdout_check() != 0 && rc == 0)
        rc = 1;
    if (fclose(stdout) != 0 && dam_cli_stdout_error(errno) && rc == 0)
        rc = 1;
    dam_buf_free(&c.html_text);
    dam_catalog_free(&c.cat);
    dam_free(sub_argv);
    return rc;
}
