#!/usr/bin/env python3
"""Summarizes a convergence study (experiments/examples/convergence_study.sh) as a Markdown table.

usage: convergence_table.py RUNS_DIR

For every <variant>/seed*/ with summary.json: final test accuracy (mean +- sample std over
seeds), bytes sent per rank per step in the compression stage and outside it, the ratio to
the fp32 ring-allreduce baseline 2(n-1)/n * 4d, the docs/algorithms.md prediction for the
compressed allreduce, the freeze step T_w and the wall time.
"""
import csv
import json
import os
import statistics
import sys


def spec_compressed_bytes(d, n, scaled):
    """Compressed allreduce bytes (docs/algorithms.md): bits padded to a multiple of 8n
    elements, all-to-all + server allgather."""
    padded = -(-d // (8 * n)) * 8 * n
    chunk_bytes = padded // n // 8
    scale = 4 if scaled else 0
    # all-to-all of n-1 bit chunks, allgather of n-1 worker scales, allgather of n-1 server chunks.
    return (n - 1) * chunk_bytes + (n - 1) * scale + (n - 1) * (chunk_bytes + scale)


def stage_bytes(metrics_path):
    """Per-step bytes per rank (total and inter-node) averaged over compression / other steps."""
    sums = {True: [0.0, 0.0, 0], False: [0.0, 0.0, 0]}
    prev_b = prev_i = 0.0
    with open(metrics_path) as f:
        for row in csv.DictReader(f):
            b, i = float(row["bytes_sent"]), float(row["bytes_sent_inter_node"])
            acc = sums[row["stage"] == "compression"]
            acc[0] += b - prev_b
            acc[1] += i - prev_i
            acc[2] += 1
            prev_b, prev_i = b, i
    return {k: (v[0] / v[2], v[1] / v[2]) if v[2] else None for k, v in sums.items()}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "runs/convergence"
    rows = []
    for variant in sorted(os.listdir(root)):
        vdir = os.path.join(root, variant)
        if not os.path.isdir(vdir):
            continue
        runs = []
        for seed in sorted(os.listdir(vdir)):
            path = os.path.join(vdir, seed, "summary.json")
            if os.path.exists(path):
                with open(path) as f:
                    s = json.load(f)
                with open(os.path.join(vdir, seed, "run.json")) as f:
                    s["run"] = json.load(f)["config"]["resolved"]
                s["stages"] = stage_bytes(os.path.join(vdir, seed, "metrics.csv"))
                runs.append(s)
        if runs:
            rows.append((variant, runs))
    failed = {}
    for log in os.listdir(root):
        if log.endswith(".log"):
            with open(os.path.join(root, log)) as f:
                if "compopt: failed" in f.read():
                    variant = log.split(".")[0]
                    failed[variant] = failed.get(variant, 0) + 1
    print("| optimizer | seeds ok (failed) | test acc % (mean ± std) | B/rank/step compression "
          "| B/rank/step other | fp32 baseline / compression | formula B/rank | "
          "inter-node B/node/step compression | T_w | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for variant, runs in rows:
        acc = [100 * r["final_test_accuracy"] for r in runs]
        std = f"{statistics.stdev(acc):.2f}" if len(acc) > 1 else "n/a"
        run = runs[0]["run"]
        d, n = runs[0]["parameters"], run["ranks"]
        per_node = run.get("gpus_per_node", run.get("ranks_per_node"))  # older runs: ranks_per_node
        nodes = n // per_node if per_node else 1
        baseline = 2 * (n - 1) / n * 4 * d
        comp, other = runs[0]["stages"][True], runs[0]["stages"][False]
        name = run["optimizer"]
        spec = "-"
        if comp and name != "birder-hierarchical":
            spec = str(spec_compressed_bytes(d, n, not name.startswith("birder")))
        freeze = sorted({r["freeze_step"] for r in runs if r["freeze_step"]})
        wall = statistics.mean(r["time_s"] for r in runs)
        runs_acc = (f"| {variant} | {len(runs)} ({failed.get(variant, 0)}) | "
                    f"{statistics.mean(acc):.2f} ± {std} | ")
        print(runs_acc + (f"{comp[0]:.0f} | " if comp else "- | "), end="")
        print(f"{other[0]:.0f} | " if other else "- | ", end="")
        print(f"{baseline / comp[0]:.2f}x | " if comp else "- | ", end="")
        print(f"{spec} | ", end="")
        print(f"{comp[1] * n / nodes:.0f} | " if comp else "- | ", end="")
        print(f"{','.join(map(str, freeze)) if freeze else '-'} | {wall:.0f} |")
    print(f"\nfp32 ring-allreduce baseline: 2(n-1)/n * 4d = {baseline:.0f} bytes per rank per step "
          f"(d = {d} parameters, n = {n} ranks). Bytes are from the first seed's metrics.csv.")


if __name__ == "__main__":
    main()
