#!/usr/bin/env bash
# Simulator vs real network (docs/validation.md). Needs root, iproute2 and tc.
#
# For each world size and link rate: every rank gets its own network namespace,
# joined to a bridge in a "switch" namespace by a veth pair whose two ends are
# shaped with tbf to the link rate (full duplex, like one switch port per node).
# `compopt comm-bench --backend tcp` runs on the ranks inside the namespaces;
# `compopt comm-bench --backend sim` runs the same star topology in SimGrid.
# Everything is merged into OUT/validation.csv and drawn by netns_validation_plot.py.
#
# Usage: experiments/netns_validation.sh COMPOPT_BINARY OUT_DIR
# Env:   RANKS="4 8"  RATES="100 1000" (Mbit/s)  SIZES=1,4,16,64 (MB)  ITERS=3
#        SIM_LATENCY_US=30  VARIANTS=allreduce-fp32,compressed-sign
#        TBF_BURST (default: 4 ms at the link rate, at least 64kb)  TBF_LATENCY=50ms
# Only addresses inside the namespaces it creates (10.77.0.0/24) are used; all
# namespaces are deleted on exit.
set -euo pipefail

COMPOPT=$(readlink -f "${1:?usage: $0 COMPOPT_BINARY OUT_DIR}")
OUT=$(mkdir -p "${2:?usage: $0 COMPOPT_BINARY OUT_DIR}" && readlink -f "$2")
RANKS=${RANKS:-"4 8"}
RATES=${RATES:-"100 1000"}
SIZES=${SIZES:-1,4,16,64}
ITERS=${ITERS:-3}
SIM_LATENCY_US=${SIM_LATENCY_US:-30}
VARIANTS=${VARIANTS:-allreduce-fp32,compressed-sign}
P=cptv  # prefix of every namespace and link made here
SW=${P}_sw

teardown() {
  for ns in $(ip netns list | awk '{print $1}' | grep "^${P}_" || true); do ip netns del "$ns"; done
}
trap teardown EXIT

# setup N RATE_MBIT
setup() {
  local n=$1 rate=$2
  teardown
  ip netns add "$SW"
  ip -n "$SW" link add br0 type bridge
  ip -n "$SW" link set br0 up
  for ((i = 0; i < n; i++)); do
    local ns=${P}_r$i
    ip netns add "$ns"
    ip link add "${P}${i}a" type veth peer name "${P}${i}b"
    ip link set "${P}${i}a" netns "$ns"
    ip link set "${P}${i}b" netns "$SW"
    ip -n "$SW" link set "${P}${i}b" master br0
    ip -n "$SW" link set "${P}${i}b" up
    ip -n "$ns" addr add "10.77.0.$((i + 1))/24" dev "${P}${i}a"
    ip -n "$ns" link set "${P}${i}a" up
    ip -n "$ns" link set lo up
    # Ring steps pause between messages: keep the congestion window across them.
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
    # Both directions at the link rate. A small burst keeps short messages shaped too.
    local burst=${TBF_BURST:-$(awk "BEGIN { b = $rate * 1000000 / 8 * 0.004; print (b < 65536 ? 65536 : b) }")}
    tc -n "$ns" qdisc add dev "${P}${i}a" root tbf rate "${rate}mbit" burst "$burst" latency "${TBF_LATENCY:-50ms}"
    tc -n "$SW" qdisc add dev "${P}${i}b" root tbf rate "${rate}mbit" burst "$burst" latency "${TBF_LATENCY:-50ms}"
  done
}

# run_tcp N RATE
run_tcp() {
  local n=$1 rate=$2 token pids=() rc=0
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  local dir="$OUT/tcp_n${n}_${rate}mbit"
  mkdir -p "$dir"
  for ((i = 0; i < n; i++)); do
    ip netns exec "${P}_r$i" env RANK=$i WORLD_SIZE=$n MASTER_ADDR=10.77.0.1 MASTER_PORT=29511 \
      COMPOPT_LISTEN_ADDR=10.77.0.$((i + 1)) COMPOPT_NODE_NAME=node$i COMPOPT_JOB_TOKEN="$token" \
      "$COMPOPT" comm-bench --backend tcp --sizes "$SIZES" --variants "$VARIANTS" --iters "$ITERS" \
      --warmup 1 --out "$dir" >"$dir/rank$i.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  if ((rc != 0)); then
    echo "tcp run n=$n rate=${rate}mbit failed; logs in $dir" >&2
    tail -n 5 "$dir"/rank*.log >&2
    return 1
  fi
}

echo "machine load before: $(uptime)" | tee "$OUT/load.txt"
for n in $RANKS; do
  for rate in $RATES; do
    echo "== $n ranks, ${rate} Mbit/s"
    setup "$n" "$rate"
    run_tcp "$n" "$rate"
    tc -s -n "${P}_r0" qdisc show dev "${P}0a" | sed "s/^/[tc r0 egress n=$n ${rate}mbit] /" >>"$OUT/tc_stats.txt"
    teardown
    "$COMPOPT" comm-bench --backend sim --ranks "$n" --link-gbps "$(awk "BEGIN { print $rate / 1000 }")" \
      --latency-us "$SIM_LATENCY_US" --sizes "$SIZES" --variants "$VARIANTS" --iters 1 --warmup 0 \
      --out "$OUT/sim_n${n}_${rate}mbit" >/dev/null
    echo "machine load after $n ranks ${rate} Mbit/s: $(uptime)" | tee -a "$OUT/load.txt"
  done
done

# One CSV: source (tcp/sim), link rate, then comm-bench's columns.
{
  echo "source,link_mbit,backend,ranks,variant,bytes,seconds,algbw_gbps,busbw_gbps,wire_bytes_per_rank"
  for f in "$OUT"/tcp_n*/comm_bench.csv "$OUT"/sim_n*/comm_bench.csv; do
    d=$(basename "$(dirname "$f")")
    src=${d%%_*}
    rate=${d##*_}
    tail -n +2 "$f" | sed "s/^/${src},${rate%mbit},/"
  done
} >"$OUT/validation.csv.tmp" && mv "$OUT/validation.csv.tmp" "$OUT/validation.csv"
echo "wrote $OUT/validation.csv"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  /usr/bin/python3 "$(dirname "$(readlink -f "$0")")/netns_validation_plot.py" "$OUT/validation.csv" "$OUT/validation.png"
fi
