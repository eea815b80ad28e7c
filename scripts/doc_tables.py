#!/usr/bin/env python3
"""Renders the tables of the docs that quote a `compopt reproduce` run from that run's CSVs,
so the docs and a fresh run cannot disagree silently.

A generated block in a Markdown file is
    <!-- generated: NAME -->
    ...
    <!-- end generated -->
and NAME is a key of RENDERERS: the lines between the markers are the renderer's table of
the CSVs in --csv-dir (default tests/golden/reproduce_quick/, the committed quick run that
ctest reproduce_golden compares with a fresh one).

Usage: python3 scripts/doc_tables.py [--check] [--csv-dir DIR] [FILE.md ...]
  (default files: docs/reproduction.md)
Without --check, rewrites the blocks in place. With --check, changes nothing and exits 1
naming each block that differs (with a diff), 0 when all match. Exit 2: an unknown block
name, a block without its end marker, or a missing CSV.
"""
import csv
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CSV_DIR = os.path.join(ROOT, "tests", "golden", "reproduce_quick")
DEFAULT_DOCS = [os.path.join(ROOT, "docs", "reproduction.md")]
BEGIN = re.compile(r"^<!-- generated: ([a-z_]+) -->$")
END = "<!-- end generated -->"

WORKLOADS = {"bert-large-seq128": "BERT-Large", "bert-base-squad": "BERT-Base SQuAD",
             "resnet50-imagenet": "ResNet-50", "resnet152-imagenet": "ResNet-152"}
OPTIMIZERS = {"adam": "Adam", "onebit-adam": "1-bit Adam", "naive-onebit-adam": "naive 1-bit Adam",
              "lamb": "LAMB", "onebit-lamb": "1-bit LAMB", "birder": "Birder",
              "momentum-sgd": "SGDM", "bertadam": "BertAdam"}


class DocError(Exception):
    """Bad input: the message names the file and what was expected."""


def rows(csv_dir, study, name):
    path = os.path.join(csv_dir, study, name)
    if not os.path.isfile(path):
        raise DocError("%s: missing (expected the %s study's CSV of a reproduce run)"
                       % (path, study))
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def table(header, body, align=None):
    align = align or ["---"] + ["---:"] * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    return lines + ["| " + " | ".join(r) + " |" for r in body]


def opt(name):
    return OPTIMIZERS.get(name, name)


def workload(name):
    return WORKLOADS.get(name, name)


def signed_pct(value, digits=1):
    """+1.2% / −1.2% (a typographic minus); a value that rounds to zero is 0.0%."""
    if round(value, digits) == 0:
        return "%.*f%%" % (digits, 0.0)
    return ("%+.*f%%" % (digits, value)).replace("-", "−")


def volume(csv_dir):
    body = [[opt(r["optimizer"]), "%.3f" % float(r["warmup_fraction"]),
             "%.3f×" % float(r["formula_reduction"]), "%.3f×" % float(r["measured_reduction"]),
             signed_pct(100 * float(r["relative_error"]), 2)]
            for r in rows(csv_dir, "volume", "volume.csv")]
    return table(["optimizer", "w", "formula", "measured", "error"], body)


def profile(csv_dir):
    all_rows = rows(csv_dir, "profile", "profile.csv")
    onebit = {(r["network"], r["nodes"], r["batch_per_gpu"], r["grad_accum"]): r
              for r in all_rows if r["optimizer"] == "onebit-adam" and r["stage"] == "compression"}
    body = []
    for r in all_rows:
        if r["optimizer"] != "adam":
            continue
        key = (r["network"], r["nodes"], r["batch_per_gpu"], r["grad_accum"])
        ours, pub = float(r["allreduce_ms"]), float(r["published_allreduce_ms"])
        accum = "×%s" % r["grad_accum"] if r["grad_accum"] != "1" else ""
        body.append([r["network"], "%s × %d" % (r["nodes"], int(r["gpus"]) // int(r["nodes"])),
                     r["batch_per_gpu"] + accum, "%.1f" % ours, "%.1f" % pub,
                     signed_pct(100 * (ours - pub) / pub),
                     "%.1f / %s" % (float(r["allreduce_pct"]), r["published_allreduce_pct"]),
                     "%.1f (%.1f%%)" % (float(onebit[key]["allreduce_ms"]),
                                        float(onebit[key]["allreduce_pct"]))])
    return table(["network", "nodes × GPUs", "batch/GPU", "Adam ms, ours", "published", "error",
                  "share %, ours / published", "1-bit Adam ms (share)"], body,
                 ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])


def scalability_published(csv_dir):
    body = []
    for r in rows(csv_dir, "scalability", "scalability.csv"):
        pub = r["published_throughput_samples_s"]
        if not pub or r["stage"] == "warmup":
            continue
        ours, pub = float(r["throughput_samples_s"]), float(pub)
        body.append(["%s, %s" % (workload(r["workload"]), r["batch_per_gpu"]), opt(r["optimizer"]),
                     "%.1f" % ours, "%g" % pub, signed_pct(100 * (ours - pub) / pub)])
    return table(["workload, batch/GPU", "optimizer", "ours", "published", "error"], body,
                 ["---", "---", "---:", "---:", "---:"])


def _steady(rs):
    """samples/s by GPU count of an optimizer's compression stage, else its full stage."""
    stages = {r["stage"] for r in rs}
    stage = "compression" if "compression" in stages else sorted(stages)[0]
    return {int(r["gpus"]): float(r["throughput_samples_s"]) for r in rs if r["stage"] == stage}


def scalability_speedups(csv_dir):
    by_comparison = {}
    for r in rows(csv_dir, "scalability", "scalability.csv"):
        by_comparison.setdefault(r["comparison"], []).append(r)
    body, ends = [], set()
    for comparison, rs in by_comparison.items():
        optimizers = list(dict.fromkeys(r["optimizer"] for r in rs))
        gpus = sorted({int(r["gpus"]) for r in rs})
        if len(gpus) < 2:  # a single GPU count: the published comparison's table has it
            continue
        ends.add((gpus[0], gpus[-1]))
        base = _steady([r for r in rs if r["optimizer"] == optimizers[0]])
        for o in optimizers[1:]:
            mine = _steady([r for r in rs if r["optimizer"] == o])
            name = "%s, %s / %s (%s)" % (workload(rs[0]["workload"]), opt(o),
                                         opt(optimizers[0]), rs[0]["cluster"])
            body.append([name,
                         "%.2f×" % (mine[gpus[0]] / base[gpus[0]]),
                         "%.2f×" % (mine[gpus[-1]] / base[gpus[-1]])])
    if len(ends) != 1:
        raise DocError("scalability.csv: the comparisons span different GPU ranges %s; the "
                       "table has one pair of columns" % sorted(ends))
    first, last = ends.pop()
    return table(["comparison", "%d GPUs" % first, "%d GPUs" % last], body)


def bandwidth(csv_dir):
    shown = [0.1, 1, 10, 100, 1000]
    pairs = {}
    for r in rows(csv_dir, "bandwidth", "bandwidth.csv"):
        key = (r["workload"], r["optimizer"], r["baseline"])
        pairs.setdefault(key, {})[float(r["inter_node_effective_gbit_s"])] = float(r["speedup"])
    body = [[workload(w), "%s / %s" % (opt(o), opt(b))] +
            ["%.2f×" % s[g] if g in s else "—" for g in shown]
            for (w, o, b), s in pairs.items()]
    return table(["workload", "pair"] + ["%g Gbit/s" % g for g in shown], body,
                 ["---", "---"] + ["---:"] * len(shown))


def hierarchical(csv_dir):
    cells = {}
    for r in rows(csv_dir, "hierarchical", "hierarchical.csv"):
        cells[(int(r["gpus_per_node"]), int(r["nodes"]), r["scheme"])] = r
    per_node = sorted({k[0] for k in cells})
    nodes = sorted({k[1] for k in cells})

    def ratio(g, n, column):
        return float(cells[(g, n, "flat")][column]) / float(cells[(g, n, "hierarchical")][column])

    body = [[str(g)] + ["%.2f× → %.2f×" % (ratio(g, nodes[0], c), ratio(g, nodes[-1], c))
                        for c in ("inter_node_bytes_per_node", "allreduce_ms")]
            for g in per_node]
    span = "%d → %d nodes" % (nodes[0], nodes[-1])
    return table(["GPUs per node", "bytes ratio, " + span, "time ratio, " + span], body,
                 ["---", "---:", "---:"])


def _nccl_default(r):
    """The break-even against NCCL's default algorithm choice, labelled where it is the
    switch of that choice (status algorithm_switch) rather than a crossing."""
    status = r["nccl_default_status"]
    if status in ("found", "algorithm_switch"):
        value = "%.3g" % float(r["nccl_default_break_even_effective_gbit_s"])
        return value + (" (algorithm switch)" if status == "algorithm_switch" else "")
    if status == "above_range":
        return "> %g" % float(r["search_hi_effective_gbit_s"])
    return "< %g" % float(r["search_lo_effective_gbit_s"])


def break_even(csv_dir):
    speed = {}
    for r in rows(csv_dir, "bandwidth", "bandwidth.csv"):
        speed[(r["workload"], r["optimizer"], r["baseline"],
               float(r["inter_node_effective_gbit_s"]))] = float(r["speedup"])
    body = []
    for r in rows(csv_dir, "break_even", "break_even.csv"):
        hi = float(r["search_hi_effective_gbit_s"])
        if r["status"] == "found":
            value = "%.3g (%s)" % (float(r["break_even_effective_gbit_s"]), r["tuned_algorithm"])
            spread = "%.3g–%.3g" % (float(r["break_even_low_effective_gbit_s"]),
                                    float(r["break_even_high_effective_gbit_s"]))
        elif r["status"] == "above_range":
            value, spread = "> %g" % hi, "—"
        else:
            value, spread = "< %g" % float(r["search_lo_effective_gbit_s"]), "—"
        at = [speed.get((r["workload"], r["optimizer"], r["baseline"], g)) for g in (100.0, hi)]
        body.append(["%s (%s GPUs)" % (workload(r["workload"]), r["gpus"]),
                     "%s / %s" % (opt(r["optimizer"]), opt(r["baseline"])), value, spread,
                     _nccl_default(r)] +
                    ["%.2f×" % s if s is not None else "—" for s in at])
    return table(["workload", "pair", "break-even vs tuned baseline, Gbit/s",
                  "at the bandwidth spread", "vs NCCL's default", "speedup at 100 Gbit/s",
                  "at %g Gbit/s" % hi], body,
                 ["---", "---", "---:", "---:", "---:", "---:", "---:"])


# The methods study is too slow for the golden comparison; its tables quote the runs committed
# under docs/runs/ (each folder's README says the command and the date).
METHODS_RUNS = os.path.join(ROOT, "docs", "runs")


def _mean_pm(mean, std, seeds, digits):
    value = "%.*f" % (digits, mean)
    return value if seeds < 2 else "%s ± %.*f" % (value, digits, std)


def methods_table(run, task):
    """The methods study's report table of `task` (mlp | transformer) from the committed run
    docs/runs/RUN/methods/summary.csv: each pair, method then baseline, as report.md has it."""
    rs = [r for r in rows(os.path.join(METHODS_RUNS, run), "methods", "summary.csv")
          if r["task"] == task]
    if not rs:
        raise DocError("%s: no rows of task '%s'" % (os.path.join(METHODS_RUNS, run), task))
    base = {(r["method"], r["optimizer"]): r for r in rs if r["role"] == "baseline"}
    body = []
    for r in rs:
        b = base[(r["method"], r["baseline"])]
        seeds = int(r["seeds"])
        f = {k: float(r[k]) for k in r if k.endswith(("_mean", "_std"))}
        body.append(["%s vs %s" % (r["method"], r["baseline"]), r["optimizer"],
                     _mean_pm(f["final_test_loss_mean"], f["final_test_loss_std"], seeds, 4),
                     _mean_pm(1e-6 * f["bytes_per_rank_mean"], 1e-6 * f["bytes_per_rank_std"],
                              seeds, 2),
                     "%.3f" % (f["bytes_per_rank_mean"] / float(b["bytes_per_rank_mean"])),
                     _mean_pm(f["sim_time_s_mean"], f["sim_time_s_std"], seeds, 1),
                     "%.3f" % (f["sim_time_s_mean"] / float(b["sim_time_s_mean"]))])
    return table(["pair", "optimizer", "final test loss", "MB sent per rank", "bytes ÷ baseline",
                  "simulated time s", "time ÷ baseline"], body,
                 ["---", "---:", "---:", "---:", "---:", "---:", "---:"])


# Block name -> renderer of its lines from the CSV folder.
RENDERERS = {
    "volume": volume,
    "profile": profile,
    "scalability_published": scalability_published,
    "scalability_speedups": scalability_speedups,
    "bandwidth": bandwidth,
    "hierarchical": hierarchical,
    "break_even": break_even,
    "methods_quick_mlp": lambda _: methods_table("methods-quick", "mlp"),
    "methods_quick_transformer": lambda _: methods_table("methods-quick", "transformer"),
    "methods_full_mlp": lambda _: methods_table("methods-full", "mlp"),
    "methods_full_transformer": lambda _: methods_table("methods-full", "transformer"),
}


def render(text, csv_dir, path):
    """text with every generated block re-rendered; also the names of the blocks."""
    lines, out, names, i = text.split("\n"), [], [], 0
    while i < len(lines):
        out.append(lines[i])
        match = BEGIN.match(lines[i].strip())
        i += 1
        if not match:
            continue
        name = match.group(1)
        if name not in RENDERERS:
            raise DocError("%s:%d: unknown generated block '%s' (expected one of: %s)"
                           % (path, i, name, ", ".join(RENDERERS)))
        end = next((j for j in range(i, len(lines)) if lines[j].strip() == END), None)
        if end is None:
            raise DocError("%s:%d: block '%s' has no '%s' line" % (path, i, name, END))
        out.extend(RENDERERS[name](csv_dir))
        names.append(name)
        i = end
    return "\n".join(out), names


def main(argv):
    check = "--check" in argv
    argv = [a for a in argv if a != "--check"]
    csv_dir = DEFAULT_CSV_DIR
    if "--csv-dir" in argv:
        at = argv.index("--csv-dir")
        if at + 1 >= len(argv):
            sys.stderr.write("error: --csv-dir needs a folder\n")
            return 2
        csv_dir = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    docs = argv or DEFAULT_DOCS
    stale = []
    try:
        for path in docs:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            new, names = render(text, csv_dir, path)
            if new == text:
                print("%s: %d generated blocks match %s" % (path, len(names), csv_dir))
                continue
            if not check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                print("%s: rewrote %d generated blocks from %s" % (path, len(names), csv_dir))
                continue
            stale.append(path)
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), path, path + " (from the CSVs)"))
    except (DocError, OSError) as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    if stale:
        sys.stderr.write("error: %s: tables differ from %s; run python3 scripts/doc_tables.py "
                         "and update the prose around them\n" % (", ".join(stale), csv_dir))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
