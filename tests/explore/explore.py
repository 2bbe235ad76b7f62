#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""explore.py DAMSIM SOURCE_DIR: `report --explore` end to end, in a real
browser. The review of the flagship with two explored keys is written,
checked strictly (self-contained, inline script only), read without
JavaScript (the selectors hidden, every point in a table), then opened in
headless Chromium: once as is (the review as without the explorer) and
once with the fragment #xp=1,2, which sets both selectors and fires their
change event, as moving one by hand does. The DOM Chromium
dumps must show that point's answer, its numbers and its chart, and the
step it shows must be the one `damsim sweep` gives for the same point;
both screenshots must have the window's size and differ.

Chromium is Debian's `chromium` (sh build.sh test installs it). Without it
the test is skipped (exit 77) with a message, except under CI (CI=true),
where a missing browser is a failure."""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

DAMSIM, SRC = sys.argv[1], sys.argv[2]
SC = os.path.join(SRC, "scenarios", "resnet50-dgx-a100.cfg")
GPUS = ["A100-SXM4-80GB", "H100-SXM5-80GB"]
WORKERS = ["8", "16", "32"]
FAILED = []


def check(what, ok, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", what,
                       "" if ok else ": " + detail))
    if not ok:
        FAILED.append(what)


def browser():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(exe, tmp, url, extra):
    """Run headless Chromium on url; its stdout."""
    # --no-sandbox: as root the sandbox refuses to start, and in CI
    # containers it often lacks the user namespaces it needs; the page is a
    # local file this test wrote
    args = [exe, "--headless", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--hide-scrollbars",
            "--user-data-dir=" + os.path.join(tmp, "p")]
    try:
        r = subprocess.run(args + extra + [url], capture_output=True,
                           timeout=180, text=True)
    except subprocess.TimeoutExpired:
        check("Chromium finishes within 180 s", False, " ".join(extra))
        return ""
    return r.stdout


def text_of(dom, ident):
    m = re.search(r'id="%s"[^>]*>([^<]*)<' % re.escape(ident), dom)
    return m.group(1) if m else None


def seconds(label):
    """'96.0 ms' -> 0.096."""
    m = re.fullmatch(r"([0-9.,]+) (us|ms|s|min|h)", label or "")
    if not m:
        return None
    k = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
    return float(m.group(1).replace(",", "")) * k[m.group(2)]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def main():
    tmp = tempfile.mkdtemp(prefix="damsim-explore-")
    page = os.path.join(tmp, "review.html")
    vary = ["machine.gpu=" + ",".join(GPUS),
            "pipeline.loader_workers=" + ",".join(WORKERS)]
    cmd = [DAMSIM, "report", SC, "-o", page, "--quiet"]
    for v in vary:
        cmd += ["--explore", v]
    r = subprocess.run(cmd, capture_output=True, text=True)
    check("report --explore writes the page", r.returncode == 0 and
          os.path.exists(page), r.stderr)
    if FAILED:
        return 1
    html = open(page, encoding="utf-8").read()
    r = subprocess.run([sys.executable,
                        os.path.join(SRC, "tests", "golden", "html_check.py"),
                        page, "--inline-script"], capture_output=True,
                       text=True)
    check("the page is strict, self-contained HTML", r.returncode == 0,
          r.stdout)
    check("no script from elsewhere, no network",
          not re.search(r"<script[^>]*src=|https?://(?!www\.w3\.org/)", html))
    again = page + ".2.html"
    subprocess.run(cmd[:4] + [again] + cmd[5:], capture_output=True)
    check("the page is byte-identical run to run",
          open(again, "rb").read() == open(page, "rb").read())
    # without JavaScript: the selectors hidden, every point in a table
    check("without JavaScript the selectors are hidden",
          re.search(r'<form id="xp-form"[^>]*\bhidden\b', html) is not None)
    table = html[html.index('id="xp-all"'):]
    table = table[:table.index("</table>")]
    check("without JavaScript every point is in a table",
          table.count("<tr>") == 1 + len(GPUS) * len(WORKERS),
          "%d rows" % table.count("<tr>"))

    # bad --explore: exit 2, the message located, nothing written
    bad = os.path.join(tmp, "bad.html")
    for args, says in (
            (["--explore", "machine.nope=1"], "--explore machine.nope: "),
            (["--explore", "pipeline.loader_workers=8,999"],
             "resnet50-dgx-a100.cfg:"),
            (["--explore", "gpu=NOPE"], "--explore gpu=NOPE: error: "),
            (["--explore", "pipeline.loader_workers"], "--explore "),
            (["--explore", "pipeline.loader_workers=1:500:4"],
             "'pipeline.loader_workers' takes 0 to 256"),
            (["--explore", "pipeline.loader_workers=1:256:256",
              "--explore", "machine.gpu=A100-SXM4-80GB,A100-SXM4-40GB,"
              "H100-SXM5-80GB,H200-SXM-141GB"], "at most")):
        r = subprocess.run([DAMSIM, "report", SC, "-o", bad] + args,
                           capture_output=True, text=True)
        check("%s is exit 2, said, nothing written" % " ".join(args),
              r.returncode == 2 and says in r.stderr and
              not os.path.exists(bad), "%d %s" % (r.returncode, r.stderr))
    r = subprocess.run([DAMSIM, "report", SC, "-o", bad[:-4] + "pdf",
                        "--explore", vary[0]], capture_output=True, text=True)
    check("--explore with a PDF is exit 2", r.returncode == 2 and
          ".html" in r.stderr, r.stderr)
    r = subprocess.run([DAMSIM, "whatif", SC, "-o", bad, "--explore",
                        vary[0]], capture_output=True, text=True)
    trace = os.path.join(SRC, "tests", "data", "traces",
                         "a100-80gb-train-rank0-3steps.trace.json.gz")
    r2 = subprocess.run([DAMSIM, "report", "--trace", trace, "--lever",
                         "gpu=H100-SXM5-80GB", "-o", bad, "--explore",
                         vary[0]], capture_output=True, text=True)
    check("--explore on a trace review is exit 2",
          r2.returncode == 2 and "trace" in r2.stderr and
          not os.path.exists(bad), r2.stderr)
    check("--explore elsewhere than report is exit 2",
          r.returncode == 2 and "report" in r.stderr and
          not os.path.exists(bad), r.stderr)

    # --simulate: a service under load, every point simulated
    sv = os.path.join(tmp, "serving.html")
    r = subprocess.run([DAMSIM, "report", os.path.join(
        SRC, "scenarios", "resnet50-serving-l4.cfg"), "-o", sv, "--quiet",
        "--explore", "serving.replicas=1,2,3", "--simulate"],
        capture_output=True, text=True)
    html3 = open(sv, encoding="utf-8").read() if r.returncode == 0 else ""
    check("--simulate: every point simulated, and said so",
          "as configured (simulated)" in html3 and
          "mean time of a request" in html3 and
          "3 POINTS, EACH SIMULATED" in html3, r.stderr)

    # the sweep of the same keys, for the step the page must show
    r = subprocess.run([DAMSIM, "sweep", SC, "--vary", vary[0], "--vary",
                        vary[1], "-j", "1"], capture_output=True, text=True)
    rows = [l.split(",") for l in r.stdout.splitlines()]
    col = rows[0].index("step_s")
    point = 1 * len(WORKERS) + 2  # H100, 32 workers: the first key slowest
    want = float(rows[1 + point][col])
    check("damsim sweep gives that point", rows[1 + point][0] == GPUS[1] and
          rows[1 + point][1] == WORKERS[2], str(rows[1 + point]))

    exe = browser()
    if not exe:
        if os.environ.get("CI") == "true":
            check("chromium is installed (CI)", False,
                  "sh build.sh test installs Debian's chromium")
            return 1
        print("SKIP: chromium is not installed (sh build.sh test installs "
              "Debian's chromium); the browser half of this test did not run")
        return 77
    url = "file://" + page
    dom0 = chromium(exe, tmp, url, ["--dump-dom"])
    dom1 = chromium(exe, tmp, url + "#xp=1,2", ["--dump-dom"])
    check("Chromium ran the page", "xp-data" in dom0 and "xp-data" in dom1,
          dom0[:200])
    check("the script shows the selectors",
          re.search(r'<form id="xp-form"[^>]*\bhidden\b', dom1) is None)
    check("as loaded, no point is chosen and the review's answer shows",
          'data-point="' not in dom0 and
          re.search(r'<div class="xp-off">', dom0) is not None)
    check("the fragment moves the selectors to point %d" % point,
          'data-point="%d"' % point in dom1, "")
    answer = text_of(dom1, "xp-answer") or ""
    check("the answer is that point's",
          answer.startswith("At machine.gpu = %s, pipeline.loader_workers = "
                            "%s:" % (GPUS[1], WORKERS[2])), answer)
    check("the review's own answer is hidden at a point",
          re.search(r'<div class="xp-off" hidden', dom1) is not None)
    check("the numbers are filled", all(text_of(dom1, "xp-n%d" % r)
                                        for r in range(6)))
    shown = seconds(text_of(dom1, "xp-l1"))
    check("the chart's step is the sweep's (%.4g s)" % want,
          shown is not None and abs(shown - want) <= 0.006 * want,
          str(text_of(dom1, "xp-l1")))
    r = subprocess.run([DAMSIM, "run", SC, "--analytic", "--json"],
                       capture_output=True, text=True)
    base_want = json.loads(r.stdout)["result"]["step_s"]
    base_shown = seconds(text_of(dom1, "xp-l0"))
    check("the chart's as configured is damsim run --analytic's step "
          "(%.4g s)" % base_want, base_shown is not None and
          abs(base_shown - base_want) <= 0.006 * base_want,
          str(text_of(dom1, "xp-l0")))
    step_cell = text_of(dom1, "xp-n0") or ""
    check("the numbers' step is the sweep's",
          seconds(step_cell.split(" (")[0]) is not None and
          abs(seconds(step_cell.split(" (")[0]) - want) <= 0.5 * want,
          step_cell)
    widths = [[float(w) for w in re.findall(
        r'<rect id="xp-r%d-\d+"[^>]*\swidth="([0-9.e+-]+)"' % k, dom1)]
        for k in (0, 1)]
    base = seconds(text_of(dom1, "xp-l0"))
    ok = widths[0] and widths[1] and base and sum(widths[0]) > 0
    check("the chart's bars are in proportion to the steps", ok and
          abs(sum(widths[1]) / sum(widths[0]) - want / base) < 0.01 * want /
          base, str([sum(w) for w in widths]))
    # a value that looks like markup stays text: in the options, the data
    # and the answer the script writes
    inj = os.path.join(tmp, "inj.html")
    r = subprocess.run([DAMSIM, "report", SC, "-o", inj, "--quiet",
                        "--explore", 'scenario.name=x</script><b>&"y,plain'],
                       capture_output=True, text=True)
    page2 = open(inj, encoding="utf-8").read() if r.returncode == 0 else ""
    check("a value with markup: the page is strict, one script and its "
          "data", page2.count("</script>") == 2 and subprocess.run(
              [sys.executable, os.path.join(SRC, "tests", "golden",
                                            "html_check.py"),
               inj, "--inline-script"], capture_output=True).returncode == 0,
          r.stderr)
    dom2 = chromium(exe, tmp, "file://" + inj + "#xp=0", ["--dump-dom"])
    check("a value with markup is shown as text",
          (text_of(dom2, "xp-answer") or "").startswith(
              'At scenario.name = x&lt;/script&gt;&lt;b&gt;&amp;"y:'),
          str(text_of(dom2, "xp-answer")))
    # screenshots: the window's size, and the chosen point shows
    shots = []
    for frag in ("", "#xp=1,2"):
        shot = os.path.join(tmp, "shot%d.png" % len(shots))
        chromium(exe, tmp, url + frag, ["--window-size=1000,1400",
                                        "--screenshot=" + shot])
        shots.append(shot)
        size = png_size(shot) if os.path.exists(shot) else None
        check("screenshot%s is 1000 x 1400" % frag, size == (1000, 1400),
              str(size))
    check("moving the selectors changes what is on the screen",
          all(os.path.exists(s) for s in shots) and
          open(shots[0], "rb").read() != open(shots[1], "rb").read())
    if not FAILED:
        shutil.rmtree(tmp)
    else:
        print("kept: %s" % tmp)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
