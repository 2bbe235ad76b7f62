/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * solve.c: a program built on libdamsim. It loads the built-in catalogs and
 * a scenario file, applies one lever given as on damsim's command line, and
 * solves both with the analytic solver: the step time, what binds, and the
 * run's cost before and after.
 *
 *   cc solve.c $(pkg-config --cflags --libs damsim) -o solve
 *   ./solve scenario.cfg gpu=H100-SXM5-80GB
 *
 * It defines no out-of-memory hook, so libdamsim's default (abort) holds.
 */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "damsim.h"

/* Print every diagnostic of d on stderr; 1 when d holds an error. */
static int report(const dam_diag *d)
{
    char line[1024];
    for (size_t i = 0; i < d->n; i++) {
        dam_error_format(&d->items[i], line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    return d->nerr > 0;
}

static void show(const char *what, const dam_result *r)
{
    printf("%-10s step %.4f s  %s-bound  run %.1f h  $%.0f\n", what, r->step,
           dam_bound_name(r->bound), r->run_time / 3600.0, r->cost_usd);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: solve SCENARIO.cfg KEY=VALUE\n");
        return 2;
    }
    gsl_set_error_handler_off();
    printf("libdamsim %s\n", dam_version());
    dam_catalog cat = {0};
    dam_diag d;
    dam_diag_init(&d);
    const dam_embedded_file *g = dam_embedded_find("gpus.cfg");
    const dam_embedded_file *m = dam_embedded_find("models.cfg");
    int rc = 0;
    if (dam_catalog_load_gpus(&cat, "<built-in>/gpus.cfg", g->text, &d) !=
            DAM_OK ||
        dam_catalog_load_models(&cat, "<built-in>/models.cfg", m->text, &d) !=
            DAM_OK)
        rc = 2;
    dam_scenario *s = dam_malloc(sizeof *s), *t = dam_malloc(sizeof *t);
    dam_result *r = dam_malloc(sizeof *r);
    /* every message is printed, whether or not the load failed (a failed
     * load used to skip the report: the reason was never shown) */
    if (rc == 0 && dam_scenario_load(s, argv[1], NULL, &cat, &d) != DAM_OK)
        rc = 2;
    if (report(&d))
        rc = 2;
    dam_lever lever;
    dam_error e;
    if (rc == 0 && (dam_lever_parse_kv(argv[2], &lever, &e) != DAM_OK ||
                    dam_lever_apply(s, &lever, &cat, t, &e) != DAM_OK)) {
        char line[1024];
        dam_error_format(&e, line, sizeof line);
        fprintf(stderr, "%s\n", line);
        rc = 2;
    }
    if (rc == 0) {
        dam_analytic_solve(s, r);
        show("baseline", r);
        dam_analytic_solve(t, r);
        show(argv[2], r);
    }
    dam_free(r);
    dam_free(t);
    dam_free(s);
    dam_diag_free(&d);
    dam_catalog_free(&cat);
    return rc;
}
