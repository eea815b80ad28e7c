#!/usr/bin/env bash
# Training on a shaped real network vs the simulator (docs/validation.md, "Training over a
# shaped network"). Needs root, iproute2 and tc, and the Fashion-MNIST files.
#
# For each optimizer and link rate: 4 ranks train the Fashion-MNIST MLP for one epoch over
# TCP, each rank in its own network namespace behind a veth pair shaped with tbf to the rate
# (experiments/validation/netns_common.sh: one switch port per node, as experiments/validation/netns_validation.sh).
# The same training then runs on the sim backend over a star of 4 one-GPU nodes with that
# link rate, latency and payload fraction, charging as local work what a Local run (4 threads,
# this machine, no network) measured per step: median forward/backward, median optimizer step
# (its collectives are memory copies there) and median compression (run.compute = fixed). Before comparing, every metrics.csv column but the time columns is
# checked equal between tcp, sim and local: the three runs compute the same thing.
# netns_training_compare.py then writes OUT/training_validation.csv: median time per step of
# each stage, real and simulated, and their relative difference.
#
# Usage: experiments/validation/netns_training_validation.sh COMPOPT_BINARY OUT_DIR
# Env:   RATES="100 1000" (Mbit/s)  OPTIMIZERS="adam onebit-adam" (configs
#        experiments/configs/fmnist_<name with - as _>.toml)  EPOCHS=1  BATCH=32
#        SIM_LATENCY_US=30  NETNS_PREFIX=cptt  SUBNET=10.78.0
#        BURST_MS=1.3 BURST_MIN=16384 (tbf burst: 1.3 ms at the rate, at least 16 KiB; a
#        larger one lets a compressed step's few KB through unshaped) or TBF_BURST
set -euo pipefail

COMPOPT=$(readlink -f "${1:?usage: $0 COMPOPT_BINARY OUT_DIR}")
OUT=$(mkdir -p "${2:?usage: $0 COMPOPT_BINARY OUT_DIR}" && readlink -f "$2")
HERE=$(dirname "$(readlink -f "$0")")
RATES=${RATES:-"100 1000"}
OPTIMIZERS=${OPTIMIZERS:-"adam onebit-adam"}
EPOCHS=${EPOCHS:-1}
BATCH=${BATCH:-32}
SIM_LATENCY_US=${SIM_LATENCY_US:-30}
RANKS=4
export BURST_MS=${BURST_MS:-1.3} BURST_MIN=${BURST_MIN:-16384}
MTU=1500  # payload fraction of a full TCP segment's Ethernet frame, as netns_validation.sh
LINK_EFFICIENCY=$(awk "BEGIN { printf \"%.6f\", ($MTU - 52) / ($MTU + 14) }")
P=${NETNS_PREFIX:-cptt}
NET=${SUBNET:-10.78.0}
SW=${P}_sw
RANK0_DEV=
RANK_PIDS=()

# shellcheck source=experiments/validation/netns_common.sh
source "$HERE/netns_common.sh"

teardown() {
  if ((${#RANK_PIDS[@]} > 0)); then
    kill -TERM "${RANK_PIDS[@]}" 2>/dev/null || true
    wait "${RANK_PIDS[@]}" 2>/dev/null || true
    RANK_PIDS=()
  fi
  delete_namespaces
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

config_of() {  # config_of OPTIMIZER
  local f="$HERE/configs/fmnist_${1//-/_}.toml"
  [[ -f $f ]] || { echo "$0: no config $f for optimizer '$1'" >&2; exit 2; }
  echo "$f"
}

# The run shape every backend shares: 4 ranks, one per node, one epoch.
COMMON_SETS=(run.ranks=$RANKS run.gpus_per_node=1 run.epochs=$EPOCHS run.batch_per_rank=$BATCH)

# train_tcp OPTIMIZER RATE DIR: 4 ranks in the shaped namespaces.
train_tcp() {
  local opt=$1 rate=$2 dir=$3 token rc=0 i
  token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  setup_bridge "$RANKS" "$rate"
  mkdir -p "$OUT/logs"
  for ((i = 0; i < RANKS; i++)); do
    ip netns exec "${P}_r$i" env RANK=$i WORLD_SIZE=$RANKS MASTER_ADDR="$NET.1" MASTER_PORT=29512 \
      COMPOPT_LISTEN_ADDR="$NET.$((i + 1))" COMPOPT_NODE_NAME=node$i COMPOPT_JOB_TOKEN="$token" \
      "$COMPOPT" train "$(config_of "$opt")" --quiet --out "$dir" \
      --set "${COMMON_SETS[@]}" run.backend=tcp >"$OUT/logs/$(basename "$dir").rank$i.log" 2>&1 &
    RANK_PIDS+=($!)
  done
  for pid in "${RANK_PIDS[@]}"; do wait "$pid" || rc=1; done
  RANK_PIDS=()
  teardown
  if ((rc != 0)); then
    echo "tcp training failed; logs in $OUT/logs/$(basename "$dir").rank*.log" >&2
    tail -n 5 "$OUT/logs/$(basename "$dir")".rank*.log >&2
    return 1
  fi
}

# write_cluster RATE FILE: the shaped star as a [cluster] table.
write_cluster() {
  cat >"$2" <<TOML
[cluster]
name = "netns-star-${1}mbit"
topology = "star"
nodes = $RANKS
gpus_per_node = 1
inter_node_gbps = $(awk "BEGIN { print $1 / 1000 }")
inter_node_latency_s = $(awk "BEGIN { print $SIM_LATENCY_US * 1e-6 }")
inter_node_efficiency = $LINK_EFFICIENCY
inter_node_transport = "tcp"
TOML
}

echo "machine load before: $(uptime)" | tee "$OUT/load.txt"
for opt in $OPTIMIZERS; do
  echo "== $opt: local (work per step on this machine)"
  "$COMPOPT" train "$(config_of "$opt")" --quiet --out "$OUT/local_$opt" \
    --set "${COMMON_SETS[@]}" run.backend=local
  read -r pass_s step_s compression_s < <(/usr/bin/python3 "$HERE/netns_training_compare.py" \
    --charges "$OUT/local_$opt/metrics.csv")
  echo "   charges per step: pass $pass_s s, optimizer step $step_s s, compression $compression_s s"
  for rate in $RATES; do
    echo "== $opt, $RANKS ranks, $rate Mbit/s"
    train_tcp "$opt" "$rate" "$OUT/tcp_${opt}_${rate}mbit"
    write_cluster "$rate" "$OUT/cluster_${rate}mbit.toml"
    "$COMPOPT" train "$(config_of "$opt")" --quiet --out "$OUT/sim_${opt}_${rate}mbit" \
      --set "${COMMON_SETS[@]}" run.backend=sim run.cluster="$OUT/cluster_${rate}mbit.toml" \
      run.compute=fixed run.charge_pass_s="$pass_s" run.charge_step_s="$step_s" \
      run.charge_compression_s="$compression_s"
    echo "machine load after $opt at $rate Mbit/s: $(uptime)" | tee -a "$OUT/load.txt"
  done
done
/usr/bin/python3 "$HERE/netns_training_compare.py" --out "$OUT/training_validation.csv" "$OUT"
