#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Profiler traces end to end (issue 25): run, whatif and check --trace on
# the real traces in tests/data/traces, and bad traces refused with
# "file: error: ..." and exit 2.
# usage: trace.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
. "$src/tests/golden/harness.sh"
cd "$tmp" || exit 2
tr="$src/tests/data/traces"
nccl="$tr/a100-nccl-train.trace.json.gz"
for f in "$tr"/*.trace.json.gz; do
    check "check --trace $(basename "$f")" "$damsim" check --trace "$f"
done
# work estimated before the trace is parsed (cli/work.c): events from the
# inflated size in the gzip trailer
alex="$tr/alexnet-a100-train.trace.json.gz"
"$damsim" check --trace "$alex" --max-work 1000 2>work.err
check "check --trace past --max-work: exit 2, the events estimated from the inflated size" \
    sh -c "[ $? -eq 2 ] && grep -q 'error: an estimated 7.99e+03 .* in 3.2e+05 bytes.*--max-work' work.err"
check "check --trace within --max-work 1e4" "$damsim" check --trace "$alex" --max-work 1e4
rm -f work.err
"$damsim" run --trace "$nccl" --json >run.json
check "run --trace --json: result.step_s replayed, trace.measured_step_s" python3 -c "
import json; d=json.load(open('run.json'))
m=d['trace']['measured_step_s']; r=d['result']['step_s']
assert abs(m-0.222442)<1e-6, m
assert abs(r-m) <= 0.03*m, (r, m)
b=d['result']['breakdown']; assert b['bound'] and abs(sum(b['parts_s'].values())-b['step_mean_s'])<1e-9"
"$damsim" run --trace "$nccl" --json >run2.json
check "run --trace: byte-identical JSON" cmp run.json run2.json
check "run --trace text names the replay error and the binding term" sh -c \
    "'$damsim' run --trace '$nccl' | grep -q 'replay error' && '$damsim' run --trace '$nccl' | grep -q '^binding'"
"$damsim" whatif --trace "$nccl" --lever gpu=H100-SXM5-80GB --lever cuda_graphs=1 --json >w.json
check "whatif --trace: a verdict and an interval for H100" python3 -c "
import json; d=json.load(open('w.json')); r=d['rows']
assert r[0]['verdict']=='baseline' and r[1]['name']=='gpu=H100-SXM5-80GB'
assert r[1]['verdict'] in ('works','wasted','hurts') and r[1]['speedup_lo'] <= r[1]['speedup_hi']"
# CUDA graphs: the row had no interval (the graph gap, 0.5 +- 0.3 us, was
# not drawn); now it is, from its own stream (the GPU rows' draws as they
# were). The NCCL trace's step does not move with the gap (its GPU waits
# on the host): a zero-width interval; the 80 GB trace's does.
"$damsim" whatif --trace "$tr/a100-80gb-train-rank0-3steps.trace.json.gz" --lever cuda_graphs=1 --json >wg.json
check "whatif --trace: cuda_graphs rows carry an interval about their speed-up" python3 -c "
import json
for f, wide in (('w.json', False), ('wg.json', True)):
    r = [x for x in json.load(open(f))['rows'] if x['name'] == 'cuda_graphs=1'][0]
    assert r['speedup_lo'] <= r['speedup'] * (1 + 1e-9) and r['speedup'] <= r['speedup_hi'] * (1 + 1e-9), r
    assert (r['speedup_hi'] - r['speedup_lo'] > 1e-4) == wide, (f, r)"
check "whatif --trace: text table" sh -c \
    "'$damsim' whatif --trace '$nccl' --lever gpu=H100-SXM5-80GB | grep -q '^gpu=H100-SXM5-80GB'"
code "whatif --trace: unknown GPU" 2 "$damsim" whatif --trace "$nccl" --lever gpu=H999
code "whatif --trace: unknown lever" 2 "$damsim" whatif --trace "$nccl" --lever warp=9
code "whatif --trace with a scenario too" 2 "$damsim" whatif "$src/scenarios/resnet50-dgx-a100.cfg" --trace "$nccl" --lever gpu=H100-SXM5-80GB
code "whatif --trace: no lever" 2 "$damsim" whatif --trace "$nccl"
code "whatif --trace: loader_workers without from" 2 "$damsim" whatif --trace "$nccl" --lever loader_workers=8
check "report --trace -o .pdf" "$damsim" report --trace "$nccl" --lever gpu=H100-SXM5-80GB -o review.pdf
check "the review is a PDF" sh -c "head -c 5 review.pdf | grep -q '%PDF-'"
check "report --trace -o .html" "$damsim" report --trace "$nccl" --lever gpu=H100-SXM5-80GB -o review.html
check "the page answers the question" grep -q "Would H100-SXM5-80GB cut this job" review.html
code "report --trace without -o" 2 "$damsim" report --trace "$nccl" --lever gpu=H100-SXM5-80GB
code "run --trace -o .png refused" 2 "$damsim" run --trace "$nccl" -o x.png
check "run --trace -o .html" "$damsim" run --trace "$nccl" -o run.html
# bad traces
printf 'not json' >bad1.json
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1}]}' >bad2.json
head -c 1000 "$nccl" >bad3.json.gz
mkdir folder
code "check --trace: not JSON" 2 "$damsim" check --trace bad1.json
code "check --trace: an event without dur" 2 "$damsim" check --trace bad2.json
check "the message names the event and its byte" sh -c \
    "'$damsim' check --trace bad2.json 2>&1 | grep -q \"^bad2.json: error: event 0 (byte 17): \\\"k\\\": 'ts' and 'dur'\""
code "run --trace: truncated gzip" 2 "$damsim" run --trace bad3.json.gz
check "truncated gzip: file: error: ... cut short" sh -c "'$damsim' check --trace bad3.json.gz 2>&1 | grep -q '^bad3.json.gz: error: not a complete gzip file (cut short at compressed byte'"
head -c 1000 "$nccl" >bad5.json.gz
printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' >>bad5.json.gz
check "corrupt gzip data: named as corrupt, not as cut short" sh -c "'$damsim' check --trace bad5.json.gz 2>&1 | grep -q 'not a complete gzip file (corrupt data at compressed byte'"
code "check --trace: a folder" 2 "$damsim" check --trace folder
code "check --trace: missing file" 2 "$damsim" check --trace missing.json
code "check --trace: /dev/zero is refused, not read forever" 2 "$damsim" check --trace /dev/zero
# several ranks as a folder (tests/data/traces/make_job.py)
job="$tr/job-a100-2ranks"
"$damsim" run --trace "$job" --json >job.json
check "run --trace FOLDER: two ranks, rank 1 the slowest, rank 0 waits" python3 -c "
import json; d=json.load(open('job.json')); r=d['result']
assert d['trace']['ranks']==2 and d['trace']['collectives_matched']==7
assert r['slowest_rank']==1, r['slowest_rank']
k=r['ranks']; assert [x['rank'] for x in k]==[0,1]
assert abs(k[0]['collective_wait_s']-0.0049046)<1e-6 and k[1]['collective_wait_s']<1e-6
assert abs(r['step_s']-d['trace']['measured_step_s'])<1e-9
for x in k: assert abs(sum(x['breakdown']['parts_s'].values())-x['breakdown']['step_mean_s'])<1e-9"
check "run --trace FOLDER: text names the slowest rank" sh -c \
    "'$damsim' run --trace '$job' | grep -q 'slowest rank.s: rank 1'"
check "whatif --trace FOLDER: per-rank rows" sh -c \
    "'$damsim' whatif --trace '$job' --lever gpu=H100-SXM5-80GB | grep -q '^gpu=H100-SXM5-80GB .*rank 1 .*(slowest)'"
mkdir dup mixed
cp "$job/rank0.trace.json.gz" dup/a.json.gz
cp "$job/rank0.trace.json.gz" dup/b.json.gz
cp "$job/rank0.trace.json.gz" mixed/
cp "$tr/recsys-a100-8gpu-3steps.trace.json.gz" mixed/
code "check --trace FOLDER: one rank twice" 2 "$damsim" check --trace dup
check "one rank twice: named" sh -c "'$damsim' check --trace dup 2>&1 | grep -q 'error: rank 0 again'"
code "check --trace FOLDER: two jobs' traces" 2 "$damsim" check --trace mixed
# with a scenario, --trace still names the simulation's timeline
check "run SCENARIO --trace still writes its timeline" "$damsim" run --analytic "$src/scenarios/resnet50-dgx-a100.cfg" --trace out.json
# A trace without ProfilerStep spans (AlexNet: 79 kernels over 12.9 s)
# is one "step" holding whatever the host did between kernels: its CUDA
# graphs row (1.31x) captures all of that, so the what-if says so.
"$damsim" whatif --trace "$alex" --lever cuda_graphs=1 >ga.txt
"$damsim" whatif --trace "$alex" --lever cuda_graphs=1 --json >ga.json
"$damsim" whatif --trace "$nccl" --lever cuda_graphs=1 >gn.txt
check "whatif --trace: a trace without step spans says its graph row is an upper bound" sh -c \
    "grep -q 'no ProfilerStep spans' ga.txt && ! grep -q 'no ProfilerStep spans' gn.txt && grep -q '\"profiler_steps\": 0' ga.json"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
