/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_compare.c: `damsim compare A.cfg B.cfg ...`: loads and solves the
 * scenarios; render/page/compare.c lays out the side-by-side table or JSON and
 * render/chart/chartset.c the breakdown chart written with -o.
 */
#include <stdio.h>
#include <string.h>

#include "render/chart/chartset.h"
#include "cli/cli.h"
#include "model/alloc.h"
#include "render/page/compare.h"
#include "render/out/csv.h"

#define MAX_CMP DAM_COMPARE_MAX

static const char compare_help[] =
    "usage: damsim compare A.cfg B.cfg [C.cfg ...] [--json] [-o FILE|DIR]\n"
    "\n"
    "Solves each scenario (up to 8) and shows them side by side: every input\n"
    "that differs, every output with its change from the first scenario,\n"
    "and the step per iron-law term. -o writes a breakdown chart.\n";

int dam_cmd_compare(dam_cli *c)
{
    if (c->help)
        return dam_cli_help(compare_help);
    if (c->nargs < 2 || c->nargs > MAX_CMP) {
        char msg[64];
        snprintf(msg, sizeof msg, "compare needs 2 to %d scenario files",
                 MAX_CMP);
        return dam_cli_usage_error("compare", msg, NULL);
    }
    int n = c->nargs;
    dam_scenario *s = dam_calloc((size_t)n, sizeof *s);
    dam_result *r = dam_calloc((size_t)n, sizeof *r);
    dam_diagnosis *d = dam_calloc((size_t)n, sizeof *d);
    int rc = 0;
    dam_whatif_solver solve;
    void *ctx;
    dam_cli_solver(c, &solve, &ctx);
    for (int i = 0; i < n; i++)
        if (dam_cli_load_scenario(c, c->args[i], &s[i]) != 0)
            rc = 2;
    for (int i = 0; rc == 0 && i < n; i++) {
        dam_error e;
        memset(&e, 0, sizeof e);
        if (solve(&s[i], ctx, &r[i], &e) != DAM_OK) {
            dam_cli_error(&e);
            rc = 1;
        }
        dam_diagnose(&s[i], &r[i], &d[i]);
    }
    if (rc != 0)
        goto done;

    /* 90 % intervals: the same named draws for every scenario, so the
     * speed-up against the first is paired */
    dam_answer_interval *iv = dam_calloc((size_t)n, sizeof *iv);
    dam_draws *dr = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, s[0].seed);
    int nd = dam_draws_count(dr);
    double *t0 = dam_malloc((size_t)nd * 2 * sizeof *t0), *ti = t0 + nd;
    if (dam_uncertainty_sources(&s[0]) > 0) {
        dam_uncertainty_answer(dr, &s[0], &s[0], NULL, t0, &iv[0]);
        dam_figures f0 = dam_figures_of(&r[0]);
        if (r[0].has_sim)
            dam_interval_carry(&iv[0], &f0, 0.0, 0.0, NULL, NULL, 0);
        for (int i = 1; i < n; i++) {
            if (dam_uncertainty_sources(&s[i]) == 0)
                continue;
            dam_uncertainty_answer(dr, &s[i], &s[i], t0, ti, &iv[i]);
            if (!r[i].has_sim && !r[0].has_sim)
                continue;
            /* the intervals of the simulated figures shown, the speed-up
             * over the first file's included */
            int sv = s[0].mode == DAM_MODE_SERVING;
            double h0 = sv ? r[0].step : r[0].run_time,
                   hi = sv ? r[i].step : r[i].run_time,
                   n0 = sv ? iv[0].nominal.step : iv[0].nominal.run_time,
                   ni = sv ? iv[i].nominal.step : iv[i].nominal.run_time;
            dam_figures fi = dam_figures_of(&r[i]);
            dam_interval_carry(&iv[i], &fi, hi > 0.0 ? h0 / hi : 0.0,
                               ni > 0.0 ? n0 / ni : 0.0, t0, ti, nd);
        }
    }
    dam_free(t0);
    dam_draws_free(dr);
    dam_buf b = {0};
    if (c->csv) {
        dam_csv_compare(&b, s, r, n);
    } else {
        /* each file's own settings, for inputs in the files' units */
        dam_setting *set[MAX_CMP] = {0};
        int nset[MAX_CMP] = {0}, have = 1;
        for (int i = 0; i < n; i++) {
            nset[i] = strcmp(c->args[i], "-") == 0
                          ? -1
                          : dam_scenario_settings(c->args[i], NULL, &set[i]);
            have &= nset[i] >= 0;
        }
        dam_compare_write(&b, s, r, d, iv,
                          have ? (const dam_setting *const *)set : NULL,
                          have ? nset : NULL, n, c->json);
        for (int i = 0; i < n; i++)
            dam_settings_free(set[i], nset[i] > 0 ? nset[i] : 0);
    }
    dam_free(iv);
    rc = dam_cli_emit(c, &b);
    dam_buf_free(&b);
    if (rc == 0) {
        const dam_scenario *sp[MAX_CMP];
        const dam_result *rp[MAX_CMP];
        for (int i = 0; i < n; i++) {
            sp[i] = &s[i];
            rp[i] = &r[i];
        }
        dam_chartset *cs = dam_malloc(sizeof *cs);
        dam_chartset_compare(cs, sp, rp, n, NULL);
        rc = dam_cli_charts(c, cs);
        dam_chartset_free(cs);
        dam_free(cs);
    }
done:
    dam_free(d);
    dam_free(r);
    dam_free(s);
    return rc;
}
