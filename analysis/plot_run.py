#!/usr/bin/env python3
"""Draws any compopt run directory by its kind, the "command" its run.json records
(experiments/run_directory/): the table KINDS names the figures of each kind. Several
train run directories are drawn together, their curves overlaid; every other directory
is drawn on its own. A trace file (`compopt profile --trace FILE`) may be given instead
of a directory.

Usage: python3 analysis/plot_run.py [--out DIR] RUN_DIR [RUN_DIR...]
Figures go to RUN_DIR/figures/ (the overlay of several train runs: the first one's), or
all to --out DIR; with --out and several directories of the same kind, each file name
starts with its directory's name. Exit code: 0 every figure written, 2 bad input (a
missing path, a folder without run.json, a kind with no figures; nothing is drawn then),
1 a figure failed (one line each).
"""
import importlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402


def _train(run_dirs):
    import plot_train
    return [("train", lambda: plot_train.plot_runs(run_dirs))]


def _tornado(run_dir):
    """The tornado figure of a --sensitivity run, or none."""
    import plot_tornado
    if not plot_tornado.has_sensitivity(run_dir):
        return []
    return [("tornado", lambda: plot_tornado.plot(run_dir))]


def _sweep(run_dirs):
    import plot_sweep
    import plot_sweep_time
    (run_dir,) = run_dirs
    figures = [("sweep", lambda: plot_sweep.plot(run_dir))]
    if plot_sweep_time.has_time_to_train(run_dir):
        figures.append(("sweep_time", lambda: plot_sweep_time.plot(run_dir)))
    return figures + _tornado(run_dir)


def _profile(run_dirs):
    import plot_profile_run
    import plot_trace
    (run_dir,) = run_dirs
    figures = [("profile", lambda: plot_profile_run.plot(run_dir))]
    if os.path.isfile(os.path.join(run_dir, "trace.json")):
        figures.append(("trace", lambda: plot_trace.plot(run_dir)))
    return figures + _tornado(run_dir)


def _trace(paths):
    import plot_trace
    (path,) = paths
    return [("trace", lambda: plot_trace.plot(path))]


def _reproduce(run_dirs):
    import plot_all
    (run_dir,) = run_dirs
    figures = []
    for study in plot_all.STUDIES:
        module = importlib.import_module("plot_" + study)
        if plot_all.has_csvs(module, run_dir):
            figures.append((study, lambda m=module: m.plot(run_dir)))
    return figures


# Kind -> (drawers of a group of paths, whether all paths of the kind form one group).
KINDS = {
    "train": (_train, True),
    "sweep": (_sweep, False),
    "profile": (_profile, False),
    "reproduce": (_reproduce, False),
    "trace": (_trace, False),
}


class BadInput(Exception):
    """A path that cannot be drawn; the message names it and what was expected."""


def kind_of(path):
    """The kind of a run directory (its run.json's "command") or of a trace file."""
    if os.path.isfile(path):
        if path.endswith(".json"):
            return "trace"
        raise BadInput("%s: a file, expected a run directory or a trace .json file" % path)
    if not os.path.isdir(path):
        raise BadInput("%s: no such run directory" % path)
    run_json = os.path.join(path, "run.json")
    if not os.path.isfile(run_json):
        raise BadInput("%s: not a run directory (no run.json; compopt train, sweep, profile "
                       "and reproduce write one)" % path)
    try:
        with open(run_json, encoding="utf-8") as f:
            kind = json.load(f).get("command")
    except (OSError, ValueError, AttributeError) as e:
        raise BadInput("%s: unreadable run.json: %s" % (run_json, e)) from None
    if kind not in KINDS:
        raise BadInput("%s: run kind '%s' has no figures (expected one of: %s)"
                       % (path, kind, ", ".join(sorted(KINDS))))
    return kind


def groups(paths):
    """[(kind, [paths])]: the train runs together, every other path alone, in order."""
    out, joined = [], {}
    for path in paths:
        kind = kind_of(path)
        if KINDS[kind][1]:
            if kind not in joined:
                joined[kind] = []
                out.append((kind, joined[kind]))
            joined[kind].append(path)
        else:
            out.append((kind, [path]))
    return out


def _target(kind, group, out_dir, repeated):
    """(run dir, out dir, file-name prefix) of a group's figures."""
    first = group[0]
    base = os.path.dirname(first) if kind == "trace" else first
    if out_dir is None:
        return base, None, ""
    name = os.path.basename(os.path.normpath(first))
    return base, out_dir, (name + "-" if repeated else "")


def draw_all(paths, out_dir=None):
    """Draws every path; returns the exit code (prints what it wrote, one line per failure)."""
    try:
        plan = groups(paths)
    except BadInput as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    counts = {}
    for kind, _ in plan:
        counts[kind] = counts.get(kind, 0) + 1
    failed = 0
    for kind, group in plan:
        figures = KINDS[kind][0](group)
        if not figures:
            sys.stderr.write("error: %s: no figure to draw (no study CSV found)\n" % group[0])
            failed += 1
        run_dir, target, prefix = _target(kind, group, out_dir, counts[kind] > 1)
        for name, make in figures:
            code, result = cp.draw_figure(make, run_dir, prefix + name, target)
            if code == 0:
                print("\n".join("wrote %s" % p for p in result))
            else:
                sys.stderr.write(result + "\n")
                failed += 1
    return 1 if failed else 0


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(
        prog="plot_run.py", description="Draws compopt run directories by their kind.")
    parser.add_argument("paths", nargs="+", metavar="RUN_DIR",
                        help="run directories (run.json names the kind) or trace .json files")
    parser.add_argument("--out", help="write every figure here (default: RUN_DIR/figures/)")
    args = parser.parse_args(argv)  # a usage error exits 2
    return draw_all(args.paths, args.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
