"""compopt.torch.ZeroOneAdam on one rank against a re-implementation in torch written from
docs/algorithms.md ("0/1 Adam"), through every phase of its schedule, and its DeepSpeed
config mapping."""
import math

import pytest
import torch

import compopt
import compopt.torch as ct

SHAPES = [(3, 5), (6,), (2, 3, 2)]  # 33 parameters: the compressed vector is padded to 40
LR, WD, BETA1, BETA2, EPS = 0.02, 0.01, 0.9, 0.99, 1e-8
# Variance steps 1, 2, then every 2nd: 4, 6 (the interval doubles after 2 updates); compressed
# gradients at 3, 5; frozen after 6; syncs at 7, 8, 10, 12, 16 (the interval doubles every 2
# steps up to 4); local steps 9, 11, 13, 14, 15.
KEYS = dict(var_freeze_step=6, var_update_scaler=2, local_step_scaler=2, local_step_clipper=4)
VARIANCE_STEPS, SYNCS, FREEZE, STEPS = {1, 2, 4, 6}, {7, 8, 10, 12, 16}, 6, 16


class SignChannel:
    """The sign compressed allreduce of one rank: worker and server error feedback over the
    vector padded to a multiple of 8, each round trip scaled by ||y|| / sqrt(length)."""

    def __init__(self, d):
        self.d, self.padded = d, (d + 7) // 8 * 8
        self.worker = torch.zeros(self.padded, dtype=torch.float64)
        self.server = torch.zeros(self.padded, dtype=torch.float64)

    @staticmethod
    def _round_trip(y):
        scale = y.norm() / math.sqrt(y.numel())
        return torch.where(y >= 0, scale, -scale)

    def mean(self, x):
        y = torch.nn.functional.pad(x, (0, self.padded - self.d)) + self.worker
        sent = self._round_trip(y)
        self.worker = y - sent
        z = sent + self.server
        out = self._round_trip(z)
        self.server = z - out
        return out[:self.d]


def reference(x, grads):
    """x after each step of 0/1 Adam on one rank, in float64."""
    m, v = torch.zeros_like(x), torch.zeros_like(x)
    channel, anchor, lr_sum, out = SignChannel(x.numel()), None, 0.0, []
    for t, g in enumerate(grads, start=1):
        if t <= FREEZE:
            gm = g if t in VARIANCE_STEPS else channel.mean(g)
            m = BETA1 * m + (1 - BETA1) * gm
            if t in VARIANCE_STEPS:
                v = BETA2 * v + (1 - BETA2) * gm * gm
            x = x - LR * (m / (v.sqrt() + EPS) + WD * x)
            if t == FREEZE:
                anchor, channel = x.clone(), SignChannel(x.numel())
        else:
            denom = v.sqrt() + EPS
            m = BETA1 * m + (1 - BETA1) * g
            x = x - LR * (m / denom + WD * x)
            lr_sum += LR
            if t in SYNCS:
                u = channel.mean((x - anchor) * denom)
                x = anchor + u / denom
                m, anchor, lr_sum = -u / lr_sum, x.clone(), 0.0
        out.append(x.clone())
    return out


def _flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors])


def test_zero_one_adam_matches_a_torch_reimplementation():
    gen = torch.Generator().manual_seed(3)
    params = [torch.nn.Parameter(torch.randn(s, generator=gen)) for s in SHAPES]
    grads = [[torch.randn(s, generator=gen) for s in SHAPES] for _ in range(STEPS)]
    want = reference(_flat(params).double(), [_flat(g).double() for g in grads])
    opt = ct.ZeroOneAdam(params, lr=LR, betas=(BETA1, BETA2), eps=EPS, weight_decay=WD, **KEYS)
    for t, step_grads in enumerate(grads, start=1):
        for p, g in zip(params, step_grads):
            p.grad = g.clone()
        opt.step()
        torch.testing.assert_close(_flat(params).double(), want[t - 1], rtol=2e-5, atol=2e-6,
                                   msg=lambda text, t=t: f"step {t}: {text}")
    assert opt.stage == "compression"


def test_from_deepspeed_builds_zero_one_adam_with_its_keys():
    params = [torch.nn.Parameter(torch.zeros(4))]
    opt = ct.from_deepspeed({"optimizer": {"type": "ZeroOneAdam", "params": {
        "lr": 1e-3, "var_freeze_step": 50, "local_step_scaler": 100, "local_step_clipper": 8,
        "cuda_aware": False, "comm_backend_name": "nccl"}}}, params)
    assert isinstance(opt, ct.ZeroOneAdam)
    keys = ct.deepspeed_keys({"optimizer": {"type": "ZeroOneAdam",
                                            "params": {"var_update_scaler": 4}}})
    assert keys["optimizer"] == "zero-one-adam" and keys["keys"] == {"var_update_scaler": "4"}


def test_bad_schedule_key_names_the_key():
    with pytest.raises(compopt.InvalidArgument, match="local_step_clipper"):
        ct.ZeroOneAdam([torch.nn.Parameter(torch.zeros(4))], local_step_clipper=0)
