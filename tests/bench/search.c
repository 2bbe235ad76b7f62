/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.c: benchmark of `damsim plan --search` (issue 12): candidate
 * layouts costed per CPU second on one core, for the two example
 * questions' scenarios (Llama 3 70B on 1,024 H100s; the DeepSeek-V3-style
 * MoE on 2,048 B200s) at their own GPU count, and on five GPU kinds at
 * once. Usage: search [repeats] (default 3; the best repeat is kept, the
 * machine is shared).
 *
 * What is timed: dam_search_run alone (the scenario is loaded before),
 * which includes costing the block graphs once per shape and every
 * candidate's memory, collectives and schedule.
 * Claimed, with its verdict: at least 100,000 candidates per CPU second.
 * Exit status 0, 1 when a run fails, 3 when the claim fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "model/embedded.h"
#include "model/loader.h"
#include "solver/search.h"

#include "bench_util.h"

static dam_catalog cat;

/* Candidates per CPU second of one search (best of `reps`); 0 on error. */
static double rate(const char *file, int nkinds, int reps, size_t *n)
{
    static dam_scenario s;
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR, file);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_scenario_load(&s, path, NULL, &cat, &d);
    dam_diag_free(&d);
    if (rc != DAM_OK)
        return 0.0;
    static const char *const kinds[] = {"H100-SXM5-80GB", "H200-SXM-141GB",
                                        "B200-HGX-180GB", "A100-SXM4-80GB",
                                        "MI300X"};
    dam_search_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < nkinds; i++)
        o.kinds[o.nkinds++] = kinds[i];
    double best = 0.0;
    for (int k = 0; k < reps; k++) {
        dam_search_result *r = calloc(1, sizeof *r);
        dam_error e;
        double c0 = bench_cpu();
        rc = dam_search_run(&s, &cat, &o, r, &e);
        double dt = bench_cpu() - c0;
        if (rc != DAM_OK) {
            fprintf(stderr, "search: %s\n", e.msg);
            free(r);
            return 0.0;
        }
        *n = r->evaluated;
        double x = dt > 0.0 ? (double)r->evaluated / dt : 0.0;
        if (x > best)
            best = x;
        dam_search_free(r);
        free(r);
    }
    return best;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    int reps = (int)bench_count(argc, argv, 1, 3, 1);
    dam_diag d;
    dam_diag_init(&d);
    bench_load_catalogs(&cat, &d);
    dam_diag_free(&d);
    static const struct {
        const char *file;
        int kinds;
    } cases[] = {{"llama3-70b-1024-h100.cfg", 0},
                 {"moe-2048-nvl72.cfg", 0},
                 {"llama3-70b-1024-h100.cfg", 5}};
    int ok = 1;
    double worst = -1.0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = 0;
        double x = rate(cases[i].file, cases[i].kinds, reps, &n);
        if (!(x > 0.0)) {
            printf("%s: the search failed\n", cases[i].file);
            return 1;
        }
        printf("%-28s %d GPU kind%s: %zu candidates, %.0f per CPU second "
               "(best of %d)\n",
               cases[i].file, cases[i].kinds ? cases[i].kinds : 1,
               cases[i].kinds > 1 ? "s" : "", n, x, reps);
        if (worst < 0.0 || x < worst)
            worst = x;
        ok &= x >= 1e5;
    }
    printf("claim: >= 100,000 candidates per CPU second per core: slowest "
           "case %.0f: %s\n",
           worst, ok ? "holds" : "FAILS");
    dam_catalog_free(&cat);
    return ok ? 0 : 3;
}
