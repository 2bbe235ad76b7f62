#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Build job-a100-2ranks/ (a folder of two ranks' traces) from
a100-nccl-train.trace.json.gz (rank 0 of 2, MIT: LICENSE-HolisticTraceAnalysis).

No real trace of a second rank of any shipped job exists, so rank 1 is made
from rank 0: the same events, cut like rank 0 to the first two ProfilerStep
spans, with
  - its clock 0.75 s ahead (another host's clock: damsim must align it),
  - only the events from its second ProfilerStep span on (its profiler
    started a step later: its first event is 251 ms after rank 0's, so the
    offset does not cancel out by counting from each trace's first event;
    the ranks share one step, ProfilerStep#5, and its 7 collectives),
  - distributedInfo rank 1,
  - every all-reduce kernel starting 40 % of its duration later, its end
    unchanged: rank 1 reaches each all-reduce late (a straggler), rank 0
    waits in NCCL for it.
What damsim must find: rank 1 the slowest, rank 0's exposed wait per step
the sum of those 40 % over the step's all-reduces, a clock shift of 0.75 s.
Run from this folder: python3 make_job.py
"""
import copy
import gzip
import json

SRC = "a100-nccl-train.trace.json.gz"
OUT = "job-a100-2ranks"
STEPS = 2
SHIFT_US = 750000.0
LATE = 0.4

with gzip.open(SRC, "rt") as f:
    d = json.load(f)
steps = sorted((e for e in d["traceEvents"]
                if str(e.get("name", "")).startswith("ProfilerStep#")),
               key=lambda e: e["ts"])
end = steps[STEPS - 1]["ts"] + steps[STEPS - 1]["dur"]
d["traceEvents"] = [e for e in d["traceEvents"]
                    if e.get("ph") == "M" or "ts" not in e or e["ts"] < end]


def write(doc, name):
    with gzip.GzipFile(f"{OUT}/{name}", "wb", compresslevel=9, mtime=0) as f:
        f.write(json.dumps(doc, separators=(",", ":")).encode())


write(d, "rank0.trace.json.gz")
r1 = copy.deepcopy(d)
r1["distributedInfo"]["rank"] = 1
first = steps[1]["ts"]
r1["traceEvents"] = [e for e in r1["traceEvents"]
                     if e.get("ph") == "M" or "ts" not in e or e["ts"] >= first]
for e in r1["traceEvents"]:
    if "ts" in e:
        e["ts"] += SHIFT_US
    if e.get("cat") == "kernel" and e["name"].startswith(
            "ncclKernel_AllReduce"):
        late = LATE * e["dur"]
        e["ts"] += late
        e["dur"] -= late
write(r1, "rank1.trace.json.gz")
