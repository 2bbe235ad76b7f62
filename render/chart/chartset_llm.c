/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chartset_llm.c: the LLM serving charts of a chartset (chartset.h):
 *  - "llm_ttft" and "llm_tpot": TTFT and TPOT percentiles against offered
 *    load with each objective as the dashed line (the serving chart kind);
 *  - "llm_budget": output tokens/s per GPU against p99 TPOT, one labelled
 *    point per token budget (the labelled scatter of the RoC kind, no
 *    frontier segments);
 *  - "llm_cost": output tokens per dollar against the GPUs of each what-if
 *    option, labelled by option, filled when it meets both objectives.
 * The numbers come from results (cli/ runs the simulations); nothing is
 * computed here but unit conversions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/chart/chartset.h"

static void load_chart(dam_chartset *cs, int which, const double *rate,
                       const double *const y[3], size_t n, double slo,
                       const char *title, const char *name)
{
    static const char *const names[3] = {"p50", "p90", "p99"};
    for (int k = 0; k < 3; k++) {
        dam_chart_series *s = &cs->llm_series[which][k];
        s->label = names[k];
        s->x = rate;
        s->y = y[k];
        s->n = n;
    }
    snprintf(cs->llm_slo[which], sizeof cs->llm_slo[0], "%s objective %.3g "
             "ms", which == 0 ? "TTFT" : "TPOT", slo * 1e3);
    dam_chart_serving *c = &cs->llm_load[which];
    c->title = title;
    c->subtitle = which == 0 ? "time to first token" : "time per output "
                                                       "token";
    c->series = cs->llm_series[which];
    c->nseries = 3;
    c->slo = slo;
    c->slo_label = slo > 0.0 ? cs->llm_slo[which] : NULL;
    double lo = HUGE_VAL, hi = 0.0;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < n; i++) {
            lo = fmin(lo, y[k][i]);
            hi = fmax(hi, y[k][i]);
        }
    c->y_log = lo > 0.0 && hi / lo > 10.0;
    dam_chart *ch = dam_chartset_add(cs, DAM_CHART_SERVING, name);
    if (ch)
        ch->u.serving = c;
}

void dam_chartset_llm_load(dam_chartset *cs, const double *rate,
                           const double *const ttft[3],
                           const double *const tpot[3], size_t n,
                           double slo_ttft, double slo_tpot,
                           const char *title)
{
    if (n < 1)
        return;
    load_chart(cs, 0, rate, ttft, n, slo_ttft, title, "llm_ttft");
    load_chart(cs, 1, rate, tpot, n, slo_tpot, title, "llm_tpot");
}

/* Points 0..n-1 of cs->llm_pts (already filled) as scatter `which`. */
static void scatter(dam_chartset *cs, int which, size_t first, size_t n,
                    const char *title, const char *sub, const char *xt,
                    dam_axis_unit xu, const char *yt, const char *yname,
                    const char *front, const char *other, const char *name)
{
    dam_chart_roc *c = &cs->llm_scatter[which];
    memset(c, 0, sizeof *c);
    c->title = title;
    c->subtitle = sub;
    c->points = cs->llm_pts + first;
    c->npoints = n;
    c->x_title = xt;
    c->x_unit = xu;
    c->y_title = yt;
    c->y_unit = DAM_AXIS_SI;
    c->y_unit_name = yname;
    c->front_label = front;
    c->other_label = other;
    dam_chart *ch = dam_chartset_add(cs, DAM_CHART_ROC, name);
    if (ch)
        ch->u.roc = c;
}

void dam_chartset_llm_budget(dam_chartset *cs, const int *budget,
                             const double *tokens, const double *tpot,
                             size_t n, const char *title)
{
    size_t first = 0, k = 0;
    for (size_t i = 0; i < n && k < DAM_CHARTSET_BARS / 2; i++) {
        if (!(tokens[i] > 0.0) || !(tpot[i] > 0.0))
            continue;
        dam_chart_roc_point *p = &cs->llm_pts[first + k];
        snprintf(cs->llm_labels[first + k], sizeof cs->llm_labels[0],
                 "budget %d", budget[i]);
        p->label = cs->llm_labels[first + k];
        p->cost = tpot[i];
        p->quality = tokens[i];
        p->on_frontier = 1;
        k++;
    }
    if (k > 0)
        scatter(cs, 0, first, k, title,
                "throughput against time per token as the token budget "
                "varies (offered load above capacity)",
                "p99 time per output token", DAM_AXIS_SECONDS,
                "output tokens/s per GPU", "tokens/s",
                "token budget (new tokens per iteration)", NULL,
                "llm_budget");
}

void dam_chartset_llm_cost(dam_chartset *cs, const dam_whatif *w,
                           const char *title)
{
    size_t first = DAM_CHARTSET_BARS / 2, k = 0;
    for (int i = 0; i < w->nrows && k < DAM_CHARTSET_BARS / 2; i++) {
        const dam_whatif_row *r = &w->rows[i];
        const dam_llm_result *l = &r->result.serving.llm;
        if (r->verdict == DAM_VERDICT_FAILED || !l->enabled ||
            !r->result.memory.fits || !(l->cost_hour > 0.0) ||
            !(l->tokens_per_s > 0.0))
            continue;
        dam_chart_roc_point *p = &cs->llm_pts[first + k];
        if (i == 0)
            snprintf(cs->llm_labels[first + k], sizeof cs->llm_labels[0],
                     "%.36s (%.24s)", r->name, r->scenario.machine.gpu.id);
        else
            snprintf(cs->llm_labels[first + k], sizeof cs->llm_labels[0],
                     "%.63s", r->name);
        p->label = cs->llm_labels[first + k];
        p->cost = l->gpus;
        p->quality = l->tokens_per_s / (l->cost_hour / 3600.0);
        p->on_frontier = l->met;
        k++;
    }
    if (k > 0)
        scatter(cs, 1, first, k, title,
                "output tokens per dollar at the scenario's load, by GPU "
                "kind and count",
                "GPUs", DAM_AXIS_PLAIN, "output tokens per dollar",
                "tokens/$", "meets both objectives", "misses them",
                "llm_cost");
}
