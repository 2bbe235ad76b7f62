/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart.c: what every chart shares: dispatch on the chart kind, the
 * file-writing wrapper around the drawing functions, and the colours that
 * mean the same thing on every chart (a term of the step, a span kind).
 *
 * Design note: writing a file is open canvas -> draw into the page less a
 * margin -> close (atomic rename). The drawing functions never see a file,
 * so the report reuses them on PDF pages unchanged.
 */
#include "render/chart.h"
#include "render/chart_plan.h"

#include <stdio.h>

#define PAGE_MARGIN 18.0 /* white border around a chart file, points */

static const dam_color term_colors[DAM_TERM_COUNT] = {
    DAM_COLOR_VERMILLION, /* data wait: the stall a reader should see */
    DAM_COLOR_ORANGE,     /* exposed transfer */
    DAM_COLOR_BLUE,       /* compute */
    DAM_COLOR_PURPLE,     /* exposed communication */
    DAM_COLOR_SKY,        /* overhead */
    DAM_COLOR_YELLOW      /* waiting for other ranks */
};

static const dam_color span_colors[DAM_CHART_SPAN_KIND_COUNT] = {
    DAM_COLOR_GREEN,      /* load */
    DAM_COLOR_ORANGE,     /* transfer */
    DAM_COLOR_BLUE,       /* compute */
    DAM_COLOR_PURPLE,     /* comm */
    DAM_COLOR_SKY,        /* overhead */
    DAM_COLOR_GREY,       /* blocked */
    DAM_COLOR_VERMILLION, /* stall */
    DAM_COLOR_YELLOW      /* waiting for other ranks (as its term) */
};

dam_color dam_chart_term_color(dam_term t)
{
    return (unsigned)t < DAM_TERM_COUNT ? term_colors[t] : DAM_COLOR_GREY;
}

dam_color dam_chart_span_color(dam_chart_span_kind k)
{
    return (unsigned)k < DAM_CHART_SPAN_KIND_COUNT ? span_colors[k] : DAM_COLOR_GREY;
}

int dam_chart_bound_term(dam_bound b)
{
    switch (b) {
    case DAM_BOUND_DATA: return DAM_TERM_DATA;
    case DAM_BOUND_TRANSFER: return DAM_TERM_TRANSFER;
    case DAM_BOUND_COMPUTE:
    case DAM_BOUND_MEMORY: return DAM_TERM_COMPUTE;
    case DAM_BOUND_COMM: return DAM_TERM_COMM;
    case DAM_BOUND_LATENCY: return DAM_TERM_OVERHEAD;
    default: return -1;
    }
}

static const char *chart_title(const dam_chart *c)
{
    switch (c->kind) {
    case DAM_CHART_BREAKDOWN: return c->u.breakdown->title;
    case DAM_CHART_TIMELINE: return c->u.timeline->title;
    case DAM_CHART_ROOFLINE: return c->u.roofline->title;
    case DAM_CHART_LEVERS: return c->u.levers->title;
    case DAM_CHART_ROC: return c->u.roc->title;
    case DAM_CHART_CHINCHILLA: return c->u.chinchilla->title;
    case DAM_CHART_SERVING: return c->u.serving->title;
    case DAM_CHART_PARETO: return c->u.pareto->title;
    case DAM_CHART_HEATMAP: return c->u.heatmap->title;
    case DAM_CHART_PLAN: return c->u.plan->title;
    }
    return NULL;
}

int dam_chart_draw(cairo_t *cr, const dam_rect *r, const dam_chart *c,
                   dam_error *err)
{
    int rc = DAM_EINPUT;

    if (!c || !c->u.breakdown)
        return dam_error_set(err, "", 0, "chart: no input");
    cairo_save(cr);
    switch (c->kind) {
    case DAM_CHART_BREAKDOWN:
        rc = dam_chart_breakdown_draw(cr, r, c->u.breakdown, err);
        break;
    case DAM_CHART_TIMELINE:
        rc = dam_chart_timeline_draw(cr, r, c->u.timeline, err);
        break;
    case DAM_CHART_ROOFLINE:
        rc = dam_chart_roofline_draw(cr, r, c->u.roofline, err);
        break;
    case DAM_CHART_LEVERS:
        rc = dam_chart_levers_draw(cr, r, c->u.levers, err);
        break;
    case DAM_CHART_ROC:
        rc = dam_chart_roc_draw(cr, r, c->u.roc, err);
        break;
    case DAM_CHART_CHINCHILLA:
        rc = dam_chart_chinchilla_draw(cr, r, c->u.chinchilla, err);
        break;
    case DAM_CHART_SERVING:
        rc = dam_chart_serving_draw(cr, r, c->u.serving, err);
        break;
    case DAM_CHART_PARETO:
        rc = dam_chart_pareto_draw(cr, r, c->u.pareto, err);
        break;
    case DAM_CHART_HEATMAP:
        rc = dam_chart_heatmap_draw(cr, r, c->u.heatmap, err);
        break;
    case DAM_CHART_PLAN:
        rc = dam_chart_plan_draw(cr, r, c->u.plan, err);
        break;
    default:
        rc = dam_error_set(err, "", 0, "chart: unknown kind %d", (int)c->kind);
        break;
    }
    cairo_restore(cr);
    if (rc == DAM_OK && cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        dam_error_set(err, "", 0, "chart: cairo: %s",
                      cairo_status_to_string(cairo_status(cr)));
        rc = DAM_ERUNTIME;
    }
    return rc;
}

int dam_chart_write(const char *path, double width, double height,
                    const dam_chart *c, dam_error *err)
{
    dam_canvas *cv;
    int rc;

    if (width <= 0 || height <= 0) {
        width = DAM_CHART_WIDTH;
        height = DAM_CHART_HEIGHT;
    }
    if (!c || !c->u.breakdown)
        return dam_error_set(err, path, 0, "chart: no input");
    rc = dam_canvas_open(&cv, path, width, height, chart_title(c), err);
    if (rc != DAM_OK)
        return rc;
    dam_rect r = {PAGE_MARGIN, PAGE_MARGIN, width - 2 * PAGE_MARGIN,
                  height - 2 * PAGE_MARGIN};
    rc = dam_chart_draw(dam_canvas_cr(cv), &r, c, err);
    if (rc != DAM_OK) {
        dam_canvas_discard(cv);
        if (err && !err->file[0])
            snprintf(err->file, sizeof err->file, "%s", path);
        return rc;
    }
    return dam_canvas_close(cv, err);
}

#define WRITER(nm, KIND, type)                                             \
    int dam_chart_##nm##_write(const char *path, double width,            \
                                 double height, const type *in,             \
                                 dam_error *err)                            \
    {                                                                        \
        dam_chart c;                                                         \
        c.kind = KIND;                                                       \
        c.u.nm = in;                                                       \
        return dam_chart_write(path, width, height, &c, err);               \
    }

WRITER(breakdown, DAM_CHART_BREAKDOWN, dam_chart_breakdown)
WRITER(timeline, DAM_CHART_TIMELINE, dam_chart_timeline)
WRITER(roofline, DAM_CHART_ROOFLINE, dam_chart_roofline)
WRITER(levers, DAM_CHART_LEVERS, dam_chart_levers)
WRITER(roc, DAM_CHART_ROC, dam_chart_roc)
WRITER(chinchilla, DAM_CHART_CHINCHILLA, dam_chart_chinchilla)
WRITER(serving, DAM_CHART_SERVING, dam_chart_serving)
WRITER(pareto, DAM_CHART_PARETO, dam_chart_pareto)
WRITER(heatmap, DAM_CHART_HEATMAP, dam_chart_heatmap)
