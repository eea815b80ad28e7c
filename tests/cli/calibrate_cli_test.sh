#!/usr/bin/env bash
# `compopt calibrate` end to end on the shipped public logs (data/published/nccl_tests_logs/):
# the fit writes cluster.toml and whatif.toml, `compopt profile cluster.toml` and
# `compopt sweep whatif.toml` run on them, the fit lowers the rows' error, Table 1 through the
# same command gives the preset's efficiency back, a synthetic log of known latency and rate
# is read back within 2%, a comm-bench CSV is an input, and every kind of bad input exits 2
# naming what is wrong.
#   calibrate_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
SRC=$(realpath "$2")
LOGS=$SRC/data/published/nccl_tests_logs
TREE=$LOGS/nccl-tests-232_all_reduce_h100_2x1_tree.log

# A public log: fit, files, and the fitted cluster in profile and sweep.
if expect_exit 0 -- "$BIN" calibrate "$TREE" --cluster "$LOGS/h100_2x1_roce.toml" --out "$WORK/c"; then
  grep -qE '^allreduce_algorithm +tree$' <<<"$OUTPUT" || fail "no tree from the log: $OUTPUT"
  expect_contains "one node count" "one multi-node count only (2 nodes)" "$OUTPUT"
  expect_contains "trimmed log stated" "no closing '# Avg bus bandwidth' line" "$OUTPUT"
  # The two bandwidth-regime rows set the rate, which stops at the nominal NIC (efficiency 1).
  grep -qE '^inter_node_efficiency +1 +1 +2 .* fitted, at its bound 1' <<<"$OUTPUT" ||
    fail "rate not fitted on the 2 bandwidth rows: $OUTPUT"
  grep -q '^allreduce_algorithm = "tree"$' "$WORK/c/cluster.toml" || fail "cluster.toml: no tree"
  /usr/bin/python3 - "$WORK/c/calibration.csv" <<'PY' || fail "calibration.csv"
# Every row once; the fit does not raise the error; the largest (bandwidth) row within 10%.
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["bytes"] for r in rows] == [str(2**k) for k in range(21, 26)], rows
before = statistics.median(abs(float(r["uncalibrated_error_pct"])) for r in rows)
after = statistics.median(abs(float(r["calibrated_error_pct"])) for r in rows)
assert after <= before, (before, after)
assert rows[-1]["regime"] == "bandwidth" and abs(float(rows[-1]["calibrated_error_pct"])) < 10
PY
  expect_exit 0 -- "$BIN" profile "$WORK/c/cluster.toml" --out "$WORK/p" &&
    expect_contains "profile of the fitted cluster" "h100-2x1-roce-calibrated" "$OUTPUT"
  expect_exit 0 -- "$BIN" sweep "$WORK/c/whatif.toml" --out "$WORK/s" &&
    expect_contains "the what-if" "birder" "$OUTPUT"
fi

# 1-bit Adam's Table 1 through the command: the preset's calibrated efficiency comes back.
if expect_exit 0 -- "$BIN" calibrate "$SRC/data/published/onebit_adam_profile.csv" \
  --cluster infiniband-v100-8 --out "$WORK/t1"; then
  line=$(grep '^inter_node_efficiency ' <<<"$OUTPUT")
  awk '{ if ($2 / $3 < 0.999 || $2 / $3 > 1.001) exit 1 }' <<<"$line" ||
    fail "Table 1 does not give the preset's inter_node_efficiency back: $line"
fi

# A synthetic all_gather log of known latency (30 us) and rate (algbw 20 GB/s on 2x4 ranks:
# busbw 17.5 GB/s), beside the public allreduce log; its latency-bandwidth fit is within 2%.
/usr/bin/python3 - "$WORK/all_gather_2x4.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n")
    size = 1024
    while size <= 1 << 30:
        t = 30.0 + size / 20e9 * 1e6
        algbw = size / t / 1e3
        f.write(f"{size:12d} {size // 32:12d} float none -1 {t:.2f} {algbw:.2f} {algbw * 7 / 8:.2f} 0 {t:.2f} {algbw:.2f} {algbw * 7 / 8:.2f} 0\n")
        size *= 4
    f.write("# Avg bus bandwidth    : 1\n")
PY
if expect_exit 0 -- "$BIN" calibrate "$TREE" "$WORK/all_gather_2x4.log@2x4" \
  --cluster "$LOGS/h100_2x1_roce.toml" --out "$WORK/ag"; then
  line=$(grep "all_gather_2x4.log *all_gather" <<<"$OUTPUT" | tail -1)
  awk '{ if ($4 < 29.4 || $4 > 30.6 || $5 < 17.15 || $5 > 17.85) exit 1 }' <<<"$line" ||
    fail "alpha-beta fit of the synthetic log: $line"
fi

# The older layout without Rank lines takes its shape from @NODESxGPUS.
AWS=$LOGS/aws-ofi-nccl-33_all_reduce_p3dn_2x8_efa.log
expect_exit 0 -- "$BIN" calibrate "$AWS@2x8" --cluster "$LOGS/p3dn_2x8_efa.toml" --out "$WORK/a"

# A comm-bench CSV is an input (its allreduce-fp32 rows, the shape from @).
if expect_exit 0 -- "$BIN" comm-bench --backend sim --ranks 2 --sizes 1,64 \
  --variants allreduce-fp32 --out "$WORK/cb"; then
  expect_exit 0 -- "$BIN" calibrate "$WORK/cb/comm_bench.csv@2x1" --cluster "$LOGS/h100_2x1_roce.toml" \
    --out "$WORK/cbc" && expect_contains "comm-bench rows" "comm-bench CSV" "$OUTPUT"
fi

# validate calibrate-workflow: public cases (each once: those of a thread with two rows or more
# at one GPUs-per-node), each in a calibrate or held-back part; Table 1 gives every fitted
# efficiency back.
if expect_exit 0 -- "$BIN" validate calibrate-workflow --out "$WORK/cw"; then
  grep -qE '^held-back rows: [0-9]+; median \|error\| uncalibrated .*, calibrated ' <<<"$OUTPUT" ||
    fail "calibrate-workflow: no summary line: $OUTPUT"
  awk '$2 ~ /_efficiency$/ && $5 > 0 { if ($3 != $4) bad = 1 } END { exit bad }' <<<"$OUTPUT" ||
    fail "calibrate-workflow: Table 1 does not give the presets' efficiencies back"
  /usr/bin/python3 - "$WORK/cw/calibrate_workflow.csv" "$SRC/data/published/nccl_tests_public.csv" \
    <<'PY' || fail "calibrate_workflow.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
data = list(csv.DictReader(line for line in open(sys.argv[2]) if not line.startswith("#")))
cases = [r["case"] for r in rows]
assert rows and len(set(cases)) == len(cases) and set(cases) <= {d["case"] for d in data}, rows
assert {"calibrate", "held back"} == {r["part"] for r in rows}, rows
for r in rows:
    assert r["part"] in ("calibrate", "held back"), r
    pub, err = float(r["published_us"]), float(r["calibrated_error_pct"])
    assert abs(100 * (float(r["calibrated_us"]) - pub) / pub - err) < 0.1, r
PY
fi

# Bad input: exit 2, the problem named, nothing written.
bad() {
  local needle=$1
  shift
  expect_exit 2 -- "$BIN" calibrate "$@" && expect_contains "calibrate $*" "$needle" "$OUTPUT"
}
bad "every process ran its own one-rank test" "$LOGS/nccl-tests-107_all_reduce_v100_2x1_without_mpi.log" \
  --cluster dgx-h100
bad "name the shape as" "$AWS" --cluster "$LOGS/p3dn_2x8_efa.toml"
bad "expected @NODESxGPUS" "$AWS@2y8" --cluster dgx-h100
bad "No such file" "$WORK/missing.log" --cluster dgx-h100
bad "--cluster 'nowhere'" "$TREE" --cluster nowhere
bad "no allreduce row among the inputs" "$WORK/all_gather_2x4.log@2x4" --cluster dgx-h100 --out "$WORK/x1"
bad "give all three" "$TREE" --cluster "$LOGS/h100_2x1_roce.toml" --step-time 0.5
bad "--workload: unknown workload preset 'nope'" "$TREE" --cluster "$LOGS/h100_2x1_roce.toml" --workload nope
sed 's/  0    93.35/  7    93.35/' "$TREE" > "$WORK/wrong_all_reduce.log"
bad "#wrong = 7 at size 2097152" "$WORK/wrong_all_reduce.log" --cluster "$LOGS/h100_2x1_roce.toml"
{ echo "NCCL version 2.18.1+cuda12.1"; cat "$TREE"; } > "$WORK/v1_all_reduce.log"
{ echo "NCCL version 2.19.3+cuda12.2"; cat "$TREE"; } > "$WORK/v2_all_reduce.log"
bad "different NCCL versions (2.18.1 in" "$WORK/v1_all_reduce.log" "$WORK/v2_all_reduce.log" \
  --cluster "$LOGS/h100_2x1_roce.toml"
[ -e "$WORK/x1" ] && fail "a refused run wrote its directory"

finish "calibrate CLI: all checks passed"
