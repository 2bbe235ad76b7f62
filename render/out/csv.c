/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * csv.c: CSV output (see csv.h). Columns are listed once, in tables of
 * (header, getter) pairs, so a header and its values cannot drift apart.
 */
#include "render/out/csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void dam_csv_field(dam_buf *b, const char *s)
{
    s = s ? s : "";
    if (!strpbrk(s, ",\"\r\n")) {
        dam_buf_append(b, s, strlen(s));
        return;
    }
    dam_buf_append(b, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            dam_buf_append(b, "\"", 1);
        dam_buf_append(b, p, 1);
    }
    dam_buf_append(b, "\"", 1);
}

void dam_csv_num(dam_buf *b, double v)
{
    if (isfinite(v))
        dam_buf_printf(b, "%.9g", v == 0.0 ? 0.0 : v);
}

void dam_csv_nums(dam_buf *b, const double *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        dam_csv_num(b, v[k]);
        dam_buf_printf(b, ",");
    }
}

void dam_csv_ident(char *out, size_t n, const char *name)
{
    size_t k = 0;
    int under = 0;
    for (const char *p = name ? name : ""; *p && k + 1 < n; p++) {
        char ch = *p;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (ok) {
            out[k++] = ch;
            under = 0;
        } else if (!under && k > 0) {
            out[k++] = '_';
            under = 1;
        }
    }
    while (k > 0 && out[k - 1] == '_')
        k--;
    if (n)
        out[k] = '\0';
}

/* ---- results --------------------------------------------------------- */

/* A numeric column of a result row. */
typedef struct column {
    const char *name;
    double (*get)(const dam_scenario *s, const dam_result *r);
} column;

#define GET(fn, expr)                                                         \
    static double fn(const dam_scenario *s, const dam_result *r)              \
    {                                                                         \
        (void)s;                                                              \
        (void)r;                                                              \
        return (expr);                                                        \
    }

GET(g_gpus, (double)r->gpus)
GET(g_batch, (double)s->workload.batch_size)
GET(g_step, r->step)
GET(g_step_ci, r->has_sim ? r->sim_step.ci95 : (double)NAN)
GET(g_tput, r->throughput)
GET(g_tokens, r->tokens_per_s)
GET(g_epoch, r->epoch_time)
GET(g_run, r->run_time)
GET(g_mfu, r->mfu)
GET(g_io, r->io_overhead)
GET(g_gh, r->gpu_hours)
GET(g_usd, r->cost_usd > 0.0 ? r->cost_usd : (double)NAN)
GET(g_kwh, r->energy_kwh)
GET(g_tseq, r->t_seq)
GET(g_tpipe, r->t_pipe)
GET(g_mem, r->memory.total)
GET(g_cap, r->memory.capacity)
GET(g_fits, (double)r->memory.fits)
/* a request's quantiles, the SLO's verdict and the load are simulated
 * figures: empty beside an analytic solve (which has a lone request's
 * latency, mean_latency_s, and a capacity) */
#define SIM(v) (r->has_sim ? (v) : (double)NAN)
GET(g_p50, SIM(r->serving.latency.p50))
GET(g_p95, SIM(r->serving.latency.p95))
GET(g_p99, SIM(r->serving.latency.p99))
GET(g_p99ci, SIM(r->serving.p99_ci95))
GET(g_mean, r->has_sim ? r->serving.latency.mean : r->step)
GET(g_slo, r->serving.slo_s > 0.0 ? r->serving.slo_s : s->serving.slo_p99_s)
GET(g_att, SIM(r->serving.slo_attainment))
GET(g_met, SIM((double)dam_serving_slo_met(&r->serving)))
GET(g_stput, r->serving.throughput)
GET(g_util, SIM(r->serving.utilization))
GET(g_capa, r->serving.capacity > 0.0 ? r->serving.capacity : (double)NAN)
GET(g_over, r->serving.capacity > 0.0 ? (double)r->serving.overloaded
                                      : (double)NAN)
#undef SIM
GET(g_k, r->serving.cost_per_1k)
GET(g_rate, s->serving.rate)
GET(g_reps, (double)s->serving.replicas)

static const column batch_cols[] = {
    {"gpus", g_gpus},
    {"batch_per_gpu", g_batch},
    {"step_s", g_step},
    {"step_ci95_s", g_step_ci},
    {"throughput_samples_per_s", g_tput},
    {"throughput_tokens_per_s", g_tokens},
    {"epoch_s", g_epoch},
    {"run_s", g_run},
    {"mfu", g_mfu},
    {"io_overhead", g_io},
    {"gpu_hours", g_gh},
    {"cost_usd", g_usd},
    {"energy_kwh", g_kwh},
    {"t_seq_s", g_tseq},
    {"t_pipe_s", g_tpipe},
    {"memory_per_gpu_bytes", g_mem},
    {"memory_capacity_bytes", g_cap},
    {"fits_memory", g_fits}};

static const column serving_cols[] = {
    {"replicas", g_reps},
    {"rate_per_s", g_rate},
    {"mean_latency_s", g_mean},
    {"p50_latency_s", g_p50},
    {"p95_latency_s", g_p95},
    {"p99_latency_s", g_p99},
    {"p99_ci95_s", g_p99ci},
    {"slo_p99_s", g_slo},
    {"slo_attainment", g_att},
    {"slo_met", g_met},
    {"throughput_requests_per_s", g_stput},
    {"capacity_requests_per_s", g_capa},
    {"overloaded", g_over},
    {"gpu_utilization", g_util},
    {"mfu", g_mfu},
    {"cost_per_1k_requests_usd", g_k},
    {"memory_per_gpu_bytes", g_mem},
    {"memory_capacity_bytes", g_cap},
    {"fits_memory", g_fits}};

static void columns_of(dam_mode m, const column **c, size_t *n)
{
    if (m == DAM_MODE_SERVING) {
        *c = serving_cols;
        *n = sizeof serving_cols / sizeof serving_cols[0];
    } else {
        *c = batch_cols;
        *n = sizeof batch_cols / sizeof batch_cols[0];
    }
}

void dam_csv_result_header(dam_buf *b, dam_mode mode)
{
    const column *c;
    size_t n;
    columns_of(mode, &c, &n);
    dam_buf_printf(b, "scenario,file,mode,gpu,precision,simulated,bound");
    for (size_t i = 0; i < n; i++)
        dam_buf_printf(b, ",%s", c[i].name);
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        char id[48];
        dam_csv_ident(id, sizeof id, dam_term_name((dam_term)t));
        dam_buf_printf(b, ",%s_s", id);
    }
    dam_buf_printf(b, "\n");
}

void dam_csv_result_row(dam_buf *b, const dam_scenario *s,
                        const dam_result *r)
{
    const column *c;
    size_t n;
    columns_of(s->mode, &c, &n);
    dam_csv_field(b, s->name);
    dam_buf_printf(b, ",");
    dam_csv_field(b, s->file);
    dam_buf_printf(b, ",%s,", dam_mode_name(s->mode));
    dam_csv_field(b, s->machine.gpu.id);
    dam_buf_printf(b, ",%s,%d,%s", dam_precision_name(s->workload.precision),
                   r->has_sim, dam_bound_name(r->bound));
    for (size_t i = 0; i < n; i++) {
        dam_buf_printf(b, ",");
        dam_csv_num(b, c[i].get(s, r));
    }
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        dam_buf_printf(b, ",");
        dam_csv_num(b, r->terms[t]);
    }
    dam_buf_printf(b, "\n");
}

void dam_csv_run(dam_buf *b, const dam_scenario *s, const dam_result *r)
{
    dam_csv_result_header(b, s->mode);
    dam_csv_result_row(b, s, r);
}

void dam_csv_compare(dam_buf *b, const dam_scenario *s, const dam_result *r,
                     int n)
{
    int pass = 0;
    for (int serving = 0; serving <= 1; serving++) {
        int any = 0;
        for (int i = 0; i < n; i++)
            any |= (s[i].mode == DAM_MODE_SERVING) == serving;
        if (!any)
            continue;
        if (pass++)
            dam_buf_printf(b, "\n");
        dam_csv_result_header(b, serving ? DAM_MODE_SERVING
                                         : DAM_MODE_TRAINING);
        for (int i = 0; i < n; i++)
            if ((s[i].mode == DAM_MODE_SERVING) == serving)
                dam_csv_result_row(b, &s[i], &r[i]);
    }
}

/* ---- plans ------------------------------------------------------------- */

void dam_csv_plan_budget(dam_buf *b, const dam_plan *p)
{
    dam_buf_printf(b, "gpu,feasible,gpus,tokens_per_s,mfu,run_s,gpu_hours,"
                      "price_usd_per_gpu_hour,cost_usd,fits_memory,"
                      "memory_per_gpu_bytes,budget_flops,n_opt_params,"
                      "d_opt_tokens,loss,note\n");
    for (int i = 0; i < p->noptions; i++) {
        const dam_plan_option *o = &p->options[i];
        dam_csv_field(b, o->gpu);
        dam_buf_printf(b, ",%d,%d,", o->feasible, o->gpus);
        double v[] = {o->tokens_per_s, o->mfu, o->run_time, o->gpu_hours,
                      o->price_hour > 0 ? o->price_hour : (double)NAN,
                      o->cost_usd > 0 ? o->cost_usd : (double)NAN};
        dam_csv_nums(b, v, sizeof v / sizeof v[0]);
        dam_buf_printf(b, "%d,", o->fits_memory);
        const double fit[] = {o->memory_bytes, p->flops, p->n_opt, p->d_opt,
                              p->loss};
        dam_csv_nums(b, fit, sizeof fit / sizeof fit[0]);
        dam_csv_field(b, o->note);
        dam_buf_printf(b, "\n");
    }
}

void dam_csv_plan_capacity(dam_buf *b, const dam_capacity_result *p)
{
    dam_buf_printf(b, "gpu,supported,feasible,replicas,p99_latency_s,"
                      "p99_ci95_s,slo_p99_s,rate_per_s,utilization,"
                      "throughput_requests_per_s,price_usd_per_gpu_hour,"
                      "cost_usd_per_hour,cost_per_1k_requests_usd,"
                      "one_fewer_p99_latency_s,one_fewer_utilization,why\n");
    for (int i = 0; i < p->noptions; i++) {
        const dam_capacity_option *o = &p->options[i];
        int f = o->feasible;
        double nan = (double)NAN;
        dam_csv_field(b, o->gpu);
        dam_buf_printf(b, ",%d,%d,%d,", o->supported, f, f ? o->replicas : 0);
        double v[] = {f ? o->p99 : nan,
                      f ? o->p99_ci95 : nan,
                      p->slo_s,
                      p->rate,
                      f ? o->utilization : nan,
                      f ? o->throughput : nan,
                      o->price_hour > 0 ? o->price_hour : nan,
                      f && o->price_hour > 0 ? o->cost_hour : nan,
                      f && o->price_hour > 0 ? o->cost_per_1k : nan,
                      f && o->fewer_p99_known ? o->fewer_p99 : nan,
                      f && o->fewer_p99_known ? o->fewer_util : nan};
        dam_csv_nums(b, v, sizeof v / sizeof v[0]);
        dam_csv_field(b, f ? "" : o->why);
        dam_buf_printf(b, "\n");
    }
}
