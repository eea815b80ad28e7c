#!/usr/bin/env python3
"""Hierarchical against flat 1-bit allreduce ([BIR] §4): inter-node bytes per node
and allreduce time against the number of nodes (rows), one panel per GPUs-per-node
count (columns, shared y axis per row), flat and hierarchical as two lines per panel:
no two lines share a panel unless they are different schemes, so none hides another
(the hierarchical scheme's inter-node bytes do not depend on the GPUs per node).

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
          "inter_node_bytes_per_node": "f", "allreduce_ms": "f", "allreduce_low_ms": "f?",
          "allreduce_high_ms": "f?"}

# Scheme -> (colour, marker, line style); other schemes get the palette's next entries.
_SCHEME_STYLES = {"flat": (cp.palette(1), "o", "-"), "hierarchical": (cp.palette(0), "s", "--")}
_ROWS = (("inter_node_bytes_per_node", 1e-6, "inter-node MB per node\nper allreduce"),
         ("allreduce_ms", 1.0, "allreduce time (ms)"))


def _styles(schemes):
    extra = iter(range(2, 8))
    return {s: _SCHEME_STYLES.get(s) or (cp.palette(next(extra, 7)), "^", "-.") for s in schemes}


def _nodes_axis(ax, all_nodes):
    from matplotlib.ticker import FixedLocator, NullLocator
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(all_nodes))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(n) for n in all_nodes])
    ax.set_yscale("log")


def _band(ax, rows, color):
    """The time's low..high band as a shaded strip, where the CSV has it."""
    banded = [r for r in rows if r.get("allreduce_low_ms") is not None
              and r.get("allreduce_high_ms") is not None]
    if banded:
        ax.fill_between([r["nodes"] for r in banded], [r["allreduce_low_ms"] for r in banded],
                        [r["allreduce_high_ms"] for r in banded], color=color, alpha=0.15,
                        linewidth=0)


def plot(run_dir):
    from matplotlib.lines import Line2D
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "hierarchical.csv"), SCHEMA)
    per_node = sorted(table.unique("gpus_per_node"))
    schemes = sorted(table.unique("scheme"), key=lambda s: (s not in _SCHEME_STYLES, s))
    styles = _styles(schemes)
    all_nodes = sorted(table.unique("nodes"))
    fig, axes = cp.figure(2, len(per_node), panel=(3.3, 2.8), sharey="row")
    for col, gpn in enumerate(per_node):
        for scheme in schemes:
            rows = sorted(table.where(scheme=scheme, gpus_per_node=gpn), key=lambda r: r["nodes"])
            color, mark, ls = styles[scheme]
            for (column, scale, _), ax in zip(_ROWS, axes[:, col]):
                ax.plot([r["nodes"] for r in rows], [r[column] * scale for r in rows],
                        color=color, marker=mark, linestyle=ls, markersize=4)
            _band(axes[1][col], rows, color)
        axes[0][col].set_title("%d GPUs per node" % gpn)
        for ax in axes[:, col]:
            _nodes_axis(ax, all_nodes)
        axes[1][col].set_xlabel("nodes")
    for (_, _, ylabel), ax in zip(_ROWS, axes[:, 0]):
        ax.set_ylabel(ylabel)
        cp.plain_log_ticks(ax, "y")
    handles = [Line2D([], [], color=styles[s][0], marker=styles[s][1], linestyle=styles[s][2],
                      markersize=4) for s in schemes]
    cp.figure_legend(fig, handles, ["%s 1-bit allreduce" % s for s in schemes],
                     ncol=len(schemes))
    title = "Flat vs hierarchical 1-bit allreduce (Birder)"
    elements = cp.finite(table.values("elements"))
    if elements:
        title += ", %.1fM-element gradient" % (max(elements) / 1e6)
    fig.suptitle(title)
    cp.caption(fig, "Simulated on the study's cluster; bytes: mean over nodes of the bytes "
               "leaving a node in one allreduce (1 MB = 10^6 bytes). Both y axes logarithmic. "
               "Shaded: the time's low..high band (the measured inputs and the model's own "
               "error, docs/whatif.md, The band), where the CSV has it.")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
