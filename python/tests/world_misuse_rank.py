"""One rank of the misuse test (test_world_failures.py) under `compopt launch -n 3`: each misuse
of a launched world raises without hanging the others (on every rank, or on the rank whose second
thread calls into a busy world), then the world still works. Prints "rank <r> ok" at the end."""
import threading
import time

import numpy as np
import pytest

import compopt

world = compopt.init(gpus_per_node=2)  # 3 ranks: node 0 hosts 2 ranks, node 1 hosts 1
with pytest.raises(compopt.InvalidArgument, match="already a launched rank of an open world"):
    compopt.World("tcp", 0)
with pytest.raises(compopt.InvalidArgument, match="x has 7 elements, expected a multiple of"):
    compopt.reduce_scatter(np.ones(7, np.float32))
with pytest.raises(compopt.InvalidArgument, match="node 0 hosts 2 ranks but node 1 hosts 1"
                   if world.node == 0 else "node 1 hosts 1 ranks but node 0 hosts 2"):
    compopt.CompressedAllreduce(8, hierarchical=True)
rank = world.rank
if rank == 0:  # a second thread calling while the first waits in a barrier is refused
    waiting = threading.Thread(target=compopt.barrier)
    waiting.start()
    time.sleep(0.2)
    with pytest.raises(compopt.InvalidArgument, match="in use by another thread"):
        compopt.allreduce(np.ones(2, np.float32))
    waiting.join()
else:
    time.sleep(1.0)
    compopt.barrier()
x = np.full(4, rank, np.float32)
np.testing.assert_array_equal(compopt.allreduce(x), np.full(4, 3.0))
world.close()
with pytest.raises(compopt.InvalidArgument, match="already closed"):
    compopt.allreduce(x, world=world)
again = compopt.init()  # a second rendezvous of the same ranks
assert again is not world and (again.rank, again.size) == (rank, 3)
np.testing.assert_array_equal(compopt.allreduce(np.ones(2, np.float32)), [3.0, 3.0])
print(f"rank {again.rank} ok", flush=True)
