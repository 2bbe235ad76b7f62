#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/seeds/run.sh: the unit tests under other seed bases.
#
# Every stochastic unit test takes its seeds through dam_test_seed
# (tests/unit/check.h), which moves them by DAM_TEST_SEED_BASE. This runs
# every tests/unit program of a build once per base FIRST..LAST (default
# 1..20) and reports, per base, the checks that failed, then the totals.
# A check whose false-alarm rate is stated (1e-4 and so on) should fail on
# no base of 20; a failure is either that rare event or a check that
# depends on its seed. Not part of ctest (20 bases cost 20 suite runs).
#
# Usage: sh tests/seeds/run.sh [BUILD_DIR [FIRST [LAST]]]
set -u
build=${1:-build}
first=${2:-1}
last=${3:-20}
[ -d "$build/tests" ] || { echo "seeds: no $build/tests (build first)" >&2; exit 2; }
cd "$build/tests" || exit 2
total_pass=0
total_fail=0
bad_bases=0
b=$first
while [ "$b" -le "$last" ]; do
    fails=""
    for t in ./test_*; do
        [ -x "$t" ] || continue
        out=$(DAM_TEST_SEED_BASE=$b "$t" 2>&1)
        line=$(printf '%s\n' "$out" | tail -n 1)
        p=$(printf '%s\n' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
        f=$(printf '%s\n' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
        if [ -z "$p" ]; then
            fails="$fails
  $t: crashed or no summary line"
            total_fail=$((total_fail + 1))
            continue
        fi
        total_pass=$((total_pass + p))
        total_fail=$((total_fail + f))
        if [ "$f" -gt 0 ]; then
            fails="$fails
$(printf '%s\n' "$out" | grep '^FAIL' | sed "s|^|  ${t#./}: |")"
        fi
    done
    if [ -n "$fails" ]; then
        bad_bases=$((bad_bases + 1))
        echo "base $b: FAILED$fails"
    else
        echo "base $b: all checks pass"
    fi
    b=$((b + 1))
done
echo "seeds: bases $first..$last: $total_pass checks passed, $total_fail failed; $bad_bases bases with a failure"
[ "$total_fail" -eq 0 ]
