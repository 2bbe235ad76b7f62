/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * check.h: the test harness. A test is a plain program with one line per
 * check (in the manner of GSL's gsl_test_rel); each line names what it checks.
 * The program's exit status is the number of failed checks (capped), and its
 * last line reads "N passed, N failed".
 */
#ifndef DAM_CHECK_H
#define DAM_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Record one check: ok is the verdict, the rest describes it. */
void dam_check(int ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* |got - want| <= rel * |want| (or <= rel when want is 0). */
void dam_check_rel(double got, double want, double rel, const char *what);
/* got == want exactly. */
void dam_check_int(long got, long want, const char *what);
/* Strings equal. */
void dam_check_str(const char *got, const char *want, const char *what);
/* Print the summary line and return the exit status for main. */
int dam_check_done(void);

/* Seeds of stochastic checks. Every seed a stochastic test uses goes
 * through here: unchanged by default, moved to another seed base when the
 * environment sets DAM_TEST_SEED_BASE=B (an integer, B != 0): seed +
 * B * 1000003. Rerunning the suite under many bases shows that its checks
 * hold on any seed (tests/VALIDATION.md, "Seed robustness"). */
uint64_t dam_test_seed(uint64_t seed);
/* The least k such that n intervals of nominal coverage c, independent,
 * hold the true value at least k times except with probability <= alpha
 * (binomial lower tail); *rate gets that probability, the check's false
 * alarm rate (rate may be NULL). */
int dam_test_min_cover(int n, double c, double alpha, double *rate);
/* Student's two-sided quantile: half-width factor t(1 - alpha/2, df) of a
 * (1 - alpha) interval. */
double dam_test_t(double alpha, double df);
/* How many files in the working folder have a name that starts with
 * prefix (what a failed write left behind). */
int dam_test_leftovers(const char *prefix);
/* Erlang C: the probability of waiting in M/M/c with offered load a
 * (a < c). */
double dam_test_erlang_c(int c, double a);
/* A whole file, NUL-terminated (*n, where n is not NULL, gets its length
 * without the NUL); NULL when it cannot be opened. The caller frees it. */
unsigned char *dam_test_slurp(const char *path, size_t *n);

/* Fixtures shared by the tests. */
struct dam_catalog;
struct dam_scenario;
/* Load the built-in catalogs into cat (checks that they load). */
void dam_test_catalog(struct dam_catalog *cat);
/* A unit test's start: GSL's error handler off (the code checks GSL's
 * return codes; a test must not abort inside GSL), then dam_test_catalog. */
void dam_test_start(struct dam_catalog *cat);
/* Load scenarios/NAME from the source tree, printing any diagnostics;
 * returns the loader's code. The scenario's seed goes through
 * dam_test_seed. */
int dam_test_scenario(const char *name, struct dam_catalog *cat,
                      struct dam_scenario *s);
/* The same for a scenario given as text (named t.cfg). */
int dam_test_scenario_text(const char *text, struct dam_catalog *cat,
                           struct dam_scenario *s);
/* Simulation options: warm-up, steps, replications (0: the scenario's)
 * and seed (0: the scenario's; else through dam_test_seed). */
struct dam_sim_options dam_test_options(int warmup, int steps, int reps,
                                        unsigned long seed);
/* Solve s analytically, then simulate it with o (the training or the
 * serving simulator, as its mode asks); returns the simulator's code,
 * printing its error. */
struct dam_sim_options;
struct dam_result;
int dam_test_simulate(const struct dam_scenario *s,
                      const struct dam_sim_options *o, struct dam_result *r);
/* The command line's solver (a dam_whatif_options.solve): analytic, then
 * simulated with the scenario's own options; a serving scenario on an
 * arrival trace stays analytic. */
struct dam_error;
int dam_test_solve(const struct dam_scenario *s, void *ctx,
                   struct dam_result *r, struct dam_error *err);
/* Same, writing the file's levers to levers (NULL: dropped). */
struct dam_lever_list;
int dam_test_scenario_levers(const char *name, struct dam_catalog *cat,
                             struct dam_scenario *s,
                             struct dam_lever_list *levers);

#endif
