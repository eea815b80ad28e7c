#!/usr/bin/python3
"""Compares the CSV files of a run directory with golden copies.

Usage: compare_csv.py GOLDEN_DIR RUN_DIR

Every *.csv under GOLDEN_DIR must exist at the same relative path under RUN_DIR, with
the same header, the same number of rows, equal text cells and numeric cells within a
relative tolerance of 1e-6 (the last printed digit may differ across CPUs). Prints each
difference (file, row, column, golden, actual) and exits 1 when there is any, 2 when
the input is unusable. The golden files are refreshed only by scripts/update_golden.sh.
"""
import csv
import math
import sys
from pathlib import Path

REL_TOL = 1e-6
MAX_REPORTED = 40


def as_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def same_cell(golden, actual):
    if golden == actual:
        return True
    g, a = as_number(golden), as_number(actual)
    if g is None or a is None:
        return False
    if math.isnan(g) or math.isnan(a):
        return math.isnan(g) and math.isnan(a)
    return math.isclose(g, a, rel_tol=REL_TOL, abs_tol=1e-12)


def read_rows(path):
    with open(path, newline="") as f:
        return [row for row in csv.reader(f) if row and not row[0].startswith("#")]


def compare_file(golden_path, actual_path, name):
    if not actual_path.is_file():
        return [f"{name}: missing from the run"]
    golden, actual = read_rows(golden_path), read_rows(actual_path)
    if not golden or not actual or golden[0] != actual[0]:
        found = actual[0] if actual else None
        return [f"{name}: header {found} differs from golden {golden[0] if golden else None}"]
    if len(golden) != len(actual):
        return [f"{name}: {len(actual) - 1} rows, golden has {len(golden) - 1}"]
    header = golden[0]
    diffs = []
    for r, (g_row, a_row) in enumerate(zip(golden[1:], actual[1:]), start=1):
        for c, (g, a) in enumerate(zip(g_row, a_row)):
            if not same_cell(g, a):
                diffs.append(f"{name}: row {r} column {header[c]}: golden {g}, actual {a}")
    return diffs


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    golden_dir, run_dir = Path(argv[1]), Path(argv[2])
    files = sorted(golden_dir.rglob("*.csv"))
    if not files:
        print(f"compare_csv: no golden CSV files under {golden_dir}", file=sys.stderr)
        return 2
    diffs = []
    for path in files:
        rel = path.relative_to(golden_dir)
        diffs += compare_file(path, run_dir / rel, str(rel))
    for line in diffs[:MAX_REPORTED]:
        print(line)
    if len(diffs) > MAX_REPORTED:
        print(f"... and {len(diffs) - MAX_REPORTED} more")
    if diffs:
        print(f"compare_csv: {len(diffs)} difference(s) from {golden_dir}; if the change is "
              "intended, review it and run scripts/update_golden.sh")
        return 1
    print(f"compare_csv: {len(files)} files match {golden_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
