"""experiments/examples/whatif_from_python.py runs top to bottom with this interpreter and
answers its question; its per-cluster answer (compopt.simulate) and its bandwidth sweep
(compopt.sweep) agree on the scenario they share."""
import os
import re
import subprocess
import sys

import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_EXAMPLE = os.path.join(_REPO, "experiments", "examples", "whatif_from_python.py")


def test_the_whatif_example_prints_a_consistent_answer():
    pytest.importorskip("torchvision")
    env = dict(os.environ, PYTHONPATH=os.path.join(_REPO, "python"))
    run = subprocess.run([sys.executable, _EXAMPLE], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    answer = re.search(r"Answer: 1-bit Adam gives (\d+\.\d\d)x at 10 Gbit/s on ethernet-a100-8",
                       out)
    assert answer, out
    per_cluster = re.search(r"ethernet-a100-8: 1-bit Adam gives (\d+\.\d\d)x, Birder "
                            r"(\d+\.\d\d)x over Adam at 10 Gbit/s", out)
    assert per_cluster, out
    assert per_cluster.group(1) == answer.group(1)  # simulate() and sweep() agree
    assert float(answer.group(1)) > 1  # 10 Gbit/s Ethernet: compression pays
    for cluster in ("ethernet-a100-8", "h100-ethernet-25g", "dgx-a100"):
        assert re.search(rf"^{cluster} +\d", out, re.MULTILINE), out
