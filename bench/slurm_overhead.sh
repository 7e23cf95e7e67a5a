#!/usr/bin/env bash
# Per-trial overhead of running short jobs through gpusweep's SLURM backend, against
# plain SLURM on the same one-node cluster in the same run (bench/README.md):
#   array   one `sbatch --wait --array=0-(N-1)%4` (SLURM runs 4 at a time)
#   loops   4 shell loops of `sbatch --wait`, each submitting N/4 jobs one after another
#   gpusweep  `gpusweep run` of N trials, max_concurrent 4, gpus_per_trial 1, with the
#           default squeue intervals (2 s, backing off to 30 s) and with 0.5 s
# Every job is the same: one line appended to a file, on 1 of the 4 fake GPUs.
# Usage: bench/slurm_overhead.sh [N=200] [BUILD=build]   (GPUSWEEP_BINARY overrides the binary)
# Needs root and scripts/install-deps.sh --slurm; starts and stops its own cluster.
set -euo pipefail
n=${1:-200}
build=${2:-build}
root="$(cd "$(dirname "$0")/.." && pwd)"
gpusweep="${GPUSWEEP_BINARY:-$root/$build/gpusweep}"
work=$(mktemp -d /tmp/gs-slurm-bench.XXXXXX)
cluster="$work/cluster"
trap '"$root/scripts/slurm-cluster.sh" stop "$cluster"; rm -rf "$work"' EXIT
"$root/scripts/slurm-cluster.sh" start "$cluster"
# shellcheck disable=SC1091
source "$cluster/env"

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }

echo "jobs                   $n (4 at a time, 1 GPU each)"
echo "load average           $(cut -d' ' -f1-3 /proc/loadavg) before"

mkdir -p "$work/array"
start=$(now)
sbatch --wait --quiet --array="0-$((n - 1))%4" --gres=gpu:1 --output=/dev/null \
  --chdir="$work/array" --wrap 'echo "{\"loss\": $SLURM_ARRAY_TASK_ID}" >> out' >/dev/null
array=$(elapsed "$start" "$(now)")
printf 'array   (sbatch --array) %6.1f s  %6.0f ms/job\n' "$array" "$(echo "$array * 1000 / $n" | bc -l)"

mkdir -p "$work/loops"
start=$(now)
for loop in 0 1 2 3; do
  (for ((i = loop; i < n; i += 4)); do
     sbatch --wait --quiet --gres=gpu:1 --output=/dev/null --chdir="$work/loops" \
       --wrap 'echo "{\"loss\": 1}" >> out' >/dev/null
   done) &
done
wait
loops=$(elapsed "$start" "$(now)")
printf 'loops   (sbatch --wait)  %6.1f s  %6.0f ms/job\n' "$loops" "$(echo "$loops * 1000 / $n" | bc -l)"

sweep() {  # $1 name, $2 extra backend keys
  mkdir -p "$work/$1"
  cat >"$work/$1/sweep.yaml" <<YAML
name: $1
command: [/bin/sh, -c, 'echo "{\"loss\": {{x}}}" >> "\$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: random, trials: $n, seed: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
resources: {gpus_per_trial: 1, max_concurrent: 4}
backend: {type: slurm$2}
YAML
  local begin
  begin=$(now)
  (cd "$work/$1" && "$gpusweep" run sweep.yaml >/dev/null)
  elapsed "$begin" "$(now)"
}
default=$(sweep default "")
printf 'gpusweep (2 s..30 s)     %6.1f s  %6.0f ms/job\n' "$default" "$(echo "$default * 1000 / $n" | bc -l)"
fast=$(sweep fast ", poll_interval: 500ms, max_poll_interval: 5s")
printf 'gpusweep (0.5 s..5 s)    %6.1f s  %6.0f ms/job\n' "$fast" "$(echo "$fast * 1000 / $n" | bc -l)"

echo "load average           $(cut -d' ' -f1-3 /proc/loadavg) after"
printf 'ratio gpusweep/array    %.2f (default intervals), %.2f (0.5 s)\n' \
  "$(echo "$default / $array" | bc -l)" "$(echo "$fast / $array" | bc -l)"
printf 'ratio gpusweep/loops    %.2f (default intervals), %.2f (0.5 s)\n' \
  "$(echo "$default / $loops" | bc -l)" "$(echo "$fast / $loops" | bc -l)"
