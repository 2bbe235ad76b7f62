/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_chart_layout.c: no label collides with another and none leaves its
 * chart, on every chart of every example scenario.
 *
 * Every text box a chart draws is logged (render/chart/font.h) while the chart is
 * drawn on a recording surface; the log is then checked pairwise for
 * intersections and against the chart's rectangle. The charts are the ones
 * damsim writes: `whatif` (breakdown, levers, roofline, return on compute,
 * Chinchilla) and `run` (breakdown, roofline, timeline from a traced
 * simulation, latency against load for serving), `compare` (the training
 * scenarios together, the serving ones, a mixed pair), and `sweep`
 * (time-cost front and heat map of small and large sweeps, grids and
 * samples, with failing, unpriced and oversized points), `plan` (layout
 * search at the scenario's count and against a deadline over two GPU
 * kinds, budget plan, serving capacity plan, LLM serving plan), and every
 * chart page of each scenario's review (the planning page included), solved
 * as the command line solves them (simulated, default options; the serving
 * plans with fewer simulated requests), at the chart file size, at the PDF
 * report's page size and beside the summary; every title takes at most
 * two lines at the file and page sizes. First, the check itself is
 * shown to fail on planted collisions, so a pass means something.
 */
#include <dirent.h>
#include <math.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/catalog.h"
#include "render/chart/chart_plan.h"
#include "render/chart/chartset.h"
#include "render/page/compare.h"
#include "render/review/report.h"
#include "model/loader.h"
#include "render/review/review.h"
#include "render/page/roc_page.h"
#include "solver/roc.h"
#include "render/page/whatif_page.h"
#include "solver/analytic.h"
#include "solver/capacity.h"
#include "solver/llm_plan.h"
#include "solver/plan.h"
#include "solver/search.h"
#include "solver/sim.h"
#include "solver/sweep.h"
#include "solver/sweep_summary.h"
#include "solver/uncertainty.h"
#include "solver/whatif.h"

#define TOL 0.5 /* points two boxes may share (anti-aliasing slack) */

/* The lines of the chart's title: the first box logged (the title is
 * drawn first, as one paragraph) over the title font's line height (a
 * title is set smaller only past four lines). */
static size_t title_lines(cairo_t *cr, const dam_font_log *log)
{
    if (log->n == 0)
        return 0;
    cairo_save(cr);
    dam_draw_font(cr, DAM_FONT_TITLE);
    double line = 0;
    dam_font_measure(cr, "Xg", 0, 1, NULL, &line);
    cairo_restore(cr);
    return line > 0 ? (size_t)floor(log->boxes[0].box.h / line + 0.5) : 0;
}

/* Draw chart c inside area on a recording surface of page size w x h,
 * logging its text; the number of layout problems (err: the first) and
 * the title's lines (*lines, may be NULL). */
static size_t layout_problems(const dam_chart *c, double w, double h,
                              const dam_rect *area, dam_error *err,
                              size_t *lines)
{
    cairo_rectangle_t ext = {0, 0, w, h};
    cairo_surface_t *s =
        cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &ext);
    cairo_t *cr = cairo_create(s);
    dam_font_log log = {0};
    dam_font_log_attach(cr, &log);
    size_t bad;
    int rc = dam_chart_draw(cr, area, c, err);
    if (rc != DAM_OK)
        bad = 1000;
    else
        bad = dam_font_log_check(&log, area, TOL, err);
    if (log.n == 0 && rc == DAM_OK) {
        dam_error_set(err, "", 0, "no text logged");
        bad = 1000;
    }
    if (lines)
        *lines = title_lines(cr, &log);
    dam_font_log_attach(cr, NULL);
    dam_font_log_free(&log);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return bad;
}

/* Three sizes: a chart file, a report page, the summary page's column. */
static void check_chart(const char *scen, const char *cmd, const char *name,
                        const dam_chart *c)
{
    dam_rect file = {18, 18, DAM_CHART_WIDTH - 36, DAM_CHART_HEIGHT - 36};
    dam_rect page = {36, 36, DAM_REPORT_WIDTH - 72, DAM_REPORT_HEIGHT - 90};
    dam_error e;
    memset(&e, 0, sizeof e);
    size_t lines = 0;
    size_t bad = layout_problems(c, DAM_CHART_WIDTH, DAM_CHART_HEIGHT, &file,
                                 &e, &lines);
    dam_check(bad == 0, "%s %s %s.png: labels clear (%zu problems%s%s)",
              scen, cmd, name, bad, bad ? "; " : "", bad ? e.msg : "");
    /* the answer in at most two lines; the details go below it */
    dam_check(lines >= 1 && lines <= 2, "%s %s %s.png: a title of %zu "
                                        "line%s",
              scen, cmd, name, lines, lines == 1 ? "" : "s");
    memset(&e, 0, sizeof e);
    bad = layout_problems(c, DAM_REPORT_WIDTH, DAM_REPORT_HEIGHT, &page, &e,
                          &lines);
    dam_check(bad == 0, "%s %s %s on a report page: labels clear (%zu "
                        "problems%s%s)",
              scen, cmd, name, bad, bad ? "; " : "", bad ? e.msg : "");
    dam_check(lines >= 1 && lines <= 2, "%s %s %s on a report page: a "
                                        "title of %zu line%s",
              scen, cmd, name, lines, lines == 1 ? "" : "s");
    dam_rect column = {440, 110, 360, 420};
    memset(&e, 0, sizeof e);
    bad = layout_problems(c, DAM_REPORT_WIDTH, DAM_REPORT_HEIGHT, &column,
                          &e, NULL);
    dam_check(bad == 0, "%s %s %s beside the summary: labels clear (%zu "
                        "problems%s%s)",
              scen, cmd, name, bad, bad ? "; " : "", bad ? e.msg : "");
}

/* ---- the check fails when it should --------------------------------- */

static void planted(void)
{
    dam_rect area = {0, 0, 200, 100};
    dam_font_log log = {0};
    dam_error e;
    memset(&e, 0, sizeof e);
    dam_rect a = {10, 10, 50, 12}, b = {40, 15, 50, 12}, c = {100, 40, 30, 10};
    dam_font_log_add(&log, &a, "batch 32");
    dam_font_log_add(&log, &c, "clear");
    dam_check(dam_font_log_check(&log, &area, TOL, &e) == 0,
              "two apart boxes pass");
    dam_font_log_add(&log, &b, "0.81x");
    dam_check(dam_font_log_check(&log, &area, TOL, &e) == 1 &&
                  strstr(e.msg, "\"batch 32\" overlaps \"0.81x\""),
              "a planted overlap is caught: %s", e.msg);
    dam_font_log_free(&log);
    dam_rect out = {180, 90, 40, 12};
    dam_font_log_add(&log, &out, "ridge 591 FLOP/B");
    dam_check(dam_font_log_check(&log, &area, TOL, &e) == 1 &&
                  strstr(e.msg, "leaves the canvas"),
              "a box past the edge is caught: %s", e.msg);
    dam_font_log_free(&log);

    /* the same through drawing: two labels at one point collide; the
     * placer keeps a second label clear of the first */
    cairo_surface_t *s = cairo_recording_surface_create(
        CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(s);
    dam_font_log_attach(cr, &log);
    dam_draw_font(cr, DAM_FONT_NOTE);
    dam_draw_text(cr, 100, 50, "ridge 591 FLOP/B", 0.5, 0.5);
    dam_draw_text(cr, 100, 52, "H100 + FP8: lm_head", 0.5, 0.5);
    dam_check(dam_font_log_check(&log, &area, TOL, &e) == 1,
              "two labels drawn at one point are caught");
    dam_font_log_attach(cr, &log);
    dam_draw_placer p;
    dam_draw_placer_init(&p, &area);
    dam_draw_placer_label(cr, &p, 100, 50, 3, "ridge 591 FLOP/B");
    dam_draw_placer_label(cr, &p, 100, 52, 3, "H100 + FP8: lm_head");
    dam_check(log.n == 2 && dam_font_log_check(&log, &area, TOL, &e) == 0,
              "the placer keeps two labels at one point apart");
    dam_draw_placer_free(&p);
    /* a rotated label is logged by its rotated box */
    dam_font_log_attach(cr, &log);
    dam_draw_text_up(cr, 50, 50, "attainable performance");
    dam_check(log.n == 1 && log.boxes[0].box.h > log.boxes[0].box.w,
              "rotated text is logged upright-tall (%.1f x %.1f)",
              log.n ? log.boxes[0].box.w : 0, log.n ? log.boxes[0].box.h : 0);
    /* a scaled context logs in the attach-time space */
    cairo_save(cr);
    dam_font_log_attach(cr, &log);
    cairo_scale(cr, 2, 2);
    dam_draw_text(cr, 10, 10, "x", 0, 0);
    cairo_restore(cr);
    dam_check(log.n == 1 && log.boxes[0].box.x > 19.9 &&
                  log.boxes[0].box.x < 20.1,
              "boxes are in the space of the attach (x %.2f)",
              log.n ? log.boxes[0].box.x : 0);
    dam_font_log_attach(cr, NULL);
    dam_font_log_free(&log);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* ---- every chart of every example scenario --------------------------- */

/* The review's executive summary: its text and its chart. */
static void summary_page(const char *name, const dam_whatif *w)
{
    dam_uncertainty *u = dam_malloc(sizeof *u);
    const dam_scenario *s = &w->rows[0].scenario;
    if (dam_uncertainty_run(s, DAM_UNCERTAINTY_SAMPLES, s->seed, u, NULL) !=
        DAM_OK) {
        dam_free(u);
        u = NULL;
    }
    dam_review rv;
    dam_review_build(&rv, w, u, "test");
    dam_rect page = {0, 0, DAM_REPORT_WIDTH, DAM_REPORT_HEIGHT};
    cairo_surface_t *sf = cairo_recording_surface_create(
        CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(sf);
    dam_font_log log = {0};
    dam_font_log_attach(cr, &log);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = dam_report_draw_summary(cr, &rv.report, &e);
    size_t bad = rc == DAM_OK ? dam_font_log_check(&log, &page, TOL, &e)
                              : 1000;
    dam_check(bad == 0 && log.n > 10,
              "%s: the executive summary's %zu texts are clear (%zu "
              "problems%s%s)",
              name, log.n, bad, bad ? "; " : "", bad ? e.msg : "");
    /* every chart page of the review, the planning page included */
    for (size_t i = 0; i < rv.report.ncharts; i++)
        check_chart(name, "review", rv.charts->names[i],
                    &rv.report.charts[i]);
    dam_font_log_attach(cr, NULL);
    dam_font_log_free(&log);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    dam_review_free(&rv);
    dam_free(u);
}

static void whatif_charts(const char *name, const dam_scenario *s,
                          const dam_lever_list *levers,
                          const dam_catalog *cat)
{
    dam_whatif *w = dam_malloc(sizeof *w);
    dam_whatif_options opt;
    memset(&opt, 0, sizeof opt);
    opt.levers = levers;
    opt.solve = dam_test_solve;
    opt.measure = DAM_QUALITY_USD;
    opt.uncertainty_samples = DAM_UNCERTAINTY_SAMPLES;
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = dam_whatif_run(s, NULL, 0, cat, &opt, w, &e);
    dam_check(rc == DAM_OK, "%s: what-if solves (%s)", name, e.msg);
    if (rc == DAM_OK) {
        char answer[1024];
        dam_page_whatif_answer(answer, sizeof answer, w);
        dam_chartset *cs = dam_malloc(sizeof *cs);
        dam_chartset_whatif(cs, w, answer);
        if (s->serving.llm.enabled) {
            /* the context under the title is the deployment, as the
             * page's head says it, not a training line ("8 x H200, bf16,
             * batch 1/GPU" over 2 GPUs) */
            char dep[160];
            dam_llm_deployment_text(dep, sizeof dep, s);
            dam_check(strstr(cs->titles[1], dep) != NULL &&
                          strstr(cs->titles[1], "/GPU") == NULL,
                      "%s: the charts' context names the deployment (%s)",
                      name, dep);
            dam_chartset_llm_cost(cs, w, cs->titles[0]);
        }
        for (size_t i = 0; i < cs->ncharts; i++)
            check_chart(name, "whatif", cs->names[i], &cs->charts[i]);
        dam_chartset_free(cs);
        dam_free(cs);
        summary_page(name, w);
    }
    dam_free(w);
}

static void run_charts(const char *name, const dam_scenario *s)
{
    dam_result *r = dam_malloc(sizeof *r);
    dam_trace tr;
    dam_trace_init(&tr);
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.warmup = -1;
    dam_error e;
    memset(&e, 0, sizeof e);
    dam_analytic_solve(s, r);
    int rc;
    dam_capacity_curve lc;
    memset(&lc, 0, sizeof lc);
    dam_llm_curves *lw = dam_calloc(1, sizeof *lw);
    if (s->serving.llm.enabled) {
        /* as `damsim run -o` draws it: TTFT, TPOT, budget curves */
        rc = s->serving.arrival == DAM_ARRIVAL_TRACE
                 ? DAM_OK
                 : dam_sim_serving(s, &o, r, NULL, &e);
        dam_llm_plan_curves(s, &o, lw);
    } else if (s->mode == DAM_MODE_SERVING) {
        rc = s->serving.arrival == DAM_ARRIVAL_TRACE
                 ? DAM_OK
                 : dam_sim_serving(s, &o, r, NULL, &e);
        dam_capacity_load_curve(s, &o, &lc);
    } else {
        /* as `run -o` records it: the steady state after the warm-up */
        int nt = 2 * s->pipeline.loader_workers;
        o.trace_first = s->pipeline.warmup_steps;
        o.trace_steps = nt < 5 ? 5 : nt > 32 ? 32 : nt;
        rc = dam_sim_training(s, &o, r, &tr, &e);
    }
    dam_check(rc == DAM_OK, "%s: run simulates (%s)", name, e.msg);
    if (rc == DAM_OK) {
        dam_chartset *cs = dam_malloc(sizeof *cs);
        dam_chartset_run(cs, s, r, &tr);
        if (lc.n > 0) {
            const double *p[3] = {lc.p50, lc.p95, lc.p99};
            dam_chartset_serving_load(cs, lc.rate, p, lc.n,
                                      s->serving.slo_p99_s, cs->titles[0]);
        }
        if (lw->n > 0) {
            const double *t1[3] = {lw->ttft[0], lw->ttft[1], lw->ttft[2]};
            const double *t2[3] = {lw->tpot[0], lw->tpot[1], lw->tpot[2]};
            dam_chartset_llm_load(cs, lw->rate, t1, t2, lw->n,
                                  s->serving.llm.slo_ttft_s,
                                  s->serving.llm.slo_tpot_s, cs->titles[0]);
            dam_chartset_llm_budget(cs, lw->budget, lw->tokens, lw->btpot,
                                    lw->nb, cs->titles[0]);
        }
        int want = s->serving.llm.enabled ? lw->n > 0 && lw->nb > 0
                   : s->mode == DAM_MODE_SERVING ? lc.n > 0
                                                 : cs->ncharts >= 3;
        dam_check(want, "%s: run has its %s chart", name,
                  s->serving.llm.enabled       ? "LLM load and budget"
                  : s->mode == DAM_MODE_SERVING ? "serving"
                                                : "timeline");
        for (size_t i = 0; i < cs->ncharts; i++)
            check_chart(name, "run", cs->names[i], &cs->charts[i]);
        dam_chartset_free(cs);
        dam_free(cs);
    }
    dam_trace_free(&tr);
    dam_free(lw);
    dam_free(r);
}

/* A scenario of measured points (mode "points"): its return-on-compute
 * chart, as `whatif` draws it. */
static void points_charts(const char *name, const char *path)
{
    dam_points *p = dam_malloc(sizeof *p);
    dam_roc *r = dam_malloc(sizeof *r);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_points_load(p, path, NULL, &d);
    dam_diag_free(&d);
    dam_check(rc == DAM_OK && dam_roc_of(p, r, NULL) == DAM_OK,
              "%s: points load", name);
    if (rc == DAM_OK) {
        char answer[1024];
        dam_page_roc_answer(answer, sizeof answer, p, r);
        dam_chartset *cs = dam_malloc(sizeof *cs);
        dam_chartset_points(cs, p, r, answer);
        for (size_t i = 0; i < cs->ncharts; i++)
            check_chart(name, "whatif", cs->names[i], &cs->charts[i]);
        dam_chartset_free(cs);
        dam_free(cs);
    }
    dam_free(r);
    dam_free(p);
}

/* A sweep of scenarios/name over args (method, samples), solved as
 * `damsim sweep` solves it, its charts checked. */
static void sweep_charts(const char *name, const char *const *args, int n,
                         dam_sweep_method method, uint64_t samples,
                         dam_sweep_metric metric, dam_catalog *cat)
{
    char path[600], label[256];
    snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR, name);
    snprintf(label, sizeof label, "%s", name);
    for (int i = 0; i < n; i++) {
        size_t L = strlen(label);
        snprintf(label + L, sizeof label - L, " %s", args[i]);
    }
    FILE *f = fopen(path, "r");
    char *text = dam_calloc(1, 1 << 20);
    if (f) {
        size_t got = fread(text, 1, (1 << 20) - 1, f);
        text[got] = '\0';
        fclose(f);
    }
    dam_sweep sw;
    dam_sweep_init(&sw);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = DAM_OK;
    for (int i = 0; i < n && rc == DAM_OK; i++)
        rc = dam_sweep_add(&sw, args[i], &e);
    sw.method = method;
    sw.samples = samples;
    dam_diag d;
    dam_diag_init(&d);
    if (rc == DAM_OK)
        rc = dam_sweep_prepare(&sw, path, text, cat, &d);
    dam_diag_free(&d);
    dam_free(text);
    dam_check(rc == DAM_OK, "sweep %s prepares (%s)", label, e.msg);
    if (rc != DAM_OK) {
        dam_sweep_free(&sw);
        return;
    }
    dam_sweep_fig *figs = dam_calloc((size_t)sw.npoints, sizeof *figs);
    dam_sweep_worker *w = dam_sweep_worker_create(&sw);
    dam_sweep_row *row = dam_malloc(sizeof *row);
    for (uint64_t i = 0; i < sw.npoints; i++) {
        dam_sweep_eval(w, i, row);
        dam_sweep_fig_of(row, &figs[i]);
    }
    dam_chartset *cs = dam_malloc(sizeof *cs);
    rc = dam_chartset_sweep(cs, &sw, figs, 1, sw.nkeys >= 2, metric, &e);
    dam_check(rc == DAM_OK && cs->ncharts == (size_t)(sw.nkeys >= 2 ? 2 : 1),
              "sweep %s: its charts build (%s)", label, e.msg);
    for (size_t i = 0; rc == DAM_OK && i < cs->ncharts; i++)
        check_chart(label, "sweep", cs->names[i], &cs->charts[i]);
    dam_chartset_free(cs);
    dam_free(cs);
    dam_free(row);
    dam_sweep_worker_free(w);
    dam_free(figs);
    dam_sweep_free(&sw);
}

static void sweeps(dam_catalog *cat)
{
    /* the example */
    const char *done[] = {"machine.gpu=A100-SXM4-80GB,H100-SXM5-80GB",
                          "pipeline.loader_workers=8:64:8"};
    sweep_charts("resnet50-dgx-a100.cfg", done, 2, DAM_SWEEP_GRID, 0,
                 DAM_SWEEP_METRIC_COST, cat);
    sweep_charts("resnet50-dgx-a100.cfg", done, 2, DAM_SWEEP_GRID, 0,
                 DAM_SWEEP_METRIC_THROUGHPUT, cat);
    /* three keys: failing (fp8 on A100), unpriced (L4), oversized points */
    const char *three[] = {"gpu=A100-SXM4-80GB,H100-SXM5-80GB,L4",
                           "batch_size=1:64:8", "precision=bf16,fp8"};
    sweep_charts("llama2-7b-pretrain.cfg", three, 3, DAM_SWEEP_GRID, 0,
                 DAM_SWEEP_METRIC_RUN_TIME, cat);
    /* 2,560 points: a long front, names in a column, 64 x 40 cells */
    const char *many[] = {"gpus=8:512:64", "batch_size=1:64:40"};
    sweep_charts("llama2-7b-pretrain.cfg", many, 2, DAM_SWEEP_GRID, 0,
                 DAM_SWEEP_METRIC_COST, cat);
    /* one key: the front alone */
    const char *one[] = {"gpu=A100-SXM4-80GB,H100-SXM5-80GB,B200-HGX-180GB"};
    sweep_charts("llama2-7b-pretrain.cfg", one, 1, DAM_SWEEP_GRID, 0,
                 DAM_SWEEP_METRIC_COST, cat);
    /* serving, sampled: binned rates, empty cells */
    const char *lhs[] = {"serving.max_batch=1,4,8,16,32",
                         "serving.rate_per_s=100:2000:10"};
    sweep_charts("resnet50-serving-l4.cfg", lhs, 2, DAM_SWEEP_LHS, 60,
                 DAM_SWEEP_METRIC_STEP, cat);
}

/* ---- plan charts ------------------------------------------------------ */

static void plan_chart_check(const char *name, const char *what,
                             dam_chartset *cs, int rc, const dam_error *e)
{
    dam_check(rc == DAM_OK && cs->ncharts == 1 &&
                  cs->charts[0].kind == DAM_CHART_PLAN,
              "%s: the %s chart builds (%s)", name, what, e->msg);
    if (rc == DAM_OK && cs->ncharts == 1)
        check_chart(name, what, cs->names[0], &cs->charts[0]);
    dam_chartset_free(cs);
}

/* `plan` of a training scenario: the layout search (every candidate, at
 * its count, then against a deadline over two kinds) and the budget. */
static void plan_training_charts(const char *name, const dam_scenario *s,
                                 const dam_catalog *cat)
{
    dam_chartset *cs = dam_malloc(sizeof *cs);
    dam_search_result *r = dam_malloc(sizeof *r);
    dam_error e;
    for (int pass = 0; pass < 2; pass++) {
        dam_search_opts o;
        memset(&o, 0, sizeof o);
        o.keep_all = 1;
        if (pass == 1) {
            o.kinds[0] = "A100-SXM4-80GB";
            o.kinds[1] = "H100-SXM5-80GB";
            o.nkinds = 2;
            o.deadline = 20 * 86400.0;
        }
        memset(&e, 0, sizeof e);
        int rc = dam_search_run(s, cat, &o, r, &e);
        if (rc == DAM_OK)
            rc = dam_chartset_search(cs, s, &o, r, &e);
        else
            memset(cs, 0, sizeof *cs);
        plan_chart_check(name, pass ? "layout search, deadline"
                                    : "layout search",
                         cs, rc, &e);
        dam_search_free(r);
    }
    dam_plan *p = dam_malloc(sizeof *p);
    memset(&e, 0, sizeof e);
    int rc = dam_plan_budget(s, cat, DAM_BUDGET_FLOPS, 1e22, 30 * 86400.0,
                             NULL, p, &e);
    memset(cs, 0, sizeof *cs);
    if (rc == DAM_OK)
        rc = dam_chartset_budget(cs, s, p, &e);
    plan_chart_check(name, "budget", cs, rc, &e);
    dam_free(p);
    dam_free(r);
    dam_free(cs);
}

/* `plan` of a serving scenario: capacity (or LLM) plan, with 2
 * replications of fewer requests than the command line's. */
static void plan_serving_charts(const char *name, const dam_scenario *s,
                                const dam_catalog *cat)
{
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.warmup = -1;
    o.replications = 2;
    o.steps = 400;
    dam_chartset *cs = dam_malloc(sizeof *cs);
    memset(cs, 0, sizeof *cs);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc;
    if (s->serving.llm.enabled) {
        dam_llm_plan *p = dam_malloc(sizeof *p);
        rc = dam_llm_plan_run(s, cat, s->serving.llm.slo_ttft_s,
                              s->serving.llm.slo_tpot_s, s->serving.rate, &o,
                              p, &e);
        if (rc == DAM_OK)
            rc = dam_chartset_llm_plan(cs, s, p, &e);
        dam_free(p);
    } else {
        dam_capacity_result *p = dam_malloc(sizeof *p);
        rc = dam_capacity_plan(s, cat, s->serving.slo_p99_s, s->serving.rate,
                               &o, p, &e);
        if (rc == DAM_OK)
            rc = dam_chartset_capacity(cs, s, p, &e);
        dam_free(p);
    }
    /* GPUs against rate as steps, one per priced kind, beside the
     * deployment's range */
    size_t steps = 0;
    if (rc == DAM_OK && cs->ncharts == 1)
        for (size_t l = 0; l < cs->charts[0].u.plan->nlines; l++) {
            const dam_chart_plan_line *ln = &cs->charts[0].u.plan->lines[l];
            int rises = 0;
            for (size_t i = 1; i < ln->n; i++)
                rises += ln->y[i] > ln->y[i - 1] && ln->x[i] == ln->x[i - 1];
            steps += !ln->label && rises > 0;
        }
    dam_check(rc != DAM_OK || steps >= 2, "%s: the plan draws %zu kinds' "
                                          "GPUs against rate as steps",
              name, steps);
    plan_chart_check(name, s->serving.llm.enabled ? "LLM serving plan"
                                                  : "capacity plan",
                     cs, rc, &e);
    dam_free(cs);
}

/* `compare` of the scenarios in groups: all training ones, all serving
 * ones (DAM_COMPARE_MAX at a time, as the command takes them) and a mixed
 * pair, each solved as the command line solves it. */
static void compare_charts(dam_scenario *const *s, size_t n)
{
    dam_result *r = dam_calloc(n, sizeof *r);
    int *ok = dam_calloc(n, sizeof *ok);
    for (size_t i = 0; i < n; i++) {
        dam_error e;
        memset(&e, 0, sizeof e);
        ok[i] = dam_test_solve(s[i], NULL, &r[i], &e) == DAM_OK;
        dam_check(ok[i], "compare: %s solves (%s)", s[i]->name, e.msg);
    }
    size_t groups = 0;
    for (int pass = 0; pass < 3; pass++) {
        const dam_scenario *gs[DAM_COMPARE_MAX];
        const dam_result *gr[DAM_COMPARE_MAX];
        int k = 0;
        for (size_t i = 0; i <= n; i++) {
            int take = 0;
            if (i < n && ok[i]) {
                int serving = s[i]->mode == DAM_MODE_SERVING;
                /* pass 2: the first training and the first serving */
                take = pass == 0   ? !serving
                       : pass == 1 ? serving
                                   : (serving ? 1 : 0) == k;
            }
            if (take) {
                gs[k] = s[i];
                gr[k++] = &r[i];
            }
            if (k > 0 && (k == DAM_COMPARE_MAX || i == n ||
                          (pass == 2 && k == 2))) {
                char label[64];
                snprintf(label, sizeof label, "compare of %d (%s)", k,
                         pass == 0   ? "training"
                         : pass == 1 ? "serving"
                                     : "mixed");
                dam_chartset *cs = dam_malloc(sizeof *cs);
                dam_chartset_compare(cs, gs, gr, k, NULL);
                for (size_t c = 0; c < cs->ncharts; c++)
                    check_chart(label, "compare", cs->names[c],
                                &cs->charts[c]);
                dam_chartset_free(cs);
                dam_free(cs);
                groups++;
                if (pass == 2)
                    break;
                k = 0;
            }
        }
    }
    dam_check(groups >= 3, "%zu comparisons drawn", groups);
    dam_free(ok);
    dam_free(r);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    gsl_set_error_handler_off();
    planted();

    dam_catalog cat;
    memset(&cat, 0, sizeof cat);
    dam_test_catalog(&cat);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/scenarios", DAM_SOURCE_DIR);
    DIR *d = opendir(dir);
    dam_check(d != NULL, "scenarios folder opens");
    char *names[64];
    size_t n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) && n < 64) {
        size_t L = strlen(de->d_name);
        if (L > 4 && strcmp(de->d_name + L - 4, ".cfg") == 0)
            names[n++] = dam_strdup(de->d_name);
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    dam_check(n >= 6, "%zu example scenarios found", n);
    dam_scenario *loaded[64];
    size_t nloaded = 0;
    for (size_t i = 0; i < n; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (dam_points_probe(path, NULL)) {
            points_charts(names[i], path);
            dam_free(names[i]);
            continue;
        }
        /* loaded as `whatif` loads it: the file's levers kept */
        dam_scenario *s = dam_malloc(sizeof *s);
        dam_lever_list *levers = dam_calloc(1, sizeof *levers);
        dam_load_options lo;
        memset(&lo, 0, sizeof lo);
        lo.levers = levers;
        dam_diag dg;
        dam_diag_init(&dg);
        int rc = dam_scenario_load_with(s, path, NULL, &cat, &lo, &dg);
        dam_diag_free(&dg);
        dam_check(rc == DAM_OK, "%s loads", names[i]);
        if (rc == DAM_OK) {
            whatif_charts(names[i], s, levers, &cat);
            run_charts(names[i], s);
            loaded[nloaded++] = s;
        } else {
            dam_free(s);
        }
        dam_free(levers);
        dam_free(names[i]);
    }
    compare_charts(loaded, nloaded);
    /* plan charts: a pretraining run, a fine-tune, a serving scenario and
     * an LLM deployment */
    for (size_t i = 0; i < nloaded; i++) {
        const char *f = strrchr(loaded[i]->file, '/');
        f = f ? f + 1 : loaded[i]->file;
        if (strcmp(f, "llama2-7b-pretrain.cfg") == 0 ||
            strcmp(f, "llama3-70b-qlora-l40s.cfg") == 0)
            plan_training_charts(f, loaded[i], &cat);
        if (strcmp(f, "resnet50-serving-l4.cfg") == 0 ||
            strcmp(f, "llama3-70b-h100-vs-h200.cfg") == 0)
            plan_serving_charts(f, loaded[i], &cat);
    }
    for (size_t i = 0; i < nloaded; i++)
        dam_free(loaded[i]);
    sweeps(&cat);
    dam_catalog_free(&cat);
    return dam_check_done();
}
