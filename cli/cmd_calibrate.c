/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_calibrate.c: `damsim calibrate MEASUREMENTS.csv`: fit the catalog's
 * calibrated constants to measured step times, throughputs and profiler
 * traces (solver/calibrate.h), print the fit, and with -o FILE.cfg write
 * it as a catalog overlay. --cross-validate runs leave-one-GPU-out instead.
 * A bad measurements file, scenario, lever or trace is reported as
 * file:line: error: and exits 2; the overlay is written to a temporary
 * name and renamed, so a failure leaves no half-written file.
 */
#include <jansson.h>
#include <string.h>

#include "cli/cli.h"
#include "model/alloc.h"
#include "model/measure.h"
#include "render/page/calibrate_page.h"
#include "solver/calibrate.h"

static const char calibrate_help[] =
    "usage: damsim calibrate MEASUREMENTS.csv [-o OVERLAY.cfg]\n"
    "                        [--fit-constant KEY] [--hold-out GPU]\n"
    "                        [--cross-validate] [--json]\n"
    "\n"
    "Fits the catalog's calibrated constants (efficiencies; `damsim catalog`\n"
    "lists them) to measurements with GSL's nonlinear least squares, and\n"
    "prints each constant before and after with its standard error and the\n"
    "uncertainty later predictions draw from, and every measurement against\n"
    "its prediction and 90 % interval.\n"
    "\n"
    "MEASUREMENTS.csv: a header naming the columns, then one measurement a\n"
    "row ('#' lines are comments):\n"
    "  scenario   the scenario file measured (relative to the CSV's folder)\n"
    "  quantity   step_time | throughput | trace\n"
    "  value      the number; for trace, a torch.profiler Chrome trace\n"
    "  unit       s ms us | samples/s images/s sequences/s tokens/s [/GPU]\n"
    "  levers     optional, e.g. \"gpu=H100-SXM5-80GB batch_size=192\"\n"
    "  rel_error  optional relative standard error (default 0.03)\n"
    "  id, source optional\n"
    "A trace is split into GPU time per step of GEMM, attention,\n"
    "elementwise, optimizer, copy and NCCL kernels, each fitted against the\n"
    "model's operators of that class.\n"
    "\n"
    "options:\n"
    "  -o FILE.cfg        write the fit as a catalog overlay: load it later\n"
    "                     with --gpus FILE, --models FILE or a scenario's\n"
    "                     catalogs group (-o FILE.txt|.json: the report)\n"
    "  --fit-constant KEY fit only constants whose key starts with KEY\n"
    "                     (repeatable), e.g. model/resnet50/\n"
    "  --hold-out GPU     predict that GPU's rows instead of fitting them\n"
    "  --cross-validate   leave each GPU out in turn: median |error| and\n"
    "                     90 % interval coverage of its throughputs and of\n"
    "                     its speed-ups over the others\n"
    "  --seed N           seed of the interval draws (default 1)\n"
    "  --json             the fit as JSON\n";

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    return n > k && strcmp(path + n - k, ext) == 0;
}

int dam_cmd_calibrate(dam_cli *c)
{
    if (c->help)
        return dam_cli_help(calibrate_help);
    if (c->nargs != 1)
        return dam_cli_usage_error("calibrate",
                                   "calibrate needs one measurements file",
                                   NULL);
    const char *overlay = NULL;
    if (c->out_file && has_ext(c->out_file, ".cfg")) {
        overlay = c->out_file;
        c->out_file = NULL;
        c->out_kind = DAM_OUT_STDOUT;
    }
    if (overlay && c->cross_validate) {
        fprintf(stderr, "damsim: --cross-validate writes no overlay; drop "
                        "-o %s\n", overlay);
        return 2;
    }
    if (dam_cli_calibrate_work(c, c->args[0]) != 0)
        return 2;
    dam_diag d;
    dam_diag_init(&d);
    dam_measure_set set;
    if (dam_measure_load(&set, c->args[0], NULL, &d) != DAM_OK) {
        int rc = dam_cli_report_diag(&d, c->quiet);
        dam_diag_free(&d);
        return rc ? rc : 2;
    }
    dam_calib_options opt;
    memset(&opt, 0, sizeof opt);
    for (int i = 0; i < c->nfit_args; i++)
        opt.fit[opt.nfit++] = c->fit_args[i];
    opt.hold_out_gpu = c->hold_out;
    opt.seed = c->have_seed ? (unsigned long)c->seed : 1;
    dam_buf b = {0};
    int rc;
    if (c->cross_validate) {
        dam_crossval *x = dam_malloc(sizeof *x);
        rc = dam_calibrate_crossval(&set, &c->cat, &opt, x, &d);
        if (rc == DAM_OK) {
            if (c->json)
                dam_json_dump(&b, dam_json_crossval(x));
            else
                dam_text_crossval(&b, x);
            dam_crossval_free(x);
        }
        dam_free(x);
    } else {
        dam_calibration *cal = dam_malloc(sizeof *cal);
        rc = dam_calibrate_run(&set, &c->cat, &opt, cal, &d);
        if (rc == DAM_OK) {
            if (c->json)
                dam_json_dump(&b, dam_json_calibration(cal));
            else
                dam_text_calibration(&b, cal);
            if (overlay) {
                dam_buf ob = {0};
                dam_calibration_overlay(&ob, cal, DAM_VERSION);
                dam_error e;
                int w = dam_write_file_atomic(overlay, dam_buf_str(&ob),
                                              ob.len, &e);
                if (w != DAM_OK) {
                    dam_cli_error(&e);
                    rc = w; /* an input file: 2; a write error: 1 */
                } else if (!c->json) {
                    dam_buf_printf(&b, "\nWrote the overlay %s (use it with "
                                       "--gpus %s or a catalogs group).\n",
                                   overlay, overlay);
                }
                dam_buf_free(&ob);
            }
            dam_calibration_free(cal);
        }
        dam_free(cal);
    }
    int code = dam_cli_report_diag(&d, c->quiet);
    dam_diag_free(&d);
    dam_measure_set_free(&set);
    if (rc == DAM_OK && code == 0)
        rc = dam_cli_emit(c, &b);
    else
        rc = rc == DAM_ERUNTIME ? 1 : 2;
    dam_buf_free(&b);
    return rc;
}
