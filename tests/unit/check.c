/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check.c: the test harness of check.h. Test programs own their process, so
 * the counters here are the one piece of static state outside cli/. */
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

void dam_check(int ok, const char *fmt, ...)
{
    va_list ap;
    printf("%s: ", ok ? "PASS" : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (ok)
        passed++;
    else
        failed++;
}

void dam_check_rel(double got, double want, double rel, const char *what)
{
    double tol = want == 0.0 ? rel : rel * fabs(want);
    int ok = isfinite(got) && fabs(got - want) <= tol;
    dam_check(ok, "%s: got %.10g, want %.10g (rel %.1e)", what, got, want, rel);
}

void dam_check_int(long got, long want, const char *what)
{
    dam_check(got == want, "%s: got %ld, want %ld", what, got, want);
}

void dam_check_str(const char *got, const char *want, const char *what)
{
    int ok = got && want && strcmp(got, want) == 0;
    dam_check(ok, "%s: got \"%s\", want \"%s\"", what, got ? got : "(null)",
              want ? want : "(null)");
}

int dam_check_done(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed > 100 ? 100 : failed;
}
