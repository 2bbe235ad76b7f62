#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Functions over a length limit in the C sources.

usage: long_functions.py SOURCE_DIR [--limit N] [--allow FILE]

A function's length is its body: from its opening brace to its closing
brace, both included, as the tree's style writes them (each alone at the
start of a line); the signature is not counted, so a long parameter list
costs nothing. Every .c file in
cli/, model/, solver/, render/, api/ and examples/ is read (tests/ is
not: a test's one long table of cases reads best as one function).

Every function over the limit (default 150 lines) is listed as
"file:line: name: N lines". One that the allow-list file names
("file name" per line, # comments) is listed as allowed and does not
fail the check; one it names that is no longer over the limit is listed
as stale (so the list shrinks with the tree). Exit 1 when any function
over the limit is not allowed, else 0.
"""
import os
import re
import sys

DIRS = ('cli', 'model', 'solver', 'render', 'api', 'examples')
NAME = re.compile(r'([A-Za-z_][A-Za-z_0-9]*)\s*\(')


def functions(path):
    """(name, first line, lines) of each function definition in path."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        if lines[i] != '{':
            i += 1
            continue
        # the signature: back to the line that opens the parameter list
        j = i - 1
        while j >= 0 and not NAME.search(lines[j]):
            j -= 1
        m = NAME.search(lines[j]) if j >= 0 else None
        if not m or lines[j][:1] in (' ', '\t', '#', '/', '*'):
            i += 1
            continue
        k = i + 1
        while k < len(lines) and lines[k] != '}' and not lines[k].startswith('};'):
            k += 1
        out.append((m.group(1), j + 1, k - i + 1))
        i = k + 1
    return out


def main():
    args = sys.argv[1:]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    root, limit, allow_file = args[0], 150, None
    rest = args[1:]
    while rest:
        opt = rest.pop(0)
        if opt == '--limit':
            limit = int(rest.pop(0))
        elif opt == '--allow':
            allow_file = rest.pop(0)
        else:
            sys.stderr.write(f'long_functions.py: unknown option {opt}\n')
            return 2
    allowed = set()
    if allow_file:
        with open(allow_file, encoding='utf-8') as f:
            for line in f:
                line = line.split('#', 1)[0].split()
                if len(line) == 2:
                    allowed.add((line[0], line[1]))
    over, seen = [], set()
    nfun = 0
    for d in DIRS:
        top = os.path.join(root, d)
        for dirpath, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.endswith('.c'):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                for fn, line, n in functions(path):
                    nfun += 1
                    if n > limit:
                        over.append((rel, line, fn, n))
                        seen.add((rel, fn))
    bad = 0
    for rel, line, fn, n in over:
        tag = 'allowed' if (rel, fn) in allowed else 'over'
        bad += tag == 'over'
        print(f'{rel}:{line}: {fn}: {n} lines ({tag})')
    for rel, fn in sorted(allowed - seen):
        print(f'{rel}: {fn}: stale: no longer over {limit} lines; take it off the list')
    print(f'{nfun} functions read, {len(over)} over {limit} lines, {bad} not allowed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
