"""compopt.torch.DeMo on one rank against a torch re-implementation written here from the DeMo
paper's Algorithm 1 and its reference code's chunking (each tensor flattened; chunk = the
largest divisor of its length not above compression_chunk; orthonormal DCT-II per chunk built
from explicit cosines in float64; top-k by magnitude with ties to the lower index)."""
import math

import pytest
import torch

import compopt
import compopt.torch as ct

SHAPES = [(6, 16), (7,), (4, 5)]


def _chunk(n, cap):
    return max(c for c in range(1, n + 1) if n % c == 0 and c <= cap)


def _dct_matrix(n):
    k = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(n, dtype=torch.float64)[None, :]
    scale = torch.full((n, 1), math.sqrt(2.0 / n), dtype=torch.float64)
    scale[0, 0] = math.sqrt(1.0 / n)
    return scale * torch.cos(math.pi * (2 * j + 1) * k / (2 * n))


class ReferenceDeMo:
    """One rank of DeMo: the mean over ranks of the sent coefficients is this rank's own."""

    def __init__(self, params, lr, decay, topk, chunk, weight_decay):
        self.params, self.lr, self.decay, self.topk = params, lr, decay, topk
        self.chunk, self.weight_decay = chunk, weight_decay
        self.m = [torch.zeros(p.numel()) for p in params]

    @torch.no_grad()
    def step(self):
        for p, m in zip(self.params, self.m):
            m.mul_(self.decay).add_(p.grad.reshape(-1))
            c = _chunk(m.numel(), self.chunk)
            basis = _dct_matrix(c)
            coeff = m.double().reshape(-1, c) @ basis.T
            k = min(self.topk, c)
            order = torch.sort(coeff.abs(), dim=1, descending=True, stable=True).indices[:, :k]
            sparse = torch.zeros_like(coeff)
            sparse.scatter_(1, order, coeff.gather(1, order).float().double())
            decoded = (sparse @ basis).reshape(-1)
            m.copy_((m.double() - decoded).float())
            sign = torch.sign(decoded).float().reshape(p.shape)
            p.sub_(self.lr * (sign + self.weight_decay * p))


def _leaves(seed):
    gen = torch.Generator().manual_seed(seed)
    return [torch.nn.Parameter(torch.randn(s, generator=gen)) for s in SHAPES]


@pytest.mark.parametrize("topk, chunk", [(32, 64), (3, 8), (1, 2)])
def test_demo_matches_a_torch_reference(topk, chunk):
    ours_params, ref_params = _leaves(1), _leaves(1)
    ours = ct.DeMo(ours_params, lr=0.01, compression_decay=0.9, compression_topk=topk,
                   compression_chunk=chunk, weight_decay=0.05)
    ref = ReferenceDeMo(ref_params, lr=0.01, decay=0.9, topk=topk, chunk=chunk,
                        weight_decay=0.05)
    gen = torch.Generator().manual_seed(5)
    for _ in range(8):
        for p, q in zip(ours_params, ref_params):
            g = torch.randn(p.shape, generator=gen)
            p.grad, q.grad = g.clone(), g.clone()
        ours.step()
        ref.step()
        for p, q in zip(ours_params, ref_params):
            torch.testing.assert_close(p.detach(), q.detach(), rtol=1e-6, atol=1e-6)
    assert ours.stage == "compression"


def test_demo_refuses_keys_out_of_range():
    with pytest.raises(compopt.InvalidArgument, match="compression_chunk"):
        ct.DeMo(_leaves(1), compression_chunk=257)
    with pytest.raises(compopt.InvalidArgument, match="compression_decay"):
        ct.DeMo(_leaves(1), compression_decay=1.0)
