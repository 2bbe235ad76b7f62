/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_plan.h: the chart of a plan (`damsim plan -o`, the review's
 * planning page): points by group (a GPU kind), fitting or not, the
 * winner marked and named, lines (a frontier, a deployment's range) and
 * reference lines (a budget, a rate, an objective), on linear or log axes.
 * One kind serves the three plans: layout search (time against cost per
 * GPU kind), serving (GPUs against rate with the SLO's limit) and budget
 * (the compute-optimal frontier, the budget and the chosen point).
 *
 * Design note: as every chart of render/chart.h, it draws numbers the
 * solver computed and cli/ or render/chartset_plan.c picked; pointers are
 * borrowed for the call; every number is checked before anything is
 * drawn. A point that does not fit is a hollow vermillion triangle, never
 * a filled marker; labels go where they overlap nothing (the placer),
 * with a leader when they must move away.
 */
#ifndef DAM_RENDER_CHART_PLAN_H
#define DAM_RENDER_CHART_PLAN_H

#include "render/chart.h"

/* What a point is (its marker). */
typedef enum dam_chart_plan_mark {
    DAM_CHART_PLAN_PLAIN = 0, /* a small marker, no name */
    DAM_CHART_PLAN_NAMED,     /* a larger marker with its label */
    DAM_CHART_PLAN_WINNER     /* a black-edged star with its label */
} dam_chart_plan_mark;

/* One candidate or option. */
typedef struct dam_chart_plan_point {
    double x, y;              /* finite (> 0 on a log axis) */
    size_t group;             /* index into groups (its colour) */
    int fits;                 /* 1: filled in the group's colour; 0: hollow
                                 vermillion triangle ("does not fit") */
    dam_chart_plan_mark mark; /* marker and whether it is named */
    const char *label;        /* for NAMED and WINNER; may be NULL */
} dam_chart_plan_point;

/* A line through points in order (a frontier, a range). */
typedef struct dam_chart_plan_line {
    const char *label;   /* legend entry */
    const double *x, *y; /* n points, finite (> 0 on a log axis) */
    size_t n;            /* >= 2 */
    dam_color color;
    int dashed;          /* 1: dashed */
} dam_chart_plan_line;

/* A reference line across the plot (a budget, a rate, an objective). */
typedef struct dam_chart_plan_ref {
    int vertical;      /* 1: at x = value; 0: at y = value */
    double value;      /* finite (> 0 on a log axis) */
    const char *label; /* drawn beside it, inside the plot; may be NULL */
} dam_chart_plan_ref;

/* The chart. */
typedef struct dam_chart_plan {
    const char *title;                 /* the answer (short) */
    const char *subtitle;              /* details; may be NULL */
    const char *const *groups;         /* group names (legend), ngroups */
    size_t ngroups;                    /* 0: points take series colour 0
                                          and no group legend */
    const dam_chart_plan_point *points;/* may be empty when lines are not */
    size_t npoints;
    const dam_chart_plan_line *lines;  /* may be NULL */
    size_t nlines;
    const dam_chart_plan_ref *refs;    /* may be NULL */
    size_t nrefs;
    const char *x_title, *y_title;
    dam_axis_unit x_unit, y_unit;
    const char *x_unit_name, *y_unit_name; /* for DAM_AXIS_SI */
    int x_log, y_log;                  /* 1: log axis */
    const char *nofit_label;           /* legend of the triangles; NULL:
                                          "does not fit in GPU memory" */
    const char *note;                  /* a line under the plot (what is
                                          left out and why); may be NULL */
} dam_chart_plan;

int dam_chart_plan_draw(cairo_t *cr, const dam_rect *r,
                        const dam_chart_plan *c, dam_error *err);
int dam_chart_plan_write(const char *path, double width, double height,
                         const dam_chart_plan *c, dam_error *err);

#endif
