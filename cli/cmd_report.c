/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_report.c: `damsim report SCENARIO -o review.pdf`: solves the
 * what-if, has render/review/review.c build the budget-review document and
 * render/review/report.c write it. Only the options and the file name are here.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "model/loader.h"

static const char report_help[] =
    "usage: damsim report SCENARIO.cfg -o review.pdf|review.html\n"
    "                     [--lever KEY=VALUE ...]\n"
    "\n"
    "Writes a budget review, as a PDF or as one self-contained HTML file\n"
    "(inline SVG charts, no scripts, nothing fetched) with the same content.\n"
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
    "damsim report --trace PROFILE.json[.gz] --lever KEY=VALUE ... -o FILE\n"
    "reviews a what-if on a torch.profiler trace instead (see whatif --help).\n";

int dam_cmd_report(dam_cli *c)
{
    if (c->help) {
        fputs(report_help, stdout);
        return 0;
    }
    if (c->nargs != 1 || !c->out_file) {
        fprintf(stderr, "damsim: report needs one scenario file and -o "
                        "FILE.pdf or FILE.html\n(see 'damsim report "
                        "--help')\n");
        return 2;
    }
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
    dam_whatif *w = dam_malloc(sizeof *w);
    int rc = dam_cli_whatif_solve(c, c->args[0], w);
    if (rc == 0)
        rc = dam_cli_write_review(c, w, c->out_file);
    dam_free(w);
    return rc;
}
