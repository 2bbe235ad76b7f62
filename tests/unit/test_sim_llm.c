/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_sim_llm.c: the LLM serving simulator (solver/sim_llm.c) against
 * exact sums, queueing theory and conservation laws.
 *
 *  - One request alone (arrivals far apart): its TTFT is exactly its
 *    prefill's iterations (chunked or whole) and the rest of its time
 *    exactly the sum of its decode steps, each at its own context
 *    (llm_cost.h); disaggregated, the cache transfer (bytes / link +
 *    latency) lies between (by construction of the engine).
 *  - M/D/1: one output token, whole prompts of a fixed length, one
 *    sequence at a time: each request is one prefill iteration of fixed
 *    length S, so the TTFT is the M/D/1 sojourn time S + rho S / (2 (1 -
 *    rho)) (Pollaczek-Khinchine). SEEDS seeds at rho = 0.5; the pooled
 *    mean's interval at level 1 - 1e-4 holds theory and is under 1.5 % of
 *    it wide (false alarm 1e-4).
 *  - Little's law on the running sequences: their time average equals the
 *    completion rate times the mean time from first run to the end
 *    (within 3 %: the window's edges).
 *  - Determinism: the same seed gives the same figures, byte for byte.
 *  - A small cache under load: sequences are preempted (recompute and
 *    swap), every measured request still completes, the cache is never
 *    over-full, and TTFT suffers against a large cache.
 *  - Routing: two replicas at twice the rate look like one at the rate
 *    (least-loaded spreading; within 10 % on the mean TTFT).
 *  - The request trace reader: good rows load, and each kind of bad row
 *    is a "file:line" error.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/llm.h"
#include "model/llm_trace.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/llm_cost.h"
#include "solver/sim.h"
#include "solver/stats.h"

static dam_catalog cat;

enum { SEEDS = 10 };

/* A serving scenario of Llama-3-8B on one H100 with llm keys `llm` and
 * serving keys `serving`. */
static int load(dam_scenario *s, const char *serving, const char *llm)
{
    char cfg[3000];
    snprintf(cfg, sizeof cfg,
             "scenario: { name = \"t\"; question = \"q\"; mode = "
             "\"serving\"; seed = 5; };\n"
             "machine: { gpu = \"H100-SXM5-80GB\"; gpus_per_node = 8;\n"
             "  host: { cpu_cores = 8; pcie_gbs = 55.0; };\n"
             "  storage: { kind = \"local_nvme\"; read_gbs = 1.0; "
             "latency_ms = 0.0; };\n"
             "  network: { intra_busbw_gbs = 365.0; inter_busbw_gbs = 50.0; "
             "latency_us = 1.0; }; };\n"
             "workload: { model = \"llama3-8b\"; precision = \"bf16\"; "
             "batch_size = 1; cuda_graphs = true; launch_us = 5.0; "
             "framework_overhead_ms = 0.5; };\n"
             "serving: { %s };\n"
             "llm: { slo_ttft_ms = 500.0; slo_tpot_ms = 50.0; %s };\n",
             serving, llm);
    return dam_test_scenario_text(cfg, &cat, s);
}

static int simulate(const dam_scenario *s, int nreq, int reps,
                    uint64_t seed, dam_result *r)
{
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.steps = nreq;
    o.replications = reps;
    if (seed) {
        o.seed = seed;
        o.have_seed = 1;
    }
    return dam_test_simulate(s, &o, r);
}

/* Requests of in tokens in, out tokens out (with the llm keys), arriving
 * one at a time at rate per second, loaded into s and simulated for nreq
 * requests into r; the checks are named by what. */
static int lone(dam_scenario *s, dam_result *r, int in, int out,
                const char *rate, const char *llm, int nreq, const char *what)
{
    char keys[512], serving[128];
    snprintf(keys, sizeof keys,
             "input_tokens = %d; output_tokens = %d; %s", in, out, llm);
    snprintf(serving, sizeof serving,
             "arrival = \"deterministic\"; rate_per_s = %s;", rate);
    dam_check(load(s, serving, keys) == DAM_OK, "%s: loads", what);
    int rc = simulate(s, nreq, 1, 0, r);
    dam_check(rc == DAM_OK, "%s: simulates", what);
    return rc;
}

/* One request alone: exact sums of the costs. */
static void test_alone(const char *what, const char *llm, int disagg)
{
    static dam_scenario s;
    static dam_result r;
    int in = 1700, out = 40;
    lone(&s, &r, in, out, "0.01", llm, 3, what);
    const dam_llm *q = &s.serving.llm;
    dam_error e;
    dam_llm_cost *c = dam_llm_cost_create(&s, q->tp, &e);
    double chunk = q->chunked_prefill ? q->chunk_tokens : 0.0;
    double ttft = dam_llm_cost_prefill(c, in, chunk);
    double dec = 0.0;
    for (int k = 0; k < out - 1; k++)
        dec += dam_llm_cost_decode1(c, in + k);
    dam_llm_cost_free(c);
    double xfer = disagg ? in * r.serving.llm.memory.kv_token_model /
                                   q->kv_link_bw +
                               q->kv_link_latency
                         : 0.0;
    const dam_llm_result *l = &r.serving.llm;
    dam_check_rel(l->ttft.mean, ttft, 1e-9, what);
    dam_check_rel(l->e2e.mean - l->ttft.mean, dec + xfer, 1e-9,
                  "... and its decode steps (and transfer) after the first "
                  "token, summed by hand");
    dam_check_rel(l->tpot.mean, (dec + xfer) / (out - 1), 1e-9,
                  "... TPOT is their mean");
    dam_check(l->queue.max == 0.0, "... it never waits (%g s)",
              l->queue.max);
}

static void test_md1(void)
{
    static dam_scenario s;
    static dam_result r;
    int in = 512;
    char keys[256];
    snprintf(keys, sizeof keys,
             "input_tokens = %d; input_max = %d; output_tokens = 1; "
             "max_seqs = 1; chunked_prefill = false; token_budget = %d;",
             in, in, in);
    dam_check(load(&s, "arrival = \"poisson\"; rate_per_s = 1.0;", keys) ==
                  DAM_OK,
              "M/D/1: loads");
    dam_error e;
    dam_llm_cost *c = dam_llm_cost_create(&s, 1, &e);
    double S = dam_llm_cost_prefill(c, in, 0.0);
    dam_llm_cost_free(c);
    double rho = 0.5;
    s.serving.rate = rho / S;
    double want = S + rho * S / (2.0 * (1.0 - rho));
    double x[SEEDS];
    uint64_t s0 = dam_test_seed(11);
    int ok = 1;
    for (int i = 0; i < SEEDS; i++) {
        ok &= simulate(&s, 20000, 5, s0 + (uint64_t)i, &r) == DAM_OK;
        x[i] = r.serving.llm.ttft.mean;
    }
    dam_check(ok, "M/D/1: %d seeds simulate", SEEDS);
    dam_stat st;
    dam_stats_replications(x, SEEDS, &st, NULL);
    double half = dam_test_t(1e-4, SEEDS - 1) * st.sd / sqrt(SEEDS);
    dam_check(fabs(st.mean - want) <= half,
              "M/D/1 (S = %.4f ms, rho 0.5): mean TTFT %.4f +- %.4f ms "
              "(level 1 - 1e-4) holds theory %.4f ms",
              S * 1e3, st.mean * 1e3, half * 1e3, want * 1e3);
    dam_check(st.ci95 < 0.015 * want,
              "M/D/1: the pooled 95 %% half-width %.4f ms is under 1.5 %% "
              "of theory",
              st.ci95 * 1e3);
}

static void test_little(void)
{
    static dam_scenario s;
    static dam_result r;
    load(&s, "arrival = \"poisson\"; rate_per_s = 12.0;",
         "input_tokens = 800; input_cv = 0.5; output_tokens = 150; "
         "output_cv = 0.7;");
    simulate(&s, 20000, 2, dam_test_seed(21), &r);
    const dam_llm_result *l = &r.serving.llm;
    double service = l->e2e.mean - l->queue.mean;
    dam_check_rel(l->running_mean, l->throughput * service, 0.03,
                  "Little's law: running sequences = completion rate x "
                  "time from first run to the end");
    dam_check_rel(l->throughput, s.serving.rate, 0.03,
                  "a stable system completes what arrives");
    dam_check_rel(l->tokens_per_s, l->throughput * 150.0, 0.05,
                  "output tokens/s = requests/s x mean output");
    dam_sim_options eo;
    memset(&eo, 0, sizeof eo);
    eo.steps = 20000;
    eo.replications = 2;
    double est = dam_sim_llm_events(&s, &eo);
    dam_check(r.events > 0.0 && r.events <= est,
              "the events estimate %.3g bounds the %.3g run (batching made "
              "it %.0fx fewer)",
              est, r.events, est / r.events);
    static dam_result r2;
    simulate(&s, 20000, 2, dam_test_seed(21), &r2);
    dam_check(memcmp(&r.serving.llm, &r2.serving.llm,
                     sizeof r.serving.llm) == 0,
              "the same seed gives the same figures, byte for byte");
}

static void test_preemption(const char *mode)
{
    static dam_scenario s, big;
    static dam_result r, rb;
    char keys[512];
    /* 0.215 of 85.9 GB leaves ~2.4 GB for the cache: ~18,000 tokens */
    snprintf(keys, sizeof keys,
             "input_tokens = 1500; output_tokens = 600; output_cv = 0.5; "
             "output_max = 2000; input_max = 1500; memory_fraction = 0.215; "
             "preemption = \"%s\";",
             mode);
    dam_check(load(&s, "arrival = \"poisson\"; rate_per_s = 6.0;", keys) ==
                  DAM_OK,
              "%s: a small cache loads", mode);
    int n = 3000, reps = 2;
    dam_check(simulate(&s, n, reps, dam_test_seed(31), &r) == DAM_OK,
              "%s: simulates", mode);
    const dam_llm_result *l = &r.serving.llm;
    dam_check(l->memory.tokens < 25000 && l->memory.fits,
              "%s: the cache holds %.0f tokens", mode, l->memory.tokens);
    dam_check(l->preemptions > 0.0, "%s: sequences are preempted (%.3g per "
              "request)", mode, l->preemptions);
    dam_check_rel(l->requests, (double)reps * (n - n / 10), 0.0,
                  "every measured request completes");
    dam_check(l->kv_use_peak <= 1.0 + 1e-12, "%s: the cache is never "
              "over-full (peak %.4f)", mode, l->kv_use_peak);
    snprintf(keys, sizeof keys,
             "input_tokens = 1500; output_tokens = 600; output_cv = 0.5; "
             "output_max = 2000; input_max = 1500; preemption = \"%s\";",
             mode);
    load(&big, "arrival = \"poisson\"; rate_per_s = 6.0;", keys);
    simulate(&big, n, reps, dam_test_seed(31), &rb);
    dam_check(rb.serving.llm.preemptions == 0.0 &&
                  l->ttft.mean > rb.serving.llm.ttft.mean,
              "%s: a full-size cache preempts nothing and starts sooner "
              "(TTFT %.4g against %.4g ms)",
              mode, rb.serving.llm.ttft.mean * 1e3, l->ttft.mean * 1e3);
}

/* Prefix caching: a lone request's TTFT is the prefill of its uncached
 * tokens after the cached ones (llm_cost exact sums); under load, half of
 * each prompt cached halves the prompt tokens computed and cuts TTFT; a
 * shared 512-token prefix holds its blocks once per replica. */
static void test_prefix(void)
{
    static dam_scenario s, h;
    static dam_result r, rh;
    const char *k = "input_tokens = 1024; output_tokens = 64; "
                    "token_budget = 2048;";
    char kh[256];
    snprintf(kh, sizeof kh, "%s prefix_hit_rate = 0.5;", k);
    load(&s, "arrival = \"poisson\"; rate_per_s = 8.0;", k);
    load(&h, "arrival = \"poisson\"; rate_per_s = 8.0;", kh);
    simulate(&s, 1500, 2, dam_test_seed(41), &r);
    simulate(&h, 1500, 2, dam_test_seed(41), &rh);
    const dam_llm_result *a = &r.serving.llm, *b = &rh.serving.llm;
    dam_check_rel(b->prefill_tokens_per_s / a->prefill_tokens_per_s, 0.5,
                  0.02, "half of each prompt cached: half the prompt tokens "
                        "computed");
    dam_check(b->ttft.mean < 0.8 * a->ttft.mean,
              "and TTFT falls (%.4g against %.4g ms)", b->ttft.mean * 1e3,
              a->ttft.mean * 1e3);
    dam_error e;
    dam_llm_cost *c = dam_llm_cost_create(&h, 1, &e);
    if (c) {
        double want = dam_llm_cost_prefill_from(c, 512.0, 1024.0, 2048.0);
        dam_check_rel(b->t_prefill, want, 1e-12,
                      "a lone prompt prefills its uncached 512 tokens");
        dam_check(want < dam_llm_cost_prefill(c, 1024.0, 2048.0),
                  "faster than the whole prompt");
        dam_llm_cost_free(c);
    }
    static dam_scenario p;
    static dam_result rp;
    snprintf(kh, sizeof kh, "%s prefix_tokens = 512;", k);
    load(&p, "arrival = \"poisson\"; rate_per_s = 8.0;", kh);
    simulate(&p, 1500, 2, dam_test_seed(41), &rp);
    dam_check_rel(rp.serving.llm.prefill_tokens_per_s /
                      a->prefill_tokens_per_s,
                  0.5, 0.02, "a shared 512-token prefix: the same half");
    dam_check(rp.serving.llm.kv_use_peak <= 1.0 + 1e-12,
              "the cache is never over-full");
}

/* Speculative decoding: lone requests (no batching) take steps of k + 1
 * verified tokens with the draft's k proposals, each yielding (1 -
 * a^(k+1)) / (1 - a) tokens on average (Leviathan et al. 2023): their TPOT
 * is a step's cost over that (within 3 %: the draws, and the context
 * growing a few tokens); a step costs more than a plain decode step, and
 * a token less with a cheap draft (MTP) but more with a draft as large as
 * the target. */
static void test_speculative(const char *what, const char *spec, int gains)
{
    static dam_scenario s;
    static dam_result r;
    lone(&s, &r, 500, 401, "0.05", spec, 300, what);
    const dam_llm *q = &s.serving.llm;
    dam_error e;
    dam_llm_cost *c = dam_llm_cost_create(&s, 1, &e);
    if (!c)
        return;
    dam_llm_batch b;
    dam_llm_batch_clear(&b);
    b.decode_seqs = 1.0;
    b.decode_ctx = 700.0; /* the middle of the answer */
    b.decode_q = q->spec_tokens + 1;
    double step = dam_llm_cost_iteration(c, &b, NULL);
    b.decode_q = 1.0;
    dam_llm_cost_free(c);
    s.serving.llm.spec = DAM_LLM_SPEC_NONE;
    c = dam_llm_cost_create(&s, 1, &e);
    double plain = c ? dam_llm_cost_iteration(c, &b, NULL) : 0.0;
    dam_llm_cost_free(c);
    s.serving.llm.spec = q->spec_draft.id[0] ? DAM_LLM_SPEC_DRAFT
                                             : DAM_LLM_SPEC_MTP;
    double per = dam_llm_spec_tokens_per_step(q);
    dam_check_rel(r.serving.llm.tpot.mean, step / per, 0.03,
                  "... TPOT = a speculative step's cost / tokens per step");
    dam_check(step > plain && (step / per < plain) == gains,
              "%s: a step costs more than a plain one (%.4g against %.4g "
              "ms) and a token %s (%.4g ms)",
              what, step * 1e3, plain * 1e3, gains ? "less" : "more",
              step / per * 1e3);
}

static void test_replicas(void)
{
    static dam_scenario a, b;
    static dam_result ra, rb;
    const char *keys = "input_tokens = 800; output_tokens = 100;";
    load(&a, "arrival = \"poisson\"; rate_per_s = 10.0; replicas = 1;",
         keys);
    load(&b, "arrival = \"poisson\"; rate_per_s = 20.0; replicas = 2;",
         keys);
    simulate(&a, 10000, 2, dam_test_seed(41), &ra);
    simulate(&b, 20000, 2, dam_test_seed(41), &rb);
    dam_check_rel(rb.serving.llm.throughput, 2.0 * ra.serving.llm.throughput,
                  0.05, "two replicas at twice the rate complete twice");
    dam_check_rel(rb.serving.llm.ttft.mean, ra.serving.llm.ttft.mean, 0.10,
                  "... with about the TTFT of one at the rate");
    dam_check_rel(rb.serving.llm.gpus, 2.0, 0.0, "... on 2 GPUs");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void bad_trace(const dam_scenario *s, const char *text, int line,
                      const char *want)
{
    const char *path = "llm_trace_bad.csv";
    write_file(path, text);
    dam_llm_request *q = NULL;
    size_t n = 0;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_llm_trace_load(path, s, &q, &n, &d);
    int found = 0;
    for (size_t i = 0; i < d.n; i++)
        found |= d.items[i].line == line && strstr(d.items[i].msg, want);
    dam_check(rc == DAM_EINPUT && q == NULL && n == 0 && found,
              "a bad trace: line %d says \"%s\" (%s)", line, want,
              d.n ? d.items[0].msg : "no error");
    dam_diag_free(&d);
    remove(path);
}

static void test_trace(void)
{
    static dam_scenario s;
    static dam_result r;
    load(&s, "arrival = \"poisson\"; rate_per_s = 1.0;",
         "input_tokens = 500; input_max = 4000; output_tokens = 50; "
         "output_max = 300;");
    const char *path = "llm_trace_ok.csv";
    write_file(path, "arrival_s,input_tokens,output_tokens\n"
                     "# a comment\n"
                     "0.0,1000,100\n"
                     "\n"
                     "0.5, 200, 300\n"
                     "0.5,4000,1\n");
    dam_llm_request *q = NULL;
    size_t n = 0;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_llm_trace_load(path, &s, &q, &n, &d);
    dam_check(rc == DAM_OK && n == 3 && q[1].input == 200 &&
                  q[1].output == 300 && q[2].arrive == 0.5,
              "a trace with a header, a comment and a blank line: 3 "
              "requests");
    dam_diag_free(&d);
    remove(path);
    if (rc == DAM_OK) {
        dam_sim_options o;
        memset(&o, 0, sizeof o);
        o.requests = q;
        o.nrequests = n;
        o.replications = 1;
        s.serving.arrival = DAM_ARRIVAL_TRACE;
        dam_error e;
        dam_analytic_solve(&s, &r);
        rc = dam_sim_serving(&s, &o, &r, NULL, &e);
        dam_check(rc == DAM_OK && r.serving.llm.requests == 3.0,
                  "the trace's requests are simulated (%.0f measured)",
                  r.serving.llm.requests);
    }
    dam_free(q);
    bad_trace(&s, "0.0,100,10\n1.0,abc,10\n", 2, "expected input tokens");
    bad_trace(&s, "0.0,100,10\n1.0,100\n", 2, "expected 3 fields");
    bad_trace(&s, "0.0,100,10\n1.0,100,10,7\n", 2, "got 4");
    bad_trace(&s, "1.0,100,10\n0.5,100,10\n", 2, "must not decrease");
    bad_trace(&s, "-1.0,100,10\n", 1, "must be in [0, 1e+07] s");
    bad_trace(&s, "0.0,0,10\n", 1, "whole number >= 1");
    bad_trace(&s, "0.0,10.5,10\n", 1, "whole number >= 1");
    bad_trace(&s, "0.0,4001,10\n", 1, "exceed llm.input_max");
    bad_trace(&s, "0.0,100,301\n", 1, "exceed llm.output_max");
    bad_trace(&s, "# nothing\n", 0, "no requests");
}

/* The scheduler's two limits under overload (issue 24: a mutant admitting
 * max_seqs + 1, and one not charging a part-way prompt's chunk to the
 * iteration's token budget, passed every test). 200 requests of 3,000
 * prompt tokens arrive far faster than one H100 prefills them, in chunks
 * of 256 under a budget of 512: every iteration holds a part-way prompt
 * and admits behind it, so both limits bind, and both are exact. */
static void test_limits(void)
{
    static dam_scenario s;
    static dam_result r;
    /* a budget far above max_seqs chunks: the sequence count binds */
    load(&s, "arrival = \"poisson\"; rate_per_s = 200.0;",
         "input_tokens = 3000; input_max = 4000; output_tokens = 4; "
         "output_max = 100; max_seqs = 6; chunk_tokens = 256; "
         "token_budget = 8192;");
    simulate(&s, 200, 1, dam_test_seed(23), &r);
    const dam_llm_result *l = &r.serving.llm;
    dam_check(l->running_peak == 6.0,
              "max_seqs 6: the peak of running sequences is 6, no more, no "
              "fewer (%g)", l->running_peak);
    /* two chunks' budget and room for many sequences: the budget binds */
    load(&s, "arrival = \"poisson\"; rate_per_s = 200.0;",
         "input_tokens = 3000; input_max = 4000; output_tokens = 4; "
         "output_max = 100; max_seqs = 64; chunk_tokens = 256; "
         "token_budget = 512;");
    simulate(&s, 200, 1, dam_test_seed(23), &r);
    dam_check(l->batch_tokens_mean <= 512.0 + 1e-9 &&
                  l->batch_tokens_mean > 0.9 * 512.0,
              "token budget 512: new tokens per iteration at most 512 and "
              "near it when every iteration prefills (%.1f)",
              l->batch_tokens_mean);
}

int main(void)
{
    dam_test_start(&cat);
    test_alone("alone, chunked in 512: TTFT is its 4 prefill iterations",
               "chunk_tokens = 512;", 0);
    test_alone("alone, whole prompt: TTFT is one prefill iteration",
               "chunked_prefill = false;", 0);
    test_alone("alone, TP2: TTFT is its prefill iteration", "tp = 2;", 0);
    test_alone("alone, disaggregated: TTFT is the prefill replica's",
               "disaggregate = { prefill_replicas = 1; decode_replicas = 1; "
               "kv_link_gbs = 25.0; kv_link_latency_us = 20.0; };",
               1);
    test_md1();
    test_little();
    test_preemption("recompute");
    test_preemption("swap");
    test_prefix();
    test_speculative("draft: Llama-3-8B drafts 4 for itself at 0.7",
                     "speculative = { method = \"draft\"; draft_model = "
                     "\"llama3-8b\"; tokens = 4; acceptance = 0.7; };",
                     0);
    test_speculative("MTP: one block proposes 2 at 0.8",
                     "speculative = { method = \"mtp\"; tokens = 2; "
                     "acceptance = 0.8; };",
                     1);
    test_replicas();
    test_trace();
    test_limits();
    return dam_check_done();
}
