"""plot_sweep.py on a hand-made sweep.csv (2 GPU counts x 2 bandwidths x adam, 1-bit
Adam with warmup and compression stages, Birder, plus columns the script does not
know): the plotted speedups are the ones computed by hand, the figure is written
alone and through plot_all, and bad input exits 2 naming the problem."""
import pytest

import compopt_plot as cp
from conftest import run_script
from test_figures import check_pdf, check_png

HEADER = ("workload,cluster,topology,optimizer,stage,nodes,gpus_per_node,gpus,inter_node_gbit_s,"
          "inter_node_efficiency,inter_node_effective_gbit_s,batch_per_gpu,grad_accum,overlap,"
          "step_time_s,throughput_samples_s,gpu,compute_utilization,nics_per_node,speedup_baseline")

# Step time (s) by optimizer, stage and (gpus, Gbit/s); 1-bit Adam's warmup equals Adam.
ADAM = {(8, 40): 2.0, (16, 40): 2.4, (8, 160): 0.8, (16, 160): 1.0}
# The optimizer each is compared with, as compopt sweep writes it in speedup_baseline.
BASELINES = {"adam": "adam", "onebit-adam": "adam", "birder": "adam"}
STEPS = [("adam", "full_precision", ADAM),
         ("onebit-adam", "warmup", ADAM),
         ("onebit-adam", "compression", {(8, 40): 0.5, (16, 40): 0.6, (8, 160): 0.4,
                                         (16, 160): 0.5}),
         ("birder", "compression", {(8, 40): 0.4, (16, 40): 0.8, (8, 160): 0.2, (16, 160): 0.25})]
# adam / compression stage, by hand (adam itself is the line at 1, not a series).
EXPECTED = {40: {"onebit-adam": [(8, 4.0), (16, 4.0)], "birder": [(8, 5.0), (16, 3.0)]},
            160: {"onebit-adam": [(8, 2.0), (16, 2.0)], "birder": [(8, 4.0), (16, 4.0)]}}


def sweep_lines(steps=STEPS, baselines=BASELINES):
    lines = [HEADER]
    for optimizer, stage, times in steps:
        for (gpus, gbps), t in times.items():
            lines.append("bert-large-seq128,ethernet-v100-4,star,%s,%s,%d,4,%d,%d,0.5,%g,16,1,0,"
                         "%.6e,%.3f,V100-16GB,0.5,1,%s"
                         % (optimizer, stage, gpus // 4, gpus, gbps, gbps / 2, t, gpus * 16 / t,
                            baselines[optimizer]))
    return lines


@pytest.fixture
def sweep_dir(tmp_path):
    (tmp_path / "sweep.csv").write_text("\n".join(sweep_lines()) + "\n")
    return tmp_path


def assert_series(points, expected):
    """(gpus, speedup) points: the same GPU counts, speedups to rounding."""
    assert [g for g, _ in points] == [g for g, _ in expected]
    assert [s for _, s in points] == pytest.approx([s for _, s in expected])


def panel_key(gbps):
    return ("bert-large-seq128", "ethernet-v100-4", "star", "V100-16GB", 4, 1, float(gbps), 16,
            1, "0")


def test_speedups_by_hand(sweep_dir):
    import plot_sweep
    table = cp.read_csv(str(sweep_dir / "sweep.csv"), plot_sweep.SCHEMA)
    baselines, stages, panels = plot_sweep.speedups(table)
    assert baselines == BASELINES
    assert stages["onebit-adam"] == ["warmup", "compression"]
    assert list(panels) == [panel_key(40), panel_key(160)]
    for gbps in (40, 160):
        assert set(panels[panel_key(gbps)]) == set(EXPECTED[gbps])
        for optimizer, expected in EXPECTED[gbps].items():
            assert_series(panels[panel_key(gbps)][optimizer], expected)


def test_figure_draws_the_speedups(sweep_dir):
    import plot_sweep
    fig = plot_sweep.plot(str(sweep_dir))
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["40 Gbit/s", "160 Gbit/s"]
    for ax, gbps in zip(axes, (40, 160)):
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert set(lines) == {"Adam (baseline)", "1-bit Adam (compression stage)", "Birder"}
        assert list(lines["Adam (baseline)"].get_ydata()) == [1.0, 1.0]
        for name, optimizer in (("1-bit Adam (compression stage)", "onebit-adam"),
                                ("Birder", "birder")):
            points = list(zip(lines[name].get_xdata(), lines[name].get_ydata()))
            assert_series(points, EXPECTED[gbps][optimizer])
    assert "Speedup over Adam" in fig._suptitle.get_text()


def test_script_and_plot_all_write_the_figure(sweep_dir):
    result = run_script("plot_sweep.py", sweep_dir)
    assert result.returncode == 0, result.stderr
    check_png(sweep_dir / "figures" / "sweep.png")
    check_pdf(sweep_dir / "figures" / "sweep.pdf")
    result = run_script("plot_all.py", sweep_dir)
    assert result.returncode == 0, result.stderr
    assert "wrote %s" % (sweep_dir / "figures" / "sweep.png") in result.stdout
    assert "plot_all: 1 drawn, 0 skipped, 0 failed" in result.stdout


def test_each_optimizer_against_the_baseline_sweep_csv_names(tmp_path):
    import plot_sweep
    path = tmp_path / "sweep.csv"
    # The order of the rows does not matter: the baseline is named, not the first one.
    path.write_text("\n".join(sweep_lines(STEPS[3:] + STEPS[:3])) + "\n")
    _, _, panels = plot_sweep.speedups(cp.read_csv(str(path), plot_sweep.SCHEMA))
    assert_series(panels[panel_key(40)]["birder"], EXPECTED[40]["birder"])
    # Birder against 1-bit Adam (a [training] baseline would name one for all; by hand:
    # 0.5 / 0.4 and 0.6 / 0.8), 1-bit Adam against Adam.
    path.write_text("\n".join(sweep_lines(baselines=dict(BASELINES, birder="onebit-adam")))
                    + "\n")
    baselines, _, panels = plot_sweep.speedups(cp.read_csv(str(path), plot_sweep.SCHEMA))
    assert plot_sweep.baseline_names(baselines) == "Adam, 1-bit Adam"
    assert_series(panels[panel_key(40)]["birder"], [(8, 1.25), (16, 0.75)])
    assert_series(panels[panel_key(40)]["onebit-adam"], EXPECTED[40]["onebit-adam"])
    # Without the baseline's rows there is no point.
    path.write_text("\n".join(sweep_lines(STEPS[1:])) + "\n")
    _, _, panels = plot_sweep.speedups(cp.read_csv(str(path), plot_sweep.SCHEMA))
    assert panels[panel_key(40)] == {}


@pytest.mark.parametrize("edit, needle", [
    (lambda lines: [",".join(c for i, c in enumerate(line.split(",")) if i != 14)
                    for line in lines], "missing column 'step_time_s'"),
    (lambda lines: lines[:1] + [lines[1].replace(",8,40,", ",8,fast,")] + lines[2:],
     "line 2, column 'inter_node_gbit_s': 'fast' is not a number"),
    (lambda lines: lines + [lines[1]], "line 18 repeats optimizer adam, stage full_precision"),
])
def test_bad_sweep_csv_exits_2(sweep_dir, edit, needle):
    path = sweep_dir / "sweep.csv"
    path.write_text("\n".join(edit(sweep_lines())) + "\n")
    result = run_script("plot_sweep.py", sweep_dir)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and needle in result.stderr, result.stderr
    assert not (sweep_dir / "figures" / "sweep.png").exists()


def test_missing_sweep_csv_exits_2(tmp_path):
    result = run_script("plot_sweep.py", tmp_path)
    assert result.returncode == 2
    assert "%s: file not found" % (tmp_path / "sweep.csv") in result.stderr
