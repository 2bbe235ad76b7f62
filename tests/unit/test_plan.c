/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_plan.c: budget planning. For a FLOP budget the plan's N and D are
 * the fit's compute-optimal point at that budget (6 N D = C); GPU-hour and
 * dollar budgets convert at the scenario's achieved FLOP/s; each feasible
 * option finishes by the deadline; options are sorted cheapest first.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/scaling.h"
#include "solver/analytic.h"
#include "solver/plan.h"

int main(void)
{
    dam_catalog cat = {0};
    dam_test_start(&cat);
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_plan *p = dam_malloc(sizeof *p);
    dam_error e;
    dam_check_int(dam_test_scenario("llama2-7b-pretrain.cfg", &cat, s), DAM_OK,
                  "Llama-2-7B loads");
    double c = 1e22, deadline = 30 * 86400.0;
    dam_check_int(dam_plan_budget(s, &cat, DAM_BUDGET_FLOPS, c, deadline, NULL,
                                  p, &e),
                  DAM_OK, "plan for 1e22 FLOPs");
    double n, d;
    dam_scaling_optimal(dam_scaling_fit_get(DAM_SCALING_DEFAULT), c, &n, &d, NULL);
    dam_check_rel(p->n_opt, n, 1e-6, "N is the fit's optimum at the budget");
    dam_check_rel(p->d_opt, d, 1e-6, "D is the fit's optimum at the budget");
    dam_check_rel(6.0 * p->n_opt * p->d_opt, c, 1e-6, "6 N D = the budget");
    dam_check(p->loss < dam_scaling_loss(dam_scaling_fit_get(DAM_SCALING_DEFAULT), 6.74e9,
                                         c / (6.0 * 6.74e9)),
              "the optimum's loss beats a 7B model at the same compute");
    int feasible = 0, sorted = 1;
    double last = 0.0;
    for (int i = 0; i < p->noptions; i++) {
        const dam_plan_option *o = &p->options[i];
        if (!o->feasible)
            continue;
        feasible++;
        if (o->cost_usd > 0.0) {
            sorted &= o->cost_usd >= last;
            last = o->cost_usd;
        }
        if (strcmp(o->gpu, "A100-SXM4-80GB") == 0 ||
            strcmp(o->gpu, "H100-SXM5-80GB") == 0) {
            dam_check(o->run_time <= deadline,
                      "%s x %d finishes in %.1f d", o->gpu, o->gpus,
                      o->run_time / 86400.0);
        }
    }
    dam_check(feasible >= 3, "several GPU kinds can do it (%d)", feasible);
    /* every option runs the same resized model on its own GPU count:
     * model FLOPs per token = MFU x GPUs x peak / tokens per s is one
     * number across them (mutation testing: a node too many solved went
     * unnoticed) */
    double k0 = 0.0;
    int same = 1, nk = 0;
    for (int i = 0; i < p->noptions; i++) {
        const dam_plan_option *o = &p->options[i];
        const dam_gpu *g = dam_catalog_gpu(&cat, o->gpu);
        if (!g || !(o->tokens_per_s > 0.0) || !(o->mfu > 0.0))
            continue;
        double k = o->mfu * o->gpus * g->peak[s->workload.precision] /
                   o->tokens_per_s;
        if (nk++ == 0)
            k0 = k;
        else if (fabs(k / k0 - 1.0) > 1e-9) {
            printf("#   %s x %d: %.9g FLOP a token, first %.9g\n", o->gpu,
                   o->gpus, k, k0);
            same = 0;
        }
    }
    dam_check(nk >= 3 && same,
              "MFU x GPUs x peak / tokens per s: one FLOPs per token across "
              "%d options (%.4g)", nk, k0);
    dam_check(sorted, "priced options are sorted cheapest first");

    dam_plan *q = dam_malloc(sizeof *q);
    dam_result r;
    dam_analytic_solve(s, &r);
    double per_gpu = r.model_flops_step / r.step;
    double gh = c / (3600.0 * per_gpu);
    dam_check_int(dam_plan_budget(s, &cat, DAM_BUDGET_GPU_HOURS, gh, deadline,
                                  NULL, q, &e),
                  DAM_OK, "the same budget in GPU-hours");
    dam_check_rel(q->flops, c, 1e-9,
                  "GPU-hours convert at the scenario's achieved FLOP/s");
    dam_check_int(dam_plan_budget(s, &cat, DAM_BUDGET_USD,
                                  gh * s->cost.gpu_hour_usd, deadline, NULL, q,
                                  &e),
                  DAM_OK, "the same budget in dollars");
    dam_check_rel(q->flops, c, 1e-9, "dollars convert at the scenario's price");

    dam_check_int(dam_test_scenario("iron-law-data-bound.cfg", &cat, s), DAM_OK,
                  "a non-training scenario loads");
    dam_check(dam_plan_budget(s, &cat, DAM_BUDGET_FLOPS, c, deadline, NULL, q,
                              &e) == DAM_EINPUT &&
                  strstr(e.msg, "training"),
              "a budget plan needs a training scenario: %s", e.msg);
    dam_free(q);
    dam_free(p);
    dam_free(s);
    dam_catalog_free(&cat);
    return dam_check_done();
}
