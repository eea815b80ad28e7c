"""plot_run.py draws a run directory by the kind its run.json names: train (several
overlaid), sweep, profile (with its trace) — on small real runs under fixtures/kinds/
(two 40-step `compopt train` runs, a 3 x 3 x 2 sweep with [training], a 16-GPU profile
with --trace) — and the plotted values are the CSVs' own, recomputed here."""
import csv
import json
import os
import shutil

import numpy as np
import pytest

import compopt_plot as cp
from conftest import TESTS, run_script
from test_figures import check_png

KINDS = os.path.join(TESTS, "fixtures", "kinds")


@pytest.fixture
def kinds(tmp_path):
    target = tmp_path / "kinds"
    shutil.copytree(KINDS, target)
    return target


def csv_rows(*parts):
    with open(os.path.join(KINDS, *parts), newline="") as f:
        return list(csv.DictReader(f))


def test_each_kind_draws_its_figures(kinds):
    result = run_script("plot_run.py", kinds / "quad", kinds / "sweep", kinds / "prof")
    assert result.returncode == 0, result.stderr
    for path in ("quad/figures/train.png", "sweep/figures/sweep.png",
                 "sweep/figures/sweep_time.png", "prof/figures/profile.png",
                 "prof/figures/trace.png"):
        assert "wrote %s" % (kinds / path) in result.stdout
        check_png(kinds / path)


def test_several_train_runs_go_into_one_figure_in_out(kinds, tmp_path):
    out = tmp_path / "out"
    result = run_script("plot_run.py", "--out", out, kinds / "quad", kinds / "logi",
                        kinds / "prof/trace.json")
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(out)) == ["trace.pdf", "trace.png", "train.pdf", "train.png"]
    assert not (kinds / "quad" / "figures").exists()


def _moving_average_by_hand(values, window):
    return [np.mean(values[max(0, i - window + 1):i + 1]) for i in range(len(values))]


def test_train_curves_are_the_metrics():
    import plot_train
    fig = plot_train.plot_runs([os.path.join(KINDS, "quad"), os.path.join(KINDS, "logi")])
    loss, accuracy, ratio, sent = fig.axes[0], fig.axes[1], fig.axes[2], fig.axes[3]
    quad, logi = csv_rows("quad", "metrics.csv"), csv_rows("logi", "metrics.csv")
    names = [ln.get_label() for ln in loss.lines]
    assert names == ["quad (1-bit Adam)", "logi (Birder)"]
    np.testing.assert_allclose(loss.lines[0].get_ydata(), _moving_average_by_hand(
        [float(r["train_loss"]) for r in quad], plot_train.SMOOTH_STEPS), rtol=1e-12)
    evals = [r for r in logi if r["test_accuracy"]]
    assert len(evals) == 4
    logi_acc = [ln for ln in accuracy.lines if ln.get_label() == "logi (Birder)"][0]
    assert list(logi_acc.get_xdata()) == [int(r["step"]) for r in evals]
    np.testing.assert_allclose(logi_acc.get_ydata(), [100 * float(r["test_accuracy"])
                                                      for r in evals])
    ratios = [r for r in quad if r["var_ratio_l1"]]
    assert ratios and [ln.get_label() for ln in ratio.lines] == ["quad (1-bit Adam)"]
    np.testing.assert_allclose(ratio.lines[0].get_ydata(), [float(r["var_ratio_l1"])
                                                            for r in ratios])
    np.testing.assert_allclose(sent.lines[1].get_ydata(), [float(r["bytes_sent"]) / 1e6
                                                           for r in logi])
    assert [ln.get_color() for ln in loss.lines] == [cp.color("onebit-adam"), cp.color("birder")]
    assert fig.axes[4].get_ylabel() == "wall-clock time (s)"  # both ran on the local backend


def test_profile_breakdown_adds_up_to_the_step_time():
    import plot_profile_run
    fig = plot_profile_run.plot(os.path.join(KINDS, "prof"))
    rows = csv_rows("prof", "profile.csv")
    parts_ax = fig.axes[0]
    per_stage = len(plot_profile_run.PARTS)
    widths = [p.get_width() for p in parts_ax.patches]
    assert len(widths) == per_stage * len(rows)
    for i, r in enumerate(rows):
        mine = widths[i * per_stage:(i + 1) * per_stage]
        expected = [1e3 * float(r[c]) for c, _ in plot_profile_run.PARTS]
        np.testing.assert_allclose(mine, expected, rtol=1e-12)
        assert sum(mine) == pytest.approx(1e3 * float(r["step_time_s"]), rel=1e-6)


def test_trace_totals_match_the_profile_step_times():
    import plot_trace
    fig = plot_trace.plot(os.path.join(KINDS, "prof"))
    total_ax = fig.axes[1]
    drawn = sum(p.get_width() for p in total_ax.patches)
    # The innermost spans of rank 0's compute track tile its steps, one per stage.
    step_ms = sum(1e3 * float(r["step_time_s"]) for r in csv_rows("prof", "profile.csv"))
    assert drawn == pytest.approx(step_ms, rel=1e-3)
    with open(os.path.join(KINDS, "prof", "trace.json")) as f:
        names = {e["name"] for e in json.load(f)["traceEvents"] if e.get("ph") == "X"}
    assert {t.get_text() for t in total_ax.get_yticklabels()} <= names


def test_sweep_time_to_train_lines_are_the_csv():
    import plot_sweep_time
    fig = plot_sweep_time.plot(os.path.join(KINDS, "sweep"))
    ax = [a for a in fig.axes if a.get_title() == "10 Gbit/s"][0]
    adam = [ln for ln in ax.lines if ln.get_label() == "Adam"][0]
    rows = sorted((int(r["gpus"]), float(r["time_to_train_h"]))
                  for r in csv_rows("sweep", "sweep.csv")
                  if r["optimizer"] == "adam" and float(r["inter_node_gbit_s"]) == 10)
    assert list(adam.get_xdata()) == [g for g, _ in rows]
    np.testing.assert_allclose(adam.get_ydata(), [h for _, h in rows])


def test_bad_input_exits_2_before_drawing(kinds, tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "run.json").write_text('{"command": "comm-bench"}\n')
    cases = [(tmp_path / "missing", "no such run directory"),
             (tmp_path / "plain", "not a run directory (no run.json"),
             (tmp_path / "other", "run kind 'comm-bench' has no figures")]
    for path, message in cases:
        result = run_script("plot_run.py", kinds / "quad", path)
        assert result.returncode == 2, result.stdout
        assert message in result.stderr and str(path) in result.stderr
        assert not (kinds / "quad" / "figures").exists()  # checked before drawing


def test_plot_all_draws_a_train_run_and_fails_with_nothing_to_draw(kinds, tmp_path):
    result = run_script("plot_all.py", kinds / "logi")
    assert result.returncode == 0, result.stderr
    check_png(kinds / "logi" / "figures" / "train.png")
    assert "skipped" not in result.stdout
    (tmp_path / "run.json").write_text('{"command": "reproduce"}\n')
    result = run_script("plot_all.py", tmp_path)
    assert result.returncode == 1
    assert "no study CSV found" in result.stderr


def test_same_kind_twice_into_out_keeps_both(kinds, tmp_path):
    shutil.copytree(kinds / "prof", kinds / "prof2")
    out = tmp_path / "out"
    result = run_script("plot_run.py", "--out", out, kinds / "prof", kinds / "prof2")
    assert result.returncode == 0, result.stderr
    assert sorted(p for p in os.listdir(out) if p.endswith(".png")) == [
        "prof-profile.png", "prof-trace.png", "prof2-profile.png", "prof2-trace.png"]
