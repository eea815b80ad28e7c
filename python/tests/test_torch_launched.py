"""compopt.torch under `compopt launch -n N` (TCP) and mpirun (MPI): every rank ends
bit-identical, equal to the same C++ optimizers run on the threads of a local world from the same
per-rank gradients, and a state_dict resume across the freeze reproduces the run on every rank
(torch_ranks_job.py)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from compopt import _compopt
import torch_ranks_job as job

BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "build")


def _keys_text(keys):
    return {k: ("true" if v is True else str(v)) for k, v in keys.items()}


def _launch(launcher, ranks, out_dir):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), COMPOPT_BUILD_DIR=BUILD)
    job_args = [sys.executable, job.__file__, str(out_dir)]
    if launcher == "compopt":
        args = [os.path.join(BUILD, "experiments", "compopt"), "launch", "-n", str(ranks), "--"]
    else:
        if shutil.which("mpirun") is None:
            pytest.skip("mpirun is not installed")
        args = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(ranks),
                "-x", "PYTHONPATH", "-x", "COMPOPT_BUILD_DIR"]
    subprocess.run(args + job_args, check=True, env=env, timeout=240)


@pytest.mark.parametrize("launcher, ranks", [("compopt", 2), ("compopt", 4), ("mpirun", 2)])
def test_launched_ranks_equal_a_local_world_and_resume_exactly(launcher, ranks, tmp_path):
    _launch(launcher, ranks, tmp_path)
    layout = [(f"param{i}", int(np.prod(s))) for i, s in enumerate(job.SHAPES)]
    grads = np.stack([np.stack([job.rank_grads(s, r) for r in range(ranks)])
                      for s in range(job.STEPS)])
    for name, keys in job.CASES.items():
        expected = _compopt.run_local_steps(name, _keys_text(keys), layout,
                                            job.initial_params(), grads)
        for rank in range(ranks):
            got = np.load(tmp_path / f"{name}.rank{rank}.npy")
            np.testing.assert_array_equal(got, expected[rank], err_msg=f"{name} rank {rank}")
        np.testing.assert_array_equal(expected[0], expected[-1])
    # A ring allreduce of D floats: each of reduce-scatter and all-gather sends (ranks - 1) / ranks
    # of the vector per rank, 2 (ranks - 1) D floats over all ranks, however the blocks split.
    sent = sum(int(np.load(tmp_path / f"adam_bytes.rank{r}.npy")) for r in range(ranks))
    assert sent == 2 * (ranks - 1) * job.D * 4
