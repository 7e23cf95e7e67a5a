#!/usr/bin/env bash
# Installs every Debian 12 package gpusweep needs to build, test and run its examples.
# Idempotent: does nothing (and needs no network) when all packages are present.
# Usage: scripts/install-deps.sh [--extras-only] [--examples] [--cpp-sdk] [--bench] [--tests] [--slurm]
#   --extras-only: only the packages of the options named, not what the binary needs, and
#   no npm (scripts/run-example.sh installs the example's packages this way while the
#   binary builds).
#   With no option: what building and running the gpusweep binary needs (the compiler,
#   its libraries, node + npm for the dashboard bundle compiled into it, python3 for the
#   trial helper) and nothing else.
#   --examples adds PyTorch and Fashion-MNIST; --bench adds Optuna, python3-cmaes (its
#   CmaEsSampler) and scikit-learn (side-by-side benchmarks; Boost is Debian's default
#   1.74 so that python3-scipy, through python3-pythran, can be installed beside it);
#   --cpp-sdk adds LibTorch, zlib and Fashion-MNIST for the C++ SDK's optional `fit`
#   component and examples/cpp-fashion-mnist;
#   --tests adds the test tools (GoogleTest, Chromium + chromedriver + Selenium for the
#   dashboard's browser tests, clang-14 for the libFuzzer targets) and what optional
#   tests use (Optuna, to load `export --format optuna` and as the independent hypervolume
#   in tests/hypervolume_optuna_test.py;
#   everything of --cpp-sdk, whose tests build and sweep the C++ example; PyTorch for
#   examples/nas-fashion-mnist's network builder and its end-to-end run; everything of
#   --slurm, whose cluster the SLURM tests start);
#   --slurm adds SLURM (slurm-wlm: slurmctld, slurmd, the client commands) and munge, for
#   scripts/slurm-cluster.sh's one-node test cluster and bench/slurm_overhead.sh
# Always: the dashboard's packages (cpp-httplib, OpenCV's ml module for the importance
# forest) and its npm packages (`npm ci` in web/ from web/package-lock.json, when that
# lockfile changed).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libsqlite3-dev libcli11-dev libfmt-dev
  libexpected-dev libkainjow-mustache-dev libboost-dev
  python3
  libcpp-httplib-dev libopencv-ml-dev
  libeigen3-dev libnlopt-dev  # samplers: CMA-ES's eigendecomposition; gp's Cholesky and L-BFGS
)
test_tools=(
  libgtest-dev libgmock-dev
  chromium chromium-driver python3-selenium  # the dashboard's headless-browser tests
  clang-14 libclang-rt-14-dev  # fuzz/: libFuzzer targets, 30 s of each in the test suite
)
# Debian's nodejs/npm, unless a node with npm is installed already (e.g. NodeSource's).
have_npm=0
if command -v npm >/dev/null 2>&1; then have_npm=1; else packages+=(nodejs npm); fi
extras_only=0
for flag in "$@"; do [[ $flag == --extras-only ]] && extras_only=1; done
if ((extras_only)); then packages=(); fi
for flag in "$@"; do
  case "$flag" in
    --extras-only) ;;
    --examples) packages+=(python3-torch python3-numpy dataset-fashion-mnist) ;;
    --bench) packages+=(python3-optuna python3-numpy bc liblbfgsb0 python3-decorator python3-cmaes
             python3-sklearn) ;;
    --cpp-sdk) packages+=(libtorch-dev zlib1g-dev dataset-fashion-mnist) ;;
    --tests) packages+=("${test_tools[@]}" python3-optuna libtorch-dev zlib1g-dev dataset-fashion-mnist
                        python3-torch python3-numpy slurm-wlm munge) ;;
    --slurm) packages+=(slurm-wlm munge) ;;
    *) echo "install-deps: unknown option $flag (use --extras-only, --examples, --cpp-sdk, --bench, --tests, --slurm)" >&2; exit 2 ;;
  esac
done

# The dashboard's front-end packages, exactly as locked. npm writes
# node_modules/.package-lock.json; it is newer than the lockfile once installed. Where
# npm is on the machine already, `npm ci` (mostly download) runs while apt does.
web="$(dirname "$0")/../web"
npm_pid=""
if ((extras_only == 0)) && [[ ! "$web/node_modules/.package-lock.json" -nt "$web/package-lock.json" ]]; then
  if ((have_npm)); then
    echo "install-deps: npm ci in web/ (beside apt)" >&2
    (cd "$web" && npm ci --no-audit --no-fund --loglevel=error) &
    npm_pid=$!
    trap '[[ -n $npm_pid ]] && kill "$npm_pid" 2>/dev/null' EXIT  # apt failed: npm stops too
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -q
  # Earlier versions of this script installed libboost1.81-dev, which conflicts with
  # Debian's default Boost (libboost-dev, 1.74) that python3-scipy needs through
  # python3-pythran: replace it in the same transaction (a trailing '-' removes).
  replace=()
  if dpkg-query -W -f='${Status}' libboost1.81-dev 2>/dev/null | grep -q "install ok installed"; then
    replace=(libboost1.81-dev-)
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" "${replace[@]}"
fi

if [[ -n $npm_pid ]]; then
  status=0
  wait "$npm_pid" || status=$?
  npm_pid=""
  if ((status != 0)); then echo "install-deps: npm ci in web/ failed" >&2; exit 1; fi
elif ((extras_only == 0)) && [[ ! "$web/node_modules/.package-lock.json" -nt "$web/package-lock.json" ]]; then
  echo "install-deps: npm ci in web/" >&2
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
fi
