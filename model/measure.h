/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * measure.h: measured step times, throughputs and profiler traces, the
 * input of `damsim calibrate` (solver/calibrate.h fits catalog constants
 * to them).
 *
 * A measurements file is CSV (RFC 4180 quoting: a field in double quotes
 * may hold commas, and "" is a quote). Blank lines and lines whose first
 * character is '#' are skipped. The first other line is the header; columns
 * are found by name, in any order:
 *
 *   scenario   required  the scenario file the row measures, relative to
 *                        the measurements file's folder
 *   quantity   required  step_time | throughput | trace
 *   value      required  step_time, throughput: a number > 0;
 *                        trace: a torch.profiler trace (Chrome JSON),
 *                        relative to the measurements file's folder
 *   unit       required for step_time and throughput:
 *                        step_time: s, ms, us;
 *                        throughput: samples/s, images/s, sequences/s,
 *                        tokens/s, each optionally followed by "/GPU"
 *                        (per GPU; otherwise the total over all GPUs)
 *   levers     optional  levers applied to the scenario first, separated by
 *                        spaces, each as `damsim whatif --lever` takes it
 *                        ("gpu=H100-SXM5-80GB batch_size=192")
 *   rel_error  optional  the measurement's relative standard error, in
 *                        (0, 1) (default DAM_MEASURE_REL_ERROR)
 *   id         optional  a name for the row (default "file:line")
 *   source     optional  where the number comes from
 *
 * Unknown columns, a repeated column, a missing required column or value,
 * a bad number, a bad unit and a quantity that is not one of the three are
 * errors, each reported as "file:line: error: ..." into a dam_diag; the
 * load fails as a whole. Lever strings are checked here (their keys and
 * values); whether they apply to the scenario is checked when it is loaded.
 * This module reads the file only: it does not load scenarios or traces.
 */
#ifndef DAM_MEASURE_H
#define DAM_MEASURE_H

#include <stddef.h>

#include "model/error.h"
#include "model/scenario.h"

/* Relative standard error of a measurement that gives none (3 %: the
 * run-to-run spread of published benchmark reruns is typically 1-5 %). */
#define DAM_MEASURE_REL_ERROR 0.03

typedef enum {
    DAM_MEASURE_STEP_TIME = 0, /* seconds per step */
    DAM_MEASURE_THROUGHPUT,    /* samples per second, all GPUs */
    DAM_MEASURE_TRACE          /* a profiler trace of the scenario's step */
} dam_measure_kind;

/* The name of a kind as the file writes it ("step_time"). */
const char *dam_measure_kind_name(dam_measure_kind k);

/* How a throughput was counted, so the prediction can be converted. */
typedef enum {
    DAM_MEASURE_PER_SAMPLE = 0, /* samples (images, sequences) */
    DAM_MEASURE_PER_TOKEN       /* tokens: samples x the model's seq_len */
} dam_measure_count;

/* One row. */
typedef struct dam_measure {
    char id[128];             /* the row's name ("file:line" by default) */
    char scenario[512];       /* scenario path, resolved against the file's folder */
    char levers[512];         /* lever strings separated by spaces ("" = none) */
    dam_measure_kind kind;
    double value;             /* step_time: s; throughput: per second, as counted
                               * (see count, per_gpu); trace: 0 */
    dam_measure_count count;  /* throughput: what is counted */
    int per_gpu;              /* throughput: 1 when value is per GPU */
    char trace[512];          /* trace: the trace path, resolved */
    double rel_error;         /* relative standard error, (0, 1) */
    char unit[32];            /* the unit as written */
    char source[512];         /* where the number comes from ("" = not said) */
    int line;                 /* line in the measurements file */
} dam_measure;

/* A loaded measurements file. Owns rows; free with dam_measure_set_free. */
typedef struct dam_measure_set {
    char file[256];           /* the file it was read from */
    dam_measure *rows;        /* n rows in file order */
    size_t n;
} dam_measure_set;

/*
 * Read a measurements file (text == NULL: read path; otherwise parse text
 * and name it path in messages). Returns DAM_OK, or DAM_EINPUT with every
 * problem in d (set is empty then). A file without rows is an error.
 */
int dam_measure_load(dam_measure_set *set, const char *path, const char *text,
                     dam_diag *d);

/* Free the rows; the set is empty afterwards. NULL is a no-op. */
void dam_measure_set_free(dam_measure_set *set);

/*
 * The measured quantity of row m expressed in the solver's terms for
 * scenario s (the row's scenario with its levers applied): a step time in
 * seconds, or a throughput in samples/s over all GPUs. Tokens divide by the
 * model's seq_len; per-GPU values multiply by the GPU count.
 */
double dam_measure_si(const dam_measure *m, const dam_scenario *s);

#endif
