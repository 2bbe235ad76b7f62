#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libdamsim as an installed library: `cmake --install` into a temporary
# prefix, then examples/solve.c built against it three ways (pkg-config
# shared, pkg-config static, CMake find_package) and run; the man pages and
# the bash completion are installed beside it.
# usage: install.sh CMAKE BUILD_DIR SOURCE_DIR CC
cmake=$1
build=$2
src=$3
cc=$4
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
ok "headers under include/damsim/" test -f "$p/include/damsim/damsim.h" -a -f "$p/include/damsim/model/lever.h"
ok "libdamsim.so and libdamsim.a" test -f "$lib/libdamsim.so" -a -f "$lib/libdamsim.a"
ok "pkg-config knows damsim" pkg-config --exists damsim
ok "example: built with pkg-config (shared)" sh -c "'$cc' '$src/examples/solve.c' \$(pkg-config --cflags --libs damsim) -o '$tmp/solve'"
ok "example: runs, the lever moves the step" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$scen' gpu=H100-SXM5-80GB | tee '$tmp/out' && grep -q '^baseline' '$tmp/out' && grep -q '^gpu=H100' '$tmp/out'"
ok "example: built with pkg-config --static" sh -c "'$cc' '$src/examples/solve.c' \$(pkg-config --cflags damsim) '$lib/libdamsim.a' \$(pkg-config --static --libs damsim | sed 's/-ldamsim//') -o '$tmp/solve_static'"
ok "example (static): runs" sh -c "'$tmp/solve_static' '$scen' batch_size=8 | grep -q '^batch_size=8'"
ok "example: built with CMake find_package(damsim)" sh -c "'$cmake' -S '$src/examples' -B '$tmp/ex' -DCMAKE_PREFIX_PATH='$p' -DCMAKE_C_COMPILER='$cc' && '$cmake' --build '$tmp/ex'"
ok "example (CMake, shared and static): runs" sh -c "'$tmp/ex/solve' '$scen' gpu=H100-SXM5-80GB && '$tmp/ex/solve_static' '$scen' gpu=H100-SXM5-80GB"
ok "a bad lever is reported by the example, exit 2" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$scen' gpu=NOPE; test \$? -eq 2"
printf 'scenario: { name = "x"; };\nnope = 1;\n' > "$tmp/bad.cfg"
ok "a scenario that does not load: the example prints why (file:line), exit 2" sh -c "LD_LIBRARY_PATH='$lib' '$tmp/solve' '$tmp/bad.cfg' gpu=H100-SXM5-80GB 2>'$tmp/bad.err'; test \$? -eq 2 && grep -q 'bad.cfg:2: error: unknown key' '$tmp/bad.err'"
ok "man pages damsim(1) and damsim-scenario(5)" test -f "$p/share/man/man1/damsim.1" -a -f "$p/share/man/man5/damsim-scenario.5"
ok "bash completion" test -f "$p/share/bash-completion/completions/damsim"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
