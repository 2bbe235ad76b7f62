#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `mpirun -n 4 damsim sweep` on one machine writes the bytes `-j 1` writes
# (CSV to a file, JSON Lines to standard output, a simulated sweep, the
# charts of -o DIR and --pareto).
# usage: sweep_mpi.sh DAMSIM SOURCE_DIR MPIEXEC
damsim=$1
src=$2
mpiexec=$3
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
ok() {
    what=$1; shift
    if "$@" >/dev/null 2>&1; then
        echo "PASS: $what"; pass=$((pass + 1))
    else
        echo "FAIL: $what"; fail=$((fail + 1))
    fi
}
# root (CI) must say so; --oversubscribe: 4 ranks on fewer cores
mpi="$mpiexec --oversubscribe -n 4"
[ "$(id -u)" -eq 0 ] && mpi="$mpiexec --allow-run-as-root --oversubscribe -n 4"
llama="$src/scenarios/llama2-7b-pretrain.cfg"
flag="$src/scenarios/resnet50-dgx-a100.cfg"
vary="--vary gpu=A100-SXM4-80GB,H100-SXM5-80GB --vary workload.batch_size=1:64:64 --vary pipeline.loader_workers=1:16:4:log --vary precision=bf16,fp8"
"$damsim" sweep "$llama" $vary -j 1 -o j1.csv
$mpi "$damsim" sweep "$llama" $vary -o mpi.csv >mpi.log 2>&1
ok "mpirun -n 4 ran" test -s mpi.csv
ok "mpirun -n 4: CSV identical to -j 1" cmp j1.csv mpi.csv
"$damsim" sweep "$llama" $vary --json -j 1 >j1.jsonl
$mpi "$damsim" sweep "$llama" $vary --json >mpi.jsonl 2>>mpi.log
ok "mpirun -n 4: JSON Lines on standard output identical to -j 1" cmp j1.jsonl mpi.jsonl
sim="--vary batch_size=64,128,256 --vary data.decode_ms=4,8 --simulate --steps 40 --replications 2"
"$damsim" sweep "$flag" $sim -j 1 >s1.csv
$mpi "$damsim" sweep "$flag" $sim >smpi.csv 2>>mpi.log
ok "mpirun -n 4: simulated sweep identical to -j 1" cmp s1.csv smpi.csv
# charts: every rank sends its points' figures to rank 0 (a rank that did
# not would leave rank 0 waiting); the folder's files are -j 1's bytes
"$damsim" sweep "$llama" $vary -j 1 -o d1 --pareto p1.svg
$mpi "$damsim" sweep "$llama" $vary -o dmpi --pareto pmpi.svg >>mpi.log 2>&1
ok "mpirun -n 4 -o DIR: rows and charts identical to -j 1" sh -c "cmp d1/sweep.csv dmpi/sweep.csv && cmp d1/pareto.png dmpi/pareto.png && cmp d1/heatmap.png dmpi/heatmap.png && cmp p1.svg pmpi.svg"
[ "$fail" -eq 0 ] || tail -20 mpi.log
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
