# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the shell benchmarks (serving.sh, examples.sh): CPU seconds
# of a command and the best of $rounds runs. A command's output goes to
# $out when the script set it, else nowhere.

# CPU seconds (user + system, the shell's `times`) of the processes the
# command started; a command that fails stops the benchmark (exit 1, its
# message on stderr): a time of a run that did not happen is no figure
# (given a folder instead of the binary, serving.sh printed "0.00 CPU-s
# (goal <= 1 s: met)")
cpu() {
    r=$( ("$@" >"${out:-/dev/null}" 2>&1; echo "rc $?"; times) | awk '
        NR == 1 { rc = $2 } NR == 3 {
        split($1, u, /[ms]/); split($2, y, /[ms]/)
        print rc, u[1] * 60 + u[2] + y[1] * 60 + y[2] }')
    set -- "$@"
    case $r in
    "0 "*) echo "${r#0 }" ;;
    *) echo "benchmark: '$*' failed (exit ${r%% *})" >&2
       [ -n "${out:-}" ] && head -3 "$out" >&2
       kill -TERM $$ ;;
    esac
}

# The least of cpu over $rounds runs, so that the machine's load hits it
# least
best() {
    b=999
    i=0
    while [ $i -lt "$rounds" ]; do
        c=$(cpu "$@")
        [ -n "$c" ] || exit 1
        b=$(awk "BEGIN {print ($c < $b) ? $c : $b}")
        i=$((i + 1))
    done
    echo "$b"
}
