"""Every figure `compopt reproduce` draws from the simulator studies, rendered from the
committed golden CSVs of a quick run (tests/golden/reproduce_quick/): each draws, and the
break-even and bandwidth figures show the golden numbers."""
import csv
import os
import shutil

from conftest import ANALYSIS, run_script
from test_figures import check_pdf, check_png

GOLDEN = os.path.join(os.path.dirname(ANALYSIS), "tests", "golden", "reproduce_quick")
GOLDEN_STUDIES = sorted(os.listdir(GOLDEN))


def golden_run(tmp_path):
    target = tmp_path / "run"
    shutil.copytree(GOLDEN, target)
    return target


def test_golden_has_the_simulator_studies():
    assert {"profile", "scalability", "bandwidth", "hierarchical", "break_even",
            "volume"} <= set(GOLDEN_STUDIES)


def test_plot_all_draws_every_golden_study(tmp_path):
    run = golden_run(tmp_path)
    result = run_script("plot_all.py", run)
    assert result.returncode == 0, result.stderr
    assert "%d drawn" % len(GOLDEN_STUDIES) in result.stdout
    for study in GOLDEN_STUDIES:
        check_png(run / "figures" / ("%s.png" % study))
        check_pdf(run / "figures" / ("%s.pdf" % study))


def test_golden_break_evens_are_the_dots(tmp_path):
    import plot_break_even
    fig = plot_break_even.plot(str(golden_run(tmp_path)))
    with open(os.path.join(GOLDEN, "break_even", "break_even.csv"), newline="") as f:
        found = [float(r["break_even_effective_gbit_s"]) for r in csv.DictReader(f)
                 if r["status"] == "found"]
    ax = fig.axes[0]
    dots = [ln.get_xdata()[0] for ln in ax.lines
            if ln.get_linestyle() == "None" and ln.get_marker() not in (">", "<", "|")
            and ln.get_gid() != "algorithm_switch"]
    assert sorted(dots) == sorted(found)
    assert len(ax.patches) == 2  # the two unsearched bands, no bars


def test_golden_algorithm_switch_is_marked_as_such(tmp_path):
    """Every break-even the CSV labels algorithm_switch (against NCCL's default) is a hollow
    diamond at its bandwidth with a label saying so; no other row gets one."""
    import plot_break_even
    fig = plot_break_even.plot(str(golden_run(tmp_path)))
    with open(os.path.join(GOLDEN, "break_even", "break_even.csv"), newline="") as f:
        switches = [float(r["nccl_default_break_even_effective_gbit_s"])
                    for r in csv.DictReader(f) if r["nccl_default_status"] == "algorithm_switch"]
    # The golden run has none since Birder's rows run after backward (pytorch-2022): then no
    # mark may be drawn; test_content.py draws the fixture's switch row.
    ax = fig.axes[0]
    marks = [ln for ln in ax.lines if ln.get_gid() == "algorithm_switch"]
    assert sorted(ln.get_xdata()[0] for ln in marks) == sorted(switches)
    assert all(ln.get_marker() == "D" and ln.get_fillstyle() == "none" for ln in marks)
    labels = [t.get_text() for t in ax.texts if t.get_text().startswith("algorithm switch")]
    assert labels == ["algorithm switch %.3g (NCCL default)" % v for v in switches]


def test_golden_bandwidth_axis_covers_the_break_even_search(tmp_path):
    import plot_bandwidth
    fig = plot_bandwidth.plot(str(golden_run(tmp_path)))
    with open(os.path.join(GOLDEN, "bandwidth", "bandwidth.csv"), newline="") as f:
        swept = [float(r["inter_node_effective_gbit_s"]) for r in csv.DictReader(f)]
    with open(os.path.join(GOLDEN, "break_even", "break_even.csv"), newline="") as f:
        top = max(float(r["search_hi_effective_gbit_s"]) for r in csv.DictReader(f))
    assert max(swept) == top  # the sweep reaches the search's upper end
    for ax in fig.axes:
        if ax.get_visible():
            assert ax.get_xlim()[1] >= top
