"""compopt.torch.PowerSGD against PyTorch's own DDP hook, powerSGD_hook, on 1 and 2 ranks.

Each rank (a process of torch.multiprocessing) trains two copies of one small MLP on the same
batches: copy A under DistributedDataParallel (gloo on loopback, rendezvous through a file in the
test's directory, so only compopt's world needs a free port) with powerSGD_hook and
torch.optim.SGD or Adam, copy B with compopt.torch.PowerSGD on a compopt TCP world. The hook
draws its initial Q from its own generator; the test gives it compopt's instead: before the
first compressed step it fills the hook's warm-start memory with the Q that compopt drew
(Optimizer.state_tensors()['powersgd.q'], one cols x rank block per factored parameter in
parameter order), laid out in the hook's order (by shape group, then bucket order). From there
on both sides run the same math, so the parameters agree to fp32 rounding through the warmup,
the first compressed steps (error feedback, warm start) and beyond.
"""
import datetime
import os
import socket
from collections import defaultdict

import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as hook_module

import compopt
import compopt.torch as ct

STEPS = 7
START = 2  # start_powerSGD_iter
WIDTHS = (6, 8, 3)  # fc1.weight 8 x 6 and fc2.weight 3 x 8 are factored; biases are not


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(WIDTHS[0], WIDTHS[1]), torch.nn.Tanh(),
                               torch.nn.Linear(WIDTHS[1], WIDTHS[2]))


def _batch(rank, step):
    gen = torch.Generator().manual_seed(1000 * step + rank)
    return torch.randn(5, WIDTHS[0], generator=gen), torch.randn(5, WIDTHS[2], generator=gen)


def _hook_order(tensors, rank):
    """The factored tensors of a bucket in the order of the hook's Q memory."""
    by_shape = defaultdict(list)
    for index, tensor in tensors:
        matrix = tensor.view(tensor.shape[0], -1)
        n, m = matrix.shape
        r = min(n, m, rank)
        if hook_module._should_compress(n, m, r, 2)[0]:
            by_shape[matrix.shape].append((index, m, r))
    return [entry for group in by_shape.values() for entry in group]


def _compopt_q_blocks(params, q, rank):
    """compopt's Q split per factored parameter index (layout order)."""
    blocks, at = {}, 0
    for index, p in enumerate(params):
        if p.dim() < 2:
            continue
        n, m = p.shape[0], p[0].numel()
        r = min(n, m, rank)
        if (n + m) * r * 2 < n * m:
            blocks[index] = q[at:at + m * r]
            at += m * r
    assert at == len(q)
    return blocks


def _seeding_hook(params, blocks):
    """powerSGD_hook, with the warm-start memory filled from compopt's Q at its first
    compressed step."""
    def hook(state, bucket):
        index = bucket.index()
        if state.iter == state.start_powerSGD_iter and index not in state.q_memory_dict:
            ids = [id(p) for p in params]
            tensors = [(ids.index(id(p)), g) for p, g in zip(bucket.parameters(),
                                                             bucket.gradients())]
            order = _hook_order(tensors, state.matrix_approximation_rank)
            q = np.concatenate([blocks[i] for i, _, _ in order]).astype(np.float32)
            p_size = sum(params[i].shape[0] * r for i, _, r in order)
            state.q_memory_dict[index] = torch.from_numpy(q)
            state.p_memory_dict[index] = torch.empty(p_size)
        return hook_module.powerSGD_hook(state, bucket)
    return hook


def _optimizers(kind, model_a, model_b, world):
    if kind == "sgd":
        theirs = torch.optim.SGD(model_a.parameters(), lr=0.1, momentum=0.9)
        ours = ct.PowerSGD(model_b.parameters(), world=world, lr=0.1, momentum=0.9,
                           form="pytorch", start_powerSGD_iter=START)
    else:
        theirs = torch.optim.Adam(model_a.parameters(), lr=0.01, betas=(0.9, 0.99))
        ours = ct.PowerSGD(model_b.parameters(), world=world, optimizer="adam", lr=0.01,
                           betas=(0.9, 0.99), bias_correction=True, start_powerSGD_iter=START)
    return theirs, ours


def _rank_main(rank, ranks, kind, compopt_port, out_dir):
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(ranks), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(compopt_port), COMPOPT_JOB_TOKEN="powersgd-test-token")
    world = compopt.init("tcp")
    store = os.path.join(out_dir, "gloo_store")
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=ranks,
                            timeout=datetime.timedelta(seconds=120))
    model_a, model_b = _model(), _model()
    ddp = torch.nn.parallel.DistributedDataParallel(model_a)
    theirs, ours = _optimizers(kind, model_a, model_b, world)
    q = ours._cpp.state_tensors()["powersgd.q"]
    params_a = list(model_a.parameters())
    blocks = _compopt_q_blocks(params_a, q, 1)
    state = hook_module.PowerSGDState(process_group=None, matrix_approximation_rank=1,
                                      start_powerSGD_iter=START)
    ddp.register_comm_hook(state, _seeding_hook(params_a, blocks))
    trace = []
    for step in range(1, STEPS + 1):
        x, y = _batch(rank, step)
        for model, opt in ((ddp, theirs), (model_b, ours)):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        flat = [torch.cat([p.detach().reshape(-1) for p in m.parameters()]).numpy()
                for m in (model_a, model_b)]
        trace.append(np.stack(flat))
    np.save(os.path.join(out_dir, f"rank{rank}.npy"), np.stack(trace))
    dist.destroy_process_group()
    world.close()
    assert ours.stage == "compression"
    assert state.total_numel_after_compression < state.total_numel_before_compression


@pytest.mark.parametrize("ranks", [1, 2])
@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_powersgd_matches_torch_powersgd_hook(ranks, kind, tmp_path):
    mp.spawn(_rank_main, args=(ranks, kind, _free_port(), str(tmp_path)),
             nprocs=ranks, join=True)
    traces = [np.load(tmp_path / f"rank{r}.npy") for r in range(ranks)]
    initial = torch.cat([p.detach().reshape(-1) for p in _model().parameters()]).numpy()
    for r, trace in enumerate(traces):
        for step in range(STEPS):
            theirs, ours = trace[step]
            np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6,
                                       err_msg=f"{kind}, rank {r}, after step {step + 1}")
            assert not np.array_equal(ours, initial)
        np.testing.assert_array_equal(trace[:, 1], traces[0][:, 1])  # ranks bit-identical


def test_powersgd_arguments_are_checked():
    params = list(_model().parameters())
    with pytest.raises(ValueError, match="optimizer = 'lamb'"):
        ct.PowerSGD(params, optimizer="lamb")
    with pytest.raises(ValueError, match="betas"):
        ct.PowerSGD(params, betas=(0.9, 0.99))
    with pytest.raises(compopt.InvalidArgument, match="matrix_approximation_rank"):
        ct.PowerSGD(params, matrix_approximation_rank=0)
