/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_validation_logo.c: leave-one-GPU-out cross-validation against
 * published measurements. OUT OF SAMPLE: each GPU's throughputs are
 * predicted from constants fitted on the other GPUs' rows only (the
 * held-out GPU keeps its catalog device constants, which come from
 * microbenchmarks, not from these throughputs; conv_frac and
 * elementwise_frac, fitted on rows of this file, start from a neutral
 * prior in every fold).
 *
 * The data are tests/data/validation/logo.csv: NVIDIA DeepLearningExamples
 * PyTorch ResNet-50 and BERT-large SQuAD training with AMP on 16 GPU kinds
 * (Lambda's benchmark, NGC 22.09 and 24.10; NVIDIA's README) and ResNet-50
 * inference on V100 and T4, copied with their sources by make_logo.py from
 * shared/validation (none of the sources kept out on purpose).
 *
 * The test prints every fold and the totals: the median |error| of the
 * held-out throughputs and of their speed-ups over the other GPUs on the
 * same workload, and the share of each inside its 90 % interval. The
 * issue's targets are a median |error| <= 10 % and coverage >= 80 %;
 * tests/VALIDATION.md records what is reached. The bounds below are those
 * figures with a little room, so that a change that makes the model
 * transfer worse across GPUs fails here (and one that improves it shows).
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "model/measure.h"
#include "solver/calibrate.h"

/* Reached (tests/VALIDATION.md), with room: fail when worse. The medians
 * do not depend on the draws; the coverages do (a few rows either way
 * over seeds), so their bounds leave room for any seed; the draws' seed
 * moves with DAM_TEST_SEED_BASE (tests/seeds/run.sh). */
#define MAX_MEDIAN_ERROR 0.09        /* throughputs; target 0.10 */
#define MAX_MEDIAN_RATIO_ERROR 0.10  /* speed-ups; target 0.10 */
#define MIN_COVERAGE 0.85            /* target 0.80 */
#define MIN_RATIO_COVERAGE 0.92      /* target 0.80 */

int main(void)
{
    dam_catalog cat = {0};
    dam_test_start(&cat);
    dam_measure_set set;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_measure_load(
        &set, DAM_SOURCE_DIR "/tests/data/validation/logo.csv", NULL, &d);
    dam_check_int(rc, DAM_OK, "the leave-one-GPU-out measurements load");
    dam_crossval *x = dam_malloc(sizeof *x);
    memset(x, 0, sizeof *x);
    dam_calib_options opt;
    memset(&opt, 0, sizeof opt);
    opt.samples = DAM_UNCERTAINTY_SAMPLES;
    opt.seed = (unsigned long)dam_test_seed(1); /* 1 unless a seed base */
    if (rc == DAM_OK)
        rc = dam_calibrate_crossval(&set, &cat, &opt, x, &d);
    for (size_t i = 0; i < d.n; i++)
        printf("  %s:%d: %s\n", d.items[i].file, d.items[i].line,
               d.items[i].msg);
    dam_check_int(rc, DAM_OK, "cross-validation runs");
    printf("  %-18s %5s %9s %9s %7s %9s %9s\n", "held-out GPU", "rows",
           "med|err|", "coverage", "ratios", "med|err|", "coverage");
    int folds = 0;
    for (int f = 0; f < x->nfolds; f++) {
        const dam_crossval_fold *k = &x->folds[f];
        printf("  %-18s %5d %8.1f%% %8.0f%% %7d %8.1f%% %8.0f%%\n", k->gpu,
               k->nrows, k->median_abs_error * 100, k->coverage * 100,
               k->nratios, k->median_abs_ratio_error * 100,
               k->ratio_coverage * 100);
        folds += k->nrows > 0;
    }
    printf("  all: %d predictions, median |error| %.1f %%, coverage %.0f %%; "
           "%d speed-ups, median |error| %.1f %%, coverage %.0f %%\n",
           x->nrows, x->median_abs_error * 100, x->coverage * 100,
           x->nratios, x->median_abs_ratio_error * 100,
           x->ratio_coverage * 100);
    dam_check(folds >= 15, "at least 15 GPUs held out in turn (%d)", folds);
    dam_check(x->nrows == (int)set.n,
              "every row predicted once while held out (%d of %zu)", x->nrows,
              set.n);
    dam_check(x->median_abs_error <= MAX_MEDIAN_ERROR,
              "out of sample: median |error| of held-out throughputs %.1f %% "
              "<= %.1f %% (target 10 %%)",
              x->median_abs_error * 100, MAX_MEDIAN_ERROR * 100);
    dam_check(x->median_abs_ratio_error <= MAX_MEDIAN_RATIO_ERROR,
              "out of sample: median |error| of held-out speed-ups %.1f %% "
              "<= %.1f %% (target 10 %%)",
              x->median_abs_ratio_error * 100, MAX_MEDIAN_RATIO_ERROR * 100);
    dam_check(x->coverage >= MIN_COVERAGE,
              "90 %% intervals cover %.0f %% of held-out throughputs "
              "(>= %.0f %%)", x->coverage * 100, MIN_COVERAGE * 100);
    dam_check(x->ratio_coverage >= MIN_RATIO_COVERAGE,
              "90 %% intervals cover %.0f %% of held-out speed-ups (>= %.0f "
              "%%)", x->ratio_coverage * 100, MIN_RATIO_COVERAGE * 100);
    /* the folds start conv_frac and elementwise_frac from a neutral prior
     * (their catalog values were fitted on rows of this file): a fold is
     * the neutral-prior fit with its GPU held out, and differs from the
     * fit from the catalog's priors */
    for (int neutral = 0; neutral < 2 && rc == DAM_OK; neutral++) {
        dam_calibration cal;
        opt.hold_out_gpu = "A100-SXM4-80GB";
        opt.neutral_priors = neutral;
        int prc = dam_calibrate_run(&set, &cat, &opt, &cal, &d);
        int same = prc == DAM_OK, n = 0, priors = 1;
        for (int i = 0; prc == DAM_OK && i < cal.nrows; i++) {
            if (!cal.rows[i].held_out)
                continue;
            for (int j = 0; j < x->nrows; j++)
                if (!strcmp(x->rows[j].id, cal.rows[i].id)) {
                    same &= fabs(x->rows[j].predicted /
                                 cal.rows[i].predicted - 1.0) < 1e-9;
                    n++;
                }
        }
        for (int i = 0; prc == DAM_OK && i < cal.nconst; i++)
            if (strstr(cal.consts[i].name, "/conv_frac") ||
                strstr(cal.consts[i].name, "/elementwise_frac"))
                priors &= (cal.consts[i].start == 1.0 &&
                           cal.consts[i].start_sd == 0.5) == neutral;
        dam_check(prc == DAM_OK && n == 6 && same == neutral && priors,
                  "the A100-SXM4-80GB fold %s the fit from %s priors "
                  "(%d rows)", neutral ? "is" : "is not",
                  neutral ? "neutral (1 +- 0.5)" : "the catalog's", n);
        if (prc == DAM_OK)
            dam_calibration_free(&cal);
    }
    dam_crossval_free(x);
    dam_free(x);
    dam_measure_set_free(&set);
    dam_diag_free(&d);
    dam_catalog_free(&cat);
    return dam_check_done();
}
