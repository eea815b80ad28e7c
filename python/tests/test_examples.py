"""The PyTorch examples (experiments/torch/): data sharding, seeded models, and short runs of
train.py on 2 ranks under `compopt launch` that must write compopt's metrics.csv."""
import csv
import math
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(REPO, "experiments", "torch")
BUILD = os.environ.get("COMPOPT_BUILD_DIR") or os.path.join(REPO, "build")
sys.path.insert(0, EXAMPLES)
import data  # noqa: E402
import metrics  # noqa: E402
import models  # noqa: E402

TINY_TRANSFORMER = ["--model", "transformer", "--batch", "4", "--context", "16",
                    "--eval-examples", "16"]


def run_example(args, ranks=None, timeout=180):
    """train.py with these arguments, under `compopt launch -n ranks` when ranks is given."""
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), COMPOPT_BUILD_DIR=BUILD)
    command = ["/usr/bin/python3", os.path.join(EXAMPLES, "train.py")] + args
    if ranks:
        command = [os.path.join(BUILD, "experiments", "compopt"), "launch", "-n", str(ranks),
                   "--"] + command
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)


def read_metrics(out):
    with open(os.path.join(out, "metrics.csv")) as f:
        reader = csv.reader(f)
        return next(reader), [dict(zip(metrics.COLUMNS, row)) for row in reader]


def test_shards_are_disjoint_equal_and_reshuffled_per_epoch():
    shards = [data.ShardedBatches(103, rank, 4, 5, seed=7) for rank in range(4)]
    assert [len(s.shard) for s in shards] == [25] * 4 and shards[0].batches_per_epoch == 5
    drawn = [set(torch.cat([s.indices(i) for i in range(5)]).tolist()) for s in shards]
    assert sum(len(d) for d in drawn) == 100 and len(set().union(*drawn)) == 100
    assert not torch.equal(shards[0].indices(0), shards[0].indices(5))  # epoch 1 reshuffles
    assert torch.equal(shards[0].indices(3), data.ShardedBatches(103, 0, 4, 5, 7).indices(3))


def test_text_windows_predict_the_next_token():
    tokens = torch.arange(100)
    x, y = data.text_windows(tokens, torch.tensor([0, 10]), 8)
    assert x.tolist()[1] == list(range(10, 18)) and y.tolist()[1] == list(range(11, 19))


def test_models_are_identical_for_a_seed_and_the_transformer_is_causal():
    a, b = (models.build_model("transformer", 3, vocab=20, context=8) for _ in range(2))
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    tokens = torch.randint(0, 20, (2, 8))
    changed = tokens.clone()
    changed[:, 5] = (changed[:, 5] + 1) % 20
    with torch.no_grad():
        assert torch.allclose(a(tokens)[:, :5], a(changed)[:, :5])  # no look-ahead
        assert not torch.allclose(a(tokens)[:, 5:], a(changed)[:, 5:])
    assert models.build_model("resnet", 1)(torch.zeros(3, 1, 28, 28)).shape == (3, 10)


def test_transformer_adam_on_two_ranks_writes_metrics_and_learns(tmp_path):
    out = str(tmp_path / "run")
    result = run_example(TINY_TRANSFORMER + ["--optimizer", "adam", "--steps", "8",
                                             "--eval-every", "4", "--lr", "3e-3", "--out", out],
                         ranks=2)
    assert result.returncode == 0, result.stderr
    header, rows = read_metrics(out)
    assert header == metrics.COLUMNS and [int(r["step"]) for r in rows] == list(range(1, 9))
    assert [r["samples"] for r in rows][:2] == ["8", "16"]  # step x 2 ranks x batch 4
    losses = [float(r["train_loss"]) for r in rows]
    assert all(math.isfinite(v) for v in losses) and losses[-1] < losses[0] - 0.5
    assert math.isclose(losses[0], math.log(data.TextCorpus().vocab_size), rel_tol=0.1)
    assert {r["stage"] for r in rows} == {"full_precision"}
    assert [r["test_loss"] != "" for r in rows] == [s in (4, 8) for s in range(1, 9)]
    assert all(float(r["var_norm_l2"]) > 0 and r["var_ratio_l1"] == "" for r in rows)
    # bytes_sent is cumulative, as compopt train's: Adam sends the same allreduce every step.
    sent = [float(r["bytes_sent"]) for r in rows]
    per_step = [b - a for a, b in zip(sent, sent[1:])]
    assert per_step[0] > 0 and per_step == [per_step[0]] * 7 and sent[0] >= per_step[0]
    assert os.path.isfile(os.path.join(out, "summary.json"))


def test_resnet_onebit_adam_freezes_after_the_warmup(tmp_path):
    out = str(tmp_path / "run")
    result = run_example(["--model", "resnet", "--optimizer", "onebit-adam", "--steps", "4",
                          "--freeze-step", "2", "--batch", "8", "--eval-every", "4",
                          "--eval-examples", "32", "--out", out], ranks=2)
    assert result.returncode == 0, result.stderr
    _, rows = read_metrics(out)
    assert [r["stage"] for r in rows] == ["warmup", "warmup", "compression", "compression"]
    norms = [float(r["var_norm_l2"]) for r in rows]
    assert norms[0] < norms[1] and norms[1] == norms[2] == norms[3]  # v frozen after T_w
    assert 0 <= float(rows[-1]["test_accuracy"]) <= 1


@pytest.mark.parametrize("args, named", [
    (["--optimizer", "nope"], "'nope' is not a compopt optimizer"),
    (["--optimizer", "adam", "--steps", "0"], "'0' is not an integer >= 1"),
    (["--optimizer", "adam", "--lr", "nan"], "'nan' is not a finite number > 0"),
    (["--optimizer", "adam", "--set", "beta2"], "'beta2': expected key=value"),
    (["--optimizer", "adam", "--set", "beta2=1.5"], "beta2"),
    (["--optimizer", "adam", "--set", "colour=red"], "colour"),
    (["--optimizer", "adam", "--text-dir", "/nonexistent"], "/nonexistent: no *.rst.txt"),
])
def test_bad_arguments_exit_2_naming_the_value(tmp_path, args, named):
    out = str(tmp_path / "run")
    result = run_example(TINY_TRANSFORMER + args + ["--out", out])
    assert result.returncode == 2 and named in result.stderr, result.stderr
    assert not os.path.exists(os.path.join(out, "metrics.csv"))
