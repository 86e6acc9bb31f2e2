#!/usr/bin/env bash
# Installs (if needed) and starts a one-node Slurm cluster on this machine, as
# tools/README.md ("One-node Slurm for tests") describes: Debian packages, no systemd, munge
# authentication.
#
# Usage: tools/slurm-start.sh            (as root)
# State (spool, logs, pid files) goes to $DAMKA_SLURM_DIR, default /var/tmp/damka-slurm; the
# configuration to /etc/slurm/slurm.conf (refused if one exists that this script did not
# write). Stop it with tools/slurm-stop.sh.
#
# Exit codes: 0 running (started now or already), 3 Slurm cannot be installed here (not root,
# or apt failed: callers may skip), 1 anything else (installed but does not start).
set -euo pipefail

STATE=${DAMKA_SLURM_DIR:-/var/tmp/damka-slurm}
CONF=/etc/slurm/slurm.conf
MARK="# written by damka tools/slurm-start.sh"
NODE=node1
DEADLINE_S=60

say() { echo "slurm-start: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
    say "must run as root (installs packages, starts daemons)"
    exit 3
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
    ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurmctld slurmd slurm-client munge"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get update -q >&2 ||
        ! apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client munge >&2; then
        say "apt-get could not install the Slurm packages"
        exit 3
    fi
fi

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

node_idle() {
    local s
    s=$(timeout 5 sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
    [ "$s" = idle ] || [ "$s" = mixed ] || [ "$s" = allocated ]
}

if alive "$STATE/ctld/slurmctld.pid" && alive "$STATE/d/slurmd.pid" && node_idle; then
    say "already running (state in $STATE)"
    exit 0
fi

if [ -e "$CONF" ] && ! head -n 1 "$CONF" | grep -qF "$MARK"; then
    say "$CONF exists and was not written by this script; not touching it"
    exit 1
fi

# munge: key, run directory, daemon as the munge user.
mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge /etc/munge/munge.key /run/munge /var/log/munge /var/lib/munge
chmod 0700 /etc/munge
chmod 0400 /etc/munge/munge.key
chmod 0755 /run/munge
if ! alive /run/munge/munged.pid; then
    runuser -u munge -- munged
fi

# Slurm: state directories and configuration.
mkdir -p "$STATE/ctld" "$STATE/d" /etc/slurm
chown slurm:slurm "$STATE/ctld"
HOST=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
cat >"$CONF" <<EOF
$MARK
ClusterName=ci
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$STATE/ctld/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
DependencyParameters=kill_invalid_depend
MinJobAge=600
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/ctld/slurmctld.pid
SlurmdPidFile=$STATE/d/slurmd.pid
SlurmctldLogFile=$STATE/ctld/slurmctld.log
SlurmdLogFile=$STATE/d/slurmd.log
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=ci Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF

alive "$STATE/ctld/slurmctld.pid" || slurmctld
alive "$STATE/d/slurmd.pid" || slurmd -N "$NODE"

end=$((SECONDS + DEADLINE_S))
until node_idle; do
    if [ $SECONDS -ge $end ]; then
        say "node $NODE not idle after ${DEADLINE_S} s; logs in $STATE/ctld and $STATE/d"
        timeout 5 sinfo >&2 || true
        exit 1
    fi
    sleep 0.5
done
say "running: node $NODE, $CPUS CPUs, ${MEM_MB} MB (state in $STATE)"
