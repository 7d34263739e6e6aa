#!/usr/bin/env bash
# A one-node Slurm cluster on loopback, for the fleet's tests and benchmark: Debian's munge,
# slurmctld and slurmd started as plain processes (no systemd), with the key, configuration,
# state, spool and logs in DIR and non-default ports. Run as root (SlurmUser=root).
#   scripts/slurm_cluster.sh start DIR   starts it, waits until the node is idle and prints the
#                                        configuration's path: export SLURM_CONF=<that path>
#   scripts/slurm_cluster.sh stop DIR    stops the daemons started in DIR
# Exit codes: 0 done, 3 Slurm or munge not installed (scripts/setup.sh --with-tests installs
# them), 1 a daemon did not come up (its log is printed).
set -euo pipefail
[[ $# -eq 2 && ( "$1" == start || "$1" == stop ) ]] || { sed -n '5,9p' "$0" >&2; exit 2; }
action="$1"
dir="$(mkdir -p "$2" && cd "$2" && pwd)"

stop_pid() {
  local file="$1" pid
  [[ -f "$file" ]] || return 0
  pid="$(cat "$file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

if [[ "$action" == stop ]]; then
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
  exit 0
fi

for program in munged slurmctld slurmd sbatch sinfo squeue scontrol; do
  if ! command -v "$program" >/dev/null 2>&1 && [[ ! -x "/usr/sbin/$program" ]]; then
    echo "slurm_cluster: $program is not installed (scripts/setup.sh --with-tests installs Slurm)" >&2
    exit 3
  fi
done

mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
rm -f "$dir/munge/key"
head -c 1024 /dev/urandom >"$dir/munge/key"
chmod 400 "$dir/munge/key"
/usr/sbin/munged --force --key-file="$dir/munge/key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed"

port=$((20000 + $$ % 20000))
cpus="$(nproc)"
memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) * 8 / 10240 ))
conf="$dir/slurm.conf"
cat >"$conf" <<EOF
ClusterName=migrate-test
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
CryptoType=crypto/munge
AuthInfo=socket=$dir/munge/socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
MinJobAge=300
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$conf"
/usr/sbin/slurmctld -f "$conf"
/usr/sbin/slurmd -f "$conf"
for _ in $(seq 300); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then
    echo "$conf"
    exit 0
  fi
  sleep 0.1
done
echo "slurm_cluster: the node did not become idle" >&2
sinfo >&2 || true
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
exit 1
