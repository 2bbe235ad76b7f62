/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_kineto.c: the libFuzzer target of the profiler-trace reader (issue
 * 25). One input is one trace file's bytes (plain JSON or gzip); it goes
 * the way `damsim whatif --trace` takes it: the reader (model/kineto.h),
 * the dependency graph and its replay (solver/replay.h), the breakdown,
 * and the levers that need no GPU catalog entry (overlap, loader workers)
 * plus a GPU swap. A crash, a sanitizer report, a replay that leaves a
 * node unscheduled without saying so, a non-finite or negative replayed
 * step, or breakdown parts that do not add up to the steps is a finding.
 *
 * Built by `sh build.sh fuzz` beside fuzz_scenario; seeds in
 * tests/fuzz/corpus_kineto, tokens in tests/fuzz/kineto.dict.
 *
 * Static state here is the fuzz driver's, not the library's: the built-in
 * catalog, loaded once.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAM_FUZZ_CATALOG 0 /* the GPU catalog */
#include "fuzz_common.h"
#include "model/alloc.h"
#include "model/embedded.h"
#include "model/kineto.h"
#include "model/loader.h"
#include "solver/replay.h"
#include "solver/trace_whatif.h"
#include "solver/whatif.h"

static void finding(const char *what, double v)
{
    fprintf(stderr, "fuzz_kineto: %s (%g)\n", what, v);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dam_ktrace t;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load(&t, "fuzz.json", (const char *)data, size, &d);
    if (rc != DAM_OK && d.nerr == 0)
        finding("refused without a message", 0.0);
    dam_diag_free(&d);
    dam_rgraph g;
    memset(&g, 0, sizeof g);
    dam_error e;
    if (rc == DAM_OK && dam_rgraph_build(&g, &t, &e) == DAM_OK &&
        dam_replay_run(&g, &e) == DAM_OK) {
        for (int i = 0; i < g.nnodes; i++)
            if (!isfinite(g.nodes[i].start) || !isfinite(g.nodes[i].end) ||
                g.nodes[i].end < g.nodes[i].start)
                finding("a node replayed out of order or not at all", i);
        double s = dam_replay_step(&g, 1);
        if (!isfinite(s) || s < 0.0)
            finding("replayed step", s);
        dam_tbreak br;
        dam_replay_breakdown(&g, &br);
        double sum = 0.0;
        for (int k = 0; k < DAM_TTERM_COUNT; k++)
            sum += br.part[k] * br.steps;
        if (!(fabs(sum - br.window_s) <= 1e-9 * (1.0 + br.window_s)))
            finding("breakdown does not add up", sum - br.window_s);
        static const char *const levers[] = {
            "overlap=1", "loader_workers=8,from=2", "cuda_graphs=1",
            "gpu=H100-SXM5-80GB,from=A100-SXM4-80GB", "precision=bf16"};
        dam_tlever l[5];
        for (int i = 0; i < 5; i++)
            if (dam_tlever_parse(levers[i], &l[i], &e) != DAM_OK)
                abort();
        dam_twhatif *w = dam_malloc(sizeof *w);
        if (dam_trace_whatif(&g, &cat, l, 5, 2, 1, w, &e) == DAM_OK)
            for (int i = 0; i < w->nrows; i++)
                if (w->rows[i].verdict != DAM_VERDICT_FAILED &&
                    !(isfinite(w->rows[i].step_s) && w->rows[i].step_s >= 0))
                    finding("what-if step", w->rows[i].step_s);
        dam_free(w);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
    return 0;
}
