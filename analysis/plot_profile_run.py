#!/usr/bin/env python3
"""Step-time breakdown of a `compopt profile` run directory: left, one stacked bar per
optimizer stage of forward, backward compute, the allreduce time not hidden behind the
backward pass, compression and the optimizer step (ms, from 0), with the step time's
low..high band (measured inputs and model error) as an error bar; right, throughput per
stage (samples/s, from 0) with its low..high range.

Usage: python3 analysis/plot_profile_run.py RUN_DIR
Reads RUN_DIR/profile.csv (the scenario columns of docs/simulator.md: workload, cluster,
optimizer, stage, gpus, forward_s, backward_compute_s, comm_s, compress_s, step_s,
step_time_s, step_time_low_s, step_time_high_s, throughput_samples_s,
throughput_low_samples_s, throughput_high_samples_s) and writes
RUN_DIR/figures/profile.png and .pdf.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "profile"
FOLDER = ""  # profile.csv lies at the top of a profile run directory
REQUIRED = ["profile.csv"]

SCHEMA = {"workload": "s", "cluster": "s", "optimizer": "s", "stage": "s", "gpus": "i",
          "inter_node_effective_gbit_s": "f?", "forward_s": "f", "backward_compute_s": "f",
          "comm_s": "f", "compress_s": "f", "step_s": "f", "step_time_s": "f",
          "step_time_low_s": "f?", "step_time_high_s": "f?", "throughput_samples_s": "f",
          "throughput_low_samples_s": "f?", "throughput_high_samples_s": "f?"}

# The parts of a step, in the order they run; the step time is their sum.
PARTS = [("forward_s", "forward"), ("backward_compute_s", "backward compute"),
         ("comm_s", "allreduce not hidden by backward"), ("compress_s", "compression"),
         ("step_s", "optimizer step")]


def _span(value, low, high):
    """Error bar half-widths [[below], [above]] of a value with an optional low..high."""
    lo = value if low is None else min(low, value)
    hi = value if high is None else max(high, value)
    return [[value - lo], [hi - value]]


def plot(run_dir):
    table = cp.read_csv(os.path.join(run_dir, "profile.csv"), SCHEMA)
    rows = table.rows
    fig, axes = cp.figure(1, 2, panel=(5.0, 0.6 * len(rows) + 2.0),
                          gridspec_kw={"width_ratios": [1.7, 1]})
    ax_parts, ax_thr = axes[0]
    labels = ["%s\n%s" % (cp.label(r["optimizer"]), r["stage"]) for r in rows]
    for y, r in enumerate(rows):
        left = 0.0
        for i, (column, _) in enumerate(PARTS):
            width = 1e3 * r[column]
            ax_parts.barh(y, width, left=left, color=cp.palette(i), height=0.6)
            left += width
        total = 1e3 * r["step_time_s"]
        err = _span(total, *(None if r[k] is None else 1e3 * r[k]
                             for k in ("step_time_low_s", "step_time_high_s")))
        ax_parts.errorbar([total], [y], xerr=err, color="black", marker="|", markersize=12,
                          capsize=3, linestyle="none")
        ax_parts.annotate("%.4g ms" % total, (total + err[1][0], y), xytext=(4, 0),
                          textcoords="offset points", va="center", fontsize=8)
        thr = r["throughput_samples_s"]
        ax_thr.barh(y, thr, color="0.6", height=0.6)
        ax_thr.errorbar([thr], [y], xerr=_span(thr, r["throughput_low_samples_s"],
                                               r["throughput_high_samples_s"]),
                        color="black", capsize=3, linestyle="none")
    for ax in (ax_parts, ax_thr):
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(labels)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.grid(axis="y", visible=False)
        ax.set_xlim(left=0)
    ax_parts.set_xlim(right=ax_parts.get_xlim()[1] * 1.15)
    ax_parts.set_xlabel("time per step (ms)")
    ax_parts.set_title("Where a step's time goes")
    ax_thr.set_xlabel("throughput (samples/s, all GPUs)")
    ax_thr.set_title("Throughput")
    ax_thr.tick_params(labelleft=False)
    from matplotlib.patches import Patch
    cp.figure_legend(fig, [Patch(facecolor=cp.palette(i)) for i in range(len(PARTS))],
                     [name for _, name in PARTS], ncol=len(PARTS))
    r = rows[0]
    fig.suptitle("Simulated step of %s on %s, %d GPUs" % (cp.workload_label(r["workload"]),
                                                          r["cluster"], r["gpus"]))
    cp.caption(fig, "Error bars: the step time's and throughput's low..high band over the "
               "measured inputs and the model's own error (profile.csv's *_low/*_high "
               "columns).")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
