"""Compressors on NumPy arrays and CPU torch tensors: the C++ operators of core/compress/ by their
registry spec (docs/compressors.md), zero-copy (docs/python.md, "Communicators, collectives and
compressors").

A stochastic compressor (binary, nbit) draws element i of an encode from the random key
(seed, step, rank, stream, index_offset + i) (docs/algorithms.md, "Random draws"): the same key
gives the same bits on every machine.
"""
import numpy as np

from . import _compopt
from ._arrays import as_buffer, like


def compressor_names():
    """Compressor names in registry order; nbit and topk also take "name:parameter"."""
    return _compopt.compressor_names()


class Compressor:
    """Compressor(name, parameter=None): the operator of spec "name" or "name:parameter"
    (Compressor("nbit", 4) is Compressor("nbit:4")). An unknown name or bad parameter raises
    compopt.InvalidArgument listing the accepted forms."""

    def __init__(self, name, parameter=None):
        spec = str(name) if parameter is None else f"{name}:{parameter}"
        self._impl = _compopt.Compressor(spec)

    name = property(lambda self: self._impl.name, doc="canonical spec ('nbit:8')")
    has_scale = property(lambda self: self._impl.has_scale, doc="sends one float scale")
    is_stochastic = property(lambda self: self._impl.is_stochastic, doc="encode draws randoms")
    chunkable = property(lambda self: self._impl.chunkable,
                         doc="payload has fixed-width fields per element (compressed allreduce)")

    def payload_bytes(self, k):
        """Bytes of the payload of k values (without the scale)."""
        return self._impl.payload_bytes(k)

    def wire_bytes(self, k):
        """Bytes one message of k values puts on the wire (payload and scale)."""
        return self._impl.wire_bytes(k)

    def encode(self, x, seed=0, step=0, rank=0, stream=0, index_offset=0):
        """(scale, payload): x (float32) encoded; payload is a new uint8 NumPy array of
        payload_bytes(x.size) bytes; scale is 1.0 for compressors without one."""
        key = _compopt.RandomKey(seed, step, rank, stream, index_offset)
        return self._impl.encode(as_buffer(x, "x"), key)

    def decode(self, scale, payload, out=None, size=None):
        """out (float32, `size` values) := the values of (scale, payload); returns out."""
        if out is None:
            if size is None:
                raise TypeError("decode: give out (the float32 array to write) or size")
            out = np.empty(size, np.float32)
        self._impl.decode(scale, as_buffer(payload, "payload", None), as_buffer(out, "out"))
        return out

    def round_trip(self, x, out=None, seed=0, step=0, rank=0, stream=0, index_offset=0):
        """(out, scale): out := decode(encode(x)), what a receiver sees (out=None: new)."""
        data = as_buffer(x, "x")
        if out is None:
            out = like(x, data.size)
        key = _compopt.RandomKey(seed, step, rank, stream, index_offset)
        return out, self._impl.round_trip(data, as_buffer(out, "out"), key)

    def __repr__(self):
        return f"compopt.Compressor('{self.name}')"
