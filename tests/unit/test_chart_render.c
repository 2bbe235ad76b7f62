/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_chart_render.c: every chart renders to PNG, SVG and PDF with cairo's
 * status clean; PNG has the right signature and size; rendering twice
 * gives the same bytes; bad input and bad extensions leave no file.
 * The PNGs stay in the test's folder (build/tests/chart_*.png) to look at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart_fixtures.h"
#include "check.h"
#include "model/alloc.h"

/* A chart write of non-finite input: DAM_EINPUT, and nothing named
 * chart_nan* left behind. */
static void refused(int rc, const char *what)
{
    dam_check(rc == DAM_EINPUT, "%s is DAM_EINPUT (got %d)", what, rc);
    dam_check_int(dam_test_leftovers("chart_nan"), 0,
                  "no chart_nan* files left");
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static unsigned long be32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
           (unsigned long)p[2] << 8 | p[3];
}

static void check_png(const char *path, double w, double h)
{
    size_t n = 0;
    unsigned char *b = dam_test_slurp(path, &n);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n',
                                         0x1a, '\n'};
    dam_check(b && n > 33 && memcmp(b, sig, 8) == 0, "%s: PNG signature",
              path);
    dam_check(b && n > 33 && memcmp(b + 12, "IHDR", 4) == 0,
              "%s: IHDR first", path);
    if (b && n > 33) {
        dam_check_int((long)be32(b + 16), (long)(w * DAM_CANVAS_PNG_SCALE),
                      "PNG IHDR width");
        dam_check_int((long)be32(b + 20), (long)(h * DAM_CANVAS_PNG_SCALE),
                      "PNG IHDR height");
    }
    dam_free(b);
}

/* Render c to each format twice; check status, content and determinism. */
static void render_all(const char *stem, const dam_chart *c)
{
    static const char *const ext[3] = {"png", "svg", "pdf"};
    for (int i = 0; i < 3; i++) {
        char p1[128], p2[128];
        dam_error err;
        memset(&err, 0, sizeof err);
        snprintf(p1, sizeof p1, "chart_%s.%s", stem, ext[i]);
        snprintf(p2, sizeof p2, "chart_%s.again.%s", stem, ext[i]);
        int rc = dam_chart_write(p1, 0, 0, c, &err);
        dam_check(rc == DAM_OK, "%s renders (%s)", p1,
                  rc ? err.msg : "ok");
        rc = dam_chart_write(p2, 0, 0, c, &err);
        dam_check(rc == DAM_OK, "%s renders a second time", p2);
        size_t n1 = 0, n2 = 0;
        unsigned char *b1 = dam_test_slurp(p1, &n1), *b2 = dam_test_slurp(p2, &n2);
        dam_check(b1 && n1 > 100, "%s is not empty (%zu bytes)", p1, n1);
        dam_check(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0,
                  "%s: same bytes on a second render", p1);
        if (i == 0)
            check_png(p1, DAM_CHART_WIDTH, DAM_CHART_HEIGHT);
        if (i == 1)
            dam_check(b1 && n1 > 5 && memcmp(b1, "<?xml", 5) == 0,
                      "%s starts as XML", p1);
        if (i == 2)
            dam_check(b1 && n1 > 5 && memcmp(b1, "%PDF-", 5) == 0,
                      "%s starts %%PDF-", p1);
        dam_free(b1);
        dam_free(b2);
        remove(p2);
    }
}

int main(void)
{
    fx_chinchilla ch;
    fx_chinchilla_fill(&ch);
    dam_chart charts[9];
    fx_all_charts(charts, &ch);
    fx_sweep_charts(charts + 7);
    static const char *const stems[9] = {"breakdown", "timeline", "roofline",
                                         "levers", "roc", "chinchilla",
                                         "serving", "pareto", "heatmap"};
    for (int i = 0; i < 9; i++)
        render_all(stems[i], &charts[i]);

    /* a PDF's dates are the fixed ones, not the clock */
    {
        size_t n = 0;
        unsigned char *b = dam_test_slurp("chart_breakdown.pdf", &n);
        int found = 0;
        for (size_t i = 0; b && i + 20 < n; i++)
            if (memcmp(b + i, "/CreationDate (2000", 19) == 0 ||
                memcmp(b + i, "/CreationDate (D:2000", 21) == 0)
                found = 1;
        dam_check(found, "PDF carries the fixed creation date");
        dam_free(b);
    }

    /* the per-kind wrapper agrees with the generic one */
    {
        dam_error err;
        int rc = dam_chart_breakdown_write("chart_kind.png", 400, 300,
                                           &fx_breakdown, &err);
        dam_check(rc == DAM_OK, "dam_chart_breakdown_write at 400x300");
        check_png("chart_kind.png", 400, 300);
        remove("chart_kind.png");
    }

    /* a bad extension: DAM_EINPUT and nothing written */
    {
        dam_error err;
        memset(&err, 0, sizeof err);
        int rc = dam_chart_write("chart_bad.jpg", 0, 0, &charts[0], &err);
        dam_check_int(rc, DAM_EINPUT, "\".jpg\" is DAM_EINPUT");
        dam_check(strstr(err.msg, ".png") != NULL,
                  "the message names the formats: %s", err.msg);
        dam_check(!exists("chart_bad.jpg"), "no chart_bad.jpg left");
        rc = dam_chart_write("chart_bad", 0, 0, &charts[0], &err);
        dam_check_int(rc, DAM_EINPUT, "no extension is DAM_EINPUT");
        dam_check_int(dam_test_leftovers("chart_bad"), 0, "no chart_bad* files left");
    }

    /* non-finite input: DAM_EINPUT, no file, no temporary */
    {
        dam_chart_bar bar = fx_bars[0];
        bar.terms[DAM_TERM_COMPUTE] = NAN;
        dam_chart_breakdown b = fx_breakdown;
        b.bars = &bar;
        b.nbars = 1;
        dam_error err;
        memset(&err, 0, sizeof err);
        refused(dam_chart_breakdown_write("chart_nan.svg", 0, 0, &b, &err),
                "a NaN term");
        dam_check(strstr(err.msg, "compute") != NULL,
                  "the message names the term: %s", err.msg);

        dam_chart_ceiling ceil = {"inf", INFINITY, 1e12};
        dam_chart_roofline rf = fx_roofline;
        rf.ceilings = &ceil;
        rf.nceilings = 1;
        refused(dam_chart_roofline_write("chart_nan.pdf", 0, 0, &rf, &err),
                "an infinite peak");

        double y[2] = {0.1, NAN}, x[2] = {1, 2};
        dam_chart_series s = {"p50", x, y, 2};
        dam_chart_serving sv = fx_serving;
        sv.series = &s;
        sv.nseries = 1;
        refused(dam_chart_serving_write("chart_nan.png", 0, 0, &sv, &err),
                "a NaN latency");
    }

    /* sweep charts: a NaN cost, a NaN cell value, a log axis at 0 */
    {
        dam_chart_pareto_point pts[2] = {fx_pareto_pts[0], fx_pareto_pts[3]};
        pts[1].cost = NAN;
        dam_chart_pareto pa = fx_pareto;
        pa.points = pts;
        pa.npoints = 2;
        dam_error err;
        memset(&err, 0, sizeof err);
        int rc = dam_chart_pareto_write("chart_nan.png", 0, 0, &pa, &err);
        dam_check(rc == DAM_EINPUT, "a NaN cost is DAM_EINPUT (%s)",
                  err.msg);
        pts[1].cost = 0;
        pa.y_log = 1;
        rc = dam_chart_pareto_write("chart_nan.png", 0, 0, &pa, &err);
        dam_check_int(rc, DAM_EINPUT, "a cost of 0 on a log axis is "
                                      "DAM_EINPUT");
        double v[15];
        memcpy(v, fx_heat_values, sizeof v);
        v[3] = INFINITY;
        dam_chart_heatmap hm = fx_heatmap;
        hm.values = v;
        rc = dam_chart_heatmap_write("chart_nan.svg", 0, 0, &hm, &err);
        dam_check(rc == DAM_EINPUT && strstr(err.msg, "A100-SXM4-80GB, 32"),
                  "an infinite cell is DAM_EINPUT naming the cell: %s",
                  err.msg);
        dam_check_int(dam_test_leftovers("chart_nan"), 0, "no chart_nan* files left");
    }

    /* an unwritable folder: DAM_ERUNTIME */
    {
        dam_error err;
        int rc = dam_chart_write("no-such-dir/x.png", 0, 0, &charts[0], &err);
        dam_check_int(rc, DAM_ERUNTIME, "a missing folder is DAM_ERUNTIME");
    }
    return dam_check_done();
}
