"""compopt.simulate(..., sensitivity=True) and compopt.sweep(..., sensitivity=True): the
sensitivity.csv of `compopt profile --sensitivity` for the same scenario (the CLI run from
$COMPOPT_BUILD_DIR), the expected speedup against two plain simulations, and the refusals."""
import os
import subprocess

import pandas as pd
import pytest

import compopt

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(_REPO, "build")
_CLI = os.path.join(_BUILD, "experiments", "compopt")


def _steady_step(frame):
    return frame["step_time_s"].iloc[-1]  # the last stage: the steady state


def test_profile_sensitivity_equals_the_cli_and_the_plain_speedup(tmp_path):
    frame = compopt.simulate("bert-large-seq128", "ethernet-v100-4", "onebit-adam", 8,
                             sensitivity=True)
    out = tmp_path / "run"
    subprocess.run([_CLI, "profile", "--optimizer", "onebit-adam", "--gpus", "8",
                    "--sensitivity", "--out", str(out)], check=True, capture_output=True)
    cli = pd.read_csv(out / "sensitivity.csv")
    pd.testing.assert_frame_equal(frame.drop(columns="scenario"), cli.drop(columns="scenario"))
    assert list(frame["input"])[:3] == ["inter-node bandwidth", "intra-node bandwidth",
                                        "compute utilisation"]
    adam = compopt.simulate("bert-large-seq128", "ethernet-v100-4", "adam", 8)
    onebit = compopt.simulate("bert-large-seq128", "ethernet-v100-4", "onebit-adam", 8)
    expected = _steady_step(adam) / _steady_step(onebit)
    assert frame["expected_speedup"].iloc[0] == pytest.approx(expected, abs=1e-4)
    buckets = frame[frame["input"] == "buckets"].iloc[0]
    adam32 = compopt.simulate("bert-large-seq128", "ethernet-v100-4", "adam", 8, buckets=32)
    onebit32 = compopt.simulate("bert-large-seq128", "ethernet-v100-4", "onebit-adam", 8,
                                buckets=32)
    assert buckets["speedup_high"] == pytest.approx(
        _steady_step(adam32) / _steady_step(onebit32), abs=1e-4)


def test_sweep_sensitivity_analyses_each_compressed_scenario():
    config = {"workload": {"name": "bert-large-seq128"}, "cluster": {"preset": "ethernet-v100-4"},
              "sweep": {"optimizers": ["adam", "onebit-adam", "birder"], "gpus": 8}}
    frame = compopt.sweep(config, jobs=2, sensitivity=True)
    assert set(frame["optimizer"]) == {"onebit-adam", "birder"}
    assert set(frame["baseline"]) == {"adam"}
    assert len(frame) == 2 * frame["input"].nunique()
    assert set(frame["flips"]) <= {True, False}


@pytest.mark.parametrize("call, message", [
    (lambda: compopt.simulate("bert-large-seq128", "ethernet-v100-4", "adam", 8,
                              sensitivity=True),
     "sensitivity=True: optimizer adam is its own baseline"),
    (lambda: compopt.sweep({"workload": {"name": "bert-large-seq128"},
                            "sweep": {"optimizers": ["onebit-adam"], "gpus": 8}},
                           sensitivity=True),
     "against adam, which sweep.optimizers lacks"),
])
def test_a_sensitivity_without_a_baseline_is_refused(call, message):
    with pytest.raises(compopt.InvalidArgument, match=message):
        call()
