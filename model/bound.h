/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bound.h: what binds a step or a request, as a name the model, the
 * solvers and the renderers share. The lever table (lever.h) says which
 * bounds each lever relieves; the solvers (solver/result.h) say which one
 * binds a solved scenario; the diagnosis joins the two.
 *
 * Design note: a bound names a term of the iron law
 *     T = D_vol/BW + O/(R_peak * eta) + L_lat
 * (or of a request's latency), never a component: "transfer" is the
 * host-to-device copy whatever link carries it.
 */
#ifndef DAM_BOUND_H
#define DAM_BOUND_H

/* What binds. */
typedef enum {
    DAM_BOUND_DATA = 0,    /* the input pipeline (storage, decode) */
    DAM_BOUND_TRANSFER,    /* host-to-device copies */
    DAM_BOUND_COMPUTE,     /* GPU arithmetic (compute-bound phases) */
    DAM_BOUND_MEMORY,      /* GPU memory bandwidth (memory-bound phases) */
    DAM_BOUND_COMM,        /* gradient synchronisation */
    DAM_BOUND_LATENCY,     /* launches, framework overhead, serial depth */
    DAM_BOUND_QUEUEING,    /* serving: utilisation near one */
    DAM_BOUND_PREPROCESS,  /* serving: the CPU preprocessing pool */
    DAM_BOUND_WEIGHTS,     /* serving: weight reads per small batch (HBM) */
    DAM_BOUND_KV_CACHE,    /* LLM serving: KV-cache memory limits the
                              sequences that run at once */
    DAM_BOUND_COUNT
} dam_bound;

/* The bit of bound b in a set of bounds (lever.h's relieves). */
#define DAM_BOUND_BIT(b) (1u << (unsigned)(b))

const char *dam_bound_name(dam_bound b);  /* "data", "compute", ... */
const char *dam_bound_axis(dam_bound b);  /* "Data", "Machine", "Data/Machine", ... */

#endif
