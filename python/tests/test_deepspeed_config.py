"""DeepSpeed optimizer blocks through compopt.torch.from_deepspeed and `compopt train`
(optimizer.deepspeed): the C++ mapping builds the optimizer it names with DeepSpeed's meaning of
each key, and refuses the rest by name."""
import json
import os
import subprocess

import pytest
import torch

import compopt
import compopt.torch as ct

BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "build")
ONEBIT_ADAM = {"train_batch_size": 64, "optimizer": {"type": "OneBitAdam", "params": {
    "lr": 0.02, "betas": [0.8, 0.99], "eps": 1e-6, "weight_decay": 0.01, "freeze_step": 2,
    "cuda_aware": False, "comm_backend_name": "nccl"}}}


def _params():
    gen = torch.Generator().manual_seed(5)
    return [torch.nn.Parameter(torch.randn(4, 3, generator=gen)),
            torch.nn.Parameter(torch.randn(3, generator=gen))]


def _train(opt, params, steps=4):
    for step in range(steps):
        gen = torch.Generator().manual_seed(step)
        for p in params:
            p.grad = torch.randn(p.shape, generator=gen)
        opt.step()


def test_from_deepspeed_equals_the_constructor_with_the_same_meaning(tmp_path):
    path = tmp_path / "ds.json"
    path.write_text(json.dumps(ONEBIT_ADAM))
    a, b, c = _params(), _params(), _params()
    from_dict, from_file = ct.from_deepspeed(ONEBIT_ADAM, a), ct.from_deepspeed(path, b)
    direct = ct.OneBitAdam(c, lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.01,
                           freeze_step=2)
    assert isinstance(from_dict, ct.OneBitAdam)
    for opt, params in ((from_dict, a), (from_file, b), (direct, c)):
        _train(opt, params)
    assert from_dict.stage == "compression"
    for p, q, r in zip(a, b, c):
        assert torch.equal(p, r) and torch.equal(q, r)


def test_deepspeed_keys_show_the_mapping_and_the_ignored_keys():
    mapped = ct.deepspeed_keys({"type": "onebitlamb", "params": {
        "max_coeff": 0.3, "coeff_beta": 0.8, "factor_threshold": 0.2, "bias_correction": True}})
    assert mapped["optimizer"] == "onebit-lamb"
    assert mapped["keys"] == {"c_max": "0.3", "beta3": "0.8", "r_threshold": "0.2",
                              "freeze_step": "100000"}
    assert mapped["ignored"] == ["bias_correction"]


@pytest.mark.parametrize("config, message", [
    ({"type": "Adagrad"}, "type 'Adagrad' has no compopt equivalent"),
    ({"type": "Adam", "params": {"amsgrad": True}}, "compopt's Adam keeps no AMSGrad maximum of v"),
    ({"type": "OneBitAdam", "params": {"var_freeze_step": 3}}, "params.var_freeze_step has no"),
    ({"type": "Lamb", "params": {"betas": [0.9, 1.5]}}, "beta2"),
])
def test_refused_configs_name_the_key(config, message):
    with pytest.raises(compopt.InvalidArgument, match=message):
        ct.from_deepspeed(config, _params())


def test_refuses_other_config_kinds():
    with pytest.raises(TypeError, match="DeepSpeed config list: expected a dict or a file path"):
        ct.from_deepspeed([1], _params())
    with pytest.raises(compopt.InvalidArgument, match="DeepSpeed config '/nonexistent.json'"):
        ct.from_deepspeed("/nonexistent.json", _params())


def _train_cli(tmp_path, *sets):
    config = tmp_path / "run.toml"
    config.write_text('[run]\nsteps = 3\nranks = 2\n[task]\nname = "quadratic"\ndimension = 8\n')
    args = [os.path.join(BUILD, "experiments", "compopt"), "train", str(config),
            "--out", str(tmp_path / "run")]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_compopt_train_reads_the_deepspeed_block(tmp_path):
    path = tmp_path / "ds.json"
    path.write_text(json.dumps(ONEBIT_ADAM))
    done = _train_cli(tmp_path, f"optimizer.deepspeed={path}")
    assert done.returncode == 0, done.stderr
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    text = json.dumps(run)
    assert '"onebit-adam"' in text and '"freeze_step": "2"' in text and '"beta1": "0.8"' in text


def test_compopt_train_refuses_a_bad_block_before_any_work(tmp_path):
    path = tmp_path / "ds.json"
    path.write_text(json.dumps({"optimizer": {"type": "Adam", "params": {"amsgrad": True}}}))
    done = _train_cli(tmp_path, f"optimizer.deepspeed={path}")
    assert done.returncode == 2
    assert "compopt's Adam keeps no AMSGrad maximum of v" in done.stderr
    assert not (tmp_path / "run").exists()
    clash = _train_cli(tmp_path, f"optimizer.deepspeed={path}", "optimizer.name=adam")
    assert clash.returncode == 2 and "both set" in clash.stderr
