#!/usr/bin/env python3
"""Communication volume reduction, formula against measured ([1BA] §7.1, [1BL] §6):
grouped bars per optimizer of 1/(w + (1-w)/k) and the measured byte ratio of a
whole training run against full-precision Adam, each bar annotated with its value.

Usage: python3 analysis/plot_volume.py RUN_DIR
Reads RUN_DIR/volume/volume.csv (optimizer, warmup_fraction, k, formula_reduction,
measured_reduction, relative_error).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "volume"
REQUIRED = ["volume.csv"]

SCHEMA = {"optimizer": "s", "warmup_fraction": "f", "k": "f", "formula_reduction": "f",
          "measured_reduction": "f", "relative_error": "f?"}


def plot(run_dir):
    import numpy as np
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "volume.csv"), SCHEMA)
    rows = table.rows
    fig, axes = cp.figure(1, 1, panel=(max(4.8, 1.5 * len(rows) + 1.5), 3.8))
    ax = axes[0][0]
    x = np.arange(len(rows))
    width = 0.38
    formula = [r["formula_reduction"] for r in rows]
    measured = [r["measured_reduction"] for r in rows]
    colors = [cp.color(r["optimizer"]) for r in rows]
    bars_f = ax.bar(x - width / 2, formula, width, color="white", edgecolor=colors, hatch="///",
                    linewidth=1.0, label=r"formula $1/(w + (1-w)/k)$")
    bars_m = ax.bar(x + width / 2, measured, width, color=colors, linewidth=0,
                    label="measured (bytes of Adam / bytes of the run)")
    for bars in (bars_f, bars_m):
        for b in bars:
            ax.annotate("%.1fx" % b.get_height(), (b.get_x() + b.get_width() / 2, b.get_height()),
                        xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                        fontsize=7.5)
    labels = []
    for r in rows:
        text = "%s\nw = %.3g, k = %g" % (cp.label(r["optimizer"]), r["warmup_fraction"], r["k"])
        if r["relative_error"] is not None:
            text += "\nerror %+.2f%%" % (100 * r["relative_error"])
        labels.append(text)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=7.5)
    ax.grid(axis="x", visible=False)
    ax.set_ylabel("communication volume reduction vs Adam (x)")
    ax.set_ylim(0, max(formula + measured) * 1.18)
    ax.set_title("Communication volume: formula vs measured (w = uncompressed fraction of steps)")
    from matplotlib.patches import Patch
    handles = [Patch(facecolor="white", edgecolor="0.3", hatch="///", label=bars_f.get_label()),
               Patch(facecolor="0.45", label=bars_m.get_label())]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2,
              frameon=False)
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
