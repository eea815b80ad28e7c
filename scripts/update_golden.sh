#!/usr/bin/env bash
# Refreshes the golden CSVs of tests/golden/reproduce_quick/ from the current build, for
# a reviewed change of the simulator's numbers: run it, read `git diff tests/golden`,
# and commit the diff with the change that caused it.
#   scripts/update_golden.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bash tests/golden/run_golden.sh "$build/experiments/compopt" "$build/golden_update" --update
git diff --stat -- tests/golden
