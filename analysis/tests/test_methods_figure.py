"""The figure of the `methods` study, drawn from the golden CSVs of a real quick
`compopt reproduce --only methods` run (fixtures/methods_run): every curve is the CSV's,
coloured as the shared table says, baselines dashed, bands when there are several seeds,
and the caption names the stand-in of the simulated clock."""
import csv
import os
import shutil

import pytest

from conftest import TESTS, edit_csv, run_script

METHODS_RUN = os.path.join(TESTS, "fixtures", "methods_run")
AXES = ["step", "bytes_per_rank", "sim_time_s"]


@pytest.fixture
def methods_run(tmp_path):
    target = tmp_path / "run"
    shutil.copytree(METHODS_RUN, target)
    return target


def read_rows(name):
    with open(os.path.join(METHODS_RUN, "methods", name), newline="") as f:
        return list(csv.DictReader(f))


def curve_lines(ax):
    return [line for line in ax.lines if not line.get_label().startswith("_")]


def test_script_and_plot_all_write_the_figure(methods_run):
    result = run_script("plot_methods.py", methods_run)
    assert result.returncode == 0, result.stderr
    for ext in ("png", "pdf"):
        assert (methods_run / "figures" / ("methods.%s" % ext)).stat().st_size > 0
    result = run_script("plot_all.py", methods_run)
    assert result.returncode == 0 and "1 drawn, 11 skipped, 0 failed" in result.stdout


def test_every_panel_plots_the_csv_curves_in_the_optimizer_style():
    import compopt_plot as cp
    import plot_methods
    rows = read_rows("curves.csv")
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    fig = plot_methods.plot(METHODS_RUN)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 3 * len(tasks)
    for t, task in enumerate(tasks):
        by_optimizer = {}
        for r in rows:
            if r["task"] == task:
                by_optimizer.setdefault(r["optimizer"], []).append(r)
        for a, column in enumerate(AXES):
            lines = {line.get_label(): line for line in curve_lines(axes[3 * t + a])}
            assert set(lines) == {cp.label(o) for o in by_optimizer}
            for optimizer, curve in by_optimizer.items():
                line = lines[cp.label(optimizer)]
                kept = [r for r in curve if column != "bytes_per_rank" or float(r[column]) > 0]
                assert list(line.get_xdata()) == pytest.approx([float(r[column]) for r in kept])
                assert list(line.get_ydata()) == pytest.approx(
                    [float(r["test_loss_mean"]) for r in kept])
                assert line.get_color() == cp.color(optimizer)
                dashed = curve[0]["role"] == "baseline"
                assert (line.get_linestyle() == "--") == dashed
        assert axes[3 * t + 1].get_xscale() == "log"


def test_caption_and_time_axis_name_the_stand_in():
    import plot_methods
    summary = read_rows("summary.csv")[0]
    fig = plot_methods.plot(METHODS_RUN)
    assert "GPT-1.3B" in fig.compopt_caption and summary["cluster"] in fig.compopt_caption
    assert "one seed" in fig._suptitle.get_text()
    time_axis = [ax for ax in fig.axes if ax.get_visible()][2]
    assert summary["cluster"] in time_axis.get_xlabel()


def test_several_seeds_draw_min_max_bands(methods_run):
    import plot_methods

    def three_seeds(rows):
        header = rows[0]
        seeds, lo = header.index("seeds"), header.index("test_loss_min")
        for r in rows[1:]:
            r[seeds] = "3"
            r[lo] = "%.6f" % (float(r[lo]) - 0.1)
        return rows

    edit_csv(methods_run / "methods" / "curves.csv", three_seeds)
    fig = plot_methods.plot(str(methods_run))
    ax = fig.axes[0]
    assert len(ax.collections) == len(curve_lines(ax))  # one band per optimizer
    assert "mean of 3 seeds" in fig._suptitle.get_text()


def test_a_missing_column_exits_2_naming_file_and_column(methods_run):
    edit_csv(methods_run / "methods" / "curves.csv",
             lambda rows: [[c for c, h in zip(r, rows[0]) if h != "sim_time_s"] for r in rows])
    result = run_script("plot_methods.py", methods_run)
    assert result.returncode == 2
    assert "curves.csv: missing column 'sim_time_s'" in result.stderr
