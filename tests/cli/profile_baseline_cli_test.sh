#!/usr/bin/env bash
# `compopt profile --tune-baseline`'s lines (sim/tuned_baseline.h): on 2 nodes of 8 A100 with one
# 10 Gbit/s NIC, an NCCL from before the tree (2.3: the ring only) runs the ring where the tree
# moves half the bytes through each NIC, so the NCCL-default baseline is the ring and the tuned
# one the tree, with a warning; the preset's NCCL 2.10 runs the tree there itself (its tuning
# model, sim/nccl_tuning.h), and no warning is printed. The default's step is the profile's own
# total; the tuned step is what a profile forced to the tuned algorithm and bucket count prints;
# the speedups are the ratios of those steps.
#   profile_baseline_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

profile() {  # profile ARGS...: the output of a profile of BERT-Base on 2 nodes under NCCL 2.3
  "$BIN" profile --workload bert-base --cluster ethernet-a100-8 --gpus 16 --out "$WORK/run" \
    --overwrite --set 'cluster.nccl_version="2.3"' "$@" 2>&1
}

# The preset's NCCL 2.10 picks the tree on 2 nodes: the default is the tuned algorithm.
expect_exit 0 -- "$BIN" profile --workload bert-base --cluster ethernet-a100-8 --gpus 16 \
  --out "$WORK/run" --overwrite --optimizer bertadam --tune-baseline
expect_contains "2.10 default" "baseline bertadam: NCCL default tree with 25 MB buckets:" "$OUTPUT"
grep -qF "warning: NCCL default" <<<"$OUTPUT" && fail "warned where NCCL runs the tree: $OUTPUT"

# Without --tune-baseline: one line saying the baseline is NCCL's default, no search.
expect_exit 0 -- profile --optimizer bertadam
expect_contains "hint" "baseline: NCCL's default algorithm and buckets; --tune-baseline also runs" "$OUTPUT"
grep -qF "NCCL default ring" <<<"$OUTPUT" && fail "searched without --tune-baseline: $OUTPUT"

expect_exit 0 -- profile --optimizer bertadam --tune-baseline
own="$OUTPUT"
expect_contains "baseline line" "baseline bertadam: NCCL default ring with 25 MB buckets:" "$own"
expect_contains "searched" "(searched ring, tree at the default's buckets, then buckets 25 MB, 1, 4, 16, 64 with" "$own"
expect_contains "warning" "warning: NCCL default (ring) is " "$own"
expect_contains "tree named" "slower than tree here" "$own"
expect_contains "own speedup" "speedup of bertadam: 1.00x against the NCCL-default baseline" "$own"

/usr/bin/python3 - "$own" "$BIN" "$WORK" <<'PY' || fail "baseline figures disagree"
import re, subprocess, sys
out, binary, work = sys.argv[1], sys.argv[2], sys.argv[3]
total = float(re.search(r"^full_precision\s+(?:\S+\s+){5}(\S+)", out, re.M).group(1))
m = re.search(r"NCCL default ring with 25 MB buckets: ([\d.]+) ms per step; "
              r"tuned (\w+) with (25 MB buckets|1 bucket|(\d+) buckets): ([\d.]+) ms", out)
default_ms, algorithm, buckets, tuned_ms = float(m.group(1)), m.group(2), m.group(4), float(m.group(5))
assert abs(default_ms - total) < 0.006, (default_ms, total)
assert algorithm == "tree" and tuned_ms < default_ms, m.groups()
slower = float(re.search(r"is ([\d.]+)x slower", out).group(1))
assert slower > 1.2, slower  # the ring moves 2 x 15/16 S per NIC, the tree S at 0.9 of the rate
forced = ["--set", "cluster.allreduce_algorithm=tree"]
forced += ["--buckets", buckets] if buckets else (["--buckets", "1"] if m.group(3) == "1 bucket" else [])
run = subprocess.run([binary, "profile", "--workload", "bert-base", "--cluster", "ethernet-a100-8",
                      "--gpus", "16", "--optimizer", "bertadam", "--out", work + "/forced",
                      "--overwrite"] + forced, capture_output=True, text=True, check=True).stdout
forced_total = float(re.search(r"^full_precision\s+(?:\S+\s+){5}(\S+)", run, re.M).group(1))
assert abs(forced_total - tuned_ms) < 0.006, (forced_total, tuned_ms)
tuned_speedup = float(re.search(r"([\d.]+)x against the tuned", out).group(1))
assert abs(tuned_speedup - tuned_ms / default_ms) < 0.006, (tuned_speedup, tuned_ms / default_ms)
PY

# A compressed optimizer is compared with its registry baseline, adam.
expect_exit 0 -- profile --optimizer onebit-adam --tune-baseline
expect_contains "registry baseline" "baseline adam: NCCL default ring" "$OUTPUT"
expect_contains "speedups" "speedup of onebit-adam: " "$OUTPUT"

finish
