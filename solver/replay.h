/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay.h: a profiler trace (model/kineto.h) as a dependency graph, and
 * its replay on the discrete-event engine (des.h), Daydream's model
 * (Zhu et al., ATC'20): host threads and GPU streams are lanes; runtime
 * calls, ProfilerStep boundaries and device work are nodes; edges say what
 * each waits for.
 *
 * Edges (each with a lag, s):
 *   - lane order: a node starts after its predecessor on its thread or
 *     stream ends (or, when it began inside it, after it starts);
 *   - launch: device work starts after the runtime call that launched it
 *     (same correlation id) starts;
 *   - stream wait (exact): a cuda_sync "Stream Wait Event" record says
 *     that the first work launched on its stream after the
 *     cudaStreamWaitEvent call waits for the last work launched on the
 *     other stream before the cudaEventRecord it names;
 *   - cross-stream: device work that began later than both of those
 *     allow, right after work on another stream of its device ended
 *     (within DAM_REPLAY_XSTREAM_S), waits for that work (a stream wait on
 *     an event, a collective after the gradients it reduces);
 *   - cross-thread: a host thread idle for DAM_REPLAY_XTHREAD_IDLE_S or
 *     more that wakes within DAM_REPLAY_XTHREAD_S of another launching
 *     thread's activity ending waits for that thread (the autograd
 *     engine's thread and the main thread hand a step back and forth);
 *   - host sync: a runtime call that blocks (cuda/hipDeviceSynchronize,
 *     StreamSynchronize, EventSynchronize, and any call whose own device
 *     work ends before it returns: a synchronous copy) ends after the last
 *     device work it waited for ends, plus the measured return latency;
 *     so does the last query of a polling run (two or more cudaEventQuery
 *     in a row), which then starts with the run's first query: the loop
 *     lasts as long as the work it polls. Where a cuda_sync record names the
 *     call's stream ("Stream Sync"), event ("Event Sync": its stream,
 *     work launched before the record) or device ("Context Sync"), only
 *     that work is waited for;
 *
 * Each node keeps, beyond its duration, the measured slack between its
 * latest dependency and its start: host time between runtime calls
 * (Python, operators, the data loader), launch latency, kernel boundary
 * gaps. Replaying the graph unchanged therefore reproduces the trace's
 * times; levers (trace_whatif.h) change durations, slacks and edges, and
 * the replay moves everything that depends on them.
 *
 * A step is a ProfilerStep#N span of the host: its start and end are nodes
 * on its thread, so the replayed step is the time between them.
 */
#ifndef DAM_REPLAY_H
#define DAM_REPLAY_H

#include "model/bound.h"
#include "model/catalog.h"
#include "model/error.h"
#include "model/kineto.h"

#define DAM_REPLAY_XSTREAM_S 10e-6 /* cross-stream inference window */
#define DAM_REPLAY_XTHREAD_S 2e-3 /* cross-thread inference window */
#define DAM_REPLAY_XTHREAD_IDLE_S 1e-3 /* idle before a cross-thread wake */

typedef enum {
    DAM_RNODE_CALL = 0, /* a runtime call on a host thread */
    DAM_RNODE_MARK,     /* a step boundary (zero length) */
    DAM_RNODE_GPU,      /* device work on a stream */
    DAM_RNODE_ARRIVE,   /* several ranks: a rank reaching a collective
                           (zero length, its lane; coll: the collective) */
    DAM_RNODE_BARRIER   /* several ranks: the last rank's arrival */
} dam_rnode_kind;

typedef enum {
    DAM_REDGE_END_START = 0, /* starts after from ends + lag */
    DAM_REDGE_START_START,   /* starts after from starts + lag */
    DAM_REDGE_END_END        /* ends after from ends + lag (host sync) */
} dam_redge_kind;

typedef struct dam_redge {
    int from, to;
    int kind;   /* a dam_redge_kind */
    double lag; /* s */
} dam_redge;

typedef struct dam_rnode {
    double m_start, m_end; /* measured, s */
    double dur;            /* to replay, s (a sync: its own part) */
    double delay;          /* slack after its latest dependency, s */
    double data_wait;      /* of delay: inside a data-loader operator, s */
    double start, end;     /* replayed, s */
    long ev;               /* index into the trace's events (-1: none) */
    int lane;              /* the trace lane */
    int kind;              /* a dam_rnode_kind */
    int kclass;            /* device work: dam_kernel_class, else -1 */
    int prec;              /* GEMM work: dam_precision from the name, -1 */
    float gemm[4];         /* GEMM work: M, N, K, batch of the host
                              operator that launched it (its "Input
                              Dims"); 0 when the trace does not say */
    int launch;            /* device work: its launching call, -1 */
    int sync;              /* calls: it blocks on device work: 1 a
                              Synchronize call, 2 a call on its own work
                              (a synchronous copy), 3 the last query of a
                              polling run (cudaEventQuery) */
    int poll_wait;         /* sync 3 with the work it waited for found */
    int binding;           /* kind of edge that bound it: -1 none (root),
                              else the dam_redge_kind */
    int bind_launch;       /* device work: 1 when its launch bound it */
    int step;              /* marks: index into steps; else -1 */
    int step_end;          /* marks: 1 for the end of the step */
    int coll;              /* several ranks: a matched collective's
                              arrival node, an arrival's collective; -1 */
} dam_rnode;

typedef struct dam_rstep {
    int number;            /* N of ProfilerStep#N */
    int rank;              /* its rank (lanes[].rank; 0 for one trace) */
    double measured_s;     /* its span in the trace */
    int mark[2];           /* start and end nodes */
    double replayed_s;     /* after dam_replay_run */
    int common;            /* its number is a step of every rank */
} dam_rstep;

typedef struct dam_rgraph {
    const dam_ktrace *trace;
    dam_rnode *nodes;
    int nnodes;
    dam_redge *edges;      /* sorted by to */
    int nedges;
    int *in_first;         /* edges into node i: in_first[i] .. [i+1] */
    int *out;              /* edges out of node i (indices into edges): */
    int *out_first;        /* out[out_first[i] .. out_first[i+1]] */
    dam_rstep *steps;
    int nsteps;
    int step_lane;         /* the thread of the step spans (-1: none) */
    long n_xstream, n_sync, n_launch, n_xthread; /* edges of those kinds */
    long n_cuda_sync;      /* of the stream waits and host syncs: those
                              the trace's cuda_sync records name */
    long n_unlaunched;     /* device work without a launching call */
    long n_shaped;         /* GEMM work with its operator's shape */
    long n_conv;           /* of those, convolution work the class rules
                              left elementwise (now GEMM work) */
    long n_late;           /* nodes measured earlier than their edges
                              allow (clock skew): slack clamped to 0 */
    int nranks;            /* the trace's ranks (1: one trace) */
    int nbarriers;         /* collectives joined across the ranks */
} dam_rgraph;

/*
 * Several ranks (a folder, dam_ktrace_load_dir): one graph of every
 * rank's lanes, each rank's edges among its own lanes only, plus, for
 * each collective matched on every rank, a barrier: each rank's
 * collective now waits for the arrival of every rank (the edges that
 * bound its start move to an arrival node, all arrivals lead to the
 * barrier), and lasts only the collective's own time, the shortest of its
 * measured lengths (the last rank to arrive waits for no one). The
 * measured time a rank spent in NCCL waiting for the others is then the
 * replayed gap between its arrival and the collective's start; the
 * breakdown counts it as exposed communication, as the kernel did.
 *
 * The job's step is its slowest rank's: the rank with the longest mean
 * step over the step numbers every rank has (ties within 1 us: the one
 * that waits least for others).
 */

/* Build the graph of trace t (kept by pointer: free the graph first).
 * DAM_OK, or DAM_EINPUT (a trace without device work). */
int dam_rgraph_build(dam_rgraph *g, const dam_ktrace *t, dam_error *err);
void dam_rgraph_free(dam_rgraph *g);
/* A copy of g's nodes, edges and steps that levers may change. */
void dam_rgraph_copy(dam_rgraph *dst, const dam_rgraph *src);
/* Rebuild the edge indexes after edges were changed or moved. */
void dam_rgraph_reindex(dam_rgraph *g);

/*
 * Replay g on the event engine: fills every node's start and end and
 * every step's replayed_s. DAM_OK, or DAM_ERUNTIME when some node never
 * became ready (a dependency cycle; err names its event).
 */
int dam_replay_run(dam_rgraph *g, dam_error *err);

/* The median of the steps' measured (replayed = 0) or replayed lengths, s
 * (several ranks: the slowest rank's common steps);
 * with no steps, the span of the device work (measured) or of every node
 * (replayed). */
double dam_replay_step(const dam_rgraph *g, int replayed);

/* Per rank of a replay (after dam_replay_run), over the common steps. */
typedef struct dam_rrank {
    int steps;           /* common steps */
    double measured_s;   /* mean measured step, s */
    double step_s;       /* mean replayed step, s */
    double wait_s;       /* per step: waiting in collectives for the
                            other ranks, s */
    long last;           /* collectives it reached last */
} dam_rrank;

void dam_replay_rank(const dam_rgraph *g, int rank, dam_rrank *r);
/* The slowest rank (see above) by replayed (1) or measured (0) steps. */
int dam_replay_slowest(const dam_rgraph *g, int replayed);

/* ---- the D·A·M breakdown of one replay ------------------------------------ */

typedef enum {
    DAM_TTERM_GEMM = 0,   /* GPU busy, by the highest class at work */
    DAM_TTERM_ATTENTION,
    DAM_TTERM_ELEMENTWISE,
    DAM_TTERM_OPTIMIZER,
    DAM_TTERM_COPY,
    DAM_TTERM_COMM,       /* only collectives at work: exposed */
    DAM_TTERM_DATA,       /* GPU idle, a host thread in the data loader */
    DAM_TTERM_LAUNCH,     /* GPU idle, a host thread in a runtime call */
    DAM_TTERM_HOST,       /* GPU idle, host busy otherwise (framework) */
    DAM_TTERM_IDLE,       /* GPU idle, the host blocked in a sync */
    DAM_TTERM_COUNT
} dam_tterm;

const char *dam_tterm_name(dam_tterm k);
/* The iron-law term a part belongs to (compute, memory, comm, data,
 * transfer, latency); idle -> latency. */
dam_bound dam_tterm_bound(dam_tterm k);

typedef struct dam_tbreak {
    double window_s;               /* the steps' total, s */
    int steps;
    double part[DAM_TTERM_COUNT];  /* per step, s; they sum to the step */
    double comm_total;             /* collective time per step (overlapped
                                      or not), s */
    double gpu_time[DAM_KCLASS_COUNT]; /* device time per class, per step */
    dam_bound bound;               /* the largest term */
    double bound_share;            /* its share of the step */
} dam_tbreak;

/* Break the replayed steps of g down (after dam_replay_run); several
 * ranks: the slowest rank's. */
void dam_replay_breakdown(const dam_rgraph *g, dam_tbreak *b);
/* The same for one rank's steps and lanes (-1: every node, every step). */
void dam_replay_breakdown_rank(const dam_rgraph *g, int rank,
                               dam_tbreak *b);

#endif
