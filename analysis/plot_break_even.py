#!/usr/bin/env python3
"""Break-even bandwidth of compression (new study): a dot per (workload, optimizer vs
baseline) at the effective inter-node bandwidth (log x, Gbit/s) above which the
compression stage no longer beats its baseline, with an error bar over the cluster's
bandwidth spread (break_even_low..high). A pair that never breaks even inside the
search range gets an arrow at its upper end (">"), one slower even at the lower end an
arrow at that end ("<"); the bandwidths outside the search range are shaded. No bars: a
bar would start at the search's lower bound, and its length would mean nothing. Where the
search against NCCL's default algorithm (nccl_default_status) ended on an algorithm_switch,
the bandwidth where NCCL's choice flips between ring and tree rather than a crossing of the
optimizers, a hollow diamond marks it, labelled as such.

Usage: python3 analysis/plot_break_even.py RUN_DIR
Reads RUN_DIR/break_even/break_even.csv (workload, gpus, baseline, optimizer,
break_even_effective_gbit_s, search_lo_effective_gbit_s, search_hi_effective_gbit_s,
speedup_at_lo, status; optional: nccl_default_break_even_effective_gbit_s,
nccl_default_status).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "break_even"
REQUIRED = ["break_even.csv"]

SCHEMA = {"workload": "s", "gpus": "i", "baseline": "s", "optimizer": "s",
          "break_even_effective_gbit_s": "f?", "break_even_low_effective_gbit_s": "f?",
          "break_even_high_effective_gbit_s": "f?", "search_lo_effective_gbit_s": "f",
          "search_hi_effective_gbit_s": "f",
          "speedup_at_lo": "f?", "status": ("found", "above_range", "below_range")}
# Columns of later runs, read when present.
NCCL_VALUE, NCCL_STATUS = "nccl_default_break_even_effective_gbit_s", "nccl_default_status"
NCCL_STATUSES = ("found", "algorithm_switch", "above_range", "below_range")


def read_rows(run_dir):
    """The typed rows of break_even.csv; a found row must have its break-even."""
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "break_even.csv"), SCHEMA)
    for line, r in enumerate(table.rows, start=2):
        if r["status"] == "found" and r["break_even_effective_gbit_s"] is None:
            raise cp.CsvError("%s: line %d, column 'break_even_effective_gbit_s': empty, but "
                              "status is found" % (table.path, line))
        _read_nccl_default(r, table.path, line)
    return table.rows


def _read_nccl_default(r, path, line):
    """r[NCCL_STATUS] checked and r[NCCL_VALUE] as a float (None when absent or empty); an
    algorithm_switch must carry its bandwidth."""
    status = r.get(NCCL_STATUS) or None
    if status is not None and status not in NCCL_STATUSES:
        raise cp.CsvError("%s: line %d, column '%s': '%s', expected one of %s"
                          % (path, line, NCCL_STATUS, status, ", ".join(NCCL_STATUSES)))
    text = r.get(NCCL_VALUE) or ""
    try:
        value = float(text) if text else None
    except ValueError:
        raise cp.CsvError("%s: line %d, column '%s': '%s' is not a number"
                          % (path, line, NCCL_VALUE, text)) from None
    if status == "algorithm_switch" and value is None:
        raise cp.CsvError("%s: line %d, column '%s': empty, but %s is algorithm_switch"
                          % (path, line, NCCL_VALUE, NCCL_STATUS))
    r[NCCL_STATUS], r[NCCL_VALUE] = status, value


def _row_label(r, several_gpu_counts):
    pair = cp.pair_label(r["optimizer"], r["baseline"])
    name = "%s\n%s" % (cp.workload_label(r["workload"]), pair)
    return name + (" (%d GPUs)" % r["gpus"] if several_gpu_counts else "")


def _draw_row(ax, y, r):
    """One pair: a dot with its spread, or an arrow at the end of the search range."""
    c, m = cp.color(r["optimizer"]), cp.marker(r["optimizer"])
    lo, hi = r["search_lo_effective_gbit_s"], r["search_hi_effective_gbit_s"]
    if r["status"] == "found":
        value = r["break_even_effective_gbit_s"]
        low = r["break_even_low_effective_gbit_s"] or value
        high = r["break_even_high_effective_gbit_s"] or value
        ax.errorbar([value], [y], xerr=[[value - min(low, value)], [max(high, value) - value]],
                    color=c, marker=m, markersize=5, capsize=4, elinewidth=1.6,
                    linestyle="none", zorder=4)
        ax.annotate("%.3g" % value, (max(high, value), y), xytext=(5, 0),
                    textcoords="offset points", va="center", fontsize=8)
    elif r["status"] == "above_range":
        ax.plot([hi], [y], marker=">", color=c, markersize=9, linestyle="none", zorder=4)
        ax.annotate("> %g: faster at every bandwidth searched" % hi, (hi, y), xytext=(-8, 0),
                    textcoords="offset points", ha="right", va="center", fontsize=8)
    else:  # below_range: slower than the baseline even at the lowest bandwidth
        text = "< %g: slower everywhere" % lo
        if r["speedup_at_lo"] is not None:
            text += " (%.2fx at %g)" % (r["speedup_at_lo"], lo)
        ax.plot([lo], [y], marker="<", color=c, markersize=9, linestyle="none", zorder=4)
        ax.annotate(text, (lo, y), xytext=(8, 0), textcoords="offset points", va="center",
                    fontsize=8)


def _draw_switch(ax, y, r):
    """NCCL's ring/tree switch, where the search against NCCL's default ended on one."""
    if r[NCCL_STATUS] != "algorithm_switch":
        return
    value = r[NCCL_VALUE]
    ax.plot([value], [y], marker="D", fillstyle="none", color=cp.color(r["optimizer"]),
            markersize=8, linestyle="none", zorder=5, gid="algorithm_switch")
    ax.annotate("algorithm switch %.3g (NCCL default)" % value, (value, y), xytext=(0, -11),
                textcoords="offset points", ha="center", va="top", fontsize=7, color="0.3")


def plot(run_dir):
    rows = read_rows(run_dir)
    several = len({r["gpus"] for r in rows}) > 1
    lo = min(r["search_lo_effective_gbit_s"] for r in rows)
    hi = max(r["search_hi_effective_gbit_s"] for r in rows)
    fig, axes = cp.figure(1, 1, panel=(7.2, 0.55 * len(rows) + 1.4))
    ax = axes[0][0]
    for y, r in enumerate(rows):
        _draw_row(ax, y, r)
        _draw_switch(ax, y, r)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_row_label(r, several) for r in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    ax.set_xscale("log")
    ax.set_xlim(lo / 3, hi * 3)
    for a, b in ((lo / 3, lo), (hi, hi * 3)):
        ax.axvspan(a, b, color="0.88", linewidth=0, zorder=0)
    cp.plain_log_ticks(ax, "x")
    ax.set_xlabel("break-even effective inter-node bandwidth (Gbit/s, log scale)")
    gpus = "" if several else " on %d GPUs" % rows[0]["gpus"]
    ax.set_title("Bandwidth above which the compression stage stops paying%s" % gpus)
    cp.caption(fig, "Dot: bandwidth where the compression stage's speedup over its baseline "
               "falls to 1 (bisection on the simulator). Error bar: the same point if the "
               "cluster's real bandwidth is off by its low..high spread. Arrow: no crossing "
               "inside the searched range %g-%g Gbit/s (grey: not searched). Dots are against the "
               "tuned baseline (the faster of ring and tree); a hollow diamond is where the "
               "search against NCCL's default algorithm ended instead: NCCL switching between "
               "ring and tree, not a crossing of the optimizers." % (lo, hi))
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
