#!/usr/bin/env bash
# Fashion-MNIST convergence study (docs/convergence.md): every optimizer config
# below x seeds, 16 ranks x batch 32, 10 epochs, run one at a time.
#   experiments/examples/convergence_study.sh [COMPOPT_BINARY] [OUT_DIR] [SEEDS...]
# Defaults: build-train/experiments/compopt, runs/convergence, seeds 1 2 3.
# Seeds are the outer loop, so a partial study has every optimizer for the
# first seeds. Finished runs (summary.json present) are skipped on a rerun.
# Then prints the table (experiments/examples/convergence_table.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build-train/experiments/compopt}
OUT=${2:-runs/convergence}
shift $(( $# >= 2 ? 2 : $# )) || true
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2 3)
VARIANTS=(adam onebit_adam onebit_adam_auto naive_onebit_adam lamb onebit_lamb birder
          birder_hierarchical momentum_sgd)
mkdir -p "$OUT"
for seed in "${SEEDS[@]}"; do
  for v in "${VARIANTS[@]}"; do
    dir="$OUT/$v/seed$seed"
    if [ -f "$dir/summary.json" ]; then continue; fi
    echo "$(date -u +%H:%M:%S) $v seed $seed"
    "$BIN" train "experiments/configs/fmnist_$v.toml" --set run.seed="$seed" --out "$dir" \
      > "$OUT/$v.seed$seed.log" 2>&1 || echo "  FAILED (see $OUT/$v.seed$seed.log)"
  done
done
python3 experiments/examples/convergence_table.py "$OUT"
