"""compopt from Python: the C++ optimizers, communicators and simulator of compopt.

The compiled part, the extension module ``_compopt``, is built by the project's CMake into
``<build>/python/compopt/``; this package finds it there (``COMPOPT_BUILD_DIR``, default the
repository's ``build/``). ``make build`` makes ``import compopt`` work for Debian's
``/usr/bin/python3`` (docs/python.md).
"""
import os as _os

_REPO = _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))
_BUILD = _os.environ.get("COMPOPT_BUILD_DIR") or _os.path.join(_REPO, "build")
__path__.append(_os.path.join(_BUILD, "python", "compopt"))  # noqa: F821 (package __path__)

from ._compopt import CommError, InvalidArgument, Optimizer, optimizer_names  # noqa: E402
from ._world import World, init, world  # noqa: E402
from .collectives import (CompressedAllreduce, allgather, allreduce, alltoall,  # noqa: E402
                          barrier, broadcast, reduce_scatter)
from .compress import Compressor, compressor_names  # noqa: E402
from .simulate import simulate, sweep  # noqa: E402
from .workload import workload_from_torch  # noqa: E402

__all__ = ["CommError", "InvalidArgument", "Optimizer", "World", "init", "optimizer_names",
           "world"]
__all__ += ["CompressedAllreduce", "Compressor", "allgather", "allreduce", "alltoall", "barrier",
            "broadcast", "compressor_names", "reduce_scatter"]
__all__ += ["simulate", "sweep", "workload_from_torch"]
