/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * damsim.h: libdamsim's interface, the one installed header (as sqlite3.h
 * and lua.h are theirs). A program asks the questions damsim's command
 * asks -- load a scenario, change a key, apply a lever, solve, what-if,
 * plan -- and reads the answers by name or as the same JSON that
 * `damsim run --json`, `damsim whatif --json` and `damsim plan --json`
 * print.
 *
 *   cc prog.c $(pkg-config --cflags --libs damsim)
 *
 * Handles. Four opaque types, each created and freed by the library; no
 * structure of the library is ever visible, so a program built against
 * one release keeps working with a later one of the same major version
 * (the SONAME libdamsim.so.MAJOR changes when that breaks):
 *   damsim_context   the GPU and model catalogs (built in, plus files)
 *   damsim_scenario  a scenario: its file or text, the keys set since, the
 *                    levers applied since; it always holds a valid
 *                    scenario (a change that fails is undone)
 *   damsim_result    one answer (a run or a plan): numbers by name, JSON
 *   damsim_whatif    a what-if: the baseline, each lever, the combination
 * Every *_free accepts NULL. A scenario copies its context's catalogs when
 * it is loaded: the context may be changed or freed afterwards.
 *
 * Errors. Every fallible function returns a status (DAMSIM_OK, or one of
 * the codes below) and records why on the handle it was given, as
 * damsim's command prints it: "file:line: error: message" (the same text
 * the scenario loader writes, for a key set through
 * damsim_scenario_set as for a key in a file). Read the messages with
 * damsim_diag_* from damsim_context_diag / damsim_scenario_diag; each
 * call that records messages first clears the handle's earlier ones. No
 * function prints, exits, or aborts on bad input or a NULL handle (that
 * is DAMSIM_EMISUSE). Numbers are finite: a figure that has none (a
 * simulation that did not run) is "not found", never NaN.
 *
 * Memory. The library allocates with the C library's malloc and free.
 * Strings it returns are owned by the handle they came from and stay valid
 * until the next call on that handle that changes it (or its free), unless
 * said otherwise. Out of memory is the one thing it cannot hand back: it
 * calls damsim_out_of_memory(n), which must not return. The library's own
 * definition is weak and calls abort(); a program may define its own
 * (e.g. print a message and exit) and the dynamic linker uses the
 * program's.
 *
 * Process-wide state. None is read or changed. In particular the library
 * never calls gsl_set_error_handler: GSL's handler (abort, by default)
 * stays the program's choice, and these functions never reach it. The GSL
 * calls on their paths (random streams and distributions, quantiles, the
 * normal and t quantiles) get arguments the loader and the solvers have
 * already checked (non-empty samples, probabilities in [0, 1], degrees of
 * freedom >= 1); the parts of damsim whose GSL calls can fail on data
 * (calibration and fitting: root finding, Cholesky, nonlinear least
 * squares) are not in this interface. The test test_api installs a
 * counting handler, and checks that it is never called nor replaced. A
 * GSL allocation that fails ends in damsim_out_of_memory, as any other.
 *
 * Threads. Handles are not locked: one thread at a time per handle. Distinct
 * handles may be used on different threads at once, including scenarios
 * sharing one context, as long as no thread changes that context
 * (damsim_context_load_catalog) meanwhile. Results are deterministic: the
 * same scenario, changes and seed give byte-identical JSON on any thread.
 */
#ifndef DAMSIM_H
#define DAMSIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one export macro: the library is built with -fvisibility=hidden and
 * exports exactly the functions marked with it. */
#if defined(DAMSIM_BUILDING) && defined(__GNUC__)
#define DAMSIM_API __attribute__((visibility("default")))
#else
#define DAMSIM_API
#endif

/* The release this header belongs to: "MAJOR.MINOR.PATCH", and as one
 * number MAJOR * 1000000 + MINOR * 1000 + PATCH. Compare with
 * damsim_libversion() / damsim_libversion_number() to see which library
 * a program runs with. */
#define DAMSIM_VERSION "0.1.0"
#define DAMSIM_VERSION_NUMBER 1000

/* Status codes. */
#define DAMSIM_OK 0        /* success */
#define DAMSIM_ERUNTIME 1  /* a computation failed (a simulation over its
                            * work limit, a file that cannot be read) */
#define DAMSIM_EINPUT 2    /* bad input: the diagnostics say where and why */
#define DAMSIM_EMISUSE 3   /* a NULL handle or argument, an unknown option */
#define DAMSIM_ENOTFOUND 4 /* no such key or result name */

/* How a scenario is solved. */
#define DAMSIM_ANALYTIC 0 /* the analytic (iron law, roofline) solver only;
                           * `damsim run --analytic` */
#define DAMSIM_SIMULATE 1 /* the analytic solver, then the discrete-event
                           * simulation; `damsim run` */

/* A seed meaning "the scenario's own" (scenario.seed). */
#define DAMSIM_SEED_SCENARIO (-1L)

/* Budget units for damsim_plan_budget. */
#define DAMSIM_BUDGET_FLOPS 0     /* training FLOPs */
#define DAMSIM_BUDGET_GPU_HOURS 1 /* GPU-hours of the scenario's GPU */
#define DAMSIM_BUDGET_USD 2       /* dollars at the scenario's price */

typedef struct damsim_context damsim_context;
typedef struct damsim_scenario damsim_scenario;
typedef struct damsim_result damsim_result;
typedef struct damsim_whatif damsim_whatif;
typedef struct damsim_diag damsim_diag;

/* ---- library -------------------------------------------------------- */

/* The library's release, "0.1.0" (a static string), and as a number. */
DAMSIM_API const char *damsim_libversion(void);
DAMSIM_API int damsim_libversion_number(void);
/* A status code in words ("bad input"); a static string. */
DAMSIM_API const char *damsim_errstr(int status);
/* What happens when memory runs out (see Memory above); must not return.
 * Weak in the library: a program's own definition replaces it. */
DAMSIM_API void damsim_out_of_memory(size_t n);

/* ---- diagnostics ------------------------------------------------------ */

/* The messages of the last call on a handle (a view owned by it). NULL
 * handle: NULL, which the functions below read as "no messages". */
DAMSIM_API const damsim_diag *damsim_context_diag(const damsim_context *c);
DAMSIM_API const damsim_diag *damsim_scenario_diag(const damsim_scenario *s);
/* Number of messages, and of errors among them. */
DAMSIM_API size_t damsim_diag_count(const damsim_diag *d);
DAMSIM_API size_t damsim_diag_errors(const damsim_diag *d);
/* Message i, formatted "file:line: error: message" (or "warning");
 * NULL past the end. */
DAMSIM_API const char *damsim_diag_message(const damsim_diag *d, size_t i);
/* Its parts: the file ("" when none), the line (0 when unknown), the
 * message alone, 1 for an error and 0 for a warning. */
DAMSIM_API const char *damsim_diag_file(const damsim_diag *d, size_t i);
DAMSIM_API int damsim_diag_line(const damsim_diag *d, size_t i);
DAMSIM_API const char *damsim_diag_text(const damsim_diag *d, size_t i);
DAMSIM_API int damsim_diag_is_error(const damsim_diag *d, size_t i);

/* ---- context: the catalogs -------------------------------------------- */

/* A context holding the built-in GPU and model catalogs. NULL only when
 * memory runs out (which does not return). */
DAMSIM_API damsim_context *damsim_context_create(void);
/* Merge a catalog file into the context: kind "gpus" or "models"; from
 * path (text NULL) or from text (path names it in messages). An id
 * already there is replaced. DAMSIM_OK, DAMSIM_EINPUT (diagnostics on
 * the context; the catalog is unchanged) or DAMSIM_EMISUSE. */
DAMSIM_API int damsim_context_load_catalog(damsim_context *c,
                                           const char *kind,
                                           const char *path,
                                           const char *text);
DAMSIM_API void damsim_context_free(damsim_context *c);

/* ---- scenario --------------------------------------------------------- */

/* Load a scenario file into *out (a new handle). On DAMSIM_EINPUT *out is
 * still a handle, holding no scenario, whose diagnostics say why: read
 * them, then free it. DAMSIM_EMISUSE (NULL arguments) leaves *out NULL. */
DAMSIM_API int damsim_scenario_load(damsim_context *c, const char *path,
                                    damsim_scenario **out);
/* The same from text; name is the file name used in messages ("x.cfg";
 * NULL: "<string>"). An @include resolves from the current folder. */
DAMSIM_API int damsim_scenario_from_string(damsim_context *c,
                                           const char *text,
                                           const char *name,
                                           damsim_scenario **out);
/* A copy of s (its source, keys set and levers applied), or NULL when s
 * holds no scenario. */
DAMSIM_API damsim_scenario *damsim_scenario_clone(const damsim_scenario *s);
DAMSIM_API void damsim_scenario_free(damsim_scenario *s);

/* Set a key by its path in the scenario file ("machine.gpu",
 * "pipeline.loader_workers", "data.read_gbs") to value, written as in a
 * file or on damsim's command line ("H100-SXM5-80GB", "8", "0.5", "true").
 * The scenario is read again with the value in place, through the same
 * schema table and checks as a file (model/schema.c): an unknown key, a
 * wrong type, a value out of range or one that contradicts another key is
 * DAMSIM_EINPUT with the loader's message, and s is left as it was.
 * Levers applied earlier are applied again, in order, after the change. */
DAMSIM_API int damsim_scenario_set(damsim_scenario *s, const char *key,
                                   const char *value);
/* The value of a key now, written in the file's units (a number as "%.17g"
 * would print it, a choice as its word, a boolean as "true"/"false"):
 * into buf (n bytes, always terminated; truncated to fit). Keys the
 * schema stores are read from the scenario in effect (defaults, and
 * levers, included); others (a catalog id such as machine.gpu) as set or
 * written in the file. DAMSIM_OK, DAMSIM_ENOTFOUND (not a key, or one the
 * scenario does not give), DAMSIM_EMISUSE. */
DAMSIM_API int damsim_scenario_get(damsim_scenario *s, const char *key,
                                   char *buf, size_t n);
/* The same as a number (a key the schema stores as a number, an integer
 * or a boolean). */
DAMSIM_API int damsim_scenario_get_number(damsim_scenario *s,
                                          const char *key, double *out);
/* Apply a lever as damsim's --lever takes it ("gpu=H100-SXM5-80GB",
 * "loader_workers=16", "precision=bf16"): the scenario becomes the
 * scenario after the lever. DAMSIM_EINPUT with the reason when the lever
 * is unknown, its value wrong, or it does not apply to this scenario; s is
 * left as it was. */
DAMSIM_API int damsim_scenario_apply_lever(damsim_scenario *s,
                                           const char *lever);
/* The scenario's inputs as JSON (the "scenario" object of
 * `damsim run --json`), owned by s; NULL when s holds no scenario. */
DAMSIM_API const char *damsim_scenario_json(damsim_scenario *s);

/* ---- solving ---------------------------------------------------------- */

/* Solve s (DAMSIM_ANALYTIC or DAMSIM_SIMULATE) with seed (>= 0, or
 * DAMSIM_SEED_SCENARIO) into *out, a new result whose JSON is what
 * `damsim run [--analytic] [--seed N] --json` prints for the same
 * scenario. Serving scenarios are simulated as serving; training and
 * inference as training steps. DAMSIM_OK, DAMSIM_EINPUT (the scenario
 * cannot be solved: why in s's diagnostics), DAMSIM_ERUNTIME (the
 * simulation went over its work limits), DAMSIM_EMISUSE. *out is NULL
 * unless DAMSIM_OK. */
DAMSIM_API int damsim_solve(damsim_scenario *s, int method, long seed,
                            damsim_result **out);
/* The what-if of s: the baseline, each lever of the scenario file, each of
 * levers[0..nlevers) (as --lever takes them) alone, and their combination,
 * solved by method with seed: what `damsim whatif --json` prints.
 * Errors as damsim_solve; a lever that is wrong is DAMSIM_EINPUT. */
DAMSIM_API int damsim_whatif_run(damsim_scenario *s,
                                 const char *const *levers, int nlevers,
                                 int method, long seed, damsim_whatif **out);
/* The plan of a serving scenario: replicas per GPU kind for its SLO at its
 * rate (an LLM service: GPU, count and degree for its TTFT and TPOT
 * objectives), as `damsim plan --json` prints it. A training scenario is
 * DAMSIM_EINPUT (it needs a budget: damsim_plan_budget). */
DAMSIM_API int damsim_plan(damsim_scenario *s, long seed,
                           damsim_result **out);
/* The compute-optimal plan of a training scenario for a budget (unit
 * DAMSIM_BUDGET_*) within a deadline in seconds (0: 30 days), as
 * `damsim plan --budget B --deadline T --json` prints it. */
DAMSIM_API int damsim_plan_budget(damsim_scenario *s, int unit,
                                  double budget, double deadline_s,
                                  damsim_result **out);

/* ---- results ---------------------------------------------------------- */

/* The result as JSON (indent 2, key order kept, ending in a newline),
 * owned by r. */
DAMSIM_API const char *damsim_result_json(const damsim_result *r);
/* A number by its path in that JSON: object keys and array indices joined
 * by dots ("result.step_s", "result.cost.usd", "options.0.option").
 * DAMSIM_ENOTFOUND when there is no such path or it is not a finite
 * number (a boolean reads as 0 or 1). The number is the double computed;
 * the JSON text writes it to 10 significant digits. */
DAMSIM_API int damsim_result_number(const damsim_result *r, const char *path,
                                    double *out);
/* A string by its path (owned by r), or NULL. */
DAMSIM_API const char *damsim_result_string(const damsim_result *r,
                                            const char *path);
DAMSIM_API void damsim_result_free(damsim_result *r);

/* The what-if as JSON (owned by w). */
DAMSIM_API const char *damsim_whatif_json(const damsim_whatif *w);
/* Its rows (the baseline first, then each lever, the combination last). */
DAMSIM_API int damsim_whatif_count(const damsim_whatif *w);
/* The name of row i ("baseline", "gpu=H100-SXM5-80GB"), owned by w. */
DAMSIM_API const char *damsim_whatif_name(const damsim_whatif *w, int i);
/* A number of row i by its path in the row's JSON object ("speedup",
 * "step_s", "cost.usd"); as damsim_result_number. */
DAMSIM_API int damsim_whatif_number(const damsim_whatif *w, int i,
                                    const char *path, double *out);
DAMSIM_API void damsim_whatif_free(damsim_whatif *w);

#ifdef __cplusplus
}
#endif

#endif
