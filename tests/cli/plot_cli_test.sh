#!/usr/bin/env bash
# `compopt plot` end to end: two short train runs (overlaid), a sweep with a [training] table
# and a profile with its trace are each drawn by their kind into non-trivial PNGs (decoded and
# checked for drawn, coloured content); bad input (a missing path, a folder without run.json, a
# run kind without figures, a file that is not a trace, --out naming a file, an --analysis-dir
# without plot_run.py) exits 2 naming it before anything is drawn; analysis/plot_all.py draws a
# train directory instead of skipping every study, and fails on a folder with nothing to draw.
#   plot_cli_test.sh COMPOPT_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
use_binary "$1"
SRC=$(realpath "$2")
cd "$WORK" || exit 1
/usr/bin/python3 -c "import matplotlib" 2>/dev/null || skip "no matplotlib for /usr/bin/python3"

# A PNG of real content: decodable, at least 400 x 300 pixels, some ink and some colour.
check_png() {
  [ -s "$1" ] || { fail "$1: missing or empty"; return; }
  /usr/bin/python3 - "$1" <<'PY' || fail "$1: not a drawn figure"
import sys
from matplotlib import image
p = image.imread(sys.argv[1])[..., :3]
h, w = p.shape[:2]
ink = (p.min(axis=2) < 0.6).mean()
colour = ((p.max(axis=2) - p.min(axis=2)) > 0.3).mean()
ok = w >= 400 and h >= 300 and ink > 0.01 and colour > 0.0008
print("%s: %dx%d ink %.3f colour %.4f" % (sys.argv[1], w, h, ink, colour))
sys.exit(0 if ok else 1)
PY
}

# Runs to draw: quadratic (1-bit Adam: a variance ratio) and logistic (Birder: test accuracy).
timeout 120 "$BIN" train "$SRC/experiments/configs/quadratic.toml" --set run.steps=40 \
  --set optimizer.beta2=0.9 --set 'optimizer.freeze_step="auto"' \
  --set run.eval_every=10 --out quad > quad.log 2>&1 || fail "train quadratic: $(tail -3 quad.log)"
timeout 120 "$BIN" train "$SRC/experiments/configs/logistic.toml" --set run.steps=40 \
  --set run.eval_every=10 --out logi > logi.log 2>&1 || fail "train logistic: $(tail -3 logi.log)"
cat > sweep.toml <<'TOML'
[workload]
name = "bert-large-seq128"
[cluster]
preset = "ethernet-v100-4"
[sweep]
optimizers = ["adam", "onebit-adam", "birder"]
gpus = [8, 16, 32]
inter_node_gbps = [10, 40]
[training]
total_samples = 1024000
warmup_fraction = 0.15
TOML
timeout 120 "$BIN" sweep sweep.toml --jobs 2 --out sweep > sweep.log 2>&1 \
  || fail "sweep: $(tail -3 sweep.log)"
timeout 120 "$BIN" profile --workload bert-large-seq128 --cluster ethernet-v100-4 --gpus 16 \
  --optimizer onebit-adam --trace --out prof > prof.log 2>&1 || fail "profile: $(tail -3 prof.log)"

# Each kind, into its own figures/.
for dir in quad sweep prof; do
  expect_exit 0 -- timeout 300 "$BIN" plot "$dir"
done
check_png quad/figures/train.png
check_png sweep/figures/sweep.png
check_png sweep/figures/sweep_time.png
check_png prof/figures/profile.png
check_png prof/figures/trace.png
[ -s quad/figures/train.pdf ] || fail "quad/figures/train.pdf missing"

# Two train runs overlaid, and a trace file on its own, into --out.
expect_exit 0 -- timeout 300 "$BIN" plot quad logi --out both
expect_contains "overlay" "both/train.png" "$OUTPUT"
check_png both/train.png
[ ! -e logi/figures ] || fail "--out also wrote into logi/figures"
expect_exit 0 -- timeout 300 "$BIN" plot prof/trace.json --out tr
check_png tr/trace.png

# Bad input: exit 2 naming the path, nothing drawn.
mkdir empty kindless failed
echo '{"command": "comm-bench", "status": "completed"}' > kindless/run.json
echo '{"command": "train", "status": "failed", "error": "non-finite gradient at step 8"}' \
  > failed/run.json
echo "not a trace" > notes.txt
expect_exit 2 -- "$BIN" plot missing_dir
expect_contains "missing" "missing_dir: no such run directory" "$OUTPUT"
expect_exit 2 -- "$BIN" plot quad empty
expect_contains "no run.json" "empty: not a run directory" "$OUTPUT"
expect_exit 2 -- "$BIN" plot kindless
expect_contains "unknown kind" "run kind 'comm-bench' has no figures" "$OUTPUT"
expect_exit 2 -- "$BIN" plot failed
expect_contains "failed run" "failed: the train run is failed: non-finite gradient at step 8" "$OUTPUT"
expect_exit 2 -- "$BIN" plot notes.txt
expect_contains "plain file" "notes.txt: a file" "$OUTPUT"
expect_exit 2 -- "$BIN" plot quad --out notes.txt
expect_contains "--out file" "--out notes.txt: exists and is not a directory" "$OUTPUT"
expect_exit 2 -- "$BIN" plot quad --analysis-dir empty
expect_contains "analysis dir" "no plot_run.py" "$OUTPUT"
expect_exit 2 -- "$BIN" plot
[ ! -e empty/figures ] && [ ! -e kindless/figures ] && [ ! -e failed/figures ] ||
  fail "bad input drew something"

# plot_all.py on a train run draws it; on a folder with nothing to draw it fails.
rm -rf logi/figures
expect_exit 0 -- /usr/bin/python3 "$SRC/analysis/plot_all.py" logi
check_png logi/figures/train.png
echo '{"command": "reproduce", "status": "completed"}' > empty/run.json
expect_exit 1 -- /usr/bin/python3 "$SRC/analysis/plot_all.py" empty
expect_contains "plot_all nothing" "no study CSV found" "$OUTPUT"
finish
