#!/usr/bin/env bash
# Per-peer cost of compopt's TCP backend between network namespaces (docs/calibration.md,
# "Transport profiles"). Needs root, iproute2, tc and /usr/bin/python3 (or python3).
#
# For each world size n in RANKS every rank gets its own namespace on the shaped bridge of
# experiments/validation/netns_common.sh (one switch port per rank, RATE Mbit/s both ways), and
# compopt_peer_bench (experiments/validation/peer_bench.cc) times rounds of CYCLES x (n - 1)
# dependent sendrecv steps of BYTES-byte messages, to 1 peer (ring) or spread over n - 1 peers,
# in alternating blocks. Same messages, same dependencies: the difference is the cost of
# n - 2 more peers per round. n = 2 is the control (both patterns are the same ring).
# Two values of CYCLES tell a cost per peer (the difference stays put) from a cost per change
# of peer (it grows with the steps). Then, per world size, each pattern runs alone for
# SEGMENT_BLOCKS blocks (at the last CYCLES) and the TCP segments its ranks sent are counted:
# what a difference per step is made of (e.g. acknowledgements sent on their own).
#
# Usage: experiments/validation/netns_peer_cost.sh PEER_BENCH_BINARY OUT_DIR
# Env:   RANKS="2 3 4"  CYCLES="1 4"  RATE=1000 (Mbit/s)  ROUNDS=200  BLOCKS=30  BYTES=64
#        SEGMENT_BLOCKS=4 (0: no segment count)
#        NETNS_PREFIX=cptp  SUBNET=10.79.0 (to run beside another netns script)
# Writes into OUT_DIR:
#   peer_cost.csv  one row per timed block and pattern (compopt_peer_bench's columns):
#                  ranks,pattern,peers,cycles,steps,bytes,block,rounds,round_us
#                  (steps = cycles x (ranks - 1) per round; round_us: the slowest rank's
#                  mean wall time of one round, microseconds); n<N>_c<CYCLES>.csv: each run
#   summary.txt    per (ranks, cycles): median round time of each pattern, the paired
#                  spread - ring difference (median, quartiles, 95% bootstrap interval of the
#                  median), and per world size the fit of the difference to a cost per peer
#                  and a cost per step (experiments/validation/netns_peer_cost.py)
#   segments.txt   per world size and pattern: ranks=N cycles=C pattern=P messages=M
#                  segments=S per_message=S/M (TCP OutSegs of the ranks' namespaces)
#   load.txt       `uptime` before and after each world size
# Every namespace it made (NETNS_PREFIX_*) is deleted on exit.
set -euo pipefail

BENCH=$(readlink -f "${1:?usage: $0 PEER_BENCH_BINARY OUT_DIR}")
OUT=$(mkdir -p "${2:?usage: $0 PEER_BENCH_BINARY OUT_DIR}" && readlink -f "$2")
RANKS=${RANKS:-"2 3 4"}
CYCLES=${CYCLES:-"1 4"}
RATE=${RATE:-1000}
ROUNDS=${ROUNDS:-200}
BLOCKS=${BLOCKS:-30}
BYTES=${BYTES:-64}
SEGMENT_BLOCKS=${SEGMENT_BLOCKS:-4}
P=${NETNS_PREFIX:-cptp}
NET=${SUBNET:-10.79.0}
SW=${P}_sw
RANK0_DEV=
RANK_PIDS=()
HERE=$(dirname "$(readlink -f "$0")")
PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON=python3

for v in $RANKS $CYCLES $ROUNDS $BLOCKS $BYTES $RATE; do
  if ! [[ $v =~ ^[1-9][0-9]*$ ]]; then
    echo "$0: '$v' in RANKS, CYCLES, ROUNDS, BLOCKS, BYTES or RATE is not a positive whole number" >&2
    exit 2
  fi
done
if ! [[ $SEGMENT_BLOCKS =~ ^[0-9]+$ ]]; then
  echo "$0: SEGMENT_BLOCKS='$SEGMENT_BLOCKS', expected a whole number (0: no segment count)" >&2
  exit 2
fi
for n in $RANKS; do
  if ((n < 2 || n > 64)); then
    echo "$0: RANKS: $n, expected 2..64 ranks" >&2
    exit 2
  fi
done
if [[ ! -x $BENCH ]]; then
  echo "$0: $BENCH is not an executable; build it with cmake --build BUILD_DIR --target compopt_peer_bench" >&2
  exit 2
fi

# shape, add_rank_namespace, setup_bridge, delete_namespaces (they read P, NET, SW).
# shellcheck source=experiments/validation/netns_common.sh
source "$HERE/netns_common.sh"

teardown() {
  if ((${#RANK_PIDS[@]} > 0)); then  # interrupted during a run
    kill -TERM "${RANK_PIDS[@]}" 2>/dev/null || true
    wait "${RANK_PIDS[@]}" 2>/dev/null || true
    RANK_PIDS=()
  fi
  delete_namespaces
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_ranks N CYCLES BLOCKS PATTERN TAG: the ranks of one run, CSV and logs named by TAG.
run_ranks() {
  local n=$1 cycles=$2 blocks=$3 pattern=$4 tag=$5 token rc=0
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  mkdir -p "$OUT/logs"
  for ((i = 0; i < n; i++)); do
    ip netns exec "${P}_r$i" env RANK=$i WORLD_SIZE="$n" MASTER_ADDR="$NET.1" MASTER_PORT=29611 \
      COMPOPT_LISTEN_ADDR="$NET.$((i + 1))" COMPOPT_NODE_NAME=node$i COMPOPT_JOB_TOKEN="$token" \
      "$BENCH" --cycles "$cycles" --rounds "$ROUNDS" --blocks "$blocks" --bytes "$BYTES" \
      --pattern "$pattern" --out "$OUT/$tag.csv" >"$OUT/logs/$tag.rank$i.log" 2>&1 &
    RANK_PIDS+=($!)
  done
  for pid in "${RANK_PIDS[@]}"; do wait "$pid" || rc=1; done
  RANK_PIDS=()
  if ((rc != 0)); then
    echo "run $tag failed; logs in $OUT/logs/$tag.rank*.log" >&2
    tail -n 5 "$OUT"/logs/"$tag".rank*.log >&2
    return 1
  fi
}

# tcp_segments_sent N: TCP segments sent so far by the N ranks' namespaces (/proc/net/snmp).
tcp_segments_sent() {
  local total=0 v
  for ((i = 0; i < $1; i++)); do
    # shellcheck disable=SC2016  # $col[...] and $f are awk's fields
    v=$(ip netns exec "${P}_r$i" awk '/^Tcp:/ { if (++seen == 1) for (f = 1; f <= NF; f++) col[$f] = f; else print $col["OutSegs"] }' /proc/net/snmp)
    total=$((total + v))
  done
  echo "$total"
}

# count_segments N CYCLES: each pattern alone for SEGMENT_BLOCKS blocks, the TCP segments its
# ranks sent per message (warm-up block included; the few barrier and gather messages of
# the timing are counted as segments, not as messages).
count_segments() {
  local n=$1 cycles=$2 before after messages
  for pattern in ring spread; do
    before=$(tcp_segments_sent "$n")
    run_ranks "$n" "$cycles" "$SEGMENT_BLOCKS" "$pattern" "segments_n${n}_$pattern"
    after=$(tcp_segments_sent "$n")
    messages=$(((SEGMENT_BLOCKS + 1) * ROUNDS * cycles * (n - 1) * n))
    echo "ranks=$n cycles=$cycles pattern=$pattern messages=$messages segments=$((after - before))" \
      "per_message=$(awk "BEGIN { printf \"%.3f\", ($after - $before) / $messages }")" |
      tee -a "$OUT/segments.txt"
  done
}

: >"$OUT/load.txt"
: >"$OUT/segments.txt"
echo "ranks,pattern,peers,cycles,steps,bytes,block,rounds,round_us" >"$OUT/peer_cost.csv"
for n in $RANKS; do
  setup_bridge "$n" "$RATE"
  echo "before n=$n: $(uptime)" | tee -a "$OUT/load.txt"
  for cycles in $CYCLES; do
    run_ranks "$n" "$cycles" "$BLOCKS" both "n${n}_c${cycles}"
    tail -n +2 "$OUT/n${n}_c${cycles}.csv" >>"$OUT/peer_cost.csv"
  done
  echo "after n=$n: $(uptime)" | tee -a "$OUT/load.txt"
  ((SEGMENT_BLOCKS == 0)) || count_segments "$n" "${CYCLES##* }"
  teardown
done
"$PYTHON" "$HERE/netns_peer_cost.py" "$OUT/peer_cost.csv" | tee "$OUT/summary.txt"
echo "wrote $OUT/peer_cost.csv and $OUT/summary.txt"
