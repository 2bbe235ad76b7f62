/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chartset.c: from results to the chart inputs of render/chart/chart.h, and the
 * files they go to (see chartset.h). Titles state the question and the
 * answer. Nothing here is model arithmetic: frontiers come from
 * model/quality and iso-FLOP curves from solver/isoflop.
 */
#include "render/chart/chartset.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/alloc.h"
#include "model/quality.h"
#include "render/out/fmt.h"

/* The chart's colour for a what-if verdict. */
static dam_chart_verdict chart_verdict(dam_verdict v)
{
    switch (v) {
    case DAM_VERDICT_WORKS: return DAM_CHART_VERDICT_WORKS;
    case DAM_VERDICT_WASTED: return DAM_CHART_VERDICT_WASTED;
    case DAM_VERDICT_HURTS: return DAM_CHART_VERDICT_HURTS;
    case DAM_VERDICT_SHORT: return DAM_CHART_VERDICT_SHORT;
    case DAM_VERDICT_NOFIT: return DAM_CHART_VERDICT_NOFIT;
    default: return DAM_CHART_VERDICT_NEUTRAL;
    }
}

static char *title_slot(dam_chartset *cs)
{
    return cs->titles[cs->ntitles++];
}

/* A bar of the breakdown chart. */
static void bar(dam_chartset *cs, const char *label, const dam_result *r)
{
    if (cs->nbars >= DAM_CHARTSET_BARS)
        return;
    dam_chart_bar *b = &cs->bars[cs->nbars];
    snprintf(cs->bar_labels[cs->nbars], sizeof cs->bar_labels[0], "%s",
             label);
    b->label = cs->bar_labels[cs->nbars];
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        b->terms[t] = r->terms[t];
    b->bound = r->bound;
    cs->nbars++;
}

static void breakdown(dam_chartset *cs, const char *title,
                      const char *subtitle, int serving)
{
    cs->breakdown.title = title;
    cs->breakdown.subtitle = subtitle;
    cs->breakdown.bars = cs->bars;
    cs->breakdown.nbars = cs->nbars;
    cs->breakdown.axis_title = serving ? "time of a request (exposed)"
                                       : "time per step (exposed)";
    dam_chartset_add(cs, DAM_CHART_BREAKDOWN, "breakdown")->u.breakdown =
        &cs->breakdown;
}

/* A GPU ceiling, once per (GPU, precision); its index. */
static size_t ceiling(dam_chartset *cs, const dam_scenario *s)
{
    char label[64];
    snprintf(label, sizeof label, "%s %s", s->machine.gpu.id,
             dam_precision_name(s->workload.precision));
    for (size_t i = 0; i < cs->nceilings; i++)
        if (strcmp(cs->ceil_labels[i], label) == 0)
            return i;
    if (cs->nceilings >= DAM_CHARTSET_CEILINGS)
        return 0;
    snprintf(cs->ceil_labels[cs->nceilings], sizeof cs->ceil_labels[0], "%s",
             label);
    dam_chart_ceiling *c = &cs->ceilings[cs->nceilings++];
    c->label = cs->ceil_labels[cs->nceilings - 1];
    c->peak = dam_scenario_peak(s) * s->workload.matmul_peak_scale;
    c->bw = s->machine.gpu.mem_bw;
    return cs->nceilings - 1;
}

/* The phases of r as roofline points. */
static void phases(dam_chartset *cs, const dam_result *r, dam_chart_group g,
                   size_t ceil, const char *prefix)
{
    for (int i = 0; i < r->nphases && cs->npoints < DAM_CHARTSET_POINTS; i++) {
        const dam_phase_result *p = &r->phases[i];
        if (!(p->bytes > 0.0) || !(p->flops > 0.0) || !(p->time > 0.0))
            continue;
        snprintf(cs->point_labels[cs->npoints], sizeof cs->point_labels[0],
                 "%s%s", prefix, p->name);
        dam_chart_roofpoint *pt = &cs->points[cs->npoints];
        pt->label = cs->point_labels[cs->npoints];
        pt->intensity = p->intensity;
        pt->flops = p->flops / p->time;
        pt->group = g;
        pt->ceiling = ceil;
        cs->npoints++;
    }
}

static void roofline(dam_chartset *cs, const char *title, const char *sub,
                     const char *after)
{
    cs->roofline.title = title;
    cs->roofline.subtitle = sub;
    cs->roofline.ceilings = cs->ceilings;
    cs->roofline.nceilings = cs->nceilings;
    cs->roofline.points = cs->points;
    cs->roofline.npoints = cs->npoints;
    cs->roofline.before_label = "as configured";
    cs->roofline.after_label = after;
    dam_chartset_add(cs, DAM_CHART_ROOFLINE, "roofline")->u.roofline =
        &cs->roofline;
}

/* Short answer for a run: "data-bound: step 206 ms, MFU 10 %". */
static void run_answer(char *buf, size_t n, const dam_result *r)
{
    char t[32];
    if (r->serving.llm.enabled && r->has_sim) {
        const dam_llm_result *l = &r->serving.llm;
        snprintf(buf, n, "%s: p%.0f TTFT %.3g ms, TPOT %.3g ms; %s binds",
                 l->met ? "both objectives met" : "objectives missed",
                 l->slo_quantile * 100.0, l->ttft.q * 1e3, l->tpot.q * 1e3,
                 dam_bound_name(r->bound));
        return;
    }
    if (r->mode == DAM_MODE_SERVING && r->has_sim &&
        r->serving.slo_s > 0.0) {
        char u[32];
        dam_fmt_time(t, sizeof t, r->serving.latency.p99);
        dam_fmt_time(u, sizeof u, r->serving.slo_s);
        snprintf(buf, n, "p99 %s %s the %s SLO; %s binds", t,
                 dam_serving_slo_met(&r->serving) ? "meets" : "misses", u,
                 dam_bound_name(r->bound));
        return;
    }
    dam_fmt_time(t, sizeof t, r->step);
    snprintf(buf, n, "%s-bound: step %s, MFU %.0f %%",
             dam_bound_name(r->bound), t, r->mfu * 100.0);
}

#define HEAD_MAX 150 /* a title's characters: two lines of a chart */

/* The first clause cut of an answer: the first " (", " [", "; " or ". "
 * past its first 24 characters (so "H200 x4 (TP4): yes" keeps its name),
 * else its end. */
static size_t clause_end(const char *a)
{
    static const char *const cuts[] = {" (", " [", "; ", ". "};
    size_t best = strlen(a);
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        const char *p = a;
        while ((p = strstr(p, cuts[k])) != NULL && (size_t)(p - a) < 24)
            p++;
        if (p && (size_t)(p - a) < best)
            best = (size_t)(p - a);
    }
    return best;
}

/*
 * Split an answer into a chart's title (at most two lines: its first
 * clause, and ". Best option: ..." when the answer names one and it fits)
 * and the details for the subtitle (what follows, then the context).
 */
static void split_answer(const char *answer, const char *context,
                         char *head, char *sub, size_t n)
{
    size_t cut = clause_end(answer);
    if (cut > HEAD_MAX) {
        cut = HEAD_MAX;
        while (cut > 24 && answer[cut] != ' ')
            cut--;
    }
    snprintf(head, n, "%.*s", (int)cut, answer);
    const char *rest = answer + cut;
    const char *best = strstr(rest, ". Best option: "), *skip = NULL;
    size_t bl = 0;
    if (best) {
        bl = clause_end(best + 2);
        if (cut + 1 + bl <= HEAD_MAX) {
            size_t L = strlen(head);
            snprintf(head + L, n - L, ". %.*s", (int)bl, best + 2);
            skip = best; /* said in the title: not again below */
        }
    }
    while (*rest == ' ' || *rest == ';' || *rest == '.' || *rest == ',')
        rest++;
    /* details that open with the title's aside, "(slower): +41 %" or
     * "(p99 TTFT 455 ms, ...): $4.23": its brackets go; the aside too when
     * the title says it already ("it is slower") */
    const char *open = NULL, *close = NULL;
    int drop = 0;
    if (*rest == '(' && (close = strchr(rest, ')')) != NULL &&
        memchr(rest + 1, '(', (size_t)(close - rest - 1)) == NULL) {
        open = rest;
        char inner[128];
        snprintf(inner, sizeof inner, "%.*s", (int)(close - rest - 1),
                 rest + 1);
        drop = inner[0] && strstr(head, inner) != NULL;
    }
    /* the details without their bracketed asides (the text output keeps
     * them), ending in one full stop */
    char d[512];
    size_t k = 0;
    int depth = 0;
    for (const char *q = rest; *q && k + 1 < sizeof d; q++) {
        if (open && (q == open || (drop && q < close)))
            continue;
        if (open && q == close) {
            if (drop) /* and the colon after it */
                while (q[1] == ':' || q[1] == ' ')
                    q++;
            continue;
        }
        if (q == skip) {
            q += 1 + bl; /* past ". Best option: ..." */
            continue;
        }
        if (*q == '[' && depth == 0)
            while (k > 0 && d[k - 1] == ' ')
                k--; /* no space left before a dropped aside */
        depth += *q == '[';
        if (depth == 0)
            d[k++] = *q;
        depth -= *q == ']' && depth > 0;
    }
    while (k > 0 && (d[k - 1] == ' ' || d[k - 1] == '.'))
        k--;
    d[k] = '\0';
    if (k > 0)
        snprintf(sub, n, "%.300s. %.200s", d, context);
    else
        snprintf(sub, n, "%.500s", context);
}

static void subtitle_of(char *buf, size_t n, const dam_scenario *s,
                        const dam_result *r)
{
    char g[32];
    if (s->mode == DAM_MODE_SERVING && s->serving.llm.enabled) {
        /* the deployment, as the page's head says it (the training line
         * read "8 x H200-SXM-141GB, bf16, batch 1/GPU" over 2 GPUs at
         * FP8) */
        char dep[160];
        dam_llm_deployment_text(dep, sizeof dep, s);
        snprintf(buf, n, "%s: %s on %s at %.4g requests/s (%s)", s->name,
                 s->workload.model.name, dep, s->serving.rate,
                 r->has_sim ? "simulated" : "analytic");
        return;
    }
    dam_fmt_int(g, sizeof g, (long long)dam_scenario_gpus(s));
    snprintf(buf, n, "%s: %s, %s x %s, %s, batch %d/GPU (%s)", s->name,
             s->workload.model.name, g, s->machine.gpu.id,
             dam_precision_name(s->workload.precision), s->workload.batch_size,
             r->has_sim ? "simulated" : "analytic");
}

/* Lanes worth a picture: with many, those of the first GPU (its loader
 * workers, its PCIe link, its compute) and the network. */
static int lane_shown(const dam_trace *tr, size_t l)
{
    if (tr->nlanes <= 16)
        return 1;
    const char *n = tr->lanes[l].name;
    return strstr(n, "gpu0/") != NULL || strcmp(n, "node0/gpu0") == 0 ||
           strcmp(n, "node0/pcie0") == 0 || strcmp(n, "network") == 0;
}

/* Timeline from a recorded trace: lanes, spans and the first counter. */
static void timeline(dam_chartset *cs, const dam_trace *tr, const char *title,
                     const char *sub)
{
    if (!tr || tr->nlanes == 0 || tr->nspans == 0)
        return;
    int *map = dam_malloc(tr->nlanes * sizeof *map);
    size_t nl = 0;
    for (size_t l = 0; l < tr->nlanes; l++)
        map[l] = lane_shown(tr, l) && nl < DAM_CHARTSET_LANES ? (int)nl++
                                                              : -1;
    cs->lanes = dam_calloc(nl ? nl : 1, sizeof *cs->lanes);
    cs->spans = dam_calloc(tr->nspans, sizeof *cs->spans);
    size_t *count = dam_calloc(nl ? nl : 1, sizeof *count);
    for (size_t i = 0; i < tr->nspans; i++)
        if (map[tr->spans[i].lane] >= 0)
            count[map[tr->spans[i].lane]]++;
    size_t off = 0;
    for (size_t l = 0; l < tr->nlanes; l++) {
        if (map[l] < 0)
            continue;
        dam_chart_lane *lane = &cs->lanes[map[l]];
        lane->name = tr->lanes[l].name;
        lane->spans = cs->spans + off;
        lane->nspans = 0;
        off += count[map[l]];
    }
    for (size_t i = 0; i < tr->nspans; i++) {
        const dam_trace_span *sp = &tr->spans[i];
        if (map[sp->lane] < 0)
            continue;
        dam_chart_lane *lane = &cs->lanes[map[sp->lane]];
        dam_chart_span *out = (dam_chart_span *)&lane->spans[lane->nspans++];
        out->start = sp->start;
        out->end = sp->end;
        out->label = NULL;
        switch (sp->kind) {
        case DAM_SPAN_READ:
        case DAM_SPAN_DECODE:
        case DAM_SPAN_PREPROCESS:
            out->kind = DAM_CHART_SPAN_LOAD;
            break;
        case DAM_SPAN_COPY: out->kind = DAM_CHART_SPAN_TRANSFER; break;
        case DAM_SPAN_ALLREDUCE: out->kind = DAM_CHART_SPAN_COMM; break;
        case DAM_SPAN_OVERHEAD:
        case DAM_SPAN_POSTPROCESS:
            out->kind = DAM_CHART_SPAN_OVERHEAD;
            break;
        case DAM_SPAN_STALL: out->kind = DAM_CHART_SPAN_STALL; break;
        case DAM_SPAN_BLOCKED: out->kind = DAM_CHART_SPAN_BLOCKED; break;
        case DAM_SPAN_WAIT: out->kind = DAM_CHART_SPAN_WAIT; break;
        default: out->kind = DAM_CHART_SPAN_COMPUTE;
        }
    }
    dam_free(count);
    dam_free(map);
    /* the first counter's samples (queue depth of the first GPU) */
    size_t ns = 0;
    const char *name = tr->ncounters ? tr->counters[0].name : NULL;
    for (size_t i = 0; i < tr->ncounters; i++)
        if (strstr(tr->counters[i].name, "gpu0") &&
            !isdigit((unsigned char)*(strstr(tr->counters[i].name, "gpu0") +
                                      4))) {
            name = tr->counters[i].name;
            break;
        }
    cs->samples = dam_calloc(tr->ncounters + 1, sizeof *cs->samples);
    for (size_t i = 0; i < tr->ncounters; i++)
        if (strcmp(tr->counters[i].name, name) == 0) {
            cs->samples[ns].t = tr->counters[i].t;
            cs->samples[ns].value = tr->counters[i].value;
            ns++;
        }
    /* which steps these are: a reader must know a start-up stall from the
     * steady state */
    char steps[160] = "", *tsub = title_slot(cs);
    if (tr->nsteps > 0)
        snprintf(steps, sizeof steps, "; steps %d to %d%s",
                 tr->first_step + 1, tr->first_step + tr->nsteps,
                 tr->first_step > 0 ? " (steady state, after the warm-up)"
                                    : " (from the start: includes the "
                                      "pipeline filling up)");
    size_t sl = strlen(sub), room = sizeof cs->titles[0] - strlen(steps) - 1;
    memmove(tsub, sub, sl < room ? sl : room);
    tsub[sl < room ? sl : room] = '\0';
    strcat(tsub, steps);
    /* the counter with its unit: the sim's queues hold batches */
    char *ctitle = title_slot(cs);
    if (name && strncmp(name, "queue depth", 11) == 0)
        snprintf(ctitle, sizeof cs->titles[0],
                 "batches ready for%.60s (queue depth)", name + 11);
    else
        snprintf(ctitle, sizeof cs->titles[0], "%.200s",
                 name ? name : "queue depth (batches)");
    cs->timeline.title = title;
    cs->timeline.subtitle = tsub;
    cs->timeline.lanes = cs->lanes;
    cs->timeline.nlanes = nl;
    cs->timeline.samples = cs->samples;
    cs->timeline.nsamples = ns;
    cs->timeline.counter_title = ctitle;
    if (tr->first_step > 0 && tr->horizon > tr->from &&
        isfinite(tr->horizon)) {
        cs->timeline.t0 = tr->from;
        cs->timeline.t1 = tr->horizon;
    }
    dam_chartset_add(cs, DAM_CHART_TIMELINE, "timeline")->u.timeline =
        &cs->timeline;
}

void dam_chartset_serving_load(dam_chartset *cs, const double *rate,
                               const double *const pct[3], size_t n,
                               double slo, const char *title)
{
    if (n < 1 || cs->ncharts >= DAM_CHARTSET_MAX)
        return;
    static const char *const names[3] = {"p50", "p95", "p99"};
    for (int k = 0; k < 3; k++) {
        cs->series[k].label = names[k];
        cs->series[k].x = rate;
        cs->series[k].y = pct[k];
        cs->series[k].n = n;
    }
    char t[32];
    dam_fmt_time(t, sizeof t, slo);
    snprintf(cs->slo_label, sizeof cs->slo_label, "SLO: p99 <= %s", t);
    cs->serving.title = title;
    cs->serving.subtitle = cs->ntitles > 1 ? cs->titles[1] : NULL;
    cs->serving.series = cs->series;
    cs->serving.nseries = 3;
    cs->serving.slo = slo;
    cs->serving.slo_label = slo > 0.0 ? cs->slo_label : NULL;
    double lo = HUGE_VAL, hi = 0.0;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < n; i++) {
            lo = pct[k][i] < lo ? pct[k][i] : lo;
            hi = pct[k][i] > hi ? pct[k][i] : hi;
        }
    cs->serving.y_log = lo > 0.0 && hi / lo > 10.0;
    cs->serving.rate_now = cs->serving_rate;
    dam_chartset_add(cs, DAM_CHART_SERVING, "serving")->u.serving =
        &cs->serving;
}

void dam_chartset_run(dam_chartset *cs, const dam_scenario *s,
                      const dam_result *r, const dam_trace *trace)
{
    memset(cs, 0, sizeof *cs);
    char ans[160], ctx[512];
    run_answer(ans, sizeof ans, r);
    char *title = title_slot(cs);
    snprintf(title, sizeof cs->titles[0], "%s", ans);
    char *sub = title_slot(cs);
    subtitle_of(ctx, sizeof ctx, s, r);
    snprintf(sub, sizeof cs->titles[0], "%.250s %.250s", s->question, ctx);
    bar(cs, s->name, r);
    breakdown(cs, title, sub, s->mode == DAM_MODE_SERVING);
    if (s->mode == DAM_MODE_SERVING)
        cs->serving_rate = s->serving.rate;
    phases(cs, r, DAM_GROUP_BEFORE, ceiling(cs, s), "");
    roofline(cs, title, sub, NULL);
    timeline(cs, trace, title, sub);
}

/* Iso-FLOP curves at a tenth, one and ten times the scenario's compute
 * (solver/isoflop), with the scenario's model marked. */
static void chinchilla(dam_chartset *cs, const dam_scenario *s,
                       const char *title, const char *sub)
{
    if (dam_isoflop_of(s, &cs->iso, NULL) != DAM_OK)
        return;
    for (size_t k = 0; k < cs->iso.ncurves; k++) {
        const dam_isoflop_curve *ic = &cs->iso.curves[k];
        int ex = (int)floor(log10(ic->compute));
        snprintf(cs->curve_labels[k], sizeof cs->curve_labels[0],
                 "%.2ge%d FLOP", ic->compute / pow(10.0, ex), ex);
        dam_chart_curve *cu = &cs->curves[k];
        cu->label = cs->curve_labels[k];
        cu->params = ic->params;
        cu->loss = ic->loss;
        cu->n = ic->n;
        cu->optimum = ic->optimum;
    }
    snprintf(cs->mark_label, sizeof cs->mark_label, "%s",
             s->workload.model.name);
    cs->chin.title = title;
    cs->chin.subtitle = sub;
    cs->chin.curves = cs->curves;
    cs->chin.ncurves = cs->iso.ncurves;
    cs->chin.model.label = cs->mark_label;
    cs->chin.model.params = cs->iso.model_params;
    cs->chin.model.loss = cs->iso.model_loss;
    dam_chartset_add(cs, DAM_CHART_CHINCHILLA, "chinchilla")->u.chinchilla =
        &cs->chin;
}

/* The cost of a what-if row in the levers chart's unit: per million
 * output tokens for LLM serving (what the answer quotes), per million
 * requests for other serving (costs come per 1,000), the run's cost for
 * training; NaN when unknown. */
static double lever_cost(const dam_whatif_row *r)
{
    const dam_llm_result *l = &r->result.serving.llm;
    if (l->enabled)
        return l->cost_hour > 0.0 && l->tokens_per_s > 0.0
                   ? l->cost_hour / 3600.0 / l->tokens_per_s * 1e6
                   : (double)NAN;
    double k = r->scenario.mode == DAM_MODE_SERVING ? 1000.0 : 1.0;
    return r->cost.usd > 0.0 ? r->cost.usd * k : (double)NAN;
}

/* The levers chart: speed-up of the run (training), or p99 against the
 * SLO (serving); the interval where the row carries one; an option that
 * does not fit is said so, with no bar. */
static void whatif_levers(dam_chartset *cs, const dam_whatif *w,
                          const char *title, const char *sub)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_scenario *s = &base->scenario;
    int serving = s->mode == DAM_MODE_SERVING && base->result.has_sim &&
                  base->result.serving.slo_s > 0.0;
    /* a baseline that does not fit cannot run: no speed-up against it */
    if (!serving && !base->result.memory.fits &&
        base->result.memory.capacity > 0.0)
        return;
    size_t nl = 0;
    double base_cost = lever_cost(base);
    for (int i = 1; i < w->nrows && nl < DAM_CHARTSET_BARS; i++) {
        const dam_whatif_row *r = &w->rows[i];
        if (r->verdict == DAM_VERDICT_FAILED)
            continue;
        int nofit = r->verdict == DAM_VERDICT_NOFIT;
        dam_chart_lever *l = &cs->levers[nl++];
        l->name = r->name;
        l->speedup = nofit     ? 1.0
                     : serving ? r->result.serving.latency.p99
                               : r->speedup;
        l->verdict = chart_verdict(r->verdict);
        l->cost_usd = nofit ? (double)NAN : lever_cost(r);
        l->cost_delta_usd = l->cost_usd - base_cost; /* NaN when unknown */
        l->lo = !serving && r->has_interval ? r->speedup_lo : 0.0;
        l->hi = !serving && r->has_interval ? r->speedup_hi : 0.0;
    }
    if (nl == 0)
        return;
    cs->levers_chart.title = title;
    cs->levers_chart.subtitle = sub;
    cs->levers_chart.levers = cs->levers;
    cs->levers_chart.nlevers = nl;
    if (base->result.serving.llm.enabled)
        cs->levers_chart.cost_title = "cost per million output tokens";
    else if (s->mode == DAM_MODE_SERVING)
        cs->levers_chart.cost_title = "cost per million requests";
    if (serving) {
        cs->levers_chart.slo = base->result.serving.slo_s;
        cs->levers_chart.baseline = base->result.serving.latency.p99;
    } else if (s->mode == DAM_MODE_SERVING) {
        cs->levers_chart.axis_title =
            "speed-up of a request (1.0x = baseline)";
    }
    dam_chartset_add(cs, DAM_CHART_LEVERS, "levers")->u.levers =
        &cs->levers_chart;
}

/* The roofline: the baseline's GPU, and any lever that moves GPU or
 * precision and fits (its phases as "after" points). */
static void whatif_roofline(dam_chartset *cs, const dam_whatif *w,
                            const char *title, const char *sub)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_scenario *s = &base->scenario;
    phases(cs, &base->result, DAM_GROUP_BEFORE, ceiling(cs, s), "");
    const char *after = NULL;
    for (int i = 1; i < w->nrows; i++) {
        const dam_whatif_row *r = &w->rows[i];
        if (r->verdict == DAM_VERDICT_FAILED ||
            r->verdict == DAM_VERDICT_NOFIT || r->is_combination)
            continue;
        if (strcmp(r->scenario.machine.gpu.id, s->machine.gpu.id) == 0 &&
            r->scenario.workload.precision == s->workload.precision &&
            r->scenario.workload.matmul_peak_scale ==
                s->workload.matmul_peak_scale)
            continue;
        size_t k = ceiling(cs, &r->scenario);
        /* the roof's colour names the option; its name goes on the label
         * only when another option runs under the same roof */
        int shared = 0;
        for (size_t q = 0; q < cs->npoints; q++)
            shared |= cs->points[q].group == DAM_GROUP_AFTER &&
                      cs->points[q].ceiling == k;
        for (int j = 1; j < w->nrows; j++) {
            const dam_whatif_row *o = &w->rows[j];
            if (j != i && o->verdict != DAM_VERDICT_FAILED &&
                !o->is_combination &&
                strcmp(o->scenario.machine.gpu.id,
                       r->scenario.machine.gpu.id) == 0 &&
                o->scenario.workload.precision ==
                    r->scenario.workload.precision)
                shared = 1;
        }
        char prefix[80] = "";
        if (shared)
            snprintf(prefix, sizeof prefix, "%.70s: ", r->name);
        phases(cs, &r->result, DAM_GROUP_AFTER, k, prefix);
        after = "with a lever";
    }
    roofline(cs, title, sub, after);
}

/* Return on compute: quality against cost of the options that fit, the
 * frontier and its marginal returns (two points or more, a metric). */
static void whatif_roc(dam_chartset *cs, const dam_whatif *w,
                       const char *title, const char *sub)
{
    const dam_scenario *s = &w->rows[0].scenario;
    dam_quality_point pts[DAM_CHARTSET_BARS];
    size_t np = 0;
    int hib = s->quality.higher_is_better;
    for (int i = 0; i < w->nrows && np < DAM_CHARTSET_BARS; i++) {
        const dam_whatif_row *r = &w->rows[i];
        if (r->verdict == DAM_VERDICT_FAILED ||
            r->verdict == DAM_VERDICT_NOFIT || r->quality_unknown ||
            !(r->cost.usd > 0.0) || !isfinite(r->quality))
            continue;
        snprintf(pts[np].label, sizeof pts[np].label, "%.63s", r->name);
        pts[np].cost = r->cost.usd;
        pts[np].quality = r->quality;
        np++;
    }
    if (np < 2 || !s->quality.metric[0])
        return;
    size_t idx[DAM_CHARTSET_BARS];
    size_t nf = dam_quality_pareto(pts, np, hib, idx);
    for (size_t i = 0; i < np; i++) {
        snprintf(cs->roc_labels[i], sizeof cs->roc_labels[0], "%.63s",
                 pts[i].label);
        cs->roc_pts[i].label = cs->roc_labels[i];
        cs->roc_pts[i].cost = pts[i].cost;
        cs->roc_pts[i].quality = pts[i].quality;
        cs->roc_pts[i].on_frontier = 0;
        for (size_t k = 0; k < nf; k++)
            cs->roc_pts[i].on_frontier |= idx[k] == i;
    }
    size_t nseg = 0;
    for (size_t k = 0; k + 1 < nf; k++) {
        const dam_quality_point *a = &pts[idx[k]], *b = &pts[idx[k + 1]];
        double roc;
        if (dam_quality_roc(a->quality, a->cost, b->quality, b->cost, hib,
                            &roc, NULL) != DAM_OK)
            continue;
        cs->roc_seg[nseg].from = idx[k];
        cs->roc_seg[nseg].to = idx[k + 1];
        cs->roc_seg[nseg].marginal = roc;
        nseg++;
    }
    snprintf(cs->roc_ytitle, sizeof cs->roc_ytitle, "%s%s",
             s->quality.metric, hib ? " (higher is better)"
                                    : " (lower is better)");
    cs->roc.title = title;
    cs->roc.subtitle = sub;
    cs->roc.points = cs->roc_pts;
    cs->roc.npoints = np;
    cs->roc.segments = cs->roc_seg;
    cs->roc.nsegments = nseg;
    cs->roc.x_title = "cost of the run";
    cs->roc.x_unit = DAM_AXIS_USD;
    cs->roc.y_title = cs->roc_ytitle;
    cs->roc.y_unit = DAM_AXIS_PLAIN;
    cs->roc.marginal_unit = NULL; /* the gain and its cost per segment */
    /* a change that matters: a tenth of a nat of loss, or one point
     * of accuracy (ten times the what-if's "material" gain) */
    cs->roc.y_min_span = hib ? 1.0 : 0.1;
    dam_chartset_add(cs, DAM_CHART_ROC, "roc")->u.roc = &cs->roc;
}

void dam_chartset_whatif(dam_chartset *cs, const dam_whatif *w,
                         const char *answer)
{
    memset(cs, 0, sizeof *cs);
    const dam_whatif_row *base = &w->rows[0];
    const dam_scenario *s = &base->scenario;
    /* the title is the answer's first clause; the rest and the context
     * go below it */
    char *title = title_slot(cs);
    char *sub = title_slot(cs);
    char ctx[512];
    subtitle_of(ctx, sizeof ctx, s, &base->result);
    split_answer(answer, ctx, title, sub, sizeof cs->titles[0]);

    /* the breakdown: the baseline and every option that runs (one that
     * does not fit has no step to break down) */
    for (int i = 0; i < w->nrows; i++)
        if (w->rows[i].verdict != DAM_VERDICT_FAILED &&
            (i == 0 || w->rows[i].verdict != DAM_VERDICT_NOFIT))
            bar(cs, w->rows[i].name, &w->rows[i].result);
    breakdown(cs, title, sub, s->mode == DAM_MODE_SERVING);
    whatif_levers(cs, w, title, sub);
    whatif_roofline(cs, w, title, sub);
    whatif_roc(cs, w, title, sub);
    /* Chinchilla for pretraining a language model; a fine-tune (LoRA
     * adapters, or fewer tokens than parameters: Chinchilla's optimum is
     * about 20 a parameter) does not choose its model size by compute */
    double tokens = dam_quality_tokens(s);
    int finetune = s->workload.lora_rank > 0 ||
                   tokens < s->workload.model.params *
                                s->workload.weight_scale;
    if (s->mode == DAM_MODE_TRAINING &&
        strcmp(s->workload.model.family, "language") == 0 && !finetune)
        chinchilla(cs, s, title, sub);
}

void dam_chartset_points(dam_chartset *cs, const dam_points *p,
                         const dam_roc *r, const char *answer)
{
    memset(cs, 0, sizeof *cs);
    char *title = title_slot(cs), *sub = NULL;
    /* the verdict on the frontier in the title, its steps below it (the
     * steps of three options and more run past two lines) */
    const char *verdict = strstr(answer, ": returns ");
    if (verdict) {
        sub = title_slot(cs);
        snprintf(title, sizeof cs->titles[0], "%s R%s", p->question,
                 verdict + 3);
        snprintf(sub, sizeof cs->titles[0], "%.*s.",
                 (int)(verdict - answer), answer);
    } else {
        snprintf(title, sizeof cs->titles[0], "%s %s", p->question, answer);
    }
    size_t np = p->n < DAM_CHARTSET_BARS ? p->n : DAM_CHARTSET_BARS;
    for (size_t i = 0; i < np; i++) {
        snprintf(cs->roc_labels[i], sizeof cs->roc_labels[0], "%.63s",
                 p->pts[i].label);
        cs->roc_pts[i].label = cs->roc_labels[i];
        cs->roc_pts[i].cost = p->pts[i].cost;
        cs->roc_pts[i].quality = p->pts[i].quality;
        cs->roc_pts[i].on_frontier = r->on_frontier[i];
    }
    size_t nseg = 0;
    for (size_t k = 0; k + 1 < r->nfrontier; k++) {
        if (r->frontier[k] >= np || r->frontier[k + 1] >= np)
            continue;
        cs->roc_seg[nseg].from = r->frontier[k];
        cs->roc_seg[nseg].to = r->frontier[k + 1];
        cs->roc_seg[nseg].marginal = r->marginal[k];
        nseg++;
    }
    snprintf(cs->roc_ytitle, sizeof cs->roc_ytitle, "%s%s", p->metric,
             p->higher_is_better ? " (higher is better)"
                                 : " (lower is better)");
    snprintf(cs->mark_label, sizeof cs->mark_label, "per %.40s",
             p->cost_unit);
    cs->roc.title = title;
    cs->roc.subtitle = sub;
    cs->roc.points = cs->roc_pts;
    cs->roc.npoints = np;
    cs->roc.segments = cs->roc_seg;
    cs->roc.nsegments = nseg;
    cs->roc.x_title = p->cost_unit;
    cs->roc.x_unit = DAM_AXIS_PLAIN;
    cs->roc.y_title = cs->roc_ytitle;
    cs->roc.y_unit = DAM_AXIS_PLAIN;
    cs->roc.marginal_unit = cs->mark_label;
    dam_chartset_add(cs, DAM_CHART_ROC, "roc")->u.roc = &cs->roc;
}

void dam_chartset_compare(dam_chartset *cs, const dam_scenario *const *s,
                          const dam_result *const *r, int n, const char *title)
{
    memset(cs, 0, sizeof *cs);
    char *t = title_slot(cs);
    int serving = 1;
    for (int i = 0; i < n; i++)
        serving &= s[i]->mode == DAM_MODE_SERVING;
    /* bars by name; when two share one, each is told by its number and
     * file as the text's "Scenarios" list numbers them */
    int same = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            same |= strcmp(s[i]->name, s[j]->name) == 0;
    /* titled by the names, or by the files when two share a name */
    const char *a = s[0]->name, *b2 = n > 1 ? s[1]->name : "";
    if (same) {
        const char *fa = strrchr(s[0]->file, '/'), *fb = NULL;
        a = fa ? fa + 1 : s[0]->file;
        if (n > 1) {
            fb = strrchr(s[1]->file, '/');
            b2 = fb ? fb + 1 : s[1]->file;
        }
    }
    if (title)
        snprintf(t, sizeof cs->titles[0], "%s", title);
    else
        snprintf(t, sizeof cs->titles[0], "Where the %s goes: %.200s vs "
                 "%.200s%s",
                 serving ? "time of a request" : "step", a, b2,
                 n > 2 ? " and more" : "");
    for (int i = 0; i < n; i++) {
        char label[128];
        const char *f = strrchr(s[i]->file, '/');
        f = f ? f + 1 : s[i]->file;
        if (same)
            snprintf(label, sizeof label, "[%d] %.60s (%.50s)", i + 1,
                     s[i]->name, f);
        else
            snprintf(label, sizeof label, "%s", s[i]->name);
        bar(cs, label, r[i]);
    }
    breakdown(cs, t, NULL, serving);
}

void dam_chartset_free(dam_chartset *cs)
{
    dam_chartset_sweep_release(cs);
    dam_chartset_plan_release(cs);
    dam_free(cs->lanes);
    dam_free(cs->spans);
    dam_free(cs->samples);
    cs->lanes = NULL;
    cs->spans = NULL;
    cs->samples = NULL;
}

int dam_chartset_write_one(const dam_chartset *cs, const char *path,
                           dam_error *err)
{
    if (cs->ncharts == 0)
        return dam_error_set(err, path, 0, "no chart to write");
    return dam_chart_write(path, 0, 0, &cs->charts[0], err);
}

int dam_chartset_write_dir(const dam_chartset *cs, const char *dir,
                           const char *format, dam_error *err)
{
    if (cs->ncharts == 0)
        return dam_error_set(err, dir, 0, "no chart to write");
    /* A folder made here is removed again, with the charts written into
     * it, when a chart fails: a failed -o DIR leaves nothing behind. */
    int created = mkdir(dir, 0777) == 0;
    if (!created && errno != EEXIST) {
        dam_error_set(err, dir, 0, "cannot create the folder: %s",
                      strerror(errno));
        return DAM_ERUNTIME;
    }
    int rc = DAM_OK;
    size_t done = 0;
    char path[4096];
    for (; done < cs->ncharts && rc == DAM_OK; done++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, cs->names[done],
                 format ? format : "png");
        rc = dam_chart_write(path, 0, 0, &cs->charts[done], err);
    }
    if (rc != DAM_OK && created) {
        for (size_t i = 0; i + 1 < done; i++) {
            snprintf(path, sizeof path, "%s/%s.%s", dir, cs->names[i],
                     format ? format : "png");
            remove(path);
        }
        rmdir(dir);
    }
    return rc;
}
