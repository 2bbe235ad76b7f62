# SPDX-License-Identifier: GPL-3.0-or-later
"""xgpu.py: damsim's cross-GPU speed-ups against published measurements.

Usage: python3 xgpu.py DAMSIM XGPU.CSV [--max-median F] [--show]
                                         [--before OLD_DAMSIM]

For every row of XGPU.CSV (tests/validation/xgpu.csv: one published
single-GPU throughput each) a scenario is written the way the measurement
was taken (the GPU, precision, batch and sequence length; synthetic input
that never binds) and solved with `DAMSIM run --analytic --json`. Inside a
group (one code base, model, mode, precision class), every pair of GPUs
gives a measured speed-up ratio and a predicted one; the error of a pair is
predicted / measured - 1. Prints each row, each group's median |error| and
the median |error| over all pairs. Rows that do not load (an older damsim
without the GPU, model or key) are skipped and counted, so the same script
measures an older binary ("before") and the current one ("after").

With --before OLD_DAMSIM the rows are also solved by an older damsim
(without the keys it does not know: workload.seq_len, inference_engine),
and the medians of both are printed over the pairs both could solve.

With --max-median F the exit status is 1 when the median |error| over all
pairs exceeds F. Out of sample: no constant of the device model was fitted
on these rows (data/README.md "Device model" names what each constant was
fitted on).
"""
import csv
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile

SCEN = """scenario: {{ name = "{cid}"; question = "validation"; mode = "{mode}"; seed = 1; }};
machine: {{ gpu = "{gpu}"; gpus_per_node = 1;
  host: {{ cpu_cores = 256; pcie_gbs = 25.0; }};
  storage: {{ kind = "page_cache"; read_gbs = 1000.0; latency_ms = 0.0; }}; }};
workload: {{ model = "{model}"; precision = "{prec}"; batch_size = {batch};{seq} }};
data: {{ samples = 1.0e7; decode_ms = 0.0; raw_bytes_per_sample = 0.0; input_bytes_per_sample = 0.0; }};
pipeline: {{ loader_workers = 8; overlap_transfer = true; }};
"""


def rows(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def predict(damsim, r, tmp, legacy=False):
    seq = " seq_len = %s;" % r["seq_len"] if r["seq_len"] else ""
    if r["mode"] == "inference":
        # the published inference rows run in the framework, not an engine
        seq += ' inference_engine = "eager";'
    if r.get("memory_format"):
        seq += ' memory_format = "%s";' % r["memory_format"]
    if legacy:
        seq = ""
    text = SCEN.format(cid=r["case_id"], mode=r["mode"], gpu=r["gpu"],
                       model=r["model"], prec=r["precision"],
                       batch=r["batch_per_gpu"], seq=seq)
    path = os.path.join(tmp, r["case_id"] + ".cfg")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run([damsim, "run", path, "--analytic", "--json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    res = json.loads(p.stdout)["result"]
    return res["throughput_samples_per_s"]


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    damsim, table = argv[1], argv[2]
    limit = None
    show = "--show" in argv
    if "--max-median" in argv:
        limit = float(argv[argv.index("--max-median") + 1])
    data = rows(table)
    old = argv[argv.index("--before") + 1] if "--before" in argv else None
    with tempfile.TemporaryDirectory() as tmp:
        for r in data:
            r["pred"] = predict(damsim, r, tmp)
            if old:
                r["old"] = predict(old, r, tmp, legacy=True)
    skipped = [r["case_id"] for r in data if r["pred"] is None]
    groups = {}
    for r in data:
        if r["pred"] is not None:
            groups.setdefault(r["group"], []).append(r)
    all_err = []
    print("%-44s %-16s %10s %10s %7s" % ("case", "gpu", "measured", "model",
                                         "ratio"))
    for g in sorted(groups):
        members = groups[g]
        errs = []
        for a, b in itertools.combinations(members, 2):
            meas = float(a["value"]) / float(b["value"])
            pred = a["pred"] / b["pred"]
            errs.append(abs(pred / meas - 1.0))
        if show:
            for r in members:
                print("%-44s %-16s %10.4g %10.4g %7.3f" % (
                    r["case_id"][:44], r["gpu"], float(r["value"]), r["pred"],
                    r["pred"] / float(r["value"])))
        if errs:
            print("  group %-52s %2d GPUs, %3d pairs, median |error| %5.1f %%"
                  % (g, len(members), len(errs),
                     100 * statistics.median(errs)))
            all_err += errs
    if not all_err:
        print("no pairs")
        return 1
    if old:
        both_new, both_old = [], []
        for g in sorted(groups):
            ok = [r for r in groups[g] if r.get("old") is not None]
            for a, b in itertools.combinations(ok, 2):
                meas = float(a["value"]) / float(b["value"])
                both_new.append(abs(a["pred"] / b["pred"] / meas - 1.0))
                both_old.append(abs(a["old"] / b["old"] / meas - 1.0))
        if both_new:
            print("pairs both solve: %d; median |error| before %.1f %%, "
                  "after %.1f %%" % (len(both_new),
                                     100 * statistics.median(both_old),
                                     100 * statistics.median(both_new)))
    med = statistics.median(all_err)
    print("rows %d (skipped %d), pairs %d: median |error| of speed-up ratios "
          "%.1f %%" % (len(data) - len(skipped), len(skipped), len(all_err),
                       100 * med))
    if limit is not None and med > limit:
        print("FAIL: median |error| %.3f above %.3f" % (med, limit))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
