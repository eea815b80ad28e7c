"""compopt.torch optimizers on one rank: bit-equality with the bound C++ optimizer on the
flattened model, agreement with torch.optim's own SGD/Adam/AdamW, and refused input."""
import numpy as np
import pytest
import torch

import compopt
import compopt.torch as ct

SHAPES = [(3, 4), (4,), (2, 2, 2)]
# Keys each registry optimizer needs to cross its stage switch within the test's steps.
EXTRA_KEYS = {"onebit-adam": {"freeze_step": 3}, "onebit-adam-32bit": {"freeze_step": 3},
              "onebit-lamb": {"freeze_step": 3}, "local-sgd": {"tau": 2},
              "local-momentum-sgd": {"tau": 2}, "diloco": {"inner_steps": 2},
              "streaming-diloco": {"inner_steps": 4, "fragments": 2}}


def _tensors(seed):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=gen) for shape in SHAPES]


def _grad_steps(steps, seed=7):
    return [_tensors(seed + 1000 * s) for s in range(steps)]


def _leaves(seed=1):
    return [torch.nn.Parameter(t) for t in _tensors(seed)]


def _flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors]).numpy()


@pytest.mark.parametrize("name", compopt.optimizer_names())
def test_torch_optimizer_equals_cpp_optimizer_bit_for_bit(name):
    keys = dict(EXTRA_KEYS.get(name, {}), lr=0.01, weight_decay=0.01)
    params = _leaves()
    opt = ct.Optimizer(name, params, **keys)
    flat = _flat(params).copy()
    raw = compopt.Optimizer(name, {k: str(v) for k, v in keys.items()},
                            [(f"param{i}", int(np.prod(s))) for i, s in enumerate(SHAPES)])
    for grads in _grad_steps(6):
        for p, g in zip(params, grads):
            p.grad = g.clone()
        opt.step()
        raw.step(flat, _flat(grads).copy(), compopt.init())
        np.testing.assert_array_equal(_flat(params), flat)
    step_cost = {"bytes_sent": 0, "bytes_sent_inter_node": 0}  # one rank sends nothing
    assert {k: v for k, v in opt.metrics().items() if k != "compression_s"} == dict(
        raw.metrics(), **step_cost)
    assert opt.stage == raw.stage and opt.step_count == 6


def _run_pair(ours, theirs, params_a, params_b, steps=20):
    for grads in _grad_steps(steps):
        for p, q, g in zip(params_a, params_b, grads):
            p.grad, q.grad = g.clone(), g.clone()
        ours.step()
        theirs.step()
        for p, q in zip(params_a, params_b):
            torch.testing.assert_close(p.detach(), q.detach(), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("make_ours, make_theirs", [
    (lambda p: ct.SGD(p, lr=0.1, weight_decay=0.01),
     lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.01)),
    (lambda p: ct.MomentumSGD(p, lr=0.1, momentum=0.9, form="pytorch"),
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)),
    (lambda p: ct.MomentumSGD(p, lr=0.1, momentum=0.8, form="pytorch", nesterov=True),
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.8, nesterov=True)),
    (lambda p: ct.Adam(p, lr=0.01, betas=(0.9, 0.99), eps=1e-6, bias_correction=True),
     lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.9, 0.99), eps=1e-6)),
    (lambda p: ct.AdamW(p, lr=0.01, weight_decay=0.1),
     lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1)),
    # The classes named like torch.optim's take its defaults and its L2 weight decay.
    (lambda p: ct.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01)),
    (lambda p: ct.SGD(p, lr=0.1, momentum=0.8, nesterov=True),
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.8, nesterov=True)),
    (lambda p: ct.Adam(p), lambda p: torch.optim.Adam(p)),
    (lambda p: ct.Adam(p, lr=0.01, weight_decay=0.1),
     lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.1)),
    (lambda p: ct.AdamW(p), lambda p: torch.optim.AdamW(p)),
], ids=["sgd", "momentum", "nesterov", "adam", "adamw", "sgd-momentum-l2", "sgd-nesterov",
        "adam-defaults", "adam-l2", "adamw-defaults"])
def test_baselines_match_torch_optim(make_ours, make_theirs):
    a, b = _leaves(), _leaves()
    _run_pair(make_ours(a), make_theirs(b), a, b)


def test_lr_changes_through_param_groups_follow_a_torch_scheduler():
    a, b = _leaves(), _leaves()
    ours, theirs = ct.SGD(a, lr=0.1), torch.optim.SGD(b, lr=0.1)
    schedulers = [torch.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5)
                  for o in (ours, theirs)]
    for grads in _grad_steps(7):
        for p, q, g in zip(a, b, grads):
            p.grad, q.grad = g.clone(), g.clone()
        ours.step()
        theirs.step()
        for s in schedulers:
            s.step()
    assert ours.metrics()["lr"] == pytest.approx(0.1 * 0.5 ** 3)
    for p, q in zip(a, b):
        torch.testing.assert_close(p.detach(), q.detach(), rtol=2e-6, atol=1e-7)


def test_training_loop_with_backward_matches_torch_sgd():
    torch.manual_seed(0)
    model_a = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    model_b = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    model_b.load_state_dict(model_a.state_dict())
    ours = ct.MomentumSGD(model_a.parameters(), lr=0.05, momentum=0.9, form="pytorch")
    theirs = torch.optim.SGD(model_b.parameters(), lr=0.05, momentum=0.9)
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    for step in range(6):
        for model, opt in ((model_a, ours), (model_b, theirs)):
            opt.zero_grad(set_to_none=step % 2 == 0)
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    for p, q in zip(model_a.parameters(), model_b.parameters()):
        torch.testing.assert_close(p, q, rtol=2e-6, atol=1e-7)


def test_parameters_share_the_flat_buffer_and_unused_ones_get_zero_gradients():
    params = _leaves()
    opt = ct.SGD(params, lr=0.5)
    before = [p.detach().clone() for p in params]
    params[0].grad = torch.ones(SHAPES[0])
    params[1].grad = None
    opt.step()
    torch.testing.assert_close(params[0].detach(), before[0] - 0.5, rtol=0, atol=1e-6)
    assert torch.equal(params[1].detach(), before[1])
    assert params[2].data_ptr() == opt.flat_parameters[12 + 4:].data_ptr()


def test_metrics_expose_the_freeze_of_onebit_adam():
    params = _leaves()
    opt = ct.OneBitAdam(params, lr=1e-3, freeze_step=2)
    assert opt.stage == "warmup"
    for grads in _grad_steps(3):
        for p, g in zip(params, grads):
            p.grad = g
        opt.step()
    m = opt.metrics()
    assert (opt.stage, m["step"], m["stage"]) == ("compression", 3, "compression")
    assert m["variance_norm"] > 0
