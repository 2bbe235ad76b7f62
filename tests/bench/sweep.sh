#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Sweep benchmark (issue 15): analytic points per second written as CSV to
# /dev/null on one thread; parallel efficiency at -j 2; MPI on 2 ranks
# against -j 2. Ratios are measured in one run, alternating the variants
# so that a change in the machine's load hits both. Prints the load too.
# usage: sh tests/bench/sweep.sh build/damsim [ROUNDS]
damsim=${1:-build/damsim}
rounds=${2:-3}
src=$(cd "$(dirname "$0")/../.." && pwd)
scen="$src/scenarios/llama2-7b-pretrain.cfg"
# 64 x 64 x 250 = 1,024,000 points of patched scenario keys
vary="--vary workload.batch_size=1:64:64 --vary pipeline.loader_workers=1:64:64 --vary cost.gpu_hour_usd=1:4:250"
secs() { # seconds of one run of the command, its CSV to /dev/null
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    awk "BEGIN {print $e - $s}"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
n=1024000
best1=999; best2=999; bestm=999
for r in $(seq "$rounds"); do
    t1=$(secs "$damsim" sweep "$scen" $vary -j 1)
    t2=$(secs "$damsim" sweep "$scen" $vary -j 2)
    best1=$(awk "BEGIN {print ($t1 < $best1) ? $t1 : $best1}")
    best2=$(awk "BEGIN {print ($t2 < $best2) ? $t2 : $best2}")
    if command -v mpirun >/dev/null 2>&1; then
        root=""; [ "$(id -u)" -eq 0 ] && root="--allow-run-as-root"
        tm=$(secs mpirun $root --oversubscribe -n 2 "$damsim" sweep "$scen" $vary)
        bestm=$(awk "BEGIN {print ($tm < $bestm) ? $tm : $bestm}")
    fi
done
printf 'analytic sweep, 1 thread:  %.0f points/s (%d points in %.3f s, CSV to /dev/null)\n' \
    "$(awk "BEGIN {print $n / $best1}")" "$n" "$best1"
printf 'analytic sweep, -j 2:      %.0f points/s (%.3f s)\n' "$(awk "BEGIN {print $n / $best2}")" "$best2"
printf 'parallel efficiency at 2 threads: %.0f %%\n' "$(awk "BEGIN {print 100 * $best1 / (2 * $best2)}")"
[ "$bestm" != 999 ] && printf 'mpirun -n 2 against -j 2: %.3f s vs %.3f s (%.0f %% slower)\n' \
    "$bestm" "$best2" "$(awk "BEGIN {print 100 * ($bestm / $best2 - 1)}")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
