/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * search.c: the layout search (see search.h).
 *
 * Loop order is what makes it fast: the outer loops fix the shape of one
 * block (tp, cp, ep, micro-batch, recomputation), whose operator graph is
 * built and costed once (dam_parallel_layers_cost, three graphs); the
 * inner loops (pp, vpp, ZeRO) only assemble the layout on the network and
 * evaluate the schedule.
 */
#include "solver/search.h"

#include "model/alloc.h"
#include "model/device.h"
#include "model/lever.h"
#include "model/quality.h"
#include "solver/parallel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const int pow2[] = {1, 2, 4, 8, 16, 32, 64};

/* One search at one GPU kind and count. */
typedef struct ctx {
    const dam_scenario *base;
    dam_scenario *s;           /* scratch: the kind's machine */
    const dam_search_opts *o;
    dam_search_result *r;
    int kind;
    int64_t gpus;
    double price;
    size_t evaluated, fitting;
    int nbest, ncheap;
    dam_search_cand best[8], cheap[8];
    dam_search_cand alt;       /* fastest of another (tp, cp, pp) than best */
    int have_alt;
    int keep;                  /* store into r->all */
} ctx;

static void push_all(dam_search_result *r, const dam_search_cand *c)
{
    if (r->nall == r->capall) {
        r->capall = r->capall ? 2 * r->capall : 1024;
        r->all = dam_realloc(r->all, r->capall * sizeof *r->all);
    }
    r->all[r->nall++] = *c;
}

/* Insert c into the sorted top list by key (ascending). */
static void top_insert(dam_search_cand *list, int *n, const dam_search_cand *c,
                       double key, int cost)
{
    int cap = 8, i = *n;
    double k_last = i > 0 ? (cost ? list[i - 1].cost : list[i - 1].step)
                          : 0.0;
    if (i == cap && key >= k_last)
        return;
    if (i < cap)
        (*n)++;
    else
        i = cap - 1;
    while (i > 0 && key < (cost ? list[i - 1].cost : list[i - 1].step)) {
        list[i] = list[i - 1];
        i--;
    }
    list[i] = *c;
}

/* Cost layout l with block costs lc into a candidate. */
static void evaluate(ctx *x, const dam_layout *l,
                     const dam_parallel_layers *lc, dam_search_cand *c)
{
    const dam_scenario *s = x->s;
    dam_parallel_cost pc;
    dam_parallel_step st;
    dam_layout_mem mem;
    memset(c, 0, sizeof *c);
    c->kind = x->kind;
    c->gpus = x->gpus;
    c->l = *l;
    dam_parallel_memory(s, l, &mem);
    c->memory = mem.total;
    double cap = s->machine.gpu.mem_bytes;
    c->fits = mem.total <= cap;
    c->shortfall = c->fits ? 0.0 : mem.total - cap;
    dam_parallel_assemble(s, l, lc, &pc);
    dam_parallel_step_analytic(&pc, &st);
    c->step = st.step;
    memcpy(c->terms, st.terms, sizeof c->terms);
    double gb = (double)l->dp * l->micro_batch * l->micro_batches;
    double steps = ceil(s->data.samples / gb) * dam_scenario_run_epochs(s);
    c->run_time = steps * st.step;
    c->gpu_hours = (double)x->gpus * c->run_time / 3600.0;
    c->cost = c->gpu_hours * x->price;
    double peak = dam_scenario_peak(s);
    c->mfu = peak > 0.0 && st.step > 0.0
                 ? pc.model_flops / ((double)x->gpus * st.step * peak)
                 : 0.0;
    x->evaluated++;
    if (x->keep)
        push_all(x->r, c);
    if (!c->fits)
        return;
    x->fitting++;
    top_insert(x->best, &x->nbest, c, c->step, 0);
    if (c->cost > 0.0)
        top_insert(x->cheap, &x->ncheap, c, c->cost, 1);
    /* the fastest of another shape (tp, pp) than the fastest: the
     * runner-up that says why the winner wins */
    const dam_layout *w = &x->best[0].l;
    if (x->nbest > 0 && (l->tp != w->tp || l->pp != w->pp)) {
        if (!x->have_alt || c->step < x->alt.step) {
            x->alt = *c;
            x->have_alt = 1;
        }
    }
}

/* Every (pp, vpp, ZeRO) of one block shape. */
static void inner(ctx *x, dam_layout base, const dam_parallel_layers *lc,
                  double global)
{
    const dam_transformer *t = &x->s->workload.model.arch.tf;
    int64_t mp = (int64_t)base.tp * base.cp;
    for (int pp = 1; pp <= 64 && pp <= t->layers; pp++) {
        if (t->layers % pp != 0 || x->gpus % (mp * pp) != 0)
            continue;
        dam_layout l = base;
        l.pp = pp;
        l.dp = (int)(x->gpus / (mp * pp));
        if ((l.dp * l.cp) % l.ep != 0)
            continue;
        double m = global / ((double)l.dp * l.micro_batch);
        if (m < 1.0 || m != floor(m))
            continue;
        l.micro_batches = (int)m;
        for (int vi = 0; vi < 3; vi++) {
            int v = pow2[vi];
            if (v > 1 && (pp < 2 || t->layers % (pp * v) != 0 ||
                          l.micro_batches % pp != 0))
                continue;
            l.vpp = v;
            l.schedule = v > 1 ? DAM_SCHED_INTERLEAVED : DAM_SCHED_1F1B;
            for (int z = 0; z <= 3; z++) {
                if (z > 0 && l.dp * l.cp == 1)
                    break; /* nothing to shard over */
                l.zero = z;
                dam_search_cand c;
                evaluate(x, &l, lc, &c);
            }
        }
    }
}

/* The search at one kind and count. */
static void search_count(ctx *x)
{
    const dam_scenario *s = x->s;
    const dam_transformer *t = &s->workload.model.arch.tf;
    const dam_layout *own = &x->base->layout;
    double global = dam_scenario_global_batch(x->base);
    double seq = s->workload.seq_len;
    int domain = s->machine.net.domain;
    int experts = t->experts > 1 ? t->experts : 1;
    x->evaluated = x->fitting = 0;
    x->nbest = x->ncheap = 0;
    x->have_alt = 0;
    for (int ti = 0; ti < 7; ti++) {
        int tp = pow2[ti];
        if (tp > domain || t->heads % tp != 0 || t->ffn % tp != 0 ||
            (t->kv_heads % tp != 0 && tp % t->kv_heads != 0))
            continue;
        for (int ci = 0; ci < 4; ci++) {
            int cp = pow2[ci];
            if (cp > 1 && (seq < 8192.0 || t->attn != DAM_ATTN_FLASH ||
                           fmod(seq, 2.0 * cp) != 0.0))
                continue;
            if (x->gpus % ((int64_t)tp * cp) != 0)
                continue;
            for (int ei = 0; ei < 7; ei++) {
                int ep = pow2[ei];
                if (experts % ep != 0 || (ep > 1 && experts == 1))
                    continue;
                for (int mi = 0; mi < 4; mi++) {
                    int mb = pow2[mi];
                    for (int rc = 0; rc < DAM_RECOMPUTE_COUNT; rc++) {
                        if (rc == DAM_RECOMPUTE_SELECTIVE &&
                            t->attn == DAM_ATTN_FLASH)
                            continue; /* same as none with fused attention */
                        dam_parallel_layers lc;
                        dam_error e;
                        if (dam_parallel_layers_cost(s, tp, tp > 1, cp, ep, mb,
                                                     rc, &lc, &e) != DAM_OK)
                            continue;
                        dam_layout l;
                        dam_layout_init(&l);
                        l.on = 1;
                        l.tp = tp;
                        l.cp = cp;
                        l.ep = ep;
                        l.sp = tp > 1;
                        l.micro_batch = mb;
                        l.recompute = rc;
                        l.overlap_grad = own->overlap_grad;
                        l.overlap_param = own->overlap_param;
                        l.overlap_a2a = own->overlap_a2a;
                        l.reserve = own->reserve;
                        inner(x, l, &lc, global);
                    }
                }
            }
        }
    }
}

/* The scenario's machine on GPU kind g with `gpus` GPUs. */
static void machine_for(const dam_scenario *base, const dam_gpu *g,
                        int64_t gpus, dam_scenario *s)
{
    *s = *base;
    dam_machine *m = &s->machine;
    if (g && strcmp(g->id, base->machine.gpu.id) != 0) {
        /* the new GPU brings its own node fabric (NVLink, or PCIe) */
        double old = dam_device_fabric_busbw(&m->gpu, m->pcie_bw);
        m->gpu = *g;
        double nw = dam_device_fabric_busbw(g, m->pcie_bw);
        if (old > 0.0 && nw > 0.0) {
            m->intra_busbw *= nw / old;
            m->net.domain_bw *= nw / old;
        }
    }
    int gn = m->gpus_per_node;
    m->nodes = (int)(gpus / gn);
    s->layout.on = 1;
}


/* Search one kind at one count; fill k. */
static void run_count(ctx *x, const dam_gpu *g, int64_t gpus,
                      dam_search_kind *k)
{
    machine_for(x->base, g, gpus, x->s);
    x->gpus = gpus;
    search_count(x);
    snprintf(k->gpu, sizeof k->gpu, "%s", g->id);
    k->gpus = gpus;
    k->price = x->price;
    k->evaluated += x->evaluated;
    k->fitting = x->fitting;
    k->nbest = x->nbest;
    memcpy(k->best, x->best, sizeof k->best);
    k->ncheap = x->ncheap;
    memcpy(k->cheap, x->cheap, sizeof k->cheap);
    /* the alternative must differ from the final winner's shape */
    k->have_alt = 0;
    if (x->nbest > 0) {
        const dam_layout *w = &x->best[0].l;
        for (int j = 1; j < x->nbest && !k->have_alt; j++) {
            const dam_layout *a = &x->best[j].l;
            if (a->tp != w->tp || a->pp != w->pp) {
                k->alt = x->best[j];
                k->have_alt = 1;
            }
        }
        if (!k->have_alt && x->have_alt) {
            const dam_layout *a = &x->alt.l;
            if (a->tp != w->tp || a->pp != w->pp) {
                k->alt = x->alt;
                k->have_alt = 1;
            }
        }
    }
    /* the scenario's own layout at this count, when it still applies */
    k->have_own = 0;
    const dam_layout *own = &x->base->layout;
    int64_t mp = (int64_t)own->tp * own->cp * own->pp;
    if (own->on && gpus % mp == 0) {
        dam_layout l = *own;
        l.dp = (int)(gpus / mp);
        double m = dam_scenario_global_batch(x->base) /
                   ((double)l.dp * l.micro_batch);
        dam_error e;
        if (m >= 1.0 && m == floor(m)) {
            l.micro_batches = (int)m;
            dam_parallel_layers lc;
            if (dam_layout_check(&l, &x->s->workload.model, gpus,
                                 x->s->workload.seq_len, NULL, &e) == DAM_OK &&
                dam_parallel_layers_cost(x->s, l.tp, l.sp, l.cp, l.ep,
                                         l.micro_batch, l.recompute, &lc,
                                         &e) == DAM_OK) {
                int keep = x->keep;
                x->keep = 0;
                size_t ev = x->evaluated, fi = x->fitting;
                int nb = x->nbest, nc = x->ncheap, ha = x->have_alt;
                dam_search_cand alt = x->alt;
                dam_search_cand best[8], cheap[8];
                memcpy(best, x->best, sizeof best);
                memcpy(cheap, x->cheap, sizeof cheap);
                evaluate(x, &l, &lc, &k->own);
                k->have_own = 1;
                x->keep = keep;
                x->evaluated = ev;
                x->fitting = fi;
                x->nbest = nb;
                x->ncheap = nc;
                x->have_alt = ha;
                x->alt = alt;
                memcpy(x->best, best, sizeof best);
                memcpy(x->cheap, cheap, sizeof cheap);
            }
        }
    }
}

/* GPU counts for a deadline: nodes 1, 2, 3, 4, 6, 8, 12, 16, ... */
static int64_t next_count(int64_t gpus, int gn)
{
    int64_t n = gpus / gn;
    int64_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    int64_t next = n < p + p / 2 ? p + p / 2 : 2 * p;
    if (next <= n)
        next = n + 1;
    return next * gn;
}

/* The 90 % intervals of candidate c: its layout on GPU g solved in every
 * draw of d (dam_uncertainty_answer), carried to its own figures. */
static void cand_interval(const dam_scenario *base, const dam_gpu *g,
                          dam_draws *d, dam_scenario *x, dam_search_cand *c)
{
    machine_for(base, g, c->gpus, x);
    x->layout = c->l;
    x->layout.on = 1;
    dam_answer_interval *a = dam_malloc(sizeof *a);
    dam_uncertainty_answer(d, x, x, NULL, NULL, a);
    dam_figures shown = {c->step, c->run_time, 0.0, c->gpu_hours, c->cost};
    dam_interval_carry(a, &shown, 0.0, 0.0, NULL, NULL, 0);
    c->step_iv = a->step;
    c->run_iv = a->run_time;
    c->cost_iv = a->cost_usd;
    c->has_interval = a->samples > 0;
    dam_free(a);
}

/* Intervals for what a kind lists: its five fastest and its cheapest. */
static void kind_intervals(const dam_scenario *s, const dam_gpu *g,
                           dam_search_kind *k)
{
    if (dam_uncertainty_sources(s) == 0)
        return;
    dam_draws *d = dam_draws_create(DAM_UNCERTAINTY_SAMPLES, s->seed);
    dam_scenario *x = dam_malloc(sizeof *x);
    for (int j = 0; j < k->nbest && j < 5; j++)
        cand_interval(s, g, d, x, &k->best[j]);
    if (k->ncheap > 0)
        cand_interval(s, g, d, x, &k->cheap[0]);
    dam_free(x);
    dam_draws_free(d);
}

int dam_search_run(const dam_scenario *s, const dam_catalog *cat,
                   const dam_search_opts *o, dam_search_result *out,
                   dam_error *e)
{
    memset(out, 0, sizeof *out);
    if (s->mode != DAM_MODE_TRAINING)
        return dam_error_set(e, s->file, 0,
                             "plan --search needs a training scenario (this "
                             "one is %s)",
                             dam_mode_name(s->mode));
    if (s->workload.model.arch.kind != DAM_ARCH_TRANSFORMER)
        return dam_error_set(e, s->file, 0,
                             "plan --search needs a model with a transformer "
                             "architecture (\"%s\" has none)",
                             s->workload.model.id);
    if (!(s->data.samples > 0.0))
        return dam_error_set(e, s->file, 0,
                             "plan --search needs data.samples to know the "
                             "run");
    int nk = o->nkinds > 0 ? o->nkinds : 1;
    if (nk > 16)
        nk = 16;
    const dam_gpu *gpu[16];
    for (int i = 0; i < nk; i++) {
        if (o->nkinds == 0) {
            gpu[i] = &s->machine.gpu;
            continue;
        }
        gpu[i] = cat ? dam_catalog_gpu(cat, o->kinds[i]) : NULL;
        if (!gpu[i]) {
            const char *near = cat ? dam_catalog_suggest_gpu(cat, o->kinds[i])
                                   : NULL;
            return dam_error_set(e, NULL, 0, "unknown GPU '%s'%s%s%s",
                                 o->kinds[i], near ? " (did you mean '" : "",
                                 near ? near : "", near ? "'?)" : "");
        }
        if (!(gpu[i]->peak[s->workload.precision] > 0.0))
            return dam_error_set(e, NULL, 0,
                                 "GPU '%s' has no %s peak",
                                 gpu[i]->id,
                                 dam_precision_name(s->workload.precision));
    }
    ctx x;
    memset(&x, 0, sizeof x);
    x.base = s;
    x.s = dam_malloc(sizeof *x.s);
    x.o = o;
    x.r = out;
    int gn = s->machine.gpus_per_node;
    int64_t gpus0 = o->gpus > 0 ? o->gpus : dam_scenario_gpus(s);
    int rc = DAM_OK;
    if (gpus0 % gn != 0)
        rc = dam_error_set(e, NULL, 0,
                           "%lld GPUs is not a whole number of %d-GPU nodes",
                           (long long)gpus0, gn);
    for (int i = 0; i < nk && rc == DAM_OK; i++) {
        dam_search_kind *k = &out->kind[out->nkinds++];
        memset(k, 0, sizeof *k);
        x.kind = i;
        x.price = dam_gpu_price(s, gpu[i]);
        if (o->deadline > 0.0) {
            /* first the scenario's own count: does it make it? */
            x.keep = 0;
            run_count(&x, gpu[i], gpus0, k);
            k->base_gpus = gpus0;
            k->have_base = k->nbest > 0;
            if (k->have_base)
                k->base = k->best[0];
            size_t ev0 = k->evaluated;
            /* then the fewest GPUs whose fastest fitting layout is */
            int64_t g = gn, lo = 0;
            int found = 0;
            while (g <= DAM_MAX_GPUS && !found) {
                run_count(&x, gpu[i], g, k);
                found = k->nbest > 0 && k->best[0].run_time <= o->deadline;
                if (!found) {
                    if (k->nbest > 0) /* a layout fits there, too slow */
                        lo = g;
                    g = next_count(g, gn);
                }
            }
            /* refine between the last count that had a layout too slow
             * and the first that made it: eighths of the gap, in whole
             * nodes (counts the global batch and the model divide
             * differently) */
            if (found && lo > 0 && (g - lo) / gn >= 2) {
                int64_t hi = g, step = (hi - lo) / gn / 8;
                if (step < 1)
                    step = 1;
                for (int64_t c = lo + step * gn; c < hi; c += step * gn) {
                    run_count(&x, gpu[i], c, k);
                    if (k->nbest > 0 && k->best[0].run_time <= o->deadline) {
                        g = c;
                        break;
                    }
                }
                if (g == hi) /* none between: back to the first found */
                    run_count(&x, gpu[i], g, k);
            }
            (void)ev0;
            if (!found) {
                k->gpus = 0;
                k->nbest = k->ncheap = 0;
                out->evaluated += k->evaluated;
                continue;
            }
            if (o->keep_all) { /* the candidates at the count found */
                x.keep = 1;
                size_t ev = k->evaluated;
                run_count(&x, gpu[i], g, k);
                k->evaluated = ev;
            }
        } else {
            x.keep = o->keep_all;
            run_count(&x, gpu[i], gpus0, k);
        }
        if (o->budget > 0.0) {
            /* only what the budget pays for, fastest first */
            int n = 0;
            for (int j = 0; j < k->nbest; j++) {
                double spend = o->budget_gpu_hours ? k->best[j].gpu_hours
                                                   : k->best[j].cost;
                if (spend <= o->budget)
                    k->best[n++] = k->best[j];
            }
            k->nbest = n;
            n = 0;
            for (int j = 0; j < k->ncheap; j++) {
                double spend = o->budget_gpu_hours ? k->cheap[j].gpu_hours
                                                   : k->cheap[j].cost;
                if (spend <= o->budget)
                    k->cheap[n++] = k->cheap[j];
            }
            k->ncheap = n;
        }
        if (o->intervals)
            kind_intervals(s, gpu[i], k);
        out->evaluated += k->evaluated;
    }
    dam_free(x.s);
    if (rc != DAM_OK)
        dam_search_free(out);
    return rc;
}

void dam_search_free(dam_search_result *r)
{
    if (!r)
        return;
    dam_free(r->all);
    r->all = NULL;
    r->nall = r->capall = 0;
}

int dam_search_why(const dam_search_cand *a, const dam_search_cand *b,
                   double *saves)
{
    int best = DAM_TERM_COMPUTE;
    double d = -HUGE_VAL;
    for (int t = 0; t < DAM_TERM_COUNT; t++) {
        double x = b->terms[t] - a->terms[t];
        if (x > d) {
            d = x;
            best = t;
        }
    }
    if (saves)
        *saves = d;
    return best;
}
