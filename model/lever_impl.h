/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lever_impl.h: what the lever files share, below the public lever.h: the
 * apply context and its error, the helpers more than one family uses
 * (lever_common.c), the macros that spell a key of the table, and the
 * types each family file defines (lever.c lists them in the table, as
 * GSL's rng types are listed). Not for use outside model/lever*.c.
 */
#ifndef DAM_LEVER_IMPL_H
#define DAM_LEVER_IMPL_H

#include <math.h>
#include <stddef.h>

#include "model/lever.h"

typedef dam_lever_ctx ctx;

/* "lever 'NAME': ..." into the context's error; DAM_EINPUT. */
int dam_lever_fail(const ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Precision p is not supported by g: the error names the ones it has. */
int dam_lever_unsupported(const ctx *c, dam_precision p, const dam_gpu *g);
/* The op's quality change (given, the scenario's own, the default, or
 * unknown; lever_common.c). */
void dam_lever_add_delta(dam_scenario *s, const dam_lever_op *op,
                      int have_default, double def);
/* A number in main-value syntax; 0, or -1 when it is not one. */
int dam_lever_parse_num(const char *s, double *out);
/* Bytes per weight element as stored. */
double dam_lever_weight_elem_bytes(const dam_workload *w);
/* The LLM levers' checks of the scenario they leave (lever_llm.c). */
int dam_lever_llm_check(const ctx *c, dam_scenario *s);


#define OFF(f) offsetof(dam_lever_op, f)
#define INF HUGE_VAL
/* name, alias, type, unit, scale, lo, hi, lo_open, hi_open, offset, size,
 * choices, help, scenario */
#define KINT(name, f, lo, help) \
    {name, NULL, DAM_LKEY_INT, "", 1.0, lo, INF, 0, 1, OFF(f), 0, NULL, help, \
     NULL}
/* A count with the upper bound of its scenario key (scenario.h, issue 11). */
#define KINTR(name, f, lo, hi, help) \
    {name, NULL, DAM_LKEY_INT, "", 1.0, lo, hi, 0, 0, OFF(f), 0, NULL, help, \
     NULL}
#define KNUM(name, f, unit, scale, lo, hi, lo_open, hi_open, help) \
    {name, NULL, DAM_LKEY_NUM, unit, scale, lo, hi, lo_open, hi_open, OFF(f), \
     0, NULL, help, NULL}
#define KBOOL(name, f, help) \
    {name, NULL, DAM_LKEY_BOOL, "", 1.0, 0, 1, 0, 0, OFF(f), 0, NULL, help, \
     NULL}
#define KCHOICE(name, f, choices, help) \
    {name, NULL, DAM_LKEY_CHOICE, "", 1.0, 0, 0, 0, 0, OFF(f), 0, choices, help, \
     NULL}
#define KTEXT(name, f, help) \
    {name, NULL, DAM_LKEY_TEXT, "", 1.0, 0, 0, 0, 0, OFF(f), \
     sizeof(((dam_lever_op *)0)->f), NULL, help, NULL}
/* A key that sets a scenario key: its range is that key's row in
 * model/schema.c (dam_lever_key_bounds), so a lever, a sweep and a file
 * accept the same values; tests/unit/test_schema.c checks the unit, the
 * scale, the type and the choices against the row. */
#define SINT(name, f, path, help) \
    {name, NULL, DAM_LKEY_INT, "", 1.0, 0, 0, 0, 0, OFF(f), 0, NULL, help, \
     path}
#define SNUM(name, f, unit, scale, path, help) \
    {name, NULL, DAM_LKEY_NUM, unit, scale, 0, 0, 0, 0, OFF(f), 0, NULL, help, \
     path}
#define SBOOL(name, f, path, help) \
    {name, NULL, DAM_LKEY_BOOL, "", 1.0, 0, 1, 0, 0, OFF(f), 0, NULL, help, \
     path}
#define SCHOICE(name, f, choices, path, help) \
    {name, NULL, DAM_LKEY_CHOICE, "", 1.0, 0, 0, 0, 0, OFF(f), 0, choices, \
     help, path}
#define KDELTA \
    {"accuracy_delta", "delta", DAM_LKEY_NUM, "metric units", 1.0, -INF, INF, \
     1, 1, OFF(accuracy_delta), 0, NULL, \
     "quality change it causes (else the scenario's own, else the default)", \
     NULL}
#define KMETHOD \
    KTEXT("train_method", train_method, \
          "training: the method that makes the format trainable")
#define KCOST \
    KNUM("train_cost", train_cost, "fraction of the run", 1.0, 0, INF, 0, 1, \
         "training: the extra training the method costs")

#define KEYS(a) a, sizeof a / sizeof a[0]
#define B(x) DAM_BOUND_BIT(DAM_BOUND_##x)
#define M(x) DAM_MODE_BIT(DAM_MODE_##x)
#define BATCH_MODES (M(TRAINING) | M(INFERENCE))
#define QUALITY_FLOAT                                                      \
    "fp16/bf16 0 (Micikevicius et al. 2018), fp8 0 (Micikevicius et al. "  \
    "2022), int8 -0.5 points on a % metric (half the 1 % bound of Wu et "   \
    "al. 2020), else unknown"

/* The lever types, by family: the data path (lever_data.c), the model and
 * its kernels (lever_algorithm.c), the machine and the layout
 * (lever_machine.c), LLM serving (lever_llm.c). */
extern const dam_lever_type dam_lever_gpu_type;
extern const dam_lever_type dam_lever_quantize_type;
extern const dam_lever_type dam_lever_prune_type;
extern const dam_lever_type dam_lever_prefetch_type;
extern const dam_lever_type dam_lever_chinchilla_type;
extern const dam_lever_type dam_lever_precision_type;
extern const dam_lever_type dam_lever_fuse_type;
extern const dam_lever_type dam_lever_cuda_graphs_type;
extern const dam_lever_type dam_lever_data_format_type;
extern const dam_lever_type dam_lever_batch_size_type;
extern const dam_lever_type dam_lever_distill_type;
extern const dam_lever_type dam_lever_serving_type;
extern const dam_lever_type dam_lever_layout_type;
extern const dam_lever_type dam_lever_network_type;
extern const dam_lever_type dam_lever_weights_type;
extern const dam_lever_type dam_lever_kv_cache_type;
extern const dam_lever_type dam_lever_tensor_parallel_type;
extern const dam_lever_type dam_lever_scheduler_type;
extern const dam_lever_type dam_lever_disaggregate_type;

#endif
