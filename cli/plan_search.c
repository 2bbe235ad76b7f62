/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan_search.c: `damsim plan SCENARIO --search`: parse the GPU kinds, the
 * count, deadline or budget, run the layout search (solver/search.h) and
 * write its report (render/page/search_page.h) as text, JSON or CSV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "render/chart/chartset.h"
#include "render/page/search_page.h"
#include "solver/search.h"

/* Split "A,B,C" (or "all") into o's kinds; -1 on a bad list. */
static int parse_kinds(const dam_cli *c, const dam_scenario *s, char *list,
                       dam_search_opts *o)
{
    if (strcmp(list, "all") == 0) {
        for (size_t i = 0; i < c->cat.ngpus && o->nkinds < 16; i++) {
            const dam_gpu *g = &c->cat.gpus[i];
            if (g->peak[s->workload.precision] > 0.0 &&
                g->mem_bytes >= 16e9)
                o->kinds[o->nkinds++] = g->id;
        }
        return o->nkinds > 0 ? 0 : -1;
    }
    for (char *p = strtok(list, ","); p; p = strtok(NULL, ",")) {
        if (o->nkinds == 16)
            return -1;
        o->kinds[o->nkinds++] = p;
    }
    return o->nkinds > 0 ? 0 : -1;
}

int dam_cli_plan_search(dam_cli *c, const dam_scenario *s)
{
    dam_search_opts o;
    memset(&o, 0, sizeof o);
    o.intervals = 1;
    char list[1024] = "";
    if (c->gpu_kinds) {
        snprintf(list, sizeof list, "%s", c->gpu_kinds);
        if (parse_kinds(c, s, list, &o) != 0) {
            fprintf(stderr, "damsim: --gpu-kinds takes up to 16 GPU ids "
                            "separated by commas, or 'all', got '%s'\n",
                    c->gpu_kinds);
            return 2;
        }
    }
    int modes = (c->count > 0) + (c->deadline != NULL) + (c->budget != NULL);
    if (modes > 1) {
        fprintf(stderr, "damsim: plan --search takes one of --count, "
                        "--deadline and --budget\n");
        return 2;
    }
    if (c->json && c->csv) {
        fprintf(stderr, "damsim: give --json or --csv, not both\n");
        return 2;
    }
    o.gpus = c->count;
    if (c->deadline && dam_cli_parse_deadline(c->deadline, &o.deadline) != 0) {
        fprintf(stderr, "damsim: --deadline takes a time such as 60d, 720h "
                        "or 90min, got '%s'\n",
                c->deadline);
        return 2;
    }
    if (c->budget) {
        dam_budget_kind k;
        if (dam_cli_parse_budget(c->budget, &k, &o.budget) != 0 ||
            k == DAM_BUDGET_FLOPS) {
            fprintf(stderr, "damsim: with --search, --budget takes dollars "
                            "($2e7) or GPU-hours (5e6gpu-h), got '%s'\n",
                    c->budget);
            return 2;
        }
        o.budget_gpu_hours = k == DAM_BUDGET_GPU_HOURS;
    }
    o.keep_all = c->json || c->csv || dam_cli_plan_wants_chart(c);
    dam_search_result *r = dam_malloc(sizeof *r);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = 0;
    if (dam_search_run(s, &c->cat, &o, r, &e) != DAM_OK) {
        dam_cli_error(&e);
        dam_free(r);
        return 2;
    }
    dam_buf b = {0};
    if (c->json)
        dam_json_dump(&b, dam_page_search_json(s, &o, r));
    else if (c->csv)
        dam_page_search_csv(&b, r);
    else
        dam_page_search_text(&b, s, &o, r);
    rc = dam_cli_emit(c, &b);
    dam_buf_free(&b);
    if (rc == 0 && dam_cli_plan_wants_chart(c)) {
        dam_chartset *cs = dam_malloc(sizeof *cs);
        rc = dam_cli_plan_chart(c, cs, dam_chartset_search(cs, s, &o, r, &e),
                                &e);
    }
    dam_search_free(r);
    dam_free(r);
    return rc;
}
