"""Summary of experiments/validation/netns_peer_cost.sh's peer_cost.csv.

Per (ranks, cycles): the median round time of the ring (1 peer) and spread (n - 1 peers)
patterns, the paired difference spread - ring of the same block (median, quartiles and a
95% bootstrap interval of the median), and that difference per extra peer (n - 2 of them)
and per step. At n = 2 the two patterns are the same ring: its difference is the method's
own bias and noise.

Per ranks n > 2 with two or more values of cycles: the line through the median differences,
diff = (n - 2) x per_peer + steps x per_step, which separates a cost per peer (the intercept,
paid once per round) from a cost that grows with the steps (how the change of peer at every
step costs or saves per message), with 95% bootstrap intervals (blocks resampled within each
cycles value).

Usage: netns_peer_cost.py PEER_COST_CSV [PEER_COST_CSV ...]
(several files, e.g. repeated runs, are pooled: their blocks are kept apart, not merged)
"""

import csv
import random
import statistics
import sys
from collections import defaultdict

BOOTSTRAP_SAMPLES = 2000


def quantile(values, q):
    """The q-quantile of values by linear interpolation between order statistics."""
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def bootstrap_median(values, rng):
    """The 2.5% and 97.5% quantiles of the median of resamples of values."""
    medians = [statistics.median(rng.choices(values, k=len(values)))
               for _ in range(BOOTSTRAP_SAMPLES)]
    return quantile(medians, 0.025), quantile(medians, 0.975)


def read_blocks(paths):
    """{(ranks, cycles, steps): {(file, block): {pattern: round_us}}} from the CSVs."""
    groups = defaultdict(lambda: defaultdict(dict))
    for i, path in enumerate(paths):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                key = (int(row["ranks"]), int(row["cycles"]), int(row["steps"]))
                block = (i, int(row["block"]))
                groups[key][block][row["pattern"]] = float(row["round_us"])
    return groups


def summary_line(key, blocks, rng):
    """One line of the summary for a (ranks, cycles, steps) group."""
    ranks, cycles, steps = key
    pairs = [b for b in blocks.values() if "ring" in b and "spread" in b]
    ring = [b["ring"] for b in pairs]
    spread = [b["spread"] for b in pairs]
    diff = diffs(blocks)
    lo, hi = bootstrap_median(diff, rng)
    d = statistics.median(diff)
    extra = ranks - 2
    per_peer = ("diff / (n - 2) {:+8.2f} us [{:+.2f}, {:+.2f}]".format(
        d / extra, lo / extra, hi / extra) if extra > 0 else "control (no extra peer)")
    return ("n={} cycles={} steps={:3d} blocks={:3d}  ring {:8.1f} us ({:6.1f} us/step)  "
            "spread {:8.1f} us  diff {:+8.2f} us (quartiles {:+.2f}, {:+.2f}; 95% CI "
            "[{:+.2f}, {:+.2f}])  {}").format(
                ranks, cycles, steps, len(pairs), statistics.median(ring),
                statistics.median(ring) / steps, statistics.median(spread), d,
                quantile(diff, 0.25), quantile(diff, 0.75), lo, hi, per_peer)


def line_fit(points):
    """Least-squares (intercept, slope) through [(x, y)]."""
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return my - slope * mx, slope


def diffs(blocks):
    """Paired spread - ring differences of the blocks that have both patterns."""
    return [b["spread"] - b["ring"] for b in blocks.values() if "ring" in b and "spread" in b]


def peer_fit(ranks, groups, rng):
    """The per-peer / per-step split for one world size, or None without two cycles values."""
    sets = [(steps, diffs(blocks)) for (n, _, steps), blocks in groups.items() if n == ranks]
    if ranks < 3 or len(sets) < 2:
        return None

    def fit(samples):
        a, b = line_fit([(steps, statistics.median(d)) for steps, d in samples])
        return a / (ranks - 2), b

    peer, step = fit(sets)
    boot = [fit([(s, rng.choices(d, k=len(d))) for s, d in sets])
            for _ in range(BOOTSTRAP_SAMPLES)]
    return ("n={} fit diff = {} x per_peer + steps x per_step: per_peer {:+.2f} us "
            "[{:+.2f}, {:+.2f}], per_step {:+.2f} us [{:+.2f}, {:+.2f}]").format(
                ranks, ranks - 2, peer, quantile([p for p, _ in boot], 0.025),
                quantile([p for p, _ in boot], 0.975), step,
                quantile([s for _, s in boot], 0.025), quantile([s for _, s in boot], 0.975))


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: netns_peer_cost.py PEER_COST_CSV [PEER_COST_CSV ...]")
    rng = random.Random(19)
    groups = read_blocks(argv[1:])
    if not groups:
        sys.exit("{}: no rows".format(", ".join(argv[1:])))
    for key in sorted(groups):
        print(summary_line(key, groups[key], rng))
    for ranks in sorted({n for n, _, _ in groups}):
        line = peer_fit(ranks, groups, rng)
        if line:
            print(line)


if __name__ == "__main__":
    main(sys.argv)
