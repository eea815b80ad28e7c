#!/usr/bin/env python3
"""BERT-Large step-time profile against 1-bit Adam Table 1: per network (columns),
per configuration "N nodes/G GPUs, bs B[xA]" the backward allreduce time (top: markers
on a log y axis, where bars would have no meaningful base) and its share of the step
(bottom: bars from 0 on a linear axis): Adam ours, Adam published (hollow / hatched),
1-bit Adam's compression stage ours; error bars on ours span the allreduce's low..high band
over the measured inputs and the model's error when the CSV has it.

Usage: python3 analysis/plot_profile.py RUN_DIR
Reads RUN_DIR/profile/profile.csv (network, nodes, gpus, batch_per_gpu, grad_accum,
optimizer, stage, allreduce_ms, allreduce_low_ms, allreduce_high_ms, allreduce_pct,
published_allreduce_ms, published_allreduce_pct).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "profile"
REQUIRED = ["profile.csv"]

SCHEMA = {"network": "s", "nodes": "i", "gpus": "i", "batch_per_gpu": "i", "grad_accum": "i",
          "optimizer": "s", "stage": "s", "forward_ms": "f?", "allreduce_ms": "f",
          "allreduce_low_ms": "f?", "allreduce_high_ms": "f?",
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
            c["adam_band"] = (r["allreduce_low_ms"], r["allreduce_high_ms"])
            if r["published_allreduce_ms"] is not None:
                c["pub_ms"] = r["published_allreduce_ms"]
            if r["published_allreduce_pct"] is not None:
                c["pub_pct"] = r["published_allreduce_pct"]
        elif r["stage"] == "compression" and r["optimizer"] == "onebit-adam":
            c["onebit_ms"], c["onebit_pct"] = r["allreduce_ms"], r["allreduce_pct"]
            c["onebit_band"] = (r["allreduce_low_ms"], r["allreduce_high_ms"])
    return list(configs.values())


def _error_bars(ax, x, configs, key, color):
    """The low..high of the series' allreduce times, where the CSV has them."""
    points = [(xi, c[key + "_ms"], c[key + "_band"]) for xi, c in zip(x, configs)
              if c.get(key + "_band") and c[key + "_band"][0] is not None]
    if not points:
        return
    drawn = ax.errorbar([p[0] for p in points], [p[1] for p in points],
                        yerr=[[p[1] - p[2][0] for p in points], [p[2][1] - p[1] for p in points]],
                        color=color, linestyle="none", capsize=2.5, linewidth=1)
    drawn.lines[2][0].set_gid("spread_band")


def _time_panel(ax, configs, series):
    """Allreduce ms per configuration: one marker per series, side by side, log y."""
    import numpy as np
    x = np.arange(len(configs))
    for i, (key, name, style, mark) in enumerate(series):
        values = [c.get(key + "_ms") for c in configs]
        if all(v is None for v in values):
            continue
        face = "none" if style.get("color") == "white" else style["color"]
        edge = style.get("edgecolor", style["color"])
        ax.plot(x + (i - 1) * 0.22, [np.nan if v is None else v for v in values], marker=mark,
                markersize=7, linestyle="none", markerfacecolor=face, color=edge,
                markeredgewidth=1.6, label=name)
        _error_bars(ax, x + (i - 1) * 0.22, configs, key, edge)
    ax.set_xticks(x)
    ax.set_xticklabels([c["label"] for c in configs], fontsize=7)
    ax.set_xlim(-0.6, len(configs) - 0.4)
    ax.grid(axis="x", visible=False)
    ax.set_ylabel("backward allreduce (ms, log scale)")
    ax.set_yscale("log")


def _share_panel(ax, configs, series):
    """Allreduce share of the step per configuration: grouped bars from 0 (linear y)."""
    import numpy as np
    x = np.arange(len(configs))
    width = 0.27
    for i, (key, name, style, _) in enumerate(series):
        values = [c.get(key + "_pct") for c in configs]
        if all(v is None for v in values):
            continue
        ax.bar(x + (i - 1) * width, [np.nan if v is None else v for v in values], width,
               linewidth=0.8, **style)
    ax.set_xticks(x)
    ax.set_xticklabels([c["label"] for c in configs], fontsize=7)
    ax.grid(axis="x", visible=False)
    ax.set_ylabel("allreduce share of step (%)")
    ax.set_ylim(0, 105)


def plot(run_dir):
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "profile.csv"), SCHEMA)
    networks = table.unique("network")
    groups = {n: _series(table.where(network=n)) for n in networks}
    widths = [max(3, len(groups[n])) for n in networks]
    cp.setup_style()
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, len(networks), figsize=(1.05 * sum(widths) + 1.2, 6.6),
                             squeeze=False, constrained_layout=True,
                             gridspec_kw={"width_ratios": widths})
    series = [("adam", "Adam (ours)", dict(color=cp.color("adam")), cp.marker("adam")),
              ("pub", "Adam (published, 1-bit Adam Table 1)",
               dict(color="white", edgecolor=cp.color("adam"), hatch="///"), "x"),
              ("onebit", "1-bit Adam, compression stage (ours)",
               dict(color=cp.color("onebit-adam")), cp.marker("onebit-adam"))]
    for col, network in enumerate(networks):
        configs = groups[network]
        _time_panel(axes[0][col], configs, series)
        _share_panel(axes[1][col], configs, series)
        axes[0][col].set_title(_NETWORK_TITLES.get(network, network))
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    cp.figure_legend(fig, handles, labels, ncol=3)
    fig.suptitle("BERT-Large (seq 128) step profile: backward allreduce time and share")
    cp.caption(fig, "Backward allreduce: the part of the gradient allreduce not hidden behind "
               "the backward pass, simulated; share = that time over the whole step. Published: "
               "1-bit Adam (Tang et al., ICML 2021) Table 1, Adam rows only (hatched bars "
               "below). Error bars: low..high band, each measured input at the low and at the "
               "high end of its range and the model's own error, combined by "
               "root-sum-square.")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
