"""compopt.simulate(..., tune_baseline=True) and compopt.sweep(..., tune_baseline=True): the
frames carry what was charged (implementation, buckets_used, algorithm, compute_utilization
and its source) and the tuned-baseline columns, equal to what `compopt profile
--tune-baseline` and `compopt sweep --tune-baseline` write (the CLI from $COMPOPT_BUILD_DIR),
with hand-derived checks: a forced tree is the tree, a utilisation given in the config is the
one charged, NCCL's default baseline on 2 nodes of 10 Gbit/s is the slower ring."""
import math
import os
import subprocess

import pandas as pd
import pytest

import compopt

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(_REPO, "build")
_CLI = os.path.join(_BUILD, "experiments", "compopt")

# NCCL 2.3 (before the tree) runs the ring where the tree is faster.
_TWO_NODES = {"workload": {"name": "bert-base"},
              "cluster": {"preset": "ethernet-a100-8", "nccl_version": "2.3"},
              "sweep": {"optimizers": ["adam", "onebit-adam"], "gpus": 16}}
_TWO_NODES_TOML = """[workload]
name = "bert-base"
[cluster]
preset = "ethernet-a100-8"
nccl_version = "2.3"
[sweep]
optimizers = ["adam", "onebit-adam"]
gpus = 16
"""


def _cli_frame(tmp_path, args, csv_name):
    out = tmp_path / "run"
    subprocess.run([_CLI, *args, "--out", str(out)], check=True, capture_output=True)
    return pd.read_csv(out / csv_name)


def test_the_frame_states_what_was_charged():
    # ddp's 25 MiB buckets hold 3.3e8 fp16 gradients (6.6e8 B) in ceil(6.6e8 / 26214400) = 26.
    workload = {"preset": "bert-large-seq128", "name": "bert-330m", "parameters": 3.3e8,
                "gradient_precision": "fp16"}
    frame = compopt.simulate(workload, "infiniband-v100-8", "lamb", 128, batch_per_gpu=64)
    assert frame.loc[0, "implementation"] == "ddp"
    assert frame.loc[0, "buckets_used"] == math.ceil(6.6e8 / (25 * 2**20))
    assert frame.loc[0, "compute_utilization_source"] == "fitted"
    # The tree forced, a utilisation without per-layer overhead given: exactly what was asked.
    cluster = {"preset": "infiniband-v100-8", "allreduce_algorithm": "tree",
               "gpu": {"preset": "V100", "max_utilization": 0.3, "layer_overhead_s": 0}}
    frame = compopt.simulate(workload, cluster, "lamb", 128, batch_per_gpu=64,
                             implementation="deepspeed")
    assert frame.loc[0, "algorithm"] == "tree"
    assert frame.loc[0, "buckets_used"] == 1  # one 5e8-element bucket
    assert frame.loc[0, "compute_utilization"] == pytest.approx(0.3, abs=1e-4)
    assert frame.loc[0, "compute_utilization_source"] == "config"


def test_simulate_with_tune_baseline_equals_the_cli_profile_csv(tmp_path):
    frame = compopt.simulate("bert-base", _TWO_NODES["cluster"], "onebit-adam", 16,
                             tune_baseline=True)
    expected = _cli_frame(tmp_path, ["profile", "--workload", "bert-base", "--cluster",
                                     "ethernet-a100-8", "--set", 'cluster.nccl_version="2.3"',
                                     "--optimizer", "onebit-adam", "--gpus", "16",
                                     "--tune-baseline"], "profile.csv")
    pd.testing.assert_frame_equal(frame, expected)
    row = frame.iloc[-1]
    assert row["nccl_default_baseline_algorithm"] == "ring"
    assert row["tuned_baseline_algorithm"] == "tree" and row["nccl_default_slower"] == 1
    assert row["speedup_vs_tuned_baseline"] == pytest.approx(
        row["tuned_baseline_step_time_s"] / row["step_time_s"], rel=1e-3)
    plain = compopt.simulate("bert-base", _TWO_NODES["cluster"], "onebit-adam", 16)
    assert "tuned_baseline_step_time_s" not in plain.columns


def test_sweep_with_tune_baseline_equals_the_cli_and_the_config_key(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(_TWO_NODES_TOML)
    frame = compopt.sweep(_TWO_NODES, jobs=2, tune_baseline=True)
    expected = _cli_frame(tmp_path, ["sweep", str(path), "--tune-baseline"], "sweep.csv")
    pd.testing.assert_frame_equal(frame, expected)
    keyed = dict(_TWO_NODES, sweep=dict(_TWO_NODES["sweep"], tune_baseline=True))
    pd.testing.assert_frame_equal(compopt.sweep(keyed, jobs=2), frame)
    adam = frame[frame["optimizer"] == "adam"].iloc[0]
    # NCCL's default baseline is adam's own row; the tuned one, the tree, is faster.
    assert adam["nccl_default_baseline_step_time_s"] == pytest.approx(adam["step_time_s"],
                                                                      rel=1e-5)
    assert adam["speedup_vs_tuned_baseline"] < 1
    assert (frame["nccl_default_slower"] == 1).all()


@pytest.mark.parametrize("call, message", [
    (lambda: compopt.sweep(dict(_TWO_NODES, sweep=dict(_TWO_NODES["sweep"],
                                                       tune_baseline="yes"))),
     "sweep.tune_baseline = 'yes'"),
    (lambda: compopt.sweep(_TWO_NODES, tune_baseline="yes"), "tune_baseline='yes'"),
    (lambda: compopt.simulate("bert-base", "ethernet-a100-8", "onebit-adam", 16,
                              tune_baseline=1), "tune_baseline=1"),
    (lambda: compopt.simulate("bert-base", "ethernet-a100-8", "onebit-adam", 16,
                              tune_baseline=True, sensitivity=True),
     "tune_baseline=True with sensitivity=True"),
])
def test_bad_tune_baseline_raises_invalid_argument_naming_it(call, message):
    with pytest.raises(compopt.InvalidArgument, match=message.replace("(", r"\(")):
        call()
