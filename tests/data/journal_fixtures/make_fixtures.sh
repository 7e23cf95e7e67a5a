#!/usr/bin/env bash
# Regenerates the journal fixtures of tests/journal_fixture_test.cc with a gpusweep
# binary of the previous release (README.md here says which commit and how to build it).
# Each kind (sweep, asha, cv, nas) is run twice with that binary:
#   - stopped part-way: a `hang` file beside sweep.yaml makes some trials sleep, and
#     gpusweep is killed (kill -9, or SIGINT for cv) once finished, hung and
#     not-yet-started trials all exist; its sweep.yaml and experiment directory are the
#     fixture (output logs dropped: resume does not read them);
#   - without the hang file, to the end: its trials are expected.tsv (number, state,
#     objective, params), what a resumed run must end with.
# Usage: tests/data/journal_fixtures/make_fixtures.sh OLD_GPUSWEEP [OUT_DIR]
# Needs sqlite3 (the CLI) to watch the journal and to checkpoint its WAL.
set -euo pipefail
set -m  # background jobs in their own process group, SIGINT not ignored
old=$(realpath "$1")
out=$(realpath -m "${2:-$(dirname "$0")}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

config_sweep() {  # grid of 8; a >= 4 hangs: trials 0-2 finish, 3 and 4 hang, 5-7 wait
  cat <<'YAML'
name: sweep
command: [/bin/sh, -c, 'echo {{trial.number}} >> {{config_dir}}/starts; echo "{\"step\": 1, \"acc\": 0.{{a}}}" >> "$GPUSWEEP_METRICS"; if [ {{a}} -ge 4 ] && [ -f {{config_dir}}/hang ]; then touch {{config_dir}}/hung-{{trial.number}}; sleep 300; fi; echo "{\"step\": 2, \"acc\": 0.$(( {{a}} * 7 % 10 ))5}" >> "$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 8}
resources: {gpus: none, cpu_slots: 2}
kill_grace: 1s
YAML
}
config_asha() {  # budgeted ASHA; every job above budget 1 hangs: both slots end up hung
  cat <<'YAML'
name: asha
command: [/bin/sh, -c, 'echo "{{trial.number}} {{budget}}" >> {{config_dir}}/evals; if [ {{budget}} != 1 ] && [ -f {{config_dir}}/hang ]; then touch {{config_dir}}/hung-{{trial.number}}; sleep 300; fi; echo "{\"epoch\": {{budget}}, \"acc\": $(( {{a}} * {{budget}} ))}" >> "$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: grid}
scheduler: {type: asha, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  a: {type: int, low: 1, high: 8}
resources: {gpus: none, cpu_slots: 2}
kill_grace: 1s
YAML
}
config_cv() {  # 3 configurations x 3 folds; trials 4 and 5 hang, 6-8 wait
  cat <<'YAML'
name: cv
command: [/bin/sh, -c, 'echo {{trial.number}} >> {{config_dir}}/starts; if [ {{trial.number}} -ge 4 ] && [ -f {{config_dir}}/hang ]; then touch {{config_dir}}/hung-{{trial.number}}; sleep 300; fi; echo "{\"score\": $(( {{x}} * 10 + {{fold}} ))}" >> "$GPUSWEEP_METRICS"']
metric: {name: score, mode: max}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3]}
cv: {folds: 3}
resources: {gpus: none, cpu_slots: 2}
kill_grace: 1s
YAML
}
config_nas() {  # tests/nas_cli_test.cc's small tournament (13 evaluations); trial 6 hangs
  cat <<'YAML'
name: nas
metric: {name: acc, mode: max}
resources: {gpus: none, cpu_slots: 2}
kill_grace: 1s
command: [/bin/sh, -c, 'echo {{trial.number}} >> {{config_dir}}/starts; if [ {{trial.number}} = 6 ] && [ -f {{config_dir}}/hang ]; then touch {{config_dir}}/hung-{{trial.number}}; sleep 300; fi; echo "{\"acc\": 0.$(( ({{nas_topology}} * 3 + {{trial.number}}) % 10 ))1}" >> "$GPUSWEEP_METRICS"']
nas:
  depth: 4
  width: 1
  operations:
    conv: {filters: [8, 16], kernel: [1, 3]}
    pooling: {pool: [avg, max]}
  samples_per_round: 1
  winner_samples: 1
  data_size: {init: 100, step: 100}
  confirm: {data_size: 1000}
  seed: 3
YAML
}

count() { sqlite3 -readonly "$1" "$2" 2>/dev/null || echo -1; }
hung() { find "$1" -maxdepth 1 -name 'hung-*' | wc -l; }
# When the run may be stopped: `min_completed` trials finished (completed, or paused
# after their budget: ASHA's budgeted jobs) and `min_hung` trials hanging.
ready() {
  local dir=$1 name=$2 min_completed=$3 min_hung=$4 db=$1/runs/$2/gpusweep.db
  [ -f "$db" ] || return 1
  [ "$(hung "$dir")" -ge "$min_hung" ] || return 1
  [ "$(count "$db" "select count(*) from trials where state in ('completed', 'paused')")" -ge "$min_completed" ]
}
trials_left() {  # processes of trials under $1 still alive (the guard ends them)
  grep -lsz "GPUSWEEP_TRIAL_DIR=$1" /proc/[0-9]*/environ 2>/dev/null | wc -l
}
expected() {  # the trials of a finished run, one line each
  sqlite3 -readonly -separator $'\t' "$1" \
    "select number, state, case when objective is null then '' else printf('%.17g', objective) end, params from trials order by number"
}

make_one() {
  local kind=$1 signal=$2 min_completed=$3 min_hung=$4
  local stop=$work/$kind/stopped whole=$work/$kind/whole
  mkdir -p "$stop" "$whole"
  "config_$kind" > "$stop/sweep.yaml"
  cp "$stop/sweep.yaml" "$whole/sweep.yaml"
  touch "$stop/hang"
  (cd "$stop" && exec "$old" run sweep.yaml > "$work/$kind.stopped.log" 2>&1) &
  local pid=$!
  for _ in $(seq 600); do ready "$stop" "$kind" "$min_completed" "$min_hung" && break; sleep 0.1; done
  if ! ready "$stop" "$kind" "$min_completed" "$min_hung"; then
    kill -KILL "$pid"; cat "$work/$kind.stopped.log"; exit 1
  fi
  sleep 0.5  # let the hung trials' step-1 reports reach the journal
  kill "-$signal" "$pid"
  wait "$pid" 2>/dev/null || true  # (no "Killed" job notice)
  for _ in $(seq 100); do [ "$(trials_left "$stop/runs")" = 0 ] && break; sleep 0.1; done
  local db=$stop/runs/$kind/gpusweep.db
  # The WAL folded into the database file: the same journal in one file (an open does
  # this anyway; a kill -9 leaves it to the next one).
  sqlite3 "$db" 'pragma wal_checkpoint(truncate)' > /dev/null

  (cd "$whole" && "$old" run sweep.yaml > "$work/$kind.whole.log" 2>&1)

  rm -rf "${out:?}/$kind"
  mkdir -p "$out/$kind"
  cp "$stop/sweep.yaml" "$out/$kind/"
  (cd "$stop" && find runs -type f ! -name 'output*.log' ! -name 'gpusweep.db-*' \
     -exec cp --parents {} "$out/$kind/" \;)
  expected "$whole/runs/$kind/gpusweep.db" > "$out/$kind/expected.tsv"
  echo "$kind: stopped with SIG$signal: $(count "$db" "select group_concat(number || ' ' || state, ', ') from trials")"
}

make_one sweep KILL 3 2
make_one asha KILL 1 2
make_one cv INT 4 2
make_one nas KILL 6 1
