"""What a build holds (has_simulator, has_cuda) and the CUDA-tensor path's refusals.

The expectations come from the build folder itself (its CMakeCache.txt and the libraries it
built), not from the module: a COMPOPT_PYTHON_ONLY build must say it has no simulator, a build
with the CUDA kernels must say it has CUDA. Tests that need a GPU run only where torch sees one
(scripts/gpu_python_check.sh runs them on a GPU machine).
"""
import os

import numpy as np
import pytest

import compopt
from compopt import _compopt, _cuda

BUILD = os.environ.get("COMPOPT_BUILD_DIR", "")
LAYOUT = [("w", 6), ("b", 2)]


def _cache_value(key):
    with open(os.path.join(BUILD, "CMakeCache.txt"), encoding="utf-8") as cache:
        for line in cache:
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    return ""


def _python_only():
    return _cache_value("COMPOPT_PYTHON_ONLY").upper() in {"ON", "TRUE", "1", "YES"}


def _built_cuda():
    return os.path.exists(os.path.join(BUILD, "real_backend", "cuda_kernels", "libcompopt_cuda.a"))


def _gpu_available():
    torch = pytest.importorskip("torch")
    return torch.cuda.is_available()


def test_has_simulator_follows_the_build_option():
    assert isinstance(_compopt.has_simulator, bool)
    assert _compopt.has_simulator == (not _python_only())


def test_has_cuda_follows_the_built_kernels():
    assert isinstance(_compopt.has_cuda, bool)
    assert _compopt.has_cuda == _built_cuda() == _cuda.has_cuda()
    assert hasattr(_compopt, "DeviceOptimizer") == _built_cuda()


@pytest.mark.skipif(not _python_only(), reason="the simulator is built")
def test_python_only_build_refuses_the_sim_backend_by_name():
    with pytest.raises(compopt.InvalidArgument, match="COMPOPT_PYTHON_ONLY"):
        compopt.World("sim", 1)


@pytest.mark.skipif(_built_cuda(), reason="this build has CUDA")
def test_cuda_optimizer_on_a_build_without_cuda_is_refused():
    with pytest.raises(compopt.InvalidArgument, match="has no CUDA"):
        _cuda.device_optimizer("adam", {}, LAYOUT)


@pytest.mark.skipif(not _built_cuda(), reason="this build has no CUDA")
@pytest.mark.parametrize("name, hyper, message", [
    ("onebit-lamb", {"freeze_step": "5"}, r"'onebit-lamb' has no GPU update, expected .*adam"),
    ("adam", {"betaa1": "0.9"}, "betaa1"),
    ("no-such-optimizer", {}, "no-such-optimizer"),
])
def test_device_optimizer_refuses_bad_configurations_before_touching_a_gpu(name, hyper, message):
    with pytest.raises(compopt.InvalidArgument, match=message):
        _cuda.device_optimizer(name, hyper, LAYOUT, device=0)


@pytest.mark.skipif(not _built_cuda(), reason="this build has no CUDA")
def test_device_optimizer_names_are_optimizer_names():
    names = _compopt.device_optimizer_names()
    assert {"sgd", "momentum-sgd", "adam", "lamb", "onebit-adam"} <= set(names)
    assert set(names) <= set(compopt.optimizer_names())


@pytest.mark.skipif(not _built_cuda(), reason="this build has no CUDA")
def test_device_optimizer_without_a_gpu_raises_cuda_error():
    if _gpu_available():
        pytest.skip("a GPU is present")
    with pytest.raises(_compopt.CudaError, match="no CUDA device"):
        _cuda.device_optimizer("adam", {}, LAYOUT, device=0)


def test_cuda_pointer_refuses_cpu_tensors_and_non_tensors():
    torch = pytest.importorskip("torch")
    with pytest.raises(compopt.InvalidArgument, match=r"params is on cpu, expected cuda:0"):
        _cuda.cuda_pointer(torch.zeros(8), "params", 0)
    with pytest.raises(TypeError, match="grads: expected a torch.Tensor, got ndarray"):
        _cuda.cuda_pointer(np.zeros(8, np.float32), "grads", 0)


@pytest.mark.skipif(not _built_cuda(), reason="this build has no CUDA")
def test_cuda_tensors_refused_by_dtype_contiguity_and_device():
    if not _gpu_available():
        pytest.skip("no GPU")
    import torch

    cases = [
        (torch.zeros(8, dtype=torch.float64, device="cuda:0"), "dtype torch.float64"),
        (torch.zeros(16, device="cuda:0")[::2], "not contiguous"),
        (torch.zeros(8), "is on cpu"),
    ]
    for tensor, message in cases:
        with pytest.raises(compopt.InvalidArgument, match=message):
            _cuda.cuda_pointer(tensor, "params", 0)
    with pytest.raises(compopt.InvalidArgument, match="optimizer runs on cuda:1"):
        _cuda.cuda_pointer(torch.zeros(8, device="cuda:0"), "params", 1)
