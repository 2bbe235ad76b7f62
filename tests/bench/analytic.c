/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analytic.c: benchmark of the analytic solver and of the device model's
 * graph costing (MODEL.md section 8). Usage: analytic [seconds]. For the
 * flagship scenario (ResNet-50 on a DGX A100) and the LLM example it
 * prints evaluations per second of dam_analytic_solve, and of
 * dam_device_cost alone on each model's training graph (the part the
 * operator model adds to every evaluation), measured in this one run so
 * that the ratio between them is meaningful on any machine. The issue's
 * target is >= 1 M analytic evaluations per second per core on the
 * flagship. Times are this process's CPU time (per core). No pass/fail:
 * the figures are the output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "model/device.h"
#include "model/embedded.h"
#include "model/graph.h"
#include "model/loader.h"
#include "solver/analytic.h"

#include "bench_util.h"

static dam_catalog cat;
static dam_scenario s;
static dam_result r;
static dam_graph g;

/* Evaluations per second of f over about `secs` seconds of this process's
 * CPU time (per core, less disturbed than wall time on a shared machine). */
static double rate(double secs, int which, double *sink)
{
    long n = 0, batch = 1000;
    double t0 = bench_cpu(), t = t0;
    dam_cost_opts o;
    dam_graph_cost c;
    dam_cost_opts_scenario(&s, s.workload.batch_size, &o);
    while (t - t0 < secs) {
        for (long i = 0; i < batch; i++) {
            if (which == 0) {
                s.workload.batch_size ^= 1; /* defeat any caching */
                dam_analytic_solve(&s, &r);
                *sink += r.step;
            } else {
                o.b = (double)(s.workload.batch_size ^ (int)(i & 1));
                *sink += dam_device_cost(&g, &o, &c);
            }
        }
        n += batch;
        t = bench_cpu();
    }
    return (double)n / (t - t0);
}

static int one(const char *file, double secs)
{
    dam_diag d;
    dam_diag_init(&d);
    const dam_embedded_file *em = dam_embedded_find(file);
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR, file);
    int rc = dam_scenario_load(&s, em ? file : path, em ? em->text : NULL,
                               &cat, &d);
    dam_diag_free(&d);
    if (rc != DAM_OK) {
        fprintf(stderr, "analytic: %s does not load\n", file);
        return 1;
    }
    dam_graph_opts go;
    memset(&go, 0, sizeof go);
    go.recompute = s.workload.activation_recompute;
    go.no_optimizer = 1;
    dam_error e;
    if (dam_graph_build(&g, &s.workload.model, &go, &e) != DAM_OK) {
        fprintf(stderr, "analytic: %s\n", e.msg);
        return 1;
    }
    double sink = 0.0;
    double a = rate(secs, 0, &sink);
    double c = rate(secs, 1, &sink);
    /* the same scenario on the legacy path (phases at peak x eta, what
     * every model used before the device model) for the ratio */
    dam_workload keep = s.workload;
    s.workload.model.arch.kind = DAM_ARCH_NONE;
    s.workload.eta = 0.5;
    s.workload.eta_given = 1;
    double l = rate(secs, 0, &sink);
    s.workload = keep;
    printf("%-24s %3d ops: analytic solve %5.2f M/s (legacy phases path "
           "%5.2f M/s: %.2fx), graph costing alone %5.2f M/s (%.0f ns)%s\n",
           file, g.nops, a / 1e6, l / 1e6, l / a, c / 1e6, 1e9 / c,
           sink > 0 ? "" : " ");
    return 0;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    if (!(secs > 0.0)) {
        fprintf(stderr, "usage: analytic [seconds]\n");
        return 2;
    }
    dam_diag d;
    dam_diag_init(&d);
    bench_load_catalogs(&cat, &d);
    dam_diag_free(&d);
    int bad = one("resnet50-dgx-a100.cfg", secs);
    bad |= one("llama2-7b-pretrain.cfg", secs);
    dam_catalog_free(&cat);
    return bad;
}
