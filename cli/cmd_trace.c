/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_trace.c: run, whatif, report and check on a torch.profiler trace (--trace
 * FILE): the trace is read (model/kineto.h), turned into a dependency
 * graph and replayed (solver/replay.h), and the levers are tried on the
 * graph (solver/trace_whatif.h).
 *
 * `damsim run --trace FILE` reads FILE when no scenario is named and FILE
 * exists; with a scenario, --trace still names the Chrome trace that run
 * writes of its simulation.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "model/kineto.h"
#include "render/report.h"
#include "render/trace_replay.h"
#include "render/trace_report.h"
#include "solver/replay.h"
#include "solver/trace_whatif.h"

/* Draws behind the what-if intervals. */
#define TRACE_DRAWS 32

int dam_cli_trace_input(const dam_cli *c, const char *cmd)
{
    if (!c->trace_file || c->help)
        return 0;
    if (strcmp(cmd, "whatif") == 0 || strcmp(cmd, "check") == 0 ||
        strcmp(cmd, "report") == 0)
        return 1;
    struct stat st;
    return strcmp(cmd, "run") == 0 && c->nargs == 0 &&
           stat(c->trace_file, &st) == 0;
}

static int load(dam_cli *c, dam_ktrace *t, dam_rgraph *g)
{
    memset(t, 0, sizeof *t); /* the caller frees it whatever happens */
    if (dam_cli_trace_work(c, c->trace_file, 0) != 0)
        return 2;
    dam_diag d;
    dam_diag_init(&d);
    struct stat st;
    int rc = stat(c->trace_file, &st) == 0 && S_ISDIR(st.st_mode)
                 ? dam_ktrace_load_dir(t, c->trace_file, &d)
                 : dam_ktrace_load(t, c->trace_file, NULL, 0, &d);
    int code = dam_cli_report_diag(&d, c->quiet);
    dam_diag_free(&d);
    if (rc != DAM_OK || code)
        return 2;
    dam_error e;
    if (dam_rgraph_build(g, t, &e) != DAM_OK) {
        dam_cli_error(&e);
        return 2;
    }
    if (dam_replay_run(g, &e) != DAM_OK) {
        dam_cli_error(&e);
        return 2;
    }
    return 0;
}

static int emit_json(dam_cli *c, json_t *j)
{
    dam_buf b = {0};
    dam_json_dump(&b, j);
    int rc = dam_cli_emit(c, &b);
    dam_buf_free(&b);
    return rc;
}

/* The review PDF or HTML of w to -o. */
static int review(dam_cli *c, const dam_rgraph *g, const dam_twhatif *w)
{
    dam_trace_review *rv = dam_malloc(sizeof *rv);
    dam_trace_review_build(rv, g->trace, g, w, &c->cat, DAM_VERSION);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = dam_report_write(c->out_file, &rv->report, &e);
    c->html_done = 1;
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        rc = rc == DAM_EINPUT ? 2 : 1;
    } else if (!c->quiet) {
        printf("%s: written\n", c->out_file);
    }
    dam_free(rv);
    return rc;
}

static int whatif(dam_cli *c, const dam_rgraph *g, int report)
{
    dam_tlever lv[16];
    int n = 0;
    dam_error e;
    for (int i = 0; i < c->nlever_args; i++) {
        if (dam_tlever_parse(c->lever_args[i], &lv[n], &e) != DAM_OK) {
            dam_cli_error(&e);
            return 2;
        }
        if (lv[n].kind == DAM_TLEVER_GPU && !dam_catalog_gpu(&c->cat,
                                                             lv[n].gpu)) {
            const char *s = dam_catalog_suggest_gpu(&c->cat, lv[n].gpu);
            dam_error_set(&e, "--lever", 0, "gpu '%.60s' is not in the GPU "
                          "catalog%s%s%s", lv[n].gpu, s ? " (did you mean '" : "",
                          s ? s : "", s ? "'?)" : "");
            dam_cli_error(&e);
            return 2;
        }
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "damsim: whatif --trace needs at least one --lever "
                        "(gpu=ID, precision=P, loader_workers=N,from=M, "
                        "batch=N,from=M, "
                        "cuda_graphs=1, overlap=1)\n");
        return 2;
    }
    dam_twhatif *w = dam_malloc(sizeof *w);
    unsigned long seed = c->have_seed ? (unsigned long)c->seed : 1ul;
    int rc = dam_trace_whatif(g, &c->cat, lv, n, TRACE_DRAWS, seed, w, &e);
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        dam_free(w);
        return 1;
    }
    if (report) {
        rc = review(c, g, w);
    } else if (c->json) {
        rc = emit_json(c, dam_json_trace_whatif(g->trace, w));
    } else {
        dam_buf b = {0};
        dam_text_trace_whatif(&b, g->trace, w);
        rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
    }
    dam_free(w);
    return rc;
}

int dam_cmd_trace(dam_cli *c, const char *cmd)
{
    if (strcmp(cmd, "report") != 0 &&
        (c->csv || c->out_kind == DAM_OUT_CHART ||
         c->out_kind == DAM_OUT_DIR)) {
        fprintf(stderr, "damsim: %s --trace writes text, JSON or HTML "
                        "(-o .txt, .json, .html); the review PDF and its "
                        "chart come from report --trace\n", cmd);
        return 2;
    }
    if (c->nargs > 0) {
        fprintf(stderr, "damsim: %s --trace takes no scenario ('%.200s'): "
                        "the trace is the input\n", cmd, c->args[0]);
        return 2;
    }
    if (strcmp(cmd, "report") == 0 && !c->out_file) {
        fprintf(stderr, "damsim: report --trace needs -o FILE.pdf or "
                        "FILE.html\n");
        return 2;
    }
    dam_ktrace t;
    dam_rgraph g;
    memset(&g, 0, sizeof g);
    int rc = load(c, &t, &g);
    if (rc == 0 && strcmp(cmd, "check") == 0) {
        if (!c->quiet) {
            dam_buf b = {0};
            dam_text_trace_check(&b, &t, &g);
            dam_buf_printf(&b, "%s: ok\n", c->trace_file);
            rc = dam_cli_emit(c, &b);
            dam_buf_free(&b);
        }
    } else if (rc == 0 && strcmp(cmd, "run") == 0) {
        dam_tbreak br;
        dam_replay_breakdown(&g, &br);
        if (c->json) {
            rc = emit_json(c, dam_json_trace_run(&t, &g, &br));
        } else {
            dam_buf b = {0};
            dam_text_trace_run(&b, &t, &g, &br);
            rc = dam_cli_emit(c, &b);
            dam_buf_free(&b);
        }
    } else if (rc == 0) {
        rc = whatif(c, &g, strcmp(cmd, "report") == 0);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
    return rc;
}
