#!/usr/bin/env bash
# Builds compopt with a sanitizer into its own build directory and runs the ctest suite under it;
# `make test-asan` and `make test-tsan` call this. The first error of any kind stops the test
# that hit it (halt_on_error), so a clean run means no report at all.
#   scripts/run_sanitized_tests.sh address|thread BUILD_DIR [JOBS] [ctest arguments...]
# address: ASan + UBSan (+ LeakSanitizer), every test.
# thread:  TSan; pass -R to pick the tests (the Makefile runs the Local and TCP backends).
# Suppressions (third-party code only, each justified) are in scripts/sanitizers/.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: run_sanitized_tests.sh address|thread BUILD_DIR [JOBS] [ctest args...]}
build_dir=${2:?usage: run_sanitized_tests.sh address|thread BUILD_DIR [JOBS] [ctest args...]}
jobs=${3:-$(nproc)}
shift $(($# < 3 ? $# : 3))
case $mode in
  address|thread) ;;
  *) echo "run_sanitized_tests: mode '$mode', expected address or thread" >&2; exit 2 ;;
esac
supp=$PWD/scripts/sanitizers

cmake -S . -B "$build_dir" -G Ninja -DCOMPOPT_SANITIZE="$mode" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCOMPOPT_BUILD_BENCHMARKS=OFF -DCOMPOPT_CUDA=OFF ${CMAKE_FLAGS:-}
cmake --build "$build_dir" -j "$jobs"

export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp
# SimGrid switches actor stacks by hand; its thread contexts keep every actor on a real thread,
# which the sanitizers follow (sim/backend/sim_world.cc reads this variable).
export COMPOPT_SIMGRID_CONTEXTS=thread
cd "$build_dir"
if [[ $mode == thread ]]; then
  exec ctest -j "$jobs" --output-on-failure "$@"
fi
# OpenMPI's MCA plugins are dlopened without frame pointers: only full unwinding reaches the
# libmpi frames that lsan.supp names. It is slow, so only the MPI tests get it.
status=0
ctest -j "$jobs" --output-on-failure -E '^mpi' "$@" || status=$?
ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0 ctest -j "$jobs" --output-on-failure -R '^mpi' "$@" \
  || status=$?
exit $status
