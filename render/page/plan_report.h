/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan_report.h: `damsim plan` output: the serving capacity plan and the
 * training budget plan, each as a text table (into a dam_buf) and as JSON.
 * Pure layout: every number comes from the plan passed in.
 */
#ifndef DAM_RENDER_PLAN_REPORT_H
#define DAM_RENDER_PLAN_REPORT_H

#include "render/out/buf.h"
#include "solver/capacity.h"
#include "solver/plan.h"

struct json_t;

/* The capacity plan p of serving scenario s: SLO and headroom, one row per
 * GPU that meets the SLO (cheapest marked), those that cannot and why, and
 * the highest rate this deployment sustains. */
void dam_plan_report_capacity_text(dam_buf *b, const dam_scenario *s,
                                   const dam_capacity_result *p);
/* The same as JSON (new reference; seconds, requests/s, USD). */
struct json_t *dam_plan_report_capacity_json(const dam_scenario *s,
                                             const dam_capacity_result *p);
/* The budget plan p of training scenario s: budget, compute-optimal model,
 * and one row per GPU (count, tokens/s, MFU, run time, GPU-hours, cost). */
void dam_plan_report_budget_text(dam_buf *b, const dam_scenario *s,
                                 const dam_plan *p);
/* The same as JSON (new reference). */
struct json_t *dam_plan_report_budget_json(const dam_scenario *s,
                                           const dam_plan *p);

#endif
