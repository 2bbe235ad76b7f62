#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property test (issue 21): one true answer on every line.

Over random valid scenarios of every mode (training on one GPU or many,
training with a 3D parallel layout, inference, serving, LLM serving; every
key drawn in the range scenarios/README.md documents, the sizes kept small
enough for CI), `damsim run --json` and `damsim run` are checked against the
model and against themselves:

  interval   the point printed (step, run time, GPU-hours, cost) lies inside
             the 90 % interval printed beside it, which has a width and is
             no narrower than one input's swing of the tornado; so
             does every "v (lo to hi)" of the review (every eighth
             scenario, `report`), every what-if option's, and an LLM
             request alone's;
  fit        memory.fits is false exactly when the answer opens with
             "no: it does not fit"; then page 1 binds on memory capacity
             and quotes no time nor cost (text and review);
  slo        serving: the SLO flags agree (serving.slo_met with
             llm.slo_met, with the answer's words); a deployment that serves
             nothing never meets its SLO; a simulated p99 is not under the
             analytic lone request's floor, and the analytic answer says
             the SLO is missed exactly when that floor is over it;
  cost       cost = GPU-hours x price + kWh x electricity price (the
             scenario's prices, or none);
  finite     no negative (outside the signed fields), null or non-finite
             number anywhere in the JSON;
  bound      the simulated step is not below the printed lower bound
             T_pipe (perfect overlap), beyond the simulation's noise; no
             stage of the iron-law table takes longer alone (D/BW or
             O/(R eta)) than T_pipe, and a row's D_vol / BW is its D/BW;
             the analytic step is not above T_seq (nothing overlapped),
             which is the sum of the table's rows;
  ordered    every set of percentiles is ordered (p50 <= p90/p95 <= p99 <=
             max), and a mean lies between its min and max;
  same       the text's "Answer" line is the JSON's result.answer;
  agree      training: the simulated step is within 0.85x to 2x of the
             analytic step printed beside it (the simulation adds queueing,
             jitter and lockstep loader reads to the same terms, not terms
             of its own);
  offline    LLM serving: the service's output tokens/s does not exceed the
             same deployment's offline saturated rate (every request queued
             at time 0) beyond the two runs' sampling (issue 29), where its
             window holds two turnovers of the running batch;
  capacity   serving: the simulated throughput is within the analytic
             capacity (the least of the CPU pool's, the replicas' at full
             batches and the links'); the analytic solve says "overloaded"
             exactly when the rate reaches it, then serves at the capacity
             and answers "no: overloaded", and carries no simulated figure
             (latency, attainment, load);
  sweep      every fourth scenario, `damsim sweep --vary cost.pue=1.1,1.4`
             (a key that leaves the step alone): each row's step, run time,
             GPU-hours, bound and memory fit are `run --json --analytic`'s
             (to the row's 6 digits), and its step, run time and cost lie
             inside the interval columns beside them.

Each property's violations are counted; the test fails when any is not 0.
A failure names the scenario and its seed, so it reproduces.

usage: answers.py DAMSIM [N [SEED]] [--report]
  --report  print the counts and exit 0 (for before/after comparisons)
"""
import concurrent.futures
import json
import math
import os
import random
import subprocess
import sys
import tempfile

args = [a for a in sys.argv[1:] if not a.startswith("--")]
REPORT = "--report" in sys.argv
damsim = args[0]
N = int(args[1]) if len(args) > 1 else 300
SEED = (int(args[2]) if len(args) > 2 else
        int(os.environ.get("DAM_TEST_SEED_BASE", "20261202")))
PROPS = ("interval", "fit", "slo", "cost", "finite", "bound", "ordered",
         "same", "agree", "offline", "sweep", "capacity")
# interval: one input's swing at most the whole interval's width times
# this (a dominant input's 5th to 95th percentile is the interval's, up to
# the sampling of 400 draws: 1.015x seen)
TORNADO = 1.15
# slo: a simulated p99 at least the analytic lone request's floor (less
# its batching wait) times this (its random service times draw below their
# means, within a window of a few thousand requests)
FLOOR = 0.95
# capacity: a simulation serves at most its analytic capacity times this
# (its compute draws have mean 1; its window is finite)
CAP_TOL = 1.05
# offline: an LLM service's output tokens/s at most its offline saturated
# rate times this: the two runs draw their requests apart (the service's
# window holds a few hundred; a prefill-bound service of 228 requests read
# 1.01x on seed 9)
OFFLINE = 1.05
# agree: simulated / analytic step within these factors. The upper one
# leaves room for one known difference: the simulation's loader workers
# start together and, with near-deterministic times, stay in lockstep
# (solver/sim_training.c, issue 11), so their reads collide on the node's
# storage, which the analytic per-worker chain assumes they never do
# (1.57x on 2 GPUs x 7 workers reading from a disk 39 % busy; spreading
# the workers' starts removed it but left short deterministic windows up
# to 16 % under the storage bound, fuzz_scenario); seeds 7 and 11 reach
# 1.73x. The lower one was 0.6 while the analytic step charged inference
# GPUs sharing a PCIe link their copies in series (0.636x on seed 5) and
# hid ZeRO traffic over the NICs behind the compute only (0.67x, a ZeRO-3
# layout), and charged inference GPUs loading in the loop their reads at
# a share of the node's disk in series (0.836x, seed 9); with the three
# mended the lowest on seeds 1-11 and 20261202 is 0.93x
AGREE = (0.85, 2.0)
# JSON numbers that may be negative: changes, gains, signed deltas
SIGNED = ("change", "gain", "delta", "saved", "quality", "roc", "marginal",
          "slack", "margin")


def logu(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def pick(rng, *v):
    return rng.choice(v)


def b(rng):
    return pick(rng, "true", "false")


def common(rng, i, mode, gpu, gpn, nodes):
    return """scenario: { name = "p%d"; question = "q?"; mode = "%s"; seed = %d; };
machine: { gpu = "%s"; gpus_per_node = %d; nodes = %d;
  host: { cpu_cores = %d; pcie_gbs = %.6g; gpus_per_pcie_link = %d; pageable_fraction = %.4g; };
  storage: { kind = "%s"; read_gbs = %.6g; latency_ms = %.6g; };
  network: { intra_busbw_gbs = %.6g; inter_busbw_gbs = %.6g; latency_us = %.6g; }; };
""" % (i, mode, rng.randint(0, 2 ** 31 - 1), gpu, gpn, nodes,
       rng.choice([8, 16, 32, 64, 128]), logu(rng, 4, 64),
       rng.randint(1, gpn), rng.uniform(0.2, 1.0),
       pick(rng, "local_nvme", "network_fs", "page_cache", "hdd",
            "object_store"),
       logu(rng, 0.05, 20), logu(rng, 0.01, 5), logu(rng, 20, 900),
       logu(rng, 5, 100), logu(rng, 1, 20))


def cost_group(rng, gpu):
    """The cost group and the prices it implies: the scenario's price for
    its GPU when given, else the catalog's, else none."""
    given = pick(rng, None, round(logu(rng, 0.3, 10), 3))
    kwh = pick(rng, 0.0, round(logu(rng, 0.03, 0.5), 3))
    pue = round(rng.uniform(1.0, 1.6), 2)
    text = "cost: { %spue = %.4g; kwh_usd = %.6g; };\n" % (
        "gpu_hour_usd = %.6g; " % given if given else "", pue, kwh)
    price = given if given else (gpu.get("price_usd_hour") or 0.0)
    return text, price, kwh


def data_pipeline(rng, steps, workers_max=8):
    return """data: { samples = %.6g; decode_ms = %.6g; decode_cv = %.3g; decode_dist = "%s"; epochs = %.4g; };
pipeline: { loader_workers = %d; prefetch_factor = %d; pin_memory = %s;
  overlap_transfer = %s; bucket_mb = %.4g; overlap_sync = %s;
  warmup_steps = %d; steps = %d; replications = %d; };
""" % (logu(rng, 1e4, 1e8), logu(rng, 0.01, 20), rng.uniform(0, 0.5),
       pick(rng, "deterministic", "exponential", "lognormal", "uniform"),
       logu(rng, 0.1, 90), rng.randint(0, workers_max), rng.randint(1, 8),
       b(rng), b(rng), logu(rng, 1, 500), b(rng), rng.randint(1, 10), steps,
       rng.randint(1, 3))


def training(rng, cat, i, mode):
    gpu = rng.choice(cat["gpus"])
    precs = [p for p, f in gpu["peak_flops"].items() if f and
             p in ("fp32", "tf32", "fp16", "bf16")]
    model = rng.choice([m for m in cat["models"] if m["params"] < 2e10])
    gpn = pick(rng, 1, 2, 4, 8)
    nodes = pick(rng, 1, 1, 2, 4)
    text = common(rng, i, mode, gpu["id"], gpn, nodes)
    text += """workload: { model = "%s"; precision = "%s"; batch_size = %d;
  cuda_graphs = %s; activation_recompute = %s; compute_cv = %.3g; zero_stage = %d;
  framework_overhead_ms = %.4g; };
""" % (model["id"], rng.choice(precs or ["fp32"]),
       int(logu(rng, 1, 256)), b(rng), b(rng), rng.uniform(0, 0.2),
       rng.randint(0, 3), logu(rng, 0.1, 20))
    text += data_pipeline(rng, rng.randint(5, 40))
    c, price, kwh = cost_group(rng, gpu)
    return text + c, price, kwh


def layout(rng, cat, i):
    gpu = rng.choice([g for g in cat["gpus"] if g["peak_flops"].get("bf16")])
    model = rng.choice([m for m in cat["models"] if m["id"] in
                        ("llama2-7b", "llama3-8b", "mpt-7b", "mpt-13b",
                         "mpt-1b", "llama2-70b", "llama3-70b",
                         "mixtral-8x7b")])
    gpn = 8
    nodes = pick(rng, 1, 2, 4)
    g = gpn * nodes
    tp = pick(rng, 1, 2, 4, 8)
    pp = pick(rng, 1, 2, 4)
    while g % (tp * pp):
        pp = 1
    dp = g // (tp * pp)
    moe = ""
    if model["id"] == "mixtral-8x7b":
        # expert parallelism: ep divides the 8 experts and dp
        ep = max(e for e in (1, 2, 4, 8) if dp % e == 0 and
                 e <= pick(rng, 1, 2, 4, 8))
        moe = "ep = %d; overlap_all_to_all = %s; " % (ep, b(rng))
    mb = pick(rng, 1, 2)
    gb = dp * mb * rng.randint(1, 8)
    text = common(rng, i, "training", gpu["id"], gpn, nodes)
    text += """workload: { model = "%s"; precision = "bf16"; framework_overhead_ms = %.4g; };
parallel: { tp = %d; pp = %d; dp = %d; %smicro_batch = %d; global_batch = %d;
  zero = %d; recompute = "%s"; sequence_parallel = %s; schedule = "%s"; };
data: { samples = %.6g; decode_ms = 0.05; epochs = 1.0; };
pipeline: { loader_workers = 2; steps = %d; warmup_steps = 1; replications = 1; };
""" % (model["id"], logu(rng, 0.5, 10), tp, pp, dp, moe, mb, gb,
       rng.randint(0, 3), pick(rng, "none", "selective", "full"), b(rng),
       pick(rng, "1f1b", "gpipe"), logu(rng, 1e5, 1e8), rng.randint(2, 4))
    c, price, kwh = cost_group(rng, gpu)
    return text + c, price, kwh


def serving(rng, cat, i):
    gpu = rng.choice(cat["gpus"])
    precs = [p for p, f in gpu["peak_flops"].items() if f and
             p in ("fp32", "tf32", "fp16", "bf16")]
    model = rng.choice([m for m in cat["models"] if m["params"] < 1e9])
    reps = rng.randint(1, 4)
    text = common(rng, i, "serving", gpu["id"], 8, 1)
    text += """workload: { model = "%s"; precision = "%s"; batch_size = 1; framework_overhead_ms = %.4g; };
serving: { arrival = "%s"; rate_per_s = %.6g; preprocess_ms = %.4g; preprocess_workers = %d;
  postprocess_ms = %.4g; max_batch = %d; batch_timeout_ms = %.4g; replicas = %d;
  slo_p99_ms = %.6g; requests = %d; replications = %d; };
""" % (model["id"], rng.choice(precs or ["fp32"]), logu(rng, 0.05, 5),
       pick(rng, "poisson", "deterministic"), logu(rng, 1, 3000),
       logu(rng, 0.01, 10), rng.randint(1, 32), logu(rng, 0.01, 2),
       rng.randint(1, 64), logu(rng, 0, 1e-3) if False else logu(rng, 0.1, 20),
       reps, logu(rng, 1, 500), rng.randint(200, 2000), rng.randint(1, 3))
    c, price, kwh = cost_group(rng, gpu)
    return text + c, price, kwh


def llm(rng, cat, i):
    gpu = rng.choice([g for g in cat["gpus"] if g["peak_flops"].get("bf16")])
    model = rng.choice([m for m in cat["models"] if m["id"] in
                        ("llama2-7b", "llama3-8b", "llama3-70b", "llama2-70b",
                         "mixtral-8x7b")])
    tp = pick(rng, 1, 2, 4, 8)
    text = common(rng, i, "serving", gpu["id"], 8, 1)
    inp, out = int(logu(rng, 16, 2000)), int(logu(rng, 4, 500))
    text += """workload: { model = "%s"; precision = "bf16"; batch_size = 1; framework_overhead_ms = %.4g; };
serving: { arrival = "poisson"; rate_per_s = %.6g; replicas = %d; requests = %d; replications = %d; };
llm: { input_tokens = %d; input_cv = %.3g; input_max = %d; output_tokens = %d;
  output_cv = %.3g; output_max = %d; tp = %d; kv_cache = "%s"; weights = "%s";
  token_budget = %d; max_seqs = %d; chunked_prefill = %s;
  slo_ttft_ms = %.6g; slo_tpot_ms = %.6g; };
""" % (model["id"], logu(rng, 0.2, 3), logu(rng, 0.05, 20),
       rng.randint(1, 3), rng.randint(100, 600), rng.randint(1, 2),
       inp, rng.uniform(0, 0.8), inp * 4, out, rng.uniform(0, 0.8), out * 4,
       tp, pick(rng, "bf16", "fp8"), pick(rng, "native", "int4"),
       max(2048, inp * 4), rng.randint(16, 256), b(rng),
       logu(rng, 50, 5000), logu(rng, 5, 200))
    c, price, kwh = cost_group(rng, gpu)
    return text + c, price, kwh


def scenario(rng, cat, i):
    kind = rng.choice(["training", "training", "inference", "layout",
                       "serving", "llm"])
    if kind in ("training", "inference"):
        t, p, k = training(rng, cat, i, kind)
    elif kind == "layout":
        t, p, k = layout(rng, cat, i)
    elif kind == "serving":
        t, p, k = serving(rng, cat, i)
    else:
        t, p, k = llm(rng, cat, i)
    return kind, t, p, k


def walk(x, path, out):
    """Every (path, number-or-None) leaf of a JSON document."""
    if isinstance(x, dict):
        for k, v in x.items():
            walk(v, path + "." + k, out)
    elif isinstance(x, list):
        for j, v in enumerate(x):
            walk(v, "%s[%d]" % (path, j), out)
    elif x is None or (isinstance(x, (int, float)) and
                       not isinstance(x, bool)):
        out.append((path, x))


def ordered(x, path, bad):
    if isinstance(x, dict):
        qs = [k for k in ("min", "p50", "p90", "p95", "p99", "max")
              if isinstance(x.get(k), (int, float))]
        for a, c in zip(qs, qs[1:]):
            if x[c] < x[a] * (1 - 2e-3) - 1e-12:
                bad.append("%s.%s %g < %s %g" % (path, c, x[c], a, x[a]))
        # a mean lies between the least and the greatest observation
        if all(isinstance(x.get(k), (int, float)) for k in
               ("mean", "min", "max")) and \
                not (x["min"] * (1 - 2e-3) - 1e-12 <= x["mean"] <=
                     x["max"] * (1 + 2e-3) + 1e-12):
            bad.append("%s.mean %g outside [min %g, max %g]" %
                       (path, x["mean"], x["min"], x["max"]))
        for k, v in x.items():
            ordered(v, path + "." + k, bad)
    elif isinstance(x, list):
        for v in x:
            ordered(v, path, bad)


def inside(iv, v):
    lo, hi = iv["p05"], iv["p95"]
    return lo <= v * (1 + 1e-9) and v <= hi * (1 + 1e-9) and hi > lo


def capacity(path, sv, v):
    """A serving deployment's analytic capacity bounds what its simulation
    serves, and past it the analytic answer is "overloaded", not a latency.
    """
    cap = sv["capacity_per_s"]
    if sv["throughput_per_s"] > CAP_TOL * cap:
        v["capacity"].append("simulated %g requests/s above the capacity %g"
                             % (sv["throughput_per_s"], cap))
    pa = subprocess.run([damsim, "run", "--json", "--analytic", "-q", path],
                        capture_output=True, text=True, timeout=600)
    if pa.returncode != 0:
        v["capacity"].append("analytic run: exit %d" % pa.returncode)
        return
    a = json.loads(pa.stdout)
    s, ra = a["result"]["serving"], a["result"]
    rate = a["scenario"]["serving"]["rate_per_s"]
    if s["overloaded"] != (rate >= s["capacity_per_s"]):
        v["capacity"].append("overloaded %s at %g of a capacity of %g" %
                             (s["overloaded"], rate, s["capacity_per_s"]))
    if ra["memory"]["fits"] and \
            ra["answer"].startswith("no: overloaded") != s["overloaded"]:
        v["capacity"].append("overloaded %s, answer: %s" %
                             (s["overloaded"], ra["answer"][:80]))
    if s["throughput_per_s"] != min(rate, s["capacity_per_s"]):
        v["capacity"].append("analytic throughput %g, rate %g, capacity %g"
                             % (s["throughput_per_s"], rate,
                                s["capacity_per_s"]))
    for k in ("slo_attainment", "latency_s", "utilization", "mean_batch"):
        if k in s:
            v["capacity"].append("analytic serving carries %s" % k)
    # a lone request without its batching wait is a floor of the
    # simulated p99; over the SLO there, the analytic answer says the SLO
    # is missed at any load (and only then)
    fl = s.get("lone_request_floor_s")
    if fl is not None and ra["memory"]["fits"]:
        p99 = sv["latency_s"]["p99"]
        if sv["throughput_per_s"] > 0 and p99 < FLOOR * fl:
            v["slo"].append("simulated p99 %g under the lone floor %g" %
                            (p99, fl))
        missed = fl > s["slo_p99_s"] and not s["overloaded"]
        if missed != (s.get("slo_met") is False) or missed != \
                ra["answer"].startswith("no: the SLO is missed at any load"):
            v["slo"].append("floor %g, SLO %g, slo_met %r, answer: %s" %
                            (fl, s["slo_p99_s"], s.get("slo_met"),
                             ra["answer"][:80]))


def one(job):
    i, kind, text, price, kwh, work = job
    path = os.path.join(work, "s%04d.cfg" % i)
    with open(path, "w") as f:
        f.write(text)
    v = {p: [] for p in PROPS}
    pj = subprocess.run([damsim, "run", "--json", "-q", path],
                        capture_output=True, text=True, timeout=600)
    pt = subprocess.run([damsim, "run", "-q", path], capture_output=True,
                        text=True, timeout=600)
    if pj.returncode != 0 or pt.returncode != 0:
        if pj.returncode == 2 and "error" in pj.stderr:
            return i, kind, None, pj.stderr.strip()[:200]
        v["finite"].append("exit %d/%d: %s" % (pj.returncode, pt.returncode,
                                               pj.stderr.strip()[:200]))
        return i, kind, v, None
    bad = []
    doc = json.loads(pj.stdout, parse_constant=lambda c: bad.append(c))
    r = doc["result"]
    # finite: no NaN/inf, null or negative number outside the signed fields
    leaves = []
    walk(doc, "", leaves)
    for p, x in leaves:
        if x is None or (isinstance(x, float) and not math.isfinite(x)):
            v["finite"].append("%s is %r" % (p, x))
        elif x < 0 and not any(s in p.lower() for s in SIGNED) and \
                not p.startswith(".scenario"):
            v["finite"].append("%s = %g" % (p, x))
    if bad:
        v["finite"].append("non-finite constants %s" % bad[:3])
    # fit <-> answer
    fits = r["memory"]["fits"]
    says = r["answer"].startswith("no: it does not fit")
    if fits == says:
        v["fit"].append("fits %s, answer: %s" % (fits, r["answer"][:90]))
    # what does not fit quotes no time nor cost on page 1, and binds on
    # its memory (a run 53.6 GiB short printed "Binding compute", a step,
    # "$1,390 the run")
    if not fits and kind not in ("serving", "llm"):
        lines = pt.stdout.splitlines()
        rules = [k for k, l in enumerate(lines) if l.startswith("-----")]
        head = lines[:rules[1]] if len(rules) > 1 else lines
        bind = [l for l in head if l.startswith("Binding")]
        if "$" in "\n".join(head) or not bind or \
                not bind[0].startswith("Binding   memory capacity") or \
                any(l.startswith("Figure") and "does not fit" not in l
                    for l in head):
            v["fit"].append("page 1 of what does not fit: %r" %
                            [l[:60] for l in head[3:]])
    # an LLM request alone: its time inside the interval printed under it
    # (the interval was of the loaded mean: 3.975 s over "10.3 to 11.76 s")
    import re
    m = re.search(r"One request alone .*?, ([0-9.e+-]+) s end to end\n"
                  r"  90 % interval of its end-to-end time: ([0-9.e+-]+) to "
                  r"([0-9.e+-]+) s", pt.stdout)
    if m:
        x, lo, hi = (float(g) for g in m.groups())
        # printed to 4 significant figures
        if not lo * (1 - 5e-4) <= x <= hi * (1 + 5e-4):
            v["interval"].append("one request alone %g s outside %g..%g" %
                                 (x, lo, hi))
    elif kind == "llm" and fits and "One request alone" in pt.stdout and \
            "90 % interval of its end-to-end" in pt.stdout:
        v["interval"].append("one request alone: unparsed")
    # the answer is the same in text and JSON
    line = [l for l in pt.stdout.splitlines() if l.startswith("Answer")]
    if not line or line[0][len("Answer"):].strip() != r["answer"].strip():
        v["same"].append("text %r vs json %r" %
                         ((line[0][:80] if line else None), r["answer"][:80]))
    # the interval of the point shown
    u = doc.get("uncertainty")
    if u and fits:
        pairs = [("step_s", r["step_s"])]
        if kind not in ("serving", "llm"):
            pairs += [("run_s", r["run_s"]), ("gpu_hours",
                                               r["cost"]["gpu_hours"])]
            if r["cost"]["usd"] > 0:
                pairs.append(("cost_usd", r["cost"]["usd"]))
        for k, x in pairs:
            if not inside(u[k], x):
                v["interval"].append("%s %.6g outside %.6g..%.6g" %
                                     (k, x, u[k]["p05"], u[k]["p95"]))
        # no one input swings the step wider than the interval of all of
        # them drawn together, beyond the sampling of 400 draws (the
        # model's step error as one multiplier of the whole step swung a
        # 70B service's request 2.10 to 3.46 s beside an interval of 2.25
        # to 3.33 s: the draws move the GPU's work and the rest apart)
        width = u["step_s"]["p95"] - u["step_s"]["p05"]
        for t in u.get("tornado", []):
            sw = abs(t["step_at_p95_s"] - t["step_at_p05_s"])
            if sw > TORNADO * width + 1e-12:
                v["interval"].append("%s swings %.6g, the interval %.6g wide"
                                     % (t["key"], sw, width))
    elif fits and not u:
        v["interval"].append("no interval printed")
    # under load: the loaded figures inside their intervals
    ld = (u or {}).get("under_load")
    sv = r.get("serving")
    if ld and sv and fits:
        pairs = [("p99_s", sv["latency_s"]["p99"])]
        if sv.get("llm"):
            pairs = [("ttft_q_s", sv["llm"]["ttft_s"]["at_slo_quantile"]),
                     ("tpot_q_s", sv["llm"]["tpot_s"]["at_slo_quantile"])]
        for k, x in pairs:
            iv = ld[k]
            if not (iv["p05"] <= x * (1 + 1e-9) and x <= iv["p95"] * (1 + 1e-9)):
                v["interval"].append("under load %s %.6g outside %.6g..%.6g"
                                     % (k, x, iv["p05"], iv["p95"]))
    # cost identity
    c = r["cost"]
    if kind not in ("serving", "llm") and fits:
        want = c["gpu_hours"] * price + c["kwh"] * kwh
        if abs(c["usd"] - want) > 1e-6 * max(1.0, want):
            v["cost"].append("usd %.8g != %.8g x %g + %.8g x %g = %.8g" %
                             (c["usd"], c["gpu_hours"], price, c["kwh"], kwh,
                              want))
    # bound: simulated step >= T_pipe, beyond the noise of the simulation
    sim = r.get("simulation")
    if sim and kind not in ("serving", "llm") and fits:
        tp = r["iron_law"]["t_pipe_s"]
        # the mean of a finite simulation of random service times may lie
        # below the expected step by its sampling error: 4 standard errors
        # (sd over the steps measured, or the CI of the replications)
        st = sim.get("step_s", {})
        se = max(st.get("sd", 0.0) / math.sqrt(max(1.0, st.get("n", 1.0))),
                 st.get("ci95", 0.0) / 1.96)
        if r["step_s"] + 4 * se < tp * (1 - 0.01):
            v["bound"].append("simulated %.6g < T_pipe %.6g" %
                              (r["step_s"], tp))
    # bound: T_pipe is the iron law's perfect-overlap bound,
    # max(D_vol/BW, O/(R eta)) + L_lat (docs/model.md): no stage printed
    # in the table above it takes longer on its own wire or units (the
    # MoE example printed T_pipe 3.55 s under 15.1 s of all-to-alls)
    if kind not in ("serving", "llm") and fits:
        tp = r["iron_law"]["t_pipe_s"]
        for stg in r.get("stages", []):
            # the row's D_vol, BW and D/BW agree: a volume with a time has
            # the rate it moved at (layout rows printed "406 GB  -  15.1 s")
            d, bw, t = (stg.get("d_vol_bytes", 0), stg.get("bw_bytes_per_s", 0),
                        stg.get("d_over_bw_s", 0))
            if d > 0 and t > 0 and not (bw > 0 and
                                        abs(d / bw - t) <= 1e-6 * t):
                v["bound"].append("%s: D_vol %.6g, BW %.6g, D/BW %.6g" %
                                  (stg["stage"], d, bw, t))
            own = max(stg.get("d_over_bw_s", 0), stg.get("o_over_r_eta_s", 0))
            if stg["stage"] == "pipeline sends":
                own /= 2  # both ways on a full-duplex link, m v each
            if own > tp * (1 + 1e-9):
                v["bound"].append("T_pipe %.6g < %s's own %.6g" %
                                  (tp, stg["stage"], own))
    # bound: the analytic step is not above T_seq (nothing overlapped):
    # overlap only hides time (a 4-stage layout of 1 micro-batch printed
    # T_seq 363 ms under its 396 ms analytic step: T_seq counted a stage's
    # own sends, the step the fill and drain's)
    if kind not in ("serving", "llm") and fits:
        ts = r["iron_law"].get("t_seq_s", 0)
        an = (sim or {}).get("analytic_step_s") or r["step_s"]
        if ts > 0 and an > ts * (1 + 1e-9):
            v["bound"].append("analytic step %.6g > T_seq %.6g" % (an, ts))
    # bound: T_seq is the iron-law table's rows one after another (the
    # 405B layout's rows summed 5.01 s under "T_seq (no overlap) 10.6 s":
    # its pipeline bubble had no row and its compute rows were the first
    # stage's; the flagship's 312 ms of rows sat under a T_seq of 301 ms
    # that overlapped its loader's reads with its decode)
    stages = r.get("stages", [])
    ts = r.get("iron_law", {}).get("t_seq_s", 0)
    if stages and ts > 0:
        rows = sum(x.get("time_s", 0) for x in stages)
        if abs(rows - ts) > 1e-6 * ts:
            v["bound"].append("iron-law rows sum to %.6g, T_seq %.6g" %
                              (rows, ts))
    # agree: the simulated and the analytic step printed side by side
    # model the same system: the simulation adds queueing and jitter, not
    # whole terms the analytic solve leaves out (a 2-stage pipeline reading
    # from a slow file system was simulated at 8.0 s, analytic 1.59 s)
    if sim and kind not in ("serving", "llm") and fits and \
            sim.get("analytic_step_s", 0) > 0:
        ratio = r["step_s"] / sim["analytic_step_s"]
        if not AGREE[0] <= ratio <= AGREE[1]:
            v["agree"].append("simulated %.6g, analytic %.6g (%.3gx)" %
                              (r["step_s"], sim["analytic_step_s"], ratio))
    # offline: server mode never beats the same deployment saturated (a
    # 492-request batch drained its last long requests in a part-filled
    # batch: the service read 136 % of that makespan rate)
    # A window that holds fewer than two turnovers of the running batch
    # (requests measured < 2 x its peak) measures a phase of an overloaded
    # engine's fill-and-drain cycle, not a rate: 118 requests under a peak
    # of 131 running read 1.05x its capacity, 500 read 0.71x, 1,790 1.01x
    # (seed 1101, scenario 91); those are left out.
    llm = r.get("serving", {}).get("llm", {})
    off = llm.get("offline", {}).get("saturated_output_tokens_per_s", 0)
    turnovers = (llm.get("requests_measured", 0) /
                 max(1.0, llm.get("running_peak", 0) or 0))
    if kind == "llm" and fits and off > 0 and turnovers >= 2 and \
            llm["output_tokens_per_s"] > OFFLINE * off:
        v["offline"].append("served %.6g output tokens/s, offline saturated "
                            "%.6g (%.3gx)" % (llm["output_tokens_per_s"], off,
                                             llm["output_tokens_per_s"] / off))
    # percentiles in order
    ob = []
    ordered(doc, "", ob)
    v["ordered"] += ob
    # SLO flags
    if sv:
        met = sv["slo_met"]
        if sv.get("llm"):
            if sv["llm"]["slo_met"] != met:
                v["slo"].append("serving.slo_met %s, llm.slo_met %s" %
                                (met, sv["llm"]["slo_met"]))
            if met and sv["llm"]["requests_measured"] <= 0:
                v["slo"].append("met with no request served")
            words = "both SLOs are met" in r["answer"]
        else:
            if met and sv["throughput_per_s"] <= 0:
                v["slo"].append("met with no request served")
            words = r["answer"].startswith("the SLO is met")
            capacity(path, sv, v)
        if fits and words != met:
            v["slo"].append("slo_met %s, answer: %s" % (met, r["answer"][:80]))
    if i % 4 == 0:
        whatif(path, kind, r, v)
        sweep(path, v)
    if i % 8 == 2:
        review(path, kind, fits, v)
    return i, kind, v, None


def g6(x):
    return "%.6g" % x


def sweep(path, v):
    """Every fourth scenario: a sweep's rows against `run --analytic`."""
    pa = subprocess.run([damsim, "run", "--json", "-q", "--analytic", path],
                        capture_output=True, text=True, timeout=600)
    ps = subprocess.run([damsim, "sweep", "-q", path, "--vary",
                         "cost.pue=1.1,1.4"], capture_output=True, text=True,
                        timeout=600)
    if pa.returncode != 0 or ps.returncode != 0:
        v["sweep"].append("exit %d/%d: %s" % (pa.returncode, ps.returncode,
                                              (pa.stderr + ps.stderr)[:200]))
        return
    r = json.loads(pa.stdout)["result"]
    lines = ps.stdout.strip().split("\n")
    head = lines[0].split(",")
    for line in lines[1:]:
        row = dict(zip(head, line.split(",")))
        if row.get("error"):
            v["sweep"].append("row failed: %s" % row["error"][:120])
            continue
        want = {"step_s": g6(r["step_s"]), "run_time_s": g6(r["run_s"]),
                "gpu_hours": g6(r["cost"]["gpu_hours"]), "bound": r["bound"],
                "fits_memory": "1" if r["memory"]["fits"] else "0"}
        if (r.get("serving") or {}).get("llm"):
            # an LLM service solved analytically is a lone request: what
            # it serves, its run and its GPU-hours are unknown (empty;
            # they read 0)
            want.update({"run_time_s": "", "gpu_hours": "",
                         "throughput_per_s": "", "energy_kwh": ""})
        for k, w in want.items():
            if row.get(k) != w:
                v["sweep"].append("pue %s: %s %s, run --analytic %s" %
                                  (row["cost.pue"], k, row.get(k), w))
        for k in ("step_s", "run_time_s", "cost_usd"):
            lo, hi = row.get(k + "_lo", ""), row.get(k + "_hi", "")
            if lo and row[k] and not (float(lo) <= float(row[k]) <= float(hi)):
                v["sweep"].append("pue %s: %s %s outside its interval "
                                  "[%s, %s]" % (row["cost.pue"], k, row[k],
                                                lo, hi))


def review(path, kind, fits, v):
    """Every eighth scenario: `report -o x.html`; on its page 1 (the
    numbers that matter, the numbers behind the answer) every value
    printed with its 90 % interval, "v (lo to hi)", lies inside it, and
    what does not fit gets no time nor cost as configured."""
    import html as H
    import re
    out = path[:-4] + ".html"
    p = subprocess.run([damsim, "report", "-q", path, "-o", out],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        if p.returncode != 2:
            v["finite"].append("report exit %d: %s" %
                               (p.returncode, p.stderr.strip()[:200]))
        return
    s = open(out).read()
    s = re.sub(r"<(style|script).*?</\1>", "", s, flags=re.S)
    cells = [c.strip() for c in H.unescape(re.sub(r"<[^>]+>", "\n", s))
             .splitlines() if c.strip()]
    num = r"\$?(-?[0-9][0-9,]*\.?[0-9]*)\s*([A-Za-z%]*)"
    cell_re = re.compile("^" + num + r"\s*\(" + num + " to " + num +
                         r"\)")
    for c in cells:
        m = cell_re.match(c)
        if not m:
            continue
        x, ux, lo, ulo, hi, uhi = m.groups()
        x, lo, hi = (float(t.replace(",", "")) for t in (x, lo, hi))
        # one unit for the three (the interval's own, or none on the
        # value when the unit follows the interval)
        if ulo not in ("", uhi) or ux not in ("", uhi):
            continue
        if not lo <= x <= hi:
            v["interval"].append("review: %r" % c)
    if not fits and kind not in ("serving", "llm") and \
            "as configured" in cells:
        k = cells.index("as configured")
        head = cells[k:k + 12]
        for what in ("time to train", "cost of the run", "GPU-hours"):
            if what in head and head[head.index(what) + 1] != "does not fit":
                v["fit"].append("review of what does not fit: %s %r" %
                                (what, head[head.index(what) + 1]))


def load_ends(o, v):
    """A served option's end draws under load: each draw's SLO verdict is
    its figures plus the option's CI against the objectives; the 90 %
    interval under load holds both draws and the option's own figure, and
    a latency's lower end is above 0."""
    u = o.get("under_load_at_interval_ends")
    sv = o.get("result", {}).get("serving")
    if not u or not sv:
        return
    llm = sv.get("llm")
    tol = 1 + 1e-9
    figs = []  # (draw key, ci key, interval key, objective, own figure)
    if llm:
        figs += [("ttft_s", "ttft_ci95_s", "ttft_q_s", llm["slo_ttft_s"],
                  llm["ttft_s"]["at_slo_quantile"]),
                 ("tpot_s", "tpot_ci95_s", "tpot_q_s", llm["slo_tpot_s"],
                  llm["tpot_s"]["at_slo_quantile"])]
    if not llm or sv.get("slo_p99_s", 0) > 0:
        figs.append(("p99_s", "p99_ci95_s", "p99_s", sv.get("slo_p99_s", 0),
                     sv["latency_s"]["p99"]))
    iv = u["interval_90"]
    for end in ("fast_draw", "slow_draw"):
        x = u[end]
        within = all(x[d] + x[c] <= slo * tol for d, c, _, slo, _ in figs)
        if x["slo_met"] and not within:
            v["slo"].append("whatif %s %s: SLO met with %r" %
                            (o["option"], end, x))
        if within and not x["slo_met"] and o.get("fits", True):
            v["slo"].append("whatif %s %s: SLO missed with %r" %
                            (o["option"], end, x))
        for d, _, k, _, _ in figs:
            if not (iv[k]["p05"] <= x[d] * tol and x[d] <= iv[k]["p95"] * tol):
                v["interval"].append("whatif %s %s: %s %.6g outside "
                                     "%.6g..%.6g under load" %
                                     (o["option"], end, d, x[d],
                                      iv[k]["p05"], iv[k]["p95"]))
    for d, _, k, _, own in figs:
        if own > 0 and not (0 < iv[k]["p05"] <= own * tol and
                            own <= iv[k]["p95"] * tol):
            v["interval"].append("whatif %s: %s %.6g outside %.6g..%.6g "
                                 "under load" % (o["option"], d, own,
                                                 iv[k]["p05"], iv[k]["p95"]))


def whatif(path, kind, r, v):
    """Every fourth scenario: `whatif` with a faster-GPU lever, text and
    JSON: the same answer, speed-ups inside their intervals, no speed-up
    quoted for what cannot run, an option that does not fit never works."""
    lever = "gpu=H100-SXM5-80GB"
    pj = subprocess.run([damsim, "whatif", "--json", "-q", path, "--lever",
                         lever], capture_output=True, text=True, timeout=600)
    pt = subprocess.run([damsim, "whatif", "-q", path, "--lever", lever],
                        capture_output=True, text=True, timeout=600)
    if pj.returncode != 0 or pt.returncode != 0:
        if pj.returncode != 2:
            v["finite"].append("whatif exit %d/%d: %s" % (
                pj.returncode, pt.returncode, pj.stderr.strip()[:200]))
        return
    w = json.loads(pj.stdout)
    line = [l for l in pt.stdout.splitlines() if l.startswith("Answer")]
    if not line or line[0][len("Answer"):].strip().rstrip(".") != \
            w["answer"].strip().rstrip("."):
        v["same"].append("whatif text %r vs json %r" %
                         ((line[0][:80] if line else None), w["answer"][:80]))
    base_fits = w["options"][0].get("fits", True)
    for o in w["options"]:
        if not o.get("fits", True) and o["verdict"] == "works":
            v["fit"].append("whatif: %s does not fit but works" % o["option"])
        if (not o.get("fits", True) or not base_fits) and "speedup" in o:
            v["fit"].append("whatif: a speed-up quoted for %s (fits %s, "
                            "baseline fits %s)" % (o["option"], o.get("fits", True),
                                                   base_fits))
        # each 90 % interval is of the figure beside it (a service's
        # run figures are of its simulated window: none printed)
        i9 = o.get("intervals_90")
        if i9 and o.get("fits", True) and base_fits:
            beside = [("step_s", o["result"]["step_s"]),
                      ("gpu_hours", o["cost"]["gpu_hours"]),
                      ("cost_usd", o["cost"]["usd"])]
            for k, x in beside:
                if k in i9 and x > 0 and not inside(i9[k], x):
                    v["interval"].append(
                        "whatif %s: %s %.6g outside %.6g..%.6g" %
                        (o["option"], k, x, i9[k]["p05"], i9[k]["p95"]))
        # a cost that is not known is not "cheaper" nor a return
        if not o["cost"]["usd"] > 0 and o.get("roc") is not None:
            v["cost"].append("whatif %s: cost n/a, RoC %r" %
                             (o["option"], o["roc"]))
        load_ends(o, v)
        iv = o.get("speedup_over_uncertain_inputs")
        if iv and "speedup" in o and not (
                iv["p05"] <= o["speedup"] * (1 + 1e-9) and
                o["speedup"] <= iv["p95"] * (1 + 1e-9)):
            v["interval"].append("whatif %s: speed-up %.4g outside %.4g..%.4g"
                                 % (o["option"], o["speedup"], iv["p05"],
                                    iv["p95"]))
    # the cost frontier names no option that misses its SLO
    byname = {o["option"]: o for o in w["options"]}
    for f in w.get("frontier", []):
        o = byname.get(f["option"], {})
        sv = o.get("result", {}).get("serving")
        if sv and (sv.get("slo_p99_s", 0) > 0 or sv.get("llm")) and \
                not sv["slo_met"]:
            v["slo"].append("whatif frontier: %s misses its SLO" %
                            f["option"])
    if not base_fits and not w["answer"].startswith(
            "the baseline does not fit"):
        v["fit"].append("whatif answer: %s" % w["answer"][:80])


def main():
    # DAM_PROP_CATALOG: another damsim whose catalog draws the scenarios,
    # so two builds can be compared on the same scenarios
    cat = json.loads(subprocess.run(
        [os.environ.get("DAM_PROP_CATALOG", damsim), "catalog", "--json"],
        check=True, capture_output=True, text=True).stdout)
    rng = random.Random(SEED)
    work = tempfile.mkdtemp(prefix="dam_answers_")
    jobs = []
    for i in range(N):
        kind, text, price, kwh = scenario(rng, cat, i)
        jobs.append((i, kind, text, price, kwh, work))
    counts = {p: 0 for p in PROPS}
    kinds, refused = {}, 0
    shown = 0
    jobs_n = int(os.environ.get("DAM_PROP_JOBS", "2"))
    with concurrent.futures.ThreadPoolExecutor(jobs_n) as ex:
        for i, kind, v, err in ex.map(one, jobs):
            if v is None:
                refused += 1
                if refused <= 5:
                    print("refused %d (%s): %s" % (i, kind, err))
                continue
            kinds[kind] = kinds.get(kind, 0) + 1
            for p in PROPS:
                if v[p]:
                    counts[p] += 1
                    if shown < 40:
                        shown += 1
                        print("FAIL %s: scenario %d (%s, seed %d): %s" %
                              (p, i, kind, SEED, v[p][0]))
    if os.environ.get("DAM_PROP_KEEP") is None:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("scenarios kept in " + work)
    print("%d scenarios (seed %d; %s; %d refused as invalid)" %
          (N, SEED, ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
           refused))
    print("violations: " + ", ".join("%s %d" % (p, counts[p]) for p in PROPS))
    # the generator draws valid scenarios: a refusal is a generator bug
    ok = all(c == 0 for c in counts.values()) and refused <= N // 20
    sys.exit(0 if ok or REPORT else 1)


if __name__ == "__main__":
    main()
