#!/usr/bin/env python3
"""Convergence sample-wise and time-wise ([1BA] Fig. 2-3, [1BL] Fig. 2 in kind):
2x2 panels, test error (100 - accuracy, %, log y: nothing clipped) and smoothed
training loss against samples and against simulated time, one line per optimizer
(mean over seeds, min-max band when there are several; the title says how many), a
marker where a compressed optimizer enters its compression stage. The time axis names
the workload whose modelled step the simulated clock charged (run.stand_in in the
training runs' run.json, RUN_DIR/training/*/run.json) when there is one.

Usage: python3 analysis/plot_convergence.py RUN_DIR
Reads RUN_DIR/convergence/curves.csv (optimizer, seed, step, samples, time_s, stage,
train_loss, test_accuracy).
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "convergence"
REQUIRED = ["curves.csv"]

CURVES_SCHEMA = {"optimizer": "s", "seed": "i", "step": "i", "samples": "f", "epoch": "f?",
                 "time_s": "f", "stage": "s", "train_loss": "f?", "test_loss": "f?",
                 "test_accuracy": "f?", "bytes_sent": "f?"}
SMOOTH_STEPS = 20


def _mean_curve(rows_by_seed, column):
    """(samples, time, mean, lo, hi) over the steps every seed has a value at."""
    import numpy as np
    per_seed = []
    for rows in rows_by_seed:
        per_seed.append({r["step"]: r for r in rows if r[column] is not None})
    steps = sorted(set.intersection(*(set(s) for s in per_seed))) if per_seed else []
    if not steps:
        return None
    samples = np.array([np.mean([s[t]["samples"] for s in per_seed]) for t in steps])
    time = np.array([np.mean([s[t]["time_s"] for s in per_seed]) for t in steps])
    values = np.array([[s[t][column] for t in steps] for s in per_seed], dtype=float)
    return samples, time, values.mean(axis=0), values.min(axis=0), values.max(axis=0)


def _as_error(rows_by_seed):
    """Rows with test_error = 1 - test_accuracy (None where there is no accuracy)."""
    return [[dict(r, test_error=None if r["test_accuracy"] is None else 1.0 - r["test_accuracy"])
             for r in rows] for rows in rows_by_seed]


def _smoothed(rows_by_seed):
    smoothed = []
    for rows in rows_by_seed:
        rows = [r for r in rows if r["train_loss"] is not None]
        ma = cp.moving_average([r["train_loss"] for r in rows], SMOOTH_STEPS)
        smoothed.append([dict(r, train_loss=v) for r, v in zip(rows, ma)])
    return smoothed


def _switch(rows_by_seed):
    """Mean (samples, time) of the first compression-stage step, or None."""
    firsts = []
    for rows in rows_by_seed:
        compressed = [i for i, r in enumerate(rows) if r["stage"] == "compression"]
        if compressed and compressed[0] > 0:  # compressed from the start: no switch to mark
            firsts.append(rows[compressed[0]])
    if not firsts:
        return None
    n = len(firsts)
    return sum(r["samples"] for r in firsts) / n, sum(r["time_s"] for r in firsts) / n


def _find_key(node, key):
    """The first value of `key` anywhere in a parsed JSON document, or None."""
    if isinstance(node, dict):
        if key in node:
            return node[key]
        node = list(node.values())
    if isinstance(node, list):
        for child in node:
            found = _find_key(child, key)
            if found is not None:
                return found
    return None


def stand_in(run_dir):
    """(workload, cluster) whose modelled step the training runs' simulated clock charged,
    from their run.json; (None, None) when they ran on their own compute."""
    for path in sorted(glob.glob(os.path.join(run_dir, "training", "*", "run.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        workload = _find_key(doc, "run.stand_in") or _find_key(doc, "stand_in")
        if workload:
            return workload, _find_key(doc, "cluster")
    return None, None


def _time_label(run_dir):
    workload, cluster = stand_in(run_dir)
    if not workload:
        return "simulated time (s)"
    where = " on %s" % cluster if isinstance(cluster, str) else ""
    return "simulated time (s): %s's modelled step%s" % (cp.workload_label(workload), where)


def plot(run_dir):
    import numpy as np
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "curves.csv"), CURVES_SCHEMA)
    fig, axes = cp.figure(2, 2, panel=(5.0, 3.3))
    (ax_acc_s, ax_acc_t), (ax_loss_s, ax_loss_t) = axes
    from matplotlib.lines import Line2D
    handles, labels = [], []
    seeds_note = set()
    any_switch = False
    for optimizer in cp.order(table.unique("optimizer")):
        rows = table.where(optimizer=optimizer)
        by_seed = [sorted(v, key=lambda r: r["step"])
                   for _, v in sorted(cp.group_by(rows, "seed").items())]
        seeds_note.add(len(by_seed))
        c = cp.color(optimizer)
        handles.append(Line2D([], [], color=c, marker=cp.marker(optimizer), markersize=4))
        name = cp.label(optimizer)
        labels.append(name)
        switch = _switch(by_seed)
        curves = {"test_error": _mean_curve(_as_error(by_seed), "test_error"),
                  "train_loss": _mean_curve(_smoothed(by_seed), "train_loss")}
        for column, (ax_s, ax_t), scale in (("test_error", (ax_acc_s, ax_acc_t), 100.0),
                                            ("train_loss", (ax_loss_s, ax_loss_t), 1.0)):
            curve = curves[column]
            if curve is None:
                continue
            samples, time, mean, lo, hi = curve
            marker = cp.marker(optimizer) if column == "test_error" and len(mean) <= 40 else None
            for ax, x in ((ax_s, samples), (ax_t, time)):
                ax.plot(x, mean * scale, color=c, marker=marker, markersize=3, label=name)
                if len(by_seed) > 1:
                    ax.fill_between(x, lo * scale, hi * scale, color=c, alpha=0.15, linewidth=0)
                if switch is not None and optimizer in cp.COMPRESSED:
                    xs = switch[0] if ax is ax_s else switch[1]
                    if x[0] <= xs <= x[-1]:
                        ax.plot([xs], [np.interp(xs, x, mean) * scale], marker="D", markersize=6,
                                color=c, markeredgecolor="black", linestyle="none", zorder=6)
                        any_switch = True

    for ax in (ax_acc_s, ax_acc_t, ax_loss_s, ax_loss_t):
        if not ax.lines:
            ax.text(0.5, 0.5, "no values in the CSV", transform=ax.transAxes, ha="center",
                    va="center", color="0.4")
    for ax in (ax_acc_s, ax_acc_t):
        ax.set_ylabel("test error (%, log scale)")
    for ax in (ax_loss_s, ax_loss_t):
        ax.set_ylabel("training loss (moving avg., %d steps)" % SMOOTH_STEPS)
    for ax in (ax_acc_s, ax_acc_t, ax_loss_s, ax_loss_t):
        if ax.lines:
            ax.set_yscale("log")
            cp.plain_log_ticks(ax, "y")
    for ax in (ax_acc_s, ax_loss_s):
        ax.set_xlabel("samples (all ranks)")
        ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 3))
    for ax in (ax_acc_t, ax_loss_t):
        ax.set_xlabel(_time_label(run_dir))
    ax_acc_s.set_title("Test error vs samples")
    ax_acc_t.set_title("Test error vs simulated time")
    ax_loss_s.set_title("Training loss vs samples")
    ax_loss_t.set_title("Training loss vs simulated time")

    if any_switch:
        handles.append(Line2D([], [], marker="D", color="white", markeredgecolor="black",
                              markerfacecolor="0.6", linestyle="none", markersize=6))
        labels.append("enters compression stage")
    cp.figure_legend(fig, handles, labels, ncol=max(1, min(5, (len(labels) + 1) // 2)))
    seeds = max(seeds_note) if seeds_note else 1
    fig.suptitle("Convergence on Fashion-MNIST (MLP, 16 ranks), " +
                 ("mean of %d seeds, band = min-max" % seeds if seeds > 1
                  else "one seed: no spread shown"))
    workload, _ = stand_in(run_dir)
    if workload:
        cp.caption(fig, "The optimizers' arithmetic runs on the Fashion-MNIST MLP; the time "
                   "axis charges every step %s's modelled compute and message sizes on the "
                   "simulated cluster instead of the MLP's own (the papers' time-wise axis, "
                   "the same on every machine). Samples count the examples of all ranks."
                   % cp.workload_label(workload))
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
