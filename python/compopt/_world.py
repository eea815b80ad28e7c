"""compopt.init(): this process's place in a world of ranks.

The backend follows the launcher that started the process, as ``compopt train`` does:

- ``compopt launch -n N -- /usr/bin/python3 script.py`` sets ``RANK`` and ``WORLD_SIZE``: TCP
  (or ``backend="nccl"`` / ``"hybrid"`` on a GPU machine);
- ``mpirun -n N /usr/bin/python3 script.py`` sets ``OMPI_COMM_WORLD_SIZE`` (Open MPI) or
  ``PMI_SIZE`` (MPICH): MPI;
- neither: a world of one rank in this process (``local``).
"""
import atexit
import os
import sys

from ._compopt import InvalidArgument
from ._compopt import World

_LAUNCHED = {"tcp", "mpi", "nccl", "hybrid"}
_current = None


def _launcher_backend():
    if "WORLD_SIZE" in os.environ and "RANK" in os.environ:
        return "tcp"
    if "OMPI_COMM_WORLD_SIZE" in os.environ or "PMI_SIZE" in os.environ:
        return "mpi"
    return None


def init(backend=None, op_timeout_s=None, gpus_per_node=0):
    """Joins the job this process belongs to and returns its World (see the module doc).

    backend: None (from the launcher), "local", "tcp", "mpi", "nccl" or "hybrid".
    op_timeout_s: seconds a receive may wait before failing (None: the backend's default).
    gpus_per_node: > 0 puts rank r on node r // gpus_per_node (the hierarchical compressed
    allreduce's layout); 0: the backend's (tcp: ranks with one host name share a node).
    Calling init() again while a world is open returns that world.
    """
    global _current
    if _current is not None and _current.open:
        if backend is not None and backend != _current.backend:
            raise InvalidArgument(f"compopt.init: backend '{backend}' requested, but this "
                                  f"process already joined a '{_current.backend}' world")
        return _current
    launcher = _launcher_backend()
    chosen = backend or launcher or "local"
    if chosen in _LAUNCHED and launcher is None:
        raise InvalidArgument(
            f"compopt.init: backend '{chosen}' needs a launcher; start this script with "
            f"'compopt launch -n N -- {sys.executable} ...' or 'mpirun -n N ...'")
    ranks = 0 if chosen in _LAUNCHED else 1
    _current = World(chosen, ranks, op_timeout_s, gpus_per_node)
    return _current


def world():
    """The open World of this process, or None."""
    return _current if _current is not None and _current.open else None


_previous_excepthook = sys.excepthook


def _excepthook(kind, value, traceback):
    # An uncaught error ends this rank as failed, so its peers fail fast naming it.
    if _current is not None and _current.open:
        try:
            _current.close(f"{kind.__name__}: {value}")
        except Exception:  # noqa: BLE001 - the original error is what gets reported
            pass
    _previous_excepthook(kind, value, traceback)


sys.excepthook = _excepthook
atexit.register(lambda: _current.close() if _current is not None and _current.open else None)
