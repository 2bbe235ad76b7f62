/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_util.h: what the simulator's tests share: the built-in catalogs, a
 * scenario loader that prints its diagnostics, and a one-call "analytic
 * then simulate" with fixed steps and replications. Header-only (static
 * functions), one copy per test program.
 */
#ifndef DAM_SIM_UTIL_H
#define DAM_SIM_UTIL_H

#include <stdio.h>
#include <string.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

static dam_catalog sim_cat;

/* Load the built-in catalogs once; returns the number of errors. */
static inline int sim_catalogs(void)
{
    dam_diag d;
    dam_diag_init(&d);
    dam_catalog_load_gpus(&sim_cat, "gpus.cfg",
                          dam_embedded_find("gpus.cfg")->text, &d);
    dam_catalog_load_models(&sim_cat, "models.cfg",
                            dam_embedded_find("models.cfg")->text, &d);
    int n = d.nerr;
    dam_diag_free(&d);
    return n;
}

/* Load scenarios/name into s; DAM_OK or an error (printed). The seed goes
 * through dam_test_seed (DAM_TEST_SEED_BASE), as sim_opts's does. */
static inline int sim_load(const char *name, dam_scenario *s)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR, name);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_scenario_load(s, path, NULL, &sim_cat, &d);
    s->seed = dam_test_seed(s->seed);
    for (size_t i = 0; i < d.n; i++)
        if (d.items[i].sev == DAM_SEV_ERROR)
            printf("  %s:%d: %s\n", d.items[i].file, d.items[i].line,
                   d.items[i].msg);
    dam_diag_free(&d);
    return rc;
}

/* Options: warmup, steps, replications, seed (0 = scenario's). */
static inline dam_sim_options sim_opts(int warmup, int steps, int reps,
                                unsigned long seed)
{
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.warmup = warmup;
    o.steps = steps;
    o.replications = reps;
    o.seed = dam_test_seed(seed);
    o.have_seed = seed != 0;
    return o;
}

/* Solve analytically, then simulate with o; returns the simulator's code
 * (the error is printed). */
static inline int sim_run(const dam_scenario *s, const dam_sim_options *o,
                   dam_result *r)
{
    dam_error e;
    dam_analytic_solve(s, r);
    int rc = dam_sim_training(s, o, r, NULL, &e);
    if (rc != DAM_OK)
        printf("  simulation failed: %s\n", e.msg);
    return rc;
}

/* All service times deterministic. */
static inline void sim_deterministic(dam_scenario *s)
{
    s->data.decode_cv = 0.0;
    s->workload.compute_cv = 0.0;
}

#endif
