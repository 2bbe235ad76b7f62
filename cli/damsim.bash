# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for damsim: commands, each command's options, catalog
# ids after --lever gpu= and --vary/--explore machine.gpu=, lever keys and
# scenario keys (from `damsim catalog levers --json` and `damsim catalog
# keys`, so they follow the binary), and scenario files. Installed as
# share/bash-completion/completions/damsim (loaded on first use); needs the
# bash-completion package (sh build.sh installs it).
_damsim()
{
    local cur prev words cword
    _init_completion -n = || return
    local cmds="run whatif compare plan report sweep calibrate catalog check"
    local opts="--json --csv -o --output --format --analytic --seed
        --replications --steps --trace --trace-steps --trace-ranks --lever
        --combine --gpus --models --cost --max-events --max-memory --max-work --quiet
        --help --version"
    local cmd=""
    [[ $cword -gt 1 ]] && cmd=${words[1]}
    case $cmd in
    plan) opts="$opts --budget --deadline --fit --search --gpu-kinds --count
        --slo-p99-ms --slo-ttft-ms --slo-tpot-ms --rate" ;;
    sweep) opts="$opts --vary --samples --method --intervals --stats --simulate -j --jobs
        --pareto --heatmap --metric" ;;
    report) opts="$opts --explore --simulate" ;;
    calibrate) opts="$opts --fit-constant --hold-out --cross-validate" ;;
    whatif|run) opts="$opts --slo-p99-ms --slo-ttft-ms --slo-tpot-ms --rate" ;;
    esac
    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
        return
    fi
    case $prev in
    -o|--output|--trace|--gpus|--models|--pareto|--heatmap)
        _filedir; return ;;
    --format) COMPREPLY=($(compgen -W "png svg pdf" -- "$cur")); return ;;
    --method) COMPREPLY=($(compgen -W "grid random lhs" -- "$cur")); return ;;
    --intervals) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    --metric) COMPREPLY=($(compgen -W "step throughput run_time cost energy" -- "$cur")); return ;;
    --cost) COMPREPLY=($(compgen -W "gpu-hours usd kwh" -- "$cur")); return ;;
    --fit) COMPREPLY=($(compgen -W "approach1 approach2 approach3 epoch2024" -- "$cur")); return ;;
    --lever|--vary|--explore)
        case $cur in
        gpu=*|machine.gpu=*)
            local ids
            ids=$(damsim catalog gpus --json 2>/dev/null |
                  sed -n 's/.*"id": *"\([^"]*\)".*/\1/p')
            COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$ids" -- "${cur#*=}"))
            ;;
        *=*) ;;
        *)
            # lever keys (any of the three), then scenario keys
            # (group.key: --vary and --explore)
            local keys
            keys=$(damsim catalog levers --json 2>/dev/null |
                   sed -n 's/^        "name": "\([^"]*\)".*/\1/p' | sort -u)
            if [[ $prev != --lever ]]; then
                keys="$keys $(damsim catalog keys 2>/dev/null | awk '
                    /^## / { g = $2; next }
                    /^\| `/ { k = $2; gsub(/`/, "", k)
                              if (g != "scenario" && g != "catalogs")
                                  print g "." k }')"
            fi
            COMPREPLY=($(compgen -S = -W "$keys" -- "$cur"))
            compopt -o nospace
            ;;
        esac
        return ;;
    esac
    case $cmd in
    catalog)
        COMPREPLY=($(compgen -W "gpus models levers keys --json -o" -- "$cur"))
        return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    # calibrate reads measurements (CSV) or traces; the rest scenarios
    if [[ $cmd == calibrate ]]; then
        _filedir
    else
        _filedir cfg
    fi
}
complete -F _damsim damsim
