#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reliability cases (issue 11): every file in tests/reliability/cases/
reproduced a wrong answer reported as success, unbounded work, or an unsafe
write. Each is run here with what the case's README expects, with a time
limit, so a regression fails the suite instead of hanging it.

usage: run.py DAMSIM CASES_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

damsim, cases = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("PASS: " + what)
    else:
        failed += 1
        print("FAIL: " + what)


def run(*args, timeout=60, env=None, cwd=None):
    """(exit code, stdout, stderr); exit 124 when over the time limit."""
    try:
        p = subprocess.run([damsim] + list(args), capture_output=True,
                           text=True, errors="replace", timeout=timeout,
                           env=env, cwd=cwd)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or "", e.stderr or ""


def case(name):
    return os.path.join(cases, name)


def scen(name):
    return os.path.join(os.path.dirname(cases), "..", "..", "scenarios", name)


def located(err, name):
    """The message starts with the case's file:line: error."""
    return re.search(re.escape(name) + r":[1-9][0-9]*: error: ", err) is not None


def finite_json(text):
    """Parse JSON that must hold no NaN, Infinity or null number."""
    bad = []

    def refuse(tok):
        bad.append(tok)
        return 0.0
    doc = json.loads(text, parse_constant=refuse)
    return doc, bad, "null" not in text


# ---- 1. counts that cannot overflow ----------------------------------------
rc, out, err = run("run", "--analytic", "--json",
                   case("int-overflow-4096x1e6-gpus.cfg"))
check(rc == 2 and located(err, "int-overflow-4096x1e6-gpus.cfg"),
      "4096 GPUs x 1e6 nodes: refused at load with file:line (exit %d)" % rc)
check(out == "", "  and nothing on stdout")

# ---- 6. safe output ----------------------------------------------------------
work = tempfile.mkdtemp(prefix="dam_rel_")
try:
    env = dict(os.environ, D=damsim,
               S=scen("iron-law-data-bound.cfg"),
               TMPDIR=work)
    p = subprocess.run(["sh", case("tmp-name-symlink-clobber.sh")],
                       capture_output=True, text=True, env=env, timeout=60)
    check("rc=0" in p.stdout and "victim now: secret" in p.stdout,
          "a link planted at the old temporary name is not followed")
    p = subprocess.run(["sh", case("trace-replaces-special-file.sh")],
                       capture_output=True, text=True, env=env, timeout=60)
    lines = p.stdout.splitlines()
    rcs = [l for l in lines if l.startswith("rc=")]
    device = bool(lines) and lines[0].startswith("c")  # mknod worked (root)
    check(rcs == (["rc=2", "rc=2"] if device else ["rc=0", "rc=2"]),
          "--trace to a device, -o to a link to one: refused, exit 2 (%s)"
          % " ".join(rcs))
    if device:
        check(lines[2].startswith("c"), "  the device node is still a device")
    check(bool(lines) and lines[-1].startswith("l"),
          "  the symbolic link is still a link")
finally:
    shutil.rmtree(work, ignore_errors=True)

# A failed -o DIR leaves no folder behind: file writes fail (RLIMIT_FSIZE 0,
# SIGXFSZ ignored) after the folder is made.
def no_file_writes():
    import resource
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


work = tempfile.mkdtemp(prefix="dam_rel_")
try:
    target = os.path.join(work, "charts")
    p = subprocess.run([damsim, "run", "--analytic", scen("iron-law-data-bound.cfg"),
                        "-o", target], capture_output=True, text=True,
                       preexec_fn=no_file_writes, timeout=60)
    check(p.returncode == 1 and not os.path.exists(target),
          "-o DIR whose charts cannot be written: exit 1, no folder left "
          "(exit %d)" % p.returncode)
    check(os.listdir(work) == [], "  and no temporary file left")
finally:
    shutil.rmtree(work, ignore_errors=True)

# ---- 8. exit codes and messages ----------------------------------------------
flagship = scen("resnet50-dgx-a100.cfg")
rc, out, err = run("run", flagship, "--seed", "99999999999999999999999")
check(rc == 2 and "--seed" in err, "--seed beyond 64 bits: exit 2 (%d)" % rc)
rc, out, err = run("run", flagship, "--json", "--csv")
check(rc == 2 and "--json" in err and "--csv" in err,
      "--json with --csv: exit 2 (%d)" % rc)
for opt in ("--seed", "-o", "--trace"):
    rc, out, err = run("run", flagship, opt)
    check(rc == 2 and "missing value" in err and "unknown option" not in err,
          "%s without a value says 'missing value' (exit %d)" % (opt, rc))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
