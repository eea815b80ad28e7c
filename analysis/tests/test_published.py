"""The fixtures' published columns come from data/published/, the files the C++
program embeds: regenerating the fixtures gives the checked-in files byte for byte, and the
published values in them equal the data files' rows."""
import csv
import filecmp
import os
import subprocess
import sys

from conftest import FIXTURE_RUN, STUDIES, TESTS

PUBLISHED = os.path.join(TESTS, "..", "..", "data", "published")


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def test_regenerated_fixtures_equal_checked_in(tmp_path):
    subprocess.run([sys.executable, os.path.join(TESTS, "make_fixtures.py"), str(tmp_path)],
                   check=True, capture_output=True, timeout=120)
    for study in STUDIES:
        names = sorted(os.listdir(os.path.join(FIXTURE_RUN, study)))
        assert sorted(os.listdir(tmp_path / study)) == names
        match, mismatch, errors = filecmp.cmpfiles(os.path.join(FIXTURE_RUN, study),
                                                   tmp_path / study, names, shallow=False)
        assert (mismatch, errors) == ([], []), study


def test_profile_fixture_carries_table1():
    table1 = read_csv(os.path.join(PUBLISHED, "onebit_adam_profile.csv"))
    assert len(table1) == 13
    adam = [r for r in read_csv(os.path.join(FIXTURE_RUN, "profile", "profile.csv"))
            if r["optimizer"] == "adam"]
    assert len(adam) == 13
    for published, fixture in zip(table1, adam):
        assert fixture["network"] == published["network"]
        assert fixture["nodes"] == published["nodes"]
        assert float(fixture["published_allreduce_ms"]) == float(
            published["backward_allreduce_ms"])
        assert float(fixture["published_allreduce_pct"]) == float(published["allreduce_pct"])


def test_scalability_fixture_carries_birder_single_node():
    # The paper calls momentum SGD "sgdm"; compopt's CSVs use the registry's one name.
    canonical = {"sgdm": "momentum-sgd"}
    birder = {(r["workload"], canonical.get(r["optimizer"], r["optimizer"]), r["batch_per_gpu"]):
              float(r["throughput_samples_s"])
              for r in read_csv(os.path.join(PUBLISHED, "birder_single_node.csv"))}
    assert len(birder) == 9
    seen = 0
    for r in read_csv(os.path.join(FIXTURE_RUN, "scalability", "scalability.csv")):
        if r["published_throughput_samples_s"]:
            key = (r["workload"], r["optimizer"], r["batch_per_gpu"])
            assert float(r["published_throughput_samples_s"]) == birder[key]
            seen += 1
    assert seen == 6  # 3 optimizers x 2 workloads at one batch size each
