#!/usr/bin/env bash
# Copies the Boost headers that the TCP, hybrid and NCCL backends include (Boost.Asio is
# header-only; about 830 files, 5.3 MB with Debian 12's Boost 1.74), and nlohmann-json's headers
# (core/optim reads DeepSpeed configs with them), into OUT_DIR/include, for a
# GPU machine without Boost: there, scripts/gpu_python_check.sh with BOOST_INCLUDE_DIR=OUT_DIR/include
# builds those backends against the copy (CMake's FindBoost reads boost/version.hpp from it).
# The list is what the preprocessor opens for those sources here (g++ -M), so run this on a
# machine with Boost, the CUDA toolkit and NCCL headers (as this repository's Debian set-up).
#   scripts/pack_boost_headers.sh OUT_DIR   (e.g. build-boost, an ignored folder)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: scripts/pack_boost_headers.sh OUT_DIR}
CUDA_INCLUDE=${CUDA_INCLUDE:-/usr/local/cuda/include}
BOOST_ROOT_INCLUDE=${BOOST_ROOT_INCLUDE:-/usr/include}
[[ -f "$BOOST_ROOT_INCLUDE/boost/version.hpp" ]] || { echo "no Boost in $BOOST_ROOT_INCLUDE" >&2; exit 1; }
mkdir -p "$OUT/include"
OUT=$(cd "$OUT" && pwd)
sources=(real_backend/tcp/*.cc)
[[ -f "$CUDA_INCLUDE/nccl.h" ]] && sources+=(real_backend/nccl/*.cc real_backend/hybrid/*.cc)
# -MM would drop system headers; -M lists every file opened. boost/version.hpp is what FindBoost
# reads, even when no source includes it.
{
  g++ -std=c++20 -M -I. -I"$CUDA_INCLUDE" "${sources[@]}" | tr -s ' \134' '\n'
  echo "$BOOST_ROOT_INCLUDE/boost/version.hpp"
} | grep "^$BOOST_ROOT_INCLUDE/boost/" | sort -u | sed "s|^$BOOST_ROOT_INCLUDE/||" >"$OUT/headers.txt"
(cd "$BOOST_ROOT_INCLUDE" && xargs -a "$OUT/headers.txt" cp --parents -t "$OUT/include")
[[ -d "$BOOST_ROOT_INCLUDE/nlohmann" ]] && cp -r "$BOOST_ROOT_INCLUDE/nlohmann" "$OUT/include/"
echo "pack_boost_headers: $(wc -l <"$OUT/headers.txt") headers, $(du -sh "$OUT/include" | cut -f1) in $OUT/include"
