/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * link.h: capacity-shared links with max-min fair sharing, on the
 * discrete-event engine (des.h).
 *
 * A link has a capacity in units per second (bytes/s for storage, PCIe,
 * NVLink, network; cores for a CPU pool). A flow carries an amount of work
 * (units) across one or more links, optionally capped at a rate; at every
 * instant the rates are the max-min fair allocation (progressive filling)
 * over all links. When the last unit of a flow is delivered its callback
 * runs. A CPU pool of c cores is a link of capacity c whose flows are each
 * capped at 1 (core).
 *
 * Three ways of keeping rates, chosen per link and switched automatically:
 *  - fast, equal caps (virtual time): the link carries only single-link
 *    flows that all have the same cap (or none). Then every flow gets
 *    r = min(cap, C/n), and a virtual clock V (service per flow) advances
 *    at r. A flow starting at V0 with work w finishes when V reaches
 *    V0 + w, so flows sit in a heap by that finishing value and the link
 *    keeps one completion event. A start or an end is O(log n).
 *  - fast, mixed caps: single-link flows whose caps differ. The fair level
 *    L solves sum_i min(c_i, L) = C; flows with c_i < L run at their cap
 *    (the capped set), the rest at L (the level set). Level flows share a
 *    virtual clock as above; a capped flow's rate stays c_i while it is
 *    capped, so it keeps its real finishing time. Each set is kept twice,
 *    in a heap by finishing value and a heap by cap (the capped set's
 *    greatest cap and the level set's least face each other across L). A
 *    start or an end moves flows across the boundary one at a time, each
 *    move O(log n) (remaining work converted between the two forms), and
 *    the link keeps one completion event, the earlier of the two sets'
 *    next. Typically a few moves per event; caps bunched at the level
 *    (many flows sharing the cap L crosses) can move many at once. The
 *    link returns to the equal-cap mode when it empties.
 *  - general: any flow crossing several links puts the links it touches
 *    in this mode. Each flow keeps (remaining, rate, last update) and its
 *    own completion event; a start or end recomputes progressive filling
 *    over the connected component of links (through shared flows) and
 *    moves only the events whose rate changed. Cost O((F + L) log(F + L))
 *    for F flows and L links in the component. A link returns to a fast
 *    mode once all its flows are single-link again. With coalescing on
 *    (dam_link_net_set_coalesce), the starts and ends of one instant
 *    share one recompute, at the end of that instant's events so far.
 *
 * A link's busy time is the integral of its utilisation (used/capacity),
 * so busy/elapsed is its mean utilisation.
 */
#ifndef DAM_LINK_H
#define DAM_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "model/error.h"
#include "solver/des.h"

/* Most links one flow may cross. */
#define DAM_LINK_MAXPATH 8

/* A set of links and the flows on them, bound to one simulation (opaque). */
typedef struct dam_link_net dam_link_net;

/* Names a flow while it runs; 0 names none. */
typedef uint64_t dam_link_flow;

/* A new, empty network on des. Never NULL. Must not outlive des. */
dam_link_net *dam_link_net_create(dam_des *des);
/* Free the network and its flows (no callbacks run); NULL is a no-op. */
void dam_link_net_free(dam_link_net *net);
/* Drop every flow (cancelling their events, running no callbacks) and zero
 * every link's accounting from now; links and capacities stay. */
void dam_link_net_reset(dam_link_net *net);
/* 1 (default): use the fast (virtual-time) modes where they apply; 0:
 * always the general path (for validating one against the other). Set
 * before flows start. */
void dam_link_net_set_fast(dam_link_net *net, int on);
/* on = 1: general-mode starts and ends at one instant are recomputed
 * together, once, by an event at that instant (scheduled by the first of
 * them), instead of once each. Flows that start and end together (a
 * collective across replicas, a step's reads) then cost one recompute of
 * their component, not one each. The rates are the same max-min fair
 * allocation once the instant's changes are in (no time passes between);
 * what may differ is the order of completion events that fall at exactly
 * the same time. Rates queried between a start and that event are the
 * previous ones. Default off. Set before flows start. */
void dam_link_net_set_coalesce(dam_link_net *net, int on);

/* Add a link of capacity (units/s, >= 0). Returns its index (0, 1, ...),
 * or -1 with err filled when capacity is negative or not finite. */
int dam_link_add(dam_link_net *net, double capacity, dam_error *err);

/* Start a flow of work units over links[0..nlinks-1] (distinct indices,
 * 1 <= nlinks <= DAM_LINK_MAXPATH) with rate cap (units/s; 0 or +inf for
 * none). When it completes, done(des, ctx, arg) runs from the event loop.
 * Zero work completes at now (done runs as an event). The flow's id goes
 * to *id when id is non-NULL (0 for zero work). Returns DAM_OK, or
 * DAM_EINPUT with err filled (err may be NULL) on bad arguments. */
int dam_link_flow_start(dam_link_net *net, const int *links, int nlinks,
                        double work, double cap, dam_des_fn done, void *ctx,
                        dam_des_arg arg, dam_link_flow *id, dam_error *err);

/* Current rate of a running flow, units/s (0 when not running). */
double dam_link_flow_rate(const dam_link_net *net, dam_link_flow id);
/* Work still to deliver, units (0 when not running). */
double dam_link_flow_remaining(const dam_link_net *net, dam_link_flow id);

/* Number of links. */
int dam_link_count(const dam_link_net *net);
/* Capacity of link, units/s. */
double dam_link_capacity(const dam_link_net *net, int link);
/* Flows on link now. */
size_t dam_link_flows(const dam_link_net *net, int link);
/* Units/s in use on link now (sum of its flows' rates). */
double dam_link_used(const dam_link_net *net, int link);
/* Integral of utilisation (used/capacity) since creation or reset, s. */
double dam_link_busy(const dam_link_net *net, int link);
/* Time with at least one flow on link since creation or reset, s. */
double dam_link_active(const dam_link_net *net, int link);
/* Units delivered over link since creation or reset. */
double dam_link_delivered(const dam_link_net *net, int link);
/* 1 when link is in a fast mode now (equal or mixed caps), 0 in the
 * general mode. */
int dam_link_is_fast(const dam_link_net *net, int link);

#endif
