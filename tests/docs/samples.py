#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""samples.py DAMSIM SOURCE_DIR [--update]: the sample outputs in README.md
and docs/*.md are what damsim prints.

A sample is an indented code block right after a marker line

    <!-- sample: damsim ARGS -->             the whole output
    <!-- sample: damsim ARGS | head N -->    its first N lines

and a generated region (Markdown kept as it is, for tables) between

    <!-- generated: damsim ARGS -->
    ...
    <!-- end generated -->

ARGS are split as a shell would split them (no pipes, no variables); the
command runs in SOURCE_DIR with DAMSIM as damsim, so scenario paths are
the repository's. The block must equal the output line for line (trailing
spaces aside): damsim's output is deterministic (fixed seeds), so the
digits of every interval are compared too. --update rewrites every block
from the output instead (after a change meant to change the output: then
read the prose around each block again). Exits 1 on a difference, with a
diff.

It also checks every Markdown link of those files: a link to a file must
name one the clone has, inside it (no ../shared/, nothing outside the
repository); web addresses and #anchors are not followed."""
import difflib
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

MARK = re.compile(r"^<!-- sample: (.*?)(?: \| head (\d+))? -->\s*$")
GEN = re.compile(r"^<!-- generated: (.*?) -->\s*$")
GEN_END = "<!-- end generated -->"


def run(damsim, src, cmd, work):
    args = shlex.split(cmd)
    if not args or args[0] != "damsim":
        raise SystemExit("sample command must start with damsim: %r" % cmd)
    r = subprocess.run([damsim] + args[1:], cwd=work, capture_output=True,
                       text=True, env=dict(os.environ, COLUMNS="80"))
    if r.returncode != 0:
        raise SystemExit("%s: exit %d\n%s" % (cmd, r.returncode, r.stderr))
    return [l.rstrip() for l in r.stdout.splitlines()]


def blocks(lines):
    """(marker index, command, head, first, end) of every sample."""
    out = []
    for i, l in enumerate(lines):
        g = GEN.match(l)
        if g:
            end = i + 1
            while end < len(lines) and lines[end].strip() != GEN_END:
                end += 1
            if end == len(lines):
                raise SystemExit("line %d: no %s" % (i + 1, GEN_END))
            out.append((i, g.group(1), "raw", i + 1, end))
            continue
        m = MARK.match(l)
        if not m:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        first = j
        end = j
        while end < len(lines) and (lines[end].startswith("    ") or
                                    not lines[end].strip()):
            end += 1
        while end > first and not lines[end - 1].strip():
            end -= 1
        out.append((i, m.group(1), int(m.group(2)) if m.group(2) else None,
                    first, end))
    return out


def main():
    damsim, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    update = "--update" in sys.argv[3:]
    files = [os.path.join(src, "README.md")] + sorted(
        glob.glob(os.path.join(src, "docs", "*.md")))
    bad = nsamples = 0
    work = tempfile.mkdtemp(prefix="damsim-samples-")
    for d in ("scenarios", "tests"):
        os.symlink(os.path.abspath(os.path.join(src, d)),
                   os.path.join(work, d))
    for path in files:
        lines = open(path, encoding="utf-8").read().split("\n")
        found = blocks(lines)
        for i, cmd, head, first, end in reversed(found):
            nsamples += 1
            want = run(damsim, src, cmd, work)
            raw = head == "raw"
            if head is not None and not raw:
                want = want[:head]
            while want and not want[-1]:
                want.pop()
            if raw:
                have = [l.rstrip() for l in lines[first:end]]
            else:
                have = [l[4:] if l.startswith("    ") else l.strip()
                        for l in lines[first:end]]
            where = "%s:%d" % (os.path.relpath(path, src), i + 1)
            if have == want:
                print("ok   %s: %s" % (where, cmd))
                continue
            if update:
                lines[first:end] = (want if raw else
                                    [("    " + l).rstrip() for l in want])
                print("updated %s: %s" % (where, cmd))
                continue
            bad += 1
            print("FAIL %s: %s: the sample is not what damsim prints "
                  "(python3 tests/docs/samples.py build/damsim . --update "
                  "rewrites it)" % (where, cmd))
            sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(
                have, want, "sample", "damsim", lineterm=""))
        if update:
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            os.replace(path + ".tmp", path)
    shutil.rmtree(work)
    root = os.path.realpath(src)
    for path in files:
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue
            full = os.path.realpath(os.path.join(os.path.dirname(path),
                                                 target))
            where = "%s:%d" % (os.path.relpath(path, src),
                               text.count("\n", 0, m.start()) + 1)
            if not full.startswith(root + os.sep) or not os.path.exists(full):
                bad += 1
                print("FAIL %s: link to %s: not a file of the clone" %
                      (where, m.group(1)))
    if nsamples == 0:
        print("FAIL no samples found (markers: <!-- sample: damsim ... -->)")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
