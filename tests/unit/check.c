/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check.c: the test harness of check.h. Test programs own their process, so
 * the counters here are the one piece of static state outside cli/. */
#include "check.h"

#include "model/alloc.h"
#include "model/embedded.h"
#include "model/loader.h"
#include "solver/analytic.h"
#include "solver/sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

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

uint64_t dam_test_seed(uint64_t seed)
{
    const char *b = getenv("DAM_TEST_SEED_BASE");
    long long base = b != NULL ? strtoll(b, NULL, 10) : 0;
    return seed + (uint64_t)base * UINT64_C(1000003);
}

int dam_test_min_cover(int n, double c, double alpha, double *rate)
{
    /* P(X <= k - 1) for X ~ Bin(n, c): the largest k keeping it <= alpha */
    int k = 0;
    while (k < n && gsl_cdf_binomial_P((unsigned)k, c, (unsigned)n) <= alpha)
        k++;
    if (rate != NULL)
        *rate = k > 0 ? gsl_cdf_binomial_P((unsigned)(k - 1), c, (unsigned)n)
                      : 0.0;
    return k;
}

double dam_test_t(double alpha, double df)
{
    return gsl_cdf_tdist_Pinv(1.0 - alpha / 2.0, df);
}

int dam_test_leftovers(const char *prefix)
{
    char cmd[256], line[256];
    int n = 0;
    snprintf(cmd, sizeof cmd, "ls -1 2>/dev/null | grep -c '^%s' ", prefix);
    FILE *p = popen(cmd, "r");
    if (p && fgets(line, sizeof line, p))
        n = atoi(line);
    if (p)
        pclose(p);
    return n;
}

double dam_test_erlang_c(int c, double a)
{
    double term = 1.0, sum = 0.0;
    for (int k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);
    return top / (sum + top);
}

unsigned char *dam_test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 0, len = 0;
    unsigned char *buf = NULL;
    for (;;) {
        buf = dam_grow(buf, 1, len + 65537, &cap);
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[len] = 0;
    if (n != NULL)
        *n = len;
    return buf;
}

void dam_test_start(dam_catalog *cat)
{
    gsl_set_error_handler_off();
    dam_test_catalog(cat);
}

void dam_test_catalog(dam_catalog *cat)
{
    dam_diag d;
    dam_diag_init(&d);
    dam_catalog_load_gpus(cat, "gpus.cfg", dam_embedded_find("gpus.cfg")->text,
                          &d);
    dam_catalog_load_models(cat, "models.cfg",
                            dam_embedded_find("models.cfg")->text, &d);
    dam_check_int(d.nerr, 0, "built-in catalogs load");
    dam_diag_free(&d);
}

int dam_test_scenario(const char *name, dam_catalog *cat, dam_scenario *s)
{
    return dam_test_scenario_levers(name, cat, s, NULL);
}

/* Load path (text: its contents, NULL: read the file), printing any
 * diagnostics; the seed through dam_test_seed. */
static int load_printing(const char *path, const char *text,
                         dam_catalog *cat, dam_scenario *s,
                         dam_lever_list *levers)
{
    dam_diag d;
    dam_diag_init(&d);
    dam_load_options o;
    memset(&o, 0, sizeof o);
    o.levers = levers;
    int rc = dam_scenario_load_with(s, path, text, cat, &o, &d);
    s->seed = dam_test_seed(s->seed);
    for (size_t i = 0; i < d.n; i++)
        printf("  %s:%d: %s\n", d.items[i].file, d.items[i].line,
               d.items[i].msg);
    dam_diag_free(&d);
    return rc;
}

int dam_test_scenario_levers(const char *name, dam_catalog *cat,
                             dam_scenario *s, dam_lever_list *levers)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/%s", DAM_SOURCE_DIR, name);
    return load_printing(path, NULL, cat, s, levers);
}

int dam_test_scenario_text(const char *text, dam_catalog *cat,
                           dam_scenario *s)
{
    return load_printing("t.cfg", text, cat, s, NULL);
}

dam_sim_options dam_test_options(int warmup, int steps, int reps,
                                 unsigned long seed)
{
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.warmup = warmup;
    o.steps = steps;
    o.replications = reps;
    o.seed = dam_test_seed(seed);
    o.have_seed = seed != 0;
    return o;
}

/* Analytic, then the simulator the scenario's mode asks for. */
static int solve_then_simulate(const dam_scenario *s, const dam_sim_options *o,
                               dam_result *r, dam_error *e)
{
    dam_analytic_solve(s, r);
    return s->mode == DAM_MODE_SERVING ? dam_sim_serving(s, o, r, NULL, e)
                                       : dam_sim_training(s, o, r, NULL, e);
}

int dam_test_simulate(const dam_scenario *s, const dam_sim_options *o,
                      dam_result *r)
{
    dam_error e;
    int rc = solve_then_simulate(s, o, r, &e);
    if (rc != DAM_OK)
        printf("  simulation failed: %s\n", e.msg);
    return rc;
}

int dam_test_solve(const dam_scenario *s, void *ctx, dam_result *r,
                   dam_error *err)
{
    (void)ctx;
    dam_sim_options o;
    memset(&o, 0, sizeof o);
    o.warmup = -1;
    if (s->mode == DAM_MODE_SERVING &&
        s->serving.arrival == DAM_ARRIVAL_TRACE) {
        dam_analytic_solve(s, r);
        return DAM_OK;
    }
    return solve_then_simulate(s, &o, r, err);
}
