/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace_replay.c: text and JSON of a trace's replay and what-if table (see
 * trace_replay.h). Times are shown in ms; JSON holds seconds.
 */
#include "render/page/trace_replay.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/out/json.h"
#include "solver/whatif.h"

#define NUM(o, k, v) json_object_set_new(o, k, dam_json_num(v))
#define INT(o, k, v) json_object_set_new(o, k, json_integer(v))
#define STR(o, k, v) json_object_set_new(o, k, json_string(v))

static double rel_error(const dam_rgraph *g)
{
    double m = dam_replay_step(g, 0), r = dam_replay_step(g, 1);
    return m > 0.0 ? (r - m) / m : 0.0;
}

void dam_text_trace_check(dam_buf *b, const dam_ktrace *t,
                          const dam_rgraph *g)
{
    dam_buf_printf(b, "%s: %ld events", t->file, t->nevents);
    if (t->device[0])
        dam_buf_printf(b, ", %s x%d", t->device, t->ndevices);
    if (t->nranks > 1)
        dam_buf_printf(b, ", %d ranks of %d", t->nranks, t->world_size);
    else if (t->world_size > 0)
        dam_buf_printf(b, ", rank %d of %d", t->rank, t->world_size);
    dam_buf_printf(b, "\n  used:");
    for (int k = 0; k < DAM_KEV_KIND_COUNT; k++)
        if (t->nkind[k])
            dam_buf_printf(b, " %s %ld,", dam_kev_kind_name((dam_kev_kind)k),
                           t->nkind[k]);
    dam_buf_printf(b, " NCCL kernels %ld\n", t->nnccl);
    dam_buf_printf(b, "  links: %ld of the device work has its launching "
                   "call (%ld through a flow pair only); %zu flow pairs\n",
                   t->linked, t->flows_used, t->nflows);
    dam_buf_printf(b, "  graph: %d nodes, %d edges (%ld launch, %ld "
                   "cross-stream, %ld cross-thread, %ld host sync); %d steps\n",
                   g->nnodes, g->nedges, g->n_launch, g->n_xstream,
                   g->n_xthread, g->n_sync, g->nsteps);
    for (int i = 0; i < t->nranks && t->nranks > 1; i++)
        dam_buf_printf(b, "  rank %d: %s, clock %+.3f ms\n", t->ranks[i].rank,
                       t->ranks[i].file, t->ranks[i].shift_s * 1e3);
    if (t->nranks > 1)
        dam_buf_printf(b, "  %s; %d collectives wait for every rank\n",
                       t->align, g->nbarriers);
    if (g->n_conv)
        dam_buf_printf(b, "  %ld convolution kernels the name rules left "
                       "elementwise: GEMM work of their operator's shape\n",
                       g->n_conv);
    if (g->n_cuda_sync)
        dam_buf_printf(b, "  %ld stream waits and host syncs from the "
                       "trace's cuda_sync records\n", g->n_cuda_sync);
    if (g->n_shaped || g->n_late || g->n_unlaunched)
        dam_buf_printf(b, "  %ld GEMM kernels with their operator's shape; "
                       "%ld without a launching call; %ld measured earlier "
                       "than their edges allow (slack clamped)\n",
                       g->n_shaped, g->n_unlaunched, g->n_late);
}

static void breakdown_text(dam_buf *b, const dam_tbreak *br, double step)
{
    for (int k = 0; k < DAM_TTERM_COUNT; k++) {
        if (br->part[k] <= 0.0)
            continue;
        dam_bound bd = dam_tterm_bound((dam_tterm)k);
        dam_buf_printf(b, "  %-14s %10.3f ms  %5.1f %%   %s (%s)\n",
                       dam_tterm_name((dam_tterm)k), br->part[k] * 1e3,
                       step > 0.0 ? 100.0 * br->part[k] / step : 0.0,
                       dam_bound_name(bd), dam_bound_axis(bd));
    }
}

/* Several ranks: each rank's steps, waits and breakdown. */
static void ranks_text(dam_buf *b, const dam_ktrace *t, const dam_rgraph *g)
{
    int slow = dam_replay_slowest(g, 1);
    dam_buf_printf(b, "\nranks (the job's step is the slowest rank's: "
                   "rank %d; mean over the %s):\n", t->ranks[slow].rank,
                   "steps every rank has");
    dam_buf_printf(b, "  %4s %12s %12s %16s %8s", "rank", "measured ms",
                   "replayed ms", "waits ms/step", "last");
    for (int k = 0; k < DAM_TTERM_COUNT; k++)
        dam_buf_printf(b, " %13.13s", dam_tterm_name((dam_tterm)k));
    dam_buf_printf(b, "\n");
    for (int r = 0; r < g->nranks; r++) {
        dam_rrank x;
        dam_tbreak br;
        dam_replay_rank(g, r, &x);
        dam_replay_breakdown_rank(g, r, &br);
        dam_buf_printf(b, "  %4d %12.3f %12.3f %16.3f %8ld", t->ranks[r].rank,
                       x.measured_s * 1e3, x.step_s * 1e3, x.wait_s * 1e3,
                       x.last);
        for (int k = 0; k < DAM_TTERM_COUNT; k++)
            dam_buf_printf(b, " %13.3f", br.part[k] * 1e3);
        dam_buf_printf(b, "%s\n", r == slow ? "  <- slowest" : "");
    }
    dam_buf_printf(b, "  waits: time in collectives waiting for the other "
                   "ranks (inside exposed comm); last: collectives it "
                   "reached last\n");
}

void dam_text_trace_run(dam_buf *b, const dam_ktrace *t, const dam_rgraph *g,
                        const dam_tbreak *br)
{
    dam_text_trace_check(b, t, g);
    double m = dam_replay_step(g, 0), r = dam_replay_step(g, 1);
    dam_buf_printf(b, "\nstep (%s): measured %.3f ms, replayed %.3f ms, "
                   "replay error %+.2f %%\n",
                   g->nranks > 1 ? "the slowest rank's, median of the "
                                   "steps every rank has"
                   : g->nsteps ? "median of the ProfilerStep spans"
                               : "no step spans: the span of the device work",
                   m * 1e3, r * 1e3, 100.0 * rel_error(g));
    for (int i = 0; i < g->nsteps; i++) {
        dam_buf_printf(b, "  ProfilerStep#%-6d measured %10.3f ms   "
                       "replayed %10.3f ms", g->steps[i].number,
                       g->steps[i].measured_s * 1e3,
                       g->steps[i].replayed_s * 1e3);
        if (g->nranks > 1)
            dam_buf_printf(b, "   rank %d%s", t->ranks[g->steps[i].rank].rank,
                           g->steps[i].common ? "" : " (not on every rank)");
        dam_buf_printf(b, "\n");
    }
    double mean = br->steps > 0 ? br->window_s / br->steps : 0.0;
    dam_buf_printf(b, "\nD·A·M breakdown of the replayed step (mean of %d, "
                   "%.3f ms):\n", br->steps, mean * 1e3);
    breakdown_text(b, br, mean);
    dam_buf_printf(b, "  collectives in all %.3f ms a step (exposed %.3f "
                   "ms)\n", br->comm_total * 1e3,
                   br->part[DAM_TTERM_COMM] * 1e3);
    dam_buf_printf(b, "binding: %s (%s), %.0f %% of the step\n",
                   dam_bound_name(br->bound), dam_bound_axis(br->bound),
                   100.0 * br->bound_share);
    if (g->nranks > 1)
        ranks_text(b, t, g);
}

static json_t *breakdown_json(const dam_tbreak *br)
{
    json_t *o = json_object();
    NUM(o, "step_mean_s", br->steps > 0 ? br->window_s / br->steps : 0.0);
    INT(o, "steps", br->steps);
    json_t *parts = json_object();
    for (int k = 0; k < DAM_TTERM_COUNT; k++)
        NUM(parts, dam_tterm_name((dam_tterm)k), br->part[k]);
    json_object_set_new(o, "parts_s", parts);
    json_t *gt = json_object();
    for (int k = 0; k < DAM_KCLASS_COUNT; k++)
        NUM(gt, dam_kernel_class_name((dam_kernel_class)k), br->gpu_time[k]);
    json_object_set_new(o, "gpu_time_s", gt);
    NUM(o, "comm_total_s", br->comm_total);
    STR(o, "bound", dam_bound_name(br->bound));
    STR(o, "axis", dam_bound_axis(br->bound));
    NUM(o, "bound_share", br->bound_share);
    return o;
}

static json_t *trace_json(const dam_ktrace *t, const dam_rgraph *g)
{
    json_t *o = json_object();
    STR(o, "file", t->file);
    STR(o, "device", t->device);
    INT(o, "devices", t->ndevices);
    if (t->world_size > 0) {
        INT(o, "rank", t->rank);
        INT(o, "world_size", t->world_size);
    }
    INT(o, "events", t->nevents);
    INT(o, "kernels", t->nkind[DAM_KEV_KERNEL]);
    INT(o, "nccl_kernels", t->nnccl);
    INT(o, "steps", g->nsteps);
    NUM(o, "measured_step_s", dam_replay_step(g, 0));
    if (t->nranks > 1) {
        INT(o, "ranks", t->nranks);
        INT(o, "collectives_matched", t->ncoll);
        STR(o, "clocks", t->align);
    }
    json_t *gr = json_object();
    INT(gr, "nodes", g->nnodes);
    INT(gr, "edges", g->nedges);
    INT(gr, "launch_edges", g->n_launch);
    INT(gr, "cross_stream_edges", g->n_xstream);
    INT(gr, "sync_edges", g->n_sync);
    INT(gr, "cuda_sync_edges", g->n_cuda_sync);
    INT(gr, "unlaunched", g->n_unlaunched);
    json_object_set_new(o, "graph", gr);
    return o;
}

json_t *dam_json_trace_run(const dam_ktrace *t, const dam_rgraph *g,
                           const dam_tbreak *br)
{
    json_t *o = json_object();
    json_object_set_new(o, "trace", trace_json(t, g));
    json_t *r = json_object();
    NUM(r, "step_s", dam_replay_step(g, 1));
    NUM(r, "replay_error", rel_error(g));
    json_t *steps = json_array();
    for (int i = 0; i < g->nsteps; i++) {
        json_t *s = json_object();
        INT(s, "number", g->steps[i].number);
        if (g->nranks > 1) {
            INT(s, "rank", t->ranks[g->steps[i].rank].rank);
            json_object_set_new(s, "every_rank",
                                json_boolean(g->steps[i].common));
        }
        NUM(s, "measured_s", g->steps[i].measured_s);
        NUM(s, "replayed_s", g->steps[i].replayed_s);
        json_array_append_new(steps, s);
    }
    json_object_set_new(r, "steps", steps);
    json_object_set_new(r, "breakdown", breakdown_json(br));
    if (g->nranks > 1) {
        json_t *ranks = json_array();
        for (int i = 0; i < g->nranks; i++) {
            dam_rrank x;
            dam_tbreak rb;
            dam_replay_rank(g, i, &x);
            dam_replay_breakdown_rank(g, i, &rb);
            json_t *k = json_object();
            INT(k, "rank", t->ranks[i].rank);
            STR(k, "file", t->ranks[i].file);
            NUM(k, "clock_shift_s", t->ranks[i].shift_s);
            INT(k, "steps", x.steps);
            NUM(k, "measured_step_s", x.measured_s);
            NUM(k, "step_s", x.step_s);
            NUM(k, "collective_wait_s", x.wait_s);
            INT(k, "collectives_reached_last", x.last);
            json_object_set_new(k, "breakdown", breakdown_json(&rb));
            json_array_append_new(ranks, k);
        }
        INT(r, "slowest_rank", t->ranks[dam_replay_slowest(g, 1)].rank);
        json_object_set_new(r, "ranks", ranks);
    }
    json_object_set_new(o, "result", r);
    return o;
}

void dam_text_trace_whatif(dam_buf *b, const dam_ktrace *t,
                           const dam_twhatif *w)
{
    dam_buf_printf(b, "what-if on %s: measured step %.3f ms (median), "
                   "%.3f ms (mean)", t->file, w->measured_s * 1e3,
                   w->measured_mean_s * 1e3);
    if (w->gpu[0])
        dam_buf_printf(b, ", GPU %s", w->gpu);
    dam_buf_printf(b, "\n");
    if (w->nsteps == 0)
        dam_buf_printf(b, "  no ProfilerStep spans: the \"step\" is the span "
                          "of all its device work, with whatever the host did "
                          "between kernels (loading, profiler start-up); "
                          "CUDA graphs would capture all of it as one graph, "
                          "so read their row as an upper bound\n");
    if (w->gemm_unknown > 0)
        dam_buf_printf(b, "  %ld GEMM kernels do not name their precision: "
                       "taken as %s\n", w->gemm_unknown,
                       dam_precision_name((dam_precision)w->default_prec));
    if (w->draws > 0)
        dam_buf_printf(b, "  intervals: 5th-95th percentile over %d draws of "
                       "the device model's constants\n", w->draws);
    const dam_trow *base = &w->rows[0];
    dam_buf_printf(b, "  baseline binds on %s (%s), %.0f %% of the step\n\n",
                   dam_bound_name(base->br.bound),
                   dam_bound_axis(base->br.bound),
                   100.0 * base->br.bound_share);
    dam_buf_printf(b, "step: the mean of the replayed steps\n");
    dam_buf_printf(b, "%-44s %10s %8s %17s %9s  %s\n", "option", "step ms",
                   "speed-up", "90 % interval", "P(>=2%)", "verdict");
    for (int i = 0; i < w->nrows; i++) {
        const dam_trow *r = &w->rows[i];
        char iv[40] = "", pf[16] = "";
        if (r->has_interval) {
            snprintf(iv, sizeof iv, "%.3fx-%.3fx", r->speedup_lo,
                     r->speedup_hi);
            snprintf(pf, sizeof pf, "%.0f %%", 100.0 * r->p_faster);
        }
        if (r->verdict == DAM_VERDICT_FAILED)
            dam_buf_printf(b, "%-44.44s %10s %8s %17s %9s  %s\n", r->name,
                           "-", "-", "", "", "failed");
        else
            dam_buf_printf(b, "%-44.44s %10.3f %7.2fx %17s %9s  %s\n",
                           r->name, r->step_s * 1e3, r->speedup, iv, pf,
                           dam_verdict_name((dam_verdict)r->verdict));
    }
    dam_buf_printf(b, "\n");
    for (int i = 1; i < w->nrows; i++)
        dam_buf_printf(b, "%s: %s\n", w->rows[i].name, w->rows[i].why);
    if (w->nranks < 2)
        return;
    dam_buf_printf(b, "\nper rank (mean step ms / waits for the other ranks "
                   "ms per step); the job's step is the slowest rank's\n");
    for (int i = 0; i < w->nrows; i++) {
        const dam_trow *r = &w->rows[i];
        if (r->verdict == DAM_VERDICT_FAILED)
            continue;
        dam_buf_printf(b, "%-44.44s", r->name);
        for (int k = 0; k < w->nranks; k++)
            dam_buf_printf(b, " rank %d %.3f/%.3f%s", t->ranks[k].rank,
                           r->rank_step_s[k] * 1e3, r->rank_wait_s[k] * 1e3,
                           k == r->slowest ? " (slowest)" : "");
        dam_buf_printf(b, "\n");
    }
}

json_t *dam_json_trace_whatif(const dam_ktrace *t, const dam_twhatif *w)
{
    json_t *o = json_object();
    json_t *tr = json_object();
    STR(tr, "file", t->file);
    STR(tr, "device", t->device);
    STR(tr, "catalog_gpu", w->gpu);
    NUM(tr, "measured_step_s", w->measured_s);
    NUM(tr, "measured_mean_step_s", w->measured_mean_s);
    /* 0: no ProfilerStep spans, the whole trace is the step */
    INT(tr, "profiler_steps", w->nsteps);
    json_object_set_new(o, "trace", tr);
    INT(o, "draws", w->draws);
    json_t *rows = json_array();
    for (int i = 0; i < w->nrows; i++) {
        const dam_trow *r = &w->rows[i];
        json_t *x = json_object();
        STR(x, "name", r->name);
        STR(x, "verdict", dam_verdict_name((dam_verdict)r->verdict));
        if (r->verdict != DAM_VERDICT_FAILED) {
            NUM(x, "step_s", r->step_s);
            NUM(x, "speedup", r->speedup);
            json_object_set_new(x, "breakdown", breakdown_json(&r->br));
            if (w->nranks > 1) {
                json_t *ranks = json_array();
                for (int k = 0; k < w->nranks; k++) {
                    json_t *q = json_object();
                    INT(q, "rank", t->ranks[k].rank);
                    NUM(q, "step_s", r->rank_step_s[k]);
                    NUM(q, "collective_wait_s", r->rank_wait_s[k]);
                    json_array_append_new(ranks, q);
                }
                INT(x, "slowest_rank", t->ranks[r->slowest].rank);
                json_object_set_new(x, "ranks", ranks);
            }
        }
        if (r->has_interval) {
            NUM(x, "step_lo_s", r->step_lo);
            NUM(x, "step_hi_s", r->step_hi);
            NUM(x, "speedup_lo", r->speedup_lo);
            NUM(x, "speedup_hi", r->speedup_hi);
            NUM(x, "p_faster", r->p_faster);
        }
        if (i > 0)
            STR(x, "why", r->why);
        json_array_append_new(rows, x);
    }
    json_object_set_new(o, "rows", rows);
    return o;
}
