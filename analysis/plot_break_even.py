#!/usr/bin/env python3
"""Break-even bandwidth of compression (new study): horizontal bars (log x, Gbit/s)
of the effective inter-node bandwidth above which the compression stage no longer
beats its baseline, one bar per (workload, optimizer vs baseline). Bars that never
break even inside the search range run to its upper end with a ">" label; pairs
slower even at the lower end are noted at the axis.

Usage: python3 analysis/plot_break_even.py RUN_DIR
Reads RUN_DIR/break_even/break_even.csv (workload, gpus, baseline, optimizer,
break_even_effective_gbit_s, search_lo_effective_gbit_s, search_hi_effective_gbit_s,
speedup_at_lo, status).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "break_even"
REQUIRED = ["break_even.csv"]

SCHEMA = {"workload": "s", "gpus": "i", "baseline": "s", "optimizer": "s",
          "break_even_effective_gbit_s": "f?", "search_lo_effective_gbit_s": "f",
          "search_hi_effective_gbit_s": "f",
          "speedup_at_lo": "f?", "status": ("found", "above_range", "below_range")}


def plot(run_dir):
    from matplotlib.patches import Patch
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "break_even.csv"), SCHEMA)
    for line, r in enumerate(table.rows, start=2):
        if r["status"] == "found" and r["break_even_effective_gbit_s"] is None:
            raise cp.CsvError("%s: line %d, column 'break_even_effective_gbit_s': empty, but "
                              "status is found" % (table.path, line))
    rows = table.rows
    gpu_counts = {r["gpus"] for r in rows}
    lo = min(r["search_lo_effective_gbit_s"] for r in rows)
    hi = max(r["search_hi_effective_gbit_s"] for r in rows)
    fig, axes = cp.figure(1, 1, panel=(7.2, 0.45 * len(rows) + 1.6))
    ax = axes[0][0]
    labels = []
    for y, r in enumerate(rows):
        name = cp.pair_label(r["optimizer"], r["baseline"], cp.workload_label(r["workload"]))
        if len(gpu_counts) > 1:
            name += " (%d GPUs)" % r["gpus"]
        labels.append(name)
        c = cp.color(r["optimizer"])
        left = r["search_lo_effective_gbit_s"]
        if r["status"] == "found":
            value = r["break_even_effective_gbit_s"]
            ax.barh(y, value - left, left=left, color=c, height=0.6)
            ax.annotate("%.3g Gbit/s" % value, (value, y), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=8)
        elif r["status"] == "above_range":
            top = r["search_hi_effective_gbit_s"]
            ax.barh(y, top - left, left=left, color=c, height=0.6, alpha=0.45, hatch="//",
                    edgecolor=c)
            ax.annotate("> %g Gbit/s" % top, (top, y), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=8, fontweight="bold")
        else:  # below_range: slower than the baseline even at the lowest bandwidth
            text = "< %g Gbit/s: slower than baseline everywhere" % left
            if r["speedup_at_lo"] is not None:
                text += " (speedup %.2fx at %g)" % (r["speedup_at_lo"], left)
            ax.plot([left], [y], marker="<", color=c, markersize=8, linestyle="none")
            ax.annotate(text, (left, y), xytext=(8, 0), textcoords="offset points", va="center",
                        fontsize=8, color="0.25")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.grid(axis="y", visible=False)
    ax.set_xscale("log")
    ax.set_xlim(lo / 1.5, hi * 20)
    cp.plain_log_ticks(ax, "x")
    ax.axvline(hi, color="0.5", linestyle=":", linewidth=1.0)
    ax.set_xlabel("break-even effective inter-node bandwidth (Gbit/s)")
    title = "Bandwidth above which compression stops paying"
    if len(gpu_counts) == 1:
        title += " (%d GPUs)" % next(iter(gpu_counts))
    ax.set_title(title)
    statuses = {r["status"] for r in rows}
    handles = []
    if "found" in statuses:
        handles.append(Patch(facecolor="0.45", label="break-even found (speedup = 1)"))
    if "above_range" in statuses:
        handles.append(Patch(facecolor="0.75", hatch="//", edgecolor="0.45",
                             label="still faster at the search's upper end (%g Gbit/s)" % hi))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2,
              frameon=False)
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
