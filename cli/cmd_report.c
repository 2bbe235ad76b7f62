/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_report.c: `damsim report SCENARIO -o review.pdf`: solves the
 * what-if, has render/review.c build the budget-review document and
 * render/report.c write it. Only the options and the file name are here.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "render/review.h"

static const char report_help[] =
    "usage: damsim report SCENARIO.cfg -o review.pdf [--lever KEY=VALUE ...]\n"
    "\n"
    "Writes a PDF for a budget review: a summary page (question, answer, key\n"
    "numbers), the charts (where the step goes, what each lever buys, the\n"
    "roofline, return on compute, Chinchilla for language models), the lever\n"
    "table, the iron law per stage, and every input with its source.\n";

/* Build the review of w and write it to out. */
static int write_review(dam_cli *c, const dam_whatif *w, const char *out)
{
    dam_review rv;
    dam_review_build(&rv, w, DAM_VERSION);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = dam_report_write(out, &rv.report, &e);
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        rc = rc == DAM_EINPUT ? 2 : 1;
    } else if (!c->quiet) {
        printf("%s: %zu pages\n", out, dam_report_page_count(&rv.report));
    }
    dam_review_free(&rv);
    return rc;
}

int dam_cmd_report(dam_cli *c)
{
    if (c->help) {
        fputs(report_help, stdout);
        return 0;
    }
    if (c->nargs != 1 || !c->out_file) {
        fprintf(stderr, "damsim: report needs one scenario file and -o "
                        "FILE.pdf\n(see 'damsim report --help')\n");
        return 2;
    }
    const char *dot = strrchr(c->out_file, '.');
    if (!dot || strcmp(dot, ".pdf") != 0) {
        fprintf(stderr, "damsim: report writes a PDF: -o must end in .pdf, "
                        "got '%s'\n",
                c->out_file);
        return 2;
    }
    dam_whatif *w = dam_malloc(sizeof *w);
    int rc = dam_cli_whatif_solve(c, c->args[0], w);
    if (rc == 0)
        rc = write_review(c, w, c->out_file);
    dam_free(w);
    return rc;
}
