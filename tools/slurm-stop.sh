#!/usr/bin/env bash
# Stops the one-node Slurm cluster tools/slurm-start.sh started: cancels every job and waits
# for them to go (a dead slurmd leaves job steps alive), then stops slurmd, slurmctld and
# munged by the pids in their pid files, never by name. Stopping what is not running is fine.
set -uo pipefail

STATE=${DAMKA_SLURM_DIR:-/var/tmp/damka-slurm}
DEADLINE_S=30

say() { echo "slurm-stop: $*" >&2; }

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if alive "$STATE/ctld/slurmctld.pid"; then
    ids=$(timeout 5 squeue -h -o %i 2>/dev/null | tr '\n' ' ')
    if [ -n "${ids// /}" ]; then
        # shellcheck disable=SC2086
        timeout 5 scancel $ids || say "scancel failed"
        end=$((SECONDS + DEADLINE_S))
        while [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]; do
            if [ $SECONDS -ge $end ]; then
                say "jobs still listed after ${DEADLINE_S} s; stopping anyway"
                break
            fi
            sleep 0.5
        done
    fi
fi

# Stops the process whose pid is in file $1: TERM, wait, then KILL.
stop() {
    local file=$1 pid end
    alive "$file" || return 0
    pid=$(cat "$file")
    kill -TERM "$pid" 2>/dev/null || return 0
    end=$((SECONDS + 15))
    while kill -0 "$pid" 2>/dev/null; do
        if [ $SECONDS -ge $end ]; then
            say "pid $pid ($file) ignored TERM; killing it"
            kill -KILL "$pid" 2>/dev/null
            break
        fi
        sleep 0.2
    done
}

stop "$STATE/d/slurmd.pid"
stop "$STATE/ctld/slurmctld.pid"
stop /run/munge/munged.pid
say "stopped"
