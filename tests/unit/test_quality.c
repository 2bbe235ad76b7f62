/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_quality.c: run cost, return on compute (the reference text's table
 * of models A, B, C), loss-based RoC, and the Pareto frontier.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "lever_fixture.h"
#include "model/quality.h"

static void test_cost(const dam_catalog *cat)
{
    dam_quality_cost c;
    dam_error err;

    /* 8 GPUs for one hour at $2, 400 W, PUE 1.2, $0.10/kWh. */
    dam_check_int(dam_quality_run_cost(8, 3600.0, 2.0, 400.0, 1.2, 0.10, &c,
                                       &err),
                  DAM_OK, "cost: ok");
    dam_check_rel(c.gpu_hours, 8.0, 1e-12, "cost: 8 GPU-hours");
    dam_check_rel(c.kwh, 8 * 400.0 * 1.2 / 1000.0, 1e-12,
                  "cost: 3.84 kWh at the wall");
    dam_check_rel(c.gpu_usd, 16.0, 1e-12, "cost: $16 of GPU time");
    dam_check_rel(c.energy_usd, 0.384, 1e-12, "cost: $0.384 of power");
    dam_check_rel(c.usd, 16.384, 1e-12, "cost: total dollars");
    dam_check_rel(dam_quality_cost_in(&c, DAM_QUALITY_KWH), c.kwh, 0.0,
                  "cost_in kWh");
    dam_check_int(dam_quality_run_cost(0, 1.0, 2.0, 400.0, 1.2, 0.1, &c,
                                       &err),
                  DAM_EINPUT, "cost: 0 GPUs is DAM_EINPUT");
    dam_check_int(dam_quality_run_cost(8, 1.0, 2.0, 400.0, 0.9, 0.1, &c,
                                       &err),
                  DAM_EINPUT, "cost: PUE < 1 is DAM_EINPUT");
    dam_check(strstr(err.msg, "pue") != NULL, "PUE message: %s", err.msg);

    dam_scenario *s = dam_malloc(sizeof *s);
    fixture_resnet(s, cat);
    dam_check_int(dam_quality_scenario_cost(s, 8, 7200.0, 1.0, &c, &err),
                  DAM_OK, "scenario cost: ok");
    dam_check_rel(c.gpu_hours, 16.0, 1e-12, "scenario cost: 8 GPUs x 2 h");
    dam_check_rel(c.kwh, 8 * 400.0 * 7200 * 1.2 / 3.6e6, 1e-12,
                  "scenario cost: always busy: A100 TDP x PUE");
    /* idle GPUs draw the idle share of TDP, half-busy ones halfway */
    dam_quality_scenario_cost(s, 8, 7200.0, 0.0, &c, &err);
    dam_check_rel(c.kwh,
                  8 * DAM_IDLE_POWER_FRACTION * 400.0 * 7200 * 1.2 / 3.6e6,
                  1e-12, "scenario cost: idle: idle power x PUE");
    dam_quality_scenario_cost(s, 8, 7200.0, 0.5, &c, &err);
    dam_check_rel(c.kwh,
                  8 * (1.0 + DAM_IDLE_POWER_FRACTION) / 2 * 400.0 * 7200 *
                      1.2 / 3.6e6,
                  1e-12, "scenario cost: half busy: halfway");
    s->cost.kwh_usd = 0.25; /* the identity: usd = gh x price + kWh x kwh */
    dam_quality_scenario_cost(s, 8, 7200.0, 0.5, &c, &err);
    dam_check_rel(c.usd, c.gpu_hours * s->cost.gpu_hour_usd + c.kwh * 0.25,
                  1e-12, "scenario cost: GPU time plus electricity");
    s->cost.kwh_usd = 0.0;
    s->cost.gpu_hour_usd = 0.0; /* falls back to the catalog price */
    dam_quality_scenario_cost(s, 8, 3600.0, 1.0, &c, &err);
    dam_check_rel(c.gpu_usd, 16.0, 1e-12,
                  "scenario cost: catalog price when the scenario has none");

    dam_quality_measure m;
    dam_check(dam_quality_measure_parse("dollars", &m) == 0
                  && m == DAM_QUALITY_USD, "parse measure 'dollars'");
    dam_check_str(dam_quality_measure_name(DAM_QUALITY_GPU_HOURS),
                  "gpu_hours", "measure name");
    dam_free(s);
}

static void test_roc(void)
{
    /* Reference table: A 90 % for 10 units, B 93 % for 20, C 94 % for 40. */
    dam_quality_point pts[3] = {
        {"A", 10.0, 90.0}, {"B", 20.0, 93.0}, {"C", 40.0, 94.0}};
    double roc[2], r;
    dam_error err;

    dam_check_int(dam_quality_marginal(pts, 3, 1, roc, &err), DAM_OK,
                  "marginal RoC: ok");
    dam_check_rel(roc[0], 0.3, 1e-12, "A -> B: 0.3 points per unit");
    dam_check_rel(roc[1], 0.05, 1e-12, "B -> C: 0.05 points per unit");
    dam_check(roc[1] < roc[0], "diminishing returns");
    dam_check_int(dam_quality_roc(90.0, 10.0, 94.0, 40.0, 1, &r, &err),
                  DAM_OK, "RoC A -> C: ok");
    dam_check_rel(r, 4.0 / 30.0, 1e-12, "A -> C: 4 points for 30 units");

    /* Loss: lower is better, so RoC uses -delta loss. */
    dam_check_int(dam_quality_roc(2.00, 100.0, 1.95, 150.0, 0, &r, &err),
                  DAM_OK, "RoC on loss: ok");
    dam_check_rel(r, 0.05 / 50.0, 1e-9, "loss 2.00 -> 1.95 for +50: +1e-3");
    dam_check(r > 0, "lower loss for more cost: positive RoC");

    dam_check_int(dam_quality_roc(90.0, 10.0, 91.0, 10.0, 1, &r, &err),
                  DAM_EINPUT, "RoC with equal costs: DAM_EINPUT");
    pts[1].cost = 10.0;
    dam_check_int(dam_quality_marginal(pts, 3, 1, roc, &err), DAM_EINPUT,
                  "marginal with equal costs: DAM_EINPUT");
    dam_check(strstr(err.msg, "'A' to 'B'") != NULL,
              "marginal error names the options: %s", err.msg);
    dam_check_int(dam_quality_marginal(pts, 1, 1, roc, &err), DAM_EINPUT,
                  "marginal of one option: DAM_EINPUT");
}

static void test_pareto(void)
{
    /* D is dominated by B (costs more, less accurate); E duplicates A. */
    dam_quality_point pts[6] = {
        {"C", 40.0, 94.0}, {"A", 10.0, 90.0}, {"D", 25.0, 92.0},
        {"B", 20.0, 93.0}, {"E", 10.0, 90.0}, {"F", 5.0, 80.0}};
    size_t idx[6];
    size_t k = dam_quality_pareto(pts, 6, 1, idx);
    dam_check_int((long)k, 4, "pareto: F, A, B, C on the frontier");
    dam_check(k == 4 && idx[0] == 5 && idx[1] == 1 && idx[2] == 3
                  && idx[3] == 0, "pareto: in increasing cost");

    /* Loss: lower is better. */
    dam_quality_point loss[3] = {
        {"big", 100.0, 1.90}, {"small", 50.0, 2.10}, {"bad", 80.0, 2.20}};
    k = dam_quality_pareto(loss, 3, 0, idx);
    dam_check(k == 2 && idx[0] == 1 && idx[1] == 0,
              "pareto on loss: small, big (bad dominated)");
}

static void test_after(const dam_catalog *cat)
{
    dam_scenario *s = dam_malloc(sizeof *s);
    fixture_lm(s, cat);
    dam_check_rel(dam_quality_tokens(s), 26e9, 1e-12,
                  "tokens = samples * seq_len * epochs");
    double l = dam_scaling_loss(dam_scaling_fit_get(DAM_SCALING_DEFAULT), 1.3e9, 26e9);
    dam_check_rel(dam_quality_after(s), l, 1e-12,
                  "quality of an unset scaling-law value: the fit's loss");
    s->quality.tokens = 30e9;
    dam_check_rel(dam_quality_tokens(s), 30e9, 0.0, "quality.tokens wins");
    fixture_resnet(s, cat);
    dam_check_rel(dam_quality_after(s), 76.1, 0.0, "quality: the value");
    dam_free(s);
}

int main(void)
{
    dam_catalog cat;
    gsl_set_error_handler_off();
    fixture_catalog(&cat);
    test_cost(&cat);
    test_roc();
    test_pareto();
    test_after(&cat);
    dam_catalog_free(&cat);
    return dam_check_done();
}
