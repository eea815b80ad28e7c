#!/usr/bin/env bash
# `compopt train` on real processes (docs/training.md "Training on processes"):
# - `compopt launch -n 4 -- train ... run.backend=tcp` and `mpirun -n 4 compopt train
#   ... run.backend=mpi` write a metrics.csv equal to the Local run's in every column
#   but the clocks (time_s and the measured wall-clock split), for adam, onebit-adam,
#   birder and onebit-lamb;
# - only rank 0 writes a run directory (also the default runs/train-<time>) and prints;
# - a config error exits 2 on every rank without a hang;
# - --checkpoint-every / --resume across processes: a run cut at step 20 and resumed
#   equals the uninterrupted run; resuming with another world size is refused (exit 2).
# MPI parts are skipped with a message when mpirun is absent.
#   train_processes_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

cat > "$WORK/cfg.toml" <<'TOML'
[run]
ranks = 4
batch_per_rank = 16
steps = 40
eval_every = 10
seed = 3
[task]
name = "logistic"
dimension = 20
train_size = 4096
test_size = 256
separable = false
[optimizer]
lr = 0.02
TOML

MPIRUN=()
if command -v mpirun > /dev/null; then
  MPIRUN=(mpirun)
  # Root in containers, and more ranks than cores on small machines (Open MPI).
  if mpirun --version 2>&1 | grep -q "Open MPI"; then MPIRUN+=(--allow-run-as-root --oversubscribe); fi
else
  echo "SKIP (MPI parts): mpirun not found"
fi

local_run() { "$BIN" train "$WORK/cfg.toml" --quiet "$@"; }
tcp_run() { timeout 120 "$BIN" launch -n "$1" -- train "${@:2}" --set run.backend=tcp --quiet; }
mpi_run() { timeout 120 "${MPIRUN[@]}" -n "$1" "$BIN" train "${@:2}" --set run.backend=mpi --quiet; }
# same12 A B WHAT: metrics.csv equal in columns 1-12 (all but the clock columns).
same12() {
  [ "$(wc -l < "$1/metrics.csv")" -eq 41 ] || { fail "$3: $1/metrics.csv has $(wc -l < "$1/metrics.csv") lines"; return; }
  diff <(cut -d, -f1-12 "$1/metrics.csv") <(cut -d, -f1-12 "$2/metrics.csv") > "$WORK/diff.txt" \
    || fail "$3: metrics.csv differs from the Local run: $(head -5 "$WORK/diff.txt")"
}

# Exactness: every optimizer's processes equal its Local run.
for opt in adam onebit-adam birder onebit-lamb; do
  args=(--set "optimizer.name=$opt")
  case $opt in onebit-*) args+=(--set optimizer.freeze_step=10) ;; esac
  local_run "${args[@]}" --out "$WORK/local-$opt" || { fail "$opt: local run failed"; continue; }
  if tcp_run 4 "$WORK/cfg.toml" "${args[@]}" --out "$WORK/tcp-$opt" > "$WORK/tcp.log" 2>&1; then
    same12 "$WORK/tcp-$opt" "$WORK/local-$opt" "$opt/tcp"
  else
    fail "$opt: 4 TCP processes failed: $(tail -5 "$WORK/tcp.log")"
  fi
  [ ${#MPIRUN[@]} -gt 0 ] || continue
  if mpi_run 4 "$WORK/cfg.toml" "${args[@]}" --out "$WORK/mpi-$opt" > "$WORK/mpi.log" 2>&1; then
    same12 "$WORK/mpi-$opt" "$WORK/local-$opt" "$opt/mpi"
  else
    fail "$opt: 4 MPI processes failed: $(tail -5 "$WORK/mpi.log")"
  fi
done

# The wall-clock columns are there, measured on rank 0: a step takes time.
awk -F, 'NR > 1 && !($14 > 0) { bad = 1 } END { exit bad }' "$WORK/tcp-adam/metrics.csv" \
  || fail "tcp run: step_wall_s not > 0 on every row"

# Only rank 0 writes and prints; the default run directory is rank 0's alone.
mkdir -p "$WORK/cwd"
if (cd "$WORK/cwd" && timeout 120 "$BIN" launch -n 4 -- train "$WORK/cfg.toml" --set run.backend=tcp \
      > "$WORK/default.log" 2>&1); then
  [ "$(ls "$WORK/cwd/runs" | wc -l)" -eq 1 ] || fail "default --out: $(ls "$WORK/cwd/runs")"
  ! grep -q "^\[rank [123]\]" "$WORK/default.log" || fail "ranks 1-3 printed: $(grep "^\[rank [123]\]" "$WORK/default.log" | head -3)"
  grep -q "^\[rank 0\] done:" "$WORK/default.log" || fail "rank 0 did not report: $(tail -3 "$WORK/default.log")"
else
  fail "default --out run failed: $(tail -5 "$WORK/default.log")"
fi

# A config error fails every rank with exit code 2, fast.
start=$SECONDS
expect_exit 2 -- tcp_run 4 "$WORK/cfg.toml" --set run.bogus=1 --out "$WORK/bad"
[ $((SECONDS - start)) -lt 30 ] || fail "config error under launch took $((SECONDS - start)) s"
[ ! -e "$WORK/bad" ] || fail "config error created the run directory"
expect_exit 2 -- timeout 60 "$BIN" launch -n 2 -- train "$WORK/cfg.toml" --out "$WORK/bad"
expect_contains "run.backend = local under launch" "use run.backend = 'tcp'" "$OUTPUT"
[ ! -e "$WORK/bad" ] || fail "run.backend = local under launch created the run directory"
if [ ${#MPIRUN[@]} -gt 0 ]; then
  expect_exit 2 -- mpi_run 4 "$WORK/cfg.toml" --set run.ranks=3 --out "$WORK/bad"
  expect_contains "run.ranks mismatch under mpirun" \
    "key 'run.ranks' = 3, but this process is one rank of a launched world of 4 ranks" "$OUTPUT"
fi

# Resume across processes: cut at step 20, continued to 40, equals the uninterrupted run.
for backend in tcp mpi; do
  [ $backend = tcp ] || [ ${#MPIRUN[@]} -gt 0 ] || continue
  for opt in onebit-adam birder; do
    args=(--set "optimizer.name=$opt")
    [ $opt = onebit-adam ] && args+=(--set optimizer.freeze_step=10)
    tag="$opt/$backend resume"
    cut="$WORK/$backend-$opt-cut"
    if ${backend}_run 4 "$WORK/cfg.toml" "${args[@]}" --set run.steps=20 --checkpoint-every 10 \
        --out "$cut" > "$WORK/cut.log" 2>&1 \
      && ${backend}_run 4 --resume "$cut" --set run.steps=40 > "$WORK/resume.log" 2>&1; then
      same12 "$cut" "$WORK/local-$opt" "$tag"
      [ -f "$cut/checkpoints/step-00000040.ckpt" ] || fail "$tag: no checkpoint at step 40"
    else
      fail "$tag failed: $(tail -3 "$WORK/cut.log" "$WORK/resume.log")"
      continue
    fi
    expect_exit 2 -- "${backend}_run" 2 --resume "$cut" --set run.steps=60
    expect_contains "$tag: another world size" "holds 4 ranks, this launched world has 2" "$OUTPUT"
  done
done

finish "all train-on-processes checks passed"
