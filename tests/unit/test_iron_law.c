/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_iron_law.c: the analytic solver against the reference text's worked
 * examples (400 + 167 + 5 = 572 ms, data-bound; 0.17 + 0.64 + 0.05 = 0.86 s,
 * compute-bound), unit conversion of the loader, and the iron-law ordering
 * T_pipe <= step <= T_seq on every shipped scenario.
 */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/diagnose.h"

static dam_catalog cat;

static int load(const char *name, dam_scenario *s)
{
    return dam_test_scenario(name, &cat, s);
}

/* The closed network of GPUs sharing a link (inference: no sync keeps
 * them together): mean value analysis by hand, its limits and bounds. */
static void check_closed_network(void)
{
    dam_check_rel(dam_analytic_link_residence(1, 0.3, 2.0), 0.3, 0.0,
                  "one GPU on its link: the copy alone");
    /* two GPUs, copy 1, away 1: R(1) = 1, Q(1) = 1/2, R(2) = 1.5 */
    dam_check_rel(dam_analytic_link_residence(2, 1.0, 1.0), 1.5, 1e-15,
                  "two GPUs, copy 1 s, away 1 s: 1.5 s at the link");
    dam_check_rel(dam_analytic_link_residence(3, 1.0, 0.0), 3.0, 1e-15,
                  "never away: every copy waits for the others (k t1)");
    dam_check_rel(dam_analytic_link_residence(4, 1.0, 1e9), 1.0, 1e-8,
                  "away for ages: the copies never meet");
    for (int k = 1; k <= 16; k *= 2)
        for (double z = 0.0; z <= 8.0; z += 0.5) {
            double r = dam_analytic_link_residence(k, 0.5, z);
            dam_check(r >= 0.5 * (1 - 1e-12) &&
                          r >= (k * 0.5 - z) * (1 - 1e-12) &&
                          r <= k * 0.5 * (1 + 1e-12),
                      "k %d, z %g: t1 and k t1 - z <= %g <= k t1", k, z, r);
        }
    double rs = -1.0;
    double rl = dam_analytic_unsynced(4, 0.5, 8, 0.0, 2.0, &rs);
    dam_check(rs == 0.0 &&
                  rl == dam_analytic_link_residence(4, 0.5, 2.0),
              "no read: the link's network alone");
    rl = dam_analytic_unsynced(1, 0.5, 8, 0.25, 2.0, &rs);
    dam_check(rl == 0.5 &&
                  rs == dam_analytic_link_residence(8, 0.25, 2.5),
              "a link each: the storage's network, the copy in its "
              "think time");
    rl = dam_analytic_unsynced(4, 0.5, 4, 0.5, 1.0, &rs);
    dam_check_rel(rl, rs, 1e-12, "two equal stations, equal residences");
    /* the other's residence is at least its copy alone (0.5) and at most
     * all four's (2): a longer think time, a shorter residence */
    dam_check(rl <= dam_analytic_link_residence(4, 0.5, 1.0 + 0.5) &&
                  rl >= dam_analytic_link_residence(4, 0.5, 1.0 + 2.0),
              "a station's residence within the other's extremes (%g)", rl);
}

int main(void)
{
    dam_test_start(&cat);
    check_closed_network();

    static dam_scenario s;
    static dam_result r;
    static dam_diagnosis dg;

    dam_check_int(load("iron-law-data-bound.cfg", &s), DAM_OK,
                  "data-bound example loads");
    dam_check_rel(s.machine.storage_bw, 100e6, 1e-12, "read_gbs 0.1 -> 1e8 B/s");
    dam_check_rel(s.workload.framework_overhead_s, 5e-3, 1e-12,
                  "framework_overhead_ms 5 -> 0.005 s");
    dam_analytic_solve(&s, &r);
    dam_check_rel(r.t_data, 0.400, 1e-12, "data term 40 MB / 100 MB/s = 400 ms");
    dam_check_rel(r.t_compute, 2e9 / (20e9 * 0.6), 1e-9,
                  "compute term 2 GFLOP / (20 GFLOP/s * 0.6) = 167 ms");
    dam_check_rel(r.t_latency, 0.005, 1e-12, "overhead term 5 ms");
    dam_check_rel(r.t_seq, 0.4 + 2.0 / 12.0 + 0.005, 1e-9, "T_seq = 572 ms");
    dam_check_rel(r.step, 0.572, 1e-3, "step 572 ms (to the text's rounding)");
    dam_check_str(dam_bound_name(r.bound), "data", "data-bound label");
    dam_diagnose(&s, &r, &dg);
    dam_check_str(dg.axis, "Data", "binding axis Data");
    dam_check(dam_diagnose_lever_works(&s, &r, DAM_LEVER_GPU) == 0,
              "a faster GPU is wasted on the data-bound step");
    dam_check(dam_diagnose_lever_works(&s, &r, DAM_LEVER_PREFETCH) == 1,
              "prefetching works on the data-bound step");
    dam_check(strstr(dg.anti_pattern, "hardware crutch") != NULL,
              "the anti-pattern is named: %s", dg.anti_pattern);

    dam_check_int(load("iron-law-compute-bound.cfg", &s), DAM_OK,
                  "compute-bound example loads");
    dam_analytic_solve(&s, &r);
    dam_check_rel(r.t_data, 0.17, 1e-12, "data term 0.17 s");
    dam_check_rel(r.t_compute, 0.64, 1e-9, "compute term 0.64 s");
    dam_check_rel(r.t_latency, 0.05, 1e-12, "overhead term 0.05 s");
    dam_check_rel(r.step, 0.86, 1e-9, "step 0.86 s");
    dam_check_str(dam_bound_name(r.bound), "compute", "compute-bound label");
    dam_check(dam_diagnose_lever_works(&s, &r, DAM_LEVER_GPU) == 1,
              "a faster GPU works on the compute-bound step");

    /* All-reduce against nccl-tests' convention (public-cases.csv
     * nccl_busbw_factor_allreduce_n8, nccl_a100_allreduce_busbw): on 8 ranks
     * busbw = algbw x 2(n-1)/n = 1.75 algbw, so 8 GB at 230 GB/s busbw
     * moves at an algorithm bandwidth of 230 / 1.75 GB/s. */
    {
        dam_scenario a = s;
        a.machine.gpus_per_node = 8;
        a.machine.nodes = 1;
        a.machine.intra_busbw = 230e9;
        double t = dam_analytic_allreduce(&a, 8e9);
        dam_check_rel(8e9 / t, 230e9 / 1.75, 1e-12,
                      "8 ranks: algbw = busbw / 1.75 (nccl-tests)");
        a.machine.nodes = 4;
        a.machine.inter_busbw = 47e9; /* one NDR 400 NIC (nccl_ndr400_per_nic) */
        double t4 = dam_analytic_allreduce(&a, 8e9);
        dam_check_rel(t4 - t, 8e9 * 2.0 * 3.0 / 4.0 / 47e9, 1e-12,
                      "4 nodes add the inter-node ring at its bus bandwidth");
    }

    /* Overlap: with loader workers the loader runs beside the GPU. */
    s.pipeline.loader_workers = 1;
    dam_analytic_solve(&s, &r);
    dam_check_rel(r.step, 0.64 + 0.05, 1e-9,
                  "with a loader worker the compute-bound step is 0.69 s");
    dam_check(r.t_pipe <= r.step + 1e-12 && r.step <= r.t_seq + 1e-12,
              "T_pipe %.4g <= step %.4g <= T_seq %.4g", r.t_pipe, r.step,
              r.t_seq);

    const char *const all[] = {"resnet50-dgx-a100.cfg", "iron-law-data-bound.cfg",
                               "iron-law-compute-bound.cfg"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (load(all[i], &s) != DAM_OK) {
            dam_check(0, "%s loads", all[i]);
            continue;
        }
        dam_analytic_solve(&s, &r);
        double sum = 0.0;
        for (int t = 0; t < DAM_TERM_COUNT; t++)
            sum += r.terms[t];
        dam_check_rel(sum, r.step, 1e-12, "terms add up to the step");
        dam_check(r.t_pipe <= r.step * (1 + 1e-12) &&
                      r.step <= r.t_seq * (1 + 1e-12),
                  "%s: T_pipe %.4g <= step %.4g <= T_seq %.4g", all[i],
                  r.t_pipe, r.step, r.t_seq);
    }
    dam_catalog_free(&cat);
    return dam_check_done();
}
