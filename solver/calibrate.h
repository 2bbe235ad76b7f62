/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * calibrate.h: catalog constants fitted to measurements (`damsim
 * calibrate`), and leave-one-GPU-out cross-validation of the fit.
 *
 * A measurements file (model/measure.h) names scenarios, levers and
 * measured step times, throughputs or profiler traces. Each row's scenario
 * is loaded and its levers applied once; the constants to fit are the
 * calibrated catalog constants (model/constants.h) those scenarios use
 * (all of them, or those whose key starts with one of the options' fit
 * prefixes). The fit (solver/fit.h) minimises the sum over rows of
 *
 *     ( ln(predicted / measured) / rel_error )^2
 *
 * with the analytic solver's prediction: relative errors, so a 2 % miss
 * weighs the same on a 10 ms and a 10 s step. A constant that carries an
 * uncertainty in the catalog (its sd, from microbenchmarks, sources or an
 * earlier fit) adds the prior term ((x - x_catalog) / sd)^2: the fit
 * updates what the catalog knows rather than forgetting it, so a few
 * measurements move many constants only as far as they are informative,
 * and a constant no measurement moves keeps its catalog value
 * (undetermined, not fitted). A trace row contributes one
 * residual per operator class the trace and the model both have (GEMM,
 * attention, elementwise, optimizer, copies, NCCL: the GPU time per step
 * of that class, profile.h) and one for the step itself.
 *
 * Each fitted constant gets its standard error (the covariance scaled by
 * the residual variance, fit.h), which becomes its sd for predictions.
 * What the constants leave unexplained, the scatter of each model's
 * residuals, becomes that model's step error (constants.h): a new case
 * misses the fitted prediction by as much as the fitted cases did, so
 * prediction intervals carry both (uncertainty.h). Constants the
 * measurements cannot move keep their catalog values and are reported as
 * undetermined.
 *
 * Every prediction carries a 90 % interval: the 5th to 95th percentile of
 * the prediction over paired draws of the constants it uses
 * (uncertainty.h), with the fitted sds. Rows on a held-out GPU are not
 * fitted; they are predicted from the constants fitted on the other rows
 * (cross-validation). Nothing here prints; results are plain data.
 */
#ifndef DAM_CALIBRATE_H
#define DAM_CALIBRATE_H

#include "model/catalog.h"
#include "model/constants.h"
#include "model/error.h"
#include "model/measure.h"
#include "model/profile.h"
#include "model/scenario.h"
#include "solver/fit.h"
#include "solver/result.h"
#include "solver/uncertainty.h"

/* One fitted (or undetermined) constant. */
typedef struct dam_calib_const {
    dam_const_key key;
    char name[DAM_CONST_KEY_MAX]; /* the key as text */
    double start;         /* the catalog's value before the fit */
    double start_sd;      /* its uncertainty before the fit (1 sd) */
    double value;         /* fitted value (start when undetermined) */
    double se;            /* standard error of value (0 when undetermined) */
    double sd;            /* uncertainty for predictions: se (start_sd when
                             undetermined) */
    double lo, hi;        /* the field's range */
    int undetermined;     /* 1: no fitted measurement depends on it (kept
                             at start, sd = start_sd) */
    int nrows;            /* fitted residuals that depend on it */
} dam_calib_const;

/* What a residual compares. */
typedef enum {
    DAM_CALIB_STEP = 0,   /* step time, s */
    DAM_CALIB_THROUGHPUT, /* samples/s, all GPUs */
    DAM_CALIB_CLASS       /* GPU time per step of one operator class, s */
} dam_calib_quantity;

/* One compared quantity: a row of the file, or one class of a trace row. */
typedef struct dam_calib_row {
    char id[160];         /* the row's id (a trace's classes: "id:gemm") */
    int line;             /* line in the measurements file */
    char gpu[DAM_ID_MAX]; /* the GPU it ran on (after its levers) */
    char model[DAM_ID_MAX];
    char scenario[512];   /* the scenario file (groups speed-up ratios) */
    int gpus;             /* GPUs it ran on */
    int precision;        /* a dam_precision */
    dam_calib_quantity quantity;
    dam_kernel_class cls; /* DAM_CALIB_CLASS: which class */
    double measured;      /* SI: s, or samples/s */
    double rel_error;     /* the measurement's relative standard error */
    double start;         /* predicted with the catalog's constants */
    double predicted;     /* with the fitted constants */
    double error;         /* predicted / measured - 1 */
    int held_out;         /* 1: predicted only, not fitted */
    dam_interval interval;/* 90 % interval of predicted (paired draws) */
    int covered;          /* 1 when measured lies inside interval */
} dam_calib_row;

/* A model's unexplained scatter after the fit. */
typedef struct dam_calib_model {
    char model[DAM_ID_MAX]; /* model id */
    int rows;               /* fitted residuals of it */
    double ss;              /* their sum of squared log residuals */
    double step_error;      /* its step error (constants.h): the relative
                               sd its predictions carry beside the
                               constants' */
} dam_calib_model;

/* The result of one calibration. Owns its arrays: dam_calibration_free. */
typedef struct dam_calibration {
    char measurements[256];   /* the measurements file */
    int nconst;
    dam_calib_const *consts;  /* in the order first used */
    int nrows;
    dam_calib_row *rows;      /* file order; a trace's classes together */
    int nfitted;              /* rows fitted (not held out) */
    dam_fit_report fit;       /* the solver's report */
    double residual_sd;       /* relative scatter of the fitted rows:
                                 sqrt(sum ln(pred/meas)^2 / (rows - p_eff)),
                                 0 when rows - p_eff < 0.5 */
    double p_eff;             /* effective number of fitted constants:
                                 tr((J^T J + L)^-1 J^T J), priors L; each
                                 counts 0 (its prior holds) to 1 (the data
                                 pin it) */
    double rms_start;         /* rms relative error of the fitted rows with
                                 the catalog's constants */
    double rms_fit;           /* ... with the fitted constants */
    char hold_out_gpu[DAM_ID_MAX]; /* the GPU held out ("" = none) */
    int samples;              /* draws behind each interval */
    int traces;               /* trace rows read */
    dam_profile *profiles;    /* one per trace row, in file order */
    double *draws;            /* nrows x samples: each row's prediction in
                                 each draw (row-major), for paired ratios */
    int nmodels;
    dam_calib_model *models;  /* step errors, one per model fitted on */
} dam_calibration;

/* Options. Zero-initialised options fit every constant, hold nothing out
 * and use DAM_UNCERTAINTY_SAMPLES draws with seed 1. */
typedef struct dam_calib_options {
    const char *fit[16];      /* key prefixes of the constants to fit */
    int nfit;                 /* 0 = every constant the rows use */
    const char *hold_out_gpu; /* rows on this GPU are predicted, not fitted */
    int samples;              /* draws for intervals (0 = default) */
    unsigned long seed;       /* of the draws (0 = 1) */
    int neutral_priors;       /* framework conv_frac and elementwise_frac
                                 (whose catalog values were fitted on
                                 measured throughputs) start from 1 +- 0.5,
                                 the device's own rate, not from the
                                 catalog: the folds of dam_calibrate_crossval
                                 always do */
    double resident_bytes;    /* scenarios kept whole, at most, bytes (0 =
                                 16 MiB; < 0: none); past it a case keeps
                                 what its levers changed and is rebuilt
                                 when solved: the same bytes, less memory */
} dam_calib_options;

/*
 * Load every row's scenario (GPU and model ids resolve against cat, which
 * a scenario's catalogs group may extend) and trace, fit, predict. Returns
 * DAM_OK; DAM_EINPUT with d filled for a row whose scenario, levers or
 * trace do not load (each message names the measurements file and line),
 * no constant to fit, or more constants than residuals; DAM_ERUNTIME when
 * the solver fails. out is filled on DAM_OK only.
 */
int dam_calibrate_run(const dam_measure_set *set, dam_catalog *cat,
                      const dam_calib_options *opt, dam_calibration *out,
                      dam_diag *d);

/* Free what dam_calibrate_run allocated; NULL is a no-op. */
void dam_calibration_free(dam_calibration *c);

/* A speed-up between two GPUs on one workload (one scenario file). */
typedef struct dam_crossval_ratio {
    char gpu[DAM_ID_MAX];     /* the held-out GPU */
    char other[DAM_ID_MAX];   /* a GPU the constants were fitted on */
    char id[160];             /* the held-out row's id */
    double measured;          /* measured speed-up of gpu over other */
    double predicted;         /* predicted (fitted constants, both rows) */
    double error;             /* predicted / measured - 1 */
    dam_interval interval;    /* 90 % interval over paired draws */
    int covered;              /* measured inside interval */
} dam_crossval_ratio;

/* One fold: a GPU held out. */
typedef struct dam_crossval_fold {
    char gpu[DAM_ID_MAX];
    int nrows;                /* its rows, predicted */
    int nratios;              /* its speed-ups against the other GPUs */
    double median_abs_error;  /* of its rows' predictions */
    double coverage;          /* share of its rows inside their interval */
    double median_abs_ratio_error;
    double ratio_coverage;
    int nconst;               /* constants fitted without it */
    double residual_sd;       /* the fold's fit scatter */
} dam_crossval_fold;

/* Leave-one-GPU-out cross-validation. Owns its arrays. */
typedef struct dam_crossval {
    int nfolds;
    dam_crossval_fold *folds; /* one per GPU with rows, in first-seen order */
    int nrows;
    dam_calib_row *rows;      /* every held-out prediction, fold by fold */
    int nratios;
    dam_crossval_ratio *ratios;
    double median_abs_error;  /* over rows: |predicted / measured - 1| */
    double coverage;          /* share of rows inside their 90 % interval */
    double median_abs_ratio_error; /* over ratios */
    double ratio_coverage;
    int samples;              /* draws per interval */
} dam_crossval;

/*
 * For every GPU among the rows (trace rows are left out: they measure one
 * GPU's own kernels), fit on the rows of every other GPU and predict its
 * rows, and its speed-up over each other GPU on the same scenario file.
 * Same inputs and errors as dam_calibrate_run (opt->hold_out_gpu is
 * ignored); a fold whose fit has nothing to fit is skipped. Fills out on
 * DAM_OK; free with dam_crossval_free.
 */
int dam_calibrate_crossval(const dam_measure_set *set, dam_catalog *cat,
                           const dam_calib_options *opt, dam_crossval *out,
                           dam_diag *d);

/* Free what dam_calibrate_crossval allocated; NULL is a no-op. */
void dam_crossval_free(dam_crossval *x);

/* Write the fitted constants (value and sd) into catalog c, so later
 * scenarios use them: what loading the calibration overlay does. */
int dam_calibration_apply(const dam_calibration *cal, dam_catalog *c,
                          dam_error *err);

/* The analytic GPU time per step of each operator class (profile.h) in
 * result r of scenario s: matmul phases, attention phases, the other
 * phases, the optimizer, the host-to-device copy and the all-reduce. */
void dam_calibrate_class_times(const dam_scenario *s, const dam_result *r,
                               double t[DAM_KCLASS_COUNT]);

/*
 * The eta in [1e-4, 1] for which dam_analytic_solve(s with that eta) gives
 * `throughput` samples/s (all GPUs). Brent's method (gsl_root_fsolver_brent)
 * to a relative tolerance of 1e-9. Returns DAM_OK, or DAM_EINPUT when no eta
 * in the range reaches the throughput (the measurement is faster than the
 * model allows at eta = 1, or the step does not depend on eta).
 */
int dam_calibrate_eta(const dam_scenario *s, double throughput, double *eta,
                      dam_error *err);

#endif
