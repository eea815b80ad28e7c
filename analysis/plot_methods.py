#!/usr/bin/env python3
"""Methods side by side: every method of the `methods` study against its baseline, one row
of three panels per task (the Fashion-MNIST MLP, the transformer LM): test loss against
steps, against bytes sent per rank (log x) and against simulated time. One colour and
marker per optimizer from the shared style table, baselines dashed; with several seeds
the line is their mean and the band their min-max. The caption names the stand-in
workload and cluster preset of the simulated clock (summary.csv).

Usage: python3 analysis/plot_methods.py RUN_DIR
Reads RUN_DIR/methods/curves.csv (task, optimizer, role, seeds, step, test_loss_mean,
test_loss_min, test_loss_max, bytes_per_rank, sim_time_s) and RUN_DIR/methods/summary.csv
(task, stand_in, cluster, gpus).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "methods"
REQUIRED = ["curves.csv", "summary.csv"]

CURVES_SCHEMA = {"task": "s", "optimizer": "s", "role": ("method", "baseline"), "seeds": "i",
                 "step": "i", "test_loss_mean": "f", "test_loss_min": "f",
                 "test_loss_max": "f", "bytes_per_rank": "f", "sim_time_s": "f"}
SUMMARY_SCHEMA = {"task": "s", "stand_in": "s", "cluster": "s", "gpus": "i"}

TASK_LABELS = {"mlp": "Fashion-MNIST MLP", "transformer": "Transformer LM"}
# x column, axis label, log scale, panel title.
AXES = [("step", "step", False, "vs steps"),
        ("bytes_per_rank", "bytes sent per rank (log scale)", True, "vs bytes per rank"),
        ("sim_time_s", None, False, "vs simulated time")]


def _draw_optimizer(axes, rows):
    """One optimizer's curve (mean, min-max band) on the three panels of a task."""
    first = rows[0]
    style = dict(color=cp.color(first["optimizer"]), marker=cp.marker(first["optimizer"]),
                 markersize=3, linestyle="--" if first["role"] == "baseline" else "-",
                 label=cp.label(first["optimizer"]))
    for ax, (column, _, log_x, _) in zip(axes, AXES):
        # A step before the run sent anything has no place on a log axis.
        kept = [r for r in rows if r[column] > 0] if log_x else rows
        x = [r[column] for r in kept]
        ax.plot(x, [r["test_loss_mean"] for r in kept], **style)
        if first["seeds"] > 1:
            ax.fill_between(x, [r["test_loss_min"] for r in kept],
                            [r["test_loss_max"] for r in kept], color=style["color"],
                            alpha=0.15, linewidth=0)


def _clock(summary):
    row = summary.rows[0]
    return "%s on %d GPUs of %s" % (cp.workload_label(row["stand_in"]), row["gpus"],
                                    row["cluster"])


def plot(run_dir):
    curves = cp.read_csv(cp.study_csv(run_dir, STUDY, "curves.csv"), CURVES_SCHEMA)
    summary = cp.read_csv(cp.study_csv(run_dir, STUDY, "summary.csv"), SUMMARY_SCHEMA)
    tasks = curves.unique("task")
    fig, axes = cp.figure(len(tasks), 3, panel=(4.4, 3.2))
    from matplotlib.lines import Line2D
    legend = {}
    for row_axes, task in zip(axes, tasks):
        groups = cp.group_by(curves.where(task=task), "optimizer")
        for optimizer in cp.order([key[0] for key in groups]):
            rows = sorted(groups[(optimizer,)], key=lambda r: r["step"])
            _draw_optimizer(row_axes, rows)
            legend.setdefault(optimizer, Line2D(
                [], [], color=cp.color(optimizer), marker=cp.marker(optimizer), markersize=4,
                linestyle="--" if rows[0]["role"] == "baseline" else "-"))
        for ax, (_, xlabel, log_x, title) in zip(row_axes, AXES):
            ax.set_title("%s: test loss %s" % (TASK_LABELS.get(task, task), title))
            ax.set_xlabel(xlabel or "simulated time (s): %s" % _clock(summary))
            ax.set_ylabel("test loss")
            if log_x:
                ax.set_xscale("log")
    cp.figure_legend(fig, list(legend.values()), [cp.label(o) for o in legend],
                     ncol=min(6, len(legend)))
    seeds = max(curves.values("seeds"))
    spread = "mean of %d seeds, band = min-max" % seeds if seeds > 1 else "one seed: no spread"
    fig.suptitle("Methods side by side, " + spread)
    cp.caption(fig, "Solid: methods; dashed: their baselines (the optimizer registry's). The MLP "
               "trains on 16 ranks on the sim backend, the transformer LM on 4 ranks through "
               "compopt.torch. "
               "Simulated time is a stand-in: every step is charged the modelled step (compute "
               "and messages) of %s instead of the trained model's own, without the "
               "communication on a step that sent nothing. Bytes are those rank 0 sent, of the "
               "trained model's size." % _clock(summary))
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
