#!/usr/bin/env bash
# Makes `import compopt` work for Debian's /usr/bin/python3 (where python3-torch lives) right
# after `make build`: writes compopt.pth, naming this checkout's python/ folder, into that
# interpreter's site directory. The package finds the extension module in build/ (or in
# $COMPOPT_BUILD_DIR). Without write access it prints the PYTHONPATH to set instead.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python=${COMPOPT_PYTHON:-/usr/bin/python3}
[[ -x $python ]] || { echo "install_python_path: $python not found, Python package not set up"; exit 0; }
site=$("$python" -c 'import site; print(site.getsitepackages()[0])')
target="$site/compopt.pth"
if [[ -f $target && $(cat "$target") == "$repo/python" ]]; then
  exit 0
fi
if mkdir -p "$site" 2>/dev/null && echo "$repo/python" >"$target" 2>/dev/null; then
  echo "install_python_path: $target -> $repo/python ('import compopt' works for $python)"
else
  echo "install_python_path: cannot write $target; use PYTHONPATH=$repo/python"
fi
