#!/usr/bin/env python3
"""Draws every figure of a `compopt reproduce` run directory whose CSVs exist; any
other run directory (its run.json names a train, sweep or profile run) is drawn by
plot_run.py's table of kinds.

Usage: python3 analysis/plot_all.py RUN_DIR
For each study with RUN_DIR/<study>/<its CSV>, runs analysis/plot_<study>.py's
plot() and writes RUN_DIR/figures/<study>.png and .pdf; studies without their CSV
are skipped with a message. A directory without run.json but with RUN_DIR/sweep.csv
gets plot_sweep.py's figure. Prints every file written. Exit code: 0 when every
figure that was attempted was written, 1 when any failed (each failure is reported
on one line naming the file, column and line of a bad CSV) or when no study had its
CSV (nothing to draw: not a reproduce run directory), 2 on a usage error or a
missing run directory.
"""
import importlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDIES = ["variance", "convergence", "lamb", "volume", "profile", "scalability", "bandwidth",
           "hierarchical", "break_even", "torch_variance", "torch_convergence", "methods"]


def has_csvs(module, run_dir):
    """Whether every CSV the plot module requires is in run_dir."""
    folder = getattr(module, "FOLDER", module.STUDY)
    return all(os.path.isfile(cp.study_csv(run_dir, folder, name)) for name in module.REQUIRED)


def run_kind(run_dir):
    """The "command" of RUN_DIR/run.json, or None without a readable one."""
    try:
        with open(os.path.join(run_dir, "run.json"), encoding="utf-8") as f:
            return json.load(f).get("command")
    except (OSError, ValueError, AttributeError):
        return None


def studies_of(run_dir):
    """A `compopt sweep` run directory (sweep.csv at its top) has one figure, plot_sweep's;
    a `compopt reproduce` one has a folder per study."""
    return ["sweep"] if os.path.isfile(os.path.join(run_dir, "sweep.csv")) else STUDIES


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: plot_all.py RUN_DIR\n  draws RUN_DIR/figures/<study>.png and .pdf "
                         "for every study whose CSV is in RUN_DIR/<study>/\n")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    run_dir = argv[0]
    if not os.path.isdir(run_dir):
        sys.stderr.write("error: %s: no such run directory\n" % run_dir)
        return 2
    kind = run_kind(run_dir)
    if kind not in (None, "reproduce"):
        import plot_run
        return plot_run.draw_all([run_dir])
    drawn, skipped, failed = [], [], []
    for study in studies_of(run_dir):
        module = importlib.import_module("plot_" + study)
        folder = getattr(module, "FOLDER", study)
        missing = [name for name in module.REQUIRED
                   if not os.path.isfile(cp.study_csv(run_dir, folder, name))]
        if missing:
            print("skip %s: no %s" % (study, ", ".join(os.path.join(folder, m) for m in missing)))
            skipped.append(study)
            continue
        code, result = cp.draw(module, run_dir)
        if code == 0:
            for path in result:
                print("wrote %s" % path)
            drawn.append(study)
        else:
            sys.stderr.write("%s\n" % result)
            failed.append(study)
    print("plot_all: %d drawn, %d skipped, %d failed%s" % (
        len(drawn), len(skipped), len(failed), (" (" + ", ".join(failed) + ")") if failed else ""))
    if not drawn and not failed:
        sys.stderr.write("error: %s: no study CSV found, nothing drawn (a compopt reproduce run "
                         "directory has <study>/*.csv; compopt plot draws train, sweep and "
                         "profile runs)\n" % run_dir)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
