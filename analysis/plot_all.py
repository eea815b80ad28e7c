#!/usr/bin/env python3
"""Draws every figure of a `compopt reproduce` run directory whose CSVs exist.

Usage: python3 analysis/plot_all.py RUN_DIR
For each study with RUN_DIR/<study>/<its CSV>, runs analysis/plot_<study>.py's
plot() and writes RUN_DIR/figures/<study>.png and .pdf; studies without their CSV
are skipped with a message. Prints every file written. Exit code: 0 when every
figure that was attempted was written (or none had data), 1 when any failed
(each failure is reported on one line naming the file, column and line of a bad
CSV), 2 on a usage error or a missing run directory.
"""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDIES = ["variance", "convergence", "lamb", "volume", "profile", "scalability", "bandwidth",
           "hierarchical", "break_even"]


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stderr.write("usage: plot_all.py RUN_DIR\n  draws RUN_DIR/figures/<study>.png and .pdf "
                         "for every study whose CSV is in RUN_DIR/<study>/\n")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    run_dir = argv[0]
    if not os.path.isdir(run_dir):
        sys.stderr.write("error: %s: no such run directory\n" % run_dir)
        return 2
    drawn, skipped, failed = [], [], []
    for study in STUDIES:
        module = importlib.import_module("plot_" + study)
        missing = [name for name in module.REQUIRED
                   if not os.path.isfile(cp.study_csv(run_dir, study, name))]
        if missing:
            print("skip %s: no %s" % (study, ", ".join(os.path.join(study, m) for m in missing)))
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
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
