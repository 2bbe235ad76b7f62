/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_empirical.c: decode times from a file of measurements. The loader
 * reads them (mean and cv follow), the simulator resamples them, and a
 * loader-bound pipeline runs at the rate the samples' mean implies; bad
 * lines are reported with the samples file's own line numbers.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

static const char text[] =
    "scenario: { name = \"e\"; question = \"q?\"; mode = \"training\"; };\n"
    "machine: { gpu = \"H100-SXM5-80GB\"; gpus_per_node = 1;\n"
    "  host: { cpu_cores = 4; pcie_gbs = 25.0; };\n"
    "  storage: { kind = \"page_cache\"; read_gbs = 100.0; }; };\n"
    "workload: { model = \"resnet50\"; precision = \"bf16\"; batch_size = 32; };\n"
    "data: { samples = 1.0e6; decode_samples_file = \"%s\"; };\n"
    "pipeline: { loader_workers = 4; steps = 400; replications = 3; };\n";

int main(void)
{
    dam_catalog cat = {0};
    dam_test_start(&cat);
    dam_scenario *s = dam_malloc(sizeof *s);
    char buf[2048], path[512];
    snprintf(path, sizeof path, "%s/tests/data/decode_ms_synthetic.txt",
             DAM_SOURCE_DIR);
    snprintf(buf, sizeof buf, text, path);
    dam_check_int(dam_test_scenario_text(buf, &cat, s), DAM_OK,
                  "a scenario with decode samples loads");
    dam_check_int(s->data.ndecode_samples, 500, "500 samples read");
    dam_check(s->data.decode_dist == DAM_DIST_EMPIRICAL,
              "the decode distribution is empirical");
    double sum = 0.0;
    for (int i = 0; i < s->data.ndecode_samples; i++)
        sum += s->data.decode_samples[i];
    dam_check_rel(s->data.decode_s, sum / 500.0, 1e-12,
                  "decode time is the samples' mean");
    dam_check(s->data.decode_cv > 0.2 && s->data.decode_cv < 0.4,
              "their cv is about 0.3 (%.3f)", s->data.decode_cv);

    dam_result r;
    dam_analytic_solve(s, &r);
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.warmup = -1;
    dam_error e;
    dam_check_int(dam_sim_training(s, &o, &r, NULL, &e), DAM_OK,
                  "the simulation resamples the measurements");
    /* 4 workers on 4 cores, a batch of 32 at the mean decode time: */
    double rate = 4.0 / (32.0 * s->data.decode_s) * 32.0;
    dam_check_rel(r.throughput, rate, 0.02,
                  "loader-bound throughput = cores / (batch x mean decode)");
    dam_check_str(dam_bound_name(r.bound), "data", "it is data-bound");

    /* A bad line names the samples file and its line. */
    FILE *f = fopen("bad_samples.txt", "w");
    fputs("# ms\n5.0\n6.5\nfast\n-1\n", f);
    fclose(f);
    snprintf(buf, sizeof buf, text, "bad_samples.txt");
    dam_diag d;
    dam_diag_init(&d);
    dam_check_int(dam_scenario_load(s, "e.cfg", buf, &cat, &d), DAM_EINPUT,
                  "bad samples are an input error");
    /* the first bad line ends the reading: a file that is not decode
     * times is never echoed line after line (issue 11) */
    dam_check(d.n == 1 && d.items[0].line == 4 &&
                  strstr(d.items[0].file, "bad_samples.txt") &&
                  strstr(d.items[0].msg, "\"f\""),
              "the first bad line is reported at its own line, quoting "
              "only the byte that breaks the number (%zu errors)", d.n);
    dam_diag_free(&d);

    /* A file of comments only holds no samples: an error, not a mean of
     * 0 / 0 (mutation testing: the check skipped unless a line was bad
     * went unnoticed) */
    f = fopen("bad_samples.txt", "w");
    fputs("# ms\n# none yet\n", f);
    fclose(f);
    dam_diag_init(&d);
    dam_check_int(dam_scenario_load(s, "e.cfg", buf, &cat, &d), DAM_EINPUT,
                  "a samples file without samples is an input error");
    dam_check(d.n == 1 && strstr(d.items[0].msg, "no decode samples"),
              "it says so once (%zu errors: %s)", d.n,
              d.n ? d.items[0].msg : "none");
    dam_diag_free(&d);
    remove("bad_samples.txt");
    dam_free(s);
    dam_catalog_free(&cat);
    return dam_check_done();
}
