"""compopt.init() without a launcher, and the buffer checks every binding shares."""
import numpy as np
import pytest

import compopt


def test_init_without_launcher_is_one_local_rank():
    world = compopt.init()
    assert (world.backend, world.rank, world.size) == ("local", 0, 1)
    assert compopt.init() is world


def test_init_refuses_a_launched_backend_without_launcher(monkeypatch):
    for name in ("WORLD_SIZE", "RANK", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):
        monkeypatch.delenv(name, raising=False)
    compopt.init().close()
    with pytest.raises(compopt.InvalidArgument, match="needs a launcher"):
        compopt.init(backend="mpi")


def _optimizer():
    return compopt.Optimizer("sgd", {"lr": "0.5"}, [("w", 4)])


def test_init_refuses_another_backend_while_a_world_is_open():
    compopt.init()
    with pytest.raises(compopt.InvalidArgument, match="already joined a 'local' world"):
        compopt.init(backend="tcp")


def test_step_updates_in_place_zero_copy():
    params = np.ones(4, np.float32)
    _optimizer().step(params, np.full(4, 2.0, np.float32), compopt.init())
    np.testing.assert_array_equal(params, np.zeros(4, np.float32))  # 1 - 0.5 * 2


@pytest.mark.parametrize("params, message", [
    (np.ones(4, np.float64), "params: dtype with format 'd', expected float32"),
    (np.ones((4, 2), np.float32)[:, 0], "params: non-contiguous array"),
    (np.ones(3, np.float32), "step got 3 params and 4 grads, expected 4"),
])
def test_bad_buffers_raise_naming_the_problem(params, message):
    with pytest.raises(compopt.InvalidArgument, match=message):
        _optimizer().step(params, np.ones(4, np.float32), compopt.init())


def test_read_only_params_are_refused():
    params = np.ones(4, np.float32)
    params.flags.writeable = False
    with pytest.raises(compopt.InvalidArgument, match="read-only"):
        _optimizer().step(params, np.ones(4, np.float32), compopt.init())
