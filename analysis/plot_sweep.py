#!/usr/bin/env python3
"""Speedup over the baseline against GPU count for a `compopt sweep` run: one
panel per inter-node bandwidth (and per value of any other axis the sweep varies:
batch, accumulation, topology, ...), one line per optimizer, a line at 1 for the
baselines themselves.

Baseline and stage follow the table `compopt sweep` prints: each optimizer is compared
with the baseline sweep.csv names in its speedup_baseline column (the [training]
baseline, else the optimizer registry's: adam for 1-bit Adam and Birder, lamb for
1-bit LAMB); an optimizer that is its own baseline is the line at 1. An optimizer with
several stages (onebit-adam: warmup, compression) is drawn with its last, steady-state
stage. speedup = baseline step_time_s / optimizer step_time_s in the same scenario; a
scenario without its baseline's row has no point.

Usage: python3 analysis/plot_sweep.py RUN_DIR
Reads RUN_DIR/sweep.csv (workload, cluster, topology, optimizer, stage,
gpus_per_node, gpus, inter_node_gbit_s, batch_per_gpu, grad_accum, overlap,
step_time_s, speedup_baseline; other columns are ignored) and writes RUN_DIR/figures/sweep.png and
.pdf.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "sweep"
FOLDER = ""  # sweep.csv lies at the top of a sweep run directory, not in a study folder
REQUIRED = ["sweep.csv"]

# The columns that tell scenarios apart besides the optimizer (sweep axes and presets).
SCENARIO = ["workload", "cluster", "topology", "gpu", "gpus_per_node", "nics_per_node", "gpus",
            "inter_node_gbit_s", "batch_per_gpu", "grad_accum", "overlap"]
SCHEMA = {"workload": "s", "cluster": "s", "topology": "s", "gpu": "s", "optimizer": "s",
          "stage": "s", "gpus_per_node": "i", "nics_per_node": "i", "gpus": "i",
          "inter_node_gbit_s": "f", "batch_per_gpu": "i", "grad_accum": "i", "overlap": "s",
          "step_time_s": "f", "speedup_baseline": "s"}
# How panel titles name the scenario columns other than gpus.
_TITLES = {"workload": "%s", "cluster": "%s", "topology": "%s topology", "gpu": "%s",
           "gpus_per_node": "%s GPUs/node", "nics_per_node": "%s NICs/node",
           "inter_node_gbit_s": "%s Gbit/s",
           "batch_per_gpu": "batch %s/GPU", "grad_accum": "accum %s", "overlap": "overlap %s"}
PANEL = [c for c in SCENARIO if c != "gpus"]


def _describe(column, value):
    if column == "workload":
        value = cp.workload_label(value)
    elif column == "overlap":
        value = {"1": "on", "0": "off"}.get(value, value)
    elif isinstance(value, float):
        value = "%g" % value
    return _TITLES[column] % value


def scenarios(table):
    """Dict scenario key -> {optimizer: step time of its last stage}, in row order; the
    optimizers with their stages, in row order; and each optimizer's baseline."""
    steps, stages, baselines = {}, {}, {}
    seen = set()
    for line, r in enumerate(table.rows, start=2):
        key = tuple(r[c] for c in SCENARIO)
        if (key, r["optimizer"], r["stage"]) in seen:
            raise cp.CsvError("%s: line %d repeats optimizer %s, stage %s of a scenario: "
                              "the rows differ in a column outside %s"
                              % (table.path, line, r["optimizer"], r["stage"], ",".join(SCENARIO)))
        seen.add((key, r["optimizer"], r["stage"]))
        steps.setdefault(key, {})[r["optimizer"]] = r["step_time_s"]
        optimizer_stages = stages.setdefault(r["optimizer"], [])
        if r["stage"] not in optimizer_stages:
            optimizer_stages.append(r["stage"])
        if baselines.setdefault(r["optimizer"], r["speedup_baseline"]) != r["speedup_baseline"]:
            raise cp.CsvError("%s: line %d gives optimizer %s the speedup_baseline %s, an earlier "
                              "line %s" % (table.path, line, r["optimizer"], r["speedup_baseline"],
                                           baselines[r["optimizer"]]))
    return steps, stages, baselines


def speedups(table):
    """({optimizer: its baseline}, stages, {panel key: {optimizer: [(gpus, speedup)] by
    gpus}}), the panel key being the scenario without gpus; baselines themselves are not
    in the panels."""
    steps, stages, baselines = scenarios(table)
    gpus_at = SCENARIO.index("gpus")
    panels = {}
    for key, step_of in steps.items():
        panel = panels.setdefault(key[:gpus_at] + key[gpus_at + 1:], {})
        for optimizer, step in step_of.items():
            base = baselines[optimizer]
            if base != optimizer and step_of.get(base) is not None and step > 0:
                panel.setdefault(optimizer, []).append((key[gpus_at], step_of[base] / step))
    for panel in panels.values():
        for series in panel.values():
            series.sort()
    return baselines, stages, panels


def baseline_names(baselines):
    """The baselines' labels, in order of first appearance."""
    return ", ".join(cp.label(b) for b in dict.fromkeys(baselines.values()))


def panel_title(key, varying):
    return ", ".join(_describe(c, key[i]) for i, c in enumerate(PANEL)
                     if c in varying) or "all scenarios"


def _draw_panel(ax, panel, baselines, stages, gpus):
    names = baseline_names(baselines)
    ax.axhline(1.0, color="0.4", linestyle="--", linewidth=1, label="%s (baseline)" % names)
    for optimizer, series in panel.items():
        name = cp.label(optimizer)
        if len(stages[optimizer]) > 1:
            name += " (%s stage)" % stages[optimizer][-1]
        ax.plot([g for g, _ in series], [s for _, s in series], color=cp.color(optimizer),
                marker=cp.marker(optimizer), markersize=4, label=name)
    cp.gpu_axis(ax, gpus)
    ax.set_ylabel("speedup over %s" % names)


def plot(run_dir):
    table = cp.read_csv(os.path.join(run_dir, FOLDER, "sweep.csv"), SCHEMA)
    baselines, stages, panels = speedups(table)
    keys = list(panels)
    varying = {c for i, c in enumerate(PANEL) if len({k[i] for k in keys}) > 1}
    ncols = min(3, len(keys))
    nrows = math.ceil(len(keys) / ncols)
    fig, axes = cp.figure(nrows, ncols, panel=(4.6, 3.4))
    gpus = sorted(set(table.values("gpus")))
    for ax, key in zip(axes.flat, keys):
        _draw_panel(ax, panels[key], baselines, stages, gpus)
        ax.set_title(panel_title(key, varying), fontsize=9)
    for ax in list(axes.flat)[len(keys):]:
        ax.set_visible(False)
    cp.shared_legend(fig, [ax for ax in axes.flat if ax.get_visible()])
    fixed = [_describe(c, keys[0][i]) for i, c in enumerate(PANEL)
             if c not in varying and c in ("workload", "cluster")]
    fig.suptitle("Speedup over %s by GPU count (simulated step time%s)"
                 % (baseline_names(baselines), "; " + ", ".join(fixed) if fixed else ""))
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
