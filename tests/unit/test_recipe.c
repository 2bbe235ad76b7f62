/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_recipe.c: precision recipes, framework profiles and LoRA/QLoRA on
 * a layout (model/recipe.h, issue 23).
 *
 * Labels. "by construction": what the recipe says, counted by hand
 * (which phases an FP8 recipe may change, bytes per parameter, the saved
 * linear inputs, adapter parameters). "published": a figure from the
 * source the data cites (QLoRA's 4.127 bits; the 207 M trainable
 * parameters of Llama 3 70B at rank 16 on every projection follow from
 * its shapes).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/layout.h"
#include "model/lever.h"
#include "model/loader.h"
#include "model/recipe.h"
#include "solver/parallel.h"
#include "solver/result.h"

static dam_catalog cat;

/* s with the command-line lever kv applied. */
static int with_lever(const dam_scenario *in, const char *kv,
                      dam_scenario *out)
{
    dam_lever lv;
    dam_error e;
    int ok = dam_lever_parse_kv(kv, &lv, &e) == DAM_OK &&
             dam_lever_apply(in, &lv, &cat, out, &e) == DAM_OK;
    if (!ok)
        printf("  lever %s: %s\n", kv, e.msg);
    dam_check(ok, "lever %s applies", kv);
    return ok;
}

static double phase_time(const dam_result *r, const char *name)
{
    for (int i = 0; i < r->nphases; i++)
        if (strcmp(r->phases[i].name, name) == 0)
            return r->phases[i].time;
    return -1.0;
}

/* FP8 and BF16 of the same layout differ only where the recipe says. */
static void fp8_vs_bf16(void)
{
    static dam_scenario f8, b16;
    static dam_result rf, rb;
    if (dam_test_scenario("llama3-8b-fp8-nemo-h100.cfg", &cat, &f8) != DAM_OK)
        return;
    dam_check_int(f8.workload.recipe, DAM_RECIPE_FP8_DELAYED,
                  "NeMo's FP8 is TE delayed scaling");
    if (!with_lever(&f8, "precision=bf16", &b16))
        return;
    dam_check_int(b16.workload.recipe, DAM_RECIPE_BF16,
                  "the recipe follows the precision lever");
    dam_parallel_solve(&f8, &rf);
    dam_parallel_solve(&b16, &rb);
    /* by construction: attention and elementwise kernels stay BF16 */
    dam_check_rel(phase_time(&rf, "attention"), phase_time(&rb, "attention"),
                  1e-12, "attention time equal in FP8 and BF16");
    dam_check_rel(phase_time(&rf, "elementwise"),
                  phase_time(&rb, "elementwise"), 1e-12,
                  "elementwise time equal in FP8 and BF16");
    double df = phase_time(&rf, "dense"), db = phase_time(&rb, "dense");
    dam_check(df < db && df > 0.5 * db,
              "FP8 linear layers faster than BF16 but not twice (with "
              "casts): %.3f s vs %.3f s", df, db);
    /* by construction: weights + 2 bytes a parameter (FP8 row- and
     * column-wise copies), gradients and optimizer state unchanged */
    dam_layout_params P;
    dam_layout_param_split(&f8.workload.model.arch.tf, &P);
    dam_check_rel(rf.memory.weights - rb.memory.weights, 2.0 * P.total,
                  1e-9, "FP8 weight copies: 2 bytes a parameter (tp 1)");
    dam_check_rel(rf.memory.gradients, rb.memory.gradients, 1e-12,
                  "gradients unchanged by the recipe");
    dam_check_rel(rf.memory.gradients, 4.0 * P.total, 1e-9,
                  "NeMo keeps fp32 main gradients (4 bytes a parameter)");
    dam_check_rel(rf.memory.optimizer, rb.memory.optimizer, 1e-12,
                  "optimizer state unchanged by the recipe");
    /* by construction: the saved linear inputs (QKV and MLP inputs d,
     * attention output h_q d_h, down-projection input f per token) at
     * 1 byte instead of 2; one micro-batch in flight (pp 1) */
    const dam_transformer *t = &f8.workload.model.arch.tf;
    double tokens = 8192.0 / 2.0; /* cp 2 */
    double lin = 2.0 * t->hidden + t->heads * (t->hidden / t->heads) + t->ffn;
    dam_check_rel(rb.memory.activations - rf.memory.activations,
                  t->layers * tokens * lin * 1.0, 1e-9,
                  "saved linear inputs in FP8 (1 byte less an element)");

    /* Block scaling on Blackwell: MXFP8's weight copies carry an E8M0
     * scale per 32 elements, NVFP4's are half a byte with an E4M3 scale
     * per 16: 2 (1 + 1/32) and 2 (1/2 + 1/16) bytes a parameter against
     * delayed scaling's 2 ([MX], [NVFP4]; mutation testing: MXFP8's copies
     * at 1 (1 + 1/32) went unnoticed) */
    static dam_scenario bw, mx;
    static dam_result rw, rm;
    if (!with_lever(&f8, "gpu=B200-HGX-180GB", &bw))
        return;
    dam_parallel_solve(&bw, &rw);
    static const struct {
        int recipe;
        double copy;
        const char *what;
    } blk[] = {{DAM_RECIPE_MXFP8, 2.0 * (1.0 + 1.0 / 32.0),
                "MXFP8 weight copies: 2 (1 + 1/32) bytes a parameter"},
               {DAM_RECIPE_NVFP4, 2.0 * (0.5 + 1.0 / 16.0),
                "NVFP4 weight copies: 2 (1/2 + 1/16) bytes a parameter"}};
    for (size_t i = 0; i < sizeof blk / sizeof blk[0]; i++) {
        mx = bw;
        mx.workload.recipe = blk[i].recipe;
        dam_parallel_solve(&mx, &rm);
        dam_check_rel(rm.memory.weights - rw.memory.weights,
                      (blk[i].copy - 2.0) * P.total, 1e-9, blk[i].what);
    }
}

/* A profile sets gradient widths; a scenario key overrides it. */
static void profiles(void)
{
    dam_check_int(dam_profile_find("nemo"), DAM_PROFILE_NEMO, "nemo found");
    dam_check_int(dam_profile_find("nemo2"), -1, "unknown profile");
    dam_check_rel(dam_profile_get(DAM_PROFILE_MEGATRON)->grad_bytes, 4.0,
                  1e-12, "Megatron-Core: fp32 main gradients");
    dam_check_rel(dam_profile_get(DAM_PROFILE_FSDP2)->grad_comm_bytes, 2.0,
                  1e-12, "FSDP2 reduces in the parameters' 16-bit dtype");
    dam_check_int(dam_recipe_default(DAM_FP8, DAM_PROFILE_TORCHTITAN),
                  DAM_RECIPE_FP8_CURRENT, "torchtitan: tensorwise FP8");
    dam_check_int(dam_recipe_default(DAM_BF16, DAM_PROFILE_NONE),
                  DAM_RECIPE_BF16, "bf16 -> BF16 mixed precision");
    dam_check_int(dam_recipe_find("nvfp4"), DAM_RECIPE_NVFP4, "nvfp4 found");
    /* published: QLoRA section 3 */
    dam_check_rel(dam_nf4_bytes() * 8.0, 4.127, 1e-3, "NF4: 4.127 bits");
}

/* A layout scenario on 8 H100 with workload and parallel groups `w`, `p`
 * (their contents, braces included). */
static void layout_text(char *text, size_t n, const char *w, const char *p)
{
    snprintf(text, n,
             "scenario: { name = \"t\"; question = \"q\"; mode = "
             "\"training\"; };\n"
             "machine: { gpu = \"H100-SXM5-80GB\"; gpus_per_node = 8; "
             "host: { cpu_cores = 8; pcie_gbs = 50.0; }; storage: { "
             "kind = \"local_nvme\"; read_gbs = 5.0; }; };\n"
             "workload: %s;\nparallel: %s;\n"
             "data: { samples = 1e6; };\npipeline: { loader_workers = 1; "
             "};\n",
             w, p);
}

/* Llama 3 8B in bf16 at 8k tokens under FSDP (ZeRO 3, selective
 * recomputation) with micro-batch mb, global batch gb and the framework
 * profile prof, solved by the parallel solver into r; DAM_OK or the
 * loader's code. */
static int llama8b_fsdp(int mb, int gb, const char *prof, dam_scenario *s,
                        dam_result *r)
{
    char text[2048], par[256];
    snprintf(par, sizeof par,
             "{ micro_batch = %d; global_batch = %d; zero = 3; "
             "recompute = \"selective\"; profile = \"%s\"; }",
             mb, gb, prof);
    layout_text(text, sizeof text,
                "{ model = \"llama3-8b\"; precision = \"bf16\"; "
                "seq_len = 8192; }",
                par);
    int rc = dam_test_scenario_text(text, &cat, s);
    if (rc == DAM_OK)
        dam_parallel_solve(s, r);
    return rc;
}

/* torchtitan's eager chains and op-level checkpointing on a layout: the
 * same FSDP layout under megatron-core, torchtitan-compile and torchtitan
 * differs where the profiles say (recipe.c [TT-AC], [TT-OPS]). */
static void torchtitan_ops(void)
{
    static dam_scenario s[3];
    static dam_result r[3];
    static const char *const prof[3] = {"megatron-core", "torchtitan-compile",
                                        "torchtitan"};
    for (int i = 0; i < 3; i++)
        if (llama8b_fsdp(1, 8, prof[i], &s[i], &r[i]) != DAM_OK)
            return;
    /* by construction: the eager chains move more bytes, compiled blocks
     * fewer, Megatron's fused kernels fewest */
    double e0 = phase_time(&r[0], "elementwise"),
           e1 = phase_time(&r[1], "elementwise"),
           e2 = phase_time(&r[2], "elementwise");
    dam_check(e0 < e1 && e1 < 0.5 * e2,
              "elementwise: megatron %.3f < torchtitan-compile %.3f < "
              "half of torchtitan eager %.3f s", e0, e1, e2);
    /* op-level checkpointing recomputes wk, wo and w3: 80 of the block's
     * 218 M linear weights once more, against 3 x 218 M for forward and
     * backward (the head aside) */
    double d0 = phase_time(&r[0], "dense"), d2 = phase_time(&r[2], "dense");
    double want = 1.0 + (1024.0 + 4096.0 + 14336.0) /
                            (3.0 * (4096.0 + 2.0 * 1024.0 + 4096.0 +
                                    3.0 * 14336.0));
    dam_check_rel(d2 / d0, want, 0.03,
                  "dense time x 1.122 under op-level checkpointing");
    dam_check(r[2].step > r[1].step,
              "step: torchtitan-compile %.3f < torchtitan eager %.3f s",
              r[1].step, r[2].step);
}

/*
 * Activation memory under torchtitan's op-level selective checkpointing
 * (recipe.c [TT-AC]; layout.c sac_per_token), by hand for Llama 3 8B
 * (d 4096, 32 query and 8 KV heads of 128, gated FFN 14336): per token a
 * block keeps its input (4096), the outputs of the 1st, 3rd, 5th and 7th
 * mm of wq wk wv wo w1 w3 w2 (wq 4096, wv 1024, w1 14336, w2 4096), the
 * SDPA output (4096) and its fp32 log-sum-exp (32 x 4 B): 31,744
 * elements at 2 B + 128 B = 63,616 B, where Megatron's selective keeps
 * 69,696 elements (139,392 B: norm, QKV, projection and MLP inputs).
 */
static void sac_memory(void)
{
    const dam_model_spec *m = dam_catalog_model(&cat, "llama3-8b");
    dam_check(m != NULL, "llama3-8b in the catalog");
    if (!m)
        return;
    dam_layout l;
    dam_layout_init(&l);
    l.micro_batch = 2;
    l.recompute = DAM_RECOMPUTE_SELECTIVE;
    dam_state_bytes sb = {2.0, 4.0, 12.0, 0.0, 1, 0.0};
    dam_layout_mem mem;
    double tok = 2.0 * 8192.0;
    dam_layout_memory(&l, m, 8192.0, 2.0, &sb, 0.0, &mem);
    dam_check_rel(mem.act_layer, tok * 63616.0, 1e-12,
                  "op-level SAC, TP 1: 63,616 B per token and block "
                  "(by hand)");
    sb.sac_ops = 0;
    dam_layout_memory(&l, m, 8192.0, 2.0, &sb, 0.0, &mem);
    dam_check_rel(mem.act_layer, tok * 139392.0, 1e-12,
                  "Megatron's selective, TP 1: 139,392 B (by hand)");
    /* TP 8 with sequence parallelism: 4 query heads, 1 KV head; input
     * 512, wq 512, wv 128, w1 1792, w2 4096 (row-parallel, before its
     * reduce-scatter), SDPA 512, reduce-scatter outputs 2 x 512, and
     * 4 x 4 B of log-sum-exp: 8,576 x 2 + 16 = 17,168 B */
    l.tp = 8;
    l.sp = 1;
    sb.sac_ops = 1;
    dam_layout_memory(&l, m, 8192.0, 2.0, &sb, 0.0, &mem);
    dam_check_rel(mem.act_layer, tok * 17168.0, 1e-12,
                  "op-level SAC, TP 8 + SP: 17,168 B per token (by hand)");
    /* end to end: the torchtitan profile keeps 32 such blocks on 8 H100
     * under FSDP (local batch 2); Megatron-Core's count is unchanged */
    static const char *const prof[2] = {"torchtitan", "megatron-core"};
    static const double per_tok[2] = {63616.0, 139392.0};
    for (int i = 0; i < 2; i++) {
        static dam_scenario sc;
        static dam_result r;
        if (llama8b_fsdp(2, 16, prof[i], &sc, &r) != DAM_OK)
            return;
        char what[128];
        snprintf(what, sizeof what, "%s: 32 blocks x %.0f B per token "
                 "(by hand)", prof[i], per_tok[i]);
        dam_check_rel(r.memory.activations, 32.0 * tok * per_tok[i], 1e-9,
                      what);
    }
}

/* QLoRA on 8 L40S: frozen base, adapters, NF4. */
static void qlora(void)
{
    static dam_scenario q, full;
    static dam_result rq, rf;
    if (dam_test_scenario("llama3-70b-qlora-l40s.cfg", &cat, &q) != DAM_OK)
        return;
    full = q;
    full.workload.lora_rank = 0;
    full.workload.lora_nf4 = 0;
    dam_parallel_solve(&q, &rq);
    dam_parallel_solve(&full, &rf);
    /* by construction: 80 blocks x rank 16 x (q, k, v, o: 4d + 2q + 2kv;
     * gate, up, down: 3d + 3f) = 207,093,760 trainable parameters, 2
     * bytes of gradient each */
    double r = 16.0, d = 8192.0, f = 28672.0, kv = 1024.0;
    double a = 80.0 * r * (4.0 * d + 2.0 * d + 2.0 * kv + 3.0 * d + 3.0 * f);
    dam_check_rel(a, 207093760.0, 1e-12, "adapter count by hand");
    dam_check_rel(rq.memory.gradients, 2.0 * a, 1e-9,
                  "only the adapters have gradients");
    dam_check_rel(rq.memory.optimizer, 12.0 * a, 1e-9,
                  "fp32 master + Adam moments for the adapters only");
    /* by construction: the backward of a frozen base has no weight
     * gradients, so with full recomputation it is about twice the
     * forward (recompute + dgrad), not three times */
    const dam_stage *fw = NULL, *bw = NULL, *fw0 = NULL, *bw0 = NULL;
    for (int i = 0; i < rq.nstages; i++) {
        if (strcmp(rq.stages[i].name, "forward") == 0) fw = &rq.stages[i];
        if (strcmp(rq.stages[i].name, "backward") == 0) bw = &rq.stages[i];
        if (strcmp(rf.stages[i].name, "forward") == 0) fw0 = &rf.stages[i];
        if (strcmp(rf.stages[i].name, "backward") == 0) bw0 = &rf.stages[i];
    }
    if (fw && bw && fw0 && bw0) {
        double k = bw->ops / fw->ops, k0 = bw0->ops / fw0->ops;
        dam_check(k > 1.9 && k < 2.1,
                  "QLoRA backward/forward FLOPs %.3f (recompute + dgrad)", k);
        dam_check(k0 > 2.9 && k0 < 3.1,
                  "full fine-tune backward/forward FLOPs %.3f", k0);
    } else {
        dam_check(0, "forward and backward stages present");
    }
    dam_check(rq.memory.fits, "QLoRA 70B fits a 48 GB L40S");
    dam_check(!rf.memory.fits, "a full fine-tune of 70B does not");
    /* weights: blocks in NF4, embedding and head in BF16, adapters BF16 */
    dam_layout_params P;
    dam_layout_param_split(&q.workload.model.arch.tf, &P);
    double blk = P.total - P.embed - P.head;
    double want = blk * dam_nf4_bytes() + (P.embed + P.head) * 2.0 + 2.0 * a;
    dam_check_rel(rq.memory.weights, want, 1e-9, "QLoRA weight bytes");

    /* by construction: ZeRO-Offload of the adapters' optimizer (Ren et
     * al. 2021): gradients (2 bytes) down, the step at host DRAM speed
     * (2 x (4 + 8) + 2 + 2 bytes a trainable parameter, 8 GPUs sharing
     * 300 GB/s), the 16-bit weights of the stage (all of them: ZeRO 0)
     * back, over 25 GB/s; no optimizer state left on the GPU */
    static dam_scenario o;
    static dam_result ro;
    o = q;
    o.layout.offload = 1;
    o.machine.host_mem_bw = 300e9;
    dam_parallel_solve(&o, &ro);
    dam_check_rel(ro.memory.optimizer, 0.0, 1e-12, "offload: no optimizer "
                  "state on the GPU");
    double t = 2.0 * a / 25e9 + 28.0 * a / (300e9 / 8.0) +
               2.0 * P.total / 25e9;
    double got = -1.0;
    for (int i = 0; i < ro.nstages; i++)
        if (strcmp(ro.stages[i].name, "optimizer") == 0)
            got = ro.stages[i].time;
    dam_check_rel(got, t, 1e-9, "offload: optimizer step by hand");
}

/* Bad input: the recipe's rules. */
static void refusals(void)
{
    static const char *const bad[][2] = {
        {"{ model = \"llama3-8b\"; precision = \"bf16\"; "
         "recipe = \"fp8_delayed\"; }",
         "give workload.precision = \"fp8\""},
        {"{ model = \"llama3-8b\"; precision = \"fp8\"; "
         "recipe = \"mxfp8\"; }",
         "Blackwell"},
        {"{ model = \"llama3-8b\"; precision = \"bf16\"; "
         "lora = { rank = 8; targets = \"everything\"; }; }",
         "targets"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[2048];
        layout_text(text, sizeof text, bad[i][0], "{ global_batch = 8; }");
        static dam_scenario s;
        dam_diag d;
        dam_diag_init(&d);
        int rc = dam_scenario_load(&s, "t.cfg", text, &cat, &d);
        int found = 0;
        for (size_t j = 0; j < d.n; j++)
            found |= strstr(d.items[j].msg, bad[i][1]) != NULL;
        dam_check(rc != DAM_OK && found, "refused, saying \"%s\"", bad[i][1]);
        dam_diag_free(&d);
    }
}

int main(void)
{
    dam_test_catalog(&cat);
    fp8_vs_bf16();
    profiles();
    qlora();
    torchtitan_ops();
    sac_memory();
    refusals();
    dam_catalog_free(&cat);
    return dam_check_done();
}
