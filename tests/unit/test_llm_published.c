/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_llm_published.c: LLM serving against a published measurement it
 * was not fitted on (out of sample; tests/VALIDATION.md, "LLM serving").
 *
 * vLLM issue #12315 (github.com/vllm-project/vllm, 2025-01-22, a user
 * report: tier C): Llama-3.3-70B-Instruct (the Llama-3-70B architecture)
 * on 4 x A100 at tensor parallelism 4, vLLM 0.6.6, benchmark_throughput
 * with 200 ShareGPT prompts, max_num_seqs 256: 3.28 requests/s, 714.48
 * output tokens/s and 1414.42 total tokens/s with one scheduler step
 * (3.47 requests/s with ten). Those totals give 218 output and 213 prompt
 * tokens per request on average.
 *
 * The simulation: the 200 requests arrive at once (an offline batch),
 * prompt and output lengths lognormal with those means and a coefficient
 * of variation of 1, prompts at most 1,024 tokens and outputs at most
 * 2,048 (benchmark_throughput keeps ShareGPT pairs with a prompt of 4 to
 * 1,024 tokens and prompt + output at most 2,048: vLLM
 * benchmarks/benchmark_dataset.py is_valid_sequence; and generates each
 * pair's own output length, ignore_eos; ShareGPT's are heavy-tailed; the
 * coefficient is an assumption, and the
 * makespan of 200 requests depends on the longest: at cv 0.7 and 1.3 the
 * rate moves by about 10 %), on A100-SXM4-80GB with the catalog's
 * constants, CUDA graphs, 1 ms of host time per iteration, a token budget
 * of 8,192 (benchmark_throughput's default for a 70B model is larger
 * than the chunk a prompt needs: whole prompts in one iteration).
 * Requests/s = completions over the time to the last one.
 *
 * The published figures disagree with each other: the vLLM project's
 * performance dashboard gave 5.13 requests/s for the same command, which
 * the reporter could not reproduce (3.28). And an offline batch's rate
 * is set by its longest requests: an output cv of 0.7 gives 5.1
 * requests/s, 1.3 gives 3.4 (tests/VALIDATION.md); at 1.0 it was 3.4 to
 * 4.4 over seed bases 1 to 16 before the engines' gemm_frac. So this is a
 * range check, not a point check: the prediction at cv 1 lies between the
 * two published figures widened by 10 % (2.95 to 5.64 requests/s).
 *
 * Second, engines (issue 29; research.aimultiple.com "inference engines"
 * benchmark, a third-party run: tier C): Llama-3.1-8B-Instruct in bf16 on
 * one H100 80GB, 1,000 ShareGPT prompts offline, GPU memory utilisation
 * 0.8: vLLM 12,553 and SGLang 16,215 output tokens/s. damsim's offline
 * run of the same deployment under each engine profile (data/engines.cfg,
 * not fitted on these; vLLM's offline LLM-class budget of 16,384 tokens)
 * with the ShareGPT means above at cv 1 (prompts up to 4,096 tokens: the
 * page does not say whether it filters ShareGPT as vLLM's benchmark does,
 * nor whether answers end at EOS) must order the engines as measured
 * and land within a factor of two of each figure; the signed errors are
 * reported in tests/VALIDATION.md (damsim under-predicts both).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

static dam_catalog cat;

static const char cfg[] =
    "scenario: { name = \"v\"; question = \"q\"; mode = \"serving\"; seed = "
    "1; };\n"
    "machine: { gpu = \"A100-SXM4-80GB\"; gpus_per_node = 8;\n"
    "  host: { cpu_cores = 64; pcie_gbs = 25.0; };\n"
    "  storage: { kind = \"local_nvme\"; read_gbs = 5.0; latency_ms = 0.1; "
    "};\n"
    "  network: { intra_busbw_gbs = 230.0; inter_busbw_gbs = 25.0; "
    "latency_us = 1.0; }; };\n"
    "workload: { model = \"llama3-70b\"; precision = \"bf16\"; batch_size = "
    "1; cuda_graphs = true; launch_us = 5.0; framework_overhead_ms = 1.0; "
    "};\n"
    "serving: { arrival = \"deterministic\"; rate_per_s = 100000.0; "
    "replicas = 1; requests = 200; replications = 10; };\n"
    "llm: { input_tokens = 213; input_cv = 1.0; input_max = 1024; "
    "output_tokens = 218; output_cv = 1.0; output_max = 2048; tp = 4; "
    "max_seqs = 256; token_budget = 8192; slo_ttft_ms = 1e6; slo_tpot_ms "
    "= 1e6; };\n";

int main(void)
{
    dam_test_start(&cat);
    static dam_scenario s;
    static dam_result r;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_scenario_load(&s, "v.cfg", cfg, &cat, &d);
    dam_diag_free(&d);
    dam_check(rc == DAM_OK, "Llama-3-70B TP4 on 4 x A100 loads");
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.seed = dam_test_seed(1);
    o.have_seed = 1;
    o.warmup = 1;
    dam_error e;
    dam_analytic_solve(&s, &r);
    rc = dam_sim_serving(&s, &o, &r, NULL, &e);
    dam_check(rc == DAM_OK, "simulates");
    const dam_llm_result *l = &r.serving.llm;
    printf("  predicted %.3f requests/s, %.1f output tokens/s (reported "
           "3.28 and 714.48: %+.1f %%; the dashboard's 5.13: %+.1f %%)\n",
           l->throughput, l->tokens_per_s,
           100.0 * (l->throughput / 3.28 - 1.0),
           100.0 * (l->throughput / 5.13 - 1.0));
    dam_check(l->throughput >= 0.9 * 3.28 && l->throughput <= 1.1 * 5.13,
              "vLLM issue 12315: 200 ShareGPT requests on 4 x A100 TP4: "
              "%.3f requests/s lies between the reported 3.28 and the "
              "dashboard's 5.13, widened by 10 %% (out of sample)",
              l->throughput);
    dam_check(l->preemptions == 0.0, "the cache holds the batch without "
              "preemption (%.3g per request)", l->preemptions);

    static const char *const engines[2] = {"vllm", "sglang"};
    static const double measured[2] = {12553.0, 16215.0};
    double got[2] = {0.0, 0.0};
    for (int i = 0; i < 2; i++) {
        char c8[1600];
        snprintf(c8, sizeof c8,
                 "scenario: { name = \"v\"; question = \"q\"; mode = "
                 "\"serving\"; seed = 1; };\n"
                 "machine: { gpu = \"H100-SXM5-80GB\"; gpus_per_node = 8;\n"
                 "  host: { cpu_cores = 64; pcie_gbs = 55.0; };\n"
                 "  storage: { kind = \"local_nvme\"; read_gbs = 5.0; "
                 "latency_ms = 0.1; };\n"
                 "  network: { intra_busbw_gbs = 365.0; inter_busbw_gbs = "
                 "50.0; latency_us = 1.0; }; };\n"
                 "workload: { model = \"llama3-8b\"; precision = \"bf16\"; "
                 "batch_size = 1; launch_us = 5.0; };\n"
                 "serving: { arrival = \"poisson\"; rate_per_s = 1.0; "
                 "requests = 1000; replications = 1; };\n"
                 "llm: { engine = \"%s\"; input_tokens = 213; input_cv = "
                 "1.0; input_max = 4096; output_tokens = 218; output_cv = "
                 "1.0; output_max = 2048; memory_fraction = 0.8; "
                 "token_budget = 16384; slo_ttft_ms = 1e6; slo_tpot_ms = "
                 "1e6; };\n",
                 engines[i]);
        static dam_scenario s8;
        static dam_result r8;
        dam_diag_init(&d);
        rc = dam_scenario_load(&s8, "v8.cfg", c8, &cat, &d);
        dam_diag_free(&d);
        dam_analytic_solve(&s8, &r8);
        if (rc == DAM_OK)
            rc = dam_sim_llm_offline(&s8, &o, &r8, &e);
        dam_check(rc == DAM_OK, "%s: 1,000 ShareGPT-like requests offline",
                  engines[i]);
        got[i] = r8.serving.llm.offline_tokens_per_s;
        printf("  %s offline: predicted %.0f output tokens/s, measured "
               "%.0f (%+.1f %%)\n",
               engines[i], got[i], measured[i],
               100.0 * (got[i] / measured[i] - 1.0));
        dam_check(got[i] > 0.5 * measured[i] && got[i] < 2.0 * measured[i],
                  "%s: within a factor of two of the measured %.0f tokens/s "
                  "(out of sample)",
                  engines[i], measured[i]);
    }
    /* the four rows' signed errors (prediction / measured - 1) and their
     * median, as tests/VALIDATION.md reports them */
    double err[4] = {l->throughput / 3.28 - 1.0, l->throughput / 5.13 - 1.0,
                     got[0] / measured[0] - 1.0, got[1] / measured[1] - 1.0};
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && err[j] < err[j - 1]; j--) {
            double t = err[j];
            err[j] = err[j - 1];
            err[j - 1] = t;
        }
    printf("  signed errors %+.1f, %+.1f, %+.1f, %+.1f %%; median %+.1f %%\n",
           100.0 * err[0], 100.0 * err[1], 100.0 * err[2], 100.0 * err[3],
           50.0 * (err[1] + err[2]));
    dam_check(got[1] > got[0], "SGLang's overlapped scheduler out-runs "
              "vLLM V1's in-series one offline, as measured (%.0f against "
              "%.0f tokens/s)",
              got[1], got[0]);
    return dam_check_done();
}
