/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_network.c: collectives on the two-level network (model/network.h).
 *
 * Labels. "by construction": the alpha-beta formulas on hand-worked
 * numbers. "fit residual (in sample)": the NIC efficiency default (0.94)
 * is the NCCL maintainer's 46-48 GB/s per NDR 400 Gb/s NIC
 * (public-devices.csv nccl_NDR400_per_nic), so that row agrees by
 * construction. "out of sample": multi-node nccl-tests all-reduce bus
 * bandwidths no constant was fitted on (public-devices.csv rows named).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/network.h"

/* An 8-GPU node type: NVLink domain bus bandwidth, NICs and line rate. */
static dam_network node(double domain_gbs, int nics, double nic_gbs)
{
    dam_network n;
    memset(&n, 0, sizeof n);
    n.domain_bw = domain_gbs * 1e9;
    n.nics = nics;
    n.nic_bw = nic_gbs * 1e9;
    n.rail_optimized = 1;
    dam_net_defaults(&n, 8, 0.0, 0.0, 0.0, 0.0);
    return n;
}

/* nccl-tests bus bandwidth of a large all-reduce: 2 (n-1)/n B / t. */
static double busbw(const dam_network *n, int ranks, int per_domain,
                    dam_net_algo algo)
{
    dam_net_group g = {ranks, per_domain};
    double B = 8e9;
    dam_net_cost c;
    dam_net_collective_algo(n, DAM_COMM_ALLREDUCE, B, &g, algo, &c);
    return 2.0 * (ranks - 1.0) / ranks * B / (c.time - c.t_latency) / 1e9;
}

static void formulas(void)
{
    dam_network n = node(370.0, 8, 50.0);
    dam_net_group g = {8, 8};
    dam_net_cost c;
    double B = 1e9;
    double t = dam_net_collective(&n, DAM_COMM_ALLREDUCE, B, &g, &c);
    double want = 2.0 * 7.0 / 8.0 * B / 370e9 + 8.4e-6 + 14.0 * 3.4e-6;
    dam_check_rel(t, want, 1e-12,
                  "ring all-reduce in a domain: 2(n-1)/n B / busbw + "
                  "NCCL latencies (by construction)");
    dam_check(c.nic_bytes == 0.0, "nothing crosses the NICs in a domain");
    t = dam_net_collective(&n, DAM_COMM_ALLGATHER, B, &g, NULL);
    want = 7.0 / 8.0 * B / 370e9 + 8.4e-6 + 7.0 * 3.4e-6;
    dam_check_rel(t, want, 1e-12,
                  "all-gather: (n-1)/n B / busbw (by construction)");
    dam_check(dam_net_collective(&n, DAM_COMM_ALLREDUCE, B,
                                 &(dam_net_group){1, 1}, NULL) == 0.0,
              "a group of one costs nothing");
    /* across 16 nodes, one GPU per node: the GPU's NIC share */
    dam_net_group d = {16, 1};
    dam_net_collective_algo(&n, DAM_COMM_ALLREDUCE, B, &d, DAM_ALGO_RING, &c);
    dam_check_rel(c.nic_rate, 50e9 * 0.94, 1e-12,
                  "one GPU per node: its own 400 Gb/s NIC at 0.94");
    dam_check_rel(c.nic_bytes, 2.0 * 15.0 / 16.0 * B, 1e-12,
                  "ring traffic 2(n-1)/n B through it");
    double lat = 8.4e-6 + 30.0 * 9.6e-6;
    dam_check_rel(c.t_latency, lat, 1e-12,
                  "30 network steps of 9.6 us + 8.4 us (NCCL tuning.cc)");
    /* oversubscription thins traffic that crosses the spine */
    dam_network o = n;
    o.rail_optimized = 0;
    o.oversub = 4.0;
    dam_net_collective_algo(&o, DAM_COMM_ALLREDUCE, B, &d, DAM_ALGO_RING, &c);
    dam_check_rel(c.nic_rate, 50e9 * 0.94 / 4.0, 1e-12,
                  "not rail-optimised, 4:1 spine: a quarter of the NIC");
    dam_net_collective(&n, DAM_COMM_ALLTOALL, B, &(dam_net_group){16, 8},
                       &c);
    dam_check_rel(c.nic_bytes, 8.0 / 16.0 * B, 1e-12,
                  "all-to-all over 2 nodes: half of each GPU's data leaves "
                  "its node");
    /* where the NICs bind (4 HDR per 8 A100s), hierarchical beats the
     * flat ring at two nodes, not at many */
    dam_network n4 = node(230.0, 4, 25.0);
    double r2 = busbw(&n4, 16, 8, DAM_ALGO_RING);
    double h2 = busbw(&n4, 16, 8, DAM_ALGO_HIERARCHICAL);
    dam_check(h2 > 1.5 * r2,
              "two nodes: hierarchical %.0f GB/s > ring %.0f GB/s", h2, r2);
    double r64 = busbw(&n4, 512, 8, DAM_ALGO_RING);
    double h64 = busbw(&n4, 512, 8, DAM_ALGO_HIERARCHICAL);
    dam_check_rel(h64, r64, 0.02,
                  "64 nodes: hierarchical and ring converge (2(n-1)/n)");
    /* auto picks the fastest per size */
    dam_net_cost a;
    dam_net_collective(&n, DAM_COMM_ALLREDUCE, 1e3, &(dam_net_group){512, 8},
                       &a);
    dam_check(a.algo == DAM_ALGO_TREE,
              "a 1 kB all-reduce on 512 GPUs: the tree (log latency)");
    /* NVL72: a group of 64 in one domain never touches a NIC */
    dam_network nvl = n;
    nvl.domain = 72;
    nvl.gpus_per_node = 4;
    dam_net_collective(&nvl, DAM_COMM_ALLTOALL, B, &(dam_net_group){64, 64},
                       &c);
    dam_check(c.nic_bytes == 0.0 && c.t_domain > 0.0,
              "NVL72: a 64-way all-to-all stays on NVLink");
}

/* Multi-node nccl-tests all-reduce (ring) bus bandwidth. */
static void nccl_tests(void)
{
    /* public-devices.csv nccl_NDR400_per_nic: 46-48 GB/s per NDR NIC */
    dam_network h = node(370.0, 8, 50.0);
    double bw = busbw(&h, 16, 8, DAM_ALGO_RING) / 8.0;
    dam_check_rel(bw, 47.0, 0.03,
                  "H100, 2 nodes x 8 NDR 400G: 47 GB/s per NIC (fit "
                  "residual, in sample)");
    /* nccl_A100_2node_4xHDR: 86 GB/s; nccl_A100_3node_4xHDR: 96 GB/s
     * peak (tier C single reports) */
    dam_network a = node(230.0, 4, 25.0);
    double b2 = busbw(&a, 16, 8, DAM_ALGO_RING);
    dam_check_rel(b2, 86.0, 0.15,
                  "A100, 2 nodes x 4 HDR 200G: 86 GB/s (out of sample)");
    double b3 = busbw(&a, 24, 8, DAM_ALGO_RING);
    dam_check_rel(b3, 96.0, 0.15,
                  "A100, 3 nodes x 4 HDR 200G: 96 GB/s peak (out of sample)");
    /* nccl_B200_4node_efa_16G: 381.8 GB/s, 8 x 400G EFA per node */
    dam_network b = node(682.0, 8, 50.0);
    double bb = busbw(&b, 32, 8, DAM_ALGO_RING);
    dam_check_rel(bb, 381.8, 0.15,
                  "B200, 4 nodes x 8 x 400G EFA: 381.8 GB/s (out of sample)");
    /* nccl_H200_4node_efa: 364.87 GB/s, p5en: 16 x 200G EFA per node */
    dam_network e = node(366.0, 16, 25.0);
    double be = busbw(&e, 32, 8, DAM_ALGO_RING);
    dam_check_rel(be, 364.87, 0.15,
                  "H200, 4 nodes x 16 x 200G EFA: 364.9 GB/s (out of "
                  "sample)");
    printf("# all-reduce busbw: A100 4xHDR 2 nodes %.1f (86), 3 nodes %.1f "
           "(96); B200 4 nodes %.1f (381.8); H200 4 nodes %.1f (364.9) "
           "GB/s\n",
           b2, b3, bb, be);
}

int main(void)
{
    gsl_set_error_handler_off();
    formulas();
    nccl_tests();
    return dam_check_done();
}
