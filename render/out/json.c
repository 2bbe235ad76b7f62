/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json.c: results as JSON through jansson (see json.h). */
#include "render/out/json.h"
#include "render/page/llm.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "model/device.h"
#include "model/lever.h"
#include "render/page/text.h"

#define NUM(o, k, v) json_object_set_new(o, k, dam_json_num(v))
#define INT(o, k, v) json_object_set_new(o, k, json_integer(v))
#define STR(o, k, v) json_object_set_new(o, k, json_string(v))
#define BOOL(o, k, v) json_object_set_new(o, k, json_boolean(v))

static json_t *stat_json(const dam_stat *st)
{
    json_t *o = json_object();
    NUM(o, "mean", st->mean);
    if (!(st->n > 0.0)) { /* a mean without observations of its own (a
                           * layout's data wait): no spread to give */
        NUM(o, "n", 0.0);
        return o;
    }
    NUM(o, "ci95", st->ci95);
    NUM(o, "sd", st->sd);
    NUM(o, "p50", st->p50);
    NUM(o, "p95", st->p95);
    NUM(o, "p99", st->p99);
    NUM(o, "min", st->min);
    NUM(o, "max", st->max);
    NUM(o, "n", st->n);
    return o;
}

json_t *dam_json_scenario(const dam_scenario *s)
{
    json_t *o = json_object();
    STR(o, "file", s->file);
    STR(o, "name", s->name);
    STR(o, "question", s->question);
    STR(o, "mode", dam_mode_name(s->mode));
    INT(o, "seed", (json_int_t)s->seed);
    if (s->applied[0])
        STR(o, "levers_applied", s->applied);
    json_t *m = json_object();
    STR(m, "gpu", s->machine.gpu.id);
    INT(m, "gpus_per_node", s->machine.gpus_per_node);
    INT(m, "nodes", s->machine.nodes);
    INT(m, "cpu_cores", s->machine.cpu_cores);
    NUM(m, "pcie_bytes_per_s", s->machine.pcie_bw);
    INT(m, "gpus_per_pcie_link", s->machine.gpus_per_pcie_link);
    STR(m, "storage", dam_storage_name(s->machine.storage_kind));
    NUM(m, "storage_bytes_per_s", s->machine.storage_bw);
    NUM(m, "storage_latency_s", s->machine.storage_latency);
    NUM(m, "intra_busbw_bytes_per_s", s->machine.intra_busbw);
    NUM(m, "inter_busbw_bytes_per_s", s->machine.inter_busbw);
    json_object_set_new(o, "machine", m);
    json_t *w = json_object();
    STR(w, "model", s->workload.model.id);
    NUM(w, "params", s->workload.model.params * s->workload.weight_scale);
    NUM(w, "flops_per_sample",
        s->workload.model.flops_per_sample * s->workload.flops_scale);
    STR(w, "precision", dam_precision_name(s->workload.precision));
    INT(w, "batch_size", s->workload.batch_size);
    /* A scalar efficiency exists only where the scenario or the catalog
     * gives one; otherwise compute is costed per operator by the device
     * model, and the result's MFU is the achieved efficiency. */
    if (s->workload.eta > 0.0)
        NUM(w, "efficiency", s->workload.eta);
    STR(w, "compute_model",
        s->workload.eta > 0.0 ? "efficiency" : "device_model");
    NUM(w, "memory_efficiency", s->workload.eta_mem);
    INT(w, "kernels_per_step", s->workload.kernels_per_step);
    NUM(w, "launch_s", s->workload.launch_s);
    NUM(w, "framework_overhead_s", s->workload.framework_overhead_s);
    BOOL(w, "cuda_graphs", s->workload.cuda_graphs);
    json_object_set_new(o, "workload", w);
    if (s->mode != DAM_MODE_SERVING) {
        json_t *d = json_object();
        NUM(d, "samples", s->data.samples);
        NUM(d, "raw_bytes_per_sample", s->data.raw_bytes);
        NUM(d, "input_bytes_per_sample", s->data.input_bytes);
        NUM(d, "decode_s", s->data.decode_s);
        NUM(d, "epochs", s->data.epochs);
        json_object_set_new(o, "data", d);
        json_t *p = json_object();
        INT(p, "loader_workers", s->pipeline.loader_workers);
        INT(p, "prefetch_factor", s->pipeline.prefetch_factor);
        BOOL(p, "pin_memory", s->pipeline.pin_memory);
        BOOL(p, "overlap_transfer", s->pipeline.overlap_transfer);
        BOOL(p, "overlap_sync", s->pipeline.overlap_sync);
        NUM(p, "bucket_bytes", s->pipeline.bucket_bytes);
        json_object_set_new(o, "pipeline", p);
        if (s->layout.on) { /* the parallel layout and its network */
            const dam_layout *l = &s->layout;
            const dam_network *n = &s->machine.net;
            json_t *y = json_object();
            INT(y, "tp", l->tp);
            INT(y, "pp", l->pp);
            INT(y, "dp", l->dp);
            INT(y, "cp", l->cp);
            INT(y, "ep", l->ep);
            INT(y, "vpp", l->vpp);
            STR(y, "schedule", dam_pp_schedule_name(l->schedule));
            BOOL(y, "sequence_parallel", l->sp);
            INT(y, "micro_batch", l->micro_batch);
            INT(y, "micro_batches", l->micro_batches);
            INT(y, "zero", l->zero);
            STR(y, "recompute", dam_recompute_name(l->recompute));
            BOOL(y, "overlap_grad_reduce", l->overlap_grad);
            BOOL(y, "overlap_param_gather", l->overlap_param);
            BOOL(y, "overlap_all_to_all", l->overlap_a2a);
            json_object_set_new(o, "parallel", y);
            json_t *nw = json_object();
            INT(nw, "nvlink_domain", n->domain);
            NUM(nw, "domain_busbw_bytes_per_s", n->domain_bw);
            INT(nw, "nics_per_node", n->nics);
            NUM(nw, "nic_bytes_per_s", n->nic_bw);
            NUM(nw, "nic_efficiency", n->nic_eff);
            BOOL(nw, "rail_optimized", n->rail_optimized);
            NUM(nw, "oversubscription", n->oversub);
            STR(nw, "algorithm", dam_net_algo_name(n->algo));
            NUM(nw, "shared_fs_bytes_per_s", s->machine.fs_bw);
            json_object_set_new(o, "network", nw);
        }
    } else {
        const dam_serving *v = &s->serving;
        static const char *const arr[] = {"poisson", "deterministic",
                                          "trace"};
        json_t *sv = json_object();
        STR(sv, "arrival", arr[v->arrival]);
        NUM(sv, "rate_per_s", v->rate);
        if (v->arrival == DAM_ARRIVAL_TRACE)
            STR(sv, "trace", v->trace);
        NUM(sv, "preprocess_s", v->preprocess_s);
        NUM(sv, "preprocess_cv", v->preprocess_cv);
        INT(sv, "preprocess_workers", v->preprocess_workers);
        NUM(sv, "postprocess_s", v->postprocess_s);
        INT(sv, "max_batch", v->max_batch);
        NUM(sv, "batch_timeout_s", v->batch_timeout_s);
        INT(sv, "replicas", v->replicas);
        NUM(sv, "slo_p99_s", v->slo_p99_s);
        NUM(sv, "request_bytes", v->request_bytes);
        NUM(sv, "requests", v->requests);
        INT(sv, "replications", v->replications);
        json_object_set_new(o, "serving", sv);
    }
    return o;
}

/* The iron law's stages: volume, bandwidth, operations, rate, latency. */
static json_t *stages_json(const dam_result *r)
{
    json_t *stages = json_array();
    for (int i = 0; i < r->nstages; i++) {
        const dam_stage *st = &r->stages[i];
        json_t *e = json_object();
        STR(e, "stage", st->name);
        NUM(e, "d_vol_bytes", st->bytes);
        NUM(e, "bw_bytes_per_s", st->bw);
        NUM(e, "d_over_bw_s", st->t_data);
        NUM(e, "ops", st->ops);
        NUM(e, "rate", st->rate);
        NUM(e, "o_over_r_eta_s", st->t_ops);
        NUM(e, "l_lat_s", st->t_lat);
        NUM(e, "time_s", st->time);
        json_array_append_new(stages, e);
    }
    return stages;
}

/* The roofline: each phase's work, intensity and what bounds it. */
static json_t *phases_json(const dam_result *r)
{
    json_t *phases = json_array();
    for (int i = 0; i < r->nphases; i++) {
        const dam_phase_result *p = &r->phases[i];
        json_t *e = json_object();
        STR(e, "phase", p->name);
        STR(e, "kind", dam_phase_kind_name(p->kind));
        NUM(e, "flops", p->flops);
        NUM(e, "bytes", p->bytes);
        NUM(e, "intensity_flop_per_byte", p->intensity);
        NUM(e, "ridge_flop_per_byte", p->ridge);
        NUM(e, "peak_flops", p->peak);
        NUM(e, "t_compute_s", p->t_compute);
        NUM(e, "t_memory_s", p->t_memory);
        NUM(e, "time_s", p->time);
        STR(e, "bound", p->memory_bound ? "memory" : "compute");
        json_array_append_new(phases, e);
    }
    return phases;
}

/* The simulation's figures beside the analytic ones it replaced, and the
 * time each stage's entities were busy, idle, blocked or starved. */
static json_t *sim_json(const dam_result *r)
{
    json_t *sim = json_object();
    INT(sim, "replications", r->replications);
    /* one replication's CIs come from batches of its own steps or
     * requests (solver/stats.h), several replications' from their spread */
    json_object_set_new(sim, "ci95_from",
                        json_string(r->replications == 1 ? "batch_means"
                                                         : "replications"));
    NUM(sim, "steps_per_replication", r->sim_steps);
    json_object_set_new(sim, "step_s", stat_json(&r->sim_step));
    json_object_set_new(sim, "data_wait_s", stat_json(&r->sim_data_wait));
    NUM(sim, "exposed_transfer_s", r->sim_exposed_transfer);
    NUM(sim, "exposed_communication_s", r->sim_exposed_comm);
    NUM(sim, "waiting_for_slower_ranks_s", r->sim_peer_wait);
    NUM(sim, "events", r->events);
    NUM(sim, "analytic_step_s", r->analytic_step);
    json_t *at = json_object();
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        NUM(at, dam_term_name((dam_term)t), r->analytic_terms[t]);
    json_object_set_new(sim, "analytic_terms_s", at);
    STR(sim, "analytic_bound", dam_bound_name(r->analytic_bound));
    json_t *acc = json_array();
    for (int i = 0; i < r->nstage_times; i++) {
        const dam_stage_time *st = &r->stage_times[i];
        json_t *e = json_object();
        STR(e, "stage", st->name);
        INT(e, "entities", st->entities);
        NUM(e, "busy_s", st->busy);
        NUM(e, "idle_s", st->idle);
        NUM(e, "blocked_s", st->blocked);
        NUM(e, "starved_s", st->starved);
        json_array_append_new(acc, e);
    }
    json_object_set_new(sim, "accounting", acc);
    return sim;
}

/* Serving: latency and its phases, load, the SLO, cost per thousand
 * requests; the simulation's queue and compute split; the LLM figures. */
static json_t *serving_json(const dam_scenario *s, const dam_result *r)
{
    json_t *sv = json_object();
    /* the model's figures; the requests' (latency, phases, load, SLO)
     * only where a simulation served them: an analytic solve has none.
     * An LLM service has neither a batcher's phases nor its batch
     * figures (its own are under "llm") */
    int llm = r->serving.llm.enabled, sim = r->has_sim;
    if (!llm || sim)
        NUM(sv, "throughput_per_s", r->serving.throughput);
    if (r->serving.capacity > 0.0) {
        NUM(sv, "capacity_per_s", r->serving.capacity);
        STR(sv, "capacity_set_by",
            r->serving.capacity_by == DAM_BOUND_PREPROCESS ? "cpu_pool"
            : r->serving.capacity_by == DAM_BOUND_TRANSFER ? "pcie_links"
                                                           : "replicas");
        BOOL(sv, "overloaded", r->serving.overloaded);
    }
    if (!llm || sim) {
        NUM(sv, "cost_per_1k_usd", r->serving.cost_per_1k);
        NUM(sv, "energy_per_1k_kwh", r->serving.kwh_per_1k);
    }
    /* analytic, with a p99 SLO: a lone request without its batching wait
     * is a floor of every request's latency; over the SLO, the SLO is
     * missed at any load (the answer says so), else unknown here */
    if (!llm && !sim && s->serving.slo_p99_s > 0.0) {
        double floor = dam_serving_lone_floor(r);
        NUM(sv, "slo_p99_s", s->serving.slo_p99_s);
        NUM(sv, "lone_request_floor_s", floor);
        if (floor > s->serving.slo_p99_s && !r->serving.overloaded)
            BOOL(sv, "slo_met", 0);
    }
    if (!llm) {
        NUM(sv, "t_batch1_s", r->serving.t_batch1);
        NUM(sv, "t_batch_max_s", r->serving.t_batch_max);
    }
    if (sim) {
        const dam_serving_result *x = &r->serving;
        json_object_set_new(sv, "latency_s", stat_json(&x->latency));
        NUM(sv, "utilization", x->utilization);
        NUM(sv, "slo_attainment", x->slo_attainment);
        NUM(sv, "mean_batch", x->mean_batch);
        if (!llm || x->slo_s > 0.0) /* an LLM's p99 objective is optional */
            NUM(sv, "slo_p99_s", x->slo_s);
        NUM(sv, "p99_ci95_s", x->p99_ci95);
        BOOL(sv, "slo_met", dam_serving_slo_met(x));
        NUM(sv, "gpu_busy", x->gpu_busy);
    }
    if (sim && !llm) {
        const dam_serving_result *x = &r->serving;
        json_t *ph = json_object();
        for (int i = 0; i < DAM_SPHASE_COUNT; i++)
            json_object_set_new(ph, dam_serving_phase_name(i),
                                stat_json(&x->phase[i]));
        json_object_set_new(sv, "phases_s", ph);
        json_object_set_new(sv, "preprocess_queue_s",
                            stat_json(&x->preprocess_queue));
        NUM(sv, "cpu_utilization", x->cpu_utilization);
        NUM(sv, "compute_roofline_s", x->compute_roof);
        NUM(sv, "compute_overhead_s", x->compute_overhead);
        NUM(sv, "batch_weight_read_s", x->batch_weight_time);
        NUM(sv, "batch_flop_s", x->batch_flop_time);
    }
    if (r->serving.llm.enabled)
        json_object_set_new(sv, "llm", dam_llm_json(s, r));
    return sv;
}

/* The diagnosis: headline, evidence, symptoms, levers that work and
 * those wasted, the trap to avoid and the scorecard. */
static json_t *diagnosis_json(const dam_diagnosis *d)
{
    json_t *dg = json_object();
    STR(dg, "headline", d->headline);
    json_t *ev = json_array();
    for (int i = 0; i < d->nevidence; i++)
        json_array_append_new(ev, json_string(d->evidence[i]));
    json_object_set_new(dg, "evidence", ev);
    json_t *sy = json_array();
    for (int i = 0; i < d->nsymptoms; i++)
        json_array_append_new(sy, json_string(d->symptoms[i]));
    json_object_set_new(dg, "symptoms", sy);
    json_t *wk = json_array(), *ws = json_array();
    for (int i = 0; i < d->nworks; i++) {
        json_t *e = json_object();
        STR(e, "lever", dam_lever_kind_name(d->works[i].kind));
        STR(e, "why", d->works[i].why);
        json_array_append_new(wk, e);
    }
    for (int i = 0; i < d->nwasted; i++) {
        json_t *e = json_object();
        STR(e, "lever", dam_lever_kind_name(d->wasted[i].kind));
        STR(e, "why", d->wasted[i].why);
        json_array_append_new(ws, e);
    }
    json_object_set_new(dg, "works", wk);
    json_object_set_new(dg, "wasted", ws);
    STR(dg, "anti_pattern", d->anti_pattern);
    json_t *sc = json_array();
    for (int i = 0; i < d->nscore; i++) {
        json_t *e = json_object();
        STR(e, "axis", d->score[i].axis);
        STR(e, "metric", d->score[i].metric);
        NUM(e, "value", d->score[i].value);
        STR(e, "verdict", dam_score_name(d->score[i].verdict));
        STR(e, "rule", d->score[i].rule);
        json_array_append_new(sc, e);
    }
    json_object_set_new(dg, "scorecard", sc);
    return dg;
}

json_t *dam_json_result(const dam_scenario *s, const dam_result *r,
                        const dam_diagnosis *d)
{
    json_t *o = json_object();
    char answer[1024];
    dam_text_answer(answer, sizeof answer, s, r, d);
    STR(o, "question", s->question);
    STR(o, "answer", answer);
    STR(o, "bound", dam_bound_name(r->bound));
    STR(o, "axis", d->axis);
    NUM(o, "step_s", r->step);
    STR(o, "step_source", r->has_sim ? "simulated" : "analytic");
    INT(o, "gpus", r->gpus);
    NUM(o, "global_batch", r->global_batch);
    NUM(o, "throughput_samples_per_s", r->throughput);
    NUM(o, "throughput_tokens_per_s", r->tokens_per_s);
    NUM(o, "steps_per_epoch", r->steps_per_epoch);
    NUM(o, "epoch_s", r->epoch_time);
    NUM(o, "run_s", r->run_time);
    NUM(o, "mfu", r->mfu);
    NUM(o, "io_overhead", r->io_overhead);
    NUM(o, "model_flops_per_step", r->model_flops_step);
    NUM(o, "quality", r->quality);

    json_t *terms = json_object();
    for (int t = 0; t < DAM_TERM_COUNT; t++)
        NUM(terms, dam_term_name((dam_term)t), r->terms[t]);
    json_object_set_new(o, "terms_s", terms);

    json_t *il = json_object();
    NUM(il, "data_s", r->t_data);
    NUM(il, "transfer_s", r->t_transfer);
    NUM(il, "compute_s", r->t_compute);
    NUM(il, "communication_s", r->t_comm);
    NUM(il, "latency_s", r->t_latency);
    NUM(il, "t_seq_s", r->t_seq);
    NUM(il, "t_pipe_s", r->t_pipe);
    json_object_set_new(o, "iron_law", il);

    json_object_set_new(o, "stages", stages_json(r));
    json_object_set_new(o, "roofline", phases_json(r));

    json_t *mem = json_object();
    NUM(mem, "weights_bytes", r->memory.weights);
    NUM(mem, "gradients_bytes", r->memory.gradients);
    NUM(mem, "optimizer_bytes", r->memory.optimizer);
    NUM(mem, "activations_bytes", r->memory.activations);
    NUM(mem, "buffers_bytes", r->memory.buffers);
    NUM(mem, "total_bytes", r->memory.total);
    NUM(mem, "capacity_bytes", r->memory.capacity);
    BOOL(mem, "fits", r->memory.fits);
    BOOL(mem, "tight", r->memory.tight);
    NUM(mem, "shortfall_bytes", r->memory.shortfall);
    json_object_set_new(o, "memory", mem);

    json_t *cost = json_object();
    NUM(cost, "gpu_hours", r->gpu_hours);
    NUM(cost, "usd", r->cost_usd);
    NUM(cost, "kwh", r->energy_kwh);
    json_object_set_new(o, "cost", cost);

    if (r->has_sim)
        json_object_set_new(o, "simulation", sim_json(r));
    if (s->mode == DAM_MODE_SERVING)
        json_object_set_new(o, "serving", serving_json(s, r));

    json_object_set_new(o, "diagnosis", diagnosis_json(d));
    return o;
}

void dam_json_dump(dam_buf *b, json_t *v)
{
    char *text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                   JSON_REAL_PRECISION(10));
    if (text) {
        dam_buf_printf(b, "%s\n", text);
        free(text);
    }
    json_decref(v);
}

static json_t *interval_json(const dam_interval *iv)
{
    json_t *o = json_object();
    NUM(o, "p05", iv->lo);
    NUM(o, "p50", iv->median);
    NUM(o, "p95", iv->hi);
    return o;
}

json_t *dam_json_answer_interval(const dam_answer_interval *a, int per_run)
{
    json_t *o = json_object();
    INT(o, "draws", a->samples);
    json_object_set_new(o, "step_s", interval_json(&a->step));
    if (per_run)
        json_object_set_new(o, "run_s", interval_json(&a->run_time));
    /* none where nothing gives a throughput (an LLM service solved
     * analytically: a lone request): an interval of 0 .. 0 read as one */
    if (a->throughput.hi > 0.0)
        json_object_set_new(o, "throughput", interval_json(&a->throughput));
    if (per_run) {
        json_object_set_new(o, "gpu_hours", interval_json(&a->gpu_hours));
        json_object_set_new(o, "cost_usd", interval_json(&a->cost_usd));
    }
    if (a->has_speedup) {
        json_object_set_new(o, "speedup", interval_json(&a->speedup));
        NUM(o, "share_of_draws_faster", a->p_faster);
        NUM(o, "share_of_draws_slower", a->p_slower);
    }
    return o;
}

json_t *dam_json_uncertainty(const dam_scenario *s, const dam_uncertainty *u)
{
    json_t *o = json_object();
    INT(o, "samples", u->samples);
    json_t *in = json_array();
    for (int i = 0; i < s->nuncertain; i++) {
        const dam_uncertain *x = &s->uncertain[i];
        json_t *e = json_object();
        STR(e, "key", x->key);
        STR(e, "dist", dam_uncertain_kind_name(x->kind));
        /* parameters in the key's own unit (cv is a ratio) */
        double sc = x->scale > 0.0 ? x->scale : 1.0;
        NUM(e, "a", x->a / sc);
        NUM(e, "b", x->kind == DAM_UNCERTAIN_LOGNORMAL ? x->b : x->b / sc);
        if (x->kind == DAM_UNCERTAIN_TRIANGULAR)
            NUM(e, "c", x->c / sc);
        INT(e, "line", x->line);
        json_array_append_new(in, e);
    }
    json_object_set_new(o, "inputs", in);
    json_object_set_new(o, "step_s", interval_json(&u->step));
    json_object_set_new(o, "run_s", interval_json(&u->run_time));
    if (u->throughput.hi > 0.0)
        json_object_set_new(o, "throughput", interval_json(&u->throughput));
    json_object_set_new(o, "cost_usd", interval_json(&u->cost_usd));
    json_object_set_new(o, "gpu_hours", interval_json(&u->gpu_hours));
    if (u->load.ok) {
        /* a simulated service under load (dam_load_interval) */
        json_t *ld = json_object();
        const double *v[4] = {u->load.p99, u->load.ttft, u->load.tpot,
                              u->load.throughput};
        static const char *const nm[4] = {"p99_s", "ttft_q_s", "tpot_q_s",
                                          "throughput_per_s"};
        for (int i = 0; i < 4; i++) {
            if (i > 0 && i < 3 && !s->serving.llm.enabled)
                continue;
            json_t *iv = json_object();
            NUM(iv, "p05", v[i][0]);
            NUM(iv, "p95", v[i][1]);
            json_object_set_new(ld, nm[i], iv);
        }
        json_object_set_new(o, "under_load", ld);
    }
    INT(o, "calibrated_constants", u->nconstants);
    json_t *pb = json_object();
    for (int k = 0; k < DAM_BOUND_COUNT; k++)
        if (u->p_bound[k] > 0.0)
            NUM(pb, dam_bound_name((dam_bound)k), u->p_bound[k]);
    json_object_set_new(o, "share_of_samples_bound_by", pb);
    json_t *tor = json_array();
    for (int i = 0; i < u->ninputs; i++) {
        const dam_uncertainty_input *x = &u->inputs[i];
        json_t *e = json_object();
        STR(e, "key", x->key);
        STR(e, "source", x->constant ? (x->default_sd ? "constant, default "
                                                         "sd"
                                                       : "constant, catalog "
                                                         "sd")
                                     : "input");
        NUM(e, "value_p05", x->value_lo / x->scale);
        NUM(e, "value_p95", x->value_hi / x->scale);
        NUM(e, "step_at_p05_s", x->step_lo);
        NUM(e, "step_at_p95_s", x->step_hi);
        NUM(e, "swing_s", x->swing);
        json_array_append_new(tor, e);
    }
    json_object_set_new(o, "tornado", tor);
    return o;
}

json_t *dam_json_catalog(const dam_catalog *cat, int gpus, int models)
{
    json_t *o = json_object();
    if (gpus) {
        json_t *a = json_array();
        for (size_t i = 0; i < cat->ngpus; i++) {
            const dam_gpu *g = &cat->gpus[i];
            json_t *e = json_object();
            json_object_set_new(e, "id", json_string(g->id));
            json_object_set_new(e, "name", json_string(g->name));
            json_t *pk = json_object();
            for (int p = 0; p < DAM_PREC_COUNT; p++)
                if (g->peak[p] > 0.0)
                    json_object_set_new(pk, dam_precision_name((dam_precision)p),
                                        dam_json_num(g->peak[p]));
            json_object_set_new(e, "peak_flops", pk);
            json_t *rd = json_object();
            for (int p = 0; p < DAM_PREC_COUNT; p++)
                if (g->peak[p] > 0.0)
                    json_object_set_new(rd, dam_precision_name((dam_precision)p),
                                        dam_json_num(dam_gpu_ridge(g, (dam_precision)p)));
            json_object_set_new(e, "ridge_flop_per_byte", rd);
            json_object_set_new(e, "sparsity_2to4", json_boolean(g->sparsity_2to4));
            json_object_set_new(e, "memory_bytes", dam_json_num(g->mem_bytes));
            json_object_set_new(e, "memory_bytes_per_s", dam_json_num(g->mem_bw));
            json_object_set_new(e, "nvlink_bytes_per_s", dam_json_num(g->link_bw));
            json_object_set_new(e, "pcie_bytes_per_s", dam_json_num(g->pcie_bw));
            json_object_set_new(e, "tdp_w", dam_json_num(g->tdp_w));
            json_object_set_new(e, "price_usd_hour", dam_json_num(g->price_hour));
            /* the device model's constants, each with its sd */
            json_t *dv = json_object();
            json_object_set_new(dv, "sms", json_integer(g->sms));
            json_object_set_new(dv, "boost_hz", dam_json_num(g->boost_hz));
            json_object_set_new(dv, "l2_bytes", dam_json_num(g->l2_bytes));
            json_object_set_new(dv, "fabric_busbw_bytes_per_s",
                                dam_json_num(dam_device_fabric_busbw(g, 0.0)));
            dam_gpu gc = *g;
            for (int k = 0; k < dam_param_count(); k++) {
                const dam_param_info *pi = dam_param_get(k);
                double *v, *sd;
                if (pi->scope != DAM_PARAM_DEVICE ||
                    dam_param_ref_gpu(k, &gc, &v, &sd) != 0)
                    continue;
                char key[64];
                if (pi->prec >= 0)
                    snprintf(key, sizeof key, "%s/%s", pi->field,
                             dam_precision_name((dam_precision)pi->prec));
                else
                    snprintf(key, sizeof key, "%s", pi->field);
                /* in the catalog file's units, under its key */
                double sc = pi->scale > 0.0 ? pi->scale : 1.0;
                json_t *c = json_object();
                json_object_set_new(c, "value", dam_json_num(*v / sc));
                json_object_set_new(c, "sd", dam_json_num(*sd / sc));
                json_object_set_new(c, "unit", json_string(pi->unit));
                json_object_set_new(dv, key, c);
            }
            json_object_set_new(e, "device", dv);
            json_object_set_new(e, "source", json_string(g->source));
            json_array_append_new(a, e);
        }
        json_object_set_new(o, "gpus", a);
    }
    if (models) {
        json_t *a = json_array();
        for (size_t i = 0; i < cat->nmodels; i++) {
            const dam_model_spec *m = &cat->models[i];
            json_t *e = json_object();
            json_object_set_new(e, "id", json_string(m->id));
            json_object_set_new(e, "name", json_string(m->name));
            json_object_set_new(e, "family", json_string(m->family));
            json_object_set_new(e, "params", dam_json_num(m->params));
            json_object_set_new(e, "seq_len", dam_json_num(m->seq_len));
            json_object_set_new(e, "flops_per_sample", dam_json_num(m->flops_per_sample));
            json_object_set_new(e, "input_bytes", dam_json_num(m->input_bytes));
            json_object_set_new(e, "raw_bytes", dam_json_num(m->raw_bytes));
            json_t *ph = json_array();
            for (int k = 0; k < m->nphases; k++) {
                json_t *p = json_object();
                json_object_set_new(p, "name", json_string(m->phases[k].name));
                json_object_set_new(p, "kind", json_string(dam_phase_kind_name(m->phases[k].kind)));
                json_object_set_new(p, "flops", dam_json_num(m->phases[k].flops));
                json_object_set_new(p, "act_bytes", dam_json_num(m->phases[k].act_bytes));
                json_object_set_new(p, "weight_frac", dam_json_num(m->phases[k].weight_frac));
                json_array_append_new(ph, p);
            }
            json_object_set_new(e, "phases", ph);
            json_t *eta = json_object();
            for (int p = 0; p < DAM_PREC_COUNT; p++)
                if (m->eta[p] > 0.0)
                    json_object_set_new(eta, dam_precision_name((dam_precision)p),
                                        dam_json_num(m->eta[p]));
            json_object_set_new(e, "efficiency", eta);
            json_object_set_new(e, "source", json_string(m->source));
            json_array_append_new(a, e);
        }
        json_object_set_new(o, "models", a);
    }
    return o;
}

json_t *dam_json_levers(void)
{
    static const char *const ktypes[] = {"integer", "number", "boolean",
                                         "choice", "text"};
    json_t *a = json_array();
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++) {
        const dam_lever_type *t = dam_lever_type_get((dam_lever_kind)i);
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(t->name));
        json_object_set_new(o, "summary", json_string(t->summary));
        json_t *modes = json_array();
        for (int m = 0; m <= DAM_MODE_SERVING; m++)
            if (t->modes & DAM_MODE_BIT(m))
                json_array_append_new(modes,
                                      json_string(dam_mode_name((dam_mode)m)));
        json_object_set_new(o, "modes", modes);
        if (t->valid)
            json_object_set_new(o, "valid", json_string(t->valid));
        json_t *keys = json_array();
        for (size_t k = 0; k < t->nkeys; k++) {
            const dam_lever_key *key = &t->keys[k];
            json_t *e = json_object();
            json_object_set_new(e, "name", json_string(key->name));
            json_object_set_new(e, "type", json_string(ktypes[key->type]));
            json_object_set_new(e, "unit", json_string(key->unit));
            if (key->type == DAM_LKEY_INT || key->type == DAM_LKEY_NUM) {
                double lo, hi; /* its scenario key's range, if it sets one */
                int lo_open, hi_open;
                dam_lever_key_bounds(key, &lo, &hi, &lo_open, &hi_open);
                json_object_set_new(e, "min", dam_json_num(lo));
                json_object_set_new(e, "max", dam_json_num(hi));
            }
            json_object_set_new(e, "main", json_boolean((int)k == t->main_key));
            json_object_set_new(e, "help", json_string(key->help));
            json_array_append_new(keys, e);
        }
        json_object_set_new(o, "keys", keys);
        json_t *rel = json_array();
        for (int b = 0; b < DAM_BOUND_COUNT; b++)
            if (t->relieves & DAM_BOUND_BIT(b))
                json_array_append_new(rel,
                                      json_string(dam_bound_name((dam_bound)b)));
        json_object_set_new(o, "relieves", rel);
        json_object_set_new(o, "quality", json_string(t->quality));
        json_object_set_new(o, "example", json_string(t->example));
        json_array_append_new(a, o);
    }
    return a;
}
