# SPDX-License-Identifier: GPL-3.0-or-later
"""fit_framework.py: refit damsim's default framework constants.

Usage: python3 fit_framework.py DAMSIM

The framework constants of model/device.c dam_framework_default are fitted
on the measurements listed below (the same rows tests/unit/test_calibration.c
checks as FIT RESIDUALS), by least squares on log(model / measured):

  conv_frac fp16 (= bf16), tf32, fp32 and elementwise_frac: NVIDIA's
  PyTorch DeepLearningExamples ResNet-50 training rows of public-cases.csv
  (A100 AMP 2470, A100 TF32 938, V100 AMP 1200, V100 FP32 367 images/s;
  AMP in channels-last and TF32/FP32 in PyTorch's default channels-first,
  as NVIDIA's configs.yml runs them);
  gemm_frac: llm-foundry's five MPT rows on A100 (tokens/s per GPU).

Both fits are coordinate descent with golden-section steps on a log scale
(no dependency beyond the damsim binary). It prints each constant, its
standard error from the curvature of the sum of squares (Gauss-Newton,
numerical derivative; scaled by the residual variance where there are more
rows than constants, else left at the prior sd of device.c) and every row's
residual. Nothing here is validation: these are fit residuals.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

SCEN = """scenario: {{ name = "{cid}"; question = "fit"; mode = "training"; }};
machine: {{ gpu = "{gpu}"; gpus_per_node = {gpn}; nodes = {nodes};
  host: {{ cpu_cores = 256; pcie_gbs = 25.0; }};
  storage: {{ kind = "page_cache"; read_gbs = 1000.0; }};
  network: {{ intra_busbw_gbs = {intra}; inter_busbw_gbs = 200.0; latency_us = 10.0; }}; }};
workload: {{ model = "{model}"; precision = "{prec}"; batch_size = {batch};
  activation_recompute = {rc};{extra}
  framework = {{ {fw} }}; }};
data: {{ samples = 1.0e6; decode_ms = 0.0; decode_on_gpu = false; }};
pipeline: {{ loader_workers = 8; overlap_transfer = true; }};
"""

# (case id, gpu, model, precision, batch, gpus per node, nodes, recompute,
#  measured, kind: 'img' images/s in all, 'tok' tokens/s per GPU, extra keys)
RN50 = [
    ("dle_rn50_a100_1gpu_amp", "A100-SXM4-80GB", "resnet50", "fp16", 256, 1, 1, 0, 2470, "img",
     ' memory_format = "channels_last";'),
    ("dle_rn50_a100_1gpu_tf32", "A100-SXM4-80GB", "resnet50", "tf32", 256, 1, 1, 0, 938, "img",
     ' memory_format = "channels_first";'),
    ("dle_rn50_v100_1gpu_amp", "V100-SXM2-32GB", "resnet50", "fp16", 256, 1, 1, 0, 1200, "img",
     ' memory_format = "channels_last";'),
    ("dle_rn50_v100_1gpu_fp32", "V100-SXM2-32GB", "resnet50", "fp32", 256, 1, 1, 0, 367, "img",
     ' memory_format = "channels_first";'),
]
MPT = [
    ("llmf_MPT-1B_2048_8_a100", "A100-SXM4-80GB", "mpt-1b", "bf16", 8, 8, 1, 0, 20513, "tok", ""),
    ("llmf_MPT-7B_2048_8_a100", "A100-SXM4-80GB", "mpt-7b", "bf16", 8, 8, 1, 0, 4641, "tok", ""),
    ("llmf_MPT-13B_2048_8_a100", "A100-SXM4-80GB", "mpt-13b", "bf16", 8, 8, 1, 0, 2262, "tok", ""),
    ("llmf_MPT-30B_2048_8_a100", "A100-SXM4-80GB", "mpt-30b", "bf16", 8, 8, 1, 1, 916, "tok", ""),
    ("llmf_MPT-70B_2048_64_a100", "A100-SXM4-80GB", "mpt-70b", "bf16", 8, 8, 8, 1, 410, "tok", ""),
]


def fw_text(p):
    parts = []
    conv = []
    for k in ("fp16", "bf16", "tf32", "fp32"):
        key = "conv_" + k
        if key in p:
            conv.append("%s = %.6f;" % (k, p[key]))
    if conv:
        parts.append("conv_frac = { %s };" % " ".join(conv))
    if "mem" in p:
        parts.append("elementwise_frac = %.6f;" % p["mem"])
    if "gemm" in p:
        parts.append("gemm_frac = %.6f;" % p["gemm"])
    return " ".join(parts)


def model_value(damsim, row, p, tmp):
    cid, gpu, model, prec, batch, gpn, nodes, rc, meas, kind, extra = row
    text = SCEN.format(cid=cid, gpu=gpu, gpn=gpn, nodes=nodes,
                       intra="130.0" if gpu.startswith("V100") else "230.0",
                       model=model, prec=prec, batch=batch,
                       rc="true" if rc else "false", extra=extra,
                       fw=fw_text(p))
    path = os.path.join(tmp, cid + ".cfg")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run([damsim, "run", path, "--analytic", "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("%s: %s" % (cid, out.stderr.strip()))
    r = json.loads(out.stdout)["result"]
    if kind == "tok":
        return r["throughput_tokens_per_s"] / r["gpus"]
    return r["throughput_samples_per_s"]


def residuals(damsim, rows, p, tmp):
    return [math.log(model_value(damsim, r, p, tmp) / r[8]) for r in rows]


def sse(res):
    return sum(x * x for x in res)


def golden(f, lo, hi, tol=1e-3):
    """Minimum of f on [lo, hi] (log-spaced golden section)."""
    a, b = math.log(lo), math.log(hi)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(math.exp(c)), f(math.exp(d))
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(math.exp(d))
    return math.exp((a + b) / 2)


def fit(damsim, rows, p, keys, bounds, tmp, sweeps=4):
    for _ in range(sweeps):
        for k in keys:
            def f(v, k=k):
                q = dict(p)
                q[k] = v
                if k == "conv_fp16":
                    q["conv_bf16"] = v
                return sse(residuals(damsim, rows, q, tmp))
            p[k] = golden(f, *bounds[k])
            if k == "conv_fp16":
                p["conv_bf16"] = p[k]
    return p


def std_errors(damsim, rows, p, keys, tmp):
    """Gauss-Newton standard errors (diagonal of (J'J)^-1 x s^2)."""
    r0 = residuals(damsim, rows, p, tmp)
    jac = []
    for k in keys:
        q = dict(p)
        h = 0.01 * p[k]
        q[k] = p[k] + h
        if k == "conv_fp16":
            q["conv_bf16"] = q[k]
        r1 = residuals(damsim, rows, q, tmp)
        jac.append([(a - b) / h for a, b in zip(r1, r0)])
    n, m = len(rows), len(keys)
    # J'J (m x m), inverted by Gauss-Jordan
    a = [[sum(jac[i][t] * jac[j][t] for t in range(n)) for j in range(m)]
         for i in range(m)]
    inv = [[1.0 if i == j else 0.0 for j in range(m)] for i in range(m)]
    for c in range(m):
        piv = max(range(c, m), key=lambda r: abs(a[r][c]))
        a[c], a[piv] = a[piv], a[c]
        inv[c], inv[piv] = inv[piv], inv[c]
        d = a[c][c]
        if abs(d) < 1e-300:
            return [float("nan")] * m, r0
        for j in range(m):
            a[c][j] /= d
            inv[c][j] /= d
        for r in range(m):
            if r != c:
                f = a[r][c]
                for j in range(m):
                    a[r][j] -= f * a[c][j]
                    inv[r][j] -= f * inv[c][j]
    s2 = sse(r0) / (n - m) if n > m else None
    se = [math.sqrt(inv[i][i] * s2) if s2 is not None and inv[i][i] > 0
          else float("nan") for i in range(m)]
    return se, r0


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    damsim = argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        p = {"conv_fp16": 1.09, "conv_bf16": 1.09, "conv_tf32": 0.376,
             "conv_fp32": 1.09, "mem": 0.94, "gemm": 0.79}
        bounds = {"conv_fp16": (0.3, 2.0), "conv_tf32": (0.1, 1.5),
                  "conv_fp32": (0.3, 2.0), "mem": (0.3, 1.5),
                  "gemm": (0.3, 1.3)}
        ck = ["mem", "conv_fp16", "conv_tf32", "conv_fp32"]
        p = fit(damsim, RN50, p, ck, bounds, tmp)
        se, r = std_errors(damsim, RN50, p, ck, tmp)
        print("ResNet-50 rows (fit residuals):")
        for row, x in zip(RN50, r):
            print("  %-26s %+6.1f %%" % (row[0], 100 * (math.exp(x) - 1)))
        for k, e in zip(ck, se):
            print("  %-10s %.3f (se %s: %d rows for %d constants)"
                  % (k, p[k], "n/a" if e != e else "%.3f" % e, len(RN50),
                     len(ck)))
        p = fit(damsim, MPT, p, ["gemm"], bounds, tmp, sweeps=1)
        se, r = std_errors(damsim, MPT, p, ["gemm"], tmp)
        print("MPT rows (fit residuals):")
        for row, x in zip(MPT, r):
            print("  %-26s %+6.1f %%" % (row[0], 100 * (math.exp(x) - 1)))
        print("  %-10s %.3f (se %.3f; residual sd %.3f)"
              % ("gemm", p["gemm"], se[0],
                 math.sqrt(sse(r) / (len(r) - 1))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
