/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * load.h: what the loader's files share (model/loader*.c); not a public
 * interface.
 *
 * One reading context (dam_ld) and the readers of one value: each checks
 * the type and the range, converts to SI, and reports a problem as
 * "file:line: error: ..." into the dam_diag, then goes on, so that one run
 * shows every problem of a file. dam_load_group walks a group's table
 * (model/schema.h): unknown keys with "did you mean" from its rows, then
 * every row in order.
 */
#ifndef DAM_LOAD_H
#define DAM_LOAD_H

#include <libconfig.h>
#include <stdint.h>

#include "model/device.h"
#include "model/error.h"
#include "model/lever.h"
#include "model/scenario.h"
#include "model/schema.h"

#define GB 1e9
#define GiB 1073741824.0
#define GIB 1073741824.0
#define MB 1e6
#define MS 1e-3
#define US 1e-6
#define TFLOPS 1e12

/* Range classes for numbers (schema.h's, under the loader's short names). */
typedef dam_key_class range;
#define R_ANY DAM_KEY_ANY
#define R_POS DAM_KEY_POS
#define R_NONNEG DAM_KEY_NONNEG
#define R_UNIT DAM_KEY_UNIT
#define R_FRAC DAM_KEY_FRAC
#define R_GE1 DAM_KEY_GE1

typedef struct ld {
    dam_diag *d;      /* where problems go */
    const char *file; /* file name for messages */
    dam_scenario *scen; /* the scenario being read (NULL for catalogs): its
                         * doubles may be given as distributions */
    int before;       /* errors in d when the file was opened */
    char dir[4096];   /* the file's folder (@include resolves there) */
} ld;

int dam_ld_line(const config_setting_t *s);
/* The file setting s was read from: an @include'd file's own name, else
 * the file being loaded. */
const char *dam_ld_file(const ld *L, const config_setting_t *s);
/* "file, line" of setting s, for dam_diag_error and dam_diag_warn. */
#define AT(s) dam_ld_file(L, (s)), dam_ld_line(s)
#define line_of dam_ld_line
#define file_of dam_ld_file

/* "machine.host" + "." + "pcie_gbs" into buf. */
void dam_ld_path_join(char *buf, size_t n, const char *where, const char *key);
#define path_join dam_ld_path_join

/* "an integer", "a group", ... for "must be X, got Y". */
const char *dam_ld_type_name(const config_setting_t *s);
#define type_name dam_ld_type_name

/* Report keys of group g not in allowed (NULL-terminated), with the one
 * "did you mean" rule (model/suggest.h). */
void dam_ld_check_keys(ld *L, const config_setting_t *g,
                       const char *const *allowed, const char *where);
#define check_keys dam_ld_check_keys
/* The member key of g; reports a missing required key at g's line. */
config_setting_t *dam_ld_member(ld *L, const config_setting_t *g,
                                const char *key, const char *where,
                                int required);
#define member dam_ld_member
/* A group member (or NULL); reports a wrong type. */
config_setting_t *dam_ld_group(ld *L, const config_setting_t *g,
                               const char *key, const char *where,
                               int required);
#define group dam_ld_group

/* Element i of a list, which must be a group (reported when not); its
 * name "where[i]" goes to name. */
config_setting_t *dam_ld_list_group(ld *L, const config_setting_t *list,
                                    int i, const char *where, char *name,
                                    size_t n);
#define list_group dam_ld_list_group
/* An optional group member key of g (a wrong type reported); its path
 * "where.key" goes to path. */
config_setting_t *dam_ld_subgroup(ld *L, const config_setting_t *g,
                                  const char *key, const char *where,
                                  char *path, size_t n);
#define subgroup dam_ld_subgroup
/* Read a file (or text) into cfg and start L on it (scen: the scenario
 * being read, or NULL); its root, or NULL when it cannot be read (the
 * problem is in d). L must outlive cfg (it holds the include folder). */
const config_setting_t *dam_ld_begin(ld *L, config_t *cfg, const char *path,
                                     const char *text, dam_diag *d,
                                     dam_scenario *scen);

/* The readers: 1 with *out set when the key is there and right; 0 when it
 * is absent (an error when required) or wrong (an error). */
int dam_ld_num(ld *L, const config_setting_t *g, const char *key,
               const char *where, int required, range r, double scale,
               double *out);
int dam_ld_int(ld *L, const config_setting_t *g, const char *key,
               const char *where, int required, long lo, long hi, int *out);
int dam_ld_bool(ld *L, const config_setting_t *g, const char *key,
                const char *where, int required, int *out);
int dam_ld_str(ld *L, const config_setting_t *g, const char *key,
               const char *where, int required, char *out, size_t n);
/* A string that must be one of names (NULL-terminated); *out = its index. */
int dam_ld_choice(ld *L, const config_setting_t *g, const char *key,
                  const char *where, int required, const char *const *names,
                  int *out);
#define get_num dam_ld_num
#define get_int dam_ld_int
#define get_bool dam_ld_bool
#define get_str dam_ld_str
#define get_choice dam_ld_choice

/* Read row k of group g (path where) into out, the row's field or another
 * of the row's type (int, double or char[k->size]); required as the row
 * says when required < 0, else as given. 1 when read. */
int dam_load_key(ld *L, const config_setting_t *g, const char *where,
                 const dam_key_row *k, int required, void *out);

/* dam_load_key for the row called name of t (0 when t has none). */
int dam_load_named(ld *L, const config_setting_t *g, const dam_key_group *t,
                   const char *name, int required, void *out);

/* The loader's code for a DAM_KEY_CUSTOM row k of group g. */
typedef void (*dam_load_hook)(ld *L, const config_setting_t *g,
                              const dam_key_row *k, void *ctx);

/* Report the members of g that are not rows of t ("did you mean"). */
void dam_load_check(ld *L, const config_setting_t *g, const dam_key_group *t);
/* Read the rows of t from g in order: a custom row through
 * hook(L, g, row, ctx) (nothing when hook is NULL), any other into its
 * field of L->scen. Returns the rows given, bit i for row i (the first
 * 64; a custom row's bit: it is present). */
uint64_t dam_load_rows(ld *L, const config_setting_t *g,
                       const dam_key_group *t, dam_load_hook hook, void *ctx);
/*
 * Walk table t over group g: unknown keys first (with "did you mean"),
 * then each row in order: a custom row through hook(L, g, row, ctx), any
 * other into its field of L->scen. Returns the rows read, bit i for row i
 * (the first 64).
 */
uint64_t dam_load_group(ld *L, const config_setting_t *g,
                        const dam_key_group *t, dam_load_hook hook, void *ctx);

/* Bit of row name of t in a dam_load_group mask (0 when no such row). */
uint64_t dam_load_bit(const dam_key_group *t, const char *name);

/* ---- between the loader's files (model/loader*.c) ------------------------ */

#define prec_names dam_key_precisions

/* The groups of the file (model/schema.c). */
#define TABLE(path) dam_schema_group(path)

/* What the hooks of the walker need besides the scenario (L->scen). */
typedef struct hook_ctx {
    const config_setting_t *root; /* the file */
    const dam_catalog *cat;       /* ids resolve here */
    int gb;                       /* parallel.global_batch as read */
    int have_dp;                  /* parallel.dp was given */
} hook_ctx;

/* The steps of dam_scenario_load_with, in its order (each reads one part
 * of the file into L->scen), and what the loader's files share. */
/* A device or framework constant pi of group g into v and its sd. */
void dam_ld_param_value(ld *L, const config_setting_t *g, const char *w,
                        const dam_param_info *pi, double *v, double *sd);
#define param_value dam_ld_param_value
/* A GPU entry (catalog or inline) into g. */
void dam_ld_parse_gpu(ld *L, const config_setting_t *gs, dam_gpu *g,
                      const char *where, int catalog, int have_base);
#define parse_gpu dam_ld_parse_gpu
/* A model entry (catalog or inline) into m. */
void dam_ld_parse_model(ld *L, const config_setting_t *ms, dam_model_spec *m,
                        const char *where, int catalog, int have_base);
#define parse_model dam_ld_parse_model
/* Read a libconfig file or text into cfg (@include from its folder). */
int dam_ld_read_config(config_t *cfg, const char *path, const char *text,
                       char *dir, size_t ndir, dam_diag *d);
#define read_config dam_ld_read_config
/* dam_ld_read_config for a caller that reports nothing itself: 1 when
 * read. */
int dam_ld_read_config_quietly(config_t *cfg, const char *path,
                               const char *text, char *dir, size_t ndir);
/* What a scenario gets when it says nothing. */
void dam_ld_defaults(dam_scenario *s);
#define defaults dam_ld_defaults
/* The parts of a scenario, in dam_scenario_load_with's order. Catalogs
 * named by the file (merged into cat): */
void dam_ld_load_catalogs(ld *L, const config_setting_t *root,
                          dam_catalog *cat);
#define load_catalogs dam_ld_load_catalogs
/* The machine: GPU entry, host, storage, network (and its defaults). */
void dam_ld_load_machine(ld *L, const config_setting_t *root,
                         const dam_catalog *cat, dam_scenario *s);
#define load_machine dam_ld_load_machine
/* The workload: model entry, precision, batch, framework; its graph. */
void dam_ld_load_workload(ld *L, const config_setting_t *root,
                          const dam_catalog *cat, dam_scenario *s);
#define load_workload dam_ld_load_workload
/* The input data (decode samples file included), required in batch modes. */
void dam_ld_load_data(ld *L, const config_setting_t *root, dam_scenario *s,
                      int required);
#define load_data dam_ld_load_data
/* The input pipeline, required in batch modes. */
void dam_ld_load_pipeline(ld *L, const config_setting_t *root, dam_scenario *s,
                          int required);
#define load_pipeline dam_ld_load_pipeline
/* A parallel layout and the rules of dam_layout_check. */
void dam_ld_load_parallel(ld *L, const config_setting_t *root,
                          dam_scenario *s);
#define load_parallel dam_ld_load_parallel
/* The serving group (serving mode). */
void dam_ld_load_serving(ld *L, const config_setting_t *root, dam_scenario *s);
#define load_serving dam_ld_load_serving
/* The llm group (LLM serving; a speculative draft from cat). */
void dam_ld_load_llm(ld *L, const config_setting_t *root,
                     const dam_catalog *cat, dam_scenario *s);
#define load_llm dam_ld_load_llm
/* Quality (default: the model's) and cost (default: the GPU's price). */
void dam_ld_load_quality_cost(ld *L, const config_setting_t *root,
                              dam_scenario *s);
#define load_quality_cost dam_ld_load_quality_cost
/* The file's levers into out, each checked against the lever table. */
void dam_ld_load_levers(ld *L, const config_setting_t *root,
                        const dam_catalog *cat, dam_scenario *s,
                        dam_lever_list *out);
#define load_levers dam_ld_load_levers

#endif
