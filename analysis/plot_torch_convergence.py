#!/usr/bin/env python3
"""Convergence of the real PyTorch models per optimizer pair: one row of panels per model,
smoothed training loss and test loss against step, one line per optimizer run, a marker
where a compressed optimizer enters its compression stage.

Usage: python3 analysis/plot_torch_convergence.py RUN_DIR
Reads RUN_DIR/torch_convergence/curves.csv (model, optimizer, step, stage, train_loss,
test_loss).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "torch_convergence"
REQUIRED = ["curves.csv"]

CURVES_SCHEMA = {"model": "s", "optimizer": "s", "step": "i", "samples": "f", "stage": "s",
                 "train_loss": "f?", "test_loss": "f?", "test_accuracy": "f?", "time_s": "f"}
SMOOTH_STEPS = 20
TITLES = {"resnet": "ResNet, Fashion-MNIST", "transformer": "byte-level transformer LM"}


def _optimizer_of(run, model):
    """(optimizer, label) of a run named '<model>-<optimizer>[-<variant>]': colour and marker
    are the optimizer's, as in every other figure; a variant is named after its label."""
    name = run[len(model) + 1:] if run.startswith(model + "-") else run
    bases = [o for o in cp.known_optimizers() if name.startswith(o + "-")]
    if name in cp.known_optimizers() or not bases:
        return name, cp.label(name)
    base = max(bases, key=len)
    return base, "%s (%s)" % (cp.label(base), name[len(base) + 1:])


def _draw_model(ax_train, ax_test, rows, model):
    runs = {r["optimizer"]: _optimizer_of(r["optimizer"], model) for r in rows}
    ordered = cp.order(optimizer for optimizer, _ in runs.values())
    for run in sorted(runs, key=lambda run: (ordered.index(runs[run][0]), run)):
        optimizer, name = runs[run]
        mine = sorted((r for r in rows if r["optimizer"] == run), key=lambda r: r["step"])
        c = cp.color(optimizer)
        train = [r for r in mine if r["train_loss"] is not None]
        ax_train.plot([r["step"] for r in train],
                      cp.moving_average([r["train_loss"] for r in train], SMOOTH_STEPS),
                      color=c, label=name)
        first = next((r for r in train if r["stage"] == "compression"), None)
        if first is not None and any(r["stage"] != "compression" for r in train):
            ax_train.axvline(first["step"], color=c, linestyle=":", linewidth=1.0)
        test = [r for r in mine if r["test_loss"] is not None]
        ax_test.plot([r["step"] for r in test], [r["test_loss"] for r in test], color=c,
                     marker=cp.marker(optimizer), markersize=4, label=name)
    for ax, what in ((ax_train, "train loss (moving average)"), (ax_test, "test loss")):
        ax.set_xlabel("step")
        ax.set_ylabel(what)
        ax.set_title("%s: %s" % (TITLES.get(model, model), what))
    cp.legend_below(ax_train, ncol=2)


def plot(run_dir):
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "curves.csv"), CURVES_SCHEMA)
    models = sorted({r["model"] for r in table.rows})
    fig, axes = cp.figure(len(models), 2, panel=(5.0, 3.4))
    for i, model in enumerate(models):
        _draw_model(axes[i][0], axes[i][1], [r for r in table.rows if r["model"] == model],
                    model)
    fig.suptitle("Real PyTorch models with compopt's optimizers (4 ranks; dotted: freeze)")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
