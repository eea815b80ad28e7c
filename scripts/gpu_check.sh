#!/usr/bin/env bash
# GPU check, for a person on a machine with an NVIDIA GPU (docs/backends.md, "GPU"):
#   1. configure with CUDA required (and NCCL when found), build the GPU targets (-Werror);
#   2. run the GPU tests (compression kernels vs CPU bit for bit; optimizer update kernels and
#      DeviceOptimizer vs core/optim, bit for bit but LAMB's norms; DeviceMlp vs the CPU MLP
#      within fp32 tolerance; hybrid mode 2-8 ranks; NCCL) and the conformance suite on the
#      hybrid backend; none of them may skip;
#   3. compute-sanitizer memcheck, racecheck and synccheck on the kernel tests, memcheck on the
#      device optimizer and MLP;
#   4. the GPU benchmark (fraction of a device-to-device copy, optimizer updates, step
#      breakdown);
#   5. compopt comm-bench on 4 hybrid ranks sharing GPU 0 (and on NCCL with >= 2 GPUs).
# Usage: scripts/gpu_check.sh [build-dir]   (default build-gpu; logs in <build-dir>/gpu-check/)
# Environment: JOBS (build parallelism), CUDA_ARCHS (default: 80-real;90), NCCL_ROOT,
#   PREBUILT=1: skip configure and build and run the binaries already in build-dir (a GPU
#   machine without the build dependencies: build there elsewhere with the same layout).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
JOBS=${JOBS:-$(nproc)}
LOG="$BUILD/gpu-check"
failures=()

step() { printf '\n=== %s\n' "$*"; }
fail() { echo "gpu_check: FAILED: $*" >&2; failures+=("$*"); }

step "GPU"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L; then
  echo "gpu_check: no NVIDIA GPU visible (nvidia-smi); run this on a GPU machine" >&2
  exit 1
fi
GPUS=$(nvidia-smi -L | grep -c '^GPU ')

HAVE_NCCL=0
if [[ "${PREBUILT:-0}" == 1 ]]; then
  step "prebuilt binaries in $BUILD"
  [[ -x "$BUILD/tests/compopt_nccl_tests" ]] && HAVE_NCCL=1
else
  step "configure and build ($BUILD)"
  cmake -S . -B "$BUILD" -G Ninja -DCOMPOPT_WERROR=ON -DCOMPOPT_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-80-real;90}" ${NCCL_ROOT:+-DNCCL_ROOT="$NCCL_ROOT"} | grep -E 'compopt:|Error' || true
  targets=(compopt_cuda_tests compopt_hybrid_tests compopt_conformance_tests compopt_gpu_bench compopt)
  if grep -q '^COMPOPT_HAVE_NCCL:INTERNAL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null || \
     ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q '^compopt_nccl_tests:'; then
    HAVE_NCCL=1
    targets+=(compopt_nccl_tests)
  fi
  cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"
fi
mkdir -p "$LOG"

# Runs a gtest binary; fails on a failure or on any skipped test (a GPU machine skips nothing).
gtest() {
  local name=$1; shift
  local out="$LOG/$name.log"
  if ! "$@" >"$out" 2>&1; then fail "$name (see $out)"; fi
  if grep -q '^\[  SKIPPED \]' "$out"; then fail "$name: tests skipped on a GPU machine: $(grep '^\[  SKIPPED \]' "$out" | head -3 | tr '\n' ' ')"; fi
  grep -E '^\[(  PASSED  |  FAILED  )\]' "$out" | sed "s/^/$name: /" || true
}

step "GPU tests"
# *WithoutDevice* covers machines without a GPU and skips here by design.
gtest cuda_tests "$BUILD/tests/compopt_cuda_tests" --gtest_filter='-*WithoutDevice*'
gtest hybrid_tests "$BUILD/tests/compopt_hybrid_tests" --gtest_filter='-*WithoutDevice*'
if ((HAVE_NCCL)); then
  gtest nccl_tests "$BUILD/tests/compopt_nccl_tests" --gtest_filter='-*WithoutDevice*'
else
  echo "NCCL not found at configure time: NCCL tests not built (set NCCL_ROOT, or pip install nvidia-nccl-cu13)"
fi
gtest conformance_hybrid "$BUILD/tests/compopt_conformance_tests" --gtest_filter='*hybrid*'
if ! grep -q 'hybrid' "$LOG/conformance_hybrid.log"; then fail "conformance suite has no hybrid tests"; fi

step "compute-sanitizer"
SANITIZER=$(command -v compute-sanitizer || true)
for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [[ -z "$SANITIZER" && -x "$candidate" ]] && SANITIZER=$candidate
done
if [[ -z "$SANITIZER" ]]; then
  fail "compute-sanitizer not found (install the CUDA toolkit's compute-sanitizer)"
else
  # memcheck covers the kernels and the device-state hybrid path; racecheck and synccheck
  # (shared-memory hazards and barriers inside a kernel) run on the single-threaded kernel
  # tests: under racecheck the hybrid test, whose ranks are threads exchanging over TCP, did
  # not finish within 7 minutes on an H100.
  kernels='KernelsTest.*:OptimizerKernelsTest.*'
  runs=("memcheck compopt_cuda_tests $kernels"
        "memcheck compopt_cuda_tests Optimizers/DeviceOptimizerTest.*:DeviceOptimizerDetectorTest.*:DeviceMlp*"
        "memcheck compopt_hybrid_tests HybridCompressedAllreduce.DeviceStateApiMatchesHostDropIn"
        "racecheck compopt_cuda_tests $kernels" "synccheck compopt_cuda_tests $kernels")
  for run in "${runs[@]}"; do
    read -r tool binary filter <<<"$run"
    if timeout 600 "$SANITIZER" --tool "$tool" --error-exitcode 3 "$BUILD/tests/$binary" \
         --gtest_filter="$filter" >"$LOG/sanitizer-$tool-$binary.log" 2>&1; then
      echo "compute-sanitizer $tool ($binary): clean"
    else
      fail "compute-sanitizer $tool $binary (see $LOG/sanitizer-$tool-$binary.log)"
    fi
  done
fi

step "GPU benchmark"
if "$BUILD/tests/bench/compopt_gpu_bench" --benchmark_min_time=0.2 >"$LOG/gpu_bench.log" 2>&1; then
  sed -n '/fraction of D2D copy/,$p' "$LOG/gpu_bench.log"
else
  fail "compopt_gpu_bench (see $LOG/gpu_bench.log)"
fi

step "comm-bench: 4 hybrid ranks on one GPU"
if CUDA_VISIBLE_DEVICES=0 "$BUILD/experiments/compopt" launch -n 4 -- comm-bench --backend hybrid \
     --sizes 4,64 --variants allreduce-fp32,compressed-sign,compressed-binary --iters 5 \
     --overwrite --out "$LOG/comm-bench-hybrid" >"$LOG/comm-bench-hybrid.log" 2>&1; then
  grep -E 'variant|compressed|allreduce' "$LOG/comm-bench-hybrid.log" | head -12
else
  fail "comm-bench hybrid (see $LOG/comm-bench-hybrid.log)"
fi
if ((HAVE_NCCL && GPUS >= 2)); then
  step "comm-bench: NCCL on $GPUS GPUs"
  if "$BUILD/experiments/compopt" launch -n "$GPUS" -- comm-bench --backend nccl --sizes 4,64 \
       --variants allreduce-fp32,compressed-sign,compressed-binary --iters 5 \
       --overwrite --out "$LOG/comm-bench-nccl" >"$LOG/comm-bench-nccl.log" 2>&1; then
    grep -E 'variant|compressed|allreduce' "$LOG/comm-bench-nccl.log" | head -12
  else
    fail "comm-bench nccl (see $LOG/comm-bench-nccl.log)"
  fi
fi

step "summary"
if ((${#failures[@]} > 0)); then
  printf 'gpu_check: %d failure(s):\n' "${#failures[@]}"
  printf '  - %s\n' "${failures[@]}"
  exit 1
fi
echo "gpu_check: all GPU checks passed; logs in $LOG"
