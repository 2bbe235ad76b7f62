/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.h (cli): what `damsim sweep`'s pieces share: the run's settings,
 * the per-point figures kept for charts, the progress line and the
 * interrupt flag. Threads are in cmd_sweep.c, MPI ranks in sweep_mpi.c.
 */
#ifndef DAM_CLI_SWEEP_H
#define DAM_CLI_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "render/buf.h"
#include "solver/sweep.h"

/* A point's figures, kept when a chart is asked for. */
typedef struct dam_cli_sweep_fig {
    int ok, fits;
    double step, throughput, run_time, cost, energy; /* as in the row */
} dam_cli_sweep_fig;

/* The progress line (progress.c): on stderr when it is a terminal. */
typedef struct dam_cli_progress {
    int on;                /* 1: stderr is a terminal and not --quiet */
    const char *what;      /* "points", "steps", ... */
    double total;          /* units of work in all */
    double start;          /* monotonic s at the start */
    double last;           /* last redraw, monotonic s */
    int drawn;             /* 1: a line is on the screen */
} dam_cli_progress;

/* Start a progress line for total units of what (quiet: never). */
void dam_cli_progress_start(dam_cli_progress *p, const char *what,
                            double total, int quiet);
/* Redraw with done units finished (at most 5 times a second). */
void dam_cli_progress_update(dam_cli_progress *p, double done);
/* Erase the line. */
void dam_cli_progress_end(dam_cli_progress *p);

/* Catch SIGINT (Ctrl-C) and SIGTERM: the handler only sets a flag. */
void dam_cli_catch_interrupt(void);
/* 1 once an interrupt arrived. */
int dam_cli_interrupted(void);
/* The exit code of the interrupt: 128 + the signal (130: Ctrl-C). */
int dam_cli_interrupt_code(void);

/* A sweep being run. */
typedef struct dam_cli_sweep {
    const dam_sweep *sw;
    int json;              /* 1: JSON Lines, else CSV */
    int jobs;              /* threads */
    uint64_t chunk;        /* points per chunk */
    uint64_t nchunks;
    uint64_t done;         /* points written */
    dam_cli_sweep_fig *figs; /* npoints figures when charts are asked for */
    dam_cli_progress progress;
} dam_cli_sweep;

/* Solve and format chunk c into b (figures into fig when not NULL);
 * 0, or 1 when an interrupt stopped it. */
int dam_cli_sweep_chunk(const dam_cli_sweep *r, dam_sweep_worker *w,
                        dam_sweep_row *row, uint64_t c, dam_buf *b,
                        dam_cli_sweep_fig *fig);
/* Write chunk c's text (then empty it) and keep its figures; 0 or 1. */
int dam_cli_sweep_emit(dam_cli_sweep *r, FILE *out, dam_buf *text,
                       const dam_cli_sweep_fig *fig, uint64_t c);
/* All chunks on r->jobs threads, in order to out; 0, 1 or 130. */
int dam_cli_sweep_threads(dam_cli_sweep *r, FILE *out);

/* Under mpirun (sweep_mpi.c): the number of ranks (1 when not under MPI
 * or built without it) and this process's rank, after initialising MPI
 * when launched by mpirun. */
int dam_cli_mpi_start(int *rank);
/* All chunks over the ranks: rank 0 writes them in order to out, the
 * others send theirs; the exit code (0, 1 or 130). */
int dam_cli_sweep_mpi(dam_cli_sweep *r, FILE *out, int rank, int size);
/* Finalise MPI when it was started. */
void dam_cli_mpi_end(void);
/* Abort every rank (after an interrupt on rank 0). */
void dam_cli_mpi_abort(int code);

/* Run a prepared sweep: output file, threads or ranks, charts; the exit
 * code. */
int dam_cli_sweep_run(dam_cli *c, const dam_sweep *sw);

/* Sweep charts (sweep_charts.c): --pareto and --heatmap; 0, 1 or 2. */
int dam_cli_sweep_charts(dam_cli *c, const dam_sweep *sw,
                         const dam_cli_sweep_fig *figs);

/* The text of a scenario file, or of standard input when path is "-"
 * (*name: "<stdin>"); NULL with errno set when it cannot be read. Caller
 * frees with dam_free. */
char *dam_cli_read_text(const char *path, const char **name);

#endif
