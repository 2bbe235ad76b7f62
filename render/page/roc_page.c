/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * roc.c: the return-on-compute table of a points scenario (render/page/roc_page.h).
 * Gains are signed so that + is better; the legend says whether higher or
 * lower is better for the metric. Every number comes from dam_roc.
 */
#include "render/page/roc_page.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "render/out/json.h"

void dam_page_roc_answer(char *buf, size_t n, const dam_points *p,
                    const dam_roc *r)
{
    size_t len = 0;
    buf[0] = '\0';
    if (r->nfrontier < 2) {
        const dam_quality_point *c = &p->pts[r->cheapest];
        snprintf(buf, n, "%s is cheapest and no other option is better: "
                 "more cost buys nothing here", c->label);
        return;
    }
    for (size_t k = 0; k + 1 < r->nfrontier && len < n; k++) {
        const dam_quality_point *a = &p->pts[r->frontier[k]];
        const dam_quality_point *b = &p->pts[r->frontier[k + 1]];
        double gain = p->higher_is_better ? b->quality - a->quality
                                          : a->quality - b->quality;
        len += (size_t)snprintf(buf + len, n - len,
                                "%s%s -> %s: %+.4g %s for %+.4g %s, marginal "
                                "RoC %.3g",
                                k ? "; " : "", a->label, b->label, gain,
                                p->metric, b->cost - a->cost, p->cost_unit,
                                r->marginal[k]);
    }
    if (len < n && r->nfrontier >= 3) {
        double first = r->marginal[0];
        double last = r->marginal[r->nfrontier - 2];
        if (r->diminishing && last > 0.0)
            snprintf(buf + len, n - len, ": returns diminish (the last step "
                     "returns %.3gx less per unit of cost than the first)",
                     first / last);
        else if (r->diminishing)
            snprintf(buf + len, n - len, ": returns diminish");
        else
            snprintf(buf + len, n - len, ": returns do not diminish along "
                     "the frontier");
    }
}

void dam_page_roc_text(dam_buf *b, const dam_points *p, const dam_roc *r)
{
    char answer[1024];
    dam_page_roc_answer(answer, sizeof answer, p, r);
    const dam_quality_point *c = &p->pts[r->cheapest];
    dam_buf_printf(b, "%s\n", p->name);
    dam_buf_printf(b, "  %zu options, quality in %s (%s is better), cost in "
                      "%s (the user's numbers)\n",
                   p->n, p->metric, p->higher_is_better ? "higher" : "lower",
                   p->cost_unit);
    dam_buf_printf(b, "Question  %s\n", p->question);
    dam_buf_printf(b, "Answer    %s.\n\n", answer);
    dam_buf_printf(b, "%-24s %10s %10s %10s %10s %12s  %s\n", "option",
                   "quality", "cost", "gain", "extra cost", "RoC", "frontier");
    for (size_t i = 0; i < p->n; i++) {
        const dam_quality_point *x = &p->pts[i];
        char roc[24];
        if (i == r->cheapest)
            snprintf(roc, sizeof roc, "-");
        else if (r->roc_defined[i])
            snprintf(roc, sizeof roc, "%.4g", r->roc[i]);
        else
            snprintf(roc, sizeof roc, "same cost");
        dam_buf_printf(b, "%-24.24s %10.4g %10.4g %+10.4g %+10.4g %12s  %s\n",
                       x->label, x->quality, x->cost,
                       r->gain[i] == 0.0 ? 0.0 : r->gain[i],
                       r->extra_cost[i], roc,
                       r->on_frontier[i] ? "yes" : "no (dominated)");
    }
    dam_buf_printf(b, "\ngain and RoC are measured from %s, the cheapest "
                      "option; gain: + is better (%s %s); RoC: gain per %s "
                      "of extra cost\n",
                   c->label, p->higher_is_better ? "a higher" : "a lower",
                   p->metric, p->cost_unit);
    dam_buf_printf(b, "\nMarginal return along the frontier (%s per %s):\n",
                   p->metric, p->cost_unit);
    for (size_t k = 0; k < r->nfrontier; k++) {
        const dam_quality_point *x = &p->pts[r->frontier[k]];
        dam_buf_printf(b, "  %-24.24s cost %10.4g, quality %.4g", x->label,
                       x->cost, x->quality);
        if (k + 1 < r->nfrontier)
            dam_buf_printf(b, "   -> next: marginal RoC %+.4g\n",
                           r->marginal[k]);
        else
            dam_buf_printf(b, "\n");
    }
}

void dam_page_roc_csv(dam_buf *b, const dam_points *p, const dam_roc *r)
{
    dam_buf_printf(b, "option,quality,cost,gain,extra_cost,roc,on_frontier,"
                      "marginal_roc_to_next\n");
    for (size_t i = 0; i < p->n; i++) {
        dam_buf_printf(b, "\"");
        for (const char *c = p->pts[i].label; *c; c++)
            dam_buf_printf(b, *c == '"' ? "\"\"" : "%c", *c);
        dam_buf_printf(b, "\",%.9g,%.9g,%.9g,%.9g,", p->pts[i].quality,
                       p->pts[i].cost, r->gain[i], r->extra_cost[i]);
        if (r->roc_defined[i] && i != r->cheapest)
            dam_buf_printf(b, "%.9g", r->roc[i]);
        dam_buf_printf(b, ",%d,", r->on_frontier[i]);
        for (size_t k = 0; k + 1 < r->nfrontier; k++)
            if (r->frontier[k] == i)
                dam_buf_printf(b, "%.9g", r->marginal[k]);
        dam_buf_printf(b, "\n");
    }
}

struct json_t *dam_page_roc_json(const dam_points *p, const dam_roc *r)
{
    json_t *o = json_object();
    char answer[1024];
    dam_page_roc_answer(answer, sizeof answer, p, r);
    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "question", json_string(p->question));
    json_object_set_new(o, "answer", json_string(answer));
    json_object_set_new(o, "quality_metric", json_string(p->metric));
    json_object_set_new(o, "quality_higher_is_better",
                        json_boolean(p->higher_is_better));
    json_object_set_new(o, "cost_unit", json_string(p->cost_unit));
    json_object_set_new(o, "reference",
                        json_string(p->pts[r->cheapest].label));
    json_t *a = json_array();
    for (size_t i = 0; i < p->n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "option", json_string(p->pts[i].label));
        json_object_set_new(e, "quality", dam_json_num(p->pts[i].quality));
        json_object_set_new(e, "cost", dam_json_num(p->pts[i].cost));
        json_object_set_new(e, "quality_gain", dam_json_num(r->gain[i]));
        json_object_set_new(e, "extra_cost", dam_json_num(r->extra_cost[i]));
        json_object_set_new(e, "roc", r->roc_defined[i] && i != r->cheapest
                                          ? dam_json_num(r->roc[i])
                                          : json_null());
        json_object_set_new(e, "on_frontier",
                            json_boolean(r->on_frontier[i]));
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "options", a);
    json_t *f = json_array();
    for (size_t k = 0; k < r->nfrontier; k++) {
        json_t *e = json_object();
        json_object_set_new(e, "option",
                            json_string(p->pts[r->frontier[k]].label));
        json_object_set_new(e, "marginal_roc_to_next",
                            k + 1 < r->nfrontier
                                ? dam_json_num(r->marginal[k])
                                : json_null());
        json_array_append_new(f, e);
    }
    json_object_set_new(o, "frontier", f);
    json_object_set_new(o, "diminishing_returns",
                        json_boolean(r->diminishing));
    return o;
}
