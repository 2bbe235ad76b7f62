/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * answer.c: what every run page shares, below the pages that show it
 * (text.c, llm.c, json.c, whatif.c): the one-sentence answer to the
 * scenario's question, the run time against the deadline, the short block
 * of figures after the answer, and the diagnosis with its scorecard.
 */
#include "render/page/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/out/fmt.h"

void dam_text_range(char *lo, char *hi, size_t n, double a, double b,
                    int usd)
{
    int d = dam_fmt_interval_decimals((a + b) / 2, a, b);
    char x[40], y[40];
    dam_fmt_fixed(x, sizeof x, a, d);
    dam_fmt_fixed(y, sizeof y, b, d);
    snprintf(lo, n, "%s%s", usd ? "$" : "", x);
    snprintf(hi, n, "%s%s", usd ? "$" : "", y);
}

/* The analytic answer of a (non-LLM) service: a lone request's latency
 * beside the capacity, and what it settles of the SLO. */
static void serving_analytic(char *buf, size_t n, const dam_scenario *s,
                             const dam_result *r, const dam_diagnosis *d,
                             const char *lead, const char *tight)
{
    const dam_serving_result *sv = &r->serving;
    char capn[48], rate[48];
    dam_fmt_value(capn, sizeof capn, sv->capacity, DAM_FMT_PLAIN,
                  DAM_FMT_SIG);
    dam_fmt_value(rate, sizeof rate, s->serving.rate, DAM_FMT_PLAIN,
                  DAM_FMT_SIG);
    if (sv->overloaded)
        snprintf(buf, n, "no: overloaded: it serves at most %s of the "
                         "%s requests/s offered (set by %s), so its "
                         "queue grows without bound and no latency is "
                         "an answer; %s.%s",
                 capn, rate, dam_serving_capacity_part(sv->capacity_by),
                 lead, tight);
    else if (s->serving.slo_p99_s > 0.0 &&
             dam_serving_lone_floor(r) > s->serving.slo_p99_s)
        snprintf(buf, n, "no: the SLO is missed at any load: even a "
                         "lone request takes %.3g ms without waiting "
                         "for a batch, over the %.3g ms p99 SLO; %s "
                         "(%s).%s",
                 dam_serving_lone_floor(r) * 1e3,
                 s->serving.slo_p99_s * 1e3, lead, d->headline, tight);
    else
        snprintf(buf, n, "%s (%s); %s requests/s offered of a capacity "
                         "of %s (analytic: a lone request's latency, "
                         "no queueing%s).%s",
                 lead, d->headline, rate, capn,
                 s->serving.slo_p99_s > 0.0
                     ? "; whether the p99 meets the SLO needs the "
                       "simulation"
                     : "",
                 tight);
}

/* The one-sentence answer to the scenario's question. */
static void answer(char *buf, size_t n, const dam_scenario *s,
                   const dam_result *r, const dam_diagnosis *d);

void dam_text_answer(char *buf, size_t n, const dam_scenario *s,
                     const dam_result *r, const dam_diagnosis *d)
{
    answer(buf, n, s, r, d);
    dam_fmt_plain_str(buf, n); /* no "2.333e+05 ms" in a sentence */
}

static void answer(char *buf, size_t n, const dam_scenario *s,
                   const dam_result *r, const dam_diagnosis *d)
{
    const char *lead;
    switch (r->bound) {
    case DAM_BOUND_DATA:
    case DAM_BOUND_TRANSFER:
        lead = "fix the data path first; a faster GPU would idle faster";
        break;
    case DAM_BOUND_COMPUTE:
        lead = dam_diagnose_bubble_binds(s, r)
                   ? "GPU arithmetic binds, and the pipeline schedule more "
                     "than doubles it: more micro-batches, an interleaved "
                     "schedule or fewer pipeline stages will pay, as will a "
                     "faster GPU or lower precision"
                   : "GPU arithmetic binds: a faster GPU, lower precision or "
                     "less work will pay";
        break;
    case DAM_BOUND_MEMORY:
        lead = "HBM bandwidth binds: more bandwidth, narrower types or "
               "fusion will pay; more FLOP/s alone will not";
        break;
    case DAM_BOUND_COMM:
        lead = s->layout.on
                   ? "communication binds: a faster network, another layout "
                     "or more overlap will pay"
                   : "gradient sync binds: overlap, larger buckets or a "
                     "faster network will pay";
        break;
    case DAM_BOUND_LATENCY:
        lead = s->mode == DAM_MODE_SERVING
                   ? "fixed latency binds (batching wait, launches, serial "
                     "depth): tune the batcher, fuse or capture graphs"
                   : "fixed overhead binds: fuse, capture graphs or batch "
                     "more";
        break;
    case DAM_BOUND_PREPROCESS:
        lead = "preprocessing binds: speed it up or offload it; a faster GPU "
               "only shortens inference";
        break;
    case DAM_BOUND_WEIGHTS:
        lead = "weight reads bind: more HBM bandwidth, narrower weights or "
               "larger batches will pay; more FLOP/s will not";
        break;
    default:
        lead = "queueing binds: add capacity or cut service time";
    }
    if (s->serving.llm.enabled) {
        /* LLM serving: the objectives, judged with their intervals */
        int pct = (int)lround(s->serving.llm.slo_quantile * 100.0);
        if (!r->memory.fits)
            snprintf(buf, n, "no: it does not fit, so it serves no request: "
                             "%s",
                     d->headline);
        else if (r->has_sim)
            snprintf(buf, n, "%s at p%d (met: each quantile plus its 95 %% CI "
                             "within its SLO): %s",
                     dam_llm_slo_met(&r->serving.llm) ? "both SLOs are met"
                                                      : "the SLOs are missed",
                     pct, d->headline);
        else
            snprintf(buf, n, "(analytic only) %s", d->headline);
        return;
    }
    char need[32], cap[32], shortfall[32];
    dam_fmt_memory(need, sizeof need, r->memory.total);
    dam_fmt_memory(cap, sizeof cap, r->memory.capacity);
    dam_fmt_memory(shortfall, sizeof shortfall, r->memory.shortfall);
    if (!r->memory.fits) {
        /* memory decides first: a job that does not fit has no run time */
        snprintf(buf, n, "no: it does not fit: it needs %s per GPU, the %s "
                         "holds %s (short by %s); it cannot run as "
                         "configured, so no time or cost is an answer. "
                         "Shard the state (ZeRO, tensor or pipeline "
                         "parallelism), recompute activations, a smaller "
                         "batch or a GPU with more memory come first.",
                 need, s->machine.gpu.id, cap, shortfall);
        return;
    }
    char tight[160] = "";
    if (r->memory.tight)
        snprintf(tight, sizeof tight,
                 " Memory is tight: %s of %s, under 10 %% to spare for "
                 "fragmentation; it may not run.",
                 need, cap);
    if (s->mode == DAM_MODE_SERVING && !r->has_sim) {
        serving_analytic(buf, n, s, r, d, lead, tight);
        return;
    }
    if (s->mode == DAM_MODE_SERVING && r->has_sim) {
        const dam_serving_result *sv = &r->serving;
        int met = dam_serving_slo_met(sv);
        char over[320] = "", x[3][48];
        if (!met && sv->overloaded && sv->throughput > 0.0) {
            /* as run --analytic says: past the capacity the queue grows
             * for as long as the simulation runs */
            const double v[3] = {sv->throughput, s->serving.rate,
                                 sv->capacity};
            for (int i = 0; i < 3; i++)
                dam_fmt_value(x[i], sizeof x[i], v[i], DAM_FMT_PLAIN,
                              DAM_FMT_SIG);
            snprintf(over, sizeof over,
                     ": overloaded, it serves %s of the %s requests/s "
                     "offered (capacity %s, set by %s)",
                     x[0], x[1], x[2],
                     dam_serving_capacity_part(sv->capacity_by));
        }
        snprintf(buf, n, "%s%s; %s (%s).%s",
                 met ? "the SLO is met (p99 plus its 95 % CI within it)"
                 : sv->throughput > 0.0 ? "the SLO is missed"
                                        : "no: no request is served",
                 over, lead, d->headline, tight);
        return;
    }
    if (s->mode == DAM_MODE_TRAINING && s->deadline > 0.0 &&
        r->run_time > 0.0) {
        char run[48], dl[48];
        dam_text_deadline(run, sizeof run, dl, sizeof dl, s, r->run_time);
        snprintf(buf, n, "%s: the run takes %s, %s the %s deadline; %s "
                         "(%s).%s",
                 r->run_time <= s->deadline ? "yes" : "no", run,
                 r->run_time <= s->deadline ? "within" : "past", dl, lead,
                 d->headline, tight);
        return;
    }
    snprintf(buf, n, "%s (%s).%s", lead, d->headline, tight);
}

void dam_text_deadline(char *run, size_t nrun, char *dl, size_t ndl,
                       const dam_scenario *s, double run_time)
{
    dam_fmt_time(run, nrun, run_time);
    dam_fmt_time(dl, ndl, s->deadline);
    if (strcmp(run, dl) == 0 && run_time != s->deadline)
        /* "60 d" either way: say which side, to the second */
        snprintf(run, nrun, "%s %.30s", run_time < s->deadline ? "just under"
                                                            : "just over",
                 dl);
}

/* The diagnosis and the scorecard (shared by every run page). */
void dam_text_diagnosis(dam_buf *b, const dam_diagnosis *d)
{
    /* lever names in one column as wide as the longest (12 at least) */
    int w = 12;
    for (int i = 0; i < d->nworks + d->nwasted; i++) {
        const dam_advice *a = i < d->nworks ? &d->works[i]
                                            : &d->wasted[i - d->nworks];
        int n = (int)strlen(dam_lever_kind_name(a->kind));
        w = n > w ? n : w;
    }
    dam_buf_printf(b, "\nDiagnosis (a hypothesis with its evidence)\n");
    dam_buf_printf(b, "  %s\n", d->headline);
    for (int i = 0; i < d->nevidence; i++)
        dam_buf_printf(b, "  - %s\n", d->evidence[i]);
    for (int i = 0; i < d->nsymptoms; i++)
        dam_buf_printf(b, "  ! %s\n", d->symptoms[i]);
    dam_buf_printf(b, d->no_fit ? "  Works, once it fits:\n"
                                : "  Works:\n");
    for (int i = 0; i < d->nworks; i++)
        dam_buf_printf(b, "    + %-*s %s\n", w,
                       dam_lever_kind_name(d->works[i].kind),
                       d->works[i].why);
    dam_buf_printf(b, d->no_fit ? "  Wasted, once it fits:\n"
                                : "  Wasted:\n");
    for (int i = 0; i < d->nwasted; i++)
        dam_buf_printf(b, "    - %-*s %s\n", w,
                       dam_lever_kind_name(d->wasted[i].kind),
                       d->wasted[i].why);
    if (d->anti_pattern[0])
        dam_buf_printf(b, "  Trap to avoid: %s\n", d->anti_pattern);

    dam_buf_printf(b, "\nScorecard\n");
    for (int i = 0; i < d->nscore; i++) {
        const dam_score_row *row = &d->score[i];
        dam_buf_printf(b, "  %-10s %-22s %14s  %-11s (%s)\n", row->axis,
                       row->metric, row->shown, dam_score_name(row->verdict),
                       row->rule);
    }
}

void dam_text_ms(char *buf, size_t n, double seconds, int sig)
{
    double ms = seconds * 1e3;
    if (isfinite(ms) && fabs(ms) < pow(10.0, sig) - 0.5)
        snprintf(buf, n, "%.*g ms", sig, ms);
    else
        dam_fmt_time(buf, n, seconds);
}
/* "step 4.69 s (90 %: 3.47 s to 6.45 s)": a time with its interval
 * when there is one, else the time alone. */
static void timed(char *buf, size_t n, const char *what, double v,
                  const dam_interval *iv)
{
    char t[48], lo[48], hi[48];
    dam_fmt_time(t, sizeof t, v);
    if (iv && iv->hi > iv->lo) {
        dam_fmt_time(lo, sizeof lo, iv->lo);
        dam_fmt_time(hi, sizeof hi, iv->hi);
        snprintf(buf, n, "%s %s (90 %%: %s to %s)", what, t, lo, hi);
    } else {
        snprintf(buf, n, "%s %s", what, t);
    }
}
/* The short block of an LLM deployment: the objectives at their
 * quantile, the interval under load, the cost per output token. */
static void short_llm(dam_buf *b, const dam_scenario *s, const dam_result *r,
                      const dam_uncertainty *u)
{
    const dam_llm_result *l = &r->serving.llm;
    if (!r->has_sim || !r->memory.fits)
        return;
    int pct = (int)lround(l->slo_quantile * 100.0);
    dam_buf_printf(b, "Figure    p%d TTFT %.4g ms +- %.3g (95 %% CI) "
                      "against %.4g ms, TPOT %.4g ms +- %.3g against "
                      "%.4g ms",
                   pct, l->ttft.q * 1e3, l->ttft.q_ci * 1e3,
                   l->slo_ttft_s * 1e3, l->tpot.q * 1e3, l->tpot.q_ci * 1e3,
                   l->slo_tpot_s * 1e3);
    if (u && u->load.ok)
        dam_buf_printf(b, "; 90 %% under load: TTFT %.4g to %.4g ms, TPOT "
                          "%.4g to %.4g ms",
                       u->load.ttft[0] * 1e3, u->load.ttft[1] * 1e3,
                       u->load.tpot[0] * 1e3, u->load.tpot[1] * 1e3);
    dam_buf_printf(b, "\n");
    if (s->cost.gpu_hour_usd > 0.0)
        dam_buf_printf(b, "Cost      $%.4g per million output tokens "
                          "($%.4g per hour for %.0f GPU%s)\n",
                       l->cost_per_mtok, l->cost_hour, l->gpus,
                       DAM_PLURAL(l->gpus));
    else
        dam_buf_printf(b, "Cost      n/a (no price per GPU-hour)\n");
}
/* The short block of a serving deployment: p99 against the SLO (or the
 * latency with its interval), the cost per million requests. */
static void short_serving(dam_buf *b, const dam_scenario *s,
                          const dam_result *r, const dam_uncertainty *u)
{
    char f[256], t1[48], t2[48], t3[48];
    const dam_serving_result *sv = &r->serving;
    if (r->has_sim && sv->slo_s > 0.0) {
        dam_fmt_time(t1, sizeof t1, sv->latency.p99);
        dam_fmt_time(t2, sizeof t2, sv->p99_ci95);
        dam_fmt_time(t3, sizeof t3, sv->slo_s);
        dam_buf_printf(b, "Figure    p99 %s +- %s (95 %% CI) against the %s "
                          "SLO: %s\n",
                       t1, t2, t3, dam_serving_slo_met(sv) ? "met" : "missed");
    } else if (sv->overloaded) {
        /* past its capacity no latency is an answer */
        dam_fmt_value(t1, sizeof t1, sv->capacity, DAM_FMT_PLAIN,
                      DAM_FMT_SIG);
        dam_fmt_value(t2, sizeof t2, s->serving.rate, DAM_FMT_PLAIN,
                      DAM_FMT_SIG);
        dam_buf_printf(b, "Figure    capacity %s requests/s against %s "
                          "offered: overloaded\n", t1, t2);
    } else {
        timed(f, sizeof f, "latency of a lone request", r->step,
              u ? &u->step : NULL);
        dam_buf_printf(b, "Figure    %s\n", f);
    }
    if (r->has_sim && sv->cost_per_1k > 0.0) {
        dam_fmt_usd(t1, sizeof t1, sv->cost_per_1k * 1000.0, DAM_FMT_SIG);
        dam_buf_printf(b, "Cost      %s per million requests\n", t1);
    }
}
void dam_text_short(dam_buf *b, const dam_scenario *s, const dam_result *r,
                    const dam_uncertainty *u)
{
    char f[256], t1[96], t2[48];
    if (r->serving.llm.enabled) {
        short_llm(b, s, r, u);
        return;
    }
    if (s->mode == DAM_MODE_SERVING) {
        short_serving(b, s, r, u);
        return;
    }
    /* what does not fit has no time nor cost to quote */
    if (!r->memory.fits) {
        dam_buf_printf(b, "Figure    needs %.3g GiB per GPU, the %s holds "
                          "%.3g GiB: it does not fit\n",
                       r->memory.total / DAM_GIB, s->machine.gpu.id,
                       r->memory.capacity / DAM_GIB);
        dam_buf_printf(b, "Cost      n/a: it cannot run as configured\n");
        return;
    }
    /* training: the run against its deadline, else the step; the cost */
    if (s->deadline > 0.0 && r->run_time > 0.0) {
        char dl[48];
        dam_fmt_time(dl, sizeof dl, s->deadline);
        timed(f, sizeof f, "run", r->run_time, u ? &u->run_time : NULL);
        dam_buf_printf(b, "Figure    %s against the %s deadline\n", f, dl);
    } else {
        timed(f, sizeof f, "step", r->step, u ? &u->step : NULL);
        dam_fmt_time(t1, sizeof t1, r->run_time);
        dam_buf_printf(b, "Figure    %s; the run %s\n", f, t1);
    }
    dam_fmt_num(t2, sizeof t2, r->gpu_hours, DAM_FMT_SIG);
    if (s->cost.gpu_hour_usd > 0.0) {
        dam_fmt_usd(t1, sizeof t1, r->cost_usd, DAM_FMT_SIG);
        dam_buf_printf(b, "Cost      %s the run", t1);
        if (u && u->cost_usd.hi > u->cost_usd.lo) {
            char c1[48], c2[48];
            dam_text_range(c1, c2, sizeof c1, u->cost_usd.lo, u->cost_usd.hi, 1);
            dam_buf_printf(b, " (90 %%: %s to %s)", c1, c2);
        }
        dam_buf_printf(b, ", %s GPU-hours\n", t2);
    } else {
        dam_buf_printf(b, "Cost      n/a (no price per GPU-hour), %s "
                          "GPU-hours\n",
                       t2);
    }
}
