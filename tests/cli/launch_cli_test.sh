#!/usr/bin/env bash
# End-to-end checks of `compopt launch`: any program with torchrun's variables, a missing
# program refused before any rank starts, two launches on this machine forming one 4-rank
# TCP job (--nnodes 2), the root cause of a failure in the last line (a rank killed with
# SIGKILL; a rank that names a hung one), TCP ranks under torchrun's variables (rank 0 on
# MASTER_PORT + 1, the token from TORCHELASTIC_RUN_ID), and bad layouts (exit code 2).
#   launch_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
SRC=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
cd "$WORK" || exit 1
unset RANK WORLD_SIZE MASTER_ADDR MASTER_PORT COMPOPT_JOB_TOKEN TORCHELASTIC_RUN_ID
port_pair() { /usr/bin/python3 "$SRC/tests/cli/free_port_pair.py"; }
# The comm-bench both jobs run; its fp32 allreduce of 0.5 MB sends 2 (n-1)/n * 500000 bytes
# per rank: 750000 at 4 ranks, 500000 at 2.
BENCH=(comm-bench --backend tcp --sizes 0.5 --variants allreduce-fp32 --iters 2 --overwrite)
wire_bytes() { awk -F, '$3 == "allreduce-fp32" { print $2 " " $8 }' "$1/comm_bench.csv"; }

# --- any program, with the variables of torchrun ---
"$BIN" launch -n 3 -- sh -c 'echo "$RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE $GROUP_RANK"' \
  > any.log 2>&1 || fail "sh under launch: $(cat any.log)"
for r in 0 1 2; do
  grep -qx "\[rank $r\] $r $r 3 3 0" any.log || fail "rank $r of sh: $(cat any.log)"
done
"$BIN" launch -n 2 -- /usr/bin/python3 -c 'import os; print("py", os.environ["RANK"])' > py.log 2>&1
grep -qx "\[rank 1\] py 1" py.log || fail "python3 under launch: $(cat py.log)"

# --- a missing program: exit 2 naming it, no rank started ---
expect_exit 2 -- "$BIN" launch -n 2 -- no-such-program-xyz --flag
expect_contains "missing program" \
  "'no-such-program-xyz' is neither a compopt subcommand nor a program on PATH" "$OUTPUT"
grep -q "^\[rank" <<<"$OUTPUT" && fail "a rank started for a missing program: $OUTPUT"

# --- the launcher holds no port: its rank can bind the MASTER_PORT the launcher picked ---
"$BIN" launch -n 1 -- /usr/bin/python3 -c \
  'import os, socket; socket.socket().bind(("127.0.0.1", int(os.environ["MASTER_PORT"]))); print("bound")' \
  > port.log 2>&1
grep -qx "\[rank 0\] bound" port.log || fail "MASTER_PORT held during the launch: $(cat port.log)"

# --- node 1 of 2: global ranks 2, 3, the token every node derives from --run-id ---
"$BIN" launch -n 2 --nnodes 2 --node-rank 1 --master-port 29999 --run-id job-a -- \
  sh -c 'echo "$RANK $LOCAL_RANK $WORLD_SIZE $GROUP_RANK $MASTER_PORT $COMPOPT_JOB_TOKEN"' > node1.log 2>&1
"$BIN" launch -n 2 --nnodes 2 --node-rank 0 --master-port 29999 --run-id job-a -- \
  sh -c 'echo "$COMPOPT_JOB_TOKEN"' > node0.log 2>&1
token=$(sed -n 's/^\[rank 0\] //p' node0.log)
[ ${#token} -eq 32 ] || fail "token of node 0: '$token'"
grep -qx "\[rank 3\] 3 1 4 1 29999 $token" node1.log || fail "node 1: $(cat node1.log) vs token $token"

# --- two launches on this machine form one 4-rank TCP job ---
P=$(port_pair)
"$BIN" launch -n 2 --nnodes 2 --node-rank 1 --master-port "$P" --run-id job-b -- "${BENCH[@]}" \
  --out "$WORK/mn1" > mn1.log 2>&1 &
node1=$!
timeout 90 "$BIN" launch -n 2 --nnodes 2 --node-rank 0 --master-port "$P" --run-id job-b -- \
  "${BENCH[@]}" --out "$WORK/mn" > mn0.log 2>&1 || fail "node 0 of the 4-rank job: $(cat mn0.log)"
wait $node1 || fail "node 1 of the 4-rank job: $(cat mn1.log)"
grep -q "^\[rank 0\] # compopt tcp: 4 ranks" mn0.log || fail "4 ranks: $(cat mn0.log)"
[ "$(wire_bytes mn)" = "4 750000" ] || fail "4-rank wire bytes: $(wire_bytes mn)"
timeout 60 "$BIN" launch -n 4 -- "${BENCH[@]}" --out "$WORK/one" > one.log 2>&1 || fail "one node: $(cat one.log)"
[ "$(wire_bytes one)" = "$(wire_bytes mn)" ] || fail "one node $(wire_bytes one) vs two $(wire_bytes mn)"

# --- the root cause: rank 2 killed with SIGKILL while its peers are busy ---
"$BIN" launch -n 3 -- comm-bench --backend tcp --sizes 4 --iters 100000 --warmup 0 --overwrite \
  --out "$WORK/kill" > kill.log 2>&1 &
launcher=$!
victim=""
for _ in $(seq 100); do
  for child in $(pgrep -P $launcher); do
    tr '\0' '\n' < "/proc/$child/environ" 2>/dev/null | grep -qx RANK=2 && victim=$child
  done
  [ -n "$victim" ] && grep -q "^\[rank 0\] compopt comm-bench" kill.log && break
  sleep 0.1
done
sleep 0.5  # inside the timed loop
[ -n "$victim" ] && kill -9 "$victim"
wait $launcher
code=$?
[ $code -eq 1 ] || fail "killed rank: launch exited $code, expected 1"
last=$(tail -n 1 kill.log)
[[ $last == *"launch: rank 2 was killed by signal 9 (Killed), "* ]] \
  || fail "killed rank: last line '$last'"
[[ $last == *"name rank 2"* || $last == *"names rank 2"* ]] || fail "killed rank blamed: '$last'"

# --- a rank that names a hung one: both are in the last line ---
"$BIN" launch -n 3 --grace 0.5 -- sh -c \
  'if [ "$RANK" = 0 ]; then echo "rank 0: nothing heard from rank 2 for 8.0 s" >&2; exit 1; fi; sleep 30' \
  > hung.log 2>&1
last=$(tail -n 1 hung.log)
[ "$last" = "compopt: failed: launch: rank 0 exited with code 1, the first rank to fail; the error of rank 0 names rank 2" ] \
  || fail "hung rank: last line '$last'"

# --- torchrun's variables without torchrun: its store holds MASTER_PORT, rank 0 takes the next ---
P=$(port_pair)
/usr/bin/python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',$P)); s.listen(); time.sleep(60)" &
store=$!
ranks=()
for r in 0 1; do
  env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" TORCHELASTIC_RUN_ID=run-x \
    timeout 60 "$BIN" "${BENCH[@]}" --out "$WORK/tr$r" > "tr$r.log" 2>&1 &
  ranks+=($!)
done
wait "${ranks[0]}" || fail "torchrun-style rank 0: $(cat tr0.log)"
wait "${ranks[1]}" || fail "torchrun-style rank 1: $(cat tr1.log)"
[ "$(wire_bytes tr0)" = "2 500000" ] || fail "torchrun-style wire bytes: $(cat tr0.log)"
# MASTER_PORT + 1 taken as well: rank 0 says which port.
/usr/bin/python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',$((P + 1)))); s.listen(); time.sleep(60)" &
blocker=$!
sleep 0.5
env RANK=0 WORLD_SIZE=2 MASTER_PORT="$P" TORCHELASTIC_RUN_ID=run-x timeout 60 "$BIN" "${BENCH[@]}" \
  --out "$WORK/taken" > taken.log 2>&1 && fail "rank 0 on a taken port succeeded"
grep -q "127.0.0.1:$((P + 1))" taken.log || fail "taken port not named: $(cat taken.log)"
kill $store $blocker 2>/dev/null

# --- bad layouts: exit 2 naming the value, no rank started ---
expect_bad() {
  local want=$1
  shift
  expect_exit 2 -- "$BIN" launch "$@" -- sh -c 'echo started'
  expect_contains "launch $*" "$want" "$OUTPUT"
  grep -q started <<<"$OUTPUT" && fail "launch $* started ranks"
}
expect_bad "--nnodes 0" --nnodes 0
expect_bad "--node-rank 2" --nnodes 2 --node-rank 2 --master-port 29999 --run-id x
expect_bad "--node-rank -1" --node-rank -1
expect_bad "without --master-port" --nnodes 2 --run-id x
expect_bad "without a shared job token" --nnodes 2 --master-port 29999
expect_bad "1100 ranks" -n 550 --nnodes 2 --master-port 29999 --run-id x
expect_bad "--job-token of 5 characters" --job-token short
expect_bad "not both" --job-token 0123456789abcdef0 --run-id x
COMPOPT_JOB_TOKEN=abc expect_bad "COMPOPT_JOB_TOKEN of 3 characters"

finish "all compopt launch CLI checks passed"
