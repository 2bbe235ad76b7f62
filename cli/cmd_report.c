/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_report.c: `damsim report SCENARIO -o review.pdf`: solves the
 * what-if, has render/review/review.c build the budget-review document and
 * render/review/report.c write it. Only the options and the file name are here.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/sweep.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "model/schema.h"
#include "render/out/html.h"
#include "render/review/review.h"
#include "solver/sweep.h"
#include "solver/uncertainty.h"

/* The most points an explorer embeds (each is a few hundred bytes of the
 * page and one analytic solve). */
#define EXPLORE_MAX_POINTS 1000

static const char report_help[] =
    "usage: damsim report SCENARIO.cfg -o review.pdf|review.html\n"
    "                     [--lever KEY=VALUE ...]\n"
    "                     [--explore KEY=V1,V2,... ...]\n"
    "\n"
    "Writes a budget review, as a PDF or as one self-contained HTML file\n"
    "(inline SVG charts, nothing fetched; no script unless --explore) with\n"
    "the same content.\n"
    "Page 1 is an executive summary: the question, the answer with its 90 %\n"
    "interval, the chart that shows why, time, cost and GPU-hours with their\n"
    "intervals, the recommendation and what would change it. Then the\n"
    "charts (where the step goes, what each lever buys, the roofline, return\n"
    "on compute, Chinchilla for language models), the key numbers, the\n"
    "lever table, the iron law per stage, the diagnosis, and every input\n"
    "with its source. -o FILE.png or FILE.svg writes the summary page\n"
    "alone (for a slide). Intervals come from the scenario's uncertain inputs\n"
    "(and calibrated constants, where the catalog gives their spread).\n"
    "\n"
    "  --explore KEY=V1,V2,...  (HTML only; up to 8, KEY=LO:HI:N too) the\n"
    "                          review carries the sweep of these keys (as\n"
    "                          'damsim sweep --vary' takes them, every point\n"
    "                          solved by the analytic solver, at most 1,000)\n"
    "                          and one selector per key that updates the\n"
    "                          answer, the numbers and the main chart; a\n"
    "                          few lines of JavaScript inside the file, no\n"
    "                          network. Without JavaScript the review reads\n"
    "                          as without --explore, plus a table of every\n"
    "                          point. An unknown key, a bad value or a\n"
    "                          point that does not load is exit 2.\n"
    "  --simulate              with --explore: every point simulated (a\n"
    "                          service under load) instead of solved\n"
    "                          analytically\n"
    "\n"
    "damsim report --trace PROFILE.json[.gz] --lever KEY=VALUE ... -o FILE\n"
    "reviews a what-if on a torch.profiler trace instead (see whatif --help).\n";

/* ---- --explore ------------------------------------------------------- */

/* The explorer's sweep and what it solved. */
typedef struct explorer {
    dam_sweep sw;
    dam_sweep_row *rows;
    double (*terms)[DAM_TERM_COUNT];
    dam_sweep_row base;
    double base_terms[DAM_TERM_COUNT];
    dam_html_explore x;
} explorer;

/* A sweep's message names its option "--vary"; here it is "--explore". */
static void as_explore(char *msg, size_t n)
{
    char *p = strstr(msg, "--vary");
    if (!p)
        return;
    char tail[1024];
    snprintf(tail, sizeof tail, "%s", p + 6);
    snprintf(p, n - (size_t)(p - msg), "--explore%s", tail);
}

/* Every --explore KEY=... parsed (values checked as --vary checks them);
 * 0 or 2. */
static int explore_keys(dam_cli *c, explorer *xp)
{
    dam_sweep_init(&xp->sw);
    for (int i = 0; i < c->nexplore; i++) {
        dam_error e;
        memset(&e, 0, sizeof e);
        if (dam_sweep_add(&xp->sw, c->explore[i], &e) != DAM_OK) {
            as_explore(e.msg, sizeof e.msg);
            as_explore(e.file, sizeof e.file);
            if (!e.file[0])
                fprintf(stderr, "damsim: --explore %s: ", c->explore[i]);
            dam_cli_error(&e);
            return 2;
        }
        /* a range's ends within the key's own range (the schema's) */
        const dam_sweep_key *k = &xp->sw.keys[xp->sw.nkeys - 1];
        const dam_key_row *row = k->lever ? NULL : dam_schema_key(k->key);
        if (k->range && row &&
            (row->type == DAM_KEY_INT || row->type == DAM_KEY_NUM) &&
            (!dam_key_accepts(row, k->lo) || !dam_key_accepts(row, k->hi))) {
            char range[96];
            dam_key_range_text(row, range, sizeof range);
            fprintf(stderr, "--explore %s: error: '%s' takes %s%s%s; the "
                            "range %g to %g leaves it\n",
                    c->explore[i], k->key, range, row->unit ? " " : "",
                    row->unit ? row->unit : "", k->lo, k->hi);
            return 2;
        }
    }
    return 0;
}

/* Load the scenario for the sweep and solve every point; a point that
 * fails is an error (the values were asked for one by one). 0 or 2. */
static int explore_solve(dam_cli *c, explorer *xp)
{
    const char *name = NULL;
    char why[64];
    char *text = dam_cli_read_text(c->args[0], &name, why, sizeof why);
    if (!text) {
        fprintf(stderr, "%s: error: cannot read the file: %s\n", name, why);
        return 2;
    }
    /* --simulate: every point simulated (serving under load), seeded as
     * a sweep's points are */
    dam_cli_sweep_solver(c, &xp->sw);
    dam_diag d;
    dam_diag_init(&d);
    int prc = dam_sweep_prepare(&xp->sw, name, text, &c->cat, &d);
    dam_free(text);
    for (size_t i = 0; i < d.n; i++)
        as_explore(d.items[i].msg, sizeof d.items[i].msg);
    int rc = dam_cli_report_diag(&d, c->quiet);
    dam_diag_free(&d);
    if (prc != DAM_OK || rc != 0)
        return 2;
    if (xp->sw.npoints > EXPLORE_MAX_POINTS) {
        fprintf(stderr, "damsim: --explore: %llu points; the explorer "
                        "embeds at most %d (fewer values, or 'damsim sweep' "
                        "for a large grid)\n",
                (unsigned long long)xp->sw.npoints, EXPLORE_MAX_POINTS);
        return 2;
    }
    size_t np = (size_t)xp->sw.npoints;
    xp->rows = dam_calloc(np, sizeof *xp->rows);
    xp->terms = dam_calloc(np, sizeof *xp->terms);
    dam_sweep_worker *w = dam_sweep_worker_create(&xp->sw);
    dam_sweep_worker_full(w);
    size_t said = 0; /* distinct messages */
    for (size_t i = 0; i < np; i++) {
        dam_sweep_eval(w, i, &xp->rows[i]);
        if (!xp->rows[i].ok) {
            as_explore(xp->rows[i].error, sizeof xp->rows[i].error);
            /* each message once (a bad value fails every point it is in) */
            size_t j = 0;
            while (j < i && (xp->rows[j].ok ||
                             strcmp(xp->rows[j].error, xp->rows[i].error)))
                j++;
            if (j == i && said < 5)
                fprintf(stderr, "%s\n", xp->rows[i].error);
            said += j == i;
            rc = 2;
            continue;
        }
        memcpy(xp->terms[i], dam_sweep_worker_result(w)->terms,
               sizeof xp->terms[i]);
    }
    if (rc == 0) {
        /* the scenario as configured, solved the same way */
        dam_sweep_eval_base(w, &xp->base);
        memcpy(xp->base_terms, dam_sweep_worker_result(w)->terms,
               sizeof xp->base_terms);
    }
    dam_sweep_worker_free(w);
    if (said > 5)
        fprintf(stderr, "damsim: --explore: and %zu more points fail\n",
                said - 5);
    if (rc == 0 && !xp->base.ok) {
        fprintf(stderr, "%s\n", xp->base.error);
        rc = 2;
    }
    if (rc)
        return rc;
    xp->x.sw = &xp->sw;
    xp->x.rows = xp->rows;
    xp->x.terms = (const double (*)[DAM_TERM_COUNT])xp->terms;
    xp->x.base = &xp->base;
    xp->x.base_terms = xp->base_terms;
    xp->x.serving = xp->sw.base->mode == DAM_MODE_SERVING;
    return 0;
}

static void explore_free(explorer *xp)
{
    dam_sweep_free(&xp->sw);
    dam_free(xp->rows);
    dam_free(xp->terms);
}

int dam_cmd_report(dam_cli *c)
{
    if (c->help)
        return dam_cli_help(report_help);
    if (c->nargs != 1 || !c->out_file)
        return dam_cli_usage_error("report",
                                   "report needs one scenario file and -o "
                                   "FILE.pdf or FILE.html",
                                   NULL);
    const char *dot = strrchr(c->out_file, '.');
    if (!dot || (strcmp(dot, ".pdf") != 0 && strcmp(dot, ".html") != 0 &&
                 strcmp(dot, ".png") != 0 && strcmp(dot, ".svg") != 0)) {
        fprintf(stderr, "damsim: report writes a PDF or an HTML file (or "
                        "its summary page as .png or .svg): -o must end in "
                        ".pdf, .html, .png or .svg, got '%s'\n",
                c->out_file);
        return 2;
    }
    if (strcmp(c->args[0], "-") != 0 && dam_points_probe(c->args[0], NULL)) {
        fprintf(stderr, "%s: error: a scenario of measured points has no "
                        "budget review to write; 'damsim whatif %s -o "
                        "FILE.pdf' draws its return-on-compute chart\n",
                c->args[0], c->args[0]);
        return 2;
    }
    explorer *xp = NULL;
    int rc = 0;
    if (c->nexplore) {
        if (strcmp(dot, ".html") != 0) {
            fprintf(stderr, "damsim: --explore puts its selectors in the "
                            "HTML review: -o must end in .html, got '%s'\n",
                    c->out_file);
            return 2;
        }
        xp = dam_calloc(1, sizeof *xp);
        rc = explore_keys(c, xp);
    }
    dam_whatif *w = dam_malloc(sizeof *w);
    if (rc == 0)
        rc = dam_cli_whatif_solve(c, c->args[0], w);
    if (rc == 0 && xp && (rc = explore_solve(c, xp)) == 0)
        c->explorer = &xp->x;
    if (rc == 0)
        rc = dam_cli_write_review(c, w, c->out_file);
    c->explorer = NULL;
    if (xp) {
        explore_free(xp);
        dam_free(xp);
    }
    dam_free(w);
    return rc;
}
