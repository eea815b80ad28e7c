"""One rank of the peer-failure test (test_world_failures.py): under `compopt launch -n N`, rank
1 fails before the allreduce every other rank enters, by raising (argument "raise": the
uncaught exception closes its world as failed) or by dying on the spot (argument "exit":
os._exit, nothing closed); with argument "sizes" every rank enters it with another size. Each
survivor prints "survivor <rank> <exception type>: <message>" for what its allreduce raised."""
import os
import sys

import numpy as np

import compopt

world = compopt.init()
if world.rank == 1 and sys.argv[1] == "raise":
    raise RuntimeError("rank 1 gives up on purpose")
if world.rank == 1 and sys.argv[1] == "exit":
    os._exit(3)
size = 1000 + (world.rank if sys.argv[1] == "sizes" else 0)
try:
    compopt.allreduce(np.ones(size, np.float32))
    print(f"survivor {world.rank} finished without an error", flush=True)
except compopt.CommError as error:
    print(f"survivor {world.rank} {type(error).__name__}: {error}", flush=True)
    raise
