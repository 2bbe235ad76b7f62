/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_lever_table.c: the one lever table is well formed, both parsers
 * read it, and the documentation lists levers from it.
 *
 * - Each entry sits at its kind's index; names are unique; a type's keys
 *   are unique, in range of dam_lever_op, and every main key exists.
 * - Each type's example parses on the command line into an op of that
 *   type; each key parses on its own from the command line (its type's
 *   first acceptable value) and from a scenario file.
 * - The same lever written on the command line and in a scenario file
 *   gives the same op.
 * - scenarios/README.md holds exactly the Markdown table dam_lever_help
 *   prints (so the file reference cannot drift from the table).
 */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/alloc.h"
#include "model/lever.h"
#include "model/loader.h"

static void test_shape(void)
{
    for (int i = 0; i < DAM_LEVER_KIND_COUNT; i++) {
        const dam_lever_type *t = dam_lever_type_get((dam_lever_kind)i);
        dam_check(t && (int)t->kind == i && t->name && t->apply,
                  "entry %d is kind %d with a name and apply function", i,
                  t ? (int)t->kind : -1);
        dam_check(dam_lever_type_find(t->name) == t, "%s: found by name",
                  t->name);
        dam_check(t->main_key < (int)t->nkeys, "%s: main key in range",
                  t->name);
        dam_check(t->quality && t->quality[0] && t->example && t->moves,
                  "%s: quality effect, example and phrase given", t->name);
        dam_check(t->nkeys <= 32, "%s: keys fit the op's set mask", t->name);
        for (size_t k = 0; k < t->nkeys; k++) {
            const dam_lever_key *key = &t->keys[k];
            dam_check(key->offset < sizeof(dam_lever_op) && key->help,
                      "%s.%s: field inside dam_lever_op", t->name, key->name);
            dam_check(dam_lever_key_find(t, key->name) == key,
                      "%s.%s: unique within its type", t->name, key->name);
            const dam_lever_type *o[DAM_LEVER_KIND_COUNT];
            int no = dam_lever_key_owners(key->name, o, DAM_LEVER_KIND_COUNT);
            const dam_lever_type *other = dam_lever_type_find(key->name);
            dam_check(no >= 1 && (!other || other == t || no > 1 ||
                                  other->main_key >= 0),
                      "%s.%s: owned, and not shadowing another lever",
                      t->name, key->name);
        }
        dam_lever lv;
        dam_error e;
        memset(&e, 0, sizeof e);
        dam_check(dam_lever_parse_kv(t->example, &lv, &e) == DAM_OK &&
                      lv.ops[0].kind == t->kind,
                  "%s: its example '%s' parses to it (%s)", t->name,
                  t->example, e.msg);
    }
}

/* A lever in a minimal scenario file; returns the loader's verdict. */
static int load_lever(const char *lever_text, dam_scenario *s,
                      dam_lever_list *lv, dam_catalog *cat, char *msg,
                      size_t n)
{
    static const char fmt[] =
        "scenario: { name = \"t\"; question = \"q?\"; mode = "
        "\"training\"; };\n"
        "machine: { gpu = \"A100-SXM4-80GB\"; gpus_per_node = 8;\n"
        "  host: { cpu_cores = 64; pcie_gbs = 25.0; };\n"
        "  storage: { read_gbs = 10.0; };\n"
        "  network: { intra_busbw_gbs = 230.0; }; };\n"
        "workload: { model = \"resnet50\"; precision = \"bf16\"; "
        "batch_size = 256; };\n"
        "data: { samples = 1.0e6; decode_ms = 5.0; };\n"
        "pipeline: { loader_workers = 4; };\n"
        "levers = ( %s );\n";
    char text[2048];
    snprintf(text, sizeof text, fmt, lever_text);
    dam_diag d;
    dam_diag_init(&d);
    dam_load_options o;
    memset(&o, 0, sizeof o);
    o.levers = lv;
    int rc = dam_scenario_load_with(s, "t.cfg", text, cat, &o, &d);
    msg[0] = '\0';
    if (d.n > 0)
        dam_error_format(&d.items[0], msg, n);
    dam_diag_free(&d);
    return rc;
}

/* The same lever on the command line and in a file: the same op. */
static void same(dam_catalog *cat, const char *kv, const char *file)
{
    dam_scenario *s = dam_malloc(sizeof *s);
    dam_lever_list *fl = dam_malloc(sizeof *fl);
    dam_lever lv;
    dam_error e;
    char msg[600];
    memset(&e, 0, sizeof e);
    int a = dam_lever_parse_kv(kv, &lv, &e);
    int b = load_lever(file, s, fl, cat, msg, sizeof msg);
    dam_check(a == DAM_OK && b == DAM_OK && fl->n == 1 && fl->v[0].nops == 1,
              "'%s' and { %s } both parse (%s%s)", kv, file, e.msg, msg);
    if (a == DAM_OK && b == DAM_OK && fl->n == 1 && fl->v[0].nops == 1) {
        dam_lever_op x = lv.ops[0], y = fl->v[0].ops[0];
        dam_check(memcmp(&x, &y, sizeof x) == 0,
                  "'%s' on the command line equals { %s } in a file", kv,
                  file);
    }
    dam_free(fl);
    dam_free(s);
}

static void test_both_parsers(dam_catalog *cat)
{
    same(cat, "gpu=H100-SXM5-80GB,gpu_hour_usd=4.916",
         "{ name = \"x\"; gpu = \"H100-SXM5-80GB\"; gpu_hour_usd = 4.916; }");
    same(cat, "gpus=16", "{ name = \"x\"; gpus = 16; }");
    same(cat, "quantize=int8,accuracy_delta=-0.4",
         "{ name = \"x\"; quantize = { precision = \"int8\"; "
         "accuracy_delta = -0.4; }; }");
    same(cat, "quantize=int8,delta=-0.4",
         "{ name = \"x\"; quantize = \"int8\"; accuracy_delta = -0.4; }");
    same(cat, "prune=2:4", "{ name = \"x\"; prune = \"2:4\"; }");
    same(cat, "prune=structured:0.3",
         "{ name = \"x\"; prune = { kind = \"structured\"; sparsity = 0.3; "
         "}; }");
    same(cat, "loader_workers=16,prefetch_factor=4",
         "{ name = \"x\"; prefetch = { loader_workers = 16; "
         "prefetch_factor = 4; }; }");
    same(cat, "loader_workers=16,prefetch_factor=4",
         "{ name = \"x\"; loader_workers = 16; prefetch_factor = 4; }");
    same(cat, "chinchilla=optimal,fit=epoch2024",
         "{ name = \"x\"; chinchilla = { tokens_per_param = 0.0; fit = "
         "\"epoch2024\"; }; }");
    same(cat, "chinchilla=20", "{ name = \"x\"; chinchilla = 20; }");
    same(cat, "sharded=1,shard_mb=256",
         "{ name = \"x\"; data_format = { sharded = true; shard_mb = 256.0; "
         "}; }");
    same(cat, "fuse=0.5", "{ name = \"x\"; fuse = 0.5; }");
    same(cat, "cuda_graphs=on", "{ name = \"x\"; cuda_graphs = true; }");
    same(cat, "batch_size=512", "{ name = \"x\"; batch_size = 512; }");
    same(cat, "distill=66e6,accuracy_delta=-1",
         "{ name = \"x\"; distill = { params = 66e6; accuracy_delta = -1.0; "
         "}; }");
    same(cat, "gpu_hour_usd=1.5", "{ name = \"x\"; gpu_hour_usd = 1.5; }");
    same(cat, "tp=8,pp=4,micro_batch=2,recompute=full",
         "{ name = \"x\"; layout = { tp = 8; pp = 4; micro_batch = 2; "
         "recompute = \"full\"; }; }");
    same(cat, "nvlink_domain=72,nic_gbs=100",
         "{ name = \"x\"; nvlink_domain = 72; nic_gbs = 100.0; }");
    same(cat, "weights=int4", "{ name = \"x\"; weights = \"int4\"; }");
    same(cat, "kv_cache=fp8", "{ name = \"x\"; kv_cache = \"fp8\"; }");
    same(cat, "tensor_parallel=4", "{ name = \"x\"; tensor_parallel = 4; }");
    same(cat, "token_budget=4096,chunk_tokens=512",
         "{ name = \"x\"; scheduler = { token_budget = 4096; chunk_tokens "
         "= 512; }; }");
    same(cat, "max_seqs=128,preemption=swap",
         "{ name = \"x\"; max_seqs = 128; preemption = \"swap\"; }");
    same(cat, "prefill_replicas=1,decode_replicas=2,kv_link_gbs=50",
         "{ name = \"x\"; disaggregate = { prefill_replicas = 1; "
         "decode_replicas = 2; kv_link_gbs = 50.0; }; }");
}

static void test_readme(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenarios/README.md", DAM_SOURCE_DIR);
    FILE *f = fopen(path, "rb");
    dam_check(f != NULL, "scenarios/README.md opens");
    if (!f)
        return;
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    size_t need = dam_lever_help(NULL, 0, 1) + 1;
    char *table = dam_malloc(need);
    dam_lever_help(table, need, 1);
    dam_check(strstr(text, table) != NULL,
              "scenarios/README.md lists the levers from the table (run "
              "'damsim catalog levers' and see dam_lever_help(markdown))");
    if (!strstr(text, table))
        fprintf(stderr, "expected in scenarios/README.md:\n%s", table);
    dam_free(table);
}

int main(void)
{
    dam_catalog cat;
    gsl_set_error_handler_off();
    memset(&cat, 0, sizeof cat);
    dam_test_catalog(&cat);
    test_shape();
    test_both_parsers(&cat);
    test_readme();
    dam_catalog_free(&cat);
    return dam_check_done();
}
