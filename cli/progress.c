/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * progress.c: the progress line and Ctrl-C.
 *
 * The line ("  1,234 / 10,000 points  52,000/s  0:03 left") is drawn on
 * stderr only when stderr is a terminal and the work has run for a second
 * (shorter work needs no line), at most five times a second, and erased at
 * the end, so logs and pipes never see it. Sweeps update it themselves;
 * run and plan hand the solver a hook (solver/progress.h) that reports the
 * simulation's steps or requests, or the plan's GPU kinds. Once a sweep's
 * rows flow, SIGINT, SIGTERM and SIGHUP only set a flag (cli/ is the layer
 * allowed mutable statics); its loops poll it between units of work and
 * stop at a clean boundary, and the command exits with 128 + the signal
 * (130 for SIGINT). A second signal ends the process at once (signals.c:
 * temporaries removed), and so does the first one a second later when the
 * loops have not stopped by then (a simulated point can run for a minute
 * under --max-events): the signal arms alarm(1), whose handler ends the
 * process as a second signal would, and dam_cli_interrupt_done disarms
 * it once the command has stopped cleanly. So Ctrl-C and SIGTERM are
 * honoured within a second everywhere.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/sweep.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    if (sig == SIGALRM) /* a second has passed since the first signal */
        dam_cli_exit_on_signal(interrupted ? (int)interrupted : SIGINT);
    if (interrupted || sig == SIGPIPE)
        dam_cli_exit_on_signal(sig); /* a second signal: stop now */
    interrupted = sig;
    alarm(1);
}

void dam_cli_interrupt_done(void)
{
    alarm(0);
}

void dam_cli_catch_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigs[i] == SIGHUP && sigaction(sigs[i], NULL, &old) == 0 &&
            old.sa_handler == SIG_IGN)
            continue; /* nohup */
        sigaction(sigs[i], &sa, NULL);
    }
}

int dam_cli_interrupted(void)
{
    return interrupted != 0;
}

int dam_cli_interrupt_code(void)
{
    return 128 + (interrupted ? (int)interrupted : SIGINT);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void dam_cli_progress_start(dam_cli_progress *p, const char *what,
                            double total, int quiet)
{
    memset(p, 0, sizeof *p);
    p->on = !quiet && isatty(STDERR_FILENO);
    p->what = what;
    p->total = total;
    p->start = p->last = now();
    p->after = DAM_CLI_PROGRESS_AFTER;
    const char *e = getenv("DAM_PROGRESS_AFTER_S"); /* tests: sooner */
    if (e) {
        char *end;
        double v = strtod(e, &end);
        if (*e && !*end && v >= 0.0 && v < 3600.0)
            p->after = v;
    }
}

/* n with thousands separators into out. */
static void grouped(double n, char *out, size_t len)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", n);
    size_t nd = strlen(digits), o = 0;
    for (size_t i = 0; i < nd && o + 2 < len; i++) {
        if (i && (nd - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

volatile sig_atomic_t dam_cli_progress_visible;

void dam_cli_progress_update(dam_cli_progress *p, double done)
{
    if (!p->on || !(p->total > 0.0) || !(done > 0.0))
        return;
    double t = now();
    /* work done within about a second needs no line; then five redraws a
     * second at most */
    if (t - p->start < p->after ||
        (t - p->last < 0.2 && p->drawn))
        return;
    p->last = t;
    double el = t - p->start, rate = el > 0.0 ? done / el : 0.0;
    char a[32], b[32], r[32], left[32] = "";
    grouped(done, a, sizeof a);
    grouped(p->total, b, sizeof b);
    grouped(rate, r, sizeof r);
    if (rate > 0.0 && done < p->total) {
        double s = (p->total - done) / rate;
        if (s < 360000.0)
            snprintf(left, sizeof left, "  %d:%02d:%02d left", (int)(s / 3600),
                     (int)(s / 60) % 60, (int)s % 60);
    }
    dam_cli_progress_visible = 1; /* first: a signal may come mid-line */
    fprintf(stderr, "\r\033[K  %s / %s %s  %s/s%s", a, b, p->what, r, left);
    fflush(stderr);
    p->drawn = 1;
}

void dam_cli_progress_end(dam_cli_progress *p)
{
    if (p->on && p->drawn) {
        dam_cli_progress_visible = 0;
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
}

/* The solver's report: its own total, then a redraw. */
static void on_progress(void *ctx, double done, double total)
{
    dam_cli_progress *p = ctx;
    p->total = total;
    dam_cli_progress_update(p, done);
}

void dam_cli_progress_hook(dam_cli_progress *p, dam_progress *hook)
{
    hook->fn = p->on ? on_progress : NULL;
    hook->ctx = p;
}
