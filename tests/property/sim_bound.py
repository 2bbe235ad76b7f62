#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Property test (issue 11, item 2): over randomized valid scenarios, the
simulated step never falls below the analytic lower bound T_pipe, and where
one resource clearly binds the two solvers name the same binding term.

Every key of a training or inference scenario is drawn in its documented
range (scenarios/README.md; the RANGES table below, checked against the
README's rows), seeded, so a failure names its scenario and reproduces.
Wide ranges are drawn log-uniformly. The simulation-size keys (nodes,
gpus_per_node, loader_workers, warmup_steps, steps, replications) are drawn
in their ranges too, and redrawn when the scenario would cost more than a
CI budget of simulated events (the draw is then biased to small machines
and short runs; the ranges are still the documented ones).

Checks, per scenario:
  - damsim accepts it (a valid scenario is never refused) and exits 0;
  - simulated step >= T_pipe x (1 - 1 %) - noise, where noise is 4
    standard errors of the simulated mean: the larger of the one from the
    random draws of the scenario (decode and compute coefficients of
    variation over the number of measured batches; 0 when every service
    time is deterministic) and the one the simulation reports beside its
    mean (its 95 % half-width / 1.96). The second counts what the first
    cannot: a loader that delivers its batches in bursts (13 workers
    sharing one disk finish together) makes the steps of one measured
    window anything but independent; its mean then moves by 10-20 % from
    one simulation seed to the next, and the simulation says so;
  - every number in the JSON is finite;
  - where the largest analytic resource time is at least twice the next
    one, the simulated binding term is the analytic one.

usage: sim_bound.py DAMSIM SOURCE_DIR [N [SEED]]
SEED (or DAM_TEST_SEED_BASE) draws the scenarios; DAM_PROP_SIM_SEED=S runs
the same scenarios with simulation seeds S + i (a check holds on any).
"""
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

damsim, src = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 300
SEED = (int(sys.argv[4]) if len(sys.argv) > 4 else
        int(os.environ.get("DAM_TEST_SEED_BASE", "20261130")))
EVENT_BUDGET = 4e5   # simulated events per scenario (CI time)

# key -> (kind, lo, hi): "int" uniform, "ilog" log-uniform integer,
# "real" uniform, "log" log-uniform (lo may be 0: then 0 is drawn 10 %),
# "unit" (0, 1]. The ranges of scenarios/README.md.
RANGES = {
    "machine.gpus_per_node": ("ilog", 1, 4096),
    "machine.nodes": ("ilog", 1, 1000000),
    "machine.host.cpu_cores": ("ilog", 1, 16384),
    "machine.host.pcie_gbs": ("log", 1e-3, 1e4),
    "machine.host.pageable_fraction": ("unit", 0, 1),
    "machine.storage.read_gbs": ("log", 1e-4, 1e5),
    "machine.storage.latency_ms": ("log", 0, 1e5),
    "machine.network.intra_busbw_gbs": ("log", 1e-3, 1e5),
    "machine.network.inter_busbw_gbs": ("log", 1e-4, 1e5),
    "machine.network.latency_us": ("log", 0, 1e6),
    "workload.batch_size": ("ilog", 1, 1048576),
    "workload.efficiency": ("log", 1e-4, 1),
    "workload.memory_efficiency": ("log", 1e-4, 1),
    "workload.kernels_per_step": ("ilog", 0, 10000000),
    "workload.launch_us": ("log", 0, 1e5),
    "workload.framework_overhead_ms": ("log", 0, 1e6),
    "workload.compute_cv": ("real", 0, 2),
    "workload.zero_stage": ("int", 0, 3),
    "data.samples": ("log", 1, 1e13),
    "data.raw_bytes_per_sample": ("log", 0, 1e11),
    "data.input_bytes_per_sample": ("log", 0, 1e11),
    "data.decode_ms": ("log", 0, 1e5),
    "data.decode_cv": ("real", 0, 2),
    "data.epochs": ("log", 1e-3, 1e6),
    "data.gpu_decode_ms": ("log", 0, 1e5),
    "data.shard_mb": ("log", 1e-3, 1e7),
    "pipeline.loader_workers": ("ilog", 0, 256),
    "pipeline.prefetch_factor": ("ilog", 1, 64),
    "pipeline.bucket_mb": ("log", 1e-3, 1e7),
    "pipeline.warmup_steps": ("ilog", 0, 100000),
    "pipeline.steps": ("ilog", 1, 1000000),
    "pipeline.replications": ("ilog", 1, 1000),
    "cost.gpu_hour_usd": ("log", 0, 1e4),
    "cost.pue": ("real", 1, 10),
    "cost.kwh_usd": ("log", 0, 1e3),
}
SIZE_KEYS = ("machine.nodes", "machine.gpus_per_node", "pipeline.loader_workers",
             "pipeline.warmup_steps", "pipeline.steps", "pipeline.replications",
             "workload.batch_size")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def fmt(v):
    return repr(float(v)) if isinstance(v, float) else str(v)


def readme_ranges():
    """Every RANGES key has a README row whose range names its bounds."""
    text = open(os.path.join(src, "scenarios", "README.md")).read()
    for key, (_, lo, hi) in RANGES.items():
        leaf = key.split(".")[-1]
        rows = [l for l in text.splitlines() if "`%s`" % leaf in l
                or "`%s`" % ".".join(key.split(".")[-2:]) in l]
        nums = set()
        for l in rows:
            for m in re.findall(r"[-+]?\d[\d,]*\.?\d*(?:e[-+]?\d+)?", l):
                try:
                    nums.add(float(m.replace(",", "")))
                except ValueError:
                    pass
        check(float(hi) in nums,
              "scenarios/README.md documents %s up to %g" % (key, hi))


def draw(rng, kind, lo, hi):
    if kind == "int":
        return rng.randint(lo, hi)
    if kind == "ilog":
        if lo == 0 and rng.random() < 0.1:
            return 0
        return int(round(math.exp(rng.uniform(math.log(max(lo, 1)),
                                              math.log(hi)))))
    if kind == "real":
        if lo == 0 and rng.random() < 0.3:
            return 0.0  # deterministic service times: the strict check
        return rng.uniform(lo, hi)
    if kind == "unit":
        return 1.0 - rng.random()
    if lo == 0 and rng.random() < 0.1:
        return 0.0
    return math.exp(rng.uniform(math.log(max(lo, hi * 1e-12)), math.log(hi)))


def events(v, training, params=0.0, prec="fp32"):
    """Simulated events of the scenario, as damsim estimates them
    (solver/sim_work.c): 7 per GPU-step, 1/20 per gradient bucket update."""
    g = v["machine.gpus_per_node"] * v["machine.nodes"]
    w = v["pipeline.loader_workers"]
    warm, steps = v["pipeline.warmup_steps"], v["pipeline.steps"]
    if w >= 1:
        warm = max(w, -(-warm // w) * w)
        steps = -(-steps // w) * w
    nb = 0.0
    if training and g > 1:
        grad = params * (4 if prec in ("fp32", "tf32") else 2)
        grad *= 1.5 if v["workload.zero_stage"] >= 3 else 1.0
        nb = max(1.0, math.ceil(grad / (v["pipeline.bucket_mb"] * 1e6)))
    reps = v["pipeline.replications"]
    return (reps * g * (warm + steps) * (7.0 + nb / 20.0) +
            reps * (warm + steps) * nb / 20.0)


def scenario(rng, cat, i):
    v = {k: draw(rng, *r) for k, r in RANGES.items()}
    mode = rng.choice(["training", "inference"])
    gpu = rng.choice(cat["gpus"])
    precs = [p for p, f in gpu["peak_flops"].items() if f]
    prec = rng.choice(precs)
    model = rng.choice(cat["models"])
    # the gradient buckets per step stay within damsim's 1e6
    grad = model["params"] * (4 if prec in ("fp32", "tf32") else 2) * 1.5
    v["pipeline.bucket_mb"] = max(v["pipeline.bucket_mb"], grad / 1e6 / 1e6 * 1.01)
    for _ in range(1000):  # the sizes within the budget (and 2^20 GPUs)
        if (v["machine.gpus_per_node"] * v["machine.nodes"] <= 1048576 and
                events(v, mode == "training", model["params"], prec)
                <= EVENT_BUDGET):
            break
        for k in SIZE_KEYS + ("pipeline.bucket_mb",):
            if rng.random() < 0.5:
                v[k] = draw(rng, *RANGES[k])
        v["pipeline.bucket_mb"] = max(v["pipeline.bucket_mb"],
                                      grad / 1e6 / 1e6 * 1.01)
    else:
        # no draw fitted in 1,000 tries (seed 2's scenario 264 kept 7.9 M
        # GPUs): each size key at the low end of its range, which fits
        for k in SIZE_KEYS:
            v[k] = max(RANGES[k][1], 1 if k != "pipeline.warmup_steps" else 0)
    gpn = v["machine.gpus_per_node"]
    links = rng.randint(1, gpn)
    dist = rng.choice(["deterministic", "exponential", "lognormal", "uniform",
                       "normal"])
    if dist == "uniform":
        v["data.decode_cv"] = rng.uniform(0, 1 / math.sqrt(3))
    b = lambda: rng.choice(["true", "false"])
    text = """scenario: { name = "prop %d"; question = "q?"; mode = "%s"; seed = %d; };
machine: { gpu = "%s"; gpus_per_node = %d; nodes = %d;
  host: { cpu_cores = %d; pcie_gbs = %s; gpus_per_pcie_link = %d; pageable_fraction = %s; };
  storage: { kind = "%s"; read_gbs = %s; latency_ms = %s; };
  network: { intra_busbw_gbs = %s; inter_busbw_gbs = %s; latency_us = %s; }; };
workload: { model = "%s"; precision = "%s"; batch_size = %d; efficiency = %s;
  memory_efficiency = %s; kernels_per_step = %d; launch_us = %s;
  framework_overhead_ms = %s; cuda_graphs = %s; activation_recompute = %s;
  optimizer = "%s"; compute_cv = %s; zero_stage = %d; };
data: { samples = %s; raw_bytes_per_sample = %s; input_bytes_per_sample = %s;
  decode_ms = %s; decode_cv = %s; decode_dist = "%s"; epochs = %s;
  decode_on_gpu = %s; gpu_decode_ms = %s; sharded = %s; shard_mb = %s; };
pipeline: { loader_workers = %d; prefetch_factor = %d; pin_memory = %s;
  overlap_transfer = %s; bucket_mb = %s; overlap_sync = %s;
  warmup_steps = %d; steps = %d; replications = %d; };
cost: { gpu_hour_usd = %s; pue = %s; kwh_usd = %s; };
""" % (i, mode, rng.randint(0, 2147483647), gpu["id"], gpn,
       v["machine.nodes"], v["machine.host.cpu_cores"],
       fmt(v["machine.host.pcie_gbs"]), links,
       fmt(v["machine.host.pageable_fraction"]),
       rng.choice(["local_nvme", "network_fs", "page_cache", "hdd",
                   "object_store"]),
       fmt(v["machine.storage.read_gbs"]), fmt(v["machine.storage.latency_ms"]),
       fmt(v["machine.network.intra_busbw_gbs"]),
       fmt(v["machine.network.inter_busbw_gbs"]),
       fmt(v["machine.network.latency_us"]), model["id"], prec,
       v["workload.batch_size"], fmt(v["workload.efficiency"]),
       fmt(v["workload.memory_efficiency"]), v["workload.kernels_per_step"],
       fmt(v["workload.launch_us"]), fmt(v["workload.framework_overhead_ms"]),
       b(), b(), rng.choice(["adam", "sgd"]), fmt(v["workload.compute_cv"]),
       v["workload.zero_stage"], fmt(v["data.samples"]),
       fmt(v["data.raw_bytes_per_sample"]), fmt(v["data.input_bytes_per_sample"]),
       fmt(v["data.decode_ms"]), fmt(v["data.decode_cv"]), dist,
       fmt(v["data.epochs"]), b(), fmt(v["data.gpu_decode_ms"]), b(),
       fmt(v["data.shard_mb"]), v["pipeline.loader_workers"],
       v["pipeline.prefetch_factor"], b(), b(), fmt(v["pipeline.bucket_mb"]),
       b(), v["pipeline.warmup_steps"], v["pipeline.steps"],
       v["pipeline.replications"], fmt(v["cost.gpu_hour_usd"]),
       fmt(v["cost.pue"]), fmt(v["cost.kwh_usd"]))
    return text, v, dist


def noise(v, dist, text, sim_steps, reps):
    """Relative standard error of the simulated mean step from its random
    draws: a batch's decode sum has cv decode_cv / sqrt(batch) (exponential:
    1 / sqrt(batch)); compute jitter has compute_cv; over the measured
    batches of one rank (steps x replications)."""
    b = v["workload.batch_size"]
    cv_dec = {"deterministic": 0.0, "exponential": 1.0}.get(dist, v["data.decode_cv"])
    if "decode_on_gpu = true" in text or v["data.decode_ms"] == 0:
        cv_dec = 0.0
    cv = max(cv_dec / math.sqrt(b), v["workload.compute_cv"])
    return cv / math.sqrt(max(1.0, sim_steps * reps))


def main():
    cat = json.loads(subprocess.run([damsim, "catalog", "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    readme_ranges()
    rng = random.Random(SEED)
    work = tempfile.mkdtemp(prefix="dam_prop_")
    agree = gap_cases = strict = 0
    try:
        for i in range(N):
            text, v, dist = scenario(rng, cat, i)
            if os.environ.get("DAM_PROP_SIM_SEED"):
                # the same scenarios, another simulation seed
                text = re.sub(r"seed = \d+;", "seed = %d;" % (
                    int(os.environ["DAM_PROP_SIM_SEED"]) + i), text, count=1)
            path = os.path.join(work, "s%03d.cfg" % i)
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run([damsim, "run", "--json", "-q", path],
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                check(False, "scenario %d (seed %d): exit %d: %s" %
                      (i, SEED, p.returncode, p.stderr.strip()[:300]))
                continue
            bad = []
            doc = json.loads(p.stdout, parse_constant=lambda c: bad.append(c))
            r = doc["result"]
            check(not bad and "null" not in p.stdout,
                  "scenario %d: every number is finite" % i)
            sim = r["simulation"]
            step, il = r["step_s"], r["iron_law"]
            tpipe = il["t_pipe_s"]
            # the simulation's own standard error of its mean step
            se_sim = (sim["step_s"]["ci95"] / 1.96 / step
                      if step > 0.0 else 0.0)
            tol = 0.01 + 4.0 * max(noise(v, dist, text,
                                         sim["steps_per_replication"],
                                         sim["replications"]), se_sim)
            strict += tol <= 0.02
            check(step >= tpipe * (1.0 - tol),
                  "scenario %d: simulated step %.6g >= T_pipe %.6g x (1 - %.3g)"
                  " (%s, bound %s)" % (i, step, tpipe, tol, path, r["bound"]))
            res = {"data": il["data_s"], "transfer": il["transfer_s"],
                   "gpu": il["compute_s"] + il["latency_s"],
                   "communication": il["communication_s"]}
            top = sorted(res.values(), reverse=True)
            if top[0] >= 2.0 * top[1] and tol <= 0.05:
                gap_cases += 1
                same = sim["analytic_bound"] == r["bound"]
                agree += same
                check(same, "scenario %d: one resource binds (%s); simulated "
                      "bound %s == analytic %s" %
                      (i, max(res, key=res.get), r["bound"],
                       sim["analytic_bound"]))
            if os.environ.get("DAM_PROP_KEEP") is None:
                os.unlink(path)
    finally:
        if os.environ.get("DAM_PROP_KEEP") is None:
            import shutil
            shutil.rmtree(work, ignore_errors=True)
    print("%d scenarios (seed %d): %d checks passed, %d failed; %d held to "
          "T_pipe within 2 %%; binding terms agree in %d of %d cases with a "
          "clear bottleneck" % (N, SEED, passed, failed, strict, agree,
                                gap_cases))
    sys.exit(1 if failed else 0)


main()
