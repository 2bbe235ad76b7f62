/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * network.c: collective costs on a two-level GPU network (see network.h).
 *
 * Every algorithm is the alpha-beta model NCCL tunes itself with
 * (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel): time = base
 * latency + steps x per-step latency + bytes / bandwidth, where the ring's
 * steps are split into those inside a domain and those across the fabric,
 * and the bandwidth is the slowest hop's. The defaults of the latencies
 * are that file's Simple-protocol values (large messages, as gradients and
 * activations are).
 */
#include "model/network.h"

#include <math.h>
#include <stddef.h>

/* NCCL src/graph/tuning.cc (NVIDIA/nccl commit 01afd20a): baseLat of Ring
 * with the Simple protocol, and hwLat per step for NVLink and the network
 * (Ring, Simple), in microseconds. */
#define NCCL_BASE_LAT_US 8.4
#define NCCL_NVLINK_STEP_US 3.4
#define NCCL_NET_STEP_US 9.6

/* NDR 400 Gb/s ConnectX-7: "46-48 GB/s per NIC" with NCCL (nccl-tests
 * issue 290, maintainer; public-devices.csv nccl_NDR400_per_nic): 47/50. */
#define NIC_EFF_DEFAULT 0.94

const char *dam_net_algo_name(dam_net_algo a)
{
    switch (a) {
    case DAM_ALGO_AUTO: return "auto";
    case DAM_ALGO_RING: return "ring";
    case DAM_ALGO_TREE: return "tree";
    case DAM_ALGO_HIERARCHICAL: return "hierarchical";
    default: return "?";
    }
}

void dam_net_defaults(dam_network *net, int gpus_per_node, double intra_busbw,
                      double inter_busbw, double gpu_busbw, double net_latency)
{
    int g = gpus_per_node > 0 ? gpus_per_node : 1;
    net->gpus_per_node = g;
    if (net->domain <= 0)
        net->domain = g;
    if (!(net->domain_bw > 0.0))
        net->domain_bw = intra_busbw > 0.0 ? intra_busbw : gpu_busbw;
    if (net->nics <= 0)
        net->nics = g;
    if (!(net->nic_eff > 0.0))
        net->nic_eff = NIC_EFF_DEFAULT;
    if (!(net->nic_bw > 0.0) && inter_busbw > 0.0)
        /* the machine's inter-node bus bandwidth is what the NICs reach */
        net->nic_bw = inter_busbw / net->nics / net->nic_eff;
    if (!(net->oversub >= 1.0))
        net->oversub = 1.0;
    if (!(net->base_lat > 0.0))
        net->base_lat = NCCL_BASE_LAT_US * 1e-6;
    if (!(net->lat_in > 0.0))
        net->lat_in = NCCL_NVLINK_STEP_US * 1e-6;
    if (!(net->lat_out > 0.0))
        net->lat_out = net_latency > 0.0 ? net_latency
                                         : NCCL_NET_STEP_US * 1e-6;
}

double dam_net_nic_share(const dam_network *net, int share)
{
    int g = net->gpus_per_node > 0 ? net->gpus_per_node : 1;
    int s = share > 0 ? share : g;
    double agg = net->nics * net->nic_bw * net->nic_eff;
    return agg / s;
}

static void clear(dam_net_cost *c, int algo)
{
    c->time = c->t_latency = c->t_domain = c->t_fabric = 0.0;
    c->nic_bytes = c->nic_rate = 0.0;
    c->algo = algo;
}

/* The fabric rate of traffic from one GPU: its NIC share, thinned by the
 * spine when the traffic crosses it. */
static double fabric_rate(const dam_network *net, int crosses_spine)
{
    double r = dam_net_nic_share(net, 0);
    if (crosses_spine && net->oversub > 1.0)
        r /= net->oversub;
    return r;
}

static double log2ceil(int n)
{
    double l = 0.0;
    for (int v = 1; v < n; v *= 2)
        l += 1.0;
    return l;
}

/* Ring over n ranks, k per domain: `passes` = 2 for all-reduce, 1 for
 * all-gather / reduce-scatter. */
static void ring(const dam_network *net, double bytes, int n, int k,
                 double passes, dam_net_cost *c)
{
    int nd = n / k;
    double f = passes * (n - 1.0) / n;
    double steps = passes * (n - 1.0), out_steps = passes * (nd - 1.0);
    c->t_latency = net->base_lat + (steps - out_steps) * net->lat_in +
                   out_steps * net->lat_out;
    if (nd <= 1) {
        c->t_domain = f * bytes / net->domain_bw;
        return;
    }
    /* every channel of the ring crosses each domain boundary once: the
     * domain's k GPUs carry all the ring's data through their NICs */
    double fab = k * fabric_rate(net, !net->rail_optimized);
    double bw = fab < net->domain_bw ? fab : net->domain_bw;
    if (fab < net->domain_bw) {
        c->t_fabric = f * bytes / bw;
        c->nic_bytes = f * bytes / k;
        c->nic_rate = fab / k;
    } else {
        c->t_domain = f * bytes / bw;
        c->nic_bytes = f * bytes / k;
        c->nic_rate = fab / k;
    }
}

static void tree(const dam_network *net, double bytes, int n, int k,
                 dam_net_cost *c)
{
    int nd = n / k;
    c->t_latency = net->base_lat +
                   2.0 * ((k - 1.0) * net->lat_in + log2ceil(nd) * net->lat_out);
    if (nd <= 1) {
        /* a chain inside the domain: every byte up and down once */
        c->t_domain = 2.0 * bytes / net->domain_bw;
        return;
    }
    double fab = k * fabric_rate(net, !net->rail_optimized);
    double bw = fab < net->domain_bw ? fab : net->domain_bw;
    double t = 2.0 * bytes / bw;
    if (fab < net->domain_bw)
        c->t_fabric = t;
    else
        c->t_domain = t;
    c->nic_bytes = 2.0 * bytes / k;
    c->nic_rate = fab / k;
}

static void hierarchical(const dam_network *net, double bytes, int n, int k,
                         dam_net_cost *c)
{
    int nd = n / k;
    double lat = net->base_lat;
    if (k > 1) {
        /* reduce-scatter then all-gather inside the domain */
        c->t_domain = 2.0 * (k - 1.0) / k * bytes / net->domain_bw;
        lat += 2.0 * (k - 1.0) * net->lat_in;
    }
    if (nd > 1) {
        /* all-reduce of the GPU's 1/k shard over its own NIC share */
        double r = fabric_rate(net, !net->rail_optimized);
        double sh = bytes / k;
        c->nic_bytes = 2.0 * (nd - 1.0) / nd * sh;
        c->nic_rate = r;
        c->t_fabric = c->nic_bytes / r;
        lat += 2.0 * (nd - 1.0) * net->lat_out;
    }
    c->t_latency = lat;
}

static void alltoall(const dam_network *net, double bytes, int n, int k,
                     dam_net_cost *c)
{
    double in = (k - 1.0) / n * bytes, out = (double)(n - k) / n * bytes;
    c->t_domain = in / net->domain_bw;
    /* cross-rail: through the spine, rail-optimised or not */
    if (out > 0.0) {
        c->nic_rate = fabric_rate(net, 1);
        c->nic_bytes = out;
        c->t_fabric = out / c->nic_rate;
    }
    c->t_latency = net->base_lat + (out > 0.0 ? net->lat_out : net->lat_in);
}

static double finish(dam_net_cost *c)
{
    /* the domain and fabric parts of a step pipeline with each other; the
     * slower one paces the collective */
    double bw = c->t_domain > c->t_fabric ? c->t_domain : c->t_fabric;
    c->time = c->t_latency + bw;
    return c->time;
}

double dam_net_collective_algo(const dam_network *net, dam_comm_kind kind,
                               double bytes, const dam_net_group *g,
                               dam_net_algo algo, dam_net_cost *out)
{
    dam_net_cost tmp;
    dam_net_cost *c = out ? out : &tmp;
    int n = g->n > 0 ? g->n : 1;
    int k = g->k > 0 && g->k <= n ? g->k : n;
    if (kind != DAM_COMM_ALLREDUCE)
        algo = DAM_ALGO_RING;
    if (algo == DAM_ALGO_AUTO)
        algo = DAM_ALGO_RING;
    clear(c, algo);
    if (n < 2 || !(bytes > 0.0))
        return 0.0;
    switch (kind) {
    case DAM_COMM_ALLREDUCE:
        if (algo == DAM_ALGO_TREE)
            tree(net, bytes, n, k, c);
        else if (algo == DAM_ALGO_HIERARCHICAL)
            hierarchical(net, bytes, n, k, c);
        else
            ring(net, bytes, n, k, 2.0, c);
        break;
    case DAM_COMM_ALLGATHER:
    case DAM_COMM_REDUCESCATTER:
        ring(net, bytes, n, k, 1.0, c);
        break;
    case DAM_COMM_ALLTOALL:
        alltoall(net, bytes, n, k, c);
        break;
    }
    return finish(c);
}

double dam_net_collective(const dam_network *net, dam_comm_kind kind,
                          double bytes, const dam_net_group *g,
                          dam_net_cost *out)
{
    if (net->algo != DAM_ALGO_AUTO || kind != DAM_COMM_ALLREDUCE)
        return dam_net_collective_algo(net, kind, bytes, g, net->algo, out);
    /* NCCL's tuner: the fastest algorithm for this size */
    dam_net_cost best, c;
    double tb = dam_net_collective_algo(net, kind, bytes, g, DAM_ALGO_RING,
                                        &best);
    for (int a = DAM_ALGO_TREE; a < DAM_ALGO_COUNT; a++) {
        double t = dam_net_collective_algo(net, kind, bytes, g,
                                           (dam_net_algo)a, &c);
        if (t < tb) {
            tb = t;
            best = c;
        }
    }
    if (out)
        *out = best;
    return tb;
}

double dam_net_p2p(const dam_network *net, double bytes, int same_domain,
                   int share, dam_net_cost *out)
{
    dam_net_cost tmp;
    dam_net_cost *c = out ? out : &tmp;
    clear(c, DAM_ALGO_RING);
    if (!(bytes > 0.0))
        return 0.0;
    if (same_domain) {
        c->t_domain = bytes / net->domain_bw;
        c->t_latency = net->base_lat + net->lat_in;
    } else {
        double r = dam_net_nic_share(net, share);
        if (!net->rail_optimized && net->oversub > 1.0)
            r /= net->oversub;
        c->nic_bytes = bytes;
        c->nic_rate = r;
        c->t_fabric = bytes / r;
        c->t_latency = net->base_lat + net->lat_out;
    }
    return finish(c);
}
