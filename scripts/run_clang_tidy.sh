#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) through run-clang-tidy over compopt's own C++ sources
# (core, sim, net_models, real_backend, experiments, python/src; not the CUDA .cu files) and the
# project headers they include, using BUILD_DIR/compile_commands.json (a configured
# build: `make build` or `make test` first). Fails (exit 1) on any warning.
# With --since REV only the sources that changed since REV, or include a file that did, are
# checked (scripts/tidy_changed_sources.py; everything when REV is unknown or .clang-tidy
# changed): CI passes the commit recorded in .ci/tidy-clean-at, where a full run was clean.
# A full run on a clean work tree with --record writes HEAD there.
#   scripts/run_clang_tidy.sh [BUILD_DIR (default build)] [JOBS (default 2)] [--since REV | --record]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
jobs=${2:-2}
mode=${3:-} since=${4:-}
case "$mode" in
  "" | --record) ;;
  --since) [[ -n $since ]] || { echo "run_clang_tidy: --since needs a revision" >&2; exit 2; } ;;
  *) echo "run_clang_tidy: '$mode', expected --since REV or --record" >&2; exit 2 ;;
esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run_clang_tidy: jobs '$jobs', expected an integer >= 1" >&2; exit 2; }
[[ -f $build_dir/compile_commands.json ]] || {
  echo "run_clang_tidy: no $build_dir/compile_commands.json; configure first (make build)" >&2
  exit 2
}
command -v run-clang-tidy >/dev/null || { echo "run_clang_tidy: run-clang-tidy is not installed (Debian: clang-tidy)" >&2; exit 1; }

dirs="core|sim|net_models|real_backend|experiments|python/src"
files="^$PWD/($dirs)/.*\\.cc\$"
if [[ $mode == --since ]]; then
  selected=$(/usr/bin/python3 scripts/tidy_changed_sources.py "$build_dir" "$since")
  if [[ $selected != ALL ]]; then
    selected=$(grep -E "$files" <<<"$selected" || true)
    [[ -n $selected ]] || { echo "run_clang_tidy: no source changed since $since"; exit 0; }
    echo "run_clang_tidy: $(wc -l <<<"$selected") source(s) changed since $since (or include a changed file)"
    files="^($(sed 's/[.+]/\\&/g' <<<"$selected" | paste -sd'|'))\$"
  fi
fi
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
  "$files" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$log" || status=$?
warnings=$(grep -cE '^/.*: (warning|error): ' "$log" || true)
if ((status != 0 || warnings > 0)); then
  grep -E -A3 '^/.*: (warning|error): ' "$log" >&2 || tail -n 40 "$log" >&2
  echo "run_clang_tidy: $warnings finding(s), exit status $status, $((SECONDS - start)) s" >&2
  exit 1
fi
echo "run_clang_tidy: $(grep -c '"file"' "$build_dir/compile_commands.json") compile commands" \
  "filtered to $dirs${since:+, changed since $since}, no findings, $((SECONDS - start)) s"
if [[ $mode == --record ]]; then
  [[ -z $(git status --porcelain) ]] || { echo "run_clang_tidy: work tree not clean, nothing recorded" >&2; exit 1; }
  git rev-parse HEAD >.ci/tidy-clean-at
  echo "run_clang_tidy: recorded $(cat .ci/tidy-clean-at) in .ci/tidy-clean-at (commit it)"
fi
