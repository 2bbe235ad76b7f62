/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_report.c: `damsim report SCENARIO -o review.pdf`: a multi-page PDF
 * for a budget review. Page 1 is the summary (question, answer, key
 * numbers); then one page per chart of the what-if; then the lever table,
 * the iron law per stage, the roofline phases and the diagnosis; last, the
 * assumptions: every input with where it comes from.
 */
#include <stdio.h>
#include <string.h>

#include "cli/charts.h"
#include "cli/cli.h"
#include "model/alloc.h"
#include "render/report.h"
#include "render/units.h"
#include "render/whatif.h"

static const char report_help[] =
    "usage: damsim report SCENARIO.cfg -o review.pdf [--lever KEY=VALUE ...]\n"
    "\n"
    "Writes a PDF for a budget review: a summary page (question, answer, key\n"
    "numbers), the charts (where the step goes, what each lever buys, the\n"
    "roofline, return on compute, Chinchilla for language models), the lever\n"
    "table, the iron law per stage, and every input with its source.\n";

/* A pool of strings that live as long as the report. */
typedef struct pool {
    char **s;
    size_t n, cap;
} pool;

static const char *keep(pool *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
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

static int build(dam_cli *c, const dam_whatif *w, const char *out)
{
    const dam_whatif_row *base = &w->rows[0];
    const dam_scenario *s = &base->scenario;
    const dam_result *r = &base->result;
    pool P = {0};
    rows key = {0}, asm_ = {0};
    cells lev = {0}, stg = {0}, phs = {0}, dia = {0};
    char answer[1024];
    dam_whatif_answer(answer, sizeof answer, w);
    dam_chartset *cs = dam_malloc(sizeof *cs);
    dam_chartset_whatif(cs, w, answer);

    /* Key numbers. */
    row(&key, "binding term", keep(&P, "%s [%s]", dam_bound_name(r->bound),
                                   base->diagnosis.axis), NULL);
    row(&key, "step time", keep(&P, "%s (%s)", t_(&P, r->step),
                                r->has_sim ? "simulated" : "analytic"), NULL);
    row(&key, "throughput", keep(&P, "%.4g samples/s", r->throughput), NULL);
    if (s->mode != DAM_MODE_SERVING) {
        row(&key, "time to train", keep(&P, "%s (%.4g epochs)",
                                        t_(&P, r->run_time), s->data.epochs),
            NULL);
        row(&key, "GPU-hours", keep(&P, "%.4g", r->gpu_hours), NULL);
        row(&key, "cost", r->cost_usd > 0.0 ? keep(&P, "$%.0f", r->cost_usd)
                                            : "n/a (no price)", NULL);
        row(&key, "energy", keep(&P, "%.4g kWh", r->energy_kwh), NULL);
        row(&key, "I/O overhead", keep(&P, "%.1f %%", r->io_overhead * 100),
            NULL);
    }
    row(&key, "MFU", keep(&P, "%.1f %%", r->mfu * 100.0), NULL);
    row(&key, "memory per GPU",
        keep(&P, "%.1f of %.1f GB (%s)", r->memory.total / 1e9,
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
        put(&lev, x->name);
        if (x->verdict == DAM_VERDICT_FAILED) {
            for (int k = 0; k < 7; k++)
                put(&lev, "-");
        } else {
            put(&lev, t_(&P, x->result.step));
            put(&lev, t_(&P, x->result.run_time));
            put(&lev, keep(&P, "%.2fx", x->speedup));
            put(&lev, x->cost.gpu_hours >= 1e4
                          ? keep(&P, "%.3gk", x->cost.gpu_hours / 1e3)
                          : keep(&P, "%.4g", x->cost.gpu_hours));
            put(&lev, !(x->cost.usd > 0) ? "n/a"
                      : x->cost.usd >= 1e4
                          ? keep(&P, "$%.3gk", x->cost.usd / 1e3)
                          : keep(&P, "$%.0f", x->cost.usd));
            put(&lev, keep(&P, "%.4g%s", x->quality,
                           x->quality_unknown ? "?" : ""));
            put(&lev, dam_bound_name(x->result.bound));
        }
        put(&lev, dam_verdict_name(x->verdict));
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
        put(&stg, st->name);
        put(&stg, st->bytes > 0 ? keep(&P, "%s", b1) : "-");
        put(&stg, st->bw > 0 ? keep(&P, "%s", b2) : "-");
        put(&stg, st->t_data > 0 ? t_(&P, st->t_data) : "-");
        put(&stg, st->ops <= 0 ? "-"
                  : strcmp(st->name, "decode") == 0
                      ? keep(&P, "%.3g core-s", st->ops)
                      : keep(&P, "%sFLOP", b3));
        put(&stg, st->rate <= 0 ? "-"
                  : strcmp(st->name, "decode") == 0
                      ? keep(&P, "%.3g cores", st->rate)
                      : keep(&P, "%sFLOP/s", b4));
        put(&stg, st->t_ops > 0 ? t_(&P, st->t_ops) : "-");
        put(&stg, st->t_lat > 0 ? t_(&P, st->t_lat) : "-");
        put(&stg, t_(&P, st->time));
    }
    static const char *const totals[3] = {"T_seq (nothing overlapped)",
                                          "T_pipe (perfect overlap)",
                                          "step (as configured)"};
    double tv[3] = {r->t_seq, r->t_pipe, r->step};
    for (int k = 0; k < 3; k++) {
        put(&stg, totals[k]);
        for (int j = 0; j < 7; j++)
            put(&stg, "");
        put(&stg, t_(&P, tv[k]));
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
        put(&phs, p->name);
        put(&phs, keep(&P, "%s", b1));
        put(&phs, keep(&P, "%s", b2));
        put(&phs, keep(&P, "%.3g", p->intensity));
        put(&phs, keep(&P, "%.3g", p->ridge));
        put(&phs, p->memory_bound ? "memory" : "compute");
        put(&phs, t_(&P, p->time));
    }
    /* Diagnosis. */
    static const char *const dia_head[] = {"kind", "what"};
    const dam_diagnosis *d = &base->diagnosis;
    for (int i = 0; i < d->nevidence; i++) {
        put(&dia, "evidence");
        put(&dia, d->evidence[i]);
    }
    for (int i = 0; i < d->nsymptoms; i++) {
        put(&dia, "symptom");
        put(&dia, d->symptoms[i]);
    }
    for (int i = 0; i < d->nworks; i++) {
        put(&dia, keep(&P, "works: %s", dam_lever_kind_name(d->works[i].kind)));
        put(&dia, d->works[i].why);
    }
    for (int i = 0; i < d->nwasted; i++) {
        put(&dia, keep(&P, "wasted: %s",
                       dam_lever_kind_name(d->wasted[i].kind)));
        put(&dia, d->wasted[i].why);
    }
    for (int i = 0; i < d->nscore; i++) {
        put(&dia, keep(&P, "scorecard: %s", d->score[i].metric));
        put(&dia, keep(&P, "%s: %s (%s)", d->score[i].shown,
                       dam_score_name(d->score[i].verdict), d->score[i].rule));
    }

    /* Assumptions: every input with its source. */
    const char *file = keep(&P, "scenario %s", s->file);
    const char *gsrc = keep(&P, "data/gpus.cfg: %s", s->machine.gpu.source);
    const char *msrc = keep(&P, "data/models.cfg: %s",
                            s->workload.model.source);
    const char *esrc = keep(&P, "data/models.cfg: %s",
                            s->workload.model.eta_source);
    row(&asm_, "GPU", s->machine.gpu.id, gsrc);
    row(&asm_, "GPU peak at the precision",
        keep(&P, "%.4g TFLOP/s (%s)", dam_scenario_peak(s) / 1e12,
             dam_precision_name(s->workload.precision)), gsrc);
    row(&asm_, "GPU memory bandwidth",
        keep(&P, "%.4g GB/s", s->machine.gpu.mem_bw / 1e9), gsrc);
    row(&asm_, "GPU memory", keep(&P, "%.4g GiB",
                                  s->machine.gpu.mem_bytes / 1073741824.0),
        gsrc);
    row(&asm_, "GPUs", keep(&P, "%d x %d nodes", s->machine.gpus_per_node,
                            s->machine.nodes), file);
    row(&asm_, "host cores per node", keep(&P, "%d", s->machine.cpu_cores),
        file);
    row(&asm_, "PCIe host-to-device",
        keep(&P, "%.4g GB/s per link, %d GPUs per link",
             s->machine.pcie_bw / 1e9, s->machine.gpus_per_pcie_link), file);
    row(&asm_, "storage", keep(&P, "%s, %.4g GB/s, %.3g ms latency",
                               dam_storage_name(s->machine.storage_kind),
                               s->machine.storage_bw / 1e9,
                               s->machine.storage_latency * 1e3), file);
    row(&asm_, "all-reduce bus bandwidth",
        keep(&P, "intra %.4g GB/s, inter %.4g GB/s, alpha %.3g us",
             s->machine.intra_busbw / 1e9, s->machine.inter_busbw / 1e9,
             s->machine.net_latency * 1e6), file);
    row(&asm_, "model", s->workload.model.name, msrc);
    row(&asm_, "parameters", keep(&P, "%.4g", s->workload.model.params), msrc);
    row(&asm_, "forward FLOPs per sample",
        keep(&P, "%.4g", s->workload.model.flops_per_sample), msrc);
    row(&asm_, "efficiency (eta)", keep(&P, "%.3g", s->workload.eta),
        s->workload.model.eta_source[0] ? esrc : file);
    row(&asm_, "memory efficiency",
        keep(&P, "%.3g", s->workload.eta_mem),
        "default 0.85 unless the scenario sets memory_efficiency: the share "
        "of HBM bandwidth streaming kernels reach (assumption)");
    row(&asm_, "precision, batch",
        keep(&P, "%s, %d per GPU", dam_precision_name(s->workload.precision),
             s->workload.batch_size), file);
    row(&asm_, "launches, launch cost, framework overhead",
        keep(&P, "%d, %.3g us, %.3g ms", s->workload.kernels_per_step,
             s->workload.launch_s * 1e6,
             s->workload.framework_overhead_s * 1e3),
        "scenario, else data/models.cfg (launch 4 us default)");
    if (s->mode != DAM_MODE_SERVING) {
        row(&asm_, "samples, epochs",
            keep(&P, "%.6g, %.4g", s->data.samples, s->data.epochs), file);
        row(&asm_, "bytes per sample (storage, to the GPU)",
            keep(&P, "%.6g, %.6g", s->data.raw_bytes, s->data.input_bytes),
            file);
        row(&asm_, "decode per sample",
            keep(&P, "%.3g ms on one core, cv %.2g", s->data.decode_s * 1e3,
                 s->data.decode_cv), file);
        row(&asm_, "loader",
            keep(&P, "%d workers per GPU, prefetch %d, pinned %s, copy "
                     "overlap %s, sync overlap %s, buckets %.3g MB",
                 s->pipeline.loader_workers, s->pipeline.prefetch_factor,
                 s->pipeline.pin_memory ? "yes" : "no",
                 s->pipeline.overlap_transfer ? "yes" : "no",
                 s->pipeline.overlap_sync ? "yes" : "no",
                 s->pipeline.bucket_bytes / 1e6), file);
    }
    row(&asm_, "price", s->cost.gpu_hour_usd > 0.0
                            ? keep(&P, "$%.4g per GPU-hour, PUE %.3g",
                                   s->cost.gpu_hour_usd, s->cost.pue)
                            : "none", file);
    row(&asm_, "quality", keep(&P, "%s %.4g", s->quality.metric,
                               dam_quality_after(s)),
        s->quality.from_scaling_law
            ? "Chinchilla fit, Hoffmann et al. 2022 (E 1.69, A 406.4, B "
              "410.7, alpha 0.34, beta 0.28)"
            : file);
    for (int i = 0; i < s->nlevers; i++)
        row(&asm_, keep(&P, "lever \"%s\"", s->levers[i].name),
            keep(&P, "%d change%s", s->levers[i].nops,
                 s->levers[i].nops == 1 ? "" : "s"),
            keep(&P, "%s line %d", s->file, s->levers[i].line));

    dam_report_table tables[4] = {
        {"Each lever alone and combined", 9, lev_head, lev.c,
         lev.n / 9, lev_num},
        {"The iron law per stage (one GPU, one step)", 9, stg_head, stg.c,
         stg.n / 9, stg_num},
        {"Roofline of each compute phase", 7, ph_head, phs.c, phs.n / 7,
         ph_num},
        {"Diagnosis: a hypothesis with its evidence", 2, dia_head, dia.c,
         dia.n / 2, NULL},
    };
    char context[512];
    snprintf(context, sizeof context, "damsim %s, scenario %s, %s",
             DAM_VERSION, s->file,
             r->has_sim ? "simulated" : "analytic");
    dam_report rep = {
        .title = s->name,
        .context = context,
        .question = s->question,
        .answer = answer,
        .key_numbers = key.r,
        .nkey = key.n,
        .charts = cs->charts,
        .ncharts = cs->ncharts,
        .tables = tables,
        .ntables = 4,
        .assumptions = asm_.r,
        .nassumptions = asm_.n,
    };
    dam_error e;
    memset(&e, 0, sizeof e);
    int rc = dam_report_write(out, &rep, &e);
    if (rc != DAM_OK) {
        dam_cli_error(&e);
        rc = rc == DAM_EINPUT ? 2 : 1;
    } else if (!c->quiet) {
        printf("%s: %zu pages\n", out, dam_report_page_count(&rep));
    }
    dam_chartset_free(cs);
    dam_free(cs);
    dam_free((void *)lev.c);
    dam_free((void *)stg.c);
    dam_free((void *)phs.c);
    dam_free((void *)dia.c);
    dam_free(key.r);
    dam_free(asm_.r);
    pool_free(&P);
    return rc;
}

int dam_cmd_report(dam_cli *c)
{
    if (c->help) {
        fputs(report_help, stdout);
        return 0;
    }
    if (c->nargs != 1 || !c->out_file) {
        fprintf(stderr, "damsim: report needs one scenario file and -o "
                        "FILE.pdf\n(see 'damsim report --help')\n");
        return 2;
    }
    const char *dot = strrchr(c->out_file, '.');
    if (!dot || strcmp(dot, ".pdf") != 0) {
        fprintf(stderr, "damsim: report writes a PDF: -o must end in .pdf, "
                        "got '%s'\n",
                c->out_file);
        return 2;
    }
    dam_whatif *w = dam_malloc(sizeof *w);
    int rc = dam_cli_whatif_solve(c, c->args[0], w);
    if (rc == 0)
        rc = build(c, w, c->out_file);
    dam_free(w);
    return rc;
}
