"""Shared fixtures of the analysis/ tests: a temporary copy of the fixture run
directory and a runner that starts a script as a user would (a subprocess)."""
import os
import shutil
import subprocess
import sys

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
ANALYSIS = os.path.dirname(TESTS)
FIXTURE_RUN = os.path.join(TESTS, "fixtures", "run")
STUDIES = ["variance", "convergence", "profile", "scalability", "bandwidth", "hierarchical",
           "lamb", "volume", "break_even"]

sys.path.insert(0, ANALYSIS)


@pytest.fixture
def run_dir(tmp_path):
    """A writable copy of analysis/tests/fixtures/run."""
    target = tmp_path / "run"
    shutil.copytree(FIXTURE_RUN, target)
    return target


def run_script(name, *args):
    """Runs analysis/<name> with this interpreter; returns the CompletedProcess."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
    env.pop("COMPOPT_PLOT_DEBUG", None)
    return subprocess.run([sys.executable, os.path.join(ANALYSIS, name)] + [str(a) for a in args],
                          capture_output=True, text=True, env=env, timeout=240)


def edit_csv(path, edit):
    """Rewrites a CSV: edit(list of rows as lists of cells) -> list of rows."""
    with open(path, newline="") as f:
        rows = [line.rstrip("\n").split(",") for line in f]
    rows = edit(rows)
    with open(path, "w") as f:
        f.write("".join(",".join(r) + "\n" for r in rows))
