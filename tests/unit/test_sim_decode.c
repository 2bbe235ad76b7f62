/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_sim_decode.c: a batch's decode time is drawn once per batch with the
 * mean and variance of the sum of its samples' draws. For each
 * distribution, the drawn batch totals (seen through the simulation's
 * observer) have mean b*m and coefficient of variation cv/sqrt(b).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

typedef struct acc {
    double n, sum, sq;
} acc;

static void on_decode(void *ctx, int rep, long worker, double t)
{
    acc *a = ctx;
    (void)rep;
    (void)worker;
    a->n += 1.0;
    a->sum += t;
    a->sq += t * t;
}

static const char text[] =
    "scenario: { name = \"d\"; question = \"q?\"; mode = \"training\"; "
    "seed = 3; };\n"
    "machine: { gpu = \"A100-SXM4-80GB\"; gpus_per_node = 1;\n"
    "  host: { cpu_cores = 8; pcie_gbs = 25.0; };\n"
    "  storage: { kind = \"page_cache\"; read_gbs = 100.0; }; };\n"
    "workload: { model = \"resnet50\"; precision = \"bf16\"; batch_size = 64; };\n"
    "data: { samples = 1.0e6; decode_ms = 4.0; decode_cv = %s; "
    "decode_dist = \"%s\"; };\n"
    "pipeline: { loader_workers = 8; steps = 2000; replications = 2; };\n";

int main(void)
{
    dam_catalog cat = {0};
    dam_test_start(&cat);
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_result *r = dam_malloc(sizeof *r);
    static const char *const dists[] = {"lognormal", "normal", "uniform",
                                        "exponential"};
    static const char *const cvs[] = {"0.4", "0.3", "0.5", "1.0"};
    for (int k = 0; k < 4; k++) {
        char buf[2048];
        snprintf(buf, sizeof buf, text, cvs[k], dists[k]);
        if (dam_test_scenario_text(buf, &cat, s) != DAM_OK) {
            dam_check(0, "%s scenario loads", dists[k]);
            continue;
        }
        acc a = {0, 0, 0};
        dam_sim_observer ob = {on_decode, NULL, &a};
        dam_sim_options o;
        memset(&o, 0, sizeof o);
        o.warmup = -1;
        o.observer = &ob;
        dam_error e;
        dam_analytic_solve(s, r);
        dam_check_int(dam_sim_training(s, &o, r, NULL, &e), DAM_OK,
                      "simulation runs");
        double b = 64.0, m = 4e-3, cv = s->data.decode_cv;
        double mean = a.sum / a.n;
        double sd = sqrt(a.sq / a.n - mean * mean);
        char what[96];
        snprintf(what, sizeof what, "%s: batch mean = b m (%.0f batches)",
                 dists[k], a.n);
        dam_check_rel(mean, b * m, 0.01, what);
        snprintf(what, sizeof what, "%s: batch cv = cv / sqrt(b)", dists[k]);
        dam_check_rel(sd / mean, cv / sqrt(b), 0.08, what);
    }
    dam_free(r);
    dam_free(s);
    dam_catalog_free(&cat);
    return dam_check_done();
}
