/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chart_fixtures.h: plausible flagship inputs for every chart (ResNet-50
 * on 8x A100, data-bound; an A100 and an H100 roofline; a Chinchilla
 * budget sweep; a serving load sweep), shared by the chart tests. The
 * numbers are hand-made to look like solver output; the Chinchilla curves
 * use the Hoffmann et al. (2022) fit, computed here, in the test, because
 * render/ computes nothing.
 */
#ifndef DAM_CHART_FIXTURES_H
#define DAM_CHART_FIXTURES_H

#include <math.h>
#include <stddef.h>

#include "render/chart/chart.h"

#define MS 1e-3

static const dam_chart_bar fx_bars[] = {
    {"baseline: 8 workers/GPU", {60 * MS, 2 * MS, 35 * MS, 4 * MS, 3 * MS},
     DAM_BOUND_DATA},
    {"workers=16", {22 * MS, 2 * MS, 35 * MS, 4 * MS, 3 * MS},
     DAM_BOUND_COMPUTE},
    {"GPU decode (DALI)", {4 * MS, 2 * MS, 36 * MS, 4 * MS, 3 * MS},
     DAM_BOUND_COMPUTE},
    {"H100 swap, same loader", {83 * MS, 1 * MS, 12 * MS, 3 * MS, 3 * MS},
     DAM_BOUND_DATA},
    {"H100 + GPU decode", {9 * MS, 1 * MS, 12.5 * MS, 3 * MS, 3 * MS},
     DAM_BOUND_COMPUTE},
};

static const dam_chart_breakdown fx_breakdown = {
    "Why is ResNet-50 on 8x A100 slow? The GPUs wait 60 ms of every 104 ms "
    "step for data",
    "Exposed time per step on one GPU, by term; black outline = what binds",
    fx_bars, sizeof fx_bars / sizeof fx_bars[0], NULL};

/* Timeline: 4 loader workers, PCIe, GPU, network over three steps. */
static const dam_chart_span fx_w0[] = {
    {0.000, 0.180, DAM_CHART_SPAN_LOAD, "batch 0"},
    {0.180, 0.360, DAM_CHART_SPAN_LOAD, "batch 4"}};
static const dam_chart_span fx_w1[] = {
    {0.000, 0.190, DAM_CHART_SPAN_LOAD, "batch 1"},
    {0.190, 0.370, DAM_CHART_SPAN_LOAD, "batch 5"}};
static const dam_chart_span fx_w2[] = {
    {0.000, 0.200, DAM_CHART_SPAN_LOAD, "batch 2"},
    {0.200, 0.385, DAM_CHART_SPAN_LOAD, "batch 6"}};
static const dam_chart_span fx_w3[] = {
    {0.000, 0.210, DAM_CHART_SPAN_LOAD, "batch 3"},
    {0.210, 0.395, DAM_CHART_SPAN_LOAD, "batch 7"}};
static const dam_chart_span fx_pcie[] = {
    {0.180, 0.182, DAM_CHART_SPAN_TRANSFER, NULL},
    {0.190, 0.192, DAM_CHART_SPAN_TRANSFER, NULL},
    {0.226, 0.228, DAM_CHART_SPAN_TRANSFER, NULL},
    {0.272, 0.274, DAM_CHART_SPAN_TRANSFER, NULL},
    {0.360, 0.362, DAM_CHART_SPAN_TRANSFER, NULL}};
static const dam_chart_span fx_gpu[] = {
    {0.000, 0.182, DAM_CHART_SPAN_STALL, "waiting for data"},
    {0.182, 0.185, DAM_CHART_SPAN_OVERHEAD, NULL},
    {0.185, 0.220, DAM_CHART_SPAN_COMPUTE, "step 1"},
    {0.224, 0.227, DAM_CHART_SPAN_OVERHEAD, NULL},
    {0.228, 0.263, DAM_CHART_SPAN_COMPUTE, "step 2"},
    {0.267, 0.270, DAM_CHART_SPAN_OVERHEAD, NULL},
    {0.274, 0.309, DAM_CHART_SPAN_COMPUTE, "step 3"},
    {0.313, 0.362, DAM_CHART_SPAN_STALL, "stall"},
    {0.362, 0.365, DAM_CHART_SPAN_OVERHEAD, NULL},
    {0.365, 0.400, DAM_CHART_SPAN_COMPUTE, "step 4"}};
static const dam_chart_span fx_net[] = {
    {0.220, 0.224, DAM_CHART_SPAN_COMM, NULL},
    {0.263, 0.267, DAM_CHART_SPAN_COMM, NULL},
    {0.309, 0.313, DAM_CHART_SPAN_COMM, NULL},
    {0.400, 0.404, DAM_CHART_SPAN_COMM, NULL}};
static const dam_chart_lane fx_lanes[] = {
    {"loader worker 0", fx_w0, 2}, {"loader worker 1", fx_w1, 2},
    {"loader worker 2", fx_w2, 2}, {"loader worker 3", fx_w3, 2},
    {"PCIe (H2D)", fx_pcie, 5},    {"GPU 0 compute", fx_gpu, 10},
    {"network (all-reduce)", fx_net, 4}};
static const dam_chart_sample fx_queue[] = {
    {0.000, 0}, {0.180, 1}, {0.182, 0}, {0.190, 1}, {0.200, 2},
    {0.210, 3}, {0.228, 2}, {0.274, 1}, {0.313, 0}, {0.360, 1},
    {0.362, 0}, {0.370, 1}, {0.385, 2}, {0.395, 3}, {0.410, 3}};
static const dam_chart_timeline fx_timeline = {
    "Where does the GPU wait? Before the first batch and again after every "
    "fourth step: 4 workers cannot keep up",
    "First 0.41 s of the simulation, GPU 0 and its loader",
    fx_lanes, sizeof fx_lanes / sizeof fx_lanes[0],
    fx_queue, sizeof fx_queue / sizeof fx_queue[0],
    "prefetch queue (batches)", 8, 0, 0};

static const dam_chart_ceiling fx_ceilings[] = {
    {"A100 bf16", 312e12, 2039e9}, {"H100 bf16", 989e12, 3350e9}};
static const dam_chart_roofpoint fx_points[] = {
    {"forward", 155, 176e12, DAM_GROUP_BEFORE, 0},
    {"backward", 120, 151e12, DAM_GROUP_BEFORE, 0},
    {"batch norm", 2.1, 2.9e12, DAM_GROUP_BEFORE, 0},
    {"optimizer", 0.25, 0.42e12, DAM_GROUP_BEFORE, 0},
    {"forward", 155, 455e12, DAM_GROUP_AFTER, 1},
    {"backward", 120, 372e12, DAM_GROUP_AFTER, 1},
    {"batch norm", 2.1, 4.9e12, DAM_GROUP_AFTER, 1},
    {"optimizer", 0.25, 0.7e12, DAM_GROUP_AFTER, 1}};
static const dam_chart_roofline fx_roofline = {
    "Would an H100 help? Its compute roof is 3.2x higher, but the step "
    "is data-bound",
    "ResNet-50 phases, bf16; hollow = A100 as configured, filled = H100",
    fx_ceilings, 2, fx_points, sizeof fx_points / sizeof fx_points[0],
    "A100 as configured", "H100"};

static const dam_chart_lever fx_levers_in[] = {
    {"workers=16", 1.62, DAM_CHART_VERDICT_WORKS, 12300, 0, 1.50, 1.71},
    {"GPU decode (DALI)", 2.23, DAM_CHART_VERDICT_WORKS, 9000, -3300, 0, 0},
    {"NVMe page cache", 1.31, DAM_CHART_VERDICT_WORKS, 15100, 2800, 0, 0},
    {"H100 swap", 1.03, DAM_CHART_VERDICT_WASTED, 30400, 18100, 0, 0},
    {"batch 512", 1.00, DAM_CHART_VERDICT_NEUTRAL, 12300, 0, 0, 0},
    {"fp32 instead of bf16", 0.87, DAM_CHART_VERDICT_HURTS, 14100, 1800, 0,
     0},
    {"H100 + GPU decode", 4.56, DAM_CHART_VERDICT_WORKS, 13500, 1200, 0, 0}};
static const dam_chart_levers fx_levers = {
    "Which lever pays? GPU decode: 2.2x faster for $3.3k less; an H100 "
    "alone buys 3% for $18k",
    "Speed-up of the step time against the baseline; cost of the 90-epoch "
    "run",
    fx_levers_in, sizeof fx_levers_in / sizeof fx_levers_in[0],
    NULL, NULL, 0, 0};

static const dam_chart_roc_point fx_roc_points[] = {
    {"ResNet-18", 1200, 69.8, 1},  {"ResNet-34", 2300, 73.3, 1},
    {"ResNet-50", 3100, 76.1, 1},  {"ResNet-101", 5600, 77.4, 1},
    {"ResNet-152", 8100, 78.3, 1}, {"ViT-B/16, no aug.", 9000, 77.0, 0},
    {"ResNet-50, 45 ep.", 1600, 74.9, 0}};
static const dam_chart_roc_segment fx_roc_segs[] = {
    {0, 1, 3.18}, {1, 2, 3.5}, {2, 3, 0.52}, {3, 4, 0.36}};
static const dam_chart_roc fx_roc = {
    "Where does more compute stop paying? Beyond ResNet-50: +0.5 pt per $1k "
    "after +3.5 before",
    "ImageNet top-1 against the cost of one training run on 8x A100",
    fx_roc_points, sizeof fx_roc_points / sizeof fx_roc_points[0],
    fx_roc_segs, 4,
    "cost of a training run", DAM_AXIS_USD, NULL, 0,
    "top-1 accuracy (%)", DAM_AXIS_PLAIN, NULL, "pt/$1k", 0, NULL, NULL};

/* Chinchilla: L(N, D) = E + A/N^a + B/D^b with D = C / (6 N). */
#define FX_CH_N 24
typedef struct fx_chinchilla {
    double params[3][FX_CH_N], loss[3][FX_CH_N];
    dam_chart_curve curves[3];
    dam_chart_chinchilla chart;
} fx_chinchilla;

static void fx_chinchilla_fill(fx_chinchilla *f)
{
    static const char *const labels[3] = {"1e20 FLOP", "1e21 FLOP",
                                          "1e22 FLOP"};
    const double budget[3] = {1e20, 1e21, 1e22};
    for (int c = 0; c < 3; c++) {
        size_t best = 0;
        for (int i = 0; i < FX_CH_N; i++) {
            double n = 3e7 * pow(10.0, i * 3.0 / (FX_CH_N - 1));
            double d = budget[c] / (6 * n);
            f->params[c][i] = n;
            f->loss[c][i] = 1.69 + 406.4 / pow(n, 0.34) + 410.7 / pow(d, 0.28);
            if (f->loss[c][i] < f->loss[c][best])
                best = (size_t)i;
        }
        f->curves[c].label = labels[c];
        f->curves[c].params = f->params[c];
        f->curves[c].loss = f->loss[c];
        f->curves[c].n = FX_CH_N;
        f->curves[c].optimum = best;
    }
    f->chart.title = "Is a 7B model right for 1e21 FLOP? No: the optimum "
                     "is about 2B parameters";
    f->chart.subtitle = "Iso-FLOP curves of the Hoffmann et al. (2022) fit; "
                        "dots mark each budget's optimum";
    f->chart.curves = f->curves;
    f->chart.ncurves = 3;
    f->chart.model.label = "scenario: 7B at 1e21";
    f->chart.model.params = 7e9;
    f->chart.model.loss = 1.69 + 406.4 / pow(7e9, 0.34) +
                          410.7 / pow(1e21 / (6 * 7e9), 0.28);
}

static const double fx_load[] = {50, 150, 250, 350, 450, 550,
                                 650, 750, 850, 900, 950};
static const double fx_p50[] = {0.021, 0.022, 0.024, 0.026, 0.029, 0.033,
                                0.039, 0.049, 0.070, 0.098, 0.170};
static const double fx_p95[] = {0.030, 0.033, 0.037, 0.043, 0.051, 0.062,
                                0.079, 0.108, 0.170, 0.250, 0.460};
static const double fx_p99[] = {0.036, 0.040, 0.046, 0.055, 0.067, 0.085,
                                0.112, 0.160, 0.260, 0.390, 0.720};
static const dam_chart_series fx_series[] = {
    {"p50", fx_load, fx_p50, 11},
    {"p95", fx_load, fx_p95, 11},
    {"p99", fx_load, fx_p99, 11}};
static const dam_chart_serving fx_serving = {
    "How much load meets a 200 ms p99? About 800 requests/s on one A100",
    "ResNet-50 inference, dynamic batching up to 32, 5 ms batching window",
    fx_series, 3, 0.200, "SLO: p99 <= 200 ms", 0, 800};

/* A sweep of GPU kind x loader workers: time to train (hours) and cost. */
static const dam_chart_pareto_point fx_pareto_pts[] = {
    {3.06, 45.1, DAM_CHART_PARETO_DOMINATED, "A100-SXM4-80GB, loader_workers 8"},
    {1.85, 27.2, DAM_CHART_PARETO_DOMINATED, NULL},
    {1.53, 22.6, DAM_CHART_PARETO_DOMINATED, NULL},
    {1.50, 22.2, DAM_CHART_PARETO_FRONT,
     "H100-SXM5-80GB, loader_workers 24 (+5 tied)"},
    {1.10, 30.5, DAM_CHART_PARETO_FRONT, "H100-SXM5-80GB, gpus 16"},
    {0.62, 41.0, DAM_CHART_PARETO_FRONT, "H100-SXM5-80GB, gpus 32"},
    {0.35, 66.0, DAM_CHART_PARETO_FRONT, "B200, gpus 32"},
    {0.70, 52.0, DAM_CHART_PARETO_DOMINATED, NULL},
    {1.20, 36.0, DAM_CHART_PARETO_DOMINATED, "\u00d73"},
    {0.40, 80.0, DAM_CHART_PARETO_NOFIT, NULL},
    {2.40, 30.0, DAM_CHART_PARETO_DOMINATED, NULL}};
static const dam_chart_pareto fx_pareto = {
    "Which configurations are worth it? 4 of 16 are on the time-cost front",
    "Fastest: B200, gpus 32, 0.350 h, $66.0. Cheapest: H100-SXM5-80GB, "
    "loader_workers 24, 1.50 h, $22.2.",
    fx_pareto_pts, sizeof fx_pareto_pts / sizeof fx_pareto_pts[0],
    "time to train (hours)", DAM_AXIS_PLAIN, NULL,
    "cost of the run", DAM_AXIS_USD, NULL, 0, 0};

static const char *const fx_heat_rows[] = {"A100-SXM4-80GB", "H100-SXM5-80GB",
                                           "L4"};
static const char *const fx_heat_cols[] = {"8", "16", "24", "32", "64"};
static const dam_chart_cell fx_heat_cells[] = {
    DAM_CHART_CELL_VALUE, DAM_CHART_CELL_VALUE,  DAM_CHART_CELL_VALUE,
    DAM_CHART_CELL_VALUE, DAM_CHART_CELL_VALUE,  DAM_CHART_CELL_VALUE,
    DAM_CHART_CELL_VALUE, DAM_CHART_CELL_VALUE,  DAM_CHART_CELL_VALUE,
    DAM_CHART_CELL_VALUE, DAM_CHART_CELL_NOFIT,  DAM_CHART_CELL_NOFIT,
    DAM_CHART_CELL_FAILED, DAM_CHART_CELL_EMPTY, DAM_CHART_CELL_VALUE};
static const double fx_heat_values[] = {45.1, 27.2, 27.2, 27.2, 27.2,
                                        45.1, 22.6, 22.2, 22.2, 22.2,
                                        0,    0,    0,    0,    61.0};
static const char *const fx_heat_notes[] = {
    "data", "memory", "memory", "memory", "memory", "data", "data", "data",
    "data", "data", NULL, NULL, NULL, NULL, "compute"};
static const dam_chart_heatmap fx_heatmap = {
    "Where is the cost of the run lowest? H100-SXM5-80GB with "
    "loader_workers 24: $22.2",
    "ResNet-50 on a DGX A100. Under each value: what binds.",
    3, 5, fx_heat_rows, fx_heat_cols, "machine.gpu",
    "pipeline.loader_workers", fx_heat_cells, fx_heat_values, fx_heat_notes,
    "cost of the run", DAM_AXIS_USD, NULL, 0, 7};

/* The sweep's two charts. */
static inline void fx_sweep_charts(dam_chart charts[2])
{
    charts[0].kind = DAM_CHART_PARETO;
    charts[0].u.pareto = &fx_pareto;
    charts[1].kind = DAM_CHART_HEATMAP;
    charts[1].u.heatmap = &fx_heatmap;
}

/* One chart of every kind, in dam_chart_kind order (ch filled first). */
static void fx_all_charts(dam_chart charts[7], const fx_chinchilla *ch)
{
    charts[0].kind = DAM_CHART_BREAKDOWN;
    charts[0].u.breakdown = &fx_breakdown;
    charts[1].kind = DAM_CHART_TIMELINE;
    charts[1].u.timeline = &fx_timeline;
    charts[2].kind = DAM_CHART_ROOFLINE;
    charts[2].u.roofline = &fx_roofline;
    charts[3].kind = DAM_CHART_LEVERS;
    charts[3].u.levers = &fx_levers;
    charts[4].kind = DAM_CHART_ROC;
    charts[4].u.roc = &fx_roc;
    charts[5].kind = DAM_CHART_CHINCHILLA;
    charts[5].u.chinchilla = &ch->chart;
    charts[6].kind = DAM_CHART_SERVING;
    charts[6].u.serving = &fx_serving;
}

#endif
