#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Golden error messages: every errors/NAME.cfg is a malformed scenario; its
# diagnostics must equal errors/NAME.expected exactly, the exit code must be
# 2, and nothing may be written to standard output.
# usage: run.sh DAMSIM ERRORS_DIR
damsim=$1
dir=$2
pass=0
fail=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
cd "$dir" || exit 2
for cfg in *.cfg; do
    name=${cfg%.cfg}
    "$damsim" check "$cfg" >"$out" 2>"$err"
    rc=$?
    ok=1
    if [ "$rc" -ne 2 ]; then
        echo "FAIL: $name: exit code $rc, want 2"; ok=0
    fi
    if [ -s "$out" ]; then
        echo "FAIL: $name: wrote to standard output:"; cat "$out"; ok=0
    fi
    if ! diff -u "$name.expected" "$err" >/dev/null; then
        echo "FAIL: $name: diagnostics differ:"; diff -u "$name.expected" "$err"; ok=0
    fi
    if [ "$ok" -eq 1 ]; then
        echo "PASS: $name: $(head -n 1 "$err")"; pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
