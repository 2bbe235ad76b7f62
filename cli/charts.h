/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * charts.h: the charts of a command, built from its results. A chartset
 * owns the arrays and strings its chart structs point into.
 */
#ifndef DAM_CLI_CHARTS_H
#define DAM_CLI_CHARTS_H

#include "render/chart.h"
#include "solver/trace.h"
#include "solver/whatif.h"

#define DAM_CHARTSET_MAX 8
#define DAM_CHARTSET_BARS 32
#define DAM_CHARTSET_CEILINGS 8
#define DAM_CHARTSET_POINTS 96
#define DAM_CHARTSET_LANES 40
#define DAM_CHARTSET_ISO 48

typedef struct dam_chartset {
    size_t ncharts;
    dam_chart charts[DAM_CHARTSET_MAX];
    char names[DAM_CHARTSET_MAX][32];   /* file stems: "breakdown", ... */
    int ntitles;
    char titles[4][512];
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
    double iso_n[3][DAM_CHARTSET_ISO], iso_l[3][DAM_CHARTSET_ISO];
    dam_chart_curve curves[3];
    char curve_labels[3][32];
    char mark_label[96];
    dam_chart_chinchilla chin;
    dam_chart_lane *lanes;              /* owned */
    dam_chart_span *spans;              /* owned */
    dam_chart_sample *samples;          /* owned */
    dam_chart_timeline timeline;
    dam_chart_series series[3];
    char slo_label[48];
    dam_chart_serving serving;
} dam_chartset;

/* What -o names. */
typedef enum {
    DAM_OUT_TEXT = 0, /* a file for the text/JSON/CSV output */
    DAM_OUT_CHART,    /* one chart: .png, .svg or .pdf */
    DAM_OUT_DIR       /* a folder (existing, or a path without extension) */
} dam_output_kind;

dam_output_kind dam_output_of(const char *path);

/* Charts of a run: breakdown, roofline, timeline (when traced). */
void dam_chartset_run(dam_chartset *cs, const dam_scenario *s,
                      const dam_result *r, const dam_trace *trace);
/* Charts of a what-if: breakdown, levers, roofline, RoC, Chinchilla. */
void dam_chartset_whatif(dam_chartset *cs, const dam_whatif *w,
                         const char *answer);
/* Charts of a comparison: one breakdown bar per scenario. */
void dam_chartset_compare(dam_chartset *cs, const dam_scenario *const *s,
                          const dam_result *const *r, int n,
                          const char *title);
/* Add a serving chart: p50, p95 and p99 latency (s) at each offered load
 * rate[i] (requests/s); pct[k][i]. The arrays must outlive the set. */
void dam_chartset_serving_load(dam_chartset *cs, const double *rate,
                               const double *const pct[3], size_t n,
                               double slo, const char *title);
/* Free what the set owns. */
void dam_chartset_free(dam_chartset *cs);
/* Write: to one file (the first chart) or into a folder (every chart, as
 * NAME.FORMAT). DAM_OK or an error code with err filled. */
int dam_chartset_write(const dam_chartset *cs, const char *out,
                       const char *format, dam_error *err);

#endif
