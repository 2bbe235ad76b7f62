/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_whatif.c: `damsim whatif` and the flagship default. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/chartset.h"
#include "cli/cli.h"
#include "model/alloc.h"
#include "model/lever.h"
#include "render/page/roc_page.h"
#include "render/page/whatif_page.h"
#include "model/loader.h"
#include "solver/roc.h"
#include "solver/uncertainty.h"

static const char whatif_help[] =
    "usage: damsim whatif SCENARIO.cfg [--lever KEY=VALUE ...] [--combine "
    "A,B]\n"
    "                     [--cost gpu-hours|usd|kwh] [--json | --csv] [-o "
    "FILE]\n"
    "\n"
    "Solves the baseline, each lever alone (the scenario's `levers` list,\n"
    "then every --lever), and a combination: by default every lever that\n"
    "works, or the levers named by --combine, applied in that order. For\n"
    "each: step, run time, speed-up, cost (GPU-hours, dollars, kWh),\n"
    "quality change, return on compute, what binds before and after, a\n"
    "verdict (works / wasted / hurts) and the share of the time saved that\n"
    "came from each iron-law term.\n"
    "\n"
    "--lever KEY=VALUE[,KEY=VALUE...]: KEY is a lever (its value, *\n"
    "below) or a key of one lever; the keys after a comma belong to the\n"
    "same lever. The same names, units and ranges as a scenario's levers\n"
    "(scenarios/README.md). The levers:\n"
    "\n"
    "%s"
    "\n"
    "--analytic solves without simulation.\n"
    "\n"
    "damsim whatif --trace PROFILE.json[.gz] --lever gpu=ID|precision=P|\n"
    "loader_workers=N,from=M|cuda_graphs=1|overlap=1 ... tries the levers\n"
    "on a torch.profiler trace's replayed dependency graph instead.\n";

/* Split "a,b,c" into names (in place). */
static int split(char *s, const char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = tok;
    return n;
}

int dam_cli_whatif_solve(dam_cli *c, const char *path, dam_whatif *w)
{
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_lever *extra = dam_calloc(DAM_MAX_LEVERS, sizeof *extra);
    char combine[1024] = "";
    dam_lever_list *own = dam_malloc(sizeof *own);
    int rc = dam_cli_load_scenario_levers(c, path, s, own);
    /* --seed is the scenario's seed, as in run and plan: the simulations
     * and the interval draws both take it */
    if (rc == 0 && c->have_seed)
        s->seed = (unsigned long)c->seed;
    for (int i = 0; rc == 0 && i < c->nlever_args; i++) {
        dam_error e;
        if (dam_lever_parse_kv(c->lever_args[i], &extra[i], &e) != DAM_OK ||
            dam_lever_check(&extra[i], "", &c->cat, &e) != DAM_OK) {
            dam_lever_error_at(&e, "--lever", c->lever_args[i]);
            dam_cli_error(&e);
            rc = 2;
        }
    }
    dam_whatif_options opt;
    memset(&opt, 0, sizeof opt);
    opt.levers = own;
    dam_cli_solver(c, &opt.solve, &opt.solve_ctx);
    opt.measure = DAM_QUALITY_USD;
    opt.uncertainty_samples = DAM_UNCERTAINTY_SAMPLES;
    if (rc == 0 && c->cost_measure &&
        dam_quality_measure_parse(c->cost_measure, &opt.measure) != 0) {
        fprintf(stderr, "damsim: --cost takes gpu-hours, usd or kwh, got "
                        "'%s'\n",
                c->cost_measure);
        rc = 2;
    }
    if (rc == 0 && c->combine) {
        snprintf(combine, sizeof combine, "%s", c->combine);
        opt.ncombine = split(combine, opt.combine, DAM_MAX_LEVERS);
    }
    if (rc == 0) {
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_whatif_run(s, extra, c->nlever_args, &c->cat, &opt, w, &e) !=
            DAM_OK) {
            dam_cli_error(&e);
            rc = 2;
        }
    }
    dam_free(extra);
    dam_free(own);
    dam_free(s);
    return rc;
}

int dam_cli_points(dam_cli *c, const char *path)
{
    dam_points *p = dam_malloc(sizeof *p);
    dam_roc *r = dam_malloc(sizeof *r);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_points_load(p, path, NULL, &d) == DAM_OK ? 0 : 2;
    if (dam_cli_report_diag(&d, c->quiet))
        rc = 2;
    dam_diag_free(&d);
    dam_error e;
    memset(&e, 0, sizeof e);
    if (rc == 0 && dam_roc_of(p, r, &e) != DAM_OK) {
        dam_cli_error(&e);
        rc = 2;
    }
    if (rc == 0) {
        dam_buf b = {0};
        if (c->json)
            dam_json_dump(&b, dam_page_roc_json(p, r));
        else if (c->csv)
            dam_page_roc_csv(&b, p, r);
        else
            dam_page_roc_text(&b, p, r);
        rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
        if (rc == 0) {
            char answer[1024];
            dam_page_roc_answer(answer, sizeof answer, p, r);
            dam_chartset *cs = dam_malloc(sizeof *cs);
            dam_chartset_points(cs, p, r, answer);
            rc = dam_cli_charts(c, cs);
            dam_chartset_free(cs);
            dam_free(cs);
        }
    }
    dam_free(r);
    dam_free(p);
    return rc;
}

int dam_cli_whatif(dam_cli *c, const char *path)
{
    if (path && strcmp(path, "-") != 0 && dam_points_probe(path, NULL))
        return dam_cli_points(c, path);
    dam_whatif *w = dam_malloc(sizeof *w);
    int rc = dam_cli_whatif_solve(c, path, w);
    if (rc == 0 && c->out_kind == DAM_OUT_HTML) {
        /* an HTML what-if is the budget review */
        rc = dam_cli_write_review(c, w, c->out_file);
        dam_free(w);
        return rc;
    }
    if (rc == 0) {
        dam_buf b = {0};
        if (c->json)
            dam_json_dump(&b, dam_page_whatif_json(w));
        else if (c->csv)
            dam_page_whatif_csv(&b, w);
        else
            dam_page_whatif_text(&b, w);
        rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
        if (rc == 0) {
            char answer[1024];
            dam_page_whatif_answer(answer, sizeof answer, w);
            dam_chartset *cs = dam_malloc(sizeof *cs);
            dam_chartset_whatif(cs, w, answer);
            if (w->rows[0].result.serving.llm.enabled)
                dam_chartset_llm_cost(cs, w, cs->titles[0]);
            rc = dam_cli_charts(c, cs);
            dam_chartset_free(cs);
            dam_free(cs);
        }
    }
    dam_free(w);
    return rc;
}

int dam_cmd_whatif(dam_cli *c)
{
    if (c->help) {
        size_t n = dam_lever_help(NULL, 0, 0) + 1;
        char *levers = dam_malloc(n);
        dam_lever_help(levers, n, 0);
        printf(whatif_help, levers);
        dam_free(levers);
        return 0;
    }
    if (c->nargs != 1)
        return dam_cli_usage_error("whatif", "whatif needs one scenario file",
                                   NULL);
    return dam_cli_whatif(c, c->args[0]);
}
