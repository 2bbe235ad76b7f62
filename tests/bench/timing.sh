# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the shell benchmarks (serving.sh, examples.sh): CPU seconds
# of a command and the best of $rounds runs. A command's output goes to
# $out when the script set it, else nowhere.

# CPU seconds (user + system, the shell's `times`) of the processes the
# command started
cpu() {
    ("$@" >"${out:-/dev/null}" 2>&1; times) | awk 'NR == 2 {
        split($1, u, /[ms]/); split($2, y, /[ms]/)
        print u[1] * 60 + u[2] + y[1] * 60 + y[2] }'
}

# The least of cpu over $rounds runs, so that the machine's load hits it
# least
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
