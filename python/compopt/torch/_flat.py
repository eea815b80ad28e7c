"""FlatParameters: a model's parameters and gradients as views into two flat fp32 buffers.

Every parameter's ``.data`` becomes a view into one flat float32 tensor (as apex's flat master
parameters) and every gradient a view into a second one, so the C++ optimizer steps the whole
model through two zero-copy NumPy views of them. Gradients that autograd allocated elsewhere
(after ``zero_grad(set_to_none=True)``) are copied in and re-pointed at the flat buffer; a
parameter without a gradient contributes zeros (as DDP does for unused parameters).
"""
from operator import attrgetter, is_

import torch

_GRAD = attrgetter("grad")


def _check_parameter(index, p):
    if not isinstance(p, torch.Tensor):
        raise TypeError(f"parameter {index}: {type(p).__name__}, expected a torch.Tensor")
    if p.dtype != torch.float32:
        raise TypeError(f"parameter {index}: dtype {p.dtype}, expected torch.float32 "
                        "(compopt's optimizers step fp32 parameters)")
    if p.device.type != "cpu":
        raise ValueError(f"parameter {index}: on device '{p.device}', expected a CPU tensor")
    if p.is_sparse:
        raise ValueError(f"parameter {index}: sparse tensor, expected a dense one")
    if p.numel() == 0:
        raise ValueError(f"parameter {index}: has no elements, expected a non-empty tensor")


class FlatParameters:
    """The parameters of one param group over flat buffers (see the module doc)."""

    def __init__(self, params):
        seen = set()
        for index, p in enumerate(params):
            _check_parameter(index, p)
            if id(p) in seen:
                raise ValueError(f"parameter {index}: listed twice, expected each tensor once")
            seen.add(id(p))
        total = sum(p.numel() for p in params)
        self.params = torch.empty(total, dtype=torch.float32)
        self.grads = torch.zeros(total, dtype=torch.float32)
        self.layout = []
        self._params = list(params)
        self._grad_views = []
        offset = 0
        for index, p in enumerate(self._params):
            n = p.numel()
            self.params[offset:offset + n].copy_(p.detach().reshape(-1))
            p.data = self.params[offset:offset + n].view_as(p)
            grad_view = self.grads[offset:offset + n].view_as(p)
            if p.grad is not None:
                grad_view.copy_(p.grad)
            p.grad = grad_view
            self._grad_views.append(grad_view)
            self.layout.append((f"param{index}", n))
            offset += n
        self._data_ptrs = [p.data_ptr() for p in self._params]
        self.params_np = self.params.numpy()
        self.grads_np = self.grads.numpy()

    def gather_grads(self):
        """Brings every gradient into the flat grad buffer (a no-op for views of it).

        The common case (every gradient still the view, every parameter still on the flat
        buffer) is checked with C-level map()s: about 0.2 us per tensor."""
        if list(map(torch.Tensor.data_ptr, self._params)) != self._data_ptrs:
            self._refuse_moved()
        if all(map(is_, map(_GRAD, self._params), self._grad_views)):
            return
        for p, grad_view in zip(self._params, self._grad_views):
            g = p.grad
            if g is None:
                grad_view.zero_()
            elif g is not grad_view:
                grad_view.copy_(g)
                p.grad = grad_view

    def _refuse_moved(self):
        for index, (p, data_ptr) in enumerate(zip(self._params, self._data_ptrs)):
            if p.data_ptr() != data_ptr:
                raise ValueError(
                    f"parameter {index}: its .data no longer lies in the optimizer's flat buffer "
                    "(replaced or moved after the optimizer was built); build the optimizer "
                    "after moving the model")

    def zero_grads(self):
        """Zeros the flat grad buffer; gradients stay views of it."""
        self.grads.zero_()
        for p, grad_view in zip(self._params, self._grad_views):
            if p.grad is not grad_view:
                p.grad = grad_view
