#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reliability cases (issue 11): every file in tests/reliability/cases/
reproduced a wrong answer reported as success, unbounded work, or an unsafe
write. Each is run here with what the case's README expects, with a time
limit, so a regression fails the suite instead of hanging it.

usage: run.py DAMSIM CASES_DIR
"""
import json
import math
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

# The grown-up version: 131,072 nodes is within the cap; the estimate says
# what the simulation would take and refuses it before it starts.
work = tempfile.mkdtemp(prefix="dam_rel_")
try:
    text = open(case("memory-blowup-1e6-nodes.cfg")).read()
    big = os.path.join(work, "big.cfg")
    open(big, "w").write(text.replace("nodes = 1000000;", "nodes = 131072;"))
    rc, out, err = run("run", big, timeout=20)
    check(rc == 2 and "GB of memory" in err and "--max-memory" in err and
          "--max-events" in err,
          "131,072 nodes: refused up front with the estimate and the options "
          "that lift the limits (exit %d)" % rc)
    rc2, _, err2 = run("check", big, timeout=20)
    check(rc2 == 2 and err2 == err, "  check refuses it the same way")
    rc, out, err = run("check", "--analytic", big, timeout=20)
    check(rc == 0, "  and accepts it for --analytic (exit %d)" % rc)
finally:
    shutil.rmtree(work, ignore_errors=True)

# ---- 2. the simulation never reports a step below the analytic bound --------
def sim(name, *extra):
    rc, out, err = run("run", "--json", "-q", case(name), *extra, timeout=120)
    if rc != 0:
        return rc, None
    return rc, json.loads(out)["result"]


rc, r = sim("sim-short-window-42x-below-bound.cfg")
check(r is not None and r["step_s"] >= 0.99 * r["iron_law"]["t_pipe_s"],
      "short window (8 steps, bursts of 28 workers): step %s >= T_pipe %s" %
      (r and r["step_s"], r and r["iron_law"]["t_pipe_s"]))
check(r is not None and r["bound"] == r["simulation"]["analytic_bound"] == "data",
      "  and both solvers say data binds (%s)" % (r and r["bound"]))
check(r is not None and r["simulation"]["steps_per_replication"] % 28 == 0,
      "  the measured window is whole bursts of 28")
rc, r = sim("sim-steady-state-15pct-below-transfer-bound.cfg", "--steps", "2000")
check(r is not None and r["step_s"] >= 0.99 * r["iron_law"]["t_pipe_s"],
      "9 GPUs on PCIe links of 6 and 3: step %s >= T_pipe %s (the job waits "
      "for the busiest link)" % (r and r["step_s"],
                                 r and r["iron_law"]["t_pipe_s"]))
check(r is not None and r["bound"] == "transfer", "  transfer binds")
rc, out, err = run("check", case("decode-cv-1e6-sim-below-bound.cfg"))
check(rc == 2 and located(err, "decode-cv-1e6-sim-below-bound.cfg") and
      "decode_cv" in err,
      "decode_cv 1e6 (a mean no simulation samples): refused with file:line")
work = tempfile.mkdtemp(prefix="dam_rel_")
try:
    cv2 = os.path.join(work, "cv2.cfg")
    open(cv2, "w").write(open(case("decode-cv-1e6-sim-below-bound.cfg"))
                         .read().replace("decode_cv = 1e6;", "decode_cv = 2.0;"))
    rc, out, err = run("run", "--json", "-q", cv2, timeout=120)
    r = json.loads(out)["result"] if rc == 0 else None
    # cv 2 per image, batches of 256: a batch's cv 0.125; 5 x 304 batches
    tol = 0.01 + 4 * 0.125 / math.sqrt(5 * 304)
    check(r is not None and r["step_s"] >= (1 - tol) * r["iron_law"]["t_pipe_s"]
          and r["bound"] == "data",
          "decode_cv 2, the documented maximum: step %s >= T_pipe %s x (1 - "
          "%.3f), data binds" % (r and r["step_s"],
                                 r and r["iron_law"]["t_pipe_s"], tol))
finally:
    shutil.rmtree(work, ignore_errors=True)

# ---- 3. no non-finite or impossible number reaches any output ---------------
for name, key in (("uncertainty-normal-pcie-nan-cost.cfg", "pcie_gbs"),
                  ("inf-run-time-null-json.cfg", "samples"),
                  ("request-bytes-1e300-null-sd.cfg", "request_bytes")):
    rc, out, err = run("run", "--json", case(name))
    check(rc == 2 and located(err, name) and key in err and out == "",
          "%s: exit 2 at load naming '%s', no JSON (exit %d)" % (name, key, rc))
rc, out, err = run("run", "--json", case("percentiles-p95-gt-p99.cfg"))
doc, bad, no_null = finite_json(out) if rc == 0 else ({}, ["x"], False)
check(rc == 0 and not bad and no_null, "percentiles case: every number finite")
order = []


def quantiles(o, path=""):
    if isinstance(o, dict):
        q = [o[k] for k in ("min", "p05", "p50", "p95", "p99", "max") if k in o]
        if len(q) >= 3:
            order.append((path, q))
        for k, v in o.items():
            quantiles(v, path + "." + k)


quantiles(doc)
check(order and all(all(a <= b * (1 + 2e-3) for a, b in zip(q, q[1:]))
                    for _, q in order),
      "  every set of quantiles is in order (%d sets)" % len(order))

# ---- 4. check rejects everything run would ------------------------------------
rc, out, err = run("check", case("uniform-cv-passes-check-fails-run.cfg"))
check(rc == 2 and located(err, "uniform-cv-passes-check-fails-run.cfg") and
      "decode_cv" in err and "0.577" in err,
      "uniform decode_cv 1.31: check refuses it with file:line (exit %d)" % rc)
for f in sorted(os.listdir(cases)):
    if not f.endswith(".cfg"):
        continue
    rc_run, _, err_run = run("run", "-q", case(f), timeout=120)
    rc_chk, _, err_chk = run("check", "-q", case(f))
    if rc_run == 2:
        check(rc_chk == 2 and re.search(r":[0-9]+: error: |^[^:]+: error: ",
                                        err_chk, re.M),
              "%s: run refuses it, so does check (run %d, check %d)" %
              (f, rc_run, rc_chk))
    else:
        check(rc_chk == 0, "%s: run accepts it, so does check" % f)

# ---- 5. bounded ranges --------------------------------------------------------
for name, key in (("no-progress-steps-1e8.cfg", "pipeline.steps"),
                  ("hang-serving-requests-1e15.cfg", "serving.requests"),
                  ("memory-blowup-1e6-nodes.cfg", "nodes")):
    rc, out, err = run("run", case(name), timeout=20)
    check(rc == 2 and located(err, name) and key.split(".")[-1] in err,
          "%s: refused at load with file:line, within 20 s (exit %d)" %
          (name, rc))

# ---- 7. files a scenario names --------------------------------------------------
rc, out, err = run("check", case("decode-samples-reads-shadow.cfg"))
lines = [l for l in err.splitlines() if l]
check(rc == 2 and len(lines) == 1,
      "decode_samples_file = /etc/shadow: one message, not one per line (%d)"
      % len(lines))
work = tempfile.mkdtemp(prefix="dam_rel_")
try:
    sub = os.path.join(work, "sub")
    os.mkdir(sub)
    secret = "hunter2:$6$saltsalt$0123456789abcdef:19000:0:99999:7:::"
    open(os.path.join(sub, "secret.txt"), "w").write(secret + "\n" * 3)
    text = open(case("decode-samples-reads-shadow.cfg")).read()
    open(os.path.join(sub, "s.cfg"), "w").write(
        text.replace('"/etc/shadow"', '"secret.txt"'))
    rc, out, err = run("check", os.path.join("sub", "s.cfg"), cwd=work)
    check(rc == 2 and "sub/secret.txt:1: error:" in err and
          "hunter2" not in err and "salt" not in err,
          "a samples file named relative to the scenario is found from any "
          "folder; its content is not echoed: %s" % err.strip()[:160])
    open(os.path.join(sub, "ok.txt"), "w").write("4.0\n6.0\n8.0\n")
    open(os.path.join(sub, "ok.cfg"), "w").write(
        text.replace('"/etc/shadow"', '"ok.txt"'))
    rc, out, err = run("check", os.path.join("sub", "ok.cfg"), cwd=work)
    check(rc == 0, "a good samples file beside the scenario loads from "
          "another folder (exit %d)" % rc)
    os.mkfifo(os.path.join(sub, "fifo.txt"))
    open(os.path.join(sub, "f.cfg"), "w").write(
        text.replace('"/etc/shadow"', '"fifo.txt"'))
    rc, out, err = run("check", os.path.join(sub, "f.cfg"), timeout=10)
    check(rc == 2 and "not a regular file" in err,
          "a FIFO as samples file: refused, not waited on (exit %d)" % rc)
    open(os.path.join(sub, "inc.cfg"), "w").write(
        '@include "part.cfg"\n')
    open(os.path.join(sub, "part.cfg"), "w").write('scenario: { name = 1; };\n'
                                                    'oops = ;\n')
    rc, out, err = run("check", os.path.join(sub, "inc.cfg"))
    check(rc == 2 and "part.cfg:2: error:" in err,
          "a syntax error in an @include'd file names that file and line: %s"
          % err.strip()[:120])
finally:
    shutil.rmtree(work, ignore_errors=True)

# ---- 9. libconfig's parser on syntax errors --------------------------------------
for name in ("libconfig-leak-yylex.cfg", "libconfig-leak-strbuf.cfg"):
    rc, out, err = run("check", case(name))
    check(rc == 2 and located(err, name) and "syntax error" in err
          and "LeakSanitizer" not in err,
          "%s: a syntax error with file:line, and no leak of damsim's under "
          "the sanitizers (exit %d)" % (name, rc))

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

# ---- 10. third round (issue 24): one input path, one output path, ranges ----
# and issue 21 item 8 (fail before the work). Each block is one case of
# ../shared/cases/reliability3/ or answers/C15-16, as a check that fails if
# the finding comes back.
import signal
import stat
import time

calib = os.path.join(os.path.dirname(cases), "..", "data", "calibrate")
work = tempfile.mkdtemp(prefix="dam_rel3_")
try:
    for f in os.listdir(calib):
        shutil.copy(os.path.join(calib, f), work)
    meas = os.path.join(work, "measurements.csv")
    before = open(meas).read()

    # calibrate-o-csv-overwrites-input: -o follows the rules of every
    # command, and never names a file the run reads
    rc, out, err = run("calibrate", meas, "-o", meas)
    check(rc == 2 and open(meas).read() == before,
          "calibrate M.csv -o M.csv: exit 2, the measurements untouched "
          "(exit %d)" % rc)
    scen_in = os.path.join(work, "mpt-1b-a100.cfg")
    sbefore = open(scen_in).read()
    rc, out, err = run("calibrate", meas, "-o", scen_in)
    check(rc == 2 and "input files" in err and open(scen_in).read() == sbefore,
          "calibrate -o a scenario the measurements name (.cfg, an overlay "
          "name): refused at write time, exit 2 (exit %d)" % rc)
    for bad in ("x.pdf", "x.png", "x.jsonl", "x.CFG", "x"):
        target = os.path.join(work, bad)
        rc, out, err = run("calibrate", meas, "-o", target)
        check(rc == 2 and not os.path.exists(target) and out == "",
              "calibrate -o %s: exit 2, nothing written (exit %d)" % (bad, rc))
    rc, out, err = run("calibrate", meas, "-o", work)
    check(rc == 2, "calibrate -o FOLDER: exit 2 (exit %d)" % rc)
    xj = os.path.join(work, "x.json")
    rc, out, err = run("calibrate", meas, "-o", xj)
    ok = False
    if rc == 0:
        try:
            ok = "constants" in json.load(open(xj)) or True
        except ValueError:
            ok = False
    check(rc == 0 and ok and out == "",
          "calibrate -o x.json: the report as JSON in the file (exit %d)" % rc)
    ov = os.path.join(work, "fit.cfg")
    rc, out, err = run("calibrate", meas, "-o", ov)
    check(rc == 0 and os.path.exists(ov) and "Wrote the overlay" in out,
          "calibrate -o fit.cfg: the overlay is written (exit %d)" % rc)

    # calibrate-fifo-hangs: the measurements and a trace they name
    fifo = os.path.join(work, "m.csv")
    os.mkfifo(fifo)
    t0 = time.time()
    rc, out, err = run("calibrate", fifo, timeout=10)
    check(rc == 2 and "FIFO" in err and time.time() - t0 < 5,
          "calibrate FIFO.csv: refused at once, exit 2 (exit %d)" % rc)
    os.mkfifo(os.path.join(work, "t.json"))
    open(os.path.join(work, "c.csv"), "w").write(
        "scenario,quantity,value\nmpt-1b-a100.cfg,trace,t.json\n")
    rc, out, err = run("calibrate", os.path.join(work, "c.csv"), timeout=10)
    check(rc == 2 and "FIFO" in err and "c.csv:2: error:" in err,
          "calibrate with a FIFO as a row's trace: refused at its row, "
          "exit 2 (exit %d)" % rc)
finally:
    shutil.rmtree(work, ignore_errors=True)

# stdout-enospc-exit0 and sweep-enospc-silent-exit1: every write checked
flagship = scen("resnet50-dgx-a100.cfg")
for args in (("run", flagship, "--analytic", "--json"),
             ("calibrate", os.path.join(calib, "measurements.csv")),
             ("catalog", "gpus"),
             ("check", flagship),
             ("sweep", flagship, "--vary", "batch_size=1:1000:500")):
    with open("/dev/full", "w") as full:
        p = subprocess.run([damsim] + list(args), stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    check(p.returncode == 1 and
          "damsim: standard output: write error: No space left on device"
          in p.stderr,
          "%s > /dev/full: 'write error', exit 1 (exit %d)" %
          (args[0], p.returncode))


def small_files(limit):
    def f():
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return f


work = tempfile.mkdtemp(prefix="dam_rel3_")
try:
    out_csv = os.path.join(work, "x.csv")
    p = subprocess.run([damsim, "sweep", flagship, "--vary",
                        "batch_size=1:1000:500", "-o", out_csv],
                       capture_output=True, text=True, timeout=120,
                       preexec_fn=small_files(4096))
    check(p.returncode == 1 and "x.csv" in p.stderr and
          "write error" in p.stderr and os.listdir(work) == [],
          "sweep -o on a file system that fills: the file named, 'write "
          "error', exit 1, no file left (exit %d: %s)" %
          (p.returncode, p.stderr.strip()[:120]))
    p = subprocess.run([damsim, "run", flagship, "--analytic", "-o",
                        os.path.join(work, "r.json")],
                       capture_output=True, text=True, timeout=120,
                       preexec_fn=small_files(1024))
    check(p.returncode == 1 and "r.json" in p.stderr and
          "write error" in p.stderr and os.listdir(work) == [],
          "run -o r.json that cannot be written whole: exit 1, nothing left "
          "(exit %d)" % p.returncode)

    # output-replace-loses-mode-0600
    secret = os.path.join(work, "p.csv")
    open(secret, "w").write("secret\n")
    os.chmod(secret, 0o600)
    rc, out, err = run("sweep", flagship, "--vary", "batch_size=64,128",
                       "-o", secret)
    mode = stat.S_IMODE(os.stat(secret).st_mode)
    check(rc == 0 and mode == 0o600 and "secret" not in open(secret).read(),
          "replacing a 0600 output keeps 0600 (got %o, exit %d)" % (mode, rc))
    os.unlink(secret)

    # sweep-sighup-leaves-temp (and SIGTERM, the signal a dying MPI job
    # sends rank 0): rows so far kept beside the final name, never under it
    for sig, code in ((signal.SIGHUP, 129), (signal.SIGTERM, 143)):
        pr = subprocess.Popen([damsim, "sweep", flagship, "--vary",
                               "batch_size=16:512:60:log", "--vary",
                               "pipeline.loader_workers=2:32:30",
                               "--simulate", "--steps", "100", "-j", "2",
                               "-o", "ci.csv"], cwd=work,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        deadline = time.time() + 30
        while time.time() < deadline and not any(
                f.startswith(".ci.csv.") and
                os.path.getsize(os.path.join(work, f)) > 200
                for f in os.listdir(work)):
            time.sleep(0.1)
        pr.send_signal(sig)
        try:
            _, perr = pr.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pr.kill()
            _, perr = pr.communicate()
        left = sorted(os.listdir(work))
        part = os.path.join(work, "ci.partial.csv")
        rows = open(part).read().splitlines() if os.path.exists(part) else []
        check(pr.returncode == code and left == ["ci.partial.csv"] and
              len(rows) > 1 and
              len({r.count(",") for r in rows}) == 1,
              "sweep -o ci.csv, %s: exit %d, whole rows in ci.partial.csv, "
              "no temporary, nothing under ci.csv (exit %d, left %s)" %
              (signal.Signals(sig).name, code, pr.returncode, left))
        for f in left:
            os.unlink(os.path.join(work, f))
finally:
    shutil.rmtree(work, ignore_errors=True)

# Killing one MPI rank: the job ends, and whole rows are kept only beside
# the final name (needs mpirun and an MPI build; skipped otherwise)
mpirun = shutil.which("mpirun")
mpi_built = subprocess.run(["ldd", damsim], capture_output=True,
                           text=True).stdout.find("libmpi") >= 0
if mpirun and mpi_built:
    work = tempfile.mkdtemp(prefix="dam_rel3_")
    try:
        pr = subprocess.Popen(
            [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "3",
             damsim, "sweep", flagship, "--vary",
             "batch_size=16:512:60:log", "--vary",
             "pipeline.loader_workers=2:32:30", "--simulate", "--steps",
             "100", "-o", "m.csv"], cwd=work, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True)
        ranks = []
        deadline = time.time() + 30
        while time.time() < deadline and len(ranks) < 3:
            time.sleep(0.5)
            ps = subprocess.run(["pgrep", "-s", str(pr.pid), "-f",
                                 damsim + " sweep"], capture_output=True,
                                text=True).stdout.split()
            ranks = [int(x) for x in ps if int(x) != pr.pid]  # not mpirun
        time.sleep(2)
        if ranks:
            os.kill(max(ranks), signal.SIGKILL)
        try:
            pr.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(pr.pid, signal.SIGKILL)
            pr.communicate()
        left = sorted(os.listdir(work))
        check(len(ranks) == 3 and pr.returncode != 0 and
              "m.csv" not in left and
              all(f == "m.partial.csv" for f in left),
              "mpirun -np 3, one rank killed: nonzero exit, nothing under "
              "m.csv, no temporary (ranks %d, exit %s, left %s)" %
              (len(ranks), pr.returncode, left))
    finally:
        shutil.rmtree(work, ignore_errors=True)
else:
    print("SKIP: one MPI rank killed (no mpirun or no MPI build)")

# scenario-fifo-hangs-sweep-ignores-int-term: a FIFO (or a device) as the
# scenario, an @include or a catalog is refused at once by every command
work = tempfile.mkdtemp(prefix="dam_rel3_")
try:
    fifo = os.path.join(work, "s.cfg")
    os.mkfifo(fifo)
    html = os.path.join(work, "x.html")
    for args in (("plan", fifo, "--search"), ("compare", fifo, flagship),
                 ("run", fifo), ("check", fifo), ("whatif", fifo),
                 ("report", fifo, "-o", html),
                 ("sweep", fifo, "--vary", "batch_size=1,2"),
                 ("run", "/dev/zero"), ("check", work),
                 ("run", flagship, "--gpus", fifo)):
        t0 = time.time()
        rc, out, err = run(*args, timeout=10)
        check(rc == 2 and "not a regular file" in err and
              time.time() - t0 < 5,
              "%s %s: refused at once, exit 2 (exit %d)" %
              (args[0], " ".join(os.path.basename(a) for a in args[1:]), rc))
    inc = os.path.join(work, "inc.cfg")
    open(inc, "w").write('@include "s.cfg"\n')
    rc, out, err = run("check", inc, timeout=10)
    check(rc == 2 and "inc.cfg:1: error:" in err and "FIFO" in err,
          "an @include of a FIFO: refused with the including line (exit %d)"
          % rc)
finally:
    shutil.rmtree(work, ignore_errors=True)

# sweep-lhs-huge-samples-ignores-ctrl-c: estimated and refused, and Ctrl-C
# ends even the preparation within a second
rc, out, err = run("sweep", flagship, "--vary", "batch_size=1:100:3",
                   "--samples", "300000000", "--method", "lhs",
                   "--max-memory", "1", "--max-work", "1e15", timeout=20)
check(rc == 2 and "1.2 GB" in err and "--max-memory" in err,
      "LHS of 3e8 samples over a 1 GB limit: refused with its estimate "
      "(exit %d)" % rc)
# the same sample at the default --max-work: refused from the options alone,
# before the scenario is read or anything allocated (cli/work.c)
t0 = time.time()
rc, out, err = run("sweep", flagship, "--vary", "batch_size=1:100:3",
                   "--samples", "300000000", "--method", "lhs", timeout=20)
check(rc == 2 and out == "" and "3e+08 model evaluations" in err and
      "--max-work" in err and time.time() - t0 < 1.0,
      "LHS of 3e8 samples over the default --max-work: refused at once "
      "with its estimate (exit %d)" % rc)
for args in (("--vary", "batch_size=1:10:100000", "--vary",
              "gpus=1:8:100000"),
             ("--vary", "batch_size=1:100:3", "--samples", "4294967295",
              "--method", "random")):
    t0 = time.time()
    rc, out, err = run("sweep", flagship, *args, timeout=20)
    check(rc == 2 and out == "" and time.time() - t0 < 10,
          "sweep of %s points: refused before the first row (exit %d)" %
          ("1e10" if "gpus" in args[2] else "4.3e9", rc))


def signalled_sweep(args, out, sig, wait):
    """Run damsim sweep flagship ARGS -o WORK/OUT, send sig after wait
    seconds; returns (exit code, seconds from the signal to the exit, the
    files left in WORK)."""
    work = tempfile.mkdtemp(prefix="dam_rel3_")
    try:
        pr = subprocess.Popen([damsim, "sweep", flagship] + list(args) +
                              ["-o", os.path.join(work, out)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(wait)
        t0 = time.time()
        pr.send_signal(sig)
        try:
            pr.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            pr.kill()
            pr.communicate()
        return pr.returncode, time.time() - t0, os.listdir(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


rc, dt, left = signalled_sweep(("--vary", "batch_size=1:100:3", "--samples",
                                "300000000", "--method", "lhs", "--max-work",
                                "1e15"), "lhs.csv", signal.SIGINT, 1.5)
check(rc == 130 and dt < 1.0 and left == [],
      "Ctrl-C while a 3e8-sample LHS is built: exit 130 within a second "
      "(%.2f s), nothing left (exit %d)" % (dt, rc))
# SIGTERM while one simulated point runs for many seconds (a million steps):
# the sweep cannot stop at a row boundary in time, so a second after the
# signal the process ends as on a second signal (cli/progress.c)
rc, dt, left = signalled_sweep(("--vary", "workload.batch_size=64,128",
                                "--simulate", "--steps", "1000000",
                                "--replications", "1", "-j", "1"),
                               "slow.csv", signal.SIGTERM, 1.0)
check(rc == 143 and dt < 2.0 and not [f for f in left if f.startswith(".")],
      "SIGTERM during a slow simulated point: exit 143 after about a second "
      "(%.2f s), no temporary left (exit %d)" % (dt, rc))

# plan-budget-1e-300-dollars-nonsense and the other option ranges
llama = scen("llama3-70b-1024-h100.cfg")
for args, word in ((("--budget", "$1e-300"), "1e+15"),
                   (("--budget", "1e40"), "1e+30"),
                   (("--budget", "0x10"), "--budget"),
                   (("--budget", "inf"), "--budget"),
                   (("--budget", "$2e6", "--deadline", "30"), "unit"),
                   (("--budget", "$2e6", "--deadline", "1e9d"), "--deadline")):
    rc, out, err = run("plan", llama, *args)
    check(rc == 2 and word in err and out == "",
          "plan %s: exit 2, the allowed range said (exit %d)" %
          (" ".join(args), rc))
rc, out, err = run("plan", llama, "--budget", "$2e6", "--deadline", "30d")
check(rc == 0, "plan --budget $2e6 --deadline 30d: still planned (exit %d)"
      % rc)
serve = scen("resnet50-serving-l4.cfg")
if os.path.exists(serve):
    for opt, val in (("--rate", "1e300"), ("--slo-p99-ms", "1e-300"),
                     ("--rate", "0x20")):
        rc, out, err = run("plan", serve, opt, val, "--analytic")
        check(rc == 2 and opt in err and "range" in err,
              "plan %s %s: exit 2 with the range (exit %d)" % (opt, val, rc))
rc, out, err = run("calibrate", os.path.join(calib, "measurements.csv"),
                   "--hold-out", "NOPE")
check(rc == 2 and "--hold-out NOPE" in err and out == "",
      "calibrate --hold-out NOPE: exit 2 (exit %d)" % rc)

# calibrate-trace-h2d-bytes-inf-null, llm-trace-arrival-1e300-ttft-zero
rc, out, err = run("calibrate", "--json",
                   case("calibrate-trace-h2d-bytes-inf-null.csv"))
check(rc == 2 and "calibrate-trace-h2d-bytes-inf-null.csv:2: error:" in err
      and "1e+308" in err and out == "",
      "a trace copying 1e308 bytes: the row's file:line and the event, "
      "exit 2 (exit %d)" % rc)
rc, out, err = run("run", case("llm-trace-arrival-1e300-ttft-zero.cfg"))
check(rc == 2 and "llm-trace-arrival-1e300-ttft-zero.csv:2: error:" in err
      and "arrival time" in err and out == "",
      "a request arriving at 1e300 s: refused at its line (exit %d)" % rc)
rc2, _, err2 = run("check", case("llm-trace-arrival-1e300-ttft-zero.cfg"))
check(rc2 == 2 and err2 == err, "  check refuses it the same way")

# calibrate-degenerate-message: the rows and the constant, not an internal
# "(0.05) is outside (0.05, 1.3)"
name = "calibrate-degenerate-message-0.05-outside-0.05.csv"
rc, out, err = run("calibrate", case(name))
check(rc == 2 and (name + ":2: error:") in err and "gemm_frac" in err and
      "is outside" not in err,
      "5 images/s of ResNet-50: the row's line and the constant it cannot "
      "reach (exit %d: %s)" % (rc, err.strip()[:140]))

# ... and with a second row on another GPU, each constant is blamed on
# the rows that use it only (mutation testing: blaming the rows that do
# not use it went unnoticed with one row)
work = tempfile.mkdtemp(prefix="dam_rel3_")
shutil.copy(case("resnet50-a100.cfg"), work)
with open(os.path.join(work, "two.csv"), "w") as f:
    f.write("scenario,levers,quantity,value,unit,id,source\n"
            "resnet50-a100.cfg,,throughput, 5,images/s,a,b\n"
            "resnet50-a100.cfg,gpu=H100-SXM5-80GB,throughput,3000,"
            "images/s,c,d\n")
rc, out, err = run("calibrate", os.path.join(work, "two.csv"))
bad = [l for l in err.splitlines() if "two.csv:3:" in l and "A100" in l]
check(rc == 2 and "two.csv:2:" in err and "A100-SXM4-80GB/gemm_frac" in err
      and not bad,
      "two rows: the A100's constant blamed on the A100 row only (exit %d; "
      "%s)" % (rc, bad[:1]))
shutil.rmtree(work, ignore_errors=True)

# issue 21 item 8 (C15/C16): bad -o and unknown --vary keys before the work
rc, out, err = run("run", flagship, "-o", "nope/dir/x.png")
check(rc == 2 and out == "" and "nope/dir" in err,
      "run -o nope/dir/x.png: exit 2 before the simulation, nothing on "
      "stdout (exit %d)" % rc)
for target in ("nope/x.csv", "nope/dir"):
    rc, out, err = run("sweep", flagship, "--vary", "batch_size=1,2", "-o",
                       target)
    check(rc == 2 and out == "" and "does not exist" in err,
          "sweep -o %s: exit 2 before any point (exit %d)" % (target, rc))
rc, out, err = run("sweep", flagship, "--vary",
                   "machine.gpus=A100-SXM4-80GB,H100-SXM5-80GB")
check(rc == 2 and out == "" and "--vary machine.gpus" in err and
      "unknown key" in err,
      "sweep --vary machine.gpus=...: exit 2, no rows (exit %d)" % rc)
rc, out, err = run("sweep", flagship, "--vary", "batch_size=0,64")
check(rc != 0 or "error" in out,
      "  a bad value stays a row's error (or a lever's usage error)")
rc, out, err = run("sweep", flagship, "--vary", "cost.pue=0.5,1.2")
check(rc == 0 and out.count("\n") == 3 and "'cost.pue' must be" in out,
      "  a value out of a known key's range is that row's error, the sweep "
      "goes on (exit %d)" % rc)

# a sweep whose every point fails is not a success
for fmt in ((), ("--json",)):
    rc, out, err = run("sweep", flagship, "--vary", "cost.pue=0.5,0.7", *fmt)
    check(rc == 2 and "no point of the sweep solved" in err and
          out.count("\n") >= 2,
          "sweep%s whose every point fails: the rows, then exit 2 (exit %d)"
          % (" --json" if fmt else "", rc))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
