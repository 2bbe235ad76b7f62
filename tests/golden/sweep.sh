#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `damsim sweep` end to end: the issue's example and its charts, the same
# bytes for any -j, JSON Lines, error rows, usage errors, Ctrl-C between
# rows, `run -`, errors located at their options.
# usage: sweep.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
. "$src/tests/golden/harness.sh"
cd "$tmp" || exit 2
flag="$src/scenarios/resnet50-dgx-a100.cfg"
llama="$src/scenarios/llama2-7b-pretrain.cfg"

check "the issue's sweep writes sweep.csv" "$damsim" sweep "$flag" \
    --vary machine.gpu=A100-SXM4-80GB,H100-SXM5-80GB \
    --vary pipeline.loader_workers=8:64:8 -o sweep.csv
check "sweep.csv: a header and 16 rows" test "$(wc -l <sweep.csv)" -eq 17
check "sweep.csv: no row failed" sh -c "! awk -F, 'NR>1 && \$NF!=\"\"' sweep.csv | grep -q ."
check "sweep.csv: H100 with 64 workers is faster than with 8" sh -c \
    "awk -F, '\$1==\"H100-SXM5-80GB\" && \$2==8 {a=\$3} \$1==\"H100-SXM5-80GB\" && \$2==64 {b=\$3} END {exit !(b < a)}' sweep.csv"

# Its charts: the time-cost front and the heat map, files or a folder.
issue="--vary machine.gpu=A100-SXM4-80GB,H100-SXM5-80GB --vary pipeline.loader_workers=8:64:8"
check "the issue's sweep with --pareto and --heatmap" "$damsim" sweep "$flag" $issue -o s2.csv --pareto front.png --heatmap heat.svg -j 2
check "--pareto wrote a PNG" sh -c "head -c 8 front.png | od -c | grep -q 'P   N   G'"
check "--heatmap wrote an SVG" grep -q "<svg" heat.svg
check "the rows are the same with charts" cmp sweep.csv s2.csv
"$damsim" sweep "$flag" $issue -o s3.csv --pareto front1.png --heatmap heat1.svg -j 1
check "charts: the same bytes for -j 1 and -j 2" sh -c "cmp front.png front1.png && cmp heat.svg heat1.svg"
check "-o DIR writes the rows and both charts" sh -c "'$damsim' sweep '$flag' $issue -o out && test -s out/sweep.csv && test -s out/pareto.png && test -s out/heatmap.png && cmp out/sweep.csv sweep.csv"
check "-o DIR --format pdf --json: JSON Lines and PDF charts" sh -c "'$damsim' sweep '$flag' $issue -o outp --format pdf --json && test -s outp/sweep.jsonl && head -c 5 outp/pareto.pdf | grep -q '%PDF' && test -s outp/heatmap.pdf"
check "-o DIR with one key: the rows and the front" sh -c "'$damsim' sweep '$flag' --vary batch_size=64,128 -o one && test -s one/pareto.png && ! test -e one/heatmap.png"
# No point fits in GPU memory and half fail (once a crash, exit 139): the
# front chart says so and draws the points as "does not fit".
check "--pareto where no point fits" sh -c "'$damsim' sweep '$llama' --vary batch_size=256,512 --vary precision=bf16,fp8 --pareto nofit.svg >/dev/null && grep -q '<svg' nofit.svg"
code "--heatmap with one varied key" 2 "$damsim" sweep "$flag" --vary batch_size=64,128 --heatmap h1.png
check "... and nothing written" sh -c "! test -e h1.png"
code "--pareto FILE.jpg" 2 "$damsim" sweep "$flag" $issue --pareto p.jpg
code "an unknown --metric" 2 "$damsim" sweep "$flag" $issue --heatmap h2.png --metric speed
check "... located at --metric" sh -c "'$damsim' sweep '$flag' $issue --heatmap h2.png --metric speed 2>&1 | grep -q '^--metric speed: error: unknown metric'"
code "-o FILE.png (rows go to .csv/.jsonl)" 2 "$damsim" sweep "$flag" $issue -o rows.png
code "-o DIR inside a missing folder: bad input, refused before any point (issue 21 item 8)" 2 "$damsim" sweep "$flag" $issue -o no/such/dir
check "... leaves no folder" sh -c "! test -e no"
code "--pareto when no point solves" 2 "$damsim" sweep "$flag" --vary batch_size=0,0 --pareto p0.png 2>/dev/null
check "... the rows are written, the chart is not" sh -c "'$damsim' sweep '$flag' --vary gpu=NOPE -o bad.csv --pareto p0.png; test -s bad.csv && ! test -e p0.png"
check "--metric throughput colours the heat map" "$damsim" sweep "$flag" $issue --heatmap ht.png --metric throughput

vary="--vary gpu=A100-SXM4-80GB,H100-SXM5-80GB --vary workload.batch_size=1:64:16 --vary pipeline.loader_workers=1:16:4:log --vary precision=bf16,fp8"
"$damsim" sweep "$llama" $vary -j 1 >j1.csv 2>/dev/null
"$damsim" sweep "$llama" $vary -j 2 >j2.csv 2>/dev/null
"$damsim" sweep "$llama" $vary -j 3 >j3.csv 2>/dev/null
check "-j 1, -j 2, -j 3: the same bytes" sh -c "cmp j1.csv j2.csv && cmp j1.csv j3.csv"
# --stats: the same rows, and on stderr the graph costs worked out and
# reused: the loader leaves the graph's cost alone, so 3 loader values x 4
# batch sizes work out 4 costs and reuse 8, on any number of threads (each
# thread works out the batch sizes it meets)
"$damsim" sweep "$flag" --vary pipeline.loader_workers=1,2,3 --vary workload.batch_size=8,16,32,64 --intervals off -j 1 --stats >st.csv 2>st.err
"$damsim" sweep "$flag" --vary pipeline.loader_workers=1,2,3 --vary workload.batch_size=8,16,32,64 --intervals off -j 1 >st0.csv 2>/dev/null
check "--stats: the same rows" cmp st.csv st0.csv
check "--stats: 12 rows, 4 graph costs worked out, 8 reused" grep -q "^damsim: sweep: 12 rows (12 solved); graph costs worked out 4, reused 8; interval draws whose device cost was reused 0$" st.err
"$damsim" sweep "$flag" --vary pipeline.loader_workers=1,2,3 --vary workload.batch_size=8,16,32,64 --intervals off -j 2 --stats >st2.csv 2>st2.err
wr=$(sed -n 's/.*worked out \([0-9]*\), reused \([0-9]*\);.*/\1 \2/p' st2.err)
check "--stats -j 2: the same rows, 12 solves counted, at least 4 worked out ($wr)" sh -c "cmp st.csv st2.csv && set -- $wr && test \$((\$1 + \$2)) -eq 12 && test \$1 -ge 4"
check "fp8 on an A100 is a row with its error" grep -q "A100-SXM4-80GB,.*,fp8,,.*not supported" j1.csv
"$damsim" sweep "$flag" --vary batch_size=64,128 --vary data.decode_ms=4,8 --simulate --steps 40 --replications 2 -j 1 >s1.csv 2>/dev/null
"$damsim" sweep "$flag" --vary batch_size=64,128 --vary data.decode_ms=4,8 --simulate --steps 40 --replications 2 -j 2 >s2.csv 2>/dev/null
check "--simulate: the same bytes for -j 1 and -j 2" cmp s1.csv s2.csv
check "--simulate: 4 rows" test "$(wc -l <s1.csv)" -eq 5
# the interval beside a simulated figure is of that figure (run's carry:
# the analytic draws scaled by simulated / analytic), so it holds it
check "--simulate: each row's step, run time and cost inside the intervals beside them" sh -c "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[\$i] = i; next }
    { for (k = 0; k < 3; k++) { c = k == 0 ? \"step_s\" : k == 1 ? \"run_time_s\" : \"cost_usd\"
        x = \$h[c]; lo = \$h[c \"_lo\"]; hi = \$h[c \"_hi\"]
        if (lo == \"\" || x + 0 < lo + 0 || x + 0 > hi + 0) bad++ } }
    END { exit bad > 0 || NR != 5 }' s1.csv"
"$damsim" sweep "$flag" --vary batch_size=64,128 --vary data.decode_ms=4,8 -j 1 >a1.csv 2>/dev/null
check "--simulate: each interval is the analytic one scaled to the simulated step (lo / step and hi / step as the analytic sweep's, to its 6 digits)" sh -c "paste -d';' s1.csv a1.csv | awk -F';' 'NR == 1 { n = split(\$1, h, \",\"); for (i = 1; i <= n; i++) c[h[i]] = i; next }
    { split(\$1, s, \",\"); split(\$2, a, \",\")
      for (k = 0; k < 2; k++) { e = k ? \"step_s_hi\" : \"step_s_lo\"
        rs = s[c[e]] / s[c[\"step_s\"]]; ra = a[c[e]] / a[c[\"step_s\"]]
        if (rs / ra > 1.00002 || ra / rs > 1.00002) bad++ }
      if (s[c[\"step_s\"]] == a[c[\"step_s\"]]) same++ }
    END { exit bad > 0 || same == NR - 1 || NR != 5 }'"
"$damsim" sweep "$llama" --vary cost.pue=1:1.5:9 --vary gpu=A100-SXM4-80GB,H100-SXM5-80GB --samples 40 --method lhs -j 1 >l1.csv
"$damsim" sweep "$llama" --vary cost.pue=1:1.5:9 --vary gpu=A100-SXM4-80GB,H100-SXM5-80GB --samples 40 --method lhs -j 2 >l2.csv
check "--method lhs: the same bytes for -j 1 and -j 2" cmp l1.csv l2.csv
check "--json: every line is a JSON object" sh -c "'$damsim' sweep '$llama' --vary batch_size=1,2,x2 --json 2>/dev/null; '$damsim' sweep '$llama' --vary workload.batch_size=0,2 --json | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'"
check "-o FILE.jsonl writes JSON Lines" sh -c "'$damsim' sweep '$llama' --vary workload.batch_size=2,4 -o r.jsonl && python3 -c 'import json; [json.loads(l) for l in open(\"r.jsonl\")]'"
code "a lever value that does not parse" 2 "$damsim" sweep "$llama" --vary batch_size=x
code "no --vary" 2 "$damsim" sweep "$llama"
code "--samples without a method" 2 "$damsim" sweep "$llama" --vary cost.pue=1:2:3 --samples 4
code "a bad --method" 2 "$damsim" sweep "$llama" --vary cost.pue=1:2:3 --samples 4 --method sobol
code "-j 0" 2 "$damsim" sweep "$llama" --vary cost.pue=1:2:3 -j 0
code "a bad scenario file" 2 "$damsim" sweep no-such.cfg --vary cost.pue=1:2:3
# work estimated before it starts (cli/work.c): refused past --max-work
"$damsim" sweep "$llama" --vary workload.batch_size=1:1000:1000 \
    --vary cost.pue=1:2:1000 --vary cost.kwh_usd=0:1:1000 >/dev/null 2>work.err
check "a 1e9-point sweep over the default --max-work: exit 2 with the estimate" \
    sh -c "[ $? -eq 2 ] && grep -q 'sweep: error: an estimated 1e+09 .*--max-work' work.err"
"$damsim" sweep "$llama" --vary cost.pue=1:2:10 --intervals off --max-work 9 >/dev/null 2>work.err
check "--max-work 9 refuses a 10-point sweep (exit 2)" \
    sh -c "[ $? -eq 2 ] && grep -q 'above the limit of 9' work.err"
check "--max-work 10 runs it" sh -c "'$damsim' sweep '$llama' --vary cost.pue=1:2:10 --intervals off --max-work 10 | wc -l | grep -q '^11$'"
# with intervals (llama2-7b's calibrated constants: `run` gives it one) a
# point is a solve and 400 draws
"$damsim" sweep "$llama" --vary cost.pue=1:2:10 --max-work 4009 >/dev/null 2>work.err
check "with intervals a point counts 401 evaluations: 4,010 over --max-work 4009, and the way out named" \
    sh -c "[ $? -eq 2 ] && grep -q '10 points x 401 evaluations (a solve and its interval draws; --intervals off: one)' work.err"
check "... --max-work 4010 runs it, with the interval columns" sh -c "'$damsim' sweep '$llama' --vary cost.pue=1:2:10 --max-work 4010 | head -1 | grep -q 'step_s_lo,step_s_hi'"
code "--max-work 0" 2 "$damsim" sweep "$llama" --vary cost.pue=1:2:3 --max-work 0
rm -f work.err

# Ctrl-C: a long sweep stopped mid-way keeps whole rows and says so.
"$damsim" sweep "$llama" --vary workload.batch_size=1:1000:1000 \
    --vary cost.pue=1:2:1000 --vary cost.kwh_usd=0:1:1000 -j 2 --max-work 1e15 \
    -o big.csv 2>int.err &
pid=$!
n=0 # interrupt once rows are flowing (at most 20 s)
while [ "$n" -lt 200 ] &&
    [ "$(cat .big.csv.*.tmp 2>/dev/null | head -c 100000 | wc -l)" -lt 2 ]; do
    sleep 0.1; n=$((n + 1))
done
kill -INT $pid
# a sweep that ignored Ctrl-C would write 1e9 rows: stop it after 20 s
k=0; while kill -0 $pid 2>/dev/null && [ "$k" -lt 200 ]; do sleep 0.1; k=$((k + 1)); done
kill -KILL $pid 2>/dev/null
wait $pid
got=$?
check "Ctrl-C exits 130" test "$got" -eq 130
# the whole rows are kept beside the final name, never under it
check "Ctrl-C: the final name is not written" test ! -e big.csv
check "Ctrl-C: the rows written are kept in big.partial.csv" test "$(wc -l <big.partial.csv)" -gt 1
check "Ctrl-C: every line is a whole row" sh -c "awk -F, 'NR==1 {n=NF} NF!=n {exit 1}' big.partial.csv && tail -c 1 big.partial.csv | od -c | grep -q '\\\\n'"
check "Ctrl-C: says how far it got and where" grep -q "interrupted.*big.partial.csv" int.err
check "Ctrl-C: no temporary file left" sh -c "! ls .big.csv.*.tmp 2>/dev/null"
rm -f big.partial.csv

check "run - reads the scenario from standard input" sh -c "'$damsim' run --analytic - <'$llama' | grep -q Binding"
check "sweep - reads it too" sh -c "'$damsim' sweep - --vary batch_size=2,4 <'$llama' | grep -q '^4,'"
"$damsim" run "$flag" --steps 30 --replications 1 --trace t.json --trace-steps 3:5 --trace-ranks 0,5:6 >/dev/null 2>&1
check "--trace-steps 3:5 --trace-ranks 0,5:6: the metadata names the subset" python3 -c "
import json; t = json.load(open('t.json')); m = t['otherData']
assert (m['first_step'], m['steps'], m['ranks'], m['of_ranks']) == (3, 3, '0,5-6', 8), m
steps = {e['args']['step'] for e in t['traceEvents'] if e.get('ph') == 'X' and e['name'] == 'forward'}
assert steps == {3, 4, 5}, steps
lanes = [e['args']['name'] for e in t['traceEvents'] if e.get('name') == 'thread_name']
assert 'node0/gpu5' in lanes and 'node0/gpu6' in lanes and 'node0/gpu1' not in lanes, lanes"
code "--trace-ranks beyond the GPUs" 2 "$damsim" run "$flag" --trace t.json --trace-ranks 99
code "a bad --trace-steps" 2 "$damsim" run "$flag" --trace t.json --trace-steps 5:2
# Errors from command-line levers and trace options name their option.
check "a bad lever value is located at its --vary" sh -c "'$damsim' sweep '$llama' --vary batch_size=0,64 2>&1 >/dev/null | grep -q '^--vary batch_size=0: error: batch_size'"
check "a bad range is located at its --vary" sh -c "'$damsim' sweep '$llama' --vary cost.pue=2:1:3 2>&1 >/dev/null | grep -q '^--vary cost.pue=2:1:3: error: HI must be'"
check "a point's failing lever: its row names --vary KEY=VALUE" sh -c "'$damsim' sweep '$flag' --vary gpu=NOPE,L4 | grep -q '^NOPE,.*,--vary gpu=NOPE: error: unknown gpu'"
check "run --lever applies the lever" sh -c "'$damsim' run '$flag' --analytic --lever gpu=H100-SXM5-80GB | grep -q '8 x H100-SXM5-80GB'"
check "run --lever errors are located too (exit 2)" sh -c "'$damsim' run '$flag' --lever gpu=NOPE 2>&1 >/dev/null | grep -q '^--lever gpu=NOPE: error: unknown gpu'; test \$? -eq 0 && ! '$damsim' run '$flag' --lever gpu=NOPE >/dev/null 2>&1"
check "whatif --lever errors the same way" sh -c "'$damsim' whatif '$flag' --lever gpu=NOPE 2>&1 >/dev/null | grep -q '^--lever gpu=NOPE: error: unknown gpu'"
check "--trace-ranks beyond the GPUs names the option" sh -c "'$damsim' run '$flag' --trace t.json --trace-ranks 99 2>&1 >/dev/null | grep -q '^--trace-ranks 99: error: traced rank 99 is not one of the 8 GPUs'"
check "--trace-steps past the run names the option" sh -c "'$damsim' run '$flag' --trace t.json --trace-steps 900:905 2>&1 >/dev/null | grep -q '^--trace-steps 900:905: error: traced step 900 is past'"
check "--intervals off: the same rows without the interval columns" sh -c "'$damsim' sweep '$flag' --vary batch_size=64,128 >on.csv && '$damsim' sweep '$flag' --vary batch_size=64,128 --intervals off >off.csv && head -1 on.csv | grep -q step_s_lo && ! grep -q step_s_lo off.csv && cut -d, -f1-9 on.csv >on.cut && cut -d, -f1-9 off.csv >off.cut && cmp on.cut off.cut"
check "--intervals takes on or off (exit 2)" sh -c "'$damsim' sweep '$flag' --vary batch_size=64 --intervals maybe 2>&1 >/dev/null | grep -q 'intervals takes on or off'; test \$? -eq 0 && ! '$damsim' sweep '$flag' --vary batch_size=64 --intervals maybe >/dev/null 2>&1"
check "--version" sh -c "'$damsim' --version | grep -q '^damsim [0-9]'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
