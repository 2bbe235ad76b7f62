/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_chart_edge.c: charts with thin or odd input still render (one bar,
 * all-zero terms, empty lanes, no points, a single point, huge and tiny
 * values), crowded axes thin their labels so that none overlap, and long
 * labels are cut to fit. Each chart draws on an in-memory surface; only
 * cairo's status is checked, and nothing is written.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "render/chart/chart.h"

static cairo_t *new_cr(cairo_surface_t **s)
{
    *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 360, 240);
    return cairo_create(*s);
}

/* Draw c on an in-memory surface; want: DAM_OK (and cairo's status
 * clean) or DAM_EINPUT with a message. */
static void draw(const dam_chart *c, const char *what, int want)
{
    cairo_surface_t *s;
    cairo_t *cr = new_cr(&s);
    dam_rect r = {10, 10, 340, 220};
    dam_error err;
    memset(&err, 0, sizeof err);
    int rc = dam_chart_draw(cr, &r, c, &err);
    if (want == DAM_OK)
        dam_check(rc == DAM_OK && cairo_status(cr) == CAIRO_STATUS_SUCCESS,
                  "%s draws (%s)", what, rc ? err.msg : "ok");
    else
        dam_check(rc == DAM_EINPUT && err.msg[0], "%s is DAM_EINPUT: %s",
                  what, err.msg);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

static void draw_ok(const dam_chart *c, const char *what)
{
    draw(c, what, DAM_OK);
}

static void draw_fails(const dam_chart *c, const char *what)
{
    draw(c, what, DAM_EINPUT);
}

int main(void)
{
    dam_chart c;

    /* breakdown: one bar of zeros; a very long label */
    dam_chart_bar zero = {"nothing", {0, 0, 0, 0, 0}, DAM_BOUND_QUEUEING};
    dam_chart_breakdown bd = {"t", NULL, &zero, 1, NULL};
    c.kind = DAM_CHART_BREAKDOWN;
    c.u.breakdown = &bd;
    draw_ok(&c, "breakdown of one all-zero bar");
    dam_chart_bar lng = {"a lever with a very long name that cannot fit in "
                         "a third of the chart however small the font",
                         {1e-6, 0, 2e-6, 0, 0}, DAM_BOUND_COMPUTE};
    bd.bars = &lng;
    draw_ok(&c, "breakdown of microseconds with a long label");
    bd.nbars = 0;
    draw_fails(&c, "breakdown with no bars");
    dam_chart_bar neg = {"neg", {-1, 0, 0, 0, 0}, DAM_BOUND_DATA};
    bd.bars = &neg;
    bd.nbars = 1;
    draw_fails(&c, "breakdown with a negative term");

    /* timeline: lanes without spans, no counter */
    dam_chart_lane empty[2] = {{"idle", NULL, 0}, {"also idle", NULL, 0}};
    dam_chart_timeline tl = {"t", NULL, empty, 2, NULL, 0, NULL, 0, 0, 0};
    c.kind = DAM_CHART_TIMELINE;
    c.u.timeline = &tl;
    draw_ok(&c, "timeline of empty lanes");
    dam_chart_span back = {2, 1, DAM_CHART_SPAN_COMPUTE, NULL};
    dam_chart_lane bl = {"bad", &back, 1};
    tl.lanes = &bl;
    tl.nlanes = 1;
    draw_fails(&c, "timeline with end < start");
    dam_chart_span ok = {0, 1, DAM_CHART_SPAN_STALL, "stall"};
    dam_chart_lane gl = {"gpu", &ok, 1};
    dam_chart_sample unordered[2] = {{1, 0}, {0, 1}};
    tl.lanes = &gl;
    tl.samples = unordered;
    tl.nsamples = 2;
    draw_fails(&c, "timeline with samples out of order");

    /* roofline: one ceiling, no points; a point far off */
    dam_chart_ceiling k = {"GPU", 1e14, 1e12};
    dam_chart_roofline rf = {"t", NULL, &k, 1, NULL, 0, NULL, NULL};
    c.kind = DAM_CHART_ROOFLINE;
    c.u.roofline = &rf;
    draw_ok(&c, "roofline without points");
    dam_chart_roofpoint far = {"tiny", 1e-6, 1e3, DAM_GROUP_AFTER, 0};
    rf.points = &far;
    rf.npoints = 1;
    draw_ok(&c, "roofline with a point 8 decades below");
    dam_chart_roofpoint zerop = {"zero", 0, 1e12, DAM_GROUP_BEFORE, 0};
    rf.points = &zerop;
    draw_fails(&c, "roofline point at intensity 0");

    /* levers: all neutral; a non-finite cost shows n/a */
    dam_chart_lever lv[2] = {
        {"same", 1.0, DAM_CHART_VERDICT_NEUTRAL, NAN, NAN, 0, 0},
        {"slower", 0.5, DAM_CHART_VERDICT_HURTS, 1e6, 1e5, 0.4, 0.6}};
    dam_chart_levers lc = {"t", NULL, lv, 2, NULL, NULL, 0, 0};
    c.kind = DAM_CHART_LEVERS;
    c.u.levers = &lc;
    draw_ok(&c, "levers with a slow-down and an unknown cost");
    lv[0].speedup = 0;
    draw_fails(&c, "lever with speed-up 0");

    /* return on compute: one point on a log axis; a bad segment */
    dam_chart_roc_point one = {"only", 100, 1, 1};
    dam_chart_roc roc = {"t", NULL, &one, 1, NULL, 0, "cost", DAM_AXIS_USD,
                         NULL, 1, "quality", DAM_AXIS_PLAIN, NULL, NULL, 0, NULL, NULL};
    c.kind = DAM_CHART_ROC;
    c.u.roc = &roc;
    draw_ok(&c, "return on compute with one point on a log axis");
    dam_chart_roc_segment seg = {0, 3, 0.1};
    roc.segments = &seg;
    roc.nsegments = 1;
    draw_fails(&c, "segment to a point that does not exist");

    /* chinchilla: two points, no model; a bad optimum */
    double p[2] = {1e8, 1e9}, l[2] = {3.0, 2.9};
    dam_chart_curve cv = {"1e19", p, l, 2, 1};
    dam_chart_chinchilla chn = {"t", NULL, &cv, 1, {NULL, 0, 0}};
    c.kind = DAM_CHART_CHINCHILLA;
    c.u.chinchilla = &chn;
    draw_ok(&c, "chinchilla of one two-point curve");
    cv.optimum = 2;
    draw_fails(&c, "chinchilla optimum out of range");

    /* serving: a single point, log latency, no SLO */
    double x = 10, y = 0.02;
    dam_chart_series one_s = {"p50", &x, &y, 1};
    dam_chart_serving sv = {"t", NULL, &one_s, 1, 0, NULL, 1, 0};
    c.kind = DAM_CHART_SERVING;
    c.u.serving = &sv;
    draw_ok(&c, "serving of one point on a log axis");
    y = 0;
    draw_fails(&c, "zero latency on a log axis");

    /* a crowded axis thins its labels until none overlap */
    {
        cairo_surface_t *s;
        cairo_t *cr = new_cr(&s);
        dam_draw_axis a;
        dam_draw_axis_spec spec = {0, 9.9e14, 0, 0, DAM_AXIS_SI, "FLOP/s",
                                   NULL};
        dam_error err;
        dam_draw_axis_prepare(cr, &a, &spec, 400, 0, &err);
        dam_draw_axis_place(cr, &a, 0, 120);
        int clear = 1, shown = 0;
        double prev = -1e9, prevw = 0;
        for (size_t i = 0; i < a.nticks; i++) {
            if (!a.shown[i])
                continue;
            double px = dam_axis_map(&a.map, a.ticks[i]);
            if (shown && px - prev < (prevw + a.widths[i]) / 2)
                clear = 0;
            prev = px;
            prevw = a.widths[i];
            shown++;
        }
        dam_check(clear, "thinned labels on a 120 pt axis do not overlap");
        dam_check(shown >= 1 && shown < (int)a.nticks,
                  "some labels thinned (%d of %zu shown)", shown, a.nticks);
        /* a long label is ellipsized to its width by the layout */
        dam_draw_font(cr, DAM_FONT_AXIS);
        const char *longname = "an unreasonably long lever name";
        double full = dam_draw_text_width(cr, longname);
        double fit = dam_draw_fit_width(cr, longname, 60);
        dam_check(full > 60 && fit <= 60 && fit > 30,
                  "fit ellipsizes to 60 pt (%.1f of %.1f pt)", fit, full);
        dam_rect drawn = dam_draw_text_fit(cr, 0, 0, longname, 60, 0, 0);
        dam_check(drawn.w <= 60, "the drawn label is %.1f pt wide", drawn.w);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
    }

    /* too small an area is an error, not a mess */
    {
        cairo_surface_t *s;
        cairo_t *cr = new_cr(&s);
        dam_rect tiny = {0, 0, 40, 30};
        dam_error err;
        memset(&err, 0, sizeof err);
        dam_chart_serving sv2 = sv;
        y = 0.02;
        c.kind = DAM_CHART_SERVING;
        c.u.serving = &sv2;
        int rc = dam_chart_draw(cr, &tiny, &c, &err);
        dam_check_int(rc, DAM_EINPUT, "a 40x30 pt area is DAM_EINPUT");
        cairo_destroy(cr);
        cairo_surface_destroy(s);
    }
    return dam_check_done();
}
