#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/mutate/mutate.py: mutation testing of model/ and solver/.

Would the test suite notice a wrong formula? Each mutant changes one thing
in one line of model/*.c or solver/*.c, the tree is rebuilt and ctest run;
a mutant that makes some test fail is *killed*, one that passes every test
*survives* (the suite cannot tell it from the real model), one that does not
compile is *invalid* (not counted). Kill rate = killed / (killed + survived).

Mutations (one per mutant):
  - a binary operator written with a space on each side (this code base's
    style for binary operators, which keeps pointer declarations and unary
    minus out): + <-> -, * <-> /, < <-> <=, > <-> >=, == <-> !=, && <-> ||;
  - a numeric constant c: 0 -> 1, 1 -> 0, any other -> c / 2 (so the
    optimizer traffic's `2.0 *` becomes `1.0 *`).
Comments, strings, character literals and preprocessor lines are skipped.

The work happens on a copy of the tree (never in the checkout): the tree is
copied to WORK/src, configured once in WORK/build (Release, warnings not
errors), then for each mutant: write the mutated file, rebuild, run
`ctest --stop-on-failure --timeout T`, restore the file. Sampling: all
sites are listed in a fixed order and --sample N picks N of them with a
seeded generator (--seed), so a run is reproducible; say "N of M".

Usage (long: minutes per mutant on two cores; run it niced, in the
background, never in CI):
    nice python3 tests/mutate/mutate.py --sample 120 --out mutants.tsv
    python3 tests/mutate/mutate.py --list            # sites, no build
    python3 tests/mutate/mutate.py --only solver/analytic.c:111:2
    python3 tests/mutate/mutate.py --only model/device.c:454 --tests test_graph
--tests REGEX runs only the ctests it matches (ctest -R), to confirm that a
new test kills a known survivor quickly; a mutant those tests miss is then
"missed", not "survived", and no kill rate over the suite is claimed.
Output: one TSV row per mutant (file, line, column, original, mutant,
status, killing test, seconds) and a summary with the kill rate and every
survivor.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
DIRS = ("model", "solver")
OPS = {"+": "-", "-": "+", "*": "/", "/": "*", "<": "<=", "<=": "<",
       ">": ">=", ">=": ">", "==": "!=", "!=": "==", "&&": "||", "||": "&&"}
OP_RE = re.compile(r"(?<= )(\+|-|\*|/|<=|>=|<|>|==|!=|&&|\|\|)(?= )")
NUM_RE = re.compile(r"(?<![\w.])((?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)"
                    r"([fFuUlL]*)(?![\w.])")


def code_mask(text):
    """A copy of text with comments, strings, char literals and
    preprocessor lines blanked (same length, newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def mutate_number(tok):
    """The constant a number token becomes, or None."""
    body = tok.rstrip("fFuUlL")
    try:
        v = float(body) if any(ch in body for ch in ".eE") else int(body, 10)
    except ValueError:
        return None
    if body.startswith("0") and len(body) > 1 and body.isdigit():
        return None  # octal: leave alone
    isf = isinstance(v, float)
    if v == 0:
        return "1.0" if isf else "1"
    if v == 1:
        return "0.0" if isf else "0"
    if isf:
        return repr(v / 2.0)
    return str(v // 2) if v % 2 == 0 else repr(v / 2.0)


def sites():
    """Every mutation site: (file, line, col, old, new), in a fixed order."""
    out = []
    for d in DIRS:
        for name in sorted(os.listdir(os.path.join(ROOT, d))):
            if not name.endswith(".c"):
                continue
            rel = d + "/" + name
            text = open(os.path.join(ROOT, rel)).read()
            masked = code_mask(text)
            for ln, line in enumerate(masked.split("\n"), 1):
                for m in OP_RE.finditer(line):
                    out.append((rel, ln, m.start(), m.group(1),
                                OPS[m.group(1)]))
                for m in NUM_RE.finditer(line):
                    new = mutate_number(m.group(1))
                    if new is not None and new != m.group(1):
                        out.append((rel, ln, m.start(), m.group(1), new))
    return out


def apply(text, site):
    rel, ln, col, old, new = site
    lines = text.split("\n")
    s = lines[ln - 1]
    assert s[col:col + len(old)] == old, (site, s)
    lines[ln - 1] = s[:col] + new + s[col + len(old):]
    return "\n".join(lines)


def run(cmd, cwd, timeout=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return p.returncode, p.stdout


def prepare(work, jobs, tests):
    src = os.path.join(work, "src")
    build = os.path.join(work, "build")
    if os.path.exists(src):
        shutil.rmtree(src)
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", "build", "build-*", "__pycache__"))
    rc, log = run(["cmake", "-S", src, "-B", build,
                   "-DCMAKE_BUILD_TYPE=Release", "-DDAM_WERROR=OFF"], work)
    if rc == 0:
        rc, log = run(["cmake", "--build", build, "-j", str(jobs)], work)
    if rc == 0:
        rc, log = run(["ctest", "--test-dir", build, "-j", str(jobs)] +
                      (["-R", tests] if tests else []), work)
    if rc != 0:
        sys.exit("mutate: the unmutated tree does not build and pass:\n" +
                 log[-3000:])
    return src, build


def killer(log):
    """The first failing test and how it failed (Failed, Timeout, ...)."""
    m = re.search(r"\d+ - (\S+) \((Failed|Timeout|SEGFAULT|Subprocess|"
                  r"Child|Exception|OTHER_FAULT|Not Run)", log)
    if m:
        return "%s (%s)" % (m.group(1), m.group(2))
    m = re.search(r"Test +#\d+: (\S+) \.+\*+(Failed|Timeout|Exception)", log)
    return "%s (%s)" % (m.group(1), m.group(2)) if m else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=0,
                    help="mutants to try (0: all)")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--only", action="append", default=[],
                    help="FILE:LINE[:N] sites only (N-th on the line)")
    ap.add_argument("--files", default="",
                    help="comma-separated files to draw from")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--work", default="/tmp/damsim-mutate-" +
                    str(os.getuid()))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=900,
                    help="seconds per test: a mutant whose test runs longer "
                         "is counted killed (timeout), reported apart; keep "
                         "it far above the slowest test on a loaded machine")
    ap.add_argument("--out", default="mutants.tsv")
    ap.add_argument("--tests", default="",
                    help="ctest -R regex: only these tests (to confirm a "
                         "kill; no suite kill rate)")
    a = ap.parse_args()

    all_sites = sites()
    pick = all_sites
    if a.files:
        keep = set(a.files.split(","))
        pick = [s for s in pick if s[0] in keep]
    if a.only:
        chosen = []
        for o in a.only:
            parts = o.split(":")
            on = [s for s in pick if s[0] == parts[0] and
                  s[1] == int(parts[1])]
            if len(parts) > 2:
                on = on[int(parts[2]):int(parts[2]) + 1]
            chosen += on
        pick = chosen
    if a.list:
        for s in pick:
            print("%s:%d:%d\t%s -> %s" % s)
        print("%d sites" % len(pick), file=sys.stderr)
        return 0
    pool = len(pick)
    if a.sample and a.sample < len(pick):
        pick = sorted(random.Random(a.seed).sample(pick, a.sample),
                      key=lambda s: (s[0], s[1], s[2]))
    os.makedirs(a.work, exist_ok=True)
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                           "HEAD"], stdout=subprocess.PIPE,
                          text=True).stdout.strip()
    print("mutate: %d of %d sites (seed %d) at %s" % (len(pick), pool,
                                                        a.seed, head),
          flush=True)
    t0 = time.time()
    src, build = prepare(a.work, a.jobs, a.tests)
    print("mutate: baseline built and passed in %.0f s" % (time.time() - t0),
          flush=True)
    rows = []
    with open(a.out, "w") as f:
        f.write("file\tline\tcol\toriginal\tmutant\tstatus\tkiller\tsec\n")
        for i, s in enumerate(pick):
            path = os.path.join(src, s[0])
            orig = open(path).read()
            t = time.time()
            open(path, "w").write(apply(orig, s))
            try:
                rc, log = run(["cmake", "--build", build, "-j",
                               str(a.jobs)], a.work)
                if rc != 0:
                    status, who = "invalid", ""
                else:
                    rc, log = run(["ctest", "--test-dir", build, "-j",
                                   str(a.jobs), "--stop-on-failure",
                                   "--timeout", str(a.timeout)] +
                                  (["-R", a.tests] if a.tests else []),
                                  a.work)
                    status = ("killed" if rc != 0 else
                              "missed" if a.tests else "survived")
                    who = killer(log) if rc != 0 else ""
            finally:
                open(path, "w").write(orig)
            row = s + (status, who, time.time() - t)
            rows.append(row)
            f.write("%s\t%d\t%d\t%s\t%s\t%s\t%s\t%.0f\n" % row)
            f.flush()
            print("[%d/%d] %s:%d:%d %s -> %s: %s %s" %
                  ((i + 1, len(pick)) + s + (status, who)), flush=True)
    # The last restore must be rebuilt before the tree is reused.
    run(["cmake", "--build", build, "-j", str(a.jobs)], a.work)
    killed = sum(r[5] == "killed" for r in rows)
    timeouts = sum(r[5] == "killed" and "Timeout" in r[6] for r in rows)
    surv = [r for r in rows if r[5] in ("survived", "missed")]
    inval = sum(r[5] == "invalid" for r in rows)
    valid = killed + len(surv)
    if a.tests:
        print("\nmutate: %d mutants against the tests matching %r only: %d "
              "killed, %d missed by them, %d invalid (no suite kill rate); "
              "%.0f min" % (len(rows), a.tests, killed, len(surv), inval,
                            (time.time() - t0) / 60))
    else:
        print("\nmutate: %d mutants (%d of %d sites, seed %d, at %s): %d "
              "killed (%d by a timeout), %d survived, %d invalid; kill rate "
              "%.1f %% (%d/%d); %.0f min" %
              (len(rows), len(pick), pool, a.seed, head, killed, timeouts,
               len(surv), inval, 100.0 * killed / valid if valid else 0.0,
               killed, valid, (time.time() - t0) / 60))
    for r in surv:
        print("%s: %s:%d:%d  %s -> %s" % ((r[5].replace("survived",
                                                        "survivor"),) + r[:5]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
