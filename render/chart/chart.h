/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart.h: the charts damsim draws, each from a plain input struct.
 *
 * Every chart has two entry points: dam_chart_<kind>_draw draws onto a
 * caller's cairo_t inside a rectangle (so the PDF report can put it on a
 * page), and dam_chart_<kind>_write is a thin wrapper that opens a canvas
 * for a file (format from the extension: .png, .svg, .pdf), draws, and
 * writes atomically. dam_chart_draw / dam_chart_write do the same for a
 * tagged dam_chart.
 *
 * Design note: the inputs are numbers already computed by solver/ and
 * picked by cli/; render/ only draws them. Pointers in the inputs are
 * borrowed for the duration of the call. Every number is checked before
 * anything is drawn: a non-finite or out-of-domain value is a DAM_EINPUT
 * error naming the chart, item and field, never a NaN on the page. Each
 * chart's title should state the question and its answer; the caller
 * writes both.
 */
#ifndef DAM_RENDER_CHART_H
#define DAM_RENDER_CHART_H

#include <cairo.h>
#include <stddef.h>

#include "model/error.h"
#include "render/chart/axis.h"
#include "render/chart/canvas.h"
#include "render/chart/draw.h"
#include "solver/result.h"

#define DAM_CHART_WIDTH 720.0  /* default page width of a chart file, pt */
#define DAM_CHART_HEIGHT 450.0 /* default page height, pt */

/* ---- breakdown: where a step's time goes ---------------------------- */

/* One stacked bar: a scenario or a lever applied to it. */
typedef struct dam_chart_bar {
    const char *label;            /* scenario or lever name */
    double terms[DAM_TERM_COUNT]; /* exposed time per step, s, by dam_term;
                                     finite and >= 0 */
    dam_bound bound;              /* what binds: its term is outlined
                                     (memory -> compute, latency ->
                                     overhead, queueing -> none) */
} dam_chart_bar;

/* Stacked horizontal bars, one per scenario or lever, total at the end. */
typedef struct dam_chart_breakdown {
    const char *title;        /* the question and the answer */
    const char *subtitle;     /* context, may be NULL */
    const dam_chart_bar *bars;/* bars, drawn top to bottom */
    size_t nbars;             /* at least 1 */
    const char *axis_title;   /* x axis title; NULL: "time per step" */
} dam_chart_breakdown;

/* ---- timeline: a Gantt of the first simulated steps ----------------- */

/* What an interval is doing (sets its colour). */
typedef enum dam_chart_span_kind {
    DAM_CHART_SPAN_LOAD = 0,  /* loader: read and decode */
    DAM_CHART_SPAN_TRANSFER,  /* host-to-device copy */
    DAM_CHART_SPAN_COMPUTE,   /* GPU forward, backward, optimizer */
    DAM_CHART_SPAN_COMM,      /* gradient all-reduce */
    DAM_CHART_SPAN_OVERHEAD,  /* launches, framework */
    DAM_CHART_SPAN_BLOCKED,   /* waiting for room in a full queue */
    DAM_CHART_SPAN_STALL,     /* waiting for data: drawn hatched vermillion */
    DAM_CHART_SPAN_WAIT,      /* waiting for other ranks: hatched yellow */
    DAM_CHART_SPAN_KIND_COUNT
} dam_chart_span_kind;

/* One interval on a lane. */
typedef struct dam_chart_span {
    double start, end;        /* s from the start of the simulation;
                                 finite, start <= end */
    dam_chart_span_kind kind; /* colour and meaning */
    const char *label;        /* drawn inside when it fits; may be NULL */
} dam_chart_span;

/* One lane: a worker, a link, a GPU. */
typedef struct dam_chart_lane {
    const char *name;            /* lane title at the left */
    const dam_chart_span *spans; /* intervals, any order */
    size_t nspans;
} dam_chart_lane;

/* One sample of a counter: the value holds from t to the next sample. */
typedef struct dam_chart_sample {
    double t;     /* s */
    double value; /* counter value from t on (e.g. batches in the queue) */
} dam_chart_sample;

/* Lanes of intervals over time, with a counter's step curve beneath. */
typedef struct dam_chart_timeline {
    const char *title;              /* the question and the answer */
    const char *subtitle;           /* may be NULL */
    const dam_chart_lane *lanes;    /* lanes, top to bottom (>= 1) */
    size_t nlanes;
    const dam_chart_sample *samples;/* counter samples in time order; may be
                                       NULL (then no lower panel) */
    size_t nsamples;
    const char *counter_title;      /* lower panel's y title, e.g. "queue
                                       depth (batches)" */
    double counter_capacity;        /* a dashed line at this value; 0: none */
    double t0, t1;                  /* window shown, s; t1 <= t0: from the
                                       data */
} dam_chart_timeline;

/* ---- roofline -------------------------------------------------------- */

/* One machine's roof. */
typedef struct dam_chart_ceiling {
    const char *label; /* e.g. "A100 bf16" */
    double peak;       /* FLOP/s, > 0 */
    double bw;         /* memory bandwidth, bytes/s, > 0 */
} dam_chart_ceiling;

/* Which side of a what-if a point belongs to (marker and colour). */
typedef enum dam_chart_group {
    DAM_GROUP_BEFORE = 0, /* as configured: hollow circle */
    DAM_GROUP_AFTER       /* with the lever: filled diamond */
} dam_chart_group;

/* One measured or predicted kernel or phase. */
typedef struct dam_chart_roofpoint {
    const char *label;     /* e.g. "forward" */
    double intensity;      /* FLOP/byte, > 0 */
    double flops;          /* achieved FLOP/s, > 0 */
    dam_chart_group group; /* before or after (marker shape) */
    size_t ceiling;        /* index of the ceiling it runs under: the
                              point takes that roof's colour */
} dam_chart_roofpoint;

/* Log-log roofline: ceilings, their ridge points, and points. Ceiling i
 * takes series colour i and dash pattern i (so roofs that share a slope
 * stay visible); a point takes the
 * colour of its ceiling, hollow circles before a lever, filled diamonds
 * after. */
typedef struct dam_chart_roofline {
    const char *title;                 /* the question and the answer */
    const char *subtitle;              /* may be NULL */
    const dam_chart_ceiling *ceilings; /* at least 1 */
    size_t nceilings;
    const dam_chart_roofpoint *points; /* may be empty */
    size_t npoints;
    const char *before_label;          /* legend for DAM_GROUP_BEFORE;
                                          NULL: "as configured" */
    const char *after_label;           /* legend for DAM_GROUP_AFTER;
                                          NULL: "with the lever" */
} dam_chart_roofline;

/* ---- levers: what each lever buys ---------------------------------- */

/* A lever's verdict (bar colour and legend word). */
typedef enum dam_chart_verdict {
    DAM_CHART_VERDICT_WORKS = 0, /* worth it: bluish green */
    DAM_CHART_VERDICT_WASTED,    /* money or effort for little: orange */
    DAM_CHART_VERDICT_NEUTRAL,   /* no real change: grey */
    DAM_CHART_VERDICT_HURTS,     /* makes it worse: vermillion */
    DAM_CHART_VERDICT_SHORT,     /* serving: faster, SLO still missed: sky */
    DAM_CHART_VERDICT_NOFIT,     /* does not fit in GPU memory: no bar, the
                                    words "does not fit" (its speed-up is
                                    not drawn) */
    DAM_CHART_VERDICT_COUNT
} dam_chart_verdict;

/* One lever's outcome. */
typedef struct dam_chart_lever {
    const char *name;          /* lever, e.g. "workers=16" */
    double speedup;            /* speed-up mode: baseline time / time with
                                  the lever, > 0; latency mode: the p99
                                  latency with the lever, s, > 0 */
    dam_chart_verdict verdict; /* colour */
    double cost_usd;           /* cost with the lever, USD, in the unit
                                  the cost column's title names
                                  (non-finite: shown as "n/a") */
    double cost_delta_usd;     /* change against the baseline, USD
                                  (non-finite: not shown) */
    double lo, hi;             /* 90 % interval of speedup (a whisker);
                                  lo >= hi (e.g. both 0): none */
} dam_chart_lever;

/* Horizontal bars, one per lever, with a cost column. Speed-up mode (slo
 * 0): bars from the 1.0x line (no change) to the speed-up. Latency mode
 * (slo > 0, serving): bars from 0 to the p99 latency, with the SLO dashed
 * and the baseline's p99 dotted. */
typedef struct dam_chart_levers {
    const char *title;            /* the question and the answer */
    const char *subtitle;         /* may be NULL */
    const dam_chart_lever *levers;/* bars top to bottom (>= 1) */
    size_t nlevers;
    const char *axis_title;       /* NULL: "speed-up of the run (1.0x =
                                     baseline)" or "p99 latency" */
    const char *cost_title;       /* cost column header; NULL: "cost of
                                     the run" */
    double slo;                   /* latency mode: the p99 objective, s;
                                     0: speed-up mode */
    double baseline;              /* latency mode: the baseline's p99, s
                                     (0: not drawn) */
} dam_chart_levers;

/* ---- return on compute --------------------------------------------- */

/* One configuration: what it costs and the quality it reaches. */
typedef struct dam_chart_roc_point {
    const char *label; /* configuration name */
    double cost;       /* in the x unit (e.g. USD or GPU-hours), finite */
    double quality;    /* in the y unit (e.g. accuracy points), finite */
    int on_frontier;   /* 1: on the Pareto frontier (filled marker) */
} dam_chart_roc_point;

/* One frontier segment between two points, with its marginal return. */
typedef struct dam_chart_roc_segment {
    size_t from, to; /* indices into points */
    double marginal; /* quality gained per unit of cost along it */
} dam_chart_roc_segment;

/* Quality against cost, frontier drawn and annotated. */
typedef struct dam_chart_roc {
    const char *title;                    /* the question and the answer */
    const char *subtitle;                 /* may be NULL */
    const dam_chart_roc_point *points;    /* at least 1 */
    size_t npoints;
    const dam_chart_roc_segment *segments;/* frontier, may be empty */
    size_t nsegments;
    const char *x_title;                  /* e.g. "cost of the run" */
    dam_axis_unit x_unit;                 /* e.g. DAM_AXIS_USD */
    const char *x_unit_name;              /* for DAM_AXIS_SI */
    int x_log;                            /* 1: log cost axis (cost > 0) */
    const char *y_title;                  /* e.g. "top-1 accuracy (%)" */
    dam_axis_unit y_unit;                 /* e.g. DAM_AXIS_PLAIN */
    const char *y_unit_name;              /* for DAM_AXIS_SI */
    const char *marginal_unit;            /* after the marginal, e.g.
                                             "pt/$1k"; may be NULL. With
                                             x_unit DAM_AXIS_USD and NULL,
                                             a segment is labelled with
                                             its gain and its extra cost
                                             ("+0.00073 for +$12,400") */
    double y_min_span;                    /* the y axis spans at least
                                             this much (a change that
                                             matters in the quality's
                                             units), so noise does not
                                             fill the chart; 0: the data */
    const char *front_label;              /* legend of filled points;
                                             NULL: "on the frontier" */
    const char *other_label;              /* legend of hollow points;
                                             NULL: "dominated" */
} dam_chart_roc;

/* ---- chinchilla: compute-optimal model size ------------------------ */

/* One iso-FLOP curve. */
typedef struct dam_chart_curve {
    const char *label;    /* the budget, e.g. "1e21 FLOP" */
    const double *params; /* parameters, > 0, increasing */
    const double *loss;   /* loss at each size, finite */
    size_t n;             /* points (>= 2) */
    size_t optimum;       /* index of the curve's minimum (marked) */
} dam_chart_curve;

/* A single marked point. */
typedef struct dam_chart_mark {
    const char *label; /* NULL: no mark */
    double params;     /* > 0 */
    double loss;       /* finite */
} dam_chart_mark;

/* Loss against parameters (log x) at several fixed budgets. */
typedef struct dam_chart_chinchilla {
    const char *title;            /* the question and the answer */
    const char *subtitle;         /* may be NULL */
    const dam_chart_curve *curves;/* at least 1 */
    size_t ncurves;
    dam_chart_mark model;         /* the scenario's model */
} dam_chart_chinchilla;

/* ---- serving: latency against load -------------------------------- */

/* One line: y against x. */
typedef struct dam_chart_series {
    const char *label; /* e.g. "p99" */
    const double *x;   /* offered load, requests/s, finite, >= 0 */
    const double *y;   /* latency, s, finite, > 0 on a log axis */
    size_t n;          /* points (>= 1) */
} dam_chart_series;

/* Latency percentiles against offered load, with the SLO. */
typedef struct dam_chart_serving {
    const char *title;              /* the question and the answer */
    const char *subtitle;           /* may be NULL */
    const dam_chart_series *series; /* e.g. p50, p95, p99 (>= 1) */
    size_t nseries;
    double slo;                     /* latency objective, s; 0: none */
    const char *slo_label;          /* e.g. "SLO p99 200 ms"; may be NULL */
    int y_log;                      /* 1: log latency axis */
    double rate_now;                /* the deployment's own offered load,
                                       requests/s (a dotted line); 0: none */
} dam_chart_serving;

/* ---- pareto: time against cost of a sweep's points ------------------ */

/* What a point of the time-cost chart is (its marker). */
typedef enum dam_chart_pareto_kind {
    DAM_CHART_PARETO_FRONT = 0, /* on the front: filled blue, labelled */
    DAM_CHART_PARETO_DOMINATED, /* another point is no slower and no dearer:
                                   hollow grey circle */
    DAM_CHART_PARETO_NOFIT      /* does not fit in GPU memory: hollow
                                   vermillion triangle, never on the front */
} dam_chart_pareto_kind;

/* One point of a sweep. */
typedef struct dam_chart_pareto_point {
    double time;                /* x, in the x unit; finite (> 0 on a log
                                   axis) */
    double cost;                /* y, in the y unit; finite (> 0 on a log
                                   axis) */
    dam_chart_pareto_kind kind; /* marker */
    const char *label;          /* a front point's values ("H100-SXM5-80GB,
                                   loader_workers 24"); NULL: none */
} dam_chart_pareto_point;

/* Every point of a sweep, time against cost, the front joined and its
 * points labelled in a column at the right (leaders to their points, in
 * the front's order; when more than fit, an even selection with both ends,
 * and the chart says how many). */
typedef struct dam_chart_pareto {
    const char *title;                    /* the question and the answer */
    const char *subtitle;                 /* may be NULL */
    const dam_chart_pareto_point *points; /* at least 1 */
    size_t npoints;
    const char *x_title;                  /* e.g. "time to train (days)" */
    dam_axis_unit x_unit;                 /* e.g. DAM_AXIS_PLAIN */
    const char *x_unit_name;              /* for DAM_AXIS_SI */
    const char *y_title;                  /* e.g. "cost of the run" */
    dam_axis_unit y_unit;                 /* e.g. DAM_AXIS_USD */
    const char *y_unit_name;              /* for DAM_AXIS_SI */
    int x_log, y_log;                     /* 1: log axis */
} dam_chart_pareto;

/* ---- heat map: a figure over two varied keys ----------------------- */

/* What a cell holds. */
typedef enum dam_chart_cell {
    DAM_CHART_CELL_VALUE = 0, /* a value: coloured by the scale */
    DAM_CHART_CELL_NOFIT,     /* its points solve but none fits in GPU
                                 memory: hatched vermillion */
    DAM_CHART_CELL_FAILED,    /* none of its points solves: hatched grey */
    DAM_CHART_CELL_EMPTY,     /* no point fell in it (sampled sweeps) */
    DAM_CHART_CELL_NA,        /* its points fit but the value is not known
                                 (a cost without a price): "n/a" */
    DAM_CHART_CELL_OVERLOADED /* serving: its points fit but each is past
                                 its capacity (no latency is an answer):
                                 hatched orange, "overloaded" */
} dam_chart_cell;

/* Cells coloured by value on a sequential colour-blind-safe scale
 * (viridis: dark for low values, yellow for high), the value written in
 * each cell where it is legible, with a second line (the binding term)
 * where that fits too, a colour bar with ticks in the value's unit, and
 * the best cell outlined. */
typedef struct dam_chart_heatmap {
    const char *title;                /* the question and the answer */
    const char *subtitle;             /* may be NULL */
    size_t nrows, ncols;              /* at least 1 each */
    const char *const *row_labels;    /* nrows, top to bottom */
    const char *const *col_labels;    /* ncols, left to right */
    const char *row_title;            /* the rows' key; may be NULL */
    const char *col_title;            /* the columns' key; may be NULL */
    const dam_chart_cell *cells;      /* nrows x ncols, row-major */
    const double *values;             /* nrows x ncols; finite (> 0 on a
                                         log scale) where the cell is
                                         DAM_CHART_CELL_VALUE, else unread */
    const char *const *notes;         /* per cell second line, or NULL
                                         entries; may be NULL */
    const char *value_title;          /* the colour bar's title, e.g.
                                         "cost of the run" */
    dam_axis_unit unit;               /* how values are written */
    const char *unit_name;            /* for DAM_AXIS_SI */
    int log;                          /* 1: log colour scale */
    long best;                        /* the cell outlined as best (row x
                                         ncols + column); -1: none */
} dam_chart_heatmap;

/* ---- any chart ----------------------------------------------------- */

/* The chart kinds. */
typedef enum dam_chart_kind {
    DAM_CHART_BREAKDOWN = 0,
    DAM_CHART_TIMELINE,
    DAM_CHART_ROOFLINE,
    DAM_CHART_LEVERS,
    DAM_CHART_ROC,
    DAM_CHART_CHINCHILLA,
    DAM_CHART_SERVING,
    DAM_CHART_PARETO,
    DAM_CHART_HEATMAP,
    DAM_CHART_PLAN
} dam_chart_kind;

/* A chart of any kind: kind says which member of u is set. */
typedef struct dam_chart {
    dam_chart_kind kind;
    union {
        const dam_chart_breakdown *breakdown;
        const dam_chart_timeline *timeline;
        const dam_chart_roofline *roofline;
        const dam_chart_levers *levers;
        const dam_chart_roc *roc;
        const dam_chart_chinchilla *chinchilla;
        const dam_chart_serving *serving;
        const dam_chart_pareto *pareto;
        const dam_chart_heatmap *heatmap;
        const struct dam_chart_plan *plan; /* render/chart/chart_plan.h */
    } u;
} dam_chart;

/*
 * Draw chart c onto cr inside r (points). Returns DAM_OK, or DAM_EINPUT
 * with err filled (bad input, or r too small) having drawn nothing useful.
 * Checks cr's status on the way out: DAM_ERUNTIME if cairo failed.
 */
int dam_chart_draw(cairo_t *cr, const dam_rect *r, const dam_chart *c,
                   dam_error *err);

/*
 * Write chart c to path (format from the extension) at width x height
 * points (<= 0: DAM_CHART_WIDTH x DAM_CHART_HEIGHT). Returns DAM_OK;
 * DAM_EINPUT for a bad extension or input; DAM_ERUNTIME for cairo or I/O
 * failure. On any error no file is created or changed at path.
 */
int dam_chart_write(const char *path, double width, double height,
                    const dam_chart *c, dam_error *err);

/* The same, one pair per kind (see dam_chart_draw / dam_chart_write). */
int dam_chart_breakdown_draw(cairo_t *cr, const dam_rect *r,
                             const dam_chart_breakdown *c, dam_error *err);
int dam_chart_breakdown_write(const char *path, double width, double height,
                              const dam_chart_breakdown *c, dam_error *err);
int dam_chart_timeline_draw(cairo_t *cr, const dam_rect *r,
                            const dam_chart_timeline *c, dam_error *err);
int dam_chart_timeline_write(const char *path, double width, double height,
                             const dam_chart_timeline *c, dam_error *err);
int dam_chart_roofline_draw(cairo_t *cr, const dam_rect *r,
                            const dam_chart_roofline *c, dam_error *err);
int dam_chart_roofline_write(const char *path, double width, double height,
                             const dam_chart_roofline *c, dam_error *err);
int dam_chart_levers_draw(cairo_t *cr, const dam_rect *r,
                          const dam_chart_levers *c, dam_error *err);
int dam_chart_levers_write(const char *path, double width, double height,
                           const dam_chart_levers *c, dam_error *err);
int dam_chart_roc_draw(cairo_t *cr, const dam_rect *r, const dam_chart_roc *c,
                       dam_error *err);
int dam_chart_roc_write(const char *path, double width, double height,
                        const dam_chart_roc *c, dam_error *err);
int dam_chart_chinchilla_draw(cairo_t *cr, const dam_rect *r,
                              const dam_chart_chinchilla *c, dam_error *err);
int dam_chart_chinchilla_write(const char *path, double width,
                               double height, const dam_chart_chinchilla *c,
                               dam_error *err);
int dam_chart_serving_draw(cairo_t *cr, const dam_rect *r,
                           const dam_chart_serving *c, dam_error *err);
int dam_chart_serving_write(const char *path, double width, double height,
                            const dam_chart_serving *c, dam_error *err);

/* The term of the step a bound lives in (memory-bound phases are in the
 * compute term, latency in overhead); -1 for the serving bounds. */
int dam_chart_bound_term(dam_bound b);
int dam_chart_pareto_draw(cairo_t *cr, const dam_rect *r,
                          const dam_chart_pareto *c, dam_error *err);
int dam_chart_pareto_write(const char *path, double width, double height,
                           const dam_chart_pareto *c, dam_error *err);
int dam_chart_heatmap_draw(cairo_t *cr, const dam_rect *r,
                           const dam_chart_heatmap *c, dam_error *err);
int dam_chart_heatmap_write(const char *path, double width, double height,
                            const dam_chart_heatmap *c, dam_error *err);
/* The heat map's colour at t in [0, 1] (0 low, 1 high; clamped). */
dam_rgb dam_chart_scale_rgb(double t);

/* Colour of a breakdown term and of a timeline span kind. */
dam_color dam_chart_term_color(dam_term t);
dam_color dam_chart_span_color(dam_chart_span_kind k);

#endif
