#!/usr/bin/env bash
# Run directories from the command line: a second `profile --out D` is refused with exit
# code 2 and leaves D as it was; with --overwrite D is replaced by a completed run; a
# profile aimed at a training run's directory leaves its run.json (and everything else)
# alone; a killed-looking leftover temp file of a dead process is cleaned up.
#   run_directory_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
snapshot() { (cd "$1" && find . -printf '%p %y %s\n' | sort && find . -type f -exec md5sum {} + | sort); }

D=$WORK/profile
"$BIN" profile --out "$D" > "$WORK/log" 2>&1 || fail "first profile failed: $(tail -3 "$WORK/log")"
grep -q '"status": "completed"' "$D/run.json" || fail "run.json lacks status completed"
before=$(snapshot "$D")
expect_exit 2 -- "$BIN" profile --gpus 8 --out "$D"
expect_contains "second profile" \
  "--out $D exists; pass --overwrite to replace it once the new run succeeds" "$OUTPUT"
[ "$(snapshot "$D")" = "$before" ] || fail "a refused profile changed $D"

"$BIN" profile --gpus 8 --overwrite --out "$D" > "$WORK/log" 2>&1 \
  || fail "profile --overwrite failed: $(tail -3 "$WORK/log")"
grep -q '"gpus": 8' "$D/run.json" || fail "--overwrite did not replace run.json"
grep -q '"status": "completed"' "$D/run.json" || fail "replaced run.json lacks status completed"
[ "$(ls -A "$WORK" | grep -v "^log$")" = "profile" ] || fail "leftovers next to $D: $(ls -A "$WORK")"

# A training run's directory is not replaced by a profile.
cat > "$WORK/quad.toml" <<'TOML'
[run]
ranks = 2
batch_per_rank = 4
steps = 3
[task]
name = "quadratic"
dimension = 8
[optimizer]
name = "adam"
TOML
T=$WORK/train
"$BIN" train "$WORK/quad.toml" --quiet --checkpoint-every 2 --out "$T" > "$WORK/log" 2>&1 \
  || fail "train failed: $(tail -3 "$WORK/log")"
grep -q '"command": "train"' "$T/run.json" || fail "train run.json lacks the command"
before=$(snapshot "$T")
expect_exit 2 -- "$BIN" profile --out "$T"  # into a training run
[ "$(snapshot "$T")" = "$before" ] || fail "profile into a training run changed it"

# A temporary file left by a dead process is removed by the next run that opens the folder.
sh -c 'exit 0' &
dead=$!
wait $dead
touch "$T/.metrics.csv.tmp.$dead"
"$BIN" train --resume "$T" --set run.steps=4 --quiet > "$WORK/log" 2>&1 \
  || fail "resume failed: $(tail -3 "$WORK/log")"
[ ! -e "$T/.metrics.csv.tmp.$dead" ] || fail "stale temporary file of PID $dead was not removed"
grep -q '"status": "completed"' "$T/run.json" || fail "resumed run.json lacks status completed"

finish "all run directory CLI checks passed"
