#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Output formats end to end: -o chooses the format by its extension (txt,
# json, csv, png, svg, pdf, html) and refuses any other with exit 2 and
# nothing written; --csv works on run, whatif, compare and plan with
# identifier headers; `report -o review.html` is one self-contained HTML
# file (checked strictly by html_check.py) holding every chart of the PDF;
# every format is byte-identical from one run to the next.
# usage: outputs.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
sc=$src/scenarios
check_html="python3 $src/tests/golden/html_check.py"
. "$src/tests/golden/harness.sh"
cd "$tmp" || exit 1

# -o by extension
flag=$sc/resnet50-dgx-a100.cfg
serv=$sc/resnet50-serving-l4.cfg
"$damsim" run --analytic "$flag" -o r.txt >/dev/null
check ".txt is the text report" grep -q "^Question" r.txt
"$damsim" run --analytic "$flag" -o r.json >/dev/null
check ".json is JSON without --json" python3 -m json.tool r.json
"$damsim" run --analytic "$flag" -o r.csv >/dev/null
check ".csv is CSV without --csv" sh -c "head -1 r.csv | grep -q '^scenario,file,mode,'"
for f in png svg pdf; do
    "$damsim" run --analytic "$flag" -o "r.$f" >/dev/null
    check ".$f is a chart" test -s "r.$f"
done
check ".png is a PNG" sh -c "head -c 4 r.png | grep -q PNG"
check ".pdf is a PDF" sh -c "head -c 5 r.pdf | grep -q '%PDF-'"
"$damsim" run --analytic "$flag" -o r.html >/dev/null
check ".html is a page with the run's text and charts" sh -c \
    "$check_html r.html >n.txt && [ \$(cat n.txt) -ge 2 ] && grep -q Question r.html"
for bad in x.xlsx x.docx x.jpeg x.txt.gz; do
    code "-o $bad is refused" 2 "$damsim" run --analytic "$flag" -o "$bad"
    check "and nothing is written for $bad" sh -c "! ls ${bad}* 2>/dev/null"
done
code "-o .csv with --json asks for two formats" 2 "$damsim" run --analytic "$flag" --json -o r2.csv
# the same on every command that writes a file: the bytes are the format
kind() { # file: its format as the bytes say
    case $(head -c 5 "$1") in
    '%PDF-') echo pdf ;; *PNG*) echo png ;;
    *) if grep -q '<svg' "$1" && ! grep -q '<html' "$1"; then echo svg
       elif grep -q '^<!DOCTYPE html>' "$1"; then echo html
       elif python3 -m json.tool "$1" >/dev/null 2>&1; then echo json
       elif head -1 "$1" | grep -q '^[a-z_0-9]*,[a-z_0-9,]*$'; then echo csv
       else echo txt; fi ;;
    esac
}
for cmd in whatif compare plan report; do
    case $cmd in
    compare) args="$flag $sc/iron-law-data-bound.cfg"; exts="txt json csv png svg pdf html" ;;
    plan) args="$sc/llama2-7b-pretrain.cfg --budget 1e22"; exts="txt json csv html" ;;
    report) args="$flag"; exts="png svg pdf html" ;;
    *) args="$flag"; exts="txt json csv png svg pdf html" ;;
    esac
    for e in $exts; do
        rm -f "o.$e"
        # shellcheck disable=SC2086
        "$damsim" $cmd --analytic $args -o "o.$e" >/dev/null 2>&1
        k=$( [ -s "o.$e" ] && kind "o.$e")
        check "$cmd -o o.$e writes $e (got ${k:-nothing})" test "$k" = "$e"
    done
    # shellcheck disable=SC2086
    code "$cmd -o o.xlsx is refused" 2 "$damsim" $cmd --analytic $args -o o.xlsx
    check "and $cmd writes no o.xlsx" test ! -e o.xlsx
done
code "report of measured points is refused" 2 "$damsim" report "$sc/roc-models-abc.cfg" -o pts.pdf
check "and writes no pts.pdf" test ! -e pts.pdf
code "plan -o p.png draws the plan's chart" 0 "$damsim" plan "$sc/llama2-7b-pretrain.cfg" --budget 1e22 -o p.png
check "and p.png is a PNG" sh -c "head -c 8 p.png | grep -q PNG"
code "plan --search -o p.svg draws the layout search" 0 "$damsim" plan "$sc/llama2-7b-pretrain.cfg" --search -o p.svg
check "and p.svg is an SVG" grep -q "<svg" p.svg
code "check takes no -o" 2 "$damsim" check "$flag" -o c.txt

# --csv everywhere, headers are identifiers
"$damsim" run --analytic --csv "$flag" >run.csv
check "run --csv: one header and one row" sh -c "[ \$(wc -l <run.csv) -eq 2 ]"
check "run --csv: no space in the header" sh -c "! head -1 run.csv | grep -q ' '"
check "run --csv: no nan anywhere" sh -c "! grep -qi nan run.csv"
"$damsim" run --csv --steps 2000 --replications 2 "$serv" >srv.csv
check "serving run --csv has latency percentiles and the SLO" sh -c \
    "head -1 srv.csv | grep -q 'p50_latency_s,p95_latency_s,p99_latency_s' && head -1 srv.csv | grep -q slo_p99_s,slo_attainment,slo_met"
"$damsim" whatif --analytic --csv "$flag" >w.csv
check "whatif --csv: no space in the header" sh -c "! head -1 w.csv | grep -q ' '"
check "whatif --csv: every row has the header's columns" python3 -c "
import csv,sys
rows=list(csv.reader(open('w.csv')))
sys.exit(0 if len(rows)>2 and all(len(r)==len(rows[0]) for r in rows) else 1)"
"$damsim" compare --analytic --csv "$flag" "$sc/iron-law-data-bound.cfg" >c.csv
check "compare --csv: a row per scenario" sh -c "[ \$(wc -l <c.csv) -eq 3 ]"
"$damsim" plan --csv "$sc/llama2-7b-pretrain.cfg" --budget 1e22 >p.csv
check "plan --budget --csv: a row per GPU" sh -c \
    "head -1 p.csv | grep -q '^gpu,feasible,gpus,' && [ \$(wc -l <p.csv) -gt 2 ]"

# the review as HTML: strict, self-contained, every chart of the PDF
for s in resnet50-dgx-a100 llama2-7b-pretrain resnet50-serving-l4; do
    rm -rf charts
    "$damsim" whatif "$sc/$s.cfg" -o charts >/dev/null
    n=$(ls charts | wc -l)
    # a training scenario of a transformer adds the planning page
    [ "$s" = llama2-7b-pretrain ] && n=$((n + 1))
    "$damsim" report "$sc/$s.cfg" -o "$s.html" >/dev/null
    check "$s: review.html parses strictly and stands alone" sh -c "$check_html $s.html >$s.n"
    check "$s: review.html has the summary chart and all $n charts" sh -c "[ \$(cat $s.n) -eq $((n + 1)) ]"
    check "$s: review.html shows the question" grep -q "QUESTION" "$s.html"
done
check "the review states its intervals" grep -q "90 %" resnet50-dgx-a100.html
# what does not apply is left out (issue 27): an LLM service has no
# roofline phases, no MFU and no quality
"$damsim" report "$sc/llama3-70b-h100-vs-h200.cfg" -o llm.html >/dev/null
check "llm serving review.html: no empty table" sh -c "! grep -q 'no rows' llm.html"
check "llm serving review.html: no MFU, no quality" sh -c \
    "! grep -q '<td>MFU</td>\|>quality</t[hd]>' llm.html"
check "a training review keeps its MFU and quality" sh -c \
    "grep -q '<td>MFU</td>' llama2-7b-pretrain.html && grep -q '>quality</th>' llama2-7b-pretrain.html"

# a planted defect is caught by the checker (the check can fail)
sed 's|</table>||' resnet50-dgx-a100.html >broken.html
code "html_check catches an unclosed table" 1 $check_html broken.html
sed 's|<body>|<body><img src="http://example.com/x.png">|' resnet50-dgx-a100.html >ext.html
code "html_check catches an external image" 1 $check_html ext.html

# the same input gives the same bytes, in every format
for f in pdf html png svg; do
    "$damsim" report "$flag" -o "a.$f" >/dev/null
    "$damsim" report "$flag" -o "b.$f" >/dev/null
    check "report .$f is byte-identical run to run" cmp "a.$f" "b.$f"
done
for f in png svg pdf; do
    "$damsim" whatif "$sc/llama2-7b-pretrain.cfg" -o "c.$f" >/dev/null
    "$damsim" whatif "$sc/llama2-7b-pretrain.cfg" -o "d.$f" >/dev/null
    check "chart .$f is byte-identical run to run" cmp "c.$f" "d.$f"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
