"""compopt.simulate() and compopt.sweep() with [training] phases (a run whose workload or batch
changes part-way): the same rows as `compopt profile` with the phases as --set, hours that
are each phase's steps at the step time of that phase simulated on its own, and the errors
of bad phases."""
import os
import subprocess

import pandas as pd
import pytest

import compopt

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(_REPO, "build")
_CLI = os.path.join(_BUILD, "experiments", "compopt")

_PHASES = [{"workload": "bert-large-seq128", "fraction": 0.9},
           {"workload": "bert-large-seq512", "fraction": 0.1, "batch_per_gpu": 4}]
_PHASES_SET = ('training.phases=[{workload="bert-large-seq128",fraction=0.9},'
               '{workload="bert-large-seq512",fraction=0.1,batch_per_gpu=4}]')


def _simulate(workload="bert-large-seq128", training=None, **options):
    return compopt.simulate(workload, "ethernet-v100-4", "adam", 16,
                            training=training or {"total_steps": 1000}, **options)


def test_simulate_with_phases_equals_the_cli_profile(tmp_path):
    frame = _simulate(training={"total_steps": 1000, "phases": _PHASES})
    out = tmp_path / "run"
    subprocess.run([_CLI, "profile", "--workload", "bert-large-seq128", "--cluster",
                    "ethernet-v100-4", "--gpus", "16", "--set", "training.total_steps=1000",
                    "--set", _PHASES_SET, "--out", str(out)], check=True, capture_output=True)
    pd.testing.assert_frame_equal(frame, pd.read_csv(out / "profile.csv"))
    assert frame.loc[0, "training_phases"] == (
        "bert-large-seq128:0.9 (900 steps at batch 16x1) + "
        "bert-large-seq512:0.1 (100 steps at batch 4x1)")


def test_two_phase_hours_are_the_phases_steps_at_their_own_step_times():
    two = _simulate(training={"total_steps": 1000, "phases": _PHASES})
    seq128 = _simulate()
    seq512 = _simulate("bert-large-seq512", batch_per_gpu=4)
    assert pd.isna(seq128.loc[0, "training_phases"])
    expected = 0.9 * seq128.loc[0, "time_to_train_h"] + 0.1 * seq512.loc[0, "time_to_train_h"]
    assert two.loc[0, "time_to_train_h"] == pytest.approx(expected, rel=2e-5)
    # The step rows stay the scenario's own workload's.
    assert two.loc[0, "step_time_s"] == seq128.loc[0, "step_time_s"]
    assert two.loc[0, "memory_total_gb"] == max(seq128.loc[0, "memory_total_gb"],
                                                seq512.loc[0, "memory_total_gb"])


def test_sweep_with_phases_names_them_in_every_row():
    config = {"workload": {"name": "bert-large-seq128"}, "cluster": {"preset": "ethernet-v100-4"},
              "sweep": {"optimizers": ["adam", "onebit-adam"], "gpus": 16},
              "training": {"total_steps": 1000, "warmup_fraction": 0.15, "phases": _PHASES}}
    frame = compopt.sweep(config, jobs=2)
    assert set(frame["training_phases"]) == {_simulate(
        training={"total_steps": 1000, "phases": _PHASES}).loc[0, "training_phases"]}
    adam = frame[frame["optimizer"] == "adam"]["time_to_train_h"].iloc[0]
    onebit = frame[frame["optimizer"] == "onebit-adam"]
    assert onebit["end_to_end_speedup"].iloc[0] == pytest.approx(
        adam / onebit["time_to_train_h"].iloc[0], abs=1e-4)


@pytest.mark.parametrize("phases, message", [
    ([{"workload": "bert-large-seq128", "fraction": 0.9},
      {"workload": "bert-large-seq512", "fraction": 0.2}],
     "the fractions sum to 0.9 + 0.2 = 1.1, expected 1"),
    ([{"workload": "no-such-model", "fraction": 1.0}],
     "training.phases[1].workload = 'no-such-model'"),
    ([{"workload": "bert-large-seq128", "fraction": 1.0, "steps": 1000}],
     "gives both fraction and steps"),
    ([{"workload": "bert-large-seq128", "steps": -3}], "training.phases[1].steps = -3"),
])
def test_bad_phases_raise_invalid_argument_naming_the_value(phases, message):
    with pytest.raises(compopt.InvalidArgument) as error:
        _simulate(training={"total_steps": 1000, "phases": phases})
    assert message in str(error.value)


def test_phases_need_the_runs_length():
    with pytest.raises(compopt.InvalidArgument, match="training.phases without training.total_"):
        _simulate(training={"phases": _PHASES})
