"""What the figures show: the shared CSV reader's typing, and the plotted data of
several figures checked against values recomputed by hand from the fixture CSVs."""
import csv

import numpy as np
import pytest

import compopt_plot as cp
from conftest import FIXTURE_RUN


def raw_rows(study, name):
    with open("%s/%s/%s" % (FIXTURE_RUN, study, name), newline="") as f:
        return list(csv.DictReader(f))


def test_read_csv_types_and_empty_cells(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("name,count,value,extra\nadam,1e3,0.5,x\nlamb,7,,\n\n")
    table = cp.read_csv(str(path), {"name": "s", "count": "i", "value": "f?"})
    assert table.columns == ["name", "count", "value", "extra"]
    assert table.rows == [{"name": "adam", "count": 1000, "value": 0.5, "extra": "x"},
                          {"name": "lamb", "count": 7, "value": None, "extra": None}]
    assert isinstance(table.rows[0]["count"], int)
    assert table.unique("name") == ["adam", "lamb"]
    assert table.where(name="lamb")[0]["count"] == 7


def test_read_csv_errors_name_file_column_and_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,x\n")
    with pytest.raises(cp.CsvError, match=r"t\.csv: line 3, column 'b': 'x' is not a number"):
        cp.read_csv(str(path), {"a": "i", "b": "f"})
    with pytest.raises(cp.CsvError, match=r"t\.csv: missing column 'c' \(header is: a,b\)"):
        cp.read_csv(str(path), {"a": "i", "c": "f"})
    with pytest.raises(cp.CsvError, match="line 3, column 'a': '3' is not one of 1, x, y"):
        cp.read_csv(str(path), {"a": ("1", "x", "y")})
    path.write_text("a,b\n")
    with pytest.raises(cp.CsvError, match="no data rows"):
        cp.read_csv(str(path), {"a": "i"})


def test_moving_average_by_hand():
    assert cp.moving_average([3.0, 1.0, 2.0, 6.0], 2) == [3.0, 2.0, 1.5, 4.0]
    assert cp.moving_average([], 5) == []


def test_colors_stable_and_distinct():
    names = ["adam", "onebit-adam", "naive-onebit-adam", "lamb", "onebit-lamb", "birder",
             "momentum-sgd"]
    assert len({cp.color(n) for n in names}) == len(names)
    assert cp.color("some-new-optimizer") == cp.color("some-new-optimizer")
    assert cp.label("onebit-lamb") == "1-bit LAMB" and cp.label("xyz") == "xyz"


def test_bandwidth_lines_are_the_csv_speedups():
    import plot_bandwidth
    fig = plot_bandwidth.plot(FIXTURE_RUN)
    ax = fig.axes[0]
    rows = raw_rows("bandwidth", "bandwidth.csv")
    by_label = {line.get_label(): line for line in ax.lines}
    line = by_label["BERT-Large: 1-bit LAMB vs LAMB"]
    expected = sorted((float(r["inter_node_effective_gbit_s"]), float(r["speedup"])) for r in rows
                      if r["optimizer"] == "onebit-lamb")
    assert list(line.get_xdata()) == [e[0] for e in expected]
    assert list(line.get_ydata()) == [e[1] for e in expected]
    assert any(lbl.startswith("no gain") for lbl in by_label)
    assert ax.get_xscale() == "log"


def test_variance_marks_each_freeze_step():
    import plot_variance
    fig = plot_variance.plot(FIXTURE_RUN)
    freeze = {r["beta2"]: r["freeze_step"] for r in raw_rows("variance", "freeze.csv")}
    expected = sorted(int(s) for s in freeze.values() if s)
    assert len(expected) == 2  # the fixture has one beta2 that never freezes
    for ax in fig.axes[:2]:
        verticals = sorted(int(line.get_xdata()[0]) for line in ax.lines
                           if line.get_linestyle() == "--" and len(line.get_xdata()) == 2)
        assert verticals == expected
    ratio_ax = fig.axes[1]
    threshold = [line for line in ratio_ax.lines
                 if line.get_linestyle() == ":" and len(line.get_ydata()) == 2]
    assert threshold and threshold[0].get_ydata()[0] == pytest.approx(0.96)
    assert fig.axes[0].get_yscale() == "log"


def test_convergence_accuracy_is_the_mean_over_seeds():
    import plot_convergence
    fig = plot_convergence.plot(FIXTURE_RUN)
    acc_vs_samples = fig.axes[0]
    adam = [line for line in acc_vs_samples.lines if line.get_label() == "Adam"][0]
    rows = [r for r in raw_rows("convergence", "curves.csv")
            if r["optimizer"] == "adam" and r["test_accuracy"]]
    steps = sorted({int(r["step"]) for r in rows})
    expected = [100 * np.mean([float(r["test_accuracy"]) for r in rows if int(r["step"]) == s])
                for s in steps]
    assert len({r["seed"] for r in rows}) == 2
    np.testing.assert_allclose(adam.get_ydata(), expected, rtol=1e-12)
    np.testing.assert_allclose(adam.get_xdata(), [s * 512 for s in steps])


def test_profile_bars_are_ours_and_published():
    import plot_profile
    fig = plot_profile.plot(FIXTURE_RUN)
    rows = raw_rows("profile", "profile.csv")
    ethernet_ms = fig.axes[0]
    heights = sorted(round(p.get_height(), 6) for p in ethernet_ms.patches)
    eth = [r for r in rows if r["network"] == "ethernet"]
    expected = [float(r["allreduce_ms"]) for r in eth if r["optimizer"] == "adam"]
    expected += [float(r["published_allreduce_ms"]) for r in eth if r["published_allreduce_ms"]]
    expected += [float(r["allreduce_ms"]) for r in eth if r["stage"] == "compression"]
    assert heights == sorted(round(v, 6) for v in expected)
    assert len(heights) == 3 * 7  # seven published Ethernet configurations, three bars each


def test_break_even_above_range_bar_reaches_search_end():
    import plot_break_even
    fig = plot_break_even.plot(FIXTURE_RUN)
    ax = fig.axes[0]
    rows = raw_rows("break_even", "break_even.csv")
    ends = sorted(round(p.get_x() + p.get_width(), 6) for p in ax.patches)
    expected = sorted([round(float(r["break_even_effective_gbit_s"]), 6) for r in rows
                       if r["status"] == "found"]
                      + [round(float(r["search_hi_effective_gbit_s"]), 6) for r in rows
                         if r["status"] == "above_range"])
    assert ends == expected
    texts = [t.get_text() for t in ax.texts]
    assert "> 1000 Gbit/s" in texts
    assert any("slower than baseline everywhere" in t for t in texts)


def test_volume_bars_annotated_with_values():
    import plot_volume
    fig = plot_volume.plot(FIXTURE_RUN)
    rows = raw_rows("volume", "volume.csv")
    texts = {t.get_text() for t in fig.axes[0].texts}
    for r in rows:
        assert "%.1fx" % float(r["formula_reduction"]) in texts
        assert "%.1fx" % float(r["measured_reduction"]) in texts
