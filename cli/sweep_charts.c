/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sweep_charts.c: the charts of `damsim sweep`: --pareto FILE (the
 * time-cost front), --heatmap FILE [--metric M] (the first two varied
 * keys), and -o DIR (the rows and both charts in one folder).
 *
 * Design. Every option is checked before the first point is solved (a typo
 * in a chart's name must not cost a million points), then the points'
 * figures are kept and the charts built from them at the end
 * (render/chart/chartset_sweep.c) and written atomically. The figures take about
 * 64 bytes a point, so charts are refused above DAM_CLI_SWEEP_CHART_MAX
 * points, with the way out in the message.
 */
#include <stdio.h>
#include <string.h>

#include "cli/sweep.h"
#include "model/alloc.h"
#include "render/chart/chartset.h"
#include "render/out/outfile.h"

#define DAM_CLI_SWEEP_CHART_MAX 20000000ULL /* points a chart keeps */

/* The extension of path ("png"), or "". */
static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

int dam_cli_sweep_wants_charts(const dam_cli *c)
{
    return c->pareto || c->heatmap ||
           (c->out_file && c->out_kind == DAM_OUT_DIR);
}

/* A chart file option: a .png, .svg or .pdf that may be written. */
static int check_chart_file(const char *opt, const char *path)
{
    const char *e = extension(path);
    if (strcmp(e, "png") != 0 && strcmp(e, "svg") != 0 &&
        strcmp(e, "pdf") != 0) {
        fprintf(stderr, "%s %s: error: a chart is written as .png, .svg or "
                        ".pdf\n",
                opt, path);
        return 2;
    }
    dam_error err;
    memset(&err, 0, sizeof err);
    if (dam_outfile_check_target(path, &err) != DAM_OK) {
        dam_cli_error(&err);
        return 2;
    }
    return 0;
}

int dam_cli_sweep_charts_check(dam_cli *c, const dam_sweep *sw)
{
    if (c->out_file && c->out_kind != DAM_OUT_DIR) {
        const char *e = extension(c->out_file);
        if (strcmp(e, "csv") != 0 && strcmp(e, "jsonl") != 0 &&
            strcmp(e, "json") != 0) {
            fprintf(stderr, "-o %s: error: a sweep writes its rows to a "
                            ".csv or .jsonl file, or its rows and charts "
                            "into a folder (a path without extension)\n",
                    c->out_file);
            return 2;
        }
    }
    if (c->pareto && check_chart_file("--pareto", c->pareto))
        return 2;
    if (c->heatmap && check_chart_file("--heatmap", c->heatmap))
        return 2;
    if (c->heatmap && sw->nkeys < 2) {
        fprintf(stderr, "--heatmap %s: error: a heat map needs two varied "
                        "keys (give a second --vary)\n",
                c->heatmap);
        return 2;
    }
    if (c->metric) {
        dam_sweep_metric m;
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_sweep_metric_parse(c->metric, &m, &e) != DAM_OK) {
            snprintf(e.file, sizeof e.file, "--metric %.200s", c->metric);
            dam_cli_error(&e);
            return 2;
        }
        if (!c->heatmap && !(c->out_file && c->out_kind == DAM_OUT_DIR)) {
            fprintf(stderr, "--metric %s: error: --metric colours the heat "
                            "map: give --heatmap FILE or -o DIR\n",
                    c->metric);
            return 2;
        }
    }
    if (dam_cli_sweep_wants_charts(c) &&
        sw->npoints > DAM_CLI_SWEEP_CHART_MAX) {
        fprintf(stderr, "damsim: error: charts keep every point's figures: "
                        "at most %llu points, and this sweep has %llu (draw "
                        "fewer with --samples N, or write the rows alone)\n",
                DAM_CLI_SWEEP_CHART_MAX, (unsigned long long)sw->npoints);
        return 2;
    }
    return 0;
}

/* Write chart k of cs to path; 0, 1 or 2 after a message. */
static int write_chart(const dam_chartset *cs, dam_chart_kind k,
                       const char *path)
{
    for (size_t i = 0; i < cs->ncharts; i++)
        if (cs->charts[i].kind == k) {
            dam_error e;
            memset(&e, 0, sizeof e);
            int rc = dam_chart_write(path, 0, 0, &cs->charts[i], &e);
            if (rc != DAM_OK) {
                dam_cli_error(&e);
                return rc == DAM_EINPUT ? 2 : 1;
            }
            return 0;
        }
    return 0;
}

int dam_cli_sweep_charts(dam_cli *c, const dam_sweep *sw,
                         const dam_sweep_fig *figs, const char *dir)
{
    dam_sweep_metric m = DAM_SWEEP_METRIC_COST;
    dam_error e;
    memset(&e, 0, sizeof e);
    if (c->metric)
        dam_sweep_metric_parse(c->metric, &m, &e); /* checked before */
    int pareto = c->pareto || dir;
    int heat = c->heatmap || (dir && sw->nkeys >= 2);
    dam_chartset *cs = dam_malloc(sizeof *cs);
    int rc = dam_chartset_sweep(cs, sw, figs, pareto, heat, m, &e);
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        rc = rc == DAM_EINPUT ? 2 : 1;
    }
    if (rc == 0 && c->pareto)
        rc = write_chart(cs, DAM_CHART_PARETO, c->pareto);
    if (rc == 0 && c->heatmap)
        rc = write_chart(cs, DAM_CHART_HEATMAP, c->heatmap);
    if (rc == 0 && dir) {
        if (dam_chartset_write_dir(cs, dir, c->format, &e) != DAM_OK) {
            dam_cli_error(&e);
            rc = 1;
        }
    }
    dam_chartset_free(cs);
    dam_free(cs);
    return rc;
}
