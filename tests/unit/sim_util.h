/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_util.h: what the simulator's tests share: the built-in catalogs, a
 * scenario loader that prints its diagnostics, and simulation options with
 * fixed steps and replications (check.h's dam_test_simulate runs them).
 * Header-only (static functions), one copy per test program.
 */
#ifndef DAM_SIM_UTIL_H
#define DAM_SIM_UTIL_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

static dam_catalog sim_cat;

/* Load scenarios/name into s with the catalogs of sim_cat (loaded by
 * dam_test_catalog); DAM_OK or an error (printed). */
static inline int sim_load(const char *name, dam_scenario *s)
{
    return dam_test_scenario(name, &sim_cat, s);
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

/* All service times deterministic. */
static inline void sim_deterministic(dam_scenario *s)
{
    s->data.decode_cv = 0.0;
    s->workload.compute_cv = 0.0;
}

#endif
