#!/usr/bin/env bash
# A rank that hangs (SIGSTOP) or dies (SIGKILL) in the middle of a 4-rank job ends the
# whole job within 10 s, and the ranks' messages name it (rank 2).
#   rank_fault_cli_test.sh COMPOPT_BINARY tcp|mpi STOP|KILL [MPIEXEC [MPIEXEC_FLAGS...]]
# tcp runs under `compopt launch -n 4`, mpi under MPIEXEC (exit 77, a ctest skip, without
# it); the mpi messages checked are Open MPI's (mpirun names a killed rank itself).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
BACKEND=$2
SIG=$3
MPIEXEC=${4:-}
MPIEXEC_FLAGS=("${@:5}")
VICTIM=2
job=
on_exit '[ -n "$job" ] && kill -KILL "$job" 2>/dev/null'
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# True while fewer than $2 seconds passed since $1.
within() { awk -v s="$(since "$1")" -v limit="$2" 'BEGIN { exit !(s < limit) }'; }

args=(comm-bench --backend "$BACKEND" --sizes 4 --iters 100000 --warmup 0 --overwrite
      --out "$WORK/run")
if [ "$BACKEND" = tcp ]; then
  "$BIN" launch -n 4 -- "${args[@]}" > "$WORK/log" 2>&1 &
  job=$!
  rank_variable=RANK
else
  if [ -z "$MPIEXEC" ] || ! command -v "$MPIEXEC" > /dev/null; then
    skip "no mpirun (MPIEXEC='$MPIEXEC')"
  fi
  "$MPIEXEC" "${MPIEXEC_FLAGS[@]}" -np 4 "$BIN" "${args[@]}" > "$WORK/log" 2>&1 &
  job=$!
  rank_variable='(OMPI_COMM_WORLD_RANK|PMI_RANK)'
fi

# The victim: the rank process whose environment says it is rank 2.
victim=
started=$(now)
while [ -z "$victim" ] && within "$started" 30; do
  for p in $(pgrep -f -- "--out $WORK/run"); do
    tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qxE "$rank_variable=$VICTIM" && victim=$p
  done
  sleep 0.2
done
[ -n "$victim" ] || { fail "rank $VICTIM never started: $(cat "$WORK/log")"; finish; }
sleep 3  # connected and in the allreduce loop (setup takes well under a second)

stopped=$(now)
kill "-$SIG" "$victim"
while kill -0 "$job" 2> /dev/null && within "$stopped" 30; do sleep 0.05; done
elapsed=$(since "$stopped")
kill -0 "$job" 2> /dev/null && { fail "the job still runs 30 s after SIG$SIG"; finish; }
wait "$job"
rc=$?
job=
echo "SIG$SIG of rank $VICTIM ($BACKEND): the job ended after $elapsed s with exit code $rc"
[ "$rc" -ne 0 ] || fail "exit code 0 after SIG$SIG of a rank"
awk -v e="$elapsed" 'BEGIN { exit !(e < 10) }' || fail "ended after $elapsed s, expected < 10 s"
case "$BACKEND-$SIG" in
  tcp-STOP) expected="rank $VICTIM stopped responding (nothing heard for" ;;
  tcp-KILL) expected="rank $VICTIM died or was killed" ;;
  mpi-STOP) expected="rank $VICTIM stopped responding (no heartbeat for" ;;
  mpi-KILL) expected="process rank $VICTIM with PID" ;;
esac
grep -qF "$expected" "$WORK/log" || fail "no '$expected' in the output: $(tail -20 "$WORK/log")"
grep -F "$expected" "$WORK/log" | head -2
finish
