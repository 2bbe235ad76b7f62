/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * progress.c: the progress line and Ctrl-C.
 *
 * The line ("  1,234 / 10,000 points  52,000/s  0:03 left") is drawn on
 * stderr only when stderr is a terminal, at most five times a second, and
 * erased at the end, so logs and pipes never see it. SIGINT and SIGTERM
 * only set a flag (the one mutable static of the program, here in cli/);
 * long loops poll it between units of work and stop at a clean boundary,
 * and the command exits with 130 (128 + SIGINT).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/sweep.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

void dam_cli_catch_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
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

void dam_cli_progress_update(dam_cli_progress *p, double done)
{
    if (!p->on)
        return;
    double t = now();
    if (t - p->last < 0.2 && done < p->total)
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
    fprintf(stderr, "\r\033[K  %s / %s %s  %s/s%s", a, b, p->what, r, left);
    fflush(stderr);
    p->drawn = 1;
}

void dam_cli_progress_end(dam_cli_progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = 0;
}
