#!/usr/bin/env bash
# `compopt profile CONFIG.toml`: the sweep config of one scenario gives the same profile.csv as
# the equivalent flags and --set keys, and the same rows as `compopt sweep` of the same file
# (whose sweep.csv adds end_to_end_speedup and speedup_baseline); a flag replaces the key it stands for (--gpus
# sweep.gpus, --cluster cluster.preset with the table's other keys kept), which also picks one
# scenario of a grid file; --set keys refine a cluster described in full; run.json names the file.
#   profile_config_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
SRC=$2
run() {  # NAME ARGS...: compopt ARGS... --out $WORK/NAME, which must succeed
  local name=$1
  shift
  "$BIN" "$@" --out "$WORK/$name" > "$WORK/$name.log" 2>&1 ||
    fail "$name: $* failed: $(tail -3 "$WORK/$name.log")"
}
# column NAME FILE: the values of column NAME, one line per row.
column() { /usr/bin/python3 -c 'import csv, sys
print("\n".join(r[sys.argv[1]] for r in csv.DictReader(open(sys.argv[2]))))' "$1" "$2"; }

cat > "$WORK/one.toml" <<'TOML'
[workload]
name = "bert-large-seq128"
[cluster]
preset = "ethernet-v100-4"
inter_node_gbps = 100
[sweep]
optimizers = "onebit-adam"
gpus = [32]
batch_per_gpu = 16
grad_accum = 2
[training]
total_steps = 1000
warmup_steps = 100
TOML
run file profile "$WORK/one.toml"
run flags profile --workload bert-large-seq128 --cluster ethernet-v100-4 --optimizer onebit-adam \
  --gpus 32 --batch-per-gpu 16 --grad-accum 2 --set cluster.inter_node_gbps=100 \
  --set training.total_steps=1000 --set training.warmup_steps=100
run sweep sweep "$WORK/one.toml" --jobs 1
cmp -s "$WORK/file/profile.csv" "$WORK/flags/profile.csv" ||
  fail "profile of the file differs from the flags: $(diff "$WORK/file/profile.csv" "$WORK/flags/profile.csv")"
[ "$(head -1 "$WORK/sweep/sweep.csv" | sed 's/.*,\([^,]*,[^,]*\)$/\1/')" = \
  end_to_end_speedup,speedup_baseline ] ||
  fail "sweep.csv does not end with end_to_end_speedup,speedup_baseline"
sed 's/,[^,]*,[^,]*$//' "$WORK/sweep/sweep.csv" | cmp -s - "$WORK/file/profile.csv" ||
  fail "profile of the file differs from its sweep: $(cat "$WORK/sweep/sweep.csv")"
[ "$(column stage "$WORK/file/profile.csv" | tr '\n' ' ')" = "warmup compression " ] ||
  fail "onebit-adam's two stages expected: $(cat "$WORK/file/profile.csv")"
[ "$(column inter_node_gbit_s "$WORK/file/profile.csv" | sort -u)" = 100 ] ||
  fail "[cluster] inter_node_gbps = 100 not applied"
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
assert r["config"]["config_file"] == sys.argv[2], r' "$WORK/file/run.json" "$WORK/one.toml" ||
  fail "run.json does not name the config file"

# A flag replaces its key: --gpus 64 is sweep.gpus = 64 (8 nodes of 4 become 16).
run gpus profile "$WORK/one.toml" --gpus 64
run gpus_set profile "$WORK/one.toml" --set sweep.gpus=64
cmp -s "$WORK/gpus/profile.csv" "$WORK/gpus_set/profile.csv" || fail "--gpus 64 differs from --set"
[ "$(column nodes "$WORK/gpus/profile.csv" | sort -u)" = 16 ] || fail "--gpus 64: not 16 nodes"
# --cluster replaces cluster.preset; the table's inter_node_gbps still applies to it.
run ib profile "$WORK/one.toml" --cluster infiniband-v100-8
[ "$(column cluster "$WORK/ib/profile.csv" | sort -u),$(column gpus_per_node "$WORK/ib/profile.csv" \
  | sort -u),$(column inter_node_gbit_s "$WORK/ib/profile.csv" | sort -u)" = \
  "infiniband-v100-8,8,100" ] || fail "--cluster over the file: $(cat "$WORK/ib/profile.csv")"

# A grid file: flags choose one of its scenarios, the one its sweep gives for those values.
GRID=$SRC/experiments/configs/sweep_bert_large.toml
run pick profile "$GRID" --optimizer adam --gpus 16 --inter-node-gbps 40
run pick_sweep sweep "$GRID" --set 'sweep.optimizers=["adam"]' --set sweep.gpus=[16] \
  --set sweep.inter_node_gbps=[40] --jobs 1
sed 's/,[^,]*,[^,]*$//' "$WORK/pick_sweep/sweep.csv" | cmp -s - "$WORK/pick/profile.csv" ||
  fail "one scenario of the grid differs from its sweep"

# A cluster in full (no preset): --set keys change its fields, --gpus its size.
cat > "$WORK/full.toml" <<'TOML'
[cluster]
name = "my-cluster"
gpu = "A100-80GB"
nodes = 4
gpus_per_node = 8
nics_per_node = 4
intra_node_fabric = "nvswitch"
inter_node_gbps = 100
topology = "fat-tree"
[sweep]
optimizers = ["birder"]
TOML
run full profile "$WORK/full.toml" --set cluster.nics_per_node=2 --gpus 16
[ "$(column cluster "$WORK/full/profile.csv"),$(column nics_per_node "$WORK/full/profile.csv"),$(
  column nodes "$WORK/full/profile.csv")" = "my-cluster,2,2" ] ||
  fail "--set over a cluster in full: $(cat "$WORK/full/profile.csv")"

finish "profile CONFIG.toml: all checks passed"
