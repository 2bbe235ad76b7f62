# SPDX-License-Identifier: GPL-3.0-or-later
# bash completion for damsim: commands, options, catalog ids after
# --lever gpu= and --vary machine.gpu=, and scenario files.
_damsim()
{
    local cur prev words cword
    _init_completion -n = || return
    local cmds="run whatif compare plan report sweep catalog check"
    local opts="--json --csv -o --output --format --analytic --seed
        --replications --steps --trace --trace-steps --trace-ranks --lever
        --combine --gpus --models --budget --deadline --slo-p99-ms --slo-ttft-ms --slo-tpot-ms --rate
        --cost --max-events --max-memory --max-work --quiet --help --version"
    local sweep_opts="--vary --samples --method --intervals --simulate -j --jobs
        --pareto --heatmap --metric"
    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$cmds $opts" -- "$cur"))
        return
    fi
    case $prev in
    -o|--output|--trace|--gpus|--models|--pareto|--heatmap)
        _filedir; return ;;
    --format) COMPREPLY=($(compgen -W "png svg pdf" -- "$cur")); return ;;
    --method) COMPREPLY=($(compgen -W "grid random lhs" -- "$cur")); return ;;
    --intervals) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
    --metric) COMPREPLY=($(compgen -W "step throughput run_time cost energy" -- "$cur")); return ;;
    --lever|--vary)
        case $cur in
        gpu=*|machine.gpu=*)
            local ids
            ids=$(damsim catalog gpus --json 2>/dev/null |
                  sed -n 's/.*"id": *"\([^"]*\)".*/\1/p')
            COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$ids" -- "${cur#*=}"))
            ;;
        *)
            COMPREPLY=($(compgen -S = -W "gpu gpus gpus_per_node nodes quantize
                precision prune loader_workers prefetch_factor pin_memory
                overlap_transfer overlap_sync bucket_mb chinchilla fuse
                cuda_graphs sharded decode_on_gpu batch_size distill replicas
                max_batch batch_timeout_ms preprocess_workers machine.gpu
                machine.nodes workload.batch_size workload.precision
                pipeline.loader_workers data.decode_ms cost.gpu_hour_usd" -- "$cur"))
            compopt -o nospace
            ;;
        esac
        return ;;
    esac
    case ${words[1]} in
    catalog) COMPREPLY=($(compgen -W "gpus models --json" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        [[ ${words[1]} == sweep ]] && opts="$opts $sweep_opts"
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    _filedir cfg
}
complete -F _damsim damsim
