# SPDX-License-Identifier: GPL-3.0-or-later
"""llm_train.py: damsim's LLM training layouts against published throughput.

Usage: python3 llm_train.py DAMSIM LLM_TRAIN.CSV [--max-median F]
                                                  [--before OLD_DAMSIM] [--logo]
                                                  [--mem-before OLD_DAMSIM]

Every row of LLM_TRAIN.CSV (tests/validation/llm_train.csv: one published
measurement each, with its source) is written as a layout scenario the way
the measurement was taken (GPU, nodes, precision, sequence, tensor/pipeline
/context degrees, FSDP as ZeRO-3, micro-batch, global batch, recomputation,
the framework profile) and solved with `DAMSIM run --analytic --json`. The
error of a row is predicted / measured - 1 (+ = damsim too fast). Prints
each row, then the median |error| and median signed error over all rows,
by precision (16-bit, FP8), by model size (below 10 B, 10 to 100 B, above)
and by whether torch.compile ran (torchtitan rows that ran it are solved
under the torchtitan-compile profile: model/recipe.c).

Out of sample: no constant of damsim was fitted on these rows (the device
constants come from microbenchmarks, data/gpus.cfg says which).

With --before OLD_DAMSIM the rows are also solved by an older damsim
(without the keys it does not know: parallel.profile), and both medians
are printed over the rows both could solve. With --max-median F the exit
status is 1 when the median |error| over all rows exceeds F.

Rows with a measured peak memory (memory_gib: the source's own figure, its
reserved peak per GPU) are then listed with damsim's memory per GPU
(memory.total_bytes); with --mem-before OLD_DAMSIM beside an older damsim's
(solved with the same keys). Memory is reported, not part of the median.

With --logo, leave one GPU out: for each GPU kind in turn, the framework's
GEMM factor (workload.framework.gemm_frac, the one constant of the stack
that scales every GEMM; default 0.788, fitted on llm-foundry's MPT rows on
A100) is fitted on the other GPUs' rows (least squares in log error over a
grid of 0.50 to 1.30) and the held-out GPU's rows are predicted with it.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

SCEN = """scenario: {{ name = "{cid}"; question = "validation"; mode = "training"; seed = 1; }};
machine: {{ gpu = "{gpu}"; gpus_per_node = {gpn}; nodes = {nodes};
  host: {{ cpu_cores = 128; pcie_gbs = 25.0; }};
  storage: {{ kind = "network_fs"; read_gbs = 1000.0; latency_ms = 0.0; shared = true; }};
  network: {{ nic_gbs = {nic}; nics_per_node = {gpn}; }}; }};
workload: {{ precision = "{prec}"; {model}{fw} }};
data: {{ samples = 1.0e9; decode_ms = 0.0; }};
pipeline: {{ loader_workers = 2; }};
parallel: {{ {par} }};
"""


def rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def gpt(spec):
    _, l, h, a = spec.split(":")
    return int(l), int(h), int(a)


def params_b(r):
    if r["model"].startswith("gpt:"):
        l, h, _ = gpt(r["model"])
        return 12.0 * l * h * h / 1e9
    return {"llama3-8b": 8.0, "llama3-70b": 70.6, "llama3-405b": 405.0}.get(
        r["model"], 0.0)


def scenario(r, legacy, gemm_frac=None, no_compile=False):
    if r["model"].startswith("gpt:"):
        l, h, a = gpt(r["model"])
        model = ('model = { id = "gpt"; name = "GPT"; seq_len = %s;\n'
                 '  arch = { kind = "transformer"; layers = %d; hidden = %d; '
                 'heads = %d; ffn = %d; vocab = 51200; max_positions = %s; '
                 'attention = "eager"; bias = true; tied_embeddings = true; '
                 'dropout = true; norm = "layernorm"; }; };'
                 % (r["seq_len"], l, h, a, 4 * h, r["seq_len"]))
    else:
        model = 'model = "%s"; seq_len = %s;' % (r["model"], r["seq_len"])
    par = ("tp = %s; pp = %s; cp = %s; micro_batch = %s; global_batch = %s; "
           "zero = %s; recompute = \"%s\";"
           % (r["tp"], r["pp"], r["cp"], r["micro_batch"], r["global_batch"],
              r["zero"], r["recompute"]))
    if int(r["vpp"]) > 1:
        par += " vpp = %s;" % r["vpp"]
    if r["model"] == "llama3-405b" and int(r["pp"]) == 8:
        par += " first_layers = 15; last_layers = 15;"
    if r["profile"] and not legacy:
        prof = r["profile"]
        if prof == "torchtitan" and r["compile"] == "1" and not no_compile:
            prof = "torchtitan-compile"
        par += ' profile = "%s";' % prof
        # torchtitan's tensor-parallel plan shards the norms and the
        # residual stream by sequence (SequenceParallel in
        # parallelize_llama.py): sequence parallelism whenever tp > 1
        if prof.startswith("torchtitan") and int(r["tp"]) > 1:
            par += " sequence_parallel = true;"
        if r["tp_overlap"] == "1":
            par += " tp_comm_overlap = true;"
    if not r["profile"]:
        par += " overlap_grad_reduce = false;"
    fw = (" framework = { gemm_frac = %.4f; };" % gemm_frac
          if gemm_frac else "")
    return SCEN.format(cid=r["case_id"], gpu=r["gpu"], gpn=r["gpus_per_node"],
                       nodes=r["nodes"], nic=r["nic_gbs"], prec=r["precision"],
                       model=model, par=par, fw=fw)


def solve(damsim, r, tmp, legacy=False, gemm_frac=None):
    path = os.path.join(tmp, r["case_id"] + ".cfg")
    with open(path, "w") as f:
        f.write(scenario(r, legacy, gemm_frac))
    p = subprocess.run([damsim, "run", "--analytic", "--json", path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return json.loads(p.stdout)["result"]


def memory_gib(damsim, r, tmp):
    """damsim's memory per GPU (GiB) for row r, None if it does not load."""
    res = solve(damsim, r, tmp)
    return res["memory"]["total_bytes"] / 2.0 ** 30 if res else None


def memory_table(damsim, rs, before):
    """Rows with a measured peak (memory_gib): damsim against it."""
    print("\nmemory per GPU, GiB (the source's peak; + = damsim above):")
    print("%-40s %8s %8s %8s%s" % ("case", "measured", "damsim", "error",
                                   "   before  error" if before else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for r in rs:
            if not r.get("memory_gib"):
                continue
            meas = float(r["memory_gib"])
            line = "%-40s %8.1f" % (r["case_id"], meas)
            for b in [damsim] + ([before] if before else []):
                got = memory_gib(b, r, tmp)
                line += (" %8.1f %+7.1f%%" % (got, 100 * (got / meas - 1))
                         if got is not None else "   does not load")
            print(line)


def predict(damsim, r, tmp, legacy=False, gemm_frac=None):
    res = solve(damsim, r, tmp, legacy, gemm_frac)
    if res is None:
        return None
    gpus = int(r["nodes"]) * int(r["gpus_per_node"])
    if r["unit"] == "tokens/s/GPU":
        return res["throughput_tokens_per_s"] / gpus
    # Narayanan et al. 2021 equation 3 (recomputation included)
    l, h, _ = gpt(r["model"])
    B, s, V = float(r["global_batch"]), float(r["seq_len"]), 51200.0
    f = 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h))
    return f / (res["step_s"] * gpus) / 1e12


def size_class(b):
    return "<10B" if b < 10 else ("10-100B" if b <= 100 else ">100B")


def summary(label, errs):
    if not errs:
        return "  %-30s -" % label
    return ("  %-30s %3d rows  median |error| %5.1f %%  median signed %+6.1f %%"
            % (label, len(errs), 100 * statistics.median(abs(e) for e in errs),
               100 * statistics.median(errs)))


def logo(damsim, rs, tmp):
    """Leave one GPU out over the framework GEMM factor (module comment)."""
    import math
    grid = [0.50 + 0.02 * i for i in range(41)]
    pred = {}
    for r in rs:
        for k in grid:
            got = predict(damsim, r, tmp, gemm_frac=k)
            if got is not None:
                pred[(r["case_id"], k)] = math.log(got / float(r["value"]))
    print("\nleave one GPU out (framework gemm_frac fitted on the other GPUs):")
    allerr = []
    for g in sorted(set(r["gpu"] for r in rs)):
        train = [r for r in rs if r["gpu"] != g]
        test = [r for r in rs if r["gpu"] == g]
        best = min(grid, key=lambda k: sum(
            pred.get((r["case_id"], k), 9.0) ** 2 for r in train))
        errs = [math.exp(pred[(r["case_id"], best)]) - 1.0 for r in test
                if (r["case_id"], best) in pred]
        allerr += errs
        print(summary("%s (k %.2f)" % (g, best), errs))
    print(summary("all held out", allerr))


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    damsim, path = argv[1], argv[2]
    maxmed = float(argv[argv.index("--max-median") + 1]) \
        if "--max-median" in argv else None
    before = argv[argv.index("--before") + 1] if "--before" in argv else None
    rs = rows(path)
    errs, errs_b, both = [], [], []
    groups = {}
    with tempfile.TemporaryDirectory() as tmp:
        print("%-40s %8s %10s %8s%s" % ("case", "measured", "damsim", "error",
                                        "   before  error" if before else ""))
        for r in rs:
            got = predict(damsim, r, tmp)
            meas = float(r["value"])
            line = "%-40s %8.0f " % (r["case_id"], meas)
            if got is None:
                print(line + "   does not load")
                continue
            e = got / meas - 1.0
            errs.append(e)
            prec = "FP8" if r["precision"] == "fp8" else "16-bit"
            for key in ("precision " + prec,
                        "size " + size_class(params_b(r)),
                        "compiled" if r["compile"] == "1" else "eager"):
                groups.setdefault(key, []).append(e)
            line += "%10.1f %+7.1f%%" % (got, 100 * e)
            if before:
                old = predict(before, r, tmp, legacy=True)
                if old is not None:
                    eb = old / meas - 1.0
                    errs_b.append(eb)
                    both.append(e)
                    line += " %8.1f %+6.1f%%" % (old, 100 * eb)
            print(line)
    print("\nall and by group (+ = damsim too fast):")
    print(summary("all", errs))
    for k in sorted(groups):
        print(summary(k, groups[k]))
    if before and errs_b:
        print("\nrows both solve: before " + summary("", errs_b).strip() +
              "\n                 after  " + summary("", both).strip())
    memory_table(damsim, rs, argv[argv.index("--mem-before") + 1]
                 if "--mem-before" in argv else None)
    if "--logo" in argv:
        with tempfile.TemporaryDirectory() as tmp:
            logo(damsim, rs, tmp)
    if maxmed is not None and errs and \
            statistics.median(abs(e) for e in errs) > maxmed:
        print("median |error| above %.3f" % maxmed)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
