#!/usr/bin/env bash
# compopt_peer_bench and experiments/validation/netns_peer_cost.py (the per-peer cost measurement of
# docs/calibration.md, "Transport profiles"): the CSV of 3 in-process TCP ranks has one row
# per block and pattern with the peers and steps of each pattern (or one pattern's rows with
# --pattern); bad arguments exit 2 naming
# the value; the summary recovers a per-peer and a per-step cost planted in a hand-made CSV.
#   peer_bench_cli_test.sh PEER_BENCH_BINARY SOURCE_DIR
set -uo pipefail
SUMMARY=$2/experiments/validation/netns_peer_cost.py
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

"$BIN" --threads 3 --cycles 2 --rounds 5 --blocks 3 --out "$WORK/pb.csv" >"$WORK/pb.log" 2>&1 ||
  fail "3 ranks failed: $(tail -3 "$WORK/pb.log")"
/usr/bin/python3 - "$WORK/pb.csv" <<'PY' || fail "peer_bench CSV check failed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, rows  # 3 blocks x 2 patterns
for r in rows:
    assert (r["ranks"], r["cycles"], r["steps"], r["bytes"], r["rounds"]) == (
        "3", "2", "4", "64", "5"), r
    assert r["peers"] == {"ring": "1", "spread": "2"}[r["pattern"]], r
    assert float(r["round_us"]) > 0, r
# Blocks alternate which pattern runs first.
assert [r["pattern"] for r in rows[:4]] == ["ring", "spread", "spread", "ring"], rows
PY

# One pattern alone: only its rows.
"$BIN" --threads 3 --pattern spread --rounds 5 --blocks 2 --out "$WORK/spread.csv" \
  >"$WORK/spread.log" 2>&1 || fail "--pattern spread failed: $(tail -3 "$WORK/spread.log")"
[[ $(cut -d, -f2 "$WORK/spread.csv" | tail -n +2 | sort | uniq -c | awk '{print $1, $2}') == "2 spread" ]] ||
  fail "--pattern spread wrote: $(cat "$WORK/spread.csv")"

# expect NAME MESSAGE COMMAND...: exit status 2 and MESSAGE on stderr, no CSV written.
expect() {
  local name=$1 message=$2
  shift 2
  rm -f "$WORK/bad.csv"
  expect_exit 2 -- "$@"
  expect_contains "$name" "$message" "$OUTPUT"
  [[ ! -e $WORK/bad.csv ]] || fail "$name: wrote a CSV"
}
expect "one rank" "--threads: Value 1 not in range" "$BIN" --threads 1 --out "$WORK/bad.csv"
expect "zero cycles" "--cycles: Value 0 not in range" "$BIN" --threads 2 --cycles 0 \
  --out "$WORK/bad.csv"
expect "no --out" "--out is required" "$BIN" --threads 2
expect "bad pattern" "--pattern: tree not in {both,ring,spread}" "$BIN" --threads 2 --pattern tree \
  --out "$WORK/bad.csv"
expect "no world" "WORLD_SIZE" env -u RANK -u WORLD_SIZE "$BIN" --out "$WORK/bad.csv"

# A planted cost: diff = (n - 2) x 7 us per peer - 3 us per step, ring at 100 us per step.
/usr/bin/python3 - "$WORK/planted.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("ranks,pattern,peers,cycles,steps,bytes,block,rounds,round_us\n")
    for n in (2, 4):
        for cycles in (1, 4):
            steps = cycles * (n - 1)
            for block in range(5):
                noise = (block - 2) * 0.5  # the same in both patterns: paired away
                ring = 100 * steps + noise
                spread = ring + (n - 2) * 7 - 3 * steps * (n > 2)
                f.write(f"{n},ring,1,{cycles},{steps},64,{block},10,{ring}\n")
                f.write(f"{n},spread,{n - 1},{cycles},{steps},64,{block},10,{spread}\n")
PY
/usr/bin/python3 "$SUMMARY" "$WORK/planted.csv" >"$WORK/summary.txt" 2>&1 ||
  fail "summary failed: $(cat "$WORK/summary.txt")"
grep -q "^n=4 fit .*per_peer +7.00 us \[+7.00, +7.00\], per_step -3.00 us" "$WORK/summary.txt" ||
  fail "planted costs not recovered: $(cat "$WORK/summary.txt")"
grep -q "^n=2 cycles=1 .*diff    +0.00 us.*control" "$WORK/summary.txt" ||
  fail "n=2 is not the control: $(cat "$WORK/summary.txt")"
/usr/bin/python3 "$SUMMARY" "$WORK/pb.csv" >"$WORK/summary_pb.txt" 2>&1 ||
  fail "summary of a real run failed: $(cat "$WORK/summary_pb.txt")"

finish "peer_bench CLI: all checks passed"
