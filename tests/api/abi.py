#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""libdamsim's interface against the one checked in, so that a change to
it is never an accident:

  - the dynamic symbols libdamsim.so defines (nm -D --defined-only) are
    exactly api/libdamsim.symbols (name and kind);
  - its SONAME is libdamsim.so.MAJOR, MAJOR from damsim.h's
    DAMSIM_VERSION;
  - include/damsim.h's declarations and macros, comments and spacing
    dropped, are exactly api/damsim.api (a changed prototype, type, macro
    value or a new function shows here even when the symbols stay);
  - every function damsim.h marks DAMSIM_API is exported, and no other;
  - the man page damsim(3) names every one of them.

usage: abi.py LIBDAMSIM.so SOURCE_DIR [--header H] [--update]
--update rewrites the two files from the library and header given: do it
when the change is meant, and raise the SONAME's major version when a
function was removed or changed (a new function alone keeps it)."""
import re
import subprocess
import sys

LINKER = {"_edata", "_end", "__bss_start", "_init", "_fini"}


def symbols(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] not in LINKER:
            rows.append(f"{parts[2]} {parts[1]}")
    return sorted(rows)


def soname(lib):
    out = subprocess.run(["readelf", "-d", lib], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", out)
    return m.group(1) if m else None


def declarations(header_text):
    """The header as one declaration or macro a line, comments dropped."""
    text = re.sub(r"/\*.*?\*/", " ", header_text, flags=re.S)
    lines, decl = [], ""
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        if line.startswith("#"):
            lines.append(line)
            continue
        decl = f"{decl} {line}".strip()
        if decl.endswith(";") or decl.endswith("{") or decl.endswith("}"):
            lines.append(decl)
            decl = ""
    if decl:
        lines.append(decl)
    return lines


def api_functions(decls):
    names = set()
    for d in decls:
        if d.startswith("DAMSIM_API "):
            m = re.search(r"(\w+)\s*\(", d)
            if m:
                names.add(m.group(1))
    return names


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    update = "--update" in sys.argv
    header = None
    if "--header" in sys.argv:
        header = sys.argv[sys.argv.index("--header") + 1]
        args.remove(header)
    lib, src = args[0], args[1]
    header = header or f"{src}/include/damsim.h"
    sym_file, api_file = f"{src}/api/libdamsim.symbols", f"{src}/api/damsim.api"
    with open(header) as f:
        htext = f.read()
    decls = declarations(htext)
    syms = symbols(lib)
    if update:
        with open(sym_file, "w") as f:
            f.write("".join(s + "\n" for s in syms))
        with open(api_file, "w") as f:
            f.write("".join(d + "\n" for d in decls))
        print(f"wrote {sym_file} ({len(syms)}) and {api_file} ({len(decls)})")
        return 0
    fails = 0

    def check(ok, what, detail=""):
        nonlocal fails
        print(("PASS: " if ok else "FAIL: ") + what)
        if not ok:
            fails += 1
            if detail:
                print(detail)

    with open(sym_file) as f:
        want = [line.strip() for line in f if line.strip()]
    check(syms == want, "exported symbols are api/libdamsim.symbols",
          "  added: %s\n  gone: %s" % (sorted(set(syms) - set(want)),
                                       sorted(set(want) - set(syms))))
    with open(api_file) as f:
        want_decls = [line.rstrip("\n") for line in f if line.strip()]
    diff = [f"  - {d}" for d in want_decls if d not in decls] + \
           [f"  + {d}" for d in decls if d not in want_decls]
    check(decls == want_decls, "damsim.h's declarations are api/damsim.api",
          "\n".join(diff) or "  (order changed)")
    m = re.search(r'#define DAMSIM_VERSION "(\d+)\.', htext)
    major = m.group(1) if m else "?"
    check(soname(lib) == f"libdamsim.so.{major}",
          f"SONAME is libdamsim.so.{major} (got {soname(lib)})")
    exported = {s.split()[0] for s in syms}
    marked = api_functions(decls)
    check(exported == marked,
          "the library exports exactly damsim.h's DAMSIM_API functions",
          f"  exported, not declared: {sorted(exported - marked)}\n"
          f"  declared, not exported: {sorted(marked - exported)}")
    with open(f"{src}/api/damsim.3") as f:
        man = f.read()
    undocumented = sorted(n for n in marked if n not in man)
    check(not undocumented, "damsim(3) documents every function",
          f"  not in api/damsim.3: {undocumented}")
    print(f"{5 - fails} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
