/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever.h: levers, the what-if moves, and the one table of lever types.
 *
 * A lever is a pure function from a scenario to a new scenario: the input
 * is never changed, the output is a copy with the lever's ops applied in
 * order and the lever's name appended to out->applied. Levers compose by
 * applying one after another, and order can matter (quantize to fp8 on an
 * A100 fails; swap to an H100 first and it works).
 *
 * The table. Every lever type is one entry of a const table
 * (dam_lever_type, as GSL's rng types are): its name, its keys with units
 * and ranges, the modes where it is valid, its apply function, the bounds
 * it relieves and the scenario states in which it can, its quality effect
 * with a source, and an example. The scenario-file loader, the
 * command-line parser, the diagnosis (which levers work where) and the help
 * text all read this table, so a lever and its keys are spelled in one
 * place, and adding a lever is one dam_lever_kind, its fields in
 * dam_lever_op (model/scenario.h), one entry and its apply function.
 *
 * Writing levers. In a scenario file a lever is a group in the `levers`
 * list with a `name`, and members that are either
 *   - a lever type with its main value:  quantize = "int8";  prune = "2:4";
 *   - a lever type with a group of keys: prefetch = { loader_workers = 16; };
 *   - a key of a lever type, alone:      gpus = 16;  accuracy_delta = -0.4;
 *     (it joins the lever's latest op of a type that has the key, or starts
 *     one when only one type has it).
 * On the command line, --lever KEY=VALUE[,KEY=VALUE...]: the first KEY is a
 * type (its main value) or a key of exactly one type; the rest are keys of
 * that type. The same words, units and ranges in both places.
 *
 * Effects (what each op moves, in the iron law
 *     T = D_vol/BW + O/(R_peak * eta) + L_lat
 * through fields of dam_scenario, so solvers need no knowledge of levers):
 *
 * gpu          machine.gpu := catalog entry (R_peak, HBM BW, memory, TDP).
 *              Price: the op's gpu_hour_usd, else the scenario's own price
 *              for that GPU (cost.gpu_hour_usd for the GPU it runs on, or
 *              the gpu_hour_usd a scenario lever gives that GPU), else the
 *              catalog's price_hour (0 when none is known: unknown), so the
 *              same lever costs the same wherever it is written. gpu_hour_usd
 *              alone re-prices the GPU the scenario runs on. Intra-node busbw
 *              scales with the NVLink ratio of new to old GPU; gpus_per_node
 *              / nodes / gpus scale out or in. eta follows the catalog (see
 *              apply); loader, storage, PCIe and inter-node fields are kept.
 *              A 2:4-sparse workload keeps its speed-up only where the new
 *              GPU has sparse tensor cores.
 * quantize     precision := fp16 | bf16 | fp8 | int8, never wider than the
 *              current format. Moves R_peak and D_vol; in inference and
 *              serving the weights are stored in the new format. INT8 is an
 *              inference format: in training it needs train_method and
 *              train_cost (quantization-aware training), and then the run
 *              computes at its training precision and grows by train_cost;
 *              FP8 training only where the GPU has FP8 peak.
 * precision    the compute format (mixed precision), fp32 .. fp8 in
 *              training, int8 as well in inference and serving: same
 *              mechanics as quantize, widening allowed.
 * prune        structured s in (0,1): O, D_vol, params and activations
 *              shrink by (1-s). unstructured s: weight bytes shrink only
 *              where a sparse format pays ((1-s)(b+2) < b). 2:4: R_peak of
 *              matmul phases doubles where the GPU has sparse tensor cores
 *              (an error elsewhere), weights shrink to 0.5 + 0.125/b; in
 *              training it needs train_method and train_cost (e.g. dense
 *              training, then 2:4 pruning and retraining), and training then
 *              runs dense (masked) for 1 + train_cost of the run: the sparse
 *              speed-up is the inference model's.
 * prefetch     loader_workers, prefetch_factor, pin_memory,
 *              overlap_transfer, overlap_sync, bucket_mb: overlap of Data
 *              with Machine (the sum-to-max move); only the keys given.
 * chinchilla   training, language models: at fixed C = 6 N D move to the
 *              fit's compute-optimal point or to D = r N (model/scaling.h);
 *              width and depth grow together. Loss moves by the fit's
 *              L(N', D') - L(N, D).
 * fuse         fraction f: elementwise act_bytes and launches *= (1 - f).
 * cuda_graphs  launch cost ~0 (L_lat).
 * data_format  sharded (shard_mb), decode_on_gpu (gpu_decode_ms): storage
 *              latency per shard; decode moves from CPU cores to the GPU
 *              and the copy carries the encoded bytes.
 * batch_size   per-GPU batch: O and D_vol per step, steps per epoch,
 *              activation memory; large-batch quality effects not modelled.
 * distill      a shallower student of `params` parameters: everything scales
 *              by student/teacher; quality from accuracy_delta, else unknown.
 * serving      replicas, max_batch, batch_timeout_ms, preprocess_workers.
 *
 * Quality: each op adds its accuracy_delta when given, else the type's
 * sourced default, else counts as unknown (quality.delta_unknown): a row
 * with an unknown quality effect is never called the best option.
 *
 * Errors are DAM_EINPUT with a message "lever 'NAME': ..." (with the
 * scenario file and the lever's line when it came from a file). An op that
 * sets nothing is an error (a lever that does nothing is a typo).
 *
 * What it does not know: time. A lever changes what the system is; the
 * solvers say what that does to the step.
 */
#ifndef DAM_LEVER_H
#define DAM_LEVER_H

#include <stddef.h>

#include "model/bound.h"
#include "model/catalog.h"
#include "model/error.h"
#include "model/scenario.h"

/* Default shard size when a data_format lever turns sharding on and
 * neither the lever nor the scenario gives one, bytes. */
#define DAM_LEVER_DEFAULT_SHARD_BYTES 1e9

/* The bit of mode m in a set of modes. */
#define DAM_MODE_BIT(m) (1u << (unsigned)(m))
#define DAM_MODES_ALL                                                      \
    (DAM_MODE_BIT(DAM_MODE_TRAINING) | DAM_MODE_BIT(DAM_MODE_INFERENCE) |  \
     DAM_MODE_BIT(DAM_MODE_SERVING))

/* How a key's value is written and stored. */
typedef enum {
    DAM_LKEY_INT = 0, /* a whole number, stored in an int field */
    DAM_LKEY_NUM,     /* a number, stored as a double times scale (SI) */
    DAM_LKEY_BOOL,    /* true/false (1/0, yes/no, on/off), in an int field */
    DAM_LKEY_CHOICE,  /* one of choices[], its index stored in an int field */
    DAM_LKEY_TEXT     /* a string (a GPU id, a method), in a char array */
} dam_lever_key_type;

/* One key of a lever type. */
typedef struct dam_lever_key {
    const char *name;            /* as written: "bucket_mb" */
    const char *alias;           /* an older spelling also accepted, or NULL */
    dam_lever_key_type type;
    const char *unit;            /* unit as written ("MB", "ms"), "" for none */
    double scale;                /* SI per written unit (1e6 for MB) */
    double lo, hi;               /* allowed range, written units (INT, NUM) */
    int lo_open, hi_open;        /* 1: that bound itself is excluded */
    size_t offset;               /* of its field in dam_lever_op */
    size_t size;                 /* TEXT: size of the char array, bytes */
    const char *const *choices;  /* CHOICE: NULL-terminated names */
    const char *help;            /* what it sets, one phrase */
    const char *scenario;        /* the scenario key it sets ("parallel.tp"),
                                  * whose row in model/schema.c gives its
                                  * range, or NULL: lo and hi above */
} dam_lever_key;

/* Context of an op being applied (for error messages). */
typedef struct dam_lever_ctx {
    const dam_lever *lever;      /* the lever (for its name) */
    const char *file;            /* scenario file, "" for command-line levers */
    int line;                    /* lever's line, 0 when unknown */
    dam_error *err;              /* caller's error, may be NULL */
} dam_lever_ctx;

/* Apply one op to s in place; DAM_OK or DAM_EINPUT (err via ctx). */
typedef int (*dam_lever_apply_fn)(const dam_lever_ctx *c,
                                  const dam_lever_op *op,
                                  const dam_catalog *cat, dam_scenario *s);

/* Could a lever of this type, in scenario s, move bound b? (refines
 * relieves by the scenario's state: pinning already on, no narrower
 * precision on this GPU...). 1 yes, 0 no. */
typedef int (*dam_lever_can_fn)(const dam_scenario *s, dam_bound b);

/* Parse the main value of a type written as text ("2:4", "optimal"). 0 on
 * success; -1 with the reason in why. */
typedef int (*dam_lever_main_fn)(const char *text, dam_lever_op *op,
                                 char *why, size_t n);

/* One lever type: the entry of the table. */
typedef struct dam_lever_type {
    dam_lever_kind kind;         /* equals its index in the table */
    const char *name;            /* "prefetch" */
    const char *summary;         /* what it changes, one line */
    const dam_lever_key *keys;   /* its keys */
    size_t nkeys;
    int main_key;                /* key set by "type = value", -1: none */
    dam_lever_main_fn parse_main;/* special syntax of the main value, or NULL */
    unsigned modes;              /* DAM_MODE_BIT set where it is valid */
    const char *valid;           /* further limits (devices, training), prose */
    dam_lever_apply_fn apply;
    unsigned relieves;           /* DAM_BOUND_BIT set of bounds it can move */
    unsigned depends;            /* bounds where it depends on its settings */
    dam_lever_can_fn can;        /* refines relieves for a scenario, or NULL */
    const char *moves;           /* how it relieves them, one phrase */
    int quality_lever;           /* 1: judged on quality at equal compute */
    const char *quality;         /* its quality effect and source, one line */
    const char *example;         /* a command-line example */
} dam_lever_type;

/* The table, indexed by dam_lever_kind (DAM_LEVER_KIND_COUNT entries). */
const dam_lever_type *dam_lever_type_get(dam_lever_kind k);
/* The type named name (case-sensitive), or NULL. */
const dam_lever_type *dam_lever_type_find(const char *name);
/* The values key k accepts, in its written unit: its scenario key's range
 * (schema.h dam_key_bounds) when it sets one, else its own lo and hi. */
void dam_lever_key_bounds(const dam_lever_key *k, double *lo, double *hi,
                          int *lo_open, int *hi_open);
/* The key of t named name (or its alias), or NULL. */
const dam_lever_key *dam_lever_key_find(const dam_lever_type *t,
                                        const char *name);
/* The types with a key named name, written to out (up to max); returns how
 * many there are. */
int dam_lever_key_owners(const char *name, const dam_lever_type **out,
                         int max);
/* "did you mean" for an unknown lever member (types and keys), or NULL. */
const char *dam_lever_suggest(const char *name);
/* "did you mean" among the keys of t, or NULL. */
const char *dam_lever_suggest_key(const dam_lever_type *t, const char *name);
/* Is a lever of type t valid in scenario s (mode)? 1 yes; 0 with the
 * reason in why. */
int dam_lever_valid_mode(const dam_lever_type *t, const dam_scenario *s,
                         char *why, size_t n);
/* Could a lever of type t move bound b in scenario s? 1 works, 0 wasted,
 * -1 it depends on the lever's settings (relieves, depends and can). */
int dam_lever_can_move(const dam_lever_type *t, const dam_scenario *s,
                       dam_bound b);

/* A value as a scenario file types it. */
typedef struct dam_lever_value {
    enum { DAM_LVAL_NUM, DAM_LVAL_BOOL, DAM_LVAL_TEXT } is;
    double num;                  /* DAM_LVAL_NUM */
    int integral;                /* DAM_LVAL_NUM: 1 when written as an integer */
    int boolean;                 /* DAM_LVAL_BOOL */
    const char *text;            /* DAM_LVAL_TEXT */
} dam_lever_value;

/* Initialise op as an op of type t with every field unset. */
void dam_lever_op_start(dam_lever_op *op, const dam_lever_type *t);
/* Set key k of t on op from a typed value (scenario files). 0 on success;
 * -1 with the reason in why ("must be >= 1 (got 0)"). */
int dam_lever_set_value(dam_lever_op *op, const dam_lever_type *t,
                        const dam_lever_key *k, const dam_lever_value *v,
                        char *why, size_t n);
/* Same from text (the command line): numbers as C numbers (1e9). */
int dam_lever_set_text(dam_lever_op *op, const dam_lever_type *t,
                       const dam_lever_key *k, const char *text, char *why,
                       size_t n);
/* Set t's main value from text ("int8", "2:4", "optimal"); -1 with why,
 * also when t has no main value. */
int dam_lever_set_main(dam_lever_op *op, const dam_lever_type *t,
                       const char *text, char *why, size_t n);
/* 1 when key k of t was set on op. */
int dam_lever_key_is_set(const dam_lever_op *op, const dam_lever_type *t,
                         const dam_lever_key *k);

/* Check what a lever names against the catalog before anything runs: GPU
 * ids exist (with "did you mean"). DAM_OK or DAM_EINPUT with err filled
 * (file and line from the lever when it came from a file). */
int dam_lever_check(const dam_lever *lever, const char *file,
                    const dam_catalog *cat, dam_error *err);

/* The price per GPU-hour, USD, of GPU id in scenario s as the gpu lever
 * sets it: the scenario's own for that GPU (its price for its own GPU, or
 * one of its levers' prices for that GPU), else the catalog's (gpu, the
 * entry of id; may be NULL), else 0 (unknown): never another GPU's. */
double dam_lever_gpu_price(const dam_scenario *s, const char *id,
                           const dam_gpu *gpu);

/* The one price rule, USD per GPU-hour, for GPU g in scenario s (every
 * path that prices a GPU calls it: run, whatif, compare, plan in all modes,
 * sweep): for the GPU s runs on, the price s has for it now when it has
 * one (cost.gpu_hour_usd > 0: the loader and the gpu lever set it by the
 * rule below, a gpu_hour_usd lever may move it); else (and for any other
 * GPU) the scenario's own price for that GPU (dam_lever_gpu_price), else
 * the catalog's, else 0 (no cost): never another GPU's price. */
double dam_gpu_price(const dam_scenario *s, const dam_gpu *g);

/* Apply lever's ops in order to a copy of in, written to out (out may be
 * in). cat resolves gpu ids (may be NULL when no op swaps a GPU). Returns
 * DAM_OK, or DAM_EINPUT with err filled; on error *out is not touched. */
int dam_lever_apply(const dam_scenario *in, const dam_lever *lever,
                    const dam_catalog *cat, dam_scenario *out,
                    dam_error *err);

/* Apply n levers in order (levers[0] first). Same contract as
 * dam_lever_apply; the error names the lever that failed. */
int dam_levers_apply_all(const dam_scenario *in, const dam_lever *levers,
                         int n, const dam_catalog *cat, dam_scenario *out,
                         dam_error *err);

/* Parse one command-line lever "KEY=VALUE[,KEY=VALUE...]" into a lever of
 * one op, named after the string (see above; the keys are the table's, so
 * `damsim whatif --help` lists them). B values are 1/0, true/false, yes/no
 * or on/off; numbers are C numbers (1e9). Returns DAM_OK, or DAM_EINPUT
 * with a message naming the key and value (and "did you mean" for a
 * near-miss key or value). */
int dam_lever_parse_kv(const char *kv, dam_lever *lever, dam_error *err);

/* Give the error of a command-line lever its location: e->file becomes
 * "OPTION KV" (e.g. "--vary gpu=NOPE", line 0) and the message's leading
 * "lever '...': " is dropped, the location naming the lever, so that it
 * prints as "--vary gpu=NOPE: error: unknown gpu 'NOPE' ...". */
void dam_lever_error_at(dam_error *e, const char *option, const char *kv);

/* The lever reference from the table, as text (for --help) or as the
 * Markdown table of scenarios/README.md (markdown = 1), into buf (n
 * bytes, truncated to fit). Returns the length it needed. */
size_t dam_lever_help(char *buf, size_t n, int markdown);

/* Record what lever lv states about prices (a GPU with its gpu_hour_usd)
 * and quality (an accuracy_delta for a quantize, precision, prune or
 * distill change) in a, the scenario's assumptions (the loader calls it for
 * each lever of a file; at most DAM_MAX_ASSUMED of each are kept). */
void dam_assumptions_add(dam_assumptions *a, const dam_lever *lv);

/* Bytes of the weights held on one GPU: params * element bytes *
 * weight_scale, the element bytes being workload.master_bytes when > 0, else
 * the compute precision's. */
double dam_lever_weight_bytes(const dam_scenario *s);

/* HBM activation bytes per sample of one forward pass: the phases'
 * act_bytes * bytes(precision) / 2 * bytes_scale. */
double dam_lever_act_bytes(const dam_scenario *s);

/* Default quality change of moving to precision p when no accuracy_delta is
 * given (quantize semantics above): returns 1 and sets *delta (metric units)
 * and *source (a static string) when damsim has a sourced default for the
 * scenario's metric, 0 when the change is unknown. */
int dam_lever_quantize_default(const dam_scenario *s, dam_precision p,
                               double *delta, const char **source);

#endif
