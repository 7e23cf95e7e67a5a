#!/usr/bin/env bash
# A compiler launcher that logs how long each compile or link step took, so a build can
# say where its time goes (bench/build/run.sh). Use it as
#   cmake -DCMAKE_CXX_COMPILER_LAUNCHER=/abs/path/bench/build/time_compile.sh ...
# Each step appends "<wall seconds> <output file>" to $GPUSWEEP_COMPILE_LOG (default
# ./compile-times.txt, relative to the step's working directory) and exits as the
# compiler did.
set -uo pipefail
log=${GPUSWEEP_COMPILE_LOG:-compile-times.txt}
output=unknown
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ ${args[i]} == -o ]]; then output=${args[i + 1]:-unknown}; fi
done
start=$(date +%s%N)
"$@"
status=$?
end=$(date +%s%N)
printf '%d.%03d %s\n' $(((end - start) / 1000000000)) $((((end - start) / 1000000) % 1000)) "$output" >>"$log"
exit $status
