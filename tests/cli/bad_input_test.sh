#!/usr/bin/env bash
# Bad input to every compopt subcommand (collectives, comm-bench, launch, train, profile, sweep,
# validate): each case must exit with code 2 before any work, print a message naming the bad
# value (or key), and leave an existing output directory and file exactly as they were.
#   bad_input_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
SRC=$2
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
unset RANK WORLD_SIZE MASTER_ADDR MASTER_PORT COMPOPT_JOB_TOKEN  # not inside a launch
RES=$WORK/results  # earlier results; also the working directory, where runs/<time> would appear
mkdir -p "$RES"
cd "$RES" || exit 1
cases=0

# Earlier results: a run directory with files, and a plain file given as --out. The commands
# below pass --overwrite, so each reaches its own check: bad input must still leave the old
# directory untouched (it is replaced only by a run that succeeded).
OUT=$RES/existing
mkdir -p "$OUT/sub"
echo "step,loss" > "$OUT/metrics.csv"
echo '{"keep": true}' > "$OUT/run.json"
echo keep > "$OUT/sub/marker"
echo "not a directory" > "$RES/afile"
snapshot() {  # every entry of RES (a new runs/ too), with sizes and contents
  (cd "$RES" && find . -printf '%p %y %s\n' | sort && find . -type f -exec md5sum {} + | sort)
}
BEFORE=$(snapshot)

# expect NAME WANT COMMAND ARGS...: exit code 2, WANT (fixed string) in the output, nothing
# changed. The output goes to $WORK/log.txt, outside the snapshot.
expect() {
  local name=$1 want=$2
  shift 2
  cases=$((cases + 1))
  timeout 60 "$BIN" "$@" > "$WORK/log.txt" 2>&1
  local rc=$?
  local out
  out=$(head -c 2000 "$WORK/log.txt")
  [ $rc -eq 2 ] || fail "$name: exit code $rc, expected 2 (compopt $*): $out"
  grep -qF -- "$want" "$WORK/log.txt" || fail "$name: message does not name '$want': $out"
  echo "rc=$rc  $name: $(grep -m1 -F -- "$want" "$WORK/log.txt" | cut -c1-220)"
  local now
  now=$(snapshot)
  if [ "$now" != "$BEFORE" ]; then
    fail "$name: earlier results changed: $(diff <(echo "$BEFORE") <(echo "$now") | head -5)"
    rm -rf "$RES/runs"
  fi
}

# --- collectives ---
C=(collectives --out "$OUT" --overwrite)
expect "collectives ranks 0" "--ranks 0" "${C[@]}" --ranks 0
expect "collectives ranks too many" "--ranks 5000" "${C[@]}" --ranks 5000
expect "collectives ranks not a number" "--ranks = eight" "${C[@]}" --ranks eight
expect "collectives gpus-per-node" "--gpus-per-node 3" "${C[@]}" --ranks 8 --gpus-per-node 3
expect "collectives ranks-per-node alias" "--gpus-per-node 3" "${C[@]}" --ranks 8 --ranks-per-node 3
expect "collectives elements 0" "--elements 0" "${C[@]}" --elements 0
expect "collectives elements huge" "--elements 1000000000000" "${C[@]}" --elements 1000000000000
expect "collectives elements x ranks" "--elements 268435456 x --ranks 8" "${C[@]}" --elements 268435456
expect "collectives steps 0" "--steps 0" "${C[@]}" --steps 0
expect "collectives messages" "--ranks 4096 x --steps 5: about 8.39e+08 messages" "${C[@]}" \
  --ranks 4096 --elements 16
expect "collectives messages x steps" "--ranks 512 x --steps 5: about 1.31e+07 messages" \
  "${C[@]}" --ranks 512 --elements 16
expect "collectives unknown flag" "--bogus" "${C[@]}" --bogus 1
expect "collectives out is a file" "--out $RES/afile" collectives --elements 8 --steps 1 --out "$RES/afile"
# Unsigned flags: a negative value named as written, not wrapped to 2^64 - 1.
expect "collectives elements negative" "--elements -1: expected an integer >= 0" "${C[@]}" --elements -1
expect "collectives seed negative" "--seed -1: expected an integer >= 0" "${C[@]}" --seed -1

# --- comm-bench ---
B=(comm-bench --out "$OUT" --overwrite)
expect "comm-bench backend" "--backend quantum" "${B[@]}" --backend quantum
expect "comm-bench ranks 0" "--ranks 0" "${B[@]}" --ranks 0
expect "comm-bench ranks too many" "--ranks 100000" "${B[@]}" --ranks 100000
expect "comm-bench link-gbps" "--link-gbps -1" "${B[@]}" --backend sim --link-gbps -1
expect "comm-bench link-gbps nan" "--link-gbps nan" "${B[@]}" --backend sim --link-gbps nan
expect "comm-bench latency" "--latency-us -5" "${B[@]}" --backend sim --latency-us -5
# As one rank of a launched world (compopt launch sets WORLD_SIZE), an in-process backend would
# run the whole benchmark in every process.
WORLD_SIZE=2 RANK=0 expect "comm-bench local under launch" "--backend local runs every rank inside one process" \
  "${B[@]}" --sizes 0.01 --iters 1
expect "comm-bench size under one element" "--sizes 1e-30: expected MB in [4e-06, 4096]" \
  "${B[@]}" --sizes 1e-30
expect "comm-bench link efficiency 0" "--link-efficiency 0" "${B[@]}" --backend sim --link-efficiency 0
expect "comm-bench link efficiency above 1" "--link-efficiency 1.5" "${B[@]}" --backend sim --link-efficiency 1.5
expect "comm-bench size 0" "--sizes 0" "${B[@]}" --sizes 0
expect "comm-bench size too big" "--sizes 5000" "${B[@]}" --sizes 5000
expect "comm-bench size not a number" "--sizes" "${B[@]}" --sizes abc
expect "comm-bench memory" "--sizes 4096 MB x --ranks 8" "${B[@]}" --sizes 4096 --ranks 8
expect "comm-bench variant" "allreduce-fp8" "${B[@]}" --variants allreduce-fp32,allreduce-fp8
expect "comm-bench iters" "--iters 0" "${B[@]}" --iters 0
expect "comm-bench warmup" "--warmup -1" "${B[@]}" --warmup -1
expect "comm-bench tcp outside launch" "tcp" "${B[@]}" --backend tcp --sizes 0.01
expect "comm-bench out is a file" "--out $RES/afile" comm-bench --sizes 0.01 --iters 1 --out "$RES/afile"

# --- launch ---
expect "launch zero ranks" "-n 0" launch -n 0 -- comm-bench --backend tcp --out "$OUT"
expect "launch too many ranks" "-n 5000" launch -n 5000 -- comm-bench --backend tcp --out "$OUT"
expect "launch grace" "--grace -1" launch -n 2 --grace -1 -- comm-bench --backend tcp --out "$OUT"
expect "launch grace nan" "--grace nan" launch -n 2 --grace nan -- comm-bench --backend tcp --out "$OUT"
expect "launch port" "--master-port = 70000" launch -n 2 --master-port 70000 -- comm-bench --out "$OUT"
expect "launch no command" "command is required" launch -n 2
expect "launch nested" "cannot be another launch" launch -n 2 -- launch -n 2 -- comm-bench
expect "launch master-addr does not resolve" "--master-addr no-such-host.invalid: does not resolve" \
  launch -n 2 --master-addr no-such-host.invalid -- comm-bench --backend tcp --out "$OUT"
expect "launch rank refuses its arguments" "--iters 0" launch -n 2 -- comm-bench --backend tcp --iters 0 --out "$OUT"

# --- train (tests/cli/train_cli_test.sh has the per-key cases) ---
cat > "$WORK/quad.toml" <<'TOML'
[run]
ranks = 2
batch_per_rank = 8
steps = 4
[task]
name = "quadratic"
dimension = 20
[optimizer]
name = "adam"
TOML
T=(train "$WORK/quad.toml" --out "$OUT" --quiet --overwrite)
expect "train set without =" "--set 'run.ranks'" "${T[@]}" --set run.ranks
expect "train ranks too many" "run.ranks" "${T[@]}" --set run.ranks=5000
expect "train epochs overflow" "run.epochs" "${T[@]}" --set run.epochs=9223372036854775807
expect "train dimension too big for memory" "task.dimension' = 100000000000" "${T[@]}" --set task.dimension=100000000000
expect "train unknown schedule key" "unknown key 'warmup'" "${T[@]}" --set schedule.type=cosine --set schedule.warmup=3
expect "train out is a file" "--out $RES/afile" train "$WORK/quad.toml" --out "$RES/afile" --quiet

# --- profile ---
P=(profile --out "$OUT" --overwrite)
expect "profile workload" "gpt-5" "${P[@]}" --workload gpt-5
expect "profile cluster" "tpu-pod" "${P[@]}" --cluster tpu-pod
expect "profile optimizer" "adamw" "${P[@]}" --optimizer adamw
expect "profile gpus negative" "gpus = -1" "${P[@]}" --gpus -1
expect "profile gpus not in nodes" "gpus = 6" "${P[@]}" --gpus 6
expect "profile gpus too many" "gpus = 2000000, expected 1..1048576" "${P[@]}" --gpus 2000000
expect "profile bandwidth" "inter_node_gbps = -1" "${P[@]}" --inter-node-gbps -1
expect "profile bandwidth nan" "inter_node_gbps = nan" "${P[@]}" --inter-node-gbps nan
expect "profile topology" "hypercube" "${P[@]}" --topology hypercube
expect "profile batch" "batch_per_gpu = -1" "${P[@]}" --batch-per-gpu -1
expect "profile grad-accum" "grad_accum = 0" "${P[@]}" --grad-accum 0
expect "profile buckets" "buckets = -1" "${P[@]}" --overlap --buckets -1
expect "profile overlap unknown" "unknown overlap mode 'sideways'" "${P[@]}" --overlap=sideways
expect "profile implementation" "unknown implementation 'megatron', expected one of ddp, deepspeed-2020, deepspeed-2021, zero-1, zero-2, zero-3" \
  "${P[@]}" --implementation megatron
expect "profile platform" "$WORK/none.xml" "${P[@]}" --platform "$WORK/none.xml"
expect "profile out is a file" "--out $RES/afile" profile --out "$RES/afile"
expect "profile set without =" "--set 'workload.name': expected key=value" "${P[@]}" --set workload.name
expect "profile set workload" "gpt-5" "${P[@]}" --set workload.name=gpt-5
expect "profile attention kind" "workload.attention = 'paged', expected unfused or flash" "${P[@]}" \
  --set workload.attention=paged
expect "profile checkpointing" "workload.activation_checkpointing" "${P[@]}" \
  --set workload.activation_checkpointing=sometimes
expect "profile set unknown key" "cluster.nodez" "${P[@]}" --set cluster.nodez=4
expect "profile set a grid" "--set: sweep.gpus = [ 8, 16 ] holds 2 values, expected one" "${P[@]}" \
  --set sweep.gpus=[8,16]
expect "profile set gpus_per_node" "gpus_per_node = -2" "${P[@]}" --set cluster.gpus_per_node=-2
expect "profile gpus-per-node flag" "gpus_per_node = -2" "${P[@]}" --gpus-per-node -2
expect "profile set nics" "nics_per_node = 0" "${P[@]}" --set cluster.nics_per_node=0
expect "profile allreduce algorithm" "allreduce_algorithm 'collnet': expected auto or one of ring, tree" \
  "${P[@]}" --set cluster.allreduce_algorithm=collnet
expect "profile nccl version" "nccl_version '2.4.x': expected an NCCL 2 version" "${P[@]}" \
  --set cluster.nccl_version=2.4.x
expect "profile nccl version as a number" "cluster.nccl_version: expected a version string in quotes" \
  "${P[@]}" --set cluster.nccl_version=2.4
expect "profile set transport" "cluster.inter_node_transport: unknown transport 'udp'" "${P[@]}" \
  --set cluster.inter_node_transport=udp
expect "profile set incast" "inter_node_transport: incast_loss = 3" "${P[@]}" \
  --set cluster.inter_node_incast_loss=3
expect "profile spread low" "inter_node_spread_low = 2, expected 0.1..1" "${P[@]}" \
  --set cluster.inter_node_spread_low=2
expect "profile spread high" "intra_node_spread_high = 0.5, expected 1..10" "${P[@]}" \
  --set cluster.intra_node_spread_high=0.5
expect "profile fit, now validate fit" "--fit: the checks against published measurements are \
their own command now: run \`compopt validate fit\`" "${P[@]}" --calibration --fit
expect "profile cross-validate" "run \`compopt validate cross-validate\`" "${P[@]}" \
  --calibration --cross-validate
expect "profile public checks" "run \`compopt validate public-checks\`" "${P[@]}" --public-checks
expect "profile missing config" "sweep config '$WORK/none.toml': not found" "${P[@]}" "$WORK/none.toml"
printf '[sweep]\ngpus = [8, 16]\noptimizers = "adam"\n' > "$WORK/grid.toml"
expect "profile config of a grid" "sweep config '$WORK/grid.toml': sweep.gpus = [ 8, 16 ] holds 2 values" \
  "${P[@]}" "$WORK/grid.toml"
expect "profile config of a grid, set" "--set sweep.gpus=VALUE" "${P[@]}" "$WORK/grid.toml"
expect "profile config unknown key" "unknown key 'sweep.gpuz'" "${P[@]}" "$WORK/grid.toml" \
  --gpus 8 --set sweep.gpuz=8

# --- validate ---
expect "validate without a check" "validate: no check given, expected one of calibration, fit, \
cross-validate, public-checks" validate
expect "validate unknown check" "validate calibrate: unknown check, expected one of calibration" \
  validate calibrate
expect "validate fit with a scenario flag" "--gpus" validate fit --gpus 8 --out "$OUT" --overwrite
expect "validate public checks out is a file" "--out $RES/afile" validate public-checks \
  --out "$RES/afile"
expect "profile export torus" "a torus platform cannot be exported" "${P[@]}" --topology torus \
  --export-platform "$WORK/t.xml"
expect "profile export nowhere" "$WORK/none/t.xml" "${P[@]}" --export-platform "$WORK/none/t.xml"

# --- sweep ---
S=(sweep "$SRC/experiments/configs/sweep_bert_large.toml" --out "$OUT" --overwrite)
expect "sweep missing config" "$WORK/none.toml" sweep "$WORK/none.toml" --out "$OUT"
printf '[sweep]\ngpus = [8,\n' > "$WORK/broken.toml"
expect "sweep unparsable config" "broken.toml" sweep "$WORK/broken.toml" --out "$OUT"
printf '[sweeps]\ngpus = [8]\n' > "$WORK/table.toml"
expect "sweep unknown table" "sweeps" sweep "$WORK/table.toml" --out "$OUT"
expect "sweep unknown key" "sweep.gpuss" "${S[@]}" --set sweep.gpuss=[8]
expect "sweep unknown key via set" "cluster.presett" "${S[@]}" --set cluster.presett=x
expect "sweep allreduce algorithm" "allreduce_algorithm 'Ring'" "${S[@]}" \
  --set cluster.allreduce_algorithm=Ring
expect "sweep wrong type" "workload.name" "${S[@]}" --set workload.name=5
expect "sweep buckets as text" "sweep.buckets" "${S[@]}" --set 'sweep.buckets="4"'
expect "sweep buckets negative" "sweep.buckets = -1" "${S[@]}" --set sweep.buckets=-1
expect "sweep implementation" "unknown implementation 'megatron'" "${S[@]}" --set sweep.implementation=megatron
expect "sweep implementation flag" "unknown implementation 'fsdp2'" "${S[@]}" --implementation fsdp2
expect "sweep overlap unknown" "unknown overlap mode 'maybe'" "${S[@]}" --set 'sweep.overlap="maybe"'
expect "sweep gpus beyond int" "4294967312" "${S[@]}" --set sweep.gpus=[4294967312]
expect "sweep gpus too many" "gpus = 2000000" "${S[@]}" --set sweep.gpus=[2000000]
expect "sweep gpus wrong type" "sweep.gpus" "${S[@]}" --set 'sweep.gpus=["8"]'
expect "sweep empty axis" "sweep.gpus: empty list" "${S[@]}" --set sweep.gpus=[]
expect "sweep optimizer" "adamw" "${S[@]}" --set 'sweep.optimizers=["adam","adamw"]'
expect "sweep bandwidth" "inter_node_gbps = -40" "${S[@]}" --set sweep.inter_node_gbps=[-40]
expect "sweep grid too large" "more than 100000 scenarios" "${S[@]}" \
  --set "sweep.gpus=[$(seq -s, 8 8 8000)]" --set "sweep.inter_node_gbps=[$(seq -s, 1 200)]"
expect "sweep set without key" "--set '=5'" "${S[@]}" --set =5
expect "sweep set through a value" "'gpus' is not a table" "${S[@]}" --set sweep.gpus.x=1
expect "sweep jobs" "--jobs -1" "${S[@]}" --jobs -1
# [training] (time to train / target): bad values, files checked before any work.
expect "sweep negative steps" "training.total_steps = -5" "${S[@]}" --set training.total_steps=-5
expect "sweep warmup fraction" "training.warmup_fraction = 1.5, expected 0..1" "${S[@]}" \
  --set training.warmup_fraction=1.5
expect "sweep warmup missing" "training.warmup_steps or training.warmup_fraction" "${S[@]}" \
  --set 'sweep.optimizers=["onebit-adam"]' --set training.total_steps=1000
expect "sweep steps_to_target optimizer" "unknown optimizer 'adamw'" "${S[@]}" \
  --set training.metric=test_accuracy --set training.steps_to_target.adamw=900
printf 'step,train_loss\n1,2.0\n' > "$WORK/metrics.csv"
expect "sweep metrics without the column" "no column 'test_accuracy'" "${S[@]}" \
  --set training.metric=test_accuracy --set training.target=0.9 \
  --set "training.metrics.adam=$WORK/metrics.csv"
expect "sweep metrics file missing" "$WORK/none.csv" "${S[@]}" --set training.metric=train_loss \
  --set training.target=0.9 --set "training.metrics.adam=$WORK/none.csv"
expect "profile warmup steps beyond the run" "training.warmup_steps = 20 exceeds" "${P[@]}" \
  --set training.total_steps=10 --set training.warmup_steps=20
expect "sweep out is a file" "--out $RES/afile" sweep "$SRC/experiments/configs/sweep_bert_large.toml" \
  --set sweep.gpus=[16] --set 'sweep.optimizers=["adam"]' --set sweep.inter_node_gbps=[40] \
  --jobs 1 --out "$RES/afile"

# --- an existing --out without --overwrite: refused before any work, for every command ---
want="--out $OUT exists; pass --overwrite"
expect "collectives out exists" "$want" collectives --elements 8 --steps 1 --out "$OUT"
expect "comm-bench out exists" "$want" comm-bench --sizes 0.01 --iters 1 --out "$OUT"
expect "train out exists" "$want" train "$WORK/quad.toml" --quiet --out "$OUT"
expect "profile out exists" "$want" profile --out "$OUT"
expect "sweep out exists" "$want" sweep "$SRC/experiments/configs/sweep_bert_large.toml" --out "$OUT"
expect "reproduce out exists" "$want" reproduce --only profile --no-figures --out "$OUT"
# --- an empty --out given on the command line: refused, for every command that takes --out ---
want="--out '': an empty path, expected a directory"
expect "collectives out empty" "$want" collectives --elements 8 --steps 1 --out ""
expect "comm-bench out empty" "$want" comm-bench --sizes 0.01 --iters 1 --out ""
expect "train out empty" "$want" train "$WORK/quad.toml" --quiet --out ""
expect "profile out empty" "$want" profile --out ""
expect "sweep out empty" "$want" sweep "$SRC/experiments/configs/sweep_bert_large.toml" --out ""
expect "validate out empty" "$want" validate calibration --out ""
expect "reproduce out empty" "$want" reproduce --only profile --no-figures --out ""
# An --analysis-dir without the plotting scripts: refused before any study runs.
expect "reproduce analysis dir" "--analysis-dir $WORK/nowhere: no plot_all.py in it" \
  reproduce --only profile --analysis-dir "$WORK/nowhere" --out "$RES/new-reproduce"
# --- messages as they reach a terminal: an escape sequence in a value is written as \x1b, not
# sent raw; a 100k-character value is cut in the middle, keeping what was expected ---
expect "escape sequence in a value" "unknown workload preset 'x\\x1b[31mred'" \
  profile --workload "$(printf 'x\033[31mred')" --out "$OUT" --overwrite
grep -q $'\033' "$WORK/log.txt" && fail "escape sequence echoed raw: $(cat -A "$WORK/log.txt" | head -c 300)"
expect "100k-character value" "characters left out) ... " \
  profile --workload "$(head -c 100000 /dev/zero | tr '\0' a)" --out "$OUT" --overwrite
[ "$(wc -c < "$WORK/log.txt")" -lt 2200 ] || fail "a 100k-character value echoed: $(wc -c < "$WORK/log.txt") bytes"
grep -q "expected one of bert-large-seq128" "$WORK/log.txt" || fail "the cut message lost what was expected"
# --- a full or closed standard error: the exit code still says bad input, not an abort (134) ---
for redirect in /dev/full closed; do
  cases=$((cases + 1))
  if [ "$redirect" = closed ]; then
    timeout 60 "$BIN" profile --workload x --out "$OUT" --overwrite > /dev/null 2>&-
  else
    timeout 60 "$BIN" profile --workload x --out "$OUT" --overwrite > /dev/null 2> "$redirect"
  fi
  rc=$?
  [ $rc -eq 2 ] || fail "stderr $redirect: exit code $rc, expected 2"
done
# --- limits on input (docs/robustness.md): ranges, memory estimates, nothing created ---
# New run directories would appear under RES, which the snapshot compares.
NEW=$RES/new-run
expect "comm-bench iters beyond range" "--iters 2147483647" comm-bench --iters 2147483647 --out "$NEW"
expect "comm-bench warmup beyond range" "--warmup 200000" comm-bench --warmup 200000 --out "$NEW"
expect "comm-bench link rate too fast" "--link-gbps 1e6" comm-bench --backend sim --link-gbps 1e6 --out "$NEW"
expect "comm-bench link rate too slow" "--link-gbps 1e-320" comm-bench --backend sim --link-gbps 1e-320 --out "$NEW"
expect "comm-bench latency beyond 1 s" "--latency-us 2e6" comm-bench --backend sim --latency-us 2e6 --out "$NEW"
COMPOPT_MEMORY_LIMIT_MB=8000 expect "comm-bench memory estimate" "--sizes 4096 x --ranks 4" \
  comm-bench --sizes 4096 --ranks 4 --out "$NEW"
COMPOPT_MEMORY_LIMIT_MB=100 expect "comm-bench memory on sim" "COMPOPT_MEMORY_LIMIT_MB" \
  comm-bench --backend sim --sizes 64 --ranks 4 --out "$NEW"
expect "collectives steps beyond range" "--steps 1000000" collectives --steps 1000000 --out "$NEW"
COMPOPT_MEMORY_LIMIT_MB=100 expect "collectives memory estimate" "--elements 4194304 x --ranks 8" \
  collectives --elements 4194304 --ranks 8 --out "$NEW"
expect "launch grace beyond an hour" "--grace 1e9" launch -n 2 --grace 1e9 -- comm-bench --backend tcp
expect "reproduce jobs" "--jobs 100000" reproduce --jobs 100000 --out "$NEW"
expect "sweep jobs beyond range" "--jobs 100000" "${S[@]}" --jobs 100000
expect "profile bandwidth denormal" "inter_node_gbps = 1e-320" profile --inter-node-gbps 1e-320 --out "$NEW"
expect "profile bandwidth too fast" "inter_node_gbps = 1000000" profile --inter-node-gbps 1e6 --out "$NEW"
expect "profile batch beyond range" "batch_per_gpu = 10000000" profile --batch-per-gpu 10000000 --out "$NEW"
expect "profile grad-accum beyond range" "grad_accum = 2000000" profile --grad-accum 2000000 --out "$NEW"
expect "profile buckets beyond range" "buckets = 5000" profile --overlap --buckets 5000 --out "$NEW"
printf '<?xml version="1.0"?>\n<platform version="4.1">\n<zone id="z"\n' > "$WORK/malformed.xml"
expect "profile malformed platform" "$WORK/malformed.xml" profile --platform "$WORK/malformed.xml" --out "$NEW"
expect "sweep malformed platform" "platform file '$WORK/malformed.xml' is malformed" \
  sweep "$SRC/experiments/configs/sweep_bert_large.toml" --set "cluster.platform=\"$WORK/malformed.xml\"" \
  --set 'sweep.gpus=[8]' --set 'sweep.optimizers=[adam]' --set 'sweep.inter_node_gbps=[40]' --out "$NEW"
# This process and its band's children, one per core: the count depends on the machine.
COMPOPT_MEMORY_LIMIT_MB=100 expect "profile memory estimate" \
  "--gpus = 131072 GPUs simulated, " profile --gpus 131072 --out "$NEW"
COMPOPT_MEMORY_LIMIT_MB=1000 expect "profile memory, one actor per GPU" \
  "--gpus = 4096 GPUs simulated one actor per GPU running the collective in full" profile \
  --gpus 4096 --topology torus --optimizer onebit-adam --out "$NEW"
COMPOPT_MEMORY_LIMIT_MB=100 expect "sweep memory estimate" "sweep.gpus = 131072 GPUs" "${S[@]}" \
  --set sweep.gpus=[16,131072] --jobs 1
COMPOPT_MEMORY_LIMIT_MB=lots expect "memory limit not a number" "COMPOPT_MEMORY_LIMIT_MB" \
  collectives --elements 8 --steps 1 --out "$NEW"
T2=(train "$WORK/quad.toml" --out "$NEW" --quiet)
expect "train steps beyond range" "run.steps" "${T2[@]}" --set run.steps=2000000000
expect "train epochs beyond range" "run.epochs" "${T2[@]}" --set run.epochs=1000000000
COMPOPT_MEMORY_LIMIT_MB=500 expect "train memory estimate" "run.ranks = 32 ranks x 1000000 parameters" \
  "${T2[@]}" --set task.dimension=1000000 --set run.ranks=32 --set run.batch_per_rank=1
if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  COMPOPT_MEMORY_LIMIT_MB=2000 expect "train fashion-mnist memory estimate" "run.ranks = 16" \
    train "$SRC/experiments/configs/fmnist_adam.toml" --set task.hidden=16384,4096 \
    --set run.ranks=16 --out "$NEW" --quiet
fi

echo "$cases bad-input cases, $failures failure(s)"
finish "all compopt bad-input checks passed"
