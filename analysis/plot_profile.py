#!/usr/bin/env python3
"""BERT-Large step-time profile against 1-bit Adam Table 1: per network (columns),
grouped bars per configuration "N nodes/G GPUs, bs B[xA]" of the backward
allreduce time (top, log y) and its share of the step (bottom): Adam ours,
Adam published (hatched), 1-bit Adam's compression stage ours.

Usage: python3 analysis/plot_profile.py RUN_DIR
Reads RUN_DIR/profile/profile.csv (network, nodes, gpus, batch_per_gpu, grad_accum,
optimizer, stage, allreduce_ms, allreduce_pct, published_allreduce_ms,
published_allreduce_pct).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "profile"
REQUIRED = ["profile.csv"]

SCHEMA = {"network": "s", "nodes": "i", "gpus": "i", "batch_per_gpu": "i", "grad_accum": "i",
          "optimizer": "s", "stage": "s", "forward_ms": "f?", "allreduce_ms": "f",
          "backward_else_ms": "f?", "compress_ms": "f?", "step_ms": "f?", "total_ms": "f?",
          "allreduce_pct": "f", "published_allreduce_ms": "f?", "published_allreduce_pct": "f?"}

_NETWORK_TITLES = {"ethernet": "Ethernet (4 V100/node, ~4 Gbit/s)",
                   "infiniband": "InfiniBand (8 V100/node, 100 Gbit/s EDR)"}


def config_label(r):
    accum = "x%d" % r["grad_accum"] if r["grad_accum"] != 1 else ""
    nodes = "%d node%s" % (r["nodes"], "" if r["nodes"] == 1 else "s")
    return "%s/%d GPUs\nbs %d%s" % (nodes, r["gpus"], r["batch_per_gpu"], accum)


def _series(rows):
    """Config key -> dict of the bars' values, in order of first appearance."""
    configs = {}
    for r in rows:
        key = (r["nodes"], r["gpus"], r["batch_per_gpu"], r["grad_accum"])
        c = configs.setdefault(key, {"label": config_label(r)})
        if r["optimizer"] == "adam" and r["stage"] not in ("warmup", "compression"):
            c["adam_ms"], c["adam_pct"] = r["allreduce_ms"], r["allreduce_pct"]
            if r["published_allreduce_ms"] is not None:
                c["pub_ms"] = r["published_allreduce_ms"]
            if r["published_allreduce_pct"] is not None:
                c["pub_pct"] = r["published_allreduce_pct"]
        elif r["stage"] == "compression" and r["optimizer"] == "onebit-adam":
            c["onebit_ms"], c["onebit_pct"] = r["allreduce_ms"], r["allreduce_pct"]
    return list(configs.values())


def plot(run_dir):
    import numpy as np
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "profile.csv"), SCHEMA)
    networks = table.unique("network")
    groups = {n: _series(table.where(network=n)) for n in networks}
    widths = [max(3, len(groups[n])) for n in networks]
    cp.setup_style()
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, len(networks), figsize=(1.05 * sum(widths) + 1.2, 6.6),
                             squeeze=False, constrained_layout=True,
                             gridspec_kw={"width_ratios": widths})
    bars = [("adam", "Adam (ours)", dict(color=cp.color("adam"))),
            ("pub", "Adam (published, 1-bit Adam Table 1)",
             dict(color="white", edgecolor=cp.color("adam"), hatch="///")),
            ("onebit", "1-bit Adam, compression stage (ours)", dict(color=cp.color("onebit-adam")))]
    width = 0.27
    for col, network in enumerate(networks):
        configs = groups[network]
        x = np.arange(len(configs))
        for row, (suffix, ylabel) in enumerate((("_ms", "backward allreduce (ms)"),
                                                ("_pct", "allreduce share of step (%)"))):
            ax = axes[row][col]
            for i, (key, name, style) in enumerate(bars):
                values = [c.get(key + suffix) for c in configs]
                if all(v is None for v in values):
                    continue
                heights = [np.nan if v is None else v for v in values]
                ax.bar(x + (i - 1) * width, heights, width, label=name, linewidth=0.8, **style)
            ax.set_xticks(x)
            ax.set_xticklabels([c["label"] for c in configs], fontsize=7)
            ax.grid(axis="x", visible=False)
            ax.set_ylabel(ylabel)
            if suffix == "_ms":
                ax.set_yscale("log")
                ax.set_title(_NETWORK_TITLES.get(network, network))
            else:
                ax.set_ylim(0, 105)
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    cp.figure_legend(fig, handles, labels, ncol=3)
    fig.suptitle("BERT-Large (seq 128) step profile: backward allreduce time and share")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
