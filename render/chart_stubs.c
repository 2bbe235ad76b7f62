/* SPDX-License-Identifier: GPL-3.0-or-later */
/* temporary */
#include "render/chart.h"
#define STUB(kind, type) int dam_chart_##kind##_draw(cairo_t *cr, const dam_rect *r, const type *c, dam_error *err) { (void)cr; (void)r; (void)c; return dam_error_set(err, "", 0, "todo"); }
STUB(levers, dam_chart_levers)
STUB(roc, dam_chart_roc)
STUB(chinchilla, dam_chart_chinchilla)
STUB(serving, dam_chart_serving)
