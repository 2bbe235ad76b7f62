/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_sweep.c: sweeps (solver/sweep.h, render/page/sweep_page.h). The patched path
 * gives the bytes a reload gives, for every patchable key on a training and
 * a serving scenario; rows do not depend on the order points are solved
 * in; the grid's first key varies slowest; a Latin hypercube puts one
 * point in each stratum of every key; a bad value is a row with its error;
 * uncertain scenarios carry intervals; the CSV number formatter writes what
 * printf's %.6g writes. The time-cost front against a hand-made point set
 * and against brute force; the heat map's cells (best of the other keys,
 * points that do not fit or fail, bins of a sampled range); a point whose
 * GPU has no price leaves its cost empty. The analytic memo a worker
 * keeps gives what a solve without it gives, and misses when an input of
 * the device cost changes. Varying machine.gpu prices each point as the
 * gpu lever would.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "render/page/sweep_page.h"
#include "solver/analytic.h"
#include "solver/rng.h"
#include "solver/sweep.h"
#include "solver/sweep_summary.h"

static dam_catalog cat;

/* The text of scenarios/name (caller frees). */
static char *scenario_text(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *s = dam_malloc(1 << 20);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* A prepared sweep of scenario name over args; DAM_OK or the error. */
static int make(dam_sweep *sw, const char *name, const char *const *args,
                int n, int no_patch)
{
    dam_sweep_init(sw);
    sw->no_patch = no_patch;
    dam_error e;
    for (int i = 0; i < n; i++)
        if (dam_sweep_add(sw, args[i], &e) != DAM_OK)
            return DAM_EINPUT;
    char *text = scenario_text(name);
    dam_diag d;
    dam_diag_init(&d);
    int rc = text ? dam_sweep_prepare(sw, name, text, &cat, &d) : DAM_EINPUT;
    dam_diag_free(&d);
    dam_free(text);
    return rc;
}

/* All rows of sw as CSV, points solved in order (or reversed). */
static void rows(const dam_sweep *sw, int reverse, dam_buf *b)
{
    dam_sweep_worker *w = dam_sweep_worker_create(sw);
    dam_sweep_row *row = dam_malloc(sizeof *row);
    dam_buf *each = dam_calloc((size_t)sw->npoints, sizeof *each);
    for (uint64_t k = 0; k < sw->npoints; k++) {
        uint64_t i = reverse ? sw->npoints - 1 - k : k;
        dam_sweep_eval(w, i, row);
        dam_page_sweep_csv_row(&each[i], sw, row);
    }
    dam_page_sweep_csv_header(b, sw);
    for (uint64_t i = 0; i < sw->npoints; i++) {
        dam_buf_append(b, dam_buf_str(&each[i]), each[i].len);
        dam_buf_free(&each[i]);
    }
    dam_free(each);
    dam_free(row);
    dam_sweep_worker_free(w);
}

/* Every patchable key, patched and reloaded, on one scenario. */
static void check_patch_equals_reload(const char *name)
{
    const char *const *keys = dam_sweep_patchable();
    int patched = 0;
    for (int i = 0; keys[i]; i++) {
        char a1[160], a2[160];
        /* values that are valid for most keys, 0 that is not for some, and
         * a second key varied with it so combinations are covered too */
        snprintf(a1, sizeof a1, "%s=1,0,2,3.5", keys[i]);
        snprintf(a2, sizeof a2, "%s=1,4", keys[(i + 7) % 40 == i ? 0 : (i + 7) % 40]);
        const char *args[2] = {a1, a2};
        if (strcmp(a1, a2) == 0)
            continue;
        dam_sweep p, r;
        int rp = make(&p, name, args, 2, 0);
        int rr = make(&r, name, args, 2, 1);
        dam_check(rp == rr, "%s: %s prepares as the reload does", name,
                  keys[i]);
        if (rp == DAM_OK && rr == DAM_OK) {
            dam_buf bp = {0}, br = {0};
            rows(&p, 0, &bp);
            rows(&r, 0, &br);
            patched += p.keys[0].set == DAM_SWEEP_SET_PATCH;
            int same = strcmp(dam_buf_str(&bp), dam_buf_str(&br)) == 0;
            dam_check(same, "%s: %s patched (%s) = reloaded, %llu rows",
                      name, keys[i],
                      p.keys[0].set == DAM_SWEEP_SET_PATCH ? "patch"
                                                           : "reload",
                      (unsigned long long)p.npoints);
            if (!same)
                fprintf(stderr, "patched:\n%s\nreloaded:\n%s\n",
                        dam_buf_str(&bp), dam_buf_str(&br));
            dam_buf_free(&bp);
            dam_buf_free(&br);
        }
        dam_sweep_free(&p);
        dam_sweep_free(&r);
    }
    dam_check(patched > 5, "%s: %d keys took the patched path", name,
              patched);
}

/* The benchmark's keys all take the patched path: a price changes two
 * doubles (the price and the scenario's own GPU's price), so patches hold
 * several runs of bytes; a reload per point costs 50x a solve. */
static void check_bench_keys_patched(void)
{
    const char *args[3] = {"workload.batch_size=1:64:4",
                           "pipeline.loader_workers=1:64:3",
                           "cost.gpu_hour_usd=1:4:5"};
    dam_sweep p, r;
    int rp = make(&p, "llama2-7b-pretrain.cfg", args, 3, 0);
    int rr = make(&r, "llama2-7b-pretrain.cfg", args, 3, 1);
    dam_check(rp == DAM_OK && rr == DAM_OK, "benchmark sweep prepares");
    if (rp == DAM_OK && rr == DAM_OK) {
        for (int k = 0; k < 3; k++)
            dam_check(p.keys[k].set == DAM_SWEEP_SET_PATCH,
                      "%s is patched (%d runs)", p.keys[k].key,
                      p.keys[k].nspans);
        dam_check(p.keys[2].nspans == 2, "the price patches two runs (%d)",
                  p.keys[2].nspans);
        dam_buf bp = {0}, br = {0};
        rows(&p, 1, &bp);
        rows(&r, 0, &br);
        dam_check(strcmp(dam_buf_str(&bp), dam_buf_str(&br)) == 0,
                  "three patched keys, solved backwards = reloaded");
        dam_buf_free(&bp);
        dam_buf_free(&br);
    }
    dam_sweep_free(&p);
    dam_sweep_free(&r);
}

/* The analytic memo: a solve whose cost inputs are the memo's reuses the
 * device cost and gives the bytes a solve without it gives; a changed
 * batch, GPU constant, framework constant or lever scale is a miss. */
static void check_memo(void)
{
    const char *args[1] = {"pipeline.loader_workers=1,2"};
    dam_sweep sw;
    if (make(&sw, "llama2-7b-pretrain.cfg", args, 1, 0) != DAM_OK) {
        dam_check(0, "memo: the scenario loads");
        return;
    }
    dam_scenario *s = dam_malloc(sizeof *s);
    *s = *sw.base;
    dam_result *a = dam_malloc(sizeof *a), *b = dam_malloc(sizeof *b);
    dam_analytic_memo *m = dam_calloc(1, sizeof *m);
    struct {
        const char *what;
        double *field;
        double factor;
        int *count;         /* or an integer to add 3 to */
        unsigned long hits; /* the memo's hits after the solve */
    } steps[] = {
        {"first solve", NULL, 1.0, NULL, 0},
        {"same inputs", NULL, 1.0, NULL, 1},
        {"batch + 3", NULL, 1.0, &s->workload.batch_size, 1},
        {"same again", NULL, 1.0, NULL, 2},
        {"HBM bandwidth x 1.1", &s->machine.gpu.mem_bw, 1.1, NULL, 2},
        {"framework GEMM share", &s->workload.fw.gemm.v, 0.9, NULL, 2},
        {"flops scale", &s->workload.flops_scale, 0.5, NULL, 2},
        {"loader workers only", NULL, 1.0, &s->pipeline.loader_workers, 3},
    };
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        double *f = steps[i].field;
        if (f) /* 0 stands for a default: set a value then */
            *f = *f > 0.0 ? *f * steps[i].factor : steps[i].factor;
        if (steps[i].count)
            *steps[i].count += 3;
        dam_analytic_solve(s, a);
        dam_analytic_solve_memo(s, b, m);
        dam_check(memcmp(a, b, sizeof *a) == 0 && a->step > 0.0,
                  "memo: %s: the result a plain solve gives (step %g s, "
                  "%g s)", steps[i].what, a->step, b->step);
        dam_check(m->hits == steps[i].hits, "memo: %s: %lu hits, want %lu",
                  steps[i].what, m->hits, steps[i].hits);
    }
    /* a scenario whose graph is stale (recomputation toggled) is costed
     * from a fresh graph, never from the memo */
    s->workload.activation_recompute = !s->workload.activation_recompute;
    dam_analytic_solve(s, a);
    dam_analytic_solve_memo(s, b, m);
    dam_check(memcmp(a, b, sizeof *a) == 0 && m->hits == 3,
              "memo: a stale graph is not taken from the memo");
    dam_free(m);
    dam_free(a);
    dam_free(b);
    dam_free(s);
    dam_sweep_free(&sw);
}

/* A memo with a table (a sweep worker's) keeps the costs of several batch
 * sizes: each batch met again is a hit, and every solve gives the bytes
 * a plain solve gives; another GPU constant starts the table again. The
 * row's solve (dam_analytic_row_memo) gives a row's figures, bound and
 * memory as the whole solve. */
static void check_memo_table(const char *name)
{
    const char *args[1] = {"pipeline.loader_workers=1,2"};
    dam_sweep sw;
    if (make(&sw, name, args, 1, 0) != DAM_OK) {
        dam_check(0, "memo table: %s loads", name);
        return;
    }
    dam_scenario *s = dam_malloc(sizeof *s);
    *s = *sw.base;
    dam_result *a = dam_malloc(sizeof *a), *b = dam_malloc(sizeof *b);
    dam_analytic_memo *m = dam_calloc(1, sizeof *m);
    dam_analytic_memo_table(m, 8); /* 6 entries before it starts again */
    int bad = 0, badrow = 0;
    const int b0 = s->workload.batch_size;
    /* 5 batch sizes twice, then 7 (the table is full after 6: it starts
     * again), then a GPU constant changed */
    static const int seq[] = {1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6, 7, 1, 1, 1};
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        s->workload.batch_size = b0 + seq[i];
        if (i == 14)
            s->machine.gpu.mem_bw *= 1.1;
        dam_analytic_solve(s, a);
        int memo = i % 2 == 0;
        if (memo)
            dam_analytic_solve_memo(s, b, m);
        else
            dam_analytic_row_memo(s, b, m);
        if (memo && memcmp(a, b, sizeof *a) != 0)
            bad++;
        if (!memo &&
            (memcmp(&a->step, &b->step, sizeof a->step) ||
             memcmp(&a->throughput, &b->throughput, sizeof a->throughput) ||
             memcmp(&a->run_time, &b->run_time, sizeof a->run_time) ||
             memcmp(&a->gpu_hours, &b->gpu_hours, sizeof a->gpu_hours) ||
             memcmp(&a->cost_usd, &b->cost_usd, sizeof a->cost_usd) ||
             memcmp(&a->energy_kwh, &b->energy_kwh, sizeof a->energy_kwh) ||
             a->bound != b->bound ||
             memcmp(&a->memory, &b->memory, sizeof a->memory) != 0))
            badrow++;
    }
    dam_check(bad == 0, "memo table (%s): every solve the bytes of a plain "
              "solve (%d differ)", name, bad);
    dam_check(badrow == 0, "memo table (%s): the row's solve gives the "
              "whole solve's figures, bound and memory (%d differ)", name,
              badrow);
    /* hits: the second round of 5 (5), then 6 and 7 miss (the table
     * starts again at 7), 1 misses, 1 again hits, the GPU change misses */
    dam_check(m->hits == 6 && m->misses == 9,
              "memo table (%s): %lu hits, %lu misses (want 6 and 9)", name,
              m->hits, m->misses);
    dam_analytic_memo_release(m);
    dam_free(m);
    dam_free(a);
    dam_free(b);
    dam_free(s);
    dam_sweep_free(&sw);
}

/* One key's values loaded over one parse give the scenario bytes and the
 * messages a whole load with the override gives: values of the file's
 * type (set in the parsed tree), of another type, out of range, and a key
 * the file leaves out. */
static void check_key_loads(void)
{
    static const struct {
        const char *key;
        const char *values[6];
    } cases[] = {
        {"workload.batch_size", {"1", "300", "0", "2.5", "many", "-4"}},
        {"pipeline.loader_workers", {"16", "0", "1", "1e9", "x", "3"}},
        {"cost.gpu_hour_usd", {"2", "3.5", "-1", "cheap", "1e400", "4"}},
        {"pipeline.pin_memory", {"true", "false", "2", "yes", "1", "0"}},
        {"pipeline.prefetch_factor", {"2", "1", "0", "8", "2.0", "3"}},
        {"nosuch.key", {"1", "2", "3", "4", "5", "6"}},
    };
    const char *name = "resnet50-dgx-a100.cfg";
    char *text = scenario_text(name);
    dam_scenario *x = dam_malloc(sizeof *x), *y = dam_malloc(sizeof *y);
    int n = 0, bad = 0;
    for (size_t c = 0; text && c < sizeof cases / sizeof *cases; c++) {
        dam_key_loads *k = dam_key_loads_open(name, text, cases[c].key);
        for (int v = 0; v < 6; v++) {
            dam_diag dk, dw;
            dam_diag_init(&dk);
            dam_diag_init(&dw);
            memset(x, 0xa5, sizeof *x);
            memset(y, 0x5a, sizeof *y);
            dam_load_options o = {NULL, 0, 1, NULL};
            int rk = dam_key_loads_value(k, x, cases[c].values[v], &cat, &o,
                                         &dk);
            dam_setting ov = {cases[c].key, cases[c].values[v]};
            dam_load_options ow = {&ov, 1, 1, NULL};
            int rw = dam_scenario_load_with(y, name, text, &cat, &ow, &dw);
            int same = rk == rw && dk.n == dw.n && dk.nerr == dw.nerr;
            for (size_t i = 0; same && i < dk.n; i++) {
                char a[600], b[600];
                dam_error_format(&dk.items[i], a, sizeof a);
                dam_error_format(&dw.items[i], b, sizeof b);
                same = strcmp(a, b) == 0;
            }
            if (same && rk == DAM_OK)
                same = memcmp(x, y, sizeof *x) == 0;
            if (!same) {
                printf("#   %s = %s: %d/%d, %zu/%zu messages\n",
                       cases[c].key, cases[c].values[v], rk, rw, dk.n, dw.n);
                bad++;
            }
            n += rk == DAM_OK;
            dam_diag_free(&dk);
            dam_diag_free(&dw);
        }
        dam_key_loads_close(k);
    }
    dam_check(text && bad == 0 && n > 10,
              "one parse, many values: the bytes and messages of a whole "
              "load (%d values loaded, %d differ)", n, bad);
    dam_free(x);
    dam_free(y);
    dam_free(text);
}

/* machine.gpu varied, the price not: each point is priced as the gpu
 * lever prices its GPU (the file's price for its own GPU, the file's
 * lever price for H100, the catalog's for A100 40GB, none for A100 PCIe
 * 80GB), never at the file's GPU's price; with the price varied too, the
 * varied price holds. */
static void check_gpu_price(void)
{
    const char *args[2] = {
        "machine.gpu=A100-SXM4-80GB,H100-SXM5-80GB,A100-SXM4-40GB,"
        "A100-PCIE-80GB",
        "cost.gpu_hour_usd=2.5"};
    const double want[4] = {1.844, 4.916, 4.10, 0.0};
    for (int with_price = 0; with_price < 2; with_price++) {
        dam_sweep sw;
        if (make(&sw, "resnet50-dgx-a100.cfg", args, 1 + with_price, 0) !=
            DAM_OK) {
            dam_check(0, "gpu price: the sweep prepares");
            dam_sweep_free(&sw);
            return;
        }
        dam_sweep_worker *w = dam_sweep_worker_create(&sw);
        dam_sweep_row *row = dam_malloc(sizeof *row);
        for (uint64_t i = 0; i < sw.npoints; i++) {
            dam_sweep_eval(w, i, row);
            double p = with_price ? 2.5 : want[i];
            double got = row->priced ? row->cost_usd / row->gpu_hours : 0.0;
            dam_check(row->ok && row->priced == (p > 0.0) &&
                          fabs(got - p) <= 1e-9 * p,
                      "gpu price: %s%s: $%g per GPU-hour, want $%g",
                      row->values[0], with_price ? " (price varied)" : "",
                      got, p);
        }
        dam_free(row);
        dam_sweep_worker_free(w);
        dam_sweep_free(&sw);
    }
}

static void check_order_and_grid(void)
{
    const char *args[] = {"gpu=A100-SXM4-80GB,H100-SXM5-80GB",
                          "pipeline.loader_workers=8:64:8",
                          "batch_size=128,256,512"};
    dam_sweep sw;
    dam_check(make(&sw, "resnet50-dgx-a100.cfg", args, 3, 0) == DAM_OK,
              "a grid of a lever, a scenario key and a lever prepares");
    dam_check_int((long)sw.npoints, 2 * 8 * 3, "grid points = 2 x 8 x 3");
    char v[DAM_SWEEP_MAX_KEYS][DAM_SWEEP_VALUE_MAX];
    dam_sweep_point(&sw, 0, v);
    dam_check_str(v[1], "8", "point 0: loader_workers 8");
    dam_sweep_point(&sw, 1, v);
    dam_check_str(v[2], "256", "point 1: the last key varies fastest");
    dam_sweep_point(&sw, 3, v);
    dam_check_str(v[1], "16", "point 3: the middle key moved once");
    dam_sweep_point(&sw, 24, v);
    dam_check_str(v[0], "H100-SXM5-80GB", "point 24: the first key moved");
    dam_buf f = {0}, r = {0};
    rows(&sw, 0, &f);
    rows(&sw, 1, &r);
    dam_check(strcmp(dam_buf_str(&f), dam_buf_str(&r)) == 0,
              "rows solved in reverse order are the same bytes");
    dam_check(strstr(dam_buf_str(&f), "step_s_lo") != NULL,
              "the flagship's uncertain decode time gives interval columns");
    dam_buf_free(&f);
    dam_buf_free(&r);
    dam_sweep_free(&sw);
}

static void check_errors(void)
{
    const char *args[] = {"workload.batch_size=0,64", "precision=bf16,fp8"};
    dam_sweep sw;
    dam_check(make(&sw, "llama2-7b-pretrain.cfg", args, 2, 0) == DAM_OK,
              "a sweep with bad values prepares");
    dam_sweep_worker *w = dam_sweep_worker_create(&sw);
    dam_sweep_row row;
    dam_sweep_eval(w, 0, &row);
    dam_check(!row.ok && strstr(row.error, "batch_size") &&
                  strstr(row.error, "llama2-7b-pretrain.cfg:"),
              "batch_size 0 is a row with the loader's error: %s", row.error);
    dam_sweep_eval(w, 2, &row);
    dam_check(row.ok && row.step > 0.0, "batch 64 in bf16 solves");
    dam_sweep_eval(w, 3, &row);
    dam_check(!row.ok && strstr(row.error, "fp8"),
              "fp8 on an A100 is a row with the lever's error: %s",
              row.error);
    dam_sweep_worker_free(w);
    dam_sweep_free(&sw);
    dam_error e;
    dam_sweep_init(&sw);
    dam_check(dam_sweep_add(&sw, "batch_size=x", &e) == DAM_EINPUT,
              "a lever value that does not parse is refused at once");
    dam_check(dam_sweep_add(&sw, "catalogs.gpus=x.cfg", &e) == DAM_EINPUT,
              "catalogs cannot be varied");
    dam_check(dam_sweep_add(&sw, "data.epochs=3:1:2", &e) == DAM_EINPUT,
              "HI < LO is refused");
    dam_check(dam_sweep_add(&sw, "data.epochs=0:1:3:log", &e) == DAM_EINPUT,
              "a log range from 0 is refused");
    dam_check(dam_sweep_add(&sw, "data.epochs=1:2:3", &e) == DAM_OK &&
                  dam_sweep_add(&sw, "data.epochs=4", &e) == DAM_EINPUT,
              "a key varied twice is refused");
    dam_check_str(sw.keys[0].values[1], "2", "1:2:3 has whole bounds: 1 2 2"
                  " (1.5 rounds to even)");
    dam_sweep_free(&sw);
}

static void check_lhs(void)
{
    const char *args[] = {"data.epochs=1:2:2", "cost.pue=1.0:1.5:2",
                          "gpu=A100-SXM4-80GB,H100-SXM5-80GB"};
    dam_sweep sw;
    dam_sweep_init(&sw);
    dam_error e;
    for (int i = 0; i < 3; i++)
        dam_sweep_add(&sw, args[i], &e);
    sw.method = DAM_SWEEP_LHS;
    sw.samples = 50;
    char *text = scenario_text("llama2-7b-pretrain.cfg");
    dam_diag d;
    dam_diag_init(&d);
    dam_check(dam_sweep_prepare(&sw, "llama", text, &cat, &d) == DAM_OK,
              "a Latin hypercube of 50 prepares");
    int hit[50] = {0}, gpu[2] = {0};
    for (uint64_t i = 0; i < 50; i++) {
        char v[DAM_SWEEP_MAX_KEYS][DAM_SWEEP_VALUE_MAX];
        dam_sweep_point(&sw, i, v);
        double x = atof(v[1]);
        int s = (int)((x - 1.0) / 0.5 * 50);
        hit[s < 50 ? s : 49]++;
        gpu[v[2][0] == 'H']++;
    }
    int once = 1;
    for (int s = 0; s < 50; s++)
        once &= hit[s] == 1;
    dam_check(once, "cost.pue: one point in each of the 50 strata");
    dam_check(gpu[0] == 25 && gpu[1] == 25,
              "a listed key is stratified too: 25 A100 and 25 H100");
    dam_diag_free(&d);
    dam_free(text);
    dam_sweep_free(&sw);
}

static void check_fmt(void)
{
    uint64_t h = 12345;
    long bad = 0;
    char want[64], got[64];
    for (int i = 0; i < 300000; i++) {
        h = dam_rng_mix(h, (uint64_t)i);
        double u = (double)(h >> 11) * 0x1.0p-53;
        double x = pow(10.0, -12.0 + 30.0 * u) * ((h & 1) ? -1.0 : 1.0);
        if (i % 3 == 0) /* values near round numbers, where ties live */
            x = floor(x * 1e3) / 1e3 + 5e-4 * (double)((h >> 3) & 1);
        snprintf(want, sizeof want, "%.6g", x);
        dam_sweep_fmt_g6(x, got);
        if (strcmp(want, got) != 0 && bad++ < 5)
            fprintf(stderr, "%.17g: want %s got %s\n", x, want, got);
    }
    const double edge[] = {0.0, -0.0, 1.0, 999999.5, 9999995.0, 1e-5,
                           0.0001, 123456789.0, 1e21, 1e-30, 5e-324};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
        snprintf(want, sizeof want, "%.6g", edge[i]);
        dam_sweep_fmt_g6(edge[i], got);
        if (strcmp(want, got) != 0 && bad++ < 10)
            fprintf(stderr, "%.17g: want %s got %s\n", edge[i], want, got);
    }
    /* where the exponent estimate changes: powers of two and ten, and
     * their neighbours */
    for (int k = -70; k <= 70; k++) {
        double p[2] = {ldexp(1.0, k), pow(10.0, k / 3.0)};
        for (int j = 0; j < 2; j++) {
            double v[3] = {p[j], nextafter(p[j], 0.0), nextafter(p[j], 1e300)};
            for (int q = 0; q < 3; q++) {
                snprintf(want, sizeof want, "%.6g", v[q]);
                dam_sweep_fmt_g6(v[q], got);
                if (strcmp(want, got) != 0 && bad++ < 15)
                    fprintf(stderr, "%.17g: want %s got %s\n", v[q], want,
                            got);
            }
        }
    }
    dam_check(bad == 0, "fast %%.6g matches printf on 300,000 values and "
              "edges (%ld differ)", bad);
}

/* ---- the front and the heat map ----------------------------------- */

static void check_front_by_hand(void)
{
    /* (time, cost): 0 (1,10) front; 1 (2,5) front; 2 (2,5) ties with 1;
     * 3 (3,5) slower, as dear; 4 (2,6) as fast, dearer; 5 (4,1) front;
     * 6 (0.5, NaN) no cost; 7 (5,0.5) left out (does not fit); 8 (4,1)
     * ties with 5; 9 (1,10) ties with 0; 10 (0.9, 12) front */
    const double x[] = {1, 2, 2, 3, 2, 4, 0.5, 5, 4, 1, 0.9};
    const double y[] = {10, 5, 5, 5, 6, 1, NAN, 0.5, 1, 10, 12};
    const unsigned char use[] = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1};
    size_t front[11], alike[11];
    size_t n = dam_pareto_front(x, y, use, 11, front, alike);
    const size_t want[] = {10, 0, 1, 5}, want_alike[] = {0, 1, 1, 1};
    int ok = n == 4;
    for (size_t j = 0; ok && j < n; j++)
        ok = front[j] == want[j] && alike[j] == want_alike[j];
    dam_check(ok, "front of the hand-made set: points 10, 0, 1, 5 with 0, "
                  "1, 1, 1 ties (got %zu points)", n);
    n = dam_pareto_front(x, y, NULL, 11, front, NULL);
    dam_check(n == 5 && front[4] == 7,
              "with every point used, (5, 0.5) joins the front at the end");
    n = dam_pareto_front(x, y, use, 0, front, alike);
    dam_check(n == 0, "no points, no front");
}

/* The front against brute force on random points with many ties. */
static void check_front_brute(void)
{
    enum { N = 3000 };
    static double x[N], y[N];
    static unsigned char use[N];
    static size_t front[N];
    uint64_t h = dam_test_seed(77);
    for (int i = 0; i < N; i++) {
        h = dam_rng_mix(h, (uint64_t)i);
        /* near an anti-diagonal, so the front is long, with ties */
        x[i] = (double)(h % 60);
        y[i] = 59.0 - x[i] + (double)((h >> 8) % 8);
        use[i] = ((h >> 20) % 10) != 0;
    }
    size_t n = dam_pareto_front(x, y, use, N, front, NULL);
    int bad = 0;
    size_t count = 0;
    for (int i = 0; i < N; i++) {
        if (!use[i])
            continue;
        int dominated = 0, first = 1;
        for (int j = 0; j < N && !dominated; j++) {
            if (!use[j] || j == i)
                continue;
            if (x[j] <= x[i] && y[j] <= y[i] && (x[j] < x[i] || y[j] < y[i]))
                dominated = 1;
            if (x[j] == x[i] && y[j] == y[i] && j < i)
                first = 0;
        }
        int on = !dominated && first;
        count += (size_t)on;
        int found = 0;
        for (size_t k = 0; k < n; k++)
            found |= front[k] == (size_t)i;
        bad += on != found;
    }
    for (size_t k = 1; k < n; k++)
        bad += !(x[front[k - 1]] < x[front[k]] && y[front[k - 1]] > y[front[k]]);
    dam_check(bad == 0 && count == n,
              "front of %d random points = brute force (%zu points, %d "
              "differ), in increasing time and decreasing cost",
              N, n, bad);
}

static void check_heat(void)
{
    /* a 2 x 3 x 2 grid: rows batch_size, columns loader_workers, two
     * prices per cell; the figures are made by hand */
    const char *args[3] = {"workload.batch_size=1,2",
                           "pipeline.loader_workers=1,2,3",
                           "cost.gpu_hour_usd=1,2"};
    dam_sweep sw;
    int rc = make(&sw, "llama2-7b-pretrain.cfg", args, 3, 0);
    dam_check(rc == DAM_OK && sw.npoints == 12, "the grid prepares");
    dam_sweep_fig f[12];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 12; i++) {
        f[i].ok = 1;
        f[i].fits = 1;
        f[i].cost = 100.0 - i; /* point i = b * 6 + w * 2 + p */
        f[i].throughput = i;
        f[i].bound = (dam_bound)(i % 3);
    }
    f[11].fits = 0;  /* cell (1, 2): only point 10 counts */
    f[6].ok = 0;     /* cell (1, 0): point 7 */
    f[2].ok = 0;     /* cell (0, 1): both fail */
    f[3].ok = 0;
    f[4].fits = 0;   /* cell (0, 2): neither fits */
    f[5].fits = 0;
    f[0].cost = NAN; /* cell (0, 0): point 0 has no price, point 1 does */
    dam_sweep_heat h;
    dam_error e;
    memset(&e, 0, sizeof e);
    rc = dam_sweep_heat_build(&sw, f, 0, 1, DAM_SWEEP_METRIC_COST, &h, &e);
    dam_check(rc == DAM_OK && h.nrows == 2 && h.ncols == 3 &&
                  h.per_cell == 2,
              "2 x 3 cells of 2 points (%s)", e.msg);
    if (rc == DAM_OK) {
        dam_check(h.best[0] == 1 && h.value[0] == 99.0 && h.unknown[0] == 1,
                  "cell (0,0): point 1 (point 0 has no price)");
        dam_check(h.fit[1] == 0 && h.failed[1] == 2, "cell (0,1): both fail");
        dam_check(h.fit[2] == 0 && h.failed[2] == 0 && h.count[2] == 2,
                  "cell (0,2): neither fits");
        dam_check(h.best[3] == 7 && h.value[3] == 93.0,
                  "cell (1,0): the point that solved");
        dam_check(h.best[4] == 9 && h.value[4] == 91.0,
                  "cell (1,1): the cheaper of two");
        dam_check(h.best[5] == 10 && h.value[5] == 90.0,
                  "cell (1,2): the one that fits");
        dam_check(strcmp(h.row_labels[1], "2") == 0 &&
                      strcmp(h.col_labels[2], "3") == 0,
                  "labels are the values");
        dam_sweep_heat_free(&h);
    }
    rc = dam_sweep_heat_build(&sw, f, 0, 1, DAM_SWEEP_METRIC_THROUGHPUT, &h,
                              &e);
    dam_check(rc == DAM_OK && h.best[4] == 9 && h.best[0] == 1,
              "throughput: the highest of a cell");
    dam_sweep_heat_free(&h);
    rc = dam_sweep_heat_build(&sw, f, 1, 1, DAM_SWEEP_METRIC_COST, &h, &e);
    dam_check(rc == DAM_EINPUT, "one key twice is refused: %s", e.msg);
    /* serving past its capacity: a point never the best of its cell, and
     * a cell of such points counted apart (drawn "overloaded") */
    f[9].overloaded = 1;
    rc = dam_sweep_heat_build(&sw, f, 0, 1, DAM_SWEEP_METRIC_COST, &h, &e);
    dam_check(rc == DAM_OK && h.best[4] == 8 && h.value[4] == 92.0 &&
                  h.overloaded[4] == 1,
              "cell (1,1): the cheaper point is overloaded, the other wins");
    dam_sweep_heat_free(&h);
    f[8].overloaded = 1;
    rc = dam_sweep_heat_build(&sw, f, 0, 1, DAM_SWEEP_METRIC_COST, &h, &e);
    dam_check(rc == DAM_OK && h.fit[4] == 0 && h.best[4] == -1 &&
                  h.overloaded[4] == 2,
              "cell (1,1): both overloaded, no best");
    dam_sweep_heat_free(&h);
    dam_sweep_free(&sw);

    /* a Latin hypercube over a range: 5 bins of 1..100, every point in
     * the bin that holds its value */
    const char *largs[2] = {"cost.pue=1:2:5", "workload.batch_size=1:100:5"};
    dam_sweep_init(&sw);
    dam_sweep_add(&sw, largs[0], &e);
    dam_sweep_add(&sw, largs[1], &e);
    sw.method = DAM_SWEEP_LHS;
    sw.samples = 50;
    char *text = scenario_text("llama2-7b-pretrain.cfg");
    dam_diag d;
    dam_diag_init(&d);
    rc = dam_sweep_prepare(&sw, "llama2-7b-pretrain.cfg", text, &cat, &d);
    dam_diag_free(&d);
    dam_free(text);
    dam_sweep_fig lf[50];
    memset(lf, 0, sizeof lf);
    for (int i = 0; i < 50; i++) {
        lf[i].ok = lf[i].fits = 1;
        lf[i].cost = i;
    }
    rc = rc == DAM_OK ? dam_sweep_heat_build(&sw, lf, 0, 1,
                                             DAM_SWEEP_METRIC_COST, &h, &e)
                      : rc;
    dam_check(rc == DAM_OK && h.nrows == 5 && h.ncols == 5 && h.row_bins &&
                  h.col_bins,
              "LHS: 5 x 5 bins");
    if (rc == DAM_OK) {
        int inside = 1;
        uint64_t total = 0;
        for (int c = 0; c < 25; c++)
            total += h.count[c];
        for (int i = 0; i < 50; i++) {
            char v[DAM_SWEEP_MAX_KEYS][DAM_SWEEP_VALUE_MAX];
            dam_sweep_point(&sw, (uint64_t)i, v);
            double b = strtod(v[1], NULL);
            /* find its cell: the one whose best or points include it */
            int idx[DAM_SWEEP_MAX_KEYS];
            double u[DAM_SWEEP_MAX_KEYS];
            dam_sweep_point_index(&sw, (uint64_t)i, idx, u);
            int col = (int)(u[1] * 5);
            double lo = strtod(h.col_labels[col], NULL);
            double hi = strtod(strchr(h.col_labels[col] + 1, '-') + 1, NULL);
            inside &= b >= lo - 0.5 && b <= hi + 0.5;
        }
        dam_check(inside && total == 50 && h.per_cell >= 1,
                  "every sample counted once, in the bin that holds its "
                  "value (labels %s .. %s)",
                  h.col_labels[0], h.col_labels[4]);
        dam_sweep_heat_free(&h);
    }
    dam_sweep_free(&sw);
}

/* A point on a GPU without a price: its cost is empty, not $0. */
static void check_no_price(void)
{
    const char *args[1] = {"gpu=L4,H100-SXM5-80GB"};
    dam_sweep sw;
    int rc = make(&sw, "llama2-7b-pretrain.cfg", args, 1, 0);
    dam_buf b = {0};
    if (rc == DAM_OK)
        rows(&sw, 0, &b);
    const char *t = dam_buf_str(&b);
    const char *l4 = strstr(t, "\nL4,"), *h100 = strstr(t, "\nH100");
    int empty = 0, priced = 0;
    if (l4 && h100) {
        /* cost_usd is the sixth field: gpu, step, throughput, run time,
         * GPU-hours, cost */
        int col = 0;
        const char *p = l4 + 1;
        for (; *p && col < 5; p++)
            col += *p == ',';
        empty = *p == ',';
        col = 0;
        p = h100 + 1;
        for (; *p && col < 5; p++)
            col += *p == ',';
        priced = *p != ',' && *p != '0';
    }
    dam_check(rc == DAM_OK && empty && priced,
              "L4 (no price): cost_usd empty; H100: a cost");
    dam_buf_free(&b);
    dam_sweep_free(&sw);
}

int main(void)
{
    dam_test_start(&cat);
    check_fmt();
    check_order_and_grid();
    check_errors();
    check_lhs();
    check_bench_keys_patched();
    check_memo();
    check_memo_table("llama2-7b-pretrain.cfg");
    check_memo_table("resnet50-dgx-a100.cfg");
    check_key_loads();
    check_gpu_price();
    check_front_by_hand();
    check_front_brute();
    check_heat();
    check_no_price();
    check_patch_equals_reload("llama2-7b-pretrain.cfg");
    check_patch_equals_reload("resnet50-serving-l4.cfg");
    dam_catalog_free(&cat);
    return dam_check_done();
}
