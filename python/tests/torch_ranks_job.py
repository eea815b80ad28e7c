"""One rank of the launched job test_torch_launched.py starts: compopt.torch optimizers step a
multi-tensor model from per-rank gradients; each also resumes from a state_dict saved midway and
checks the resumed run equals the uninterrupted one bit for bit. Writes every rank's final flat
parameters to <out>/<name>.rank<r>.npy, and the bytes one Adam step sent (its metrics'
bytes_sent) to <out>/adam_bytes.rank<r>.npy.

usage: compopt launch -n N -- /usr/bin/python3 torch_ranks_job.py OUT_DIR
"""
import io
import os
import sys

import numpy as np
import torch

import compopt
import compopt.torch as ct

SHAPES = [(4, 3), (5,), (2, 3)]
D = sum(int(np.prod(s)) for s in SHAPES)
STEPS, SAVE_AT = 8, 3
# name -> registry keys: each crosses its freeze at step 3 so the resume spans it.
CASES = {"onebit-adam": {"lr": 0.01, "freeze_step": 2},
         "onebit-lamb": {"lr": 0.01, "freeze_step": 2}, "birder": {"lr": 0.01},
         "adam": {"lr": 0.01, "bias_correction": True}, "ef-momentum-sgd": {"lr": 0.05},
         "birder-hierarchical": {"lr": 0.01}}


def rank_grads(step, rank):
    """The flat gradient of rank `rank` at step `step` (also computed by the test)."""
    return np.random.default_rng(1000 * step + rank).standard_normal(D).astype(np.float32)


def initial_params():
    return np.linspace(-1.0, 1.0, D, dtype=np.float32)


def _model():
    flat, out, offset = initial_params(), [], 0
    for shape in SHAPES:
        n = int(np.prod(shape))
        out.append(torch.nn.Parameter(torch.from_numpy(flat[offset:offset + n].copy()).view(shape)))
        offset += n
    return out


def _steps(opt, params, first, last, rank):
    for step in range(first, last):
        flat, offset = torch.from_numpy(rank_grads(step, rank)), 0
        for p in params:
            p.grad = flat[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()
        opt.step()


def _run(name, keys, rank):
    params = _model()
    opt = ct.Optimizer(name, params, **keys)
    _steps(opt, params, 0, SAVE_AT, rank)
    buffer = io.BytesIO()
    torch.save({"model": [p.detach().clone() for p in params], "opt": opt.state_dict()}, buffer)
    _steps(opt, params, SAVE_AT, STEPS, rank)
    buffer.seek(0)
    saved = torch.load(buffer)
    resumed = [torch.nn.Parameter(t) for t in saved["model"]]
    opt_resumed = ct.Optimizer(name, resumed, **keys)
    opt_resumed.load_state_dict(saved["opt"])
    _steps(opt_resumed, resumed, SAVE_AT, STEPS, rank)
    if not all(torch.equal(p, q) for p, q in zip(params, resumed)):
        raise AssertionError(f"{name}: rank {rank} resumed run differs from the uninterrupted one")
    return opt.flat_parameters.numpy()


def adam_step_bytes(rank):
    """bytes_sent of one Adam step: this rank's share of the gradient allreduce."""
    params = _model()
    opt = ct.Adam(params, lr=0.01)
    _steps(opt, params, 0, 1, rank)
    return opt.metrics()["bytes_sent"]


def main(out_dir):
    world = compopt.init()
    np.save(os.path.join(out_dir, f"adam_bytes.rank{world.rank}.npy"),
            np.array(adam_step_bytes(world.rank)))
    for name, keys in CASES.items():
        np.save(os.path.join(out_dir, f"{name}.rank{world.rank}.npy"), _run(name, keys, world.rank))


if __name__ == "__main__":
    main(sys.argv[1])
