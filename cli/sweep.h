/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.h (cli): what `damsim sweep`'s pieces share: the run's settings,
 * the per-point figures kept for charts, the progress line and the
 * interrupt flag. Threads are in cmd_sweep.c, MPI ranks in sweep_mpi.c.
 */
#ifndef DAM_CLI_SWEEP_H
#define DAM_CLI_SWEEP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"
#include "render/out/buf.h"
#include "solver/progress.h"
#include "solver/sweep.h"
#include "solver/sweep_summary.h"


/* The progress line (progress.c): on stderr when it is a terminal, once
 * the work has taken DAM_CLI_PROGRESS_AFTER seconds. */
#define DAM_CLI_PROGRESS_AFTER 1.0
typedef struct dam_cli_progress {
    int on;                /* 1: stderr is a terminal and not --quiet */
    const char *what;      /* "points", "steps", ... */
    double total;          /* units of work in all (0: not known yet) */
    double start;          /* monotonic s at the start */
    double last;           /* last redraw, monotonic s */
    double after;          /* s of work before the first draw
                            * (DAM_CLI_PROGRESS_AFTER; the environment's
                            * DAM_PROGRESS_AFTER_S, for tests) */
    int drawn;             /* 1: a line is on the screen */
} dam_cli_progress;

/* Start a progress line for total units of what (quiet: never). */
void dam_cli_progress_start(dam_cli_progress *p, const char *what,
                            double total, int quiet);
/* Redraw with done units finished (at most 5 times a second). */
void dam_cli_progress_update(dam_cli_progress *p, double done);
/* Erase the line. */
void dam_cli_progress_end(dam_cli_progress *p);
/* A solver progress hook (solver/progress.h) that redraws p with the
 * computation's own done and total; p must outlive the computation. */
void dam_cli_progress_hook(dam_cli_progress *p, dam_progress *hook);
/* 1 while a progress line is on the screen (the signal handler erases
 * it before its message; signals.c). */
extern volatile sig_atomic_t dam_cli_progress_visible;

/* Catch SIGINT (Ctrl-C) and SIGTERM: the handler only sets a flag. */
void dam_cli_catch_interrupt(void);
/* 1 once an interrupt arrived. */
int dam_cli_interrupted(void);
/* The command has stopped its loops: a signal caught before no longer
 * ends the process a second later (progress.c). */
void dam_cli_interrupt_done(void);
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
    int werr;              /* errno of the first failed write, or 0 */
    uint64_t solved;       /* rows written that solved (no error) */
    int charts;            /* 1: charts are asked for: every rank keeps
                            * its chunks' figures */
    dam_sweep_fig *figs;   /* rank 0: npoints figures when charts are
                            * asked for */
    dam_sweep_counts counts; /* this process's workers' (--stats) */
    dam_cli_progress progress;
} dam_cli_sweep;

/* Solve and format chunk c into b (figures into fig when not NULL);
 * 0, or 1 when an interrupt stopped it (sweep_rows.c). */
int dam_cli_sweep_chunk(const dam_cli_sweep *r, dam_sweep_worker *w,
                        dam_sweep_row *row, uint64_t c, dam_buf *b,
                        dam_sweep_fig *fig);
/* Write chunk c's text (then empty it) and keep its figures; 0 or 1. */
int dam_cli_sweep_emit(dam_cli_sweep *r, FILE *out, dam_buf *text,
                       const dam_sweep_fig *fig, uint64_t c);
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

/* How the command line asks points to be solved: --simulate, --seed,
 * --replications, --steps and the simulation limits (sweep, report
 * --explore). */
void dam_cli_sweep_solver(dam_cli *c, dam_sweep *sw);

/* Run a prepared sweep: output file, threads or ranks, charts; the exit
 * code. */
int dam_cli_sweep_run(dam_cli *c, const dam_sweep *sw);

/* Sweep charts (sweep_charts.c). Before the sweep: check --pareto,
 * --heatmap, --metric and -o (a .csv or .jsonl file, or a folder); 0 or
 * 2 after a message. */
int dam_cli_sweep_charts_check(dam_cli *c, const dam_sweep *sw);
/* 1 when the sweep keeps its points' figures for charts. */
int dam_cli_sweep_wants_charts(const dam_cli *c);
/* After it: write --pareto, --heatmap, and the charts of -o DIR (dir: the
 * folder, or NULL); 0, 1 or 2. */
int dam_cli_sweep_charts(dam_cli *c, const dam_sweep *sw,
                         const dam_sweep_fig *figs, const char *dir);

/* The text of a scenario file (through model/infile.h: regular files
 * only, capped), or of standard input when path is "-" (*name:
 * "<stdin>"); NULL with why (n bytes) filled when it cannot be read.
 * Caller frees with dam_free. */
char *dam_cli_read_text(const char *path, const char **name, char *why,
                        size_t n);

#endif
