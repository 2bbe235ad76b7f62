#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# LLM serving end to end (issue 13): the two example scenarios answer their
# questions with run, whatif and plan; output is deterministic; a request
# trace is simulated; bad traces and bad options exit 2 with file:line
# errors and nothing on standard output.
# usage: llm.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
. "$src/tests/golden/harness.sh"
cd "$tmp" || exit 2
h=$src/scenarios/llama3-70b-h100-vs-h200.cfg
k=$src/scenarios/llama3-70b-fp8-kv-h100.cfg

# run: the page, its JSON, determinism
check "run: H100/H200 scenario" "$damsim" run "$h"
"$damsim" run "$h" >run1.txt 2>&1
"$damsim" run "$h" >run2.txt 2>&1
check "run: the same output twice" cmp run1.txt run2.txt
check "run: states the question" grep -q "fewer GPUs than H100s" run1.txt
check "run: TTFT, TPOT and end-to-end percentiles" grep -q "time per output token" run1.txt
check "run: judges both objectives" grep -q "SLOs at p99: TTFT" run1.txt
check "run: memory per GPU with the KV pool" grep -q "KV pool" run1.txt
"$damsim" run "$h" --json >run.json 2>&1
check "run --json: TTFT p99, goodput, tokens per GPU, cost per million" python3 -c "
import json, math
l = json.load(open('run.json'))['result']['serving']['llm']
assert l['ttft_s']['p99'] > 0 and l['tpot_s']['p99'] > 0
assert 0 <= l['goodput_fraction'] <= 1
assert l['output_tokens_per_s_per_gpu'] > 0 and l['cost_per_million_output_tokens_usd'] > 0
assert l['memory_per_gpu']['blocks'] > 0 and l['slo_met'] in (True, False)
"

# run --lever: an LLM lever changes what is simulated (the page's header)
"$damsim" run "$h" --lever kv_cache=fp8 --lever gpu=H200-SXM-141GB --lever tensor_parallel=4 --replications 1 --steps 300 >lever.txt 2>&1
check "run --lever: the cache, the GPU and the degree are applied" grep -q "1 replica x 4 H200-SXM-141GB (4 GPUs); weights bf16, KV cache fp8" lever.txt
code "run --lever tensor_parallel=3 (does not divide the heads) exits 2" 2 "$damsim" run "$h" --lever tensor_parallel=3

# whatif: the H100/H200 question and the FP8 cache question
"$damsim" whatif "$h" >whatif.txt 2>&1
check "whatif H100/H200: exit 0" test -s whatif.txt
check "whatif H100/H200: answers on the first lever (H200 x4 on half the GPUs)" grep -q "^Answer    H200 x4 (TP4): yes, both SLOs hold .* on 4 GPUs, was 8" whatif.txt
check "whatif H100/H200: names the cheapest option meeting both" grep -Eq "Cheapest option that meets both SLOs|It is also the cheapest that meets them" whatif.txt
check "whatif H100/H200: the answer gives TTFT and TPOT intervals under load (simulated in the draws at a lone request's 5th and 95th percentile)" grep -q "under load, 90 % (simulated in the draws of the constants at a lone request's 5th and 95th percentile, with the CI): TTFT [0-9.]* to [0-9.]* ms, TPOT [0-9.]* to [0-9.]* ms; SLOs" whatif.txt
"$damsim" whatif --json "$h" >whatif.json 2>&1
check "whatif --json H100/H200: every option simulated under load at both ends, SLOs judged there; 2 x H200 misses at both" python3 -c "
import json, math
w = json.load(open('whatif.json'))
for o in w['options']:
    u = o['under_load_at_interval_ends']
    for end in ('fast_draw', 'slow_draw'):
        x = u[end]
        assert x['ttft_s'] > 0 and x['tpot_s'] > 0 and math.isfinite(x['ttft_s']), (o['option'], x)
        assert isinstance(x['slo_met'], bool)
r = {o['option']: o['under_load_at_interval_ends'] for o in w['options']}
assert not r['H200 x2 (TP2)']['fast_draw']['slo_met'] and not r['H200 x2 (TP2)']['slow_draw']['slo_met']"
# Each end draw's figures and the CI its verdict adds are its own, and
# agree with the verdict; the 90 % interval holds both draws and the
# option's figure, its lower end above 0 (the FP8 KV example's overloaded
# options once printed "TTFT 0.00 to 160994 ms": the CI of a run 126 s
# deep taken off a stable end draw's 0.89 s, and the JSON gave that 0 as
# the fast draw's TTFT beside slo_met false)
"$damsim" whatif --json "$k" >kv.json 2>&1
for f in whatif.json kv.json; do
check "whatif --json ($f): end draws' figures agree with their SLO verdicts; the interval under load holds them, above 0" python3 -c "
import json, sys
w = json.load(open('$f'))
tol = 1 + 1e-9
for o in w['options']:
    u, l = o['under_load_at_interval_ends'], o['result']['serving']['llm']
    iv = u['interval_90']
    for end in ('fast_draw', 'slow_draw'):
        x = u[end]
        met = (x['ttft_s'] + x['ttft_ci95_s'] <= l['slo_ttft_s'] * tol and
               x['tpot_s'] + x['tpot_ci95_s'] <= l['slo_tpot_s'] * tol)
        assert x['slo_met'] == met, (o['option'], end, x)
        assert x['ttft_ci95_s'] == l['ttft_s']['at_slo_quantile_ci95'], (o['option'], x)
        for k, f in (('ttft_s', 'ttft_q_s'), ('tpot_s', 'tpot_q_s')):
            assert 0 < iv[f]['p05'] <= x[k] <= iv[f]['p95'], (o['option'], end, k, x, iv)
    for k, f in (('ttft_s', 'ttft_q_s'), ('tpot_s', 'tpot_q_s')):
        assert iv[f]['p05'] <= l[k]['at_slo_quantile'] <= iv[f]['p95'], (o['option'], f, iv)
# the speed-up's interval is of the speed-up under load: the envelope of
# the option's own and its mean latency's ratio to the baseline's in each
# end draw (the lone request's ratio, 4.770x to 4.771x, was none of them)
b = w['options'][0]['under_load_at_interval_ends']
for o in w['options'][1:]:
    if 'speedup' not in o:
        continue
    u, s = o['under_load_at_interval_ends'], o['speedup_over_uncertain_inputs']
    r = [b[e]['mean_latency_s'] / u[e]['mean_latency_s'] for e in ('fast_draw', 'slow_draw')]
    want = (min(r + [o['speedup']]), max(r + [o['speedup']]))
    assert s['under_load_end_draws'] and 'share_of_draws_faster' not in s, s
    assert abs(s['p05'] - want[0]) <= 1e-9 * want[0] and abs(s['p95'] - want[1]) <= 1e-9 * want[1], (o['option'], s, want)
"
done
"$damsim" whatif "$k" >kv.txt 2>&1
check "whatif FP8 KV: no interval under load starts at 0 ms" sh -c "! grep -q 'TTFT 0.00 to' kv.txt"
check "whatif FP8 KV: the FP8 cache works" grep -q "^Answer    FP8 KV cache: yes" kv.txt
check "whatif FP8 KV: says what the cache holds and runs" grep -q "a cache of 1.02M tokens per replica (was 508k)" kv.txt
check "whatif FP8 KV: the doubled cache is room for twice the sequences; fewer run once the backlog is gone" grep -q "a cache of 1.02M tokens per replica (was 508k): room for 25[0-9] sequences of mean length (was 12[0-9]), [0-9.]* running on average (was 1[0-9][0-9])" kv.txt
check "whatif FP8 KV: the baseline is bound by the cache" grep -q "^Binding   KV-cache capacity" kv.txt
code "whatif --lever kv_cache=fp8 on the command line" 0 "$damsim" whatif "$k" --lever kv_cache=fp8 --replications 1 --steps 600
"$damsim" whatif "$h" --lever tensor_parallel=3 --replications 1 --steps 300 >tp3.txt 2>&1
check "whatif --lever tensor_parallel=3: a failed row saying why" grep -q "tensor-parallel degree 3 does not divide its 64 heads" tp3.txt

# plan: the two objectives (few requests: the command, not the numbers)
"$damsim" plan "$h" --slo-ttft-ms 500 --slo-tpot-ms 50 --rate 5 --steps 400 --replications 2 >plan.txt 2>&1
check "plan --slo-ttft-ms/--slo-tpot-ms: exit 0" test -s plan.txt
check "plan: names a plan that was re-simulated" grep -q "re-simulated with other random numbers" plan.txt
check "plan: fewest GPUs per kind, H100 and H200" sh -c "grep -q '^  H100-SXM5-80GB' plan.txt && grep -q '^  H200-SXM-141GB' plan.txt"
check "plan: the highest rate of the scenario's deployment" grep -q "^Highest rate" plan.txt
# the header promises each simulated p99 with its 95 % confidence interval:
# the answer and every simulated row print one beside TTFT and TPOT
check "plan: the answer's and every simulated row's TTFT and TPOT carry their +- 95 % CI" python3 -c "
import re
t = open('plan.txt').read()
assert 'with its 95 % confidence interval, +-' in t, t[:400]
ans = [l for l in t.splitlines() if l.startswith('Answer ')][0]
assert re.search(r'TTFT [0-9.]+ \+- [0-9.]+ ms, TPOT [0-9.]+ \+- [0-9.]+ ms', ans), ans
rows = t.split('tok/s/GPU')[1].split('Highest rate')[0].splitlines()
sim = [l for l in rows if re.match(r'\S+ +[0-9]+ +[0-9]+ +[0-9]+ ', l)]
assert sim and all(l.count('+-') == 2 for l in sim), sim
"
"$damsim" plan "$k" --rate 2 --steps 300 --replications 2 --json >plan.json 2>&1
check "plan --json (objectives from the file)" python3 -c "
import json
p = json.load(open('plan.json'))
assert p['slo_ttft_s'] == 2.0 and p['slo_tpot_s'] == 0.06 and p['rate_per_s'] == 2
assert any(o['feasible'] for o in p['options'])
# the plan named was re-simulated at the rate it plans for, with headroom
assert p['confirmed'] and abs(p['confirmed_at_rate_per_s'] - 2 * (1 + p['headroom'])) < 1e-9, p.get('confirmed_at_rate_per_s')
"
code "plan --slo-ttft-ms -5: 2" 2 "$damsim" plan "$h" --slo-ttft-ms -5
code "plan --slo-tpot-ms abc: 2" 2 "$damsim" plan "$h" --slo-tpot-ms abc
code "plan --slo-p99-ms on an LLM scenario: 2" 2 "$damsim" plan "$h" --slo-p99-ms 100
code "plan --slo-ttft-ms on a non-LLM serving scenario: 2" 2 "$damsim" plan "$src/scenarios/resnet50-serving-l4.cfg" --slo-ttft-ms 100

# a request trace, and bad ones
cp "$src/tests/data/llm/llm-trace.cfg" "$src/tests/data/llm/requests.csv" .
check "run: a request trace" "$damsim" run llm-trace.cfg
# work estimated before the requests are read (cli/work.c)
code "run: a request trace past --max-work" 2 "$damsim" run llm-trace.cfg --max-work 10
code "whatif: a request trace past --max-work" 2 "$damsim" whatif llm-trace.cfg --max-work 10
"$damsim" run llm-trace.cfg >trace.txt 2>&1
check "run: the trace's requests are measured" grep -q "from the trace requests.csv" trace.txt
bad() { # description, trace text, expected first stderr line
    what=$1; text=$2; want=$3
    printf '%s' "$text" >requests.csv
    "$damsim" run llm-trace.cfg >out.txt 2>err.txt
    got=$?
    if [ "$got" -eq 2 ] && [ ! -s out.txt ] && [ "$(head -n 1 err.txt)" = "$want" ]; then
        echo "PASS: bad trace: $what"; pass=$((pass + 1))
    else
        echo "FAIL: bad trace: $what: exit $got, stderr:"; cat err.txt; fail=$((fail + 1))
    fi
}
bad "a word for tokens" 'arrival_s,input_tokens,output_tokens
0.0,100,10
0.5,many,10
' "requests.csv:3: error: expected input tokens, got \"many\""
bad "two fields" '0.0,100,10
0.5,100
' "requests.csv:2: error: expected 3 fields (arrival_s, input_tokens, output_tokens), got 2"
bad "time going back" '1.0,100,10
0.5,100,10
' "requests.csv:2: error: arrival times must not decrease: 0.5 after 1 (line 1)"
bad "a prompt over input_max" '0.0,4001,10
' "requests.csv:1: error: input tokens 4001 exceed llm.input_max (4000), which the KV-cache plan is sized for"
bad "no requests" '# empty
' "requests.csv: error: the request trace holds no requests"
rm -f requests.csv
code "run: a missing trace: 2" 2 "$damsim" run llm-trace.cfg
# not a regular file: refused at once (they used to hang the reader)
mkfifo requests.csv
check "run: a FIFO as the request trace is refused with file: error, exit 2" sh -c "timeout 60 '$damsim' run llm-trace.cfg >out.txt 2>err.txt; [ \$? -eq 2 ] && grep -q '^requests.csv: error: cannot read the request trace: a FIFO, not a regular file' err.txt"
rm -f requests.csv
ln -s /dev/zero requests.csv
check "run: /dev/zero as the request trace is refused with file: error, exit 2" sh -c "timeout 60 '$damsim' run llm-trace.cfg >out.txt 2>err.txt; [ \$? -eq 2 ] && grep -q '^requests.csv: error: cannot read the request trace: a device, not a regular file' err.txt"
rm -f requests.csv

# bad llm groups are caught at load
cat >bad.cfg <<'EOF'
scenario: { name = "b"; question = "q"; mode = "serving"; };
machine: { gpu = "A100-SXM4-80GB"; gpus_per_node = 4;
  host: { cpu_cores = 8; pcie_gbs = 25.0; };
  storage: { kind = "local_nvme"; read_gbs = 1.0; latency_ms = 0.1; }; };
workload: { model = "llama3-70b"; precision = "bf16"; batch_size = 1; };
serving: { arrival = "poisson"; rate_per_s = 1.0; };
llm: { input_tokens = 100; output_tokens = 10; tp = 8; weights = "fp8";
       slo_ttft_ms = 100; slo_tpot_ms = 10; max_seqs = 4096; };
EOF
"$damsim" check bad.cfg >out.txt 2>err.txt
got=$?
if [ "$got" -eq 2 ] && grep -q "bad.cfg:7: error: 'llm.tp' (8) must fit in one node" err.txt &&
   grep -q "bad.cfg:8: error: 'llm.max_seqs' (4096) must not exceed llm.token_budget (2048)" err.txt &&
   grep -q "error: 'llm.weights' = \"fp8\" needs fp8 tensor cores, which A100-SXM4-80GB lacks" err.txt; then
    echo "PASS: check: an llm group's errors with their lines"; pass=$((pass + 1))
else
    echo "FAIL: check: an llm group's errors (exit $got):"; cat err.txt; fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
