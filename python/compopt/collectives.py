"""Collectives over this process's World, in place and zero-copy on NumPy arrays and CPU torch
tensors (docs/python.md, "Communicators, collectives and compressors").

Each runs the C++ Communicator's collective (core/comm/communicator.h), so it gives what
``compopt train`` gets on the same backend: every rank must call the same collectives in the
same order with matching sizes. ``world=None`` means ``compopt.init()``. Each returns the
array it wrote (x or out) for chaining.
"""
from . import _compopt
from ._arrays import as_buffer, like
from ._world import init
from .compress import Compressor


def _world(world):
    return init() if world is None else world


def allreduce(x, op="sum", precision="fp32", world=None):
    """x (float32) := its sum (op="sum") or mean (op="mean") over the ranks, bit-identical on
    every rank; precision="fp16" sends half-precision values and accumulates in fp32."""
    _compopt.allreduce(_world(world), as_buffer(x, "x"), op, precision)
    return x


def reduce_scatter(x, out=None, op="sum", world=None):
    """out := block `rank` of the sum or mean of x over the ranks; x holds ranks * len(out)
    float32 values (out=None: a new array of len(x) / ranks)."""
    world, data = _world(world), as_buffer(x, "x")
    if out is None:
        out = like(x, _block(data, world))
    _compopt.reduce_scatter(world, data, as_buffer(out, "out"), op)
    return out


def allgather(x, out=None, world=None):
    """out := every rank's x back to back in rank order (any dtype; out=None: a new flat
    array of ranks * x.size elements)."""
    world, data = _world(world), as_buffer(x, "x", None)
    if out is None:
        out = like(x, data.size * world.size)
    _compopt.allgather(world, data, as_buffer(out, "out", None))
    return out


def alltoall(x, out=None, world=None):
    """Block j of x (flat, ranks equal blocks, any dtype) goes to rank j; block i of out comes
    from rank i (out=None: a new array like x)."""
    world, data = _world(world), as_buffer(x, "x", None)
    if out is None:
        out = like(x, data.size)
    _compopt.alltoall(world, data, as_buffer(out, "out", None))
    return out


def broadcast(x, root=0, world=None):
    """x (any dtype) := rank `root`'s x on every rank."""
    _compopt.broadcast(_world(world), as_buffer(x, "x", None), root)
    return x


def barrier(world=None):
    """Returns once every rank has entered the barrier."""
    _compopt.barrier(_world(world))


def _block(data, world):
    if data.size % world.size:
        raise _compopt.InvalidArgument(f"reduce_scatter: x has {data.size} elements, expected "
                                       f"a multiple of the {world.size} ranks")
    return data.size // world.size


class CompressedAllreduce:
    """The compressed allreduce of 1-bit Adam (Tang et al. 2021, flat) or Birder (Peng et al.
    2023, hierarchical: intra-node reduce-scatter, compressed exchange between nodes) for
    float32 vectors of `size` elements, holding its error feedback between calls.

    ca = CompressedAllreduce(size, compressor="sign"); ca(x) makes x the compressed mean over
    the ranks (bit-identical on every rank). compressor: a spec ("sign", "binary", "nbit:4",
    ...) or a Compressor; call k draws stochastic encodes from (seed, step k). hierarchical
    needs the same number of ranks on every node (init(gpus_per_node=...) sets the layout).
    Constructing it with hierarchical=True is a collective (the groups are split once).
    """

    def __init__(self, size, compressor="sign", world=None, hierarchical=False, seed=0):
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise _compopt.InvalidArgument(f"size: {size!r}, expected an integer >= 0")
        if not isinstance(compressor, Compressor):
            compressor = Compressor(compressor)
        self.compressor = compressor
        self._impl = _compopt.CompressedAllreduce(compressor._impl, size, _world(world),
                                                  hierarchical, seed)

    step = property(lambda self: self._impl.step, doc="calls made so far (the next key step)")
    hierarchical = property(lambda self: self._impl.hierarchical)
    worker_error = property(lambda self: self._impl.worker_error, doc="copy of the worker EF")
    server_error = property(lambda self: self._impl.server_error, doc="copy of the server EF")

    def __call__(self, x):
        """x (float32, `size` values, writable) := the compressed mean over the ranks."""
        self._impl(as_buffer(x, "x"))
        return x

    def state_dict(self):
        """The error feedback and step, to resume the exact sequence of results later."""
        return {"worker_error": self.worker_error, "server_error": self.server_error,
                "step": self.step}

    def load_state_dict(self, state):
        """Restores a state_dict() of an allreduce of the same size, world and compressor."""
        self._impl.load_state(as_buffer(state["worker_error"], "worker_error"),
                              as_buffer(state["server_error"], "server_error"), state["step"])

    def reset(self):
        """Zero error feedback, step 0."""
        self._impl.reset()
