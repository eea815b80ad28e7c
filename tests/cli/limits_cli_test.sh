#!/usr/bin/env bash
# Inputs beyond what one host can do end with a clear message in bounded time, and no run is
# left marked "running" (docs/robustness.md, "Limits of the host"):
# - collectives: too many ranks or messages refused up front (exit 2, no run directory); a
#   thread that cannot start (address space too small for the ranks' stacks) is a clean
#   failure (exit 1, run.json "failed"), not an abort;
# - train on in-process TCP ranks: the open files the mesh needs are checked up front
#   (exit 2 naming the limit); a low soft limit is raised to the need;
# - a rank stopped before it starts (SIGSTOP): `compopt launch` ends the job after
#   --stopped-timeout naming it; under mpirun the start-up roll call or watchdog ends it;
# - a killed run's run.json: the next command says it is stale, also when the launcher or
#   mpirun was killed.
#   limits_cli_test.sh COMPOPT_BINARY [MPIEXEC [MPIEXEC_FLAGS...]]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
MPIEXEC=${2:-}
MPIEXEC_FLAGS=("${@:3}")
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
below() { awk -v s="$1" -v limit="$2" 'BEGIN { exit !(s < limit) }'; }

cat > "$WORK/cfg.toml" <<'TOML'
[run]
ranks = 2
batch_per_rank = 16
steps = 4
eval_every = 2
seed = 3
[task]
name = "logistic"
dimension = 20
train_size = 4096
test_size = 64
separable = false
[optimizer]
lr = 0.02
TOML

# --- collectives ---------------------------------------------------------------------------
started=$(now)
if expect_exit 2 -- "$BIN" collectives --ranks 4096 --elements 16 --out "$WORK/c4096"; then
  expect_contains "collectives 4096 ranks" "--ranks 4096 x --steps 5: about" "$OUTPUT"
  expect_contains "collectives 4096 ranks" "lower --ranks or --steps" "$OUTPUT"
fi
below "$(since "$started")" 5 || fail "collectives --ranks 4096 took $(since "$started") s to refuse"
[ ! -e "$WORK/c4096" ] || fail "collectives --ranks 4096 left a run directory"
# 200 ranks in an address space of 600 MB: the 8 MB stacks of 200 threads do not fit.
# (Not under a sanitizer, whose shadow memory needs far more address space than that.)
if [ -n "${COMPOPT_SANITIZE:-}" ]; then
  echo "SKIP (address-space case): a $COMPOPT_SANITIZE sanitizer build"
elif expect_exit 1 -- bash -c 'ulimit -s 8192 && ulimit -v 600000 && exec "$0" "$@"' "$BIN" \
    collectives --ranks 200 --gpus-per-node 0 --elements 16 --steps 1 --out "$WORK/c200"; then
  expect_contains "collectives without threads" "could not start the thread of rank" "$OUTPUT"
  grep -q '"status": "failed"' "$WORK/c200/run.json" 2> /dev/null \
    || fail "collectives without threads: run.json not failed: $(cat "$WORK/c200/run.json")"
fi

# --- train on in-process TCP ranks ---------------------------------------------------------
# 40 ranks hold 40 x 39 sockets: far above a hard limit of 1000.
if expect_exit 2 -- bash -c 'ulimit -n 1000 && exec "$0" "$@"' "$BIN" train "$WORK/cfg.toml" \
    --set run.backend=tcp --set run.ranks=40 --quiet --out "$WORK/tcp40"; then
  expect_contains "tcp 40 ranks" "40 in-process TCP ranks need about" "$OUTPUT"
  expect_contains "tcp 40 ranks" "the limit is 1000 (hard 1000)" "$OUTPUT"
  [ ! -e "$WORK/tcp40" ] || fail "tcp 40 ranks: refused, but left a run directory"
fi
# 4,096 ranks (they used to hang): refused at once, whatever the limit, before any work.
started=$(now)
if expect_exit 2 -- bash -c 'ulimit -n 1000 && exec "$0" "$@"' "$BIN" train "$WORK/cfg.toml" \
    --set run.backend=tcp --set run.ranks=4096 --set task.train_size=131072 --quiet \
    --out "$WORK/tcp4096"; then
  expect_contains "tcp 4096 ranks" "4096 in-process TCP ranks need about" "$OUTPUT"
  [ ! -e "$WORK/tcp4096" ] || fail "tcp 4096 ranks: refused, but left a run directory"
fi
below "$(since "$started")" 5 || fail "tcp 4096 ranks took $(since "$started") s to refuse"
# 8 ranks under a soft limit of 64 (hard unchanged): raised, and the run completes.
if expect_exit 0 -- bash -c 'ulimit -Sn 64 && exec "$0" "$@"' "$BIN" train "$WORK/cfg.toml" \
    --set run.backend=tcp --set run.ranks=8 --quiet --out "$WORK/tcp8"; then
  grep -q '"status": "completed"' "$WORK/tcp8/run.json" || fail "tcp 8 ranks: not completed"
fi

# --- a rank stopped before it starts -------------------------------------------------------
# The rank's shell stops itself before exec'ing compopt: stopped during start-up.
stop_rank1='if [ "${RANK:-${OMPI_COMM_WORLD_RANK:-}}" = 1 ]; then kill -STOP $$; fi; exec "$@"'
started=$(now)
expect_exit 1 -- timeout 60 "$BIN" launch -n 2 --stopped-timeout 2 --grace 1 -- \
  bash -c "$stop_rank1" rank "$BIN" train "$WORK/cfg.toml" --set run.backend=tcp --quiet \
  --out "$WORK/stopped_tcp"
took=$(since "$started")
echo "launch, rank 1 stopped before start-up: exit after $took s"
expect_contains "launch stopped rank" "rank 1 was stopped by signal 19" "$OUTPUT"
below "$took" 15 || fail "launch with a stopped rank took $took s, expected < 15 s"
if [ -n "$MPIEXEC" ] && command -v "$MPIEXEC" > /dev/null; then
  # Stopped before MPI_Init_thread: only the watchdog can end the others (no rank to name).
  started=$(now)
  OUTPUT=$(COMPOPT_MPI_STARTUP_S=3 timeout 60 "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -np 2 \
    -x COMPOPT_MPI_STARTUP_S bash -c "$stop_rank1" rank "$BIN" comm-bench --backend mpi \
    --sizes 0.01 --iters 1 --out "$WORK/stopped_mpi" 2>&1)
  rc=$?
  took=$(since "$started")
  echo "mpirun, rank 1 stopped before MPI_Init: exit $rc after $took s"
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "mpirun with a stopped rank: exit $rc: $OUTPUT"
  expect_contains "mpirun stopped rank" \
    "compopt mpi rank 0 of 2: start-up did not finish within 3 s (stuck in MPI_Init_thread" \
    "$OUTPUT"
  below "$took" 20 || fail "mpirun with a stopped rank took $took s, expected < 20 s"
else
  echo "SKIP (MPI part): no mpirun (MPIEXEC='$MPIEXEC')"
fi

# --- a killed run's run.json ---------------------------------------------------------------
"$BIN" train "$WORK/cfg.toml" --set run.steps=100000000 --quiet --out "$WORK/killed" \
  > /dev/null 2>&1 &
victim=$!
for _ in $(seq 100); do
  grep -q '"status": "running"' "$WORK/killed/run.json" 2> /dev/null && break
  sleep 0.1
done
kill -KILL "$victim"
wait "$victim" 2> /dev/null
grep -q "\"pid\": $victim" "$WORK/killed/run.json" || fail "run.json lacks the pid $victim"
stale="stale (process $victim no longer exists)"
if expect_exit 2 -- "$BIN" train "$WORK/cfg.toml" --quiet --out "$WORK/killed"; then
  expect_contains "new run over a killed one" "(its run.json: $stale)" "$OUTPUT"
fi
# A killed launcher (or mpirun) takes its ranks with it; the next command over the run
# directory says the run is stale within seconds (not "running").
stale_after_kill() {  # name, out dir, command that starts the run...
  local name=$1 out=$2
  shift 2
  "$@" > /dev/null 2>&1 &
  local launcher=$!
  for _ in $(seq 200); do
    grep -q '"status": "running"' "$out/run.json" 2> /dev/null && break
    sleep 0.1
  done
  kill -KILL "$launcher"
  wait "$launcher" 2> /dev/null
  local started message
  started=$(now)
  for _ in $(seq 100); do
    message=$("$BIN" train "$WORK/cfg.toml" --quiet --out "$out" 2>&1)
    [[ $message == *"(its run.json: stale (process "* ]] && break
    sleep 0.1
  done
  expect_contains "$name" "(its run.json: stale (process " "$message"
  echo "$name: reported stale $(since "$started") s after the kill"
  below "$(since "$started")" 10 || fail "$name: still not stale after $(since "$started") s"
}
stale_after_kill "killed launcher" "$WORK/killed_launch" "$BIN" launch -n 2 -- "$BIN" train \
  "$WORK/cfg.toml" --set run.backend=tcp --set run.steps=100000000 --quiet \
  --out "$WORK/killed_launch"
if [ -n "$MPIEXEC" ] && command -v "$MPIEXEC" > /dev/null; then
  stale_after_kill "killed mpirun" "$WORK/killed_mpirun" "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -np 2 \
    "$BIN" train "$WORK/cfg.toml" --set run.backend=mpi --set run.steps=100000000 --quiet \
    --out "$WORK/killed_mpirun"
fi
# Resuming a stale run says so: a finished run with checkpoints, its run.json set back to
# "running" by a process that has gone (the killed one above).
"$BIN" train "$WORK/cfg.toml" --checkpoint-every 2 --quiet --out "$WORK/cut" > /dev/null 2>&1 \
  || fail "the run to resume failed"
sed -i -e 's/"status": "completed"/"status": "running"/' \
  -e "s/\"pid\": [0-9]*/\"pid\": $victim/" "$WORK/cut/run.json"
if expect_exit 0 -- "$BIN" train --resume "$WORK/cut" --set run.steps=6 --quiet; then
  expect_contains "resume of a stale run" "the run was $stale; resuming it" "$OUTPUT"
  grep -q '"status": "completed"' "$WORK/cut/run.json" || fail "resumed run not completed"
fi
finish
