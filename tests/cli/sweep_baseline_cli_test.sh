#!/usr/bin/env bash
# `compopt sweep --tune-baseline` and `[sweep] tune_baseline = true` (experiments/scenario/
# tuned_baseline_columns.h). On 2 nodes of 8 A100 with one 10 Gbit/s NIC an NCCL from before
# the tree (2.3) runs the ring where the tree is faster (profile_baseline_cli_test.sh derives
# why): every row flags
# NCCL's default as the slower algorithm; the NCCL-default baseline is adam's own row; the tuned
# baseline is what a sweep forced to its algorithm and bucket count simulates; the speedups are
# ratios of those step times. Bad values of the key exit 2 naming them, before any work; the
# Llama example's one file runs under both commands and states what it charged.
#   sweep_baseline_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
SRC=$2

cat >"$WORK/two.toml" <<'EOF'
[workload]
name = "bert-base"
[cluster]
preset = "ethernet-a100-8"
nccl_version = "2.3"
[sweep]
optimizers = ["adam", "onebit-adam"]
gpus = 16
EOF

# Without the flag: no columns, one line saying how to get them.
expect_exit 0 -- "$BIN" sweep "$WORK/two.toml" --out "$WORK/plain" --overwrite --jobs 2
expect_contains "hint" "--tune-baseline also runs each baseline tuned" "$OUTPUT"
head -1 "$WORK/plain/sweep.csv" | grep -q tuned_baseline && fail "tuned columns without the flag"

expect_exit 0 -- "$BIN" sweep "$WORK/two.toml" --tune-baseline --out "$WORK/tuned" --overwrite \
  --jobs 2
expect_contains "baseline line" "baseline adam (16 GPUs" "$OUTPUT"
expect_contains "warning" "warning: NCCL default (ring) is " "$OUTPUT"
expect_contains "speedups" "against the NCCL-default baseline" "$OUTPUT"

read -r algorithm buckets < <(/usr/bin/python3 - "$WORK/tuned" <<'PY'
import csv, json, os, sys
run = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(run, "sweep.csv"))))
adam = [r for r in rows if r["optimizer"] == "adam"][0]
for r in rows:
    assert r["nccl_default_slower"] == "1", r["nccl_default_slower"]
    assert float(r["nccl_default_slowdown"]) > 1.2, r["nccl_default_slowdown"]
    assert r["nccl_default_baseline_algorithm"] == "ring", r
    # NCCL's default baseline is adam's own row of the sweep.
    assert abs(float(r["nccl_default_baseline_step_time_s"]) / float(adam["step_time_s"]) - 1) \
        < 1e-5, (r["nccl_default_baseline_step_time_s"], adam["step_time_s"])
    step, tuned = float(r["step_time_s"]), float(r["tuned_baseline_step_time_s"])
    assert abs(float(r["speedup_vs_tuned_baseline"]) - tuned / step) < 1e-4, r
    assert abs(float(r["speedup_vs_nccl_default"]) -
               float(r["nccl_default_baseline_step_time_s"]) / step) < 1e-4, r
    assert r["tuned_baseline_algorithm"] == "tree", r["tuned_baseline_algorithm"]
assert float(adam["speedup_vs_tuned_baseline"]) < 1, adam  # the tuned adam beats NCCL's
assert json.load(open(os.path.join(run, "run.json")))["config"]["tune_baseline"] is True
print(adam["tuned_baseline_algorithm"], adam["tuned_baseline_buckets"])
PY
) || fail "tuned columns disagree"

# The tuned baseline is what adam forced to that algorithm and bucket count runs.
expect_exit 0 -- "$BIN" sweep "$WORK/two.toml" --set 'sweep.optimizers=["adam"]' \
  --set "cluster.allreduce_algorithm=${algorithm:-tree}" --set "sweep.buckets=${buckets:-0}" \
  --out "$WORK/forced" --overwrite
/usr/bin/python3 - "$WORK/tuned" "$WORK/forced" <<'PY' || fail "tuned baseline is not the forced run"
import csv, os, sys
tuned = list(csv.DictReader(open(os.path.join(sys.argv[1], "sweep.csv"))))[0]
forced = list(csv.DictReader(open(os.path.join(sys.argv[2], "sweep.csv"))))[0]
assert forced["algorithm"] == tuned["tuned_baseline_algorithm"], forced["algorithm"]
assert forced["buckets_used"] == tuned["tuned_baseline_buckets_used"], forced["buckets_used"]
assert abs(float(forced["step_time_s"]) / float(tuned["tuned_baseline_step_time_s"]) - 1) < 1e-5
PY

# The config key does what the flag does.
printf '%s\ntune_baseline = true\n' "$(cat "$WORK/two.toml")" >"$WORK/key.toml"
expect_exit 0 -- "$BIN" sweep "$WORK/key.toml" --out "$WORK/key" --overwrite --jobs 2
cmp -s "$WORK/key/sweep.csv" "$WORK/tuned/sweep.csv" ||
  fail "tune_baseline = true gives other rows than --tune-baseline"

# Bad values: exit 2 naming the value, nothing written.
printf '%s\ntune_baseline = "yes"\n' "$(cat "$WORK/two.toml")" >"$WORK/bad.toml"
expect_exit 2 -- "$BIN" sweep "$WORK/bad.toml" --out "$WORK/bad" --overwrite
expect_contains "bad value named" "sweep.tune_baseline = 'yes'" "$OUTPUT"
expect_contains "expected" "expected true or false" "$OUTPUT"
[ -e "$WORK/bad" ] && fail "a refused config left a run directory"
expect_exit 2 -- "$BIN" sweep "$WORK/two.toml" --set sweep.tune_baseline=1 --out "$WORK/bad"
expect_contains "bad --set named" "sweep.tune_baseline = 1" "$OUTPUT"
expect_exit 2 -- "$BIN" profile "$WORK/bad.toml" --set 'sweep.optimizers=["adam"]' \
  --out "$WORK/bad"
expect_contains "profile names it" "sweep.tune_baseline = 'yes'" "$OUTPUT"

# The Llama example: one file for profile and sweep; both state the profile, buckets,
# algorithm and utilisation charged and compare with the tuned baseline; --sensitivity analyses
# the scenario the sweep simulated (its expected speedup is the table's, implementation
# included) and gives a verdict.
LLAMA="$SRC/experiments/configs/whatif_llama2_7b_h100_roce.toml"
expect_exit 0 -- "$BIN" profile "$LLAMA" --optimizer onebit-adam --out "$WORK/llama" --overwrite
expect_contains "profile implementation" "implementation: zero-3 (" "$OUTPUT"
expect_contains "plain defaults" "described by its keys, from the plain defaults" "$OUTPUT"
expect_contains "utilisation" "bf16 on H100 at " "$OUTPUT"
expect_contains "tuned" "speedup of onebit-adam: " "$OUTPUT"
head -1 "$WORK/llama/profile.csv" | grep -q speedup_vs_tuned_baseline ||
  fail "profile.csv of the Llama example lacks the tuned columns"
expect_exit 0 -- "$BIN" sweep "$LLAMA" --sensitivity --out "$WORK/llama-sweep" --overwrite \
  --jobs 2
expect_contains "sweep charge" "charged: adam: ring + forward parameter all-gather" "$OUTPUT"
expect_contains "sweep utilisation" "(public)" "$OUTPUT"
expect_contains "sweep tuned" "baseline adam (128 GPUs, 100 Gbit/s, zero-3" "$OUTPUT"
table=$(grep -oE '\(([0-9.]+)x\)$' <<<"$OUTPUT" | head -1 | tr -d '()x')
expected=$(sed -nE 's/^expected speedup ([0-9.]+)x.*/\1/p' <<<"$OUTPUT")
[ -n "$table" ] && [ "$table" = "$expected" ] ||
  fail "sensitivity's expected speedup '$expected' is not the sweep's '$table'"
grep -qE "^onebit-adam( pays in every case|: .*, depends on: )" <<<"$OUTPUT" ||
  fail "no verdict: $(tail -3 <<<"$OUTPUT")"

finish
