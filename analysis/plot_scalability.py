#!/usr/bin/env python3
"""Throughput against GPU count ([1BA] Fig. 4, [1BL] Fig. 4, [BIR] Fig. 3 in kind):
one panel per comparison, samples/s vs GPUs (log2 x, log y), one line per
optimizer (compression stage of compressed optimizers, full stage of baselines) over
the multi-node points only: a single node has no inter-node network, so its point is
drawn hollow and not joined to the others. A shaded band (an error bar on the single-node
point) spans each point's low..high throughput band (measured inputs and model error), when
the CSV has it. Published single-node values as x markers;
a comparison with one GPU count as ours-vs-published bars; the legend fills the grid's
spare panel.

Usage: python3 analysis/plot_scalability.py RUN_DIR
Reads RUN_DIR/scalability/scalability.csv (comparison, workload, cluster, optimizer,
stage, gpus, inter_node_gbit_s (nominal NIC rate), batch_per_gpu, throughput_samples_s,
throughput_low_samples_s, throughput_high_samples_s, published_throughput_samples_s).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "scalability"
REQUIRED = ["scalability.csv"]

SCHEMA = {"comparison": "s", "workload": "s", "cluster": "s", "optimizer": "s", "stage": "s",
          "gpus": "i", "nodes": "i?", "gpus_per_node": "i?", "inter_node_gbit_s": "f?",
          "inter_node_efficiency": "f?",
          "inter_node_effective_gbit_s": "f?",
          "batch_per_gpu": "i?", "throughput_samples_s": "f",
          "throughput_low_samples_s": "f?", "throughput_high_samples_s": "f?", "step_ms": "f?",
          "allreduce_ms": "f?", "published_throughput_samples_s": "f?"}

# Preferred stage per optimizer: compression if it has one, else full precision.
_STAGE_RANK = {"compression": 0, "full": 1, "full_precision": 1}


def _stage_rows(rows):
    """The rows of the stage to plot for one optimizer."""
    stages = {r["stage"] for r in rows}
    best = min(stages, key=lambda s: (_STAGE_RANK.get(s, 2), s))
    return sorted((r for r in rows if r["stage"] == best), key=lambda r: r["gpus"]), best


def _baseline_first(optimizers):
    return sorted(cp.order(optimizers), key=lambda o: o in cp.COMPRESSED)


def _title(comparison, rows):
    r = rows[0]
    workload = cp.workload_label(r["workload"])
    optimizers = " vs ".join(cp.label(o) for o in _baseline_first({x["optimizer"] for x in rows}))
    details = [r["cluster"]]
    if r["batch_per_gpu"] is not None:
        details.append("batch %d/GPU" % r["batch_per_gpu"])
    return "%s: %s\n(%s)" % (workload, optimizers, ", ".join(details))


def _published_point(rows, optimizer, gpus):
    for r in rows:
        if (r["optimizer"] == optimizer and r["gpus"] == gpus
                and r["published_throughput_samples_s"] is not None):
            return r["published_throughput_samples_s"]
    return None


def _has_band(rows):
    return all(r["throughput_low_samples_s"] is not None for r in rows)


def _draw_band(ax, joined, alone, c):
    """low..high band: a band along the joined points, an error bar on
    the single-node one."""
    if joined and _has_band(joined):
        band = ax.fill_between([r["gpus"] for r in joined],
                               [r["throughput_low_samples_s"] for r in joined],
                               [r["throughput_high_samples_s"] for r in joined],
                               color=c, alpha=0.18, linewidth=0)
        band.set_gid("spread_band")
    for r in alone:
        if _has_band([r]):
            value = r["throughput_samples_s"]
            ax.errorbar([r["gpus"]], [value], yerr=[[value - r["throughput_low_samples_s"]],
                                                    [r["throughput_high_samples_s"] - value]],
                        color=c, linestyle="none", capsize=3, linewidth=1)


def _line_panel(ax, rows, gpus):
    """Throughput vs GPUs, one line per optimizer over the multi-node points, the
    single-node point hollow and apart, published points as x markers."""
    for optimizer in _baseline_first({r["optimizer"] for r in rows}):
        series, stage = _stage_rows([r for r in rows if r["optimizer"] == optimizer])
        name = cp.label(optimizer)
        if optimizer in cp.COMPRESSED and stage != "compression":
            name += " (%s stage)" % stage
        c, m = cp.color(optimizer), cp.marker(optimizer)
        joined = [r for r in series if r["nodes"] is None or r["nodes"] > 1]
        alone = [r for r in series if r["nodes"] == 1]
        ax.plot([r["gpus"] for r in joined], [r["throughput_samples_s"] for r in joined],
                color=c, marker=m, markersize=4, label=name)
        ax.plot([r["gpus"] for r in alone], [r["throughput_samples_s"] for r in alone],
                color=c, marker=m, markersize=6, markerfacecolor="white", linestyle="none")
        _draw_band(ax, joined, alone, c)
        for g in gpus:
            value = _published_point(rows, optimizer, g)
            if value is not None:
                ax.plot([g], [value], marker="x", color=c, markersize=9, markeredgewidth=2.0,
                        linestyle="none", zorder=6)
    cp.gpu_axis(ax, gpus)
    ax.set_yscale("log")
    cp.plain_log_ticks(ax, "y")


def _bar_panel(ax, rows, gpus):
    """A single GPU count: bars of ours vs published per optimizer."""
    optimizers = _baseline_first({r["optimizer"] for r in rows})
    for i, optimizer in enumerate(optimizers):
        series, _ = _stage_rows([r for r in rows if r["optimizer"] == optimizer])
        c = cp.color(optimizer)
        ours = series[0]["throughput_samples_s"]
        ax.bar(i - 0.2, ours, 0.4, color=c)
        if _has_band(series[:1]):
            ax.errorbar([i - 0.2], [ours], yerr=[[ours - series[0]["throughput_low_samples_s"]],
                                                 [series[0]["throughput_high_samples_s"] - ours]],
                        color="0.2", linestyle="none", capsize=3, linewidth=1)
        ax.annotate("%.0f" % ours, (i - 0.2, ours), xytext=(0, 2), textcoords="offset points",
                    ha="center", va="bottom", fontsize=7)
        value = _published_point(rows, optimizer, gpus)
        if value is not None:
            ax.bar(i + 0.2, value, 0.4, color="white", edgecolor=c, hatch="///")
            ax.plot([i + 0.2], [value], marker="x", color=c, markersize=9, markeredgewidth=2.2,
                    linestyle="none", zorder=6)
            ax.annotate("%.0f" % value, (i + 0.2, value), xytext=(0, 6), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(optimizers)))
    ax.set_xticklabels([cp.label(o) for o in optimizers])
    ax.grid(axis="x", visible=False)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.25)
    ax.set_xlabel("%d GPUs: ours (solid) vs published (hatched, x)" % gpus)


def _legend(ax, table):
    """The legend of every panel, in the grid's spare slot."""
    from matplotlib.lines import Line2D
    optimizers = _baseline_first(set(table.unique("optimizer")))
    handles = [Line2D([], [], color=cp.color(o), marker=cp.marker(o), markersize=5)
               for o in optimizers]
    labels = [cp.label(o) for o in optimizers]
    if any(r["nodes"] == 1 for r in table.rows):
        handles.append(Line2D([], [], color="0.3", marker="o", markerfacecolor="white",
                              linestyle="none", markersize=6))
        labels.append("one node (no inter-node link): not joined")
    if _has_band(table.rows):
        from matplotlib.patches import Patch
        handles.append(Patch(color="0.3", alpha=0.25, linewidth=0))
        labels.append("low..high band: measured\ninputs and model error")
    if any(r["published_throughput_samples_s"] is not None for r in table.rows):
        handles.append(Line2D([], [], marker="x", color="0.3", markersize=8, markeredgewidth=2,
                              linestyle="none"))
        labels.append("published (Birder, one node;\ncolour = optimizer)")
    cp.legend_in_slot(ax, handles, labels)


def plot(run_dir):
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "scalability.csv"), SCHEMA)
    comparisons = table.unique("comparison")
    ncols = min(3, len(comparisons) + 1)
    nrows = math.ceil((len(comparisons) + 1) / ncols)
    fig, axes = cp.figure(nrows, ncols, panel=(4.3, 3.4))
    for ax, comparison in zip(axes.flat, comparisons):
        rows = table.where(comparison=comparison)
        gpus = sorted({r["gpus"] for r in rows})
        if len(gpus) == 1:
            _bar_panel(ax, rows, gpus[0])
        else:
            _line_panel(ax, rows, gpus)
        ax.set_ylabel("throughput (samples/s)")
        ax.set_title(_title(comparison, rows), fontsize=9)
    spare = list(axes.flat)[len(comparisons):]
    _legend(spare[0], table)
    for ax in spare[1:]:
        ax.set_visible(False)
    fig.suptitle("Training throughput vs GPU count (simulated; compressed optimizers in their "
                 "compression stage)")
    note = ("Throughput in samples per second over all GPUs, from the step simulator; both axes "
            "logarithmic. Baselines run full precision.")
    if _has_band(table.rows):
        note += (" Bands: the step simulated again with each measured input at the low and at "
                 "the high end of its range, and the model's own error, combined by "
                 "root-sum-square (docs/whatif.md, The band).")
    cp.caption(fig, note)
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
