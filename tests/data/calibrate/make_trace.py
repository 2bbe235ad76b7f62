#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""make_trace.py: write a SYNTHETIC torch.profiler trace for damsim's tests.

No GPU was available when damsim's calibration was written, so this script
makes the example trace that tests/data/calibrate/measurements.csv names:
one profiled training step of MPT-1B (d_model 2048, 16 heads, 24 layers,
vocab 50368; llm-foundry's mpt-1b.yaml) on one rank of an 8 x A100 DDP job,
bf16, 8 sequences of 2048 tokens, FlashAttention, fused AdamW. It has the
shape of what torch.profiler (Kinetos's Chrome trace) writes: a
"traceEvents" array of complete events with the categories "kernel",
"gpu_memcpy", "gpu_user_annotation", "user_annotation", "cpu_op" and
"cuda_runtime", timestamps and durations in microseconds, and a
"deviceProperties" list. The kernel names follow the families cuBLAS,
FlashAttention-2, PyTorch's elementwise/reduction kernels, the fused
multi-tensor optimizer and NCCL use on Ampere.

The durations are NOT measurements. Each kernel's time is its work at an
assumed achieved rate (below), times a deterministic jitter of +-3 %:
  GEMM                 200 TFLOP/s (64 % of the A100's 312 bf16 dense peak)
  FlashAttention       150 TFLOP/s forward, 110 backward (causal: half the
                       full-square FLOPs are done)
  elementwise / norms  1.4 TB/s of HBM traffic
  optimizer            1.3 TB/s
  all-reduce           190 GB/s bus bandwidth (ring), 25 MB buckets
                       overlapping the backward pass on their own stream
So the trace is what damsim's calibration should recover those rates
from; it checks the reader and the fit, not the model against a GPU.

usage: python3 make_trace.py > mpt-1b-a100.trace.json
"""

import json
import random

D, HEADS, LAYERS, VOCAB, SEQ, BATCH = 2048, 16, 24, 50368, 2048, 8
T = SEQ * BATCH  # tokens per GPU per step
PARAMS = 1.3154e9  # MPT-1B parameters (tied embedding)
GEMM_RATE, FA_FWD, FA_BWD = 200e12, 150e12, 110e12
EW_BW, OPT_BW, BUSBW = 1.4e12, 1.3e12, 190e9
GAP_US = 2.0  # launch gap between back-to-back kernels

rng = random.Random(20240601)
events = []
corr = [1000]


def jitter():
    return 1.0 + rng.uniform(-0.03, 0.03)


def kernel(t, name, dur_s, stream=7, grid=(108, 1, 1), block=(256, 1, 1),
           cat="kernel", args=None):
    """Append a GPU event starting at t (us); return its end (us)."""
    dur = max(dur_s * 1e6 * jitter(), 1.0)
    corr[0] += 1
    a = {"device": 0, "context": 1, "stream": stream,
         "correlation": corr[0], "External id": corr[0]}
    if cat == "kernel":
        a.update({"grid": list(grid), "block": list(block),
                  "registers per thread": 128, "shared memory": 49152})
    if args:
        a.update(args)
    events.append({"ph": "X", "cat": cat, "name": name, "pid": 0,
                   "tid": stream, "ts": round(t, 3), "dur": round(dur, 3),
                   "args": a})
    return t + dur


GEMM = "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn"
GEMM_NN = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x4_nn"
GEMM_NT = "ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_nt"
LN_FWD = ("void at::native::(anonymous namespace)::vectorized_layer_norm_"
          "kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, "
          "c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, "
          "c10::BFloat16*)")
LN_BWD = ("void at::native::(anonymous namespace)::layer_norm_grad_input_"
          "kernel_vectorized<c10::BFloat16, float>(c10::BFloat16 const*, "
          "c10::BFloat16 const*, float const*, float const*, "
          "c10::BFloat16 const*, c10::BFloat16*, int)")
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::"
       "CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, "
       "at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*,"
       " 3>)")
GELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::"
        "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
        "{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, "
        "at::detail::Array<char*, 2> >")
GELU_BWD = ("void at::native::elementwise_kernel<128, 2, at::native::"
            "gpu_kernel_impl<at::native::GeluBackwardCUDAKernelImpl>(int, "
            "at::native::GeluBackwardCUDAKernelImpl)>")
FA_F = ("void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, "
        "false, false, cutlass::bfloat16_t>, false, true, false, false, "
        "true, true, false>(Flash_fwd_params)")
FA_B = ("void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_"
        "traits<64, 128, 128, 8, 4, 4, 4, false, false, cutlass::bfloat16_t>"
        ", true, false, false, false, true, true>(Flash_bwd_params)")
EMB = ("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::"
       "BFloat16, long, unsigned int, 2, 2, -2, true>")
XENT = ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, "
        "float, float, float, at::native::(anonymous namespace)::"
        "LogSoftMaxForwardEpilogue>(float*, float const*, int)")
ADAM = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
        "at::native::(anonymous namespace)::TensorListMetadata<4>, at::"
        "native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
        "(at::native::ADAM_MODE)1, false>, double*, double, double, double, "
        "double, double, bool, float*, float*>")
NCCL = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def gemm(t, m, n, k, name=GEMM):
    return kernel(t, name, 2.0 * m * n * k / GEMM_RATE, grid=(256, 1, 1)) + GAP_US


def ew(t, name, nbytes):
    return kernel(t, name, nbytes / EW_BW) + GAP_US


def main():
    t0 = 1_700_000_000_000.0  # us, an arbitrary epoch like Kineto's
    events.append({"ph": "X", "cat": "user_annotation",
                   "name": "ProfilerStep#5", "pid": 4242, "tid": 4242,
                   "ts": t0 - 40.0, "dur": 0.0, "args": {"External id": 1}})
    step_event = events[-1]
    t = kernel(t0, "Memcpy HtoD (Pinned -> Device)", 2 * T * 8 / 20e9,
               cat="gpu_memcpy", args={"bytes": 2 * T * 8,
                                       "memory bandwidth (GB/s)": 20.0})
    t += GAP_US
    act = T * D * 2  # bytes of one bf16 activation tensor
    t = ew(t, EMB, 2 * act)
    # forward
    for _ in range(LAYERS):
        t = ew(t, LN_FWD, 2 * act)
        t = gemm(t, T, 3 * D, D)
        t = kernel(t, FA_F, 2.0 * BATCH * SEQ * SEQ * D / FA_FWD) + GAP_US
        t = gemm(t, T, D, D)
        t = ew(t, ADD, 3 * act)
        t = ew(t, LN_FWD, 2 * act)
        t = gemm(t, T, 4 * D, D)
        t = ew(t, GELU, 8 * act)
        t = gemm(t, T, D, 4 * D)
        t = ew(t, ADD, 3 * act)
    t = ew(t, LN_FWD, 2 * act)
    t = gemm(t, T, VOCAB, D)
    t = ew(t, XENT, 2 * T * VOCAB * 4)
    # backward, with gradient buckets all-reduced as they fill
    grad_bytes = PARAMS * 2
    bucket = 25e6
    nbuckets = int(grad_bytes // bucket) + 1
    per_layer = nbuckets / LAYERS
    t = ew(t, XENT, 2 * T * VOCAB * 4)
    t = gemm(t, T, D, VOCAB, GEMM_NN)
    t = gemm(t, VOCAB, D, T, GEMM_NT)
    comm_t, sent = t, 0.0
    for layer in range(LAYERS):
        t = ew(t, ADD, 3 * act)
        t = gemm(t, T, 4 * D, D, GEMM_NN)
        t = gemm(t, 4 * D, D, T, GEMM_NT)
        t = ew(t, GELU_BWD, 12 * act)
        t = gemm(t, T, D, 4 * D, GEMM_NN)
        t = gemm(t, D, 4 * D, T, GEMM_NT)
        t = ew(t, LN_BWD, 4 * act)
        t = gemm(t, T, D, D, GEMM_NN)
        t = gemm(t, D, D, T, GEMM_NT)
        t = kernel(t, FA_B, 2.5 * BATCH * SEQ * SEQ * D / FA_BWD) + GAP_US
        t = gemm(t, T, D, 3 * D, GEMM_NN)
        t = gemm(t, 3 * D, D, T, GEMM_NT)
        t = ew(t, LN_BWD, 4 * act)
        # buckets ready after this layer: all-reduced on stream 20
        target = per_layer * (layer + 1)
        while sent + 1 <= target:
            start = max(comm_t, t)
            comm_t = kernel(start, NCCL,
                            2 * 7 / 8 * bucket / BUSBW, stream=20,
                            grid=(16, 1, 1), block=(640, 1, 1)) + GAP_US
            sent += 1
    while sent < nbuckets:
        start = max(comm_t, t)
        comm_t = kernel(start, NCCL, 2 * 7 / 8 * bucket / BUSBW, stream=20,
                        grid=(16, 1, 1), block=(640, 1, 1)) + GAP_US
        sent += 1
    t = max(t, comm_t)
    # fused AdamW over fp32 master weights, m and v, bf16 grads and copies
    opt_bytes = PARAMS * (2 * (4 + 8) + 2 + 2)
    chunks = 32
    for _ in range(chunks):
        t = kernel(t, ADAM, opt_bytes / chunks / OPT_BW,
                   grid=(320, 1, 1), block=(512, 1, 1)) + GAP_US
    step_event["dur"] = round(t - t0 + 80.0, 3)
    events.append({"ph": "X", "cat": "gpu_user_annotation",
                   "name": "ProfilerStep#5", "pid": 0, "tid": 7, "ts": t0,
                   "dur": round(t - t0, 3), "args": {}})
    # a few host events, as the profiler records them (ignored by damsim)
    events.append({"ph": "X", "cat": "cpu_op", "name": "aten::linear",
                   "pid": 4242, "tid": 4242, "ts": t0 - 30.0, "dur": 12.5,
                   "args": {"External id": 2, "Record function id": 0}})
    events.append({"ph": "X", "cat": "cuda_runtime",
                   "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242,
                   "ts": t0 - 25.0, "dur": 4.1,
                   "args": {"cbid": 211, "correlation": 1001}})
    events.append({"ph": "f", "id": 1001, "pid": 0, "tid": 7, "ts": t0,
                   "cat": "ac2g", "name": "ac2g", "bp": "e"})
    trace = {
        "schemaVersion": 1,
        "damsim_note": "SYNTHETIC trace made by tests/data/calibrate/"
                       "make_trace.py (assumed rates, not a measurement)",
        "deviceProperties": [{
            "id": 0, "name": "NVIDIA A100-SXM4-80GB",
            "totalGlobalMem": 85097971712, "computeMajor": 8,
            "computeMinor": 0, "numSms": 108, "warpSize": 32}],
        "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},
        "traceEvents": events,
        "traceName": "synthetic-mpt-1b-a100",
        "displayTimeUnit": "ms",
    }
    print("{")
    keys = [k for k in trace if k != "traceEvents"]
    for k in keys:
        print(f"  {json.dumps(k)}: {json.dumps(trace[k])},")
    print('  "traceEvents": [')
    print(",\n".join("    " + json.dumps(e, separators=(",", ":"))
                     for e in events))
    print("  ]")
    print("}")


if __name__ == "__main__":
    main()
