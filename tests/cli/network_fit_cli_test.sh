#!/usr/bin/env bash
# `compopt profile --calibration --fit` and `--cross-validate`: the fit on all rows agrees
# with the presets (network_fit.csv), the leave-one-out table has one row per published row,
# each within 10%, with its fallback stated where a held-out row leaves a parameter without
# data (the 1-node rows), and a plain
# profile prints and writes low <= expected <= high.
#   network_fit_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

"$BIN" profile --calibration --fit --out "$WORK/fit" > "$WORK/fit.log" 2>&1 ||
  fail "--fit failed: $(tail -3 "$WORK/fit.log")"
/usr/bin/python3 - "$WORK/fit/network_fit.csv" <<'PY' || fail "network_fit.csv check failed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    assert abs(float(r["difference_pct"])) < 0.05, r
    assert r["fallback"] == "", r
PY

"$BIN" profile --calibration --cross-validate --out "$WORK/cv" > "$WORK/cv.log" 2>&1 ||
  fail "--cross-validate failed: $(tail -3 "$WORK/cv.log")"
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
PY

"$BIN" profile --optimizer birder --gpus 16 --out "$WORK/p" > "$WORK/p.log" 2>&1 ||
  fail "profile failed: $(tail -3 "$WORK/p.log")"
grep -q "low..high at the bandwidth spread (inter-node" "$WORK/p.log" || fail "no bounds line"
/usr/bin/python3 - "$WORK/p/profile.csv" <<'PY' || fail "profile.csv bounds check failed"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    lo, mid, hi = (float(r[k]) for k in ("step_time_low_s", "step_time_s", "step_time_high_s"))
    assert lo < mid < hi, r
    tlo, tmid, thi = (float(r[k]) for k in ("throughput_low_samples_s", "throughput_samples_s",
                                            "throughput_high_samples_s"))
    assert tlo < tmid < thi, r
    assert r["inter_node_spread_low"] == "0.846" and r["inter_node_spread_high"] == "1.037", r
PY

finish "network fit CLI: all checks passed"
