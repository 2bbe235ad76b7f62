/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan_report.c: the two plans as tables and JSON: the serving capacity
 * plan (replicas per GPU for a p99 SLO at a rate, solver/capacity.h) and
 * the training budget plan (Chinchilla optimum and GPUs per deadline,
 * solver/plan.h). Numbers come from the plans; this file only lays them
 * out.
 */
#include "render/page/plan_report.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/out/json.h"
#include "render/out/fmt.h"

void dam_plan_report_capacity_text(dam_buf *b, const dam_scenario *s,
                                   const dam_capacity_result *p)
{
    const dam_serving *v = &s->serving;
    dam_buf_printf(b, "Capacity plan: %s\n", s->name);
    dam_buf_printf(b, "  SLO p99 <= %.4g ms at %.4g requests/s (%s arrivals); "
                      "max batch %d, timeout %.3g ms, %d preprocess "
                      "workers\n",
                   p->slo_s * 1e3, p->rate,
                   v->arrival == DAM_ARRIVAL_DETERMINISTIC ? "deterministic"
                                                           : "Poisson",
                   v->max_batch, v->batch_timeout_s * 1e3,
                   v->preprocess_workers);
    dam_buf_printf(b, "  headroom: simulated p99 + its 95 %% CI half-width "
                      "<= SLO, replicas <= %.0f %% busy\n\n",
                   DAM_CAPACITY_MAX_UTIL * 100.0);
    /* costs per million requests, the unit of the chart and the review */
    dam_buf_printf(b, "  %-19s %8s %10s %6s %17s %10s %10s\n", "gpu",
                   "replicas", "p99", "util", "one fewer: p99", "$/hour",
                   "$/M req");
    int first = 1;
    for (int i = 0; i < p->noptions; i++) {
        const dam_capacity_option *o = &p->options[i];
        if (!o->feasible)
            continue;
        char fewer[40] = "-", ph[24] = "n/a", pk[24] = "n/a";
        if (o->fewer_p99_known)
            snprintf(fewer, sizeof fewer, "%.4g ms, %.0f%%",
                     o->fewer_p99 * 1e3, o->fewer_util * 100.0);
        if (o->price_hour > 0.0) {
            dam_fmt_usd(ph, sizeof ph, o->cost_hour, DAM_FMT_SIG);
            dam_fmt_usd(pk, sizeof pk, o->cost_per_1k * 1000.0,
                        DAM_FMT_SIG);
        }
        dam_buf_printf(b, "  %-19s %8d %7.4g ms %5.0f%% %17s %10s %10s%s\n",
                       o->gpu, o->replicas, o->p99 * 1e3,
                       o->utilization * 100.0, fewer, ph, pk,
                       first && o->price_hour > 0.0 ? "  <- cheapest" : "");
        if (o->price_hour > 0.0)
            first = 0;
    }
    int ninf = 0;
    for (int i = 0; i < p->noptions; i++)
        if (p->options[i].supported && !p->options[i].feasible) {
            if (!ninf++)
                dam_buf_printf(b, "\n  Cannot meet the SLO:\n");
            dam_buf_printf(b, "    %-19s %s\n", p->options[i].gpu,
                           p->options[i].why);
        }
    int nun = 0;
    for (int i = 0; i < p->noptions; i++)
        if (!p->options[i].supported) {
            dam_buf_printf(b, "%s%s", nun++ ? ", " : "\n  Skipped (no "
                                                     "support for the "
                                                     "precision): ",
                           p->options[i].gpu);
        }
    if (nun)
        dam_buf_printf(b, "\n");
    dam_buf_printf(b, "\nThis deployment (%d x %s): ", v->replicas,
                   s->machine.gpu.id);
    if (p->max_rate_found)
        dam_buf_printf(b, "meets the SLO up to about %.4g requests/s (p99 "
                          "%.4g ms there; misses at %.4g/s)\n",
                       p->max_rate, p->max_rate_p99 * 1e3,
                       p->max_rate_upper);
    else
        dam_buf_printf(b, "no arrival rate meets the SLO (stable up to "
                          "%.4g requests/s); the latency floor is not the "
                          "load\n",
                       p->max_rate_upper);
    dam_buf_printf(b, "(%d simulations)\n", p->evaluations);
}

json_t *dam_plan_report_capacity_json(const dam_scenario *s,
                                      const dam_capacity_result *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "scenario", json_string(s->name));
    json_object_set_new(o, "file", json_string(s->file));
    json_object_set_new(o, "slo_p99_s", dam_json_num(p->slo_s));
    json_object_set_new(o, "rate_per_s", dam_json_num(p->rate));
    json_object_set_new(o, "headroom",
                        json_string("p99 + ci95 half-width <= slo and "
                                    "replica utilization <= 0.9"));
    json_t *a = json_array();
    for (int i = 0; i < p->noptions; i++) {
        const dam_capacity_option *x = &p->options[i];
        json_t *e = json_object();
        json_object_set_new(e, "gpu", json_string(x->gpu));
        json_object_set_new(e, "supported", json_boolean(x->supported));
        json_object_set_new(e, "feasible", json_boolean(x->feasible));
        if (x->feasible) {
            json_object_set_new(e, "replicas", json_integer(x->replicas));
            json_object_set_new(e, "p99_s", dam_json_num(x->p99));
            json_object_set_new(e, "p99_ci95_s", dam_json_num(x->p99_ci95));
            json_object_set_new(e, "utilization",
                                dam_json_num(x->utilization));
            json_object_set_new(e, "throughput_per_s",
                                dam_json_num(x->throughput));
            json_object_set_new(e, "price_usd_hour",
                                x->price_hour > 0.0
                                    ? dam_json_num(x->price_hour)
                                    : json_null());
            json_object_set_new(e, "cost_usd_hour",
                                x->price_hour > 0.0
                                    ? dam_json_num(x->cost_hour)
                                    : json_null());
            json_object_set_new(e, "cost_per_1k_usd",
                                x->price_hour > 0.0
                                    ? dam_json_num(x->cost_per_1k)
                                    : json_null());
            json_object_set_new(e, "one_fewer_p99_s",
                                x->fewer_p99_known
                                    ? dam_json_num(x->fewer_p99)
                                    : json_null());
            json_object_set_new(e, "one_fewer_utilization",
                                x->fewer_p99_known
                                    ? dam_json_num(x->fewer_util)
                                    : json_null());
        } else {
            json_object_set_new(e, "why", json_string(x->why));
        }
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "options", a);
    json_t *m = json_object();
    json_object_set_new(m, "gpu", json_string(s->machine.gpu.id));
    json_object_set_new(m, "replicas", json_integer(s->serving.replicas));
    json_object_set_new(m, "found", json_boolean(p->max_rate_found));
    json_object_set_new(m, "max_rate_per_s",
                        p->max_rate_found ? dam_json_num(p->max_rate)
                                          : json_null());
    json_object_set_new(m, "p99_s", p->max_rate_found
                                        ? dam_json_num(p->max_rate_p99)
                                        : json_null());
    json_object_set_new(m, "misses_at_per_s",
                        dam_json_num(p->max_rate_upper));
    json_object_set_new(o, "this_deployment", m);
    json_object_set_new(o, "simulations", json_integer(p->evaluations));
    return o;
}

static const char *const budget_units[] = {"FLOPs", "GPU-hours", "USD"};

/* A count as "5.16 B", "323 B", "1.40 T", "66.0 M" (render/fmt). */
static void count(char *buf, size_t n, double v)
{
    dam_fmt_count(buf, n, v);
}

/* An interval's bounds to its own precision, with separators. */
static void bounds(char *lo, char *hi, size_t n, const dam_interval *iv)
{
    int d = dam_fmt_interval_decimals(iv->median, iv->lo, iv->hi);
    dam_fmt_fixed(lo, n, iv->lo, d);
    dam_fmt_fixed(hi, n, iv->hi, d);
}

/* Below the table: when no option is feasible, say so and why (memory
 * first, then the budget, then the deadline). */
static void budget_verdict(dam_buf *b, const dam_plan *p)
{
    int fit = 0, within = 0, unknown = 0, ok = 0;
    for (int i = 0; i < p->noptions; i++) {
        const dam_plan_option *o = &p->options[i];
        fit += o->fits_memory;
        within += o->fits_memory && o->over_budget == 0;
        unknown += o->fits_memory && o->over_budget == -1;
        ok += o->feasible;
    }
    if (ok > 0 || p->noptions == 0)
        return;
    if (fit == 0)
        dam_buf_printf(b, "No option fits: the model does not fit in "
                          "memory on any of the %d GPUs above.\n",
                       p->noptions);
    else if (within == 0 && unknown == 0)
        dam_buf_printf(b, "No option fits: of the %d that fit in memory, "
                          "none is within the budget.\n", fit);
    else
        dam_buf_printf(b, "No option fits: of the %d that fit in memory%s, "
                          "none finishes by the deadline%s.\n", fit,
                       within + unknown < fit ? " and the budget" : "",
                       unknown ? " (cost unknown where no price is given)"
                               : "");
}

void dam_plan_report_budget_text(dam_buf *b, const dam_scenario *s,
                                 const dam_plan *p)
{
    char t1[48], t2[48], t3[48];
    dam_buf_printf(b, "%s\n", s->name);
    dam_buf_printf(b, "Question  %s\n", s->question);
    dam_fmt_time(t2, sizeof t2, p->deadline);
    /* FLOPs in powers of ten ("1e22"), as budgets are written */
    char fl[48];
    snprintf(fl, sizeof fl, "%.3g", p->flops);
    char *e = strstr(fl, "e+");
    if (e)
        memmove(e + 1, e + 2, strlen(e + 2) + 1);
    if (p->kind == DAM_BUDGET_FLOPS) {
        dam_buf_printf(b, "Budget    %s FLOP of training compute; deadline "
                          "%s\n",
                       fl, t2);
    } else {
        if (p->kind == DAM_BUDGET_USD)
            dam_fmt_usd(t1, sizeof t1, p->budget, 4);
        else
            dam_fmt_num(t1, sizeof t1, p->budget, 4);
        dam_buf_printf(b, "Budget    %s%s = %s FLOP of training compute; "
                          "deadline %s\n",
                       t1, p->kind == DAM_BUDGET_USD ? "" : " GPU-hours", fl,
                       t2);
    }
    count(t1, sizeof t1, p->n_opt);
    count(t2, sizeof t2, p->d_opt);
    dam_buf_printf(b, "Fit       %s: %s\n", p->fit->name, p->fit->source);
    dam_buf_printf(b, "Optimum   N = %s parameters, D = %s tokens (%.1f tokens "
                      "per parameter), predicted loss %.4f (loss: %s)\n",
                   t1, t2, p->tokens_per_param, p->loss, p->fit->loss_fit);
    count(t1, sizeof t1, p->n_now);
    count(t2, sizeof t2, p->d_now);
    dam_buf_printf(b, "Now       N = %s parameters, D = %s tokens, loss %.4f\n"
                      "\n",
                   t1, t2, p->loss_now);
    /* the GPU column as wide as the longest id */
    int gw = 18;
    for (int i = 0; i < p->noptions; i++) {
        int l = (int)strlen(p->options[i].gpu);
        gw = l > gw ? l : gw;
    }
    dam_buf_printf(b, "%-*s %7s %12s %7s %10s %12s %12s  %s\n", gw, "GPU",
                   "GPUs", "tokens/s", "MFU", "run", "GPU-hours", "cost",
                   "note");
    /* one time unit for the run column */
    double runs[DAM_PLAN_MAX];
    for (int i = 0; i < p->noptions; i++)
        runs[i] = p->options[i].run_time;
    dam_fmt_time_unit tu = dam_fmt_time_pick_column(runs,
                                                    (size_t)p->noptions);
    for (int i = 0; i < p->noptions; i++) {
        const dam_plan_option *o = &p->options[i];
        char gh[32], mfu[16], ng[16], note[sizeof o->note + 64];
        if (o->fits_memory) {
            snprintf(ng, sizeof ng, "%d", o->gpus);
            dam_fmt_si(t1, sizeof t1, o->tokens_per_s, "");
            snprintf(mfu, sizeof mfu, "%.1f%%", o->mfu * 100.0);
            dam_fmt_time_in(t2, sizeof t2, o->run_time, tu, DAM_FMT_SIG);
            dam_fmt_num(gh, sizeof gh, o->gpu_hours, DAM_FMT_SIG);
            if (o->cost_usd > 0.0)
                dam_fmt_usd(t3, sizeof t3, o->cost_usd, DAM_FMT_SIG);
            else
                snprintf(t3, sizeof t3, "n/a");
        } else {
            /* what does not fit has no speed, time nor cost to quote (as
             * in whatif; --json and --csv keep them beside fits_memory) */
            snprintf(ng, sizeof ng, "-");
            snprintf(t1, sizeof t1, "-");
            snprintf(mfu, sizeof mfu, "-");
            snprintf(t2, sizeof t2, "-");
            snprintf(gh, sizeof gh, "-");
            snprintf(t3, sizeof t3, "-");
        }
        snprintf(note, sizeof note, "%s",
                 o->note[0] ? o->note : o->feasible ? "" : "NOT FEASIBLE");
        if (o->over_budget == 1 && o->fits_memory) {
            double have = p->kind == DAM_BUDGET_USD ? o->cost_usd
                                                    : o->gpu_hours;
            size_t n = o->note[0] ? strlen(note) : 0;
            snprintf(note + n, sizeof note - n, "%sOVER THE BUDGET by %.0f %%",
                     n ? "; " : "", (have / p->budget - 1.0) * 100.0);
        }
        dam_buf_printf(b, "%-*s %7s %12s %7s %10s %12s %12s  %s\n",
                       gw, o->gpu, ng, t1, mfu, t2, gh, t3, note);
    }
    budget_verdict(b, p);
    int nofit = 0;
    for (int i = 0; i < p->noptions; i++)
        nofit += !p->options[i].fits_memory;
    if (nofit > 0 && !s->layout.on)
        dam_buf_printf(b, "A GPU that does not fit the model with data "
                          "parallelism alone may fit it sharded: give the "
                          "scenario a parallel group (ZeRO stage 3, tensor "
                          "or pipeline parallelism) and each option is "
                          "planned in the fastest layout that fits.\n");
    int any = 0;
    for (int i = 0; i < p->noptions; i++)
        any |= p->options[i].interval.samples > 0 &&
               p->options[i].fits_memory;
    if (any) {
        dam_buf_printf(b, "\n90 %% intervals (analytic; %d draws of the "
                          "calibrated constants and uncertain inputs, the "
                          "same for every option)\n",
                       p->options[0].interval.samples);
        dam_buf_printf(b, "%-*s %7s %18s %16s %18s  %s\n", gw, "GPU", "GPUs",
                       "run", "GPU-hours", "cost", "by the deadline");
        for (int i = 0; i < p->noptions; i++) {
            const dam_plan_option *o = &p->options[i];
            const dam_answer_interval *a = &o->interval;
            if (a->samples == 0 || !o->fits_memory)
                continue;
            char r1[24], r2[24], run[56], g1[24], g2[24], gh[56], c1[24],
                c2[24], cost[56];
            dam_fmt_time(r1, sizeof r1, a->run_time.lo);
            dam_fmt_time(r2, sizeof r2, a->run_time.hi);
            snprintf(run, sizeof run, "%s .. %s", r1, r2);
            bounds(g1, g2, sizeof g1, &a->gpu_hours);
            snprintf(gh, sizeof gh, "%s .. %s", g1, g2);
            if (o->price_hour > 0.0) {
                bounds(c1, c2, sizeof c1, &a->cost_usd);
                snprintf(cost, sizeof cost, "$%s .. $%s", c1, c2);
            } else {
                snprintf(cost, sizeof cost, "n/a");
            }
            /* no spread: the run is set by what the scenario gives as
             * exact numbers (a network bandwidth), not by the constants */
            int flat = a->run_time.hi <= 1.005 * a->run_time.lo;
            dam_buf_printf(b, "%-*s %7d %18s %16s %18s  %.0f %% of draws%s\n",
                           gw, o->gpu, o->gpus, run, gh, cost,
                           o->p_deadline * 100.0,
                           flat ? " (no spread: set by inputs given "
                                  "without a distribution, not by the GPU)"
                                : "");
        }
    }
    if (s->layout.on)
        dam_buf_printf(b, "\nEach option: the compute-optimal model on that "
                          "GPU, in the fastest parallel layout that fits in "
                          "memory at the fewest GPUs that finish by the "
                          "deadline (the layout search of plan --search, "
                          "analytic, at the scenario's global batch; the "
                          "intervals solve that layout in every draw).\n");
    else
        dam_buf_printf(b, "\nEach option: the compute-optimal model on that "
                          "GPU, solved analytically with the scenario's node "
                          "shape, efficiency and data pipeline.\n");
}

json_t *dam_plan_report_budget_json(const dam_scenario *s,
                                    const dam_plan *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "scenario", dam_json_scenario(s));
    json_object_set_new(o, "budget", dam_json_num(p->budget));
    json_object_set_new(o, "budget_unit",
                        json_string(budget_units[p->kind]));
    json_object_set_new(o, "budget_flops", dam_json_num(p->flops));
    json_object_set_new(o, "deadline_s", dam_json_num(p->deadline));
    json_object_set_new(o, "fit", json_string(p->fit->name));
    json_object_set_new(o, "fit_source", json_string(p->fit->source));
    json_object_set_new(o, "loss_from", json_string(p->fit->loss_fit));
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
        json_object_set_new(e, "over_budget", x->over_budget < 0
                                                  ? json_null()
                                                  : json_boolean(
                                                        x->over_budget));
        json_object_set_new(e, "memory_bytes", dam_json_num(x->memory_bytes));
        json_object_set_new(e, "note", json_string(x->note));
        if (x->interval.samples > 0) {
            json_object_set_new(e, "intervals_90",
                                dam_json_answer_interval(&x->interval, 1));
            json_object_set_new(e, "share_of_draws_by_deadline",
                                dam_json_num(x->p_deadline));
        }
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "options", a);
    return o;
}

