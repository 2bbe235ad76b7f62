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
. "$src/tests/bench/timing.sh"
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
