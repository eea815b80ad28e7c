"""compopt.torch state_dict()/load_state_dict(): resuming reproduces the uninterrupted run bit
for bit across the freeze point, and states that do not fit are refused by name."""
import io

import pytest
import torch

import compopt.torch as ct

SHAPES = [(5, 3), (3,), (7,)]


def _grads(step, rank=0):
    gen = torch.Generator().manual_seed(1000 * step + rank)
    return [torch.randn(s, generator=gen) for s in SHAPES]


def _params():
    gen = torch.Generator().manual_seed(3)
    return [torch.nn.Parameter(torch.randn(s, generator=gen)) for s in SHAPES]


def _steps(opt, params, first, last):
    for step in range(first, last):
        for p, g in zip(params, _grads(step)):
            p.grad = g
        opt.step()


def _round_trip(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer)


@pytest.mark.parametrize("make", [
    lambda p: ct.OneBitAdam(p, lr=0.01, freeze_step=4),
    lambda p: ct.OneBitLamb(p, lr=0.01, freeze_step=3),
    lambda p: ct.Birder(p, lr=0.01),
    lambda p: ct.OneBitAdam(p, lr=0.01, freeze_step="auto", beta2=0.9),
], ids=["onebit-adam", "onebit-lamb", "birder", "onebit-adam-auto"])
def test_resume_reproduces_the_uninterrupted_run(make):
    whole = _params()
    opt = make(whole)
    _steps(opt, whole, 0, 14)
    first = _params()
    opt_first = make(first)
    _steps(opt_first, first, 0, 5)
    saved = _round_trip({"model": [p.detach().clone() for p in first],
                         "optimizer": opt_first.state_dict()})
    resumed = [torch.nn.Parameter(t) for t in saved["model"]]
    opt_resumed = make(resumed)
    opt_resumed.load_state_dict(saved["optimizer"])
    assert opt_resumed.step_count == 5
    _steps(opt_resumed, resumed, 5, 14)
    for p, q in zip(whole, resumed):
        assert torch.equal(p, q)
    timed = ("compression_s",)  # wall-clock seconds differ between runs
    assert ({k: v for k, v in opt_resumed.metrics().items() if k not in timed}
            == {k: v for k, v in opt.metrics().items() if k not in timed})


def test_state_dict_keeps_torch_format_and_the_lr():
    opt = ct.Adam(_params(), lr=0.02)
    state = opt.state_dict()
    assert state["param_groups"][0]["lr"] == 0.02
    assert state["param_groups"][0]["params"] == [0, 1, 2]
    assert state["compopt"]["optimizer"] == "adam"
    other = ct.Adam(_params(), lr=0.05)
    other.load_state_dict(state)
    assert other.param_groups[0]["lr"] == 0.02


@pytest.mark.parametrize("make_other, message", [
    (lambda: ct.Lamb(_params()), "state_dict has optimizer 'adam', this optimizer has 'lamb'"),
    (lambda: ct.Adam([torch.nn.Parameter(torch.ones(3))]), "state_dict has layout"),
], ids=["optimizer", "layout"])
def test_refuses_a_state_that_does_not_fit(make_other, message):
    state = ct.Adam(_params()).state_dict()
    with pytest.raises(ValueError, match=message):
        make_other().load_state_dict(state)


def test_refuses_another_world_size_and_plain_torch_states():
    opt = ct.Adam(_params())
    state = opt.state_dict()
    state["compopt"]["world_size"] = 4
    with pytest.raises(ValueError, match="state_dict has world_size 4, this optimizer has 1"):
        opt.load_state_dict(state)
    with pytest.raises(ValueError, match="no 'compopt' entry"):
        opt.load_state_dict(torch.optim.Adam(_params()).state_dict())
