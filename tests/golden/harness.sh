# SPDX-License-Identifier: GPL-3.0-or-later
# harness.sh: what the end-to-end shell tests share, sourced after they set
# damsim and src: a scratch folder removed on exit, pass/fail counters, and
# check (a command must succeed) and code (a command must exit with a given
# status). Each test prints its tally and exits 1 on any failure itself.
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # description, then a command that must succeed
    what=$1; shift
    if "$@" >/dev/null 2>&1; then
        echo "PASS: $what"; pass=$((pass + 1))
    else
        echo "FAIL: $what"; fail=$((fail + 1))
    fi
}
code() { # description, expected exit code, command...
    what=$1; want=$2; shift 2
    "$@" >/dev/null 2>&1
    got=$?
    if [ "$got" -eq "$want" ]; then
        echo "PASS: $what (exit $got)"; pass=$((pass + 1))
    else
        echo "FAIL: $what: exit $got, want $want"; fail=$((fail + 1))
    fi
}
