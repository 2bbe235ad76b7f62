/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_inputs.c: libFuzzer targets for the input parsers other than the
 * scenario loader (issue 24, item 6), one binary each, chosen by a
 * compile definition:
 *   DAM_FUZZ_MEASURE   the calibration measurements CSV (dam_measure_load)
 *   DAM_FUZZ_PROFILE   a torch.profiler Chrome trace (dam_profile_load)
 *   DAM_FUZZ_REQUESTS  an LLM request trace (dam_llm_trace_load)
 *   DAM_FUZZ_ARRIVALS  an arrival-time trace (dam_arrivals_load)
 *   DAM_FUZZ_VARY      one `sweep --vary KEY=...` argument (dam_sweep_add)
 * The two trace readers take a path (they read through the one input
 * path, model/infile.h), so their input is written to a private file
 * first. A crash, a sanitizer report, a leak, or an accepted value outside
 * the ranges the parser promises is a finding. Built and run by
 * `sh build.sh fuzz` beside fuzz_scenario.
 *
 * Static state here is the fuzz driver's: the file name of this process.
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "model/alloc.h"
#include "model/arrivals.h"
#include "model/csvline.h"
#include "model/llm_trace.h"
#include "model/measure.h"
#include "model/profile.h"
#include "model/scenario.h"
#include "solver/sweep.h"

static char path[64];

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsl_set_error_handler_off();
    snprintf(path, sizeof path, "/tmp/dam_fuzz_%ld.txt", (long)getpid());
    atexit(remove_file);
    return 0;
}

/* The input as a NUL-terminated string (NULs inside stay: the parsers
 * must cope with them). */
static char *text_of(const uint8_t *data, size_t size)
{
    char *t = dam_malloc(size + 1);
    memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

/* Write the input to this process's file; 0 on success. */
static int to_file(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(data, 1, size, f) != size;
    return (fclose(f) != 0 || bad) ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    dam_diag d;
    dam_diag_init(&d);
#if defined(DAM_FUZZ_MEASURE)
    char *t = text_of(data, size);
    dam_measure_set set;
    if (dam_measure_load(&set, "fuzz.csv", t, &d) == DAM_OK) {
        for (size_t i = 0; i < set.n; i++)
            if (set.rows[i].kind != DAM_MEASURE_TRACE &&
                !(isfinite(set.rows[i].value) && set.rows[i].value > 0.0))
                abort(); /* a measurement must be a positive number */
        dam_measure_set_free(&set);
    }
    dam_free(t);
#elif defined(DAM_FUZZ_PROFILE)
    char *t = text_of(data, size);
    static dam_profile p;
    if (dam_profile_load(&p, "fuzz.json", t, &d) == DAM_OK) {
        if (!isfinite(p.h2d_bytes) || !isfinite(p.busy_s) ||
            !(p.steps > 0))
            abort(); /* every figure of an accepted trace is finite */
        for (int k = 0; k < DAM_KCLASS_COUNT; k++)
            if (!isfinite(p.time_s[k]) || p.time_s[k] < 0.0)
                abort();
    }
    dam_free(t);
#elif defined(DAM_FUZZ_REQUESTS)
    static dam_scenario s;
    s.serving.llm.input.max = 32768;
    s.serving.llm.output.max = 8192;
    dam_llm_request *req = NULL;
    size_t n = 0;
    if (to_file(data, size) == 0 &&
        dam_llm_trace_load(path, &s, &req, &n, &d) == DAM_OK) {
        for (size_t i = 0; i < n; i++)
            if (!(req[i].arrive >= 0.0 &&
                  req[i].arrive <= DAM_MAX_ARRIVAL_S) ||
                (i && req[i].arrive < req[i - 1].arrive))
                abort(); /* in range and in order */
    }
    dam_free(req);
#elif defined(DAM_FUZZ_ARRIVALS)
    double *times = NULL;
    size_t n = 0;
    if (to_file(data, size) == 0 &&
        dam_arrivals_load(path, &times, &n, &d) == DAM_OK) {
        for (size_t i = 0; i < n; i++)
            if (!(times[i] >= 0.0 && times[i] <= DAM_MAX_ARRIVAL_S) ||
                (i && times[i] < times[i - 1]))
                abort();
    }
    dam_free(times);
#elif defined(DAM_FUZZ_VARY)
    char *t = text_of(data, size < 4096 ? size : 4096);
    dam_sweep sw;
    dam_sweep_init(&sw);
    dam_error e;
    memset(&e, 0, sizeof e);
    dam_sweep_add(&sw, t, &e);
    dam_sweep_free(&sw);
    dam_free(t);
#else
#error "define one DAM_FUZZ_ target"
#endif
    dam_diag_free(&d);
    return 0;
}
