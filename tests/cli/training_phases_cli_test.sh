#!/usr/bin/env bash
# `compopt sweep` / `compopt profile` with [training] phases (sim/training_phases.h): the
# two-phase time to train equals the phases' steps at the step times of the same scenarios
# simulated on their own (0.9 x T128 + 0.1 x T512 for Adam; the warmup in the first phase
# for 1-bit Adam), the columns say what was assumed, and bad phases exit 2 before any run.
#   training_phases_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

cat > "$WORK/sweep.toml" <<'TOML'
[workload]
name = "bert-large-seq128"
[cluster]
preset = "ethernet-v100-4"
[sweep]
optimizers = ["adam", "onebit-adam"]
gpus = [16]
[training]
total_steps = 1000
warmup_steps = 150
TOML
PHASES='training.phases=[{workload="bert-large-seq128",fraction=0.9},{workload="bert-large-seq512",fraction=0.1,batch_per_gpu=4}]'
out=$("$BIN" sweep "$WORK/sweep.toml" --jobs 2 --set "$PHASES" --out "$WORK/two" 2>&1) ||
  fail "two-phase sweep: $out"
out=$("$BIN" sweep "$WORK/sweep.toml" --jobs 2 --out "$WORK/seq128" 2>&1) || fail "seq128: $out"
out=$("$BIN" sweep "$WORK/sweep.toml" --jobs 2 --set workload.name=bert-large-seq512 \
  --set sweep.batch_per_gpu=4 --out "$WORK/seq512" 2>&1) || fail "seq512: $out"
STEPS='training.phases=[{workload="bert-large-seq128",steps=900},{workload="bert-large-seq512",steps=100,batch_per_gpu=4}]'
out=$("$BIN" sweep "$WORK/sweep.toml" --jobs 2 --set "$STEPS" --out "$WORK/steps" 2>&1) ||
  fail "phases by steps: $out"

/usr/bin/python3 - "$WORK" <<'PY' || fail "two-phase sweep.csv check failed"
import csv, sys
def rows(name):
    return list(csv.DictReader(open(f"{sys.argv[1]}/{name}/sweep.csv")))
two, r128, r512 = rows("two"), rows("seq128"), rows("seq512")
def by(rs, key):
    return {r["optimizer"]: float(r[key]) for r in rs}
def stage_times(rs):
    return {(r["optimizer"], r["stage"]): float(r["step_time_s"]) for r in rs}
def close(a, b):
    return abs(a - b) <= 2e-5 * abs(b)  # the CSV's hours have 6 significant digits
t2, t128, t512 = by(two, "time_to_train_h"), by(r128, "time_to_train_h"), by(r512, "time_to_train_h")
assert close(t2["adam"], 0.9 * t128["adam"] + 0.1 * t512["adam"]), (t2, t128, t512)
# 1-bit Adam: the 150 warmup steps fall in the first phase (900 steps at sequence 128).
s128, s512 = stage_times(r128), stage_times(r512)
one = (150 * s128["onebit-adam", "warmup"] + 750 * s128["onebit-adam", "compression"]
       + 100 * s512["onebit-adam", "compression"]) / 3600
assert close(t2["onebit-adam"], one), (t2, one)
label = ("bert-large-seq128:0.9 (900 steps at batch 16x1) + "
         "bert-large-seq512:0.1 (100 steps at batch 4x1)")
for r in two:
    assert r["training_phases"] == label, r["training_phases"]
    assert r["workload"] == "bert-large-seq128" and r["batch_per_gpu"] == "16", r  # own step rows
    speedup = float(r["end_to_end_speedup"])
    assert abs(speedup - t2["adam"] / t2[r["optimizer"]]) < 1e-3, r
    lo, mid, hi = (float(r[k]) for k in ("time_to_train_low_h", "time_to_train_h",
                                         "time_to_train_high_h"))
    assert lo <= mid <= hi, r
for r in r128 + r512:
    assert r["training_phases"] == "" and r["memory_phase"] == "", r
# Memory: the phase needing the most per GPU.
m128, m512 = by(r128, "memory_total_gb"), by(r512, "memory_total_gb")
for r in two:
    o = r["optimizer"]
    peak, phase = max((m128[o], "bert-large-seq128 at batch 16x1"),
                      (m512[o], "bert-large-seq512 at batch 4x1"))
    assert abs(float(r["memory_total_gb"]) - peak) < 1e-9, (r["memory_total_gb"], peak)
    assert r["memory_phase"] == phase, r["memory_phase"]
# Phases by step counts give the same run.
same = rows("steps")
for a, b in zip(two, same):
    assert a["time_to_train_h"] == b["time_to_train_h"], (a, b)
PY

# Bad phases: exit 2 naming the key and value, before any run directory exists.
bad() {  # bad NAME SET MESSAGE
  expect_exit 2 -- "$BIN" sweep "$WORK/sweep.toml" --set "$2" --out "$WORK/bad-$1"
  expect_contains "$1" "$3" "$OUTPUT"
  [[ ! -e "$WORK/bad-$1" ]] || fail "$1: left a run directory"
}
bad unknown 'training.phases=[{workload="bert-huge",fraction=1}]' \
  "training.phases[1].workload = 'bert-huge' from --set: unknown workload preset"
bad sum 'training.phases=[{workload="bert-large-seq128",fraction=0.9},{workload="bert-large-seq512",fraction=0.2}]' \
  "the fractions sum to 0.9 + 0.2 = 1.1, expected 1"
bad negative 'training.phases=[{workload="bert-large-seq128",fraction=-0.5},{workload="bert-large-seq512",fraction=1.5}]' \
  "training.phases[1].fraction = -0.5, expected a share of the run in (0, 1]"
bad both 'training.phases=[{workload="bert-large-seq128",fraction=1,steps=1000}]' \
  "training.phases[1] (bert-large-seq128) gives both fraction and steps"
bad steps 'training.phases=[{workload="bert-large-seq128",steps=900},{workload="bert-large-seq512",steps=50}]' \
  "the steps sum to 950, expected training.total_steps = 1000"
bad batch 'training.phases=[{workload="bert-large-seq128",fraction=1,batch_per_gpu=-4}]' \
  "training.phases[1].batch_per_gpu = -4 from --set: expected an integer in 1.."
bad key 'training.phases=[{workload="bert-large-seq128",share=1}]' \
  "unknown key 'training.phases[1].share'"
bad array 'training.phases=bert-large-seq512' "training.phases = 'bert-large-seq512' from --set"
sed '/total_steps/d' "$WORK/sweep.toml" > "$WORK/no_total.toml"
expect_exit 2 -- "$BIN" sweep "$WORK/no_total.toml" --set "$PHASES" --out "$WORK/bad-total"
expect_contains "no total" "training.phases without training.total_steps or training.total_samples" "$OUTPUT"
sed 's/total_steps = 1000/total_samples = 64000/' "$WORK/sweep.toml" > "$WORK/samples.toml"
expect_exit 2 -- "$BIN" sweep "$WORK/samples.toml" --set "$PHASES" --out "$WORK/bad-samples"
expect_contains "samples" "training.total_samples = 64000 with training.phases of different global batches" "$OUTPUT"

# A phase's workload may be a table as [workload] takes: a model described in full.
TABLE='training.phases=[{workload="bert-large-seq128",fraction=0.9},{workload={name="bert-large-seq1024",preset="bert-large-seq512",transformer={layers=24,hidden=1024,sequence=1024,vocabulary=30522}},fraction=0.1,batch_per_gpu=2}]'
out=$("$BIN" sweep "$WORK/sweep.toml" --jobs 2 --set "$TABLE" --out "$WORK/table" 2>&1) ||
  fail "workload table phase: $out"
expect_contains "workload table phase" "bert-large-seq1024:0.1 (100 steps at batch 2x1)" \
  "$(cat "$WORK/table/sweep.csv")"
bad table 'training.phases=[{workload={name="x",paramz=3},fraction=1}]' \
  "training.phases[1].workload: unknown key 'workload.paramz'"

# profile prints the phases and the memory of the peak phase.
out=$("$BIN" profile --gpus 16 --set training.total_steps=1000 --set "$PHASES" \
  --out "$WORK/profile" 2>&1) || fail "profile: $out"
expect_contains "profile phases" "  in phases: bert-large-seq128:0.9 (900 steps at batch 16x1) + bert-large-seq512:0.1 (100 steps at batch 4x1)" "$out"
expect_contains "profile memory" "(the run's peak: bert-large-seq" "$out"

finish "training_phases_cli_test: all passed"
