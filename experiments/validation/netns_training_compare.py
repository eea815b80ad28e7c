#!/usr/bin/env python3
"""Real vs simulated time per training step (experiments/validation/netns_training_validation.sh).

--charges METRICS.CSV prints the local work per step a Local run measured, as the three
numbers run.compute = fixed takes: median forward/backward (compute_s), median optimizer
step (comm_s: on Local its collectives are memory copies between threads, so it is the
element-wise update plus those copies and the wait for the slowest thread) and median
compression (compression_s) of the compression-stage steps (0 without any).

OUT_DIR mode reads OUT_DIR/{local,tcp,sim}_* runs, checks that tcp and sim computed what
local did (every metrics.csv column but the time columns equal), and writes one row per
optimizer, link rate and stage: the median real step time (rank 0's measured wall time),
the median simulated one (differences of time_s) and sim / real - 1.
"""
import argparse
import csv
import pathlib
import re
import statistics
import sys

WALL, COMPUTE, COMM, COMPRESSION = "step_wall_s", "compute_s", "comm_s", "compression_s"
TIME_COLUMNS = {"time_s", WALL, COMPUTE, COMM, COMPRESSION}
RUN = re.compile(r"^(tcp|sim)_(.+)_(\d+)mbit$")


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def charges(rows):
    """Median pass, optimizer step and compression seconds of a run's steps."""
    pass_s = statistics.median(float(r[COMPUTE]) for r in rows)
    step_s = statistics.median(float(r[COMM]) for r in rows)
    compressed = [float(r[COMPRESSION]) for r in rows if r["stage"] == "compression"]
    return pass_s, step_s, statistics.median(compressed) if compressed else 0.0


def same_math(a_rows, b_rows, what):
    """Raises unless every column but the time columns is equal row by row."""
    if len(a_rows) != len(b_rows):
        raise SystemExit(f"{what}: {len(a_rows)} vs {len(b_rows)} steps")
    for a, b in zip(a_rows, b_rows):
        for key in a:
            if key not in TIME_COLUMNS and a[key] != b.get(key):
                raise SystemExit(f"{what}: step {a['step']} column {key}: {a[key]} vs {b.get(key)}")


def step_times(rows, simulated):
    """Stage -> the step times of its steps (simulated: differences of time_s)."""
    by_stage, before = {}, 0.0
    for r in rows:
        t = float(r["time_s"]) - before if simulated else float(r[WALL])
        before = float(r["time_s"])
        by_stage.setdefault(r["stage"], []).append(t)
    return by_stage


def compare(out_dir):
    runs = {}
    for d in sorted(out_dir.iterdir()):
        m = RUN.match(d.name)
        if m and (d / "metrics.csv").is_file():
            runs[(m.group(1), m.group(2), int(m.group(3)))] = read_rows(d / "metrics.csv")
    rows = []
    for (source, optimizer, rate), real in sorted(runs.items()):
        if source != "tcp" or ("sim", optimizer, rate) not in runs:
            continue
        sim = runs[("sim", optimizer, rate)]
        local = read_rows(out_dir / f"local_{optimizer}" / "metrics.csv")
        same_math(local, real, f"{optimizer} {rate} Mbit/s: local vs tcp")
        same_math(local, sim, f"{optimizer} {rate} Mbit/s: local vs sim")
        real_times, sim_times = step_times(real, False), step_times(sim, True)
        for stage, times in real_times.items():
            r, s = statistics.median(times), statistics.median(sim_times[stage])
            rows.append({"optimizer": optimizer, "link_mbit": rate, "stage": stage,
                         "steps": len(times), "real_s": f"{r:.6f}", "sim_s": f"{s:.6f}",
                         "sim_over_real_minus_1": f"{s / r - 1:+.4f}"})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charges", metavar="METRICS_CSV")
    parser.add_argument("--out", metavar="CSV")
    parser.add_argument("out_dir", nargs="?", type=pathlib.Path)
    args = parser.parse_args()
    if args.charges:
        print(" ".join(f"{x:.6g}" for x in charges(read_rows(args.charges))))
        return
    if not args.out_dir or not args.out:
        parser.error("give --charges METRICS_CSV, or --out CSV and OUT_DIR")
    rows = compare(args.out_dir)
    if not rows:
        raise SystemExit(f"{args.out_dir}: no tcp_*/sim_* run pairs with metrics.csv")
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    for r in rows:
        print(f"{r['optimizer']:>12} {r['link_mbit']:>5} Mbit/s {r['stage']:>12} "
              f"({r['steps']} steps): real {r['real_s']} s, sim {r['sim_s']} s, "
              f"{float(r['sim_over_real_minus_1']):+.1%}")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
