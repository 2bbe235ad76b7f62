/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * diagnose.h: the D·A·M diagnosis of a solved scenario.
 *
 * From a dam_result it names the binding term and axis with the numbers
 * that support it (a hypothesis with its evidence, never a bare verdict),
 * screens the scorecard indicators (I/O overhead, MFU, memory fit, launch
 * share), matches the symptoms of the diagnostic matrix, and sorts lever
 * kinds into those that move the binding term (works) and those that would
 * be wasted, naming the anti-pattern. Text is produced here as data (short
 * strings); cli/ and render/ decide how to show it.
 */
#ifndef DAM_DIAGNOSE_H
#define DAM_DIAGNOSE_H

#include "solver/result.h"

#define DAM_DIAG_LINES 8
#define DAM_DIAG_TEXT 320

/* Screening verdict of one scorecard indicator. */
typedef enum {
    DAM_SCORE_STRONG = 0, /* a strong signal: nothing to chase here */
    DAM_SCORE_OK,         /* between the thresholds */
    DAM_SCORE_INVESTIGATE /* past the screening threshold */
} dam_score;

const char *dam_score_name(dam_score s);

/* One scorecard row. */
typedef struct dam_score_row {
    char axis[16];       /* "Data", "Algorithm", "Machine" */
    char metric[32];     /* "I/O overhead", "MFU", ... */
    double value;        /* the measured value (fraction or ratio) */
    char shown[32];      /* value as shown ("12.3 %") */
    char rule[64];       /* the thresholds ("investigate > 10 %, strong < 1 %") */
    dam_score verdict;
} dam_score_row;

/* One lever kind and why it would work or be wasted here. */
typedef struct dam_advice {
    dam_lever_kind kind;        /* the lever */
    char why[DAM_DIAG_TEXT];    /* the reason, with numbers */
} dam_advice;

typedef struct dam_diagnosis {
    dam_bound bound;                     /* binding term */
    char axis[24];                       /* D·A·M axis or boundary */
    char headline[DAM_DIAG_TEXT];        /* one sentence: what binds and by how much */
    int nevidence;
    char evidence[DAM_DIAG_LINES][DAM_DIAG_TEXT]; /* supporting numbers */
    int nsymptoms;
    char symptoms[DAM_DIAG_LINES][DAM_DIAG_TEXT]; /* diagnostic-matrix matches */
    int nscore;
    dam_score_row score[6];
    int nworks;
    dam_advice works[DAM_LEVER_KIND_COUNT];
    int nwasted;
    dam_advice wasted[DAM_LEVER_KIND_COUNT];
    char anti_pattern[DAM_DIAG_TEXT];    /* the trap a wasted lever falls into */
    int no_fit;                          /* 1: memory exceeds the GPU's; the
                                            headline says so first, and the
                                            rest is what would bind once it
                                            fits */
} dam_diagnosis;

/* The n bytes of s into out (cap bytes, NUL-terminated; returns its
 * length) with every number written with a positive two-digit exponent
 * ("9.863e+04", "1e+02") as plain digits ("98630", "100"): the pages
 * write figures with %g, and a queue that grows for minutes read "p99
 * TTFT 2.333e+05 ms". Values of 1e10 and more keep theirs. out needs at
 * most 2 n + 1 bytes. */
size_t dam_plain_numbers(const char *s, size_t n, char *out, size_t cap);

/* Helpers shared by the training and serving diagnoses. */
/* Append a formatted line to arr (at most DAM_DIAG_LINES lines). */
/* 1 when a pipeline-parallel training layout binds on compute but its
 * ranks spend more of the step waiting (the pipeline's fill and drain,
 * and slower stages) than computing: the answer then names the schedule
 * beside the GPU. */
int dam_diagnose_bubble_binds(const dam_scenario *s, const dam_result *r);

void dam_diagnose_add(char (*arr)[DAM_DIAG_TEXT], int *n, const char *fmt,
                      ...) __attribute__((format(printf, 3, 4)));
/* Append a scorecard row. */
void dam_diagnose_score(dam_diagnosis *d, const char *axis,
                        const char *metric, double v, const char *shown,
                        const char *rule, dam_score s);
/* File lever kind k under works (works = 1) or wasted, with the reason. */
void dam_diagnose_advise(dam_diagnosis *d, dam_lever_kind k, int works,
                         const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The rows every diagnosis has: MFU, and the memory footprint. */
void dam_diagnose_score_mfu(dam_diagnosis *d, const dam_result *r);
void dam_diagnose_score_memory(dam_diagnosis *d, const dam_result *r);

/* Diagnose r (solved from s) into d. */
void dam_diagnose(const dam_scenario *s, const dam_result *r,
                  dam_diagnosis *d);

/* Serving (diagnose_serving.c): what binds a simulated serving result:
 * the largest mean phase, with the CPU side (preprocess + wait for a
 * worker) as preprocessing, the wait for a replica as queueing, batching
 * wait and postprocess as latency, and compute split into latency (launch
 * and framework at least half of it), weight-bandwidth (weight reads of
 * the mean batch above its FLOP time), memory or compute. */
dam_bound dam_diagnose_serving_bound(const dam_scenario *s,
                                     const dam_result *r);
/* The serving diagnosis (dam_diagnose calls it in serving mode): headline,
 * per-phase evidence, the SLO and what a faster GPU could and could not
 * buy, the diagnostic-matrix symptom, scorecard and serving levers. */
void dam_diagnose_serving(const dam_scenario *s, const dam_result *r,
                          dam_diagnosis *d);

/* LLM serving (diagnose_llm.c; dam_diagnose calls it for a simulated
 * scenario with an llm group): the two objectives and their split, the
 * iteration's time by part, the KV cache, symptoms, scorecard and the LLM
 * levers. */
void dam_diagnose_llm(const dam_scenario *s, const dam_result *r,
                      dam_diagnosis *d);

/* What changed between two simulated serving results a (before) and b
 * (after), e.g. max_batch 1 and 16: the phase (DAM_SPHASE_*) whose mean
 * moved most, and a sentence with both p99s against b's SLO and that
 * phase's means into buf (n bytes). Returns the phase index. */
int dam_diagnose_serving_change(const dam_result *a, const dam_result *b,
                                char *buf, size_t n);

/* Would a lever of this kind move the binding term of r (solved from s)?
 * 1 works, 0 wasted, -1 when it depends (the lever's own effect decides).
 * From the lever table: the bounds the type relieves, refined by s. */
int dam_diagnose_lever_works(const dam_scenario *s, const dam_result *r,
                             dam_lever_kind k);

/* The named anti-pattern for spending on kind k when r binds elsewhere,
 * or NULL. */
const char *dam_diagnose_anti_pattern(const dam_scenario *s,
                                      const dam_result *r, dam_lever_kind k);

#endif
