/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * review.c: the budget-review document of a what-if (see review.h). Page 1
 * is the summary (question, answer, key numbers); then one page per chart
 * of the what-if; then the lever table, the iron law per stage, the
 * roofline phases and the diagnosis; last, the assumptions: every input
 * with where it comes from. Strings are formatted once into a pool that
 * lives as long as the review.
 */
#include "render/review.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/alloc.h"
#include "model/scaling.h"
#include "render/fmt.h"
#include "render/whatif.h"

/* A pool of strings that live as long as the report. */
typedef struct pool {
    char **s;
    size_t n, cap;
} pool;

static const char *keep(pool *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *keep(pool *p, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->s = dam_realloc(p->s, p->cap * sizeof *p->s);
    }
    p->s[p->n] = dam_strdup(buf);
    return p->s[p->n++];
}

static const char *t_(pool *p, double s)
{
    char b[48];
    dam_fmt_time(b, sizeof b, s);
    return keep(p, "%s", b);
}

static void pool_free(pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        dam_free(p->s[i]);
    dam_free(p->s);
}

/* Growable row-major cell list. */
typedef struct cells {
    const char **c;
    size_t n, cap;
} cells;

static void put(cells *t, const char *v)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 128;
        t->c = (const char **)dam_realloc((void *)t->c,
                                          t->cap * sizeof *t->c);
    }
    t->c[t->n++] = v;
}

typedef struct rows {
    dam_report_row *r;
    size_t n, cap;
} rows;

static void row(rows *t, const char *k, const char *v, const char *src)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->r = dam_realloc(t->r, t->cap * sizeof *t->r);
    }
    t->r[t->n].key = k;
    t->r[t->n].value = v;
    t->r[t->n].source = src;
    t->n++;
}


/* Everything a review owns besides its chartset. */
struct dam_review_store {
    pool pool;          /* formatted strings */
    rows key;           /* summary rows */
    rows assumptions;   /* inputs with their sources */
    cells cells[DAM_REVIEW_TABLES]; /* table cells, row-major */
};

void dam_review_build(dam_review *rv, const dam_whatif *w,
                      const char *version)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_scenario *s = &base->scenario;
    const dam_result *r = &base->result;
    memset(rv, 0, sizeof *rv);
    dam_review_store *st_ = dam_calloc(1, sizeof *st_);
    rv->store = st_;
    pool *P_ = &st_->pool;
    rows *key_ = &st_->key, *asm_p = &st_->assumptions;
    cells *lev_ = &st_->cells[0], *stg_ = &st_->cells[1],
          *phs_ = &st_->cells[2], *dia_ = &st_->cells[3];
    char answer[1024];
    dam_whatif_answer(answer, sizeof answer, w);
    const char *answer_kept = keep(P_, "%s", answer);
    dam_chartset *cs = dam_malloc(sizeof *cs);
    dam_chartset_whatif(cs, w, answer_kept);
    rv->charts = cs;

    /* Key numbers. */
    row(key_, "binding term", keep(P_, "%s [%s]", dam_bound_name(r->bound),
                                   base->diagnosis.axis), NULL);
    row(key_, "step time", keep(P_, "%s (%s)", t_(P_, r->step),
                                r->has_sim ? "simulated" : "analytic"), NULL);
    row(key_, "throughput", keep(P_, "%.4g samples/s", r->throughput), NULL);
    if (s->mode != DAM_MODE_SERVING) {
        row(key_, "time to train", keep(P_, "%s (%.4g epochs)",
                                        t_(P_, r->run_time), s->data.epochs),
            NULL);
        row(key_, "GPU-hours", keep(P_, "%.4g", r->gpu_hours), NULL);
        row(key_, "cost", r->cost_usd > 0.0 ? keep(P_, "$%.0f", r->cost_usd)
                                            : "n/a (no price)", NULL);
        row(key_, "energy", keep(P_, "%.4g kWh", r->energy_kwh), NULL);
        row(key_, "I/O overhead", keep(P_, "%.1f %%", r->io_overhead * 100),
            NULL);
    }
    if (base->has_interval) {
        const dam_answer_interval *a = &base->interval;
        row(key_, "step time, 90 % interval",
            keep(P_, "%s to %s", t_(P_, a->step.lo), t_(P_, a->step.hi)),
            NULL);
        if (s->mode != DAM_MODE_SERVING) {
            row(key_, "time to train, 90 % interval",
                keep(P_, "%s to %s", t_(P_, a->run_time.lo),
                     t_(P_, a->run_time.hi)), NULL);
            row(key_, "GPU-hours, 90 % interval",
                keep(P_, "%.4g to %.4g", a->gpu_hours.lo, a->gpu_hours.hi),
                NULL);
            if (r->cost_usd > 0.0)
                row(key_, "cost, 90 % interval",
                    keep(P_, "$%.0f to $%.0f", a->cost_usd.lo,
                         a->cost_usd.hi), NULL);
        }
    }
    row(key_, "MFU", keep(P_, "%.1f %%", r->mfu * 100.0), NULL);
    row(key_, "memory per GPU",
        keep(P_, "%.1f of %.1f GB (%s)", r->memory.total / 1e9,
             r->memory.capacity / 1e9, r->memory.fits ? "fits" : "DOES NOT FIT"),
        NULL);

    /* Lever table. */
    static const char *const lev_head[] = {"option", "step", "time to train",
                                           "speed-up", "GPU-hours", "cost",
                                           "quality", "binds after",
                                           "verdict"};
    static const int lev_num[] = {0, 1, 1, 1, 1, 1, 1, 0, 0};
    for (int i = 0; i < w->nrows; i++) {
        const dam_whatif_row *x = &w->rows[i];
        put(lev_, x->name);
        if (x->verdict == DAM_VERDICT_FAILED) {
            for (int k = 0; k < 7; k++)
                put(lev_, "-");
        } else {
            put(lev_, t_(P_, x->result.step));
            put(lev_, t_(P_, x->result.run_time));
            if (i > 0 && x->has_interval)
                put(lev_, keep(P_, "%.2fx (%.2f-%.2f)", x->speedup,
                               x->interval.speedup.lo,
                               x->interval.speedup.hi));
            else
                put(lev_, keep(P_, "%.2fx", x->speedup));
            put(lev_, x->cost.gpu_hours >= 1e4
                          ? keep(P_, "%.3gk", x->cost.gpu_hours / 1e3)
                          : keep(P_, "%.4g", x->cost.gpu_hours));
            put(lev_, !(x->cost.usd > 0) ? "n/a"
                      : x->cost.usd >= 1e4
                          ? keep(P_, "$%.3gk", x->cost.usd / 1e3)
                          : keep(P_, "$%.0f", x->cost.usd));
            put(lev_, keep(P_, "%.4g%s", x->quality,
                           x->quality_unknown ? "?" : ""));
            put(lev_, dam_bound_name(x->result.bound));
        }
        put(lev_, dam_verdict_name(x->verdict));
    }
    /* Iron law per stage. */
    static const char *const stg_head[] = {"stage", "D_vol", "BW", "D/BW",
                                           "O", "R*eta", "O/(R*eta)", "L_lat",
                                           "time"};
    static const int stg_num[] = {0, 1, 1, 1, 1, 1, 1, 1, 1};
    for (int i = 0; i < r->nstages; i++) {
        const dam_stage *st = &r->stages[i];
        char b1[32], b2[32], b3[32], b4[32];
        dam_fmt_bytes(b1, sizeof b1, st->bytes);
        dam_fmt_si(b2, sizeof b2, st->bw, "B/s");
        dam_fmt_si(b3, sizeof b3, st->ops, "");
        dam_fmt_si(b4, sizeof b4, st->rate, "");
        put(stg_, st->name);
        put(stg_, st->bytes > 0 ? keep(P_, "%s", b1) : "-");
        put(stg_, st->bw > 0 ? keep(P_, "%s", b2) : "-");
        put(stg_, st->t_data > 0 ? t_(P_, st->t_data) : "-");
        put(stg_, st->ops <= 0 ? "-"
                  : strcmp(st->name, "decode") == 0
                      ? keep(P_, "%.3g core-s", st->ops)
                      : keep(P_, "%sFLOP", b3));
        put(stg_, st->rate <= 0 ? "-"
                  : strcmp(st->name, "decode") == 0
                      ? keep(P_, "%.3g cores", st->rate)
                      : keep(P_, "%sFLOP/s", b4));
        put(stg_, st->t_ops > 0 ? t_(P_, st->t_ops) : "-");
        put(stg_, st->t_lat > 0 ? t_(P_, st->t_lat) : "-");
        put(stg_, t_(P_, st->time));
    }
    static const char *const totals[3] = {"T_seq (nothing overlapped)",
                                          "T_pipe (perfect overlap)",
                                          "step (as configured)"};
    double tv[3] = {r->t_seq, r->t_pipe, r->step};
    for (int k = 0; k < 3; k++) {
        put(stg_, totals[k]);
        for (int j = 0; j < 7; j++)
            put(stg_, "");
        put(stg_, t_(P_, tv[k]));
    }
    /* Roofline phases. */
    static const char *const ph_head[] = {"phase", "FLOP", "bytes",
                                          "FLOP/byte", "ridge", "bound",
                                          "time"};
    static const int ph_num[] = {0, 1, 1, 1, 1, 0, 1};
    for (int i = 0; i < r->nphases; i++) {
        const dam_phase_result *p = &r->phases[i];
        char b1[32], b2[32];
        dam_fmt_si(b1, sizeof b1, p->flops, "FLOP");
        dam_fmt_bytes(b2, sizeof b2, p->bytes);
        put(phs_, p->name);
        put(phs_, keep(P_, "%s", b1));
        put(phs_, keep(P_, "%s", b2));
        put(phs_, keep(P_, "%.3g", p->intensity));
        put(phs_, keep(P_, "%.3g", p->ridge));
        put(phs_, p->memory_bound ? "memory" : "compute");
        put(phs_, t_(P_, p->time));
    }
    /* Diagnosis. */
    static const char *const dia_head[] = {"kind", "what"};
    const dam_diagnosis *d = &base->diagnosis;
    for (int i = 0; i < d->nevidence; i++) {
        put(dia_, "evidence");
        put(dia_, d->evidence[i]);
    }
    for (int i = 0; i < d->nsymptoms; i++) {
        put(dia_, "symptom");
        put(dia_, d->symptoms[i]);
    }
    for (int i = 0; i < d->nworks; i++) {
        put(dia_, keep(P_, "works: %s", dam_lever_kind_name(d->works[i].kind)));
        put(dia_, d->works[i].why);
    }
    for (int i = 0; i < d->nwasted; i++) {
        put(dia_, keep(P_, "wasted: %s",
                       dam_lever_kind_name(d->wasted[i].kind)));
        put(dia_, d->wasted[i].why);
    }
    for (int i = 0; i < d->nscore; i++) {
        put(dia_, keep(P_, "scorecard: %s", d->score[i].metric));
        put(dia_, keep(P_, "%s: %s (%s)", d->score[i].shown,
                       dam_score_name(d->score[i].verdict), d->score[i].rule));
    }

    /* Assumptions: every input with its source. */
    const char *file = keep(P_, "scenario %s", s->file);
    const char *gsrc = keep(P_, "data/gpus.cfg: %s", s->machine.gpu.source);
    const char *msrc = keep(P_, "data/models.cfg: %s",
                            s->workload.model.source);
    const char *esrc = keep(P_, "data/models.cfg: %s",
                            s->workload.model.eta_source);
    row(asm_p, "GPU", s->machine.gpu.id, gsrc);
    row(asm_p, "GPU peak at the precision",
        keep(P_, "%.4g TFLOP/s (%s)", dam_scenario_peak(s) / 1e12,
             dam_precision_name(s->workload.precision)), gsrc);
    row(asm_p, "GPU memory bandwidth",
        keep(P_, "%.4g GB/s", s->machine.gpu.mem_bw / 1e9), gsrc);
    row(asm_p, "GPU memory", keep(P_, "%.4g GiB",
                                  s->machine.gpu.mem_bytes / 1073741824.0),
        gsrc);
    row(asm_p, "GPUs", keep(P_, "%d x %d nodes", s->machine.gpus_per_node,
                            s->machine.nodes), file);
    row(asm_p, "host cores per node", keep(P_, "%d", s->machine.cpu_cores),
        file);
    row(asm_p, "PCIe host-to-device",
        keep(P_, "%.4g GB/s per link, %d GPUs per link",
             s->machine.pcie_bw / 1e9, s->machine.gpus_per_pcie_link), file);
    row(asm_p, "storage", keep(P_, "%s, %.4g GB/s, %.3g ms latency",
                               dam_storage_name(s->machine.storage_kind),
                               s->machine.storage_bw / 1e9,
                               s->machine.storage_latency * 1e3), file);
    row(asm_p, "all-reduce bus bandwidth",
        keep(P_, "intra %.4g GB/s, inter %.4g GB/s, alpha %.3g us",
             s->machine.intra_busbw / 1e9, s->machine.inter_busbw / 1e9,
             s->machine.net_latency * 1e6), file);
    row(asm_p, "model", s->workload.model.name, msrc);
    row(asm_p, "parameters", keep(P_, "%.4g", s->workload.model.params), msrc);
    row(asm_p, "forward FLOPs per sample",
        keep(P_, "%.4g", s->workload.model.flops_per_sample), msrc);
    row(asm_p, "efficiency (eta)", keep(P_, "%.3g", s->workload.eta),
        s->workload.model.eta_source[0] ? esrc : file);
    row(asm_p, "memory efficiency",
        keep(P_, "%.3g", s->workload.eta_mem),
        "default 0.85 unless the scenario sets memory_efficiency: the share "
        "of HBM bandwidth streaming kernels reach (assumption)");
    row(asm_p, "precision, batch",
        keep(P_, "%s, %d per GPU", dam_precision_name(s->workload.precision),
             s->workload.batch_size), file);
    row(asm_p, "launches, launch cost, framework overhead",
        keep(P_, "%d, %.3g us, %.3g ms", s->workload.kernels_per_step,
             s->workload.launch_s * 1e6,
             s->workload.framework_overhead_s * 1e3),
        "scenario, else data/models.cfg (launch 4 us default)");
    if (s->mode != DAM_MODE_SERVING) {
        row(asm_p, "samples, epochs",
            keep(P_, "%.6g, %.4g", s->data.samples, s->data.epochs), file);
        row(asm_p, "bytes per sample (storage, to the GPU)",
            keep(P_, "%.6g, %.6g", s->data.raw_bytes, s->data.input_bytes),
            file);
        row(asm_p, "decode per sample",
            keep(P_, "%.3g ms on one core, cv %.2g", s->data.decode_s * 1e3,
                 s->data.decode_cv), file);
        row(asm_p, "loader",
            keep(P_, "%d workers per GPU, prefetch %d, pinned %s, copy "
                     "overlap %s, sync overlap %s, buckets %.3g MB",
                 s->pipeline.loader_workers, s->pipeline.prefetch_factor,
                 s->pipeline.pin_memory ? "yes" : "no",
                 s->pipeline.overlap_transfer ? "yes" : "no",
                 s->pipeline.overlap_sync ? "yes" : "no",
                 s->pipeline.bucket_bytes / 1e6), file);
    }
    row(asm_p, "price", s->cost.gpu_hour_usd > 0.0
                            ? keep(P_, "$%.4g per GPU-hour, PUE %.3g",
                                   s->cost.gpu_hour_usd, s->cost.pue)
                            : "none", file);
    const dam_scaling_fit *fit =
        dam_scaling_fit_get((dam_scaling_fit_id)s->quality.fit);
    row(asm_p, "quality", keep(P_, "%s %.4g", s->quality.metric,
                               dam_quality_after(s)),
        s->quality.from_scaling_law && fit
            ? keep(P_, "scaling-law loss: %s (%s)", fit->loss_fit, fit->name)
            : file);
    for (int i = 0; i < w->levers.n; i++) {
        const dam_lever *l = &w->levers.v[i];
        row(asm_p, keep(P_, "lever \"%s\"", l->name),
            keep(P_, "%d change%s", l->nops, l->nops == 1 ? "" : "s"),
            l->line > 0 ? keep(P_, "%s line %d", s->file, l->line)
                        : "command line");
    }

    dam_report_table tables[4] = {
        {"Each lever alone and combined", 9, lev_head, lev_->c,
         lev_->n / 9, lev_num},
        {"The iron law per stage (one GPU, one step)", 9, stg_head, stg_->c,
         stg_->n / 9, stg_num},
        {"Roofline of each compute phase", 7, ph_head, phs_->c, phs_->n / 7,
         ph_num},
        {"Diagnosis: a hypothesis with its evidence", 2, dia_head, dia_->c,
         dia_->n / 2, NULL},
    };
    const char *context = keep(P_, "damsim %s, scenario %s, %s",
             version, s->file,
         r->has_sim ? "simulated" : "analytic");
    dam_report rep = {
        .title = s->name,
        .context = context,
        .question = s->question,
        .answer = answer_kept,
        .key_numbers = key_->r,
        .nkey = key_->n,
        .charts = cs->charts,
        .ncharts = cs->ncharts,
        .tables = NULL,
        .ntables = 4,
        .assumptions = asm_p->r,
        .nassumptions = asm_p->n,
    };
    rv->tables[0] = tables[0];
    rv->tables[1] = tables[1];
    rv->tables[2] = tables[2];
    rv->tables[3] = tables[3];
    rv->report = rep;
    rv->report.tables = rv->tables;
}

void dam_review_free(dam_review *rv)
{
    if (rv->charts) {
        dam_chartset_free(rv->charts);
        dam_free(rv->charts);
    }
    dam_review_store *st = rv->store;
    if (st) {
        for (int i = 0; i < DAM_REVIEW_TABLES; i++)
            dam_free((void *)st->cells[i].c);
        dam_free(st->key.r);
        dam_free(st->assumptions.r);
        pool_free(&st->pool);
        dam_free(st);
    }
    memset(rv, 0, sizeof *rv);
}
