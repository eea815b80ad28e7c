"""compopt.simulate() and compopt.sweep() against the CSVs `compopt profile` and `compopt sweep`
write for the same inputs (the CLI run from $COMPOPT_BUILD_DIR), and their bad-input errors."""
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import compopt

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(_REPO, "build")
_CLI = os.path.join(_BUILD, "experiments", "compopt")

_LM = {"name": "my-lm", "compute_precision": "bf16", "gradient_precision": "bf16",
       "transformer": {"layers": 4, "hidden": 512, "sequence": 256, "vocabulary": 1000}}
_LM_SETS = ["workload.name=my-lm", "workload.compute_precision=bf16",
            "workload.gradient_precision=bf16", "workload.transformer.layers=4",
            "workload.transformer.hidden=512", "workload.transformer.sequence=256",
            "workload.transformer.vocabulary=1000"]
_LM_TOML = """[workload]
name = "my-lm"
compute_precision = "bf16"
gradient_precision = "bf16"
[workload.transformer]
layers = 4
hidden = 512
sequence = 256
vocabulary = 1000
"""


def _cli_frame(tmp_path, args, csv_name):
    out = tmp_path / "run"
    subprocess.run([_CLI, *args, "--out", str(out)], check=True, capture_output=True)
    return pd.read_csv(out / csv_name)


def _sets(sets):
    return [arg for s in sets for arg in ("--set", s)]


def test_a_preset_scenario_equals_the_cli_profile_csv(tmp_path):
    frame = compopt.simulate("bert-large-seq128", "ethernet-v100-4", "onebit-adam", 16)
    expected = _cli_frame(tmp_path, ["profile", "--workload", "bert-large-seq128", "--cluster",
                                     "ethernet-v100-4", "--optimizer", "onebit-adam",
                                     "--gpus", "16"], "profile.csv")
    pd.testing.assert_frame_equal(frame, expected)
    assert list(frame["stage"]) == ["warmup", "compression"]
    # The band includes the model-error term it names: at least +-q of the step time each side.
    q = frame["band_model_error"]
    assert ((q > 0) & (q < 0.25)).all(), q
    assert (frame["step_time_low_s"] <= frame["step_time_s"] * (1 - q) + 1e-12).all()
    assert (frame["step_time_high_s"] >= frame["step_time_s"] * (1 + q) - 1e-12).all()


def test_dicts_options_and_training_equal_the_cli_flags_and_sets(tmp_path):
    frame = compopt.simulate(_LM, {"preset": "h100-ethernet-25g", "nics_per_node": 2}, "birder",
                             32, batch_per_gpu=2, overlap="off", inter_node_gbps=50,
                             training={"total_steps": 1000, "warmup_steps": 100})
    sets = _LM_SETS + ["cluster.nics_per_node=2", "training.total_steps=1000",
                       "training.warmup_steps=100"]
    expected = _cli_frame(tmp_path, ["profile", "--cluster", "h100-ethernet-25g", "--optimizer",
                                     "birder", "--gpus", "32", "--batch-per-gpu", "2",
                                     "--overlap=off", "--inter-node-gbps", "50", *_sets(sets)],
                          "profile.csv")
    pd.testing.assert_frame_equal(frame, expected)
    assert frame.loc[0, "total_steps"] == 1000 and frame.loc[0, "nics_per_node"] == 2


def test_the_implementation_keyword_equals_the_cli_flag(tmp_path):
    frame = compopt.simulate("bert-large-seq128", "ethernet-v100-4", "adam", 16, grad_accum=2,
                             implementation="deepspeed")
    expected = _cli_frame(tmp_path, ["profile", "--workload", "bert-large-seq128", "--cluster",
                                     "ethernet-v100-4", "--optimizer", "adam", "--gpus", "16",
                                     "--grad-accum", "2", "--implementation", "deepspeed-2020"],
                          "profile.csv")
    pd.testing.assert_frame_equal(frame, expected)
    # The frame names the profile (canonical), the buckets used and what was charged.
    assert frame.loc[0, "implementation"] == "deepspeed-2020"
    assert frame.loc[0, "buckets_used"] == 1 and frame.loc[0, "algorithm"] in ("ring", "tree")
    assert 0 < frame.loc[0, "compute_utilization"] < 1


def test_the_deepspeed_backends_differ_only_in_the_compressed_allreduce():
    # deepspeed-2020 (MPI backend, 1-bit Adam's) and deepspeed-2021 (NCCL backend, 1-bit LAMB's)
    # are one engine: the same warmup row, and the NCCL backend's compressed allreduce is faster
    # on a TCP cluster, whose hops pay tens of microseconds (docs/implementations.md).
    mpi = compopt.simulate("bert-base-squad", "ethernet-a100-8", "onebit-adam", 32,
                           implementation="deepspeed-2020")
    nccl = compopt.simulate("bert-base-squad", "ethernet-a100-8", "onebit-adam", 32,
                            implementation="deepspeed-2021")
    assert list(mpi["stage"]) == list(nccl["stage"]) == ["warmup", "compression"]
    assert nccl.loc[0, "step_time_s"] == pytest.approx(mpi.loc[0, "step_time_s"], rel=1e-12)
    assert nccl.loc[1, "comm_s"] < mpi.loc[1, "comm_s"]
    assert nccl.loc[1, "compress_s"] == mpi.loc[1, "compress_s"]


def test_a_workload_toml_file_equals_the_dict(tmp_path):
    path = tmp_path / "lm.toml"
    path.write_text(_LM_TOML)
    from_file = compopt.simulate(path, "ethernet-a100-8", "adam", 16)
    pd.testing.assert_frame_equal(from_file, compopt.simulate(_LM, "ethernet-a100-8", "adam", 16))
    assert from_file.loc[0, "workload"] == "my-lm"


_SWEEP = {"workload": {"name": "gpt2-small"}, "cluster": {"preset": "ethernet-a100-8"},
          "sweep": {"optimizers": ["adam", "onebit-adam"], "gpus": 16,
                    "inter_node_gbps": [10, 100]},
          "training": {"total_steps": 2000, "warmup_fraction": 0.1}}
_SWEEP_TOML = """[workload]
name = "gpt2-small"
[cluster]
preset = "ethernet-a100-8"
[sweep]
optimizers = ["adam", "onebit-adam"]
gpus = 16
inter_node_gbps = [10, 100]
[training]
total_steps = 2000
warmup_fraction = 0.1
"""


def test_sweep_of_a_dict_and_of_its_file_equal_the_cli_sweep_csv(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text(_SWEEP_TOML)
    expected = _cli_frame(tmp_path, ["sweep", str(path)], "sweep.csv")
    from_dict = compopt.sweep(_SWEEP, jobs=2)
    pd.testing.assert_frame_equal(from_dict, expected)
    pd.testing.assert_frame_equal(compopt.sweep(str(path)), expected)
    assert len(from_dict) == 6  # adam: 1 stage, onebit-adam: 2 stages, at 2 bandwidths
    speedups = from_dict.dropna(subset=["end_to_end_speedup"])
    assert set(speedups["optimizer"]) == {"adam", "onebit-adam"}
    assert set(from_dict["speedup_baseline"]) == {"adam"}  # onebit-adam's registry baseline


def test_sweep_warns_about_scenarios_that_do_not_fit_in_memory():
    config = {"workload": {"name": "gpt-1.3b"}, "cluster": {"preset": "h100-ethernet-25g"},
              "sweep": {"optimizers": "adam", "gpus": 16, "batch_per_gpu": [2, 8]}}
    with pytest.warns(UserWarning, match=r"1 scenario\(s\) do not fit in the GPU's memory"):
        frame = compopt.sweep(config)
    assert list(frame["fits_in_memory"]) == [1, 0]


def test_simulate_runs_again_in_the_same_process_with_the_same_result():
    first = compopt.simulate("gpt2-small", "dgx-a100", "adam", 16, batch_per_gpu=np.int64(4))
    pd.testing.assert_frame_equal(first, compopt.simulate("gpt2-small", "dgx-a100", "adam", 16,
                                                          batch_per_gpu=4))


@pytest.mark.parametrize("call, message", [
    (lambda: compopt.simulate("gpt2-small", "dgx-a100", micro_batch=2),
     "unknown option 'micro_batch', expected one of: batch_per_gpu"),
    (lambda: compopt.simulate("gpt2-small", "dgx-a100", batch_per_gpu="two"),
     "batch_per_gpu='two': expected an integer"),
    (lambda: compopt.simulate("gpt2-small", "dgx-a100", overlap="sometimes"), "sometimes"),
    (lambda: compopt.simulate("gpt-99", "dgx-a100"), "gpt-99"),
    (lambda: compopt.simulate({"name": "x", "parametres": 5}, "dgx-a100"),
     "unknown key 'workload.parametres'"),
    (lambda: compopt.simulate({"name": "x", "parameters": None}, "dgx-a100"),
     "workload.parameters = None: a value of type NoneType"),
    (lambda: compopt.simulate("gpt2-small", {"preset": "dgx-a100", "nodes": -1}),
     "cluster.nodes"),
    (lambda: compopt.simulate("gpt2-small", "dgx-a100", gpus=-3),
     r"gpus = -3, expected 1..1048576"),
    (lambda: compopt.simulate("missing.toml", "dgx-a100"),
     "workload file 'missing.toml': not found"),
    (lambda: compopt.simulate("gpt2-small", 5), "cluster=5: expected a preset name"),
    (lambda: compopt.simulate("gpt2-small", "dgx-a100", training={"total_stepz": 5}),
     "training.total_stepz"),
    (lambda: compopt.sweep({"sweep": {"gpus": []}}), "sweep.gpus: empty list"),
    (lambda: compopt.sweep({"swep": {}}), "unknown top-level key 'swep'"),
    (lambda: compopt.sweep("missing.toml"), "sweep config 'missing.toml': not found"),
    (lambda: compopt.sweep({"sweep": {"gpus": 8}}, jobs=-1), "jobs=-1: expected 0..512"),
])
def test_bad_input_raises_invalid_argument_naming_it(call, message):
    with pytest.raises(compopt.InvalidArgument, match=message):
        call()


def test_a_workload_file_without_the_table_is_refused(tmp_path):
    path = tmp_path / "cluster_only.toml"
    path.write_text('[cluster]\npreset = "dgx-a100"\n')
    with pytest.raises(compopt.InvalidArgument, match=r"no \[workload\] table"):
        compopt.simulate(str(path), "dgx-a100")


def test_simulate_forks_cleanly_while_a_world_holds_its_backend_thread():
    world = compopt.init()
    frame = compopt.simulate("gpt2-small", "dgx-a100", "onebit-lamb", 16)
    assert list(frame["stage"]) == ["warmup", "compression"] and world.open


def test_numpy_scalars_read_as_the_python_numbers_they_hold():
    def workload(parameters, gflops):
        return {"name": "x", "parameters": parameters, "forward_gflops_per_sample": gflops}
    pd.testing.assert_frame_equal(
        compopt.simulate(workload(np.int64(10**6), np.float32(0.5)), "dgx-a100", gpus=8),
        compopt.simulate(workload(10**6, 0.5), "dgx-a100", gpus=8))


def test_a_dict_or_list_that_contains_itself_is_refused():
    loop = {"name": "x"}
    loop["transformer"] = loop
    with pytest.raises(compopt.InvalidArgument, match="nested deeper than 32"):
        compopt.simulate(loop, "dgx-a100")
    items = []
    items.append(items)
    with pytest.raises(compopt.InvalidArgument, match="nested deeper than 32"):
        compopt.sweep({"sweep": {"gpus": items}})


def test_a_platform_file_simgrid_refuses_raises_invalid_argument(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text("<platform>not closed")
    with pytest.raises(compopt.InvalidArgument, match=f"platform file '{path}' is malformed"):
        compopt.simulate("bert-large-seq128", "ethernet-v100-4", platform=str(path))


def test_a_platform_file_simgrid_refuses_in_a_sweep_raises_invalid_argument(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text("<platform>not closed")
    config = {"workload": {"name": "bert-large-seq128"},
              "cluster": {"preset": "ethernet-v100-4", "platform": str(path)},
              "sweep": {"optimizers": "adam", "gpus": 8}}
    with pytest.raises(compopt.InvalidArgument,
                       match=rf"scenario 1 \(adam on 8 GPUs\) failed: platform file '{path}'"):
        compopt.sweep(config)
