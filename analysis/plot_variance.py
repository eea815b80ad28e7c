#!/usr/bin/env python3
"""Adam's variance stability ([1BA] Fig. 1 in kind): fused ||v||_2 (log y) and the
freeze detector's ratio ||v_t||_1/||v_{t-Delta}||_1 (log y) against step, one line per
beta2, a dashed vertical line where the detector would freeze v.

Usage: python3 analysis/plot_variance.py RUN_DIR
Reads RUN_DIR/variance/variance.csv (beta2, step, var_norm_l2, var_ratio_l1) and,
if present, RUN_DIR/variance/freeze.csv (beta2, delta, threshold, freeze_step).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compopt_plot as cp  # noqa: E402

STUDY = "variance"
REQUIRED = ["variance.csv"]

VARIANCE_SCHEMA = {"beta2": "f", "step": "i", "lr": "f?", "train_loss": "f?",
                   "var_norm_l2": "f?", "var_ratio_l1": "f?"}
FREEZE_SCHEMA = {"beta2": "f", "delta": "i", "threshold": "f", "freeze_step": "i?"}


def plot(run_dir, study=STUDY, model="Fashion-MNIST MLP"):
    """study: the folder of the CSVs (plot_torch_variance.py draws its own with this)."""
    table = cp.read_csv(cp.study_csv(run_dir, study, "variance.csv"), VARIANCE_SCHEMA)
    freeze_path = cp.study_csv(run_dir, study, "freeze.csv")
    freeze = cp.read_csv(freeze_path, FREEZE_SCHEMA) if os.path.exists(freeze_path) else None

    betas = sorted(table.unique("beta2"), reverse=True)
    colors = {b: cp.palette(i) for i, b in enumerate(betas)}
    fig, axes = cp.figure(1, 2, panel=(5.0, 3.6))
    ax_norm, ax_ratio = axes[0]

    for beta in betas:
        rows = sorted(table.where(beta2=beta), key=lambda r: r["step"])
        norm = [(r["step"], r["var_norm_l2"]) for r in rows
                if r["var_norm_l2"] is not None and r["var_norm_l2"] > 0]
        ratio = [(r["step"], r["var_ratio_l1"]) for r in rows if r["var_ratio_l1"] is not None]
        name = r"$\beta_2$ = %g" % beta
        if norm:
            ax_norm.plot([p[0] for p in norm], [p[1] for p in norm], color=colors[beta], label=name)
        if ratio:
            ax_ratio.plot([p[0] for p in ratio], [p[1] for p in ratio], color=colors[beta],
                          linewidth=1.2)

    thresholds = set()
    if freeze is not None:
        for r in freeze.rows:
            thresholds.add(r["threshold"])
            beta = r["beta2"]
            c = colors.get(beta, "gray")
            if r["freeze_step"] is None:
                continue
            for ax in (ax_norm, ax_ratio):
                ax.axvline(r["freeze_step"], color=c, linestyle="--", linewidth=1.0, alpha=0.9)
            ax_ratio.plot([], [], color=c, linestyle="--", linewidth=1.0,
                          label=r"freeze, $\beta_2$ = %g (step %d)" % (beta, r["freeze_step"]))
        never = [r["beta2"] for r in freeze.rows if r["freeze_step"] is None]
        if never:
            ax_ratio.plot([], [], linestyle="none",
                          label="never freezes: " + ", ".join(r"$\beta_2$ = %g" % b for b in never))
    for t in sorted(thresholds):
        ax_ratio.axhline(t, color="black", linestyle=":", linewidth=1.0)
        ax_ratio.plot([], [], color="black", linestyle=":", linewidth=1.0,
                      label="threshold %g" % t)

    ax_norm.set_yscale("log")
    ax_norm.set_xlabel("step")
    ax_norm.set_ylabel(r"$\Vert v_t\Vert _2$ (fused)")
    ax_norm.set_title(r"Adam variance norm $\Vert v_t\Vert _2$")
    cp.legend_below(ax_norm, ncol=3)
    ax_ratio.set_xlabel("step")
    ax_ratio.set_ylabel(r"$\Vert v_t\Vert _1 \,/\, \Vert v_{t-\Delta}\Vert _1$")
    ax_ratio.set_title(r"Freeze detector ratio ($\Delta = \lceil 1/(1-\beta_2) \rceil$)")
    if any(r is not None for r in table.values("var_ratio_l1")):
        ax_ratio.set_yscale("log")  # the ratio starts far above 1 while v fills in: no clipping
        cp.plain_log_ticks(ax_ratio, "y")
    cp.legend_below(ax_ratio, ncol=2)
    fig.suptitle("Variance stability of Adam (%s) and the 1-bit Adam freeze point" % model)
    return fig


if __name__ == "__main__":
    sys.exit(cp.run_main(sys.modules[__name__]))
