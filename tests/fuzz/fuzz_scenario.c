/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_scenario.c: the libFuzzer target (issue 11 item 9). One input is one
 * scenario file's text; it goes the way `damsim run` takes it: the loader
 * (every key, distribution and lever of the schema), the levers applied
 * one by one, the analytic solver, the result's guard, the uncertainty
 * intervals when the scenario has uncertain inputs, and a short
 * discrete-event simulation (training, inference, serving or a parallel
 * layout) under small work and memory limits. A crash, a sanitizer report
 * (ASan, UBSan, LSan), a non-finite number that passes dam_result_check,
 * or a result below its own lower bound is a finding.
 *
 * Built by `sh build.sh fuzz` (clang, -fsanitize=fuzzer,address,undefined);
 * tests/fuzz/corpus holds the seed inputs and tests/fuzz/scenario.dict the
 * schema's keys and tokens. Named files (catalogs, samples, traces) are
 * not followed (skip_catalogs; the others fail to open harmlessly).
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

#define DAM_FUZZ_CATALOG 1 /* GPUs and models */
#include "fuzz_common.h"
#include "model/alloc.h"
#include "model/embedded.h"
#include "model/lever.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"
#include "solver/uncertainty.h"

/* A finding that no sanitizer would flag: say what and stop. */
static void finding(const char *what, double v)
{
    fprintf(stderr, "fuzz: %s (%g)\n", what, v);
    abort();
}

static void solve(const dam_scenario *s)
{
    dam_result *r = dam_malloc(sizeof *r);
    dam_error e;
    dam_analytic_solve(s, r);
    int ok = dam_result_check(r, s->file, &e) == DAM_OK;
    if (ok) {
        double tpipe = r->t_pipe;
        dam_sim_options o;
        memset(&o, 0, sizeof o);
        o.warmup = 1;
        o.steps = s->mode == DAM_MODE_SERVING ? 32 : 2;
        o.replications = 1;
        o.max_events = 5e4;
        o.max_bytes = 256e6;
        int rc = s->mode == DAM_MODE_SERVING
                     ? dam_sim_serving(s, &o, r, NULL, &e)
                     : dam_sim_training(s, &o, r, NULL, &e);
        if (rc == DAM_OK && dam_result_check(r, s->file, &e) != DAM_OK)
            ok = 0;
        if (rc == DAM_OK && ok && s->mode != DAM_MODE_SERVING &&
            !s->layout.on && s->workload.compute_cv == 0.0 &&
            (s->data.decode_cv == 0.0 ||
             s->data.decode_dist == DAM_DIST_DETERMINISTIC) &&
            r->step < tpipe * (1.0 - 1e-6))
            finding("deterministic simulated step below T_pipe", r->step);
    }
    if (ok && dam_uncertainty_sources(s) > 0) {
        dam_uncertainty *u = dam_malloc(sizeof *u);
        dam_uncertainty_run(s, 16, s->seed, u, &e);
        dam_free(u);
    }
    dam_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *text = dam_malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_lever_list *lv = dam_malloc(sizeof *lv);
    dam_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.skip_catalogs = 1;
    lo.levers = lv;
    dam_diag d;
    dam_diag_init(&d);
    if (dam_scenario_load_with(s, "fuzz.cfg", text, &cat, &lo, &d) == DAM_OK) {
        solve(s);
        dam_scenario *x = dam_malloc(sizeof *x);
        for (int i = 0; i < lv->n && i < 4; i++) {
            dam_error e;
            if (dam_lever_apply(s, &lv->v[i], &cat, x, &e) == DAM_OK) {
                dam_result r;
                dam_analytic_solve(x, &r);
                dam_result_check(&r, x->file, &e);
            }
        }
        dam_free(x);
    }
    dam_diag_free(&d);
    dam_free(lv);
    dam_free(s);
    dam_free(text);
    return 0;
}
