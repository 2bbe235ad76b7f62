/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * constants.h: the calibrated constants of the catalogs, by name, with
 * their uncertainty.
 *
 * A calibrated constant is a number in data/gpus.cfg or data/models.cfg
 * that was fitted to measurements rather than read from a datasheet (an
 * achieved fraction of peak, say). Each has a key, written
 *
 *     gpu/<GPU id>/<field>[/<precision>]        device model (device.h)
 *     framework/<name>/<field>[/<precision>]    a software stack (a
 *                                               scenario's
 *                                               workload.framework.name,
 *                                               "default" when unnamed)
 *     model/<model id>/<field>[/<precision>][@<GPU id>]
 *
 * ("gpu/A100-SXM4-80GB/gemm_frac/bf16": the A100's achieved fraction of its
 * bf16 peak on large GEMMs; "model/resnet50/efficiency/fp16@V100-SXM2-32GB":
 * ResNet-50's legacy efficiency override at fp16 on that GPU; without "@"
 * the model's default on every GPU that has no entry of its own), a value
 * (SI inside damsim; overlays write the catalog's display unit, e.g. us for
 * kernel_gap_us) and its uncertainty sd (one standard deviation, the same
 * units; 0 = none given): what a prediction should allow for when it uses
 * the value. A fit's sd combines the standard error of the fitted value
 * with the scatter of the fit's residuals (a new case deviates from the
 * fitted mean as the fitted cases did; calibrate.h); a value read from
 * several sources has their spread. In the catalog files it is the sibling
 * key "<key>_sd". The device and framework fields are the device model's
 * table (device.h dam_param_*), the model fields a table here:
 * `damsim calibrate` fits them (solver/calibrate.h), calibration overlays
 * set them (loader.h), and the default intervals draw them
 * (solver/uncertainty.h).
 *
 * A scenario holds copies of its catalog entries (scenario.h), so a
 * constant can be set on a scenario without its catalog: that is how the
 * fit and the interval draws move it, thousands of times, cheaply.
 * dam_scenario_constants lists the constants a scenario's answer depends
 * on, with the uncertainty each carries: its own sd when the catalog gives
 * one, else the default relative uncertainty of its field (measured by
 * leave-one-GPU-out cross-validation, tests/VALIDATION.md). A value the
 * scenario file sets itself (workload.efficiency) is the user's, not a
 * catalog constant, and is not listed.
 */
#ifndef DAM_CONSTANTS_H
#define DAM_CONSTANTS_H

#include <stddef.h>

#include "model/catalog.h"
#include "model/error.h"
#include "model/scenario.h"

/* Who holds a constant. */
typedef enum {
    DAM_CONST_GPU = 0,   /* a GPU entry's device constants (device.h) */
    DAM_CONST_MODEL,     /* a model entry (legacy efficiency overrides) */
    DAM_CONST_FRAMEWORK  /* the software stack, one for every GPU */
} dam_const_owner;

/* The name of one constant. */
typedef struct dam_const_key {
    dam_const_owner owner;
    char entry[DAM_ID_MAX];   /* the GPU's or the model's id, or the
                                 framework's name ("default" unnamed) */
    char field[32];           /* "efficiency", ... (the table's field) */
    int precision;            /* a dam_precision, or -1 when not per precision */
    char on_gpu[DAM_ID_MAX];  /* model constants: the GPU it is specific to,
                                 "" = the model's default */
} dam_const_key;

/* The longest key dam_const_key_format writes, with its terminator. */
#define DAM_CONST_KEY_MAX (2 * DAM_ID_MAX + 48)

/* Write k as its key string (see above) into buf (n bytes). */
void dam_const_key_format(const dam_const_key *k, char *buf, size_t n);

/* Parse a key string. Returns DAM_OK, or DAM_EINPUT with err's message
 * (file and line left empty for the caller) for an unknown owner or field,
 * a bad precision, a precision a field does not take or lacks, or an "@"
 * on a constant that is not per GPU. */
int dam_const_key_parse(const char *s, dam_const_key *k, dam_error *err);

/* 1 when a and b name the same constant. */
int dam_const_key_equal(const dam_const_key *a, const dam_const_key *b);

/* A field's description: its admissible range (SI), its display unit
 * ("" for a fraction) and the SI value of one display unit (1e-6 for us),
 * for messages, overlays and the fit's bounds. Any output may be NULL.
 * Returns 0 when the field is unknown. */
int dam_const_field_info(dam_const_owner owner, const char *field, double *lo,
                         double *hi, const char **unit, double *scale);

/* The value and sd of k in catalog c. Returns DAM_OK, or DAM_EINPUT (err's
 * message only) when the entry is unknown or the catalog has no value for
 * k (an efficiency never calibrated at that precision). */
int dam_catalog_const_get(const dam_catalog *c, const dam_const_key *k,
                          double *value, double *sd, dam_error *err);

/* Set k's value and sd in catalog c (a model's per-GPU entry is created
 * when missing). Returns DAM_OK, or DAM_EINPUT (err's message only) for an
 * unknown entry, a value outside the field's range, sd < 0, or no room
 * left for one more per-GPU entry. */
int dam_catalog_const_set(dam_catalog *c, const dam_const_key *k,
                          double value, double sd, dam_error *err);

/*
 * The default step_error (catalog.h dam_model_spec.step_error): the
 * relative error of the analytic GPU time that no constant explains, for
 * models never calibrated by `damsim calibrate`. 0.17 (1 sd, log scale):
 * the residual scatter of the fit to the 55 published throughputs of the
 * leave-one-GPU-out check (17.2 % over the rows less 9.5 effective
 * constants; tests/VALIDATION.md), the figure with which that check's
 * held-out 90 % intervals covered 82 % of the measurements.
 */
#define DAM_DEFAULT_STEP_ERROR 0.17

/* The step error of scenario s's model (its own, or the default). */
double dam_scenario_step_error(const dam_scenario *s);

/* Copy the framework constants an overlay set in catalog c (c->fw) into
 * scenario s's workload (the loader calls it before a scenario's own
 * launch_us and framework_overhead_ms). */
void dam_catalog_framework_apply(const dam_catalog *c, dam_scenario *s);

/* A constant a scenario uses. */
typedef struct dam_const_use {
    dam_const_key key;
    double value;     /* its value in the scenario */
    double sd;        /* its uncertainty (1 sd), same units: the catalog's,
                         or the field's default (see default_sd) */
    int default_sd;   /* 1 when sd is the field's default, not the catalog's */
    double lo, hi;    /* admissible range (draws and fits stay inside) */
} dam_const_use;

/* Most constants one scenario uses. */
#define DAM_MAX_CONST_USES 32

/* List the catalog constants s depends on into out (at most max); returns
 * their count. Constants the scenario overrides itself are left out. */
int dam_scenario_constants(const dam_scenario *s, dam_const_use *out,
                           int max);

/* Set constant k to v (and its sd, when sd >= 0) on scenario s, in the
 * copies it holds and in what follows from them (workload.efficiency, when
 * it came from the catalog). Returns 1 when s uses k (and was changed), 0
 * when not. */
int dam_scenario_const_set(dam_scenario *s, const dam_const_key *k, double v,
                           double sd);

/* Where dam_scenario_const_set writes a constant in one scenario: the
 * byte offsets of the value's copies and of its sd (doubles inside the
 * dam_scenario), so a caller that sets the same constant on the same
 * scenario many times (calibrate's fit) resolves its key once. The
 * offsets stay valid while the fields the key is matched on (GPU id,
 * precision, framework, model id and its per-GPU entries) do not
 * change. */
typedef struct dam_const_place {
    int nvalue;      /* copies of the value (1 or 2) */
    size_t value[2];
    int nsd;         /* 0 or 1 */
    size_t sd[1];
} dam_const_place;

/* Fill pl for constant k on s. Returns 1 when s uses k (the same test as
 * dam_scenario_const_set), 0 when not (pl then has no offsets). */
int dam_scenario_const_place(const dam_scenario *s, const dam_const_key *k,
                             dam_const_place *pl);
/* Write v (and sd, when sd >= 0) at pl's offsets of s: what
 * dam_scenario_const_set(s, k, v, sd) does for the k pl was filled for. */
void dam_const_place_write(dam_scenario *s, const dam_const_place *pl,
                           double v, double sd);

/* The default relative uncertainty of a field without its own sd, as a
 * fraction of the value. */
double dam_const_default_rel_sd(dam_const_owner owner, const char *field);

#endif
