#!/usr/bin/env bash
# Every output states what the step was charged: the implementation profile, the buckets used,
# the allreduce algorithm and the compute utilisation with its source. Checked on each output
# kind (profile header, profile.csv, run.json, trace; sweep header, sweep.csv, run.json)
# against expectations derived by hand, not read back from the simulator:
#   - ddp's 25 MiB buckets: 3.3e8 fp16 gradients are 6.6e8 B = 25.18 x 26214400 B: 26 buckets
#     (on 16 nodes of the InfiniBand V100 preset, where the buckets expose less than one);
#     deepspeed-2020's 5e8-element bucket holds them whole: 1 bucket;
#   - cluster.allreduce_algorithm=tree forces the tree in every output;
#   - a GPU whose utilisation the config gives (max_utilization 0.3, no per-layer overhead)
#     runs its passes at exactly 0.3 of its peak, source "config"; the V100 preset's is a fit
#     ("fitted"), the H100's bf16 figure a public one ("public").
#   charged_outputs_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

cat >"$WORK/bert.toml" <<'EOF'
[workload]
preset = "bert-large-seq128"
name = "bert-330m"
parameters = 3.3e8
gradient_precision = "fp16"
[cluster]
preset = "infiniband-v100-8"
[sweep]
optimizers = "lamb"
gpus = 128
batch_per_gpu = 64
EOF

# check_run DIR IMPLEMENTATION BUCKETS ALGORITHM UTILISATION SOURCE: profile.csv, run.json and
# (when DIR/trace.json exists) the trace state those values; UTILISATION "-" skips its value.
check_run() {
  /usr/bin/python3 - "$@" <<'PY' || fail "$1: charged values disagree"
import csv, json, os, sys
run, implementation, buckets, algorithm, utilisation, source = sys.argv[1:]
rows = list(csv.DictReader(open(os.path.join(run, "profile.csv"))))
for r in rows:
    assert r["implementation"] == implementation, r["implementation"]
    assert r["buckets_used"] == buckets, (r["buckets_used"], buckets)
    assert r["algorithm"] == algorithm, r["algorithm"]
    assert r["compute_utilization_source"] == source, r["compute_utilization_source"]
    if utilisation != "-":
        assert abs(float(r["compute_utilization"]) - float(utilisation)) < 1e-4, r
config = json.load(open(os.path.join(run, "run.json")))["config"]
assert config["implementation"] == implementation, config["implementation"]
assert config["buckets_used"] == {r["stage"]: int(buckets) for r in rows}, config["buckets_used"]
assert config["algorithm"] == {r["stage"]: algorithm for r in rows}, config["algorithm"]
assert config["compute_utilization_source"] == source, config
if utilisation != "-":
    assert abs(config["compute_utilization"] - float(utilisation)) < 1e-4, config
trace = os.path.join(run, "trace.json")
if os.path.exists(trace):
    other = json.load(open(trace))["otherData"]
    assert other["implementation"] == implementation, other
    for charged in other["charged"]:
        assert charged["buckets"] == int(buckets), charged
        assert charged["algorithm"] == algorithm, charged
        assert charged["compute_utilization_source"] == source, charged
        if utilisation != "-":
            assert abs(charged["compute_utilization"] - float(utilisation)) < 1e-4, charged
PY
}

# ddp, NCCL's choice: 26 buckets of 25 MiB, the ring, the V100's fitted utilisation.
expect_exit 0 -- "$BIN" profile "$WORK/bert.toml" --trace --out "$WORK/ddp" --overwrite
expect_contains "header implementation" "implementation: ddp (" "$OUTPUT"
expect_contains "header row" "      26  ring" "$OUTPUT"
expect_contains "header compute" "from fitted: 1-bit Adam Table 1" "$OUTPUT"
check_run "$WORK/ddp" ddp 26 ring - fitted

# The tree forced, deepspeed-2020 (one 5e8-element bucket), a utilisation given in the config.
expect_exit 0 -- "$BIN" profile "$WORK/bert.toml" --trace --implementation deepspeed-2020 \
  --set cluster.allreduce_algorithm=tree --set cluster.gpu.preset=V100 \
  --set cluster.gpu.max_utilization=0.3 --set cluster.gpu.layer_overhead_s=0 \
  --out "$WORK/forced" --overwrite
expect_contains "header implementation" "implementation: deepspeed-2020 (" "$OUTPUT"
expect_contains "header row" "       1  tree" "$OUTPUT"
expect_contains "header utilisation" "at 30.0% of its peak" "$OUTPUT"
check_run "$WORK/forced" deepspeed-2020 1 tree 0.3 config

# The sweep of both: its header names each optimizer's charge and the utilisation's sources,
# sweep.csv each row's, run.json each distinct charge with its row count.
cat >"$WORK/sweep.toml" <<'EOF'
[workload]
preset = "bert-large-seq128"
name = "bert-330m"
parameters = 3.3e8
gradient_precision = "fp16"
[cluster]
preset = "infiniband-v100-8"
[sweep]
optimizers = ["lamb", "onebit-lamb"]
gpus = 128
batch_per_gpu = 64
implementation = ["ddp", "deepspeed-2020"]
EOF
expect_exit 0 -- "$BIN" sweep "$WORK/sweep.toml" --out "$WORK/sweep" --overwrite --jobs 2
expect_contains "sweep charge" "charged: lamb: ring, 1-26 buckets;" "$OUTPUT"
expect_contains "sweep utilisation" "compute utilisation 46.4% (fitted)" "$OUTPUT"
/usr/bin/python3 - "$WORK/sweep" <<'PY' || fail "sweep.csv / run.json charges disagree"
import csv, json, os, sys
run = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(run, "sweep.csv"))))
lamb = {r["implementation"]: r for r in rows if r["optimizer"] == "lamb"}
assert lamb["ddp"]["buckets_used"] == "26" and lamb["deepspeed-2020"]["buckets_used"] == "1", lamb
assert all(r["compute_utilization_source"] == "fitted" for r in rows)
charged = json.load(open(os.path.join(run, "run.json")))["config"]["charged"]
assert sum(c["rows"] for c in charged) == len(rows), charged
for r in rows:
    match = [c for c in charged if c["implementation"] == r["implementation"]
             and c["optimizer"] == r["optimizer"] and c["stage"] == r["stage"]]
    assert len(match) == 1, (r["optimizer"], r["stage"], match)
    assert match[0]["buckets_used"] == int(r["buckets_used"]), match
    assert match[0]["algorithm"] == r["algorithm"], match
    assert match[0]["compute_utilization_source"] == "fitted", match
PY

# The H100's bf16 utilisation is a public figure, the H200's borrowed from it; a workload's
# measured times are "measured".
check_source() {  # check_source NAME SOURCE PROFILE_ARGS...
  local name=$1 source=$2
  shift 2
  expect_exit 0 -- "$BIN" profile --workload gpt2-small --gpus 16 --out "$WORK/$name" \
    --overwrite "$@" || return
  /usr/bin/python3 - "$WORK/$name" "$source" <<'PY' || fail "$name: utilisation source is not $source"
import csv, json, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "profile.csv"))))
assert [r["compute_utilization_source"] for r in rows] == [sys.argv[2]], rows
config = json.load(open(os.path.join(sys.argv[1], "run.json")))["config"]
assert config["compute_utilization_source"] == sys.argv[2], config
PY
}
check_source h100 public --cluster dgx-h100
check_source h200 borrowed --cluster dgx-h100 --gpu H200
check_source measured measured --cluster dgx-h100 --set workload.measured_forward_ms=20 \
  --set workload.measured_backward_ms=40 --set workload.measured_batch_per_gpu=8

finish
