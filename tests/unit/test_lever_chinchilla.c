/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_lever_chinchilla.c: the chinchilla lever keeps the training compute
 * C = 6 N D, moves to the fit's optimum or a given tokens-per-parameter
 * ratio, rescales the model's work by the documented shape rule (matmul ~
 * k, attention/elementwise and activations ~ k^(2/3), layers ~ k^(1/3)),
 * changes the data to D', and moves the loss by the fit.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "lever_fixture.h"
#include "model/lever.h"
#include "model/quality.h"
#include "model/scaling.h"

static void test_optimal(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;
    fixture_lm(in, cat);
    /* Make it under-trained: 1.3e9 params on 5.2e9 tokens (4 per param). */
    in->data.samples = 5.2e9 / 2048;
    const dam_scaling_fit *f = dam_scaling_fit_get(DAM_SCALING_DEFAULT);
    double n = 1.3e9, d = 5.2e9, c = 6.0 * n * d, nopt, dopt;
    dam_scaling_optimal(f, c, &nopt, &dopt, NULL);

    fixture_lever(&l, "chinchilla", DAM_LEVER_CHINCHILLA)->tokens_per_param =
        0.0;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_OK,
                  "chinchilla optimal: ok");
    double n2 = out->workload.model.params, d2 = dam_quality_tokens(out);
    double k = n2 / n;
    dam_check_rel(n2, nopt, 1e-12, "params -> N_opt of the fit");
    dam_check_rel(d2, dopt, 1e-9, "tokens -> D_opt (via data.samples)");
    dam_check_rel(6.0 * n2 * d2, c, 1e-9, "compute 6ND kept");
    dam_check_rel(out->data.epochs, 1.0, 0.0, "epochs kept");
    dam_check_rel(out->workload.model.phases[0].flops,
                  in->workload.model.phases[0].flops * k, 1e-12,
                  "matmul FLOPs x N'/N");
    dam_check_rel(out->workload.model.phases[1].flops,
                  in->workload.model.phases[1].flops * pow(k, 2.0 / 3.0),
                  1e-12, "attention FLOPs x (N'/N)^(2/3)");
    dam_check_rel(out->workload.model.phases[2].act_bytes,
                  in->workload.model.phases[2].act_bytes * pow(k, 2.0 / 3.0),
                  1e-12, "activation bytes x (N'/N)^(2/3)");
    double sum = 0.0;
    for (int i = 0; i < out->workload.model.nphases; i++)
        sum += out->workload.model.phases[i].flops;
    dam_check_rel(out->workload.model.flops_per_sample, sum, 1e-12,
                  "flops_per_sample = sum of phases");
    dam_check_rel(dam_lever_weight_bytes(out),
                  dam_lever_weight_bytes(in) * k, 1e-12,
                  "weight bytes follow N");
    dam_check_int(out->workload.model.layers, (long)lround(24 * cbrt(k)),
                  "layers x (N'/N)^(1/3)");
    double l0 = dam_scaling_loss(f, n, d), l1 = dam_scaling_loss(f, n2, d2);
    dam_check(n2 < n, "under-trained model shrinks (%.3g -> %.3g)", n, n2);
    dam_check(l1 < l0, "predicted loss falls (%.4f -> %.4f)", l0, l1);
    dam_check_rel(dam_quality_after(out), l1, 1e-12,
                  "quality = L(N', D') (value from the fit)");

    /* A measured loss moves by the fit's difference. */
    in->quality.from_scaling_law = 0;
    in->quality.value = 3.0;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_OK,
                  "chinchilla on a measured loss: ok");
    dam_check_rel(out->quality.value, 3.0 + (l1 - l0), 1e-9,
                  "measured loss + (L' - L)");

    /* Tokens given directly: they move too. */
    in->quality.tokens = 5.2e9;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_OK,
                  "chinchilla with quality.tokens: ok");
    dam_check_rel(out->quality.tokens, dopt, 1e-9, "quality.tokens -> D'");
    dam_check_rel(out->data.samples, in->data.samples * dopt / 5.2e9, 1e-9,
                  "samples follow the tokens");

    /* Epoch fit chooses a different point. */
    l.ops[0].fit = DAM_SCALING_EPOCH2024;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_OK,
                  "chinchilla with Epoch fit: ok");
    dam_scaling_optimal(dam_scaling_fit_get(DAM_SCALING_EPOCH2024), c, &nopt, &dopt, NULL);
    dam_check_rel(out->workload.model.params, nopt, 1e-12,
                  "Epoch fit: its own N_opt");
    dam_free(in);
    dam_free(out);
}

static void test_ratio_and_errors(const dam_catalog *cat)
{
    dam_scenario *in = dam_malloc(sizeof *in), *out = dam_malloc(sizeof *out);
    dam_lever l;
    dam_error err;
    fixture_lm(in, cat);
    /* Gopher-like: 280e9 params on 300e9 tokens. */
    in->workload.model.params = 280e9;
    in->data.samples = 300e9 / 2048;

    fixture_lever(&l, "20 tok/param", DAM_LEVER_CHINCHILLA)->tokens_per_param
        = 20.0;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_OK,
                  "chinchilla 20: ok");
    double n2 = out->workload.model.params, d2 = dam_quality_tokens(out);
    dam_check_rel(d2 / n2, 20.0, 1e-9, "D' = 20 N'");
    dam_check_rel(6.0 * n2 * d2, 6.0 * 280e9 * 300e9, 1e-9, "6ND kept");
    dam_check(fabs(n2 / 70e9 - 1.0) < 0.1,
              "Gopher's budget at 20 tok/param: ~Chinchilla's 70e9 (%.3g)",
              n2);
    dam_check(dam_quality_after(out)
                  < dam_scaling_loss(dam_scaling_fit_get(DAM_SCALING_DEFAULT), 280e9, 300e9),
              "lower loss than Gopher at the same compute");

    dam_scenario *v = dam_malloc(sizeof *v);
    fixture_resnet(v, cat);
    dam_check_int(dam_lever_apply(v, &l, cat, out, &err), DAM_EINPUT,
                  "chinchilla on a vision model: DAM_EINPUT");
    dam_check(strstr(err.msg, "language models") != NULL,
              "vision message: %s", err.msg);
    in->mode = DAM_MODE_SERVING;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "chinchilla in serving: DAM_EINPUT");
    in->mode = DAM_MODE_TRAINING;
    in->data.samples = 0.0;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_EINPUT,
                  "chinchilla with no tokens: DAM_EINPUT");
    /* Accuracy metric: the fit says nothing about it. */
    fixture_lm(in, cat);
    snprintf(in->quality.metric, sizeof in->quality.metric, "accuracy %%");
    in->quality.higher_is_better = 1;
    in->quality.from_scaling_law = 0;
    in->quality.value = 60.0;
    dam_check_int(dam_lever_apply(in, &l, cat, out, &err), DAM_OK,
                  "chinchilla on accuracy: ok");
    dam_check_int(out->quality.delta_unknown, 1, "accuracy change unknown");
    dam_free(v);
    dam_free(in);
    dam_free(out);
}

int main(void)
{
    dam_catalog cat;
    gsl_set_error_handler_off();
    fixture_catalog(&cat);
    test_optimal(&cat);
    test_ratio_and_errors(&cat);
    dam_catalog_free(&cat);
    return dam_check_done();
}
