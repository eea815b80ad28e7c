#!/usr/bin/env bash
# `compopt profile --sensitivity` and `compopt sweep --sensitivity` end to end on 8 GPUs of the
# default cluster: the printed table names every input and ends in a verdict; sensitivity.csv
# has its columns and one row per input; its speedups agree with plain profiles of the same
# input values (expected: as given; buckets: 1 and 32; allreduce algorithm: tree), recomputed
# here from their profile.csv; run.json records the verdict; `compopt plot` draws the tornado. Bad input (an optimizer that is
# its own baseline, a sweep without the baseline, --export-platform) exits 2 before any run
# directory exists.
#   sensitivity_cli_test.sh COMPOPT_BINARY
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
cd "$WORK" || exit 1

INPUTS=("inter-node bandwidth" "intra-node bandwidth" "compute utilisation" "network latency"
        "per-message cost" "buckets" "allreduce algorithm" "overlap" "optimizer step kernel"
        "compressed collectives")
HEADER="scenario,optimizer,baseline,input,low_value,high_value,speedup_low,speedup_high,expected_speedup,flips,source,kind"

timeout 300 "$BIN" profile --optimizer onebit-adam --gpus 8 --sensitivity --out prof \
  > prof.log 2>&1 || fail "profile --sensitivity failed: $(tail -3 prof.log)"
expect_contains "profile table" "what the answer depends on (bert-large-seq128 on 8 GPUs" \
  "$(cat prof.log)"
for input in "${INPUTS[@]}"; do
  grep -q "^$input " prof.log || fail "profile table lacks a line for '$input'"
done
verdict=$(grep -E "^onebit-adam (pays in every case|pays in no case)|^onebit-adam: .* depends on: " \
  prof.log)
[ -n "$verdict" ] || fail "no verdict line: $(tail -5 prof.log)"
expect_contains "wrote line" "sensitivity.csv and run.json" "$(tail -1 prof.log)"
[ "$(head -1 prof/sensitivity.csv)" = "$HEADER" ] \
  || fail "sensitivity.csv header: $(head -1 prof/sensitivity.csv)"
[ "$(wc -l < prof/sensitivity.csv)" -eq $((1 + ${#INPUTS[@]})) ] \
  || fail "sensitivity.csv: $(wc -l < prof/sensitivity.csv) lines, expected 1 + ${#INPUTS[@]}"

# Plain profiles of the same values, against the analysis's speedups.
plain() {  # NAME ARGS...: profile.csv of onebit-adam and adam with ARGS in NAME-{1bit,adam}
  local name=$1
  shift
  for opt in onebit-adam adam; do
    # --cluster names the default cluster: --set cluster keys without it describe a new one
    timeout 120 "$BIN" profile --optimizer $opt --gpus 8 --cluster ethernet-v100-4 \
      --out "$name-$opt" "$@" \
      > "$name-$opt.log" 2>&1 || fail "profile $opt $*: $(tail -3 "$name-$opt.log")"
  done
}
plain expected
plain buckets1 --buckets 1
plain buckets32 --buckets 32
plain tree --set cluster.allreduce_algorithm=tree
/usr/bin/python3 - <<'PY' || fail "sensitivity.csv disagrees with plain profiles"
import csv
import json


def step(run):  # the last stage's step time (the steady state)
    return float(list(csv.DictReader(open(run + "/profile.csv")))[-1]["step_time_s"])


def speedup(name):
    return step(name + "-adam") / step(name + "-onebit-adam")


rows = {r["input"]: r for r in csv.DictReader(open("prof/sensitivity.csv"))}
checks = [("expected", rows["buckets"]["expected_speedup"]),
          ("buckets1", rows["buckets"]["speedup_low"]),
          ("buckets32", rows["buckets"]["speedup_high"]),
          ("tree", rows["allreduce algorithm"]["speedup_high"])]
for name, cell in checks:
    assert abs(speedup(name) - float(cell)) < 1e-4, (name, speedup(name), cell)
assert rows["buckets"]["low_value"] == "1" and rows["buckets"]["high_value"] == "32", rows
for r in rows.values():
    assert r["baseline"] == "adam" and r["flips"] in ("true", "false") and r["source"], r
    choice = r["input"] in ("buckets", "allreduce algorithm", "overlap", "optimizer step kernel",
                          "compressed collectives")
    assert r["kind"] == ("choice" if choice else "measured"), r
    e = float(r["expected_speedup"])
    pays = [float(r["speedup_low"]) > 1, float(r["speedup_high"]) > 1]
    assert (r["flips"] == "true") == any(p != (e > 1) for p in pays), r
run = json.load(open("prof/run.json"))
analysis = run["config"]["sensitivity"]["analyses"][0]
assert analysis["optimizer"] == "onebit-adam", analysis
print(analysis["verdict"])
PY
run_verdict=$(/usr/bin/python3 -c 'import json; print(json.load(open("prof/run.json"))["config"]["sensitivity"]["analyses"][0]["verdict"])')
[ "$run_verdict" = "$verdict" ] || fail "run.json verdict '$run_verdict', printed '$verdict'"

# `compopt plot` draws the tornado beside the profile's own figures.
timeout 240 "$BIN" plot prof > plot.log 2>&1 || fail "plot: $(tail -3 plot.log)"
[ -s prof/figures/tornado.png ] || fail "plot: no prof/figures/tornado.png: $(cat plot.log)"

# A sweep of adam and onebit-adam: one analysis, of onebit-adam's scenario (the second).
cat > pair.toml <<'TOML'
[workload]
name = "bert-large-seq128"
[cluster]
preset = "ethernet-v100-4"
[sweep]
optimizers = ["adam", "onebit-adam"]
gpus = 8
TOML
timeout 300 "$BIN" sweep pair.toml --jobs 2 --sensitivity --out sweep > sweep.log 2>&1 \
  || fail "sweep --sensitivity failed: $(tail -3 sweep.log)"
expect_contains "sweep table" "what the answer depends on (scenario 2 (8 GPUs))" "$(cat sweep.log)"
[ "$(head -1 sweep/sensitivity.csv)" = "$HEADER" ] || fail "sweep sensitivity.csv header"
cmp <(cut -d, -f2- prof/sensitivity.csv | cut -d, -f1-9) \
  <(cut -d, -f2- sweep/sensitivity.csv | cut -d, -f1-9) \
  || fail "the sweep's analysis of the same scenario differs from the profile's"

# Bad input: exit 2, no run directory.
expect_refusal() {  # WHAT MESSAGE ARGS...
  local what=$1 message=$2
  shift 2
  expect_exit 2 -- "$BIN" "$@" --out refused && expect_contains "$what" "$message" "$OUTPUT"
  [ ! -e refused ] || fail "$what: left a run directory"
}
expect_refusal "own baseline" "--sensitivity: optimizer adam is its own baseline" \
  profile --optimizer adam --gpus 8 --sensitivity
expect_refusal "export" "--sensitivity with --export-platform" \
  profile --optimizer onebit-adam --sensitivity --export-platform x.xml
expect_refusal "sweep without adam" "against adam, which sweep.optimizers lacks" \
  sweep pair.toml --set sweep.optimizers=onebit-adam --sensitivity
expect_refusal "sweep of baselines" "every optimizer of the sweep (adam) is its own baseline" \
  sweep pair.toml --set sweep.optimizers=adam --sensitivity
finish
