#!/usr/bin/env bash
# The share of a training step outside compute, communication and compression: trains the
# Fashion-MNIST MLP (experiments/configs/fmnist_adam.toml, or CONFIG) on RANKS TCP ranks (threads
# with their own sockets) for STEPS steps with no test evaluation but the last, and prints the
# mean per-step milliseconds of metrics.csv's step_wall_s, compute_s, comm_s and compression_s
# over steps 21 .. STEPS-1 (warm-up and the evaluated last step left out) and
# other = step_wall_s - compute_s - comm_s - compression_s, as a share of step_wall_s (goal:
# <= 10%). Extra arguments are passed to `compopt train` (e.g. --set optimizer.name=lamb).
#
# usage (make bench runs it): bash tests/bench/train_overhead_bench.sh [BUILD_DIR] [-- ARGS...]
#   env: RANKS (4), STEPS (300), CONFIG (experiments/configs/fmnist_adam.toml)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=build
if [[ $# -gt 0 && $1 != -- ]]; then
  build=$1
  shift
fi
[[ ${1:-} == -- ]] && shift
ranks=${RANKS:-4}
steps=${STEPS:-300}
config=${CONFIG:-experiments/configs/fmnist_adam.toml}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/experiments/compopt" train "$config" --set run.backend=tcp --set "run.ranks=$ranks" \
  --set run.gpus_per_node=0 --set "run.steps=$steps" --set "run.eval_every=$((steps + 1))" \
  --quiet --out "$out/run" "$@" >/dev/null
awk -F, -v last="$steps" -v ranks="$ranks" '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  $col["step"] > 20 && $col["step"] < last {
    n += 1
    wall += $col["step_wall_s"]; compute += $col["compute_s"]
    comm += $col["comm_s"]; compression += $col["compression_s"]
  }
  END {
    if (n == 0) { print "train_overhead_bench: no steps measured" > "/dev/stderr"; exit 1 }
    other = wall - compute - comm - compression
    printf "tcp, %d ranks, mean of %d steps (ms per step on rank 0):\n", ranks, n
    printf "| step_wall | compute | comm | compression | other | other share (goal <= 0.10) |\n"
    printf "|---|---|---|---|---|---|\n"
    printf "| %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", 1e3 * wall / n, 1e3 * compute / n,
           1e3 * comm / n, 1e3 * compression / n, 1e3 * other / n, other / wall
  }' "$out/run/metrics.csv"
