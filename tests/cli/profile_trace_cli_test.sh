#!/usr/bin/env bash
# `compopt profile --trace`: the file is Chrome trace-event JSON whose spans agree
# with profile.csv (read by Python's json module, as Perfetto's importer reads it);
# --trace without a file puts trace.json in the run directory; a directory, a missing
# folder, a .toml file (the config taken by a bare --trace) or --calibration is refused with
# exit code 2 before anything is simulated.
#   profile_trace_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

"$BIN" profile --optimizer onebit-adam --gpus 8 --out "$WORK/run" --trace "$WORK/step.json" \
  > "$WORK/log" 2>&1 || fail "profile --trace failed: $(tail -3 "$WORK/log")"
grep -qF "wrote trace $WORK/step.json" "$WORK/log" || fail "no 'wrote trace' line: $(cat "$WORK/log")"
/usr/bin/python3 - "$WORK/step.json" "$WORK/run/profile.csv" <<'PY' || fail "trace check failed"
import csv, json, sys
trace = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert trace["displayTimeUnit"] == "ms", trace.get("displayTimeUnit")
events = trace["traceEvents"]
for e in events:
    missing = {"name", "ph", "ts", "pid", "tid"} - e.keys()
    assert not missing, (e, missing)
    assert e["ph"] in ("X", "M"), e
    if e["ph"] == "X":
        assert e["dur"] >= 0 and e["ts"] >= 0, e
threads = {(e["pid"], e["tid"]) for e in events if e["name"] == "thread_name"}
assert len(threads) == 16, threads  # compute and comm of 8 ranks
# Rank 0's step of each stage lasts step_time_s of its profile.csv row, one after the other.
start = 0.0
for row in rows:
    step = [e for e in events if e["tid"] == 0 and e["name"] == row["stage"] + " step"]
    assert len(step) == 1, (row["stage"], step)
    assert abs(step[0]["ts"] - start) < 1e-2, (step[0], start)
    assert abs(step[0]["dur"] - 1e6 * float(row["step_time_s"])) < 1e-6 * step[0]["dur"] + 1, row
    start = step[0]["ts"] + step[0]["dur"]
phases = {e["name"] for e in events if e.get("cat") == "comm phase"}
assert phases == {"reduce-scatter", "all-gather", "all-to-all", "all-gather scales"}, phases
PY

"$BIN" profile --gpus 8 --out "$WORK/inside" --trace > "$WORK/log" 2>&1 \
  || fail "profile --trace without a file failed: $(tail -3 "$WORK/log")"
/usr/bin/python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["traceEvents"]' \
  "$WORK/inside/trace.json" || fail "--trace without a file: no trace.json in the run directory"

expect_refusal() {  # WHAT MESSAGE ARGS...
  local what=$1 message=$2
  shift 2
  "$BIN" profile --gpus 8 --out "$WORK/refused" "$@" > "$WORK/log" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "$what: exit code $rc, expected 2"
  grep -qF -- "$message" "$WORK/log" || fail "$what: message: $(cat "$WORK/log")"
  [ ! -e "$WORK/refused" ] || fail "$what: created the run directory"
}
expect_refusal "trace to a directory" "--trace $WORK: is a directory" --trace "$WORK"
expect_refusal "trace in a missing folder" "$WORK/none is not a directory" \
  --trace "$WORK/none/step.json"
expect_refusal "trace with calibration" "run \`compopt validate calibration\`" --trace x.json \
  --calibration
# A bare --trace followed by the config takes it as its FILE: refused rather than overwritten.
echo '[sweep]' > "$WORK/c.toml"
expect_refusal "trace taking the config" "--trace $WORK/c.toml: expected a trace file name" \
  --trace "$WORK/c.toml"
[ "$(cat "$WORK/c.toml")" = "[sweep]" ] || fail "trace taking the config: the config changed"

finish "profile --trace: all checks passed"
