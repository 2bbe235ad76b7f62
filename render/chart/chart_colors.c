/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_colors.c: the colours that mean the same thing on every chart (a
 * term of the step, a span kind of the timeline) and the term a bound
 * colours; below the charts that draw with them and chart.c's dispatch.
 */
#include "render/chart/chart.h"

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
