#!/usr/bin/env bash
# End-to-end checks of `compopt reproduce`: bad options exit 2 before any work
# and leave an existing run directory untouched; a run of two simulator studies
# writes their CSVs, the figures (when matplotlib is there) and report.md with
# the published numbers beside ours.
#   reproduce_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
SRC=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

mkdir -p "$WORK/existing"
echo keep > "$WORK/existing/report.md"
snapshot() { (cd "$WORK/existing" && find . -type f -exec md5sum {} + | sort); }
BEFORE=$(snapshot)

expect_error() {  # NAME EXPECTED_SUBSTRING ARGS...
  local name=$1 want=$2
  shift 2
  expect_exit 2 -- "$BIN" reproduce "$@" --out "$WORK/existing"
  expect_contains "$name" "$want" "$OUTPUT"
}
expect_error "unknown study" "--only 'convergense': unknown study 'convergense', expected one of variance" \
  --only convergense
expect_error "negative jobs" "--jobs -1: expected 0..512" --jobs -1
expect_error "unknown flag" "--fast" --fast
# The methods study trains for a minute or more: bad input beside it still fails first.
expect_error "methods with an unknown study" "--only 'methodz': unknown study 'methodz'" \
  --only methods,methodz
expect_error "methods with bad jobs" "--jobs -1: expected 0..512" --only methods --jobs -1
expect_error "methods with an unknown flag" "--seeds" --only methods --seeds 3
[ "$(snapshot)" == "$BEFORE" ] || fail "bad input modified the existing run directory"

OUT="$WORK/run"
if ! "$BIN" reproduce --only profile,hierarchical --analysis-dir "$SRC/analysis" --out "$OUT" \
  > "$WORK/log" 2>&1; then
  fail "reproduce --only profile,hierarchical failed: $(tail -5 "$WORK/log")"
fi
for f in report.md run.json profile/profile.csv hierarchical/hierarchical.csv; do
  [ -s "$OUT/$f" ] || fail "missing or empty $f"
done
head -1 "$OUT/profile/profile.csv" | grep -q '^network,nodes,gpus,batch_per_gpu,grad_accum,optimizer,stage,' \
  || fail "profile.csv header: $(head -1 "$OUT/profile/profile.csv")"
# 13 published rows x (adam full + 1-bit Adam warmup + compression) + header.
[ "$(wc -l < "$OUT/profile/profile.csv")" -eq 40 ] || fail "profile.csv has $(wc -l < "$OUT/profile/profile.csv") lines, expected 40"
# The single-node Ethernet row of 1-bit Adam Table 1: 239.76 ms published.
grep -q '^| ethernet | 1 | 4 | 16 x 1 | [0-9.]* | 239.76 | ' "$OUT/report.md" \
  || fail "report.md lacks the published 239.76 ms row"
grep -q '"scale": "quick"' "$OUT/run.json" || fail "run.json lacks the scale"
# Published values are credited to the repository's data files, never to an outside folder.
grep -q 'data/published/onebit_adam_profile.csv' "$OUT/report.md" \
  || fail "report.md does not name data/published/onebit_adam_profile.csv"
grep -q 'data/published/birder_single_node.csv' "$OUT/report.md" \
  || fail "report.md does not name data/published/birder_single_node.csv"
! grep -qE '\.\./|reference/' "$OUT/report.md" ||
  fail "report.md names a path above the repository or a reference folder: $(grep -E '\.\./|reference/' "$OUT/report.md" | head -2)"
if python3 -c 'import matplotlib' 2>/dev/null && [ -f "$SRC/analysis/plot_all.py" ]; then
  for f in figures/profile.png figures/profile.pdf figures/hierarchical.png; do
    [ -s "$OUT/$f" ] || fail "missing figure $f"
  done
  grep -q '!\[.*\](figures/profile.png)' "$OUT/report.md" || fail "report.md does not show the profile figure"
fi

finish "reproduce CLI: all checks passed"
