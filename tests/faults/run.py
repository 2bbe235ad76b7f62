#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fault injection (issue 11, item 10), SQLite's and Lua's way: damsim built
with DAM_FAULT_INJECTION (the sanitizer build) fails the Nth allocation of
a run when DAM_FAULT_AT=N. For check, run --analytic, a short run, whatif
and report on an example scenario, every N from 1 to the run's number of
allocations is tried; each run must end with damsim's out-of-memory
message and exit 1: no crash, no sanitizer report (ASan, UBSan, LSan: no
leak), no temporary output file left behind.

What the injection covers: every allocation damsim makes (model/alloc.c:
dam_malloc, dam_calloc, dam_realloc, dam_grow, dam_strdup), GSL objects it
checks (dam_alloc_check: the random-number generators) and jansson's
(routed through dam_malloc by cli/main.c). It does not cover libconfig's,
cairo's, pango's, fontconfig's or GSL's internal allocations (their own
malloc; not reachable without interposing malloc itself).

usage: run.py DAMSIM SOURCE_DIR [--stride S | --max-runs M] [--jobs J]
  --stride S    try every S-th N (plus the first 40 and the last 10)
  --max-runs M  per command, the stride that keeps the runs near M
  (default: every N)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

damsim, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
args = sys.argv[3:]
stride = int(args[args.index("--stride") + 1]) if "--stride" in args else 0
max_runs = int(args[args.index("--max-runs") + 1]) if "--max-runs" in args else 0
jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 2
scen = os.path.join(src, "scenarios", "resnet50-dgx-a100.cfg")
short = ["--steps", "16", "--replications", "1"]
COMMANDS = [
    ("check", ["check", scen]),
    ("run --analytic", ["run", "--analytic", scen]),
    ("run (short)", ["run"] + short + [scen, "--json"]),
    ("whatif", ["whatif"] + short + [scen]),
    ("report", ["report"] + short + [scen, "-o", "review.pdf"]),
]
SANITIZER = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
             "runtime error:", "Segmentation fault", "Aborted")
env = dict(os.environ)
env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
env.setdefault("LSAN_OPTIONS", "suppressions=" +
               os.path.join(src, "tests", "lsan.supp"))
env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")


def one(argv, n):
    """Run with the nth allocation failing: (ok, why)."""
    work = tempfile.mkdtemp(prefix="dam_fault_")
    try:
        e = dict(env, DAM_FAULT_AT=str(n))
        p = subprocess.run([damsim] + argv, cwd=work, env=e,
                           capture_output=True, text=True, errors="replace",
                           timeout=300)
        left = os.listdir(work)
        if n == 0:
            return p, left
        if any(s in p.stderr for s in SANITIZER) or p.returncode < 0:
            return False, "crash or sanitizer report (exit %d): %s" % (
                p.returncode, p.stderr.strip()[-400:])
        if p.returncode != 1 or "damsim: out of memory" not in p.stderr:
            return False, "exit %d without the out-of-memory message: %s" % (
                p.returncode, p.stderr.strip()[-300:])
        if any(f.startswith(".") for f in left):
            return False, "temporary files left: %s" % left
        return True, ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    failed = 0
    total_runs = 0
    t0 = time.time()
    for name, argv in COMMANDS:
        p, left = one(argv, 0)
        count = 0
        for line in p.stderr.splitlines():
            if line.startswith("damsim: ") and line.endswith(" allocations"):
                count = int(line.split()[1])
        if p.returncode != 0 or count == 0:
            print("FAIL: %s: the unfailed run exits %d with %d allocations "
                  "counted (is damsim built with DAM_FAULT_INJECTION?): %s" %
                  (name, p.returncode, count, p.stderr.strip()[-300:]))
            failed += 1
            continue
        s = stride or (max(1, count // max_runs) if max_runs else 1)
        ns = sorted(set(list(range(1, min(count, 40) + 1)) +
                        list(range(1, count + 1, s)) +
                        list(range(max(1, count - 9), count + 1))))
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            res = list(ex.map(lambda n: (n, one(argv, n)), ns))
        bad = [(n, why) for n, (ok, why) in res if not ok]
        total_runs += len(ns)
        for n, why in bad[:5]:
            print("FAIL: %s, allocation %d of %d fails: %s" %
                  (name, n, count, why))
        failed += len(bad)
        print("%s: %d allocations; %d of them failed in turn%s: %d clean "
              "out-of-memory exits" % (name, count, len(ns),
                                       " (stride %d)" % s if s > 1 else "",
                                       len(ns) - len(bad)))
    print("%d runs in %.0f s, %d failed" % (total_runs, time.time() - t0,
                                          failed))
    sys.exit(1 if failed else 0)


main()
