#!/usr/bin/env bash
# Python on a GPU machine (docs/python_gpu.md), for a machine with an NVIDIA GPU, its
# own Python with torch (CUDA build), nvcc, and NCCL (system, NCCL_ROOT or the nvidia-nccl-cu*
# wheel of that Python), where SimGrid, Eigen, GoogleTest, CLI11 and the rest may be missing:
#   1. report what the machine has (Python, torch, nvcc, cmake, and the simulator's dependencies);
#   2. configure COMPOPT_PYTHON_ONLY=ON with CUDA required, for that Python; build _compopt;
#   3. pytest python/tests with that build (when the Python has pytest);
#   4. smoke test of the optimizers on CUDA tensors (scripts/gpu_python_smoke.py: GPU optimizer
#      against the CPU one, all ranks equal): 1 rank on the local backend; 2 ranks sharing GPU 0
#      on the hybrid backend and 1 rank on NCCL when the TCP backend was built (Boost); 2 ranks on
#      NCCL with 2 or more GPUs (NCCL refuses two ranks on one GPU). Ranks are started by hand
#      (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, COMPOPT_JOB_TOKEN): this build
#      has no `compopt launch`, which is part of the CLI.
# Usage: scripts/gpu_python_check.sh [build-dir]   (default build-gpu-python; logs in
#   <build-dir>/gpu-python-check/). Environment: PYTHON (default python3 on PATH), JOBS,
#   CUDA_ARCHS (default 80-real;90), NCCL_ROOT, WERROR (default OFF: an unknown compiler may warn),
#   BOOST_INCLUDE_DIR (Boost headers where the machine has none: scripts/pack_boost_headers.sh).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-build-gpu-python}
JOBS=${JOBS:-$(nproc)}
LOG="$BUILD/gpu-python-check"
PY=$(command -v "${PYTHON:-python3}") || { echo "gpu_python_check: no ${PYTHON:-python3}" >&2; exit 1; }
failures=()
step() { printf '\n=== %s\n' "$*"; }
fail() { echo "gpu_python_check: FAILED: $*" >&2; failures+=("$*"); }
mkdir -p "$LOG"

step "machine"
nvidia-smi -L || { echo "gpu_python_check: no NVIDIA GPU visible (nvidia-smi)" >&2; exit 1; }
GPUS=$(nvidia-smi -L | grep -c '^GPU ')
"$PY" -c 'import sys, torch; print("python", sys.version.split()[0], "| torch", torch.__version__,
"| torch CUDA", torch.version.cuda, "| torch sees a GPU:", torch.cuda.is_available())' ||
  fail "$PY cannot import torch"
for tool in nvcc cmake ninja; do
  printf '%-6s %s\n' "$tool" "$(command -v "$tool" || ls /usr/local/cuda/bin/$tool 2>/dev/null || echo missing)"
done
for dep in simgrid eigen3 gtest benchmark fmt zlib; do
  printf '%-9s %s\n' "$dep" "$(pkg-config --modversion "$dep" 2>/dev/null || echo 'not found by pkg-config')"
done
printf '%-9s %s\n' boost "$(ls -d /usr/include/boost/asio 2>/dev/null || echo 'no /usr/include/boost/asio')"
"$PY" -c 'import nvidia.nccl as m; print("nccl wheel", list(m.__path__)[0])' 2>/dev/null || echo "no nvidia.nccl wheel"

step "configure and build ($BUILD)"
generator=("Unix Makefiles")
command -v ninja >/dev/null && generator=(Ninja)
if ! cmake -S . -B "$BUILD" -G "${generator[0]}" -DCOMPOPT_PYTHON_ONLY=ON -DCOMPOPT_CUDA=ON \
     -DCOMPOPT_PYTHON_EXECUTABLE="$PY" -DCOMPOPT_WERROR="${WERROR:-OFF}" \
     -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-80-real;90}" ${NCCL_ROOT:+-DNCCL_ROOT="$NCCL_ROOT"} \
     ${BOOST_INCLUDE_DIR:+-DBoost_INCLUDE_DIR="$BOOST_INCLUDE_DIR" -DBoost_NO_BOOST_CMAKE=ON} \
     >"$LOG/configure.log" 2>&1; then
  cat "$LOG/configure.log"
  echo "gpu_python_check: configure failed" >&2
  exit 1
fi
grep -E 'compopt:' "$LOG/configure.log"
cmake --build "$BUILD" -j "$JOBS" --target _compopt >"$LOG/build.log" 2>&1 ||
  { tail -40 "$LOG/build.log"; echo "gpu_python_check: build failed" >&2; exit 1; }
export COMPOPT_BUILD_DIR=$PWD/$BUILD PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
"$PY" -c 'import compopt; from compopt import _compopt as c
print("module", c.__file__, "| has_cuda", c.has_cuda, "| has_simulator", c.has_simulator)' ||
  fail "import compopt"

step "pytest python/tests"
if "$PY" -c 'import pytest' 2>/dev/null; then
  "$PY" -m pytest -q -p no:cacheprovider -rs python/tests 2>&1 | tee "$LOG/pytest.log" | tail -15
  ((PIPESTATUS[0] == 0)) || fail "pytest (see $LOG/pytest.log)"
else
  echo "pytest is not installed for $PY: skipped"
fi

# ranks BACKEND N SAME_GPU: N ranks of the smoke test; SAME_GPU=1 puts every rank on GPU 0.
ranks() {
  local backend=$1 n=$2 same_gpu=$3 pids=() rc=0 r
  local port token
  port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  for ((r = 0; r < n; r++)); do
    RANK=$r WORLD_SIZE=$n LOCAL_RANK=$((same_gpu ? 0 : r)) MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
      COMPOPT_JOB_TOKEN=$token timeout 300 "$PY" scripts/gpu_python_smoke.py "$backend" \
      >"$LOG/smoke-$backend-$n-rank$r.log" 2>&1 &
    pids+=($!)
  done
  for r in "${!pids[@]}"; do wait "${pids[$r]}" || rc=1; cat "$LOG/smoke-$backend-$n-rank$r.log"; done
  ((rc == 0)) || fail "smoke test: $n rank(s) on $backend (see $LOG/smoke-$backend-$n-rank*.log)"
}

step "smoke: optimizers on CUDA tensors"
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  fail "numpy is not installed for $PY: the smoke test compares with the CPU optimizer on numpy arrays"
fi
(unset RANK WORLD_SIZE; "$PY" scripts/gpu_python_smoke.py local) 2>&1 | tee "$LOG/smoke-local.log"
((PIPESTATUS[0] == 0)) || fail "smoke test: 1 rank on local"
if [[ -e "$BUILD/real_backend/hybrid/libcompopt_hybrid.a" ]]; then
  ranks hybrid 2 1
else
  echo "hybrid backend not built (it needs the TCP backend: Boost headers): skipped"
fi
if [[ -e "$BUILD/real_backend/nccl/libcompopt_nccl.a" ]]; then
  ranks nccl 1 0
  if ((GPUS >= 2)); then ranks nccl 2 0; else echo "1 GPU: NCCL with 2 ranks needs 2 GPUs: skipped"; fi
else
  echo "NCCL backend not built (see the 'compopt:' lines above): skipped"
fi

step "summary"
if ((${#failures[@]} > 0)); then
  printf 'gpu_python_check: %d failure(s):\n' "${#failures[@]}"
  printf '  - %s\n' "${failures[@]}"
  exit 1
fi
echo "gpu_python_check: all checks passed; logs in $LOG"
