#!/usr/bin/env bash
# Refreshes the golden CSVs of tests/golden/reproduce_quick/ from the current build, for
# a reviewed change of the simulator's numbers, and re-renders the tables docs/reproduction.md
# generates from them (scripts/doc_tables.py): run it, read `git diff tests/golden docs`,
# reread the prose around the tables, and commit the diff with the change that caused it.
#   scripts/update_golden.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bash tests/golden/run_golden.sh "$build/experiments/compopt" "$build/golden_update" --update
/usr/bin/python3 scripts/doc_tables.py
git diff --stat -- tests/golden docs/reproduction.md
