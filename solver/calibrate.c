/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * calibrate.c: catalog constants fitted to measurements, and
 * leave-one-GPU-out cross-validation (see calibrate.h); and eta from one
 * measured throughput by root finding (throughput is non-decreasing in
 * eta, so the bracket [1e-4, 1] holds the root whenever one exists).
 *
 * The fit's residual function sets the trial constants on every case
 * (each distinct configuration the rows measure) and re-solves only the
 * cases whose constants moved: a finite-difference Jacobian column moves
 * one constant, so it costs the solves of the rows that use it, not of
 * all rows. Linear in rows: rows of one (scenario, levers) share a case,
 * each scenario file is read once, and past DAM_CALIB_RESIDENT_BYTES of
 * scenario copies a case is rebuilt from its file's copy when solved, so
 * memory is a few kilobytes per row.
 */
#include "solver/calibrate.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/lever.h"
#include "model/loader.h"
#include "solver/analytic.h"

typedef struct fit {
    dam_scenario s;   /* working copy; eta varies */
    dam_result r;     /* scratch */
    double target;    /* samples/s */
} fit;

static double gap(double eta, void *p)
{
    fit *f = p;
    f->s.workload.eta = eta;
    f->s.workload.eta_given = 1;
    dam_analytic_solve(&f->s, &f->r);
    return f->r.throughput / f->target - 1.0;
}

int dam_calibrate_eta(const dam_scenario *s, double throughput, double *eta,
                      dam_error *err)
{
    if (!(throughput > 0.0))
        return dam_error_set(err, s->file, 0,
                             "measured throughput must be > 0, got %g",
                             throughput);
    fit *f = dam_malloc(sizeof *f);
    f->s = *s;
    f->target = throughput;
    gsl_function fn = {gap, f};
    double lo = 1e-4, hi = 1.0;
    double glo = gap(lo, f), ghi = gap(hi, f);
    int rc = DAM_OK;
    if (glo > 0.0 || ghi < 0.0) {
        rc = dam_error_set(err, s->file, 0,
                           "no efficiency in [%g, 1] gives %g samples/s "
                           "(the model gives %g to %g)",
                           lo, throughput, (glo + 1.0) * throughput,
                           (ghi + 1.0) * throughput);
        dam_free(f);
        return rc;
    }
    gsl_root_fsolver *solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_root_fsolver_set(solver, &fn, lo, hi);
    int status = GSL_CONTINUE;
    for (int i = 0; i < 200 && status == GSL_CONTINUE; i++) {
        if (gsl_root_fsolver_iterate(solver) != GSL_SUCCESS)
            break;
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(solver),
                                        gsl_root_fsolver_x_upper(solver), 0.0,
                                        1e-9);
    }
    if (status != GSL_SUCCESS)
        rc = dam_error_set(err, s->file, 0,
                           "efficiency fit did not converge (%s)",
                           gsl_strerror(status));
    else
        *eta = gsl_root_fsolver_root(solver);
    gsl_root_fsolver_free(solver);
    dam_free(f);
    return rc;
}

/* ---- fitting catalog constants to measurements ------------------------ */

/* One measured scenario: a row of the file after loading. */
typedef struct ccase {
    dam_scenario *s;          /* the scenario with its levers applied, or
                               * NULL when not resident (case_scn) */
    const dam_scenario *base; /* its file as loaded (before levers) */
    /* not resident: what its levers changed in base, as the 8-byte words
     * that differ (index, value) and the bytes past the last whole word */
    uint32_t *dpos;
    uint64_t *dval;
    int ndiff;
    unsigned char dtail[8];
    const dam_measure *m;     /* its row */
    int row0;                 /* its first row */
    double step_error;        /* its model's step error once fitted (0:
                               * the catalog's) */
    int profile;              /* index into profiles, -1 when not a trace */
    int nuse;                 /* parameters it uses */
    int use[DAM_MAX_CONST_USES];   /* their indices */
    int *place;               /* per use: where it is written in the
                               * case's scenario (index into pb->places),
                               * NULL until resolved (resolve_places) */
    double last[DAM_MAX_CONST_USES];/* values at the last solve */
    int solved;               /* 1 once q holds a solve */
    double q[2 + DAM_KCLASS_COUNT];/* step, throughput, class times */
    int fitted;               /* 0: held out */
} ccase;

/* The whole problem, the residual function's context. */
typedef struct problem {
    ccase *cases;
    int ncases;
    dam_calib_row *rows;
    int *row_case;            /* row -> case */
    int nrows;
    int *fit_rows;            /* residual i -> row */
    int nfit;
    dam_calib_const *consts;
    int nconst;
    int *active;              /* fit parameter k -> constant active[k] */
    int nactive;
    int nprior;               /* active constants with a prior (start_sd > 0) */
    double *xfull;            /* every constant's value (work) */
    const dam_catalog *cat;   /* resolves the rows' levers */
    struct loadtab *tab;      /* the scenario files, loaded once */
    dam_scenario *scratch;    /* a non-resident case's scenario */
    int scratch_case;         /* the case scratch holds, -1: none known */
    dam_const_place *places;  /* distinct places of the cases' uses */
    int nplaces;
    size_t places_cap;
    int with_sd;              /* case_scn also sets the constants' sd */
    double wscale;            /* measurement errors are rel_error x wscale
                                 (empirical Bayes: see dam_calibrate_run) */
    dam_result *r;            /* scratch */
} problem;

enum { Q_STEP = 0, Q_THROUGHPUT = 1, Q_CLASS = 2 };

void dam_calibrate_class_times(const dam_scenario *s, const dam_result *r,
                               double t[DAM_KCLASS_COUNT])
{
    for (int k = 0; k < DAM_KCLASS_COUNT; k++)
        t[k] = 0.0;
    int nph = s->workload.model.nphases;
    for (int i = 0; i < r->nphases && i < nph; i++) {
        const dam_phase_result *ph = &r->phases[i];
        if (ph->kind == DAM_PHASE_MATMUL)
            t[DAM_KCLASS_GEMM] += ph->time;
        else if (ph->kind == DAM_PHASE_ATTENTION)
            t[DAM_KCLASS_ATTENTION] += ph->time;
        else
            t[DAM_KCLASS_ELEMENTWISE] += ph->time;
    }
    t[DAM_KCLASS_OPTIMIZER] = dam_analytic_optimizer(s);
    t[DAM_KCLASS_COPY] = r->t_transfer;
    t[DAM_KCLASS_NCCL] = r->t_comm;
}

/* Solve scenario x into the quantities q. */
static void solve_q(const dam_scenario *x, dam_result *r, double *q)
{
    dam_analytic_solve(x, r);
    q[Q_STEP] = r->step;
    q[Q_THROUGHPUT] = r->throughput;
    dam_calibrate_class_times(x, r, q + Q_CLASS);
}

static int row_q(const dam_calib_row *row)
{
    if (row->quantity == DAM_CALIB_STEP)
        return Q_STEP;
    if (row->quantity == DAM_CALIB_THROUGHPUT)
        return Q_THROUGHPUT;
    return Q_CLASS + (int)row->cls;
}

/* Scenarios kept per case, at most; the other cases are rebuilt when
 * solved (case_scn). */
#define DAM_CALIB_RESIDENT_BYTES (16.0 * 1048576.0)

/*
 * Case c's scenario: its own copy when resident, else rebuilt in
 * pb->scratch from its file as loaded, what its row's levers changed
 * there (the same bytes as applying them again), the constants'
 * values at its last solve (and their sd when pb->with_sd) and its
 * model's fitted step error: the same scenario the resident copy would
 * be, since setting a constant overwrites it whatever it held. Cases past
 * the first DAM_CALIB_RESIDENT_BYTES of scenarios are not resident, so
 * memory stays linear in rows with a small constant.
 */
/* A case leaving residency keeps what its levers changed in its file's
 * scenario (s, its resident copy, against cc->base): the differing 8-byte
 * words and the tail, so case_scn rebuilds it without parsing them. */
static void keep_diff(ccase *cc, const dam_scenario *s)
{
    const unsigned char *a = (const unsigned char *)s;
    const unsigned char *b = (const unsigned char *)cc->base;
    size_t nw = sizeof *s / 8;
    int n = 0;
    for (size_t w = 0; w < nw; w++)
        n += memcmp(a + 8 * w, b + 8 * w, 8) != 0;
    cc->dpos = dam_malloc((size_t)(n ? n : 1) * sizeof *cc->dpos);
    cc->dval = dam_malloc((size_t)(n ? n : 1) * sizeof *cc->dval);
    cc->ndiff = 0;
    for (size_t w = 0; w < nw; w++)
        if (memcmp(a + 8 * w, b + 8 * w, 8) != 0) {
            cc->dpos[cc->ndiff] = (uint32_t)w;
            memcpy(&cc->dval[cc->ndiff++], a + 8 * w, 8);
        }
    memcpy(cc->dtail, a + 8 * nw, sizeof *s % 8);
}

/* Copy the 8-byte word at byte offset off from base into x. */
static void restore_word(dam_scenario *x, const dam_scenario *base,
                         size_t off)
{
    memcpy((char *)x + off, (const char *)base + off, 8);
}

/* Set case cc's use u to v (and sd, when sd >= 0) in x, its scenario: at
 * its place once resolved, else by its key. */
static void put_const(const problem *pb, const ccase *cc, int u,
                      dam_scenario *x, double v, double sd)
{
    if (cc->place) {
        if (cc->place[u] >= 0)
            dam_const_place_write(x, &pb->places[cc->place[u]], v, sd);
    } else {
        dam_scenario_const_set(x, &pb->consts[cc->use[u]].key, v, sd);
    }
}

/* Write case cc's constants (its last values) into x. */
static void write_consts(const problem *pb, const ccase *cc, dam_scenario *x)
{
    for (int u = 0; u < cc->nuse; u++)
        put_const(pb, cc, u, x, cc->last[u],
                  pb->with_sd ? pb->consts[cc->use[u]].sd : -1.0);
}

/*
 * Scratch holds case prev's scenario: put back from prev's file, as
 * loaded, every word prev's build changed (its levers' words, its
 * constants' places and its step error), so scratch is that file's
 * scenario again without copying all of it. Returns 0 when prev's
 * changes are not all known (its constants not resolved to places).
 */
static int unbuild(problem *pb, const ccase *pc)
{
    dam_scenario *x = pb->scratch;
    if (pc->nuse > 0 && !pc->place)
        return 0;
    for (int i = 0; i < pc->ndiff; i++)
        restore_word(x, pc->base, 8 * (size_t)pc->dpos[i]);
    for (int u = 0; u < pc->nuse; u++) {
        if (pc->place[u] < 0)
            continue;
        const dam_const_place *pl = &pb->places[pc->place[u]];
        for (int i = 0; i < pl->nvalue; i++)
            restore_word(x, pc->base, pl->value[i]);
        for (int i = 0; i < pl->nsd; i++)
            restore_word(x, pc->base, pl->sd[i]);
    }
    x->workload.model.step_error = pc->base->workload.model.step_error;
    return 1;
}

static dam_scenario *case_scn(problem *pb, int c)
{
    ccase *cc = &pb->cases[c];
    if (cc->s)
        return cc->s;
    dam_scenario *x = pb->scratch;
    int prev = pb->scratch_case;
    pb->scratch_case = -1;
    if (prev < 0 || pb->cases[prev].base != cc->base ||
        !unbuild(pb, &pb->cases[prev]))
        memcpy(x, cc->base, sizeof *x);
    /* its levers' changes, as they applied when loaded (keep_diff) */
    unsigned char *b = (unsigned char *)x;
    for (int i = 0; i < cc->ndiff; i++)
        memcpy(b + 8 * (size_t)cc->dpos[i], &cc->dval[i], 8);
    memcpy(b + sizeof *x / 8 * 8, cc->dtail, sizeof *x % 8);
    write_consts(pb, cc, x);
    if (cc->step_error > 0.0)
        x->workload.model.step_error = cc->step_error;
    pb->scratch_case = c;
    return x;
}

/* Set parameter values x on every case and re-solve those that moved. */
static void update(problem *pb, const double *x)
{
    for (int c = 0; c < pb->ncases; c++) {
        ccase *cc = &pb->cases[c];
        int moved = !cc->solved;
        for (int u = 0; u < cc->nuse; u++) {
            double v = x[cc->use[u]];
            if (v != cc->last[u]) {
                if (cc->s)
                    put_const(pb, cc, u, cc->s, v, -1.0);
                cc->last[u] = v;
                moved = 1;
            }
        }
        if (moved) {
            solve_q(case_scn(pb, c), pb->r, cc->q);
            cc->solved = 1;
        }
    }
}

/* The measurement residuals ln(pred / measured) / rel_error at x (every
 * constant's value). Returns 1 when a prediction is not positive. */
static int residuals(const double *x, double *res, void *ctx)
{
    problem *pb = ctx;
    update(pb, x);
    for (int i = 0; i < pb->nfit; i++) {
        const dam_calib_row *row = &pb->rows[pb->fit_rows[i]];
        double pred = pb->cases[pb->row_case[pb->fit_rows[i]]].q[row_q(row)];
        if (!(pred > 0.0) || !isfinite(pred))
            return 1;
        res[i] = log(pred / row->measured) / (row->rel_error * pb->wscale);
    }
    return 0;
}

/* What the fit minimises, over the active constants x: the measurement
 * residuals, then one prior residual (x - start) / start_sd per active
 * constant that carries an uncertainty (its catalog value is itself a
 * measurement, from microbenchmarks or earlier fits). */
/*
 * After a fit: a constant that ended on the edge of its range means the
 * rows that use it cannot be matched inside it (a throughput in the wrong
 * unit, a step time a thousand times off). Report that at each such row's
 * line, with the constant and its range, instead of fitting on from the
 * edge; DAM_EINPUT, or DAM_OK when every constant is inside.
 */
static int edge_rows(const problem *pb, const dam_fit_param *fp,
                     const char *file, dam_diag *d)
{
    int rc = DAM_OK;
    for (int k = 0; k < pb->nactive; k++) {
        double eps = 1e-6 * (fp[k].hi - fp[k].lo);
        int low = fp[k].value <= fp[k].lo + eps;
        if (!low && !(fp[k].value >= fp[k].hi - eps))
            continue;
        for (int i = 0; i < pb->nfit; i++) {
            const dam_calib_row *row = &pb->rows[pb->fit_rows[i]];
            const ccase *cc = &pb->cases[pb->row_case[pb->fit_rows[i]]];
            int uses = 0;
            for (int u = 0; u < cc->nuse; u++)
                uses |= cc->use[u] == pb->active[k];
            if (!uses)
                continue;
            dam_diag_error(d, file, row->line,
                           "this row cannot be matched: it needs '%s' %s "
                           "its range [%g, %g] (it stopped at %g); check the "
                           "row's value and unit",
                           fp[k].name, low ? "below" : "above", fp[k].lo,
                           fp[k].hi, fp[k].value);
            rc = DAM_EINPUT;
        }
    }
    return rc;
}

static int fit_residuals(const double *x, double *res, void *ctx)
{
    problem *pb = ctx;
    for (int k = 0; k < pb->nactive; k++)
        pb->xfull[pb->active[k]] = x[k];
    if (residuals(pb->xfull, res, pb) != 0)
        return 1;
    int i = pb->nfit;
    for (int k = 0; k < pb->nactive; k++) {
        const dam_calib_const *c = &pb->consts[pb->active[k]];
        if (c->start_sd > 0.0)
            res[i++] = (x[k] - c->start) / c->start_sd;
    }
    return 0;
}

/* Does key k match one of the fit prefixes? */
static int wanted(const dam_calib_options *opt, const char *name)
{
    if (!opt || opt->nfit == 0)
        return 1;
    for (int i = 0; i < opt->nfit; i++)
        if (strncmp(name, opt->fit[i], strlen(opt->fit[i])) == 0)
            return 1;
    return 0;
}

/* Parse and apply a row's levers to s. */
static int apply_levers(const dam_measure *m, const dam_catalog *cat,
                        dam_scenario *s, dam_error *err)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", m->levers);
    dam_lever lv[DAM_MAX_LEVERS];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t;
         t = strtok_r(NULL, " \t", &save)) {
        if (n == DAM_MAX_LEVERS)
            return dam_error_set(err, "", 0, "more than %d levers",
                                 DAM_MAX_LEVERS);
        if (dam_lever_parse_kv(t, &lv[n], err) != DAM_OK)
            return DAM_EINPUT;
        n++;
    }
    return n ? dam_levers_apply_all(s, lv, n, cat, s, err) : DAM_OK;
}

static void add_row(problem *pb, size_t *cap, int c, const dam_measure *m,
                    dam_calib_quantity q, int cls, double measured,
                    const char *suffix)
{
    const ccase *cc = &pb->cases[c];
    const dam_scenario *sc = case_scn(pb, c);
    pb->rows = dam_grow(pb->rows, sizeof *pb->rows, (size_t)pb->nrows + 1,
                        cap);
    size_t rc_cap = *cap;
    pb->row_case = dam_realloc(pb->row_case, rc_cap * sizeof(int));
    dam_calib_row *row = &pb->rows[pb->nrows];
    memset(row, 0, sizeof *row);
    snprintf(row->id, sizeof row->id, "%s%s%s", m->id, suffix[0] ? ":" : "",
             suffix);
    row->line = m->line;
    snprintf(row->gpu, sizeof row->gpu, "%s", sc->machine.gpu.id);
    snprintf(row->model, sizeof row->model, "%s", sc->workload.model.id);
    snprintf(row->scenario, sizeof row->scenario, "%s", m->scenario);
    row->gpus = dam_scenario_gpus(sc);
    row->precision = (int)sc->workload.precision;
    row->quantity = q;
    row->cls = (dam_kernel_class)cls;
    row->measured = measured;
    row->rel_error = m->rel_error;
    row->held_out = !cc->fitted;
    pb->row_case[pb->nrows++] = c;
}

static void loadtab_free(struct loadtab *t);

static void problem_free(problem *pb, int keep_rows)
{
    if (pb->tab) {
        loadtab_free(pb->tab);
        dam_free(pb->tab);
    }
    dam_free(pb->scratch);
    for (int c = 0; c < pb->ncases; c++) {
        dam_free(pb->cases[c].s);
        dam_free(pb->cases[c].dpos);
        dam_free(pb->cases[c].dval);
        dam_free(pb->cases[c].place);
    }
    dam_free(pb->places);
    dam_free(pb->cases);
    if (!keep_rows)
        dam_free(pb->rows);
    dam_free(pb->row_case);
    dam_free(pb->fit_rows);
    dam_free(pb->active);
    dam_free(pb->xfull);
    if (!keep_rows)
        dam_free(pb->consts);
    dam_free(pb->r);
}

/* FNV-1a over two strings (a separator between them), for the tables of
 * load_cases. */
static uint64_t hash2(const char *a, const char *b)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = a; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    h = (h ^ 0xffu) * 0x100000001b3ull;
    for (const char *p = b; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    return h;
}

/*
 * What load_cases keeps while it reads rows: each scenario file loaded
 * once (a row copies it and applies its levers), and the case of each
 * (scenario, levers) a step-time or throughput row already made, so rows
 * that measure the same configuration share one scenario and one solve.
 * Both are open-addressing tables of a power-of-two size above twice the
 * rows, so loading is linear in rows and memory is one scenario per
 * distinct configuration, not per row.
 */
typedef struct loadtab {
    size_t mask;
    int *file;            /* slot -> index into bases, -1 empty */
    const char **path;    /* bases' paths */
    dam_scenario **base;  /* loaded files */
    int nbase;
    int *cfg;             /* slot -> case index, -1 empty */
} loadtab;

static void loadtab_init(loadtab *t, size_t n)
{
    size_t size = 16;
    while (size < 2 * n + 2)
        size *= 2;
    t->mask = size - 1;
    t->file = dam_malloc(size * sizeof *t->file);
    t->cfg = dam_malloc(size * sizeof *t->cfg);
    for (size_t i = 0; i < size; i++)
        t->file[i] = t->cfg[i] = -1;
    t->path = dam_calloc(n + 1, sizeof *t->path);
    t->base = dam_calloc(n + 1, sizeof *t->base);
    t->nbase = 0;
}

static void loadtab_free(struct loadtab *t)
{
    for (int i = 0; i < t->nbase; i++)
        dam_free(t->base[i]);
    dam_free(t->base);
    dam_free(t->path);
    dam_free(t->file);
    dam_free(t->cfg);
}

/* Row m's scenario with its levers into a new scenario, or NULL with the
 * problems in d. */
static dam_scenario *case_scenario(const dam_measure_set *set,
                                   const dam_measure *m, dam_catalog *cat,
                                   loadtab *t, const dam_scenario **base,
                                   dam_diag *d)
{
    size_t i = (size_t)hash2(m->scenario, "") & t->mask;
    while (t->file[i] >= 0 && strcmp(t->path[t->file[i]], m->scenario) != 0)
        i = (i + 1) & t->mask;
    dam_scenario *s = dam_malloc(sizeof *s);
    if (t->file[i] >= 0) {
        memcpy(s, t->base[t->file[i]], sizeof *s);
    } else {
        dam_diag sd;
        dam_diag_init(&sd);
        if (dam_scenario_load(s, m->scenario, NULL, cat, &sd) != DAM_OK) {
            for (size_t k = 0; k < sd.n; k++)
                dam_diag_add(d, &sd.items[k]);
            dam_diag_error(d, set->file, m->line,
                           "the scenario \"%s\" of this row does not load",
                           m->scenario);
            dam_diag_free(&sd);
            dam_free(s);
            return NULL;
        }
        dam_diag_free(&sd);
        t->path[t->nbase] = m->scenario;
        t->base[t->nbase] = dam_malloc(sizeof *s);
        memcpy(t->base[t->nbase], s, sizeof *s);
        t->file[i] = t->nbase++;
    }
    *base = t->base[t->file[i]];
    dam_error e;
    if (apply_levers(m, cat, s, &e) != DAM_OK) {
        dam_diag_error(d, set->file, m->line, "levers: %s", e.msg);
        dam_free(s);
        return NULL;
    }
    return s;
}

/* Slot of row m's configuration in t->cfg: its case, or an empty slot. */
static size_t case_slot(const problem *pb, const loadtab *t,
                        const dam_measure *m)
{
    size_t i = (size_t)hash2(m->scenario, m->levers) & t->mask;
    while (t->cfg[i] >= 0) {
        const dam_measure *o = pb->cases[t->cfg[i]].m;
        if (strcmp(o->scenario, m->scenario) == 0 &&
            strcmp(o->levers, m->levers) == 0)
            break;
        i = (i + 1) & t->mask;
    }
    return i;
}

/* Load each row's scenario and trace into cases and rows. */
static int load_cases(const dam_measure_set *set, dam_catalog *cat,
                      const dam_calib_options *opt, problem *pb,
                      dam_calibration *out, int with_traces, dam_diag *d)
{
    int before = d->nerr;
    pb->cases = dam_calloc(set->n ? set->n : 1, sizeof *pb->cases);
    out->profiles = dam_calloc(set->n ? set->n : 1, sizeof *out->profiles);
    size_t cap = 0;
    pb->cat = cat;
    pb->scratch = dam_malloc(sizeof *pb->scratch);
    pb->scratch_case = -1;
    pb->tab = dam_malloc(sizeof *pb->tab);
    loadtab_init(pb->tab, set->n);
    loadtab *tp = pb->tab;
    for (size_t i = 0; i < set->n; i++) {
        const dam_measure *m = &set->rows[i];
        if (m->kind == DAM_MEASURE_TRACE && !with_traces)
            continue;
        size_t slot = case_slot(pb, tp, m);
        if (m->kind != DAM_MEASURE_TRACE && tp->cfg[slot] >= 0) {
            int c = tp->cfg[slot];
            if (m->kind == DAM_MEASURE_STEP_TIME)
                add_row(pb, &cap, c, m, DAM_CALIB_STEP, 0, m->value, "");
            else
                add_row(pb, &cap, c, m, DAM_CALIB_THROUGHPUT, 0,
                        dam_measure_si(m, case_scn(pb, c)), "");
            continue;
        }
        const dam_scenario *base = NULL;
        dam_scenario *s = case_scenario(set, m, cat, tp, &base, d);
        if (!s)
            continue;
        int pidx = -1;
        if (m->kind == DAM_MEASURE_TRACE) {
            pidx = out->traces;
            if (dam_profile_load(&out->profiles[pidx], m->trace, NULL, d) !=
                DAM_OK) {
                dam_diag_error(d, set->file, m->line,
                               "the trace \"%s\" of this row does not load",
                               m->trace);
                dam_free(s);
                continue;
            }
            out->traces++;
        }
        ccase *cc = &pb->cases[pb->ncases];
        memset(cc, 0, sizeof *cc);
        cc->s = s;
        cc->base = base;
        cc->m = m;
        cc->row0 = pb->nrows;
        cc->profile = pidx;
        cc->fitted = !(opt && opt->hold_out_gpu && opt->hold_out_gpu[0] &&
                       strcasecmp(s->machine.gpu.id, opt->hold_out_gpu) == 0);
        int c = pb->ncases++;
        if (m->kind != DAM_MEASURE_TRACE)
            tp->cfg[slot] = c;
        if (m->kind == DAM_MEASURE_STEP_TIME) {
            add_row(pb, &cap, c, m, DAM_CALIB_STEP, 0, m->value, "");
        } else if (m->kind == DAM_MEASURE_THROUGHPUT) {
            add_row(pb, &cap, c, m, DAM_CALIB_THROUGHPUT, 0,
                    dam_measure_si(m, s), "");
        } else {
            /* a trace: one residual per class both sides have, and the
             * step; a class the model lacks is left out */
            const dam_profile *p = &out->profiles[pidx];
            double q[2 + DAM_KCLASS_COUNT];
            dam_result *r = dam_malloc(sizeof *r);
            solve_q(s, r, q);
            dam_free(r);
            for (int k = 0; k < DAM_KCLASS_COUNT; k++)
                if (p->time_s[k] > 0.0 && q[Q_CLASS + k] > 0.0)
                    add_row(pb, &cap, c, m, DAM_CALIB_CLASS, k, p->time_s[k],
                            dam_kernel_class_name((dam_kernel_class)k));
            if (p->step_s > 0.0)
                add_row(pb, &cap, c, m, DAM_CALIB_STEP, 0, p->step_s,
                        "step");
        }
        /* past the resident budget the case keeps no scenario of its own */
        double budget = opt && opt->resident_bytes != 0.0
                            ? opt->resident_bytes
                            : DAM_CALIB_RESIDENT_BYTES;
        if ((double)pb->ncases * sizeof *s > budget) {
            keep_diff(cc, cc->s);
            dam_free(cc->s);
            cc->s = NULL;
        }
    }
    /* --hold-out names a GPU that some row measured, or it holds out
     * nothing and the "held-out" figures would be the fit's own */
    int held = 0;
    for (int c = 0; c < pb->ncases; c++)
        held |= !pb->cases[c].fitted;
    if (opt && opt->hold_out_gpu && d->nerr == before && !held)
        dam_diag_error(d, set->file, 0,
                       "--hold-out %.60s: no row of this file is measured on "
                       "that GPU (give the id of a row's machine.gpu)",
                       opt->hold_out_gpu);
    return d->nerr > before ? DAM_EINPUT : DAM_OK;
}

/* A framework constant whose catalog value was fitted on measured
 * throughputs (data/README.md "Framework constants"). */
static int neutral(const dam_const_key *k)
{
    return k->owner == DAM_CONST_FRAMEWORK &&
           (!strcmp(k->field, "conv_frac") ||
            !strcmp(k->field, "elementwise_frac"));
}

/* Index of place pl in pb->places, added when new. */
static int place_index(problem *pb, const dam_const_place *pl)
{
    for (int i = 0; i < pb->nplaces; i++) {
        const dam_const_place *q = &pb->places[i];
        int same = q->nvalue == pl->nvalue && q->nsd == pl->nsd;
        for (int j = 0; same && j < pl->nvalue; j++)
            same = q->value[j] == pl->value[j];
        for (int j = 0; same && j < pl->nsd; j++)
            same = q->sd[j] == pl->sd[j];
        if (same)
            return i;
    }
    pb->places = dam_grow(pb->places, sizeof *pb->places,
                          (size_t)pb->nplaces + 1, &pb->places_cap);
    pb->places[pb->nplaces] = *pl;
    return pb->nplaces++;
}

/* Where each case's uses are written in its scenario, resolved once (the
 * fit sets them at every solve). */
static void resolve_places(problem *pb)
{
    for (int c = 0; c < pb->ncases; c++) {
        ccase *cc = &pb->cases[c];
        if (cc->nuse == 0)
            continue;
        const dam_scenario *x = case_scn(pb, c);
        int *pi = dam_malloc((size_t)cc->nuse * sizeof *pi);
        for (int u = 0; u < cc->nuse; u++) {
            dam_const_place pl;
            pi[u] = dam_scenario_const_place(x, &pb->consts[cc->use[u]].key,
                                             &pl)
                        ? place_index(pb, &pl)
                        : -1;
        }
        cc->place = pi;
    }
}

/* The parameters: every constant the fitted cases use (and the options
 * want), in first-use order; each case's uses mapped to them. */
static void collect_params(problem *pb, const dam_calib_options *opt)
{
    size_t cap = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int c = 0; c < pb->ncases; c++) {
            ccase *cc = &pb->cases[c];
            if ((pass == 0) != (cc->fitted != 0))
                continue;
            dam_const_use use[DAM_MAX_CONST_USES];
            int nu = dam_scenario_constants(case_scn(pb, c), use,
                                            DAM_MAX_CONST_USES);
            for (int u = 0; u < nu; u++) {
                char name[DAM_CONST_KEY_MAX];
                dam_const_key_format(&use[u].key, name, sizeof name);
                if (!wanted(opt, name))
                    continue;
                int j = 0;
                while (j < pb->nconst &&
                       !dam_const_key_equal(&pb->consts[j].key, &use[u].key))
                    j++;
                if (j == pb->nconst) {
                    if (pass == 1)
                        continue; /* used by held-out cases only: not fitted */
                    pb->consts = dam_grow(pb->consts, sizeof *pb->consts,
                                          (size_t)pb->nconst + 1, &cap);
                    dam_calib_const *k = &pb->consts[pb->nconst++];
                    memset(k, 0, sizeof *k);
                    k->key = use[u].key;
                    snprintf(k->name, sizeof k->name, "%s", name);
                    k->start = k->value = use[u].value;
                    k->start_sd = use[u].sd;
                    if (opt && opt->neutral_priors && neutral(&k->key)) {
                        k->start = k->value = 1.0;
                        k->start_sd = 0.5;
                    }
                    k->lo = use[u].lo;
                    k->hi = use[u].hi;
                }
                cc->use[cc->nuse] = j;
                cc->last[cc->nuse] = use[u].value;
                cc->nuse++;
            }
        }
    resolve_places(pb);
}

/*
 * How strongly the fitted rows that use constant j follow it: the rms of
 * d ln(prediction) / d ln(x_j) over them, at x (a central difference of
 * 1 %), at least 0.05. The residual scatter, measured on the predictions,
 * becomes a scatter of the constant divided by it: a constant that moves
 * its rows half as much must scatter twice as much to explain them.
 */
static double sensitivity(problem *pb, double *x, int j)
{
    double *lo = dam_calloc((size_t)pb->nfit + 1, sizeof *lo);
    double *hi = dam_calloc((size_t)pb->nfit + 1, sizeof *hi);
    double x0 = x[j], h = 0.01;
    double vlo = x0 * (1.0 - h), vhi = x0 * (1.0 + h);
    double top = pb->consts[j].hi;
    if (vhi > top)
        vhi = top;
    x[j] = vlo;
    int bad = residuals(x, lo, pb);
    x[j] = vhi;
    bad |= residuals(x, hi, pb);
    x[j] = x0;
    double ss = 0.0;
    int n = 0;
    for (int i = 0; i < pb->nfit && !bad; i++) {
        const dam_calib_row *row = &pb->rows[pb->fit_rows[i]];
        /* residuals are ln(pred / meas) / rel_error */
        double d = (hi[i] - lo[i]) * row->rel_error * pb->wscale /
                   log(vhi / vlo);
        if (d != 0.0) {
            ss += d * d;
            n++;
        }
    }
    dam_free(hi);
    dam_free(lo);
    return n ? sqrt(ss / n) : 0.0;
}

/*
 * The effective number of parameters of the fit at the current constants:
 * tr((J^T J + L)^-1 J^T J), J the weighted Jacobian of the measurement
 * residuals over the active constants (central differences of 0.1 %), L
 * the priors' precisions (1 / sd^2; 0 without a prior). A constant the
 * data pin counts 1, one its prior holds counts about 0. The residual
 * scatter divides by n - p_eff, so a fit of many constants does not
 * claim the small in-sample scatter it bought with them (the held-out
 * errors of cross-validation are what this protects).
 */
static double effective_params(problem *pb)
{
    int n = pb->nfit, p = pb->nactive;
    if (n == 0 || p == 0)
        return 0.0;
    gsl_matrix *J = gsl_matrix_alloc((size_t)n, (size_t)p);
    gsl_matrix *A = gsl_matrix_calloc((size_t)p, (size_t)p);
    gsl_matrix *B = gsl_matrix_calloc((size_t)p, (size_t)p);
    double *lo = dam_calloc((size_t)n, sizeof *lo);
    double *hi = dam_calloc((size_t)n, sizeof *hi);
    double peff = 0.0;
    int bad = 0;
    for (int k = 0; k < p && !bad; k++) {
        int j = pb->active[k];
        const dam_calib_const *c = &pb->consts[j];
        double x0 = pb->xfull[j];
        double h = 1e-3 * (fabs(x0) > 0.0 ? fabs(x0) : c->hi - c->lo);
        double a = x0 - h < c->lo ? c->lo : x0 - h;
        double z = x0 + h > c->hi ? c->hi : x0 + h;
        pb->xfull[j] = a;
        bad |= residuals(pb->xfull, lo, pb);
        pb->xfull[j] = z;
        bad |= residuals(pb->xfull, hi, pb);
        pb->xfull[j] = x0;
        for (int i = 0; i < n; i++)
            gsl_matrix_set(J, (size_t)i, (size_t)k,
                           z > a ? (hi[i] - lo[i]) / (z - a) : 0.0);
    }
    if (!bad) {
        gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, J, J, 0.0, B);
        gsl_matrix_memcpy(A, B);
        for (int k = 0; k < p; k++) {
            double sd = pb->consts[pb->active[k]].start_sd;
            if (sd > 0.0)
                *gsl_matrix_ptr(A, (size_t)k, (size_t)k) += 1.0 / (sd * sd);
        }
        /* tr(A^-1 B), column by column of B */
        gsl_vector *col = gsl_vector_alloc((size_t)p);
        if (gsl_linalg_cholesky_decomp1(A) == GSL_SUCCESS) {
            for (int k = 0; k < p; k++) {
                gsl_matrix_get_col(col, B, (size_t)k);
                if (gsl_linalg_cholesky_svx(A, col) == GSL_SUCCESS)
                    peff += gsl_vector_get(col, (size_t)k);
            }
        } else {
            peff = p; /* singular: as many as there are */
        }
        gsl_vector_free(col);
    }
    update(pb, pb->xfull);
    dam_free(hi);
    dam_free(lo);
    gsl_matrix_free(B);
    gsl_matrix_free(A);
    gsl_matrix_free(J);
    return bad ? (double)p : peff;
}

/*
 * The step error of each model the fitted rows measure: the relative
 * scatter of its rows' residuals, shrunk towards the pooled scatter
 * (sigma_m^2 = (sum_m l^2 + 2 s^2) / (n_m + 2), with the pooled s^2 over
 * the free degrees of freedom), so a model with one row does not claim a
 * scatter of zero. Set on every case of the model (held-out rows then
 * predict with it) and recorded in out->models.
 */
static void step_errors(problem *pb, const double *res, double free_dof,
                        dam_calibration *out)
{
    double pooled = out->residual_sd * out->residual_sd;
    out->models = dam_calloc((size_t)pb->nfit + 1, sizeof *out->models);
    out->nmodels = 0;
    for (int i = 0; i < pb->nfit; i++) {
        const char *m = pb->rows[pb->fit_rows[i]].model;
        int j = 0;
        while (j < out->nmodels && strcmp(out->models[j].model, m) != 0)
            j++;
        if (j == out->nmodels) {
            snprintf(out->models[j].model, sizeof out->models[j].model, "%s",
                     m);
            out->nmodels++;
        }
        double l = res[i] * pb->rows[pb->fit_rows[i]].rel_error * pb->wscale;
        out->models[j].ss += l * l;
        out->models[j].rows++;
    }
    for (int j = 0; j < out->nmodels; j++) {
        dam_calib_model *x = &out->models[j];
        /* the model's share of the lost degrees of freedom */
        double keep = free_dof / pb->nfit;
        x->step_error =
            free_dof > 0.0
                ? sqrt((x->ss / keep + 2.0 * pooled) / (x->rows + 2.0))
                : 0.0;
        for (int c = 0; c < pb->ncases; c++) {
            ccase *cc = &pb->cases[c];
            if (!(x->step_error > 0.0) ||
                strcmp(pb->rows[cc->row0].model, x->model) != 0)
                continue;
            cc->step_error = x->step_error;
            if (cc->s)
                cc->s->workload.model.step_error = x->step_error;
        }
    }
}

/* Median of |v| (v is reordered). */
static double median_abs(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    for (int i = 0; i < n; i++)
        v[i] = fabs(v[i]);
    return dam_interval_of(v, n).median;
}

/* A case's rows in one draw (predict's dam_draws_each). */
typedef struct draw_rows {
    problem *pb;
    dam_calibration *out;
    const int *head, *next; /* each case's rows in row order */
    int c;                  /* the case */
} draw_rows;

/* The case in draw k (x, solved into r): note each of its rows'
 * quantity. */
static void draw_rows_note(const dam_scenario *x, const dam_result *r,
                           int k, void *ctx)
{
    draw_rows *w = ctx;
    double q[2 + DAM_KCLASS_COUNT];
    q[Q_STEP] = r->step;
    q[Q_THROUGHPUT] = r->throughput;
    dam_calibrate_class_times(x, r, q + Q_CLASS);
    for (int i = w->head[w->c]; i >= 0; i = w->next[i])
        w->out->draws[(size_t)i * w->out->samples + k] =
            q[row_q(&w->pb->rows[i])];
}

/* Predict every row at the fitted constants, with intervals and the
 * per-draw predictions. */
static void predict(problem *pb, dam_calibration *out, int samples,
                    unsigned long seed)
{
    pb->with_sd = 1;
    for (int c = 0; c < pb->ncases; c++) {
        ccase *cc = &pb->cases[c];
        for (int u = 0; u < cc->nuse && cc->s; u++) {
            const dam_calib_const *k = &pb->consts[cc->use[u]];
            put_const(pb, cc, u, cc->s, k->value, k->sd);
        }
        solve_q(case_scn(pb, c), pb->r, cc->q);
    }
    dam_draws *dr = dam_draws_create(samples, seed);
    out->samples = dam_draws_count(dr);
    out->draws = dam_calloc((size_t)pb->nrows * (size_t)out->samples,
                            sizeof *out->draws);
    dam_scenario *x = dam_malloc(sizeof *x);
    double *col = dam_malloc((size_t)out->samples * sizeof *col);
    /* each case's rows as a linked list in row order */
    int *head = dam_malloc(((size_t)pb->ncases + 1) * sizeof *head);
    int *next = dam_malloc(((size_t)pb->nrows + 1) * sizeof *next);
    for (int c = 0; c < pb->ncases; c++)
        head[c] = -1;
    for (int i = pb->nrows - 1; i >= 0; i--) {
        next[i] = head[pb->row_case[i]];
        head[pb->row_case[i]] = i;
    }
    draw_rows dw = {pb, out, head, next, 0};
    for (int c = 0; c < pb->ncases; c++) {
        const dam_scenario *sc = case_scn(pb, c);
        dw.c = c;
        dam_draws_solve_each(dr, sc, sc, x, pb->r, draw_rows_note, &dw);
    }
    dam_free(next);
    dam_free(head);
    for (int i = 0; i < pb->nrows; i++) {
        dam_calib_row *row = &pb->rows[i];
        row->predicted = pb->cases[pb->row_case[i]].q[row_q(row)];
        row->error = row->predicted / row->measured - 1.0;
        memcpy(col, out->draws + (size_t)i * out->samples,
               (size_t)out->samples * sizeof *col);
        row->interval = dam_interval_of(col, out->samples);
        row->covered = row->measured >= row->interval.lo &&
                       row->measured <= row->interval.hi;
    }
    dam_free(col);
    dam_free(x);
    dam_draws_free(dr);
}

/* Predictions at the catalog constants; the fitted rows into fit_rows;
 * their rms relative error into out->rms_start. */
static void start_predictions(problem *pb, dam_calibration *out)
{
    for (int c = 0; c < pb->ncases; c++) {
        solve_q(case_scn(pb, c), pb->r, pb->cases[c].q);
        pb->cases[c].solved = 1;
    }
    pb->fit_rows = dam_calloc((size_t)pb->nrows + 1, sizeof(int));
    double ss = 0.0;
    for (int i = 0; i < pb->nrows; i++) {
        dam_calib_row *row = &pb->rows[i];
        row->start = pb->cases[pb->row_case[i]].q[row_q(row)];
        if (!row->held_out) {
            pb->fit_rows[pb->nfit++] = i;
            double e = row->start / row->measured - 1.0;
            ss += e * e;
        }
    }
    out->rms_start = pb->nfit ? sqrt(ss / pb->nfit) : 0.0;
}

/* The constants the measurements move are fitted (active); the others
 * keep their catalog values (undetermined). Returns the fit's parameters,
 * started inside their ranges. */
static dam_fit_param *choose_active(problem *pb)
{
    pb->xfull = dam_calloc((size_t)pb->nconst + 1, sizeof *pb->xfull);
    pb->active = dam_calloc((size_t)pb->nconst + 1, sizeof *pb->active);
    for (int j = 0; j < pb->nconst; j++)
        pb->xfull[j] = pb->consts[j].start;
    for (int j = 0; j < pb->nconst; j++) {
        double sens = sensitivity(pb, pb->xfull, j);
        pb->consts[j].undetermined = !(sens > 1e-9);
        if (!pb->consts[j].undetermined) {
            pb->active[pb->nactive++] = j;
            pb->nprior += pb->consts[j].start_sd > 0.0;
        }
    }
    dam_fit_param *fp = dam_calloc((size_t)pb->nactive + 1, sizeof *fp);
    for (int k = 0; k < pb->nactive; k++) {
        const dam_calib_const *c = &pb->consts[pb->active[k]];
        snprintf(fp[k].name, sizeof fp[k].name, "%s", c->name);
        fp[k].value = c->start;
        fp[k].lo = c->lo;
        fp[k].hi = c->hi;
        /* a start on the boundary (eta = 1) moves just inside it */
        double eps = 1e-6 * (fp[k].hi - fp[k].lo);
        if (fp[k].value >= fp[k].hi - eps)
            fp[k].value = fp[k].hi - eps;
        if (fp[k].value <= fp[k].lo + eps)
            fp[k].value = fp[k].lo + eps;
    }
    return fp;
}

/* Fit fp to the rows (res: the residuals at the end), then, when the
 * measurements scatter more than their stated errors (the model misses
 * them), widen those errors by the scatter and fit again (empirical
 * Bayes), so that the priors keep their weight and no constant's standard
 * error exceeds its prior's merely because the data disagree among
 * themselves. DAM_OK, or an error in d. */
static int fit_rows(problem *pb, dam_fit_param *fp, double *res,
                    const char *file, dam_calibration *out, dam_diag *d)
{
    int nres = pb->nfit + pb->nprior;
    dam_error e;
    int rc = pb->nactive == 0
                 ? dam_error_set(&e, "", 0,
                                 "no calibrated constant moves these "
                                 "measurements (a scenario that sets "
                                 "workload.efficiency itself has none of "
                                 "its own)")
                 : dam_fit_run(fp, pb->nactive, nres, fit_residuals, pb, res,
                               &out->fit, &e);
    if (rc == DAM_OK && edge_rows(pb, fp, file, d) != DAM_OK)
        return DAM_EINPUT;
    int free_dof = pb->nfit - (pb->nactive - pb->nprior);
    double chi2m = 0.0;
    for (int i = 0; i < pb->nfit && rc == DAM_OK; i++)
        chi2m += res[i] * res[i];
    double wscale = free_dof > 0 && chi2m > free_dof ? sqrt(chi2m / free_dof)
                                                     : 1.0;
    if (rc == DAM_OK && pb->nprior > 0 && wscale > 1.01) {
        pb->wscale = wscale;
        int iters = out->fit.iterations;
        rc = dam_fit_run(fp, pb->nactive, nres, fit_residuals, pb, res,
                         &out->fit, &e);
        out->fit.iterations += iters;
    }
    if (rc != DAM_OK)
        dam_diag_error(d, file, 0, "%s", e.msg);
    return rc;
}

/* After the fit: the residual scatter over the effective degrees of
 * freedom, each constant's value and the sd later draws use, the models'
 * step errors, and each constant's count of fitted rows. */
static void fitted_constants(problem *pb, const dam_fit_param *fp,
                             const double *res, dam_calibration *out)
{
    /* the relative scatter of the measurement residuals, over the degrees
     * of freedom the constants without a prior leave */
    double sl = 0.0;
    for (int i = 0; i < pb->nfit; i++) {
        double l = res[i] * pb->rows[pb->fit_rows[i]].rel_error * pb->wscale;
        sl += l * l;
    }
    for (int k = 0; k < pb->nactive; k++)
        pb->xfull[pb->active[k]] = fp[k].value;
    out->p_eff = effective_params(pb);
    double eff_dof = pb->nfit - out->p_eff;
    out->residual_sd = eff_dof > 0.5 ? sqrt(sl / eff_dof) : 0.0;
    for (int k = 0; k < pb->nactive; k++) {
        dam_calib_const *c = &pb->consts[pb->active[k]];
        c->value = fp[k].value;
        c->se = fp[k].se;
        pb->xfull[pb->active[k]] = c->value;
    }
    for (int j = 0; j < pb->nconst; j++) {
        dam_calib_const *k = &pb->consts[j];
        if (k->undetermined) {
            k->value = k->start;
            k->sd = k->start_sd;
        } else {
            k->sd = k->se;
        }
    }
    update(pb, pb->xfull);
    step_errors(pb, res, eff_dof, out);
    for (int i = 0; i < pb->nfit; i++) {
        const ccase *cc = &pb->cases[pb->row_case[pb->fit_rows[i]]];
        for (int u = 0; u < cc->nuse; u++)
            pb->consts[cc->use[u]].nrows++;
    }
}

int dam_calibrate_run(const dam_measure_set *set, dam_catalog *cat,
                      const dam_calib_options *opt, dam_calibration *out,
                      dam_diag *d)
{
    memset(out, 0, sizeof *out);
    problem pb;
    memset(&pb, 0, sizeof pb);
    pb.r = dam_malloc(sizeof *pb.r);
    pb.wscale = 1.0;
    int samples = opt && opt->samples > 0 ? opt->samples
                                          : DAM_UNCERTAINTY_SAMPLES;
    unsigned long seed = opt && opt->seed ? opt->seed : 1;
    if (load_cases(set, cat, opt, &pb, out, 1, d) != DAM_OK) {
        problem_free(&pb, 0);
        dam_calibration_free(out);
        return DAM_EINPUT;
    }
    collect_params(&pb, opt);
    start_predictions(&pb, out);
    dam_fit_param *fp = choose_active(&pb);
    double *res = dam_calloc((size_t)(pb.nfit + pb.nprior) + 1, sizeof *res);
    int rc = fit_rows(&pb, fp, res, set->file, out, d);
    if (rc != DAM_OK) {
        dam_free(res);
        dam_free(fp);
        problem_free(&pb, 0);
        dam_calibration_free(out);
        return rc;
    }
    fitted_constants(&pb, fp, res, out);
    predict(&pb, out, samples, seed);
    double ss = 0.0;
    for (int i = 0; i < pb.nfit; i++) {
        double x = pb.rows[pb.fit_rows[i]].error;
        ss += x * x;
    }
    out->rms_fit = pb.nfit ? sqrt(ss / pb.nfit) : 0.0;
    snprintf(out->measurements, sizeof out->measurements, "%s", set->file);
    if (opt && opt->hold_out_gpu)
        snprintf(out->hold_out_gpu, sizeof out->hold_out_gpu, "%s",
                 opt->hold_out_gpu);
    out->nconst = pb.nconst;
    out->consts = pb.consts;
    out->nrows = pb.nrows;
    out->rows = pb.rows;
    out->nfitted = pb.nfit;
    dam_free(res);
    dam_free(fp);
    problem_free(&pb, 1);
    return DAM_OK;
}

void dam_calibration_free(dam_calibration *c)
{
    if (!c)
        return;
    dam_free(c->consts);
    dam_free(c->rows);
    dam_free(c->profiles);
    dam_free(c->draws);
    dam_free(c->models);
    memset(c, 0, sizeof *c);
}

int dam_calibration_apply(const dam_calibration *cal, dam_catalog *c,
                          dam_error *err)
{
    for (int j = 0; j < cal->nconst; j++) {
        const dam_calib_const *k = &cal->consts[j];
        if (k->undetermined)
            continue;
        if (dam_catalog_const_set(c, &k->key, k->value, k->sd, err) != DAM_OK)
            return DAM_EINPUT;
    }
    for (int j = 0; j < cal->nmodels; j++) {
        dam_const_key k;
        memset(&k, 0, sizeof k);
        k.owner = DAM_CONST_MODEL;
        k.precision = -1;
        snprintf(k.entry, sizeof k.entry, "%s", cal->models[j].model);
        snprintf(k.field, sizeof k.field, "step_error");
        if (cal->models[j].step_error > 0.0 &&
            dam_catalog_model(c, k.entry) &&
            dam_catalog_const_set(c, &k, cal->models[j].step_error, 0.0,
                                  err) != DAM_OK)
            return DAM_EINPUT;
    }
    return DAM_OK;
}

/* ---- leave one GPU out ------------------------------------------------ */

/* The rows of set without its traces (a view: rows are copied). */
static void without_traces(const dam_measure_set *set, dam_measure_set *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->file, sizeof out->file, "%s", set->file);
    out->rows = dam_calloc(set->n ? set->n : 1, sizeof *out->rows);
    for (size_t i = 0; i < set->n; i++)
        if (set->rows[i].kind != DAM_MEASURE_TRACE)
            out->rows[out->n++] = set->rows[i];
}

/* The same workload on two GPUs: scenario, GPU count, precision and
 * quantity agree. */
static int same_case(const dam_calib_row *a, const dam_calib_row *b)
{
    return strcmp(a->scenario, b->scenario) == 0 && a->gpus == b->gpus &&
           a->precision == b->precision && a->quantity == b->quantity &&
           strcasecmp(a->gpu, b->gpu) != 0;
}

/* Speed-ups of held-out row i over every fitted row of the same case. */
static void add_ratios(const dam_calibration *cal, int i, dam_crossval *out,
                       size_t *cap, double *col)
{
    const dam_calib_row *a = &cal->rows[i];
    int n = cal->samples;
    for (int j = 0; j < cal->nrows; j++) {
        const dam_calib_row *b = &cal->rows[j];
        if (b->held_out || !same_case(a, b))
            continue;
        int thr = a->quantity == DAM_CALIB_THROUGHPUT;
        out->ratios = dam_grow(out->ratios, sizeof *out->ratios,
                               (size_t)out->nratios + 1, cap);
        dam_crossval_ratio *x = &out->ratios[out->nratios++];
        memset(x, 0, sizeof *x);
        snprintf(x->gpu, sizeof x->gpu, "%s", a->gpu);
        snprintf(x->other, sizeof x->other, "%s", b->gpu);
        snprintf(x->id, sizeof x->id, "%s", a->id);
        x->measured = thr ? a->measured / b->measured
                          : b->measured / a->measured;
        x->predicted = thr ? a->predicted / b->predicted
                           : b->predicted / a->predicted;
        x->error = x->predicted / x->measured - 1.0;
        const double *da = cal->draws + (size_t)i * n;
        const double *db = cal->draws + (size_t)j * n;
        for (int k = 0; k < n; k++)
            col[k] = thr ? da[k] / db[k] : db[k] / da[k];
        x->interval = dam_interval_of(col, n);
        x->covered = x->measured >= x->interval.lo &&
                     x->measured <= x->interval.hi;
    }
}

int dam_calibrate_crossval(const dam_measure_set *set, dam_catalog *cat,
                           const dam_calib_options *opt, dam_crossval *out,
                           dam_diag *d)
{
    memset(out, 0, sizeof *out);
    dam_measure_set view;
    without_traces(set, &view);
    dam_calib_options o;
    memset(&o, 0, sizeof o);
    if (opt)
        o = *opt;
    o.hold_out_gpu = NULL;
    o.neutral_priors = 0; /* the full fit keeps the catalog's priors */
    dam_calibration all;
    int rc = dam_calibrate_run(&view, cat, &o, &all, d);
    if (rc != DAM_OK) {
        dam_free(view.rows);
        return rc;
    }
    size_t fcap = 0, rcap = 0, xcap = 0;
    double *col = dam_malloc((size_t)all.samples * sizeof *col);
    for (int g = 0; g < all.nrows; g++) {
        int seen = 0;
        for (int f = 0; f < out->nfolds && !seen; f++)
            seen = strcasecmp(out->folds[f].gpu, all.rows[g].gpu) == 0;
        if (seen)
            continue;
        o.hold_out_gpu = all.rows[g].gpu;
        o.neutral_priors = 1; /* no prior from the held-out GPU's rows */
        dam_calibration cal;
        dam_diag scratch;
        dam_diag_init(&scratch);
        int frc = dam_calibrate_run(&view, cat, &o, &cal, &scratch);
        dam_diag_free(&scratch);
        out->folds = dam_grow(out->folds, sizeof *out->folds,
                              (size_t)out->nfolds + 1, &fcap);
        dam_crossval_fold *fold = &out->folds[out->nfolds++];
        memset(fold, 0, sizeof *fold);
        snprintf(fold->gpu, sizeof fold->gpu, "%s", all.rows[g].gpu);
        if (frc != DAM_OK)
            continue; /* nothing left to fit without this GPU */
        fold->nconst = cal.fit.np;
        fold->residual_sd = cal.residual_sd;
        int r0 = out->nrows, x0 = out->nratios;
        for (int i = 0; i < cal.nrows; i++) {
            if (!cal.rows[i].held_out)
                continue;
            out->rows = dam_grow(out->rows, sizeof *out->rows,
                                 (size_t)out->nrows + 1, &rcap);
            out->rows[out->nrows++] = cal.rows[i];
            add_ratios(&cal, i, out, &xcap, col);
        }
        fold->nrows = out->nrows - r0;
        fold->nratios = out->nratios - x0;
        double *v = dam_malloc(((size_t)fold->nrows + fold->nratios + 1) *
                               sizeof *v);
        int cov = 0;
        for (int i = 0; i < fold->nrows; i++) {
            v[i] = out->rows[r0 + i].error;
            cov += out->rows[r0 + i].covered;
        }
        fold->median_abs_error = median_abs(v, fold->nrows);
        fold->coverage = fold->nrows ? (double)cov / fold->nrows : 0.0;
        cov = 0;
        for (int i = 0; i < fold->nratios; i++) {
            v[i] = out->ratios[x0 + i].error;
            cov += out->ratios[x0 + i].covered;
        }
        fold->median_abs_ratio_error = median_abs(v, fold->nratios);
        fold->ratio_coverage =
            fold->nratios ? (double)cov / fold->nratios : 0.0;
        dam_free(v);
        dam_calibration_free(&cal);
    }
    out->samples = all.samples;
    double *v = dam_malloc(((size_t)out->nrows + out->nratios + 1) *
                           sizeof *v);
    int cov = 0;
    for (int i = 0; i < out->nrows; i++) {
        v[i] = out->rows[i].error;
        cov += out->rows[i].covered;
    }
    out->median_abs_error = median_abs(v, out->nrows);
    out->coverage = out->nrows ? (double)cov / out->nrows : 0.0;
    cov = 0;
    for (int i = 0; i < out->nratios; i++) {
        v[i] = out->ratios[i].error;
        cov += out->ratios[i].covered;
    }
    out->median_abs_ratio_error = median_abs(v, out->nratios);
    out->ratio_coverage = out->nratios ? (double)cov / out->nratios : 0.0;
    dam_free(v);
    dam_free(col);
    dam_calibration_free(&all);
    dam_free(view.rows);
    return DAM_OK;
}

void dam_crossval_free(dam_crossval *x)
{
    if (!x)
        return;
    dam_free(x->folds);
    dam_free(x->rows);
    dam_free(x->ratios);
    memset(x, 0, sizeof *x);
}
