"""compopt.torch.DeMo on one rank against a torch re-implementation written here from the DeMo
paper's Algorithm 1 and its reference code's chunking (a tensor of two or more dimensions as a
shape[0] x rest matrix in 2-D blocks, others 1-D; a block side = the largest divisor of the
dimension not above compression_chunk; orthonormal DCT-II built from explicit cosines in
float64; top-k by magnitude with ties to the lower index)."""
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
            decoded = self._top_k_decoded(m.double(), p.shape)
            m.copy_((m.double() - decoded).float())
            sign = torch.sign(decoded).float().reshape(p.shape)
            p.sub_(self.lr * (sign + self.weight_decay * p))

    def _top_k_decoded(self, m, shape):
        """The momentum's top-k DCT coefficients per block, decoded: a tensor of two or more
        dimensions is a shape[0] x rest matrix cut into 2-D blocks (2-D DCT), else 1 x n."""
        rows = shape[0] if len(shape) >= 2 else 1
        cols = m.numel() // rows
        cr, cc = _chunk(rows, self.chunk), _chunk(cols, self.chunk)
        dr, dc = _dct_matrix(cr), _dct_matrix(cc)
        blocks = m.reshape(rows // cr, cr, cols // cc, cc).permute(0, 2, 1, 3)
        coeff = (dr @ blocks @ dc.T).reshape(-1, cr * cc)
        k = min(self.topk, cr * cc)
        order = torch.sort(coeff.abs(), dim=1, descending=True, stable=True).indices[:, :k]
        sparse = torch.zeros_like(coeff)
        sparse.scatter_(1, order, coeff.gather(1, order).float().double())
        decoded = dr.T @ sparse.reshape(rows // cr, cols // cc, cr, cc) @ dc
        return decoded.permute(0, 2, 1, 3).reshape(-1)


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
