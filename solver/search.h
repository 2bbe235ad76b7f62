/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.h: `damsim plan --search`: enumerate the parallel layouts of a
 * training scenario's model on one or more GPU kinds, keep those that fit
 * in memory, and rank them by step time and by cost (issue 12 item 5).
 *
 * Candidates. For each GPU kind and GPU count: tp x cp x pp x dp = GPUs;
 * tp a power of two dividing the heads (and the FFN and KV heads the way
 * layouts need) up to the NVLink domain; cp in 1, 2, 4, 8 for sequences of
 * 8 K tokens and more (fused attention); pp dividing the blocks up to 64;
 * ep dividing the experts and dp x cp (MoE); vpp 1, 2, 4 (interleaved,
 * when the blocks and micro-batches allow); micro-batch 1, 2, 4, 8
 * dividing the per-replica batch; recomputation none, selective, full;
 * ZeRO 0 to 3; sequence parallelism whenever tp > 1. The global batch is
 * the scenario's (a training choice, not a layout one).
 *
 * Cost. Every candidate is costed analytically (solver/parallel.h): the
 * block's operator graph at its (tp, cp, ep, micro-batch, recomputation)
 * is costed once and reused by every pp, vpp, dp and ZeRO choice, so a
 * candidate costs the network's collectives, the memory count and the
 * schedule's formula: microseconds. Memory decides: a candidate whose
 * worst stage needs more than the GPU holds is kept in the list (with
 * the bytes it misses) but never ranked.
 *
 * GPU count. Fixed (the scenario's, or opts.gpus), or with a deadline the
 * smallest count whose best fitting layout finishes in time: node counts
 * 1, 2, 3, 4, 6, 8, 12, ... until one does, then eighths of the last gap
 * (a count the model and the global batch do not divide has no layout);
 * or with a budget the fastest layout whose run costs at most it.
 */
#ifndef DAM_SEARCH_H
#define DAM_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "model/catalog.h"
#include "model/error.h"
#include "model/scenario.h"
#include "solver/result.h"
#include "solver/uncertainty.h"

/* One candidate, costed. */
typedef struct dam_search_cand {
    int kind;            /* index into the result's GPU kinds */
    int64_t gpus;        /* total GPUs */
    dam_layout l;        /* the layout (its degrees, micro-batches, ...) */
    int fits;            /* 1 when the worst stage fits in memory */
    double memory;       /* bytes the worst stage needs */
    double shortfall;    /* bytes it misses (0 when it fits) */
    double step;         /* analytic step, s */
    double terms[DAM_TERM_COUNT]; /* its terms, s */
    double run_time;     /* s, the scenario's run */
    double gpu_hours;
    double cost;         /* USD (0 when the price is unknown) */
    double mfu;          /* model FLOPs utilisation */
    int has_interval;    /* 1: the 90 % intervals below are set (the
                            fastest and cheapest listed per kind) */
    dam_interval step_iv, run_iv, cost_iv; /* over the calibrated constants
                            and the model's error (uncertainty.h) */
} dam_search_cand;

/* How to search. Zero-initialise, then set. */
typedef struct dam_search_opts {
    const char *kinds[16]; /* GPU ids; none = the scenario's GPU */
    int nkinds;
    int64_t gpus;          /* GPU count (0 = the scenario's) */
    double deadline;       /* > 0: the fewest GPUs finishing by it, s */
    double budget;         /* > 0: the fastest run costing at most this,
                            * in units of budget_kind */
    int budget_gpu_hours;  /* 1: budget is GPU-hours, 0: USD */
    int keep_all;          /* 1: keep every candidate (JSON, CSV) */
    int intervals;         /* 1: 90 % intervals for the layouts listed */
} dam_search_opts;

/* Per GPU kind: what the search found. */
typedef struct dam_search_kind {
    char gpu[DAM_ID_MAX];  /* catalog id */
    int64_t gpus;          /* the count searched (deadline: the one found;
                            * 0 when none meets the deadline) */
    double price;          /* USD per GPU-hour used (0 = unknown) */
    size_t evaluated;      /* candidates costed for it */
    size_t fitting;        /* of them, fitting in memory */
    int nbest;             /* entries in best (fitting, fastest first) */
    dam_search_cand best[8];
    int ncheap;            /* fitting, cheapest first */
    dam_search_cand cheap[8];
    int have_alt;          /* 1: alt is set */
    dam_search_cand alt;   /* the fastest fitting layout of another shape
                            * (tp, pp) than the winner */
    int64_t base_gpus;     /* deadline: the scenario's count, and */
    int have_base;         /* 1: a layout fits at it, */
    dam_search_cand base;  /* the fastest there (does it make the deadline?) */
    int have_own;          /* 1: the scenario's own layout at this count */
    dam_search_cand own;   /* it, costed the same way */
} dam_search_kind;

typedef struct dam_search_result {
    int nkinds;
    dam_search_kind kind[16];
    dam_search_cand *all;  /* every candidate when keep_all (caller frees
                            * with dam_search_free) */
    size_t nall, capall;
    size_t evaluated;      /* all kinds */
} dam_search_result;

/*
 * Search layouts for scenario s (training, with a transformer model) on
 * the GPU kinds of o (from cat). Returns DAM_OK, or DAM_EINPUT with e
 * filled (wrong mode, no architecture, unknown GPU, a GPU without the
 * scenario's precision).
 */
int dam_search_run(const dam_scenario *s, const dam_catalog *cat,
                   const dam_search_opts *o, dam_search_result *out,
                   dam_error *e);

/* Free the candidate list. NULL-safe. */
void dam_search_free(dam_search_result *r);

/* The term by which candidate a beats b most (a dam_term), and how much,
 * s per step (*saves). */
int dam_search_why(const dam_search_cand *a, const dam_search_cand *b,
                   double *saves);

#endif
