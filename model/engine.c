/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine.c: LLM serving engine profiles from data/engines.cfg (engine.h). */
#include "model/engine.h"

#include <libconfig.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/embedded.h"

/* Member k of g as a number (int or float): 0, or -1 when missing. */
static int num(const config_setting_t *g, const char *k, double *v)
{
    const config_setting_t *m = config_setting_get_member(g, k);
    if (!m)
        return -1;
    int t = config_setting_type(m);
    if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
        *v = (double)config_setting_get_int64(m);
        return 0;
    }
    if (t == CONFIG_TYPE_FLOAT) {
        *v = config_setting_get_float(m);
        return 0;
    }
    return -1;
}

static int boolean(const config_setting_t *g, const char *k, int *v)
{
    const config_setting_t *m = config_setting_get_member(g, k);
    if (!m || config_setting_type(m) != CONFIG_TYPE_BOOL)
        return -1;
    *v = config_setting_get_bool(m);
    return 0;
}

static const char *const profile_keys[] = {
    "id",          "name",         "overlap",           "host_ms",
    "host_seq_us", "token_budget", "max_seqs",          "token_budget_large",
    "max_seqs_large", "large_gib", "mixed_prefill",     "capacity_policy",
    "preemption",  "cuda_graphs",  "gemm_frac",         NULL};

/* Fill e from profile g: 0, or -1 naming the bad key in why. */
static int fill(const config_setting_t *g, dam_llm_engine *e, char *why,
                size_t nwhy)
{
    for (int i = 0; i < config_setting_length(g); i++) {
        const char *k = config_setting_name(config_setting_get_elem(g, i));
        int ok = 0;
        for (int j = 0; profile_keys[j] && !ok; j++)
            ok = k && strcmp(k, profile_keys[j]) == 0;
        if (!ok) {
            snprintf(why, nwhy, "engines.cfg: engine \"%s\": unknown key "
                                "'%s'",
                     e->id, k ? k : "?");
            return -1;
        }
    }
    static const char *const nums[] = {"host_ms", "host_seq_us",
                                       "token_budget", "max_seqs",
                                       "token_budget_large",
                                       "max_seqs_large", "large_gib"};
    double v[7];
    for (int i = 0; i < 7; i++)
        if (num(g, nums[i], &v[i]) != 0 || !(v[i] >= 0.0)) {
            snprintf(why, nwhy, "engines.cfg: engine \"%s\": '%s' must be "
                                "a number >= 0",
                     e->id, nums[i]);
            return -1;
        }
    e->host_s = v[0] * 1e-3;
    e->host_seq_s = v[1] * 1e-6;
    e->token_budget = (int)v[2];
    e->max_seqs = (int)v[3];
    e->token_budget_large = (int)v[4];
    e->max_seqs_large = (int)v[5];
    e->large_bytes = v[6] * 1073741824.0;
    if (num(g, "gemm_frac", &e->gemm_frac) != 0 ||
        !(e->gemm_frac >= 0.05 && e->gemm_frac <= 2.0)) {
        snprintf(why, nwhy, "engines.cfg: engine \"%s\": 'gemm_frac' must "
                            "be a number in [0.05, 2]",
                 e->id);
        return -1;
    }
    const char *cap = NULL, *pre = NULL, *name = NULL;
    config_setting_lookup_string(g, "capacity_policy", &cap);
    config_setting_lookup_string(g, "preemption", &pre);
    config_setting_lookup_string(g, "name", &name);
    if (boolean(g, "overlap", &e->overlap) || boolean(g, "mixed_prefill",
                                                      &e->mixed_prefill) ||
        boolean(g, "cuda_graphs", &e->cuda_graphs) || !cap || !pre ||
        !name || e->token_budget < 1 || e->max_seqs < 1 ||
        e->token_budget_large < 1 || e->max_seqs_large < 1) {
        snprintf(why, nwhy, "engines.cfg: engine \"%s\" lacks a key or has "
                            "a limit below 1",
                 e->id);
        return -1;
    }
    snprintf(e->name, sizeof e->name, "%s", name);
    /* the two policies by name: 0 or 1 in each pair's order */
    static const char *const names[2][2] = {
        {"guaranteed_no_evict", "max_utilization"}, {"swap", "recompute"}};
    static const char *const keys[2] = {"capacity_policy", "preemption"};
    const char *const given[2] = {cap, pre};
    int code[2];
    for (int k = 0; k < 2; k++) {
        code[k] = strcmp(given[k], names[k][0]) == 0   ? 0
                  : strcmp(given[k], names[k][1]) == 0 ? 1
                                                       : -1;
        if (code[k] < 0) {
            snprintf(why, nwhy, "engines.cfg: engine \"%s\": unknown %s "
                                "\"%s\"",
                     e->id, keys[k], given[k]);
            return -1;
        }
    }
    e->capacity = code[0] ? DAM_LLM_CAP_MAX_UTIL : DAM_LLM_CAP_NO_EVICT;
    e->preemption = code[1] ? DAM_LLM_PREEMPT_RECOMPUTE
                            : DAM_LLM_PREEMPT_SWAP;
    return 0;
}

int dam_llm_engine_get(const char *id, dam_llm_engine *out, char *why,
                       size_t nwhy)
{
    const dam_embedded_file *f = dam_embedded_find("engines.cfg");
    memset(out, 0, sizeof *out);
    if (!f) {
        snprintf(why, nwhy, "no engine profiles are built in");
        return -1;
    }
    config_t cf;
    config_init(&cf);
    int rc = -1;
    if (config_read_string(&cf, f->text) != CONFIG_TRUE) {
        snprintf(why, nwhy, "engines.cfg:%d: %s", config_error_line(&cf),
                 config_error_text(&cf));
        config_destroy(&cf);
        return -1;
    }
    const config_setting_t *list = config_lookup(&cf, "engines");
    int n = list ? config_setting_length(list) : 0;
    char known[160] = "";
    for (int i = 0; i < n; i++) {
        const config_setting_t *g = config_setting_get_elem(list, i);
        const char *eid = NULL;
        if (!config_setting_lookup_string(g, "id", &eid))
            continue;
        if (strcasecmp(eid, id) == 0) {
            snprintf(out->id, sizeof out->id, "%s", eid);
            rc = fill(g, out, why, nwhy);
            break;
        }
        size_t k = strlen(known);
        snprintf(known + k, sizeof known - k, "%s\"%s\"", k ? ", " : "",
                 eid);
    }
    if (rc != 0 && !out->id[0])
        snprintf(why, nwhy, "unknown engine \"%s\" (known: %s)", id, known);
    config_destroy(&cf);
    return rc;
}

void dam_llm_engine_limits(const dam_llm_engine *e, const dam_gpu *g,
                           int *token_budget, int *max_seqs)
{
    int large = g->mem_bytes >= e->large_bytes &&
                strncasecmp(g->id, "A100", 4) != 0;
    *token_budget = large ? e->token_budget_large : e->token_budget;
    *max_seqs = large ? e->max_seqs_large : e->max_seqs;
}
