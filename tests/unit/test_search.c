/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_search.c: the layout search (solver/search.h). All checks are by
 * construction: what the search promises about its own list (only layouts
 * that fit are ranked, the ranking is by step time, every candidate obeys
 * the layout's rules, the deadline's count is the smallest on its grid).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/loader.h"
#include "solver/search.h"

static dam_catalog cat;

static int load(dam_scenario *s, const char *file)
{
    return dam_test_scenario(file, &cat, s);
}

static void fixed_count(const dam_scenario *s)
{
    dam_search_opts o;
    memset(&o, 0, sizeof o);
    o.keep_all = 1;
    dam_search_result *r = calloc(1, sizeof *r);
    dam_error e;
    int rc = dam_search_run(s, &cat, &o, r, &e);
    dam_check_int(rc, DAM_OK, "search runs");
    const dam_search_kind *k = &r->kind[0];
    dam_check(k->evaluated > 1000 && k->evaluated == r->nall,
              "%zu candidates costed and all kept", k->evaluated);
    size_t fit = 0, bad = 0;
    double fastest = HUGE_VAL;
    for (size_t i = 0; i < r->nall; i++) {
        const dam_search_cand *c = &r->all[i];
        const dam_layout *l = &c->l;
        dam_layout_rule rule;
        if (dam_layout_check(l, &s->workload.model, c->gpus,
                             s->workload.seq_len, &rule, &e) != DAM_OK)
            bad++;
        if ((c->memory <= s->machine.gpu.mem_bytes) != c->fits)
            bad++;
        if ((double)l->dp * l->micro_batch * l->micro_batches !=
            dam_scenario_global_batch(s))
            bad++;
        /* the run: whole steps over the samples, each epoch, at the
         * step time; its GPU-hours: every GPU for the run */
        double steps = ceil(s->data.samples / dam_scenario_global_batch(s)) *
                       dam_scenario_run_epochs(s);
        if (!(fabs(c->run_time - steps * c->step) <= 1e-12 * c->run_time) ||
            !(fabs(c->gpu_hours - (double)c->gpus * c->run_time / 3600.0) <=
              1e-12 * c->gpu_hours))
            bad++;
        if (c->fits) {
            fit++;
            if (c->step < fastest)
                fastest = c->step;
        } else if (!(c->shortfall > 0.0)) {
            bad++;
        }
    }
    dam_check_int((long)bad, 0,
                  "every candidate obeys the layout's rules, keeps the "
                  "global batch, runs its steps at its step time, and says "
                  "whether and by how much it misses memory");
    dam_check_int((long)fit, (long)k->fitting, "fitting count");
    dam_check(fit < r->nall, "some candidates do not fit (%zu of %zu fit)",
              fit, r->nall);
    dam_check(k->nbest > 0 && k->best[0].step == fastest,
              "the first ranked is the fastest that fits");
    int ok = 1;
    for (int j = 0; j < k->nbest; j++) {
        ok &= k->best[j].fits;
        if (j > 0)
            ok &= k->best[j].step >= k->best[j - 1].step;
    }
    dam_check(ok, "ranked layouts all fit, fastest first");
    for (int j = 1; j < k->ncheap; j++)
        ok &= k->cheap[j].cost >= k->cheap[j - 1].cost && k->cheap[j].fits;
    dam_check(ok, "cheapest list: fitting, cheapest first");
    dam_check(k->have_own && k->own.l.tp == s->layout.tp &&
                  k->own.l.pp == s->layout.pp,
              "the scenario's own layout is costed beside them");
    dam_check(k->own.step >= k->best[0].step,
              "the scenario's own layout is no faster than the winner");
    if (k->have_alt) {
        double saves;
        int t = dam_search_why(&k->best[0], &k->alt, &saves);
        dam_check(saves > 0.0 && t >= 0 && t < DAM_TERM_COUNT,
                  "the winner saves %g s of '%s' over the other shape",
                  saves, dam_term_name((dam_term)t));
    }
    dam_search_free(r);
    free(r);
}

static void deadline(const dam_scenario *s)
{
    dam_search_opts o;
    memset(&o, 0, sizeof o);
    o.deadline = 60.0 * 86400.0;
    dam_search_result *r = calloc(1, sizeof *r);
    dam_error e;
    dam_check_int(dam_search_run(s, &cat, &o, r, &e), DAM_OK,
                  "deadline search runs");
    const dam_search_kind *k = &r->kind[0];
    dam_check(k->gpus > 0 && k->nbest > 0 &&
                  k->best[0].run_time <= o.deadline,
              "a count meets 60 days (%lld GPUs, %.1f d)",
              (long long)k->gpus, k->nbest ? k->best[0].run_time / 86400 : 0);
    /* a node fewer does not (the counts below it on the grid are probed
     * first) */
    int gn = s->machine.gpus_per_node;
    int64_t prev = k->gpus / gn - 1;
    if (prev >= 1) {
        dam_search_opts f;
        memset(&f, 0, sizeof f);
        f.gpus = prev * gn;
        dam_search_result *q = calloc(1, sizeof *q);
        dam_search_run(s, &cat, &f, q, &e);
        dam_check(q->kind[0].nbest == 0 ||
                      q->kind[0].best[0].run_time > o.deadline,
                  "%lld GPUs (a node fewer) miss it",
                  (long long)f.gpus);
        dam_search_free(q);
        free(q);
    }
    dam_search_free(r);
    free(r);
}

static void errors(dam_scenario *s)
{
    dam_search_opts o;
    memset(&o, 0, sizeof o);
    o.kinds[0] = "H100-SXM5-80G";
    o.nkinds = 1;
    dam_search_result r;
    dam_error e;
    dam_check_int(dam_search_run(s, &cat, &o, &r, &e), DAM_EINPUT,
                  "an unknown GPU kind is bad input");
    dam_check(strstr(e.msg, "did you mean 'H100-SXM5-80GB'") != NULL,
              "with a suggestion: %s", e.msg);
}

int main(void)
{
    dam_test_start(&cat);
    static dam_scenario s;
    if (load(&s, "llama3-70b-1024-h100.cfg") != DAM_OK) {
        dam_check(0, "example scenario loads");
        return dam_check_done();
    }
    fixed_count(&s);
    deadline(&s);
    errors(&s);
    dam_catalog_free(&cat);
    return dam_check_done();
}
