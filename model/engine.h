/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * engine.h: LLM serving engine profiles (data/engines.cfg, compiled in):
 * an engine's default scheduler and its host time per iteration. The
 * loader applies a profile to an `llm` group (llm.engine) for every key
 * the scenario leaves out. Reads the embedded file on each call; keeps no
 * state.
 */
#ifndef DAM_ENGINE_H
#define DAM_ENGINE_H

#include <stddef.h>

#include "model/scenario.h"

typedef struct dam_llm_engine {
    char id[32];
    char name[64];
    int overlap;              /* host work hidden behind the GPU */
    double host_s;            /* host time per iteration, s */
    double host_seq_s;        /* host time per sequence of it, s */
    int token_budget, max_seqs;             /* below large_bytes */
    int token_budget_large, max_seqs_large; /* large GPUs (not A100) */
    double large_bytes;       /* the threshold, bytes */
    int mixed_prefill;        /* 1: chunked prefill beside decodes */
    dam_llm_capacity capacity;
    dam_llm_preempt preemption;
    int cuda_graphs;
    double gemm_frac;         /* its GEMMs against the catalog's
                               * microbenchmark rate (the framework's
                               * gemm_frac for serving) */
} dam_llm_engine;

/* The engine named id from the built-in profiles: 0, or -1 with why
 * (the known ids, or what is wrong with the file) filled. */
int dam_llm_engine_get(const char *id, dam_llm_engine *out, char *why,
                       size_t nwhy);

/* The token budget and sequence limit of e on GPU g. */
void dam_llm_engine_limits(const dam_llm_engine *e, const dam_gpu *g,
                           int *token_budget, int *max_seqs);

#endif
