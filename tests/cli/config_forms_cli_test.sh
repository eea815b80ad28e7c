#!/usr/bin/env bash
# The command-line forms the docs write: `--overlap off`, `--overlap=off`, `--overlap on`,
# a bare `--overlap` (on) and `--overlap auto` in profile, a bad mode refused with exit 2
# naming it and the modes; `--set` arrays of bare words in sweep (a malformed one exits 2
# naming the key); and a dotted --set key into a GPU given by name (in a sweep config, and
# over profile's --gpu), which changes that preset's one field.
#   config_forms_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
cd "$WORK" || exit 1

# --- --overlap: every form, the mode recorded in run.json ---
# profile_overlap EXPECTED_MODE ARGS...: a profile with ARGS records "overlap": EXPECTED_MODE.
n=0
profile_overlap() {
  local want=$1
  shift
  n=$((n + 1))
  expect_exit 0 -- "$BIN" profile --gpus 8 "$@" --out "o$n" || return
  grep -qF "\"overlap\": \"$want\"" "o$n/run.json" \
    || fail "profile $*: run.json overlap $(grep overlap "o$n/run.json"), expected $want"
  local header
  header=$(head -1 <<<"$OUTPUT")
  if [ "$want" = auto ]; then
    [[ $header != *", overlap "* ]] || fail "profile $*: the header names an override: $header"
  else
    expect_contains "profile $*: the header" ", overlap $want" "$header"
  fi
}
profile_overlap off --overlap off
profile_overlap off --overlap=off
profile_overlap on --overlap on
profile_overlap on --overlap
profile_overlap auto --overlap auto
profile_overlap auto
profile_overlap on --overlap --grad-accum 2  # a bare --overlap before another flag
expect_exit 2 -- "$BIN" profile --gpus 8 --overlap sometimes --out bad
expect_contains "--overlap sometimes" "unknown overlap mode 'sometimes', expected one of auto, on, off" "$OUTPUT"
# A bare --overlap takes the next word: a word that is no mode says how to write it.
expect_exit 2 -- "$BIN" profile --overlap config.toml --out bad
expect_contains "--overlap config.toml" "'config.toml'" "$OUTPUT"
expect_contains "--overlap config.toml" "write --overlap=on before a positional" "$OUTPUT"
[ ! -e bad ] || fail "a refused --overlap created the run directory"

# --- --set arrays of bare words ---
cat > small.toml <<'TOML'
[workload]
name = "bert-large-seq128"
[cluster]
preset = "ethernet-v100-4"
gpu = "V100-16GB"
[sweep]
optimizers = ["adam"]
gpus = [8]
TOML
optimizers() { awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  !seen[$c["optimizer"]]++ { printf "%s ", $c["optimizer"] }' "$1/sweep.csv"; }
for set in 'sweep.optimizers=[adam,onebit-adam]' 'sweep.optimizers=[adam, onebit-adam]' \
           "sweep.optimizers=['adam', \"onebit-adam\"]"; do
  n=$((n + 1))
  expect_exit 0 -- "$BIN" sweep small.toml --set "$set" --out "s$n" || continue
  [ "$(optimizers "s$n")" = "adam onebit-adam " ] \
    || fail "--set $set: optimizers in sweep.csv '$(optimizers "s$n")'"
done
expect_exit 2 -- "$BIN" sweep small.toml --set 'sweep.optimizers=[adam,onebit-adam' --out bad
expect_contains "malformed array" \
  "--set 'sweep.optimizers=[adam,onebit-adam': key 'sweep.optimizers': '[adam,onebit-adam' is no array" \
  "$OUTPUT"

# --- a dotted key into a GPU given by name ---
# tflops LOG: the TFLOP/s of the profile's compute line ("compute: ... on GPU at U% of its
# peak (T TFLOP/s)").
tflops() { sed -n 's/^compute: .* of its peak (\([0-9.]*\) TFLOP\/s).*/\1/p' "$1"; }
expect_exit 0 -- "$BIN" sweep small.toml --set cluster.gpu.max_utilization=0.2 --out g1
grep -q '"preset": "V100-16GB"' g1/run.json || fail "sweep: run.json lacks the GPU's preset"
grep -q '"max_utilization": 0.2' g1/run.json || fail "sweep: run.json lacks max_utilization"
# Over profile's --gpu B200: the B200 with its utilization changed (more TFLOP/s at 0.9 than
# at 0.2), faster than the cluster's own H100 at the same utilization.
n=0
for sets in "--gpu B200 --set cluster.gpu.max_utilization=0.2" \
            "--gpu B200 --set cluster.gpu.max_utilization=0.9" \
            "--set cluster.gpu.max_utilization=0.2"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  "$BIN" profile --cluster h100-ethernet-25g $sets --out "p$n" > "p$n.log" 2>&1 \
    || fail "profile $sets: $(tail -3 "p$n.log")"
done
grep -q "^compute: .* on B200 at" p1.log || fail "--gpu B200 with a --set: $(grep compute p1.log)"
grep -q "^compute: .* on H100 at" p3.log || fail "the cluster's GPU with a --set: $(grep compute p3.log)"
awk -v a="$(tflops p1.log)" -v b="$(tflops p2.log)" -v h="$(tflops p3.log)" \
  'BEGIN { exit !(a > 0 && a < b && h > 0 && h < a) }' \
  || fail "TFLOP/s: B200 at 0.2 $(tflops p1.log), at 0.9 $(tflops p2.log), H100 at 0.2 $(tflops p3.log)"
finish "config forms: all checks passed"
