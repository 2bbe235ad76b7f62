#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The damsim command end to end: the flagship runs from any folder, the
# documented commands and options answer, output is deterministic, files are
# written whole, and bad usage exits 2.
# usage: cli.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
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
cd "$tmp" || exit 2
check "damsim with no arguments runs the flagship from an empty folder" "$damsim"
"$damsim" >flagship.txt 2>&1
check "the flagship report states its question" grep -q "Would H100s cut our training time" flagship.txt
check "the flagship report names what binds" grep -q "^Binding" flagship.txt
check "--version" "$damsim" --version
check "--help" "$damsim" --help
check "run --help" "$damsim" run --help
check "catalog --help" "$damsim" catalog --help
check "check --help" "$damsim" check --help
check "catalog gpus" "$damsim" catalog gpus
check "catalog models" "$damsim" catalog models
check "catalog --json is JSON" sh -c "'$damsim' catalog --json | python3 -m json.tool"
for f in "$src"/scenarios/*.cfg; do
    check "check $(basename "$f")" "$damsim" check "$f"
    check "run --json $(basename "$f") is JSON" sh -c "'$damsim' run --json '$f' | python3 -m json.tool"
done
"$damsim" run --json "$src/scenarios/resnet50-dgx-a100.cfg" >a.json
"$damsim" run --json "$src/scenarios/resnet50-dgx-a100.cfg" >b.json
check "same scenario, byte-identical JSON" cmp a.json b.json
check "no NaN or infinity in the JSON" sh -c "! grep -Eiq 'nan|inf' a.json"
"$damsim" run --json "$src/scenarios/iron-law-data-bound.cfg" >db.json
check "data-bound example: step 0.572 s" python3 -c "
import json; r=json.load(open('db.json'))['result']
assert abs(r['step_s']-0.572)/0.572 < 0.001, r['step_s']
assert r['bound']=='data', r['bound']"
check "-o writes the report to a file" "$damsim" run "$src/scenarios/iron-law-data-bound.cfg" -o report.txt
check "the file holds the report" grep -q "Question" report.txt
check "no temporary file is left" sh -c "! ls | grep -q tmp"
check "plan --help" "$damsim" plan --help
"$damsim" run "$src/scenarios/serving-30ms-slo.cfg" >serving.txt 2>&1
check "serving run prints the per-phase table" grep -q "^  batching  *8 ms" serving.txt
check "serving run says the SLO is missed" grep -q "MISSED" serving.txt
"$damsim" run --json "$src/scenarios/resnet50-serving-l4.cfg" >s1.json
"$damsim" run --json "$src/scenarios/resnet50-serving-l4.cfg" >s2.json
check "serving: same seed, byte-identical JSON" cmp s1.json s2.json
check "serving JSON: 40 ms example phases" python3 -c "
import json, subprocess
r = json.loads(subprocess.check_output(['$damsim', 'run', '--json', '$src/scenarios/serving-30ms-slo.cfg']))['result']
ph = r['serving']['phases_s']
for k, v in (('preprocess', .012), ('batching', .008), ('transfer', .010), ('compute', .010)):
    assert abs(ph[k]['mean'] - v) < 1e-9, (k, ph[k])
assert r['bound'] == 'preprocessing', r['bound']"
check "plan --json is JSON" sh -c "'$damsim' plan --json --steps 2000 --replications 2 '$src/scenarios/resnet50-serving-l4.cfg' --slo-p99-ms 30 --rate 1000 | python3 -m json.tool"
code "plan on a training scenario without --budget" 2 "$damsim" plan "$src/scenarios/iron-law-data-bound.cfg"
code "plan with a bad --rate" 2 "$damsim" plan "$src/scenarios/serving-30ms-slo.cfg" --rate fast
code "unknown command" 2 "$damsim" frobnicate
code "unknown option" 2 "$damsim" run --frob "$src/scenarios/iron-law-data-bound.cfg"
code "run without a file" 2 "$damsim" run
code "missing file" 2 "$damsim" run no-such-file.cfg
code "catalog of nothing" 2 "$damsim" catalog frobs
code "bad --seed" 2 "$damsim" run --seed x "$src/scenarios/iron-law-data-bound.cfg"
code "-o into a missing folder fails at run time" 1 "$damsim" run "$src/scenarios/iron-law-data-bound.cfg" -o no/such/dir/r.txt
"$damsim" run "$src/scenarios/iron-law-data-bound.cfg" -o no/such/dir/r.txt 2>/dev/null
check "nothing half-written after a failed write" sh -c "! ls no 2>/dev/null"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
