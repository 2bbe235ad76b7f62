/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sim_parallel.c: discrete-event simulation of a parallel layout's
 * training steps, rank by rank, micro-batch by micro-batch (issue 12 item
 * 4; sim.h has the contract).
 *
 * What is simulated individually and what is aggregated.
 *  - An entity is one pipeline stage of one data-parallel replica: the
 *    tp x cp GPUs that run that stage's chunks. Their tensor- and
 *    context-parallel collectives block every block's forward and
 *    backward, so these GPUs move in lockstep; the entity stands for them
 *    together (its compute draw, its straggler factor, and its NIC traffic
 *    summed over its GPUs). Those collectives stay inside the NVLink
 *    domain, where nothing else runs, and are costed analytically inside
 *    each op.
 *  - Each entity runs its stage's schedule (1F1B, GPipe or interleaved
 *    1F1B, in Megatron-LM's order) op by op: a chunk's forward or backward
 *    of one micro-batch waits for its input (the activation from the
 *    previous virtual stage, the gradient from the next), runs its GPU
 *    work, then its expert all-to-all (in series), while ZeRO's gathers
 *    and reduce-scatters run beside it; the output is sent on.
 *  - Everything that crosses the NICs is a flow on a max-min fair link
 *    (solver/link.h): pipeline sends, expert all-to-alls, ZeRO traffic,
 *    gradient reductions and parameter gathers, and the storage reads of
 *    the next step's data, which also cross the cluster's one shared file
 *    system (a link all readers share). One link per node group an entity
 *    occupies, of the NICs' achieved bandwidth; a flow's cap is its
 *    uncontended rate (the GPUs' NIC share after spine oversubscription).
 *    Different groups' collectives, sends and reads contend there.
 *  - Data-parallel replicas are identical unless something tells them
 *    apart. With deterministic compute and no straggler one replica is
 *    simulated and stands for all dp (its links get its share of each
 *    node and of the file system: by symmetry every replica's flows are
 *    the same). A straggler's replica is simulated beside one typical
 *    replica (which stands for the other dp - 1). With compute variation
 *    (workload.compute_cv) every replica is simulated, so the slowest of
 *    dp random pipelines sets the pace, as it does on the machine.
 *  - A gradient reduction of a stage starts when every (simulated)
 *    replica of that stage has its first bucket ready (during its last
 *    backward when overlapped, after it otherwise) and ends no earlier
 *    than its last bucket's own time after the last backward; all stages
 *    then wait for the slowest (the global gradient norm is a barrier),
 *    step their optimizer and gather parameters (ZeRO-1/2), and start the
 *    next step.
 *
 * Breakdown of an entity's step: compute (its GPU work and optimizer),
 * exposed communication (time ops spend beyond their compute, time spent
 * waiting for an input already on the wire, its own gradient reduction
 * not hidden), waiting for ranks (idle until another rank sends an input:
 * the pipeline bubble; waiting for slower replicas at the reduction and
 * for slower stages at the barrier), data wait (the first stage waiting
 * for the next batch from storage) and overhead. The result's terms are
 * the mean over the GPUs the entities stand for.
 */
#include "solver/sim.h"

#include "model/alloc.h"
#include "model/quality.h"
#include "solver/des.h"
#include "solver/link.h"
#include "solver/parallel.h"
#include "solver/rng.h"
#include "solver/stats.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_ENT 0x50000000ull

/* One op of a stage's schedule: bit 0 backward, then chunk and micro-batch. */
typedef struct sop {
    unsigned char bwd;
    unsigned short v;   /* model chunk on the stage (0 .. vpp-1) */
    int mb;             /* micro-batch */
} sop;

struct psim;

typedef struct ent {
    struct psim *ps;
    int s, j;            /* stage, simulated replica */
    int rank;            /* first GPU rank */
    int link;            /* its NIC link */
    double slow;         /* compute multiplier (straggler) */
    gsl_rng *rng;
    int next;            /* index of the next op in its stage's schedule */
    int waiting;         /* idle, waiting for the next op's input */
    double wait_since;   /* when it started waiting, s */
    int parts;           /* parts of the op in flight still to finish */
    double op_start, op_compute; /* the op in flight */
    unsigned char *ready;        /* [2][vpp*m]: input arrived */
    double *sent;                /* [2][vpp*m]: when its send started */
    double last_end;     /* end of its last op this step, s */
    double grad_at;      /* first gradient bucket ready, s */
    int trace_lane;      /* lane in the trace, -1 = none */
    /* this step's breakdown, s */
    double t_comp, t_comm, t_wait, t_data;
} ent;

struct psim {
    const dam_scenario *s;
    const dam_parallel_cost *c;
    const dam_sim_options *opt;
    dam_des *des;
    dam_link_net *net;
    int reps;                  /* replications (progress reports) */
    int p, v, m;               /* stages, chunks per stage, micro-batches */
    int nrep;                  /* simulated replicas */
    int *rep_of;               /* [nrep] replica index (0 .. dp-1) */
    double *rep_weight;        /* [nrep] replicas each stands for */
    int nent;
    ent *e;                    /* [p * nrep], stage-major: e[s * nrep + j] */
    sop **sched;               /* [p] schedules */
    int nsched;                /* ops per stage per step */
    double gpus_per_ent;       /* tp x cp */
    int fs_link;               /* the shared file system, -1 = none */
    int *store_link;           /* [nrep] node-local storage links or -1 */
    double jitter_cv;
    double jitter_mu, jitter_sigma; /* its log-normal's parameters */
    /* the step in progress */
    int step;                  /* index from 0 */
    double step_start;
    int *synced_members;       /* [p] members of stage s with gradient ready */
    int stages_synced;
    double *sync_last_end;     /* [p] latest last-backward end */
    double *sync_start;        /* [p] when the reduction started */
    int *sync_flows;           /* [p] reduction parts outstanding */
    int *sync_ended;           /* [p] members whose last op ended */
    double *sync_done;         /* [p] when it ended */
    int ent_done;              /* entities through the optimizer */
    double *data_at;           /* [nrep][2]: when the data of a step
                                * (by parity) arrived, +inf in flight */
    /* statistics */
    int warm, steps;
    dam_stats *st_step;
    double *k_step;            /* one replication: each measured step's
                                * time, s, for its CI by batch means (else
                                * NULL) */
    double sum_step, nobs, sum_terms[DAM_TERM_COUNT];
    double sum_pipe;
    double prev_end;
    int traced, rep;
    dam_trace *trace;
    int trace_steps;
    int failed;
    dam_error *err;
    /* transfers in flight: contexts by index (a pool, so flows dropped at
     * the end of a replication lose nothing) */
    struct xfer_ctx *xc;
    int nxc, capxc, *xfree, nxfree;
};

/* ---- schedules ------------------------------------------------------- */

/* Megatron-LM's 1F1B order for stage s (forward_backward_pipelining_
 * without_interleaving): warm-up forwards, one forward one backward,
 * cool-down backwards. */
static int sched_1f1b(int p, int m, int s, sop *o)
{
    int w = p - s - 1 < m ? p - s - 1 : m, n = 0, f = 0, b = 0;
    for (int i = 0; i < w; i++)
        o[n++] = (sop){0, 0, f++};
    while (f < m) {
        o[n++] = (sop){0, 0, f++};
        o[n++] = (sop){1, 0, b++};
    }
    while (b < m)
        o[n++] = (sop){1, 0, b++};
    return n;
}

static int sched_gpipe(int m, sop *o)
{
    int n = 0;
    for (int i = 0; i < m; i++)
        o[n++] = (sop){0, 0, i};
    for (int i = 0; i < m; i++)
        o[n++] = (sop){1, 0, i};
    return n;
}

/* Interleaved 1F1B (Megatron-LM forward_backward_pipelining_with_
 * interleaving): the k-th forward runs chunk (k mod pv) / p on micro-
 * batch (k / pv) p + k mod p; backwards take the chunks in reverse. */
static int sched_interleaved(int p, int v, int m, int s, sop *o)
{
    int total = m * v;
    int w = 2 * (p - s - 1) + (v - 1) * p;
    if (w > total)
        w = total;
    int n = 0, f = 0, b = 0;
#define FWD_OP(k) ((sop){0, (unsigned short)(((k) % (p * v)) / p), \
                        ((k) / (p * v)) * p + (k) % p})
#define BWD_OP(k) ((sop){1, (unsigned short)(v - 1 - ((k) % (p * v)) / p), \
                        ((k) / (p * v)) * p + (k) % p})
    for (int i = 0; i < w; i++, f++)
        o[n++] = FWD_OP(f);
    while (f < total) {
        o[n++] = FWD_OP(f);
        f++;
        o[n++] = BWD_OP(b);
        b++;
    }
    while (b < total) {
        o[n++] = BWD_OP(b);
        b++;
    }
#undef FWD_OP
#undef BWD_OP
    return n;
}

/* ---- helpers ---------------------------------------------------------- */

static ent *ent_at(struct psim *ps, int s, int j)
{
    return &ps->e[s * ps->nrep + j];
}

/* Which chunk kind an op of stage s on chunk v runs. */
static const dam_parallel_op *op_cost(const struct psim *ps, int s, int v,
                                      int bwd)
{
    int k = dam_parallel_chunk_kind(ps->c, v * ps->p + s);
    return bwd ? &ps->c->bwd[k] : &ps->c->fwd[k];
}

static int slot(const struct psim *ps, int bwd, int v, int mb)
{
    return bwd * ps->v * ps->m + v * ps->m + mb;
}

static void trace_span(struct psim *ps, ent *e, dam_span_kind k, double a,
                       double b)
{
    int first = ps->opt->trace_first;
    if (ps->traced && e->trace_lane >= 0 && ps->step >= first &&
        ps->step < first + ps->trace_steps && b > a)
        dam_trace_span_add(ps->trace, e->trace_lane, k, a, b, ps->step);
}

/* Start a transfer of x (per GPU) from entity e: a flow of its NIC part
 * for all the entity's GPUs on its link (and extra links), then its fixed
 * part; done(ctx, arg) at the end. Returns 0, or -1 after recording an
 * error. */
static int start_xfer(struct psim *ps, ent *e, const dam_parallel_xfer *x,
                      const int *extra, int nextra, dam_des_fn done,
                      void *ctx, dam_des_arg arg);

/* A transfer's NIC part done: its fixed part follows. */
typedef struct xfer_ctx {
    dam_des_fn done;
    void *ctx;
    dam_des_arg arg;
    double fixed;
} xfer_ctx;

static int xfer_alloc(struct psim *ps)
{
    if (ps->nxfree > 0)
        return ps->xfree[--ps->nxfree];
    if (ps->nxc == ps->capxc) {
        ps->capxc = ps->capxc ? 2 * ps->capxc : 256;
        ps->xc = dam_realloc(ps->xc, (size_t)ps->capxc * sizeof *ps->xc);
        ps->xfree = dam_realloc(ps->xfree,
                                (size_t)ps->capxc * sizeof *ps->xfree);
    }
    return ps->nxc++;
}

static void xfer_flow_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct psim *ps = ctx;
    xfer_ctx x = ps->xc[arg.u];
    ps->xfree[ps->nxfree++] = (int)arg.u;
    dam_des_after(des, x.fixed, x.done, x.ctx, x.arg);
}

static int start_xfer(struct psim *ps, ent *e, const dam_parallel_xfer *x,
                      const int *extra, int nextra, dam_des_fn done,
                      void *ctx, dam_des_arg arg)
{
    if (!(x->nic_bytes > 0.0) || !(x->nic_rate > 0.0)) {
        dam_des_after(ps->des, x->time, done, ctx, arg);
        return 0;
    }
    int links[DAM_LINK_MAXPATH], n = 0;
    links[n++] = e->link;
    for (int i = 0; i < nextra && n < DAM_LINK_MAXPATH; i++)
        links[n++] = extra[i];
    int k = xfer_alloc(ps);
    xfer_ctx *xc = &ps->xc[k];
    xc->done = done;
    xc->ctx = ctx;
    xc->arg = arg;
    xc->fixed = x->fixed;
    double g = ps->gpus_per_ent;
    if (dam_link_flow_start(ps->net, links, n, x->nic_bytes * g,
                            x->nic_rate * g, xfer_flow_done, ps,
                            dam_des_u((uint64_t)k), NULL, ps->err) != DAM_OK) {
        ps->xfree[ps->nxfree++] = k;
        ps->failed = 1;
        dam_des_stop(ps->des);
        return -1;
    }
    return 0;
}

/* ---- ops --------------------------------------------------------------- */

static void try_start(struct psim *ps, ent *e);

/* Input (activation or gradient) for slot k arrived at entity e. */
static void arrive(dam_des *des, void *ctx, dam_des_arg arg)
{
    ent *e = ctx;
    (void)des;
    e->ready[arg.u] = 1;
    if (e->waiting)
        try_start(e->ps, e);
}

/* Send the output of op o of entity e to the entity that needs it. */
static void send_output(struct psim *ps, ent *e, const sop *o)
{
    int g = o->v * ps->p + e->s;
    int to = o->bwd ? g - 1 : g + 1;
    if (to < 0 || to >= ps->p * ps->v)
        return;
    ent *r = ent_at(ps, to % ps->p, e->j);
    int k = slot(ps, o->bwd, to / ps->p, o->mb);
    r->sent[k] = dam_des_now(ps->des);
    if (ps->c->p2p_domain || ps->p < 2)
        dam_des_after(ps->des, ps->c->p2p.time, arrive, r, dam_des_u((uint64_t)k));
    else
        start_xfer(ps, e, &ps->c->p2p, NULL, 0, arrive, r,
                   dam_des_u((uint64_t)k));
}

static void step_end_stage(struct psim *ps, ent *e);

static void op_part_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    ent *e = ctx;
    struct psim *ps = e->ps;
    (void)arg;
    if (--e->parts > 0)
        return;
    double now = dam_des_now(des);
    const sop *o = &ps->sched[e->s][e->next];
    e->t_comp += e->op_compute;
    double extra = now - e->op_start - e->op_compute;
    /* (clock rounding of a pure-compute op is not communication) */
    e->t_comm += extra > 1e-9 * e->op_compute ? extra : 0.0;
    trace_span(ps, e, o->bwd ? DAM_SPAN_BACKWARD : DAM_SPAN_FORWARD,
               e->op_start, now);
    send_output(ps, e, o);
    e->last_end = now;
    e->next++;
    if (e->next >= ps->nsched)
        step_end_stage(ps, e);
    else
        try_start(ps, e);
}

/* The GPU work is done: the expert all-to-all follows (in series). */
static void op_compute_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    ent *e = ctx;
    struct psim *ps = e->ps;
    const dam_parallel_op *c = (const dam_parallel_op *)arg.p;
    (void)des;
    if (c->a2a.time > 0.0 && !c->a2a_overlap)
        start_xfer(ps, e, &c->a2a, NULL, 0, op_part_done, e, dam_des_u(0));
    else
        op_part_done(ps->des, e, dam_des_u(0));
}

/* The ZeRO traffic of an op that does not overlap: after its compute. */
static void gradient_ready(dam_des *des, void *ctx, dam_des_arg arg);
static void member_grad_ready(dam_des *des, void *ctx, dam_des_arg arg);

static void try_start(struct psim *ps, ent *e)
{
    const sop *o = &ps->sched[e->s][e->next];
    int g = o->v * ps->p + e->s;
    double now = dam_des_now(ps->des);
    int k = slot(ps, o->bwd, o->v, o->mb);
    int need = o->bwd ? g < ps->p * ps->v - 1 : g > 0;
    if (need && !e->ready[k]) {
        if (!e->waiting) {
            e->waiting = 1;
            e->wait_since = now;
        }
        return;
    }
    if (!o->bwd && g == 0 && ps->data_at[2 * e->j + (ps->step & 1)] > now) {
        /* the first stage waits for the step's data */
        if (!e->waiting) {
            e->waiting = 1;
            e->wait_since = now;
        }
        return;
    }
    if (e->waiting) {
        /* idle since wait_since: the part before the input was sent is
         * waiting for another rank, the part after is communication */
        double w0 = e->wait_since, sent = need ? e->sent[k] : now;
        if (!o->bwd && g == 0) {
            e->t_data += now - w0;
            trace_span(ps, e, DAM_SPAN_STALL, w0, now);
        } else {
            double mid = sent > w0 ? (sent < now ? sent : now) : w0;
            e->t_wait += mid - w0;
            e->t_comm += now - mid;
            trace_span(ps, e, DAM_SPAN_WAIT, w0, now);
        }
        e->waiting = 0;
    }
    const dam_parallel_op *c = op_cost(ps, e->s, o->v, o->bwd);
    double draw = 1.0;
    if (ps->jitter_cv > 0.0) /* lognormal, mean 1, cv jitter_cv */
        draw = exp(ps->jitter_mu +
                   ps->jitter_sigma * gsl_ran_gaussian_ziggurat(e->rng, 1.0));
    double comp = c->compute * draw * e->slow;
    e->op_start = now;
    e->op_compute = comp;
    e->parts = 1;
    if (c->a2a.time > 0.0 && c->a2a_overlap) {
        /* the all-to-all of another micro-batch runs beside this one */
        e->parts++;
        start_xfer(ps, e, &c->a2a, NULL, 0, op_part_done, e, dam_des_u(0));
    }
    if (c->zero.time > 0.0) {
        e->parts++;
        if (c->zero_overlap && c->zero.nic_bytes > 0.0 &&
            c->zero.nic_rate > 0.0) /* on the NICs: beside everything */
            start_xfer(ps, e, &c->zero, NULL, 0, op_part_done, e,
                       dam_des_u(0));
        else if (c->zero_overlap) /* inside the node's fabric, which the
                                   * tensor-parallel collectives use too:
                                   * beside the compute only */
            dam_des_after(ps->des, c->comm + c->zero.time, op_part_done, e,
                          dam_des_u(0));
        else /* after the op's own work: approximated as beside it at
              * the end, so its time adds (delayed start) */
            dam_des_after(ps->des, comp + c->comm, gradient_ready, e,
                          dam_des_p((void *)c));
    }
    /* the last backward releases gradient buckets as it goes: the
     * reduction may start with the first */
    if (e->next == ps->nsched - 1 && ps->s->layout.overlap_grad) {
        const dam_parallel_stage *st =
            &ps->c->stage[dam_parallel_stage_kind(ps->c, e->s)];
        e->grad_at = now + (comp + c->comm) / st->buckets;
        dam_des_at(ps->des, e->grad_at, member_grad_ready, ps,
                   dam_des_u((uint64_t)e->s));
    }
    dam_des_after(ps->des, comp + c->comm, op_compute_done, e,
                  dam_des_p((void *)c));
}

/* Non-overlapped ZeRO traffic of an op, started after its compute. */
static void gradient_ready(dam_des *des, void *ctx, dam_des_arg arg)
{
    ent *e = ctx;
    const dam_parallel_op *c = (const dam_parallel_op *)arg.p;
    (void)des;
    start_xfer(e->ps, e, &c->zero, NULL, 0, op_part_done, e, dam_des_u(0));
}

/* ---- step end: reduction, barrier, optimizer, gather ------------------- */

static void begin_step(struct psim *ps);
static void stage_synced(dam_des *des, void *ctx, dam_des_arg arg);

/* Stage s's reduction may complete: its flows are done and every member's
 * last backward has ended. */
static void sync_check(struct psim *ps, int s)
{
    if (ps->sync_flows[s] > 0 || ps->sync_ended[s] < ps->nrep)
        return;
    ps->sync_flows[s] = -1; /* once */
    dam_des *des = ps->des;
    dam_des_arg arg = dam_des_u((uint64_t)s);
    /* the last bucket cannot finish before its own time after the last
     * backward ends */
    const dam_parallel_stage *st =
        &ps->c->stage[dam_parallel_stage_kind(ps->c, s)];
    double floor = ps->sync_last_end[s] + st->grad.time / st->buckets;
    double now = dam_des_now(des);
    if (floor > now)
        dam_des_at(des, floor, stage_synced, ps, arg);
    else
        stage_synced(des, ps, arg);
}

static void sync_part_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct psim *ps = ctx;
    int s = (int)arg.u;
    (void)des;
    if (--ps->sync_flows[s] > 0)
        return;
    sync_check(ps, s);
}

/* Start stage s's gradient reduction: every simulated member sends. */
static void start_sync(struct psim *ps, int s)
{
    const dam_parallel_stage *st =
        &ps->c->stage[dam_parallel_stage_kind(ps->c, s)];
    ps->sync_start[s] = dam_des_now(ps->des);
    if (!(st->grad.time > 0.0)) {
        ps->sync_flows[s] = 0;
        sync_check(ps, s);
        return;
    }
    ps->sync_flows[s] = ps->nrep;
    for (int j = 0; j < ps->nrep; j++)
        start_xfer(ps, ent_at(ps, s, j), &st->grad, NULL, 0, sync_part_done,
                   ps, dam_des_u((uint64_t)s));
}

static void member_grad_ready(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct psim *ps = ctx;
    int s = (int)arg.u;
    (void)des;
    if (++ps->synced_members[s] == ps->nrep)
        start_sync(ps, s);
}

/* Entity e finished its last op of the step. */
static void step_end_stage(struct psim *ps, ent *e)
{
    int s = e->s;
    double now = dam_des_now(ps->des);
    if (now > ps->sync_last_end[s])
        ps->sync_last_end[s] = now;
    ps->sync_ended[s]++;
    if (e->grad_at < 0.0) /* not overlapped: the reduction starts now */
        member_grad_ready(ps->des, ps, dam_des_u((uint64_t)s));
    else
        sync_check(ps, s);
}

static void ent_ready_next(dam_des *des, void *ctx, dam_des_arg arg);

static void gather_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    (void)des;
    (void)ctx;
    (void)arg;
}

/* Optimizer of entity e done: gather parameters (ZeRO-1/2). */
static void optimizer_done(dam_des *des, void *ctx, dam_des_arg arg)
{
    ent *e = ctx;
    struct psim *ps = e->ps;
    (void)arg;
    const dam_parallel_stage *st =
        &ps->c->stage[dam_parallel_stage_kind(ps->c, e->s)];
    double now = dam_des_now(des);
    if (st->gather.time > 0.0) {
        if (ps->s->layout.overlap_param) {
            /* the next step's first chunk needs only the first bucket */
            start_xfer(ps, e, &st->gather, NULL, 0, gather_done, e,
                       dam_des_u(0));
            dam_des_after(des, dam_parallel_gather_exposed(ps->c, e->s),
                          ent_ready_next, e, dam_des_d(now));
        } else {
            start_xfer(ps, e, &st->gather, NULL, 0, ent_ready_next, e,
                       dam_des_d(now));
        }
    } else {
        ent_ready_next(des, e, dam_des_d(now));
    }
}

/* Entity e may start the next step (arg: when its optimizer ended). */
static void ent_ready_next(dam_des *des, void *ctx, dam_des_arg arg)
{
    ent *e = ctx;
    struct psim *ps = e->ps;
    e->t_comm += dam_des_now(des) - arg.d;
    e->last_end = dam_des_now(des); /* idle from here to the step's end */
    if (++ps->ent_done == ps->nent)
        begin_step(ps);
}

/* Stage s's reduction is complete; when all are, the barrier lifts. */
static void stage_synced(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct psim *ps = ctx;
    int s = (int)arg.u;
    double now = dam_des_now(des);
    ps->sync_done[s] = now;
    if (++ps->stages_synced < ps->p)
        return;
    /* the barrier: account each entity's time since its last op */
    for (int i = 0; i < ps->nent; i++) {
        ent *e = &ps->e[i];
        /* the reduction's tail after the stage's slowest member ended
         * is communication; the time before, waiting for that member */
        double done = ps->sync_done[e->s], start = ps->sync_start[e->s];
        double late = ps->sync_last_end[e->s];
        double own0 = start > late ? start : late;
        double comm = done > own0 ? done - own0 : 0.0;
        e->t_comm += comm;
        e->t_wait += (now - e->last_end) - comm;
        trace_span(ps, e, DAM_SPAN_WAIT, e->last_end, own0 < now ? own0 : now);
        trace_span(ps, e, DAM_SPAN_ALLREDUCE, own0, done);
        trace_span(ps, e, DAM_SPAN_WAIT, done > own0 ? done : own0, now);
        const dam_parallel_stage *st =
            &ps->c->stage[dam_parallel_stage_kind(ps->c, e->s)];
        e->t_comp += st->optimizer;
        trace_span(ps, e, DAM_SPAN_OPTIMIZER, now, now + st->optimizer);
        dam_des_after(des, st->optimizer, optimizer_done, e, dam_des_u(0));
    }
}

/* Storage read of a step's data for replica j (arg: 2 j + parity). */
static void data_arrived(dam_des *des, void *ctx, dam_des_arg arg)
{
    struct psim *ps = ctx;
    ps->data_at[arg.u] = dam_des_now(des);
    int j = (int)(arg.u / 2);
    ent *e = ent_at(ps, 0, j);
    if ((int)(arg.u & 1) == (ps->step & 1) && e->waiting)
        try_start(ps, e);
}

/* Prefetch: start reading the data of step `step` for every replica. */
static void start_reads(struct psim *ps, int step)
{
    const dam_scenario *s = ps->s;
    double bytes = (double)ps->m * s->layout.micro_batch * s->data.raw_bytes;
    for (int j = 0; j < ps->nrep; j++) {
        uint64_t k = 2u * (uint64_t)j + (uint64_t)(step & 1);
        ps->data_at[k] = INFINITY;
        if (!(bytes > 0.0)) {
            ps->data_at[k] = dam_des_now(ps->des);
            continue;
        }
        ent *e = ent_at(ps, 0, j);
        dam_parallel_xfer x;
        memset(&x, 0, sizeof x);
        x.fixed = s->machine.storage_latency;
        x.nic_bytes = bytes / ps->gpus_per_ent;
        int save = e->link, extra = ps->fs_link, nextra = 0;
        if (ps->fs_link >= 0) {
            nextra = 1; /* over the node's NICs into the shared system */
        } else {
            e->link = ps->store_link[j];
        }
        x.nic_rate = dam_link_capacity(ps->net, e->link) / ps->gpus_per_ent;
        x.time = x.fixed + x.nic_bytes / x.nic_rate;
        start_xfer(ps, e, &x, &extra, nextra, data_arrived, ps,
                   dam_des_u(k));
        e->link = save;
    }
}

static void kick(dam_des *des, void *ctx, dam_des_arg arg)
{
    ent *e = ctx;
    (void)des;
    (void)arg;
    try_start(e->ps, e);
}

/* Close the step that ended (if any) and start the next one. */
static void begin_step(struct psim *ps)
{
    double now = dam_des_now(ps->des);
    if (ps->step >= 0) {
        double dur = now - ps->prev_end;
        if (ps->step >= ps->warm) {
            dam_stats_add(ps->st_step, dur);
            if (ps->k_step && ps->step - ps->warm < ps->steps)
                ps->k_step[ps->step - ps->warm] = dur;
            ps->sum_step += dur;
            ps->nobs += 1.0;
            double w = 0.0, tw[DAM_TERM_COUNT] = {0};
            for (int i = 0; i < ps->nent; i++) {
                ent *e = &ps->e[i];
                double wt = ps->rep_weight[e->j];
                /* the later stages' idle time, up to the first stage's
                 * wait for the step's data, is that wait passed on */
                /* an entity ready before the last one (a shorter
                 * optimizer, no gather) waits for it: without that tail
                 * the terms summed to 0.45 % less than the step measured
                 * (property test "ordered", the mean below every step) */
                double data = e->t_data, idle = e->t_wait + now - e->last_end;
                if (e->s > 0) {
                    double d0 = ent_at(ps, 0, e->j)->t_data;
                    double mv = idle < d0 ? idle : d0;
                    data += mv;
                    idle -= mv;
                }
                tw[DAM_TERM_COMPUTE] += wt * e->t_comp;
                tw[DAM_TERM_COMM] += wt * e->t_comm;
                tw[DAM_TERM_WAIT] += wt * idle;
                tw[DAM_TERM_DATA] += wt * data;
                tw[DAM_TERM_OVERHEAD] += wt * ps->c->overhead;
                w += wt;
            }
            for (int t = 0; t < DAM_TERM_COUNT; t++)
                ps->sum_terms[t] += tw[t] / w;
        }
        if (ps->opt->observer && ps->opt->observer->step)
            for (int i = 0; i < ps->nent; i++)
                ps->opt->observer->step(ps->opt->observer->ctx, ps->rep,
                                        ps->e[i].rank, ps->step, dur, now);
        dam_progress_report(ps->opt->progress,
                            (double)ps->rep * (ps->warm + ps->steps) +
                                ps->step + 1,
                            (double)ps->reps * (ps->warm + ps->steps));
        if (ps->step + 1 >= ps->warm + ps->steps) {
            dam_des_stop(ps->des);
            return;
        }
    }
    ps->step++;
    ps->prev_end = now;
    ps->ent_done = 0;
    ps->stages_synced = 0;
    for (int s = 0; s < ps->p; s++) {
        ps->synced_members[s] = 0;
        ps->sync_last_end[s] = 0.0;
        ps->sync_flows[s] = 1; /* until the reduction starts */
        ps->sync_ended[s] = 0;
    }
    start_reads(ps, ps->step + 1); /* prefetch the next step's data */
    size_t slots = 2u * (size_t)ps->v * ps->m;
    for (int i = 0; i < ps->nent; i++) {
        ent *e = &ps->e[i];
        e->next = 0;
        e->waiting = 0;
        e->grad_at = -1.0;
        e->t_comp = e->t_comm = e->t_wait = e->t_data = 0.0;
        memset(e->ready, 0, slots);
        e->last_end = now;
        trace_span(ps, e, DAM_SPAN_OVERHEAD, now, now + ps->c->overhead);
        /* the step's host overhead, then its schedule */
        dam_des_after(ps->des, ps->c->overhead, kick, e, dam_des_u(0));
    }
}

/* ---- set-up -------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Which replicas to simulate and what each stands for (file comment). */
static void choose_replicas(struct psim *ps)
{
    const dam_layout *l = &ps->s->layout;
    int dp = l->dp;
    int slow_rep = -1;
    if (l->slow_rank >= 0 && l->slow_factor > 1.0) {
        int per = l->tp * l->cp;
        slow_rep = (l->slow_rank / per) % dp;
    }
    if (ps->jitter_cv > 0.0 || dp == 1) {
        ps->nrep = dp;
        ps->rep_of = dam_calloc((size_t)dp, sizeof *ps->rep_of);
        ps->rep_weight = dam_calloc((size_t)dp, sizeof *ps->rep_weight);
        for (int j = 0; j < dp; j++) {
            ps->rep_of[j] = j;
            ps->rep_weight[j] = 1.0;
        }
        return;
    }
    if (slow_rep >= 0) {
        ps->nrep = 2;
        ps->rep_of = dam_calloc(2, sizeof *ps->rep_of);
        ps->rep_weight = dam_calloc(2, sizeof *ps->rep_weight);
        ps->rep_of[0] = slow_rep == 0 ? 1 : 0;
        ps->rep_weight[0] = dp - 1.0;
        ps->rep_of[1] = slow_rep;
        ps->rep_weight[1] = 1.0;
        return;
    }
    ps->nrep = 1;
    ps->rep_of = dam_calloc(1, sizeof *ps->rep_of);
    ps->rep_weight = dam_calloc(1, sizeof *ps->rep_weight);
    ps->rep_of[0] = 0;
    ps->rep_weight[0] = dp;
}

/* Links: one per node group that holds a simulated entity, with the
 * share of its NICs the simulated entities stand for; the file system. */
static int build_links(struct psim *ps, dam_error *err)
{
    const dam_scenario *s = ps->s;
    const dam_layout *l = &s->layout;
    const dam_network *nw = &s->machine.net;
    int G = s->machine.gpus_per_node;
    double per = (double)l->tp * l->cp;
    double u = per >= G ? per / G : 1.0;          /* nodes per entity */
    double c = per >= G ? 1.0 : G / per;          /* entities per node */
    double agg = nw->nics * nw->nic_bw * nw->nic_eff; /* one node's NICs */
    uint64_t *key = dam_calloc((size_t)ps->nent, sizeof *key);
    for (int i = 0; i < ps->nent; i++) {
        ent *e = &ps->e[i];
        e->rank = (int)(per * (ps->rep_of[e->j] + (double)l->dp * e->s));
        key[i] = (uint64_t)(e->rank / (G * u));
    }
    uint64_t *uk = dam_calloc((size_t)ps->nent, sizeof *uk);
    memcpy(uk, key, (size_t)ps->nent * sizeof *uk);
    qsort(uk, (size_t)ps->nent, sizeof *uk, cmp_u64);
    int nu = 0;
    for (int i = 0; i < ps->nent; i++)
        if (nu == 0 || uk[nu - 1] != uk[i])
            uk[nu++] = uk[i];
    int *count = dam_calloc((size_t)nu, sizeof *count);
    int *lid = dam_calloc((size_t)nu, sizeof *lid);
    for (int i = 0; i < ps->nent; i++) {
        uint64_t *f = bsearch(&key[i], uk, (size_t)nu, sizeof *uk, cmp_u64);
        ps->e[i].link = (int)(f - uk); /* index for now */
        count[ps->e[i].link]++;
    }
    int rc = DAM_OK;
    for (int k = 0; k < nu && rc == DAM_OK; k++) {
        double cap = agg * u * (count[k] / c);
        lid[k] = dam_link_add(ps->net, cap, err);
        if (lid[k] < 0)
            rc = DAM_ERUNTIME;
    }
    for (int i = 0; i < ps->nent && rc == DAM_OK; i++)
        ps->e[i].link = lid[ps->e[i].link];
    /* storage: the cluster's one file system, shared by every node (the
     * simulated readers get their share), or each node's own */
    ps->fs_link = -1;
    ps->store_link = dam_calloc((size_t)ps->nrep, sizeof *ps->store_link);
    double share = (double)ps->nrep / l->dp;
    if (rc == DAM_OK && s->machine.fs_bw > 0.0) {
        ps->fs_link = dam_link_add(ps->net, s->machine.fs_bw * share, err);
        if (ps->fs_link < 0)
            rc = DAM_ERUNTIME;
    }
    for (int j = 0; j < ps->nrep && rc == DAM_OK; j++) {
        ps->store_link[j] = -1;
        if (ps->fs_link < 0) {
            /* node-local storage: the first stage's node reads at its
             * own bandwidth, shared by the entities on the node */
            double cap = s->machine.storage_bw * u / c;
            ps->store_link[j] = dam_link_add(ps->net, cap, err);
            if (ps->store_link[j] < 0)
                rc = DAM_ERUNTIME;
        }
    }
    dam_free(key);
    dam_free(uk);
    dam_free(count);
    dam_free(lid);
    return rc;
}

static void free_psim(struct psim *ps)
{
    for (int i = 0; ps->e && i < ps->nent; i++) {
        dam_rng_free(ps->e[i].rng);
        dam_free(ps->e[i].ready);
        dam_free(ps->e[i].sent);
    }
    dam_free(ps->e);
    for (int s = 0; ps->sched && s < ps->p; s++)
        dam_free(ps->sched[s]);
    dam_free(ps->sched);
    dam_free(ps->rep_of);
    dam_free(ps->rep_weight);
    dam_free(ps->store_link);
    dam_free(ps->synced_members);
    dam_free(ps->sync_last_end);
    dam_free(ps->sync_start);
    dam_free(ps->sync_flows);
    dam_free(ps->sync_ended);
    dam_free(ps->sync_done);
    dam_free(ps->data_at);
    dam_free(ps->xc);
    dam_free(ps->xfree);
    dam_link_net_free(ps->net);
    dam_des_free(ps->des);
    dam_stats_free(ps->st_step);
}

/* The stage-replicas' schedules, entities (each with its random stream,
 * and the slow rank's factor) and the gradient-sync state. */
static void build_entities(struct psim *ps, uint64_t seed)
{
    const dam_scenario *s = ps->s;
    const dam_parallel_cost *c = ps->c;
    choose_replicas(ps);
    ps->nent = ps->p * ps->nrep;
    ps->e = dam_calloc((size_t)ps->nent, sizeof *ps->e);
    ps->sched = dam_calloc((size_t)ps->p, sizeof *ps->sched);
    ps->nsched = 2 * ps->m * ps->v;
    for (int st = 0; st < ps->p; st++) {
        ps->sched[st] = dam_calloc((size_t)ps->nsched, sizeof **ps->sched);
        int n = c->l.schedule == DAM_SCHED_INTERLEAVED
                    ? sched_interleaved(ps->p, ps->v, ps->m, st, ps->sched[st])
                : c->l.schedule == DAM_SCHED_GPIPE
                    ? sched_gpipe(ps->m, ps->sched[st])
                    : sched_1f1b(ps->p, ps->m, st, ps->sched[st]);
        (void)n;
    }
    size_t slots = 2u * (size_t)ps->v * ps->m;
    int slow_rep = -1;
    if (s->layout.slow_rank >= 0)
        slow_rep = (s->layout.slow_rank / (c->l.tp * c->l.cp)) % c->l.dp;
    int slow_stage = s->layout.slow_rank >= 0
                         ? s->layout.slow_rank / (c->l.tp * c->l.cp * c->l.dp)
                         : -1;
    for (int st = 0; st < ps->p; st++)
        for (int j = 0; j < ps->nrep; j++) {
            ent *e = ent_at(ps, st, j);
            e->ps = ps;
            e->s = st;
            e->j = j;
            e->slow = (ps->rep_of[j] == slow_rep && st == slow_stage)
                          ? s->layout.slow_factor
                          : 1.0;
            /* thousands of streams: Tausworthe's 24-byte state (MT19937's
             * 2.5 kB per entity would not stay in cache) */
            e->rng = dam_alloc_check(gsl_rng_alloc(gsl_rng_taus2),
                                     sizeof(gsl_rng));
            dam_rng_reseed(e->rng, seed,
                           STREAM_ENT + (uint64_t)st * c->l.dp +
                               (uint64_t)ps->rep_of[j]);
            e->ready = dam_calloc(slots, 1);
            e->sent = dam_calloc(slots, sizeof *e->sent);
            e->trace_lane = -1;
        }
    ps->synced_members = dam_calloc((size_t)ps->p, sizeof *ps->synced_members);
    ps->sync_last_end = dam_calloc((size_t)ps->p, sizeof *ps->sync_last_end);
    ps->sync_start = dam_calloc((size_t)ps->p, sizeof *ps->sync_start);
    ps->sync_flows = dam_calloc((size_t)ps->p, sizeof *ps->sync_flows);
    ps->sync_ended = dam_calloc((size_t)ps->p, sizeof *ps->sync_ended);
    ps->sync_done = dam_calloc((size_t)ps->p, sizeof *ps->sync_done);
    ps->data_at = dam_calloc(2u * (size_t)ps->nrep, sizeof *ps->data_at);
}

/* Trace lanes: the pipeline of the first replica, stage by stage (at
 * most 16 lanes), or the stage-replicas holding the ranks asked for. */
static void trace_lanes(struct psim *ps, const dam_sim_options *opt,
                        dam_trace *trace)
{
    int lanes = 0;
    for (int i = 0; ps->traced && i < ps->nent && lanes < 64; i++) {
        int want = opt->ntrace_ranks == 0 && ps->e[i].j == 0 &&
                   lanes < 16;
        for (int r = 0; r < opt->ntrace_ranks && !want; r++)
            want = opt->trace_ranks[r] >= ps->e[i].rank &&
                   opt->trace_ranks[r] < ps->e[i].rank +
                                             (int)ps->gpus_per_ent;
        if (!want)
            continue;
        lanes++;
        char name[48];
        snprintf(name, sizeof name, "stage %d (rank %d)", ps->e[i].s,
                 ps->e[i].rank);
        ps->e[i].trace_lane =
            dam_trace_lane_add(trace, name, DAM_TRACE_GPU);
    }
}

int dam_sim_parallel_cost(const dam_scenario *s, const dam_parallel_cost *c,
                          const dam_sim_options *opt, dam_sim_parallel_out *out,
                          dam_trace *trace, dam_error *err)
{
    dam_sim_options none;
    memset(&none, 0, sizeof none);
    none.warmup = -1;
    dam_error tmp;
    if (!err)
        err = &tmp;
    if (!opt)
        opt = &none;
    memset(out, 0, sizeof *out);
    struct psim ps;
    memset(&ps, 0, sizeof ps);
    ps.s = s;
    ps.c = c;
    ps.opt = opt;
    ps.err = err;
    ps.p = c->l.pp;
    ps.v = c->l.vpp;
    ps.m = c->l.micro_batches;
    ps.gpus_per_ent = (double)c->l.tp * c->l.cp;
    ps.jitter_cv = s->workload.compute_cv;
    ps.jitter_sigma = sqrt(log1p(ps.jitter_cv * ps.jitter_cv));
    ps.jitter_mu = -0.5 * ps.jitter_sigma * ps.jitter_sigma;
    ps.warm = opt->warmup >= 0 ? opt->warmup : s->pipeline.warmup_steps;
    ps.steps = opt->steps > 0 ? opt->steps : s->pipeline.steps;
    int reps = opt->replications > 0 ? opt->replications
                                     : s->pipeline.replications;
    uint64_t seed = opt->have_seed ? opt->seed : s->seed;
    if (ps.steps < 1 || reps < 1 || ps.p < 1 || ps.m < 1)
        return dam_error_set(err, s->file, 0,
                             "nothing to simulate (%d steps, %d "
                             "replications)",
                             ps.steps, reps);
    build_entities(&ps, seed);
    ps.des = dam_des_create();
    ps.net = dam_link_net_create(ps.des);
    /* a collective across replicas starts and ends its flows at one
     * instant: one recompute for them all (link.h) */
    dam_link_net_set_coalesce(ps.net, 1);
    ps.st_step = dam_stats_create();
    ps.trace = trace;
    ps.trace_steps = opt->trace_steps;
    int rc = build_links(&ps, err);
    double *rep_step = dam_calloc((size_t)reps, sizeof *rep_step);
    if (reps == 1 && ps.steps > 0)
        ps.k_step = dam_calloc((size_t)ps.steps, sizeof *ps.k_step);
    double events = 0.0;
    ps.reps = reps;
    for (int k = 0; k < reps && rc == DAM_OK; k++) {
        dam_des_reset(ps.des);
        dam_link_net_reset(ps.net);
        ps.nxc = ps.nxfree = 0; /* every transfer context is free again */
        ps.rep = k;
        uint64_t rs = dam_rng_mix(seed, (uint64_t)k);
        for (int i = 0; i < ps.nent; i++)
            dam_rng_reseed(ps.e[i].rng, rs,
                           STREAM_ENT + (uint64_t)ps.e[i].s * c->l.dp +
                               (uint64_t)ps.rep_of[ps.e[i].j]);
        ps.traced = trace != NULL && k == 0 && ps.trace_steps > 0;
        trace_lanes(&ps, opt, trace);
        double sum0 = ps.sum_step, n0 = ps.nobs;
        ps.step = -1;
        ps.prev_end = 0.0;
        start_reads(&ps, 0);
        begin_step(&ps);
        dam_des_run(ps.des);
        if (ps.failed) {
            rc = DAM_ERUNTIME;
            break;
        }
        if (ps.nobs <= n0) {
            rc = dam_error_set(err, s->file, 0,
                               "the pipeline simulation stopped after %d of "
                               "%d steps (a deadlock in the schedule)",
                               ps.step, ps.warm + ps.steps);
            break;
        }
        rep_step[k] = (ps.sum_step - sum0) / (ps.nobs - n0);
        events += (double)dam_des_events(ps.des);
        if (ps.traced)
            trace->horizon = dam_des_now(ps.des);
    }
    if (rc == DAM_OK) {
        out->step = ps.sum_step / ps.nobs;
        for (int t = 0; t < DAM_TERM_COUNT; t++)
            out->terms[t] = ps.sum_terms[t] / ps.nobs;
        dam_stats_fill(ps.st_step, &out->step_stat);
        dam_stat ci;
        if (dam_stats_replications(rep_step, (size_t)reps, &ci, NULL) ==
            DAM_OK)
            out->step_stat.ci95 = ci.ci95;
        if (ps.k_step)
            out->step_stat.ci95 = dam_batch_means_ci95(
                ps.k_step, (size_t)(ps.nobs < ps.steps ? ps.nobs : ps.steps));
        out->events = events;
        out->entities = ps.nent;
        out->replicas = ps.nrep;
        out->replications = reps;
        out->steps = ps.steps;
    }
    dam_free(rep_step);
    dam_free(ps.k_step);
    free_psim(&ps);
    return rc;
}

int dam_sim_parallel(const dam_scenario *s, const dam_sim_options *opt,
                     dam_result *r, dam_trace *trace, dam_error *err)
{
    const dam_layout *l = &s->layout;
    dam_parallel_layers lc;
    dam_parallel_cost c;
    if (dam_parallel_layers_cost(s, l->tp, l->sp, l->cp, l->ep,
                                 l->micro_batch, l->recompute, &lc,
                                 err) != DAM_OK)
        return DAM_EINPUT;
    dam_parallel_assemble(s, l, &lc, &c);
    dam_sim_parallel_out o;
    int rc = dam_sim_parallel_cost(s, &c, opt, &o, trace, err);
    if (rc != DAM_OK)
        return rc;
    r->analytic_step = r->step;
    memcpy(r->analytic_terms, r->terms, sizeof r->terms);
    r->analytic_bound = r->bound;
    r->has_sim = 1;
    r->replications = o.replications;
    r->sim_steps = o.steps;
    r->events = o.events;
    r->sim_step = o.step_stat;
    double step = 0.0;
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        r->terms[t] = o.terms[t];
        step += o.terms[t];
    }
    r->sim_step.mean = step;
    memset(&r->sim_data_wait, 0, sizeof r->sim_data_wait);
    r->sim_data_wait.mean = r->terms[DAM_TERM_DATA];
    r->sim_exposed_comm = r->terms[DAM_TERM_COMM];
    r->sim_peer_wait = r->terms[DAM_TERM_WAIT];
    r->nstage_times = 0;
    r->step = step;
    dam_parallel_derive(s, c.tokens, 0.02 * step, r);
    return DAM_OK;
}
