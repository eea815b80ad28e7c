"""The run directory of a PyTorch example, in `compopt train`'s format (docs/training.md):
metrics.csv (one row per step, the same columns; those the example cannot measure are left
empty), run.json (command and resolved settings) and summary.json (final figures). Only
rank 0 writes; every file is written to a temporary name and renamed.
"""
import json
import math
import os
import sys

COLUMNS = ["step", "samples", "epoch", "stage", "lr", "train_loss", "test_loss",
           "test_accuracy", "var_norm_l2", "var_ratio_l1", "bytes_sent", "bytes_sent_inter_node",
           "time_s", "step_wall_s", "compute_s", "comm_s", "compression_s"]
FORMATS = {"epoch": "{:.6f}", "lr": "{:.8g}", "train_loss": "{:.8g}", "test_loss": "{:.8g}",
           "test_accuracy": "{:.8g}", "var_norm_l2": "{:.8g}", "var_ratio_l1": "{:.8g}",
           "time_s": "{:.6f}", "step_wall_s": "{:.6f}", "compute_s": "{:.6f}",
           "comm_s": "{:.6f}"}


def _cell(column, value):
    if value is None:
        return ""
    return FORMATS.get(column, "{}").format(value)


def _write_atomic(path, text):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class RunDirectory:
    """metrics.csv rows accumulate in memory and are flushed at every evaluation step."""

    def __init__(self, out, settings):
        os.makedirs(out, exist_ok=True)
        self.out, self.rows = out, []
        run = {"command": sys.argv, "settings": settings}
        _write_atomic(os.path.join(out, "run.json"), json.dumps(run, indent=2) + "\n")

    def add(self, row):
        unknown = set(row) - set(COLUMNS)
        if unknown:
            raise ValueError(f"metrics.csv has no column {sorted(unknown)}")
        self.rows.append(",".join(_cell(c, row.get(c)) for c in COLUMNS))

    def flush(self):
        _write_atomic(os.path.join(self.out, "metrics.csv"),
                      "\n".join([",".join(COLUMNS)] + self.rows) + "\n")

    def finish(self, summary):
        self.flush()
        clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                 for k, v in summary.items()}
        _write_atomic(os.path.join(self.out, "summary.json"), json.dumps(clean, indent=2) + "\n")
