# Network namespaces shaped like one switch port per node, for the netns validation scripts
# (experiments/validation/netns_validation.sh, experiments/validation/netns_training_validation.sh). Sourced, not run.
# The caller sets P (prefix of every namespace and link), NET (rank i has address
# NET.(i+1)/24) and SW (the switch namespace), and defines `teardown` (setup_bridge calls it
# first); RANK0_DEV is set by setup_bridge.

# delete_namespaces: every namespace whose name starts with ${P}_.
delete_namespaces() {
  for ns in $(ip netns list | awk '{print $1}' | grep "^${P}_" || true); do ip netns del "$ns"; done
}

# shape NAMESPACE DEV RATE_MBIT: tbf on DEV's output. A small burst keeps short messages shaped
# too: TBF_BURST (bytes or tc units), else BURST_MS (default 4) ms at the rate but at least
# BURST_MIN bytes (default 65536). Bytes within the burst leave at the veth's speed, so a
# burst larger than a step's messages hides their wire time.
shape() {
  local ns=$1 dev=$2 rate=$3
  local burst=${TBF_BURST:-$(awk "BEGIN { b = $rate * 1000000 / 8 * ${BURST_MS:-4} / 1000; m = ${BURST_MIN:-65536}; print int(b < m ? m : b) }")}
  tc -n "$ns" qdisc add dev "$dev" root tbf rate "${rate}mbit" burst "$burst" latency "${TBF_LATENCY:-50ms}"
}

# add_rank_namespace I: namespace ${P}_r$I, lo up, TCP set for ring steps.
add_rank_namespace() {
  local ns=${P}_r$1
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  # Ring steps pause between messages: keep the congestion window across them.
  ip netns exec "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
}

# setup_bridge N RATE_MBIT: veth pairs to a bridge, both ends shaped.
setup_bridge() {
  local n=$1 rate=$2
  teardown
  RANK0_DEV=${P}0a
  ip netns add "$SW"
  ip -n "$SW" link add br0 type bridge
  ip -n "$SW" link set br0 up
  for ((i = 0; i < n; i++)); do
    local ns=${P}_r$i
    add_rank_namespace "$i"
    ip link add "${P}${i}a" type veth peer name "${P}${i}b"
    ip link set "${P}${i}a" netns "$ns"
    ip link set "${P}${i}b" netns "$SW"
    ip -n "$SW" link set "${P}${i}b" master br0
    ip -n "$SW" link set "${P}${i}b" up
    ip -n "$ns" addr add "$NET.$((i + 1))/24" dev "${P}${i}a"
    ip -n "$ns" link set "${P}${i}a" up
    # Both directions at the link rate.
    shape "$ns" "${P}${i}a" "$rate"
    shape "$SW" "${P}${i}b" "$rate"
  done
}
