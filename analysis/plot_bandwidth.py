#!/usr/bin/env python3
"""Compression-stage speedup against inter-node bandwidth ([1BA] §7.2, [1BL] §6):
speedup = baseline step time / compressed step time vs effective bandwidth (log x,
Gbit/s; log y), one panel per workload, one line per compressed optimizer against its
baseline (optimizer colours and markers of compopt_plot), shaded over its low..high
band (the measured inputs' deviations, docs/whatif.md "The band") when the CSV has
it, a line at 1 (no gain). When
the run directory also has the break-even study, its crossings are marked on that line
(with their bandwidth-spread error bar), so a break-even that sits on a jump of the
curve (the baseline's allreduce changing algorithm) shows as one.

Usage: python3 analysis/plot_bandwidth.py RUN_DIR
Reads RUN_DIR/bandwidth/bandwidth.csv (workload, gpus, baseline, optimizer,
inter_node_effective_gbit_s, speedup, speedup_low, speedup_high) and, if present,
RUN_DIR/break_even/break_even.csv.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402
import plot_break_even  # noqa: E402

STUDY = "bandwidth"
REQUIRED = ["bandwidth.csv"]

SCHEMA = {"workload": "s", "gpus": "i", "baseline": "s", "optimizer": "s",
          "inter_node_effective_gbit_s": "f", "baseline_step_ms": "f?", "compressed_step_ms": "f?",
          "speedup": "f", "speedup_low": "f?", "speedup_high": "f?"}


def _has_band(rows):
    return all(r["speedup_low"] is not None for r in rows)


def _break_evens(run_dir):
    """(workload, baseline, optimizer, gpus) -> break-even row of the break-even study."""
    if not os.path.isfile(cp.study_csv(run_dir, "break_even", "break_even.csv")):
        return {}
    rows = plot_break_even.read_rows(run_dir)
    return {(r["workload"], r["baseline"], r["optimizer"], r["gpus"]): r for r in rows
            if r["status"] == "found"}


def _mark_break_even(ax, row):
    value = row["break_even_effective_gbit_s"]
    low = row["break_even_low_effective_gbit_s"] or value
    high = row["break_even_high_effective_gbit_s"] or value
    drawn = ax.errorbar([value], [1.0],
                        xerr=[[value - min(low, value)], [max(high, value) - value]],
                        color=cp.color(row["optimizer"]), marker="|", markersize=14,
                        markeredgewidth=2, capsize=3, linestyle="none", zorder=5)
    drawn.lines[0].set_gid("break_even")


def _panel(ax, table, workload, break_evens):
    pairs = cp.group_by(table.where(workload=workload), "baseline", "optimizer", "gpus")
    several_gpus = len({k[2] for k in pairs}) > 1
    for (baseline, optimizer, gpus), rows in pairs.items():
        rows = sorted(rows, key=lambda r: r["inter_node_effective_gbit_s"])
        name = "%s vs %s" % (cp.label(optimizer), cp.label(baseline))
        if several_gpus:
            name += ", %d GPUs" % gpus
        ax.plot([r["inter_node_effective_gbit_s"] for r in rows], [r["speedup"] for r in rows],
                color=cp.color(optimizer), marker=cp.marker(optimizer), markersize=4, label=name)
        if _has_band(rows):
            band = ax.fill_between([r["inter_node_effective_gbit_s"] for r in rows],
                                   [r["speedup_low"] for r in rows],
                                   [r["speedup_high"] for r in rows],
                                   color=cp.color(optimizer), alpha=0.18, linewidth=0)
            band.set_gid("spread_band")
        crossing = break_evens.get((workload, baseline, optimizer, gpus))
        if crossing is not None:
            _mark_break_even(ax, crossing)
    ax.axhline(1.0, color="black", linewidth=0.9, linestyle=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    cp.plain_log_ticks(ax, "x")
    cp.plain_log_ticks(ax, "y")
    ax.set_title(cp.workload_label(workload))


def plot(run_dir):
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "bandwidth.csv"), SCHEMA)
    break_evens = _break_evens(run_dir)
    workloads = table.unique("workload")
    ncols = min(2, len(workloads))
    nrows = math.ceil(len(workloads) / ncols)
    fig, axes = cp.figure(nrows, ncols, panel=(4.6, 3.3), sharex=True)
    for ax, workload in zip(axes.flat, workloads):
        _panel(ax, table, workload, break_evens)
    for ax in list(axes.flat)[len(workloads):]:
        ax.set_visible(False)
    cp.shared_legend(fig, [ax for ax in axes.flat if ax.get_visible()])
    for ax in axes[-1]:
        ax.set_xlabel("effective inter-node bandwidth (Gbit/s)")
    for ax in axes[:, 0]:
        ax.set_ylabel("compression-stage speedup (x)")
    lo = min(table.values("speedup"))
    for ax in axes.flat:  # room under the line at 1 for curves that fall below it
        ax.set_ylim(bottom=min(0.7, lo / 1.2))
    gpus = sorted(table.unique("gpus"))
    fig.suptitle("Compression-stage speedup vs network bandwidth (%s GPUs, simulated)"
                 % "/".join(str(g) for g in gpus))
    note = ("Speedup = baseline step time / compressed step time, both axes logarithmic; lines "
            "join the sampled bandwidths; "
            "dotted line: no gain. Effective bandwidth = the rate collectives achieve (the "
            "cluster preset's NIC rate times its calibrated efficiency).")
    if _has_band(table.rows):
        note += (" Bands: low..high, both optimizers' steps simulated again at each end of every "
                 "measured input's range (bandwidths, utilisation, latency, per-message cost), "
                 "combined by root-sum-square.")
    if break_evens:
        note += (" Vertical ticks on the dotted line: the break-even study's crossings, error "
                 "bar over the cluster's bandwidth spread.")
    cp.caption(fig, note)
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
