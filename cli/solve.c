/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * solve.c: the what-if solver callback the commands share (whatif, report,
 * compare, run's points): the analytic solver, the training simulation or
 * the serving one (serving.c), as the command line asks.
 */
#include "cli/cli.h"
#include "solver/sim.h"

/* The what-if callback: the analytic solver, then (unless --analytic, and
 * not for serving) the simulation with the command line's seed, steps and
 * replications. Every variant gets the same seed, so the levers are
 * compared on common random numbers. */
static int solve(const dam_scenario *s, void *ctx, dam_result *r,
                 dam_error *err)
{
    const dam_cli *c = ctx;
    int rc;
    if (s->mode == DAM_MODE_SERVING && !c->analytic) {
        rc = dam_cli_serving_solve(s, ctx, r, err);
    } else {
        dam_analytic_solve(s, r);
        rc = DAM_OK;
        if (!c->analytic && s->mode != DAM_MODE_SERVING) {
            dam_sim_options o = dam_cli_sim_options(c);
            rc = dam_sim_training(s, &o, r, NULL, err);
        }
    }
    return rc == DAM_OK ? dam_result_check(r, s->file, err) : rc;
}

void dam_cli_solver(dam_cli *c, dam_whatif_solver *fn, void **ctx)
{
    *fn = solve;
    *ctx = c;
}
