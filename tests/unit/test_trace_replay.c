/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_trace_replay.c: the profiler-trace reader (model/kineto.h), the
 * dependency graph and its replay (solver/replay.h) and the trace levers
 * (solver/trace_whatif.h): synthetic traces for each kind of dependency,
 * bad traces, and the real traces in tests/data/traces.
 */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "model/alloc.h"
#include "model/catalog.h"
#include "model/device.h"
#include "model/kineto.h"
#include "solver/replay.h"
#include "solver/trace_whatif.h"
#include "solver/whatif.h"

/* ---- synthetic traces: events in microseconds --------------------------------- */

static char text[1 << 18];
static size_t len;

static void begin(void)
{
    len = (size_t)snprintf(text, sizeof text,
                           "{\"deviceProperties\": [{\"name\": \"NVIDIA "
                           "A100-SXM4-80GB\", \"totalGlobalMem\": 85e9}],"
                           " \"traceEvents\": [");
}

/* A complete event: cat, name, pid, tid, ts, dur, correlation (-1: none). */
static void ev(const char *cat, const char *name, int pid, int tid,
               double ts, double dur, int corr)
{
    char args[64] = "{}";
    if (corr >= 0)
        snprintf(args, sizeof args, "{\"correlation\": %d}", corr);
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": "
                            "\"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                            "\"dur\": %.3f, \"args\": %s}",
                            text[len - 1] == '[' ? "" : ", ", cat, name, pid,
                            tid, ts, dur, args);
}

static void end(void)
{
    len += (size_t)snprintf(text + len, sizeof text - len, "]}");
}

static void call(const char *name, double ts, double dur, int corr)
{
    ev("cuda_runtime", name, 1, 1, ts, dur, corr);
}

static void kernel(const char *name, int stream, double ts, double dur,
                   int corr)
{
    ev("kernel", name, 0, stream, ts, dur, corr);
}

static void step(double ts, double dur)
{
    ev("user_annotation", "ProfilerStep#1", 1, 1, ts, dur, -1);
}

/* Build and replay the graph of t when rc (its load) is DAM_OK. */
static int build_replay(dam_ktrace *t, dam_rgraph *g, int rc)
{
    dam_error e;
    if (rc == DAM_OK)
        rc = dam_rgraph_build(g, t, &e);
    if (rc == DAM_OK)
        rc = dam_replay_run(g, &e);
    return rc;
}

/* Load text and build the graph; 0 on success. */
static int build(dam_ktrace *t, dam_rgraph *g, const char *what)
{
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load(t, what, text, len, &d);
    for (size_t i = 0; i < d.n; i++)
        printf("  %s\n", d.items[i].msg);
    dam_diag_free(&d);
    dam_error e;
    if (rc == DAM_OK)
        rc = dam_rgraph_build(g, t, &e);
    if (rc == DAM_OK)
        rc = dam_replay_run(g, &e);
    dam_check(rc == DAM_OK, "%s: reads, builds and replays", what);
    return rc;
}

/* The replayed step after scaling device work of class c by f. */
static double scaled(const dam_rgraph *g, int c, double f)
{
    dam_rgraph h;
    dam_rgraph_copy(&h, g);
    for (int i = 0; i < h.nnodes; i++)
        if (h.nodes[i].kind == DAM_RNODE_GPU && h.nodes[i].kclass == c)
            h.nodes[i].dur *= f;
    dam_error e;
    double s = dam_replay_run(&h, &e) == DAM_OK ? dam_replay_step(&h, 1)
                                                 : -1.0;
    dam_rgraph_free(&h);
    return s;
}

/* A GEMM on stream 7, then an elementwise kernel on stream 8 that waits
 * for it (a stream wait on an event), then a device sync. */
static void stream_wait(void)
{
    begin();
    step(0, 530);
    call("cudaLaunchKernel", 10, 5, 1);
    call("cudaLaunchKernel", 20, 5, 2);
    call("cudaDeviceSynchronize", 30, 490, -1);
    kernel("ampere_sgemm_128x64_nn", 7, 15, 300, 1);
    kernel("vectorized_elementwise_kernel", 8, 317, 200, 2);
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "stream wait") == DAM_OK) {
        dam_check_int(g.n_xstream, 1, "stream wait: one cross-stream edge");
        dam_check_int(g.n_sync, 1, "stream wait: one host sync");
        dam_check_rel(dam_replay_step(&g, 1), 530e-6, 1e-9,
                      "stream wait: replay reproduces the step");
        dam_check_rel(scaled(&g, DAM_KCLASS_GEMM, 2.0), 830e-6, 1e-6,
                      "stream wait: a GEMM twice as long delays the "
                      "waiting kernel and the sync by 300 us");
        dam_check_rel(scaled(&g, DAM_KCLASS_ELEMENTWISE, 0.5), 430e-6, 1e-6,
                      "stream wait: the waiting kernel at half its length "
                      "ends the step 100 us sooner");
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* The host polls an event (cudaEventQuery) until the kernel is done. */
static void event_sync(void)
{
    begin();
    step(0, 340);
    call("cudaLaunchKernel", 10, 5, 1);
    for (int i = 0; i < 5; i++)
        call("cudaEventQuery", 40 + 70 * i, 2, -1);
    call("cudaEventQuery", 316, 2, -1);
    call("cudaLaunchKernel", 325, 5, 2);
    kernel("ampere_sgemm_128x64_nn", 7, 15, 300, 1);
    kernel("vectorized_elementwise_kernel", 7, 331, 5, 2);
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "event sync") == DAM_OK) {
        dam_check_rel(dam_replay_step(&g, 1), 340e-6, 1e-9,
                      "event sync: replay reproduces the step");
        dam_check_rel(scaled(&g, DAM_KCLASS_GEMM, 0.5), 190e-6, 1e-6,
                      "event sync: the polling ends when the kernel does "
                      "(150 us sooner at half its length)");
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* A cuda_sync record (Kineto with CUDA sync events): kind, its stream
 * (the lane it is on), the stream and event record it waits on (-1: none),
 * the call's correlation id. */
static void sync_rec(const char *kind, int stream, int wait_stream,
                     int wait_corr, double ts, int corr)
{
    len += (size_t)snprintf(text + len, sizeof text - len,
                            ", {\"ph\": \"X\", \"cat\": \"cuda_sync\", "
                            "\"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
                            "\"ts\": %.3f, \"dur\": 1, \"args\": "
                            "{\"cuda_sync_kind\": \"%s\", \"stream\": %d, "
                            "\"wait_on_stream\": %d, "
                            "\"wait_on_cuda_event_record_corr_id\": %d, "
                            "\"correlation\": %d}}",
                            kind, stream, ts, kind, stream, wait_stream,
                            wait_corr, corr);
}

/* The replayed step of the current text after scaling class c by f; with
 * the graph's count of cuda_sync edges in *nrec. */
static double text_scaled(const char *what, int c, double f, long *nrec)
{
    dam_ktrace t;
    dam_rgraph g;
    double s = -1.0;
    if (build(&t, &g, what) == DAM_OK) {
        s = scaled(&g, c, f);
        *nrec = g.n_cuda_sync;
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
    return s;
}

/* cuda_sync records as edges: a stream wait 30 us after the work it waits
 * for (beyond the cross-stream window: only the record finds it), and a
 * stream sync whose own stream's work ends before another stream's. */
static void sync_records(void)
{
    long n = -1;
    char m[200];
    for (int with = 0; with < 2; with++) {
        const char *how = with ? "recorded" : "not recorded";
        begin();
        step(0, 600);
        call("cudaLaunchKernel", 10, 5, 1);
        call("cudaEventRecord", 20, 2, 2);
        call("cudaStreamWaitEvent", 25, 2, 3);
        call("cudaLaunchKernel", 30, 5, 4);
        call("cudaDeviceSynchronize", 40, 515, -1);
        kernel("ampere_sgemm_128x64_nn", 7, 15, 300, 1);
        kernel("vectorized_elementwise_kernel", 8, 345, 200, 4);
        if (with)
            sync_rec("Stream Wait Event", 8, 7, 2, 26, 3);
        end();
        double s = text_scaled("stream wait record", DAM_KCLASS_GEMM, 2.0, &n);
        snprintf(m, sizeof m, "stream wait (%s): %d cuda_sync edge", how,
                 with);
        dam_check_int(n, with, m);
        snprintf(m, sizeof m, "stream wait (%s): a GEMM twice as long %s",
                 how, with ? "delays the waiting kernel, the sync and the "
                             "step by 300 us"
                           : "is not waited for (no edge)");
        dam_check_rel(s, with ? 900e-6 : 600e-6, 1e-6, m);
    }
    for (int with = 0; with < 2; with++) {
        const char *how = with ? "recorded" : "not recorded";
        begin();
        step(0, 200);
        call("cudaLaunchKernel", 10, 5, 1);
        call("cudaLaunchKernel", 20, 5, 2);
        call("cudaStreamSynchronize", 30, 100, 3);
        kernel("ampere_sgemm_128x64_nn", 7, 15, 100, 1);
        kernel("vectorized_elementwise_kernel", 8, 25, 95, 2);
        if (with)
            sync_rec("Stream Sync", 7, -1, -1, 31, 3);
        end();
        double gemm = text_scaled("stream sync record", DAM_KCLASS_GEMM, 2.0,
                                  &n);
        double elem = text_scaled("stream sync record",
                                  DAM_KCLASS_ELEMENTWISE, 2.0, &n);
        snprintf(m, sizeof m, "stream sync (%s): %d cuda_sync edge", how,
                 with);
        dam_check_int(n, with, m);
        snprintf(m, sizeof m, "stream sync (%s): the sync %s the GEMM on "
                 "its stream", how, with ? "waits for" : "does not wait for");
        dam_check_rel(gemm, with ? 300e-6 : 200e-6, 1e-6, m);
        snprintf(m, sizeof m, "stream sync (%s): the sync %s the kernel on "
                 "the other stream", how,
                 with ? "does not wait for" : "waits for");
        dam_check_rel(elem, with ? 200e-6 : 295e-6, 1e-6, m);
    }
}

/* The H100 step of a 370 us kernel "name" launched inside a convolution
 * operator written as op_json (NULL: no operator), in a 400 us step. */
static double conv_step(const dam_catalog *cat, const char *op_json,
                        const char *name, long *nconv, float *gemm)
{
    begin();
    step(0, 400);
    if (op_json)
        len += (size_t)snprintf(text + len, sizeof text - len, ", %s",
                                op_json);
    call("cudaLaunchKernel", 10, 5, 1);
    call("cudaDeviceSynchronize", 30, 360, -1);
    kernel(name, 7, 15, 370, 1);
    end();
    dam_ktrace t;
    dam_rgraph g;
    double step = -1.0;
    if (build(&t, &g, "conv") == DAM_OK) {
        *nconv = g.n_conv;
        for (int i = 0; i < g.nnodes; i++)
            if (g.nodes[i].kind == DAM_RNODE_GPU)
                memcpy(gemm, g.nodes[i].gemm, 4 * sizeof *gemm);
        dam_tlever l;
        dam_error e;
        dam_tlever_parse("gpu=H100-SXM5-80GB", &l, &e);
        dam_twhatif *w = dam_malloc(sizeof *w);
        if (dam_trace_whatif(&g, cat, &l, 1, 0, 1, w, &e) == DAM_OK)
            step = w->rows[1].step_s;
        dam_free(w);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
    return step;
}

/* A shaped operator on another thread, at the time of a launch: not the
 * launch's operator, so the kernel gets no shape. */
static void shape_other_thread(void)
{
    begin();
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                            "\"aten::mm\", \"pid\": 1, \"tid\": 2, \"ts\": 5, "
                            "\"dur\": 20, \"args\": {\"Input Dims\": "
                            "[[512, 1024], [1024, 1024]]}}");
    step(0, 400);
    call("cudaLaunchKernel", 10, 5, 1);
    call("cudaDeviceSynchronize", 30, 360, -1);
    kernel("ampere_sgemm_128x64_nn", 7, 15, 370, 1);
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "shape on another thread") == DAM_OK)
        dam_check_int(g.n_shaped, 0, "shape on another thread: not taken");
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* Convolution shapes: cudnn_convolution's input [32, 64, 56, 56] and
 * weight [128, 64, 3, 3] at stride 2, padding 1 give an output of 28 x 28:
 * M = 32 x 28 x 28, N = 128, K = 64 x 9. An FFT kernel inside it (left
 * elementwise by the name rules) becomes compute of that shape; a layout
 * kernel stays memory-bound. */
static void conv_shapes(const dam_catalog *cat)
{
    static const char *op =
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
        "\"aten::cudnn_convolution\", \"pid\": 1, \"tid\": 1, \"ts\": 5, "
        "\"dur\": 20, \"args\": {\"Input Dims\": [[32, 64, 56, 56], "
        "[128, 64, 3, 3], [], [], [], [], [], [], []], \"Concrete Inputs\": "
        "[\"\", \"\", \"[1, 1]\", \"[2, 2]\", \"[1, 1]\", \"1\", \"False\", "
        "\"False\", \"True\"]}}";
    const dam_gpu *a = dam_catalog_gpu(cat, "A100-SXM4-80GB");
    const dam_gpu *h = dam_catalog_gpu(cat, "H100-SXM5-80GB");
    double m = 32.0 * 28 * 28, n = 128, k = 64.0 * 9;
    double ta = dam_device_gemm_time(a, DAM_FP32, m, n, k, 1, 4, NULL);
    double th = dam_device_gemm_time(h, DAM_FP32, m, n, k, 1, 4, NULL);
    long nconv = -1;
    float gm[4] = {0};
    double s = conv_step(cat, op, "void fft2d_r2c_32x32<float>", &nconv, gm);
    dam_check_int(nconv, 1, "conv: the FFT kernel is convolution work");
    dam_check(gm[0] == (float)m && gm[1] == 128.0f && gm[2] == (float)k &&
                  gm[3] == 1.0f,
              "conv: M %.0f, N %.0f, K %.0f (want 25088, 128, 576)",
              (double)gm[0], (double)gm[1], (double)gm[2]);
    /* the step ends 15 us after the kernel, which starts at 15 */
    dam_check_rel(s, 15e-6 + 370e-6 * th / ta + 15e-6, 1e-6,
                  "conv: the kernel scaled by the device model's fp32 GEMM "
                  "of its shape");
    double mem = a->mem_bw * a->dev.mem.v / (h->mem_bw * h->dev.mem.v);
    double plain = conv_step(cat, NULL, "void fft2d_r2c_32x32<float>",
                             &nconv, gm);
    dam_check_int(nconv, 0, "conv: without the operator, no shape");
    dam_check_rel(plain, 15e-6 + 370e-6 * mem + 15e-6, 1e-6,
                  "conv: without it the kernel scales by bandwidth");
    double layout = conv_step(cat, op, "void cudnn::ops::nchwToNhwcKernel",
                              &nconv, gm);
    dam_check(nconv == 0 && fabs(layout - plain) < 1e-12,
              "conv: a layout kernel inside the operator stays memory-bound");
    static const char *back =
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
        "\"aten::convolution_backward\", \"pid\": 1, \"tid\": 1, \"ts\": "
        "5, \"dur\": 20, \"args\": {\"Input Dims\": [[32, 128, 28, 28], "
        "[32, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], [], "
        "[]]}}";
    conv_step(cat, back, "sm80_xmma_dgrad_implicit_gemm_tf32f32", &nconv, gm);
    dam_check(gm[0] == (float)m && gm[1] == 128.0f && gm[2] == (float)k,
              "conv backward: the output size from the gradient's dims "
              "(M %.0f)", (double)gm[0]);
    static const char *plain_op =
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::conv2d\", "
        "\"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 20, \"args\": "
        "{\"Input Dims\": [[32, 64, 56, 56], [128, 64, 3, 3], []]}}";
    conv_step(cat, plain_op, "sm80_xmma_fprop_implicit_gemm_tf32f32", &nconv,
              gm);
    dam_check(gm[0] == 32.0f * 56 * 56 && gm[2] == (float)k,
              "conv without Concrete Inputs: stride 1, same size (M %.0f)",
              (double)gm[0]);
    /* each spatial dimension with its own stride, padding and dilation:
     * height (56 + 2 x 1 - 1 x 2 - 1) / 2 + 1 = 28, width
     * (56 + 0 - 2 x 2 - 1) / 1 + 1 = 52 */
    static const char *uneven =
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
        "\"aten::cudnn_convolution\", \"pid\": 1, \"tid\": 1, \"ts\": 5, "
        "\"dur\": 20, \"args\": {\"Input Dims\": [[32, 64, 56, 56], "
        "[128, 64, 3, 3], [], [], [], [], [], [], []], \"Concrete Inputs\": "
        "[\"\", \"\", \"[1, 0]\", \"[2, 1]\", \"[1, 2]\", \"1\", \"False\", "
        "\"False\", \"True\"]}}";
    conv_step(cat, uneven, "void fft2d_r2c_32x32<float>", &nconv, gm);
    dam_check(gm[0] == 32.0f * 28 * 52 && gm[2] == (float)k,
              "conv: stride, padding and dilation per dimension (M %.0f, "
              "want 46592)",
              (double)gm[0]);
}

/* batch=2,from=1: a GEMM (200 us) and an elementwise kernel (100 us) take
 * twice as long, the optimizer kernel (50 us), the launches and the host
 * gaps do not; the row compares samples per second. With the GEMM's shape
 * the device model says how much longer it takes. */
static void batch_lever(const dam_catalog *cat)
{
    for (int shaped = 0; shaped < 2; shaped++) {
        begin();
        step(0, 400);
        if (shaped)
            len += (size_t)snprintf(
                text + len, sizeof text - len,
                ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                "\"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 9, \"dur\": 3, "
                "\"args\": {\"Input Dims\": [[512, 1024], [1024, 1024]]}}");
        call("cudaLaunchKernel", 10, 1, 1);
        call("cudaLaunchKernel", 12, 1, 2);
        call("cudaLaunchKernel", 14, 1, 3);
        call("cudaDeviceSynchronize", 16, 364, -1);
        kernel("ampere_sgemm_128x64_nn", 7, 20, 200, 1);
        kernel("vectorized_elementwise_kernel", 7, 221, 100, 2);
        kernel("multi_tensor_apply_kernel", 7, 322, 50, 3);
        end();
        dam_ktrace t;
        dam_rgraph g;
        if (build(&t, &g, "batch") == DAM_OK) {
            dam_tlever l;
            dam_error e;
            dam_check(dam_tlever_parse("batch=2,from=1", &l, &e) == DAM_OK,
                      "batch: the lever parses");
            const dam_gpu *a = dam_catalog_gpu(cat, "A100-SXM4-80GB");
            double f = 2.0;
            if (shaped)
                f = dam_device_gemm_time(a, DAM_FP32, 1024, 1024, 1024, 1, 4,
                                         NULL) /
                    dam_device_gemm_time(a, DAM_FP32, 512, 1024, 1024, 1, 4,
                                         NULL);
            double want = 400e-6 + 200e-6 * (f - 1.0) + 100e-6;
            dam_twhatif *w = dam_malloc(sizeof *w);
            if (dam_trace_whatif(&g, cat, &l, 1, 0, 1, w, &e) == DAM_OK) {
                dam_check_rel(w->rows[1].step_s, want, 1e-6,
                              shaped ? "batch x2 (shaped): the GEMM by the "
                                       "device model at twice M, the "
                                       "elementwise kernel x2, the rest fixed"
                                     : "batch x2: GEMM and elementwise x2, "
                                       "optimizer, launches and gaps fixed");
                dam_check_rel(w->rows[1].speedup, 2.0 * 400e-6 / want, 1e-6,
                              "batch x2: the speed-up is per sample");
                /* shaped: 512 -> 1024 rows go from split-K to two waves
                 * in the device model (3x the time): per sample slower */
                dam_check(w->rows[1].verdict == (shaped ? DAM_VERDICT_HURTS
                                                        : DAM_VERDICT_WORKS),
                          "batch x2: %s", shaped
                              ? "hurts (the device model's GEMM at twice M "
                                "is 3x as long)"
                              : "works (fixed costs shared by twice the "
                                "samples)");
            }
            dam_free(w);
        }
        dam_rgraph_free(&g);
        dam_ktrace_free(&t);
    }
    dam_tlever l;
    dam_error e;
    dam_check(dam_tlever_parse("batch=64", &l, &e) == DAM_EINPUT &&
                  strstr(e.msg, "batch size"),
              "batch without from= refused (%s)", e.msg);
    dam_check(dam_tlever_parse("batch=0,from=8", &l, &e) == DAM_EINPUT,
              "batch=0 refused");
}

/* CUDA graphs (trace_whatif.h: each kernel waits for the first launch of
 * its step on its thread): a launch and its kernel done before the first
 * ProfilerStep belong to no step, so they leave the step's prediction as
 * it is without them. */
static double graphs_step(const dam_catalog *cat, int before)
{
    begin();
    if (before) {
        call("cudaLaunchKernel", 2, 1, 9);
        kernel("vectorized_elementwise_kernel", 7, 4, 2, 9);
    }
    step(20, 200);
    call("cudaLaunchKernel", 30, 50, 1);
    call("cudaLaunchKernel", 85, 5, 2);
    call("cudaLaunchKernel", 95, 5, 3);
    call("cudaDeviceSynchronize", 105, 85, -1);
    kernel("ampere_sgemm_128x64_nn", 7, 82, 40, 1);
    kernel("vectorized_elementwise_kernel", 7, 123, 30, 2);
    kernel("vectorized_elementwise_kernel", 7, 154, 30, 3);
    end();
    dam_ktrace t;
    dam_rgraph g;
    double step_s = -1.0;
    if (build(&t, &g, before ? "graphs, a launch before the step"
                             : "graphs") == DAM_OK) {
        dam_tlever l;
        dam_error e;
        dam_twhatif *w = dam_malloc(sizeof *w);
        if (dam_tlever_parse("cuda_graphs=1", &l, &e) == DAM_OK &&
            dam_trace_whatif(&g, cat, &l, 1, 0, 1, w, &e) == DAM_OK &&
            w->rows[1].step_s > 0.0 && w->rows[1].speedup >= 1.0)
            step_s = w->rows[1].step_s;
        dam_free(w);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
    return step_s;
}

static void graphs_before_steps(const dam_catalog *cat)
{
    double a = graphs_step(cat, 0), b = graphs_step(cat, 1);
    dam_check(a > 0.0 && fabs(b - a) <= 1e-9 * a,
              "cuda_graphs: a launch before the first step leaves the "
              "step's prediction (%.6g us without it, %.6g us with it)",
              a * 1e6, b * 1e6);
}

/* More threads and names than the reader's first hash tables hold (1024
 * slots, grown at half load): 1,500 host threads, each with its own
 * operator name. */
static void many_lanes(void)
{
    begin();
    step(0, 400);
    for (int i = 0; i < 1500; i++) {
        char name[32];
        snprintf(name, sizeof name, "aten::op%d", i);
        ev("cpu_op", name, 1, 1000 + i, 1 + 0.1 * i, 0.05, -1);
    }
    call("cudaLaunchKernel", 10, 5, 1);
    kernel("ampere_sgemm_128x64_nn", 7, 15, 300, 1);
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "many lanes") == DAM_OK) {
        dam_check_int(t.nlanes, 1502, "many lanes: 1,500 threads, the step "
                      "thread and a stream, each its own lane");
        int distinct = t.nnames >= 1503;
        for (int i = 0; i < t.nlanes && distinct; i++)
            for (int j = i + 1; j < t.nlanes && j < i + 3; j++)
                distinct &= strcmp(t.lanes[i].tid, t.lanes[j].tid) ||
                            strcmp(t.lanes[i].pid, t.lanes[j].pid);
        dam_check(distinct, "many lanes: %d names, lanes distinct", t.nnames);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* Backward GEMMs on stream 7, an all-reduce on stream 20 after the first,
 * the optimizer after the all-reduce. */
static void allreduce(const dam_catalog *cat)
{
    begin();
    step(0, 400);
    call("cudaLaunchKernel", 10, 5, 1);
    call("cudaLaunchKernel", 20, 5, 2);
    call("cudaLaunchKernel", 30, 5, 3);
    call("cudaLaunchKernel", 40, 5, 4);
    call("cudaStreamSynchronize", 50, 325, -1);
    kernel("ampere_sgemm_128x64_nn", 7, 15, 100, 1);
    kernel("ampere_sgemm_128x64_nn", 7, 116, 100, 2);
    kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 20, 117, 200, 3);
    kernel("multi_tensor_apply_kernel", 7, 319, 50, 4);
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "all-reduce") == DAM_OK) {
        dam_check_int(g.n_xstream, 2, "all-reduce: after the first GEMM, "
                      "and before the optimizer");
        dam_tbreak br;
        dam_replay_breakdown(&g, &br);
        dam_check_rel(br.comm_total, 200e-6, 1e-6,
                      "all-reduce: 200 us of collectives");
        dam_check_rel(br.part[DAM_TTERM_COMM], 101e-6, 1e-6,
                      "all-reduce: 101 us of it exposed (216 to 317)");
        dam_tlever l;
        dam_error e;
        dam_check(dam_tlever_parse("overlap=1", &l, &e) == DAM_OK,
                  "all-reduce: overlap=1 parses");
        dam_twhatif *w = dam_malloc(sizeof *w);
        if (dam_trace_whatif(&g, cat, &l, 1, 0, 1, w, &e) == DAM_OK) {
            /* without the wait the optimizer follows the second GEMM
             * (ends 216 us) instead of the all-reduce (ends 317 us) */
            dam_check(w->rows[1].step_s < w->rows[0].step_s - 90e-6,
                      "all-reduce: overlap lets the optimizer run before "
                      "the all-reduce ends (%.1f -> %.1f us)",
                      w->rows[0].step_s * 1e6, w->rows[1].step_s * 1e6);
        }
        dam_free(w);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* The step waits 400 us on the data loader before its copy and kernel. */
static void loader_stall(const dam_catalog *cat)
{
    begin();
    step(0, 570);
    ev("cpu_op", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter."
       "__next__", 1, 1, 5, 400, -1);
    call("cudaMemcpyAsync", 410, 5, 1);
    call("cudaLaunchKernel", 420, 5, 2);
    call("cudaStreamSynchronize", 430, 130, -1);
    ev("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, 415, 10, 1);
    kernel("ampere_sgemm_128x64_nn", 7, 426, 130, 2);
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "loader stall") == DAM_OK) {
        dam_tbreak br;
        dam_replay_breakdown(&g, &br);
        dam_check_rel(br.part[DAM_TTERM_DATA], 400e-6, 1e-6,
                      "loader stall: 400 us of data wait");
        dam_check(br.bound == DAM_BOUND_DATA, "loader stall: data binds");
        dam_tlever l[2];
        dam_error e;
        dam_check(dam_tlever_parse("loader_workers=4,from=1", &l[0], &e) ==
                      DAM_OK, "loader stall: loader_workers parses");
        dam_check(dam_tlever_parse("loader_workers=4", &l[1], &e) ==
                      DAM_EINPUT, "loader stall: without from= refused (%s)",
                  e.msg);
        dam_twhatif *w = dam_malloc(sizeof *w);
        if (dam_trace_whatif(&g, cat, l, 1, 0, 1, w, &e) == DAM_OK) {
            dam_check_rel(w->rows[1].step_s, 270e-6, 1e-6,
                          "loader stall: four times the workers leave a "
                          "quarter of the wait (570 -> 270 us)");
            dam_check(w->rows[1].verdict == DAM_VERDICT_WORKS,
                      "loader stall: the lever works");
        }
        dam_free(w);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* A GEMM whose operator records its input shapes: the gpu= lever scales
 * it by the device model's time of that GEMM on each GPU. */
static void shapes(const dam_catalog *cat)
{
    begin();
    step(0, 400);
    len += (size_t)snprintf(text + len, sizeof text - len,
                            ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                            "\"aten::addmm\", \"pid\": 1, \"tid\": 1, "
                            "\"ts\": 5, \"dur\": 20, \"args\": {\"Input Dims\": "
                            "[[1024], [8192, 4096], [4096, 1024], [], []]}}");
    call("cudaLaunchKernel", 10, 5, 1);
    call("cudaDeviceSynchronize", 30, 360, -1);
    kernel("ampere_sgemm_128x64_nn", 7, 15, 370, 1);
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "shapes") == DAM_OK) {
        dam_check_int(g.n_shaped, 1, "shapes: the GEMM has its shape");
        int k = -1;
        for (int i = 0; i < g.nnodes; i++)
            if (g.nodes[i].kind == DAM_RNODE_GPU)
                k = i;
        dam_check(k >= 0 && g.nodes[k].gemm[0] == 8192.0f &&
                      g.nodes[k].gemm[1] == 1024.0f &&
                      g.nodes[k].gemm[2] == 4096.0f &&
                      g.nodes[k].gemm[3] == 1.0f,
                  "shapes: M 8192, N 1024, K 4096 from addmm's inputs");
        const dam_gpu *a = dam_catalog_gpu(cat, "A100-SXM4-80GB");
        const dam_gpu *h = dam_catalog_gpu(cat, "H100-SXM5-80GB");
        double ta = dam_device_gemm_time(a, DAM_FP32, 8192, 1024, 4096, 1,
                                         4, NULL);
        double th = dam_device_gemm_time(h, DAM_FP32, 8192, 1024, 4096, 1,
                                         4, NULL);
        dam_tlever l;
        dam_error e;
        dam_tlever_parse("gpu=H100-SXM5-80GB", &l, &e);
        dam_twhatif *w = dam_malloc(sizeof *w);
        if (dam_trace_whatif(&g, cat, &l, 1, 0, 1, w, &e) == DAM_OK)
            /* the step ends 10 us after the kernel, which starts at 15 */
            dam_check_rel(w->rows[1].step_s, 15e-6 + 370e-6 * th / ta +
                                                 15e-6, 1e-6,
                          "shapes: the kernel scaled by the device "
                          "model's fp32 GEMM of that shape");
        dam_free(w);
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* Launches linked by "ac2g" flow pairs alone (no correlation in args). */
static void flows_only(void)
{
    begin();
    step(0, 200);
    call("cudaLaunchKernel", 10, 5, -1);
    call("cudaDeviceSynchronize", 20, 170, -1);
    kernel("ampere_sgemm_128x64_nn", 7, 40, 140, -1);
    len += (size_t)snprintf(text + len, sizeof text - len,
                            ", {\"ph\": \"s\", \"cat\": \"ac2g\", \"id\": 9, "
                            "\"pid\": 1, \"tid\": 1, \"ts\": 10}"
                            ", {\"ph\": \"f\", \"cat\": \"ac2g\", \"id\": 9, "
                            "\"pid\": 0, \"tid\": 7, \"ts\": 40, \"bp\": \"e\"}");
    end();
    dam_ktrace t;
    dam_rgraph g;
    if (build(&t, &g, "flows only") == DAM_OK) {
        dam_check(t.nflows == 1 && t.flows_used == 1 && t.linked == 1,
                  "flows only: the pair links the kernel to its launch");
        dam_check_int(g.n_launch, 1, "flows only: one launch edge");
        dam_check_rel(scaled(&g, DAM_KCLASS_GEMM, 0.5), 130e-6, 1e-6,
                      "flows only: the sync follows the kernel (70 us "
                      "sooner at half its length)");
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* ---- bad traces ------------------------------------------------------------------------ */

static void bad(const char *what, const char *txt, const char *want)
{
    dam_ktrace t;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load(&t, "bad.json", txt, strlen(txt), &d);
    int found = 0;
    for (size_t i = 0; i < d.n; i++)
        found |= strstr(d.items[i].msg, want) != NULL;
    dam_check(rc == DAM_EINPUT && found, "bad trace, %s: refused with '%s' "
              "(%s)", what, want, d.n ? d.items[0].msg : "no message");
    dam_diag_free(&d);
    dam_ktrace_free(&t);
}

static void bad_traces(void)
{
    bad("not JSON", "hello", "expected a '{'");
    bad("no events", "{\"a\": 1}", "no \"traceEvents\"");
    bad("cut short", "{\"traceEvents\": [{\"ph\": \"X\"", "ends inside");
    bad("event not an object", "{\"traceEvents\": [1]}",
        "event 0 (byte 17): not an object");
    bad("no ts", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", "
        "\"name\": \"k\", \"pid\": 0, \"tid\": 7, \"dur\": 1}]}",
        "event 0 (byte 17): \"k\": 'ts' and 'dur'");
    bad("negative dur", "{\"traceEvents\": [{}, {\"ph\": \"X\", \"cat\": "
        "\"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, "
        "\"dur\": -1}]}", "event 1 (byte 21)");
    bad("ts beyond 1e17 us", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": "
        "\"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1e300, "
        "\"dur\": 1}]}", "|ts| <= 1e17");
    bad("args not an object", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": "
        "\"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, "
        "\"dur\": 1, \"args\": 3}]}", "'args' must be an object");
    bad("no kernels", "{\"traceEvents\": []}", "no GPU kernels");
    bad("text after", "{\"traceEvents\": []} x", "text after");
    bad("syntax in an event", "{\"traceEvents\": [{\"ph\": X}]}",
        "not a JSON trace: event 0");
    static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00};
    dam_ktrace t;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load(&t, "bad.json.gz", (const char *)gz, sizeof gz,
                             &d);
    dam_check(rc == DAM_EINPUT && d.n == 1 &&
                  strstr(d.items[0].msg, "not a complete gzip"),
              "bad trace, truncated gzip: refused");
    dam_diag_free(&d);
    dam_ktrace_free(&t);
}

/* ---- the real traces ------------------------------------------------------------------ */

static void real(const dam_catalog *cat, const char *file, long kernels,
                 long nccl, int steps, double measured_ms)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/traces/%s", DAM_SOURCE_DIR,
             file);
    dam_ktrace t;
    dam_rgraph g;
    memset(&g, 0, sizeof g);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load(&t, path, NULL, 0, &d);
    dam_diag_free(&d);
    dam_error e;
    rc = build_replay(&t, &g, rc);
    dam_check(rc == DAM_OK, "%s: reads, builds and replays", file);
    if (rc == DAM_OK) {
        dam_check_int(t.nkind[DAM_KEV_KERNEL], kernels, file);
        dam_check_int(t.nnccl, nccl, "NCCL kernels");
        dam_check_int(g.nsteps, steps, "ProfilerStep spans");
        dam_check(t.linked > 0 && g.n_launch == t.linked,
                  "%s: %ld launches linked", file, t.linked);
        double m = dam_replay_step(&g, 0), r = dam_replay_step(&g, 1);
        if (measured_ms > 0.0)
            dam_check_rel(m, measured_ms * 1e-3, 5e-4,
                          "median measured step");
        dam_check(fabs(r - m) <= 0.03 * m,
                  "%s: replay %.3f ms within 3 %% of measured %.3f ms",
                  file, r * 1e3, m * 1e3);
        dam_tbreak br;
        dam_replay_breakdown(&g, &br);
        double sum = 0.0;
        for (int k = 0; k < DAM_TTERM_COUNT; k++)
            sum += br.part[k];
        dam_check_rel(sum * br.steps, br.window_s, 1e-9,
                      "breakdown parts add up to the steps");
        /* the binding term's share of the mean step: its parts over the
         * step (window / steps), the largest of shares that add to 1 */
        double bound_part = 0.0;
        for (int k = 0; k < DAM_TTERM_COUNT; k++)
            if (dam_tterm_bound((dam_tterm)k) == br.bound)
                bound_part += br.part[k];
        dam_check(fabs(br.bound_share -
                           bound_part * br.steps / br.window_s) <=
                          1e-9 * br.bound_share &&
                      br.bound_share >= 1.0 / DAM_BOUND_COUNT &&
                      br.bound_share <= 1.0 + 1e-12,
                  "%s: %s binds, %.1f %% of the mean step of %d", file,
                  dam_bound_name(br.bound), 100.0 * br.bound_share,
                  br.steps);
        /* device work scaled: the step moves the right way */
        dam_check(scaled(&g, DAM_KCLASS_GEMM, 0.5) <= r * (1 + 1e-12) &&
                      scaled(&g, DAM_KCLASS_GEMM, 2.0) >= r * (1 - 1e-12),
                  "%s: shorter GEMMs never lengthen the step, longer "
                  "never shorten it", file);
        if (t.device[0] && strstr(t.device, "A100")) {
            dam_tlever l;
            dam_tlever_parse("gpu=H100-SXM5-80GB", &l, &e);
            dam_twhatif *w = dam_malloc(sizeof *w);
            rc = dam_trace_whatif(&g, cat, &l, 1, 8, 1, w, &e);
            dam_check(rc == DAM_OK && w->nrows == 2 &&
                          w->rows[1].verdict != DAM_VERDICT_FAILED &&
                          w->rows[1].has_interval &&
                          w->rows[1].speedup >= 1.0 &&
                          w->rows[1].speedup_lo <= w->rows[1].speedup_hi,
                      "%s: H100 gets a verdict (%s, %.3fx, %.3fx-%.3fx)",
                      file, dam_verdict_name((dam_verdict)w->rows[1].verdict),
                      w->rows[1].speedup, w->rows[1].speedup_lo,
                      w->rows[1].speedup_hi);
            if (rc == DAM_OK)
                dam_check_rel(w->rows[0].step_s, w->measured_mean_s, 1e-6,
                              "the baseline row replays the measured mean "
                              "step");
            /* "GEMM kernels whose name did not say" (trace_whatif.h):
             * the GEMM and attention kernels without a precision, and no
             * other kernel */
            long unknown = 0, gemms = 0;
            for (int i = 0; i < g.nnodes; i++) {
                const dam_rnode *n = &g.nodes[i];
                int gemm = n->kind == DAM_RNODE_GPU &&
                           (n->kclass == DAM_KCLASS_GEMM ||
                            n->kclass == DAM_KCLASS_ATTENTION);
                gemms += gemm;
                unknown += gemm && n->prec < 0;
            }
            dam_check(rc == DAM_OK && w->gemm_unknown == unknown &&
                          unknown <= gemms,
                      "%s: %ld GEMM kernels of %ld name no precision (the "
                      "what-if counts %ld)", file, unknown, gemms,
                      w->gemm_unknown);
            dam_free(w);
        }
    }
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* ---- several ranks: tests/data/traces/job-a100-2ranks ---------------------------- */

/* Rank 0's own wait in step 5 by construction (make_job.py): rank 1 reaches
 * each all-reduce 40 % of its length late, so rank 0 waits that long. Read
 * from rank 0's trace alone, without the barrier code. */
static double constructed_wait(const char *path)
{
    dam_ktrace t;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load(&t, path, NULL, 0, &d);
    dam_diag_free(&d);
    double a = 0.0, b = -1.0, sum = 0.0;
    for (size_t i = 0; rc == DAM_OK && i < t.nev; i++)
        if (t.ev[i].kind == DAM_KEV_STEP && t.ev[i].step == 5) {
            a = t.ev[i].ts;
            b = a + t.ev[i].dur;
        }
    for (size_t i = 0; rc == DAM_OK && i < t.nev; i++)
        if (t.ev[i].kind == DAM_KEV_KERNEL && t.ev[i].ts >= a &&
            t.ev[i].ts < b &&
            !strncmp(dam_ktrace_name(&t, &t.ev[i]), "ncclKernel_AllReduce",
                     20))
            sum += 0.4 * t.ev[i].dur;
    dam_ktrace_free(&t);
    return sum;
}

static void job(const dam_catalog *cat)
{
    char dir[512], r0[600];
    snprintf(dir, sizeof dir, "%s/tests/data/traces/job-a100-2ranks",
             DAM_SOURCE_DIR);
    snprintf(r0, sizeof r0, "%s/rank0.trace.json.gz", dir);
    dam_ktrace t;
    dam_rgraph g;
    memset(&g, 0, sizeof g);
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load_dir(&t, dir, &d);
    for (size_t i = 0; i < d.n; i++)
        printf("  %s\n", d.items[i].msg);
    dam_diag_free(&d);
    dam_error e;
    rc = build_replay(&t, &g, rc);
    dam_check(rc == DAM_OK, "job: the folder reads, builds and replays");
    if (rc != DAM_OK) {
        dam_rgraph_free(&g);
        dam_ktrace_free(&t);
        return;
    }
    dam_check_int(t.nranks, 2, "job: two ranks");
    dam_check(t.ranks[0].rank == 0 && t.ranks[1].rank == 1,
              "job: ranks in order (0, 1)");
    dam_check_int(t.ncoll, 7, "job: ProfilerStep#5's 7 collectives matched "
                  "(rank 1 has no step 4)");
    dam_check_int(g.nbarriers, 7, "job: a barrier per matched collective");
    /* rank 1's clock runs 0.75 s ahead (make_job.py): what the traces'
     * own clocks differ by, less the shift found, is that offset */
    double offset = (t.ranks[1].origin_us - t.ranks[0].origin_us) * 1e-6 -
                    (t.ranks[1].shift_s - t.ranks[0].shift_s);
    dam_check(fabs(offset - 0.75) < 1e-6, "job: alignment removes rank 1's "
              "0.75 s clock offset (found %.9f s)", offset);
    dam_check_rel(dam_replay_step(&g, 1), dam_replay_step(&g, 0), 1e-6,
                  "job: the replay reproduces the job's measured step");
    dam_check_int(dam_replay_slowest(&g, 1), 1, "job: rank 1 (the straggler) "
                  "is the slowest");
    dam_rrank x0, x1;
    dam_replay_rank(&g, 0, &x0);
    dam_replay_rank(&g, 1, &x1);
    dam_check_rel(x0.wait_s, constructed_wait(r0), 1e-4,
                  "job: rank 0 waits for rank 1 as long as the trace was "
                  "built to (40 % of each all-reduce of step 5)");
    dam_check(x1.wait_s >= 0.0 && x1.wait_s < 1e-6,
              "job: rank 1 waits for no one (%.3g s)", x1.wait_s);
    dam_check(x1.last == 7 && x0.last == 2, "job: rank 1 reaches all 7 "
              "collectives last, rank 0 only the 2 broadcasts (a tie: "
              "both) (%ld, %ld)", x1.last, x0.last);
    /* the ranks are coupled: rank 1 reaching its first collective 1 ms
     * later makes rank 0 wait 1 ms longer */
    dam_rgraph h;
    dam_rgraph_copy(&h, &g);
    double first = INFINITY;
    int fa = -1;
    for (int i = 0; i < h.nnodes; i++)
        if (h.nodes[i].kind == DAM_RNODE_ARRIVE &&
            t.lanes[h.nodes[i].lane].rank == 1 && h.nodes[i].m_start < first) {
            first = h.nodes[i].m_start;
            fa = i;
        }
    dam_rrank y0;
    if (fa >= 0) {
        h.nodes[fa].delay += 1e-3;
        if (dam_replay_run(&h, &e) == DAM_OK) {
            dam_replay_rank(&h, 0, &y0);
            dam_check_rel(y0.wait_s - x0.wait_s, 1e-3, 1e-6,
                          "job: rank 1 1 ms late at its first collective: "
                          "rank 0 waits 1 ms longer");
        }
    }
    dam_rgraph_free(&h);
    dam_tlever l;
    dam_tlever_parse("gpu=H100-SXM5-80GB", &l, &e);
    dam_twhatif *w = dam_malloc(sizeof *w);
    rc = dam_trace_whatif(&g, cat, &l, 1, 8, 1, w, &e);
    dam_check(rc == DAM_OK && w->nranks == 2 && w->nrows == 2 &&
                  w->rows[1].verdict != DAM_VERDICT_FAILED &&
                  w->rows[1].has_interval,
              "job: H100 gets a verdict on the job's step");
    if (rc == DAM_OK) {
        dam_check_rel(w->rows[0].step_s, w->measured_mean_s, 1e-6,
                      "job: the baseline row replays the measured step");
        dam_check_rel(w->rows[0].step_s,
                      w->rows[0].rank_step_s[w->rows[0].slowest], 1e-12,
                      "job: the row's step is its slowest rank's");
    }
    dam_free(w);
    dam_rgraph_free(&g);
    dam_ktrace_free(&t);
}

/* Folders that are not one job. */
static void bad_jobs(void)
{
    static const struct {
        const char *dir, *want;
    } cases[] = {
        {"", "no traces"}, /* an empty folder made here */
        {"/nonexistent-folder-of-ranks", "cannot read the folder"},
        {DAM_SOURCE_DIR "/tests/data/traces", "no distributedInfo"},
    };
    char empty[] = "/tmp/damsim-empty-XXXXXX";
    if (!mkdtemp(empty))
        snprintf(empty, sizeof empty, "/");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dam_ktrace t;
        dam_diag d;
        dam_diag_init(&d);
        const char *dir = cases[i].dir[0] ? cases[i].dir : empty;
        int rc = dam_ktrace_load_dir(&t, dir, &d);
        int found = 0;
        for (size_t j = 0; j < d.n; j++)
            found |= strstr(d.items[j].msg, cases[i].want) != NULL;
        dam_check(rc == DAM_EINPUT && found, "bad folder %s: refused with "
                  "'%s'", dir, cases[i].want);
        dam_diag_free(&d);
        dam_ktrace_free(&t);
    }
    rmdir(empty);
}

/* libdamsim's allocations, counted: tests/CMakeLists.txt links this test
 * with the linker's --wrap on model/alloc.h's functions, so every call the
 * libraries make to them lands here first (calls inside alloc.c itself,
 * dam_strdup's and dam_grow's, are counted through those two). Blocks and
 * bytes (malloc_usable_size) held now. */
static long live_blocks, allocs;
static long long live_bytes;

void *__real_dam_malloc(size_t n);
void *__real_dam_calloc(size_t count, size_t size);
void *__real_dam_realloc(void *p, size_t n);
void *__real_dam_grow(void *p, size_t elem, size_t need, size_t *cap);
char *__real_dam_strdup(const char *s);
void __real_dam_free(void *p);
void *__wrap_dam_malloc(size_t n);
void *__wrap_dam_calloc(size_t count, size_t size);
void *__wrap_dam_realloc(void *p, size_t n);
void *__wrap_dam_grow(void *p, size_t elem, size_t need, size_t *cap);
char *__wrap_dam_strdup(const char *s);
void __wrap_dam_free(void *p);

static void held(void *p, int sign)
{
    if (p) {
        allocs += sign > 0;
        live_blocks += sign;
        live_bytes += sign * (long long)malloc_usable_size(p);
    }
}

void *__wrap_dam_malloc(size_t n)
{
    void *p = __real_dam_malloc(n);
    held(p, 1);
    return p;
}

void *__wrap_dam_calloc(size_t count, size_t size)
{
    void *p = __real_dam_calloc(count, size);
    held(p, 1);
    return p;
}

void *__wrap_dam_realloc(void *p, size_t n)
{
    held(p, -1);
    void *q = __real_dam_realloc(p, n);
    held(q, 1);
    return q;
}

void *__wrap_dam_grow(void *p, size_t elem, size_t need, size_t *cap)
{
    held(p, -1);
    void *q = __real_dam_grow(p, elem, need, cap);
    held(q, 1);
    return q;
}

char *__wrap_dam_strdup(const char *s)
{
    char *p = __real_dam_strdup(s);
    held(p, 1);
    return p;
}

void __wrap_dam_free(void *p)
{
    held(p, -1);
    __real_dam_free(p);
}

static int job_read(const char *dir)
{
    dam_ktrace t;
    dam_diag d;
    dam_diag_init(&d);
    int rc = dam_ktrace_load_dir(&t, dir, &d);
    dam_diag_free(&d);
    if (rc == DAM_OK)
        dam_ktrace_free(&t);
    return rc;
}

/* Reading a job's folder (several ranks: matched, merged) and freeing it
 * hands back every block it allocated, as a job re-read by every `damsim
 * trace` of a sweep must: none held after, and none held more after five
 * reads than after one. */
static void test_trace_job_memory(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tests/data/traces/job-a100-2ranks",
             DAM_SOURCE_DIR);
    long b0 = live_blocks, a0 = allocs;
    long long y0 = live_bytes;
    int rc = job_read(dir);
    long b1 = live_blocks;
    long long y1 = live_bytes;
    for (int i = 0; i < 4; i++)
        rc |= job_read(dir);
    dam_check(allocs - a0 >= 5 * 2, "job: the reads' allocations are "
              "counted (%ld)", allocs - a0);
    dam_check(rc == DAM_OK && b1 == b0 && y1 == y0,
              "job: a read and free of the folder holds nothing after "
              "(%ld blocks, %lld bytes)", b1 - b0, y1 - y0);
    dam_check(live_blocks == b0 && live_bytes == y0,
              "job: nor do five (%ld blocks, %lld bytes)", live_blocks - b0,
              live_bytes - y0);
}

int main(void)
{
    dam_catalog cat;
    memset(&cat, 0, sizeof cat);
    dam_test_catalog(&cat);
    stream_wait();
    event_sync();
    sync_records();
    many_lanes();
    allreduce(&cat);
    loader_stall(&cat);
    shapes(&cat);
    conv_shapes(&cat);
    shape_other_thread();
    batch_lever(&cat);
    graphs_before_steps(&cat);
    flows_only();
    bad_traces();
    real(&cat, "a100-nccl-train.trace.json.gz", 2700, 21, 3, 222.442);
    real(&cat, "alexnet-a100-train.trace.json.gz", 79, 0, 0, 0.0);
    real(&cat, "mi250-toy-train.trace.json.gz", 14, 0, 2, 0.0);
    real(&cat, "a100-80gb-train-rank0-3steps.trace.json.gz", 3225, 45, 3,
         0.0);
    real(&cat, "recsys-a100-8gpu-3steps.trace.json.gz", 4279, 30, 3, 0.0);
    job(&cat);
    test_trace_job_memory();
    bad_jobs();
    dam_catalog_free(&cat);
    return dam_check_done();
}
