/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plan.c: budget planning (see plan.h).
 *
 * Method. The scenario's data is first rescaled so that its training compute
 * 6 N D equals the budget; the chinchilla lever then moves N and D to the
 * fit's optimum at that compute (so the model's FLOPs, memory and gradient
 * bytes follow the new N). For each GPU kind that supports the scenario's
 * precision, the gpu lever swaps it in and the analytic solver gives the
 * throughput on one node; the GPU count that meets the deadline is found
 * by re-solving at the estimated count (nodes of gpus_per_node) until the
 * run fits the deadline, which accounts for the all-reduce growing with
 * the job. Options are sorted: feasible first, then by cost (unknown prices
 * last), then by GPU count.
 */
#include "solver/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "model/lever.h"
#include "model/quality.h"
#include "solver/analytic.h"
#include "solver/search.h"


/* Solve s with `gpus` GPUs in nodes of the scenario's shape. */
static void solve_at(dam_scenario *s, int gpus, dam_result *r)
{
    int gpn = s->machine.gpus_per_node;
    if (gpus < gpn) {
        s->machine.gpus_per_node = gpus;
        s->machine.nodes = 1;
    } else {
        s->machine.nodes = (gpus + gpn - 1) / gpn;
        if (s->machine.nodes > 1 && !(s->machine.inter_busbw > 0.0))
            s->machine.inter_busbw = s->machine.intra_busbw > 0.0
                                         ? s->machine.intra_busbw / 2.0
                                         : 25e9;
    }
    dam_analytic_solve(s, r);
}

/* o's 90 % intervals: trial (the option's scenario at its GPU count)
 * solved in every draw; the share of draws that finish by the deadline;
 * cost at the option's own price. t: scratch, one entry per draw. */
static void option_interval(dam_draws *draws, const dam_scenario *trial,
                            double deadline, double *t, dam_plan_option *o)
{
    int nd = dam_draws_count(draws);
    dam_uncertainty_answer(draws, trial, trial, NULL, t, &o->interval);
    int ok = 0;
    for (int q = 0; q < nd; q++)
        ok += t[q] <= deadline;
    o->p_deadline = nd > 0 ? (double)ok / nd : 0.0;
    o->interval.cost_usd.lo = o->interval.gpu_hours.lo * o->price_hour;
    o->interval.cost_usd.median = o->interval.gpu_hours.median * o->price_hour;
    o->interval.cost_usd.hi = o->interval.gpu_hours.hi * o->price_hour;
}

/* A scenario with a parallel layout: the GPU count is not a free number
 * (the degrees multiply to it), so option o on cur's GPU is the layout
 * search's answer (solver/search.h) with the deadline: the fewest GPUs
 * whose fastest layout that fits finishes in time, and that layout. sr is
 * scratch. Returns DAM_OK or the search's error. */
static int plan_layout(const dam_scenario *cur, const dam_catalog *cat,
                       double deadline, dam_search_result *sr,
                       dam_plan_option *o, dam_layout *chosen,
                       dam_error *err)
{
    chosen->on = 0;
    dam_search_opts so;
    memset(&so, 0, sizeof so);
    so.deadline = deadline;
    int rc = dam_search_run(cur, cat, &so, sr, err);
    if (rc != DAM_OK)
        return rc;
    const dam_search_kind *k = &sr->kind[0];
    o->memory_capacity = cur->machine.gpu.mem_bytes;
    if (k->gpus <= 0 || k->nbest == 0) {
        /* nothing fits at any count, or nothing that fits is in time */
        o->fits_memory = k->have_base;
        if (k->have_base)
            *chosen = k->base.l;
        o->memory_bytes = k->have_base ? k->base.memory : 0.0;
        o->gpus = k->have_base ? (int)k->base_gpus : 0;
        o->run_time = k->have_base ? k->base.run_time : 0.0;
        o->mfu = k->have_base ? k->base.mfu : 0.0;
        o->tokens_per_s = o->run_time > 0.0
                              ? dam_quality_tokens(cur) / o->run_time
                              : 0.0;
        snprintf(o->note, sizeof o->note,
                 "no layout that fits finishes in time at any GPU count the "
                 "layout rules allow (the row: the scenario's count)");
        o->feasible = 0;
        return DAM_OK;
    }
    const dam_search_cand *c = &k->best[0];
    const dam_layout *l = &c->l;
    *chosen = *l;
    o->gpus = (int)c->gpus;
    o->run_time = c->run_time;
    o->mfu = c->mfu;
    o->fits_memory = c->fits;
    o->memory_bytes = c->memory;
    o->tokens_per_s = c->run_time > 0.0 ? dam_quality_tokens(cur) / c->run_time
                                        : 0.0;
    /* the search ranks only layouts that fit, at a count that makes it */
    o->feasible = c->fits && c->run_time > 0.0 && c->run_time <= deadline;
    snprintf(o->note, sizeof o->note,
             "layout tp %d cp %d pp %d dp %d ep %d, micro-batch %d, ZeRO %d, "
             "recompute %s (plan --search)",
             l->tp, l->cp, l->pp, l->dp, l->ep, l->micro_batch, l->zero,
             dam_recompute_name(l->recompute));
    return DAM_OK;
}

static int cmp_option(const void *a, const void *b)
{
    const dam_plan_option *x = a, *y = b;
    if (x->feasible != y->feasible)
        return y->feasible - x->feasible;
    int xp = x->cost_usd > 0.0, yp = y->cost_usd > 0.0;
    if (xp != yp)
        return yp - xp;
    if (xp && x->cost_usd != y->cost_usd)
        return x->cost_usd < y->cost_usd ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus - y->gpus;
    return strcmp(x->gpu, y->gpu);
}

/* Hold option o against the plan's budget: a dollar budget against its
 * cost (unknown without a price), a GPU-hour budget against its GPU-hours;
 * a FLOP budget is spent exactly by the compute-optimal model. An option
 * over the budget is not feasible. */
static void budget_check(const dam_plan *p, dam_plan_option *o)
{
    double have;
    if (p->kind == DAM_BUDGET_USD) {
        if (!(o->cost_usd > 0.0)) {
            o->over_budget = -1;
            return;
        }
        have = o->cost_usd;
    } else if (p->kind == DAM_BUDGET_GPU_HOURS) {
        have = o->gpu_hours;
    } else {
        return;
    }
    if (have > p->budget) {
        o->over_budget = 1;
        o->feasible = 0;
    }
}

/* An option on a scenario with a layout: the layout plan_layout picks,
 * its cost, and its interval (*sr: the search's scratch, made on first
 * use). */
static void layout_option(const dam_scenario *cur, const dam_catalog *cat,
                          double deadline, dam_search_result **sr,
                          dam_draws *draws, double *t, dam_plan_option *o)
{
    dam_error e2;
    memset(&e2, 0, sizeof e2);
    if (!*sr)
        *sr = dam_malloc(sizeof **sr);
    dam_layout chosen;
    if (plan_layout(cur, cat, deadline, *sr, o, &chosen, &e2) != DAM_OK) {
        snprintf(o->note, sizeof o->note, "no layout: %.140s", e2.msg);
        o->fits_memory = 1;
        o->feasible = 0;
    }
    dam_search_free(*sr);

    o->gpu_hours = o->gpus * o->run_time / 3600.0;
    o->cost_usd = o->price_hour > 0.0 ? o->gpu_hours * o->price_hour : 0.0;
    if (chosen.on && o->gpus > 0 && dam_uncertainty_sources(cur) > 0) {
        /* the row's layout at its count, solved in every draw */
        dam_scenario *trial = dam_malloc(sizeof *trial);
        *trial = *cur;
        trial->machine.nodes = o->gpus / cur->machine.gpus_per_node;
        trial->layout = chosen;
        trial->layout.on = 1;
        option_interval(draws, trial, deadline, t, o);
        dam_free(trial);
    }
}

/* An option with data parallelism only: whole nodes added until the run
 * meets the deadline (at most 1e6 GPUs), why it is not feasible, and its
 * interval (r: scratch). */
static void data_parallel_option(const dam_scenario *cur, double deadline,
                                 dam_draws *draws, double *t, dam_result *r,
                                 dam_plan_option *o)
{
    int gpn = cur->machine.gpus_per_node;
    int n = gpn;
    double limit = 1e6;
    for (int it = 0; it < 8; it++) {
        dam_scenario trial = *cur;
        solve_at(&trial, n, r);
        o->gpus = n;
        o->run_time = r->run_time;
        o->tokens_per_s = r->tokens_per_s;
        o->mfu = r->mfu;
        o->fits_memory = r->memory.fits;
        o->memory_bytes = r->memory.total;
        if (r->run_time <= deadline)
            break;
        double want = n * r->run_time / deadline * 1.02;
        int next = (int)ceil(want / gpn) * gpn;
        if (next <= n)
            next = n + gpn;
        if (next > limit) {
            n = -1;
            break;
        }
        n = next;
    }
    o->memory_capacity = cur->machine.gpu.mem_bytes;
    /* an option that does not fit is no option: never feasible, the
     * note says by how much it misses */
    o->feasible = n > 0 && o->run_time <= deadline && o->fits_memory;
    o->gpu_hours = o->gpus * o->run_time / 3600.0;
    o->cost_usd = o->price_hour > 0.0 ? o->gpu_hours * o->price_hour : 0.0;
    if (!o->fits_memory)
        snprintf(o->note, sizeof o->note,
                 "does not fit: needs %.3g GiB per GPU with data "
                 "parallelism only (ZeRO stage %d), holds %.3g GiB "
                 "(misses by %.3g GiB)",
                 o->memory_bytes / DAM_GIB, cur->workload.zero_stage,
                 o->memory_capacity / DAM_GIB,
                 (o->memory_bytes - o->memory_capacity) / DAM_GIB);
    else if (n <= 0 || o->run_time > deadline)
        snprintf(o->note, sizeof o->note,
                 "cannot finish by the deadline with up to %.0f GPUs "
                 "(communication grows with the job)",
                 limit);
    else if (!(o->price_hour > 0.0))
        snprintf(o->note, sizeof o->note, "no price for this GPU in "
                 "the scenario or the catalog");
    if (n > 0 && dam_uncertainty_sources(cur) > 0) {
        dam_scenario trial = *cur;
        solve_at(&trial, n, r);
        option_interval(draws, &trial, deadline, t, o);
    }
}

int dam_plan_budget(const dam_scenario *s, const dam_catalog *cat,
                    dam_budget_kind k, double budget, double deadline,
                    const dam_scaling_fit *fit, dam_plan *p, dam_error *err)
{
    memset(p, 0, sizeof *p);
    p->kind = k;
    p->budget = budget;
    p->deadline = deadline;
    p->fit = fit ? fit
                 : dam_scaling_fit_get((dam_scaling_fit_id)s->quality.fit);
    if (!p->fit)
        p->fit = dam_scaling_fit_get(DAM_SCALING_DEFAULT);
    if (s->mode != DAM_MODE_TRAINING)
        return dam_error_set(err, s->file, 0,
                             "plan --budget needs a training scenario, got "
                             "mode \"%s\"",
                             dam_mode_name(s->mode));
    if (!(budget > 0.0) || !isfinite(budget))
        return dam_error_set(err, s->file, 0, "the budget must be > 0");
    if (!(deadline > 0.0) || !isfinite(deadline))
        return dam_error_set(err, s->file, 0, "the deadline must be > 0");

    dam_scenario *base = dam_malloc(sizeof *base);
    dam_scenario *cur = dam_malloc(sizeof *cur);
    dam_result *r = dam_malloc(sizeof *r);
    int rc = DAM_OK;
    *base = *s;
    p->n_now = s->workload.model.params;
    p->d_now = dam_quality_tokens(s);
    p->loss_now = dam_scaling_loss(p->fit, p->n_now, p->d_now);

    /* The budget as FLOPs. */
    if (k == DAM_BUDGET_FLOPS) {
        p->flops = budget;
    } else {
        dam_analytic_solve(s, r);
        double per_gpu = r->model_flops_step / r->step; /* FLOP/s per GPU */
        double price = dam_gpu_price(s, &s->machine.gpu);
        double gh = budget;
        if (k == DAM_BUDGET_USD) {
            if (!(price > 0.0)) {
                rc = dam_error_set(err, s->file, 0,
                                   "a dollar budget needs a price: set "
                                   "cost.gpu_hour_usd");
                goto done;
            }
            gh = budget / price;
        }
        p->flops = gh * 3600.0 * per_gpu;
    }
    if (!(p->flops >= DAM_PLAN_MIN_FLOPS && p->flops <= DAM_PLAN_MAX_FLOPS)) {
        rc = dam_error_set(err, s->file, 0,
                           "the budget is %.3g FLOP of training compute; "
                           "plan --budget takes %.0e to %.0e FLOP (in dollars "
                           "or GPU-hours on this scenario's GPU, the same)",
                           p->flops, DAM_PLAN_MIN_FLOPS, DAM_PLAN_MAX_FLOPS);
        goto done;
    }

    /* Rescale the data to the budget, then move to the optimum. */
    if (!(p->d_now > 0.0) || !(p->n_now > 0.0)) {
        rc = dam_error_set(err, s->file, 0,
                           "the scenario has no training tokens to plan "
                           "from");
        goto done;
    }
    double scale = p->flops / dam_scaling_compute(p->n_now, p->d_now);
    base->data.epochs *= scale;
    if (base->quality.tokens > 0.0)
        base->quality.tokens *= scale;
    dam_lever lv;
    memset(&lv, 0, sizeof lv);
    snprintf(lv.name, sizeof lv.name, "compute-optimal");
    lv.nops = 1;
    dam_lever_op_init(&lv.ops[0], DAM_LEVER_CHINCHILLA);
    lv.ops[0].tokens_per_param = 0.0;
    lv.ops[0].fit = (int)p->fit->id;
    if ((rc = dam_lever_apply(base, &lv, cat, base, err)) != DAM_OK)
        goto done;
    p->n_opt = base->workload.model.params;
    p->d_opt = dam_quality_tokens(base);
    p->loss = dam_scaling_loss(p->fit, p->n_opt, p->d_opt);
    p->tokens_per_param = p->d_opt / p->n_opt;

    dam_search_result *sr = NULL; /* layouts: the search's scratch */
    dam_draws *draws = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, s->seed);
    double *t = dam_malloc((size_t)dam_draws_count(draws) * sizeof *t);
    for (size_t g = 0; g < cat->ngpus && p->noptions < DAM_PLAN_MAX; g++) {
        const dam_gpu *gpu = &cat->gpus[g];
        if (!(gpu->peak[s->workload.precision] > 0.0))
            continue;
        dam_lever gl;
        memset(&gl, 0, sizeof gl);
        snprintf(gl.name, sizeof gl.name, "%s", gpu->id);
        gl.nops = 1;
        dam_lever_op_init(&gl.ops[0], DAM_LEVER_GPU);
        snprintf(gl.ops[0].gpu, sizeof gl.ops[0].gpu, "%s", gpu->id);
        dam_error e;
        if (dam_lever_apply(base, &gl, cat, cur, &e) != DAM_OK)
            continue;
        dam_plan_option *o = &p->options[p->noptions++];
        memset(o, 0, sizeof *o);
        snprintf(o->gpu, sizeof o->gpu, "%s", gpu->id);
        o->price_hour = cur->cost.gpu_hour_usd; /* the gpu lever's price */
        if (cur->layout.on) {
            layout_option(cur, cat, deadline, &sr, draws, t, o);
            continue;
        }
        data_parallel_option(cur, deadline, draws, t, r, o);
    }
    for (int i = 0; i < p->noptions; i++)
        budget_check(p, &p->options[i]);
    qsort(p->options, (size_t)p->noptions, sizeof p->options[0], cmp_option);
    dam_free(sr);
    dam_free(t);
    dam_draws_free(draws);
done:
    dam_free(r);
    dam_free(cur);
    dam_free(base);
    return rc;
}
