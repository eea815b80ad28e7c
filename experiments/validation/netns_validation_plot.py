#!/usr/bin/env python3
"""Draws OUT/validation.csv of netns_validation.sh: allreduce time against size,
real TCP (solid) vs simulator (dashed; dotted: simulated wire + compression work
timed alone), one panel per (ranks, link rate, added one-way latency). The
compression-only "local" rows are not drawn. CSVs without the added_latency_us
column count as 0 added."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


# The columns this script reads (validation.csv has more).
REQUIRED_COLUMNS = ["source", "link_mbit", "ranks", "variant", "bytes", "seconds"]


def main(csv_path: str, png_path: str) -> None:
    series = defaultdict(list)  # (ranks, link, added latency, variant, source) -> [(MB, seconds)]
    with open(csv_path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit("%s: missing column(s) %s" % (csv_path, ", ".join(missing)))
        for row in reader:
            if row["source"] == "local":
                continue
            added_us = int(row.get("added_latency_us") or 0)
            key = (int(row["ranks"]), int(row["link_mbit"]), added_us, row["variant"],
                   row["source"])
            series[key].append((int(row["bytes"]) / 1e6, float(row["seconds"])))
    panels = sorted({k[:3] for k in series})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        ranks, link, added_us = panel
        for (r, l, a, variant, source), points in sorted(series.items()):
            if (r, l, a) != panel:
                continue
            points.sort()
            style = {"tcp": ("-", "o"), "sim": ("--", "x")}.get(source, (":", "+"))
            ax.plot([p[0] for p in points], [p[1] for p in points], style[0], marker=style[1],
                    label=f"{variant} ({source})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("vector size (MB, fp32)")
        ax.set_ylabel("time per call (s)")
        latency = f", +{added_us / 1000:g} ms one way" if added_us else ""
        ax.set_title(f"{ranks} ranks, {link} Mbit/s links{latency}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path + ".tmp.png", dpi=120)
    import os
    os.replace(png_path + ".tmp.png", png_path)
    print(f"wrote {png_path}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: netns_validation_plot.py validation.csv validation.png")
    main(sys.argv[1], sys.argv[2])
