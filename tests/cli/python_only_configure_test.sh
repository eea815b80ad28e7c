#!/usr/bin/env bash
# COMPOPT_PYTHON_ONLY=ON configures with SimGrid, Eigen, GoogleTest, Benchmark, pkg-config, zlib,
# MPI and the fmt and pybind11 CMake packages all hidden (as on a GPU machine that has only its
# Python, torch and CUDA): fmt header-only from a folder, the built-in CRC-32, pybind11 from bare
# headers; no simulator, CLI or test target is generated. A folder without fmt/format.h is refused
# by name. Configure only (a few seconds): the full build of this configuration is
# scripts/gpu_python_check.sh's first step (docs/python_gpu.md).
#   python_only_configure_test.sh SOURCE_DIR
set -uo pipefail
SRC=$1
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

hidden=(-DCOMPOPT_PYTHON_ONLY=ON -DCOMPOPT_CUDA=OFF -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
        -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON
        -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
        -DCOMPOPT_PYBIND11_INCLUDE_DIR=/usr/include -DCOMPOPT_PYTHON_EXECUTABLE=/usr/bin/python3)

if ! cmake -S "$SRC" -B "$WORK/ok" -G Ninja "${hidden[@]}" -DCOMPOPT_FMT_INCLUDE_DIR=/usr/include \
     >"$WORK/ok.log" 2>&1; then
  cat "$WORK/ok.log"
  fail "python-only configure failed"
fi
for line in "no simulator, CLI or C++ tests" "fmt: header-only from /usr/include" \
            "zlib: built-in CRC-32" "pybind11: headers in /usr/include"; do
  grep -qF "$line" "$WORK/ok.log" || fail "configure output lacks '$line'"
done
targets=$(ninja -C "$WORK/ok" -t targets all 2>/dev/null)
grep -q '^_compopt' <<<"$targets" || fail "no _compopt target"
for absent in compopt_sim compopt_experiments compopt_tasks compopt_util_tests; do
  if grep -q "^$absent:" <<<"$targets"; then fail "python-only build generates $absent"; fi
done

if cmake -S "$SRC" -B "$WORK/bad" -G Ninja "${hidden[@]}" -DCOMPOPT_FMT_INCLUDE_DIR="$WORK/none" \
     >"$WORK/bad.log" 2>&1; then
  fail "configure without any fmt succeeded"
fi
tr -s ' \n' ' ' <"$WORK/bad.log" | grep -qF "fmt not found: no installed fmt package and no fmt/format.h in COMPOPT_FMT_INCLUDE_DIR='$WORK/none'" || \
  { cat "$WORK/bad.log"; fail "the refusal does not name COMPOPT_FMT_INCLUDE_DIR"; }

finish "python-only configure: ok"
