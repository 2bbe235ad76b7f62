/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_sweep.c: sweeps (solver/sweep.h, render/sweep.h). The patched path
 * gives the bytes a reload gives, for every patchable key on a training and
 * a serving scenario; rows do not depend on the order points are solved
 * in; the grid's first key varies slowest; a Latin hypercube puts one
 * point in each stratum of every key; a bad value is a row with its error;
 * uncertain scenarios carry intervals; the CSV number formatter writes what
 * printf's %.6g writes.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "render/sweep.h"
#include "solver/rng.h"
#include "solver/sweep.h"

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
        dam_sweep_csv_row(&each[i], sw, row);
    }
    dam_sweep_csv_header(b, sw);
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

int main(void)
{
    gsl_set_error_handler_off();
    dam_test_catalog(&cat);
    check_fmt();
    check_order_and_grid();
    check_errors();
    check_lhs();
    check_bench_keys_patched();
    check_patch_equals_reload("llama2-7b-pretrain.cfg");
    check_patch_equals_reload("resnet50-serving-l4.cfg");
    dam_catalog_free(&cat);
    return dam_check_done();
}
