#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) through run-clang-tidy over compopt's own C++ sources
# (core, sim, net_models, real_backend, experiments, python/src; not the CUDA .cu files) and the
# project headers they include, using BUILD_DIR/compile_commands.json (a configured
# build: `make build` or `make test` first). Fails (exit 1) on any warning.
#   scripts/run_clang_tidy.sh [BUILD_DIR (default build)] [JOBS (default 2)]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
jobs=${2:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run_clang_tidy: jobs '$jobs', expected an integer >= 1" >&2; exit 2; }
[[ -f $build_dir/compile_commands.json ]] || {
  echo "run_clang_tidy: no $build_dir/compile_commands.json; configure first (make build)" >&2
  exit 2
}
command -v run-clang-tidy >/dev/null || { echo "run_clang_tidy: run-clang-tidy is not installed (Debian: clang-tidy)" >&2; exit 1; }

dirs="core|sim|net_models|real_backend|experiments|python/src"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
# run-clang-tidy exits non-zero only when clang-tidy itself fails; warnings are found in its output.
status=0
# Boost 1.74 turns Asio's C++20 coroutines on for g++ only (the build's compiler); clang-tidy
# parses with clang 14, which has them too (the same defines as the clang fuzz build). The Python
# module is compiled with g++'s -fno-fat-lto-objects (pybind11), which clang ignores with a warning.
run-clang-tidy -p "$build_dir" -j "$jobs" -quiet -header-filter="^$PWD/($dirs)/" \
  -extra-arg=-DBOOST_ASIO_HAS_CO_AWAIT -extra-arg=-DBOOST_ASIO_HAS_STD_COROUTINE \
  -extra-arg=-Wno-ignored-optimization-argument -extra-arg=-Wno-unused-command-line-argument \
  "^$PWD/($dirs)/.*\\.cc\$" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$log" || status=$?
warnings=$(grep -cE '^/.*: (warning|error): ' "$log" || true)
if ((status != 0 || warnings > 0)); then
  grep -E -A3 '^/.*: (warning|error): ' "$log" >&2 || tail -n 40 "$log" >&2
  echo "run_clang_tidy: $warnings finding(s), exit status $status, $((SECONDS - start)) s" >&2
  exit 1
fi
echo "run_clang_tidy: $(grep -c '"file"' "$build_dir/compile_commands.json") compile commands" \
  "filtered to $dirs, no findings, $((SECONDS - start)) s"
