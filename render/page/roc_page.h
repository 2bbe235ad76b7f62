/* SPDX-License-Identifier: GPL-3.0-or-later */
/* roc.h: return on compute over the user's points as text, CSV and JSON
 * (from solver/roc results). */
#ifndef DAM_RENDER_ROC_H
#define DAM_RENDER_ROC_H

#include "render/out/buf.h"
#include "solver/roc.h"

/* One sentence answering the question: the frontier's steps with their
 * marginal returns, and whether returns diminish. */
void dam_page_roc_answer(char *buf, size_t n, const dam_points *p,
                    const dam_roc *r);
/* The table, then the frontier with its marginal returns. */
void dam_page_roc_text(dam_buf *b, const dam_points *p, const dam_roc *r);
/* One CSV row per option. */
void dam_page_roc_csv(dam_buf *b, const dam_points *p, const dam_roc *r);
/* Everything as JSON (new reference). */
struct json_t *dam_page_roc_json(const dam_points *p, const dam_roc *r);

#endif
