#!/usr/bin/env python3
"""Hierarchical against flat 1-bit allreduce ([BIR] §4): inter-node bytes per node
and allreduce time against the number of nodes, one line per (scheme, GPUs per
node): color = GPUs per node, line style = scheme.

Usage: python3 analysis/plot_hierarchical.py RUN_DIR
Reads RUN_DIR/hierarchical/hierarchical.csv (nodes, gpus_per_node, scheme,
elements, inter_node_bytes_per_node, allreduce_ms).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "hierarchical"
REQUIRED = ["hierarchical.csv"]

SCHEMA = {"nodes": "i", "gpus_per_node": "i", "gpus": "i?", "scheme": "s", "elements": "f?",
          "inter_node_bytes_per_node": "f", "allreduce_ms": "f"}

_GPN_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
_SCHEME_STYLES = {"flat": ("-", "o"), "hierarchical": ("--", "s")}


def plot(run_dir):
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, NullLocator
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "hierarchical.csv"), SCHEMA)
    fig, axes = cp.figure(1, 2, panel=(4.8, 3.6))
    ax_bytes, ax_time = axes[0]
    per_node = sorted(table.unique("gpus_per_node"))
    colors = {g: _GPN_COLORS[i % len(_GPN_COLORS)] for i, g in enumerate(per_node)}
    schemes = sorted(table.unique("scheme"), key=lambda s: (s not in _SCHEME_STYLES, s))
    extra_styles = iter([("-.", "^"), (":", "v"), ((0, (5, 1)), "D")])
    styles = {s: _SCHEME_STYLES.get(s) or next(extra_styles, ("-", "x")) for s in schemes}
    for (scheme, gpn), rows in sorted(cp.group_by(table.rows, "scheme", "gpus_per_node").items(),
                                      key=lambda kv: (schemes.index(kv[0][0]), kv[0][1])):
        rows = sorted(rows, key=lambda r: r["nodes"])
        nodes = [r["nodes"] for r in rows]
        ls, marker = styles[scheme]
        # Larger markers under smaller ones: coinciding lines stay visible.
        size = 4 + 2.5 * (len(per_node) - 1 - per_node.index(gpn))
        kw = dict(color=colors[gpn], linestyle=ls, marker=marker, markersize=size)
        ax_bytes.plot(nodes, [r["inter_node_bytes_per_node"] / 1e6 for r in rows], **kw)
        ax_time.plot(nodes, [r["allreduce_ms"] for r in rows], **kw)
    all_nodes = sorted(table.unique("nodes"))
    for ax in (ax_bytes, ax_time):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(all_nodes))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([str(n) for n in all_nodes])
        ax.set_xlabel("nodes")
        ax.set_yscale("log")
        cp.plain_log_ticks(ax, "y")
    ax_bytes.set_ylabel("inter-node bytes per node (MB)")
    ax_bytes.set_title("Traffic leaving each node per allreduce")
    ax_time.set_ylabel("allreduce time (ms)")
    ax_time.set_title("Compressed allreduce time")
    handles = [Line2D([], [], color=colors[g], linewidth=2) for g in per_node]
    labels = ["%d GPUs/node" % g for g in per_node]
    handles += [Line2D([], [], color="0.3", linestyle=styles[s][0], marker=styles[s][1],
                       markersize=4) for s in schemes]
    labels += ["%s 1-bit allreduce" % s for s in schemes]
    cp.figure_legend(fig, handles, labels, ncol=len(labels))
    title = "Flat vs hierarchical 1-bit allreduce (Birder)"
    elements = cp.finite(table.values("elements"))
    if elements:
        title += ", %.1fM-element gradient" % (max(elements) / 1e6)
    fig.suptitle(title)
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
