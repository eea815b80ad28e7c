#!/usr/bin/env bash
# Transport figures of this machine (docs/calibration.md, "Transport profiles"). Needs root,
# iproute2, tc and python3.
#
# 1. Raw socket latency: a 64-byte TCP ping-pong (TCP_NODELAY) between two namespaces on the
#    shaped bridge, one-way time = round trip / 2: the kernel path that compopt's per-message
#    cost is measured on top of (compopt's own time per message comes from
#    experiments/validation/netns_validation.sh with RANKS=2 SIZES=0.000064 VARIANTS=allreduce-fp32:
#    a 2-rank ring allreduce is 2 messages per rank).
# 2. Fan-in: k = 1, 2, 4, 8 senders, each in its own namespace, stream MIB MiB each to one
#    receiver whose switch port is shaped to RATE Mbit/s; goodput vs k is the incast law.
#
# Usage: experiments/validation/netns_transport.sh OUT_DIR
# Env:   RATE=1000 (Mbit/s)  MIB=24  ROUNDS=3000  REPEAT=2  FANIN="1 2 4 8"
#        NETNS_PREFIX=cptr  SUBNET=10.78.0 (to run beside another netns script)
# Writes OUT_DIR/pingpong.txt (one-way us per repeat) and OUT_DIR/fanin.txt (k, bytes,
# seconds, goodput Mbit/s per run). Every namespace it made (NETNS_PREFIX_*) is deleted on exit.
set -euo pipefail

OUT=$(mkdir -p "${1:?usage: $0 OUT_DIR}" && readlink -f "$1")
RATE=${RATE:-1000}
MIB=${MIB:-24}
ROUNDS=${ROUNDS:-3000}
REPEAT=${REPEAT:-2}
FANIN=${FANIN:-"1 2 4 8"}
P=${NETNS_PREFIX:-cptr}
NET=${SUBNET:-10.78.0}
SW=${P}_sw
RANK0_DEV=
PROBE="$(dirname "$(readlink -f "$0")")/netns_transport_probe.py"
PORT=29700

# shape, add_rank_namespace, setup_bridge, delete_namespaces (they read P, NET, SW).
# shellcheck source=experiments/validation/netns_common.sh
source "$(dirname "$(readlink -f "$0")")/netns_common.sh"

teardown() { delete_namespaces; }
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

max_k=1
for k in $FANIN; do ((k > max_k)) && max_k=$k; done
setup_bridge $((max_k + 1)) "$RATE"
echo "machine load: $(uptime)" | tee "$OUT/load.txt"

: >"$OUT/pingpong.txt"
for ((r = 0; r < REPEAT; r++)); do
  ip netns exec "${P}_r0" python3 "$PROBE" pingpong-server "$NET.1" "$PORT" &
  server=$!
  ip netns exec "${P}_r1" python3 "$PROBE" pingpong-client "$NET.1" "$PORT" "$ROUNDS" |
    tee -a "$OUT/pingpong.txt"
  wait "$server"
  PORT=$((PORT + 1))
done

: >"$OUT/fanin.txt"
for k in $FANIN; do
  for ((r = 0; r < REPEAT; r++)); do
    ip netns exec "${P}_r0" python3 "$PROBE" fanin-server "$NET.1" "$PORT" "$k" >>"$OUT/fanin.txt" &
    server=$!
    senders=()
    for ((i = 1; i <= k; i++)); do
      ip netns exec "${P}_r$i" python3 "$PROBE" fanin-client "$NET.1" "$PORT" "$MIB" &
      senders+=($!)
    done
    wait "${senders[@]}" "$server"
    tail -n 1 "$OUT/fanin.txt"
    PORT=$((PORT + 1))
  done
done
echo "wrote $OUT/pingpong.txt and $OUT/fanin.txt"
