/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * schema.h: the scenario file's keys as data.
 *
 * One descriptor (dam_key_row) per key of a scenario group: its name, how it is
 * written (type, unit and the scale to SI), its range, its default, whether
 * it is required, where it is stored (an offset into dam_scenario), a
 * one-line help and the source of its default or range. One table
 * (dam_key_group) per group of the file ("machine.host", "data", ...).
 * Redis's config table (one row serves load, CONFIG SET, GET and REWRITE)
 * and SQLite's pragma table are the models: the same row is read by
 *   - the loader (model/loader*.c, through the walker dam_load_group in
 *     model/load.h): type check, range check, scale, store, "unknown key
 *     (did you mean ...)" from the group's rows;
 *   - the lever table (model/lever.c, the types in model/lever_*.c): a
 *     lever key that sets a scenario key takes that key's range from here
 *     (dam_key_bounds), so a lever, a sweep and a file accept the same
 *     values;
 *   - the documentation tests (tests/unit/test_schema.c): every row is in
 *     scenarios/README.md and in damsim-scenario(5), with its range.
 * What a table cannot say stays in the loader's code: checks between keys
 * (workers against cores, tp within a node), catalog-or-inline entries
 * (machine.gpu, workload.model), defaults that follow other keys
 * (llm.weights from workload.precision), files named by a key (traces,
 * decode samples) and includes.
 *
 * Adding a scenario key (one table row):
 *   1. the field in dam_scenario (model/scenario.h), if it is new;
 *   2. one row in its group's table in model/schema.c, at the place where
 *      it should be read (rows are read in order; errors come out in that
 *      order; "did you mean" prefers earlier rows), for instance (an
 *      illustration, not a key damsim has):
 *          {"kv_offload_gib", DAM_KEY_NUM, AT(serving.llm.offload_bytes),
 *           .unit = "GiB", .scale = GiB, .cls = DAM_KEY_NONNEG, .lo = 0,
 *           .hi = 1e4, .flags = DAM_KEY_LIMIT, .def = 0, .help = "host
 *           memory for offloaded KV blocks", .source = "vLLM 0.6 default"},
 *      A choice names its words (.choices, NULL-terminated; the index is
 *      stored in an int or enum field); a string gives .size; a required key
 *      sets DAM_KEY_REQUIRED; a default other than zero sets DAM_KEY_DEFAULT
 *      and .def (in the key's own unit: it is stored as def * scale before
 *      the file is read);
 *   3. its line in scenarios/README.md and cli/damsim-scenario.5 (the unit
 *      test test_schema fails until both name it, with its range);
 *   4. if a lever sets it too, the lever key names the row
 *      (SINT/SNUM/SBOOL/SCHOICE, model/lever_impl.h, in its family's
 *      model/lever_*.c) and takes its range.
 * Where a plain row is read: by dam_load_group for most groups; in
 * workload by the walk after memory_format (model/loader_groups.c); in
 * llm and llm.disaggregate by dam_load_rows after the group's defaults
 * (model/loader_serving.c). `damsim catalog keys` prints the table.
 * That is all for a key the solvers read from its field. Only a key that
 * needs code when read (a check against another key, a file) sets
 * DAM_KEY_CUSTOM: the walker then calls the group's hook in the loader at
 * that row, and the hook reads it with dam_load_key (same type, range and
 * scale from the row). A new group is one more table in
 * dam_schema_groups[] and a dam_load_group call where the loader reads it.
 */
#ifndef DAM_SCHEMA_H
#define DAM_SCHEMA_H

#include <stddef.h>

/* How a key's value is written and stored. */
typedef enum {
    DAM_KEY_INT = 0, /* a whole number in [lo, hi], stored in an int */
    DAM_KEY_NUM,     /* a number (or a distribution), stored as a double
                      * times scale (SI) */
    DAM_KEY_BOOL,    /* true or false, stored in an int */
    DAM_KEY_CHOICE,  /* one of choices[] (any case), its index in an int */
    DAM_KEY_TEXT,    /* a string of at most size - 1 bytes, in a char array */
    DAM_KEY_GROUP    /* a group of its own (read by the loader's code) */
} dam_key_type;

/* The range class of a number, besides its limits lo and hi. */
typedef enum {
    DAM_KEY_ANY = 0, /* any finite value */
    DAM_KEY_POS,     /* > 0 */
    DAM_KEY_NONNEG,  /* >= 0 */
    DAM_KEY_UNIT,    /* (0, 1] */
    DAM_KEY_FRAC,    /* [0, 1) */
    DAM_KEY_GE1      /* >= 1 */
} dam_key_class;

/* Flags of a key. */
#define DAM_KEY_REQUIRED 1u /* the group must give it */
#define DAM_KEY_LIMIT 2u    /* NUM: lo and hi bound it (written units) */
#define DAM_KEY_DEFAULT 4u  /* def is stored before the file is read */
#define DAM_KEY_CUSTOM 8u   /* read by the loader's hook at this row */
#define DAM_KEY_SCALAR 16u  /* NUM: a plain number, never a distribution */

/* No field: a key the loader's hook stores (offset of a custom row). */
#define DAM_KEY_NOWHERE ((size_t)-1)

/* One key of a group. */
typedef struct dam_key_row {
    const char *name;           /* as written: "pcie_gbs" */
    dam_key_type type;
    size_t offset;              /* of its field in dam_scenario, or
                                 * DAM_KEY_NOWHERE */
    const char *unit;           /* unit as written ("GB/s"), NULL: none */
    double scale;               /* NUM: SI per written unit (0 reads as 1) */
    dam_key_class cls;          /* NUM: range class */
    double lo, hi;              /* INT: bounds; NUM with DAM_KEY_LIMIT:
                                 * inclusive limits, written units */
    unsigned flags;             /* DAM_KEY_* */
    size_t size;                /* TEXT: bytes of the char array */
    const char *const *choices; /* CHOICE: NULL-terminated words */
    double def;                 /* with DAM_KEY_DEFAULT, written units */
    const char *help;           /* what it sets, one line */
    const char *source;         /* where its default or range comes from,
                                 * or NULL */
} dam_key_row;

/* One group of the scenario file: its path and its keys, in reading order. */
typedef struct dam_key_group {
    const char *path;           /* "machine.host" */
    const dam_key_row *keys;
    size_t nkeys;
} dam_key_group;

/* The groups, in file order; NULL past the last. */
const dam_key_group *dam_schema_group_at(int i);
/* The group of path ("data", "machine.network"), or NULL. */
const dam_key_group *dam_schema_group(const char *path);
/* The key of a full path ("machine.host.pcie_gbs"), or NULL. */
const dam_key_row *dam_schema_key(const char *path);
/* The row of name in g, or NULL. */
const dam_key_row *dam_key_find(const dam_key_group *g, const char *name);

/* The values key k accepts, in its written unit: [lo, hi] with lo_open or
 * hi_open set when that bound itself is excluded (a range class "> 0" is
 * lo = 0, lo_open = 1). Every key has a finite or infinite bound on each
 * side; TEXT, CHOICE and GROUP keys give (-inf, inf). */
void dam_key_bounds(const dam_key_row *k, double *lo, double *hi, int *lo_open,
                    int *hi_open);
/* 1 when v (written units) is inside dam_key_bounds. */
int dam_key_accepts(const dam_key_row *k, double v);
/* The range of k as the documentation words it ("1 to 4096",
 * "0.001 to 10000", "> 0", "(0, 1]", "any") into buf. */
void dam_key_range_text(const dam_key_row *k, char *buf, size_t n);

/* The words of a choice key, for "must be one of" and the docs. */
extern const char *const dam_dist_names[];
/* The precisions' words, in dam_precision order (catalog.h). */
extern const char *const dam_key_precisions[];

/* A boolean written as a word (true/false, 1/0, yes/no, on/off, any
 * case), as the command line gives one (levers, sweep values): 1 with *out
 * set, 0 when v is none of them. */
int dam_key_parse_bool(const char *v, int *out);

/* Store every row's default (DAM_KEY_DEFAULT) into scenario s, a
 * dam_scenario seen as bytes (the loader calls it before reading). */
void dam_schema_defaults(void *s);

/* The key reference from the table as Markdown (one table per group:
 * key, type and range, default, help), into buf (n bytes, truncated to
 * fit). Returns the length it needed. */
size_t dam_schema_doc(char *buf, size_t n);

#endif
