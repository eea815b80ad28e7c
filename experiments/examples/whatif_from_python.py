"""What-if from Python: does 1-bit Adam or Birder speed up ResNet-18 training on my cluster?

A notebook-style script (``# %%`` cells: run it top to bottom, or cell by cell in an editor that
knows the marker). It profiles torchvision's ResNet-18 once with compopt.workload_from_torch,
then asks the simulator (compopt.simulate, compopt.sweep: the code of ``compopt profile`` and
``compopt sweep``) for the step time of Adam, 1-bit Adam and Birder on three clusters and over
a range of NIC speeds, and prints the answer. Run it with Debian's Python, where torch lives:

    /usr/bin/python3 experiments/examples/whatif_from_python.py

(from a checkout built with ``make build``; docs/python.md, "The simulator from Python").
"""
# %% The model: ResNet-18 at 224 x 224, counted on a batch of 2, trained at 64 per GPU
import pandas as pd
import torch
import torchvision

import compopt

model = torchvision.models.resnet18()
workload = compopt.workload_from_torch(model, torch.zeros(2, 3, 224, 224), name="resnet18",
                                       default_batch_per_gpu=64, compute_precision="bf16",
                                       gradient_precision="bf16")
print(f"{workload['name']}: {workload['parameters'] / 1e6:.2f} M parameters in "
      f"{workload['tensors']} tensors, {workload['forward_gflops_per_sample']:.2f} GFLOP "
      "forward per sample")

# %% Three clusters, three optimizers, 32 GPUs each: one simulated step per pair
CLUSTERS = ["ethernet-a100-8", "h100-ethernet-25g", "dgx-a100"]
OPTIMIZERS = ["adam", "onebit-adam", "birder"]
GPUS = 32
rows = pd.concat([compopt.simulate(workload, cluster, optimizer, GPUS)
                  for cluster in CLUSTERS for optimizer in OPTIMIZERS])
# The 1-bit optimizers' steady state is their compression stage (their last row).
steady = rows.groupby(["cluster", "optimizer"], sort=False).last().reset_index()
table = steady.pivot(index="cluster", columns="optimizer", values="step_time_s")[OPTIMIZERS]
table = 1e3 * table.reindex(CLUSTERS)
for optimizer in OPTIMIZERS[1:]:
    table[f"{optimizer} speedup"] = table["adam"] / table[optimizer]
gbps = steady.groupby("cluster", sort=False)["inter_node_gbit_s"].first()
print(f"\nms per step on {GPUS} GPUs (compression stage of the 1-bit optimizers):")
print(table.round(2).to_string())

# %% The answer per cluster
for cluster in CLUSTERS:
    print(f"{cluster}: 1-bit Adam gives {table.loc[cluster, 'onebit-adam speedup']:.2f}x, "
          f"Birder {table.loc[cluster, 'birder speedup']:.2f}x over Adam at "
          f"{gbps[cluster]:g} Gbit/s")

# %% Where does compression stop paying? The first cluster over a range of NIC speeds
config = {"workload": workload, "cluster": {"preset": CLUSTERS[0]},
          "sweep": {"optimizers": ["adam", "onebit-adam"], "gpus": GPUS,
                    "inter_node_gbps": [10, 25, 50, 100, 200]}}
grid = compopt.sweep(config).groupby(["inter_node_gbit_s", "optimizer"]).last()
speedup = (grid.xs("adam", level="optimizer")["step_time_s"]
           / grid.xs("onebit-adam", level="optimizer")["step_time_s"])
print(f"\n1-bit Adam's speedup over Adam on {CLUSTERS[0]} by NIC Gbit/s:")
print(speedup.round(2).to_string())
paying = speedup[speedup > 1]
print(f"\nAnswer: 1-bit Adam gives {speedup.max():.2f}x at {speedup.idxmax():g} Gbit/s on "
      f"{CLUSTERS[0]}; it pays up to {paying.index.max():g} Gbit/s" if len(paying) else
      f"\nAnswer: 1-bit Adam does not pay on {CLUSTERS[0]} at any of these speeds")
