#!/usr/bin/env bash
# A one-node SLURM cluster in a directory, for gpusweep's tests and benchmarks:
# munged, slurmctld and slurmd (Debian 12's slurm-wlm 22.05 and munge), with 4 fake
# GPUs as a gres. Needs root (slurmd runs jobs as their submitting user, and mknod).
#
# Usage: scripts/slurm-cluster.sh start DIR   # prints nothing; DIR/env then holds the
#                                             # variables a client needs (SLURM_CONF)
#        scripts/slurm-cluster.sh stop DIR    # stops the daemons, removes the fake GPUs
#        scripts/slurm-cluster.sh wait DIR    # waits (<= 60 s) until the node is idle
#
# What works in this sandbox (checked on Debian 12 under a container runtime):
# proctrack/linuxproc and task/none (no cgroup plugin); slurmd refuses a gres whose
# File= is a regular file and marks the node invalid for Count= without files, so the
# GPUs are character devices made with mknod (major 1, minor 3: /dev/null's numbers,
# harmless if a job opens them). slurmd then gives each job distinct
# CUDA_VISIBLE_DEVICES. There is no slurmdbd: jobs are followed with squeue (finished
# ones stay visible for MinJobAge) and gpusweep's own exit record (docs/slurm.md).
set -euo pipefail

command=${1:-}
dir=${2:-}
if [[ -z "$command" || -z "$dir" ]]; then
  echo "usage: $0 start|stop|wait DIR" >&2
  exit 2
fi

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop_pidfile() {
  local file=$1
  [[ -f "$file" ]] || return 0
  local pid
  pid=$(cat "$file" 2>/dev/null || true)
  [[ -n "$pid" ]] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}

wait_idle() {
  # shellcheck disable=SC1091
  source "$dir/env"
  for _ in $(seq 120); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
    if [[ "$state" == idle* || "$state" == mixed* || "$state" == allocated* ]]; then return 0; fi
    sleep 0.5
  done
  echo "slurm-cluster: the node did not become idle (state '${state:-unknown}'); logs in $dir/log" >&2
  tail -n 20 "$dir"/log/*.log >&2 || true
  return 1
}

start() {
  for program in munged mungekey slurmctld slurmd sbatch; do
    if ! command -v "$program" >/dev/null 2>&1 && [[ ! -x "/usr/sbin/$program" ]]; then
      echo "slurm-cluster: $program not found; run scripts/install-deps.sh --slurm" >&2
      return 1
    fi
  done
  if [[ $(id -u) -ne 0 ]]; then
    echo "slurm-cluster: needs root (slurmd, mknod)" >&2
    return 1
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  chmod 0755 "$dir"
  mkdir -p "$dir"/{munge,state,spool,log,gpu}
  chmod 0700 "$dir/munge"
  /usr/sbin/mungekey --create --keyfile="$dir/munge/munge.key" --force 2>/dev/null ||
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge/munge.key"
  /usr/sbin/munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed"

  for i in 0 1 2 3; do
    [[ -c "$dir/gpu/nvidia$i" ]] || mknod "$dir/gpu/nvidia$i" c 1 3
  done
  local host ctld_port slurmd_port cpus memory
  host=$(hostname -s)
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  # More CPUs than the machine has (config_overrides): CPU-only test jobs must not wait
  # for cores; the jobs here are short scripts.
  cpus=16
  memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2))
  cat >"$dir/gres.conf" <<EOF
NodeName=$host Name=gpu File=$dir/gpu/nvidia[0-3]
EOF
  cat >"$dir/slurm.conf" <<EOF
ClusterName=gpusweep-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
GresTypes=gpu
# Short scheduling and cleanup cycles: the test jobs last seconds.
SchedulerParameters=sched_interval=1,bf_interval=1
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory Gres=gpu:4 State=UNKNOWN
# Jobs of "high" preempt those of "debug" (the tests' preemption case); gpusweep's jobs
# say --no-requeue, so a preempted one ends PREEMPTED.
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP PriorityTier=1
PartitionName=high Nodes=$host Default=NO MaxTime=INFINITE State=UP PriorityTier=2
EOF
  cat >"$dir/env" <<EOF
export SLURM_CONF=$dir/slurm.conf
EOF
  export SLURM_CONF="$dir/slurm.conf"
  /usr/sbin/slurmctld -c -f "$dir/slurm.conf"
  /usr/sbin/slurmd -f "$dir/slurm.conf"
  wait_idle
}

stop() {
  [[ -d "$dir" ]] || return 0
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munge/munged.pid"
  rm -f "$dir"/gpu/nvidia*
}

case "$command" in
  start) start ;;
  stop) stop ;;
  wait) wait_idle ;;
  *) echo "usage: $0 start|stop|wait DIR" >&2; exit 2 ;;
esac
