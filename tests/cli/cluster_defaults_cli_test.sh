#!/usr/bin/env bash
# A cluster described by its keys starts from the plain defaults, never from a preset's fitted
# values, and the output names the preset any cluster builds on. The example: 3 nodes x 8
# A100 with 4 x 200 Gbit/s InfiniBand NICs, a 133 MB fp32 gradient (33.25 M parameters),
# allreduced after backward (--overlap=off, so comm_s is the whole allreduce). Keys alone
# take NIC efficiency 1; the same keys on ethernet-v100-4 keep its fitted NIC efficiency
# 0.1208 (docs/calibration.md) and take about 1 / 0.1208 as long on the wire. Measured
# compute: [workload] measured_*_ms replace the passes, scaled linearly with the micro-batch,
# and the output says "compute: measured".
#   cluster_defaults_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
cd "$WORK" || exit 1

KEYS=(--set cluster.nodes=3 --set cluster.gpus_per_node=8 --set cluster.gpu=A100-80GB
      --set cluster.intra_node_fabric=nvswitch --set cluster.nics_per_node=4
      --set cluster.inter_node_gbps=200 --set 'cluster.inter_node_transport="rdma"')
WORKLOAD=(--set workload.parameters=33250000 --set workload.gradient_precision=fp32
          --set workload.forward_gflops_per_sample=1 --overlap=off)
# comm_s (seconds) of profile.csv's first row in DIR
comm_s() { /usr/bin/python3 -c 'import csv, sys
print(next(csv.DictReader(open(sys.argv[1])))["comm_s"])' "$1/profile.csv"; }

expect_exit 0 -- "$BIN" profile "${KEYS[@]}" "${WORKLOAD[@]}" --out plain
expect_contains "keys alone" "cluster: 'custom' described by its keys, from the plain defaults" \
  "$OUTPUT"
expect_contains "keys alone, efficiency" "Gbit/s effective at efficiency 1)" "$OUTPUT"
expect_exit 0 -- "$BIN" profile --set 'cluster.preset="ethernet-v100-4"' "${KEYS[@]}" \
  "${WORKLOAD[@]}" --out fitted
expect_contains "on a preset" "cluster: 'ethernet-v100-4' built on preset ethernet-v100-4" \
  "$OUTPUT"
expect_contains "on a preset, efficiency" "NIC efficiency 0.1208" "$OUTPUT"
expect_exit 0 -- "$BIN" profile --cluster ethernet-v100-4 "${KEYS[@]}" "${WORKLOAD[@]}" \
  --out flag
expect_contains "--cluster names the base" "built on preset ethernet-v100-4" "$OUTPUT"
plain=$(comm_s plain) fitted=$(comm_s fitted) flag=$(comm_s flag)
echo "allreduce of 133 MB on 3 x 8 A100, 4 x 200 Gbit/s: keys alone ${plain} s," \
  "on ethernet-v100-4 ${fitted} s (--cluster: ${flag} s)"
# The wire term at efficiency 1: a ring over 24 GPUs moves 2 x 23/24 x 133 MB per node through
# its four NICs (100 GB/s): 2.55 ms, plus latencies. On the fitted preset the NIC runs at
# 0.1208 of 200 Gbit/s: 8.3x longer on the wire.
awk -v p="$plain" -v f="$fitted" -v g="$flag" 'BEGIN {
  exit !(p > 0.00255 && p < 0.0045 && f > 5 * p && f == g) }' \
  || fail "allreduce: keys alone $plain s (expected 2.55-4.5 ms), preset $fitted s, flag $flag s"

# A table of scenario keys only (GPUs per node) refines the default preset, as --gpus-per-node.
expect_exit 0 -- "$BIN" profile --set cluster.gpus_per_node=8 --gpus 16 --out gpn
expect_contains "scenario keys" "cluster: 'ethernet-v100-4' built on preset ethernet-v100-4" \
  "$OUTPUT"
expect_exit 0 -- "$BIN" profile --out preset
expect_contains "a preset" "cluster: preset ethernet-v100-4" "$OUTPUT"
expect_contains "model compute" "compute: model, " "$OUTPUT"
expect_contains "model source" "from fitted: 1-bit Adam Table 1" "$OUTPUT"

# Measured compute: 40 + 80 ms at batch 8, run at batch 16: 80 + 160 ms.
MEASURED=(--set workload.measured_forward_ms=40 --set workload.measured_backward_ms=80
          --set workload.measured_batch_per_gpu=8)
expect_exit 0 -- "$BIN" profile "${MEASURED[@]}" --batch-per-gpu 16 --out measured
expect_contains "measured" "compute: measured, forward 40 ms + backward 80 ms at batch 8, scaled linearly to batch 16" "$OUTPUT"
/usr/bin/python3 - measured/profile.csv <<'PY' || fail "measured profile.csv"
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
assert row["compute_source"] == "measured", row["compute_source"]
assert abs(float(row["forward_s"]) - 0.080) < 1e-9, row["forward_s"]
PY
for bad in "workload.measured_forward_ms=-1" "workload.measured_forward_ms=nan" \
           "workload.measured_batch_per_gpu=0"; do
  expect_exit 2 -- "$BIN" profile "${MEASURED[@]}" --set "$bad" --out bad
done
expect_exit 2 -- "$BIN" profile --set workload.measured_forward_ms=40 --out bad
expect_contains "forward alone" "measured_backward_ms > 0 and measured_batch_per_gpu >= 1" \
  "$OUTPUT"
[ -e bad ] && fail "a refused profile left its run directory"
finish "cluster defaults and measured compute: all checks passed"
