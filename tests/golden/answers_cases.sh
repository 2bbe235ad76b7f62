#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 21's reproductions (shared/cases/answers/), each as checks on
# damsim's real output: answers that contradicted themselves or the model.
# Scenarios: tests/golden/answers-cases/ (copies of the cases' inputs).
# usage: answers_cases.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
dir=$src/tests/golden/answers-cases
. "$src/tests/golden/harness.sh"
py() { python3 -c "$1" "$tmp"; }

# C01: the interval printed under a simulated step is of that step, with a
# width (was "233 ms ... 90 % interval 196 ms to 196 ms").
"$damsim" run --json -q "$dir/r50-box-base.cfg" >"$tmp/c01.json"
check "C01: the simulated step lies inside its own 90 % interval, which has a width" py "
import json, sys
d = json.load(open(sys.argv[1] + '/c01.json'))
r, u = d['result'], d['uncertainty']
for k, v in (('step_s', r['step_s']), ('run_s', r['run_s']), ('cost_usd', r['cost']['usd'])):
    iv = u[k]
    assert iv['p05'] < v < iv['p95'], (k, v, iv)
    assert iv['p95'] > 1.05 * iv['p05'], (k, iv)"
"$damsim" run -q "$dir/r50-box-base.cfg" >"$tmp/c01.txt"
check "C01: the text says the interval is about the simulated figures" \
    grep -q "about the simulated figures" "$tmp/c01.txt"

# serving-interval-excludes-point: the latency interval brackets the
# simulated mean latency it is printed under (was 951-952 ms under 145 ms).
"$damsim" run --json -q "$dir/serving-interval-excludes-point.cfg" >"$tmp/sv.json"
check "serving: the simulated mean latency lies inside its interval" py "
import json, sys
d = json.load(open(sys.argv[1] + '/sv.json'))
v, iv = d['result']['step_s'], d['uncertainty']['step_s']
assert iv['p05'] < v < iv['p95'], (v, iv)"

# C02, C12: serving what-if: each speed-up's interval brackets the speed-up
# shown; "on fewer GPUs?" is not answered yes with the same count.
"$damsim" whatif --json -q "$dir/l70-serve.cfg" >"$tmp/c02.json"
check "C02: every serving speed-up lies inside its own interval" py "
import json, sys
w = json.load(open(sys.argv[1] + '/c02.json'))
n = 0
for o in w['options'][1:]:
    iv = o.get('speedup_over_uncertain_inputs')
    if iv and 'speedup' in o:
        n += 1
        assert iv['p05'] <= o['speedup'] <= iv['p95'], (o['option'], o['speedup'], iv)
assert n >= 2, n"
check "C12: 'on fewer GPUs?' is no for an option with as many GPUs, and names the fewest" py "
import json, sys
a = json.load(open(sys.argv[1] + '/c02.json'))['answer']
assert 'yes' not in a.split('.')[0], a
assert 'not fewer than' in a and 'Fewest GPUs that meet both SLOs' in a, a"

# C03, train-does-not-fit-answers-yes: memory decides every answer.
"$damsim" whatif --json -q "$dir/l70-ft8.cfg" >"$tmp/c03.json"
"$damsim" whatif -q "$dir/l70-ft8.cfg" >"$tmp/c03.txt"
check "C03: a baseline that does not fit is said first and no speed-up is quoted against it" py "
import json, sys
w = json.load(open(sys.argv[1] + '/c03.json'))
assert w['answer'].startswith('the baseline does not fit'), w['answer']
assert not w['options'][0]['fits']
for o in w['options']:
    assert 'speedup' not in o and 'speedup_over_uncertain_inputs' not in o, o['option']
    if not o['fits']:
        assert o['verdict'] in ('no fit', 'baseline'), o"
check "C03: the baseline row is not priced" sh -c \
    "grep '^baseline' '$tmp/c03.txt' | grep -q 'does not fit' && ! grep '^baseline' '$tmp/c03.txt' | grep -q '\\$'"
"$damsim" report -q "$dir/l70-ft8.cfg" -o "$tmp/c03.html" 2>/dev/null
check "C03: the review's lever table gives no figures to an option that does not fit" py "
import html, re, sys
s = open(sys.argv[1] + '/c03.html').read()
rows = [[html.unescape(re.sub(r'<[^>]+>', '', c)).strip() for c in re.findall(r'<t[dh][^>]*>(.*?)</t[dh]>', r, re.S)]
        for r in re.findall(r'<tr>(.*?)</tr>', s, re.S)]
nofit = [r for r in rows if 'does not fit' in r]
assert len(nofit) >= 2, nofit
for r in nofit:
    # the figures of that option (before its 'does not fit'; after it on
    # page 1 come the recommended option's)
    assert not any(re.search(r'[0-9]', c) for c in r[1:r.index('does not fit')]), r"
check "C03: the review's page 1 prices nothing that cannot run, quotes no speed-up over it, and rests on memory" py "
import html, re, sys
s = open(sys.argv[1] + '/c03.html').read()
s = re.sub(r'<(style|script).*?</\\1>', '', s, flags=re.S)
t = [l.strip() for l in html.unescape(re.sub(r'<[^>]+>', '\\n', s)).splitlines() if l.strip()]
i = t.index('as configured')
head = t[i:t.index('RECOMMENDATION')]
for k in ('time to train', 'cost of the run', 'GPU-hours'):
    assert head[head.index(k) + 1] == 'does not fit', head
a = t[t.index('ANSWER') + 1]
assert 'no speed-up is quoted' in a and 'Speed-up, 90' not in a, a
w = t[t.index('WHAT WOULD CHANGE IT') + 1]
assert w.startswith('The answer rests on memory'), w
b = t[t.index('binding term') + 1]
assert b.startswith('memory capacity'), b"
"$damsim" run -q "$dir/l70-ft8.cfg" >"$tmp/c03run.txt"
check "C03: run's page 1 of what does not fit: no figure, no cost, memory binds" py "
import sys
l = open(sys.argv[1] + '/c03run.txt').read().split(chr(10))
r = [k for k, x in enumerate(l) if x.startswith('-----')]
head = l[:r[1]]
assert not any('\$' in x for x in head), head
assert [x for x in head if x.startswith('Binding')][0].startswith('Binding   memory capacity'), head
assert 'does not fit' in [x for x in head if x.startswith('Figure')][0], head
assert [x for x in head if x.startswith('Cost')][0].startswith('Cost      n/a'), head"
"$damsim" compare -q "$dir/l70-ft8.cfg" "$src/scenarios/llama2-7b-pretrain.cfg" >"$tmp/c03cmp.txt"
check "C03: compare gives what does not fit no figures, and no change from it" py "
import re, sys
rows = {}
for l in open(sys.argv[1] + '/c03cmp.txt'):
    p = re.split(r'\\s{2,}', l.strip())
    if p[0] in ('run', 'GPU-hours', 'cost (USD)', 'step', 'binding'):
        rows.setdefault(p[0], p[1])
        assert '%)' not in l, l
assert rows['binding'] == 'memory capacity', rows
for k in ('run', 'GPU-hours', 'cost (USD)', 'step'):
    assert rows[k] == 'does not fit', rows"
"$damsim" whatif -q "$dir/l70-serve.cfg" >"$tmp/c12.txt"
"$damsim" report -q "$dir/l70-serve.cfg" -o "$tmp/c12.html" 2>/dev/null
check "C12: page 1's figure and the review's recommendation are of the option the answer names cheapest" py "
import html, re, sys
t = open(sys.argv[1] + '/c12.txt').read()
m = re.search(r'Cheapest option that meets both SLOs: (.+?), [0-9]+ GPUs', t)
if not m and 'It is also the cheapest that meets them' in t:
    m = re.search(r'Fewest GPUs that meet both SLOs: (.+?), [0-9]+ GPUs', t)
name = m.group(1)
fig = [l for l in t.splitlines() if l.startswith('Figure')][0]
assert fig.startswith('Figure    ' + name + ':'), (name, fig)
s = open(sys.argv[1] + '/c12.html').read()
s = re.sub(r'<(style|script).*?</\\1>', '', s, flags=re.S)
c = [x.strip() for x in html.unescape(re.sub(r'<[^>]+>', '\\n', s)).splitlines() if x.strip()]
rec = c[c.index('RECOMMENDATION') + 1]
assert rec.startswith('Take ' + name + ':'), (name, rec)"
"$damsim" run --json -q "$dir/train-does-not-fit-answers-yes.cfg" >"$tmp/t.json"
"$damsim" run -q "$dir/train-does-not-fit-answers-yes.cfg" >"$tmp/t.txt"
check "a run that does not fit answers no, first, in JSON and text" py "
import json, sys
t = sys.argv[1]
r = json.load(open(t + '/t.json'))['result']
assert not r['memory']['fits']
assert r['answer'].startswith('no: it does not fit'), r['answer']
line = [l for l in open(t + '/t.txt') if l.startswith('Answer')][0]
assert line[6:].strip() == r['answer'], line"

# llm-weights-do-not-fit: a deployment that serves nothing fails.
"$damsim" run --json -q "$dir/llm-weights-do-not-fit-json-says-slo-met.cfg" >"$tmp/l.json"
"$damsim" run -q "$dir/llm-weights-do-not-fit-json-says-slo-met.cfg" >"$tmp/l.txt"
check "LLM weights that do not fit: no SLO met anywhere, pool not negative, answer no" py "
import json, sys
t = sys.argv[1]
r = json.load(open(t + '/l.json'))['result']
s = r['serving']
assert s['slo_met'] is False and s['llm']['slo_met'] is False, s['slo_met']
assert s['llm']['memory_per_gpu']['kv_pool_bytes'] >= 0
assert r['answer'].startswith('no: it does not fit'), r['answer']
txt = open(t + '/l.txt').read()
assert 'both objectives hold' not in txt and 'SLOs are met' not in txt"

# C06: a serving review's recommendation speaks serving.
"$damsim" report -q "$dir/l70-serve.cfg" -o "$tmp/c06.html" >/dev/null 2>&1
check "C06: the serving review never prints a training run 'from 0 ms to 0 ms'" sh -c \
    "test -s '$tmp/c06.html' && grep -q 'Take ' '$tmp/c06.html' && ! grep -q 'the run from' '$tmp/c06.html'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
