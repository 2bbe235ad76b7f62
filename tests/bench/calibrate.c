/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * calibrate.c: benchmark of `damsim calibrate` on many rows. Usage:
 * calibrate [ROWS] [DIR]. Builds ROWS measurement rows (default 10,000)
 * against DIR/resnet50-a100.cfg (default tests/data/calibrate, so run it
 * from the source tree): the six published ResNet-50 configurations of
 * DIR/measurements.csv (A100 and V100, 1 and 8 GPUs, AMP and TF32),
 * repeated with a +-3 % jitter on the value, as a lab logs repeated runs;
 * then ROWS rows over distinct configurations (batch sizes 64 to 463 on 1
 * to 8 GPUs: 3,200 configurations, each of its rows a case of its own
 * when ROWS <= 3,200), where every configuration costs its own solves in
 * every step of the fit and its 400 interval draws (costed in lanes).
 * Each is fitted in a child process (its CPU time and peak memory are
 * its own) and printed beside issue 26's goal for 10,000 rows: <= 5 s
 * and <= 100 MB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "model/measure.h"
#include "solver/calibrate.h"

#include "bench_util.h"

struct args {
    int rows;
    int distinct;     /* 0: repeated configurations; 1: distinct ones */
    char dir[1024];
};

struct meas {
    int ok;
    int cases;        /* rows fitted */
    double cpu, rss;  /* s, MiB */
    double rms;       /* rms relative error after the fit */
};

/* The measurements file of a as text (caller frees). */
static char *rows_text(const struct args *a)
{
    static const char *const lv[6] = {"", "gpus=8", "gpu=V100-SXM2-32GB",
                                      "gpu=V100-SXM2-32GB gpus=8",
                                      "precision=tf32",
                                      "precision=tf32 gpus=8"};
    /* images/s of those configurations (DIR/measurements.csv, from
     * NVIDIA DeepLearningExamples ResNet-50 v1.5, pytorch-21.03 NGC) */
    static const double v[6] = {2470, 16621, 1200, 8322, 938, 7248};
    size_t cap = (size_t)a->rows * 96 + 128, len = 0;
    char *t = malloc(cap);
    if (!t)
        abort();
    len += (size_t)snprintf(t, cap, "scenario,levers,quantity,value,unit\n");
    unsigned long x = 12345;
    for (int i = 0; i < a->rows; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        double jit = 0.97 + 0.06 * (double)(x >> 11) * 0x1.0p-53;
        if (a->distinct) {
            int k = 1 + (i / 400) % 8;
            len += (size_t)snprintf(t + len, cap - len,
                                    "resnet50-a100.cfg,batch_size=%d "
                                    "gpus=%d,throughput,%.1f,images/s\n",
                                    64 + i % 400, k,
                                    2470.0 * k * (k > 1 ? 0.95 : 1.0) * jit);
        } else {
            len += (size_t)snprintf(t + len, cap - len,
                                    "resnet50-a100.cfg,%s,throughput,%.1f,"
                                    "images/s\n", lv[i % 6], v[i % 6] * jit);
        }
    }
    return t;
}

static void run_one(const void *arg, void *out)
{
    const struct args *a = arg;
    struct meas *m = out;
    memset(m, 0, sizeof *m);
    gsl_set_error_handler_off();
    dam_catalog cat;
    memset(&cat, 0, sizeof cat);
    dam_diag d;
    dam_diag_init(&d);
    bench_load_catalogs(&cat, &d);
    char path[1100];
    snprintf(path, sizeof path, "%s/bench.csv", a->dir);
    char *text = rows_text(a);
    dam_measure_set set;
    double t0 = bench_cpu();
    if (dam_measure_load(&set, path, text, &d) != DAM_OK) {
        free(text);
        return;
    }
    dam_calibration cal;
    int rc = dam_calibrate_run(&set, &cat, NULL, &cal, &d);
    m->cpu = bench_cpu() - t0;
    m->rss = bench_peak_rss_mib();
    if (rc == DAM_OK) {
        m->ok = 1;
        m->cases = cal.nfitted;
        m->rms = cal.rms_fit;
        dam_calibration_free(&cal);
    }
    dam_measure_set_free(&set);
    free(text);
    dam_diag_free(&d);
    dam_catalog_free(&cat);
}

/* The figures scaled to 10,000 rows beside the goal. */
static void verdict(const struct meas *m, int rows)
{
    double s10k = m->cpu * 10000.0 / rows;
    printf("  scaled to 10,000 rows: %.2f s (goal <= 5 s: %s), "
           "%.1f MiB (goal <= 100 MB: %s)\n", s10k,
           s10k <= 5.0 ? "met" : "NOT met", m->rss,
           m->rss * 1.048576 <= 100.0 ? "met" : "NOT met");
}

int main(int argc, char **argv)
{
    struct args a;
    memset(&a, 0, sizeof a);
    a.rows = argc > 1 ? atoi(argv[1]) : 10000;
    snprintf(a.dir, sizeof a.dir, "%s",
             argc > 2 ? argv[2] : "tests/data/calibrate");
    if (a.rows < 1) {
        fprintf(stderr, "usage: calibrate [ROWS] [DIR]\n");
        return 2;
    }
    struct meas m;
    if (!bench_in_child(run_one, &a, &m, sizeof m) || !m.ok) {
        printf("calibrate: the fit of %d rows failed (run from the source "
               "tree, or give DIR)\n", a.rows);
        return 1;
    }
    printf("calibrate: %d rows of 6 repeated configurations: %.2f s CPU, "
           "peak %.1f MiB (rms error %.1f %%)\n", m.cases, m.cpu, m.rss,
           100.0 * m.rms);
    verdict(&m, a.rows);
    a.distinct = 1;
    if (!bench_in_child(run_one, &a, &m, sizeof m) || !m.ok) {
        printf("calibrate: the fit of %d distinct rows failed\n", a.rows);
        return 1;
    }
    printf("calibrate: %d rows of distinct configurations (%d of them): "
           "%.2f s CPU (%.2f ms a row: its solves in the fit and its 400 "
           "interval draws), peak %.1f MiB\n", m.cases,
           a.rows < 3200 ? a.rows : 3200, m.cpu, 1e3 * m.cpu / m.cases,
           m.rss);
    verdict(&m, a.rows);
    return 0;
}
