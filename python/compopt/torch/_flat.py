"""FlatParameters: a model's parameters and gradients as views into two flat fp32 buffers.

Every parameter's ``.data`` becomes a view into one flat float32 tensor (as apex's flat master
parameters) and every gradient a view into a second one, so the C++ optimizer steps the whole
model through two zero-copy NumPy views of them (on CUDA, through their device
pointers). Gradients that autograd allocated elsewhere
(after ``zero_grad(set_to_none=True)``) are copied in and re-pointed at the flat buffer; a
parameter without a gradient contributes zeros (as DDP does for unused parameters).

Finding those without looking at every parameter each step: the optimizer holds its gradient
views only weakly, so a view dies when its parameter's ``.grad`` is replaced or set to None
(nothing else holds it) and trips a wire; and autograd accumulates into a view in place,
which advances the flat buffer's version counter, shared by all its views. A step whose wire
is untripped and whose buffer was written since the last step takes the gradients as they lie;
any other step checks every parameter.
"""
import weakref
from itertools import cycle
from operator import attrgetter, is_

import torch

_GRAD = attrgetter("grad")
# Parameters whose data pointer gather_grads() rechecks per step, in rotation.
POINTER_CHECKS_PER_STEP = 32


def _check_parameter(index, p):
    if not isinstance(p, torch.Tensor):
        raise TypeError(f"parameter {index}: {type(p).__name__}, expected a torch.Tensor")
    if p.dtype != torch.float32:
        raise TypeError(f"parameter {index}: dtype {p.dtype}, expected torch.float32 "
                        "(compopt's optimizers step fp32 parameters)")
    if p.device.type not in ("cpu", "cuda"):
        raise ValueError(f"parameter {index}: on device '{p.device}', expected a CPU or CUDA "
                         "tensor")
    if p.is_sparse:
        raise ValueError(f"parameter {index}: sparse tensor, expected a dense one")
    if p.numel() == 0:
        raise ValueError(f"parameter {index}: has no elements, expected a non-empty tensor")


class _Tripwire:
    """Set when any gradient view it watches (through weakref callbacks) is freed."""

    def __init__(self):
        self.tripped = False

    def __call__(self, _ref):
        self.tripped = True


class FlatParameters:
    """The parameters of one param group over flat buffers (see the module doc)."""

    def __init__(self, params):
        seen = set()
        for index, p in enumerate(params):
            _check_parameter(index, p)
            if id(p) in seen:
                raise ValueError(f"parameter {index}: listed twice, expected each tensor once")
            seen.add(id(p))
        devices = sorted({str(p.device) for p in params})
        if len(devices) > 1:
            raise ValueError(f"parameters on devices {devices}, expected all on one device")
        self.device = params[0].device if params else torch.device("cpu")
        total = sum(p.numel() for p in params)
        self.params = torch.empty(total, dtype=torch.float32, device=self.device)
        self.grads = torch.zeros(total, dtype=torch.float32, device=self.device)
        self.layout = []
        self.shapes = []  # each parameter's shape (PowerSGD factors the matrices among them)
        self._params = list(params)
        self._slices = []
        offset = 0
        for index, p in enumerate(self._params):
            n = p.numel()
            self.params[offset:offset + n].copy_(p.detach().reshape(-1))
            p.data = self.params[offset:offset + n].view_as(p)
            if p.grad is not None:
                self.grads[offset:offset + n].copy_(p.grad.reshape(-1))
            self._slices.append((offset, offset + n))
            self.layout.append((f"param{index}", n))
            self.shapes.append(list(p.shape))
            offset += n
        self._tripwire = _Tripwire()
        self._grad_refs = [None] * len(self._params)
        with torch.no_grad():
            for index in range(len(self._params)):
                self._install_view(index)
        self._version_seen = self.grads._version
        self._data_ptrs = [p.data_ptr() for p in self._params]
        k = POINTER_CHECKS_PER_STEP
        self._pointer_windows = cycle([(self._params[i:i + k], self._data_ptrs[i:i + k])
                                       for i in range(0, max(len(self._params), 1), k)])
        # Zero-copy NumPy views for the CPU optimizer; CUDA buffers go by device pointer.
        on_cpu = self.device.type == "cpu"
        self.params_np = self.params.numpy() if on_cpu else None
        self.grads_np = self.grads.numpy() if on_cpu else None

    def _install_view(self, index):
        """Points parameter `index`'s .grad at its slice of the flat buffer, watched weakly."""
        p = self._params[index]
        start, end = self._slices[index]
        view = self.grads[start:end].view_as(p)
        p.grad = view
        self._grad_refs[index] = weakref.ref(view, self._tripwire)

    def gather_grads(self):
        """Brings every gradient into the flat grad buffer (a no-op for views of it).

        Checks the data pointers of the next POINTER_CHECKS_PER_STEP parameters, in rotation,
        still lie on the flat buffer (a model moved to another device or dtype moves all of
        them, so the next step refuses it; a single parameter's .data replaced by hand is
        refused within ceil(parameters / POINTER_CHECKS_PER_STEP) steps). Then, unless the
        gradients were written in place since the last step and none was replaced (module doc),
        every parameter: a gradient put elsewhere is copied in, a missing one is zeros."""
        params, data_ptrs = next(self._pointer_windows)
        if list(map(torch.Tensor.data_ptr, params)) != data_ptrs:
            self._refuse_moved()
        if not self._tripwire.tripped and self.grads._version != self._version_seen:
            self._version_seen = self.grads._version
            return
        self._repoint(zero_missing=True)

    def _repoint(self, zero_missing):
        """Every parameter's .grad back to its view: a foreign gradient copied in, a missing one
        zeroed when `zero_missing`; then the wire is re-armed."""
        views = [ref() for ref in self._grad_refs]
        if all(map(is_, map(_GRAD, self._params), views)):
            self._tripwire.tripped = False
            self._version_seen = self.grads._version
            return
        with torch.no_grad():  # a gradient of create_graph=True must not join a graph
            for index, (p, view) in enumerate(zip(self._params, views)):
                g = p.grad
                if g is view:
                    continue
                start, end = self._slices[index]
                if g is not None:
                    self.grads[start:end].copy_(g.reshape(-1))
                elif zero_missing:
                    self.grads[start:end].zero_()
                self._install_view(index)
        del views
        self._tripwire.tripped = False
        self._version_seen = self.grads._version

    def _refuse_moved(self):
        for index, (p, data_ptr) in enumerate(zip(self._params, self._data_ptrs)):
            if p.data_ptr() != data_ptr:
                raise ValueError(
                    f"parameter {index}: its .data no longer lies in the optimizer's flat buffer "
                    "(replaced or moved after the optimizer was built); build the optimizer "
                    "after moving the model")

    def zero_grads(self):
        """Zeros the flat grad buffer; gradients stay (or become again) views of it."""
        self.grads.zero_()
        if self._tripwire.tripped:
            self._repoint(zero_missing=False)
        self._version_seen = self.grads._version
