/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * analytic_lanes.c: the figures of DAM_COST_LANES interval draws at once
 * (see analytic.h, dam_analytic_figures_lanes): analytic.c's solve on its
 * figures' path (dam_analytic_figures_given), each lane's operations those
 * of one draw's solve in the same order, so each lane's doubles are the
 * ones the draw's solve gives. What does not depend on the drawn doubles
 * (the lane fields) is worked out once for all the lanes.
 *
 * Built with -fno-trapping-math (CMakeLists.txt), as device_lanes.c is: no
 * FP exception traps, so GCC may compute both sides of a select and
 * vectorise the loops; the same IEEE operations (no reassociation, no
 * contraction).
 */
#include "solver/analytic.h"

#include "model/lever.h"
#include "model/quality.h"

#include <math.h>
#include <stddef.h>

#define LF(f) offsetof(dam_scenario, f)
static const size_t lane_field_off[DAM_LF_COUNT] = {
    [DAM_LF_DECODE_S] = LF(data.decode_s),
    [DAM_LF_GPU_DECODE_S] = LF(data.gpu_decode_s),
    [DAM_LF_STORAGE_BW] = LF(machine.storage_bw),
    [DAM_LF_STORAGE_LATENCY] = LF(machine.storage_latency),
    [DAM_LF_FS_BW] = LF(machine.fs_bw),
    [DAM_LF_PCIE_BW] = LF(machine.pcie_bw),
    [DAM_LF_PAGEABLE] = LF(machine.pageable_fraction),
    [DAM_LF_INTRA_BUSBW] = LF(machine.intra_busbw),
    [DAM_LF_INTER_BUSBW] = LF(machine.inter_busbw),
    [DAM_LF_NET_LATENCY] = LF(machine.net_latency),
    [DAM_LF_FRAMEWORK_OVERHEAD] = LF(workload.framework_overhead_s),
    [DAM_LF_LAUNCH_S] = LF(workload.launch_s),
    [DAM_LF_MEM_BW] = LF(machine.gpu.mem_bw),
    [DAM_LF_DEV_MEM] = LF(machine.gpu.dev.mem.v),
    [DAM_LF_FW_MEM] = LF(workload.fw.mem.v),
    [DAM_LF_ETA_MEM] = LF(workload.eta_mem),
};

size_t dam_analytic_lane_field(int f)
{
    return lane_field_off[f];
}

/* 1 when [off, off + 8) lies inside [from, from + len). */
static int inside(size_t off, size_t from, size_t len)
{
    return off >= from && off + sizeof(double) <= from + len;
}

int dam_analytic_lanes_cover(size_t off)
{
    for (int f = 0; f < DAM_LF_COUNT; f++)
        if (off == lane_field_off[f])
            return 1;
    /* read by the graph's cost only (the lanes' rates), not by the
     * figures: the device's constants but the memory rate (a lane
     * field), the framework's but its memory share (one too), and the
     * scales of the work */
    return inside(off, LF(machine.gpu.dev), sizeof(dam_device)) ||
           inside(off, LF(workload.fw), sizeof(dam_framework)) ||
           off == LF(workload.flops_scale) || off == LF(workload.bytes_scale);
}

/* x86-64 with GCC: an AVX2 copy too (as device_lanes.c), the same
 * operations in the same order. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__)
#define LANES_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define LANES_CLONES
#endif

enum { L = DAM_COST_LANES };

/* analytic.c's loader() in every lane: its time per batch. */
static inline void loader_lanes(const dam_scenario *s,
                         const double *const *v,
                         double *restrict t_load, double *restrict alone,
                         double *restrict rest)
{
    const dam_machine *m = &s->machine;
    double b = s->workload.batch_size, lat_reads = dam_analytic_batch_reads(s);
    double bytes = b * s->data.raw_bytes;
    int gn = m->gpus_per_node, wk = s->pipeline.loader_workers;
    double nodes = m->nodes, wdiv = wk > 0 ? wk : 1, wkd = wk;
    double cores = wk > 0 ? wk : 1;
    double per_gpu_cores = (double)m->cpu_cores / gn;
    if (cores > per_gpu_cores)
        cores = per_gpu_cores;
    int on_gpu = s->data.decode_on_gpu;
    const double *restrict fs = v[DAM_LF_FS_BW], *restrict sb =
        v[DAM_LF_STORAGE_BW];
    const double *restrict sl = v[DAM_LF_STORAGE_LATENCY];
    const double *restrict ds = v[DAM_LF_DECODE_S];
    double nbw[L], tops[L], opsv[L];
    for (int j = 0; j < L; j++) {
        double node_bw = fs[j] > 0.0 ? fs[j] / nodes : sb[j];
        double t_data = bytes / (node_bw / gn);
        double ops = on_gpu ? 0.0 : b * ds[j];
        double t_ops = ops / cores;
        if (wk == 0) /* read then decode, in line */
            t_load[j] = t_data + lat_reads * sl[j] / wdiv + t_ops;
        else /* W workers build whole batches at once */
            t_load[j] = t_data;
        /* in line: a read alone, and the rest of the loop's load */
        alone[j] = bytes / node_bw;
        rest[j] = lat_reads * sl[j] / wdiv + t_ops;
        /* (the worker's chain, the cores and the storage: below) */
        nbw[j] = node_bw;
        tops[j] = t_ops;
        opsv[j] = ops;
    }
    if (wk == 0)
        return;
    for (int j = 0; j < L; j++) {
        double t = (lat_reads * sl[j] + bytes / nbw[j] + opsv[j]) / wkd;
        t = tops[j] > t ? tops[j] : t;
        t_load[j] = t_load[j] > t ? t_load[j] : t;
    }
}

/* The wait for the slowest rank in every lane (analytic.c rank_wait). */
static inline void rank_wait_lanes(const dam_scenario *s,
                                   const double *const *v,
                                   const double *t_compute, double *rw)
{
    double cv_dec, e = dam_analytic_rank_spread(s, &cv_dec);
    for (int j = 0; j < L; j++)
        rw[j] = e > 0.0 ? dam_analytic_rank_wait(s, e, cv_dec,
                                                 v[DAM_LF_DECODE_S][j],
                                                 t_compute[j])
                        : 0.0;
}

/* dam_analytic_optimizer in every lane (training). */
static inline void optimizer_lanes(const dam_scenario *s,
                            const double *const *v,
                            double *restrict opt)
{
    const dam_workload *w = &s->workload;
    double elem = dam_precision_bytes(w->precision);
    double per_param = 2.0 * (w->master_bytes + w->optimizer_bytes) +
                       w->grad_bytes + (elem < 4.0 ? elem : 0.0);
    int graph = w->model.arch.kind != DAM_ARCH_NONE;
    int fw_share = graph && !w->eta_mem_given;
    int own_frac = w->eta_mem_given || !graph;
    double shard = w->zero_stage >= 1 ? (double)dam_scenario_gpus(s) : 1.0;
    double work = w->model.params * w->weight_scale * per_param;
    const double *restrict fm = v[DAM_LF_FW_MEM], *restrict dm =
        v[DAM_LF_DEV_MEM];
    const double *restrict em = v[DAM_LF_ETA_MEM], *restrict mb =
        v[DAM_LF_MEM_BW];
    for (int j = 0; j < L; j++) {
        double fw = fw_share && fm[j] > 0.0 ? fm[j] : 1.0;
        double frac = own_frac ? em[j] : (dm[j] > 0.0 ? dm[j] : em[j]);
        opt[j] = work / (mb[j] * frac * fw) / shard;
    }
}

/* grad_sync in every lane: the all-reduce's time and its exposed part
 * (training on more than one GPU). */
static inline void sync_lanes(const dam_scenario *s,
                       const double *const *v,
                       const double *restrict bwd, double *restrict t_comm,
                       double *restrict exposed)
{
    const dam_machine *m = &s->machine;
    double gbytes = dam_analytic_grad_bytes(s);
    double nb = ceil(gbytes / s->pipeline.bucket_bytes);
    if (nb < 1.0)
        nb = 1.0;
    int gn = m->gpus_per_node, nn = m->nodes;
    int intra = gn > 1, inter = nn > 1;
    double qa = intra ? gbytes * 2.0 * (gn - 1) / gn : 0.0;
    double qe = inter ? gbytes * 2.0 * (nn - 1) / nn : 0.0;
    int hops = 0;
    if (gn > 1)
        hops += 2 * (gn - 1);
    if (nn > 1)
        hops += 2 * (nn - 1);
    int overlap = s->pipeline.overlap_sync;
    const double *restrict ia = v[DAM_LF_INTRA_BUSBW], *restrict ie =
        v[DAM_LF_INTER_BUSBW];
    const double *restrict nl = v[DAM_LF_NET_LATENCY];
    /* t = 0.0, the intra-node ring's time added when there is one, the
     * inter-node ring's when there is one (analytic.c's sums) */
    for (int j = 0; j < L; j++)
        t_comm[j] = intra ? 0.0 + (ia[j] > 0.0 ? qa / ia[j] : 0.0) : 0.0;
    if (inter)
        for (int j = 0; j < L; j++)
            t_comm[j] += ie[j] > 0.0 ? qe / ie[j] : 0.0;
    for (int j = 0; j < L; j++)
        t_comm[j] = t_comm[j] + nb * (hops * nl[j]);
    if (!overlap) {
        for (int j = 0; j < L; j++)
            exposed[j] = t_comm[j];
        return;
    }
    for (int j = 0; j < L; j++) {
        double tc = t_comm[j];
        double last = tc / nb;
        double rest = tc - bwd[j] * (nb - 1.0) / nb;
        exposed[j] = last > rest ? last : rest;
    }
}

/* analytic.c's exposed copy in every lane, and a loop's load (in line:
 * dw): the copy hidden behind the GPU's work when it overlaps; without a
 * sync (inference) the GPUs read and copy when ready, the storage's and
 * the link's closed networks; in lockstep the whole copy. */
static void copy_lanes(const dam_scenario *s, int overlaps,
                       const double *t_compute, const double *lat,
                       const double *exposed, const double *tr_time,
                       const double *t_load, const double *alone,
                       const double *rest, double *restrict xf,
                       double *restrict dw)
{
    int k = dam_analytic_pcie_share(&s->machine);
    int gn = s->machine.gpus_per_node;
    int infer = s->mode != DAM_MODE_TRAINING;
    int in_line = s->pipeline.loader_workers == 0;
    for (int j = 0; j < L; j++) {
        double gpu = t_compute[j] + lat[j] + exposed[j];
        double tr = tr_time[j];
        xf[j] = overlaps ? (tr > gpu ? tr - gpu : 0.0) : tr;
        dw[j] = t_load[j];
        if (!overlaps && infer && in_line && gn > 1) {
            double rs;
            xf[j] = dam_analytic_unsynced(k, tr / k, gn, alone[j],
                                          gpu + rest[j], &rs);
            dw[j] = rest[j] + rs;
        } else if (!overlaps && infer && k > 1) {
            xf[j] = dam_analytic_link_residence(k, tr / k, gpu);
        }
    }
}

LANES_CLONES
void dam_analytic_figures_lanes(const dam_scenario *s, const dam_graph *g,
                                const dam_cost_plan *p,
                                const dam_cost_lanes *l,
                                const double *const *v,
                                dam_lane_figures *out)
{
    const dam_workload *w = &s->workload;
    int train = s->mode == DAM_MODE_TRAINING;
    int64_t gpus = dam_scenario_gpus(s);
    double b = w->batch_size;
    double t_load[L], alone[L], rest[L], fwd[L], bwd[L], launch[L], opt[L];
    double t_comm[L], exposed[L], t_compute[L], lat[L], mem_time[L];
    loader_lanes(s, v, t_load, alone, rest);

    /* the copy (dam_analytic_h2d_bw) */
    const dam_machine *m = &s->machine;
    int share = m->gpus_per_pcie_link < m->gpus_per_node
                    ? m->gpus_per_pcie_link
                    : m->gpus_per_node;
    double tr_bytes = b * dam_scenario_copy_bytes(s);
    double sdiv = share > 0 ? share : 1;
    int pinned = s->pipeline.pin_memory;
    double tr_time[L];
    for (int j = 0; j < L; j++) {
        double bw = v[DAM_LF_PCIE_BW][j] *
                    (pinned ? 1.0 : v[DAM_LF_PAGEABLE][j]);
        tr_time[j] = tr_bytes / (bw / sdiv);
    }

    /* the compute (graph_compute on the lanes' costs) */
    int explicit_kernels = w->kernels_per_step > 0;
    for (int j = 0; j < L; j++) {
        fwd[j] = l->pass_kt[DAM_PASS_FWD][j];
        bwd[j] = l->pass_kt[DAM_PASS_BWD][j] +
                 l->pass_kt[DAM_PASS_RECOMPUTE][j];
        launch[j] = explicit_kernels ? 0.0
                                     : l->gap_time[j] + l->host_excess[j];
    }
    int on_gpu = s->data.decode_on_gpu;
    if (train) {
        optimizer_lanes(s, v, opt);
    } else {
        for (int j = 0; j < L; j++) {
            bwd[j] = 0.0;
            opt[j] = 0.0;
        }
    }
    for (int j = 0; j < L; j++) {
        double gpu_decode = on_gpu ? b * v[DAM_LF_GPU_DECODE_S][j] : 0.0;
        t_compute[j] = fwd[j] + bwd[j] + opt[j] + gpu_decode;
    }
    if (train && gpus > 1) {
        sync_lanes(s, v, bwd, t_comm, exposed);
    } else {
        for (int j = 0; j < L; j++)
            t_comm[j] = exposed[j] = 0.0;
    }

    /* dam_analytic_overhead + the launches */
    int legacy = !(w->model.arch.kind != DAM_ARCH_NONE && !explicit_kernels);
    double launches = w->cuda_graphs ? 1.0 : (double)w->kernels_per_step;
    for (int j = 0; j < L; j++) {
        double fo = v[DAM_LF_FRAMEWORK_OVERHEAD][j];
        double oh = legacy ? launches * v[DAM_LF_LAUNCH_S][j] + fo : fo;
        lat[j] = oh + launch[j];
    }

    /* the memory-bound phases' time (dam_analytic_bound's, the graph's
     * phases then the optimizer's) */
    int nph = g->nphases < DAM_MAX_PHASES ? g->nphases : DAM_MAX_PHASES;
    for (int j = 0; j < L; j++)
        mem_time[j] = 0.0;
    for (int i = 0; i < nph && i < p->nph; i++)
        for (int j = 0; j < L; j++)
            mem_time[j] += l->ph_tm[i][j] > l->ph_tc[i][j] ? l->ph_time[i][j]
                                                           : 0.0;
    if (train)
        for (int j = 0; j < L; j++)
            mem_time[j] += opt[j];

    /* the pipeline's steady state, the bound and the figures */
    int workers = s->pipeline.loader_workers;
    int overlaps = s->pipeline.overlap_transfer && workers > 0;
    double gb = dam_scenario_global_batch(s);
    double spe = dam_scenario_steps_per_epoch(s);
    double epochs = dam_scenario_run_epochs(s);
    double price = dam_gpu_price(s, &s->machine.gpu);
    double pue = s->cost.pue > 0.0 ? s->cost.pue : 1.0;
    double kwh_usd = s->cost.kwh_usd;
    double tdp = s->machine.gpu.tdp_w;
    double idle = DAM_IDLE_POWER_FRACTION * tdp;
    int priced = gpus >= 1 && price >= 0.0 && kwh_usd >= 0.0 && pue >= 1.0;
    double bound[L], xf[L], dw[L];
    double gd = (double)gpus; /* as the products convert it */
    double over_floor = overlaps ? 0.0 : HUGE_VAL;
    double data_floor = workers > 0 ? 0.0 : HUGE_VAL;
    copy_lanes(s, overlaps, t_compute, lat, exposed, tr_time, t_load, alone,
               rest, xf, dw);
    double rw[L];
    rank_wait_lanes(s, v, t_compute, rw);
    for (int j = 0; j < L; j++) {
        double tl = t_load[j], xfer = xf[j];
        double gpu = t_compute[j] + lat[j] + exposed[j] + xfer;
        double data_wait = workers == 0 ? dw[j] : (tl > gpu ? tl - gpu : 0.0);
        double step = data_wait + gpu + rw[j];
        /* dam_analytic_bound: the largest term (the first of equals),
         * its bound; the waiting term is 0 */
        double best = DAM_BOUND_DATA, top = data_wait;
        best = xfer > top ? DAM_BOUND_TRANSFER : best;
        top = xfer > top ? xfer : top;
        best = t_compute[j] > top ? DAM_BOUND_COMPUTE : best;
        top = t_compute[j] > top ? t_compute[j] : top;
        best = exposed[j] > top ? DAM_BOUND_COMM : best;
        top = exposed[j] > top ? exposed[j] : top;
        best = lat[j] > top ? DAM_BOUND_LATENCY : best;
        top = lat[j] > top ? lat[j] : top;
        /* the waiting term when it alone is the largest: data when
         * there is data wait, else compute */
        best = rw[j] > top ? (data_wait > 0.0 ? DAM_BOUND_DATA
                                              : DAM_BOUND_COMPUTE)
                           : best;
        best = best == DAM_BOUND_COMPUTE && mem_time[j] > 0.5 * t_compute[j]
                   ? DAM_BOUND_MEMORY
                   : best;
        /* xfer > 0 with overlaps, data_wait > 0 with workers (above
         * infinity, never, without) */
        best = xfer > over_floor ? DAM_BOUND_TRANSFER : best;
        best = data_wait > data_floor ? DAM_BOUND_DATA : best;
        bound[j] = best;
        out->step[j] = step;
    }
    for (int j = 0; j < L; j++) {
        double step = out->step[j];
        double run = spe * step * epochs;
        double busy = step > 0.0 ? t_compute[j] / step : 0.0;
        double bz = busy > 0.0 ? (busy < 1.0 ? busy : 1.0) : 0.0;
        double power = idle + (tdp - idle) * bz;
        double gh = gd * run / 3600.0;
        double kwh = gd * power * run * pue / 3.6e6;
        double usd = gh * price + kwh * kwh_usd;
        /* dam_quality_run_cost's checks (isfinite(run): run - run is 0
         * for a finite run, else NaN); none met: no cost */
        double okr = run >= 0.0 ? run - run : 1.0;
        okr = power >= 0.0 ? okr : 1.0;
        out->run_time[j] = run;
        out->throughput[j] = gb / step;
        out->gpu_hours[j] = okr == 0.0 ? gh : 0.0;
        out->cost_usd[j] = okr == 0.0 ? usd : 0.0;
    }
    for (int j = 0; j < L; j++) {
        out->bound[j] = (int)bound[j];
        if (!priced)
            out->gpu_hours[j] = out->cost_usd[j] = 0.0;
    }
}
