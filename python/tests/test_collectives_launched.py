"""Every collective on 4 real processes, over TCP (`compopt launch -n 4`) and MPI (`mpirun -n 4`):
each rank's results (collectives_rank.py) against NumPy references computed here from the
per-rank inputs, and the compressed allreduces bit-identical on every rank and both backends."""
import numpy as np
import pytest

import launched
from collectives_rank import K, rank_input

N = 4


_RUNS = {}


def _run(kind, tmp_path_factory):
    """Every rank's results under backend `kind`, run once per test session."""
    if kind not in _RUNS:
        out = tmp_path_factory.mktemp(kind)
        done = launched.run(kind, N, "collectives_rank.py", out)
        assert done.returncode == 0, done.stdout + done.stderr
        _RUNS[kind] = [dict(np.load(out / f"rank{r}.npz")) for r in range(N)]
    return _RUNS[kind]


@pytest.fixture(params=["tcp", "mpi"])
def results(request, tmp_path_factory):
    return request.param, _run(request.param, tmp_path_factory)


def test_full_precision_collectives_match_numpy(results):
    inputs = [rank_input(r, N) for r in range(N)]
    total = np.sum(inputs, axis=0)
    for r, got in enumerate(results[1]):
        np.testing.assert_array_equal(got["sum"], total)
        np.testing.assert_array_equal(got["mean"], total / N)
        np.testing.assert_array_equal(got["sum_fp16"], total)  # small integers: exact in half
        np.testing.assert_array_equal(got["reduce_scatter"], total[r * K:(r + 1) * K])
        np.testing.assert_array_equal(
            got["allgather"], np.concatenate([np.arange(3) + 100 * i for i in range(N)]))
        assert got["allgather"].dtype == np.int64
        np.testing.assert_array_equal(got["alltoall"], [10 * i + r for i in range(N)])
        np.testing.assert_array_equal(got["broadcast"], inputs[2])


def test_layout_puts_two_ranks_on_each_node(results):
    layouts = [got["layout"].tolist() for got in results[1]]
    assert layouts == [[r, N, r // 2, 2] for r in range(N)]


@pytest.mark.parametrize("name", ["compressed", "hierarchical"])
def test_compressed_allreduce_is_bit_identical_on_every_rank(results, name):
    first = results[1][0][name]
    assert first.shape == (3, 37) and np.abs(first).max() > 0
    for got in results[1][1:]:
        np.testing.assert_array_equal(got[name].view(np.uint32), first.view(np.uint32))


def test_tcp_and_mpi_give_the_same_bits(tmp_path_factory):
    tcp, mpi = _run("tcp", tmp_path_factory), _run("mpi", tmp_path_factory)
    for name in ("compressed", "hierarchical", "sum", "mean", "sum_fp16"):
        np.testing.assert_array_equal(mpi[0][name], tcp[0][name])
