#!/usr/bin/env python3
"""1-bit LAMB's layer-wise coefficients ([1BL] Fig. 1, 6 in kind): the LAMB trust
coefficient c_t of every layer against step (LAMB solid, 1-bit LAMB dashed) and
1-bit LAMB's scaling ratio r_t against step; color = layer, a dotted vertical
line where 1-bit LAMB enters its compression stage.

Usage: python3 analysis/plot_lamb.py RUN_DIR
Reads RUN_DIR/lamb/coefficients.csv (optimizer, step, stage, layer, layer_name,
coefficient, ratio).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "lamb"
REQUIRED = ["coefficients.csv"]

SCHEMA = {"optimizer": "s", "step": "i", "stage": "s", "layer": "i", "layer_name": "s?",
          "coefficient": "f?", "ratio": "f?"}

_STYLES = {"lamb": "-", "onebit-lamb": "--"}


def plot(run_dir):
    from matplotlib.lines import Line2D
    table = cp.read_csv(cp.study_csv(run_dir, STUDY, "coefficients.csv"), SCHEMA)
    fig, axes = cp.figure(1, 2, panel=(5.0, 3.6))
    ax_c, ax_r = axes[0]
    layers = sorted(table.unique("layer"))
    names = {}
    for r in table.rows:
        names.setdefault(r["layer"], r["layer_name"] or "tensor %d" % r["layer"])
    colors = {layer: cp.palette(i) for i, layer in enumerate(layers)}
    optimizers = cp.order(table.unique("optimizer"))
    extra = iter(["-.", ":"])
    styles = {o: _STYLES.get(o) or next(extra, "-") for o in optimizers}
    for (optimizer, layer), rows in cp.group_by(table.rows, "optimizer", "layer").items():
        rows = sorted(rows, key=lambda r: r["step"])
        coeff = [(r["step"], r["coefficient"]) for r in rows if r["coefficient"] is not None]
        if coeff:
            ax_c.plot([p[0] for p in coeff], [p[1] for p in coeff], color=colors[layer],
                      linestyle=styles[optimizer], linewidth=1.2)
        ratio = [(r["step"], r["ratio"]) for r in rows if r["ratio"] is not None]
        if ratio:
            ax_r.plot([p[0] for p in ratio], [p[1] for p in ratio], color=colors[layer],
                      linewidth=1.2)
    switches = set()
    for optimizer in optimizers:
        compressed = [r["step"] for r in table.where(optimizer=optimizer, stage="compression")]
        if compressed:
            switches.add(min(compressed))
    for step in switches:
        for ax in (ax_c, ax_r):
            ax.axvline(step, color="black", linestyle=":", linewidth=1.0)
    ax_c.set_xlabel("step")
    ax_c.set_ylabel(r"trust coefficient $c_t$")
    ax_c.set_title("LAMB layer-wise coefficients")
    ax_r.set_xlabel("step")
    ax_r.set_ylabel(r"scaling ratio $r_t$")
    ax_r.set_title("1-bit LAMB ratio (compression stage)")
    if not ax_r.lines or all(ln.get_linestyle() == ":" for ln in ax_r.lines):
        ax_r.text(0.5, 0.5, "no 1-bit LAMB ratios\n(no compression stage in the CSV)",
                  transform=ax_r.transAxes, ha="center", va="center", color="0.4")
    handles = [Line2D([], [], color=colors[layer], linewidth=2) for layer in layers]
    labels = [names[layer] for layer in layers]
    handles += [Line2D([], [], color="0.3", linestyle=styles[o]) for o in optimizers]
    labels += [cp.label(o) for o in optimizers]
    if switches:
        handles.append(Line2D([], [], color="black", linestyle=":"))
        labels.append("1-bit LAMB enters compression")
    cp.figure_legend(fig, handles, labels, ncol=min(6, len(labels)))
    fig.suptitle("LAMB trust coefficients and 1-bit LAMB scaling ratios per layer "
                 "(Fashion-MNIST MLP)")
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
