/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_cost_lanes.c: interval draws costed in lanes (dam_cost_plan,
 * dam_cost_lanes) give the same doubles, bit for bit, as costing each
 * draw on its own (dam_device_cost), and a solve on a lane's cost
 * (dam_analytic_solve_given, and dam_analytic_figures_given for the
 * figures alone, and dam_analytic_figures_lanes for every lane at once)
 * the same figures and bound as dam_analytic_solve: for the example
 * scenarios that train or infer on
 * an operator graph without a layout, at their batch and at others, in
 * every draw of their uncertain inputs, calibrated constants and model
 * errors (dam_draws_apply_all).
 */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/device.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/uncertainty.h"

#define DRAWS 400

/* The time fields dam_cost_lanes_get fills: bit for bit those of full. */
static int same_times(const dam_graph_cost *a, const dam_graph_cost *b,
                      int nph)
{
    int ok = a->time == b->time && a->kernel_time == b->kernel_time &&
             a->gap_time == b->gap_time && a->host_time == b->host_time &&
             a->host_excess == b->host_excess &&
             a->comm_time == b->comm_time && a->kernels == b->kernels;
    for (int p = 0; p < DAM_PASS_COUNT; p++)
        ok = ok && a->pass_time[p] == b->pass_time[p] &&
             a->pass_kernel_time[p] == b->pass_kernel_time[p] &&
             a->pass_kernels[p] == b->pass_kernels[p];
    for (int i = 0; i < nph; i++)
        ok = ok && a->phase[i].time == b->phase[i].time &&
             a->phase[i].t_compute == b->phase[i].t_compute &&
             a->phase[i].t_memory == b->phase[i].t_memory &&
             a->phase[i].kernels == b->phase[i].kernels;
    return ok;
}

static int same_figures(const dam_result *a, const dam_result *b)
{
    return memcmp(&a->step, &b->step, sizeof a->step) == 0 &&
           memcmp(&a->run_time, &b->run_time, sizeof a->run_time) == 0 &&
           memcmp(&a->throughput, &b->throughput, sizeof a->throughput) ==
               0 &&
           memcmp(&a->gpu_hours, &b->gpu_hours, sizeof a->gpu_hours) == 0 &&
           memcmp(&a->cost_usd, &b->cost_usd, sizeof a->cost_usd) == 0 &&
           a->bound == b->bound;
}

/* The lanes' figures of lane j bit for bit r's. */
static int same_lane(const dam_lane_figures *f, int j, const dam_result *r)
{
    return memcmp(&f->step[j], &r->step, sizeof r->step) == 0 &&
           memcmp(&f->run_time[j], &r->run_time, sizeof r->run_time) == 0 &&
           memcmp(&f->throughput[j], &r->throughput, sizeof r->throughput) ==
               0 &&
           memcmp(&f->gpu_hours[j], &r->gpu_hours, sizeof r->gpu_hours) ==
               0 &&
           memcmp(&f->cost_usd[j], &r->cost_usd, sizeof r->cost_usd) == 0 &&
           f->bound[j] == (int)r->bound;
}

/* Every draw of s at batch size b, in lanes against one by one. */
static void check_scenario(const char *name, const dam_scenario *s0, int b,
                           long *costs)
{
    dam_scenario *s = dam_malloc(sizeof *s), *x = dam_malloc(sizeof *x);
    dam_graph *gs = dam_malloc(sizeof *gs);
    dam_cost_plan *plan = dam_malloc(sizeof *plan);
    dam_cost_lanes *lanes = dam_calloc(1, sizeof *lanes);
    dam_result *r1 = dam_malloc(sizeof *r1), *r2 = dam_malloc(sizeof *r2);
    *s = *s0;
    s->workload.batch_size = b;
    dam_draws *d = dam_draws_create(DRAWS, (unsigned long)s->seed);
    dam_draws_apply_all(d, 0, s, s, x);
    const dam_graph *g = dam_scenario_graph(x, gs);
    dam_cost_opts o;
    dam_cost_opts_scenario(x, b, &o);
    int built = g && dam_cost_plan_build(g, &o, plan);
    dam_check(built, "%s at batch %d: a cost plan", name, b);
    int bad_cost = 0, bad_solve = 0, bad_lanes = 0, own = 0;
    /* each draw's lane fields (a draw past the last as the first) */
    double col[DAM_LF_COUNT][DAM_COST_LANES];
    const double *v[DAM_LF_COUNT];
    dam_lane_figures *lf = dam_malloc(sizeof *lf);
    for (int f = 0; f < DAM_LF_COUNT; f++)
        v[f] = col[f];
    for (int k0 = 0; built && k0 < DRAWS; k0 += DAM_COST_LANES) {
        int set[DAM_COST_LANES];
        for (int j = 0; j < DAM_COST_LANES; j++) {
            dam_draws_apply_all(d, k0 + j < DRAWS ? k0 + j : 0, s, s, x);
            for (int f = 0; f < DAM_LF_COUNT; f++)
                memcpy(&col[f][j],
                       (const char *)x + dam_analytic_lane_field(f),
                       sizeof col[f][j]);
            if (k0 + j >= DRAWS)
                continue;
            dam_cost_opts_scenario(x, b, &o);
            set[j] = dam_cost_lanes_set(plan, &o, lanes, j);
            own += !set[j];
        }
        dam_cost_lanes_run(plan, lanes);
        /* the point's other doubles: any draw's (the lanes' figures read
         * none that a draw moves) */
        dam_analytic_figures_lanes(x, g, plan, lanes, v, lf);
        for (int j = 0; j < DAM_COST_LANES && k0 + j < DRAWS; j++) {
            if (!set[j])
                continue;
            dam_graph_cost full, lane;
            dam_draws_apply_all(d, k0 + j, s, s, x);
            dam_cost_opts_scenario(x, b, &o);
            dam_device_cost(g, &o, &full);
            dam_cost_lanes_get(plan, lanes, j, &lane);
            bad_cost += !same_times(&full, &lane, g->nphases);
            (*costs)++;
            dam_analytic_solve(x, r1);
            dam_analytic_solve_given(x, r2, g, &lane);
            bad_solve += !same_figures(r1, r2);
            memset(r2, 0x5a, sizeof *r2); /* nothing read before written */
            dam_analytic_figures_given(x, r2, g, &lane);
            bad_solve += !same_figures(r1, r2);
            bad_lanes += !same_lane(lf, j, r1);
        }
    }
    dam_free(lf);
    if (built) {
        dam_check(own == 0, "%s at batch %d: every draw in a lane (%d not)",
                  name, b, own);
        dam_check(bad_cost == 0,
                  "%s at batch %d: lane costs bit for bit dam_device_cost's "
                  "(%d of %d differ)",
                  name, b, bad_cost, DRAWS);
        dam_check(bad_solve == 0,
                  "%s at batch %d: figures and bound on a lane's cost bit "
                  "for bit dam_analytic_solve's (%d of %d differ)",
                  name, b, bad_solve, DRAWS);
        dam_check(bad_lanes == 0,
                  "%s at batch %d: the lanes' figures and bound bit for bit "
                  "dam_analytic_solve's (%d of %d differ)",
                  name, b, bad_lanes, DRAWS);
    }
    dam_draws_free(d);
    dam_free(r2);
    dam_free(r1);
    dam_free(lanes);
    dam_free(plan);
    dam_free(gs);
    dam_free(x);
    dam_free(s);
}

int main(void)
{
    gsl_set_error_handler_off();
    static dam_catalog cat;
    dam_test_catalog(&cat);
    dam_scenario *s = dam_malloc(sizeof *s);
    static const char *const names[] = {"resnet50-dgx-a100.cfg",
                                        "llama2-7b-pretrain.cfg"};
    static const int batches[] = {1, 3, 64, 1000};
    long costs = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int rc = dam_test_scenario(names[i], &cat, s);
        dam_check_int(rc, DAM_OK, names[i]);
        if (rc != DAM_OK)
            continue;
        if (s->layout.on || s->mode == DAM_MODE_SERVING) {
            dam_check(0, "%s: trains or infers without a layout", names[i]);
            continue;
        }
        char what[96];
        /* as given, then inferring (a graph the scenario does not hold),
         * then with the legacy efficiency override (no wave model), then
         * the pipeline's other branches: no loader workers and no pinned
         * memory; two nodes, the copy overlapped and the sync not; the
         * decode on the GPU with CUDA graphs; inferring with four GPUs
         * to a PCIe link, the copies in line and the loads too (the
         * link's closed network: no sync keeps the GPUs together) */
        static const char *const variant[] = {
            "", " inferring", " at efficiency 0.4", " loading in line",
            " on two nodes", " decoding on the GPU",
            " inferring, 4 GPUs to a link"};
        for (int v = 0; v < 7; v++) {
            snprintf(what, sizeof what, "%s%s", names[i], variant[v]);
            if (v == 3) {
                s->workload.eta_given = 0;
                s->pipeline.loader_workers = 0;
                s->pipeline.pin_memory = 0;
            }
            if (v == 4) {
                s->pipeline.loader_workers = 4;
                s->machine.nodes = 2;
                s->pipeline.overlap_transfer = 1;
                s->pipeline.overlap_sync = 0;
            }
            if (v == 5) {
                s->data.decode_on_gpu = 1;
                s->workload.cuda_graphs = 1;
                s->pipeline.overlap_sync = 1;
            }
            if (v == 6) {
                s->mode = DAM_MODE_INFERENCE;
                s->data.decode_on_gpu = 0;
                s->pipeline.loader_workers = 0;
                s->pipeline.overlap_transfer = 0;
                s->machine.gpus_per_pcie_link =
                    s->machine.gpus_per_node < 4 ? s->machine.gpus_per_node
                                                 : 4;
            }
            if (v == 1)
                s->mode = DAM_MODE_INFERENCE;
            if (v == 2) {
                s->mode = DAM_MODE_TRAINING;
                s->workload.eta_given = 1;
                s->workload.eta = 0.4;
            }
            check_scenario(what, s, s->workload.batch_size, &costs);
            for (size_t j = 0; j < sizeof batches / sizeof batches[0]; j++)
                check_scenario(what, s, batches[j], &costs);
        }
    }
    dam_check(costs >= 10000, "%ld lane costs compared", costs);
    dam_free(s);
    dam_catalog_free(&cat);
    return dam_check_done();
}
