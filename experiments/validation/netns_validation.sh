#!/usr/bin/env bash
# Simulator vs real network (docs/validation.md). Needs root, iproute2 and tc.
#
# For each world size and link rate: every rank gets its own network namespace,
# joined to a bridge in a "switch" namespace by a veth pair whose two ends are
# shaped with tbf to the link rate (full duplex, like one switch port per node).
# `compopt comm-bench --backend tcp` runs on the ranks inside the namespaces;
# `compopt comm-bench --backend sim` runs the same star topology in SimGrid, with
# the links' payload fraction 1448/1514 (TCP/IPv4 in 1500-byte Ethernet frames, the
# bytes tbf counts; docs/calibration.md). The simulator charges the wire only; for
# the compressed variants, whose compression work does not overlap the wire, the
# script also times that work alone on this host (`--backend local`, same ranks,
# no network) and adds it to the simulated wire time as source "sim+local".
# Everything is merged into OUT/validation.csv and drawn by netns_validation_plot.py.
#
# Added latency (the kernel may lack netem): for each D > 0 in DELAYS_US the ranks'
# namespaces are joined instead by compopt_delay_switch (built next to COMPOPT), a
# userspace switch over TAP devices that delays every frame by D µs one way and
# sends out of each port at the link rate; tbf on each rank's TAP shapes the rank's
# own output. The simulator then runs with --latency-us SIM_LATENCY_US + D. D = 0
# in the list means the veth + bridge runs above; empty DELAYS_US is "0".
#
# Usage: experiments/validation/netns_validation.sh COMPOPT_BINARY OUT_DIR
# Env:   RANKS="4 8"  RATES="100 1000" (Mbit/s)  SIZES=1,4,16,64 (MB)  ITERS=3
#        SIM_LATENCY_US=30  VARIANTS=allreduce-fp32,compressed-sign
#        TBF_BURST (default: 4 ms at the link rate, at least 64kb)  TBF_LATENCY=50ms
#        DELAYS_US="0 1000 5000" (one-way µs; default empty = "0")
#        NETNS_PREFIX=cptv  SUBNET=10.77.0 (to run beside another copy of this script)
# Only addresses inside the namespaces it creates (SUBNET.0/24) are used; all
# namespaces it made (NETNS_PREFIX_*) are deleted, and the delay switch stopped, on exit.
set -euo pipefail

COMPOPT=$(readlink -f "${1:?usage: $0 COMPOPT_BINARY OUT_DIR}")
OUT=$(mkdir -p "${2:?usage: $0 COMPOPT_BINARY OUT_DIR}" && readlink -f "$2")
RANKS=${RANKS:-"4 8"}
RATES=${RATES:-"100 1000"}
SIZES=${SIZES:-1,4,16,64}
ITERS=${ITERS:-3}
SIM_LATENCY_US=${SIM_LATENCY_US:-30}
MTU=1500  # veth and TAP default; payload fraction of a full TCP segment's frame:
LINK_EFFICIENCY=$(awk "BEGIN { printf \"%.6f\", ($MTU - 52) / ($MTU + 14) }")
VARIANTS=${VARIANTS:-allreduce-fp32,compressed-sign}
DELAYS_US=${DELAYS_US:-0}
DELAYS_US=${DELAYS_US//,/ }
P=${NETNS_PREFIX:-cptv}  # prefix of every namespace and link made here
NET=${SUBNET:-10.77.0}   # rank i has address NET.(i+1)/24
SW=${P}_sw
SWITCH=$(dirname "$COMPOPT")/compopt_delay_switch
SWITCH_PID=
RANK_PIDS=()  # ranks of the tcp run in progress
RANK0_DEV=  # rank 0's interface inside its namespace, set by setup_*

for d in $DELAYS_US; do
  if ! [[ $d =~ ^[0-9]+$ ]]; then
    echo "$0: DELAYS_US: '$d' is not a whole number of microseconds (expected e.g. DELAYS_US=\"0 1000 5000\")" >&2
    exit 2
  fi
  if ((d > 0)) && [[ ! -x $SWITCH ]]; then
    echo "$0: DELAYS_US=$d needs the delay switch at $SWITCH, next to $COMPOPT; build it with" \
      "cmake --build BUILD_DIR --target compopt_delay_switch" >&2
    exit 1
  fi
done

# shape, add_rank_namespace, setup_bridge, delete_namespaces (they read P, NET, SW, RANK0_DEV).
# shellcheck source=experiments/validation/netns_common.sh
source "$(dirname "$(readlink -f "$0")")/netns_common.sh"

teardown() {
  if ((${#RANK_PIDS[@]} > 0)); then  # interrupted during a tcp run
    kill -TERM "${RANK_PIDS[@]}" 2>/dev/null || true
    wait "${RANK_PIDS[@]}" 2>/dev/null || true
    RANK_PIDS=()
  fi
  if [[ -n $SWITCH_PID ]]; then
    kill -TERM "$SWITCH_PID" 2>/dev/null || true
    wait "$SWITCH_PID" || true  # it prints its counters into its log on the way out
    SWITCH_PID=
  fi
  delete_namespaces
}
trap teardown EXIT
trap 'exit 130' INT  # so that teardown runs
trap 'exit 143' TERM

# setup_delay_switch N RATE_MBIT DELAY_US LOG: TAP ports of compopt_delay_switch (running in
# ${P}_sw, its counters go to LOG), each moved into its rank's namespace: the switch keeps
# the TAP's file open, so frames keep flowing. Rank -> switch is shaped by tbf on the TAP,
# switch -> rank by the switch's own per-port serialization.
setup_delay_switch() {
  local n=$1 rate=$2 delay=$3 log=$4
  teardown
  RANK0_DEV=${P}t0
  ip netns add "$SW"
  ip netns exec "$SW" "$SWITCH" --ports "$n" --prefix "${P}t" --delay-us "$delay" --rate-mbit "$rate" \
    >"$log.ready" 2>"$log" &
  SWITCH_PID=$!  # `ip netns exec` execs the switch itself
  local tries=0
  until grep -qx ready "$log.ready" 2>/dev/null; do
    if ! kill -0 "$SWITCH_PID" 2>/dev/null || ((++tries > 250)); then
      echo "compopt_delay_switch did not start (log: $log)" >&2
      cat "$log" >&2
      return 1
    fi
    sleep 0.02
  done
  rm -f "$log.ready"
  for ((i = 0; i < n; i++)); do
    local ns=${P}_r$i dev=${P}t$i
    add_rank_namespace "$i"
    ip -n "$SW" link set "$dev" netns "$ns"
    ip -n "$ns" addr add "$NET.$((i + 1))/24" dev "$dev"
    ip -n "$ns" link set "$dev" up
    shape "$ns" "$dev" "$rate"
  done
}

# run_tcp N DIR
run_tcp() {
  local n=$1 dir=$2 token rc=0 logs
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  # Logs live beside the run directory: compopt refuses to write into a non-empty --out.
  logs="$OUT/logs/$(basename "$dir")"
  mkdir -p "$OUT/logs"
  for ((i = 0; i < n; i++)); do
    ip netns exec "${P}_r$i" env RANK=$i WORLD_SIZE="$n" MASTER_ADDR="$NET.1" MASTER_PORT=29511 \
      COMPOPT_LISTEN_ADDR="$NET.$((i + 1))" COMPOPT_NODE_NAME=node$i COMPOPT_JOB_TOKEN="$token" \
      "$COMPOPT" comm-bench --backend tcp --sizes "$SIZES" --variants "$VARIANTS" --iters "$ITERS" \
      --warmup 1 --out "$dir" >"$logs.rank$i.log" 2>&1 &
    RANK_PIDS+=($!)
  done
  for pid in "${RANK_PIDS[@]}"; do wait "$pid" || rc=1; done
  RANK_PIDS=()
  if ((rc != 0)); then
    echo "tcp run n=$n failed; logs in $logs.rank*.log" >&2
    tail -n 5 "$logs".rank*.log >&2
    return 1
  fi
}

echo "machine load before: $(uptime)" | tee "$OUT/load.txt"
# Compression work alone, per world size: the compressed variants on the local backend.
COMPRESSED_VARIANTS=$(tr ',' '\n' <<<"$VARIANTS" | grep '^compressed' | paste -sd, || true)
if [[ -n $COMPRESSED_VARIANTS ]]; then
  for n in $RANKS; do
    "$COMPOPT" comm-bench --backend local --ranks "$n" --sizes "$SIZES" --variants "$COMPRESSED_VARIANTS" \
      --iters "$ITERS" --warmup 1 --out "$OUT/local_n${n}_0mbit" >/dev/null
  done
  echo "machine load after the local runs: $(uptime)" | tee -a "$OUT/load.txt"
fi
for delay in $DELAYS_US; do
  for n in $RANKS; do
    for rate in $RATES; do
      # Result directories: {tcp,sim}_n<N>_<R>mbit, with _delay<D>us appended when D > 0.
      config="n${n}_${rate}mbit" label="$n ranks, ${rate} Mbit/s" tc_tag="n=$n ${rate}mbit"
      if ((delay > 0)); then
        config+="_delay${delay}us" label+=", +${delay} us one way" tc_tag+=" +${delay}us"
      fi
      echo "== $label"
      if ((delay > 0)); then
        mkdir -p "$OUT/logs"
        setup_delay_switch "$n" "$rate" "$delay" "$OUT/logs/tcp_$config.switch.log"
      else
        setup_bridge "$n" "$rate"
      fi
      run_tcp "$n" "$OUT/tcp_$config"
      tc -s -n "${P}_r0" qdisc show dev "$RANK0_DEV" | sed "s/^/[tc r0 egress $tc_tag] /" >>"$OUT/tc_stats.txt"
      teardown
      "$COMPOPT" comm-bench --backend sim --ranks "$n" --link-gbps "$(awk "BEGIN { print $rate / 1000 }")" \
        --latency-us "$((SIM_LATENCY_US + delay))" --link-efficiency "$LINK_EFFICIENCY" --sizes "$SIZES" --variants "$VARIANTS" --iters 1 --warmup 0 \
        --out "$OUT/sim_$config" >/dev/null
      echo "machine load after $label: $(uptime)" | tee -a "$OUT/load.txt"
    done
  done
done

# One CSV: source (tcp, sim, local, sim+local), link rate (0 for local), comm-bench's columns,
# then the added one-way latency.
{
  echo "source,link_mbit,backend,ranks,variant,bytes,seconds,algbw_GBps,busbw_GBps,wire_bytes_per_rank,added_latency_us"
  for f in "$OUT"/tcp_n*/comm_bench.csv "$OUT"/sim_n*/comm_bench.csv "$OUT"/local_n*/comm_bench.csv; do
    [[ -f $f ]] || continue
    d=$(basename "$(dirname "$f")")
    if ! [[ $d =~ ^([a-z]+)_n[0-9]+_([0-9.]+)mbit(_delay([0-9]+)us)?$ ]]; then
      echo "skipping $f: directory name not {tcp,sim}_n<N>_<R>mbit[_delay<D>us]" >&2
      continue
    fi
    src=${BASH_REMATCH[1]} rate=${BASH_REMATCH[2]} delay=${BASH_REMATCH[4]:-0}
    tail -n +2 "$f" | sed "s/^/${src},${rate},/; s/\$/,${delay}/"
  done
} >"$OUT/validation.csv.tmp"
# sim+local: simulated wire time plus the same call's compression work alone (local rows).
awk -F, -v OFS=, '
  NR == FNR { if ($1 == "local") work[$4 "," $5 "," $6] = $7; next }
  { print }
  $1 == "sim" && (($4 "," $5 "," $6) in work) {
    t = $7 + work[$4 "," $5 "," $6]; n = $4; algbw = $6 / t / 1e9
    print "sim+local", $2, $3, $4, $5, $6, sprintf("%e", t), sprintf("%.6f", algbw),
          sprintf("%.6f", n > 1 ? algbw * 2 * (n - 1) / n : 0), $10, $11
  }' "$OUT/validation.csv.tmp" "$OUT/validation.csv.tmp" >"$OUT/validation.csv.tmp2"
rm "$OUT/validation.csv.tmp"
mv "$OUT/validation.csv.tmp2" "$OUT/validation.csv"
echo "wrote $OUT/validation.csv"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  /usr/bin/python3 "$(dirname "$(readlink -f "$0")")/netns_validation_plot.py" "$OUT/validation.csv" "$OUT/validation.png"
fi
