"""One rank of the multi-process collective tests (test_collectives_launched.py): run under
`compopt launch -n N -- /usr/bin/python3 collectives_rank.py OUT` (TCP) or `mpirun -n N ...`
(MPI). Every collective runs on per-rank inputs the test knows (rank_input below); this rank's
results go to OUT/rank<r>.npz, where the test compares them with NumPy references."""
import os
import sys

import numpy as np

import compopt

K = 6  # elements per block


def rank_input(rank, size):
    """Small integers, so every sum and mean is exact in fp32 and fp16 in any order."""
    return np.arange(size * K, dtype=np.float32) + 10 * rank


def compressed(world, hierarchical):
    rng = np.random.default_rng(world.rank)
    allreduce = compopt.CompressedAllreduce(37, "sign", hierarchical=hierarchical, seed=5)
    out = []
    for _ in range(3):
        x = rng.standard_normal(37).astype(np.float32)
        out.append(allreduce(x).copy())
    return np.stack(out)


def main(out_dir):
    world = compopt.init(gpus_per_node=2)
    r, n = world.rank, world.size
    x = rank_input(r, n)
    results = {
        "sum": compopt.allreduce(x.copy()),
        "mean": compopt.allreduce(x.copy(), op="mean"),
        "sum_fp16": compopt.allreduce(x.copy(), precision="fp16"),
        "reduce_scatter": compopt.reduce_scatter(x.copy()),
        "allgather": compopt.allgather(np.arange(3, dtype=np.int64) + 100 * r),
        "alltoall": compopt.alltoall(np.arange(n, dtype=np.int32) + 10 * r),
        "broadcast": compopt.broadcast(x.copy() if r == 2 else np.zeros_like(x), root=2),
        "compressed": compressed(world, hierarchical=False),
        "hierarchical": compressed(world, hierarchical=True),
    }
    compopt.barrier()
    np.savez(os.path.join(out_dir, f"rank{r}.npz"), **results,
             layout=np.array([r, n, world.node, world.num_nodes]))


if __name__ == "__main__":
    main(sys.argv[1])
