"""Launched worlds that go wrong (3 processes under `compopt launch`): a rank that fails makes
the others raise compopt.CommError naming it within seconds, never hang, and so do ranks that
pass different sizes to one collective; misuse of a world
(a second World, sizes that do not divide, uneven nodes, use after close) raises on every rank
and leaves the world usable."""
import re
import time

import pytest

import launched


@pytest.mark.parametrize("how, cause", [
    ("raise", "peer rank 1 failed: RuntimeError: rank 1 gives up on purpose"),
    ("exit", "rank 1 died or was killed"),
])
def test_survivors_raise_comm_error_naming_the_failed_rank(how, cause):
    start = time.monotonic()
    done = launched.run("tcp", 3, "failing_rank.py", how, timeout=30)
    elapsed = time.monotonic() - start
    assert done.returncode != 0
    assert elapsed < 15, f"the job took {elapsed:.1f} s to end"
    for rank in (0, 2):
        line = re.search(rf"\[rank {rank}\] survivor {rank} CommError: (.*)", done.stdout)
        assert line, done.stdout + done.stderr
        assert "rank 1" in line.group(1)
    assert cause in done.stdout
    assert "finished without an error" not in done.stdout


def test_different_sizes_raise_comm_error_on_every_rank():
    done = launched.run("tcp", 3, "failing_rank.py", "sizes", timeout=30)
    assert done.returncode != 0
    for rank in range(3):
        assert f"[rank {rank}] survivor {rank} CommError: " in done.stdout, done.stdout
    assert "ranks called a collective with different sizes" in done.stdout


def test_misuse_raises_on_every_rank_and_the_world_goes_on():
    done = launched.run("tcp", 3, "world_misuse_rank.py", timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(3):
        assert f"[rank {rank}] rank {rank} ok" in done.stdout
