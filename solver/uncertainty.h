/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * uncertainty.h: what uncertain inputs do to the answer.
 *
 * A scenario may give inputs as distributions (SCENARIO.md: efficiency
 * { dist = "uniform"; min = 0.35; max = 0.55; }). This module samples them
 * (Monte Carlo, one stream from the scenario's seed, so the same seed gives
 * the same intervals), solves each sample with the analytic solver, and
 * reports 90 % intervals (5th to 95th percentile) of the step, the run and
 * its cost, how often each term binds, and a tornado: the step with each
 * input at its 5th and 95th percentile and the others at their means,
 * sorted by swing, which says which assumption matters most. The analytic
 * solver is used because it is deterministic and cheap enough for hundreds
 * of samples; the simulated figures sit beside it in the report.
 *
 * Intervals by default. Beside the inputs a scenario gives as
 * distributions, every calibrated catalog constant its answer depends on
 * (model/constants.h: an efficiency, with the uncertainty of its fit or
 * the spread of its sources) is drawn too, so every answer has an interval
 * without the user writing a distribution. A constant is drawn lognormally
 * about its value with a relative spread of sd / value, kept inside its
 * range. Beside the constants, the model itself errs: a calibration's
 * residuals show how far the analytic GPU time misses measurements that
 * no constant explains (the model's step_error, constants.h). Each draw
 * scales the scenario's GPU work by a lognormal factor of median 1 and
 * log-sd step_error, so intervals are prediction intervals, not only the
 * uncertainty of fitted means.
 *
 * Paired draws. Draws are made by name (dam_draws): the k-th draw of a
 * quantity named "model/resnet50/efficiency/fp16" is the same number in
 * every scenario that uses it, so a baseline and an option, or two
 * scenarios compared, see the same constants in the same draw, and a ratio
 * between them carries only the uncertainty of what differs. Each name's
 * draws are a Latin hypercube column (one draw in each of n equal-
 * probability strata, in an order shuffled from the seed and the name), so
 * a few hundred draws give stable 5th and 95th percentiles, and the same
 * seed gives the same intervals.
 */
#ifndef DAM_UNCERTAINTY_H
#define DAM_UNCERTAINTY_H

#include "model/constants.h"
#include "model/error.h"
#include "solver/result.h"

/*
 * Serving under load. Queueing makes a loaded latency a steep, monotone
 * function of the service time, so its quantiles are not the lone
 * request's scaled: the deployment is simulated again in the two draws
 * whose lone-request time is at its 5th and 95th percentile (quantile
 * mapping through a monotone function), and each figure's interval is the
 * envelope of those two and the nominal simulation (the median draw),
 * widened by the 95 % CI half-width ci of the simulation's own estimate x:
 * the upper end up by ci, the lower end divided by 1 + ci / x (the same
 * share of itself: a latency's lower end stays above 0 when an overloaded
 * nominal run's CI is wider than a stable end draw's figure); a figure
 * that the lone request's time does not order (TTFT rides on the prefill,
 * the lone request's time on the decode) keeps its point inside.
 * The end draws run DAM_LOAD_DRAW_REPLICATIONS of the scenario's
 * replications (the first, with the same random numbers; an explicit
 * count in the solver's options still wins): the nominal run's CI carries
 * the random error. ok = 0: not computed.
 */
#define DAM_LOAD_DRAW_REPLICATIONS 1
typedef struct dam_load_interval {
    int ok;
    double p99[2];          /* p99 latency, s (lo, hi) */
    double ttft[2], tpot[2];/* LLM: at the SLO quantile, s */
    double throughput[2];   /* requests/s */
    int met[2];             /* the SLO(s) met in the fast and slow draw,
                               judged with the nominal run's CI */
    /* each end draw's own figures ([0] fast, [1] slow), s: those met[]
     * judges, before the envelope above takes them in */
    double draw_p99[2], draw_ttft[2], draw_tpot[2];
    double draw_step[2];    /* each end draw's mean latency (the figure a
                               serving speed-up compares), s */
} dam_load_interval;

/* A solver of one scenario (the what-if's and the CLI's). */
typedef int (*dam_solve_fn)(const dam_scenario *s, void *ctx,
                            struct dam_result *r, struct dam_error *err);

/* The headline figures of one solve, for carrying intervals. */
typedef struct dam_figures {
    double step;        /* s per step (per request when serving) */
    double run_time;    /* s */
    double throughput;  /* samples/s */
    double gpu_hours;
    double cost_usd;
} dam_figures;

/* The figures of r. */
dam_figures dam_figures_of(const dam_result *r);

/* A 90 % interval and the median of a quantity over the samples. */
typedef struct dam_interval {
    double lo;      /* 5th percentile */
    double median;  /* 50th percentile */
    double hi;      /* 95th percentile */
} dam_interval;

/* One input's swing. */
typedef struct dam_uncertainty_input {
    char key[DAM_CONST_KEY_MAX]; /* scenario key, or a constant's key */
    int constant;           /* 1: a calibrated catalog constant (kind is then
                               lognormal), 0: an input of the scenario */
    int default_sd;         /* constants: 1 when its spread is its field's
                               default, not its own */
    int step_error;         /* 1: the model's step error on the GPU's
                               work, 2: on the rest; 0: neither */
    dam_uncertain_kind kind;
    double scale;           /* SI per unit of the key, for display */
    double value_lo;        /* the input at its 5th percentile (SI) */
    double value_hi;        /* at its 95th percentile */
    double step_lo;         /* step with the input at value_lo, others at their means, s */
    double step_hi;         /* step with the input at value_hi, s */
    double swing;           /* |step_hi - step_lo|, s */
} dam_uncertainty_input;

typedef struct dam_uncertainty {
    int samples;                    /* Monte Carlo samples */
    dam_interval step;              /* s */
    dam_interval run_time;          /* s */
    dam_interval throughput;        /* samples/s */
    dam_interval cost_usd;          /* USD */
    dam_interval gpu_hours;         /* GPU-hours of the run */
    dam_figures nominal;            /* the analytic solution of s itself */
    int carried;                    /* 1 after dam_interval_carry_run: the
                                       intervals are of the simulated
                                       figures */
    dam_interval step_analytic;     /* with carried: step before the
                                       carry, of nominal.step (one LLM
                                       request alone) */
    dam_load_interval load;         /* serving under load (dam_load_interval_of) */
    double p_bound[DAM_BOUND_COUNT];/* share of samples in which each bound binds */
    int nconstants;                 /* calibrated constants drawn (the
                                       step error beside them) */
    int ninputs;                    /* entries in inputs */
    dam_uncertainty_input inputs[DAM_MAX_UNCERTAIN + DAM_MAX_CONST_USES + 2];
                                    /* largest swing first */
} dam_uncertainty;

/* The 90 % intervals of one answer over the draws (analytic solver), and
 * against a baseline solved on the same draws. Plain data for render/. */
typedef struct dam_answer_interval {
    int samples;            /* draws (0: no interval was computed) */
    dam_interval step;      /* s per step (per request when serving) */
    dam_interval run_time;  /* s, the whole run */
    dam_interval throughput;/* samples/s, all GPUs */
    dam_interval gpu_hours; /* GPU-hours of the run */
    dam_interval cost_usd;  /* USD of the run (per 1,000 requests when serving) */
    int has_speedup;        /* 1 when a baseline was given */
    dam_interval speedup;   /* baseline time / this time, draw by draw */
    double p_faster;        /* share of draws in which this is at least
                               DAM_FASTER_BY faster than the baseline */
    double p_slower;        /* share in which it is at least DAM_FASTER_BY
                               slower */
    dam_figures nominal;    /* the analytic solution of s itself (no draw) */
    int carried;            /* 1 after dam_interval_carry: the intervals are
                               of the simulated figures */
    dam_interval step_analytic; /* with carried: step before the carry, of
                                   nominal.step */
} dam_answer_interval;

/*
 * The interval of the number shown. The draws are solved analytically;
 * where the figure shown is simulated, each interval is carried to it:
 * every draw scaled by (simulated figure / analytic figure of the nominal
 * scenario), so the interval keeps the draws' relative spread and is of
 * the simulated quantity (the point is the nominal simulation; the
 * median moves with it). tests/unit/test_interval_sim.c checks this
 * against simulating the draws themselves. shown: the figures printed;
 * speedup_shown: the speed-up printed (0: none), speedup_nominal: the
 * analytic one of the nominal scenarios; t_base, t (n each, may be NULL):
 * the horizons per draw that dam_uncertainty_answer gave, to recount the
 * shares of draws faster and slower on the carried speed-ups.
 */
void dam_interval_carry(dam_answer_interval *a, const dam_figures *shown,
                        double speedup_shown, double speedup_nominal,
                        const double *t_base, const double *t, int n);
/* The same for a run's intervals. */
void dam_interval_carry_run(struct dam_uncertainty *u,
                            const dam_figures *shown);

/* "Faster" in a draw means a speed-up of at least 1 + DAM_FASTER_BY. */
#define DAM_FASTER_BY 0.02

/* Named, paired draws (see above). Owned by the caller: create, use for
 * every scenario of one question, free. */
typedef struct dam_draws dam_draws;

/* n draws (>= 10) from seed. Never NULL (allocation failure aborts). */
dam_draws *dam_draws_create(int n, unsigned long seed);
/* Free d; NULL is a no-op. */
void dam_draws_free(dam_draws *d);
/* The number of draws. */
int dam_draws_count(const dam_draws *d);
/* The probability (0, 1) of the quantity `name` in draw k of d. */
double dam_draws_u(dam_draws *d, const char *name, int k);
/*
 * x = s in draw k: each uncertain input of base at its draw (except those
 * whose value in s differs from base's: a lever set them) and each
 * calibrated constant s uses at its draw. x may be s. Returns the number
 * of quantities drawn.
 */
int dam_draws_apply(dam_draws *d, int k, const dam_scenario *base,
                    const dam_scenario *s, dam_scenario *x);

/* What dam_draws_solve_each calls on each draw: x is the scenario in
 * draw k, r its analytic result. */
typedef void (*dam_draw_solved_fn)(const dam_scenario *x,
                                   const dam_result *r, int k, void *ctx);

/*
 * Every draw of s solved in turn: x as dam_draws_apply(d, k, base, s, x)
 * leaves it (the same doubles), r as dam_analytic_solve(x, r) leaves it
 * (the phases' flops and bytes aside: they may be 0), then
 * fn(x, r, k, ctx), for k = 0 .. count - 1. A draw is a few stores from
 * the draw plan (worked out once, and reused while the next scenario
 * draws the same quantities) where the plan applies, else
 * dam_draws_apply; the operator graph is costed for DAM_COST_LANES draws
 * at once where the cost plan covers it. x is scratch, neither s nor
 * base.
 */
void dam_draws_solve_each(dam_draws *d, const dam_scenario *base,
                          const dam_scenario *s, dam_scenario *x,
                          dam_result *r, dam_draw_solved_fn fn, void *ctx);

/* dam_draws_apply, and the model's error on everything else a step is
 * made of: the loader's decode, storage, the host link, the collectives
 * and the host overheads, scaled by a lognormal of median 1 and log-sd the
 * step error, drawn by model name only, so options that differ in the GPU
 * share it (a faster GPU does not change how wrong the loader model is).
 * Every predicted step then carries the model's error, whatever binds.
 * The answers' intervals are drawn with it; calibration uses
 * dam_draws_apply (its rows are GPU times). Returns the number drawn. */
int dam_draws_apply_all(dam_draws *d, int k, const dam_scenario *base,
                        const dam_scenario *s, dam_scenario *x);

/* The number of quantities a scenario's draws move: its uncertain inputs
 * and the calibrated constants it uses. 0 = its answer has no interval. */
int dam_uncertainty_sources(const dam_scenario *s);

/*
 * Solve s (analytically) in every draw of d and fill a. base: the
 * scenario whose inputs define the draws (s itself, or the baseline s was
 * made from by levers). t_base (may be NULL): the baseline's time in each
 * draw, for the speed-up; t_out (may be NULL, dam_draws_count entries):
 * this scenario's time in each draw (run time; request latency when
 * serving).
 */
void dam_uncertainty_answer(dam_draws *d, const dam_scenario *base,
                            const dam_scenario *s, const double *t_base,
                            double *t_out, dam_answer_interval *a);

/*
 * The load interval of a simulated service s (nominal: its nominal
 * result) over the draws of d, with base as in dam_uncertainty_answer;
 * t: s's lone-request time in each draw (dam_uncertainty_answer's t_out),
 * n of them. Returns DAM_OK (out->ok = 1) or the solver's error.
 */
int dam_load_interval_of(dam_draws *d, const dam_scenario *base,
                         const dam_scenario *s, const dam_result *nominal,
                         const double *t, int n, dam_solve_fn solve,
                         void *ctx, dam_load_interval *out);

/* Index of the draw at quantile q of t (n entries): the (q (n - 1))-th
 * smallest, ties by index. */
int dam_draw_at(const double *t, int n, double q);

/* s's time (a request's latency when serving, else the run) in each draw
 * of d, as dam_uncertainty_answer's t_out: dam_draws_count entries, the
 * caller frees them (dam_free). */
double *dam_draws_times(dam_draws *d, const dam_scenario *s);

/* Default number of Monte Carlo samples. */
#define DAM_UNCERTAINTY_SAMPLES 400

/* A copy of s with every uncertain input set to its q[i] quantile, except
 * inputs whose value in s differs from base's (a lever set them). */
void dam_uncertainty_apply(const dam_scenario *base, const dam_scenario *s,
                           const double *q, dam_scenario *out);

/*
 * Sample the uncertain inputs and calibrated constants of s `samples`
 * times (seeded from seed) and fill u. Returns DAM_OK, or DAM_EINPUT when
 * s has neither (dam_uncertainty_sources is 0) or samples < 10.
 */
int dam_uncertainty_run(const dam_scenario *s, int samples,
                        unsigned long seed, dam_uncertainty *u,
                        dam_error *err);

/*
 * The intervals of dam_uncertainty_run (step, run time, throughput, cost,
 * GPU-hours, the nominal figures and how often each bound binds) over the
 * draws of d, without the tornado: the same numbers as
 * dam_uncertainty_run(s, dam_draws_count(d), seed of d). A d kept across
 * scenarios (a sweep's points) keeps its columns and its draw plan: what
 * each draw sets is worked out once while the scenarios draw the same
 * quantities. Returns DAM_OK, or DAM_EINPUT when s has nothing uncertain
 * or an interval is not finite.
 */
int dam_uncertainty_intervals(dam_draws *d, const dam_scenario *s,
                              dam_uncertainty *u, dam_error *err);
/* The same with s's analytic result given (dam_analytic_solve(s) or a
 * memo's, which the caller has solved): u's nominal figures are its, not
 * solved again. */
int dam_uncertainty_intervals_given(dam_draws *d, const dam_scenario *s,
                                    const dam_result *nominal,
                                    dam_uncertainty *u, dam_error *err);

/* Keep each draw's device cost of the operator graph in d from one
 * dam_uncertainty_intervals to the next, reused while a scenario's graph,
 * batch, GPU and framework in that draw are the previous one's (a sweep's
 * points that vary the loader, the storage or the price): the same
 * numbers, fewer graph costs. About 2 kB a draw. */
void dam_draws_memoize(dam_draws *d);
/* Solves of d that reused a kept graph cost (0 without memoize). */
unsigned long dam_draws_memo_hits(const dam_draws *d);

/* How often d worked out a draw plan and how often it reused one (for
 * the benchmarks: a reuse skips the per-scenario set-up, not a solve). */
void dam_draws_plan_counts(const dam_draws *d, long *builds, long *reuses);

/* Interval of n values (reordered in place). */
dam_interval dam_interval_of(double *v, int n);

#endif
