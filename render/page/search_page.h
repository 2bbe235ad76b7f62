/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.h: `damsim plan --search` laid out: the fastest and cheapest
 * fitting layouts per GPU kind with why the winner wins (text), and every
 * candidate costed (JSON, CSV). Draws the solver's numbers, computes none.
 */
#ifndef DAM_RENDER_SEARCH_H
#define DAM_RENDER_SEARCH_H

#include "render/out/buf.h"
#include "solver/search.h"

struct json_t;

/* A layout in one line: "tp 8 pp 4 dp 32 mb 1 zero 1 selective". */
void dam_page_layout_name(const dam_layout *l, char *buf, size_t n);

/* The text report: per GPU kind the best few fitting layouts by step
 * time, the cheapest, the scenario's own, and the term the winner saves. */
void dam_page_search_text(dam_buf *b, const dam_scenario *s,
                     const dam_search_opts *o, const dam_search_result *r);

/* The same as JSON, with every candidate (r->all) (new reference). */
struct json_t *dam_page_search_json(const dam_scenario *s,
                               const dam_search_opts *o,
                               const dam_search_result *r);

/* Every candidate, one CSV row each, with a header. */
void dam_page_search_csv(dam_buf *b, const dam_search_result *r);

#endif
