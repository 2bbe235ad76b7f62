#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 10's ten wrong answers and one found since (11), each as checks on damsim's real output
# (every one failed before the fix). Scenarios: tests/golden/right-answers/
# and scenarios/. Simulated runs use few steps to stay quick; the verdicts
# do not depend on them.
# usage: right_answers.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
dir=$src/tests/golden/right-answers
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1"; fail=$((fail + 1)); }
check() { # description, then a command that must succeed
    what=$1; shift
    if "$@" >"$tmp/out" 2>&1; then ok "$what"; else ko "$what"; sed 's/^/    /' "$tmp/out" | head -20; fi
}
py() { python3 -c "$1" "$tmp"; }

# 1. A PCIe-bound step is called transfer-bound, and the levers the
#    diagnosis lists as working are the ones the what-if finds working.
"$damsim" run --json "$dir/01-pcie-bound.cfg" >"$tmp/run1.json" 2>"$tmp/err"
"$damsim" catalog levers --json >"$tmp/levers.json"
check "1: the PCIe-bound step binds on transfer in the simulation and analytically" py "
import json, sys
r = json.load(open(sys.argv[1] + '/run1.json'))['result']
assert r['bound'] == 'transfer', r['bound']
assert r['simulation']['analytic_bound'] == 'transfer', r['simulation']['analytic_bound']
assert 'transfer' in r['answer'] or 'host-to-device' in r['answer'], r['answer']"
py "
import json, sys
t = sys.argv[1]
r = json.load(open(t + '/run1.json'))['result']['diagnosis']
ex = {l['name']: l['example'] for l in json.load(open(t + '/levers.json'))}
with open(t + '/cases1', 'w') as f:
    for kind in r['works']:
        f.write('works %s %s\n' % (kind['lever'], ex[kind['lever']]))
    for kind in r['wasted']:
        f.write('wasted %s %s\n' % (kind['lever'], ex[kind['lever']]))"
args=""
while read -r said kind example; do args="$args --lever $example"; done <"$tmp/cases1"
# shellcheck disable=SC2086
"$damsim" whatif --json --steps 40 --replications 2 "$dir/01-pcie-bound.cfg" $args >"$tmp/whatif1.json" 2>"$tmp/err"
check "1: every lever 'run' lists as working works in the what-if, every wasted one does not" py "
import json, sys
t = sys.argv[1]
rows = {o['option']: o['verdict'] for o in json.load(open(t + '/whatif1.json'))['options']}
cases = [l.split() for l in open(t + '/cases1')]
assert any(c[0] == 'works' for c in cases), 'run lists no working lever'
for said, kind, example in cases:
    got = rows[example]
    assert (got == 'works') == (said == 'works'), (kind, example, said, got)"

# 2. Levers apply only where they are valid: 2:4 and INT8 are inference
#    formats, so they cannot apply to pretraining without a training method.
"$damsim" whatif --json "$src/scenarios/llama2-7b-pretrain.cfg" --analytic --lever prune=2:4 >"$tmp/w2a.json"
"$damsim" whatif --json "$dir/02-bert-large-train.cfg" --analytic >"$tmp/w2b.json"
check "2: prune=2:4 cannot apply to pretraining, and no best option uses it or INT8" py "
import json, sys
t = sys.argv[1]
for name, bad in (('w2a', 'prune=2:4'), ('w2b', 'INT8')):
    w = json.load(open(t + '/' + name + '.json'))
    rows = {o['option']: o for o in w['options']}
    assert rows[bad]['verdict'] == 'failed' and 'inference format' in rows[bad]['error'], rows[bad]
    assert bad not in w['answer'].split('Best option')[-1], w['answer']
    for o in w['options']:
        assert not (o['verdict'] == 'works' and bad in o['option']), o['option']"
check "2: with a training method and its cost, 2:4 applies and makes training longer" py "
import json, subprocess, sys
out = subprocess.run(['$damsim', 'whatif', '--json', '--analytic', '$src/scenarios/llama2-7b-pretrain.cfg',
                      '--lever', 'prune=2:4,train_method=dense then prune and retrain,train_cost=1'],
                     capture_output=True, text=True, check=True).stdout
row = [o for o in json.loads(out)['options'] if o['option'].startswith('prune=2:4')][0]
assert row['verdict'] == 'hurts' and abs(row['speedup'] - 0.5) < 0.01, (row['verdict'], row['speedup'])"

# 3. Quality sign and direction: the loss falls, the table shows the loss
#    and a positive gain, and says lower is better.
"$damsim" whatif --json --analytic "$src/scenarios/llama2-7b-pretrain.cfg" >"$tmp/w3.json"
"$damsim" whatif --analytic "$src/scenarios/llama2-7b-pretrain.cfg" >"$tmp/w3.txt"
check "3: a falling loss is a positive gain, the change is negative, and lower is better is said" py "
import json, sys
t = sys.argv[1]
w = json.load(open(t + '/w3.json'))
assert w['quality_higher_is_better'] is False
base = w['options'][0]
row = [o for o in w['options'] if o['option'] == 'compute-optimal N, D'][0]
assert row['quality'] < base['quality'], (row['quality'], base['quality'])
assert row['quality_change'] < 0 and row['quality_gain'] > 0, row
txt = open(t + '/w3.txt').read()
assert 'lower is better' in txt and 'gain' in txt and '+ is better' in txt
assert '(better by' in txt, txt"

# 4. Waiting for other ranks is its own term, not communication.
"$damsim" run --json "$dir/04-storage-bound-8gpu.cfg" >"$tmp/r4.json"
"$damsim" run "$dir/04-storage-bound-8gpu.cfg" >"$tmp/r4.txt"
check "4: ranks waiting for a straggler show as waiting, not as exposed communication" py "
import json, sys
t = sys.argv[1]
terms = json.load(open(t + '/r4.json'))['result']['terms_s']
assert terms['waiting for ranks'] > 0.1, terms
assert terms['exposed communication'] < 0.005, terms
txt = open(t + '/r4.txt').read()
assert 'waiting for ranks' in txt"

# 5. An option that does not fit is never works nor best, and says by how
#    much it misses; plan candidates likewise.
"$damsim" whatif --json --analytic "$dir/05-does-not-fit.cfg" >"$tmp/w5.json"
"$damsim" plan --json "$src/scenarios/llama2-7b-pretrain.cfg" --budget 5.76e23 >"$tmp/p5.json"
check "5: a faster option that does not fit is 'no fit', says by how much, and is not the best" py "
import json, sys
t = sys.argv[1]
w = json.load(open(t + '/w5.json'))
rows = {o['option']: o for o in w['options']}
big = rows['H100, batch 32']
assert big['result']['run_s'] < rows['H100']['result']['run_s'], 'the test needs a faster option'
assert big['verdict'] == 'no fit' and 'misses by' in big['why'], big
assert not big['fits'] and 'speedup' not in big, 'no speed-up is quoted for an option that cannot run'
assert 'Best option: H100,' in w['answer'] and 'H100, batch 32' not in w['answer'].split('Best option')[1]
for o in json.load(open(t + '/p5.json'))['options']:
    assert o['fits_memory'] or (not o['feasible'] and 'misses by' in o['note']), o"

# 6. Errors that exit 0: an unknown GPU id exits 2 with "did you mean", and
#    a price-only lever applies.
"$damsim" whatif "$src/scenarios/resnet50-dgx-a100.cfg" --lever gpu=H200 >"$tmp/o6" 2>"$tmp/e6"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "did you mean 'H200-SXM-141GB'" "$tmp/e6" && [ ! -s "$tmp/o6" ]; then
    ok "6: --lever gpu=H200 exits 2 with did you mean"
else
    ko "6: --lever gpu=H200 exits 2 with did you mean (exit $rc)"; cat "$tmp/e6"
fi
"$damsim" whatif "$src/scenarios/resnet50-dgx-a100.cfg" --lever gpu=NOPE >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 2 ]; then ok "6: --lever gpu=NOPE exits 2"; else ko "6: --lever gpu=NOPE exits 2 (exit $rc)"; fi
"$damsim" whatif --json --analytic "$dir/06-price-only.cfg" >"$tmp/w6.json" 2>"$tmp/e6b"
check "6: a scenario lever with only gpu_hour_usd re-prices the run" py "
import json, sys
w = json.load(open(sys.argv[1] + '/w6.json'))
row = w['options'][1]
assert row['verdict'] == 'works', row
assert abs(row['cost']['usd'] / w['options'][0]['cost']['usd'] - 1.0 / 1.844) < 1e-6"

# 7. The headline answers the question: do two L4s meet the SLO?
"$damsim" whatif --json --replications 2 "$src/scenarios/resnet50-serving-l4.cfg" >"$tmp/w7.json"
check "7: the answer says yes or no to the question, with the p99 and its interval, then the best option" py "
import json, sys
a = json.load(open(sys.argv[1] + '/w7.json'))['answer']
assert a.startswith('yes: p99') or a.startswith('no: p99'), a
assert 'CI' in a and '30 ms SLO' in a and 'Best option' in a, a"

# 8. One set of assumptions: the same lever gives the same answer wherever
#    it is written.
"$damsim" whatif --json --analytic "$src/scenarios/resnet50-dgx-a100.cfg" --lever gpu=H100-SXM5-80GB >"$tmp/w8a.json"
"$damsim" whatif --json --analytic "$src/scenarios/resnet50-serving-l4.cfg" --lever quantize=int8 >"$tmp/w8b.json"
check "8: --lever gpu=H100 costs what the scenario's H100 lever costs; --lever quantize=int8 takes the scenario's INT8 delta" py "
import json, sys
t = sys.argv[1]
rows = {o['option']: o for o in json.load(open(t + '/w8a.json'))['options']}
a, b = rows['H100']['cost']['usd'], rows['gpu=H100-SXM5-80GB']['cost']['usd']
assert abs(a - b) <= 1e-9 * a, (a, b)
rows = {o['option']: o for o in json.load(open(t + '/w8b.json'))['options']}
assert rows['INT8']['quality'] == rows['quantize=int8']['quality'], (rows['INT8']['quality'], rows['quantize=int8']['quality'])"

# 9. Chinchilla as published: the default reproduces 70B / 1.4T at 5.76e23
#    and the plan names its fit.
"$damsim" plan --json "$src/scenarios/llama2-7b-pretrain.cfg" --budget 5.76e23 >"$tmp/p9.json"
"$damsim" plan "$src/scenarios/llama2-7b-pretrain.cfg" --budget 5.76e23 >"$tmp/p9.txt"
"$damsim" plan --json "$src/scenarios/llama2-7b-pretrain.cfg" --budget 5.76e23 --fit approach3 >"$tmp/p9c.json"
check "9: plan --budget 5.76e23 gives Chinchilla's 70B and 1.4T (approach 1), names the fit; --fit approach3 gives 32B" py "
import json, sys
t = sys.argv[1]
p = json.load(open(t + '/p9.json'))
assert abs(p['n_opt'] / 70e9 - 1) < 0.05 and abs(p['d_opt'] / 1.4e12 - 1) < 0.05, (p['n_opt'], p['d_opt'])
assert p['fit'] == 'approach1', p['fit']
assert 'Fit       approach1' in open(t + '/p9.txt').read()
c = json.load(open(t + '/p9c.json'))
assert c['fit'] == 'approach3' and abs(c['n_opt'] / 32.19e9 - 1) < 0.01, c['n_opt']"
"$damsim" plan "$src/scenarios/llama2-7b-pretrain.cfg" --budget 5.76e23 --fit kaplan >/dev/null 2>"$tmp/e9"
rc=$?
if [ "$rc" -eq 2 ]; then ok "9: --fit kaplan exits 2"; else ko "9: --fit kaplan exits 2 (exit $rc)"; fi

# 10. Return on compute from the user's own points.
"$damsim" whatif --json "$src/scenarios/roc-models-abc.cfg" >"$tmp/w10.json"
check "10: models A, B, C: RoC 0.3 and 0.133 from A, marginal 0.3 then 0.05, diminishing" py "
import json, sys
w = json.load(open(sys.argv[1] + '/w10.json'))
rows = {o['option']: o for o in w['options']}
assert rows['Model A']['roc'] is None
assert abs(rows['Model B']['roc'] - 0.3) < 1e-9 and abs(rows['Model C']['roc'] - 0.4 / 3) < 1e-9
m = [f['marginal_roc_to_next'] for f in w['frontier']]
assert abs(m[0] - 0.3) < 1e-9 and abs(m[1] - 0.05) < 1e-9 and m[2] is None, m
assert w['diminishing_returns'] is True"
"$damsim" whatif "$src/scenarios/roc-models-abc.cfg" -o "$tmp/roc.svg" >/dev/null 2>&1
check "10: the frontier chart is written" sh -c "grep -q '<svg' '$tmp/roc.svg'"

# 11. A pipeline layout whose ranks wait more than they compute (the
#     405B example: 16 stages, 16 micro-batches) names the schedule in
#     its answer, not the GPU alone; the same layout with 64 micro-batches
#     (a 4x larger global batch) waits less and says compute binds.
"$damsim" run --json --analytic "$src/scenarios/llama3-405b-16k-h100.cfg" >"$tmp/r11.json"
sed 's/global_batch = 2048;/global_batch = 8192;/' "$src/scenarios/llama3-405b-16k-h100.cfg" >"$tmp/r11b.cfg"
"$damsim" run --json --analytic "$tmp/r11b.cfg" >"$tmp/r11b.json"
check "11: waiting 49 % > compute: the answer names micro-batches and the schedule; with 64 micro-batches it does not" py "
import json, sys
t = sys.argv[1]
r = json.load(open(t + '/r11.json'))['result']
terms = r['terms_s']
assert terms['waiting for ranks'] > terms['compute'], terms
assert 'micro-batches' in r['answer'] and 'pipeline' in r['answer'], r['answer']
b = json.load(open(t + '/r11b.json'))['result']
assert b['terms_s']['waiting for ranks'] < b['terms_s']['compute'], b['terms_s']
assert 'micro-batches' not in b['answer'] and b['bound'] == 'compute', (b['bound'], b['answer'])"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
