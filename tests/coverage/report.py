#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Line and branch coverage of model/ and solver/ (issue 11, item 11).

Reads the gcov data a build with DAM_COVERAGE=ON left after its tests ran
(gcc --coverage: the sanitizer build of `sh build.sh asan` is one, as is
`sh build.sh coverage`) through `gcov --json-format --stdout`, and prints
for model/ and solver/: lines executed / lines, branches taken at least
once / branches, then per file, then the files with the most lines never
run (what is left uncovered), largest first.

usage: report.py BUILD_DIR SOURCE_DIR [--min PERCENT]
  --min P   exit 1 when the line coverage of model/ + solver/ is below P
"""
import gzip
import json
import os
import subprocess
import sys

build, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
minimum = float(sys.argv[sys.argv.index("--min") + 1]) if "--min" in sys.argv else 0.0
DIRS = ("model", "solver")


def gcda_files():
    for root, _, files in os.walk(build):
        for f in files:
            if f.endswith(".gcda") and any(
                    os.sep + "dam_%s.dir" % d + os.sep in root + os.sep
                    for d in DIRS):
                yield os.path.join(root, f)


def main():
    per_file = {}
    files = sorted(gcda_files())
    if not files:
        print("coverage: no .gcda files under %s (build with DAM_COVERAGE=ON "
              "and run the tests first)" % build)
        return 1
    # one gcov call per object directory: gcov reads the matching .gcno
    by_dir = {}
    for f in files:
        by_dir.setdefault(os.path.dirname(f), []).append(f)
    for d, fs in by_dir.items():
        p = subprocess.run(["gcov", "--json-format", "--stdout",
                            "--branch-probabilities"] + fs, cwd=d,
                           capture_output=True)
        for chunk in p.stdout.split(b"\n"):
            if not chunk.strip():
                continue
            try:
                doc = json.loads(chunk)
            except ValueError:
                continue
            for f in doc.get("files", []):
                path = os.path.realpath(os.path.join(doc.get("current_working_directory", d), f["file"]))
                rel = os.path.relpath(path, src)
                if rel.split(os.sep)[0] not in DIRS:
                    continue
                e = per_file.setdefault(rel, {"lines": {}, "branches": {}})
                for ln in f.get("lines", []):
                    k = ln["line_number"]
                    e["lines"][k] = e["lines"].get(k, 0) + ln["count"]
                    for i, b in enumerate(ln.get("branches", [])):
                        bk = (k, i)
                        e["branches"][bk] = e["branches"].get(bk, 0) + b["count"]
    tot = {d: [0, 0, 0, 0] for d in DIRS}
    rows = []
    for rel, e in sorted(per_file.items()):
        d = rel.split(os.sep)[0]
        lt = len(e["lines"])
        lc = sum(1 for c in e["lines"].values() if c > 0)
        bt = len(e["branches"])
        bc = sum(1 for c in e["branches"].values() if c > 0)
        t = tot[d]
        t[0] += lc
        t[1] += lt
        t[2] += bc
        t[3] += bt
        missed = sorted(k for k, c in e["lines"].items() if c == 0)
        rows.append((rel, lc, lt, bc, bt, missed))

    def pct(a, b):
        return 100.0 * a / b if b else 100.0
    print("coverage of model/ and solver/ (gcov, the tests of this build):")
    all_l = [0, 0, 0, 0]
    for d in DIRS:
        t = tot[d]
        all_l = [x + y for x, y in zip(all_l, t)]
        print("  %-8s lines %5.1f %% (%d of %d)   branches %5.1f %% (%d of %d)"
              % (d + "/", pct(t[0], t[1]), t[0], t[1], pct(t[2], t[3]), t[2],
                 t[3]))
    print("  %-8s lines %5.1f %% (%d of %d)   branches %5.1f %% (%d of %d)"
          % ("both", pct(all_l[0], all_l[1]), all_l[0], all_l[1],
             pct(all_l[2], all_l[3]), all_l[2], all_l[3]))
    print("per file (lines, branches):")
    for rel, lc, lt, bc, bt, _ in rows:
        print("  %-28s %5.1f %%  %5.1f %%" % (rel, pct(lc, lt), pct(bc, bt)))
    print("most lines never run:")
    for rel, lc, lt, bc, bt, missed in sorted(rows, key=lambda r: -len(r[5]))[:12]:
        spans, start, prev = [], None, None
        for k in missed:
            if start is None:
                start = prev = k
            elif k == prev + 1:
                prev = k
            else:
                spans.append((start, prev))
                start = prev = k
        if start is not None:
            spans.append((start, prev))
        text = ", ".join("%d-%d" % s if s[1] > s[0] else "%d" % s[0]
                         for s in spans[:8])
        print("  %-28s %4d lines: %s%s" % (rel, len(missed), text,
                                           ", ..." if len(spans) > 8 else ""))
    if minimum and pct(all_l[0], all_l[1]) < minimum:
        print("coverage: below the %.0f %% floor" % minimum)
        return 1
    return 0


sys.exit(main())
