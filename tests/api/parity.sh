#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libdamsim's interface answers what the damsim command answers: for each
# question the JSON of api_json (damsim.h through the shared library) and
# of `damsim ... --json` are the same bytes. The questions cover training,
# inference and serving, LLM serving, analytic and simulated, a seed, a
# lever, the what-if, the serving plan and the budget plan.
# usage: parity.sh DAMSIM API_JSON SOURCE_DIR
damsim=$1
api=$2
sc=$3/scenarios
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same() {
    what=$1
    api_args=$2
    cli_args=$3
    # shellcheck disable=SC2086
    "$api" $api_args >"$tmp/a.json" 2>"$tmp/a.err"
    ra=$?
    # shellcheck disable=SC2086
    "$damsim" $cli_args >"$tmp/b.json" 2>"$tmp/b.err"
    rb=$?
    if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ -s "$tmp/a.json" ] &&
        cmp -s "$tmp/a.json" "$tmp/b.json"; then
        echo "PASS: $what"; pass=$((pass + 1))
    else
        echo "FAIL: $what (interface $ra, command $rb)"; fail=$((fail + 1))
        cat "$tmp/a.err" "$tmp/b.err"
        diff "$tmp/a.json" "$tmp/b.json" | head -20
    fi
}
for f in llama2-7b-pretrain resnet50-dgx-a100 iron-law-data-bound \
         serving-30ms-slo llama3-70b-fp8-kv-h100 moe-2048-nvl72; do
    same "run $f --analytic" "run $sc/$f.cfg --analytic" \
        "run $sc/$f.cfg --json --analytic"
done
for f in resnet50-dgx-a100 iron-law-data-bound resnet50-serving-l4 \
         llama3-70b-fp8-kv-h100; do
    same "run $f (simulated)" "run $sc/$f.cfg" "run $sc/$f.cfg --json"
done
same "run --seed 11 --lever gpu=H100-SXM5-80GB" \
    "run $sc/resnet50-dgx-a100.cfg --seed 11 --lever gpu=H100-SXM5-80GB" \
    "run $sc/resnet50-dgx-a100.cfg --json --seed 11 --lever gpu=H100-SXM5-80GB"
same "whatif llama2-7b --analytic --lever batch_size=8" \
    "whatif $sc/llama2-7b-pretrain.cfg --analytic --lever batch_size=8" \
    "whatif $sc/llama2-7b-pretrain.cfg --json --analytic --lever batch_size=8"
same "whatif serving-30ms-slo (simulated) --seed 3" \
    "whatif $sc/serving-30ms-slo.cfg --seed 3" \
    "whatif $sc/serving-30ms-slo.cfg --json --seed 3"
same "whatif iron-law-data-bound (simulated) --lever gpu=H100-SXM5-80GB" \
    "whatif $sc/iron-law-data-bound.cfg --lever gpu=H100-SXM5-80GB" \
    "whatif $sc/iron-law-data-bound.cfg --json --lever gpu=H100-SXM5-80GB"
same "plan serving-30ms-slo" "plan $sc/serving-30ms-slo.cfg" \
    "plan $sc/serving-30ms-slo.cfg --json"
same "plan resnet50-serving-l4" "plan $sc/resnet50-serving-l4.cfg" \
    "plan $sc/resnet50-serving-l4.cfg --json"
same "plan llama2-7b --budget 1e23 --deadline 30d" \
    "budget $sc/llama2-7b-pretrain.cfg 1e23 2592000" \
    "plan $sc/llama2-7b-pretrain.cfg --json --budget 1e23 --deadline 30d"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
