/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * profile.h: a PyTorch profiler trace, read into GPU time per operator
 * class per training step (the input of `damsim calibrate` beside measured
 * step times).
 *
 * torch.profiler (Kineto) writes a Chrome trace: a JSON object whose
 * "traceEvents" array holds complete events ("ph": "X") with a category
 * ("cat"), a name, a start "ts" and a duration "dur" in microseconds. GPU
 * activity has the categories "kernel", "gpu_memcpy" and "gpu_memset"
 * (older versions capitalise: "Kernel", "Memcpy", "Memset"); the steps are
 * the "ProfilerStep#N" annotations that profiler.step() records
 * ("user_annotation" or "cpu_op" on the host, "gpu_user_annotation" on the
 * device). Everything else (host operators, runtime calls, flows, Python
 * frames) is ignored.
 *
 * Each kernel is mapped to one class of the model's operators by its name
 * (dam_kernel_classify: cuBLAS/CUTLASS/cuDNN GEMM and convolution kernels,
 * FlashAttention-class kernels, NCCL collectives, multi-tensor optimizer
 * kernels, copies, and the rest as memory-bound elementwise and
 * normalisation kernels). The trace's figures are divided by its number of
 * profiled steps: a trace records whole steps, so a mean per step is what
 * the model predicts. The step is the mean length of the ProfilerStep
 * spans when there are some (host-side; in a steady state the host waits
 * for the device once per step, so both clocks agree), otherwise the span
 * of the GPU activity.
 *
 * Read with jansson. Bad traces (not JSON, no traceEvents, events without
 * numbers, no GPU kernels) are "file:line: error:" diagnostics; the line is
 * jansson's for syntax errors and that of the file otherwise (0).
 */
#ifndef DAM_PROFILE_H
#define DAM_PROFILE_H

#include "model/error.h"

/* Classes of GPU work, mapped to the model's operators. */
typedef enum {
    DAM_KCLASS_GEMM = 0,    /* matmuls and convolutions (matmul phases) */
    DAM_KCLASS_ATTENTION,   /* fused attention kernels (attention phases) */
    DAM_KCLASS_ELEMENTWISE, /* norms, activations, softmax, reductions, casts */
    DAM_KCLASS_OPTIMIZER,   /* multi-tensor optimizer updates */
    DAM_KCLASS_COPY,        /* memcpy and memset (host copies and device copies) */
    DAM_KCLASS_NCCL,        /* collectives */
    DAM_KCLASS_COUNT
} dam_kernel_class;

/* The class's name ("gemm", "attention", ...). */
const char *dam_kernel_class_name(dam_kernel_class k);

/*
 * The class of a GPU event from its category and name (case-insensitive
 * substrings, first rule that matches): gpu_memcpy/gpu_memset -> copy;
 * "nccl" -> nccl; flash/fmha/attention/attn/mha/sdpa -> attention;
 * multi_tensor_apply/adam/sgd_/lamb_stage/lambstage/adagrad/optimizer ->
 * optimizer;
 * gemm/gemv/cutlass/xmma/cublas/nvjet/s16816/h16816/884/dgrad/wgrad/fprop/
 * convolve/conv2d/winograd/splitkreduce -> gemm; everything else ->
 * elementwise.
 */
dam_kernel_class dam_kernel_classify(const char *cat, const char *name);

/* What one trace says about one step. */
typedef struct dam_profile {
    char file[256];                  /* where it was read from */
    char device[96];                 /* deviceProperties[0].name ("" = not said) */
    int steps;                       /* ProfilerStep spans found (1 when none) */
    double step_s;                   /* mean step, s (see above) */
    double time_s[DAM_KCLASS_COUNT]; /* GPU time per step by class, s */
    double kernels[DAM_KCLASS_COUNT];/* GPU events per step by class */
    double busy_s;                   /* union of GPU activity per step, s */
    double nccl_exposed_s;           /* NCCL time overlapping no other GPU
                                        work, per step, s */
    double h2d_bytes;                /* host-to-device bytes per step */
    long events;                     /* GPU events read */
    long unclassified;               /* of them, named by no rule (counted
                                        as elementwise) */
} dam_profile;

/*
 * Read a trace (text == NULL: read path; else parse text, named path in
 * messages). Returns DAM_OK, or DAM_EINPUT with the problems in d.
 */
int dam_profile_load(dam_profile *p, const char *path, const char *text,
                     dam_diag *d);

#endif
