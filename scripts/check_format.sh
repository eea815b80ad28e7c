#!/usr/bin/env bash
# Fails (exit 1) when a tracked C++/CUDA source differs from what clang-format
# (.clang-format) would write, listing each file. `make format` fixes them.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed" >&2; exit 1; }
bad=()
while IFS= read -r f; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.h' '*.cc' '*.cu' '*.cuh')
if ((${#bad[@]} > 0)); then
  echo "check_format: ${#bad[@]} file(s) not formatted (run 'make format'):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: all $(git ls-files '*.h' '*.cc' '*.cu' '*.cuh' | wc -l) sources formatted"
