/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace.c: growable arrays of a recorded timeline (see trace.h). */
#include "solver/trace.h"

#include <stdio.h>
#include <string.h>

#include "model/alloc.h"

static const char *const span_names[DAM_SPAN_KIND_COUNT] = {
    "read",      "decode",   "copy",  "forward",    "backward",
    "optimizer", "overhead", "all-reduce", "stall", "blocked",
    "preprocess", "postprocess", "wait"};

const char *dam_span_kind_name(dam_span_kind k)
{
    return (unsigned)k < DAM_SPAN_KIND_COUNT ? span_names[k] : "?";
}

void dam_trace_init(dam_trace *t)
{
    memset(t, 0, sizeof *t);
}

void dam_trace_free(dam_trace *t)
{
    if (!t)
        return;
    dam_free(t->lanes);
    dam_free(t->spans);
    dam_free(t->counters);
    memset(t, 0, sizeof *t);
}

int dam_trace_lane_add(dam_trace *t, const char *name, dam_trace_lane_kind k)
{
    t->lanes = dam_grow(t->lanes, sizeof *t->lanes, t->nlanes + 1,
                        &t->cap_lanes);
    dam_trace_lane *l = &t->lanes[t->nlanes];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->kind = k;
    return (int)t->nlanes++;
}

void dam_trace_span_add(dam_trace *t, int lane, dam_span_kind k, double start,
                        double end, int step)
{
    t->spans = dam_grow(t->spans, sizeof *t->spans, t->nspans + 1,
                        &t->cap_spans);
    dam_trace_span *s = &t->spans[t->nspans++];
    s->lane = lane;
    s->kind = k;
    s->start = start;
    s->end = end;
    s->step = step;
}

void dam_trace_counter_add(dam_trace *t, const char *name, double time,
                           double value)
{
    t->counters = dam_grow(t->counters, sizeof *t->counters,
                           t->ncounters + 1, &t->cap_counters);
    dam_trace_counter *c = &t->counters[t->ncounters++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->t = time;
    c->value = value;
}
