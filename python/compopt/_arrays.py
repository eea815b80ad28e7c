"""The one place that turns user arrays into the buffers the C++ bindings take, zero-copy.

A NumPy array passes as it is (the bindings check its dtype, contiguity and writability and
never copy). A CPU torch tensor passes as its ``.detach().numpy()`` view, which shares its
memory, after checking what that view cannot tell: device, dtype and contiguity. torch is never
imported here: a tensor can only exist once its user imported torch.
"""
import sys

import numpy as np

from ._compopt import InvalidArgument


def _torch_tensor(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _tensor_view(x, what, dtype):
    if x.device.type != "cpu":
        raise InvalidArgument(f"{what}: a torch tensor on device '{x.device}', expected a CPU "
                              "tensor (call .cpu())")
    if dtype is not None and str(x.dtype) != f"torch.{dtype}":
        raise InvalidArgument(f"{what}: torch tensor of dtype {x.dtype}, expected torch.{dtype}")
    if not x.is_contiguous():
        raise InvalidArgument(f"{what}: non-contiguous torch tensor (strides {x.stride()}), "
                              "expected a contiguous one (call .contiguous())")
    try:
        return x.detach().numpy()
    except TypeError as error:  # dtypes NumPy lacks (bfloat16, ...)
        raise InvalidArgument(f"{what}: torch tensor of dtype {x.dtype} has no NumPy view, "
                              "expected a NumPy-compatible dtype") from error


def as_buffer(x, what, dtype="float32"):
    """x (a NumPy array or a CPU torch tensor) as a buffer sharing its memory.

    what: the argument's name for messages; dtype: the one dtype accepted ("float32"), or None
    for the byte-level collectives, which take any. Raises compopt.InvalidArgument for a tensor
    on another device, of another dtype or not contiguous, TypeError for anything else.
    """
    if isinstance(x, np.ndarray):
        return x
    if _torch_tensor(x):
        return _tensor_view(x, what, dtype)
    expected = f"a {dtype} " if dtype else "a "
    raise TypeError(f"{what}: {type(x).__module__}.{type(x).__qualname__}, expected "
                    f"{expected}NumPy array or CPU torch tensor")


def like(x, size, dtype=None):
    """A new zeroed array of `size` elements of x's dtype (or `dtype`), of x's kind: a torch
    tensor when x is one, else a NumPy array."""
    if _torch_tensor(x):
        torch = sys.modules["torch"]
        return torch.zeros(size, dtype=getattr(torch, dtype) if dtype else x.dtype)
    return np.zeros(size, dtype=dtype or x.dtype)
