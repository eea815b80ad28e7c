#!/usr/bin/env python3
"""Training curves of one or several `compopt train` run directories, overlaid: training
loss (moving average), test accuracy, the variance ratio ||v_t||_1/||v_{t-Delta}||_1 of
optimizers that have one, bytes sent per rank (cumulative) and the run's clock, each
against the step, one colour per run (the optimizer's colour when the runs' optimizers
differ). A panel whose column is empty in every run says so instead of drawing nothing.

Usage: python3 analysis/plot_train.py RUN_DIR [RUN_DIR...]
Reads RUN_DIR/metrics.csv (step, stage, train_loss, test_accuracy, var_ratio_l1,
bytes_sent, time_s; other columns ignored) and RUN_DIR/run.json (optimizer, backend) and
writes RUN_DIR/figures/train.png and .pdf (of the first RUN_DIR).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "train"
FOLDER = ""  # metrics.csv lies at the top of a train run directory
REQUIRED = ["metrics.csv"]

SCHEMA = {"step": "i", "samples": "f?", "stage": "s?", "train_loss": "f?", "test_accuracy": "f?",
          "var_ratio_l1": "f?", "bytes_sent": "f?", "time_s": "f?"}
SMOOTH_STEPS = 20

# Panel: (column, y label, scale, log y).
PANELS = [("train_loss", "training loss (moving avg., %d steps)" % SMOOTH_STEPS, 1.0, True),
          ("test_accuracy", "test accuracy (%)", 100.0, False),
          ("var_ratio_l1", r"variance ratio $\Vert v_t\Vert_1 / \Vert v_{t-\Delta}\Vert_1$", 1.0,
           True),
          ("bytes_sent", "bytes sent per rank (MB, cumulative)", 1e-6, True),
          ("time_s", "time (s)", 1.0, False)]


def run_info(run_dir):
    """(optimizer, backend, time mode) of a run from its run.json; None where absent."""
    try:
        with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
            resolved = json.load(f).get("config", {}).get("resolved", {})
    except (OSError, ValueError, AttributeError):
        return None, None, None
    compute = resolved.get("compute") or {}
    return resolved.get("optimizer"), resolved.get("backend"), compute.get("mode")


def _run_colors(optimizers):
    distinct = len(set(optimizers)) == len(optimizers) and None not in optimizers
    return [cp.color(o) if distinct else cp.palette(i) for i, o in enumerate(optimizers)]


def _time_label(infos):
    backends = {b for _, b, _ in infos if b}
    if backends == {"sim"}:
        modes = {m for _, _, m in infos}
        model = " (modelled compute)" if modes == {"model"} else ""
        return "simulated time (s)%s" % model
    if backends and "sim" not in backends:
        return "wall-clock time (s)"
    return "time (s): simulated clock on the sim backend, wall clock elsewhere"


def _draw(ax, rows, column, scale, color, name):
    points = [(r["step"], r[column] * scale) for r in rows if r[column] is not None]
    if column == "train_loss" and points:
        points = list(zip([p[0] for p in points],
                          cp.moving_average([p[1] for p in points], SMOOTH_STEPS)))
    if not points:
        return False
    ax.plot([p[0] for p in points], [p[1] for p in points], color=color, label=name,
            marker="o" if len(points) <= 30 else None, markersize=3)
    return True


def plot_runs(run_dirs):
    tables = [cp.read_csv(os.path.join(d, "metrics.csv"), SCHEMA) for d in run_dirs]
    infos = [run_info(d) for d in run_dirs]
    colors = _run_colors([i[0] for i in infos])
    fig, axes = cp.figure(2, 3, panel=(4.2, 3.1))
    for (column, ylabel, scale, log), ax in zip(PANELS, axes.flat):
        drawn = False
        for run_dir, table, info, c in zip(run_dirs, tables, infos, colors):
            name = os.path.basename(os.path.normpath(run_dir))
            if info[0]:
                name += " (%s)" % cp.label(info[0])
            drawn |= _draw(ax, sorted(table.rows, key=lambda r: r["step"]), column, scale, c, name)
        ax.set_xlabel("step")
        ax.set_ylabel(_time_label(infos) if column == "time_s" else ylabel)
        if not drawn:
            ax.text(0.5, 0.5, "no %s in metrics.csv" % column, transform=ax.transAxes,
                    ha="center", va="center", color="0.4")
        elif log:
            ax.set_yscale("log")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if not handles:
        for ax in axes.flat:
            handles, labels = ax.get_legend_handles_labels()
            if handles:
                break
    cp.legend_in_slot(axes[1][2], handles, labels)
    fig.suptitle("Training curves: %s" % (", ".join(os.path.basename(os.path.normpath(d))
                                                    for d in run_dirs)))
    cp.caption(fig, "metrics.csv of each run, one row per step; bytes are the optimizer's "
               "traffic per rank (mean over ranks), cumulative from the first step; test "
               "accuracy only on evaluation steps.")
    return fig


def plot(run_dir):
    return plot_runs([run_dir])


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 0 if argv else 2
    for d in argv:
        if not os.path.isdir(d):
            sys.stderr.write("error: %s: no such run directory\n" % d)
            return 2
    code, result = cp.draw_figure(lambda: plot_runs(argv), argv[0], STUDY)
    if code == 0:
        print("\n".join("wrote %s" % path for path in result))
    else:
        sys.stderr.write(result + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
