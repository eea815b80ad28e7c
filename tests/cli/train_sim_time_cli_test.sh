#!/usr/bin/env bash
# Time on the simulator (`compopt train`, docs/training.md "Time on the simulator"):
# - run.compute = model (the default): the same config gives an identical metrics.csv,
#   time_s included (all but the measured wall-clock columns), when run again under CPU load;
# - one rank sends nothing, so its time_s is exactly the modeled charge run.json records;
# - run.compute = measured still trains; a stand-in changes time_s only;
# - a resumed run continues the same time axis;
# - bad values of the keys exit 2 naming the key, before any work.
#   train_sim_time_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
LOAD_PIDS=()
on_exit 'for pid in "${LOAD_PIDS[@]}"; do kill "$pid" 2>/dev/null; done'

cat > "$WORK/quad.toml" <<'TOML'
[run]
backend = "sim"
cluster = "ethernet-v100-4"
ranks = 8
gpus_per_node = 4
batch_per_rank = 16
steps = 40
eval_every = 10
[task]
name = "quadratic"
dimension = 20000
[optimizer]
name = "onebit-adam"
lr = 0.01
freeze_step = "50%"
TOML

train() { "$BIN" train "$WORK/quad.toml" --quiet "$@"; }
# same13 A B: metrics.csv equal in columns 1-13 (time_s included; the measured
# wall-clock columns after it differ run to run).
same13() { [ "$(cut -d, -f1-13 "$1")" = "$(cut -d, -f1-13 "$2")" ]; }

# Determinism: the second run shares the CPU with two busy processes.
train --out "$WORK/a" || fail "first modeled run failed"
yes > /dev/null &
LOAD_PIDS+=($!)
yes > /dev/null &
LOAD_PIDS+=($!)
train --out "$WORK/b" || fail "loaded modeled run failed"
for pid in "${LOAD_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
LOAD_PIDS=()
same13 "$WORK/a/metrics.csv" "$WORK/b/metrics.csv" \
  || fail "metrics.csv differs between two runs of one config: $(diff "$WORK/a/metrics.csv" "$WORK/b/metrics.csv" | head -4)"
grep -q '"mode": "model"' "$WORK/a/run.json" || fail "run.json does not record the modeled charge"

# One rank: step k ends at k x (pass + step), plus compression_s per compression-stage step.
if train --set run.ranks=1 --set run.gpus_per_node=1 --out "$WORK/one"; then
  python3 - "$WORK/one" <<'PY' || fail "one-rank time_s is not the modeled charge"
import csv, json, sys
c = json.load(open(sys.argv[1] + "/run.json"))["config"]["resolved"]["compute"]
t = 0.0
for r in csv.DictReader(open(sys.argv[1] + "/metrics.csv")):
    t += c["pass_s"] + c["step_s"] + (c["compression_s"] if r["stage"] == "compression" else 0)
    if abs(float(r["time_s"]) - t) > 1e-6 + 1e-6 * t:
        sys.exit(f"step {r['step']}: time_s {r['time_s']}, expected {t}")
    # On the simulated clock the split is simulated: the charges, and no wire for one rank.
    compression = c["compression_s"] if r["stage"] == "compression" else 0
    split = [float(r[k]) for k in ("compute_s", "comm_s", "compression_s")]
    expected = [c["pass_s"] + c["step_s"], 0.0, compression]
    if any(abs(a - b) > 1e-6 for a, b in zip(split, expected)):
        sys.exit(f"step {r['step']}: compute/comm/compression {split}, expected {expected}")
PY
else
  fail "one-rank run failed"
fi

# Measured compute still trains; the math (every column but time_s) is the modeled run's.
if train --set run.compute=measured --out "$WORK/measured"; then
  grep -q '"mode": "measured"' "$WORK/measured/run.json" || fail "run.json lacks mode measured"
  [ "$(cut -d, -f1-12 "$WORK/measured/metrics.csv")" = "$(cut -d, -f1-12 "$WORK/a/metrics.csv")" ] \
    || fail "measured and modeled runs differ outside time_s"
else
  fail "measured run failed"
fi

# A stand-in: same math and byte counts, heavier steps, compression steps cheaper than warmup.
if train --set run.stand_in=bert-large --out "$WORK/bert"; then
  [ "$(cut -d, -f1-12 "$WORK/bert/metrics.csv")" = "$(cut -d, -f1-12 "$WORK/a/metrics.csv")" ] \
    || fail "stand-in run differs outside time_s"
  grep -q '"stand_in": "bert-large-seq128"' "$WORK/bert/run.json" || fail "run.json lacks the stand-in"
  python3 - "$WORK/bert" "$WORK/a" <<'PY' || fail "stand-in step times"
import csv, sys
def steps(d):
    rows, prev, out = list(csv.DictReader(open(d + "/metrics.csv"))), 0.0, []
    for r in rows:
        out.append((r["stage"], float(r["time_s"]) - prev))
        prev = float(r["time_s"])
    return out
bert, task = steps(sys.argv[1]), steps(sys.argv[2])
warm = max(t for s, t in bert if s != "compression")
comp = max(t for s, t in bert if s == "compression")
if not comp < warm:
    sys.exit(f"compression step {comp} s not below warmup step {warm} s")
if not all(b > t for (_, b), (_, t) in zip(bert, task)):
    sys.exit("a stand-in step is not slower than the task's own step")
PY
else
  fail "stand-in run failed"
fi

# Resume: a run cut at step 20 (freeze step as in the 40-step run) and continued gives
# the uninterrupted metrics.csv, time_s included; another compute charge is refused.
if train --set run.steps=20 --set optimizer.freeze_step=20 --checkpoint-every 10 --out "$WORK/cut" \
  && "$BIN" train --resume "$WORK/cut" --set run.steps=40 --quiet; then
  same13 "$WORK/cut/metrics.csv" "$WORK/a/metrics.csv" \
    || fail "resumed metrics.csv differs: $(diff "$WORK/cut/metrics.csv" "$WORK/a/metrics.csv" | head -4)"
  expect_exit 2 -- "$BIN" train --resume "$WORK/cut" --set run.steps=60 --set run.compute=measured \
    --quiet
  expect_contains "resume with another compute charge" "run.compute" "$OUTPUT"
else
  fail "checkpointed or resumed run failed"
fi

# Bad values: exit 2, the key named, no run directory.
expect_error() {
  local want=$1
  shift
  expect_exit 2 -- "$BIN" train "$WORK/quad.toml" --out "$WORK/bad" "$@"
  expect_contains "$*" "$want" "$OUTPUT"
  [ ! -e "$WORK/bad" ] || fail "$*: created the run directory"
}
expect_error "run.compute" --set run.compute=fast
expect_error "run.gpu" --set run.gpu=K80
expect_error "run.compute_precision" --set run.compute_precision=fp8
expect_error "run.stand_in" --set run.stand_in=bert-huge
expect_error "run.stand_in_batch" --set run.stand_in_batch=4
expect_error "run.gpu" --set run.compute=measured --set run.gpu=A100
expect_error "run.compute" --set run.backend=local --set run.compute=model

finish "all sim time CLI checks passed"
