/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * work.c: the work a command is about to do, estimated before it starts
 * and refused past a limit (--max-work N, default DAM_CLI_MAX_WORK), so a
 * typo such as a 1e10-point grid or a 3e8-sample Latin hypercube ends at
 * once with exit 2 and the estimate in the message, not after minutes
 * and gigabytes.
 *
 * Unit: one model evaluation (an analytic solve, or one draw of the 90 %
 * intervals, which is a solve at drawn constants; a simulated point
 * counts its replications, each already bounded by --max-events). The
 * default, 1e8, is one to a few minutes on one core at the speeds the
 * benchmarks measure (tests/bench/sweep.sh, analytic.c). What is counted:
 *  - sweep: points x (1 + interval draws per point when the scenario has
 *    uncertain inputs) x replications when simulated; first from the
 *    options alone (before the scenario is loaded or the Latin hypercube
 *    allocated), again once the scenario says whether it is uncertain;
 *  - calibrate: rows x (1 + interval draws) (every row is predicted with
 *    its interval), the rows counted from the file's lines before it is
 *    parsed;
 *  - a profiler trace (trace, run --trace) and a request or arrival trace:
 *    events, estimated from the file's size (a Chrome trace event takes
 *    at least DAM_CLI_TRACE_EVENT_BYTES bytes; a request line at least
 *    DAM_CLI_REQUEST_BYTES; a gzip file's inflated size from its trailer),
 *    before the file is parsed.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "model/error.h"
#include "solver/sweep.h"
#include "solver/uncertainty.h"

/* Default --max-work: model evaluations. */
#define DAM_CLI_MAX_WORK 1e8
/* Fewest bytes of one Chrome trace event ({"ph":"X","ts":0,...}). */
#define DAM_CLI_TRACE_EVENT_BYTES 40.0
/* Fewest bytes of one request or arrival line ("0\n"). */
#define DAM_CLI_REQUEST_BYTES 2.0

double dam_cli_max_work(const dam_cli *c)
{
    return c->max_work > 0.0 ? c->max_work : DAM_CLI_MAX_WORK;
}

/* DAM_EINPUT with the refusal in e when units is over the limit, else
 * DAM_OK. */
static int over(const dam_cli *c, const char *what, double units,
                const char *how, dam_error *e)
{
    double limit = dam_cli_max_work(c);
    if (!(units > limit))
        return DAM_OK;
    return dam_error_set(e, what, 0,
                         "an estimated %.3g model evaluations of work (%s), "
                         "above the limit of %.3g; --max-work N raises it",
                         units, how, limit);
}

int dam_cli_work_check(const dam_cli *c, const char *what, double units,
                       const char *how)
{
    dam_error e;
    if (over(c, what, units, how, &e) == DAM_OK)
        return 0;
    dam_cli_error(&e);
    return 2;
}

int dam_cli_sweep_work(const dam_cli *c, const dam_sweep *sw, int prepared)
{
    double points = 1.0;
    if (sw->method == DAM_SWEEP_GRID)
        for (int i = 0; i < sw->nkeys; i++)
            points *= sw->keys[i].nvalues;
    else
        points = (double)sw->samples;
    double draws = 0.0;
    if (prepared && sw->uncertain && !sw->no_intervals)
        draws = sw->uncertainty_samples > 0 ? sw->uncertainty_samples
                                            : DAM_UNCERTAINTY_SAMPLES;
    double reps = sw->simulate && sw->replications > 1 ? sw->replications
                                                       : 1.0;
    char how[160];
    snprintf(how, sizeof how, "%.3g points x %.0f evaluations%s", points,
             (1.0 + draws) * reps,
             draws > 0.0 ? " (a solve and its interval draws; --intervals "
                           "off: one)"
                         : "");
    return dam_cli_work_check(c, "sweep", points * (1.0 + draws) * reps,
                              how);
}

/* Lines in the file at path (0 when it cannot be read: the loader then
 * says why). */
static double count_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0.0;
    char buf[65536];
    double n = 0.0;
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < k; i++)
            n += buf[i] == '\n';
    fclose(f);
    return n + 1.0;
}

int dam_cli_calibrate_work(const dam_cli *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* the loader refuses it with its reason */
    double rows = count_lines(path);
    double per = 1.0 + DAM_UNCERTAINTY_SAMPLES;
    char how[160];
    snprintf(how, sizeof how, "up to %.3g rows x %.0f evaluations (a solve "
             "and its interval draws)", rows, per);
    return dam_cli_work_check(c, "calibrate", rows * per, how);
}

/* The bytes a trace file holds once inflated: a gzip file's last four
 * bytes are its inflated size (modulo 4 GiB, RFC 1952 ISIZE); any other
 * file's size is its own. */
static double inflated_bytes(const char *path, double size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return size;
    unsigned char m[2] = {0, 0}, z[4];
    double n = size;
    if (fread(m, 1, 2, f) == 2 && m[0] == 0x1f && m[1] == 0x8b &&
        fseek(f, -4, SEEK_END) == 0 && fread(z, 1, 4, f) == 4) {
        double isize = (double)z[0] + 256.0 * z[1] + 65536.0 * z[2] +
                       16777216.0 * z[3];
        n = isize > size ? isize : size;
    }
    fclose(f);
    return n;
}

int dam_cli_trace_work_error(const dam_cli *c, const char *path,
                             int requests, dam_error *e)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return DAM_OK;
    double per = requests ? DAM_CLI_REQUEST_BYTES : DAM_CLI_TRACE_EVENT_BYTES;
    double bytes = inflated_bytes(path, (double)st.st_size);
    double events = bytes / per;
    char how[160];
    snprintf(how, sizeof how, "up to %.3g %s in %.3g bytes", events,
             requests ? "requests" : "events", bytes);
    return over(c, path, events, how, e);
}

int dam_cli_trace_work(const dam_cli *c, const char *path, int requests)
{
    dam_error e;
    if (dam_cli_trace_work_error(c, path, requests, &e) == DAM_OK)
        return 0;
    dam_cli_error(&e);
    return 2;
}
