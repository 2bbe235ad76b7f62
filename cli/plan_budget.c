/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan_budget.c: `damsim plan SCENARIO --budget X [--deadline T]`: parse
 * the budget and deadline, run dam_plan_budget, print the table or JSON.
 * Budget units: a plain number or "flop(s)" suffix is training FLOPs;
 * "gpu-h", "gpuh" or "gpu-hours" is GPU-hours on the scenario's GPU; a
 * leading "$" or an "usd" suffix is dollars. Deadline units: s, min, h, d,
 * w (a plain number is hours); default 30 days.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "render/units.h"
#include "solver/plan.h"

/* Parse "1e23", "5e4gpu-h", "$2e6", "2e6usd". 0 on success. */
static int parse_budget(const char *arg, dam_budget_kind *k, double *v)
{
    const char *p = arg;
    int dollar = 0;
    if (*p == '$') {
        dollar = 1;
        p++;
    }
    char *end;
    double x = strtod(p, &end);
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

/* Parse "30d", "720h", "90min", "3600s", "2w"; plain = hours. */
static int parse_deadline(const char *arg, double *seconds)
{
    char *end;
    double x = strtod(arg, &end);
    if (end == arg || !isfinite(x) || !(x > 0.0))
        return -1;
    static const struct {
        const char *unit;
        double s;
    } units[] = {{"", 3600.0},   {"s", 1.0},       {"min", 60.0},
                 {"h", 3600.0},  {"d", 86400.0},   {"w", 604800.0},
                 {NULL, 0.0}};
    for (int i = 0; units[i].unit; i++)
        if (strcasecmp(end, units[i].unit) == 0) {
            *seconds = x * units[i].s;
            return 0;
        }
    return -1;
}

static const char *const budget_units[] = {"FLOPs", "GPU-hours", "USD"};

/* A count as "5.16 B", "323 B", "1.4 T", "66 M". */
static void count(char *buf, size_t n, double v)
{
    if (v >= 1e12)
        snprintf(buf, n, "%.3g T", v / 1e12);
    else if (v >= 1e9)
        snprintf(buf, n, "%.3g B", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, n, "%.3g M", v / 1e6);
    else
        snprintf(buf, n, "%.3g", v);
}

static void plan_text(dam_buf *b, const dam_scenario *s, const dam_plan *p)
{
    char t1[48], t2[48], t3[48];
    dam_buf_printf(b, "%s\n", s->name);
    dam_buf_printf(b, "Question  %s\n", s->question);
    dam_fmt_time(t2, sizeof t2, p->deadline);
    dam_buf_printf(b, "Budget    %.4g %s = %.3g FLOP of training compute; "
                      "deadline %s\n",
                   p->budget, budget_units[p->kind], p->flops, t2);
    count(t1, sizeof t1, p->n_opt);
    count(t2, sizeof t2, p->d_opt);
    dam_buf_printf(b, "Optimum   N = %s parameters, D = %s tokens (%.1f tokens "
                      "per parameter), predicted loss %.4f\n",
                   t1, t2, p->tokens_per_param, p->loss);
    count(t1, sizeof t1, p->n_now);
    count(t2, sizeof t2, p->d_now);
    dam_buf_printf(b, "Now       N = %s parameters, D = %s tokens, loss %.4f "
                      "(%s fit)\n\n",
                   t1, t2, p->loss_now, p->fit->id);
    dam_buf_printf(b, "%-18s %7s %12s %7s %10s %12s %10s  %s\n", "GPU", "GPUs",
                   "tokens/s", "MFU", "run", "GPU-hours", "cost", "note");
    for (int i = 0; i < p->noptions; i++) {
        const dam_plan_option *o = &p->options[i];
        dam_fmt_si(t1, sizeof t1, o->tokens_per_s, "");
        dam_fmt_time(t2, sizeof t2, o->run_time);
        if (o->cost_usd > 0.0)
            snprintf(t3, sizeof t3, o->cost_usd >= 1e4 ? "$%.3gk" : "$%.0f",
                     o->cost_usd >= 1e4 ? o->cost_usd / 1e3 : o->cost_usd);
        else
            snprintf(t3, sizeof t3, "n/a");
        char gh[32];
        if (o->gpu_hours < 1e4)
            snprintf(gh, sizeof gh, "%.4g", o->gpu_hours);
        else
            snprintf(gh, sizeof gh, "%.3gk", o->gpu_hours / 1e3);
        dam_buf_printf(b, "%-18s %7d %12s %6.1f%% %10s %12s %10s  %s\n",
                       o->gpu, o->gpus, t1, o->mfu * 100.0, t2, gh, t3,
                       o->feasible ? o->note : "NOT FEASIBLE");
    }
    dam_buf_printf(b, "\nEach option: the compute-optimal model on that GPU, "
                      "solved analytically with the scenario's node shape, "
                      "efficiency and data pipeline.\n");
}

static json_t *plan_json(const dam_scenario *s, const dam_plan *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "scenario", dam_json_scenario(s));
    json_object_set_new(o, "budget", dam_json_num(p->budget));
    json_object_set_new(o, "budget_unit",
                        json_string(budget_units[p->kind]));
    json_object_set_new(o, "budget_flops", dam_json_num(p->flops));
    json_object_set_new(o, "deadline_s", dam_json_num(p->deadline));
    json_object_set_new(o, "fit", json_string(p->fit->id));
    json_object_set_new(o, "n_opt", dam_json_num(p->n_opt));
    json_object_set_new(o, "d_opt", dam_json_num(p->d_opt));
    json_object_set_new(o, "tokens_per_param",
                        dam_json_num(p->tokens_per_param));
    json_object_set_new(o, "loss", dam_json_num(p->loss));
    json_object_set_new(o, "n_now", dam_json_num(p->n_now));
    json_object_set_new(o, "d_now", dam_json_num(p->d_now));
    json_object_set_new(o, "loss_now", dam_json_num(p->loss_now));
    json_t *a = json_array();
    for (int i = 0; i < p->noptions; i++) {
        const dam_plan_option *x = &p->options[i];
        json_t *e = json_object();
        json_object_set_new(e, "gpu", json_string(x->gpu));
        json_object_set_new(e, "feasible", json_boolean(x->feasible));
        json_object_set_new(e, "gpus", json_integer(x->gpus));
        json_object_set_new(e, "tokens_per_s", dam_json_num(x->tokens_per_s));
        json_object_set_new(e, "mfu", dam_json_num(x->mfu));
        json_object_set_new(e, "run_s", dam_json_num(x->run_time));
        json_object_set_new(e, "gpu_hours", dam_json_num(x->gpu_hours));
        json_object_set_new(e, "price_usd_hour", dam_json_num(x->price_hour));
        json_object_set_new(e, "cost_usd", x->cost_usd > 0.0
                                               ? dam_json_num(x->cost_usd)
                                               : json_null());
        json_object_set_new(e, "fits_memory", json_boolean(x->fits_memory));
        json_object_set_new(e, "memory_bytes", dam_json_num(x->memory_bytes));
        json_object_set_new(e, "note", json_string(x->note));
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "options", a);
    return o;
}

int dam_cli_plan_budget(dam_cli *c, const dam_scenario *s)
{
    dam_budget_kind k;
    double budget, deadline = 30.0 * 86400.0;
    if (parse_budget(c->budget, &k, &budget) != 0) {
        fprintf(stderr, "damsim: --budget takes FLOPs (1e23), GPU-hours "
                        "(5e4gpu-h) or dollars ($2e6), got '%s'\n",
                c->budget);
        return 2;
    }
    if (c->deadline && parse_deadline(c->deadline, &deadline) != 0) {
        fprintf(stderr, "damsim: --deadline takes a time such as 30d, 720h "
                        "or 90min, got '%s'\n",
                c->deadline);
        return 2;
    }
    dam_plan *p = dam_malloc(sizeof *p);
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = 0;
    if (dam_plan_budget(s, &c->cat, k, budget, deadline, NULL, p, &e) !=
        DAM_OK) {
        dam_cli_error(&e);
        rc = 2;
    } else {
        dam_buf b = {0};
        if (c->json)
            dam_json_dump(&b, plan_json(s, p));
        else
            plan_text(&b, s, p);
        rc = dam_cli_emit(c, &b);
        dam_buf_free(&b);
    }
    dam_free(p);
    return rc;
}
