/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * text.c: terminal reports. The run report is meant to be read in ten
 * seconds: question and answer first, then where the step goes (each term
 * with its share, the binding one marked), the iron law per stage, the
 * roofline, memory, the diagnosis and the scorecard. Every number comes
 * from the result; nothing is computed here but shares and unit scaling.
 */
#include "render/page/text.h"
#include "render/page/llm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/device.h"
#include "render/out/fmt.h"

static void rule(dam_buf *b)
{
    dam_buf_printf(b, "%s\n",
                   "------------------------------------------------------"
                   "------------------------");
}

/* Serving: per-phase latency table, SLO, throughput, utilisation, cost. */
static void serving_section(dam_buf *b, const dam_scenario *s,
                            const dam_result *r, const dam_uncertainty *u)
{
    const dam_serving_result *sv = &r->serving;
    const dam_serving *v = &s->serving;
    char t1[48], t2[48], t3[48], t4[48];
    dam_buf_printf(b, "\nServing: %d replica%s, max batch %d, timeout %.3g "
                      "ms, %d preprocess worker%s, %s arrivals",
                   v->replicas, v->replicas == 1 ? "" : "s", v->max_batch,
                   v->batch_timeout_s * 1e3, v->preprocess_workers,
                   v->preprocess_workers == 1 ? "" : "s",
                   v->arrival == DAM_ARRIVAL_POISSON         ? "Poisson"
                   : v->arrival == DAM_ARRIVAL_DETERMINISTIC ? "deterministic"
                                                             : "trace");
    if (v->arrival != DAM_ARRIVAL_TRACE) {
        dam_fmt_num(t1, sizeof t1, v->rate, DAM_FMT_SIG);
        dam_buf_printf(b, " at %s/s", t1);
    }
    dam_buf_printf(b, "\n  %-12s %10s %10s %10s %10s\n", "phase", "mean",
                   "p50", "p95", "p99");
    for (int i = 0; i <= DAM_SPHASE_COUNT; i++) {
        const dam_stat *st = i < DAM_SPHASE_COUNT ? &sv->phase[i]
                                                  : &sv->latency;
        dam_fmt_time(t1, sizeof t1, st->mean);
        dam_fmt_time(t2, sizeof t2, st->p50);
        dam_fmt_time(t3, sizeof t3, st->p95);
        dam_fmt_time(t4, sizeof t4, st->p99);
        dam_buf_printf(b, "  %-12s %10s %10s %10s %10s\n",
                       i < DAM_SPHASE_COUNT ? dam_serving_phase_name(i)
                                            : "end to end",
                       t1, t2, t3, t4);
    }
    dam_fmt_time(t1, sizeof t1, sv->latency.p99);
    dam_fmt_time(t2, sizeof t2, sv->p99_ci95);
    dam_fmt_time(t3, sizeof t3, v->slo_p99_s);
    int meets = dam_serving_slo_met(sv);
    dam_buf_printf(b, "  SLO p99 <= %s: p99 %s +- %s -> %s; %.2f %% of "
                      "requests within\n",
                   t3, t1, t2,
                   meets ? "MET"
                   : sv->latency.p99 <= v->slo_p99_s ? "MET without headroom"
                                                     : "MISSED",
                   sv->slo_attainment * 100.0);
    if (u && u->load.ok) {
        dam_fmt_time(t1, sizeof t1, u->load.p99[0]);
        dam_fmt_time(t2, sizeof t2, u->load.p99[1]);
        dam_buf_printf(b, "  90 %% interval of the p99: %s to %s (simulated "
                          "in the draws of the constants at a lone request's "
                          "5th and 95th percentile, with the CI)\n",
                       t1, t2);
    }
    dam_fmt_num(t1, sizeof t1, sv->throughput, DAM_FMT_SIG);
    dam_buf_printf(b, "  throughput %s requests/s   replicas busy %.1f %% "
                      "(computing %.1f %%)   CPU pool %.1f %%   mean batch "
                      "%.2f\n",
                   t1, sv->utilization * 100.0,
                   sv->gpu_busy * 100.0, sv->cpu_utilization * 100.0,
                   sv->mean_batch);
    if (s->cost.gpu_hour_usd > 0.0) {
        dam_fmt_usd(t1, sizeof t1, sv->cost_per_1k * 1000.0, DAM_FMT_SIG);
        /* the same identity: an hour of the GPUs and their electricity */
        dam_fmt_usd(t2, sizeof t2, sv->cost_per_1k * sv->throughput * 3.6,
                    DAM_FMT_SIG);
        dam_buf_printf(b, "  cost %s per million requests (%s per hour "
                          "for %d GPU%s)\n",
                       t1, t2, v->replicas, v->replicas == 1 ? "" : "s");
    }
    else
        dam_buf_printf(b, "  cost n/a (no price per GPU-hour)\n");
    char rp[96];
    dam_fmt_reps(rp, sizeof rp, r->replications, r->sim_steps, "requests");
    dam_buf_printf(b, "  (%s after warm-up)\n", rp);
}


/* "90 % interval" lines under the headline figures. */
static void interval_lines(dam_buf *b, const dam_scenario *s,
                           const dam_uncertainty *u)
{
    char t1[48], t2[48];
    dam_fmt_time(t1, sizeof t1, u->step.lo);
    dam_fmt_time(t2, sizeof t2, u->step.hi);
    dam_buf_printf(b, "  90 %% interval  %s %s to %s",
                   s->mode == DAM_MODE_SERVING ? "latency" : "step", t1, t2);
    if (s->mode != DAM_MODE_SERVING) {
        dam_fmt_time(t1, sizeof t1, u->run_time.lo);
        dam_fmt_time(t2, sizeof t2, u->run_time.hi);
        char g1[48], g2[48];
        dam_text_range(g1, g2, sizeof g1, u->gpu_hours.lo, u->gpu_hours.hi, 0);
        dam_buf_printf(b, "   run %s to %s   %s to %s GPU-hours", t1, t2, g1,
                       g2);
        if (s->cost.gpu_hour_usd > 0.0) {
            dam_text_range(g1, g2, sizeof g1, u->cost_usd.lo, u->cost_usd.hi, 1);
            dam_buf_printf(b, "   %s to %s", g1, g2);
        }
    }
    dam_buf_printf(b, "\n                  (%s, %d draws over %d "
                      "calibrated constant%s, the model's step error and %d "
                      "uncertain input%s; see the end)\n",
                   u->carried ? "about the simulated figures: the analytic "
                                "draws' spread"
                              : "analytic",
                   u->samples, u->nconstants, u->nconstants == 1 ? "" : "s",
                   s->nuncertain, s->nuncertain == 1 ? "" : "s");
}

/* The run's title: the scenario and what runs it. */
static void run_header(dam_buf *b, const dam_scenario *s)
{
    dam_buf_printf(b, "%s\n", s->name);
    if (s->mode == DAM_MODE_SERVING)
        dam_buf_printf(b, "  %s, %d x %s (replicas serving one queue), %s, "
                          "max batch %d\n",
                       s->workload.model.name, s->serving.replicas,
                       s->machine.gpu.id,
                       dam_precision_name(s->workload.precision),
                       s->serving.max_batch);
    else {
        char g[32], nd[32];
        dam_fmt_int(g, sizeof g, (long long)dam_scenario_gpus(s));
        dam_fmt_int(nd, sizeof nd, (long long)s->machine.nodes);
        dam_buf_printf(b, "  %s, %s x %s (%s node%s), %s, batch %d per "
                          "GPU\n",
                       s->workload.model.name, g,
                       s->machine.gpu.id, nd,
                       s->machine.nodes == 1 ? "" : "s",
                       dam_precision_name(s->workload.precision),
                       s->workload.batch_size);
    }
}

/* Step (or latency), throughput and MFU, the simulation's spread, and for
 * training the epoch, run, GPU-hours, cost and energy. */
static void run_figures(dam_buf *b, const dam_scenario *s,
                        const dam_result *r)
{
    char t1[48], t2[48], t3[48], t4[48], tp[48];
    dam_fmt_time(t1, sizeof t1, r->step);
    dam_fmt_value(tp, sizeof tp, r->throughput, DAM_FMT_PLAIN, DAM_FMT_SIG);
    snprintf(t2, sizeof t2, "%.36s samples/s", tp);
    if (s->mode == DAM_MODE_SERVING)
        snprintf(t2, sizeof t2, "%.36s requests/s", tp);
    dam_buf_printf(b, "%s %s (%s)   throughput %s",
                   s->mode == DAM_MODE_SERVING ? "Latency" : "Step", t1,
                   r->has_sim ? "simulated mean"
                   : s->mode == DAM_MODE_SERVING ? "analytic, a lone request"
                                                 : "analytic",
                   t2);
    if (r->tokens_per_s > 0.0 && s->workload.model.seq_len > 1.0) {
        dam_fmt_value(tp, sizeof tp, r->tokens_per_s, DAM_FMT_PLAIN,
                      DAM_FMT_SIG);
        snprintf(t3, sizeof t3, "%.36s tokens/s", tp);
        dam_buf_printf(b, " (%s)", t3);
    }
    if (s->mode == DAM_MODE_SERVING && r->serving.capacity > 0.0) {
        dam_fmt_value(tp, sizeof tp, r->serving.capacity, DAM_FMT_PLAIN,
                      DAM_FMT_SIG);
        dam_fmt_value(t3, sizeof t3, s->serving.rate, DAM_FMT_PLAIN,
                      DAM_FMT_SIG);
        if (r->serving.overloaded)
            dam_buf_printf(b, " (capacity %s; %s offered: OVERLOADED)", tp,
                           t3);
        else if (!r->has_sim)
            dam_buf_printf(b, " of a capacity of %s", tp);
    }
    dam_buf_printf(b, "   MFU %.1f %%\n", r->mfu * 100.0);
    if (r->has_sim) {
        dam_fmt_time(t1, sizeof t1, r->sim_step.ci95);
        dam_fmt_time(t2, sizeof t2, r->sim_step.p50);
        dam_fmt_time(t3, sizeof t3, r->sim_step.p99);
        char rp[96];
        dam_fmt_reps(rp, sizeof rp, r->replications, r->sim_steps,
                      s->mode == DAM_MODE_SERVING ? "requests" : "steps");
        dam_buf_printf(b, "     +- %s (95 %% CI, %s), p50 %s, p99 %s\n", t1,
                       rp, t2, t3);
    }
    if (s->mode == DAM_MODE_SERVING)
        return;
    dam_fmt_time(t1, sizeof t1, r->epoch_time);
    dam_fmt_time(t2, sizeof t2, r->run_time);
    if (s->data.epochs == floor(s->data.epochs) && s->data.epochs < 1e9)
        snprintf(t3, sizeof t3, "%.0f", s->data.epochs);
    else
        dam_fmt_num(t3, sizeof t3, s->data.epochs, DAM_FMT_SIG);
    dam_fmt_num(t4, sizeof t4, r->gpu_hours, DAM_FMT_SIG);
    dam_buf_printf(b, "Epoch %s   run %s (%s epoch%s)   %s GPU-hours", t1, t2,
                   t3, s->data.epochs == 1.0 ? "" : "s", t4);
    if (s->cost.gpu_hour_usd > 0.0) {
        dam_fmt_usd(t3, sizeof t3, r->cost_usd, DAM_FMT_SIG);
        dam_buf_printf(b, "   %s", t3);
    } else {
        dam_buf_printf(b, "   $ n/a (no price per GPU-hour)");
    }
    if (s->machine.gpu.tdp_w > 0.0) {
        dam_fmt_num(t3, sizeof t3, r->energy_kwh, DAM_FMT_SIG);
        dam_buf_printf(b, "   %s kWh", t3);
    }
    dam_buf_printf(b, "\n");
}

/* The step term the bound lives in (-1: none). */
static int bound_term(dam_bound bound)
{
    switch (bound) {
    case DAM_BOUND_DATA:
    case DAM_BOUND_PREPROCESS:
    case DAM_BOUND_QUEUEING: return DAM_TERM_DATA;
    case DAM_BOUND_WEIGHTS: return DAM_TERM_COMPUTE;
    case DAM_BOUND_TRANSFER: return DAM_TERM_TRANSFER;
    case DAM_BOUND_COMPUTE:
    case DAM_BOUND_MEMORY: return DAM_TERM_COMPUTE;
    case DAM_BOUND_COMM: return DAM_TERM_COMM;
    case DAM_BOUND_LATENCY: return DAM_TERM_OVERHEAD;
    default: return -1;
    }
}

/* Where the step goes: each term with its share and a bar, simulated
 * beside analytic when both are known. */
static void run_terms(dam_buf *b, const dam_result *r)
{
    char t1[48], t2[48];
    int side = r->has_sim && r->analytic_step > 0.0;
    if (side)
        dam_buf_printf(b, "\nWhere the step goes %44s %10s\n", "simulated",
                       "analytic");
    else
        dam_buf_printf(b, "\nWhere the step goes\n");
    double step = r->step > 0.0 ? r->step : 1.0;
    int bind_term = bound_term(r->bound);
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        if (t == DAM_TERM_WAIT && r->terms[t] <= 0.0 && r->gpus <= 1)
            continue; /* one rank waits for nobody */
        dam_fmt_time(t1, sizeof t1, r->terms[t]);
        int bar = (int)lround(r->terms[t] / step * 30.0);
        char bars[32];
        memset(bars, '#', (size_t)bar);
        bars[bar] = '\0';
        if (side) {
            dam_fmt_time(t2, sizeof t2, r->analytic_terms[t]);
            dam_buf_printf(b, "  %-22s %6.1f %%  %-30s %10s %10s%s\n",
                           dam_term_name((dam_term)t),
                           r->terms[t] / step * 100.0, bars, t1, t2,
                           t == bind_term ? " <- binds" : "");
        } else {
            dam_buf_printf(b, "  %-22s %10s %6.1f %%  %-30s%s\n",
                           dam_term_name((dam_term)t), t1,
                           r->terms[t] / step * 100.0, bars,
                           t == bind_term ? " <- binds" : "");
        }
    }
    if (!side)
        return;
    dam_fmt_time(t1, sizeof t1, r->step);
    dam_fmt_time(t2, sizeof t2, r->analytic_step);
    dam_buf_printf(b, "  %-22s %8s  %-30s %10s %10s\n", "step", "", "", t1,
                   t2);
    if (r->analytic_bound != r->bound)
        dam_buf_printf(b, "  (the analytic estimate says %s binds; the "
                          "simulation, with contention and variance, "
                          "says %s)\n",
                       dam_bound_name(r->analytic_bound),
                       dam_bound_name(r->bound));
}

/* The simulation's time by stage: busy, idle, blocked, starved. */
static void run_stage_times(dam_buf *b, const dam_result *r)
{
    if (!r->has_sim || r->nstage_times <= 0)
        return;
    dam_buf_printf(b, "\nSimulated time by stage (measured window, "
                      "mean of replications)\n");
    /* the stage column as wide as its longest name ("replica
     * (copy+compute)") */
    int w = 18;
    for (int i = 0; i < r->nstage_times; i++) {
        int l = (int)strlen(r->stage_times[i].name);
        w = l > w ? l : w;
    }
    dam_buf_printf(b, "  %-*s %8s %8s %8s %8s %8s\n", w, "stage", "entities",
                   "busy", "idle", "blocked", "starved");
    for (int i = 0; i < r->nstage_times; i++) {
        const dam_stage_time *st = &r->stage_times[i];
        double tot = st->busy + st->idle + st->blocked + st->starved;
        if (tot <= 0.0)
            tot = 1.0;
        dam_buf_printf(b, "  %-*s %8d %7.1f%% %7.1f%% %7.1f%% %7.1f%%\n",
                       w, st->name, st->entities, st->busy / tot * 100.0,
                       st->idle / tot * 100.0, st->blocked / tot * 100.0,
                       st->starved / tot * 100.0);
    }
    dam_buf_printf(b, "  %.0f events simulated\n", r->events);
}

/* The iron law per stage (volume over bandwidth, work over rate,
 * latency), then T_seq and T_pipe against the step. */
static void run_iron_law(dam_buf *b, const dam_scenario *s,
                         const dam_result *r)
{
    char t1[48], t2[48], t3[48], t4[48];
    dam_buf_printf(b, "\nIron law per stage (one GPU, one %s)\n",
                   s->mode == DAM_MODE_SERVING ? "request" : "step");
    /* the stage column as wide as its longest name ("tensor parallel") */
    int w = 11;
    for (int i = 0; i < r->nstages; i++) {
        int l = (int)strlen(r->stages[i].name);
        w = l > w ? l : w;
    }
    dam_buf_printf(b, "  %-*s %10s %12s %10s %12s %12s %9s %10s\n", w,
                   "stage", "D_vol", "BW", "D/BW", "O", "R*eta", "O/(R*eta)",
                   "L_lat");
    for (int i = 0; i < r->nstages; i++) {
        const dam_stage *st = &r->stages[i];
        char v[8][32];
        dam_fmt_bytes(v[0], 32, st->bytes);
        dam_fmt_si(v[1], 32, st->bw, "B/s");
        dam_fmt_time(v[2], 32, st->t_data);
        if (strcmp(st->name, "decode") == 0 ||
            strcmp(st->name, "preprocess") == 0) {
            snprintf(v[3], 32, "%.3g core-s", st->ops);
            snprintf(v[4], 32, "%.3g core%s", st->rate,
                     st->rate == 1.0 ? "" : "s");
        } else {
            dam_fmt_si(v[3], 32, st->ops, "FLOP");
            dam_fmt_si(v[4], 32, st->rate, "FLOP/s");
        }
        dam_fmt_time(v[5], 32, st->t_ops);
        dam_fmt_time(v[6], 32, st->t_lat);
        dam_buf_printf(b, "  %-*s %10s %12s %10s %12s %12s %9s %10s\n",
                       w, st->name, st->bytes > 0 ? v[0] : "-",
                       st->bw > 0 ? v[1] : "-", st->t_data > 0 ? v[2] : "-",
                       st->ops > 0 ? v[3] : "-", st->rate > 0 ? v[4] : "-",
                       st->t_ops > 0 ? v[5] : "-", st->t_lat > 0 ? v[6] : "-");
    }
    if (s->mode == DAM_MODE_SERVING)
        return;
    dam_fmt_time(t1, sizeof t1, r->t_seq);
    dam_fmt_time(t2, sizeof t2, r->t_pipe);
    dam_fmt_time(t3, sizeof t3, r->step);
    if (r->has_sim && r->analytic_step > 0.0) {
        dam_fmt_time(t4, sizeof t4, r->analytic_step);
        dam_buf_printf(b, "  T_seq (no overlap) %s   T_pipe (perfect "
                          "overlap) >= %s\n  analytic step %s   "
                          "simulated step %s\n",
                       t1, t2, t4, t3);
    } else {
        dam_buf_printf(b, "  T_seq (no overlap) %s   T_pipe (perfect "
                          "overlap) >= %s   configured %s\n",
                       t1, t2, t3);
    }
}

/* The roofline of each compute phase on the scenario's GPU. */
static void run_roofline(dam_buf *b, const dam_scenario *s,
                         const dam_result *r)
{
    char t1[48], t2[48], t3[48], t4[48];
    double ridge = dam_gpu_ridge(&s->machine.gpu, s->workload.precision);
    dam_buf_printf(b, "\nRoofline on %s at %s (ridge %.3g FLOP/byte)\n",
                   s->machine.gpu.id,
                   dam_precision_name(s->workload.precision), ridge);
    int marked = 0;
    for (int i = 0; i < r->nphases; i++) {
        const dam_phase_result *p = &r->phases[i];
        dam_fmt_si(t1, sizeof t1, p->flops, "FLOP");
        dam_fmt_bytes(t2, sizeof t2, p->bytes);
        dam_fmt_time(t3, sizeof t3, p->time);
        dam_fmt_num(t4, sizeof t4, p->intensity, DAM_FMT_SIG);
        /* the label and time are its kernels' (device model), which the
         * phase's average intensity against the ridge need not give */
        int odd = dam_phase_off_roofline(p, ridge, s->machine.gpu.mem_bw);
        marked |= odd;
        dam_buf_printf(b, "  %-14s %11s %11s  %8s FLOP/B  %-14s %10s%s\n",
                       p->name, t1, t2, t4,
                       p->memory_bound ? "memory-bound" : "compute-bound",
                       t3, odd ? " *" : "");
    }
    if (marked)
        dam_buf_printf(b, "  * set by its kernels, not by its average "
                          "intensity against the ridge: a small GEMM pads "
                          "to whole tiles (compute-bound below the ridge), "
                          "and operands that stay in L2 move faster than "
                          "HBM (less time than bytes / HBM bandwidth)\n");
}

/* GPU memory in one unit (GiB), and every part of the total. */
static void run_memory(dam_buf *b, const dam_result *r)
{
    char t1[48], t2[48];
    dam_fmt_memory(t1, sizeof t1, r->memory.total);
    dam_fmt_memory(t2, sizeof t2, r->memory.capacity);
    dam_buf_printf(b, "\nMemory %s of %s per GPU%s: %s\n", t1, t2,
                   r->memory.buffers > 0.0 ? " (worst pipeline stage)" : "",
                   !r->memory.fits   ? "DOES NOT FIT"
                   : r->memory.tight ? "fits, TIGHT (under 10 % to spare for "
                                       "fragmentation)"
                                     : "fits");
    const char *name[] = {"weights", "gradients", "optimizer state",
                          "activations", "buffers and runtime"};
    const double part[] = {r->memory.weights, r->memory.gradients,
                           r->memory.optimizer, r->memory.activations,
                           r->memory.buffers};
    dam_buf_printf(b, "  %.2f GiB =", r->memory.total / DAM_GIB);
    int k = 0;
    for (int i = 0; i < 5; i++)
        if (part[i] > 0.0 || i == 0 || i == 3)
            dam_buf_printf(b, "%s %s %.2f", k++ ? " +" : "", name[i],
                           part[i] / DAM_GIB);
    dam_buf_printf(b, " GiB\n");
    if (!r->memory.fits) {
        dam_fmt_memory(t1, sizeof t1, r->memory.shortfall);
        dam_buf_printf(b, "  short by %s\n", t1);
    }
}

void dam_text_run(dam_buf *b, const dam_scenario *s, const dam_result *r,
                  const dam_diagnosis *d, const dam_uncertainty *u)
{
    if (r->serving.llm.enabled) {
        dam_llm_text(b, s, r, d, u);
        return;
    }
    char answer[1024];
    dam_text_answer(answer, sizeof answer, s, r, d);

    run_header(b, s);
    rule(b);
    dam_buf_printf(b, "Question  %s\n", s->question);
    size_t prose = b->len;
    dam_buf_printf(b, "Answer    %s\n", answer);
    if (r->memory.fits)
        dam_buf_printf(b, "Binding   %s  [axis: %s]\n",
                       dam_bound_name(r->bound), d->axis);
    else
        dam_buf_printf(b, "Binding   memory capacity: it does not fit (once "
                          "it fits, %s)  [axis: %s]\n",
                       dam_bound_name(r->bound), d->axis);
    dam_text_short(b, s, r, u);
    dam_fmt_plain_tail(b, prose);
    rule(b);

    if (!r->memory.fits)
        dam_buf_printf(b, "As if it fitted (it does not: none of these "
                          "figures is an answer)\n");
    run_figures(b, s, r);
    if (u)
        interval_lines(b, s, u);
    if (s->mode == DAM_MODE_SERVING && r->has_sim)
        serving_section(b, s, r, u);
    run_terms(b, r);
    run_stage_times(b, r);
    run_iron_law(b, s, r);
    run_roofline(b, s, r);
    run_memory(b, r);
    dam_text_diagnosis(b, d);
}

void dam_text_catalog_gpus(dam_buf *b, const dam_catalog *c)
{
    dam_buf_printf(b, "%-18s %8s %8s %8s %8s %8s %6s %7s %7s %6s %7s\n", "id",
                   "fp32", "tf32", "bf16", "fp8", "int8", "2:4", "HBM",
                   "GB/s", "TDP", "ridge");
    dam_buf_printf(b, "%-18s %8s %8s %8s %8s %8s %6s %7s %7s %6s %7s\n", "",
                   "TFLOP/s", "TFLOP/s", "TFLOP/s", "TFLOP/s", "TOP/s", "",
                   "GiB", "", "W", "bf16");
    for (size_t i = 0; i < c->ngpus; i++) {
        const dam_gpu *g = &c->gpus[i];
        char v[5][16];
        const int cols[5] = {DAM_FP32, DAM_TF32, DAM_BF16, DAM_FP8, DAM_INT8};
        for (int k = 0; k < 5; k++) {
            if (g->peak[cols[k]] > 0.0)
                snprintf(v[k], 16, "%.1f", g->peak[cols[k]] / 1e12);
            else
                snprintf(v[k], 16, "-");
        }
        char ridge[16];
        double rb = dam_gpu_ridge(g, g->peak[DAM_BF16] > 0 ? DAM_BF16
                                                           : DAM_FP16);
        snprintf(ridge, sizeof ridge, "%.0f", rb);
        dam_buf_printf(b, "%-18s %8s %8s %8s %8s %8s %6s %7.0f %7.0f %6.0f "
                          "%7s\n",
                       g->id, v[0], v[1], v[2], v[3], v[4],
                       g->sparsity_2to4 ? "yes" : "no",
                       g->mem_bytes / DAM_GIB, g->mem_bw / 1e9, g->tdp_w,
                       ridge);
    }
    dam_buf_printf(b, "\nridge = peak / HBM bandwidth (FLOP per byte) at bf16 "
                      "(fp16 where bf16 is unsupported); peaks are dense.\n");

    /* the device model's constants (model/device.h), value +- sd */
    dam_buf_printf(b, "\nDevice model (data/gpus.cfg device groups; value "
                      "+- sd; data/README.md gives the sources)\n");
    dam_buf_printf(b, "%-18s %4s %6s %5s %13s %11s %8s %7s %7s\n", "id", "SMs",
                   "boost", "L2", "GEMM", "streaming", "kernel", "fabric",
                   "H2D");
    dam_buf_printf(b, "%-18s %4s %6s %5s %13s %11s %8s %7s %7s\n", "", "",
                   "MHz", "MiB", "c (bf16)", "m", "gap us", "GB/s", "GB/s");
    for (size_t i = 0; i < c->ngpus; i++) {
        const dam_gpu *g = &c->gpus[i];
        const dam_device *d = &g->dev;
        int p = g->peak[DAM_BF16] > 0.0 ? DAM_BF16 : DAM_FP16;
        char gemm[32], mem[32];
        snprintf(gemm, sizeof gemm, "%.3f+-%.3f%s", d->gemm[p].v,
                 d->gemm[p].sd, p == DAM_BF16 ? "" : "*");
        snprintf(mem, sizeof mem, "%.2f+-%.2f", d->mem.v, d->mem.sd);
        /* no SMs (Gaudi): no SM count or SM clock to show */
        char sms[16] = "-", boost[16] = "-";
        if (dam_device_per_sm(g)) {
            snprintf(sms, sizeof sms, "%d", g->sms);
            snprintf(boost, sizeof boost, "%.0f", g->boost_hz / 1e6);
        }
        dam_buf_printf(b, "%-18s %4s %6s %5.0f %13s %11s %8.2f %7.0f "
                          "%7.1f\n",
                       g->id, sms, boost,
                       g->l2_bytes / 1048576.0, gemm, mem,
                       d->kernel_gap.v * 1e6,
                       dam_device_fabric_busbw(g, 0.0) / 1e9, d->h2d.v / 1e9);
    }
    dam_buf_printf(b, "\nGEMM c: sustained share of the dense peak (* fp16); "
                      "m: share of the HBM bandwidth streaming kernels reach; "
                      "fabric: one-node all-reduce bus bandwidth (PCIe cards: "
                      "their copy rate); --json lists every constant.\n");
}

void dam_text_catalog_models(dam_buf *b, const dam_catalog *c)
{
    dam_buf_printf(b, "%-14s %-12s %10s %8s %12s %7s %10s %s\n", "id",
                   "family", "params", "seq", "fwd FLOP", "phases", "input B",
                   "eta (calibrated)");
    for (size_t i = 0; i < c->nmodels; i++) {
        const dam_model_spec *m = &c->models[i];
        char p[32], f[32], in[32], eta[256] = "";
        dam_fmt_si(p, sizeof p, m->params, "");
        dam_fmt_si(f, sizeof f, m->flops_per_sample, "");
        dam_fmt_bytes(in, sizeof in, m->input_bytes);
        for (int k = 0; k < DAM_PREC_COUNT; k++)
            if (m->eta[k] > 0.0) {
                char one[24];
                snprintf(one, sizeof one, "%s%s %.3g", eta[0] ? ", " : "",
                         dam_precision_name((dam_precision)k), m->eta[k]);
                strncat(eta, one, sizeof eta - strlen(eta) - 1);
            }
        for (int g = 0; g < m->ngpu_eta; g++)
            for (int k = 0; k < DAM_PREC_COUNT; k++)
                if (m->gpu_eta[g].eta[k] > 0.0) {
                    char one[80];
                    snprintf(one, sizeof one, "%s%s %s %.3g",
                             eta[0] ? ", " : "", m->gpu_eta[g].gpu,
                             dam_precision_name((dam_precision)k),
                             m->gpu_eta[g].eta[k]);
                    strncat(eta, one, sizeof eta - strlen(eta) - 1);
                }
        dam_buf_printf(b, "%-14s %-12s %10s %8.0f %12s %7d %10s %s\n", m->id,
                       m->family, p, m->seq_len, f, m->nphases, in,
                       eta[0] ? eta : "-");
    }
    dam_buf_printf(b, "\nfwd FLOP per sample (a sample is a sequence of seq "
                      "tokens for language models).\n");
}

void dam_text_uncertainty(dam_buf *b, const dam_scenario *s,
                          const dam_uncertainty *u)
{
    char t1[48], t2[48], t3[48];
    dam_buf_printf(b, "\nUncertainty (%d uncertain input%s, %d calibrated "
                      "constant%s; %d analytic draws; 90 %% intervals)\n",
                   s->nuncertain, s->nuncertain == 1 ? "" : "s",
                   u->nconstants, u->nconstants == 1 ? "" : "s", u->samples);
    dam_fmt_time(t1, sizeof t1, u->step.lo);
    dam_fmt_time(t2, sizeof t2, u->step.median);
    dam_fmt_time(t3, sizeof t3, u->step.hi);
    /* a service's figure: its simulated mean latency (the interval
     * carried to it) or a lone request's */
    int serving = s->mode == DAM_MODE_SERVING;
    const char *what = !serving ? "step"
                       : u->carried ? "mean latency"
                                    : "a lone request";
    dam_buf_printf(b, "  %-15s %s to %s (median %s)\n", what, t1, t3, t2);
    if (s->mode != DAM_MODE_SERVING) {
        dam_fmt_time(t1, sizeof t1, u->run_time.lo);
        dam_fmt_time(t3, sizeof t3, u->run_time.hi);
        dam_buf_printf(b, "  time to train   %s to %s\n", t1, t3);
        char g1[48], g2[48];
        dam_text_range(g1, g2, sizeof g1, u->gpu_hours.lo, u->gpu_hours.hi, 0);
        dam_buf_printf(b, "  GPU-hours       %s to %s\n", g1, g2);
        if (u->cost_usd.hi > 0.0) {
            dam_text_range(g1, g2, sizeof g1, u->cost_usd.lo, u->cost_usd.hi, 1);
            dam_buf_printf(b, "  cost            %s to %s\n", g1, g2);
        }
    }
    dam_buf_printf(b, "  binds           ");
    int first = 1;
    for (int k = 0; k < DAM_BOUND_COUNT; k++)
        if (u->p_bound[k] > 0.0) {
            dam_buf_printf(b, "%s%s %.0f %%", first ? "" : ", ",
                           dam_bound_name((dam_bound)k), u->p_bound[k] * 100);
            first = 0;
        }
    dam_buf_printf(b, " of samples%s\n  Which assumption matters most (%s "
                      "with each input at its 5th and 95th percentile):\n",
                   serving ? ", for a lone request" : "",
                   serving && !u->carried ? "a lone request's latency"
                                          : what);
    int quiet = 0, quiet_err = 0; /* quiet_err: the last quiet error row */
    for (int i = 0; i < u->ninputs; i++) {
        const dam_uncertainty_input *in = &u->inputs[i];
        if (in->constant && !(in->swing > 1e-6 * u->step.median)) {
            if (in->step_error)
                quiet_err = in->step_error;
            else
                quiet++;
            continue;
        }
        dam_fmt_time(t1, sizeof t1, in->step_lo);
        dam_fmt_time(t2, sizeof t2, in->step_hi);
        dam_fmt_time(t3, sizeof t3, in->swing);
        dam_buf_printf(b, "    %-34s %-10s %10.4g .. %-10.4g -> %s .. %s "
                          "(swing %s)\n",
                       in->key,
                       in->constant ? (in->default_sd ? "default sd"
                                                      : "catalog sd")
                                    : dam_uncertain_kind_name(in->kind),
                       in->value_lo / in->scale, in->value_hi / in->scale, t1,
                       t2, t3);
    }
    if (quiet || quiet_err) {
        const char *err = quiet_err == 1   ? "the step error of the GPU work"
                          : quiet_err == 2 ? "the step error of the rest"
                                           : "";
        char more[64] = "";
        if (quiet)
            snprintf(more, sizeof more, "%d more calibrated constant%s of "
                     "this GPU and framework", quiet, quiet == 1 ? "" : "s");
        dam_buf_printf(b, "    (%s%s%s: no effect on this %s)\n", more,
                       quiet && quiet_err ? ", and " : "", err,
                       serving ? "latency" : "step");
    }
    if (u->nconstants > 0)
        dam_buf_printf(b, "  Calibrated constants are drawn lognormally with "
                          "their uncertainty (\"catalog sd\": their own,\n"
                          "  from their fit or the spread of their sources; "
                          "\"default sd\": the field's default spread, "
                          "data/README.md),\n  the same draw for every "
                          "option.\n");
}
