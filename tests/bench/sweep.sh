#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Sweep benchmark (issue 15): analytic points per second written as CSV to
# /dev/null on one thread; parallel efficiency at -j 2; MPI on 2 ranks
# against -j 2. Ratios are measured in one run, alternating the variants
# so that a change in the machine's load hits both; each variant's best of
# ROUNDS counts. Wall time is what a user waits for, but on a machine
# other work shares it also holds their time slices, so the CPU time
# (user + system, of every process the variant starts) is printed beside
# it: points per CPU second is the per-core rate whatever the load, and
# the CPU time at -j 2 over the time at -j 1 is the work the threads add.
# MPI against -j 2: both write the CSV with -o to a file (through mpirun,
# standard output would pass through its forwarding of the ranks' output,
# a cost -j 2 does not have), and the two files must be the same bytes;
# the start-up and teardown of each (a 2-point sweep) is measured too and
# the difference net of it printed, as the share of the time that grows
# with the sweep.
# Then distinct points of the flagship with and without intervals, each
# beside its goal (issue 26). Prints the load average too.
# usage: sh tests/bench/sweep.sh build/damsim [ROUNDS] [distinct]
# (distinct: only the distinct-points part)
damsim=${1:-build/damsim}
rounds=${2:-3}
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
scen="$src/scenarios/llama2-7b-pretrain.cfg"
# 64 x 64 x 250 = 1,024,000 points of patched scenario keys
vary="--vary workload.batch_size=1:64:64 --vary pipeline.loader_workers=1:64:64 --vary cost.gpu_hour_usd=1:4:250 --intervals off"
# "WALL CPU": seconds of one run of the command (its CSV to /dev/null) and
# the CPU seconds of the processes it started (the shell's `times`)
run() {
    s=$(date +%s.%N)
    cpu=$( ("$@" >/dev/null 2>&1; times) | awk 'NR == 2 {
        split($1, u, /[ms]/); split($2, y, /[ms]/)
        print u[1] * 60 + u[2] + y[1] * 60 + y[2] }')
    e=$(date +%s.%N)
    awk "BEGIN {print $e - $s, $cpu}"
}
min() { awk "BEGIN {print ($1 < $2) ? $1 : $2}"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
n=1024000
w1=999; c1=999; w2=999; c2=999; wo=999; co=999; wm=999; cm=999
so=999; sc=999; sm=999; smc=999
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
root=""; [ "$(id -u)" -eq 0 ] && root="--allow-run-as-root"
if [ "${3:-}" != distinct ]; then
for r in $(seq "$rounds"); do
    set -- $(run "$damsim" sweep "$scen" $vary -j 1); w1=$(min "$1" "$w1"); c1=$(min "$2" "$c1")
    set -- $(run "$damsim" sweep "$scen" $vary -j 2); w2=$(min "$1" "$w2"); c2=$(min "$2" "$c2")
    if command -v mpirun >/dev/null 2>&1; then
        set -- $(run "$damsim" sweep "$scen" $vary -j 2 -o "$tmp/j2.csv")
        wo=$(min "$1" "$wo"); co=$(min "$2" "$co")
        set -- $(run mpirun $root --oversubscribe -n 2 "$damsim" sweep "$scen" $vary -o "$tmp/mpi.csv")
        wm=$(min "$1" "$wm"); cm=$(min "$2" "$cm")
        set -- $(run "$damsim" sweep "$scen" --vary workload.batch_size=1,2 --intervals off -j 2 -o "$tmp/s2.csv")
        so=$(min "$1" "$so"); sc=$(min "$2" "$sc")
        set -- $(run mpirun $root --oversubscribe -n 2 "$damsim" sweep "$scen" --vary workload.batch_size=1,2 --intervals off -o "$tmp/sm.csv")
        sm=$(min "$1" "$sm"); smc=$(min "$2" "$smc")
    fi
done
printf 'analytic sweep, 1 thread:  %.0f points/s wall, %.0f points per CPU second (%d points: %.3f s wall, %.3f CPU-s; CSV to /dev/null)\n' \
    "$(awk "BEGIN {print $n / $w1}")" "$(awk "BEGIN {print $n / $c1}")" "$n" "$w1" "$c1"
printf 'analytic sweep, -j 2:      %.0f points/s wall (%.3f s wall, %.3f CPU-s)\n' \
    "$(awk "BEGIN {print $n / $w2}")" "$w2" "$c2"
printf 'parallel efficiency at 2 threads: %.0f %% by wall time, %.0f %% by CPU time\n' \
    "$(awk "BEGIN {print 100 * $w1 / (2 * $w2)}")" "$(awk "BEGIN {print 100 * $c1 / $c2}")"
if [ "$wm" != 999 ]; then
    printf 'mpirun -n 2 against -j 2, -o FILE.csv: %.3f s vs %.3f s wall (%+.0f %%), %.3f vs %.3f CPU-s (%+.0f %%)\n' \
        "$wm" "$wo" "$(awk "BEGIN {print 100 * ($wm / $wo - 1)}")" \
        "$cm" "$co" "$(awk "BEGIN {print 100 * ($cm / $co - 1)}")"
    printf 'start-up and teardown (2 points): mpirun -n 2 %.3f s wall, %.3f CPU-s; -j 2 %.3f s wall, %.3f CPU-s\n' \
        "$sm" "$smc" "$so" "$sc"
    printf 'net of them, mpirun -n 2 against -j 2: %.3f s vs %.3f s wall (%+.0f %%), %.3f vs %.3f CPU-s (%+.0f %%)\n' \
        "$(awk "BEGIN {print $wm - $sm}")" "$(awk "BEGIN {print $wo - $so}")" \
        "$(awk "BEGIN {print 100 * (($wm - $sm) / ($wo - $so) - 1)}")" \
        "$(awk "BEGIN {print $cm - $smc}")" "$(awk "BEGIN {print $co - $sc}")" \
        "$(awk "BEGIN {print 100 * (($cm - $smc) / ($co - $sc) - 1)}")"
    if cmp -s "$tmp/j2.csv" "$tmp/mpi.csv"; then
        echo "mpirun -n 2 and -j 2 wrote the same bytes"
    else
        echo "mpirun -n 2 and -j 2 wrote DIFFERENT files"
    fi
fi
fi
# Distinct points (issue 26): the flagship (resnet50-dgx-a100, decode_ms
# uncertain) over loader workers x batch size, the batch varying fastest:
# every point is another scenario (10,000 with intervals, 200,000 without;
# each rate includes the sweep's set-up, printed apart). With intervals each point is solved in
# 400 draws; the draw plan (each drawn quantity's value in every draw) is
# the same for every point and reused, a set-up saving, not a solve.
# Distinct points are counted in the rows written (unique value pairs).
# Each sweep's --stats line gives its cache hits: the device cost of the
# operator graph depends on the batch, not on the loader, so a worker's
# memo of graph costs (up to 3,072 batch sizes) reuses it when the loader
# changes. A third sweep defeats that memo (5,000 batch sizes, more than it
# keeps, so each is gone before it comes again): every point works its
# graph cost out.
flag="$src/scenarios/resnet50-dgx-a100.cfg"
von="--vary pipeline.loader_workers=1:40:40 --vary workload.batch_size=1:250:250"
voff="--vary pipeline.loader_workers=1:200:200 --vary workload.batch_size=1:1000:1000"
vnew="--vary pipeline.loader_workers=1:40:40 --vary workload.batch_size=1:5000:5000"
wi=999; ci=999; wf=999; cf=999; wn=999; cn=999
for r in $(seq "$rounds"); do
    set -- $(run "$damsim" sweep "$flag" $von -j 1 -o "$tmp/on.csv"); wi=$(min "$1" "$wi"); ci=$(min "$2" "$ci")
    set -- $(run "$damsim" sweep "$flag" $voff --intervals off -j 1 -o "$tmp/off.csv"); wf=$(min "$1" "$wf"); cf=$(min "$2" "$cf")
    set -- $(run "$damsim" sweep "$flag" $vnew --intervals off -j 1 -o "$tmp/new.csv"); wn=$(min "$1" "$wn"); cn=$(min "$2" "$cn")
done
# the set-up every sweep pays once (the process's start, about 15 ms of
# it loading the shared libraries, the catalog, the scenario and each
# value): a 2-point sweep with intervals, printed beside the rates, which
# include it
su=999
for r in $(seq "$rounds"); do
    set -- $(run "$damsim" sweep "$flag" --vary workload.batch_size=1,2 -j 1 -o "$tmp/s2.csv"); su=$(min "$2" "$su")
done
# the cache hits (one more run of each, its rows to /dev/null)
stats() { "$damsim" sweep "$flag" "$@" -j 1 --stats 2>&1 >/dev/null | sed -n 's/^damsim: sweep: //p'; }
si=$(stats $von); sf=$(stats $voff --intervals off); sn=$(stats $vnew --intervals off)
distinct() { awk -F, 'NR > 1 && !seen[$1 "," $2]++ { n++ } END { print n + 0 }' "$1"; }
rows() { awk 'END { print NR - 1 }' "$1"; }
ni=$(distinct "$tmp/on.csv"); nf=$(distinct "$tmp/off.csv"); nn=$(distinct "$tmp/new.csv")
printf 'flagship sweep with intervals, 1 thread: %.0f distinct points per CPU second (goal >= 25000): %d rows, %d distinct, %.3f CPU-s, %.3f s wall; %s\n' \
    "$(awk "BEGIN {print $ni / $ci}")" "$(rows "$tmp/on.csv")" "$ni" "$ci" "$wi" "$si"
printf 'set-up included above (a 2-point sweep with intervals): %.3f CPU-s\n' "$su"
printf 'interval draws (400 a point, each an analytic solve): %.0f per CPU second (goal >= 10000000)\n' \
    "$(awk "BEGIN {print 400 * $ni / $ci}")"
printf 'flagship sweep, --intervals off, 1 thread: %.0f distinct points per CPU second (goal >= 1000000): %d rows, %d distinct, %.3f CPU-s, %.3f s wall; %s\n' \
    "$(awk "BEGIN {print $nf / $cf}")" "$(rows "$tmp/off.csv")" "$nf" "$cf" "$wf" "$sf"
printf 'the same, every graph cost worked out (5000 batch sizes): %.0f distinct points per CPU second: %d rows, %d distinct, %.3f CPU-s, %.3f s wall; %s\n' \
    "$(awk "BEGIN {print $nn / $cn}")" "$(rows "$tmp/new.csv")" "$nn" "$cn" "$wn" "$sn"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
