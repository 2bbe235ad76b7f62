/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * api_json.c: prints the JSON libdamsim's interface gives for a question,
 * for the test api_cli_parity, which compares it byte for byte with what
 * the damsim command prints for the same question. Linked against the
 * shared library, through damsim.h only.
 *
 *   api_json run|whatif|plan SCENARIO [--analytic] [--seed N]
 *            [--lever KV ...] [--set KEY=VALUE ...]
 *   api_json budget SCENARIO FLOPS DEADLINE_S
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damsim.h"

/* Print s's messages and rc's name, free s and c; rc. */
static int fail(damsim_context *c, damsim_scenario *s, int rc)
{
    const damsim_diag *d = damsim_scenario_diag(s);
    for (size_t i = 0; i < damsim_diag_count(d); i++)
        fprintf(stderr, "%s\n", damsim_diag_message(d, i));
    fprintf(stderr, "api_json: %s\n", damsim_errstr(rc));
    damsim_scenario_free(s);
    damsim_context_free(c);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: api_json run|whatif|plan|budget SCENARIO "
                        "...\n");
        return 3;
    }
    const char *what = argv[1];
    damsim_context *c = damsim_context_create();
    damsim_scenario *s = NULL;
    int rc = damsim_scenario_load(c, argv[2], &s);
    if (rc != DAMSIM_OK)
        return fail(c, s, rc);
    int method = DAMSIM_SIMULATE;
    long seed = DAMSIM_SEED_SCENARIO;
    const char *levers[16];
    int nlevers = 0;
    for (int i = 3; i < argc && strcmp(what, "budget") != 0; i++) {
        if (strcmp(argv[i], "--analytic") == 0) {
            method = DAMSIM_ANALYTIC;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--lever") == 0 && i + 1 < argc &&
                   nlevers < 16) {
            levers[nlevers++] = argv[++i];
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            char key[256];
            const char *kv = argv[++i], *eq = strchr(kv, '=');
            if (!eq || eq - kv >= 256)
                return fail(c, s, 3);
            snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
            if ((rc = damsim_scenario_set(s, key, eq + 1)) != DAMSIM_OK)
                return fail(c, s, rc);
        } else {
            fprintf(stderr, "api_json: unknown argument '%s'\n", argv[i]);
            return fail(c, s, 3);
        }
    }
    const char *json = NULL;
    damsim_result *r = NULL;
    damsim_whatif *w = NULL;
    if (strcmp(what, "run") == 0) {
        /* run takes --lever as the command does: applied in order */
        for (int i = 0; i < nlevers && rc == DAMSIM_OK; i++)
            rc = damsim_scenario_apply_lever(s, levers[i]);
        if (rc == DAMSIM_OK)
            rc = damsim_solve(s, method, seed, &r);
        json = damsim_result_json(r);
    } else if (strcmp(what, "whatif") == 0) {
        rc = damsim_whatif_run(s, levers, nlevers, method, seed, &w);
        json = damsim_whatif_json(w);
    } else if (strcmp(what, "plan") == 0) {
        rc = damsim_plan(s, seed, &r);
        json = damsim_result_json(r);
    } else if (strcmp(what, "budget") == 0 && argc == 5) {
        rc = damsim_plan_budget(s, DAMSIM_BUDGET_FLOPS, atof(argv[3]),
                                atof(argv[4]), &r);
        json = damsim_result_json(r);
    } else {
        rc = DAMSIM_EMISUSE;
    }
    if (rc == DAMSIM_OK)
        fputs(json, stdout);
    damsim_result_free(r);
    damsim_whatif_free(w);
    if (rc != DAMSIM_OK)
        return fail(c, s, rc);
    damsim_scenario_free(s);
    damsim_context_free(c);
    return 0;
}
