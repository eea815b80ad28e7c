"""The optimizers on CUDA tensors: checks in front of ``_compopt.DeviceOptimizer``.

``_compopt.DeviceOptimizer`` (python/src/bind_device_optimizer.cc) runs the GPU optimizer of
real_backend/cuda_kernels/device_optimizer.h on raw device pointers. This module is how Python
code reaches it: ``device_optimizer(name, hyper_params, layout, device)`` builds one (refused with
``InvalidArgument`` by a build without CUDA), ``step_cuda(optimizer, params, grads, world)`` checks
two flat torch tensors (CUDA, float32, contiguous, on the optimizer's device, the layout's length)
and steps them. Nothing is computed here: the update is the C++ one.
"""
from . import _compopt
from ._compopt import InvalidArgument


def has_cuda():
    """True when this build of compopt holds the CUDA kernels (nvcc was found at build time)."""
    return _compopt.has_cuda


def device_optimizer(name, hyper_params, layout, device=-1):
    """A ``_compopt.DeviceOptimizer`` on CUDA device ``device`` (-1: from ``$LOCAL_RANK``).

    Raises InvalidArgument when this build has no CUDA or the configuration is refused (the
    same texts as ``compopt.Optimizer``), ``_compopt.CudaError`` when no usable GPU exists.
    """
    if not _compopt.has_cuda:
        raise InvalidArgument(
            f"optimizer '{name}' on CUDA tensors: this build of compopt has no CUDA (nvcc was not "
            f"found when it was configured; see docs/python_gpu.md); move the "
            f"parameters to the CPU or rebuild with -DCOMPOPT_CUDA=ON")
    return _compopt.DeviceOptimizer(name, hyper_params, layout, device)


def cuda_pointer(tensor, what, device):
    """tensor.data_ptr() of a contiguous float32 torch tensor on CUDA device ``device``."""
    import torch

    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{what}: expected a torch.Tensor, got {type(tensor).__name__}")
    problems = [
        (not tensor.is_cuda, f"is on {tensor.device}, expected cuda:{device}"),
        (tensor.is_cuda and tensor.device.index != device,
         f"is on {tensor.device}, but the optimizer runs on cuda:{device}"),
        (tensor.dtype != torch.float32, f"has dtype {tensor.dtype}, expected torch.float32"),
        (not tensor.is_contiguous(), "is not contiguous (call .contiguous() first)"),
    ]
    for failed, message in problems:
        if failed:
            raise InvalidArgument(f"{what} {message}")
    return tensor.data_ptr()


def step_cuda(optimizer, params, grads, world):
    """One step of ``optimizer`` on flat CUDA tensors: params updated in place from grads.

    Waits for the work torch queued on the device (grads complete) and returns when the
    update is done, so params can be read at once.
    """
    import torch

    device = optimizer.device
    params_ptr = cuda_pointer(params, "params", device)
    grads_ptr = cuda_pointer(grads, "grads", device)
    if params.numel() != grads.numel():
        raise InvalidArgument(f"grads has {grads.numel()} elements, params {params.numel()}")
    torch.cuda.synchronize(device)
    optimizer.step(params_ptr, grads_ptr, params.numel(), world)
