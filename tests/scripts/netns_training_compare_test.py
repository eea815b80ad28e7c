"""experiments/validation/netns_training_compare.py on hand-made metrics.csv files: the charges
are the medians of the Local columns, the comparison is the median step time per stage of the real
run's step_wall_s and of the simulated time_s differences, and runs that computed different
things are refused."""
import csv
import importlib.util
import pathlib

import pytest

SCRIPT = (pathlib.Path(__file__).resolve().parents[2] / "experiments" / "validation"
          / "netns_training_compare.py")
spec = importlib.util.spec_from_file_location("netns_training_compare", SCRIPT)
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

COLUMNS = ["step", "stage", "train_loss", "time_s", "step_wall_s", "compute_s", "comm_s",
           "compression_s"]


def write_run(path, rows):
    path.mkdir(parents=True)
    with open(path / "metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(dict(zip(COLUMNS, r)))


# step, stage, loss, time_s, wall, compute, comm, compression
LOCAL = [(1, "warmup", "0.5", 0.1, 0.1, 0.01, 0.02, 0.0),
         (2, "compression", "0.4", 0.2, 0.1, 0.03, 0.04, 0.002),
         (3, "compression", "0.3", 0.3, 0.1, 0.05, 0.06, 0.004)]


def test_charges_are_medians_of_the_local_columns(tmp_path):
    write_run(tmp_path / "local_x", LOCAL)
    rows = compare.read_rows(tmp_path / "local_x" / "metrics.csv")
    # compute median of 0.01, 0.03, 0.05; comm median of 0.02, 0.04, 0.06; compression
    # median over the two compression steps (0.002, 0.004).
    assert compare.charges(rows) == pytest.approx((0.03, 0.04, 0.003))


def test_compares_median_step_times_per_stage(tmp_path):
    write_run(tmp_path / "local_x", LOCAL)
    # real: step_wall_s 1.0 (warmup), 0.2 and 0.4 (compression: median 0.3)
    write_run(tmp_path / "tcp_x_100mbit", [(1, "warmup", "0.5", 9, 1.0, 0, 0, 0),
                                           (2, "compression", "0.4", 9, 0.2, 0, 0, 0),
                                           (3, "compression", "0.3", 9, 0.4, 0, 0, 0)])
    # sim: time_s 0.8, 1.1, 1.4 -> steps 0.8, 0.3, 0.3
    write_run(tmp_path / "sim_x_100mbit", [(1, "warmup", "0.5", 0.8, 5, 0, 0, 0),
                                           (2, "compression", "0.4", 1.1, 5, 0, 0, 0),
                                           (3, "compression", "0.3", 1.4, 5, 0, 0, 0)])
    rows = {r["stage"]: r for r in compare.compare(tmp_path)}
    assert float(rows["warmup"]["real_s"]) == pytest.approx(1.0)
    assert float(rows["warmup"]["sim_s"]) == pytest.approx(0.8)
    assert float(rows["warmup"]["sim_over_real_minus_1"]) == pytest.approx(-0.2)
    assert float(rows["compression"]["sim_over_real_minus_1"]) == pytest.approx(0.0)
    assert rows["compression"]["steps"] == 2


def test_runs_that_computed_different_things_are_refused(tmp_path):
    write_run(tmp_path / "local_x", LOCAL)
    write_run(tmp_path / "tcp_x_100mbit", LOCAL)
    other = [list(r) for r in LOCAL]
    other[1][2] = "0.41"  # train_loss differs at step 2
    write_run(tmp_path / "sim_x_100mbit", other)
    with pytest.raises(SystemExit, match="step 2 column train_loss"):
        compare.compare(tmp_path)
