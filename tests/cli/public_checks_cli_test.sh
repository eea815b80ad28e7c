#!/usr/bin/env bash
# `compopt validate public-checks`: every case of data/published/nccl_tests_public.csv
# is predicted exactly once, public_checks.csv's error is (predicted - published) / published,
# a time is marked as implied by busbw exactly where the data file prints none, and the
# summary line is printed. No error value is pinned: the model changes, the data does not.
#   public_checks_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
SRC=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

"$BIN" validate public-checks --out "$WORK/pc" > "$WORK/pc.log" 2>&1 ||
  fail "validate public-checks failed: $(tail -3 "$WORK/pc.log")"
grep -q "^median |error| .*%, [0-9]* of [0-9]* cases within 20%" "$WORK/pc.log" ||
  fail "no summary line: $(cat "$WORK/pc.log")"
/usr/bin/python3 - "$WORK/pc/public_checks.csv" \
  "$SRC/data/published/nccl_tests_public.csv" <<'PY' || fail "public_checks.csv check failed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
data = list(csv.DictReader(line for line in open(sys.argv[2]) if not line.startswith("#")))
assert [r["case"] for r in rows] == [d["case"] for d in data], (rows, data)
for r, d in zip(rows, data):
    pred, pub, err = (float(r[k]) for k in ("predicted_us", "published_us", "error_pct"))
    assert pred > 0 and pub > 0, r
    assert abs(100 * (pred - pub) / pub - err) < 0.1, r
    assert r["time_from_busbw"] == ("yes" if d["time_us"] == "" else "no"), (r, d)
    if d["time_us"]:
        assert abs(pub - float(d["time_us"])) < 0.1, (r, d)
    assert r["algorithm"] in ("ring", "tree"), r
    if d["algorithm"] != "auto":
        assert r["algorithm"] == d["algorithm"], (r, d)
    assert r["url"] == d["url"] and r["notes"], r
    lo, hi = float(r["predicted_low_us"]), float(r["predicted_high_us"])
    assert lo <= pred <= hi and lo < hi, r
    assert r["inside_band"] == ("yes" if lo <= pub <= hi else "no"), r
    assert abs(float(r["band_half_width_pct"]) - 100 * max(hi - pred, pred - lo) / pred) < 0.05, r
PY
inside=$(/usr/bin/python3 -c "import csv,sys; print(sum(r['inside_band'] == 'yes' for r in csv.DictReader(open(sys.argv[1]))))" "$WORK/pc/public_checks.csv")
grep -q "^low..high band .*: $inside of 12 measured values inside" "$WORK/pc.log" ||
  fail "band coverage line does not count the CSV's $inside: $(cat "$WORK/pc.log")"

finish "public checks CLI: all checks passed"
