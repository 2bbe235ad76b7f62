#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Call circles between source files, from their object files.

usage: file_circles.py NM OBJECT.o ...

Each object's defined symbols (nm: T, D, B, R, ...) and undefined ones (U)
give the file graph: a.c -> b.c when a.o uses a symbol that b.o defines.
A circle is a strongly connected set of two or more files (Tarjan); each
is listed with the calls that close it. Exit 1 when there is one, 0 when
the files call down only. The file of an object is its folder and name
(cli/cmd_run.c from .../damsim.dir/cli/cmd_run.c.o).
"""
import os
import subprocess
import sys


def source_name(obj):
    """cli/cmd_run.c from .../CMakeFiles/damsim.dir/cli/cmd_run.c.o."""
    base = os.path.basename(obj)
    if base.endswith('.o'):
        base = base[:-2]
    return os.path.basename(os.path.dirname(obj)) + '/' + base


def symbols(nm, obj):
    out = subprocess.run([nm, obj], check=True, capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == 'U':
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBRVWGS':
            defined.add(parts[2])
    return defined, used


def circles(graph):
    """Tarjan's strongly connected components of two or more nodes."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # iterative to stay clear of Python's recursion limit
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    nm = sys.argv[1]
    objs = [o for o in sys.argv[2:] if o.endswith('.o')]
    owner, uses = {}, {}
    for obj in objs:
        name = source_name(obj)
        defined, used = symbols(nm, obj)
        uses[name] = used
        for s in defined:
            owner.setdefault(s, name)
    # a -> b with the symbols a takes from b
    graph = {n: {} for n in uses}
    for n, used in uses.items():
        for s in used:
            o = owner.get(s)
            if o is not None and o != n:
                graph[n].setdefault(o, []).append(s)
    found = circles({n: set(e) for n, e in graph.items()})
    print(f'{len(objs)} object files, {sum(len(e) for e in graph.values())} file-to-file calls, '
          f'{len(found)} circle(s)')
    for comp in found:
        print('circle: ' + ' '.join(comp))
        members = set(comp)
        for a in comp:
            for b in sorted(graph[a]):
                if b in members:
                    print(f'  {a} -> {b}: {", ".join(sorted(graph[a][b])[:4])}'
                          + (' ...' if len(graph[a][b]) > 4 else ''))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
