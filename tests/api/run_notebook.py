#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a notebook's code cells headless, in order, in one namespace (as a
kernel would, without Jupyter): prints each cell's output; exits 1 at the
first cell that raises, naming it.

usage: run_notebook.py NOTEBOOK.ipynb [FOLDER]   (FOLDER: where it runs)"""
import json
import os
import sys
import traceback


def main():
    path = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2:
        os.chdir(sys.argv[2])
    with open(path) as f:
        nb = json.load(f)
    ns = {"__name__": "__main__"}
    ran = 0
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        print(f"--- cell {i}")
        try:
            exec(compile(src, f"{path}:cell{i}", "exec"), ns)
        except Exception:
            traceback.print_exc()
            print(f"FAIL: cell {i} of {path}")
            return 1
        ran += 1
    print(f"PASS: {ran} code cells of {os.path.basename(path)}")
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main())
