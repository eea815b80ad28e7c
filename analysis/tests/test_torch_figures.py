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
    assert "2 drawn, 10 skipped, 0 failed" in result.stdout


def test_variance_figure_marks_the_detector_freeze():
    import plot_torch_variance
    freeze = int(read_rows("torch_variance", "freeze.csv")[0]["freeze_step"])
    fig = plot_torch_variance.plot(TORCH_RUN)
    marks = [line.get_xdata()[0] for ax in fig.axes for line in ax.lines
             if line.get_linestyle() == "--" and len(line.get_xdata()) == 2]
    assert marks and all(m == freeze for m in marks)


def test_convergence_figure_has_one_train_curve_per_run_coloured_by_optimizer():
    import compopt_plot as cp
    import plot_torch_convergence
    rows = read_rows("torch_convergence", "curves.csv")
    models = sorted({r["model"] for r in rows})
    fig = plot_torch_convergence.plot(TORCH_RUN)
    colours = {}
    for i, model in enumerate(models):
        runs = {r["optimizer"] for r in rows if r["model"] == model}
        # Runs are named <model>-<optimizer>[-<variant>]; each curve carries the optimizer's
        # label, and a variant its name in brackets.
        expected = set()
        for run in runs:
            name = run[len(model) + 1:]
            base = max((o for o in cp.known_optimizers() if name == o or name.startswith(o + "-")),
                       key=len)
            expected.add(cp.label(base) if base == name
                         else "%s (%s)" % (cp.label(base), name[len(base) + 1:]))
        curves = [line for line in fig.axes[2 * i].lines if not line.get_label().startswith("_")]
        assert {line.get_label() for line in curves} == expected
        for line in curves:
            assert colours.setdefault(line.get_label(), line.get_color()) == line.get_color()
