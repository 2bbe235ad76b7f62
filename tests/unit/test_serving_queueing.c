/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_serving_queueing.c: the serving simulator reduced to classic queues
 * against theory. A serving scenario with one replica, max_batch 1 and no
 * preprocess, copy or postprocess is a single-server queue whose service
 * is the batch's compute, 10 ms (1e10 FLOP at 1 TFLOP/s), drawn from
 * serving.compute_dist. Poisson arrivals at 75/s (rho 0.75), 20
 * replications of 50,000 requests (10 % warm-up); the mean response time
 * (end-to-end latency) must hold the theoretical value inside its 95 % CI:
 *   M/M/1: W = 1/(mu - lambda) = 40 ms, and its p99 ln(100)/(mu - lambda)
 *          = 184 ms within 5 % (P-squared estimate);
 *   M/D/1: W = D + rho D / (2 (1 - rho)) = 25 ms;
 *   M/M/3 (three replicas, lambda 225/s): W = C(3, 2.25)/(3 mu - lambda)
 *          + 1/mu (Erlang C).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

static dam_catalog cat;

static const char cfg[] =
    "scenario: { name = \"queue\"; question = \"q\"; mode = \"serving\";"
    " seed = 3; };\n"
    "machine: { gpu = { id = \"toy\"; name = \"toy\"; peak_tflops = { fp32 ="
    " 1.0; }; hbm_gib = 16.0; hbm_gbs = 1000.0; }; gpus_per_node = 1;\n"
    "  host: { cpu_cores = 1; pcie_gbs = 16.0; };\n"
    "  storage: { kind = \"local_nvme\"; read_gbs = 1.0; latency_ms = 0.0; };"
    " };\n"
    "workload: { model = { id = \"w\"; params = 1.0; flops_per_sample ="
    " 1.0e10; input_bytes = 0.0; raw_bytes = 0.0; activation_bytes = 0.0;"
    " layers = 1; };\n"
    "  precision = \"fp32\"; batch_size = 1; efficiency = 1.0;"
    " kernels_per_step = 0; launch_us = 0.0; framework_overhead_ms = 0.0;"
    " compute_cv = 1.0; };\n"
    "serving: { arrival = \"poisson\"; rate_per_s = 75.0; preprocess_ms ="
    " 0.0; max_batch = 1; replicas = 1; slo_p99_ms = 100.0; request_bytes ="
    " 0.0; compute_dist = \"exponential\"; requests = 50000;"
    " replications = 20; };\n";

static double erlang_c(int c, double a)
{
    double term = 1.0, sum = 0.0;
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);
    return top / (sum + top);
}

static void check_w(const char *name, const dam_scenario *s, double want,
                    dam_result *r)
{
    dam_sim_options opt;
    memset(&opt, 0, sizeof opt);
    dam_error e;
    dam_analytic_solve(s, r);
    dam_check_int(dam_sim_serving(s, &opt, r, NULL, &e), DAM_OK, name);
    const dam_stat *w = &r->serving.latency;
    dam_check(fabs(w->mean - want) <= w->ci95,
              "%s: W %.4f +- %.4f ms holds theory %.4f ms", name,
              w->mean * 1e3, w->ci95 * 1e3, want * 1e3);
    dam_check(w->ci95 < 0.05 * want, "%s: CI half-width %.4f ms under 5 %% "
              "of W", name, w->ci95 * 1e3);
    dam_check(fabs(r->serving.utilization - 0.75) < 0.01,
              "%s: utilisation %.4f ~ rho 0.75", name,
              r->serving.utilization);
}

int main(void)
{
    gsl_set_error_handler_off();
    dam_diag d;
    dam_diag_init(&d);
    dam_catalog_load_gpus(&cat, "gpus.cfg",
                          dam_embedded_find("gpus.cfg")->text, &d);
    dam_catalog_load_models(&cat, "models.cfg",
                            dam_embedded_find("models.cfg")->text, &d);
    static dam_scenario s;
    static dam_result r;
    int rc = dam_scenario_load(&s, "queue.cfg", cfg, &cat, &d);
    for (size_t i = 0; i < d.n; i++)
        printf("  %d: %s\n", d.items[i].line, d.items[i].msg);
    dam_check_int(rc, DAM_OK, "queue scenario loads");
    dam_diag_free(&d);

    double mu = 100.0, lambda = 75.0;
    check_w("M/M/1 rho 0.75", &s, 1.0 / (mu - lambda), &r);
    double p99 = log(100.0) / (mu - lambda);
    dam_check(fabs(r.serving.latency.p99 - p99) < 0.05 * p99,
              "M/M/1: p99 %.2f ms within 5 %% of ln(100)/(mu - lambda) = "
              "%.2f ms (+- %.2f)",
              r.serving.latency.p99 * 1e3, p99 * 1e3,
              r.serving.p99_ci95 * 1e3);
    dam_check(fabs(r.serving.phase[DAM_SPHASE_QUEUE].mean -
                   lambda / (mu * (mu - lambda))) <=
                  0.03 * lambda / (mu * (mu - lambda)),
              "M/M/1: queue phase %.3f ms ~ Wq = rho/(mu - lambda) = 30 ms",
              r.serving.phase[DAM_SPHASE_QUEUE].mean * 1e3);

    s.serving.compute_dist = DAM_DIST_DETERMINISTIC;
    double D = 1.0 / mu, rho = lambda / mu;
    check_w("M/D/1 rho 0.75", &s, D + rho * D / (2.0 * (1.0 - rho)), &r);

    s.serving.compute_dist = DAM_DIST_EXPONENTIAL;
    s.serving.replicas = 3;
    s.serving.rate = 225.0;
    check_w("M/M/3 rho 0.75 (three replicas)", &s,
            erlang_c(3, 2.25) / (3.0 * mu - 225.0) + 1.0 / mu, &r);
    dam_catalog_free(&cat);
    return dam_check_done();
}
