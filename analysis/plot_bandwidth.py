#!/usr/bin/env python3
"""Compression-stage speedup against inter-node bandwidth ([1BA] §7.2, [1BL] §6):
speedup = baseline step time / compressed step time vs effective bandwidth
(log x, Gbit/s), one line per (workload, optimizer vs baseline), a horizontal
line at 1 (no gain).

Usage: python3 analysis/plot_bandwidth.py RUN_DIR
Reads RUN_DIR/bandwidth/bandwidth.csv (workload, gpus, baseline, optimizer,
inter_node_effective_gbit_s, speedup).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "bandwidth"
REQUIRED = ["bandwidth.csv"]

SCHEMA = {"workload": "s", "gpus": "i", "baseline": "s", "optimizer": "s",
          "inter_node_effective_gbit_s": "f", "baseline_step_ms": "f?", "compressed_step_ms": "f?",
          "speedup": "f"}

_LINESTYLES = ["-", "--", "-.", ":"]
_MARKERS = ["o", "s", "^", "v", "D", "P"]


def _coinciding(drawn, xs, ys, tolerance=0.005):
    """Name of an earlier curve with the same x values and y within `tolerance`, else None."""
    for name, other_xs, other_ys in drawn:
        if other_xs == xs and all(abs(a - b) <= tolerance * max(abs(b), 1e-12)
                                  for a, b in zip(ys, other_ys)):
            return name
    return None


def plot(run_dir):
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "bandwidth.csv"), SCHEMA)
    fig, axes = cp.figure(1, 1, panel=(7.0, 4.4))
    ax = axes[0][0]
    workloads = table.unique("workload")
    pairs = cp.group_by(table.rows, "workload", "baseline", "optimizer", "gpus")
    gpu_counts = {k[3] for k in pairs}
    drawn = []  # (name, xs, ys) of the curves already on the axes
    for i, ((workload, baseline, optimizer, gpus), rows) in enumerate(pairs.items()):
        rows = sorted(rows, key=lambda r: r["inter_node_effective_gbit_s"])
        w = workloads.index(workload)
        name = cp.pair_label(optimizer, baseline, cp.workload_label(workload))
        if len(gpu_counts) > 1:
            name += ", %d GPUs" % gpus
        xs = [r["inter_node_effective_gbit_s"] for r in rows]
        ys = [r["speedup"] for r in rows]
        # A curve lying on an earlier one (e.g. 1-bit LAMB on 1-bit Adam: same bytes, same
        # compute) would hide it: say so in the legend and draw it hollow on top.
        twin = _coinciding(drawn, xs, ys)
        style = {}
        if twin is not None:
            name += " (= %s curve)" % twin
            style = {"markerfacecolor": "none", "linewidth": 1.0}
        ax.plot(xs, ys, color=cp.color(optimizer), linestyle=_LINESTYLES[w % len(_LINESTYLES)],
                marker=_MARKERS[i % len(_MARKERS)], markersize=4, label=name, **style)
        drawn.append((cp.label(optimizer), xs, ys))
    ax.axhline(1.0, color="black", linewidth=1.0, linestyle=":", label="no gain (speedup 1)")
    ax.set_xscale("log")
    cp.plain_log_ticks(ax, "x")
    ax.set_xlabel("effective inter-node bandwidth (Gbit/s)")
    ax.set_ylabel("speedup of the compression stage (x)")
    ax.set_ylim(bottom=0)
    title = "Compression speedup vs network bandwidth"
    if len(gpu_counts) == 1:
        title += " (%d GPUs)" % next(iter(gpu_counts))
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
