#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libdamsim as an installed library: `cmake --install` into a temporary
# prefix; its include/ holds damsim.h alone; examples/solve.c (damsim.h
# only) built against it three ways (pkg-config shared, pkg-config static,
# CMake find_package) and run; the interface test api_abi on the installed
# library; the Python module installed with pip (no index) from a copy of
# python/ and the example notebook run on the installed library; the man
# pages and the bash completion beside it.
# usage: install.sh CMAKE BUILD_DIR SOURCE_DIR CC PYTHON
cmake=$1
build=$2
src=$3
cc=$4
py=${5:-python3}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() {
    what=$1; shift
    if "$@" >"$tmp/last.log" 2>&1; then
        echo "PASS: $what"; pass=$((pass + 1))
    else
        echo "FAIL: $what"; fail=$((fail + 1)); tail -15 "$tmp/last.log"
    fi
}
p="$tmp/prefix"
ok "cmake --install into a temporary prefix" "$cmake" --install "$build" --prefix "$p"
pc=$(find "$p" -name damsim.pc | head -n 1)
export PKG_CONFIG_PATH="$(dirname "$pc")"
lib=$(dirname "$(dirname "$pc")")
scen="$src/scenarios/llama2-7b-pretrain.cfg"
ok "include/ holds damsim.h alone" sh -c "test \"\$(find '$p/include' -type f)\" = '$p/include/damsim.h'"
ok "libdamsim.so.0 (SONAME), libdamsim.so and libdamsim.a" test -f "$lib/libdamsim.so.0" -a -f "$lib/libdamsim.so" -a -f "$lib/libdamsim.a"
ok "the installed library's interface is the one checked in (api_abi)" "$py" "$src/tests/api/abi.py" "$lib/libdamsim.so" "$src" --header "$p/include/damsim.h"
ok "pkg-config knows damsim" pkg-config --exists damsim
ok "example: built with pkg-config (shared)" sh -c "'$cc' -Wall -Werror '$src/examples/solve.c' \$(pkg-config --cflags --libs damsim) -o '$tmp/solve'"
ok "example: runs, the lever moves the step" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$scen' gpu=H100-SXM5-80GB | tee '$tmp/out' && grep -q '^baseline' '$tmp/out' && grep -q '^gpu=H100' '$tmp/out'"
ok "example: keys set on its command line" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$scen' gpu=H100-SXM5-80GB pipeline.loader_workers=8 machine.storage.read_gbs=2.5 | grep -q '^gpu=H100'"
ok "example: outside the loader's path it does not start (LD_LIBRARY_PATH is needed)" sh -c "! env -u LD_LIBRARY_PATH '$tmp/solve' '$scen' gpu=H100-SXM5-80GB 2>'$tmp/noload.err' && grep -q 'libdamsim.so.0' '$tmp/noload.err' || ldconfig -p | grep -q 'libdamsim.so.0'"
ok "example: built with pkg-config --static" sh -c "'$cc' '$src/examples/solve.c' \$(pkg-config --cflags damsim) '$lib/libdamsim.a' \$(pkg-config --static --libs damsim | sed 's/-ldamsim//') -o '$tmp/solve_static'"
ok "example (static): runs" sh -c "'$tmp/solve_static' '$scen' batch_size=8 | grep -q '^batch_size=8'"
ok "example: built with CMake find_package(damsim)" sh -c "'$cmake' -S '$src/examples' -B '$tmp/ex' -DCMAKE_PREFIX_PATH='$p' -DCMAKE_C_COMPILER='$cc' && '$cmake' --build '$tmp/ex'"
ok "example (CMake, shared and static): runs" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/ex/solve' '$scen' gpu=H100-SXM5-80GB && '$tmp/ex/solve_static' '$scen' gpu=H100-SXM5-80GB"
ok "a bad lever is reported by the example, exit 2" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$scen' gpu=NOPE 2>'$tmp/lever.err'; test \$? -eq 2 && grep -q '^lever gpu=NOPE: error: unknown gpu' '$tmp/lever.err'"
printf 'scenario: { name = "x"; };\nnope = 1;\n' > "$tmp/bad.cfg"
ok "a scenario that does not load: the example prints why (file:line), exit 2" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$tmp/bad.cfg' gpu=H100-SXM5-80GB 2>'$tmp/bad.err'; test \$? -eq 2 && grep -q 'bad.cfg:2: error: unknown key' '$tmp/bad.err'"
ok "a key out of range: the loader's message at the file's line, exit 2" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$scen' gpu=H100-SXM5-80GB pipeline.loader_workers=-3 2>'$tmp/key.err'; test \$? -eq 2 && grep -q 'llama2-7b-pretrain.cfg:50: error: .pipeline.loader_workers. must be between 0 and 256, got -3' '$tmp/key.err'"
# the man page's EXAMPLE, as printed, against the installed copy
sed -n '/^\.SH EXAMPLE/,/^\.fi/p' "$src/api/damsim.3" | sed '1,2d;$d' |
    sed 's/\\e/\\/g' >"$tmp/man_example.c"
ok "damsim(3)'s example builds and runs (H100: compute-bound)" sh -c "'$cc' -Wall -Werror '$tmp/man_example.c' \$(pkg-config --cflags --libs damsim) -o '$tmp/man_example' && cd '$src/scenarios' && LD_LIBRARY_PATH='$lib' '$tmp/man_example' | grep -q '^step 1\.[0-9]* s, compute-bound'"
# Python: pip from a copy (pip builds in the folder it is given)
cp -R "$src/python" "$tmp/pysrc"
ok "pip install --no-build-isolation --no-index ./python" "$py" -m pip install --no-build-isolation --no-index --no-cache-dir --disable-pip-version-check --target "$tmp/site" "$tmp/pysrc"
ok "python: the installed module is the one imported, on the installed library" sh -c "cd '$tmp' && PYTHONPATH='$tmp/site' LD_LIBRARY_PATH='$lib' '$py' -c 'import damsim, sys; assert damsim.__file__.startswith(\"$tmp/site/\"), damsim.__file__; print(damsim.libversion())'"
ok "python: the example notebook runs headless on the installed copy" sh -c "PYTHONPATH='$tmp/site' LD_LIBRARY_PATH='$lib' '$py' '$src/tests/api/run_notebook.py' '$src/examples/damsim.ipynb' '$src'"
ok "man pages damsim(1), damsim-scenario(5), damsim(3)" test -f "$p/share/man/man1/damsim.1" -a -f "$p/share/man/man5/damsim-scenario.5" -a -f "$p/share/man/man3/damsim.3"
ok "bash completion" test -f "$p/share/bash-completion/completions/damsim"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
