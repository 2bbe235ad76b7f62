/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_util.h: what the simulator's tests share: the built-in catalogs, a
 * scenario loader that prints its diagnostics (check.h's dam_test_options
 * and dam_test_simulate set and run the simulation).
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

/* All service times deterministic. */
static inline void sim_deterministic(dam_scenario *s)
{
    s->data.decode_cv = 0.0;
    s->workload.compute_cv = 0.0;
}

#endif
