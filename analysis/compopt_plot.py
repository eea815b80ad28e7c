"""Shared helpers of the analysis/plot_<study>.py scripts.

Contract: read_csv() turns a study CSV into typed rows (empty cells -> None) and
raises CsvError naming the file, the column and the line of any missing column
or bad value; save() writes RUN_DIR/figures/<study>.png (150 dpi) and .pdf through
a temporary name; color()/label() give every optimizer one color and one display
name across all figures; run_main() is the command-line entry point of a script
(exit 0 written, 2 bad input, 1 other failure; never a traceback unless
COMPOPT_PLOT_DEBUG is set). Standard library + numpy + matplotlib only.
"""
import csv
import math
import os
import sys
import zlib


def _ensure_matplotlib():
    """Imports matplotlib, or re-runs the script with the system python3 that has
    Debian's python3-matplotlib (a pyenv or venv python3 first on PATH lacks it)."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    system_python = "/usr/bin/python3"
    here = os.path.realpath(sys.executable or "")
    script = os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    is_our_script = os.path.dirname(script) == os.path.dirname(os.path.realpath(__file__))
    if (is_our_script and os.environ.get("COMPOPT_PLOT_REEXEC") is None
            and os.path.exists(system_python) and os.path.realpath(system_python) != here):
        os.environ["COMPOPT_PLOT_REEXEC"] = "1"
        os.execv(system_python, [system_python] + sys.argv)
    sys.stderr.write("error: matplotlib is not installed for %s "
                     "(install Debian's python3-matplotlib: bash scripts/install_deps.sh)\n"
                     % (sys.executable or "python3"))
    sys.exit(2)


_ensure_matplotlib()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DPI = 150

# Column types of a schema: "f" float, "i" integer, "s" string; a trailing "?"
# allows an empty cell (read as None). A tuple of strings is a string column
# restricted to those values.
_PARSERS = {"f": float, "i": int, "s": str}


class CsvError(Exception):
    """A study CSV that is missing, empty or malformed; the message names the file,
    and where it applies the column and the line (1 = header)."""


class Table:
    """Typed rows of one CSV: rows is a list of dicts column -> value or None."""

    def __init__(self, path, columns, rows):
        self.path = path
        self.columns = columns
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def values(self, column, rows=None):
        return [r[column] for r in (self.rows if rows is None else rows)]

    def unique(self, column, rows=None):
        """Distinct values of a column in order of first appearance."""
        seen = {}
        for r in (self.rows if rows is None else rows):
            seen.setdefault(r[column], None)
        return list(seen)

    def where(self, **equal):
        return [r for r in self.rows if all(r[k] == v for k, v in equal.items())]


def group_by(rows, *keys):
    """Dict (key values...) -> rows, in order of first appearance."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    return groups


def _parse_int(text):
    try:
        return int(text)
    except ValueError:
        value = float(text)  # "1e3" or "12.0" from a %g writer
        if not value.is_integer():
            raise
        return int(value)


def read_csv(path, schema):
    """Reads path with the given schema (dict column -> type code); extra columns
    are kept as strings. Raises CsvError on any problem."""
    if not os.path.isfile(path):
        raise CsvError("%s: file not found" % path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise CsvError("%s: cannot read: %s" % (path, e)) from None
    if not lines or not any(cell.strip() for cell in lines[0]):
        raise CsvError("%s: empty file (expected a header with columns %s)"
                       % (path, ",".join(schema)))
    header = [cell.strip() for cell in lines[0]]
    for column in schema:
        if column not in header:
            raise CsvError("%s: missing column '%s' (header is: %s)"
                           % (path, column, ",".join(header)))
    rows = []
    for line_no, cells in enumerate(lines[1:], start=2):
        if not cells or all(not c.strip() for c in cells):
            continue  # blank line
        if len(cells) != len(header):
            raise CsvError("%s: line %d has %d cells, expected %d (one per column of the header)"
                           % (path, line_no, len(cells), len(header)))
        row = {}
        for column, cell in zip(header, cells):
            cell = cell.strip()
            kind = schema.get(column, "s?")
            allowed = None
            if isinstance(kind, tuple):
                allowed, kind = kind, "s"
            optional = kind.endswith("?")
            kind = kind.rstrip("?")
            if cell == "":
                if not optional:
                    raise CsvError("%s: line %d, column '%s': empty cell, expected %s"
                                   % (path, line_no, column, _describe(kind)))
                row[column] = None
                continue
            try:
                value = _PARSERS[kind](cell) if kind != "i" else _parse_int(cell)
            except ValueError:
                raise CsvError("%s: line %d, column '%s': '%s' is not %s"
                               % (path, line_no, column, cell, _describe(kind))) from None
            if allowed is not None and value not in allowed:
                raise CsvError("%s: line %d, column '%s': '%s' is not one of %s"
                               % (path, line_no, column, cell, ", ".join(allowed)))
            row[column] = value
        rows.append(row)
    if not rows:
        raise CsvError("%s: no data rows" % path)
    return Table(path, header, rows)


def _describe(kind):
    return {"f": "a number", "i": "an integer", "s": "a string"}[kind]


def study_csv(run_dir, study, name):
    return os.path.join(run_dir, study, name)


# ---------------------------------------------------------------- style

# Okabe & Ito's colour-blind-safe palette (Color Universal Design, 2008), in the order the
# figures hand out colours to things that are not optimizers (β2 values, schemes, GPUs/node).
OKABE_ITO = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
             "#F0E442"]

# The one table of optimizer styles: every figure draws an optimizer in this colour and
# marker. Baselines and their compressed counterparts get contrasting hues; BertAdam and
# momentum SGD never share a figure panel, so they may share neutral tones.
_OPTIMIZER_STYLES = {
    "adam": ("#0072B2", "o"),
    "onebit-adam": ("#D55E00", "s"),
    "naive-onebit-adam": ("#CC79A7", "v"),
    "lamb": ("#009E73", "^"),
    "onebit-lamb": ("#E69F00", "D"),
    "birder": ("#56B4E9", "P"),
    "birder-hierarchical": ("#882255", "X"),
    "momentum-sgd": ("#000000", "o"),
    "bertadam": ("#555555", "o"),
    "local-momentum-sgd": ("#332288", "v"),
    "diloco": ("#117733", "<"),
    "streaming-diloco": ("#999933", ">"),
    "zero-one-adam": ("#AA4499", "d"),
    "powersgd": ("#44AA99", "h"),
    "powersgd-adam": ("#88CCEE", "H"),
    "demo": ("#661100", "*"),
}
_FALLBACK_COLORS = ["#44AA99", "#117733", "#999933", "#AA4499", "#332288", "#88CCEE"]

_OPTIMIZER_LABELS = {
    "adam": "Adam",
    "onebit-adam": "1-bit Adam",
    "naive-onebit-adam": "naive 1-bit Adam",
    "lamb": "LAMB",
    "onebit-lamb": "1-bit LAMB",
    "birder": "Birder",
    "birder-hierarchical": "Birder (hierarchical)",
    "momentum-sgd": "momentum SGD",
    "bertadam": "BertAdam",
    "local-momentum-sgd": "local momentum SGD",
    "diloco": "DiLoCo",
    "streaming-diloco": "Streaming DiLoCo",
    "zero-one-adam": "0/1 Adam",
    "powersgd": "PowerSGD",
    "powersgd-adam": "PowerSGD + Adam",
    "demo": "DeMo",
}

# Optimizers that have a compression stage.
COMPRESSED = {"onebit-adam", "naive-onebit-adam", "onebit-lamb", "birder", "birder-hierarchical"}

PUBLISHED_STYLE = dict(marker="x", color="black", linestyle="none", markersize=8,
                       markeredgewidth=1.8, zorder=5)


_WORKLOAD_LABELS = {
    "bert-large-seq128": "BERT-Large",
    "bert-base-squad": "BERT-Base SQuAD",
    "resnet50-imagenet": "ResNet-50",
    "resnet152-imagenet": "ResNet-152",
    "gpt-1.3b": "GPT-1.3B",
}


def workload_label(workload):
    return _WORKLOAD_LABELS.get(workload, workload)


def color(optimizer):
    """The optimizer's color (stable for names not in the table too)."""
    if optimizer in _OPTIMIZER_STYLES:
        return _OPTIMIZER_STYLES[optimizer][0]
    return _FALLBACK_COLORS[zlib.crc32(str(optimizer).encode()) % len(_FALLBACK_COLORS)]


def marker(optimizer):
    """The optimizer's marker (a circle for names not in the table)."""
    return _OPTIMIZER_STYLES.get(optimizer, (None, "o"))[1]


def label(optimizer):
    return _OPTIMIZER_LABELS.get(optimizer, str(optimizer))


def pair_label(optimizer, baseline, workload=None):
    text = "%s vs %s" % (label(optimizer), label(baseline))
    return "%s: %s" % (workload, text) if workload else text


def known_optimizers():
    """The optimizers of the style table, in its order."""
    return list(_OPTIMIZER_LABELS)


def order(optimizers):
    """Optimizers in the table's order, unknown ones after, alphabetically."""
    known = list(_OPTIMIZER_LABELS)
    return sorted(set(optimizers), key=lambda o: (known.index(o) if o in known else len(known), o))


def setup_style():
    plt.rcParams.update({
        "font.size": 9,
        "axes.titlesize": 10,
        "axes.labelsize": 9,
        "legend.fontsize": 8,
        "xtick.labelsize": 8,
        "ytick.labelsize": 8,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "grid.linewidth": 0.6,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "legend.framealpha": 0.85,
        "lines.linewidth": 1.5,
        "pdf.fonttype": 42,
        "savefig.bbox": "tight",
    })


def figure(nrows, ncols, panel=(4.6, 3.4), **kwargs):
    """A figure of nrows x ncols panels of the given size (inches); axes always 2-D."""
    setup_style()
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel[0] * ncols, panel[1] * nrows),
                             squeeze=False, constrained_layout=True, **kwargs)
    return fig, axes


def legend_below(ax, ncol=2, **kwargs):
    """A legend under the panel, so it never covers data."""
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=ncol, frameon=False,
                     **kwargs)


def figure_legend(fig, handles, labels, ncol=4):
    """One legend for the whole figure, under the panels (the saved image grows to
    hold it: savefig uses a tight bounding box)."""
    return fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
                      frameon=False)


def shared_legend(fig, axes, ncol=4):
    """One legend under the figure with every distinct label of the given axes."""
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    return figure_legend(fig, handles, labels, ncol=min(ncol, max(1, len(labels))))


def legend_in_slot(ax, handles, labels, **kwargs):
    """Turns an unused panel of a grid into the figure's legend (no data under it)."""
    ax.axis("off")
    return ax.legend(handles, labels, loc="center", frameon=False, **kwargs)


def caption(fig, text):
    """A caption under everything else in the figure (units, what stands in for what, how
    many seeds); save() places it once the layout is known."""
    fig.compopt_caption = text


def _place_caption(fig):
    import textwrap
    text = getattr(fig, "compopt_caption", None)
    if not text:
        return
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_fig = fig.transFigure.inverted()
    bottoms = [0.0]
    for artist in list(fig.legends) + list(fig.axes):
        if artist.get_visible():
            box = artist.get_tightbbox(renderer)
            if box is not None:
                bottoms.append(to_fig.transform((0, box.y0))[1])
    width = max(60, int(fig.get_figwidth() * 14))
    lines = textwrap.wrap(text, width, break_on_hyphens=False)
    fig.text(0.01, min(bottoms) - 0.015, "\n".join(lines), ha="left", va="top", fontsize=8,
             color="0.2")


# Past Okabe-Ito's eight: Paul Tol's "muted" colours (also colour-blind safe).
_MORE_COLORS = ["#882255", "#44AA99", "#999933", "#AA4499", "#332288", "#88CCEE", "#117733",
                "#DDCC77"]


def palette(i):
    """The i-th colour of the colour-blind-safe palette (16 colours, then wraps around)."""
    colors = OKABE_ITO + _MORE_COLORS
    return colors[i % len(colors)]


def gpu_axis(ax, gpus):
    """x axis of GPU counts: log2 when there are several, a tick labelled at each count."""
    from matplotlib.ticker import FixedLocator, NullLocator
    if len(gpus) > 1:
        ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(gpus))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(g) for g in gpus])
    ax.set_xlabel("GPUs")


def plain_log_ticks(ax, axis="x"):
    """Decade ticks of a log axis written 0.1, 1, 10 instead of 10^-1, 10^0, 10^1."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    target = ax.xaxis if axis == "x" else ax.yaxis
    lo, hi = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    if lo > 0 and hi / lo < 100:  # under two decades: label 1-2-5 (1-1.5-2-3-5-7) ticks too
        subs = (1.0, 2.0, 5.0) if hi / lo >= 10 else (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
        target.set_major_locator(LogLocator(base=10, subs=subs))
        target.set_minor_formatter(NullFormatter())
    target.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))


def finite(values):
    return [v for v in values if v is not None and math.isfinite(v)]


def moving_average(values, window):
    """Trailing moving average (shorter window at the start), same length as values."""
    out, total, queue = [], 0.0, []
    for v in values:
        queue.append(v)
        total += v
        if len(queue) > window:
            total -= queue.pop(0)
        out.append(total / len(queue))
    return out


def save(fig, run_dir, study, out_dir=None):
    """Writes <study>.png and .pdf into out_dir (default RUN_DIR/figures) through a temporary
    name, then a rename."""
    out_dir = out_dir or os.path.join(run_dir, "figures")
    os.makedirs(out_dir, exist_ok=True)
    _place_caption(fig)
    written = []
    for ext in ("png", "pdf"):
        final = os.path.join(out_dir, "%s.%s" % (study, ext))
        tmp = os.path.join(out_dir, ".%s.tmp.%d.%s" % (study, os.getpid(), ext))
        try:
            fig.savefig(tmp, dpi=DPI, format=ext)
            os.replace(tmp, final)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        written.append(final)
    plt.close(fig)
    return written


def draw_figure(make, run_dir, name, out_dir=None):
    """Calls make() for a figure and saves it as <name>.png/.pdf (see save); returns (exit
    code, written paths or a one-line message): 0 written, 2 bad CSV, 1 plotting bug."""
    try:
        return 0, save(make(), run_dir, name, out_dir)
    except CsvError as e:
        return 2, "error: %s" % e
    except Exception as e:  # a plotting bug: one line, the traceback only on request
        if os.environ.get("COMPOPT_PLOT_DEBUG"):
            raise
        return 1, "error: %s figure failed: %s: %s (set COMPOPT_PLOT_DEBUG=1 for the traceback)" % (
            name, type(e).__name__, e)
    finally:
        plt.close("all")


def draw(module, run_dir, out_dir=None):
    """Runs one plot module on run_dir; returns (exit code, written paths or message)."""
    return draw_figure(lambda: module.plot(run_dir), run_dir, module.STUDY, out_dir)


def run_main(module, argv=None):
    """`python3 analysis/plot_<study>.py RUN_DIR`: returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        sources = os.path.join("RUN_DIR", getattr(module, "FOLDER", module.STUDY), "*.csv")
        sys.stderr.write("usage: %s RUN_DIR\n  reads %s, writes RUN_DIR/figures/%s.png and .pdf\n"
                         % (os.path.basename(sys.argv[0]), sources, module.STUDY))
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    run_dir = argv[0]
    if not os.path.isdir(run_dir):
        sys.stderr.write("error: %s: no such run directory\n" % run_dir)
        return 2
    code, result = draw(module, run_dir)
    if code == 0:
        for path in result:
            print("wrote %s" % path)
    else:
        sys.stderr.write(result + "\n")
    return code
