# bash completion for vmreplay(1)                          -*- shell-script -*-
#
# Subcommands; each subcommand's options, read from its --help (so they
# follow the binary being completed, installed or in a build directory);
# policy names from `vmreplay run --list-policies` and mglru+SWITCH
# compositions from `run --help`; swap and file-device presets; formats;
# files, directories and, after capture's options, a command.

# The switches that compose with mglru, from the policy list of run --help
# ("mglru+SWITCH[+SWITCH...]  any composition, in any order, of: a (= …), b, …").
_vmreplay_switches()
{
    "$1" run --help 2>/dev/null |
        sed -n '/^ *mglru+SWITCH/,/^$/p' | tr '\n' ' ' |
        sed -e 's/.* of://' -e 's/([^)]*)//g' | tr ', ' '\n\n' |
        grep -E '^[a-z][a-z0-9.-]*$'
}

# Policy names, and for a word "mglru+a+…" the switches it does not have yet.
_vmreplay_policies()
{
    local bin=$1 cur=$2 sw prefix used words
    words=$("$bin" run --list-policies 2>/dev/null | cut -f1)
    if [[ $cur == mglru+* ]]; then
        prefix=${cur%+*}
        used="+${prefix#mglru}+"
        for sw in $(_vmreplay_switches "$bin"); do
            [[ $used == *"+$sw+"* ]] || words+=" $prefix+$sw"
        done
    fi
    COMPREPLY=($(compgen -W "$(printf '%s\n' $words | sort -u)" -- "$cur"))
}

# Device presets of run --help ("Devices:" up to the blank line).
_vmreplay_devices()
{
    "$1" run --help 2>/dev/null | sed -n '/^Devices:/,/^$/p' |
        sed -nE 's/^  ([a-z][a-z0-9-]*) .*/\1/p'
}

_vmreplay()
{
    local cur prev words cword split
    _init_completion -s || return

    local bin=${words[0]} sub="" i j
    for ((i = 1; i < cword; i++)); do
        if [[ ${words[i]} != -* ]]; then
            sub=${words[i]}
            break
        fi
    done

    if [[ -z $sub ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '-V --version -h --help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null |
                sed -nE '/^Subcommands:/,/^$/s/^  ([a-z]+) .*/\1/p')" -- "$cur"))
        fi
        return
    fi

    # compare: after --, the options of run.
    local runopts=0
    if [[ $sub == compare ]]; then
        for ((j = i + 1; j < cword; j++)); do
            [[ ${words[j]} == -- ]] && runopts=1 && break
        done
    fi
    # capture: after -- or its first operand, a command line.
    if [[ $sub == capture ]]; then
        local skip=0
        for ((j = i + 1; j < cword; j++)); do
            if ((skip)); then
                skip=0
                continue
            fi
            case ${words[j]} in
            --) _command_offset $((j + 1)); return ;;
            -o | --output | -l | --limit | -s | --swappiness | --swap | --swap-dir | \
                -p | --period | --stat-period | --agent-nice | --soft-dirty | --young-ms | --damon-intervals | --buffer-kb | -k | --kernel | \
                --guest-mem | --lru-gen | --convert) skip=1 ;;
            -*) ;;
            *) _command_offset $j; return ;;
            esac
        done
    fi
    local cmd=$sub
    ((runopts)) && cmd=run

    # -n is a value only for run (--pages) and analyze (--slowest).
    [[ $prev == -n && $cmd != run && $cmd != analyze ]] && prev=""
    case $prev in
    -p | --policy)
        [[ $cmd == run || $cmd == compare || $cmd == validate ]] && { _vmreplay_policies "$bin" "$cur"; return; }
        ;;
    --swap)
        if [[ $cmd == capture ]]; then
            COMPREPLY=($(compgen -W 'auto device file file: zram zram: ubd ubd: delay delay:' -- "$cur"))
            [[ $cur == *: ]] || compopt -o nospace 2>/dev/null
            [[ ${COMPREPLY[*]} == *:* ]] || compopt +o nospace 2>/dev/null
        else
            COMPREPLY=($(compgen -W "$(_vmreplay_devices "$bin")" -- "$cur"))
        fi
        return
        ;;
    -k | --kernel)
        if [[ $cmd == capture ]]; then
            COMPREPLY=($(compgen -W '6.12 6.1' -- "$cur") $(compgen -f -- "$cur"))
            return
        fi
        ;;
    --lru-gen)
        COMPREPLY=($(compgen -W 'y n' -- "$cur"))
        return
        ;;
    --file-device)
        COMPREPLY=($(compgen -W "$(_vmreplay_devices "$bin" | grep -vx none)" -- "$cur"))
        return
        ;;
    -f | --format)
        local fmts
        case $cmd in
        ingest) fmts='text json' ;;
        stats) fmts='tsv json text markdown latex' ;;
        *) fmts='text tsv json' ;;
        esac
        COMPREPLY=($(compgen -W "$fmts" -- "$cur"))
        return
        ;;
    -o | --out | --output | --events | --timeline | --tasks)
        case $cmd in
        capture | plot) _filedir -d ;;
        *) _filedir ;;
        esac
        return
        ;;
    -d | --dir | -O | --out-dir | --scripts | --swap-dir | --convert)
        _filedir -d
        return
        ;;
    -s | --swappiness | -m | --memory | -n | --pages | --memory-limit | --node-memory | \
        --seed | --deadline | -j | --jobs | --chunk | --sbatch | --at | --conf | --alpha | \
        --baseline | --metric | -l | --limit | --period | --stat-period | --agent-nice | --soft-dirty | --young-ms | --damon-intervals | --buffer-kb | \
        --slowest)
        return   # a value of the user's own
        ;;
    esac
    $split && return

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_parse_help "$bin" "$cmd --help")" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    case $sub in
    # trace directories, and trace-cmd's trace.dat (ingest, run, compare, analyze)
    ingest) _filedir dat ;;
    stats | plot | validate) _filedir -d ;;
    sweep) _filedir sweep ;;
    run | compare | analyze) _filedir '@(vmr|tsv|dat)' ;;
    esac
} &&
    complete -F _vmreplay vmreplay

# ex: filetype=sh
