/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.c: the layout search's report (see search.h). The text lists
 * only layouts that fit in memory; the JSON and CSV list every candidate
 * with what it needs and by how much it misses.
 */
#include "render/page/search_page.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/out/json.h"
#include "render/out/fmt.h"

void dam_page_layout_name(const dam_layout *l, char *buf, size_t n)
{
    char cp[16] = "", ep[16] = "", v[16] = "";
    if (l->cp > 1)
        snprintf(cp, sizeof cp, " cp %d", l->cp);
    if (l->ep > 1)
        snprintf(ep, sizeof ep, " ep %d", l->ep);
    if (l->vpp > 1)
        snprintf(v, sizeof v, " v %d", l->vpp);
    snprintf(buf, n, "tp %d%s pp %d%s dp %d%s mb %d zero %d %s", l->tp, cp,
             l->pp, v, l->dp, ep, l->micro_batch, l->zero,
             dam_recompute_name(l->recompute));
}

static const char *term_short(int t)
{
    switch (t) {
    case DAM_TERM_DATA: return "data wait";
    case DAM_TERM_TRANSFER: return "transfer";
    case DAM_TERM_COMPUTE: return "compute";
    case DAM_TERM_COMM: return "communication";
    case DAM_TERM_OVERHEAD: return "overhead";
    case DAM_TERM_WAIT: return "waiting (pipeline bubble, slower ranks)";
    default: return "?";
    }
}

static int largest_term(const dam_search_cand *c)
{
    int best = DAM_TERM_COMPUTE;
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        if (c->terms[t] > c->terms[best])
            best = t;
    return best;
}

/* Dollars at the model's precision; "n/a" when the price is unknown. */
static void usd(char *buf, size_t n, double v)
{
    if (v > 0.0)
        dam_fmt_usd(buf, n, v, DAM_FMT_SIG);
    else
        snprintf(buf, n, "n/a");
}

static void row(dam_buf *b, int rank, const dam_search_cand *c)
{
    char name[96], step[32], run[32], mem[32], cost[32], mfu[16];
    dam_page_layout_name(&c->l, name, sizeof name);
    dam_fmt_time(step, sizeof step, c->step);
    dam_fmt_time(run, sizeof run, c->run_time);
    dam_fmt_memory(mem, sizeof mem, c->memory);
    dam_fmt_pct(mfu, sizeof mfu, c->mfu, DAM_FMT_SIG);
    usd(cost, sizeof cost, c->cost);
    if (rank > 0)
        dam_buf_printf(b, "  %2d  ", rank);
    else
        dam_buf_printf(b, "      ");
    dam_buf_printf(b, "%-46s %9s %9s %7s %9s %12s  %s\n", name, step, run,
                   mfu, mem, cost, term_short(largest_term(c)));
    if (c->has_interval) {
        char r1[32], r2[32], c1[32], c2[32];
        dam_fmt_time(r1, sizeof r1, c->run_iv.lo);
        dam_fmt_time(r2, sizeof r2, c->run_iv.hi);
        dam_buf_printf(b, "        90 %%: run %s to %s", r1, r2);
        if (c->cost > 0.0) {
            usd(c1, sizeof c1, c->cost_iv.lo);
            usd(c2, sizeof c2, c->cost_iv.hi);
            dam_buf_printf(b, ", cost %s to %s", c1, c2);
        }
        dam_buf_printf(b, "\n");
    }
}

/* What a term's saving is called, and its growth. */
static const char *term_more(int t)
{
    switch (t) {
    case DAM_TERM_DATA: return "data wait";
    case DAM_TERM_TRANSFER: return "exposed transfer";
    case DAM_TERM_COMPUTE: return "GPU work";
    case DAM_TERM_COMM: return "exposed communication";
    case DAM_TERM_OVERHEAD: return "overhead";
    case DAM_TERM_WAIT: return "waiting (pipeline bubble)";
    default: return "?";
    }
}

static const char *term_less(int t)
{
    switch (t) {
    case DAM_TERM_DATA: return "less data wait";
    case DAM_TERM_TRANSFER: return "less exposed transfer";
    case DAM_TERM_COMPUTE: return "less GPU work";
    case DAM_TERM_COMM: return "less exposed communication";
    case DAM_TERM_OVERHEAD: return "less overhead";
    case DAM_TERM_WAIT: return "less waiting (pipeline bubble)";
    default: return "?";
    }
}

static void why(dam_buf *b, const char *who, const dam_search_cand *a,
                const dam_search_cand *o)
{
    double saves;
    int t = dam_search_why(a, o, &saves);
    char d[32], st[32];
    dam_fmt_time(d, sizeof d, saves);
    dam_fmt_time(st, sizeof st, o->step - a->step);
    if (!(o->step > a->step) || !(saves > 0.0)) {
        dam_buf_printf(b, "  %s is no slower than the winner\n", who);
        return;
    }
    double diff = o->step - a->step;
    if (saves > diff * (1.0 + 1e-9)) {
        /* the term saves more than the whole difference: name what the
         * winner pays back elsewhere (terms sum to the step) */
        int w = t;
        double more = 0.0;
        for (int k = 0; k < DAM_TERM_COUNT; k++) {
            double x = a->terms[k] - o->terms[k];
            if (x > more) {
                more = x;
                w = k;
            }
        }
        char m[32];
        dam_fmt_time(m, sizeof m, more);
        dam_buf_printf(b, "  why #1 wins over %s: %s faster per step: %s "
                          "%s, against %s more %s\n",
                       who, st, d, term_less(t), m, term_more(w));
        return;
    }
    dam_buf_printf(b, "  why #1 wins over %s: %s faster per step, %s (%s) "
                      "%s\n",
                   who, st, saves >= 0.5 * diff ? "most of it" : "the largest part",
                   d, term_less(t));
}

/* In a search at a fixed count, the answer to the scenario's own
 * deadline (scenario.deadline_days): does the fastest layout make it? */
static void scenario_deadline(dam_buf *b, const dam_scenario *s,
                              const dam_search_cand *fastest)
{
    char run[32], dl[32];
    dam_fmt_time(run, sizeof run, fastest->run_time);
    dam_fmt_time(dl, sizeof dl, s->deadline);
    if (fastest->run_time <= s->deadline)
        dam_buf_printf(b, "  the scenario's deadline of %s: yes, #1 takes "
                          "%s\n",
                       dl, run);
    else
        dam_buf_printf(b, "  the scenario's deadline of %s: no, even #1 "
                          "takes %s (--deadline %gd finds the fewest GPUs "
                          "that make it)\n",
                       dl, run, s->deadline / 86400.0);
}

void dam_page_search_text(dam_buf *b, const dam_scenario *s,
                     const dam_search_opts *o, const dam_search_result *r)
{
    char cap[32], dl[32];
    dam_buf_printf(b, "Layout search: %s, global batch %.0f sequences of "
                      "%.0f tokens\n",
                   s->workload.model.name, dam_scenario_global_batch(s),
                   s->workload.seq_len);
    if (s->applied[0])
        dam_buf_printf(b, "  with %s\n", s->applied);
    if (o->deadline > 0.0) {
        dam_fmt_time(dl, sizeof dl, o->deadline);
        dam_buf_printf(b, "  the fewest GPUs whose fastest layout finishes "
                          "the run within %s\n",
                       dl);
    }
    if (o->budget > 0.0)
        dam_buf_printf(b, "  only runs costing at most %g %s\n", o->budget,
                       o->budget_gpu_hours ? "GPU-hours" : "USD");
    for (int i = 0; i < r->nkinds; i++) {
        const dam_search_kind *k = &r->kind[i];
        if (o->deadline > 0.0 && k->have_base) {
            char run[32], name[96];
            dam_fmt_time(run, sizeof run, k->base.run_time);
            dam_page_layout_name(&k->base.l, name, sizeof name);
            dam_buf_printf(b, "\n%s x %lld (the scenario's count): %s, the "
                              "fastest layout that fits (%s) takes %s\n",
                           k->gpu, (long long)k->base_gpus,
                           k->base.run_time <= o->deadline ? "yes" : "no",
                           name, run);
        } else if (o->deadline > 0.0) {
            dam_buf_printf(b, "\n%s x %lld (the scenario's count): no "
                              "layout fits in memory\n",
                           k->gpu, (long long)k->base_gpus);
        }
        dam_buf_printf(b, "\n%s", k->gpu);
        if (k->gpus == 0) {
            dam_buf_printf(b, ": no GPU count up to %d finishes in time\n",
                           DAM_MAX_GPUS);
            continue;
        }
        dam_fmt_memory(cap, sizeof cap, s->machine.gpu.mem_bytes);
        dam_buf_printf(b, " x %lld: %zu layouts costed, %zu fit in memory\n",
                       (long long)k->gpus, k->evaluated, k->fitting);
        if (k->evaluated == 0) {
            dam_buf_printf(b, "  no layout: no split of %lld GPUs keeps the "
                              "layout rules (dp x micro-batch dividing the "
                              "global batch of %.0f sequences, tp the heads, "
                              "pp the blocks, ep the experts)\n",
                           (long long)k->gpus, dam_scenario_global_batch(s));
            continue;
        }
        if (k->nbest == 0) {
            dam_buf_printf(b, "  no layout fits%s\n",
                           o->budget > 0.0 ? " within the budget" : "");
            continue;
        }
        dam_buf_printf(b, "  %-50s %9s %9s %7s %9s %12s  %s\n",
                       "fastest layouts that fit", "step", "run", "MFU",
                       "memory", "cost", "largest term");
        int n = k->nbest < 5 ? k->nbest : 5;
        for (int j = 0; j < n; j++)
            row(b, j + 1, &k->best[j]);
        if (s->deadline > 0.0 && !(o->deadline > 0.0))
            scenario_deadline(b, s, &k->best[0]);
        if (k->have_own) {
            dam_buf_printf(b, "  the scenario's own layout%s:\n",
                           k->own.fits ? "" : " (does NOT fit)");
            row(b, 0, &k->own);
            if (!k->own.fits) {
                char miss[32];
                dam_fmt_memory(miss, sizeof miss, k->own.shortfall);
                dam_buf_printf(b, "      misses the GPU's memory by %s\n",
                               miss);
            }
        }
        if (k->have_alt) {
            char an[96];
            dam_page_layout_name(&k->alt.l, an, sizeof an);
            dam_buf_printf(b, "  the fastest of another shape: %s\n", an);
            why(b, "it", &k->best[0], &k->alt);
        }
        if (k->have_own && k->own.fits)
            why(b, "the scenario's own", &k->best[0], &k->own);
        if (k->ncheap > 0 &&
            memcmp(&k->cheap[0].l, &k->best[0].l, sizeof k->best[0].l) != 0) {
            dam_buf_printf(b, "  cheapest:\n");
            row(b, 1, &k->cheap[0]);
        }
    }
    /* across kinds: the fastest and the cheapest */
    int fi = -1, ci = -1;
    for (int i = 0; i < r->nkinds; i++) {
        const dam_search_kind *k = &r->kind[i];
        if (k->nbest > 0 &&
            (fi < 0 || k->best[0].run_time < r->kind[fi].best[0].run_time))
            fi = i;
        if (k->ncheap > 0 && k->cheap[0].cost > 0.0 &&
            (ci < 0 || k->cheap[0].cost < r->kind[ci].cheap[0].cost))
            ci = i;
    }
    if (r->nkinds > 1 && fi >= 0) {
        char run[32], cost[32];
        dam_fmt_time(run, sizeof run, r->kind[fi].best[0].run_time);
        dam_buf_printf(b, "\nfastest: %s x %lld, %s\n", r->kind[fi].gpu,
                       (long long)r->kind[fi].gpus, run);
        if (ci >= 0) {
            usd(cost, sizeof cost, r->kind[ci].cheap[0].cost);
            dam_buf_printf(b, "cheapest: %s x %lld, %s\n", r->kind[ci].gpu,
                           (long long)r->kind[ci].gpus, cost);
        }
    }
    dam_buf_printf(b, "\n%zu layouts costed in all; --json or --csv lists "
                      "every one, fitting or not\n",
                   r->evaluated);
}

static json_t *cand_json(const dam_search_result *r, const dam_search_cand *c)
{
    const dam_layout *l = &c->l;
    json_t *o = json_object();
    json_object_set_new(o, "gpu", json_string(r->kind[c->kind].gpu));
    json_object_set_new(o, "gpus", json_integer((json_int_t)c->gpus));
    json_object_set_new(o, "tp", json_integer(l->tp));
    json_object_set_new(o, "pp", json_integer(l->pp));
    json_object_set_new(o, "dp", json_integer(l->dp));
    json_object_set_new(o, "cp", json_integer(l->cp));
    json_object_set_new(o, "ep", json_integer(l->ep));
    json_object_set_new(o, "vpp", json_integer(l->vpp));
    json_object_set_new(o, "micro_batch", json_integer(l->micro_batch));
    json_object_set_new(o, "micro_batches", json_integer(l->micro_batches));
    json_object_set_new(o, "zero", json_integer(l->zero));
    json_object_set_new(o, "recompute",
                        json_string(dam_recompute_name(l->recompute)));
    json_object_set_new(o, "schedule",
                        json_string(dam_pp_schedule_name(l->schedule)));
    json_object_set_new(o, "sequence_parallel", json_boolean(l->sp));
    json_object_set_new(o, "fits", json_boolean(c->fits));
    json_object_set_new(o, "memory_bytes", dam_json_num(c->memory));
    json_object_set_new(o, "shortfall_bytes", dam_json_num(c->shortfall));
    json_object_set_new(o, "step_s", dam_json_num(c->step));
    json_object_set_new(o, "run_s", dam_json_num(c->run_time));
    json_object_set_new(o, "gpu_hours", dam_json_num(c->gpu_hours));
    json_object_set_new(o, "cost_usd", dam_json_num(c->cost));
    json_object_set_new(o, "mfu", dam_json_num(c->mfu));
    if (c->has_interval) {
        /* 90 % intervals over the calibrated constants and the model's
         * error, of the figures above */
        json_t *iv = json_object();
        const dam_interval *v[3] = {&c->step_iv, &c->run_iv, &c->cost_iv};
        static const char *const nm[3] = {"step_s", "run_s", "cost_usd"};
        for (int i = 0; i < 3; i++) {
            if (i == 2 && !(c->cost > 0.0))
                continue;
            json_t *x = json_object();
            json_object_set_new(x, "p05", dam_json_num(v[i]->lo));
            json_object_set_new(x, "p95", dam_json_num(v[i]->hi));
            json_object_set_new(iv, nm[i], x);
        }
        json_object_set_new(o, "intervals_90", iv);
    }
    json_t *t = json_object();
    for (int i = 0; i < DAM_TERM_COUNT; i++)
        json_object_set_new(t, dam_term_name((dam_term)i),
                            dam_json_num(c->terms[i]));
    json_object_set_new(o, "terms_s", t);
    return o;
}

json_t *dam_page_search_json(const dam_scenario *s, const dam_search_opts *o,
                        const dam_search_result *r)
{
    json_t *root = json_object();
    json_object_set_new(root, "scenario", json_string(s->name));
    json_object_set_new(root, "file", json_string(s->file));
    json_object_set_new(root, "model", json_string(s->workload.model.id));
    json_object_set_new(root, "global_batch",
                        dam_json_num(dam_scenario_global_batch(s)));
    if (o->deadline > 0.0)
        json_object_set_new(root, "deadline_s", dam_json_num(o->deadline));
    if (s->deadline > 0.0)
        json_object_set_new(root, "scenario_deadline_s",
                            dam_json_num(s->deadline));
    if (o->budget > 0.0)
        json_object_set_new(root, o->budget_gpu_hours ? "budget_gpu_hours"
                                                      : "budget_usd",
                            dam_json_num(o->budget));
    json_t *kinds = json_array();
    for (int i = 0; i < r->nkinds; i++) {
        const dam_search_kind *k = &r->kind[i];
        json_t *ko = json_object();
        json_object_set_new(ko, "gpu", json_string(k->gpu));
        json_object_set_new(ko, "gpus", json_integer((json_int_t)k->gpus));
        json_object_set_new(ko, "gpu_hour_usd", dam_json_num(k->price));
        json_object_set_new(ko, "evaluated",
                            json_integer((json_int_t)k->evaluated));
        json_object_set_new(ko, "fitting", json_integer((json_int_t)k->fitting));
        json_t *best = json_array(), *cheap = json_array();
        for (int j = 0; j < k->nbest; j++)
            json_array_append_new(best, cand_json(r, &k->best[j]));
        for (int j = 0; j < k->ncheap; j++)
            json_array_append_new(cheap, cand_json(r, &k->cheap[j]));
        json_object_set_new(ko, "fastest", best);
        if (s->deadline > 0.0)
            json_object_set_new(ko, "fastest_meets_scenario_deadline",
                                json_boolean(k->nbest > 0 &&
                                             k->best[0].run_time <=
                                                 s->deadline));
        if (o->deadline > 0.0) {
            json_object_set_new(ko, "scenario_gpus",
                                json_integer((json_int_t)k->base_gpus));
            json_object_set_new(ko, "scenario_gpus_fastest",
                                k->have_base ? cand_json(r, &k->base)
                                             : json_null());
            json_object_set_new(ko, "scenario_gpus_meet_deadline",
                                json_boolean(k->have_base &&
                                             k->base.run_time <= o->deadline));
        }
        json_object_set_new(ko, "cheapest", cheap);
        if (k->have_own)
            json_object_set_new(ko, "scenario_layout", cand_json(r, &k->own));
        if (k->have_alt) {
            json_object_set_new(ko, "other_shape", cand_json(r, &k->alt));
            double saves;
            int t = dam_search_why(&k->best[0], &k->alt, &saves);
            json_t *w = json_object();
            json_object_set_new(w, "term",
                                json_string(dam_term_name((dam_term)t)));
            json_object_set_new(w, "saves_s_per_step", dam_json_num(saves));
            json_object_set_new(ko, "why_fastest_beats_other_shape", w);
        }
        json_array_append_new(kinds, ko);
    }
    json_object_set_new(root, "kinds", kinds);
    json_t *all = json_array();
    for (size_t i = 0; i < r->nall; i++)
        json_array_append_new(all, cand_json(r, &r->all[i]));
    json_object_set_new(root, "candidates", all);
    json_object_set_new(root, "evaluated",
                        json_integer((json_int_t)r->evaluated));
    return root;
}

void dam_page_search_csv(dam_buf *b, const dam_search_result *r)
{
    dam_buf_printf(b, "gpu,gpus,tp,pp,dp,cp,ep,vpp,micro_batch,"
                      "micro_batches,zero,recompute,schedule,"
                      "sequence_parallel,fits,memory_gb,shortfall_gb,step_s,"
                      "run_days,gpu_hours,cost_usd,mfu,compute_s,comm_s,"
                      "wait_s,overhead_s,data_s\n");
    for (size_t i = 0; i < r->nall; i++) {
        const dam_search_cand *c = &r->all[i];
        const dam_layout *l = &c->l;
        dam_buf_printf(b,
                       "%s,%lld,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%d,%d,%.6g,"
                       "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
                       "%.6g\n",
                       r->kind[c->kind].gpu, (long long)c->gpus, l->tp, l->pp,
                       l->dp, l->cp, l->ep, l->vpp, l->micro_batch,
                       l->micro_batches, l->zero,
                       dam_recompute_name(l->recompute),
                       dam_pp_schedule_name(l->schedule), l->sp, c->fits,
                       c->memory / 1e9, c->shortfall / 1e9, c->step,
                       c->run_time / 86400.0, c->gpu_hours, c->cost, c->mfu,
                       c->terms[DAM_TERM_COMPUTE], c->terms[DAM_TERM_COMM],
                       c->terms[DAM_TERM_WAIT], c->terms[DAM_TERM_OVERHEAD],
                       c->terms[DAM_TERM_DATA]);
    }
}
