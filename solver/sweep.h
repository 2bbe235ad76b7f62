/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep.h: many scenarios from one: a grid or a sample over varied keys,
 * each point solved and reduced to one row (`damsim sweep`).
 *
 * A varied key is either a scenario key ("pipeline.loader_workers",
 * "machine.gpu": anything a scenario file may say) or a lever key ("gpu",
 * "batch_size": the keys of dam_lever_parse_kv). A point's scenario is the
 * base file with the point's scenario keys set (dam_scenario_load_with, so
 * every check a file gets applies), then the point's levers applied in the
 * order the keys were given. Points are numbered 0 .. n-1: on a grid the
 * first key varies slowest; --samples draws n points at random or by Latin
 * hypercube. Everything a row holds is a function of (sweep, index) alone:
 * the simulation's seed and the uncertainty sample's seed are mixed from
 * the sweep's seed and the index, so rows are the same whichever worker,
 * thread or MPI rank evaluates them, in whatever order.
 *
 * Cost. Reloading a scenario costs about 100 us; a sweep avoids it for
 * scenario keys that the loader reads on their own (no other key checks or
 * derives from them: the list is in sweep.c) and whose values are listed or
 * on a grid: at prepare time each value is loaded once and kept as the few
 * bytes it changes, which a point then writes in place. Levers cost a copy
 * of the scenario per point (a few us). The analytic solve is under 1 us.
 *
 * Threads: a prepared dam_sweep is only read by evaluation, so any number
 * of workers (one per thread) may evaluate points of one sweep at once.
 * Nothing here prints, exits or knows about threads or ranks.
 */
#ifndef DAM_SWEEP_H
#define DAM_SWEEP_H

#include <stdint.h>

#include "model/catalog.h"
#include "model/error.h"
#include "solver/result.h"
#include "solver/uncertainty.h"

#define DAM_SWEEP_MAX_KEYS 8      /* varied keys per sweep */
#define DAM_SWEEP_MAX_VALUES 100000 /* values of one key (list or grid) */
#define DAM_SWEEP_VALUE_MAX 64    /* characters of one value, with the NUL */
#define DAM_SWEEP_PATCH_SPANS 4   /* runs of bytes one patched key changes */
#define DAM_SWEEP_PATCH_BYTES 32  /* bytes one patched key changes in all */
/* Graph costs a worker keeps (dam_analytic_memo_table; a power of two):
 * about 3 MB, the costs of up to 3,072 option sets (batch sizes). */
#define DAM_SWEEP_MEMO_ENTRIES 4096

typedef enum {
    DAM_SWEEP_GRID = 0, /* every combination */
    DAM_SWEEP_RANDOM,   /* independent uniform draws per point */
    DAM_SWEEP_LHS       /* Latin hypercube: each key's range in n strata */
} dam_sweep_method;

/* How a key's value reaches a point's scenario. */
typedef enum {
    DAM_SWEEP_SET_RELOAD = 0, /* scenario key: reload with the value set */
    DAM_SWEEP_SET_PATCH,      /* scenario key: bytes written in place */
    DAM_SWEEP_SET_LEVER       /* lever key: a lever applied */
} dam_sweep_set;

/* One varied key. */
typedef struct dam_sweep_key {
    char key[64];         /* as given: "machine.gpu", "batch_size" */
    int lever;            /* 1: a lever key (no dot) */
    dam_sweep_set set;    /* decided by dam_sweep_prepare */
    int range;            /* 1: LO:HI:N[:log], else a list */
    double lo, hi;        /* range bounds (units of the key) */
    int log;              /* 1: log-spaced / log-uniform (lo, hi > 0) */
    int integer;          /* 1: both bounds written as integers: values
                           * are rounded to whole numbers */
    int n;                /* grid values of a range (>= 1) */
    int nvalues;          /* values on a grid (list entries, or n) */
    char (*values)[DAM_SWEEP_VALUE_MAX]; /* their text (owned) */
    /* DAM_SWEEP_SET_PATCH: the runs of bytes of dam_scenario the key's
     * values change (offset and width of each, nspans of them, at most
     * DAM_SWEEP_PATCH_BYTES in all) and each value's bytes of the runs,
     * one after the other; a value that does not load has its message in
     * errors[v] (NULL when it loads). */
    int nspans;
    size_t offset[DAM_SWEEP_PATCH_SPANS], width[DAM_SWEEP_PATCH_SPANS];
    unsigned char (*patch)[DAM_SWEEP_PATCH_BYTES];
    char **errors;
    /* DAM_SWEEP_SET_LEVER with listed values: the lever of each value. */
    dam_lever *levers;
} dam_sweep_key;

/* The sweep: keys, how points are drawn and how they are solved. */
typedef struct dam_sweep {
    int nkeys;
    dam_sweep_key keys[DAM_SWEEP_MAX_KEYS];
    dam_sweep_method method;
    uint64_t samples;     /* points drawn by random / lhs */
    unsigned long seed;   /* mixed with the point index (scenario's if 0) */
    int have_seed;        /* 1: seed set by the caller */
    int simulate;         /* 1: the discrete-event simulation per point */
    int replications;     /* simulation replications (0 = scenario's) */
    int steps;            /* simulated steps (0 = scenario's) */
    double max_events;    /* per point: a simulation estimated beyond it is
                           * refused (dam_sim_options; 0 = no limit) */
    double max_bytes;     /* per point: the same for memory, bytes */
    int no_patch;         /* 1: reload every scenario key (the reference
                           * the patched path is tested against) */
    int uncertainty_samples; /* Monte Carlo samples per point where the
                              * scenario has sources of uncertainty
                              * (dam_uncertainty_sources; default
                              * DAM_UNCERTAINTY_SAMPLES) */
    int no_intervals;     /* 1: no intervals (the rows' _lo and _hi
                           * columns are empty) */
    /* Set by dam_sweep_prepare. */
    char *path;           /* scenario name for messages (owned) */
    char *text;           /* the scenario file's text (owned) */
    const dam_catalog *cat; /* resolves ids; must outlive the sweep */
    dam_scenario *base; /* the file as loaded (owned) */
    int uncertain;        /* 1: the base has sources of uncertainty (its
                           * uncertain inputs, calibrated constants or
                           * step error, as `run` counts them): rows carry
                           * 90 % intervals */
    int reprice;          /* 1: machine.gpu is varied and the price is
                           * not: each point's price is the one the gpu
                           * lever gives its GPU (dam_lever_gpu_price) */
    uint32_t *lhs;        /* lhs: nkeys permutations of samples strata */
    uint64_t npoints;     /* points in the sweep */
} dam_sweep;

/* One solved point. Figures are for the whole run unless named per step. */
typedef struct dam_sweep_row {
    uint64_t index;       /* point number */
    char values[DAM_SWEEP_MAX_KEYS][DAM_SWEEP_VALUE_MAX]; /* each key's value */
    int ok;               /* 0: the point failed; error says why */
    char error[600];      /* "file:line: error: message" or a lever's error */
    double step;          /* s per step (per request when serving) */
    double throughput;    /* samples/s (requests/s serving), all GPUs */
    double run_time;      /* s, all epochs */
    double gpu_hours;     /* GPU-hours of the run */
    double cost_usd;      /* USD of the run (when priced) */
    int priced;           /* 1: the point's GPU has a price per GPU-hour;
                           * 0: cost_usd and cost_i mean nothing (the
                           * rows leave them empty, as "n/a") */
    double energy_kwh;    /* kWh of the run (with PUE) */
    int run_known;        /* 0: an LLM service solved analytically (a
                           * lone request): throughput, run, GPU-hours,
                           * cost and energy are unknown (empty, null) */
    dam_bound bound;      /* what binds */
    int fits;             /* 1: fits in GPU memory */
    int overloaded;       /* serving (not LLM): 1 when the rate reaches the
                           * capacity (result.h; step is then a lone
                           * request's); -1 otherwise */
    int has_interval;     /* 1: the intervals below are set */
    dam_interval step_i, run_time_i, cost_i; /* 90 % intervals */
} dam_sweep_row;

/* 1 when a sweep of sw's scenario has the overloaded column (serving,
 * not LLM). */
int dam_sweep_has_overload(const dam_sweep *sw);

/* The scenario keys that may be patched in place (NULL-terminated). */
const char *const *dam_sweep_patchable(void);

/* A fresh sweep with no keys (grid, scenario seed). Free with
 * dam_sweep_free. */
void dam_sweep_init(dam_sweep *sw);
/* Free what sw owns; sw may be reused after dam_sweep_init. */
void dam_sweep_free(dam_sweep *sw);

/*
 * Add a varied key from "KEY=V1,V2,..." or "KEY=LO:HI:N[:log]". A key with
 * a dot is a scenario key, otherwise a lever key. Returns DAM_OK or
 * DAM_EINPUT (err: a malformed argument, a repeated key, too many keys,
 * "catalogs." keys, a bad range, a lever value that does not parse).
 */
int dam_sweep_add(dam_sweep *sw, const char *arg, dam_error *err);

/* The most points one sweep takes: 1e9 rows of about DAM_SWEEP_ROW_BYTES
 * (a CSV row of the default columns) is 150 GB and hours of analytic
 * solves; beyond it a sample (--method random or lhs) answers the same
 * question. */
#define DAM_SWEEP_MAX_POINTS 1e9
#define DAM_SWEEP_ROW_BYTES 150.0

/*
 * Load the base scenario (path names it; text is its content) with cat
 * (merging the file's own catalogs into it), decide how each key reaches
 * a point, and number the points. After this, cat is only read. Returns
 * DAM_OK; DAM_EINPUT with the base file's problems in d, or a sweep that
 * cannot be drawn (no keys, samples with grid, too many points).
 */
int dam_sweep_prepare(dam_sweep *sw, const char *path, const char *text,
                      dam_catalog *cat, dam_diag *d);

/* What one worker keeps between points (scratch scenarios, the last
 * loaded combination). One per thread. */
typedef struct dam_sweep_worker dam_sweep_worker;

/* A worker for sw (which must outlive it). Never NULL. */
dam_sweep_worker *dam_sweep_worker_create(const dam_sweep *sw);
/* Free a worker; NULL is a no-op. */
void dam_sweep_worker_free(dam_sweep_worker *w);

/* What w's points cost (sweep --stats): graph costs worked out and
 * reused from its memo (a point with intervals counts its nominal
 * solve), and interval draws whose device cost was reused. */
typedef struct dam_sweep_counts {
    unsigned long long graph_costs, graph_reused, draws_reused;
} dam_sweep_counts;
/* Add w's counts so far to c. */
void dam_sweep_worker_counts(const dam_sweep_worker *w, dam_sweep_counts *c);

/* Keep each point's whole result (dam_sweep_worker_result), not only
 * what its row reads. */
void dam_sweep_worker_full(dam_sweep_worker *w);
/* The whole result of the last point w solved (after dam_sweep_eval set
 * row->ok = 1): the terms, phases and memory behind the row, for a
 * caller that shows more than a row (report --explore); w must have been
 * made full (dam_sweep_worker_full). Valid until w evaluates another
 * point. */
const dam_result *dam_sweep_worker_result(const dam_sweep_worker *w);

/* Solve the base scenario (the file as loaded, no key varied) the way a
 * point is solved, into row (values empty); its whole result is then
 * dam_sweep_worker_result(w). */
void dam_sweep_eval_base(dam_sweep_worker *w, dam_sweep_row *row);

/* Where point i lies: idx[k] is the index of key k's value in its
 * values, or -1 for a value drawn from a range (--samples), whose place in
 * the range is then u[k] in [0, 1) (in log space for a :log range). */
void dam_sweep_point_index(const dam_sweep *sw, uint64_t i, int *idx,
                           double *u);

/* The value of range key k at fraction u in [0, 1] of its range (in log
 * space for :log), as the rows write it, into out (DAM_SWEEP_VALUE_MAX
 * bytes). */
void dam_sweep_range_value(const dam_sweep_key *k, double u, char *out);

/* The values of point i (0 <= i < npoints) as text, into values. */
void dam_sweep_point(const dam_sweep *sw, uint64_t i,
                     char values[][DAM_SWEEP_VALUE_MAX]);

/* Solve point i into row. A point that does not load, whose lever fails or
 * whose simulation fails becomes a row with ok = 0 and its message; this
 * never fails otherwise. The row depends on (sw, i) only. */
void dam_sweep_eval(dam_sweep_worker *w, uint64_t i, dam_sweep_row *row);

#endif
