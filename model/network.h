/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * network.h: the GPU network of a training cluster and what collectives
 * cost on it (MODEL.md section 9; issue 12 item 2).
 *
 * The network has two levels. GPUs sit in NVLink/NVSwitch domains of
 * `domain` GPUs (8 in an HGX/DGX node, 72 in an NVL72 rack): any two GPUs
 * of a domain talk at the domain's bus bandwidth. Domains are joined by a
 * scale-out fabric: each node (gpus_per_node GPUs) has `nics` NICs of
 * `nic_bw` line rate, reaching `nic_eff` of it. Rail-optimised fabrics
 * wire NIC i of every node to the same leaf ("rail"), so traffic between
 * GPUs of the same local index never crosses the spine; a fabric that is
 * not rail-optimised, and all-to-all traffic (which crosses rails), goes
 * through a spine `oversub` times thinner than the leaves.
 *
 * A collective is described by its group: n ranks, of which k share each
 * NVLink domain (nd = n / k domains). The cost of each algorithm follows
 * NCCL's own model (src/graph/tuning.cc): a base latency per call, a
 * per-step latency inside a domain and across the fabric, and a bandwidth
 * term in the nccl-tests "bus bandwidth" convention:
 *
 *   ring all-reduce  (2(n-1)/n) B / bw + base + (2(n-1) - 2(nd-1)) a_in
 *                    + 2(nd-1) a_out,   bw = bus bw of the slowest hop:
 *                    the domain's, or across domains the NIC shares of
 *                    the group's k GPUs in a domain: k x (nics x nic_bw
 *                    x nic_eff / G), every GPU of a node (G of them)
 *                    running a collective of its own groups at once
 *   tree all-reduce  2 B / bw + base + 2((k-1) a_in + ceil(log2 nd) a_out)
 *   hierarchical     reduce-scatter in the domain, all-reduce of B/k across
 *                    the nd domains on each GPU's own NIC share, all-gather
 *                    in the domain
 *   all-gather, reduce-scatter   ring, half the all-reduce's steps
 *   all-to-all       each rank sends (n-1)/n B: the (k-1)/n part in its
 *                    domain, the (n-k)/n part over its NIC share through
 *                    the spine (oversubscribed); one step of latency
 *   send/receive     B / bw + base + one hop
 *
 * B is the full buffer (the all-reduced tensor, the gathered output, the
 * data a rank sends in all), as nccl-tests reports sizes.
 *
 * Nothing here knows a scenario's parallel layout (layout.h places ranks
 * and forms groups) or simulates contention (the pipeline simulation runs
 * the NIC parts of collectives as flows on max-min fair links,
 * solver/link.h, using dam_net_split to know which part crosses NICs).
 * Plain data, no allocation, no state.
 */
#ifndef DAM_NETWORK_H
#define DAM_NETWORK_H

#include "model/graph.h"

/* Collective algorithms. */
typedef enum {
    DAM_ALGO_AUTO = 0,    /* the fastest of the three, per call (NCCL's tuner) */
    DAM_ALGO_RING,
    DAM_ALGO_TREE,
    DAM_ALGO_HIERARCHICAL,
    DAM_ALGO_COUNT
} dam_net_algo;

/* Name of an algorithm ("auto", "ring", ...). */
const char *dam_net_algo_name(dam_net_algo a);

/* The cluster's GPU network. SI units. */
typedef struct dam_network {
    int domain;         /* GPUs per NVLink/NVSwitch domain, >= 1; a
                         * multiple of gpus_per_node or a divisor of it */
    double domain_bw;   /* bus bandwidth of a collective inside a domain,
                         * bytes/s (nccl-tests convention, ring) */
    int nics;           /* scale-out NICs per node, >= 1 */
    double nic_bw;      /* line rate of one NIC, one direction, bytes/s */
    double nic_eff;     /* fraction of the line rate collectives reach, (0, 1] */
    int rail_optimized; /* 1: NIC i of every node on rail i (no spine for
                         * rail-aligned traffic) */
    double oversub;     /* spine oversubscription, >= 1 (1 = full bisection) */
    dam_net_algo algo;  /* collective algorithm */
    double base_lat;    /* latency per collective call, s */
    double lat_in;      /* latency per step inside a domain, s */
    double lat_out;     /* latency per step across the fabric, s */
    int gpus_per_node;  /* GPUs sharing a node's NICs (the machine's) */
} dam_network;

/* A group of ranks as the network sees it. */
typedef struct dam_net_group {
    int n;              /* ranks, >= 1 */
    int k;              /* of them in each NVLink domain, 1 <= k <= n, k | n */
} dam_net_group;

/* Cost of one collective, split by where it runs. */
typedef struct dam_net_cost {
    double time;        /* total, s (what the call takes uncontended) */
    double t_latency;   /* latency part, s */
    double t_domain;    /* bandwidth time inside the domain (NVLink), s */
    double t_fabric;    /* bandwidth time across the fabric (NICs), s */
    double nic_bytes;   /* bytes each rank sends through the NICs */
    double nic_rate;    /* rate of those bytes uncontended: the rank's NIC
                         * share (after oversubscription where it applies),
                         * bytes/s; 0 when nothing crosses the fabric */
    int algo;           /* the algorithm costed (a dam_net_algo, not auto) */
} dam_net_cost;

/*
 * Cost of collective `kind` (all-reduce, all-gather, reduce-scatter,
 * all-to-all) of a full buffer of `bytes` over group g on net, with the
 * network's algorithm (auto: the fastest). out may be NULL. Returns the
 * time in s (0 for a group of one).
 */
double dam_net_collective(const dam_network *net, dam_comm_kind kind,
                          double bytes, const dam_net_group *g,
                          dam_net_cost *out);

/* The same with a given algorithm (ring, tree, hierarchical; all-gather,
 * reduce-scatter and all-to-all are always ring). */
double dam_net_collective_algo(const dam_network *net, dam_comm_kind kind,
                               double bytes, const dam_net_group *g,
                               dam_net_algo algo, dam_net_cost *out);

/*
 * One point-to-point transfer of `bytes` (pipeline activations): inside a
 * domain when same_domain, else through the sender's NIC share (shared by
 * `share` senders of the node at once; 0 = all its GPUs). out may be NULL.
 * Returns s.
 */
double dam_net_p2p(const dam_network *net, double bytes, int same_domain,
                   int share, dam_net_cost *out);

/* A GPU's share of its node's NIC bandwidth when `share` GPUs of the node
 * send at once (0 = all of them), bytes/s, before oversubscription. */
double dam_net_nic_share(const dam_network *net, int share);

/* Fill the defaults of every field not given (<= 0) from the machine:
 * domain = gpus_per_node, domain_bw = the GPU's measured busbw or
 * intra_busbw, nics = gpus_per_node, nic_bw from inter_busbw, and the
 * NCCL latencies (network.c names the sources). */
void dam_net_defaults(dam_network *net, int gpus_per_node, double intra_busbw,
                      double inter_busbw, double gpu_busbw, double net_latency);

#endif
