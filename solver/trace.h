/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace.h: a recorded timeline of the first simulated steps, as plain data:
 * lanes (one per loader worker, PCIe link, GPU, network), intervals on them,
 * and counter samples (queue depth). render/ turns it into a Chrome trace
 * (Perfetto, chrome://tracing) or a Gantt chart. Recording is bounded by the
 * caller (a number of steps), so memory does not grow with the run.
 */
#ifndef DAM_TRACE_H
#define DAM_TRACE_H

#include <stddef.h>

typedef enum {
    DAM_TRACE_LOADER = 0, /* a loader worker (storage read + decode) */
    DAM_TRACE_PCIE,       /* a host-to-device link */
    DAM_TRACE_GPU,        /* a GPU's compute stream */
    DAM_TRACE_NET,        /* the collective network */
    DAM_TRACE_CPU         /* serving: preprocessing workers */
} dam_trace_lane_kind;

typedef enum {
    DAM_SPAN_READ = 0,  /* storage read */
    DAM_SPAN_DECODE,    /* CPU decode/augment */
    DAM_SPAN_COPY,      /* host-to-device copy */
    DAM_SPAN_FORWARD,
    DAM_SPAN_BACKWARD,
    DAM_SPAN_OPTIMIZER,
    DAM_SPAN_OVERHEAD,  /* launches, framework */
    DAM_SPAN_ALLREDUCE,
    DAM_SPAN_STALL,     /* GPU waiting for data */
    DAM_SPAN_BLOCKED,   /* worker waiting for queue space */
    DAM_SPAN_PREPROCESS,
    DAM_SPAN_POSTPROCESS,
    DAM_SPAN_WAIT,      /* GPU waiting for another rank (pipeline bubble,
                           a slower replica) */
    DAM_SPAN_KIND_COUNT
} dam_span_kind;

const char *dam_span_kind_name(dam_span_kind k);

typedef struct dam_trace_lane {
    char name[48];            /* "node0/gpu0/worker3", "node0/pcie1", ... */
    dam_trace_lane_kind kind;
} dam_trace_lane;

typedef struct dam_trace_span {
    int lane;                 /* index into lanes */
    dam_span_kind kind;
    double start, end;        /* s */
    int step;                 /* training step (or batch) number */
} dam_trace_span;

typedef struct dam_trace_counter {
    char name[32];            /* "queue depth gpu0" */
    double t;                 /* s */
    double value;
} dam_trace_counter;

/* Owns its arrays; create with dam_trace_init, free with dam_trace_free. */
typedef struct dam_trace {
    dam_trace_lane *lanes;
    size_t nlanes, cap_lanes;
    dam_trace_span *spans;
    size_t nspans, cap_spans;
    dam_trace_counter *counters;
    size_t ncounters, cap_counters;
    double horizon;           /* recording stops after this simulated time, s */
    double from;              /* recording starts at this simulated time, s */
    int first_step;           /* first step recorded (0-based) */
    int nsteps;               /* steps recorded */
    int total_ranks;          /* GPUs in the simulation */
    char ranks[200];          /* the ranks recorded, "0-7" or "0,3,8-15" */
} dam_trace;

void dam_trace_init(dam_trace *t);
void dam_trace_free(dam_trace *t);
/* Add a lane; returns its index. */
int dam_trace_lane_add(dam_trace *t, const char *name, dam_trace_lane_kind k);
void dam_trace_span_add(dam_trace *t, int lane, dam_span_kind k, double start,
                        double end, int step);
void dam_trace_counter_add(dam_trace *t, const char *name, double time,
                           double value);

#endif
