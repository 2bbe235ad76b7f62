/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chartset.h: the charts of a command (run, what-if, compare), built from
 * its results: which charts, their titles (the question and the answer),
 * and the inputs of render/chart/chart.h picked from the results.
 *
 * Design note: a chartset owns every array and string its chart structs
 * point into, so it lives as long as the charts are drawn, and it holds no
 * model arithmetic: frontiers come from model/quality, iso-FLOP curves from
 * solver/isoflop. Only the three timeline arrays are heap-allocated
 * (dam_chartset_free releases them).
 */
#ifndef DAM_RENDER_CHARTSET_H
#define DAM_RENDER_CHARTSET_H

#include "render/chart/chart.h"
#include "solver/capacity.h"
#include "solver/isoflop.h"
#include "solver/llm_plan.h"
#include "solver/plan.h"
#include "solver/roc.h"
#include "solver/search.h"
#include "solver/sweep_summary.h"
#include "solver/trace.h"
#include "solver/whatif.h"

#define DAM_CHARTSET_MAX 8
#define DAM_CHARTSET_BARS 32
#define DAM_CHARTSET_CEILINGS 8
#define DAM_CHARTSET_POINTS 96
#define DAM_CHARTSET_LANES 40

typedef struct dam_chartset {
    size_t ncharts;
    dam_chart charts[DAM_CHARTSET_MAX];
    char names[DAM_CHARTSET_MAX][32];   /* file stems: "breakdown", ... */
    int ntitles;
    char titles[5][512];
    size_t nbars;
    dam_chart_bar bars[DAM_CHARTSET_BARS];
    char bar_labels[DAM_CHARTSET_BARS][128];
    dam_chart_breakdown breakdown;
    size_t nceilings;
    dam_chart_ceiling ceilings[DAM_CHARTSET_CEILINGS];
    char ceil_labels[DAM_CHARTSET_CEILINGS][64];
    size_t npoints;
    dam_chart_roofpoint points[DAM_CHARTSET_POINTS];
    char point_labels[DAM_CHARTSET_POINTS][112];
    dam_chart_roofline roofline;
    dam_chart_lever levers[DAM_CHARTSET_BARS];
    dam_chart_levers levers_chart;
    dam_chart_roc_point roc_pts[DAM_CHARTSET_BARS];
    char roc_labels[DAM_CHARTSET_BARS][64];
    dam_chart_roc_segment roc_seg[DAM_CHARTSET_BARS];
    char roc_ytitle[96];
    dam_chart_roc roc;
    dam_isoflop iso;                    /* the Chinchilla chart's curves */
    dam_chart_curve curves[DAM_ISOFLOP_CURVES];
    char curve_labels[DAM_ISOFLOP_CURVES][32];
    char mark_label[96];
    dam_chart_chinchilla chin;
    dam_chart_lane *lanes;              /* owned */
    dam_chart_span *spans;              /* owned */
    dam_chart_sample *samples;          /* owned */
    dam_chart_timeline timeline;
    dam_chart_series series[3];
    char slo_label[64];
    double serving_rate;                /* the run's offered load, 1/s */
    dam_chart_serving serving;
    struct dam_chartset_sweep *sweep;   /* a sweep's charts' data (owned) */
    /* LLM serving (chartset_llm.c): TTFT and TPOT against load, and one
     * labelled scatter (throughput against latency by token budget, or
     * output tokens per dollar by GPU kind) */
    dam_chart_series llm_series[2][3];
    char llm_slo[2][48];
    dam_chart_serving llm_load[2];
    dam_chart_roc_point llm_pts[DAM_CHARTSET_BARS];
    char llm_labels[DAM_CHARTSET_BARS][64];
    dam_chart_roc llm_scatter[2];
    struct dam_chartset_plan *plan;     /* a plan's chart data (owned;
                                           chartset_plan.c) */
} dam_chartset;

/* The next chart slot of kind k, named name, or NULL when the set is full
 * (the chart's data is the caller's to point at). */
dam_chart *dam_chartset_add(dam_chartset *cs, dam_chart_kind k,
                            const char *name);
/* Charts of a run: breakdown, roofline, timeline (when traced). */
void dam_chartset_run(dam_chartset *cs, const dam_scenario *s,
                      const dam_result *r, const dam_trace *trace);
/* Charts of a what-if: breakdown, levers, roofline, RoC, Chinchilla. */
void dam_chartset_whatif(dam_chartset *cs, const dam_whatif *w,
                         const char *answer);
/* The return-on-compute chart of the user's points: quality against cost,
 * the frontier with its marginal returns. */
void dam_chartset_points(dam_chartset *cs, const dam_points *p,
                         const dam_roc *r, const char *answer);
/* Charts of a comparison: one breakdown bar per scenario (n >= 1); title
 * NULL: "Where the step goes: A vs B and more". */
void dam_chartset_compare(dam_chartset *cs, const dam_scenario *const *s,
                          const dam_result *const *r, int n,
                          const char *title);
/* Add a serving chart: p50, p95 and p99 latency (s) at each offered load
 * rate[i] (requests/s); pct[k][i]. The arrays must outlive the set. */
void dam_chartset_serving_load(dam_chartset *cs, const double *rate,
                               const double *const pct[3], size_t n,
                               double slo, const char *title);
/*
 * Charts of a sweep (render/chart/chartset_sweep.c): the time-cost Pareto front
 * (pareto = 1) and the heat map of its first two varied keys coloured by
 * metric (heatmap = 1; needs two keys), from figs (sw->npoints figures).
 * Chart file stems "pareto" and "heatmap". Returns DAM_OK, or DAM_EINPUT
 * with err filled (no point solved; a heat map without two keys or with
 * too many values a side).
 */
int dam_chartset_sweep(dam_chartset *cs, const dam_sweep *sw,
                       const dam_sweep_fig *figs, int pareto, int heatmap,
                       dam_sweep_metric metric, dam_error *err);
/* Free a sweep's chart data (dam_chartset_free calls it). */
void dam_chartset_sweep_release(dam_chartset *cs);
/* LLM serving (chartset_llm.c). TTFT and TPOT percentiles (p50, p90,
 * p99) at each offered load rate[i]: ttft[k][i], tpot[k][i], s, with the
 * two objectives; the arrays must outlive the set. */
void dam_chartset_llm_load(dam_chartset *cs, const double *rate,
                           const double *const ttft[3],
                           const double *const tpot[3], size_t n,
                           double slo_ttft, double slo_tpot,
                           const char *title);
/* Output tokens/s per GPU against p99 time per output token as the token
 * budget varies: budget[i], tokens[i], tpot[i] (s). */
void dam_chartset_llm_budget(dam_chartset *cs, const int *budget,
                             const double *tokens, const double *tpot,
                             size_t n, const char *title);
/* Output tokens per dollar of each what-if option against its GPUs, by
 * GPU kind (filled: meets both objectives). */
void dam_chartset_llm_cost(dam_chartset *cs, const dam_whatif *w,
                           const char *title);
/*
 * The chart of a plan (render/chart/chartset_plan.c, file stem "plan"; the set
 * is started afresh): the layout search r of s with options o (every
 * candidate when r->all holds them, else the listed ones); the budget
 * plan p (the compute-optimal frontier around its budget, the budget, the
 * chosen point and the scenario's model); the serving capacity plan; the
 * LLM serving plan. DAM_OK, or DAM_EINPUT with err filled when there is
 * nothing to draw.
 */
int dam_chartset_search(dam_chartset *cs, const dam_scenario *s,
                        const dam_search_opts *o, const dam_search_result *r,
                        dam_error *err);
int dam_chartset_budget(dam_chartset *cs, const dam_scenario *s,
                        const dam_plan *p, dam_error *err);
int dam_chartset_capacity(dam_chartset *cs, const dam_scenario *s,
                          const dam_capacity_result *p, dam_error *err);
int dam_chartset_llm_plan(dam_chartset *cs, const dam_scenario *s,
                          const dam_llm_plan *p, dam_error *err);
/* Free a plan's chart data (dam_chartset_free calls it). */
void dam_chartset_plan_release(dam_chartset *cs);
/* Free what the set owns. */
void dam_chartset_free(dam_chartset *cs);
/* Write the first chart to path (format from its extension: .png, .svg,
 * .pdf). DAM_OK, or an error code with err filled (nothing written). */
int dam_chartset_write_one(const dam_chartset *cs, const char *path,
                           dam_error *err);
/* Write every chart into the folder dir (created when missing) as
 * NAME.FORMAT (format "png", "svg" or "pdf"; NULL: "png"). DAM_OK, or an
 * error code with err filled. */
int dam_chartset_write_dir(const dam_chartset *cs, const char *dir,
                           const char *format, dam_error *err);

#endif
