"""The figures of the torch_variance and torch_convergence studies, drawn from a real quick
`compopt reproduce --only torch_variance,torch_convergence` run (fixtures/torch_run)."""
import csv
import os
import shutil

import pytest

from conftest import TESTS, run_script

TORCH_RUN = os.path.join(TESTS, "fixtures", "torch_run")
TORCH_STUDIES = ["torch_variance", "torch_convergence"]


@pytest.fixture
def torch_run(tmp_path):
    target = tmp_path / "run"
    shutil.copytree(TORCH_RUN, target)
    return target


def read_rows(*parts):
    with open(os.path.join(TORCH_RUN, *parts), newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("study", TORCH_STUDIES)
def test_script_writes_png_and_pdf(torch_run, study):
    result = run_script("plot_%s.py" % study, torch_run)
    assert result.returncode == 0, result.stderr
    for ext in ("png", "pdf"):
        assert (torch_run / "figures" / ("%s.%s" % (study, ext))).stat().st_size > 0


def test_plot_all_draws_both_and_skips_the_simulator_studies(torch_run):
    result = run_script("plot_all.py", torch_run)
    assert result.returncode == 0, result.stderr
    assert "2 drawn, 9 skipped, 0 failed" in result.stdout


def test_variance_figure_marks_the_detector_freeze():
    import plot_torch_variance
    freeze = int(read_rows("torch_variance", "freeze.csv")[0]["freeze_step"])
    fig = plot_torch_variance.plot(TORCH_RUN)
    marks = [line.get_xdata()[0] for ax in fig.axes for line in ax.lines
             if line.get_linestyle() == "--" and len(line.get_xdata()) == 2]
    assert marks and all(m == freeze for m in marks)


def test_convergence_figure_has_one_train_curve_per_run():
    import plot_torch_convergence
    runs = {r["optimizer"] for r in read_rows("torch_convergence", "curves.csv")}
    fig = plot_torch_convergence.plot(TORCH_RUN)
    labelled = {line.get_label() for line in fig.axes[0].lines}
    assert runs <= labelled
