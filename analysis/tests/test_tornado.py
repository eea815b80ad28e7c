"""The tornado figure of a --sensitivity run (plot_tornado.py) from the hand-written
fixtures/tornado/sensitivity.csv: one bar per input spanning its two speedups, widest on top,
coloured by whether it flips the verdict; lines at 1.0 and at the expected speedup; drawn by
plot_run.py for a profile run directory that holds a sensitivity.csv."""
import csv
import os
import shutil

import compopt_plot as cp
import plot_tornado
from conftest import TESTS, run_script

FIXTURE = os.path.join(TESTS, "fixtures", "tornado")


def csv_rows():
    with open(os.path.join(FIXTURE, "sensitivity.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_bars_span_each_inputs_speedups_widest_first():
    fig = plot_tornado.plot(FIXTURE)
    (ax,) = fig.axes
    rows = csv_rows()
    width = {r["input"]: abs(float(r["speedup_high"]) - float(r["speedup_low"])) for r in rows}
    expected_order = sorted(width, key=lambda name: -width[name])
    labels = [t.get_text().split(" (")[0] for t in ax.get_yticklabels()]
    assert labels == expected_order  # buckets (0.34), algorithm (0.21), bandwidth, overlap
    by_input = {r["input"]: r for r in rows}
    bars = ax.patches
    assert len(bars) == len(rows)
    for name, bar in zip(labels, bars):
        r = by_input[name]
        low, high = float(r["speedup_low"]), float(r["speedup_high"])
        assert abs(bar.get_x() - min(low, high)) < 1e-12, name
        assert abs(bar.get_x() + bar.get_width() - max(low, high)) < 1e-12, name
        flips = r["flips"] == "true"
        colour = plot_tornado.FLIPS_COLOR if flips else plot_tornado.STEADY_COLOR
        assert bar.get_facecolor()[:3] == cp.matplotlib.colors.to_rgb(colour), name
    lines = sorted(line.get_xdata()[0] for line in ax.get_lines())
    assert lines == [1.0, 1.11]
    assert "docs/whatif.md" in fig.compopt_caption


def test_script_writes_the_figure(tmp_path):
    shutil.copy(os.path.join(FIXTURE, "sensitivity.csv"), tmp_path)
    result = run_script("plot_tornado.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "figures" / "tornado.png").stat().st_size > 0


def test_plot_run_draws_it_for_a_profile_with_sensitivity(tmp_path):
    prof = tmp_path / "prof"
    shutil.copytree(os.path.join(TESTS, "fixtures", "kinds", "prof"), prof)
    shutil.copy(os.path.join(FIXTURE, "sensitivity.csv"), prof)
    result = run_script("plot_run.py", prof)
    assert result.returncode == 0, result.stderr
    for name in ("profile.png", "trace.png", "tornado.png"):
        assert (prof / "figures" / name).is_file(), name


def test_bad_flips_cell_is_refused(tmp_path):
    text = open(os.path.join(FIXTURE, "sensitivity.csv")).read().replace(",false,", ",maybe,", 1)
    (tmp_path / "sensitivity.csv").write_text(text)
    result = run_script("plot_tornado.py", tmp_path)
    assert result.returncode == 2
    assert "column 'flips': 'maybe' is not one of true, false" in result.stderr
