"""compopt.torch.DiLoCo and StreamingDiLoCo on one rank against a re-implementation built from
torch.optim: AdamW inside, and an outer torch.optim.SGD(nesterov=True) per fragment whose
gradient is the drift anchor - params (with one rank, its own mean)."""
import pytest
import torch

import compopt.torch as ct

SHAPES = [(3, 4), (4,), (2, 2, 2)]  # 24 elements; two fragments are elements 0..11 and 12..23
LR, BETAS, EPS, WD = 0.02, (0.8, 0.95), 1e-8, 0.01


def _leaves():
    gen = torch.Generator().manual_seed(1)
    return [torch.nn.Parameter(torch.randn(s, generator=gen)) for s in SHAPES]


def _grads(step):
    gen = torch.Generator().manual_seed(100 + step)
    return [torch.randn(s, generator=gen) for s in SHAPES]


class TorchStreamingDiLoCo:
    """Streaming DiLoCo from torch.optim pieces: fragment p of `fragments` flat ranges (the first
    n % F one element longer) is sent at steps (p+1)*H/F + k*H and merged `delay` steps later
    with mixing `alpha`."""

    def __init__(self, params, sync_every, fragments=1, delay=0, alpha=0.0):
        self.params, self.h, self.f, self.delay, self.alpha = params, sync_every, fragments, \
            delay, alpha
        self.inner = torch.optim.AdamW(params, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD)
        flat = torch.cat([p.detach().reshape(-1) for p in params])
        n = flat.numel()
        size, longer = divmod(n, fragments)
        starts = [p * size + min(p, longer) for p in range(fragments + 1)]
        self.ranges = list(zip(starts[:-1], starts[1:]))
        self.anchors = [torch.nn.Parameter(flat[a:b].clone()) for a, b in self.ranges]
        self.outer = [torch.optim.SGD([a], lr=0.7, momentum=0.9, nesterov=True)
                      for a in self.anchors]
        self.sent = [None] * fragments
        self.t = 0

    def _sends(self, p, t):
        first = (p + 1) * self.h // self.f
        return t >= first and (t - first) % self.h == 0

    def step(self):
        self.inner.step()
        self.t += 1
        flat = torch.cat([p.detach().reshape(-1) for p in self.params])
        for p, (a, b) in enumerate(self.ranges):
            if self._sends(p, self.t):
                self.sent[p] = self.anchors[p].detach() - flat[a:b]
            if self._sends(p, self.t - self.delay):
                self.anchors[p].grad = self.sent[p].clone()
                self.outer[p].step()
                flat[a:b] = self.alpha * flat[a:b] + (1 - self.alpha) * self.anchors[p].detach()
        with torch.no_grad():
            offset = 0
            for p in self.params:
                p.copy_(flat[offset:offset + p.numel()].reshape(p.shape))
                offset += p.numel()


def _run_pair(ours, theirs, a, b, steps):
    for step in range(steps):
        for p, q, g in zip(a, b, _grads(step)):
            p.grad, q.grad = g.clone(), g.clone()
        ours.step()
        theirs.step()
        for p, q in zip(a, b):
            torch.testing.assert_close(p.detach(), q.detach(), rtol=2e-5, atol=2e-6,
                                       msg=f"step {step + 1}")


def test_diloco_equals_adamw_with_an_outer_nesterov_sgd():
    a, b = _leaves(), _leaves()
    ours = ct.DiLoCo(a, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD, sync_every=3)
    _run_pair(ours, TorchStreamingDiLoCo(b, sync_every=3), a, b, steps=10)
    assert ours.stage == "local" and ours.step_count == 10


@pytest.mark.parametrize("delay, alpha", [(0, 0.0), (1, 0.5), (3, 0.25)])
def test_streaming_diloco_staggers_fragments_and_merges_later(delay, alpha):
    a, b = _leaves(), _leaves()
    ours = ct.StreamingDiLoCo(a, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD, sync_every=4,
                              fragments=2, fragment_sync_delay=delay,
                              fragment_update_alpha=alpha, outer_bits=32)
    theirs = TorchStreamingDiLoCo(b, sync_every=4, fragments=2, delay=delay, alpha=alpha)
    _run_pair(ours, theirs, a, b, steps=13)


def test_reference_names_and_registry_keys_are_not_both_given():
    with pytest.raises(ValueError, match="'inner_steps' given twice"):
        ct.DiLoCo(_leaves(), sync_every=4, inner_steps=4)
    with pytest.raises(ValueError, match="fragments"):
        ct.StreamingDiLoCo(_leaves(), sync_every=4, fragments=3)
