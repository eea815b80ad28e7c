#!/usr/bin/env bash
# `compopt sweep` and `compopt profile` with a [training] table: sweep.csv ends with the
# time-to-train, time-to-target and memory columns and end_to_end_speedup; the hours agree
# with the CSV's own step times; a scenario that does not fit is listed after the run, and
# profile prints its memory block and the warning.
#   time_to_train_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
SRC=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

printf 'step,test_accuracy\n100,0.5\n200,\n300,0.91\n' > "$WORK/metrics.csv"
# gpt2-xl (about 1.56 B parameters) with Adam in fp16 (V100s have no bf16 unit) needs 16 B per
# parameter: more than a V100-16GB holds; bert-large fits.
cat > "$WORK/sweep.toml" <<TOML
[cluster]
preset = "ethernet-v100-4"
[sweep]
optimizers = ["adam", "onebit-adam", "birder"]
gpus = [16]
[training]
total_steps = 1000
warmup_steps = 150
metric = "test_accuracy"
target = 0.9
steps_to_target = {adam = 250}
metrics = {onebit-adam = "$WORK/metrics.csv"}
TOML
out=$("$BIN" sweep "$WORK/sweep.toml" --jobs 2 --out "$WORK/fits" 2>&1) || fail "sweep: $out"
[[ "$out" != *"do not fit"* ]] || fail "bert-large flagged as not fitting: $out"
out=$("$BIN" sweep "$WORK/sweep.toml" --jobs 2 --set workload.name=gpt2-xl \
  --set workload.compute_precision=fp16 --set workload.gradient_precision=fp16 --out "$WORK/big" 2>&1) ||
  fail "sweep gpt2-xl: $out"
expect_contains "sweep lists what does not fit" "warning: 3 scenario(s) do not fit in the GPU's memory (3 distinct case(s)):" "$out"
expect_contains "sweep names the scenario" "gpt2-xl adam on ethernet-v100-4 x V100-16GB (16 GPUs)" "$out"

/usr/bin/python3 - "$WORK/fits/sweep.csv" <<'PY' || fail "sweep.csv check failed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
header = open(sys.argv[1]).readline().strip().split(",")
tail = ["total_steps", "warmup_steps", "time_to_train_h", "time_to_train_low_h",
        "time_to_train_high_h", "steps_to_target", "time_to_target_h", "time_to_target_low_h",
        "time_to_target_high_h", "training_phases",
        "memory_weights_gb", "memory_gradients_gb", "memory_optimizer_gb",
        "memory_activations_gb", "memory_total_gb", "gpu_memory_gb", "fits_in_memory",
        "memory_phase", "nics_per_node", "rail_optimized", "algorithm", "buckets_used", "compute_source",
        "compute_utilization_source",
        "end_to_end_speedup", "speedup_baseline"]
assert header[-len(tail):] == tail, header
time = {}
stages = {}
for r in rows:
    stages.setdefault(r["optimizer"], {})[r["stage"]] = float(r["step_time_s"])
    time[r["optimizer"]] = float(r["time_to_train_h"])
def close(a, b):
    return abs(a - b) <= 1e-5 * abs(b)
assert close(time["adam"], 1000 * stages["adam"]["full_precision"] / 3600), time
one = stages["onebit-adam"]
assert close(time["onebit-adam"], (150 * one["warmup"] + 850 * one["compression"]) / 3600), time
assert close(time["birder"], 1000 * stages["birder"]["compression"] / 3600), time
for r in rows:
    speedup = float(r["end_to_end_speedup"])
    assert abs(speedup - time["adam"] / time[r["optimizer"]]) < 1e-3, r
    assert r["fits_in_memory"] == "1", r
    parts = sum(float(r[k]) for k in tail[10:14])
    lo, mid, hi = (float(r[k]) for k in ("time_to_train_low_h", "time_to_train_h",
                                         "time_to_train_high_h"))
    assert lo < mid < hi, r
    assert abs(parts - float(r["memory_total_gb"])) < 0.005, r
by = {r["optimizer"]: r for r in rows}
assert by["adam"]["steps_to_target"] == "250"
assert close(float(by["adam"]["time_to_target_h"]), 250 * stages["adam"]["full_precision"] / 3600)
assert by["onebit-adam"]["steps_to_target"] == "300"  # first row reaching 0.9
assert close(float(by["onebit-adam"]["time_to_target_h"]),
             (150 * one["warmup"] + 150 * one["compression"]) / 3600)
assert by["birder"]["steps_to_target"] == "" and by["birder"]["time_to_target_h"] == ""
# 1-bit Adam keeps error feedback (n + n/16 floats) that Adam does not.
n = float(by["adam"]["memory_gradients_gb"]) / 2  # fp16 gradients: 2 B per parameter
extra = float(by["onebit-adam"]["memory_optimizer_gb"]) - float(by["adam"]["memory_optimizer_gb"])
assert abs(extra - 4 * n * (1 + 1 / 16)) < 0.01, extra
PY

out=$("$BIN" profile --set workload.name=gpt2-xl --set workload.compute_precision=fp16 \
  --set workload.gradient_precision=fp16 --out "$WORK/profile" 2>&1) || fail "profile: $out"
expect_contains "profile memory block" "memory per GPU: weights" "$out"
expect_contains "profile warning" "warning: does not fit:" "$out"
out=$("$BIN" profile --optimizer onebit-adam --set training.total_steps=1000 \
  --set training.warmup_fraction=0.1 --out "$WORK/profile2" 2>&1) || fail "profile: $out"
expect_contains "profile time to train" "time to train: 1000 steps (100 in the warmup stage)" "$out"
[[ "$out" != *"does not fit"* ]] || fail "profile of bert-large flagged: $out"

# The example config runs as documented.
out=$("$BIN" sweep "$SRC/experiments/configs/sweep_time_to_train.toml" --out "$WORK/example" 2>&1) ||
  fail "example config: $out"
expect_contains "example speedup column" ",end_to_end_speedup" "$(head -1 "$WORK/example/sweep.csv")"

finish "time_to_train_cli_test: all passed"
