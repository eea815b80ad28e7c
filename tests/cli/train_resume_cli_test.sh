#!/usr/bin/env bash
# End-to-end checks of `compopt train --checkpoint-every` and `--resume`: a run
# stopped early (shorter run.steps) or cut short (later checkpoints lost) and
# resumed writes a metrics.csv identical to the uninterrupted run's in every
# column but time_s (wall time on Local, measured compute on Sim), for 1-bit
# Adam (resumed before its freeze step), 1-bit LAMB and Birder with 4 ranks on
# 2 nodes, on the Local and the Sim backend. Bad resumes exit 2, name the
# problem, and leave the run directory untouched.
#   train_resume_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

write_config() {  # write_config FILE OPTIMIZER_TABLE_LINES...
  local file=$1
  shift
  {
    printf '[run]\nranks = 4\nranks_per_node = 2\nbatch_per_rank = 8\nsteps = 40\neval_every = 10\n'
    printf '[task]\nname = "quadratic"\ndimension = 50\nnoise = 0.5\n[optimizer]\n'
    printf '%s\n' "$@"
  } > "$file"
}
write_config "$WORK/onebit-adam.toml" 'name = "onebit-adam"' 'lr = 0.01' 'freeze_step = 25'
write_config "$WORK/onebit-lamb.toml" 'name = "onebit-lamb"' 'lr = 0.01' 'freeze_step = 15'
write_config "$WORK/birder.toml" 'name = "birder"' 'lr = 0.005'

train() {  # train LOG ARGS...: runs compopt train quietly, fails the test on error.
  local log=$1
  shift
  "$BIN" train "$@" --quiet > "$log" 2>&1 || { fail "compopt train $*: $(cat "$log")"; return 1; }
}
# summary.json keys of measured wall-clock time (they differ run to run).
WALL_KEYS='"(time|step_wall|compute|comm|compression)_s"'
# same_but_time A B WHAT: metrics.csv equal in columns 1-12 (all but time_s).
same_but_time() {
  [ "$(wc -l < "$1/metrics.csv")" -eq 41 ] || fail "$3: $1/metrics.csv has $(wc -l < "$1/metrics.csv") lines"
  diff <(cut -d, -f1-12 "$1/metrics.csv") <(cut -d, -f1-12 "$2/metrics.csv") > "$WORK/diff.txt" \
    || fail "$3: metrics.csv differs from the uninterrupted run: $(head -5 "$WORK/diff.txt")"
}

for backend in local sim; do
  sim_args=()
  [ $backend = sim ] && sim_args=(--set run.backend=sim --set run.cluster=ethernet-v100-4)
  for opt in onebit-adam onebit-lamb birder; do
    cfg="$WORK/$opt.toml"
    tag="$opt/$backend"
    full="$WORK/$backend-$opt-full"
    train "$WORK/log" "$cfg" "${sim_args[@]}" --out "$full" || continue

    # 1. Stopped at step 20 (run.steps = 20), continued to 40.
    part="$WORK/$backend-$opt-part"
    train "$WORK/log" "$cfg" "${sim_args[@]}" --set run.steps=20 --checkpoint-every 10 --out "$part" || continue
    [ -f "$part/checkpoints/step-00000010.ckpt" ] && [ -f "$part/checkpoints/step-00000020.ckpt" ] \
      || fail "$tag: checkpoints after steps 10 and 20 missing: $(ls "$part/checkpoints")"
    train "$WORK/log" --resume "$part" --set run.steps=40 || continue
    same_but_time "$part" "$full" "$tag (run.steps 20 -> 40)"
    [ -f "$part/checkpoints/step-00000040.ckpt" ] || fail "$tag: no final checkpoint after the resume"
    grep -q '"resumed_from"' "$part/run.json" || fail "$tag: run.json does not record the resume"
    # summary.json: equal but for the wall time.
    diff <(grep -vE "$WALL_KEYS" "$part/summary.json") <(grep -vE "$WALL_KEYS" "$full/summary.json") > /dev/null \
      || fail "$tag: summary.json differs: $(diff "$part/summary.json" "$full/summary.json")"

    # 2. Cut short after the checkpoint of step 20 (later checkpoints lost), resumed as is.
    cut="$WORK/$backend-$opt-cut"
    train "$WORK/log" "$cfg" "${sim_args[@]}" --checkpoint-every 10 --out "$cut" || continue
    same_but_time "$cut" "$full" "$tag (checkpointing run)"
    rm "$cut/checkpoints/step-00000030.ckpt" "$cut/checkpoints/step-00000040.ckpt" "$cut/summary.json"
    head -21 "$cut/metrics.csv" > "$WORK/m" && mv "$WORK/m" "$cut/metrics.csv"  # as of step 20
    train "$WORK/log" --resume "$cut" || continue
    same_but_time "$cut" "$full" "$tag (cut short at 20)"
    grep -q "checkpoints/step-00000020.ckpt" "$cut/run.json" || fail "$tag: resumed from another checkpoint"
  done
done
# Local and Sim agree as well.
same_but_time "$WORK/sim-onebit-adam-part" "$WORK/local-onebit-adam-full" "onebit-adam sim vs local"

# A run that fails (SGD diverges: non-finite gradient at step 15) leaves its
# checkpoints and a metrics.csv as of the latest one (steps 1..10).
printf '[run]\nranks = 4\nbatch_per_rank = 8\nsteps = 40\n[task]\nname = "quadratic"\ndimension = 50\n[optimizer]\nname = "sgd"\nlr = 1000\n' \
  > "$WORK/diverge.toml"
"$BIN" train "$WORK/diverge.toml" --checkpoint-every 5 --quiet --out "$WORK/diverge" > "$WORK/log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "diverging run: exit code $rc, expected 1: $(cat "$WORK/log")"
[ "$(ls "$WORK/diverge/checkpoints")" = "$(printf 'step-00000005.ckpt\nstep-00000010.ckpt')" ] \
  || fail "diverging run: checkpoints $(ls "$WORK/diverge/checkpoints")"
[ "$(wc -l < "$WORK/diverge/metrics.csv")" -eq 11 ] && [ "$(tail -1 "$WORK/diverge/metrics.csv" | cut -d, -f1)" = 10 ] \
  || fail "diverging run: metrics.csv is not as of step 10: $(tail -1 "$WORK/diverge/metrics.csv")"

keep="$WORK/keep"
train "$WORK/log" "$WORK/birder.toml" --checkpoint-every 10 --keep-checkpoints 2 --out "$keep"
[ "$(ls "$keep/checkpoints")" = "$(printf 'step-00000030.ckpt\nstep-00000040.ckpt')" ] \
  || fail "--keep-checkpoints 2 kept: $(ls "$keep/checkpoints")"

# Refusals: exit code 2, the problem named, the run directory untouched.
dir="$WORK/local-onebit-adam-part"
snapshot() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }
expect_refusal() {  # expect_refusal NAME DIR EXPECTED ARGS...
  local name=$1 target=$2 want=$3
  shift 3
  local before
  before=$(snapshot "$target")
  expect_exit 2 -- "$BIN" train "$@" --quiet
  expect_contains "$name" "$want" "$OUTPUT"
  [ "$(snapshot "$target")" = "$before" ] || fail "$name: run directory was modified"
}
expect_refusal "finished run" "$dir" "nothing left to run" --resume "$dir"
expect_refusal "other lr" "$dir" "optimizer.lr = 0.01 in the checkpoint, 0.02 now" \
  --resume "$dir" --set run.steps=60 --set optimizer.lr=0.02
expect_refusal "other freeze step" "$dir" "optimizer.freeze_step = 25 in the checkpoint, 30 now" \
  --resume "$dir" --set run.steps=60 --set optimizer.freeze_step=30
expect_refusal "other world size" "$dir" "run.ranks = 4 in the checkpoint, 8 now" \
  --resume "$dir" --set run.steps=60 --set run.ranks=8
expect_refusal "other task" "$dir" "task.parameters = 50 in the checkpoint, 60 now" \
  --resume "$dir" --set run.steps=60 --set task.dimension=60
expect_refusal "other optimizer" "$WORK/local-birder-part" "optimizer.name = birder in the checkpoint, onebit-adam now" \
  --resume "$WORK/local-birder-part" --set run.steps=60 --set optimizer.name=onebit-adam
expect_refusal "other backend" "$dir" "run.backend = local in the checkpoint, sim now" \
  --resume "$dir" --set run.steps=60 --set run.backend=sim
expect_refusal "config and resume" "$dir" "a resumed run takes its configuration from its checkpoint" \
  "$WORK/birder.toml" --resume "$dir"
expect_refusal "out and resume" "$dir" "continues in its own directory" --resume "$dir" --out "$WORK/x"
expect_refusal "new run over checkpoints" "$dir" "exists; pass --overwrite to replace it" \
  "$WORK/birder.toml" --out "$dir"
expect_refusal "negative interval" "$dir" "--checkpoint-every -1" "$WORK/birder.toml" \
  --checkpoint-every -1 --out "$dir"
expect_refusal "no checkpoints" "$WORK/local-birder-full" "no checkpoint in" --resume "$WORK/local-birder-full"
[ ! -e "$WORK/nowhere" ] && expect_refusal "missing directory" "$WORK/keep" "not a directory" \
  --resume "$WORK/nowhere"

# A damaged latest checkpoint is refused (not silently skipped).
latest() { ls "$1"/checkpoints/step-*.ckpt | tail -1; }
cp -r "$dir" "$WORK/truncated"
ckpt=$(latest "$WORK/truncated")
truncate -s $(($(stat -c %s "$ckpt") / 2)) "$ckpt"
expect_refusal "truncated checkpoint" "$WORK/truncated" "truncated" --resume "$WORK/truncated" --set run.steps=60
cp -r "$dir" "$WORK/flipped"
ckpt=$(latest "$WORK/flipped")
printf '\x5a' | dd of="$ckpt" bs=1 seek=100 conv=notrunc status=none
expect_refusal "flipped byte" "$WORK/flipped" "checksum mismatch" --resume "$WORK/flipped" --set run.steps=60
cp -r "$dir" "$WORK/version"
ckpt=$(latest "$WORK/version")
printf '\x07' | dd of="$ckpt" bs=1 seek=8 conv=notrunc status=none
expect_refusal "other format version" "$WORK/version" "format version 7, this build reads versions 1 to 2" \
  --resume "$WORK/version" --set run.steps=60

finish "all compopt train --checkpoint-every / --resume CLI checks passed"
