#!/usr/bin/env python3
"""Summary of a simulated step's trace (`compopt profile --trace`, Chrome/Perfetto trace
event JSON, times in microseconds of simulated time): left, a timeline of the first and
the last traced rank's compute and comm tracks, each innermost span a bar from its start
to its end (ms), coloured by span name; right, the total time of each span name on the
first rank's compute track (bars from 0, ms). The full trace opens in ui.perfetto.dev.

Usage: python3 analysis/plot_trace.py RUN_DIR_OR_TRACE_JSON
Reads RUN_DIR/trace.json (or the given .json file) and writes figures/trace.png and .pdf
next to it.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "trace"
FOLDER = ""  # trace.json lies at the top of a profile run directory
REQUIRED = ["trace.json"]


def trace_path(path):
    return path if os.path.isfile(path) else os.path.join(path, "trace.json")


def read_trace(path):
    """(spans by (pid, tid): list of (ts, dur, name) sorted, thread names) of a trace file;
    raises CsvError (the bad-input error of these scripts) naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise cp.CsvError("%s: not a readable trace JSON: %s" % (path, e)) from None
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise cp.CsvError("%s: no traceEvents list (expected compopt profile --trace output)"
                          % path)
    spans, names = {}, {}
    for e in events:
        if not isinstance(e, dict):
            continue
        track = (e.get("pid", 0), e.get("tid", 0))
        if e.get("ph") == "X" and isinstance(e.get("dur"), (int, float)):
            spans.setdefault(track, []).append((float(e.get("ts", 0)), float(e["dur"]),
                                                str(e.get("name", "?"))))
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            names[track] = str((e.get("args") or {}).get("name", track))
    if not spans:
        raise cp.CsvError("%s: no complete ('X') spans in the trace" % path)
    return {k: sorted(v, key=lambda s: (s[0], -s[1])) for k, v in spans.items()}, names


def leaves(spans):
    """The spans that hold no other span of their track (the innermost ones)."""
    out = []
    for i, (ts, dur, name) in enumerate(spans):
        inner = any(j != i and ts <= t2 and t2 + d2 <= ts + dur and (d2 < dur or j > i)
                    for j, (t2, d2, _) in enumerate(spans))
        if not inner:
            out.append((ts, dur, name))
    return out


def _tracks(spans):
    """Up to four tracks: the first and last traced rank's compute and comm threads."""
    keys = sorted(spans)
    chosen = keys[:2] + [k for k in keys[-2:] if k not in keys[:2]]
    return chosen


def plot(path):
    path = trace_path(path)
    spans, names = read_trace(path)
    tracks = _tracks(spans)
    fig, axes = cp.figure(1, 2, panel=(5.4, 0.7 * len(tracks) + 2.2),
                          gridspec_kw={"width_ratios": [2.2, 1]})
    ax_time, ax_total = axes[0]
    colors = {}
    for y, track in enumerate(tracks):
        for ts, dur, name in leaves(spans[track]):
            c = colors.setdefault(name, cp.palette(len(colors)))
            ax_time.broken_barh([(ts / 1e3, dur / 1e3)], (y - 0.35, 0.7), facecolors=c,
                                edgecolor="white", linewidth=0.3)
    ax_time.set_yticks(range(len(tracks)))
    ax_time.set_yticklabels([names.get(t, "pid %s tid %s" % t) for t in tracks])
    ax_time.set_ylim(len(tracks) - 0.5, -0.5)
    ax_time.set_xlabel("simulated time (ms)")
    ax_time.grid(axis="y", visible=False)
    ax_time.set_title("Timeline of the innermost spans")
    totals = {}
    for ts, dur, name in leaves(spans[tracks[0]]):
        totals[name] = totals.get(name, 0.0) + dur / 1e3
    order = sorted(totals, key=lambda n: -totals[n])
    ax_total.barh(range(len(order)), [totals[n] for n in order],
                  color=[colors[n] for n in order])
    for i, n in enumerate(order):
        ax_total.annotate("%.4g" % totals[n], (totals[n], i), xytext=(3, 0),
                          textcoords="offset points", va="center", fontsize=7)
    ax_total.set_yticks(range(len(order)))
    ax_total.set_yticklabels(order, fontsize=8)
    ax_total.set_ylim(len(order) - 0.5, -0.5)
    ax_total.set_xlabel("total time (ms)")
    ax_total.grid(axis="y", visible=False)
    ax_total.set_title(names.get(tracks[0], "first track"))
    from matplotlib.patches import Patch
    cp.figure_legend(fig, [Patch(facecolor=c) for c in colors.values()], list(colors),
                     ncol=min(5, len(colors)))
    fig.suptitle("Simulated step trace: %s" % os.path.basename(path))
    cp.caption(fig, "Innermost spans only (a span holding others is drawn through them); "
               "stages of a multi-stage optimizer follow one another on the timeline.")
    return fig


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    path = trace_path(argv[0])
    if not os.path.isfile(path):
        sys.stderr.write("error: %s: no such trace file\n" % path)
        return 2
    code, result = cp.draw_figure(lambda: plot(path), os.path.dirname(path) or ".", STUDY)
    if code == 0:
        print("\n".join("wrote %s" % p for p in result))
    else:
        sys.stderr.write(result + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
