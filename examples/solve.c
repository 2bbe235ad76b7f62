/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * solve.c: a program built on libdamsim's interface (damsim.h). It loads
 * a scenario file, optionally sets keys, applies one lever given as on
 * damsim's command line, and solves both with the analytic solver: the
 * step time, what binds, and the run's time and cost before and after.
 *
 *   cc solve.c $(pkg-config --cflags --libs damsim) -o solve
 *   ./solve scenario.cfg gpu=H100-SXM5-80GB [KEY=VALUE ...]
 *
 * The KEY=VALUE arguments set scenario keys by their path in the file
 * (pipeline.loader_workers=16) before the lever. Every problem is printed
 * as file:line: error: message, and the program exits 2.
 */
#include <stdio.h>
#include <string.h>

#include <damsim.h>

/* Print the messages of d on stderr; returns 2 for the exit code. */
static int report(const damsim_diag *d)
{
    for (size_t i = 0; i < damsim_diag_count(d); i++)
        fprintf(stderr, "%s\n", damsim_diag_message(d, i));
    return 2;
}

/* Solve s analytically and print one line named what; 0 or 2. */
static int show(const char *what, damsim_scenario *s)
{
    damsim_result *r = NULL;
    if (damsim_solve(s, DAMSIM_ANALYTIC, DAMSIM_SEED_SCENARIO, &r) !=
        DAMSIM_OK)
        return report(damsim_scenario_diag(s));
    double step = 0, run = 0, usd = 0;
    damsim_result_number(r, "result.step_s", &step);
    damsim_result_number(r, "result.run_s", &run);
    damsim_result_number(r, "result.cost.usd", &usd);
    printf("%-24s step %.4f s  %s-bound  run %.1f h  $%.0f\n", what, step,
           damsim_result_string(r, "result.bound"), run / 3600.0, usd);
    damsim_result_free(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: solve SCENARIO.cfg LEVER [KEY=VALUE ...]\n");
        return 2;
    }
    printf("libdamsim %s (built against %s)\n", damsim_libversion(),
           DAMSIM_VERSION);
    damsim_context *ctx = damsim_context_create();
    damsim_scenario *s = NULL;
    int rc = 0;
    if (damsim_scenario_load(ctx, argv[1], &s) != DAMSIM_OK)
        rc = report(damsim_scenario_diag(s));
    for (int i = 3; rc == 0 && i < argc; i++) {
        char key[256];
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof key) {
            fprintf(stderr, "solve: expected KEY=VALUE, got '%s'\n", argv[i]);
            rc = 2;
            break;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - argv[i]), argv[i]);
        if (damsim_scenario_set(s, key, eq + 1) != DAMSIM_OK)
            rc = report(damsim_scenario_diag(s));
    }
    if (rc == 0)
        rc = show("baseline", s);
    if (rc == 0 && damsim_scenario_apply_lever(s, argv[2]) != DAMSIM_OK)
        rc = report(damsim_scenario_diag(s));
    if (rc == 0)
        rc = show(argv[2], s);
    damsim_scenario_free(s);
    damsim_context_free(ctx);
    return rc;
}
