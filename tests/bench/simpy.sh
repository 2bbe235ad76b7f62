#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The engine against SimPy (issue 26, goal 3: ">= 100x SimPy"): the open
# tandem line of tandem_model.h on the engine (build/bench/tandem, best of
# 3 rounds, CPU time) and the same line in SimPy (tandem_simpy.py, CPU
# time of its simulate call), in one run of this script, and the ratio of
# their jobs per CPU second beside the goal. SimPy runs a tenth of the
# jobs (a rate is compared, and it is 100 times slower); both print their
# mean sojourn, which should agree with each other and with the Jackson
# value (about 5.26 s at lambda 1). Needs SimPy 2 (Debian: python3-simpy,
# for /usr/bin/python3). Timing only: test_des_tandem checks the engine.
# usage: sh tests/bench/simpy.sh [BUILD_DIR] [JOBS]
build=${1:-build}
jobs=${2:-2000000}
src=$(cd "$(dirname "$0")/../.." && pwd)
py=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import SimPy.Simulation' 2>/dev/null; then
        py=$p
        break
    fi
done
if [ -z "$py" ]; then
    echo "simpy.sh: SimPy 2 not found (apt-get install python3-simpy)" >&2
    exit 2
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
engine=$("$build/bench/tandem" "$jobs" 1.0 1 3) || exit 1
echo "$engine" | grep -E '^engine:|^  mean sojourn' | head -2
simpy=$("$py" "$src/tests/bench/tandem_simpy.py" $((jobs / 10)) 1.0 1) ||
    exit 1
echo "$simpy"
e=$(echo "$engine" | awk '/^engine:/ {print $4}')  # M jobs/s
s=$(echo "$simpy" | awk '{print $6}')              # jobs/s
awk -v e="$e" -v s="$s" 'BEGIN {
    r = e * 1e6 / s
    v = (r >= 100) ? "met" : "NOT met"
    printf "engine / SimPy jobs per CPU second: %.0fx (goal >= 100x: %s)\n",
        r, v }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
