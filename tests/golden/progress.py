#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The progress line of run, plan and sweep, seen through a pseudo-terminal.

On a terminal (stderr a pty) the line appears: "N / M steps" for a training
run (one GPU per rank, or a parallel layout's pipeline), "requests" for a serving run
(LLM serving too), "GPU kinds" for plan (and the LLM plan), "points" for a
sweep; it is erased at the end. With stderr a pipe it never appears, nor
with --quiet, nor for work shorter than about a second. Ctrl-C over the
line erases it before the interrupt message and exits 130. The first-draw
delay (1 s) is set to 0 through DAM_PROGRESS_AFTER_S so that the short
example runs draw; one check keeps the default.

usage: progress.py DAMSIM SOURCE_DIR
"""
import os
import pty
import signal
import subprocess
import sys
import time

damsim, src = sys.argv[1], sys.argv[2]
scen = os.path.join(src, "scenarios")
passed = failed = 0
ERASE = b"\r\x1b[K"


def ok(cond, what):
    global passed, failed
    print(("PASS: " if cond else "FAIL: ") + what)
    if cond:
        passed += 1
    else:
        failed += 1


def env(after):
    e = dict(os.environ)
    if after is None:
        e.pop("DAM_PROGRESS_AFTER_S", None)
    else:
        e["DAM_PROGRESS_AFTER_S"] = after
    return e


def on_tty(args, after="0", interrupt_when=None):
    """Run damsim with stderr on a pty; (exit code, bytes seen)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([damsim] + args, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave,
                         env=env(after))
    os.close(slave)
    seen = b""
    sent = False
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            d = os.read(master, 4096)
        except OSError:
            break
        if not d:
            break
        seen += d
        if interrupt_when and not sent and interrupt_when in seen:
            p.send_signal(signal.SIGINT)
            sent = True
    os.close(master)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = -1
    return rc, seen


def on_pipe(args, after="0"):
    p = subprocess.run([damsim] + args, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=env(after), timeout=120)
    return p.returncode, p.stderr


train = ["run", os.path.join(scen, "resnet50-dgx-a100.cfg")]
serve = ["run", os.path.join(scen, "resnet50-serving-l4.cfg")]
plan = ["plan", os.path.join(scen, "resnet50-serving-l4.cfg")]
sweep = ["sweep", os.path.join(scen, "llama2-7b-pretrain.cfg"),
         "--vary", "workload.batch_size=1:64:64", "-j", "1"]
layout = ["run", os.path.join(scen, "llama3-70b-1024-h100.cfg")]
llm_short = ["--replications", "1", "--steps", "300"]
llm = ["run", os.path.join(scen, "llama3-70b-h100-vs-h200.cfg")] + llm_short
llm_plan = ["plan", os.path.join(scen, "llama3-70b-h100-vs-h200.cfg"),
            "--slo-ttft-ms", "500", "--slo-tpot-ms", "50",
            "--rate", "5"] + llm_short
cases = [("run (training)", train, b" steps "),
         ("run (a parallel layout)", layout, b" steps "),
         ("run (serving)", serve, b" requests "),
         ("run (LLM serving)", llm, b" requests "),
         ("plan (serving)", plan, b" GPU kinds "),
         ("plan (LLM serving)", llm_plan, b" GPU kinds "),
         ("sweep", sweep, b" points ")]

for name, args, unit in cases:
    rc, seen = on_tty(args)
    ok(rc == 0 and unit in seen and ERASE in seen and b" / " in seen,
       "%s on a terminal: the line (%r)" % (name, seen[:70]))
    ok(seen.endswith(ERASE) or seen.rstrip(b"\r\n").endswith(ERASE.strip()),
       "%s: the line is erased at the end" % name)
    rc, err = on_pipe(args)
    ok(rc == 0 and b"\x1b[" not in err and unit not in err,
       "%s with stderr a pipe: no line (%r)" % (name, err[:70]))

rc, seen = on_tty(train + ["--quiet"])
ok(rc == 0 and b"\x1b[" not in seen, "--quiet: no line")
rc, seen = on_tty(train, after=None)
ok(rc == 0 and b"\x1b[" not in seen,
   "a run shorter than a second draws no line by default")

# Ctrl-C over the line: erased, then the interrupt message, exit 130
long_run = train + ["--steps", "200000", "--replications", "1"]
rc, seen = on_tty(long_run, interrupt_when=b" steps ")
ok(rc == 130, "Ctrl-C during run exits 130 (got %d)" % rc)
ok(ERASE + b"damsim: interrupted" in seen,
   "Ctrl-C erases the line before its message (%r)" % seen[-90:])

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
