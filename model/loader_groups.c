/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * loader_groups.c: the scenario's groups from their schema tables: catalogs,
 * machine (with the catalog-or-inline GPU), workload (with the catalog-or-
 * inline model), data, pipeline, parallel (loader.c says how the loader
 * reads a file).
 */
#include "model/loader.h"
#include "model/load.h"

#include <errno.h>
#include <libconfig.h>
#include <stdint.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/alloc.h"
#include "model/csvline.h"
#include "model/infile.h"
#include "model/lever.h"
#include "model/scaling.h"
#include "model/suggest.h"
#include "model/device.h"
#include "model/graph.h"
#include "model/constants.h"
#include "model/recipe.h"

/* ---- scenario -------------------------------------------------------- */

/* Resolve a catalog path relative to the scenario's folder. */
static void relative_to(char *out, size_t n, const char *scenario,
                        const char *p)
{
    const char *slash = strrchr(scenario, '/');
    if (p[0] == '/' || !slash)
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - scenario), scenario, p);
}

void dam_ld_load_catalogs(ld *L, const config_setting_t *root,
                          dam_catalog *cat)
{
    config_setting_t *c = group(L, root, "catalogs", "", 0);
    if (!c)
        return;
    dam_load_check(L, c, TABLE("catalogs"));
    static const char *const kinds[2] = {"gpus", "models"};
    for (int k = 0; k < 2; k++) {
        char p[256], full[512];
        if (!get_str(L, c, kinds[k], "catalogs", 0, p, sizeof p))
            continue;
        const config_setting_t *at = member(L, c, kinds[k], "", 0);
        relative_to(full, sizeof full, file_of(L, at), p);
        char why[64];
        FILE *f = dam_infile_open(full, why, sizeof why);
        if (!f) {
            char q[128];
            dam_diag_error(L->d, AT(at), "cannot read the %s catalog \"%s\": "
                           "%s", kinds[k],
                           dam_error_quote(full, 96, q, sizeof q), why);
            continue;
        }
        fclose(f);
        if (k == 0)
            dam_catalog_load_gpus(cat, full, NULL, L->d);
        else
            dam_catalog_load_models(cat, full, NULL, L->d);
    }
}

/*
 * A catalog-or-inline entry (machine.gpu, workload.model): member key of
 * g (path where) is a catalog id, or an inline group that may start from
 * one ("base" = id). The id goes to id (empty for an inline group without
 * base); returns 1 for an inline group, 0 for an id, -1 when it is absent
 * or neither (reported).
 */
static int entry_ref(ld *L, const config_setting_t *g, const char *key,
                     const char *where, char *id, size_t n,
                     config_setting_t **at)
{
    char full[64];
    snprintf(full, sizeof full, "%s.%s", where, key);
    config_setting_t *s = *at = member(L, g, key, where, 1);
    if (!s)
        return -1;
    id[0] = '\0';
    if (config_setting_is_group(s)) {
        get_str(L, s, "base", full, 0, id, n);
        return 1;
    }
    if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        snprintf(id, n, "%s", config_setting_get_string(s));
        if (!id[0]) {
            /* an empty id named nothing and ran as an all-zero entry
             * ("step = inf") */
            dam_diag_error(L->d, AT(s), "'%s' is empty: give a catalog id "
                           "(see 'damsim catalog %s') or a group",
                           full, strcmp(key, "gpu") == 0 ? "gpus"
                                                         : "models");
            return -1;
        }
        return 0;
    }
    dam_diag_error(L->d, AT(s), "'%s' must be a catalog id or a group, got %s",
                   full, type_name(s));
    return -1;
}

/* "unknown GPU "X" (did you mean "Y"?)" or "(see 'damsim catalog gpus')":
 * what (GPU, model) of catalog list (gpus, models), sug the suggestion. */
static void unknown_entry(ld *L, const config_setting_t *s, const char *what,
                          const char *list, const char *id, const char *sug)
{
    char q[64];
    if (sug)
        dam_diag_error(L->d, AT(s), "unknown %s \"%s\" (did you mean \"%s\"?)",
                       what, dam_error_quote(id, 32, q, sizeof q), sug);
    else
        dam_diag_error(L->d, AT(s), "unknown %s \"%s\" (see 'damsim catalog "
                       "%s')", what, dam_error_quote(id, 32, q, sizeof q),
                       list);
}

/* An inline entry's id ("custom" when none) and name ("ID (inline)"). */
static void inline_names(char *id, size_t nid, char *name, size_t nname)
{
    if (!id[0])
        snprintf(id, nid, "custom");
    if (!name[0])
        snprintf(name, nname, "%s (inline)", id);
}

/* machine.gpu (model = 0, into a dam_gpu) or workload.model (model = 1,
 * into a dam_model_spec): a catalog entry, an inline group, or an inline
 * group over an entry ("base" = id). */
static void load_entry(ld *L, const config_setting_t *parent,
                       const dam_catalog *cat, int model, void *out)
{
    const char *key = model ? "model" : "gpu";
    const char *where = model ? "workload" : "machine";
    char id[DAM_ID_MAX], full[32];
    config_setting_t *s;
    int inline_group = entry_ref(L, parent, key, where, id, sizeof id, &s);
    if (inline_group < 0)
        return;
    if (id[0]) {
        const void *e = model ? (const void *)dam_catalog_model(cat, id)
                              : (const void *)dam_catalog_gpu(cat, id);
        if (!e) {
            unknown_entry(L, s, model ? "model" : "GPU", model ? "models"
                                                               : "gpus",
                          id, model ? dam_catalog_suggest_model(cat, id)
                                    : dam_catalog_suggest_gpu(cat, id));
            return;
        }
        memcpy(out, e, model ? sizeof(dam_model_spec) : sizeof(dam_gpu));
    }
    if (!inline_group)
        return;
    snprintf(full, sizeof full, "%s.%s", where, key);
    if (model) {
        dam_model_spec *m = out;
        parse_model(L, s, m, full, 0, id[0] != 0);
        inline_names(m->id, sizeof m->id, m->name, sizeof m->name);
        m->line = line_of(s);
    } else {
        dam_gpu *g = out;
        parse_gpu(L, s, g, full, 0, id[0] != 0);
        inline_names(g->id, sizeof g->id, g->name, sizeof g->name);
        g->line = line_of(s);
    }
}

/* Defaults before reading: what a scenario gets when it says nothing. */
void dam_ld_defaults(dam_scenario *s)
{
    memset(s, 0, sizeof *s);
    dam_schema_defaults(s); /* the rows' own (model/schema.c) */
    s->seed = 1;
    s->workload.optimizer_bytes = 8.0; /* Adam: m and v in fp32 */
    s->workload.master_bytes = 4.0;    /* fp32 weights or master copy */
    s->workload.flops_scale = 1.0;
    s->workload.bytes_scale = 1.0;
    s->workload.weight_scale = 1.0;
    s->workload.matmul_peak_scale = 1.0;
    s->serving.preprocess_dist = DAM_DIST_DETERMINISTIC;
    s->serving.compute_dist = DAM_DIST_DETERMINISTIC;
}


/* ---- the scenario, group by group ------------------------------------ */

/* machine.host: gpus_per_pcie_link within the node. */
static void host_hook(ld *L, const config_setting_t *h,
                      const dam_key_row *k, void *ctx)
{
    dam_machine *mc = &L->scen->machine;
    if (dam_load_key(L, h, "machine.host", k, -1, &mc->gpus_per_pcie_link) &&
        mc->gpus_per_node > 0 && mc->gpus_per_pcie_link > mc->gpus_per_node)
        dam_diag_error(L->d, AT(member(L, h, "gpus_per_pcie_link", "", 0)),
                       "'machine.host.gpus_per_pcie_link' (%d) exceeds "
                       "'machine.gpus_per_node' (%d)",
                       mc->gpus_per_pcie_link, mc->gpus_per_node);
}

/* machine.storage.shared: one cluster-wide file system, whose total
 * bandwidth read_gbs is. */
static void storage_hook(ld *L, const config_setting_t *st,
                         const dam_key_row *k, void *ctx)
{
    dam_machine *mc = &L->scen->machine;
    int shared = 0;
    dam_load_key(L, st, "machine.storage", k, -1, &shared);
    if (shared)
        mc->fs_bw = mc->storage_bw;
    /* one node's NVMe drives: a PCIe 5.0 x4 drive reads at most about
     * 14 GB/s (Kioxia's PCIe 5.0 prototype, China Flash Market Summit
     * 2021: 14,000 MB/s; TechPowerUp 2023: 13.5 GB/s), 24 bays of them
     * 336 GB/s; far above it, the figure is likely MB/s (C15-16: 3000
     * "GB/s" meant for 3 GB/s passed in silence) */
    if (!shared && mc->storage_kind == DAM_STORAGE_LOCAL_NVME &&
        mc->storage_bw > 24.0 * 14e9)
        dam_diag_warn(L->d, AT(member(L, st, "read_gbs", "", 0)),
                      "read_gbs %.4g GB/s from one node's local NVMe is above "
                      "24 PCIe 5.0 drives at 14 GB/s each (336 GB/s): is it "
                      "MB/s (%.4g GB/s)?",
                      mc->storage_bw / 1e9, mc->storage_bw / 1e12);
}

/* machine.network: nic_gbs is read first (with intra_busbw_gbs' row), as
 * inter_busbw_gbs is required with several nodes unless a NIC is given. */
static void network_hook(ld *L, const config_setting_t *nw,
                         const dam_key_row *k, void *ctx)
{
    dam_machine *mc = &L->scen->machine;
    const dam_key_group *t = TABLE("machine.network");
    if (strcmp(k->name, "intra_busbw_gbs") == 0) {
        dam_load_named(L, nw, t, "nic_gbs", 0, &mc->net.nic_bw);
        dam_load_key(L, nw, t->path, k, 0, &mc->intra_busbw);
    } else if (strcmp(k->name, "inter_busbw_gbs") == 0) {
        int have_nic = mc->net.nic_bw > 0.0;
        dam_load_key(L, nw, t->path, k, mc->nodes > 1 && !have_nic,
                     &mc->inter_busbw);
    }
}

static void load_network(ld *L, const config_setting_t *nw, dam_machine *mc)
{
    dam_network *net = &mc->net;
    dam_load_group(L, nw, TABLE("machine.network"), network_hook, NULL);
    int g = mc->gpus_per_node;
    if (net->domain > 0 && g > 0 && net->domain % g != 0 &&
        g % net->domain != 0)
        dam_diag_error(L->d, AT(member(L, nw, "nvlink_domain", "", 0)),
                       "'machine.network.nvlink_domain' (%d GPUs) must "
                       "be a multiple or a divisor of "
                       "'machine.gpus_per_node' (%d)",
                       net->domain, g);
}

/* machine.nodes, then the machine's size against DAM_MAX_GPUS; the
 * machine's groups. */
static void machine_hook(ld *L, const config_setting_t *m,
                         const dam_key_row *k, void *ctx)
{
    const hook_ctx *c = ctx;
    dam_scenario *s = L->scen;
    dam_machine *mc = &s->machine;
    if (strcmp(k->name, "gpu") == 0) {
        load_entry(L, m, c->cat, 0, &mc->gpu);
    } else if (strcmp(k->name, "nodes") == 0) {
        dam_load_key(L, m, "machine", k, -1, &mc->nodes);
        if (dam_scenario_gpus(s) > DAM_MAX_GPUS) {
            config_setting_t *at = member(L, m, "nodes", "", 0);
            dam_diag_error(L->d,
                           AT(at ? at : member(L, m, "gpus_per_node", "", 0)),
                           "%d GPUs per node x %d nodes = %lld GPUs; damsim "
                           "models at most %d",
                           mc->gpus_per_node, mc->nodes,
                           (long long)dam_scenario_gpus(s), DAM_MAX_GPUS);
        }
    } else if (strcmp(k->name, "host") == 0) {
        config_setting_t *h = group(L, m, "host", "machine", 1);
        if (h)
            dam_load_group(L, h, TABLE("machine.host"), host_hook, NULL);
    } else if (strcmp(k->name, "storage") == 0) {
        config_setting_t *st = group(L, m, "storage", "machine", 1);
        if (st)
            dam_load_group(L, st, TABLE("machine.storage"), storage_hook,
                           NULL);
    } else if (strcmp(k->name, "network") == 0) {
        config_setting_t *nw = group(L, m, "network", "machine", mc->nodes > 1);
        if (nw)
            load_network(L, nw, mc);
    }
}

/* The fabric of a machine read: what it does not give, from its GPU and
 * host. */
static void fabric_defaults(dam_machine *mc)
{
    dam_network *net = &mc->net;
    /* not given: the GPU's own node fabric (its measured NVLink
     * all-reduce, or the PCIe ring), so that a scenario moved to more
     * GPUs, or to another GPU, by a lever has one */
    if (!(mc->intra_busbw > 0.0))
        mc->intra_busbw = dam_device_fabric_busbw(&mc->gpu, mc->pcie_bw);
    dam_net_defaults(net, mc->gpus_per_node, mc->intra_busbw,
                     mc->inter_busbw, mc->gpu.dev.busbw.v, mc->net_latency);
    /* a machine that says nothing of a fabric: its GPUs leave the node
     * (and reach each other without NVLink) through the host's PCIe */
    if (!(net->domain_bw > 0.0))
        net->domain_bw = mc->pcie_bw;
    if (!(net->nic_bw > 0.0))
        net->nic_bw = mc->pcie_bw / net->nic_eff;
}

void dam_ld_load_machine(ld *L, const config_setting_t *root,
                         const dam_catalog *cat, dam_scenario *s)
{
    config_setting_t *m = group(L, root, "machine", "", 1);
    if (m) {
        hook_ctx c = {root, cat, 0, 0};
        dam_load_group(L, m, TABLE("machine"), machine_hook, &c);
        fabric_defaults(&s->machine);
    }
}

/*
 * workload.framework = { conv_frac = ..; conv_frac_sd = ..; ... }: the
 * software stack's constants (device.h, framework scope), each with its
 * uncertainty. launch_us and framework_overhead_ms stay workload keys.
 */
/*
 * workload.framework.name: the software stack's name ("default" when not
 * given). A calibration overlay's framework constants are keyed by it
 * (constants.h framework/<name>/...), so the stack a scenario names picks
 * up the constants fitted for it before its own values apply.
 */
static void framework_name(ld *L, const config_setting_t *w, dam_workload *wl)
{
    snprintf(wl->framework_name, sizeof wl->framework_name, "default");
    config_setting_t *f = config_setting_get_member(w, "framework");
    if (f && config_setting_is_group(f))
        get_str(L, f, "name", "workload.framework", 0, wl->framework_name,
                sizeof wl->framework_name);
    for (const char *c = wl->framework_name; *c; c++)
        if (*c == '/' || *c == '@' || *c == ' ') {
            dam_diag_error(L->d, L->file,
                           line_of(config_setting_get_member(f, "name")),
                           "'workload.framework.name' may not hold '/', '@' "
                           "or spaces, got \"%s\"", wl->framework_name);
            break;
        }
}

static void load_framework(ld *L, const config_setting_t *w, dam_scenario *s)
{
    config_setting_t *f = group(L, w, "framework", "workload", 0);
    if (!f)
        return;
    const char *where = "workload.framework";
    const char *allowed[18];
    char sdk[8][48];
    int na = 0, ns = 0;
    allowed[na++] = "name"; /* read by framework_name() */
    for (int i = 0; i < dam_param_count() && na < 16 && ns < 8; i++) {
        const dam_param_info *pi = dam_param_get(i);
        double *v, *sd;
        if (pi->scope != DAM_PARAM_FRAMEWORK || pi->prec > 0 ||
            dam_param_ref(i, s, &v, &sd) != 0 ||
            v == &s->workload.launch_s ||
            v == &s->workload.framework_overhead_s)
            continue;
        allowed[na++] = pi->field;
        if (pi->prec < 0) {
            snprintf(sdk[ns], sizeof sdk[ns], "%s_sd", pi->field);
            allowed[na++] = sdk[ns++];
        }
    }
    allowed[na] = NULL;
    check_keys(L, f, allowed, where);
    for (int i = 0; i < dam_param_count(); i++) {
        const dam_param_info *pi = dam_param_get(i);
        double *v, *sd;
        if (pi->scope != DAM_PARAM_FRAMEWORK ||
            dam_param_ref(i, s, &v, &sd) != 0 ||
            v == &s->workload.launch_s ||
            v == &s->workload.framework_overhead_s)
            continue;
        param_value(L, f, where, pi, v, sd);
    }
}

/* The model m (its catalog entry, at seq0 tokens) run at seq tokens per
 * sample: its activation memory per sample (act_mem_bytes, what every
 * memory figure without a parallel layout starts from) follows the
 * per-token activations of one block at each length (layout.c's count:
 * linear in seq, plus the score matrix where attention is not fused), and
 * a display name that states a length (", seq 2048") states the one
 * solved. The phases and FLOPs are rebuilt by dam_graph_derive_phases. */
static void resequence(dam_model_spec *m, double seq0, double seq)
{
    dam_layout one;
    memset(&one, 0, sizeof one);
    one.tp = one.pp = one.dp = one.cp = one.ep = one.vpp = 1;
    one.micro_batch = 1;
    one.recompute = DAM_RECOMPUTE_NONE;
    double a0 = dam_layout_act_layer(&one, &m->arch.tf, seq0, 2.0, 1);
    double a1 = dam_layout_act_layer(&one, &m->arch.tf, seq, 2.0, 1);
    if (a0 > 0.0 && a1 > 0.0)
        m->act_mem_bytes *= a1 / a0;
    char *at = strstr(m->name, ", seq ");
    if (at && strspn(at + 6, "0123456789.") == strlen(at + 6))
        snprintf(at, sizeof m->name - (size_t)(at - m->name), ", seq %.0f",
                 seq);
}

/* workload.optimizer: the optimizer's state bytes per parameter; the
 * rows read before the walk (model through memory_format) are skipped. */
static void workload_hook(ld *L, const config_setting_t *w,
                          const dam_key_row *k, void *ctx)
{
    int opt = 0;
    if (strcmp(k->name, "optimizer") == 0 &&
        dam_load_key(L, w, "workload", k, -1, &opt))
        L->scen->workload.optimizer_bytes = opt == 0 ? 8.0 : 4.0; /* Adam
                                                   * m+v; SGD momentum */
}

void dam_ld_load_workload(ld *L, const config_setting_t *root,
                          const dam_catalog *cat, dam_scenario *s)
{
    config_setting_t *w = group(L, root, "workload", "", 1);
    if (!w)
        return;
    dam_workload *wl = &s->workload;
    dam_load_check(L, w, TABLE("workload"));
    load_entry(L, w, cat, 1, &wl->model);
    int p = DAM_BF16;
    int have_p = dam_load_named(L, w, TABLE("workload"), "precision", 1, &p);
    wl->precision = (dam_precision)p;
    /* a parallel layout gives the batch as micro-batches (load_parallel) */
    int layout = member(L, root, "parallel", "", 0) != NULL;
    if (layout) {
        const char *const not_with[] = {"batch_size", "zero_stage",
                                        "activation_recompute"};
        const char *const use[] = {"micro_batch' and 'parallel.global_batch",
                                   "zero", "recompute"};
        for (int i = 0; i < 3; i++) {
            config_setting_t *x = member(L, w, not_with[i], "", 0);
            if (x)
                dam_diag_error(L->d, AT(x),
                               "'workload.%s' does not apply with a "
                               "'parallel' layout: give 'parallel.%s'",
                               not_with[i], use[i]);
        }
    } else {
        dam_load_named(L, w, TABLE("workload"), "batch_size", 1,
                       &wl->batch_size);
        /* recipes and LoRA are costed on a layout's transformer blocks */
        const char *const lay_only[] = {"recipe", "lora"};
        for (int i = 0; i < 2; i++) {
            config_setting_t *x = member(L, w, lay_only[i], "", 0);
            if (x)
                dam_diag_error(L->d, AT(x),
                               "'workload.%s' needs a 'parallel' layout "
                               "(give a 'parallel' group, e.g. "
                               "parallel = { global_batch = ..; })",
                               lay_only[i]);
        }
    }
    double seq = 0.0;
    if (dam_load_named(L, w, TABLE("workload"), "seq_len", 0, &seq)) {
        dam_error e;
        double seq0 = wl->model.seq_len;
        if (wl->model.arch.kind != DAM_ARCH_TRANSFORMER)
            dam_diag_error(L->d, AT(member(L, w, "seq_len", "", 0)),
                           "'workload.seq_len' needs a model with a "
                           "transformer architecture (\"%s\" has none)",
                           wl->model.id);
        else if (dam_graph_derive_phases(&wl->model, seq, &e) != DAM_OK)
            dam_diag_error(L->d, AT(member(L, w, "seq_len", "", 0)), "%s",
                           e.msg);
        else if (seq != seq0)
            resequence(&wl->model, seq0, seq);
    }
    wl->seq_len = wl->model.seq_len;
    dam_framework_default(&wl->fw);
    framework_name(L, w, wl);
    dam_catalog_framework_apply(cat, s);
    load_framework(L, w, s);
    int eng = 0;
    if (dam_load_named(L, w, TABLE("workload"), "inference_engine", 0, &eng))
        wl->inference_eager = eng == 1;
    int mfmt = 0;
    if (dam_load_named(L, w, TABLE("workload"), "memory_format", 0, &mfmt))
        wl->channels_first = mfmt == 1;
    /* the rest of the rows, in order (optimizer through workload_hook) */
    const dam_key_group *t = TABLE("workload");
    uint64_t got = dam_load_rows(L, w, t, workload_hook, NULL);
    int have_eta = (got & dam_load_bit(t, "efficiency")) != 0;
    wl->eta_given = have_eta;
    wl->eta_mem_given = (got & dam_load_bit(t, "memory_efficiency")) != 0;
    if (!(got & dam_load_bit(t, "kernels_per_step")))
        wl->kernels_per_step = wl->model.kernels_per_step;
    wl->grad_bytes = dam_precision_bytes(wl->precision) >= 4.0 ? 4.0 : 2.0;

    /* Cross-checks against the GPU and the model. */
    const dam_gpu *g = &s->machine.gpu;
    int gline = line_of(member(L, w, "precision", "", 0));
    int gpu_known = 0;
    for (int i = 0; i < DAM_PREC_COUNT; i++)
        gpu_known |= g->peak[i] > 0.0;
    if (have_p && gpu_known && g->peak[p] <= 0.0) {
        char list[128] = "";
        for (int i = 0; i < DAM_PREC_COUNT; i++)
            if (g->peak[i] > 0.0) {
                strncat(list, list[0] ? ", " : "",
                        sizeof list - strlen(list) - 1);
                strncat(list, dam_precision_name((dam_precision)i),
                        sizeof list - strlen(list) - 1);
            }
        dam_diag_error(L->d, L->file, gline,
                       "precision \"%s\" is not supported by GPU \"%s\" "
                       "(supported: %s)",
                       prec_names[p], g->id, list);
    }
    /* The efficiency: a catalog value or the scenario's overrides the
     * device model; a model without architecture must have one. Layouts
     * cost the operator graph on the device model: a catalog efficiency
     * is not applied to them (a scenario's own is, as an override). */
    if (!have_eta && wl->model.id[0] && have_p && !layout) {
        double e = dam_model_eta(&wl->model, g->id, (dam_precision)p);
        if (e > 0.0) {
            wl->eta = e;
            wl->eta_given = 1;
        } else if (wl->model.arch.kind == DAM_ARCH_NONE) {
            dam_diag_error(L->d, AT(w),
                           "model \"%s\" has no architecture and no "
                           "calibrated efficiency at \"%s\"; give "
                           "'workload.efficiency' (or an 'arch')",
                           wl->model.id, prec_names[p]);
        }
    }
    if (L->d->nerr == 0) {
        dam_error e;
        if (dam_scenario_build_graph(s, &e) != DAM_OK)
            dam_diag_error(L->d, AT(w), "%s", e.msg);
    }
}

/*
 * Measured decode times, one per line in milliseconds ('#' starts a
 * comment), for the empirical distribution: the simulator resamples them.
 * Errors name the samples file and its line.
 */
static void load_decode_samples(ld *L, const config_setting_t *at,
                                const char *name, dam_scenario *s)
{
    char path[512], q[96];
    relative_to(path, sizeof path, file_of(L, at), name);
    char why[64];
    FILE *fp = dam_infile_open(path, why, sizeof why);
    if (!fp) {
        dam_diag_error(L->d, AT(at), "cannot read the decode samples \"%s\": "
                       "%s", dam_error_quote(path, 64, q, sizeof q), why);
        return;
    }
    dam_data *d = &s->data;
    char buf[256];
    int line = 0, errs = 0;
    d->ndecode_samples = 0;
    /* The first line that is not a number ends the reading, and the
     * message quotes at most its first 16 bytes (escaped): a scenario that
     * names some other file cannot make damsim print that file. */
    while (!errs && fgets(buf, sizeof buf, fp)) {
        line++;
        size_t len = strlen(buf);
        if (len + 1 == sizeof buf && buf[len - 1] != '\n' && !feof(fp)) {
            dam_diag_error(L->d, path, line, "a line longer than %zu "
                           "characters; not a file of decode times?",
                           sizeof buf - 2);
            errs = 1;
            break;
        }
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0' || *p == '\n' || *p == '\r')
            continue;
        char *end;
        double v = dam_decimal(p, &end);
        while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
            end++;
        if (end == p || *end || !isfinite(v) || v < 0.0 || v > 1e8) {
            /* the number-like prefix and the first byte that breaks it */
            size_t tok = strspn(p, "0123456789.eE+-");
            if (p[tok] && !strchr(" \t\r\n", p[tok]))
                tok++;
            p[tok] = '\0';
            dam_diag_error(L->d, path, line,
                           "expected a decode time in ms (0 to 1e8), got "
                           "\"%s\"; not a file of decode times?",
                           dam_error_quote(p, 24, q, sizeof q));
            errs = 1;
            break;
        }
        if (d->ndecode_samples >= DAM_MAX_DECODE_SAMPLES) {
            dam_diag_error(L->d, path, line,
                           "more than %d decode samples",
                           DAM_MAX_DECODE_SAMPLES);
            break;
        }
        d->decode_samples[d->ndecode_samples++] = v * MS;
    }
    fclose(fp);
    if (errs || d->ndecode_samples == 0) {
        if (!errs)
            dam_diag_error(L->d, path, 0, "no decode samples in the file");
        return;
    }
    double sum = 0.0, sq = 0.0;
    for (int i = 0; i < d->ndecode_samples; i++)
        sum += d->decode_samples[i];
    double mean = sum / d->ndecode_samples;
    for (int i = 0; i < d->ndecode_samples; i++)
        sq += (d->decode_samples[i] - mean) * (d->decode_samples[i] - mean);
    d->decode_dist = DAM_DIST_EMPIRICAL;
    d->decode_s = mean;
    d->decode_cv = mean > 0.0 ? sqrt(sq / d->ndecode_samples) / mean : 0.0;
}

/* data.decode_samples_file: the file's decode times. */
static void data_hook(ld *L, const config_setting_t *d,
                      const dam_key_row *k, void *ctx)
{
    char f[256];
    if (dam_load_key(L, d, "data", k, -1, f))
        load_decode_samples(L, member(L, d, "decode_samples_file", "", 0), f,
                            L->scen);
}

void dam_ld_load_data(ld *L, const config_setting_t *root, dam_scenario *s,
                      int required)
{
    config_setting_t *d = group(L, root, "data", "", required);
    dam_data *dt = &s->data;
    const dam_model_spec *m = &s->workload.model;
    dt->raw_bytes = m->raw_bytes;
    dt->input_bytes = m->input_bytes;
    if (!d)
        return;
    dam_load_group(L, d, TABLE("data"), data_hook, NULL);
}

/* pipeline.loader_workers: more workers than cores is a warning. */
static void pipeline_hook(ld *L, const config_setting_t *p,
                          const dam_key_row *k, void *ctx)
{
    dam_scenario *s = L->scen;
    dam_pipeline *pl = &s->pipeline;
    if (dam_load_key(L, p, "pipeline", k, -1, &pl->loader_workers) &&
        s->machine.cpu_cores > 0 &&
        pl->loader_workers * s->machine.gpus_per_node > s->machine.cpu_cores)
        dam_diag_warn(L->d, AT(member(L, p, "loader_workers", "", 0)),
                      "%d loader workers per GPU x %d GPUs = %d workers on %d "
                      "cores: they will share cores",
                      pl->loader_workers, s->machine.gpus_per_node,
                      pl->loader_workers * s->machine.gpus_per_node,
                      s->machine.cpu_cores);
}

void dam_ld_load_pipeline(ld *L, const config_setting_t *root,
                          dam_scenario *s, int required)
{
    config_setting_t *p = group(L, root, "pipeline", "", required);
    if (p)
        dam_load_group(L, p, TABLE("pipeline"), pipeline_hook, NULL);
}

/* parallel: dp is read just before the schedule (whose default follows
 * vpp), global_batch is kept for the checks after the walk, fsdp implies
 * ZeRO 3 unless zero is given, straggler is a group of its own. */
static void parallel_hook(ld *L, const config_setting_t *p,
                          const dam_key_row *k, void *ctx)
{
    hook_ctx *c = ctx;
    dam_layout *l = &L->scen->layout;
    const dam_key_group *t = TABLE("parallel");
    int v = 0;
    if (strcmp(k->name, "schedule") == 0) {
        c->have_dp = dam_load_named(L, p, t, "dp", -1, &l->dp);
        if (dam_load_key(L, p, t->path, k, -1, &v))
            l->schedule = v;
        else if (l->vpp > 1)
            l->schedule = DAM_SCHED_INTERLEAVED;
    } else if (strcmp(k->name, "global_batch") == 0) {
        dam_load_key(L, p, t->path, k, -1, &c->gb);
    } else if (strcmp(k->name, "fsdp") == 0) {
        if (dam_load_key(L, p, t->path, k, -1, &l->fsdp) && l->fsdp &&
            !member(L, p, "zero", "", 0))
            l->zero = 3;
    } else if (strcmp(k->name, "straggler") == 0) {
        config_setting_t *sg = group(L, p, "straggler", t->path, 0);
        if (sg)
            dam_load_group(L, sg, TABLE("parallel.straggler"), NULL, NULL);
    }
}

/* The known profile (recipes = 0) or recipe (1) names, comma-separated. */
static void stack_names(char *list, size_t n, int recipes)
{
    int count = recipes ? DAM_RECIPE_COUNT : DAM_PROFILE_COUNT;
    list[0] = '\0';
    for (int i = 1; i < count; i++) {
        strncat(list, i > 1 ? ", " : "", n - strlen(list) - 1);
        strncat(list, recipes ? dam_recipe_get(i)->name
                              : dam_profile_get(i)->name,
                n - strlen(list) - 1);
    }
}

/* parallel.profile and what it sets unless the scenario gives it; the
 * keys that override it (tp_comm_overlap, reshard, grad_bytes,
 * grad_reduce_bytes); ZeRO-Offload. 0 when the profile is unknown. */
static int stack_profile(ld *L, const config_setting_t *root,
                         const config_setting_t *p, dam_scenario *s)
{
    const dam_key_group *t = TABLE("parallel");
    dam_layout *l = &s->layout;
    dam_workload *wl = &s->workload;
    char name[DAM_ID_MAX] = "";
    if (dam_load_named(L, p, t, "profile", 0, name)) {
        int id = dam_profile_find(name);
        if (id < 0) {
            char list[160];
            stack_names(list, sizeof list, 0);
            dam_diag_error(L->d, AT(member(L, p, "profile", "", 0)),
                           "unknown 'parallel.profile' \"%s\" (known: %s)",
                           name, list);
            return 0;
        }
        l->profile = id;
    }
    const dam_fw_profile *pf = dam_profile_get(l->profile);
    if (l->profile > 0) {
        if (dam_precision_bytes(wl->precision) < 4.0) {
            wl->grad_bytes = pf->grad_bytes;
            wl->grad_comm_bytes = pf->grad_comm_bytes;
        }
        if (!member(L, p, "overlap_grad_reduce", "", 0))
            l->overlap_grad = pf->overlap_grad;
        if (!member(L, p, "overlap_param_gather", "", 0))
            l->overlap_param = pf->overlap_param;
        l->tp_overlap = pf->tp_overlap;
        l->reshard_step = pf->reshard_step;
        const config_setting_t *pl = member(L, root, "pipeline", "", 0);
        if (!pl || !member(L, pl, "bucket_mb", "", 0)) {
            if (pf->bucket_bytes > 0.0)
                s->pipeline.bucket_bytes = pf->bucket_bytes;
            else
                l->bucket_per_block = 1;
        }
    }
    dam_load_named(L, p, t, "tp_comm_overlap", 0, &l->tp_overlap);
    dam_load_named(L, p, t, "reshard", 0, &l->reshard_step);
    double gb = 0.0;
    if (dam_load_named(L, p, t, "grad_bytes", 0, &gb)) {
        wl->grad_bytes = gb;
        wl->grad_comm_bytes = 0.0;
    }
    if (dam_load_named(L, p, t, "grad_reduce_bytes", 0, &gb))
        wl->grad_comm_bytes = gb;
    const char *const gk[] = {"grad_bytes", "grad_reduce_bytes"};
    const double gv[] = {wl->grad_bytes, wl->grad_comm_bytes};
    for (int i = 0; i < 2; i++)
        if (member(L, p, gk[i], "", 0) && gv[i] != 2.0 && gv[i] != 4.0)
            dam_diag_error(L->d, AT(member(L, p, gk[i], "", 0)),
                           "'parallel.%s' must be 2 (16-bit) or 4 (fp32), "
                           "got %g", gk[i], gv[i]);

    /* ZeRO-Offload */
    int k = 0;
    if (dam_load_named(L, p, t, "offload", 0, &k)) {
        l->offload = k;
        const config_setting_t *at = member(L, p, "offload", "", 0);
        if (k > 0 && !(s->machine.host_mem_bw > 0.0))
            dam_diag_error(L->d, AT(at),
                           "'parallel.offload' steps the optimizer on the "
                           "host: give 'machine.host.memory_gbs' (its DRAM "
                           "bandwidth per node)");
        if (k == 2 && l->zero < 3)
            dam_diag_error(L->d, AT(at),
                           "'parallel.offload' \"params\" gathers weights "
                           "from host memory: it needs 'parallel.zero = 3' "
                           "(or fsdp)");
    }
    return 1;
}

/* workload.recipe: by default the profile's FP8 recipe, else Transformer
 * Engine's delayed scaling, for precision fp8, and BF16 mixed precision
 * for 16 bits; what it needs of the precision and the GPU. 0 when the
 * recipe is unknown. */
static int stack_recipe(ld *L, const config_setting_t *p,
                        const config_setting_t *w, dam_scenario *s)
{
    dam_workload *wl = &s->workload;
    char name[DAM_ID_MAX] = "";
    int rid = dam_recipe_default(wl->precision, s->layout.profile);
    const config_setting_t *rs = w ? member(L, w, "recipe", "", 0) : NULL;
    if (rs && dam_load_named(L, w, TABLE("workload"), "recipe", 0, name)) {
        rid = dam_recipe_find(name);
        if (rid < 0) {
            char list[160];
            stack_names(list, sizeof list, 1);
            dam_diag_error(L->d, AT(rs),
                           "unknown 'workload.recipe' \"%s\" (known: %s)",
                           name, list);
            return 0;
        }
    }
    const dam_recipe *r = dam_recipe_get(rid);
    const dam_gpu *g = &s->machine.gpu;
    if (rs && r->linear == DAM_FP8 && wl->precision != DAM_FP8)
        dam_diag_error(L->d, AT(rs),
                       "'workload.recipe' \"%s\" runs its linear layers in "
                       "%s: give workload.precision = \"fp8\" (it is \"%s\")",
                       r->name, r->fp4 ? "FP4" : "FP8",
                       dam_precision_name(wl->precision));
    else if (rs && rid == DAM_RECIPE_BF16 &&
             dam_precision_bytes(wl->precision) != 2.0)
        dam_diag_error(L->d, AT(rs),
                       "'workload.recipe' \"bf16\" needs a 16-bit "
                       "workload.precision (it is \"%s\")",
                       dam_precision_name(wl->precision));
    else if (r->block_scaled && g->gen != DAM_GEN_BLACKWELL)
        dam_diag_error(L->d, AT(rs ? rs : p),
                       "recipe \"%s\" needs Blackwell's block-scaled "
                       "tensor cores (GPU \"%s\" is not Blackwell)",
                       r->name, g->id);
    else if (r->fp4 && !(g->peak_fp4 > 0.0))
        dam_diag_error(L->d, AT(rs ? rs : p),
                       "recipe \"%s\" needs an FP4 peak: GPU \"%s\" has no "
                       "'peak_tflops.fp4'", r->name, g->id);
    else if (r->linear == DAM_FP8 && !(g->peak[DAM_BF16] > 0.0))
        dam_diag_error(L->d, AT(rs ? rs : p),
                       "recipe \"%s\" keeps attention and norms in BF16: GPU "
                       "\"%s\" has no BF16 peak", r->name, g->id);
    wl->recipe = rid;
    return 1;
}

/* workload.lora: LoRA, or QLoRA with NF4 base weights. */
static void stack_lora(ld *L, const config_setting_t *w, dam_scenario *s)
{
    const config_setting_t *lg = w ? group(L, w, "lora", "workload", 0) : NULL;
    if (!lg)
        return;
    const dam_key_group *t = TABLE("workload.lora");
    dam_workload *wl = &s->workload;
    dam_load_check(L, lg, t);
    dam_load_named(L, lg, t, "rank", 1, &wl->lora_rank);
    int v = 2;
    dam_load_named(L, lg, t, "targets", 0, &v);
    wl->lora_targets = v + 1; /* attention 1, mlp 2, all 3 */
    v = 0;
    dam_load_named(L, lg, t, "base", 0, &v);
    wl->lora_nf4 = v == 1;
    const dam_transformer *tf = &wl->model.arch.tf;
    if (wl->lora_rank >= tf->hidden)
        dam_diag_error(L->d, AT(member(L, lg, "rank", "", 0)),
                       "'workload.lora.rank' %d is not below the hidden "
                       "size %d", wl->lora_rank, tf->hidden);
    if (wl->lora_targets == 2 && tf->experts > 1)
        dam_diag_error(L->d, AT(member(L, lg, "targets", "", 0)),
                       "'workload.lora.targets' \"mlp\": the experts of "
                       "\"%s\" are not adapted (give \"attention\" or "
                       "\"all\")", wl->model.id);
    if (wl->lora_nf4 && s->layout.zero >= 3)
        dam_diag_error(L->d, AT(member(L, lg, "base", "", 0)),
                       "QLoRA (NF4 base weights) with ZeRO-3/FSDP "
                       "sharding is not modelled");
}

/*
 * A layout's training stack (recipe.h): the framework profile
 * (parallel.profile) and what it sets unless the scenario gives it, the
 * precision recipe (workload.recipe) and LoRA/QLoRA (workload.lora).
 */
static void load_stack(ld *L, const config_setting_t *root, dam_scenario *s)
{
    const config_setting_t *p = member(L, root, "parallel", "", 0);
    const config_setting_t *w = member(L, root, "workload", "", 0);
    if (stack_profile(L, root, p, s) && stack_recipe(L, p, w, s))
        stack_lora(L, w, s);
}

/*
 * The parallel layout (layout.h): degrees, schedule, batch as
 * micro-batches, sharding, recomputation, overlap, a straggler. dp may be
 * left out (the GPUs it leaves). The rules of dam_layout_check are
 * reported at the key they concern.
 */
void dam_ld_load_parallel(ld *L, const config_setting_t *root,
                          dam_scenario *s)
{
    config_setting_t *p = group(L, root, "parallel", "", 0);
    if (!p)
        return;
    dam_layout *l = &s->layout;
    dam_layout_init(l);
    l->on = 1;
    dam_load_check(L, p, TABLE("parallel"));
    if (s->mode != DAM_MODE_TRAINING) {
        dam_diag_error(L->d, AT(p),
                       "'parallel' layouts are for training (scenario.mode "
                       "is \"%s\")",
                       dam_mode_name(s->mode));
        return;
    }
    int errs = L->d->nerr;
    hook_ctx c = {root, NULL, 0, 0};
    dam_load_rows(L, p, TABLE("parallel"), parallel_hook, &c);
    int have_dp = c.have_dp, gb = c.gb;
    load_stack(L, root, s);
    if (L->d->nerr > errs)
        return;

    int64_t gpus = dam_scenario_gpus(s);
    int64_t mp = (int64_t)l->tp * l->cp * l->pp;
    if (!have_dp) {
        if (mp <= 0 || gpus < mp || gpus % mp != 0) {
            dam_diag_error(L->d, AT(p),
                           "tp x cp x pp = %d x %d x %d = %lld does not "
                           "divide the %lld GPUs (give 'parallel.dp' or "
                           "change the degrees)",
                           l->tp, l->cp, l->pp, (long long)mp,
                           (long long)gpus);
            return;
        }
        l->dp = (int)(gpus / mp);
    }
    int line_gb = line_of(member(L, p, "global_batch", "", 0));
    int64_t per = (int64_t)l->dp * l->micro_batch;
    if (per <= 0 || gb % per != 0) {
        dam_diag_error(L->d, L->file, line_gb,
                       "'parallel.global_batch' (%d sequences) is not a "
                       "multiple of dp x micro_batch = %d x %d = %lld",
                       gb, l->dp, l->micro_batch, (long long)per);
        return;
    }
    l->micro_batches = (int)(gb / per);
    s->workload.batch_size = l->micro_batch;

    dam_error e;
    dam_layout_rule rule;
    if (dam_layout_check(l, &s->workload.model, gpus, s->workload.seq_len,
                         &rule, &e) != DAM_OK) {
        static const char *const key_of[] = {
            [DAM_LAYOUT_PRODUCT] = "dp", [DAM_LAYOUT_TP] = "tp",
            [DAM_LAYOUT_PP] = "pp",      [DAM_LAYOUT_VPP] = "vpp",
            [DAM_LAYOUT_CP] = "cp",      [DAM_LAYOUT_EP] = "ep",
            [DAM_LAYOUT_BATCH] = "global_batch",
            [DAM_LAYOUT_ZERO] = "fsdp",  [DAM_LAYOUT_MODEL] = "",
            [DAM_LAYOUT_SLOW] = "straggler"};
        const char *key = key_of[rule] ? key_of[rule] : "";
        config_setting_t *at = key[0] ? member(L, p, key, "", 0) : NULL;
        if (!at && rule == DAM_LAYOUT_VPP)
            at = member(L, p, "schedule", "", 0);
        if (!at && rule == DAM_LAYOUT_PRODUCT)
            at = member(L, root, "machine", "", 0);
        dam_diag_error(L->d, AT(at ? at : p), "%s", e.msg);
    }
    /* A deterministic pipeline reaches its steady state in one step: a
     * few steps and replications do, unless the scenario says otherwise. */
    config_setting_t *pl = member(L, root, "pipeline", "", 0);
    if (!pl || !member(L, pl, "steps", "", 0))
        s->pipeline.steps = 4;
    if (!pl || !member(L, pl, "warmup_steps", "", 0))
        s->pipeline.warmup_steps = 1;
    if (!pl || !member(L, pl, "replications", "", 0))
        s->pipeline.replications = 2;
}
