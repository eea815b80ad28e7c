#!/usr/bin/env python3
"""Variance stability of 1-bit Adam on the PyTorch transformer: the variance study's figure
(plot_variance.py) drawn from the torch_variance study's CSVs.

Usage: python3 analysis/plot_torch_variance.py RUN_DIR
Reads RUN_DIR/torch_variance/variance.csv and freeze.csv (the variance study's columns).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402
import plot_variance  # noqa: E402

STUDY = "torch_variance"
REQUIRED = ["variance.csv"]


def plot(run_dir):
    return plot_variance.plot(run_dir, STUDY, "byte-level transformer LM, PyTorch, 4 ranks")


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
