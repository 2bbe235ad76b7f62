/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_api.c: libdamsim's interface (include/damsim.h) checked through
 * that header alone (internals only to compare with the loader): bad
 * input and NULL handles give a status and a message, never a crash; keys
 * set through the interface are checked by the loader with the loader's
 * words, and a failed change leaves the scenario as it was; levers,
 * solving, what-if and plans; answers deterministic, also on two threads
 * sharing one context; GSL's error handler is left alone and never
 * reached.
 */
#include <gsl/gsl_errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damsim.h"
#include "model/alloc.h"
#include "model/catalog.h"
#include "model/loader.h"
#include "model/scenario.h"
#include "../unit/check.h"

#define SRC DAM_SOURCE_DIR "/scenarios/"

static int gsl_calls; /* GSL errors seen by this program's handler */

static void count_gsl(const char *reason, const char *file, int line,
                      int err)
{
    (void)reason, (void)file, (void)line, (void)err;
    gsl_calls++;
}

/* The first message of s, or "". */
static const char *first(const damsim_scenario *s)
{
    const char *m = damsim_diag_message(damsim_scenario_diag(s), 0);
    return m ? m : "";
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = dam_malloc((size_t)n + 1);
    size_t got = fread(t, 1, (size_t)n, f);
    t[got] = '\0';
    fclose(f);
    return t;
}

static void misuse(void)
{
    damsim_scenario *s = (damsim_scenario *)1;
    damsim_result *r = (damsim_result *)1;
    char buf[16];
    double v;
    dam_check_int(damsim_scenario_load(NULL, "x.cfg", &s), DAMSIM_EMISUSE,
                  "load without a context: misuse");
    dam_check(s == NULL, "load without a context: *out is NULL");
    dam_check_int(damsim_solve(NULL, DAMSIM_ANALYTIC, -1, &r),
                  DAMSIM_EMISUSE, "solve of NULL: misuse");
    dam_check(r == NULL, "solve of NULL: *out is NULL");
    dam_check_int(damsim_scenario_set(NULL, "a", "b"), DAMSIM_EMISUSE,
                  "set on NULL: misuse");
    dam_check_int(damsim_scenario_get(NULL, "a", buf, sizeof buf),
                  DAMSIM_EMISUSE, "get on NULL: misuse");
    dam_check_int(damsim_result_number(NULL, "a", &v), DAMSIM_EMISUSE,
                  "result number of NULL: misuse");
    dam_check(damsim_result_json(NULL) == NULL &&
                  damsim_whatif_count(NULL) == 0 &&
                  damsim_diag_count(damsim_scenario_diag(NULL)) == 0 &&
                  damsim_diag_message(NULL, 0) == NULL,
              "accessors of NULL handles answer empty");
    damsim_scenario_free(NULL);
    damsim_result_free(NULL);
    damsim_whatif_free(NULL);
    damsim_context_free(NULL);
    dam_check(1, "every free accepts NULL");
    dam_check_str(damsim_libversion(), DAMSIM_VERSION,
                  "damsim_libversion is the header's DAMSIM_VERSION");
    dam_check_int(damsim_libversion_number(), DAMSIM_VERSION_NUMBER,
                  "damsim_libversion_number is DAMSIM_VERSION_NUMBER");
    dam_check_str(damsim_errstr(DAMSIM_EINPUT), "bad input",
                  "damsim_errstr names a status");
}

static void load_errors(damsim_context *c)
{
    damsim_scenario *s = NULL;
    int rc = damsim_scenario_from_string(
        c, "scenario: { name = \"x\"; };\nnope = 1;\n", "bad.cfg", &s);
    dam_check_int(rc, DAMSIM_EINPUT, "a bad scenario text: bad input");
    dam_check_str(first(s), "bad.cfg:2: error: unknown key 'nope'",
                  "its first message: file:line: error: as the loader");
    const damsim_diag *d = damsim_scenario_diag(s);
    dam_check(damsim_diag_errors(d) >= 2 && damsim_diag_line(d, 0) == 2 &&
                  strcmp(damsim_diag_file(d, 0), "bad.cfg") == 0 &&
                  damsim_diag_is_error(d, 0),
              "every problem is listed, with its file and line apart");
    damsim_result *r = NULL;
    dam_check_int(damsim_solve(s, DAMSIM_ANALYTIC, -1, &r), DAMSIM_EMISUSE,
                  "solving a handle that did not load: misuse, no crash");
    damsim_scenario_free(s);
    s = NULL;
    dam_check_int(damsim_scenario_load(c, SRC "roc-models-abc.cfg", &s),
                  DAMSIM_EINPUT, "a points file: bad input");
    dam_check(strstr(first(s), "'damsim run' reads it") != NULL,
              "and the message says what reads it");
    damsim_scenario_free(s);
    dam_check_int(damsim_context_load_catalog(c, "gpu", "x", ""),
                  DAMSIM_EMISUSE, "a catalog kind that is not one: misuse");
    dam_check_int(damsim_context_load_catalog(c, "gpus", "mine.cfg",
                                              "gpus = 3;\n"),
                  DAMSIM_EINPUT, "a bad GPU catalog: bad input");
    dam_check(strncmp(damsim_diag_message(damsim_context_diag(c), 0),
                      "mine.cfg:", 9) == 0,
              "its message names the catalog's file");
}

/* The message the loader gives for the llama2 scenario with its
 * loader_workers written as value, and its line (through the internal
 * loader on the file's text). */
static void loader_says(const char *value, char *msg, size_t n, int *line)
{
    char *t = slurp(SRC "llama2-7b-pretrain.cfg");
    char *at = strstr(t, "loader_workers = 2;");
    dam_check(at != NULL, "the fixture writes loader_workers = 2");
    size_t len = strlen(t) + 64;
    char *u = dam_malloc(len);
    snprintf(u, len, "%.*sloader_workers = %s;%s", (int)(at - t), t, value,
             at + strlen("loader_workers = 2;"));
    dam_catalog cat = {0};
    dam_test_catalog(&cat);
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_diag d;
    dam_diag_init(&d);
    dam_scenario_load(s, SRC "llama2-7b-pretrain.cfg", u, &cat, &d);
    snprintf(msg, n, "%s", d.n ? d.items[0].msg : "");
    *line = d.n ? d.items[0].line : -1;
    dam_diag_free(&d);
    dam_free(s);
    dam_catalog_free(&cat);
    dam_free(u);
    dam_free(t);
}

static void keys(damsim_context *c)
{
    damsim_scenario *s = NULL;
    char buf[128], msg[512];
    double v = 0;
    int line;
    dam_check_int(damsim_scenario_load(c, SRC "llama2-7b-pretrain.cfg", &s),
                  DAMSIM_OK, "the Llama-2 scenario loads");
    dam_check_int(damsim_scenario_get(s, "pipeline.loader_workers", buf,
                                      sizeof buf),
                  DAMSIM_OK, "get a key the file writes");
    dam_check_str(buf, "2", "pipeline.loader_workers as written");
    dam_check_int(damsim_scenario_set(s, "pipeline.loader_workers", "16"),
                  DAMSIM_OK, "set it to 16");
    damsim_scenario_get_number(s, "pipeline.loader_workers", &v);
    dam_check_rel(v, 16, 0, "get_number reads 16 back");
    dam_check_int(damsim_scenario_set(s, "pipeline.loader_workers", "-3"),
                  DAMSIM_EINPUT, "set it to -3: bad input");
    loader_says("-3", msg, sizeof msg, &line);
    const damsim_diag *d = damsim_scenario_diag(s);
    dam_check_str(damsim_diag_text(d, 0), msg,
                  "the loader's own words for the same value in the file");
    dam_check_int(damsim_diag_line(d, 0), line,
                  "at the line of the value replaced");
    damsim_scenario_get(s, "pipeline.loader_workers", buf, sizeof buf);
    dam_check_str(buf, "16", "a failed set leaves the scenario as it was");
    dam_check_int(damsim_scenario_set(s, "pipeline.loader_wrokers", "3"),
                  DAMSIM_EINPUT, "an unknown key: bad input");
    dam_check(strstr(first(s), "unknown key 'pipeline.loader_wrokers' (did "
                               "you mean 'loader_workers'?)") != NULL,
              "with the loader's did-you-mean: %s", first(s));
    dam_check_int(damsim_scenario_get(s, "pipeline.nope", buf, sizeof buf),
                  DAMSIM_ENOTFOUND, "get of an unknown key: not found");
    dam_check_int(damsim_scenario_set(s, "machine.storage.read_gbs", "2.5"),
                  DAMSIM_OK, "set a number in its file's unit (GB/s)");
    damsim_scenario_get_number(s, "machine.storage.read_gbs", &v);
    dam_check_rel(v, 2.5, 1e-15, "read back in GB/s, not SI");
    dam_check_int(damsim_scenario_set(s, "machine.gpu", "NOPE"),
                  DAMSIM_EINPUT, "an unknown GPU id: bad input");
    dam_check(strstr(first(s), "NOPE") != NULL, "the message names it");
    dam_check_int(damsim_scenario_apply_lever(s, "gpu=H100-SXM5-80GB"),
                  DAMSIM_OK, "apply the lever gpu=H100-SXM5-80GB");
    damsim_scenario_get(s, "machine.gpu", buf, sizeof buf);
    dam_check_str(buf, "H100-SXM5-80GB", "machine.gpu after the lever");
    dam_check_int(damsim_scenario_set(s, "pipeline.prefetch_factor", "4"),
                  DAMSIM_OK, "set another key after the lever");
    damsim_scenario_get(s, "machine.gpu", buf, sizeof buf);
    dam_check_str(buf, "H100-SXM5-80GB", "the lever is applied again");
    dam_check_int(damsim_scenario_apply_lever(s, "gpu=NOPE"), DAMSIM_EINPUT,
                  "a lever with an unknown GPU: bad input");
    dam_check(strncmp(first(s), "lever gpu=NOPE: error: ", 23) == 0,
              "located at the lever: %s", first(s));
    damsim_scenario_get(s, "machine.gpu", buf, sizeof buf);
    dam_check_str(buf, "H100-SXM5-80GB", "a failed lever changes nothing");
    damsim_scenario_free(s);
}

static void solving(damsim_context *c)
{
    damsim_scenario *s = NULL;
    damsim_result *a = NULL, *b = NULL;
    damsim_scenario_load(c, SRC "llama2-7b-pretrain.cfg", &s);
    dam_check_int(damsim_solve(s, DAMSIM_ANALYTIC, -1, &a), DAMSIM_OK,
                  "solve analytically");
    double step = 0, base = 0;
    dam_check_int(damsim_result_number(a, "result.step_s", &step), DAMSIM_OK,
                  "result.step_s by name");
    dam_check(step > 1.0 && step < 10.0, "a step of seconds: %g", step);
    dam_check_str(damsim_result_string(a, "result.step_source"), "analytic",
                  "result.step_source is analytic");
    dam_check_int(damsim_result_number(a, "result.nope", &base),
                  DAMSIM_ENOTFOUND, "an unknown name: not found");
    dam_check_int(damsim_result_number(a, "result.bound", &base),
                  DAMSIM_ENOTFOUND, "a string read as a number: not found");
    damsim_scenario *t = damsim_scenario_clone(s);
    damsim_solve(t, DAMSIM_ANALYTIC, -1, &b);
    dam_check(strcmp(damsim_result_json(a), damsim_result_json(b)) == 0,
              "a clone answers the same JSON");
    damsim_result_free(b);
    damsim_scenario_apply_lever(t, "gpu=H100-SXM5-80GB");
    damsim_solve(t, DAMSIM_ANALYTIC, -1, &b);
    double fast = 0;
    damsim_result_number(b, "result.step_s", &fast);
    dam_check(fast < step, "H100s shorten the step: %g < %g", fast, step);
    damsim_result_free(b);
    damsim_scenario_free(t);
    damsim_result_free(a);

    damsim_whatif *w = NULL;
    const char *lv[] = {"batch_size=8"};
    dam_check_int(damsim_whatif_run(s, lv, 1, DAMSIM_ANALYTIC, -1, &w),
                  DAMSIM_OK, "what-if with one more lever");
    dam_check(damsim_whatif_count(w) >= 3, "rows: %d",
              damsim_whatif_count(w));
    dam_check_str(damsim_whatif_name(w, 0), "baseline", "row 0 is baseline");
    double sp = 0;
    dam_check_int(damsim_whatif_number(w, 1, "speedup", &sp), DAMSIM_OK,
                  "row 1's speedup by name");
    dam_check(sp > 1.0, "H100 (the file's first lever) is faster: %g", sp);
    dam_check(damsim_whatif_name(w, 99) == NULL, "no row 99");
    damsim_whatif_free(w);
    const char *bad[] = {"nope=1"};
    dam_check_int(damsim_whatif_run(s, bad, 1, DAMSIM_ANALYTIC, -1, &w),
                  DAMSIM_EINPUT, "an unknown lever: bad input");
    dam_check(w == NULL, "and no what-if");
    dam_check_int(damsim_solve(s, 7, -1, &a), DAMSIM_EMISUSE,
                  "an unknown method: misuse");
    dam_check_int(damsim_plan(s, -1, &a), DAMSIM_EINPUT,
                  "plan of a training scenario: bad input (needs a budget)");
    dam_check_int(damsim_plan_budget(s, 9, 1e23, 0, &a), DAMSIM_EMISUSE,
                  "a budget unit that is not one: misuse");
    dam_check_int(damsim_plan_budget(s, DAMSIM_BUDGET_FLOPS, -1, 0, &a),
                  DAMSIM_EINPUT, "a negative budget: bad input");
    dam_check_int(damsim_plan_budget(s, DAMSIM_BUDGET_FLOPS, 1e23, 0, &a),
                  DAMSIM_OK, "a budget of 1e23 FLOPs plans");
    dam_check(damsim_result_number(a, "options.0.gpus", &sp) == DAMSIM_OK ||
                  damsim_result_json(a) != NULL,
              "the plan has JSON");
    damsim_result_free(a);
    damsim_scenario_free(s);

    /* simulated, seeded: the same seed gives the same bytes */
    damsim_scenario_load(c, SRC "iron-law-data-bound.cfg", &s);
    damsim_solve(s, DAMSIM_SIMULATE, 3, &a);
    damsim_solve(s, DAMSIM_SIMULATE, 3, &b);
    dam_check(a && b && strcmp(damsim_result_json(a),
                               damsim_result_json(b)) == 0,
              "a simulation with seed 3 twice: the same JSON");
    dam_check_str(damsim_result_string(a, "result.step_source"), "simulated",
                  "and it was simulated");
    damsim_result_free(a);
    damsim_result_free(b);
    damsim_scenario_free(s);
}

/* Bad input of every kind, with standard output and error sent to a
 * file: the library writes nothing to either. */
static void silent(damsim_context *c)
{
    char path[] = "/tmp/damsim-test-api-XXXXXX";
    int fd = mkstemp(path);
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    damsim_scenario *s = NULL;
    damsim_result *r = NULL;
    damsim_scenario_from_string(c, "nope = ;\n", "x.cfg", &s);
    damsim_solve(s, DAMSIM_ANALYTIC, -1, &r);
    damsim_scenario_free(s);
    damsim_scenario_load(c, "/nonexistent/x.cfg", &s);
    damsim_scenario_free(s);
    damsim_scenario_load(c, SRC "llama2-7b-pretrain.cfg", &s);
    damsim_scenario_set(s, "machine.gpu", "NOPE");
    damsim_scenario_set(s, "workload.batch_size", "1e99");
    damsim_scenario_apply_lever(s, "precision=fp3");
    damsim_solve(s, DAMSIM_SIMULATE, -5, &r);
    damsim_plan(s, -1, &r);
    damsim_scenario_free(s);
    damsim_context_load_catalog(c, "models", NULL, "models = ( { } );");
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    unlink(path);
    dam_check_int((long)st.st_size, 0,
                  "bad input of every kind: nothing on stdout or stderr");
}

/* Two threads solving through one context. */
typedef struct job {
    damsim_context *c;
    const char *file;
    char *json; /* the answer (owned) */
} job;

static void *solve_job(void *arg)
{
    job *j = arg;
    damsim_scenario *s = NULL;
    damsim_result *r = NULL;
    if (damsim_scenario_load(j->c, j->file, &s) == DAMSIM_OK &&
        damsim_solve(s, DAMSIM_SIMULATE, 5, &r) == DAMSIM_OK)
        j->json = dam_strdup(damsim_result_json(r));
    damsim_result_free(r);
    damsim_scenario_free(s);
    return NULL;
}

static void threads(damsim_context *c)
{
    job a = {c, SRC "iron-law-data-bound.cfg", NULL};
    job b = {c, SRC "resnet50-serving-l4.cfg", NULL};
    job a1 = a, b1 = b;
    solve_job(&a1);
    solve_job(&b1);
    pthread_t ta, tb;
    pthread_create(&ta, NULL, solve_job, &a);
    pthread_create(&tb, NULL, solve_job, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    dam_check(a.json && a1.json && strcmp(a.json, a1.json) == 0,
              "on a thread beside another: the same answer (training)");
    dam_check(b.json && b1.json && strcmp(b.json, b1.json) == 0,
              "on a thread beside another: the same answer (serving)");
    dam_free(a.json);
    dam_free(b.json);
    dam_free(a1.json);
    dam_free(b1.json);
}

int main(void)
{
    /* this program's GSL handler: the library must neither replace it nor
     * reach it */
    gsl_set_error_handler(count_gsl);
    misuse();
    damsim_context *c = damsim_context_create();
    dam_check_int((int)damsim_diag_count(damsim_context_diag(c)), 0,
                  "the built-in catalogs load without a message");
    load_errors(c);
    keys(c);
    solving(c);
    silent(c);
    threads(c);
    damsim_context_free(c);
    dam_check(gsl_set_error_handler(NULL) == count_gsl,
              "GSL's error handler is still the program's");
    dam_check_int(gsl_calls, 0, "and it was never called");
    return dam_check_done();
}
