/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_json.c: a simulated timeline as a Chrome trace (see trace_json.h).
 * Lanes map to thread ids 1..n of process 1; nothing here computes model
 * numbers, it only converts seconds to microseconds.
 */
#include "render/out/trace_json.h"

#include <jansson.h>
#include <stdlib.h>

#include "render/out/json.h"

#define US 1e6 /* microseconds per second */

static const char *const lane_kinds[] = {"loader", "pcie", "gpu", "network",
                                         "cpu"};

static json_t *meta(const char *name, int tid, const char *key, json_t *v)
{
    json_t *e = json_object();
    json_object_set_new(e, "name", json_string(name));
    json_object_set_new(e, "ph", json_string("M"));
    json_object_set_new(e, "pid", json_integer(1));
    json_object_set_new(e, "tid", json_integer(tid));
    json_t *args = json_object();
    json_object_set_new(args, key, v);
    json_object_set_new(e, "args", args);
    return e;
}

void dam_trace_json(dam_buf *b, const dam_trace *t)
{
    json_t *ev = json_array();
    json_array_append_new(ev, meta("process_name", 0, "name",
                                   json_string("damsim")));
    for (size_t i = 0; i < t->nlanes; i++) {
        int tid = (int)i + 1;
        json_array_append_new(ev, meta("thread_name", tid, "name",
                                       json_string(t->lanes[i].name)));
        json_array_append_new(ev, meta("thread_sort_index", tid,
                                       "sort_index", json_integer(tid)));
    }
    for (size_t i = 0; i < t->nspans; i++) {
        const dam_trace_span *s = &t->spans[i];
        json_t *e = json_object();
        json_object_set_new(e, "name",
                            json_string(dam_span_kind_name(s->kind)));
        json_object_set_new(e, "cat", json_string(
            (unsigned)t->lanes[s->lane].kind < 5
                ? lane_kinds[t->lanes[s->lane].kind]
                : "other"));
        json_object_set_new(e, "ph", json_string("X"));
        json_object_set_new(e, "ts", dam_json_num(s->start * US));
        json_object_set_new(e, "dur", dam_json_num((s->end - s->start) * US));
        json_object_set_new(e, "pid", json_integer(1));
        json_object_set_new(e, "tid", json_integer(s->lane + 1));
        json_t *args = json_object();
        json_object_set_new(args, "step", json_integer(s->step));
        json_object_set_new(e, "args", args);
        json_array_append_new(ev, e);
    }
    for (size_t i = 0; i < t->ncounters; i++) {
        const dam_trace_counter *c = &t->counters[i];
        json_t *e = json_object();
        json_object_set_new(e, "name", json_string(c->name));
        json_object_set_new(e, "ph", json_string("C"));
        json_object_set_new(e, "ts", dam_json_num(c->t * US));
        json_object_set_new(e, "pid", json_integer(1));
        json_t *args = json_object();
        json_object_set_new(args, "batches", dam_json_num(c->value));
        json_object_set_new(e, "args", args);
        json_array_append_new(ev, e);
    }
    json_t *o = json_object();
    json_object_set_new(o, "traceEvents", ev);
    json_object_set_new(o, "displayTimeUnit", json_string("ms"));
    /* which subset of the run the trace holds (Trace Event Format's
     * free-form "otherData") */
    json_t *md = json_object();
    json_object_set_new(md, "first_step", json_integer(t->first_step));
    json_object_set_new(md, "steps", json_integer(t->nsteps));
    json_object_set_new(md, "ranks", json_string(t->ranks));
    json_object_set_new(md, "of_ranks", json_integer(t->total_ranks));
    json_object_set_new(md, "note", json_string(
        "spans of these steps of the first traced rank, on the lanes "
        "(loader workers, host link, GPU) of these ranks; --trace-steps "
        "and --trace-ranks choose them"));
    json_object_set_new(o, "otherData", md);
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                   JSON_REAL_PRECISION(12));
    if (text) {
        dam_buf_printf(b, "%s\n", text);
        free(text);
    }
    json_decref(o);
}
