/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * whatif.h: a scenario, each lever alone, and combinations, solved and
 * compared.
 *
 * For every option it records the step, epoch and run time, the speed-up
 * over the baseline, the cost (GPU-hours, dollars, kWh), the quality
 * change, the return on compute, the binding term before and after, the
 * attribution of the time saved to each iron-law term, and a verdict:
 * "works" when the option shortens the run by moving the baseline's
 * binding term (or buys quality at no extra cost), "wasted" when it moves
 * terms that do not bind (with the reference texts' anti-pattern), "hurts"
 * when it makes the run slower, "failed" when the lever cannot apply (its
 * error is kept). For serving, the time is a request's latency and the
 * service level objective decides: a lever that speeds requests up but
 * leaves p99 above the SLO is "short", one that brings p99 under it works.
 * An option whose memory exceeds the GPU's is "no fit" whatever its speed
 * (the row says how much it needs and by how much it misses): it is never
 * "works", never combined, never on the frontier, never the best.
 * The cost of a serving option is per 1,000 requests. The caller chooses the solver (analytic or simulated).
 */
#ifndef DAM_WHATIF_H
#define DAM_WHATIF_H

#include "model/catalog.h"
#include "model/quality.h"
#include "solver/diagnose.h"
#include "solver/uncertainty.h"

typedef enum {
    DAM_VERDICT_BASELINE = 0,
    DAM_VERDICT_WORKS,
    DAM_VERDICT_WASTED,
    DAM_VERDICT_HURTS,
    DAM_VERDICT_FAILED,
    DAM_VERDICT_SHORT,    /* serving: faster, but the SLO is still missed */
    DAM_VERDICT_NOFIT     /* its memory exceeds the GPU's: not an option */
} dam_verdict;

const char *dam_verdict_name(dam_verdict v);

#define DAM_WHATIF_MAX (DAM_MAX_LEVERS + 4)

/* One option: the baseline, one lever, or a combination. */
typedef struct dam_whatif_row {
    char name[128];             /* "baseline", a lever's name, "a + b" */
    dam_lever_kind kind;        /* first op's kind (levers), for advice */
    int is_combination;         /* 1 for a combination of levers */
    dam_scenario scenario;      /* the scenario after the lever(s) */
    dam_result result;          /* its solution */
    dam_diagnosis diagnosis;    /* and diagnosis */
    double speedup;             /* baseline run time / this run time */
    double step_change;         /* (step - baseline step) / baseline step */
    double run_change;          /* (run - baseline run) / baseline run */
    dam_quality_cost cost;      /* of the whole run */
    double quality;             /* quality after the lever(s) */
    double quality_gain;        /* positive = better, in the metric's units */
    int quality_unknown;        /* 1 when a lever's quality effect is unknown */
    double roc;                 /* quality gain per unit of extra cost (0 if no cost change) */
    int roc_defined;            /* 1 when the cost changed, so RoC is defined */
    double saved[DAM_TERM_COUNT]; /* baseline term - this term, s per step */
    dam_verdict verdict;
    char why[640];              /* the verdict in a sentence, with numbers */
    char anti_pattern[DAM_DIAG_TEXT]; /* for wasted levers: the trap's name */
    char error[1024];           /* for failed levers: the message */
    /* Over the scenario's uncertain inputs and the calibrated constants
     * (uncertainty.h; analytic, paired draws: the same draw of a constant
     * for every option): the 90 % intervals of the step, run, GPU-hours,
     * cost and speed-up, and the share of draws in which the option is at
     * least 2 % faster. has_interval = 0 when nothing is uncertain. The
     * three fields below repeat interval.speedup and interval.p_faster. */
    int has_interval;
    dam_answer_interval interval;
    double speedup_lo, speedup_hi;
    double p_faster;
    /* A simulated service under load at the two ends of the constants'
     * 90 % range: the row simulated again in the draw whose lone request
     * is at its 5th percentile ([0], fast) and in the one at its 95th
     * ([1], slow). has_load = 0 when not computed (not a simulated
     * service, or nothing uncertain). load: the 90 % intervals (lo, hi)
     * of the p99 latency (LLM: TTFT and TPOT at the SLO quantile), the
     * envelope of the two draws and the row's own figure widened by its
     * CI; each draw's own figures (draw_*); met: the SLO (LLM: both) met
     * in that draw with the headroom of the row's CI (dam_load_interval).
     */
    int has_load;
    dam_load_interval load;
    /* 1: speedup_lo/hi are the speed-ups of the mean latency under load
     * in the two end draws (LLM serving; p_faster is then not known) */
    int speedup_under_load;
} dam_whatif_row;

typedef struct dam_whatif {
    dam_lever_list levers;               /* every lever asked about: the
                                            scenario's, then the extra ones
                                            (rows name theirs, no copies) */
    int nrows;
    dam_whatif_row rows[DAM_WHATIF_MAX]; /* rows[0] is the baseline */
    dam_quality_measure measure;         /* cost measure of RoC */
    /* The cost-quality frontier (options no other beats on both), in
     * increasing cost, and the marginal return on compute between
     * successive options on it: quality gained per unit of measure. */
    int nfrontier;
    int frontier[DAM_WHATIF_MAX];        /* row indices */
    double marginal[DAM_WHATIF_MAX];     /* marginal[i]: frontier i -> i+1 */
} dam_whatif;

/* How to solve one scenario: fills r from s; DAM_OK or an error code. */
typedef int (*dam_whatif_solver)(const dam_scenario *s, void *ctx,
                                 dam_result *r, dam_error *err);

typedef struct dam_whatif_options {
    const dam_lever_list *levers; /* the scenario file's levers (loader.h
                                     dam_load_options.levers), may be NULL */
    dam_whatif_solver solve;    /* NULL: the analytic solver */
    void *solve_ctx;            /* passed to solve */
    dam_quality_measure measure;/* cost measure for RoC */
    const char *combine[DAM_MAX_LEVERS]; /* lever names to combine, in order */
    int ncombine;               /* 0: combine every lever that works (if >= 2) */
    int uncertainty_samples;    /* draws over uncertain inputs and calibrated
                                   constants (0: none) */
} dam_whatif_options;

/*
 * Solve base, each of opt->levers plus extra (may be NULL / 0) alone, and the
 * combination. Fills w (large: allocate it). Returns DAM_OK, or DAM_EINPUT
 * when a --combine name is unknown or the baseline cannot be solved (err
 * filled). A lever that fails to apply is a "failed" row, not an error.
 */
int dam_whatif_run(const dam_scenario *base, const dam_lever *extra,
                   int nextra, const dam_catalog *cat,
                   const dam_whatif_options *opt, dam_whatif *w,
                   dam_error *err);

/* The recommendation rule: the option the answer recommends, the fastest
 * of those that work (so it fits in memory) with a known quality effect;
 * NULL when none works. */
const dam_whatif_row *dam_whatif_best(const dam_whatif *w);
/* The fastest option that works but changes quality by an unknown amount
 * (so it is never the best); NULL when none. */
const dam_whatif_row *dam_whatif_best_unproven(const dam_whatif *w);


#endif
