#!/usr/bin/env python3
"""Writes the fixture run directory analysis/tests/fixtures/run/ (small CSVs of
every study, in the schema of docs/reproduction.md) from simple closed-form
models with plausible magnitudes: BERT-Large allreduce about 2200 ms over
~4 Gbit/s Ethernet (1-bit Adam Table 1), Birder's single-node throughputs,
speedups of 1-6x. The published columns come from data/published/*.csv,
the same files the C++ program embeds. Deterministic; run it again only to
change the fixtures.

Usage: python3 analysis/tests/make_fixtures.py [OUT_DIR]
"""
import csv
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

PUBLISHED = os.path.join(HERE, "..", "..", "data", "published")


def published_rows(name):
    """Rows of data/published/NAME as dicts; '#' lines are provenance comments."""
    with open(os.path.join(PUBLISHED, name), newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


# 1-bit Adam Table 1 (network, nodes, gpus, batch/GPU, accum, fwd, allreduce, bwd else, step, %).
PUBLISHED_PROFILE = [
    (r["network"], int(r["nodes"]), int(r["gpus"]), int(r["batch_per_gpu"]), int(r["grad_accum"]),
     float(r["forward_ms"]), float(r["backward_allreduce_ms"]), float(r["backward_else_ms"]),
     float(r["step_ms"]), int(r["allreduce_pct"]))
    for r in published_rows("onebit_adam_profile.csv")
]

# The papers' name of momentum SGD -> compopt's one name for it (the optimizer registry).
CANONICAL_OPTIMIZER = {"sgdm": "momentum-sgd"}

# Birder Tables 1-2, single node: (workload, optimizer, batch/GPU) -> samples/s.
PUBLISHED_THROUGHPUT = {
    (r["workload"], CANONICAL_OPTIMIZER.get(r["optimizer"], r["optimizer"]),
     int(r["batch_per_gpu"])): float(r["throughput_samples_s"])
    for r in published_rows("birder_single_node.csv")
}


def g(x):
    return "%.6g" % x


def write(out, study, name, header, rows):
    os.makedirs(os.path.join(out, study), exist_ok=True)
    with open(os.path.join(out, study, name), "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join("" if v is None else (g(v) if isinstance(v, float) else str(v))
                             for v in r) + "\n")


def variance(out, rnd):
    rows, freeze = [], []
    for beta2, every, last in ((0.99, 20, 800), (0.98, 20, 800), (0.999, 80, 800)):
        delta = math.ceil(1 / (1 - beta2))
        warm = 2 * delta
        found = None
        for step in range(every, last + 1, every):
            lr = 1e-3 * min(1.0, step / warm)
            loss = 0.35 + 2.0 * math.exp(-step / 150) + rnd.uniform(-0.03, 0.03)
            norm = (0.04 * (1 - math.exp(-step / (0.3 * delta)))
                    * (0.6 + 0.4 * math.exp(-step / 600)))
            ratio = None
            if step > delta:
                ratio = (0.93 + 2.5 * math.exp(-(step - delta) / (0.4 * delta))
                         + rnd.uniform(-0.05, 0.06))
                if found is None and step > warm and ratio >= 0.96:
                    found = step
            rows.append((beta2, step, lr, loss, norm, ratio))
        freeze.append((beta2, delta, 0.96, found))
    write(out, "variance", "variance.csv", "beta2,step,lr,train_loss,var_norm_l2,var_ratio_l1",
          rows)
    write(out, "variance", "freeze.csv", "beta2,delta,threshold,freeze_step", freeze)


def convergence(out, rnd):
    params = 269322
    full_bytes = 2 * 15 / 16 * params * 4  # ring allreduce of fp32, per rank and step
    specs = [  # optimizer, seeds, final accuracy, warmup fraction or None, loss scale
        ("adam", (1, 2), 0.872, None, 1.0),
        ("onebit-adam", (1, 2), 0.866, 0.15, 1.03),
        ("lamb", (1,), 0.861, None, 1.06),
        ("onebit-lamb", (1,), 0.858, 0.15, 1.08),
        ("momentum-sgd", (1,), 0.842, None, 1.15),
    ]
    steps = list(range(0, 301, 25))
    curves, summary = [], []
    for optimizer, seeds, final_acc, warm, scale in specs:
        for seed in seeds:
            t = 0.0
            sent = 0.0
            prev = 0
            for step in steps:
                stage = "full_precision"
                if warm is not None:
                    stage = "warmup" if step < warm * 300 else "compression"
                per_step = 0.245 if stage != "compression" else 0.048
                t += (step - prev) * per_step
                sent += (step - prev) * (full_bytes if stage != "compression" else full_bytes / 28)
                prev = step
                loss = scale * (0.38 + 1.9 * math.exp(-step / 60)) + rnd.uniform(-0.04, 0.04)
                evaluate = step % 75 == 0
                acc = final_acc - 0.62 * math.exp(-step / 50) + rnd.uniform(-0.004, 0.004)
                curves.append((optimizer, seed, step, step * 512, step * 512 / 60000, t, stage,
                               loss, loss * 1.04 if evaluate else None,
                               acc if evaluate else None, int(sent)))
            summary.append((optimizer, seed, acc, loss * 1.04, t, int(sent)))
    write(out, "convergence", "curves.csv",
          "optimizer,seed,step,samples,epoch,time_s,stage,train_loss,test_loss,test_accuracy,"
          "bytes_sent", curves)
    write(out, "convergence", "summary.csv",
          "optimizer,seed,final_test_accuracy,final_test_loss,time_s,bytes_sent", summary)


# low..high of a figure over the bandwidth spread, as factors of the expected value (the
# spread of the fitted V100 Ethernet preset is about this wide).
SPREAD = (0.96, 1.18)


def profile(out, rnd):
    rows = []
    for network, nodes, gpus, bs, accum, fwd, ar, other, step, pct in PUBLISHED_PROFILE:
        for optimizer, stage in (("adam", "full_precision"), ("onebit-adam", "warmup"),
                                 ("onebit-adam", "compression")):
            ours_ar = ar * rnd.uniform(0.9, 1.12)
            compress = 0.0
            if stage == "compression":
                ours_ar = ours_ar / (8.5 if network == "ethernet" else 4.0)
                compress = 6.5
            f, o, s = fwd * rnd.uniform(0.97, 1.03), other, step
            total = f + ours_ar + o + s + compress
            published = optimizer == "adam"
            rows.append((network, nodes, gpus, bs, accum, optimizer, stage, f, ours_ar,
                         ours_ar * SPREAD[0], ours_ar * SPREAD[1], o, compress, s, total,
                         100 * ours_ar / total, ar if published else None,
                         float(pct) if published else None))
    write(out, "profile", "profile.csv",
          "network,nodes,gpus,batch_per_gpu,grad_accum,optimizer,stage,forward_ms,allreduce_ms,"
          "allreduce_low_ms,allreduce_high_ms,backward_else_ms,compress_ms,step_ms,total_ms,"
          "allreduce_pct,published_allreduce_ms,published_allreduce_pct", rows)


# Fitted NIC efficiencies of the presets (net_models/cluster_presets.cc): the effective
# rate is the nominal one times this.
EFFICIENCY = {"ethernet-v100-4": 0.1209, "ethernet-a100-8": 1.0}


def scalability(out, rnd):
    comparisons = [  # comparison, workload, cluster, per node, gbps, batch, compute ms, full AR ms
        ("adam_onebit_adam", "bert-large-seq128", "ethernet-v100-4", 4, 40, 16,
         [("adam", 172.0, 2200.0, 1.0), ("onebit-adam", 172.0, 2200.0, 7.5)]),
        ("lamb_onebit_lamb", "bert-large-seq128", "ethernet-v100-4", 4, 40, 16,
         [("lamb", 180.0, 2200.0, 1.0), ("onebit-lamb", 180.0, 2200.0, 6.5)]),
        ("birder_resnet50", "resnet50-imagenet", "ethernet-a100-8", 8, 10, 32,
         [("momentum-sgd", 69.3, 160.0, 1.0), ("onebit-adam", 78.9, 160.0, 5.0),
          ("birder", 73.9, 160.0, 9.0)]),
        ("birder_bert_base", "bert-base-squad", "ethernet-a100-8", 8, 10, 3,
         [("bertadam", 58.1, 700.0, 1.0), ("onebit-adam", 67.0, 700.0, 6.0),
          ("birder", 58.3, 700.0, 11.0)]),
    ]
    rows = []
    for comparison, workload, cluster, per_node, gbps, batch, optimizers in comparisons:
        for optimizer, compute, full_ar, reduction in optimizers:
            stages = ["full_precision"] if reduction == 1.0 else ["warmup", "compression"]
            for stage in stages:
                for gpus in (8, 16, 64, 256):
                    nodes = max(1, gpus // per_node)
                    ar = 0.0
                    if nodes > 1:
                        ar = full_ar * (1 + 0.02 * math.log2(nodes))
                    else:
                        ar = full_ar * 0.012  # NVLink / PCIe inside one node
                    if stage == "compression":
                        ar /= reduction
                    step = compute + ar * rnd.uniform(0.97, 1.03)
                    thr = gpus * batch / (step / 1000)
                    published = gpus == 8 and nodes == 1 and stage in (
                        "full_precision", "compression")
                    pub = PUBLISHED_THROUGHPUT.get((workload, optimizer, batch)) if (
                        published) else None
                    efficiency = EFFICIENCY[cluster]
                    rows.append((comparison, workload, cluster, optimizer, stage, gpus, nodes,
                                 min(gpus, per_node), gbps, efficiency, gbps * efficiency, batch,
                                 thr, thr / SPREAD[1], thr / SPREAD[0], step, ar,
                                 float(pub) if pub else None))
    write(out, "scalability", "scalability.csv",
          "comparison,workload,cluster,optimizer,stage,gpus,nodes,gpus_per_node,inter_node_gbit_s,"
          "inter_node_efficiency,inter_node_effective_gbit_s,batch_per_gpu,throughput_samples_s,"
          "throughput_low_samples_s,throughput_high_samples_s,step_ms,allreduce_ms,"
          "published_throughput_samples_s",
          rows)


PAIRS = [  # workload, baseline, optimizer, compute ms, AR ms at 1 Gbit/s, reduction, overhead ms
    ("bert-large-seq128", "adam", "onebit-adam", 172.0, 8800.0, 6.0, 6.0),
    ("bert-large-seq128", "lamb", "onebit-lamb", 180.0, 8800.0, 5.2, 8.0),
    ("resnet50-imagenet", "momentum-sgd", "birder", 69.3, 410.0, 6.5, 15.0),
]


def bandwidth(out):
    rows = []
    for workload, baseline, optimizer, compute, ar1, reduction, overhead in PAIRS:
        for gbps in (0.05, 0.1, 0.5, 1, 5, 10, 50, 100):
            base = compute + ar1 / gbps
            comp = compute + overhead + ar1 / gbps / reduction + 4.0
            speedup = base / comp
            efficiency = 0.1209  # the swept value is effective; the NIC runs at value / efficiency
            rows.append((workload, 256, baseline, optimizer, gbps / efficiency, efficiency,
                         float(gbps), base, comp, speedup, speedup * 0.99, speedup * 1.02))
    write(out, "bandwidth", "bandwidth.csv",
          "workload,gpus,baseline,optimizer,inter_node_gbit_s,inter_node_efficiency,"
          "inter_node_effective_gbit_s,baseline_step_ms,compressed_step_ms,speedup,speedup_low,"
          "speedup_high", rows)


def hierarchical(out):
    rows = []
    elements = 25557032
    for per_node in (4, 8):
        for nodes in (2, 4, 8, 16):
            gpus = nodes * per_node
            for scheme in ("flat", "hierarchical"):
                senders = per_node if scheme == "flat" else 1
                n = gpus if scheme == "flat" else nodes
                per_sender = 2 * (n - 1) / n * (elements / 8 + 4 * n)
                node_bytes = senders * per_sender
                ms = node_bytes * 8 / 10e9 * 1000 * (1.0 + 0.03 * nodes) + (
                    0.0 if scheme == "flat" else 2.5 + 0.4 * per_node)
                # the band: about the model-error term each side, a little wider above
                rows.append((nodes, per_node, gpus, scheme, elements, float(int(node_bytes)), ms,
                             ms * 0.87, ms * 1.16))
    write(out, "hierarchical", "hierarchical.csv",
          "nodes,gpus_per_node,gpus,scheme,elements,inter_node_bytes_per_node,allreduce_ms,"
          "allreduce_low_ms,allreduce_high_ms", rows)


def lamb(out, rnd):
    layers = [(0, "fc1.weight", 0.42), (2, "fc2.weight", 0.31), (4, "fc3.weight", 0.18)]
    rows = []
    for optimizer in ("lamb", "onebit-lamb"):
        for step in range(0, 201, 20):
            stage = "full_precision" if optimizer == "lamb" else (
                "warmup" if step < 60 else "compression")
            for layer, name, base in layers:
                c = base * (1 + 0.8 * math.exp(-step / 40)) + rnd.uniform(-0.01, 0.01)
                ratio = None
                if stage == "compression":
                    ratio = 1 + 0.25 * math.sin(step / 30 + layer) * math.exp(-(step - 60) / 120)
                    c = ratio * base * (1 + 0.8 * math.exp(-60 / 40))
                rows.append((optimizer, step, stage, layer, name, c, ratio))
    write(out, "lamb", "coefficients.csv",
          "optimizer,step,stage,layer,layer_name,coefficient,ratio", rows)


def volume(out):
    rows = []
    for optimizer, w, measured_error in (("onebit-adam", 0.15, -0.012),
                                         ("naive-onebit-adam", 0.0, 0.031),
                                         ("onebit-lamb", 0.15, -0.018), ("birder", 0.0, 0.022)):
        formula = 1 / (w + (1 - w) / 32)
        measured = formula * (1 + measured_error)
        rows.append((optimizer, w, 32, formula, measured, measured_error))
    write(out, "volume", "volume.csv",
          "optimizer,warmup_fraction,k,formula_reduction,measured_reduction,relative_error", rows)


def break_even(out):
    # The first three agree with the bandwidth fixture's model; spread 0.96..1.18. The last two
    # columns: the search against NCCL's default algorithm, whose second row ends on NCCL's
    # ring/tree switch.
    rows = [
        ("bert-large-seq128", 256, "adam", "onebit-adam", 733.0, 0.01, 1000.0, 5.99, "found",
         740.0, "found"),
        ("bert-large-seq128", 256, "lamb", "onebit-lamb", 592.0, 0.01, 1000.0, 5.19, "found",
         112.6, "algorithm_switch"),
        ("resnet50-imagenet", 256, "momentum-sgd", "birder", 18.3, 0.01, 1000.0, 6.47, "found",
         18.3, "found"),
        ("bert-large-seq128", 256, "adam", "naive-onebit-adam", None, 0.01, 1000.0, 6.2,
         "above_range", None, "above_range"),
        ("bert-base-squad", 256, "bertadam", "onebit-adam", None, 0.01, 1000.0, 0.93,
         "below_range", None, "below_range"),
    ]
    rows = [r[:5] + ((None, None) if r[4] is None else (r[4] * 0.96, r[4] * 1.18)) + r[5:]
            for r in rows]
    write(out, "break_even", "break_even.csv",
          "workload,gpus,baseline,optimizer,break_even_effective_gbit_s,"
          "break_even_low_effective_gbit_s,break_even_high_effective_gbit_s,"
          "search_lo_effective_gbit_s,search_hi_effective_gbit_s,speedup_at_lo,status,"
          "nccl_default_break_even_effective_gbit_s,nccl_default_status", rows)


def training_run_json(out):
    """The part of a training run's run.json the convergence figure reads: the workload whose
    modelled step the simulated clock charged (config.resolved.compute.stand_in)."""
    folder = os.path.join(out, "training", "adam-seed1")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "run.json"), "w") as f:
        f.write('{"command": "train", "status": "completed", "config": {"resolved": '
                '{"cluster": "ethernet-v100-4", "compute": {"mode": "model", '
                '"stand_in": "bert-large-seq128"}}}}\n')


def main(out):
    rnd = random.Random(6)
    variance(out, rnd)
    convergence(out, rnd)
    profile(out, rnd)
    scalability(out, rnd)
    bandwidth(out)
    hierarchical(out)
    lamb(out, rnd)
    volume(out)
    break_even(out)
    training_run_json(out)
    print("wrote fixtures under %s" % out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fixtures", "run"))
