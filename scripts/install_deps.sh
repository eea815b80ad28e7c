#!/usr/bin/env bash
# Installs every Debian package compopt builds, tests and plots with.
# Idempotent; needs root (or sudo). Called by the Makefile when a dependency is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git clang-format clang-tidy
  libeigen3-dev libsimgrid-dev
  libcli11-dev libtomlplusplus-dev libfmt-dev zlib1g-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libboost-dev libisal-dev openmpi-bin libopenmpi-dev
  dataset-fashion-mnist
  python3 python3-dev python3-matplotlib python3-pytest python3-flake8
  pybind11-dev python3-numpy python3-pandas python3-torch python3-torchvision python3.11-doc
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install_deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
