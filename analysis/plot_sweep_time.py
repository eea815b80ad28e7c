#!/usr/bin/env python3
"""Time to train of a `compopt sweep` run whose config has a [training] table: hours
against GPU count (log2 x, log y), one panel per scenario the sweep varies besides the
GPU count (as plot_sweep.py), one line per optimizer with its low..high band over the
measured inputs.

Usage: python3 analysis/plot_sweep_time.py RUN_DIR
Reads RUN_DIR/sweep.csv (the scenario columns plot_sweep.py reads plus time_to_train_h,
time_to_train_low_h, time_to_train_high_h) and writes RUN_DIR/figures/sweep_time.png and
.pdf. A sweep without a [training] table has no time to train: exit 2 saying so.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402
import plot_sweep  # noqa: E402

STUDY = "sweep_time"
FOLDER = ""
REQUIRED = ["sweep.csv"]

SCHEMA = dict(plot_sweep.SCHEMA, time_to_train_h="f?", time_to_train_low_h="f?",
              time_to_train_high_h="f?")


def has_time_to_train(run_dir):
    """Whether sweep.csv has any time to train (the sweep's config had [training])."""
    try:
        table = cp.read_csv(os.path.join(run_dir, "sweep.csv"), SCHEMA)
    except cp.CsvError:
        return False
    return any(v is not None for v in table.values("time_to_train_h"))


def _panels(table):
    """Panel key -> optimizer -> [(gpus, hours, low, high)] of the optimizer's last row
    per scenario (its steady stage; the time to train is the whole run's)."""
    gpus_at = plot_sweep.SCENARIO.index("gpus")
    last = {}
    for r in table.rows:
        if r["time_to_train_h"] is not None:
            last[(tuple(r[c] for c in plot_sweep.SCENARIO), r["optimizer"])] = r
    panels = {}
    for (key, optimizer), r in last.items():
        panel = panels.setdefault(key[:gpus_at] + key[gpus_at + 1:], {})
        panel.setdefault(optimizer, []).append(
            (r["gpus"], r["time_to_train_h"], r["time_to_train_low_h"],
             r["time_to_train_high_h"]))
    return panels


def _draw(ax, series_by_optimizer, gpus):
    for optimizer in cp.order(series_by_optimizer):
        series = sorted(series_by_optimizer[optimizer])
        c = cp.color(optimizer)
        xs = [s[0] for s in series]
        ax.plot(xs, [s[1] for s in series], color=c, marker=cp.marker(optimizer),
                markersize=4, label=cp.label(optimizer))
        if all(s[2] is not None and s[3] is not None for s in series):
            ax.fill_between(xs, [s[2] for s in series], [s[3] for s in series], color=c,
                            alpha=0.18, linewidth=0)
    cp.gpu_axis(ax, gpus)
    ax.set_yscale("log")
    cp.plain_log_ticks(ax, "y")
    ax.set_ylabel("time to train (h, log scale)")


def plot(run_dir):
    table = cp.read_csv(os.path.join(run_dir, "sweep.csv"), SCHEMA)
    panels = _panels(table)
    if not panels:
        raise cp.CsvError("%s: no time_to_train_h value (the sweep's config has no [training] "
                          "table)" % table.path)
    keys = list(panels)
    varying = {c for i, c in enumerate(plot_sweep.PANEL) if len({k[i] for k in keys}) > 1}
    ncols = min(3, len(keys))
    fig, axes = cp.figure(math.ceil(len(keys) / ncols), ncols, panel=(4.6, 3.4))
    gpus = sorted(set(table.values("gpus")))
    for ax, key in zip(axes.flat, keys):
        _draw(ax, panels[key], gpus)
        ax.set_title(plot_sweep.panel_title(key, varying), fontsize=9)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    cp.shared_legend(fig, [ax for ax in axes.flat if ax.get_visible()])
    fig.suptitle("Time to train by GPU count (simulated step time x the [training] steps)")
    cp.caption(fig, "Band: the time to train's low..high band over the measured inputs and "
               "the model's own error. "
               "Multi-stage optimizers: warmup steps at the warmup stage's step time, "
               "the rest at the steady stage's.")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
