"""Python-loop overhead of compopt.torch: the step time of compopt.torch.OneBitAdam against the
C++ optimizer it wraps stepping the same flat buffer through the binding (compopt.Optimizer), and
against torch.optim.Adam on the same model, one rank, as ratios (goals: <= 1.2x and <= 1.5x).

Models of --sizes parameters cut into few (4) or many (--many) tensors; 1-bit Adam in its warmup
stage (freeze_step far away: Adam plus a 1-rank allreduce) and after the freeze (compression).
Gradients are in place as after backward (views of the flat gradient buffer). Times are the best
of max(--repeats, 1e8 / params) steps (the least disturbed by other load on the machine), the
three optimizers interleaved in rotating order.

usage (make bench runs it):
  PYTHONPATH=python COMPOPT_BUILD_DIR=build /usr/bin/python3 tests/bench/python_optimizer_bench.py
"""
import argparse
import time

import torch

import compopt
import compopt.torch as ct


def _model(size, tensors):
    base, extra = divmod(size, tensors)
    gen = torch.Generator().manual_seed(0)
    return [torch.nn.Parameter(torch.randn(base + (i < extra), generator=gen))
            for i in range(tensors)]


def _fill_grads(params):
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
        p.grad.normal_()


def _timed(step):
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def measure(size, tensors, freeze_step, repeats):
    """Best seconds per step of (compopt.torch, the bound C++ optimizer, torch.optim.Adam)."""
    ours_params, torch_params = _model(size, tensors), _model(size, tensors)
    ours = ct.OneBitAdam(ours_params, lr=1e-4, freeze_step=freeze_step)
    raw = compopt.Optimizer("onebit-adam", {"lr": "1e-4", "freeze_step": str(freeze_step)},
                            ours.layout)
    flat_x, flat_g = ours.flat_parameters.clone().numpy(), torch.randn(size).numpy()
    theirs = torch.optim.Adam(torch_params, lr=1e-4)
    _fill_grads(ours_params)
    _fill_grads(torch_params)
    world = compopt.init()
    steps = {"ours": ours.step, "raw": lambda: raw.step(flat_x, flat_g, world),
             "torch": theirs.step}
    for step in steps.values():
        for _ in range(3):
            step()
    times = {name: [] for name in steps}
    order = list(steps)
    for r in range(repeats):
        for name in order[r % 3:] + order[:r % 3]:  # each follows each other as often
            times[name].append(_timed(steps[name]))
    assert ours.stage == raw.stage
    return {name: min(t) for name, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000,10000000")
    parser.add_argument("--many", type=int, default=500, help="tensors of the many-tensor model")
    parser.add_argument("--repeats", type=int, default=15,
                        help="steps timed per optimizer (at least 1e8 / params)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, best of max({args.repeats}, 1e8 / params) steps")
    print("| params | tensors | stage | compopt.torch ms | C++ ms | torch Adam ms "
          "| vs C++ (goal <= 1.2) | vs torch Adam (goal <= 1.5) |")
    print("|---|---|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        for tensors in (4, args.many):
            for stage, freeze in (("warmup", 10 ** 9), ("compression", 1)):
                t = measure(size, tensors, freeze, max(args.repeats, 100_000_000 // size))
                print(f"| {size:.0e} | {tensors} | {stage} | {t['ours'] * 1e3:.3f} "
                      f"| {t['raw'] * 1e3:.3f} | {t['torch'] * 1e3:.3f} "
                      f"| {t['ours'] / t['raw']:.2f} | {t['ours'] / t['torch']:.2f} |",
                      flush=True)


if __name__ == "__main__":
    main()
