#!/usr/bin/env bash
# `compopt validate calibration`, `validate fit` and `validate cross-validate`: the
# calibration table holds the 13 published rows as the data file gives them, with its error
# columns computed from them; the fit on all rows agrees with the presets (network_fit.csv);
# the leave-one-out table has one row per published row, each within 10%, with its fallback
# stated where a held-out row leaves a parameter without data (the 1-node rows); `profile
# --calibration` points at the new command; and a plain profile prints and writes
# low <= expected <= high.
#   network_fit_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
SRC=$2

"$BIN" validate calibration --out "$WORK/cal" > "$WORK/cal.log" 2>&1 ||
  fail "validate calibration failed: $(tail -3 "$WORK/cal.log")"
grep -q "^worst |error|: .*% of allreduce ms (target 25%)" "$WORK/cal.log" ||
  fail "no worst-error line: $(cat "$WORK/cal.log")"
grep -qF "wrote $WORK/cal/calibration.csv and run.json" "$WORK/cal.log" || fail "no wrote line"
/usr/bin/python3 - "$WORK/cal/calibration.csv" "$SRC/data/published/onebit_adam_profile.csv" \
  "$WORK/cal/run.json" <<'PY' || fail "calibration.csv check failed"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
data = list(csv.DictReader(line for line in open(sys.argv[2]) if not line.startswith("#")))
assert len(rows) == len(data) == 13, (len(rows), len(data))
for r, d in zip(rows, data):
    ms, pub, err = (float(r[k]) for k in ("allreduce_ms", "published_allreduce_ms",
                                          "allreduce_error_pct"))
    assert abs(pub - float(d["backward_allreduce_ms"])) < 0.006, (r, d)
    assert abs(100 * (ms - pub) / pub - err) < 0.01, r
    pct, pub_pct, points = (float(r[k]) for k in ("allreduce_pct", "published_allreduce_pct",
                                                  "allreduce_pct_points"))
    assert abs(pct - pub_pct - points) < 0.02 and pub_pct == float(d["allreduce_pct"]), r
    assert r["gpus"] == d["gpus"] and r["batch_per_gpu"] == d["batch_per_gpu"], (r, d)
run = json.load(open(sys.argv[3]))
assert run["command"] == "validate" and run["config"]["backend"] == "sim", run
assert run["config"]["calibration"] == "onebit_adam_profile", run
PY

"$BIN" profile --calibration --out "$WORK/old" > "$WORK/old.log" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "profile --calibration: exit $rc, expected 2"
grep -qF "run \`compopt validate calibration\`" "$WORK/old.log" ||
  fail "profile --calibration does not name the new command: $(cat "$WORK/old.log")"
[ ! -e "$WORK/old" ] || fail "profile --calibration created its run directory"

"$BIN" validate fit --out "$WORK/fit" > "$WORK/fit.log" 2>&1 ||
  fail "validate fit failed: $(tail -3 "$WORK/fit.log")"
/usr/bin/python3 - "$WORK/fit/network_fit.csv" <<'PY' || fail "network_fit.csv check failed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    assert abs(float(r["difference_pct"])) < 0.05, r
    assert r["fallback"] == "", r
PY

"$BIN" validate cross-validate --out "$WORK/cv" > "$WORK/cv.log" 2>&1 ||
  fail "validate cross-validate failed: $(tail -3 "$WORK/cv.log")"
grep -q "^median |error| .*%, worst .*%" "$WORK/cv.log" || fail "no median line: $(cat "$WORK/cv.log")"
/usr/bin/python3 - "$WORK/cv/cross_validation.csv" <<'PY' || fail "cross_validation.csv check failed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["row"]) for r in rows] == list(range(1, 14)), rows
for r in rows:
    pred, pub, err = (float(r[k]) for k in ("predicted_allreduce_ms", "published_allreduce_ms",
                                            "error_pct"))
    assert abs(100 * (pred - pub) / pub - err) < 0.01, r
    assert (r["fallback"] != "") == (r["nodes"] == "1"), r
    assert abs(err) <= 10, r  # docs/validation.md: 8.8% at worst
    lo, hi = float(r["predicted_low_ms"]), float(r["predicted_high_ms"])
    assert lo < pred < hi, r  # every row has a network input with a range
    assert r["inside_band"] == ("yes" if lo <= pub <= hi else "no"), r
    assert abs(float(r["band_half_width_pct"]) - 100 * max(hi - pred, pred - lo) / pred) < 0.01, r
PY
grep -q "^low..high band .*: [0-9]* of 13 measured values inside" "$WORK/cv.log" ||
  fail "no band coverage line: $(cat "$WORK/cv.log")"

"$BIN" profile --optimizer birder --gpus 16 --out "$WORK/p" > "$WORK/p.log" 2>&1 ||
  fail "profile failed: $(tail -3 "$WORK/p.log")"
grep -q "low..high: root-sum-square" "$WORK/p.log" || fail "no bounds line"
/usr/bin/python3 - "$WORK/p/profile.csv" "$WORK/p/run.json" <<'PY' ||
import csv, json, sys
band = json.load(open(sys.argv[2]))["config"]["band"]
assert len(band["inputs"]) == 5 and band["inputs"][0].startswith("inter-node bandwidth x0.849"), band
for r in csv.DictReader(open(sys.argv[1])):
    stage = band["stages"][r["stage"]]
    assert abs(stage["step_time_low_s"] - float(r["step_time_low_s"])) < 1e-5 * stage["step_time_low_s"], r
    assert abs(stage["step_time_high_s"] - float(r["step_time_high_s"])) < 1e-5 * stage["step_time_high_s"], r
    lo, mid, hi = (float(r[k]) for k in ("step_time_low_s", "step_time_s", "step_time_high_s"))
    assert lo < mid < hi, r
    tlo, tmid, thi = (float(r[k]) for k in ("throughput_low_samples_s", "throughput_samples_s",
                                            "throughput_high_samples_s"))
    assert tlo < tmid < thi, r
    # The model-error term is stated beside the band it widens, as run.json's band states it.
    assert abs(float(r["band_model_error"]) - band["model_error_fraction"]) < 1e-4, r
    assert r["inter_node_spread_low"] == "0.849" and r["inter_node_spread_high"] == "1.039", r
PY
  fail "profile.csv bounds check failed"

finish "network fit CLI: all checks passed"
