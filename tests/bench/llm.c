/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm.c: benchmark of the LLM serving simulation (issue 13): one hour of
 * traffic at 20 requests/s, prompts of 1,000 tokens and outputs of 200,
 * on one replica (Llama-3-8B on one H100-SXM5-80GB, chunked prefill, the
 * engine defaults), one replication: 72,000 requests, 14.4 million output
 * tokens. Usage: llm [requests].
 *
 * What is timed: dam_sim_llm alone (the catalogs, the scenario and the
 * analytic solve are outside the clock), on one thread, by the process's
 * CPU clock and by the wall clock. Printed: events, iterations simulated,
 * simulated time, CPU seconds, and per simulated request and output
 * token. The claim, printed with its verdict: the hour simulates in at
 * most 1 s of CPU.
 *
 * Also measured in the same run, as a ratio: the cost of one iteration
 * by the split with its caches (solver/llm_cost.h) against costing the
 * whole graph of the same iteration (dam_llm_cost_iteration_graph), over
 * the same 20,000 iteration shapes (a decode batch of 1..255 at a context
 * of 1,200, with a 0..511-token prefill chunk): what the caches buy.
 * Exit status 0, 1 when a run fails, 3 when the claim fails.
 */
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/llm_cost.h"
#include "solver/sim.h"

#include "bench_util.h"

static const char cfg[] =
    "scenario: { name = \"bench\"; question = \"one hour at 20/s\"; mode = "
    "\"serving\"; seed = 1; };\n"
    "machine: { gpu = \"H100-SXM5-80GB\"; gpus_per_node = 8;\n"
    "  host: { cpu_cores = 64; pcie_gbs = 55.0; };\n"
    "  storage: { kind = \"local_nvme\"; read_gbs = 5.0; latency_ms = 0.1; "
    "};\n"
    "  network: { intra_busbw_gbs = 365.0; inter_busbw_gbs = 50.0; "
    "latency_us = 1.0; }; };\n"
    "workload: { model = \"llama3-8b\"; precision = \"bf16\"; batch_size = "
    "1; cuda_graphs = true; launch_us = 5.0; framework_overhead_ms = 1.0; "
    "};\n"
    "serving: { arrival = \"poisson\"; rate_per_s = 20.0; replicas = 1; "
    "requests = 72000; replications = 1; };\n"
    "llm: { input_tokens = 1000; output_tokens = 200; slo_ttft_ms = 500.0; "
    "slo_tpot_ms = 50.0; };\n";

enum { SHAPES = 20000 }; /* batch shapes costed per pass */

/* CPU seconds to cost SHAPES iterations that mix 0 to 511 prefill tokens
 * with 1 to 255 decodes of 1,200 tokens of context each: split with the
 * caches (graph 0, each cost added to *sink) or through the whole graph
 * (graph 1, each cost subtracted, so that *sink ends as the difference). */
static double shapes(dam_llm_cost *c, int graph, double *sink)
{
    double t0 = bench_cpu();
    for (int i = 0; i < SHAPES; i++) {
        dam_llm_batch b;
        dam_llm_batch_clear(&b);
        double q = (double)(i % 512);
        if (q > 0.0)
            dam_llm_batch_prefill(c, &b, q, 0.0);
        b.decode_seqs = 1 + i % 255;
        b.decode_ctx = b.decode_seqs * 1200.0;
        if (graph)
            *sink -= dam_llm_cost_iteration_graph(c, &b, q, 0.0);
        else
            *sink += dam_llm_cost_iteration(c, &b, NULL);
    }
    return bench_cpu() - t0;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    long nreq = argc > 1 ? atol(argv[1]) : 72000;
    static dam_catalog cat;
    static dam_scenario s;
    static dam_result r;
    dam_diag d;
    dam_diag_init(&d);
    bench_load_catalogs(&cat, &d);
    int rc = dam_scenario_load(&s, "bench.cfg", cfg, &cat, &d);
    dam_diag_free(&d);
    if (rc != DAM_OK) {
        fprintf(stderr, "llm: the benchmark scenario does not load\n");
        return 1;
    }
    dam_analytic_solve(&s, &r);
    dam_sim_options o = {0};
    o.steps = (int)nreq;
    o.replications = 1;
    dam_error e;
    double c0 = bench_cpu();
    double w0 = bench_wall();
    rc = dam_sim_llm(&s, &o, &r, NULL, &e);
    double cpu = bench_cpu() - c0;
    double wall = bench_wall() - w0;
    if (rc != DAM_OK) {
        fprintf(stderr, "llm: %s\n", e.msg);
        return 1;
    }
    const dam_llm_result *l = &r.serving.llm;
    double hours = nreq / s.serving.rate / 3600.0;
    double tokens = nreq * s.serving.llm.output.mean;
    double iters = l->iteration_mean > 0.0
                       ? nreq / s.serving.rate / l->iteration_mean
                       : 0.0;
    double rss = bench_peak_rss_mib();
    printf("LLM serving, %s on 1 x %s: %ld requests at %.4g/s (%.3g h of "
           "traffic), %.0f + %.0f tokens\n",
           s.workload.model.id, s.machine.gpu.id, nreq, s.serving.rate,
           hours, s.serving.llm.input.mean, s.serving.llm.output.mean);
    printf("  simulated: %.0f events, about %.0f iterations of %.4g ms "
           "(%.3g decodes), TTFT p99 %.4g ms, TPOT p99 %.4g ms\n",
           r.events, iters, l->iteration_mean * 1e3, l->decode_seqs_mean,
           l->ttft.p99 * 1e3, l->tpot.p99 * 1e3);
    printf("  time: %.3f s CPU (%.3f s wall), %.3g us per request, %.3g ns "
           "per output token; peak RSS %.1f MiB\n",
           cpu, wall, cpu / nreq * 1e6, cpu / tokens * 1e9,
           rss);

    /* the caches against the whole graph, same shapes */
    dam_llm_cost *c = dam_llm_cost_create(&s, 1, &e);
    if (!c)
        return 1;
    double sink = 0.0;
    double t_split = shapes(c, 0, &sink);
    double t_graph = shapes(c, 1, &sink);
    dam_llm_cost_free(c);
    printf("  iteration cost: split with caches %.3g us, whole graph %.3g "
           "us per iteration: %.1fx (difference of the %d sums %.2e s)\n",
           t_split / SHAPES * 1e6, t_graph / SHAPES * 1e6,
           t_graph / (t_split > 0.0 ? t_split : 1e-9), SHAPES, sink);
    int met = nreq != 72000 || cpu <= 1.0;
    if (nreq == 72000)
        printf("claim: one hour at 20 requests/s in <= 1 s of CPU: %.3f s, "
               "%s\n",
               cpu, met ? "met" : "NOT MET");
    return met ? 0 : 3;
}
