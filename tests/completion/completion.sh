#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Bash completion as a user gets it: damsim and its completion laid out as
# `cmake --install` lays them out (bin/damsim,
# share/bash-completion/completions/damsim), then a fresh interactive bash
# (no rc files, a clean environment) that loads bash-completion and lets
# its loader find damsim's completion on first use, as the first TAB does.
# Checks commands, each command's options (every long option main.c
# accepts is offered), lever and scenario keys, GPU ids and scenario files.
# Without bash-completion (sh build.sh installs it) the test is skipped
# (77), except under CI (CI=true), where that is a failure.
# usage: completion.sh DAMSIM SOURCE_DIR
damsim=$1
src=$2
bc=/usr/share/bash-completion/bash_completion
if [ ! -r "$bc" ]; then
    if [ "${CI:-}" = "true" ]; then
        echo "FAIL bash-completion is not installed (sh build.sh installs it)"
        exit 1
    fi
    echo "SKIP: bash-completion is not installed (sh build.sh installs it)"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/share/bash-completion/completions" "$tmp/work"
ln -s "$(cd "$(dirname "$damsim")" && pwd)/$(basename "$damsim")" "$tmp/bin/damsim"
cp "$src/cli/damsim.bash" "$tmp/share/bash-completion/completions/damsim"
: >"$tmp/work/a.cfg"
: >"$tmp/work/b.txt"
mkdir "$tmp/work/sub"
# every long option the command line accepts
grep -o '{"[a-z0-9-]*", *[a-z]*_argument' "$src/cli/main.c" |
    sed 's/{"\([^"]*\)".*/--\1/' >"$tmp/options"

cat >"$tmp/checks.bash" <<'CHECKS'
fails=0
# what completing the words gives, one per line, sorted
comp() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    local fn
    fn=$(complete -p damsim 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
    [ -n "$fn" ] || { echo "(no completion for damsim)"; return; }
    "$fn" damsim "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort
}
has() { # what; then the words; then --; then what must be offered
    local what=$1; shift
    local words=() w out
    while [ "$1" != -- ]; do words+=("$1"); shift; done; shift
    out=$(comp "${words[@]}")
    for w in "$@"; do
        if ! grep -qxF -- "$w" <<<"$out"; then
            echo "FAIL $what: '${words[*]}' does not offer '$w' (got: $(echo $out))"
            fails=$((fails + 1)); return
        fi
    done
    echo "ok   $what"
}
hasnt() {
    local what=$1; shift
    local words=() w out
    while [ "$1" != -- ]; do words+=("$1"); shift; done; shift
    out=$(comp "${words[@]}")
    for w in "$@"; do
        if grep -qxF -- "$w" <<<"$out"; then
            echo "FAIL $what: '${words[*]}' offers '$w'"
            fails=$((fails + 1)); return
        fi
    done
    echo "ok   $what"
}
complete -p damsim >/dev/null 2>&1 &&
    { echo "FAIL damsim's completion was there before its first use"; fails=1; }
# what the first TAB does: bash-completion's loader finds the file
_completion_loader damsim
complete -p damsim >/dev/null 2>&1 && echo "ok   loaded on first use" ||
    { echo "FAIL bash-completion's loader did not find damsim's completion"; fails=1; }

has "commands" damsim "" -- run whatif compare plan report sweep calibrate catalog check
has "a command from its start" damsim wh -- whatif
hasnt "only what matches" damsim wh -- run
has "catalog's subjects" damsim catalog "" -- gpus models levers keys
has "report --explore" damsim report a.cfg --ex -- --explore
hasnt "--explore only for report" damsim run a.cfg --ex -- --explore
has "sweep's options" damsim sweep a.cfg --va -- --vary
has "plan's options" damsim plan a.cfg --se -- --search
# every long option is offered by some command
all=""
for c in run whatif compare plan report sweep calibrate; do
    all="$all $(comp damsim "$c" a.cfg --)"
done
missing=""
while read -r o; do
    grep -qxF -- "$o" <<<"$(printf '%s\n' $all)" || missing="$missing $o"
done <"$OPTIONS"
[ -z "$missing" ] && echo "ok   every long option of main.c is offered" ||
    { echo "FAIL options not offered by any command:$missing"; fails=$((fails + 1)); }
has "GPU ids after --lever gpu=" damsim run a.cfg --lever gpu=H1 -- gpu=H100-SXM5-80GB
has "GPU ids after --explore machine.gpu=" damsim report a.cfg --explore machine.gpu=A1 -- machine.gpu=A100-SXM4-80GB
has "lever keys" damsim whatif a.cfg --lever load -- loader_workers=
has "scenario keys for --vary" damsim sweep a.cfg --vary pipeline.lo -- pipeline.loader_workers=
has "scenario keys for --explore" damsim report a.cfg --explore machine.g -- machine.gpu=
hasnt "no scenario keys for --lever" damsim run a.cfg --lever pipeline.lo -- pipeline.loader_workers=
has "formats" damsim run a.cfg -o d --format "" -- png svg pdf
has "scenario files and folders" damsim run "" -- a.cfg sub
hasnt "not other files" damsim run "" -- b.txt
has "calibrate takes any file" damsim calibrate "" -- b.txt
exit $fails
CHECKS

cd "$tmp/work" || exit 1
env -i HOME="$tmp" TERM=dumb PATH="$tmp/bin:/usr/bin:/bin" \
    XDG_DATA_DIRS="$tmp/share:/usr/share" OPTIONS="$tmp/options" \
    bash --norc --noprofile -i -c ". $bc; . $tmp/checks.bash" 2>"$tmp/err"
rc=$?
# an interactive shell without a terminal says so on stderr, and compopt
# outside a real TAB complains; anything else is shown
grep -v "cannot set terminal process group\|no job control\|compopt: not currently executing" "$tmp/err"
exit $rc
