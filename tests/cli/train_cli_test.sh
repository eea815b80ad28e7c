#!/usr/bin/env bash
# End-to-end checks of `compopt train`: configuration errors exit 2 before any
# work, name the key, and leave an existing run directory untouched; a small
# run writes metrics.csv, run.json and summary.json.
#   train_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
SRC=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"

cat > "$WORK/quad.toml" <<'TOML'
[run]
ranks = 4
batch_per_rank = 8
steps = 30
eval_every = 10
[task]
name = "quadratic"
dimension = 50
[optimizer]
name = "onebit-adam"
lr = 0.01
freeze_step = "50%"
TOML

# An existing run directory with a marker; errors must not touch it.
mkdir -p "$WORK/existing"
echo keep > "$WORK/existing/marker"
snapshot() { (cd "$WORK/existing" && find . -type f -exec md5sum {} + | sort); }
BEFORE=$(snapshot)

# expect_error NAME EXPECTED_SUBSTRING ARGS...: exit code 2 and the substring on stderr.
expect_error() {
  local name=$1 want=$2
  shift 2
  expect_exit 2 -- "$BIN" train "$@" --out "$WORK/existing"
  expect_contains "$name" "$want" "$OUTPUT"
  [ "$(snapshot)" = "$BEFORE" ] || fail "$name: run directory was modified"
}

expect_error "unknown run key" "run.bogus" "$WORK/quad.toml" --set run.bogus=1
expect_error "unknown task key" "task.dimensions" "$WORK/quad.toml" --set task.dimensions=3
expect_error "unknown optimizer key" "frezee_step" "$WORK/quad.toml" --set optimizer.frezee_step=3
expect_error "unknown table" "model" "$WORK/quad.toml" --set model.size=3
expect_error "bad integer" "run.ranks" "$WORK/quad.toml" --set run.ranks=two
expect_error "bad number" "task.noise" "$WORK/quad.toml" --set task.noise=-1
expect_error "bad optimizer value" "beta1" "$WORK/quad.toml" --set optimizer.beta1=1.5
expect_error "bad percentage" "optimizer.freeze_step" "$WORK/quad.toml" --set optimizer.freeze_step=150%
expect_error "unknown optimizer" "adamw" "$WORK/quad.toml" --set optimizer.name=adamw
expect_error "gpus_per_node" "key 'run.gpus_per_node' = 3" "$WORK/quad.toml" --set run.gpus_per_node=3
expect_error "ranks_per_node alias" "key 'run.gpus_per_node' = 3" "$WORK/quad.toml" --set run.ranks_per_node=3
expect_error "set without =" "--set 'run.steps': expected key=value" "$WORK/quad.toml" --set run.steps
expect_error "batch too large" "run.batch_per_rank" "$WORK/quad.toml" --set run.batch_per_rank=1000000
expect_error "unknown backend" "expected one of local|sim|tcp|mpi|hybrid|nccl" "$WORK/quad.toml" \
  --set run.backend=carrier-pigeon
# Launched backends: mpi without mpirun names the launcher; a launched world of another
# size than run.ranks names both numbers; GPU backends without a device say so. Each
# exits 2 before joining any world (no peer to wait for).
expect_exit 2 -- env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE "$BIN" train "$WORK/quad.toml" \
  --set run.backend=mpi --out "$WORK/existing"
expect_contains "mpi without mpirun" "start every rank with mpirun -n N" "$OUTPUT"
expect_exit 2 -- env RANK=1 WORLD_SIZE=2 timeout 20 "$BIN" train "$WORK/quad.toml" \
  --set run.backend=tcp --out "$WORK/existing"
expect_contains "launched world size mismatch" \
  "key 'run.ranks' = 4, but this process is one rank of a launched world of 2 ranks" "$OUTPUT"
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  for gpu in hybrid nccl; do
    expect_error "$gpu without a GPU" "key 'run.backend' = '$gpu' cannot run here" "$WORK/quad.toml" \
      --set run.backend=$gpu
  done
fi
expect_error "unknown cluster" "run.cluster" "$WORK/quad.toml" --set run.backend=sim --set run.cluster=nope
expect_error "ranks do not fill nodes" "run.cluster" "$WORK/quad.toml" --set run.backend=sim --set run.ranks=6
expect_error "missing config" "nope.toml" "$WORK/nope.toml"
expect_error "missing data set" "task.data_dir" "$WORK/quad.toml" --set task.name=fashion-mnist \
  --set task.data_dir="$WORK/no-data"
expect_error "missing data set hint" "apt-get install dataset-fashion-mnist" "$WORK/quad.toml" \
  --set task.name=fashion-mnist --set task.data_dir="$WORK/no-data"
printf '[run]\nranks = \n' > "$WORK/broken.toml"
expect_error "unparsable config" "broken.toml" "$WORK/broken.toml"
printf 'ranks = 4\n' > "$WORK/toplevel.toml"
expect_error "top-level key" "ranks" "$WORK/toplevel.toml"

# A good run.
out="$WORK/good"
if "$BIN" train "$WORK/quad.toml" --out "$out" > "$WORK/good.log" 2>&1; then
  head -1 "$out/metrics.csv" | grep -q "^step,samples,epoch,stage,lr,train_loss,test_loss,test_accuracy,var_norm_l2,var_ratio_l1,bytes_sent,bytes_sent_inter_node,time_s,step_wall_s,compute_s,comm_s,compression_s$" \
    || fail "metrics.csv header: $(head -1 "$out/metrics.csv")"
  [ "$(wc -l < "$out/metrics.csv")" -eq 31 ] || fail "metrics.csv should have 30 rows"
  grep -q '"freeze_step": "15"' "$out/run.json" || fail "run.json lacks the resolved freeze_step 15"
  grep -q '"freeze_step": 15' "$out/summary.json" || fail "summary.json freeze_step: $(cat "$out/summary.json")"
  grep -q ",compression," "$out/metrics.csv" || fail "no compression-stage rows"
  grep -q "step 30/30" "$WORK/good.log" || fail "no plain progress lines when stdout is not a TTY"
else
  fail "good run failed: $(cat "$WORK/good.log")"
fi

# freeze_step = auto that cannot fire within the run (beta2 = 0.9: Delta 10, earliest step 11;
# the run has 5 steps) is said before training; a run long enough, or a set step, says nothing.
"$BIN" train "$WORK/quad.toml" --set optimizer.freeze_step=auto --set optimizer.beta2=0.9 \
  --set run.steps=5 --quiet --out "$WORK/auto-short" > "$WORK/auto-short.log" 2>&1 ||
  fail "auto-short run failed: $(cat "$WORK/auto-short.log")"
grep -q "^warning: onebit-adam changes stage by itself (freeze_step = auto) at step 11 at the earliest.*the run has 5 steps: it will never compress" \
  "$WORK/auto-short.log" || fail "no warning that auto cannot fire: $(cat "$WORK/auto-short.log")"
"$BIN" train "$WORK/quad.toml" --set optimizer.freeze_step=auto --set optimizer.beta2=0.9 \
  --set run.steps=11 --quiet --out "$WORK/auto-long" > "$WORK/auto-long.log" 2>&1 ||
  fail "auto-long run failed: $(cat "$WORK/auto-long.log")"
grep -q "warning" "$WORK/auto-long.log" && fail "a warning at 11 steps: $(cat "$WORK/auto-long.log")"
grep -q "warning" "$WORK/good.log" && fail "a warning with freeze_step set: $(cat "$WORK/good.log")"

# Fashion-MNIST has pixels that are 0 in every image: their weights' gradient is 0 through the
# warmup, so the variance frozen at step 3 holds exact zeros; the note names them at the
# freeze (stdout even with --quiet, and summary.json), before any non-finite stop.
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  "$BIN" train "$SRC/experiments/configs/fmnist_onebit_adam.toml" --set run.ranks=2 \
    --set run.gpus_per_node=1 --set run.steps=4 --set optimizer.freeze_step=3 --quiet \
    --out "$WORK/zero-var" > "$WORK/zero-var.log" 2>&1 || fail "zero-var run failed: $(cat "$WORK/zero-var.log")"
  grep -q "^note: step 3: onebit-adam: the variance frozen at step 3 is exactly 0 at [0-9]* of 269322 elements" \
    "$WORK/zero-var.log" || fail "no zero-variance note at the freeze: $(cat "$WORK/zero-var.log")"
  grep -q '"step 3: onebit-adam: the variance frozen' "$WORK/zero-var/summary.json" ||
    fail "summary.json lacks the note"
fi

# Time-wise training on the simulator: simulated time grows every step, the
# cluster preset is recorded, and the math equals the Local run (same bytes).
sim="$WORK/sim"
if "$BIN" train "$WORK/quad.toml" --set run.backend=sim --set run.cluster=ethernet-v100-4 \
    --out "$sim" > "$WORK/sim.log" 2>&1; then
  awk -F, 'NR > 2 && !($13 > prev) { bad = 1 } NR > 1 { prev = $13 } END { exit bad }' "$sim/metrics.csv" \
    || fail "sim time_s does not increase every step"
  grep -q '"cluster": "ethernet-v100-4"' "$sim/run.json" || fail "run.json lacks the cluster"
  [ "$(cut -d, -f1-12 "$sim/metrics.csv")" = "$(cut -d, -f1-12 "$out/metrics.csv")" ] \
    || fail "sim and local runs differ outside time_s"
else
  fail "sim run failed: $(cat "$WORK/sim.log")"
fi

# The example configs parse (validated with a tiny run length; fashion-mnist only if installed).
for cfg in "$SRC"/experiments/configs/{fmnist_*,quadratic,logistic}.toml; do
  case "$cfg" in *fmnist*) [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || continue ;; esac
  "$BIN" train "$cfg" --set run.steps=2 --set run.eval_every=1 --quiet --overwrite --out "$WORK/cfg" > "$WORK/cfg.log" 2>&1 \
    || fail "example config $cfg: $(cat "$WORK/cfg.log")"
done

finish "all compopt train CLI checks passed"
