"""Runs a script of this folder as N ranks under `compopt launch` (TCP) or `mpirun` (MPI), with
this checkout's package and build (PYTHONPATH, COMPOPT_BUILD_DIR) and Debian's interpreter."""
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(os.path.dirname(PYTHON_DIR), "build")
PYTHON = "/usr/bin/python3"


def _environment():
    env = dict(os.environ, COMPOPT_BUILD_DIR=BUILD)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PYTHON_DIR, env.get("PYTHONPATH")]))
    return env


def launcher(kind, ranks):
    """The command line that starts `ranks` ranks of what follows it: kind "tcp" or "mpi"
    (skips the test when mpirun is missing)."""
    if kind == "tcp":
        return [os.path.join(BUILD, "experiments", "compopt"), "launch", "-n", str(ranks), "--"]
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed")
    return ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(ranks), "-x",
            "PYTHONPATH", "-x", "COMPOPT_BUILD_DIR"]


def run(kind, ranks, script, *args, timeout=60):
    """Runs tests/<script> as `ranks` ranks; returns the CompletedProcess (text output)."""
    command = launcher(kind, ranks) + [PYTHON, os.path.join(HERE, script), *map(str, args)]
    return subprocess.run(command, env=_environment(), capture_output=True, text=True,
                          timeout=timeout, check=False)
