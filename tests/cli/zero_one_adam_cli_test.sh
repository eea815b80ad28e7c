#!/usr/bin/env bash
# `compopt train` with 0/1 Adam end to end: its schedule keys take a percentage of the run
# (resolved in run.json), the run goes through both stages on local and on sim with the same
# losses and bytes, and a bad schedule key exits 2 naming the key and its range.
#   zero_one_adam_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

cat > "$WORK/quad.toml" <<'TOML'
[run]
ranks = 4
batch_per_rank = 8
steps = 40
eval_every = 20
[task]
name = "quadratic"
dimension = 50
[optimizer]
name = "zoadam"
lr = 0.01
var_freeze_step = "50%"
var_update_scaler = 2
local_step_scaler = "10%"
local_step_clipper = 4
TOML

# 40 steps: variance steps 1, 2, 4, 6, 8, 12, 16 (the interval doubles after 2 updates), the
# freeze after 20, syncs every 1, 2, then 4 steps (the interval doubles every 4 steps).
for backend in local sim; do
  out="$WORK/$backend"
  if "$BIN" train "$WORK/quad.toml" --set run.backend=$backend --out "$out" --quiet \
    > "$WORK/$backend.log" 2>&1; then
    grep -q '"var_freeze_step": "20"' "$out/run.json" || fail "run.json: var_freeze_step not 20"
    grep -q '"local_step_scaler": "4"' "$out/run.json" || fail "run.json: local_step_scaler not 4"
    warmup=$(grep -c ',warmup,' "$out/metrics.csv")
    [ "$warmup" -eq 7 ] || fail "$backend: $warmup warmup (variance) steps, expected 7"
    grep -q '"compression_steps": 33' "$out/summary.json" || fail "$backend: compression steps"
    # After the freeze only the syncs send: 21-24, 26, 28, 32, 36, 40.
    sends=$(awk -F, 'NR > 1 && $1 > 20 && $11 != prev { printf "%s ", $1 } { prev = $11 }' \
      "$out/metrics.csv")
    [ "$sends" = "21 22 23 24 26 28 32 36 40 " ] || fail "$backend: steps that sent: $sends"
  else
    fail "$backend run failed: $(tail -5 "$WORK/$backend.log")"
  fi
done
# Every column but the clocks agrees between the backends.
strip() { cut -d, -f1-12 "$1"; }
[ "$(strip "$WORK/local/metrics.csv")" = "$(strip "$WORK/sim/metrics.csv")" ] ||
  fail "local and sim metrics differ"

expect_exit 2 -- "$BIN" train "$WORK/quad.toml" --set optimizer.local_step_clipper=0 \
  --out "$WORK/bad"
expect_contains "clipper 0" "key 'local_step_clipper' = 0, expected an integer >= 1" "$OUTPUT"
[ ! -e "$WORK/bad" ] || fail "a refused run created its directory"
finish
