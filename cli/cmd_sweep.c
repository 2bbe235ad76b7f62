/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_sweep.c: `damsim sweep`: many points of one scenario, on threads
 * (and on MPI ranks, sweep_mpi.c), streamed in point order.
 *
 * Design. Points are cut into chunks of consecutive indices. Worker threads
 * take chunks in order from a counter, solve them (solver/sweep.h) and
 * format their rows into the chunk's buffer; this thread writes buffers in
 * chunk order as they become ready, so the output is the same bytes for
 * any number of threads: a row depends on its index alone and formatting
 * is deterministic. At most `window` chunks are in flight, which bounds
 * memory whatever the sweep's size. Writes happen in whole chunks of whole
 * rows: an interrupt (Ctrl-C) stops at a chunk boundary, so no row is torn.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/alloc.h"
#include "render/out/outfile.h"
#include "render/page/sweep_page.h"

static const char sweep_help[] =
    "usage: damsim sweep SCENARIO.cfg --vary KEY=V1,V2,... [--vary ...]\n"
    "                    [--vary KEY=LO:HI:N[:log]] [--samples N --method\n"
    "                    random|lhs] [--simulate [--seed N]] [-j N]\n"
    "                    [--intervals on|off] [--stats]\n"
    "                    [--json] [-o FILE.csv|FILE.jsonl|DIR]\n"
    "                    [--pareto FILE.png|svg|pdf]\n"
    "                    [--heatmap FILE.png|svg|pdf] [--metric M]\n"
    "\n"
    "Solves the scenario at every point of a grid (or a sample) of varied\n"
    "keys and writes one row per point, in point order: the varied values,\n"
    "step_s, throughput_per_s, run_time_s, gpu_hours, cost_usd, energy_kwh,\n"
    "bound (what binds), fits_memory, overloaded (serving: the rate reaches\n"
    "the deployment's capacity, so step_s is a lone request's), 90 %\n"
    "intervals where `run` gives\n"
    "them (uncertain inputs, calibrated constants, the model's step error),\n"
    "and error (a point that fails is a row with its error). CSV by\n"
    "default; --json or -o FILE.jsonl for JSON Lines.\n"
    "\n"
    "  --vary KEY=V1,V2,...    a scenario key (machine.gpu, workload.\n"
    "                          batch_size, ...) or a lever key (gpu,\n"
    "                          batch_size, precision, ...) and its values\n"
    "  --vary KEY=LO:HI:N[:log]  N values from LO to HI (log-spaced with\n"
    "                          :log); whole-number bounds give whole numbers\n"
    "  --samples N             draw N points instead of the full grid\n"
    "  --method random|lhs     how --samples draws (lhs: Latin hypercube)\n"
    "  --stats                 after the rows, on stderr: how many graph\n"
    "                          costs were worked out and how many reused\n"
    "  --intervals on|off      the 90 % interval columns (default on; off:\n"
    "                          no such columns, and 400 fewer solves a\n"
    "                          point)\n"
    "  --simulate              the discrete-event simulation per point\n"
    "                          (default: the analytic solver)\n"
    "  --seed N                seed; each point's seed is mixed from it and\n"
    "                          the point's number\n"
    "  -j N                    threads (default: the cores); the output is\n"
    "                          the same bytes for any N\n"
    "  -o DIR                  the rows to DIR/sweep.csv (.jsonl with\n"
    "                          --json) and both charts beside them\n"
    "                          (pareto.png, heatmap.png; --format svg|pdf)\n"
    "  --pareto FILE           every point's time to train (per request\n"
    "                          when serving) against its cost, the Pareto\n"
    "                          front joined and named\n"
    "  --heatmap FILE          a heat map over the first two varied keys\n"
    "                          (with more keys or samples: the best point\n"
    "                          of each cell that fits in memory)\n"
    "  --metric M              the heat map's colour: step, throughput,\n"
    "                          run_time, cost (default), energy\n"
    "\n"
    "Grid order: the first --vary varies slowest. Scenario keys are set\n"
    "first (the point is loaded and checked as a file would be), then the\n"
    "levers are applied in the order given. A point whose machine.gpu is\n"
    "varied (and its price not) costs what the gpu lever would: the\n"
    "scenario's own price for that GPU, else the catalog's, else none\n"
    "(cost empty), never the file's GPU's price. Under mpirun the points are\n"
    "split over ranks and rank 0 writes them, identical to -j 1. Ctrl-C\n"
    "stops after the last complete row (exit code 130); with -o FILE.csv\n"
    "the rows so far go to FILE.partial.csv, never to FILE.csv. A sweep\n"
    "whose every point fails exits 2; an unknown --vary key is refused\n"
    "before any point.\n";

/* ---- the command ------------------------------------------------------------ */

/* Parse the command line's sweep options into sw; 0 or 2. */
static int sweep_options(dam_cli *c, dam_sweep *sw)
{
    dam_sweep_init(sw);
    for (int i = 0; i < c->nvary; i++) {
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_sweep_add(sw, c->vary[i], &e) != DAM_OK) {
            dam_cli_error(&e);
            return 2;
        }
    }
    if (c->method) {
        if (strcmp(c->method, "grid") == 0)
            sw->method = DAM_SWEEP_GRID;
        else if (strcmp(c->method, "random") == 0)
            sw->method = DAM_SWEEP_RANDOM;
        else if (strcmp(c->method, "lhs") == 0)
            sw->method = DAM_SWEEP_LHS;
        else {
            fprintf(stderr, "damsim: --method takes grid, random or lhs, "
                            "got '%s'\n", c->method);
            return 2;
        }
    }
    if (c->intervals) {
        if (strcmp(c->intervals, "off") == 0)
            sw->no_intervals = 1;
        else if (strcmp(c->intervals, "on") != 0) {
            fprintf(stderr, "damsim: --intervals takes on or off, got '%s'\n",
                    c->intervals);
            return 2;
        }
    }
    sw->samples = c->samples;
    dam_cli_sweep_solver(c, sw);
    return 0;
}

void dam_cli_sweep_solver(dam_cli *c, dam_sweep *sw)
{
    sw->have_seed = c->have_seed;
    sw->seed = (unsigned long)c->seed;
    sw->simulate = c->simulate;
    sw->replications = c->replications;
    sw->steps = c->steps;
    dam_sim_options lim;
    dam_cli_sim_limits(c, &lim);
    sw->max_events = lim.max_events;
    sw->max_bytes = lim.max_bytes;
}

/* Chunk size: about 64 chunks per thread, at most 4096 rows, fewer when
 * every point is simulated (a chunk should take well under a second). */
static uint64_t chunk_size(const dam_sweep *sw, int workers)
{
    uint64_t c = sw->npoints / ((uint64_t)workers * 64);
    uint64_t max = sw->simulate ? 4 : 4096;
    if (c > max)
        c = max;
    return c ? c : 1;
}

/* Where an interrupted sweep keeps its whole rows: "x.partial.csv" beside
 * "x.csv" (".partial" before the extension, or at the end). */
static void partial_name(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
        snprintf(out, n, "%s.partial", path);
    else
        snprintf(out, n, "%.*s.partial%s", (int)(dot - path), path, dot);
}

/* 1 when path ends with ext. */
static int ends_with(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n >= e && strcmp(path + n - e, ext) == 0;
}

int dam_cli_sweep_run(dam_cli *c, const dam_sweep *sw)
{
    int rank = 0, size = dam_cli_mpi_start(&rank);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    dam_cli_sweep r;
    memset(&r, 0, sizeof r);
    r.sw = sw;
    int dir = c->out_file && c->out_kind == DAM_OUT_DIR;
    r.json = c->json || (c->out_file && !dir &&
                         (ends_with(c->out_file, ".jsonl") ||
                          ends_with(c->out_file, ".json")));
    r.jobs = c->jobs > 0 ? c->jobs : size > 1 ? 1 : cores > 0 ? (int)cores : 1;
    r.chunk = chunk_size(sw, size > 1 ? size : r.jobs);
    r.nchunks = (sw->npoints + r.chunk - 1) / r.chunk;
    r.charts = dam_cli_sweep_wants_charts(c);
    if (r.charts && rank == 0)
        r.figs = dam_calloc((size_t)sw->npoints, sizeof *r.figs);

    FILE *out = stdout;
    dam_outfile of;
    memset(&of, 0, sizeof of);
    /* -o DIR: the rows go to DIR/sweep.csv (or .jsonl), the charts beside
     * them; a folder made here goes again if the sweep fails */
    char rows_path[4096], partial[4200] = "";
    int made_dir = 0;
    if (rank == 0 && c->out_file) {
        dam_error e;
        memset(&e, 0, sizeof e);
        int orc = DAM_OK;
        const char *path = c->out_file;
        if (dir) {
            snprintf(rows_path, sizeof rows_path, "%s/sweep.%s", c->out_file,
                     r.json ? "jsonl" : "csv");
            path = rows_path;
            made_dir = mkdir(c->out_file, 0777) == 0;
            if (!made_dir && errno != EEXIST) {
                dam_error_set(&e, c->out_file, 0,
                              "cannot create the folder: %s",
                              strerror(errno));
                orc = DAM_ERUNTIME;
            }
        }
        if (orc == DAM_OK)
            orc = dam_outfile_open(&of, path, &e);
        if (orc != DAM_OK) {
            dam_cli_error(&e);
            if (made_dir)
                rmdir(c->out_file);
            dam_free(r.figs);
            if (size > 1) /* the other ranks would wait for rank 0 */
                dam_cli_mpi_abort(orc == DAM_EINPUT ? 2 : 1);
            dam_cli_mpi_end();
            return orc == DAM_EINPUT ? 2 : 1;
        }
        out = of.fp;
    }
    /* from here a signal stops the rows at a whole row; before, it ended
     * the process at once (signals.c) */
    dam_cli_catch_interrupt();
    int rc = 0;
    if (rank == 0 && !r.json) {
        dam_buf h = {0};
        dam_page_sweep_csv_header(&h, sw);
        if (fwrite(h.data, 1, h.len, out) != h.len) {
            rc = 1;
            r.werr = errno;
        }
        dam_buf_free(&h);
    }
    if (rank == 0)
        dam_cli_progress_start(&r.progress, "points", (double)sw->npoints,
                               c->quiet);
    if (rc == 0)
        rc = size > 1 ? dam_cli_sweep_mpi(&r, out, rank, size)
                      : dam_cli_sweep_threads(&r, out);
    dam_cli_progress_end(&r.progress);
    dam_cli_interrupt_done();
    if (rank == 0) {
        if (out == stdout && (fflush(out) != 0 || ferror(out)) && rc == 0) {
            rc = 1;
            r.werr = errno ? errno : EIO;
        }
        int werr = r.werr ? r.werr : EIO;
        if (out != stdout) {
            /* complete rows are kept on an interrupt too */
            dam_error e;
            if (rc == 0) {
                if (dam_outfile_commit(&of, &e) != DAM_OK) {
                    dam_cli_error(&e);
                    rc = 1;
                }
            } else if (rc == 130) {
                /* the rows so far, never under the final name */
                partial_name(of.path, partial, sizeof partial);
                if (dam_outfile_check_target(partial, &e) != DAM_OK ||
                    dam_outfile_commit_as(&of, partial, &e) != DAM_OK) {
                    dam_cli_error(&e);
                    dam_outfile_abort(&of);
                    partial[0] = '\0';
                }
            } else {
                if (rc == 1)
                    fprintf(stderr, "%s: error: write error: %s\n",
                            of.path, strerror(werr));
                dam_outfile_abort(&of);
                if (made_dir)
                    rmdir(c->out_file);
            }
        }
        if (rc == 1 && out == stdout)
            dam_cli_stdout_error(werr);
        if (rc == 130 && out == stdout)
            fprintf(stderr, "damsim: interrupted: the first %llu of %llu "
                            "rows were written whole\n",
                    (unsigned long long)r.done,
                    (unsigned long long)sw->npoints);
        else if (rc == 130 && partial[0])
            fprintf(stderr, "damsim: interrupted: the first %llu of %llu "
                            "rows were written whole to %s (%s is left as "
                            "it was)\n",
                    (unsigned long long)r.done,
                    (unsigned long long)sw->npoints, partial, c->out_file);
        if (rc == 0 && r.solved == 0) {
            /* every point failed: the rows say why, the exit code too */
            fprintf(stderr, "damsim: no point of the sweep solved (%llu "
                            "rows; the error column says why)\n",
                    (unsigned long long)r.done);
            rc = 2;
        }
        if (rc == 0 && r.figs)
            rc = dam_cli_sweep_charts(c, sw, r.figs,
                                      dir ? c->out_file : NULL);
        if (c->stats)
            fprintf(stderr,
                    "damsim: sweep: %llu rows (%llu solved); graph costs "
                    "worked out %llu, reused %llu; interval draws whose "
                    "device cost was reused %llu%s\n",
                    (unsigned long long)r.done,
                    (unsigned long long)r.solved,
                    r.counts.graph_costs, r.counts.graph_reused,
                    r.counts.draws_reused,
                    size > 1 ? " (rank 0's points only)" : "");
    }
    dam_free(r.figs);
    if (rc == 130)
        rc = dam_cli_interrupt_code();
    if (rc >= 128 && size > 1)
        dam_cli_mpi_abort(rc);
    dam_cli_mpi_end();
    return rc;
}

int dam_cmd_sweep(dam_cli *c)
{
    if (c->help)
        return dam_cli_help(sweep_help);
    if (c->nargs != 1)
        return dam_cli_usage_error("sweep",
                                   "sweep needs one scenario file (or - for "
                                   "standard input)",
                                   NULL);
    dam_sweep sw;
    int rc = sweep_options(c, &sw);
    if (rc == 0)
        rc = dam_cli_sweep_work(c, &sw, 0);
    const char *name = c->args[0];
    char *text = NULL;
    if (rc == 0) {
        char why[64];
        text = dam_cli_read_text(c->args[0], &name, why, sizeof why);
        if (!text) {
            fprintf(stderr, "%s: error: cannot read the file: %s\n",
                    name, why);
            rc = 2;
        }
    }
    if (rc == 0) {
        dam_diag d;
        dam_diag_init(&d);
        int prc = dam_sweep_prepare(&sw, name, text, &c->cat, &d);
        rc = dam_cli_report_diag(&d, c->quiet);
        dam_diag_free(&d);
        if (prc != DAM_OK)
            rc = 2;
        if (rc == 0)
            rc = dam_cli_sweep_work(c, &sw, 1);
    }
    dam_free(text);
    if (rc == 0)
        rc = dam_cli_sweep_charts_check(c, &sw);
    if (rc == 0)
        rc = dam_cli_sweep_run(c, &sw);
    dam_sweep_free(&sw);
    return rc;
}
