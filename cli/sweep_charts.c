/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_charts.c: --pareto and --heatmap of `damsim sweep` (placeholder
 * until the charts land: refuses the options). */
#include <stdio.h>

#include "cli/sweep.h"

int dam_cli_sweep_charts(dam_cli *c, const dam_sweep *sw,
                         const dam_cli_sweep_fig *figs)
{
    (void)sw;
    (void)figs;
    if (c->pareto || c->heatmap) {
        fprintf(stderr, "damsim: sweep charts are not built yet\n");
        return 2;
    }
    return 0;
}
