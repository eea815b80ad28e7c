#!/usr/bin/env bash
# Runs the quick `compopt reproduce` studies whose numbers are pinned by golden files
# (the simulator studies and the byte counts: deterministic on every machine) and
# compares their CSVs with tests/golden/reproduce_quick/, and the tables docs/reproduction.md
# quotes with the fresh run (scripts/doc_tables.py --check). Used by ctest (reproduce_golden)
# and, with --update, by scripts/update_golden.sh.
#   run_golden.sh COMPOPT_BINARY WORK_DIR [--update]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
studies="profile,scalability,bandwidth,hierarchical,break_even,volume"
golden="$here/reproduce_quick"
compopt="$1" work="$2" mode="${3:-}"
rm -rf "$work"
"$compopt" reproduce --only "$studies" --no-figures --out "$work" > "$work.log" 2>&1 ||
  { cat "$work.log"; exit 1; }
if [[ "$mode" == "--update" ]]; then
  rm -rf "$golden"
  for study in ${studies//,/ }; do
    mkdir -p "$golden/$study"
    cp "$work/$study/"*.csv "$golden/$study/"
  done
  echo "run_golden: refreshed $(find "$golden" -name '*.csv' | wc -l) files under $golden"
  exit 0
fi
status=0
/usr/bin/python3 "$here/compare_csv.py" "$golden" "$work" || status=1
/usr/bin/python3 "$here/../../scripts/doc_tables.py" --check --csv-dir "$work" || status=1
exit $status
