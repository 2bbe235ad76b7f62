/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_all_models.c: every catalog model runs with defaults on every
 * catalog GPU at every precision that GPU supports (issue 9): the scenario
 * loads with no efficiency given, the analytic solve of a training step
 * and of an inference batch gives a finite, positive step, throughput and
 * memory, and the compute comes from the operator graph on the device
 * model. At each pair's first supported precision the discrete-event
 * simulation runs a few steps too and lands between the analytic bounds
 * T_pipe <= T_des <= T_seq (deterministic service; MODEL.md section 1).
 * By construction (robustness), not validation.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

static int fin(double v)
{
    return isfinite(v) && v > 0.0;
}

int main(void)
{
    dam_catalog cat = {0};
    dam_test_start(&cat);
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_result *r = dam_malloc(sizeof *r);
    char text[2048];
    long runs = 0, bad = 0, sims = 0, simbad = 0;
    for (size_t mi = 0; mi < cat.nmodels; mi++) {
        const dam_model_spec *m = &cat.models[mi];
        for (size_t gi = 0; gi < cat.ngpus; gi++) {
            const dam_gpu *g = &cat.gpus[gi];
            int first = 1;
            for (int p = 0; p < DAM_PREC_COUNT; p++) {
                if (!(g->peak[p] > 0.0))
                    continue;
                for (int mode = 0; mode < 2; mode++) {
                    snprintf(text, sizeof text,
                             "scenario: { name = \"all\"; question = \"q\"; "
                             "mode = \"%s\"; };\n"
                             "machine: { gpu = \"%s\"; gpus_per_node = 1;\n"
                             "  host: { cpu_cores = 32; pcie_gbs = 25.0; };\n"
                             "  storage: { kind = \"page_cache\"; read_gbs = "
                             "100.0; }; };\n"
                             "workload: { model = \"%s\"; precision = "
                             "\"%s\"; batch_size = 2; };\n"
                             "data: { samples = 1000.0; decode_ms = 0.0; };\n"
                             "pipeline: { loader_workers = 2; steps = 20; "
                             "warmup_steps = 2; replications = 1; };\n",
                             mode ? "inference" : "training", g->id, m->id,
                             dam_precision_name((dam_precision)p));
                    dam_diag d;
                    dam_diag_init(&d);
                    int rc = dam_scenario_load(s, "all.cfg", text, &cat, &d);
                    if (rc != DAM_OK && d.n > 0)
                        printf("# %s on %s at %s: %s\n", m->id, g->id,
                               dam_precision_name((dam_precision)p),
                               d.items[0].msg);
                    dam_diag_free(&d);
                    runs++;
                    if (rc != DAM_OK) {
                        bad++;
                        continue;
                    }
                    dam_analytic_solve(s, r);
                    dam_compute cp;
                    dam_analytic_compute(s, 2.0, &cp, NULL, NULL);
                    int ok = fin(r->step) && fin(r->throughput) &&
                             fin(r->memory.total) && fin(r->t_compute) &&
                             isfinite(r->mfu) && cp.graph &&
                             !s->workload.eta_given;
                    if (!ok) {
                        bad++;
                        printf("# %s on %s at %s (%s): step %g, "
                               "throughput %g, graph %d\n",
                               m->id, g->id,
                               dam_precision_name((dam_precision)p),
                               mode ? "inference" : "training", r->step,
                               r->throughput, cp.graph);
                        continue;
                    }
                    if (!first || mode)
                        continue;
                    /* one short deterministic simulation per pair */
                    s->data.decode_cv = 0.0;
                    s->workload.compute_cv = 0.0;
                    dam_analytic_solve(s, r);
                    double tp = r->t_pipe, ts = r->t_seq;
                    dam_sim_options o = {0};
                    o.warmup = 2;
                    o.steps = 20;
                    o.replications = 1;
                    dam_error e;
                    sims++;
                    rc = dam_sim_training(s, &o, r, NULL, &e);
                    if (rc != DAM_OK || !fin(r->step) ||
                        r->step < tp * (1.0 - 1e-6) ||
                        r->step > ts * (1.0 + 1e-6)) {
                        simbad++;
                        printf("# simulation of %s on %s: rc %d, step %g "
                               "(bounds %g .. %g)\n",
                               m->id, g->id, rc, r->step, tp, ts);
                    }
                }
                first = 0;
            }
        }
    }
    dam_check(runs > 500 && bad == 0,
              "%ld model x GPU x precision x mode runs with defaults, %ld "
              "failed",
              runs, bad);
    dam_check(sims == (long)(cat.nmodels * cat.ngpus) && simbad == 0,
              "%ld model x GPU simulations between the analytic bounds, "
              "%ld not",
              sims, simbad);
    dam_free(r);
    dam_free(s);
    dam_catalog_free(&cat);
    return dam_check_done();
}
