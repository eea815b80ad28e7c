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


def panel(fig, title):
    return [ax for ax in fig.axes if ax.get_title() == title][0]


def test_bandwidth_lines_are_the_csv_speedups():
    import plot_bandwidth
    fig = plot_bandwidth.plot(FIXTURE_RUN)
    ax = panel(fig, "BERT-Large")
    rows = raw_rows("bandwidth", "bandwidth.csv")
    by_label = {line.get_label(): line for line in ax.lines}
    line = by_label["1-bit LAMB vs LAMB"]
    expected = sorted((float(r["inter_node_effective_gbit_s"]), float(r["speedup"])) for r in rows
                      if r["optimizer"] == "onebit-lamb")
    assert list(line.get_xdata()) == [e[0] for e in expected]
    assert list(line.get_ydata()) == [e[1] for e in expected]
    assert line.get_color() == cp.color("onebit-lamb")  # the one colour table
    assert any(list(ln.get_ydata()) == [1.0, 1.0] for ln in ax.lines)  # the no-gain line
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # One panel per workload of the CSV, none for anything else.
    titles = {a.get_title() for a in fig.axes if a.get_visible()}
    assert titles == {"BERT-Large", "ResNet-50"}


def band_extent(collection):
    """(x, low, high) of a fill_between band: its path's upper and lower edges."""
    vertices = collection.get_paths()[0].vertices
    by_x = {}
    for x, y in vertices:
        by_x.setdefault(round(float(x), 9), []).append(float(y))
    return sorted((x, min(ys), max(ys)) for x, ys in by_x.items())


def test_bandwidth_bands_are_the_csv_low_high():
    import plot_bandwidth
    fig = plot_bandwidth.plot(FIXTURE_RUN)
    ax = panel(fig, "BERT-Large")
    bands = [c for c in ax.collections if c.get_gid() == "spread_band"]
    assert len(bands) == 2  # one per pair of the panel
    rows = [r for r in raw_rows("bandwidth", "bandwidth.csv") if r["optimizer"] == "onebit-lamb"]
    expected = sorted((round(float(r["inter_node_effective_gbit_s"]), 9),
                       float(r["speedup_low"]), float(r["speedup_high"])) for r in rows)
    extents = [band_extent(b) for b in bands]
    assert any(np.allclose(np.array(e), np.array(expected)) for e in extents)
    assert "Bands: low..high" in fig.compopt_caption


def test_scalability_bands_span_the_csv_low_high_of_the_joined_points():
    import plot_scalability
    fig = plot_scalability.plot(FIXTURE_RUN)
    rows = raw_rows("scalability", "scalability.csv")
    ax = [a for a in fig.axes if a.get_title().startswith("BERT-Large: Adam vs 1-bit Adam")][0]
    bands = [c for c in ax.collections if c.get_gid() == "spread_band"]
    assert len(bands) == 2  # Adam and 1-bit Adam
    adam = sorted((float(r["gpus"]), float(r["throughput_low_samples_s"]),
                   float(r["throughput_high_samples_s"])) for r in rows
                  if r["comparison"] == "adam_onebit_adam" and r["optimizer"] == "adam"
                  and r["nodes"] != "1")
    assert any(np.allclose(np.array(band_extent(b)), np.array(adam)) for b in bands)


def test_profile_error_bars_span_the_csv_low_high():
    import plot_profile
    fig = plot_profile.plot(FIXTURE_RUN)
    rows = [r for r in raw_rows("profile", "profile.csv") if r["network"] == "ethernet"]
    time_ax = fig.axes[0]
    spans = sorted((round(min(seg[:, 1]), 6), round(max(seg[:, 1]), 6))
                   for c in time_ax.collections for seg in c.get_segments())
    expected = sorted((round(float(r["allreduce_low_ms"]), 6),
                       round(float(r["allreduce_high_ms"]), 6))
                      for r in rows if r["optimizer"] == "adam" or r["stage"] == "compression")
    assert spans == expected


def test_bandwidth_marks_the_break_even_crossings_on_the_no_gain_line():
    import plot_bandwidth
    fig = plot_bandwidth.plot(FIXTURE_RUN)
    found = [r for r in raw_rows("break_even", "break_even.csv") if r["status"] == "found"]
    marks = []
    for ax in fig.axes:
        marks += [(ln.get_xdata()[0], ln.get_ydata()[0]) for ln in ax.lines
                  if ln.get_gid() == "break_even"]
    assert sorted(marks) == sorted((float(r["break_even_effective_gbit_s"]), 1.0) for r in found)


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


def test_convergence_error_is_the_mean_over_seeds_and_nothing_is_clipped():
    import plot_convergence
    fig = plot_convergence.plot(FIXTURE_RUN)
    error_vs_samples = fig.axes[0]
    adam = [line for line in error_vs_samples.lines if line.get_label() == "Adam"][0]
    rows = [r for r in raw_rows("convergence", "curves.csv")
            if r["optimizer"] == "adam" and r["test_accuracy"]]
    steps = sorted({int(r["step"]) for r in rows})
    expected = [100 * (1 - np.mean([float(r["test_accuracy"]) for r in rows
                                    if int(r["step"]) == s])) for s in steps]
    assert len({r["seed"] for r in rows}) == 2
    np.testing.assert_allclose(adam.get_ydata(), expected, rtol=1e-12)
    np.testing.assert_allclose(adam.get_xdata(), [s * 512 for s in steps])
    assert error_vs_samples.get_yscale() == "log"
    all_errors = [100 * (1 - float(r["test_accuracy"]))
                  for r in raw_rows("convergence", "curves.csv") if r["test_accuracy"]]
    lo, hi = error_vs_samples.get_ylim()
    assert lo <= min(all_errors) and hi >= max(all_errors)
    assert "mean of 2 seeds" in fig._suptitle.get_text()


def test_convergence_time_axis_names_the_stand_in():
    import plot_convergence
    fig = plot_convergence.plot(FIXTURE_RUN)
    label = fig.axes[1].get_xlabel()
    assert "BERT-Large" in label and "ethernet-v100-4" in label, label
    assert "BERT-Large" in fig.compopt_caption


def test_convergence_says_one_seed_and_plain_time_without_run_json(run_dir):
    import shutil
    import plot_convergence
    shutil.rmtree(run_dir / "training")
    path = run_dir / "convergence" / "curves.csv"
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    seed = header.index("seed")
    path.write_text("\n".join([lines[0]] + [ln for ln in lines[1:]
                                            if ln.split(",")[seed] == "1"]) + "\n")
    fig = plot_convergence.plot(str(run_dir))
    assert "one seed" in fig._suptitle.get_text()
    assert fig.axes[1].get_xlabel() == "simulated time (s)"


def test_profile_markers_and_bars_are_ours_and_published():
    import plot_profile
    fig = plot_profile.plot(FIXTURE_RUN)
    rows = raw_rows("profile", "profile.csv")
    eth = [r for r in rows if r["network"] == "ethernet"]
    ours = [float(r["allreduce_ms"]) for r in eth if r["optimizer"] == "adam"]
    published = [float(r["published_allreduce_ms"]) for r in eth if r["published_allreduce_ms"]]
    onebit = [float(r["allreduce_ms"]) for r in eth if r["stage"] == "compression"]
    time_ax, share_ax = fig.axes[0], fig.axes[2]
    assert not time_ax.patches  # no bars on the log axis
    by_label = {ln.get_label(): list(ln.get_ydata()) for ln in time_ax.lines}
    assert by_label["Adam (ours)"] == ours
    assert by_label["Adam (published, 1-bit Adam Table 1)"] == published
    assert by_label["1-bit Adam, compression stage (ours)"] == onebit
    assert time_ax.get_yscale() == "log" and share_ax.get_yscale() == "linear"
    heights = sorted(round(p.get_height(), 6) for p in share_ax.patches)
    expected = [float(r["allreduce_pct"]) for r in eth if r["optimizer"] == "adam"]
    expected += [float(r["published_allreduce_pct"]) for r in eth if r["published_allreduce_pct"]]
    expected += [float(r["allreduce_pct"]) for r in eth if r["stage"] == "compression"]
    assert heights == sorted(round(v, 6) for v in expected)
    assert all(p.get_y() == 0 for p in share_ax.patches)


def test_break_even_dots_with_spread_and_no_bars():
    import plot_break_even
    fig = plot_break_even.plot(FIXTURE_RUN)
    ax = fig.axes[0]
    rows = raw_rows("break_even", "break_even.csv")
    # No bar starts at the search's lower bound: the only patches are the two grey bands
    # outside the searched range.
    assert len(ax.patches) == 2
    found = [r for r in rows if r["status"] == "found"]
    dots = sorted(ln.get_xdata()[0] for ln in ax.lines
                  if ln.get_linestyle() == "None" and ln.get_marker() not in (">", "<", "|")
                  and ln.get_gid() != "algorithm_switch")
    assert dots == sorted(float(r["break_even_effective_gbit_s"]) for r in found)
    switches = [ln for ln in ax.lines if ln.get_gid() == "algorithm_switch"]
    assert [(ln.get_xdata()[0], ln.get_ydata()[0]) for ln in switches] == [
        (float(r["nccl_default_break_even_effective_gbit_s"]), y) for y, r in enumerate(rows)
        if r["nccl_default_status"] == "algorithm_switch"]
    spans = sorted((round(min(seg[:, 0]), 6), round(max(seg[:, 0]), 6))
                   for coll in ax.collections for seg in coll.get_segments())
    assert spans == sorted((round(float(r["break_even_low_effective_gbit_s"]), 6),
                            round(float(r["break_even_high_effective_gbit_s"]), 6))
                           for r in found)
    arrows = {ln.get_marker(): ln.get_xdata()[0] for ln in ax.lines if ln.get_marker() in "<>"}
    assert arrows == {">": 1000.0, "<": 0.01}
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("> 1000") for t in texts)
    assert any("slower everywhere" in t for t in texts)
    assert ax.get_xscale() == "log"


def test_scalability_never_joins_the_single_node_point():
    import plot_scalability
    fig = plot_scalability.plot(FIXTURE_RUN)
    rows = raw_rows("scalability", "scalability.csv")
    # In the fixture, one node = 8 GPUs exactly on the 8-GPU-per-node A100 cluster.
    assert {int(r["gpus"]) for r in rows if r["nodes"] == "1"} == {8}
    a100 = [ax for ax in fig.axes if "ethernet-a100-8" in ax.get_title() and
            ax.get_xscale() == "log"]
    assert len(a100) == 2
    for ax in a100:
        joined = [ln for ln in ax.lines if ln.get_linestyle() == "-"]
        alone = [ln for ln in ax.lines if ln.get_linestyle() == "None" and
                 ln.get_markerfacecolor() == "white"]
        assert joined and all(8 not in list(ln.get_xdata()) for ln in joined)
        assert sorted(list(ln.get_xdata()) for ln in alone) == [[8]] * len(joined)
    # The legend sits in the grid's spare panel, not on a data panel.
    legends = [ax for ax in fig.axes if ax.get_legend() is not None]
    assert len(legends) == 1 and not legends[0].axison


def test_hierarchical_lines_never_coincide():
    import plot_hierarchical
    fig = plot_hierarchical.plot(FIXTURE_RUN)
    for ax in fig.axes:
        curves = [tuple(np.round(ln.get_ydata(), 9)) for ln in ax.lines]
        assert len(curves) == len(set(curves)), ax.get_title()
    assert len(fig.axes) == 2 * len({r["gpus_per_node"]
                                     for r in raw_rows("hierarchical", "hierarchical.csv")})


def test_volume_bars_annotated_with_values():
    import plot_volume
    fig = plot_volume.plot(FIXTURE_RUN)
    rows = raw_rows("volume", "volume.csv")
    texts = {t.get_text() for t in fig.axes[0].texts}
    for r in rows:
        assert "%.1fx" % float(r["formula_reduction"]) in texts
        assert "%.1fx" % float(r["measured_reduction"]) in texts
