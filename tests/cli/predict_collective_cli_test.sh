#!/usr/bin/env bash
# `compopt predict-collective` and `compopt comm-bench` print nccl-tests' table: header lines
# start with "#", every other line splits into the 13 columns of an all_reduce_perf log (plus
# predict-collective's algorithm and low..high band around its time, at least +-q of it, q the
# model-error term), busbw = algbw x 2(n-1)/n and algbw = size / time, the
# sizes are the -b/-e/-f sweep, and the CSV holds the same rows. comm-bench's simulated
# star gives the hand-derived time: 4 ranks, 4 MB, 1 Gbit/s at efficiency 0.5, no latency:
# 2(n-1)/n x 4e6 B x 8 / 0.5e9 bit/s = 96 ms. Bad sizes and collectives exit 2 naming them.
#   predict_collective_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
unset RANK WORLD_SIZE MASTER_ADDR MASTER_PORT COMPOPT_JOB_TOKEN

# check_table LOG RANKS SIZES [EXTRA]: the table's lines as a log parser reads them.
check_table() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
log, ranks, sizes = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3].split(",")]
extra = 2 if len(sys.argv) > 4 else 0  # predict-collective: algorithm, low..high
rows = [l.split() for l in open(log) if l.strip() and not l.startswith("#")
        and not l.startswith("wrote")]
assert [int(r[0]) for r in rows] == sizes, (rows, sizes)
factor = 2 * (ranks - 1) / ranks
for r in rows:
    assert len(r) == 13 + extra, r
    size, count = int(r[0]), int(r[1])
    assert count == size // 4 and r[2] == "float" and r[4] == "-1", r
    for t, alg, bus in ((5, 6, 7), (9, 10, 11)):
        time_us, algbw, busbw = float(r[t]), float(r[alg]), float(r[bus])
        assert time_us > 0, r
        assert abs(algbw - size / time_us / 1e3) <= 0.006 + 0.01 * algbw, r
        assert abs(busbw - algbw * factor) <= 0.011 + 0.01 * busbw, r
    assert r[8] == "N/A" and r[12] == "N/A", r
    if extra:
        assert r[13] in ("ring", "tree"), r
        low, high = (float(v) for v in r[14].split(".."))
        t = float(r[5])
        # the band holds the time and at least the model-error term each side (+-12.55%)
        assert low <= t * (1 - 0.12) and high >= t * (1 + 0.12), r
times = [float(r[5]) for r in rows]
assert times == sorted(times), times
assert any(l.startswith("# Avg bus bandwidth    : ") for l in open(log)), "no footer"
PY
}

# --- predict-collective: 2 DGX H100 (16 ranks), 1 MiB to 64 MiB by 4 ---
if expect_exit 0 -- "$BIN" predict-collective --cluster dgx-h100 --gpus 16 -b 1M -e 64M -f 4 \
    --out "$WORK/pred"; then
  echo "$OUTPUT" > "$WORK/pred.log"
  check_table "$WORK/pred.log" 16 1048576,4194304,16777216,67108864 algo ||
    fail "predict-collective table: $(head -c 1500 "$WORK/pred.log")"
  for line in "# Collective test starting: all_reduce_perf" "# nranks 16: cluster 'dgx-h100'" \
      "# inter-node: 8 NIC(s) per node x 400 Gbit/s" "# algorithm: chosen per size" \
      "# protocol: NCCL's Simple protocol only" "# band (low..high us): root-sum-square of inter-node bandwidth x0.95..x1.07" \
      "model error +-"; do
    expect_contains "predict-collective assumptions" "$line" "$OUTPUT"
  done
  /usr/bin/python3 - "$WORK/pred/predict_collective.csv" "$WORK/pred.log" <<'PY' ||
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
log = [l.split() for l in open(sys.argv[2]) if l[:1] not in ("#", "w", "\n")]
assert [int(r["bytes"]) for r in rows] == [int(l[0]) for l in log], (rows, log)
for r, l in zip(rows, log):
    assert r["collective"] == "all_reduce" and r["ranks"] == "16" and r["algorithm"] == l[13], r
    assert abs(float(r["time_us"]) - float(l[5])) <= 0.01 * float(l[5]), (r, l)
    assert l[14] == "{:.1f}..{:.1f}".format(float(r["time_low_us"]), float(r["time_high_us"])), (r, l)
PY
    fail "predict_collective.csv disagrees with the table"
fi

# The sizes run in forked children: one process or three give the same table, byte for byte
# (the 7 sizes fall into shares of 1 and 3 processes differently).
if expect_exit 0 -- "$BIN" predict-collective --cluster dgx-h100 --gpus 16 -b 1K -e 1G -f 8 \
    --jobs 1 --out "$WORK/jobs1" && expect_exit 0 -- "$BIN" predict-collective --cluster \
    dgx-h100 --gpus 16 -b 1K -e 1G -f 8 --jobs 3 --out "$WORK/jobs3"; then
  cmp -s "$WORK/jobs1/predict_collective.csv" "$WORK/jobs3/predict_collective.csv" ||
    fail "--jobs 1 and --jobs 3 differ: $(diff "$WORK/jobs1/predict_collective.csv" \
      "$WORK/jobs3/predict_collective.csv" | head -5)"
  [ "$(grep -c '^all_reduce,' "$WORK/jobs3/predict_collective.csv")" = 7 ] ||
    fail "--jobs 3 wrote $(cat "$WORK/jobs3/predict_collective.csv")"
fi

# A forced algorithm is the one charged; --set changes the described cluster.
if expect_exit 0 -- "$BIN" predict-collective --cluster dgx-h100 --gpus 16 -b 8M -e 8M \
    --set cluster.allreduce_algorithm=tree --set cluster.nics_per_node=4 --out "$WORK/tree"; then
  expect_contains "forced tree" "tree forced" "$OUTPUT"
  expect_contains "forced tree charged" " tree" "$(grep -v '^#' <<<"$OUTPUT")"
  expect_contains "nics from --set" "4 NIC(s) per node" "$OUTPUT"
fi

# --- comm-bench: nccl-tests' table on the simulated star, the hand-derived 96 ms ---
if expect_exit 0 -- "$BIN" comm-bench --backend sim --ranks 4 --link-gbps 1 --latency-us 0 \
    --link-efficiency 0.5 -b 4000000 -e 4000000 --variants allreduce-fp32 --iters 1 \
    --warmup 0 --out "$WORK/bench"; then
  echo "$OUTPUT" > "$WORK/bench.log"
  check_table "$WORK/bench.log" 4 4000000 || fail "comm-bench table: $(cat "$WORK/bench.log")"
  time_us=$(grep -v '^#' "$WORK/bench.log" | awk 'NF == 13 {print $6}')
  awk -v t="$time_us" 'BEGIN {exit !(t >= 96000 && t < 96100)}' ||
    fail "comm-bench 4 MB time $time_us us, expected 96000..96100 (96 ms + host hops)"
  expect_contains "comm-bench header" "# Collective test starting: all_reduce" "$OUTPUT"
  expect_contains "comm-bench CSV kept" "comm_bench.csv" "$OUTPUT"
fi

# --- bad input: exit 2 naming the value ---
P=(predict-collective --cluster dgx-h100 --out "$WORK/bad")
expect_exit 2 -- "$BIN" "${P[@]}" --collective all_gather &&
  expect_contains "other collective" "--collective all_gather: the step simulator predicts all_reduce only" "$OUTPUT"
expect_exit 2 -- "$BIN" "${P[@]}" -b 64M -e 1M && expect_contains "-b above -e" "-b 67108864 is above -e 1048576" "$OUTPUT"
expect_exit 2 -- "$BIN" "${P[@]}" -b 2 -e 8 -f 2 && expect_contains "under one element" "one fp32 element" "$OUTPUT"
expect_exit 2 -- "$BIN" "${P[@]}" -f 0 && expect_contains "factor 0" "-f 0" "$OUTPUT"
expect_exit 2 -- "$BIN" "${P[@]}" -b 1X && expect_contains "bad suffix" "-b 1X" "$OUTPUT"
expect_exit 2 -- "$BIN" "${P[@]}" --set cluster.nics_per_node=0 &&
  expect_contains "bad cluster" "nics_per_node" "$OUTPUT"
expect_exit 2 -- "$BIN" "${P[@]}" --jobs -1 && expect_contains "bad jobs" "--jobs" "$OUTPUT"
expect_exit 2 -- "$BIN" predict-collective --cluster nowhere --out "$WORK/bad" &&
  expect_contains "bad preset" "nowhere" "$OUTPUT"
[ -e "$WORK/bad" ] && fail "bad input created $WORK/bad"
B=(comm-bench --backend sim --out "$WORK/badbench")
expect_exit 2 -- "$BIN" "${B[@]}" --sizes 1 -b 1M &&
  expect_contains "sizes and sweep" "--sizes and -b/-e/-f/-i both given" "$OUTPUT"
expect_exit 2 -- "$BIN" "${B[@]}" -b 8G -e 8G && expect_contains "too large" "-e 8589934592" "$OUTPUT"
expect_exit 2 -- "$BIN" "${B[@]}" -b 1M -e 2M -f 1 -i 0 && expect_contains "step 0" "-i 0" "$OUTPUT"

finish "predict-collective and comm-bench nccl-tests tables: all checks passed"
