/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chartset_plan.c: the charts of `damsim plan` (see chartset.h): the
 * layout search (time against cost per GPU kind, fitting or not, the
 * winner starred), the serving plans (GPUs against rate, the deployment's
 * limit under its objectives) and the budget plan (the compute-optimal
 * frontier, the budget and the chosen point). Titles are the answer; the
 * details go in the subtitle. Picks numbers, computes none: the frontier
 * comes from solver/plan_frontier.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "render/chart/chart_plan.h"
#include "render/chart/chartset.h"
#include "render/out/fmt.h"
#include "render/page/search_page.h"
#include "solver/plan_frontier.h"

#define PLAN_POINTS 6000 /* most candidates drawn (an even selection) */
#define PLAN_NAMED 40    /* most named points */
#define PLAN_LABEL 200
#define PLAN_LINES 12    /* most lines (a serving plan: a step per kind) */

/* What a plan's charts hold (owned by the chartset). */
typedef struct dam_chartset_plan {
    dam_chart_plan chart;
    dam_chart_plan_point pts[PLAN_POINTS + PLAN_NAMED];
    char labels[PLAN_NAMED][PLAN_LABEL];
    size_t nlabels;
    const char *groups[64];
    char group_names[64][DAM_ID_MAX];
    dam_chart_plan_line lines[PLAN_LINES];
    double lx[PLAN_LINES][DAM_PLAN_FRONTIER_POINTS],
        ly[PLAN_LINES][DAM_PLAN_FRONTIER_POINTS];
    double lp[DAM_PLAN_FRONTIER_POINTS];
    dam_chart_plan_ref refs[4];
    char ref_labels[4][PLAN_LABEL];
    char note[256];
} dam_chartset_plan;

/* Start cs as a plan's chart set: zeroed, its plan storage allocated. */
static dam_chartset_plan *plan_start(dam_chartset *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->plan = dam_calloc(1, sizeof *cs->plan);
    return cs->plan;
}

void dam_chartset_plan_release(dam_chartset *cs)
{
    dam_free(cs->plan);
    cs->plan = NULL;
}

static void plan_add(dam_chartset *cs, const char *name)
{
    dam_chart *c = dam_chartset_add(cs, DAM_CHART_PLAN, name);
    if (c)
        c->u.plan = &cs->plan->chart;
}

/* A labelled point (dropped when the labels are used up). */
static void named(dam_chartset_plan *p, double x, double y, size_t group,
                  int fits, dam_chart_plan_mark m, const char *label)
{
    if (p->nlabels >= PLAN_NAMED)
        return;
    char *l = p->labels[p->nlabels++];
    snprintf(l, PLAN_LABEL, "%s", label);
    p->pts[p->chart.npoints++] =
        (dam_chart_plan_point){x, y, group, fits, m, l};
}

static size_t group_of(dam_chartset_plan *p, const char *name)
{
    for (size_t g = 0; g < p->chart.ngroups; g++)
        if (strcmp(p->groups[g], name) == 0)
            return g;
    size_t g = p->chart.ngroups;
    if (g >= 64)
        return 0;
    snprintf(p->group_names[g], sizeof p->group_names[0], "%s", name);
    p->groups[g] = p->group_names[g];
    p->chart.ngroups++;
    return g;
}

/* ---- layout search --------------------------------------------------- */

/* The figures a layout chart plots: y the step (a fixed count) or the run
 * time (counts vary), x the cost (GPU-hours when a price is missing). */
typedef struct search_axes {
    int run;     /* 1: y is the run time */
    int hours;   /* 1: x is GPU-hours */
} search_axes;

static double sx(const search_axes *a, const dam_search_cand *c)
{
    return a->hours ? c->gpu_hours : c->cost;
}

static double sy(const search_axes *a, const dam_search_cand *c)
{
    return a->run ? c->run_time : c->step;
}

/* The same on the chart: a run time in days. */
static double py(const search_axes *a, const dam_search_cand *c)
{
    return a->run ? c->run_time / 86400.0 : c->step;
}

/* The fastest fitting candidate over all kinds (NULL: none fits). */
static const dam_search_cand *search_winner(const dam_search_result *r,
                                            const search_axes *a)
{
    const dam_search_cand *w = NULL;
    for (int k = 0; k < r->nkinds; k++)
        if (r->kind[k].nbest > 0 &&
            (!w || sy(a, &r->kind[k].best[0]) < sy(a, w)))
            w = &r->kind[k].best[0];
    return w;
}

/* The named points: per kind its fastest and cheapest fitting layouts
 * and the scenario's own; the winner starred. */
static void search_named(dam_chartset_plan *p, const dam_search_result *r,
                         const search_axes *a, const dam_search_cand *win)
{
    char name[96], lab[PLAN_LABEL];
    for (int k = 0; k < r->nkinds; k++) {
        const dam_search_kind *sk = &r->kind[k];
        size_t g = group_of(p, sk->gpu);
        if (sk->nbest > 0 && &sk->best[0] != win) {
            dam_page_layout_name(&sk->best[0].l, name, sizeof name);
            snprintf(lab, sizeof lab, "fastest on %s: %s", sk->gpu, name);
            named(p, sx(a, &sk->best[0]), py(a, &sk->best[0]), g, 1,
                  DAM_CHART_PLAN_NAMED, lab);
        }
        if (sk->ncheap > 0 && (sk->nbest == 0 ||
                               memcmp(&sk->cheap[0].l, &sk->best[0].l,
                                      sizeof sk->cheap[0].l) != 0)) {
            dam_page_layout_name(&sk->cheap[0].l, name, sizeof name);
            snprintf(lab, sizeof lab, "cheapest on %s: %s", sk->gpu, name);
            named(p, sx(a, &sk->cheap[0]), py(a, &sk->cheap[0]), g, 1,
                  DAM_CHART_PLAN_NAMED, lab);
        }
        if (sk->have_own && sx(a, &sk->own) > 0.0) {
            snprintf(lab, sizeof lab, "as configured%s",
                     sk->own.fits ? "" : " (does not fit)");
            named(p, sx(a, &sk->own), py(a, &sk->own), g, sk->own.fits,
                  DAM_CHART_PLAN_NAMED, lab);
        }
    }
    if (win) {
        dam_page_layout_name(&win->l, name, sizeof name);
        snprintf(lab, sizeof lab, "fastest: %s", name);
        named(p, sx(a, win), py(a, win), group_of(p, r->kind[win->kind].gpu),
              1, DAM_CHART_PLAN_WINNER, lab);
    }
}

/* Every candidate as a plain point (an even selection past PLAN_POINTS);
 * with no list (the text run), the listed layouts. */
static void search_plain(dam_chartset_plan *p, const dam_search_result *r,
                         const search_axes *a)
{
    size_t n = r->all ? r->nall : 0, step = n > PLAN_POINTS
                                                ? (n + PLAN_POINTS - 1) /
                                                      PLAN_POINTS
                                                : 1;
    for (size_t i = 0; i < n; i += step) {
        const dam_search_cand *c = &r->all[i];
        if (!(sx(a, c) > 0.0) || !(py(a, c) > 0.0))
            continue;
        p->pts[p->chart.npoints++] = (dam_chart_plan_point){
            sx(a, c), py(a, c), group_of(p, r->kind[c->kind].gpu), c->fits,
            DAM_CHART_PLAN_PLAIN, NULL};
    }
    for (int k = 0; n == 0 && k < r->nkinds; k++)
        for (int i = 0; i < r->kind[k].nbest; i++)
            p->pts[p->chart.npoints++] = (dam_chart_plan_point){
                sx(a, &r->kind[k].best[i]), py(a, &r->kind[k].best[i]),
                group_of(p, r->kind[k].gpu), 1, DAM_CHART_PLAN_PLAIN, NULL};
    if (step > 1)
        snprintf(p->note, sizeof p->note,
                 "One candidate in %zu drawn (%zu of %zu); the named ones "
                 "all.",
                 step, (n + step - 1) / step, n);
}

int dam_chartset_search(dam_chartset *cs, const dam_scenario *s,
                        const dam_search_opts *o, const dam_search_result *r,
                        dam_error *err)
{
    dam_chartset_plan *p = plan_start(cs);
    search_axes a = {o->deadline > 0.0 || o->budget > 0.0, 0};
    for (int k = 0; k < r->nkinds; k++)
        a.hours |= !(r->kind[k].price > 0.0);
    const dam_search_cand *win = search_winner(r, &a);
    for (int k = 0; k < r->nkinds; k++)
        group_of(p, r->kind[k].gpu);
    search_plain(p, r, &a);
    search_named(p, r, &a, win);
    if (p->chart.npoints == 0)
        return dam_error_set(err, s->file, 0,
                             "plan chart: no layout to draw (none costed)");
    char *title = cs->titles[cs->ntitles++];
    char *sub = cs->titles[cs->ntitles++];
    if (win) {
        char t[32], c[32], name[96];
        dam_fmt_time(t, sizeof t, sy(&a, win));
        if (a.hours)
            dam_fmt_value(c, sizeof c, win->gpu_hours, DAM_FMT_GPU_HOURS, 3);
        else
            dam_fmt_usd(c, sizeof c, win->cost, 3);
        dam_page_layout_name(&win->l, name, sizeof name);
        snprintf(title, sizeof cs->titles[0],
                 "Fastest layout that fits: %s on %lld %s, %s %s, %s%s",
                 name, (long long)win->gpus, r->kind[win->kind].gpu,
                 a.run ? "run" : "step", t, c, a.hours ? "" : " the run");
    } else {
        snprintf(title, sizeof cs->titles[0],
                 "No layout fits in GPU memory");
    }
    size_t fit = 0;
    for (int k = 0; k < r->nkinds; k++)
        fit += r->kind[k].fitting;
    snprintf(sub, sizeof cs->titles[0],
             "Layout search for %s: %zu layouts costed, %zu fit; each dot "
             "is a layout, the named ones are each GPU kind's fastest and "
             "cheapest and the scenario's own",
             s->name, r->evaluated, fit);
    dam_chart_plan *c = &p->chart;
    c->title = title;
    c->subtitle = sub;
    c->groups = p->groups;
    c->points = p->pts;
    c->x_title = a.hours ? "GPU-hours of the run" : "cost of the run";
    c->x_unit = a.hours ? DAM_AXIS_PLAIN : DAM_AXIS_USD;
    c->y_title = a.run ? "run time (days)" : "time per step";
    c->y_unit = a.run ? DAM_AXIS_PLAIN : DAM_AXIS_SECONDS;
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (size_t i = 0; i < c->npoints; i++) {
        xlo = fmin(xlo, c->points[i].x);
        xhi = fmax(xhi, c->points[i].x);
        ylo = fmin(ylo, c->points[i].y);
        yhi = fmax(yhi, c->points[i].y);
    }
    c->x_log = xhi > 20.0 * xlo;
    c->y_log = yhi > 20.0 * ylo;
    if (o->deadline > 0.0 && a.run) {
        char t[32];
        dam_fmt_time(t, sizeof t, o->deadline);
        snprintf(p->ref_labels[0], PLAN_LABEL, "deadline %s", t);
        p->refs[c->nrefs++] = (dam_chart_plan_ref){0, o->deadline / 86400.0,
                                                    p->ref_labels[0]};
    }
    if (o->budget > 0.0 && a.hours == o->budget_gpu_hours) {
        char b[32];
        if (a.hours)
            dam_fmt_value(b, sizeof b, o->budget, DAM_FMT_GPU_HOURS, 3);
        else
            dam_fmt_usd(b, sizeof b, o->budget, 3);
        snprintf(p->ref_labels[1], PLAN_LABEL, "budget %s", b);
        p->refs[c->nrefs++] = (dam_chart_plan_ref){1, o->budget,
                                                    p->ref_labels[1]};
    }
    c->refs = p->refs;
    c->note = p->note[0] ? p->note : NULL;
    plan_add(cs, "plan");
    return DAM_OK;
}

/* ---- budget ---------------------------------------------------------- */

#define ZFLOP 1e21 /* the budget chart's x unit */

/* A FLOP count as the command line takes it: "1e22", "2.5e23". */
static void flop_text(char *buf, size_t n, double v)
{
    int e = (int)floor(log10(v));
    double m = v / pow(10.0, e);
    if (m >= 9.995) {
        m /= 10.0;
        e++;
    }
    char mm[16];
    snprintf(mm, sizeof mm, "%.3g", m);
    snprintf(buf, n, "%se%d", mm, e);
}

int dam_chartset_budget(dam_chartset *cs, const dam_scenario *s,
                        const dam_plan *pl, dam_error *err)
{
    dam_chartset_plan *p = plan_start(cs);
    size_t n = dam_plan_frontier(pl, p->lx[0], p->lp, p->ly[0]);
    for (size_t i = 0; i < n; i++)
        p->lx[0][i] /= ZFLOP;
    if (n < 2)
        return dam_error_set(err, s->file, 0,
                             "plan chart: the scaling fit gives no "
                             "frontier around %g FLOP",
                             pl->flops);
    dam_chart_plan *c = &p->chart;
    p->lines[0] = (dam_chart_plan_line){"compute-optimal frontier (the "
                                        "lowest loss each compute reaches)",
                                        p->lx[0], p->ly[0], n,
                                        DAM_COLOR_BLUE, 0};
    c->lines = p->lines;
    c->nlines = 1;
    char np[32], nd[32], lab[PLAN_LABEL];
    dam_fmt_count(np, sizeof np, pl->n_opt);
    dam_fmt_count(nd, sizeof nd, pl->d_opt);
    snprintf(lab, sizeof lab, "chosen: %s parameters, %s tokens, loss %.3f",
             np, nd, pl->loss);
    named(p, pl->flops / ZFLOP, pl->loss, 0, 1, DAM_CHART_PLAN_WINNER,
          lab);
    double c_now = 6.0 * pl->n_now * pl->d_now;
    if (c_now > 0.0 && isfinite(c_now) && isfinite(pl->loss_now) &&
        pl->loss_now > 0.0) {
        dam_fmt_count(np, sizeof np, pl->n_now);
        dam_fmt_count(nd, sizeof nd, pl->d_now);
        snprintf(lab, sizeof lab, "the scenario's model: %s parameters, %s "
                                  "tokens, loss %.3f",
                 np, nd, pl->loss_now);
        named(p, c_now / ZFLOP, pl->loss_now, 1, 1, DAM_CHART_PLAN_NAMED,
              lab);
    }
    char fl[32];
    flop_text(fl, sizeof fl, pl->flops);
    snprintf(p->ref_labels[0], PLAN_LABEL, "budget %s FLOP", fl);
    p->refs[0] = (dam_chart_plan_ref){1, pl->flops / ZFLOP,
                                      p->ref_labels[0]};
    c->refs = p->refs;
    c->nrefs = 1;
    char *title = cs->titles[cs->ntitles++];
    char *sub = cs->titles[cs->ntitles++];
    dam_fmt_count(np, sizeof np, pl->n_opt);
    dam_fmt_count(nd, sizeof nd, pl->d_opt);
    snprintf(title, sizeof cs->titles[0],
             "For %s FLOP: a %s-parameter model on %s tokens (loss %.3f)",
             fl, np, nd, pl->loss);
    snprintf(sub, sizeof cs->titles[0],
             "%s: predicted loss of the compute-optimal model (%s fit, "
             "%.0f tokens per parameter at the budget) against training "
             "compute",
             s->name, pl->fit ? pl->fit->name : "default",
             pl->tokens_per_param);
    c->title = title;
    c->subtitle = sub;
    c->points = p->pts;
    c->x_title = "training compute (ZFLOP: 1e21 FLOP)";
    c->x_unit = DAM_AXIS_PLAIN;
    c->x_log = 1;
    c->y_title = "predicted loss (nats per token)";
    c->y_unit = DAM_AXIS_PLAIN;
    plan_add(cs, "plan");
    return DAM_OK;
}

/* ---- serving --------------------------------------------------------- */

/* Shared by both serving plans: the deployment's range of rates within the
 * objectives (a line at its GPUs from 0 to the top rate), the planned rate
 * (a reference), the options as points. */
static void serving_common(dam_chartset *cs, dam_chartset_plan *p,
                           double rate, double planned, int own_gpus,
                           int found, double max_rate, const char *slo)
{
    dam_chart_plan *c = &p->chart;
    char r[32];
    dam_fmt_num(r, sizeof r, planned, 3);
    snprintf(p->ref_labels[0], PLAN_LABEL, "planned rate %s/s", r);
    p->refs[c->nrefs++] = (dam_chart_plan_ref){1, planned, p->ref_labels[0]};
    if (found && max_rate > 0.0 && own_gpus > 0 && c->nlines < PLAN_LINES) {
        size_t l = c->nlines++;
        p->lx[l][0] = 0.0;
        p->lx[l][1] = max_rate;
        p->ly[l][0] = own_gpus;
        p->ly[l][1] = own_gpus;
        snprintf(p->ref_labels[1], PLAN_LABEL,
                 "the scenario's deployment: rates within %s", slo);
        p->lines[l] = (dam_chart_plan_line){p->ref_labels[1], p->lx[l],
                                            p->ly[l], 2, DAM_COLOR_GREY, 1};
        char lab[PLAN_LABEL];
        dam_fmt_num(r, sizeof r, max_rate, 3);
        snprintf(lab, sizeof lab, "its limit: %s/s", r);
        named(p, max_rate, own_gpus, group_of(p, "the scenario's "
                                                 "deployment"),
              1, DAM_CHART_PLAN_NAMED, lab);
    }
    (void)rate;
    c->lines = c->nlines ? p->lines : NULL;
    c->refs = p->refs;
    c->points = p->pts;
    c->groups = p->groups;
    c->x_title = "offered load (requests per second)";
    c->x_unit = DAM_AXIS_PLAIN;
    c->y_title = "GPUs";
    c->y_unit = DAM_AXIS_PLAIN;
    c->nofit_label = "cannot meet the objectives";
    c->note = p->note[0] ? p->note : NULL;
    plan_add(cs, "plan");
}

/* The GPUs a kind needs as the rate grows, as steps from 0 to xmax: the
 * plan met the objectives at a rate on some replicas of per_replica GPUs,
 * so each replica carries `share` (that rate over the replicas; the
 * scenario's own deployment: the highest rate it sustains over its
 * replicas) and a rate x takes ceil(x / share) replicas (an upper bound:
 * one replica fewer might do). Unlabelled (the group's legend names it),
 * in the group's colour; left out when the lines are used up. */
static void serving_steps(dam_chartset_plan *p, size_t group, double share,
                          int per_replica, double xmax)
{
    dam_chart_plan *c = &p->chart;
    if (c->nlines >= PLAN_LINES || per_replica <= 0 || !(share > 0.0) ||
        !isfinite(share))
        return;
    size_t l = c->nlines++, n = 0;
    for (int k = 1; n + 2 <= DAM_PLAN_FRONTIER_POINTS; k++) {
        double x0 = (k - 1) * share, x1 = fmin(k * share, xmax);
        p->lx[l][n] = x0;
        p->ly[l][n++] = (double)k * per_replica;
        p->lx[l][n] = x1;
        p->ly[l][n++] = (double)k * per_replica;
        if (x1 >= xmax)
            break;
    }
    p->lines[l] = (dam_chart_plan_line){NULL, p->lx[l], p->ly[l], n,
                                        dam_draw_series_color(group), 0};
}

/* An option of a serving plan. The lead option of a priced kind (its
 * cheapest, or the plan's choice) is named with its cost and drawn with
 * its kind's steps up to xmax; the kind's other options are plain points
 * in its colour; an unpriced kind's options are plain points of one group
 * (so a catalog of twenty kinds stays legible). */
typedef struct serving_opt {
    double rate;      /* the rate planned at, 1/s */
    double share;     /* the rate one replica carries, 1/s (0: rate /
                         replicas) */
    int replicas;     /* replicas meeting the objectives there */
    int per_replica;  /* GPUs per replica */
    const char *gpu;  /* its kind */
    int priced, chosen, lead;
    const char *label;
} serving_opt;

static void serving_option(dam_chartset_plan *p, const serving_opt *o,
                           double xmax)
{
    int gpus = o->replicas * o->per_replica;
    if (!o->priced && !o->chosen) {
        p->pts[p->chart.npoints++] = (dam_chart_plan_point){
            o->rate, gpus, group_of(p, "other GPU kinds (no price listed)"),
            1, DAM_CHART_PLAN_PLAIN, NULL};
        return;
    }
    size_t g = group_of(p, o->gpu);
    if (!o->lead && !o->chosen) {
        p->pts[p->chart.npoints++] = (dam_chart_plan_point){
            o->rate, gpus, g, 1, DAM_CHART_PLAN_PLAIN, NULL};
        return;
    }
    serving_steps(p, g, o->share > 0.0 ? o->share : o->rate / o->replicas,
                  o->per_replica, xmax);
    named(p, o->rate, gpus, g, 1,
          o->chosen ? DAM_CHART_PLAN_WINNER : DAM_CHART_PLAN_NAMED, o->label);
}

/* How far the steps run: twice the planned rate, or to the deployment's
 * limit when that is farther. */
static double steps_end(double at, int found, double max_rate)
{
    return fmax(2.0 * at, found ? max_rate : 0.0);
}

/* The note of the options left off (no count meets the objectives). */
static void left_out(dam_chartset_plan *p, int n, const char *what)
{
    if (n > 0)
        snprintf(p->note, sizeof p->note,
                 "Not drawn: %d %s where no count meets the objectives.", n,
                 what);
}

int dam_chartset_capacity(dam_chartset *cs, const dam_scenario *s,
                          const dam_capacity_result *pl, dam_error *err)
{
    dam_chartset_plan *p = plan_start(cs);
    int best = -1, missed = 0;
    for (int i = 0; i < pl->noptions; i++) {
        const dam_capacity_option *o = &pl->options[i];
        if (!o->supported)
            continue;
        if (!o->feasible || o->replicas <= 0) {
            missed++;
            continue;
        }
        char lab[PLAN_LABEL], k[32];
        dam_fmt_usd(k, sizeof k, o->cost_per_1k * 1000.0, 3);
        snprintf(lab, sizeof lab, "%s x %d%s%s%s", o->gpu, o->replicas,
                 o->price_hour > 0.0 ? ": " : "",
                 o->price_hour > 0.0 ? k : "",
                 o->price_hour > 0.0 ? " per M requests" : "");
        int win = best < 0, lead = 1;
        if (win)
            best = i;
        for (int j = 0; j < i && lead; j++)
            lead = !(pl->options[j].supported && pl->options[j].feasible &&
                     strcmp(pl->options[j].gpu, o->gpu) == 0);
        int own = pl->max_rate_found && s->serving.replicas > 0 &&
                  strcmp(o->gpu, s->machine.gpu.id) == 0;
        serving_opt so = {pl->rate,
                          own ? pl->max_rate / s->serving.replicas : 0.0,
                          o->replicas, 1, o->gpu, o->price_hour > 0.0, win,
                          lead, lab};
        serving_option(p, &so,
                       steps_end(pl->rate, pl->max_rate_found,
                                 pl->max_rate));
    }
    left_out(p, missed, "GPU kinds");
    char slo[48], r[32], *title = cs->titles[cs->ntitles++],
                        *sub = cs->titles[cs->ntitles++];
    char t[32];
    dam_fmt_time(t, sizeof t, pl->slo_s);
    snprintf(slo, sizeof slo, "p99 %s", t);
    dam_fmt_num(r, sizeof r, pl->rate, 3);
    if (best >= 0)
        snprintf(title, sizeof cs->titles[0],
                 "Cheapest for %s requests/s within %s: %d x %s", r, slo,
                 pl->options[best].replicas, pl->options[best].gpu);
    else
        snprintf(title, sizeof cs->titles[0],
                 "No GPU serves %s requests/s within %s", r, slo);
    snprintf(sub, sizeof cs->titles[0],
             "%s: the fewest GPUs of each kind that meet the SLO with "
             "headroom at the planned rate; steps: GPUs enough for each "
             "rate, a replica per rate one was shown to meet",
             s->name);
    p->chart.title = title;
    p->chart.subtitle = sub;
    if (p->chart.npoints == 0 && !pl->max_rate_found)
        return dam_error_set(err, s->file, 0,
                             "plan chart: no GPU meets the SLO and the "
                             "deployment meets it at no rate");
    serving_common(cs, p, pl->rate, pl->rate, s->serving.replicas,
                   pl->max_rate_found, pl->max_rate, slo);
    return DAM_OK;
}

int dam_chartset_llm_plan(dam_chartset *cs, const dam_scenario *s,
                          const dam_llm_plan *pl, dam_error *err)
{
    dam_chartset_plan *p = plan_start(cs);
    double at = pl->rate * (1.0 + pl->headroom);
    int missed = 0;
    for (int i = 0; i < pl->noptions; i++) {
        const dam_llm_plan_option *o = &pl->options[i];
        if (!o->usable)
            continue;
        if (!o->feasible || o->gpus <= 0) {
            missed++;
            continue;
        }
        char lab[PLAN_LABEL], k[32];
        dam_fmt_usd(k, sizeof k, o->cost_per_mtok, 3);
        snprintf(lab, sizeof lab, "%s x %d (TP%d)%s%s%s", o->gpu, o->gpus,
                 o->tp, o->price_hour > 0.0 ? ": " : "",
                 o->price_hour > 0.0 ? k : "",
                 o->price_hour > 0.0 ? " per M output tokens" : "");
        /* its kind's lead: the plan's choice, else the cheapest */
        int lead = pl->best < 0 || i == pl->best ||
                   strcmp(pl->options[pl->best].gpu, o->gpu) != 0;
        for (int j = 0; j < i && lead; j++)
            lead = !(pl->options[j].usable && pl->options[j].feasible &&
                     pl->options[j].gpus > 0 &&
                     strcmp(pl->options[j].gpu, o->gpu) == 0);
        if (i == pl->best)
            lead = 1;
        /* the scenario's own replica: the highest rate it sustains */
        int own = pl->max_rate_found && s->serving.replicas > 0 &&
                  o->tp == (s->serving.llm.tp > 0 ? s->serving.llm.tp : 1) &&
                  strcmp(o->gpu, s->machine.gpu.id) == 0;
        serving_opt so = {at, own ? pl->max_rate / s->serving.replicas : 0.0,
                          o->replicas, o->tp, o->gpu, o->price_hour > 0.0,
                          i == pl->best, lead, lab};
        serving_option(p, &so,
                       steps_end(at, pl->max_rate_found, pl->max_rate));
    }
    left_out(p, missed, "GPU kind and tensor-parallel pairs");
    char slo[96], t1[32], t2[32], r[32];
    dam_fmt_time(t1, sizeof t1, pl->slo_ttft_s);
    dam_fmt_time(t2, sizeof t2, pl->slo_tpot_s);
    snprintf(slo, sizeof slo, "TTFT %s and TPOT %s", t1, t2);
    dam_fmt_num(r, sizeof r, pl->rate, 3);
    char *title = cs->titles[cs->ntitles++], *sub = cs->titles[cs->ntitles++];
    if (pl->best >= 0)
        snprintf(title, sizeof cs->titles[0],
                 "Cheapest for %s requests/s within %s: %d x %s (TP%d)", r,
                 slo, pl->options[pl->best].gpus, pl->options[pl->best].gpu,
                 pl->options[pl->best].tp);
    else
        snprintf(title, sizeof cs->titles[0],
                 "No GPU serves %s requests/s within %s", r, slo);
    snprintf(sub, sizeof cs->titles[0],
             "%s: the fewest GPUs per kind and TP degree meeting both "
             "objectives at p%.0f, %.0f %% above the rate; steps: GPUs "
             "enough for each rate, a replica per rate one was shown to "
             "meet",
             s->name, pl->quantile * 100.0, pl->headroom * 100.0);
    p->chart.title = title;
    p->chart.subtitle = sub;
    if (p->chart.npoints == 0 && !pl->max_rate_found)
        return dam_error_set(err, s->file, 0,
                             "plan chart: no GPU meets the objectives and "
                             "the deployment meets them at no rate");
    int own = s->serving.replicas * (s->serving.llm.tp > 0
                                         ? s->serving.llm.tp
                                         : 1);
    serving_common(cs, p, pl->rate, at, own, pl->max_rate_found,
                   pl->max_rate, slo);
    return DAM_OK;
}
