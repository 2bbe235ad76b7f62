/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan_budget.c: `damsim plan SCENARIO --budget X [--deadline T]`: parse
 * the budget and deadline, run dam_plan_budget, write the table or JSON
 * (laid out by render/plan_report.c).
 * Budget units: a plain number or "flop(s)" suffix is training FLOPs;
 * "gpu-h", "gpuh" or "gpu-hours" is GPU-hours on the scenario's GPU; a
 * leading "$" or an "usd" suffix is dollars. Deadline units: s, min, h, d,
 * w (required: a bare number is refused); default 30 days.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "model/csvline.h"
#include "model/loader.h"
#include "model/scaling.h"
#include "model/suggest.h"
#include "render/chartset.h"
#include "render/csv.h"
#include "render/plan_report.h"
#include "solver/plan.h"

int dam_cli_parse_budget(const char *arg, dam_budget_kind *k, double *v)
{
    const char *p = arg;
    int dollar = 0;
    if (*p == '$') {
        dollar = 1;
        p++;
    }
    char *end;
    double x = dam_decimal(p, &end);
    if (end == p || !isfinite(x) || !(x > 0.0))
        return -1;
    while (*end == ' ')
        end++;
    if (dollar && *end)
        return -1;
    if (dollar || strcasecmp(end, "usd") == 0)
        *k = DAM_BUDGET_USD;
    else if (!*end || strcasecmp(end, "flop") == 0 ||
             strcasecmp(end, "flops") == 0)
        *k = DAM_BUDGET_FLOPS;
    else if (strcasecmp(end, "gpu-h") == 0 || strcasecmp(end, "gpuh") == 0 ||
             strcasecmp(end, "gpu-hours") == 0)
        *k = DAM_BUDGET_GPU_HOURS;
    else
        return -1;
    *v = x;
    return 0;
}

int dam_cli_parse_deadline(const char *arg, double *seconds)
{
    char *end;
    double x = dam_decimal(arg, &end), lo = 1e-6, hi = 1e6;
    if (end == arg || !isfinite(x) || !(x > 0.0))
        return -1;
    /* a unit is required (a bare 30 read as hours surprised a user who
     * meant days); the range is scenario.deadline_days' */
    dam_scenario_key_range("scenario.deadline_days", &lo, &hi);
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"s", 1.0},       {"min", 60.0},
                 {"h", 3600.0},  {"d", 86400.0},   {"w", 604800.0},
                 {NULL, 0.0}};
    for (int i = 0; units[i].unit; i++)
        if (strcasecmp(end, units[i].unit) == 0) {
            *seconds = x * units[i].s;
            return *seconds >= lo * 86400.0 && *seconds <= hi * 86400.0
                       ? 0
                       : -1;
        }
    return -1;
}

int dam_cli_plan_budget(dam_cli *c, const dam_scenario *s)
{
    dam_budget_kind k;
    double budget, deadline = 30.0 * 86400.0;
    if (dam_cli_parse_budget(c->budget, &k, &budget) != 0) {
        fprintf(stderr, "damsim: --budget takes FLOPs (1e23), GPU-hours "
                        "(5e4gpu-h) or dollars ($2e6), got '%s'\n",
                c->budget);
        return 2;
    }
    if (c->deadline && dam_cli_parse_deadline(c->deadline, &deadline) != 0) {
        fprintf(stderr, "damsim: --deadline takes a time with its unit "
                        "(s, min, h, d or w) from 0.0864s to 1e6d, such as "
                        "30d, 720h or 90min, got '%s'\n",
                c->deadline);
        return 2;
    }
    const dam_scaling_fit *fit = NULL;
    if (c->fit) {
        dam_scaling_fit_id id;
        if (dam_scaling_fit_parse(c->fit, &id) != 0) {
            const char *near = dam_suggest_list(c->fit, dam_scaling_fit_names);
            fprintf(stderr, "damsim: --fit takes approach1 (default), "
                            "approach2, approach3 or epoch2024, got '%s'%s%s%s\n",
                    c->fit, near ? " (did you mean '" : "", near ? near : "",
                    near ? "'?)" : "");
            return 2;
        }
        fit = dam_scaling_fit_get(id);
    }
    dam_plan *p = dam_malloc(sizeof *p);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = 0;
    if (dam_plan_budget(s, &c->cat, k, budget, deadline, fit, p, &e) !=
        DAM_OK) {
        dam_cli_error(&e);
        rc = 2;
    } else {
        dam_buf b = {0};
        if (c->json)
            dam_json_dump(&b, dam_plan_report_budget_json(s, p));
        else if (c->csv)
            dam_csv_plan_budget(&b, p);
        else
            dam_plan_report_budget_text(&b, s, p);
        rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
        if (rc == 0 && dam_cli_plan_wants_chart(c)) {
            dam_chartset *cs = dam_malloc(sizeof *cs);
            rc = dam_cli_plan_chart(c, cs, dam_chartset_budget(cs, s, p, &e),
                                    &e);
        }
    }
    dam_free(p);
    return rc;
}
