"""Trains a real PyTorch model data-parallel with compopt.torch (compopt's C++ optimizers).

    build/experiments/compopt launch -n 4 -- /usr/bin/python3 experiments/torch/train.py \
        --model transformer --optimizer onebit-adam --steps 600 --out runs/torch/t-1ba

Use Debian's interpreter, /usr/bin/python3 (it sees python3-torch); see docs/python.md,
"Real models and examples". --model resnet: a small ResNet on Fashion-MNIST; --model
transformer: a byte-level transformer LM on the python3.11-doc text (experiments/torch/
tasks.py). Each rank trains on its shard; the optimizer, a compopt.torch.Optimizer, averages
gradients (or compresses momentum) across ranks. Rank 0 writes OUT/metrics.csv, run.json and
summary.json in `compopt train`'s format. Bad arguments exit 2 before any work.
"""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402

import compopt  # noqa: E402
import compopt.torch  # noqa: E402
import data  # noqa: E402
import metrics as run_files  # noqa: E402
import tasks  # noqa: E402

# Per-optimizer learning rate unless --lr is given (docs/convergence.md, "Real models").
DEFAULT_LR = {"adam": 1e-3, "onebit-adam": 1e-3, "lamb": 5e-3, "onebit-lamb": 5e-3,
              "momentum-sgd": 0.05, "birder": 1e-3, "birder-hierarchical": 1e-3}
DEFAULT_BATCH = {"resnet": 32, "transformer": 16}
# Keys set for every optimizer that has them: eps 1e-6 keeps 1-bit Adam stable where a
# frozen v is ~0 (docs/convergence.md, "Findings").
ADAM_FAMILY = {"adam", "onebit-adam", "lamb", "onebit-lamb"}


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer >= 1")
    return value


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number > 0")
    return value


def freeze_step(text):
    if text == "auto" or (text.endswith("%") and text[:-1].replace(".", "", 1).isdigit()):
        return text
    return str(positive_int(text))


def hyper_param(text):
    if "=" not in text or not text.split("=", 1)[0]:
        raise argparse.ArgumentTypeError(f"'{text}': expected key=value, e.g. beta2=0.99")
    return tuple(text.split("=", 1))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, choices=sorted(tasks.TASKS))
    p.add_argument("--optimizer", required=True, help="a compopt optimizer name "
                   "(compopt.optimizer_names()), e.g. adam, onebit-adam, lamb, onebit-lamb, "
                   "momentum-sgd, birder")
    p.add_argument("--out", required=True, help="run directory (written by rank 0)")
    p.add_argument("--steps", type=positive_int, default=200)
    p.add_argument("--batch", type=positive_int,
                   help="examples per rank per step (default: resnet 32, transformer 16)")
    p.add_argument("--lr", type=positive_float, help="default: per optimizer (DEFAULT_LR)")
    p.add_argument("--freeze-step", type=freeze_step, default="15%",
                   help="1-bit Adam / 1-bit LAMB warmup: steps, a percentage of --steps, or "
                   "auto (1-bit Adam's variance detector)")
    p.add_argument("--set", type=hyper_param, action="append", default=[], dest="hyper",
                   metavar="KEY=VALUE", help="any other optimizer key, e.g. beta2=0.99")
    p.add_argument("--eval-every", type=positive_int, default=50)
    p.add_argument("--eval-examples", type=positive_int, default=2000)
    p.add_argument("--context", type=positive_int, default=64, help="transformer window")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data-dir", default=data.FMNIST_DIR)
    p.add_argument("--text-dir", default=data.TEXT_DIR)
    args = p.parse_args(argv)
    args.batch = args.batch or DEFAULT_BATCH[args.model]
    if args.optimizer not in compopt.optimizer_names():
        p.error(f"argument --optimizer: '{args.optimizer}' is not a compopt optimizer; "
                f"choose from {', '.join(compopt.optimizer_names())}")
    return args


def hyper_params(args):
    """The optimizer's keys: lr, eps for the Adam family, the freeze step, then --set."""
    hyper = {"lr": args.lr or DEFAULT_LR.get(args.optimizer)}
    if args.optimizer in ADAM_FAMILY:
        hyper["eps"] = 1e-6
    if args.optimizer.startswith("onebit-"):
        fs = args.freeze_step
        if fs.endswith("%"):
            fs = max(1, round(float(fs[:-1]) / 100 * args.steps))
        hyper["freeze_step"] = fs
    hyper.update(dict(args.hyper))
    return {k: v for k, v in hyper.items() if v is not None}


def evaluate(task, world):
    task.model.eval()
    loss, correct, count = rank_mean(task.evaluate_share(world.rank, world.size), world)
    task.model.train()
    return loss / count, correct / count


def train_step(task, optimizer, batches, step):
    """One step: returns (loss, the stage it ran in, forward/backward s, optimizer s)."""
    t0 = time.perf_counter()
    x, y = task.batch(batches.indices(step))
    optimizer.zero_grad()
    loss = task.loss(x, y)
    loss.backward()
    stage = optimizer.stage
    t1 = time.perf_counter()
    optimizer.step()
    return loss.item(), stage, t1 - t0, time.perf_counter() - t1


def step_row(args, world, step, batches, m, times, sent):
    """The step's metrics.csv row; sent: the cumulative bytes_sent and bytes_sent_inter_node
    (metrics.csv's are totals since step 1; the optimizer reports each step's)."""
    for key in sent:
        sent[key] += m[key] or 0
    return {"step": step, "samples": step * world.size * args.batch,
            "epoch": step / batches.batches_per_epoch, "lr": m["lr"],
            "var_norm_l2": m["variance_norm"], "var_ratio_l1": m["variance_ratio"],
            "bytes_sent": sent["bytes_sent"],
            "bytes_sent_inter_node": sent["bytes_sent_inter_node"],
            "time_s": times["since_start"], "step_wall_s": times["wall"],
            "compute_s": times["compute"], "comm_s": times["step"] - m["compression_s"],
            "compression_s": m["compression_s"]}


def rank_mean(values, world):
    """The mean over ranks of a few logged numbers (loss, evaluation sums): compopt's allreduce."""
    return compopt.allreduce(np.array(values, np.float32), op="mean", world=world).tolist()


def run(args, world, task, optimizer, out):
    batches = data.ShardedBatches(task.n_train, world.rank, world.size, args.batch, args.seed)
    start, last = time.perf_counter(), {"warmup": None}
    sent = {"bytes_sent": 0, "bytes_sent_inter_node": 0}
    for step in range(1, args.steps + 1):
        t0 = time.perf_counter()
        loss, stage, compute, step_s = train_step(task, optimizer, batches, step - 1)
        row = {"train_loss": rank_mean([loss], world)[0], "stage": stage}
        if not math.isfinite(row["train_loss"]):
            raise FloatingPointError(f"non-finite train loss at step {step}")
        if stage == "compression" and last["warmup"] is None:
            last["warmup"] = step - 1
        if step % args.eval_every == 0 or step == args.steps:
            last["test"] = evaluate(task, world)
            row["test_loss"], row["test_accuracy"] = last["test"]
        now = time.perf_counter()
        times = {"since_start": now - start, "wall": now - t0, "compute": compute, "step": step_s}
        row.update(step_row(args, world, step, batches, optimizer.metrics(), times, sent))
        if out:
            out.add(row)
            if "test_loss" in row:
                out.flush()
    return {"steps": args.steps, "final_test_loss": last["test"][0],
            "final_test_accuracy": last["test"][1], "wall_s": time.perf_counter() - start,
            "freeze_step": last["warmup"]}  # T_w: steps before the first compressed one


def main(argv):
    args = parse_args(argv)
    torch.set_num_threads(1)
    world = compopt.init()
    hyper = hyper_params(args)
    try:
        task = tasks.TASKS[args.model](args)
    except ValueError as e:  # missing or unreadable data: the message names the path
        sys.stderr.write(f"error: {e}\n")
        return 2
    try:
        optimizer = compopt.torch.Optimizer(args.optimizer, task.model.parameters(), world,
                                            **hyper)
    except (compopt.InvalidArgument, ValueError, TypeError) as e:
        sys.stderr.write(f"error: --optimizer {args.optimizer}: {e}\n")
        return 2
    settings = dict(vars(args), ranks=world.size, backend=world.backend, optimizer_keys=hyper,
                    parameters=optimizer.flat_parameters.numel())
    out = run_files.RunDirectory(args.out, settings) if world.rank == 0 else None
    summary = run(args, world, task, optimizer, out)
    if out:
        out.finish(summary)
        print(f"{args.model} {args.optimizer}: test loss {summary['final_test_loss']:.4f}, "
              f"accuracy {summary['final_test_accuracy']:.4f} after {args.steps} steps "
              f"({summary['wall_s']:.1f} s) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
