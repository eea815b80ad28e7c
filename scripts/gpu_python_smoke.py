"""One rank of scripts/gpu_python_check.sh's smoke test: the optimizers on CUDA tensors.

Run by that script as WORLD_SIZE ranks with RANK, LOCAL_RANK, MASTER_ADDR, MASTER_PORT and
COMPOPT_JOB_TOKEN set: ``python3 scripts/gpu_python_smoke.py BACKEND`` (nccl, hybrid or local).
For each optimizer with a GPU update, every rank steps flat CUDA tensors with
compopt._cuda.step_cuda (the GPU optimizer) and numpy copies of the same values with
compopt.Optimizer (the CPU optimizer), both through the same world, on rank-dependent gradients.
Checks, printed per optimizer: the GPU result equals the CPU one (bit for bit, or within 1e-5
relative where the sums differ in order: LAMB's norms, NCCL's reductions), and every rank holds
the same parameters (their mean over the world, taken with a CPU SGD step of lr 1, is exact for
2 ranks). Exit status 1 on any failure.
"""
import os
import sys

import numpy as np
import torch

import compopt
from compopt import _cuda

LAYOUT = [("w", 4000), ("b", 96)]
STEPS = 8
CONFIGS = {
    "sgd": {"lr": "0.05"},
    "momentum-sgd": {"lr": "0.05", "beta": "0.9"},
    "adam": {"lr": "0.001"},
    "lamb": {"lr": "0.001"},
    "bertadam": {"lr": "0.001"},
    "onebit-adam": {"lr": "0.001", "freeze_step": "3"},
    "onebit-adam-32bit": {"lr": "0.001", "freeze_step": "3"},
}


def gradients(rank, size):
    rng = np.random.default_rng(1234 + rank)
    return [rng.standard_normal(size).astype(np.float32) for _ in range(STEPS)]


def world_mean(values, world):
    """The mean of `values` over the ranks, by the C++ SGD step x -= 1 * mean(g) from x = 0."""
    sgd = compopt.Optimizer("sgd", {"lr": "1"}, [("all", values.size)])
    x = np.zeros_like(values)
    sgd.step(x, values, world)
    return -x


def run(name, world, device):
    size = sum(n for _, n in LAYOUT)
    start = np.random.default_rng(7).standard_normal(size).astype(np.float32)
    cpu = compopt.Optimizer(name, CONFIGS[name], LAYOUT)
    gpu = _cuda.device_optimizer(name, CONFIGS[name], LAYOUT, device)
    x_cpu = start.copy()
    x_gpu = torch.from_numpy(start).to(f"cuda:{device}")
    for g in gradients(world.rank, size):
        cpu.step(x_cpu, g, world)
        _cuda.step_cuda(gpu, x_gpu, torch.from_numpy(g).to(f"cuda:{device}"), world)
    x_gpu = x_gpu.cpu().numpy()
    rel = float(np.max(np.abs(x_gpu - x_cpu)) / max(1e-30, float(np.max(np.abs(x_cpu)))))
    same_on_ranks = bool(np.array_equal(world_mean(x_gpu, world), x_gpu))
    ok = rel <= 1e-5 and same_on_ranks and gpu.step_count == STEPS and gpu.stage == cpu.stage
    print(f"rank {world.rank} {name:17s} stage {gpu.stage:15s} gpu-vs-cpu max rel diff {rel:.3e}"
          f" ({'bit-identical' if rel == 0 else 'differs'}), same on every rank: {same_on_ranks}"
          f" -> {'ok' if ok else 'FAILED'}", flush=True)
    return ok


def main():
    backend = sys.argv[1]
    if not torch.cuda.is_available():
        sys.exit(f"gpu_python_smoke: torch {torch.__version__} (CUDA {torch.version.cuda}) sees "
                 f"no CUDA device")
    device = int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count()
    torch.cuda.set_device(device)
    world = compopt.init(backend=backend, op_timeout_s=60)
    results = [run(name, world, device) for name in CONFIGS]
    world.close()
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
