/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * calibrate.c (render): text, JSON and the overlay file of a calibration,
 * and the cross-validation table (see calibrate.h). Numbers in the overlay
 * are written with 10 significant digits, enough to reproduce the fit's
 * predictions to 1e-9, and never NaN or infinite (the solver keeps them
 * finite; a non-finite one would be written as 0).
 */
#include "render/page/calibrate_page.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/out/json.h"
#include "render/out/fmt.h"

#define NUM(o, k, v) json_object_set_new(o, k, dam_json_num(v))
#define INT(o, k, v) json_object_set_new(o, k, json_integer(v))
#define STR(o, k, v) json_object_set_new(o, k, json_string(v))

static const char *quantity_name(const dam_calib_row *r)
{
    static const char *const cls[DAM_KCLASS_COUNT] = {
        "trace gemm", "trace attention", "trace elementwise",
        "trace optimizer", "trace copy", "trace nccl"};
    if (r->quantity == DAM_CALIB_STEP)
        return "step_time";
    if (r->quantity == DAM_CALIB_THROUGHPUT)
        return "throughput";
    return (unsigned)r->cls < DAM_KCLASS_COUNT ? cls[r->cls] : "trace";
}

/* A measured or predicted quantity with its unit. */
static void fmt_q(char *buf, size_t n, const dam_calib_row *r, double v)
{
    if (r->quantity == DAM_CALIB_THROUGHPUT)
        dam_fmt_si(buf, n, v, "/s");
    else
        dam_fmt_time(buf, n, v);
}

static double finite(double v)
{
    return isfinite(v) ? v : 0.0;
}

void dam_text_calibration(dam_buf *b, const dam_calibration *c)
{
    const dam_fit_report *f = &c->fit;
    dam_buf_printf(b, "Calibration of %d constant%s to %d measured "
                      "quantit%s (%s)\n",
                   f->np, f->np == 1 ? "" : "s", c->nfitted,
                   c->nfitted == 1 ? "y" : "ies", c->measurements);
    if (c->hold_out_gpu[0])
        dam_buf_printf(b, "  rows on %s held out: predicted, not fitted\n",
                       c->hold_out_gpu);
    dam_buf_printf(b, "  fit: gsl_multifit_nlinear (trust region, "
                      "Levenberg-Marquardt), %d iteration%s, %s%s\n",
                   f->iterations, f->iterations == 1 ? "" : "s", f->stop,
                   f->converged ? "" : " (NOT converged)");
    dam_buf_printf(b, "  chi^2 %.4g on %d degree%s of freedom (start %.4g); "
                      "residual scatter %.2f %% (%d rows less %.1f "
                      "effective constants)\n",
                   f->chi2, f->dof, f->dof == 1 ? "" : "s", f->chi2_start,
                   c->residual_sd * 100.0, c->nfitted, c->p_eff);
    dam_buf_printf(b, "  rms error %.2f %% with the catalog's constants, "
                      "%.2f %% fitted (fit residuals: in sample)\n",
                   c->rms_start * 100.0, c->rms_fit * 100.0);
    dam_buf_printf(b, "\n%-46s %10s %9s %10s %9s %9s %5s\n", "constant",
                   "catalog", "sd", "fitted", "std err", "sd", "rows");
    for (int j = 0; j < c->nconst; j++) {
        const dam_calib_const *k = &c->consts[j];
        const char *unit = "";
        double sc = 1.0;
        dam_const_field_info(k->key.owner, k->key.field, NULL, NULL, &unit,
                             &sc);
        if (k->undetermined)
            dam_buf_printf(b, "%-46s %10.4g %9.3g %10s %9s %9s %5d  "
                              "%s%snot moved by these measurements\n",
                           k->name, k->start / sc, k->start_sd / sc, "-",
                           "-", "-", k->nrows, unit, unit[0] ? "; " : "");
        else
            dam_buf_printf(b, "%-46s %10.4g %9.3g %10.4g %9.3g %9.3g %5d  "
                              "%s\n",
                           k->name, k->start / sc, k->start_sd / sc,
                           k->value / sc, k->se / sc, k->sd / sc, k->nrows,
                           unit);
    }
    dam_buf_printf(b, "  std err: from the fit's covariance (scaled by the "
                      "residual variance), with the catalog's value and sd\n"
                      "  as a prior; it is the sd later predictions draw "
                      "from.\n");
    for (int j = 0; j < c->nmodels; j++)
        dam_buf_printf(b, "  step error of %s: %.1f %% (%d row%s; the "
                          "scatter no constant explains, drawn as well)\n",
                       c->models[j].model[0] ? c->models[j].model : "inline",
                       c->models[j].step_error * 100.0, c->models[j].rows,
                       c->models[j].rows == 1 ? "" : "s");
    dam_buf_printf(b, "\n%-30s %-18s %-17s %10s %10s %8s  %s\n", "row", "gpu",
                   "quantity", "measured", "predicted", "error",
                   "90 % interval");
    for (int i = 0; i < c->nrows; i++) {
        const dam_calib_row *r = &c->rows[i];
        char m[32], p[32], lo[32], hi[32];
        fmt_q(m, sizeof m, r, r->measured);
        fmt_q(p, sizeof p, r, r->predicted);
        fmt_q(lo, sizeof lo, r, r->interval.lo);
        fmt_q(hi, sizeof hi, r, r->interval.hi);
        dam_buf_printf(b, "%-30.30s %-18.18s %-17s %10s %10s %+7.1f%%  "
                          "%s .. %s%s%s\n",
                       r->id, r->gpu, quantity_name(r), m, p,
                       r->error * 100.0, lo, hi, r->covered ? "" : "  (out)",
                       r->held_out ? "  [held out]" : "");
    }
    for (int t = 0; t < c->traces; t++) {
        const dam_profile *p = &c->profiles[t];
        char st[32], busy[32];
        dam_fmt_time(st, sizeof st, p->step_s);
        dam_fmt_time(busy, sizeof busy, p->busy_s);
        dam_buf_printf(b, "\nTrace %s%s%s: %d step%s of %s, GPU busy %s, "
                          "%ld GPU events (%ld named by no rule, counted "
                          "as elementwise)\n",
                       p->file, p->device[0] ? " on " : "", p->device,
                       p->steps, p->steps == 1 ? "" : "s", st, busy,
                       p->events, p->unclassified);
        for (int k = 0; k < DAM_KCLASS_COUNT; k++) {
            char tm[32];
            dam_fmt_time(tm, sizeof tm, p->time_s[k]);
            dam_buf_printf(b, "  %-12s %10s per step  %8.0f kernels\n",
                           dam_kernel_class_name((dam_kernel_class)k), tm,
                           p->kernels[k]);
        }
        char ex[32];
        dam_fmt_time(ex, sizeof ex, p->nccl_exposed_s);
        dam_buf_printf(b, "  NCCL not overlapped by other GPU work: %s per "
                          "step\n", ex);
    }
}

/* One compared quantity as JSON. */
static json_t *row_json(const dam_calib_row *r)
{
    json_t *e = json_object();
    STR(e, "id", r->id);
    INT(e, "line", r->line);
    STR(e, "gpu", r->gpu);
    STR(e, "model", r->model);
    STR(e, "quantity", quantity_name(r));
    STR(e, "unit", r->quantity == DAM_CALIB_THROUGHPUT ? "samples/s" : "s");
    NUM(e, "measured", r->measured);
    NUM(e, "start", r->start);
    NUM(e, "predicted", r->predicted);
    NUM(e, "error", r->error);
    NUM(e, "p05", r->interval.lo);
    NUM(e, "p95", r->interval.hi);
    json_object_set_new(e, "covered", json_boolean(r->covered));
    json_object_set_new(e, "held_out", json_boolean(r->held_out));
    return e;
}

json_t *dam_json_calibration(const dam_calibration *c)
{
    json_t *o = json_object();
    STR(o, "measurements", c->measurements);
    if (c->hold_out_gpu[0])
        STR(o, "held_out_gpu", c->hold_out_gpu);
    json_t *f = json_object();
    INT(f, "residuals", c->nfitted);
    INT(f, "constants", c->fit.np);
    INT(f, "dof", c->fit.dof);
    NUM(f, "chi2", c->fit.chi2);
    NUM(f, "chi2_start", c->fit.chi2_start);
    NUM(f, "se_scale", c->fit.scale);
    NUM(f, "residual_sd", c->residual_sd);
    NUM(f, "effective_constants", c->p_eff);
    NUM(f, "rms_error_start", c->rms_start);
    NUM(f, "rms_error", c->rms_fit);
    json_object_set_new(f, "converged", json_boolean(c->fit.converged));
    STR(f, "stop", c->fit.stop);
    INT(f, "iterations", c->fit.iterations);
    INT(f, "interval_draws", c->samples);
    json_object_set_new(o, "fit", f);
    json_t *ks = json_array();
    for (int j = 0; j < c->nconst; j++) {
        const dam_calib_const *k = &c->consts[j];
        json_t *e = json_object();
        STR(e, "key", k->name);
        NUM(e, "start", k->start);
        NUM(e, "start_sd", k->start_sd);
        json_object_set_new(e, "determined", json_boolean(!k->undetermined));
        NUM(e, "value", k->value);
        NUM(e, "se", k->se);
        NUM(e, "sd", k->sd);
        INT(e, "rows", k->nrows);
        json_array_append_new(ks, e);
    }
    json_object_set_new(o, "constants", ks);
    json_t *ms = json_array();
    for (int j = 0; j < c->nmodels; j++) {
        json_t *e = json_object();
        STR(e, "model", c->models[j].model);
        INT(e, "rows", c->models[j].rows);
        NUM(e, "step_error", c->models[j].step_error);
        json_array_append_new(ms, e);
    }
    json_object_set_new(o, "step_errors", ms);
    json_t *rs = json_array();
    for (int i = 0; i < c->nrows; i++)
        json_array_append_new(rs, row_json(&c->rows[i]));
    json_object_set_new(o, "residuals", rs);
    json_t *ts = json_array();
    for (int t = 0; t < c->traces; t++) {
        const dam_profile *p = &c->profiles[t];
        json_t *e = json_object();
        STR(e, "file", p->file);
        STR(e, "device", p->device);
        INT(e, "steps", p->steps);
        NUM(e, "step_s", p->step_s);
        NUM(e, "busy_s", p->busy_s);
        NUM(e, "nccl_exposed_s", p->nccl_exposed_s);
        NUM(e, "h2d_bytes", p->h2d_bytes);
        json_t *cl = json_object();
        for (int k = 0; k < DAM_KCLASS_COUNT; k++) {
            json_t *x = json_object();
            NUM(x, "time_s", p->time_s[k]);
            NUM(x, "kernels", p->kernels[k]);
            json_object_set_new(cl, dam_kernel_class_name((dam_kernel_class)k),
                                x);
        }
        json_object_set_new(e, "classes", cl);
        INT(e, "unclassified", p->unclassified);
        json_array_append_new(ts, e);
    }
    json_object_set_new(o, "traces", ts);
    return o;
}

/* A string for a libconfig file: quotes and backslashes escaped, control
 * characters dropped. */
static void cfg_str(dam_buf *b, const char *s)
{
    dam_buf_printf(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            dam_buf_printf(b, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            dam_buf_printf(b, "%c", *s);
    }
    dam_buf_printf(b, "\"");
}

/* A libconfig float (always with a decimal point or exponent). */
static void cfg_num(dam_buf *b, double v)
{
    char t[40];
    snprintf(t, sizeof t, "%.10g", finite(v));
    if (!strpbrk(t, ".eE"))
        strcat(t, ".0");
    dam_buf_printf(b, "%s", t);
}

void dam_calibration_overlay(dam_buf *b, const dam_calibration *c,
                             const char *version)
{
    const dam_fit_report *f = &c->fit;
    dam_buf_printf(b, "# damsim calibration overlay, written by `damsim "
                      "calibrate` (damsim %s).\n", version);
    dam_buf_printf(b, "# Load it with --gpus FILE, --models FILE or a "
                      "scenario's catalogs group:\n"
                      "# each constant below replaces the catalog's value "
                      "and uncertainty (sd, 1 sd).\n"
                      "# se: standard error of the fitted value (covariance "
                      "scaled by the residual variance);\n"
                      "# sd: what predictions draw from (the std error; "
                      "step_error: a model's unexplained scatter).\n");
    dam_buf_printf(b, "calibration = {\n  measurements = ");
    cfg_str(b, c->measurements);
    dam_buf_printf(b, ";\n  fit = { residuals = %d; constants = %d; dof = "
                      "%d; chi2 = ",
                   c->nfitted, f->np, f->dof);
    cfg_num(b, f->chi2);
    dam_buf_printf(b, "; residual_sd = ");
    cfg_num(b, c->residual_sd);
    dam_buf_printf(b, "; rms_error = ");
    cfg_num(b, c->rms_fit);
    dam_buf_printf(b, "; converged = %s; stop = ",
                   f->converged ? "true" : "false");
    cfg_str(b, f->stop);
    dam_buf_printf(b, "; iterations = %d; };\n  constants = (", f->iterations);
    int first = 1;
    for (int j = 0; j < c->nconst; j++) {
        const dam_calib_const *k = &c->consts[j];
        if (k->undetermined)
            continue;
        const char *unit = "";
        double sc = 1.0;
        dam_const_field_info(k->key.owner, k->key.field, NULL, NULL, &unit,
                             &sc);
        dam_buf_printf(b, "%s\n    { key = ", first ? "" : ",");
        first = 0;
        cfg_str(b, k->name);
        dam_buf_printf(b, "; value = ");
        cfg_num(b, k->value / sc);
        if (unit[0]) {
            dam_buf_printf(b, "; unit = ");
            cfg_str(b, unit);
        }
        dam_buf_printf(b, "; se = ");
        cfg_num(b, k->se / sc);
        dam_buf_printf(b, "; sd = ");
        cfg_num(b, k->sd / sc);
        dam_buf_printf(b, "; start = ");
        cfg_num(b, k->start / sc);
        dam_buf_printf(b, "; rows = %d; }", k->nrows);
    }
    for (int j = 0; j < c->nmodels; j++) {
        const dam_calib_model *m = &c->models[j];
        if (!(m->step_error > 0.0) || !m->model[0])
            continue;
        dam_buf_printf(b, "%s\n    { key = ", first ? "" : ",");
        first = 0;
        char key[DAM_CONST_KEY_MAX];
        snprintf(key, sizeof key, "model/%s/step_error", m->model);
        cfg_str(b, key);
        dam_buf_printf(b, "; value = ");
        cfg_num(b, m->step_error);
        dam_buf_printf(b, "; sd = 0.0; rows = %d; }", m->rows);
    }
    dam_buf_printf(b, "\n  );\n  residuals = (");
    for (int i = 0; i < c->nrows; i++) {
        const dam_calib_row *r = &c->rows[i];
        dam_buf_printf(b, "%s\n    { id = ", i ? "," : "");
        cfg_str(b, r->id);
        dam_buf_printf(b, "; line = %d; quantity = ", r->line);
        cfg_str(b, quantity_name(r));
        dam_buf_printf(b, "; gpu = ");
        cfg_str(b, r->gpu);
        dam_buf_printf(b, "; measured = ");
        cfg_num(b, r->measured);
        dam_buf_printf(b, "; predicted = ");
        cfg_num(b, r->predicted);
        dam_buf_printf(b, "; error = ");
        cfg_num(b, r->error);
        dam_buf_printf(b, "; p05 = ");
        cfg_num(b, r->interval.lo);
        dam_buf_printf(b, "; p95 = ");
        cfg_num(b, r->interval.hi);
        dam_buf_printf(b, "; held_out = %s; }",
                       r->held_out ? "true" : "false");
    }
    dam_buf_printf(b, "\n  );\n};\n");
}

void dam_text_crossval(dam_buf *b, const dam_crossval *x)
{
    dam_buf_printf(b, "Leave-one-GPU-out cross-validation (out of sample: "
                      "each GPU's rows predicted from constants fitted on "
                      "the others)\n\n");
    dam_buf_printf(b, "%-22s %5s %10s %9s %7s %10s %9s %6s %9s\n",
                   "held-out GPU", "rows", "med |err|", "coverage",
                   "ratios", "med |err|", "coverage", "fitted", "scatter");
    for (int f = 0; f < x->nfolds; f++) {
        const dam_crossval_fold *k = &x->folds[f];
        if (k->nrows == 0) {
            dam_buf_printf(b, "%-22s  (nothing left to fit without it)\n",
                           k->gpu);
            continue;
        }
        dam_buf_printf(b, "%-22s %5d %9.1f%% %8.0f%% %7d", k->gpu, k->nrows,
                       k->median_abs_error * 100.0, k->coverage * 100.0,
                       k->nratios);
        if (k->nratios)
            dam_buf_printf(b, " %9.1f%% %8.0f%%",
                           k->median_abs_ratio_error * 100.0,
                           k->ratio_coverage * 100.0);
        else
            dam_buf_printf(b, " %10s %9s", "-", "-");
        dam_buf_printf(b, " %6d %8.1f%%\n", k->nconst,
                       k->residual_sd * 100.0);
    }
    dam_buf_printf(b, "\nAll held-out predictions: %d rows, median |error| "
                      "%.1f %%, 90 %% interval coverage %.0f %%\n",
                   x->nrows, x->median_abs_error * 100.0,
                   x->coverage * 100.0);
    dam_buf_printf(b, "Speed-up ratios against the other GPUs: %d, median "
                      "|error| %.1f %%, coverage %.0f %%\n",
                   x->nratios, x->median_abs_ratio_error * 100.0,
                   x->ratio_coverage * 100.0);
    dam_buf_printf(b, "(%d paired draws per interval; a ratio's draws use "
                      "the same constants for both GPUs)\n", x->samples);
}

json_t *dam_json_crossval(const dam_crossval *x)
{
    json_t *o = json_object();
    INT(o, "rows", x->nrows);
    NUM(o, "median_abs_error", x->median_abs_error);
    NUM(o, "coverage_90", x->coverage);
    INT(o, "ratios", x->nratios);
    NUM(o, "median_abs_ratio_error", x->median_abs_ratio_error);
    NUM(o, "ratio_coverage_90", x->ratio_coverage);
    INT(o, "interval_draws", x->samples);
    json_t *fs = json_array();
    for (int f = 0; f < x->nfolds; f++) {
        const dam_crossval_fold *k = &x->folds[f];
        json_t *e = json_object();
        STR(e, "gpu", k->gpu);
        INT(e, "rows", k->nrows);
        NUM(e, "median_abs_error", k->median_abs_error);
        NUM(e, "coverage_90", k->coverage);
        INT(e, "ratios", k->nratios);
        NUM(e, "median_abs_ratio_error", k->median_abs_ratio_error);
        NUM(e, "ratio_coverage_90", k->ratio_coverage);
        INT(e, "constants_fitted", k->nconst);
        NUM(e, "residual_sd", k->residual_sd);
        json_array_append_new(fs, e);
    }
    json_object_set_new(o, "folds", fs);
    json_t *rs = json_array();
    for (int i = 0; i < x->nrows; i++)
        json_array_append_new(rs, row_json(&x->rows[i]));
    json_object_set_new(o, "predictions", rs);
    json_t *xs = json_array();
    for (int i = 0; i < x->nratios; i++) {
        const dam_crossval_ratio *r = &x->ratios[i];
        json_t *e = json_object();
        STR(e, "id", r->id);
        STR(e, "gpu", r->gpu);
        STR(e, "over", r->other);
        NUM(e, "measured", r->measured);
        NUM(e, "predicted", r->predicted);
        NUM(e, "error", r->error);
        NUM(e, "p05", r->interval.lo);
        NUM(e, "p95", r->interval.hi);
        json_object_set_new(e, "covered", json_boolean(r->covered));
        json_array_append_new(xs, e);
    }
    json_object_set_new(o, "speedups", xs);
    return o;
}
