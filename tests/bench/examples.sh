#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Where users wait (issue 26): the CPU seconds (user + system, the shell's
# `times`) of `damsim run` and `damsim whatif` on every example scenario
# in scenarios/, intervals included (the defaults), slowest first, each
# the best of ROUNDS runs so that the machine's load hits it least; then
# the slowest and the sum. No goal is set for training what-ifs (serving
# has its own: tests/bench/serving.sh); the figures are for comparing
# builds on one machine. Timing only: the tests check the answers.
# usage: sh tests/bench/examples.sh build/damsim [ROUNDS]
damsim=${1:-build/damsim}
rounds=${2:-1}
src=$(cd "$(dirname "$0")/../.." && pwd)
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
# CPU seconds of the processes the command started (output discarded)
cpu() {
    ("$@" >/dev/null 2>&1; times) | awk 'NR == 2 {
        split($1, u, /[ms]/); split($2, y, /[ms]/)
        print u[1] * 60 + u[2] + y[1] * 60 + y[2] }'
}
best() {
    b=999
    i=0
    while [ $i -lt "$rounds" ]; do
        c=$(cpu "$@")
        b=$(awk "BEGIN {print ($c < $b) ? $c : $b}")
        i=$((i + 1))
    done
    echo "$b"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
for s in "$src"/scenarios/*.cfg; do
    n=$(basename "$s" .cfg)
    for c in run whatif; do
        printf "%s %s %s\n" "$(best "$damsim" "$c" "$s" --quiet)" "$c" "$n" \
            >>"$rows"
    done
done
sort -rn "$rows" | awk '{printf "%-7s %-40s %6.2f CPU-s\n", $2, $3, $1}'
sort -rn "$rows" | awk 'NR == 1 {w = $1; wc = $2 " " $3} {t += $1}
    END {printf "slowest %.2f CPU-s (%s); all %d commands %.2f CPU-s\n",
         w, wc, NR, t}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
