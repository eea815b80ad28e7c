#!/usr/bin/env bash
# `compopt validate model-error`: the band's model-error term measured again on the 13
# leave-one-out rows and the 12 public cases equals the shipped one (sim/model_error.cc), each
# row's term is the conformal quantile of the other rows' misses, its band holds the inputs'
# band, and the coverage lines count the CSV. A model change that moves the term fails here.
#   model_error_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

"$BIN" validate model-error --out "$WORK/me" > "$WORK/me.log" 2>&1 ||
  fail "validate model-error failed: $(tail -3 "$WORK/me.log")"
grep -q "^model-error term, .* of the 25 relative misses: .*: holds$" "$WORK/me.log" ||
  fail "the measured term differs from the shipped one: $(grep 'model-error term' "$WORK/me.log")"
grep -q "^for comparison, not used: leave-one-out rows alone +-[0-9.]*% (13 rows); public-checks rows alone +-[0-9.]*% (12 rows)$" "$WORK/me.log" ||
  fail "no per-set comparison line: $(grep 'for comparison' "$WORK/me.log")"
/usr/bin/python3 - "$WORK/me/model_error.csv" "$WORK/me.log" <<'PY' || fail "model_error.csv check failed"
import csv, math, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["set"] for r in rows] == ["leave-one-out"] * 13 + ["public-checks"] * 12, rows
misses = [abs(float(r["measured"]) - float(r["predicted"])) / float(r["predicted"]) for r in rows]
for i, r in enumerate(rows):
    assert abs(100 * misses[i] - float(r["miss_pct"])) < 0.05, r
    others = sorted(misses[:i] + misses[i + 1:])
    term = others[math.ceil((len(others) + 1) * 0.8 - 1e-9) - 1]  # rank ceil((n + 1) 0.8)
    assert abs(100 * term - float(r["term_without_row_pct"])) < 0.05, r
    pred, lo, hi = (float(r[k]) for k in ("predicted", "low", "high"))
    in_lo, in_hi = float(r["inputs_low"]), float(r["inputs_high"])
    assert abs(lo - (pred - math.hypot(pred - in_lo, term * pred))) < 1e-3 * pred, r
    assert abs(hi - (pred + math.hypot(in_hi - pred, term * pred))) < 1e-3 * pred, r
    assert r["inside_band"] == ("yes" if lo <= float(r["measured"]) <= hi else "no"), r
log = open(sys.argv[2]).read()
for name, want in (("leave-one-out", 13), ("public-checks", 12), ("all", 25)):
    inside = sum(r["inside_band"] == "yes" for r in rows if name == "all" or r["set"] == name)
    assert re.search(rf"^  {name} +{inside} of +{want} inside", log, re.M), (name, inside, log)
PY

"$BIN" validate model-error --out "$WORK/me" > "$WORK/again.log" 2>&1
[ $? -eq 2 ] || fail "a second run into the same --out without --overwrite did not exit 2"

finish "model error CLI: all checks passed"
