#!/usr/bin/env python3
"""Tornado plot of a `--sensitivity` run (compopt profile or sweep): per analysis (scenario
and optimizer), one horizontal bar per uncertain input from the speedup with the input at the
low end of its range to the speedup at the high end, widest bar on top; a vertical line at
1.0 (break-even: right of it the compressed optimizer pays) and one at the speedup with every
input as given. Bars whose range crosses the verdict (the CSV's flips) are orange, the others
blue (Okabe-Ito, colour-blind safe); each bar's ends are marked "L" and "H".

Usage: python3 analysis/plot_tornado.py RUN_DIR
Reads RUN_DIR/sensitivity.csv (columns scenario, optimizer, baseline, input, low_value,
high_value, speedup_low, speedup_high, expected_speedup, flips, source; docs/whatif.md,
"What the answer depends on") and writes RUN_DIR/figures/tornado.png and .pdf.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "tornado"
FOLDER = ""  # sensitivity.csv lies at the top of the run directory
REQUIRED = ["sensitivity.csv"]

SCHEMA = {"scenario": "s", "optimizer": "s", "baseline": "s", "input": "s", "low_value": "s",
          "high_value": "s", "speedup_low": "f", "speedup_high": "f", "expected_speedup": "f",
          "flips": ("true", "false"), "source": "s"}

FLIPS_COLOR = cp.OKABE_ITO[1]  # vermilion
STEADY_COLOR = cp.OKABE_ITO[0]  # blue


def has_sensitivity(run_dir):
    return os.path.isfile(os.path.join(run_dir, "sensitivity.csv"))


def bars(rows):
    """The rows of one analysis, widest range first."""
    return sorted(rows, key=lambda r: -abs(r["speedup_high"] - r["speedup_low"]))


def _panel(ax, key, rows):
    scenario, optimizer, baseline = key
    ordered = bars(rows)
    for y, r in enumerate(ordered):
        left = min(r["speedup_low"], r["speedup_high"])
        width = abs(r["speedup_high"] - r["speedup_low"])
        ax.barh(y, width, left=left, height=0.6,
                color=FLIPS_COLOR if r["flips"] == "true" else STEADY_COLOR)
        for end, value in (("L", r["speedup_low"]), ("H", r["speedup_high"])):
            ax.annotate(end, (value, y), xytext=(0, 7), textcoords="offset points",
                        ha="center", fontsize=7)
    expected = ordered[0]["expected_speedup"]
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1, label="break-even (1.0x)")
    ax.axvline(expected, color="0.4", linewidth=1.5, label="as given (%.2fx)" % expected)
    ax.set_yticks(range(len(ordered)))
    ax.set_yticklabels(["%s (%s .. %s)" % (r["input"], r["low_value"], r["high_value"])
                        for r in ordered])
    ax.set_ylim(len(ordered) - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("speedup of %s over %s (step time)" % (cp.label(optimizer), cp.label(baseline)))
    ax.set_title("%s: what the speedup depends on" % scenario)
    ends = [1.0, expected] + [r[k] for r in ordered for k in ("speedup_low", "speedup_high")]
    pad = 0.08 * (max(ends) - min(ends)) or 0.05
    ax.set_xlim(min(ends) - pad, max(ends) + pad)  # bars' sticky edges would cut margins off
    cp.legend_below(ax)


def plot(run_dir):
    table = cp.read_csv(os.path.join(run_dir, "sensitivity.csv"), SCHEMA)
    groups = cp.group_by(table.rows, "scenario", "optimizer", "baseline")
    height = max(len(rows) for rows in groups.values()) * 0.4 + 1.6
    fig, axes = cp.figure(len(groups), 1, panel=(7.0, height))
    for ax, (key, rows) in zip(axes[:, 0], groups.items()):
        _panel(ax, key, rows)
    cp.caption(fig, "Each input moved alone over its documented range, the others as given "
               "(ranges and their sources: docs/whatif.md, \"What the answer depends on\"; each "
               "row's source is in sensitivity.csv). Orange: the input flips the verdict "
               "(the speedup crosses 1.0); L, H: the input at the low and the high end.")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
