#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Serving answers benchmark (issue 26, goal 2): the CPU seconds (user +
# system, the shell's `times`) of `damsim whatif` on each LLM serving
# example in scenarios/, intervals under load included (the default), and
# of `damsim plan --slo-ttft-ms 500 --slo-tpot-ms 50 --rate 5` on
# llama3-70b-h100-vs-h200.cfg, each beside its goal: whatif <= 1 s, plan
# over 5 GPU kinds <= 2 s. The plan searches every GPU kind of the
# catalog that runs the model (no option narrows it), so its time is
# printed whole and per 5 kinds: the whole times 5 / the kinds it
# simulated (those its "Fewest GPUs per kind" list names). Each figure is the best of ROUNDS runs, so that the machine's
# load hits it least; the load average is printed too. Timing only: the
# tests check the answers.
# usage: sh tests/bench/serving.sh build/damsim [ROUNDS]
damsim=${1:-build/damsim}
rounds=${2:-1}
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
. "$src/tests/bench/timing.sh"
verdict() { awk "BEGIN {print ($1 <= $2) ? \"met\" : \"NOT MET\"}"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
worst=0
for s in llama3-70b-h100-vs-h200 llama3-70b-fp8-kv-h100 \
    llama3-70b-b200-nvfp4-vs-h200-fp8 llama3-70b-prefix-cache; do
    t=$(best "$damsim" whatif "$src/scenarios/$s.cfg" --quiet)
    printf "whatif %-36s %6.2f CPU-s (goal <= 1 s: %s)\n" "$s" "$t" \
        "$(verdict "$t" 1)"
    worst=$(awk "BEGIN {print ($t > $worst) ? $t : $worst}")
done
t=$(best "$damsim" plan "$src/scenarios/llama3-70b-h100-vs-h200.cfg" \
    --slo-ttft-ms 500 --slo-tpot-ms 50 --rate 5 --quiet)
kinds=$(awk '/^Fewest GPUs per kind/ {on = 1; next} on && !NF {exit}
    on {n++} END {print n + 0}' "$out")
per5=$(awk "BEGIN {print $t * 5 / ($kinds > 0 ? $kinds : 1)}")
printf "plan over %d GPU kinds: %.2f CPU-s; per 5 kinds %.2f CPU-s (goal <= 2 s: %s)\n" \
    "$kinds" "$t" "$per5" "$(verdict "$per5" 2)"
printf "whatif worst %.2f CPU-s (goal <= 1 s: %s)\n" "$worst" \
    "$(verdict "$worst" 1)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
