/* SPDX-License-Identifier: GPL-3.0-or-later */
/* whatif.h: the what-if comparison as text, CSV and JSON (from results). */
#ifndef DAM_RENDER_WHATIF_H
#define DAM_RENDER_WHATIF_H

#include "render/out/buf.h"
#include "solver/whatif.h"

/* One sentence answering the scenario's question from the options. */
void dam_page_whatif_answer(char *buf, size_t n, const dam_whatif *w);
/* The table, then one line per option saying why. */
void dam_page_whatif_text(dam_buf *b, const dam_whatif *w);
/* One CSV row per option, every number. */
void dam_page_whatif_csv(dam_buf *b, const dam_whatif *w);
/* Everything as JSON (new reference). */
struct json_t *dam_page_whatif_json(const dam_whatif *w);

#endif
