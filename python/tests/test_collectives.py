"""Collectives on a one-rank local world: results, zero-copy on NumPy arrays and torch tensors,
and the errors for bad input (multi-rank results: test_collectives_launched.py)."""
import numpy as np
import pytest
import torch

import compopt


def test_one_rank_results_are_the_input():
    x = np.arange(6, dtype=np.float32)
    assert compopt.allreduce(x) is x
    np.testing.assert_array_equal(x, np.arange(6))
    np.testing.assert_array_equal(compopt.allreduce(x, op="mean", precision="fp16"), np.arange(6))
    np.testing.assert_array_equal(compopt.reduce_scatter(x), np.arange(6))
    np.testing.assert_array_equal(compopt.allgather(np.arange(3)), np.arange(3))
    np.testing.assert_array_equal(compopt.alltoall(np.arange(4.0)), np.arange(4.0))
    np.testing.assert_array_equal(compopt.broadcast(np.arange(2)), np.arange(2))
    compopt.barrier()


def test_fp16_wire_rounds_to_half():
    x = np.array([1 + 2 ** -12, 3.0], np.float32)  # 1 + 2^-12 is not a half
    compopt.allreduce(x, precision="fp16")
    np.testing.assert_array_equal(x, np.array([1.0, 3.0], np.float32))


def test_torch_tensors_are_written_in_place():
    t = torch.arange(4, dtype=torch.float32)
    out = torch.full((4,), -1.0)
    assert compopt.reduce_scatter(t, out) is out
    assert torch.equal(out, t)
    gathered = compopt.allgather(torch.tensor([7, 8], dtype=torch.int64))
    assert isinstance(gathered, torch.Tensor) and gathered.tolist() == [7, 8]
    grad = torch.ones(3, requires_grad=True)
    compopt.broadcast(grad)  # detached view: no autograd error


def test_closed_world_is_refused():
    world = compopt.init()
    world.close()
    with pytest.raises(compopt.InvalidArgument, match="already closed"):
        compopt.allreduce(np.ones(2, np.float32), world=world)
    assert compopt.init() is not world


def _read_only():
    x = np.ones(4, np.float32)
    x.flags.writeable = False
    return x


@pytest.mark.parametrize("call, error, message", [
    (lambda: compopt.allreduce(np.ones(4)), compopt.InvalidArgument,
     "x: dtype with format 'd', expected float32"),
    (lambda: compopt.allreduce(np.ones((4, 2), np.float32)[:, 0]), compopt.InvalidArgument,
     "x: non-contiguous array"),
    (lambda: compopt.allreduce(_read_only()), compopt.InvalidArgument, "x: read-only array"),
    (lambda: compopt.allreduce([1.0, 2.0]), TypeError,
     "x: builtins.list, expected a float32 NumPy array or CPU torch tensor"),
    (lambda: compopt.allreduce(np.ones(2, np.float32), op="max"), compopt.InvalidArgument,
     "op: 'max', expected one of 'mean', 'sum'"),
    (lambda: compopt.allreduce(np.ones(2, np.float32), precision="bf16"),
     compopt.InvalidArgument, "precision: 'bf16', expected one of 'fp16', 'fp32'"),
    (lambda: compopt.allreduce(torch.ones(2, dtype=torch.float64)), compopt.InvalidArgument,
     "x: torch tensor of dtype torch.float64, expected torch.float32"),
    (lambda: compopt.allreduce(torch.ones(3, 2).t()), compopt.InvalidArgument,
     r"x: non-contiguous torch tensor \(strides \(1, 2\)\)"),
    (lambda: compopt.allreduce(torch.ones(2, device="meta")), compopt.InvalidArgument,
     "x: a torch tensor on device 'meta', expected a CPU tensor"),
    (lambda: compopt.broadcast(torch.ones(2, dtype=torch.bfloat16)), compopt.InvalidArgument,
     "x: torch tensor of dtype torch.bfloat16 has no NumPy view"),
    (lambda: compopt.reduce_scatter(np.ones(4, np.float32), np.ones(3, np.float32)),
     compopt.InvalidArgument, r"reduce_scatter: input has 4 elements, expected 3"),
    (lambda: compopt.allgather(np.ones(2), np.ones(3)), compopt.InvalidArgument,
     r"allgather: output holds 24 bytes, expected 16 \(1 ranks x 16 bytes\)"),
    (lambda: compopt.allgather(np.ones(2), np.ones(2, np.float32)), compopt.InvalidArgument,
     "out: dtype with format 'f', expected that of x \\('d'\\)"),
    (lambda: compopt.alltoall(np.ones(2), np.ones(3)), compopt.InvalidArgument,
     "alltoall: send holds 16 bytes and receive 24"),
    (lambda: compopt.CompressedAllreduce(2**40), compopt.InvalidArgument,
     r"CompressedAllreduce\(size = 1099511627776\) on 1 ranks needs about 8448.0 GiB"),
    (lambda: compopt.broadcast(np.ones(2), root=1), compopt.InvalidArgument,
     r"broadcast: root 1 out of range, expected 0..0"),
])
def test_bad_input_raises_naming_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
